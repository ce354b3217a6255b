//! Same parameters, same ladder; another seed, another ladder; reading the truth changes nothing;
//! and a small ladder pinned byte for byte.

use crate::{ladders, run};
use ladder_events::json::to_line;
use ladder_sim::{simulate, SimParams};

#[test]
fn same_parameters_same_events_and_truth() {
    for p in ladders() {
        assert_eq!(run(&p), run(&p), "{p:?}");
    }
}

#[test]
fn another_seed_another_ladder() {
    let a = run(&SimParams::new(50, 2_000, 1));
    let b = run(&SimParams::new(50, 2_000, 2));
    assert_ne!(a.0, b.0);
    assert_ne!(a.1, b.1);
    // Not merely renamed ids: the games themselves differ.
    let games = |events: &[ladder_events::Event]| -> Vec<String> {
        events.iter().map(|e| to_line(e).replace("s1-", "").replace("s2-", "")).collect()
    };
    assert_ne!(games(&a.0), games(&b.0));
}

#[test]
fn reading_the_truth_midway_changes_nothing() {
    let p = SimParams::new(80, 3_000, 21);
    let (events, truth) = run(&p);
    let mut sim = simulate(&p).unwrap();
    let mut seen = Vec::new();
    let mut last_len = 0;
    while let Some(e) = sim.next() {
        seen.push(e);
        if seen.len() % 97 == 0 {
            let t = sim.truth();
            assert!(t.len() >= last_len, "players only join");
            last_len = t.len();
        }
    }
    assert_eq!(seen, events);
    assert_eq!(sim.truth(), truth);
}

#[test]
fn a_small_ladder_byte_for_byte() {
    // Pins the generator, the model and the output format together: a change here is a change of
    // every benchmark input, to be made on purpose.
    let mut p = SimParams::new(4, 6, 2026);
    p.days = 2.0;
    let mut sim = simulate(&p).unwrap();
    let mut text: String = sim.by_ref().map(|e| to_line(&e) + "\n").collect();
    text.push_str("--- truth\n");
    for t in sim.truth() {
        text.push_str(&t.to_json_line());
        text.push('\n');
    }
    insta::assert_snapshot!("small_ladder", text);
}
