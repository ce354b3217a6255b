//! Ids of committed events not yet written to the on-disk idempotency index: what lets a
//! server's small commits skip the index ([`crate::Ledger::defer_id_index`]).
//!
//! Writing a commit's ids into the index's runs costs a few sled writes per id (the bucket
//! rewritten in place, later read again by a merge and deleted with its run): for a server
//! committing groups of tens of single-event requests that was most of the appending thread's
//! CPU (docs/PERFORMANCE.md, "Serving"). With deferral on, a commit leaves its ids here, in
//! memory, and writes them to the index in one spill once the events since the last spill
//! reach the limit; until then every lookup asks this table before the runs.
//!
//! Crash safety: the store records `ids-through` (a `Meta` key, the seq through which every id
//! is in the on-disk index) in the same flush as the commit's head record, so sled's recovery
//! of a prefix of the writes keeps the two consistent; opening reads the events after it and
//! puts their ids here again. An event's id is then always found: in the runs (through
//! `ids-through`) or here (after it). `verify` checks the runs for the events through it and
//! reads the ones after it from the verified events themselves.

use crate::runs::{self, Runs};
use crate::store::Tree;
use crate::LogError;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// The `Meta` key recording [`RecentIds::through`] while deferral is or was on; absent, every
/// id through the head is in the on-disk index.
pub(crate) const META_IDS_THROUGH: &[u8] = b"ids-through";

/// Ids (by fingerprint) of committed events after [`RecentIds::through`].
#[derive(Debug, Default)]
pub(crate) struct RecentIds {
    /// Every event with an id through this seq is in the on-disk index.
    pub through: u64,
    /// True once the store holds [`META_IDS_THROUGH`] (then every commit writes it).
    pub keyed: bool,
    /// Fingerprint → seq.
    first: HashMap<u64, u64>,
    /// Further seqs of fingerprints already in `first` (different ids, or leftovers).
    more: Vec<(u64, u64)>,
}

impl RecentIds {
    /// An empty table: every id through `head` is on disk.
    pub fn new(head: u64) -> RecentIds {
        RecentIds { through: head, ..RecentIds::default() }
    }

    /// Records event `seq`'s id fingerprint.
    pub fn insert(&mut self, fp: u64, seq: u64) {
        if let Some(&old) = self.first.get(&fp) {
            // A collision of fingerprints is rare: the list is short.
            if old != seq && !self.more.contains(&(fp, seq)) {
                self.more.push((fp, seq));
            }
            return;
        }
        self.first.insert(fp, seq);
    }

    /// The seqs recorded under `fp` (candidates: the caller reads the event to confirm).
    pub fn candidates(&self, fp: u64) -> impl Iterator<Item = u64> + '_ {
        let first = self.first.get(&fp).copied();
        let more = first.is_some().then(|| self.more.iter().filter(move |e| e.0 == fp));
        first.into_iter().chain(more.into_iter().flatten().map(|e| e.1))
    }

    /// Every entry, in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.first.iter().map(|(&f, &s)| (f, s)).chain(self.more.iter().copied())
    }

    /// Ids held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.first.len() + self.more.len()
    }

    /// Forgets every entry: the index holds every id through `through` now.
    pub fn clear(&mut self, through: u64) {
        self.first.clear();
        self.more.clear();
        self.through = through;
    }
}

impl crate::Ledger {
    /// Writes the ids left in memory ([`RecentIds`]) to the on-disk index as one run, then the
    /// mark at the head, and flushes: what closing a handle does, so that a ledger closed
    /// cleanly has every id in its runs (as builds that do not know the mark expect).
    pub(crate) fn spill_recent(&mut self) -> Result<(), LogError> {
        if self.recent.through == self.head.seq || self.writing.load(Ordering::Acquire) {
            return Ok(());
        }
        let store = &*self.store;
        let mut runs = Runs::load(store, self.head.seq)?;
        runs.collect_garbage(store)?;
        let mut entries: Vec<(u64, u64)> = self.recent.entries().collect();
        entries.sort_unstable();
        let bits = runs::bits_for_spill(self.id_spill);
        runs.add(store, &entries, bits, self.head.seq + 1)?;
        runs.settle(store, entries.len() as u64, bits, self.head.seq + 1)?;
        store.insert(Tree::Meta, META_IDS_THROUGH, &self.head.seq.to_be_bytes())?;
        store.flush()?;
        // The filter kept between appends no longer holds every fingerprint on disk.
        *self.id_filter.lock().unwrap_or_else(|p| p.into_inner()) = Default::default();
        self.recent.clear(self.head.seq);
        Ok(())
    }
}

/// Parses the stored [`META_IDS_THROUGH`] value (a big-endian `u64`), checked against the
/// head it must not pass.
pub(crate) fn parse_through(v: &[u8], head: u64) -> Result<u64, LogError> {
    let corrupt =
        |detail: String| LogError::Corrupt { place: "the id index's mark".into(), detail };
    let bytes: [u8; 8] = v.try_into().map_err(|_| corrupt(format!("{} bytes, not 8", v.len())))?;
    let through = u64::from_be_bytes(bytes);
    if through > head {
        return Err(corrupt(format!("it names seq {through}, beyond the head {head}")));
    }
    Ok(through)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::Tree;
    use crate::{AppendOptions, Ledger};
    use ladder_events::json::parse_line;

    fn result(i: usize) -> Result<ladder_events::Event, ladder_events::Violation> {
        parse_line(&format!(
            r#"{{"type":"MatchResult","at":"2026-03-01T00:00:{:02}Z","id":"m-{i}","seats":[{{"player":"a","score":1}},{{"player":"b","score":0}}]}}"#,
            i % 60
        ))
    }

    fn mark(l: &Ledger) -> Option<u64> {
        l.store
            .get(Tree::Meta, META_IDS_THROUGH)
            .unwrap()
            .map(|v| parse_through(&v, u64::MAX).unwrap())
    }

    /// Commits of one event each with deferral on: no id reaches the on-disk index until the
    /// limit, yet every id is found (a retry is a duplicate, other content a conflict), after the
    /// ledger is closed and opened again too (the ids read back from the events), `verify`
    /// passes throughout, and the commit that passes the limit writes them all.
    #[test]
    fn deferred_ids_are_found_before_and_after_reopening_and_spilled_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l");
        let opts = AppendOptions { auto_join: true, ..AppendOptions::default() };
        let mut l = Ledger::open(&path).unwrap();
        l.append([result(0)], &opts).unwrap(); // seq 1, 2: the joins; 3: m-0, in the index
        assert_eq!(mark(&l), None, "no deferral yet: no mark");
        l.defer_id_index(6);
        for i in 1..=3 {
            l.append([result(i)], &opts).unwrap(); // seqs 4 to 6, deferred
        }
        assert_eq!(mark(&l), Some(3), "every id through seq 3 is on disk");
        assert_eq!(l.recent.len(), 3);
        let runs = crate::runs::Runs::load(&*l.store, l.head.seq).unwrap();
        assert_eq!(runs.entries(), 1, "only m-0 is in the runs");
        assert_eq!(l.seq_of_id("m-2").unwrap(), Some(5));
        let again = l.append([result(2)], &opts).unwrap();
        assert_eq!((again.appended, again.duplicates), (0, 1));
        let mut other = result(2).unwrap();
        other.at = ladder_events::Timestamp(other.at.0 + 1);
        let e = l.append([Ok(other.clone())], &opts).unwrap_err();
        assert!(e.to_string().contains("id-conflict") || format!("{e:?}").contains("IdConflict"));
        l.verify(None).unwrap();
        // A crash: the handle's memory is gone, and closing does not run (it would write the
        // ids to the index). The ledger's files are copied as they are, lock and all.
        let crashed = dir.path().join("crashed");
        copy_dir(&path, &crashed);
        drop(l);

        // Closed cleanly: every id is in the runs, and the mark at the head.
        let l = Ledger::open(&path).unwrap();
        assert_eq!((l.recent.through, l.recent.len(), mark(&l)), (6, 0, Some(6)));
        assert_eq!(crate::runs::Runs::load(&*l.store, 6).unwrap().entries(), 4);
        assert_eq!(l.seq_of_id("m-2").unwrap(), Some(5));
        l.verify(None).unwrap();
        drop(l);

        // Opened after the crash: the ids come back from the events.
        let mut l = Ledger::open(&crashed).unwrap();
        assert_eq!((l.recent.through, l.recent.len()), (3, 3));
        assert_eq!(l.seq_of_id("m-3").unwrap(), Some(6));
        let again = l.append([result(1)], &opts).unwrap();
        assert_eq!((again.appended, again.duplicates), (0, 1), "the retry is found");
        l.verify(None).unwrap();

        // Without deferral (a later `ladder append`) the next commit writes every deferred id.
        l.append([result(7)], &opts).unwrap(); // seq 7
        assert_eq!(mark(&l), Some(7));
        assert_eq!((l.recent.through, l.recent.len()), (7, 0));
        let runs = crate::runs::Runs::load(&*l.store, l.head.seq).unwrap();
        assert_eq!(runs.entries(), 5, "m-0 to m-3 and m-7");
        l.verify(None).unwrap();

        // With deferral again: deferred while at most 2 events since the mark, then spilled.
        l.defer_id_index(2);
        l.append([result(8)], &opts).unwrap(); // seq 8: 1 since the mark
        l.append([result(9)], &opts).unwrap(); // seq 9: 2
        assert_eq!((mark(&l), l.recent.len()), (Some(7), 2));
        l.append([result(10)], &opts).unwrap(); // seq 10: 3, past the limit
        assert_eq!((mark(&l), l.recent.len()), (Some(10), 0));
        assert_eq!(crate::runs::Runs::load(&*l.store, l.head.seq).unwrap().entries(), 8);
        assert_eq!(l.seq_of_id("m-9").unwrap(), Some(9));
        l.verify(None).unwrap();
    }

    fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    /// `verify` still finds an id missing from the index when its event is at or before the
    /// mark.
    #[test]
    fn verify_still_wants_the_ids_through_the_mark() {
        let mut l = Ledger::memory();
        let opts = AppendOptions { auto_join: true, ..AppendOptions::default() };
        l.append([result(0)], &opts).unwrap(); // seq 3 in the index
        l.defer_id_index(100);
        l.append([result(1)], &opts).unwrap(); // seq 4 deferred
        l.verify(None).unwrap();
        let keys: Vec<_> = l.store.scan(Tree::Ids, &[]).map(|e| e.unwrap().0).collect();
        for k in keys.iter().filter(|k| k[..] != *crate::runs::DIRECTORY_KEY) {
            l.store.remove(Tree::Ids, k).unwrap();
        }
        let e = l.verify(None).unwrap_err().to_string();
        assert!(e.contains("the id of event 3 is not in it"), "{e}");
    }

    #[test]
    fn candidates_hold_every_seq_of_a_fingerprint() {
        let mut r = RecentIds::new(10);
        r.insert(7, 11);
        r.insert(7, 12);
        r.insert(7, 12);
        r.insert(9, 13);
        assert_eq!(r.candidates(7).collect::<Vec<_>>(), vec![11, 12]);
        assert_eq!(r.candidates(9).collect::<Vec<_>>(), vec![13]);
        assert_eq!(r.candidates(8).count(), 0);
        assert_eq!(r.len(), 3);
        r.clear(13);
        assert_eq!((r.len(), r.through), (0, 13));
    }

    #[test]
    fn a_mark_is_eight_bytes_at_or_before_the_head() {
        assert_eq!(parse_through(&5u64.to_be_bytes(), 9).unwrap(), 5);
        assert!(parse_through(&[1, 2], 9).unwrap_err().to_string().contains("2 bytes"));
        let e = parse_through(&10u64.to_be_bytes(), 9).unwrap_err().to_string();
        assert!(e.contains("beyond the head 9"), "{e}");
    }
}
