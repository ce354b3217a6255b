//! The canonical replay output (docs/outputs.md) and the leaderboard.

use crate::registry::Algo;
use crate::score::{Score, BINS};
use ladder_projector::{FieldValue, ParamValue, PlayerId, Projector, Roster, Standing};
use std::fmt::Write as _;

/// One player's line of a snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The player's name.
    pub player: String,
    /// Their standing.
    pub standing: Standing,
}

/// The result of one replay under one configuration: what docs/outputs.md's JSON holds.
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

/// The player fields in docs/outputs.md's order, as (key, number, bool, is_null), taken from
/// [`Standing::fields`] so that every output prints the same ones.
fn fields(s: &Standing) -> Vec<(&'static str, Option<f64>, Option<bool>, bool)> {
    s.fields()
        .into_iter()
        .map(|(k, v)| match v {
            FieldValue::Number(x) => (k, Some(x), None, false),
            FieldValue::Count(n) => (k, Some(n as f64), None, false),
            FieldValue::Flag(b) => (k, None, Some(b), false),
            FieldValue::Null => (k, None, None, true),
        })
        .collect()
}

/// Where a writer of the players' objects finds row `T`'s name and standing: in a [`Row`] (a
/// snapshot's), or through the projector (a name borrowed from the roster,
/// [`write_replay_json`]'s). `None` leaves the row out.
type Line<'a, T> = dyn Fn(&'a T) -> Option<(&'a str, Standing)> + Sync + 'a;

/// A snapshot's row as a [`Line`].
fn row_line(row: &Row) -> Option<(&str, Standing)> {
    Some((&row.player, row.standing.clone()))
}

/// Players at or above which [`players_json`] writes on several threads.
const PARALLEL_PLAYERS: usize = 16_384;

/// The players' objects of the compact JSON, separated by commas, appended to `out`. A large
/// snapshot is written in as many slices as the machine has cores, each on its own thread, and
/// joined in order: the same bytes as one thread writes (a test checks it).
fn players_json(out: &mut String, rows: &[Row]) {
    players_json_on(out, rows, crate::cores());
}

/// [`players_json`] on up to `threads` threads.
fn players_json_on(out: &mut String, rows: &[Row], threads: usize) {
    for part in players_parts(rows, &row_line, threads) {
        out.push_str(&part);
    }
}

/// The players' objects of `rows`, separated by commas, in parts that joined in order are the
/// bytes [`write_players`] writes for all of them: one part for a small snapshot, else a slice
/// per thread, up to `threads`, the first written on the calling thread.
fn players_parts<'a, T: Sync>(rows: &'a [T], line: &Line<'a, T>, threads: usize) -> Vec<String> {
    let write = |i: usize, slice: &'a [T]| {
        let mut o = String::with_capacity(96 * slice.len());
        write_players(&mut o, slice, line, i == 0);
        o
    };
    if rows.len() < PARALLEL_PLAYERS || threads < 2 {
        return vec![write(0, rows)];
    }
    let per = rows.len().div_ceil(threads);
    std::thread::scope(|s| {
        let mut slices = rows.chunks(per).enumerate();
        let first = slices.next();
        let handles: Vec<_> = slices.map(|(i, slice)| s.spawn(move || write(i, slice))).collect();
        let mut parts = Vec::with_capacity(threads);
        parts.extend(first.map(|(i, slice)| write(i, slice)));
        for h in handles {
            parts.push(h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        parts
    })
}

/// The objects of `rows`, each after a comma unless it opens the array (`first`).
fn write_players<'a, T>(o: &mut String, rows: &'a [T], line: &Line<'a, T>, first: bool) {
    for (i, row) in rows.iter().enumerate() {
        if i > 0 || !first {
            o.push(',');
        }
        let Some((name, standing)) = line(row) else { continue };
        o.push_str("{\"player\":");
        string(o, name);
        player_fields(o, &standing);
        o.push('}');
    }
}

/// The fields of [`Standing::fields`] as JSON members, each after a comma: the same keys, order
/// and values, written without building the list (a test holds the two to the same bytes for
/// every combination of fields).
fn player_fields(o: &mut String, s: &Standing) {
    o.push_str(",\"rating\":");
    num(o, s.rating);
    if let Some(rd) = s.rd {
        o.push_str(",\"rd\":");
        num(o, rd);
    }
    if let Some(v) = s.volatility {
        o.push_str(",\"volatility\":");
        num(o, v);
    }
    if let Some(sigma) = s.sigma {
        o.push_str(",\"sigma\":");
        num(o, sigma);
    }
    let _ = write!(o, ",\"games\":{}", s.games);
    if let Some(d) = s.display {
        o.push_str(if d.provisional { ",\"provisional\":true" } else { ",\"provisional\":false" });
        o.push_str(",\"glixare\":");
        opt(o, d.glixare);
    }
}

/// The compact JSON object's first part: `algorithm`, `config`, `through` and `head`, up to
/// where `digest` goes ([`Snapshot::json_parts`]).
fn json_head(
    algorithm: &str,
    config: &[(&'static str, ParamValue)],
    through: u64,
    head_hex: &str,
) -> String {
    let mut head = String::with_capacity(256);
    head.push_str("{\"algorithm\":");
    string(&mut head, algorithm);
    head.push_str(",\"config\":{");
    for (i, (k, v)) in config.iter().enumerate() {
        if i > 0 {
            head.push(',');
        }
        string(&mut head, k);
        head.push(':');
        value(&mut head, v);
    }
    let _ = write!(head, "}},\"through\":{through},\"head\":");
    string(&mut head, head_hex);
    head
}

/// The compact JSON object's last part: `prediction` when there is one, and the closing brace.
fn json_tail(prediction: Option<&Score>) -> String {
    let mut tail = String::new();
    if let Some(score) = prediction {
        tail.push_str(",\"prediction\":");
        prediction_json(&mut tail, score);
    }
    tail.push('}');
    tail
}

/// Writes the replay's compact JSON object and a newline to `out`: the bytes of
/// [`Snapshot::capture`] of the same arguments with `prediction` set, then
/// [`Snapshot::to_json`] (a test holds the two to the same bytes), without the snapshot in
/// between. What `ladder replay --format json` prints, the end of its critical path
/// (docs/PERFORMANCE.md, "The 1M replay's fixed costs", round six): the players are put in
/// order by sorting 16-byte keys (each name's first 8 bytes, then its place), not a `String`
/// copied out of the roster per player; the object is written in its three parts around the
/// digest, never joined into one string.
pub fn write_replay_json(
    out: &mut dyn std::io::Write,
    projector: &Algo,
    roster: &Roster,
    through: u64,
    head: &[u8; 32],
    prediction: Option<&Score>,
) -> std::io::Result<()> {
    let threads = crate::cores();
    let players = if projector.standings_one_by_one() {
        // Each player's standing is asked for where it is written, on the writers' threads:
        // no list of every standing (10 MB of fresh pages at 100,000 players) before them.
        let joined: Vec<PlayerId> = (0..projector.players())
            .map(|i| PlayerId(i as u32))
            .filter(|&id| projector.standing(id).is_some())
            .collect();
        let order = by_name(&joined, |&id| roster.name(id).as_bytes());
        let line = |&(_, i): &(u64, u32)| {
            let id = joined[i as usize];
            projector.standing(id).map(|s| (roster.name(id), s))
        };
        players_parts(&order, &line, threads)
    } else {
        let standings = projector.standings();
        let order = by_name(&standings, |s| roster.name(s.player).as_bytes());
        let line = |&(_, i): &(u64, u32)| {
            let s = &standings[i as usize];
            Some((roster.name(s.player), s.clone()))
        };
        players_parts(&order, &line, threads)
    };
    let hex = blake3::Hash::from(*head).to_hex();
    let config = projector.config();
    let head = json_head(config.algorithm, &config.echoed(), through, hex.as_str());
    let tail = json_tail(prediction);
    // The digest hashes the object without it: the head, the players and the tail, in order.
    let mut sum = blake3::Hasher::new();
    sum.update(head.as_bytes());
    sum.update(PLAYERS_KEY.as_bytes());
    for p in &players {
        sum.update(p.as_bytes());
    }
    sum.update(b"]");
    sum.update(tail.as_bytes());
    let mut digest = String::with_capacity(80);
    digest.push_str(",\"digest\":");
    string(&mut digest, sum.finalize().to_hex().as_str());
    out.write_all(head.as_bytes())?;
    out.write_all(digest.as_bytes())?;
    out.write_all(PLAYERS_KEY.as_bytes())?;
    for p in &players {
        out.write_all(p.as_bytes())?;
    }
    out.write_all(b"]")?;
    out.write_all(tail.as_bytes())?;
    out.write_all(b"\n")
}

/// The key that opens the players' array in the compact JSON.
const PLAYERS_KEY: &str = ",\"players\":[";

/// The places of `items` in order of `name` (bytes), each with its sort key: the name's
/// first 8 bytes, big-endian and padded with zeros, which order two names as their bytes do
/// whenever they differ (a shorter name padded with zeros is below any longer one it begins),
/// with the whole names compared only where the keys tie. Names are distinct (a roster's), so
/// the unstable sort gives the one order there is.
fn by_name<'a, T>(items: &'a [T], name: impl Fn(&'a T) -> &'a [u8]) -> Vec<(u64, u32)> {
    let mut order: Vec<(u64, u32)> = items
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut key = [0u8; 8];
            let n = name(s);
            let k = n.len().min(8);
            key[..k].copy_from_slice(&n[..k]);
            // A snapshot holds fewer than 2^32 players (ids are u32).
            (u64::from_be_bytes(key), i as u32)
        })
        .collect();
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| name(&items[a.1 as usize]).cmp(name(&items[b.1 as usize])))
    });
    order
}

impl Snapshot {
    /// Captures the current standings of `projector`.
    pub fn capture(
        projector: &dyn Projector,
        roster: &Roster,
        through: u64,
        head: &[u8; 32],
    ) -> Snapshot {
        let standings = projector.standings();
        let players: Vec<Row> = by_name(&standings, |s| roster.name(s.player).as_bytes())
            .into_iter()
            .map(|(_, i)| {
                let standing = standings[i as usize].clone();
                Row { player: roster.name(standing.player).to_string(), standing }
            })
            .collect();
        let head = blake3::Hash::from(*head).to_hex().to_string();
        Snapshot {
            algorithm: projector.config().algorithm,
            config: projector.config().echoed(),
            through,
            head,
            players,
            prediction: None,
        }
    }

    /// The compact JSON object in three parts: everything before where `digest` goes, the
    /// `players` array (with its key), and the rest. The object without `digest` is the three
    /// joined; with it, `,"digest":"..."` sits between the first two.
    ///
    /// Written by hand, not through serde_json: this is the digest format, fixed byte for byte by
    /// docs/outputs.md (key order, floats in Rust's shortest round-trip form, `games` as an
    /// integer, `null` glixare) because `digest` hashes these bytes, and a sweep writes one per
    /// configuration. [`Snapshot::to_yaml`] shares its string and number forms.
    fn json_parts(&self) -> [String; 3] {
        let head = json_head(self.algorithm, &self.config, self.through, &self.head);
        let mut players = String::with_capacity(16 + 96 * self.players.len());
        players.push_str(PLAYERS_KEY);
        players_json(&mut players, &self.players);
        players.push(']');
        [head, players, json_tail(self.prediction.as_ref())]
    }

    /// The digest of [`Snapshot::json_parts`]: blake3 over the three parts in order.
    fn digest_of(parts: &[String; 3]) -> String {
        let mut h = blake3::Hasher::new();
        for p in parts {
            h.update(p.as_bytes());
        }
        h.finalize().to_hex().to_string()
    }

    /// The blake3 hash (hex) of the compact JSON without `digest`: two replays agree exactly when
    /// their digests agree.
    pub fn digest(&self) -> String {
        Snapshot::digest_of(&self.json_parts())
    }

    /// The compact JSON object of docs/outputs.md, `digest` included. The players are written
    /// once: the digest hashes the same bytes the object then holds around it.
    pub fn to_json(&self) -> String {
        let parts = self.json_parts();
        let digest = Snapshot::digest_of(&parts);
        let [head, players, tail] = parts;
        let mut o = head;
        o.reserve(96 + players.len() + tail.len());
        o.push_str(",\"digest\":");
        string(&mut o, &digest);
        o.push_str(&players);
        o.push_str(&tail);
        o
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
        let (rd, vol, sigma, disp) = (
            has(|s| s.rd.is_some()),
            has(|s| s.volatility.is_some()),
            has(|s| s.sigma.is_some()),
            has(|s| s.display.is_some()),
        );
        let _ = write!(o, "{:<width$}  {:>10}", "player", "rating");
        if rd {
            let _ = write!(o, "  {:>8}", "rd");
        }
        if vol {
            let _ = write!(o, "  {:>10}", "volatility");
        }
        if sigma {
            let _ = write!(o, "  {:>8}", "sigma");
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
            if sigma {
                let _ = write!(o, "  {:>8.3}", s.sigma.unwrap_or(f64::NAN));
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

/// The documented default of `--min-games`: a player is ranked after ten rated matches. In Glicko
/// each even game against an opponent of RD 100 adds q^2 g^2 / 4 = 7.8e-6 to 1/RD^2 (Glickman,
/// The Glicko system), so ten games take a newcomer's RD from 350 to about 107: fewer games are
/// little evidence, for Elo (which keeps no RD) as much as for the rest.
pub const DEFAULT_MIN_GAMES: u64 = 10;

/// The documented default of `--active-within`: a game within a year of the replay's last event,
/// so a season of tennis or two of international football keeps a player listed.
pub const DEFAULT_ACTIVE_WITHIN: &str = "365d";

/// Who a leaderboard lists (docs/outputs.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardRules {
    /// Players with fewer rated matches are left out.
    pub min_games: u64,
    /// Players whose last match is more than this many nanoseconds before the replay's last event
    /// are left out; `None` keeps every player however long ago they played.
    pub active_within: Option<i64>,
    /// List at most this many players.
    pub top: Option<usize>,
}

impl Default for BoardRules {
    /// The documented defaults: [`DEFAULT_MIN_GAMES`], [`DEFAULT_ACTIVE_WITHIN`], no bound.
    fn default() -> BoardRules {
        BoardRules {
            min_games: DEFAULT_MIN_GAMES,
            active_within: ladder_projector::parse_duration(DEFAULT_ACTIVE_WITHIN),
            top: None,
        }
    }
}

impl BoardRules {
    /// Every player, established or not, however few games and long ago: the whole field ranked.
    pub fn everyone() -> BoardRules {
        BoardRules { min_games: 0, active_within: None, top: None }
    }
}

/// One ranked player.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// 1-based rank among the listed-or-eligible players; equal keys share a rank (1, 2, 2, 4).
    pub rank: usize,
    /// The player.
    pub row: Row,
    /// The instant of their last rated match.
    pub last_played: Option<ladder_events::Timestamp>,
}

impl Ranked {
    /// This row as `ladder leaderboard --format json` lists it, and `ladder serve`'s leaderboard
    /// with it (docs/outputs.md): `rank`, `player`, the standing's own fields
    /// ([`Standing::fields`]: `rd`, `volatility`, `sigma`, `provisional`, `glixare` where the
    /// algorithm keeps them) and `last_played`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "rank": self.rank, "player": self.row.player,
            "last_played": self.last_played.map(|t| t.to_string()),
        });
        put_fields(&mut v, &self.row.standing);
        v
    }
}

/// Writes a standing's own fields ([`Standing::fields`], in their documented names) into the JSON
/// object `v`: what every JSON output that shows a standing (a leaderboard row, a history line,
/// `ladder serve`'s reads) prints beside its own keys.
pub fn put_fields(v: &mut serde_json::Value, s: &Standing) {
    for (key, value) in s.fields() {
        v[key] = match value {
            FieldValue::Number(x) => serde_json::json!(x),
            FieldValue::Count(n) => serde_json::json!(n),
            FieldValue::Flag(b) => serde_json::json!(b),
            FieldValue::Null => serde_json::Value::Null,
        };
    }
}

/// How many players a leaderboard left out, by reason. Each player is counted once, under the
/// first rule they fail in this order: inactive, too few games, provisional, beyond `--top`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// No rated match within `active_within` of the replay's last event (or none at all).
    pub inactive: usize,
    /// Fewer than `min_games` rated matches.
    pub few_games: usize,
    /// RD above the algorithm's `provisional_rd`.
    pub provisional: usize,
    /// Eligible, but ranked below the `top` bound.
    pub below_top: usize,
}

impl LeftOut {
    /// Every player left out.
    pub fn total(&self) -> usize {
        self.inactive + self.few_games + self.provisional + self.below_top
    }
}

/// Players ranked for a leaderboard (docs/outputs.md).
#[derive(Clone, Debug, PartialEq)]
pub struct Leaderboard {
    /// Ranked players, best first, at most `top`.
    pub ranked: Vec<Ranked>,
    /// The players not listed, by reason.
    pub left_out: LeftOut,
    /// The RD above which a player is provisional, for algorithms that keep an RD.
    pub provisional_rd: Option<f64>,
    /// What a ranking key is: `glixare` (TGR) or `rating`.
    pub key: &'static str,
}

/// Ranks the players of `projector` for every algorithm the same way: established, active players
/// (`rules`: not provisional under the configuration's `provisional_rd`, at least `min_games`
/// games, a game within `active_within` of the replay's last event, from `activity`), by
/// TGR's GLIXARE or every other algorithm's rating, highest first. Equal keys share a rank and
/// are listed by name (bytes), so the order is total. The players left out are counted by reason.
pub fn leaderboard(
    projector: &dyn Projector,
    roster: &Roster,
    activity: &crate::Activity,
    rules: &BoardRules,
) -> Leaderboard {
    let config = projector.config();
    let provisional_rd =
        config.values.iter().find(|(k, _)| *k == "provisional_rd").and_then(|(_, v)| match v {
            ParamValue::Number(x) => Some(*x),
            ParamValue::Text(_) => None,
        });
    let key = projector.ranked_by();
    let mut left_out = LeftOut::default();
    let now = activity.last_event();
    let mut rows: Vec<(Row, Option<ladder_events::Timestamp>)> = Vec::new();
    for s in projector.standings() {
        let last = activity.last_played(s.player);
        let active = match (rules.active_within, last, now) {
            (None, _, _) => true,
            (Some(_), None, _) => false,
            (Some(within), Some(last), Some(now)) => now.0.saturating_sub(last.0) <= within,
            (Some(_), Some(_), None) => true,
        };
        if !active {
            left_out.inactive += 1;
        } else if s.games < rules.min_games {
            left_out.few_games += 1;
        } else if provisional_rd.zip(s.rd).is_some_and(|(p, rd)| rd > p) {
            left_out.provisional += 1;
        } else {
            rows.push((Row { player: roster.name(s.player).to_string(), standing: s }, last));
        }
    }
    rows.sort_by(|(a, _), (b, _)| {
        b.standing
            .rank_key()
            .total_cmp(&a.standing.rank_key())
            .then_with(|| a.player.as_bytes().cmp(b.player.as_bytes()))
    });
    let top = rules.top.unwrap_or(usize::MAX);
    left_out.below_top = rows.len().saturating_sub(top);
    let mut ranked: Vec<Ranked> = Vec::with_capacity(rows.len().min(top));
    let mut prev: Option<(f64, usize)> = None;
    for (i, (row, last_played)) in rows.into_iter().enumerate().take(top) {
        let k = row.standing.rank_key();
        let rank = match prev {
            Some((pk, pr)) if pk == k => pr,
            _ => i + 1,
        };
        prev = Some((k, rank));
        ranked.push(Ranked { rank, row, last_played });
    }
    Leaderboard { ranked, left_out, provisional_rd, key }
}

/// The one line that counts the players a leaderboard left out, by reason, naming the rule of
/// each (`None` when nobody was left out).
pub fn left_out_line(board: &Leaderboard, rules: &BoardRules) -> Option<String> {
    let l = &board.left_out;
    if l.total() == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if l.inactive > 0 {
        let within = rules.active_within.map_or(String::new(), |w| {
            let days = w as f64 / ladder_events::NANOS_PER_DAY as f64;
            format!("no game within {days}d of the last event")
        });
        parts.push(format!("{} inactive ({within}; --active-within all keeps them)", l.inactive));
    }
    if l.few_games > 0 {
        parts.push(format!(
            "{} with fewer than {} games (--min-games)",
            l.few_games, rules.min_games
        ));
    }
    if l.provisional > 0 {
        let rd = board.provisional_rd.map_or(String::new(), |p| format!(" (RD above {p})"));
        parts.push(format!("{} provisional{rd}", l.provisional));
    }
    if l.below_top > 0 {
        parts.push(format!("{} below the top {}", l.below_top, board.ranked.len()));
    }
    Some(format!("left out: {}", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ladder_projector::Display;

    /// The players written in slices on several threads are the bytes one thread writes, in
    /// order, for every shape of standing (with and without RD, volatility, sigma and TGR's
    /// display), names that need escaping included.
    #[test]
    fn players_on_several_threads_are_the_bytes_of_one() {
        let n = 2 * PARALLEL_PLAYERS as u32 + 7;
        let rows: Vec<Row> = (0..n)
            .map(|i| Row {
                player: format!("p{i:06}\"\\"),
                standing: Standing {
                    player: PlayerId(i),
                    rating: 1500.0 + f64::from(i) / 7.0,
                    rd: (i % 2 == 0).then_some(f64::from(i) / 3.0),
                    volatility: (i % 3 == 0).then_some(0.06),
                    sigma: (i % 5 == 0).then_some(8.25),
                    games: u64::from(i % 11),
                    display: (i % 7 == 0).then_some(Display {
                        provisional: i % 2 == 0,
                        glixare: (i % 4 == 0).then_some(f64::from(i) / 100.0),
                    }),
                },
            })
            .collect();
        let mut one = String::new();
        write_players(&mut one, &rows, &row_line, true);
        for threads in [2, 3, 8] {
            let mut many = String::new();
            players_json_on(&mut many, &rows, threads);
            assert_eq!(many, one, "{threads} threads");
        }
        assert!(one.starts_with(r#"{"player":"p000000\"\\","rating":1500.0,"rd":0.0,"volatility":0.06,"sigma":8.25,"games":0,"provisional":true,"glixare":0.0}"#));
        assert_eq!(one.matches(r#"{"player":"#).count(), rows.len());
    }

    /// [`by_name`] puts names in the order of their bytes, as a sort of the whole names does:
    /// names shorter than, as long as and longer than the 8-byte key, names that share the key
    /// (so the whole names decide), one that is another followed by a zero byte, and the empty
    /// name.
    #[test]
    fn the_order_by_key_is_the_order_of_the_names_bytes() {
        let mut rng = ladder_sim::SplitMix64(6);
        let mut names: Vec<String> =
            ["", "a", "a\0", "a\0\0", "abcdefgh", "abcdefgh\0", "abcdefghi", "abcdefgg~", "b", "é"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        while names.len() < 5_000 {
            let len = (rng.next_u64() % 14) as usize;
            // A small alphabet, so that many names share their first 8 bytes.
            let name: String =
                (0..len).map(|_| ['a', 'b', '\0', 'z'][rng.next_u64() as usize % 4]).collect();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let standings: Vec<Standing> =
            (0..names.len()).map(|i| Standing::rating_only(PlayerId(i as u32), 0.0, 0)).collect();
        let order = by_name(&standings, |s| names[s.player.index()].as_bytes());
        let got: Vec<&str> = order.iter().map(|&(_, i)| names[i as usize].as_str()).collect();
        let mut want: Vec<&str> = names.iter().map(String::as_str).collect();
        want.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        assert_eq!(got, want);
    }

    /// [`write_replay_json`] writes the bytes of [`Snapshot::capture`] then
    /// [`Snapshot::to_json`] and a newline, with and without a prediction, for every algorithm,
    /// on enough players that the players' objects are written on several threads; names of
    /// every length, sharing prefixes, in an order other than the ids'.
    #[test]
    fn the_replay_json_is_the_snapshot_s_json() {
        use ladder_events::{Prior, Timestamp};
        use ladder_projector::{Input, Step};
        let mut rng = ladder_sim::SplitMix64(27);
        for algo in crate::registry::ALGORITHMS {
            let mut p =
                crate::registry::build(crate::registry::config(algo, &[]).unwrap()).unwrap();
            let mut roster = Roster::new();
            let n = PARALLEL_PLAYERS + 1_000;
            for i in 0..n {
                let name = match i % 3 {
                    0 => format!("p{:06}", n - i),
                    1 => format!("player-{i}-with-a-long-name"),
                    _ => format!("q{}", i % 1000) + &"x".repeat(i % 7) + &i.to_string(),
                };
                let id = roster.intern(&name);
                let prior = Prior {
                    rating: Some(1000.0 + (rng.next_u64() % 100_000) as f64 / 97.0),
                    rd: None,
                    volatility: None,
                };
                let step = Step {
                    seq: i as u64 + 1,
                    at: Timestamp(i as i64),
                    input: Input::Joined { player: id, prior },
                };
                p.apply(&step, None).unwrap();
            }
            let head = [7u8; 32];
            let mut score = Score::new(0);
            score.record(0.75, 1.0);
            for prediction in [None, Some(&score)] {
                let mut snap = Snapshot::capture(&p, &roster, n as u64, &head);
                snap.prediction = prediction.cloned();
                let mut got = Vec::new();
                write_replay_json(&mut got, &p, &roster, n as u64, &head, prediction).unwrap();
                assert_eq!(String::from_utf8(got).unwrap(), snap.to_json() + "\n", "{algo}");
            }
        }
    }

    /// The members of `s` written from the list [`Standing::fields`] gives, one by one, as the
    /// replay's JSON wrote them before [`player_fields`]: what it must equal.
    fn members_from_the_list(s: &Standing) -> String {
        let mut o = String::new();
        for (k, n, b, null) in fields(s) {
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
        o
    }

    /// [`player_fields`] writes the keys, order and values of [`Standing::fields`] for every
    /// combination of the optional fields and TGR's display, over floats of every form Rust
    /// prints (integral, fractional, tiny and huge in exponent form, negative zero).
    #[test]
    fn player_fields_are_the_members_standing_fields_lists() {
        let numbers = [1500.0, -0.0, 0.1 + 0.2, 1e-7, 1.5e16, 1234.5678901234567, 0.06];
        let mut checked = 0;
        for mask in 0..64u32 {
            for (i, &x) in numbers.iter().enumerate() {
                let y = numbers[(i + 3) % numbers.len()];
                let s = Standing {
                    player: PlayerId(i as u32),
                    rating: x,
                    rd: (mask & 1 != 0).then_some(y),
                    volatility: (mask & 2 != 0).then_some(x / 3.0),
                    sigma: (mask & 4 != 0).then_some(y * 7.0),
                    games: [0, 1, 12_345_678][i % 3],
                    display: (mask & 8 != 0).then_some(Display {
                        provisional: mask & 16 != 0,
                        glixare: (mask & 32 != 0).then_some(y / 11.0),
                    }),
                };
                let mut fast = String::new();
                player_fields(&mut fast, &s);
                assert_eq!(fast, members_from_the_list(&s), "{s:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, 64 * numbers.len());
    }
}
