//! The ledger as a tile source: leaf hashes and entries of one tile at a time, stored subtree
//! hashes above.

use ladder_log::{Ledger, LogError};
use ladder_proof::tiles::{TileSource, TILE_HEIGHT};
use ladder_proof::{leaf_hash, perfect_root, Hash, Subtrees};

/// Level-0 tiles read in one pass: 16,384 events, a few MB of lines.
const SPAN: u64 = 64;

/// The ledger's tree of its first `size` events as a [`TileSource`]: subtrees of 256 leaves and
/// more are the ledger's stored hashes ([`Ledger::subtree`]); smaller ones, and the entries
/// (each event's canonical JSON line), come from the events of 64 consecutive level-0 tiles,
/// read in one pass and kept while the caller stays among them (callers go in order).
pub struct LedgerTiles<'a> {
    ledger: &'a Ledger,
    size: u64,
    /// Level-0 tiles read in one pass (`SPAN`, or 1 for [`LedgerTiles::one_tile_at_a_time`]).
    span: u64,
    /// The level-0 tiles last read: the first one's index and how many, their events' lines back
    /// to back, where each ends, and the leaf hashes.
    first_tile: Option<u64>,
    tiles: u64,
    lines: Vec<u8>,
    ends: Vec<usize>,
    leaves: Vec<Hash>,
}

impl<'a> LedgerTiles<'a> {
    /// The tree of the first `size` events of `ledger` (at most its head).
    pub fn new(ledger: &'a Ledger, size: u64) -> LedgerTiles<'a> {
        LedgerTiles {
            ledger,
            size: size.min(ledger.head().seq),
            span: SPAN,
            first_tile: None,
            tiles: 0,
            lines: Vec::new(),
            ends: Vec::new(),
            leaves: Vec::new(),
        }
    }

    /// The same tree, for a caller that asks for one tile at a time in no particular order (a
    /// server answering tile requests): each level-0 tile's events are read alone, on the
    /// calling thread ([`Ledger::read_records_through`]), instead of the 64 tiles a walk in
    /// order wants read ahead by a second thread.
    pub fn one_tile_at_a_time(ledger: &'a Ledger, size: u64) -> LedgerTiles<'a> {
        LedgerTiles { span: 1, ..LedgerTiles::new(ledger, size) }
    }

    /// Reads the events of tiles `tile` to `tile + span - 1` (through `size`) in one pass, each
    /// read in place ([`ladder_events::codec::view`]): its line and its leaf hash.
    fn load(&mut self, tile: u64) -> Result<(), LogError> {
        if self.first_tile.is_some_and(|f| tile >= f && tile < f + self.tiles) {
            return Ok(());
        }
        self.first_tile = None;
        self.lines.clear();
        self.ends.clear();
        self.leaves.clear();
        let first = (tile << TILE_HEIGHT) + 1;
        let last = ((tile + self.span) << TILE_HEIGHT).min(self.size);
        if first <= last {
            let (lines, ends, leaves) = (&mut self.lines, &mut self.ends, &mut self.leaves);
            let visit = |records: &[ladder_log::Record<'_>]| {
                for r in records {
                    if r.seq > last {
                        return Ok(false);
                    }
                    let event = ladder_events::codec::view(r.bytes)
                        .map_err(|source| LogError::Decode { seq: r.seq, source })?;
                    let start = lines.len();
                    ladder_events::json::write_view_line(&event, lines);
                    ends.push(lines.len());
                    leaves.push(leaf_hash(&lines[start..]));
                }
                Ok::<bool, LogError>(true)
            };
            if self.span == 1 {
                // One tile: its few blocks on this thread, none read ahead.
                self.ledger.read_records_through(first, last, visit)?;
            } else {
                self.ledger.read_records(first, visit)?;
            }
        }
        let expected = last.saturating_sub(first - 1) as usize;
        if self.leaves.len() != expected {
            return Err(LogError::Missing {
                seq: first + self.leaves.len() as u64,
                head: self.ledger.head().seq,
            });
        }
        self.first_tile = Some(tile);
        self.tiles = self.span;
        Ok(())
    }

    /// The position in the loaded span of leaf `i` (whose tile is loaded).
    fn offset(&self, i: u64) -> usize {
        let first = self.first_tile.unwrap_or(0) << TILE_HEIGHT;
        (i - first) as usize
    }
}

impl Subtrees for LedgerTiles<'_> {
    type Error = LogError;

    fn subtree(&mut self, level: u32, index: u64) -> Result<Hash, LogError> {
        let end = index.checked_add(1).and_then(|e| e.checked_shl(level));
        if level >= 64 || end.is_none_or(|e| e > self.size) {
            return Err(LogError::Proof(format!(
                "the subtree at level {level}, index {index} is not complete in the tree of the \
                 first {} events",
                self.size
            )));
        }
        if level >= TILE_HEIGHT {
            return self.ledger.subtree(level, index);
        }
        let start = index << level;
        self.load(start >> TILE_HEIGHT)?;
        let offset = self.offset(start);
        Ok(perfect_root(&self.leaves[offset..offset + (1usize << level)]))
    }
}

impl TileSource for LedgerTiles<'_> {
    fn entries(
        &mut self,
        start: u64,
        end: u64,
        visit: &mut dyn FnMut(&[u8]),
    ) -> Result<(), LogError> {
        let mut i = start;
        while i < end.min(self.size) {
            self.load(i >> TILE_HEIGHT)?;
            let offset = self.offset(i);
            let from = if offset == 0 { 0 } else { self.ends[offset - 1] };
            visit(&self.lines[from..self.ends[offset]]);
            i += 1;
        }
        Ok(())
    }
}
