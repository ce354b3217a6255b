//! The pages' handlers and what they compute, apart from the templates of [`crate::pages`]:
//! a player's history (what `ladder history` prints) and one event's account (what `ladder
//! explain` shows: every seat before and after, and the algorithm's own trace of the arithmetic),
//! and the static assets the event page's check runs (embedded in the binary, so `serve` needs
//! no file at run time).

use crate::history::LedgerHistory;
use crate::pages;
use crate::reads::query_pairs;
use crate::Shared;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use ladder_events::{Body, Timestamp};
use ladder_log::Ledger;
use ladder_projector::{Config, Projector, Roster, Standing, Trace, TraceEntry};
use ladder_replay::{registry, replay, Options, ReplayError, Until};
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
}

/// The player's standing after each of their events under `config` (what `ladder history`
/// lists), or `None` when the log never names them.
pub fn player_history(
    ledger: &Ledger,
    config: Config,
    name: &str,
) -> Result<Option<Vec<PlayerLine>>, ReplayError> {
    let mut projector = registry::build(config)?;
    let mut lines: Vec<PlayerLine> = Vec::new();
    let r = replay(&LedgerHistory(ledger), &mut [&mut projector], Options::default(), &mut |s| {
        if !s.event.players().any(|p| p == name) {
            return;
        }
        let Some(id) = s.roster.get(name) else { return };
        let Some(me) = s.projectors[0].standing(id) else { return };
        let (mut opponents, mut score) = (Vec::new(), None);
        if let Body::MatchResult { seats } = &s.event.body {
            score = seats.iter().find(|x| x.player == name).map(|x| x.score);
            opponents = seats
                .iter()
                .filter(|x| x.player != name)
                .map(|x| (x.player.clone(), x.score))
                .collect();
        }
        let change = lines.last().map(|l| me.rating - l.after.rating);
        lines.push(PlayerLine {
            seq: s.seq,
            at: s.event.at,
            kind: s.event.body.type_name(),
            opponents,
            score,
            after: me,
            change,
        });
    })?;
    Ok(r.roster.get(name).map(|_| lines))
}

/// One seat of an event: the standing before and after it.
#[derive(Clone, Debug)]
pub struct Seat {
    /// The player.
    pub player: String,
    /// Their score (a match only).
    pub score: Option<f64>,
    /// Before the event (none before they joined).
    pub before: Option<Standing>,
    /// After it.
    pub after: Option<Standing>,
}

impl Seat {
    /// The rating change, when there is a before and an after.
    pub fn change(&self) -> Option<f64> {
        Some(self.after.as_ref()?.rating - self.before.as_ref()?.rating)
    }
}

/// One line of the arithmetic, names in place of ids.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A heading.
    Section(String),
    /// A game of `player` against `opponent` whose quantities follow.
    Game {
        /// Whose computation.
        player: String,
        /// Against whom.
        opponent: String,
    },
    /// A quantity with its formula.
    Quantity {
        /// Whose (empty when shared).
        player: String,
        /// The name the algorithm's published description gives it.
        name: String,
        /// The formula.
        formula: String,
        /// Its value.
        value: f64,
    },
    /// Something an auditor looks for.
    Flag {
        /// Whose (empty when none).
        player: String,
        /// Its short code.
        code: String,
        /// A sentence.
        message: String,
    },
}

/// An event explained under one configuration.
#[derive(Clone, Debug)]
pub struct Account {
    /// Every seat (every player the event names), in order.
    pub seats: Vec<Seat>,
    /// The algorithm's trace of the event, step by step.
    pub steps: Vec<Step>,
}

/// Replaces `#N` (a player id in a trace heading) with the player's name, as `ladder explain`
/// does.
fn named(text: &str, roster: &Roster) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let digits: String = rest[i + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
        match digits.parse::<u32>().ok().filter(|&n| (n as usize) < roster.len()) {
            Some(n) => out.push_str(roster.name(ladder_projector::PlayerId(n))),
            // Not an id of the roster: kept as written.
            None => {
                out.push('#');
                out.push_str(&digits);
            }
        }
        rest = &rest[i + 1 + digits.len()..];
    }
    out.push_str(rest);
    out
}

/// Event `seq` under `config`: each named player's standing before and after, and the
/// algorithm's trace of it (the same replay `ladder explain` runs).
pub fn account(ledger: &Ledger, config: Config, seq: u64) -> Result<Account, ReplayError> {
    let stored = ledger
        .get(seq)
        .map_err(|e| ReplayError::History(Box::new(e)))?
        .ok_or(ReplayError::History(format!("there is no event {seq}").into()))?;
    let names: Vec<String> = stored.event.players().map(str::to_string).collect();
    let scores: Vec<Option<f64>> = names
        .iter()
        .map(|n| match &stored.event.body {
            Body::MatchResult { seats } => seats.iter().find(|s| &s.player == n).map(|s| s.score),
            _ => None,
        })
        .collect();
    let mut projector = registry::build(config)?;
    let mut trace = Trace::new();
    let mut before: Vec<Option<Standing>> = vec![None; names.len()];
    let standing =
        |p: &dyn Projector, roster: &Roster, n: &str| roster.get(n).and_then(|id| p.standing(id));
    let r = replay(
        &LedgerHistory(ledger),
        &mut [&mut projector],
        Options { until: Until::Seq(seq), trace: Some((seq, &mut trace)), ..Options::default() },
        &mut |s| {
            if s.seq + 1 == seq {
                for (b, n) in before.iter_mut().zip(&names) {
                    *b = standing(&*s.projectors[0], s.roster, n);
                }
            }
        },
    )?;
    let seats = names
        .iter()
        .zip(before)
        .zip(scores)
        .map(|((n, before), score)| Seat {
            player: n.clone(),
            score,
            before,
            after: standing(&projector, &r.roster, n),
        })
        .collect();
    let roster = &r.roster;
    let who = |p: &Option<ladder_projector::PlayerId>| {
        p.map_or(String::new(), |p| roster.name(p).to_string())
    };
    let steps = trace
        .entries
        .iter()
        .map(|e| match e {
            TraceEntry::Section(t) => Step::Section(named(t, roster)),
            TraceEntry::Opponent { player, opponent } => {
                Step::Game { player: who(player), opponent: roster.name(*opponent).to_string() }
            }
            TraceEntry::Quantity { player, name, formula, value } => Step::Quantity {
                player: who(player),
                name: name.to_string(),
                formula: formula.to_string(),
                value: *value,
            },
            TraceEntry::Flag { player, code, message } => Step::Flag {
                player: who(player),
                code: code.to_string(),
                message: named(message, roster),
            },
        })
        .collect();
    Ok(Account { seats, steps })
}

/// The algorithm and constants a page was asked for (`algo`, default glicko2, and `set`: `K=V`
/// pairs separated by commas or spaces), with the `set` text as written.
fn page_config(query: Option<&str>) -> Result<(Config, String), String> {
    let mut algo = "glicko2".to_string();
    let mut sets = Vec::new();
    let mut text = Vec::new();
    for (k, v) in query_pairs(query)? {
        match k.as_str() {
            "algo" => algo = v,
            "set" => {
                text.push(v.clone());
                for part in v.split([',', ' ']).filter(|p| !p.is_empty()) {
                    let (a, b) = part
                        .split_once('=')
                        .ok_or_else(|| format!("set={v:?}: expected KEY=VALUE pairs"))?;
                    sets.push((a.to_string(), b.to_string()));
                }
            }
            _ => return Err(format!("{k}={v:?}: unknown parameter: this page takes algo and set")),
        }
    }
    let config = registry::config(&algo, &sets).map_err(|e| e.to_string())?;
    Ok((config, text.join(", ")))
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
        let ledger = s.read_ledger();
        let through = ledger.head().seq;
        let result = player_history(&ledger, config.clone(), &name);
        drop(ledger);
        match result {
            Ok(Some(lines)) => {
                let algo = config.algorithm;
                let chart = ladder_plot::rating_chart(
                    &format!("{name} under {algo}"),
                    &config.to_string(),
                    &[ladder_plot::Series {
                        name: name.clone(),
                        points: lines
                            .iter()
                            .map(|l| (l.at.0, l.after.rating, l.after.rd))
                            .collect(),
                    }],
                );
                let page = pages::PlayerPage {
                    name: &name,
                    algorithms: registry::ALGORITHMS,
                    algo,
                    sets: &sets,
                    config: &config.to_string(),
                    through,
                    chart: &chart,
                    lines: &lines,
                };
                html(StatusCode::OK, pages::player(&page, &tree))
            }
            Ok(None) => html(
                StatusCode::NOT_FOUND,
                pages::error(&format!("the log names no player {name:?}"), &tree),
            ),
            Err(e) => html(StatusCode::UNPROCESSABLE_ENTITY, pages::error(&e.to_string(), &tree)),
        }
    })
    .await
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
        let account = account(&ledger, config.clone(), seq);
        drop(ledger);
        let account = match account {
            Ok(a) => a,
            Err(e) => {
                return html(StatusCode::UNPROCESSABLE_ENTITY, pages::error(&e.to_string(), &tree))
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
            account: &account,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_headings_name_players() {
        let mut roster = Roster::new();
        roster.intern("alice");
        roster.intern("bob");
        assert_eq!(named("UpdatePlayer(#0, #1) #x #9", &roster), "UpdatePlayer(alice, bob) #x #9");
    }
}
