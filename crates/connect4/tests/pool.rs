//! [`SolverPool`]: its scores equal the one-thread [`Solver`]'s, with many solves at once on
//! one table, with isolated (fresh) solves, and it stops on time or when cancelled.

use std::sync::Arc;
use std::time::{Duration, Instant};
use transpo_connect4::pool::{Analysis, Request, SolverPool, Stop, Stopped};
use transpo_connect4::{Position, Solver, Strength};

const FACTS: &str = include_str!("fixtures/facts.txt");

/// Every position of the facts fixture.
fn positions() -> Vec<Position> {
    FACTS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| Position::from_moves(l.split_whitespace().next().expect("moves")).expect("legal"))
        .collect()
}

const STRONG: Request = Request {
    strength: Strength::Strong,
    fresh: false,
};

#[test]
fn four_threads_on_two_slots_agree_with_one_solver() {
    let pool = Arc::new(SolverPool::<7, 6>::new(16, 2).expect("16 MiB"));
    let mut solver = Solver::new(16).expect("16 MiB");
    let expected: Vec<_> = positions()
        .iter()
        .map(|p| solver.analyze(p, Strength::Strong))
        .collect();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || {
                // Each thread takes the positions in another order, fresh every other time.
                let mut all: Vec<_> = positions().into_iter().enumerate().collect();
                all.rotate_left(t * 7);
                all.into_iter()
                    .map(|(i, p)| {
                        let request = Request {
                            fresh: i % 2 == t % 2,
                            ..STRONG
                        };
                        let analysis = pool.analyze(&p, request, &Stop::never()).expect("no stop");
                        (i, analysis)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for thread in threads {
        for (i, analysis) in thread.join().expect("a solving thread") {
            assert_eq!(analysis.columns, expected[i], "position {i}");
            assert_eq!(
                Some(analysis.score),
                expected[i].iter().flatten().max().copied()
            );
        }
    }
}

#[test]
fn solve_agrees_with_the_solver_strong_and_weak() {
    let pool = SolverPool::<7, 6>::new(16, 1).expect("16 MiB");
    let mut solver = Solver::new(16).expect("16 MiB");
    for pos in positions() {
        for strength in [Strength::Strong, Strength::Weak] {
            let request = Request {
                strength,
                fresh: true,
            };
            let (score, _) = pool.solve(&pos, request, &Stop::never()).expect("no stop");
            assert_eq!(score, solver.solve(&pos, strength));
        }
    }
}

#[test]
fn a_deadline_or_a_cancel_stops_a_long_solve_soon() {
    let pool = Arc::new(SolverPool::<7, 6>::new(16, 1).expect("16 MiB"));
    let empty = Position::new();
    let started = Instant::now();
    let stopped = pool.solve(&empty, STRONG, &Stop::after(Duration::from_millis(100)));
    assert!(stopped.is_err(), "the empty board is not solved in 100 ms");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );

    let analysis = Analysing::empty_board(&pool);
    std::thread::sleep(Duration::from_millis(100));
    analysis.cancel_and_join();

    // The slot came back: a position near the end is solved.
    let (score, _) = pool
        .solve(&near_end(), STRONG, &Stop::never())
        .expect("no stop");
    assert_eq!(score, -1);
}

/// A position near the end, which scores −1 (a test-set line's).
fn near_end() -> Position {
    Position::from_moves("2252576253462244111563365343671351441").expect("legal")
}

/// An analysis of the empty board running on its own thread, until cancelled.
struct Analysing {
    stop: Arc<Stop>,
    thread: std::thread::JoinHandle<Result<Analysis, Stopped>>,
}

impl Analysing {
    fn empty_board(pool: &Arc<SolverPool>) -> Analysing {
        let stop = Arc::new(Stop::never());
        let thread = {
            let (pool, stop) = (Arc::clone(pool), Arc::clone(&stop));
            std::thread::spawn(move || pool.analyze(&Position::new(), STRONG, &stop))
        };
        Analysing { stop, thread }
    }

    /// Cancels it: it must give up, within 5 s.
    fn cancel_and_join(self) {
        let cancelled = Instant::now();
        self.stop.cancel();
        assert!(self.thread.join().expect("the solving thread").is_err());
        assert!(
            cancelled.elapsed() < Duration::from_secs(5),
            "{:?}",
            cancelled.elapsed()
        );
    }
}

/// An analysis solves its columns on every slot free when it starts: while it runs, a
/// request finds no slot and gives up at its deadline; a cancel stops every one of its
/// solves soon, and the slots come back.
#[test]
fn an_analysis_takes_the_free_slots_and_a_cancel_gives_them_back() {
    let pool = Arc::new(SolverPool::<7, 6>::new(16, 3).expect("16 MiB"));
    assert_eq!(pool.busy(), 0);
    let analysis = Analysing::empty_board(&pool);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(pool.busy(), 3, "the analysis holds all three slots");
    let pos = near_end();
    let waited = pool.solve(&pos, STRONG, &Stop::after(Duration::from_millis(50)));
    assert!(waited.is_err(), "the analysis holds all three slots");
    analysis.cancel_and_join();
    assert_eq!(pool.busy(), 0, "the slots came back");
    let (score, _) = pool
        .solve(&pos, STRONG, &Stop::after(Duration::from_secs(5)))
        .expect("a slot is free again");
    assert_eq!(score, -1);
}

#[test]
fn a_waiting_request_gives_up_at_its_deadline() {
    let pool = Arc::new(SolverPool::<7, 6>::new(16, 1).expect("16 MiB"));
    let hold = Arc::new(Stop::never());
    let holder = {
        let (pool, hold) = (Arc::clone(&pool), Arc::clone(&hold));
        std::thread::spawn(move || pool.solve(&Position::new(), STRONG, &hold))
    };
    std::thread::sleep(Duration::from_millis(50));
    let waited = pool.solve(&near_end(), STRONG, &Stop::after(Duration::from_millis(50)));
    hold.cancel();
    assert!(holder.join().expect("the holding thread").is_err());
    let stopped = waited.expect_err("the only slot was taken");
    assert!(stopped.after >= Duration::from_millis(50));
}

#[test]
fn a_book_answers_without_a_search_and_agrees_with_the_search() {
    // Every position up to two stones past a Middle-Easy line (Pons' Test_L2_R1, line 1).
    let root = Position::from_moves("5554224333234511764415115").expect("legal");
    let mut solver = Solver::new(16).expect("16 MiB");
    let book = transpo_connect4::Book::generate(
        &root,
        root.moves() + 2,
        |p| solver.solve(p, Strength::Strong),
        |_, _| {},
    )
    .expect("a small book");
    let plain = SolverPool::<7, 6>::new(16, 1).expect("16 MiB");
    let mut booked = SolverPool::<7, 6>::new(16, 1).expect("16 MiB");
    booked.set_book(book);
    for moves in ["5554224333234511764415115", "55542243332345117644151151"] {
        let pos = Position::from_moves(moves).expect("legal");
        let searched = plain
            .analyze(&pos, STRONG, &Stop::never())
            .expect("no stop");
        let looked_up = booked
            .analyze(&pos, STRONG, &Stop::never())
            .expect("no stop");
        assert!(!searched.from_book && looked_up.from_book, "{moves}");
        assert_eq!(looked_up.positions, 0, "{moves}");
        assert_eq!(
            (looked_up.columns, looked_up.score),
            (searched.columns, searched.score)
        );
    }
}

/// Every position of the facts fixture, repeated `times` times, each time in a new order.
fn shuffled(times: usize) -> Vec<Position> {
    let all = positions();
    (0..times)
        .flat_map(|t| {
            let mut round = all.clone();
            round.rotate_left(t * 5 % all.len());
            if t % 2 == 1 {
                round.reverse();
            }
            round
        })
        .collect()
}

#[test]
fn solve_each_gives_the_solvers_scores_in_order_on_every_slot() {
    let mut solver = Solver::new(16).expect("16 MiB");
    // Enough positions for chunks of several (`chunk`), and sizes that end mid-chunk.
    let all = shuffled(12);
    for (workers, count) in [(1, all.len()), (3, all.len()), (3, all.len() - 7), (2, 1)] {
        for strength in [Strength::Strong, Strength::Weak] {
            let mut pool = SolverPool::<7, 6>::new(16, workers).expect("16 MiB");
            let request = Request {
                strength,
                fresh: false,
            };
            let solved = std::sync::atomic::AtomicUsize::new(0);
            let (scores, explored) = pool
                .solve_each(count, |i| all[i], request, &Stop::never(), &solved)
                .expect("no stop");
            let expected: Vec<i32> = all[..count]
                .iter()
                .map(|p| solver.solve(p, strength))
                .collect();
            assert_eq!(scores, expected, "{workers} slots, {count} positions");
            assert_eq!(solved.into_inner(), count);
            assert!(explored > 0);
            assert_eq!(pool.busy(), 0, "the slots came back");
            // Cleared, the pool solves them again from an empty table, as many positions.
            pool.clear();
            let (again, explored_again) = pool
                .solve_each(
                    count,
                    |i| all[i],
                    request,
                    &Stop::never(),
                    &Default::default(),
                )
                .expect("no stop");
            assert_eq!(again, expected);
            if workers == 1 {
                // One slot solves them in the same order: from an empty table, the same work.
                assert_eq!(explored_again, explored, "the table was emptied");
            }
        }
    }
    let pool = SolverPool::<7, 6>::new(16, 2).expect("16 MiB");
    let none = pool.solve_each(
        0,
        |_| Position::new(),
        STRONG,
        &Stop::never(),
        &Default::default(),
    );
    assert_eq!(none, Ok((Vec::new(), 0)));
}

#[test]
fn solve_each_stops_on_a_long_solve_and_on_many_short_ones() {
    let pool = SolverPool::<7, 6>::new(16, 2).expect("16 MiB");
    let started = Instant::now();
    let long = pool.solve_each(
        3,
        |_| Position::new(),
        STRONG,
        &Stop::after(Duration::from_millis(100)),
        &Default::default(),
    );
    assert!(long.is_err(), "the empty board is not solved in 100 ms");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(pool.busy(), 0, "the slots came back");
    // A position won at once needs no search, so no search looks at the stop: the threads
    // must, between positions.
    let won_at_once = Position::from_moves("112233").expect("legal");
    let cancelled = Stop::never();
    cancelled.cancel();
    let solved = std::sync::atomic::AtomicUsize::new(0);
    let short = pool.solve_each(1_000_000, |_| won_at_once, STRONG, &cancelled, &solved);
    assert!(short.is_err());
    assert!(solved.into_inner() < 1_000_000);
}
