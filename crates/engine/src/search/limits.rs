//! When to stop: the UCI `go` limits, the stop and ponder flags, and time management.
//!
//! A search stops at the first limit reached: a depth, a node count (exact at one thread, so
//! node-limited searches are reproducible), a mate found within N moves, or the clock. Clock
//! limits become two durations: a *soft* one, after which no new iteration is started (an
//! iteration that cannot finish is wasted), and a *hard* one that interrupts the search.
//! Neither is planned on the clock's last *reserve*: what a busy machine may charge beyond
//! a move's own time (see [`Limits::time_budget_keeping`]); a search stops short of its hard
//! limit by the longest gap it has seen between its clock checks (`StallClock`).
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
    /// `overhead` for communication; `None` when the clock does not limit the search. The
    /// clock keeps [`RESERVE_OVERHEADS`] × `overhead` (see [`Limits::time_budget_keeping`]).
    pub fn time_budget(&self, white: bool, overhead: Duration) -> Option<TimeBudget> {
        self.time_budget_keeping(white, overhead, Duration::ZERO)
    }

    /// [`Limits::time_budget`] that never plans on the last `reserve` of the clock (nor on
    /// its last [`RESERVE_OVERHEADS`] × `overhead`, when that is more): the time a stalled
    /// machine may charge beyond a move's hard limit (`docs/engine/robustness.md`).
    /// Neither limit ever comes out of the reserve, so a move charged its hard limit plus
    /// less than the reserve leaves time on the clock; once the clock is down to the reserve
    /// a move gets the 1 ms floor and the increment refills the clock. The overhead also
    /// comes out of every increment. A `movetime` is the time to spend less the overhead,
    /// reserve or not.
    pub fn time_budget_keeping(
        &self,
        white: bool,
        overhead: Duration,
        reserve: Duration,
    ) -> Option<TimeBudget> {
        let floor = Duration::from_millis(1);
        if let Some(movetime) = self.movetime {
            let t = movetime.saturating_sub(overhead).max(floor);
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
        // Every move pays the overhead again, out of its increment: on a busy machine,
        // planning on the whole increment drains the clock to a forfeit.
        let inc = own
            .1
            .or(other.1)
            .unwrap_or_default()
            .saturating_sub(overhead);
        // What may be planned: the clock less the reserve. The increment is not in it: the
        // GUI adds it only after the move, so it cannot pay for this one.
        let reserve = reserve.max(overhead.saturating_mul(RESERVE_OVERHEADS));
        let spare = time.saturating_sub(reserve);
        // Spread the spare time over the moves to go (or a guess of 30), plus most of the
        // increment; never plan more than 40% of the spare time (60% as an emergency hard
        // limit).
        let moves = self.movestogo.unwrap_or(30).clamp(1, 60);
        let base = spare / moves + inc * 3 / 4;
        let soft = base.min(spare * 2 / 5);
        let hard = (base * 3).min(spare * 3 / 5);
        Some(TimeBudget {
            soft: (soft * 3 / 5).max(floor),
            hard: hard.max(floor),
        })
    }
}

/// The clock keeps at least this many move overheads beyond any move's hard limit
/// ([`Limits::time_budget_keeping`]): one for what the move is charged beyond its own
/// time, one for a move charged twice that.
pub const RESERVE_OVERHEADS: u32 = 2;

/// A search thread's clock: when it started and the longest wall-clock gap seen between
/// two of its consecutive clock checks, the time the thread went without running while
/// the machine was busy (beside CPU hogs, tens of milliseconds and more:
/// `docs/engine/robustness.md`). A check stops the search when the limit would pass before the next
/// check, were it as late as the longest gap seen: a starved thread stops early instead of
/// a stall late.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StallClock {
    start: Instant,
    last: Option<Instant>,
    stall: Duration,
}

impl StallClock {
    /// A clock started at `start`, with no gap seen yet.
    pub(crate) fn new(start: Instant) -> Self {
        StallClock {
            start,
            last: None,
            stall: Duration::ZERO,
        }
    }

    /// Restarts the clock at `start` (`ponderhit`): the gaps seen are kept, the time since
    /// the last check is not one (no check runs while pondering).
    pub(crate) fn restart(&mut self, start: Instant) {
        self.start = start;
        self.last = None;
    }

    /// A check at `now`: whether the time since the start, plus the longest gap seen
    /// (this one included), reaches `limit`.
    pub(crate) fn check(&mut self, now: Instant, limit: Duration) -> bool {
        if let Some(last) = self.last {
            self.stall = self.stall.max(now.saturating_duration_since(last));
        }
        self.last = Some(now);
        now.saturating_duration_since(self.start) + self.stall >= limit
    }

    /// Whether the time since the start reaches `limit` at `now` (the soft limit, between
    /// iterations: the gaps do not count there, nor is the check one of the series).
    pub(crate) fn reached(&self, now: Instant, limit: Duration) -> bool {
        now.saturating_duration_since(self.start) >= limit
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

    /// The clock runs from `clock_start` (the `go` line's arrival), so a search
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
        // White's clock only, Black to move: bounded as if Black had the same.
        let black = limits.time_budget(false, ms(10)).unwrap();
        assert_eq!(black, b);
        let inc_only = Limits {
            binc: Some(ms(100)),
            ..Limits::default()
        };
        let b = inc_only.time_budget(true, ms(10)).unwrap();
        assert!(b.hard <= ms(100), "{b:?}");
        // The overhead comes out of every increment, not once from the clock.
        let late = Limits {
            wtime: Some(ms(300)),
            winc: Some(ms(50)),
            ..Limits::default()
        };
        let quiet = late.time_budget(true, ms(10)).unwrap();
        let busy = late.time_budget(true, ms(50)).unwrap();
        // The clock keeps two overheads: 20 ms, then 100.
        assert_eq!(quiet.soft, (ms(280) / 30 + ms(40) * 3 / 4) * 3 / 5);
        assert_eq!(
            busy.soft,
            ms(200) / 30 * 3 / 5,
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

    /// A move's hard limit, plus the overhead it will be charged beyond it and a margin as
    /// large again, must fit in the clock (the increment comes only after the move). A budget
    /// of 60% of the clock less one overhead does not: at 100 ms with 40 ms charged per move
    /// its hard limit is 36 ms, and a move charged 76 ms or more loses on time.
    #[test]
    fn the_hard_limit_leaves_the_reserve_on_the_clock() {
        let ms = Duration::from_millis;
        let mut checked = 0;
        for clock in (0..=3000).step_by(7).chain([5000, 60_000]) {
            for inc in [0, 10, 50, 100, 1000] {
                for overhead in [0, 1, 10, 31, 40, 100, 400, 5000] {
                    for reserve in [0, 50, 300, 1000] {
                        for movestogo in [None, Some(1), Some(40)] {
                            let limits = Limits {
                                btime: Some(ms(clock)),
                                binc: Some(ms(inc)),
                                movestogo,
                                ..Limits::default()
                            };
                            let (overhead, reserve) = (ms(overhead), ms(reserve));
                            let b = limits
                                .time_budget_keeping(false, overhead, reserve)
                                .expect("clocked");
                            let kept = reserve.max(overhead * RESERVE_OVERHEADS);
                            let what = format!(
                                "clock {clock} inc {inc} {overhead:?} {reserve:?} {movestogo:?}: {b:?}"
                            );
                            assert!(b.soft <= b.hard, "{what}");
                            assert!(
                                b.hard == ms(1) || b.hard + kept <= ms(clock),
                                "the hard limit spends the reserve: {what}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
        // A close call from a loaded game (clock 70.2 ms, overhead 31 ms, and 59.4 ms
        // charged beyond the engine's time): the hard limit leaves that charge room.
        let closest = Limits {
            wtime: Some(Duration::from_micros(70_200)),
            winc: Some(ms(50)),
            ..Limits::default()
        };
        let b = closest.time_budget(true, ms(31)).expect("clocked");
        assert!(b.hard < ms(5), "{b:?}");
        // With nothing to keep back beyond the overheads, a quiet machine's budget is what
        // it was, less one overhead of the clock.
        let early = Limits {
            wtime: Some(ms(5000)),
            winc: Some(ms(50)),
            ..Limits::default()
        };
        let b = early.time_budget(true, ms(10)).expect("clocked");
        assert_eq!(b.hard, (ms(4980) / 30 + ms(40) * 3 / 4) * 3);
        // A reserve larger than the clock: the floor, whatever the increment.
        let low = Limits {
            wtime: Some(ms(400)),
            winc: Some(ms(1000)),
            ..Limits::default()
        };
        let b = low
            .time_budget_keeping(true, ms(10), ms(450))
            .expect("clocked");
        assert_eq!((b.soft, b.hard), (ms(1), ms(1)));
    }

    /// A thread starved by CPU hogs checks its clock tens of milliseconds apart
    /// (`docs/engine/robustness.md`), so a search that checked just before its hard limit
    /// could end a whole gap past it. With the longest gap seen counted, it stops at the
    /// check before.
    #[test]
    fn a_starved_search_stops_a_gap_early() {
        let ms = Duration::from_millis;
        let start = Instant::now();
        let at = |t: u64| start + ms(t);
        let mut clock = StallClock::new(start);
        // Checks every millisecond: a search stops one millisecond before its limit.
        assert!(!clock.check(at(1), ms(100)));
        assert!(!clock.check(at(2), ms(100)));
        assert!(
            clock.check(at(98), ms(100)),
            "a gap of 96 ms: 98 + 96 ≥ 100"
        );
        let mut clock = StallClock::new(start);
        for t in 1..99 {
            assert!(!clock.check(at(t), ms(100)), "{t}");
        }
        assert!(
            clock.check(at(99), ms(100)),
            "one gap of 1 ms before the limit"
        );
        // A 40 ms gap, then checks every millisecond: the search stops 40 ms early.
        let mut clock = StallClock::new(start);
        assert!(!clock.check(at(10), ms(100)));
        assert!(!clock.check(at(50), ms(100)));
        assert!(!clock.check(at(59), ms(100)));
        assert!(clock.check(at(60), ms(100)));
        // The soft limit between iterations: elapsed time only.
        assert!(!clock.reached(at(99), ms(100)));
        assert!(clock.reached(at(100), ms(100)));
        // `ponderhit` restarts the clock and keeps the gaps seen (40 ms); the time since
        // the last check before it is no gap.
        clock.restart(at(200));
        assert!(!clock.check(at(201), ms(100)));
        assert!(!clock.check(at(230), ms(100)));
        assert!(clock.check(at(260), ms(100)), "60 ms, and a gap of 40");
        // A clock read from before the start (the search began at `go`, the first check
        // came after) does not underflow.
        let mut clock = StallClock::new(at(50));
        assert!(!clock.check(at(10), ms(100)));
    }
}
