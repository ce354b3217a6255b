//! Algorithm names to constant tables and constructors.

use crate::ReplayError;
use ladder_projector::{Config, ParamSpec, Projector};

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

/// A fresh projector for a validated configuration.
pub fn build(config: Config) -> Result<Box<dyn Projector + Send>, ReplayError> {
    Ok(match config.algorithm {
        "tgr" => Box::new(ladder_tgr::Tgr::new(config)?),
        "glicko" => Box::new(ladder_glicko::Glicko::new(config)?),
        "glicko2" => Box::new(ladder_glicko::Glicko2::new(config)?),
        "elo" => Box::new(ladder_elo::Elo::new(config)?),
        "performance" => Box::new(ladder_performance::Performance::new(config)?),
        "zonestats" => Box::new(ladder_zonestats::ZoneStats::new(config)?),
        other => return Err(ReplayError::UnknownAlgorithm(other.to_string())),
    })
}
