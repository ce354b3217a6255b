//! Trees of 1 to 8 leaves worked by hand, and the worked examples of RFC 6962 section 2.1.3
//! (the tree of 7 leaves d0..d6 and its audit paths and consistency proofs).

use ladder_proof::{
    consistency_proof, empty_root, inclusion_proof, leaf_hash, node_hash, root, verify_consistency,
    verify_inclusion, Hash, MemTree,
};

fn n(a: Hash, b: Hash) -> Hash {
    node_hash(&a, &b)
}

/// Leaves d0..d7 are the bytes "d0".."d7"; l[i] = blake3(0x00 || d_i).
fn leaves() -> [Hash; 8] {
    std::array::from_fn(|i| leaf_hash(format!("d{i}").as_bytes()))
}

fn tree(size: usize) -> MemTree {
    MemTree::from_leaves((0..size).map(|i| format!("d{i}")))
}

#[test]
fn roots_of_one_to_eight_leaves() {
    let l = leaves();
    let n01 = n(l[0], l[1]);
    let n23 = n(l[2], l[3]);
    let n45 = n(l[4], l[5]);
    let n67 = n(l[6], l[7]);
    let n0123 = n(n01, n23);
    let n4567 = n(n45, n67);
    let expected = [
        empty_root(),
        l[0],
        n01,
        n(n01, l[2]),
        n0123,
        n(n0123, l[4]),
        n(n0123, n45),
        n(n0123, n(n45, l[6])),
        n(n0123, n4567),
    ];
    for (size, want) in expected.iter().enumerate() {
        let mut t = tree(size);
        assert_eq!(root(size as u64, &mut t).unwrap(), *want, "size {size}");
        assert_eq!(t.root(), *want, "frontier root, size {size}");
    }
}

/// The nodes of the RFC 6962 example tree of seven leaves that the tests below name: leaf hashes
/// `l`, `n01 = n(l0, l1)`, `n23`, `n45`, `n0123 = n(n01, n23)`, `right = n(n45, l6)` and the
/// root `n(n0123, right)`.
struct Seven {
    l: [Hash; 8],
    n01: Hash,
    n23: Hash,
    n45: Hash,
    n0123: Hash,
    right: Hash,
    root: Hash,
}

fn seven() -> Seven {
    let l = leaves();
    let (n01, n23, n45) = (n(l[0], l[1]), n(l[2], l[3]), n(l[4], l[5]));
    let (n0123, right) = (n(n01, n23), n(n45, l[6]));
    Seven { l, n01, n23, n45, n0123, right, root: n(n0123, right) }
}

#[test]
fn audit_paths_of_rfc_6962_example_tree_of_seven() {
    // RFC 6962 2.1.3: the audit path for d0 is [b, h, l], for d3 [c, g, l], for d4 [j, k, e]
    // (renamed: b = l1, c = l2, g = n01, h = n23, j = l5, k = l6, e = n0123, i = n45,
    // l = n(n45, l6)), and for d6 [i, e].
    let Seven { l, n01, n23, n45, n0123, right, root: top } = seven();
    let mut t = tree(7);
    let cases: [(u64, Vec<Hash>); 4] = [
        (0, vec![l[1], n23, right]),
        (3, vec![l[2], n01, right]),
        (4, vec![l[5], l[6], n0123]),
        (6, vec![n45, n0123]),
    ];
    for (index, want) in cases {
        let path = inclusion_proof(index, 7, &mut t).unwrap();
        assert_eq!(path, want, "d{index}");
        verify_inclusion(index, 7, &l[index as usize], &path, &top).unwrap();
    }
}

#[test]
fn consistency_proofs_of_rfc_6962_example() {
    // RFC 6962 2.1.3: PROOF(3, D[7]) = [c, d, g, l], PROOF(4, D[7]) = [l],
    // PROOF(6, D[7]) = [i, j, k] (d = l3, g = n01, i = n45, j = l6, k = n0123, l = n(n45, l6)
    // in the RFC's second figure; renamed here as leaf and node hashes).
    let Seven { l, n01, n45, n0123, right, root: new_root, .. } = seven();
    let mut t = tree(7);
    let cases: [(u64, Hash, Vec<Hash>); 3] = [
        (3, n(n01, l[2]), vec![l[2], l[3], n01, right]),
        (4, n0123, vec![right]),
        (6, n(n0123, n45), vec![n45, l[6], n0123]),
    ];
    for (from, old_root, want) in cases {
        let path = consistency_proof(from, 7, &mut t).unwrap();
        assert_eq!(path, want, "from {from}");
        verify_consistency(from, 7, &old_root, &new_root, &path).unwrap();
    }
    // from == to: an empty proof, and equal roots.
    assert_eq!(consistency_proof(7, 7, &mut t).unwrap(), Vec::<Hash>::new());
    verify_consistency(7, 7, &new_root, &new_root, &[]).unwrap();
}

#[test]
fn every_path_of_eight_leaves_by_hand() {
    let l = leaves();
    let n01 = n(l[0], l[1]);
    let n23 = n(l[2], l[3]);
    let n45 = n(l[4], l[5]);
    let n67 = n(l[6], l[7]);
    let n0123 = n(n01, n23);
    let n4567 = n(n45, n67);
    let want: [Vec<Hash>; 8] = [
        vec![l[1], n23, n4567],
        vec![l[0], n23, n4567],
        vec![l[3], n01, n4567],
        vec![l[2], n01, n4567],
        vec![l[5], n67, n0123],
        vec![l[4], n67, n0123],
        vec![l[7], n45, n0123],
        vec![l[6], n45, n0123],
    ];
    let mut t = tree(8);
    for (i, w) in want.iter().enumerate() {
        assert_eq!(inclusion_proof(i as u64, 8, &mut t).unwrap(), *w, "leaf {i}");
    }
    // Consistency 1 -> 8, 2 -> 8, 5 -> 8, worked from SUBPROOF.
    assert_eq!(consistency_proof(1, 8, &mut t).unwrap(), vec![l[1], n23, n4567]);
    assert_eq!(consistency_proof(2, 8, &mut t).unwrap(), vec![n23, n4567]);
    assert_eq!(consistency_proof(5, 8, &mut t).unwrap(), vec![l[4], l[5], n67, n0123]);
    // And in smaller trees: the single leaf has an empty path; 2 -> 3 is [l2].
    assert_eq!(inclusion_proof(0, 1, &mut t).unwrap(), Vec::<Hash>::new());
    assert_eq!(inclusion_proof(2, 3, &mut t).unwrap(), vec![n01]);
    assert_eq!(consistency_proof(2, 3, &mut t).unwrap(), vec![l[2]]);
    assert_eq!(consistency_proof(3, 5, &mut t).unwrap(), vec![l[2], l[3], n01, l[4]]);
}
