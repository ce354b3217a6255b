//! Replays a fuzz target's committed inputs as an ordinary test, so CI runs on stable what the
//! fuzzer found: every file of `fuzz/corpus/<target>/` (the minimized corpus) and of
//! `fuzz/regressions/<target>/` (inputs that once crashed). Included through `#[path]` by the
//! replay test of each crate that owns a fuzzed parser.

use std::path::{Path, PathBuf};

/// Runs `check` on every committed input of `target` and fails naming each input that panics.
/// Returns how many inputs were replayed.
pub fn replay(target: &str, check: fn(&[u8])) -> usize {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(dir).join(target)) else { continue };
        for entry in entries {
            files.push(entry.expect("a readable directory entry").path());
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no committed inputs for {target} under {}", fuzz.display());
    let mut failures = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(panic) = std::panic::catch_unwind(|| check(&data)) {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            failures.push(format!("{}: {message}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} {target} inputs panic:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    files.len()
}
