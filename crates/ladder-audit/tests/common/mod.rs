//! Shared by the tests that run Python checkers.

use std::process::Command;

/// True when `python3` runs (the checkers need its standard library alone). Where it does not,
/// the calling test fails under `CI=true` (CI installs it: `.ci/run`), and elsewhere says on
/// stderr that it is skipped (the Rust twin runs everywhere).
pub fn python3() -> bool {
    let has = Command::new("python3")
        .args(["-c", "import hashlib, json, struct"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 is missing, and CI=true: .ci/run installs it"
        );
        eprintln!("skipped: python3 is not available");
    }
    has
}
