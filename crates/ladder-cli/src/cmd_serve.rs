//! `ladder serve` and `ladder token`: arguments only; the service is ladder-serve.

use crate::signing::{load_signer, origin_or_default};
use crate::source::open_for_write;
use anyhow::Context;
use clap::{Args, Subcommand};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub const SERVE_EXAMPLES: &str = "Examples:
  ladder keygen club.key --name chess.example.org/club
  ladder token add club-server                  prints a write token once
  ladder serve --origin chess.example.org/club --key club.key
  ladder serve --listen 0.0.0.0:8080 --checkpoint-interval 5s

It runs until SIGINT or SIGTERM, then answers the requests in flight, signs the last checkpoint
and writes it to PATH.checkpoint beside the ledger. See docs/serve.md.";

pub const TOKEN_EXAMPLES: &str = "Examples:
  ladder token add club-server      the token is printed once; only its hash is kept
  ladder token revoke club-server   a running serve stops accepting it within a second";

/// Arguments of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on (`0.0.0.0:PORT` to publish; port 0 picks a free one).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The log's name, the checkpoint's first line (default: `ladder/` and the ledger's name).
    #[arg(long, value_name = "NAME")]
    pub origin: Option<String>,
    /// Sign checkpoints with this key (written by `ladder keygen`); without it they are unsigned.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// The write tokens (default: PATH.tokens beside the ledger).
    #[arg(long, value_name = "FILE")]
    pub tokens: Option<PathBuf>,
    /// Re-sign the checkpoint this often while the log grows (N then ms, s, m or h).
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    pub checkpoint_interval: String,
    /// The largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = ladder_serve::Limits::default().body_bytes)]
    pub max_body: usize,
    /// Commit a group of N events or more while the next group is staged on top of it (off by
    /// default: it helps large batches only on a quiet machine; see docs/serve.md).
    #[arg(long, value_name = "N")]
    pub pipeline_events: Option<std::num::NonZeroUsize>,
}

impl ServeArgs {
    /// The service's limits these arguments set (the rest at their defaults).
    fn limits(&self) -> ladder_serve::Limits {
        let defaults = ladder_serve::Limits::default();
        ladder_serve::Limits {
            body_bytes: self.max_body,
            pipeline_events: self.pipeline_events.map_or(defaults.pipeline_events, |n| n.get()),
            ..defaults
        }
    }
}

/// `token` subcommands.
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a write token named NAME, print it once, store only its hash.
    Add {
        /// Who the token is for.
        name: String,
        /// The token file (default: PATH.tokens beside the ledger).
        #[arg(long, value_name = "FILE")]
        tokens: Option<PathBuf>,
    },
    /// Remove the token named NAME.
    Revoke {
        /// Its name.
        name: String,
        /// The token file (default: PATH.tokens beside the ledger).
        #[arg(long, value_name = "FILE")]
        tokens: Option<PathBuf>,
    },
}

/// PATH.SUFFIX beside the ledger.
fn beside(ledger: &Path, suffix: &str) -> PathBuf {
    let mut p = ledger.as_os_str().to_owned();
    p.push(format!(".{suffix}"));
    PathBuf::from(p)
}

fn interval(text: &str) -> anyhow::Result<Duration> {
    let bad = || {
        crate::UsageError(format!(
            "--checkpoint-interval: {text:?} is not a duration (a number then ms, s, m or h)"
        ))
    };
    let (n, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => return Err(bad().into()),
    };
    let n: u64 = n.parse().map_err(|_| bad())?;
    let d = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        _ => return Err(bad().into()),
    };
    if d.is_zero() {
        return Err(bad().into());
    }
    Ok(d)
}

pub fn run_serve(ledger_path: &Path, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let checkpoint_interval = interval(&args.checkpoint_interval)?;
    let limits = args.limits();
    let origin = origin_or_default(args.origin, ledger_path)?;
    let key = args.key.as_deref().map(load_signer).transpose()?;
    let ledger = open_for_write(ledger_path)?;
    let config = ladder_serve::ServeConfig {
        origin,
        key,
        tokens: args.tokens.unwrap_or_else(|| beside(ledger_path, "tokens")),
        checkpoint_interval,
        final_checkpoint: Some(beside(ledger_path, "checkpoint")),
        limits,
        clock: Arc::new(crate::now),
    };
    let last = ladder_serve::run(args.listen, ledger, config, |addr| {
        // A closed standard output does not stop the server: the line is for whoever watches.
        let _ = outln!("serving {} on http://{addr}/ (stop with Ctrl-C)", ledger_path.display());
    })
    .context("ladder serve")?;
    eprintln!(
        "stopped; the last checkpoint (size {}) is in {}",
        last.size,
        beside(ledger_path, "checkpoint").display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn run_token(ledger_path: &Path, cmd: TokenCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        TokenCommand::Add { name, tokens } => {
            let path = tokens.unwrap_or_else(|| beside(ledger_path, "tokens"));
            let mut secret = [0u8; 32];
            getrandom::fill(&mut secret).map_err(|e| {
                anyhow::anyhow!("reading 32 random bytes from the operating system: {e}")
            })?;
            let token = ladder_serve::tokens::add(&path, &name, secret)?;
            outln!("{token}")?;
            eprintln!(
                "stored the hash of token {name:?} in {}; the token is shown only now",
                path.display()
            );
        }
        TokenCommand::Revoke { name, tokens } => {
            let path = tokens.unwrap_or_else(|| beside(ledger_path, "tokens"));
            ladder_serve::tokens::revoke(&path, &name)?;
            eprintln!("revoked token {name:?} in {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn pipeline_events_sets_the_limit_and_is_off_without_it() {
        let off = Cli::parse_from(["serve"]).serve.limits();
        assert_eq!(off.pipeline_events, usize::MAX);
        assert_eq!(off.body_bytes, ladder_serve::Limits::default().body_bytes);
        let on = Cli::parse_from(["serve", "--pipeline-events", "1024", "--max-body", "100"]);
        let limits = on.serve.limits();
        assert_eq!((limits.pipeline_events, limits.body_bytes), (1024, 100));
        let zero = Cli::try_parse_from(["serve", "--pipeline-events", "0"]).err().unwrap();
        assert!(zero.to_string().contains("--pipeline-events"), "{zero}");
    }
}
