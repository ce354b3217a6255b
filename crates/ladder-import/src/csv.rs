//! CSV histories (`docs/events.md`, CSV): a header row mapped to events.
//!
//! Two ways to say what the columns mean: a [`Mapping`] (`--columns at=date,winner=w,loser=l`) or
//! the [`Preset::Tennis`] mapping for Jeff Sackmann's ATP files. Rows from every file are read,
//! turned into events, and stably sorted by `at` (the tennis preset also orders a tournament's
//! rounds), because a log never goes back in time. A row that cannot become an event is kept as
//! `Err(violation)` at the front of the batch (its instant is unknown), so the log refuses it or,
//! with `--skip-invalid`, skips and reports it. Rows that are not results at all (a tennis
//! walkover, a blank score, a player against themself) are dropped and counted, not refused.
//! Rows may have fewer fields than the header (the ATP amateur file has such rows): the missing
//! fields read as empty, and a row missing what it needs is refused like any other bad row.

use crate::Origin;
use ladder_events::{Body, Event, Rule, Seat, Timestamp, Violation, MAX_LINE_BYTES};
use regex::Regex;
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Read;
use std::sync::Arc;

/// Problems with the files or options themselves (not with one row): these refuse the import.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CsvError {
    /// `--columns` is malformed or incomplete.
    #[error("--columns: {0}")]
    Columns(String),
    /// `--skip` is not COLUMN=REGEX or the regex does not compile.
    #[error("--skip {spec:?}: {reason}")]
    Skip {
        /// The option as given.
        spec: String,
        /// Why it was refused.
        reason: String,
    },
    /// A mapped column is not in a file's header.
    #[error("{file}: the header has no column {column:?} (mapped to `{key}`); it has: {header}")]
    MissingColumn {
        /// The file.
        file: String,
        /// The mapping key.
        key: String,
        /// The column asked for.
        column: String,
        /// The header as read.
        header: String,
    },
    /// Two header columns have one name (after trimming): a mapping naming it would be ambiguous.
    #[error("{file}: the header names column {column:?} twice (fields {first} and {second}); rename one")]
    DuplicateColumn {
        /// The file.
        file: String,
        /// The repeated name.
        column: String,
        /// Its first field, from 1.
        first: usize,
        /// Its second field, from 1.
        second: usize,
    },
    /// The CSV reader failed (I/O, a malformed record, a line longer than 1 MiB).
    #[error("{file}: {error}")]
    Read {
        /// The file.
        file: String,
        /// The reader's error, with its line.
        error: String,
    },
}

/// How outcomes are written in the rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `winner` and `loser` columns: a win and a loss.
    WinnerLoser {
        /// Column of the winner's name.
        winner: String,
        /// Column of the loser's name.
        loser: String,
    },
    /// `a` and `b` with `score_a` and optionally `score_b`.
    Scores {
        /// Column of the first player's name.
        a: String,
        /// Column of the second player's name.
        b: String,
        /// Column of a's score: points if `score_b` is given, else 1, 0.5 or 0.
        score_a: String,
        /// Column of b's points (equal points are a draw).
        score_b: Option<String>,
    },
}

/// A user's `--columns KEY=COLUMN[,KEY=COLUMN...]` mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// Column of the date or instant.
    pub at: String,
    /// How the outcome is written.
    pub outcome: Outcome,
    /// Column of the idempotency id; default: a hash of the file name and the row.
    pub id: Option<String>,
    /// `--home a` or `--home b`: that seat is at home in every row (docs/events.md, `home`).
    pub home: Option<HomeSeat>,
    /// `neutral=COLUMN`: a row where this column reads `1`, `true` or `yes` (any case) has no
    /// home seat. Needs [`Mapping::home`].
    pub neutral: Option<String>,
}

/// Which column's seat `--home` puts at home.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomeSeat {
    /// The `a` column's seat.
    A,
    /// The `b` column's seat.
    B,
}

impl HomeSeat {
    /// Parses `a` or `b`.
    pub fn parse(text: &str) -> Result<HomeSeat, CsvError> {
        match text.trim() {
            "a" => Ok(HomeSeat::A),
            "b" => Ok(HomeSeat::B),
            other => Err(CsvError::Columns(format!(
                "--home is `{other}`; it names the column key whose seat is at home: `a` or `b`"
            ))),
        }
    }
}

/// True for a `neutral` cell that means neutral ground: `1`, `true` or `yes`, in any case.
pub fn is_neutral(cell: &str) -> bool {
    let c = cell.trim();
    c == "1" || c.eq_ignore_ascii_case("true") || c.eq_ignore_ascii_case("yes")
}

impl Mapping {
    /// Parses `KEY=COLUMN[,KEY=COLUMN...]`; keys are `at`, `winner`, `loser`, `a`, `b`, `score_a`,
    /// `score_b`, `id`, `neutral`. `--home` comes with it (`None`: no seat at home); it needs
    /// `a` and `b`, and `neutral` needs it.
    pub fn parse_with_home(spec: &str, home: Option<HomeSeat>) -> Result<Mapping, CsvError> {
        let mut m = Mapping::parse(spec)?;
        if home.is_some() && !matches!(m.outcome, Outcome::Scores { .. }) {
            return Err(CsvError::Columns(
                "--home names the `a` or `b` column's seat: map `a`, `b` and `score_a` instead of \
                 `winner` and `loser`"
                    .into(),
            ));
        }
        if home.is_none() && m.neutral.is_some() {
            return Err(CsvError::Columns(
                "`neutral` marks rows without a home seat: give --home a (or b) too".into(),
            ));
        }
        m.home = home;
        Ok(m)
    }

    /// Parses `KEY=COLUMN[,KEY=COLUMN...]` without `--home` ([`Mapping::parse_with_home`]).
    pub fn parse(spec: &str) -> Result<Mapping, CsvError> {
        let mut map: HashMap<&str, String> = HashMap::new();
        for part in spec.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| CsvError::Columns(format!("`{part}` is not KEY=COLUMN")))?;
            let k = k.trim();
            const KEYS: [&str; 9] =
                ["at", "winner", "loser", "a", "b", "score_a", "score_b", "id", "neutral"];
            let Some(key) = KEYS.iter().find(|x| **x == k) else {
                return Err(CsvError::Columns(format!(
                    "unknown key `{k}`; keys are {}",
                    KEYS.join(", ")
                )));
            };
            map.insert(key, v.trim().to_string());
        }
        let at = map.remove("at").ok_or_else(|| CsvError::Columns("`at` is required".into()))?;
        let id = map.remove("id");
        let neutral = map.remove("neutral");
        let outcome = match (map.remove("winner"), map.remove("loser"), map.remove("a"), map.remove("b")) {
            (Some(winner), Some(loser), None, None) => {
                if map.contains_key("score_a") || map.contains_key("score_b") {
                    return Err(CsvError::Columns("scores go with `a` and `b`, not with `winner`/`loser`".into()));
                }
                Outcome::WinnerLoser { winner, loser }
            }
            (None, None, Some(a), Some(b)) => {
                let score_a = map
                    .remove("score_a")
                    .ok_or_else(|| CsvError::Columns("`a` and `b` need `score_a` (and optionally `score_b`)".into()))?;
                Outcome::Scores { a, b, score_a, score_b: map.remove("score_b") }
            }
            _ => {
                return Err(CsvError::Columns(
                    "give either `winner` and `loser`, or `a`, `b` and `score_a` (with optional `score_b`)".into(),
                ))
            }
        };
        Ok(Mapping { at, outcome, id, home: None, neutral })
    }
}

/// Where the meaning of the columns comes from.
#[derive(Clone, Debug)]
pub enum Preset {
    /// The user's mapping.
    Columns(Mapping),
    /// `--preset tennis`: the layout of Jeff Sackmann's match files, ATP (tennis_atp) and WTA
    /// (tennis_wta) alike.
    Tennis,
}

/// Options of a CSV import.
#[derive(Clone, Debug)]
pub struct CsvOptions {
    /// How to read the columns.
    pub preset: Preset,
    /// Field separator (`--delimiter`, default `,`).
    pub delimiter: u8,
    /// `--skip COLUMN=REGEX`: rows whose column matches are dropped.
    pub skips: Vec<(String, Regex)>,
}

/// Parses one `--skip COLUMN=REGEX`.
pub fn parse_skip(spec: &str) -> Result<(String, Regex), CsvError> {
    let (col, re) = spec.split_once('=').ok_or_else(|| CsvError::Skip {
        spec: spec.into(),
        reason: "expected COLUMN=REGEX".into(),
    })?;
    let re =
        Regex::new(re).map_err(|e| CsvError::Skip { spec: spec.into(), reason: e.to_string() })?;
    Ok((col.to_string(), re))
}

/// The events of a CSV import, sorted, plus what was dropped on the way.
#[derive(Debug, Default)]
pub struct CsvBatch {
    /// Events in append order; rows that could not become events come first as `Err`.
    pub events: Vec<(Origin, Result<Event, Violation>)>,
    /// Rows that are not results (walkover, blank score, self-match), with the reason.
    pub not_results: Vec<(Origin, &'static str)>,
    /// Rows dropped by `--skip`.
    pub skipped_by_filter: u64,
}

/// Parses the `at` column: `YYYYMMDD`, `YYYY-MM-DD` or an RFC 3339 instant.
pub fn parse_at(text: &str) -> Result<Timestamp, Violation> {
    let t = text.trim();
    let normalized;
    let t = if t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit()) {
        normalized = format!("{}-{}-{}", &t[..4], &t[4..6], &t[6..]);
        normalized.as_str()
    } else {
        t
    };
    Timestamp::parse(t).map_err(|e| Violation::new(Rule::Timestamp, format!("`at`: {e}")))
}

fn parse_score(column: &str, text: &str) -> Result<f64, Violation> {
    text.trim().parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| {
        Violation::new(Rule::Finite, format!("column {column:?} is {text:?}, not a finite number"))
    })
}

fn default_id(file: &str, line: u64, record: &::csv::StringRecord) -> String {
    // The file's base name, so the same file imported from another directory gets the same ids.
    let base = std::path::Path::new(file).file_name().map_or(file.into(), |b| b.to_string_lossy());
    let mut h = blake3::Hasher::new();
    h.update(base.as_bytes());
    h.update(&[0]);
    h.update(&line.to_le_bytes());
    for field in record.iter() {
        h.update(&[0x1f]);
        h.update(field.as_bytes());
    }
    format!("csv-{}", &h.finalize().to_hex()[..32])
}

fn two_player(
    at: Timestamp,
    id: String,
    a: (String, f64),
    b: (String, f64),
    home: Option<HomeSeat>,
) -> Event {
    let seat = |(player, score): (String, f64), home| Seat {
        player,
        score,
        team: None,
        seconds: None,
        home,
    };
    let seats = vec![seat(a, home == Some(HomeSeat::A)), seat(b, home == Some(HomeSeat::B))];
    Event { at, id: Some(id), body: Body::MatchResult { seats } }
}

struct Columns {
    index: HashMap<String, usize>,
    header: String,
    file: String,
}

impl Columns {
    fn get(&self, key: &str, column: &str) -> Result<usize, CsvError> {
        self.index.get(column).copied().ok_or_else(|| CsvError::MissingColumn {
            file: self.file.clone(),
            key: key.into(),
            column: column.into(),
            header: self.header.clone(),
        })
    }
}

/// A reader that numbers lines as an editor does, so rows are named by the line they start on.
///
/// The csv crate ends a record at `\n`, `\r\n` or a lone `\r` but counts lines by `\n` only,
/// and a record's position is where reading it began: the `\n` left over from a `\r\n`, or the
/// first of the blank lines before it. So rows of `\r\n` files were named one line early, rows
/// after blank lines too, and in a file with lone `\r` line ends every row was "line 1" and two
/// equal rows had the same default id (which hashes the line), the second dropped as already
/// imported. Here `\n`, `\r\n` and a lone `\r` each end a line, and a record's line is that of
/// the first non-blank line at or after its position.
struct LineNumbers<R> {
    inner: R,
    /// (offset of the first byte, line number) of each non-blank line read and not yet asked for.
    starts: VecDeque<(u64, u64)>,
    /// Bytes passed through so far.
    offset: u64,
    /// The line the next byte is on.
    line: u64,
    /// No byte of the current line but line ends seen yet.
    blank_so_far: bool,
    /// The last byte was `\r` (so a `\n` now completes a `\r\n`).
    after_cr: bool,
    /// Bytes of the current line so far.
    line_bytes: usize,
    /// Where the record being read began (as far as the caller has said, [`Self::record_at`]).
    record_start: u64,
}

/// Longest CSV record, in bytes from its start to the last byte read: a record may span lines
/// inside quotes, each at most [`MAX_LINE_BYTES`]. The reader reads ahead by its buffer (8 KiB),
/// so a record within that of the bound may be refused too.
pub const MAX_RECORD_BYTES: u64 = 2 * MAX_LINE_BYTES as u64;

impl<R: Read> LineNumbers<R> {
    fn new(inner: R) -> LineNumbers<R> {
        LineNumbers {
            inner,
            starts: VecDeque::new(),
            offset: 0,
            line: 1,
            blank_so_far: true,
            after_cr: false,
            line_bytes: 0,
            record_start: 0,
        }
    }

    /// The next record begins at byte `position`.
    fn record_at(&mut self, position: u64) {
        self.record_start = position;
    }

    /// The line of a record whose reading began at byte `position`. Records come in order, so
    /// lines before `position` are forgotten.
    fn line_of(&mut self, position: u64) -> u64 {
        while self.starts.front().is_some_and(|&(start, _)| start < position) {
            self.starts.pop_front();
        }
        self.starts.front().map_or(self.line, |&(_, line)| line)
    }
}

impl<R: Read> Read for LineNumbers<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let too_long = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        if (self.offset + n as u64).saturating_sub(self.record_start) > MAX_RECORD_BYTES {
            return Err(too_long(format!(
                "rule line-length: the record starting before line {} is longer than {} bytes \
                 (2 MiB), the longest record ladder reads",
                self.line, MAX_RECORD_BYTES
            )));
        }
        for (i, &b) in buf[..n].iter().enumerate() {
            if b == b'\r' || b == b'\n' {
                self.line_bytes = 0;
            } else {
                self.line_bytes += 1;
                if self.line_bytes > MAX_LINE_BYTES {
                    return Err(too_long(format!(
                        "line {}: rule line-length: the line is longer than {MAX_LINE_BYTES} \
                         bytes (1 MiB), the longest line ladder reads",
                        self.line
                    )));
                }
            }
            match b {
                b'\n' if self.after_cr => {}
                b'\r' | b'\n' => {
                    self.line += 1;
                    self.blank_so_far = true;
                }
                _ if self.blank_so_far => {
                    self.starts.push_back((self.offset + i as u64, self.line));
                    self.blank_so_far = false;
                }
                _ => {}
            }
            self.after_cr = b == b'\r';
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// The error of a file the csv crate could not read, naming the line as [`LineNumbers`] does.
fn read_error<R: Read>(file: &str, e: &::csv::Error, lines: &mut LineNumbers<R>) -> CsvError {
    let error = match e.kind() {
        ::csv::ErrorKind::Utf8 { pos: Some(pos), err } => format!(
            "line {}: field {} is not UTF-8 (invalid byte {} bytes into the field)",
            lines.line_of(pos.byte()),
            err.field() + 1,
            err.valid_up_to()
        ),
        _ => e.to_string(),
    };
    CsvError::Read { file: file.to_string(), error }
}

/// A row read from a file, before sorting.
struct Row {
    origin: Origin,
    at: Option<Timestamp>,
    /// Tennis: (tournament order, round rank, match_num) within the date.
    within: (u32, u8, i64),
    event: Result<Event, Violation>,
}

/// A tennis result before names are disambiguated: origin, date, order within the date,
/// `[winner_name, winner_id, loser_name, loser_id]`, and the row's id.
type TennisRow = (Origin, Timestamp, (u32, u8, i64), [String; 4], String);

/// Tennis rounds in playing order (docs/events.md, CSV); anything else sorts after them.
fn round_rank(round: &str) -> u8 {
    const ORDER: [&str; 13] =
        ["Q1", "Q2", "Q3", "Q4", "RR", "R128", "R64", "R32", "R16", "QF", "SF", "BR", "F"];
    ORDER.iter().position(|r| *r == round).map_or(ORDER.len() as u8, |p| p as u8)
}

/// Reads every file (name, reader) and returns the batch to append.
pub fn read_files(
    files: Vec<(String, Box<dyn Read>)>,
    opts: &CsvOptions,
) -> Result<CsvBatch, CsvError> {
    let mut batch = CsvBatch::default();
    let mut rows: Vec<Row> = Vec::new();
    // Tennis: which ids each name has, over every file imported.
    let mut tennis_raw: Vec<TennisRow> = Vec::new();
    let mut tournaments: HashMap<String, u32> = HashMap::new();
    // Every id each name has in the files imported, walkovers included, so whether a name is
    // suffixed does not depend on which rows happen to be results.
    let mut ids_of: HashMap<String, HashSet<String>> = HashMap::new();

    for (file, reader) in files {
        let mut rdr = ::csv::ReaderBuilder::new()
            .delimiter(opts.delimiter)
            .flexible(true)
            .from_reader(LineNumbers::new(reader));
        let header = match rdr.headers() {
            Ok(header) => header.clone(),
            Err(e) => return Err(read_error(&file, &e, rdr.get_mut())),
        };
        let mut index: HashMap<String, usize> = HashMap::new();
        for (i, h) in header.iter().enumerate() {
            if let Some(first) = index.insert(h.trim().to_string(), i) {
                return Err(CsvError::DuplicateColumn {
                    file,
                    column: h.trim().to_string(),
                    first: first + 1,
                    second: i + 1,
                });
            }
        }
        let cols = Columns {
            index,
            header: header.iter().collect::<Vec<_>>().join(","),
            file: file.clone(),
        };
        let skips: Vec<(usize, &Regex)> = opts
            .skips
            .iter()
            .map(|(c, re)| Ok((cols.get("skip", c)?, re)))
            .collect::<Result<_, CsvError>>()?;
        let file_arc: Arc<str> = file.as_str().into();
        let mut raw = ::csv::ByteRecord::new();
        // The csv crate's own line count of the previous row (see `id_line`).
        let mut last_csv_line = 0;
        loop {
            let position = rdr.position().byte();
            rdr.get_mut().record_at(position);
            match rdr.read_byte_record(&mut raw) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => return Err(read_error(&file, &e, rdr.get_mut())),
            }
            let line = raw.position().map_or(0, |p| rdr.get_mut().line_of(p.byte()));
            let origin = Origin { file: file_arc.clone(), line };
            // A row that is not UTF-8 is refused as a row (rule syntax), so --skip-invalid skips
            // it; the rows around it are read as usual.
            let record = match ::csv::StringRecord::from_byte_record(raw.clone()) {
                Ok(record) => record,
                Err(e) => {
                    let field = e.utf8_error().field();
                    let column = header.get(field).map_or(String::new(), |h| format!(" ({h:?})"));
                    let v = Violation::new(
                        Rule::Syntax,
                        format!(
                            "field {}{column} is not UTF-8 (invalid byte {} bytes into the field)",
                            field + 1,
                            e.utf8_error().valid_up_to()
                        ),
                    );
                    rows.push(Row { origin, at: None, within: (0, 0, 0), event: Err(v) });
                    last_csv_line = last_csv_line.max(raw.position().map_or(0, |p| p.line()));
                    continue;
                }
            };
            // Default ids hash the line the csv crate counts (by `\n` only), as they did before
            // messages used editor lines, so re-importing a file imported before is still a
            // no-op. Where that count does not advance (lone `\r` line ends: every row was "line
            // 1" and equal rows collided), the editor line is hashed instead, marked by the top bit.
            let csv_line = record.position().map_or(0, |p| p.line());
            let id_line = if csv_line > last_csv_line { csv_line } else { line | (1 << 63) };
            last_csv_line = last_csv_line.max(csv_line);
            if skips.iter().any(|(i, re)| re.is_match(record.get(*i).unwrap_or(""))) {
                batch.skipped_by_filter += 1;
                continue;
            }
            let field = |i: usize| record.get(i).unwrap_or("").trim();
            // A player's cell, refused when empty under the CSV's own column name (the event's
            // own check would name a JSON field the user never wrote).
            let player = |key: &str, column: &str| -> Result<Result<String, Violation>, CsvError> {
                let name = field(cols.get(key, column)?);
                Ok(if name.is_empty() {
                    let what = if key == column {
                        format!("column {column:?}")
                    } else {
                        format!("column {column:?} ({key})")
                    };
                    Err(Violation::new(Rule::PlayerName, format!("{what} is empty")))
                } else {
                    Ok(name.to_string())
                })
            };
            match &opts.preset {
                Preset::Columns(m) => {
                    let at = parse_at(field(cols.get("at", &m.at)?));
                    let id = match &m.id {
                        Some(c) => field(cols.get("id", c)?).to_string(),
                        None => default_id(&file, id_line, &record),
                    };
                    let event = match (&at, &m.outcome) {
                        (Err(v), _) => Err(v.clone()),
                        (Ok(at), Outcome::WinnerLoser { winner, loser }) => {
                            let (w, l) = (player("winner", winner)?, player("loser", loser)?);
                            w.and_then(|w| l.map(|l| two_player(*at, id, (w, 1.0), (l, 0.0), None)))
                        }
                        (Ok(at), Outcome::Scores { a, b, score_a, score_b }) => {
                            let (pa, pb) = (player("a", a)?, player("b", b)?);
                            let home = match &m.neutral {
                                Some(c) if is_neutral(field(cols.get("neutral", c)?)) => None,
                                _ => m.home,
                            };
                            let sa = parse_score(score_a, field(cols.get("score_a", score_a)?));
                            let sb = match score_b {
                                Some(c) => parse_score(c, field(cols.get("score_b", c)?)),
                                None => sa.clone().and_then(|s| {
                                    if s == 1.0 || s == 0.5 || s == 0.0 {
                                        Ok(1.0 - s)
                                    } else {
                                        Err(Violation::new(
                                            Rule::Finite,
                                            format!("column {score_a:?} is {s}; without score_b it must be 1, 0.5 or 0"),
                                        ))
                                    }
                                }),
                            };
                            pa.and_then(|pa| {
                                pb.and_then(|pb| {
                                    sa.and_then(|sa| {
                                        sb.map(|sb| two_player(*at, id, (pa, sa), (pb, sb), home))
                                    })
                                })
                            })
                        }
                    };
                    let event = event.and_then(|e| e.check().map(|()| e));
                    rows.push(Row { origin, at: at.ok(), within: (0, 0, 0), event });
                }
                Preset::Tennis => {
                    let get = |key: &str| cols.get(key, key).map(field);
                    let score = get("score")?;
                    let (wname, lname) =
                        (get("winner_name")?.to_string(), get("loser_name")?.to_string());
                    let (wid, lid) = (get("winner_id")?.to_string(), get("loser_id")?.to_string());
                    ids_of.entry(wname.clone()).or_default().insert(wid.clone());
                    ids_of.entry(lname.clone()).or_default().insert(lid.clone());
                    if score.is_empty() {
                        batch.not_results.push((origin, "blank score"));
                        continue;
                    }
                    if score.contains("W/O") {
                        batch.not_results.push((origin, "walkover (W/O)"));
                        continue;
                    }
                    if wid == lid || (wid.is_empty() && wname == lname) {
                        batch.not_results.push((origin, "a player against themself"));
                        continue;
                    }
                    let next = tournaments.len() as u32;
                    let t = *tournaments
                        .entry(format!("{file}\u{1f}{}", get("tourney_id")?))
                        .or_insert(next);
                    let within = (
                        t,
                        round_rank(get("round")?),
                        get("match_num")?.parse::<i64>().unwrap_or(i64::MAX),
                    );
                    match parse_at(get("tourney_date")?) {
                        Ok(at) => {
                            let id = default_id(&file, id_line, &record);
                            tennis_raw.push((origin, at, within, [wname, wid, lname, lid], id));
                        }
                        Err(v) => rows.push(Row { origin, at: None, within, event: Err(v) }),
                    }
                }
            }
        }
    }

    if !tennis_raw.is_empty() {
        let ambiguous: HashSet<String> =
            ids_of.into_iter().filter(|(_, ids)| ids.len() > 1).map(|(n, _)| n).collect();
        let label = |name: String, id: &str| {
            if ambiguous.contains(&name) {
                format!("{name} #{id}")
            } else {
                name
            }
        };
        for (origin, at, within, [wn, wi, ln, li], id) in tennis_raw {
            let event = two_player(at, id, (label(wn, &wi), 1.0), (label(ln, &li), 0.0), None);
            let event = event.check().map(|()| event);
            rows.push(Row { origin, at: Some(at), within, event });
        }
    }

    // Stable: equal keys keep file and row order. Rows without an instant sort first.
    rows.sort_by_key(|r| (r.at.map_or(i64::MIN, |t| t.0), r.within));
    batch.events = rows.into_iter().map(|r| (r.origin, r.event)).collect();
    Ok(batch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, preset: Preset) -> CsvBatch {
        let opts = CsvOptions { preset, delimiter: b',', skips: vec![] };
        read_files(
            vec![("t.csv".into(), Box::new(std::io::Cursor::new(text.as_bytes().to_vec())))],
            &opts,
        )
        .unwrap()
    }

    fn seats(e: &Event) -> Vec<(String, f64)> {
        match &e.body {
            Body::MatchResult { seats } => {
                seats.iter().map(|s| (s.player.clone(), s.score)).collect()
            }
            _ => panic!("not a match"),
        }
    }

    #[test]
    fn mapping_keys_are_checked() {
        assert!(Mapping::parse("at=d,winner=w,loser=l").is_ok());
        assert!(Mapping::parse("at=d,a=x,b=y,score_a=s").is_ok());
        assert!(matches!(Mapping::parse("winner=w,loser=l"), Err(CsvError::Columns(_))));
        assert!(matches!(Mapping::parse("at=d,winner=w"), Err(CsvError::Columns(_))));
        assert!(matches!(Mapping::parse("at=d,a=x,b=y"), Err(CsvError::Columns(_))));
        assert!(matches!(Mapping::parse("at=d,colour=c"), Err(CsvError::Columns(_))));
    }

    #[test]
    fn home_and_neutral_columns() {
        let homes = |e: &Event| match &e.body {
            Body::MatchResult { seats } => seats.iter().map(|s| s.home).collect::<Vec<_>>(),
            _ => panic!("not a match"),
        };
        let text = "date,h,aw,hs,as,neutral\n\
                    2020-01-01,x,y,2,1,FALSE\n\
                    2020-01-02,x,y,0,0,True\n\
                    2020-01-03,y,x,1,3,yes\n\
                    2020-01-04,y,x,1,3,\n\
                    2020-01-05,y,x,1,3,1\n";
        let spec = "at=date,a=h,b=aw,score_a=hs,score_b=as,neutral=neutral";
        let m = Mapping::parse_with_home(spec, Some(HomeSeat::A)).unwrap();
        let b = read(text, Preset::Columns(m));
        let got: Vec<Vec<bool>> =
            b.events.iter().map(|(_, e)| homes(e.as_ref().unwrap())).collect();
        let (home, neutral) = (vec![true, false], vec![false, false]);
        assert_eq!(got, [home.clone(), neutral.clone(), neutral.clone(), home, neutral]);
        let m =
            Mapping::parse_with_home("at=date,a=h,b=aw,score_a=hs,score_b=as", Some(HomeSeat::B));
        let b = read(text, Preset::Columns(m.unwrap()));
        assert!(b.events.iter().all(|(_, e)| homes(e.as_ref().unwrap()) == [false, true]));
        // --home needs a and b; neutral needs --home; --home is a or b.
        assert!(Mapping::parse_with_home("at=d,winner=w,loser=l", Some(HomeSeat::A)).is_err());
        assert!(Mapping::parse_with_home("at=d,a=x,b=y,score_a=s,neutral=n", None).is_err());
        assert!(HomeSeat::parse("home").is_err());
        assert_eq!(HomeSeat::parse("b").unwrap(), HomeSeat::B);
    }

    #[test]
    fn scores_dates_sorting_and_ids() {
        let m = Mapping::parse("at=date,a=home,b=away,score_a=hs,score_b=as").unwrap();
        let b = read(
            "date,home,away,hs,as\n2020-01-02,A,B,2,2\n20200101,C,D,3,1\n2020-01-02,E,F,0,1\n",
            Preset::Columns(m),
        );
        let evs: Vec<&Event> = b.events.iter().map(|(_, e)| e.as_ref().unwrap()).collect();
        assert_eq!(seats(evs[0]), vec![("C".into(), 3.0), ("D".into(), 1.0)]);
        assert_eq!(b.events[0].0.line, 3);
        assert_eq!(seats(evs[1]), vec![("A".into(), 2.0), ("B".into(), 2.0)]);
        assert_eq!(seats(evs[2]), vec![("E".into(), 0.0), ("F".into(), 1.0)]);
        let ids: HashSet<_> = evs.iter().map(|e| e.id.clone().unwrap()).collect();
        assert_eq!(ids.len(), 3, "row ids differ");
        // Re-reading gives the same ids (idempotent re-import).
        let again = read(
            "date,home,away,hs,as\n2020-01-02,A,B,2,2\n",
            Preset::Columns(Mapping::parse("at=date,a=home,b=away,score_a=hs,score_b=as").unwrap()),
        );
        assert_eq!(again.events[0].1.as_ref().unwrap().id, evs[1].id);
    }

    #[test]
    fn score_a_alone_and_bad_rows() {
        let m = Mapping::parse("at=d,a=x,b=y,score_a=s").unwrap();
        let b = read(
            "d,x,y,s\n2020-01-01,A,B,0.5\n2020-01-01,A,B,2\nbad-date,A,B,1\n2020-01-01,A,A,1\n",
            Preset::Columns(m),
        );
        assert_eq!(b.events.len(), 4);
        // The row without an instant sorts first.
        assert_eq!(b.events[0].1.as_ref().unwrap_err().rule, Rule::Timestamp);
        assert_eq!(
            seats(b.events[1].1.as_ref().unwrap()),
            vec![("A".into(), 0.5), ("B".into(), 0.5)]
        );
        assert_eq!(b.events[2].1.as_ref().unwrap_err().rule, Rule::Finite);
        assert_eq!(b.events[3].1.as_ref().unwrap_err().rule, Rule::SeatRepeated);
    }

    #[test]
    fn an_empty_player_cell_names_its_column() {
        let m = Mapping::parse("at=date,winner=w,loser=l").unwrap();
        let b =
            read("date,w,l\n2020-01-01,A,\n2020-01-02,,B\n2020-01-03,A,B\n", Preset::Columns(m));
        let v = b.events[0].1.as_ref().unwrap_err();
        assert_eq!(
            (v.rule, v.detail.as_str()),
            (Rule::PlayerName, "column \"l\" (loser) is empty")
        );
        let v = b.events[1].1.as_ref().unwrap_err();
        assert_eq!(v.detail, "column \"w\" (winner) is empty");
        assert!(b.events[2].1.is_ok());
        let m = Mapping::parse("at=d,a=x,b=y,score_a=s").unwrap();
        let b = read("d,x,y,s\n2020-01-01, ,B,1\n", Preset::Columns(m));
        assert_eq!(b.events[0].1.as_ref().unwrap_err().detail, "column \"x\" (a) is empty");
        let m = Mapping::parse("at=date,winner=winner,loser=loser").unwrap();
        let b = read("date,winner,loser\n2020-01-01,A,\n", Preset::Columns(m));
        assert_eq!(b.events[0].1.as_ref().unwrap_err().detail, "column \"loser\" is empty");
    }

    #[test]
    fn missing_column_names_the_header() {
        let opts = CsvOptions {
            preset: Preset::Columns(Mapping::parse("at=when,winner=w,loser=l").unwrap()),
            delimiter: b';',
            skips: vec![],
        };
        let err =
            read_files(vec![("t.csv".into(), Box::new(&b"date;w;l\n2020-01-01;a;b\n"[..]))], &opts)
                .unwrap_err();
        assert!(err.to_string().contains("no column \"when\""), "{err}");
    }

    #[test]
    fn tennis_preset_orders_rounds_and_disambiguates() {
        let header = "tourney_id,tourney_date,match_num,winner_id,winner_name,loser_id,loser_name,score,round";
        let text = format!(
            "{header}\n\
             T1,20190107,300,1,Ann,2,Bea,6-4 6-4,F\n\
             T1,20190107,200,1,Ann,3,Cy,6-1 6-1,SF\n\
             T1,20190107,201,2,Bea,4,Cy,W/O,SF\n\
             T1,20190107,100,4,Cy,5,Dee,,QF\n\
             T0,20190101,1,3,Cy,1,Ann,6-0 RET,R32\n\
             T0,20190101,2,6,Eve,6,Eve,6-0,R32\n"
        );
        let b = read(&text, Preset::Tennis);
        assert_eq!(b.not_results.len(), 3);
        let evs: Vec<Vec<(String, f64)>> =
            b.events.iter().map(|(_, e)| seats(e.as_ref().unwrap())).collect();
        assert_eq!(
            evs,
            vec![
                vec![("Cy #3".into(), 1.0), ("Ann".into(), 0.0)],
                vec![("Ann".into(), 1.0), ("Cy #3".into(), 0.0)],
                vec![("Ann".into(), 1.0), ("Bea".into(), 0.0)],
            ]
        );
    }

    /// Found by fuzzing (`fuzz/regressions/csv_import/lone-cr-row-on-line-1`): a row after a
    /// lone `\r` was numbered as the line before it, so in a file with `\r` line ends every
    /// row was "line 1" and two equal rows had the same default id. Rows after `\r\n` and after
    /// blank lines were named a line early too.
    #[test]
    fn lone_cr_ends_a_line() {
        let m = || Preset::Columns(Mapping::parse("at=d,winner=w,loser=l").unwrap());
        let b = read("d,w,l\r2020-01-01,a,b\r2020-01-01,a,b\r\n2020-01-02,b,a\n", m());
        let lines: Vec<u64> = b.events.iter().map(|(o, _)| o.line).collect();
        assert_eq!(lines, vec![2, 3, 4]);
        let ids: HashSet<_> =
            b.events.iter().map(|(_, e)| e.as_ref().unwrap().id.clone()).collect();
        assert_eq!(ids.len(), 3, "equal rows on different lines have different ids");
        // Files whose lines the csv crate counts (`\n` and `\r\n`, blank lines too) keep the
        // default ids they had before editor lines: the hash of the line a plain csv reader
        // gives each row, read here without ladder's line numbering.
        for text in [
            "d,w,l\n2020-01-01,a,b\n\n2020-01-02,b,a\n",
            "d,w,l\r\n2020-01-01,a,b\r\n\r\n2020-01-02,b,a\r\n",
        ] {
            let b = read(text, m());
            let mut plain = ::csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
            let old: Vec<String> = plain
                .records()
                .map(|r| {
                    let r = r.unwrap();
                    default_id("t.csv", r.position().unwrap().line(), &r)
                })
                .collect();
            let mut new: Vec<(u64, String)> = b
                .events
                .iter()
                .map(|(o, e)| (o.line, e.as_ref().unwrap().id.clone().unwrap()))
                .collect();
            new.sort();
            assert_eq!(new.into_iter().map(|(_, id)| id).collect::<Vec<_>>(), old, "{text:?}");
        }
        // `\r\n` is one line end; blank lines and a newline inside quotes count.
        let b = read("d,w,l\r\n2020-01-01,a,b\r\n\r\n2020-01-02,\"a\nz\",b\n2020-01-03,a,b\n", m());
        let lines: Vec<u64> = b.events.iter().map(|(o, _)| o.line).collect();
        assert_eq!(lines, vec![2, 4, 6]);
        let b = read("\n\nd,w,l\n\n\n2020-01-01,a,b\n \n", m());
        let lines: Vec<u64> = b.events.iter().map(|(o, _)| o.line).collect();
        // Line 7 is a space: a row with too few fields, refused (no instant, so it sorts first).
        assert_eq!(lines, vec![7, 6]);
    }

    fn opts_wl() -> CsvOptions {
        CsvOptions {
            preset: Preset::Columns(Mapping::parse("at=d,winner=w,loser=l").unwrap()),
            delimiter: b',',
            skips: vec![],
        }
    }

    #[test]
    fn a_row_that_is_not_utf8_is_refused_as_a_row_naming_line_and_field() {
        // Until this rule, the whole file was refused (no rule, not skippable).
        let text = b"d,w,l\r\n2020-01-01,a,b\r\n\r\n2020-01-02,\xff,b\r\n2020-01-03,c,d\r\n";
        let b = read_files(vec![("t.csv".into(), Box::new(&text[..]))], &opts_wl()).unwrap();
        assert_eq!(b.events.len(), 3);
        let (origin, bad) = &b.events[0];
        let v = bad.as_ref().unwrap_err();
        assert_eq!((origin.line, v.rule), (4, Rule::Syntax));
        assert_eq!(v.detail, "field 2 (\"w\") is not UTF-8 (invalid byte 0 bytes into the field)");
        // The rows around it are read, with the ids they always had.
        let ok: Vec<_> = b.events[1..].iter().map(|(o, e)| (o.line, e.is_ok())).collect();
        assert_eq!(ok, [(2, true), (5, true)]);
        let clean = b"d,w,l\r\n2020-01-01,a,b\r\n\r\n2020-01-02,x,b\r\n2020-01-03,c,d\r\n";
        let c = read_files(vec![("t.csv".into(), Box::new(&clean[..]))], &opts_wl()).unwrap();
        let id = |batch: &CsvBatch, i: usize| batch.events[i].1.as_ref().unwrap().id.clone();
        assert_eq!((id(&b, 1), id(&b, 2)), (id(&c, 0), id(&c, 2)));
    }

    #[test]
    fn a_repeated_header_name_is_refused() {
        let text = b"d,w,l, w \n2020-01-01,a,b,c\n";
        let err = read_files(vec![("t.csv".into(), Box::new(&text[..]))], &opts_wl()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.csv: the header names column \"w\" twice (fields 2 and 4); rename one"
        );
    }

    #[test]
    fn a_byte_order_mark_before_the_header_is_not_part_of_its_first_name() {
        let text = "\u{feff}d,w,l\n2020-01-01,a,b\n";
        let b = read_files(vec![("t.csv".into(), Box::new(text.as_bytes()))], &opts_wl()).unwrap();
        assert!(b.events[0].1.is_ok(), "{:?}", b.events[0].1);
    }

    #[test]
    fn lines_and_records_are_bounded() {
        // A line of 1 MiB is read; one byte more is refused, naming the line and the rule.
        let fill = |n: usize| "x".repeat(n);
        let ok = format!("d,w,l,note\n2020-01-01,a,b,{}\n", fill(MAX_LINE_BYTES - 15));
        assert!(read_files(vec![("t.csv".into(), Box::new(std::io::Cursor::new(ok)))], &opts_wl())
            .is_ok());
        let long = format!("d,w,l,note\n2020-01-01,a,b,{}\n", fill(MAX_LINE_BYTES - 14));
        let err =
            read_files(vec![("t.csv".into(), Box::new(std::io::Cursor::new(long)))], &opts_wl())
                .unwrap_err()
                .to_string();
        assert!(
            err.starts_with("t.csv: line 2: rule line-length: the line is longer than 1048576"),
            "{err}"
        );
        // No line end at all (/dev/zero): refused after 1 MiB.
        let zero = std::io::repeat(0).take(64 * MAX_LINE_BYTES as u64);
        let err = read_files(vec![("zero".into(), Box::new(zero))], &opts_wl()).unwrap_err();
        assert!(err.to_string().contains("line 1: rule line-length"), "{err}");
        // A quoted field of many short lines: refused once the record passes 2 MiB.
        let quoted = std::io::Cursor::new(b"d,w,l\n2020-01-01,a,\"".to_vec())
            .chain(std::io::repeat(b'\n').take(3 * MAX_LINE_BYTES as u64));
        let err = read_files(vec![("q.csv".into(), Box::new(quoted))], &opts_wl()).unwrap_err();
        assert!(
            err.to_string().contains("rule line-length: the record starting before line"),
            "{err}"
        );
        // Many records of 1 MiB each are fine: the bound is per record.
        let mut many = String::from("d,w,l,note\n");
        for i in 1..=4 {
            many.push_str(&format!("2020-01-0{i},a,b,{}\n", fill(MAX_LINE_BYTES - 20)));
        }
        let b =
            read_files(vec![("m.csv".into(), Box::new(std::io::Cursor::new(many)))], &opts_wl())
                .unwrap();
        assert_eq!(b.events.len(), 4);
    }

    #[test]
    fn skip_filter_drops_rows() {
        let opts = CsvOptions {
            preset: Preset::Columns(Mapping::parse("at=d,winner=w,loser=l").unwrap()),
            delimiter: b',',
            skips: vec![parse_skip("t=^Friendly$").unwrap()],
        };
        let text = "d,w,l,t\n2020-01-01,a,b,Friendly\n2020-01-02,a,b,Cup\n";
        let b = read_files(vec![("t.csv".into(), Box::new(text.as_bytes()))], &opts).unwrap();
        assert_eq!(b.skipped_by_filter, 1);
        assert_eq!(b.events.len(), 1);
    }
}
