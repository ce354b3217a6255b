//! The audit of a disputed rating change, end to end (issue: replay, diff and explain).
//!
//! fixtures/glickman.jsonl, event 6: `opp1550` (1550/100) beats `player` (who stands near
//! 1549/175 after beating opp1400). An almost even battle: XD is about 0.44 for the winner. With
//! TGR's P = 0.35 the merit weight 2 * PMERIT - 1 = 2 * (1 - 0.65 * XD * (1 + 2 XD)) - 1 is
//! negative for XD above about 0.41, so the winner loses rating; with P = 5/6 it is positive.

use crate::support::{fixture, Env};

fn json(e: &Env, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(e.ok(args).trim()).unwrap()
}

fn player_change(v: &serde_json::Value, name: &str) -> f64 {
    v["players"].as_array().unwrap().iter().find(|p| p["player"] == name).unwrap()["change"]
        .as_f64()
        .unwrap()
}

#[test]
fn a_winner_who_lost_rating_is_explained_flagged_and_voided() {
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    let v = json(
        &e,
        &[
            "explain", "--algo", "tgr", "--set", "p=0.35", "--event", "6", "--vs", "p=0.9",
            "--format", "json",
        ],
    );
    assert_eq!(v["seq"], 6);
    assert_eq!(v["event"]["id"], "g2");
    assert_eq!(v["inclusion_ok"], true);
    assert_eq!(v["inclusion"]["index"], 5);
    assert_eq!(v["hash"].as_str().unwrap().len(), 64);
    // The winner lost rating under p = 0.35...
    let low = &v["explained"];
    assert!(player_change(low, "opp1550") < 0.0);
    let flags: Vec<(&str, &str)> = low["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["player"].as_str().unwrap(), f["flag"].as_str().unwrap()))
        .collect();
    assert!(flags.contains(&("opp1550", "winner-lost-rating")), "{flags:?}");
    assert!(flags.contains(&("opp1550", "negative-merit-weight")), "{flags:?}");
    // ...and the numbers that cause it are in the trace: PMERIT below 1/2.
    let pmerit = low["trace"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["player"] == "opp1550" && q["name"] == "PMERIT")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(pmerit < 0.5, "{pmerit}");
    // The same event under p = 0.9 rewards the winner.
    let high = &v["vs"][0];
    assert!(player_change(high, "opp1550") > 0.0);
    assert!(!high["flags"].as_array().unwrap().iter().any(|f| f["flag"] == "winner-lost-rating"));

    // Save the standings, void the match, and see who moved because of it.
    let before = e.ok(&["replay", "--algo", "tgr", "--set", "p=0.35", "--format", "json"]);
    let saved = e.file("before.json", before.as_bytes());
    e.ok(&[
        "append",
        "--at",
        "2026-03-01T13:00:00Z",
        "void",
        "g2",
        "--reason",
        "disputed: wrong result entered",
    ]);
    let d = json(&e, &["diff", saved.to_str().unwrap(), "tgr:p=0.35", "--format", "json"]);
    let rows = d["players"].as_array().unwrap();
    let row = |n: &str| rows.iter().find(|r| r["player"] == n).unwrap();
    // opp1550 played only g2: without it they are back at their prior rating.
    assert_eq!(row("opp1550")["b"]["rating"], 1550.0);
    assert!(row("opp1550")["change"].as_f64().unwrap() > 0.0, "undoing a loss of rating");
    // player's later game (g3) changes too, so both of g2's players and g3's opponent moved.
    assert!(row("player")["change"].as_f64().unwrap() != 0.0);
    assert!(row("opp1700")["change"].as_f64().unwrap() != 0.0);
    // opp1400 played before g2 and nothing after it: unmoved.
    assert_eq!(row("opp1400")["change"], 0.0);
    assert_eq!(d["summary"]["rating_changed"], 3);
}

#[test]
fn explain_for_one_player_shows_only_that_players_quantities() {
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    let args = ["explain", "--algo", "tgr", "--set", "p=0.35", "--event", "6", "--format", "json"];
    let all = json(&e, &args);
    let one = json(&e, &[&args[..], &["--player", "opp1550"]].concat());
    let owners = |v: &serde_json::Value| -> Vec<String> {
        v["explained"]["trace"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|q| q["player"].as_str().map(str::to_string))
            .collect()
    };
    // The event names two players; with --player only one of them owns quantities, and every
    // quantity of that player is still there.
    let (every, mine) = (owners(&all), owners(&one));
    assert!(every.iter().any(|p| p != "opp1550"), "{every:?}");
    assert!(!mine.is_empty() && mine.iter().all(|p| p == "opp1550"), "{mine:?}");
    assert_eq!(mine.len(), every.iter().filter(|p| *p == "opp1550").count());
    // The text view too: no line of the other player's computation.
    let text = e.ok(&[
        "explain", "--algo", "tgr", "--set", "p=0.35", "--event", "6", "--player", "opp1550",
    ]);
    let other = every.iter().find(|p| *p != "opp1550").unwrap();
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with(other.as_str()) && l.contains(" = ")),
        "{text}"
    );
}

#[test]
fn explain_names_what_it_cannot_do() {
    let e = Env::new();
    e.ok(&["import", fixture("glickman.jsonl").to_str().unwrap()]);
    let r = e.run(&["explain", "--algo", "elo", "--event", "99"], b"");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("holds events 1 to 7"), "{}", r.stderr);
    let r = e.run(&["explain", "--algo", "elo", "--event", "5", "--player", "opp1700"], b"");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("does not name"), "{}", r.stderr);
    // The table names every quantity for an Elo game.
    let t = e.ok(&["explain", "--algo", "elo", "--event", "5"]);
    assert!(t.contains("event 5 as stored"), "{t}");
    assert!(t.contains("event 5 is in the tree of the first 7 events"), "{t}");
}
