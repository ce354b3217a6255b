//! The ledger as a tile source: leaf hashes and entries of one tile at a time, stored subtree
//! hashes above.

use ladder_log::{Ledger, LogError};
use ladder_proof::tiles::{TileSource, TILE_HEIGHT};
use ladder_proof::{leaf_hash, perfect_root, Hash, Subtrees};

/// The ledger's tree of its first `size` events as a [`TileSource`]: subtrees of 256 leaves and
/// more are the ledger's stored hashes ([`Ledger::subtree`]); smaller ones, and the entries
/// (each event's canonical JSON line), come from the events of one level-0 tile, read once and
/// kept while the caller stays in that tile.
pub struct LedgerTiles<'a> {
    ledger: &'a Ledger,
    size: u64,
    /// The level-0 tile last read: its index, its lines back to back, where each ends, and the
    /// leaf hashes.
    tile: Option<u64>,
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
            tile: None,
            lines: Vec::new(),
            ends: Vec::new(),
            leaves: Vec::new(),
        }
    }

    fn load(&mut self, tile: u64) -> Result<(), LogError> {
        if self.tile == Some(tile) {
            return Ok(());
        }
        self.tile = None;
        self.lines.clear();
        self.ends.clear();
        self.leaves.clear();
        let first = (tile << TILE_HEIGHT) + 1;
        let last = ((tile + 1) << TILE_HEIGHT).min(self.size);
        if first <= last {
            for stored in self.ledger.events(first) {
                let stored = stored?;
                let start = self.lines.len();
                ladder_events::json::write_line(&stored.event, &mut self.lines);
                self.ends.push(self.lines.len());
                self.leaves.push(leaf_hash(&self.lines[start..]));
                if stored.seq >= last {
                    break;
                }
            }
        }
        let expected = last.saturating_sub(first - 1) as usize;
        if self.leaves.len() != expected {
            return Err(LogError::Missing {
                seq: first + self.leaves.len() as u64,
                head: self.ledger.head().seq,
            });
        }
        self.tile = Some(tile);
        Ok(())
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
        let tile = start >> TILE_HEIGHT;
        self.load(tile)?;
        let offset = (start - (tile << TILE_HEIGHT)) as usize;
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
            let tile = i >> TILE_HEIGHT;
            self.load(tile)?;
            let offset = (i - (tile << TILE_HEIGHT)) as usize;
            let from = if offset == 0 { 0 } else { self.ends[offset - 1] };
            visit(&self.lines[from..self.ends[offset]]);
            i += 1;
        }
        Ok(())
    }
}
