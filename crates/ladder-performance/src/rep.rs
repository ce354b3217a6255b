//! The Arimaa text's `rep` script: builds game lines from `STRING COUNT` argument pairs.

/// The most lines one `rep` may print (a guard against `rep '+1000' 99999999999`).
pub const MAX_LINES: u64 = 10_000_000;

/// Why `rep` refused its arguments. Messages name the argument (1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RepError {
    /// A string without the count after it.
    #[error("argument {position} (`{string}`) needs a repetition count after it")]
    MissingCount {
        /// 1-based position of the string.
        position: usize,
        /// The string.
        string: String,
    },
    /// A count that is not a whole number ≥ 0.
    #[error("argument {position}: `{count}` is not a repetition count (a whole number >= 0)")]
    BadCount {
        /// 1-based position of the count.
        position: usize,
        /// What was given.
        count: String,
    },
    /// More than [`MAX_LINES`] lines in all.
    #[error("rep would print more than {MAX_LINES} lines")]
    TooLarge,
}

/// The Arimaa text's `rep`: "reads the command line arguments to print the given strings a
/// specified number of times", as `STRING COUNT` pairs:
/// - "It uses ; to seperate games": each `;`-separated piece is one line, in order (whitespace
///   around a piece is trimmed and empty pieces are skipped, so `'+1500 abc; -1500 xyz'` prints
///   `-1500 xyz` without the space);
/// - "A * in the string is replaced by the repition number": every `*`, numbered from 1;
/// - "If a '-' appears as one of the arguments, it will copy the standard input to standard
///   output before continuing with the processing of the rest of the arguments": an argument that
///   is exactly `-` where a string is expected copies `stdin` (a final newline is added if it lacks
///   one). Any other argument, `-2000 xyz` included, is a string.
pub fn rep(args: &[String], stdin: &str) -> Result<String, RepError> {
    let mut out = String::new();
    let mut lines = 0u64;
    let mut i = 0;
    while i < args.len() {
        let string = &args[i];
        if string == "-" {
            out.push_str(stdin);
            if !stdin.is_empty() && !stdin.ends_with('\n') {
                out.push('\n');
            }
            i += 1;
            continue;
        }
        let Some(count_text) = args.get(i + 1) else {
            return Err(RepError::MissingCount { position: i + 1, string: string.clone() });
        };
        let count: u64 = count_text
            .trim()
            .parse()
            .map_err(|_| RepError::BadCount { position: i + 2, count: count_text.clone() })?;
        let pieces: Vec<&str> =
            string.split(';').map(str::trim).filter(|p| !p.is_empty()).collect();
        lines = lines.saturating_add(count.saturating_mul(pieces.len() as u64));
        if lines > MAX_LINES {
            return Err(RepError::TooLarge);
        }
        for n in 1..=count {
            let number = n.to_string();
            for piece in &pieces {
                out.push_str(&piece.replace('*', &number));
                out.push('\n');
            }
        }
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str], stdin: &str) -> Result<String, RepError> {
        rep(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>(), stdin)
    }

    #[test]
    fn the_seeds_examples() {
        assert_eq!(
            run(&["+1500 abc", "2", "-2000 xyz", "1"], "").unwrap(),
            "+1500 abc\n+1500 abc\n-2000 xyz\n"
        );
        assert_eq!(
            run(&["+1500 abc; -1500 xyz", "2"], "").unwrap(),
            "+1500 abc\n-1500 xyz\n+1500 abc\n-1500 xyz\n"
        );
        assert_eq!(run(&["+1000 a*", "3"], "").unwrap(), "+1000 a1\n+1000 a2\n+1000 a3\n");
        assert_eq!(
            run(&["-2500 playerX", "1", "-", "+1 *b*", "2"], "=5 x\n-7").unwrap(),
            "-2500 playerX\n=5 x\n-7\n+1 1b1\n+1 2b2\n"
        );
        assert_eq!(run(&["+1000", "0"], "").unwrap(), "");
        assert_eq!(run(&[], "ignored").unwrap(), "");
    }

    #[test]
    fn refusals() {
        assert!(matches!(run(&["+1000"], ""), Err(RepError::MissingCount { position: 1, .. })));
        assert!(matches!(run(&["+1000", "x"], ""), Err(RepError::BadCount { position: 2, .. })));
        assert!(matches!(run(&["+1000", "-1"], ""), Err(RepError::BadCount { .. })));
        assert!(matches!(run(&["+1000", "-"], ""), Err(RepError::BadCount { .. })));
        assert_eq!(run(&["+1; +2", "9999999999"], ""), Err(RepError::TooLarge));
    }
}
