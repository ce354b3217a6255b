//! `rep`, the game-line parser and `perf` as the CLI uses them.

use ladder_performance::{
    parse_games, perf, rep, run_perf, run_rep, PerfError, SolveError, ToolError, Variant,
};
use proptest::prelude::*;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn rated(a: &[&str], v: Variant) -> i64 {
    let games = parse_games(&rep(&args(a), "").unwrap()).unwrap();
    perf(v, &games).unwrap().rounded()
}

#[test]
fn perf_prints_the_rating_then_plus_minus_and_ra() {
    let lines = run_rep(&args(&["+1000", "20"]), "").unwrap();
    // Winning once more against a new 1746 player moves a rating built on one opponent a lot
    // (every old game weighs 1/sqrt(20)): the seed's point about p4's unstable ratings.
    assert_eq!(run_perf(Variant::P4, &lines, true).unwrap(), "1746\n+/- +521 -272\nra 4.47\n");
    // ra = sqrt(2) + sqrt(1): two games against abc, one against xyz.
    let out = run_perf(Variant::P3, "+1500 abc\n-1750 xyz\n=1610 abc\n", true).unwrap();
    assert!(out.ends_with("ra 2.41\n"), "{out}");
}

#[test]
fn p1_with_only_wins_has_no_finite_rating() {
    let err = run_perf(Variant::P1, "+1500\n+1600 x\n", false).unwrap_err();
    assert_eq!(
        err,
        ToolError::Perf(PerfError::NoRating { variant: Variant::P1, reason: SolveError::OnlyWins })
    );
    assert_eq!(
        err.to_string(),
        "p1: no finite rating exists: every game was won, so the rating grows without bound"
    );
    assert!(matches!(
        run_perf(Variant::P1, "-1500\n", false),
        Err(ToolError::Perf(PerfError::NoRating { reason: SolveError::OnlyLosses, .. }))
    ));
    assert!(matches!(
        run_perf(Variant::P1, "", false),
        Err(ToolError::Perf(PerfError::NoRating { reason: SolveError::NoGames, .. }))
    ));
    // p2 fixes it with the fictitious draw: one win against 1000 is p3's 1512 too.
    assert_eq!(run_perf(Variant::P2, "+1000\n", false).unwrap(), "1512\n");
    // p1 with a win and a loss against 1400 and 1600: 1500 by symmetry.
    assert_eq!(run_perf(Variant::P1, "+1400 a\n-1600 b\n", false).unwrap(), "1500\n");
}

#[test]
fn errors_name_the_line() {
    let err = run_perf(Variant::P4, "+1500 abc\n+15x0\n", false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 2: `+15x0`: the result sign must be followed by the opponent's rating"
    );
    let err = run_rep(&args(&["+1000", "many"]), "").unwrap_err();
    assert_eq!(
        err.to_string(),
        "argument 2: `many` is not a repetition count (a whole number >= 0)"
    );
}

#[test]
fn rep_copies_stdin_where_dash_appears() {
    // "rep '-R playerX' 1 ..." style: arguments may start with `-`; only `-` itself is stdin.
    let out = run_rep(&args(&["-2500 playerX", "1", "-", "+2000", "1"]), "=1800 q 2\n").unwrap();
    assert_eq!(out, "-2500 playerX\n=1800 q 2\n+2000\n");
}

#[test]
fn p7_and_p8_as_read() {
    // Against one opponent the opponent's total weight grows as sqrt(N) up to 5, then stays:
    // the rating stops rising at 1000 + 400 log10(5 / 0.05 - 1) = 1798 and never falls back
    // (p4's flaw, "the rating decreases if many games are played with the same player").
    let climb: Vec<i64> = [1, 20, 25, 100, 500]
        .iter()
        .map(|n| rated(&["+1000", &n.to_string()], Variant::P7))
        .collect();
    assert_eq!(climb, vec![1512, 1779, 1798, 1798, 1798]);
    // p8's two draws against 1500 pull one win toward 1500.
    let climb: Vec<i64> = [1, 20, 25, 100, 500]
        .iter()
        .map(|n| rated(&["+1000", &n.to_string()], Variant::P8))
        .collect();
    assert_eq!(climb, vec![1606, 1745, 1758, 1758, 1758]);
    assert_eq!(rated(&["+2000; -2000", "50"], Variant::P7), 1997);
    assert_eq!(rated(&["-0 playerX", "1", "+2000; -2000", "50"], Variant::P7), 1845);
    assert_eq!(rated(&["+2000; -2000", "50"], Variant::P8), 1991);
    // Against the field (every opponent different) p7 is p3, as p4 is.
    for a in [&["+1500 a*; -1700 b*", "30"][..], &["=1600 x*", "7", "+1200 y*", "40"][..]] {
        assert_eq!(rated(a, Variant::P7), rated(a, Variant::P3), "{a:?}");
        assert_eq!(rated(a, Variant::P4), rated(a, Variant::P3), "{a:?}");
    }
}

proptest! {
    #[test]
    fn the_parser_never_panics(text in "\\PC*") {
        let _ = parse_games(&text);
    }

    #[test]
    fn parsed_lines_rate_or_refuse_without_panicking(
        lines in prop::collection::vec(("[-+=]", -5000i32..5000, prop::option::of("[a-c]")), 0..30),
        v in prop::sample::select(Variant::ALL.to_vec()),
    ) {
        let text: String = lines
            .iter()
            .map(|(s, r, n)| format!("{s}{r} {}\n", n.clone().unwrap_or_default()))
            .collect();
        let games = parse_games(&text).unwrap();
        prop_assert_eq!(games.len(), lines.len());
        match perf(v, &games) {
            Ok(p) => {
                prop_assert!(p.rating.is_finite());
                prop_assert!(p.plus >= -1e-6 && p.minus >= -1e-6);
            }
            Err(PerfError::NoRating { .. }) => prop_assert_eq!(v, Variant::P1),
            Err(e) => prop_assert!(false, "{}", e),
        }
    }
}
