//! `ladder history`: one player's rating, RD and rank after each of their events.

use crate::algo::{config_of, unknown_player, until_of, AlgoArgs};
use crate::source::{ledger_history, open_for_read};
use clap::{Args, ValueEnum};
use ladder_events::{Body, Timestamp};
use ladder_projector::{FieldValue, Projector, Standing};
use ladder_replay::{leaderboard, registry, replay, BoardRules, Options};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder history --algo tgr --player alice
  ladder history --algo glicko2 --player 'Roger Federer' --format csv > federer.csv
  ladder history --algo elo --player alice --until 2026-06-30 --format json";

/// Output formats of `history`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HistoryFormat {
    /// For people.
    Table,
    /// One JSON object per line: seq, at, type, opponents, score, what, rank, change, and the
    /// standing's fields as `replay` prints them (rating, then rd, volatility, sigma, games...).
    Json,
    /// Comma-separated, with a header row: seq, at, type, opponents (joined by `;`), score, what,
    /// the standing's fields as `replay` names them (rating, then rd, volatility, sigma, games,
    /// provisional, glixare as the algorithm keeps them), rank, change.
    Csv,
}

/// Arguments of `history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// The player.
    #[arg(long)]
    pub player: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: HistoryFormat,
}

/// The player's standing after one of their events.
struct Line {
    seq: u64,
    at: String,
    instant: Timestamp,
    kind: &'static str,
    /// The other seats' players, in seat order (empty unless a match).
    opponents: Vec<String>,
    /// The player's own score (a match only).
    score: Option<f64>,
    what: String,
    rating: f64,
    /// The player's standing after the event (its fields are printed), when the player has one.
    standing: Option<Standing>,
    rank: Option<usize>,
    change: Option<f64>,
}

/// The other seats' players, the player's own score (a match only), and what happened, in words.
fn describe(body: &Body, name: &str) -> (Vec<String>, Option<f64>, String) {
    match body {
        Body::MatchResult { seats } => {
            let mine = seats.iter().find(|x| x.player == name).map_or(0.0, |x| x.score);
            let opponents =
                seats.iter().filter(|x| x.player != name).map(|x| x.player.clone()).collect();
            let others: Vec<String> = seats
                .iter()
                .filter(|x| x.player != name)
                .map(|x| format!("{} {}", x.player, x.score))
                .collect();
            (opponents, Some(mine), format!("{mine} vs {}", others.join(", ")))
        }
        Body::PlayerJoined { .. } => (Vec::new(), None, "joined".into()),
        Body::QueueTimeout { .. } => (Vec::new(), None, "queue timeout".into()),
        _ => (Vec::new(), None, String::new()),
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn run(ledger_path: &Path, args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let config = config_of(&args.algo)?;
    let until = until_of(&args.algo)?;
    let ledger = open_for_read(ledger_path, args.algo.events.events.as_deref())?;
    let mut projector = registry::build(config)?;
    // A whole-history algorithm's standings after each event are not what is known now: its
    // lines take the smoothed curve once the replay ends (and no rank, which would need the
    // history converged again after every event).
    let whole_history = projector.curve(ladder_projector::PlayerId(0)).is_some();
    let mut lines: Vec<Line> = Vec::new();
    let mut last: Option<f64> = None;
    let name = args.player.as_str();
    let replayed = replay(
        &ledger_history(&ledger),
        &mut [&mut projector],
        Options { until, ..Options::default() },
        &mut |s| {
            if !s.event.players().any(|p| p == name) {
                return;
            }
            let Some(id) = s.roster.get(name) else { return };
            let p: &dyn Projector = &*s.projectors[0];
            let (opponents, score, what) = describe(&s.event.body, name);
            let mut line = Line {
                seq: s.seq,
                at: s.event.at.to_string(),
                instant: s.event.at,
                kind: s.event.body.type_name(),
                opponents,
                score,
                what,
                rating: f64::NAN,
                standing: None,
                rank: None,
                change: None,
            };
            if whole_history {
                // Filled in from the smoothed curve below; a join shows the prior.
                line.standing = p.standing(id).filter(|_| score.is_none());
                line.rating = line.standing.as_ref().map_or(f64::NAN, |m| m.rating);
                lines.push(line);
                return;
            }
            // The rank on the leaderboard at its default rules, as it stood after this event.
            let board = leaderboard(p, s.roster, s.activity, &BoardRules::default());
            line.rank = board.ranked.iter().find(|r| r.row.standing.player == id).map(|r| r.rank);
            let Some(me) = p.standing(id) else { return };
            line.change = last.map(|l| me.rating - l);
            line.rating = me.rating;
            last = Some(me.rating);
            line.standing = Some(me);
            lines.push(line);
        },
    )?;
    let Some(id) = replayed.roster.get(name) else {
        return Err(unknown_player(name, &replayed.roster).into());
    };
    if whole_history {
        // Each game's line: the smoothed posterior at the game's instant (games at one instant
        // share it), what the whole history now says about the player's skill then.
        let curve = projector.curve(id).unwrap_or_default();
        let mut last: Option<f64> = None;
        for l in &mut lines {
            if l.score.is_some() {
                if let Some((_, st)) = curve.iter().find(|(at, _)| *at == l.instant) {
                    l.rating = st.rating;
                    l.standing = Some(st.clone());
                }
            }
            l.change = last.map(|x| l.rating - x);
            last = Some(l.rating);
        }
    }
    let mut out = std::io::BufWriter::new(crate::out::stdout());
    match args.format {
        HistoryFormat::Json => {
            for l in &lines {
                let mut v = serde_json::json!({
                    "seq": l.seq, "at": l.at, "type": l.kind, "opponents": l.opponents,
                    "score": l.score, "what": l.what, "rank": l.rank, "change": l.change,
                });
                // The standing's own fields (rd, volatility, sigma, games, ... as the algorithm
                // keeps them), then the rating this line reports.
                if let Some(standing) = &l.standing {
                    ladder_replay::put_fields(&mut v, standing);
                }
                v["rating"] = serde_json::to_value(l.rating)?;
                writeln!(out, "{v}")?;
            }
        }
        HistoryFormat::Csv => {
            // The standing's own fields, named as the algorithm keeps them (Standing::fields):
            // the same columns on every line, taken from the player's standing now.
            let fields: Vec<&str> = projector
                .standing(id)
                .or_else(|| lines.iter().find_map(|l| l.standing.clone()))
                .map_or(vec!["rating"], |st| st.fields().into_iter().map(|(k, _)| k).collect());
            writeln!(out, "seq,at,type,opponents,score,what,{},rank,change", fields.join(","))?;
            for l in &lines {
                let opt = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:?}"));
                let own = l.standing.as_ref().map(Standing::fields).unwrap_or_default();
                let cells: Vec<String> = fields
                    .iter()
                    .map(|f| match (*f, own.iter().find(|(k, _)| k == f)) {
                        ("rating", _) => format!("{:?}", l.rating),
                        (_, Some((_, FieldValue::Number(x)))) => format!("{x:?}"),
                        (_, Some((_, FieldValue::Count(n)))) => n.to_string(),
                        (_, Some((_, FieldValue::Flag(b)))) => b.to_string(),
                        (_, Some((_, FieldValue::Null)) | None) => String::new(),
                    })
                    .collect();
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{}",
                    l.seq,
                    l.at,
                    l.kind,
                    csv_field(&l.opponents.join(";")),
                    opt(l.score),
                    csv_field(&l.what),
                    cells.join(","),
                    l.rank.map_or(String::new(), |r| r.to_string()),
                    opt(l.change)
                )?;
            }
        }
        HistoryFormat::Table => {
            writeln!(out, "{} under {}\n", name, projector.config())?;
            // The uncertainty column: the RD, or sigma where the algorithm keeps that instead.
            let sigma_only = lines
                .iter()
                .filter_map(|l| l.standing.as_ref())
                .any(|s| s.rd.is_none() && s.sigma.is_some());
            writeln!(
                out,
                "{:>8}  {:<24}  {:>10}  {:>8}  {:>6}  {:>8}  what",
                "seq",
                "at",
                "rating",
                if sigma_only { "sigma" } else { "rd" },
                "rank",
                "change"
            )?;
            for l in &lines {
                writeln!(
                    out,
                    "{:>8}  {:<24}  {:>10.1}  {:>8}  {:>6}  {:>8}  {}",
                    l.seq,
                    l.at,
                    l.rating,
                    l.standing
                        .as_ref()
                        .and_then(Standing::spread)
                        .map_or("-".into(), |r| format!("{r:.1}")),
                    l.rank.map_or("-".into(), |r| r.to_string()),
                    l.change.map_or("-".into(), |c| format!("{c:+.1}")),
                    l.what
                )?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
