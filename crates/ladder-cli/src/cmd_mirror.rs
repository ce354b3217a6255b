//! `ladder mirror SOURCE`: copy a published log into a ledger, checked against its signed
//! checkpoints.

use crate::signing::verifier_key;
use crate::source::open_for_write;
use crate::Hinted;
use clap::Args;
use ladder_proof::hex;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder mirror https://chess.example.org/club --pubkey club.key.pub --ledger club-mirror.db
  ladder mirror https://localhost:8443/log --pubkey club.key.pub --ca-cert club-ca.pem
  ladder mirror site/log --pubkey 'chess.example.org/club+1a2b3c4d+AX...' --ledger copy.db

SOURCE is a directory written by `ladder publish`, or the URL prefix it is served at. Run it again
to take only what is new. Every entry is checked against the signed checkpoint, and from the
second run on the new checkpoint must be consistent with the last one mirrored (kept in
PATH.mirror/ beside the ledger): a forked or rewritten log is refused with exit 1, nothing is
appended, and both signed checkpoints are kept in PATH.mirror/fork-OLD-NEW/ as evidence.";

/// Arguments of `mirror`.
#[derive(Debug, Args)]
pub struct MirrorArgs {
    /// The published log: a directory, or an http:// or https:// URL prefix.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// The log's verifier key: its text (NAME+ID+KEY) or a file holding it.
    #[arg(long, value_name = "KEY")]
    pub pubkey: String,
    /// For an https:// SOURCE: trust only the certificates in this PEM file (a club's own
    /// certificate authority, or its self-signed certificate) instead of the web's roots.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
}

pub fn run(ledger_path: &Path, args: MirrorArgs) -> anyhow::Result<ExitCode> {
    let key = match verifier_key(&args.pubkey)? {
        Ok(k) => k,
        Err(e) => {
            return Err(Hinted::usage(e, "give the key `ladder keygen` printed for the log").into())
        }
    };
    let source = match ladder_tlog::open_source(&args.source, args.ca_cert.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            return Err(Hinted::usage(
                e.to_string(),
                "--ca-cert takes a PEM file of certificates, for an https:// SOURCE",
            )
            .into())
        }
    };
    let mut ledger = open_for_write(ledger_path)?;
    match ladder_tlog::mirror(&*source, &key, &mut ledger, ledger_path) {
        Ok(r) => {
            outln!(
                "mirrored {}: {} events appended, {} in all; head {}, root {}",
                r.origin,
                r.appended,
                r.head.seq,
                r.head,
                hex(&r.root)
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            Err(Hinted::refused(e.to_string(), "docs/audit.md, \"What a failed mirror means\"")
                .into())
        }
    }
}
