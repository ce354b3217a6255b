//! The pages in process: status, content type, what they show, and the tree they name. (Not yet
//! in a real browser: see docs/serve.md, "Not done yet".)

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
