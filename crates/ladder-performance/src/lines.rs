//! The Arimaa text's game lines: `+1500 abc 3` is a win against abc, rated 1500, three days ago.

use std::fmt;

/// The opponent name of a game line without one (the Arimaa text: "If the username is not given it
/// defaults to 'unknown'"), so all unnamed games count as one opponent.
pub const UNNAMED: &str = "unknown";

/// One parsed game line.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// 1 (`+`), 0.5 (`=`) or 0 (`-`).
    pub result: f64,
    /// The opponent's rating (finite).
    pub rating: f64,
    /// The opponent's name; `None` when the line has none (the seed's 'unknown').
    pub opponent: Option<String>,
    /// Days since the game was played (seed: "If not given it defaults to 0"); finite and ≥ 0.
    /// None of p1–p4, p7, p8 uses it (documented in `docs/algorithms/performance.md`).
    pub days_ago: f64,
}

impl Game {
    /// The opponent's name with the seed's default.
    pub fn opponent_name(&self) -> &str {
        self.opponent.as_deref().unwrap_or(UNNAMED)
    }
}

/// What is wrong with a game line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineProblem {
    /// The first character is not `+`, `-` or `=`.
    BadResult,
    /// The rating after the sign is missing, not a number, or not finite.
    BadRating,
    /// The days-ago field is not a finite number ≥ 0.
    BadDays,
    /// More than three fields.
    TooManyFields,
}

impl fmt::Display for LineProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LineProblem::BadResult => "a game starts with + (win), = (draw) or - (loss)",
            LineProblem::BadRating => "the result sign must be followed by the opponent's rating",
            LineProblem::BadDays => "days ago must be a number >= 0",
            LineProblem::TooManyFields => {
                "a game line is `RESULT+RATING [NAME] [DAYS]`, at most three fields"
            }
        })
    }
}

/// A game line that could not be read, naming the line (1-based) and what it says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: `{text}`: {problem}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// The line as written (truncated to 80 characters).
    pub text: String,
    /// What is wrong.
    pub problem: LineProblem,
}

/// Parses one line (`+1500`, `-1750 xyz`, `=1610 abc 12`): whitespace-separated fields, the
/// first a result sign glued to the opponent's rating, then an optional name, then optional days
/// ago. Never panics.
pub fn parse_line(line: &str) -> Result<Game, LineProblem> {
    let mut fields = line.split_whitespace();
    let first = fields.next().unwrap_or("");
    let mut chars = first.chars();
    let result = match chars.next() {
        Some('+') => 1.0,
        Some('=') => 0.5,
        Some('-') => 0.0,
        _ => return Err(LineProblem::BadResult),
    };
    let rating: f64 = chars.as_str().parse().map_err(|_| LineProblem::BadRating)?;
    if !rating.is_finite() {
        return Err(LineProblem::BadRating);
    }
    let opponent = fields.next().map(str::to_string);
    let days_ago = match fields.next() {
        None => 0.0,
        Some(d) => match d.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => x,
            _ => return Err(LineProblem::BadDays),
        },
    };
    if fields.next().is_some() {
        return Err(LineProblem::TooManyFields);
    }
    Ok(Game { result, rating, opponent, days_ago })
}

/// Parses a whole input, newest game first as the seed orders it. Blank lines are skipped.
pub fn parse_games(text: &str) -> Result<Vec<Game>, ParseError> {
    let mut games = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line) {
            Ok(g) => games.push(g),
            Err(problem) => {
                return Err(ParseError {
                    line: i + 1,
                    text: line.chars().take(80).collect(),
                    problem,
                })
            }
        }
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_example_lines() {
        let g = parse_games("+1500 abc\n-1750 xyz\n=1610 abc\n").unwrap();
        assert_eq!(g.len(), 3);
        assert_eq!((g[0].result, g[0].rating, g[0].opponent_name()), (1.0, 1500.0, "abc"));
        assert_eq!((g[1].result, g[1].rating, g[1].opponent_name()), (0.0, 1750.0, "xyz"));
        assert_eq!((g[2].result, g[2].rating, g[2].opponent_name()), (0.5, 1610.0, "abc"));
        let g = parse_line("  +1500 abc 3  ").unwrap();
        assert_eq!(g.days_ago, 3.0);
        let g = parse_line("-0").unwrap();
        assert_eq!((g.result, g.rating, g.opponent.clone(), g.days_ago), (0.0, 0.0, None, 0.0));
        assert_eq!(g.opponent_name(), "unknown");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_games("+1500\n\n*1500 abc\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(e.problem, LineProblem::BadResult);
        assert_eq!(
            e.to_string(),
            "line 3: `*1500 abc`: a game starts with + (win), = (draw) or - (loss)"
        );
        for (line, p) in [
            ("+", LineProblem::BadRating),
            ("+abc", LineProblem::BadRating),
            ("+inf", LineProblem::BadRating),
            ("+NaN x", LineProblem::BadRating),
            ("+1500 abc -3", LineProblem::BadDays),
            ("+1500 abc x", LineProblem::BadDays),
            ("+1500 abc 3 4", LineProblem::TooManyFields),
            ("1500", LineProblem::BadResult),
        ] {
            assert_eq!(parse_line(line), Err(p), "{line}");
        }
    }
}
