//! How a command of any transpo binary ends: the failure it returns, and the exit status
//! that tells a script (a Slurm array, GNU parallel, a GUI) what to do next.
//!
//! | status | when |
//! |---|---|
//! | 0 | success |
//! | 1 | a failed check (a line rejected or scored other than expected, runs that disagree) or a failure while running (I/O, memory, a worker that panicked) |
//! | 2 | bad usage or bad input: a malformed command line (clap's own message), a file that cannot be read or is malformed, a path that cannot be written to, a size the table refuses, work another run holds |
//! | 3 | more work, not an error: `transpo-c4 merge` only (another round is needed) |
//!
//! Status 2 says "change the command or the file", 1 "look at the machine or the results".
//! The message goes to stderr as `error: …` ([`exit_status`]). The UCI loop of
//! `transpo-chess` is no command: it never exits on bad input, it answers `info string
//! error: …` and goes on.

use std::fmt;
use std::io;
use std::process::ExitCode;

/// The exit convention, as every binary's `--help` states it.
pub const EXIT_STATUS: &str = concat!(
    "Exit status:\n",
    "  0  success\n",
    "  1  a failed check (a wrong or rejected result) or a failure while running (I/O,\n",
    "     memory)\n",
    "  2  bad usage or bad input: a malformed command line, a file that cannot be read or\n",
    "     is malformed, a path that cannot be written to, a size the table refuses, work\n",
    "     another run holds\n",
    "  3  transpo-c4 merge only: another round is needed (the next round's list written,\n",
    "     or a shard of this round missing or unfinished): run solve-list, then merge\n",
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
    /// Results that another run would give are missing (exit status 3): `transpo-c4 merge`
    /// lacks a shard of the current round.
    Unfinished(String),
    /// More work, not an error (exit status 3, the message on stderr as it is, without
    /// `error: `): `transpo-c4 merge` wrote the next round's list.
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

    /// Results that another run would give are missing.
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

    /// A table that could not be made, for `what` (say `twobig1 with 8 entries`): a size or
    /// configuration the table refuses is the user's; a size beyond the machine's memory, or
    /// memory refused, is the machine's.
    pub fn of_table(what: impl fmt::Display, error: &transpo::Error) -> Self {
        let message = format!("{what}: {error}");
        match error {
            transpo::Error::InvalidSize(_) | transpo::Error::Config(_) => Failure::Usage(message),
            _ => Failure::Run(message),
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

    /// The message, without `error: `.
    pub fn message(&self) -> &str {
        match self {
            Failure::Usage(m)
            | Failure::Run(m)
            | Failure::Unfinished(m)
            | Failure::NextRound(m) => m,
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
        f.write_str(self.message())
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

/// A table the table crate refused: a size or configuration that cannot be one is bad
/// usage (status 2), memory the machine cannot give a failure while running (status 1), in
/// every binary alike.
impl From<transpo::Error> for Failure {
    fn from(e: transpo::Error) -> Self {
        Failure::of_table("table", &e)
    }
}

/// A worker that panicked while holding a lock the workers share.
pub fn poisoned<T>(_: T) -> Failure {
    Failure::run("a worker panicked")
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
        assert_eq!(Failure::NextRound("x".into()).exit_code(), 3);
        assert_eq!(
            Failure::usage("bad").context("f.txt"),
            Failure::Usage("f.txt: bad".into())
        );
    }

    #[test]
    fn a_wrong_path_is_usage_and_a_full_disk_a_failure_while_running() {
        let missing = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(Failure::writing("out", &missing), Failure::usage("out"));
        let full = io::Error::from(io::ErrorKind::StorageFull);
        assert_eq!(Failure::writing("out", &full), Failure::run("out"));
    }

    #[test]
    fn a_size_the_table_refuses_is_usage_and_memory_refused_a_failure_while_running() {
        let zero = Failure::from(transpo::Error::InvalidSize("0".into()));
        assert_eq!(zero.exit_code(), 2);
        let config = Failure::from(transpo::Error::Config("ways".into()));
        assert_eq!(config.exit_code(), 2);
        let large = transpo::Error::TooLarge {
            bytes: u64::MAX,
            limit: None,
        };
        assert_eq!(Failure::from(large).exit_code(), 1);
        let refused = transpo::Error::Alloc {
            bytes: 1 << 40,
            reason: "no".into(),
        };
        assert_eq!(
            Failure::of_table("deep", &refused),
            Failure::run(format!(
                "deep: {}",
                transpo::Error::Alloc {
                    bytes: 1 << 40,
                    reason: "no".into()
                }
            ))
        );
    }
}
