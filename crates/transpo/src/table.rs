//! The table: a few verbs over shared, bucketed, lockless memory.
//!
//! A key selects a bucket of `ways` consecutive cells by the high 64 bits of
//! `key × bucket_count` (a 128-bit product), which maps keys evenly onto any bucket count,
//! so a table can use every byte it is given rather than the largest power of two. Entries
//! check the key's low bits, which the index barely uses. Buckets of `ways × cell size = 64`
//! bytes fill exactly one cache line, so a probe costs one memory access.
//!
//! Every thread works through `&Table`: cells are atomics accessed with relaxed ordering,
//! which compiles to plain loads and stores on x86-64 and ARM. Two threads storing into one
//! bucket at once may lose one of the two entries, never mix them up (see [`crate::cell`]).
//!
//! [`Table`]'s own methods are what an engine calls in its search and for its UCI options.
//! What a lab measures and steers besides (counters, fill, shape, the buckets in use, a
//! replacement rule of its own) is the [`Instrumented`] trait, which the lab imports:
//!
//! ```
//! use transpo::{Bound, Size, Table};
//! use transpo::{entry::ResearchEntry, scheme::Scheme, table::{Config, Instrumented}};
//!
//! // The paper's TWOBIG1 on exactly 8K entries, with time stamping and counters.
//! let config = Config { scheme: Scheme::TwoBig1, stamping: true, counting: true, ..Config::default() };
//! let table = Table::<ResearchEntry>::new(Size::Entries(8192), config)?;
//! assert_eq!((table.shape().entries, table.shape().ways), (8192, 2));
//! let entry = ResearchEntry { mv: 0, score: -12, depth: 3, bound: Bound::Upper, nodes: 517 };
//! table.store(0xdead_beef_f00d_cafe, entry);
//! assert_eq!(table.probe(0xdead_beef_f00d_cafe), Some(entry));
//! assert_eq!(table.stats().hits, 1); // reading leaves the counters
//! assert_eq!(table.take_stats().hits, 1);
//! assert_eq!(table.take_stats().hits, 0); // taking the counters zeroes them
//! # Ok::<(), transpo::Error>(())
//! ```

mod config;
mod front;
mod grow;
mod instruments;
mod size;
mod store;
#[cfg(test)]
mod tests;

pub use config::{Config, MAX_WAYS};
pub use front::Table;
pub use grow::Buckets;
pub use instruments::{Instrumented, Shape};
pub use size::{Count, Size};
pub use store::Stored;
