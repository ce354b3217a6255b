//! Integration tests of the TGR projector: one binary, one module per area.

mod hand;
mod projector;
mod props;
mod snapshots;

use ladder_events::{json::parse_line, Event};
use ladder_projector::{
    fold_all, Algorithm, Feeder, Projector, Roster, Standing, Trace, TraceEntry,
};
use ladder_tgr::Tgr;

/// Events from JSON Lines text (blank lines skipped).
pub fn events(text: &str) -> Vec<Event> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse_line(l).unwrap_or_else(|v| panic!("{l}: {v}")))
        .collect()
}

/// `KEY=VALUE` pairs as `Algorithm::configure` takes them.
pub fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A projector with the given constants (defaults for the rest).
pub fn tgr(pairs: &[(&str, &str)]) -> Tgr {
    Tgr::configure(&sets(pairs)).expect("valid constants")
}

/// Folds `text` into a projector configured with `sets`.
pub fn run(text: &str, sets: &[(&str, &str)]) -> (Tgr, Roster) {
    let mut t = tgr(sets);
    let roster = fold_all(&events(text), &mut t).expect("replays");
    (t, roster)
}

/// Folds `text` recording one trace for the whole history.
pub fn run_traced(text: &str, sets: &[(&str, &str)]) -> (Tgr, Roster, Trace) {
    let mut t = tgr(sets);
    let mut trace = Trace::new();
    let mut feeder = Feeder::new();
    let events = events(text);
    let voided = ladder_projector::voided_ids(&events);
    for (i, e) in events.iter().enumerate() {
        feeder
            .feed(i as u64 + 1, e, &|id| voided.contains(id), &mut [&mut t], Some(&mut trace))
            .expect("replays");
    }
    (t, feeder.roster, trace)
}

/// The standing of `name`.
pub fn standing(t: &Tgr, roster: &Roster, name: &str) -> Standing {
    let id = roster.get(name).unwrap_or_else(|| panic!("{name} never appeared"));
    t.standings().into_iter().find(|s| s.player == id).expect("joined")
}

/// The value of quantity `name` in the `nth` section titled `title` (0-based).
pub fn quantity(trace: &Trace, title: &str, nth: usize, name: &str) -> f64 {
    let mut seen = None;
    let mut count = 0;
    for e in &trace.entries {
        match e {
            TraceEntry::Section(s) if s == title => {
                seen = Some(count);
                count += 1;
            }
            TraceEntry::Section(_) => seen = None,
            TraceEntry::Quantity { name: n, value, .. } if seen == Some(nth) && n == name => {
                return *value
            }
            _ => {}
        }
    }
    panic!("no {name} in section {title} #{nth}")
}

/// The flag codes raised in the `nth` section titled `title`.
pub fn flags(trace: &Trace, title: &str, nth: usize) -> Vec<&'static str> {
    let mut seen = None;
    let mut count = 0;
    let mut out = Vec::new();
    for e in &trace.entries {
        match e {
            TraceEntry::Section(s) if s == title => {
                seen = Some(count);
                count += 1;
            }
            TraceEntry::Section(_) => seen = None,
            TraceEntry::Flag { code, .. } if seen == Some(nth) => out.push(*code),
            _ => {}
        }
    }
    out
}

/// `|a - b| <= tol`, with both in the message.
#[track_caller]
pub fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tolerance {tol})");
}
