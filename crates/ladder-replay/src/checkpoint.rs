//! Replay checkpoints: a projection's state stored beside the ledger, so the next replay of the
//! same configuration reads only the events appended since.
//!
//! Key: `ckpt8 \0 algorithm \0 blake3(configuration) seq(8 bytes, big-endian) chain-hash(32)`.
//! Value: bincode of the roster's names (in id order) and the projector's state
//! ([`Algo::save_state`]). A checkpoint at sequence number S is used for a replay through T only
//! when (1) S <= T, (2) the ledger's chain hash at S is the one in the key (the history it was
//! computed from is still the ledger's prefix), and (3) no MatchVoided appended after S voids a
//! match at or before S (the state would still count it). Otherwise the replay starts from event 1.
//! The answer is the same either way; a test checks it for every algorithm.

use crate::registry::Algo;
use crate::{replay, History, Options, ReplayError, Replayed, Until};
use ladder_projector::{Config, Roster};

/// Bump when any projector's state layout changes: old checkpoints are then ignored.
/// ckpt2: Glicko and Glicko-2 keep an idle mark per player instead of the last instant.
/// ckpt3: TGR's player record is 32 bytes (its day an i32, games a u32, joined implied by RD).
/// ckpt4: a Glicko or Glicko-2 game of the open period keeps its home advantage.
/// ckpt5: a Glicko or Glicko-2 match of more than two seats is kept as its seats, not its pairs.
/// ckpt6: a TTT model keeps its regression to the mean and each skill whether it was reverted.
/// ckpt7: a TTT player keeps whether they joined with a rating, and the state the field of the
/// day's debuts (`debut=field`).
/// ckpt8: a TTT model keeps the mean each reverted skill moves toward when it is not `mu`
/// (`revert_to=field`).
pub const CHECKPOINT_VERSION: &[u8] = b"ckpt8";

/// A stored checkpoint: its key and its value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Where checkpoints live (the ledger's checkpoint tree, or memory in tests).
pub trait CheckpointStore {
    /// Every `(key, value)` whose key starts with `prefix`.
    fn list(&self, prefix: &[u8]) -> Result<Vec<Entry>, ReplayError>;
    /// Stores one checkpoint, computed through event `at.0` whose chain hash is `at.1` (a ledger
    /// binds the stored bytes to that head, and refuses to hand them out once it is not in the
    /// chain).
    fn put(&self, key: &[u8], at: (u64, [u8; 32]), value: &[u8]) -> Result<(), ReplayError>;
}

/// The key prefix of a configuration's checkpoints.
pub fn prefix(config: &Config) -> Vec<u8> {
    let mut k = CHECKPOINT_VERSION.to_vec();
    k.push(0);
    k.extend_from_slice(config.algorithm.as_bytes());
    k.push(0);
    k.extend_from_slice(blake3::hash(config.to_string().as_bytes()).as_bytes());
    k
}

fn key(config: &Config, seq: u64, hash: &[u8; 32]) -> Vec<u8> {
    let mut k = prefix(config);
    k.extend_from_slice(&seq.to_be_bytes());
    k.extend_from_slice(hash);
    k
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Value {
    names: Vec<String>,
    state: Vec<u8>,
}

/// What a checkpointed replay did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckpointUse {
    /// The checkpoint it resumed from, if any.
    pub resumed_from: Option<u64>,
    /// Where it stored a new checkpoint, if it did.
    pub saved_at: Option<u64>,
}

fn hash_at(history: &dyn History, seq: u64) -> Result<Option<[u8; 32]>, ReplayError> {
    match history.events_from(seq).next() {
        Some(item) => Ok(Some(item?.hash).filter(|_| seq > 0)),
        None => Ok(None),
    }
}

/// Replays `config` through `until` (a sequence number or the head), resuming from the best valid
/// checkpoint and storing one at the end.
pub fn replay_checkpointed(
    history: &dyn History,
    store: &dyn CheckpointStore,
    config: Config,
    until: Until,
) -> Result<(Algo, Replayed, CheckpointUse), ReplayError> {
    let target = match until {
        Until::Seq(n) => n.min(history.head_seq()),
        _ => history.head_seq(),
    };
    let voids = history.voids();
    let mut candidates: Vec<(u64, [u8; 32], Vec<u8>)> = Vec::new();
    let p = prefix(&config);
    for (k, v) in store.list(&p)? {
        let rest = &k[p.len()..];
        if rest.len() != 40 {
            continue;
        }
        let seq = u64::from_be_bytes(rest[..8].try_into().expect("8 bytes"));
        let hash: [u8; 32] = rest[8..].try_into().expect("32 bytes");
        candidates.push((seq, hash, v));
    }
    candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut used = CheckpointUse::default();
    let mut start: Option<(Algo, u64, [u8; 32], Roster)> = None;
    for (seq, hash, value) in candidates {
        if seq == 0 || seq > target || hash_at(history, seq)? != Some(hash) {
            continue;
        }
        if voids.iter().any(|&(void, matched)| void > seq && void <= target && matched <= seq) {
            continue;
        }
        let Ok(v) = bincode::deserialize::<Value>(&value) else { continue };
        let Ok(projector) = Algo::restore(config.clone(), &v.state) else { continue };
        let mut roster = Roster::new();
        for n in &v.names {
            roster.intern(n);
        }
        start = Some((projector, seq, hash, roster));
        break;
    }
    let (mut projector, resume) = match start {
        Some((p, seq, hash, roster)) => {
            used.resumed_from = Some(seq);
            (p, Some((seq, hash, roster)))
        }
        None => (crate::registry::build(config.clone())?, None),
    };
    let options = Options { until: Until::Seq(target), resume, ..Options::default() };
    let replayed = replay(history, &mut [&mut projector], options, &mut |_| {})?;
    if replayed.through > 0 && used.resumed_from != Some(replayed.through) {
        let names = (0..replayed.roster.len())
            .map(|i| replayed.roster.name(ladder_projector::PlayerId(i as u32)).to_string())
            .collect();
        let value = bincode::serialize(&Value { names, state: projector.save_state() })
            .expect("checkpoints always encode");
        store.put(
            &key(&config, replayed.through, &replayed.head),
            (replayed.through, replayed.head),
            &value,
        )?;
        used.saved_at = Some(replayed.through);
    }
    Ok((projector, replayed, used))
}
