//! Numeric extremes for every projector: priors of ±1e6 (and the ends of f64), RD at 1e-6, at
//! `rd_max` and beyond it, volatilities at both ends, every numeric constant at both ends of its
//! range, 10,000 games in one rating period, and a player who only ever wins.
//!
//! The promise checked (docs/GUARANTEES.md): a replay never reports NaN or infinity and never
//! hangs. It ends either in a finite state (every rating, RD and volatility finite, RDs and
//! volatilities positive, every expectation in [0, 1]) or in a typed [`ProjectError`] naming an
//! event of the history. Loops are bounded inside the projectors (an iteration that does not
//! converge is `NoConvergence`), so "no hang" is this test finishing at all.
// std's maths as an independent oracle for what ladder computes through ladder_projector::math.
#![allow(clippy::disallowed_methods)]

use crate::Memory;
use ladder_events::{json::parse_line, Event, Prior, Timestamp};
use ladder_projector::{fold_all, ParamKind, ProjectError, ProjectErrorKind, Projector};
use ladder_replay::{registry, replay, Options, ReplayError};
use proptest::prelude::*;

/// How one replay ended.
#[derive(Debug)]
enum Outcome {
    Finite,
    Typed(ProjectError),
    /// The constants were refused before any event was applied.
    Refused,
}

/// Builds `algorithm` with `sets` and folds `events` through the reference driver, then checks the
/// promise: a finite state or a typed error naming one of the events.
fn run(algorithm: &str, sets: &[(String, String)], events: &[Event]) -> Outcome {
    let Ok(config) = registry::config(algorithm, sets) else { return Outcome::Refused };
    let Ok(mut p) = registry::build(config) else { return Outcome::Refused };
    let what = format!("{algorithm} {sets:?}");
    match fold_all(events, &mut p) {
        Err(e) => {
            assert!(1 <= e.seq && e.seq <= events.len() as u64, "{what}: {e} names no event");
            assert!(e.to_string().starts_with(&format!("event {}: ", e.seq)), "{what}: {e}");
            Outcome::Typed(e)
        }
        Ok(roster) => {
            let standings = p.standings();
            assert_eq!(standings.len(), roster.len(), "{what}: a player is missing");
            for s in &standings {
                let who = format!("{what}: {} {s:?}", roster.name(s.player));
                assert!(s.rating.is_finite(), "{who}");
                assert!(s.rd.is_none_or(|rd| rd.is_finite() && rd > 0.0), "{who}");
                assert!(s.volatility.is_none_or(|v| v.is_finite() && v > 0.0), "{who}");
                assert!(s.display.is_none_or(|d| d.glixare.is_none_or(f64::is_finite)), "{who}");
            }
            let after = Timestamp(events.last().map_or(0, |e| e.at.0) + 1);
            for a in &standings {
                for b in &standings {
                    let e = p.expectation(a.player, b.player, after);
                    assert!((0.0..=1.0).contains(&e), "{what}: expectation {e}");
                }
            }
            Outcome::Finite
        }
    }
}

/// A prior in JSON (`"rating":1e6,...`), empty for none.
fn prior_json(p: &Prior) -> String {
    let mut out = String::new();
    for (k, v) in [("rating", p.rating), ("rd", p.rd), ("volatility", p.volatility)] {
        if let Some(v) = v {
            out.push_str(&format!(r#","{k}":{v:e}"#));
        }
    }
    out
}

/// A small ladder touching every kind of step: `a` joins with `prior`, `b` and `c` without;
/// games within one day, across days and a month, a three-seat match, a draw, a timeout, explicit
/// ticks, times for ZoneStats; the last game alone in the last rating period.
fn ladder(prior: &Prior) -> Vec<Event> {
    let p = prior_json(prior);
    let text = format!(
        r#"{{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"a"{p}}}
{{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"b"}}
{{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"c"}}
{{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{{"player":"a","score":1,"seconds":600}},{{"player":"b","score":0,"seconds":600}}]}}
{{"type":"MatchResult","at":"2026-03-01T11:00:00Z","seats":[{{"player":"b","score":1}},{{"player":"a","score":0}}]}}
{{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}}
{{"type":"QueueTimeout","at":"2026-03-02T08:00:00Z","player":"c"}}
{{"type":"MatchResult","at":"2026-03-04T12:00:00Z","seats":[{{"player":"c","score":3}},{{"player":"a","score":2}},{{"player":"b","score":2}}]}}
{{"type":"MatchResult","at":"2026-03-04T13:00:00Z","seats":[{{"player":"a","score":0.5}},{{"player":"c","score":0.5}}]}}
{{"type":"MatchResult","at":"2026-04-01T12:00:00Z","seats":[{{"player":"a","score":1}},{{"player":"c","score":0}}]}}
"#
    );
    text.lines().map(|l| parse_line(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

/// Priors at the extremes the issue names, and the ends of f64 beyond them.
fn extreme_priors() -> Vec<Prior> {
    let rating = |r| Prior { rating: Some(r), rd: None, volatility: None };
    let rd = |r| Prior { rating: None, rd: Some(r), volatility: None };
    let vol = |v| Prior { rating: None, rd: None, volatility: Some(v) };
    vec![
        Prior::default(),
        rating(1e6),
        rating(-1e6),
        rating(1e300),
        rating(-1e300),
        rd(1e-6),
        rd(350.0), // every algorithm's default rd_max
        rd(1e6),   // beyond rd_max
        rd(1e300),
        rd(1e-300),
        vol(1e-6),
        vol(1e-300),
        vol(10.0),
        vol(1e300),
        Prior { rating: Some(1e6), rd: Some(1e-6), volatility: Some(1e-6) },
        Prior { rating: Some(-1e6), rd: Some(1e6), volatility: Some(1e6) },
    ]
}

/// The ends of one numeric constant's range: the end itself when inclusive, else the nearest
/// value a user can write (1e-300 above 0), and ±1e300 where the range is open.
fn ends(kind: ParamKind) -> Vec<String> {
    match kind {
        ParamKind::Number { min, min_inclusive, max, max_inclusive } => {
            let lo = if min == f64::NEG_INFINITY {
                -1e300
            } else if min_inclusive {
                min
            } else if min == 0.0 {
                1e-300
            } else {
                min + min.abs() * 1e-15
            };
            let hi = if max == f64::INFINITY {
                1e300
            } else if max_inclusive {
                max
            } else {
                max - max.abs() * 1e-15
            };
            // Also the near ends a real configuration might use, where they are in range.
            let mut v = vec![lo, hi, 1e-6, -1e6, 1e6];
            v.retain(|x| lo <= *x && *x <= hi);
            v.dedup();
            v.into_iter().map(|x| format!("{x:e}")).collect()
        }
        ParamKind::Choice(words) => words.iter().map(|w| w.to_string()).collect(),
        ParamKind::Period => vec!["game".into(), "1s".into(), "520w".into()],
        ParamKind::Duration => vec!["1s".into(), "520w".into()],
    }
}

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn extreme_priors_give_a_finite_state_or_a_typed_error() {
    let mut counts = [0usize; 3];
    for prior in extreme_priors() {
        let events = ladder(&prior);
        for algorithm in registry::ALGORITHMS {
            match run(algorithm, &[], &events) {
                Outcome::Finite => counts[0] += 1,
                Outcome::Typed(_) => counts[1] += 1,
                Outcome::Refused => panic!("{algorithm}: the defaults were refused"),
            }
        }
    }
    // Every default configuration copes with ordinary priors, so some runs end finite; the
    // issue's ±1e6 ratings are beyond what TGR's and Glicko-2's formulas can take (an
    // expectation rounds to exactly 0 or 1), so some end in typed errors.
    assert!(counts[0] > 0 && counts[1] > 0, "finite, typed: {counts:?}");
    eprintln!("extreme priors: {} finite, {} typed errors", counts[0], counts[1]);
}

#[test]
fn every_constant_at_the_ends_of_its_range_gives_a_finite_state_or_a_typed_error() {
    let mut counts = [0usize; 3];
    let priors = [
        Prior::default(),
        Prior { rating: Some(1e6), rd: Some(1e-6), volatility: Some(1e-6) },
        Prior { rating: Some(-1e6), rd: Some(1e6), volatility: Some(1e6) },
    ];
    for algorithm in registry::ALGORITHMS {
        for spec in registry::params(algorithm).unwrap() {
            for value in ends(spec.kind) {
                // A small rd_max needs an initial_rd at most that (the constructor says so).
                let mut with = vec![(spec.key, value.as_str())];
                if spec.key == "rd_max" {
                    with.push(("initial_rd", value.as_str()));
                }
                for prior in &priors {
                    match run(algorithm, &sets(&with), &ladder(prior)) {
                        Outcome::Finite => counts[0] += 1,
                        Outcome::Typed(_) => counts[1] += 1,
                        Outcome::Refused => counts[2] += 1,
                    }
                }
            }
        }
    }
    assert!(counts[0] > 0, "finite, typed, refused: {counts:?}");
    eprintln!(
        "constants at their ends: {} finite, {} typed errors, {} refused",
        counts[0], counts[1], counts[2]
    );
}

/// The issue's named ends, one by one, each with the outcome it must have.
#[test]
fn glicko2_tau_sigma_and_epsilon_at_their_ends() {
    let plain = ladder(&Prior::default());
    for (k, v) in
        [("tau", "1e-6"), ("tau", "1e6"), ("sigma", "1e-6"), ("sigma", "10"), ("epsilon", "1e300")]
    {
        assert!(matches!(run("glicko2", &sets(&[(k, v)]), &plain), Outcome::Finite), "{k}={v}");
    }
    // tau = 1e-300 squares to 0: step 5.1's f(x) divides by it. A typed error, at the event that
    // closed the first period (a daily period, set here: the MidnightTick of March 2nd, event 6).
    let Outcome::Typed(e) = run("glicko2", &sets(&[("tau", "1e-300"), ("period", "1d")]), &plain)
    else {
        panic!("tau=1e-300 did not fail")
    };
    assert_eq!(e.seq, 6, "{e}");
    assert!(matches!(e.kind, ProjectErrorKind::NonFinite { quantity: "a", .. }), "{e}");
    // epsilon = 1e-300 is below what f64 can resolve near ln(sigma^2): the bounded iteration
    // reports it instead of looping.
    let Outcome::Typed(e) = run("glicko2", &sets(&[("epsilon", "1e-300")]), &plain) else {
        panic!("epsilon=1e-300 did not fail")
    };
    assert!(matches!(e.kind, ProjectErrorKind::NoConvergence { .. }), "{e}");
}

/// Two players, `winner` beats `loser` 10,000 times within one week: one rating period for Glicko
/// and Glicko-2 (`period=1w`), 10,000 updates for the others.
fn only_wins(games: usize) -> Vec<Event> {
    let mut lines = vec![
        r#"{"type":"PlayerJoined","at":"2026-03-02T00:00:01Z","player":"loser"}"#.to_string(),
        r#"{"type":"PlayerJoined","at":"2026-03-02T00:00:01Z","player":"winner"}"#.to_string(),
    ];
    let start = parse_line(&lines[0]).unwrap().at.0;
    for i in 0..games {
        let at = Timestamp(start + (i as i64 + 1) * 50 * 1_000_000_000);
        lines.push(format!(
            r#"{{"type":"MatchResult","at":"{at}","seats":[{{"player":"winner","score":1}},{{"player":"loser","score":0}}]}}"#
        ));
    }
    lines.iter().map(|l| parse_line(l).unwrap()).collect()
}

#[test]
fn ten_thousand_games_in_one_period_and_a_player_who_only_wins() {
    let events = only_wins(10_000);
    // 2026-03-02 is a Monday: periods of a week from the 1970 epoch (a Thursday) start on
    // Thursdays, and 10,000 games 50 s apart take under six days, so the two Glicko runs below
    // may straddle one boundary: they use a 520-week period to hold every game in one.
    for (algorithm, with) in [
        ("tgr", vec![]),
        ("glicko", vec![("period", "520w")]),
        ("glicko2", vec![("period", "520w")]),
        ("elo", vec![]),
        ("zonestats", vec![]),
        ("performance", vec![]),
    ] {
        let config = registry::config(algorithm, &sets(&with)).unwrap();
        let mut p = registry::build(config).unwrap();
        let roster = fold_all(&events, &mut p).unwrap_or_else(|e| panic!("{algorithm}: {e}"));
        let s = p.standings();
        let (loser, winner) = (&s[0], &s[1]);
        assert_eq!(roster.name(winner.player), "winner");
        for x in [winner, loser] {
            assert!(x.rating.is_finite(), "{algorithm}: {x:?}");
            assert!(x.rd.is_none_or(|rd| rd.is_finite() && rd > 0.0), "{algorithm}: {x:?}");
            assert!(x.volatility.is_none_or(|v| v.is_finite() && v > 0.0), "{algorithm}: {x:?}");
            assert_eq!(x.games, 10_000, "{algorithm}");
        }
        // Properties that must hold: the winner ends above the loser, and the model expects
        // the winner to win again.
        assert!(winner.rating > loser.rating, "{algorithm}: {winner:?} {loser:?}");
        let e = p.expectation(winner.player, loser.player, Timestamp(i64::MAX / 2));
        assert!(e > 0.5 && e <= 1.0, "{algorithm}: expectation {e}");
    }
}

/// Every performance variant on a player who only wins (the Arimaa README: p1 has no finite rating
/// for all wins), and every other algorithm under each of its choices: finite or a typed error.
#[test]
fn a_player_who_only_wins_under_every_choice_of_every_algorithm() {
    let events = only_wins(50);
    let (mut finite, mut typed) = (0, 0);
    for algorithm in registry::ALGORITHMS {
        for spec in registry::params(algorithm).unwrap() {
            let ParamKind::Choice(words) = spec.kind else { continue };
            for word in words {
                match run(algorithm, &sets(&[(spec.key, word)]), &events) {
                    Outcome::Finite => finite += 1,
                    Outcome::Typed(_) => typed += 1,
                    Outcome::Refused => panic!("{algorithm} {}={word} refused", spec.key),
                }
            }
        }
    }
    assert!(finite > 0, "finite {finite}, typed {typed}");
    eprintln!("only wins, every choice: {finite} finite, {typed} typed errors");
}

/// Found by these tests: Glicko and Glicko-2 compute the last rating period on the side when
/// standings are asked for, and when that arithmetic failed they silently reported the period as
/// never played (`a` joined at 1e6 and lost, yet kept 1e6). Now the replay settles each projector
/// at its end and reports the failure, naming the last event.
#[test]
fn a_last_period_that_cannot_close_is_an_error_not_a_period_left_out() {
    let text = r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"a","rating":1e6}
{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"b"}
{"type":"MatchResult","at":"2026-03-01T10:00:00Z","seats":[{"player":"b","score":1},{"player":"a","score":0}]}"#;
    let events: Vec<Event> = text.lines().map(|l| parse_line(l).unwrap()).collect();
    let config = registry::config("glicko2", &[]).unwrap();
    // The reference driver.
    let mut p = registry::build(config.clone()).unwrap();
    let e = fold_all(&events, &mut p).unwrap_err();
    assert_eq!(e.seq, 3, "{e}");
    assert!(matches!(e.kind, ProjectErrorKind::NonFinite { quantity: "v", .. }), "{e}");
    // The streaming driver, as `ladder replay` runs it.
    let history = Memory::new(events);
    let mut p = registry::build(config).unwrap();
    let err = replay(&history, &mut [&mut p], Options::default(), &mut |_| {}).unwrap_err();
    let ReplayError::Project(e) = err else { panic!("{err}") };
    assert_eq!(e.seq, 3);
    // Glicko-1 with an RD so small that 1/RD*^2 overflows, in the last period.
    let tiny = text.replace(r#""rating":1e6"#, r#""rd":1e-300"#);
    let events: Vec<Event> = tiny.lines().map(|l| parse_line(l).unwrap()).collect();
    let mut p = registry::build(registry::config("glicko", &[]).unwrap()).unwrap();
    assert_eq!(fold_all(&events, &mut p).unwrap_err().seq, 3);
}

fn any_prior() -> impl Strategy<Value = Prior> {
    let rating = prop_oneof![Just(None), (-1e6..1e6f64).prop_map(Some)];
    let rd = prop_oneof![Just(None), (-6.0..6.0f64).prop_map(|e| Some(10f64.powf(e)))];
    let vol = prop_oneof![Just(None), (-6.0..2.0f64).prop_map(|e| Some(10f64.powf(e)))];
    (rating, rd, vol).prop_map(|(rating, rd, volatility)| Prior { rating, rd, volatility })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random priors for the three players within the issue's ranges, and random results, under
    /// every algorithm: a finite state or a typed error naming an event.
    #[test]
    fn random_extreme_ladders_give_a_finite_state_or_a_typed_error(
        priors in proptest::collection::vec(any_prior(), 3),
        results in proptest::collection::vec((0usize..3, 1usize..3, 0u32..3, 0i64..5), 1..30),
    ) {
        let names = ["a", "b", "c"];
        let mut lines: Vec<String> = names
            .iter()
            .zip(&priors)
            .map(|(n, p)| {
                format!(
                    r#"{{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"{n}"{}}}"#,
                    prior_json(p)
                )
            })
            .collect();
        let mut t = parse_line(&lines[0]).unwrap().at.0;
        for (a, d, score, days) in results {
            let b = (a + d) % 3;
            t += days * 86_400_000_000_000 + 60_000_000_000;
            let s = f64::from(score) / 2.0;
            lines.push(format!(
                r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"{}","score":{s}}},{{"player":"{}","score":{}}}]}}"#,
                Timestamp(t),
                names[a],
                names[b],
                1.0 - s
            ));
        }
        let events: Vec<Event> = lines.iter().map(|l| parse_line(l).unwrap()).collect();
        for algorithm in registry::ALGORITHMS {
            let outcome = run(algorithm, &[], &events);
            prop_assert!(!matches!(outcome, Outcome::Refused));
        }
    }
}
