//! `ladder demo`: the main job on the embedded default ledger, for a first look.
//!
//! It builds a ledger in a temporary directory from the international football slice shipped in
//! `fixtures/football/` (CC0, embedded in the binary), verifies its chain, and tells the user what
//! to try next. It needs no file and no network, and leaves nothing behind.

use crate::source::LedgerHistory;
use anyhow::Context;
use clap::Args;
use ladder_import::csv::{read_files, CsvOptions, Mapping, Preset};
use ladder_log::{AppendOptions, Ledger};
use ladder_replay::{leaderboard, registry, replay, Options};
use std::collections::BTreeSet;
use std::io::Read;
use std::process::ExitCode;

/// The embedded default history: 2,976 competitive international matches, 2014–2018 (CC0).
pub const FOOTBALL_CSV: &str = include_str!("../../../fixtures/football/results-2014-2018.csv");
/// The column mapping of that file.
pub const FOOTBALL_COLUMNS: &str =
    "at=date,a=home_team,b=away_team,score_a=home_score,score_b=away_score";
const FOOTBALL_NAME: &str = "results-2014-2018.csv";

/// Arguments of `demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {}

pub fn run(_args: DemoArgs) -> anyhow::Result<ExitCode> {
    println!("ladder demo: international football 2014-2018 (competitive matches, CC0), embedded in the binary\n");
    let dir = tempfile::Builder::new()
        .prefix("ladder-demo-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let path = dir.path().join("demo.db");

    let opts = CsvOptions {
        preset: Preset::Columns(Mapping::parse(FOOTBALL_COLUMNS)?),
        delimiter: b',',
        skips: vec![],
    };
    let files: Vec<(String, Box<dyn Read>)> =
        vec![(FOOTBALL_NAME.into(), Box::new(FOOTBALL_CSV.as_bytes()))];
    let batch = read_files(files, &opts)?;
    let mut ledger =
        Ledger::open(&path).with_context(|| format!("cannot create {}", path.display()))?;
    let report = ledger
        .append(
            batch.events.into_iter().map(|(_, e)| e),
            &AppendOptions { auto_join: true, ..Default::default() },
        )
        .context("importing the embedded football history")?;
    println!(
        "1. import   $ ladder import --auto-join --columns {FOOTBALL_COLUMNS} {FOOTBALL_NAME}"
    );
    println!(
        "             appended {} events: {} teams joined, {} matches",
        report.appended,
        report.auto_joined,
        report.appended - report.auto_joined
    );

    let head = ledger.verify(None).context("verifying the demo ledger")?;
    println!("2. verify   $ ladder verify");
    println!("             ok: head {head} (chain of {} events intact)", head.seq);

    let mut first = None;
    let mut last = None;
    let mut draws = 0u64;
    let mut teams = BTreeSet::new();
    for stored in ledger.events(1) {
        let e = stored?.event;
        first.get_or_insert(e.at);
        last = Some(e.at);
        if let ladder_events::Body::MatchResult { seats } = &e.body {
            if seats[0].score == seats[1].score {
                draws += 1;
            }
            teams.extend(seats.iter().map(|s| s.player.clone()));
        }
    }
    if let (Some(f), Some(l)) = (first, last) {
        println!("3. log      $ ladder log --limit 5");
        println!("             {} teams, {draws} draws, from {f} to {l}", teams.len());
    }
    println!(
        "4. replay   $ ladder leaderboard --algo ALGO --top 5   (constants at their defaults)"
    );
    let history = LedgerHistory(&ledger);
    for algo in ["tgr", "glicko2", "elo"] {
        let mut projector = registry::build(registry::config(algo, &[])?)?;
        let r = replay(&history, &mut [&mut projector], Options::default(), &mut |_| {})?;
        let board = leaderboard(&projector, &r.roster);
        let top: Vec<String> = board
            .ranked
            .iter()
            .take(5)
            .map(|r| &r.row)
            .map(|row| match row.standing.display.and_then(|d| d.glixare) {
                Some(g) => format!("{} {g:.2}%", row.player),
                None => format!("{} {:.0}", row.player, row.standing.rating),
            })
            .collect();
        if top.is_empty() {
            let mut provisional: Vec<_> = board.provisional.iter().collect();
            provisional.sort_by(|a, b| b.standing.rating.total_cmp(&a.standing.rating));
            let by_rating: Vec<String> = provisional
                .iter()
                .take(5)
                .map(|r| format!("{} {:.0}", r.player, r.standing.rating))
                .collect();
            println!(
                "   {algo:<8}  every team is provisional (RD > 100: SC = 20 lets RD grow between sparse internationals); by rating: {}",
                by_rating.join(", ")
            );
        } else {
            println!("   {algo:<8}  {}", top.join(", "));
        }
    }
    println!("\nNext, on your own data:");
    println!(
        "  ladder import --auto-join games.jsonl       JSON Lines events (see docs/events.md)"
    );
    println!("  ladder import --auto-join --columns at=date,winner=w,loser=l games.csv");
    println!("  ladder verify                               prints the head to publish");
    println!(
        "  ladder log --format jsonl > export.jsonl    export; re-import rebuilds the same head"
    );
    Ok(ExitCode::SUCCESS)
}
