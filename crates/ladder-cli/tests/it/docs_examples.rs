//! Every example of README.md and docs/*.md runs as written (issue 28). The convention, which
//! docs/GUARANTEES.md states for writers of pages:
//!
//! - every ```` ```sh ```` block of a page is run, in order within its page, as one shell session
//!   (bash with `-e -o pipefail`: a failing command fails the page; no standard input; at most
//!   five minutes a page, so no block may start a server that keeps running), in a fresh directory where
//!   `fixtures/`, `docs/` and `fuzz/` are the checkout's and `ladder` is the binary under test;
//! - ```` ```text ```` blocks (and every other kind) are output or illustration and are not run;
//! - a page sets up the data it uses in its own `sh` blocks (importing from the checkout, making a
//!   key with `ladder keygen`), so the page is a session a reader can paste;
//! - a `cargo` line is a developer's build, test, bench or fuzz command, which CI runs on its own
//!   (`.ci/run`): here `cargo run --release -p ladder-cli -- ARGS` runs `ladder ARGS`, and any
//!   other `cargo` line only has the packages (`-p`), benches (`--bench`) and fuzz targets it names
//!   checked to exist.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// README.md, then docs/*.md by name.
fn pages() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    std::iter::once(root().join("README.md")).chain(docs).collect()
}

/// The `sh` blocks of a page: (the line of the opening fence, from 1; the block's text).
fn sh_blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if line == "```sh" {
            let body: Vec<&str> =
                lines.by_ref().map(|(_, l)| l).take_while(|l| !l.starts_with("```")).collect();
            out.push((n + 1, body.join("\n") + "\n"));
        }
    }
    out
}

/// Defined before a page's blocks: `cargo` as the module comment says.
const PRELUDE: &str = r#"
cargo() {
    if [[ $1 == run && $2 == --release && $3 == -p && $4 == ladder-cli && $5 == -- ]]; then
        shift 5
        ladder "$@"
        return
    fi
    local previous="" word
    for word in "$@"; do
        case $previous in
            -p) [[ -f $REPO/crates/$word/Cargo.toml ]] || { echo "cargo: no package $word" >&2; return 1; } ;;
            --bench) compgen -G "$REPO/crates/*/benches/$word.rs" >/dev/null || { echo "cargo: no bench $word" >&2; return 1; } ;;
            -a) [[ $word == -* || -f $REPO/fuzz/fuzz_targets/$word.rs ]] || { echo "cargo: no fuzz target $word" >&2; return 1; } ;;
        esac
        previous=$word
    done
    echo "(cargo $1: a developer's command, checked, not run here)" >&2
}
"#;

/// Runs a page's blocks in one shell in a fresh directory; the failure names the block's line.
fn run_page(page: &Path, bin: &Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(page).unwrap();
    let blocks = sh_blocks(&text);
    if blocks.is_empty() {
        return Ok(0);
    }
    let dir = tempfile::tempdir().unwrap();
    for linked in ["fixtures", "docs", "fuzz"] {
        std::os::unix::fs::symlink(root().join(linked), dir.path().join(linked)).unwrap();
    }
    let mut script = String::from(PRELUDE);
    script.push_str("trap 'echo \"failed in the block at line $block\" >&2' ERR\n");
    for (line, body) in &blocks {
        script.push_str(&format!("block={line}\n{body}"));
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    // Bounded: a page that starts a server in an `sh` block (or waits on input) fails after five
    // minutes (exit 124 from `timeout`) instead of hanging the test run.
    let out = Command::new("timeout")
        .args(["300", "bash", "-e", "-o", "pipefail", "-c", &script])
        .stdin(std::process::Stdio::null())
        .current_dir(dir.path())
        .env("PATH", path)
        .env("REPO", root())
        .env("NO_COLOR", "1")
        .env_remove("LADDER_LEDGER")
        .output()
        .expect("bash runs");
    if out.status.success() {
        Ok(blocks.len())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(124) {
            return Err(format!("{}: still running after 300 s", page.display()));
        }
        let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(format!("{}: {}", page.display(), tail.join("\n    ")))
    }
}

#[test]
fn every_sh_block_of_the_readme_and_docs_runs_as_written() {
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ladder"), bin.path().join("ladder")).unwrap();
    let mut failed = Vec::new();
    let mut ran = 0;
    for page in pages() {
        match run_page(&page, bin.path()) {
            Ok(n) => ran += n,
            Err(e) => failed.push(e),
        }
    }
    assert!(failed.is_empty(), "{} pages failed:\n{}", failed.len(), failed.join("\n\n"));
    // README's eight blocks at least: the test ran something.
    assert!(ran >= 8, "only {ran} blocks");
}

#[test]
fn blocks_are_found_by_their_fence() {
    let page = "intro\n```sh\nladder verify\n```\n```text\nok\n```\n```sh\na\nb\n```\n";
    assert_eq!(sh_blocks(page), [(2, "ladder verify\n".to_string()), (8, "a\nb\n".to_string())]);
}
