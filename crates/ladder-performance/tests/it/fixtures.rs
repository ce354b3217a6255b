//! Every shared fixture ladder under every variant, rendered as standings tables.

use ladder_performance::{Performance, Variant};
use ladder_projector::{fixture_table, Algorithm};

#[test]
fn every_fixture_ladder() {
    insta::glob!("../../../../fixtures", "*.jsonl", |path| {
        let text = std::fs::read_to_string(path).expect("fixture readable");
        let mut tables = String::new();
        for v in Variant::ALL {
            let sets = [("variant".to_string(), v.name().to_string())];
            let mut p = Performance::configure(&sets).expect("valid variant");
            tables.push_str(&fixture_table(&text, &mut p).expect("fixture folds"));
            tables.push('\n');
        }
        insta::assert_snapshot!(tables);
    });
}
