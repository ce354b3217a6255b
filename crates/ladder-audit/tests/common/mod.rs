//! Shared by the tests that run Python checkers.

use std::process::Command;

/// True when `python3` can import the `blake3` package; otherwise says on stderr that the
/// calling test is skipped (nothing is installed for it: the Rust twin runs everywhere).
pub fn python_with_blake3() -> bool {
    let has = Command::new("python3")
        .args(["-c", "import blake3"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        eprintln!("skipped: python3 with the blake3 package is not available");
    }
    has
}
