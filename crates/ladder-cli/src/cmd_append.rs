//! `ladder append`: one event typed by a person, dated now unless `--at` says otherwise.

use crate::source::open_for_write;
use crate::{Hinted, UsageError};
use clap::{Args, Subcommand};
use ladder_events::{Body, Event, Prior, Rule, Seat, Timestamp};
use ladder_log::{AppendError, AppendOptions};
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder append join alice
  ladder append join bob --rating 1720 --rd 80          a prior from another ladder
  ladder append match alice bob --score 1-0 --id m-17   alice beat bob
  ladder append match alice bob --score draw
  ladder append match lyon nice --score 2-1 --home a    lyon played at home
  ladder append match alice bob --score 3-5 --at 2026-03-01T12:00:00Z
  ladder append timeout alice                           nobody fitted in the queue
  ladder append tick --at 2026-03-02                    a midnight
  ladder append void m-17 --reason \"wrong account\"
  ladder append match alice bob --score 1-0 --format json   the event and the new head as JSON

--at takes an RFC 3339 instant or a date; without it, now.";

/// Output formats of `append`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AppendFormat {
    /// For people: the event appended and the new head.
    Text,
    /// `{"appended", "duplicates", "auto_joined", "event", "head"}` on one line.
    Json,
}

/// Arguments of `append`.
#[derive(Debug, Args)]
pub struct AppendArgs {
    /// When it happened (RFC 3339, or a date meaning 00:00 UTC); default: now.
    #[arg(long, global = true, value_name = "INSTANT")]
    pub at: Option<String>,
    /// An idempotency id for the event.
    #[arg(long, global = true)]
    pub id: Option<String>,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value = "text")]
    pub format: AppendFormat,
    /// Accept an --at more than a day after this computer's clock (refused by default: a
    /// mistyped year would block every later append).
    #[arg(long, global = true)]
    pub allow_future: bool,
    /// What to append.
    #[command(subcommand)]
    pub what: What,
}

/// Which seat of a two-player match is at home.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HomeSeat {
    /// The first player.
    A,
    /// The second player.
    B,
}

/// The events a person can append.
#[derive(Debug, Subcommand)]
pub enum What {
    /// A player joins.
    Join {
        /// The player's name.
        player: String,
        /// Prior rating carried over from another ladder.
        #[arg(long)]
        rating: Option<f64>,
        /// Prior rating deviation (> 0).
        #[arg(long)]
        rd: Option<f64>,
        /// Prior Glicko-2 volatility (> 0).
        #[arg(long)]
        volatility: Option<f64>,
    },
    /// A two-player result.
    Match {
        /// First player.
        a: String,
        /// Second player.
        b: String,
        /// `1-0` (a won), `0-1`, `draw`, or points like `3-2`.
        #[arg(long)]
        score: String,
        /// Join players who have not joined yet, at the same instant.
        #[arg(long)]
        auto_join: bool,
        /// The seat at home (the first player `a` or the second `b`): the side with the
        /// structural advantage each algorithm's `home` constant adds; neutral ground without it.
        #[arg(long, value_enum, value_name = "a|b")]
        home: Option<HomeSeat>,
    },
    /// A MidnightTick (the instant must be 00:00:00 UTC: give a date with --at).
    Tick,
    /// A player waited in the queue and nobody fitted.
    Timeout {
        /// The player.
        player: String,
    },
    /// Annul an earlier match recorded in error.
    Void {
        /// The id of the MatchResult.
        #[arg(value_name = "MATCH_ID")]
        match_id: String,
        /// Why.
        #[arg(long, default_value = "")]
        reason: String,
    },
}

/// Parses `1-0`, `0-1`, `draw`, `0.5-0.5` or points `3-2` into the two seats' scores.
fn parse_score(text: &str) -> Result<(f64, f64), UsageError> {
    if text.eq_ignore_ascii_case("draw") {
        return Ok((0.5, 0.5));
    }
    let bad =
        || UsageError(format!("--score {text:?}: expected 1-0, 0-1, draw, or points like 3-2"));
    let (a, b) = text.split_once('-').ok_or_else(bad)?;
    let a: f64 = a.trim().parse().map_err(|_| bad())?;
    let b: f64 = b.trim().parse().map_err(|_| bad())?;
    if !a.is_finite() || !b.is_finite() {
        return Err(bad());
    }
    Ok((a, b))
}

pub fn run(ledger_path: &Path, args: AppendArgs) -> anyhow::Result<ExitCode> {
    let now = crate::now();
    let at = match &args.at {
        Some(text) => Timestamp::parse(text).map_err(|e| UsageError(format!("--at: {e}")))?,
        None => now,
    };
    let mut opts = AppendOptions {
        not_after: crate::not_after(now, args.allow_future),
        ..AppendOptions::default()
    };
    let body = match args.what {
        What::Join { player, rating, rd, volatility } => {
            Body::PlayerJoined { player, prior: Prior { rating, rd, volatility } }
        }
        What::Match { a, b, score, auto_join, home } => {
            opts.auto_join = auto_join;
            let (sa, sb) = parse_score(&score)?;
            let seat =
                |player, score, home| Seat { player, score, team: None, seconds: None, home };
            Body::MatchResult {
                seats: vec![
                    seat(a, sa, home == Some(HomeSeat::A)),
                    seat(b, sb, home == Some(HomeSeat::B)),
                ],
            }
        }
        What::Tick => Body::MidnightTick,
        What::Timeout { player } => Body::QueueTimeout { player },
        What::Void { match_id, reason } => Body::MatchVoided { match_id, reason },
    };
    let event = Event { at, id: args.id, body };
    let line = ladder_events::json::to_line(&event);
    let mut ledger = open_for_write(ledger_path)?;
    // Retrying `append ... --id ID` without --at: the instant is now, so it differs from the
    // stored one's, but the event is the same. It is reported as stored, not as a conflict.
    if let (Some(id), None) = (&event.id, &args.at) {
        if let Some(seq) = ledger.seq_of_id(id)? {
            let stored = ledger.get(seq)?.map(|s| s.event);
            if let Some(stored) = stored.filter(|s| s.body == event.body) {
                let stored_line = ladder_events::json::to_line(&stored);
                let head = ledger.head();
                if args.format == AppendFormat::Json {
                    let v = serde_json::json!({
                        "appended": 0,
                        "duplicates": 1,
                        "auto_joined": 0,
                        "event": serde_json::from_str::<serde_json::Value>(&stored_line)?,
                        "seq": seq,
                        "head": head.to_string(),
                    });
                    outln!("{v}")?;
                } else {
                    outln!(
                        "already stored at seq {seq}: {stored_line}\nnothing appended (id {id:?} \
                         names this event, dated when it was first appended); head {head}"
                    )?;
                }
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    let checked = event.check().map(|()| event);
    let auto_join = opts.auto_join;
    match ledger.append([checked], &opts) {
        Ok(r) if args.format == AppendFormat::Json => {
            let event: serde_json::Value = serde_json::from_str(&line)?;
            let v = serde_json::json!({
                "appended": r.appended,
                "duplicates": r.duplicates,
                "auto_joined": r.auto_joined,
                "event": event,
                "head": r.head.to_string(),
            });
            outln!("{v}")?;
        }
        Ok(r) if r.duplicates > 0 => {
            outln!("duplicate of a stored event, nothing appended; head {}", r.head)?
        }
        Ok(r) => outln!("appended {line}\nhead {}", r.head)?,
        Err(AppendError::Refused { violation, .. }) => {
            let hint = match violation.rule {
                Rule::UnknownPlayer if !auto_join => {
                    "`ladder append join NAME` first, or pass --auto-join to `append match`"
                }
                Rule::TimeOrder => "events go in time order: give --at an instant after the ledger's last event (`ladder log` shows it)",
                rule => crate::rule_hint(rule, auto_join),
            };
            return Err(Hinted::refused(format!("refused {line}\n{violation}"), hint).into());
        }
        Err(e) => return Err(e.into()),
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_score;

    #[test]
    fn scores() {
        assert_eq!(parse_score("1-0").unwrap(), (1.0, 0.0));
        assert_eq!(parse_score("draw").unwrap(), (0.5, 0.5));
        assert_eq!(parse_score("3 - 5").unwrap(), (3.0, 5.0));
        assert!(parse_score("win").is_err());
        assert!(parse_score("1-inf").is_err());
    }
}
