//! The UCI loop of the `transpo-chess` binary.
//!
//! [`UciSession::handle_line`] takes one line and a writer for the immediate answers, so
//! tests can drive it without I/O. A search runs in its own thread and writes its `info` and
//! `bestmove` lines through a shared [`Output`], so the loop keeps reading: `isready` is
//! answered at once during a search and `stop` within milliseconds. Commands that change
//! what a search uses (`ucinewgame`, `setoption`, `loadhash`, `go`, `bench`) first stop and
//! join the running search. A malformed or unknown line is answered with
//! `info string error: ...` and the loop goes on; no input makes it panic, and `bestmove` is
//! always a legal move (or `0000` when there is none). A line longer than
//! [`MAX_LINE_BYTES`] or not UTF-8 is answered `info string error: line N: line too long
//! (over 1048576 bytes)` or `... line N: not UTF-8` and skipped, so endless input
//! (`/dev/zero`) is read in bounded memory.
//!
//! Nothing a line asks for can hang the loop: every long command (`go`, `perft`, `go perft`,
//! `bench`) runs in the search thread, where `stop`, `quit`, a new command that needs the
//! thread, or the end of input ends it. Should the search itself panic (it must not; this is
//! the last line of defence), the thread reports `info string error: ...` and still answers
//! `bestmove` with a legal move, so a GUI is never left waiting. Every numeric argument has a
//! checked range, stated in the error that rejects it (which quotes the value as typed:
//! `"go mate -1": must be 1 to 50 moves`) and, for options, in the `uci` answer.
//! Every `go` (but `go perft`) ends in exactly one `bestmove`, however malformed: a
//! parameter that is unknown, lacks its number or has one out of range is reported with
//! `info string error: ...` and the line is answered from a depth-1 search at once (no
//! `stop` needed, `infinite` and `ponder` dropped). `go searchmoves M1 M2 ...` (the moves up
//! to the next parameter) searches only those root moves; a word that is no legal move is
//! reported and left out, and when none is left every move is searched, which is said too.
//! Without a legal move the answer is `bestmove 0000`.
//!
//! | argument | range |
//! |---|---|
//! | `go depth` | 1 to [`MAX_DEPTH`](crate::search::MAX_DEPTH) |
//! | `go mate` | 1 to [`MAX_GO_MATE`] |
//! | `go nodes` | 1 to 2⁶³ − 1 |
//! | `go wtime btime winc binc movetime` (ms) | any whole number up to 2⁶³ − 1; negative clocks (a flagging GUI) read as 0 |
//! | `go movestogo` | any whole number up to 2⁶³ − 1 (negative read as 0; 0 and values above 60 are clamped to 1 and 60) |
//! | `perft`, `go perft` | 0 to [`MAX_PERFT_DEPTH`] |
//! | `bench` | 1 to [`MAX_DEPTH`](crate::search::MAX_DEPTH) |
//! | options | the `min`/`max` of the `uci` answer |
//!
//! [`SessionLimits`] narrows these further, for a fuzz target or a shared server: a cap on
//! the table size, threads, nodes per search and perft and bench depths, and no file access.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `position startpos|fen <FEN> [moves ...]`,
//! `go [wtime|btime|winc|binc|movestogo|movetime|nodes|depth|mate N] [infinite] [ponder]
//! [searchmoves M ...]`,
//! `go perft N`, `stop`, `ponderhit`, `setoption name <NAME> [value <VALUE>]`, `quit`, and
//! Stockfish's extras `d`, `eval`, `bench [DEPTH]`, `perft N`, plus `savehash FILE` and
//! `loadhash FILE` (the table's persistence).
//!
//! Modules: `session` (the conversation: one line at a time), `options` (the options, their
//! limits and `setoption`), `parse` (the arguments of `go`, `position`, `perft`, `bench`),
//! `search_thread` (the thread where `go`, `perft` and `bench` run) and `output` (the writer
//! the loop and that thread share).

mod lag;
mod options;
mod output;
mod parse;
mod search_thread;
mod session;
#[cfg(test)]
mod tests;

use std::io::{self, BufRead, Write};

use transpo_files::Lines;

pub use options::{
    DEFAULT_HASH_MIB, MAX_HASH_MIB, MAX_MOVE_OVERHEAD_MS, MAX_PERFT_DEPTH, MAX_THREADS, Options,
    SessionLimits,
};
pub use output::Output;
pub use parse::{GoRequest, MAX_GO_MATE, parse_go};
pub use search_thread::{write_divide, write_divide_until};
pub use session::{Flow, UciSession};

/// The longest input line the loop reads, in bytes (1 MiB). A legal game's
/// `position startpos moves ...` line can reach about 90 KB (thousands of plies of five
/// bytes), so no real line comes near it; a longer line is read and dropped as it comes (an
/// endless one, `transpo-chess < /dev/zero`, costs no more memory than this), answered with
/// `info string error: line N: line too long (over 1048576 bytes)`, and the loop goes on.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Runs the loop until `quit` or the end of input (which also stops a running search).
pub fn run(input: impl BufRead, out: impl Write + Send + 'static) -> io::Result<()> {
    run_with_limits(input, out, SessionLimits::default())
}

/// [`run`] within `limits`: the entry point for a fuzz target, with
/// [`SessionLimits::fuzz`]. Any bytes as input end in bounded time: lines are handled as
/// they come, long commands run in the search thread, and at the end of input (or `quit`)
/// the running command is stopped and joined (a `go infinite` answers `bestmove`) before
/// this returns. Each line is read with a cap of [`MAX_LINE_BYTES`], so no input makes it
/// hold more than that.
pub fn run_with_limits(
    input: impl BufRead,
    out: impl Write + Send + 'static,
    limits: SessionLimits,
) -> io::Result<()> {
    let output = Output::new(out);
    let mut session = UciSession::with_limits(output.clone(), limits);
    for line in Lines::new(input, MAX_LINE_BYTES) {
        let line = line?;
        let mut answer = Vec::new();
        let flow = match line.text {
            Ok(text) => session.handle_line(&text, &mut answer)?,
            Err(bad) => {
                // Too long (its bytes were read and dropped) or not UTF-8: said, and skipped.
                writeln!(answer, "info string error: line {}: {bad}", line.number)?;
                Flow::Continue
            }
        };
        output.write_all(&answer)?;
        if flow == Flow::Quit {
            break;
        }
    }
    drop(session);
    Ok(())
}
