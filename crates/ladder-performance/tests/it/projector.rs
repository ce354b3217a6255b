//! The projector agrees with the library on the same games, handles teams, priors and p1's
//! unbounded ratings as documented.

use ladder_events::{Prior, Timestamp};
use ladder_performance::{parse_games, perf, Performance, Variant, INITIAL_RATING};
use ladder_projector::{Algorithm, Input, PlayerId, Projector, SeatIn, Step, Trace, TraceEntry};

fn projector(variant: &str) -> Performance {
    Performance::configure(&[("variant".to_string(), variant.to_string())]).unwrap()
}

fn join(p: &mut Performance, id: u32, rating: Option<f64>) {
    let prior = Prior { rating, ..Prior::default() };
    let step =
        Step { seq: 0, at: Timestamp(0), input: Input::Joined { player: PlayerId(id), prior } };
    p.apply(&step, None).unwrap();
}

fn play(p: &mut Performance, seats: &[(u32, f64, u32)], trace: Option<&mut Trace>) {
    let seats: Vec<SeatIn> = seats
        .iter()
        .map(|&(id, score, side)| SeatIn {
            player: PlayerId(id),
            score,
            side,
            seconds: None,
            home: false,
        })
        .collect();
    let step = Step { seq: 1, at: Timestamp(0), input: Input::Match { seats: &seats } };
    p.apply(&step, trace).unwrap();
}

fn library(variant: Variant, lines: &str) -> f64 {
    perf(variant, &parse_games(lines).unwrap()).unwrap().rating
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-6, "{a} vs {b}");
}

#[test]
fn each_rating_is_the_library_perf_over_the_players_games() {
    for (name, v) in [
        ("p2", Variant::P2),
        ("p3", Variant::P3),
        ("p4", Variant::P4),
        ("p7", Variant::P7),
        ("p8", Variant::P8),
    ] {
        let mut p = projector(name);
        join(&mut p, 0, None);
        join(&mut p, 1, Some(1650.0)); // a prior: what opponents see until b's first game
        join(&mut p, 2, None);
        play(&mut p, &[(0, 1.0, 0), (1, 0.0, 1)], None);
        let (a1, b1) = (p.rating(PlayerId(0)), p.rating(PlayerId(1)));
        close(a1, library(v, "+1650 b\n"));
        close(b1, library(v, "-1500 a\n"));
        play(&mut p, &[(1, 1.0, 0), (0, 0.0, 1)], None);
        let (a2, b2) = (p.rating(PlayerId(0)), p.rating(PlayerId(1)));
        close(a2, library(v, &format!("-{b1} b\n+1650 b\n")));
        close(b2, library(v, &format!("+{a1} a\n-1500 a\n")));
        // A three-seat free-for-all: c beats both; a and b draw (equal scores).
        play(&mut p, &[(0, 2.0, 0), (1, 2.0, 1), (2, 5.0, 2)], None);
        close(p.rating(PlayerId(0)), library(v, &format!("-1500 c\n={b2} b\n-{b1} b\n+1650 b\n")));
        close(p.rating(PlayerId(1)), library(v, &format!("-1500 c\n={a2} a\n+{a1} a\n-1500 a\n")));
        close(p.rating(PlayerId(2)), library(v, &format!("+{b2} b\n+{a2} a\n")));
        let games: Vec<u64> = p.standings().iter().map(|s| s.games).collect();
        assert_eq!(games, vec![3, 3, 1], "{name}");
    }
}

#[test]
fn team_mates_are_not_compared() {
    let mut p = projector("p3");
    for id in 0..4 {
        join(&mut p, id, None);
    }
    // 0 and 1 (side 0) beat 2 and 3 (side 1): each winner has two wins against 1500 players.
    play(&mut p, &[(0, 1.0, 0), (1, 1.0, 0), (2, 0.0, 1), (3, 0.0, 1)], None);
    let two_wins = library(Variant::P3, "+1500 d\n+1500 c\n");
    close(p.rating(PlayerId(0)), two_wins);
    close(p.rating(PlayerId(1)), two_wins);
    close(p.rating(PlayerId(2)), library(Variant::P3, "-1500 b\n-1500 a\n"));
}

#[test]
fn p1_without_a_finite_rating_keeps_the_previous_one() {
    let mut p = projector("p1");
    join(&mut p, 0, None);
    join(&mut p, 1, None);
    let mut trace = Trace::new();
    play(&mut p, &[(0, 1.0, 0), (1, 0.0, 1)], Some(&mut trace));
    // Only a win (and only a loss): no finite root, both stay at the initial rating.
    assert_eq!(p.rating(PlayerId(0)), INITIAL_RATING);
    assert_eq!(p.rating(PlayerId(1)), INITIAL_RATING);
    let flags = trace
        .entries
        .iter()
        .filter(|e| matches!(e, TraceEntry::Flag { code: "no-finite-rating", .. }))
        .count();
    assert_eq!(flags, 2);
    // The first loss makes a finite rating: 1 win and 1 loss against 1500 each is 1500.
    play(&mut p, &[(0, 0.0, 0), (1, 1.0, 1)], None);
    close(p.rating(PlayerId(0)), 1500.0);
    assert_eq!(p.standings()[0].games, 2);
}

#[test]
fn expectation_and_default_variant() {
    let mut p = Performance::configure(&[]).unwrap();
    assert_eq!(p.variant(), Variant::P4);
    join(&mut p, 0, Some(1900.0));
    join(&mut p, 1, Some(1500.0));
    // W(1500 - 1900) = 1 / (1 + 10^-1) = 10/11.
    close(p.expectation(PlayerId(0), PlayerId(1), Timestamp(0)), 10.0 / 11.0);
    let bad = [("variant".to_string(), "p5".to_string())];
    assert!(Performance::configure(&bad).is_err());
}
