//! # transpo-cli: the conventions every transpo binary shares
//!
//! `transpo-chess`, `transpo-c4` and `transpo-lab` are apps on top of their libraries. What
//! they must do alike lives here, once: how a command fails and the exit status that follows
//! ([`failure`]), which standard input a command reads ([`stdin`]), the progress bar
//! ([`progress`]), the `--shard I/N` argument ([`shard`]) and the lock a run takes on what it
//! writes ([`lock`]). Nothing here knows a game: a binary maps its libraries' errors onto a
//! [`Failure`] and returns it from its `try_main`.
//!
//! ```
//! use transpo_cli::{Failure, Shard};
//!
//! let shard: Shard = "3/8".parse().map_err(Failure::usage)?;
//! assert!(shard.contains(2) && shard.contains(10) && !shard.contains(3));
//! assert_eq!(Failure::usage("--count: not a number").exit_code(), 2);
//! # Ok::<(), Failure>(())
//! ```

#![deny(missing_docs)]

pub mod failure;
pub mod lock;
pub mod progress;
pub mod shard;
pub mod stdin;

pub use failure::{EXIT_STATUS, Failure, exit_status};
pub use shard::Shard;
pub use stdin::check_stdin;
