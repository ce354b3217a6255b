//! The HTML pages, server-rendered from maud's typed templates (every value escaped by the
//! template, never concatenated): the leaderboard with its algorithm and constants picker, and
//! one event with its place in the signed tree. They need no JavaScript. Every page names the
//! tree size and root it was computed at.

use maud::{html, Markup, DOCTYPE};

/// The stylesheet: small, readable on a phone.
const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:56rem;margin:0 auto;padding:1rem;line-height:1.4}\
table{border-collapse:collapse;width:100%}th,td{padding:.3rem .5rem;border-bottom:1px solid #ddd;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums}code,pre{font-size:.85rem;overflow-wrap:anywhere;white-space:pre-wrap}\
form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:1rem 0}label{display:flex;flex-direction:column;font-size:.85rem}\
footer{margin-top:2rem;color:#555;font-size:.85rem}";

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
        form method="get" action="/" {
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
                        td { (name) }
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

/// One event: its canonical line (what the tree hashes), chain hash, and its inclusion proof
/// in the signed tree (`proof`: the JSON of `ladder prove --format json`).
pub fn event(
    seq: u64,
    line: &str,
    hash: &str,
    proof: Option<&serde_json::Value>,
    tree: &TreeAt,
) -> Markup {
    let body = html! {
        p { "The event exactly as the log hashes it (its leaf bytes):" }
        pre { code { (line) } }
        p { "Chain hash: " code { (hash) } }
        @match proof {
            Some(p) => {
                h2 { "Its place in the signed tree" }
                p { "Leaf index " (p["index"].to_string()) " of " (p["size"].to_string())
                    "; audit path, leaf first:" }
                ol { @for h in p["path"].as_array().into_iter().flatten() {
                    li { code { (h.as_str().unwrap_or("")) } }
                } }
                p { "Check it with " code { "ladder check-proof" } " against the log's published key: "
                    a href={ "/api/events/" (seq) "/proof" } { "the proof and the checkpoint" } "." }
            }
            None => p { "This event is not in the signed tree yet; it is within one checkpoint interval." }
        }
    };
    layout(&format!("Event {seq}"), tree, body)
}

/// An error page.
pub fn error(message: &str, tree: &TreeAt) -> Markup {
    layout("Not shown", tree, html! { p { (message) } })
}
