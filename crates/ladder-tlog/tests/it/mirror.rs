use crate::{files, grow, key, ledger, ORIGIN};
use ladder_log::Ledger;
use ladder_proof::note::SignerKey;
use ladder_proof::tiles::Tile;
use ladder_tlog::{mirror, mirror_state_dir, publish, DirSource, MirrorError};

#[test]
fn a_mirror_holds_the_sources_head_and_root_and_takes_only_what_is_new() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut a, _) = ledger(tmp.path(), "a.db", 700, "a");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let m_path = tmp.path().join("m.db");
    let mut m = Ledger::open(&m_path).unwrap();
    let source = DirSource::new(&site);
    let r = mirror(&source, &key().verifier(), &mut m, &m_path).unwrap();
    assert_eq!((r.old_size, r.appended), (0, 700));
    assert_eq!(m.head(), a.head(), "the chain heads are equal");
    assert_eq!(m.root().unwrap(), a.root().unwrap());
    let state = mirror_state_dir(&m_path);
    assert_eq!(
        std::fs::read(state.join("checkpoint")).unwrap(),
        std::fs::read(site.join("checkpoint")).unwrap()
    );

    // Nothing new, then 300 more events.
    let r = mirror(&source, &key().verifier(), &mut m, &m_path).unwrap();
    assert_eq!(r.appended, 0);
    grow(&mut a, 701, 300, "a");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let r = mirror(&source, &key().verifier(), &mut m, &m_path).unwrap();
    assert_eq!((r.old_size, r.appended), (700, 300));
    assert_eq!(m.head(), a.head());
    assert_eq!(m.root().unwrap(), a.root().unwrap());
    // The mirror is a ledger like any other: it verifies, and publishes the same tiles.
    m.verify(None).unwrap();
    let copy = tmp.path().join("copy");
    publish(&m, &copy, ORIGIN, &key()).unwrap();
    // (The source also keeps the partial tiles of its size 700, which C2SP lets it keep.)
    let source_files = files(&site);
    for (path, bytes) in files(&copy) {
        assert!(source_files.get(&path) == Some(&bytes), "{path} differs from the source's");
    }
}

/// The mirror of `a`'s first `n` events, published in `site`, and the mirror's ledger.
fn mirrored(tmp: &std::path::Path, n: usize) -> (Ledger, std::path::PathBuf, std::path::PathBuf) {
    let (a, _) = ledger(tmp, "a.db", n, "a");
    let site = tmp.join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let m_path = tmp.join("m.db");
    let mut m = Ledger::open(&m_path).unwrap();
    mirror(&DirSource::new(&site), &key().verifier(), &mut m, &m_path).unwrap();
    (m, m_path, site)
}

#[test]
fn a_forked_source_is_refused_with_both_checkpoints_kept_and_nothing_appended() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut m, m_path, site) = mirrored(tmp.path(), 500);
    let old_note = std::fs::read_to_string(site.join("checkpoint")).unwrap();
    let head = m.head();
    // The log is rewritten: the same first 400 events, then others, and more of them, signed
    // by the same key under the same origin.
    let (mut b, _) = ledger(tmp.path(), "b.db", 400, "a");
    grow(&mut b, 401, 300, "b");
    std::fs::remove_dir_all(&site).unwrap();
    publish(&b, &site, ORIGIN, &key()).unwrap();
    let new_note = std::fs::read_to_string(site.join("checkpoint")).unwrap();
    match mirror(&DirSource::new(&site), &key().verifier(), &mut m, &m_path) {
        Err(MirrorError::Fork { evidence, detail }) => {
            assert!(detail.contains("500"), "{detail}");
            assert_eq!(evidence, mirror_state_dir(&m_path).join("fork-500-700"));
            assert_eq!(
                std::fs::read_to_string(evidence.join("mirrored-checkpoint")).unwrap(),
                old_note
            );
            assert_eq!(
                std::fs::read_to_string(evidence.join("source-checkpoint")).unwrap(),
                new_note
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.head(), head, "nothing appended");
    // The last mirrored checkpoint is still the old one: a later run is refused the same way.
    assert!(matches!(
        mirror(&DirSource::new(&site), &key().verifier(), &mut m, &m_path),
        Err(MirrorError::Fork { .. })
    ));
}

#[test]
fn a_source_that_shrank_is_refused_as_a_rewrite() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut m, m_path, site) = mirrored(tmp.path(), 300);
    let (short, _) = ledger(tmp.path(), "s.db", 200, "a");
    std::fs::remove_dir_all(&site).unwrap();
    publish(&short, &site, ORIGIN, &key()).unwrap();
    match mirror(&DirSource::new(&site), &key().verifier(), &mut m, &m_path) {
        Err(MirrorError::Fork { evidence, .. }) => {
            assert!(evidence.join("mirrored-checkpoint").is_file());
            assert!(evidence.join("source-checkpoint").is_file());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.head().seq, 300);
}

#[test]
fn another_key_a_damaged_entry_or_tile_is_refused_and_nothing_appended() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = ledger(tmp.path(), "a.db", 600, "a");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let m_path = tmp.path().join("m.db");
    let mut m = Ledger::open(&m_path).unwrap();
    let src = DirSource::new(&site);

    let stranger = SignerKey::from_seed(ORIGIN, [7; 32]).unwrap().verifier();
    assert!(matches!(
        mirror(&src, &stranger, &mut m, &m_path),
        Err(MirrorError::Checkpoint { .. })
    ));

    // One byte of an entry changed (its bundle still parses): it no longer hashes to its leaf.
    let bundle = site.join(Tile::entries(1, 256).path());
    let good = std::fs::read(&bundle).unwrap();
    let mut bad = good.clone();
    let at = bad.iter().position(|&b| b == b'p').unwrap();
    bad[at] = b'q';
    std::fs::write(&bundle, &bad).unwrap();
    match mirror(&src, &key().verifier(), &mut m, &m_path) {
        Err(MirrorError::Inconsistent(why)) => assert!(why.contains("entry 2"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.head().seq, 0, "nothing appended");
    std::fs::write(&bundle, &good).unwrap();

    // A hash tile changed: the tiles no longer give the signed root.
    let tile = site.join(Tile::hashes(0, 0, 256).path());
    let mut t = std::fs::read(&tile).unwrap();
    t[0] ^= 1;
    std::fs::write(&tile, &t).unwrap();
    assert!(matches!(
        mirror(&src, &key().verifier(), &mut m, &m_path),
        Err(MirrorError::Inconsistent(_))
    ));
    assert_eq!(m.head().seq, 0);
}

#[test]
fn a_ledger_that_was_not_made_by_mirroring_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = ledger(tmp.path(), "a.db", 300, "a");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let (mut other, other_path) = ledger(tmp.path(), "o.db", 10, "a");
    assert!(matches!(
        mirror(&DirSource::new(&site), &key().verifier(), &mut other, &other_path),
        Err(MirrorError::NotAMirror(_))
    ));
    assert_eq!(other.head().seq, 10);
}

#[test]
fn forged_entries_with_a_matching_forged_leaf_tile_are_refused_before_anything_is_stored() {
    // The root of 600 leaves is read from the level-1 tile and tile/0/002: tile/0/000 is not
    // among the tiles it reads, so a forger who changes an entry and recomputes tile/0/000 to
    // match gets past the tiles' root. The entries' own hashes, appended to the mirror's tree,
    // must still give the signed root before the batch is committed.
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = ledger(tmp.path(), "a.db", 600, "a");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let bundle_tile = Tile::entries(0, 256);
    let bytes = std::fs::read(site.join(bundle_tile.path())).unwrap();
    let entries = ladder_proof::tiles::read_entry_bundle(&bundle_tile, &bytes).unwrap();
    let mut forged_bundle = Vec::new();
    let mut leaves = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let mut line = String::from_utf8(e.to_vec()).unwrap();
        if i == 20 {
            // The winner becomes the loser: still a valid, canonical event line.
            let swapped = line.replacen(r#""score":1.0"#, r#""score":X"#, 1);
            let swapped = swapped.replacen(r#""score":0.0"#, r#""score":1.0"#, 1);
            line = swapped.replacen(r#""score":X"#, r#""score":0.0"#, 1);
            assert_ne!(line.as_bytes(), *e);
        }
        ladder_proof::tiles::push_entry::<()>(&mut forged_bundle, i as u64, line.as_bytes())
            .unwrap();
        leaves.extend_from_slice(&ladder_proof::leaf_hash(line.as_bytes()));
    }
    std::fs::write(site.join(bundle_tile.path()), &forged_bundle).unwrap();
    std::fs::write(site.join(Tile::hashes(0, 0, 256).path()), &leaves).unwrap();
    let m_path = tmp.path().join("m.db");
    let mut m = Ledger::open(&m_path).unwrap();
    match mirror(&DirSource::new(&site), &key().verifier(), &mut m, &m_path) {
        Err(MirrorError::Inconsistent(why)) => {
            assert!(why.contains("its entries give root"), "{why}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.head().seq, 0, "nothing appended");
    assert!(!mirror_state_dir(&m_path).join("checkpoint").exists());
}
