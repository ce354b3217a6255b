//! `ladder rep` and `ladder perf`: the tools of the Arimaa "Performance based rating calculations"
//! README ("the Arimaa text").

use anyhow::Context;
use clap::Args;
use ladder_performance::{parse_games, perf, run_perf, run_rep, Variant};
use std::io::{Read, Write};
use std::process::ExitCode;

pub const REP_EXAMPLES: &str = "Examples (the Arimaa text's `rep`):
  ladder rep '+1000' 20                   twenty wins against a 1000 player
  ladder rep '+1500 x' '-1500 y' 3        three copies of a win and a loss
  ladder rep '+2400; -2600'               `;` separates games on one argument
  ladder rep - 2 < games.txt              `-` copies standard input
  ladder rep '+1000' 20 | ladder perf --variant p4     prints 1746, as in the seed's table";

pub const PERF_EXAMPLES: &str = "Examples:
  ladder rep '+1000' 20 | ladder perf --variant p4     1746
  printf '+1500 abc 3\\n-1620 def\\n' | ladder perf --variant p3 --extra
  ladder rep '+1000' 20 | ladder perf --variant p4 --format json   unrounded, with +/- and ra

Game lines, newest first: a result (`+` win, `-` loss, `=` draw), the opponent's rating, then an
optional name and an optional number of days ago. Unnamed games all count as one opponent.
The first line printed is the performance rating rounded to the nearest whole number (halves up);
--extra adds the +/- stability values and the `ra` rating accuracy. Where no finite rating
exists (p1 with only wins), it says so and exits 1.";

/// Arguments of `rep`.
#[derive(Debug, Args)]
pub struct RepArgs {
    /// Game lines and repetition counts, as the Arimaa text's `rep` takes them (`-` reads standard
    /// input).
    #[arg(allow_hyphen_values = true, trailing_var_arg = true, value_name = "ARG")]
    pub args: Vec<String>,
}

/// Arguments of `perf`.
#[derive(Debug, Args)]
pub struct PerfArgs {
    /// The variant: p1, p2, p3, p4, p7 or p8 (docs/algorithms/performance.md).
    #[arg(long)]
    pub variant: Variant,
    /// Also print the +/- stability values and the `ra` rating accuracy.
    #[arg(long)]
    pub extra: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: PerfFormat,
}

/// Output formats of `perf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PerfFormat {
    /// The Arimaa text's lines: the rounded rating (with --extra, `+/-` and `ra` lines).
    Text,
    /// `{"variant", "games", "rating", "rounded", "plus", "minus", "ra"}`, unrounded; when no
    /// finite rating exists, `{"variant", "games", "rating": null, "error"}` and exit 1.
    Json,
}

fn stdin_text() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).context("reading standard input")?;
    Ok(text)
}

pub fn run_rep_cmd(args: RepArgs) -> anyhow::Result<ExitCode> {
    let stdin = if args.args.iter().any(|a| a == "-") { stdin_text()? } else { String::new() };
    let out = run_rep(&args.args, &stdin)?;
    crate::out::stdout().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

pub fn run_perf_cmd(args: PerfArgs) -> anyhow::Result<ExitCode> {
    if args.format == PerfFormat::Json {
        let games = parse_games(&stdin_text()?)?;
        let variant = args.variant.name();
        let (v, code) = match perf(args.variant, &games) {
            Ok(r) => (
                serde_json::json!({
                    "variant": variant, "games": games.len(), "rating": r.rating,
                    "rounded": r.rounded(), "plus": r.plus, "minus": r.minus, "ra": r.ra,
                }),
                ExitCode::SUCCESS,
            ),
            Err(e) => (
                serde_json::json!({"variant": variant, "games": games.len(), "rating": null, "error": e.to_string()}),
                ExitCode::from(1),
            ),
        };
        writeln!(crate::out::stdout(), "{v}")?;
        return Ok(code);
    }
    let out = run_perf(args.variant, &stdin_text()?, args.extra)?;
    crate::out::stdout().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
