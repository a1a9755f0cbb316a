//! Facts kept in the repository (`fixtures/facts.txt`, sources named there): strong and weak
//! scores, mirror symmetry, and `analyze` against `solve`.

use transpo_connect4::{Position, Solver, Strength, protocol::parse_line};

const FACTS: &str = include_str!("fixtures/facts.txt");

/// `(moves, score, is a test-set line)` for every fact.
fn facts() -> Vec<(&'static str, i32, bool)> {
    let mut out = Vec::new();
    let mut next_is_source = false;
    for line in FACTS.lines() {
        if line.starts_with("# Test_") {
            next_is_source = true;
        } else if !line.starts_with('#') {
            let problem = parse_line::<7, 6, u64>(line).expect("fixture lines are valid");
            let score = problem.expected.expect("fixture lines have a score");
            out.push((problem.moves, score, next_is_source));
            next_is_source = false;
        }
    }
    out
}

/// The move sequence of the mirror image: column c becomes 8 − c.
fn mirror(moves: &str) -> String {
    moves
        .chars()
        .map(|c| char::from(b'8' - (c as u8 - b'0')))
        .collect()
}

#[test]
fn fixture_has_a_few_dozen_facts_from_six_sources() {
    let facts = facts();
    assert!(facts.len() >= 30, "{}", facts.len());
    assert_eq!(facts.iter().filter(|f| f.2).count(), 6);
}

#[test]
fn strong_and_weak_scores_and_mirrors_match_the_facts() {
    let mut solver = Solver::new(32).expect("32 MiB");
    for (moves, score, _) in facts() {
        let pos = Position::from_moves(moves).expect("valid");
        let mirrored = Position::from_moves(&mirror(moves)).expect("valid");
        assert_eq!(mirrored, pos.mirror(), "{moves}");
        solver.reset();
        assert_eq!(solver.solve(&pos, Strength::Strong), score, "{moves}");
        solver.reset();
        let weak = solver.solve(&pos, Strength::Weak);
        assert_eq!(weak, score.signum(), "weak {moves}");
        solver.reset();
        assert_eq!(
            solver.solve(&mirrored, Strength::Strong),
            score,
            "mirror of {moves}"
        );
    }
}

#[test]
fn analyze_agrees_with_solve() {
    let mut solver = Solver::new(32).expect("32 MiB");
    for (moves, score, source) in facts() {
        if !source {
            continue;
        }
        let pos = Position::from_moves(moves).expect("valid");
        solver.reset();
        let columns = solver.analyze(&pos, Strength::Strong);
        let best = columns.iter().flatten().max().copied();
        assert_eq!(best, Some(score), "{moves}");
        for (col, column_score) in columns.iter().enumerate() {
            assert_eq!(column_score.is_some(), pos.can_play(col), "{moves} {col}");
            let Some(column_score) = *column_score else {
                continue;
            };
            if pos.is_winning_move(col) {
                assert_eq!(column_score, (43 - pos.moves() as i32) / 2);
                continue;
            }
            let mut child = pos;
            child.play_column(col);
            solver.reset();
            assert_eq!(
                -solver.solve(&child, Strength::Strong),
                column_score,
                "{moves}+{col}"
            );
        }
        solver.reset();
        let weak = solver.analyze(&pos, Strength::Weak);
        for (w, s) in weak.iter().zip(&columns) {
            assert_eq!(*w, s.map(i32::signum), "weak analyze {moves}");
        }
    }
}

#[test]
fn weak_is_the_sign_of_strong_on_positions_near_the_end() {
    // Every child of every fact two plies deep, a few hundred positions of all outcomes.
    let mut solver = Solver::new(16).expect("16 MiB");
    let mut seen = [0usize; 3];
    for (moves, _, _) in facts().into_iter().filter(|f| f.0.len() >= 25) {
        let pos = Position::from_moves(moves).expect("valid");
        for a in 0..7 {
            if !pos.can_play(a) || pos.is_winning_move(a) {
                continue;
            }
            let mut child = pos;
            child.play_column(a);
            solver.reset();
            let strong = solver.solve(&child, Strength::Strong);
            solver.reset();
            let weak = solver.solve(&child, Strength::Weak);
            assert_eq!(weak, strong.signum(), "{moves}+{a}");
            seen[(strong.signum() + 1) as usize] += 1;
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "wins, draws and losses: {seen:?}"
    );
}

/// Progress reports each answered window, the score's range narrowing to the score, on one
/// thread and on two (helpers from the first position).
#[test]
fn progress_narrows_to_the_score() {
    use std::sync::{Arc, Mutex};
    for threads in [1, 2] {
        for (moves, score, _) in facts().into_iter().take(12) {
            let steps = Arc::new(Mutex::new(Vec::new()));
            let mut solver = Solver::new(4).expect("4 MiB");
            solver.set_threads(threads).expect("helper tables");
            solver.set_parallel_after(0);
            let seen = Arc::clone(&steps);
            solver.set_progress(Box::new(move |step| {
                if step.answered {
                    seen.lock()
                        .expect("not poisoned")
                        .push((step.min, step.max));
                }
            }));
            let pos = Position::from_moves(moves).expect("valid");
            assert_eq!(solver.solve(&pos, Strength::Strong), score, "{moves}");
            let steps = steps.lock().expect("not poisoned").clone();
            if pos.can_win_next() {
                assert!(steps.is_empty(), "{moves}");
                continue;
            }
            // Every range holds the score, and one is the score alone. (Threads may report
            // in another order than they answered, so only one thread's come in order.)
            assert!(steps.contains(&(score, score)), "{moves}: {steps:?}");
            assert!(
                steps.iter().all(|&(min, max)| (min..=max).contains(&score)),
                "{moves}: {steps:?}"
            );
            if threads == 1 {
                assert_eq!(steps.last(), Some(&(score, score)), "{moves}: {steps:?}");
                for pair in steps.windows(2) {
                    let ((min0, max0), (min1, max1)) = (pair[0], pair[1]);
                    assert!(min1 >= min0 && max1 <= max0, "{moves}: {steps:?}");
                }
            }
        }
    }
}

#[test]
fn a_generated_book_agrees_with_the_solver() {
    // Middle-Easy (Test_L2_R1), line 1, score 4.
    let root = Position::from_moves("5554224333234511764415115").expect("valid");
    let mut solver = Solver::new(1).expect("1 MiB");
    let book = transpo_connect4::Book::generate(
        &root,
        27,
        |pos| solver.solve(pos, Strength::Strong),
        |_, _| {},
    )
    .expect("a small book");
    assert!(book.len() > 20, "{}", book.len());
    assert_eq!(book.get(&root), Some(4));
    // A solver with the book agrees with one without, on a child in and out of the book.
    let mut plain = Solver::new(1).expect("1 MiB");
    let mut booked = Solver::new(1).expect("1 MiB");
    booked.set_book(book);
    for seq in ["55542243332345117644151151", "5554224333234511764415115"] {
        let pos = Position::from_moves(seq).expect("valid");
        let score = plain.solve(&pos, Strength::Strong);
        assert_eq!(booked.solve(&pos, Strength::Strong), score, "{seq}");
    }
}

#[test]
fn built_in_book() {
    let book = transpo_connect4::Book::built_in();
    // Every position with up to 8 stones, one of each mirror pair: the tree `split --depth 8`
    // counts (129,498 positions, 91,295 of them with 8 stones).
    assert_eq!((book.depth(), book.len()), (8, 129_498));
    // The empty board and its seven first moves, as John Tromp's and Pascal Pons' solvers
    // give them (connect4.gamesolver.org shows -2 -1 0 1 0 -1 -2 for the first move from the
    // first player's view): the first player wins, with the 21st stone, only in the middle.
    assert_eq!(book.get(&Position::new()), Some(1));
    for (col, first_player) in [-2, -1, 0, 1, 0, -1, -2].into_iter().enumerate() {
        let mut pos = Position::new();
        pos.play_column(col);
        assert_eq!(
            book.get(&pos),
            Some(-first_player),
            "first move {}",
            col + 1
        );
    }
    // A sample of deeper positions, solved again on an empty table: named ones, and random
    // ones with 6 to 8 stones (`bench::sample`, the seed the stones).
    let mut solver = Solver::new(64).expect("64 MiB");
    for seq in [
        "4453", "1234", "7767", "335", "26", "444444", "7654321", "44443333",
    ] {
        let pos = Position::from_moves(seq).expect("valid");
        solver.reset();
        assert_eq!(
            book.get(&pos),
            Some(solver.solve(&pos, Strength::Strong)),
            "{seq}"
        );
    }
    for stones in 6..=8 {
        let set = transpo_connect4::bench::sample::<7, 6, u64>(stones, 3, stones.into(), |pos| {
            solver.reset();
            solver.solve(pos, Strength::Strong)
        });
        assert_eq!(set.len(), 3, "{stones} stones");
        for (moves, score) in set {
            let pos = Position::from_moves(&moves).expect("a sampled position");
            assert_eq!(book.get(&pos), Some(score), "{moves}");
        }
    }
}

/// `Solver::waited` counts the team's time without work: nothing on one thread, and on a
/// team something (helpers look for work before the first split point exists), never more
/// than the threads' time; a reset zeroes it.
#[test]
fn only_a_team_waits_for_work() {
    let (moves, score, _) = facts()
        .into_iter()
        .max_by_key(|(moves, _, _)| std::cmp::Reverse(moves.len()))
        .expect("facts");
    let pos = Position::from_moves(moves).expect("valid");
    for threads in [1, 3] {
        let mut solver = Solver::new(4).expect("4 MiB");
        solver.set_threads(threads).expect("helper tables");
        solver.set_parallel_after(0);
        solver.set_split_empty(4);
        let started = std::time::Instant::now();
        assert_eq!(solver.solve(&pos, Strength::Strong), score, "{moves}");
        let (waited, spent) = (solver.waited(), started.elapsed());
        if threads == 1 {
            assert_eq!(waited, std::time::Duration::ZERO);
        } else {
            assert!(waited > std::time::Duration::ZERO, "{moves}");
        }
        assert!(waited <= spent * threads as u32, "{waited:?} of {spent:?}");
        solver.reset();
        assert_eq!(solver.waited(), std::time::Duration::ZERO);
    }
}
