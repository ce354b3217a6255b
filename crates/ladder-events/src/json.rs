//! The JSON Lines form of events (`docs/events.md`): one object per line.
//!
//! [`parse_line`] reads one line into an [`Event`] and checks it ([`Event::check`]); [`to_line`]
//! writes the canonical line back, so export-then-import reproduces the same events. Unknown fields
//! are refused (a misspelt `"plyer"` would otherwise be silently lost): see docs/events.md.

use crate::codec::{BodyView, EventView, SeatView, TeamView};
use crate::rules::{Checked, Rule, Violation};
use crate::{Body, Event, Prior, Seat, Team, Timestamp, NANOS_PER_SECOND};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireEvent {
    #[serde(rename = "type")]
    kind: Option<String>,
    at: Option<String>,
    id: Option<String>,
    player: Option<String>,
    rating: Option<f64>,
    rd: Option<f64>,
    volatility: Option<f64>,
    seats: Option<Vec<WireSeat>>,
    #[serde(rename = "match")]
    match_id: Option<String>,
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireSeat {
    player: Option<String>,
    score: Option<f64>,
    team: Option<serde_json::Value>,
    seconds: Option<f64>,
    home: Option<bool>,
}

fn missing(kind: &str, field: &str) -> Violation {
    Violation::new(Rule::MissingField, format!("{kind} needs `{field}`"))
}

fn syntax(e: serde_json::Error) -> Violation {
    let msg = e.to_string();
    let rule = if msg.starts_with("unknown field") { Rule::UnknownField } else { Rule::Syntax };
    Violation::new(rule, msg)
}

/// Parses one JSON Lines line into a checked event. The error names the rule and the field; the
/// caller adds the line number.
pub fn parse_line(line: &str) -> Result<Event, Violation> {
    parse_checked_line(line).map(Checked::into_event)
}

/// [`parse_line`], giving the event as [`Checked`]: the same event or the same violation.
///
/// A line already in canonical form (what `ladder log --format jsonl` and `ladder sim` write)
/// is read by a parser of that form alone ([`parse_canonical`]) and taken only when the event it
/// gives writes that very line back ([`write_line`]); any other line, and any line that parser
/// refuses, goes through serde_json as before. For a canonical line the two give the same event
/// (the canonical line determines its event: `canonical_lines_parse_as_serde_json_parses_them`),
/// and so the same violation, if any, from [`Event::check`].
pub fn parse_checked_line(line: &str) -> Result<Checked, Violation> {
    if let Some(event) = parse_canonical(line) {
        let same = CANONICAL.with(|buf| {
            let mut buf = buf.borrow_mut();
            buf.clear();
            write_line(&event, &mut buf);
            buf.as_slice() == line.as_bytes()
        });
        if same {
            return Checked::new(event);
        }
    }
    parse_wire_line(line)
}

/// A checked event with its canonical line (the bytes [`write_line`] writes for it), as
/// [`parse_lined`] gives them: the two belong together by construction, so what is computed from
/// the line (a tree's leaf hash) is the event's.
#[derive(Debug)]
pub struct Lined<'b> {
    event: Checked,
    line: &'b [u8],
}

impl<'b> Lined<'b> {
    /// The event.
    pub fn event(&self) -> &Event {
        self.event.event()
    }

    /// The event's canonical line, without its line end.
    pub fn line(&self) -> &'b [u8] {
        self.line
    }

    /// The checked event, its line left behind.
    pub fn into_checked(self) -> Checked {
        self.event
    }
}

/// [`parse_checked_line`], with the event's canonical line written into `buf` (cleared first):
/// the same event or the same violation. For a line already in canonical form the check writes
/// that line anyway, so it costs nothing more; any other line is written once more after
/// serde_json has read it.
pub fn parse_lined<'b>(line: &str, buf: &'b mut Vec<u8>) -> Result<Lined<'b>, Violation> {
    buf.clear();
    if let Some(event) = parse_canonical(line) {
        write_line(&event, buf);
        if buf.as_slice() == line.as_bytes() {
            return Ok(Lined { event: Checked::new(event)?, line: buf });
        }
    }
    let event = parse_wire_line(line)?;
    buf.clear();
    write_line(event.event(), buf);
    Ok(Lined { event, line: buf })
}

std::thread_local! {
    /// The canonical line [`parse_checked_line`] writes to compare, kept for the thread's next.
    static CANONICAL: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The bytes of a line in canonical form, read in order.
struct Canonical<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Canonical<'a> {
    /// Takes `literal` if the text goes on with it.
    fn eat(&mut self, literal: &[u8]) -> bool {
        let rest = &self.text.as_bytes()[self.at..];
        if rest.starts_with(literal) {
            self.at += literal.len();
            true
        } else {
            false
        }
    }

    /// Takes `literal`, or `None`.
    fn expect(&mut self, literal: &[u8]) -> Option<()> {
        self.eat(literal).then_some(())
    }

    /// The text up to the next `"` (not taken), which holds no backslash and no control
    /// character (a string serde_json would unescape is left to it).
    fn plain(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let len = bytes[start..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if bytes[start + len] != b'"' {
            return None;
        }
        self.at = start + len;
        // Cut at ASCII bytes of UTF-8 text: a boundary.
        self.text.get(start..start + len)
    }

    /// A JSON string without escapes, quotes included.
    fn string(&mut self) -> Option<String> {
        self.expect(b"\"")?;
        let s = self.plain()?.to_string();
        self.expect(b"\"")?;
        Some(s)
    }

    /// The text of a number (its sign, digits, point and exponent).
    fn number_text(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let len = bytes[start..]
            .iter()
            .position(|&b| !(b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')))
            .unwrap_or(bytes.len() - start);
        if len == 0 {
            return None;
        }
        self.at = start + len;
        self.text.get(start..start + len)
    }

    /// A finite number, correctly rounded (as serde_json's `float_roundtrip` reads it).
    fn number(&mut self) -> Option<f64> {
        self.number_text()?.parse::<f64>().ok().filter(|x| x.is_finite())
    }

    /// An integer (a team's label).
    fn int(&mut self) -> Option<i64> {
        self.number_text()?.parse::<i64>().ok()
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ`, the canonical form of a whole second, without chrono; `None` for any
/// other text (which [`Timestamp::parse`] reads). A date that does not exist (February 30) gives
/// another date here, whose canonical line then differs from the text: the caller falls back.
fn canonical_instant(text: &str) -> Option<Timestamp> {
    let b: &[u8; 20] = text.as_bytes().try_into().ok()?;
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        b[range]
            .iter()
            .try_fold(0i64, |n, &d| d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0')))
    };
    if [b[4], b[7], b[10], b[13], b[16], b[19]] != [b'-', b'-', b'T', b':', b':', b'Z'] {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    // days_from_civil (proleptic Gregorian), the inverse of `Timestamp::write_rfc3339`'s.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days.checked_mul(86_400)?.checked_add(hour * 3600 + minute * 60 + second)?;
    secs.checked_mul(NANOS_PER_SECOND).map(Timestamp)
}

/// Reads a line written in canonical form ([`write_line`]: the keys in their order, strings
/// without escapes, no spaces); `None` for anything else. It checks no rule: the caller takes
/// its event only when it writes the line back ([`parse_checked_line`]).
fn parse_canonical(line: &str) -> Option<Event> {
    let mut c = Canonical { text: line, at: 0 };
    c.expect(b"{\"type\":\"")?;
    let kind = c.plain()?;
    c.expect(b"\",\"at\":\"")?;
    let at_text = c.plain()?;
    let at = match canonical_instant(at_text) {
        Some(at) => at,
        None => Timestamp::parse(at_text).ok()?,
    };
    c.expect(b"\"")?;
    let id = if c.eat(b",\"id\":") { Some(c.string()?) } else { None };
    let body = match kind {
        "PlayerJoined" => {
            c.expect(b",\"player\":")?;
            let player = c.string()?;
            let mut prior = Prior::default();
            if c.eat(b",\"rating\":") {
                prior.rating = Some(c.number()?);
            }
            if c.eat(b",\"rd\":") {
                prior.rd = Some(c.number()?);
            }
            if c.eat(b",\"volatility\":") {
                prior.volatility = Some(c.number()?);
            }
            Body::PlayerJoined { player, prior }
        }
        "QueueTimeout" => {
            c.expect(b",\"player\":")?;
            Body::QueueTimeout { player: c.string()? }
        }
        "MidnightTick" => Body::MidnightTick,
        "MatchResult" => {
            c.expect(b",\"seats\":[")?;
            let mut seats = Vec::with_capacity(2);
            // No seat at all is written `[]` (and refused by the rules).
            while !c.eat(b"]") {
                c.expect(b"{\"player\":")?;
                let player = c.string()?;
                c.expect(b",\"score\":")?;
                let score = c.number()?;
                let team = if c.eat(b",\"team\":") {
                    if c.text.as_bytes().get(c.at) == Some(&b'"') {
                        Some(Team::Text(c.string()?))
                    } else {
                        Some(Team::Int(c.int()?))
                    }
                } else {
                    None
                };
                let seconds = if c.eat(b",\"seconds\":") { Some(c.number()?) } else { None };
                let home = c.eat(b",\"home\":true");
                c.expect(b"}")?;
                seats.push(Seat { player, score, team, seconds, home });
                if !c.eat(b",") {
                    c.expect(b"]")?;
                    break;
                }
            }
            Body::MatchResult { seats }
        }
        "MatchVoided" => {
            c.expect(b",\"match\":")?;
            let match_id = c.string()?;
            c.expect(b",\"reason\":")?;
            Body::MatchVoided { match_id, reason: c.string()? }
        }
        _ => return None,
    };
    c.expect(b"}")?;
    (c.at == line.len()).then_some(Event { at, id, body })
}

/// [`parse_checked_line`] through serde_json, for every line.
fn parse_wire_line(line: &str) -> Result<Checked, Violation> {
    let w: WireEvent = serde_json::from_str(line).map_err(syntax)?;
    let kind = w.kind.as_deref().ok_or_else(|| missing("an event", "type"))?;

    // Which optional fields each kind may carry.
    let present = [
        ("player", w.player.is_some()),
        ("rating", w.rating.is_some()),
        ("rd", w.rd.is_some()),
        ("volatility", w.volatility.is_some()),
        ("seats", w.seats.is_some()),
        ("match", w.match_id.is_some()),
        ("reason", w.reason.is_some()),
    ];
    let allowed: &[&str] = match kind {
        "PlayerJoined" => &["player", "rating", "rd", "volatility"],
        "MatchResult" => &["seats"],
        "MidnightTick" => &[],
        "QueueTimeout" => &["player"],
        "MatchVoided" => &["match", "reason"],
        other => {
            return Err(Violation::new(
                Rule::UnknownType,
                format!(
                    "`type` is {other:?}; expected PlayerJoined, MatchResult, MidnightTick, \
                     QueueTimeout or MatchVoided"
                ),
            ))
        }
    };
    // The type is known before `at` is asked for, so `{"type":"Bogus"}` is an unknown type.
    let at_text = w.at.as_deref().ok_or_else(|| missing(kind, "at"))?;
    let at = Timestamp::parse(at_text)
        .map_err(|e| Violation::new(Rule::Timestamp, format!("`at`: {e}")))?;
    if let Some((field, _)) = present.iter().find(|(f, p)| *p && !allowed.contains(f)) {
        return Err(Violation::new(
            Rule::UnknownField,
            format!("`{field}` is not a field of {kind}"),
        ));
    }

    let body = match kind {
        "PlayerJoined" => Body::PlayerJoined {
            player: w.player.ok_or_else(|| missing(kind, "player"))?,
            prior: Prior { rating: w.rating, rd: w.rd, volatility: w.volatility },
        },
        "QueueTimeout" => {
            Body::QueueTimeout { player: w.player.ok_or_else(|| missing(kind, "player"))? }
        }
        "MidnightTick" => Body::MidnightTick,
        "MatchVoided" => Body::MatchVoided {
            match_id: w.match_id.ok_or_else(|| missing(kind, "match"))?,
            reason: w.reason.unwrap_or_default(),
        },
        _ => {
            let wire = w.seats.ok_or_else(|| missing(kind, "seats"))?;
            let mut seats = Vec::with_capacity(wire.len());
            for (i, s) in wire.into_iter().enumerate() {
                let team = match s.team {
                    None | Some(serde_json::Value::Null) => None,
                    Some(serde_json::Value::String(t)) => Some(Team::Text(t)),
                    Some(serde_json::Value::Number(n)) if n.as_i64().is_some() => {
                        Some(Team::Int(n.as_i64().expect("checked")))
                    }
                    Some(other) => {
                        return Err(Violation::new(
                            Rule::Syntax,
                            format!(
                                "`seats[{i}].team` is {other}; it must be a string or an integer"
                            ),
                        ))
                    }
                };
                seats.push(Seat {
                    player: s.player.ok_or_else(|| {
                        Violation::new(Rule::MissingField, format!("`seats[{i}]` needs `player`"))
                    })?,
                    score: s.score.ok_or_else(|| {
                        Violation::new(Rule::MissingField, format!("`seats[{i}]` needs `score`"))
                    })?,
                    team,
                    seconds: s.seconds,
                    home: s.home.unwrap_or(false),
                });
            }
            Body::MatchResult { seats }
        }
    };
    Checked::new(Event { at, id: w.id, body })
}

fn push_str(out: &mut Vec<u8>, s: &str) {
    // serde_json's escaping (short forms for \b \f \n \r \t, \u00XX for other controls); a
    // Vec never fails to take bytes. serde_json escapes only controls, `"` and `\`, so a string
    // without them (almost every name and id) is copied as it is between quotes: the same bytes
    // (`strings_are_written_as_serde_json_writes_them`).
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

fn push_num(out: &mut Vec<u8>, x: f64) {
    // Shortest round-trip form (through serde_json); events hold finite numbers only. The scores
    // of almost every match are written without the formatter (the same bytes:
    // `common_scores_are_written_as_serde_json_writes_them`).
    if x == 1.0 {
        out.extend_from_slice(b"1.0");
    } else if x == 0.0 && x.is_sign_positive() {
        out.extend_from_slice(b"0.0");
    } else if x == 0.5 {
        out.extend_from_slice(b"0.5");
    } else if x != 0.0 && x.abs() < 1e15 && (x as i64) as f64 == x {
        // A whole number (seconds in a game, most priors): its digits and ".0", as the shortest
        // round-trip form writes every whole number below 10^15 (`whole_numbers_...`). Below
        // 10^15 the conversion to an integer and back is exact for whole numbers only (without
        // `fract`, which is a call to libm's `trunc` on the x86-64 baseline).
        push_int(out, x as i64);
        out.extend_from_slice(b".0");
    } else {
        let _ = serde_json::to_writer(&mut *out, &x);
    }
}

/// The decimal digits of `n`, as `Display` writes them, without the formatter's machinery.
fn push_int(out: &mut Vec<u8>, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// Writes the canonical JSON line of an event (no trailing newline): keys in `docs/events.md`'s order,
/// absent options left out, floats in shortest round-trip form.
///
/// These bytes are what the ledger hashes (an event's *leaf bytes*: docs/proofs.md), so they are
/// fixed forever: `format_examples_round_trip` below and `fixtures/format2/export.jsonl` pin them.
pub fn to_line(event: &Event) -> String {
    let mut out = Vec::with_capacity(128);
    write_line(event, &mut out);
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => unreachable!("a line is written from str pieces only: {e}"),
    }
}

/// [`to_line`] into a buffer the caller reuses: appends the line's bytes to `out`.
///
/// Written by hand, not through a serde `Serialize`: these are the canonical leaf bytes, fixed
/// byte for byte (key order, absent options left out, `Z` instants with fractions only when
/// there are some), and the path every import and export takes. Strings and numbers still go
/// through serde_json, so their escaping and float form are serde_json's.
pub fn write_line(event: &Event, out: &mut Vec<u8>) {
    let body = match &event.body {
        Body::PlayerJoined { player, prior } => Parts::Joined { player, prior: *prior },
        Body::QueueTimeout { player } => Parts::Timeout { player },
        Body::MidnightTick => Parts::Tick,
        Body::MatchResult { seats } => Parts::Match(seats.iter().map(Seat::as_view)),
        Body::MatchVoided { match_id, reason } => Parts::Voided { match_id, reason },
    };
    write_parts(event.at, event.id.as_deref(), body, out);
}

/// [`write_line`] for an event read in place from its stored bytes ([`codec::view`]): the same
/// bytes, without building the owned event (`a_view_writes_the_line_its_event_writes`).
pub fn write_view_line(event: &EventView<'_>, out: &mut Vec<u8>) {
    let body = match event.body {
        BodyView::PlayerJoined { player, prior } => Parts::Joined { player, prior },
        BodyView::QueueTimeout { player } => Parts::Timeout { player },
        BodyView::MidnightTick => Parts::Tick,
        BodyView::MatchResult { seats } => Parts::Match(seats.iter()),
        BodyView::MatchVoided { match_id, reason } => Parts::Voided { match_id, reason },
    };
    write_parts(event.at, event.id, body, out);
}

/// The body of a line, borrowed from an owned event or a stored view alike, so one writer
/// ([`write_parts`]) holds the canonical form.
enum Parts<'a, S> {
    Joined { player: &'a str, prior: Prior },
    Timeout { player: &'a str },
    Tick,
    Match(S),
    Voided { match_id: &'a str, reason: &'a str },
}

fn write_parts<'a, S: Iterator<Item = SeatView<'a>>>(
    at: Timestamp,
    id: Option<&str>,
    body: Parts<'a, S>,
    out: &mut Vec<u8>,
) {
    use std::io::Write as _;
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(match body {
        Parts::Joined { .. } => b"PlayerJoined",
        Parts::Timeout { .. } => b"QueueTimeout",
        Parts::Tick => b"MidnightTick",
        Parts::Match(_) => b"MatchResult",
        Parts::Voided { .. } => b"MatchVoided",
    });
    out.extend_from_slice(b"\",\"at\":\"");
    at.write_rfc3339(out);
    out.push(b'"');
    if let Some(id) = id {
        out.extend_from_slice(b",\"id\":");
        push_str(out, id);
    }
    match body {
        Parts::Joined { player, prior } => {
            out.extend_from_slice(b",\"player\":");
            push_str(out, player);
            for (k, v) in
                [("rating", prior.rating), ("rd", prior.rd), ("volatility", prior.volatility)]
            {
                if let Some(v) = v {
                    let _ = write!(out, ",\"{k}\":");
                    push_num(out, v);
                }
            }
        }
        Parts::Timeout { player } => {
            out.extend_from_slice(b",\"player\":");
            push_str(out, player);
        }
        Parts::Tick => {}
        Parts::Match(seats) => {
            out.extend_from_slice(b",\"seats\":[");
            for (i, s) in seats.enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"player\":");
                push_str(out, s.player);
                out.extend_from_slice(b",\"score\":");
                push_num(out, s.score);
                match s.team {
                    None => {}
                    Some(TeamView::Int(n)) => {
                        out.extend_from_slice(b",\"team\":");
                        push_int(out, n);
                    }
                    Some(TeamView::Text(t)) => {
                        out.extend_from_slice(b",\"team\":");
                        push_str(out, t);
                    }
                }
                if let Some(sec) = s.seconds {
                    out.extend_from_slice(b",\"seconds\":");
                    push_num(out, sec);
                }
                if s.home {
                    out.extend_from_slice(b",\"home\":true");
                }
                out.push(b'}');
            }
            out.push(b']');
        }
        Parts::Voided { match_id, reason } => {
            out.extend_from_slice(b",\"match\":");
            push_str(out, match_id);
            out.extend_from_slice(b",\"reason\":");
            push_str(out, reason);
        }
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event with every field drawn: names and ids with escapes, non-ASCII and control
    /// characters among plain ones, scores and seconds of every kind, teams, home seats, priors,
    /// instants on whole seconds and between them, dates that exist and some that do not.
    fn any_event() -> impl proptest::strategy::Strategy<Value = Event> {
        use proptest::prelude::*;
        let name = prop_oneof![
            4 => "[a-z0-9]{1,8}",
            1 => "[a-z\"\\\\\u{1}\u{e9}\u{1F600} -]{0,6}",
        ];
        let number = prop_oneof![
            Just(1.0),
            Just(0.0),
            Just(0.5),
            (0i64..100_000).prop_map(|n| n as f64),
            proptest::num::f64::NORMAL,
            proptest::num::f64::SUBNORMAL,
        ];
        let team = prop_oneof![
            Just(None),
            any::<i64>().prop_map(|n| Some(Team::Int(n))),
            name.clone().prop_map(|t| Some(Team::Text(t))),
        ];
        let seat = (
            name.clone(),
            number.clone(),
            team,
            proptest::option::of(number.clone()),
            any::<bool>(),
        )
            .prop_map(|(player, score, team, seconds, home)| Seat {
                player,
                score,
                team,
                seconds,
                home,
            });
        let prior = (
            proptest::option::of(number.clone()),
            proptest::option::of(number.clone()),
            proptest::option::of(number),
        )
            .prop_map(|(rating, rd, volatility)| Prior { rating, rd, volatility });
        let body = prop_oneof![
            (name.clone(), prior).prop_map(|(player, prior)| Body::PlayerJoined { player, prior }),
            name.clone().prop_map(|player| Body::QueueTimeout { player }),
            Just(Body::MidnightTick),
            proptest::collection::vec(seat, 0..4).prop_map(|seats| Body::MatchResult { seats }),
            (name.clone(), name.clone())
                .prop_map(|(match_id, reason)| Body::MatchVoided { match_id, reason }),
        ];
        let at = prop_oneof![
            (-2_000_000_000i64..9_000_000_000).prop_map(|s| Timestamp(s * NANOS_PER_SECOND)),
            any::<i64>().prop_map(Timestamp),
        ];
        (at, proptest::option::of(name), body).prop_map(|(at, id, body)| Event { at, id, body })
    }

    /// Lines near the canonical form that it is not (or that serde_json reads otherwise).
    fn variants(line: &str) -> Vec<String> {
        vec![
            line.replacen(',', ", ", 1),
            line.replacen(".0,", ",", 1),
            line.replacen(".0}", "}", 1),
            line.replacen(":1.0", ":1.", 1),
            line.replacen(":0.5", ":.5", 1),
            line.replacen(":0.0", ":-0.0", 1),
            line.replacen(":1.0", ":1e0", 1),
            line.replacen("Z\"", "+00:00\"", 1),
            line.replacen("T", "t", 1),
            line.replacen("-01T", "-32T", 1),
            line.replacen("-02-", "-02-30", 1),
            line.replacen("\"team\":", "\"team\":1.5,\"x\":", 1),
            line.replacen("\"home\":true", "\"home\":false", 1),
            line.replacen("\"seats\":[", "\"seats\":[ ", 1),
            line.replacen('}', "} ", 1),
            format!("{line} "),
            line.replacen("\"id\"", "\"id\":\"x\",\"id\"", 1),
            line.replacen("p", "\\u0070", 1),
            line.replacen(":\"", ":\"\u{7f}", 1),
            line.replacen("MatchResult", "PlayerJoined", 1),
            line.replacen("PlayerJoined", "QueueTimeout", 1),
            line[..line.len().saturating_sub(1)].to_string(),
        ]
    }

    proptest::proptest! {
        #[test]
        fn canonical_lines_parse_as_serde_json_parses_them(event in any_event()) {
            // The line of any event, and lines near it: the fast path gives what serde_json's
            // gives (the event or the violation), or leaves the line to it.
            let mut line = Vec::new();
            write_line(&event, &mut line);
            let line = String::from_utf8(line).unwrap();
            let mut buf = Vec::new();
            for text in std::iter::once(line.clone()).chain(variants(&line)) {
                proptest::prop_assert_eq!(parse_checked_line(&text), parse_wire_line(&text), "{}", text);
                // With its line: the same event or violation, and the event's own line.
                match parse_lined(&text, &mut buf) {
                    Ok(lined) => {
                        let mut own = Vec::new();
                        write_line(lined.event(), &mut own);
                        proptest::prop_assert_eq!(lined.line(), own.as_slice(), "{}", text);
                        proptest::prop_assert_eq!(Ok(lined.into_checked()), parse_wire_line(&text));
                    }
                    Err(v) => proptest::prop_assert_eq!(Err(v), parse_wire_line(&text)),
                }
            }
            // It takes every line without an escape, and reads the event written.
            match parse_canonical(&line) {
                Some(parsed) => proptest::prop_assert_eq!(parsed, event),
                None => proptest::prop_assert!(line.contains('\\'), "{}", line),
            }
        }
    }

    #[test]
    fn the_fixtures_parse_as_serde_json_parses_them() {
        // The shared ladders, built into the test (this crate reads no file, even in tests).
        const FIXTURES: [&str; 3] = [
            include_str!("../../../fixtures/club.jsonl"),
            include_str!("../../../fixtures/glickman.jsonl"),
            include_str!("../../../fixtures/teams.jsonl"),
        ];
        let (mut lines, mut fast) = (0, 0);
        for line in FIXTURES.iter().flat_map(|f| f.lines()) {
            assert_eq!(parse_checked_line(line), parse_wire_line(line), "{line}");
            lines += 1;
            fast += usize::from(parse_canonical(line).is_some());
        }
        assert!(lines > 10, "{lines} lines");
        assert!(fast > 0, "{fast} of {lines} lines read by the fast path");
    }

    #[test]
    fn whole_second_instants_are_read_as_chrono_reads_them() {
        for text in [
            "2020-01-01T00:00:00Z",
            "1970-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "2000-02-29T12:34:56Z",
            "2024-02-29T23:59:59Z",
            "1900-03-01T00:00:00Z",
            "2262-04-11T23:47:16Z",
            "1677-09-21T00:12:44Z",
            "2099-12-31T23:59:59Z",
        ] {
            assert_eq!(canonical_instant(text), Timestamp::parse(text).ok(), "{text}");
        }
        // Out of the range of nanoseconds in an i64, and forms it leaves to chrono.
        for text in [
            "2262-04-11T23:47:17Z",
            "1677-09-21T00:12:43Z",
            "2020-01-01T00:00:60Z",
            "2020-01-01t00:00:00Z",
            "2020-01-01T00:00:00.5Z",
            "2020-13-01T00:00:00Z",
        ] {
            assert_eq!(canonical_instant(text), None, "{text}");
        }
    }

    proptest::proptest! {
        /// Any string, with controls, quotes, backslashes, DEL and non-ASCII mixed in.
        #[test]
        fn strings_are_written_as_serde_json_writes_them(
            s in "(\\PC|[\\x00-\\x1f\"\\\\\\x7f])*",
        ) {
            let mut fast = Vec::new();
            push_str(&mut fast, &s);
            proptest::prop_assert_eq!(fast, serde_json::to_vec(&s).unwrap());
        }
    }

    proptest::proptest! {
        #[test]
        fn integers_are_written_as_display_writes_them(n in proptest::num::i64::ANY) {
            let mut fast = Vec::new();
            push_int(&mut fast, n);
            proptest::prop_assert_eq!(fast, n.to_string().into_bytes());
        }

        #[test]
        fn whole_numbers_and_any_float_are_written_as_serde_json_writes_them(
            n in -1_000_000_000_000_000i64..=1_000_000_000_000_000,
            x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL,
        ) {
            for v in [n as f64, x, x.trunc()] {
                let mut fast = Vec::new();
                push_num(&mut fast, v);
                proptest::prop_assert_eq!(fast, serde_json::to_vec(&v).unwrap(), "{}", v);
            }
        }
    }

    #[test]
    fn common_scores_are_written_as_serde_json_writes_them() {
        for x in [
            1.0,
            0.0,
            0.5,
            -0.0,
            2.0,
            0.25,
            1e-7,
            123456.789,
            481.0,
            -3.0,
            1e15,
            999999999999999.0,
            1e16,
        ] {
            let mut fast = Vec::new();
            push_num(&mut fast, x);
            assert_eq!(fast, serde_json::to_vec(&x).unwrap(), "{x}");
        }
    }

    fn rule_of(line: &str) -> Rule {
        parse_line(line).expect_err(line).rule
    }

    #[test]
    fn format_examples_round_trip() {
        let lines = [
            r#"{"type":"PlayerJoined","at":"2026-03-01T09:00:00Z","player":"alice"}"#,
            r#"{"type":"PlayerJoined","at":"2026-03-01T09:05:00Z","player":"bob","rating":1700.5,"rd":80.0,"volatility":0.06}"#,
            r#"{"type":"MatchResult","at":"2026-03-01T12:00:00Z","id":"m-1","seats":[{"player":"alice","score":1.0},{"player":"bob","score":0.0}]}"#,
            r#"{"type":"MatchResult","at":"2026-03-01T12:00:00.500Z","seats":[{"player":"a","score":3.5,"team":1,"seconds":600.0},{"player":"b","score":2.0,"team":"1"}]}"#,
            r#"{"type":"MatchResult","at":"2026-03-01T12:00:00Z","seats":[{"player":"a","score":1.0,"team":2,"home":true},{"player":"b","score":0.0,"team":2,"seconds":5.0,"home":true},{"player":"c","score":0.0}]}"#,
            r#"{"type":"QueueTimeout","at":"2026-03-01T15:00:00Z","player":"bob"}"#,
            r#"{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}"#,
            r#"{"type":"MatchVoided","at":"2026-03-02T10:00:00Z","match":"m-1","reason":"played on the wrong account"}"#,
        ];
        for line in lines {
            let event = parse_line(line).unwrap();
            assert_eq!(to_line(&event), line);
        }
    }

    /// Found by fuzzing (`fuzz/regressions/jsonl_import/float-not-round-tripped`): serde_json's
    /// default float parser read `1.2888888888888889e+38`, which `to_line` writes for the integer
    /// 128888888888888888888888888888888888800, one ulp low, so an exported line re-imported as a
    /// different event. Numbers are now parsed correctly rounded, as Rust's own parser does.
    #[test]
    fn printed_numbers_parse_back_exactly() {
        let line = r#"{"type":"MatchResult","at":"2026-03-01T00:00:00Z","seats":[{"player":"a","score":1.0,"seconds":1.2888888888888889e+38},{"player":"b","score":0.0}]}"#;
        let from_integer =
            line.replace("1.2888888888888889e+38", &format!("1288{}800", "8".repeat(32)));
        for text in [line, from_integer.as_str()] {
            let event = parse_line(text).unwrap();
            let Body::MatchResult { seats } = &event.body else { panic!("a match") };
            assert_eq!(seats[0].seconds, Some("1.2888888888888889e38".parse::<f64>().unwrap()));
            assert_eq!(to_line(&event), line);
        }
    }

    /// `"home": false` is the default, so the canonical line leaves it out (and a match without
    /// a home seat keeps the line it had before the field existed).
    #[test]
    fn home_false_is_left_out_of_the_line() {
        let line = r#"{"type":"MatchResult","at":"2026-03-01T00:00:00Z","seats":[{"player":"a","score":1,"home":false},{"player":"b","score":0}]}"#;
        let event = parse_line(line).unwrap();
        assert!(!event.has_home());
        assert_eq!(
            to_line(&event),
            r#"{"type":"MatchResult","at":"2026-03-01T00:00:00Z","seats":[{"player":"a","score":1.0},{"player":"b","score":0.0}]}"#
        );
        let bad = r#"{"type":"MatchResult","at":"2026-03-01T00:00:00Z","seats":[{"player":"a","score":1,"home":1},{"player":"b","score":0}]}"#;
        assert_eq!(rule_of(bad), Rule::Syntax);
    }

    #[test]
    fn offsets_are_stored_as_utc() {
        let e = parse_line(r#"{"type":"MidnightTick","at":"2026-03-02T01:00:00+01:00"}"#).unwrap();
        assert_eq!(to_line(&e), r#"{"type":"MidnightTick","at":"2026-03-02T00:00:00Z"}"#);
    }

    #[test]
    fn refusals_name_their_rule() {
        assert_eq!(rule_of("{"), Rule::Syntax);
        assert_eq!(rule_of(r#"{"type":"Resign","at":"2026-03-01"}"#), Rule::UnknownType);
        assert_eq!(rule_of(r#"{"type":"MidnightTick"}"#), Rule::MissingField);
        assert_eq!(
            rule_of(r#"{"type":"MidnightTick","at":"2026-03-01","plyer":"x"}"#),
            Rule::UnknownField
        );
        assert_eq!(
            rule_of(r#"{"type":"MidnightTick","at":"2026-03-01","player":"x"}"#),
            Rule::UnknownField
        );
        assert_eq!(
            rule_of(r#"{"type":"MidnightTick","at":"2026-03-01T00:00:01Z"}"#),
            Rule::TickNotMidnight
        );
        assert_eq!(
            rule_of(r#"{"type":"PlayerJoined","at":"2026-03-01","player":""}"#),
            Rule::PlayerName
        );
        assert_eq!(
            rule_of(r#"{"type":"PlayerJoined","at":"2026-03-01","player":"a\u0007"}"#),
            Rule::PlayerName
        );
        assert_eq!(
            rule_of(r#"{"type":"PlayerJoined","at":"2026-03-01","player":"a","rd":0}"#),
            Rule::PriorRange
        );
        assert_eq!(rule_of(r#"{"type":"PlayerJoined","at":"nope","player":"a"}"#), Rule::Timestamp);
        let one = r#"{"type":"MatchResult","at":"2026-03-01","seats":[{"player":"a","score":1}]}"#;
        assert_eq!(rule_of(one), Rule::TooFewSeats);
        let same = r#"{"type":"MatchResult","at":"2026-03-01","seats":[{"player":"a","score":1},{"player":"a","score":0}]}"#;
        assert_eq!(rule_of(same), Rule::SeatRepeated);
        let sided = r#"{"type":"MatchResult","at":"2026-03-01","seats":[{"player":"a","score":1,"team":2},{"player":"b","score":0,"team":2}]}"#;
        assert_eq!(rule_of(sided), Rule::OneSided);
        let secs = r#"{"type":"MatchResult","at":"2026-03-01","seats":[{"player":"a","score":1,"seconds":-1},{"player":"b","score":0}]}"#;
        assert_eq!(rule_of(secs), Rule::Seconds);
        let team = r#"{"type":"MatchResult","at":"2026-03-01","seats":[{"player":"a","score":1,"team":1.5},{"player":"b","score":0}]}"#;
        assert_eq!(rule_of(team), Rule::Syntax);
        let big = format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-01","player":"{}"}}"#,
            "x".repeat(129)
        );
        assert_eq!(rule_of(&big), Rule::PlayerName);
        let ok = format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-01","player":"{}"}}"#,
            "é".repeat(128)
        );
        assert!(parse_line(&ok).is_ok());
    }

    #[test]
    fn an_unknown_type_is_named_before_its_missing_fields() {
        let v = parse_line(r#"{"type":"Bogus"}"#).unwrap_err();
        assert_eq!(v.rule, Rule::UnknownType, "{v}");
        assert!(v.detail.contains("\"Bogus\""), "{v}");
        // A known type still needs `at`.
        assert_eq!(rule_of(r#"{"type":"QueueTimeout","player":"a"}"#), Rule::MissingField);
    }

    /// A PlayerJoined of `name`, parsed.
    fn join(name: &str) -> Result<Event, Violation> {
        parse_line(&format!(
            r#"{{"type":"PlayerJoined","at":"2026-03-01","player":{}}}"#,
            serde_json::to_string(name).unwrap()
        ))
    }

    #[test]
    fn invisible_and_blank_names_are_refused_naming_the_code_point() {
        // Every code point the rule names, alone in a name and inside one.
        let invisible = (0x202A..=0x202E)
            .chain(0x2066..=0x2069)
            .chain([0x200E, 0x200F, 0x061C, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF]);
        let mut n = 0;
        for cp in invisible {
            let c = char::from_u32(cp).unwrap();
            for name in [format!("ali{c}ce"), format!("{c}bob"), c.to_string()] {
                let v = join(&name).unwrap_err();
                assert_eq!(v.rule, Rule::PlayerName, "{name:?}");
                assert!(v.detail.contains(&format!("U+{cp:04X}")), "{name:?}: {v}");
            }
            n += 1;
        }
        assert_eq!(n, 5 + 4 + 3 + 3 + 2);
        for blank in [" ", "   "] {
            let v = join(blank).unwrap_err();
            assert_eq!(v.rule, Rule::PlayerName, "{blank:?}");
            assert!(v.detail.contains("only white space (U+0020)"), "{blank:?}: {v}");
        }
        // Other white space is refused wherever it is (below).
        for blank in ["\u{3000}", "\u{a0} "] {
            let v = join(blank).unwrap_err();
            assert_eq!(v.rule, Rule::PlayerName, "{blank:?}");
            assert!(v.detail.contains("white space other than U+0020"), "{blank:?}: {v}");
        }
        // Spaces inside a name, and other scripts (right-to-left included), are names.
        for name in ["Ann Lee", " padded ", "أحمد", "שרה", "李 明"] {
            assert!(join(name).is_ok(), "{name:?}");
        }
        // In a seat too.
        let seat = "{\"type\":\"MatchResult\",\"at\":\"2026-03-01\",\"seats\":[{\"player\":\"a\",\"score\":1},{\"player\":\"b\\u200b\",\"score\":0}]}";
        let v = parse_line(seat).unwrap_err();
        assert_eq!(v.rule, Rule::PlayerName);
        assert!(v.detail.contains("seats[1].player") && v.detail.contains("U+200B"), "{v}");
    }

    #[test]
    fn line_breaking_default_ignorable_and_blank_characters_are_refused_by_property() {
        // The characters of issue 28, each with why it is refused: U+2028 (line separator,
        // White_Space), U+00AD (soft hyphen), U+180E (Mongolian vowel separator), U+3164 (Hangul
        // filler: the three Default_Ignorable_Code_Point), U+2800 (blank Braille pattern); then
        // kin of each (paragraph separator, no-break and ideographic spaces, combining grapheme
        // joiner, variation selector 16, a tag character, the halfwidth Hangul filler).
        let cases = [
            ('\u{2028}', "white space other than U+0020"),
            ('\u{00AD}', "default-ignorable"),
            ('\u{180E}', "default-ignorable"),
            ('\u{3164}', "default-ignorable"),
            ('\u{2800}', "the blank Braille pattern"),
            ('\u{2029}', "white space other than U+0020"),
            ('\u{00A0}', "white space other than U+0020"),
            ('\u{3000}', "white space other than U+0020"),
            ('\u{034F}', "default-ignorable"),
            ('\u{FE0F}', "default-ignorable"),
            ('\u{E0041}', "default-ignorable"),
            ('\u{FFA0}', "default-ignorable"),
        ];
        for (c, why) in cases {
            for name in [c.to_string(), format!("Iga{c} Swiatek"), format!("bob{c}")] {
                let v = join(&name).unwrap_err();
                assert_eq!(v.rule, Rule::PlayerName, "{name:?}");
                let code = format!("the invisible character U+{:04X} ({why}", c as u32);
                assert!(v.detail.contains(&code), "{name:?}: {v}");
            }
        }
        // Neighbours of the refused ranges, visible letters and marks, are names.
        for name in ["\u{00AC}\u{00AE}", "\u{2801}", "\u{3163}\u{3165}", "Ca\u{0301}rla", "Zoë"] {
            assert!(join(name).is_ok(), "{name:?}");
        }
        // The same in a seat and in a QueueTimeout.
        let seat = "{\"type\":\"MatchResult\",\"at\":\"2026-03-01\",\"seats\":[{\"player\":\"a\\u2028\",\"score\":1},{\"player\":\"b\",\"score\":0}]}";
        let v = parse_line(seat).unwrap_err();
        assert!(v.detail.contains("seats[0].player") && v.detail.contains("U+2028"), "{v}");
        let v = parse_line(r#"{"type":"QueueTimeout","at":"2026-03-01","player":"x\u00ad"}"#)
            .unwrap_err();
        assert_eq!(v.rule, Rule::PlayerName, "{v}");
    }

    #[test]
    fn digits_finer_than_a_nanosecond_are_refused_naming_the_field() {
        let v = parse_line(r#"{"type":"MidnightTick","at":"2026-03-01T00:00:00.0000000001Z"}"#)
            .unwrap_err();
        assert_eq!(v.rule, Rule::Timestamp, "{v}");
        assert!(v.detail.contains("finer than a nanosecond"), "{v}");
        let ok = r#"{"type":"PlayerJoined","at":"2026-03-01T10:00:00.123456789000Z","player":"a"}"#;
        assert!(parse_line(ok).is_ok());
    }

    #[test]
    fn a_leap_second_is_a_timestamp_refusal() {
        let v = parse_line(r#"{"type":"MidnightTick","at":"2016-12-31T23:59:60Z"}"#).unwrap_err();
        assert_eq!(v.rule, Rule::Timestamp);
        assert!(v.detail.contains("leap second"), "{v}");
    }
}
