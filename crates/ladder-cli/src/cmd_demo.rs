//! `ladder demo`: the main job on the embedded default ledger, for a first look.
//!
//! It builds a ledger in a temporary directory from the international football slice shipped in
//! `fixtures/football/` (CC0, embedded in the binary), verifies its chain, and tells the user what
//! to try next. It needs no file and no network, and leaves nothing behind.

use crate::source::{ledger_history, LedgerHistory};
use anyhow::Context;
use clap::Args;
use ladder_events::Body;
use ladder_explain::account;
use ladder_import::csv::{read_files, CsvOptions, Mapping, Preset};
use ladder_log::{AppendOptions, Ledger};
use ladder_projector::{PlayerId, TraceEntry};
use ladder_replay::diff::{diff, Side};
use ladder_replay::{leaderboard, registry, replay, BoardRules, Options, Snapshot};
use std::collections::BTreeSet;
use std::collections::HashMap;
use std::io::Read;
use std::process::ExitCode;

/// The embedded default history: 2,976 competitive international matches, 2014–2018 (CC0).
pub const FOOTBALL_CSV: &str = include_str!("../../../fixtures/football/results-2014-2018.csv");
/// The column mapping of that file.
pub const FOOTBALL_COLUMNS: &str =
    "at=date,a=home_team,b=away_team,score_a=home_score,score_b=away_score";
const FOOTBALL_NAME: &str = "results-2014-2018.csv";

/// What the demo tells the user to try next, on their own data (a ledger at ./ladder.db).
const NEXT_STEPS: &str =
    "Next, on your own data (the ledger is ./ladder.db unless --ledger says otherwise):
  ladder import --auto-join games.jsonl                   JSON Lines events (docs/events.md)
  ladder import --auto-join --columns at=date,winner=w,loser=l games.csv
  ladder verify                                           the head to publish
  ladder leaderboard --algo glicko2 --top 20
  ladder replay --algo tgr --set sc=30 --format json      every standing, other constants
  ladder diff tgr tgr:p=0.9                               who moves between two settings
  ladder explain --algo tgr --event 42                    the numbers behind one change
  ladder sweep --algo elo --grid k=16,24,32               which constants predict best
  ladder plot --algo glicko2 --player alice --output alice.svg
Every command has --help with examples; docs/first-five-minutes.md is a whole first session.";

/// Arguments of `demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {}

pub fn run(_args: DemoArgs) -> anyhow::Result<ExitCode> {
    outln!("ladder demo: international football 2014-2018 (competitive matches, CC0), embedded in the binary\n")?;
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
    outln!("1. import   $ ladder import --auto-join --columns {FOOTBALL_COLUMNS} {FOOTBALL_NAME}")?;
    outln!(
        "             appended {} events: {} teams joined, {} matches",
        report.appended,
        report.auto_joined,
        report.appended - report.auto_joined
    )?;

    let head = ledger.verify(None).context("verifying the demo ledger")?;
    outln!("2. verify   $ ladder verify")?;
    outln!("             ok: head {head} (chain of {} events intact)", head.seq)?;

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
        // A summary the demo counts itself, so no command is shown before it (`ladder log`
        // prints the events, not this).
        outln!("3. history  {} teams, {draws} draws, from {f} to {l}", teams.len())?;
        outln!("             (`ladder log` lists the events, `ladder log --format jsonl` exports them)")?;
    }
    outln!("4. replay   $ ladder leaderboard --algo ALGO --top 5   (constants at their defaults)")?;
    let history = ledger_history(&ledger);
    for algo in ["tgr", "glicko2", "elo"] {
        let mut projector = registry::build(registry::config(algo, &[])?)?;
        let r = replay(&history, &mut [&mut projector], Options::default(), &mut |_| {})?;
        let rules = BoardRules { top: Some(5), ..BoardRules::default() };
        let board = leaderboard(&projector, &r.roster, &r.activity, &rules);
        let top: Vec<String> = board
            .ranked
            .iter()
            .map(|r| &r.row)
            .map(|row| match row.standing.display.and_then(|d| d.glixare) {
                Some(g) => format!("{} {g:.2}%", row.player),
                None => format!("{} {:.0}", row.player, row.standing.rating),
            })
            .collect();
        if top.is_empty() {
            let l = board.left_out;
            outln!(
                "   {algo:<8}  nobody is established yet: {} provisional, {} with few games, {} inactive",
                l.provisional, l.few_games, l.inactive
            )?;
        } else {
            outln!("   {algo:<8}  {}", top.join(", "))?;
        }
    }
    demo_diff(&history)?;
    demo_audit(&ledger)?;
    outln!("\n{NEXT_STEPS}")?;
    Ok(ExitCode::SUCCESS)
}

/// Step 5: who moves between TGR's defaults and the setting that predicts football best.
fn demo_diff(history: &LedgerHistory<'_>) -> anyhow::Result<()> {
    let side = |sets: &[(&str, &str)]| -> anyhow::Result<Side> {
        let sets: Vec<(String, String)> =
            sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut p = registry::build(registry::config("tgr", &sets)?)?;
        let r = replay(history, &mut [&mut p], Options::default(), &mut |_| {})?;
        Ok(Side::of(&Snapshot::capture(&p, &r.roster, r.through, &r.head)))
    };
    let d = diff(&side(&[])?, &side(&[("sc", "2"), ("p", "1")])?);
    outln!("5. diff     $ ladder diff tgr tgr:sc=2,p=1   (the defaults against the best football setting, docs/real-ladders.md)")?;
    outln!(
        "             {} teams compared, {} changed rank; rank correlation {:.3}; largest moves:",
        d.compared,
        d.rank_changed,
        d.rank_correlation.unwrap_or(f64::NAN)
    )?;
    for r in d.rows.iter().take(3) {
        let (Some(a), Some(b)) = (r.a, r.b) else { continue };
        outln!(
            "             {:<22} {:>7.1} -> {:>7.1}  ({:+.1}, rank {} -> {})",
            r.player,
            a.0,
            b.0,
            b.0 - a.0,
            a.2,
            b.2
        )?;
    }
    Ok(())
}

/// Step 6: the first match where TGR, with the queue's 0.35 misread as P, takes rating from the
/// winner; the numbers behind it, and the same match under P = 5/6.
fn demo_audit(ledger: &Ledger) -> anyhow::Result<()> {
    let low = registry::config("tgr", &[("p".into(), "0.35".into())])?;
    let mut p = registry::build(low.clone())?;
    let mut last: HashMap<PlayerId, f64> = HashMap::new();
    let mut found: Option<(u64, Vec<String>)> = None;
    let searched = replay(&ledger_history(ledger), &mut [&mut p], Options::default(), &mut |s| {
        if found.is_some() {
            return;
        }
        let standings = s.projectors[0].standings();
        let rating = |id: PlayerId| standings.iter().find(|x| x.player == id).map(|x| x.rating);
        if let Body::MatchResult { seats } = &s.event.body {
            if let [a, b] = seats.as_slice() {
                let (winner, loser) = if a.score > b.score { (a, b) } else { (b, a) };
                if let (Some(w), true) = (s.roster.get(&winner.player), a.score != b.score) {
                    if let (Some(before), Some(after)) = (last.get(&w), rating(w)) {
                        if after < *before {
                            found =
                                Some((s.seq, vec![winner.player.clone(), loser.player.clone()]));
                        }
                    }
                }
            }
        }
        for name in s.event.players() {
            if let Some(id) = s.roster.get(name) {
                if let Some(r) = rating(id) {
                    last.insert(id, r);
                }
            }
        }
    });
    // With P = 0.35 the ratings run away on this ladder until PE rounds to 1 and TGR stops with a
    // typed error; the disputed event comes long before that.
    let runaway = searched.err();
    let Some((seq, names)) = found else { return Ok(()) };
    let acc = account(ledger, low, seq, &names)?;
    let fair = account(ledger, registry::config("tgr", &[])?, seq, &names)?;
    let event =
        ledger.get(seq)?.map(|e| ladder_events::json::to_line(&e.event)).unwrap_or_default();
    outln!("6. explain  $ ladder explain --algo tgr --set p=0.35 --event {seq} --vs p=0.8333333333333334")?;
    outln!("             a disputed change: {event}")?;
    let q = |name: &str| {
        acc.trace.entries.iter().find_map(|e| match e {
            TraceEntry::Quantity { player: Some(pl), name: n, value, .. }
                if acc.roster.name(*pl) == names[0] && n == name =>
            {
                Some(*value)
            }
            _ => None,
        })
    };
    outln!(
        "             {} won, yet with P = 0.35 lost {:.2} rating: XD = {:.3}, PMERIT = {:.3}, so 2 * PMERIT - 1 = {:.3} < 0 reverses the change",
        names[0],
        -acc.change(0).unwrap_or(f64::NAN),
        q("XD").unwrap_or(f64::NAN),
        q("PMERIT").unwrap_or(f64::NAN),
        2.0 * q("PMERIT").unwrap_or(f64::NAN) - 1.0
    )?;
    outln!(
        "             with P = 5/6 (the default; no result can reverse a change's sign) the winner gains {:+.2}",
        fair.change(0).unwrap_or(f64::NAN)
    )?;
    if let Some(e) = runaway {
        outln!("             and P = 0.35 does not survive this ladder: {e}")?;
    }
    Ok(())
}
