//! The commands of the `transpo-chess` binary, and how a command ends.
//!
//! The binary (`main.rs`) only dispatches: clap parses the command line into one of the
//! argument structs here (checking every number's range before anything runs) and calls
//! its `run`. What a command does — which position, which files, how a game's lines are
//! written, what counts as a failure — lives here, where unit tests reach it:
//! [`perft`] (`perft`, `bench-perft`), [`search`] (`bench`, `analyse`), [`games`]
//! (`selfplay`, `datagen`) and [`tune`] (`tune`).
//!
//! # Exit status
//!
//! `transpo-chess` follows the project's exit convention, [`EXIT_STATUS`]: 0 on success; 1
//! for a failed check or a failure while running (I/O, a table the machine cannot give); 2
//! for bad usage or bad input — a malformed command line (clap's message), an illegal FEN,
//! an unknown feature, an input file that cannot be read or is malformed, an output path
//! that cannot be written to, a table size the table refuses. The message goes to stderr as `error: …` ([`exit_status`]).
//! The UCI loop is no such command: it never exits on bad input, it answers
//! `info string error: …` and goes on.

pub mod games;
pub mod perft;
pub mod search;
pub mod tune;

use transpo::{ChessEntry, Table};
use transpo_chess::Position;

use crate::search::{Profile, SearchConfig};

/// The project's convention, written once for every binary (`transpo-cli`): the failure a
/// command returns, the status it gives, and the `--help` text that states it.
pub use transpo_cli::{EXIT_STATUS, Failure, exit_status};

/// Search depths: 1 to the search's maximum.
fn depth_range() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=i64::from(crate::search::MAX_DEPTH))
}

/// Table sizes in MiB: 0 to the UCI maximum.
fn hash_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(0..=crate::uci::MAX_HASH_MIB)
}

/// Threads: 1 to the UCI maximum.
fn threads_range() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=crate::uci::MAX_THREADS as u64)
}

/// The position of a command line's FEN words, joined by spaces (so that a FEN may be given
/// unquoted); the start position when there are none. An illegal FEN is bad input.
pub fn position_from(fen: &[String]) -> Result<Position, Failure> {
    if fen.is_empty() {
        Ok(Position::startpos())
    } else {
        Position::from_fen(&fen.join(" ")).map_err(Failure::usage)
    }
}

/// Switches off the features named in `without`; an unknown name is bad usage.
pub fn switch_off(config: &mut SearchConfig, without: &[String]) -> Result<(), Failure> {
    without
        .iter()
        .try_for_each(|name| config.features.set(name, false))
        .map_err(Failure::usage)
}

/// The table for a Hash size in MiB and the profile's scheme: none for 0. A size the
/// machine cannot give is a failure while running.
pub fn table_of(mib: u64, profile: Profile) -> Result<Option<Table<ChessEntry>>, Failure> {
    match mib {
        0 => Ok(None),
        mib => Ok(Some(crate::search::engine_table(mib, profile.scheme())?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_say_their_exit_status() {
        assert_eq!(Failure::usage("bad FEN").exit_code(), 2);
        assert_eq!(Failure::run("disk full").exit_code(), 1);
        let io: Failure = std::io::Error::other("broken pipe").into();
        assert_eq!(io.exit_code(), 1);
        assert_eq!(io.to_string(), "cannot write the output: broken pipe");
    }

    #[test]
    fn positions_come_from_fen_words_or_the_start() {
        assert_eq!(
            position_from(&[]).unwrap().fen(),
            Position::startpos().fen()
        );
        let words: Vec<String> = "8/8/8/8/8/8/8/K1k5 w - - 0 1"
            .split(' ')
            .map(String::from)
            .collect();
        assert_eq!(
            position_from(&words).unwrap().fen(),
            "8/8/8/8/8/8/8/K1k5 w - - 0 1"
        );
        let kings_touching: Vec<String> = "8/8/8/8/8/8/8/Kk6 w - - 0 1"
            .split(' ')
            .map(String::from)
            .collect();
        let failure = position_from(&kings_touching).unwrap_err();
        assert_eq!(failure.exit_code(), 2, "{failure}");
        assert!(failure.to_string().contains("side by side"), "{failure}");
    }

    #[test]
    fn unknown_features_are_bad_usage() {
        let mut config = SearchConfig::default();
        switch_off(&mut config, &["lmr".into(), "killers".into()]).unwrap();
        assert!(!config.features.lmr && !config.features.killers);
        let failure = switch_off(&mut config, &["lrm".into()]).unwrap_err();
        assert_eq!(failure.exit_code(), 2);
        assert!(failure.to_string().contains("unknown feature"), "{failure}");
    }

    #[test]
    fn a_hash_of_zero_is_no_table() {
        assert!(table_of(0, Profile::Full).unwrap().is_none());
        assert!(table_of(1, Profile::Paper).unwrap().is_some());
    }
}
