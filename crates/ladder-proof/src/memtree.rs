//! Every leaf hash in memory: a [`Subtrees`] source for tests and for histories read from a file.

use crate::frontier::Frontier;
use crate::tree::{leaf_hash, perfect_root, Hash, Subtrees};

/// Subtrees of 2^STORED_LEVEL leaves and more are kept; smaller ones are recomputed from the
/// leaf hashes (at most 255 node hashes). The same split the ledger uses on disk.
pub const STORED_LEVEL: u32 = 8;

/// A tree held in memory: all leaf hashes, plus the hash of every perfect subtree of
/// 2^[`STORED_LEVEL`] leaves or more (1/128 of the leaves' memory), so any subtree costs at most
/// 255 node hashes.
#[derive(Debug, Clone, Default)]
pub struct MemTree {
    leaves: Vec<Hash>,
    /// `stored[l][i]`: the subtree at level `STORED_LEVEL + l`, index `i`.
    stored: Vec<Vec<Hash>>,
    frontier: Frontier,
}

/// A subtree the tree does not (yet) hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("subtree at level {level}, index {index} is not complete in a tree of {size} leaves")]
pub struct MemTreeError {
    /// The level asked for.
    pub level: u32,
    /// The index asked for.
    pub index: u64,
    /// The tree size.
    pub size: u64,
}

impl MemTree {
    /// The empty tree.
    pub fn new() -> MemTree {
        MemTree::default()
    }

    /// A tree over these leaves (the bytes of each, hashed with [`leaf_hash`]).
    pub fn from_leaves<I, L>(leaves: I) -> MemTree
    where
        I: IntoIterator<Item = L>,
        L: AsRef<[u8]>,
    {
        let mut t = MemTree::new();
        for l in leaves {
            t.push_hash(leaf_hash(l.as_ref()));
        }
        t
    }

    /// Appends a leaf (its bytes).
    pub fn push(&mut self, leaf: &[u8]) {
        self.push_hash(leaf_hash(leaf));
    }

    /// Appends a leaf hash.
    pub fn push_hash(&mut self, leaf: Hash) {
        self.leaves.push(leaf);
        let stored = &mut self.stored;
        self.frontier.push(leaf, |level, index, hash| {
            if level >= STORED_LEVEL {
                let l = (level - STORED_LEVEL) as usize;
                if stored.len() <= l {
                    stored.resize_with(l + 1, Vec::new);
                }
                debug_assert_eq!(stored[l].len() as u64, index);
                stored[l].push(hash);
            }
        });
    }

    /// The number of leaves.
    pub fn len(&self) -> u64 {
        self.leaves.len() as u64
    }

    /// True when the tree has no leaves.
    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    /// The leaf hashes, in order.
    pub fn leaf_hashes(&self) -> &[Hash] {
        &self.leaves
    }

    /// The root of the whole tree.
    pub fn root(&self) -> Hash {
        self.frontier.root()
    }

    /// The frontier of the whole tree.
    pub fn frontier(&self) -> &Frontier {
        &self.frontier
    }
}

impl Subtrees for MemTree {
    type Error = MemTreeError;

    fn subtree(&mut self, level: u32, index: u64) -> Result<Hash, MemTreeError> {
        let size = self.len();
        let err = MemTreeError { level, index, size };
        if level >= 64 || index >= size >> level {
            return Err(err);
        }
        if level >= STORED_LEVEL {
            let l = (level - STORED_LEVEL) as usize;
            return self.stored.get(l).and_then(|v| v.get(index as usize)).copied().ok_or(err);
        }
        let start = (index << level) as usize;
        Ok(perfect_root(&self.leaves[start..start + (1usize << level)]))
    }
}
