//! The hidden skills, for `ladder sim --truth FILE`.

use ladder_events::Timestamp;

/// One player's hidden skill, as [`crate::Simulation::truth`] reports it.
///
/// `skill` is on the Elo/Glicko scale (400 points = 10:1 odds, the simulator draws outcomes with
/// `1 / (1 + 10^((opponent - skill) / 400))`), so it compares directly with the ratings of TGR,
/// Glicko, Glicko-2 and Elo. Draws are not part of the skill: they come at a fixed rate.
#[derive(Clone, Debug, PartialEq)]
pub struct TrueSkill {
    /// The player's name, as in the events.
    pub player: String,
    /// The hidden skill on `at`'s UTC day (the random walk applied up to that day).
    pub skill: f64,
    /// The hidden skill on the day the player joined.
    pub initial: f64,
    /// When the player joined.
    pub joined: Timestamp,
    /// How many of the recorded matches the player sat in.
    pub matches: u64,
    /// The instant the skill is reported for: the last event generated.
    pub at: Timestamp,
}

impl TrueSkill {
    /// The record as one JSON line (no newline), keys in this order:
    /// `{"player":"p001","skill":1612.25,"initial":1580.5,"joined":"2020-01-01T00:00:00Z",
    /// "matches":123,"at":"2020-12-30T21:14:05Z"}`; floats in their shortest round-trip form.
    pub fn to_json_line(&self) -> String {
        /// The line's keys in their order, instants in RFC 3339.
        #[derive(serde::Serialize)]
        struct Line<'a> {
            player: &'a str,
            skill: f64,
            initial: f64,
            joined: String,
            matches: u64,
            at: String,
        }
        serde_json::to_string(&Line {
            player: &self.player,
            skill: self.skill,
            initial: self.initial,
            joined: self.joined.to_string(),
            matches: self.matches,
            at: self.at.to_string(),
        })
        .expect("a name, finite skills, a count and two instants always serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_line_has_the_documented_keys() {
        let t = TrueSkill {
            player: "p01".into(),
            skill: 1612.25,
            initial: 1500.0,
            joined: Timestamp::parse("2020-01-01").unwrap(),
            matches: 3,
            at: Timestamp::parse("2020-02-01T10:00:00Z").unwrap(),
        };
        assert_eq!(
            t.to_json_line(),
            r#"{"player":"p01","skill":1612.25,"initial":1500.0,"joined":"2020-01-01T00:00:00Z","matches":3,"at":"2020-02-01T10:00:00Z"}"#
        );
    }
}
