//! One big solve spread over many machines, in rounds of three steps that any batch scheduler
//! can run (Slurm job arrays, GNU parallel over ssh; the README shows both):
//!
//! 1. `transpo-c4 split --board WxH --depth D --out DIR` writes `DIR/positions.txt`, the
//!    split ([`Split`]: the root, the depth, weak or strong, and the leaves of the [`Tree`]
//!    of the root down to `D` stones, one of each mirror pair and transposition), and round
//!    1's list, `DIR/round-1.txt` ([`Round`]): the leaves to search, each with the window
//!    the root's minimax needs of it.
//! 2. `transpo-c4 solve-list DIR --shard I/N` searches the `I`-th of `N` shares of the
//!    current round's list ([`Round::owners`]: neighbours together), each position with its
//!    window, and appends `moves lo..hi nodes micros check` lines (the score lies in
//!    `lo..=hi`) to `DIR/round-K-results-I-of-N.txt` ([`Results`]), each line in one
//!    write: a shard killed at any moment and started again goes on after its last complete
//!    line (or, killed before its header was whole, starts over). A run holds an advisory
//!    lock on its results file, so a second run of the same shard is refused instead of
//!    interleaving its lines with the first's.
//! 3. `transpo-c4 merge DIR` reads every round's results into the top tree ([`Plan`]) and
//!    either prints the root's line (exit status 0) or writes the next round's list, the
//!    leaves whose bounds still matter with their new windows, and exits with status 3
//!    ("more work": run step 2 and 3 again). A shard missing, incomplete, or with a corrupt
//!    line is named: missing or incomplete is more work too (3), corrupt or foreign is bad
//!    input (2).
//!
//! Why rounds: alpha-beta at the root needs most leaves not at all, and of the rest only a
//! bound on one side of a threshold; solving every leaf exactly (what one round did before)
//! searched 20 to 60 times the positions of one solve. [`Plan`] says how the top tree
//! chooses. `split --full-book` keeps the old way, every leaf solved exactly in one round, for
//! a book of the whole tree; otherwise a strong merge's book holds the positions whose exact
//! scores the rounds proved. With `--weak` the rounds prove only the root's outcome (win,
//! draw or loss), and the merge writes no book.
//!
//! The files on disk (the split and the rounds read and written, the results files of a
//! directory) are `split/files.rs`'s; a shard's run, its resume policy and its lock, is
//! [`ResultsFile`] and [`solve_shard`] (`split/solve_list.rs`); the merge of the rounds is
//! [`merge`] (`split/merge.rs`).
//!
//! Why files and not a network: a scheduler already knows how to run a command on many
//! machines and retry it; what it cannot do is share a table, and none is needed, since the
//! positions of a round are independent problems. Each file's header names the board, the
//! split or round it belongs to (by a checksum of its lines) and, for results, the round and
//! the shard, so results can never be merged into the wrong solve or round; each result line
//! carries a checksum of its move sequence and range.

use std::io;
use transpo_connect4::board::Board;

mod error;
mod files;
mod list;
mod merge;
mod plan;
mod results;
mod solve_list;

pub use error::SplitError;
pub use files::{current_round, list_board, results_files};
pub use list::{Round, Split};
pub use merge::{Merged, Outcome, merge};
pub use plan::{Next, Plan};
pub(crate) use plan::{settled, trivial, unsettled};
pub use results::{Results, Solved};
pub use solve_list::{
    ResultsFile, ShardRun, load_table, save_table, solve_shard, solve_shard_with, table_file,
};
pub use transpo_cli::Shard;
#[cfg(doc)]
use transpo_connect4::book::Tree;

/// The split's file in a split directory.
pub const LIST_FILE: &str = "positions.txt";
/// The first words of a split's header.
const SPLIT_MAGIC: &str = "# transpo-c4 split v2";
/// The first words of a split's header before rounds, refused with a clear message.
const SPLIT_MAGIC_V1: &str = "# transpo-c4 split v1";
/// The first words of a round's list.
const ROUND_MAGIC: &str = "# transpo-c4 round-list v3";
/// The first words of a round's list whose positions were dealt to shards one by one, by
/// their own hash (v2): refused, since its shards' results would not be found where this
/// version looks for them.
const ROUND_MAGIC_V2: &str = "# transpo-c4 round-list v2";
/// The first words of a results file's header.
const RESULTS_MAGIC: &str = "# transpo-c4 solve-list v2";
/// The first words of a results file's header before rounds.
const RESULTS_MAGIC_V1: &str = "# transpo-c4 solve-list v1";

/// The name of shard `shard`'s results file of round `round`:
/// `round-K-results-I-of-N.txt` (what [`parse_results_file_name`] reads back).
pub fn results_file_name(round: u32, shard: Shard) -> String {
    format!(
        "round-{round}-results-{}-of-{}.txt",
        shard.index, shard.count
    )
}

/// The round and shard a results file's name says, if it is one
/// ([`results_file_name`]'s inverse): `round-K-results-I-of-N.txt` with numbers, `I` in
/// `1..=N`.
pub fn parse_results_file_name(name: &str) -> Option<(u32, Shard)> {
    let rest = name.strip_prefix("round-")?.strip_suffix(".txt")?;
    let (round, shard) = rest.split_once("-results-")?;
    let (index, count) = shard.split_once("-of-")?;
    let round: u32 = round.parse().ok()?;
    let shard: Shard = format!("{index}/{count}").parse().ok()?;
    (results_file_name(round, shard) == name).then_some((round, shard))
}

/// What a file of the format before rounds is told.
const OLD_FORMAT: &str = "a split of the format before rounds (v1), which this version does not \
     read: split again into a new directory (the leaves are now searched in rounds; \
     `split --full-book` solves every leaf exactly, as v1 did)";

/// What a round's list of v2 is told.
const OLD_ROUND: &str = "a round's list of an earlier version (v2), which dealt the positions to \
     shards otherwise: finish this split with that version, or split again into a new directory";

/// The text of a line read by [`Lines`], or an error naming the line (or the read error).
fn line_text(line: io::Result<transpo_files::Line>) -> Result<String, String> {
    let line = line.map_err(|e| format!("read error: {e}"))?;
    line.text.map_err(|e| format!("line {}: {e}", line.number))
}

/// The value of `key` in a header's `key value` pairs.
fn header_field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let mut words = header.split_whitespace();
    while let Some(word) = words.next() {
        if word == key {
            return words.next();
        }
    }
    None
}

/// The board a split, round or results file is for, from its header (its first line), so
/// that a command can pick the solver compiled for it before reading the rest. A split of the
/// format before rounds is refused, with what to do.
pub fn board_of(text: &str) -> Result<Board, String> {
    let header = text.lines().next().unwrap_or_default();
    if header.starts_with(SPLIT_MAGIC_V1) || header.starts_with(RESULTS_MAGIC_V1) {
        return Err(OLD_FORMAT.into());
    }
    if header.starts_with(ROUND_MAGIC_V2) {
        return Err(OLD_ROUND.into());
    }
    if ![SPLIT_MAGIC, ROUND_MAGIC, RESULTS_MAGIC]
        .iter()
        .any(|magic| header.starts_with(magic))
    {
        return Err("not a transpo-c4 split, round or results file (no header)".into());
    }
    header_field(header, "board")
        .ok_or("the header names no board")?
        .parse()
        .map_err(|e| format!("header: {e}"))
}
