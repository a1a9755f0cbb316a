//! # transpo: a transposition table for game-tree search
//!
//! An engine's search, with the table:
//!
//! ```
//! use transpo::{Bound, ChessEntry, Table, score::{self, Verdict}};
//!
//! const MATE_THRESHOLD: i16 = 32000 - 256; // inclusive: |s| >= it is a mate score
//!
//! /// A node: the table answers first when it can, and learns the result after.
//! fn search(tt: &Table<ChessEntry>, key: u64, depth: i8, ply: u8, alpha: i16, beta: i16) -> i16 {
//!     if let Some(e) = tt.probe(key) {
//!         match e.verdict(depth, ply, (alpha, beta), MATE_THRESHOLD) {
//!             Verdict::Cut(score) => return score,
//!             Verdict::Search { mv } => {} // try `mv` first, once matched to a legal move
//!         }
//!     }
//!     let (best, mv) = (35, 796); // ... the moves searched: the best score and move ...
//!     tt.store(key, ChessEntry {
//!         mv,
//!         score: score::to_table(best, ply, MATE_THRESHOLD),
//!         depth,
//!         bound: Bound::from_window(best, (alpha, beta)),
//!         ..ChessEntry::default()
//!     });
//!     best
//! }
//!
//! let tt = Table::<ChessEntry>::with_mib(16)?; // once; search threads share `&tt`
//! tt.prefault(1); // before the first search: maps the memory now (see `Table::prefault`)
//! tt.new_search(); // at each `go`: the entries stored so far age by one search
//! assert_eq!(search(&tt, 0x463b_9618_1691_fc9c, 12, 0, -100, 100), 35);
//! assert_eq!(search(&tt, 0x463b_9618_1691_fc9c, 12, 0, -100, 100), 35); // from the table
//! println!("info hashfull {}", tt.hashfull());
//! # Ok::<(), transpo::Error>(())
//! ```
//!
//! The crate builds without its persistence (and without `transpo-files`) with
//! `default-features = false`; the default feature `persist` adds `Table::save` and
//! `Table::load`.
//!
//! A transposition table caches what an alpha-beta search learned about a position (score,
//! whether it is exact or a bound, the depth searched, the best move) under the position's
//! 64-bit hash key, so that a position reached again by another move order is not searched
//! twice. This crate is the table and nothing else: it knows no game. A game turns positions
//! into keys; a search probes and stores. [`Table`] lists its verbs on one screen.
//!
//! The root holds what an engine's search names: [`Table`] and its [`Size`], the entry
//! [`ChessEntry`] with its [`Bound`] and [`PackedMove`], and [`Error`]. Everything else stays
//! in its module: `persist::TableFile` for `Table::save` and `Table::load` (feature
//! `persist`), [`table::Instrumented`] for a lab's counters and shape, the other entries in
//! [`entry`], the schemes in [`scheme`]. One design serves three kinds of user:
//! - **engines** with many search threads: [`ChessEntry`] (16 bytes, full-key lockless XOR
//!   verification), [`DenseChessEntry`](entry::DenseChessEntry) (10 bytes, the same fields at
//!   Stockfish's density, 16-bit key check) or [`CompactEntry`](entry::CompactEntry) (8 bytes,
//!   16-bit key check), in cache-line buckets, shared through `&Table` with relaxed atomics
//!   and no locks; [`PackedMove`] packs a move, [`score`] converts mate scores and turns a
//!   probe into a cut-off ([`ChessEntry::verdict`]);
//! - **solvers** that want as many entries per MiB as possible: [`SolverEntry`](entry::SolverEntry)
//!   (4 bytes), or exact ones: [`ExactEntry`](entry::ExactEntry);
//! - **labs** that compare replacement schemes ([`scheme`]): exact entry counts, one- or
//!   two-level buckets, full keys and subtree sizes in [`ResearchEntry`](entry::ResearchEntry),
//!   a rule of one's own ([`scheme::Replace`]), and the table's counters, fill and shape
//!   through the [`table::Instrumented`] trait, which a lab imports.
//!
//! The layers, from the bottom: [`cell`] (atomic words), the raw memory (allocation,
//! alignment, huge pages; private), [`entry`] (packing), [`scheme`] (replacement policy,
//! plain functions), [`table`] (probe, store, new search, clear, resize, hashfull, prefetch;
//! the instruments), persistence (`Table::save`, `Table::load`, feature `persist`) and
//! [`score`] (mate scores in the table, the node's verdict).

#![deny(missing_docs)]

pub mod cell;
pub mod entry;
mod error;
pub mod key;
mod packed_move;
#[cfg(feature = "persist")]
pub mod persist;
mod plies;
mod raw;
pub mod scheme;
pub mod score;
pub mod stats;
pub mod table;

pub use entry::{Bound, ChessEntry};
pub use error::Error;
pub use packed_move::PackedMove;
pub use table::{Size, Table};

/// The program an engine author writes first, which must keep building with
/// `default-features = false`:
///
/// ```
/// use transpo::{ChessEntry, Table};
/// let key = 0x463b_9618_1691_fc9c;
/// let t = Table::<ChessEntry>::with_mib(16)?;
/// let e = ChessEntry { depth: 3, ..ChessEntry::default() };
/// t.store(key, e);
/// assert!(t.probe(key).is_some());
/// # Ok::<(), transpo::Error>(())
/// ```
#[cfg(doctest)]
struct FirstProgram;

/// The code in the READMEs and the port guide is compiled and run as doc tests, so it
/// cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadme;

#[cfg(doctest)]
#[doc = include_str!("../docs/engine-authors.md")]
struct PortGuide;

#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct WorkspaceReadme;
