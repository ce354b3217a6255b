//! The ledger seen by the replay driver, and one event explained as a value.
//!
//! Two programs replay a ledger and explain its events: `ladder` and `ladder serve`. What they
//! share lives here, below both, so the two cannot drift: [`LedgerHistory`] is the ledger as a
//! replay's `History` and `CheckpointStore` (with a [`Progress`] hook the CLI fills with its bars
//! and the server leaves empty), and [`explain()`] builds an [`Explanation`] of one event (the
//! standings before and after it, the algorithm's arithmetic, the rating period a match waits
//! in with this game's effect and the whole period's told apart, the flags with their reasons,
//! the event's place in the chain and the tree). `ladder explain` renders the value as a table
//! and as JSON ([`Explanation::to_json`]); `ladder serve` answers the same JSON and renders the
//! match page from it. Building it reads the ledger and nothing else: no clock, no printing.
#![deny(missing_docs)]

mod account;
mod explain;
mod history;

pub use account::{account, account_from, Account, FromTheStart, Start, Starts};
pub use explain::{
    change_labels, explain, explain_with, named, standing_json, vs_config, Explanation, Flag,
    Period, PeriodChange, Request, Seat, Step, Told,
};
pub use history::{LedgerHistory, Progress};

/// Why an event could not be explained.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExplainError {
    /// A sequence number outside the ledger.
    #[error("there is no event {seq}: the ledger holds events 1 to {head}")]
    NoEvent {
        /// The number asked for.
        seq: u64,
        /// The head's.
        head: u64,
    },
    /// `--player` names someone the event neither names nor changes.
    #[error(
        "event {seq} does not name {player:?} and changes nothing of theirs under {algorithm}; \
         it names: {names}"
    )]
    NotNamed {
        /// The event.
        seq: u64,
        /// The player asked for.
        player: String,
        /// The algorithm.
        algorithm: &'static str,
        /// The players the event names, comma-separated.
        names: String,
    },
    /// An event the head covers is not stored (a damaged ledger).
    #[error("event {0} is missing")]
    Missing(u64),
    /// A replay failed.
    #[error("replaying {config} through event {seq}")]
    Replay {
        /// The configuration replayed.
        config: String,
        /// How far.
        seq: u64,
        /// Why.
        #[source]
        source: ladder_replay::ReplayError,
    },
    /// No event closes the period a match waits in (a damaged history).
    #[error("found no event that closes {algorithm} period {index}")]
    NoClose {
        /// The algorithm.
        algorithm: &'static str,
        /// The period's index.
        index: i64,
    },
    /// A projector could not be built.
    #[error(transparent)]
    Build(#[from] ladder_replay::ReplayError),
    /// The period at the head could not be closed.
    #[error(transparent)]
    Project(#[from] ladder_projector::ProjectError),
    /// Reading the ledger failed.
    #[error(transparent)]
    Log(#[from] ladder_log::LogError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use ladder_log::Ledger;
    use std::cell::RefCell;
    use std::rc::Rc;

    const LINES: [&str; 3] = [
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"a"}"#,
        r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"b"}"#,
        r#"{"type":"MatchResult","at":"2026-03-01T10:00:00Z","id":"m1","seats":[{"player":"a","score":1},{"player":"b","score":0}]}"#,
    ];

    fn ledger() -> Ledger {
        let mut l = Ledger::memory();
        let events = LINES.iter().map(|x| ladder_events::json::parse_line(x));
        l.append(events, &Default::default()).expect("a valid history");
        l
    }

    fn elo(k: &str) -> ladder_projector::Config {
        ladder_replay::registry::configure("elo", &[k]).expect("a valid constant")
    }

    #[test]
    fn an_elo_game_is_explained_as_by_hand() {
        // Elo with k = 20, both at 1500: E = 1 / (1 + 10^((1500 - 1500) / 400)) = 0.5, so the
        // winner gains 20 (1 - 0.5) = +10 and the loser loses 10; with k = 40, +20 and -20.
        let vs = vs_config(&elo("k=20"), "k=40").expect("k=40 is valid");
        let request = Request { config: elo("k=20"), seq: 3, player: None, vs: vec![vs] };
        let x = explain(&ledger(), &request).expect("event 3 explained");
        assert_eq!(x.names, ["a", "b"]);
        let changes = |t: &Told| t.seats.iter().map(|s| s.change).collect::<Vec<_>>();
        assert_eq!(changes(&x.explained), [Some(10.0), Some(-10.0)]);
        assert_eq!(changes(&x.vs[0]), [Some(20.0), Some(-20.0)]);
        let e = x.explained.steps.iter().find_map(|s| match s {
            Step::Quantity { player: Some(p), name, value, .. } if p == "a" && name == "E" => {
                Some(*value)
            }
            _ => None,
        });
        assert_eq!(e, Some(0.5));
        assert!(x.period.is_none(), "Elo rates each game at once");
        assert_eq!(x.inclusion_ok, Ok(()));
        assert_eq!((x.inclusion.index, x.inclusion.size), (2, 3));
        let json = x.to_json();
        assert_eq!(json["explained"]["players"][1]["change"], -10.0);
        assert_eq!(json["vs"][0]["config"], "elo k=40.0 initial_rating=1500.0");
    }

    #[test]
    fn an_unknown_event_and_a_player_the_event_does_not_concern_are_refused() {
        let l = ledger();
        for seq in [0, 4] {
            let r = explain(&l, &Request { config: elo("k=20"), seq, player: None, vs: vec![] });
            assert!(matches!(r, Err(ExplainError::NoEvent { head: 3, .. })), "{seq}: {r:?}");
        }
        let request = Request { config: elo("k=20"), seq: 3, player: Some("c".into()), vs: vec![] };
        let err = explain(&l, &request).expect_err("c is not in event 3");
        assert_eq!(
            err.to_string(),
            "event 3 does not name \"c\" and changes nothing of theirs under elo; it names: a, b"
        );
        assert!(vs_config(&elo("k=20"), "k").is_err() && vs_config(&elo("k=20"), "k=-1").is_err());
    }

    #[test]
    fn the_progress_hook_hears_each_read_and_the_replay_is_the_same_without_it() {
        struct Count(Rc<RefCell<Vec<(u64, u64)>>>);
        impl Progress for Count {
            fn start(&self, total: u64) -> Box<dyn Fn(u64)> {
                let log = Rc::clone(&self.0);
                log.borrow_mut().push((total, 0));
                Box::new(move |n| log.borrow_mut().push((total, n)))
            }
        }
        let l = ledger();
        let heard = Rc::new(RefCell::new(Vec::new()));
        let count = Count(Rc::clone(&heard));
        let fold = |history: &LedgerHistory<'_>| {
            let mut p = ladder_replay::registry::build(elo("k=20")).expect("elo builds");
            let r = ladder_replay::replay(history, &mut [&mut p], Default::default(), &mut |_| {})
                .expect("the history replays");
            (
                r.through,
                ladder_replay::Snapshot::capture(&p, &r.roster, r.through, &r.head).to_json(),
            )
        };
        let with = fold(&LedgerHistory::with_progress(&l, &count));
        assert_eq!(with, fold(&LedgerHistory::new(&l)));
        assert_eq!(with.0, 3);
        let heard = heard.borrow();
        assert_eq!(heard.first(), Some(&(3, 0)), "a read of the 3 events began: {heard:?}");
        assert!(heard.iter().all(|&(total, n)| total == 3 && n <= 3), "{heard:?}");
    }
}
