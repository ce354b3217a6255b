//! One event explained: the value [`explain`] builds, which `ladder explain` renders as a table
//! and as JSON ([`Explanation::to_json`]) and `ladder serve` answers at
//! `/api/events/SEQ/explain` and renders on the match page `/events/SEQ`.

use crate::account::{account_from, Account, FromTheStart, Start, Starts};
use crate::history::LedgerHistory;
use crate::ExplainError;
use ladder_events::{json::to_line, Body, Event, Timestamp};
use ladder_log::Ledger;
use ladder_projector::{Config, PlayerId, Projector, Roster, Standing, Trace, TraceEntry};
use ladder_proof::{hex, InclusionProof, Proof};
use ladder_replay::{registry, replay, Options, Until};
use serde_json::{json, Value};

/// What to explain: one event under one configuration, and the same event under others.
#[derive(Clone, Debug)]
pub struct Request {
    /// The configuration explained.
    pub config: Config,
    /// The event's sequence number.
    pub seq: u64,
    /// Only this player (`None`: every player the event names).
    pub player: Option<String>,
    /// The same event under these configurations too (`--vs`).
    pub vs: Vec<Config>,
}

/// The configuration `--vs TEXT` names: `base`'s constants with the `K=V[,K=V...]` of `text` on
/// top.
pub fn vs_config(base: &Config, text: &str) -> Result<Config, ladder_projector::ConfigError> {
    let mut sets: Vec<(String, String)> =
        base.values.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    sets.extend(Config::parse_assignments(text)?);
    registry::config(base.algorithm, &sets).map_err(|e| match e {
        ladder_replay::ReplayError::Config(c) => c,
        other => ladder_projector::ConfigError::Syntax(other.to_string()),
    })
}

/// One line of the arithmetic, names in place of ids.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A heading.
    Section(String),
    /// A game of `player` against `opponent` whose quantities follow.
    Game {
        /// Whose computation.
        player: Option<String>,
        /// Against whom.
        opponent: String,
    },
    /// A quantity with its formula.
    Quantity {
        /// Whose (`None` when shared).
        player: Option<String>,
        /// The name the algorithm's published description gives it.
        name: String,
        /// The formula.
        formula: String,
        /// Its value.
        value: f64,
    },
    /// Something an auditor looks for, as the algorithm raised it.
    Flag {
        /// Whose (`None` when no one's).
        player: Option<String>,
        /// Its short code.
        code: String,
        /// A sentence.
        message: String,
    },
}

/// One player of the event: the standing just before and just after it.
#[derive(Clone, Debug)]
pub struct Seat {
    /// The player.
    pub player: String,
    /// Their score (a match only).
    pub score: Option<f64>,
    /// What `replay --until SEQ-1` gives them (`None`: not joined yet).
    pub before: Option<Standing>,
    /// What `replay --until SEQ` gives them.
    pub after: Option<Standing>,
    /// `after`'s rating less `before`'s (0 at a join; `None` without an `after`).
    pub change: Option<f64>,
}

/// A flag with its plain-language reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Flag {
    /// Whose (`-` when no one's).
    pub player: String,
    /// Its short code (`winner-lost-rating`, `rd-at-cap`, ...).
    pub code: String,
    /// What raised it, with the numbers.
    pub message: String,
    /// Why it matters, in plain language (empty when there is nothing to add).
    pub why: String,
}

/// The event under one configuration.
#[derive(Clone, Debug)]
pub struct Told {
    /// The configuration.
    pub config: Config,
    /// Every player explained, in the event's order.
    pub seats: Vec<Seat>,
    /// The algorithm's trace of the event, narrowed to the players explained.
    pub steps: Vec<Step>,
    /// The flags, each with its reason.
    pub flags: Vec<Flag>,
}

/// One player's two changes when a match is rated in a period: this game's and the period's.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodChange {
    /// The player.
    pub player: String,
    /// This game's effect: the rating with the period closed just before this event (`replay
    /// --until SEQ-1`; `None` before the player joined) ...
    pub without: Option<f64>,
    /// ... and just after it (`replay --until SEQ`).
    pub with: f64,
    /// The rating at the period's start ...
    pub start: f64,
    /// ... and at its close, with every game of the period (what `replay` gives once the period
    /// has closed, or at the head while it is still open).
    pub end: f64,
}

impl PeriodChange {
    /// This game's effect: `with` less `without`.
    pub fn game(&self) -> f64 {
        self.with - self.without.unwrap_or(self.with)
    }

    /// The whole period's change: `end` less `start`.
    pub fn period(&self) -> f64 {
        self.end - self.start
    }
}

/// The rating period a match is rated in (Glicko and Glicko-2 with a duration `period`), and
/// the arithmetic that rates it.
#[derive(Clone, Debug)]
pub struct Period {
    /// Its index k: the period is `[k P, (k + 1) P)` from the Unix epoch.
    pub index: i64,
    /// Its first instant.
    pub start: Timestamp,
    /// The first instant after it.
    pub end: Timestamp,
    /// The event whose arrival closes it (sequence number and instant); `None` while it is still
    /// open at the head.
    pub closing: Option<(u64, Timestamp)>,
    /// The head's sequence number (an open period is computed there).
    pub head: u64,
    /// The period's computation, narrowed to the players explained.
    pub steps: Vec<Step>,
    /// Each explained player's change by this game and by the whole period.
    pub changes: Vec<PeriodChange>,
}

impl Period {
    /// Whether the period closes at the explained event itself.
    pub fn closes_at(&self, seq: u64) -> bool {
        self.closing.is_some_and(|(s, _)| s == seq)
    }

    /// The last event the period's numbers are final from: the one before the closing event, or
    /// the head while the period is open (`replay --until` it gives [`PeriodChange::end`]).
    pub fn final_through(&self) -> u64 {
        self.closing.map_or(self.head, |(s, _)| s - 1)
    }

    /// Where the period's arithmetic happens, in one paragraph.
    pub fn sentence(&self, seq: u64) -> String {
        match self.closing {
            Some((s, _)) if s == seq => format!("period {} closes at this event", self.index),
            Some((s, at)) => format!(
                "this match is rated, with every other game of the period, when the period \
                 closes: at event {s} (the first event after the period, at {at}). The numbers \
                 below are that computation; they are final only from event {s} on. Before it, \
                 `replay` shows the period computed as if it closed at the event replayed to: so \
                 the table above is the period without this match (before) and with it (after)."
            ),
            None => format!(
                "the period is still open at the head (event {}): it closes with the first event \
                 at or after {}. The numbers below are the period computed as if it closed now \
                 (what `replay` prints); they are final only once the period closes.",
                self.head, self.end
            ),
        }
    }
}

/// Where each number of a period's two changes comes from, as the table and the JSON label them.
pub fn change_labels(seq: u64, period: &Period) -> (String, String) {
    let game = format!(
        "this game's effect: the period closed just before this event (replay --until {}) and \
         just after it (replay --until {seq})",
        seq - 1
    );
    let whole = match period.closing {
        Some((s, _)) => format!(
            "the whole period's change: from the period's start to its close at event {s}, every \
             game of period {} counted (replay --until {})",
            period.index,
            s - 1
        ),
        None => format!(
            "the whole period's change so far: from the period's start to the head (event {}), \
             every game of period {} played so far counted (replay --until {})",
            period.head, period.index, period.head
        ),
    };
    (game, whole)
}

/// One event explained: where it sits in the chain and the tree, every quantity behind each
/// player's change under one configuration (and the period's, when matches wait for one), the
/// flags an auditor looks for, and the same under other constants.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The event's sequence number.
    pub seq: u64,
    /// The event as stored.
    pub event: Event,
    /// Its chain hash.
    pub hash: [u8; 32],
    /// The previous event's chain hash.
    pub prev_hash: [u8; 32],
    /// Its inclusion proof in the tree of every event (the tree head `ladder checkpoint`
    /// publishes now).
    pub inclusion: InclusionProof,
    /// Whether the proof checks (the reason when it does not).
    pub inclusion_ok: Result<(), String>,
    /// The players explained.
    pub names: Vec<String>,
    /// Under the configuration asked for.
    pub explained: Told,
    /// The rating period of a match rated in periods.
    pub period: Option<Period>,
    /// Under each `--vs` configuration.
    pub vs: Vec<Told>,
}

/// Whether a trace entry belongs in an explanation narrowed to the players `only`: headings and
/// entries of no player always, a player's quantities, games and flags only for those players
/// (the opponents' values they used are recorded under their own name).
fn about(entry: &TraceEntry, roster: &Roster, only: &[String]) -> bool {
    match entry {
        TraceEntry::Section(_) => true,
        TraceEntry::Quantity { player, .. }
        | TraceEntry::Flag { player, .. }
        | TraceEntry::Opponent { player, .. } => {
            player.is_none_or(|p| only.iter().any(|n| n == roster.name(p)))
        }
    }
}

/// Whether `name` owns any entry of `trace`.
fn owns_entries(trace: &Trace, roster: &Roster, name: &str) -> bool {
    trace.entries.iter().any(|e| match e {
        TraceEntry::Quantity { player: Some(p), .. }
        | TraceEntry::Flag { player: Some(p), .. }
        | TraceEntry::Opponent { player: Some(p), .. } => roster.name(*p) == name,
        _ => false,
    })
}

/// Replaces `#N` (a player id in a trace heading) with the player's name; a `#N` that names
/// no player of the roster stays as written.
pub fn named(text: &str, roster: &Roster) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let digits: String = rest[i + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
        match digits.parse::<u32>().ok().filter(|&n| (n as usize) < roster.len()) {
            Some(n) => out.push_str(roster.name(PlayerId(n))),
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

/// The entries of `trace` about `only`, names for ids.
fn steps_of(trace: &Trace, roster: &Roster, only: &[String]) -> Vec<Step> {
    let who = |p: &Option<PlayerId>| p.map(|p| roster.name(p).to_string());
    trace
        .entries
        .iter()
        .filter(|e| about(e, roster, only))
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
        .collect()
}

/// The value of quantity `name` of `player` in `trace` (the last one recorded).
fn quantity_of(trace: &Trace, roster: &Roster, player: &str, name: &str) -> Option<f64> {
    trace.entries.iter().rev().find_map(|e| match e {
        TraceEntry::Quantity { player: Some(p), name: n, value, .. }
            if n == name && roster.name(*p) == player =>
        {
            Some(*value)
        }
        _ => None,
    })
}

/// The value of a shared quantity (of no player).
fn none_quantity(trace: &Trace, name: &str) -> Option<f64> {
    trace.entries.iter().rev().find_map(|e| match e {
        TraceEntry::Quantity { player: None, name: n, value, .. } if n == name => Some(*value),
        _ => None,
    })
}

/// A plain-language sentence for a flag: why it was raised, with the numbers that raised it. The
/// algorithm's own reason first ([`Projector::flag_reason`]), else the generic one of the code.
fn plain(
    projector: &dyn Projector,
    code: &str,
    player: &str,
    traces: &[(&Trace, &Roster)],
) -> String {
    let q = |name: &str| traces.iter().find_map(|(t, r)| quantity_of(t, r, player, name));
    if let Some(why) = projector.flag_reason(code, player, &q) {
        return why;
    }
    let num = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.6}"));
    match code {
        "winner-lost-rating" => format!("{player} won and the rating fell"),
        "loser-gained-rating" => format!("{player} lost and the rating rose"),
        "rd-at-cap" => format!(
            "{player}'s deviation is at rd_max, the deviation of an unrated player (a newcomer, or \
             back after a long absence), so this result moves their rating as far as a newcomer's"
        ),
        "provisional-opponent" => format!(
            "{player}'s opponent is provisional (their RD is above provisional_rd): their rating is \
             still uncertain, and a high opponent RD lowers g (PG), so the game moves {player}'s \
             rating less"
        ),
        "long-idle-gap" => format!(
            "{player} had not played for a long time: the deviation grew meanwhile, so this result \
             moves the rating more"
        ),
        "scaled-down" => format!(
            "a rating offset in this game was more than GAME_MULT = {} points per minute played: \
             every player's change was multiplied by scale = {} so that nobody moves faster",
            num(traces.iter().find_map(|(t, _)| none_quantity(t, "GAME_MULT"))),
            num(traces.iter().find_map(|(t, _)| none_quantity(t, "scale")))
        ),
        "provisional" => format!(
            "{player}'s deviation is still above provisional_rd: the rating rests on too few recent \
             games to be trusted, so it is shown as provisional and kept off the leaderboard's \
             ranking until more games bring the deviation down"
        ),
        "whole-game-time" => {
            format!("no seconds were given for {player}: the whole game's length counts")
        }
        "no-finite-rating" => format!(
            "every game of {player} has the same result, so the performance equation has no finite \
             root: the rating stays where it was"
        ),
        _ => String::new(),
    }
}

/// Whether `name` won (or lost) against every other seat of `seats`.
fn outcome(seats: &[ladder_events::Seat], name: &str) -> Option<(bool, bool)> {
    let me = seats.iter().find(|s| s.player == name)?;
    let others = || seats.iter().filter(|s| s.player != name);
    Some((others().all(|s| me.score > s.score), others().all(|s| me.score < s.score)))
}

/// Flags the projector raised, plus a rating left provisional (TGR) and a winner who lost rating
/// or a loser who gained, which any algorithm can show: (player, code, message).
fn raised(acc: &Account, names: &[String], body: &Body) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = acc
        .trace
        .entries
        .iter()
        .filter_map(|e| match e {
            TraceEntry::Flag { player, code, message } => Some((
                player.map_or("-".to_string(), |p| acc.roster.name(p).to_string()),
                code.to_string(),
                named(message, &acc.roster),
            )),
            _ => None,
        })
        .collect();
    // A provisional rating (TGR: RD above provisional_rd after the event).
    for (i, name) in names.iter().enumerate() {
        let Some(a) = &acc.after[i] else { continue };
        if a.display.is_some_and(|d| d.provisional) {
            let limit = acc.config.values.iter().find(|(k, _)| *k == "provisional_rd");
            out.push((
                name.clone(),
                "provisional".into(),
                format!(
                    "RD {:.4} after the event is above provisional_rd = {}",
                    a.rd.unwrap_or(f64::NAN),
                    limit.map_or("?".to_string(), |(_, v)| v.to_string())
                ),
            ));
        }
    }
    if let Body::MatchResult { seats } = body {
        for (i, name) in names.iter().enumerate() {
            let (Some(b), Some(a)) = (&acc.before[i], &acc.after[i]) else { continue };
            let Some((won, lost)) = outcome(seats, name) else { continue };
            let change = a.rating - b.rating;
            let code = if won && change < 0.0 {
                "winner-lost-rating"
            } else if lost && change > 0.0 {
                "loser-gained-rating"
            } else {
                continue;
            };
            if !out.iter().any(|(p, c, _)| p == name && c == code) {
                out.push((name.clone(), code.into(), format!("rating changed by {change:+.4}")));
            }
        }
    }
    out
}

/// A period's computation, found by [`period_close`]: where it happens, its trace and names.
struct PeriodClose {
    k: i64,
    start: Timestamp,
    end: Timestamp,
    closing: Option<(u64, Timestamp)>,
    head: u64,
    trace: Trace,
    roster: Roster,
}

/// Finds where period `k` of length `p` (which holds event `seq`) is computed: at the first later
/// event that the replay applies in a later period, or, when no event has come after the period
/// yet, at the head as the end of a replay computes it. Returns that computation's trace.
fn period_close(
    ledger: &Ledger,
    config: &Config,
    seq: u64,
    (k, p): (i64, i64),
    starts: &dyn Starts,
) -> Result<PeriodClose, ExplainError> {
    let start = Timestamp(k.saturating_mul(p));
    let end = Timestamp(k.saturating_add(1).saturating_mul(p));
    let title = format!("{} period {k}:", config.algorithm);
    let closes = |t: &Trace| {
        t.entries.iter().any(|e| matches!(e, TraceEntry::Section(s) if s.starts_with(&title)))
    };
    // Only the period's computation: from its heading to the next heading (the closing event's
    // own entries follow it).
    let only_period = |t: Trace| {
        let mut entries = t
            .entries
            .into_iter()
            .skip_while(|e| !matches!(e, TraceEntry::Section(s) if s.starts_with(&title)));
        let mut out = Trace::new();
        out.entries.extend(entries.next());
        out.entries.extend(entries.take_while(|e| !matches!(e, TraceEntry::Section(_))));
        out
    };
    let head = ledger.head().seq;
    let mut candidates = 0;
    for s in seq + 1..=head {
        let stored = ledger.get(s)?.ok_or(ExplainError::Missing(s))?;
        if stored.event.at < end {
            continue;
        }
        // The first event at or after the period's end closes it, unless the replay does not
        // apply it (a void); then the next one does.
        let acc = account_from(ledger, config.clone(), s, &[], starts)?;
        if closes(&acc.trace) {
            return Ok(PeriodClose {
                k,
                start,
                end,
                closing: Some((s, stored.event.at)),
                head,
                trace: only_period(acc.trace),
                roster: acc.roster,
            });
        }
        candidates += 1;
        if candidates == 16 {
            break;
        }
    }
    // Still open at the head: computed as the end of a replay computes it.
    let (mut projector, resume) = match starts.before(config, head + 1).filter(|s| s.seq <= head) {
        Some(Start { projector, roster, seq, hash }) => (projector, Some((seq, hash, roster))),
        None => (registry::build(config.clone())?, None),
    };
    let r = replay(
        &LedgerHistory::new(ledger),
        &mut [&mut projector],
        Options { until: Until::Seq(head), resume, ..Options::default() },
        &mut |_| {},
    )
    .map_err(|source| ExplainError::Replay {
        config: config.to_string(),
        seq: head,
        source,
    })?;
    let mut trace = Trace::new();
    projector.settle(head, Some(&mut trace))?;
    if !closes(&trace) {
        return Err(ExplainError::NoClose { algorithm: config.algorithm, index: k });
    }
    Ok(PeriodClose {
        k,
        start,
        end,
        closing: None,
        head,
        trace: only_period(trace),
        roster: r.roster,
    })
}

/// An account told: its seats, its steps narrowed to `names`, and its flags with their reasons
/// (with the period's flags and the period's result against this event's when `period` is the
/// account's period close).
fn told(acc: &Account, names: &[String], event: &Event, period: Option<&PeriodClose>) -> Told {
    let body = &event.body;
    let mut fl = raised(acc, names, body);
    if let Some(pc) = period {
        for e in &pc.trace.entries {
            if let TraceEntry::Flag { player: Some(p), code, message } = e {
                let n = pc.roster.name(*p);
                if names.iter().any(|x| x == n) && !fl.iter().any(|(a, c, _)| a == n && c == code) {
                    fl.push((n.to_string(), code.to_string(), named(message, &pc.roster)));
                }
            }
        }
    }
    // The period's result against this event's result: a winner whose period lowers them.
    if let (Some(pc), Body::MatchResult { seats }) = (period, body) {
        for (i, name) in names.iter().enumerate() {
            let Some((won, lost)) = outcome(seats, name) else { continue };
            let q = |n: &str| quantity_of(&pc.trace, &pc.roster, name, n);
            // On the reported scale (Glicko-2 traces the period's start as mu).
            let Some((r, r_new)) = acc.projector.period_change(&q) else { continue };
            let code = if won && r_new < r {
                "winner-lost-rating"
            } else if lost && r_new > r {
                "loser-gained-rating"
            } else {
                continue;
            };
            if !fl.iter().any(|(p, c, _)| p == name && c == code) {
                let game = acc.change(i).map_or("-".to_string(), |c| format!("{c:+.4}"));
                fl.push((
                    name.clone(),
                    code.into(),
                    format!(
                        "the whole period of this match (every game in it) moves the rating from \
                         {r:.4} to {r_new:.4}; this game's own effect is {game}"
                    ),
                ));
            }
        }
    }
    fl.retain(|(p, _, _)| p == "-" || names.contains(p));
    let mut traces = vec![(&acc.trace, &acc.roster)];
    if let Some(pc) = period {
        traces.push((&pc.trace, &pc.roster));
    }
    let flags = fl
        .into_iter()
        .map(|(player, code, message)| {
            let why = plain(&acc.projector, &code, &player, &traces);
            Flag { player, code, message, why }
        })
        .collect();
    let seats = names
        .iter()
        .enumerate()
        .map(|(i, n)| Seat {
            player: n.clone(),
            score: match body {
                Body::MatchResult { seats } => {
                    seats.iter().find(|s| &s.player == n).map(|s| s.score)
                }
                _ => None,
            },
            before: acc.before[i].clone(),
            after: acc.after[i].clone(),
            change: acc.change(i),
        })
        .collect();
    Told {
        config: acc.config.clone(),
        seats,
        steps: steps_of(&acc.trace, &acc.roster, names),
        flags,
    }
}

/// Builds the explanation of `request.seq`: replays each configuration through the event, finds
/// the period's close for a match rated in periods, and proves the event's inclusion in the
/// tree of every event.
pub fn explain(ledger: &Ledger, request: &Request) -> Result<Explanation, ExplainError> {
    explain_with(ledger, request, &FromTheStart)
}

/// [`explain`], each replay started from the state `starts` gives, if any: the same explanation
/// (a server keeps states of its folds so that the first explanation of an event costs the
/// events since the nearest one, not the whole history).
pub fn explain_with(
    ledger: &Ledger,
    request: &Request,
    starts: &dyn Starts,
) -> Result<Explanation, ExplainError> {
    let head = ledger.head();
    let seq = request.seq;
    if seq == 0 || seq > head.seq {
        return Err(ExplainError::NoEvent { seq, head: head.seq });
    }
    let stored = ledger.get(seq)?.ok_or(ExplainError::Missing(seq))?;
    // The event's inclusion proof in the tree of every event: O(log n) hashes from the tree's
    // stored subtrees, checked by the same function `ladder check-proof` runs.
    let inclusion = ledger.prove_inclusion(seq, head.seq)?;
    let inclusion_ok = Proof::Inclusion(inclusion.clone()).check().map_err(|e| e.to_string());
    let seats: Vec<String> = stored.event.players().map(str::to_string).collect();
    let names: Vec<String> = match &request.player {
        Some(p) => vec![p.clone()],
        None => seats.clone(),
    };
    let configs = std::iter::once(&request.config).chain(&request.vs);
    let accounts: Vec<Account> = configs
        .map(|c| account_from(ledger, c.clone(), seq, &names, starts))
        .collect::<Result<_, _>>()?;
    let base = &accounts[0];
    // Glicko and Glicko-2 rate a match when its period closes: find that computation.
    let kp = match stored.event.body {
        Body::MatchResult { .. } => base.projector.rating_period(stored.event.at),
        _ => None,
    };
    let close = match kp {
        Some(kp) => Some(period_close(ledger, &base.config, seq, kp, starts)?),
        None => None,
    };
    if let Some(p) = &request.player {
        let in_period = close.as_ref().is_some_and(|pc| owns_entries(&pc.trace, &pc.roster, p));
        if !seats.contains(p) && !in_period && !owns_entries(&base.trace, &base.roster, p) {
            return Err(ExplainError::NotNamed {
                seq,
                player: p.clone(),
                algorithm: base.config.algorithm,
                names: seats.join(", "),
            });
        }
    }
    let explained = told(base, &names, &stored.event, close.as_ref());
    let vs = accounts[1..].iter().map(|a| told(a, &names, &stored.event, None)).collect();
    let period = close.map(|pc| {
        let changes = names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                let q = |name: &str| quantity_of(&pc.trace, &pc.roster, n, name);
                let (start, end) = base.projector.period_change(&q)?;
                Some(PeriodChange {
                    player: n.clone(),
                    without: base.before[i].as_ref().map(|s| s.rating),
                    with: base.after[i].as_ref()?.rating,
                    start,
                    end,
                })
            })
            .collect();
        Period {
            index: pc.k,
            start: pc.start,
            end: pc.end,
            closing: pc.closing,
            head: pc.head,
            steps: steps_of(&pc.trace, &pc.roster, &names),
            changes,
        }
    });
    Ok(Explanation {
        seq,
        event: stored.event,
        hash: stored.hash,
        prev_hash: stored.prev_hash,
        inclusion,
        inclusion_ok,
        names,
        explained,
        period,
        vs,
    })
}

/// A standing's fields as a JSON object ([`Standing::fields`]).
pub fn standing_json(s: &Standing) -> Value {
    Value::Object(
        s.fields()
            .into_iter()
            .map(|(k, v)| (k.to_string(), serde_json::to_value(v).unwrap_or_default()))
            .collect(),
    )
}

/// Steps as JSON: every quantity a number, players and opponents by name.
fn steps_json(steps: &[Step]) -> Vec<Value> {
    steps
        .iter()
        .map(|s| match s {
            Step::Section(t) => json!({ "section": t }),
            Step::Game { player, opponent } => json!({ "player": player, "opponent": opponent }),
            Step::Quantity { player, name, formula, value } => {
                json!({ "player": player, "name": name, "formula": formula, "value": value })
            }
            Step::Flag { player, code, message } => {
                json!({ "player": player, "flag": code, "message": message })
            }
        })
        .collect()
}

impl Told {
    /// The JSON of one configuration's account.
    pub fn to_json(&self) -> Value {
        let players: Vec<_> = self
            .seats
            .iter()
            .map(|s| {
                json!({
                    "player": s.player,
                    "before": s.before.as_ref().map(standing_json),
                    "after": s.after.as_ref().map(standing_json),
                    "change": s.change,
                })
            })
            .collect();
        let flags: Vec<_> = self
            .flags
            .iter()
            .map(
                |f| json!({"player": f.player, "flag": f.code, "message": f.message, "why": f.why}),
            )
            .collect();
        json!({
            "config": self.config.to_string(),
            "players": players,
            "trace": steps_json(&self.steps),
            "flags": flags,
        })
    }
}

impl Explanation {
    /// The object `ladder explain --format json` prints and `GET /api/events/SEQ/explain`
    /// answers.
    pub fn to_json(&self) -> Value {
        let period = self.period.as_ref().map(|p| {
            let (game, whole) = change_labels(self.seq, p);
            let changes: Vec<_> = p
                .changes
                .iter()
                .map(|c| {
                    json!({
                        "player": c.player,
                        "this_game": {
                            "label": game, "without": c.without, "with": c.with,
                            "change": c.game(),
                        },
                        "whole_period": {
                            "label": whole, "start": c.start, "end": c.end,
                            "change": c.period(),
                        },
                    })
                })
                .collect();
            json!({
                "index": p.index,
                "start": p.start.to_string(),
                "end": p.end.to_string(),
                "closes_at": p.closing.map(|(s, _)| s),
                "open_at_head": p.closing.is_none(),
                "final": p.closes_at(self.seq),
                "changes": changes,
                "trace": steps_json(&p.steps),
            })
        });
        let line = to_line(&self.event);
        json!({
            "seq": self.seq,
            "event": serde_json::from_str::<Value>(&line).unwrap_or(Value::String(line)),
            "hash": hex(&self.hash),
            "prev_hash": hex(&self.prev_hash),
            "inclusion": serde_json::from_str::<Value>(&Proof::Inclusion(self.inclusion.clone()).to_json())
                .unwrap_or_default(),
            "inclusion_ok": self.inclusion_ok.is_ok(),
            "explained": self.explained.to_json(),
            "period": period,
            "vs": self.vs.iter().map(Told::to_json).collect::<Vec<_>>(),
        })
    }
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
