//! The search: iterative-deepening principal-variation alpha-beta on the shared table.
//!
//! Files, one idea each: `config` (profile, features, configuration), `score` (scores, info,
//! result), [`entry`] (what the search keeps in a table entry, for any entry layout; moves
//! in the 16 bits of [`transpo_chess::move16`], the Polyglot books' encoding), [`limits`]
//! (limits, stop flags, time budgets), [`ordering`] (move ordering), [`see`] (static
//! exchange evaluation), `worker` (one thread's state, stop checks and evaluation cache),
//! `alphabeta` (its negamax: the node and its move loop), `node` (what a node hands the
//! rules its move loop calls), `prune` (what the `full` profile leaves out: node and move
//! pruning), `extend` (how deep it looks: extensions and reductions), `quiesce` (its
//! quiescence), `tt` (the table protocol both use: probe, cut-off, store), `shared` (what
//! the threads of a search share besides the table) and `smp` (iterative deepening,
//! aspiration windows, Lazy SMP threads sharing one table).
//!
//! The table is probed and stored at every node of the main search, and in quiescence too
//! when [`Features::tt_in_quiescence`] is on — in the `full` profile, the default; the
//! `paper` profile (ALIBABA's search) never probes or stores in quiescence.
//!
//! ```
//! use transpo::{ChessEntry, Table};
//! use transpo_chess::Position;
//! use transpo_engine::search::{Limits, SearchConfig, Searcher};
//!
//! let table = Table::<ChessEntry>::with_mib(4)?;
//! let mut pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")?;
//! let searcher = Searcher::new(SearchConfig::default());
//! let result = searcher.search(&mut pos, &Limits::depth(4), Some(&table), &mut |_| {});
//! assert_eq!(result.best_move_uci().as_deref(), Some("a1a8"));
//! assert_eq!(result.score, transpo_engine::search::Score::Mate(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod alphabeta;
mod config;
pub mod entry;
mod extend;
pub mod limits;
mod node;
pub mod ordering;
mod prune;
mod quiesce;
mod score;
pub mod see;
mod shared;
mod smp;
mod tt;
mod worker;

use std::sync::Arc;

use transpo::{ChessEntry, Size, Table, scheme::Scheme, table::Config};

/// The replacement scheme of the engine's tables (`full` profile): DEPTH-AGE that keeps a
/// deeper entry of the same position from this search (see [`Scheme::KeepDeep`]).
pub const ENGINE_SCHEME: Scheme = Scheme::KeepDeep { k: 8 };

/// A table of `mib` MiB for the engine, replacing by `scheme`.
pub fn engine_table(mib: u64, scheme: Scheme) -> Result<Table<ChessEntry>, transpo::Error> {
    let config = Config {
        scheme,
        ..Config::default()
    };
    Table::new(Size::Mib(mib), config)
}

pub use config::{Features, Profile, SearchConfig, UnknownProfile};
pub use entry::{SearchEntry, TtData};
pub use limits::{Control, Limits, TimeBudget};
pub use ordering::is_quiet;
pub use score::{INFINITY, Info, MATE, MATE_BOUND, MAX_DEPTH, Score, SearchResult};
pub use smp::nps as smp_nps;

use transpo_chess::Position;

/// A search with a configuration and a [`Control`] another thread can stop it with.
#[derive(Clone, Debug)]
pub struct Searcher {
    config: SearchConfig,
    control: Arc<Control>,
}

impl Searcher {
    /// A searcher with the given configuration.
    pub fn new(config: SearchConfig) -> Self {
        Searcher {
            config,
            control: Arc::default(),
        }
    }

    /// A searcher steered through an existing [`Control`] (e.g. one a UCI loop keeps).
    pub fn with_control(config: SearchConfig, control: Arc<Control>) -> Self {
        Searcher { config, control }
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The flags that stop a running search or end its pondering.
    pub fn control(&self) -> Arc<Control> {
        Arc::clone(&self.control)
    }

    /// Searches `pos` within `limits`, calling `on_info` after each finished iteration.
    ///
    /// The position's history (the moves played to reach it) is used for repetitions; the
    /// position is the same when the search returns. `table` is shared with any other
    /// searches using it; `None` searches without one. Killer and history tables start empty,
    /// so at one thread the node count depends only on the position, limits and table.
    /// A stop flag already set makes the search return at once (with a legal move).
    pub fn search<E: SearchEntry>(
        &self,
        pos: &mut Position,
        limits: &Limits,
        table: Option<&Table<E>>,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        smp::search(&self.config, &self.control, pos, limits, table, on_info)
    }
}
