//! The fault campaign behind docs/GUARANTEES.md: SIGKILLs during imports and single appends, and
//! random byte flips and truncations of a closed ledger's files, each followed by opening the
//! ledger (once, or several times) and checking what it holds.
//!
//! ```text
//! cargo run --release -p ladder-log --example fault_campaign -- [KILLS] [DAMAGES] [SEED]
//! ```
//!
//! (defaults 1000, 500, 1). Kills take turns between an import in random batches, single
//! appends, and single appends whose ids the ledger keeps in memory between spills to its index
//! (`Ledger::defer_id_index`, as `ladder serve` does, here every 250 events); every fourth
//! strikes a child creating a new ledger, within its first 5 ms. After each, the ledger must
//! open, verify, hold a prefix of the input, and hold at least every event the child
//! acknowledged, and the open must leave no killed creation's temporary directory; after a kill
//! of the third kind, offering every stored event again must append nothing (each found as a
//! duplicate, its id in the index or read back at open). Damages are split between a ledger of 1,000 and one
//! of 100,000 events; each copy is opened and closed once (so its seals match), then one random
//! byte of a random file is flipped or a random file is cut at a random length, and the ledger
//! is opened (half the trials once, half four times). Each outcome is one of: refused at open
//! (its files left byte for byte as they were), opened but failing `verify`, or opened whole
//! (the exact same events). Each ledger that opens is first asked to append one event, and
//! then verified: a damaged ledger must refuse the append. "Read as another history" (opened,
//! verified, and different) and "an append extended a damaged chain" must never happen; the
//! program exits 1 if either does, or if a kill lost an acknowledged event.

use ladder_events::json::{parse_checked_line, parse_line, to_line};
use ladder_events::{Event, Violation};
use ladder_log::{AppendOptions, Ledger, LogError};
// SplitMix64: a small seeded generator, so a campaign can be run again exactly.
use ladder_sim::SplitMix64;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROLE: &str = "LADDER_CAMPAIGN_ROLE";
/// The event each damaged ledger that opens is asked to append: a new player, after every event
/// of the input.
const EXTRA: &str =
    r#"{"type":"PlayerJoined","at":"2100-01-01T00:00:00Z","player":"campaign-extra"}"#;
const LEDGER: &str = "LADDER_CAMPAIGN_LEDGER";
const EVENTS: &str = "LADDER_CAMPAIGN_EVENTS";
/// The `served` child's limit of deferred ids: a spill every 250 events, a dozen in a run.
const SERVED_DEFER: u64 = 250;

/// The canonical lines of [`input`] (what `ladder log --format jsonl` prints back).
fn canonical(lines: &[String]) -> Vec<String> {
    lines.iter().map(|l| to_line(&parse_line(l).expect("the input parses"))).collect()
}

/// `n` events: 20 joins, then matches one second apart, every other one with an id.
fn input(n: usize) -> Vec<String> {
    let t0 = 1_772_323_200i64; // 2026-03-01T00:00:00Z
    let at = |s: i64| ladder_events::Timestamp((t0 + s) * 1_000_000_000).to_string();
    (0..n)
        .map(|i| {
            if i < 20 {
                return format!(r#"{{"type":"PlayerJoined","at":"{}","player":"p{i}"}}"#, at(0));
            }
            let (a, b) = (i % 20, (i * 7 + 3) % 20);
            let b = if a == b { (b + 1) % 20 } else { b };
            let id = if i % 2 == 0 { format!(r#","id":"m-{i}""#) } else { String::new() };
            format!(
                r#"{{"type":"MatchResult","at":"{}"{id},"seats":[{{"player":"p{a}","score":{}}},{{"player":"p{b}","score":0.5}}]}}"#,
                at(i as i64),
                (i % 3) as f64 / 2.0
            )
        })
        .collect()
}

fn items(lines: &[String]) -> impl Iterator<Item = Result<Event, Violation>> + '_ {
    lines.iter().map(|l| parse_line(l))
}

/// The child: appends the rest of the input from the ledger's head, printing each acknowledged
/// head; `import` in random batches through the bulk append, `append` and `served` one event
/// at a time (`served` with the ids deferred, [`SERVED_DEFER`]).
fn child(role: &str) -> ! {
    let path = PathBuf::from(std::env::var(LEDGER).expect("ledger path"));
    let n: usize = std::env::var(EVENTS).expect("events").parse().expect("a number");
    let lines = input(n);
    let mut rng = SplitMix64(std::process::id() as u64);
    let mut l = Ledger::open(&path).unwrap_or_else(|e| {
        println!("open-error {e}");
        std::process::exit(2)
    });
    if role == "served" {
        l.defer_id_index(SERVED_DEFER);
    }
    let mut at = l.head().seq as usize;
    while at < n {
        let k = if role == "import" { 1 + rng.below(500) as usize } else { 1 };
        let end = (at + k).min(n);
        let opts = AppendOptions::default();
        let r = if role != "import" {
            l.append(items(&lines[at..end]), &opts)
        } else {
            // The bulk append `ladder import` uses (its blocks inserted by a thread of their own).
            let checked = lines[at..end].iter().map(|l| parse_checked_line(l));
            l.append_returning(checked, &opts, drop)
        }
        .expect("appends");
        at = r.head.seq as usize;
        println!("acked {at}");
    }
    std::process::exit(0)
}

#[derive(Default)]
struct Kills {
    runs: u64,
    killed: u64,
    completed: u64,
    opened_whole: u64,
    refused: u64,
    lost: u64,
    /// Kills of a child creating a new ledger (within its first 5 ms).
    creating: u64,
    /// Opens after which a killed creation's temporary directory was still beside the ledger.
    left_beside: u64,
}

fn kills(dir: &Path, count: u64, rng: &mut SplitMix64) -> Kills {
    let n = 3_000;
    let lines = canonical(&input(n));
    let mut out = Kills::default();
    let mut path = dir.join("kills-0");
    let exe = std::env::current_exe().expect("the campaign's own path");
    for i in 0..count {
        let role = ["import", "append", "served"][(i % 3) as usize];
        // Every fourth kill strikes a child creating a new ledger: within its first 5 ms.
        let creating = i % 4 == 3;
        let target = if creating { dir.join(format!("create-{i}")) } else { path.clone() };
        let mut child = Command::new(&exe)
            .env(ROLE, role)
            .env(LEDGER, &target)
            .env(EVENTS, n.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the child starts");
        let stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix("acked ").and_then(|n| n.parse::<u64>().ok()))
                .max()
        });
        let wait = if creating { rng.below(5_000) } else { rng.below(150_000) };
        std::thread::sleep(Duration::from_micros(wait));
        let killed = child.try_wait().ok().flatten().is_none();
        let _ = child.kill();
        let _ = child.wait();
        let acked = reader.join().ok().flatten().unwrap_or(0);
        out.runs += 1;
        if killed {
            out.killed += 1;
        } else {
            out.completed += 1;
        }
        if creating {
            out.creating += 1;
        }
        let opened = Ledger::open(&target);
        // The open removes what a creation killed half-way left beside the ledger.
        let left: Vec<String> = std::fs::read_dir(dir)
            .expect("the work directory")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.contains(".ladder-creating-"))
            .collect();
        if !left.is_empty() {
            out.left_beside += 1;
            eprintln!("kill {i}: left beside the ledger after an open: {left:?}");
        }
        match opened {
            Err(e) => {
                out.refused += 1;
                let mut why = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    why.push_str(&format!(": {s}"));
                    source = s.source();
                }
                eprintln!("kill {i}: the ledger was refused after a kill: {why}");
                // Keep the first refused ledger to look at.
                if let Ok(keep) = std::env::var("LADDER_CAMPAIGN_KEEP") {
                    let keep = Path::new(&keep).join(format!("refused-{i}"));
                    if !keep.exists() {
                        copy_dir(&target, &keep);
                    }
                }
            }
            Ok(mut l) => {
                let head = l.verify(None);
                let stored: Vec<String> =
                    l.events(1).map(|e| to_line(&e.expect("reads").event)).collect();
                let prefix = stored.len() <= n && stored[..] == lines[..stored.len()];
                // Every stored event offered again is a duplicate (none appended twice).
                let again = (role == "served" && head.is_ok() && prefix).then(|| {
                    let r = l.append(items(&lines[..stored.len()]), &AppendOptions::default());
                    r.map(|r| (r.appended, r.duplicates))
                });
                if let Some(again) =
                    again.filter(|a| !matches!(a, Ok((0, d)) if *d == stored.len() as u64))
                {
                    out.lost += 1;
                    eprintln!("kill {i}: {} stored, offered again: {again:?}", stored.len());
                    continue;
                }
                if head.is_err() || !prefix || (stored.len() as u64) < acked {
                    out.lost += 1;
                    eprintln!(
                        "kill {i}: acked {acked}, stored {}, verify {head:?}, prefix {prefix}",
                        stored.len()
                    );
                } else {
                    out.opened_whole += 1;
                }
                if stored.len() == n && !creating {
                    path = dir.join(format!("kills-{}", i + 1));
                }
            }
        }
    }
    out
}

#[derive(Default, Clone, Copy)]
struct Damages {
    trials: u64,
    refused: u64,
    verify_failed: u64,
    whole: u64,
    other_history: u64,
    wrote_when_refused: u64,
    /// Opens refused as "locked" although nothing held the ledger.
    locked: u64,
    /// Damaged ledgers that refused the append before verify (naming `ladder verify`).
    append_refused: u64,
    /// Appends accepted by a ledger that verify then found damaged.
    append_on_damage: u64,
}

fn files_of(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("a readable ledger") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for e in std::fs::read_dir(from).expect("readable") {
        let p = e.expect("an entry").path();
        let target = to.join(p.file_name().expect("a name"));
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).expect("copied");
        }
    }
}

fn damages(dir: &Path, events: usize, count: u64, rng: &mut SplitMix64) -> Damages {
    let pristine = dir.join(format!("pristine-{events}"));
    let lines = canonical(&input(events));
    {
        let mut l = Ledger::open(&pristine).expect("a new ledger");
        for chunk in lines.chunks(10_000) {
            l.append(items(chunk), &AppendOptions::default()).expect("the input appends");
        }
    }
    let mut out = Damages::default();
    for t in 0..count {
        let work = dir.join(format!("damage-{events}-{t}"));
        copy_dir(&pristine, &work);
        drop(Ledger::open(&work).expect("the copy opens")); // its seals now match its files
        let files: Vec<PathBuf> = files_of(&work)
            .into_iter()
            .filter(|p| !p.ends_with(ladder_log::LOCK_FILE) && !p.ends_with(ladder_log::HEAD_FILE))
            .collect();
        let file = &files[rng.below(files.len() as u64) as usize];
        let mut bytes = std::fs::read(file).expect("readable");
        if bytes.is_empty() || rng.below(2) == 0 {
            let cut = rng.below((bytes.len() as u64).max(1)) as usize;
            bytes.truncate(cut);
        } else {
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] ^= 1 << rng.below(8);
        }
        std::fs::write(file, &bytes).expect("written");
        let snapshot = || -> Vec<(PathBuf, Vec<u8>)> {
            files_of(&work)
                .into_iter()
                .filter(|p| !p.ends_with(ladder_log::LOCK_FILE))
                .map(|p| {
                    let b = std::fs::read(&p).expect("readable");
                    (p, b)
                })
                .collect()
        };
        // The files as the next open finds them: taken again after an open that succeeded (it
        // may write), so "a refused open wrote" counts only what a refused open changed.
        let mut before = snapshot();
        let opens = if t % 2 == 0 { 1 } else { 4 };
        out.trials += 1;
        for k in 0..opens {
            match Ledger::open(&work) {
                Err(e @ LogError::Locked { .. }) => {
                    // Nothing else holds it: a lock error here is a wrong diagnosis.
                    out.locked += 1;
                    eprintln!("damage {events}/{t} open {k}: {} gave: {e}", file.display());
                }
                Err(_) => {
                    if k == 0 {
                        out.refused += 1;
                    }
                    let after: Vec<(PathBuf, Vec<u8>)> = before
                        .iter()
                        .map(|(p, _)| (p.clone(), std::fs::read(p).unwrap_or_default()))
                        .collect();
                    if after != before {
                        out.wrote_when_refused += 1;
                    }
                }
                Ok(mut l) => {
                    if k > 0 {
                        drop(l);
                        before = snapshot();
                        continue;
                    }
                    let appended = l.append(items(&[EXTRA.to_string()]), &AppendOptions::default());
                    match &appended {
                        Err(ladder_log::AppendError::Storage(LogError::Unverified { .. })) => {
                            out.append_refused += 1
                        }
                        Err(e) => eprintln!("damage {events}/{t}: the append failed: {e}"),
                        Ok(_) => {}
                    }
                    let mut want = lines.clone();
                    if appended.is_ok() {
                        want.push(EXTRA.to_string());
                    }
                    match l.verify(None) {
                        Err(_) => {
                            out.verify_failed += 1;
                            if appended.is_ok() {
                                out.append_on_damage += 1;
                                eprintln!("damage {events}/{t}: an append extended it");
                            }
                        }
                        Ok(_) => {
                            let stored: Vec<String> = l
                                .events(1)
                                .map(|e| e.map(|e| to_line(&e.event)).unwrap_or_default())
                                .collect();
                            if stored == want {
                                out.whole += 1;
                            } else {
                                out.other_history += 1;
                                eprintln!(
                                    "damage {events}/{t}: {} read as {} events",
                                    file.display(),
                                    stored.len()
                                );
                            }
                        }
                    }
                    drop(l);
                    before = snapshot();
                }
            }
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    out
}

fn main() {
    if let Ok(role) = std::env::var(ROLE) {
        child(&role);
    }
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("numbers")).collect();
    let kills_n = args.first().copied().unwrap_or(1000);
    let damages_n = args.get(1).copied().unwrap_or(500);
    let mut rng = SplitMix64(args.get(2).copied().unwrap_or(1));
    let dir = std::env::temp_dir().join(format!("ladder-campaign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a work directory");
    let start = Instant::now();
    let k = kills(&dir, kills_n, &mut rng);
    let small = damages(&dir, 1_000, damages_n / 2, &mut rng);
    let large = damages(&dir, 100_000, damages_n - damages_n / 2, &mut rng);
    let _ = std::fs::remove_dir_all(&dir);
    println!("| SIGKILLs | killed mid-run | run finished first | opened whole, every acknowledged event kept | refused | lost an acknowledged event |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| {} | {} | {} | {} | {} | {} |",
        k.runs, k.killed, k.completed, k.opened_whole, k.refused, k.lost
    );
    println!(
        "of which {} during the creation of a new ledger; opens that left a killed creation's \
         temporary directory behind: {}",
        k.creating, k.left_beside
    );
    println!();
    println!("| ledger | damages | refused at open | opened, verify failed | of which refused the append | an append extended a damaged chain | opened whole (same events) | read as another history | a refused open wrote | refused as locked |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (name, d) in [("1,000 events", small), ("100,000 events", large)] {
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            d.trials,
            d.refused,
            d.verify_failed,
            d.append_refused,
            d.append_on_damage,
            d.whole,
            d.other_history,
            d.wrote_when_refused,
            d.locked
        );
    }
    println!();
    println!("{:.0} s", start.elapsed().as_secs_f64());
    let bad = k.lost
        + k.refused
        + k.left_beside
        + small.other_history
        + large.other_history
        + small.locked
        + large.locked
        + small.append_on_damage
        + large.append_on_damage;
    let wrote = small.wrote_when_refused + large.wrote_when_refused;
    std::process::exit(if bad + wrote == 0 { 0 } else { 1 });
}
