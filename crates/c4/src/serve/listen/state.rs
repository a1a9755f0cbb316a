//! What one connection's parts know of it: its phase, its requests in flight, and whether the
//! server asked it to close, in a [`Shared`] that its I/O ([`super::watched`]), its requests
//! ([`super::service`]), its task ([`super::connection`]) and the open connections
//! ([`super::registry`]) each hold.
//!
//! A connection is in one of three phases, tracked by watching its reads and its requests:
//!
//! - *head*: a request's head (request line and headers) is being received, since the
//!   connection opened or since the head's first byte. Closed after the header timeout.
//! - *idle*: kept alive, nothing in flight and nothing received since the last answer (or
//!   since the last byte of it was written). Closed after the idle timeout.
//! - *busy*: a request is being answered. Never closed for time: a long solve is bounded by
//!   the server's `--max-ms` instead. But closed as soon as its client is gone
//!   ([`super::liveness`]).

use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::Waker;
use tokio::time::Instant;

/// Where a connection stands; see the module's documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Receiving a request head since `since`.
    Head { since: Instant },
    /// Kept alive with nothing in flight since `since`.
    Idle { since: Instant },
    /// Answering a request.
    Busy,
}

/// Why the server asks a connection to close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Close {
    /// To make room for a new connection at the cap.
    Evicted,
    /// The server is shutting down.
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
pub(super) struct Shared {
    /// The client, for the log.
    pub(super) peer: SocketAddr,
    state: Mutex<State>,
}

impl Shared {
    /// A connection from `peer` that has just opened: waiting for its first request head.
    pub(super) fn new(peer: SocketAddr) -> Shared {
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

    /// The connection's phase now.
    pub(super) fn phase(&self) -> Phase {
        self.lock().phase
    }

    /// When the connection last became busy.
    pub(super) fn busy_since(&self) -> Instant {
        self.lock().busy_since
    }

    /// Whether the interim answer may be written now: the request in flight is HTTP/1.1 and
    /// hyper holds no bytes of an earlier answer.
    pub(super) fn may_probe(&self) -> bool {
        let state = self.lock();
        state.http11 && !state.write_blocked
    }

    /// Remembers `waker` as the connection's task (to wake when asked to close), and returns
    /// the phase and the close asked, if any, read under the same lock.
    pub(super) fn watch(&self, waker: &Waker) -> (Phase, Option<Close>) {
        let mut state = self.lock();
        if !state.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
            state.waker = Some(waker.clone());
        }
        (state.phase, state.close)
    }

    /// Bytes arrived: an idle connection starts a request head.
    pub(super) fn on_read(&self) {
        let mut state = self.lock();
        if let Phase::Idle { .. } = state.phase {
            state.phase = Phase::Head {
                since: Instant::now(),
            };
        }
    }

    /// Bytes left: an answer still being written keeps an idle connection from timing out.
    pub(super) fn on_write(&self) {
        let mut state = self.lock();
        if let Phase::Idle { .. } = state.phase {
            state.phase = Phase::Idle {
                since: Instant::now(),
            };
        }
    }

    /// A write to the socket went out whole (`blocked` false) or could not (true).
    pub(super) fn on_write_result(&self, blocked: bool) {
        self.lock().write_blocked = blocked;
    }

    /// A request of `version` arrived: the connection is busy.
    pub(super) fn request_started(&self, version: hyper::Version) {
        let mut state = self.lock();
        state.in_flight += 1;
        if state.phase != Phase::Busy {
            state.busy_since = Instant::now();
        }
        state.phase = Phase::Busy;
        state.http11 = version == hyper::Version::HTTP_11;
    }

    /// A request's answer is ready: with none left in flight, the connection is idle.
    pub(super) fn request_ended(&self) {
        let mut state = self.lock();
        state.in_flight = state.in_flight.saturating_sub(1);
        if state.in_flight == 0 {
            state.phase = Phase::Idle {
                since: Instant::now(),
            };
        }
    }

    /// Asks the connection's task to close (the first reason asked stays).
    pub(super) fn ask_close(&self, why: Close) {
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
