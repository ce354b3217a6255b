//! The command-line grammar (clap) and dispatch.

use crate::{
    cmd_append, cmd_check_proof, cmd_checkpoint, cmd_demo, cmd_diff, cmd_explain, cmd_history,
    cmd_import, cmd_keygen, cmd_log, cmd_mirror, cmd_pair, cmd_perf, cmd_plot, cmd_prove,
    cmd_publish, cmd_replay, cmd_serve, cmd_sim, cmd_sweep, cmd_tune, cmd_upgrade, cmd_verify,
};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// ladder: an event-sourced rating ledger. It keeps the history of a ladder (joins, results,
/// midnights, queue timeouts, voids) in a hash-chained append-only log, and computes ratings by
/// replaying that history under any algorithm and constants.
#[derive(Debug, Parser)]
#[command(name = "ladder", version, propagate_version = true, max_term_width = 100)]
#[command(after_help = "Examples:
  ladder demo                                the whole tour on built-in data, in a second
  ladder import --auto-join games.jsonl      append a JSON Lines history to ./ladder.db
  ladder verify                              check the hash chain and print the head
  ladder leaderboard --algo glicko2          rank the players
  ladder log --format jsonl > backup.jsonl   export the history

Every command has --help with examples. Exit codes: 0 success, 1 refused input or failed
verification, 2 usage error. docs/outputs.md describes every output.")]
pub struct Cli {
    /// Where the ledger lives (a sled database directory). A new ledger is made only at a path
    /// that does not exist yet or in an empty directory.
    #[arg(
        long,
        global = true,
        env = "LADDER_LEDGER",
        default_value = "./ladder.db",
        value_name = "PATH"
    )]
    pub ledger: PathBuf,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Read events from an exported JSON Lines file instead of the ledger.
#[derive(Debug, Args, Clone)]
pub struct EventsArg {
    /// Read this JSON Lines history (checked as an import into an empty ledger) instead of the
    /// ledger, so an export or archive can be read without opening the ledger.
    #[arg(long, value_name = "FILE.jsonl")]
    pub events: Option<PathBuf>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a ledger from the embedded football history, verify it, and show what to try next.
    #[command(
        after_help = "Example:\n  ladder demo        (from a checkout: cargo run --release -p ladder-cli -- demo)\n\nIt needs no file and no network, and leaves nothing behind."
    )]
    Demo(cmd_demo::DemoArgs),
    /// Append events from JSON Lines or CSV files, all or nothing.
    #[command(after_help = cmd_import::EXAMPLES)]
    Import(cmd_import::ImportArgs),
    /// Append one event typed at the keyboard (join, match, tick, timeout, void).
    #[command(after_help = cmd_append::EXAMPLES)]
    Append(cmd_append::AppendArgs),
    /// Print the stored events (a table, or JSON Lines for export).
    #[command(after_help = cmd_log::EXAMPLES)]
    Log(cmd_log::LogArgs),
    /// Recompute the hash chain and print the head, or name the first bad event.
    #[command(after_help = cmd_verify::EXAMPLES)]
    Verify(cmd_verify::VerifyArgs),
    /// Prove that an event is in the log, or that the log only grew (RFC 6962 proofs).
    #[command(after_help = cmd_prove::EXAMPLES)]
    Prove(cmd_prove::ProveArgs),
    /// Print the tree head as a C2SP checkpoint note, signed with --key.
    #[command(after_help = cmd_checkpoint::EXAMPLES)]
    Checkpoint(cmd_checkpoint::CheckpointArgs),
    /// Write the log as a static C2SP tlog-tiles tree (signed checkpoint, tiles, entries).
    #[command(after_help = cmd_publish::EXAMPLES)]
    Publish(cmd_publish::PublishArgs),
    /// Copy a published log into a ledger, checked against its signed checkpoints.
    #[command(after_help = cmd_mirror::EXAMPLES)]
    Mirror(cmd_mirror::MirrorArgs),
    /// Serve the ledger on the web: authenticated appends, the log as C2SP tiles, JSON reads.
    #[command(after_help = cmd_serve::SERVE_EXAMPLES)]
    Serve(cmd_serve::ServeArgs),
    /// Add or revoke the write tokens `serve` accepts (only their hashes are stored).
    #[command(subcommand, after_help = cmd_serve::TOKEN_EXAMPLES)]
    Token(cmd_serve::TokenCommand),
    /// Rebuild a ledger of an older format in this one (the old one is kept beside it).
    #[command(after_help = cmd_upgrade::EXAMPLES)]
    Upgrade(cmd_upgrade::UpgradeArgs),
    /// Replay the history through an algorithm and print every player's standing.
    #[command(after_help = cmd_replay::REPLAY_EXAMPLES)]
    Replay(cmd_replay::ReplayArgs),
    /// Rank the players under an algorithm (TGR: by GLIXARE, provisional players apart).
    #[command(after_help = cmd_replay::LEADERBOARD_EXAMPLES)]
    Leaderboard(cmd_replay::LeaderboardArgs),
    /// Replay every combination of a grid of constants and rank them by prediction.
    #[command(after_help = cmd_sweep::EXAMPLES)]
    Sweep(cmd_sweep::SweepArgs),
    /// Search an algorithm's constants on the first part of the history; score them on the rest.
    #[command(after_help = cmd_tune::EXAMPLES)]
    Tune(cmd_tune::TuneArgs),
    /// Compare two replays (two settings, two algorithms, or two saved snapshots).
    #[command(after_help = cmd_diff::EXAMPLES)]
    Diff(cmd_diff::DiffArgs),
    /// Audit one event: its place in the chain and every quantity behind each player's change.
    #[command(after_help = cmd_explain::EXAMPLES)]
    Explain(cmd_explain::ExplainArgs),
    /// One player's rating, RD and rank after each of their events.
    #[command(after_help = cmd_history::EXAMPLES)]
    History(cmd_history::HistoryArgs),
    /// TGR's matchmaking queue: whom a player would be paired with, and each chance.
    #[command(after_help = cmd_pair::EXAMPLES)]
    Pair(cmd_pair::PairArgs),
    /// Print game lines as the Arimaa text's `rep` script does.
    #[command(after_help = cmd_perf::REP_EXAMPLES)]
    Rep(cmd_perf::RepArgs),
    /// Performance rating of game lines read from standard input (the Arimaa text's p1-p8).
    #[command(after_help = cmd_perf::PERF_EXAMPLES)]
    Perf(cmd_perf::PerfArgs),
    /// Draw players' ratings over time with their RD band (SVG).
    #[command(after_help = cmd_plot::EXAMPLES)]
    Plot(cmd_plot::PlotArgs),
    /// Generate a deterministic synthetic ladder (JSON Lines, or into the ledger).
    #[command(after_help = cmd_sim::EXAMPLES)]
    Sim(cmd_sim::SimArgs),
    /// Write an Ed25519 key for signing checkpoints, and print its verifier key.
    #[command(after_help = cmd_keygen::EXAMPLES)]
    Keygen(cmd_keygen::KeygenArgs),
    /// Verify an inclusion or consistency proof offline, optionally against a signed checkpoint.
    #[command(after_help = cmd_check_proof::EXAMPLES)]
    CheckProof(cmd_check_proof::CheckProofArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  ladder completions bash > ~/.local/share/bash-completion/completions/ladder\n  ladder completions zsh > \"${fpath[1]}/_ladder\"\n  ladder completions fish > ~/.config/fish/completions/ladder.fish"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Runs the parsed command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Demo(args) => cmd_demo::run(args),
        Command::Import(args) => cmd_import::run(&cli.ledger, args),
        Command::Append(args) => cmd_append::run(&cli.ledger, args),
        Command::Log(args) => cmd_log::run(&cli.ledger, args),
        Command::Verify(args) => cmd_verify::run(&cli.ledger, args),
        Command::Upgrade(args) => cmd_upgrade::run(&cli.ledger, args),
        Command::Prove(args) => cmd_prove::run(&cli.ledger, args),
        Command::Checkpoint(args) => cmd_checkpoint::run(&cli.ledger, args),
        Command::Publish(args) => cmd_publish::run(&cli.ledger, args),
        Command::Mirror(args) => cmd_mirror::run(&cli.ledger, args),
        Command::Serve(args) => cmd_serve::run_serve(&cli.ledger, args),
        Command::Token(cmd) => cmd_serve::run_token(&cli.ledger, cmd),
        Command::Replay(args) => cmd_replay::run_replay(&cli.ledger, args),
        Command::Leaderboard(args) => cmd_replay::run_leaderboard(&cli.ledger, args),
        Command::Pair(args) => cmd_pair::run(&cli.ledger, args),
        Command::History(args) => cmd_history::run(&cli.ledger, args),
        Command::Diff(args) => cmd_diff::run(&cli.ledger, args),
        Command::Sweep(args) => cmd_sweep::run(&cli.ledger, args),
        Command::Tune(args) => cmd_tune::run(&cli.ledger, args),
        Command::Sim(args) => cmd_sim::run(&cli.ledger, args),
        Command::Plot(args) => cmd_plot::run(&cli.ledger, args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            // Generated into memory: clap_complete panics on a failed write.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "ladder", &mut script);
            std::io::Write::write_all(&mut crate::out::stdout(), &script)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain(args) => cmd_explain::run(&cli.ledger, args),
        Command::Rep(args) => cmd_perf::run_rep_cmd(args),
        Command::Perf(args) => cmd_perf::run_perf_cmd(args),
        Command::Keygen(args) => cmd_keygen::run(args),
        Command::CheckProof(args) => cmd_check_proof::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;
    use ladder_replay::registry::ALGORITHMS;

    /// Every subcommand with an `--algo` argument.
    fn algo_args() -> Vec<(String, clap::Arg)> {
        let cli = Cli::command();
        let mut found = Vec::new();
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                if arg.get_long() == Some("algo") {
                    found.push((sub.get_name().to_string(), arg.clone()));
                }
            }
        }
        found
    }

    #[test]
    fn algo_values_are_exactly_the_registered_algorithms() {
        let found = algo_args();
        // replay, leaderboard, sweep, tune, explain, history, plot take `--algo` at least.
        for name in ["replay", "leaderboard", "sweep", "tune", "explain", "history", "plot"] {
            assert!(found.iter().any(|(n, _)| n == name), "`ladder {name}` has no --algo");
        }
        for (name, arg) in found {
            let values: Vec<String> =
                arg.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
            assert_eq!(values, ALGORITHMS, "`ladder {name} --algo` lists other algorithms");
        }
    }

    #[test]
    fn an_unknown_algo_is_a_usage_error_listing_every_registered_algorithm() {
        for (name, _) in algo_args() {
            let err = Cli::command()
                .try_get_matches_from(["ladder", name.as_str(), "--algo", "glicko3"])
                .expect_err("glicko3 is not an algorithm");
            assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue, "ladder {name}");
            let text = err.to_string();
            for algo in ALGORITHMS {
                assert!(text.contains(algo), "ladder {name}: {algo} missing from {text}");
            }
        }
    }

    #[test]
    fn no_command_module_imports_another() {
        // Shared arguments and helpers live in `algo`, `account`, `signing` and the like; a
        // `cmd_*` module is one command and uses only those.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("a directory entry").path();
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if !file.starts_with("cmd_") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            for (i, line) in text.lines().enumerate() {
                assert!(!line.contains("cmd_"), "{file}:{}: {line}", i + 1);
            }
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} command modules found");
    }

    #[test]
    fn help_examples_fit_the_help_width_so_none_is_wrapped() {
        // Help is wrapped at 100 columns; a wrapped example cannot be copied and pasted.
        let cli = Cli::command();
        let mut texts = vec![("ladder".to_string(), cli.get_after_help().map(|h| h.to_string()))];
        for sub in cli.get_subcommands() {
            texts.push((sub.get_name().to_string(), sub.get_after_help().map(|h| h.to_string())));
        }
        for (name, text) in texts {
            let text = text.unwrap_or_else(|| panic!("`ladder {name} --help` has no examples"));
            for line in text.lines() {
                assert!(line.chars().count() <= 100, "ladder {name}: {line:?} is wrapped");
            }
        }
    }
}
