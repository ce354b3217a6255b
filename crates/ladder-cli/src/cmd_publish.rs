//! `ladder publish DIR`: the ledger as a static C2SP tlog-tiles tree.

use crate::signing::{load_signer, origin_or_default};
use crate::source::open_for_read;
use crate::Hinted;
use clap::Args;
use ladder_proof::hex;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder keygen club.key --name chess.example.org/club     once: the log's signing key
  ladder publish site/log --origin chess.example.org/club --key club.key
  ladder publish site/log --origin chess.example.org/club --key club.key    later: only what is new

DIR then holds `checkpoint` (the signed note), `tile/<L>/<N>[.p/<W>]` (hashes) and
`tile/entries/<N>[.p/<W>]` (each event's JSON line), as C2SP tlog-tiles gives them: serve it with
any static web server, and every tlog tool can check it (`ladder mirror URL --pubkey KEY`, a
witness, a monitor). The checkpoint is written last: a reader never sees one naming missing tiles.";

/// Arguments of `publish`.
#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The directory to publish into (created if missing; a directory published before gets only
    /// what is new).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The log's name, the checkpoint's first line (default: `ladder/` and the ledger directory's
    /// name). C2SP suggests the URL the log is served at, without `https://`.
    #[arg(long, value_name = "NAME")]
    pub origin: Option<String>,
    /// The key that signs the checkpoint (written by `ladder keygen`): a published log is signed.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
}

pub fn run(ledger_path: &Path, args: PublishArgs) -> anyhow::Result<ExitCode> {
    let Some(key_file) = &args.key else {
        return Err(Hinted::usage(
            "publish needs --key FILE: C2SP logs publish signed checkpoints, so that mirrors and \
             witnesses can hold the log to them",
            "make a key once with `ladder keygen FILE --name ORIGIN` and keep it secret",
        )
        .into());
    };
    let key = load_signer(key_file)?;
    let origin = origin_or_default(args.origin, ledger_path)?;
    let ledger = open_for_read(ledger_path, None)?;
    let report = ladder_tlog::publish(&ledger, &args.dir, &origin, &key).map_err(|e| match e {
        e @ ladder_tlog::PublishError::Foreign { .. } => anyhow::Error::new(Hinted::refused(
            e.to_string(),
            "publish each ledger into its own directory, under one origin",
        )),
        e => anyhow::Error::new(e),
    })?;
    outln!(
        "published {} events of {origin} to {} (root {}): {} files, {} bytes written (it held {} events)",
        report.size,
        args.dir.display(),
        hex(&report.root),
        report.written,
        report.bytes,
        report.old_size
    )?;
    Ok(ExitCode::SUCCESS)
}
