//! Projections that stay warm: each (algorithm, constants) a read asked for keeps its fold, and
//! folds only the events appended since (the event-sourced payoff: a read costs the same at a
//! million events as at a thousand). A whole-history algorithm (TrueSkill Through Time) keeps its
//! converged estimate too and re-smooths only where the new games reach
//! ([`ladder_projector::Projector::set_incremental`]). A void of a match the fold already
//! counted cannot be folded forward, so it refolds that one projection from the start. At most
//! `capacity` folds are kept; the least recently used is dropped first.
//!
//! A player's history (their page and `GET /api/players/NAME`) is kept the same way
//! ([`PlayerFold`]): a fold of its own with the player's lines so far, brought up to date over
//! the new events only, so a warm read costs the player's lines, not the ledger's events.

use ladder_explain::LedgerHistory;
use ladder_log::Ledger;
use ladder_projector::{Config, Projector, Roster};
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
    // A whole-history algorithm (ttt) then extends its converged estimate with each fold's new
    // events instead of converging the whole history again (docs/serve.md, "Warm folds of
    // TrueSkill Through Time").
    algo.set_incremental(true);
    let options = Options { until: Until::Seq(target), ..Options::default() };
    let r = replay(&LedgerHistory::new(ledger), &mut [&mut algo], options, &mut |_| {})?;
    Ok(Warm { algo, roster: r.roster, through: r.through, head: r.head, activity: r.activity })
}

/// The place of one player in the ledger's history under one configuration: the player's
/// standing after each of their events, through `warm.through`, and the fold that computed
/// them (kept to fold the next events into).
#[derive(Clone)]
pub struct PlayerFold {
    /// The fold through the last event read.
    pub warm: Warm,
    /// The player's name.
    pub name: String,
    /// Their standing after each of their events, in order.
    pub lines: Vec<crate::site::PlayerLine>,
    /// Whether the algorithm rates the whole history at once (TrueSkill Through Time): its
    /// standings after an event are not what is known now, so no rank is given.
    pub whole_history: bool,
    /// Whether each line has its rank (what `GET /api/players/NAME` gives; the page shows none
    /// and does not pay for a leaderboard at each of the player's events).
    pub ranked: bool,
}

/// Folds `ledger` through `target` (at most its head) into `fold` (or from the first event when
/// there is none, when `fold` is already past `target`, or when a void through `target` annuls
/// a match it counted), noting `name`'s standing after each of their events, the change from
/// their previous line, and when `ranked`, their place on the leaderboard at its default rules
/// after the event.
/// The lines equal those of a replay from the first event through `target`
/// (`player_history_fold_equals_a_fresh_replay` in the tests).
pub fn player_up_to(
    fold: Option<PlayerFold>,
    config: &Config,
    ledger: &Ledger,
    name: &str,
    ranked: bool,
    target: u64,
) -> Result<PlayerFold, ReplayError> {
    let history = LedgerHistory::new(ledger);
    let target = target.min(ledger.head().seq);
    let resumed = fold.and_then(|f| {
        let stale = history
            .voids()
            .iter()
            .any(|&(void, m)| void > f.warm.through && void <= target && m <= f.warm.through);
        // A whole-history fold is not resumed: its standings after each event are those of a
        // replay from the first event, as `ladder history` gives them.
        (f.name == name
            && f.ranked == ranked
            && !f.whole_history
            && !stale
            && f.warm.through <= target)
            .then_some(f)
    });
    let PlayerFold { warm, mut lines, whole_history, .. } = match resumed {
        Some(f) if f.warm.through == target => return Ok(f),
        Some(f) => f,
        None => {
            let algo = registry::build(config.clone())?;
            let whole_history = algo.curve(ladder_projector::PlayerId(0)).is_some();
            let warm = Warm {
                algo,
                roster: Roster::default(),
                through: 0,
                head: [0; 32],
                activity: Activity::new(),
            };
            PlayerFold { warm, name: name.to_string(), lines: Vec::new(), whole_history, ranked }
        }
    };
    let Warm { mut algo, roster, through, head, mut activity } = warm;
    let resume = (through > 0).then_some((through, head, roster));
    let before = activity.clone();
    let options = Options { resume, until: Until::Seq(target), ..Options::default() };
    let r = replay(&history, &mut [&mut algo], options, &mut |s| {
        if !s.event.players().any(|p| p == name) {
            return;
        }
        let Some(id) = s.roster.get(name) else { return };
        let Some(me) = s.projectors[0].standing(id) else { return };
        let rank = if whole_history || !ranked {
            None
        } else {
            // The activity of the whole history: what the fold kept, then this replay's.
            let merged;
            let activity = if through == 0 {
                s.activity
            } else {
                let mut m = before.clone();
                m.merge(s.activity);
                merged = m;
                &merged
            };
            let board = ladder_replay::leaderboard(
                &*s.projectors[0],
                s.roster,
                activity,
                &ladder_replay::BoardRules::default(),
            );
            board.ranked.iter().find(|r| r.row.standing.player == id).map(|r| r.rank)
        };
        lines.push(crate::site::PlayerLine::new(s.event, s.seq, name, me, lines.last(), rank));
    })?;
    activity.merge(&r.activity);
    let warm = Warm { algo, roster: r.roster, through: r.through, head: r.head, activity };
    Ok(PlayerFold { warm, name: name.to_string(), lines, whole_history, ranked })
}

/// One fold kept, locked while it is brought up to date (`None` until the first).
pub type Slot<T = Warm> = Arc<Mutex<Option<T>>>;

/// The folds kept, by configuration, least recently used dropped first.
pub struct WarmCache<T = Warm> {
    capacity: usize,
    clock: u64,
    /// Each configuration's key: when it was last asked for, and its slot.
    slots: HashMap<String, (u64, Slot<T>)>,
}

/// The key of a configuration: the algorithm and every constant, in the table's order.
pub fn key(config: &Config) -> String {
    let mut k = config.algorithm.to_string();
    for (name, v) in &config.values {
        k.push_str(&format!(" {name}={v}"));
    }
    k
}

impl<T> WarmCache<T> {
    /// A cache of at most `capacity` folds (at least one).
    pub fn new(capacity: usize) -> WarmCache<T> {
        WarmCache { capacity: capacity.max(1), clock: 0, slots: HashMap::new() }
    }

    /// The slot of `config`, made (and the least recently used dropped) when new.
    pub fn slot(&mut self, config: &Config) -> Slot<T> {
        self.slot_through(config, None)
    }

    /// The slot of `config` folded through a fixed sequence number (`?until=`), or through the
    /// head when `through` is `None`: each is a fold of its own, kept under the same bound.
    pub fn slot_through(&mut self, config: &Config, through: Option<u64>) -> Slot<T> {
        let mut k = key(config);
        if let Some(n) = through {
            k.push_str(&format!(" until={n}"));
        }
        self.slot_keyed(k)
    }

    /// The slot kept under `k` (a configuration's [`key`] and whatever else tells its folds
    /// apart, such as a player's name), made (and the least recently used dropped) when new.
    pub fn slot_keyed(&mut self, k: String) -> Slot<T> {
        self.clock += 1;
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
