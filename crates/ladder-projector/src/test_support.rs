//! Helpers for tests and benchmarks of projectors, behind the `test-support` feature, which only
//! dev-dependencies enable: folding a whole in-memory history with no disk ([`fold_all`]), and the
//! fixed-width table that projector snapshot tests store ([`standings_table`],
//! [`fixture_table`]). Programs replay through ladder-replay's streaming driver instead.

use crate::{Feeder, ProjectError, Projector, Roster, Standing};
use ladder_events::{Body, Event};
use std::collections::HashSet;

/// The ids of every match voided somewhere in `events`.
pub fn voided_ids(events: &[Event]) -> HashSet<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            Body::MatchVoided { match_id, .. } => Some(match_id.clone()),
            _ => None,
        })
        .collect()
}

/// Folds a whole history (sequence numbers from 1) into one projector, checks that its end settles
/// ([`Projector::settle`]) and returns the roster.
pub fn fold_all(events: &[Event], projector: &mut dyn Projector) -> Result<Roster, ProjectError> {
    let voided = voided_ids(events);
    let mut feeder = Feeder::new();
    for (i, event) in events.iter().enumerate() {
        feeder.feed(
            i as u64 + 1,
            event,
            &|id| voided.contains(id),
            &mut [&mut *projector],
            None,
        )?;
    }
    projector.settle(events.len() as u64, None)?;
    Ok(feeder.roster)
}

/// Parses a JSON Lines history, folds it into `projector` and renders [`standings_table`]: what
/// every projector's fixture snapshot test stores. The error names the bad line.
pub fn fixture_table(jsonl: &str, projector: &mut dyn Projector) -> Result<String, String> {
    let events = jsonl
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            ladder_events::json::parse_line(l).map_err(|v| format!("line {}: {v}", i + 1))
        })
        .collect::<Result<Vec<Event>, String>>()?;
    let roster = fold_all(&events, projector).map_err(|e| e.to_string())?;
    Ok(standings_table(projector, &roster, &projector.standings()))
}

/// A fixed-width table of standings sorted by player name (bytes), numbers to 6 decimals: the
/// form projector snapshot tests store, readable in a review and immune to last-digit noise.
pub fn standings_table(
    projector: &dyn Projector,
    roster: &Roster,
    standings: &[Standing],
) -> String {
    let mut rows: Vec<&Standing> = standings.iter().collect();
    rows.sort_by(|a, b| roster.name(a.player).as_bytes().cmp(roster.name(b.player).as_bytes()));
    let width = rows.iter().map(|s| roster.name(s.player).len()).max().unwrap_or(6).max(6);
    let mut out = format!("{}\n", projector.config());
    for w in &projector.config().warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push_str(&format!(
        "{:<width$} {:>16} {:>12} {:>10} {:>6}",
        "player", "rating", "rd", "volatility", "games"
    ));
    out.push_str("  display\n");
    for s in rows {
        let opt = |x: Option<f64>, w: usize, d: usize| {
            x.map_or(format!("{:>w$}", "-"), |v| format!("{v:>w$.d$}"))
        };
        out.push_str(&format!(
            "{:<width$} {:>16.6} {} {} {:>6}",
            roster.name(s.player),
            s.rating,
            opt(s.rd, 12, 6),
            opt(s.volatility, 10, 6),
            s.games
        ));
        match s.display {
            None => {}
            Some(d) if d.provisional => out.push_str("  provisional"),
            Some(d) => out.push_str(&format!("  {:.2}%", d.glixare.unwrap_or(f64::NAN))),
        }
        out.push('\n');
    }
    out
}
