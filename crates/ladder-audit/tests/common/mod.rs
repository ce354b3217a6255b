//! Shared by the tests that run Python checkers.

use std::process::Command;

/// True when `python3` can import the `blake3` package; otherwise says on stderr that the
/// calling test is skipped, except under `CI=true`, where the missing package fails the test:
/// `.ci/run` installs it (`pip install blake3`), so CI never passes without running the check.
pub fn python_with_blake3() -> bool {
    let has = Command::new("python3")
        .args(["-c", "import blake3"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 with the blake3 package is missing and CI=true: .ci/run installs it"
        );
        eprintln!("skipped: python3 with the blake3 package is not available");
    }
    has
}
