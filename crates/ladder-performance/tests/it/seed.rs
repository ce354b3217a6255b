//! Every number the Arimaa text prints, computed the way the seed computes it: `rep ARGS | pN`.
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

/// The seed's tables, from `fixtures/seed003-tables.tsv` (shared with the command-line test, and
/// annotated there with the seed's words for each table): the one-win ladders for p4 and p3 at
/// N = 1 ... 500, the alternating win/loss table, the `+1492` / `+2400; -2600` examples,
/// `+2000; -2000` under p3 and p4, both '-R playerX' tables and `+1230` under p4.
fn rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/seed003-tables.tsv");
    let text = std::fs::read_to_string(path).expect("fixtures/seed003-tables.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split('\t');
            let variant: Variant = f.next().unwrap().parse().unwrap();
            let seed: i64 = f.next().unwrap().parse().unwrap();
            let args: Vec<&str> = f.collect();
            row(&args, variant, seed)
        })
        .collect()
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
