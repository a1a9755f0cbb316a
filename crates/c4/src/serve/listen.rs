//! The server's connections: an accept loop on hyper's HTTP/1 server, with what a server that
//! any client may reach needs: a time limit on a request's head, an idle limit on kept-alive
//! connections, a cap on open connections, and a shutdown that ends in bounded time.
//!
//! This module holds the accept loop and the shutdown ([`serve`]) and the limits they keep
//! ([`Limits`]); the rest is per connection or shared by them:
//!
//! - [`state`]: a connection's phase (request head, idle, busy), which sets its deadline,
//!   and the server's request that it close;
//! - [`watched`] and [`service`]: its bytes and its requests, which move that phase;
//! - [`connection`]: its task, hyper's connection under those deadlines;
//! - [`liveness`]: whether the client of a busy connection is still there;
//! - [`registry`]: the open connections, for the cap and the shutdown.

mod connection;
mod liveness;
mod registry;
mod service;
mod state;
mod watched;

pub use connection::serve_connection;

use super::Running;
use axum::Router;
use connection::run_connection;
use registry::Registry;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;
use tokio::time::Instant;

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
    /// Its client closed or reset it while a request was in flight (seen on TCP connections
    /// only, by looking at the socket while the answer is prepared); the request was
    /// dropped, which stops its solve.
    ClientGone,
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
