//! When to stop: the UCI `go` limits, the stop and ponder flags, and time management.
//!
//! A search stops at the first limit reached: a depth, a node count (exact at one thread, so
//! node-limited searches are reproducible), a mate found within N moves, or the clock. Clock
//! limits become two durations: a *soft* one, after which no new iteration is started (an
//! iteration that cannot finish is wasted), and a *hard* one that interrupts the search.
//! While pondering or in `infinite` mode the clock is not looked at; `ponderhit` starts it.
//!
//! A `go` that gives any clock field (`wtime`, `btime`, `winc`, `binc`) is a clocked search,
//! even when the fields are only those of the side *not* to move (a GUI bug, or a typo): the
//! engine then assumes it has what the other side has (its time and increment), a bound a
//! GUI can live with, rather than searching until stopped. Only a `go` with no clock, no
//! `movetime`, `nodes`, `depth` or `mate` searches until `stop`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use cozy_chess::Move;

/// The limits of one search, as UCI `go` gives them. All `None`/`false`: search until stopped
/// (or until the maximum depth).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration to finish.
    pub depth: Option<u32>,
    /// Nodes to search at most.
    pub nodes: Option<u64>,
    /// Exact time to use.
    pub movetime: Option<Duration>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<u32>,
    /// Time left on White's clock.
    pub wtime: Option<Duration>,
    /// Time left on Black's clock.
    pub btime: Option<Duration>,
    /// White's increment per move.
    pub winc: Option<Duration>,
    /// Black's increment per move.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Start as a ponder search: the clock starts at `ponderhit`.
    pub ponder: bool,
    /// The root moves to search (UCI `go searchmoves`); empty: every legal move. Moves not
    /// legal in the position are ignored; when none is legal, every move is searched.
    pub searchmoves: Vec<Move>,
    /// When the clock started: the moment the `go` line arrived, so that what happens
    /// before the search runs (starting its thread, which a busy machine may not schedule
    /// for tens of milliseconds, and its allocations) is paid from the budget, as the GUI's
    /// clock pays it. `None`: when the search starts.
    pub clock_start: Option<Instant>,
}

impl Limits {
    /// A search to a fixed depth.
    pub fn depth(depth: u32) -> Self {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A search of a fixed number of nodes.
    pub fn nodes(nodes: u64) -> Self {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// A search of a fixed time.
    pub fn movetime(time: Duration) -> Self {
        Limits {
            movetime: Some(time),
            ..Limits::default()
        }
    }

    /// The soft and hard time budgets for the side to move (`white`), after subtracting
    /// `overhead` for communication; `None` when the clock does not limit the search.
    pub fn time_budget(&self, white: bool, overhead: Duration) -> Option<TimeBudget> {
        if let Some(movetime) = self.movetime {
            let t = movetime
                .saturating_sub(overhead)
                .max(Duration::from_millis(1));
            return Some(TimeBudget { soft: t, hard: t });
        }
        let (own, other) = if white {
            ((self.wtime, self.winc), (self.btime, self.binc))
        } else {
            ((self.btime, self.binc), (self.wtime, self.winc))
        };
        if own.0.is_none() && own.1.is_none() && other.0.is_none() && other.1.is_none() {
            return None;
        }
        // A clock given only for the other side stands for ours too (see the module docs);
        // an increment without a time means no time banked.
        let time = own.0.or(other.0).unwrap_or_default();
        // Every move pays the overhead again, out of its increment (issue 60: with a 50 ms
        // increment and 30–60 ms lost per move on a busy machine, planning on the whole
        // increment drained the clock to a forfeit).
        let inc = own
            .1
            .or(other.1)
            .unwrap_or_default()
            .saturating_sub(overhead);
        let left = time.saturating_sub(overhead);
        // Spread the time over the moves to go (or a guess of 30), plus most of the increment;
        // never plan more than 40% of what is left (60% as an emergency hard limit).
        let moves = self.movestogo.unwrap_or(30).clamp(1, 60);
        let base = left / moves + inc * 3 / 4;
        let soft = base.min(left * 2 / 5);
        let hard = (base * 3).min(left * 3 / 5);
        let floor = Duration::from_millis(1);
        Some(TimeBudget {
            soft: (soft * 3 / 5).max(floor),
            hard: hard.max(floor),
        })
    }
}

/// How long a clocked search may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// No iteration starts after this.
    pub soft: Duration,
    /// The search is interrupted at this.
    pub hard: Duration,
}

/// Flags another thread uses to steer a running search: shared through an `Arc`.
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    pondering: AtomicBool,
}

impl Control {
    /// Asks the search to stop as soon as it can (it still returns a legal best move).
    pub fn stop(&self) {
        self.stop.store(true, Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Clears the stop flag and sets whether the next search starts pondering. Call it before
    /// starting a search, never from inside one: a `stop` sent right after `go` must not be
    /// lost.
    pub fn reset(&self, pondering: bool) {
        self.stop.store(false, Relaxed);
        self.pondering.store(pondering, Relaxed);
    }

    /// `ponderhit`: the move pondered on was played; the clock starts now.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Relaxed);
    }

    /// Whether the search is pondering (its clock has not started).
    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 60: the clock runs from `clock_start` (the `go` line's arrival), so a search
    /// whose thread started late has only what is left of its time.
    #[test]
    fn the_clock_runs_from_clock_start() {
        use crate::search::{SearchConfig, Searcher};
        let ms = Duration::from_millis;
        let searcher = Searcher::new(SearchConfig::default());
        let mut pos = transpo_chess::Position::startpos();
        let late = Limits {
            clock_start: Instant::now().checked_sub(ms(300)),
            ..Limits::movetime(ms(100))
        };
        assert!(
            late.clock_start.is_some(),
            "the machine's clock is 300 ms past its start"
        );
        let result = searcher.search::<transpo::ChessEntry>(&mut pos, &late, None, &mut |_| {});
        // Out of time at the first clock check (256 nodes): depth 2 needs more than that.
        assert!(result.depth <= 1, "{result:?}");
        assert!(result.time >= ms(300), "{result:?}");
        assert!(result.best_move.is_some_and(|mv| pos.is_legal(mv)));
    }

    #[test]
    fn budgets_leave_time_on_the_clock() {
        let ms = Duration::from_millis;
        let limits = Limits {
            wtime: Some(ms(60_000)),
            winc: Some(ms(1_000)),
            ..Limits::default()
        };
        let b = limits.time_budget(true, ms(10)).unwrap();
        assert!(b.soft < b.hard && b.hard < ms(30_000), "{b:?}");
        // Issue 14: White's clock only, Black to move: bounded as if Black had the same.
        let black = limits.time_budget(false, ms(10)).unwrap();
        assert_eq!(black, b);
        let inc_only = Limits {
            binc: Some(ms(100)),
            ..Limits::default()
        };
        let b = inc_only.time_budget(true, ms(10)).unwrap();
        assert!(b.hard <= ms(100), "{b:?}");
        // Issue 60: the overhead comes out of every increment, not once from the clock.
        let late = Limits {
            wtime: Some(ms(300)),
            winc: Some(ms(50)),
            ..Limits::default()
        };
        let quiet = late.time_budget(true, ms(10)).unwrap();
        let busy = late.time_budget(true, ms(50)).unwrap();
        assert_eq!(quiet.soft, (ms(290) / 30 + ms(40) * 3 / 4) * 3 / 5);
        assert_eq!(
            busy.soft,
            ms(250) / 30 * 3 / 5,
            "nothing of the increment left"
        );
        assert_eq!(Limits::default().time_budget(true, ms(10)), None);
        assert_eq!(Limits::depth(3).time_budget(true, ms(10)), None);
        let tiny = Limits {
            btime: Some(ms(5)),
            ..Limits::default()
        };
        let b = tiny.time_budget(false, ms(50)).unwrap();
        assert_eq!(b.hard, ms(1));
        let fixed = Limits::movetime(ms(100)).time_budget(true, ms(10)).unwrap();
        assert_eq!((fixed.soft, fixed.hard), (ms(90), ms(90)));
    }
}
