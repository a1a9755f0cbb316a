//! `bench`: a fixed-depth search of fixed positions, for speed and for a node-count signature.
//!
//! OpenBench convention: the last line is `N nodes N nps`. The table (if any) is cleared
//! before each position, so every position's count is reproducible on its own; at one thread
//! the total is deterministic and changes only when the search changes.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use transpo::{ChessEntry, Table};

use crate::bench_positions::POSITIONS;
use crate::search::{Control, Limits, SearchConfig, Searcher, smp_nps};
use transpo_chess::Position;

/// Depth `bench` searches to by default.
pub const DEFAULT_DEPTH: u32 = 10;

/// What a bench run measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes over all positions.
    pub nodes: u64,
    /// Time over all positions.
    pub time: Duration,
    /// Table moves that failed the legality check, over all positions.
    pub tt_move_failures: u64,
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        smp_nps(self.nodes, self.time)
    }
}

/// Searches every bench position to `depth` with `config`, on `table` (cleared before each
/// position) or without one, writing one line per position and the final `N nodes N nps`.
pub fn run(
    depth: u32,
    config: SearchConfig,
    table: Option<&Table<ChessEntry>>,
    out: &mut impl Write,
) -> io::Result<BenchResult> {
    run_with_control(depth, config, table, out, Arc::default())
}

/// [`run`] stopped through `control`: a stop ends the current position's search at once and
/// the bench after it, with `info string bench stopped` instead of the final line.
pub fn run_with_control(
    depth: u32,
    config: SearchConfig,
    table: Option<&Table<ChessEntry>>,
    out: &mut impl Write,
    control: Arc<Control>,
) -> io::Result<BenchResult> {
    let searcher = Searcher::with_control(config, Arc::clone(&control));
    let mut total = BenchResult {
        nodes: 0,
        time: Duration::ZERO,
        tt_move_failures: 0,
    };
    for (index, fen) in POSITIONS.iter().enumerate() {
        if control.is_stopped() {
            writeln!(out, "info string bench stopped after {index} positions")?;
            out.flush()?;
            return Ok(total);
        }
        let Ok(mut pos) = Position::from_fen(fen) else {
            writeln!(
                out,
                "info string error: bench position {} does not parse",
                index + 1
            )?;
            continue;
        };
        if let Some(table) = table {
            table.clear();
        }
        let start = Instant::now();
        let result = searcher.search(&mut pos, &Limits::depth(depth), table, &mut |_| {});
        let time = start.elapsed();
        total.nodes += result.nodes;
        total.time += time;
        total.tt_move_failures += result.tt_move_failures;
        writeln!(
            out,
            "position {:2}/{}: bestmove {} score {} depth {} nodes {} qnodes {} time {} ms",
            index + 1,
            POSITIONS.len(),
            result.best_move_uci().as_deref().unwrap_or("0000"),
            result.score,
            result.depth,
            result.nodes,
            result.qnodes,
            time.as_millis()
        )?;
    }
    writeln!(out, "{} nodes {} nps", total.nodes, total.nps())?;
    out.flush()?;
    Ok(total)
}
