//! One configuration's account of one event: the standings of its players just before and just
//! after it, and the trace of the arithmetic between.

use crate::history::LedgerHistory;
use crate::ExplainError;
use ladder_log::Ledger;
use ladder_projector::{Config, Projector, Roster, Standing, Trace};
use ladder_replay::registry::{self, Algo};
use ladder_replay::{replay, Options, Until};

/// One configuration's account of an event.
pub struct Account {
    /// The configuration replayed.
    pub config: Config,
    /// The projector after the event, asked about periods and flags.
    pub projector: Algo,
    /// Each named player's standing just before the event (`None`: not joined yet).
    pub before: Vec<Option<Standing>>,
    /// Each named player's standing just after it.
    pub after: Vec<Option<Standing>>,
    /// The arithmetic of the event, as the projector recorded it.
    pub trace: Trace,
    /// The players' names through the event.
    pub roster: Roster,
}

impl Account {
    /// The rating change of player `i` over the event (`None` when the player has no standing
    /// after it; a player who joined at the event changed by 0).
    pub fn change(&self, i: usize) -> Option<f64> {
        let after = self.after[i].as_ref()?;
        Some(after.rating - self.before[i].as_ref().map_or(after.rating, |b| b.rating))
    }
}

/// The standing of `name` in `p`, if the player has joined (as `replay` lists it).
fn standing_of(p: &dyn Projector, roster: &Roster, name: &str) -> Option<Standing> {
    let id = roster.get(name)?;
    p.standings().into_iter().find(|s| s.player == id)
}

/// A state of one configuration's fold through an earlier event, for a replay through a later
/// one to start from instead of the first event: what a server keeps so that explaining an event
/// costs the events since the state, not the whole history.
pub struct Start {
    /// The projector after event `seq`.
    pub projector: Algo,
    /// The players' names then.
    pub roster: Roster,
    /// The last event folded.
    pub seq: u64,
    /// Its chain hash.
    pub hash: [u8; 32],
}

/// Where the replays of an explanation may start ([`crate::explain_with`]).
pub trait Starts {
    /// A state of `config`'s fold through an event before `seq` (at most `seq - 1`) from which a
    /// replay through `seq` gives what a replay from the first event gives (the same voids
    /// honoured), or `None` to replay from the first event.
    fn before(&self, config: &Config, seq: u64) -> Option<Start>;
}

/// No kept state: every replay starts at the first event (what `ladder explain` does).
pub struct FromTheStart;

impl Starts for FromTheStart {
    fn before(&self, _: &Config, _: u64) -> Option<Start> {
        None
    }
}

/// Replays `config` through event `seq`, recording the trace of that event and the standings of
/// `names` just before and after it (what `replay --until SEQ-1` and `--until SEQ` print for
/// them).
pub fn account(
    ledger: &Ledger,
    config: Config,
    seq: u64,
    names: &[String],
) -> Result<Account, ExplainError> {
    account_from(ledger, config, seq, names, &FromTheStart)
}

/// [`account`], its replay started from the state `starts` gives, if any (the same account).
pub fn account_from(
    ledger: &Ledger,
    config: Config,
    seq: u64,
    names: &[String],
    starts: &dyn Starts,
) -> Result<Account, ExplainError> {
    let mut trace = Trace::new();
    let mut before: Vec<Option<Standing>> = vec![None; names.len()];
    let start = starts.before(&config, seq).filter(|s| s.seq < seq);
    let (mut projector, resume) = match start {
        Some(Start { projector, roster, seq: at, hash }) => {
            if at + 1 == seq {
                for (b, n) in before.iter_mut().zip(names) {
                    *b = standing_of(&projector, &roster, n);
                }
            }
            (projector, Some((at, hash, roster)))
        }
        None => (registry::build(config.clone())?, None),
    };
    let r = replay(
        &LedgerHistory::new(ledger),
        &mut [&mut projector],
        Options {
            until: Until::Seq(seq),
            trace: Some((seq, &mut trace)),
            resume,
            ..Options::default()
        },
        &mut |s| {
            if s.seq + 1 == seq {
                for (b, n) in before.iter_mut().zip(names) {
                    *b = standing_of(&*s.projectors[0], s.roster, n);
                }
            }
        },
    )
    .map_err(|source| ExplainError::Replay { config: config.to_string(), seq, source })?;
    let after = names.iter().map(|n| standing_of(&projector, &r.roster, n)).collect();
    Ok(Account { config, projector, before, after, trace, roster: r.roster })
}
