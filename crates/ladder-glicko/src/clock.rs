//! Rating periods and idle time, shared by Glicko and Glicko-2 (docs/spec.md).

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

    /// `(to - from) / idle` as a fraction, never negative (docs/spec.md: t = time since the
    /// player's last game or join, divided by `idle`).
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

    /// The *idle mark* of an event at `at`, the one number a player keeps to measure idle time
    /// without dividing on every game: with whole periods, the index of the first period that
    /// counts as idle (the period of `at`, or with `next` the one after it); with `period=game`,
    /// the instant `at` itself in nanoseconds.
    #[inline]
    pub fn mark(&self, at: Timestamp, next: bool) -> i64 {
        match self.period {
            // Periods are at least one second, so the index is far from i64::MAX.
            Period::Every(_) => self.index(at) + i64::from(next),
            Period::Game => at.0,
        }
    }

    /// Idle time from `mark` (see [`Clock::mark`]) to an instant `at` of period index `now`:
    /// whole periods `now - mark` (never negative), or with `period=game` the fraction
    /// `(at - mark) / idle`.
    #[inline]
    pub fn idle_since(&self, mark: i64, at: Timestamp, now: i64) -> f64 {
        match self.period {
            Period::Every(_) => (now - mark).max(0) as f64,
            Period::Game => self.idle_units(Timestamp(mark), at),
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

/// The period index of the latest step, remembered with its bounds so that a run of steps in one
/// period costs one integer division, not one per step and player. A cache, not state.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cursor {
    /// `[start, end)` in nanoseconds; empty until the first step.
    start: i64,
    end: i64,
    index: i64,
}

impl Cursor {
    /// `clock.index(at)`, from the cache when `at` is in the remembered period.
    #[inline]
    pub fn index(&mut self, clock: &Clock, at: Timestamp) -> i64 {
        if self.start <= at.0 && at.0 < self.end {
            return self.index;
        }
        let k = clock.index(at);
        if let Period::Every(p) = clock.period {
            // Bounds that do not fit in i64 (instants within one period of the ends of the
            // range) are not cached: the interval stays empty and the next step divides again.
            match (k.checked_mul(p), k.checked_add(1).and_then(|k1| k1.checked_mul(p))) {
                (Some(start), Some(end)) => (self.start, self.end) = (start, end),
                _ => (self.start, self.end) = (0, 0),
            }
        }
        self.index = k;
        k
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
    fn the_cursor_agrees_with_the_division() {
        let day = NANOS_PER_DAY;
        let c = Clock { period: Period::Every(day), idle: day };
        let mut cursor = Cursor::default();
        let instants =
            [0, 5, day - 1, day, 3 * day + 7, -1, -day, -day - 1, i64::MAX, i64::MIN, 2, day];
        for at in instants {
            assert_eq!(cursor.index(&c, Timestamp(at)), c.index(Timestamp(at)), "at {at}");
        }
        // Marks: the period itself or the next; with period=game the instant.
        assert_eq!(c.mark(Timestamp(day + 1), false), 1);
        assert_eq!(c.mark(Timestamp(day + 1), true), 2);
        assert_eq!(c.idle_since(2, Timestamp(5 * day), 5), 3.0);
        assert_eq!(c.idle_since(6, Timestamp(5 * day), 5), 0.0);
        let g = Clock { period: Period::Game, idle: day };
        assert_eq!(g.mark(Timestamp(day + 1), true), day + 1);
        assert_eq!(g.idle_since(day, Timestamp(day + day / 2), 0), 0.5);
    }

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
