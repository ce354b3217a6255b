//! `--predict-from day` (docs/outputs.md): every two-seat match predicted from the state before
//! its UTC day, the day's joins applied, while the ratings themselves fold every event in order.
//! A hand-built Elo history where the two modes differ, worked by hand; every algorithm ends with
//! the same snapshot either way; TTT, whose forecasts are from before the day by definition,
//! scores the same either way.
// std's ln and powf for the hand calculations: an outside source, not ladder's arithmetic.
#![allow(clippy::disallowed_methods)]

use ladder_events::json::parse_line;
use ladder_projector::Projector;
use ladder_replay::{registry, replay_algos, replay_by_day, Snapshot, Until};

fn memory(lines: &[&str]) -> crate::Memory {
    crate::Memory::new(lines.iter().map(|l| parse_line(l).unwrap()).collect())
}

/// a and b join on 1 March; on 2 March a beats b at 10:00, c joins at 11:00 with a prior of 1600
/// and a beats c at 12:00; on 3 March c beats b.
const HISTORY: &[&str] = &[
    r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"a"}"#,
    r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"b"}"#,
    r#"{"type":"MatchResult","at":"2026-03-02T10:00:00Z","seats":[{"player":"a","score":1},{"player":"b","score":0}]}"#,
    r#"{"type":"PlayerJoined","at":"2026-03-02T11:00:00Z","player":"c","rating":1600}"#,
    r#"{"type":"MatchResult","at":"2026-03-02T12:00:00Z","seats":[{"player":"a","score":1},{"player":"c","score":0}]}"#,
    r#"{"type":"MatchResult","at":"2026-03-03T08:00:00Z","seats":[{"player":"c","score":1},{"player":"b","score":0}]}"#,
];

fn elo(k: &str) -> Vec<registry::Algo> {
    let sets = [("k".to_string(), k.to_string())];
    vec![registry::build(registry::config("elo", &sets).unwrap()).unwrap()]
}

#[test]
fn elo_predicts_a_days_matches_from_before_the_day_by_hand() {
    let history = memory(HISTORY);
    let e = |d: f64| 1.0 / (1.0 + 10f64.powf(-d / 400.0));
    // Event mode (the default), K = 20:
    //   match 1: 1500 v 1500, E = 1/2; a 1510, b 1490.
    //   match 2: a 1510 v c 1600, E_a = e(-90) = 0.3729...; a wins: a += 20 (1 - E_a), c -= the same.
    //   match 3: c v b 1490 from the ratings after match 2.
    let e2 = e(-90.0);
    let (a2, c2) = (1510.0 + 20.0 * (1.0 - e2), 1600.0 - 20.0 * (1.0 - e2));
    let e3 = e(c2 - 1490.0);
    let event = -((0.5f64).ln() + e2.ln() + e3.ln()) / 3.0;
    // Day mode: match 1 and match 2 are both predicted from the state before 2 March, where a is
    // 1500 and c (who joined that day) is at their prior of 1600: E = 1/2 and E_a = e(-100).
    // Match 3 is predicted from the state before 3 March, which has both of 2 March's matches:
    // the same ratings as in event mode, so the same E.
    let day = -((0.5f64).ln() + e(-100.0).ln() + e3.ln()) / 3.0;
    assert!((event - day).abs() > 1e-3, "the two modes must differ here");
    let mut p = elo("20");
    let by_event = replay_algos(&history, &mut p, Until::Head, Some(0), 1).unwrap();
    let mut q = elo("20");
    let by_day = replay_by_day(&history, &mut q, Until::Head, 0).unwrap();
    let (le, ld) = (by_event.scores[0].log_loss().unwrap(), by_day.scores[0].log_loss().unwrap());
    assert!((le - event).abs() < 1e-12, "event mode: {le} vs {event}");
    assert!((ld - day).abs() < 1e-12, "day mode: {ld} vs {day}");
    assert_eq!(by_day.scores[0].matches, 3);
    // The ratings are folded in order either way: a is 1510 + 20 (1 - E_a) in both.
    let sp = Snapshot::capture(&p[0], &by_event.roster, by_event.through, &by_event.head);
    let sq = Snapshot::capture(&q[0], &by_day.roster, by_day.through, &by_day.head);
    assert_eq!(sp.to_json(), sq.to_json());
    assert!((p[0].standings()[0].rating - a2).abs() < 1e-9);
    // The warm-up counts matches the same way in both modes: with one left out, day mode scores
    // matches 2 and 3.
    let mut r = elo("20");
    let warm = replay_by_day(&history, &mut r, Until::Head, 1).unwrap();
    let want = -(e(-100.0).ln() + e3.ln()) / 2.0;
    assert!((warm.scores[0].log_loss().unwrap() - want).abs() < 1e-12);
}

/// A history of 200 two-seat matches among 10 players over 40 days, several a day (some with a
/// seat at home), joins spread over the first days, from a fixed linear congruential sequence.
fn busy_days() -> crate::Memory {
    let mut x: u64 = 0x853c_49e6_748f_ea9b;
    let mut next = |n: u64| {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % n
    };
    let stamp = |hours: u64| {
        let t = ladder_events::Timestamp(
            ladder_events::Timestamp::parse("2026-01-01").unwrap().0
                + hours as i64 * (ladder_events::NANOS_PER_DAY / 24),
        );
        let mut out = Vec::new();
        t.write_rfc3339(&mut out);
        String::from_utf8(out).unwrap()
    };
    let mut lines = Vec::new();
    let mut joined = 0u64;
    for g in 0..200u64 {
        let hours = g * 24 * 40 / 200 + next(3);
        while joined < 10 && (joined < 2 || next(3) == 0) {
            lines.push(format!(
                r#"{{"type":"PlayerJoined","at":"{}","player":"p{joined}"}}"#,
                stamp(hours)
            ));
            joined += 1;
        }
        let a = next(joined);
        let b = (a + 1 + next(joined - 1)) % joined;
        let (sa, sb) = [(1, 0), (0, 1), (1, 0), (1, 1)][next(4) as usize];
        let home = if next(3) == 0 { r#","home":true"# } else { "" };
        lines.push(format!(
            r#"{{"type":"MatchResult","at":"{}","seats":[{{"player":"p{a}","score":{sa}{home}}},{{"player":"p{b}","score":{sb}}}]}}"#,
            stamp(hours)
        ));
    }
    crate::Memory::new(lines.iter().map(|l| parse_line(l).unwrap()).collect())
}

/// (algorithm, constants, whether the two modes predict differently on [`busy_days`]).
const CASES: &[(&str, &str, bool)] = &[
    ("elo", "home=30", true),
    ("tgr", "home=30", true),
    ("glicko", "period=game,home=30", true),
    ("glicko2", "period=game,home=30", true),
    // With rating periods of whole days, the games of a period are rated together at its end,
    // which is a midnight: no rating moves within a day, so the modes coincide.
    ("glicko", "period=5d,home=30", false),
    ("glicko2", "period=1d,home=30", false),
    ("weng-lin", "home=1", true),
    ("zonestats", "", true),
    ("performance", "", true),
];

#[test]
fn every_algorithm_ends_with_the_same_ratings_either_way() {
    let history = busy_days();
    for &(algo, sets, differ) in CASES {
        let pairs = ladder_projector::Config::parse_assignments(sets).unwrap();
        let config = registry::config(algo, &pairs).unwrap();
        let mut p = vec![registry::build(config.clone()).unwrap()];
        let mut q = vec![registry::build(config).unwrap()];
        let a = replay_algos(&history, &mut p, Until::Head, Some(0), 1).unwrap();
        let b = replay_by_day(&history, &mut q, Until::Head, 0).unwrap();
        let sa = Snapshot::capture(&p[0], &a.roster, a.through, &a.head);
        let sb = Snapshot::capture(&q[0], &b.roster, b.through, &b.head);
        assert_eq!(sa.to_json(), sb.to_json(), "{algo} {sets}");
        assert_eq!(a.scores[0].matches, b.scores[0].matches, "{algo} {sets}");
        assert_eq!(a.scores[0] != b.scores[0], differ, "{algo} {sets}");
    }
}

#[test]
fn ttt_predicts_the_same_either_way() {
    let history = busy_days();
    let config = registry::config("ttt", &[]).unwrap();
    let mut p = vec![registry::build(config.clone()).unwrap()];
    let mut q = vec![registry::build(config).unwrap()];
    let a = replay_algos(&history, &mut p, Until::Head, Some(0), 1).unwrap();
    let b = replay_by_day(&history, &mut q, Until::Head, 0).unwrap();
    assert_eq!(a.scores[0], b.scores[0]);
    assert!(a.scores[0].matches > 150);
}
