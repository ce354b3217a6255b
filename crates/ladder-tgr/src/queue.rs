//! TGR text, the queue: whom a player waiting for a ladder match is paired with.
//!
//! The seed's loop scans the waiting players again and again until one fits or five minutes pass.
//! Ladder has no clock in its projectors, so the scan is a pure function ([`pair`]) that a caller
//! runs whenever the waiting list changes; the waiting itself belongs to the caller. When the
//! [`QUEUE_WAIT_SECONDS`] pass with no fit, the seed sets `Player.Time = DayFrac()`: the ledger
//! records that as a `QueueTimeout` event, which the projector applies (Time reset, RD not grown).

use crate::formulas::win_prob;
use ladder_projector::PlayerId;

/// TGR text, queue: `P = 0.35` (the seed reuses the name `P` for this band; it is not
/// UpdatePlayer's `P`). A candidate fits when `abs(ProbWin - 0.5) < 0.35`, strictly: a win chance
/// strictly between 15% and 85%.
pub const QUEUE_BAND: f64 = 0.35;

/// TGR text, queue: `DayFrac() < Time + 300/86400` ("300 refers to 300 seconds = 5 mins"): how
/// long a player waits before the queue gives up and a `QueueTimeout` is recorded.
pub const QUEUE_WAIT_SECONDS: i64 = 300;

/// One waiting player as the scan saw them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Who is waiting.
    pub player: PlayerId,
    /// `ProbWin = WinProb(Player, Opponent)`: the chance that the *queueing* player beats them.
    pub win_prob: f64,
    /// Whether `abs(ProbWin - 0.5) < 0.35`.
    pub in_band: bool,
}

/// The outcome of one scan of the queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueChoice {
    /// Every waiting player, in the order given, with their `ProbWin`.
    pub candidates: Vec<Candidate>,
    /// The opponent: the first candidate whose `ProbWin` is closest to 50% inside the band, or
    /// `None` when nobody fits (keep waiting; after [`QUEUE_WAIT_SECONDS`], a `QueueTimeout`).
    pub opponent: Option<Candidate>,
}

/// TGR text, the queue's inner loop: chooses, among `waiting` players `(id, rating, rd)`, the one
/// whose `WinProb(player, opponent)` is closest to 50%, provided it is strictly inside the band
/// (`abs(ProbWin - 0.5) < 0.35`). `player` is `(rating, rd)` of the player who queues.
///
/// Ties keep the earlier candidate, as the seed's strict `<` does. Pass values with pending
/// midnights applied ([`crate::Tgr::values_at`]) so RDs are those the seed would hold at the time.
pub fn pair(player: (f64, f64), waiting: &[(PlayerId, f64, f64)]) -> QueueChoice {
    // TGR text, queue: P = 0.35
    let mut best = QUEUE_BAND;
    let mut opponent = None;
    let mut candidates = Vec::with_capacity(waiting.len());
    // TGR text, queue: For every Opponent waiting for a ladder match do {
    for &(id, rating, rd) in waiting {
        // TGR text, queue: ProbWin = WinProb(Player, Opponent);
        let wp = win_prob(player.0, player.1, rating, rd);
        let distance = (wp - 0.5).abs();
        let candidate = Candidate { player: id, win_prob: wp, in_band: distance < QUEUE_BAND };
        // TGR text, queue: If abs(ProbWin - 0.5) < P then { Opp = Opponent; P = abs(ProbWin - 0.5);
        // }
        if distance < best {
            best = distance;
            opponent = Some(candidate);
        }
        candidates.push(candidate);
    }
    QueueChoice { candidates, opponent }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_to_even_inside_the_band_first_on_ties() {
        let waiting = [
            (PlayerId(0), 2100.0, 50.0), // far above: outside the band
            (PlayerId(1), 1560.0, 50.0),
            (PlayerId(2), 1440.0, 50.0), // same distance as #1: #1 came first
            (PlayerId(3), 1700.0, 50.0),
        ];
        let c = pair((1500.0, 50.0), &waiting);
        assert_eq!(c.opponent.map(|o| o.player), Some(PlayerId(1)));
        assert!(!c.candidates[0].in_band);
        assert!(c.candidates[1..].iter().all(|x| x.in_band));
        assert!((c.candidates[1].win_prob + c.candidates[2].win_prob - 1.0).abs() < 1e-12);
    }

    #[test]
    fn nobody_fits() {
        assert_eq!(pair((1500.0, 50.0), &[]).opponent, None);
        let c = pair((1500.0, 30.0), &[(PlayerId(7), 900.0, 30.0)]);
        assert_eq!(c.opponent, None);
        assert!(c.candidates[0].win_prob > 0.85);
    }
}
