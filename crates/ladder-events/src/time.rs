//! UTC instants as integer nanoseconds.

use chrono::{DateTime, NaiveDate, SecondsFormat, Timelike, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// Nanoseconds in one UTC day (ladder has no leap seconds: chrono's UTC has none either).
pub const NANOS_PER_DAY: i64 = 86_400 * NANOS_PER_SECOND;

/// An instant in UTC, as nanoseconds since 1970-01-01T00:00:00Z.
///
/// Every instant representable in an `i64` of nanoseconds is valid: 1677-09-21 to 2262-04-11, the
/// range `../shared/CONTRACT.md` section 1 promises. Ordering is chronological.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Timestamp(pub i64);

/// Why a text is not an instant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    /// Neither RFC 3339 nor a plain date.
    #[error(
        "`{0}` is not an RFC 3339 instant (like 2026-03-01T12:00:00Z) or a date (like 2026-03-01)"
    )]
    Syntax(String),
    /// A leap second (`23:59:60`): ladder's UTC has none, and reading it as the next day's
    /// midnight would make it a MidnightTick's instant.
    #[error("`{0}` is a leap second (second 60); ladder counts UTC without leap seconds: use 23:59:59 or the next day's 00:00:00")]
    LeapSecond(String),
    /// Parsed, but outside the nanosecond range.
    #[error("`{0}` is outside the supported range (1677-09-21 to 2262-04-11)")]
    Range(String),
}

impl Timestamp {
    /// Parses an RFC 3339 instant with any offset, or a date `YYYY-MM-DD` meaning 00:00:00 UTC.
    pub fn parse(text: &str) -> Result<Timestamp, TimestampError> {
        let dt: DateTime<Utc> = match DateTime::parse_from_rfc3339(text) {
            Ok(dt) => dt.with_timezone(&Utc),
            Err(_) => match NaiveDate::parse_from_str(text, "%Y-%m-%d") {
                Ok(d) if text.len() == 10 => {
                    d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc()
                }
                _ => return Err(TimestampError::Syntax(text.to_string())),
            },
        };
        // chrono keeps a leap second as a nanosecond field of a billion or more.
        if dt.nanosecond() >= NANOS_PER_SECOND as u32 {
            return Err(TimestampError::LeapSecond(text.to_string()));
        }
        dt.timestamp_nanos_opt()
            .map(Timestamp)
            .ok_or_else(|| TimestampError::Range(text.to_string()))
    }

    /// The instant as a chrono UTC date-time.
    pub fn to_datetime(self) -> DateTime<Utc> {
        DateTime::from_timestamp_nanos(self.0)
    }

    /// The UTC day number (days since 1970-01-01, negative before).
    pub fn day(self) -> i64 {
        self.0.div_euclid(NANOS_PER_DAY)
    }

    /// Nanoseconds since the start of this instant's UTC day, in `0..NANOS_PER_DAY`.
    pub fn nanos_into_day(self) -> i64 {
        self.0.rem_euclid(NANOS_PER_DAY)
    }

    /// True when the instant is exactly 00:00:00 UTC.
    pub fn is_midnight(self) -> bool {
        self.nanos_into_day() == 0
    }

    /// The midnight that starts UTC day number `day`, if in range.
    pub fn midnight_of_day(day: i64) -> Option<Timestamp> {
        day.checked_mul(NANOS_PER_DAY).map(Timestamp)
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339 in UTC with a `Z`, fractional seconds only when there are some.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_datetime().to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_offsets_dates_and_nanos() {
        let a = Timestamp::parse("2026-03-01T12:00:00+02:00").unwrap();
        let b = Timestamp::parse("2026-03-01T10:00:00Z").unwrap();
        assert_eq!(a, b);
        let d = Timestamp::parse("2026-03-01").unwrap();
        assert!(d.is_midnight());
        assert_eq!(d.to_string(), "2026-03-01T00:00:00Z");
        let n = Timestamp::parse("2026-03-01T10:00:00.000000001Z").unwrap();
        assert_eq!(n.0 - b.0, 1);
        assert_eq!(n.to_string(), "2026-03-01T10:00:00.000000001Z");
    }

    #[test]
    fn range_and_syntax_errors() {
        assert!(matches!(Timestamp::parse("1600-01-01T00:00:00Z"), Err(TimestampError::Range(_))));
        assert!(matches!(Timestamp::parse("2300-01-01"), Err(TimestampError::Range(_))));
        assert!(matches!(Timestamp::parse("yesterday"), Err(TimestampError::Syntax(_))));
        assert!(matches!(Timestamp::parse("2026-3-1"), Err(TimestampError::Syntax(_))));
        assert!(Timestamp::parse("1677-09-22T00:00:00Z").is_ok());
        assert!(Timestamp::parse("2262-04-10T00:00:00Z").is_ok());
    }

    #[test]
    fn a_leap_second_is_refused_not_read_as_the_next_midnight() {
        // chrono reads 23:59:60 as one second past 23:59:59, which is the next day's 00:00:00:
        // a MidnightTick's instant written as the day before.
        for text in ["2016-12-31T23:59:60Z", "2016-12-31T23:59:60.5Z", "2017-01-01T01:59:60+02:00"]
        {
            assert!(
                matches!(Timestamp::parse(text), Err(TimestampError::LeapSecond(_))),
                "{text}: {:?}",
                Timestamp::parse(text)
            );
        }
        let e = Timestamp::parse("2016-12-31T23:59:60Z").unwrap_err().to_string();
        assert!(e.contains("leap second"), "{e}");
        assert!(Timestamp::parse("2016-12-31T23:59:59.999999999Z").is_ok());
    }

    #[test]
    fn days_before_the_epoch_round_down() {
        let t = Timestamp::parse("1969-12-31T23:00:00Z").unwrap();
        assert_eq!(t.day(), -1);
        assert_eq!(t.nanos_into_day(), 23 * 3600 * NANOS_PER_SECOND);
    }
}
