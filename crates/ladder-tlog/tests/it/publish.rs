use crate::{files, grow, key, ledger, ORIGIN};
use ladder_proof::note::Checkpoint;
use ladder_proof::tiles::{read_entry_bundle, tiles_added, tiles_of, Tile, TileKind, TileTree};
use ladder_proof::{
    consistency_proof, inclusion_proof, leaf_hash, root, verify_consistency, verify_inclusion,
};
use ladder_tlog::{publish, PublishError};
use std::path::Path;

/// Reads a published file.
type Fetcher<'a> = Box<dyn FnMut(&Tile) -> Result<Vec<u8>, String> + 'a>;

/// The tree of the published checkpoint, read from the files alone.
fn from_files(dir: &Path) -> (Checkpoint, TileTree<Fetcher<'_>, String>) {
    let note = std::fs::read_to_string(dir.join("checkpoint")).unwrap();
    let cp = Checkpoint::open(&note, &[key().verifier()]).unwrap();
    let fetch: Fetcher<'_> = Box::new(move |t: &Tile| {
        std::fs::read(dir.join(t.path())).map_err(|e| format!("{t}: {e}"))
    });
    (cp.clone(), TileTree::new(cp.size, fetch))
}

#[test]
fn the_published_tree_verifies_from_the_files_alone() {
    let tmp = tempfile::tempdir().unwrap();
    // 70,000 is the C2SP example's size: full and partial tiles at levels 0 and 1, and level 2.
    let (l, _) = ledger(tmp.path(), "a.db", 70_000, "a");
    let site = tmp.path().join("site");
    let report = publish(&l, &site, ORIGIN, &key()).unwrap();
    assert_eq!(report.size, 70_000);
    // Exactly the files C2SP names for this size, and the checkpoint.
    let written: Vec<String> = files(&site).into_keys().collect();
    let mut expected: Vec<String> = tiles_of(70_000).iter().map(Tile::path).collect();
    expected.push("checkpoint".into());
    expected.sort();
    assert_eq!(written, expected);
    assert_eq!(report.written as usize, expected.len() - 1);

    let (cp, mut tree) = from_files(&site);
    assert_eq!((cp.origin.as_str(), cp.size), (ORIGIN, 70_000));
    assert_eq!(cp.root, l.root().unwrap());
    assert_eq!(root(cp.size, &mut tree).unwrap(), cp.root);
    // Inclusion proofs built from the tiles verify, for entries read from the bundles.
    for index in [0u64, 255, 256, 65_535, 65_536, 69_999] {
        let n = index / 256;
        let width = (70_000 - n * 256).min(256) as u32;
        let bundle = Tile::entries(n, width);
        let bytes = std::fs::read(site.join(bundle.path())).unwrap();
        let entries = read_entry_bundle(&bundle, &bytes).unwrap();
        let entry = entries[(index % 256) as usize];
        let stored = l.get(index + 1).unwrap().unwrap();
        assert_eq!(entry, ladder_events::json::to_line(&stored.event).as_bytes());
        let path = inclusion_proof(index, cp.size, &mut tree).unwrap();
        verify_inclusion(index, cp.size, &leaf_hash(entry), &path, &cp.root).unwrap();
        assert_eq!(path, l.prove_inclusion(index + 1, 70_000).unwrap().path);
    }
    // And consistency proofs between sizes, against the ledger's roots.
    for old in [1u64, 256, 4_097, 65_536] {
        let proof = consistency_proof(old, cp.size, &mut tree).unwrap();
        verify_consistency(old, cp.size, &l.root_at(old).unwrap(), &cp.root, &proof).unwrap();
    }
}

#[test]
fn publishing_again_adds_only_new_files_and_never_touches_a_full_tile() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let (mut l, _) = ledger(tmp.path(), "a.db", 600, "a");
    let site = tmp.path().join("site");
    publish(&l, &site, ORIGIN, &key()).unwrap();
    let before = files(&site);
    let inode = |p: &str| std::fs::metadata(site.join(p)).unwrap().ino();
    let full: Vec<(String, u64)> = before
        .keys()
        .filter(|p| p.as_str() != "checkpoint" && Tile::parse_path(p).unwrap().is_full())
        .map(|p| (p.clone(), inode(p)))
        .collect();
    assert_eq!(full.len(), 4, "2 full level-0 tiles and 2 full bundles at 600");

    // Nothing new: only the checkpoint is written again, with the same bytes.
    let again = publish(&l, &site, ORIGIN, &key()).unwrap();
    assert_eq!((again.written, again.old_size), (0, 600));
    assert_eq!(files(&site), before);

    grow(&mut l, 601, 1_000, "a");
    let report = publish(&l, &site, ORIGIN, &key()).unwrap();
    assert_eq!((report.old_size, report.size), (600, 1_600));
    let added: Vec<String> = tiles_added(600, 1_600).iter().map(Tile::path).collect();
    assert_eq!(report.written as usize, added.len());
    let after = files(&site);
    for (path, bytes) in &before {
        if path == "checkpoint" {
            continue;
        }
        // Old partial tiles stay (C2SP allows it); every old file keeps its bytes.
        assert_eq!(after.get(path), Some(bytes), "{path} changed");
    }
    for (path, ino) in &full {
        assert_eq!(inode(path), *ino, "{path} was rewritten");
    }
    for path in after.keys() {
        assert!(
            before.contains_key(path) || added.contains(path),
            "{path} was written but is not new"
        );
    }
    let (cp, mut tree) = from_files(&site);
    assert_eq!((cp.size, cp.root), (1_600, l.root().unwrap()));
    assert_eq!(root(1_600, &mut tree).unwrap(), cp.root);
    // Level 1 has its partial tile of width 6 at 1,600.
    assert!(after.contains_key(&Tile { kind: TileKind::Hashes(1), index: 0, width: 6 }.path()));
}

#[test]
fn a_directory_of_another_log_is_refused_and_left_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = ledger(tmp.path(), "a.db", 300, "a");
    let (b, _) = ledger(tmp.path(), "b.db", 400, "b");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let before = files(&site);
    match publish(&b, &site, ORIGIN, &key()) {
        Err(PublishError::Foreign { detail, .. }) => assert!(detail.contains("root"), "{detail}"),
        other => panic!("{other:?}"),
    }
    match publish(&a, &site, "other.example/log", &key()) {
        Err(PublishError::Foreign { detail, .. }) => assert!(detail.contains("origin"), "{detail}"),
        other => panic!("{other:?}"),
    }
    // A ledger shorter than what the directory publishes.
    let (short, _) = ledger(tmp.path(), "c.db", 200, "a");
    assert!(matches!(publish(&short, &site, ORIGIN, &key()), Err(PublishError::Foreign { .. })));
    assert_eq!(files(&site), before);
}

/// A source that reads one level-0 tile at a time (what a server answering tile requests in any
/// order uses) gives every tile the bytes of the source that reads 64 ahead, asked in reverse.
#[test]
fn one_tile_at_a_time_gives_the_same_tiles_in_any_order() {
    use ladder_proof::tiles::{tile_bytes, tiles_of};
    let dir = tempfile::tempdir().unwrap();
    let (ledger, _) = crate::ledger(dir.path(), "a.db", 1000, "t");
    let size = ledger.head().seq;
    let tiles = tiles_of(size);
    assert!(tiles.len() > 8, "full and partial tiles of three levels and entries");
    let mut ahead = ladder_tlog::LedgerTiles::new(&ledger, size);
    for tile in tiles.iter().rev() {
        let mut one = ladder_tlog::LedgerTiles::one_tile_at_a_time(&ledger, size);
        assert_eq!(
            tile_bytes(tile, &mut one).unwrap(),
            tile_bytes(tile, &mut ahead).unwrap(),
            "{}",
            tile.path()
        );
    }
}

/// What an interrupted publish leaves (tiles no checkpoint names yet: one cut short, one whole,
/// one of other bytes) is repaired by the next publish: the whole full tile is kept as it is
/// (same inode), the others are replaced by their bytes, and the tree reads back from the files.
#[test]
fn tiles_left_by_an_interrupted_publish_are_kept_when_whole_and_replaced_otherwise() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let (l, _) = ledger(tmp.path(), "a.db", 800, "a");
    // The bytes every tile should have, from a publish elsewhere.
    let reference = tmp.path().join("reference");
    publish(&l, &reference, ORIGIN, &key()).unwrap();
    let want = files(&reference);
    let site = tmp.path().join("site");
    let whole = Tile { kind: TileKind::Hashes(0), index: 1, width: 256 }.path();
    let cut = Tile { kind: TileKind::Entries, index: 2, width: 256 }.path();
    let other = Tile { kind: TileKind::Hashes(0), index: 3, width: 32 }.path();
    let put = |p: &str, bytes: &[u8]| {
        let path = site.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    put(&whole, &want[&whole]);
    put(&cut, &want[&cut][..100]);
    put(&other, &[0u8; 7]);
    let ino = std::fs::metadata(site.join(&whole)).unwrap().ino();
    let report = publish(&l, &site, ORIGIN, &key()).unwrap();
    let added = tiles_added(0, 800).len() as u64;
    assert_eq!(report.written, added - 1, "every tile but the whole one is written");
    assert_eq!(std::fs::metadata(site.join(&whole)).unwrap().ino(), ino);
    let got = files(&site);
    for (path, bytes) in &want {
        if path != "checkpoint" {
            assert_eq!(got.get(path), Some(bytes), "{path}");
        }
    }
    assert_eq!(got.len(), want.len(), "no temporary file is left");
    let (cp, mut tree) = from_files(&site);
    assert_eq!(root(cp.size, &mut tree).unwrap(), l.root().unwrap());
}
