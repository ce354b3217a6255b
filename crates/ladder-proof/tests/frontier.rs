//! `Frontier` against `MemTree` at every size, the subtrees it reports, and its stored form.

use ladder_proof::{leaf_hash, root, Frontier, FrontierError, Hash, MemTree, Subtrees};
use proptest::prelude::*;

#[test]
fn frontier_agrees_with_memtree_and_reports_exactly_the_perfect_subtrees() {
    let mut f = Frontier::new();
    let mut t = MemTree::new();
    let mut reported: Vec<(u32, u64, Hash)> = Vec::new();
    for i in 0..1100u64 {
        let leaf = leaf_hash(&i.to_be_bytes());
        let mut now = Vec::new();
        f.push(leaf, |level, index, hash| now.push((level, index, hash)));
        t.push_hash(leaf);
        let size = i + 1;
        assert_eq!(f.size(), size);
        assert_eq!(f.root(), root(size, &mut t).unwrap(), "root at size {size}");
        assert_eq!(f.nodes().len(), size.count_ones() as usize);
        // This push completes exactly the subtrees ending at leaf i: levels 0 up to the number
        // of trailing ones of i, each the subtree [(index << level), (index + 1) << level).
        let want: Vec<(u32, u64)> = (0..=i.trailing_ones()).map(|l| (l, i >> l)).collect();
        let got: Vec<(u32, u64)> = now.iter().map(|(l, x, _)| (*l, *x)).collect();
        assert_eq!(got, want, "subtrees completed by leaf {i}");
        for (level, index, hash) in &now {
            assert_eq!(*hash, t.subtree(*level, *index).unwrap(), "level {level} index {index}");
        }
        reported.extend(now);
        // The frontier rebuilt from subtrees and from its own bytes is the same.
        assert_eq!(Frontier::from_subtrees(size, &mut t).unwrap(), f);
        assert_eq!(Frontier::from_bytes(&f.to_bytes()).unwrap(), f);
    }
    // Over 1100 leaves: every perfect subtree, once: sum over levels of floor(1100 / 2^level).
    let total: u64 = (0..11).map(|l| 1100u64 >> l).sum();
    assert_eq!(reported.len() as u64, total);
}

#[test]
fn memtree_refuses_subtrees_it_does_not_hold() {
    let mut t = MemTree::from_leaves((0..300).map(|i: u32| i.to_be_bytes()));
    assert!(t.subtree(8, 0).is_ok());
    assert!(t.subtree(8, 1).is_err(), "leaves 256..512 are not all there");
    assert!(t.subtree(0, 300).is_err());
    assert!(t.subtree(64, 0).is_err());
    assert!(t.subtree(3, u64::MAX).is_err());
    assert_eq!(
        t.subtree(9, 0).unwrap_err().to_string(),
        "subtree at level 9, index 0 is not complete in a tree of 300 leaves"
    );
}

#[test]
fn stored_bytes_refuse_damage() {
    let mut f = Frontier::new();
    for i in 0..13u64 {
        f.push(leaf_hash(&i.to_le_bytes()), |_, _, _| {});
    }
    let bytes = f.to_bytes();
    assert_eq!(bytes.len(), 1 + 8 + 3 * 32 + 8, "13 = 0b1101: three subtrees");
    for i in 0..bytes.len() {
        for bit in [0u8, 5] {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            assert!(Frontier::from_bytes(&b).is_err(), "byte {i} bit {bit} changed");
        }
    }
    for len in 0..bytes.len() {
        assert!(Frontier::from_bytes(&bytes[..len]).is_err(), "cut to {len} bytes");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(Frontier::from_bytes(&longer), Err(FrontierError::Length { .. })));
    let mut v2 = bytes.clone();
    v2[0] = 2;
    assert_eq!(
        Frontier::from_bytes(&v2).unwrap_err().to_string(),
        "stored tree frontier: version 2, this ladder reads version 1"
    );
    assert_eq!(Frontier::from_bytes(&Frontier::new().to_bytes()).unwrap(), Frontier::new());
}

proptest! {
    #[test]
    fn any_bytes_are_a_frontier_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        // Never a panic; what parses writes back the same bytes.
        if let Ok(f) = Frontier::from_bytes(&bytes) {
            prop_assert_eq!(f.to_bytes(), bytes);
        }
    }
}

/// The leaves `0..n` pushed as aligned perfect subtrees of the levels `pick` chooses (each subtree's
/// root taken from `MemTree`, an independent computation of it): the same frontier as pushing
/// the leaves one by one, and the same subtrees reported from each pushed subtree's level up.
fn pushed_in_pieces(n: u64, mut pick: impl FnMut(u32) -> u32) {
    let mut t = MemTree::new();
    let mut by_leaf = Frontier::new();
    let mut by_leaf_reports = Vec::new();
    for i in 0..n {
        let leaf = leaf_hash(&i.to_be_bytes());
        t.push_hash(leaf);
        by_leaf.push(leaf, |level, index, hash| by_leaf_reports.push((level, index, hash)));
    }
    let mut pieces = Frontier::new();
    let mut reports = Vec::new();
    let mut pos = 0u64;
    while pos < n {
        // The largest level an aligned subtree at `pos` can have within `n` leaves.
        let fits = (n - pos).ilog2();
        let most = if pos == 0 { fits } else { pos.trailing_zeros().min(fits) };
        let level = pick(most).min(most);
        let hash = t.subtree(level, pos >> level).unwrap();
        pieces.push_subtree(level, hash, |l, x, h| reports.push((l, x, h))).unwrap();
        // What leaf-by-leaf pushing reported for the leaves of this piece, from its level up.
        let end = pos + (1u64 << level);
        let want: Vec<_> = by_leaf_reports
            .iter()
            .filter(|(l, x, _)| *l >= level && ((x + 1) << l) > pos && ((x + 1) << l) <= end)
            .copied()
            .collect();
        let got = std::mem::take(&mut reports);
        assert_eq!(got, want, "the subtrees closed by the piece at {pos} of level {level}");
        pos = end;
    }
    assert_eq!(pieces, by_leaf);
    assert_eq!(pieces.root(), root(n, &mut t).unwrap());
}

#[test]
fn pushing_aligned_subtrees_is_pushing_their_leaves() {
    for n in [0u64, 1, 2, 3, 255, 256, 257, 1000, 1100] {
        pushed_in_pieces(n, |most| most);
        pushed_in_pieces(n, |_| 0);
        pushed_in_pieces(n, |most| most.min(8));
        pushed_in_pieces(n, |most| most / 2);
    }
}

#[test]
fn a_misaligned_subtree_is_refused_and_changes_nothing() {
    let mut f = Frontier::new();
    f.push(leaf_hash(b"a"), |_, _, _| {});
    let before = f.clone();
    let err =
        f.push_subtree(1, leaf_hash(b"b"), |_, _, _| panic!("nothing is reported")).unwrap_err();
    assert_eq!(err, FrontierError::Misaligned { size: 1, level: 1 });
    assert_eq!(f, before);
    assert!(f.push_subtree(64, leaf_hash(b"b"), |_, _, _| {}).is_err());
    assert!(Frontier::new().push_subtree(62, leaf_hash(b"b"), |_, _, _| {}).is_err());
    assert_eq!(f, before);
}

proptest! {
    #[test]
    fn pieces_of_random_levels_build_the_same_tree(n in 0u64..1500, seed in any::<u64>()) {
        let mut state = seed;
        pushed_in_pieces(n, |most| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % u64::from(most + 1)) as u32
        });
    }
}
