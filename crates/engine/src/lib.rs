//! A UCI chess engine on the transpo table, over the positions of [`transpo_chess`].
//!
//! - [`search`]: iterative-deepening principal-variation alpha-beta with quiescence, the
//!   table probed and stored at every node, aspiration windows and Lazy SMP threads sharing
//!   one table; two profiles, `paper` (exactly ALIBABA's search, for the lab) and `full`.
//! - [`eval`]: the paper's evaluation and the `full` profile's tapered one.
//! - [`uci`]: the UCI loop of the `transpo-chess` binary, its options and its search thread.
//! - [`bench`](mod@bench) (with [`bench_positions`]): a fixed-depth search of fixed positions whose node
//!   count is the search's signature.
//! - [`selfplay`]: matches between two configurations, to measure a feature.
//! - [`tune`]: Texel tuning of the tapered evaluation's weights on positions from the
//!   engine's own games.
//! - [`cli`]: the commands of the `transpo-chess` binary (whose `main.rs` only dispatches)
//!   and how it exits: it follows the project's exit convention (0 success, 1 a failed
//!   check or a failure while running, 2 bad usage or bad input).
//!
//! ```
//! use transpo::{ChessEntry, Table};
//! use transpo_chess::Position;
//! use transpo_engine::search::{Limits, SearchConfig, Searcher};
//!
//! let table = Table::<ChessEntry>::with_mib(1)?;
//! let mut pos = Position::startpos();
//! let result = Searcher::new(SearchConfig::default()).search(
//!     &mut pos,
//!     &Limits::depth(3),
//!     Some(&table),
//!     &mut |info| println!("{info}"),
//! );
//! assert!(result.best_move.is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bench;
pub mod bench_positions;
pub mod cli;
pub mod eval;
pub mod search;
pub mod selfplay;
pub mod tune;
pub mod uci;
