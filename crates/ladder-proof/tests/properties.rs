//! Property tests over random sizes: every proof verifies against a direct transcription of the
//! RFC 6962 definitions, and the mutations of the transparency-dev/merkle verifier tests (wrong
//! index, wrong size, wrong leaf or root, garbage before or after the path, a removed, inserted or
//! bit-flipped path element) are refused.

use ladder_proof::{
    consistency_proof, empty_root, inclusion_proof, leaf_hash, node_hash, perfect_root, root,
    verify_consistency, verify_inclusion, Hash, MemTree, VerifyError,
};
use proptest::prelude::*;

/// MTH, RFC 6962 2.1, word for word over a slice of leaf hashes.
fn mth(d: &[Hash]) -> Hash {
    match d.len() {
        0 => empty_root(),
        1 => d[0],
        n => {
            let k = 1usize << (usize::BITS - 1 - (n - 1).leading_zeros());
            node_hash(&mth(&d[..k]), &mth(&d[k..]))
        }
    }
}

/// PATH(m, D[n]), RFC 6962 2.1.1.
fn path(m: usize, d: &[Hash]) -> Vec<Hash> {
    let n = d.len();
    if n <= 1 {
        return vec![];
    }
    let k = 1usize << (usize::BITS - 1 - (n - 1).leading_zeros());
    if m < k {
        let mut p = path(m, &d[..k]);
        p.push(mth(&d[k..]));
        p
    } else {
        let mut p = path(m - k, &d[k..]);
        p.push(mth(&d[..k]));
        p
    }
}

/// SUBPROOF(m, D[n], b), RFC 6962 2.1.2.
fn subproof(m: usize, d: &[Hash], b: bool) -> Vec<Hash> {
    let n = d.len();
    if m == n {
        return if b { vec![] } else { vec![mth(d)] };
    }
    let k = 1usize << (usize::BITS - 1 - (n - 1).leading_zeros());
    if m <= k {
        let mut p = subproof(m, &d[..k], b);
        p.push(mth(&d[k..]));
        p
    } else {
        let mut p = subproof(m - k, &d[k..], false);
        p.push(mth(&d[..k]));
        p
    }
}

fn tree(size: u64, seed: u64) -> MemTree {
    MemTree::from_leaves((0..size).map(|i| format!("{seed}-{i}")))
}

fn flip(mut h: Hash, bit: usize) -> Hash {
    h[bit / 8 % 32] ^= 1 << (bit % 8);
    h
}

/// The root an inclusion path computes for these numbers (the verifier reports it on a mismatch).
fn computed_inclusion(index: u64, size: u64, leaf: &Hash, path: &[Hash]) -> Option<Hash> {
    match verify_inclusion(index, size, leaf, path, &[0x5a; 32]) {
        Err(VerifyError::RootMismatch { computed, .. }) => Some(computed),
        _ => None,
    }
}

/// The (old, new) roots a consistency path computes for these numbers.
fn computed_consistency(from: u64, to: u64, old: &Hash, path: &[Hash]) -> Option<(Hash, Hash)> {
    let old_c = match verify_consistency(from, to, old, &[0x5a; 32], path) {
        Err(VerifyError::OldRootMismatch { computed, .. }) => computed,
        Err(VerifyError::NewRootMismatch { .. }) => *old,
        _ => return None,
    };
    match verify_consistency(from, to, &old_c, &[0x5a; 32], path) {
        Err(VerifyError::NewRootMismatch { computed, .. }) => Some((old_c, computed)),
        _ => None,
    }
}

/// A path the same length as `p` with other hashes.
fn other_path(p: &[Hash]) -> Vec<Hash> {
    p.iter().map(|h| flip(*h, 77)).collect()
}

/// Checks that every inclusion mutation is refused. A wrong size (or index) can only pass when
/// it makes the verifier do the very same hashing as the true one, in which case the proof says
/// nothing about which of the two it is: that is asserted by running both on another path.
fn inclusion_mutations_refused(index: u64, size: u64, leaf: Hash, p: &[Hash], top: Hash) {
    let same_hashing = |i: u64, s: u64| {
        let q = other_path(p);
        computed_inclusion(i, s, &leaf, &q).is_some()
            && computed_inclusion(i, s, &leaf, &q) == computed_inclusion(index, size, &leaf, &q)
    };
    let mut numbers = vec![(index.wrapping_sub(1), size), (index + 1, size), (index ^ 2, size)];
    numbers.extend([size * 2, size / 2, size + 1, size - 1].map(|s| (index, s)));
    for (i, s) in numbers {
        if (i, s) == (index, size) {
            continue;
        }
        if verify_inclusion(i, s, &leaf, p, &top).is_ok() {
            assert!(same_hashing(i, s), "index {i}, size {s} accepted for ({index}, {size})");
        }
    }
    assert!(verify_inclusion(index, size, &flip(leaf, 3), p, &top).is_err(), "wrong leaf");
    assert!(verify_inclusion(index, size, &leaf, p, &empty_root()).is_err(), "empty root");
    assert!(verify_inclusion(index, size, &leaf, p, &flip(top, 200)).is_err(), "other root");
    let mut longer = p.to_vec();
    longer.push([0; 32]);
    assert!(verify_inclusion(index, size, &leaf, &longer, &top).is_err(), "trailing garbage");
    longer.pop();
    longer.push(top);
    assert!(verify_inclusion(index, size, &leaf, &longer, &top).is_err(), "trailing root");
    let mut front = vec![[0; 32]];
    front.extend_from_slice(p);
    assert!(verify_inclusion(index, size, &leaf, &front, &top).is_err(), "preceding garbage");
    front[0] = top;
    assert!(verify_inclusion(index, size, &leaf, &front, &top).is_err(), "preceding root");
    for i in 0..p.len() {
        let mut q = p.to_vec();
        q[i] = flip(q[i], 3);
        assert!(verify_inclusion(index, size, &leaf, &q, &top).is_err(), "flipped path[{i}]");
    }
    if !p.is_empty() {
        let q = &p[..p.len() - 1];
        assert!(verify_inclusion(index, size, &leaf, q, &top).is_err(), "removed last");
        assert!(verify_inclusion(index, size, &leaf, &p[1..], &top).is_err(), "removed first");
    }
    if p.len() > 1 {
        let mut q = vec![p[0], [7; 32]];
        q.extend_from_slice(&p[1..]);
        assert!(verify_inclusion(index, size, &leaf, &q, &top).is_err(), "inserted component");
    }
}

fn consistency_mutations_refused(from: u64, to: u64, old: Hash, new: Hash, p: &[Hash]) {
    let same_hashing = |f: u64, t: u64| {
        let q = other_path(p);
        let a = computed_consistency(f, t, &old, &q);
        a.is_some() && a == computed_consistency(from, to, &old, &q)
    };
    let mut numbers = vec![(from - 1, to), (from + 1, to), (from ^ 2, to)];
    numbers.extend([to * 2, to / 2, to + 1, to - 1].map(|t| (from, t)));
    for (f, t) in numbers {
        if (f, t) == (from, to) {
            continue;
        }
        if verify_consistency(f, t, &old, &new, p).is_ok() {
            assert!(same_hashing(f, t), "from {f}, to {t} accepted for ({from}, {to})");
        }
    }
    for (o, n, what) in [
        (empty_root(), new, "empty old root"),
        (old, empty_root(), "empty new root"),
        (flip(old, 9), new, "other old root"),
        (old, flip(new, 9), "other new root"),
        (new, old, "swapped roots"),
    ] {
        if (o, n) != (old, new) {
            assert!(verify_consistency(from, to, &o, &n, p).is_err(), "{what}");
        }
    }
    let mut longer = p.to_vec();
    longer.push([0; 32]);
    assert!(verify_consistency(from, to, &old, &new, &longer).is_err(), "trailing garbage");
    let mut front = vec![old];
    front.extend_from_slice(p);
    assert!(verify_consistency(from, to, &old, &new, &front).is_err(), "preceding old root");
    for i in 0..p.len() {
        let mut q = p.to_vec();
        q[i] = flip(q[i], 3);
        assert!(verify_consistency(from, to, &old, &new, &q).is_err(), "flipped path[{i}]");
    }
    if !p.is_empty() {
        let q = &p[..p.len() - 1];
        assert!(verify_consistency(from, to, &old, &new, q).is_err(), "removed last");
    }
}

#[test]
fn exhaustive_small_trees_match_the_rfc_definitions() {
    for size in 1..=40u64 {
        let mut t = tree(size, 1);
        let d = t.leaf_hashes().to_vec();
        let top = mth(&d);
        assert_eq!(root(size, &mut t).unwrap(), top);
        for index in 0..size {
            let p = inclusion_proof(index, size, &mut t).unwrap();
            assert_eq!(p, path(index as usize, &d), "PATH({index}, D[{size}])");
            verify_inclusion(index, size, &d[index as usize], &p, &top).unwrap();
            inclusion_mutations_refused(index, size, d[index as usize], &p, top);
        }
        for from in 1..=size {
            let p = consistency_proof(from, size, &mut t).unwrap();
            let want = if from == size { vec![] } else { subproof(from as usize, &d, true) };
            assert_eq!(p, want, "PROOF({from}, D[{size}])");
            let old = mth(&d[..from as usize]);
            verify_consistency(from, size, &old, &top, &p).unwrap();
            if from < size {
                consistency_mutations_refused(from, size, old, top, &p);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_inclusion_proofs_verify_and_mutations_fail(
        size in 1u64..4000, pick in any::<u64>(), seed in any::<u64>()
    ) {
        let mut t = tree(size, seed);
        let index = pick % size;
        let d = t.leaf_hashes().to_vec();
        let top = root(size, &mut t).unwrap();
        prop_assert_eq!(top, mth(&d));
        let p = inclusion_proof(index, size, &mut t).unwrap();
        prop_assert_eq!(&p, &path(index as usize, &d));
        verify_inclusion(index, size, &d[index as usize], &p, &top).unwrap();
        inclusion_mutations_refused(index, size, d[index as usize], &p, top);
        // The proof in a smaller prefix tree verifies against that tree's root too.
        let prefix = index + 1 + (pick >> 32) % (size - index);
        let p2 = inclusion_proof(index, prefix, &mut t).unwrap();
        verify_inclusion(index, prefix, &d[index as usize], &p2, &mth(&d[..prefix as usize])).unwrap();
    }

    #[test]
    fn random_consistency_proofs_verify_and_mutations_fail(
        to in 2u64..4000, pick in any::<u64>(), seed in any::<u64>()
    ) {
        let mut t = tree(to, seed);
        let from = 1 + pick % (to - 1);
        let d = t.leaf_hashes().to_vec();
        let (old, new) = (mth(&d[..from as usize]), mth(&d));
        let p = consistency_proof(from, to, &mut t).unwrap();
        prop_assert_eq!(&p, &subproof(from as usize, &d, true));
        verify_consistency(from, to, &old, &new, &p).unwrap();
        consistency_mutations_refused(from, to, old, new, &p);
    }

    #[test]
    fn a_changed_leaf_breaks_every_old_proof(size in 2u64..600, pick in any::<u64>()) {
        // Rewriting history: leaf j replaced. An inclusion proof of j, and a consistency proof
        // from any size that covers j, no longer verifies against the rewritten tree's root.
        let mut t = tree(size, 3);
        let j = pick % size;
        let mut leaves: Vec<String> = (0..size).map(|i| format!("3-{i}")).collect();
        leaves[j as usize].push('!');
        let forged = MemTree::from_leaves(&leaves).root();
        let p = inclusion_proof(j, size, &mut t).unwrap();
        let leaf = t.leaf_hashes()[j as usize];
        prop_assert!(verify_inclusion(j, size, &leaf, &p, &forged).is_err());
        let from = (j + 1).max(1);
        if from < size {
            let old = root(from, &mut t).unwrap();
            let c = consistency_proof(from, size, &mut t).unwrap();
            prop_assert!(verify_consistency(from, size, &old, &forged, &c).is_err());
        }
    }
}

#[test]
fn perfect_root_is_mth_of_any_list() {
    let d = tree(300, 5).leaf_hashes().to_vec();
    for n in 0..=d.len() {
        assert_eq!(perfect_root(&d[..n]), mth(&d[..n]), "{n} leaves");
    }
}

#[test]
fn refusals_name_what_is_wrong() {
    let mut t = tree(5, 0);
    let top = t.root();
    let leaf = leaf_hash(b"0-2");
    assert_eq!(
        inclusion_proof(5, 5, &mut t).unwrap_err().to_string(),
        "leaf index 5 is outside a tree of 5 leaves (indexes run from 0 to size - 1)"
    );
    assert!(consistency_proof(0, 5, &mut t).unwrap_err().to_string().contains("from = 0"));
    assert!(consistency_proof(6, 5, &mut t).unwrap_err().to_string().contains("from 6 > to 5"));
    let p = inclusion_proof(2, 5, &mut t).unwrap();
    assert_eq!(
        verify_inclusion(2, 5, &leaf, &p[..2], &top).unwrap_err(),
        VerifyError::PathLength { expected: 3, got: 2 }
    );
    assert!(verify_inclusion(2, 5, &leaf, &p[..2], &top)
        .unwrap_err()
        .to_string()
        .contains("too short"));
    let mut long = p.clone();
    long.push(top);
    assert!(verify_inclusion(2, 5, &leaf, &long, &top)
        .unwrap_err()
        .to_string()
        .contains("too long"));
    assert!(matches!(
        verify_inclusion(2, 5, &leaf, &p, &empty_root()),
        Err(VerifyError::RootMismatch { .. })
    ));
    assert_eq!(
        verify_inclusion(5, 5, &leaf, &p, &top).unwrap_err(),
        VerifyError::IndexOutOfRange { index: 5, size: 5 }
    );
    assert_eq!(verify_consistency(0, 5, &top, &top, &[]).unwrap_err(), VerifyError::FromZero);
    assert_eq!(
        verify_consistency(6, 5, &top, &top, &[]).unwrap_err(),
        VerifyError::FromAfterTo { from: 6, to: 5 }
    );
    assert!(verify_consistency(5, 5, &top, &empty_root(), &[]).is_err());
    assert!(verify_consistency(5, 5, &top, &top, &[top]).is_err());
}

#[test]
fn a_path_binds_the_root_and_the_root_binds_the_size_only_through_a_checkpoint() {
    // RFC 9162 verification hashes the same way for leaf 0 of 3 leaves and leaf 0 of 4, so the
    // 3-leaf proof also "verifies" as a 4-leaf claim with the 3-leaf root. No 4-leaf tree has
    // that root (its right child would be a leaf hash where a node hash belongs), which is why
    // `ladder check-proof --checkpoint` compares the proof's size with the signed checkpoint's.
    let mut t = tree(3, 0);
    let p = inclusion_proof(0, 3, &mut t).unwrap();
    let leaf = t.leaf_hashes()[0];
    verify_inclusion(0, 3, &leaf, &p, &t.root()).unwrap();
    verify_inclusion(0, 4, &leaf, &p, &t.root()).unwrap();
    let mut t4 = tree(4, 0);
    assert_ne!(root(4, &mut t4).unwrap(), t.root());
}

/// Cloudflare's `tlog_tiles` (a port of Go's `golang.org/x/mod/sumdb/tlog`) as an independent
/// implementation: its hash storage grown record by record, read back through its `HashReader`.
struct TlogStore(Vec<tlog_tiles::Hash>);

impl tlog_tiles::HashReader for TlogStore {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<tlog_tiles::Hash>, tlog_tiles::Error> {
        Ok(indexes.iter().map(|&i| self.0[i as usize]).collect())
    }
}

impl TlogStore {
    fn of(leaves: &[Vec<u8>]) -> TlogStore {
        let mut s = TlogStore(Vec::new());
        for (n, leaf) in leaves.iter().enumerate() {
            let more = tlog_tiles::stored_hashes(n as u64, leaf, &s).unwrap();
            s.0.extend(more);
        }
        s
    }
}

fn raw(hashes: &[tlog_tiles::Hash]) -> Vec<Hash> {
    hashes.iter().map(|h| h.0).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Over random sizes and leaves: the same root at every size, and byte-identical inclusion
    /// and consistency proofs, as `tlog_tiles` computes them; each side's proofs verify with the
    /// other's checker.
    #[test]
    fn roots_and_proofs_are_byte_identical_to_tlog_tiles(
        n in 1usize..1300,
        salt in any::<u64>(),
        picks in prop::collection::vec((any::<u64>(), any::<u64>()), 8),
    ) {
        let leaves: Vec<Vec<u8>> =
            (0..n).map(|i| format!("event {i} of {salt:x}").into_bytes()).collect();
        let theirs = TlogStore::of(&leaves);
        let mut ours = MemTree::from_leaves(&leaves);
        for (a, b) in picks {
            let size = 1 + (a % n as u64);
            let m = b % size;
            let root_t = tlog_tiles::tree_hash(size, &theirs).unwrap();
            prop_assert_eq!(root(size, &mut ours).unwrap(), root_t.0, "root of {}", size);
            let p_t = tlog_tiles::prove_record(size, m, &theirs).unwrap();
            let p = inclusion_proof(m, size, &mut ours).unwrap();
            prop_assert_eq!(&p, &raw(&p_t), "inclusion of {} in {}", m, size);
            let leaf = tlog_tiles::record_hash(&leaves[m as usize]);
            prop_assert_eq!(leaf_hash(&leaves[m as usize]), leaf.0);
            prop_assert!(tlog_tiles::check_record(&p_t, size, root_t, m, leaf).is_ok());
            verify_inclusion(m, size, &leaf.0, &p, &root_t.0).unwrap();
            let old = 1 + (b % size);
            let c_t = tlog_tiles::prove_tree(size, old, &theirs).unwrap();
            let c = consistency_proof(old, size, &mut ours).unwrap();
            prop_assert_eq!(&c, &raw(&c_t), "consistency of {} in {}", old, size);
            let old_root = tlog_tiles::tree_hash(old, &theirs).unwrap();
            prop_assert!(tlog_tiles::check_tree(&c_t, size, root_t, old, old_root).is_ok());
            verify_consistency(old, size, &old_root.0, &root_t.0, &c).unwrap();
        }
    }
}

/// The hash tiles of the tree of the first `size` leaves of `t`, by path.
fn hash_tiles(
    t: &mut MemTree,
    tiles: &[ladder_proof::tiles::Tile],
) -> std::collections::HashMap<String, Vec<u8>> {
    use ladder_proof::tiles::{hash_tile, TileKind};
    tiles
        .iter()
        .filter_map(|tile| match tile.kind {
            TileKind::Hashes(level) => {
                Some((tile.path(), hash_tile(level, tile.index, tile.width, t).unwrap()))
            }
            TileKind::Entries => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A publisher that wrote the tiles of a tree of `old` leaves, then those `tiles_added` gives
    /// for `size`, has every tile a reader of the `size` tree needs: the root, inclusion and
    /// consistency proofs read back from those tiles alone are the RFC 6962 ones.
    #[test]
    fn a_tree_read_back_from_its_tiles_gives_the_rfc_proofs(
        size in prop_oneof![4 => 1u64..1_200, 1 => 65_000u64..70_000],
        old_pick in any::<u64>(),
        pick in any::<u64>(),
    ) {
        use ladder_proof::tiles::{tiles_added, tiles_of, TileTree};
        let old = 1 + old_pick % size;
        let mut small = tree(old, 9);
        let mut big = tree(size, 9);
        let mut files = hash_tiles(&mut small, &tiles_of(old));
        files.extend(hash_tiles(&mut big, &tiles_added(old, size)));
        let mut read = TileTree::new(size, |t: &ladder_proof::tiles::Tile| {
            files.get(&t.path()).cloned().ok_or_else(|| format!("{t} was never written"))
        });
        prop_assert_eq!(root(size, &mut read).unwrap(), big.root());
        let index = pick % size;
        prop_assert_eq!(
            inclusion_proof(index, size, &mut read).unwrap(),
            inclusion_proof(index, size, &mut big).unwrap()
        );
        prop_assert_eq!(
            consistency_proof(old, size, &mut read).unwrap(),
            consistency_proof(old, size, &mut big).unwrap()
        );
    }
}
