//! Every number seed 003 prints, computed the way the seed computes it: `rep ARGS | pN`.
//!
//! One row per printed number: the `rep` arguments, the variant, the seed's number, and our
//! number when it differs from the seed's by more than 1 (a known difference, explained in
//! `docs/algorithms/performance.md`). There are none: every number matches exactly.

use ladder_performance::{parse_games, perf, rep, Variant};

struct Row {
    args: Vec<String>,
    variant: Variant,
    seed: i64,
    /// `Some(ours)` for a known difference of more than one point.
    known_difference: Option<i64>,
}

fn row(args: &[&str], variant: Variant, seed: i64) -> Row {
    Row {
        args: args.iter().map(|s| s.to_string()).collect(),
        variant,
        seed,
        known_difference: None,
    }
}

fn ours(r: &Row) -> i64 {
    let lines = rep(&r.args, "").expect("rep accepts the seed's arguments");
    let games = parse_games(&lines).expect("rep prints game lines");
    perf(r.variant, &games).expect("a finite rating").rounded()
}

fn rows() -> Vec<Row> {
    use Variant::{P3, P4};
    let mut rows = Vec::new();
    // "using: rep '+1000' N | p*": N, p4, p3.
    for (n, p4, p3) in [
        (1, 1512, 1512),
        (2, 1573, 1635),
        (5, 1649, 1791),
        (10, 1702, 1904),
        (20, 1746, 2008),
        (30, 1766, 2063),
        (40, 1775, 2097),
        (50, 1780, 2121),
        (60, 1781, 2138),
        (70, 1781, 2151),
        (80, 1779, 2161),
        (90, 1776, 2169),
        (100, 1773, 2175),
        (200, 1734, 2197),
        (300, 1701, 2199),
        (400, 1676, 2200),
        (500, 1656, 2200),
    ] {
        let n = n.to_string();
        rows.push(row(&["+1000", &n], P4, p4));
        rows.push(row(&["+1000", &n], P3, p3));
    }
    // "using: rep '+1000; -1000' N | p*": N, p4, p3.
    for (n, p4, p3) in [
        (1, 979, 986),
        (2, 986, 995),
        (5, 992, 1000),
        (10, 994, 1001),
        (20, 996, 1002),
        (30, 996, 1003),
        (40, 996, 1003),
        (50, 996, 1003),
    ] {
        let n = n.to_string();
        rows.push(row(&["+1000; -1000", &n], P4, p4));
        rows.push(row(&["+1000; -1000", &n], P3, p3));
    }
    // "Both rep '+1492' 20 | p3 and rep '+2400; -2600' 10 | p3 result in the player having a
    // rating of 2500 after 20 games."
    rows.push(row(&["+1492", "20"], P3, 2500));
    rows.push(row(&["+2400; -2600", "10"], P3, 2500));
    // "rep '-2500' 1 '+1492' 20 | p3 his rating drops to: 2232"
    rows.push(row(&["-2500", "1", "+1492", "20"], P3, 2232));
    // "rep '-2500' 1 '+2400; -2600' 10 | p3 only drop the rating to 2479"
    rows.push(row(&["-2500", "1", "+2400; -2600", "10"], P3, 2479));
    // "rep '+2000; -2000' 50 | p3 = 2003", "rep '+2000; -2000' 50 | p4 = 1995"
    rows.push(row(&["+2000; -2000", "50"], P3, 2003));
    rows.push(row(&["+2000; -2000", "50"], P4, 1995));
    // "using: rep '-R playerX' 1 '+2000; -2000' 50 | p*": R, p4, p3.
    for (r, p4, p3) in [
        (3000, 1995, 2003),
        (2500, 1987, 2002),
        (2000, 1929, 1995),
        (1500, 1842, 1987),
        (1000, 1818, 1986),
        (500, 1817, 1986),
        (0, 1816, 1986),
    ] {
        let first = format!("-{r} playerX");
        rows.push(row(&[&first, "1", "+2000; -2000", "50"], P4, p4));
        rows.push(row(&[&first, "1", "+2000; -2000", "50"], P3, p3));
    }
    // "rep '+1230' 100 | p4 gives a rating of 2003"
    rows.push(row(&["+1230", "100"], P4, 2003));
    // "using: rep '-R playerX' 1 '+1230' 100 | p4": R, p4.
    for (r, p4) in [
        (3000, 1990),
        (2500, 1911),
        (2000, 1731),
        (1500, 1541),
        (1000, 1440),
        (500, 1425),
        (0, 1424),
    ] {
        let first = format!("-{r} playerX");
        rows.push(row(&[&first, "1", "+1230", "100"], P4, p4));
    }
    rows
}

#[test]
fn every_number_the_seed_prints() {
    let rows = rows();
    let (mut exact, mut within_one, mut known) = (0, 0, 0);
    let mut failures = Vec::new();
    for r in &rows {
        let got = ours(r);
        let what = format!("rep {:?} | {}: seed {}, ours {}", r.args, r.variant, r.seed, got);
        match r.known_difference {
            Some(expected) => {
                known += 1;
                if got != expected || (got - r.seed).abs() <= 1 {
                    failures.push(format!("known difference changed: {what}"));
                }
            }
            None if got == r.seed => exact += 1,
            None if (got - r.seed).abs() <= 1 => within_one += 1,
            None => failures.push(what),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(rows.len(), 78);
    assert_eq!((exact, within_one, known), (78, 0, 0));
}

#[test]
fn the_seeds_derived_differences() {
    let p = |args: &[&str], v| ours(&row(args, v, 0));
    // "the difference after 20 game (10 wins; 10 loses; alternating) is just 7 points (1001-994)"
    assert_eq!(
        p(&["+1000; -1000", "10"], Variant::P3) - p(&["+1000; -1000", "10"], Variant::P4),
        7
    );
    // "after 20 games (all wins) the difference is 262 points (2008-1746)"
    assert_eq!(p(&["+1000", "20"], Variant::P3) - p(&["+1000", "20"], Variant::P4), 262);
    // "the rating built by playing the field (p3) drops only by a maximum of 17 points while the
    // rating that was built by playing only one player drops by 179 points"
    let field = p(&["+2000; -2000", "50"], Variant::P3);
    let one = p(&["+2000; -2000", "50"], Variant::P4);
    assert_eq!(field - p(&["-0 playerX", "1", "+2000; -2000", "50"], Variant::P3), 17);
    assert_eq!(one - p(&["-0 playerX", "1", "+2000; -2000", "50"], Variant::P4), 179);
    // p3: "the winning players rating will increase to a maximum of 1200 points above the other
    // player".
    assert_eq!(p(&["+1000", "2000"], Variant::P3), 2200);
}

#[test]
fn ladder_perf_prints_1746() {
    let lines = ladder_performance::run_rep(&["+1000".to_string(), "20".to_string()], "").unwrap();
    assert_eq!(ladder_performance::run_perf(Variant::P4, &lines, false).unwrap(), "1746\n");
}
