//! The independent checker against a real ledger: a sled ledger written by ladder-log (the code
//! `ladder import` runs) from the shared test ladders, exported as `ladder log --format jsonl`
//! writes it. The checker, which knows nothing of ladder, must print the ledger's own head and
//! root, and accept the ledger's inclusion and consistency proofs. CI runs this with every
//! `cargo test`.

use ladder_events::json::{parse_line, to_line};
use ladder_log::{AppendOptions, Ledger};
use ladder_proof::Proof;
use std::process::Command;

fn audit(export: &std::path::Path, proof: Option<&std::path::Path>) -> (bool, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ladder-audit"));
    cmd.arg(export);
    if let Some(p) = proof {
        cmd.arg(p);
    }
    let out = cmd.output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

#[test]
fn the_checker_agrees_with_the_ledger_on_heads_roots_and_proofs() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::open(dir.path().join("ladder.db")).unwrap();
    let opts = AppendOptions { auto_join: true, ticks: true, ..AppendOptions::default() };
    let text = std::fs::read_to_string(fixtures.join("club.jsonl")).unwrap();
    let items = text.lines().filter(|l| !l.trim().is_empty()).map(parse_line);
    ledger.append(items, &opts).unwrap();
    // Then enough matches to fill two of the 256-leaf tiles the ledger stores.
    let more = (0..600).map(|i| {
        let line = format!(
            r#"{{"type":"MatchResult","at":"2026-04-01T00:{:02}:{:02}Z","seats":[{{"player":"alice","score":{}}},{{"player":"bob","score":0.5}}]}}"#,
            i / 60,
            i % 60,
            [1.0, 0.5, 0.0][i % 3]
        );
        parse_line(&line)
    });
    ledger.append(more, &opts).unwrap();
    let head = ledger.head();
    assert!(head.seq > 600, "the ledger holds the fixture and the matches: {head}");
    let export = dir.path().join("export.jsonl");
    let lines: String =
        ledger.events(1).map(|e| format!("{}\n", to_line(&e.unwrap().event))).collect();
    std::fs::write(&export, lines).unwrap();
    let (ok, stdout, stderr) = audit(&export, None);
    assert!(ok, "{stderr}");
    let root = ladder_proof::hex(&ledger.root().unwrap());
    assert_eq!(stdout, format!("head {head}\nroot {root}\n"));
    for (i, proof) in [
        Proof::Inclusion(ledger.prove_inclusion(1, head.seq).unwrap()),
        Proof::Inclusion(ledger.prove_inclusion(head.seq / 2, head.seq - 3).unwrap()),
        Proof::Inclusion(ledger.prove_inclusion(head.seq, head.seq).unwrap()),
        Proof::Consistency(ledger.prove_consistency(7, head.seq).unwrap()),
    ]
    .iter()
    .enumerate()
    {
        let file = dir.path().join(format!("proof-{i}.json"));
        std::fs::write(&file, proof.to_json()).unwrap();
        let (ok, _, stderr) = audit(&export, Some(&file));
        assert!(ok, "proof {i}: {stderr}");
    }
}
