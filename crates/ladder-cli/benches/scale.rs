//! The whole program at scale: `ladder sim` ladders of 1M, 10M and 30M matches among 100,000
//! players, then `ladder import`, `ladder verify`, `ladder publish` (every tile, then nothing
//! new), `ladder replay` per algorithm and 8- and 64-configuration Glicko-2 `ladder sweep`s,
//! each as its own process (wall time from this process's clock around the child, to the
//! millisecond; peak resident memory from GNU time), beside the same games through skillratings'
//! Glicko, Glicko-2 and Elo in this process (the fastest of the runs).
//!
//! `cargo bench -p ladder-cli --bench scale` runs 1,000,000 matches; `LADDER_SCALE=1000000,10000000`
//! chooses the sizes, `LADDER_SCALE_DIR` where ledgers go (default a temporary directory; each
//! ledger is deleted after its size is done), `LADDER_SCALE_RUNS` the runs per figure (median,
//! default 3), `LADDER_SCALE_STEPS` a part of the table (`ledger`: import, verify and proofs only;
//! `sweeps`: one import, then the Glicko-2 replay and sweeps only). Needs GNU time at /usr/bin/time (Debian package `time`). Prints one markdown table
//! per size: the table in docs/PERFORMANCE.md.

use ladder_bench::{skillratings_elo, skillratings_glicko, skillratings_glicko2, Game};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const PLAYERS: u32 = 100_000;
const LADDER: &str = env!("CARGO_BIN_EXE_ladder");

/// One timed child: wall seconds and peak RSS in MB.
struct Run {
    seconds: f64,
    rss_mb: f64,
}

/// Runs `ladder ARGS` under GNU time with stdout to `out` (or discarded) and returns its figures.
fn ladder(args: &[&str], out: Option<&Path>) -> Run {
    let stdout = match out {
        Some(path) => Stdio::from(std::fs::File::create(path).expect("output file")),
        None => Stdio::null(),
    };
    let report = tempfile::NamedTempFile::new().expect("time report");
    // Wall time from this process's clock: GNU time's `%e` has a resolution of 10 ms, a tenth of
    // a 1M Elo replay. It includes GNU time's own start (about a millisecond).
    let began = Instant::now();
    let status = Command::new("/usr/bin/time")
        .args(["-f", "%e %M", "-o"])
        .arg(report.path())
        .arg(LADDER)
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::inherit())
        .status()
        .expect("GNU time at /usr/bin/time (Debian package `time`)");
    let seconds = began.elapsed().as_secs_f64();
    assert!(status.success(), "ladder {args:?} failed");
    let text = std::fs::read_to_string(report.path()).expect("time report");
    let last = text.lines().last().expect("a report line");
    let mut it = last.split_whitespace();
    let _gnu_seconds: f64 = it.next().and_then(|s| s.parse().ok()).expect("seconds");
    let kb: f64 = it.next().and_then(|s| s.parse().ok()).expect("max RSS");
    Run { seconds, rss_mb: kb / 1024.0 }
}

fn median(mut runs: Vec<Run>) -> Run {
    runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let rss = runs.iter().map(|r| r.rss_mb).fold(0.0, f64::max);
    let mid = runs.swap_remove(runs.len() / 2);
    Run { seconds: mid.seconds, rss_mb: rss }
}

/// The two-seat games of a sim file over dense ids, and the number of players, for skillratings.
fn games(jsonl: &Path) -> (usize, Vec<Game>) {
    use std::io::BufRead;
    let file = std::io::BufReader::new(std::fs::File::open(jsonl).expect("sim file"));
    let mut roster = ladder_projector::Roster::new();
    let mut games = Vec::new();
    for line in file.lines() {
        let line = line.expect("line");
        let event = ladder_events::json::parse_line(&line).expect("sim writes valid events");
        if let ladder_events::Body::MatchResult { seats } = &event.body {
            if let [a, b] = seats.as_slice() {
                let (ia, ib) = (roster.intern(&a.player), roster.intern(&b.player));
                games.push(Game {
                    a: ia.0,
                    b: ib.0,
                    s: ladder_projector::outcome(a.score, b.score),
                });
            }
        }
    }
    (roster.len(), games)
}

/// Seconds `f` takes.
fn seconds(f: &dyn Fn()) -> f64 {
    let began = Instant::now();
    f();
    began.elapsed().as_secs_f64()
}

fn main() {
    let sizes: Vec<u64> = std::env::var("LADDER_SCALE")
        .unwrap_or_else(|_| "1000000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("LADDER_SCALE: numbers separated by commas"))
        .collect();
    let runs: usize =
        std::env::var("LADDER_SCALE_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir: PathBuf =
        std::env::var("LADDER_SCALE_DIR").map(PathBuf::from).unwrap_or_else(|_| temp.path().into());
    std::fs::create_dir_all(&dir).expect("scale directory");

    for matches in sizes {
        let jsonl = dir.join(format!("sim-{matches}.jsonl"));
        let db = dir.join(format!("ledger-{matches}.db"));
        let _ = std::fs::remove_dir_all(&db);
        let m = matches.to_string();
        let p = PLAYERS.to_string();
        let sim = ladder(&["sim", "--players", &p, "--matches", &m, "--seed", "1"], Some(&jsonl));
        let events = line_count(&jsonl);
        let jsonl_s = jsonl.to_str().expect("utf-8 path");
        let db_s = db.to_str().expect("utf-8 path");
        let steps = std::env::var("LADDER_SCALE_STEPS").unwrap_or_default();
        let sweeps_only = steps == "sweeps";
        // Each import into a fresh ledger; the last one stays for the steps below.
        let import = median(
            (0..if sweeps_only { 1 } else { runs })
                .map(|_| {
                    let _ = std::fs::remove_dir_all(&db);
                    ladder(&["import", "--ledger", db_s, jsonl_s], None)
                })
                .collect(),
        );
        let disk = dir_size(&db);
        println!("\n### {matches} matches among {PLAYERS} players ({events} events)\n");
        println!(
            "| step | seconds | events/s | peak RSS (MB) | skillratings, same games (s) | ratio |"
        );
        println!("|---|---|---|---|---|---|");
        let row = |what: &str, r: &Run, peer: Option<f64>| {
            let (p, ratio) = match peer {
                Some(p) => (format!("{p:.3}"), format!("{:.2}", r.seconds / p)),
                None => ("".into(), "".into()),
            };
            println!(
                "| {what} | {:.3} | {:.0} | {:.0} | {p} | {ratio} |",
                r.seconds,
                events as f64 / r.seconds,
                r.rss_mb
            );
        };
        row("sim (write JSONL)", &sim, None);
        row("import", &import, None);
        if !sweeps_only {
            let verify =
                median((0..runs).map(|_| ladder(&["verify", "--ledger", db_s], None)).collect());
            row("verify", &verify, None);
            // `ladder publish` of the whole ledger into an empty directory (every tile and
            // entry bundle), then again with nothing new (the checkpoint alone).
            let key = dir.join("scale.key");
            if !key.exists() {
                ladder(&["keygen", key.to_str().expect("utf-8 path"), "--name", "scale"], None);
            }
            let site = dir.join(format!("site-{matches}"));
            let site_s = site.to_str().expect("utf-8 path");
            let key_s = key.to_str().expect("utf-8 path");
            let publish = ["publish", site_s, "--ledger", db_s, "--key", key_s];
            let first = median(
                (0..runs)
                    .map(|_| {
                        let _ = std::fs::remove_dir_all(&site);
                        ladder(&publish, None)
                    })
                    .collect(),
            );
            row("publish (every tile, into an empty directory)", &first, None);
            let again = median((0..runs).map(|_| ladder(&publish, None)).collect());
            row("publish again (nothing new)", &again, None);
            println!("\npublished tree: {:.0} MB\n", dir_size(&site) as f64 / 1e6);
            let _ = std::fs::remove_dir_all(&site);
            proofs(db_s, events as u64, runs, disk);
        }
        if steps == "ledger" {
            let _ = std::fs::remove_dir_all(&db);
            let _ = std::fs::remove_file(&jsonl);
            continue;
        }

        let peers = if sweeps_only {
            vec![("glicko2", None)]
        } else {
            let (players, games) = games(&jsonl);
            let k = ladder_elo::DEFAULT_K;
            // The fastest of `runs` folds of skillratings' functions, in this process.
            let best = |f: &dyn Fn()| (0..runs).map(|_| seconds(f)).fold(f64::INFINITY, f64::min);
            vec![
                (
                    "glicko",
                    Some(best(&|| drop(black_box(skillratings_glicko(players, &games, 63.2))))),
                ),
                ("glicko2", Some(best(&|| drop(black_box(skillratings_glicko2(players, &games)))))),
                ("elo", Some(best(&|| drop(black_box(skillratings_elo(players, &games, k)))))),
                ("tgr", None),
            ]
        };
        // The folded form (docs/spec.md): replays from the stored events first, with a directory
        // where the folded form goes (a replay then reads the events at once, building nothing);
        // then the first replay after the head moved, which builds it; the replays below read it.
        let folded = db.join(ladder_log::FOLDED_FILE);
        // One `ladder replay --format json` per run, the median kept.
        let replay_median = |algo: &str| {
            let args = ["replay", "--ledger", db_s, "--algo", algo, "--format", "json"];
            median((0..runs).map(|_| ladder(&args, None)).collect())
        };
        let _ = std::fs::remove_file(&folded);
        if !sweeps_only {
            std::fs::create_dir_all(folded.join("blocked"))
                .expect("the bench's directory is writable");
            for algo in ["glicko2", "elo"] {
                let r = replay_median(algo);
                row(&format!("replay {algo}, from the stored events (no folded form)"), &r, None);
            }
            std::fs::remove_dir_all(&folded).expect("the bench's directory is writable");
        }
        let first =
            ladder(&["replay", "--ledger", db_s, "--algo", "elo", "--format", "json"], None);
        row("replay elo, first after the head moved (builds the folded form)", &first, None);
        let folded_mb = std::fs::metadata(&folded).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        let mut glicko2_replay = f64::NAN;
        for (algo, peer) in peers {
            let r = replay_median(algo);
            row(&format!("replay {algo}"), &r, peer);
            if algo == "glicko2" {
                glicko2_replay = r.seconds;
            }
        }
        // Glicko-2 sweeps of 8 and 64 configurations (one pass each, scored), against one replay.
        let sweep = |grids: &[&str]| {
            let mut args = vec!["sweep", "--ledger", db_s, "--algo", "glicko2"];
            for g in grids {
                args.extend(["--grid", g]);
            }
            args.extend(["--format", "json"]);
            median((0..runs).map(|_| ladder(&args, None)).collect())
        };
        let eight = sweep(&["tau=0.3,0.5,0.7,0.9", "sigma=0.04,0.06"]);
        row("sweep glicko2, 8 configurations", &eight, None);
        let sixty_four = sweep(&[
            "tau=0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
            "sigma=0.03,0.04,0.05,0.06,0.07,0.08,0.09,0.1",
        ]);
        row("sweep glicko2, 64 configurations", &sixty_four, None);
        println!(
            "\nsweeps against one Glicko-2 replay ({:.2} s): 8 configurations {:.2}x, 64 configurations {:.2}x",
            glicko2_replay,
            eight.seconds / glicko2_replay,
            sixty_four.seconds / glicko2_replay
        );
        println!("\nfolded form beside the ledger: {folded_mb:.0} MB");
        println!(
            "\nledger on disk: {:.0} MB ({:.2}x the JSON Lines, {:.0} MB)",
            disk as f64 / 1e6,
            disk as f64 / std::fs::metadata(&jsonl).map(|m| m.len()).unwrap_or(1) as f64,
            std::fs::metadata(&jsonl).map(|m| m.len()).unwrap_or(0) as f64 / 1e6
        );
        let _ = std::fs::remove_dir_all(&db);
        let _ = std::fs::remove_file(&jsonl);
    }
}

/// The proofs on the ledger: `ladder prove` as a process (opening the ledger included), then the
/// proofs alone, in this process, over many positions; and the Merkle tree's stored share of the
/// ledger on disk.
fn proofs(db: &str, events: u64, runs: usize, disk: u64) {
    let mid = (events / 2).to_string();
    let (from, to) = ((events / 3).to_string(), events.to_string());
    let inclusion = median(
        (0..runs).map(|_| ladder(&["prove", "--ledger", db, "--event", &mid], None)).collect(),
    );
    let consistency = median(
        (0..runs)
            .map(|_| ladder(&["prove", "--ledger", db, "--from", &from, "--to", &to], None))
            .collect(),
    );
    let open = Instant::now();
    let ledger = ladder_log::Ledger::open_existing(db).expect("the ledger opens");
    let open = open.elapsed().as_secs_f64();
    // 1,000 positions spread over the log (a multiplicative step, so every tile is visited).
    let n = 1_000u64;
    let at = |i: u64| 1 + (i * 2_654_435_761) % events;
    let start = Instant::now();
    for i in 0..n {
        black_box(ledger.prove_inclusion(at(i), events).expect("an inclusion proof"));
    }
    let per_inclusion = start.elapsed().as_secs_f64() / n as f64;
    let start = Instant::now();
    for i in 0..n {
        let a = at(i);
        black_box(ledger.prove_consistency(a, events).expect("a consistency proof"));
    }
    let per_consistency = start.elapsed().as_secs_f64() / n as f64;
    drop(ledger);
    // The tree stores the hash of every perfect subtree of 256 leaves and more: a 9-byte key
    // (level, index) and a 32-byte hash each.
    let nodes: u64 = (8..64).map(|level| events >> level).sum();
    println!(
        "| `prove --event {mid}` (process: open, prove, print) | {:.2} | | {:.0} | | |",
        inclusion.seconds, inclusion.rss_mb
    );
    println!(
        "| `prove --from {from} --to {to}` (process) | {:.2} | | {:.0} | | |",
        consistency.seconds, consistency.rss_mb
    );
    println!(
        "\nproofs in one process, after opening the ledger ({open:.2} s): an inclusion proof \
         {:.3} ms, a consistency proof {:.3} ms (means over {n} positions); the tree's stored \
         subtrees: {nodes} entries, {:.1} MB of keys and hashes ({:.2}% of the ledger on disk)\n",
        per_inclusion * 1e3,
        per_consistency * 1e3,
        nodes as f64 * 41.0 / 1e6,
        nodes as f64 * 41.0 / disk as f64 * 100.0
    );
}

/// Lines of a file, read in a stream (the 30M-match file is 5 GB).
fn line_count(path: &Path) -> usize {
    use std::io::BufRead;
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("sim file"));
    file.split(b'\n').count()
}

fn dir_size(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_size(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}
