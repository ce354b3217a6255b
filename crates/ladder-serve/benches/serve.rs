//! `cargo bench -p ladder-serve --bench serve`: the service on loopback, client and server on
//! one machine, each part a bounded run that stops by itself (docs/PERFORMANCE.md, "Serving").
//!
//! 1. single-event appends, 32 concurrent clients, each answered only once durable;
//! 2. 1,000-event requests, 4 clients;
//! 3. append latency (p50, p99) with 32 clients paced to 10,000 appends/s in all
//!    (rows 1 to 3: `append/single`, `append/batch-1000`, `append/latency`; each client is one
//!    keep-alive connection speaking HTTP/1.1 directly, as in part 4, and rows 1 and 2 print the
//!    process's CPU time per append, client and server together, from `/proc/self/stat`);
//! 4. tile reads, 4 clients, each a keep-alive connection of its own speaking HTTP/1.1
//!    directly (a lean client: the bench measures the server, not an HTTP library's per-request
//!    allocations on the same two cores), on a ledger of `LADDER_BENCH_TILES` full level-0
//!    tiles (default 4,096): every tile cold (the first read of each after the server started),
//!    by each of three servers started in turn, then entry bundles the same way, and level-0
//!    tiles warm (see `tiles` for what cold means);
//! 5. on a ledger of `LADDER_BENCH_EVENTS` events (default 1,000,000): the leaderboard, a
//!    player's page and `GET /api/players/NAME`, and a match's page and its explain: first
//!    (cold) read, warm read, and the read after one more append; and the first view of other
//!    matches under the same configuration.
//!
//!
//! Row 2 runs again, as `append/batch-pipelined`, on a server of its own that pipelines groups
//! of 1,024 events or more (`Limits::pipeline_events`; off by default).
//!
//! `cargo bench -p ladder-serve --bench serve -- WORD` runs only the parts whose name holds
//! WORD (`append`, `append/single`, `append/batch` (both batch rows), `append/latency`,
//! `tiles`, `reads`).

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
    shared: Arc<ladder_serve::Shared>,
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
    start_with(ledger, dir, Limits { body_bytes: 64 << 20, ..Limits::default() })
}

/// [`start`] with the limits given.
fn start_with(ledger: Ledger, dir: &std::path::Path, limits: Limits) -> Server {
    std::fs::create_dir_all(dir).unwrap();
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
        limits,
        clock: clock(),
    };
    let service = Service::start(ledger, config).unwrap();
    let shared = service.shared.clone();
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
    Server {
        url: format!("http://{addr}"),
        token,
        shared,
        stop: Some(stop_tx),
        thread: Some(thread),
    }
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

/// A keep-alive HTTP/1.1 connection that sends GETs and reads each answer into one reused
/// buffer (the answers of `serve` carry `content-length`).
struct Raw {
    stream: std::net::TcpStream,
    buf: Vec<u8>,
}

impl Raw {
    fn connect(url: &str) -> Raw {
        let addr = url.trim_start_matches("http://");
        let stream = std::net::TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        Raw { stream, buf: Vec::with_capacity(16 << 10) }
    }

    /// Sends `request` (a whole GET or POST) and returns the answer's status and body length;
    /// the body is left in `self.buf` after the head.
    fn get(&mut self, request: &[u8]) -> (u16, usize) {
        use std::io::{Read, Write};
        self.stream.write_all(request).unwrap();
        self.buf.clear();
        let mut chunk = [0u8; 16 << 10];
        let (head_end, length) = loop {
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = std::str::from_utf8(&self.buf[..i]).unwrap();
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length").then(|| v.trim().parse().ok())?
                    })
                    .expect("content-length");
                break (i + 4, length);
            }
        };
        while self.buf.len() < head_end + length {
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
        assert_eq!(self.buf.len(), head_end + length, "one answer at a time");
        let status = std::str::from_utf8(&self.buf[9..12]).unwrap().parse().unwrap();
        (status, length)
    }
}

/// A whole `POST /api/events` of `body` with the server's token, as bytes to send on a [`Raw`]
/// connection.
fn post_request(s: &Server, body: &str) -> Vec<u8> {
    format!(
        "POST /api/events HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/x-ndjson\r\nContent-Length: {}\r\n\r\n{body}",
        s.token,
        body.len()
    )
    .into_bytes()
}

/// Writes all of `bytes` to a non-blocking stream.
async fn write_all(stream: &tokio::net::TcpStream, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        stream.writable().await.unwrap();
        match stream.try_write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("writing a request: {e}"),
        }
    }
}

/// Reads one answer (its head, then `content-length` bytes) into `buf` and returns its status
/// and body; panics unless it is `200`.
async fn read_answer<'b>(stream: &tokio::net::TcpStream, buf: &'b mut Vec<u8>) -> &'b [u8] {
    buf.clear();
    let mut chunk = [0u8; 16 << 10];
    let mut want: Option<(usize, usize)> = None;
    loop {
        if let Some((head_end, length)) = want {
            if buf.len() >= head_end + length {
                assert_eq!(buf.len(), head_end + length, "one answer at a time");
                let status = std::str::from_utf8(&buf[9..12]).unwrap();
                let body = &buf[head_end..];
                assert_eq!(status, "200", "{}", String::from_utf8_lossy(body));
                return body;
            }
        }
        stream.readable().await.unwrap();
        match stream.try_read(&mut chunk) {
            Ok(0) => panic!("the server closed the connection"),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(e) => panic!("reading an answer: {e}"),
        }
        if want.is_none() {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = std::str::from_utf8(&buf[..i]).unwrap();
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length").then(|| v.trim().parse().ok())?
                    })
                    .expect("content-length");
                want = Some((i + 4, length));
            }
        }
    }
}

/// Runs `clients` concurrent clients on this one thread (a single-threaded tokio runtime, each
/// client a keep-alive HTTP/1.1 connection of its own with one request outstanding at a time):
/// client `c` posts `bodies[c]` in order, each at `start + due(c, i)` at the earliest when
/// `due` is given. Returns each request's latency, from when it was due (or sent) to its
/// answer. A thread per client would spend the two cores the server needs on its own
/// wake-ups.
fn drive(
    s: &Server,
    bodies: Vec<Vec<String>>,
    due: Option<&(dyn Fn(usize, usize) -> Duration + Sync)>,
) -> Vec<Duration> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let addr = s.url.trim_start_matches("http://").to_string();
    let start = Instant::now();
    let dues: Vec<Vec<Option<Instant>>> = bodies
        .iter()
        .enumerate()
        .map(|(c, b)| (0..b.len()).map(|i| due.map(|d| start + d(c, i))).collect())
        .collect();
    rt.block_on(async move {
        let mut set = tokio::task::JoinSet::new();
        for (mine, dues) in bodies.into_iter().zip(dues) {
            let requests: Vec<Vec<u8>> = mine.iter().map(|b| post_request(s, b)).collect();
            let addr = addr.clone();
            set.spawn(async move {
                let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
                stream.set_nodelay(true).unwrap();
                let mut buf = Vec::with_capacity(4096);
                let mut latencies = Vec::with_capacity(requests.len());
                for (request, due) in requests.iter().zip(dues) {
                    if let Some(due) = due {
                        tokio::time::sleep_until(due.into()).await;
                    }
                    let from = due.unwrap_or_else(Instant::now);
                    write_all(&stream, request).await;
                    read_answer(&stream, &mut buf).await;
                    latencies.push(from.elapsed());
                }
                latencies
            });
        }
        let mut all = Vec::new();
        while let Some(l) = set.join_next().await {
            all.extend(l.unwrap());
        }
        all
    })
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing and must not run it.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let runs = |part: &str| only.as_deref().is_none_or(|w| part.contains(w));
    let dir = tempfile::tempdir().unwrap();
    let s = start(joined_ledger(&dir.path().join("a.db")), dir.path());
    let mut next = 0usize;
    let rows = ["append/single", "append/batch-1000", "append/latency"];
    if rows.iter().any(|r| runs(r)) {
        next = appends(&s, next, &|row| runs(row));
    }
    drop(s);
    let _ = next;
    // Row 2 again on a server that pipelines groups of 1,024 events or more
    // (`Limits::pipeline_events`, off by default: docs/PERFORMANCE.md, "Serving"), on a ledger
    // of its own.
    if runs("append/batch-pipelined") {
        let path = dir.path().join("pipelined");
        let limits = Limits {
            body_bytes: 64 << 20,
            pipeline_events: ladder_serve::sequencer::BULK_EVENTS,
            ..Limits::default()
        };
        let p = start_with(joined_ledger(&path.join("a.db")), &path, limits);
        batch_row(&p, 0, "serve/append/batch-pipelined/4-clients");
    }
    if runs("tiles") {
        tiles(dir.path());
    }
    if runs("reads") {
        reads(&dir);
    }
}

/// The CPU time this process has used so far (user and system, every thread), from
/// `/proc/self/stat` (fields 14 and 15, in clock ticks of 1/100 s on Linux); `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// " (N µs of CPU each, client and server together)" for `n` requests since `cpu0`.
fn cpu_each(cpu0: Option<f64>, n: usize) -> String {
    match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) => {
            format!(" ({:.1} µs of CPU each, client and server together)", (b - a) * 1e6 / n as f64)
        }
        _ => String::new(),
    }
}

/// Parts 1 to 3: appends, each row when `row` says so. Returns the next event number. The
/// clients speak HTTP/1.1 on a keep-alive connection each ([`Raw`]): they share the two cores
/// with the server, and a lean client leaves them to it.
fn appends(s: &Server, mut next: usize, row: &dyn Fn(&str) -> bool) -> usize {
    // 1. single-event appends, 32 clients.
    if row("append/single") {
        let (clients, per) = (32, 400);
        let bodies = (0..clients)
            .map(|c| (0..per).map(|i| result_line(next + c * per + i, None)).collect())
            .collect();
        let cpu0 = cpu_seconds();
        let t = Instant::now();
        drive(s, bodies, None);
        next += clients * per;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "serve/append/single/32-clients: {} appends in {secs:.2} s = {:.0} appends/s{}",
            clients * per,
            (clients * per) as f64 / secs,
            cpu_each(cpu0, clients * per)
        );
    }

    // 2. 1,000-event requests, 4 clients.
    if row("append/batch-1000") {
        next = batch_row(s, next, "serve/append/batch-1000/4-clients");
    }

    // 3. latency at 10,000 appends/s offered (32 clients, each every 3.2 ms), 2 seconds.
    if !row("append/latency") {
        return next;
    }
    let (clients, per) = (32usize, 625usize);
    let gap = Duration::from_micros(3200);
    let bodies = (0..clients)
        .map(|c| (0..per).map(|i| result_line(next + c * per + i, None)).collect())
        .collect();
    // Client `c`'s request `i` is due at 100 µs * c + 3.2 ms * i; its latency counts from then
    // (so a late client counts its wait).
    let due = move |c: usize, i: usize| Duration::from_micros(100 * c as u64) + gap * i as u32;
    let cpu0 = cpu_seconds();
    let t = Instant::now();
    let latencies = drive(s, bodies, Some(&due));
    next += clients * per;
    let secs = t.elapsed().as_secs_f64();
    let mut l = latencies;
    l.sort();
    println!(
        "serve/append/latency-at-10k/s: {} appends in {secs:.2} s ({:.0}/s achieved), p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms{}",
        l.len(),
        l.len() as f64 / secs,
        percentile(&l, 0.5).as_secs_f64() * 1e3,
        percentile(&l, 0.99).as_secs_f64() * 1e3,
        l[l.len() - 1].as_secs_f64() * 1e3,
        cpu_each(cpu0, l.len())
    );

    next
}

/// Row 2: 1,000-event requests, 4 clients, printed as `name`. Returns the next event number.
fn batch_row(s: &Server, mut next: usize, name: &str) -> usize {
    let (clients, per, size) = (4, 20, 1000);
    // The bodies are made before the clock starts: the row measures the server.
    let bodies: Vec<Vec<String>> = (0..clients)
        .map(|c| {
            (0..per)
                .map(|i| {
                    let first = next + (c * per + i) * size;
                    let body: Vec<String> =
                        (first..first + size).map(|n| result_line(n, None)).collect();
                    body.join("\n")
                })
                .collect()
        })
        .collect();
    let cpu0 = cpu_seconds();
    let pipelined = s.shared.pipelined();
    let t = Instant::now();
    drive(s, bodies, None);
    next += clients * per * size;
    let secs = t.elapsed().as_secs_f64();
    let staged_meanwhile = s.shared.pipelined() - pipelined;
    println!(
        "{name}: {} events in {secs:.2} s = {:.0} events/s{}{}",
        clients * per * size,
        (clients * per * size) as f64 / secs,
        cpu_each(cpu0, clients * per * size).replace("each", "an event"),
        if staged_meanwhile > 0 {
            format!("; {staged_meanwhile} groups staged while the one before synced")
        } else {
            String::new()
        }
    );
    next
}

/// Full level-0 tiles in the tile part's ledger (`LADDER_BENCH_TILES`, default 4,096: 1,048,576
/// events).
fn tile_count() -> u64 {
    std::env::var("LADDER_BENCH_TILES").ok().and_then(|v| v.parse().ok()).unwrap_or(4096)
}

/// Times the servers started on the tile part's ledger, each reading every tile once cold.
const COLD_PASSES: usize = 3;

/// Reads each of `requests` once over `clients` keep-alive connections (client `c` takes
/// requests `c`, `c + clients`, ...), each answer `200`: the bytes read in all.
fn read_each_once(s: &Server, requests: &[Vec<u8>], clients: usize) -> usize {
    let bytes = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|sc| {
        for c in 0..clients {
            let bytes = &bytes;
            sc.spawn(move || {
                let mut conn = Raw::connect(&s.url);
                let mut n = 0;
                for request in requests.iter().skip(c).step_by(clients) {
                    let (status, length) = conn.get(request);
                    assert_eq!(status, 200);
                    n += length;
                }
                bytes.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            });
        }
    });
    bytes.into_inner()
}

/// Waits (`limit` at most) until the server's leaf file holds `tiles` full tiles; how long
/// that took.
fn wait_for_leaves(s: &Server, tiles: u64, limit: Duration) -> Duration {
    let t = Instant::now();
    while s.shared.leaves().through() < tiles && t.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        s.shared.leaves().through() >= tiles,
        "the leaf file held {} of {tiles} tiles after {:.0} s",
        s.shared.leaves().through(),
        limit.as_secs_f64()
    );
    t.elapsed()
}

/// Part 4: tile reads, 4 clients, each a keep-alive connection of its own whose requests are
/// made before the clock starts, on a ledger of [`tile_count`] full level-0 tiles.
///
/// *Cold* is the first read of each tile after the server started: a new `Service` on the
/// ledger just opened, so no tile is kept in the server's memory and sled's cache is empty;
/// the server's leaf and entries files (made as the tree grew, and checked by the filler when
/// the server starts, which the bench waits for) are read, and they are in the OS page cache,
/// since they were just written. That is the fair reading of "tile reads/s" for a server: one
/// that has its log's files in memory, the steady state of any server with the memory for
/// them; dropping the page cache needs root and measures the disk, not the server. Each of
/// [`COLD_PASSES`] servers, started one after the other on the same ledger, reads every tile
/// once (then every entry bundle once): thousands of distinct reads, not a few hundred, so one
/// stall moves the row little.
///
/// *Warm* is 2 seconds of reads of the first 300 tiles, each read before (kept in memory: a
/// full tile never changes).
fn tiles(dir: &std::path::Path) {
    const CLIENTS: usize = 4;
    let tiles = tile_count();
    let path = dir.join("tiles.db");
    let built = Instant::now();
    let mut ledger = joined_ledger(&path);
    let events = (tiles * 256) as usize - PLAYERS;
    append_dated(&mut ledger, events);
    let cpu0 = cpu_seconds();
    let s = start(ledger, &dir.join("tiles-0"));
    let filled = wait_for_leaves(&s, tiles, Duration::from_secs(600));
    drop(s);
    println!(
        "(built a ledger of {tiles} full tiles in {:.1} s; the server's filler made the leaf \
         file in {:.1} s{})",
        built.elapsed().as_secs_f64(),
        filled.as_secs_f64(),
        match (cpu0, cpu_seconds()) {
            (Some(a), Some(b)) => format!(", {:.1} s of CPU", b - a),
            _ => String::new(),
        }
    );
    let get =
        |path: String| format!("GET /log/{path} HTTP/1.1\r\nHost: bench\r\n\r\n").into_bytes();
    let hashes: Vec<Vec<u8>> =
        (0..tiles).map(|i| get(ladder_proof::tiles::Tile::hashes(0, i, 256).path())).collect();
    let bundles: Vec<Vec<u8>> =
        (0..tiles).map(|i| get(ladder_proof::tiles::Tile::entries(i, 256).path())).collect();
    let (mut tile_secs, mut bundle_secs, mut bundle_bytes) = (0.0, 0.0, 0usize);
    let (mut tile_cpu, mut bundle_cpu) = (Some(0.0), Some(0.0));
    // The CPU time of the process (client and server together) spent in `f`.
    let cpu = |f: &mut dyn FnMut()| {
        let a = cpu_seconds();
        f();
        Some(cpu_seconds()? - a?)
    };
    let mut each = Vec::new();
    let mut warm_row = String::new();
    for pass in 0..COLD_PASSES {
        let ledger = Ledger::open(&path).unwrap();
        let s = start(ledger, &dir.join(format!("tiles-{}", pass + 1)));
        // The filler checks the file's slots when the server starts; the reads wait for it, so
        // they are served from the file.
        wait_for_leaves(&s, tiles, Duration::from_secs(120));
        let t = Instant::now();
        let mut bytes = 0;
        let used = cpu(&mut || bytes = read_each_once(&s, &hashes, CLIENTS));
        let secs = t.elapsed().as_secs_f64();
        tile_cpu = tile_cpu.zip(used).map(|(a, b)| a + b);
        assert_eq!(bytes, hashes.len() * 256 * 32);
        tile_secs += secs;
        each.push(format!("{:.0}", tiles as f64 / secs));
        if pass + 1 == COLD_PASSES {
            warm_row = warm(&s, &hashes[..300.min(hashes.len())], CLIENTS);
        }
        let t = Instant::now();
        let used = cpu(&mut || bundle_bytes += read_each_once(&s, &bundles, CLIENTS));
        bundle_secs += t.elapsed().as_secs_f64();
        bundle_cpu = bundle_cpu.zip(used).map(|(a, b)| a + b);
    }
    let n = tiles as usize * COLD_PASSES;
    let each_cpu = |cpu: Option<f64>| {
        cpu.map_or(String::new(), |c| {
            format!("; {:.0} µs of CPU each, client and server together", c * 1e6 / n as f64)
        })
    };
    println!(
        "serve/tiles/full/{CLIENTS}-clients/cold: {n} reads in {tile_secs:.2} s = {:.0} reads/s \
         ({COLD_PASSES} servers started in turn, each reading the {tiles} tiles once: {} \
         reads/s{})",
        n as f64 / tile_secs,
        each.join(", "),
        each_cpu(tile_cpu)
    );
    println!("{warm_row}");
    println!(
        "serve/tiles/entries/{CLIENTS}-clients/cold: {n} reads in {bundle_secs:.2} s = {:.0} \
         reads/s ({:.0} bytes each{})",
        n as f64 / bundle_secs,
        bundle_bytes as f64 / n as f64,
        each_cpu(bundle_cpu)
    );
}

/// 2 seconds of reads of `requests` (each read once before), `clients` keep-alive connections:
/// the row to print.
fn warm(s: &Server, requests: &[Vec<u8>], clients: usize) -> String {
    let reads = std::sync::atomic::AtomicUsize::new(0);
    let cpu0 = cpu_seconds();
    let t = Instant::now();
    std::thread::scope(|sc| {
        for c in 0..clients {
            let reads = &reads;
            sc.spawn(move || {
                let mut conn = Raw::connect(&s.url);
                let mut i = c;
                let mut n = 0;
                while t.elapsed() < Duration::from_secs(2) {
                    let (status, length) = conn.get(&requests[i % requests.len()]);
                    assert_eq!((status, length), (200, 256 * 32));
                    n += 1;
                    i += clients;
                }
                reads.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            });
        }
    });
    let n = reads.into_inner();
    format!(
        "serve/tiles/full/{clients}-clients/warm: {n} reads in {:.2} s = {:.0} reads/s{}",
        t.elapsed().as_secs_f64(),
        n as f64 / t.elapsed().as_secs_f64(),
        cpu_each(cpu0, n)
    )
}

/// Part 5: reads of a large ledger, cold, warm and after one more append.
fn reads(dir: &tempfile::TempDir) {
    let events: usize =
        std::env::var("LADDER_BENCH_EVENTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let mut ledger = joined_ledger(&dir.path().join("big.db"));
    let base = Timestamp::parse(BASE).unwrap().0;
    let t = Instant::now();
    append_dated(&mut ledger, events);
    println!(
        "(built a ledger of {} events in {:.1} s)",
        ledger.head().seq,
        t.elapsed().as_secs_f64()
    );
    let big_dir = tempfile::tempdir().unwrap();
    let s = start(ledger, big_dir.path());
    let a = agent();
    // A match in the middle of the ledger, and one of its players.
    let mid = ledger_mid(events);
    let asks = [
        ("leaderboard", "/api/leaderboard?algo=glicko2&min_games=0&active_within=all&top=20"),
        ("player-page", "/players/p7?algo=glicko2"),
        ("player-api", "/api/players/p7?algo=glicko2"),
        // Elo for the match: Glicko-2's explanation of a match covers its rating period, here
        // a day of this ledger's games (one a second).
        ("event-page", &format!("/events/{mid}?algo=elo") as &str),
        ("explain-api", &format!("/api/events/{mid}/explain?algo=elo")),
    ];
    let read = |name: &str, uri: &str, what: &str| {
        let t = Instant::now();
        let mut r = a.get(&format!("{}{uri}", s.url)).call().unwrap();
        assert_eq!(r.status().as_u16(), 200, "{uri}");
        let body = r.body_mut().with_config().limit(1 << 30).read_to_vec().unwrap();
        let algo = if name.starts_with("event") || name.starts_with("explain") {
            "elo"
        } else {
            "glicko2"
        };
        println!(
            "serve/{name}/{algo}/{events}: {what} {:.2} ms ({} bytes)",
            t.elapsed().as_secs_f64() * 1e3,
            body.len()
        );
    };
    for (name, uri) in asks {
        read(name, uri, "cold (first fold)");
        read(name, uri, "warm");
        read(name, uri, "warm again");
    }
    // Other matches' first views under the same configuration: replayed from the state the
    // server kept of its Elo fold nearest before each (every 15,628 events at a million), not
    // from the first event.
    for (name, uri) in [
        ("event-page", format!("/events/{}?algo=elo", mid + 1000)),
        ("explain-api", format!("/api/events/{}/explain?algo=elo", mid + 2000)),
        ("event-page", format!("/events/{}?algo=elo", PLAYERS + events / 4)),
    ] {
        read(name, &uri, "another event, first view (from a kept state)");
    }
    // One three quarters in, past the states made so far: they are made on to it first.
    let late = format!("/events/{}?algo=elo", PLAYERS + events * 3 / 4);
    read("event-page", &late, "another event past the kept states, first view");
    // One more match, a second after the last (so the board's rating periods and activity
    // rules see the same ladder, not one that paused until today).
    post(&a, &s, result_line(events, Some(Timestamp(base + events as i64 * 1_000_000_000))));
    for (name, uri) in asks {
        read(name, uri, "after one more append");
    }
}

/// The instant of the dated ledgers' first match ([`append_dated`]).
const BASE: &str = "2021-01-01T00:00:00Z";

/// Appends `events` matches (`b0`, `b1`, ...) to `ledger`, one a second from [`BASE`].
fn append_dated(ledger: &mut Ledger, events: usize) {
    let base = Timestamp::parse(BASE).unwrap().0;
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
}

/// The sequence number of a match in the middle of a ledger of [`PLAYERS`] joins and `events`
/// results.
fn ledger_mid(events: usize) -> usize {
    PLAYERS + events / 2
}
