//! The vendored Ed25519 verifier the event page's check runs: `@noble/curves` 2.4.0's
//! `ed25519.js` and every file it imports, with the `@noble/hashes` 2.4.0 files among them, copied
//! unchanged from the npm tarballs (`assets/vendor/README.md` gives their registry integrity
//! hashes and `assets/vendor/vendor.sh` the command that fetches and checks them). They are
//! embedded in the binary, served under [`BASE`], and loaded by the browser through an import
//! map ([`import_map`]) that gives each file's subresource integrity, so a browser runs only
//! the bytes vendored.

use sha2::Digest;
use std::sync::LazyLock;

/// Where the vendored files are served.
pub const BASE: &str = "/assets/vendor/";

/// One vendored file: its path under [`BASE`] (and under `assets/vendor/` in the crate) and its
/// text.
#[derive(Clone, Copy, Debug)]
pub struct Vendored {
    /// The path under [`BASE`].
    pub path: &'static str,
    /// The file, unchanged.
    pub text: &'static str,
}

macro_rules! vendored {
    ($($path:literal),* $(,)?) => {
        &[$(Vendored { path: $path, text: include_str!(concat!("../assets/vendor/", $path)) }),*]
    };
}

/// Every vendored file, scripts and licences.
pub const FILES: &[Vendored] = vendored![
    "noble-curves-2.4.0/LICENSE",
    "noble-curves-2.4.0/ed25519.js",
    "noble-curves-2.4.0/utils.js",
    "noble-curves-2.4.0/abstract/curve.js",
    "noble-curves-2.4.0/abstract/edwards.js",
    "noble-curves-2.4.0/abstract/fft.js",
    "noble-curves-2.4.0/abstract/frost.js",
    "noble-curves-2.4.0/abstract/hash-to-curve.js",
    "noble-curves-2.4.0/abstract/modular.js",
    "noble-curves-2.4.0/abstract/montgomery.js",
    "noble-curves-2.4.0/abstract/oprf.js",
    "noble-hashes-2.4.0/LICENSE",
    "noble-hashes-2.4.0/sha2.js",
    "noble-hashes-2.4.0/utils.js",
    "noble-hashes-2.4.0/_md.js",
    "noble-hashes-2.4.0/_u64.js",
    "noble-hashes-2.4.0/sha3.js",
    "noble-hashes-2.4.0/hmac.js",
    "noble-hashes-2.4.0/legacy.js",
];

/// The script the check imports first (`@noble/curves/ed25519.js`), for a `modulepreload`.
pub const ENTRY: &str = "noble-curves-2.4.0/ed25519.js";

/// The vendored file served at `/assets/vendor/PATH`, if any.
pub fn file(path: &str) -> Option<&'static Vendored> {
    FILES.iter().find(|f| f.path == path)
}

/// The subresource integrity of a text: `sha384-` and its SHA-384 in standard base64 (W3C
/// Subresource Integrity).
pub fn sri(text: &str) -> String {
    use base64::Engine;
    let digest = sha2::Sha384::digest(text.as_bytes());
    format!("sha384-{}", base64::engine::general_purpose::STANDARD.encode(digest))
}

/// The import map of the event page: `@noble/curves/` and `@noble/hashes/` to their folders
/// under [`BASE`], and the integrity of every script (WHATWG HTML, import maps).
pub static IMPORT_MAP: LazyLock<String> = LazyLock::new(|| {
    let integrity: serde_json::Map<String, serde_json::Value> = FILES
        .iter()
        .filter(|f| f.path.ends_with(".js"))
        .map(|f| (format!("{BASE}{}", f.path), sri(f.text).into()))
        .collect();
    serde_json::json!({
        "imports": {
            "@noble/curves/": format!("{BASE}noble-curves-2.4.0/"),
            "@noble/hashes/": format!("{BASE}noble-hashes-2.4.0/"),
        },
        "integrity": integrity,
    })
    .to_string()
});

/// The import map ([`IMPORT_MAP`]) as a page writes it in `<script type="importmap">`.
pub fn import_map() -> &'static str {
    &IMPORT_MAP
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each script's integrity is recorded in `assets/vendor/README.md` beside its path (the
    /// lines `vendor.sh` prints), so a changed file fails here before a browser refuses it; the
    /// licences are the packages' MIT licences.
    #[test]
    fn vendored_scripts_match_their_recorded_integrity() {
        let readme = include_str!("../assets/vendor/README.md");
        let mut scripts = 0;
        for f in FILES.iter().filter(|f| f.path.ends_with(".js")) {
            let line = format!("{}  {}", sri(f.text), f.path);
            assert!(readme.contains(&line), "README.md does not record {line}");
            scripts += 1;
        }
        assert_eq!(scripts, 17);
        for f in FILES.iter().filter(|f| f.path.ends_with("LICENSE")) {
            assert!(f.text.contains("MIT License"), "{}", f.path);
        }
        assert!(file(ENTRY).is_some());
        assert!(IMPORT_MAP.contains(&format!("\"{BASE}{ENTRY}\"")));
    }
}
