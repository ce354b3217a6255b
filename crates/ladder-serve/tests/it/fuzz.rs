//! Raw request bodies, query strings and headers, generated: the service never panics, and
//! every answer that is not a success is a 4xx (or a 503 when it sheds load) with a JSON reason.

use crate::common::{append, history, start};
use axum::body::Body;
use axum::http::Request;
use ladder_log::Ledger;
use ladder_serve::Limits;
use proptest::prelude::*;
use tower::ServiceExt;

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{\"type\":\"PlayerJoined\",\"player\":\"p0\"}".to_string()),
        Just("{\"type\":\"MatchResult\",\"seats\":[{\"player\":\"p1\",\"score\":1},{\"player\":\"p2\",\"score\":0}]}".to_string()),
        Just("{\"type\":\"MatchResult\",\"at\":\"1999-01-01T00:00:00Z\",\"seats\":[]}".to_string()),
        Just("{\"type\":\"MatchVoided\",\"match\":\"r3\",\"reason\":\"x\"}".to_string()),
        Just("{\"type\":\"MidnightTick\"}".to_string()),
        "\\PC{0,80}",
        proptest::collection::vec(any::<u8>(), 0..60)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

fn path() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        Just(("POST".to_string(), "/api/events".to_string())),
        Just(("POST".to_string(), "/api/events?auto_join=true".to_string())),
        "[a-z_=&%0-9]{0,20}".prop_map(|q| ("POST".to_string(), format!("/api/events?{q}"))),
        "[a-z_=&%0-9.]{0,30}".prop_map(|q| ("GET".to_string(), format!("/api/leaderboard?{q}"))),
        "[0-9a-z/.x]{0,20}".prop_map(|p| ("GET".to_string(), format!("/log/tile/{p}"))),
        "[0-9a-z]{0,6}".prop_map(|p| ("GET".to_string(), format!("/api/events/{p}"))),
        "[0-9a-z]{0,6}".prop_map(|p| ("GET".to_string(), format!("/api/events/{p}/proof"))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn no_request_panics_and_every_refusal_is_a_4xx_with_a_reason(
        (method, uri) in path(),
        lines in proptest::collection::vec(line(), 0..5),
        auth in prop_oneof![Just(None), Just(Some(true)), Just(Some(false)), "\\PC{0,20}".prop_map(|_| Some(false))],
        content_type in prop_oneof![Just(None), Just(Some("application/x-ndjson")), Just(Some("text/plain"))],
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut ledger = Ledger::memory();
        append(&mut ledger, &history(4, 5));
        let f = start(ledger, Limits { body_bytes: 4096, ..Limits::default() });
        let app = f.service.router();
        let mut b = Request::builder().method(method.as_str()).uri(&uri);
        match auth {
            Some(true) => b = b.header("authorization", format!("Bearer {}", f.token)),
            Some(false) => b = b.header("authorization", "Bearer ladder_nope"),
            None => {}
        }
        if let Some(ct) = content_type {
            b = b.header("content-type", ct);
        }
        let Ok(req) = b.body(Body::from(lines.join("\n"))) else { return Ok(()) };
        let (status, body) = rt.block_on(async {
            let r = app.oneshot(req).await.unwrap();
            let status = r.status();
            (status, axum::body::to_bytes(r.into_body(), 1 << 24).await.unwrap())
        });
        if !status.is_success() {
            prop_assert!(status.is_client_error() || status.as_u16() == 503, "{status} {uri}");
            let v: serde_json::Value = serde_json::from_slice(&body)
                .map_err(|e| TestCaseError::fail(format!("{status} {uri}: {e}: {body:?}")))?;
            prop_assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
            prop_assert!(!String::from_utf8_lossy(&body).contains(&f.token));
        }
        f.service.stop().unwrap();
    }
}
