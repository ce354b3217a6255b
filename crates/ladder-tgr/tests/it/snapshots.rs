//! Every fixture ladder, both orders, the default P and the queue's 0.35 misread as P.

use ladder_projector::{fold_all, standings_table, Projector};
use std::fmt::Write;

#[test]
fn fixtures() {
    insta::glob!("../../../../fixtures", "*.jsonl", |path| {
        let text = std::fs::read_to_string(path).expect("fixture readable");
        let events = crate::events(&text);
        let mut out = String::new();
        for order in ["as-written", "simultaneous"] {
            for p in [None, Some("0.35")] {
                let mut sets = vec![("order", order)];
                sets.extend(p.map(|p| ("p", p)));
                let mut t = crate::tgr(&sets);
                let roster = fold_all(&events, &mut t).expect("fixture replays");
                let table = standings_table(&t, &roster, &t.standings());
                writeln!(out, "{table}").expect("string");
            }
        }
        insta::assert_snapshot!(out);
    });
}
