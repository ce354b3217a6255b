//! Rating periods and idle time, shared by Glicko and Glicko-2 (`../shared/CONTRACT.md` section 3).

use ladder_events::Timestamp;
use ladder_projector::{Config, ConfigError, Period};

/// How a projector cuts time: whole periods `[kP, (k+1)P)` from the Unix epoch, or one period per
/// match with idle time measured in `idle` durations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Clock {
    pub period: Period,
    /// Nanoseconds that count as one period of idle growth with `period=game`.
    pub idle: i64,
}

impl Clock {
    pub fn from_config(config: &Config) -> Clock {
        Clock { period: config.period("period"), idle: config.duration("idle") }
    }

    /// The index k of the period holding `at` (periodic mode only; 0 with `period=game`).
    #[inline]
    pub fn index(&self, at: Timestamp) -> i64 {
        match self.period {
            Period::Every(p) => at.0.div_euclid(p),
            Period::Game => 0,
        }
    }

    /// `(to - from) / idle` as a fraction, never negative (contract: t = time since the player's
    /// last game or join, divided by `idle`).
    #[inline]
    pub fn idle_units(&self, from: Timestamp, to: Timestamp) -> f64 {
        // i64 when the difference fits (always, for instants less than 292 years apart), so the
        // hot path avoids a software i128 conversion.
        let ns = match to.0.checked_sub(from.0) {
            Some(ns) => ns as f64,
            None => (i128::from(to.0) - i128::from(from.0)) as f64,
        };
        if ns <= 0.0 {
            0.0
        } else {
            ns / self.idle as f64
        }
    }

    /// A heading for the trace of period `k`: its index and its half-open interval.
    pub fn period_title(&self, algorithm: &str, k: i64) -> String {
        match self.period {
            Period::Every(p) => {
                let start = k.checked_mul(p).map(Timestamp);
                let end = k.checked_add(1).and_then(|k1| k1.checked_mul(p)).map(Timestamp);
                let show =
                    |t: Option<Timestamp>| t.map_or("(out of range)".into(), |t| t.to_string());
                format!("{algorithm} period {k}: [{}, {})", show(start), show(end))
            }
            Period::Game => format!("{algorithm} match (period=game)"),
        }
    }
}

/// The `initial_rd <= rd_max` rule both algorithms keep: RD is always in (0, rd_max].
pub(crate) fn check_rd(algorithm: &'static str, config: &Config) -> Result<(), ConfigError> {
    let (initial_rd, rd_max) = (config.number("initial_rd"), config.number("rd_max"));
    if initial_rd > rd_max {
        return Err(ConfigError::Inconsistent {
            algorithm,
            message: format!(
                "initial_rd={initial_rd} is above rd_max={rd_max}: RD is kept in (0, rd_max], \
                 so a new player could not start where asked"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ladder_events::NANOS_PER_DAY;

    #[test]
    fn periods_start_at_the_epoch_and_round_down() {
        let c = Clock { period: Period::Every(NANOS_PER_DAY), idle: NANOS_PER_DAY };
        assert_eq!(c.index(Timestamp(0)), 0);
        assert_eq!(c.index(Timestamp(NANOS_PER_DAY - 1)), 0);
        assert_eq!(c.index(Timestamp(NANOS_PER_DAY)), 1);
        assert_eq!(c.index(Timestamp(-1)), -1);
        assert_eq!(c.idle_units(Timestamp(0), Timestamp(NANOS_PER_DAY / 4)), 0.25);
        assert_eq!(c.idle_units(Timestamp(10), Timestamp(0)), 0.0);
        assert_eq!(
            c.period_title("glicko", 1),
            "glicko period 1: [1970-01-02T00:00:00Z, 1970-01-03T00:00:00Z)"
        );
    }
}
