//! What the read routes compute, without HTTP: request bodies parsed into events, query strings
//! into pairs, and the leaderboard as the same JSON object `ladder leaderboard --format json`
//! prints.

use crate::sequencer::Posted;
use ladder_events::{Rule, Violation};
use ladder_projector::{ParamValue, Projector};
use ladder_replay::{leaderboard, BoardRules};

/// The instant a line without `at` is parsed with, until the sequencer stamps it.
const PLACEHOLDER: &str = "1970-01-01T00:00:00Z";

/// Parses a request body of JSON Lines (blank lines are skipped, line numbers count them). A
/// line without `at` is accepted with a placeholder instant, marked for the sequencer to stamp.
pub fn parse_body(text: &str) -> Result<Vec<Posted>, (usize, Violation)> {
    let mut out = Vec::new();
    let mut stamped = String::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(event) = without_at(line, &mut stamped) {
            out.push(Posted { event, stamp: true, line: i + 1 });
            continue;
        }
        match ladder_events::json::parse_line(line) {
            Ok(event) => out.push(Posted { event, stamp: false, line: i + 1 }),
            Err(v) if v.rule == Rule::MissingField && v.detail.ends_with("needs `at`") => {
                // The line is an object with a type and without `at`: the placeholder goes in
                // front of its first member, and the line is parsed once more. (A line this
                // does not parse, such as one with `"at":null`, takes the longer way below.)
                let quick = line.trim_start().strip_prefix('{').and_then(|rest| {
                    ladder_events::json::parse_line(&format!("{{\"at\":\"{PLACEHOLDER}\",{rest}"))
                        .ok()
                });
                if let Some(event) = quick {
                    out.push(Posted { event, stamp: true, line: i + 1 });
                    continue;
                }
                let mut value: serde_json::Value =
                    serde_json::from_str(line).map_err(|_| (i + 1, v.clone()))?;
                let Some(object) = value.as_object_mut() else { return Err((i + 1, v)) };
                object.insert("at".into(), PLACEHOLDER.into());
                let event =
                    ladder_events::json::parse_line(&value.to_string()).map_err(|v| (i + 1, v))?;
                out.push(Posted { event, stamp: true, line: i + 1 });
            }
            Err(v) => return Err((i + 1, v)),
        }
    }
    Ok(out)
}

/// The one-parse way for the commonest line a client posts: canonical except that it has no
/// `at` (`{"type":"T",` then the rest in canonical order). The placeholder instant goes where
/// the canonical form has `at`, right after the type, into `buf`, and the line is parsed once:
/// when that line is canonical, by ladder-events' parser of the canonical form. The event is
/// taken only when that parse succeeds, and then it is the event the longer way in
/// [`parse_body`] gives (a first parse refused for the missing `at`, then the placeholder put
/// in front): the members are the same, and a line that had an `at` elsewhere now has two,
/// which the parse refuses (a canonical line holds one; serde_json refuses a repeated field).
/// `None` sends the line the longer way, which names its errors as before.
fn without_at(line: &str, buf: &mut String) -> Option<ladder_events::Event> {
    let rest = line.strip_prefix("{\"type\":\"")?;
    let end = rest.find('"')?;
    let (kind, after) = rest.split_at(end);
    let after = after.strip_prefix("\",")?;
    if after.starts_with("\"at\"") {
        return None;
    }
    buf.clear();
    buf.push_str("{\"type\":\"");
    buf.push_str(kind);
    buf.push_str("\",\"at\":\"");
    buf.push_str(PLACEHOLDER);
    buf.push_str("\",");
    buf.push_str(after);
    ladder_events::json::parse_line(buf).ok()
}

/// Decodes one `application/x-www-form-urlencoded` component (`+` is a space, `%XX` a byte);
/// `None` when it is not UTF-8 or a `%` is not followed by two hex digits.
pub fn decode_component(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// A query string as (key, value) pairs in order, repeated keys kept (`set=k=v&set=k2=v2`).
pub fn query_pairs(query: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for part in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let bad = || format!("the query parameter {part:?} is not URL-encoded UTF-8");
        out.push((decode_component(k).ok_or_else(bad)?, decode_component(v).ok_or_else(bad)?));
    }
    Ok(out)
}

/// The config of a projector as a JSON object, numbers as numbers.
pub fn config_json(projector: &dyn Projector) -> serde_json::Map<String, serde_json::Value> {
    projector
        .config()
        .values
        .iter()
        .map(|(k, v)| {
            let v = match v {
                ParamValue::Number(x) => serde_json::json!(x),
                ParamValue::Text(t) => serde_json::json!(t),
            };
            (k.to_string(), v)
        })
        .collect()
}

/// The leaderboard object of `ladder leaderboard --format json` (docs/outputs.md), over a fold
/// through `through` (chain hash `head`).
pub fn leaderboard_json(
    warm: &crate::warm::Warm,
    rules: &BoardRules,
    active_within: &str,
) -> serde_json::Value {
    let board = leaderboard(&warm.algo, &warm.roster, &warm.activity, rules);
    let ranked: Vec<_> = board.ranked.iter().map(ladder_replay::Ranked::to_json).collect();
    let l = &board.left_out;
    serde_json::json!({
        "algorithm": warm.algo.config().algorithm, "config": config_json(&warm.algo),
        "through": warm.through,
        "head": ladder_proof::hex(&warm.head),
        "rules": {
            "min_games": rules.min_games, "active_within": active_within,
            "top": rules.top, "provisional_rd": board.provisional_rd,
        },
        "ranked": ranked,
        "left_out": {
            "inactive": l.inactive, "few_games": l.few_games,
            "provisional": l.provisional, "below_top": l.below_top,
        },
    })
}

/// A player's standing (the fields `ladder replay --format json` gives them, from the warm
/// fold) and their history: after each of their events, as `ladder history --format json`
/// prints it (`seq`, `at`, `type`, `opponents`, `score`, `what`, the standing's own fields
/// from `rating` on, `rank`, `change`): `rank` is the place on the leaderboard at its default rules after the event (null
/// when not ranked, and for a whole-history algorithm). `None` when the name never appears.
pub fn player_json(
    warm: &crate::warm::Warm,
    ledger: &ladder_log::Ledger,
    name: &str,
) -> Result<Option<serde_json::Value>, ladder_replay::ReplayError> {
    use ladder_events::Body;
    let snapshot =
        ladder_replay::Snapshot::capture(&warm.algo, &warm.roster, warm.through, &warm.head);
    let all: serde_json::Value =
        serde_json::from_str(&snapshot.to_json()).unwrap_or(serde_json::Value::Null);
    let Some(standing) = all["players"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["player"].as_str() == Some(name)))
        .cloned()
    else {
        return Ok(None);
    };
    let mut projector = ladder_replay::registry::build(warm.algo.config().clone())?;
    let whole_history = projector.curve(ladder_projector::PlayerId(0)).is_some();
    let mut history = Vec::new();
    let mut last: Option<f64> = None;
    ladder_replay::replay(
        &ladder_explain::LedgerHistory::new(ledger),
        &mut [&mut projector],
        ladder_replay::Options {
            until: ladder_replay::Until::Seq(warm.through),
            ..Default::default()
        },
        &mut |s| {
            if !s.event.players().any(|p| p == name) {
                return;
            }
            let Some(id) = s.roster.get(name) else { return };
            let Some(me) = s.projectors[0].standing(id) else { return };
            // The rank on the leaderboard at its default rules as it stood after this event, as
            // `ladder history` gives it; none for a whole-history algorithm, whose standings
            // after an event are not what is known now (`ladder history` gives none either).
            let rank = if whole_history {
                None
            } else {
                let board =
                    leaderboard(&*s.projectors[0], s.roster, s.activity, &BoardRules::default());
                board.ranked.iter().find(|r| r.row.standing.player == id).map(|r| r.rank)
            };
            let (mut opponents, mut score, mut what) = (Vec::new(), None, String::new());
            match &s.event.body {
                Body::MatchResult { seats } => {
                    let mine = seats.iter().find(|x| x.player == name).map_or(0.0, |x| x.score);
                    score = Some(mine);
                    opponents = seats
                        .iter()
                        .filter(|x| x.player != name)
                        .map(|x| x.player.clone())
                        .collect();
                    let others: Vec<String> = seats
                        .iter()
                        .filter(|x| x.player != name)
                        .map(|x| format!("{} {}", x.player, x.score))
                        .collect();
                    what = format!("{mine} vs {}", others.join(", "));
                }
                Body::PlayerJoined { .. } => what = "joined".into(),
                Body::QueueTimeout { .. } => what = "queue timeout".into(),
                _ => {}
            }
            history.push(serde_json::json!({
                "seq": s.seq, "at": s.event.at.to_string(), "type": s.event.body.type_name(),
                "opponents": opponents, "score": score, "what": what,
                "rank": rank, "change": last.map(|l| me.rating - l),
            }));
            // The standing's own fields, as `ladder history --format json` prints them.
            if let Some(line) = history.last_mut() {
                ladder_replay::put_fields(line, &me);
            }
            last = Some(me.rating);
        },
    )?;
    Ok(Some(serde_json::json!({
        "algorithm": warm.algo.config().algorithm, "config": config_json(&warm.algo),
        "through": warm.through, "head": ladder_proof::hex(&warm.head),
        "standing": standing, "history": history,
    })))
}

/// Compact JSON text of a value, as `serde_json` writes it (non-finite numbers as `null`).
macro_rules! j {
    ($e:expr) => {
        serde_json::json!($e).to_string()
    };
}

/// [`player_json`]'s answer from kept folds: the standing from `warm` (the configuration's fold),
/// the history from `fold` (the player's, through the same event); `None` when the name never
/// appears. Written as the compact JSON text `serde_json` writes for it (keys in byte order, as
/// its maps keep them), line by line without a map per line: the history of a player of many
/// games is most of the answer's cost. Equal byte for byte to
/// `serde_json::to_string` of [`player_json`] (the tests compare the two).
pub fn player_json_text(
    warm: &crate::warm::Warm,
    fold: &crate::warm::PlayerFold,
) -> Option<String> {
    use ladder_projector::FieldValue;
    use std::fmt::Write;
    let name = fold.name.as_str();
    let id = warm.roster.get(name)?;
    let me = warm.algo.standing(id)?;
    let one = ladder_replay::Snapshot {
        algorithm: warm.algo.config().algorithm,
        config: warm.algo.config().echoed(),
        through: warm.through,
        head: ladder_proof::hex(&warm.head),
        players: vec![ladder_replay::Row { player: name.to_string(), standing: me }],
        prediction: None,
    };
    let all: serde_json::Value =
        serde_json::from_str(&one.to_json()).unwrap_or(serde_json::Value::Null);
    let standing = all["players"].get(0)?;
    let mut out = String::with_capacity(256 + 240 * fold.lines.len());
    out.push_str("{\"algorithm\":");
    out.push_str(&j!(warm.algo.config().algorithm));
    out.push_str(",\"config\":");
    out.push_str(&serde_json::Value::Object(config_json(&warm.algo)).to_string());
    out.push_str(",\"head\":");
    out.push_str(&j!(ladder_proof::hex(&warm.head)));
    out.push_str(",\"history\":[");
    let mut fields: Vec<(&str, String)> = Vec::with_capacity(16);
    for (i, l) in fold.lines.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        fields.clear();
        let what = match l.kind {
            "MatchResult" => {
                let mut w = String::new();
                let _ = write!(w, "{} vs ", l.score.unwrap_or(0.0));
                for (j, (p, x)) in l.opponents.iter().enumerate() {
                    if j > 0 {
                        w.push_str(", ");
                    }
                    let _ = write!(w, "{p} {x}");
                }
                w
            }
            "PlayerJoined" => "joined".into(),
            "QueueTimeout" => "queue timeout".into(),
            _ => String::new(),
        };
        let opponents: Vec<&str> = l.opponents.iter().map(|(p, _)| p.as_str()).collect();
        fields.push(("seq", j!(l.seq)));
        fields.push(("at", j!(l.at.to_string())));
        fields.push(("type", j!(l.kind)));
        fields.push(("opponents", j!(opponents)));
        fields.push(("score", j!(l.score)));
        fields.push(("what", j!(what)));
        fields.push(("rank", j!(l.rank)));
        fields.push(("change", j!(l.change)));
        for (key, value) in l.after.fields() {
            let v = match value {
                FieldValue::Number(x) => j!(x),
                FieldValue::Count(n) => j!(n),
                FieldValue::Flag(b) => j!(b),
                FieldValue::Null => "null".to_string(),
            };
            // A standing's field replaces a line's key of the same name, as `put_fields` does.
            match fields.iter_mut().find(|(k, _)| *k == key) {
                Some(f) => f.1 = v,
                None => fields.push((key, v)),
            }
        }
        fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        out.push('{');
        for (j, (k, v)) in fields.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str(&j!(k));
            out.push(':');
            out.push_str(v);
        }
        out.push('}');
    }
    out.push_str("],\"standing\":");
    out.push_str(&standing.to_string());
    let _ = write!(out, ",\"through\":{}}}", warm.through);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_without_at_is_marked_for_stamping_and_a_bad_line_is_named() {
        let body = "{\"type\":\"PlayerJoined\",\"player\":\"a\"}\n\n{\"type\":\"PlayerJoined\",\"at\":\"2026-01-01T00:00:00Z\",\"player\":\"b\"}\n";
        let p = parse_body(body).unwrap();
        assert_eq!(p.len(), 2);
        assert!(p[0].stamp && !p[1].stamp);
        // With `at` null, and with space before the object: the same event, marked.
        for line in [
            "{\"type\":\"PlayerJoined\",\"player\":\"a\",\"at\":null}",
            "  {\"type\":\"PlayerJoined\",\"player\":\"a\"}",
        ] {
            let q = parse_body(line).unwrap();
            assert!(q[0].stamp, "{line}");
            assert_eq!(q[0].event, p[0].event, "{line}");
        }
        let (line, v) =
            parse_body("{\"type\":\"PlayerJoined\",\"player\":\"a\"}\n\n{\"type\":\"Nope\"}")
                .unwrap_err();
        assert_eq!(line, 3);
        assert_eq!(v.rule, Rule::UnknownType, "{v}");
    }

    /// The longer way of [`parse_body`] for a line without `at`, as it was before the one-parse
    /// way: a first parse, refused for the missing `at`, then the placeholder put in front.
    fn longer_way(line: &str) -> Result<ladder_events::Event, Violation> {
        match ladder_events::json::parse_line(line) {
            Err(v) if v.rule == Rule::MissingField && v.detail.ends_with("needs `at`") => {
                let rest = line.strip_prefix('{').expect("an object");
                ladder_events::json::parse_line(&format!("{{\"at\":\"{PLACEHOLDER}\",{rest}"))
            }
            other => other,
        }
    }

    #[test]
    fn the_one_parse_way_gives_the_longer_way_s_event_or_leaves_the_line_to_it() {
        let mut buf = String::new();
        // Taken by the one-parse way: the event the longer way gives, marked for stamping.
        for line in [
            // Canonical but for `at` (what the bench and most clients post).
            r#"{"type":"MatchResult","id":"b1","seats":[{"player":"p1","score":1},{"player":"p8","score":0}]}"#,
            r#"{"type":"PlayerJoined","player":"a"}"#,
            // Not canonical (members out of order, an escape): parsed by serde_json.
            r#"{"type":"PlayerJoined","player":"a","id":"x\"y"}"#,
            r#"{"type":"MatchResult","seats":[{"score":0.5,"player":"p1"},{"player":"p2","score":0.5}],"id":"d"}"#,
        ] {
            let fast = without_at(line, &mut buf).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(Ok(fast.clone()), longer_way(line), "{line}");
            let posted = parse_body(line).unwrap();
            assert!(posted[0].stamp, "{line}");
            assert_eq!(posted[0].event, fast, "{line}");
        }
        // Left to the longer way: a line with `at` anywhere (its own instant is kept, or its
        // null is stamped), one that is not an object starting with its type, and lines that
        // break a rule (named as before).
        for (line, stamp) in [
            (r#"{"type":"PlayerJoined","at":"2026-01-01T00:00:00Z","player":"a"}"#, false),
            (r#"{"type":"PlayerJoined","player":"a","at":"2026-01-01T00:00:00Z"}"#, false),
            (r#"{"type":"PlayerJoined","player":"a","at":null}"#, true),
            (r#"{"player":"a","type":"PlayerJoined"}"#, true),
        ] {
            assert_eq!(without_at(line, &mut buf), None, "{line}");
            let posted = parse_body(line).unwrap();
            assert_eq!(posted[0].stamp, stamp, "{line}");
        }
        for (line, rule) in [
            (r#"{"type":"PlayerJoined","plyer":"a"}"#, Rule::UnknownField),
            (r#"{"type":"PlayerJoined","player":"a","player":"b"}"#, Rule::Syntax),
            (r#"{"type":"PlayerJoined"}"#, Rule::MissingField),
        ] {
            assert_eq!(without_at(line, &mut buf), None, "{line}");
            let (at, v) = parse_body(line).unwrap_err();
            assert_eq!((at, v.rule), (1, rule), "{line}: {v}");
            assert_eq!(Err(v), longer_way(line), "{line}");
        }
    }

    #[test]
    fn query_components_decode_and_repeat() {
        let q = query_pairs(Some("algo=elo&set=k%3D20&set=home=10&top=5&x+y=a%20b")).unwrap();
        let expected: Vec<(String, String)> =
            [("algo", "elo"), ("set", "k=20"), ("set", "home=10"), ("top", "5"), ("x y", "a b")]
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
        assert_eq!(q, expected);
        assert!(query_pairs(Some("a=%zz")).is_err());
        assert!(query_pairs(Some("a=%ff")).is_err());
    }
}
