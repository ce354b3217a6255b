//! Every shared fixture ladder under every variant, rendered as standings tables.

use ladder_performance::{Performance, Variant};
use ladder_projector::{fold_all, standings_table, Projector};

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
        let mut tables = String::new();
        for v in Variant::ALL {
            let sets = [("variant".to_string(), v.name().to_string())];
            let mut p = Performance::from_sets(&sets).expect("valid variant");
            let roster = fold_all(&events, &mut p).expect("fixture folds");
            tables.push_str(&standings_table(&p, &roster, &p.standings()));
            tables.push('\n');
        }
        insta::assert_snapshot!(tables);
    });
}
