//! The solver's view of the shared table: what a Connect Four search remembers about a
//! position (an upper or a lower bound on its score) and how that becomes a key and a byte
//! of a [`transpo::Table`] of [`ExactEntry`] (of [`WideExactEntry`] on boards beyond 64
//! bits).
//!
//! Why a separate module: the table knows no game, and the search should not know packing.
//! This file owns the three decisions in between:
//!
//! - **Keys.** The table indexes by the high bits of `key × buckets`, so keys must be mixed
//!   over all 64 bits. The [`Position::KEY_BITS`]-bit [`Position::symmetric_key`] (one key
//!   for a position and its mirror; 49 bits on 7×6, at most 64 on any board) is OR-ed with
//!   an *epoch* in the bits above it (up to 15 of them; 15 on 7×6, none on a board whose key
//!   takes all 64) and multiplied by an odd constant, a bijection of `u64`. Distinct
//!   (position, epoch) pairs therefore get distinct 64-bit keys on every board, and
//!   [`ExactEntry`] in a table of at least [`ExactEntry::MIN_BUCKETS`] buckets recovers the
//!   key exactly: no false hit is possible (its docs prove it for any 64-bit keys; the test
//!   `keys_are_exact_on_every_board` checks the pairs).
//!
//!   A wide board's key (65 to 128 bits, in a `u128`) is cut in two: `rest`, its bits above
//!   64 with the epoch in the free bits above them (at least 38 free on every wide board, 15
//!   used), and the table key `(low ^ rest·M) · MIX`, `low` its low 64 bits and `M` odd.
//!   Given the table key and `rest`, `low` is recovered (undo the multiply, XOR again), so
//!   the pair is a bijection of (position, epoch). [`WideExactEntry`] recovers the table key
//!   exactly as [`ExactEntry`] does and stores `rest` whole, and a probe counts as a hit only
//!   when the stored `rest` is the position's (`crate::coding`): exact again, for 16 bytes an
//!   entry.
//! - **Clearing.** Bumping the epoch makes every stored entry unreachable, because no key of
//!   the new epoch equals a key of an old one. That is a logically cleared table in O(1),
//!   which matters when a benchmark clears the table before each of 1000 positions solved in
//!   microseconds. The memory is really zeroed once every `2^e − 1` epochs for `e` epoch bits
//!   (2^15 − 1 on 7×6), and at every clear on a board with no epoch bits.
//! - **Tiers.** Most positions a search visits are near the end of the game, where a
//!   subtree is small and cheap to search again, and every probe of a big table is a cache
//!   miss that costs more than such a node. So positions with at most 16 empty squares
//!   (`NEAR_EMPTY`) go to a *near* table of 2^18 entries (2 MiB) that stays in the
//!   cache, and only the rest to the big table. The near table is overwritten often, so the
//!   big sets explore more positions, but each costs far less and they are solved faster;
//!   other splits and near tables of other sizes were no better (measured:
//!   docs/connect4/search.md, 2026-11-21, “the near table”).
//! - **Cache.** After a clear the big table uses only its first `START_BUCKETS` buckets
//!   (2 MiB) and doubles them, keeping every entry ([`Table::use_buckets`]), each time the solve has
//!   stored half as many bounds as it has buckets. A small solve (most test-set positions)
//!   then probes memory that stays in the cache instead of paying a cache miss per position
//!   spread over the whole table; a big one ends up using all of it. Clearing a table that
//!   grew costs clearing those first 2 MiB, once.
//! - **Values.** One non-zero byte: upper bounds `s` as `s + 42` (1..=83), lower bounds as
//!   `s + 125` (84..=166), for any score `s` in −41..=41, which holds every board's (at most
//!   81 squares). Replacement: direct-mapped (one way) and always replace, like Pons'
//!   table, which never reads an entry's depth; so the entry's second byte (`aux`) carries
//!   the best column instead (1 + column, 0 for none): the move that cut off, tried first
//!   when the binary search comes back to the position with another window.

use crate::board::Board;
use crate::position::Bitboard;
use crate::position::Position;
use crate::score::win_now_score;
use std::num::NonZeroU8;
use std::sync::atomic::{AtomicU64, Ordering};
use transpo::{
    Size, Table,
    entry::{Entry, ExactEntry, WideExactEntry},
    scheme::Scheme,
    table::{Buckets, Config, Instrumented},
};

/// The largest score on any board: a win with the first stone on the board with the most
/// squares (41, on 9×9's 81).
const MAX_SCORE: i32 = win_now_score(Board::MAX_SQUARES, 0);
/// Offset of upper-bound codes: score −41 is code 1.
const UPPER_BASE: i32 = MAX_SCORE + 1;
/// Offset of lower-bound codes: score −41 is code 84, right after the 83 upper-bound codes.
const LOWER_BASE: i32 = UPPER_BASE + 2 * MAX_SCORE + 1;
// Every code fits a byte.
const _: () = assert!(LOWER_BASE + MAX_SCORE <= u8::MAX as i32);

/// `2^e` epochs for `free` bits above a board's keys, at most 15 of them (see the module
/// docs).
const fn epochs_in(free: u32) -> u64 {
    1 << if free < 15 { free } else { 15 }
}

/// Positions with at most this many empty squares live in the near table (see the module
/// docs).
const NEAR_EMPTY: u32 = 16;
/// Entries of the near table: 2 MiB.
const NEAR_BUCKETS: usize = 1 << 18;
/// Memory of the near table, in MiB, on top of the size asked for the big one: 2 MiB of
/// 8-byte entries (4 MiB of 16-byte ones on a wide board, [`BoundTable::NEAR_MIB`]).
pub const NEAR_TABLE_MIB: usize = (NEAR_BUCKETS * 8) >> 20;
// Keys are exact only in a table of at least `MIN_BUCKETS` buckets.
const _: () = assert!(NEAR_BUCKETS >= ExactEntry::MIN_BUCKETS);
const _: () = assert!(NEAR_BUCKETS >= WideExactEntry::MIN_BUCKETS);

/// Whether `pos` belongs in the near table.
#[inline]
fn is_near<const W: usize, const H: usize, B: Bitboard>(pos: &Position<W, H, B>) -> bool {
    pos.moves() + NEAR_EMPTY >= (W * H) as u32
}

/// Buckets in use after a clear: 2 MiB, which stays in the cache (see the module docs).
const START_BUCKETS: usize = 1 << 18;
// Keys are exact only in a table of at least `MIN_BUCKETS` buckets.
const _: () = assert!(START_BUCKETS >= ExactEntry::MIN_BUCKETS);
const _: () = assert!(START_BUCKETS >= WideExactEntry::MIN_BUCKETS);

/// Stores into `buckets` buckets before the table doubles them: half as many as it has.
/// Later growth crowds the one-way table and explores more positions, earlier growth leaves
/// the cache sooner; 2^18 and 1/2 sits in between (measured on the test sets:
/// docs/connect4/search.md, 2026-11-21, “the table that starts small”).
fn grow_after(buckets: usize) -> u64 {
    buckets as u64 / 2
}

/// The big table's size for `mib` MiB: the largest power of two of `bytes`-byte entries that
/// fits (see [`BoundTable::new`]), or `mib` itself for the table crate to refuse when no entry
/// fits or the product overflows.
fn far_size(mib: u64, bytes: usize) -> Size {
    match mib.checked_mul((1 << 20) / bytes as u64) {
        Some(entries) if entries > 0 => Size::Entries(1 << entries.ilog2()),
        _ => Size::Mib(mib),
    }
}

/// What the table knows about a position's score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    /// The score is at most this.
    Upper(i32),
    /// The score is at least this.
    Lower(i32),
}

impl ScoreBound {
    fn encode(self) -> NonZeroU8 {
        let code = match self {
            ScoreBound::Upper(s) => s + UPPER_BASE,
            ScoreBound::Lower(s) => s + LOWER_BASE,
        };
        debug_assert!((1..=LOWER_BASE + MAX_SCORE).contains(&code), "{self:?}");
        // Scores lie in −30..=30 (a board has at most 60 squares), so codes lie in 1..=122.
        NonZeroU8::new(code as u8).unwrap_or(NonZeroU8::MIN)
    }

    fn decode(code: NonZeroU8) -> ScoreBound {
        let code = i32::from(code.get());
        if code < LOWER_BASE - MAX_SCORE {
            ScoreBound::Upper(code - UPPER_BASE)
        } else {
            ScoreBound::Lower(code - LOWER_BASE)
        }
    }
}

/// Why a bound table could not be made.
#[derive(Debug)]
pub enum TableError {
    /// The table crate refused the size or configuration.
    Table(transpo::Error),
    /// Too small for exact keys.
    TooSmall {
        /// Buckets the size gives.
        buckets: usize,
        /// Buckets exact keys need.
        needed: usize,
    },
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::Table(e) => write!(f, "table: {e}"),
            TableError::TooSmall { buckets, needed } => write!(
                f,
                "a table of {buckets} entries is too small for exact keys (need {needed})"
            ),
        }
    }
}

impl std::error::Error for TableError {}

/// What the solver asks of its table. [`BoundTable`] is the one it uses; the trait lets an
/// experiment put another [`transpo::Table`] configuration (entry layout, replacement scheme,
/// size) under the same search, as `transpo-lab c4` does to compare replacement schemes.
pub trait BoundStore<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// Whether [`BoundStore::put`] uses its `nodes` argument. If not, the solver saves
    /// itself a counter per node and the `nodes` it passes mean nothing.
    const WEIGHS_SUBTREES: bool = false;
    /// Forgets everything.
    fn clear(&mut self);
    /// Starts loading `pos`'s bucket into the cache, for a [`BoundStore::get`] soon after.
    fn prefetch(&self, pos: &Position<W, H, B>);
    /// What is known about `pos`, if anything: a bound and maybe the best column.
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)>;
    /// Remembers `bound` and the best column, if known, for `pos`, whose search explored
    /// `nodes` positions (itself included), for replacement schemes that weigh subtrees.
    fn put(&mut self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>, nodes: u64);
    /// Entries the table holds.
    fn capacity(&self) -> usize;
    /// What a cutoff by `pos`'s stored bound counts in its parent's subtree, for the BIG
    /// replacement schemes: 1, the position looked up, unless the store keeps subtree sizes
    /// for BIGALL, which counts the stored size.
    #[inline]
    fn hit_weight(&self, pos: &Position<W, H, B>) -> u64 {
        let _ = pos;
        1
    }
    /// The store as a [`BoundTable`] that many search threads can share, or `None` if it is
    /// not one: the solver then searches on one thread whatever it was asked.
    fn as_shared(&mut self) -> Option<&mut BoundTable<W, H, B>> {
        None
    }
}

/// One table of the pair, with the growth state that lets it start small after a clear.
struct Tier<E: Entry> {
    table: Table<E>,
    /// Buckets in use after a clear.
    start: usize,
    /// Stores after which the table doubles the buckets it uses (0: never, all in use). Kept
    /// rather than derived from the buckets in use at every store, where the derivation
    /// showed in a solve's instruction count.
    grow_at: u64,
    /// Stores since the last clear.
    stores: u64,
}

impl<E: Entry> Tier<E> {
    /// A table of `size` that uses `start` buckets (at most all) after each clear, for keys
    /// that are exact in `min_buckets` buckets or more.
    fn new(
        size: Size,
        start: usize,
        config: Config,
        min_buckets: usize,
    ) -> Result<Tier<E>, TableError> {
        let table = Table::new(size, config).map_err(TableError::Table)?;
        let buckets = table.shape().buckets;
        if buckets < min_buckets {
            return Err(TableError::TooSmall {
                buckets,
                needed: min_buckets,
            });
        }
        // Touch every page now, so the first positions solved do not pay for page faults.
        table.clear();
        let mut tier = Tier {
            start: start.min(buckets),
            table,
            grow_at: 0,
            stores: 0,
        };
        tier.restart();
        Ok(tier)
    }

    /// Back to the first `start` buckets (the caller has made every entry unreachable).
    fn restart(&mut self) {
        let shape = self.table.shape();
        if shape.buckets_in_use != self.start {
            // `new` made `start` at most the table's buckets, so all of them are used.
            self.table.use_buckets(Buckets::First(self.start));
        }
        self.stores = 0;
        self.grow_at = if self.start == shape.buckets {
            0
        } else {
            grow_after(self.start)
        };
    }

    #[inline]
    fn store(&mut self, key: u64, entry: E) {
        self.table.store(key, entry);
        self.stores += 1;
        if self.stores == self.grow_at {
            self.grow();
        }
    }

    /// Counts `stores` made without [`Tier::store`] and grows as it would have.
    fn count(&mut self, stores: u64) {
        self.stores += stores;
        while self.grow_at != 0 && self.stores >= self.grow_at {
            self.grow();
        }
    }

    /// Doubles the buckets in use and sets the next growth point.
    fn grow(&mut self) {
        let buckets = self.table.use_buckets(Buckets::Doubled);
        self.grow_at = if buckets == self.table.shape().buckets {
            0
        } else {
            self.stores + grow_after(buckets)
        };
    }
}

/// Two [`transpo::Table`]s of score bounds keyed by position (and its mirror) on the board
/// of `W` columns and `H` rows: a big one, and a small near one for positions close to the
/// end of the game.
pub struct BoundTable<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// Positions with more than `NEAR_EMPTY` empty squares.
    far: Tier<B::Entry>,
    /// Positions with at most `NEAR_EMPTY` empty squares.
    near: Tier<B::Entry>,
    /// A near table for each helper thread of a parallel solve (see [`ThreadView`]).
    helper_near: Vec<Table<B::Entry>>,
    epoch: u64,
    /// Epochs drawn for isolated views so far ([`BoundTable::isolated_view`]).
    isolated: AtomicU64,
}

/// One thread's view of a [`BoundTable`] in a parallel solve: the big table, shared, and a
/// near table of the thread's own.
///
/// Why the near tables are not shared: they hold the positions at the end of the game, which
/// are cheap to search again, and they are written at nearly every node. Shared, each write
/// took the cache line away from the other core; on this machine two threads then ran at
/// anywhere between one and two threads' speed from run to run.
pub struct ThreadView<'a, const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    table: &'a BoundTable<W, H, B>,
    near: &'a Table<B::Entry>,
    /// The epoch of the keys this view reads and writes: the table's, or one of its own
    /// ([`BoundTable::isolated_view`]).
    epoch: u64,
}

impl<const W: usize, const H: usize, B: Bitboard> ThreadView<'_, W, H, B> {
    /// The table that holds `pos` for this thread.
    #[inline]
    fn table(&self, pos: &Position<W, H, B>) -> &Table<B::Entry> {
        if is_near(pos) {
            self.near
        } else {
            &self.table.far.table
        }
    }

    /// [`BoundStore::get`].
    #[inline(always)]
    pub fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        let (key, rest) = key(pos, self.epoch);
        let (value, best) = B::unpack(self.table(pos).probe(key)?, rest)?;
        Some(BoundTable::<W, H, B>::decode(pos, value, best))
    }

    /// [`BoundStore::put`] through a shared reference: the entry goes in without counting
    /// towards growth, which needs the table to itself; the caller counts the stores that
    /// went to the big table (the return value) and passes them on
    /// ([`BoundTable::count_shared_stores`]). Returns whether `pos` went to the big (far)
    /// table.
    #[inline]
    pub fn put(&self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>) -> bool {
        let (key, rest) = key(pos, self.epoch);
        self.table(pos)
            .store(key, BoundTable::<W, H, B>::entry(pos, bound, best, rest));
        !is_near(pos)
    }

    /// [`BoundStore::prefetch`].
    #[inline]
    pub fn prefetch(&self, pos: &Position<W, H, B>) {
        self.table(pos).prefetch(key(pos, self.epoch).0);
    }
}

impl<const W: usize, const H: usize, B: Bitboard> BoundTable<W, H, B> {
    /// Epochs before the memory must really be cleared (see the module docs).
    const EPOCHS: u64 = epochs_in(B::BITS - Position::<W, H, B>::KEY_BITS);
    /// The epoch after a real clear: 1, or 0 on a board with no bits for the epoch.
    const FIRST_EPOCH: u64 = if Self::EPOCHS > 1 { 1 } else { 0 };

    /// Memory of the near table, in MiB, on top of the size asked for the big one:
    /// [`NEAR_TABLE_MIB`] on a board of `u64` words, twice that on a wide board.
    pub const NEAR_MIB: usize = (NEAR_BUCKETS * size_of::<<B::Entry as Entry>::Cell>()) >> 20;

    /// A direct-mapped, always-replace table of `mib` MiB (8 bytes an entry, 16 on a wide
    /// board) rounded down to a power of two of entries, plus the near table
    /// ([`BoundTable::NEAR_MIB`]).
    ///
    /// Why a power of two: the big table grows by doubling the buckets it uses, and only a
    /// power of two splits each bucket in two by one key bit, which keeps every entry
    /// ([`Table::use_buckets`]); growing to any other count would empty the table mid-solve.
    pub fn new(mib: u64) -> Result<Self, TableError> {
        let config = Config {
            scheme: Scheme::New,
            stamping: false,
            ways: Some(1),
            counting: false,
        };
        Ok(BoundTable {
            far: Tier::new(
                far_size(mib, size_of::<<B::Entry as Entry>::Cell>()),
                START_BUCKETS,
                config,
                B::MIN_BUCKETS,
            )?,
            near: Tier::new(
                Size::Entries(NEAR_BUCKETS as u64),
                // All of it from the start: starting it small too explored more positions,
                // for no time measurably saved.
                NEAR_BUCKETS,
                config,
                B::MIN_BUCKETS,
            )?,
            helper_near: Vec::new(),
            epoch: Self::FIRST_EPOCH,
            isolated: AtomicU64::new(1),
        })
    }

    /// Makes ready for parallel solves with `helpers` helper threads besides the caller: one
    /// near table each ([`ThreadView`]), [`NEAR_TABLE_MIB`] MiB apiece.
    pub fn set_helpers(&mut self, helpers: usize) -> Result<(), TableError> {
        self.helper_near.truncate(helpers);
        while self.helper_near.len() < helpers {
            let near = Tier::<B::Entry>::new(
                Size::Entries(NEAR_BUCKETS as u64),
                NEAR_BUCKETS,
                self.near.table.shape().config,
                B::MIN_BUCKETS,
            )?;
            self.helper_near.push(near.table);
        }
        Ok(())
    }

    /// The view of thread `thread` of a parallel solve: 0 is the caller, which uses the
    /// table's own near table; helper `i` (1 or more, up to [`BoundTable::set_helpers`]) has
    /// a near table of its own.
    #[inline]
    pub fn view(&self, thread: usize) -> ThreadView<'_, W, H, B> {
        let near = match thread.checked_sub(1) {
            Some(helper) => &self.helper_near[helper],
            None => &self.near.table,
        };
        ThreadView {
            table: self,
            near,
            epoch: self.epoch,
        }
    }

    /// Thread `thread`'s view (as [`BoundTable::view`]) in an epoch of its own, in which the
    /// table looks empty: a solve through it finds only what it stored itself, as after a
    /// clear, while solves through other views go on undisturbed. For measuring one solve
    /// among many that share the table (`transpo-c4 serve --fresh-table`).
    ///
    /// Why no harm comes from sharing the memory: every entry is a true bound on its
    /// position's score whatever its epoch, and keys stay exact in every epoch (module docs);
    /// an isolated solve only overwrites other solves' entries, as any store may. Epochs are
    /// drawn in turn from those the table's own clears have not reached yet, and wrap around
    /// after 2^15 of them, when an old epoch's entries may be found again: true bounds still.
    /// On a board with no bits for the epoch there is only one: the view is not isolated.
    pub fn isolated_view(&self, thread: usize) -> ThreadView<'_, W, H, B> {
        if Self::EPOCHS < 2 {
            return self.view(thread);
        }
        let drawn = self.isolated.fetch_add(1, Ordering::Relaxed);
        ThreadView {
            epoch: 1 + (self.epoch + drawn) % (Self::EPOCHS - 1),
            ..self.view(thread)
        }
    }

    /// Uses the whole big table from now on and never grows it: for a table that many
    /// independent solves share through [`ThreadView`]s ([`crate::pool::SolverPool`]), as
    /// they cannot all pause for it to grow. [`BoundStore::clear`] keeps it whole.
    pub fn use_whole_table(&mut self) {
        self.far.start = self.far.table.shape().buckets;
        self.far.restart();
    }

    /// Writes the big table and its epoch to `out`, for a later run to go on from
    /// ([`BoundTable::load_far`]): the bounds it holds are facts about positions of this
    /// board, true whatever search stored them. The whole table must be in use
    /// ([`BoundTable::use_whole_table`]); the near table, cheap to fill again, is not saved.
    pub fn save_far(&self, mut out: impl std::io::Write) -> Result<(), TableError> {
        out.write_all(&self.epoch.to_le_bytes())
            .map_err(|e| TableError::Table(transpo::Error::Io(e)))?;
        self.far.table.save(out).map_err(TableError::Table)
    }

    /// Replaces the big table and the epoch by those [`BoundTable::save_far`] wrote, of a
    /// table of this board and size with the whole table in use; on any error (another size,
    /// a corrupt or cut file) the table is left as it was. The caller makes sure the file is
    /// of this board: the table file's header does not say.
    pub fn load_far(&mut self, mut input: impl std::io::Read) -> Result<(), TableError> {
        let mut epoch = [0; 8];
        input
            .read_exact(&mut epoch)
            .map_err(|e| TableError::Table(transpo::Error::Io(e)))?;
        let epoch = u64::from_le_bytes(epoch);
        if epoch >= Self::EPOCHS.max(1) {
            return Err(TableError::Table(transpo::Error::Corrupt(format!(
                "epoch {epoch}, but this board has {}",
                Self::EPOCHS
            ))));
        }
        self.far.table.load(input).map_err(TableError::Table)?;
        self.epoch = epoch;
        Ok(())
    }

    /// Buckets of the big table in use now: `START_BUCKETS` after a clear, doubling as the
    /// solve goes on.
    pub fn buckets_in_use(&self) -> usize {
        self.far.table.shape().buckets_in_use
    }

    #[inline]
    fn key(&self, pos: &Position<W, H, B>) -> (u64, u64) {
        key(pos, self.epoch)
    }

    /// The entry for `bound` and `best` as `pos` stores it. A position and its mirror share
    /// an entry (one key), so the column is kept as seen from the orientation whose key is
    /// the smaller, the one [`Position::symmetric_key`] picks: [`oriented`] turns it back.
    #[inline]
    fn entry(
        pos: &Position<W, H, B>,
        bound: ScoreBound,
        best: Option<usize>,
        rest: u64,
    ) -> B::Entry {
        // Columns are below 13.
        let best = best.map_or(0, |c| oriented(pos, c) as u8 + 1);
        B::pack(bound.encode(), best, rest)
    }

    /// What [`BoundTable::entry`] stored for `pos`, from its value and best-column bytes.
    #[inline]
    fn decode(pos: &Position<W, H, B>, value: NonZeroU8, best: u8) -> (ScoreBound, Option<usize>) {
        let best = (best as usize).checked_sub(1).map(|c| oriented(pos, c));
        (ScoreBound::decode(value), best)
    }

    /// Counts `stores` entries that threads put into the big table through views
    /// ([`ThreadView::put`] returned `true`) towards its growth, and grows it now as
    /// [`BoundStore::put`] would have grown it on the way: a solve on many threads does this
    /// when no thread holds a view, so that threads share a table that grows as one
    /// thread's does ([`BoundTable::stores_before_growth`] says when).
    pub fn count_shared_stores(&mut self, stores: u64) {
        self.far.count(stores);
    }

    /// Stores into the big table before it next grows, or `None` if it uses all of its
    /// buckets and never grows.
    pub fn stores_before_growth(&self) -> Option<u64> {
        (self.far.grow_at != 0).then(|| self.far.grow_at.saturating_sub(self.far.stores))
    }
}

/// The table key and rest of `pos` in `epoch` (below the board's `BoundTable::EPOCHS`): a
/// bijection of the pair (module docs).
#[inline]
fn key<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    epoch: u64,
) -> (u64, u64) {
    B::table_key(pos.symmetric_key(), Position::<W, H, B>::KEY_BITS, epoch)
}

/// Column `col` of `pos` as seen in the orientation that [`Position::symmetric_key`]
/// chooses (the position itself or its mirror), and back again: the map is its own inverse.
#[inline]
fn oriented<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    col: usize,
) -> usize {
    if pos.key() <= pos.mirror_key() {
        col
    } else {
        W - 1 - col
    }
}

impl<const W: usize, const H: usize, B: Bitboard> BoundStore<W, H, B> for BoundTable<W, H, B> {
    /// Forgets everything (see the module docs: usually O(1)).
    #[inline]
    fn clear(&mut self) {
        self.epoch += 1;
        if self.epoch >= Self::EPOCHS {
            self.far.table.clear();
            self.near.table.clear();
            self.helper_near.iter().for_each(Table::clear);
            self.epoch = Self::FIRST_EPOCH;
        }
        self.far.restart();
        self.near.restart();
    }

    #[inline]
    fn prefetch(&self, pos: &Position<W, H, B>) {
        self.view(0).prefetch(pos);
    }

    #[inline]
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        self.view(0).get(pos)
    }

    /// Keeps the best column in the entry's `aux` byte; `nodes` is not kept (one way,
    /// always replace).
    #[inline]
    fn put(
        &mut self,
        pos: &Position<W, H, B>,
        bound: ScoreBound,
        best: Option<usize>,
        _nodes: u64,
    ) {
        let (key, rest) = self.key(pos);
        let entry = Self::entry(pos, bound, best, rest);
        if is_near(pos) {
            self.near.store(key, entry);
        } else {
            self.far.store(key, entry);
        }
    }

    /// Entries of all the tables: the big one and every near one.
    fn capacity(&self) -> usize {
        let entries = |table: &Table<B::Entry>| table.shape().entries;
        entries(&self.far.table)
            + entries(&self.near.table)
            + self.helper_near.iter().map(entries).sum::<usize>()
    }

    fn as_shared(&mut self) -> Option<&mut BoundTable<W, H, B>> {
        Some(self)
    }
}

#[cfg(test)]
mod tests;
