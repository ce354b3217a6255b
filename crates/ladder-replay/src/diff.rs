//! Comparing two replays of one history (`ladder diff`): who moved, by how much, and how much the
//! two orders agree.

use crate::Snapshot;

/// One side of a comparison: a replay's label and its players' ratings.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// What produced it, e.g. `tgr sc=20.0 p=0.9 ...` or a file name.
    pub label: String,
    /// The last sequence number applied.
    pub through: u64,
    /// Its chain hash (64 hex digits).
    pub head: String,
    /// `(player, rating, rd)` for every player.
    pub players: Vec<(String, f64, Option<f64>)>,
}

/// Why a saved snapshot could not be read.
#[derive(Debug, thiserror::Error)]
#[error("not a replay snapshot ({0}); save one with `ladder replay --format json`")]
pub struct SnapshotParseError(String);

impl Side {
    /// The side of a fresh replay.
    pub fn of(snapshot: &Snapshot) -> Side {
        let cfg: Vec<String> = snapshot.config.iter().map(|(k, v)| format!("{k}={v}")).collect();
        Side {
            label: format!("{} {}", snapshot.algorithm, cfg.join(" ")),
            through: snapshot.through,
            head: snapshot.head.clone(),
            players: snapshot
                .players
                .iter()
                .map(|r| (r.player.clone(), r.standing.rating, r.standing.rd))
                .collect(),
        }
    }

    /// Reads the JSON that `ladder replay --format json` prints (the first line, if several).
    pub fn from_json(label: &str, text: &str) -> Result<Side, SnapshotParseError> {
        let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| SnapshotParseError(e.to_string()))?;
        let bad = |what: &str| SnapshotParseError(format!("{what} is missing or malformed"));
        let algorithm = v["algorithm"].as_str().ok_or_else(|| bad("`algorithm`"))?;
        let players = v["players"]
            .as_array()
            .ok_or_else(|| bad("`players`"))?
            .iter()
            .map(|p| {
                let name = p["player"].as_str().ok_or_else(|| bad("a player's `player`"))?;
                let rating = p["rating"].as_f64().ok_or_else(|| bad("a player's `rating`"))?;
                Ok((name.to_string(), rating, p["rd"].as_f64()))
            })
            .collect::<Result<Vec<_>, SnapshotParseError>>()?;
        Ok(Side {
            label: format!("{algorithm} from {label}"),
            through: v["through"].as_u64().ok_or_else(|| bad("`through`"))?,
            head: v["head"].as_str().ok_or_else(|| bad("`head`"))?.to_string(),
            players,
        })
    }
}

/// One player in a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffRow {
    /// The player.
    pub player: String,
    /// Rating, RD and rank (by rating, best first; ties share a rank) on side A, if present there.
    pub a: Option<(f64, Option<f64>, usize)>,
    /// The same on side B.
    pub b: Option<(f64, Option<f64>, usize)>,
}

impl DiffRow {
    /// B's rating minus A's, when the player is on both sides.
    pub fn change(&self) -> Option<f64> {
        Some(self.b?.0 - self.a?.0)
    }

    /// How many places the player rose from A to B (positive: up).
    pub fn rank_change(&self) -> Option<i64> {
        Some(self.a?.2 as i64 - self.b?.2 as i64)
    }
}

/// A comparison of two replays.
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    /// Side A's label, through and head.
    pub a: (String, u64, String),
    /// Side B's label, through and head.
    pub b: (String, u64, String),
    /// Every player, sorted by the size of the rating change (largest first), then by rank
    /// change, then by name; players on one side only come last.
    pub rows: Vec<DiffRow>,
    /// Players on both sides.
    pub compared: usize,
    /// Players whose rating differs.
    pub rating_changed: usize,
    /// Players whose rank differs.
    pub rank_changed: usize,
    /// Spearman's rank correlation of the two orders over the players on both sides (average
    /// ranks for ties); `None` with fewer than two players or no spread.
    pub rank_correlation: Option<f64>,
}

/// Ranks by rating, best first, equal ratings sharing a rank (1, 2, 2, 4).
fn ranks(players: &[(String, f64, Option<f64>)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&i, &j| players[j].1.total_cmp(&players[i].1));
    let mut rank = vec![0; players.len()];
    for (pos, &i) in order.iter().enumerate() {
        rank[i] = if pos > 0 && players[order[pos - 1]].1 == players[i].1 {
            rank[order[pos - 1]]
        } else {
            pos + 1
        };
    }
    rank
}

/// Average ranks (1-based) of `values`, highest first, ties sharing the mean of their places.
fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    let mut out = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let avg = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            out[i] = avg;
        }
        start = end;
    }
    out
}

/// Spearman's rho: the Pearson correlation of the average ranks.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() < 2 || a.len() != b.len() {
        return None;
    }
    let (ra, rb) = (average_ranks(a), average_ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

/// Compares side A with side B.
pub fn diff(a: &Side, b: &Side) -> Diff {
    let (rank_a, rank_b) = (ranks(&a.players), ranks(&b.players));
    let index_b: std::collections::HashMap<&str, usize> =
        b.players.iter().enumerate().map(|(i, p)| (p.0.as_str(), i)).collect();
    let mut rows = Vec::with_capacity(a.players.len().max(b.players.len()));
    let mut seen_b = vec![false; b.players.len()];
    for (i, (name, rating, rd)) in a.players.iter().enumerate() {
        let j = index_b.get(name.as_str()).copied();
        if let Some(j) = j {
            seen_b[j] = true;
        }
        rows.push(DiffRow {
            player: name.clone(),
            a: Some((*rating, *rd, rank_a[i])),
            b: j.map(|j| (b.players[j].1, b.players[j].2, rank_b[j])),
        });
    }
    for (j, p) in b.players.iter().enumerate().filter(|(j, _)| !seen_b[*j]) {
        rows.push(DiffRow { player: p.0.clone(), a: None, b: Some((p.1, p.2, rank_b[j])) });
    }
    let both: Vec<&DiffRow> = rows.iter().filter(|r| r.a.is_some() && r.b.is_some()).collect();
    let compared = both.len();
    let rating_changed = both.iter().filter(|r| r.change() != Some(0.0)).count();
    let rank_changed = both.iter().filter(|r| r.rank_change() != Some(0)).count();
    let xs: Vec<f64> = both.iter().map(|r| r.a.map_or(0.0, |a| a.0)).collect();
    let ys: Vec<f64> = both.iter().map(|r| r.b.map_or(0.0, |b| b.0)).collect();
    let rank_correlation = spearman(&xs, &ys);
    rows.sort_by(|x, y| {
        let key = |r: &DiffRow| r.change().map(f64::abs);
        match (key(x), key(y)) {
            (Some(p), Some(q)) => q.total_cmp(&p),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then_with(|| y.rank_change().map(i64::abs).cmp(&x.rank_change().map(i64::abs)))
        .then_with(|| x.player.as_bytes().cmp(y.player.as_bytes()))
    });
    Diff {
        a: (a.label.clone(), a.through, a.head.clone()),
        b: (b.label.clone(), b.through, b.head.clone()),
        rows,
        compared,
        rating_changed,
        rank_changed,
        rank_correlation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(players: &[(&str, f64)]) -> Side {
        Side {
            label: "x".into(),
            through: 1,
            head: "0".repeat(64),
            players: players.iter().map(|(n, r)| (n.to_string(), *r, None)).collect(),
        }
    }

    #[test]
    fn rows_changes_and_summary() {
        let a = side(&[("ann", 1600.0), ("bob", 1500.0), ("cy", 1400.0), ("dee", 1300.0)]);
        let b = side(&[("ann", 1550.0), ("bob", 1580.0), ("cy", 1400.0), ("eve", 1450.0)]);
        let d = diff(&a, &b);
        let order: Vec<&str> = d.rows.iter().map(|r| r.player.as_str()).collect();
        // bob +80 (rank 2 -> 1), ann -50 (1 -> 2), cy 0 (3 -> 4: eve is above him on B), then
        // one-sided players by name.
        assert_eq!(order, vec!["bob", "ann", "cy", "dee", "eve"]);
        assert_eq!(d.rows[0].change(), Some(80.0));
        assert_eq!(d.rows[0].rank_change(), Some(1));
        assert_eq!(d.rows[2].rank_change(), Some(-1));
        assert_eq!((d.compared, d.rating_changed, d.rank_changed), (3, 2, 3));
        // Over ann, bob, cy: A ranks 1,2,3; B ranks 2,1,3: rho = 1 - 6*(1+1+0)/(3*8) = 0.5.
        assert!((d.rank_correlation.unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn spearman_handles_ties_and_degenerate_input() {
        assert_eq!(spearman(&[1.0], &[2.0]), None);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
        // Ties: average ranks a = (1.5, 1.5, 3) against b = (1, 2, 3) (descending values).
        // Pearson of (1.5,1.5,3) and (1,2,3): means 2 and 2; sab = (-.5)(-1)+(-.5)(0)+(1)(1) = 1.5;
        // saa = .25+.25+1 = 1.5; sbb = 2; rho = 1.5/sqrt(3) = 0.8660254037844387.
        let rho = spearman(&[5.0, 5.0, 1.0], &[9.0, 8.0, 1.0]).unwrap();
        assert!((rho - 1.5 / 3f64.sqrt()).abs() < 1e-12, "{rho}");
    }

    #[test]
    fn reads_what_replay_prints() {
        let json = r#"{"algorithm":"elo","config":{"k":20.0},"through":7,"head":"ab","digest":"cd","players":[{"player":"a","rating":1510.5,"games":1}]}"#;
        let s = Side::from_json("a.json", json).unwrap();
        assert_eq!(s.players, vec![("a".to_string(), 1510.5, None)]);
        assert_eq!(s.through, 7);
        assert!(Side::from_json("x", "{}").is_err());
        assert!(Side::from_json("x", "not json").is_err());
    }
}
