//! `perft` (leaf counts per move, like Stockfish's `go perft`) and `bench-perft` (what
//! the position's bookkeeping costs against plain cozy-chess move generation).

use std::io::Write;
use std::time::{Duration, Instant};

use clap::Args;
use transpo_chess::{Position, perft};

use super::{Failure, position_from};

/// Perft depths, 0 to the deepest perft ([`perft::MAX_DEPTH`]).
fn perft_depth_range() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(0..=i64::from(perft::MAX_DEPTH))
}

/// The arguments of `perft`.
#[derive(Args, Clone, Debug)]
pub struct PerftArgs {
    /// Depth in plies, 0 to 12.
    #[arg(value_parser = perft_depth_range())]
    pub depth: u32,
    /// Position as FEN (the start position if absent); may be given unquoted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub fen: Vec<String>,
}

impl PerftArgs {
    /// Writes each move's leaf count, a blank line and `Nodes searched: N` to `out`.
    pub fn run(&self, out: &mut impl Write) -> Result<(), Failure> {
        let mut pos = position_from(&self.fen)?;
        crate::uci::write_divide(&mut pos, self.depth, out)?;
        Ok(())
    }
}

/// The arguments of `bench-perft`.
#[derive(Args, Clone, Debug)]
pub struct BenchPerftArgs {
    /// Depth in plies, 0 to 12.
    #[arg(default_value_t = 5, value_parser = perft_depth_range())]
    pub depth: u32,
    /// Runs of each variant, 1 to 1000; the fastest run counts.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Position as FEN (the start position if absent).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub fen: Vec<String>,
}

impl BenchPerftArgs {
    /// Times the perft variants and writes the report to `out`.
    pub fn run(&self, out: &mut impl Write) -> Result<(), Failure> {
        let mut pos = position_from(&self.fen)?;
        let timing = PerftTiming::measure(&mut pos, self.depth, self.repeat);
        timing.write(&pos, out)?;
        Ok(())
    }
}

/// One perft variant's fastest run: its time and the leaves it counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// The fastest run's time.
    pub time: Duration,
    /// The leaves counted (the same for every variant of one position and depth).
    pub nodes: u64,
}

impl Run {
    /// Millions of leaves a second.
    pub fn mnps(&self) -> f64 {
        self.nodes as f64 / self.time.as_secs_f64() / 1e6
    }

    /// Keeps the faster of this run and a new run of `count`.
    fn best_of(&mut self, count: impl FnOnce() -> u64) {
        let start = Instant::now();
        self.nodes = count();
        self.time = self.time.min(start.elapsed());
    }
}

/// The perft variants of one position, timed: plain cozy-chess copy-make, the same reading
/// cozy's own hash, with the incremental Polyglot key, and through [`Position`] (key and
/// history, play/undo).
#[derive(Clone, Copy, Debug)]
pub struct PerftTiming {
    /// Depth in plies.
    pub depth: u32,
    /// Runs of each variant.
    pub repeat: u32,
    /// Plain cozy-chess copy-make.
    pub plain: Run,
    /// Copy-make reading cozy's own hash.
    pub cozy_hash: Run,
    /// Copy-make with the incremental key.
    pub keyed: Run,
    /// [`Position`] play/undo.
    pub position: Run,
}

impl PerftTiming {
    /// Runs each variant `repeat` times (at least once) to `depth`, interleaved so that
    /// load from other processes hits all alike; the fastest run of each counts.
    pub fn measure(pos: &mut Position, depth: u32, repeat: u32) -> Self {
        let board = pos.board().clone();
        let key = pos.key();
        let unrun = Run {
            time: Duration::MAX,
            nodes: 0,
        };
        let mut timing = PerftTiming {
            depth,
            repeat,
            plain: unrun,
            cozy_hash: unrun,
            keyed: unrun,
            position: unrun,
        };
        for _ in 0..repeat.max(1) {
            timing
                .plain
                .best_of(|| perft::perft_plain_make_all(&board, depth));
            timing
                .cozy_hash
                .best_of(|| perft::perft_plain_hash_make_all(&board, depth));
            timing
                .keyed
                .best_of(|| perft::perft_keyed_make_all(&board, key, depth));
            timing
                .position
                .best_of(|| perft::perft_make_all(pos, depth));
        }
        timing
    }

    /// What `variant` costs against plain copy-make, in percent of its speed.
    pub fn cost(&self, variant: Run) -> f64 {
        (1.0 - variant.mnps() / self.plain.mnps()) * 100.0
    }

    /// Writes the report: the position and count, then each variant's speed and cost.
    pub fn write(&self, pos: &Position, out: &mut impl Write) -> std::io::Result<()> {
        let (depth, repeat) = (self.depth, self.repeat);
        let plain = self.plain;
        writeln!(
            out,
            "perft {depth} of {}: {} nodes, best of {repeat}",
            pos.fen(),
            plain.nodes
        )?;
        writeln!(
            out,
            "plain cozy-chess copy-make:         {:8.2} Mnps  {:?}",
            plain.mnps(),
            plain.time
        )?;
        for (label, variant, what) in [
            (
                "copy-make, reading cozy's own hash: ",
                self.cozy_hash,
                "costs",
            ),
            (
                "copy-make + incremental key:        ",
                self.keyed,
                "key costs",
            ),
            (
                "Position play/undo (key + history): ",
                self.position,
                "costs",
            ),
        ] {
            writeln!(
                out,
                "{label}{:8.2} Mnps  {:?}  {what} {:5.1}%",
                variant.mnps(),
                variant.time,
                self.cost(variant)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_perft_variant_counts_the_same_leaves() {
        let mut pos = Position::startpos();
        let timing = PerftTiming::measure(&mut pos, 3, 1);
        for run in [
            timing.plain,
            timing.cozy_hash,
            timing.keyed,
            timing.position,
        ] {
            assert_eq!(run.nodes, 8_902);
            assert!(run.time < Duration::MAX);
        }
        assert_eq!(pos.fen(), Position::startpos().fen());
        let mut report = Vec::new();
        timing.write(&pos, &mut report).unwrap();
        let report = String::from_utf8(report).unwrap();
        assert!(
            report.starts_with("perft 3 of rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1: 8902 nodes, best of 1\n"),
            "{report}"
        );
        assert_eq!(report.lines().count(), 5, "{report}");
        assert!(report.contains("key costs"), "{report}");
    }

    #[test]
    fn perft_writes_the_divide_and_an_illegal_fen_is_bad_input() {
        let args = PerftArgs {
            depth: 1,
            fen: Vec::new(),
        };
        let mut out = Vec::new();
        args.run(&mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.ends_with("\nNodes searched: 20\n"), "{out}");
        let bad = BenchPerftArgs {
            depth: 1,
            repeat: 1,
            fen: vec!["not".into(), "a".into(), "fen".into()],
        };
        assert_eq!(bad.run(&mut Vec::new()).unwrap_err().exit_code(), 2);
    }
}
