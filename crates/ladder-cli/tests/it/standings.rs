//! One standing per player: every command that prints a player's standing prints the fields the
//! algorithm keeps (`replay`'s player object), for every registered algorithm. Weng-Lin's and
//! TTT's `sigma` used to reach `replay` only; TTT's history printed an `rd` it does not have.

use crate::support::{fixture, Env};
use ladder_replay::registry::ALGORITHMS;

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The keys of a JSON object, sorted, leaving out `skip`.
fn keys(v: &serde_json::Value, skip: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .filter(|k| !skip.contains(&k.as_str()))
        .cloned()
        .collect();
    k.sort();
    k
}

#[test]
fn every_command_prints_every_field_of_every_algorithms_standing() {
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    let mut sigmas = 0;
    for algo in ALGORITHMS {
        let replay = json(&e.ok(&["replay", "--algo", algo, "--format", "json"]));
        let me = crate::support::entry(&replay["players"], "player", "player");
        let fields = keys(me, &["player"]);
        assert!(fields.contains(&"rating".to_string()) && fields.contains(&"games".to_string()));
        if fields.contains(&"sigma".to_string()) {
            sigmas += 1;
        }

        // leaderboard: each listed row carries the same fields beside its rank, name and last
        // game (the provisional bar lifted so that the player is listed under every algorithm).
        let mut args = vec![
            "leaderboard",
            "--algo",
            algo,
            "--format",
            "json",
            "--min-games",
            "0",
            "--active-within",
            "all",
        ];
        if replay["config"].get("provisional_rd").is_some() {
            args.extend(["--set", "provisional_rd=100000"]);
        }
        let board = json(&e.ok(&args));
        let row = crate::support::entry(&board["ranked"], "player", "player");
        assert_eq!(
            keys(row, &["rank", "player", "last_played"]),
            fields,
            "{algo}: leaderboard {row}"
        );

        // explain: the standing before and after the player's last game.
        let explain = json(&e.ok(&[
            "explain", "--algo", algo, "--event", "7", "--player", "player", "--format", "json",
        ]));
        let seat = &explain["explained"]["players"][0];
        assert_eq!(seat["player"], "player", "{algo}: {explain}");
        assert_eq!(keys(&seat["after"], &[]), fields, "{algo}: explain {seat}");
        assert_eq!(keys(&seat["before"], &[]), fields, "{algo}: explain {seat}");

        // history: every line after a game carries the same fields, beside the line's own.
        let text = e.ok(&["history", "--algo", algo, "--player", "player", "--format", "json"]);
        let last = json(text.lines().last().unwrap_or_else(|| panic!("{algo}: no history")));
        let own = ["seq", "at", "type", "opponents", "score", "what", "rank", "change"];
        assert_eq!(keys(&last, &own), fields, "{algo}: history {last}");
        assert_eq!(last["rating"], me["rating"], "{algo}: history ends where the replay does");
        // Each line's change is its rating less the line before's.
        let lines: Vec<serde_json::Value> = text.lines().map(json).collect();
        for w in lines.windows(2) {
            let (a, b) = (w[0]["rating"].as_f64().unwrap(), w[1]["rating"].as_f64().unwrap());
            let change = w[1]["change"].as_f64().unwrap_or_else(|| panic!("{algo}: {text}"));
            assert!((change - (b - a)).abs() < 1e-9, "{algo}: {text}");
        }
        // history as CSV: the same fields as columns (no `rd` where the algorithm keeps none),
        // and the last row's cells are the JSON's values.
        let csv = e.ok(&["history", "--algo", algo, "--player", "player", "--format", "csv"]);
        let header: Vec<&str> = csv.lines().next().unwrap_or_default().split(',').collect();
        let mut columns: Vec<String> =
            header.iter().filter(|c| !own.contains(c)).map(|c| c.to_string()).collect();
        columns.sort();
        assert_eq!(columns, fields, "{algo}: history csv {header:?}");
        let row: Vec<&str> = csv.lines().last().unwrap_or_default().split(',').collect();
        assert_eq!(row.len(), header.len(), "{algo}: {csv}");
        for (column, cell) in header.iter().zip(&row) {
            let want = match &last[*column] {
                serde_json::Value::Null => String::new(),
                serde_json::Value::Array(a) if a.is_empty() => String::new(),
                serde_json::Value::Array(a) => {
                    a.iter().map(|x| x.as_str().unwrap_or_default()).collect::<Vec<_>>().join(";")
                }
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            match (cell.parse::<f64>(), want.parse::<f64>()) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{algo}: {column} in {csv}"),
                _ => assert_eq!(*cell, want, "{algo}: {column} in {csv}"),
            }
        }
    }
    // Weng-Lin and TTT keep a sigma.
    assert_eq!(sigmas, 2);
}
