//! The short program of docs/audit.md ("Check it without ladder"), run as printed against a
//! ledger written by ladder-log: its size and root must be the ledger's. Needs `python3` and its
//! standard library alone (under CI=true it fails without it); the Rust twin
//! (`against_ledger.rs`) runs everywhere.

mod common;

use ladder_events::json::{parse_line, to_line};
use ladder_log::{AppendOptions, Ledger};
use std::path::Path;
use std::process::Command;

/// The first ```python block after the heading "## 6. Check it without ladder".
fn program() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/audit.md"))
            .unwrap();
    let section = doc.split("## 6. Check it without ladder").nth(1).expect("the section");
    let block = section.split("```python\n").nth(1).expect("a python block");
    block.split("```").next().unwrap().to_string()
}

#[test]
fn the_program_in_audit_md_prints_the_ledgers_size_and_root() {
    let program = program();
    // Say what is checked even where it cannot run: the program reads the standard library's
    // hashlib and nothing of ladder.
    assert!(program.contains("import hashlib"), "{program}");
    assert!(!program.contains("ladder_"), "{program}");
    if !common::python3() {
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = Ledger::open(dir.path().join("ladder.db")).unwrap();
    let opts = AppendOptions { auto_join: true, ticks: true, ..AppendOptions::default() };
    let text = std::fs::read_to_string(fixtures.join("club.jsonl")).unwrap();
    ledger.append(text.lines().filter(|l| !l.trim().is_empty()).map(parse_line), &opts).unwrap();
    let export = dir.path().join("export.jsonl");
    let lines: String =
        ledger.events(1).map(|e| format!("{}\n", to_line(&e.unwrap().event))).collect();
    std::fs::write(&export, lines).unwrap();
    let script = dir.path().join("check.py");
    std::fs::write(&script, &program).unwrap();
    let out = Command::new("python3").arg(&script).arg(&export).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let root = ladder_proof::hex(&ledger.root().unwrap());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("size {}\nroot {root}\n", ledger.head().seq)
    );
}
