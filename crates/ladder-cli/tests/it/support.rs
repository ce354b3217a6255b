//! Running the real binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env { dir: tempfile::tempdir().unwrap() }
    }

    pub fn ledger(&self) -> PathBuf {
        self.dir.path().join("ladder.db")
    }

    pub fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// Runs `ladder --ledger <tmp> ARGS` with `stdin`.
    pub fn run(&self, args: &[&str], stdin: &[u8]) -> Run {
        run_in(self.dir.path(), &self.ledger(), args, stdin)
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let r = self.run(args, b"");
        assert_eq!(r.code, 0, "ladder {args:?} failed:\n{}", r.stderr);
        r.stdout
    }
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name)
}

pub fn run_in(cwd: &Path, ledger: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ladder"))
        .current_dir(cwd)
        .arg("--ledger")
        .arg(ledger)
        .args(args)
        .env_remove("LADDER_LEDGER")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The object of the JSON array `list` whose `key` is `value` (a panic showing `list` when none
/// is).
pub fn entry<'a>(list: &'a serde_json::Value, key: &str, value: &str) -> &'a serde_json::Value {
    list.as_array()
        .and_then(|a| a.iter().find(|x| x[key] == value))
        .unwrap_or_else(|| panic!("no {key} = {value:?} in {list}"))
}
