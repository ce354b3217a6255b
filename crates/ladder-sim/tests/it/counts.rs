//! Counts and bookkeeping: exactly M matches, N joins, ids, the truth against the events, the
//! parameters' effects (draws, idling, drift) and the refusals.

use crate::{ladders, run};
use ladder_events::{Body, Event, Timestamp};
use ladder_sim::{simulate, SimError, SimParams};
use std::collections::BTreeMap;

fn matches(events: &[Event]) -> impl Iterator<Item = (&Event, &[ladder_events::Seat])> {
    events.iter().filter_map(|e| match &e.body {
        Body::MatchResult { seats } => Some((e, seats.as_slice())),
        _ => None,
    })
}

#[test]
fn exactly_m_matches_and_n_joins_with_sequential_ids() {
    for p in ladders() {
        let (events, _) = run(&p);
        let ids: Vec<&str> = matches(&events).map(|(e, _)| e.id.as_deref().unwrap()).collect();
        assert_eq!(ids.len() as u64, p.matches, "{p:?}");
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(*id, format!("s{}-m{}", p.seed, n + 1));
        }
        let joins: Vec<&str> = events
            .iter()
            .filter_map(|e| match &e.body {
                Body::PlayerJoined { player, .. } => Some(player.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(joins.len() as u32, p.players, "{p:?}");
        let width = p.players.to_string().len();
        let expected: Vec<String> = (1..=p.players).map(|i| format!("p{i:0width$}")).collect();
        assert_eq!(joins, expected, "players join in number order, names sort by bytes");
        // The stream ends with the last match.
        assert!(matches!(events.last().unwrap().body, Body::MatchResult { .. }));
    }
}

#[test]
fn truth_matches_the_players_and_their_games() {
    for p in ladders() {
        let (events, truth) = run(&p);
        let mut games: BTreeMap<&str, u64> = BTreeMap::new();
        let mut joined: BTreeMap<&str, Timestamp> = BTreeMap::new();
        for e in &events {
            match &e.body {
                Body::PlayerJoined { player, .. } => {
                    joined.insert(player, e.at);
                }
                Body::MatchResult { seats } => {
                    for s in seats {
                        *games.entry(&s.player).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
        assert_eq!(truth.len(), joined.len());
        let last = events.last().unwrap().at;
        for t in &truth {
            assert_eq!(Some(&t.joined), joined.get(t.player.as_str()), "{}", t.player);
            assert_eq!(t.matches, games.get(t.player.as_str()).copied().unwrap_or(0));
            assert_eq!(t.at, last);
            assert!(t.skill.is_finite() && t.initial.is_finite());
            if p.drift_sd == 0.0 {
                assert_eq!(t.skill, t.initial);
            }
        }
        assert!(truth.windows(2).all(|w| w[0].player < w[1].player), "sorted by name");
        if p.drift_sd > 0.0 {
            assert!(truth.iter().any(|t| t.skill != t.initial), "skills drift");
        }
    }
}

#[test]
fn draws_come_at_the_documented_rate() {
    for (rate, n) in [(0.0, 0), (0.05, 20_000), (0.5, 20_000)] {
        let mut p = SimParams::new(300, n.max(5_000), 11);
        p.draw_rate = rate;
        let (events, _) = run(&p);
        let draws = matches(&events).filter(|(_, s)| s[0].score == 0.5).count() as f64;
        let m = p.matches as f64;
        let sd = (m * rate * (1.0 - rate)).sqrt();
        assert!((draws - m * rate).abs() <= 4.0 * sd, "rate {rate}: {draws} draws of {m}");
        for (_, s) in matches(&events) {
            assert_eq!(s[0].score + s[1].score, 1.0);
            assert_eq!(s[0].seconds, s[1].seconds);
            let secs = s[0].seconds.unwrap();
            assert!((300.0..=1200.0).contains(&secs) && secs.fract() == 0.0);
        }
    }
}

#[test]
fn players_go_idle_and_come_back() {
    let p = SimParams::new(100, 10_000, 12);
    let (events, _) = run(&p);
    // For each player, the longest stretch between two of their events (joins, games, timeouts).
    let mut last: BTreeMap<&str, Timestamp> = BTreeMap::new();
    let mut longest: BTreeMap<&str, i64> = BTreeMap::new();
    for e in &events {
        for player in e.players() {
            if let Some(prev) = last.insert(player, e.at) {
                let gap = e.at.day() - prev.day();
                let g = longest.entry(player).or_default();
                *g = (*g).max(gap);
            }
        }
    }
    let idle = longest.values().filter(|&&g| g >= 10).count();
    assert!(idle >= 50, "only {idle} of 100 players had a 10-day break");
    // ... and the ladder is busy: with 20-day idle spells after 30-day active ones, most players
    // are seen in the last month.
    let end = events.last().unwrap().at.day();
    let recent = last.values().filter(|t| end - t.day() <= 30).count();
    assert!(recent >= 50, "only {recent} players seen in the last 30 days");
}

#[test]
fn no_matches_is_every_join_at_the_start() {
    let p = SimParams::new(7, 0, 1);
    let (events, truth) = run(&p);
    assert_eq!(events.len(), 7);
    assert!(events.iter().all(|e| e.at == p.start && matches!(e.body, Body::PlayerJoined { .. })));
    assert_eq!(truth.len(), 7);
}

#[test]
fn the_span_is_about_the_days_asked_for() {
    for days in [30.0, 365.0] {
        let mut p = SimParams::new(1_000, 30_000, 13);
        p.days = days;
        let (events, _) = run(&p);
        let span = (events.last().unwrap().at.0 - p.start.0) as f64 / 86_400e9;
        assert!(span > 0.7 * days && span < 1.3 * days, "asked {days} days, got {span}");
    }
}

#[test]
fn parameters_out_of_range_are_refused() {
    let refused = |f: &dyn Fn(&mut SimParams)| {
        let mut p = SimParams::new(10, 100, 1);
        f(&mut p);
        simulate(&p).unwrap_err()
    };
    let field = |e: SimError| match e {
        SimError::Invalid { field, .. } => field,
        other => panic!("{other}"),
    };
    assert_eq!(field(refused(&|p| p.players = 1)), "players");
    assert_eq!(field(refused(&|p| p.draw_rate = 1.0)), "draw_rate");
    assert_eq!(field(refused(&|p| p.days = 0.0)), "days");
    assert_eq!(field(refused(&|p| p.join_window = f64::NAN)), "join_window");
    assert_eq!(field(refused(&|p| p.skill_sd = -1.0)), "skill_sd");
    assert_eq!(field(refused(&|p| p.active_days = 0.0)), "active_days");
    assert_eq!(field(refused(&|p| p.game_seconds = (600, 300))), "game_seconds");
    let e = refused(&|p| {
        p.players = 2;
        p.matches = 30_000_000_000;
    });
    assert!(matches!(e, SimError::TooLong { .. }), "{e}");
    assert!(e.to_string().contains("cannot finish before 2262"), "{e}");
    let e = refused(&|p| p.start = Timestamp::parse("2262-02-01").unwrap());
    assert!(matches!(e, SimError::TooLong { .. }));
}
