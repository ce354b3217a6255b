//! What one fuzz input means for `ladder perf` (`ladder_performance::run_perf`: the game-line
//! parser, then the solver and the printer).
//!
//! Shared, through `#[path]`, by the libFuzzer target `fuzz/fuzz_targets/perf_lines.rs` and by
//! the corpus replay test of `ladder-performance`, so CI replays exactly what the fuzzer ran.

use ladder_performance::{run_perf, ToolError, Variant};

/// Runs `ladder perf` on `data`: the first byte chooses the variant (its value modulo 6) and
/// `--extra` (bit 7); the rest is standard input, which the command reads as text.
///
/// Must not panic. Output starts with a whole number; a refused line is named by its number.
pub fn perf_lines(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let variant = Variant::ALL[usize::from(mode & 0x7f) % Variant::ALL.len()];
    let extra = mode & 0x80 != 0;
    match run_perf(variant, text, extra) {
        Ok(out) => {
            let first = out.lines().next().expect("a rating line");
            assert!(first.parse::<i64>().is_ok(), "{first:?}");
            assert_eq!(out.lines().count(), if extra { 3 } else { 1 }, "{out}");
        }
        Err(ToolError::Parse(e)) => {
            assert!(e.line >= 1 && e.line <= text.lines().count(), "line {}", e.line);
            assert!(e.to_string().starts_with(&format!("line {}: ", e.line)), "{e}");
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
