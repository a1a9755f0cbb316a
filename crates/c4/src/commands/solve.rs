//! `transpo-c4` with no command: the line protocol from stdin to stdout
//! ([`transpo_connect4::protocol`]), bad lines and a long solve's progress on stderr.

use super::Solving;
use std::io;
use transpo_cli::{Failure, check_stdin};
use transpo_connect4::position::Bitboard;
use transpo_connect4::protocol::{self, Options};
use transpo_connect4::search::Step;

/// `transpo-c4` with no command: the line protocol ([`protocol::run`]) from stdin to stdout,
/// bad lines and a long solve's progress on stderr.
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    analyze: bool,
) -> Result<(), Failure> {
    check_stdin().map_err(Failure::usage)?;
    let options = Options {
        strength: solving.strength,
        analyze,
    };
    let mut solver = solving.solver()?;
    // A long solve says how its score search goes, so a user knows it is alive.
    solver.set_progress(Box::new(report_step));
    let summary = protocol::run(
        &mut solver,
        io::stdin().lock(),
        io::stdout().lock(),
        io::stderr(),
        options,
    )
    .map_err(|e| Failure::run(format!("standard input or output: {e}")))?;
    summary
        .failed_check()
        .map_or(Ok(()), |e| Err(Failure::run(e)))
}

/// Tells stderr of a step of a long solve's score search: a window still searched, or one
/// answered after the first second.
fn report_step(step: &Step) {
    let (what, seconds) = (step.window, step.elapsed.as_secs_f64());
    if !step.answered {
        eprintln!(
            "  window {what:+}: searching, score in {}..={}, {seconds:.1} s, {} positions",
            step.min, step.max, step.nodes
        );
    } else if step.elapsed >= std::time::Duration::from_secs(1) {
        eprintln!(
            "  window {what:+}: score in {}..={}, {seconds:.1} s, {} positions",
            step.min, step.max, step.nodes
        );
    }
}
