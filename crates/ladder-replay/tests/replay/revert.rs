//! Regression to the mean between seasons (docs/spec.md, `revert` and `revert_after`) in every
//! algorithm that has it: at a player's first game after an absence of at least `revert_after`,
//! the rating the game starts from (as the algorithm's trace records it) is the rating after
//! their last game moved `revert` of the way back to the initial rating; after a shorter
//! absence, or with `revert=0`, it is that rating unchanged. Elo's whole update with reversion is
//! checked against a plain implementation in ladder-elo's tests.

use ladder_events::{json::parse_line, Event};
use ladder_projector::{fold_all, Feeder, PlayerId, Projector, Trace, TraceEntry};
use ladder_replay::registry;

/// (algorithm, constants, the traced name of the rating a game starts from, that name's value
/// for a rating r, the initial rating).
type Case = (&'static str, &'static str, &'static str, fn(f64) -> f64, f64);

const CASES: &[Case] = &[
    ("elo", "", "r", |r| r, 1500.0),
    ("tgr", "", "Player1.Rating", |r| r, 1500.0),
    ("tgr", "order=simultaneous", "Player1.Rating", |r| r, 1500.0),
    ("glicko", "period=game", "r", |r| r, 1500.0),
    ("glicko", "period=5d", "r", |r| r, 1500.0),
    ("glicko2", "period=game", "mu", |r| (r - 1500.0) / 173.7178, 1500.0),
    ("glicko2", "period=10d", "mu", |r| (r - 1500.0) / 173.7178, 1500.0),
    ("weng-lin", "", "mu", |r| r, 25.0),
];

/// Joins on day 0 (a with a prior above the initial rating), a game on day 0, the second game
/// `gap` days later, and a join `gap + 30` days on (which closes a rating period still open).
fn history(initial: f64, gap: u32) -> Vec<Event> {
    let day = |d: u32| {
        let t = ladder_events::Timestamp(
            i64::from(d) * ladder_events::NANOS_PER_DAY
                + ladder_events::Timestamp::parse("2026-01-01").unwrap().0,
        );
        let mut out = Vec::new();
        t.write_rfc3339(&mut out);
        String::from_utf8(out).unwrap()
    };
    let a = initial * 1.1;
    [
        format!(r#"{{"type":"PlayerJoined","at":"{}","player":"a","rating":{a}}}"#, day(0)),
        format!(r#"{{"type":"PlayerJoined","at":"{}","player":"b"}}"#, day(0)),
        format!(r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"a","score":1}},{{"player":"b","score":0}}]}}"#, day(0)),
        format!(r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"a","score":0}},{{"player":"b","score":1}}]}}"#, day(gap)),
        format!(r#"{{"type":"PlayerJoined","at":"{}","player":"c"}}"#, day(gap + 30)),
    ]
    .iter()
    .map(|l| parse_line(l).unwrap())
    .collect()
}

fn build(algo: &str, sets: &str, extra: &str) -> registry::Algo {
    let mut pairs = ladder_projector::Config::parse_assignments(sets).unwrap();
    pairs.extend(ladder_projector::Config::parse_assignments(extra).unwrap());
    registry::build(registry::config(algo, &pairs).unwrap()).unwrap()
}

/// The last value of `name` traced for `player` while the events after the first game are
/// applied (the second game, and the join that closes its period): the second game's.
fn traced_start(
    algo: &str,
    sets: &str,
    extra: &str,
    events: &[Event],
    name: &str,
    player: u32,
) -> f64 {
    let mut p = build(algo, sets, extra);
    let mut feeder = Feeder::new();
    let mut trace = Trace::new();
    for (i, e) in events.iter().enumerate() {
        let t = if i >= 3 { Some(&mut trace) } else { None };
        feeder.feed(i as u64 + 1, e, &|_| false, &mut [&mut p], t).unwrap();
    }
    trace
        .entries
        .iter()
        .rev()
        .find_map(|e| match e {
            TraceEntry::Quantity { player: Some(who), name: n, value, .. }
                if *who == PlayerId(player) && n == name =>
            {
                Some(*value)
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("{algo} {sets}: no {name} traced for #{player}"))
}

#[test]
fn the_first_game_after_a_long_absence_starts_from_a_reverted_rating() {
    for &(algo, sets, name, scale, initial) in CASES {
        for gap in [200u32, 60] {
            let events = history(initial, gap);
            // The ratings after the first game, as the standings report them right after it.
            let mut first = build(algo, sets, "");
            fold_all(&events[..3], &mut first).unwrap();
            let after: Vec<f64> = first.standings().iter().map(|s| s.rating).collect();
            for (player, &r) in after.iter().enumerate() {
                let what = format!("{algo} {sets} gap {gap} player {player}");
                let plain = traced_start(algo, sets, "revert=0", &events, name, player as u32);
                let half = traced_start(
                    algo,
                    sets,
                    "revert=0.5,revert_after=90d",
                    &events,
                    name,
                    player as u32,
                );
                assert!((plain - scale(r)).abs() < 1e-9, "{what}: {plain} vs {}", scale(r));
                let want = if gap >= 90 { scale(r + 0.5 * (initial - r)) } else { scale(r) };
                assert!((half - want).abs() < 1e-9, "{what}: {half} vs {want}");
            }
        }
    }
}
