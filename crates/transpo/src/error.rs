//! Errors a user of the table can cause and act on.

use std::fmt;

/// Everything that can go wrong when building, resizing, saving or loading a table.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The requested size cannot hold a table (zero, or not a whole number of buckets).
    InvalidSize(String),
    /// The requested size is larger than the machine's memory or the address space.
    TooLarge {
        /// Bytes requested (`u64::MAX` when the size overflowed).
        bytes: u64,
        /// Physical memory of the machine, when known.
        limit: Option<u64>,
    },
    /// The operating system refused the memory.
    Alloc {
        /// Bytes requested.
        bytes: u64,
        /// What the system said.
        reason: String,
    },
    /// The configuration does not make sense (e.g. a two-level scheme with one way).
    Config(String),
    /// Reading or writing a saved table failed.
    Io(std::io::Error),
    /// A saved table is truncated, corrupted, or not a transpo table at all.
    Corrupt(String),
    /// A saved table is valid but does not fit this table (entry layout or size differ).
    Mismatch(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidSize(why) => write!(f, "invalid table size: {why}"),
            Error::TooLarge {
                bytes: u64::MAX,
                limit,
            } => {
                write!(f, "table size overflows the address space")?;
                if let Some(limit) = limit {
                    write!(f, " (this machine has {} MiB)", limit >> 20)?;
                }
                Ok(())
            }
            Error::TooLarge { bytes, limit } => {
                write!(f, "a table of {} MiB does not fit", bytes >> 20)?;
                if let Some(limit) = limit {
                    write!(f, " in this machine's {} MiB of memory", limit >> 20)?;
                }
                Ok(())
            }
            Error::Alloc { bytes, reason } => {
                write!(
                    f,
                    "could not allocate {} MiB: {reason}",
                    bytes.div_ceil(1 << 20)
                )
            }
            Error::Config(why) => write!(f, "invalid table configuration: {why}"),
            Error::Io(e) => write!(f, "table file: {e}"),
            Error::Corrupt(why) => write!(f, "corrupt table file: {why}"),
            Error::Mismatch(why) => write!(f, "table file does not fit this table: {why}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
