//! Mirroring over HTTP and HTTPS from a tiny static file server on 127.0.0.1, written here with
//! std (and rustls for HTTPS, with a certificate authority rcgen makes in the test).

use crate::{key, ledger, ORIGIN};
use ladder_log::Ledger;
use ladder_tlog::{mirror, open_source, publish, HttpSource};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers one request read from `stream` with the file under `root` its path names below
/// `/log/`, or 404.
fn answer(stream: impl Read + Write, root: &Path) {
    let mut reader = BufReader::new(stream);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
    }
    let path = request.split(' ').nth(1).unwrap_or("/");
    let file = path.strip_prefix("/log/").map(|p| root.join(p));
    let out = reader.get_mut();
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
    let _ = out.flush();
}

/// Serves the files under `root` at `/log/...` until `stop` is set, for 60 seconds and 10,000
/// connections at most; one request per connection; over TLS when `tls` is given (a connection
/// whose handshake fails is dropped and counted).
fn serve(
    root: PathBuf,
    stop: Arc<AtomicBool>,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> (String, std::thread::JoinHandle<usize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let scheme = if tls.is_some() { "https" } else { "http" };
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
            match &tls {
                None => answer(stream, &root),
                Some(config) => {
                    let conn = rustls::ServerConnection::new(config.clone()).unwrap();
                    let mut tls_stream = rustls::StreamOwned::new(conn, stream);
                    answer(&mut tls_stream, &root);
                    tls_stream.conn.send_close_notify();
                    let _ = tls_stream.flush();
                }
            }
            served += 1;
        }
        served
    });
    (format!("{scheme}://{addr}/log"), handle)
}

#[test]
fn a_log_mirrors_over_http_as_from_its_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut a, _) = ledger(tmp.path(), "a.db", 1_000, "a");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (url, server) = serve(site.clone(), stop.clone(), None);
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

/// A certificate authority made here: its certificate (PEM) and its issuer, to sign with.
fn authority(name: &str) -> (String, rcgen::Issuer<'static, rcgen::KeyPair>) {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    let cert = params.self_signed(&key).unwrap();
    (cert.pem(), rcgen::Issuer::new(params, key))
}

/// A TLS server configuration for 127.0.0.1 whose certificate `issuer` signed.
fn server_config(issuer: &rcgen::Issuer<'static, rcgen::KeyPair>) -> Arc<rustls::ServerConfig> {
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
    let cert = params.signed_by(&key, issuer).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivatePkcs8KeyDer::from(key.serialize_der()).into(),
        )
        .unwrap();
    Arc::new(config)
}

#[test]
fn a_log_mirrors_over_https_with_its_ca_and_is_refused_with_any_other() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut a, _) = ledger(tmp.path(), "a.db", 1_000, "a");
    let site = tmp.path().join("site");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let (club_pem, club) = authority("club test CA");
    let (other_pem, _) = authority("another CA");
    let club_file = tmp.path().join("club-ca.pem");
    let other_file = tmp.path().join("other-ca.pem");
    std::fs::write(&club_file, &club_pem).unwrap();
    std::fs::write(&other_file, &other_pem).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (url, server) = serve(site.clone(), stop.clone(), Some(server_config(&club)));
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");

    let m_path = tmp.path().join("m.db");
    let mut m = Ledger::open(&m_path).unwrap();
    let empty = (m.head(), m.root().unwrap());
    // Another CA, and the web's roots (no CA given), are refused: the error names the URL and
    // the certificate, and nothing is appended.
    let other = open_source(&url, Some(&other_file)).unwrap();
    let err = mirror(&*other, &key().verifier(), &mut m, &m_path).unwrap_err().to_string();
    assert!(err.contains(&format!("{url}/checkpoint")), "{err}");
    assert!(err.contains("invalid peer certificate: UnknownIssuer"), "{err}");
    assert_eq!((m.head(), m.root().unwrap()), empty);
    let web = open_source(&url, None).unwrap();
    let err = mirror(&*web, &key().verifier(), &mut m, &m_path).unwrap_err().to_string();
    assert!(err.contains("invalid peer certificate: UnknownIssuer"), "{err}");
    assert_eq!((m.head(), m.root().unwrap()), empty);

    // Neither refusal recorded a checkpoint as mirrored.
    assert!(!ladder_tlog::mirror_state_dir(&m_path).join("checkpoint").exists());

    // The club's CA: the whole log, then only what is new.
    let source = open_source(&url, Some(&club_file)).unwrap();
    let r = mirror(&*source, &key().verifier(), &mut m, &m_path).unwrap();
    assert_eq!(r.appended, 1_000);
    assert_eq!((m.head(), m.root().unwrap()), (a.head(), a.root().unwrap()));
    crate::grow(&mut a, 1_001, 100, "a");
    publish(&a, &site, ORIGIN, &key()).unwrap();
    let r = mirror(&*source, &key().verifier(), &mut m, &m_path).unwrap();
    assert_eq!(r.appended, 100);
    assert_eq!((m.head(), m.root().unwrap()), (a.head(), a.root().unwrap()));
    stop.store(true, Ordering::SeqCst);
    assert!(server.join().unwrap() >= 2);
}

#[test]
fn a_ca_certificate_is_refused_unless_it_is_pem_certificates_for_an_https_source() {
    let tmp = tempfile::tempdir().unwrap();
    let (pem, _) = authority("club test CA");
    let good = tmp.path().join("ca.pem");
    std::fs::write(&good, &pem).unwrap();
    // For a directory or plain http, a CA file can only be a mistake.
    for source in ["site/log", "http://127.0.0.1:9/log"] {
        let err = open_source(source, Some(&good)).err().unwrap().to_string();
        assert!(err.contains("only for an https:// source"), "{err}");
        assert!(err.contains("ca.pem"), "{err}");
    }
    // A file with no certificate, a key in place of one, and a missing file, each named.
    let empty = tmp.path().join("empty.pem");
    std::fs::write(&empty, "no pem here\n").unwrap();
    let err = open_source("https://127.0.0.1:9/log", Some(&empty)).err().unwrap().to_string();
    assert!(err.contains("empty.pem") && err.contains("no PEM CERTIFICATE"), "{err}");
    let keyfile = tmp.path().join("key.pem");
    std::fs::write(&keyfile, rcgen::KeyPair::generate().unwrap().serialize_pem()).unwrap();
    let err = open_source("https://127.0.0.1:9/log", Some(&keyfile)).err().unwrap().to_string();
    assert!(err.contains("key.pem") && err.contains("other than a CERTIFICATE"), "{err}");
    let missing = tmp.path().join("missing.pem");
    let err = open_source("https://127.0.0.1:9/log", Some(&missing)).err().unwrap().to_string();
    assert!(err.contains("missing.pem"), "{err}");
    let _ = HttpSource::with_ca_certs("https://127.0.0.1:9/log", pem.as_bytes(), "ca.pem").unwrap();
}
