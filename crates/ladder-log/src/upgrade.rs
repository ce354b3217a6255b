//! `ladder upgrade`: rebuilds a ledger of an older format in this one.
//!
//! Formats 1 and 2 chained the stored codec bytes; format 3 chained each event's canonical JSON
//! line, as format 4 does, but kept its Merkle tree with blake3; format 4 keeps the tree of RFC
//! 6962 with SHA-256. The upgrade reads the old ledger from a copy (so nothing is ever written to
//! it: the ledger kept is byte for byte the one upgraded), checks the old chain whole, appends the
//! same events in the same order to a new ledger beside the old one (every append rule checked
//! again; from format 3 the chain must come out the same), and only then swaps the directories:
//! the old ledger is kept, renamed, and a crash at any point leaves it untouched.

use crate::headfile;
use crate::ledger::{Ledger, LEDGER_FORMAT};
use crate::store::SledStore;
use crate::{block, AppendOptions, Head, LogError, GENESIS};
use std::path::{Path, PathBuf};

/// What [`Ledger::upgrade`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upgraded {
    /// The format the ledger had ([`LEDGER_FORMAT`] when there was nothing to do).
    pub from_format: u8,
    /// Its head before, under the old chain (the same as `head` when there was nothing to do, and
    /// from format 3, whose chain is this format's).
    pub old_head: Head,
    /// Its head now.
    pub head: Head,
    /// The Merkle root over its events now (SHA-256).
    pub root: [u8; 32],
    /// Where the old ledger was kept, when it was rebuilt.
    pub kept: Option<PathBuf>,
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "ledger".into());
    name.push(suffix);
    path.with_file_name(name)
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> LogError {
    LogError::from_io(path, what, e)
}

impl Ledger {
    /// Rebuilds the sled ledger at `path` in [`LEDGER_FORMAT`] when it is of an older one: the old
    /// chain is verified whole first (a damaged ledger is not upgraded), the events are appended
    /// again to `PATH.upgrading`, and then `PATH` becomes `PATH.formatN` and the new ledger takes
    /// its place. A ledger already in this format is left as it is.
    pub fn upgrade(path: &Path) -> Result<Upgraded, LogError> {
        match Ledger::open_existing(path) {
            Ok(current) => {
                let head = current.head();
                return Ok(Upgraded {
                    from_format: LEDGER_FORMAT,
                    old_head: head,
                    head,
                    root: current.root()?,
                    kept: None,
                });
            }
            Err(LogError::OldFormat { .. }) => {}
            Err(e) => return Err(e),
        }
        // Read from a copy: sled's recovery writes to the files it opens, and the ledger kept
        // must be exactly the one upgraded.
        let copy = headfile::copy_to_temp(path)?;
        let old = Ledger::with_store_any_format(
            Box::new(SledStore::open(copy.path())?),
            Some(path.to_path_buf()),
        )?;
        let from_format = old.format;
        if from_format == LEDGER_FORMAT {
            return Err(LogError::Corrupt {
                place: format!("the upgrade of {}", path.display()),
                detail: format!(
                    "its head file names an older format, its store format {LEDGER_FORMAT}"
                ),
            });
        }
        if let Some(rec) = headfile::read(path)? {
            old.check_recorded(path, rec.head)?;
        }
        let old_head = old.head();
        verify_legacy_chain(&old)?;
        let kept = sibling(path, &format!(".format{from_format}"));
        if kept.exists() {
            return Err(LogError::Corrupt {
                place: format!("the upgrade of {}", path.display()),
                detail: format!(
                    "{} already exists: move it away, then run the upgrade again",
                    kept.display()
                ),
            });
        }
        let building = sibling(path, ".upgrading");
        if building.exists() {
            // Left by an upgrade that did not finish: ours to replace, unless another upgrade
            // holds it now.
            drop(crate::ledger::lock_dir(&building)?);
            std::fs::remove_dir_all(&building)
                .map_err(|e| io_error(&building, "removing an unfinished upgrade", e))?;
        }
        let (head, root) = {
            let mut new = Ledger::open(&building)?;
            let mut failed = None;
            let events = old.events(1).map_while(|r| match r {
                Ok(stored) => Some(Ok(stored.event)),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
            let report = new.append(events, &AppendOptions::default());
            if let Some(e) = failed {
                return Err(e);
            }
            let report = report.map_err(|e| LogError::Corrupt {
                place: format!("the upgrade of {}", path.display()),
                detail: format!("its events are not accepted again: {e}"),
            })?;
            if report.appended != old_head.seq {
                return Err(LogError::Corrupt {
                    place: format!("the upgrade of {}", path.display()),
                    detail: format!(
                        "{} of its {} events were appended again",
                        report.appended, old_head.seq
                    ),
                });
            }
            (new.head(), new.root()?)
        };
        if from_format >= 3 && head != old_head {
            // Format 3's chain is this format's: the same events must give the same head.
            return Err(LogError::Corrupt {
                place: format!("the upgrade of {}", path.display()),
                detail: format!("its chain came out as {head}, not its head {old_head}"),
            });
        }
        drop(old);
        drop(copy);
        std::fs::rename(path, &kept).map_err(|e| io_error(path, "keeping the old ledger", e))?;
        std::fs::rename(&building, path)
            .map_err(|e| io_error(path, "moving the upgraded ledger in place", e))?;
        Ok(Upgraded { from_format, old_head, head, root, kept: Some(kept) })
    }
}

/// Checks a legacy ledger's chain from seq 1 to its head: each hash over the stored codec bytes
/// (formats 1 and 2) or over the event's canonical JSON line (format 3).
fn verify_legacy_chain(old: &Ledger) -> Result<(), LogError> {
    let broken = |seq: u64, why: &str| LogError::Corrupt {
        place: format!("event {seq} of the ledger to upgrade"),
        detail: format!("{why}; a damaged ledger is not upgraded: restore it from a backup"),
    };
    let mut prev = GENESIS;
    let mut last = 0;
    let mut line = Vec::new();
    for item in old.events(1) {
        let e = item?;
        let leaf = if old.format >= 3 {
            line.clear();
            ladder_events::json::write_line(&e.event, &mut line);
            &line[..]
        } else {
            &e.bytes[..]
        };
        if e.prev_hash != prev || block::chain_hash(&prev, leaf) != e.hash {
            return Err(broken(e.seq, "its chain hash does not match"));
        }
        prev = e.hash;
        last = e.seq;
    }
    let head = old.head();
    if last != head.seq || prev != head.hash {
        return Err(broken(last + 1, "the chain ends before its head"));
    }
    Ok(())
}
