//! The pages in process, without JavaScript: status, content type, what they show, and the tree
//! they name. The browser's view, and the check, are in `browser.rs`.

use crate::common::{append, history, start, start_with_clock};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use ladder_log::Ledger;
use ladder_serve::Limits;
use tower::ServiceExt;

async fn page(app: &axum::Router, uri: &str) -> (StatusCode, String, String) {
    let r = app.clone().oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
    let status = r.status();
    let ct = r.headers()["content-type"].to_str().unwrap().to_string();
    let body = axum::body::to_bytes(r.into_body(), 1 << 24).await.unwrap();
    (status, ct, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test]
async fn the_leaderboard_and_event_pages_show_their_data_and_the_signed_tree() {
    let mut ledger = Ledger::memory();
    append(&mut ledger, &history(5, 40));
    // A name that must be escaped, not interpreted.
    append(
        &mut ledger,
        "{\"type\":\"PlayerJoined\",\"at\":\"2026-01-03T00:00:00Z\",\"player\":\"<b>x</b>\"}",
    );
    let size = ledger.head().seq;
    let root = ladder_proof::hex(&ledger.root().unwrap());
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    let (status, ct, html) =
        page(&app, "/?algo=elo&set=k%3D24%2C+initial_rating%3D1400&min_games=0&active_within=all")
            .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert_eq!(ct, "text/html; charset=utf-8");
    for want in [
        "<option value=\"elo\" selected>elo</option>",
        "value=\"k=24, initial_rating=1400\"",
        "&quot;k&quot;:24.0",
        ">p0</a></td>",
        "href=\"/players/%3Cb%3Ex%3C%2Fb%3E?algo=elo&amp;set=k%3D24%2C%20initial_rating%3D1400\"",
        &format!("the signed tree of {size} events"),
        &root,
    ] {
        assert!(html.contains(want), "{want} missing from {html}");
    }
    assert!(!html.contains("<b>x</b>"));
    let (status, _, html) = page(&app, "/events/7").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Event 7") && html.contains("&quot;id&quot;:&quot;r1&quot;"), "{html}");
    assert!(html.contains("at leaf index 6,"), "{html}");
    let (status, _, html) = page(&app, "/?algo=nope").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("unknown algorithm"), "{html}");
    assert_eq!(page(&app, "/events/999").await.0, StatusCode::NOT_FOUND);
    f.service.stop().unwrap();
}

#[tokio::test]
async fn the_player_and_match_pages_show_each_change_and_its_arithmetic() {
    let mut ledger = Ledger::memory();
    // Events 1-5 join p0..p4; event 6 is p1's win over p0 (history's first result).
    append(&mut ledger, &history(5, 40));
    let f = start(ledger, Limits::default());
    let app = f.service.router();
    // Elo by hand, k = 20, both at 1500: E = 1 / (1 + 10^0) = 0.5, so the winner gains
    // 20 (1 - 0.5) = +10 and the loser loses 10.
    let (status, _, html) = page(&app, "/events/6?algo=elo&set=k%3D20").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    for want in [
        "<a href=\"/players/p1?algo=elo&amp;set=k%3D20\">p1</a>",
        "1510.0",
        "1490.0",
        "<span class=\"up\">+10.0</span>",
        "<span class=\"down\">-10.0</span>",
        "<code>E</code></td><td class=\"n\">0.500000</td>",
        "id=\"check\"",
        "data-vkey=\"test.example/ladder+",
        "Needs JavaScript",
        "the signed tree of 45 events",
    ] {
        assert!(html.contains(want), "{want} missing from {html}");
    }
    let (status, _, html) = page(&app, "/players/p1?algo=elo&set=k%3D20").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    for want in [
        "<svg",
        "p1 under elo",
        "<a href=\"/events/6?algo=elo&amp;set=k%3D20\">6</a>",
        "<span class=\"up\">+10.0</span>",
        "the signed tree of 45 events",
    ] {
        assert!(html.contains(want), "{want} missing from {html}");
    }
    let (status, _, html) = page(&app, "/players/nobody").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("the log names no player &quot;nobody&quot;"), "{html}");
    let (status, _, html) = page(&app, "/players/p1?algo=elo&set=q%3D1").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert_eq!(page(&app, "/events/0").await.0, StatusCode::BAD_REQUEST);
    let r = app
        .clone()
        .oneshot(Request::get("/assets/check.js").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "text/javascript; charset=utf-8");
    f.service.stop().unwrap();
}

#[tokio::test]
async fn the_match_page_renders_the_explanation_with_this_games_effect_and_the_periods_apart() {
    // Glickman's example: three games of `player` in one day's period (period=1d); event 6 is the
    // second. The page renders ladder-explain's value, the one `ladder explain` prints.
    let lines = include_str!("../../../../fixtures/glickman.jsonl");
    let mut served = Ledger::memory();
    append(&mut served, lines);
    let mut mine = Ledger::memory();
    append(&mut mine, lines);
    let f = start(served, Limits::default());
    let app = f.service.router();
    let (status, _, html) = page(&app, "/events/6?algo=glicko2&set=period%3D1d").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let config = ladder_replay::registry::configure("glicko2", &["period=1d"]).unwrap();
    let request = ladder_explain::Request { config, seq: 6, player: None, vs: Vec::new() };
    let x = ladder_explain::explain(&mine, &request).unwrap();
    let period = x.period.as_ref().expect("a match rated in a period");
    assert!(html.contains(&format!("Rating period {}", period.index)), "{html}");
    assert!(html.contains("<strong>This game</strong>: this game's effect"), "{html}");
    assert!(html.contains("<strong>Whole period</strong>: the whole period's change"), "{html}");
    assert_eq!(period.changes.len(), 2, "both seats");
    for c in &period.changes {
        for cell in [c.with, c.start, c.end] {
            assert!(html.contains(&format!("<td class=\"n\">{cell:.1}</td>")), "{cell} in {html}");
        }
    }
    // The period's arithmetic, each quantity as the explanation holds it.
    let r_new = period.steps.iter().find_map(|s| match s {
        ladder_explain::Step::Quantity { player: Some(p), name, value, .. }
            if p == "player" && name == "r'" =>
        {
            Some(*value)
        }
        _ => None,
    });
    let r_new = r_new.expect("r' of player");
    assert!(html.contains(&format!("{r_new:.6}")), "{html}");
    f.service.stop().unwrap();
}

/// Every player's page and `GET /api/players/NAME` of a server that kept their histories warm
/// while the fixtures' events were posted in pieces (a void of a counted match among them) are
/// byte for byte those of a server started on the whole ledger (which folds each from the first
/// event), under every algorithm but TrueSkill Through Time; so are the leaderboard, and every
/// event's page and explain under Elo and Glicko-2 (kept once explained, their proofs made
/// again at each head). (A warm TTT fold extends its converged estimate instead of
/// converging the whole history again: equal to a full one to 1e-6, not bit for bit, which
/// `warm::a_warm_ttt_fold_after_appends_equals_a_full_replay_to_1e_6` shows.)
#[tokio::test]
async fn warm_pages_equal_a_fresh_server_s_byte_for_byte() {
    let mut compared = 0;
    for fixture in ["club.jsonl", "teams.jsonl"] {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(fixture),
        )
        .unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        let mut names: Vec<String> = lines
            .iter()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["player"].as_str().map(str::to_string))
            .collect();
        names.sort();
        names.dedup();
        let algos = ["elo", "glicko", "glicko2", "tgr", "zonestats", "weng-lin"];
        let uris = |head: u64| {
            let mut uris = Vec::new();
            for algo in algos {
                for n in &names {
                    let n = ladder_serve::pages::url_component(n);
                    uris.push(format!("/players/{n}?algo={algo}"));
                    uris.push(format!("/api/players/{n}?algo={algo}"));
                }
                uris.push(format!("/?algo={algo}"));
                uris.push(format!("/api/leaderboard?algo={algo}"));
                // The matches under an algorithm of each kind: per game, and in rating periods.
                for seq in (1..=head).filter(|_| ["elo", "glicko2"].contains(&algo)) {
                    uris.push(format!("/events/{seq}?algo={algo}"));
                    uris.push(format!("/api/events/{seq}/explain?algo={algo}"));
                }
            }
            uris
        };
        // The warm server: half the events to start with, the rest posted in pieces, every read
        // made after each piece.
        let half = lines.len() / 2;
        let mut ledger = Ledger::memory();
        append(&mut ledger, &lines[..half].join("\n"));
        // A clock after every event of the fixtures (posted events may not be in the future).
        let late = ladder_events::Timestamp::parse("2030-01-01T00:00:00Z").unwrap();
        let warm = start_with_clock(ledger, Limits::default(), std::sync::Arc::new(move || late));
        let app = warm.service.router();
        for piece in lines[half..].chunks(7) {
            for uri in uris(warm.service.shared.durable_head().seq) {
                page(&app, &uri).await;
            }
            let r = app
                .clone()
                .oneshot(
                    Request::post("/api/events")
                        .header("authorization", format!("Bearer {}", warm.token))
                        .body(Body::from(piece.join("\n")))
                        .unwrap(),
                )
                .await
                .unwrap();
            let status = r.status();
            let body = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
            assert_eq!(status, StatusCode::OK, "{fixture}: {}", String::from_utf8_lossy(&body));
        }
        warm.service.shared.sign_checkpoint().unwrap();
        // The fresh server on the whole ledger.
        let mut ledger = Ledger::memory();
        append(&mut ledger, &text);
        let fresh = start(ledger, Limits::default());
        let fresh_app = fresh.service.router();
        let head = fresh.service.shared.durable_head();
        assert_eq!(warm.service.shared.durable_head(), head, "{fixture}: the same ledger");
        for uri in uris(head.seq) {
            let a = page(&app, &uri).await;
            let b = page(&fresh_app, &uri).await;
            assert_eq!(a, b, "{fixture} {uri}");
            compared += usize::from(a.0 == StatusCode::OK);
        }
        warm.service.stop().unwrap();
        fresh.service.stop().unwrap();
    }
    // club: 8 players, teams: 6, each under 6 algorithms with a page and an answer; the
    // leaderboards and events asked are counted where they answered.
    assert!(compared >= (8 + 6) * 6 * 2, "{compared}");
}
