//! Every generated stream obeys the append rules of docs/events.md: each event alone
//! (`Event::check`) and the history rules, checked by a small model of the ledger.

use crate::{ladders, run};
use ladder_events::{Body, Event, Timestamp};
use std::collections::{BTreeSet, HashSet};

/// The rules the log enforces with the history, as a plain model: returns the first broken rule.
fn check_history(events: &[Event]) -> Result<(), String> {
    let mut last: Option<Timestamp> = None;
    let mut ticked_days = BTreeSet::new();
    let mut joined = HashSet::new();
    let mut ids = HashSet::new();
    for (n, e) in events.iter().enumerate() {
        let line = n + 1;
        e.check().map_err(|v| format!("line {line}: {v}"))?;
        if let Some(prev) = last {
            if e.at < prev {
                return Err(format!("line {line}: time-order ({} after {prev})", e.at));
            }
        }
        if let Some(id) = &e.id {
            if !ids.insert(id.clone()) {
                return Err(format!("line {line}: id {id} repeated"));
            }
        }
        match &e.body {
            Body::MidnightTick => {
                if !e.at.is_midnight() {
                    return Err(format!("line {line}: tick at {}", e.at));
                }
                if last == Some(e.at) {
                    return Err(format!("line {line}: tick after another event at {}", e.at));
                }
                if !ticked_days.insert(e.at.day()) {
                    return Err(format!("line {line}: second tick for {}", e.at));
                }
            }
            Body::PlayerJoined { player, .. } => {
                if !joined.insert(player.clone()) {
                    return Err(format!("line {line}: {player} joins twice"));
                }
            }
            Body::QueueTimeout { player } => {
                if !joined.contains(player) {
                    return Err(format!("line {line}: timeout of {player} before joining"));
                }
            }
            Body::MatchResult { seats } => {
                if e.id.is_none() {
                    return Err(format!("line {line}: a match without an id"));
                }
                for s in seats {
                    if !joined.contains(&s.player) {
                        return Err(format!("line {line}: {} plays before joining", s.player));
                    }
                }
            }
            Body::MatchVoided { .. } => return Err(format!("line {line}: the sim voids nothing")),
        }
        last = Some(e.at);
    }
    Ok(())
}

#[test]
fn every_ladder_follows_the_append_rules() {
    for params in ladders() {
        let (events, _) = run(&params);
        assert!(!events.is_empty());
        if let Err(e) = check_history(&events) {
            panic!("{params:?}: {e}");
        }
    }
}

#[test]
fn a_midnight_passes_between_events_only_with_its_tick() {
    // The simulator writes every tick itself: a day boundary crossed between two consecutive
    // events always has its MidnightTick, so `--ticks` on import would add nothing.
    for params in ladders() {
        let (events, _) = run(&params);
        for w in events.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if b.at.day() > a.at.day() {
                assert_eq!(b.body, Body::MidnightTick, "{params:?}: {} -> {}", a.at, b.at);
                assert_eq!(b.at.day(), a.at.day() + 1, "{params:?}: a day without tick");
            }
        }
        assert!(!matches!(events.last().unwrap().body, Body::MidnightTick));
    }
}

#[test]
fn the_model_catches_what_it_checks() {
    // The checker above is only worth something if it refuses broken histories.
    let (events, _) = run(&crate::SimParams::new(10, 300, 9));
    let tick = events.iter().position(|e| e.body == Body::MidnightTick).unwrap();
    let mut swapped = events.clone();
    swapped.swap(tick - 1, tick);
    assert!(check_history(&swapped).is_err(), "time order or tick-first");
    let mut dup = events.clone();
    dup.push(
        dup.iter().rev().find(|e| matches!(e.body, Body::MatchResult { .. })).unwrap().clone(),
    );
    assert!(check_history(&dup).unwrap_err().contains("repeated"));
    let first_match = events.iter().position(|e| matches!(e.body, Body::MatchResult { .. }));
    let mut early = events.clone();
    let m = early.remove(first_match.unwrap());
    early.insert(0, Event { at: early[0].at, ..m });
    assert!(check_history(&early).unwrap_err().contains("before joining"));
}
