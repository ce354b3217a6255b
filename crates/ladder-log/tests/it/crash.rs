//! Crash safety: an import killed with SIGKILL at random moments leaves a ledger that verifies and
//! holds an exact prefix of the input; re-running the import (events carry ids) completes it with
//! no duplicates stored.
//!
//! CI kills the import [`KILLS`] times; `LADDER_CRASH_KILLS=N` runs a long campaign (see
//! docs/GUARANTEES.md). The test prints its counts: kills, runs, events lost (always 0).

use crate::child::{role, spawn, FILE_ENV, LEDGER_ENV};
use crate::items;
use ladder_events::json::to_line;
use ladder_events::Event;
use ladder_log::{AppendOptions, Ledger};
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

const TEST: &str = "crash::import_survives_sigkill_at_random_moments";
const EVENTS: usize = 3_000;
/// Kills in CI: small, so the test takes seconds.
const KILLS: usize = 24;

/// The number of kills: [`KILLS`], or `LADDER_CRASH_KILLS` for a long run.
fn kills_wanted() -> usize {
    std::env::var("LADDER_CRASH_KILLS").ok().and_then(|v| v.parse().ok()).unwrap_or(KILLS)
}

/// A small xorshift generator: the test's randomness without a dependency.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The input: joins (without ids: a repeated join is a duplicate by content), then matches,
/// timeouts, voids and ticks with ids, in time order.
pub fn input() -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let players: Vec<String> = (0..30).map(|i| format!("player-{i}")).collect();
    let mut out = String::new();
    let day = 86_400i64;
    let mut t = 1_772_323_200i64; // 2026-03-01T00:00:00Z
    for p in &players {
        out.push_str(
            &format!(r#"{{"type":"PlayerJoined","at":"{t}","player":"{p}"}}"#)
                .replace(&format!("\"{t}\""), &format!("\"{}\"", at(t))),
        );
        out.push('\n');
        t += 1;
    }
    let mut matches = Vec::new();
    let mut n = players.len();
    while n < EVENTS {
        let before = t;
        t += rng.below(4_000) as i64;
        if t / day != before / day && rng.below(2) == 0 {
            out.push_str(&format!(
                r#"{{"type":"MidnightTick","at":"{}","id":"t-{n}"}}"#,
                at(t / day * day)
            ));
            out.push('\n');
            n += 1;
            t = t.max(t / day * day + 1);
        }
        let a = rng.below(30) as usize;
        let b = (a + 1 + rng.below(29) as usize) % 30;
        let line = match rng.below(20) {
            0 if !matches.is_empty() => {
                let k = rng.below(matches.len() as u64) as usize;
                let m: String = matches.swap_remove(k);
                format!(
                    r#"{{"type":"MatchVoided","at":"{}","id":"v-{n}","match":"{m}","reason":"test"}}"#,
                    at(t)
                )
            }
            1 => format!(
                r#"{{"type":"QueueTimeout","at":"{}","id":"q-{n}","player":"{}"}}"#,
                at(t),
                players[a]
            ),
            _ => {
                matches.push(format!("m-{n}"));
                format!(
                    r#"{{"type":"MatchResult","at":"{}","id":"m-{n}","seats":[{{"player":"{}","score":1}},{{"player":"{}","score":0}}]}}"#,
                    at(t),
                    players[a],
                    players[b]
                )
            }
        };
        out.push_str(&line);
        out.push('\n');
        n += 1;
    }
    out
}

fn at(secs: i64) -> String {
    ladder_events::Timestamp(secs * 1_000_000_000).to_string()
}

/// The child: import the file in batches of random sizes, each its own append.
fn child_import() -> ! {
    let ledger = std::env::var(LEDGER_ENV).expect("ledger path");
    let file = std::env::var(FILE_ENV).expect("file path");
    let text = std::fs::read_to_string(file).expect("the input file reads");
    let lines: Vec<&str> = text.lines().collect();
    let mut l = Ledger::open(&ledger).expect("the ledger opens in the child");
    println!("\nCHILD ready");
    let mut rng = Rng(std::process::id() as u64 | 1);
    let mut i = 0;
    while i < lines.len() {
        let n = 1 + rng.below(400) as usize;
        let chunk = lines[i..(i + n).min(lines.len())].join("\n");
        let r = l.append(items(&chunk), &AppendOptions::default()).expect("the import appends");
        // Acknowledged: the parent holds the ledger to this head after any kill.
        println!("\nCHILD acked {}", r.head.seq);
        i += n;
    }
    println!("\nCHILD done {}", l.head());
    std::process::exit(0)
}

#[test]
fn import_survives_sigkill_at_random_moments() {
    if role().as_deref() == Some("import") {
        child_import();
    }
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let file = dir.path().join("input.jsonl");
    let text = input();
    std::fs::write(&file, &text).unwrap();
    let expected: Vec<Event> = items(&text).into_iter().map(|r| r.unwrap()).collect();
    let expected_lines: Vec<String> = expected.iter().map(to_line).collect();
    assert_eq!(expected.len(), EVENTS);

    let wanted = kills_wanted();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let started = Instant::now();
    let (mut kills, mut runs, mut stalls, mut prefixes) = (0, 0, 0, Vec::<usize>::new());
    let mut lost = 0;
    // The longest wait before a kill, in ms, before the stalls' extra.
    let mut cap: u64 = 100;
    while kills < wanted && runs < 4 * wanted {
        runs += 1;
        let mut child = spawn(TEST, "import", &ledger, Some(&file));
        // Start the clock when the child has the ledger open, so kills land inside the import.
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while out.read_line(&mut line).unwrap() > 0 && !line.starts_with("CHILD ready") {
            line.clear();
        }
        // Re-checking a long prefix of duplicates takes a while (debug builds): wait longer after
        // each run that made no progress, so kills keep landing in writes too. A whole import
        // can also be quicker than the wait (release builds): then the next waits are shorter.
        std::thread::sleep(Duration::from_millis(rng.below(cap + 100 * stalls)));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL on unix
            kills += 1;
        } else {
            cap = (cap / 2).max(2);
        }
        let status = child.wait().unwrap();
        assert!(status.success() || status.code().is_none(), "the child failed: {status:?}");
        let acked = out
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| l.strip_prefix("CHILD acked ").and_then(|n| n.parse::<usize>().ok()))
            .max()
            .unwrap_or(0);
        // After each kill: the chain verifies and the log is an exact prefix of the input.
        let l = Ledger::open(&ledger).unwrap();
        let head = l.verify(None).unwrap_or_else(|e| panic!("run {runs}: {e}"));
        let stored: Vec<String> = l.events(1).map(|e| to_line(&e.unwrap().event)).collect();
        assert_eq!(stored.len() as u64, head.seq);
        assert_eq!(stored[..], expected_lines[..stored.len()], "run {runs}: not a prefix");
        assert!(stored.len() >= acked, "run {runs}: acknowledged {acked}, stored {}", stored.len());
        lost += acked.saturating_sub(stored.len());
        stalls = if prefixes.last() == Some(&stored.len()) { stalls + 1 } else { 0 };
        prefixes.push(stored.len());
        if stored.len() == EVENTS {
            // Finished between kills: start over so every kill lands in a live import.
            drop(l);
            std::fs::remove_dir_all(&ledger).unwrap();
        }
    }
    assert!(kills >= wanted * 5 / 6, "only {kills} kills in {runs} runs");
    // Re-running the import completes it, with no duplicates stored.
    let mut child = spawn(TEST, "import", &ledger, Some(&file));
    assert!(child.wait().unwrap().success());
    let l = Ledger::open(&ledger).unwrap();
    let head = l.verify(None).unwrap();
    let stored: Vec<String> = l.events(1).map(|e| to_line(&e.unwrap().event)).collect();
    assert_eq!(head.seq as usize, EVENTS);
    assert_eq!(stored, expected_lines);
    eprintln!(
        "crash: {kills} SIGKILLs in {runs} runs, {lost} acknowledged events lost, {:?}, prefixes {prefixes:?}",
        started.elapsed()
    );
}
