//! Mirroring over HTTP from a tiny static file server on 127.0.0.1, written here with std.

use crate::{key, ledger, ORIGIN};
use ladder_log::Ledger;
use ladder_tlog::{mirror, publish, HttpSource};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Serves the files under `root` at `/log/...` until `stop` is set, for 60 seconds and 10,000
/// requests at most; one request per connection.
fn serve(root: PathBuf, stop: Arc<AtomicBool>) -> (String, std::thread::JoinHandle<usize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let start = Instant::now();
        let mut served = 0;
        while !stop.load(Ordering::SeqCst)
            && served < 10_000
            && start.elapsed() < Duration::from_secs(60)
        {
            let (stream, _) = match listener.accept() {
                Ok(s) => s,
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(2));
                    continue;
                }
            };
            stream.set_nonblocking(false).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
            }
            let path = request.split(' ').nth(1).unwrap_or("/");
            let file = path.strip_prefix("/log/").map(|p| root.join(p));
            let mut out = stream;
            match file.and_then(|f| std::fs::read(f).ok()) {
                Some(body) => {
                    let _ = write!(
                        out,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = out.write_all(&body);
                }
                None => {
                    let _ = write!(
                        out,
                        "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                }
            }
            served += 1;
        }
        served
    });
    (format!("http://{addr}/log"), handle)
}

#[test]
fn a_log_mirrors_over_http_as_from_its_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut a, _) = ledger(tmp.path(), "a.db", 1_000, "a");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (url, server) = serve(site.clone(), stop.clone());
    let m_path = tmp.path().join("m.db");
    let mut m = Ledger::open(&m_path).unwrap();
    let source = HttpSource::new(&format!("{url}/"));
    let r = mirror(&source, &key().verifier(), &mut m, &m_path).unwrap();
    assert_eq!(r.appended, 1_000);
    assert_eq!(m.head(), a.head());
    crate::grow(&mut a, 1_001, 100, "a");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let r = mirror(&source, &key().verifier(), &mut m, &m_path).unwrap();
    assert_eq!(r.appended, 100);
    assert_eq!((m.head(), m.root().unwrap()), (a.head(), a.root().unwrap()));
    // A missing resource is named by its URL.
    let wrong = HttpSource::new(&format!("{url}/nothing-here"));
    let mut fresh = Ledger::open(tmp.path().join("f.db")).unwrap();
    let err = mirror(&wrong, &key().verifier(), &mut fresh, &tmp.path().join("f.db")).unwrap_err();
    assert!(err.to_string().contains("/nothing-here/checkpoint"), "{err}");
    stop.store(true, Ordering::SeqCst);
    assert!(server.join().unwrap() > 0);
}
