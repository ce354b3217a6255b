//! Projections that stay warm: each (algorithm, constants) a read asked for keeps its fold, and
//! folds only the events appended since (the event-sourced payoff: a read costs the same at a
//! million events as at a thousand). A void of a match the fold already counted cannot be
//! folded forward, so it refolds that one projection from the start. At most `capacity`
//! folds are kept; the least recently used is dropped first.

use ladder_explain::LedgerHistory;
use ladder_log::Ledger;
use ladder_projector::{Config, Roster};
use ladder_replay::registry::{self, Algo};
use ladder_replay::{replay, Activity, History, Options, ReplayError, Until};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One fold through `through`.
#[derive(Clone)]
pub struct Warm {
    /// The projector.
    pub algo: Algo,
    /// Names of every player seen.
    pub roster: Roster,
    /// The last sequence number folded.
    pub through: u64,
    /// Its chain hash.
    pub head: [u8; 32],
    /// Who last played when.
    pub activity: Activity,
}

/// Folds `ledger` through its head into `warm` (or from the start when there is none, or when
/// a void since `warm` annuls a match it counted).
pub fn bring_up(warm: Option<Warm>, config: &Config, ledger: &Ledger) -> Result<Warm, ReplayError> {
    bring_up_to(warm, config, ledger, ledger.head().seq)
}

/// Folds `ledger` through `target` (at most its head) into `warm`, as [`bring_up`] does through
/// the head: a fold already past `target`, or one a void through `target` annuls a match of,
/// starts again from the first event.
pub fn bring_up_to(
    warm: Option<Warm>,
    config: &Config,
    ledger: &Ledger,
    target: u64,
) -> Result<Warm, ReplayError> {
    let history = LedgerHistory::new(ledger);
    let target = target.min(ledger.head().seq);
    if let Some(w) = warm {
        if w.through == target {
            return Ok(w);
        }
        let stale = history
            .voids()
            .iter()
            .any(|&(void, m)| void > w.through && void <= target && m <= w.through);
        if !stale && w.through < target {
            let Warm { mut algo, roster, through, head: hash, mut activity } = w;
            let options = Options {
                resume: Some((through, hash, roster)),
                until: Until::Seq(target),
                ..Options::default()
            };
            let r = replay(&history, &mut [&mut algo], options, &mut |_| {})?;
            activity.merge(&r.activity);
            return Ok(Warm { algo, roster: r.roster, through: r.through, head: r.head, activity });
        }
    }
    fresh_to(config, ledger, target)
}

/// A fold from the first event.
pub fn fresh(config: &Config, ledger: &Ledger) -> Result<Warm, ReplayError> {
    fresh_to(config, ledger, ledger.head().seq)
}

/// A fold from the first event through `target`.
pub fn fresh_to(config: &Config, ledger: &Ledger, target: u64) -> Result<Warm, ReplayError> {
    let mut algo = registry::build(config.clone())?;
    let options = Options { until: Until::Seq(target), ..Options::default() };
    let r = replay(&LedgerHistory::new(ledger), &mut [&mut algo], options, &mut |_| {})?;
    Ok(Warm { algo, roster: r.roster, through: r.through, head: r.head, activity: r.activity })
}

/// One configuration's fold, locked while it is brought up to date (`None` until the first).
pub type Slot = Arc<Mutex<Option<Warm>>>;

/// The folds kept, by configuration, least recently used dropped first.
pub struct WarmCache {
    capacity: usize,
    clock: u64,
    /// Each configuration's key: when it was last asked for, and its slot.
    slots: HashMap<String, (u64, Slot)>,
}

/// The key of a configuration: the algorithm and every constant, in the table's order.
pub fn key(config: &Config) -> String {
    let mut k = config.algorithm.to_string();
    for (name, v) in &config.values {
        k.push_str(&format!(" {name}={v}"));
    }
    k
}

impl WarmCache {
    /// A cache of at most `capacity` folds (at least one).
    pub fn new(capacity: usize) -> WarmCache {
        WarmCache { capacity: capacity.max(1), clock: 0, slots: HashMap::new() }
    }

    /// The slot of `config`, made (and the least recently used dropped) when new.
    pub fn slot(&mut self, config: &Config) -> Slot {
        self.slot_through(config, None)
    }

    /// The slot of `config` folded through a fixed sequence number (`?until=`), or through the
    /// head when `through` is `None`: each is a fold of its own, kept under the same bound.
    pub fn slot_through(&mut self, config: &Config, through: Option<u64>) -> Slot {
        self.clock += 1;
        let mut k = key(config);
        if let Some(n) = through {
            k.push_str(&format!(" until={n}"));
        }
        if let Some((used, slot)) = self.slots.get_mut(&k) {
            *used = self.clock;
            return slot.clone();
        }
        if self.slots.len() >= self.capacity {
            if let Some(oldest) =
                self.slots.iter().min_by_key(|(_, (used, _))| *used).map(|(k, _)| k.clone())
            {
                self.slots.remove(&oldest);
            }
        }
        let slot = Arc::new(Mutex::new(None));
        self.slots.insert(k, (self.clock, slot.clone()));
        slot
    }

    /// How many folds are kept.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}
