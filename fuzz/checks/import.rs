//! What one fuzz input means for the two importers of `ladder-import`: JSON Lines
//! (`jsonl::JsonLines`) and CSV (`csv::read_files`, with a `--columns` mapping or the tennis
//! preset).
//!
//! Shared, through `#[path]`, by the libFuzzer targets `fuzz/fuzz_targets/jsonl_import.rs` and
//! `fuzz/fuzz_targets/csv_import.rs` and by the corpus replay test of `ladder-import`, so CI
//! replays exactly what the fuzzer ran.

use ladder_events::codec::{decode, encode};
use ladder_events::json::{parse_line, to_line};
use ladder_events::{is_invisible, Event, Rule, MAX_LINE_BYTES};
use ladder_import::csv::{read_files, CsvError, CsvOptions, Mapping, Preset};
use ladder_import::jsonl::JsonLines;
use std::io::Cursor;

/// The file name the fuzz inputs are read under; errors about the file must name it.
const JSONL_FILE: &str = "fuzz.jsonl";
/// The file name of a CSV fuzz input.
const CSV_FILE: &str = "fuzz.csv";

/// The names an accepted event holds are names: not only white space, no invisible character
/// (`is_invisible`: default-ignorable, white space other than U+0020, U+2800; docs/events.md, rule
/// player-name).
fn names_are_visible(event: &Event) {
    for name in event.players() {
        assert!(!name.chars().any(is_invisible), "an invisible character in {name:?}");
        assert!(!name.chars().all(char::is_whitespace), "a blank name {name:?}");
    }
}

/// Reads `data` as a JSON Lines file, as `ladder import` does. Must not panic. Line numbers
/// increase; a refused line says why; an accepted event prints as a canonical line that parses
/// back to the same event, and survives the store's encoding. An accepted line holds no carriage
/// return but its line end's, and no byte order mark but at the very start; its names are
/// visible; an in-memory input is never unreadable, and its lines (shorter than 1 MiB here) never
/// too long.
pub fn jsonl_import(data: &[u8]) {
    let lines = data.split(|b| *b == b'\n').count() as u64;
    let raw: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let mut last = 0;
    for (origin, item) in JsonLines::new(data, JSONL_FILE) {
        assert_eq!(&*origin.file, JSONL_FILE);
        assert!(origin.line > last && origin.line <= lines, "line {} of {lines}", origin.line);
        last = origin.line;
        let line = raw[(origin.line - 1) as usize];
        if let Err(v) = &item {
            assert!(v.rule != Rule::Unreadable, "an in-memory input is readable: {v}");
            let long = line.len() > MAX_LINE_BYTES;
            assert_eq!(v.rule == Rule::LineLength, long, "{v}");
        }
        match item {
            Ok(event) => {
                let body = line.strip_suffix(b"\r").unwrap_or(line);
                assert!(!body.contains(&b'\r'), "a lone carriage return accepted");
                let body = if origin.line == 1 {
                    body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body)
                } else {
                    body
                };
                assert!(!body.starts_with(b"\xEF\xBB\xBF"), "a byte order mark after the start");
                names_are_visible(&event);
                let line = to_line(&event);
                let again = parse_line(&line).expect("a canonical line parses");
                assert_eq!(again, event, "{line}");
                assert_eq!(decode(&encode(&event)).expect("an encoded event decodes"), event);
            }
            Err(v) => assert!(!v.detail.is_empty(), "a refusal says why"),
        }
    }
}

/// The fixed `--columns` mappings a CSV fuzz input can choose.
const MAPPINGS: [&str; 3] = [
    "at=date,winner=w,loser=l",
    "at=date,a=home,b=away,score_a=hs,score_b=as",
    "at=d,a=x,b=y,score_a=s,id=key",
];

/// Reads `data` as a CSV import. The first byte chooses the options: bit 7 the delimiter (`;`
/// or `,`); the low three bits the meaning of the columns: 0-1 the tennis preset, 2-4 one of
/// [`MAPPINGS`], 5-7 a `--columns` spec on the first line of the rest. The rest is the file.
///
/// Must not panic. A refused import names the file or the option; rows are named by distinct
/// lines after the header; a refused row says why; the events that are accepted come in time
/// order.
pub fn csv_import(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let delimiter = if mode & 0x80 != 0 { b';' } else { b',' };
    let (preset, text) = match mode & 7 {
        0 | 1 => (Preset::Tennis, rest),
        m @ 2..=4 => {
            let mapping = Mapping::parse(MAPPINGS[usize::from(m) - 2]).expect("fixed mapping");
            (Preset::Columns(mapping), rest)
        }
        _ => {
            let end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
            // `--columns` comes from the command line, which is text.
            let Ok(spec) = std::str::from_utf8(&rest[..end]) else { return };
            match Mapping::parse(spec) {
                Ok(mapping) => (Preset::Columns(mapping), rest.get(end + 1..).unwrap_or(&[])),
                Err(e) => {
                    assert!(matches!(e, CsvError::Columns(_)), "{e:?}");
                    assert!(e.to_string().starts_with("--columns: "), "{e}");
                    return;
                }
            }
        }
    };
    let opts = CsvOptions { preset, delimiter, skips: Vec::new() };
    let files: Vec<(String, Box<dyn std::io::Read>)> =
        vec![(CSV_FILE.to_string(), Box::new(Cursor::new(text.to_vec())))];
    match read_files(files, &opts) {
        Ok(batch) => {
            let mut last_at = i64::MIN;
            let mut lines = std::collections::HashSet::new();
            for (origin, _) in &batch.not_results {
                assert!(lines.insert(origin.line), "two rows on line {}", origin.line);
            }
            for (origin, item) in &batch.events {
                assert_eq!(&*origin.file, CSV_FILE);
                assert!(origin.line >= 2, "a data row is after the header: line {}", origin.line);
                assert!(lines.insert(origin.line), "two rows on line {}", origin.line);
                match item {
                    Ok(event) => {
                        names_are_visible(event);
                        assert!(event.at.0 >= last_at, "events out of time order");
                        last_at = event.at.0;
                        assert!(event.check().is_ok(), "an accepted row breaks a rule");
                    }
                    Err(v) => {
                        assert!(!v.detail.is_empty(), "a refusal says why");
                        if v.detail.contains("is not UTF-8") {
                            assert_eq!(v.rule, Rule::Syntax, "{v}");
                        }
                    }
                }
            }
        }
        // A row that is not UTF-8 is a refused row, never the whole file's error (a header that
        // is not UTF-8 is, on the header's line, before any row).
        Err(CsvError::Read { error, .. }) if error.contains("is not UTF-8") => {
            assert!(only_blank_lines_before(text, &error), "a row refused the file: {error}")
        }
        Err(e) => assert!(e.to_string().contains(CSV_FILE), "{e}"),
    }
}

/// True when the line an error names (`line N: ...`) has only blank lines before it in `text`,
/// lines ending at `\n`, `\r\n` or a lone `\r` as the CSV reader counts them: it is the header.
fn only_blank_lines_before(text: &[u8], error: &str) -> bool {
    let Some(n) = error
        .strip_prefix("line ")
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return false;
    };
    let mut line = 1;
    let mut blank = true;
    let mut after_cr = false;
    for &b in text {
        if line == n {
            return true;
        }
        match b {
            b'\n' if after_cr => {}
            b'\r' | b'\n' => {
                if !blank {
                    return false;
                }
                line += 1;
            }
            _ => blank = false,
        }
        after_cr = b == b'\r';
    }
    line == n
}
