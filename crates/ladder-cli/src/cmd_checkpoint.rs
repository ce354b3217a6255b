//! `ladder checkpoint`: the tree head as a C2SP tlog-checkpoint note, signed when a key is given.

use crate::cli::EventsArg;
use crate::signing::{load_signer, origin_or_default};
use crate::source::open_for_read;
use clap::Args;
use ladder_proof::note::Checkpoint;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder checkpoint --origin chess.example.org/club            the tree head, unsigned
  ladder keygen club.key --name chess.example.org/club         once: a signing key
  ladder checkpoint --origin chess.example.org/club --key club.key > checkpoint.txt

Publish the signed note (daily, say): anyone holding it can check a proof against it with
`ladder check-proof PROOF.json --checkpoint checkpoint.txt --pubkey KEY`, and that two published
checkpoints are consistent with `ladder prove --from OLD --to NEW` (docs/proofs.md).";

/// Arguments of `checkpoint`.
#[derive(Debug, Args)]
pub struct CheckpointArgs {
    /// The log's name, the note's first line: a name only this ledger uses, such as a domain and
    /// a path (default: `ladder/` and the ledger directory's name).
    #[arg(long, value_name = "NAME")]
    pub origin: Option<String>,
    /// Sign the note with this key file (written by `ladder keygen`).
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    #[command(flatten)]
    pub events: EventsArg,
}

pub fn run(ledger_path: &Path, args: CheckpointArgs) -> anyhow::Result<ExitCode> {
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let source = args.events.events.as_deref().unwrap_or(ledger_path);
    let origin = origin_or_default(args.origin, source)?;
    let checkpoint = Checkpoint { origin, size: ledger.head().seq, root: ledger.root()? };
    match &args.key {
        // An unsigned note: its text, then the blank line that ends a note's text.
        None => outln!("{}", checkpoint.to_text())?,
        Some(file) => {
            let key = load_signer(file)?;
            {
                use std::io::Write as _;
                write!(crate::out::stdout(), "{}", checkpoint.sign(&key)?)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
