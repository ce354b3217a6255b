//! Every fixture ladder, both orders, the default P and the queue's 0.35 misread as P.

use ladder_projector::fixture_table;
use std::fmt::Write;

#[test]
fn fixtures() {
    insta::glob!("../../../../fixtures", "*.jsonl", |path| {
        let text = std::fs::read_to_string(path).expect("fixture readable");
        let mut out = String::new();
        for order in ["as-written", "simultaneous"] {
            for p in [None, Some("0.35")] {
                let mut sets = vec![("order", order)];
                sets.extend(p.map(|p| ("p", p)));
                let mut t = crate::tgr(&sets);
                let table = fixture_table(&text, &mut t).expect("fixture replays");
                writeln!(out, "{table}").expect("string");
            }
        }
        insta::assert_snapshot!(out);
    });
}
