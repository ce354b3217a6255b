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
    // Elo by hand, k = 20, both at 1500: E = 0.5, so event 6's winner p1 gains 20 (1 - 0.5).
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
