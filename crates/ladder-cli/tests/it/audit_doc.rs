//! docs/audit.md, "Worked disputes on real ladders", is run as written: every `ladder` command of
//! its `sh` blocks runs (from a temporary directory, `fixtures/` meaning the repository's), and
//! every line of the `text` block after a command must be a line of what that command printed,
//! in the same order. So each figure the page quotes is the program's.

use crate::support::fixture;
use std::path::Path;
use std::process::Command;

/// Splits a shell line into words: spaces separate, double quotes group (no escapes needed here).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            ' ' if !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            _ => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// Runs one `ladder ...` line of the page in `dir`.
fn run(dir: &Path, line: &str) -> String {
    let args: Vec<String> = words(line)
        .into_iter()
        .skip(1)
        .map(|w| match w.strip_prefix("fixtures/") {
            Some(rest) => fixture(rest).to_string_lossy().into_owned(),
            None => w,
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_ladder"))
        .current_dir(dir)
        .args(&args)
        .env_remove("LADDER_LEDGER")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let (stdout, stderr) =
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "`{line}` failed:\n{stderr}");
    stdout
}

#[test]
fn every_worked_dispute_prints_what_the_page_quotes() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/audit.md"))
            .unwrap();
    let worked = page
        .split("## Worked disputes on real ladders")
        .nth(1)
        .expect("docs/audit.md has its worked disputes");
    let dir = tempfile::tempdir().unwrap();
    let mut last = String::new();
    let mut checked = 0;
    let mut lines = worked.lines();
    while let Some(line) = lines.next() {
        match line.trim() {
            "```sh" => {
                for cmd in lines.by_ref().take_while(|l| l.trim() != "```") {
                    if cmd.starts_with("ladder ") {
                        last = run(dir.path(), cmd);
                    }
                }
            }
            "```text" => {
                let printed: Vec<&str> = last.lines().map(str::trim_end).collect();
                let mut at = 0;
                for want in lines.by_ref().take_while(|l| l.trim() != "```") {
                    match printed[at..].iter().position(|l| *l == want.trim_end()) {
                        Some(i) => at += i + 1,
                        None => panic!("not printed (in this order): {want:?}\n---\n{last}"),
                    }
                }
                checked += 1;
            }
            _ => {}
        }
    }
    assert_eq!(checked, 5, "one worked dispute per family of algorithms");
}

#[test]
fn words_split_like_the_shell() {
    assert_eq!(
        words(r#"ladder explain --player "Daniil Medvedev" --event 55"#),
        ["ladder", "explain", "--player", "Daniil Medvedev", "--event", "55"]
    );
}
