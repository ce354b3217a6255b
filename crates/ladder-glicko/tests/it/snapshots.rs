//! Every fixture ladder through both algorithms, at the defaults, with daily periods and with
//! `period=game`.

use ladder_glicko::{Glicko, Glicko2};
use ladder_projector::{fold_all, standings_table, Algorithm, Config, Projector};
use std::fmt::Write;

fn sets(text: &str) -> Vec<(String, String)> {
    Config::parse_assignments(text).unwrap()
}

#[test]
fn fixtures() {
    insta::glob!("../../../../fixtures", "*.jsonl", |path| {
        let events = crate::common::fixture(path.file_name().unwrap().to_str().unwrap());
        let mut out = String::new();
        let mut projectors: Vec<Box<dyn Projector>> = Vec::new();
        for (one, two) in
            [("", ""), ("period=1d,c=34.64", "period=1d"), ("period=game,c=34.64", "period=game")]
        {
            projectors.push(Box::new(Glicko::configure(&sets(one)).unwrap()));
            projectors.push(Box::new(Glicko2::configure(&sets(two)).unwrap()));
        }
        for mut p in projectors {
            let roster = fold_all(&events, &mut *p).expect("fixture replays");
            writeln!(out, "{}", standings_table(&*p, &roster, &p.standings())).unwrap();
        }
        insta::assert_snapshot!(out);
    });
}
