//! How a command of the lab fails: the project's convention (`transpo-cli`), written once for
//! every binary. The lab's commands return a [`Failure`]: [`Failure::Usage`] (status 2) for a
//! flag that makes no sense or a file that cannot be read or does not parse,
//! [`Failure::Run`] (status 1) for a failed check (a wrong score, runs that disagree) or a
//! failure while running (I/O, memory, a worker that panicked). The helpers below the
//! commands return `Result<_, String>` when every error they give is of one kind; the
//! commands say which at each call.

pub use transpo_cli::failure::poisoned;
pub use transpo_cli::{EXIT_STATUS, Failure, exit_status};
