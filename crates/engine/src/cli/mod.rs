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
//! that cannot be written to. The message goes to stderr as `error: …` ([`exit_status`]).
//! The UCI loop is no such command: it never exits on bad input, it answers
//! `info string error: …` and goes on.

pub mod games;
pub mod perft;
pub mod search;
pub mod tune;

use std::fmt;
use std::process::ExitCode;

use transpo::{ChessEntry, Table};
use transpo_chess::Position;

use crate::search::{Profile, SearchConfig};

/// The exit status of `transpo-chess`, as its `--help` states it.
pub const EXIT_STATUS: &str = concat!(
    "Exit status:\n",
    "  0  success\n",
    "  1  a failed check or a failure while running (I/O, a table the machine cannot give)\n",
    "  2  bad usage or bad input: a malformed command line, an illegal FEN, an unknown\n",
    "     feature, an input file that cannot be read or is malformed, an output path that\n",
    "     cannot be written to\n",
    "Errors go to stderr as `error: ...`. The UCI loop never exits on bad input: it answers\n",
    "`info string error: ...` and goes on.",
);

/// Why a command failed, which decides the exit status (see the module docs).
#[derive(Debug)]
pub enum Failure {
    /// Bad usage or bad input (exit status 2): nothing was done, the command line or a file
    /// it names must change.
    Usage(String),
    /// A failed check or a failure while running (exit status 1): I/O, memory.
    Run(String),
}

impl Failure {
    /// Bad usage or bad input.
    pub fn usage(message: impl fmt::Display) -> Self {
        Failure::Usage(message.to_string())
    }

    /// A failed check or a failure while running.
    pub fn run(message: impl fmt::Display) -> Self {
        Failure::Run(message.to_string())
    }

    /// The exit status: 2 for [`Failure::Usage`], 1 for [`Failure::Run`].
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Run(_) => 1,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(message) | Failure::Run(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Failure {}

/// Writing a command's output failed while running (stdout closed, a full disk). (The
/// files a command names map their errors themselves, naming the file.)
impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::run(format!("cannot write the output: {e}"))
    }
}

/// The table could not be had (the machine cannot give its memory).
impl From<transpo::Error> for Failure {
    fn from(e: transpo::Error) -> Self {
        Failure::run(e)
    }
}

/// How the process ends after a command: success, or `error: MESSAGE` on stderr and the
/// failure's status.
pub fn exit_status(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}

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
