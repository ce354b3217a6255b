//! Proof verification: RFC 9162 (Certificate Transparency Version 2.0) sections 2.1.3.2 and
//! 2.1.4.2, with the path length checked first so a failure says which way it is wrong.

use crate::hex::hex;
use crate::tree::{node_hash, Hash};

/// Why a proof does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The leaf index is not below the tree size.
    #[error(
        "leaf index {index} is outside a tree of {size} leaves (indexes run from 0 to size - 1)"
    )]
    IndexOutOfRange {
        /// The leaf index (0-based).
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// A consistency proof whose old size is larger than its new size.
    #[error("the old size {from} is larger than the new size {to}")]
    FromAfterTo {
        /// The old size.
        from: u64,
        /// The new size.
        to: u64,
    },
    /// A consistency proof from the empty tree, which RFC 6962 does not define.
    #[error("no consistency proof from an empty tree (from = 0)")]
    FromZero,
    /// The path has the wrong number of hashes for its index and size.
    #[error("the path has {got} hashes, a proof for these sizes has {expected} (path too {})", if got > expected { "long" } else { "short" })]
    PathLength {
        /// How many hashes a proof with these numbers has.
        expected: usize,
        /// How many the path has.
        got: usize,
    },
    /// The path leads to another root: the leaf, index, size, path or root is not what was
    /// recorded.
    #[error("the path leads to root {} but the proof claims root {}", hex(computed), hex(claimed))]
    RootMismatch {
        /// The root the leaf and path give.
        computed: Hash,
        /// The root in the proof.
        claimed: Hash,
    },
    /// A consistency path does not rebuild the old root.
    #[error("the path rebuilds old root {} but the proof claims {}", hex(computed), hex(claimed))]
    OldRootMismatch {
        /// The old root the path gives.
        computed: Hash,
        /// The old root in the proof.
        claimed: Hash,
    },
    /// A consistency path does not rebuild the new root.
    #[error("the path rebuilds new root {} but the proof claims {}", hex(computed), hex(claimed))]
    NewRootMismatch {
        /// The new root the path gives.
        computed: Hash,
        /// The new root in the proof.
        claimed: Hash,
    },
}

/// The number of hashes in the inclusion path of leaf `index` in a tree of `size` leaves
/// (`index < size`): one per level where the leaf's ancestor has a sibling.
pub fn inclusion_path_len(index: u64, size: u64) -> usize {
    debug_assert!(index < size);
    let inner = 64 - (index ^ (size - 1)).leading_zeros();
    let border = (index.checked_shr(inner).unwrap_or(0)).count_ones();
    (inner + border) as usize
}

/// The number of hashes in the consistency proof from `from` to `to` leaves (`0 < from < to`).
pub fn consistency_path_len(from: u64, to: u64) -> usize {
    debug_assert!(0 < from && from < to);
    let index = from - 1;
    let inner = 64 - (index ^ (to - 1)).leading_zeros();
    let border = (index.checked_shr(inner).unwrap_or(0)).count_ones();
    let shift = from.trailing_zeros();
    let seed = if from.is_power_of_two() { 0 } else { 1 };
    seed + (inner - shift + border) as usize
}

/// Checks that `leaf` (a leaf hash) is leaf `index` of the tree of `size` leaves with `root`
/// (RFC 9162 2.1.3.2).
pub fn verify_inclusion(
    index: u64,
    size: u64,
    leaf: &Hash,
    path: &[Hash],
    root: &Hash,
) -> Result<(), VerifyError> {
    if index >= size {
        return Err(VerifyError::IndexOutOfRange { index, size });
    }
    let expected = inclusion_path_len(index, size);
    if path.len() != expected {
        return Err(VerifyError::PathLength { expected, got: path.len() });
    }
    let (mut fnode, mut snode) = (index, size - 1);
    let mut r = *leaf;
    for p in path {
        // snode == 0 here would mean a path too long: ruled out by the length check.
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    debug_assert_eq!(snode, 0);
    if r != *root {
        return Err(VerifyError::RootMismatch { computed: r, claimed: *root });
    }
    Ok(())
}

/// Checks that the tree of `from` leaves with `old_root` is a prefix of the tree of `to` leaves
/// with `new_root` (RFC 9162 2.1.4.2). `from == to` needs an empty path and equal roots.
pub fn verify_consistency(
    from: u64,
    to: u64,
    old_root: &Hash,
    new_root: &Hash,
    path: &[Hash],
) -> Result<(), VerifyError> {
    if from > to {
        return Err(VerifyError::FromAfterTo { from, to });
    }
    if from == 0 {
        return Err(VerifyError::FromZero);
    }
    if from == to {
        if !path.is_empty() {
            return Err(VerifyError::PathLength { expected: 0, got: path.len() });
        }
        if old_root != new_root {
            return Err(VerifyError::NewRootMismatch { computed: *old_root, claimed: *new_root });
        }
        return Ok(());
    }
    let expected = consistency_path_len(from, to);
    if path.len() != expected {
        return Err(VerifyError::PathLength { expected, got: path.len() });
    }
    // Step 2: a power-of-two old tree is itself the first node of the path.
    let (first, rest) =
        if from.is_power_of_two() { (*old_root, path) } else { (path[0], &path[1..]) };
    let (mut fnode, mut snode) = (from - 1, to - 1);
    while fnode & 1 == 1 {
        fnode >>= 1;
        snode >>= 1;
    }
    let (mut fr, mut sr) = (first, first);
    for c in rest {
        if fnode & 1 == 1 || fnode == snode {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    debug_assert_eq!(snode, 0);
    if fr != *old_root {
        return Err(VerifyError::OldRootMismatch { computed: fr, claimed: *old_root });
    }
    if sr != *new_root {
        return Err(VerifyError::NewRootMismatch { computed: sr, claimed: *new_root });
    }
    Ok(())
}
