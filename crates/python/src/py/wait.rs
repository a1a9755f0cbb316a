//! Waiting without the GIL, stoppable by Ctrl-C: every [`SIGNAL_EVERY`] the waiting thread
//! takes the GIL back to look for a signal (`Python::check_signals`), and on one raises the
//! stop flag the search watches; the search returns within microseconds without storing
//! anything, and `KeyboardInterrupt` reaches the caller. A budget's deadline raises the same
//! flag, at the deadline to the scheduler's precision, and the answer found so far comes
//! back.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::{Duration, Instant};

/// How often a waiting thread looks for Ctrl-C.
pub const SIGNAL_EVERY: Duration = Duration::from_millis(10);

/// Runs `work` on a thread of its own while this thread, without the GIL, waits and looks
/// for signals every [`SIGNAL_EVERY`]; on a signal's exception, calls `stop`, waits for
/// `work` to return and raises the exception. At `deadline`, if any, calls `stop` and goes
/// on waiting for `work`'s answer.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send,
    stop: impl Fn() + Send + Sync,
    deadline: Option<Instant>,
) -> PyResult<T> {
    py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = channel();
            scope.spawn(move || {
                // The receiver is gone only if the caller already raised; the result is moot.
                let _ = tx.send(work());
            });
            let mut due = deadline;
            loop {
                let wait = due.map_or(SIGNAL_EVERY, |due| {
                    SIGNAL_EVERY.min(due.saturating_duration_since(Instant::now()))
                });
                match rx.recv_timeout(wait) {
                    Ok(value) => return Ok(value),
                    Err(RecvTimeoutError::Timeout) => {
                        if due.is_some_and(|due| Instant::now() >= due) {
                            stop();
                            due = None;
                        }
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            stop();
                            return Err(e);
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err("the solve failed"));
                    }
                }
            }
        })
    })
}

/// The lock of `mutex` once no other thread holds it, or `None` if `check` (run about every
/// [`SIGNAL_EVERY`] while another thread holds it) said to stop. A poisoned lock is taken
/// as it is: a solve panicked, and the tables hold only finished searches' bounds.
pub fn lock_checked<'a, T: ?Sized>(
    mutex: &'a Mutex<T>,
    check: &mut dyn FnMut() -> bool,
) -> Option<MutexGuard<'a, T>> {
    let mut last = Instant::now();
    loop {
        match mutex.try_lock() {
            Ok(guard) => return Some(guard),
            Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(TryLockError::WouldBlock) => {}
        }
        if last.elapsed() >= SIGNAL_EVERY {
            if !check() {
                return None;
            }
            last = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The lock of `mutex`, poisoned or not (as in [`lock_checked`]).
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
