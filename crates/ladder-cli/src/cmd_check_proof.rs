//! `ladder check-proof`: verify an inclusion or consistency proof offline, and optionally the
//! signed checkpoint it should end in. Needs no ledger.

use crate::signing::verifier_key;
use crate::UsageError;
use anyhow::Context;
use clap::{Args, ValueEnum};
use ladder_proof::note::Checkpoint;
use ladder_proof::tlog_proof::TlogProof;
use ladder_proof::{hex, InclusionProof, Proof};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder check-proof proof.json                     the proof alone
  ladder check-proof proof.json --checkpoint checkpoint.txt --pubkey club.key.pub
  ladder check-proof proof.json --checkpoint checkpoint.txt --pubkey 'ladder+1a2b3c4d+AX...'
  ladder prove --event 6 --format json | ladder check-proof -
  ladder check-proof c.json --old-checkpoint mon.txt --checkpoint tue.txt --pubkey club.key.pub
  ladder check-proof event.tlog-proof --pubkey club.key.pub        a C2SP tlog-proof

Exit 0 and `ok: ...` when everything holds; exit 1 naming what failed otherwise. With a
checkpoint, the note's signature must verify with the key, and the proof must end in the
checkpoint's tree (same size and root). With --old-checkpoint (a consistency proof), the older
note must verify too and the proof must start from its tree: the log only grew between the two.
docs/proofs.md explains what a failure means.";

/// Output formats of `check-proof`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// One line for people.
    Text,
    /// `{"ok":true,...}` or `{"ok":false,"error":"..."}`.
    Json,
}

/// Arguments of `check-proof`.
#[derive(Debug, Args)]
pub struct CheckProofArgs {
    /// The proof, as `ladder prove --format json` or `--format tlog-proof` prints it (`-` reads
    /// standard input).
    #[arg(value_name = "PROOF")]
    pub proof: PathBuf,
    /// A signed checkpoint note (as `ladder checkpoint --key` prints it): also check its
    /// signature and that the proof ends in the checkpoint's tree.
    #[arg(long, value_name = "NOTE", requires = "pubkey")]
    pub checkpoint: Option<PathBuf>,
    /// The verifier key that signed the checkpoint: its text (NAME+ID+KEY, as `ladder keygen`
    /// printed it) or a file holding it. Required with a tlog-proof.
    #[arg(long, value_name = "KEY")]
    pub pubkey: Option<String>,
    /// With a tlog-proof: the entry's bytes (an event's JSON line, no newline), for a proof
    /// that does not carry them.
    #[arg(long, value_name = "FILE")]
    pub entry: Option<PathBuf>,
    /// With a consistency proof: the older signed checkpoint (same key), whose tree the proof
    /// must start from, so that the two published checkpoints are shown consistent.
    #[arg(long, value_name = "NOTE", requires = "checkpoint")]
    pub old_checkpoint: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: CheckFormat,
}

fn read(path: &Path) -> anyhow::Result<String> {
    if path == Path::new("-") {
        return std::io::read_to_string(std::io::stdin()).context("reading standard input");
    }
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// What was checked, for the success line.
struct Checked {
    proof: Proof,
    checkpoint: Option<(Checkpoint, String)>,
    /// The older checkpoint a consistency proof was checked against.
    old_checkpoint: Option<Checkpoint>,
}

/// A C2SP tlog-proof: its checkpoint's signature, then the entry's inclusion.
fn check_tlog(args: &CheckProofArgs, text: &str) -> anyhow::Result<Result<Checked, String>> {
    if args.checkpoint.is_some() || args.old_checkpoint.is_some() {
        return Err(UsageError(
            "a tlog-proof carries its checkpoint: leave out --checkpoint and --old-checkpoint"
                .into(),
        )
        .into());
    }
    let Some(key_arg) = &args.pubkey else {
        return Err(UsageError(
            "a tlog-proof is checked against its log's key: give --pubkey KEY".into(),
        )
        .into());
    };
    let key = match verifier_key(key_arg)? {
        Ok(k) => k,
        Err(e) => return Ok(Err(e)),
    };
    let proof = match TlogProof::parse(text) {
        Ok(p) => p,
        Err(e) => return Ok(Err(format!("{}: {e}", args.proof.display()))),
    };
    let entry = match &args.entry {
        Some(f) => Some(std::fs::read(f).with_context(|| format!("reading {}", f.display()))?),
        None => None,
    };
    let checkpoint = match proof.verify(entry.as_deref(), std::slice::from_ref(&key)) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let leaf = entry.or(proof.extra).unwrap_or_default();
    Ok(Ok(Checked {
        proof: Proof::Inclusion(InclusionProof {
            index: proof.index,
            size: checkpoint.size,
            leaf: String::from_utf8_lossy(&leaf).into_owned(),
            root: checkpoint.root,
            path: proof.path,
        }),
        checkpoint: Some((checkpoint, key.label())),
        old_checkpoint: None,
    }))
}

fn check(args: &CheckProofArgs) -> anyhow::Result<Result<Checked, String>> {
    let text = read(&args.proof)?;
    if text.starts_with(ladder_proof::tlog_proof::HEADER) {
        return check_tlog(args, &text);
    }
    if args.entry.is_some() {
        return Err(UsageError("--entry goes with a tlog-proof".into()).into());
    }
    if args.pubkey.is_some() && args.checkpoint.is_none() {
        return Err(UsageError(
            "--pubkey checks a signed checkpoint: give --checkpoint NOTE too".into(),
        )
        .into());
    }
    let proof = match Proof::from_json(text.trim_end()) {
        Ok(p) => p,
        Err(e) => return Ok(Err(format!("{}: {e}", args.proof.display()))),
    };
    if let Err(e) = proof.check() {
        return Ok(Err(format!("the proof does not verify: {e}")));
    }
    let (Some(note_path), Some(key_arg)) = (&args.checkpoint, &args.pubkey) else {
        return Ok(Ok(Checked { proof, checkpoint: None, old_checkpoint: None }));
    };
    let key = match verifier_key(key_arg)? {
        Ok(k) => k,
        Err(e) => return Ok(Err(e)),
    };
    let note = read(note_path)?;
    let checkpoint = match Checkpoint::open(&note, std::slice::from_ref(&key)) {
        Ok(c) => c,
        Err(e) => return Ok(Err(format!("checkpoint {}: {e}", note_path.display()))),
    };
    let (size, root) = proof.tree_head();
    if (size, root) != (checkpoint.size, checkpoint.root) {
        return Ok(Err(format!(
            "the proof ends in a tree of {size} events with root {}, but the checkpoint is of {} events with root {}",
            hex(&root),
            checkpoint.size,
            hex(&checkpoint.root)
        )));
    }
    let old_checkpoint = match (&args.old_checkpoint, &proof) {
        (None, _) => None,
        (Some(_), Proof::Inclusion(_)) => {
            return Ok(Err("--old-checkpoint applies to a consistency proof (`ladder prove \
                           --from A --to B`), and this is an inclusion proof"
                .into()))
        }
        (Some(old_path), Proof::Consistency(p)) => {
            let note = read(old_path)?;
            let old = match Checkpoint::open(&note, std::slice::from_ref(&key)) {
                Ok(c) => c,
                Err(e) => return Ok(Err(format!("checkpoint {}: {e}", old_path.display()))),
            };
            if old.origin != checkpoint.origin {
                return Ok(Err(format!(
                    "the old checkpoint is of log {:?}, the new one of {:?}",
                    old.origin, checkpoint.origin
                )));
            }
            if (p.from, p.old_root) != (old.size, old.root) {
                return Ok(Err(format!(
                    "the proof starts from a tree of {} events with root {}, but the old \
                     checkpoint is of {} events with root {}",
                    p.from,
                    hex(&p.old_root),
                    old.size,
                    hex(&old.root)
                )));
            }
            Some(old)
        }
    };
    Ok(Ok(Checked { proof, checkpoint: Some((checkpoint, key.label())), old_checkpoint }))
}

fn success_line(c: &Checked) -> String {
    let mut line = match &c.proof {
        Proof::Inclusion(p) => format!(
            "ok: event {} (leaf index {}) is in the tree of the first {} events, root {}",
            p.index + 1,
            p.index,
            p.size,
            hex(&p.root)
        ),
        Proof::Consistency(p) => format!(
            "ok: the first {} events (root {}) are unchanged in the first {} (root {})",
            p.from,
            hex(&p.old_root),
            p.to,
            hex(&p.new_root)
        ),
    };
    if let Some((cp, key)) = &c.checkpoint {
        match &c.old_checkpoint {
            Some(old) => line.push_str(&format!(
                "; checkpoints of {} at {} and {} events signed by {key}",
                cp.origin, old.size, cp.size
            )),
            None => line.push_str(&format!("; checkpoint of {} signed by {key}", cp.origin)),
        }
    }
    line
}

fn success_json(c: &Checked) -> serde_json::Value {
    let (size, root) = c.proof.tree_head();
    let kind = match c.proof {
        Proof::Inclusion(_) => "inclusion",
        Proof::Consistency(_) => "consistency",
    };
    let checkpoint = c
        .checkpoint
        .as_ref()
        .map(|(cp, key)| serde_json::json!({"origin": cp.origin, "size": cp.size, "key": key}));
    let old = c.old_checkpoint.as_ref().map(|cp| serde_json::json!({"size": cp.size}));
    serde_json::json!({
        "ok": true, "kind": kind, "size": size, "root": hex(&root), "checkpoint": checkpoint,
        "old_checkpoint": old,
    })
}

pub fn run(args: CheckProofArgs) -> anyhow::Result<ExitCode> {
    match check(&args)? {
        Ok(c) => {
            match args.format {
                CheckFormat::Text => outln!("{}", success_line(&c))?,
                CheckFormat::Json => outln!("{}", success_json(&c))?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(why) => {
            match args.format {
                CheckFormat::Text => {
                    eprintln!("error: check failed: {why}");
                    eprintln!("hint: docs/proofs.md, \"What a failed check means\"");
                }
                CheckFormat::Json => {
                    // A failed check exits 1 even when nobody reads the report.
                    let _ = outln!("{}", serde_json::json!({"ok": false, "error": why}));
                }
            }
            Ok(ExitCode::from(1))
        }
    }
}
