//! Algorithm names to constant tables and projectors.
//!
//! [`Algo`] holds any of ladder's projectors by value: the replay driver calls it through the
//! [`Projector`] trait, and checkpoints save and restore its concrete state, which a trait object
//! could not do.

use crate::ReplayError;
use ladder_events::Timestamp;
use ladder_projector::{
    Config, ParamSpec, PlayerId, ProjectError, Projector, Standing, Step, Trace,
};

/// Every algorithm `--algo` accepts, in the contract's order.
pub const ALGORITHMS: &[&str] = &["tgr", "glicko", "glicko2", "zonestats", "elo", "performance"];

/// The constant table of `algorithm`.
pub fn params(algorithm: &str) -> Result<&'static [ParamSpec], ReplayError> {
    Ok(match algorithm {
        "tgr" => ladder_tgr::PARAMS,
        "glicko" => ladder_glicko::glicko::PARAMS,
        "glicko2" => ladder_glicko::glicko2::PARAMS,
        "elo" => ladder_elo::PARAMS,
        "performance" => ladder_performance::PARAMS,
        "zonestats" => ladder_zonestats::PARAMS,
        other => return Err(ReplayError::UnknownAlgorithm(other.to_string())),
    })
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

/// One of ladder's projectors.
#[derive(Clone, Debug)]
pub enum Algo {
    /// Seed 000.
    Tgr(ladder_tgr::Tgr),
    /// Seed 001, Glicko-1.
    Glicko(ladder_glicko::Glicko),
    /// Seeds 001 and 002, Glicko-2.
    Glicko2(ladder_glicko::Glicko2),
    /// The baseline.
    Elo(ladder_elo::Elo),
    /// Seed 004.
    ZoneStats(ladder_zonestats::ZoneStats),
    /// Seed 003.
    Performance(ladder_performance::Performance),
}

/// A fresh projector for a validated configuration.
pub fn build(config: Config) -> Result<Algo, ReplayError> {
    Ok(match config.algorithm {
        "tgr" => Algo::Tgr(ladder_tgr::Tgr::new(config)?),
        "glicko" => Algo::Glicko(ladder_glicko::Glicko::new(config)?),
        "glicko2" => Algo::Glicko2(ladder_glicko::Glicko2::new(config)?),
        "elo" => Algo::Elo(ladder_elo::Elo::new(config)?),
        "zonestats" => Algo::ZoneStats(ladder_zonestats::ZoneStats::new(config)?),
        "performance" => Algo::Performance(ladder_performance::Performance::new(config)?),
        other => return Err(ReplayError::UnknownAlgorithm(other.to_string())),
    })
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
    /// The projector's whole state, for a checkpoint (bincode of the crate's state type).
    pub fn save_state(&self) -> Vec<u8> {
        match self {
            Algo::Tgr(p) => encode(p.state()),
            Algo::Glicko(p) => encode(p.state()),
            Algo::Glicko2(p) => encode(p.state()),
            Algo::Elo(p) => encode(p.state()),
            Algo::ZoneStats(p) => encode(p.state()),
            Algo::Performance(p) => encode(p.state()),
        }
    }

    /// A projector with `config` resuming from [`Algo::save_state`]'s bytes.
    pub fn restore(config: Config, bytes: &[u8]) -> Result<Algo, ReplayError> {
        let a = config.algorithm;
        Ok(match a {
            "tgr" => Algo::Tgr(ladder_tgr::Tgr::restore(config, decode(a, bytes)?)?),
            "glicko" => Algo::Glicko(ladder_glicko::Glicko::from_state(config, decode(a, bytes)?)?),
            "glicko2" => {
                Algo::Glicko2(ladder_glicko::Glicko2::from_state(config, decode(a, bytes)?)?)
            }
            "elo" => Algo::Elo(ladder_elo::Elo::from_state(config, decode(a, bytes)?)?),
            "zonestats" => {
                Algo::ZoneStats(ladder_zonestats::ZoneStats::with_state(config, decode(a, bytes)?)?)
            }
            "performance" => Algo::Performance(ladder_performance::Performance::with_state(
                config,
                decode(a, bytes)?,
            )?),
            other => return Err(ReplayError::UnknownAlgorithm(other.to_string())),
        })
    }

    fn inner(&self) -> &dyn Projector {
        match self {
            Algo::Tgr(p) => p,
            Algo::Glicko(p) => p,
            Algo::Glicko2(p) => p,
            Algo::Elo(p) => p,
            Algo::ZoneStats(p) => p,
            Algo::Performance(p) => p,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn Projector {
        match self {
            Algo::Tgr(p) => p,
            Algo::Glicko(p) => p,
            Algo::Glicko2(p) => p,
            Algo::Elo(p) => p,
            Algo::ZoneStats(p) => p,
            Algo::Performance(p) => p,
        }
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
        self.inner_mut().apply(step, trace)
    }
    fn standings(&self) -> Vec<Standing> {
        self.inner().standings()
    }
    fn settle(&self, seq: u64) -> Result<(), ProjectError> {
        self.inner().settle(seq)
    }
    fn expectation(&self, a: PlayerId, b: PlayerId, at: Timestamp) -> f64 {
        self.inner().expectation(a, b, at)
    }
    fn prefetch(&self, player: PlayerId) {
        self.inner().prefetch(player)
    }
}
