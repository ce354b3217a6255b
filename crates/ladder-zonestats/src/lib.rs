//! ZoneStats: a zero-sum, Elo-like rating for multi-player games scored in points. "The ZoneStats
//! text" below is ZoneStats' description "Player Rating: Quick View of the Algorithm" with its
//! "Detail Equations", quoted in `docs/algorithms/zonestats.md`.
//!
//! Design decisions:
//! - One game is rated by a pure function, [`rate_game`], over plain numbers ([`GameSeat`]); the
//!   [`Projector`] only looks up ratings, calls it, writes the result back and renders its
//!   [`GameAudit`] into a [`Trace`]. Tests and the zero-sum property test use `rate_game` directly.
//! - Every player in a match is a "ZoneStats enabled" player: in ladder every seat belongs to a
//!   player who joined the ladder, which is what the seed's password requirement ensured.
//! - The `?` characters of the seed are minus signs lost in transcription: equation 1 is
//!   `1 / (1 + exp((opp - me) / T))`, equation 2 is `result - predicted_outcome`.
//! - Times are minutes, as in the seed; a seat without `seconds` was in the whole game: the longest
//!   `seconds` of the match, or `max_game_length` when no seat has one (`docs/events.md`).
//! - State ([`ZoneStatsState`]) is plain per-player arrays indexed by [`PlayerId`], serde-derived so a
//!   checkpoint can store it. No clock, IO or randomness.
//!
//! Every reading of the seed is written down with the seed line in `docs/algorithms/zonestats.md`.
#![deny(missing_docs)]

use ladder_events::Timestamp;
use ladder_projector::{
    math, Algorithm, Config, ConfigError, Input, ParamKind, ParamSpec, PlayerId, ProjectError,
    ProjectErrorKind, Projector, SeatIn, Standing, Step, Trace,
};
use serde::{Deserialize, Serialize};

/// The algorithm's name for `--algo` (`docs/spec.md`).
pub const ALGORITHM: &str = "zonestats";

/// The constants of ZoneStats (`docs/spec.md`; values from the ZoneStats text, "Variables").
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "t",
        kind: ParamKind::above(0.0),
        default: "120",
        doc: "spread of the logistic curve (the ZoneStats text, T = 120.0)",
        warn_below: None,
    },
    ParamSpec {
        key: "game_mult",
        kind: ParamKind::above(0.0),
        default: "2",
        doc: "rating points per minute a pair can move (the ZoneStats text, GAME_MULT = 2.0)",
        warn_below: None,
    },
    ParamSpec {
        key: "max_game_length",
        kind: ParamKind::above(0.0),
        default: "20",
        doc: "cap on the minutes a pair counts (the ZoneStats text, MAX_GAME_LENGTH = 20.0)",
        warn_below: None,
    },
    ParamSpec {
        key: "initial_rating",
        kind: ParamKind::above(0.0),
        default: "500",
        doc: "rating of a player without one (the ZoneStats text, \"give the player a rating of 500\")",
        warn_below: None,
    },
];

/// The constants as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Constants {
    /// `T`, > 0.
    pub t: f64,
    /// `GAME_MULT`, > 0.
    pub game_mult: f64,
    /// `MAX_GAME_LENGTH` in minutes, > 0.
    pub max_game_length: f64,
    /// The rating of a new player without a prior, > 0.
    pub initial_rating: f64,
}

impl Default for Constants {
    /// The seed's values: T = 120, GAME_MULT = 2, MAX_GAME_LENGTH = 20, initial rating 500.
    fn default() -> Constants {
        Constants { t: 120.0, game_mult: 2.0, max_game_length: 20.0, initial_rating: 500.0 }
    }
}

impl Constants {
    fn from_config(config: &Config) -> Constants {
        Constants {
            t: config.number("t"),
            game_mult: config.number("game_mult"),
            max_game_length: config.number("max_game_length"),
            initial_rating: config.number("initial_rating"),
        }
    }
}

/// The ZoneStats text, equation 1: `Predicted_outcome = 1 / (1 + exp((opponent's_rating -
/// my_rating) / T))`, the "quick view" form `1 / (1 + exp(-delta / T))` with `delta = my_rating -
/// opponent's_rating`.
pub fn predicted_outcome(my_rating: f64, opp_rating: f64, t: f64) -> f64 {
    1.0 / (1.0 + math::exp((opp_rating - my_rating) / t))
}

/// One seat of a game as [`rate_game`] sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameSeat {
    /// The player's rating before the game.
    pub rating: f64,
    /// Points scored.
    pub score: f64,
    /// Seats with equal sides are team-mates and are not compared.
    pub side: u32,
    /// Time in the game in seconds (> 0); `None` means the whole game.
    pub seconds: Option<f64>,
}

/// What a seat came to in one game.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatAudit {
    /// Seconds in the game, after filling in a missing value.
    pub seconds: f64,
    /// Whether `seconds` was missing and filled in with the whole game.
    pub whole_game: bool,
    /// Minutes in the game (`seconds / 60`), the seed's `my_time_in_game`.
    pub minutes: f64,
    /// The ZoneStats text, step 1: `SPH = Score / Hours_In_Game`.
    pub sph: f64,
    /// The ZoneStats text, equation 4: `Rating_offset = SUM { indiv_result }` vs. all opponents.
    pub rating_offset: f64,
    /// The ZoneStats text, equation 6: `Final_rating_offset = rating_offset * scale`.
    pub final_offset: f64,
}

/// One compared pair of seats (seat `a` before seat `b` in the match), from `a`'s point of view;
/// `b` receives the negation.
#[derive(Clone, Debug, PartialEq)]
pub struct PairAudit {
    /// Index of the first seat.
    pub a: usize,
    /// Index of the second seat.
    pub b: usize,
    /// `delta = playerA_rating - playerB_rating`.
    pub delta: f64,
    /// Equation 1 for `a`.
    pub predicted_outcome: f64,
    /// 1, 0.5 or 0: `a`'s SPH against `b`'s (equation 2's comparison).
    pub result: f64,
    /// Equation 2: `result - predicted_outcome`.
    pub baseline: f64,
    /// Equation 3: `min(MAX_GAME_LENGTH, my_time_in_game, opp_time_in_game)` in minutes.
    pub time: f64,
    /// Equation 3: `indiv_result * GAME_MULT * time`, `a`'s adjustment against `b`.
    pub adjustment: f64,
}

/// Everything computed for one game, in the seed's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAudit {
    /// Per seat, in seat order.
    pub seats: Vec<SeatAudit>,
    /// Every pair of seats on different sides, in seat order (empty when not kept:
    /// [`rate_game_keeping`]).
    pub pairs: Vec<PairAudit>,
    /// Equation 5: the seat whose `|rating_offset|` is largest (`None` when every offset is 0).
    pub highest_seat: Option<usize>,
    /// Equation 5: `Highest_rating_offset`.
    pub highest_rating_offset: f64,
    /// Equation 5: `Scale = time_in_game * GAME_MULT / highest_rating_offset`, at most 1.
    pub scale: f64,
}

impl GameAudit {
    /// Whether equation 5 scaled the game down (`scale < 1`).
    pub fn scaled_down(&self) -> bool {
        self.scale < 1.0
    }
}

/// Rates one game (the ZoneStats text, steps 1 to 7): returns every quantity, including each seat's
/// final rating offset. The offsets sum to zero up to rounding: each pair adds `x` to one seat and
/// `-x` to the other, and equation 6 scales all seats by the same factor.
pub fn rate_game(k: &Constants, seats: &[GameSeat]) -> GameAudit {
    rate_game_keeping(k, seats, true)
}

/// [`rate_game`], keeping [`GameAudit::pairs`] only when `keep_pairs` (a trace wants them): a
/// replay's memory for one match is then linear in its seats, where every pair of a 1,000-seat
/// match would take half a million entries.
pub fn rate_game_keeping(k: &Constants, seats: &[GameSeat], keep_pairs: bool) -> GameAudit {
    // docs/events.md: a missing `seconds` is the whole game, the longest `seconds` given, or
    // `max_game_length` when no seat has one.
    let whole_game = seats
        .iter()
        .filter_map(|s| s.seconds)
        .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.max(s))))
        .unwrap_or(k.max_game_length * 60.0);
    let mut out: Vec<SeatAudit> = seats
        .iter()
        .map(|s| {
            let seconds = s.seconds.unwrap_or(whole_game);
            SeatAudit {
                seconds,
                whole_game: s.seconds.is_none(),
                minutes: seconds / 60.0,
                // The ZoneStats text, step 1: SPH = Score / Hours_In_Game.
                sph: s.score / (seconds / 3600.0),
                rating_offset: 0.0,
                final_offset: 0.0,
            }
        })
        .collect();
    let mut pairs = Vec::new();
    for a in 0..seats.len() {
        for b in a + 1..seats.len() {
            if seats[a].side == seats[b].side {
                // The ZoneStats text, step 1: "Players are only compared against enabled players on
                // opposing teams in team games."
                continue;
            }
            let delta = seats[a].rating - seats[b].rating;
            // Equation 1.
            let predicted = predicted_outcome(seats[a].rating, seats[b].rating, k.t);
            // Equation 2, comparing score per hour (step 4: "Compare the SPH for each pair").
            let (sa, sb) = (out[a].sph, out[b].sph);
            let result = if sa > sb {
                1.0
            } else if sa < sb {
                0.0
            } else {
                0.5
            };
            let baseline = result - predicted;
            // Equation 3: time = MAX_GAME_LENGTH, lowered to either player's time in game.
            let time = k.max_game_length.min(out[a].minutes).min(out[b].minutes);
            let adjustment = baseline * k.game_mult * time;
            // Equation 4: summed per player; the opponent gets the negation (zero sum).
            out[a].rating_offset += adjustment;
            out[b].rating_offset -= adjustment;
            if !keep_pairs {
                continue;
            }
            pairs.push(PairAudit {
                a,
                b,
                delta,
                predicted_outcome: predicted,
                result,
                baseline,
                time,
                adjustment,
            });
        }
    }
    // Equation 5. Among seats tied for the highest |offset|, the one with the least time in game
    // (the strictest scale), so the choice does not depend on seat order.
    let mut highest_seat: Option<usize> = None;
    for (i, s) in out.iter().enumerate() {
        let off = s.rating_offset.abs();
        if off == 0.0 {
            continue;
        }
        highest_seat = match highest_seat {
            None => Some(i),
            Some(h) => {
                let best = out[h].rating_offset.abs();
                if off > best || (off == best && s.minutes < out[h].minutes) {
                    Some(i)
                } else {
                    Some(h)
                }
            }
        };
    }
    let (highest_rating_offset, scale) = match highest_seat {
        None => (0.0, 1.0),
        Some(h) => {
            let highest = out[h].rating_offset.abs();
            // Scale = time_in_game * GAME_MULT / highest_rating_offset; if (scale > 1) scale = 1.
            (highest, (out[h].minutes * k.game_mult / highest).min(1.0))
        }
    };
    for s in &mut out {
        // Equation 6: Final_rating_offset = rating_offset * scale.
        s.final_offset = s.rating_offset * scale;
    }
    GameAudit { seats: out, pairs, highest_seat, highest_rating_offset, scale }
}

/// One player's state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerState {
    /// Whether the player joined (ids of players not yet seen are padding).
    pub joined: bool,
    /// The current rating.
    pub rating: f64,
    /// Matches rated.
    pub games: u64,
}

/// The whole state of a ZoneStats projection: what a checkpoint stores.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ZoneStatsState {
    /// Indexed by [`PlayerId`].
    pub players: Vec<PlayerState>,
}

/// The ZoneStats projector.
#[derive(Clone, Debug)]
pub struct ZoneStats {
    config: Config,
    k: Constants,
    state: ZoneStatsState,
    // Reused per match.
    seats: Vec<GameSeat>,
}

/// Rebuilds `config` through `specs` so a hand-made or foreign [`Config`] is refused rather than
/// panicking later.
fn revalidate(
    algorithm: &'static str,
    specs: &[ParamSpec],
    config: Config,
) -> Result<Config, ConfigError> {
    if config.algorithm != algorithm {
        return Err(ConfigError::Inconsistent {
            algorithm,
            message: format!("a configuration of `{}` was given", config.algorithm),
        });
    }
    let sets: Vec<(String, String)> =
        config.values.iter().map(|(k, v)| ((*k).to_string(), v.to_string())).collect();
    Config::new(algorithm, specs, &sets)
}

impl Algorithm for ZoneStats {
    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["t", "game_mult"];
    type State = ZoneStatsState;

    /// Refuses a configuration of another algorithm or with values outside [`PARAMS`]' ranges.
    fn new(config: Config) -> Result<ZoneStats, ConfigError> {
        ZoneStats::restore(config, ZoneStatsState::default())
    }

    fn restore(config: Config, state: ZoneStatsState) -> Result<ZoneStats, ConfigError> {
        let config = revalidate(ALGORITHM, PARAMS, config)?;
        let k = Constants::from_config(&config);
        Ok(ZoneStats { config, k, state, seats: Vec::new() })
    }

    fn state(&self) -> &ZoneStatsState {
        &self.state
    }
}

impl ZoneStats {
    /// The constants in force.
    pub fn constants(&self) -> &Constants {
        &self.k
    }

    /// The current rating of `player` (the initial rating for a player never seen).
    pub fn rating(&self, player: PlayerId) -> f64 {
        self.state.players.get(player.index()).map_or(self.k.initial_rating, |p| p.rating)
    }

    fn write_trace(&self, trace: &mut Trace, step: &Step<'_>, seats: &[SeatIn], g: &GameAudit) {
        trace.section(format!("zonestats match at event {}", step.seq));
        trace.quantity(None, "T", "constant t", self.k.t);
        trace.quantity(None, "GAME_MULT", "constant game_mult", self.k.game_mult);
        trace.quantity(
            None,
            "MAX_GAME_LENGTH",
            "constant max_game_length (minutes)",
            self.k.max_game_length,
        );
        for (s, a) in seats.iter().zip(&g.seats) {
            let p = Some(s.player);
            trace.quantity(p, "rating", "rating before the game", self.rating(s.player));
            if a.whole_game {
                trace.flag(
                    p,
                    "whole-game-time",
                    format!("no seconds given: counted as the whole game, {} s", a.seconds),
                );
            }
            trace.quantity(p, "time_in_game", "seconds / 60 (minutes)", a.minutes);
            trace.quantity(p, "SPH", "Score / Hours_In_Game", a.sph);
        }
        for pr in &g.pairs {
            let (pa, pb) = (seats[pr.a].player, seats[pr.b].player);
            trace.section(format!("pair seat {} vs seat {}", pr.a + 1, pr.b + 1));
            let p = Some(pa);
            trace.opponent(p, pb);
            trace.opponent(Some(pb), pa);
            trace.quantity(p, "delta", "playerA_rating - playerB_rating", pr.delta);
            trace.quantity(
                p,
                "predicted_outcome",
                "1 / (1 + exp(-delta / T))",
                pr.predicted_outcome,
            );
            trace.quantity(p, "result", "1, 0.5 or 0 by comparing SPH", pr.result);
            trace.quantity(p, "indiv_result", "result - predicted_outcome", pr.baseline);
            trace.quantity(
                p,
                "time",
                "min(MAX_GAME_LENGTH, my_time_in_game, opp_time_in_game)",
                pr.time,
            );
            trace.quantity(p, "adjustment", "indiv_result * GAME_MULT * time", pr.adjustment);
            trace.quantity(Some(pb), "adjustment", "-(opponent's adjustment)", -pr.adjustment);
        }
        trace.section("sums and scale");
        for (s, a) in seats.iter().zip(&g.seats) {
            trace.quantity(
                Some(s.player),
                "Rating_offset",
                "SUM { indiv_result } vs. all opponents",
                a.rating_offset,
            );
        }
        trace.quantity(
            g.highest_seat.map(|h| seats[h].player),
            "Highest_rating_offset",
            "max |Rating_offset|",
            g.highest_rating_offset,
        );
        trace.quantity(
            None,
            "scale",
            "min(1, time_in_game * GAME_MULT / highest_rating_offset)",
            g.scale,
        );
        if g.scaled_down() {
            trace.flag(
                g.highest_seat.map(|h| seats[h].player),
                "scaled-down",
                format!(
                    "a player moved more than {} points per minute: every offset scaled by {}",
                    self.k.game_mult, g.scale
                ),
            );
        }
        for (s, a) in seats.iter().zip(&g.seats) {
            trace.quantity(
                Some(s.player),
                "Final_rating_offset",
                "rating_offset * scale",
                a.final_offset,
            );
            trace.quantity(
                Some(s.player),
                "rating'",
                "rating + Final_rating_offset",
                self.rating(s.player) + a.final_offset,
            );
        }
    }
}

impl Projector for ZoneStats {
    fn config(&self) -> &Config {
        &self.config
    }

    fn apply(&mut self, step: &Step<'_>, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        match step.input {
            Input::Joined { player, prior } => {
                let i = player.index();
                if self.state.players.len() <= i {
                    self.state.players.resize(
                        i + 1,
                        PlayerState { joined: false, rating: self.k.initial_rating, games: 0 },
                    );
                }
                // A prior rating starts the player there (docs/events.md).
                self.state.players[i] = PlayerState {
                    joined: true,
                    rating: prior.rating.unwrap_or(self.k.initial_rating),
                    games: 0,
                };
                Ok(())
            }
            Input::Match { seats } => {
                let mut buf = std::mem::take(&mut self.seats);
                buf.clear();
                for s in seats {
                    match self.state.players.get(s.player.index()) {
                        Some(p) if p.joined => buf.push(GameSeat {
                            rating: p.rating,
                            score: s.score,
                            side: s.side,
                            seconds: s.seconds,
                        }),
                        _ => {
                            self.seats = buf;
                            return Err(ProjectError::new(
                                step.seq,
                                ProjectErrorKind::UnknownPlayer(s.player.0),
                            ));
                        }
                    }
                }
                let g = rate_game_keeping(&self.k, &buf, trace.is_some());
                self.seats = buf;
                for (s, a) in seats.iter().zip(&g.seats) {
                    let r = self.rating(s.player) + a.final_offset;
                    if !r.is_finite() {
                        return Err(ProjectError::new(
                            step.seq,
                            ProjectErrorKind::NonFinite {
                                quantity: "rating",
                                detail: format!(
                                    "offset {} (SPH {}, scale {})",
                                    a.final_offset, a.sph, g.scale
                                ),
                            },
                        ));
                    }
                }
                if let Some(t) = trace {
                    self.write_trace(t, step, seats, &g);
                }
                for (s, a) in seats.iter().zip(&g.seats) {
                    let p = &mut self.state.players[s.player.index()];
                    p.rating += a.final_offset;
                    p.games += 1;
                }
                Ok(())
            }
            Input::Tick | Input::Timeout { .. } => Ok(()),
        }
    }

    fn standing(&self, player: PlayerId) -> Option<Standing> {
        let p = self.state.players.get(player.index()).filter(|p| p.joined)?;
        Some(Standing::rating_only(player, p.rating, p.games))
    }

    fn players(&self) -> usize {
        self.state.players.len()
    }

    /// Equation 1: the predicted outcome of `a` against `b`.
    fn expectation(&self, a: PlayerId, b: PlayerId, _at: Timestamp) -> f64 {
        predicted_outcome(self.rating(a), self.rating(b), self.k.t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equation_1_is_the_quick_view_logistic() {
        assert_eq!(predicted_outcome(500.0, 500.0, 120.0), 0.5);
        let p = predicted_outcome(620.0, 500.0, 120.0);
        assert!((p - 1.0 / (1.0 + ladder_projector::math::exp(-1.0))).abs() < 1e-15);
    }

    #[test]
    fn foreign_or_bad_configs_are_refused() {
        let other = Config::new("elo", &[], &[]).unwrap();
        assert!(matches!(ZoneStats::new(other), Err(ConfigError::Inconsistent { .. })));
        let sets = vec![("t".to_string(), "0".to_string())];
        assert!(matches!(ZoneStats::configure(&sets), Err(ConfigError::BadValue { .. })));
        let sets = vec![("k".to_string(), "1".to_string())];
        assert!(matches!(ZoneStats::configure(&sets), Err(ConfigError::UnknownKey { .. })));
    }
}
