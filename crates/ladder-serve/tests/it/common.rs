//! A service over an in-memory or on-disk ledger with one known token and a fixed key.

use ladder_events::Timestamp;
use ladder_log::Ledger;
use ladder_proof::note::SignerKey;
use ladder_serve::{Limits, ServeConfig, Service};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub const ORIGIN: &str = "test.example/ladder";

pub fn key() -> SignerKey {
    SignerKey::from_seed(ORIGIN, [42; 32]).unwrap()
}

/// A clock that starts at 2026-03-01T00:00:00Z and moves one millisecond a read.
pub fn clock() -> Arc<dyn Fn() -> Timestamp + Send + Sync> {
    let t = Arc::new(AtomicI64::new(Timestamp::parse("2026-03-01T00:00:00Z").unwrap().0));
    Arc::new(move || Timestamp(t.fetch_add(1_000_000, Ordering::Relaxed)))
}

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub token: String,
    pub service: Service,
}

pub fn start(ledger: Ledger, limits: Limits) -> Fixture {
    start_with_clock(ledger, limits, clock())
}

/// [`start`] with the clock given.
pub fn start_with_clock(
    ledger: Ledger,
    limits: Limits,
    clock: Arc<dyn Fn() -> Timestamp + Send + Sync>,
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    let token = ladder_serve::tokens::add(&tokens, "club", [5; 32]).unwrap();
    let config = ServeConfig {
        origin: ORIGIN.into(),
        key: Some(key()),
        tokens,
        checkpoint_interval: Duration::from_millis(20),
        final_checkpoint: Some(dir.path().join("final-checkpoint")),
        limits,
        clock,
    };
    let service = Service::start(ledger, config).unwrap();
    Fixture { dir, token, service }
}

/// `n` players joining, then results between them, one per line, with ids.
pub fn history(players: usize, results: usize) -> String {
    let mut out = String::new();
    for p in 0..players {
        out.push_str(&format!(
            "{{\"type\":\"PlayerJoined\",\"at\":\"2026-01-01T00:00:00Z\",\"player\":\"p{p}\"}}\n"
        ));
    }
    for r in 0..results {
        let (a, b) = (r % players, (r * 7 + 1) % players);
        let b = if a == b { (b + 1) % players } else { b };
        let at = Timestamp(
            Timestamp::parse("2026-01-02T00:00:00Z").unwrap().0 + r as i64 * 1_000_000_000,
        );
        out.push_str(&format!(
            "{{\"type\":\"MatchResult\",\"at\":\"{at}\",\"id\":\"r{r}\",\"seats\":[{{\"player\":\"p{a}\",\"score\":{}}},{{\"player\":\"p{b}\",\"score\":{}}}]}}\n",
            (r % 3) as f64 / 2.0,
            1.0 - (r % 3) as f64 / 2.0
        ));
    }
    out
}

/// Appends JSON Lines to a ledger directly (what an import does).
pub fn append(ledger: &mut Ledger, lines: &str) {
    let events = lines.lines().filter(|l| !l.is_empty()).map(ladder_events::json::parse_line);
    ledger.append(events, &Default::default()).unwrap();
}
