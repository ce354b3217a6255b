//! Re-running this test binary as a child process (sled's `test_crash_recovery.rs` style): the
//! parent runs one test by its exact name with [`CHILD_ENV`] set, and that test, seeing the
//! variable, plays the child instead of the parent.

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Set in a child's environment to the role it plays.
pub const CHILD_ENV: &str = "LADDER_LOG_TEST_CHILD";
/// The ledger path a child works on.
pub const LEDGER_ENV: &str = "LADDER_LOG_TEST_LEDGER";
/// The JSON Lines file a child imports.
pub const FILE_ENV: &str = "LADDER_LOG_TEST_FILE";

/// The role this process plays, if it is a child.
pub fn role() -> Option<String> {
    std::env::var(CHILD_ENV).ok()
}

/// Starts this test binary running only `test` (e.g. `crash::import_survives_sigkill`) as `role`.
pub fn spawn(test: &str, role: &str, ledger: &Path, file: Option<&Path>) -> Child {
    let exe = std::env::current_exe().expect("the test binary knows its path");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, role)
        .env(LEDGER_ENV, ledger)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(f) = file {
        cmd.env(FILE_ENV, f);
    }
    cmd.spawn().expect("the test binary starts as a child")
}
