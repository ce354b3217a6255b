//! `ladder verify`: recompute the hash chain.

use crate::cli::EventsArg;
use crate::source::open_for_read;
use crate::{Hinted, UsageError};
use clap::{Args, ValueEnum};
use ladder_log::{Head, VerifyError};
use ladder_proof::note::Checkpoint;
use std::path::Path;
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder verify                                   prints `ok: head SEQ:HASH root HEX ...`
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
    /// Fail unless the ledger still holds this head: `SEQ:HASH` as `verify` printed it, or a
    /// file holding a checkpoint note as `ladder checkpoint` printed it (its tree of SIZE events
    /// must have the note's root).
    #[arg(long, value_name = "SEQ:HASH|NOTE")]
    pub expect_head: Option<String>,
    /// With a signed checkpoint note: the verifier key (text or file) its signature must verify
    /// under.
    #[arg(long, value_name = "KEY", requires = "expect_head")]
    pub pubkey: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: VerifyFormat,
    #[command(flatten)]
    pub events: EventsArg,
}

/// The checkpoint in a note file, its signature verified when a key is given: the checkpoint
/// and who signed it.
fn read_checkpoint(
    path: &Path,
    pubkey: Option<&str>,
) -> anyhow::Result<(Checkpoint, Option<String>)> {
    use anyhow::Context;
    let note = std::fs::read_to_string(path)
        .with_context(|| format!("reading the checkpoint note {}", path.display()))?;
    let note_error = |e: ladder_proof::note::NoteError| {
        Hinted::refused(
            format!("{}: {e}", path.display()),
            "pass a note as `ladder checkpoint` prints it, and the verifier key `ladder keygen` printed",
        )
    };
    match pubkey {
        Some(arg) => {
            let key = crate::signing::verifier_key(arg)?.map_err(UsageError)?;
            let label = key.label();
            let cp = Checkpoint::open(&note, &[key]).map_err(note_error)?;
            Ok((cp, Some(label)))
        }
        None => {
            // The note's text is everything before its blank line (a signed note's signature
            // lines follow it, unchecked without a key).
            let text = note.split_once("\n\n").map_or(note.as_str(), |(t, _)| t);
            Ok((Checkpoint::parse(&format!("{text}\n")).map_err(note_error)?, None))
        }
    }
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
        VerifyError::Index { .. } => Some(
            "the events are intact but a derived index or checkpoint is not: rebuild the ledger from an export (`ladder log --format jsonl` into `ladder import` on a new ledger)".into(),
        ),
        VerifyError::HeadMissing { .. } => Some(
            "the ledger was cut at its tail or rewritten since that head was published; compare it with an export taken then (`ladder verify --events FILE.jsonl`)".into(),
        ),
        _ => None,
    }
}

/// Checks the folded form beside the ledger (a replay's cache, docs/spec.md "The folded form")
/// against the chain it was derived from. One that does not match is removed, and said so on
/// stderr: the ledger itself is intact (its verification passed), and the next replay builds the
/// folded form again from the events. A missing or stale one is left for the next replay.
fn check_folded(ledger: &ladder_log::Ledger) {
    use ladder_log::FoldedState;
    match ledger.check_folded() {
        Ok(FoldedState::Damaged { detail }) => {
            let done = match ledger.remove_folded() {
                Ok(()) => "removed it; the next replay builds it again from the events".to_string(),
                Err(e) => format!("could not remove it ({e}); replays check it and rebuild it"),
            };
            eprintln!(
                "note: the folded form {} (a replay's cache) does not match the chain ({detail}): {done}",
                ladder_log::FOLDED_FILE
            );
        }
        Ok(_) => {}
        Err(e) => eprintln!(
            "note: the folded form {} (a replay's cache) could not be checked ({e}); replays check it before use",
            ladder_log::FOLDED_FILE
        ),
    }
}

pub fn run(ledger_path: &Path, args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut expect = None;
    let mut note = None;
    match &args.expect_head {
        None => {}
        Some(text) => match Head::parse(text) {
            Ok(h) => expect = Some(h),
            Err(e) if !Path::new(text).is_file() => {
                return Err(UsageError(format!(
                    "--expect-head: {e}; nor is it a file holding a checkpoint note"
                ))
                .into())
            }
            Err(_) => note = Some(read_checkpoint(Path::new(text), args.pubkey.as_deref())?),
        },
    }
    let ledger = open_for_read(ledger_path, args.events.events.as_deref())?;
    let verified = ledger.verify(expect).and_then(|head| Ok((head, ledger.root()?)));
    if let (Ok((head, _)), Some((cp, _))) = (&verified, &note) {
        let failure = if cp.size > head.seq {
            Some(format!("it holds {} events, the checkpoint names {}", head.seq, cp.size))
        } else {
            let root = ledger.root_at(cp.size)?;
            (root != cp.root).then(|| {
                format!(
                    "its tree of the first {} events has root {}, the checkpoint names {}: those \
                     events were changed since it was published",
                    cp.size,
                    ladder_proof::hex(&root),
                    ladder_proof::hex(&cp.root)
                )
            })
        };
        if let Some(why) = failure {
            let message =
                format!("the ledger does not hold the checkpoint of {}: {why}", cp.origin);
            match args.format {
                VerifyFormat::Text => {
                    eprintln!("error: verification failed: {message}");
                    eprintln!("hint: the ledger was cut or rewritten since that checkpoint was published; compare it with an export taken then (`ladder verify --events FILE.jsonl`)");
                }
                VerifyFormat::Json => {
                    // A failed verification exits 1 even when nobody reads the report.
                    let _ = outln!(
                        "{}",
                        serde_json::json!({"ok": false, "bad_seq": null, "error": message})
                    );
                }
            }
            return Ok(ExitCode::from(1));
        }
    }
    match verified {
        Ok((head, root)) => {
            if let (Some((cp, signer)), VerifyFormat::Text) = (&note, args.format) {
                let by = signer.as_deref().map_or(
                    String::from("its signature, if any, not checked: pass --pubkey"),
                    |s| format!("signed by {s}"),
                );
                eprintln!(
                    "the ledger holds the checkpoint of {} at {} events ({by})",
                    cp.origin, cp.size
                );
            }
            check_folded(&ledger);
            let root = ladder_proof::hex(&root);
            match args.format {
                VerifyFormat::Text => outln!(
                    "ok: head {head} root {root} ({} events, chain intact; the Merkle tree, \
                         indexes and checkpoints match it)",
                    head.seq
                )?,
                VerifyFormat::Json => outln!(
                    "{}",
                    serde_json::json!({"ok": true, "head": head.to_string(), "root": root, "events": head.seq})
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
