//! Every shared fixture ladder, folded and rendered as a standings table.

use ladder_projector::{fold_all, standings_table, Projector};
use ladder_zonestats::ZoneStats;

#[test]
fn every_fixture_ladder() {
    insta::glob!("../../../../fixtures", "*.jsonl", |path| {
        let text = std::fs::read_to_string(path).expect("fixture readable");
        let events: Vec<_> = text
            .lines()
            .enumerate()
            .map(|(i, line)| {
                ladder_events::json::parse_line(line)
                    .unwrap_or_else(|v| panic!("{}:{}: {v}", path.display(), i + 1))
            })
            .collect();
        let mut z = ZoneStats::from_sets(&[]).expect("defaults are valid");
        let roster = fold_all(&events, &mut z).expect("fixture folds");
        insta::assert_snapshot!(standings_table(&z, &roster, &z.standings()));
    });
}
