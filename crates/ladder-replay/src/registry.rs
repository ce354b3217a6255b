//! Algorithm names to constant tables and projectors.
//!
//! [`Algo`] holds any of ladder's projectors by value: the replay driver calls it through the
//! [`Projector`] trait, and checkpoints save and restore its concrete state, which a trait object
//! could not do.

use crate::ReplayError;
use ladder_events::Timestamp;
use ladder_projector::{
    Algorithm, Config, Home, ParamSpec, PlayerId, ProjectError, Projector, Quantities, Standing,
    Step, Trace,
};

/// The one list of algorithms: each line is a variant of [`Algo`] and the crate's type that
/// implements [`Algorithm`]. Everything else here (names, constant tables, construction,
/// checkpoints, dispatch) is generated from it, so adding an algorithm is one line.
macro_rules! algorithms {
    ($($(#[$doc:meta])* $variant:ident => $ty:ty,)+) => {
        /// Every algorithm `--algo` accepts, in docs/spec.md's order.
        pub const ALGORITHMS: &[&str] = &[$(<$ty as Algorithm>::ALGORITHM),+];

        /// The constant table of `algorithm`.
        pub fn params(algorithm: &str) -> Result<&'static [ParamSpec], ReplayError> {
            $(if algorithm == <$ty as Algorithm>::ALGORITHM {
                return Ok(<$ty as Algorithm>::PARAMS);
            })+
            Err(ReplayError::UnknownAlgorithm(algorithm.to_string()))
        }

        /// The constants `ladder tune` searches by default for `algorithm` (none for a name
        /// that is not an algorithm).
        pub fn tuned(algorithm: &str) -> &'static [&'static str] {
            $(if algorithm == <$ty as Algorithm>::ALGORITHM {
                return <$ty as Algorithm>::TUNED;
            })+
            &[]
        }

        /// One of ladder's projectors.
        #[derive(Clone, Debug)]
        pub enum Algo {
            $($(#[$doc])* $variant($ty),)+
        }

        /// A fresh projector for a validated configuration.
        pub fn build(config: Config) -> Result<Algo, ReplayError> {
            $(if config.algorithm == <$ty as Algorithm>::ALGORITHM {
                return Ok(Algo::$variant(<$ty as Algorithm>::new(config)?));
            })+
            Err(ReplayError::UnknownAlgorithm(config.algorithm.to_string()))
        }

        impl Algo {
            /// The projector's whole state, for a checkpoint (bincode of the crate's state type).
            pub fn save_state(&self) -> Vec<u8> {
                match self {
                    $(Algo::$variant(p) => encode(p.state()),)+
                }
            }

            /// A projector with `config` resuming from [`Algo::save_state`]'s bytes.
            pub fn restore(config: Config, bytes: &[u8]) -> Result<Algo, ReplayError> {
                let a = config.algorithm;
                $(if a == <$ty as Algorithm>::ALGORITHM {
                    return Ok(Algo::$variant(<$ty as Algorithm>::restore(config, decode(a, bytes)?)?));
                })+
                Err(ReplayError::UnknownAlgorithm(a.to_string()))
            }

            /// [`Projector::apply`] of the projector it holds, called directly (each arm its
            /// type's method, which the compiler may inline), not through a trait object: a
            /// replay applies a step per event, and [`Algo::inner_mut`] made each one two
            /// indirect calls.
            #[inline]
            fn apply_direct(
                &mut self,
                step: &Step<'_>,
                trace: Option<&mut Trace>,
            ) -> Result<(), ProjectError> {
                match self {
                    $(Algo::$variant(p) => p.apply(step, trace),)+
                }
            }

            /// [`Projector::prefetch`] of the projector it holds, called directly, as
            /// [`Algo::apply_direct`].
            #[inline]
            fn prefetch_direct(&self, player: PlayerId) {
                match self {
                    $(Algo::$variant(p) => p.prefetch(player),)+
                }
            }

            fn inner(&self) -> &dyn Projector {
                match self {
                    $(Algo::$variant(p) => p,)+
                }
            }

            fn inner_mut(&mut self) -> &mut dyn Projector {
                match self {
                    $(Algo::$variant(p) => p,)+
                }
            }
        }
    };
}

algorithms! {
    /// TGR (docs/algorithms/tgr.md).
    Tgr => ladder_tgr::Tgr,
    /// Glicko-1 (docs/algorithms/glicko.md).
    Glicko => ladder_glicko::Glicko,
    /// Glicko-2 (docs/algorithms/glicko2.md).
    Glicko2 => ladder_glicko::Glicko2,
    /// ZoneStats (docs/algorithms/zonestats.md).
    ZoneStats => ladder_zonestats::ZoneStats,
    /// The Elo baseline (docs/algorithms/elo.md).
    Elo => ladder_elo::Elo,
    /// Arimaa performance ratings (docs/algorithms/performance.md).
    Performance => ladder_performance::Performance,
    /// Weng-Lin, Bradley-Terry full pairing (docs/algorithms/weng-lin.md).
    WengLin => ladder_wenglin::WengLin,
    /// TrueSkill Through Time, a whole-history rating (docs/algorithms/ttt.md).
    Ttt => ladder_ttt::Ttt,
}

fn name(algorithm: &str) -> Result<&'static str, ReplayError> {
    ALGORITHMS
        .iter()
        .copied()
        .find(|a| *a == algorithm)
        .ok_or_else(|| ReplayError::UnknownAlgorithm(algorithm.into()))
}

/// Validates `sets` (`KEY=VALUE` pairs, later ones win) against `algorithm`'s table.
pub fn config(algorithm: &str, sets: &[(String, String)]) -> Result<Config, ReplayError> {
    Ok(Config::new(name(algorithm)?, params(algorithm)?, sets)?)
}

/// `algorithm`'s configuration from constants as written: each text `KEY=VALUE[,KEY=VALUE...]`,
/// as `--set` takes it and a query's `set=`, later keys winning. The one place `ladder` and
/// `ladder serve` turn a name and constants as written into a [`Config`].
pub fn configure<S: AsRef<str>>(algorithm: &str, texts: &[S]) -> Result<Config, ReplayError> {
    let mut sets = Vec::new();
    for text in texts {
        sets.extend(Config::parse_assignments(text.as_ref())?);
    }
    config(algorithm, &sets)
}

/// Why a checkpoint's state could not be used.
#[derive(Debug, thiserror::Error)]
#[error("checkpoint state of {algorithm} does not decode: {reason}")]
pub struct StateError {
    algorithm: &'static str,
    reason: String,
}

fn encode<T: serde::Serialize>(state: &T) -> Vec<u8> {
    bincode::serialize(state).expect("projector states always encode")
}

fn decode<T: serde::de::DeserializeOwned>(
    algorithm: &'static str,
    bytes: &[u8],
) -> Result<T, ReplayError> {
    bincode::deserialize(bytes)
        .map_err(|e| ReplayError::Checkpoint(StateError { algorithm, reason: e.to_string() }))
}

impl Algo {
    /// True when its standings are [`Projector::standing`] of each id, computed one by
    /// one (the trait's default [`Projector::standings`]), so asking player by player,
    /// on several threads, costs what asking for all at once does; false for those that
    /// compute them all at once (Glicko and Glicko-2 close the open period once,
    /// TrueSkill Through Time converges the history once). Either way the values are the
    /// same ([`Projector::standings`]); only the cost differs.
    pub fn standings_one_by_one(&self) -> bool {
        !matches!(self, Algo::Glicko(_) | Algo::Glicko2(_) | Algo::Ttt(_))
    }
}

impl Projector for Algo {
    fn algorithm(&self) -> &'static str {
        self.inner().algorithm()
    }
    fn config(&self) -> &Config {
        self.inner().config()
    }
    fn apply(&mut self, step: &Step<'_>, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        self.apply_direct(step, trace)
    }
    fn standing(&self, player: PlayerId) -> Option<Standing> {
        self.inner().standing(player)
    }
    fn players(&self) -> usize {
        self.inner().players()
    }
    fn standings(&self) -> Vec<Standing> {
        self.inner().standings()
    }
    fn ranked_by(&self) -> &'static str {
        self.inner().ranked_by()
    }
    fn settle(&self, seq: u64, trace: Option<&mut Trace>) -> Result<(), ProjectError> {
        self.inner().settle(seq, trace)
    }
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        self.inner().expectation(a, b, at)
    }
    fn expectation_at(&self, a: PlayerId, b: PlayerId, at: Timestamp, home: Home) -> f64 {
        self.inner().expectation_at(a, b, at, home)
    }
    fn rating_period(&self, at: Timestamp) -> Option<(i64, i64)> {
        self.inner().rating_period(at)
    }
    fn period_change(&self, quantity: &Quantities<'_>) -> Option<(f64, f64)> {
        self.inner().period_change(quantity)
    }
    fn flag_reason(&self, code: &str, player: &str, quantity: &Quantities<'_>) -> Option<String> {
        self.inner().flag_reason(code, player, quantity)
    }
    fn prefetch(&self, player: PlayerId) {
        self.prefetch_direct(player)
    }
    fn curve(&self, player: PlayerId) -> Option<Vec<(Timestamp, Standing)>> {
        self.inner().curve(player)
    }
    fn set_incremental(&mut self, on: bool) {
        self.inner_mut().set_incremental(on)
    }
}
