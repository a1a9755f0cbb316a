//! What can go wrong with a split's files, a shard's run or a merge, said by whose it is:
//! the user's (a file to change), the machine's (a write that failed), or work not yet done
//! (a shard to run). The binary maps each onto its exit convention
//! ([`transpo_cli::Failure`]); this library decides no exit status.

use std::fmt;
use std::io;

/// A split's error, by whose it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitError {
    /// Bad input: a file that cannot be read, is malformed, is another split's, or a path
    /// that cannot be written to. The user must change the command or the file.
    Input(String),
    /// A failure while running: a write that failed on a good path (a full disk).
    Running(String),
    /// Results missing that a run of `solve-list` would give: a shard of the current round
    /// missing or unfinished.
    Unfinished(String),
}

impl SplitError {
    /// Bad input.
    pub fn input(message: impl fmt::Display) -> Self {
        SplitError::Input(message.to_string())
    }

    /// A failure while running.
    pub fn running(message: impl fmt::Display) -> Self {
        SplitError::Running(message.to_string())
    }

    /// Results that `solve-list` would give are missing.
    pub fn unfinished(message: impl fmt::Display) -> Self {
        SplitError::Unfinished(message.to_string())
    }

    /// An error with `message` writing a file at a path the user gave, for the I/O error
    /// `e`: the path's fault (a missing directory, no permission, a read-only file system, a
    /// directory or device where a file should be) is bad input, anything else a failure
    /// while running.
    pub fn writing(message: impl fmt::Display, e: &io::Error) -> Self {
        match transpo_cli::Failure::writing(message, e) {
            transpo_cli::Failure::Usage(m) => SplitError::Input(m),
            other => SplitError::Running(other.message().to_string()),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            SplitError::Input(m) | SplitError::Running(m) | SplitError::Unfinished(m) => m,
        }
    }
}

impl fmt::Display for SplitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for SplitError {}

/// The exit convention of the binaries: bad input 2, a failure while running 1, work not
/// yet done 3 (`merge`'s "more work").
impl From<SplitError> for transpo_cli::Failure {
    fn from(e: SplitError) -> Self {
        match e {
            SplitError::Input(m) => transpo_cli::Failure::Usage(m),
            SplitError::Running(m) => transpo_cli::Failure::Run(m),
            SplitError::Unfinished(m) => transpo_cli::Failure::Unfinished(m),
        }
    }
}
