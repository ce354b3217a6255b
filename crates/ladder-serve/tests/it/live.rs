//! A real server on 127.0.0.1:0: concurrent appenders with ids, readers of tiles and the
//! leaderboard meanwhile, then `mirror` of its `/log` gives the same head and root.

use crate::common::{start, ORIGIN};
use ladder_log::Ledger;
use ladder_serve::Limits;
use std::time::Duration;

struct Running {
    base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<ladder_serve::Signed>>,
    dir: std::path::PathBuf,
    _tmp: tempfile::TempDir,
}

fn run_server(ledger: Ledger) -> (Running, String) {
    let f = start(ledger, Limits::default());
    let token = f.token.clone();
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let crate::common::Fixture { dir, service, .. } = f;
    let path = dir.path().to_path_buf();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            ladder_serve::serve(listener, service, Duration::from_millis(20), async move {
                let _ = stop_rx.await;
            })
            .await
            .unwrap()
        })
    });
    let addr = addr_rx.recv_timeout(Duration::from_secs(30)).unwrap();
    (
        Running {
            base: format!("http://{addr}"),
            stop: Some(stop_tx),
            thread: Some(thread),
            dir: path,
            _tmp: dir,
        },
        token,
    )
}

impl Running {
    fn stop(&mut self) -> ladder_serve::Signed {
        let _ = self.stop.take().unwrap().send(());
        self.thread.take().unwrap().join().unwrap()
    }
}

#[test]
fn concurrent_appenders_are_each_stored_once_and_a_mirror_of_log_matches() {
    let (mut server, token) = run_server(Ledger::memory());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into();
    let post = |body: String| -> (u16, serde_json::Value) {
        let mut r = agent
            .post(&format!("{}/api/events?auto_join=true", server.base))
            .header("Authorization", &format!("Bearer {token}"))
            .send(body)
            .unwrap();
        let status = r.status().as_u16();
        let text = r.body_mut().read_to_string().unwrap();
        (status, serde_json::from_str(&text).unwrap())
    };
    let clients = 16;
    let per = 25;
    let acknowledged = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for c in 0..clients {
            let (post, acknowledged) = (&post, &acknowledged);
            s.spawn(move || {
                for i in 0..per {
                    let body = format!(
                        "{{\"type\":\"MatchResult\",\"id\":\"c{c}-{i}\",\"seats\":[{{\"player\":\"c{c}\",\"score\":1}},{{\"player\":\"x{}\",\"score\":0}}]}}\n",
                        i % 5
                    );
                    // Each request is sent again after it was answered: the retry is a duplicate.
                    for attempt in 0..2 {
                        let (status, v) = post(body.clone());
                        assert_eq!(status, 200, "{v}");
                        if attempt == 0 {
                            acknowledged.lock().unwrap().push(format!("c{c}-{i}"));
                        } else {
                            assert_eq!(v["duplicates"], 1, "{v}");
                            assert_eq!(v["appended"], 0, "{v}");
                        }
                    }
                }
            });
        }
        // A reader meanwhile: checkpoints, a tile, the leaderboard; none fails.
        s.spawn(|| {
            for _ in 0..30 {
                let r = agent.get(&format!("{}/log/checkpoint", server.base)).call().unwrap();
                assert_eq!(r.status().as_u16(), 200);
                let r = agent
                    .get(&format!("{}/api/leaderboard?algo=glicko2&min_games=0", server.base))
                    .call()
                    .unwrap();
                assert_eq!(r.status().as_u16(), 200);
            }
        });
    });
    // Wait for a checkpoint holding everything, then mirror `/log`.
    let expected_events = clients * per + clients + 5; // results, the c players, the x players
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mut r = agent.get(&format!("{}/log/checkpoint", server.base)).call().unwrap();
        let note = r.body_mut().read_to_string().unwrap();
        let size: usize = note.lines().nth(1).unwrap().parse().unwrap();
        if size == expected_events {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the checkpoint stayed at {size}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mirror_dir = tempfile::tempdir().unwrap();
    let mirror_path = mirror_dir.path().join("mirror.db");
    let mut mirror = Ledger::open(&mirror_path).unwrap();
    let source = ladder_tlog::HttpSource::new(&format!("{}/log", server.base));
    let report =
        ladder_tlog::mirror(&source, &crate::common::key().verifier(), &mut mirror, &mirror_path)
            .unwrap();
    assert_eq!(report.origin, ORIGIN);
    assert_eq!(report.appended as usize, expected_events);
    // Every acknowledged id is in the mirror exactly once.
    let mut ids: Vec<String> = mirror.events(1).filter_map(|e| e.unwrap().event.id).collect();
    ids.sort();
    let mut acked = acknowledged.into_inner().unwrap();
    acked.sort();
    assert_eq!(ids, acked);
    assert_eq!(mirror.verify(None).unwrap(), report.head);
    let last = server.stop();
    assert_eq!(last.size as usize, expected_events);
    let cp = ladder_proof::note::Checkpoint::open(&last.note, &[crate::common::key().verifier()])
        .unwrap();
    assert_eq!((cp.size, cp.root), (report.head.seq, report.root));
    assert_eq!(std::fs::read_to_string(server.dir.join("final-checkpoint")).unwrap(), &*last.note);
}

#[test]
fn wait_for_the_checkpoint_returns_proofs_in_it_and_a_revoked_token_stops_working() {
    let (mut server, token) = run_server(Ledger::memory());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into();
    let body = "{\"type\":\"PlayerJoined\",\"player\":\"a\"}\n{\"type\":\"PlayerJoined\",\"player\":\"b\"}";
    let mut r = agent
        .post(&format!("{}/api/events?wait=checkpoint", server.base))
        .header("Authorization", &format!("Bearer {token}"))
        .send(body)
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let v: serde_json::Value =
        serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
    let cp = ladder_proof::note::Checkpoint::open(
        v["checkpoint"].as_str().unwrap(),
        &[crate::common::key().verifier()],
    )
    .unwrap();
    assert!(cp.size >= 2);
    let proofs = v["proofs"].as_array().unwrap();
    assert_eq!(proofs.len(), 2);
    for p in proofs {
        let proof = ladder_proof::Proof::from_json(&p.to_string()).unwrap();
        proof.check().unwrap();
        assert_eq!(proof.tree_head(), (cp.size, cp.root));
    }
    // Revoked in the file: the server reads it again within an interval (20 ms here).
    ladder_serve::tokens::revoke(&server.dir.join("tokens"), "club").unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let r = agent
            .post(&format!("{}/api/events", server.base))
            .header("Authorization", &format!("Bearer {token}"))
            .send("{\"type\":\"PlayerJoined\",\"player\":\"c\"}")
            .unwrap();
        if r.status().as_u16() == 401 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the revoked token still writes");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.stop();
}
