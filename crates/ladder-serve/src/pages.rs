//! The HTML pages, server-rendered from maud's typed templates (every value escaped by the
//! template, never concatenated): the leaderboard, a player's rating history (ladder-plot's SVG
//! chart) with every game and its change, and one event with every seat's change explained step
//! by step and "Check it yourself". Every page has the algorithm and constants picker, works
//! without JavaScript (only the check needs it), fits a phone's width, and names the tree size
//! and root it was computed at.

use maud::{html, Markup, DOCTYPE};

/// The stylesheet: small, readable on a phone.
const STYLE: &str = "\
:root{color-scheme:light dark}\
body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:.75rem;line-height:1.45}\
nav{display:flex;gap:1rem;flex-wrap:wrap}h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.15rem;margin-top:1.5rem}\
table{border-collapse:collapse;width:100%}th,td{padding:.3rem .45rem;border-bottom:1px solid #8884;text-align:left;vertical-align:top}\
th.n,td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.scroll{overflow-x:auto}code,pre{font-size:.85rem;overflow-wrap:anywhere;white-space:pre-wrap}\
pre.leaf{background:#8881;padding:.5rem;border-radius:.3rem}\
form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:1rem 0}label{display:flex;flex-direction:column;font-size:.85rem}\
input,select,button{font-size:1rem;padding:.3rem}figure.chart{margin:1rem 0}figure.chart svg{width:100%;height:auto}\
.up{color:#060}.down{color:#b00}@media (prefers-color-scheme:dark){.up{color:#5c5}.down{color:#f66}}\
tr.section td{font-weight:600;padding-top:.8rem}tr.flag td{color:#b60}table.steps td{font-size:.9rem}\
#check{border:2px solid #888;border-radius:.4rem;padding:0 1rem .5rem;margin-top:1.5rem}\
#check[data-result=verified]{border-color:#080}#check[data-result=failed]{border-color:#c00}\
#check .says{font-weight:600}ol.steps{font-size:.8rem;overflow-wrap:anywhere}\
footer{margin-top:2rem;color:#777;font-size:.85rem;overflow-wrap:anywhere}\
table.steps code{overflow-wrap:normal}\
@media (max-width:40rem){td.n small{display:block}.wide{display:none}\
table.steps tr{display:flex;flex-wrap:wrap;border-bottom:1px solid #8884}table.steps td{border:0;padding:.1rem .3rem}}";

/// The tree a page was computed at.
#[derive(Clone, Debug)]
pub struct TreeAt {
    /// The checkpoint's size.
    pub size: u64,
    /// Its root, in hex.
    pub root: String,
    /// The log's origin.
    pub origin: String,
}

fn layout(title: &str, tree: &TreeAt, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (tree.origin) }
                style { (maud::PreEscaped(STYLE)) }
            }
            body {
                nav { a href="/" { "Leaderboard" } }
                h1 { (title) }
                (body)
                footer {
                    "Computed at the signed tree of " (tree.size) " events, root "
                    code { (tree.root) } " (log " code { (tree.origin) } ", "
                    a href="/log/checkpoint" { "checkpoint" } ")."
                }
            }
        }
    }
}

/// The leaderboard page over the JSON object of `GET /api/leaderboard` (`board`), with the
/// picker filled in with what was asked (`algo`, `sets` as `K=V` separated by commas or spaces).
pub fn leaderboard(
    board: &serde_json::Value,
    algorithms: &[&str],
    algo: &str,
    sets: &str,
    tree: &TreeAt,
) -> Markup {
    let key = if algo == "tgr" { "GLIXARE" } else { "rating" };
    let body = html! {
        (picker("/", algorithms, algo, sets))
        p { "Configuration: "
            code { (board["config"].to_string()) }
            " through event " (board["through"].to_string()) "." }
        table {
            thead { tr { th { "#" } th { "player" } th { (key) } th { "games" } th { "last game" } } }
            tbody {
                @for row in board["ranked"].as_array().into_iter().flatten() {
                    @let name = row["player"].as_str().unwrap_or("");
                    tr {
                        td.n { (row["rank"].to_string()) }
                        td { a href={ "/players/" (url_component(name)) (keep(algo, sets)) } { (name) } }
                        td.n {
                            @if let Some(g) = row["glixare"].as_f64() { (format!("{g:.2}%")) }
                            @else { (format!("{:.1}", row["rating"].as_f64().unwrap_or(f64::NAN))) }
                        }
                        td.n { (row["games"].to_string()) }
                        td { (row["last_played"].as_str().map_or("-", |t| t.get(..10).unwrap_or(t))) }
                    }
                }
            }
        }
        @let l = &board["left_out"];
        p { "Left out: " (l["inactive"].to_string()) " inactive, " (l["few_games"].to_string())
            " with too few games, " (l["provisional"].to_string()) " provisional, "
            (l["below_top"].to_string()) " below the top." }
    };
    layout("Leaderboard", tree, body)
}

/// `text` percent-encoded for one URL path segment or query value (every byte but the unreserved
/// characters of RFC 3986, section 2.3).
pub fn url_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The query that keeps a page's algorithm and constants on the links it gives.
fn keep(algo: &str, sets: &str) -> String {
    let mut q = format!("?algo={}", url_component(algo));
    if !sets.is_empty() {
        q.push_str(&format!("&set={}", url_component(sets)));
    }
    q
}

/// The picker of an algorithm and its constants, shared by every page.
fn picker(action: &str, algorithms: &[&str], algo: &str, sets: &str) -> Markup {
    html! {
        form method="get" action=(action) {
            label { "algorithm"
                select name="algo" {
                    @for a in algorithms {
                        option value=(a) selected[*a == algo] { (a) }
                    }
                }
            }
            label { "constants (K=V, comma separated)"
                input name="set" value=(sets) placeholder="k=24, home=50";
            }
            button type="submit" { "Show" }
        }
    }
}

fn num(x: f64) -> String {
    format!("{x:.1}")
}

fn signed(x: Option<f64>) -> Markup {
    match x {
        Some(c) if c > 0.0 => html! { span.up { (format!("+{c:.1}")) } },
        Some(c) if c < 0.0 => html! { span.down { (format!("{c:.1}")) } },
        Some(_) => html! { "0.0" },
        None => html! { "-" },
    }
}

fn standing(s: Option<&ladder_projector::Standing>) -> Markup {
    match s {
        None => html! { "-" },
        Some(s) => html! {
            (num(s.rating))
            @if let Some(rd) = s.rd { small { " ±" (num(rd)) } }
            @if let Some(sigma) = s.sigma { small { " σ " (format!("{sigma:.3}")) } }
        },
    }
}

/// What the player page shows.
pub struct PlayerPage<'a> {
    /// The player.
    pub name: &'a str,
    /// The algorithms of the picker.
    pub algorithms: &'a [&'a str],
    /// The algorithm shown.
    pub algo: &'a str,
    /// The constants as asked.
    pub sets: &'a str,
    /// The full configuration.
    pub config: &'a str,
    /// The last event folded.
    pub through: u64,
    /// The chart: ladder-plot's SVG.
    pub chart: &'a str,
    /// Every event of the player.
    pub lines: &'a [crate::site::PlayerLine],
}

/// A player's page: the rating history chart and every game with its change, newest first.
pub fn player(p: &PlayerPage<'_>, tree: &TreeAt) -> Markup {
    let q = keep(p.algo, p.sets);
    let body = html! {
        (picker(&format!("/players/{}", url_component(p.name)), p.algorithms, p.algo, p.sets))
        p { "Under " code { (p.config) } ", through event " (p.through) "." }
        @if let Some(last) = p.lines.last() {
            p.now { "Now " strong { (standing(Some(&last.after))) } " after "
                (last.after.games) " games." }
        }
        figure.chart { (maud::PreEscaped(p.chart)) }
        h2 { "Games and changes" }
        div.scroll { table {
            thead { tr { th { "event" } th.wide { "date" } th { "result" } th.n { "rating" } th.n { "change" } } }
            tbody {
                @for l in p.lines.iter().rev() {
                    tr {
                        td { a href={ "/events/" (l.seq) (q) } { (l.seq) } }
                        td.wide { (l.at.to_string().get(..10).unwrap_or("")) }
                        td {
                            @if let Some(score) = l.score {
                                (score) " vs "
                                @for (i, (o, s)) in l.opponents.iter().enumerate() {
                                    @if i > 0 { ", " }
                                    a href={ "/players/" (url_component(o)) (q) } { (o) } " " (s)
                                }
                            } @else { (l.kind) }
                        }
                        td.n { (standing(Some(&l.after))) }
                        td.n { (signed(l.change)) }
                    }
                }
            }
        } }
    };
    layout(p.name, tree, body)
}

/// What the event page shows.
pub struct EventPage<'a> {
    /// The sequence number.
    pub seq: u64,
    /// Its canonical line (the leaf bytes).
    pub line: &'a str,
    /// Its chain hash, hex.
    pub hash: &'a str,
    /// Its type.
    pub kind: &'a str,
    /// Its instant.
    pub at: &'a str,
    /// The algorithms of the picker.
    pub algorithms: &'a [&'a str],
    /// The algorithm shown.
    pub algo: &'a str,
    /// The constants as asked.
    pub sets: &'a str,
    /// The full configuration.
    pub config: &'a str,
    /// The event explained (ladder-explain's value, as `ladder explain` renders it).
    pub explained: &'a ladder_explain::Explanation,
    /// Its inclusion proof in the signed tree, when the checkpoint holds it.
    pub proof: Option<&'a ladder_proof::InclusionProof>,
    /// The log's verifier key (C2SP), when the log is signed.
    pub vkey: Option<&'a str>,
}

/// One event: every seat's change explained step by step, the event exactly as hashed, its
/// place in the signed tree, and "Check it yourself".
pub fn event(p: &EventPage<'_>, tree: &TreeAt) -> Markup {
    use ladder_explain::Step;
    let q = keep(p.algo, p.sets);
    let told = &p.explained.explained;
    let steps = |steps: &[Step]| {
        html! {
            div.scroll { table.steps { tbody {
                @for step in steps {
                    @match step {
                        Step::Section(t) => tr.section { td colspan="4" { (t) } },
                        Step::Game { player, opponent } => tr { td { (player.as_deref().unwrap_or("")) } td colspan="3" { "game against " (opponent) } },
                        Step::Quantity { player, name, formula, value } => tr {
                            td { (player.as_deref().unwrap_or("")) } td { code { (name) } } td.n { (format!("{value:.6}")) }
                            td { code { (formula) } }
                        },
                        Step::Flag { player, code, message } => tr.flag {
                            td { (player.as_deref().unwrap_or("")) } td { "! " (code) } td colspan="2" { (message) }
                        },
                    }
                }
            } } }
        }
    };
    let body = html! {
        p { (p.kind) " at " (p.at) "." }
        (picker(&format!("/events/{}", p.seq), p.algorithms, p.algo, p.sets))
        h2 { "Every seat's change" }
        p { "Under " code { (p.config) } "." }
        div.scroll { table {
            thead { tr { th { "player" } th.n { "score" } th.n { "before" } th.n { "after" } th.n { "change" } } }
            tbody { @for s in &told.seats {
                tr {
                    td { a href={ "/players/" (url_component(&s.player)) (q) } { (s.player) } }
                    td.n { @if let Some(x) = s.score { (x) } @else { "-" } }
                    td.n { (standing(s.before.as_ref())) }
                    td.n { (standing(s.after.as_ref())) }
                    td.n { (signed(s.change)) }
                }
            } }
        } }
        h2 { "The event as the log hashes it" }
        pre.leaf { code #leaf { (p.line) } }
        p { "Chain hash " code { (p.hash) } }
        @match p.proof {
            Some(pr) => {
                p { "In the signed tree of " (pr.size) " events at leaf index " (pr.index)
                    ", with an audit path of " (pr.path.len()) " hashes." }
            }
            None => p { "Not in the signed tree yet: the checkpoint is re-signed within its interval." }
        }
        section #check data-result="" data-seq=(p.seq) data-log="/log" data-origin=(tree.origin)
            data-vkey=(p.vkey.unwrap_or("")) {
            h2 { "Check it yourself" }
            p { "Your browser fetches the signed checkpoint and the hash tiles from " code { "/log/" }
                ", verifies the checkpoint's Ed25519 signature against the log's key below, hashes
                the line above, rebuilds its inclusion path from the tiles and compares the result
                with the signed root. It takes only the line and the key from this page: compare the key with the one
                the club published." }
            p { "The log's key: " code.key { (p.vkey.unwrap_or("(this log is not signed: nothing to check against)")) } }
            p.says data-say { "Needs JavaScript: with it off, check the proof with "
                code { "ladder check-proof" } " (" a href={ "/api/events/" (p.seq) "/proof" } { "the proof" } ")." }
            ol.steps data-steps {}
        }
        h2 { "Step by step" }
        @if told.steps.is_empty() && p.explained.period.is_none() {
            p { "The algorithm computed nothing at this event." }
        } @else if !told.steps.is_empty() {
            (steps(&told.steps))
        }
        @if let Some(period) = &p.explained.period {
            @let (game, whole) = ladder_explain::change_labels(p.seq, period);
            h3 { "Rating period " (period.index) ": [" (period.start) ", " (period.end) ")" }
            p { (period.sentence(p.seq)) }
            @if !period.changes.is_empty() {
                p { strong { "This game" } ": " (game) ". " strong { "Whole period" } ": " (whole) "." }
                div.scroll { table {
                    thead { tr { th { "player" } th.n { "without this game" } th.n { "with it" } th.n { "this game" }
                        th.n { "period start" } th.n { "period close" } th.n { "whole period" } } }
                    tbody { @for c in &period.changes {
                        tr {
                            td { (c.player) }
                            td.n { @if let Some(w) = c.without { (num(w)) } @else { "-" } }
                            td.n { (num(c.with)) }
                            td.n { (signed(Some(c.game()))) }
                            td.n { (num(c.start)) }
                            td.n { (num(c.end)) }
                            td.n { (signed(Some(c.period()))) }
                        }
                    } }
                } }
            }
            @if !period.closes_at(p.seq) { (steps(&period.steps)) }
        }
        @if !told.flags.is_empty() {
            h3 { "Flags" }
            ul { @for f in &told.flags {
                li { code { (f.code) } " (" (f.player) "): " (f.message)
                    @if !f.why.is_empty() { br; small { (f.why) } } }
            } }
        }
        @if p.vkey.is_some() {
            script type="importmap" { (maud::PreEscaped(crate::vendor::import_map())) }
            link rel="modulepreload" href={ (crate::vendor::BASE) (crate::vendor::ENTRY) }
                integrity=(crate::vendor::sri(crate::vendor::file(crate::vendor::ENTRY).map_or("", |f| f.text)));
            script type="module" src="/assets/check.js" {}
        }
    };
    layout(&format!("Event {}", p.seq), tree, body)
}

/// An error page.
pub fn error(message: &str, tree: &TreeAt) -> Markup {
    layout("Not shown", tree, html! { p { (message) } })
}
