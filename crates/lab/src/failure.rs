//! How a command of the lab fails, and the exit status that tells a script which way.
//!
//! Every binary of the workspace follows one convention: the message goes to standard error
//! as `error: …`, and the exit status is 0 for success, 1 for a failed check or a failure
//! while running (I/O, memory, a worker that panicked), 2 for bad usage or bad input (a flag
//! that makes no sense, a file that cannot be read or does not parse); 3 is
//! `transpo-c4 merge`'s alone. A script (a Slurm array, GNU parallel) can then tell "fix the
//! command or the file" (2) from "look at the machine or the results" (1). clap reports a
//! malformed command line itself, with status 2.
//!
//! The helpers below the commands return `Result<_, String>` when every error they give is
//! of one kind; the commands say which at each call, with [`Failure::Input`] or
//! [`Failure::Run`]. Code that can fail both ways (making a table: a size too small is the
//! user's, memory refused is the machine's) returns a [`Failure`] itself.

use std::{fmt, process::ExitCode};

/// The exit statuses, for `transpo-lab --help`.
pub const EXIT_STATUS_HELP: &str = "\
Exit status: 0 success; 1 a failed check (a wrong score, runs that disagree) or a failure \
while running (I/O, memory); 2 bad usage or bad input (a flag, or a file that cannot be read \
or does not parse). Errors are printed as `error: …` on standard error.";

/// Why a command failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Bad usage or bad input: a flag that makes no sense, a file that cannot be read or
    /// does not parse. Exit status 2.
    Input(String),
    /// A failed check (a wrong score, runs that disagree) or a failure while running (a write
    /// that failed, memory refused, a worker that panicked). Exit status 1.
    Run(String),
}

impl Failure {
    /// The exit status of the convention: 2 for [`Failure::Input`], 1 for [`Failure::Run`].
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.status())
    }

    /// The exit status as a number.
    pub fn status(&self) -> u8 {
        match self {
            Failure::Input(_) => 2,
            Failure::Run(_) => 1,
        }
    }

    /// A table that could not be made, for `what` (e.g. `twobig1 with 8 entries`): a size or
    /// configuration the table refuses is the user's; a size beyond the machine's memory, or
    /// memory refused, is the machine's.
    pub fn of_table(what: impl fmt::Display, error: transpo::Error) -> Failure {
        let message = format!("{what}: {error}");
        match error {
            // A size or configuration the table refuses.
            transpo::Error::InvalidSize(_) | transpo::Error::Config(_) => Failure::Input(message),
            // More than the machine has, memory refused, I/O: the machine's, as transpo-c4
            // and transpo-chess say of a table they cannot get.
            _ => Failure::Run(message),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Failure::Input(message) | Failure::Run(message) => message,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// A worker that panicked while holding a lock shared by the workers.
pub fn poisoned<T>(_: T) -> Failure {
    Failure::Run("a worker panicked".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_two_and_running_is_one() {
        assert_eq!(Failure::Input("x".into()).status(), 2);
        assert_eq!(Failure::Run("x".into()).status(), 1);
        assert_eq!(Failure::Run("disk full".into()).to_string(), "disk full");
    }

    #[test]
    fn a_table_the_user_sized_wrong_is_input_and_memory_refused_is_running() {
        let small = transpo::Error::InvalidSize("too small".into());
        assert_eq!(
            Failure::of_table("deep with 0 entries", small),
            Failure::Input("deep with 0 entries: invalid table size: too small".into())
        );
        let refused = transpo::Error::Alloc {
            bytes: 1 << 40,
            reason: "no".into(),
        };
        assert_eq!(Failure::of_table("deep", refused).status(), 1);
    }
}
