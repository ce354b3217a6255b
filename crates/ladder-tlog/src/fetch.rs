//! Where a mirrored log is read from: a directory, or an http(s) URL prefix.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most bytes one resource may have: a full entry bundle of 256 entries of at most 65,535
/// bytes each, with their length prefixes (a tile or a checkpoint is far smaller).
pub const MAX_RESOURCE_BYTES: u64 = 256 * (65_535 + 2);

/// A published log's resources by path under its prefix (`checkpoint`, `tile/0/000`).
pub trait Fetch {
    /// The bytes at `path` under the prefix.
    fn fetch(&self, path: &str) -> Result<Vec<u8>, FetchError>;
    /// Where `path` is read from, for messages (a file path or a URL).
    fn locate(&self, path: &str) -> String;
}

/// A resource that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("reading {location}: {problem}")]
pub struct FetchError {
    /// The file or URL.
    pub location: String,
    /// What went wrong.
    pub problem: String,
}

/// A log published in a directory (`ladder publish DIR`).
#[derive(Debug, Clone)]
pub struct DirSource {
    dir: PathBuf,
}

impl DirSource {
    /// The log under `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> DirSource {
        DirSource { dir: dir.into() }
    }
}

impl Fetch for DirSource {
    fn fetch(&self, path: &str) -> Result<Vec<u8>, FetchError> {
        let file = self.dir.join(path);
        let err = |problem: String| FetchError { location: file.display().to_string(), problem };
        let meta = std::fs::metadata(&file).map_err(|e| err(e.to_string()))?;
        if !meta.is_file() {
            return Err(err("not a regular file".into()));
        }
        if meta.len() > MAX_RESOURCE_BYTES {
            return Err(err(format!("{} bytes, more than any tile or bundle", meta.len())));
        }
        std::fs::read(&file).map_err(|e| err(e.to_string()))
    }

    fn locate(&self, path: &str) -> String {
        self.dir.join(path).display().to_string()
    }
}

/// A log served over HTTP or HTTPS under a URL prefix.
#[derive(Debug)]
pub struct HttpSource {
    prefix: String,
    agent: ureq::Agent,
}

impl HttpSource {
    /// The log under `prefix` (`http://host:port/log`, with or without a final `/`). Each request
    /// gives up after 60 seconds. An https server's certificate must chain to one of the web's
    /// root certificates (Mozilla's, as webpki-roots carries them).
    pub fn new(prefix: &str) -> HttpSource {
        HttpSource::with_roots(prefix, ureq::tls::RootCerts::WebPki)
    }

    /// The log under `prefix`, served over https by a server whose certificate chains to one of
    /// the certificates in `pem` (PEM text, one or more `CERTIFICATE` blocks), and to no other:
    /// a club's own certificate authority, or a self-signed server certificate. `origin` names
    /// the file the text came from, for messages.
    pub fn with_ca_certs(prefix: &str, pem: &[u8], origin: &str) -> Result<HttpSource, FetchError> {
        let err = |problem: String| FetchError { location: origin.to_owned(), problem };
        let mut certs = Vec::new();
        for item in ureq::tls::parse_pem(pem) {
            match item.map_err(|e| err(format!("not PEM text: {e}")))? {
                ureq::tls::PemItem::Certificate(c) => certs.push(c),
                _ => return Err(err("holds something other than a CERTIFICATE block".into())),
            }
        }
        if certs.is_empty() {
            return Err(err("holds no PEM CERTIFICATE block".into()));
        }
        Ok(HttpSource::with_roots(prefix, ureq::tls::RootCerts::new_with_certs(&certs)))
    }

    fn with_roots(prefix: &str, roots: ureq::tls::RootCerts) -> HttpSource {
        let tls = ureq::tls::TlsConfig::builder().root_certs(roots).build();
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .user_agent("ladder-mirror")
            .tls_config(tls)
            .build();
        HttpSource { prefix: prefix.trim_end_matches('/').to_owned(), agent: config.into() }
    }
}

impl Fetch for HttpSource {
    fn fetch(&self, path: &str) -> Result<Vec<u8>, FetchError> {
        let url = self.locate(path);
        let err = |problem: String| FetchError { location: url.clone(), problem };
        let mut response = self.agent.get(&url).call().map_err(|e| err(e.to_string()))?;
        response
            .body_mut()
            .with_config()
            .limit(MAX_RESOURCE_BYTES)
            .read_to_vec()
            .map_err(|e| err(e.to_string()))
    }

    fn locate(&self, path: &str) -> String {
        format!("{}/{path}", self.prefix)
    }
}

/// The source a `mirror SOURCE` argument names: an `http://` or `https://` URL prefix, or else
/// a directory. `ca_cert`, a PEM file of certificates, replaces the web's root certificates for
/// an https source; it is refused for any other source, where it could only be a mistake.
pub fn open_source(arg: &str, ca_cert: Option<&Path>) -> Result<Box<dyn Fetch>, FetchError> {
    let https = arg.starts_with("https://");
    match ca_cert {
        Some(file) if https => {
            let origin = file.display().to_string();
            let pem = std::fs::read(file)
                .map_err(|e| FetchError { location: origin.clone(), problem: e.to_string() })?;
            Ok(Box::new(HttpSource::with_ca_certs(arg, &pem, &origin)?))
        }
        Some(file) => Err(FetchError {
            location: file.display().to_string(),
            problem: format!("a CA certificate is only for an https:// source, not {arg}"),
        }),
        None if https || arg.starts_with("http://") => Ok(Box::new(HttpSource::new(arg))),
        None => Ok(Box::new(DirSource::new(Path::new(arg)))),
    }
}
