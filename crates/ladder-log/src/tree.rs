//! The Merkle tree the ledger keeps over its leaves (RFC 6962 section 2.1 with SHA-256): what is
//! stored, and the frontier an append grows.
//!
//! A leaf is an event's canonical JSON line ([`ladder_events::json::write_line`]). Only the hashes of
//! perfect subtrees of [`TILE_LEVEL`] and above (256 leaves and more) are stored, in the `nodes`
//! tree under [`node_key`]: about one 32-byte hash for every 128 events, well under 1% of a ledger.
//! Anything smaller is recomputed from the at most 255 events of one tile, so every proof costs
//! O(log n) reads (the tiles of Trillian and of the C2SP tlog-tiles layout, with one tile height).

use crate::ledger::{Ledger, Records};
use crate::store::{Store, Tree};
use crate::LogError;
use ladder_proof::{perfect_root, ConsistencyProof, Frontier, Hash, InclusionProof, Subtrees};

/// The lowest level of stored subtree hashes: 2^8 = 256 leaves.
pub const TILE_LEVEL: u32 = 8;

/// The key of the perfect subtree at `level` with `index` (leaves `index << level` up to, not
/// including, `(index + 1) << level`): the level byte, then the index big-endian, so a scan reads
/// one level in index order.
pub fn node_key(level: u32, index: u64) -> [u8; 9] {
    let mut k = [0u8; 9];
    k[0] = level as u8;
    k[1..].copy_from_slice(&index.to_be_bytes());
    k
}

/// The level and index a stored node key names.
pub fn parse_node_key(key: &[u8]) -> Option<(u32, u64)> {
    let (&level, index) = key.split_first()?;
    Some((u32::from(level), u64::from_be_bytes(index.try_into().ok()?)))
}

/// The ledger as a source of perfect-subtree hashes: stored ones from [`TILE_LEVEL`] up, smaller
/// ones recomputed from the leaves of their tile (the at most 256 events read once and kept).
pub(crate) struct LedgerSubtrees<'a> {
    ledger: &'a Ledger,
    /// The tile last read: its index and its leaf hashes.
    tile: Option<(u64, Vec<Hash>)>,
}

impl<'a> LedgerSubtrees<'a> {
    pub(crate) fn new(ledger: &'a Ledger) -> LedgerSubtrees<'a> {
        LedgerSubtrees { ledger, tile: None }
    }

    /// The leaf hashes of tile `t` (events `t * 256 + 1` on, through the head at most).
    fn tile(&mut self, t: u64) -> Result<&[Hash], LogError> {
        if self.tile.as_ref().map(|(i, _)| *i) != Some(t) {
            let first = (t << TILE_LEVEL) + 1;
            let last = ((t + 1) << TILE_LEVEL).min(self.ledger.head.seq);
            let mut leaves = Vec::with_capacity(1 << TILE_LEVEL);
            let mut line = Vec::new();
            let mut records = Records::from_seq(self.ledger, first);
            while let Some(r) = records.next_record() {
                let r = r?;
                if r.seq > last {
                    break;
                }
                let event = ladder_events::codec::decode(r.bytes)
                    .map_err(|source| LogError::Decode { seq: r.seq, source })?;
                line.clear();
                ladder_events::json::write_line(&event, &mut line);
                leaves.push(ladder_proof::leaf_hash(&line));
            }
            self.tile = Some((t, leaves));
        }
        Ok(self.tile.as_ref().map(|(_, l)| l.as_slice()).unwrap_or(&[]))
    }
}

impl Subtrees for LedgerSubtrees<'_> {
    type Error = LogError;

    fn subtree(&mut self, level: u32, index: u64) -> Result<Hash, LogError> {
        let end = (index + 1).checked_shl(level).unwrap_or(u64::MAX);
        if end > self.ledger.head.seq {
            return Err(LogError::Corrupt {
                place: "the Merkle tree".into(),
                detail: format!(
                    "a subtree of level {level}, index {index} reaches beyond the head {}",
                    self.ledger.head.seq
                ),
            });
        }
        if level >= TILE_LEVEL {
            return stored_node(&*self.ledger.store, level, index);
        }
        let start = index << level;
        let tile = start >> TILE_LEVEL;
        let offset = (start - (tile << TILE_LEVEL)) as usize;
        let head = self.ledger.head.seq;
        let leaves = self.tile(tile)?;
        match leaves.get(offset..offset + (1usize << level)) {
            Some(span) => Ok(perfect_root(span)),
            None => {
                Err(LogError::Missing { seq: (tile << TILE_LEVEL) + leaves.len() as u64 + 1, head })
            }
        }
    }
}

fn prove_error(e: ladder_proof::ProveError<LogError>) -> LogError {
    match e {
        ladder_proof::ProveError::Source(e) => e,
        other => LogError::Proof(other.to_string()),
    }
}

impl Ledger {
    /// The Merkle tree through the head, as a frontier (cached once computed).
    pub(crate) fn frontier(&self) -> Result<Frontier, LogError> {
        if let Some(f) = &self.frontier {
            return Ok(f.clone());
        }
        Frontier::from_subtrees(self.head.seq, &mut LedgerSubtrees::new(self))
    }

    /// The root of the Merkle tree over every event through the head (RFC 6962 with SHA-256;
    /// docs/proofs.md). Reads O(log n) stored hashes and at most 255 events.
    pub fn root(&self) -> Result<Hash, LogError> {
        Ok(self.frontier()?.root())
    }

    /// The root of the tree of the first `size` events (`size` at most the head).
    pub fn root_at(&self, size: u64) -> Result<Hash, LogError> {
        self.check_size(size)?;
        ladder_proof::root(size, &mut LedgerSubtrees::new(self)).map_err(prove_error)
    }

    /// The hash of the perfect subtree over events `index << level + 1` through
    /// `(index + 1) << level` (leaves `[index << level, (index + 1) << level)`), which must lie
    /// within the head: a stored hash from [`TILE_LEVEL`] up, recomputed from at most 256
    /// events below it. What C2SP tiles are made of (`ladder publish`).
    pub fn subtree(&self, level: u32, index: u64) -> Result<Hash, LogError> {
        LedgerSubtrees::new(self).subtree(level, index)
    }

    fn check_size(&self, size: u64) -> Result<(), LogError> {
        if size > self.head.seq {
            return Err(LogError::Proof(format!(
                "the ledger holds {} events, not {size}",
                self.head.seq
            )));
        }
        Ok(())
    }

    /// The inclusion proof (RFC 6962 2.1.1) of event `seq` in the tree of the first `size`
    /// events: its JSON line, the root, and the audit path. O(log n) reads and one tile.
    pub fn prove_inclusion(&self, seq: u64, size: u64) -> Result<InclusionProof, LogError> {
        self.check_size(size)?;
        if seq == 0 || seq > size {
            return Err(LogError::Proof(format!(
                "event {seq} is not among the first {size} events (events are numbered from 1)"
            )));
        }
        let event = self.get(seq)?.ok_or(LogError::Missing { seq, head: self.head.seq })?;
        let mut src = LedgerSubtrees::new(self);
        let path = ladder_proof::inclusion_proof(seq - 1, size, &mut src).map_err(prove_error)?;
        let root = ladder_proof::root(size, &mut src).map_err(prove_error)?;
        Ok(InclusionProof {
            index: seq - 1,
            size,
            leaf: ladder_events::json::to_line(&event.event),
            root,
            path,
        })
    }

    /// The consistency proof (RFC 6962 2.1.2) that the first `from` events are unchanged in the
    /// first `to`.
    pub fn prove_consistency(&self, from: u64, to: u64) -> Result<ConsistencyProof, LogError> {
        self.check_size(to)?;
        let mut src = LedgerSubtrees::new(self);
        let path = ladder_proof::consistency_proof(from, to, &mut src).map_err(prove_error)?;
        let old_root = ladder_proof::root(from, &mut src).map_err(prove_error)?;
        let new_root = ladder_proof::root(to, &mut src).map_err(prove_error)?;
        Ok(ConsistencyProof { from, to, old_root, new_root, path })
    }
}

/// The stored hash of the perfect subtree (`level`, `index`), `level` at least [`TILE_LEVEL`].
pub(crate) fn stored_node(store: &dyn Store, level: u32, index: u64) -> Result<Hash, LogError> {
    let v = store.get(Tree::Nodes, &node_key(level, index))?.ok_or_else(|| LogError::Corrupt {
        place: "the Merkle tree".into(),
        detail: format!("the node at level {level}, index {index} is missing"),
    })?;
    <Hash>::try_from(&v[..]).map_err(|_| LogError::Corrupt {
        place: "the Merkle tree".into(),
        detail: format!("the node at level {level}, index {index} has {} bytes, not 32", v.len()),
    })
}
