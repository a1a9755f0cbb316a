//! The bounds a cluster's workers pass each other: each worker's table keeps its own
//! searches' bounds, and the bounds it proves of positions far from the end of the game go
//! to every other worker's table, from worker to worker along a tree
//! ([`super::relay`]).
//!
//! Why: the manager's jobs are positions some stones deep, and the subtrees of neighbouring
//! jobs meet again far below them. One solve's one table searches such a meeting point once;
//! k workers' tables up to k times: even with jobs run one at a time, four workers' tables
//! explored far more than one worker's (measured: docs/connect4/mpi.md, 2026-11-27, “workers
//! pass each other bounds”). A bound is a fact about a position's score, whoever proved it
//! and whatever window it was proved for, so a worker may take every other worker's into its
//! table: they are as true as its own.
//!
//! Only positions with many empty squares are shared ([`SharingTable::new`]): their
//! subtrees are big enough that finding one proved saves more than receiving it costs, and
//! there are few of them (a bound per subtree of thousands of positions).
//!
//! A record is the position's symmetric key ([`Position::symmetric_key`], the key of the
//! orientation it names, [`Bitboard::BYTES`] bytes, little endian), the bound (0 upper, 1
//! lower), the score as a signed byte, and the best column in that orientation plus one (0
//! for none). A record that is not one (a key that is no position, a score
//! outside the board's, a column past the last) is an error: ranks run the same binary and
//! flags (the manager checks), so only a bug makes one.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use transpo_connect4::bounds::{BoundStore, BoundTable, ScoreBound};
use transpo_connect4::pool::SolverPool;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::win_now_score;

/// The most positions a worker's journal sends at once: past that, some stay unsent (its
/// own table still has them). 2^20 records are at most 19 MiB on the widest board.
pub const JOURNAL_MAX: usize = 1 << 20;

/// A worker's [`BoundTable`] that also writes down the bounds it stores of positions with
/// at least a given number of empty squares (its journal), and takes in the bounds other
/// workers proved.
pub struct SharingTable<const W: usize, const H: usize, B: Bitboard> {
    table: BoundTable<W, H, B>,
    /// Positions with at most this many stones are journaled (`None`: none is).
    shared_moves: Option<u32>,
    /// Each journaled position's latest bound and best column, by symmetric key (the column
    /// as seen in the orientation of that key).
    journal: Journal<B>,
    /// Where the journal goes while a search runs ([`SharingTable::set_outlet`]).
    outlet: Option<Outlet>,
    /// The fewest positions a bound's search must have explored to be journaled
    /// ([`SharingTable::set_min_nodes`]).
    min_nodes: u64,
}

/// A journal's way out in the middle of a search: raised, the flag asks for the journal,
/// and the next bound journaled sends it.
struct Outlet {
    due: Arc<AtomicBool>,
    send: Box<dyn FnMut(Vec<u8>) + Send>,
}

/// How many records ahead [`SharingTable::take_in`] prefetches the table's entries.
const PREFETCH_AHEAD: usize = 8;

/// Bounds written down for the other workers, by position: the latest of each, at most
/// [`JOURNAL_MAX`] (past that, some stay unsent: the table that stored them still has
/// them). A [`SharingTable`]'s, or each thread's of a worker whose threads search jobs
/// of their own (`cluster::worker`).
///
/// Notes are appended as they come and sorted out when the journal is taken (or when
/// [`NOTES_MAX`] of them wait): a search notes its far positions again and again, and a
/// map of them, probed at every note, missed the cache and slowed a one-thread worker
/// (measured: docs/connect4/mpi.md, 2026-11-28, “what a worker's journal cost”).
#[derive(Clone, Debug, Default)]
pub struct Journal<B: Bitboard> {
    /// Each note as its record's fields ([`write_record`]): the position's symmetric key,
    /// its bound's kind and score, and its best column plus one (as seen in the orientation
    /// of that key; 0 if none), oldest first; a position may come more than once.
    notes: Vec<(B, u8, i8, u8)>,
    /// Whether the journal holds [`JOURNAL_MAX`] positions and notes no more.
    full: bool,
}

/// The most notes a [`Journal`] keeps before it sorts out its repeats: twice the positions
/// it may hold.
pub const NOTES_MAX: usize = 2 * JOURNAL_MAX;

impl<B: Bitboard> Journal<B> {
    /// Writes down `bound` and the best column of `pos`, a position of the board `W`×`H`.
    #[inline]
    pub fn note<const W: usize, const H: usize>(
        &mut self,
        pos: &Position<W, H, B>,
        bound: ScoreBound,
        best: Option<usize>,
    ) {
        if self.notes.len() >= NOTES_MAX && !self.full {
            self.latest_only();
            self.full = self.notes.len() >= JOURNAL_MAX;
        }
        if self.full {
            return;
        }
        // One record for a position and its mirror, as the table keeps one entry: by the
        // symmetric key, the best column as seen from that orientation.
        let key = pos.symmetric_key();
        let best = if key == pos.key() {
            best
        } else {
            best.map(|c| W - 1 - c)
        };
        let (kind, score) = match bound {
            ScoreBound::Upper(s) => (0, s),
            ScoreBound::Lower(s) => (1, s),
        };
        // Scores lie within ±(W·H/2 + 1), below 128 on every board (at most 128 squares in
        // a u128, so |score| ≤ 65), and columns below 128.
        self.notes
            .push((key, kind, score as i8, best.map_or(0, |c| c as u8 + 1)));
    }

    /// Keeps only the latest note of each position, in the order of their keys, and of at
    /// most [`JOURNAL_MAX`] positions.
    fn latest_only(&mut self) {
        // Reversed, the latest note of a position comes first among its own; the sort is
        // stable and `dedup_by_key` keeps the first of each run.
        self.notes.reverse();
        self.notes.sort_by_key(|note| note.0);
        self.notes.dedup_by_key(|note| note.0);
        self.notes.truncate(JOURNAL_MAX);
    }

    /// Bounds noted and not yet taken (a position noted twice may count twice).
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Forgets them all.
    pub fn clear(&mut self) {
        self.notes.clear();
        self.full = false;
    }

    /// The bounds as records for the other workers ([`SharingTable::take_in`] and
    /// [`store_records`] read them), emptying the journal.
    pub fn take(&mut self) -> Vec<u8> {
        self.latest_only();
        self.full = false;
        let mut out = Vec::with_capacity(self.notes.len() * record_bytes::<B>());
        for (key, kind, score, best) in self.notes.drain(..) {
            write_record(&mut out, key, kind, score, best);
        }
        out
    }
}

/// Stores every bound of `records` in `pool`'s table, beside the solves it runs.
pub fn store_records<const W: usize, const H: usize, B: Bitboard>(
    pool: &SolverPool<W, H, B>,
    records: &Records<W, H, B>,
) {
    for &(_, pos, kind, score, best) in &records.0 {
        pool.store(&pos, bound_of(kind, score), (best as usize).checked_sub(1));
    }
}

/// Records as [`Journal::take`] writes them, each checked to be a bound of the board
/// `W`×`H` ([`Records::decode`]): what a worker stores of the others' bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Records<const W: usize, const H: usize, B: Bitboard>(Vec<Record<W, H, B>>);

impl<const W: usize, const H: usize, B: Bitboard> Records<W, H, B> {
    /// The records of `bytes`, or what is wrong with the first that is not a bound of this
    /// board (bytes cut short, a key of no position, a score outside the board's, a column
    /// past the last).
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        decode::<W, H, B>(bytes).map(Records)
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A record's bound: its kind (0 upper, 1 lower) and score.
fn bound_of(kind: u8, score: i8) -> ScoreBound {
    let score = i32::from(score);
    if kind == 0 {
        ScoreBound::Upper(score)
    } else {
        ScoreBound::Lower(score)
    }
}

/// The bytes of one record on a board of `B` words.
const fn record_bytes<B: Bitboard>() -> usize {
    B::BYTES + 3
}

impl<const W: usize, const H: usize, B: Bitboard> SharingTable<W, H, B> {
    /// `table`, journaling the bounds of positions with at least `shared_empties` empty
    /// squares (more than the board has: none).
    pub fn new(table: BoundTable<W, H, B>, shared_empties: u32) -> Self {
        SharingTable {
            table,
            shared_moves: ((W * H) as u32).checked_sub(shared_empties),
            journal: Journal::default(),
            outlet: None,
            min_nodes: 1,
        }
    }

    /// Journals only the bounds whose search explored at least `nodes` positions (the
    /// position itself included; 1, the default: every bound of a shared position).
    pub fn set_min_nodes(&mut self, nodes: u64) {
        self.min_nodes = nodes.max(1);
    }

    /// Sends the journal to `send` ([`SharingTable::take_journal`]'s records) at the next
    /// bound journaled after `due` is raised, and lowers it: a worker whose job runs long
    /// passes its bounds on while it runs, so that the other workers and the manager's state
    /// file have them even if the job is stopped or the run killed before it ends.
    pub fn set_outlet(&mut self, due: Arc<AtomicBool>, send: Box<dyn FnMut(Vec<u8>) + Send>) {
        self.outlet = Some(Outlet { due, send });
    }

    /// Whether `pos` is a position whose bounds are shared.
    #[inline]
    fn shared(&self, pos: &Position<W, H, B>) -> bool {
        self.shared_moves.is_some_and(|most| pos.moves() <= most)
    }

    /// Bounds journaled and not yet taken ([`Journal::len`]: a position journaled twice may
    /// count twice).
    pub fn journaled(&self) -> usize {
        self.journal.len()
    }

    /// The journal as records for the other workers, emptying it.
    pub fn take_journal(&mut self) -> Vec<u8> {
        self.journal.take()
    }

    /// Stores every bound of `records` in the table, without journaling them again.
    pub fn take_in(&mut self, records: &Records<W, H, B>) {
        let records = &records.0;
        // The stores go to random places of a big table: asking for each entry's line
        // some records ahead hides most of the misses.
        for (i, &(_, pos, kind, score, best)) in records.iter().enumerate() {
            if let Some(ahead) = records.get(i + PREFETCH_AHEAD) {
                self.table.prefetch(&ahead.1);
            }
            let bound = bound_of(kind, score);
            self.table
                .put(&pos, bound, (best as usize).checked_sub(1), 0);
        }
    }
}

/// The most bounds [`KeptBounds`] keeps by default: 2^22 records are at most 76 MiB on the
/// widest board (twice that as the state file's hex), written behind the run. Fewer (2^21)
/// lost more of a killed solve (measured: docs/connect4/mpi.md, 2026-11-28, “a kill loses
/// less”).
pub const KEPT_MAX: usize = 1 << 22;

/// The far bounds the workers proved on the line in hand, as the manager keeps them for the
/// state file (`--state`): a solve killed and run again hands them to its workers before
/// the first job, so that what the killed workers' tables knew of the positions far from
/// the end is not searched again. By symmetric key and kind of bound, the
/// tightest one (a lower bound's highest score, an upper bound's lowest) and its best
/// column. At most a given number of them: when full, the bounds of the deepest positions
/// kept go (a position with more stones has a smaller subtree, so its bound spares less).
#[derive(Clone, Debug)]
pub struct KeptBounds<B: Bitboard> {
    /// By the positions' stones.
    levels: Vec<HashMap<(B, u8), (i8, u8)>>,
    len: usize,
    max: usize,
    /// Records not kept for want of room.
    dropped: u64,
}

impl<B: Bitboard> Default for KeptBounds<B> {
    fn default() -> Self {
        KeptBounds::with_max(KEPT_MAX)
    }
}

impl<B: Bitboard> KeptBounds<B> {
    /// Keeps at most `max` bounds.
    pub fn with_max(max: usize) -> Self {
        KeptBounds {
            levels: Vec::new(),
            len: 0,
            max,
            dropped: 0,
        }
    }

    /// Keeps the bounds of `records` ([`SharingTable::take_journal`]'s form) of the board
    /// `W`×`H`.
    ///
    /// # Errors
    ///
    /// What is wrong with the first record that is no bound of this board (then none is
    /// kept).
    pub fn keep<const W: usize, const H: usize>(&mut self, records: &[u8]) -> Result<(), String> {
        for (key, pos, kind, score, best) in decode::<W, H, B>(records)? {
            let stones = pos.moves() as usize;
            if self.levels.len() <= stones {
                self.levels.resize_with(stones + 1, HashMap::new);
            }
            let tighter = |(old, _): &(i8, u8)| match kind {
                0 => score < *old,
                _ => score > *old,
            };
            if let Some(kept) = self.levels[stones].get_mut(&(key, kind)) {
                if tighter(kept) {
                    *kept = (score, best);
                }
                continue;
            }
            if self.len >= self.max {
                // Room is made by the deepest level, if it is deeper than this bound's.
                match self.levels.iter().rposition(|level| !level.is_empty()) {
                    Some(deepest) if deepest > stones => {
                        let gone = std::mem::take(&mut self.levels[deepest]);
                        self.len -= gone.len();
                        self.dropped += gone.len() as u64;
                    }
                    _ => {
                        self.dropped += 1;
                        continue;
                    }
                }
            }
            self.levels[stones].insert((key, kind), (score, best));
            self.len += 1;
        }
        Ok(())
    }

    /// Every bound kept, as records ([`SharingTable::take_in`] takes them), the positions
    /// with fewest stones first.
    pub fn records(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len * record_bytes::<B>());
        for (&(key, kind), &(score, best)) in self.levels.iter().flatten() {
            write_record(&mut out, key, kind, score, best);
        }
        out
    }

    /// How many bounds are kept.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records not kept, or kept and then dropped, for want of room since the last
    /// [`KeptBounds::clear`].
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Forgets every bound (a new line).
    pub fn clear(&mut self) {
        self.levels.clear();
        self.len = 0;
        self.dropped = 0;
    }
}

/// The records of `records` (bounds of the board `W`×`H`, as checked before) of positions
/// with at least `empties` empty squares: what of a worker's journal passes on to the other
/// workers, when it journals deeper for the state file.
pub fn far_records<const W: usize, const H: usize, B: Bitboard>(
    records: &[u8],
    empties: u32,
) -> Vec<u8> {
    let size = record_bytes::<B>();
    let most = ((W * H) as u32).saturating_sub(empties);
    let mut out = Vec::new();
    for record in records.chunks_exact(size) {
        let far = Position::<W, H, B>::from_key(B::read_le(&record[..B::BYTES]))
            .is_some_and(|pos| pos.moves() <= most);
        if far {
            out.extend_from_slice(record);
        }
    }
    out
}

/// Writes a record: the key, the kind of bound (0 upper, 1 lower), the score and the best
/// column plus one (0 for none).
fn write_record<B: Bitboard>(out: &mut Vec<u8>, key: B, kind: u8, score: i8, best: u8) {
    key.write_le(out);
    out.extend([kind, score as u8, best]);
}

/// A record read: its symmetric key and position, the kind of bound (0 upper, 1 lower), the
/// score and the best column plus one (0 for none).
type Record<const W: usize, const H: usize, B> = (B, Position<W, H, B>, u8, i8, u8);

/// The records of `records`, checked to be bounds of the board `W`×`H`.
fn decode<const W: usize, const H: usize, B: Bitboard>(
    records: &[u8],
) -> Result<Vec<Record<W, H, B>>, String> {
    let size = record_bytes::<B>();
    if !records.len().is_multiple_of(size) {
        return Err(format!(
            "{} bytes of bounds are not whole records of {size}",
            records.len()
        ));
    }
    let max = win_now_score(W * H, 0);
    records
        .chunks_exact(size)
        .enumerate()
        .map(|(i, record)| {
            let key = B::read_le(&record[..B::BYTES]);
            let (kind, score, best) = (
                record[B::BYTES],
                record[B::BYTES + 1] as i8,
                record[B::BYTES + 2],
            );
            let pos = Position::<W, H, B>::from_key(key)
                .ok_or_else(|| format!("record {i}: a key of no position"))?;
            if i32::from(score).abs() > max || best as usize > W || kind > 1 {
                return Err(format!("record {i}: not a bound of this board"));
            }
            Ok((key, pos, kind, score, best))
        })
        .collect()
}

impl<const W: usize, const H: usize, B: Bitboard> BoundStore<W, H, B> for SharingTable<W, H, B> {
    fn clear(&mut self) {
        self.table.clear();
        self.journal.clear();
    }

    #[inline]
    fn prefetch(&self, pos: &Position<W, H, B>) {
        self.table.prefetch(pos);
    }

    #[inline]
    fn get(&self, pos: &Position<W, H, B>) -> Option<(ScoreBound, Option<usize>)> {
        self.table.get(pos)
    }

    #[inline]
    fn put(&mut self, pos: &Position<W, H, B>, bound: ScoreBound, best: Option<usize>, nodes: u64) {
        self.table.put(pos, bound, best, nodes);
        if nodes >= self.min_nodes && self.shared(pos) {
            self.journal.note::<W, H>(pos, bound, best);
            if self.outlet.as_ref().is_some_and(|out| {
                out.due.load(Ordering::Relaxed) && out.due.swap(false, Ordering::Relaxed)
            }) {
                let records = self.take_journal();
                if let Some(out) = self.outlet.as_mut() {
                    (out.send)(records);
                }
            }
        }
    }

    fn capacity(&self) -> usize {
        self.table.capacity()
    }

    /// The table itself: the threads of a parallel job share it, and what they store is
    /// not journaled (only a one-thread worker shares its bounds today).
    fn as_shared(&mut self) -> Option<&mut BoundTable<W, H, B>> {
        Some(&mut self.table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use transpo_connect4::solver::Solver;

    /// Checks `bytes` and stores them in `t`; how many.
    fn take_in<const W: usize, const H: usize>(
        t: &mut SharingTable<W, H, u64>,
        bytes: &[u8],
    ) -> Result<usize, String> {
        let records = Records::decode(bytes)?;
        t.take_in(&records);
        Ok(records.len())
    }

    /// The position after `stones` moves of a made-up game of 7×6 (each move the first
    /// column from a seeded walk that is open and does not win), if it lasts that long.
    fn game(seed: u64, stones: u32) -> Option<Position<7, 6, u64>> {
        let mut pos = Position::new();
        let mut walk = seed;
        while pos.moves() < stones {
            walk = walk
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let start = (walk >> 33) as usize % 7;
            let col = (0..7)
                .map(|i| (start + i) % 7)
                .find(|&c| pos.can_play(c) && !pos.is_winning_move(c))?;
            pos.play_column(col);
        }
        Some(pos)
    }

    /// Positions along a few made-up games.
    fn positions() -> Vec<Position<7, 6, u64>> {
        (1..5)
            .flat_map(|seed| (0..12).filter_map(move |stones| game(seed, stones)))
            .collect()
    }

    #[test]
    fn a_journal_carries_the_bounds_of_far_positions_and_only_those() {
        let mut a = SharingTable::<7, 6, u64>::new(BoundTable::new(1).expect("1 MiB"), 38);
        let mut b = SharingTable::<7, 6, u64>::new(BoundTable::new(1).expect("1 MiB"), 38);
        let all = positions();
        for (i, pos) in all.iter().enumerate() {
            let bound = if i % 2 == 0 {
                ScoreBound::Lower(i as i32 % 7 - 3)
            } else {
                ScoreBound::Upper(3 - i as i32 % 5)
            };
            a.put(pos, bound, Some(i % 7), 1);
        }
        let far = all
            .iter()
            .filter(|p| p.moves() <= 42 - 38)
            .map(Position::symmetric_key)
            .collect::<std::collections::HashSet<_>>()
            .len();
        // A position reached in two games is noted twice, and sent once.
        assert!(a.journaled() >= far);
        let records = a.take_journal();
        assert_eq!(records.len(), far * record_bytes::<u64>());
        assert_eq!(a.journaled(), 0);
        assert_eq!(take_in(&mut b, &records), Ok(far));
        assert_eq!(b.journaled(), 0, "bounds taken in are not passed on again");
        for pos in &all {
            if pos.moves() <= 4 {
                assert_eq!(b.get(pos), a.get(pos), "{pos:?}");
            } else {
                assert_eq!(b.get(pos), None, "{pos:?}");
            }
        }
    }

    /// A journal sends one record a position, its latest note's, the position and its
    /// mirror as one (the column seen from the symmetric key's side), also once it has
    /// sorted out its repeats on the way ([`NOTES_MAX`]).
    #[test]
    fn a_journal_sends_each_position_s_latest_note() {
        let pos = Position::<7, 6, u64>::from_moves("1123").expect("a position");
        let mirror = Position::<7, 6, u64>::from_moves("7765").expect("a position");
        let other = Position::<7, 6, u64>::from_moves("44").expect("a position");
        assert_eq!(pos.symmetric_key(), mirror.symmetric_key());
        let decoded = |records: &[u8]| {
            let mut out: Vec<(u64, u8, i8, u8)> = decode::<7, 6, u64>(records)
                .expect("records")
                .into_iter()
                .map(|(key, _, kind, score, best)| (key, kind, score, best))
                .collect();
            out.sort_unstable();
            out
        };
        // The best column as the symmetric key's orientation sees it.
        let seen = |p: &Position<7, 6, u64>, column: usize| {
            if p.symmetric_key() == p.key() {
                column as u8 + 1
            } else {
                (6 - column) as u8 + 1
            }
        };
        for notes in [3, NOTES_MAX + 7] {
            let mut journal = Journal::<u64>::default();
            for i in 0..notes {
                journal.note::<7, 6>(&other, ScoreBound::Upper(i as i32 % 5), None);
                journal.note::<7, 6>(&pos, ScoreBound::Lower(-(i as i32 % 3)), Some(2));
            }
            journal.note::<7, 6>(&mirror, ScoreBound::Upper(4), Some(1));
            let mut want = vec![
                (other.symmetric_key(), 0, ((notes - 1) % 5) as i8, 0),
                (pos.symmetric_key(), 0, 4, seen(&mirror, 1)),
            ];
            want.sort_unstable();
            assert_eq!(decoded(&journal.take()), want, "{notes} notes");
            assert!(journal.is_empty());
            assert!(journal.take().is_empty());
        }
    }

    /// A journal of more positions than [`JOURNAL_MAX`] sends that many, each once.
    #[test]
    fn a_journal_sends_at_most_its_most() {
        let mut journal = Journal::<u64>::default();
        let mut distinct = HashSet::new();
        let mut n = 0u64;
        while distinct.len() < JOURNAL_MAX + 1000 {
            // Up to twelve stones, their columns the base-7 digits of a scramble of `n`.
            let mut pos = Position::<7, 6, u64>::new();
            let mut digits = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8;
            n += 1;
            for _ in 0..12 {
                let column = (digits % 7) as usize;
                digits /= 7;
                if !pos.can_play(column) || pos.is_winning_move(column) {
                    break;
                }
                pos.play_column(column);
            }
            distinct.insert(pos.symmetric_key());
            journal.note::<7, 6>(&pos, ScoreBound::Lower(0), None);
        }
        let records = journal.take();
        assert_eq!(records.len(), JOURNAL_MAX * record_bytes::<u64>());
        let keys: HashSet<u64> = decode::<7, 6, u64>(&records)
            .expect("records")
            .into_iter()
            .map(|record| record.0)
            .collect();
        assert_eq!(keys.len(), JOURNAL_MAX);
        assert!(keys.is_subset(&distinct));
    }

    /// A journal passed on in the middle of a search (every bound, the flag always raised)
    /// and what is left at the end carry the same bounds as one journal taken at the end.
    #[test]
    fn a_journal_passed_on_while_searching_loses_nothing() {
        let strong = transpo_connect4::score::Strength::Strong;
        let table = || BoundTable::new(4).expect("4 MiB");
        let mut whole = Solver::with_table(SharingTable::<7, 6, u64>::new(table(), 26));
        let mut passing = Solver::with_table(SharingTable::<7, 6, u64>::new(table(), 26));
        let due = Arc::new(AtomicBool::new(true));
        let (send, passed) = std::sync::mpsc::channel();
        let raise = Arc::clone(&due);
        passing.table_mut().set_outlet(
            Arc::clone(&due),
            Box::new(move |records| {
                send.send(records).expect("the test listens");
                raise.store(true, Ordering::Relaxed);
            }),
        );
        let pos = game(3, 12).expect("a 12-stone game");
        assert_eq!(whole.solve(&pos, strong), passing.solve(&pos, strong));
        let mut kept = KeptBounds::<u64>::default();
        let mut parts = 0;
        for records in passed.try_iter() {
            kept.keep::<7, 6>(&records).expect("records");
            parts += 1;
        }
        assert!(parts > 1, "passed on {parts} times");
        kept.keep::<7, 6>(&passing.table_mut().take_journal())
            .expect("records");
        let mut alone = KeptBounds::<u64>::default();
        alone
            .keep::<7, 6>(&whole.table_mut().take_journal())
            .expect("records");
        // The journal keeps a position's latest bound; the kept ones, each kind's tightest:
        // both name the same positions.
        let keys = |k: &KeptBounds<u64>| {
            k.levels
                .iter()
                .flat_map(HashMap::keys)
                .map(|(key, _)| *key)
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert!(!keys(&alone).is_empty());
        assert_eq!(keys(&kept), keys(&alone));
    }

    /// The manager keeps each kind's tightest bound of a position, and gives them back as
    /// records another table takes in.
    #[test]
    fn kept_bounds_are_the_tightest() {
        let pos = Position::<7, 6, u64>::from_moves("4433").expect("legal");
        let record = |kind: u8, score: i8, best: u8| {
            let mut r = Vec::new();
            pos.symmetric_key().write_le(&mut r);
            r.extend([kind, score as u8, best]);
            r
        };
        let mut kept = KeptBounds::<u64>::default();
        for r in [
            record(0, 5, 1),
            record(0, 3, 2),
            record(0, 4, 3),
            record(1, -2, 0),
            record(1, 1, 4),
            record(1, 0, 5),
        ] {
            kept.keep::<7, 6>(&r).expect("a bound");
        }
        assert_eq!(kept.len(), 2);
        let mut records = kept.records();
        let mut pairs: Vec<Vec<u8>> = records.chunks(11).map(<[u8]>::to_vec).collect();
        pairs.sort();
        assert_eq!(pairs, vec![record(0, 3, 2), record(1, 1, 4)]);
        assert!(kept.keep::<7, 6>(&record(2, 0, 0)).is_err());
        records.pop();
        assert!(kept.keep::<7, 6>(&records).is_err(), "cut short");
        let mut t = SharingTable::<7, 6, u64>::new(BoundTable::new(1).expect("1 MiB"), 0);
        assert_eq!(take_in(&mut t, &kept.records()), Ok(2));
        kept.clear();
        assert!(kept.is_empty());
    }

    /// Kept bounds past their room make way for shallower ones, the deepest going first;
    /// a deeper one than all kept finds no room. Far records are those of few stones.
    #[test]
    fn kept_bounds_keep_the_shallowest_when_full() {
        let mut kept = KeptBounds::<u64>::with_max(4);
        // `n` bounds of distinct positions with `stones` stones.
        let records = |stones: u32, n: usize| -> Vec<u8> {
            let mut seen = std::collections::HashSet::new();
            let mut out = Vec::new();
            for pos in (1..200).filter_map(|seed| game(seed, stones)) {
                if seen.len() < n && seen.insert(pos.symmetric_key()) {
                    pos.symmetric_key().write_le(&mut out);
                    out.extend([1, 0, 0]);
                }
            }
            assert_eq!(seen.len(), n, "{n} positions of {stones} stones");
            out
        };
        let stones_of = |kept: &KeptBounds<u64>| -> Vec<u32> {
            kept.records()
                .chunks(11)
                .map(|r| {
                    Position::<7, 6, u64>::from_key(u64::read_le(&r[..8]))
                        .expect("a position")
                        .moves()
                })
                .collect()
        };
        let (six, three, one) = (records(6, 4), records(3, 3), records(1, 1));
        kept.keep::<7, 6>(&six).expect("bounds");
        assert_eq!(stones_of(&kept), vec![6; 4]);
        kept.keep::<7, 6>(&three).expect("bounds");
        assert_eq!(stones_of(&kept), vec![3; 3], "the deepest level made way");
        kept.keep::<7, 6>(&six).expect("bounds");
        assert_eq!(
            stones_of(&kept),
            vec![3, 3, 3, 6],
            "the room left, then none"
        );
        kept.keep::<7, 6>(&one).expect("bounds");
        assert_eq!(stones_of(&kept), vec![1, 3, 3, 3], "the shallowest first");
        assert_eq!(kept.dropped(), 4 + 3 + 1);
        let mixed = [one.clone(), six.clone()].concat();
        assert_eq!(far_records::<7, 6, u64>(&mixed, 42 - 3), one);
    }

    #[test]
    fn records_that_are_no_bounds_are_refused() {
        let mut t = SharingTable::<7, 6, u64>::new(BoundTable::new(1).expect("1 MiB"), 0);
        let good = |kind: u8, score: i8, best: u8| {
            let mut r = Vec::new();
            Position::<7, 6, u64>::from_moves("44")
                .expect("legal")
                .key()
                .write_le(&mut r);
            r.extend([kind, score as u8, best]);
            r
        };
        assert_eq!(take_in(&mut t, &good(1, 2, 4)), Ok(1));
        assert!(take_in(&mut t, &good(1, 2, 4)[..10]).is_err(), "cut short");
        assert!(take_in(&mut t, &good(2, 2, 4)).is_err(), "no such bound");
        assert!(
            take_in(&mut t, &good(0, 40, 0)).is_err(),
            "score past the board's"
        );
        assert!(take_in(&mut t, &good(0, 2, 8)).is_err(), "column 8 of 7");
        let mut junk = good(0, 2, 0);
        junk[..8].copy_from_slice(&0u64.to_le_bytes());
        assert!(take_in(&mut t, &junk).is_err(), "a key of no position");
    }

    #[test]
    fn bounds_from_another_solve_leave_every_score_exact() {
        // One solver's far bounds, taken in by a second that then solves the same and
        // other positions: the same scores as a plain solver's.
        let strong = transpo_connect4::score::Strength::Strong;
        let table = || BoundTable::new(4).expect("4 MiB");
        let mut first = Solver::with_table(SharingTable::<7, 6, u64>::new(table(), 24));
        let mut second = Solver::with_table(SharingTable::<7, 6, u64>::new(table(), 24));
        let mut plain = Solver::<7, 6, u64>::new(4).expect("4 MiB");
        let roots: Vec<_> = (1..8).filter_map(|seed| game(seed, 16)).collect();
        for pos in &roots[..4] {
            first.solve(pos, strong);
        }
        let records = first.table_mut().take_journal();
        assert!(take_in(second.table_mut(), &records).expect("its own records") > 0);
        for pos in &roots {
            assert_eq!(
                second.solve(pos, strong),
                plain.solve(pos, strong),
                "{pos:?}"
            );
        }
    }
}
