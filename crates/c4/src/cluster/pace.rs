//! How a rank waits for its next message: it gives its core away at once for a short while
//! after a message came or went, then sleeps between looks.
//!
//! Why: OpenMPI's blocking receives spin on their core, so a rank that waits looks for a
//! message, and when none has come, pauses. A pause of a sleep costs every round trip
//! between a worker and the manager two sleeps or more (the worker's send, the manager's
//! look, the worker's look for its next job), and a worker of many small jobs spent much of
//! its time in them. Messages come in bursts, an answer soon after a job and a job soon
//! after an answer, so right after one a rank only yields its core
//! ([`std::thread::yield_now`]: a searching rank on the same core runs first) and
//! sees the next message as soon as it runs; a rank that has heard nothing for
//! [`Pace::SPIN`] sleeps [`Pace::SLEEP`] between looks and leaves its core to the searches
//! (measured: docs/connect4/mpi.md, 2026-11-28, “a waiting rank yields before it sleeps”).

use std::time::{Duration, Instant};

/// What a rank does when it finds no message: yield its core, or sleep this long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pause {
    /// Yield the core and look again.
    Yield,
    /// Sleep this long and look again.
    Sleep(Duration),
}

/// A rank's pace of looking for messages: how long it yields after a message, and when the
/// last one came or went.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    spin: Duration,
    last: Instant,
}

impl Pace {
    /// How long after a message a rank yields instead of sleeping: long enough to keep most
    /// of what always yielding gains, short enough that a rank that waits long (a manager
    /// while long jobs run) leaves its core (measured: docs/connect4/mpi.md, 2026-11-28,
    /// “a waiting rank yields before it sleeps”).
    pub const SPIN: Duration = Duration::from_millis(1);

    /// How long a rank that has heard nothing for [`Pace::SPIN`] sleeps between looks.
    pub const SLEEP: Duration = Duration::from_micros(200);

    /// A pace that yields for `spin` after a message (zero: it always sleeps), as if a
    /// message had just come.
    pub fn new(spin: Duration) -> Self {
        Pace {
            spin,
            last: Instant::now(),
        }
    }

    /// A message came or went now.
    pub fn active(&mut self) {
        self.last = Instant::now();
    }

    /// The pause a rank that yields for `spin` takes after finding no message, `quiet`
    /// after the last one.
    pub fn pause_after(quiet: Duration, spin: Duration) -> Pause {
        if quiet < spin {
            Pause::Yield
        } else {
            Pause::Sleep(Self::SLEEP)
        }
    }

    /// Pauses after finding no message.
    pub fn pause(&self) {
        match Self::pause_after(self.last.elapsed(), self.spin) {
            Pause::Yield => std::thread::yield_now(),
            Pause::Sleep(sleep) => std::thread::sleep(sleep),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_yields_right_after_a_message_and_sleeps_once_quiet() {
        let spin = Pace::SPIN;
        assert_eq!(Pace::pause_after(Duration::ZERO, spin), Pause::Yield);
        assert_eq!(
            Pace::pause_after(spin - Duration::from_nanos(1), spin),
            Pause::Yield
        );
        assert_eq!(Pace::pause_after(spin, spin), Pause::Sleep(Pace::SLEEP));
        assert_eq!(
            Pace::pause_after(Duration::from_secs(3600), spin),
            Pause::Sleep(Pace::SLEEP)
        );
        // No spin: always a sleep, as before the pace.
        assert_eq!(
            Pace::pause_after(Duration::ZERO, Duration::ZERO),
            Pause::Sleep(Pace::SLEEP)
        );
    }

    #[test]
    fn activity_restarts_the_spin() {
        let mut pace = Pace {
            spin: Pace::SPIN,
            last: Instant::now() - Duration::from_secs(1),
        };
        assert_eq!(
            Pace::pause_after(pace.last.elapsed(), pace.spin),
            Pause::Sleep(Pace::SLEEP)
        );
        pace.active();
        // Less than a second passes between the two lines on any machine that runs tests.
        assert!(pace.last.elapsed() < Duration::from_secs(1));
        pace.pause();
    }
}
