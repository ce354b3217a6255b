//! `ladder upgrade`: rebuild a ledger of an older format in this one.

use clap::{Args, ValueEnum};
use ladder_log::{Ledger, LogError, LEDGER_FORMAT};
use ladder_proof::hex;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder upgrade                         upgrade ./ladder.db in place (the old one is kept)
  ladder --ledger club.db upgrade --format json

Ledger format 4 chains each event's JSON line (as `ladder log --format jsonl` prints it) with
blake3 and keeps the Merkle tree of RFC 6962 with SHA-256, the tree every C2SP tlog tool checks.
From format 3 (the same chain, a blake3 tree) the head stays and the tree is rebuilt; from
formats 1 and 2 (the chain over stored bytes) every chain hash changes. The upgrade reads the old
ledger from a copy (nothing is written to it), verifies its chain whole, appends the same events
to a new ledger, then swaps the directories and keeps the old one, unchanged, as PATH.formatN. A
ledger already in format 4 is left as it is.";

/// Output formats of `upgrade`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UpgradeFormat {
    /// Lines for people.
    Text,
    /// `{"from_format":3,"format":4,"old_head":"SEQ:HASH","head":"SEQ:HASH","root":"HEX","kept":"PATH"}`.
    Json,
}

/// Arguments of `upgrade`.
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: UpgradeFormat,
}

pub fn run(ledger_path: &Path, args: UpgradeArgs) -> anyhow::Result<ExitCode> {
    if !ledger_path.join("conf").is_file() && !ledger_path.join("db").is_file() {
        return Err(LogError::NoLedger { path: ledger_path.to_path_buf() }.into());
    }
    let up = Ledger::upgrade(ledger_path)?;
    let kept = up.kept.as_ref().map(|p| p.display().to_string());
    match args.format {
        UpgradeFormat::Json => outln!(
            "{}",
            serde_json::json!({
                "from_format": up.from_format,
                "format": LEDGER_FORMAT,
                "old_head": up.old_head.to_string(),
                "head": up.head.to_string(),
                "root": hex(&up.root),
                "kept": kept,
            })
        )?,
        UpgradeFormat::Text => {
            match &kept {
                None => outln!(
                    "{} is already in format {LEDGER_FORMAT}: head {}, root {}",
                    ledger_path.display(),
                    up.head,
                    hex(&up.root)
                )?,
                Some(kept) => {
                    outln!(
                        "upgraded {} from format {} to {LEDGER_FORMAT} ({} events)",
                        ledger_path.display(),
                        up.from_format,
                        up.head.seq
                    )?;
                    if up.from_format < 3 {
                        outln!("old head {} (the chain over stored bytes)", up.old_head)?;
                    }
                    outln!("head {}", up.head)?;
                    outln!("root {}", hex(&up.root))?;
                    outln!("the old ledger is kept at {kept}; remove it once you have checked the new one")?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
