//! Connect Four input lines, as `transpo-c4` reads them on stdin: every line through
//! `protocol::parse_line`, and each position it accepts through the `Position` operations the
//! solver uses. Lines that fail to parse, and positions with at least 36 stones (6 empty
//! squares or fewer, solved in a few hundred positions explored), also go through `protocol::run`
//! with a 1 MiB table, strong and weak, plain and `--analyze`. Emptier positions are parsed
//! and exercised but not solved: from 30 stones a solve could take milliseconds, which kept
//! this target at a tenth of the others' speed.
//! Every line is also parsed on another board, picked by the input's first byte among the 42
//! (`--board WxH`), and its position exercised there.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use transpo_connect4::{
    Solver, Strength,
    board::Board,
    protocol::{Options, parse_line, run},
    position::Position,
    with_board,
};

/// The fewest stones of a position the target solves (lines with fewer are still parsed).
const SOLVE_FROM: u32 = 36;

thread_local! {
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new(1).expect("a 1 MiB table"));
}

fuzz_target!(|data: &[u8]| {
    let mut to_solve = Vec::new();
    let mut fed = 0;
    let board = Board::ALL[usize::from(data.first().copied().unwrap_or(0)) % Board::ALL.len()];
    for line in data.split(|&b| b == b'\n').take(32) {
        let text = String::from_utf8_lossy(line);
        with_board!(board, parse_on(&text), else ());
        match parse_line::<7, 6>(&text) {
            Ok(problem) => {
                exercise(&problem.position);
                if problem.position.moves() >= SOLVE_FROM {
                    to_solve.extend_from_slice(line);
                    to_solve.push(b'\n');
                    fed += 1;
                }
            }
            Err(e) => {
                let _ = e.to_string();
                to_solve.extend_from_slice(line);
                to_solve.push(b'\n');
                fed += 1;
            }
        }
    }
    let flags = data.first().copied().unwrap_or(0);
    let options = Options {
        strength: if flags & 1 == 0 {
            Strength::Strong
        } else {
            Strength::Weak
        },
        analyze: flags & 2 != 0,
    };
    SOLVER.with_borrow_mut(|solver| {
        // Lines that are not UTF-8 or too long are reported and skipped, as on stdin: the run
        // reads every line, and each is solved or rejected.
        let summary = run(
            solver,
            to_solve.as_slice(),
            std::io::sink(),
            std::io::sink(),
            options,
        )
        .expect("no I/O error from memory to sinks");
        assert_eq!(summary.solved + summary.rejected, fed);
    });
});

/// `text` parsed as a line of the board `W`×`H`, and its position exercised.
fn parse_on<const W: usize, const H: usize>(text: &str) {
    match parse_line::<W, H>(text) {
        Ok(problem) => exercise(&problem.position),
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// The position operations the solver relies on, with their invariants.
fn exercise<const W: usize, const H: usize>(pos: &Position<W, H>) {
    let possible = pos.possible();
    let _ = (pos.key(), pos.can_win_next(), pos.opponent_winning());
    assert_eq!(pos.mirror().mirror(), *pos);
    assert_eq!(pos.symmetric_key(), pos.mirror().symmetric_key());
    assert_eq!(pos.non_losing_moves() & !possible, 0);
    for col in 0..W {
        if !pos.can_play(col) {
            continue;
        }
        let _ = pos.is_winning_move(col);
        let mut next = *pos;
        next.play_column(col);
        assert_eq!(next.moves(), pos.moves() + 1);
        let _ = (next.key(), next.possible(), next.symmetric_key());
    }
}
