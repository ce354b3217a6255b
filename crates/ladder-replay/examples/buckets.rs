//! Where one algorithm's predictions beat another's (docs/real-ladders.md, "Where TGR beats
//! TTT"): folds a history (`ladder log --format jsonl`) through several configurations and
//! scores the two-seat matches after event FROM through event UNTIL as `--score --warmup` does
//! (each predicted just before it is applied; the same figures), bucketed by how much is known of its two players: the
//! fewer earlier matches of the two, and the longer time since either's previous match.
//!
//! `cargo run --release -p ladder-replay --example buckets -- EVENTS.jsonl FROM UNTIL
//! ALGO[:K=V,K=V...]...`
//!
//! Prints, per bucket, the matches in it and each configuration's mean log loss there (natural
//! logarithm, p clipped as `--score` clips it), and the whole slice's; then, for a newcomer's
//! first match against a player with games, the mean probability each configuration gave the
//! newcomer and how often newcomers won.

use ladder_events::json::parse_line;
use ladder_events::{Body, NANOS_PER_DAY};
use ladder_projector::{Feeder, Home, Projector};
use ladder_replay::registry;
use ladder_replay::score::Score;
use std::io::BufRead;

/// Bucket edges of the fewer earlier matches of the two players: 0, 1-4, 5-19, 20-99, 100+.
const GAMES: [(u32, &str); 5] =
    [(1, "0"), (5, "1-4"), (20, "5-19"), (100, "20-99"), (u32::MAX, "100+")];
/// Bucket edges of the longer time since a previous match of either player (days); a player
/// without one is in the games bucket "0" instead.
const IDLE: [(i64, &str); 5] =
    [(8, "<8d"), (31, "8-30d"), (91, "31-90d"), (366, "91-365d"), (i64::MAX, ">365d")];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, from, until, algos @ ..] = args.as_slice() else {
        return Err("usage: buckets EVENTS.jsonl FROM UNTIL ALGO[:K=V,...]...".into());
    };
    let (from, until): (u64, u64) = (from.parse()?, until.parse()?);
    let mut projectors = Vec::new();
    for a in algos {
        let (name, sets) = a.split_once(':').unwrap_or((a, ""));
        let sets: Vec<&str> = sets.split(',').filter(|s| !s.is_empty()).collect();
        projectors.push(registry::build(registry::configure(name, &sets)?)?);
    }
    if projectors.is_empty() {
        return Err("name at least one ALGO[:K=V,...]".into());
    }
    let n = projectors.len();
    let mut by_games: Vec<Vec<Score>> = GAMES.iter().map(|_| vec![Score::new(0); n]).collect();
    let mut by_idle: Vec<Vec<Score>> = IDLE.iter().map(|_| vec![Score::new(0); n]).collect();
    let mut all = vec![Score::new(0); n];
    // A newcomer's first matches (the other player not new): per configuration, the summed
    // probability given to the newcomer, and the newcomer's summed result.
    let (mut debut_p, mut debut_y, mut debuts) = (vec![0.0; n], 0.0, 0u64);
    // Per player id: matches played and the instant of the last.
    let mut games: Vec<(u32, i64)> = Vec::new();
    let mut feeder = Feeder::new();
    let reader = std::io::BufReader::new(std::fs::File::open(file)?);
    for (i, line) in reader.lines().enumerate() {
        let seq = i as u64 + 1;
        if seq > until {
            break;
        }
        let line = line?;
        let event = parse_line(&line).map_err(|e| format!("line {seq}: {e}"))?;
        // Every two-seat match is predicted, as `--score` predicts its warm-up too (TTT's
        // forecasts are a cache built day by day, so the days asked decide them below
        // epsilon), and recorded after FROM.
        if let Body::MatchResult { seats } = &event.body {
            if let [a, b] = seats.as_slice() {
                let (ia, ib) = (feeder.roster.get(&a.player), feeder.roster.get(&b.player));
                if let (Some(ia), Some(ib)) = (ia, ib) {
                    let y = if a.score > b.score {
                        1.0
                    } else if a.score < b.score {
                        0.0
                    } else {
                        0.5
                    };
                    let home = match (a.home, b.home) {
                        (true, false) => Home::First,
                        (false, true) => Home::Second,
                        _ => Home::Neither,
                    };
                    let known = |id: ladder_projector::PlayerId| {
                        games.get(id.index()).copied().unwrap_or((0, 0))
                    };
                    let (ka, kb) = (known(ia), known(ib));
                    let fewer = ka.0.min(kb.0);
                    let g = GAMES.iter().position(|&(hi, _)| fewer < hi).unwrap_or(0);
                    let idle = if fewer == 0 {
                        None
                    } else {
                        let days = (event.at.0 - ka.1.min(kb.1)) / NANOS_PER_DAY;
                        IDLE.iter().position(|&(hi, _)| days < hi)
                    };
                    let newcomer = match (ka.0, kb.0) {
                        (0, 1..) => Some(true),
                        (1.., 0) => Some(false),
                        _ => None,
                    };
                    if seq > from && newcomer.is_some() {
                        debuts += 1;
                        debut_y += if newcomer == Some(true) { y } else { 1.0 - y };
                    }
                    for (k, p) in projectors.iter().enumerate() {
                        let q = p.expectation_at(ia, ib, event.at, home);
                        if seq <= from {
                            continue;
                        }
                        match newcomer {
                            Some(true) => debut_p[k] += q,
                            Some(false) => debut_p[k] += 1.0 - q,
                            None => {}
                        }
                        all[k].record(q, y);
                        by_games[g][k].record(q, y);
                        if let Some(d) = idle {
                            by_idle[d][k].record(q, y);
                        }
                    }
                }
            }
        }
        let mut refs: Vec<&mut dyn Projector> =
            projectors.iter_mut().map(|p| p as &mut dyn Projector).collect();
        feeder.feed(seq, &event, &|_| false, &mut refs, None).map_err(|e| format!("{e}"))?;
        if let Body::MatchResult { seats } = &event.body {
            for s in seats {
                if let Some(id) = feeder.roster.get(&s.player) {
                    if games.len() <= id.index() {
                        games.resize(id.index() + 1, (0, 0));
                    }
                    games[id.index()].0 += 1;
                    games[id.index()].1 = event.at.0;
                }
            }
        }
    }
    let head: Vec<String> = algos.iter().map(|a| format!("{a:>24}")).collect();
    println!("{:<26} {:>8} {}", "bucket", "matches", head.join(" "));
    let row = |label: String, scores: &[Score]| {
        let cells: Vec<String> = scores
            .iter()
            .map(|s| format!("{:>24}", s.log_loss().map_or("-".into(), |l| format!("{l:.6}"))))
            .collect();
        println!("{label:<26} {:>8} {}", scores[0].matches, cells.join(" "));
    };
    for (i, (_, label)) in GAMES.iter().enumerate() {
        row(format!("fewer games {label}"), &by_games[i]);
    }
    for (i, (_, label)) in IDLE.iter().enumerate() {
        row(format!("longer absence {label}"), &by_idle[i]);
    }
    row("all".into(), &all);
    // Calibration of the first matches: the mean probability given to the newcomer against
    // how often they won (a newcomer against a player with games).
    if debuts > 0 {
        let cells: Vec<String> =
            debut_p.iter().map(|p| format!("{:>24.4}", p / debuts as f64)).collect();
        println!("{:<26} {debuts:>8} {}", "newcomer: mean p", cells.join(" "));
        println!("{:<26} {debuts:>8} {:>24.4}", "newcomer: won", debut_y / debuts as f64);
    }
    Ok(())
}
