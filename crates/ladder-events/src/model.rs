//! The event types. Plain serde derives only: no flatten, tag or untagged, so bincode
//! round-trips them exactly (see [`crate::codec`]). The one `skip` is [`Seat::home`], which the
//! codec stores after the bincode payload under its own schema byte, so that the stored bytes of
//! every event without a home seat stay those of the first schema.

use crate::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One entry of a ladder's history: what happened, when, and the caller's idempotency key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// When it happened, in UTC.
    pub at: Timestamp,
    /// The caller's idempotency key (`id` in JSON): re-sending an event with a stored id is a no-op.
    pub id: Option<String>,
    /// What happened.
    pub body: Body,
}

/// The kinds of event (`type` in JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Body {
    /// A player enters the ladder, optionally with a prior carried over from another ladder.
    PlayerJoined {
        /// The player's name, kept byte for byte.
        player: String,
        /// A prior rating, rating deviation and volatility, each optional.
        prior: Prior,
    },
    /// A finished game between two or more seats.
    MatchResult {
        /// The seats in the order written; pairs are rated in this order.
        seats: Vec<Seat>,
    },
    /// 00:00:00 UTC of a date: TGR's daily RD update (the TGR text, "executed every midnight").
    MidnightTick,
    /// A player waited in TGR's queue and nobody fitted (the TGR text, the queue code): their time
    /// resets.
    QueueTimeout {
        /// Who waited.
        player: String,
    },
    /// Annuls an earlier MatchResult recorded in error.
    MatchVoided {
        /// The `id` of the voided MatchResult (`match` in JSON).
        match_id: String,
        /// Free text: why.
        reason: String,
    },
}

/// A prior carried over from an earlier ladder (`rating`, `rd`, `volatility` on PlayerJoined).
/// Each projector uses the quantities it keeps, on its own scale, instead of its defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prior {
    /// Starting rating.
    pub rating: Option<f64>,
    /// Starting rating deviation (> 0).
    pub rd: Option<f64>,
    /// Starting Glicko-2 volatility (> 0).
    pub volatility: Option<f64>,
}

impl Prior {
    /// True when no quantity is given.
    pub fn is_empty(&self) -> bool {
        self.rating.is_none() && self.rd.is_none() && self.volatility.is_none()
    }
}

/// One player's place in a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    /// Who sat here.
    pub player: String,
    /// Points scored; outcomes between seats are decided by comparing scores (equal is a draw).
    pub score: f64,
    /// Seats of one team are one side and never compared with each other; `None` is a side alone.
    pub team: Option<Team>,
    /// Time in the game in seconds (> 0); `None` means the whole game.
    pub seconds: Option<f64>,
    /// The seat has the structural advantage of the match (`"home": true`: the home side in
    /// football, White in chess); on at most one side. Stored by [`crate::codec`] apart from the
    /// bincode payload (schema 2), hence `skip`.
    #[serde(skip)]
    pub home: bool,
}

/// A team label: a string or an integer, and `1` differs from `"1"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Team {
    /// An integer label (`"team": 1`).
    Int(i64),
    /// A string label (`"team": "red"`).
    Text(String),
}

impl fmt::Display for Team {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Team::Int(n) => write!(f, "{n}"),
            Team::Text(s) => write!(f, "{s:?}"),
        }
    }
}

impl Body {
    /// The name of this kind (`type` in JSON, `docs/events.md`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Body::PlayerJoined { .. } => "PlayerJoined",
            Body::MatchResult { .. } => "MatchResult",
            Body::MidnightTick => "MidnightTick",
            Body::QueueTimeout { .. } => "QueueTimeout",
            Body::MatchVoided { .. } => "MatchVoided",
        }
    }
}

impl Event {
    /// Every player this event names, in the order written.
    pub fn players(&self) -> impl Iterator<Item = &str> {
        let (one, seats): (Option<&str>, &[Seat]) = match &self.body {
            Body::PlayerJoined { player, .. } | Body::QueueTimeout { player } => {
                (Some(player), &[])
            }
            Body::MatchResult { seats } => (None, seats),
            Body::MidnightTick | Body::MatchVoided { .. } => (None, &[]),
        };
        one.into_iter().chain(seats.iter().map(|s| s.player.as_str()))
    }

    /// True when some seat of a MatchResult is at home.
    pub fn has_home(&self) -> bool {
        matches!(&self.body, Body::MatchResult { seats } if seats.iter().any(|s| s.home))
    }

    /// The side of each seat: seats with equal teams share a side, a seat without a team is alone.
    /// Sides are numbered from 0 in order of first appearance.
    pub fn sides(seats: &[Seat]) -> Vec<u32> {
        let mut sides = Vec::with_capacity(seats.len());
        let mut next = 0u32;
        for (i, seat) in seats.iter().enumerate() {
            let shared = seat.team.as_ref().and_then(|t| {
                seats[..i].iter().position(|s| s.team.as_ref() == Some(t)).map(|j| sides[j])
            });
            sides.push(shared.unwrap_or_else(|| {
                next += 1;
                next - 1
            }));
        }
        sides
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(p: &str, team: Option<Team>) -> Seat {
        Seat { player: p.into(), score: 0.0, team, seconds: None, home: false }
    }

    #[test]
    fn sides_follow_teams_and_lone_seats() {
        let seats = vec![
            seat("a", Some(Team::Int(1))),
            seat("b", None),
            seat("c", Some(Team::Text("1".into()))),
            seat("d", Some(Team::Int(1))),
            seat("e", None),
        ];
        assert_eq!(Event::sides(&seats), vec![0, 1, 2, 0, 3]);
    }
}
