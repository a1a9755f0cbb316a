//! The time a GUI charges beyond the engine's own, learnt from the clocks it sends (why:
//! `docs/engine/robustness.md`).
//!
//! Between two `go`s of the same game, the GUI's clock for the engine went from `clock₁` to
//! `clock₂`, with the increment `inc` added once: it charged `clock₁ + inc − clock₂` for the
//! move. The engine knows how long that move took on its side, from the `go` line's arrival
//! to its `bestmove` written (`own`), and what its hard limit was (`hard`). The difference
//! is time the engine could not see: the GUI's own work, the pipes, and on a busy machine
//! the scheduler's delays before either process runs. A search that ran past its hard
//! limit (its clock checks came late on a busy machine) adds `own − hard`. Their sum is the
//! move's *excess*: what a budget must leave beside the hard limit for the clock not to
//! fall.
//!
//! The overhead a search subtracts from its clock is the `Move Overhead` option or, when
//! larger, the largest excess seen lately: each move's estimate is the larger of its
//! excess and the previous estimate less 1/32, so one slow move is remembered for a few
//! dozen moves. Only moves that follow one another in one game count (the same side to
//! move, one full move later, the same increment, a clock given both times, neither a
//! ponder, `infinite` nor `movetime` search); `ucinewgame` forgets the last move but keeps
//! the estimate (the machine is as busy as it was). A clock that went up (a new time
//! control) or a charge below the engine's own time (a GUI that does not run a clock)
//! teaches nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use transpo_chess::Position;

use crate::search::Limits;

/// The largest overhead learnt (the `Move Overhead` option's maximum too): a GUI that seems
/// to charge more is not believed further.
const MAX_LEARNT: Duration = Duration::from_millis(super::options::MAX_MOVE_OVERHEAD_MS);

/// The reserve is this many times the largest excess seen lately: a stall twice as long
/// as any seen, on top of a move's hard limit, still leaves time on the clock.
pub(super) const RESERVE_STALLS: u32 = 3;

/// Whatever the stalls seen, the clock keeps in hand this share of the game's time (the
/// largest clock a `go` of the game gave)…
pub(super) const IN_HAND_SHARE: u32 = 8;

/// …up to this much: at 5+0.05, 625 ms; from 8 s on, a second. Why: on a busy machine one
/// stall can be longer than any the game has shown (415 ms, charged when the clock held
/// 401 ms, after moves charged 36 ms: `docs/engine/robustness.md`), so a reserve learnt
/// from the game alone comes too late at fast controls; Toga II survives such stalls by
/// keeping about a second in hand.
pub(super) const IN_HAND_MAX: Duration = Duration::from_secs(1);

/// What the clock keeps in hand in a game whose largest clock was `game_clock`, stalls or
/// none: [`IN_HAND_SHARE`] of it, at most [`IN_HAND_MAX`].
pub(super) fn in_hand(game_clock: Duration) -> Duration {
    (game_clock / IN_HAND_SHARE).min(IN_HAND_MAX)
}

/// A `go` waiting for the next one to tell what it was charged.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// Full moves × 2, plus 1 with Black to move: the next own move is 2 more.
    half_move: u64,
    clock: Duration,
    inc: Duration,
    hard: Duration,
}

/// What the engine learns about the time it is charged.
#[derive(Debug, Default)]
pub(super) struct Lag {
    pending: Option<Pending>,
    estimate: Duration,
    /// The largest excess seen lately (it loses 1/128 a move).
    worst: Duration,
    /// The largest own clock a `go` of this game gave (zero before one).
    game_clock: Duration,
    /// The search thread writes here how long its `go` took, from the line's arrival to
    /// `bestmove` written, in microseconds (0 while it runs).
    own_us: Arc<AtomicU64>,
}

impl Lag {
    /// Where a search thread reports how long its `go` took.
    pub(super) fn own_time(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.own_us)
    }

    /// A new game: the last move and the game's clock are forgotten, the estimate kept.
    pub(super) fn new_game(&mut self) {
        self.pending = None;
        self.game_clock = Duration::ZERO;
    }

    /// The estimate: what moves have been charged beyond the hard limit lately.
    pub(super) fn estimate(&self) -> Duration {
        self.estimate
    }

    /// What the clock keeps back: [`RESERVE_STALLS`] × the largest excess seen lately, or
    /// what it keeps in hand at this game's time control ([`in_hand`]) when that is more.
    pub(super) fn reserve(&self) -> Duration {
        self.stall_reserve().max(in_hand(self.game_clock))
    }

    /// What the clock keeps back for the stalls seen: [`RESERVE_STALLS`] × the largest
    /// excess seen lately (zero before any).
    fn stall_reserve(&self) -> Duration {
        self.worst.saturating_mul(RESERVE_STALLS)
    }

    /// At a `go` for `position` with `limits`, after the previous search was joined: learns
    /// from what the previous move was charged, and returns the overhead to search with
    /// (`option`, the `Move Overhead` option, or the estimate when larger).
    pub(super) fn overhead_at_go(
        &mut self,
        position: &Position,
        limits: &Limits,
        option: Duration,
    ) -> Duration {
        let own = Duration::from_micros(self.own_us.swap(0, Relaxed));
        let now = Self::clocked(position, limits);
        if let Some((_, clock, _)) = now {
            self.game_clock = self.game_clock.max(clock);
        }
        if let (Some(before), Some((half_move, clock, inc))) = (self.pending.take(), now)
            && half_move == before.half_move + 2
            && inc == before.inc
            && !own.is_zero()
        {
            // Charged: what left the clock, the increment given back.
            let charged = (before.clock + before.inc).checked_sub(clock);
            if let Some(charged) = charged
                && charged >= own
            {
                let excess = (charged - own) + own.saturating_sub(before.hard);
                self.learn(excess);
            } else {
                self.decay();
            }
        } else {
            self.decay();
        }
        option.max(self.estimate)
    }

    /// Remembers the `go` about to start, with the hard limit it got, for the next one.
    pub(super) fn started(&mut self, position: &Position, limits: &Limits, hard: Option<Duration>) {
        self.pending =
            Self::clocked(position, limits)
                .zip(hard)
                .map(|((half_move, clock, inc), hard)| Pending {
                    half_move,
                    clock,
                    inc,
                    hard,
                });
    }

    /// The half-move number, own clock and increment of a `go` that can teach something.
    fn clocked(position: &Position, limits: &Limits) -> Option<(u64, Duration, Duration)> {
        if limits.infinite || limits.ponder || limits.movetime.is_some() {
            return None;
        }
        let board = position.board();
        let white = board.side_to_move() == cozy_chess::Color::White;
        let (clock, inc) = if white {
            (limits.wtime?, limits.winc.unwrap_or_default())
        } else {
            (limits.btime?, limits.binc.unwrap_or_default())
        };
        let half_move = u64::from(board.fullmove_number()) * 2 + u64::from(!white);
        Some((half_move, clock, inc))
    }

    fn learn(&mut self, excess: Duration) {
        self.decay();
        self.estimate = self.estimate.max(excess.min(MAX_LEARNT));
        self.worst = self.worst.max(excess.min(MAX_LEARNT));
    }

    fn decay(&mut self) {
        self.estimate -= self.estimate / 32;
        self.worst -= self.worst / 128;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A `go` with White's clock at `clock` ms and an increment of 50 ms.
    fn white(clock: u64) -> Limits {
        Limits {
            wtime: Some(ms(clock)),
            btime: Some(ms(5000)),
            winc: Some(ms(50)),
            binc: Some(ms(50)),
            ..Limits::default()
        }
    }

    /// The position after `plies` moves of a knight shuffle (White to move when even).
    fn after(plies: usize) -> Position {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut position = Position::startpos();
        for text in shuffle.iter().cycle().take(plies) {
            let mv = position.parse_uci_move(text).expect("a move");
            position.play(mv).expect("legal");
        }
        position
    }

    /// One move: the previous search took `own` ms; returns the overhead at this `go`.
    fn go(lag: &mut Lag, position: &Position, limits: &Limits, own: u64) -> Duration {
        lag.own_us.store(own * 1000, Relaxed);
        let overhead = lag.overhead_at_go(position, limits, ms(10));
        let hard = limits
            .time_budget_keeping(true, overhead, lag.reserve())
            .map(|b| b.hard);
        lag.started(position, limits, hard);
        overhead
    }

    #[test]
    fn the_charge_beyond_the_engine_s_own_time_becomes_the_overhead() {
        let mut lag = Lag::default();
        assert_eq!(
            go(&mut lag, &after(0), &white(5000), 0),
            ms(10),
            "nothing known"
        );
        // The engine took 100 ms (under its hard limit); the GUI charged 250 (5000 + 50 −
        // 4800): 150 ms went elsewhere.
        assert_eq!(go(&mut lag, &after(2), &white(4800), 100), ms(150));
        // A move charged exactly its own time teaches nothing; the estimate decays.
        let next = go(&mut lag, &after(4), &white(4750), 100);
        assert_eq!(next, ms(150) - ms(150) / 32);
        // A move that ran 40 ms past its hard limit (computed with the overhead in use)
        // adds those 40 ms to the 20 ms the GUI charged beyond it.
        let hard = white(4750)
            .time_budget_keeping(true, next, lag.reserve())
            .expect("clocked")
            .hard;
        let own = hard.as_millis() as u64 + 40;
        let clock = 4750 + 50 - own - 20;
        let learnt = go(&mut lag, &after(6), &white(clock), own);
        assert!(learnt >= next - next / 32, "{learnt:?}");
        lag.estimate = Duration::ZERO;
        let hard = white(clock)
            .time_budget_keeping(true, learnt, lag.reserve())
            .expect("clocked")
            .hard;
        let own = hard.as_millis() as u64 + 40;
        let clock = clock + 50 - own - 20;
        // 20 + 40 ms, less the fraction of a millisecond `hard` had beyond `own − 40`.
        let learnt = go(&mut lag, &after(8), &white(clock), own);
        assert!(ms(59) < learnt && learnt <= ms(60), "{learnt:?}");
        assert_eq!(lag.estimate(), learnt);
    }

    #[test]
    fn only_consecutive_clocked_moves_of_one_game_teach() {
        let mut lag = Lag::default();
        go(&mut lag, &after(0), &white(5000), 0);
        // Not the next own move (a move skipped, or the same position again).
        assert_eq!(go(&mut lag, &after(4), &white(3000), 100), ms(10));
        assert_eq!(go(&mut lag, &after(4), &white(2000), 100), ms(10));
        // A new game in between.
        lag.new_game();
        assert_eq!(go(&mut lag, &after(6), &white(1000), 100), ms(10));
        // The clock went up (a new time control), or another increment.
        assert_eq!(go(&mut lag, &after(8), &white(9000), 100), ms(10));
        let other_inc = Limits {
            winc: Some(ms(20)),
            ..white(8000)
        };
        assert_eq!(go(&mut lag, &after(10), &other_inc, 100), ms(10));
        // A `movetime`, `infinite` or ponder search, or one without our clock.
        for limits in [
            Limits::movetime(ms(100)),
            Limits {
                infinite: true,
                ..white(8000)
            },
            Limits {
                ponder: true,
                ..white(8000)
            },
            Limits::depth(3),
        ] {
            go(&mut lag, &after(12), &white(8000), 0);
            assert_eq!(go(&mut lag, &after(14), &limits, 100), ms(10), "{limits:?}");
            go(&mut lag, &after(12), &limits, 0);
            assert_eq!(
                go(&mut lag, &after(14), &white(7000), 100),
                ms(10),
                "{limits:?}"
            );
        }
        // A search that did not report its time (stopped by a panic, say).
        go(&mut lag, &after(12), &white(8000), 0);
        assert_eq!(go(&mut lag, &after(14), &white(7000), 0), ms(10));
        // And a real one still teaches, capped at the option's maximum.
        go(&mut lag, &after(14), &white(9000), 0);
        assert_eq!(
            go(&mut lag, &after(16), &white(9000 + 50 - 1200), 200),
            ms(1000)
        );
        go(&mut lag, &after(16), &white(60_000), 0);
        let capped = go(&mut lag, &after(18), &white(50), 100);
        assert_eq!(capped, MAX_LEARNT);
    }

    #[test]
    fn the_reserve_is_three_worst_excesses_and_outlasts_the_estimate() {
        let mut lag = Lag::default();
        assert_eq!(lag.reserve(), Duration::ZERO, "nothing seen");
        go(&mut lag, &after(0), &white(5000), 0);
        assert_eq!(lag.reserve(), ms(625), "in hand at 5+0.05: an eighth");
        // Charged 150 ms beyond the engine's own 100.
        go(&mut lag, &after(2), &white(4800), 100);
        assert_eq!(lag.stall_reserve(), ms(450));
        assert_eq!(lag.reserve(), ms(625), "in hand, more than the stalls'");
        // Forty moves charged exactly their own time: the estimate has lost more than
        // half, the reserve under a third.
        let mut clock = 4800;
        for n in 0..40 {
            clock -= 10;
            go(&mut lag, &after(4 + 2 * n), &white(clock), 60);
        }
        assert!(lag.estimate() < ms(75), "{:?}", lag.estimate());
        assert!(lag.stall_reserve() > ms(300), "{:?}", lag.stall_reserve());
        // A larger excess raises it at once; `ucinewgame` keeps it.
        go(&mut lag, &after(84), &white(clock + 50 - 60 - 400), 60);
        assert_eq!(lag.reserve(), ms(1200));
        lag.new_game();
        assert_eq!(lag.reserve(), ms(1200));
    }

    #[test]
    fn the_clock_keeps_an_eighth_of_the_game_s_time_up_to_a_second() {
        assert_eq!(in_hand(Duration::ZERO), Duration::ZERO);
        assert_eq!(in_hand(ms(1000)), ms(125));
        assert_eq!(in_hand(ms(5000)), ms(625));
        assert_eq!(in_hand(ms(8000)), ms(1000));
        assert_eq!(in_hand(ms(600_000)), ms(1000));
        // The game's clock is its largest: it holds as the clock runs down, and a new game
        // forgets it.
        let mut lag = Lag::default();
        go(&mut lag, &after(0), &white(5000), 0);
        go(&mut lag, &after(2), &white(900), 0);
        assert_eq!(lag.reserve(), ms(625));
        lag.new_game();
        go(&mut lag, &after(0), &white(2000), 0);
        assert_eq!(lag.reserve(), ms(250));
    }

    /// The forfeit the in-hand share is for (`docs/engine/robustness.md`, 2026-11-28): at
    /// 5+0.05, every search runs to its hard limit (the worst case) and is charged 36 ms
    /// beyond it, until one move, deep in the game, is charged 415 ms beyond it. With the
    /// stall reserve alone that game is lost on time; with the share kept in hand it is not.
    #[test]
    fn a_first_long_stall_late_at_a_fast_control_does_not_lose_on_time() {
        let charge = |n: u64| if n == 89 { ms(415) } else { ms(36) };
        let alone = play_at_hard_limits(90, Lag::stall_reserve, charge);
        assert!(alone.is_err(), "the stall reserve alone: {alone:?}");
        let clocks = play_at_hard_limits(90, Lag::reserve, charge).expect("kept in hand");
        let left = clocks[90];
        assert!(left > Duration::ZERO, "{left:?}");
    }

    /// A game where every search runs to its hard limit (the worst case), every move is
    /// charged 30 ms beyond it, but two moves are charged 100 ms more, at moves 10 and 20,
    /// and one 250 ms more at move 70, when the clock is low. A budget that keeps only one
    /// overhead on the clock loses that game on time; with the reserve the clock is over
    /// 300 ms when the stall comes.
    #[test]
    fn a_stall_larger_than_any_seen_before_does_not_lose_on_time() {
        let charge = |n: u64| {
            ms(30)
                + match n {
                    10 | 20 => ms(100),
                    70 => ms(250),
                    _ => Duration::ZERO,
                }
        };
        let clocks =
            play_at_hard_limits(120, Lag::reserve, charge).unwrap_or_else(|e| panic!("{e}"));
        assert!(clocks[70] > ms(300), "{:?}", clocks[70]);
    }

    /// `moves` of White's at 5+0.05 from a fresh `Lag` (overhead option 10 ms), the clock
    /// keeping `reserve` of it, every search running to its hard limit and move `n`
    /// charged `beyond(n)` more: White's clock before each move and after the last, or the
    /// move lost on time.
    fn play_at_hard_limits(
        moves: u64,
        reserve: fn(&Lag) -> Duration,
        beyond: impl Fn(u64) -> Duration,
    ) -> Result<Vec<Duration>, String> {
        let mut lag = Lag::default();
        let mut clocks = vec![ms(5000)];
        let mut own = Duration::ZERO;
        for n in 0..moves {
            let clock = clocks[n as usize];
            let limits = white(clock.as_millis() as u64);
            let position = after(2 * n as usize);
            lag.own_us.store(own.as_micros() as u64, Relaxed);
            let overhead = lag.overhead_at_go(&position, &limits, ms(10));
            let budget = limits
                .time_budget_keeping(true, overhead, reserve(&lag))
                .expect("clocked");
            lag.started(&position, &limits, Some(budget.hard));
            own = budget.hard;
            let charged = own + beyond(n);
            if charged > clock {
                return Err(format!(
                    "lost on time at move {n}: clock {clock:?}, charged {charged:?}"
                ));
            }
            clocks.push(clock - charged + ms(50));
        }
        Ok(clocks)
    }
}
