//! `ladder prove`: an inclusion or consistency proof from the ledger's Merkle tree.

use crate::cli::EventsArg;
use crate::source::open_for_read;
use crate::{Hinted, UsageError};
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_log::Ledger;
use ladder_proof::note::{split_note, Checkpoint};
use ladder_proof::tlog_proof::TlogProof;
use ladder_proof::{hex, Proof};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder prove --event 1234                 event 1234 is in the tree of every event
  ladder prove --event 1234 --size 5000     ... in the tree of the first 5000 (a checkpoint's)
  ladder prove --from 5000 --to 7000        the first 5000 events are unchanged in the first 7000
  ladder prove --event 1234 --format json > p.json && ladder check-proof p.json
  ladder prove --event 1234 --format tlog-proof --key club.key --origin chess.example.org/club
  ladder prove --event 1234 --format tlog-proof --checkpoint site/log/checkpoint

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
    /// A C2SP tlog-proof (c2sp.org/tlog-proof@v1): the event's line, the inclusion hashes and a
    /// signed checkpoint in one text (needs --key or --checkpoint); `check-proof` reads it too.
    TlogProof,
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
    /// With --format tlog-proof: sign the checkpoint of the tree with this key.
    #[arg(long, value_name = "FILE", conflicts_with = "checkpoint")]
    pub key: Option<PathBuf>,
    /// With --format tlog-proof and --key: the log's name (default as `ladder checkpoint`'s).
    #[arg(long, value_name = "NAME", requires = "key")]
    pub origin: Option<String>,
    /// With --format tlog-proof: prove inclusion in the tree of this signed checkpoint (one that
    /// `ladder publish` or `ladder checkpoint --key` wrote for this ledger) instead of signing one.
    #[arg(long, value_name = "NOTE")]
    pub checkpoint: Option<PathBuf>,
    #[command(flatten)]
    pub events: EventsArg,
}

/// `--format tlog-proof`: the inclusion proof of event `seq` in a signed checkpoint's tree.
fn tlog_proof(
    ledger: &Ledger,
    ledger_path: &Path,
    seq: u64,
    args: &ProveArgs,
) -> anyhow::Result<String> {
    let (note, size) = match (&args.key, &args.checkpoint) {
        (Some(file), None) => {
            let key = crate::signing::load_signer(file)?;
            let source = args.events.events.as_deref().unwrap_or(ledger_path);
            let origin = crate::signing::origin_or_default(args.origin.clone(), source)?;
            let size = args.size.unwrap_or(ledger.head().seq);
            let cp = Checkpoint { origin, size, root: ledger.root_at(size)? };
            (cp.sign(&key)?, size)
        }
        (None, Some(file)) => {
            if args.size.is_some() {
                return Err(UsageError(
                    "--checkpoint gives the tree size: leave out --size".into(),
                )
                .into());
            }
            let note = std::fs::read_to_string(file)
                .with_context(|| format!("reading the checkpoint {}", file.display()))?;
            let (text, _) = split_note(&note)
                .with_context(|| format!("{} is not a signed note", file.display()))?;
            let cp = Checkpoint::parse(text)
                .with_context(|| format!("{} is not a checkpoint", file.display()))?;
            let ours = ledger.root_at(cp.size).with_context(|| {
                format!("the checkpoint {} is of {} events", file.display(), cp.size)
            })?;
            if ours != cp.root {
                return Err(Hinted::refused(
                    format!(
                        "the checkpoint {} is not of this ledger: its tree of {} events has root {}, \
                         and the ledger's has {}",
                        file.display(),
                        cp.size,
                        hex(&cp.root),
                        hex(&ours)
                    ),
                    "give a checkpoint that `ladder publish` or `ladder checkpoint` wrote for this ledger",
                )
                .into());
            }
            (note, cp.size)
        }
        _ => {
            return Err(Hinted::usage(
                "--format tlog-proof needs a signed checkpoint: --key FILE to sign one, or \
                 --checkpoint NOTE to use a published one",
                "e.g. --key club.key --origin chess.example.org/club",
            )
            .into())
        }
    };
    let p = ledger.prove_inclusion(seq, size)?;
    let proof = TlogProof {
        extra: Some(p.leaf.into_bytes()),
        index: p.index,
        path: p.path,
        checkpoint: note,
    };
    Ok(proof.to_text())
}

pub fn run(ledger_path: &Path, args: ProveArgs) -> anyhow::Result<ExitCode> {
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    if args.format == ProveFormat::TlogProof {
        let Some(seq) = args.event else {
            return Err(UsageError(
                "--format tlog-proof is an inclusion proof: give --event SEQ".into(),
            )
            .into());
        };
        let text = tlog_proof(&ledger, ledger_path, seq, &args)?;
        use std::io::Write as _;
        write!(crate::out::stdout(), "{text}")?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.key.is_some() || args.checkpoint.is_some() {
        return Err(UsageError("--key and --checkpoint go with --format tlog-proof".into()).into());
    }
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
        ProveFormat::TlogProof => {} // printed above
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
