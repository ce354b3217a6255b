//! Every shared fixture ladder parses and keeps the stateless append rules.

use std::path::Path;

#[test]
fn every_fixture_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                if let Err(v) = ladder_events::json::parse_line(line) {
                    panic!("{}:{}: {v}", path.display(), i + 1);
                }
            }
        }
    }
    assert!(files >= 3, "found {files} fixture ladders");
}
