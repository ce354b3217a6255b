//! The append rules of `docs/events.md`, named so that every refusal says which.
//!
//! [`Event::check`] enforces the rules one event satisfies on its own. The rules that need the
//! history (marked "log" below) are enforced by `ladder-log`, which reports them with the same names.

use crate::{Body, Event, Prior, Seat};
use std::fmt;

/// Longest player name, in Unicode scalar values (docs/events.md).
pub const MAX_NAME_CHARS: usize = 128;
/// Longest idempotency id, in bytes (our choice: ids are keys, not prose; see docs/events.md).
pub const MAX_ID_BYTES: usize = 256;
/// Longest MatchVoided reason, in Unicode scalar values (our choice, keeps blocks small).
pub const MAX_REASON_CHARS: usize = 1024;
/// Most seats in one match (docs/events.md, rule `too-many-seats`): a replay's memory per match
/// is linear in its seats, and 1,000 bounds it.
pub const MAX_SEATS: usize = 1000;
/// Longest canonical JSON line of an event, in bytes (rule `event-too-long`): the C2SP
/// tlog-tiles entry bundles that publish a ledger prefix each entry with a 16-bit length.
pub const MAX_EVENT_LINE_BYTES: usize = 65_535;

/// A named append rule. `Display` prints the stable kebab-case name scripts can match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The line is not JSON, or not an object of the event format.
    Syntax,
    /// `type` is not one of the five kinds.
    UnknownType,
    /// A field the kind needs is missing.
    MissingField,
    /// A field that this kind does not have.
    UnknownField,
    /// `at` is not an instant in range, or is finer than a nanosecond.
    Timestamp,
    /// A player name is empty, too long, or has control or invisible characters.
    PlayerName,
    /// An id is empty, too long, or has control characters.
    IdFormat,
    /// A number is NaN or infinite.
    Finite,
    /// `rd` or `volatility` of a prior is not > 0.
    PriorRange,
    /// `seconds` is not > 0.
    Seconds,
    /// Fewer than two seats.
    TooFewSeats,
    /// More than [`MAX_SEATS`] seats.
    TooManySeats,
    /// A player sits twice in one match.
    SeatRepeated,
    /// All seats are on one side.
    OneSided,
    /// A MidnightTick not at 00:00:00 UTC.
    TickNotMidnight,
    /// A MatchVoided reason that is too long.
    ReasonLength,
    /// (log) `at` earlier than the last stored event.
    TimeOrder,
    /// (log) A MidnightTick after another event at the same instant.
    TickOrder,
    /// (log) A second MidnightTick for one date, different from the first.
    TickRepeated,
    /// (log) A player named before joining.
    UnknownPlayer,
    /// (log) A player joining a second time, differently.
    JoinedTwice,
    /// (log) A stored id sent again with different content.
    IdConflict,
    /// (log) A MatchVoided naming no stored MatchResult.
    VoidTarget,
    /// (log) A MatchVoided for a match already voided.
    VoidRepeated,
    /// A line (JSON Lines) or CSV line longer than [`MAX_LINE_BYTES`].
    LineLength,
    /// The input could not be read (an I/O error, a directory): never skipped, it refuses the
    /// whole batch even where invalid events are skipped, because what follows is unknown.
    Unreadable,
    /// (log) `at` later than the append's `not_after` bound (the clock plus a margin).
    FutureInstant,
    /// (log) The event's canonical JSON line is longer than [`MAX_EVENT_LINE_BYTES`].
    EventTooLong,
    /// `home` is set on seats of more than one side.
    HomeSides,
}

/// Longest line of a JSON Lines file or a CSV file, in bytes without its line end: 1 MiB. A
/// longer line is refused (rule `line-length`) after reading at most this much of it, so an input
/// without line ends (`/dev/zero`) cannot exhaust memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

impl Rule {
    /// The stable name of the rule.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Syntax => "syntax",
            Rule::UnknownType => "unknown-type",
            Rule::MissingField => "missing-field",
            Rule::UnknownField => "unknown-field",
            Rule::Timestamp => "timestamp",
            Rule::PlayerName => "player-name",
            Rule::IdFormat => "id-format",
            Rule::Finite => "finite-number",
            Rule::PriorRange => "prior-range",
            Rule::Seconds => "seconds-positive",
            Rule::TooFewSeats => "two-seats",
            Rule::TooManySeats => "too-many-seats",
            Rule::SeatRepeated => "seat-repeated",
            Rule::OneSided => "two-sides",
            Rule::TickNotMidnight => "tick-at-midnight",
            Rule::ReasonLength => "reason-length",
            Rule::TimeOrder => "time-order",
            Rule::TickOrder => "tick-first",
            Rule::TickRepeated => "tick-once-per-date",
            Rule::UnknownPlayer => "joined-first",
            Rule::JoinedTwice => "join-once",
            Rule::IdConflict => "id-conflict",
            Rule::VoidTarget => "void-names-match",
            Rule::VoidRepeated => "void-once",
            Rule::LineLength => "line-length",
            Rule::Unreadable => "unreadable-input",
            Rule::FutureInstant => "future-instant",
            Rule::EventTooLong => "event-too-long",
            Rule::HomeSides => "home-one-side",
        }
    }

    /// False for the rules a skipped line cannot break: an unreadable input refuses the whole
    /// batch even where invalid events are skipped.
    pub fn skippable(self) -> bool {
        !matches!(self, Rule::Unreadable)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A broken rule and what broke it, e.g. `rule two-sides: every seat is on team 1`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule {rule}: {detail}")]
pub struct Violation {
    /// Which rule.
    pub rule: Rule,
    /// What, and where within the event (field names as in JSON).
    pub detail: String,
    /// The earlier input event this one conflicts with, by its index in the input (from 0), when
    /// that event is not stored but part of the same batch (an `id-conflict` within one import),
    /// so the caller can name its line.
    pub earlier: Option<usize>,
}

impl Violation {
    /// A violation of `rule` with a detail message.
    pub fn new(rule: Rule, detail: impl Into<String>) -> Violation {
        Violation { rule, detail: detail.into(), earlier: None }
    }
}

/// The name of a seat's field in messages, `seats[i].name`, formatted only when a rule fails (an
/// import checks millions of seats and almost all pass).
struct SeatField(usize, &'static str);

impl std::fmt::Display for SeatField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seats[{}].{}", self.0, self.1)
    }
}

/// The `Default_Ignorable_Code_Point` property of the Unicode Character Database
/// (DerivedCoreProperties.txt, Unicode 16.0): characters a renderer shows as nothing when it has
/// no glyph for them. Among them the soft hyphen U+00AD, the bidirectional controls (U+061C,
/// U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), the zero-width U+200B to U+200D, U+2060
/// and U+FEFF, the Mongolian vowel separator U+180E, the Hangul fillers U+115F, U+1160, U+3164
/// and U+FFA0, variation selectors and tags.
const DEFAULT_IGNORABLE: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{17B4}', '\u{17B5}'),
    ('\u{180B}', '\u{180F}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{206F}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF0}', '\u{FFF8}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0000}', '\u{E0FFF}'),
];

/// True for the characters refused in names because a name holding one can look like another
/// name (or like no name): every `Default_Ignorable_Code_Point` of the Unicode Character Database
/// (invisible: the soft hyphen U+00AD, bidirectional and zero-width controls, U+180E, the Hangul
/// fillers such as U+3164, variation selectors, tags), every `White_Space` character but the
/// plain space U+0020 (line and paragraph separators U+2028 and U+2029, and spaces such as U+00A0
/// and U+3000 that look like U+0020 and are not), and the blank Braille pattern U+2800, which
/// draws nothing.
pub fn is_invisible(c: char) -> bool {
    if c.is_ascii() {
        return c != ' ' && c.is_ascii_whitespace();
    }
    c == '\u{2800}'
        || c.is_whitespace()
        || DEFAULT_IGNORABLE.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// Checks a player name: 1 to 128 scalar values, not only white space, no control character and
/// none of [`is_invisible`].
pub(crate) fn check_name(field: &dyn std::fmt::Display, name: &str) -> Result<(), Violation> {
    let n = name.chars().count();
    if n == 0 {
        return Err(Violation::new(Rule::PlayerName, format!("`{field}` is empty")));
    }
    if n > MAX_NAME_CHARS {
        return Err(Violation::new(
            Rule::PlayerName,
            format!("`{field}` has {n} characters; at most {MAX_NAME_CHARS} are allowed"),
        ));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(Violation::new(
            Rule::PlayerName,
            format!("`{field}` contains the control character U+{:04X}", c as u32),
        ));
    }
    if let Some(c) = name.chars().find(|&c| is_invisible(c)) {
        let what = if c.is_whitespace() {
            "white space other than U+0020: a line break, or a space that looks like U+0020 and \
             is not"
        } else if c == '\u{2800}' {
            "the blank Braille pattern, which draws nothing"
        } else {
            "default-ignorable: shown as nothing"
        };
        return Err(Violation::new(
            Rule::PlayerName,
            format!(
                "`{field}` contains the invisible character U+{:04X} ({what}; names that look \
                 alike must be equal)",
                c as u32
            ),
        ));
    }
    if name.chars().all(char::is_whitespace) {
        return Err(Violation::new(
            Rule::PlayerName,
            format!(
                "`{field}` is only white space (U+{:04X})",
                name.chars().next().map_or(0, |c| c as u32)
            ),
        ));
    }
    Ok(())
}

fn check_finite(field: &dyn std::fmt::Display, x: f64) -> Result<(), Violation> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(Violation::new(Rule::Finite, format!("`{field}` is {x}; it must be a finite number")))
    }
}

fn check_prior(prior: &Prior) -> Result<(), Violation> {
    if let Some(r) = prior.rating {
        check_finite(&"rating", r)?;
    }
    for (field, v) in [("rd", prior.rd), ("volatility", prior.volatility)] {
        if let Some(v) = v {
            check_finite(&field, v)?;
            if v <= 0.0 {
                return Err(Violation::new(
                    Rule::PriorRange,
                    format!("`{field}` is {v}; it must be > 0"),
                ));
            }
        }
    }
    Ok(())
}

fn check_seats(seats: &[Seat]) -> Result<(), Violation> {
    if seats.len() < 2 {
        return Err(Violation::new(
            Rule::TooFewSeats,
            format!("a match needs at least two seats, this one has {}", seats.len()),
        ));
    }
    if seats.len() > MAX_SEATS {
        return Err(Violation::new(
            Rule::TooManySeats,
            format!("a match has at most {MAX_SEATS} seats, this one has {}", seats.len()),
        ));
    }
    for (i, seat) in seats.iter().enumerate() {
        check_name(&SeatField(i, "player"), &seat.player)?;
        check_finite(&SeatField(i, "score"), seat.score)?;
        if let Some(s) = seat.seconds {
            check_finite(&SeatField(i, "seconds"), s)?;
            if s <= 0.0 {
                return Err(Violation::new(
                    Rule::Seconds,
                    format!("`seats[{i}].seconds` is {s}; it must be > 0"),
                ));
            }
        }
        if let Some(j) = seats[..i].iter().position(|s| s.player == seat.player) {
            return Err(Violation::new(
                Rule::SeatRepeated,
                format!("player {:?} sits at seats[{j}] and seats[{i}]", seat.player),
            ));
        }
    }
    // One side only when every seat has the first seat's team (a seat without a team is a side
    // of its own): `Event::sides` all 0, without building it.
    if seats[0].team.is_some() && seats.iter().all(|s| s.team == seats[0].team) {
        return Err(Violation::new(
            Rule::OneSided,
            "every seat is on the same team; a match needs at least two sides",
        ));
    }
    // `home` on at most one side: every home seat shares the first home seat's team (a seat
    // without a team is a side alone, so it must be the only home seat).
    if let Some(first) = seats.iter().position(|s| s.home) {
        let team = &seats[first].team;
        if let Some(j) = seats
            .iter()
            .enumerate()
            .skip(first + 1)
            .position(|(_, s)| s.home && (team.is_none() || s.team != *team))
        {
            let j = j + first + 1;
            return Err(Violation::new(
                Rule::HomeSides,
                format!(
                    "`seats[{first}].home` and `seats[{j}].home` are both set on different sides; \
                     `home` marks at most one side"
                ),
            ));
        }
    }
    Ok(())
}

/// An event whose own rules hold ([`Event::check`] passed): made only by [`Checked::new`], and
/// read-only afterwards, so whoever takes one need not check it again. `ladder import` parses and
/// checks its events on other threads and hands them to the ledger as `Checked`, which then skips
/// that step (docs/PERFORMANCE.md, "Import: a shorter critical path").
#[derive(Clone, Debug, PartialEq)]
pub struct Checked(Event);

impl Checked {
    /// `event` once [`Event::check`] passes; its violation otherwise.
    pub fn new(event: Event) -> Result<Checked, Violation> {
        event.check()?;
        Ok(Checked(event))
    }

    /// The event.
    pub fn event(&self) -> &Event {
        &self.0
    }

    /// The event, given back.
    pub fn into_event(self) -> Event {
        self.0
    }
}

impl Event {
    /// Checks the rules an event satisfies on its own (everything but the "(log)" rules of [`Rule`]).
    pub fn check(&self) -> Result<(), Violation> {
        if let Some(id) = &self.id {
            if id.is_empty() || id.len() > MAX_ID_BYTES || id.chars().any(|c| c.is_control()) {
                return Err(Violation::new(
                    Rule::IdFormat,
                    format!("`id` must be 1 to {MAX_ID_BYTES} bytes without control characters"),
                ));
            }
        }
        match &self.body {
            Body::PlayerJoined { player, prior } => {
                check_name(&"player", player)?;
                check_prior(prior)
            }
            Body::QueueTimeout { player } => check_name(&"player", player),
            Body::MatchResult { seats } => check_seats(seats),
            Body::MidnightTick => {
                if self.at.is_midnight() {
                    Ok(())
                } else {
                    Err(Violation::new(
                        Rule::TickNotMidnight,
                        format!("a MidnightTick must be at 00:00:00 UTC, not {}", self.at),
                    ))
                }
            }
            Body::MatchVoided { match_id, reason } => {
                if match_id.is_empty() || match_id.len() > MAX_ID_BYTES {
                    return Err(Violation::new(
                        Rule::IdFormat,
                        format!("`match` must be 1 to {MAX_ID_BYTES} bytes"),
                    ));
                }
                let n = reason.chars().count();
                if n > MAX_REASON_CHARS {
                    return Err(Violation::new(
                        Rule::ReasonLength,
                        format!(
                            "`reason` has {n} characters; at most {MAX_REASON_CHARS} are allowed"
                        ),
                    ));
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Body, Event, Rule, Seat, Team, Timestamp};

    fn seat(i: usize, team: Option<Team>, score: f64) -> Seat {
        Seat { player: format!("p{i}"), score, team, seconds: None, home: false }
    }

    #[test]
    fn home_is_on_at_most_one_side() {
        let home = |mut s: Seat| {
            s.home = true;
            s
        };
        let t = |n| Some(Team::Int(n));
        // One home seat; two home seats of one team: accepted.
        assert!(match_of(vec![home(seat(0, None, 1.0)), seat(1, None, 0.0)]).check().is_ok());
        let team_home =
            vec![home(seat(0, t(1), 1.0)), seat(1, t(2), 0.0), home(seat(2, t(1), 1.0))];
        assert!(match_of(team_home).check().is_ok());
        // Two lone home seats, or home seats of two teams: refused, naming both seats.
        let v = match_of(vec![home(seat(0, None, 1.0)), home(seat(1, None, 0.0))]).check();
        let v = v.unwrap_err();
        assert_eq!(v.rule, Rule::HomeSides);
        assert!(v.detail.contains("seats[0].home") && v.detail.contains("seats[1].home"), "{v}");
        let v =
            match_of(vec![seat(0, t(1), 1.0), home(seat(1, t(1), 0.0)), home(seat(2, t(2), 0.0))])
                .check()
                .unwrap_err();
        assert_eq!(v.rule, Rule::HomeSides);
        assert!(v.detail.contains("seats[1].home") && v.detail.contains("seats[2].home"), "{v}");
    }

    fn match_of(seats: Vec<Seat>) -> Event {
        Event { at: Timestamp(0), id: None, body: Body::MatchResult { seats } }
    }

    #[test]
    fn one_sided_is_every_seat_on_the_first_seats_team() {
        // Every assignment of {none, "a", "b", 1} to 2 to 4 seats: the rule agrees with
        // `Event::sides` being all 0.
        let teams =
            [None, Some(Team::Text("a".into())), Some(Team::Text("b".into())), Some(Team::Int(1))];
        for n in 2..=4usize {
            for code in 0..teams.len().pow(n as u32) {
                let seats: Vec<Seat> = (0..n)
                    .map(|i| {
                        seat(
                            i,
                            teams[(code / teams.len().pow(i as u32)) % teams.len()].clone(),
                            1.0,
                        )
                    })
                    .collect();
                let one_sided = Event::sides(&seats).iter().all(|&s| s == 0);
                let refused = match_of(seats).check().err().map(|v| v.rule);
                assert_eq!(refused == Some(Rule::OneSided), one_sided, "code {code}, {n} seats");
            }
        }
    }

    #[test]
    fn a_bad_seat_is_named_by_its_index_and_field() {
        let v = match_of(vec![seat(0, None, 1.0), seat(1, None, f64::NAN)]).check().unwrap_err();
        assert_eq!(v.rule, Rule::Finite);
        assert!(v.detail.starts_with("`seats[1].score` is NaN"), "{}", v.detail);
        let mut empty = seat(1, None, 0.0);
        empty.player.clear();
        let v = match_of(vec![seat(0, None, 1.0), empty]).check().unwrap_err();
        assert_eq!(v.detail, "`seats[1].player` is empty");
    }
}
