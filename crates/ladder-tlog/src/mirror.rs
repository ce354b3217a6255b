//! `ladder mirror SOURCE`: a ledger that holds exactly a published log, checked against its
//! signed checkpoints.

use crate::fetch::{Fetch, FetchError};
use ladder_events::{Rule, Violation};
use ladder_log::{AppendError, Head, Ledger, LogError};
use ladder_proof::note::{Checkpoint, NoteError, VerifierKey};
use ladder_proof::tiles::{
    read_entry_bundle, read_hash_tile, Tile, TileReadError, TileTree, TILE_WIDTH,
};
use ladder_proof::{
    consistency_proof, hex, leaf_hash, root, verify_consistency, Frontier, Hash, Subtrees,
};
use std::path::{Path, PathBuf};

/// What a mirror run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorReport {
    /// The mirror's size before.
    pub old_size: u64,
    /// Events appended.
    pub appended: u64,
    /// The mirror's head after (its chain head equals the source ledger's at this size).
    pub head: Head,
    /// The tree root after, the source checkpoint's.
    pub root: Hash,
    /// The source's origin.
    pub origin: String,
    /// Where the last mirrored checkpoint is kept.
    pub state: PathBuf,
}

/// Why a mirror run appended nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MirrorError {
    /// A resource of the source could not be read.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The source's checkpoint is not signed by the key, or is not a checkpoint.
    #[error("the source's checkpoint ({location}): {source}")]
    Checkpoint {
        /// Where it was read.
        location: String,
        /// Why it was refused.
        #[source]
        source: NoteError,
    },
    /// The source's tiles or entries do not hash to its signed checkpoint: damaged or lying, not
    /// (yet) shown to be a fork.
    #[error("the source does not match its own signed checkpoint: {0}")]
    Inconsistent(String),
    /// The source's signed checkpoint is not consistent with the one mirrored before, or with
    /// the events the ledger holds: a forked or rewritten log. Both checkpoints are kept.
    #[error(
        "the source is not consistent with what was mirrored before ({detail}): a forked or \
         rewritten log. Nothing was appended; both signed checkpoints are kept as evidence in {}",
        evidence.display()
    )]
    Fork {
        /// How the two disagree.
        detail: String,
        /// The directory holding both checkpoints.
        evidence: PathBuf,
    },
    /// The ledger holds events but was not made by mirroring this log.
    #[error("{0}")]
    NotAMirror(String),
    /// A source entry that is not an event this ledger accepts as it is.
    #[error("entry {index} of the source (event {}) is refused: {violation}", index + 1)]
    Entry {
        /// Its 0-based index in the log.
        index: u64,
        /// Why.
        violation: Violation,
    },
    /// The ledger could not be read or written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A file beside the ledger could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Where the mirror of the ledger at `ledger_path` keeps its last mirrored checkpoint and any
/// evidence: the directory `PATH.mirror` beside the ledger.
pub fn mirror_state_dir(ledger_path: &Path) -> PathBuf {
    let mut p = ledger_path.as_os_str().to_owned();
    p.push(".mirror");
    PathBuf::from(p)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MirrorError + '_ {
    move |source| MirrorError::Io { path: path.to_path_buf(), source }
}

fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), MirrorError> {
    use std::io::Write as _;
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))?;
    std::fs::File::open(parent).and_then(|d| d.sync_all()).map_err(io(parent))
}

/// Keeps both notes in `state/fork-OLD-NEW/` and returns the refusal naming it.
fn fork(
    state: &Path,
    mirrored: Option<(&str, u64)>,
    source_note: &str,
    source_size: u64,
    detail: String,
) -> MirrorError {
    let old = mirrored.map_or(0, |(_, s)| s);
    let evidence = state.join(format!("fork-{old}-{source_size}"));
    let kept = (|| {
        if let Some((note, _)) = mirrored {
            write_durably(&evidence.join("mirrored-checkpoint"), note.as_bytes())?;
        }
        write_durably(&evidence.join("source-checkpoint"), source_note.as_bytes())
    })();
    match kept {
        Ok(()) => MirrorError::Fork { detail, evidence },
        Err(e) => e,
    }
}

fn tile_error(e: TileReadError<FetchError>) -> MirrorError {
    match e {
        TileReadError::Fetch(f) => MirrorError::Fetch(f),
        other => MirrorError::Inconsistent(other.to_string()),
    }
}

/// Mirrors the log `source` publishes, signed by `key`, into `ledger` (whose path is
/// `ledger_path`, for the state kept beside it):
/// 1. fetch the checkpoint and verify its signature;
/// 2. check that the source's tiles hash to its root;
/// 3. check that the ledger's tree (and the checkpoint mirrored last, kept in
///    [`mirror_state_dir`]) is a prefix of it, by a consistency proof built from the tiles and
///    verified against both signed roots: otherwise the source forked or was rewritten, and
///    both checkpoints are kept as evidence;
/// 4. fetch the new entries, check each against its level-0 tile hash, and append them all
///    at once with [`Ledger::replicate`], so the ledger's chain head and root equal the source's;
/// 5. keep the new checkpoint as the last mirrored.
///
/// Any failure before step 5 leaves the ledger as it was.
pub fn mirror(
    source: &dyn Fetch,
    key: &VerifierKey,
    ledger: &mut Ledger,
    ledger_path: &Path,
) -> Result<MirrorReport, MirrorError> {
    let state = mirror_state_dir(ledger_path);
    let location = source.locate("checkpoint");
    let note_bytes = source.fetch("checkpoint")?;
    let note = String::from_utf8(note_bytes).map_err(|_| MirrorError::Checkpoint {
        location: location.clone(),
        source: NoteError::Malformed("not UTF-8".into()),
    })?;
    let cp = Checkpoint::open(&note, std::slice::from_ref(key))
        .map_err(|source| MirrorError::Checkpoint { location: location.clone(), source })?;

    // The checkpoint mirrored before, checked against the ledger.
    let last_path = state.join("checkpoint");
    let last_note = match std::fs::read_to_string(&last_path) {
        Ok(n) => Some(n),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(&last_path)(e)),
    };
    let local = ledger.head().seq;
    let last = match &last_note {
        None if local > 0 => {
            return Err(MirrorError::NotAMirror(format!(
                "the ledger holds {local} events and was not made by `ladder mirror` (there is no \
                 {}): mirror into a new ledger",
                last_path.display()
            )))
        }
        None => None,
        Some(n) => {
            let last = Checkpoint::open(n, std::slice::from_ref(key)).map_err(|e| {
                MirrorError::NotAMirror(format!(
                    "the last mirrored checkpoint {} does not verify with this key: {e}",
                    last_path.display()
                ))
            })?;
            if last.origin != cp.origin {
                return Err(MirrorError::NotAMirror(format!(
                    "this ledger mirrors {:?}, and the source is {:?}",
                    last.origin, cp.origin
                )));
            }
            let ours = if last.size <= local { Some(ledger.root_at(last.size)?) } else { None };
            if ours != Some(last.root) {
                return Err(MirrorError::NotAMirror(format!(
                    "the ledger ({local} events) no longer holds the tree of the checkpoint it \
                     mirrored last ({} events, root {}): it was changed outside `ladder mirror`",
                    last.size,
                    hex(&last.root)
                )));
            }
            Some(last)
        }
    };
    let mirrored = last_note.as_deref().zip(last.as_ref().map(|l| l.size));

    if cp.size < local || last.as_ref().is_some_and(|l| cp.size < l.size) {
        let had = last.as_ref().map_or(local, |l| l.size).max(local);
        return Err(fork(
            &state,
            mirrored,
            &note,
            cp.size,
            format!("its checkpoint is of {} events, and {had} were mirrored before", cp.size),
        ));
    }

    // 2. The tiles hash to the signed root.
    let mut tree = TileTree::new(cp.size, |t: &Tile| source.fetch(&t.path()));
    let tiles_root = root(cp.size, &mut tree).map_err(|e| match e {
        ladder_proof::ProveError::Source(e) => tile_error(e),
        other => MirrorError::Inconsistent(other.to_string()),
    })?;
    if tiles_root != cp.root {
        return Err(MirrorError::Inconsistent(format!(
            "its tiles give root {} for {} events, and its checkpoint says {}",
            hex(&tiles_root),
            cp.size,
            hex(&cp.root)
        )));
    }

    // 3. What the ledger holds is a prefix of the signed tree.
    if local > 0 {
        let ours = ledger.root_at(local)?;
        let proof = consistency_proof(local, cp.size, &mut tree).map_err(|e| match e {
            ladder_proof::ProveError::Source(e) => tile_error(e),
            other => MirrorError::Inconsistent(other.to_string()),
        })?;
        if let Err(e) = verify_consistency(local, cp.size, &ours, &cp.root, &proof) {
            return Err(fork(
                &state,
                mirrored,
                &note,
                cp.size,
                format!(
                    "the mirror's {local} events (root {}) are not the first {local} of the \
                     source's {} ({e})",
                    hex(&ours),
                    cp.size
                ),
            ));
        }
    }

    // 4. The new entries, appended all at once.
    drop(tree);
    let mut failure: Option<MirrorError> = None;
    // The entries are believed only once their leaf hashes, appended to the ledger's own tree,
    // give the signed root: checked after the last entry, before the batch is committed.
    let frontier = Frontier::from_subtrees(local, &mut LedgerTree(ledger))?;
    let events = NewEntries {
        source,
        next: local,
        end: cp.size,
        bundle: Vec::new(),
        at: 0,
        frontier,
        root: cp.root,
        checked: false,
    };
    let result = ledger.replicate(events.map(|item| match item {
        Ok(event) => Ok(event),
        Err(e) => {
            failure = Some(e);
            // Refuses the batch: nothing of it is stored.
            Err(Violation::new(Rule::Unreadable, "the source could not be read".to_string()))
        }
    }));
    let report = match result {
        Ok(r) => r,
        Err(AppendError::Refused { index, violation }) => {
            return Err(
                failure.unwrap_or(MirrorError::Entry { index: local + index as u64, violation })
            )
        }
        Err(AppendError::Storage(e)) | Err(AppendError::Unconfirmed(e)) => return Err(e.into()),
        Err(other) => return Err(MirrorError::Log(LogError::Proof(other.to_string()))),
    };
    let head = ledger.head();
    let new_root = ledger.root()?;
    if head.seq != cp.size || new_root != cp.root {
        return Err(MirrorError::Inconsistent(format!(
            "after appending its entries the mirror holds {} events with root {}, and the \
             checkpoint says {} with root {}",
            head.seq,
            hex(&new_root),
            cp.size,
            hex(&cp.root)
        )));
    }
    write_durably(&last_path, note.as_bytes())?;
    Ok(MirrorReport {
        old_size: local,
        appended: report.appended,
        head,
        root: new_root,
        origin: cp.origin,
        state,
    })
}

/// The ledger's stored tree as a [`Subtrees`] source.
struct LedgerTree<'a>(&'a Ledger);

impl Subtrees for LedgerTree<'_> {
    type Error = LogError;
    fn subtree(&mut self, level: u32, index: u64) -> Result<Hash, LogError> {
        self.0.subtree(level, index)
    }
}

/// The source's entries from `next` to `end`, read a bundle at a time, as events. Each bundle is
/// checked against its level-0 tile (to name a damaged entry), and every entry's leaf hash is
/// appended to `frontier`, the ledger's tree: after the last entry the frontier's root must be
/// the signed `root`, or the iterator ends with an error, which refuses the whole batch.
struct NewEntries<'a> {
    source: &'a dyn Fetch,
    next: u64,
    end: u64,
    /// The current bundle's entries, and the index of its first.
    bundle: Vec<Vec<u8>>,
    at: u64,
    frontier: Frontier,
    root: Hash,
    checked: bool,
}

impl Iterator for NewEntries<'_> {
    type Item = Result<ladder_events::Event, MirrorError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            if self.checked {
                return None;
            }
            self.checked = true;
            let ours = self.frontier.root();
            if self.frontier.size() != self.end || ours != self.root {
                return Some(Err(MirrorError::Inconsistent(format!(
                    "its entries give root {} for {} events, and its checkpoint says {}",
                    hex(&ours),
                    self.frontier.size(),
                    hex(&self.root)
                ))));
            }
            return None;
        }
        let width = u64::from(TILE_WIDTH);
        let n = self.next / width;
        if self.bundle.is_empty() || self.at != n * width {
            let w = (self.end - n * width).min(width) as u32;
            let tile = Tile::entries(n, w);
            let loaded = (|| {
                let bytes = self.source.fetch(&tile.path())?;
                let entries = read_entry_bundle(&tile, &bytes)
                    .map_err(|e| MirrorError::Inconsistent(e.to_string()))?;
                let hash_tile = Tile::hashes(0, n, w);
                let hashes = read_hash_tile(&hash_tile, &self.source.fetch(&hash_tile.path())?)
                    .map_err(|e| MirrorError::Inconsistent(e.to_string()))?;
                for (i, (entry, hash)) in entries.iter().zip(&hashes).enumerate() {
                    if leaf_hash(entry) != *hash {
                        return Err(MirrorError::Inconsistent(format!(
                            "entry {} in {} does not hash to its leaf hash in tile/0",
                            n * width + i as u64,
                            self.source.locate(&tile.path())
                        )));
                    }
                }
                Ok(entries.into_iter().map(<[u8]>::to_vec).collect())
            })();
            match loaded {
                Ok(b) => {
                    self.bundle = b;
                    self.at = n * width;
                }
                Err(e) => {
                    self.next = self.end;
                    return Some(Err(e));
                }
            }
        }
        let entry = &self.bundle[(self.next - self.at) as usize];
        let index = self.next;
        self.next += 1;
        self.frontier.push(leaf_hash(entry), |_, _, _| {});
        let event = std::str::from_utf8(entry)
            .map_err(|_| Violation::new(Rule::Syntax, "the entry is not UTF-8".to_string()))
            .and_then(ladder_events::json::parse_line)
            .and_then(|event| {
                // The entry must be the event's canonical line, so the mirror hashes the same
                // bytes (docs/proofs.md).
                if ladder_events::json::to_line(&event).as_bytes() == entry.as_slice() {
                    Ok(event)
                } else {
                    Err(Violation::new(
                        Rule::Syntax,
                        "the entry is not the event's canonical JSON line".to_string(),
                    ))
                }
            });
        Some(event.map_err(|violation| MirrorError::Entry { index, violation }))
    }
}
