//! `verify`: everything the ledger stores, recomputed from its events.
//!
//! One pass reads the blocks in order. A second thread reads them (block layout, gapless
//! sequence numbers), reads every event in place, checks the facts index (joins, voids, ticks) against
//! it, and writes its canonical JSON line (the leaf bytes); this thread recomputes the chain
//! hash of every leaf against the stored one, and the Merkle tree against its stored subtree
//! hashes. Then the id index is checked (every event with an id is found under it) and every
//! checkpoint (its own hash, and that the head it was computed at is in the chain). The first
//! failure in sequence order is reported, as one pass checking each event in turn would.

use crate::block::{self, Block};
use crate::index;
use crate::ledger::Ledger;
use crate::store::{Tree, Value};
use crate::tree;
use crate::{Head, VerifyError, GENESIS};
use ladder_events::codec::{self, BodyView, EventView};
use ladder_events::json;
use ladder_proof::Frontier;
use std::collections::HashMap;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// What the reading thread hands over for one block: every record's stored hash and leaf line.
struct Lines {
    first: u64,
    prev: [u8; 32],
    hashes: Vec<[u8; 32]>,
    /// The lines one after another; `ends[i]` is where line `i` ends.
    lines: Vec<u8>,
    ends: Vec<usize>,
    /// The leaf hashes, when the reader computed them (every other block, so the two threads'
    /// work is about even: the reader's decoding and writing costs about as much as the chain's
    /// and tree's hashes of half the blocks); empty otherwise.
    leaves: Vec<[u8; 32]>,
}

enum Item {
    Block(Lines),
    /// The first bad sequence number the reader found, and why.
    Broken(u64, String),
}

/// What the reading thread learned besides the lines: the id fingerprint of every event that has
/// one, by seq.
#[derive(Default)]
struct Ids {
    fps: Vec<u64>,
    has_id: Vec<bool>,
}

impl Ledger {
    /// Recomputes everything stored from the events: the chain from seq 1 (each event's chain hash
    /// over its canonical JSON line), the Merkle tree's stored subtree hashes, the facts and id
    /// indexes, and every replay checkpoint's own hash and head. `Ok(head)` when all agree, else
    /// the first bad sequence number (or the index or checkpoint that disagrees). With `expect`,
    /// also fails when the ledger does not hold that head (its seq is beyond the head, or its hash
    /// is not the chain hash at its seq), which is how a chain cut at its tail is detected.
    pub fn verify(&self, expect: Option<Head>) -> Result<Head, VerifyError> {
        let checkpoints = self.checkpoint_heads()?;
        let mut want: HashMap<u64, [u8; 32]> = HashMap::new();
        if let Some(e) = expect {
            want.insert(e.seq, e.hash);
        }
        let (chain, ids) = std::thread::scope(|scope| {
            let (tx, rx) = sync_channel::<Item>(8);
            let reader = scope.spawn(move || self.read_lines(tx));
            let chain = self.check_chain(rx, expect, &checkpoints);
            let ids = match reader.join() {
                Ok(ids) => ids,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            (chain, ids)
        });
        let head = chain?;
        self.check_ids(&ids)?;
        if expect.is_none() {
            self.mark_verified();
        }
        Ok(head)
    }

    /// The reading half: blocks in order, decoded, facts checked, lines written. Stops at the
    /// first problem, which it sends as [`Item::Broken`].
    fn read_lines(&self, tx: SyncSender<Item>) -> Ids {
        let head = self.head.seq;
        let mut ids = Ids::default();
        let mut next = 1u64;
        let mut facts = (0usize, 0usize, 0usize);
        let broken = |tx: &SyncSender<Item>, seq: u64, why: String| {
            let _ = tx.send(Item::Broken(seq, why));
        };
        for (blocks_read, entry) in self.store.scan(Tree::Events, &[]).enumerate() {
            let (k, v): (Value, Value) = match entry {
                Ok(e) => e,
                Err(e) => {
                    broken(&tx, next, e.to_string());
                    return ids;
                }
            };
            let b = match Block::parse(&k, &v) {
                Ok(b) => b,
                Err(e) => {
                    broken(&tx, next, e.to_string());
                    return ids;
                }
            };
            if b.first > head {
                break;
            }
            if b.first != next {
                let why = if b.first > next {
                    format!("missing: the next stored block starts at seq {}", b.first)
                } else {
                    format!("a block starting at seq {} overlaps the one before", b.first)
                };
                broken(&tx, next, why);
                return ids;
            }
            let mut out = Lines {
                first: b.first,
                prev: b.prev,
                hashes: Vec::with_capacity(b.count as usize),
                lines: Vec::with_capacity(v.len() * 2),
                ends: Vec::with_capacity(b.count as usize),
                leaves: Vec::new(),
            };
            let hash_leaves = blocks_read % 2 == 1;
            let mut rest = b.body();
            let mut failure = None;
            for i in 0..b.count {
                let seq = b.first + u64::from(i);
                if seq > head {
                    failure = Some((seq, format!("stored beyond the head {head}")));
                    break;
                }
                let (stored, bytes, r) = match block::read_record(b.first, seq, rest) {
                    Ok(r) => r,
                    Err(e) => {
                        failure = Some((seq, e.to_string()));
                        break;
                    }
                };
                rest = r;
                let event = match codec::view(bytes) {
                    Ok(e) => e,
                    Err(e) => {
                        failure = Some((seq, format!("its bytes do not decode: {e}")));
                        break;
                    }
                };
                if let Err(why) = self.check_fact(seq, &event, &mut facts) {
                    failure = Some((seq, why));
                    break;
                }
                if let Some(id) = event.id {
                    let at = seq as usize;
                    if ids.fps.len() <= at {
                        ids.fps.resize(at + 1, 0);
                        ids.has_id.resize(at + 1, false);
                    }
                    ids.fps[at] = index::fingerprint(id);
                    ids.has_id[at] = true;
                }
                let start = out.ends.last().copied().unwrap_or(0);
                json::write_view_line(&event, &mut out.lines);
                out.ends.push(out.lines.len());
                if hash_leaves {
                    out.leaves.push(ladder_proof::leaf_hash(&out.lines[start..]));
                }
                out.hashes.push(*stored);
            }
            if failure.is_none() && !rest.is_empty() {
                failure = Some((b.last(), "bytes after the block's last record".into()));
            }
            if tx.send(Item::Block(out)).is_err() {
                return ids;
            }
            if let Some((seq, why)) = failure {
                broken(&tx, seq, why);
                return ids;
            }
            next = b.last() + 1;
        }
        if next <= head {
            broken(&tx, next, format!("missing: the head says {head}"));
            return ids;
        }
        let (joins, voids, ticks) = facts;
        if joins != self.players.len() || voids != self.voids.len() || ticks != self.ticks.len() {
            let why = format!(
                "the facts index lists {} joins, {} voids and {} ticks; the events hold {joins}, \
                 {voids} and {ticks}",
                self.players.len(),
                self.voids.len(),
                self.ticks.len()
            );
            broken(&tx, head, why);
        }
        ids
    }

    /// Checks one event against the facts index loaded at open; counts the facts seen.
    fn check_fact(
        &self,
        seq: u64,
        event: &EventView<'_>,
        (joins, voids, ticks): &mut (usize, usize, usize),
    ) -> Result<(), String> {
        let (what, indexed) = match event.body {
            BodyView::PlayerJoined { player, .. } => {
                *joins += 1;
                (format!("the join of {player:?}"), self.players.get(player))
            }
            BodyView::MatchVoided { match_id, .. } => {
                *voids += 1;
                (format!("the void of match {match_id:?}"), self.voids.get(match_id).copied())
            }
            BodyView::MidnightTick => {
                *ticks += 1;
                (format!("the midnight of {}", event.at), self.ticks.get(&event.at.day()).copied())
            }
            _ => return Ok(()),
        };
        if indexed == Some(seq) {
            return Ok(());
        }
        Err(match indexed {
            Some(other) => format!("the facts index files {what} at seq {other}, not here"),
            None => format!("the facts index does not list {what}"),
        })
    }

    /// The chain and tree half: reads what [`Ledger::read_lines`] sends, in order.
    fn check_chain(
        &self,
        rx: Receiver<Item>,
        expect: Option<Head>,
        checkpoints: &[(Vec<u8>, Head)],
    ) -> Result<Head, VerifyError> {
        let broken = |seq: u64, reason: String| Err(VerifyError::Broken { seq, reason });
        let head = self.head;
        let mut prev = GENESIS;
        let mut next = 1u64;
        let mut frontier = Frontier::new();
        let mut at_expected = expect.filter(|e| e.seq == 0).map(|_| GENESIS);
        let mut at_checkpoint: HashMap<u64, [u8; 32]> =
            checkpoints.iter().map(|(_, h)| (h.seq, GENESIS)).collect();
        for item in rx {
            let lines = match item {
                Item::Block(l) => l,
                Item::Broken(seq, reason) => return broken(seq, reason),
            };
            if lines.prev != prev {
                return broken(next, "its block names a different previous hash".into());
            }
            let mut start = 0;
            for (i, (&end, stored)) in lines.ends.iter().zip(&lines.hashes).enumerate() {
                let seq = lines.first + i as u64;
                let leaf = &lines.lines[start..end];
                start = end;
                let h = block::chain_hash(&prev, leaf);
                if &h != stored {
                    return broken(
                        seq,
                        "its chain hash does not match its JSON line and the previous hash".into(),
                    );
                }
                let mut bad_node = None;
                let leaf_hash = match lines.leaves.get(i) {
                    Some(&h) => h,
                    None => ladder_proof::leaf_hash(leaf),
                };
                frontier.push(leaf_hash, |level, index, node| {
                    if level >= tree::TILE_LEVEL && bad_node.is_none() {
                        bad_node = match tree::stored_node(&*self.store, level, index) {
                            Ok(s) if s == node => None,
                            Ok(_) => Some(format!(
                                "the Merkle tree's stored hash of level {level}, index {index} \
                                 does not match the events"
                            )),
                            Err(e) => Some(e.to_string()),
                        };
                    }
                });
                if let Some(reason) = bad_node {
                    return broken(seq, reason);
                }
                if expect.is_some_and(|e| e.seq == seq) {
                    at_expected = Some(h);
                }
                if let Some(slot) = at_checkpoint.get_mut(&seq) {
                    *slot = h;
                }
                prev = h;
                next = seq + 1;
            }
        }
        if next <= head.seq {
            return broken(next, format!("missing: the head says {}", head.seq));
        }
        if prev != head.hash {
            return broken(head.seq, "the head record names a different hash".into());
        }
        for (key, at) in checkpoints {
            if at.seq > head.seq || at_checkpoint.get(&at.seq) != Some(&at.hash) {
                return Err(VerifyError::Index {
                    what: format!("the checkpoint {}", ladder_proof::hex(key)),
                    detail: format!("it was computed at {at}, which is not in the chain"),
                });
            }
        }
        if let Some(e) = expect {
            if at_expected != Some(e.hash) {
                return Err(VerifyError::HeadMissing { expected: e, actual: head });
            }
        }
        Ok(head)
    }

    /// Every event with an id is filed under it in the id index (entries left by refused appends
    /// may name other seqs: those are never trusted without reading the event, so they are fine).
    fn check_ids(&self, ids: &Ids) -> Result<(), VerifyError> {
        let mut found = vec![false; ids.fps.len()];
        let runs = crate::runs::Runs::load(&*self.store, self.head.seq)?;
        runs.for_each_entry(&*self.store, |fp, seq| {
            if let Ok(at) = usize::try_from(seq) {
                if ids.has_id.get(at) == Some(&true) && ids.fps[at] == fp {
                    found[at] = true;
                }
            }
        })?;
        match (0..found.len()).find(|&at| ids.has_id[at] && !found[at]) {
            None => Ok(()),
            Some(at) => Err(VerifyError::Index {
                what: "the id index".into(),
                detail: format!(
                    "the id of event {at} is not in it, so a duplicate of that event would be \
                     appended"
                ),
            }),
        }
    }
}
