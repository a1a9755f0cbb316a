//! How a `transpo-c4` command ends: the exit convention, one for every binary of the project
//! (`transpo-chess` and `transpo-lab` state the same), and the failure that decides it.
//!
//! Why in the library: the command's policies that can fail for different reasons (a shard's
//! results file refused or unwritable, a merge that lacks a shard) live here, beside what they
//! use, and say which failure it is where unit tests reach them; the binary only prints it.
//!
//! | status | when |
//! |---|---|
//! | 0 | success |
//! | 1 | a failed check (a line rejected or scored other than expected) or a failure while running (I/O, memory) |
//! | 2 | bad usage or bad input: a malformed command line, a file that cannot be read or is malformed, a path that cannot be written to, a shard another run holds |
//! | 3 | `merge` only: more work — the next round's list written, or a shard of the current round missing or unfinished |
//!
//! The message goes to stderr as `error: …` ([`exit_status`]).

use crate::bounds::TableError;
use std::fmt;
use std::io;
use std::process::ExitCode;

/// The exit convention, as `transpo-c4 --help` states it.
pub const EXIT_STATUS: &str = concat!(
    "Exit status:\n",
    "  0  success\n",
    "  1  a failed check (a line rejected or scored other than expected) or a failure\n",
    "     while running (I/O, memory)\n",
    "  2  bad usage or bad input: a malformed command line, a file that cannot be read or\n",
    "     is malformed, a path that cannot be written to, a shard another run holds\n",
    "  3  merge only: another round is needed (the next round's list written, or a shard\n",
    "     of this round missing or unfinished): run solve-list on every shard, then merge\n",
    "Errors go to stderr as `error: ...`.",
);

/// Why a command failed, which decides the exit status (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Bad usage or bad input (exit status 2): the command line, or a file it names, must
    /// change.
    Usage(String),
    /// A failed check or a failure while running (exit status 1): I/O, memory.
    Run(String),
    /// `merge` lacks results that another round of `solve-list` would give (exit status 3).
    Unfinished(String),
    /// `merge` wrote the next round's list: more work, not an error (exit status 3, the
    /// message on stderr as it is).
    NextRound(String),
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

    /// Another round is needed.
    pub fn unfinished(message: impl fmt::Display) -> Self {
        Failure::Unfinished(message.to_string())
    }

    /// A failure with `message` to write a file the user named, for the I/O error `e`: bad
    /// usage when the path itself is wrong (a missing directory, no permission, a read-only
    /// file system, a directory, FIFO, device or link where a file should be), a failure while
    /// running otherwise (a full disk, a device error, a file size limit).
    pub fn writing(message: impl fmt::Display, e: &io::Error) -> Self {
        use io::ErrorKind::{
            AlreadyExists, InvalidInput, IsADirectory, NotADirectory, NotFound, PermissionDenied,
            ReadOnlyFilesystem,
        };
        match e.kind() {
            NotFound | PermissionDenied | ReadOnlyFilesystem | IsADirectory | NotADirectory
            | InvalidInput | AlreadyExists => Failure::usage(message),
            _ => Failure::run(message),
        }
    }

    /// The exit status: 2 for [`Failure::Usage`], 1 for [`Failure::Run`], 3 for
    /// [`Failure::Unfinished`] and [`Failure::NextRound`].
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Run(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Unfinished(_) | Failure::NextRound(_) => 3,
        }
    }

    /// The same failure with `context: ` before its message (say, the file it is about).
    pub fn context(self, context: impl fmt::Display) -> Self {
        match self {
            Failure::Usage(m) => Failure::Usage(format!("{context}: {m}")),
            Failure::Run(m) => Failure::Run(format!("{context}: {m}")),
            Failure::Unfinished(m) => Failure::Unfinished(format!("{context}: {m}")),
            Failure::NextRound(m) => Failure::NextRound(format!("{context}: {m}")),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(m)
            | Failure::Run(m)
            | Failure::Unfinished(m)
            | Failure::NextRound(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Failure {}

/// Writing a command's own output failed while running (stdout closed, a full disk). (The
/// files a command names map their errors themselves, naming the file.)
impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::run(format!("cannot write the output: {e}"))
    }
}

/// A table of a size that cannot be one (`--hash-mib 0`) is bad usage; one the machine
/// cannot give is a failure while running.
impl From<TableError> for Failure {
    fn from(e: TableError) -> Self {
        match &e {
            TableError::TooSmall { .. }
            | TableError::Table(transpo::Error::InvalidSize(_) | transpo::Error::Config(_)) => {
                Failure::usage(e)
            }
            TableError::Table(_) => Failure::run(e),
        }
    }
}

/// How the process ends after a command: success, or `error: MESSAGE` on stderr and the
/// failure's status (the next round's message without `error: `: it is none).
pub fn exit_status(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::NextRound(message)) => {
            eprintln!("{message}");
            ExitCode::from(3)
        }
        Err(failure) => {
            eprintln!("error: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_has_its_status() {
        assert_eq!(Failure::run("x").exit_code(), 1);
        assert_eq!(Failure::usage("x").exit_code(), 2);
        assert_eq!(Failure::unfinished("x").exit_code(), 3);
        assert_eq!(
            Failure::usage("bad").context("f.txt"),
            Failure::Usage("f.txt: bad".into())
        );
    }

    #[test]
    fn a_wrong_path_is_usage_and_a_full_disk_a_failure_while_running() {
        let missing = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(
            Failure::writing("out", &missing),
            Failure::Usage("out".into())
        );
        let full = io::Error::from(io::ErrorKind::StorageFull);
        assert_eq!(Failure::writing("out", &full), Failure::Run("out".into()));
    }

    #[test]
    fn a_table_too_small_is_usage_and_one_too_large_a_failure_while_running() {
        let zero = Failure::from(TableError::Table(transpo::Error::InvalidSize("0".into())));
        assert_eq!(zero.exit_code(), 2);
        let large = TableError::Table(transpo::Error::TooLarge {
            bytes: u64::MAX,
            limit: None,
        });
        assert_eq!(Failure::from(large).exit_code(), 1);
    }
}
