//! The pages' handlers and what they compute, apart from the templates of [`crate::pages`]:
//! a player's history (what `ladder history` prints), one event explained (ladder-explain's
//! [`ladder_explain::Explanation`], the very value `ladder explain` renders: the match page
//! renders it as HTML and `GET /api/events/SEQ/explain` answers its JSON), and the static assets
//! the event page's check runs (embedded in the binary, so `serve` needs no file at run time).

use crate::pages;
use crate::reads::query_pairs;
use crate::Shared;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use ladder_events::{Body, Timestamp};
use ladder_explain::{explain_with, vs_config, ExplainError, LedgerHistory, Request};
use ladder_log::Ledger;
use ladder_projector::{Config, Standing};
use ladder_replay::{registry, replay, Options, ReplayError};
use std::sync::Arc;

/// The check's script, served at `/assets/check.js`.
pub const CHECK_JS: &str = include_str!("../assets/check.js");
/// A player's standing after one of their events.
#[derive(Clone, Debug)]
pub struct PlayerLine {
    /// The event's sequence number.
    pub seq: u64,
    /// When.
    pub at: Timestamp,
    /// The event's type.
    pub kind: &'static str,
    /// The other seats, `name score`, in seat order (a match only).
    pub opponents: Vec<(String, f64)>,
    /// The player's own score (a match only).
    pub score: Option<f64>,
    /// The standing after the event.
    pub after: Standing,
    /// The rating change the event made (none at the first event).
    pub change: Option<f64>,
    /// The place on the leaderboard at its default rules after the event (none when not
    /// ranked, and for a whole-history algorithm).
    pub rank: Option<usize>,
}

impl PlayerLine {
    /// The line of `name` after `event` (number `seq`), whose standing is then `after`;
    /// `previous` is their line before it, if any.
    pub fn new(
        event: &ladder_events::Event,
        seq: u64,
        name: &str,
        after: Standing,
        previous: Option<&PlayerLine>,
        rank: Option<usize>,
    ) -> PlayerLine {
        let (mut opponents, mut score) = (Vec::new(), None);
        if let Body::MatchResult { seats } = &event.body {
            score = seats.iter().find(|x| x.player == name).map(|x| x.score);
            opponents = seats
                .iter()
                .filter(|x| x.player != name)
                .map(|x| (x.player.clone(), x.score))
                .collect();
        }
        let change = previous.map(|l| after.rating - l.after.rating);
        PlayerLine {
            seq,
            at: event.at,
            kind: event.body.type_name(),
            opponents,
            score,
            after,
            change,
            rank,
        }
    }
}

/// The player's standing after each of their events under `config` (what `ladder history`
/// lists), or `None` when the log never names them: a replay from the first event, without
/// ranks. The pages read the kept fold of [`crate::warm::player_up_to`] instead; this is what
/// the tests hold it to.
pub fn player_history(
    ledger: &Ledger,
    config: Config,
    name: &str,
) -> Result<Option<Vec<PlayerLine>>, ReplayError> {
    let mut projector = registry::build(config)?;
    let mut lines: Vec<PlayerLine> = Vec::new();
    let r =
        replay(&LedgerHistory::new(ledger), &mut [&mut projector], Options::default(), &mut |s| {
            if !s.event.players().any(|p| p == name) {
                return;
            }
            let Some(id) = s.roster.get(name) else { return };
            let Some(me) = s.projectors[0].standing(id) else { return };
            lines.push(PlayerLine::new(s.event, s.seq, name, me, lines.last(), None));
        })?;
    Ok(r.roster.get(name).map(|_| lines))
}

/// The algorithm and constants a page was asked for (`algo`, default glicko2, and `set`: `K=V`
/// pairs separated by commas or spaces), with the `set` text as written.
fn page_config(query: Option<&str>) -> Result<(Config, String), String> {
    let mut algo = "glicko2".to_string();
    let mut sets: Vec<String> = Vec::new();
    let mut text = Vec::new();
    for (k, v) in query_pairs(query)? {
        match k.as_str() {
            "algo" => algo = v,
            "set" => {
                sets.extend(v.split([',', ' ']).filter(|p| !p.is_empty()).map(str::to_string));
                text.push(v);
            }
            _ => return Err(format!("{k}={v:?}: unknown parameter: this page takes algo and set")),
        }
    }
    let config = registry::configure(&algo, &sets).map_err(|e| e.to_string())?;
    Ok((config, text.join(", ")))
}

/// An explanation asked for through the API: `algo` (required), `set` and `vs` (each repeatable,
/// `K=V[,K=V...]`, as `ladder explain`'s `--set` and `--vs`) and `player` (one player).
fn explain_request(seq: u64, query: Option<&str>) -> Result<Request, String> {
    let (mut algo, mut sets, mut vs, mut player) = (None, Vec::new(), Vec::new(), None);
    for (k, v) in query_pairs(query)? {
        match k.as_str() {
            "algo" => algo = Some(v),
            "set" => sets.push(v),
            "vs" => vs.push(v),
            "player" => player = Some(v),
            _ => {
                return Err(format!(
                    "{k}={v:?}: unknown parameter: explain takes algo, set, vs and player"
                ))
            }
        }
    }
    let algo = algo.ok_or_else(|| {
        format!("algo is missing; algorithms: {}", registry::ALGORITHMS.join(", "))
    })?;
    let config = registry::configure(&algo, &sets).map_err(|e| e.to_string())?;
    let vs = vs
        .iter()
        .map(|text| vs_config(&config, text).map_err(|e| format!("vs={text:?}: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(Request { config, seq, player, vs })
}

/// `GET /api/events/SEQ/explain`: the object `ladder explain --format json` prints (400 for a
/// bad algorithm, constant or player, 404 for an unknown SEQ, 422 when the algorithm cannot
/// apply the history under these constants).
pub async fn explain_api(
    State(s): State<Arc<Shared>>,
    Path(seq): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    use crate::routes::error;
    let Some(seq) = seq.parse::<u64>().ok().filter(|&n| n > 0) else {
        return error(
            StatusCode::BAD_REQUEST,
            format!("{seq:?} is not a sequence number (1, 2, ...)"),
        );
    };
    let request = match explain_request(seq, query.as_deref()) {
        Ok(r) => r,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    blocking(move || {
        let ledger = s.read_ledger();
        match explained(&s, &ledger, &request) {
            Ok(x) => axum::Json(x.to_json()).into_response(),
            Err(e @ ExplainError::NoEvent { .. }) => error(StatusCode::NOT_FOUND, e.to_string()),
            Err(e @ ExplainError::NotNamed { .. }) => error(StatusCode::BAD_REQUEST, e.to_string()),
            Err(e @ (ExplainError::Replay { .. } | ExplainError::Project(_))) => {
                error(StatusCode::UNPROCESSABLE_ENTITY, chain(&e))
            }
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    })
    .await
}

/// `ladder explain`'s explanation of `request` on `ledger` (ladder-explain's [`explain`]), from
/// the one kept when this event was explained before under the same request: an explanation
/// depends on the events through the explained one (and, for a match rated in a period, through
/// the event that closed the period), which later appends do not change, and on the head only
/// through its inclusion proof, which is made again, and the head it names. An explanation of a
/// match whose period is still open at the head is not kept (the period's end moves with it).
/// An explanation made here replays from the kept state of the configuration's fold nearest
/// before the event ([`crate::warm::KeptStarts`]), not from the first event: the same value.
pub fn explained(
    s: &Shared,
    ledger: &Ledger,
    request: &Request,
) -> Result<ladder_explain::Explanation, ExplainError> {
    let mut k = format!(
        "{} seq={} player={:?}",
        crate::warm::key(&request.config),
        request.seq,
        request.player
    );
    for vs in &request.vs {
        k.push_str(&format!(" vs=[{}]", crate::warm::key(vs)));
    }
    let slot = s.explained.lock().unwrap_or_else(|p| p.into_inner()).slot_keyed(k);
    let mut kept = slot.lock().unwrap_or_else(|p| p.into_inner());
    let head = ledger.head().seq;
    if let Some(x) = kept.as_ref().filter(|x| x.seq <= head) {
        let mut x = x.clone();
        x.inclusion = ledger.prove_inclusion(x.seq, head)?;
        x.inclusion_ok =
            ladder_proof::Proof::Inclusion(x.inclusion.clone()).check().map_err(|e| e.to_string());
        if let Some(p) = &mut x.period {
            p.head = head;
        }
        return Ok(x);
    }
    let starts = crate::warm::KeptStarts { cache: &s.marks, ledger };
    let x = explain_with(ledger, request, &starts)?;
    let steps = x.explained.steps.len()
        + x.vs.iter().map(|t| t.steps.len()).sum::<usize>()
        + x.period.as_ref().map_or(0, |p| p.steps.len());
    if x.period.as_ref().is_none_or(|p| p.closing.is_some()) && steps <= crate::EXPLAINED_STEPS {
        *kept = Some(x.clone());
    }
    Ok(x)
}

/// An error and the causes under it, joined by `: `.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = vec![e.to_string()];
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push(c.to_string());
        cause = c.source();
    }
    out.join(": ")
}

fn html(status: StatusCode, markup: maud::Markup) -> Response {
    (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], markup.into_string())
        .into_response()
}

async fn blocking(f: impl FnOnce() -> Response + Send + 'static) -> Response {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|_| {
        (StatusCode::INTERNAL_SERVER_ERROR, "the page could not be computed").into_response()
    })
}

/// The verifier key of the log, as the page prints it (none when the log is unsigned).
fn vkey(s: &Shared) -> Option<String> {
    s.key.as_ref().map(|k| k.verifier().to_text())
}

/// `GET /players/NAME`: the rating history chart and every event of the player with its change.
pub async fn player_page(
    State(s): State<Arc<Shared>>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let tree = s.tree_at();
    let (config, sets) = match page_config(query.as_deref()) {
        Ok(c) => c,
        Err(e) => return html(StatusCode::BAD_REQUEST, pages::error(&e, &tree)),
    };
    blocking(move || {
        let kept = crate::routes::player_fold(&s, &config, &name, false, None, None, |f| {
            // A name the log never gave has no line and no place in the roster.
            let named = f.warm.roster.get(&name).is_some();
            named.then(|| player_html(&f.lines, &name, &config, &sets, f.warm.through, &tree))
        });
        match kept {
            Ok(Some(page)) => html(StatusCode::OK, page),
            Ok(None) => html(
                StatusCode::NOT_FOUND,
                pages::error(&format!("the log names no player {name:?}"), &tree),
            ),
            Err(e) => html(StatusCode::UNPROCESSABLE_ENTITY, pages::error(&e, &tree)),
        }
    })
    .await
}

/// The player page of `name`'s `lines` under `config` through event `through`.
fn player_html(
    lines: &[PlayerLine],
    name: &str,
    config: &Config,
    sets: &str,
    through: u64,
    tree: &pages::TreeAt,
) -> maud::Markup {
    let algo = config.algorithm;
    let band = lines.last().and_then(|l| l.after.spread_name()).unwrap_or("RD");
    let chart = ladder_plot::rating_chart(
        &format!("{name} under {algo}"),
        &config.to_string(),
        band,
        &[ladder_plot::Series {
            name: name.to_string(),
            points: lines.iter().map(|l| (l.at.0, l.after.rating, l.after.rd)).collect(),
        }],
    );
    let page = pages::PlayerPage {
        name,
        algorithms: registry::ALGORITHMS,
        algo,
        sets,
        config: &config.to_string(),
        through,
        chart: &chart,
        lines,
    };
    pages::player(&page, tree)
}

/// `GET /events/SEQ`: the event, every seat's change explained, its place in the signed tree,
/// and "Check it yourself".
pub async fn event_page(
    State(s): State<Arc<Shared>>,
    Path(seq): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let tree = s.tree_at();
    let Some(seq) = seq.parse::<u64>().ok().filter(|&n| n > 0) else {
        return html(
            StatusCode::BAD_REQUEST,
            pages::error(&format!("{seq:?} is not a sequence number (1, 2, ...)"), &tree),
        );
    };
    let (config, sets) = match page_config(query.as_deref()) {
        Ok(c) => c,
        Err(e) => return html(StatusCode::BAD_REQUEST, pages::error(&e, &tree)),
    };
    blocking(move || {
        let cp = s.checkpoint();
        let ledger = s.read_ledger();
        let stored = match ledger.get(seq) {
            Ok(Some(e)) => e,
            Ok(None) => {
                let m = format!("there is no event {seq}: the log holds {}", ledger.head().seq);
                return html(StatusCode::NOT_FOUND, pages::error(&m, &tree));
            }
            Err(e) => {
                return html(StatusCode::INTERNAL_SERVER_ERROR, pages::error(&e.to_string(), &tree))
            }
        };
        let proof = (seq <= cp.size).then(|| ledger.prove_inclusion(seq, cp.size).ok()).flatten();
        let request = Request { config: config.clone(), seq, player: None, vs: Vec::new() };
        let explained = explained(&s, &ledger, &request);
        drop(ledger);
        let explained = match explained {
            Ok(x) => x,
            Err(e) => {
                let m = chain(&e);
                return html(StatusCode::UNPROCESSABLE_ENTITY, pages::error(&m, &tree));
            }
        };
        let line = ladder_events::json::to_line(&stored.event);
        let vkey = vkey(&s);
        let page = pages::EventPage {
            seq,
            line: &line,
            hash: &ladder_proof::hex(&stored.hash),
            kind: stored.event.body.type_name(),
            at: &stored.event.at.to_string(),
            algorithms: registry::ALGORITHMS,
            algo: config.algorithm,
            sets: &sets,
            config: &config.to_string(),
            explained: &explained,
            proof: proof.as_ref(),
            vkey: vkey.as_deref(),
        };
        html(StatusCode::OK, pages::event(&page, &tree))
    })
    .await
}

/// `GET /assets/NAME`: the stylesheet-free page's scripts and the vendored licence.
pub async fn asset(Path(name): Path<String>) -> Response {
    let (body, kind) = match format!("/assets/{name}").as_str() {
        "/assets/check.js" => (CHECK_JS, "text/javascript; charset=utf-8"),
        path => match path.strip_prefix(crate::vendor::BASE).and_then(crate::vendor::file) {
            Some(f) if f.path.ends_with(".js") => (f.text, "text/javascript; charset=utf-8"),
            Some(f) => (f.text, "text/plain; charset=utf-8"),
            None => {
                return crate::routes::error(StatusCode::NOT_FOUND, format!("no asset {name:?}"));
            }
        },
    };
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "public, max-age=300")], body)
        .into_response()
}
