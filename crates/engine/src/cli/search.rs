//! `bench` (the bench positions to a depth: the search's node-count signature and its
//! speed) and `analyse` (one position, UCI-style info lines and `bestmove`).

use std::io::Write;
use std::time::Duration;

use clap::Args;

use super::{Failure, depth_range, hash_range, position_from, switch_off, table_of, threads_range};
use crate::search::{Limits, Profile, SearchConfig, Searcher};

/// `analyse`'s depth when no limit is given.
pub const ANALYSE_DEPTH: u32 = 14;

/// The arguments of `bench`.
#[derive(Args, Clone, Debug)]
pub struct BenchArgs {
    /// Depth in plies, 1 to 100.
    #[arg(default_value_t = crate::bench::DEFAULT_DEPTH, value_parser = depth_range())]
    pub depth: u32,
    /// Table size in MiB, 0 to 65536; 0 searches without a table.
    #[arg(long, default_value_t = 16, value_parser = hash_range())]
    pub hash: u64,
    /// Search threads, 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = threads_range())]
    pub threads: u64,
    /// Search profile: full or paper.
    #[arg(long, default_value = "full")]
    pub profile: Profile,
    /// Features of the profile to switch off, comma-separated (e.g. `lmr,killers`).
    #[arg(long, value_delimiter = ',')]
    pub without: Vec<String>,
}

impl BenchArgs {
    /// The search configuration: the profile's features less `without`, on `threads`.
    pub fn config(&self) -> Result<SearchConfig, Failure> {
        let mut config = SearchConfig {
            // In range: clap checked 1..=MAX_THREADS.
            threads: self.threads as usize,
            ..SearchConfig::with_profile(self.profile)
        };
        switch_off(&mut config, &self.without)?;
        Ok(config)
    }

    /// Searches the bench positions, one line each to `out`, then `N nodes N nps`.
    pub fn run(&self, out: &mut impl Write) -> Result<(), Failure> {
        let config = self.config()?;
        let table = table_of(self.hash, self.profile)?;
        crate::bench::run(self.depth, config, table.as_ref(), out)?;
        Ok(())
    }
}

/// The arguments of `analyse`.
#[derive(Args, Clone, Debug)]
pub struct AnalyseArgs {
    /// Search to this depth, 1 to 100 (the default when no limit is given: 14).
    #[arg(long, value_parser = depth_range())]
    pub depth: Option<u32>,
    /// Search this many milliseconds, 1 to 2⁶³ − 1.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
    /// Search this many nodes, 1 to 2⁶³ − 1.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Table size in MiB, 0 to 65536; 0 searches without a table.
    #[arg(long, default_value_t = 64, value_parser = hash_range())]
    pub hash: u64,
    /// Search threads, 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = threads_range())]
    pub threads: u64,
    /// Search profile: full or paper.
    #[arg(long, default_value = "full")]
    pub profile: Profile,
    /// Position as FEN (the start position if absent); may be given unquoted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub fen: Vec<String>,
}

impl AnalyseArgs {
    /// The search's limits: those given, or [`ANALYSE_DEPTH`] when none is.
    pub fn limits(&self) -> Limits {
        let mut limits = Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            ..Limits::default()
        };
        if self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none() {
            limits.depth = Some(ANALYSE_DEPTH);
        }
        limits
    }

    /// Searches the position, writing each iteration's info line and then `bestmove` (`0000`
    /// when there is no legal move) to `out`.
    pub fn run(&self, out: &mut impl Write) -> Result<(), Failure> {
        let mut pos = position_from(&self.fen)?;
        let table = table_of(self.hash, self.profile)?;
        let config = SearchConfig {
            // In range: clap checked 1..=MAX_THREADS.
            threads: self.threads as usize,
            move_overhead: Duration::ZERO,
            ..SearchConfig::with_profile(self.profile)
        };
        // The first failed write is kept; the search goes on (it cannot be told to stop from
        // here) and the failure is reported when it returns.
        let mut written = Ok(());
        let result =
            Searcher::new(config).search(&mut pos, &self.limits(), table.as_ref(), &mut |info| {
                if written.is_ok() {
                    written = writeln!(out, "{info}");
                }
            });
        written?;
        let best = result.best_move_uci();
        writeln!(out, "bestmove {}", best.as_deref().unwrap_or("0000"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `analyse` or `bench` as the binary parses them.
    #[derive(Parser)]
    enum Command {
        Analyse(AnalyseArgs),
        Bench(BenchArgs),
    }

    fn parse(line: &str) -> Command {
        Command::try_parse_from(std::iter::once("test").chain(line.split(' ')))
            .expect("a good command line")
    }

    #[test]
    fn analyse_searches_to_depth_14_unless_told_otherwise() {
        let Command::Analyse(args) = parse("analyse") else {
            unreachable!("parsed as analyse")
        };
        assert_eq!(args.limits().depth, Some(ANALYSE_DEPTH));
        let Command::Analyse(args) = parse("analyse --nodes 500") else {
            unreachable!("parsed as analyse")
        };
        let limits = args.limits();
        assert_eq!((limits.depth, limits.nodes), (None, Some(500)));
    }

    #[test]
    fn analyse_finds_a_mate_in_one_and_says_bestmove() {
        let Command::Analyse(args) =
            parse("analyse --depth 3 --hash 1 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
        else {
            unreachable!("parsed as analyse")
        };
        let mut out = Vec::new();
        args.run(&mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.ends_with("bestmove a1a8\n"), "{out}");
        assert!(out.lines().count() >= 2, "{out}");
    }

    #[test]
    fn bench_switches_features_off_and_refuses_unknown_ones() {
        let Command::Bench(args) = parse("bench 2 --profile paper --without lmr,killers") else {
            unreachable!("parsed as bench")
        };
        let config = args.config().unwrap();
        assert_eq!(config.profile, Profile::Paper);
        assert!(!config.features.lmr && !config.features.killers);
        let Command::Bench(args) = parse("bench 2 --without nonsense") else {
            unreachable!("parsed as bench")
        };
        assert_eq!(args.run(&mut Vec::new()).unwrap_err().exit_code(), 2);
    }
}
