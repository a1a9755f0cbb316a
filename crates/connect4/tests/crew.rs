//! [`Crew`]: its scores equal the one-thread [`Solver`]'s on any number of threads, in order,
//! while its table grows; it stops when the caller's check says so; `clear` makes the table
//! small again.

use std::time::{Duration, Instant};
use transpo_connect4::crew::Crew;
use transpo_connect4::{Position, Solver, Strength};

const FACTS: &str = include_str!("fixtures/facts.txt");

/// Buckets of the big table in use after a clear (2 MiB).
const START_BUCKETS: usize = 1 << 18;

/// Every position of the facts fixture, repeated `times` times, each time in a new order.
fn shuffled(times: usize) -> Vec<Position> {
    let all: Vec<Position> = FACTS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| Position::from_moves(l.split_whitespace().next().expect("moves")).expect("legal"))
        .collect();
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

/// Lines of Pons' Begin-Hard and Begin-Medium sets with their scores: the first two take
/// about 0.1 s each on one thread, long enough for the table to grow (to 2^19 buckets), the
/// others some milliseconds.
const LONG: &[(&str, i32)] = &[
    ("3246313", -2),
    ("13234664", -3),
    ("32751571231557", -3),
    ("335662333565", -2),
    ("2416615552", 4),
];

#[test]
fn a_crew_gives_the_solvers_scores_in_order_on_any_threads() {
    let mut solver = Solver::new(16).expect("16 MiB");
    // Enough positions for chunks of several, and sizes that end mid-chunk.
    let all = shuffled(12);
    for (threads, count) in [(1, all.len()), (3, all.len()), (3, all.len() - 7), (2, 1)] {
        for strength in [Strength::Strong, Strength::Weak] {
            let mut crew = Crew::<7, 6>::new(16, threads, None).expect("16 MiB");
            assert_eq!(crew.threads(), threads);
            let given = all.clone();
            let (scores, explored) = crew
                .solve_each(count, move |i| given[i], strength, |_| true)
                .expect("no stop");
            let expected: Vec<i32> = all[..count]
                .iter()
                .map(|p| solver.solve(p, strength))
                .collect();
            assert_eq!(scores, expected, "{threads} threads, {count} positions");
            assert!(explored > 0);
            // Cleared, the crew solves them again from an empty table, as many positions.
            crew.clear();
            let given = all.clone();
            let (again, explored_again) = crew
                .solve_each(count, move |i| given[i], strength, |_| true)
                .expect("no stop");
            assert_eq!(again, expected);
            if threads == 1 {
                // One thread solves them in the same order: from an empty table, the same
                // work.
                assert_eq!(explored_again, explored, "the table was emptied");
            }
        }
    }
    let crew = Crew::<7, 6>::new(16, 2, None).expect("16 MiB");
    let none = crew.solve_each(0, |_| Position::new(), Strength::Strong, |_| true);
    assert_eq!(none, Ok((Vec::new(), 0)));
}

#[test]
fn the_table_grows_for_long_solves_and_clear_makes_it_small() {
    let positions: Vec<Position> = LONG
        .iter()
        .map(|(m, _)| Position::from_moves(m).expect("legal"))
        .collect();
    let expected: Vec<i32> = LONG.iter().map(|&(_, s)| s).collect();
    for threads in [1, 2, 4] {
        let mut crew = Crew::<7, 6>::new(64, threads, None).expect("64 MiB");
        assert_eq!(crew.buckets_in_use(), START_BUCKETS);
        // Short solves leave it small.
        let short = shuffled(4);
        let (_, _) = crew
            .solve_each(short.len(), move |i| short[i], Strength::Strong, |_| true)
            .expect("no stop");
        assert_eq!(crew.buckets_in_use(), START_BUCKETS, "{threads} threads");
        // Twice: once grown, the table stays grown between batches.
        for round in 0..2 {
            let given = positions.clone();
            let (scores, _) = crew
                .solve_each(given.len(), move |i| given[i], Strength::Strong, |_| true)
                .expect("no stop");
            assert_eq!(scores, expected, "{threads} threads, round {round}");
            assert!(crew.buckets_in_use() > START_BUCKETS, "{threads} threads");
        }
        crew.clear();
        assert_eq!(crew.buckets_in_use(), START_BUCKETS);
    }
}

#[test]
fn a_crew_stops_when_the_check_says_so() {
    for threads in [1, 2] {
        let crew = Crew::<7, 6>::new(16, threads, None).expect("16 MiB");
        // A long solve: the check runs from within the search.
        let started = Instant::now();
        let mut checks = 0;
        let long = crew.solve_each(
            3,
            |_| Position::new(),
            Strength::Strong,
            |solved| {
                checks += 1;
                assert_eq!(solved, 0);
                started.elapsed() < Duration::from_millis(100)
            },
        );
        assert!(long.is_err(), "the empty board is not solved in 100 ms");
        assert!(checks >= 2, "checked every 10 ms");
        assert!(started.elapsed() < Duration::from_secs(5));
        // Positions won at once need no search: the caller checks between positions.
        let won_at_once = Position::from_moves("112233").expect("legal");
        let mut last = 0;
        let short = crew.solve_each(
            50_000_000,
            move |_| won_at_once,
            Strength::Strong,
            |solved| {
                last = solved;
                false
            },
        );
        assert!(short.is_err());
        assert!(last < 50_000_000);
        // The crew still solves after a stop.
        let again = crew
            .solve_each(2, move |_| won_at_once, Strength::Strong, |_| true)
            .expect("no stop");
        assert_eq!(again.0, vec![18, 18]);
    }
}
