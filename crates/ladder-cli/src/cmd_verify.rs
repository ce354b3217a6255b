//! `ladder verify`: recompute the hash chain.

use crate::cli::EventsArg;
use crate::source::open_for_read;
use crate::UsageError;
use clap::{Args, ValueEnum};
use ladder_log::{Head, VerifyError};
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder verify                                   prints `ok: head SEQ:HASH`
  ladder verify --expect-head 1234:9f86d081...    also fail if that head is no longer held
  ladder verify --format json
  ladder verify --events archive.jsonl            the head an archived export rebuilds

Publish the head (e.g. in a tournament bulletin): the chain shows any change to a stored event,
but only a published head shows that events were cut from the end or the whole chain rewritten.";

/// Output formats of `verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormat {
    /// One line for people.
    Text,
    /// `{"ok":true,"head":"SEQ:HASH","events":N}` or `{"ok":false,"bad_seq":N,"error":"..."}`.
    Json,
}

/// Arguments of `verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Fail unless the ledger still holds this head (`SEQ:HASH`, as `verify` printed it).
    #[arg(long, value_name = "SEQ:HASH")]
    pub expect_head: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: VerifyFormat,
    #[command(flatten)]
    pub events: EventsArg,
}

/// The first bad sequence number, when the failure has one.
fn bad_seq(e: &VerifyError) -> Option<u64> {
    match e {
        VerifyError::Broken { seq, .. } => Some(*seq),
        _ => None,
    }
}

/// What to do about a failed verification.
fn hint(e: &VerifyError) -> Option<String> {
    match e {
        VerifyError::Broken { seq, .. } => Some(format!(
            "`ladder log --from {seq} --limit 1` shows the first bad event; rebuild the ledger from a backup or an export (`ladder import` into a new ledger)"
        )),
        VerifyError::HeadMissing { .. } => Some(
            "the ledger was cut at its tail or rewritten since that head was published; compare it with an export taken then (`ladder verify --events FILE.jsonl`)".into(),
        ),
        _ => None,
    }
}

pub fn run(ledger_path: &Path, args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let expect = match &args.expect_head {
        Some(text) => {
            Some(Head::parse(text).map_err(|e| UsageError(format!("--expect-head: {e}")))?)
        }
        None => None,
    };
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    match ledger.verify(expect) {
        Ok(head) => {
            match args.format {
                VerifyFormat::Text => {
                    outln!("ok: head {head} ({} events, chain intact)", head.seq)?
                }
                VerifyFormat::Json => outln!(
                    "{}",
                    serde_json::json!({"ok": true, "head": head.to_string(), "events": head.seq})
                )?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            match args.format {
                VerifyFormat::Text => {
                    eprintln!("error: verification failed: {e}");
                    if let Some(hint) = hint(&e) {
                        eprintln!("hint: {hint}");
                    }
                }
                VerifyFormat::Json => {
                    // A failed verification exits 1 even when nobody reads the report.
                    let _ = outln!(
                        "{}",
                        serde_json::json!({"ok": false, "bad_seq": bad_seq(&e), "error": e.to_string()})
                    );
                }
            }
            Ok(ExitCode::from(1))
        }
    }
}
