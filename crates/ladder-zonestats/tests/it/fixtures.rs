//! Every shared fixture ladder, folded and rendered as a standings table.

use ladder_projector::{fixture_table, Algorithm};
use ladder_zonestats::ZoneStats;

#[test]
fn every_fixture_ladder() {
    insta::glob!("../../../../fixtures", "*.jsonl", |path| {
        let text = std::fs::read_to_string(path).expect("fixture readable");
        let mut z = ZoneStats::configure(&[]).expect("defaults are valid");
        insta::assert_snapshot!(fixture_table(&text, &mut z).expect("fixture folds"));
    });
}
