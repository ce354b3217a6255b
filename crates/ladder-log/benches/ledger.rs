//! The ledger benchmark: import of 1,000,000 two-player matches from JSON Lines into a fresh sled
//! ledger (`ladder_events::json::parse_line` + one streaming `Ledger::append`), then a full verify
//! and a full iteration, then the same import again (all duplicates, found through the on-disk id
//! index), each run in a fresh child process so its peak memory (VmHWM) is its own.
//!
//! `cargo bench -p ladder-log --bench ledger` (or `-- RUNS MATCHES [no-ids] [players=N]
//! [input=FILE] [reimport=no]`, default 5 runs of 1,000,000 matches among 10,000 players).
//! `players=100000` is the scale issue's population; `input=FILE` imports a JSON Lines file instead
//! (e.g. `ladder sim --players 100000 --matches 10000000 --seed 1`), MATCHES then being ignored;
//! `reimport=no` leaves out the all-duplicates re-import (half the time of a large run).
//! Prints one line per run and the medians. Targets: import >= 500,000 events/s, verify and iterate
//! >= 2,000,000 events/s, peak memory < 300 MB, ledger on disk < 3x its JSON Lines export.

use ladder_events::json::{parse_line, to_line};
use ladder_log::{AppendOptions, Ledger};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn generate(path: &Path, matches: usize, players: usize, ids: bool) -> u64 {
    let mut out = BufWriter::new(std::fs::File::create(path).expect("input file"));
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut t = 1_772_323_200i64 * 1_000_000_000; // 2026-03-01
    let w = (players - 1).to_string().len().max(5);
    for p in 0..players {
        let at = ladder_events::Timestamp(t);
        writeln!(out, r#"{{"type":"PlayerJoined","at":"{at}","player":"player-{p:0w$}"}}"#)
            .unwrap();
    }
    for i in 0..matches {
        t += (next() % 60_000_000_000) as i64;
        let a = next() as usize % players;
        let b = (a + 1 + next() as usize % (players - 1)) % players;
        let (sa, sb) = match next() % 10 {
            0 => ("0.5", "0.5"),
            1..=5 => ("1", "0"),
            _ => ("0", "1"),
        };
        let at = ladder_events::Timestamp(t);
        writeln!(
            out,
            r#"{{"type":"MatchResult","at":"{at}"{},"seats":[{{"player":"player-{a:0w$}","score":{sa}}},{{"player":"player-{b:0w$}","score":{sb}}}]}}"#,
            if ids { format!(r#","id":"m-{i}""#) } else { String::new() }
        )
        .unwrap();
    }
    out.flush().unwrap();
    (players + matches) as u64
}

fn vm_hwm_kb() -> u64 {
    status_kb("VmHWM:")
}

fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn dir_size(path: &Path) -> u64 {
    let mut total = 0;
    if let Ok(rd) = std::fs::read_dir(path) {
        for e in rd.flatten() {
            let m = e.metadata().unwrap();
            total += if m.is_dir() { dir_size(&e.path()) } else { m.len() };
        }
    }
    total
}

/// One run, in this (child) process: prints `RESULT key=value ...`.
fn run_one(input: &Path, ledger: &Path, reimport_too: bool) {
    // Reading and parsing alone: the part of the import the ledger does not control.
    let file = BufReader::with_capacity(1 << 20, std::fs::File::open(input).expect("input"));
    let start = Instant::now();
    let parsed = file
        .lines()
        .map(|l| parse_line(&l.expect("input line reads")))
        .filter(|r| r.is_ok())
        .count();
    let parse = start.elapsed().as_secs_f64();

    let mut l = Ledger::open(ledger).expect("ledger opens");
    let file = BufReader::with_capacity(1 << 20, std::fs::File::open(input).expect("input"));
    let start = Instant::now();
    let lines = file.lines().map(|l| parse_line(&l.expect("input line reads")));
    let report = l.append(lines, &AppendOptions::default()).expect("import appends");
    let import = start.elapsed().as_secs_f64();
    let hwm_import = vm_hwm_kb();
    let n = report.appended;
    // Verify and iterate as `ladder verify` would: in a freshly opened ledger.
    drop(l);
    let mut l = Ledger::open(ledger).expect("ledger opens again");
    let rss_open = status_kb("VmRSS:");

    let start = Instant::now();
    let head = l.verify(None).expect("verifies");
    let verify = start.elapsed().as_secs_f64();
    assert_eq!(head.seq, n);
    let rss_verify = status_kb("VmRSS:");

    let start = Instant::now();
    let mut count = 0u64;
    for e in l.events(1) {
        let e = e.expect("reads");
        count += e.seq & 1;
    }
    let iterate = start.elapsed().as_secs_f64();
    std::hint::black_box(count);
    let rss_iterate = status_kb("VmRSS:");

    // Re-running the whole import: every line is a duplicate found through the on-disk id index.
    // (Without ids a re-import would be refused for time order: it is skipped, reported as 0 s.)
    let start = Instant::now();
    let first_id = l.events(1).find_map(|e| e.expect("reads").event.id);
    let has_ids = match first_id {
        Some(id) => l.seq_of_id(&id).expect("id index reads").is_some(),
        None => false,
    };
    if reimport_too && has_ids {
        let file = BufReader::with_capacity(1 << 20, std::fs::File::open(input).expect("input"));
        let lines = file.lines().map(|l| parse_line(&l.expect("input line reads")));
        let again = l.append(lines, &AppendOptions::default()).expect("re-import appends");
        assert_eq!((again.appended, again.duplicates), (0, n));
    }
    let reimport = start.elapsed().as_secs_f64();

    // The export, to compare sizes.
    let start = Instant::now();
    let mut export = 0u64;
    for e in l.events(1) {
        export += to_line(&e.expect("reads").event).len() as u64 + 1;
    }
    let export_secs = start.elapsed().as_secs_f64();
    drop(l);
    let disk = dir_size(ledger);
    println!(
        "RESULT events={n} parse_eps={:.0} import_s={import:.3} import_eps={:.0} verify_s={verify:.3} verify_eps={:.0} \
         iterate_s={iterate:.3} iterate_eps={:.0} reimport_s={reimport:.3} reimport_eps={:.0} export_s={export_secs:.3} hwm_import_mb={:.1} rss_open_mb={:.1} rss_verify_mb={:.1} rss_iterate_mb={:.1} hwm_mb={:.1} \
         disk_mb={:.1} export_mb={:.1} disk_ratio={:.2}",
        parsed as f64 / parse,
        n as f64 / import,
        n as f64 / verify,
        n as f64 / iterate,
        n as f64 / reimport,
        hwm_import as f64 / 1024.0,
        rss_open as f64 / 1024.0,
        rss_verify as f64 / 1024.0,
        rss_iterate as f64 / 1024.0,
        vm_hwm_kb() as f64 / 1024.0,
        disk as f64 / 1e6,
        export as f64 / 1e6,
        disk as f64 / export as f64,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.first().map(String::as_str) == Some("--run-one") {
        run_one(
            Path::new(&args[1]),
            Path::new(&args[2]),
            args.get(3).map(String::as_str) != Some("no"),
        );
        return;
    }
    let option = |name: &str| {
        args.iter().find_map(|a| a.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
    };
    let players: usize = option("players").and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let reimport = option("reimport").unwrap_or("yes").to_string();
    let runs: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let matches: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    // The ledgers (and a generated input) go to TMPDIR: point it at a disk with room for them.
    let dir = tempfile::tempdir().expect("temp dir");
    let input = match option("input") {
        Some(file) => {
            println!("input: {file}");
            std::path::PathBuf::from(file)
        }
        None => {
            let input = dir.path().join("input.jsonl");
            // `no-ids` leaves the ids out (no idempotency index), to see its share.
            let ids = !args.iter().any(|a| a == "no-ids");
            let events = generate(&input, matches, players, ids);
            println!("input: {events} events ({players} joins, {matches} matches)");
            input
        }
    };
    println!(
        "{:.1} MB of JSON Lines",
        std::fs::metadata(&input).map(|m| m.len()).unwrap_or(0) as f64 / 1e6
    );
    let mut results: Vec<Vec<(String, f64)>> = Vec::new();
    for run in 0..runs {
        let ledger = dir.path().join(format!("ledger-{run}"));
        let out = Command::new(std::env::current_exe().expect("own path"))
            .arg("--run-one")
            .arg(&input)
            .arg(&ledger)
            .arg(&reimport)
            .output()
            .expect("child runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "run {run} failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = text.lines().find(|l| l.starts_with("RESULT ")).expect("a result line");
        println!("run {run}: {}", &line[7..]);
        results.push(
            line[7..]
                .split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
                .collect(),
        );
        let _ = std::fs::remove_dir_all(&ledger);
    }
    let keys: Vec<String> = results[0].iter().map(|(k, _)| k.clone()).collect();
    let mut medians = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let mut v: Vec<f64> = results.iter().map(|r| r[i].1).collect();
        v.sort_by(f64::total_cmp);
        medians.push(format!("{k}={}", v[v.len() / 2]));
    }
    println!("median of {runs}: {}", medians.join(" "));
}
