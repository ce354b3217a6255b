//! `ladder serve`: one long-lived process that owns the ledger and serves it on the web.
//!
//! Design (docs/serve.md): **one writer**. HTTP handlers parse a request and put it on a bounded
//! queue; the [`sequencer`] thread commits every request waiting in one ledger append (one
//! durable flush for the group; staged and flushed beside the reads, published in memory, so
//! reads never wait for it) and answers each only once it is durable. A full queue is
//! `503` with `Retry-After`, never an unbounded wait. **The log under `/log/`** is C2SP
//! tlog-tiles: tiles come from [`ladder_proof::tiles::tile_bytes`] over
//! [`ladder_tlog::LedgerTiles`], the very function `ladder publish` writes with, so the two
//! cannot drift; the checkpoint is re-signed every `checkpoint_interval` while the tree grows.
//! **Reads** fold each (algorithm, constants) once and then only over new events ([`warm`]).
//!
//! This crate reads no clock: the caller passes one ([`ServeConfig::clock`]), the instant an
//! event posted without `at` is stamped with. Arguments are parsed by ladder-cli.
#![deny(missing_docs)]

pub mod pages;
pub mod reads;
pub mod routes;
pub mod sequencer;
pub mod site;
pub mod tiles;
pub mod tokens;
pub mod vendor;
pub mod warm;

use ladder_events::Timestamp;
use ladder_log::{Ledger, LogError};
use ladder_proof::note::{Checkpoint, NoteError, SignerKey};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

/// The limits a server keeps (docs/serve.md gives the defaults and why).
#[derive(Clone, Debug)]
pub struct Limits {
    /// The largest request body, in bytes (`413` beyond).
    pub body_bytes: usize,
    /// Requests waiting for the sequencer at once (`503` beyond).
    pub queue: usize,
    /// Requests handled at once, all routes together (`503` beyond).
    pub in_flight: usize,
    /// The longest a request may take, reading its body included (`408` beyond): a slow client
    /// is cut off.
    pub request_time: Duration,
    /// Warm projections kept, and as many players' histories.
    pub warm: usize,
    /// A group of this many events or more is committed while the next group is gathered and
    /// staged on top of it ([`ladder_log::Staged::commit_meanwhile`]: pipelining); a smaller
    /// one is committed alone, and the next gathered after it. Off by default (`usize::MAX`;
    /// `ladder serve --pipeline-events N` sets it);
    /// [`sequencer::BULK_EVENTS`] (1,024) is the threshold it was measured with. Single-event
    /// groups were never worth it: pipelining split 32 clients into two halves with syncs of
    /// their own, for more CPU per append; 1,000-event requests were faster without it in 11 of
    /// 16 paired runs on the idle machine and in every round on a loaded one (docs/PERFORMANCE.md,
    /// "Serving"; the bench's `append/batch-pipelined` row runs them with it).
    pub pipeline_events: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            body_bytes: 8 << 20,
            queue: 4096,
            in_flight: 1024,
            request_time: Duration::from_secs(30),
            warm: 16,
            pipeline_events: usize::MAX,
        }
    }
}

/// How to serve.
pub struct ServeConfig {
    /// The log's origin, the checkpoint's first line.
    pub origin: String,
    /// The checkpoint signing key; without one the checkpoint is an unsigned note.
    pub key: Option<SignerKey>,
    /// The token file (only hashes).
    pub tokens: PathBuf,
    /// How often the checkpoint is re-signed while the tree grows.
    pub checkpoint_interval: Duration,
    /// Where the last checkpoint is written when the server stops, if anywhere.
    pub final_checkpoint: Option<PathBuf>,
    /// The limits.
    pub limits: Limits,
    /// The server's clock: what an event posted without `at` is stamped with.
    pub clock: Arc<dyn Fn() -> Timestamp + Send + Sync>,
}

/// Why the server could not start or stop cleanly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The ledger failed.
    #[error(transparent)]
    Log(#[from] LogError),
    /// Signing the checkpoint failed.
    #[error("signing the checkpoint: {0}")]
    Note(#[from] NoteError),
    /// The token file could not be read.
    #[error(transparent)]
    Tokens(#[from] tokens::TokenError),
    /// The network or a file failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
}

/// The current checkpoint: its size and the note served at `/log/checkpoint`.
#[derive(Clone, Debug)]
pub struct Signed {
    /// The tree size.
    pub size: u64,
    /// The tree's root.
    pub root: [u8; 32],
    /// The note (signed when there is a key).
    pub note: Arc<str>,
}

/// Full tiles kept in memory at most (a full tile is 8 KiB, an entry bundle a few tens: some
/// tens of MB at most).
pub const TILE_CACHE: usize = 4096;

/// Explanations of events kept at most (most a few kB).
pub const EXPLAINED: usize = 256;

/// The most steps an explanation kept may hold: one of a match in a long, busy rating period
/// holds the period's whole computation (megabytes) and is made again at each read instead.
pub const EXPLAINED_STEPS: usize = 4096;

/// How long [`Shared::exclusive`] waits between tries of the ledger's exclusive lock.
pub const EXCLUSIVE_POLL: Duration = Duration::from_micros(50);

/// How long [`Shared::exclusive`] tries before it queues for the lock like any writer: longer
/// than a long read (the first fold of a million events takes about half a second), so that
/// only reads overlapping without a gap for this long make new reads wait behind the writer.
pub const EXCLUSIVE_PATIENCE: Duration = Duration::from_secs(1);

/// The sequencer's commits leave their ids out of the ledger's on-disk idempotency index, in
/// memory, until this many events were committed since the last time they were written
/// ([`ladder_log::Ledger::defer_id_index`]): a group of single-event requests then writes no
/// index bucket, and one commit in this many events writes them all at once
/// (docs/PERFORMANCE.md, "Serving"). Opening the ledger after a crash reads at most this many
/// events again to find their ids.
pub const DEFER_IDS: u64 = 65_536;

/// What every handler shares.
pub struct Shared {
    ledger: RwLock<Ledger>,
    origin: String,
    key: Option<SignerKey>,
    checkpoint: RwLock<Signed>,
    /// Set by the sequencer when the tree grew; cleared when the checkpoint is signed.
    grown: std::sync::atomic::AtomicBool,
    tokens_path: PathBuf,
    tokens: RwLock<Arc<tokens::Tokens>>,
    warm: Mutex<warm::WarmCache>,
    /// Players' histories kept, by configuration and name ([`warm::PlayerFold`]).
    players: Mutex<warm::WarmCache<warm::PlayerFold>>,
    /// Events explained, kept while nothing appended later can change them
    /// ([`site::explained`]).
    explained: Mutex<warm::WarmCache<ladder_explain::Explanation>>,
    /// States of folds every so many events, where explanations start ([`warm::Marks`]).
    marks: Mutex<warm::WarmCache<warm::Marks>>,
    /// Full tiles and entry bundles already read: they never change, so they are kept, up to
    /// [`TILE_CACHE`] of them (then the cache starts over). Keyed by the tile itself (no path
    /// string is made to look one up) and read under a shared lock: readers of kept tiles do
    /// not wait for each other.
    tiles: RwLock<std::collections::HashMap<ladder_proof::tiles::Tile, axum::body::Bytes>>,
    /// The full level-0 tiles kept beside the ledger, made as the tree grows ([`tiles`]).
    leaves: tiles::Leaves,
    jobs: std::sync::mpsc::SyncSender<sequencer::Job>,
    /// The head of the last durable commit, published by the sequencer once its flush returned:
    /// what a read that does not take the ledger is answered through. Held only to copy it.
    durable: Mutex<ladder_log::Head>,
    /// Requests put on the sequencer's queue and not yet taken by it.
    /// Groups staged while the group before them synced ([`sequencer::run`]).
    pipelined: std::sync::atomic::AtomicU64,
    waiting: std::sync::atomic::AtomicUsize,
    /// A test's pause of the next commit ([`Shared::hold_next_commit`]).
    hold: Mutex<Option<(std::sync::mpsc::SyncSender<()>, std::sync::mpsc::Receiver<()>)>>,
    /// The clock events without `at` are stamped with.
    pub clock: Arc<dyn Fn() -> Timestamp + Send + Sync>,
    limits: Limits,
    /// Notified each time a checkpoint is signed (`?wait=checkpoint`).
    signed: tokio::sync::watch::Sender<u64>,
}

impl Shared {
    /// The ledger for reading. The sequencer holds it exclusively only to publish a durable
    /// group (memory only) and for the occasional layout work before a group, and takes it only
    /// when no read holds it ([`Shared::exclusive`]).
    pub fn read_ledger(&self) -> RwLockReadGuard<'_, Ledger> {
        self.ledger.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the ledger held exclusively, taking the lock only at an instant when no read
    /// holds it: the sequencer does not queue for it (a queued writer would make every new read
    /// wait behind it, here behind a long fold that holds the ledger), so reads never wait for
    /// a write. It polls, [`EXCLUSIVE_POLL`] apart; after [`EXCLUSIVE_PATIENCE`] of reads
    /// holding the ledger without a gap, it queues like any writer, so appends are not starved.
    fn exclusive<R>(&self, f: impl FnOnce(&mut Ledger) -> R) -> R {
        let start = std::time::Instant::now();
        let mut guard: RwLockWriteGuard<'_, Ledger> = loop {
            match self.ledger.try_write() {
                Ok(g) => break g,
                Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock)
                    if start.elapsed() < EXCLUSIVE_PATIENCE =>
                {
                    std::thread::sleep(EXCLUSIVE_POLL)
                }
                Err(std::sync::TryLockError::WouldBlock) => {
                    break self.ledger.write().unwrap_or_else(|p| p.into_inner())
                }
            }
        };
        f(&mut guard)
    }

    /// Shows a durable group to readers ([`Ledger::publish`]: memory only).
    fn publish(
        &self,
        durable: ladder_log::Durable,
    ) -> Result<ladder_log::AppendReport, ladder_log::AppendError> {
        self.exclusive(|l| l.publish(durable))
    }

    /// The ledger for reading if the sequencer does not hold it exclusively now; `None` while it
    /// does (publishing a group: memory only).
    pub fn try_read_ledger(&self) -> Option<RwLockReadGuard<'_, Ledger>> {
        match self.ledger.try_read() {
            Ok(l) => Some(l),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// How many groups were staged while the group before them synced and then committed
    /// (the sequencer's pipelining, for large groups: [`Limits::pipeline_events`]).
    pub fn pipelined(&self) -> u64 {
        self.pipelined.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Requests waiting on the sequencer's queue, not yet taken into a group.
    pub fn waiting(&self) -> usize {
        self.waiting.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The head of the last durable commit (every event through it is on disk).
    pub fn durable_head(&self) -> ladder_log::Head {
        *self.durable.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Publishes a commit's head once it is durable, and marks the tree grown.
    fn committed(&self, head: ladder_log::Head) {
        *self.durable.lock().unwrap_or_else(|p| p.into_inner()) = head;
        self.grown.store(true, std::sync::atomic::Ordering::Release);
        self.leaves.wake();
    }

    /// Makes the sequencer's next commit pause once its group is staged (checked and written
    /// beyond the head, [`Ledger::stage`]) and before the flush that makes it durable, until the
    /// returned [`CommitHold`] is released or dropped: what a commit waiting on its flush looks
    /// like to a read. For tests that show that reads do not wait for a commit.
    pub fn hold_next_commit(&self) -> CommitHold {
        let (entered_tx, entered) = std::sync::mpsc::sync_channel(1);
        let (release, release_rx) = std::sync::mpsc::sync_channel(1);
        *self.hold.lock().unwrap_or_else(|p| p.into_inner()) = Some((entered_tx, release_rx));
        CommitHold { entered, release }
    }

    /// Called by the sequencer between a group's stage and its flush: pauses there if a test
    /// asked.
    fn pause_if_held(&self) {
        let hold = self.hold.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((entered, release)) = hold {
            let _ = entered.send(());
            // Returns when the hold is released or dropped.
            let _ = release.recv();
        }
    }

    /// The full level-0 tiles kept beside the ledger ([`tiles::Leaves`]).
    pub fn leaves(&self) -> &tiles::Leaves {
        &self.leaves
    }

    /// The checkpoint being served.
    pub fn checkpoint(&self) -> Signed {
        self.checkpoint.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Signs a checkpoint of the ledger's head when it differs from the one served.
    pub fn sign_checkpoint(&self) -> Result<Signed, ServeError> {
        self.grown.store(false, std::sync::atomic::Ordering::Release);
        let (size, root) = {
            let ledger = self.read_ledger();
            (ledger.head().seq, ledger.root()?)
        };
        let current = self.checkpoint();
        if current.size == size && !current.note.is_empty() {
            return Ok(current);
        }
        let cp = Checkpoint { origin: self.origin.clone(), size, root };
        let note: Arc<str> = match &self.key {
            Some(k) => cp.sign(k)?.into(),
            None => format!("{}\n", cp.to_text()).into(),
        };
        let signed = Signed { size, root, note };
        *self.checkpoint.write().unwrap_or_else(|p| p.into_inner()) = signed.clone();
        self.signed.send_replace(size);
        Ok(signed)
    }

    /// Reads the token file again (a revoked token stops working within one interval).
    pub fn reload_tokens(&self) -> Result<(), ServeError> {
        let t = tokens::Tokens::load(&self.tokens_path)?;
        *self.tokens.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(t);
        Ok(())
    }

    /// The tree the served checkpoint names, for a page's footer.
    pub fn tree_at(&self) -> pages::TreeAt {
        let cp = self.checkpoint();
        pages::TreeAt {
            size: cp.size,
            root: ladder_proof::hex(&cp.root),
            origin: self.origin.clone(),
        }
    }

    fn tokens(&self) -> Arc<tokens::Tokens> {
        self.tokens.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// A commit paused by [`Shared::hold_next_commit`]; dropping it releases the commit.
pub struct CommitHold {
    entered: std::sync::mpsc::Receiver<()>,
    release: std::sync::mpsc::SyncSender<()>,
}

impl CommitHold {
    /// Waits at most `timeout` for the sequencer to reach the pause; true once it has (its group
    /// is then staged, not durable, and stays so until [`CommitHold::release`]).
    pub fn entered(&self, timeout: Duration) -> bool {
        self.entered.recv_timeout(timeout).is_ok()
    }

    /// Lets the commit go on.
    pub fn release(self) {
        let _ = self.release.try_send(());
    }
}

/// A running service: its shared state and the sequencer thread. [`Service::router`] is the
/// HTTP side; [`Service::stop`] drains the sequencer and signs the last checkpoint.
pub struct Service {
    /// The shared state.
    pub shared: Arc<Shared>,
    sequencer: Option<std::thread::JoinHandle<()>>,
    /// The thread that keeps the leaf file up to date ([`tiles::run`]).
    filler: Option<std::thread::JoinHandle<()>>,
    final_checkpoint: Option<PathBuf>,
}

impl Service {
    /// Takes the ledger, reads the tokens, signs the first checkpoint and starts the sequencer.
    pub fn start(mut ledger: Ledger, config: ServeConfig) -> Result<Service, ServeError> {
        ledger.defer_id_index(DEFER_IDS);
        let (tx, rx) = std::sync::mpsc::sync_channel(config.limits.queue.max(1));
        let tokens = tokens::Tokens::load(&config.tokens)?;
        let ledger_head = ledger.head();
        let (leaves, wake) = tiles::Leaves::open(&ledger);
        // The filler writes each new tile from the leaves the sequencer hands it.
        ledger.hand_out_leaves(leaves.file().is_kept());
        let shared = Arc::new(Shared {
            ledger: RwLock::new(ledger),
            origin: config.origin,
            key: config.key,
            checkpoint: RwLock::new(Signed { size: 0, root: [0; 32], note: Arc::from("") }),
            grown: std::sync::atomic::AtomicBool::new(false),
            tokens_path: config.tokens,
            tokens: RwLock::new(Arc::new(tokens)),
            warm: Mutex::new(warm::WarmCache::new(config.limits.warm)),
            players: Mutex::new(warm::WarmCache::new(config.limits.warm)),
            explained: Mutex::new(warm::WarmCache::new(EXPLAINED)),
            marks: Mutex::new(warm::WarmCache::new(warm::MARKED)),
            tiles: RwLock::new(std::collections::HashMap::new()),
            leaves,
            jobs: tx,
            durable: Mutex::new(ledger_head),
            hold: Mutex::new(None),
            waiting: std::sync::atomic::AtomicUsize::new(0),
            pipelined: std::sync::atomic::AtomicU64::new(0),
            clock: config.clock,
            limits: config.limits,
            signed: tokio::sync::watch::Sender::new(0),
        });
        shared.sign_checkpoint()?;
        let s = shared.clone();
        let sequencer = std::thread::Builder::new()
            .name("ladder-sequencer".into())
            .spawn(move || sequencer::run(s, rx))
            .map_err(|source| ServeError::Io { what: "starting the sequencer".into(), source })?;
        let weak = Arc::downgrade(&shared);
        let filler = std::thread::Builder::new()
            .name("ladder-tiles".into())
            .spawn(move || tiles::run(weak, wake))
            .map_err(|source| ServeError::Io { what: "starting the tile filler".into(), source })?;
        shared.leaves.wake();
        Ok(Service {
            shared,
            sequencer: Some(sequencer),
            filler: Some(filler),
            final_checkpoint: config.final_checkpoint,
        })
    }

    /// The routes ([`routes::router`]).
    pub fn router(&self) -> axum::Router {
        routes::router(self.shared.clone())
    }

    /// Waits for every request already queued to be committed and answered, then signs the
    /// last checkpoint and writes it (atomically) where the configuration says. Call it after
    /// the HTTP server has stopped taking requests.
    pub fn stop(mut self) -> Result<Signed, ServeError> {
        let shared = self.shared.clone();
        // The sequencer's queue closes when the last sender goes: the shared state holds it, so
        // a stop job is sent instead.
        let (reply, _) = tokio::sync::oneshot::channel();
        let _ = shared.jobs.send(sequencer::Job { events: Vec::new(), auto_join: false, reply });
        if let Some(t) = self.sequencer.take() {
            let _ = t.join();
        }
        shared.leaves.stop();
        if let Some(t) = self.filler.take() {
            let _ = t.join();
        }
        let signed = shared.sign_checkpoint()?;
        if let Some(path) = &self.final_checkpoint {
            let io =
                |source| ServeError::Io { what: format!("writing {}", path.display()), source };
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, signed.note.as_bytes()).map_err(io)?;
            std::fs::rename(&tmp, path).map_err(io)?;
        }
        Ok(signed)
    }
}

/// Serves until `shutdown` completes (SIGINT or SIGTERM in `ladder serve`): the checkpoint is
/// re-signed every interval while the tree grows; on shutdown the server stops taking
/// connections, finishes the requests in flight, and [`Service::stop`]s.
pub async fn serve(
    listener: tokio::net::TcpListener,
    service: Service,
    interval: Duration,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<Signed, ServeError> {
    let shared = service.shared.clone();
    let ticker = tokio::spawn(async move {
        let mut tick = tokio::time::interval(interval.max(Duration::from_millis(10)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let s = shared.clone();
            let _ = tokio::task::spawn_blocking(move || {
                if s.grown.load(std::sync::atomic::Ordering::Acquire) {
                    let _ = s.sign_checkpoint();
                }
                let _ = s.reload_tokens();
            })
            .await;
        }
    });
    let app = service.router();
    let served = axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await;
    ticker.abort();
    served.map_err(|source| ServeError::Io { what: "serving".into(), source })?;
    tokio::task::spawn_blocking(move || service.stop())
        .await
        .map_err(|e| ServeError::Io { what: "stopping".into(), source: std::io::Error::other(e) })?
}

/// Resolves on SIGINT or SIGTERM (on other platforms, Ctrl-C).
pub async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => std::future::pending::<()>().await,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// What `ladder serve` runs: binds `listen`, tells `listening` the address (port 0 picks one),
/// and serves `ledger` until SIGINT or SIGTERM, then drains and signs the last checkpoint.
pub fn run(
    listen: SocketAddr,
    ledger: Ledger,
    config: ServeConfig,
    listening: impl FnOnce(SocketAddr),
) -> Result<Signed, ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| ServeError::Io { what: "starting the runtime".into(), source })?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| ServeError::Io { what: format!("listening on {listen}"), source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| ServeError::Io { what: "reading the address".into(), source })?;
        let interval = config.checkpoint_interval;
        let service = Service::start(ledger, config)?;
        listening(addr);
        serve(listener, service, interval, stop_signal()).await
    })
}
