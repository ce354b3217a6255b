//! Axis ticks: "nice" numbers (1, 2 or 5 × 10^k) for value axes, calendar-aligned instants for
//! time axes.

use chrono::{DateTime, Datelike, NaiveDate, Utc};

/// Evenly spaced tick values at multiples of a nice step, covering a data range.
///
/// Invariants: `values` has at least 2 entries and is strictly increasing; consecutive values
/// differ by `step() = mantissa × 10^exponent` with `mantissa` in {1, 2, 5}; every value is an
/// integer multiple of the step; `values[0] <= lo` and `hi <= values[last]` for the range asked
/// (after the degenerate-range padding described in [`nice_ticks`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Ticks {
    /// The tick values, ascending.
    pub values: Vec<f64>,
    /// 1, 2 or 5.
    pub mantissa: u8,
    /// The power of ten of the step.
    pub exponent: i32,
}

impl Ticks {
    /// The distance between consecutive ticks.
    pub fn step(&self) -> f64 {
        f64::from(self.mantissa) * 10f64.powi(self.exponent)
    }

    /// The first tick, where the axis starts.
    pub fn lo(&self) -> f64 {
        self.values[0]
    }

    /// The last tick, where the axis ends.
    pub fn hi(&self) -> f64 {
        self.values[self.values.len() - 1]
    }

    /// Decimals a label needs to tell the ticks apart exactly: 0 for steps of 1 and more.
    pub fn decimals(&self) -> usize {
        usize::try_from(-self.exponent).unwrap_or(0)
    }

    /// `v` written with [`Ticks::decimals`] decimals (no `-0`).
    pub fn label(&self, v: f64) -> String {
        let s = format!("{v:.*}", self.decimals());
        if s.starts_with('-') && s.bytes().all(|b| matches!(b, b'-' | b'0' | b'.')) {
            s[1..].to_owned()
        } else {
            s
        }
    }
}

/// Nice ticks covering `lo..=hi`: the smallest step in {1, 2, 5} × 10^k that needs at most
/// `max_ticks` ticks (at least 3 is asked for; fewer is raised to 3).
///
/// The axis then runs from the first tick to the last, so every data value lies on it. With
/// `max_ticks >= 6` there are always at least 3 ticks: the next smaller step needed more than
/// `max_ticks`, and steps grow by at most 2.5×. Inputs are forgiving: the bounds may come in either
/// order; a non-finite bound is replaced by the other one (both non-finite gives 0..1); an empty
/// range (`lo == hi`, or narrower than 1e-12 of its magnitude) is widened by 5% of the magnitude
/// each side, or by 1 around 0.
///
/// ```
/// let t = ladder_plot::nice_ticks(0.61, 0.69, 8);
/// assert_eq!(t.values, [0.60, 0.62, 0.64, 0.66, 0.68, 0.70]);
/// assert_eq!((t.mantissa, t.exponent), (2, -2));
/// assert_eq!(t.label(0.6), "0.60");
/// ```
pub fn nice_ticks(lo: f64, hi: f64, max_ticks: usize) -> Ticks {
    let max_ticks = max_ticks.max(3) as f64;
    let (lo, hi) = match (lo.is_finite(), hi.is_finite()) {
        (true, true) => (lo.min(hi), lo.max(hi)),
        (true, false) => (lo, lo),
        (false, true) => (hi, hi),
        (false, false) => (0.0, 1.0),
    };
    // Keep far from overflow: the data this crate draws (log losses, ratings) is nowhere near.
    let (lo, hi) = (lo.clamp(-1e300, 1e300), hi.clamp(-1e300, 1e300));
    let magnitude = lo.abs().max(hi.abs());
    let (lo, hi) = if hi - lo <= magnitude * 1e-12 {
        let pad = if magnitude == 0.0 { 1.0 } else { magnitude * 0.05 };
        (lo - pad, hi + pad)
    } else {
        (lo, hi)
    };
    let range = hi - lo;
    let mut exponent = (range / max_ticks).log10().floor() as i32 - 1;
    loop {
        for mantissa in [1u8, 2, 5] {
            let step = f64::from(mantissa) * 10f64.powi(exponent);
            // The epsilon keeps 0.6 / 0.02 = 29.999… from adding a tick below 0.6.
            let first = (lo / step + 1e-9).floor();
            let last = (hi / step - 1e-9).ceil();
            if last - first + 1.0 <= max_ticks {
                let values = (0..=(last - first) as i64)
                    .map(|i| multiple(first + i as f64, mantissa, exponent))
                    .collect();
                return Ticks { values, mantissa, exponent };
            }
        }
        exponent += 1;
    }
}

/// `i × mantissa × 10^exponent`, computed so that decimal ticks are the doubles their labels
/// denote (62 / 100 is exactly the double nearest 0.62; 62 × 0.01 is not).
fn multiple(i: f64, mantissa: u8, exponent: i32) -> f64 {
    let m = i * f64::from(mantissa);
    if exponent < 0 {
        m / 10f64.powi(-exponent)
    } else {
        m * 10f64.powi(exponent)
    }
}

const SECOND: i64 = 1_000_000_000;
const MINUTE: i64 = 60 * SECOND;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;
/// 1970-01-01 was a Thursday; weekly ticks fall on Mondays, 4 days later.
const MONDAY: i64 = 4 * DAY;

/// A step of a time axis.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TimeStep {
    /// A fixed number of nanoseconds, ticks at multiples of it since the epoch (plus an offset).
    Fixed(i64, i64),
    /// Calendar months: ticks on the first of months `1, 1 + n, …`.
    Months(u32),
    /// Calendar years: ticks on 1 January of years divisible by n.
    Years(i32),
}

const TIME_STEPS: [TimeStep; 31] = [
    TimeStep::Fixed(SECOND, 0),
    TimeStep::Fixed(2 * SECOND, 0),
    TimeStep::Fixed(5 * SECOND, 0),
    TimeStep::Fixed(10 * SECOND, 0),
    TimeStep::Fixed(15 * SECOND, 0),
    TimeStep::Fixed(30 * SECOND, 0),
    TimeStep::Fixed(MINUTE, 0),
    TimeStep::Fixed(2 * MINUTE, 0),
    TimeStep::Fixed(5 * MINUTE, 0),
    TimeStep::Fixed(10 * MINUTE, 0),
    TimeStep::Fixed(15 * MINUTE, 0),
    TimeStep::Fixed(30 * MINUTE, 0),
    TimeStep::Fixed(HOUR, 0),
    TimeStep::Fixed(2 * HOUR, 0),
    TimeStep::Fixed(3 * HOUR, 0),
    TimeStep::Fixed(6 * HOUR, 0),
    TimeStep::Fixed(12 * HOUR, 0),
    TimeStep::Fixed(DAY, 0),
    TimeStep::Fixed(2 * DAY, 0),
    TimeStep::Fixed(7 * DAY, MONDAY),
    TimeStep::Months(1),
    TimeStep::Months(2),
    TimeStep::Months(3),
    TimeStep::Months(6),
    TimeStep::Years(1),
    TimeStep::Years(2),
    TimeStep::Years(5),
    TimeStep::Years(10),
    TimeStep::Years(20),
    TimeStep::Years(50),
    TimeStep::Years(100),
];

/// Ticks of a time axis over `lo..=hi` (UTC nanoseconds, `lo <= hi`): the finest step of
/// [`TIME_STEPS`] with at most `max` ticks inside the range, each with a label as precise as the
/// step needs (`2024`, `Mar 2024`, `2024-03-15`, `03-15 14:00`, `14:05`, `14:05:30`).
pub(crate) fn time_ticks(lo: i64, hi: i64, max: usize) -> Vec<(i64, String)> {
    for step in TIME_STEPS {
        if let Some(ticks) = instants(step, lo, hi, max) {
            return ticks.into_iter().map(|t| (t, time_label(step, t))).collect();
        }
    }
    Vec::new()
}

/// The instants of `step` in `lo..=hi`, or `None` when there are more than `max`.
fn instants(step: TimeStep, lo: i64, hi: i64, max: usize) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    match step {
        TimeStep::Fixed(n, offset) => {
            let (lo, hi) =
                (i128::from(lo) - i128::from(offset), i128::from(hi) - i128::from(offset));
            let n = i128::from(n);
            let first = lo.div_euclid(n) + i128::from(lo.rem_euclid(n) != 0);
            let last = hi.div_euclid(n);
            if last - first + 1 > max as i128 {
                return None;
            }
            for k in first..=last {
                out.push(i64::try_from(k * n + i128::from(offset)).ok()?);
            }
        }
        TimeStep::Months(n) => {
            let start = date(lo);
            let (mut year, mut month0) = (start.year(), start.month0() / n * n);
            loop {
                let t = NaiveDate::from_ymd_opt(year, month0 + 1, 1)?
                    .and_hms_opt(0, 0, 0)?
                    .and_utc()
                    .timestamp_nanos_opt();
                let Some(t) = t else { break };
                if t > hi {
                    break;
                }
                if t >= lo {
                    out.push(t);
                    if out.len() > max {
                        return None;
                    }
                }
                month0 += n;
                if month0 >= 12 {
                    month0 -= 12;
                    year += 1;
                }
            }
        }
        TimeStep::Years(n) => {
            let mut year = date(lo).year().div_euclid(n) * n;
            loop {
                let t = NaiveDate::from_ymd_opt(year, 1, 1)?
                    .and_hms_opt(0, 0, 0)?
                    .and_utc()
                    .timestamp_nanos_opt();
                let Some(t) = t else { break };
                if t > hi {
                    break;
                }
                if t >= lo {
                    out.push(t);
                    if out.len() > max {
                        return None;
                    }
                }
                year += n;
            }
        }
    }
    Some(out)
}

fn date(ns: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(ns)
}

fn time_label(step: TimeStep, ns: i64) -> String {
    let format = match step {
        TimeStep::Years(_) => "%Y",
        TimeStep::Months(_) => "%b %Y",
        TimeStep::Fixed(n, _) if n >= DAY => "%Y-%m-%d",
        TimeStep::Fixed(n, _) if n >= HOUR => "%m-%d %H:%M",
        TimeStep::Fixed(n, _) if n >= MINUTE => "%H:%M",
        TimeStep::Fixed(..) => "%H:%M:%S",
    };
    date(ns).format(format).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts every documented property of `nice_ticks(lo, hi, max)` and returns the ticks.
    fn check(lo: f64, hi: f64, max: usize) -> Ticks {
        let t = nice_ticks(lo, hi, max);
        let n = t.values.len();
        assert!(n <= max.max(3), "{lo}..{hi}: {n} ticks > {max}: {t:?}");
        assert!(n >= 3 || max < 6, "{lo}..{hi}: only {n} ticks: {t:?}");
        assert!(matches!(t.mantissa, 1 | 2 | 5), "{t:?}");
        let step = t.step();
        for w in t.values.windows(2) {
            let d = w[1] - w[0];
            assert!((d - step).abs() <= step * 1e-9, "{lo}..{hi}: uneven {w:?} vs {step}");
        }
        for v in &t.values {
            let k = v / step;
            assert!((k - k.round()).abs() < 1e-6, "{v} is not a multiple of {step}");
        }
        if lo.is_finite() && hi.is_finite() && lo != hi {
            assert!(t.lo() <= lo.min(hi) && t.hi() >= lo.max(hi), "{lo}..{hi} not covered: {t:?}");
        }
        t
    }

    #[test]
    fn log_loss_range() {
        let t = check(0.61, 0.69, 8);
        assert_eq!(t.values, [0.6, 0.62, 0.64, 0.66, 0.68, 0.7]);
        assert_eq!(
            t.values.iter().map(|&v| t.label(v)).collect::<Vec<_>>(),
            ["0.60", "0.62", "0.64", "0.66", "0.68", "0.70"]
        );
    }

    #[test]
    fn ratings_and_integers() {
        assert_eq!(
            check(1320.0, 1710.0, 8).values,
            [1300.0, 1400.0, 1500.0, 1600.0, 1700.0, 1800.0]
        );
        let t = check(0.0, 1.0, 8);
        assert_eq!(t.values, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        let t = check(8.0, 64.0, 8);
        assert_eq!((t.mantissa, t.exponent, t.decimals()), (1, 1, 0));
        assert_eq!(t.label(60.0), "60");
    }

    #[test]
    fn negative_and_crossing_zero() {
        let t = check(-3.2, 4.1, 8);
        assert_eq!(t.values, [-4.0, -2.0, 0.0, 2.0, 4.0, 6.0]);
        assert_eq!(t.label(-0.0), "0");
        check(-0.0031, -0.0029, 8);
    }

    #[test]
    fn degenerate_and_non_finite_inputs() {
        let t = check(0.65, 0.65, 8);
        assert!(t.lo() < 0.65 && t.hi() > 0.65);
        let t = check(0.0, 0.0, 8);
        assert!(t.lo() <= -1.0 && t.hi() >= 1.0);
        assert_eq!(check(f64::NAN, f64::NAN, 8).values, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        let t = check(f64::NEG_INFINITY, 5.0, 8);
        assert!(t.lo() < 5.0 && t.hi() > 5.0);
        // Reversed bounds are swapped.
        assert_eq!(check(0.69, 0.61, 8), nice_ticks(0.61, 0.69, 8));
        for t in [nice_ticks(-1e308, 1e308, 8), nice_ticks(1e-300, 2e-300, 8)] {
            assert!(t.values.iter().all(|v| v.is_finite()), "{t:?}");
        }
    }

    #[test]
    fn properties_over_many_ranges() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..2000 {
            let scale = 10f64.powf(next() * 12.0 - 6.0);
            let lo = (next() - 0.5) * scale * 10.0;
            let hi = lo + next() * scale;
            for max in [3, 5, 6, 8, 10] {
                check(lo, hi, max);
            }
        }
    }

    fn ns(s: &str) -> i64 {
        DateTime::parse_from_rfc3339(s).unwrap().timestamp_nanos_opt().unwrap()
    }

    fn labels(lo: &str, hi: &str) -> Vec<String> {
        time_ticks(ns(lo), ns(hi), 8).into_iter().map(|(_, l)| l).collect()
    }

    #[test]
    fn time_ticks_pick_calendar_steps() {
        assert_eq!(
            labels("2015-03-10T00:00:00Z", "2024-08-01T00:00:00Z"),
            ["2016", "2018", "2020", "2022", "2024"]
        );
        assert_eq!(
            labels("2021-03-10T00:00:00Z", "2024-08-01T00:00:00Z"),
            ["Jul 2021", "Jan 2022", "Jul 2022", "Jan 2023", "Jul 2023", "Jan 2024", "Jul 2024"]
        );
        assert_eq!(
            labels("2024-01-15T00:00:00Z", "2024-11-20T00:00:00Z"),
            ["Mar 2024", "May 2024", "Jul 2024", "Sep 2024", "Nov 2024"]
        );
        assert_eq!(
            labels("2024-03-01T00:00:00Z", "2024-03-06T12:00:00Z"),
            ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04", "2024-03-05", "2024-03-06"]
        );
        // 2024-03-04 is a Monday.
        assert_eq!(
            labels("2024-03-01T00:00:00Z", "2024-04-10T00:00:00Z"),
            ["2024-03-04", "2024-03-11", "2024-03-18", "2024-03-25", "2024-04-01", "2024-04-08"]
        );
        assert_eq!(
            labels("2024-03-01T09:50:00Z", "2024-03-01T11:10:00Z"),
            ["10:00", "10:15", "10:30", "10:45", "11:00"]
        );
        assert_eq!(labels("2024-03-01T23:00:00Z", "2024-03-02T11:00:00Z")[0], "03-02 00:00");
    }

    #[test]
    fn time_ticks_lie_inside_and_increase() {
        for (lo, hi) in [
            (i64::MIN, i64::MAX),
            (0, 1),
            (-DAY * 400, DAY * 3),
            (ns("1999-12-31T23:59:59Z"), ns("2000-01-01T00:00:01Z")),
        ] {
            let ticks = time_ticks(lo, hi, 8);
            assert!(ticks.len() <= 8, "{ticks:?}");
            assert!(ticks.windows(2).all(|w| w[0].0 < w[1].0), "{ticks:?}");
            assert!(ticks.iter().all(|(t, _)| (lo..=hi).contains(t)), "{ticks:?}");
        }
        assert_eq!(time_ticks(ns("2000-01-01T00:00:00Z"), ns("2000-01-01T00:00:06Z"), 8).len(), 7);
    }
}
