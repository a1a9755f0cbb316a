//! # transpo-c4: the Connect Four solver's app
//!
//! The library half of the `transpo-c4` binary: what its commands decide that unit tests
//! should reach, on top of the solver library [`transpo_connect4`].
//!
//! - [`split`]: one solve spread over many machines in rounds (`split`, `solve-list`,
//!   `merge`): the split and its rounds' lists, a shard's resumable run, the top tree's plan,
//!   the merge. It says what went wrong as a [`split::SplitError`]; the binary maps that
//!   onto the exit convention of [`transpo_cli`].
//! - [`certificate`]: a solve's certificate, the top of its proof tree and its frontier
//!   (`certify`, `merge --certificate`), and its check (`verify`): the tree by the rules
//!   alone, the leaves re-solved in shards.
//! - [`cluster`]: one solve over many machines with a manager that keeps the top of the
//!   tree and hands workers jobs with exact windows (`mpirun -np N transpo-c4`, feature
//!   `mpi`): the top tree with young brothers wait, where a job goes, the state file.
//! - [`knobs`]: the measurement knobs (`TRANSPO_C4_*` environment variables), read the same
//!   way and refused the same way when bad; the libraries never read the environment.
//! - `serve` (feature `serve`, on by default): the web page and the JSON API on axum and
//!   tokio, answering from a [`transpo_connect4::pool`].
//!
//! The binary's commands (`src/commands/`) wire these and the solver to stdin, stdout and
//! the files a user names; `src/main.rs` only dispatches.

#![deny(missing_docs)]

pub mod certificate;
pub mod cluster;
pub mod knobs;
#[cfg(feature = "serve")]
pub mod serve;
pub mod split;
