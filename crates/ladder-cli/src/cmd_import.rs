//! `ladder import`: append a whole history, all or nothing.

use crate::source::open_for_write;
use crate::{Hinted, UsageError};
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_events::{Event, Violation};
use ladder_import::csv::{parse_skip, read_files, CsvOptions, HomeSeat, Mapping, Preset};
use ladder_import::jsonl::{parse_raw_lined, JsonLines, RawLine};
use ladder_import::Origin;
use ladder_log::{AppendError, AppendOptions, AppendReport, Prepared};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

pub const EXAMPLES: &str = "Examples:
  ladder import games.jsonl
  ladder import --auto-join --ticks games.jsonl            add missing joins and midnights
  cat games.jsonl | ladder import -                        read standard input
  ladder import --skip-invalid --format json games.jsonl   skip bad lines, machine-readable report
  ladder import --auto-join --columns at=date,winner=w,loser=l games.csv
  ladder import --auto-join --columns at=date,a=home,b=away,score_a=hs,score_b=as results.csv
  ladder import --auto-join --preset tennis atp_matches_2023.csv atp_matches_2024.csv
  ladder import --auto-join --preset tennis wta_matches_2024.csv          WTA files too

A bad line refuses the whole import (the message names the file, line and rule) and nothing is
written. Re-running an import is safe: events already stored are counted as duplicates, with
or without ids (docs/events.md). Events dated over a day after the clock need --allow-future.";

/// Input and output formats of `import`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    /// Input: JSON Lines events (the default, unless --columns or --preset is given).
    Jsonl,
    /// Input: CSV with --columns or --preset.
    Csv,
    /// Output: print the summary as one JSON object.
    Json,
    /// Output: print the summary for people (the default).
    Text,
}

/// CSV presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PresetArg {
    /// Jeff Sackmann's match files, ATP (tennis_atp) and WTA (tennis_wta) alike, which share one
    /// layout: players by name, ` #id` added when a name has two ids.
    Tennis,
}

/// Arguments of `import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files to import, in order; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Input format (jsonl, csv) and/or summary format (text, json); repeat or comma-separate.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub format: Vec<ImportFormat>,
    /// Append a PlayerJoined (at the same instant) for every player named before joining.
    #[arg(long)]
    pub auto_join: bool,
    /// Insert a MidnightTick at each UTC date boundary crossed between consecutive events.
    #[arg(long)]
    pub ticks: bool,
    /// Skip invalid lines (each reported with its line and rule) instead of refusing the import.
    #[arg(long)]
    pub skip_invalid: bool,
    /// CSV: map columns, e.g. `at=date,winner=w,loser=l` or `at=date,a=home,b=away,score_a=hs,score_b=as`.
    #[arg(long, value_name = "KEY=COLUMN,...")]
    pub columns: Option<String>,
    /// CSV: the `a` (or `b`) column's seat is at home in every row (`"home": true`); a
    /// `neutral=COLUMN` mapping leaves rows where that column reads 1, true or yes on neutral ground.
    #[arg(long, value_name = "a|b")]
    pub home: Option<String>,
    /// CSV: a built-in column mapping.
    #[arg(long, value_enum)]
    pub preset: Option<PresetArg>,
    /// CSV: drop rows whose COLUMN matches REGEX (repeatable).
    #[arg(long, value_name = "COLUMN=REGEX")]
    pub skip: Vec<String>,
    /// CSV: the field separator.
    #[arg(long, default_value = ",", value_name = "CHAR")]
    pub delimiter: char,
    /// Accept events dated more than a day after this computer's clock (refused by default,
    /// rule future-instant: a mistyped year would block every later append).
    #[arg(long)]
    pub allow_future: bool,
}

/// Maps the log's input index back to file and line, 4 bytes per event.
#[derive(Default)]
struct Origins {
    lines: Vec<u32>,
    files: Vec<(usize, Arc<str>)>,
}

impl Origins {
    fn push(&mut self, origin: &Origin) {
        if self.files.last().is_none_or(|(_, f)| *f != origin.file) {
            self.files.push((self.lines.len(), origin.file.clone()));
        }
        self.lines.push(u32::try_from(origin.line).unwrap_or(u32::MAX));
    }

    /// [`Origins::push`] of line `line` of the file last pushed, or of `file` when it is given
    /// (a parsed chunk names its file at its first line and where the file changes).
    fn push_line(&mut self, file: Option<Arc<str>>, line: u64) {
        if let Some(file) = file {
            if self.files.last().is_none_or(|(_, f)| *f != file) {
                self.files.push((self.lines.len(), file));
            }
        }
        self.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
    }

    fn get(&self, index: usize) -> String {
        let file =
            self.files.iter().rev().find(|(start, _)| *start <= index).map_or("?", |(_, f)| &**f);
        match self.lines.get(index) {
            Some(line) => format!("{file}:{line}"),
            None => format!("{file}: event {}", index + 1),
        }
    }
}

/// Opens an input file. A file that cannot be opened, or a directory, fails the whole import
/// before anything is read (a read error later refuses it too: rule unreadable-input).
fn open_input(name: &str) -> anyhow::Result<Box<dyn BufRead + Send>> {
    if name == "-" {
        Ok(Box::new(BufReader::new(std::io::stdin())))
    } else {
        let f = File::open(name).with_context(|| format!("cannot read {name}"))?;
        if f.metadata().with_context(|| format!("cannot read {name}"))?.is_dir() {
            return Err(Hinted::refused(
                format!("cannot read {name}: it is a directory; nothing was imported"),
                "name the files to import (e.g. DIR/*.jsonl)",
            )
            .into());
        }
        Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
    }
}

/// Lines per chunk handed to a parsing worker.
const PARSE_CHUNK: usize = 1024;

/// Lines read but not parsed: their texts, one after the other in `text`.
#[derive(Default)]
struct RawChunk {
    text: String,
    lines: Vec<(Origin, Result<RawLine, Violation>)>,
}

/// Parsed lines, in input order: each line's number, and its file at the chunk's first line and
/// wherever the file changes (`None` for the file of the line before). The file is an `Arc` the
/// reading thread clones for every line; giving the ledger's thread one per chunk spares it the
/// drop of each (an atomic decrement of a count the reading thread keeps incrementing, so the
/// count's cache line went back and forth between the cores).
type Parsed = Vec<ParsedLine>;

/// A parsed line: its file (when it changes, [`Parsed`]), its line number, its event with the
/// hashes of it the worker computed ([`Prepared`]: its id's fingerprint and its leaf hash, off the
/// ledger's thread).
type ParsedLine = (Option<Arc<str>>, u64, Result<Prepared, Violation>);

/// The JSON Lines events of `readers`, in order, parsed on every core but one a few chunks ahead
/// of the ledger, which takes the last: parsing (JSON, timestamps, the event's own rules) is about
/// half of an import's work, and the ledger's checks, hashing and writes (in order, on this
/// thread) the other half. One thread reads the lines (checking their length, line ends and
/// UTF-8) into chunks of [`PARSE_CHUNK`]; a worker per core but one parses a chunk at a time; the
/// chunks come back here in input order, so the ledger sees the items [`JsonLines`] would give,
/// in its order, whatever the timing. At most [`in_flight`] chunks are between the reader and the
/// ledger, so the memory ahead is bounded. When the ledger stops early (a refused line, a storage
/// error) this iterator is dropped and every thread ends at its next hand-over. The ledger hands
/// the events it has written to the returned [`Spent`], which sends them back to the workers, who
/// allocated them, to be freed there.
fn parse_ahead(
    readers: Vec<(String, Box<dyn BufRead + Send>)>,
) -> (impl Iterator<Item = ParsedLine>, Spent) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).max(2) - 1;
    let in_flight = in_flight(workers);
    let (work_tx, work_rx) = std::sync::mpsc::sync_channel::<(u64, RawChunk)>(workers);
    let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<(u64, Parsed)>(in_flight);
    // A token per chunk that may be in flight: the reader takes one before it hands a chunk over,
    // the ledger gives it back once it starts on that chunk.
    let (token_tx, token_rx) = std::sync::mpsc::sync_channel::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(());
    }
    std::thread::spawn(move || {
        let mut index = 0;
        let mut chunk = RawChunk::default();
        let mut hand_over = |chunk: &mut RawChunk| {
            let full = std::mem::take(chunk);
            let sent = token_rx.recv().is_ok() && work_tx.send((index, full)).is_ok();
            index += 1;
            sent
        };
        for (name, r) in readers {
            let mut lines = JsonLines::new(r, &name);
            while let Some((origin, line)) = lines.next_raw(&mut chunk.text) {
                // A refusal is handed over at once: the ledger may stop there, and the reader may
                // not come back soon (the rest of an endless line is read before the next item).
                let refused = line.is_err();
                chunk.lines.push((origin, line));
                if (chunk.lines.len() == PARSE_CHUNK || refused) && !hand_over(&mut chunk) {
                    return;
                }
            }
        }
        if !chunk.lines.is_empty() {
            hand_over(&mut chunk);
        }
    });
    let work_rx = Arc::new(std::sync::Mutex::new(work_rx));
    let (spent_tx, spent_rx) = std::sync::mpsc::channel::<Vec<Event>>();
    let spent_rx = Arc::new(std::sync::Mutex::new(spent_rx));
    for _ in 0..workers {
        let (work_rx, done_tx) = (Arc::clone(&work_rx), done_tx.clone());
        let spent_rx = Arc::clone(&spent_rx);
        // The canonical line of the event being parsed, for its leaf hash.
        let mut line_buf = Vec::with_capacity(512);
        std::thread::spawn(move || loop {
            // The lock is held only while waiting for the next chunk, never while parsing.
            let job = match work_rx.lock() {
                Ok(rx) => rx.recv(),
                Err(_) => return,
            };
            let Ok((index, chunk)) = job else { return };
            let text = &chunk.text;
            let mut file: Option<Arc<str>> = None;
            let parsed = chunk
                .lines
                .into_iter()
                .map(|(origin, line)| {
                    let event = line.and_then(|l| {
                        parse_raw_lined(&text[l.start..l.end], l.complete, &mut line_buf)
                            .map(Prepared::new)
                    });
                    let named = if file.as_ref().is_some_and(|f| Arc::ptr_eq(f, &origin.file)) {
                        None
                    } else {
                        file = Some(Arc::clone(&origin.file));
                        Some(origin.file)
                    };
                    (named, origin.line, event)
                })
                .collect();
            if done_tx.send((index, parsed)).is_err() {
                return;
            }
            // The events the ledger has written since: freed here, outside the lock.
            let spent: Vec<Vec<Event>> = match spent_rx.try_lock() {
                Ok(rx) => rx.try_iter().collect(),
                Err(_) => Vec::new(),
            };
            drop(spent);
        });
    }
    drop(done_tx);
    let events = InOrder { done: done_rx, tokens: token_tx, next: 0, early: BTreeMap::new() };
    (events.flatten(), Spent { bunch: Vec::with_capacity(PARSE_CHUNK), to_workers: spent_tx })
}

/// Events the ledger is done with, sent back to the parsing workers in bunches of
/// [`PARSE_CHUNK`] to be freed there: freeing memory another thread allocated cost the ledger's
/// thread about a tenth of its time (glibc's allocator; docs/PERFORMANCE.md, "Where an import's
/// time goes"), and that thread bounds an import.
struct Spent {
    bunch: Vec<Event>,
    to_workers: std::sync::mpsc::Sender<Vec<Event>>,
}

impl Spent {
    fn take(&mut self, event: Event) {
        self.bunch.push(event);
        if self.bunch.len() == PARSE_CHUNK {
            let full = std::mem::replace(&mut self.bunch, Vec::with_capacity(PARSE_CHUNK));
            // With the workers gone (the input ended), the bunch is freed here instead.
            let _ = self.to_workers.send(full);
        }
    }
}

/// How many chunks may be between the reader and the ledger with `workers` parsing workers: two
/// for each worker and two more, so no worker waits for work while the ledger is busy.
fn in_flight(workers: usize) -> usize {
    2 * workers + 2
}

/// The parsed chunks in input order: a chunk that comes back before the one the ledger waits for
/// is kept until its turn.
struct InOrder {
    done: std::sync::mpsc::Receiver<(u64, Parsed)>,
    tokens: std::sync::mpsc::SyncSender<()>,
    next: u64,
    early: BTreeMap<u64, Parsed>,
}

impl Iterator for InOrder {
    type Item = Parsed;

    fn next(&mut self) -> Option<Parsed> {
        let chunk = loop {
            if let Some(chunk) = self.early.remove(&self.next) {
                break chunk;
            }
            // Every worker gone with this chunk not back: the input ended before it.
            let (index, chunk) = self.done.recv().ok()?;
            self.early.insert(index, chunk);
        };
        self.next += 1;
        let _ = self.tokens.send(());
        Some(chunk)
    }
}

pub fn run(ledger_path: &Path, args: ImportArgs) -> anyhow::Result<ExitCode> {
    let csv =
        args.columns.is_some() || args.preset.is_some() || args.format.contains(&ImportFormat::Csv);
    if args.format.contains(&ImportFormat::Csv) && args.format.contains(&ImportFormat::Jsonl) {
        return Err(UsageError("--format csv and --format jsonl exclude each other".into()).into());
    }
    let json_out = args.format.contains(&ImportFormat::Json);
    if csv && args.columns.is_some() == args.preset.is_some() {
        return Err(UsageError(
            "a CSV import needs exactly one of --columns KEY=COLUMN,... or --preset tennis".into(),
        )
        .into());
    }
    if !csv && (!args.skip.is_empty() || args.delimiter != ',' || args.home.is_some()) {
        return Err(UsageError(
            "--skip, --delimiter and --home apply to CSV imports (give --columns or --preset)"
                .into(),
        )
        .into());
    }
    if args.preset.is_some() && args.home.is_some() {
        return Err(UsageError(
            "--home goes with --columns a=...,b=...: the tennis preset has no home seat".into(),
        )
        .into());
    }
    let opts = AppendOptions {
        auto_join: args.auto_join,
        ticks: args.ticks,
        skip_invalid: args.skip_invalid,
        not_after: crate::not_after(crate::now(), args.allow_future),
    };
    let mut origins = Origins::default();

    // Read CSV up front (it must be sorted); JSON Lines stream straight into the log.
    let mut not_results = Vec::new();
    let mut filtered = 0;
    let csv_batch = if csv {
        let preset = match (&args.columns, args.preset) {
            (Some(spec), None) => {
                let usage = |e: ladder_import::csv::CsvError| UsageError(e.to_string());
                let home = args.home.as_deref().map(HomeSeat::parse).transpose().map_err(usage)?;
                Preset::Columns(Mapping::parse_with_home(spec, home).map_err(usage)?)
            }
            _ => Preset::Tennis,
        };
        let delimiter = u8::try_from(args.delimiter).map_err(|_| {
            UsageError(format!("--delimiter {:?} is not a single ASCII character", args.delimiter))
        })?;
        let skips = args
            .skip
            .iter()
            .map(|s| parse_skip(s).map_err(|e| UsageError(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let mut files: Vec<(String, Box<dyn Read>)> = Vec::new();
        for name in &args.files {
            files.push((name.clone(), Box::new(open_input(name)?)));
        }
        let batch = read_files(files, &CsvOptions { preset, delimiter, skips })?;
        not_results = batch.not_results;
        filtered = batch.skipped_by_filter;
        Some(batch.events)
    } else {
        None
    };

    // Every input is opened before the ledger: one that cannot be read fails the import first.
    let mut readers = Vec::new();
    if csv_batch.is_none() {
        for name in &args.files {
            readers.push((name.clone(), open_input(name)?));
        }
    }
    let mut ledger = open_for_write(ledger_path)?;
    let bar = ladder_cli::spinner("importing");
    let mut read = 0u64;
    let mut tick = || {
        read += 1;
        if read.is_multiple_of(4096) {
            bar.set_position(read);
        }
    };
    let result = match csv_batch {
        Some(events) => ledger.append(
            events.into_iter().map(|(o, e)| {
                tick();
                origins.push(&o);
                e
            }),
            &opts,
        ),
        None => {
            let (events, mut spent) = parse_ahead(readers);
            ledger.append_returning(
                events.map(|(file, line, e)| {
                    tick();
                    origins.push_line(file, line);
                    e
                }),
                &opts,
                |e| spent.take(e),
            )
        }
    };
    drop(bar);
    let report = match result {
        Ok(r) => r,
        Err(AppendError::Refused { index, violation }) => {
            let earlier = match violation.earlier {
                Some(i) => format!(" (the earlier event is at {})", origins.get(i)),
                None => String::new(),
            };
            let hint = if violation.rule == ladder_events::Rule::TimeOrder
                && violation.earlier.is_none()
            {
                // Out of order with the ledger, not within the file: sorting will not help.
                "the file is older than the ledger's last event (named above), and a ledger only \
                 grows forward in time: import the seasons oldest first into a new ledger \
                 (--ledger NEW.db), or pass --skip-invalid to import only the events after the \
                 ledger's last"
            } else {
                crate::rule_hint(violation.rule, args.auto_join)
            };
            let hint = if violation.rule.skippable() && !hint.contains("--skip-invalid") {
                format!("{hint}; or pass --skip-invalid to skip such lines and import the rest")
            } else {
                hint.to_string()
            };
            return Err(Hinted::refused(
                format!("{}: {violation}{earlier}\nnothing was imported", origins.get(index)),
                hint,
            )
            .into());
        }
        Err(e @ AppendError::Unconfirmed(_)) => {
            return Err(e).context(format!("import into {} failed", ledger_path.display()))
        }
        Err(e) => {
            return Err(e).context(format!(
                "import into {} failed; nothing was imported",
                ledger_path.display()
            ))
        }
    };
    print_report(&report, &origins, &not_results, filtered, json_out)?;
    Ok(ExitCode::SUCCESS)
}

/// `n thing` or `n things`.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The report's first line, naming only what happened: `appended 8 events, including 1 join
/// added by --auto-join; 2 duplicates of stored events skipped`.
fn summary(r: &AppendReport) -> String {
    let mut added = Vec::new();
    if r.auto_joined > 0 {
        added.push(format!("{} added by --auto-join", count(r.auto_joined, "join", "joins")));
    }
    if r.ticks_inserted > 0 {
        let ticks = count(r.ticks_inserted, "midnight tick", "midnight ticks");
        added.push(format!("{ticks} added by --ticks"));
    }
    let mut line = format!("appended {}", count(r.appended, "event", "events"));
    if !added.is_empty() {
        line.push_str(&format!(", including {}", added.join(" and ")));
    }
    if r.duplicates > 0 {
        let dups = count(r.duplicates, "duplicate", "duplicates");
        line.push_str(&format!("; {dups} of stored events skipped"));
    }
    if !r.skipped.is_empty() {
        let bad = count(r.skipped.len() as u64, "invalid line", "invalid lines");
        line.push_str(&format!("; {bad} skipped (listed above)"));
    }
    line
}

fn print_report(
    r: &AppendReport,
    origins: &Origins,
    not_results: &[(Origin, &'static str)],
    filtered: u64,
    json: bool,
) -> anyhow::Result<()> {
    let mut out = crate::out::stdout();
    if json {
        let skipped: Vec<_> = r
            .skipped
            .iter()
            .map(|(i, v)| serde_json::json!({"line": origins.get(*i), "rule": v.rule.name(), "message": v.detail}))
            .collect();
        let v = serde_json::json!({
            "appended": r.appended,
            "duplicates": r.duplicates,
            "skipped": r.skipped.len(),
            "head": r.head.to_string(),
            "auto_joined": r.auto_joined,
            "ticks_inserted": r.ticks_inserted,
            "not_results": not_results.len(),
            "filtered": filtered,
            "skipped_lines": skipped,
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    for (i, v) in &r.skipped {
        writeln!(out, "skipped {}: {v}", origins.get(*i))?;
    }
    writeln!(out, "{}", summary(r))?;
    if !not_results.is_empty() || filtered > 0 {
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for (_, why) in not_results {
            match reasons.iter_mut().find(|(w, _)| w == why) {
                Some((_, n)) => *n += 1,
                None => reasons.push((why, 1)),
            }
        }
        let list: Vec<String> = reasons.iter().map(|(w, n)| format!("{n} {w}")).collect();
        let mut parts = Vec::new();
        if !not_results.is_empty() {
            let n = not_results.len();
            parts.push(format!("rows that are not results: {n} ({})", list.join(", ")));
        }
        if filtered > 0 {
            parts.push(format!("rows dropped by --skip: {filtered}"));
        }
        writeln!(out, "{}", parts.join("; "))?;
    }
    writeln!(out, "head {}", r.head)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::summary;
    use ladder_events::{Rule, Violation};
    use ladder_log::AppendReport;

    #[test]
    fn the_summary_names_only_what_happened() {
        let plain = AppendReport { appended: 1, ..Default::default() };
        assert_eq!(summary(&plain), "appended 1 event");
        let joins = AppendReport { appended: 8, auto_joined: 1, ..Default::default() };
        assert_eq!(summary(&joins), "appended 8 events, including 1 join added by --auto-join");
        let all = AppendReport {
            appended: 10,
            auto_joined: 2,
            ticks_inserted: 1,
            duplicates: 3,
            skipped: vec![(4, Violation::new(Rule::PlayerName, "empty"))],
            ..Default::default()
        };
        assert_eq!(
            summary(&all),
            "appended 10 events, including 2 joins added by --auto-join and 1 midnight tick added by --ticks; 3 duplicates of stored events skipped; 1 invalid line skipped (listed above)"
        );
        let again = AppendReport { duplicates: 8, ..Default::default() };
        assert_eq!(summary(&again), "appended 0 events; 8 duplicates of stored events skipped");
    }
}
