//! `ladder serve` as a process: concurrent appenders with ids, SIGKILL in the middle, a restart,
//! every unacknowledged request sent again: each acknowledged event is stored exactly once, the
//! ledger verifies, a mirror taken before the kill stays consistent after it, and SIGTERM
//! writes the last signed checkpoint. Loopback only, bounded loops.

use crate::support::Env;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn spawn(env: &Env, key: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ladder"))
        .current_dir(env.dir.path())
        .arg("--ledger")
        .arg(env.ledger())
        .args(["serve", "--listen", "127.0.0.1:0", "--origin", "test.example/serve"])
        .arg("--key")
        .arg(key)
        .args(["--checkpoint-interval", "50ms"])
        .env_remove("LADDER_LEDGER")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {first:?}"))
        .trim_end_matches('/')
        .to_string();
    (child, url)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(20)))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Posts one result with `id`; `Some(body)` when answered 200.
fn post(
    agent: &ureq::Agent,
    url: &str,
    token: &str,
    id: &str,
    n: usize,
) -> Option<serde_json::Value> {
    let body = format!(
        "{{\"type\":\"MatchResult\",\"id\":\"{id}\",\"seats\":[{{\"player\":\"p{}\",\"score\":1}},{{\"player\":\"q{}\",\"score\":0}}]}}\n",
        n % 7,
        n % 5
    );
    let mut r = agent
        .post(&format!("{url}/api/events?auto_join=true"))
        .header("Authorization", &format!("Bearer {token}"))
        .send(body)
        .ok()?;
    if r.status().as_u16() != 200 {
        return None;
    }
    serde_json::from_str(&r.body_mut().read_to_string().ok()?).ok()
}

#[test]
fn serve_killed_mid_run_loses_no_acknowledged_event_and_sigterm_signs_the_last_checkpoint() {
    let env = Env::new();
    env.ok(&["keygen", "k.key", "--name", "test.example/serve"]);
    let key = env.dir.path().join("k.key");
    let pubkey = env.dir.path().join("k.key.pub");
    let token = env.ok(&["token", "add", "club"]).trim().to_string();
    let tokens = std::fs::read_to_string(env.dir.path().join("ladder.db.tokens")).unwrap();
    assert!(!tokens.contains(&token), "only the hash is stored");

    let (mut server, url) = spawn(&env, &key);
    let clients = 8;
    let per = 60;
    let acked = Mutex::new(Vec::<String>::new());
    let count = AtomicUsize::new(0);
    let killed = AtomicBool::new(false);
    // The second half of each client's requests waits for the mirror, then goes at a bounded
    // pace: a fast server must not have answered everything before the kill comes.
    let mirrored = AtomicBool::new(false);
    let mirror = env.dir.path().join("mirror.db");
    let deadline = Instant::now() + Duration::from_secs(60);
    std::thread::scope(|s| {
        for c in 0..clients {
            let (acked, count, killed, mirrored, url, token) =
                (&acked, &count, &killed, &mirrored, &url, &token);
            s.spawn(move || {
                let agent = agent();
                for i in 0..per {
                    if i == per / 2 {
                        while !mirrored.load(Ordering::SeqCst)
                            && !killed.load(Ordering::SeqCst)
                            && Instant::now() < deadline
                        {
                            std::thread::sleep(Duration::from_millis(2));
                        }
                    }
                    if i >= per / 2 {
                        std::thread::sleep(Duration::from_millis(3));
                    }
                    if killed.load(Ordering::SeqCst) {
                        return;
                    }
                    let id = format!("c{c}-{i}");
                    if post(&agent, url, token, &id, c * per + i).is_some() {
                        acked.lock().unwrap().push(id);
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
        }
        // Mirror once while it runs, then SIGKILL a few requests into the second half.
        while count.load(Ordering::SeqCst) < clients * per / 6 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(100));
        let r = crate::support::run_in(
            env.dir.path(),
            &mirror,
            &["mirror", &format!("{url}/log"), "--pubkey", pubkey.to_str().unwrap()],
            b"",
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        mirrored.store(true, Ordering::SeqCst);
        let kill_at = clients * per / 2 + clients * per / 12;
        while count.load(Ordering::SeqCst) < kill_at && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        server.kill().unwrap(); // SIGKILL
        killed.store(true, Ordering::SeqCst);
        server.wait().unwrap();
    });
    let acked = acked.into_inner().unwrap();
    assert!(acked.len() < clients * per, "the kill came before the end");

    // Restart, and send again every request that was not acknowledged (and a few that were).
    let (server, url) = spawn(&env, &key);
    let agent = agent();
    for c in 0..clients {
        for i in 0..per {
            let id = format!("c{c}-{i}");
            let v = post(&agent, &url, &token, &id, c * per + i).expect("answered after restart");
            let once = v["appended"].as_u64().unwrap() >= 1 || v["duplicates"] == 1;
            assert!(once, "{v}");
            if acked.contains(&id) {
                assert_eq!(v["duplicates"], 1, "an acknowledged {id} was stored: {v}");
            }
        }
    }
    // The mirror taken before the kill extends consistently to the new head.
    std::thread::sleep(Duration::from_millis(200));
    let r = crate::support::run_in(
        env.dir.path(),
        &mirror,
        &["mirror", &format!("{url}/log"), "--pubkey", pubkey.to_str().unwrap()],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let pid = server.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    let out = server.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // Every id exactly once; the chain verifies; the last checkpoint names the head.
    let log = env.ok(&["log", "--format", "jsonl"]);
    let mut ids: Vec<String> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect();
    let stored = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), stored, "no id twice");
    assert_eq!(stored, clients * per, "every request stored");
    let verify = env.ok(&["verify"]);
    let size = log.lines().count();
    let cp = std::fs::read_to_string(env.dir.path().join("ladder.db.checkpoint")).unwrap();
    assert_eq!(cp.lines().nth(1), Some(size.to_string().as_str()), "{cp}");
    assert!(verify.contains(&format!("({size} events")), "{verify}");
    let mirrored = crate::support::run_in(env.dir.path(), &mirror, &["verify"], b"");
    assert_eq!(mirrored.code, 0);
    let head = |s: &str| s.split_whitespace().nth(2).unwrap_or_default().to_string();
    assert_eq!(head(&mirrored.stdout), head(&verify), "the mirror has the served head");
}

#[test]
fn the_explain_route_answers_what_ladder_explain_prints() {
    // Over loopback, against the real process: GET /api/events/SEQ/explain is the very object
    // `ladder explain --format json` prints for the same event, constants and ledger (a match
    // rated in a period included), and a bad constant or an unknown event is refused.
    let env = Env::new();
    env.ok(&["import", crate::support::fixture("glickman.jsonl").to_str().unwrap()]);
    env.ok(&["keygen", "k.key", "--name", "test.example/serve"]);
    let asks: [(&[&str], &str); 3] = [
        (&["--algo", "glicko2", "--event", "6"], "algo=glicko2"),
        (
            &[
                "--algo", "elo", "--set", "k=20", "--event", "5", "--vs", "k=40", "--player",
                "player",
            ],
            "algo=elo&set=k%3D20&vs=k%3D40&player=player",
        ),
        (&["--algo", "weng-lin", "--event", "7"], "algo=weng-lin"),
    ];
    let printed: Vec<serde_json::Value> = asks
        .iter()
        .map(|(args, _)| {
            let out = env.ok(&[&["explain", "--format", "json"], *args].concat());
            serde_json::from_str(out.trim()).unwrap()
        })
        .collect();
    let (mut server, url) = spawn(&env, &env.dir.path().join("k.key"));
    let agent = agent();
    for ((_, query), expected) in asks.iter().zip(&printed) {
        let seq = expected["seq"].as_u64().unwrap();
        let mut r = agent.get(&format!("{url}/api/events/{seq}/explain?{query}")).call().unwrap();
        let body = r.body_mut().read_to_string().unwrap();
        assert_eq!(r.status().as_u16(), 200, "{query}: {body}");
        let got: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(&got, expected, "{query}");
    }
    let r = agent.get(&format!("{url}/api/events/6/explain?algo=glicko2&set=tau%3D-1")).call();
    assert_eq!(r.unwrap().status().as_u16(), 400);
    let r = agent.get(&format!("{url}/api/events/99/explain?algo=glicko2")).call();
    assert_eq!(r.unwrap().status().as_u16(), 404);
    server.kill().unwrap();
    server.wait().unwrap();
}
