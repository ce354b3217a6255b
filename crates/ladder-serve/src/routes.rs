//! The HTTP routes. Handlers are thin: they check the token, parse, hand the work to the
//! sequencer or to a blocking read ([`crate::reads`], [`crate::warm`]), and render JSON. Every
//! error is a JSON object `{"error": ...}` naming what and where; none holds a token.

use crate::reads::{leaderboard_json, parse_body, query_pairs};
use crate::sequencer::{is_conflict, Job, Outcome, Reply};
use crate::warm::Warm;
use crate::Shared;
use axum::body::Bytes;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use ladder_proof::tiles::{tile_bytes, Tile, TileKind};
use ladder_replay::{BoardRules, Until};
use std::sync::Arc;
use tower::ServiceBuilder;

/// `Cache-Control` of a full tile or entry bundle: it never changes.
pub const IMMUTABLE: &str = "public, max-age=604800, immutable";

/// The service's routes (contract section 7: `/log/`, `/api/`), with its limits: body size
/// (`413`), requests at once (`503` with `Retry-After`), request time (`408`), and CORS
/// (`Access-Control-Allow-Origin: *` on every GET).
pub fn router(shared: Arc<Shared>) -> Router {
    let limits = shared.limits.clone();
    let cors = tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([Method::GET]);
    Router::new()
        .route("/log/checkpoint", get(checkpoint))
        .route("/log/tile/{*path}", get(tile))
        .route("/api/events", post(post_events))
        .route("/api/events/{seq}", get(event))
        .route("/api/events/{seq}/proof", get(proof))
        .route("/api/events/{seq}/explain", get(crate::site::explain_api))
        .route("/api/leaderboard", get(board))
        .route("/api/players/{name}", get(player))
        .route("/", get(board_page))
        .route("/events/{seq}", get(crate::site::event_page))
        .route("/players/{name}", get(crate::site::player_page))
        .route("/assets/{*name}", get(crate::site::asset))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(limits.body_bytes))
        .layer(cors)
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.request_time,
        ))
        .layer(
            ServiceBuilder::new()
                .layer(HandleErrorLayer::new(|_: tower::BoxError| async { overloaded() }))
                .load_shed()
                // One semaphore for every route (a plain concurrency limit would be one per route).
                .layer(tower::limit::GlobalConcurrencyLimitLayer::new(limits.in_flight)),
        )
        .with_state(shared)
}

/// A JSON error answer.
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, axum::Json(serde_json::json!({ "error": message.into() }))).into_response()
}

fn overloaded() -> Response {
    let mut r = error(
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is at its limit of requests at once; retry after the time in Retry-After",
    );
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "no such route: see docs/serve.md for the routes")
}

/// Runs `f` on a blocking thread (reads take the ledger's read lock and may fold).
async fn blocking<F: FnOnce() -> Response + Send + 'static>(f: F) -> Response {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|_| {
        error(StatusCode::INTERNAL_SERVER_ERROR, "the read failed unexpectedly")
    })
}

async fn checkpoint(State(s): State<Arc<Shared>>) -> Response {
    let note = s.checkpoint().note;
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8"), (header::CACHE_CONTROL, "no-store")],
        note.to_string(),
    )
        .into_response()
}

async fn tile(State(s): State<Arc<Shared>>, Path(path): Path<String>) -> Response {
    let tile = match Tile::parse_path(&format!("tile/{path}")) {
        Ok(t) => t,
        Err(e) => return error(StatusCode::NOT_FOUND, e.to_string()),
    };
    let cache = if tile.is_full() { IMMUTABLE } else { "public, max-age=60" };
    // A kept tile is shared, not copied, into each answer.
    let answer = move |bytes: Bytes| {
        (
            [(header::CONTENT_TYPE, "application/octet-stream"), (header::CACHE_CONTROL, cache)],
            bytes,
        )
            .into_response()
    };
    if let Some(bytes) = s.tiles.read().unwrap_or_else(|p| p.into_inner()).get(&tile).cloned() {
        return answer(bytes);
    }
    // A full level-0 tile the leaf file holds is one positioned read of 8 KiB from a file the
    // filler wrote as the tree grew, one stored node from sled's cache and a checksum: served
    // here, on the worker, without the hand-over to the blocking pool and back, which cost a
    // cold read more than the read itself (docs/PERFORMANCE.md, "Cold tiles on the worker").
    // Only when the ledger is free for reading now (it is not while the sequencer publishes a
    // group, memory only). Entry bundles (four times the bytes, from a file four times the
    // size) were slower on the worker in the same runs and stay on the blocking pool, with
    // every tile the file does not hold.
    if let Some(bytes) = kept_tile(&s, &tile) {
        return answer(keep_tile(&s, tile, bytes));
    }
    blocking(move || {
        let ledger = s.read_ledger();
        let size = ledger.head().seq;
        if tile.leaves().end > size {
            return error(
                StatusCode::NOT_FOUND,
                format!("the tree has {size} entries; tile {} is beyond it", tile.path()),
            );
        }
        // A full level-0 tile or entry bundle: from the leaf file when it holds it and it
        // checks (`crate::tiles`); otherwise, and for every other tile, from the ledger.
        let kept = match (tile.kind, tile.is_full()) {
            (TileKind::Hashes(0), true) => {
                s.leaves().file().tile(&ledger, tile.index).ok().flatten().map(Ok)
            }
            (TileKind::Entries, true) => {
                s.leaves().file().bundle(&ledger, tile.index).ok().flatten().map(Ok)
            }
            _ => None,
        };
        let made = kept.unwrap_or_else(|| {
            let mut src = ladder_tlog::LedgerTiles::one_tile_at_a_time(&ledger, size);
            tile_bytes(&tile, &mut src)
        });
        match made {
            Ok(bytes) => {
                drop(ledger);
                let bytes = Bytes::from(bytes);
                if tile.is_full() {
                    keep_tile(&s, tile, bytes.clone());
                }
                answer(bytes)
            }
            Err(e) => error(StatusCode::NOT_FOUND, format!("tile {}: {e}", tile.path())),
        }
    })
    .await
}

/// A full level-0 tile from the leaf file ([`crate::tiles`]) when the file holds it, it checks,
/// and the ledger can be read without waiting; `None` otherwise (the caller reads it the longer
/// way).
fn kept_tile(s: &Shared, tile: &Tile) -> Option<Bytes> {
    if !tile.is_full() || tile.kind != TileKind::Hashes(0) || tile.index >= s.leaves().through() {
        return None;
    }
    let ledger = s.try_read_ledger()?;
    s.leaves().file().tile(&ledger, tile.index).ok().flatten().map(Bytes::from)
}

/// Keeps a full tile (it never changes) for the next reads, up to [`crate::TILE_CACHE`] of them
/// (then the cache starts over), and gives it back.
fn keep_tile(s: &Shared, tile: Tile, bytes: Bytes) -> Bytes {
    let mut cache = s.tiles.write().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= crate::TILE_CACHE {
        cache.clear();
    }
    cache.insert(tile, bytes.clone());
    bytes
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    v.strip_prefix("Bearer ").map(str::trim)
}

async fn post_events(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    let authorized = bearer(&headers).is_some_and(|t| s.tokens().check(t).is_some());
    if !authorized {
        let mut r = error(
            StatusCode::UNAUTHORIZED,
            "a write needs the header `Authorization: Bearer TOKEN` with a token that \
             `ladder token add` made and that is not revoked",
        );
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return r;
    }
    let mut auto_join = false;
    let mut wait = false;
    let pairs = match query_pairs(query.as_deref()) {
        Ok(p) => p,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    for (k, v) in pairs {
        match (k.as_str(), v.as_str()) {
            ("auto_join", "true") => auto_join = true,
            ("auto_join", "false") => auto_join = false,
            ("wait", "checkpoint") => wait = true,
            _ => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "unknown query parameter {k}={v:?}: POST /api/events takes \
                         auto_join=true|false and wait=checkpoint"
                    ),
                )
            }
        }
    }
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            return error(
                e.status(),
                format!(
                    "the body could not be read: {} (the limit is {} bytes; split the events \
                     over several requests)",
                    e.body_text(),
                    s.limits.body_bytes
                ),
            )
        }
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return error(
            StatusCode::BAD_REQUEST,
            "the body is not UTF-8 (JSON Lines, one event a line)",
        );
    };
    let events = match parse_body(text) {
        Ok(e) if e.is_empty() => {
            return error(
                StatusCode::BAD_REQUEST,
                "the body holds no event (JSON Lines, one a line)",
            )
        }
        Ok(e) => e,
        Err((line, v)) => return refused(line, &v),
    };
    let (reply, answer) = tokio::sync::oneshot::channel();
    // Counted before it is sent, so the sequencer never takes one not yet counted.
    s.waiting.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    if let Err(e) = s.jobs.try_send(Job { events, auto_join, reply }) {
        s.waiting.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        let full = matches!(e, std::sync::mpsc::TrySendError::Full(_));
        let mut r = error(
            StatusCode::SERVICE_UNAVAILABLE,
            if full {
                "too many appends are waiting; retry after the time in Retry-After (an `id` makes \
                 the retry safe)"
            } else {
                "the server is stopping; retry after the time in Retry-After"
            },
        );
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    }
    let Ok(Reply { outcome, events: spent }) = answer.await else {
        let mut r = error(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping");
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    };
    // The request's events are freed here, where they were made, not on the sequencer.
    drop(spent);
    match outcome {
        Outcome::Done(a) => {
            let mut v = serde_json::json!({
                "appended": a.appended, "duplicates": a.duplicates,
                "first": a.first, "last": a.last,
                "head": a.head.to_string(), "size": a.head.seq,
            });
            if wait {
                let need = a.last.unwrap_or(0).max(1);
                let mut rx = s.signed.subscribe();
                if rx.wait_for(|size| *size >= need).await.is_err() {
                    return error(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping");
                }
                let s2 = s.clone();
                let first = a.first;
                let last = a.last;
                let extra = tokio::task::spawn_blocking(move || {
                    let cp = s2.checkpoint();
                    let ledger = s2.read_ledger();
                    let proofs: Vec<serde_json::Value> = match (first, last) {
                        (Some(f), Some(l)) => (f..=l)
                            .filter_map(|seq| ledger.prove_inclusion(seq, cp.size).ok())
                            .filter_map(|p| {
                                serde_json::from_str(&ladder_proof::Proof::Inclusion(p).to_json())
                                    .ok()
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    (cp.note.to_string(), proofs)
                })
                .await;
                if let Ok((note, proofs)) = extra {
                    v["checkpoint"] = note.into();
                    v["proofs"] = proofs.into();
                }
            }
            (StatusCode::OK, axum::Json(v)).into_response()
        }
        Outcome::Refused { line, violation } => refused(line, &violation),
        Outcome::Storage { message } => {
            let mut r = error(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the ledger could not store the request: {message}"),
            );
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            r
        }
    }
}

fn refused(line: usize, v: &ladder_events::Violation) -> Response {
    let status = if is_conflict(v) { StatusCode::CONFLICT } else { StatusCode::BAD_REQUEST };
    let body = serde_json::json!({
        "error": format!("line {line}: {v}; nothing of the request was stored"),
        "line": line, "rule": v.rule.name(), "detail": v.detail,
    });
    (status, axum::Json(body)).into_response()
}

fn parse_seq(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{text:?} is not a sequence number (1, 2, ...)"))
}

async fn event(State(s): State<Arc<Shared>>, Path(seq): Path<String>) -> Response {
    let seq = match parse_seq(&seq) {
        Ok(n) => n,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    blocking(move || {
        let ledger = s.read_ledger();
        match ledger.get(seq) {
            Ok(Some(e)) => {
                let line = ladder_events::json::to_line(&e.event);
                let event: serde_json::Value =
                    serde_json::from_str(&line).unwrap_or(serde_json::Value::Null);
                axum::Json(serde_json::json!({
                    "seq": seq, "hash": ladder_proof::hex(&e.hash), "line": line, "event": event,
                }))
                .into_response()
            }
            Ok(None) => error(
                StatusCode::NOT_FOUND,
                format!("there is no event {seq}: the log holds {}", ledger.head().seq),
            ),
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    })
    .await
}

async fn proof(State(s): State<Arc<Shared>>, Path(seq): Path<String>) -> Response {
    let seq = match parse_seq(&seq) {
        Ok(n) => n,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    blocking(move || {
        let cp = s.checkpoint();
        if seq > cp.size {
            return error(
                StatusCode::NOT_FOUND,
                format!(
                    "event {seq} is not in the current checkpoint (size {}); it is signed within \
                     the checkpoint interval",
                    cp.size
                ),
            );
        }
        let ledger = s.read_ledger();
        match ledger.prove_inclusion(seq, cp.size) {
            Ok(p) => {
                let proof: serde_json::Value =
                    serde_json::from_str(&ladder_proof::Proof::Inclusion(p).to_json())
                        .unwrap_or(serde_json::Value::Null);
                axum::Json(serde_json::json!({ "proof": proof, "checkpoint": &*cp.note }))
                    .into_response()
            }
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    })
    .await
}

/// A leaderboard asked for: the configuration, the rules, and `active_within` as written.
struct BoardAsk {
    config: ladder_projector::Config,
    rules: BoardRules,
    active_within: String,
    until: Until,
}

/// Reads a leaderboard's query (`page`: the picker's form, where `set` is one field of `K=V`
/// pairs separated by commas or spaces and `algo` defaults to glicko2).
fn board_ask(pairs: Vec<(String, String)>, page: bool) -> Result<BoardAsk, String> {
    let mut algo = page.then(|| "glicko2".to_string());
    let mut sets = Vec::new();
    let mut rules = BoardRules::default();
    let mut active_within = ladder_replay::DEFAULT_ACTIVE_WITHIN.to_string();
    let mut until = Until::Head;
    for (k, v) in pairs {
        let bad = |what: &str| format!("{k}={v:?}: {what}");
        match k.as_str() {
            "algo" => algo = Some(v),
            "set" => {
                if page {
                    sets.extend(v.split([',', ' ']).filter(|p| !p.is_empty()).map(str::to_string));
                } else {
                    sets.push(v);
                }
            }
            "top" => rules.top = Some(v.parse().map_err(|_| bad("expected a whole number"))?),
            "min_games" => {
                rules.min_games = v.parse().map_err(|_| bad("expected a whole number"))?
            }
            "active_within" => {
                rules.active_within = if v == "all" {
                    None
                } else {
                    Some(ladder_projector::parse_duration(&v).ok_or_else(|| {
                        bad("expected a duration (N then s, m, h, d or w) or all")
                    })?)
                };
                active_within = v;
            }
            "until" if !page => {
                until = Until::parse(&v).map_err(|e| {
                    bad(&format!("{e} (until is a sequence number or an instant, as --until)"))
                })?
            }
            _ => {
                return Err(bad(if page {
                    "unknown parameter: the leaderboard takes algo, set, top, min_games and \
                     active_within"
                } else {
                    "unknown parameter: the leaderboard takes algo, set, top, min_games, \
                     active_within and until"
                }))
            }
        }
    }
    let algo = algo.ok_or_else(|| {
        format!("algo is missing; algorithms: {}", ladder_replay::registry::ALGORITHMS.join(", "))
    })?;
    let config = ladder_replay::registry::configure(&algo, &sets).map_err(|e| e.to_string())?;
    Ok(BoardAsk { config, rules, active_within, until })
}

/// The last sequence number at or before instant `t` (0 when none): events are stored in time
/// order (the append rule `time-order`), so a binary search over their instants finds it.
fn seq_at(ledger: &ladder_log::Ledger, t: ladder_events::Timestamp) -> Result<u64, String> {
    let (mut lo, mut hi) = (0, ledger.head().seq);
    // Invariant: the event at `lo` (if any) is at or before `t`; every event after `hi` is after it.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        let at = match ledger.get(mid) {
            Ok(Some(e)) => e.event.at,
            Ok(None) => return Err(format!("event {mid} is missing from the log")),
            Err(e) => return Err(e.to_string()),
        };
        if at <= t {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(lo)
}

/// The warm fold of `config` through `until`, kept in its slot for the next read.
///
/// Through the head, it is answered from the kept fold without taking the ledger when that fold
/// holds every durable event (a commit in flight does not delay it: its events are not
/// acknowledged yet). A fold that lacks durable events takes the ledger shared (a commit in
/// flight does not hold it against reads: [`crate::sequencer`]) and folds only them. Through a sequence number
/// or an instant before the durable head, the fold is one of its own, kept like the others.
/// `answer` runs on the fold while its slot is held (no copy of the fold is made).
pub fn warm_fold<R>(
    s: &Shared,
    config: &ladder_projector::Config,
    until: Until,
    answer: impl FnOnce(&Warm) -> R,
) -> Result<R, String> {
    let durable = s.durable_head().seq;
    let fixed = match until {
        Until::Head => None,
        Until::Seq(n) => (n < durable).then_some(n),
        Until::Instant(t) => {
            let n = seq_at(&s.read_ledger(), t)?;
            (n < durable).then_some(n)
        }
    };
    let slot = s.warm.lock().unwrap_or_else(|p| p.into_inner()).slot_through(config, fixed);
    let mut kept = slot.lock().unwrap_or_else(|p| p.into_inner());
    let w = match kept.take() {
        Some(w) if w.through == fixed.unwrap_or(durable) => w,
        other => {
            let ledger = s.read_ledger();
            let target = fixed.unwrap_or(ledger.head().seq);
            crate::warm::bring_up_to(other, config, &ledger, target).map_err(|e| e.to_string())?
        }
    };
    let r = answer(&w);
    *kept = Some(w);
    Ok(r)
}

/// The kept history of player `name` under `config` ([`crate::warm::PlayerFold`]), with ranks
/// when `ranked`, through `through`, or through the durable head when `None`, brought up to
/// date over the events since it was last read; `fixed` (a request's `until` before the durable head) keeps it apart from
/// the history through the head. Like [`warm_fold`], a history that already holds every event
/// asked for is answered without taking the ledger. `answer` runs on it while its slot is held.
pub fn player_fold<R>(
    s: &Shared,
    config: &ladder_projector::Config,
    name: &str,
    ranked: bool,
    fixed: Option<u64>,
    through: Option<u64>,
    answer: impl FnOnce(&crate::warm::PlayerFold) -> R,
) -> Result<R, String> {
    let want = through.unwrap_or_else(|| s.durable_head().seq);
    let mut k = format!("{} player={name:?} ranked={ranked}", crate::warm::key(config));
    if let Some(n) = fixed {
        k.push_str(&format!(" until={n}"));
    }
    let slot = s.players.lock().unwrap_or_else(|p| p.into_inner()).slot_keyed(k);
    let mut kept = slot.lock().unwrap_or_else(|p| p.into_inner());
    let f = match kept.take() {
        Some(f) if f.warm.through == want && f.name == name && !f.whole_history => f,
        other => {
            let ledger = s.read_ledger();
            let target = through.unwrap_or(ledger.head().seq);
            crate::warm::player_up_to(other, config, &ledger, name, ranked, target)
                .map_err(|e| e.to_string())?
        }
    };
    let r = answer(&f);
    *kept = Some(f);
    Ok(r)
}

/// Folds (warm) and ranks; on a blocking thread.
fn fold_board(s: &Shared, ask: &BoardAsk) -> Result<serde_json::Value, String> {
    warm_fold(s, &ask.config, ask.until, |w| leaderboard_json(w, &ask.rules, &ask.active_within))
}

async fn board(State(s): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    let ask = match query_pairs(query.as_deref()).and_then(|p| board_ask(p, false)) {
        Ok(a) => a,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    blocking(move || match fold_board(&s, &ask) {
        Ok(v) => axum::Json(v).into_response(),
        Err(e) => error(StatusCode::UNPROCESSABLE_ENTITY, e),
    })
    .await
}

fn html_page(status: StatusCode, markup: maud::Markup) -> Response {
    (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], markup.into_string())
        .into_response()
}

async fn board_page(State(s): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    let pairs = match query_pairs(query.as_deref()) {
        Ok(p) => p,
        Err(e) => return html_page(StatusCode::BAD_REQUEST, crate::pages::error(&e, &s.tree_at())),
    };
    let sets_text: String = pairs
        .iter()
        .filter(|(k, _)| k == "set")
        .map(|(_, v)| v.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let ask = match board_ask(pairs, true) {
        Ok(a) => a,
        Err(e) => return html_page(StatusCode::BAD_REQUEST, crate::pages::error(&e, &s.tree_at())),
    };
    blocking(move || {
        let tree = s.tree_at();
        match fold_board(&s, &ask) {
            Ok(v) => html_page(
                StatusCode::OK,
                crate::pages::leaderboard(
                    &v,
                    ladder_replay::registry::ALGORITHMS,
                    ask.config.algorithm,
                    &sets_text,
                    &tree,
                ),
            ),
            Err(e) => html_page(StatusCode::UNPROCESSABLE_ENTITY, crate::pages::error(&e, &tree)),
        }
    })
    .await
}

async fn player(
    State(s): State<Arc<Shared>>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let ask = match query_pairs(query.as_deref()).and_then(|p| board_ask(p, false)) {
        Ok(a) => a,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    blocking(move || {
        let fixed = match ask.until {
            Until::Head => None,
            _ => Some(()),
        };
        let answer = warm_fold(&s, &ask.config, ask.until, |w| {
            // The history through the standing's event, kept apart when `until` fixed it.
            let fixed = fixed.map(|()| w.through);
            player_fold(&s, &ask.config, &name, true, fixed, Some(w.through), |f| {
                crate::reads::player_json_text(w, f)
            })
        });
        match answer.and_then(|a| a) {
            // The text `axum::Json` would write for `player_json`'s object, with its content type.
            Ok(Some(text)) => {
                ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], text)
                    .into_response()
            }
            Ok(None) => error(StatusCode::NOT_FOUND, format!("no player is named {name:?}")),
            Err(e) => error(StatusCode::UNPROCESSABLE_ENTITY, e),
        }
    })
    .await
}
