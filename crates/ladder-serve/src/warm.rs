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

/// The states kept of one configuration's fold, at most, in bytes of their saved form
/// ([`Algo::save_state`]): 32 MB (an Elo state is 16 bytes a player, so two thousand states of
/// a thousand players; a Glicko-2 state of 100,000 players takes about 7 MB).
pub const MARK_BYTES: usize = 32 << 20;

/// Configurations whose states are kept at once (least recently used dropped first): with
/// [`MARK_BYTES`], at most 128 MB of states.
pub const MARKED: usize = 4;

/// One state of a fold: the projector after event `seq`.
struct Mark {
    seq: u64,
    hash: [u8; 32],
    /// Players named through `seq` (the roster then is the first `players` names of the last).
    players: usize,
    algo: Algo,
}

/// States of one configuration's fold every `spacing` events from the first (event `spacing`,
/// `2 * spacing`, ...), made as far as an explanation asked for, so that the next explanation of
/// an event before the last state replays at most `spacing` events, not the history before it
/// ([`ladder_explain::Starts`]). `spacing` is set when the first state is made: the head then
/// over 64, at least 4,096 (15,628 events at a million). States are made until they take
/// [`MARK_BYTES`]; a whole-history algorithm (TrueSkill Through Time) keeps none.
pub struct Marks {
    spacing: u64,
    marks: Vec<Mark>,
    /// The names through the last state.
    roster: Roster,
    bytes: usize,
    whole_history: bool,
}

impl Marks {
    /// No state yet, states `spacing` events apart for `ledger` as it is now.
    fn new(config: &Config, ledger: &Ledger) -> Result<Marks, ReplayError> {
        let whole_history =
            registry::build(config.clone())?.curve(ladder_projector::PlayerId(0)).is_some();
        Ok(Marks {
            spacing: ledger.head().seq.div_ceil(64).max(4096),
            marks: Vec::new(),
            roster: Roster::default(),
            bytes: 0,
            whole_history,
        })
    }

    /// Makes states through event `through` at most (each a replay of `spacing` events from the
    /// one before, through its own last event: the voids it honours are those through it).
    fn extend(
        &mut self,
        config: &Config,
        ledger: &Ledger,
        through: u64,
    ) -> Result<(), ReplayError> {
        let history = LedgerHistory::new(ledger);
        while self.bytes < MARK_BYTES {
            let last = self.marks.last().map_or(0, |m| m.seq);
            let next = last + self.spacing;
            if next > through.min(ledger.head().seq) {
                return Ok(());
            }
            let (mut algo, resume) = match self.marks.last() {
                Some(m) => (m.algo.clone(), Some((m.seq, m.hash, self.roster.clone()))),
                None => (registry::build(config.clone())?, None),
            };
            let options = Options { resume, until: Until::Seq(next), ..Options::default() };
            let r = replay(&history, &mut [&mut algo], options, &mut |_| {})?;
            self.bytes += algo.save_state().len();
            self.marks.push(Mark { seq: r.through, hash: r.head, players: r.roster.len(), algo });
            self.roster = r.roster;
        }
        Ok(())
    }

    /// The latest state before event `seq` from which a replay through `seq` honours the same
    /// voids as one from the first event: a state that folded a match whose void comes after the
    /// state's own replay ended but at or before `seq` is passed over.
    fn before(&self, voids: &[(u64, u64)], seq: u64) -> Option<ladder_explain::Start> {
        let spacing = self.spacing;
        let mark = self.marks.iter().rev().filter(|m| m.seq < seq).find(|m| {
            !voids.iter().any(|&(void, matched)| {
                let folded_through = matched.div_ceil(spacing) * spacing;
                matched <= m.seq && void > folded_through && void <= seq
            })
        })?;
        let mut roster = Roster::default();
        for i in 0..mark.players {
            roster.intern(self.roster.name(ladder_projector::PlayerId(i as u32)));
        }
        Some(ladder_explain::Start {
            projector: mark.algo.clone(),
            roster,
            seq: mark.seq,
            hash: mark.hash,
        })
    }
}

/// The kept states of the service's folds as an explanation's starting points: each asked for
/// makes the configuration's states through the event first (so the first explanation under a
/// configuration pays the fold once, and the next ones the events since a state).
pub struct KeptStarts<'a> {
    /// The states kept, by configuration.
    pub cache: &'a Mutex<WarmCache<Marks>>,
    /// The ledger read.
    pub ledger: &'a Ledger,
}

impl ladder_explain::Starts for KeptStarts<'_> {
    fn before(&self, config: &Config, seq: u64) -> Option<ladder_explain::Start> {
        let slot = self.cache.lock().unwrap_or_else(|p| p.into_inner()).slot(config);
        let mut kept = slot.lock().unwrap_or_else(|p| p.into_inner());
        if kept.is_none() {
            *kept = Some(Marks::new(config, self.ledger).ok()?);
        }
        let marks = kept.as_mut()?;
        if marks.whole_history {
            return None;
        }
        // A fold that fails is told by the explanation's own replay from the first event.
        marks.extend(config, self.ledger, seq.saturating_sub(1)).ok()?;
        marks.before(&LedgerHistory::new(self.ledger).voids(), seq)
    }
}
