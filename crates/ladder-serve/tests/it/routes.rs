//! The routes in process: status codes, headers and bodies of contract section 7.

use crate::common::{append, history, start, ORIGIN};
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use ladder_log::Ledger;
use ladder_serve::Limits;
use tower::ServiceExt;

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!("{e}: {}", String::from_utf8_lossy(&self.body));
        })
    }
    fn header(&self, name: header::HeaderName) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
    }
}

async fn call(app: &axum::Router, req: Request<Body>) -> Answer {
    let r = app.clone().oneshot(req).await.unwrap();
    let status = r.status();
    let headers = r.headers().clone();
    let body = axum::body::to_bytes(r.into_body(), 1 << 26).await.unwrap().to_vec();
    Answer { status, headers, body }
}

fn post(path: &str, token: Option<&str>, body: &str) -> Request<Body> {
    let mut b = Request::post(path);
    if let Some(t) = token {
        b = b.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    b.body(Body::from(body.to_string())).unwrap()
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).unwrap()
}

#[tokio::test]
async fn writes_need_a_valid_token_and_no_answer_repeats_a_token() {
    let f = start(Ledger::memory(), Limits::default());
    let app = f.service.router();
    let line = "{\"type\":\"PlayerJoined\",\"player\":\"a\"}";
    let a = call(&app, post("/api/events", None, line)).await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    assert_eq!(a.header(header::WWW_AUTHENTICATE), "Bearer");
    let wrong = "ladder_0000000000000000000000000000000000000000000000000000000000000000";
    let a = call(&app, post("/api/events", Some(wrong), line)).await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED);
    let text = String::from_utf8_lossy(&a.body);
    assert!(!text.contains(wrong) && !text.contains(&f.token), "{text}");
    // A good token's refusal does not echo it either.
    let a = call(&app, post("/api/events", Some(&f.token), "{\"type\":\"Nope\"}")).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    assert!(!String::from_utf8_lossy(&a.body).contains(&f.token));
    f.service.stop().unwrap();
}

#[tokio::test]
async fn appends_answer_counts_duplicates_conflicts_and_refusals_by_line_and_rule() {
    let f = start(Ledger::memory(), Limits::default());
    let app = f.service.router();
    let t = Some(f.token.as_str());
    let m = "{\"type\":\"MatchResult\",\"id\":\"m1\",\"seats\":[{\"player\":\"a\",\"score\":1},{\"player\":\"b\",\"score\":0}]}";
    // Without auto_join the players are unknown: refused, naming line 2 and the rule.
    let a = call(&app, post("/api/events", t, &format!("\n{m}\n"))).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    let v = a.json();
    assert_eq!(v["line"], 2, "{v}");
    assert_eq!(v["rule"], "joined-first", "{v}");
    // With it: two joins and the match, stamped by the server (no `at`).
    let a = call(&app, post("/api/events?auto_join=true", t, m)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!((v["appended"].as_u64(), v["duplicates"].as_u64()), (Some(3), Some(0)), "{v}");
    assert_eq!(
        (v["first"].as_u64(), v["last"].as_u64(), v["size"].as_u64()),
        (Some(1), Some(3), Some(3))
    );
    assert!(v["head"].as_str().unwrap().starts_with("3:"));
    // The retry (same id, same content, no `at`) is a duplicate, not a conflict.
    let a = call(&app, post("/api/events?auto_join=true", t, m)).await;
    assert_eq!(a.status, StatusCode::OK);
    let v = a.json();
    assert_eq!((v["appended"].as_u64(), v["duplicates"].as_u64()), (Some(0), Some(1)), "{v}");
    assert_eq!(v["first"], serde_json::Value::Null);
    // The same id with another result is a conflict.
    let other =
        m.replace("\"score\":1}", "\"score\":0.5}").replace("\"score\":0}", "\"score\":0.5}");
    let a = call(&app, post("/api/events", t, &other)).await;
    assert_eq!(a.status, StatusCode::CONFLICT, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.json()["rule"], "id-conflict");
    // The stored event: its canonical line, stamped at the server's clock.
    let a = call(&app, get("/api/events/3")).await;
    assert_eq!(a.status, StatusCode::OK);
    let v = a.json();
    assert_eq!(v["event"]["id"], "m1");
    assert!(v["line"].as_str().unwrap().contains("\"at\":\"2026-03-01T"), "{v}");
    assert_eq!(call(&app, get("/api/events/4")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(call(&app, get("/api/events/x")).await.status, StatusCode::BAD_REQUEST);
    let last = f.service.stop().unwrap();
    assert_eq!(last.size, 3);
    let written = std::fs::read_to_string(f.dir.path().join("final-checkpoint")).unwrap();
    assert_eq!(written, &*last.note);
    assert!(written.starts_with(&format!("{ORIGIN}\n3\n")));
}

#[tokio::test]
async fn a_body_past_the_limit_is_413_and_an_unknown_route_404() {
    let limits = Limits { body_bytes: 1000, ..Limits::default() };
    let f = start(Ledger::memory(), limits);
    let app = f.service.router();
    let big = "x".repeat(2000);
    let a = call(&app, post("/api/events", Some(&f.token), &big)).await;
    assert_eq!(a.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(a.json()["error"].as_str().unwrap().contains("the limit is 1000 bytes"));
    let a = call(&app, get("/nowhere")).await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    assert!(a.json()["error"].is_string());
    f.service.stop().unwrap();
}

#[tokio::test]
async fn the_log_serves_publish_s_bytes_with_the_contract_s_headers() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(20, 300));
    let size = ledger.head().seq;
    // What `ladder publish` writes for the same ledger, file by file.
    let published = tempfile::tempdir().unwrap();
    ladder_tlog::publish(&ledger, published.path(), ORIGIN, &crate::common::key()).unwrap();
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let a = call(&app, get("/log/checkpoint")).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.header(header::CACHE_CONTROL), "no-store");
    assert_eq!(a.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), "*");
    let published_cp = std::fs::read(published.path().join("checkpoint")).unwrap();
    assert_eq!(a.body, published_cp, "the same key signs the same tree head");
    let mut full = 0;
    for t in ladder_proof::tiles::tiles_of(size) {
        let a = call(&app, get(&format!("/log/{}", t.path()))).await;
        assert_eq!(a.status, StatusCode::OK, "{}", t.path());
        assert_eq!(a.body, std::fs::read(published.path().join(t.path())).unwrap(), "{}", t.path());
        assert_eq!(a.header(header::ACCESS_CONTROL_ALLOW_ORIGIN), "*");
        if t.is_full() {
            full += 1;
            assert_eq!(a.header(header::CACHE_CONTROL), "public, max-age=604800, immutable");
        }
    }
    assert!(full >= 2, "a full hash tile and a full entry bundle");
    // Beyond the tree, and a spelling C2SP does not allow.
    assert_eq!(call(&app, get("/log/tile/0/005")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(call(&app, get("/log/tile/0/1")).await.status, StatusCode::NOT_FOUND);
    // A proof of an event in the checkpoint verifies against the checkpoint's root.
    let a = call(&app, get("/api/events/17/proof")).await;
    assert_eq!(a.status, StatusCode::OK);
    let v = a.json();
    let proof = ladder_proof::Proof::from_json(&v["proof"].to_string()).unwrap();
    proof.check().unwrap();
    let cp = ladder_proof::note::Checkpoint::open(
        v["checkpoint"].as_str().unwrap(),
        &[crate::common::key().verifier()],
    )
    .unwrap();
    assert_eq!(proof.tree_head(), (cp.size, cp.root));
    f.service.stop().unwrap();
}

/// Every tile of a ledger on disk, served while the leaf file holds its full level-0 tiles, is
/// the file `ladder publish` writes for it; so after a restart over a leaf file damaged in every
/// slot (the reads before the filler made the slots again come from the events, those after
/// from the file), and the tree's root is the published checkpoint's.
#[tokio::test]
async fn tiles_from_the_leaf_file_are_publish_s_bytes_even_after_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let mut ledger = Ledger::open(&path).unwrap();
    // 20 joins and 1,100 results: 1,120 events, four full level-0 tiles and part of a fifth.
    append(&mut ledger, &history(20, 1100));
    let size = ledger.head().seq;
    let published = tempfile::tempdir().unwrap();
    ladder_tlog::publish(&ledger, published.path(), ORIGIN, &crate::common::key()).unwrap();
    let published_cp = std::fs::read(published.path().join("checkpoint")).unwrap();
    for round in 0..2 {
        let f = start(ledger, Limits::default());
        let leaves = f.service.shared.leaves();
        assert!(leaves.file().is_kept());
        if round == 1 {
            let t = std::time::Instant::now();
            while leaves.through() < 4 && t.elapsed() < std::time::Duration::from_secs(10) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            assert_eq!(leaves.through(), 4, "the filler made every full tile");
            // The file's tiles and bundles, as the route reads them, are publish's.
            let ledger = f.service.shared.read_ledger();
            for t in 0..4 {
                let path = ladder_proof::tiles::Tile::hashes(0, t, 256).path();
                let want = std::fs::read(published.path().join(path)).unwrap();
                assert_eq!(leaves.file().tile(&ledger, t).unwrap(), Some(want));
                let path = ladder_proof::tiles::Tile::entries(t, 256).path();
                let want = std::fs::read(published.path().join(path)).unwrap();
                assert_eq!(leaves.file().bundle(&ledger, t).unwrap(), Some(want));
            }
        }
        let app = f.service.router();
        assert_eq!(call(&app, get("/log/checkpoint")).await.body, published_cp, "round {round}");
        for t in ladder_proof::tiles::tiles_of(size) {
            let a = call(&app, get(&format!("/log/{}", t.path()))).await;
            assert_eq!(a.status, StatusCode::OK, "{}", t.path());
            let want = std::fs::read(published.path().join(t.path())).unwrap();
            assert_eq!(a.body, want, "round {round}: {}", t.path());
        }
        drop(app);
        f.service.stop().unwrap();
        // The service is gone: its ledger can be opened again once sled lets go.
        let leaf_file = path.join(ladder_log::LEAVES_FILE);
        let mut bytes = std::fs::read(&leaf_file).unwrap();
        assert_eq!(bytes.len(), 8 + 4 * (8192 + 48), "four full tiles kept");
        for t in 0..4 {
            bytes[8 + t * (8192 + 48) + 77] ^= 0x40;
        }
        std::fs::write(&leaf_file, bytes).unwrap();
        let entries_file = path.join(ladder_log::ENTRIES_FILE);
        let mut bytes = std::fs::read(&entries_file).unwrap();
        bytes[8 + 32 + 1000] ^= 0x40;
        std::fs::write(&entries_file, bytes).unwrap();
        ledger = reopen(&path);
    }
}

/// Tiles the filler writes from the leaves the sequencer hands it are `publish`'s bytes: a
/// ledger of 100 events (tile 0 begun before the server started), then 900 more appended
/// through the server in requests of 7 to 193 events, so tiles 1 to 3 are written from handed
/// leaves and tile 0 from the events.
#[tokio::test]
async fn tiles_written_from_the_appends_leaves_are_publish_s_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger");
    let mut ledger = Ledger::open(&path).unwrap();
    let text = history(20, 980);
    let lines: Vec<&str> = text.lines().collect();
    append(&mut ledger, &lines[..100].join("\n"));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let mut at = 100;
    for size in [7, 193, 150, 250, 100, 200].into_iter().cycle() {
        if at >= 1000 {
            break;
        }
        let body = lines[at..(at + size).min(1000)].join("\n");
        let a = call(&app, post("/api/events", Some(&f.token), &body)).await;
        assert_eq!(a.status, StatusCode::OK, "{}", String::from_utf8_lossy(&a.body));
        at += size;
    }
    let leaves = f.service.shared.leaves();
    let t = std::time::Instant::now();
    while leaves.through() < 3 && t.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(leaves.through(), 3, "the filler made every full tile");
    assert_eq!(
        leaves.tiles_put(),
        2,
        "tiles 1 and 2 from the handed leaves, tile 0 from the events"
    );
    let published = tempfile::tempdir().unwrap();
    {
        let ledger = f.service.shared.read_ledger();
        assert_eq!(ledger.head().seq, 1000);
        ladder_tlog::publish(&ledger, published.path(), ORIGIN, &crate::common::key()).unwrap();
        for t in 0..3 {
            let path = ladder_proof::tiles::Tile::hashes(0, t, 256).path();
            let want = std::fs::read(published.path().join(path)).unwrap();
            assert_eq!(leaves.file().tile(&ledger, t).unwrap(), Some(want), "tile {t}");
            let path = ladder_proof::tiles::Tile::entries(t, 256).path();
            let want = std::fs::read(published.path().join(path)).unwrap();
            assert_eq!(leaves.file().bundle(&ledger, t).unwrap(), Some(want), "bundle {t}");
        }
    }
    drop(app);
    f.service.stop().unwrap();
}

/// Opens the ledger at `path`, retrying while the last instance's threads still hold it.
fn reopen(path: &std::path::Path) -> Ledger {
    let t = std::time::Instant::now();
    loop {
        match Ledger::open(path) {
            Ok(l) => return l,
            Err(e) if t.elapsed() > std::time::Duration::from_secs(10) => panic!("{e}"),
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
}

#[tokio::test]
async fn the_leaderboard_is_the_cli_object_and_refuses_bad_parameters_by_name() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(6, 60));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let a = call(&app, get("/api/leaderboard?algo=elo&set=k=24&min_games=0&top=3")).await;
    assert_eq!(a.status, StatusCode::OK, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(v["algorithm"], "elo");
    assert_eq!(v["config"]["k"], 24.0);
    assert_eq!(v["through"], 66);
    assert_eq!(v["ranked"].as_array().unwrap().len(), 3);
    assert_eq!(v["left_out"]["below_top"], 3);
    for (q, what) in [
        ("algo=nope", "unknown algorithm"),
        ("algo=elo&set=zz=1", "zz"),
        ("algo=elo&top=x", "top"),
        ("algo=elo&active_within=9y", "active_within"),
        ("algo=elo&colour=red", "colour"),
        ("", "algo is missing"),
    ] {
        let a = call(&app, get(&format!("/api/leaderboard?{q}"))).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{q}");
        let e = a.json()["error"].as_str().unwrap().to_string();
        assert!(e.contains(what), "{q}: {e}");
    }
    f.service.stop().unwrap();
}

#[tokio::test]
async fn past_the_requests_at_once_the_service_answers_503_with_retry_after() {
    let f = start(Ledger::memory(), Limits { in_flight: 1, ..Limits::default() });
    let app = f.service.router();
    // This request waits for a checkpoint that nothing signs here (no ticker runs in process),
    // so it holds the one slot.
    let m = "{\"type\":\"PlayerJoined\",\"player\":\"a\"}";
    let held = tokio::spawn({
        let app = app.clone();
        let req = post("/api/events?wait=checkpoint", Some(&f.token), m);
        async move { app.oneshot(req).await }
    });
    let mut shed = None;
    for _ in 0..200 {
        let a = call(&app, get("/log/checkpoint")).await;
        if a.status == StatusCode::SERVICE_UNAVAILABLE {
            shed = Some(a);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let a = shed.expect("the second request is shed while the first holds the slot");
    assert_eq!(a.header(header::RETRY_AFTER), "1");
    assert!(a.json()["error"].as_str().unwrap().contains("Retry-After"));
    held.abort();
    f.service.stop().unwrap();
}

#[tokio::test]
async fn a_player_s_history_ends_at_their_standing_and_its_changes_add_up() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(6, 60));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let a = call(&app, get("/api/players/p2?algo=glicko2")).await;
    assert_eq!(a.status, StatusCode::OK, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    let h = v["history"].as_array().unwrap();
    assert_eq!(h[0]["type"], "PlayerJoined");
    let games = h.iter().filter(|e| e["type"] == "MatchResult").count() as u64;
    assert_eq!(v["standing"]["games"].as_u64(), Some(games));
    // Glicko-2 rates in periods, so the last event's rating is the period's result only when
    // the period closed; the standing is the settled one. The changes add up to the last
    // rating minus the first, whatever the algorithm.
    let first = h[0]["rating"].as_f64().unwrap();
    let last = h[h.len() - 1]["rating"].as_f64().unwrap();
    let sum: f64 = h.iter().filter_map(|e| e["change"].as_f64()).sum();
    assert!((first + sum - last).abs() < 1e-6);
    let a = call(&app, get("/api/players/p2?algo=elo")).await;
    let v = a.json();
    let h = v["history"].as_array().unwrap();
    assert_eq!(h[h.len() - 1]["rating"], v["standing"]["rating"], "Elo rates each game at once");
    assert_eq!(call(&app, get("/api/players/nobody?algo=elo")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(call(&app, get("/api/players/p2")).await.status, StatusCode::BAD_REQUEST);
    f.service.stop().unwrap();
}

/// `until` folds through a sequence number or an instant, as `--until` does: the answer equals
/// the leaderboard of a ledger holding only the events through that point, whatever is appended
/// after, and a bad value is refused naming `until`.
#[tokio::test]
async fn the_leaderboard_until_a_seq_or_an_instant_is_the_prefix_s_leaderboard() {
    let all = history(6, 60);
    let lines: Vec<&str> = all.lines().collect();
    let mut ledger = Ledger::memory();
    append(&mut ledger, &all);
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let prefix = |n: usize| {
        let mut l = Ledger::memory();
        append(&mut l, &lines[..n].join("\n"));
        let config = ladder_replay::registry::config("elo", &[]).unwrap();
        let w = ladder_serve::warm::fresh(&config, &l).unwrap();
        let rules = ladder_replay::BoardRules { min_games: 0, ..Default::default() };
        ladder_serve::reads::leaderboard_json(&w, &rules, ladder_replay::DEFAULT_ACTIVE_WITHIN)
    };
    // Results are one second apart from 2026-01-02T00:00:00Z, after the 6 joins: the result at
    // second 19 is event 6 + 20 = 26.
    for (q, n) in
        [("26", 26), ("2026-01-02T00:00:19Z", 26), ("2026-01-02T00:00:19.5Z", 26), ("3", 3)]
    {
        for round in 0..2 {
            let a =
                call(&app, get(&format!("/api/leaderboard?algo=elo&min_games=0&until={q}"))).await;
            assert_eq!(a.status, StatusCode::OK, "{q}: {}", String::from_utf8_lossy(&a.body));
            assert_eq!(a.json(), prefix(n), "until={q}, round {round}");
            // Appended after: the answer through a fixed point stays the same.
            let m = format!(
                "{{\"type\":\"MatchResult\",\"id\":\"late-{q}-{round}\",\"seats\":[{{\"player\":\"p0\",\"score\":1}},{{\"player\":\"p1\",\"score\":0}}]}}"
            );
            assert_eq!(
                call(&app, post("/api/events", Some(&f.token), &m)).await.status,
                StatusCode::OK
            );
        }
    }
    // Past the head, or before the first event.
    let a = call(&app, get("/api/leaderboard?algo=elo&until=999999")).await.json();
    assert_eq!(a["through"], 66 + 8);
    let a = call(&app, get("/api/leaderboard?algo=elo&until=2020-01-01")).await.json();
    assert_eq!(a["through"], 0);
    for q in ["until=x", "until=-1", "until=2026-13-01"] {
        let a = call(&app, get(&format!("/api/leaderboard?algo=elo&{q}"))).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{q}");
        assert!(a.json()["error"].as_str().unwrap().contains("until"), "{q}");
    }
    f.service.stop().unwrap();
}

/// A player's history gives their rank after each event as `ladder history` does: for the two
/// players of the log's last event, the rank after it is their place on today's leaderboard at
/// its default rules (nothing happened since); every rank is a place among the six.
#[tokio::test]
async fn a_player_s_history_ranks_each_event_and_ends_at_the_leaderboard_s_rank() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(6, 60));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let board = call(&app, get("/api/leaderboard?algo=elo")).await.json();
    let ranked = board["ranked"].as_array().unwrap();
    // The last result (r = 59) seats p5 and p0 (`history`'s pairing).
    for name in ["p5", "p0"] {
        let v = call(&app, get(&format!("/api/players/{name}?algo=elo"))).await.json();
        let h = v["history"].as_array().unwrap();
        let last = &h[h.len() - 1];
        assert_eq!(last["seq"], 66, "{name}");
        let row = ranked.iter().find(|r| r["player"] == name).expect("ranked");
        assert_eq!(last["rank"], row["rank"], "{name}");
        assert!(h
            .iter()
            .all(|e| e["rank"].is_null() || (1..=6).contains(&e["rank"].as_u64().unwrap())));
        assert!(h.iter().any(|e| !e["rank"].is_null()));
    }
    f.service.stop().unwrap();
}

/// Reads never wait for a commit: with the sequencer paused in the middle of a commit (its
/// group checked and written beyond the head, not yet flushed), the warm leaderboard, the
/// checkpoint and reads that take the ledger (an event, a proof) answer, and none sees the
/// event being committed; the append is answered only after the commit goes on, and a
/// leaderboard read after its answer holds its event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_read_answers_while_a_commit_holds_the_ledger() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(6, 60));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let board = "/api/leaderboard?algo=elo&min_games=0";
    assert_eq!(call(&app, get(board)).await.json()["through"], 66);
    let hold = f.service.shared.hold_next_commit();
    let m = "{\"type\":\"MatchResult\",\"id\":\"held\",\"seats\":[{\"player\":\"p0\",\"score\":1},{\"player\":\"p1\",\"score\":0}]}";
    let posted = tokio::spawn({
        let app = app.clone();
        let req = post("/api/events", Some(&f.token), m);
        async move { call(&app, req).await }
    });
    let entered = tokio::task::spawn_blocking({
        let wait = std::time::Duration::from_secs(60);
        move || (hold.entered(wait), hold)
    });
    let (entered, hold) = entered.await.unwrap();
    assert!(entered, "the sequencer reached the pause");
    // The commit is paused between its stage and its flush: these reads answer all the same
    // (bounded wait, so a read that waited for the commit fails the test instead of hanging it).
    let limit = std::time::Duration::from_secs(60);
    let a = tokio::time::timeout(limit, call(&app, get(board))).await.expect("the read answers");
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.json()["through"], 66, "the event in the paused commit is not durable yet");
    let c = tokio::time::timeout(limit, call(&app, get("/log/checkpoint"))).await.unwrap();
    assert_eq!(c.status, StatusCode::OK);
    let e = tokio::time::timeout(limit, call(&app, get("/api/events/66"))).await.unwrap();
    assert_eq!(e.status, StatusCode::OK, "a read that takes the ledger answers");
    let staged = tokio::time::timeout(limit, call(&app, get("/api/events/67"))).await.unwrap();
    assert_eq!(staged.status, StatusCode::NOT_FOUND, "the staged event is not shown");
    let p = tokio::time::timeout(limit, call(&app, get("/api/events/3/proof"))).await.unwrap();
    assert_eq!(p.status, StatusCode::OK);
    assert!(
        f.service.shared.try_read_ledger().is_some(),
        "the commit in flight does not hold the ledger against reads"
    );
    assert!(!posted.is_finished(), "the append is not answered before it is durable");
    hold.release();
    let p = tokio::time::timeout(limit, posted).await.unwrap().unwrap();
    assert_eq!(p.status, StatusCode::OK, "{}", String::from_utf8_lossy(&p.body));
    assert_eq!(p.json()["last"], 67);
    assert_eq!(call(&app, get(board)).await.json()["through"], 67);
    f.service.stop().unwrap();
}

/// Requests committed in one group are each told their own sequence numbers: while a commit is
/// paused, nineteen requests (one of them a request of three) wait on the queue and are then
/// committed as one group; each answer's `first..=last` holds exactly its events. Twice: with every event
/// new (the answers follow from the counts), and with one request a retry of the paused one
/// (stamped by the server, sent again without `at`: a duplicate, and the answers are read back).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_committed_in_one_group_each_get_their_own_sequence_numbers() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(6, 10));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let line = |id: &str| {
        format!("{{\"type\":\"MatchResult\",\"id\":\"{id}\",\"seats\":[{{\"player\":\"p0\",\"score\":1}},{{\"player\":\"p1\",\"score\":0}}]}}")
    };
    let mut size = 16;
    for (round, with_retry) in [(0, false), (1, true)] {
        let paused = format!("{round}-g0");
        let hold = f.service.shared.hold_next_commit();
        let first = tokio::spawn({
            let (app, req) = (app.clone(), post("/api/events", Some(&f.token), &line(&paused)));
            async move { call(&app, req).await }
        });
        let (entered, hold) = tokio::task::spawn_blocking(move || {
            (hold.entered(std::time::Duration::from_secs(60)), hold)
        })
        .await
        .unwrap();
        assert!(entered);
        let mut bodies: Vec<Vec<String>> = (1..20).map(|i| vec![format!("{round}-g{i}")]).collect();
        bodies[5] = vec![format!("{round}-h5"), format!("{round}-h5b"), format!("{round}-h5c")];
        if with_retry {
            bodies[9] = vec![paused.clone()];
        }
        let mut asked = Vec::new();
        for ids in &bodies {
            let body: Vec<String> = ids.iter().map(|id| line(id)).collect();
            let req = post("/api/events", Some(&f.token), &body.join("\n"));
            let app = app.clone();
            asked.push(tokio::spawn(async move { call(&app, req).await }));
        }
        // Once all wait on the queue (bounded), the paused commit goes on: the sequencer then
        // takes every request waiting into one group.
        for _ in 0..6000 {
            if f.service.shared.waiting() == bodies.len() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(f.service.shared.waiting(), bodies.len());
        hold.release();
        size += 1;
        assert_eq!(first.await.unwrap().json()["first"], size);
        let mut sizes = std::collections::BTreeSet::new();
        for (ids, a) in bodies.iter().zip(asked) {
            let v = a.await.unwrap().json();
            sizes.insert(v["size"].as_u64().unwrap_or_else(|| panic!("{ids:?}: {v}")));
            if ids.len() == 1 && ids[0] == paused {
                assert_eq!((v["appended"].as_u64(), v["duplicates"].as_u64()), (Some(0), Some(1)));
                assert!(v["first"].is_null());
                continue;
            }
            size += ids.len() as u64;
            assert_eq!(v["appended"].as_u64(), Some(ids.len() as u64), "{ids:?}: {v}");
            let (lo, hi) = (v["first"].as_u64().unwrap(), v["last"].as_u64().unwrap());
            let mut stored = Vec::new();
            for seq in lo..=hi {
                let e = call(&app, get(&format!("/api/events/{seq}"))).await.json();
                stored.push(e["event"]["id"].as_str().unwrap().to_string());
            }
            assert_eq!(&stored, ids);
        }
        assert_eq!(sizes.into_iter().collect::<Vec<_>>(), vec![size], "one group, round {round}");
    }
    f.service.stop().unwrap();
}

#[tokio::test]
async fn explain_answers_the_object_ladder_explain_prints_and_names_what_it_refuses() {
    // Two ledgers of the same lines: one served, one explained here by the function `ladder
    // explain --format json` prints from.
    let lines = history(5, 40);
    let mut served = Ledger::memory();
    append(&mut served, &lines);
    let mut mine = Ledger::memory();
    append(&mut mine, &lines);
    let f = start(served, Limits::default());
    let app = f.service.router();
    let config = ladder_replay::registry::configure("elo", &["k=20"]).unwrap();
    let vs = ladder_explain::vs_config(&config, "k=40").unwrap();
    let request = ladder_explain::Request { config, seq: 6, player: None, vs: vec![vs] };
    let expected = ladder_explain::explain(&mine, &request).unwrap().to_json();
    let a = call(&app, get("/api/events/6/explain?algo=elo&set=k%3D20&vs=k%3D40")).await;
    assert_eq!(a.status, StatusCode::OK, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.json(), expected);
    // Elo by hand, k = 20, both at 1500: E = 0.5, so event 6's winner p1 gains 20 x (1 - 0.5) = 10.
    let p1 = a.json()["explained"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"] == "p1")
        .cloned()
        .unwrap();
    assert_eq!(p1["change"], 10.0);
    for (path, status, says) in [
        ("/api/events/6/explain?algo=nope", StatusCode::BAD_REQUEST, "unknown algorithm"),
        ("/api/events/6/explain?algo=elo&set=q%3D1", StatusCode::BAD_REQUEST, "no constant `q`"),
        ("/api/events/6/explain", StatusCode::BAD_REQUEST, "algo is missing"),
        ("/api/events/6/explain?algo=elo&vs=k%3D-1", StatusCode::BAD_REQUEST, "vs=\\\"k=-1\\\""),
        ("/api/events/6/explain?algo=elo&player=nobody", StatusCode::BAD_REQUEST, "nobody"),
        ("/api/events/6/explain?algo=elo&x=1", StatusCode::BAD_REQUEST, "unknown parameter"),
        ("/api/events/999/explain?algo=elo", StatusCode::NOT_FOUND, "no event 999"),
        ("/api/events/x/explain?algo=elo", StatusCode::BAD_REQUEST, "not a sequence number"),
    ] {
        let a = call(&app, get(path)).await;
        let body = String::from_utf8_lossy(&a.body).to_string();
        assert_eq!(a.status, status, "{path}: {body}");
        assert!(body.contains(says), "{path}: {says} missing from {body}");
    }
    f.service.stop().unwrap();
}

/// One standing per player (the fields `ladder replay --format json` gives a player, from
/// `Standing::fields`) in every read that shows one, for every registered algorithm: the
/// player's standing, each line of their history and their leaderboard row carry the same
/// fields (Weng-Lin's and TTT's `sigma`, Glicko-2's `volatility`, TGR's `provisional` and
/// `glixare`, no `rd` where the algorithm keeps none).
#[tokio::test]
async fn every_read_shows_the_algorithms_own_standing_fields() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(4, 24));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    // An object's keys but `skip`, as a sorted set.
    let keys = |v: &serde_json::Value, skip: &[&str]| -> std::collections::BTreeSet<String> {
        let object = v.as_object().unwrap_or_else(|| panic!("not an object: {v}"));
        object.keys().filter(|k| !skip.contains(&k.as_str())).cloned().collect()
    };
    let mut sigmas = 0;
    for algo in ladder_replay::registry::ALGORITHMS {
        let p = call(&app, get(&format!("/api/players/p1?algo={algo}"))).await;
        assert_eq!(p.status, StatusCode::OK, "{algo}: {}", String::from_utf8_lossy(&p.body));
        let p = p.json();
        let fields = keys(&p["standing"], &["player"]);
        assert!(fields.contains("rating"), "{algo}: {p}");
        assert!(fields.contains("games"), "{algo}: {p}");
        if fields.contains("sigma") {
            sigmas += 1;
        }
        let own = ["seq", "at", "type", "opponents", "score", "what", "rank", "change"];
        let lines = p["history"].as_array().unwrap_or_else(|| panic!("{algo}: {p}"));
        assert!(!lines.is_empty(), "{algo}: {p}");
        for line in lines.iter().filter(|l| l["type"] == "MatchResult") {
            assert_eq!(keys(line, &own), fields, "{algo}: history {line}");
        }
        // The leaderboard row, with the provisional bar lifted where the algorithm has one.
        let lift = if p["config"].get("provisional_rd").is_some() {
            "&set=provisional_rd%3D100000"
        } else {
            ""
        };
        let board = call(
            &app,
            get(&format!("/api/leaderboard?algo={algo}&min_games=0&active_within=all{lift}")),
        )
        .await;
        assert_eq!(
            board.status,
            StatusCode::OK,
            "{algo}: {}",
            String::from_utf8_lossy(&board.body)
        );
        let board = board.json();
        let row = board["ranked"]
            .as_array()
            .and_then(|r| r.iter().find(|x| x["player"] == "p1"))
            .unwrap_or_else(|| panic!("{algo}: p1 not ranked in {board}"));
        assert_eq!(keys(row, &["rank", "player", "last_played"]), fields, "{algo}: {row}");
    }
    // Weng-Lin and TTT keep a sigma.
    assert_eq!(sigmas, 2);
    f.service.stop().unwrap();
}

/// A request of 1,500 events (a group staged with a block-inserting thread of its own,
/// `Ledger::stage_checked`) stores what the same events appended directly store; sent again it
/// is all duplicates; one whose line 1,201 breaks a rule of the history is refused naming that
/// line, and nothing of it is stored.
#[tokio::test]
async fn a_large_request_is_stored_as_a_direct_append_stores_it_or_refused_by_its_line() {
    let joins = history(6, 0);
    let results = history(6, 1500);
    let results: Vec<&str> = results.lines().skip(6).collect();
    let mut direct = Ledger::memory();
    append(&mut direct, &joins);
    let mut ledger = Ledger::memory();
    append(&mut ledger, &joins);
    append(&mut direct, &results.join("\n"));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let body = results.join("\n");
    let a = call(&app, post("/api/events", Some(&f.token), &body)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", String::from_utf8_lossy(&a.body));
    let v = a.json();
    assert_eq!(
        (v["appended"].as_u64(), v["first"].as_u64(), v["last"].as_u64()),
        (Some(1500), Some(7), Some(1506))
    );
    assert_eq!(v["head"].as_str(), Some(direct.head().to_string().as_str()));
    let a = call(&app, post("/api/events", Some(&f.token), &body)).await.json();
    assert_eq!((a["appended"].as_u64(), a["duplicates"].as_u64()), (Some(0), Some(1500)));
    // New ids a day later, and at line 1,201 an instant before the head: out of time order.
    let day = ladder_events::Timestamp::parse("2026-01-03T00:00:00Z").unwrap().0;
    let late: Vec<String> = results
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut l = l.replace("\"id\":\"r", "\"id\":\"s");
            let start = l.find("\"at\":\"").unwrap() + 6;
            let end = start + l[start..].find('"').unwrap();
            let at = if i == 1200 { 0 } else { day + i as i64 * 1_000_000_000 };
            l.replace_range(start..end, &ladder_events::Timestamp(at).to_string());
            l
        })
        .collect();
    let a = call(&app, post("/api/events", Some(&f.token), &late.join("\n"))).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.json()["line"], 1201, "{}", String::from_utf8_lossy(&a.body));
    let head = f.service.shared.read_ledger().head();
    assert_eq!(head, direct.head(), "nothing of the refused request was stored");
}

/// Requests of 1,100 events each sent at once are committed in groups, each group staged while
/// the one before it syncs (`Limits::pipeline_events` set to 1,024; off by default): every request is answered with its
/// own run of sequence numbers, the runs tile the log after the joins, each run holds that
/// request's events in order, and the ledger verifies. Lines without `at` are stamped by the
/// sequencer, so any order of the requests is a valid history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_large_requests_each_get_their_own_run_of_sequence_numbers() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(6, 0));
    let f = start(
        ledger,
        Limits { pipeline_events: ladder_serve::sequencer::BULK_EVENTS, ..Limits::default() },
    );
    let app = f.service.router();
    let (requests, size) = (8usize, 1100usize);
    let body = |r: usize| {
        (0..size)
            .map(|i| {
                format!(
                    "{{\"type\":\"MatchResult\",\"id\":\"q{r}-{i}\",\"seats\":[{{\"player\":\"p{}\",\"score\":1}},{{\"player\":\"p{}\",\"score\":0}}]}}",
                    i % 6,
                    (i + 1 + r % 5) % 6
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut tasks = Vec::new();
    for r in 0..requests {
        let (app, token, body) = (app.clone(), f.token.clone(), body(r));
        tasks.push(tokio::spawn(async move {
            call(&app, post("/api/events", Some(&token), &body)).await
        }));
    }
    let mut runs = Vec::new();
    for (r, t) in tasks.into_iter().enumerate() {
        let a = t.await.unwrap();
        assert_eq!(a.status, StatusCode::OK, "{}", String::from_utf8_lossy(&a.body));
        let v = a.json();
        assert_eq!(v["appended"].as_u64(), Some(size as u64));
        runs.push((v["first"].as_u64().unwrap(), v["last"].as_u64().unwrap(), r));
    }
    runs.sort();
    let mut next = 7;
    let ledger = f.service.shared.read_ledger();
    for &(first, last, r) in &runs {
        assert_eq!((first, last), (next, next + size as u64 - 1), "the runs tile the log");
        for (i, seq) in (first..=last).enumerate() {
            let e = ledger.get(seq).unwrap().unwrap().event;
            assert_eq!(e.id.as_deref(), Some(format!("q{r}-{i}").as_str()));
        }
        next = last + 1;
    }
    assert_eq!(ledger.head().seq, 6 + (requests * size) as u64);
    assert_eq!(ledger.verify(None).unwrap(), ledger.head());
    // The requests arrive one by one (each is parsed first), so the first group is committed
    // while later requests are staged on top of it.
    assert!(f.service.shared.pipelined() > 0, "no group was staged while another synced");
    drop(ledger);
    drop(app);
    f.service.stop().unwrap();
}
