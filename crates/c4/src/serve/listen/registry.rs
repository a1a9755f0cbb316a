//! The open connections, as the accept loop ([`super::serve`]) sees them: enough to enforce
//! the cap on open connections and to ask them all to close at shutdown.
//!
//! At the cap, a new connection closes the connection that has waited longest without a
//! request in flight (a stalled head or an idle keep-alive), so that a flood of stalled
//! connections cannot keep anyone else out; when every open connection has a request in
//! flight, the accept loop closes the new one at once. Each connection's own task
//! ([`super::connection`]) does the closing when asked through its [`Shared`].

use super::state::{Close, Phase, Shared};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The open connections.
#[derive(Default)]
pub(super) struct Registry {
    open: Mutex<HashMap<u64, Arc<Shared>>>,
    next: AtomicU64,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Arc<Shared>>> {
        // A map of handles, valid whatever a panicking holder left.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts in a new connection from `peer`: its shared state, and its place here, given
    /// up when dropped.
    pub(super) fn add(self: &Arc<Self>, peer: SocketAddr) -> (Arc<Shared>, Registered) {
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

    /// How many connections are open.
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Asks the connection that has waited longest with no request in flight to close, and
    /// counts it out at once; returns its client and how long it waited, or `None` when
    /// every connection has a request in flight.
    pub(super) fn evict_longest_waiting(&self) -> Option<(SocketAddr, Duration)> {
        let mut open = self.lock();
        let (id, since) = open
            .iter()
            .filter_map(|(&id, shared)| match shared.phase() {
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
    pub(super) fn stop_all(&self) -> (usize, usize) {
        let open: Vec<Arc<Shared>> = self.lock().values().cloned().collect();
        let busy = open.iter().filter(|s| s.phase() == Phase::Busy).count();
        for shared in &open {
            shared.ask_close(Close::Stopping);
        }
        (busy, open.len() - busy)
    }
}

/// A connection's place in the [`Registry`], given up when its task ends or is dropped.
pub(super) struct Registered {
    registry: Arc<Registry>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.registry.lock().remove(&self.id);
    }
}
