//! The canonical replay output (`../shared/CONTRACT.md` section 4) and the leaderboard.

use crate::score::{Score, BINS};
use ladder_projector::{ParamValue, Projector, Roster, Standing};
use std::fmt::Write as _;

/// One player's line of a snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The player's name.
    pub player: String,
    /// Their standing.
    pub standing: Standing,
}

/// The result of one replay under one configuration: what the contract's JSON holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// Every constant, in the algorithm's table order.
    pub config: Vec<(&'static str, ParamValue)>,
    /// The last sequence number applied.
    pub through: u64,
    /// The chain hash of event `through`, 64 hex digits.
    pub head: String,
    /// Every player, sorted by name (bytes).
    pub players: Vec<Row>,
    /// Prediction scores (`--score`), if asked for.
    pub prediction: Option<Score>,
}

fn opt(out: &mut String, x: Option<f64>) {
    match x {
        Some(x) => num(out, x),
        None => out.push_str("null"),
    }
}

/// `{"matches","log_loss","brier","accuracy","calibration":[{"lo","hi","n","mean_p","observed"}]}`.
fn prediction_json(o: &mut String, s: &Score) {
    let _ = write!(o, "{{\"matches\":{},\"log_loss\":", s.matches);
    opt(o, s.log_loss());
    o.push_str(",\"brier\":");
    opt(o, s.brier());
    o.push_str(",\"accuracy\":");
    opt(o, s.accuracy());
    o.push_str(",\"calibration\":[");
    for (i, b) in s.bins.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let _ = write!(
            o,
            "{{\"lo\":{:?},\"hi\":{:?},\"n\":{},\"mean_p\":",
            i as f64 / 10.0,
            (i + 1) as f64 / 10.0,
            b.n
        );
        opt(o, (b.n > 0).then(|| b.sum_p / b.n as f64));
        o.push_str(",\"observed\":");
        opt(o, (b.n > 0).then(|| b.sum_y / b.n as f64));
        o.push('}');
    }
    o.push_str("]}");
}

/// A float in its shortest round-trip form (Rust's `{:?}`, which is valid JSON and YAML).
fn num(out: &mut String, x: f64) {
    let _ = write!(out, "{x:?}");
}

/// A JSON (and YAML double-quoted) string literal.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn value(out: &mut String, v: &ParamValue) {
    match v {
        ParamValue::Number(x) => num(out, *x),
        ParamValue::Text(t) => string(out, t),
    }
}

/// The player fields in contract order: name, then the fields this algorithm keeps.
fn fields(s: &Standing) -> Vec<(&'static str, Option<f64>, Option<bool>, bool)> {
    // (key, number, bool, is_null)
    let mut f = vec![("rating", Some(s.rating), None, false)];
    if let Some(rd) = s.rd {
        f.push(("rd", Some(rd), None, false));
    }
    if let Some(v) = s.volatility {
        f.push(("volatility", Some(v), None, false));
    }
    f.push(("games", Some(s.games as f64), None, false));
    if let Some(d) = s.display {
        f.push(("provisional", None, Some(d.provisional), false));
        f.push(("glixare", d.glixare, None, d.glixare.is_none()));
    }
    f
}

impl Snapshot {
    /// Captures the current standings of `projector`.
    pub fn capture(
        projector: &dyn Projector,
        roster: &Roster,
        through: u64,
        head: &[u8; 32],
    ) -> Snapshot {
        let mut players: Vec<Row> = projector
            .standings()
            .into_iter()
            .map(|s| Row { player: roster.name(s.player).to_string(), standing: s })
            .collect();
        players.sort_by(|a, b| a.player.as_bytes().cmp(b.player.as_bytes()));
        let head = head.iter().fold(String::with_capacity(64), |mut h, b| {
            let _ = write!(h, "{b:02x}");
            h
        });
        Snapshot {
            algorithm: projector.config().algorithm,
            config: projector.config().values.clone(),
            through,
            head,
            players,
            prediction: None,
        }
    }

    fn json_with(&self, digest: Option<&str>) -> String {
        let mut o = String::with_capacity(128 + 96 * self.players.len());
        o.push_str("{\"algorithm\":");
        string(&mut o, self.algorithm);
        o.push_str(",\"config\":{");
        for (i, (k, v)) in self.config.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            string(&mut o, k);
            o.push(':');
            value(&mut o, v);
        }
        let _ = write!(o, "}},\"through\":{},\"head\":", self.through);
        string(&mut o, &self.head);
        if let Some(d) = digest {
            o.push_str(",\"digest\":");
            string(&mut o, d);
        }
        o.push_str(",\"players\":[");
        for (i, row) in self.players.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            o.push_str("{\"player\":");
            string(&mut o, &row.player);
            for (k, n, b, null) in fields(&row.standing) {
                let _ = write!(o, ",\"{k}\":");
                match (n, b, null) {
                    (_, _, true) => o.push_str("null"),
                    (_, Some(b), _) => o.push_str(if b { "true" } else { "false" }),
                    (Some(x), _, _) if k == "games" => {
                        let _ = write!(o, "{}", x as u64);
                    }
                    (Some(x), _, _) => num(&mut o, x),
                    (None, None, false) => o.push_str("null"),
                }
            }
            o.push('}');
        }
        o.push(']');
        if let Some(score) = &self.prediction {
            o.push_str(",\"prediction\":");
            prediction_json(&mut o, score);
        }
        o.push('}');
        o
    }

    /// The blake3 hash (hex) of the compact JSON without `digest`: two replays agree exactly when
    /// their digests agree.
    pub fn digest(&self) -> String {
        blake3::hash(self.json_with(None).as_bytes()).to_hex().to_string()
    }

    /// The contract's compact JSON object, `digest` included.
    pub fn to_json(&self) -> String {
        self.json_with(Some(&self.digest()))
    }

    /// The same content as YAML, one key per line: what snapshot tests store.
    pub fn to_yaml(&self) -> String {
        let mut o = String::new();
        o.push_str("algorithm: ");
        string(&mut o, self.algorithm);
        o.push_str("\nconfig:\n");
        for (k, v) in &self.config {
            let _ = write!(o, "  {k}: ");
            value(&mut o, v);
            o.push('\n');
        }
        let _ = writeln!(o, "through: {}", self.through);
        let _ = writeln!(o, "head: \"{}\"", self.head);
        let _ = writeln!(o, "digest: \"{}\"", self.digest());
        o.push_str("players:\n");
        for row in &self.players {
            o.push_str("  - player: ");
            string(&mut o, &row.player);
            o.push('\n');
            for (k, n, b, null) in fields(&row.standing) {
                let _ = write!(o, "    {k}: ");
                match (n, b, null) {
                    (_, _, true) | (None, None, false) => o.push_str("null"),
                    (_, Some(b), _) => o.push_str(if b { "true" } else { "false" }),
                    (Some(x), _, _) if k == "games" => {
                        let _ = write!(o, "{}", x as u64);
                    }
                    (Some(x), _, _) => num(&mut o, x),
                }
                o.push('\n');
            }
        }
        if let Some(score) = &self.prediction {
            // The same object as the JSON, as YAML flow style (JSON is valid YAML).
            let mut p = String::new();
            prediction_json(&mut p, score);
            let _ = writeln!(o, "prediction: {p}");
        }
        o
    }

    /// A table for people: the configuration, where in the chain, then one line per player.
    pub fn to_table(&self) -> String {
        let mut o = String::new();
        let cfg: Vec<String> = self.config.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(o, "{} {}", self.algorithm, cfg.join(" "));
        let _ = writeln!(o, "through event {}, head {}", self.through, self.head);
        let _ = writeln!(o, "digest {}\n", self.digest());
        let width = self.players.iter().map(|r| r.player.chars().count()).max().unwrap_or(6).max(6);
        let has = |f: fn(&Standing) -> bool| self.players.iter().any(|r| f(&r.standing));
        let (rd, vol, disp) = (
            has(|s| s.rd.is_some()),
            has(|s| s.volatility.is_some()),
            has(|s| s.display.is_some()),
        );
        let _ = write!(o, "{:<width$}  {:>10}", "player", "rating");
        if rd {
            let _ = write!(o, "  {:>8}", "rd");
        }
        if vol {
            let _ = write!(o, "  {:>10}", "volatility");
        }
        let _ = write!(o, "  {:>6}", "games");
        if disp {
            let _ = write!(o, "  {:>11}", "glixare");
        }
        o.push('\n');
        for r in &self.players {
            let s = &r.standing;
            let pad = width + r.player.len() - r.player.chars().count();
            let _ = write!(o, "{:<pad$}  {:>10.1}", r.player, s.rating);
            if rd {
                let _ = write!(o, "  {:>8.1}", s.rd.unwrap_or(f64::NAN));
            }
            if vol {
                let _ = write!(o, "  {:>10.6}", s.volatility.unwrap_or(f64::NAN));
            }
            let _ = write!(o, "  {:>6}", s.games);
            if let Some(d) = s.display {
                match d.glixare {
                    Some(g) if !d.provisional => {
                        let _ = write!(o, "  {:>10.2}%", g);
                    }
                    _ => {
                        let _ = write!(o, "  {:>11}", "provisional");
                    }
                }
            }
            o.push('\n');
        }
        if let Some(s) = &self.prediction {
            let f = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.4}"));
            let _ = writeln!(
                o,
                "\nprediction over {} two-seat matches (after {} warm-up): log loss {}, Brier {}, accuracy {}",
                s.matches,
                s.warmup.min(s.seen),
                f(s.log_loss()),
                f(s.brier()),
                f(s.accuracy())
            );
            let _ = writeln!(
                o,
                "  calibration (favourite's side)  {:>9}  {:>7}  {:>8}",
                "n", "mean p", "observed"
            );
            // Seen from the favourite's side, the bins below 0.5 are always empty.
            for (i, b) in s.bins.iter().enumerate().skip(BINS / 2) {
                let mean =
                    |x: f64| if b.n > 0 { format!("{:.3}", x / b.n as f64) } else { "-".into() };
                let _ = writeln!(
                    o,
                    "  [{:.1}, {:.1}{}                    {:>9}  {:>7}  {:>8}",
                    i as f64 / 10.0,
                    (i + 1) as f64 / 10.0,
                    if i == 9 { "]" } else { ")" },
                    b.n,
                    mean(b.sum_p),
                    mean(b.sum_y)
                );
            }
        }
        o
    }
}

/// One ranked player.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// 1-based rank; equal keys share a rank (1, 2, 2, 4).
    pub rank: usize,
    /// The player.
    pub row: Row,
}

/// Players ranked for a leaderboard (`../shared/CONTRACT.md` section 4).
#[derive(Clone, Debug, PartialEq)]
pub struct Leaderboard {
    /// Ranked players, best first.
    pub ranked: Vec<Ranked>,
    /// TGR's provisional players, listed apart by name (the seed keeps them off the ranking).
    pub provisional: Vec<Row>,
}

/// Ranks the players of `projector`: TGR by GLIXARE with provisional players apart, exactly as
/// [`ladder_tgr::leaderboard`] does; every other algorithm by rating, highest first. In both,
/// equal keys share a rank and are listed by name (bytes), so the order is total.
pub fn leaderboard(projector: &dyn Projector, roster: &Roster) -> Leaderboard {
    let standings = projector.standings();
    let row = |s: &Standing| Row { player: roster.name(s.player).to_string(), standing: s.clone() };
    if projector.config().algorithm == ladder_tgr::ALGORITHM {
        let board = ladder_tgr::leaderboard(&standings, roster);
        return Leaderboard {
            ranked: board
                .ranked
                .iter()
                .map(|r| Ranked { rank: r.rank, row: row(r.standing) })
                .collect(),
            provisional: board.provisional.iter().map(|s| row(s)).collect(),
        };
    }
    let mut rows: Vec<Row> = standings.iter().map(row).collect();
    rows.sort_by(|a, b| {
        b.standing
            .rating
            .total_cmp(&a.standing.rating)
            .then_with(|| a.player.as_bytes().cmp(b.player.as_bytes()))
    });
    let mut ranked: Vec<Ranked> = Vec::with_capacity(rows.len());
    for (i, row) in rows.into_iter().enumerate() {
        let rank = match ranked.last() {
            Some(prev) if prev.row.standing.rating == row.standing.rating => prev.rank,
            _ => i + 1,
        };
        ranked.push(Ranked { rank, row });
    }
    Leaderboard { ranked, provisional: Vec::new() }
}
