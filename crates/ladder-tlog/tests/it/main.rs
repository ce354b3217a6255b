//! Publishing a ledger as C2SP tlog-tiles and mirroring it back, through files and HTTP.

mod http;
mod mirror;
mod publish;

use ladder_events::json::parse_line;
use ladder_log::{AppendOptions, Ledger};
use ladder_proof::note::SignerKey;
use std::path::{Path, PathBuf};

/// The log's origin in every test.
pub const ORIGIN: &str = "example.org/club";

/// The log's signing key in every test.
pub fn key() -> SignerKey {
    SignerKey::from_seed(ORIGIN, [42; 32]).unwrap()
}

/// `n` events from `from` (1-based): joins of p0..p9 at the start, then results between them,
/// one a minute; `tag` changes every result's id, so two tags make two different histories.
pub fn events(from: usize, n: usize, tag: &str) -> Vec<ladder_events::Event> {
    (from..from + n)
        .map(|i| {
            // One a second from 2026-03-01T00:00:00Z (less than a day for 86,400 events).
            let at = format!("2026-03-01T{:02}:{:02}:{:02}Z", i / 3600, (i / 60) % 60, i % 60);
            let line = if i <= 10 {
                format!(r#"{{"type":"PlayerJoined","at":"{at}","player":"p{}"}}"#, i - 1)
            } else {
                let (a, b) = (i % 10, (i / 10) % 10);
                let b = if a == b { (b + 1) % 10 } else { b };
                format!(
                    r#"{{"type":"MatchResult","at":"{at}","id":"{tag}-{i}","seats":[{{"player":"p{a}","score":1}},{{"player":"p{b}","score":0}}]}}"#
                )
            };
            parse_line(&line).unwrap()
        })
        .collect()
}

/// A ledger at `dir/name` with events 1..=n of `tag`.
pub fn ledger(dir: &Path, name: &str, n: usize, tag: &str) -> (Ledger, PathBuf) {
    let path = dir.join(name);
    let mut l = Ledger::open(&path).unwrap();
    l.append(events(1, n, tag).into_iter().map(Ok), &AppendOptions::default()).unwrap();
    (l, path)
}

/// Appends events `from..from + n` of `tag`.
pub fn grow(l: &mut Ledger, from: usize, n: usize, tag: &str) {
    l.append(events(from, n, tag).into_iter().map(Ok), &AppendOptions::default()).unwrap();
}

/// Every file under `dir`, relative, with its bytes.
pub fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(d: &Path, base: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, base, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = Default::default();
    walk(dir, dir, &mut out);
    out
}
