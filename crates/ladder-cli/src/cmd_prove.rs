//! `ladder prove`: an inclusion or consistency proof from the ledger's Merkle tree.

use crate::cli::EventsArg;
use crate::source::open_for_read;
use crate::UsageError;
use clap::{Args, ValueEnum};
use ladder_proof::{hex, Proof};
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder prove --event 1234                 event 1234 is in the tree of every event
  ladder prove --event 1234 --size 5000     ... in the tree of the first 5000 (a checkpoint's)
  ladder prove --from 5000 --to 7000        the first 5000 events are unchanged in the first 7000
  ladder prove --event 1234 --format json > p.json && ladder check-proof p.json

A proof is checked offline, without the ledger: `ladder check-proof`, the `ladder-audit` program,
or any blake3 library (docs/proofs.md gives the exact bytes). An inclusion proof names the event
(its JSON line) and the tree head (size and root) it is included in; publish tree heads with
`ladder checkpoint` so that anyone can hold the ledger to them.";

/// Output formats of `prove`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProveFormat {
    /// Lines for people.
    Text,
    /// The proof as JSON (docs/proofs.md), what `ladder check-proof` reads.
    Json,
}

/// Arguments of `prove`.
#[derive(Debug, Args)]
pub struct ProveArgs {
    /// Prove that this event (its sequence number) is in the tree.
    #[arg(long, value_name = "SEQ", conflicts_with_all = ["from", "to"])]
    pub event: Option<u64>,
    /// With --event: the tree of the first SIZE events (default: all of them).
    #[arg(long, value_name = "SIZE", requires = "event")]
    pub size: Option<u64>,
    /// Prove that the tree of the first FROM events is a prefix of ...
    #[arg(long, value_name = "FROM", requires = "to")]
    pub from: Option<u64>,
    /// ... the tree of the first TO events.
    #[arg(long, value_name = "TO", requires = "from")]
    pub to: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ProveFormat,
    #[command(flatten)]
    pub events: EventsArg,
}

pub fn run(ledger_path: &Path, args: ProveArgs) -> anyhow::Result<ExitCode> {
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let proof =
        match (args.event, args.from, args.to) {
            (Some(seq), None, None) => {
                let size = args.size.unwrap_or(ledger.head().seq);
                Proof::Inclusion(ledger.prove_inclusion(seq, size)?)
            }
            (None, Some(from), Some(to)) => Proof::Consistency(ledger.prove_consistency(from, to)?),
            _ => return Err(UsageError(
                "give --event SEQ [--size SIZE] for an inclusion proof, or --from A --to B for a \
                 consistency proof"
                    .into(),
            )
            .into()),
        };
    match args.format {
        ProveFormat::Json => outln!("{}", proof.to_json())?,
        ProveFormat::Text => match &proof {
            Proof::Inclusion(p) => {
                outln!("event {} is in the tree of the first {} events", p.index + 1, p.size)?;
                outln!("root  {}", hex(&p.root))?;
                outln!("leaf  {}", p.leaf)?;
                outln!("path  ({} hashes, from the leaf up)", p.path.len())?;
                for h in &p.path {
                    outln!("  {}", hex(h))?;
                }
            }
            Proof::Consistency(p) => {
                outln!("the first {} events are unchanged in the first {}", p.from, p.to)?;
                outln!("old root  {}", hex(&p.old_root))?;
                outln!("new root  {}", hex(&p.new_root))?;
                outln!("path  ({} hashes)", p.path.len())?;
                for h in &p.path {
                    outln!("  {}", hex(h))?;
                }
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}
