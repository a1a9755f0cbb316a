//! One connection's task: hyper's HTTP/1 connection, run under the connection's time limits
//! and closed when the server asks ([`Guarded`]). It reads the phase that its I/O
//! ([`super::watched`]) and its requests ([`super::service`]) keep in its
//! [`Shared`](super::state::Shared), sleeps until that phase's deadline, and while busy looks
//! for a client gone away ([`super::liveness`]).
//!
//! hyper's own `header_read_timeout` is not used: it starts when a connection waits for a
//! head, idle or not, so it would close every kept-alive connection after the header timeout
//! and leave no room for a longer idle timeout.

use super::liveness::{GONE_CHECK_AFTER, GONE_CHECK_EVERY, Liveness};
use super::registry::Registered;
use super::service::ConnService;
use super::state::{Close, Phase, Shared};
use super::watched::Watched;
use super::{Ended, Limits};
use crate::serve::Running;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::{Instant, Sleep};

/// Runs one TCP connection the accept loop took in, until it closes: the connection leaves
/// the open ones when it ends, and an end that a client or operator needs to know of is
/// logged.
pub(super) async fn run_connection(
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
/// server's connections are run by [`serve`](super::serve).
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
    let service = ConnService::new(router, Arc::clone(&shared), running);
    let io = TokioIo::new(Watched::new(io, Arc::clone(&shared)));
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

impl<I> Guarded<I>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    /// When the connection in `phase` next needs a look, and how it ends if that look finds
    /// the deadline passed; `None` when nothing but hyper can end it (busy, with no way to
    /// see its client go).
    fn deadline(&self, phase: Phase) -> Option<(Instant, Ended)> {
        Some(match phase {
            Phase::Head { since } => (since + self.limits.header_timeout, Ended::HeaderTimeout),
            Phase::Idle { since } => (since + self.limits.idle_timeout, Ended::IdleTimeout),
            Phase::Busy if self.liveness.is_none() => return None,
            Phase::Busy => {
                let busy_since = self.shared.busy_since();
                let next = match self.checked {
                    Some(at) if at >= busy_since => at + GONE_CHECK_EVERY,
                    _ => busy_since + GONE_CHECK_AFTER,
                };
                (next, Ended::ClientGone)
            }
        })
    }
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
            let (phase, close) = this.shared.watch(cx.waker());
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
            let Some((deadline, ended)) = this.deadline(phase) else {
                return Poll::Pending;
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
            if liveness.gone(this.shared.may_probe()) {
                return Poll::Ready(Ended::ClientGone);
            }
        }
    }
}
