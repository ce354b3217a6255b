//! `cargo bench -p ladder-serve --bench serve`: the service on loopback, client and server on
//! one machine, each part a bounded run that stops by itself (docs/PERFORMANCE.md, "Serving").
//!
//! 1. single-event appends, 32 concurrent clients, each answered only once durable;
//! 2. 1,000-event requests, 4 clients;
//! 3. append latency (p50, p99) with 32 clients paced to 10,000 appends/s in all;
//! 4. full tile reads, 8 clients;
//! 5. the leaderboard of a ledger of `LADDER_BENCH_EVENTS` events (default 1,000,000): first
//!    (cold) read, warm read, and the read after one more append.

use ladder_events::Timestamp;
use ladder_log::Ledger;
use ladder_serve::{Limits, ServeConfig, Service};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PLAYERS: usize = 200;

fn clock() -> Arc<dyn Fn() -> Timestamp + Send + Sync> {
    // A bench may read the wall clock: it stamps events as `ladder serve` does.
    #[allow(clippy::disallowed_methods)]
    Arc::new(|| {
        let d =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        Timestamp(d.as_nanos() as i64)
    })
}

struct Server {
    url: String,
    token: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn start(ledger: Ledger, dir: &std::path::Path) -> Server {
    let tokens = dir.join("tokens");
    let token = ladder_serve::tokens::add(&tokens, "bench", [3; 32]).unwrap();
    let config = ServeConfig {
        origin: "bench.example/ladder".into(),
        key: Some(
            ladder_proof::note::SignerKey::from_seed("bench.example/ladder", [1; 32]).unwrap(),
        ),
        tokens,
        checkpoint_interval: Duration::from_secs(1),
        final_checkpoint: None,
        limits: Limits { body_bytes: 64 << 20, ..Limits::default() },
        clock: clock(),
    };
    let service = Service::start(ledger, config).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            ladder_serve::serve(listener, service, Duration::from_secs(1), async move {
                let _ = stop_rx.await;
            })
            .await
            .unwrap();
        })
    });
    let addr = rx.recv().unwrap();
    Server { url: format!("http://{addr}"), token, stop: Some(stop_tx), thread: Some(thread) }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(120)))
        .http_status_as_error(false)
        .build()
        .into()
}

fn result_line(n: usize, with_at: Option<Timestamp>) -> String {
    let at = with_at.map_or(String::new(), |t| format!(",\"at\":\"{t}\""));
    format!(
        "{{\"type\":\"MatchResult\"{at},\"id\":\"b{n}\",\"seats\":[{{\"player\":\"p{}\",\"score\":1}},{{\"player\":\"p{}\",\"score\":0}}]}}",
        n % PLAYERS,
        (n * 7 + 1) % PLAYERS
    )
}

fn post(agent: &ureq::Agent, s: &Server, body: String) {
    let mut r = agent
        .post(&format!("{}/api/events", s.url))
        .header("Authorization", &format!("Bearer {}", s.token))
        .send(body)
        .unwrap();
    let status = r.status().as_u16();
    let text = r.body_mut().read_to_string().unwrap();
    assert_eq!(status, 200, "{text}");
}

fn joined_ledger(path: &std::path::Path) -> Ledger {
    let mut ledger = Ledger::open(path).unwrap();
    let joins: Vec<_> = (0..PLAYERS)
        .map(|p| {
            ladder_events::json::parse_line(&format!(
                "{{\"type\":\"PlayerJoined\",\"at\":\"2020-01-01T00:00:00Z\",\"player\":\"p{p}\"}}"
            ))
        })
        .collect();
    ledger.append(joins, &Default::default()).unwrap();
    ledger
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing and must not run it.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = start(joined_ledger(&dir.path().join("a.db")), dir.path());
    let mut next = 0usize;

    // 1. single-event appends, 32 clients.
    let (clients, per) = (32, 400);
    let t = Instant::now();
    std::thread::scope(|sc| {
        for c in 0..clients {
            let s = &s;
            sc.spawn(move || {
                let a = agent();
                for i in 0..per {
                    post(&a, s, result_line(next + c * per + i, None));
                }
            });
        }
    });
    next += clients * per;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "serve/append/single/32-clients: {} appends in {secs:.2} s = {:.0} appends/s",
        clients * per,
        (clients * per) as f64 / secs
    );

    // 2. 1,000-event requests, 4 clients.
    let (clients, per, size) = (4, 20, 1000);
    let t = Instant::now();
    std::thread::scope(|sc| {
        for c in 0..clients {
            let s = &s;
            sc.spawn(move || {
                let a = agent();
                for i in 0..per {
                    let first = next + (c * per + i) * size;
                    let body: Vec<String> =
                        (first..first + size).map(|n| result_line(n, None)).collect();
                    post(&a, s, body.join("\n"));
                }
            });
        }
    });
    next += clients * per * size;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "serve/append/batch-1000/4-clients: {} events in {secs:.2} s = {:.0} events/s",
        clients * per * size,
        (clients * per * size) as f64 / secs
    );

    // 3. latency at 10,000 appends/s offered (32 clients, each every 3.2 ms), 2 seconds.
    let (clients, per) = (32usize, 625usize);
    let gap = Duration::from_micros(3200);
    let latencies = std::sync::Mutex::new(Vec::with_capacity(clients * per));
    let t = Instant::now();
    std::thread::scope(|sc| {
        for c in 0..clients {
            let (s, latencies) = (&s, &latencies);
            sc.spawn(move || {
                let a = agent();
                let start = Instant::now() + Duration::from_micros(100 * c as u64);
                let mut mine = Vec::with_capacity(per);
                for i in 0..per {
                    let due = start + gap * i as u32;
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    // Latency from when the request was due (so a late client counts its wait).
                    post(&a, s, result_line(next + c * per + i, None));
                    mine.push(due.elapsed());
                }
                latencies.lock().unwrap().extend(mine);
            });
        }
    });
    next += clients * per;
    let secs = t.elapsed().as_secs_f64();
    let mut l = latencies.into_inner().unwrap();
    l.sort();
    println!(
        "serve/append/latency-at-10k/s: {} appends in {secs:.2} s ({:.0}/s achieved), p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        l.len(),
        l.len() as f64 / secs,
        percentile(&l, 0.5).as_secs_f64() * 1e3,
        percentile(&l, 0.99).as_secs_f64() * 1e3,
        l[l.len() - 1].as_secs_f64() * 1e3
    );

    // 4. full tile reads, 8 clients: first each of 300 tiles once (cold: read from the ledger),
    // then 2 seconds of reads of the same tiles (kept in memory: a full tile never changes).
    let tile_url = |i: u64| {
        format!("{}/log/{}", s.url, ladder_proof::tiles::Tile::hashes(0, i % 300, 256).path())
    };
    for (what, bounded) in [("cold", false), ("warm", true)] {
        let reads = std::sync::atomic::AtomicUsize::new(0);
        let t = Instant::now();
        std::thread::scope(|sc| {
            for c in 0..8u64 {
                let (reads, tile_url) = (&reads, &tile_url);
                sc.spawn(move || {
                    let a = agent();
                    let mut i = c;
                    while if bounded { t.elapsed() < Duration::from_secs(2) } else { i < 300 } {
                        let mut r = a.get(&tile_url(i)).call().unwrap();
                        assert_eq!(r.status().as_u16(), 200);
                        let _ = r.body_mut().read_to_vec().unwrap();
                        reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        i += 8;
                    }
                });
            }
        });
        let n = reads.into_inner();
        println!(
            "serve/tiles/full/8-clients/{what}: {n} reads in {:.2} s = {:.0} reads/s",
            t.elapsed().as_secs_f64(),
            n as f64 / t.elapsed().as_secs_f64()
        );
    }
    drop(s);
    let _ = next;

    // 5. the leaderboard of a large ledger.
    let events: usize =
        std::env::var("LADDER_BENCH_EVENTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let mut ledger = joined_ledger(&dir.path().join("big.db"));
    let base = Timestamp::parse("2021-01-01T00:00:00Z").unwrap().0;
    let t = Instant::now();
    for chunk in (0..events).collect::<Vec<_>>().chunks(100_000) {
        let lines: Vec<_> = chunk
            .iter()
            .map(|&n| {
                ladder_events::json::parse_line(&result_line(
                    n,
                    Some(Timestamp(base + n as i64 * 1_000_000_000)),
                ))
            })
            .collect();
        ledger.append(lines, &Default::default()).unwrap();
    }
    println!(
        "(built a ledger of {} events in {:.1} s)",
        ledger.head().seq,
        t.elapsed().as_secs_f64()
    );
    let big_dir = tempfile::tempdir().unwrap();
    let s = start(ledger, big_dir.path());
    let a = agent();
    let board = |what: &str| {
        let t = Instant::now();
        let mut r = a
            .get(&format!(
                "{}/api/leaderboard?algo=glicko2&min_games=0&active_within=all&top=20",
                s.url
            ))
            .call()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let _ = r.body_mut().read_to_vec().unwrap();
        println!(
            "serve/leaderboard/glicko2/{events}: {what} {:.2} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    };
    board("cold (first fold)");
    board("warm");
    board("warm again");
    post(&a, &s, result_line(events + 1, None));
    board("after one more append");
}
