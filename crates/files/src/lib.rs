//! # transpo-files: files a user keeps, read and written safely
//!
//! Every binary of the workspace opens the files a user names through this crate, so that
//! the rules for hostile files are written once:
//!
//! - [`open_regular`] for files read whole or by length (books, table files): a FIFO, a
//!   directory or a device is refused at once, never waited on;
//! - [`open_text`] and [`Lines`] for text read line by line: a pipe is welcome, a device
//!   (`/dev/zero`) is not, and every line has a cap and is checked for UTF-8, so an endless
//!   line costs bounded memory and a bad line is reported and skipped;
//! - [`write_atomic`] for every file a user keeps: the old file stays whole until the new one
//!   is complete and synced;
//! - [`split_torn`] for a file a run appends to line by line and reads back to resume: the
//!   torn last line a killed writer leaves is cut off and redone, a bad line before it is
//!   corruption.
//!
//! Locking a file that several processes append to is `std::fs::File::try_lock` (advisory
//! `flock` on Unix), used where it is needed.

#![deny(missing_docs)]

mod atomic;
mod lines;
mod open;
mod torn;

pub use atomic::{check_replaceable, write_atomic};
pub use lines::{BadLine, Line, Lines, TEXT_LINE_MAX};
pub use open::{open_regular, open_text};
pub use torn::{Torn, split_torn};
