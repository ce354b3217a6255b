//! The `performance` projector: after each game every seated player's performance rating is
//! solved again over their games.

use crate::solve::{solve_near, winning_expectancy, SolveError, Term};
use crate::weights::{terms, Entry, Variant, DECAY};
use ladder_events::Timestamp;
use ladder_projector::{
    math, Algorithm, Config, ConfigError, Input, ParamKind, ParamSpec, PlayerId, ProjectError,
    ProjectErrorKind, Projector, Standing, Step, Trace,
};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// The algorithm's name for `--algo` (`docs/spec.md`).
pub const ALGORITHM: &str = "performance";

/// The constants of `performance` (`docs/spec.md`).
pub const PARAMS: &[ParamSpec] = &[ParamSpec {
    key: "variant",
    kind: ParamKind::Choice(&Variant::NAMES),
    default: "p4",
    doc: "which of the Arimaa text's p* scripts (p4: the last one the seed specifies exactly)",
    warn_below: None,
}];

/// The rating of a player before their first game, and of an opponent who has not played yet,
/// unless a PlayerJoined prior gives one.
pub const INITIAL_RATING: f64 = 1500.0;

/// Games whose weight is below this (the newest game weighs 1) are left out of the projector's
/// solve, and p3/p4 keep only the newest [`kept_games`] games. The effect on ratings is measured
/// in `docs/algorithms/performance.md`.
pub const WEIGHT_FLOOR: f64 = 1e-9;

/// How many of a player's newest games p3 and p4 keep under `floor`: `0.98^(n-1) >= floor`.
pub fn kept_games(floor: f64) -> usize {
    if floor <= 0.0 {
        usize::MAX
    } else {
        (math::ln(floor) / math::ln(DECAY)).floor() as usize + 1
    }
}

/// One player's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerState {
    /// Whether the player joined (ids not yet seen are padding).
    pub joined: bool,
    /// The rating reported and seen by opponents.
    pub rating: f64,
    /// Matches rated.
    pub games: u64,
    /// Pair games, oldest first, opponents numbered per player (`opponents`).
    pub history: VecDeque<Entry>,
    /// Global id of each opponent to the player's own dense number.
    pub opponents: HashMap<u32, u32>,
    /// Games against each opponent (by the player's own number), all of them ever played.
    pub counts: Vec<u32>,
}

/// The whole state of a performance projection: what a checkpoint stores.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PerformanceState {
    /// Indexed by [`PlayerId`].
    pub players: Vec<PlayerState>,
}

/// The performance-rating projector.
///
/// Pairs: every pair of seats on different sides is one game for each of the two players, the
/// result by comparing scores; each opponent's rating is the one they had before the match. After
/// the match each seated player's rating is solved again over all their games (newest first, in
/// pair order within a match). A player with no finite rating (p1 with only wins or only losses)
/// keeps their previous rating.
#[derive(Clone, Debug)]
pub struct Performance {
    config: Config,
    variant: Variant,
    floor: f64,
    state: PerformanceState,
    seen: Vec<u32>,
    terms: Vec<Term>,
}

fn revalidate(config: Config) -> Result<Config, ConfigError> {
    if config.algorithm != ALGORITHM {
        return Err(ConfigError::Inconsistent {
            algorithm: ALGORITHM,
            message: format!("a configuration of `{}` was given", config.algorithm),
        });
    }
    let sets: Vec<(String, String)> =
        config.values.iter().map(|(k, v)| ((*k).to_string(), v.to_string())).collect();
    Config::new(ALGORITHM, PARAMS, &sets)
}

impl Algorithm for Performance {
    const ALGORITHM: &'static str = ALGORITHM;
    const PARAMS: &'static [ParamSpec] = PARAMS;
    const TUNED: &'static [&'static str] = &["variant"];
    type State = PerformanceState;

    /// Drops games below [`WEIGHT_FLOOR`] (see [`Performance::exact`]).
    fn new(config: Config) -> Result<Performance, ConfigError> {
        Performance::with_floor(config, WEIGHT_FLOOR)
    }

    fn restore(config: Config, state: PerformanceState) -> Result<Performance, ConfigError> {
        let mut p = Performance::new(config)?;
        p.state = state;
        Ok(p)
    }

    fn state(&self) -> &PerformanceState {
        &self.state
    }
}

impl Performance {
    /// A projector that keeps every game (no weight floor): slower for long careers, used to
    /// measure what the floor changes.
    pub fn exact(config: Config) -> Result<Performance, ConfigError> {
        Performance::with_floor(config, 0.0)
    }

    fn with_floor(config: Config, floor: f64) -> Result<Performance, ConfigError> {
        let config = revalidate(config)?;
        let variant = config.text("variant").parse().map_err(|_| ConfigError::BadValue {
            algorithm: ALGORITHM,
            key: "variant",
            value: config.text("variant").to_string(),
            expected: "one of p1, p2, p3, p4, p7, p8".into(),
        })?;
        Ok(Performance {
            config,
            variant,
            floor,
            state: PerformanceState::default(),
            seen: Vec::new(),
            terms: Vec::new(),
        })
    }

    /// The variant in force.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The current rating of `player` ([`INITIAL_RATING`] for one never seen).
    pub fn rating(&self, player: PlayerId) -> f64 {
        self.state.players.get(player.index()).map_or(INITIAL_RATING, |p| p.rating)
    }

    fn record(&mut self, player: PlayerId, opponent: PlayerId, w: f64, r: f64) {
        let keep = if matches!(self.variant, Variant::P3 | Variant::P4) {
            kept_games(self.floor)
        } else {
            usize::MAX
        };
        let p = &mut self.state.players[player.index()];
        let next = p.opponents.len() as u32;
        let opp = *p.opponents.entry(opponent.0).or_insert(next);
        if opp as usize == p.counts.len() {
            p.counts.push(0);
        }
        p.counts[opp as usize] += 1;
        p.history.push_back(Entry { w, r, opp });
        while p.history.len() > keep {
            p.history.pop_front();
        }
    }

    /// Solves `player`'s equation; `Ok(None)` when no finite rating exists.
    fn resolve(&mut self, player: PlayerId) -> Result<Option<f64>, SolveError> {
        let p = &self.state.players[player.index()];
        terms(
            self.variant,
            p.history.iter().rev(),
            &p.counts,
            self.floor,
            &mut self.seen,
            &mut self.terms,
        );
        match solve_near(&self.terms, p.rating) {
            Ok(r) => Ok(Some(r)),
            Err(SolveError::OnlyWins | SolveError::OnlyLosses | SolveError::NoGames) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

impl Projector for Performance {
    fn config(&self) -> &Config {
        &self.config
    }

    fn apply(
        &mut self,
        step: &Step<'_>,
        mut trace: Option<&mut Trace>,
    ) -> Result<(), ProjectError> {
        match step.input {
            Input::Joined { player, prior } => {
                let i = player.index();
                if self.state.players.len() <= i {
                    self.state.players.resize(i + 1, PlayerState::default());
                }
                self.state.players[i] = PlayerState {
                    joined: true,
                    rating: prior.rating.unwrap_or(INITIAL_RATING),
                    ..PlayerState::default()
                };
                Ok(())
            }
            Input::Match { seats } => {
                for s in seats {
                    if !self.state.players.get(s.player.index()).is_some_and(|p| p.joined) {
                        return Err(ProjectError::new(
                            step.seq,
                            ProjectErrorKind::UnknownPlayer(s.player.0),
                        ));
                    }
                }
                let before: Vec<f64> = seats.iter().map(|s| self.rating(s.player)).collect();
                for a in 0..seats.len() {
                    for b in a + 1..seats.len() {
                        if seats[a].side == seats[b].side {
                            continue;
                        }
                        let w = if seats[a].score > seats[b].score {
                            1.0
                        } else if seats[a].score < seats[b].score {
                            0.0
                        } else {
                            0.5
                        };
                        self.record(seats[a].player, seats[b].player, w, before[b]);
                        self.record(seats[b].player, seats[a].player, 1.0 - w, before[a]);
                    }
                }
                if let Some(t) = trace.as_deref_mut() {
                    t.section(format!(
                        "performance ({}) match at event {}",
                        self.variant, step.seq
                    ));
                }
                for (s, old) in seats.iter().zip(&before) {
                    let solved = self.resolve(s.player).map_err(|_| {
                        ProjectError::new(
                            step.seq,
                            ProjectErrorKind::NoConvergence {
                                what: "performance equation",
                                iterations: 400,
                            },
                        )
                    })?;
                    if let Some(t) = trace.as_deref_mut() {
                        let who = Some(s.player);
                        t.quantity(who, "rating", "rating before the match", *old);
                        t.quantity(
                            who,
                            "games used",
                            "games with weight >= floor",
                            self.terms.len() as f64 - self.variant.fictitious().len() as f64,
                        );
                        t.quantity(
                            who,
                            "sum k",
                            "sum of the weights k_i, fictitious games included",
                            self.terms.iter().map(|x| x.k).sum(),
                        );
                        for (i, term) in self.terms.iter().enumerate() {
                            let n = i + 1;
                            t.quantity(
                                who,
                                format!("w_{n}"),
                                "game i: 1 win, 0.5 draw, 0 loss",
                                term.w,
                            );
                            t.quantity(
                                who,
                                format!("r_{n}"),
                                "game i: the opponent's rating then",
                                term.r,
                            );
                            t.quantity(who, format!("k_{n}"), "game i: its weight", term.k);
                        }
                        match solved {
                            Some(r) => {
                                t.quantity(who, "RP", "root of sum k_i (w_i - W(r_i - RP)) = 0", r)
                            }
                            None => t.flag(
                                who,
                                "no-finite-rating",
                                format!(
                                    "{}: every game has the same result: the rating stays at {old}",
                                    self.variant
                                ),
                            ),
                        }
                    }
                    let p = &mut self.state.players[s.player.index()];
                    if let Some(r) = solved {
                        p.rating = r;
                    }
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

    /// The Arimaa text's `W`: `W(r_b - r_a) = 1 / (1 + 10^((r_b - r_a)/400))`.
    fn expectation(&self, a: PlayerId, b: PlayerId, _at: Timestamp) -> f64 {
        winning_expectancy(self.rating(b) - self.rating(a))
    }
}
