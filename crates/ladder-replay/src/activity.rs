//! When each player last played, and the instant of a replay's last event: what a leaderboard's
//! `--active-within` reads (docs/outputs.md).

use ladder_events::Timestamp;
use ladder_projector::PlayerId;

/// Who played when, as far as a replay has read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// The instant of each player's last rated MatchResult, indexed by [`PlayerId`]; `None` for a
    /// player who never sat in one (or beyond the end, for one who joined after the last match).
    last_played: Vec<Option<Timestamp>>,
    /// The instant of the last event applied, `None` before any.
    last_event: Option<Timestamp>,
}

impl Activity {
    /// No event read yet.
    pub fn new() -> Activity {
        Activity::default()
    }

    /// Notes an applied event at `at`.
    pub fn event(&mut self, at: Timestamp) {
        self.last_event = Some(at);
    }

    /// Notes that `player` sat in a rated match at `at` (matches are applied in order, so the
    /// latest call wins).
    pub fn played(&mut self, player: PlayerId, at: Timestamp) {
        let i = player.0 as usize;
        if i >= self.last_played.len() {
            self.last_played.resize(i + 1, None);
        }
        self.last_played[i] = Some(at);
    }

    /// When `player` last sat in a rated match.
    pub fn last_played(&self, player: PlayerId) -> Option<Timestamp> {
        self.last_played.get(player.0 as usize).copied().flatten()
    }

    /// The instant of the last event applied.
    pub fn last_event(&self) -> Option<Timestamp> {
        self.last_event
    }

    /// Takes in what a later replay read (one resumed where this one stopped, as a server's
    /// warm projection does): its last games win, and its last event when it read one.
    pub fn merge(&mut self, later: &Activity) {
        if self.last_played.len() < later.last_played.len() {
            self.last_played.resize(later.last_played.len(), None);
        }
        for (mine, theirs) in self.last_played.iter_mut().zip(&later.last_played) {
            if theirs.is_some() {
                *mine = *theirs;
            }
        }
        if later.last_event.is_some() {
            self.last_event = later.last_event;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_match_wins_and_unseen_players_have_none() {
        let mut a = Activity::new();
        assert_eq!(a.last_event(), None);
        a.played(PlayerId(2), Timestamp(10));
        a.played(PlayerId(2), Timestamp(30));
        a.event(Timestamp(40));
        assert_eq!(a.last_played(PlayerId(2)), Some(Timestamp(30)));
        assert_eq!(a.last_played(PlayerId(0)), None);
        assert_eq!(a.last_played(PlayerId(7)), None);
        assert_eq!(a.last_event(), Some(Timestamp(40)));
    }

    #[test]
    fn a_merged_later_replay_wins_where_it_read_something() {
        let mut a = Activity::new();
        a.played(PlayerId(0), Timestamp(10));
        a.played(PlayerId(1), Timestamp(20));
        a.event(Timestamp(20));
        let mut later = Activity::new();
        later.played(PlayerId(1), Timestamp(30));
        later.played(PlayerId(3), Timestamp(35));
        later.event(Timestamp(35));
        a.merge(&later);
        assert_eq!(a.last_played(PlayerId(0)), Some(Timestamp(10)));
        assert_eq!(a.last_played(PlayerId(1)), Some(Timestamp(30)));
        assert_eq!(a.last_played(PlayerId(2)), None);
        assert_eq!(a.last_played(PlayerId(3)), Some(Timestamp(35)));
        assert_eq!(a.last_event(), Some(Timestamp(35)));
        a.merge(&Activity::new());
        assert_eq!(a.last_event(), Some(Timestamp(35)));
    }
}
