//! Keys and origins shared by the commands that sign or check notes (`checkpoint`, `prove`,
//! `publish`, `check-proof`, `verify`, `mirror`).

use anyhow::Context;
use ladder_proof::note::{SignerKey, VerifierKey};
use std::path::Path;

/// The `--origin` given, or the default `ladder/` and the ledger directory's (or events file's)
/// name; refused unless one non-empty line.
pub fn origin_or_default(origin: Option<String>, source: &Path) -> anyhow::Result<String> {
    let origin = origin.unwrap_or_else(|| {
        let name = source.file_name().map(|n| n.to_string_lossy().into_owned());
        format!("ladder/{}", name.unwrap_or_else(|| "ledger".into()))
    });
    if origin.is_empty() || origin.chars().any(char::is_control) {
        return Err(crate::UsageError("--origin must be one non-empty line".into()).into());
    }
    Ok(origin)
}

/// The signing key in `file` (as `ladder keygen` wrote it).
pub fn load_signer(file: &Path) -> anyhow::Result<SignerKey> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("reading the key {}", file.display()))?;
    SignerKey::parse(text.trim())
        .with_context(|| format!("{} is not a signing key", file.display()))
}

/// The key from its text, or from the file it names.
pub fn verifier_key(arg: &str) -> anyhow::Result<Result<VerifierKey, String>> {
    if let Ok(k) = VerifierKey::parse(arg) {
        return Ok(Ok(k));
    }
    if !Path::new(arg).exists() {
        let e = VerifierKey::parse(arg).err().map(|e| e.to_string()).unwrap_or_default();
        return Ok(Err(format!("--pubkey is neither a verifier key ({e}) nor an existing file")));
    }
    let text = std::fs::read_to_string(arg).with_context(|| format!("reading {arg}"))?;
    Ok(VerifierKey::parse(text.trim()).map_err(|e| format!("--pubkey {arg}: {e}")))
}
