//! Constants: each algorithm declares a table of [`ParamSpec`]s; users override them with
//! `--set KEY=VALUE`; [`Config::new`] validates and completes them (docs/spec.md).

use ladder_events::NANOS_PER_SECOND;
use std::fmt;

/// What values a constant takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A finite number in a range; each end is inclusive or not, `f64::INFINITY` for none.
    Number {
        /// Lower end.
        min: f64,
        /// Whether `min` itself is allowed.
        min_inclusive: bool,
        /// Upper end.
        max: f64,
        /// Whether `max` itself is allowed.
        max_inclusive: bool,
    },
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
    /// A rating period: `game`, or a duration like `1d`.
    Period,
    /// A duration: `N` followed by `s`, `m`, `h`, `d` or `w`, N a positive integer.
    Duration,
}

impl ParamKind {
    /// Numbers ≥ `min`.
    pub const fn at_least(min: f64) -> ParamKind {
        ParamKind::Number { min, min_inclusive: true, max: f64::INFINITY, max_inclusive: false }
    }
    /// Numbers > `min`.
    pub const fn above(min: f64) -> ParamKind {
        ParamKind::Number { min, min_inclusive: false, max: f64::INFINITY, max_inclusive: false }
    }
    /// Numbers in `[min, max]`.
    pub const fn between(min: f64, max: f64) -> ParamKind {
        ParamKind::Number { min, min_inclusive: true, max, max_inclusive: true }
    }
    /// Any finite number.
    pub const fn any() -> ParamKind {
        ParamKind::Number {
            min: f64::NEG_INFINITY,
            min_inclusive: false,
            max: f64::INFINITY,
            max_inclusive: false,
        }
    }

    fn describe(&self) -> String {
        match *self {
            ParamKind::Number { min, min_inclusive, max, max_inclusive } => {
                let lo = if min == f64::NEG_INFINITY {
                    None
                } else {
                    Some(format!("{} {min}", if min_inclusive { ">=" } else { ">" }))
                };
                let hi = if max == f64::INFINITY {
                    None
                } else {
                    Some(format!("{} {max}", if max_inclusive { "<=" } else { "<" }))
                };
                match (lo, hi) {
                    (None, None) => "any finite number".into(),
                    (Some(l), None) => format!("a number {l}"),
                    (None, Some(h)) => format!("a number {h}"),
                    (Some(l), Some(h)) => format!("a number {l} and {h}"),
                }
            }
            ParamKind::Choice(words) => format!("one of {}", words.join(", ")),
            ParamKind::Period => "`game` or a duration like 1d, 12h, 1w".into(),
            ParamKind::Duration => "a duration like 1d, 12h, 30m, 1w".into(),
        }
    }
}

/// One constant of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The key users write (`sc`, `tau`, ...).
    pub key: &'static str,
    /// What values it takes.
    pub kind: ParamKind,
    /// The default, written as a user would write it.
    pub default: &'static str,
    /// One line for `--help` and docs: what it is and which seed defines it.
    pub doc: &'static str,
    /// A number below which the value is accepted with a warning, and the warning.
    pub warn_below: Option<(f64, &'static str)>,
}

/// A validated constant value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A number.
    Number(f64),
    /// A word, period or duration as written.
    Text(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Number(x) => write!(f, "{x:?}"),
            ParamValue::Text(s) => f.write_str(s),
        }
    }
}

/// A rating period (`period=` in glicko and glicko2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// Each match is its own one-period rating (lichess's way).
    Game,
    /// Intervals of this many nanoseconds from the Unix epoch.
    Every(i64),
}

/// Why a configuration was refused. Every message lists what is valid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// `KEY=VALUE` without `=`.
    #[error("`{0}` is not KEY=VALUE")]
    Syntax(String),
    /// A key the algorithm does not have.
    #[error("{algorithm} has no constant `{key}`; valid keys:\n{valid}")]
    UnknownKey {
        /// The algorithm.
        algorithm: &'static str,
        /// The key given.
        key: String,
        /// Every key with its range and default, one per line.
        valid: String,
    },
    /// A value outside its range or of the wrong kind.
    #[error("{algorithm}: `{key}={value}` is refused: `{key}` must be {expected}")]
    BadValue {
        /// The algorithm.
        algorithm: &'static str,
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// Values that are fine alone but not together (e.g. `initial_rd` above `rd_max`).
    #[error("{algorithm}: {message}")]
    Inconsistent {
        /// The algorithm.
        algorithm: &'static str,
        /// What clashes.
        message: String,
    },
}

/// Parses a duration `N` + `s|m|h|d|w` (N a positive integer) into nanoseconds.
pub fn parse_duration(text: &str) -> Option<i64> {
    let unit = text.chars().last()?;
    let seconds: i64 = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        'w' => 7 * 86_400,
        _ => return None,
    };
    let digits = &text[..text.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = digits.parse().ok()?;
    if n == 0 {
        return None;
    }
    n.checked_mul(seconds)?.checked_mul(NANOS_PER_SECOND)
}

/// A complete, validated set of constants for one algorithm, in the order of its spec table.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The algorithm's name (docs/spec.md).
    pub algorithm: &'static str,
    /// Every constant, defaults filled in, in spec order.
    pub values: Vec<(&'static str, ParamValue)>,
    /// Accepted values that deserve a warning (e.g. TGR's `p` below 5/6).
    pub warnings: Vec<String>,
}

fn check_value(
    algorithm: &'static str,
    spec: &ParamSpec,
    raw: &str,
) -> Result<ParamValue, ConfigError> {
    let bad = || ConfigError::BadValue {
        algorithm,
        key: spec.key,
        value: raw.to_string(),
        expected: spec.kind.describe(),
    };
    match spec.kind {
        ParamKind::Number { min, min_inclusive, max, max_inclusive } => {
            let x: f64 = raw.trim().parse().map_err(|_| bad())?;
            let lo_ok = if min_inclusive { x >= min } else { x > min };
            let hi_ok = if max_inclusive { x <= max } else { x < max };
            if !x.is_finite() || !lo_ok || !hi_ok {
                return Err(bad());
            }
            Ok(ParamValue::Number(x))
        }
        ParamKind::Choice(words) => {
            if words.contains(&raw) {
                Ok(ParamValue::Text(raw.to_string()))
            } else {
                Err(bad())
            }
        }
        ParamKind::Period => {
            if raw == "game" || parse_duration(raw).is_some() {
                Ok(ParamValue::Text(raw.to_string()))
            } else {
                Err(bad())
            }
        }
        ParamKind::Duration => {
            if parse_duration(raw).is_some() {
                Ok(ParamValue::Text(raw.to_string()))
            } else {
                Err(bad())
            }
        }
    }
}

/// Lists every key of a spec table with its range and default, one per line.
pub fn describe_specs(specs: &[ParamSpec]) -> String {
    specs
        .iter()
        .map(|s| format!("  {} = {} (default {}): {}", s.key, s.kind.describe(), s.default, s.doc))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Config {
    /// Builds the configuration of `algorithm` from its spec table and the user's `KEY=VALUE`
    /// overrides (later ones win). Refuses unknown keys and out-of-range values.
    pub fn new(
        algorithm: &'static str,
        specs: &[ParamSpec],
        sets: &[(String, String)],
    ) -> Result<Config, ConfigError> {
        for (key, _) in sets {
            if !specs.iter().any(|s| s.key == key) {
                return Err(ConfigError::UnknownKey {
                    algorithm,
                    key: key.clone(),
                    valid: describe_specs(specs),
                });
            }
        }
        let mut values = Vec::with_capacity(specs.len());
        let mut warnings = Vec::new();
        for spec in specs {
            let raw =
                sets.iter().rev().find(|(k, _)| k == spec.key).map_or(spec.default, |(_, v)| v);
            let value = check_value(algorithm, spec, raw)?;
            if let (ParamValue::Number(x), Some((threshold, why))) = (&value, spec.warn_below) {
                if *x < threshold {
                    warnings
                        .push(format!("{algorithm}: {}={x} is below {threshold}: {why}", spec.key));
                }
            }
            values.push((spec.key, value));
        }
        Ok(Config { algorithm, values, warnings })
    }

    /// Checks that a configuration built elsewhere (a checkpoint, another crate) belongs to
    /// `algorithm` and holds every key of `specs` with a value of the right kind and range: what
    /// each projector's constructor calls before trusting it.
    pub fn check(&self, algorithm: &'static str, specs: &[ParamSpec]) -> Result<(), ConfigError> {
        let wrong = |message: String| Err(ConfigError::Inconsistent { algorithm, message });
        if self.algorithm != algorithm {
            return wrong(format!("the configuration is for `{}`", self.algorithm));
        }
        for spec in specs {
            let value = self.values.iter().find(|(k, _)| *k == spec.key).map(|(_, v)| v);
            let fits = value.is_some_and(|v| check_value(algorithm, spec, &v.to_string()).is_ok());
            if !fits {
                return wrong(format!("the configuration lacks a valid `{}`", spec.key));
            }
        }
        Ok(())
    }

    /// The constants an output echoes (docs/outputs.md): every one, except the constants of
    /// home advantage, margin, reversion and TTT's debut prior while they hold the value that
    /// turns them off (`home=0`, `margin=none`, `revert=0`, and `revert_after` with `revert=0`,
    /// `revert_to=mu`, `debut=prior` with `debut_offset` and `debut_window`, the window echoed
    /// again with `revert_to=field`), so the output and digest of a
    /// replay that does not use them are those from before they existed.
    pub fn echoed(&self) -> Vec<(&'static str, ParamValue)> {
        let reverts =
            self.values.iter().any(|(k, v)| *k == "revert" && *v != ParamValue::Number(0.0));
        let debuts = self
            .values
            .iter()
            .any(|(k, v)| *k == "debut" && *v != ParamValue::Text("prior".to_string()));
        // TTT's revert_to=field reads the field of debut_window too (while revert is on).
        let fields = reverts
            && self
                .values
                .iter()
                .any(|(k, v)| *k == "revert_to" && *v == ParamValue::Text("field".to_string()));
        self.values
            .iter()
            .filter(|(k, v)| match (*k, v) {
                ("home" | "revert", ParamValue::Number(x)) => *x != 0.0,
                ("margin", ParamValue::Text(t)) => t != "none",
                ("revert_after", _) => reverts,
                ("revert_to", ParamValue::Text(t)) => reverts && t != "mu",
                ("debut", _) | ("debut_offset", _) => debuts,
                ("debut_window", _) => debuts || fields,
                _ => true,
            })
            .cloned()
            .collect()
    }

    /// Splits `K=V[,K=V...]` into pairs.
    pub fn parse_assignments(text: &str) -> Result<Vec<(String, String)>, ConfigError> {
        text.split(',')
            .filter(|part| !part.trim().is_empty())
            .map(|part| match part.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => {
                    Ok((k.trim().to_string(), v.trim().to_string()))
                }
                _ => Err(ConfigError::Syntax(part.to_string())),
            })
            .collect()
    }

    fn value(&self, key: &str) -> &ParamValue {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("{} has no constant {key}", self.algorithm))
    }

    /// The number `key`. Panics if the algorithm's spec has no such numeric key (a programming
    /// error).
    pub fn number(&self, key: &str) -> f64 {
        match self.value(key) {
            ParamValue::Number(x) => *x,
            ParamValue::Text(t) => panic!("{key} is the text {t}, not a number"),
        }
    }

    /// The text of `key` (choices, periods, durations).
    pub fn text(&self, key: &str) -> &str {
        match self.value(key) {
            ParamValue::Text(t) => t,
            ParamValue::Number(x) => panic!("{key} is the number {x}, not a text"),
        }
    }

    /// The period `key`.
    pub fn period(&self, key: &str) -> Period {
        match self.text(key) {
            "game" => Period::Game,
            d => Period::Every(parse_duration(d).expect("validated")),
        }
    }

    /// The duration `key`, in nanoseconds.
    pub fn duration(&self, key: &str) -> i64 {
        parse_duration(self.text(key)).expect("validated")
    }
}

impl fmt::Display for Config {
    /// `tgr sc=20.0 p=0.9 ...`: every constant echoed ([`Config::echoed`]), as in table output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.algorithm)?;
        for (k, v) in &self.echoed() {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec {
            key: "sc",
            kind: ParamKind::at_least(0.0),
            default: "20",
            doc: "RD growth",
            warn_below: None,
        },
        ParamSpec {
            key: "p",
            kind: ParamKind::between(0.0, 1.0),
            default: "0.9",
            doc: "merit",
            warn_below: Some((5.0 / 6.0, "results can reverse a change's sign")),
        },
        ParamSpec {
            key: "order",
            kind: ParamKind::Choice(&["as-written", "simultaneous"]),
            default: "as-written",
            doc: "",
            warn_below: None,
        },
        ParamSpec {
            key: "period",
            kind: ParamKind::Period,
            default: "1d",
            doc: "",
            warn_below: None,
        },
    ];

    fn sets(s: &str) -> Vec<(String, String)> {
        Config::parse_assignments(s).unwrap()
    }

    #[test]
    fn defaults_overrides_and_warnings() {
        let c = Config::new("tgr", SPECS, &sets("p=0.35,sc=30,sc=25")).unwrap();
        assert_eq!(c.number("sc"), 25.0);
        assert_eq!(c.number("p"), 0.35);
        assert_eq!(c.text("order"), "as-written");
        assert_eq!(c.period("period"), Period::Every(86_400 * NANOS_PER_SECOND));
        assert_eq!(c.warnings.len(), 1);
        assert_eq!(c.to_string(), "tgr sc=25.0 p=0.35 order=as-written period=1d");
    }

    #[test]
    fn refusals_list_what_is_valid() {
        let e = Config::new("tgr", SPECS, &sets("tau=1")).unwrap_err();
        assert!(e.to_string().contains("sc = a number >= 0 (default 20)"), "{e}");
        for bad in
            ["p=1.5", "p=nan", "sc=-1", "order=random", "period=0d", "period=1.5d", "period=3x"]
        {
            assert!(
                matches!(Config::new("tgr", SPECS, &sets(bad)), Err(ConfigError::BadValue { .. })),
                "{bad}"
            );
        }
        assert!(Config::parse_assignments("sc").is_err());
        assert_eq!(
            Config::new("tgr", SPECS, &sets("period=game")).unwrap().period("period"),
            Period::Game
        );
    }
}
