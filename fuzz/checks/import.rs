//! What one fuzz input means for the two importers of `ladder-import`: JSON Lines
//! (`jsonl::JsonLines`) and CSV (`csv::read_files`, with a `--columns` mapping or the tennis
//! preset).
//!
//! Shared, through `#[path]`, by the libFuzzer targets `fuzz/fuzz_targets/jsonl_import.rs` and
//! `fuzz/fuzz_targets/csv_import.rs` and by the corpus replay test of `ladder-import`, so CI
//! replays exactly what the fuzzer ran.

use ladder_events::codec::{decode, encode};
use ladder_events::json::{parse_line, to_line};
use ladder_import::csv::{read_files, CsvError, CsvOptions, Mapping, Preset};
use ladder_import::jsonl::JsonLines;
use std::io::Cursor;

/// The file name the fuzz inputs are read under; errors about the file must name it.
const JSONL_FILE: &str = "fuzz.jsonl";
/// The file name of a CSV fuzz input.
const CSV_FILE: &str = "fuzz.csv";

/// Reads `data` as a JSON Lines file, as `ladder import` does. Must not panic. Line numbers
/// increase; a refused line says why; an accepted event prints as a canonical line that parses
/// back to the same event, and survives the store's encoding.
pub fn jsonl_import(data: &[u8]) {
    let lines = data.split(|b| *b == b'\n').count() as u64;
    let mut last = 0;
    for (origin, item) in JsonLines::new(data, JSONL_FILE) {
        assert_eq!(&*origin.file, JSONL_FILE);
        assert!(origin.line > last && origin.line <= lines, "line {} of {lines}", origin.line);
        last = origin.line;
        match item {
            Ok(event) => {
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
                        assert!(event.at.0 >= last_at, "events out of time order");
                        last_at = event.at.0;
                        assert!(event.check().is_ok(), "an accepted row breaks a rule");
                    }
                    Err(v) => assert!(!v.detail.is_empty(), "a refusal says why"),
                }
            }
        }
        Err(e) => assert!(e.to_string().contains(CSV_FILE), "{e}"),
    }
}
