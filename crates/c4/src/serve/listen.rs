//! The server's connections: an accept loop on hyper's HTTP/1 server, with what a server that
//! any client may reach needs: a time limit on a request's head, an idle limit on kept-alive
//! connections, a cap on open connections, and a shutdown that ends in bounded time.
//!
//! Each connection is in one of three phases, tracked by watching its reads and its requests:
//!
//! - *head*: a request's head (request line and headers) is being received, since the
//!   connection opened or since the head's first byte. Closed after `header_timeout`.
//! - *idle*: kept alive, nothing in flight and nothing received since the last answer (or
//!   since the last byte of it was written). Closed after `idle_timeout`.
//! - *busy*: a request is being answered. Never closed for time: a long solve is bounded by
//!   the server's `--max-ms` instead. But closed as soon as its client is gone (see below).
//!
//! hyper's own `header_read_timeout` is not used: it starts when a connection waits for a
//! head, idle or not, so it would close every kept-alive connection after the header timeout
//! and leave no room for a longer idle timeout.
//!
//! At the cap, a new connection closes the connection that has waited longest without a
//! request in flight (a stalled head or an idle keep-alive), so that a flood of stalled
//! connections cannot keep anyone else out; when every open connection has a request in
//! flight, the new one is closed at once.
//!
//! **A client that goes away while its request is answered.** hyper reads nothing from a
//! connection while a request is in flight once it is told that a client may half-close
//! (`half_close`, so that a client that shuts its write side after the request, as `nc -N`
//! does, still gets its answer): a client that closed or reset its connection would be
//! noticed only when the answer is written, and its solve would run to the end. So a busy TCP
//! connection is looked at every [`GONE_CHECK_EVERY`] from [`GONE_CHECK_AFTER`] into its
//! request ([`Liveness`]): a reset, or an error on the socket, means the client is gone.
//! The end of its stream may mean a close or only a half-close, which look the same from
//! here; the server tells them apart by sending an interim answer (`HTTP/1.1 102
//! Processing`, which every HTTP/1.1 client must accept before the final answer): a client
//! that only half-closed reads it, a closed socket answers it with a reset, seen at the next
//! look. An HTTP/1.0 request may get no interim answer, so the end of its stream counts as
//! gone. The connection then closes, which drops the request and stops its solve.

use super::Running;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::response::Response;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};
use tower_service::Service;

/// The default of [`Limits::header_timeout`], in milliseconds (`--header-timeout-ms`).
pub const DEFAULT_HEADER_TIMEOUT_MS: u64 = 10_000;
/// The default of [`Limits::idle_timeout`], in milliseconds (`--idle-timeout-ms`).
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 60_000;
/// The default of [`Limits::max_connections`] (`--max-connections`): with the open files
/// the rest of the server needs, well under the common `ulimit -n` of 1024.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// The limits on the server's connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// A connection whose request head is not complete this long after it opened, or after
    /// the head's first byte on a kept-alive connection, is closed.
    pub header_timeout: Duration,
    /// A kept-alive connection with no request in flight and nothing received for this long
    /// is closed.
    pub idle_timeout: Duration,
    /// The most connections open at once (at least 1).
    pub max_connections: usize,
    /// How long a shutdown waits for the answers in flight (their solves are cancelled when
    /// it starts) before it closes every connection left.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_millis(DEFAULT_HEADER_TIMEOUT_MS),
            idle_timeout: Duration::from_millis(DEFAULT_IDLE_TIMEOUT_MS),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            shutdown_grace: Duration::from_secs(3),
        }
    }
}

/// How a connection ended.
#[derive(Debug)]
pub enum Ended {
    /// The client closed it, or the server after an answer that does not keep it alive.
    Closed,
    /// hyper gave up on it: a malformed request (answered 400 first), or an I/O error.
    Failed(hyper::Error),
    /// Its request head was not complete within [`Limits::header_timeout`].
    HeaderTimeout,
    /// Kept alive with nothing in flight for [`Limits::idle_timeout`].
    IdleTimeout,
    /// Closed to make room for a new connection at [`Limits::max_connections`].
    Evicted,
    /// Closed by the server's shutdown.
    Stopping,
    /// Its client closed or reset it while a request was in flight (TCP connections only:
    /// see the module's documentation); the request was dropped, which stops its solve.
    ClientGone,
}

/// Where a connection stands; see the module's documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Head { since: Instant },
    Idle { since: Instant },
    Busy,
}

/// Why the server asks a connection to close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Close {
    Evicted,
    Stopping,
}

struct State {
    phase: Phase,
    /// When the connection last became busy.
    busy_since: Instant,
    /// Whether the last request started is HTTP/1.1 (which may get an interim answer).
    http11: bool,
    /// Whether the last write to the socket could not be completed: hyper still holds bytes
    /// of an answer, so nothing else may be written before them.
    write_blocked: bool,
    in_flight: usize,
    close: Option<Close>,
    /// The connection's task, to wake when the server asks it to close.
    waker: Option<Waker>,
}

/// What a connection's task, its I/O, its requests and the accept loop share.
struct Shared {
    peer: SocketAddr,
    state: Mutex<State>,
}

impl Shared {
    fn new(peer: SocketAddr) -> Shared {
        Shared {
            peer,
            state: Mutex::new(State {
                phase: Phase::Head {
                    since: Instant::now(),
                },
                busy_since: Instant::now(),
                http11: false,
                write_blocked: false,
                in_flight: 0,
                close: None,
                waker: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is plain data, valid whatever a panicking holder left half done.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes arrived: an idle connection starts a request head.
    fn on_read(&self) {
        let mut state = self.lock();
        if let Phase::Idle { .. } = state.phase {
            state.phase = Phase::Head {
                since: Instant::now(),
            };
        }
    }

    /// Bytes left: an answer still being written keeps an idle connection from timing out.
    fn on_write(&self) {
        let mut state = self.lock();
        if let Phase::Idle { .. } = state.phase {
            state.phase = Phase::Idle {
                since: Instant::now(),
            };
        }
    }

    /// A write to the socket went out whole (`blocked` false) or could not (true).
    fn on_write_result(&self, blocked: bool) {
        self.lock().write_blocked = blocked;
    }

    fn request_started(&self, version: hyper::Version) {
        let mut state = self.lock();
        state.in_flight += 1;
        if state.phase != Phase::Busy {
            state.busy_since = Instant::now();
        }
        state.phase = Phase::Busy;
        state.http11 = version == hyper::Version::HTTP_11;
    }

    fn request_ended(&self) {
        let mut state = self.lock();
        state.in_flight = state.in_flight.saturating_sub(1);
        if state.in_flight == 0 {
            state.phase = Phase::Idle {
                since: Instant::now(),
            };
        }
    }

    /// Asks the connection's task to close (the first reason asked stays).
    fn ask_close(&self, why: Close) {
        let waker = {
            let mut state = self.lock();
            state.close.get_or_insert(why);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The open connections.
#[derive(Default)]
struct Registry {
    open: Mutex<HashMap<u64, Arc<Shared>>>,
    next: AtomicU64,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Arc<Shared>>> {
        // A map of handles, valid whatever a panicking holder left.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn add(self: &Arc<Self>, peer: SocketAddr) -> (Arc<Shared>, Registered) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(Shared::new(peer));
        self.lock().insert(id, Arc::clone(&shared));
        (
            shared,
            Registered {
                registry: Arc::clone(self),
                id,
            },
        )
    }

    fn len(&self) -> usize {
        self.lock().len()
    }

    /// Asks the connection that has waited longest with no request in flight to close, and
    /// counts it out at once; returns its client and how long it waited, or `None` when
    /// every connection has a request in flight.
    fn evict_longest_waiting(&self) -> Option<(SocketAddr, Duration)> {
        let mut open = self.lock();
        let (id, since) = open
            .iter()
            .filter_map(|(&id, shared)| match shared.lock().phase {
                Phase::Head { since } | Phase::Idle { since } => Some((id, since)),
                Phase::Busy => None,
            })
            .min_by_key(|&(id, since)| (since, id))?;
        let shared = open.remove(&id)?;
        drop(open);
        shared.ask_close(Close::Evicted);
        Some((shared.peer, since.elapsed()))
    }

    /// Asks every connection to close; returns how many have a request in flight and how
    /// many do not.
    fn stop_all(&self) -> (usize, usize) {
        let open: Vec<Arc<Shared>> = self.lock().values().cloned().collect();
        let busy = open
            .iter()
            .filter(|s| s.lock().phase == Phase::Busy)
            .count();
        for shared in &open {
            shared.ask_close(Close::Stopping);
        }
        (busy, open.len() - busy)
    }
}

/// A connection's place in the [`Registry`], given up when its task ends or is dropped.
struct Registered {
    registry: Arc<Registry>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.registry.lock().remove(&self.id);
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` completes, then shuts
/// down in bounded time: it stops accepting, cancels the running solves (their requests get
/// a 503), closes the connections with no request in flight at once, lets the others send
/// their answer, and after [`Limits::shutdown_grace`] closes whatever is left.
///
/// # Errors
///
/// None at present: a failed accept is logged and the loop goes on (after a pause when out
/// of open files). The `io::Result` leaves room for setup that can fail.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let registry = Arc::new(Registry::default());
    let running = Arc::new(Running::default());
    let mut tasks = JoinSet::new();
    let mut refused = Refusals::default();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            // Reap finished connections, so that the set holds only open ones.
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        accept_failed(&e, &registry).await;
                        continue;
                    }
                };
                if registry.len() >= limits.max_connections.max(1) {
                    match registry.evict_longest_waiting() {
                        Some((evicted, waited)) => eprintln!(
                            "{evicted}: closed after {:.3} s with no request in flight, to make \
                             room for {peer} ({} connections open, the --max-connections)",
                            waited.as_secs_f64(),
                            limits.max_connections
                        ),
                        None => {
                            refused.count(peer, limits.max_connections);
                            continue;
                        }
                    }
                }
                // Small answers go out at once; nothing to gain from Nagle's algorithm.
                let _ = stream.set_nodelay(true);
                let (shared, registered) = registry.add(peer);
                tasks.spawn(run_connection(stream, shared, registered, router.clone(), limits, Arc::clone(&running)));
            }
        }
    }
    drop(listener);
    let started = std::time::Instant::now();
    let cancelled = running.stop_all();
    let (busy, waiting) = registry.stop_all();
    eprintln!(
        "stopping: no new connections; {cancelled} running solve{} cancelled; {waiting} \
         connection{} with no request in flight closed, {busy} with one closing after its answer \
         (at most {} ms)",
        plural(cancelled),
        plural(waiting),
        limits.shutdown_grace.as_millis()
    );
    let drained = tokio::time::timeout(limits.shutdown_grace, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        eprintln!(
            "stopping: {} connection{} still open after {} ms: closed",
            tasks.len(),
            plural(tasks.len()),
            limits.shutdown_grace.as_millis()
        );
        tasks.shutdown().await;
    }
    eprintln!("stopped in {:.3} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A failed accept: out of open files, close the connection waiting longest and pause (the
/// pending connection stays in the backlog); anything else (a connection reset before it was
/// accepted) only concerns that connection.
async fn accept_failed(e: &io::Error, registry: &Registry) {
    let out_of_files = matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE));
    if out_of_files {
        let evicted = registry.evict_longest_waiting();
        eprintln!(
            "cannot accept a connection: {e}{}; pausing 50 ms",
            evicted.map_or_else(String::new, |(peer, _)| format!(
                " (closed {peer}, which had no request in flight)"
            ))
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Connections closed at once because every open one had a request in flight: logged at most
/// once a second, with the count since the last line.
#[derive(Default)]
struct Refusals {
    since_logged: u64,
    logged: Option<Instant>,
}

impl Refusals {
    fn count(&mut self, peer: SocketAddr, max: usize) {
        self.since_logged += 1;
        if self
            .logged
            .is_none_or(|t| t.elapsed() >= Duration::from_secs(1))
        {
            eprintln!(
                "{peer}: closed at once: all {max} connections (the --max-connections) have a \
                 request in flight ({} refused since the last such line)",
                self.since_logged
            );
            self.since_logged = 0;
            self.logged = Some(Instant::now());
        }
    }
}

async fn run_connection(
    stream: tokio::net::TcpStream,
    shared: Arc<Shared>,
    registered: Registered,
    router: Router,
    limits: Limits,
    running: Arc<Running>,
) {
    let peer = shared.peer;
    let liveness = Liveness::of(&stream);
    let ended = connection(stream, shared, router, limits, running, liveness).await;
    drop(registered);
    match ended {
        Ended::HeaderTimeout => eprintln!(
            "{peer}: closed: no complete request head within {} ms (the --header-timeout-ms)",
            limits.header_timeout.as_millis()
        ),
        Ended::Failed(e) if !e.is_incomplete_message() => eprintln!("{peer}: closed: {e}"),
        _ => {}
    }
}

/// Serves one connection over `io` (any byte stream; `peer` is the client the log names)
/// with `router` within `limits`' time limits, until it closes. For tests and fuzzing: a
/// server's connections are run by [`serve`].
pub async fn serve_connection<I>(io: I, peer: SocketAddr, router: Router, limits: Limits) -> Ended
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let running = Arc::new(Running::default());
    connection(
        io,
        Arc::new(Shared::new(peer)),
        router,
        limits,
        running,
        None,
    )
    .await
}

fn connection<I>(
    io: I,
    shared: Arc<Shared>,
    router: Router,
    limits: Limits,
    running: Arc<Running>,
    liveness: Option<Liveness>,
) -> Guarded<I>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = ConnService {
        router,
        shared: Arc::clone(&shared),
        running,
    };
    let io = TokioIo::new(Watched {
        inner: io,
        shared: Arc::clone(&shared),
    });
    let conn = http1::Builder::new()
        // Our own header timeout instead (see the module's documentation).
        .header_read_timeout(None)
        // A client that sends its request and then shuts its side down (`nc -N`,
        // `shutdown(SHUT_WR)`) still gets the answer: the read side's end is not taken for
        // the client going away.
        .half_close(true)
        .serve_connection(io, service);
    Guarded {
        conn: Box::pin(conn),
        shared,
        limits,
        sleep: Box::pin(tokio::time::sleep(limits.header_timeout)),
        graceful: false,
        liveness,
        checked: None,
    }
}

/// The I/O of a connection, telling its [`Shared`] when bytes come and go.
struct Watched<I> {
    inner: I,
    shared: Arc<Shared>,
}

impl<I: AsyncRead + Unpin> AsyncRead for Watched<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.shared.on_read();
        }
        polled
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Watched<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            this.shared.on_write();
        }
        this.shared
            .on_write_result(!matches!(polled, Poll::Ready(Ok(n)) if n == buf.len()));
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            this.shared.on_write();
        }
        let whole: usize = bufs.iter().map(|b| b.len()).sum();
        this.shared
            .on_write_result(!matches!(polled, Poll::Ready(Ok(n)) if n == whole));
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The router as hyper calls it on one connection: each request gets the client's address
/// (for the log) and the server's [`Running`] solves, and counts as in flight until its
/// answer is ready.
#[derive(Clone)]
struct ConnService {
    router: Router,
    shared: Arc<Shared>,
    running: Arc<Running>,
}

/// A request in flight on a connection, until dropped.
struct InFlight(Arc<Shared>);

impl InFlight {
    fn new(shared: &Arc<Shared>, version: hyper::Version) -> InFlight {
        shared.request_started(version);
        InFlight(Arc::clone(shared))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

type Answer = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl hyper::service::Service<hyper::Request<Incoming>> for ConnService {
    type Response = Response;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Answer {
        let in_flight = InFlight::new(&self.shared, request.version());
        request
            .extensions_mut()
            .insert(ConnectInfo(self.shared.peer));
        request.extensions_mut().insert(Arc::clone(&self.running));
        // A `Router` is always ready (its `poll_ready` is `Ready` at once), so it is called
        // without asking.
        let answer = self.router.clone().call(request);
        Box::pin(async move {
            let response = answer.await;
            drop(in_flight);
            response
        })
    }
}

type Conn<I> = http1::Connection<TokioIo<Watched<I>>, ConnService>;

/// A connection under its time limits and the server's requests to close.
struct Guarded<I>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    conn: Pin<Box<Conn<I>>>,
    shared: Arc<Shared>,
    limits: Limits,
    sleep: Pin<Box<Sleep>>,
    /// hyper was told to close after the answer in flight.
    graceful: bool,
    /// How to see that the client went away while busy (TCP connections only).
    liveness: Option<Liveness>,
    /// When `liveness` last looked.
    checked: Option<Instant>,
}

impl<I> Future for Guarded<I>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Output = Ended;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Ended> {
        let this = &mut *self;
        loop {
            if let Poll::Ready(result) = this.conn.as_mut().poll(cx) {
                return Poll::Ready(match result {
                    Ok(()) => Ended::Closed,
                    Err(e) => Ended::Failed(e),
                });
            }
            let (phase, close) = {
                let mut state = this.shared.lock();
                if !state
                    .waker
                    .as_ref()
                    .is_some_and(|w| w.will_wake(cx.waker()))
                {
                    state.waker = Some(cx.waker().clone());
                }
                (state.phase, state.close)
            };
            if let Some(why) = close {
                // A head still coming has nothing to answer: close now. (hyper would wait
                // for the first request's head even after a graceful shutdown.)
                if let Phase::Head { .. } = phase {
                    return Poll::Ready(match why {
                        Close::Evicted => Ended::Evicted,
                        Close::Stopping => Ended::Stopping,
                    });
                }
                // Otherwise hyper closes an idle connection once its last answer is out, and
                // a busy one after the answer in flight.
                if !this.graceful {
                    this.graceful = true;
                    this.conn.as_mut().graceful_shutdown();
                    continue;
                }
            }
            let (deadline, ended) = match phase {
                Phase::Head { since } => (since + this.limits.header_timeout, Ended::HeaderTimeout),
                Phase::Idle { since } => (since + this.limits.idle_timeout, Ended::IdleTimeout),
                Phase::Busy if this.liveness.is_none() => return Poll::Pending,
                Phase::Busy => {
                    let busy_since = this.shared.lock().busy_since;
                    let next = match this.checked {
                        Some(at) if at >= busy_since => at + GONE_CHECK_EVERY,
                        _ => busy_since + GONE_CHECK_AFTER,
                    };
                    (next, Ended::ClientGone)
                }
            };
            if this.sleep.deadline() != deadline {
                this.sleep.as_mut().reset(deadline);
            }
            if this.sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            let Some(liveness) = this.liveness.as_mut().filter(|_| phase == Phase::Busy) else {
                return Poll::Ready(ended);
            };
            this.checked = Some(Instant::now());
            let (http11, write_blocked) = {
                let state = this.shared.lock();
                (state.http11, state.write_blocked)
            };
            if liveness.gone(http11 && !write_blocked) {
                return Poll::Ready(Ended::ClientGone);
            }
        }
    }
}

/// How long into a request a busy connection is first looked at for a client gone away: a
/// quick answer is sent before, with no interim answer in front of it.
pub const GONE_CHECK_AFTER: Duration = Duration::from_millis(40);
/// How often a busy connection is looked at after [`GONE_CHECK_AFTER`]. A client that goes
/// away is noticed within two looks (one to see the end of its stream and send the interim
/// answer, one to see the reset), so its solve stops at most
/// `GONE_CHECK_AFTER + 2 × GONE_CHECK_EVERY` after it went away.
pub const GONE_CHECK_EVERY: Duration = Duration::from_millis(20);

/// The interim answer that tells a half-closed client from a closed one.
const INTERIM: &[u8] = b"HTTP/1.1 102 Processing\r\n\r\n";

/// A second handle on a connection's socket, to look at while hyper holds the first and
/// reads nothing (see the module's documentation).
struct Liveness {
    socket: std::net::TcpStream,
    /// Whether the interim answer was sent on this connection.
    probed: bool,
}

impl Liveness {
    /// A handle on `stream`'s socket, if the system gives one (then the connection is only
    /// watched as before).
    fn of(stream: &tokio::net::TcpStream) -> Option<Liveness> {
        use std::os::fd::AsFd;
        let fd = stream.as_fd().try_clone_to_owned().ok()?;
        Some(Liveness {
            socket: std::net::TcpStream::from(fd),
            probed: false,
        })
    }

    /// Whether the client is gone: its socket failed or was reset, or its stream ended and
    /// it cannot take the interim answer (`may_probe` false: an HTTP/1.0 request, or hyper
    /// still holds bytes of an earlier answer) or the interim answer cannot be written
    /// whole. The socket is non-blocking (the handle shares tokio's), so no call waits.
    fn gone(&mut self, may_probe: bool) -> bool {
        use std::io::{ErrorKind, Write};
        if !matches!(self.socket.take_error(), Ok(None)) {
            return true;
        }
        match self.socket.peek(&mut [0u8; 1]) {
            // The end of the stream: a close or a half-close.
            Ok(0) => {}
            // A request sent after this one: the client is there.
            Ok(_) => return false,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                return false;
            }
            Err(_) => return true,
        }
        if self.probed {
            // Sent before and no reset came: the client only half-closed.
            return false;
        }
        if !may_probe {
            return true;
        }
        self.probed = true;
        match (&self.socket).write(INTERIM) {
            Ok(n) if n == INTERIM.len() => !matches!(self.socket.take_error(), Ok(None)),
            _ => true,
        }
    }
}
