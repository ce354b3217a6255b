//! The pages in a real browser: headless Chromium (Debian's `chromium`, or `LADDER_CHROMIUM`)
//! loads each page from a server on 127.0.0.1. On the event page, "Check it yourself" must say
//! `verified` against the real log, and `failed` when the server alters one hash tile or serves
//! a checkpoint signed by another key. Without the browser the test says so and passes, except
//! under `CI=true`, where it fails (`.ci/run` installs Chromium).

use crate::common::{append, history, key, start, ORIGIN};
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use ladder_log::Ledger;
use ladder_serve::Limits;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the test server does to the log it serves.
#[derive(Clone, Copy, Debug)]
enum Tamper {
    None,
    /// Flips one bit of the first hash of the level-0 tile 1 (leaves 256 to 511).
    Tile,
    /// Serves the checkpoint's text signed by another key, under the log's key name and ID.
    OtherKey,
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("LADDER_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing and CI=true: .ci/run installs Debian's chromium",
        path.display()
    );
    eprintln!("{} is missing: the browser checks did not run", path.display());
    None
}

async fn tamper(mode: Tamper, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let resp = next.run(req).await;
    let (parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 24).await.unwrap();
    let mut bytes = bytes.to_vec();
    match mode {
        Tamper::Tile if path == "/log/tile/0/001" => bytes[0] ^= 1,
        Tamper::OtherKey if path == "/log/checkpoint" => {
            let note = String::from_utf8(bytes).unwrap();
            let (text, _) = ladder_proof::note::split_note(&note).unwrap();
            let other = ladder_proof::note::SignerKey::from_seed(ORIGIN, [7; 32]).unwrap();
            let forged = ladder_proof::note::sign_note(text, &other).unwrap();
            let line = forged.lines().last().unwrap();
            let b64 = base64::engine::general_purpose::STANDARD;
            let mut sig = b64.decode(line.rsplit(' ').next().unwrap()).unwrap();
            sig[..4].copy_from_slice(&key().id().to_be_bytes());
            bytes = format!("{text}\n\u{2014} {ORIGIN} {}\n", b64.encode(sig)).into_bytes();
        }
        _ => {}
    }
    let mut parts = parts;
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    (parts, Body::from(bytes)).into_response()
}

struct Server {
    base: String,
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

fn serve(ledger: Ledger, mode: Tamper) -> Server {
    let f = start(ledger, Limits::default());
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        // The whole fixture, its temporary directory included, lives as long as the server.
        let f = f;
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let app =
            f.service.router().layer(axum::middleware::from_fn(move |req: Request, next: Next| {
                tamper(mode, req, next)
            }));
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
        });
        f.service.stop().unwrap();
    });
    let addr = addr_rx.recv_timeout(Duration::from_secs(30)).unwrap();
    Server { base: format!("http://{addr}"), stop: Some(stop_tx), thread: Some(thread) }
}

/// Runs Chromium on `url` with a fresh profile, at most two minutes; `--dump-dom` prints the
/// page's DOM once the virtual time budget (the check's fetches and hashing) is spent;
/// `--screenshot` writes a PNG at a phone's width instead.
fn chromium_run(chromium: &Path, url: &str, screenshot: Option<&Path>) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--virtual-time-budget=30000",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()));
    match screenshot {
        Some(png) => {
            cmd.arg(format!("--screenshot={}", png.display())).arg("--window-size=390,1400")
        }
        None => cmd.arg("--dump-dom"),
    };
    let out_path = profile.path().join("stdout");
    let out = std::fs::File::create(&out_path).unwrap();
    let mut child = cmd
        .arg(url)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{} does not start: {e}", chromium.display()));
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{} failed on {url}: {status}", chromium.display());
            break;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{} took over two minutes on {url}", chromium.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(&out_path).unwrap()
}

/// The `data-result` of the element `id="check"` in a dumped DOM, and its sentence.
fn check_result(dom: &str) -> (String, String) {
    let at = dom.find("id=\"check\"").unwrap_or_else(|| panic!("no id=\"check\" in {dom}"));
    let start = dom[..at].rfind('<').unwrap();
    let tag = &dom[start..start + dom[start..].find('>').unwrap()];
    let result = tag
        .split("data-result=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_string();
    let says = dom[at..]
        .split("data-say=\"\">")
        .nth(1)
        .and_then(|r| r.split("</p>").next())
        .unwrap_or_default()
        .to_string();
    (result, says)
}

/// 606 events: two full level-0 tiles and a partial one, so the proof of event 300 takes a
/// hash of the level-1 tile and hashes of tile 1.
fn ledger() -> Ledger {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(6, 600));
    ledger
}

#[test]
fn the_check_verifies_the_real_log_and_fails_on_an_altered_tile_or_another_key() {
    let Some(chromium) = chromium() else { return };
    let server = serve(ledger(), Tamper::None);
    let dom = chromium_run(&chromium, &format!("{}/events/300?algo=elo", server.base), None);
    let (result, says) = check_result(&dom);
    assert_eq!(result, "verified", "{says}\n{dom}");
    assert!(says.starts_with("Verified: event 300 is in the log of 606 events"), "{says}");
    assert!(dom.contains("fetched tile/1/000.p/2") && dom.contains("fetched tile/0/001"), "{dom}");
    drop(server);

    let server = serve(ledger(), Tamper::Tile);
    let dom = chromium_run(&chromium, &format!("{}/events/300", server.base), None);
    let (result, says) = check_result(&dom);
    assert_eq!(result, "failed", "{says}\n{dom}");
    assert!(says.contains("not to the signed root"), "{says}");
    // An event whose path needs nothing of the altered tile still verifies.
    let dom = chromium_run(&chromium, &format!("{}/events/600", server.base), None);
    assert_eq!(check_result(&dom).0, "verified", "{dom}");
    drop(server);

    let server = serve(ledger(), Tamper::OtherKey);
    let dom = chromium_run(&chromium, &format!("{}/events/300", server.base), None);
    let (result, says) = check_result(&dom);
    assert_eq!(result, "failed", "{says}\n{dom}");
    assert!(says.contains("signature does not verify with the log's key"), "{says}");
}

#[test]
fn every_page_renders_in_the_browser_at_a_phone_width() {
    let Some(chromium) = chromium() else { return };
    let server = serve(ledger(), Tamper::None);
    let dir = tempfile::tempdir().unwrap();
    for (name, path) in [
        ("leaderboard", "/?algo=elo&min_games=0&active_within=all"),
        ("player", "/players/p1?algo=glicko2"),
        ("event", "/events/300?algo=tgr"),
    ] {
        let url = format!("{}{path}", server.base);
        let dom = chromium_run(&chromium, &url, None);
        assert!(dom.contains("the signed tree of 606 events"), "{name}: {dom}");
        let png = std::env::var_os("LADDER_SCREENSHOTS").map_or_else(
            || dir.path().join(format!("{name}.png")),
            |d| PathBuf::from(d).join(format!("{name}.png")),
        );
        chromium_run(&chromium, &url, Some(&png));
        let bytes = std::fs::read(&png).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "{name}: no PNG");
    }
}
