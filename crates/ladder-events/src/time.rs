//! UTC instants as integer nanoseconds.

use chrono::{DateTime, NaiveDate, Timelike, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// Nanoseconds in one UTC day (ladder has no leap seconds: chrono's UTC has none either).
pub const NANOS_PER_DAY: i64 = 86_400 * NANOS_PER_SECOND;

/// An instant in UTC, as nanoseconds since 1970-01-01T00:00:00Z.
///
/// Every instant representable in an `i64` of nanoseconds is valid: 1677-09-21 to 2262-04-11, the
/// range `docs/events.md` promises. Ordering is chronological.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Timestamp(pub i64);

/// Why a text is not an instant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
    /// A non-zero digit after the ninth of the fraction of a second: ladder keeps nanoseconds,
    /// and dropping the digit would store another instant than the one written.
    #[error("`{0}` has a digit finer than a nanosecond (more than 9 after the point); ladder keeps nanoseconds: round the instant to 9 digits")]
    TooFine(String),
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
        // chrono reads every digit of the fraction and keeps the first nine; a non-zero digit
        // past them would be dropped (zeros change nothing). The date part has no `.`, so the
        // first `.` starts the fraction.
        if let Some((_, frac)) = text.split_once('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit);
            if digits.skip(9).any(|d| d != b'0') {
                return Err(TimestampError::TooFine(text.to_string()));
            }
        }
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

    /// Appends the instant's RFC 3339 form (what `Display` prints: UTC with a `Z`, fractional
    /// seconds only when there are some, in 3, 6 or 9 digits) to `out`.
    ///
    /// Written by hand, without chrono's formatter or an allocation, because it is on the hot
    /// path of every leaf the ledger hashes (the canonical JSON line of every event, at import and
    /// at verify). The date is Howard Hinnant's `civil_from_days` ("chrono-Compatible Low-Level
    /// Date Algorithms"); `tests::the_hand_written_form_is_chronos` holds it to chrono's
    /// `to_rfc3339_opts(SecondsFormat::AutoSi, true)` across the whole range.
    pub fn write_rfc3339(self, out: &mut Vec<u8>) {
        let days = self.day();
        let nanos = self.nanos_into_day();
        // civil_from_days: days since 1970-01-01 to (year, month, day), proleptic Gregorian.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        let secs = nanos / NANOS_PER_SECOND;
        let frac = nanos % NANOS_PER_SECOND;
        // The whole form written in place: a template of the longest form copied at once,
        // `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (30 bytes), its digits set, and what the form does not
        // use cut off again. The range (1677 to 2262) keeps the year at four digits; every other
        // field is below 100, set as a pair of digits. (Filling a buffer on the stack and copying
        // it made the copy wait for the bytes just stored, a quarter of this function's time.)
        let base = out.len();
        out.extend_from_slice(b"0000-00-00T00:00:00.000000000Z");
        let Some(form) = out.get_mut(base..).and_then(|f| f.first_chunk_mut::<30>()) else {
            return;
        };
        let pair = |form: &mut [u8; 30], at: usize, v: i64| {
            let v = v as u8;
            form[at] = b'0' + v / 10;
            form[at + 1] = b'0' + v % 10;
        };
        pair(form, 0, year / 100);
        pair(form, 2, year % 100);
        pair(form, 5, month);
        pair(form, 8, day);
        pair(form, 11, secs / 3_600);
        pair(form, 14, secs / 60 % 60);
        pair(form, 17, secs % 60);
        let len = if frac == 0 {
            19
        } else {
            // 3, 6 or 9 digits: the fewest that hold the fraction exactly.
            let (digits, mut v) = if frac % 1_000_000 == 0 {
                (3, frac / 1_000_000)
            } else if frac % 1_000 == 0 {
                (6, frac / 1_000)
            } else {
                (9, frac)
            };
            for at in (20..20 + digits).rev() {
                form[at] = b'0' + (v % 10) as u8;
                v /= 10;
            }
            20 + digits
        };
        form[len] = b'Z';
        out.truncate(base + len + 1);
    }

    /// The midnight that starts UTC day number `day`, if in range.
    pub fn midnight_of_day(day: i64) -> Option<Timestamp> {
        day.checked_mul(NANOS_PER_DAY).map(Timestamp)
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339 in UTC with a `Z`, fractional seconds only when there are some.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::with_capacity(30);
        self.write_rfc3339(&mut out);
        // ASCII digits and separators only.
        f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?)
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
        // Zeros past the ninth digit change nothing; any other digit there is refused, not
        // dropped (chrono alone reads ...0000000019 as ...000000001).
        assert_eq!(Timestamp::parse("2026-03-01T10:00:00.000000001000Z"), Ok(n));
        for fine in ["2026-03-01T10:00:00.0000000019Z", "2026-03-01T10:00:00.1234567891+02:00"] {
            assert_eq!(Timestamp::parse(fine), Err(TimestampError::TooFine(fine.to_string())));
        }
    }

    /// chrono's own RFC 3339 form, the oracle for the hand-written one.
    fn chronos(t: Timestamp) -> String {
        t.to_datetime().to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    }

    #[test]
    fn the_hand_written_form_is_chronos() {
        let mut cases = vec![
            i64::MIN,
            i64::MAX,
            0,
            -1,
            1,
            951_782_400 * NANOS_PER_SECOND,    // 2000-02-29
            4_107_542_400 * NANOS_PER_SECOND,  // 2100-03-01
            -2_203_891_200 * NANOS_PER_SECOND, // 1900-02-28
            1_772_323_200 * NANOS_PER_SECOND + 500_000_000,
            1_772_323_200 * NANOS_PER_SECOND + 120_000,
            1_772_323_200 * NANOS_PER_SECOND + 7,
        ];
        // Every day boundary and its neighbours over 30 years around the epoch's leap rules.
        for d in (-11_000..11_000).step_by(7) {
            cases.extend([d * NANOS_PER_DAY - 1, d * NANOS_PER_DAY, d * NANOS_PER_DAY + 1]);
        }
        for t in cases {
            let mut out = Vec::new();
            Timestamp(t).write_rfc3339(&mut out);
            assert_eq!(String::from_utf8(out).unwrap(), chronos(Timestamp(t)), "{t}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_hand_written_form_is_chronos_anywhere(t in proptest::num::i64::ANY) {
            proptest::prop_assert_eq!(Timestamp(t).to_string(), chronos(Timestamp(t)));
        }
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
