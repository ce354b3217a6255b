//! `ladder keygen`: an Ed25519 key for signing checkpoints (C2SP signed notes).

use crate::Hinted;
use anyhow::Context;
use clap::Args;
use ladder_proof::note::SignerKey;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub const EXAMPLES: &str = "Examples:
  ladder keygen club.key                            club.key (secret) and club.key.pub
  ladder keygen club.key --name club.example/ladder  name the key after the ladder

Prints the verifier key (NAME+ID+KEY) on stdout: publish it, so anyone can check the checkpoints
this key signs (`ladder check-proof --checkpoint NOTE --pubkey KEY`). The secret file is created
with mode 0600 and never overwritten. The formats are Go's golang.org/x/mod/sumdb/note ones.";

/// Arguments of `keygen`.
#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Where to write the signer key; the verifier key goes beside it in FILE.pub. Neither may
    /// exist yet.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The key's name, shown in every signature (C2SP recommends a schema-less URL such as
    /// club.example/ladder; no spaces, no '+').
    #[arg(long, default_value = "ladder")]
    pub name: String,
}

/// Creates `path` with `bytes`, refusing an existing file; `secret` files get mode 0600.
fn create_new(path: &Path, bytes: &[u8], secret: bool) -> anyhow::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(if secret { 0o600 } else { 0o644 });
    }
    let mut f = opts.open(path).with_context(|| format!("creating {}", path.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .with_context(|| format!("writing {}", path.display()))
}

pub fn run(args: KeygenArgs) -> anyhow::Result<ExitCode> {
    let mut pub_path = args.file.clone().into_os_string();
    pub_path.push(".pub");
    let pub_path = PathBuf::from(pub_path);
    for p in [&args.file, &pub_path] {
        if p.exists() {
            return Err(Hinted::refused(
                format!("{} already exists: keygen never overwrites a key", p.display()),
                "choose another file name; a replaced key would no longer verify the checkpoints the old one signed",
            )
            .into());
        }
    }
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| anyhow::anyhow!("reading 32 random bytes from the operating system: {e}"))?;
    let key = SignerKey::from_seed(&args.name, seed)
        .map_err(|e| Hinted::usage(format!("--name: {e}"), "e.g. --name club.example/ladder"))?;
    let verifier = key.verifier().to_text();
    create_new(&args.file, format!("{}\n", key.to_text()).as_bytes(), true)?;
    create_new(&pub_path, format!("{verifier}\n").as_bytes(), false)?;
    outln!("{verifier}")?;
    eprintln!(
        "wrote the signer key to {} (secret, mode 0600) and the verifier key to {}",
        args.file.display(),
        pub_path.display()
    );
    Ok(ExitCode::SUCCESS)
}
