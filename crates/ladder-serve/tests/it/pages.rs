//! The pages in process, without JavaScript: status, content type, what they show, and the tree
//! they name. The browser's view, and the check, are in `browser.rs`.

use crate::common::{append, history, start};
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
