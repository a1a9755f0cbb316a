//! The positions the top tree's replays met, each held once ([`Nodes`]): the range known of
//! it, its best move, the null windows it was expanded for, and (once expanded) its children
//! as the rules give them and its moves in the solver's order.
//!
//! Why: a replay from the root visits a few hundred nodes after every batch of answers, and
//! at each it read every child's range by key, asked the rules of each child it did not
//! hold, and sorted its moves; with its best move and its windows in two more maps, the
//! manager spent 0.6 µs a node. What the rules and the move order say of a position never
//! changes, so it is worked out at the node's first expansion, and a child is then an index
//! into one array instead of a key to compute and look up (measured: docs/connect4/mpi.md,
//! 2026-11-30, “the top tree's nodes held by index”).

use super::super::KeyHash;
use crate::split::{settled, trivial, unsettled};
use std::collections::{HashMap, HashSet};
use transpo_connect4::moves::MoveSorter;
use transpo_connect4::position::{Bitboard, Position};

/// A child as a replay reads it: settled by the rules (its one score), or a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Child {
    /// The rules give this score without a search ([`settled`]): nothing narrows it.
    Settled(i32),
    /// The node of this index ([`Nodes::range`], [`Nodes::key`]).
    Node(u32),
}

/// What the top tree holds of one position.
#[derive(Clone, Debug)]
struct Node<B> {
    key: B,
    /// The range its score is known to lie in: [`unsettled`]'s until something narrows it.
    range: (i32, i32),
    /// Whether an answer, a search or the state file narrowed it (the state file keeps
    /// those: the others the rules give again).
    learned: bool,
    /// The column of the move that last cut it off, if any.
    best: Option<u8>,
    /// The null windows (by their alpha, offset by [`WINDOW_OFFSET`]) it was expanded for.
    windows: u128,
    /// Its children's entry in [`Nodes::expansions`], once expanded.
    expansion: Option<u32>,
    /// Whether a step split its job ([`Nodes::set_split`]).
    split: Split,
}

/// Whether a step split a node's job: the top tree then searches the node itself, and its
/// children (or deeper) are the jobs. Kept until the line ends, so that the jobs under it,
/// once sent, stay needed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Split {
    /// The node's job was split.
    pub(super) split: bool,
    /// It was split after a step had asked for it (it may be running): it stays asked
    /// beside its children's jobs, whichever answers first.
    pub(super) beside: bool,
}

/// What the rules say of a node's children, worked out once, for the node's position as
/// its symmetric key writes it (the one of the two mirror images whose [`Position::key`]
/// is the smaller); the other image reads it with its columns reversed ([`Side`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Expansion<const W: usize> {
    /// Each column's child, if playing there does not hand the opponent a win at once.
    children: [Option<Child>; W],
    /// Those columns in the solver's order ([`MoveSorter`] with no best move first), for
    /// each image: its order breaks ties between equal moves by their place, which a
    /// reflection changes.
    orders: [[u8; W]; 2],
    len: u8,
}

/// Which of a node's two mirror images a search stands on: the one its expansion was
/// worked out for, or the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Side(bool);

impl Side {
    /// The side of `pos`.
    pub(super) fn of<const W: usize, const H: usize, B: Bitboard>(pos: &Position<W, H, B>) -> Self {
        Side(pos.key() > pos.mirror_key())
    }

    /// Column `col` of this side as the expansion holds it.
    fn column<const W: usize>(self, col: usize) -> usize {
        if self.0 { W - 1 - col } else { col }
    }
}

impl<const W: usize> Expansion<W> {
    /// The child in column `col` of `side`'s image, if that move does not lose at once.
    pub(super) fn child(&self, side: Side, col: usize) -> Option<Child> {
        self.children[side.column::<W>(col)]
    }
}

/// A node's moves in the order a search tries them: its best move first, then the others in
/// the solver's order. An iterator of columns and children, which a search may stop and
/// another go on.
#[derive(Clone, Debug)]
pub(super) struct Order<const W: usize> {
    moves: [(u8, Child); W],
    len: u8,
    next: u8,
}

impl<const W: usize> Order<W> {
    /// The moves of `expansion` seen from `side`, the one in column `best` (if one of
    /// them) first.
    pub(super) fn new(expansion: &Expansion<W>, side: Side, best: Option<usize>) -> Self {
        let mut moves = [(0, Child::Settled(0)); W];
        let mut len = 0;
        let first = best.and_then(|col| Some((col, expansion.child(side, col)?)));
        if let Some((col, child)) = first {
            moves[0] = (col as u8, child);
            len = 1;
        }
        let order = &expansion.orders[usize::from(side.0)];
        for &col in &order[..usize::from(expansion.len)] {
            let col = usize::from(col);
            if first.is_some_and(|(best, _)| best == col) {
                continue;
            }
            if let Some(child) = expansion.child(side, col) {
                moves[len] = (col as u8, child);
                len += 1;
            }
        }
        Order {
            moves,
            len: len as u8,
            next: 0,
        }
    }
}

impl<const W: usize> Iterator for Order<W> {
    type Item = (usize, Child);

    fn next(&mut self) -> Option<(usize, Child)> {
        let &(col, child) = self.moves[..usize::from(self.len)].get(usize::from(self.next))?;
        self.next += 1;
        Some((usize::from(col), child))
    }
}

/// Alphas from −64 to 63 are held in a node's [`Node::windows`]; any other (on no board a
/// `u128` bitboard holds) in [`Nodes::wide`].
const WINDOW_OFFSET: i32 = 64;

/// The positions the top tree's replays met, by index, and the index of each key.
#[derive(Clone, Debug)]
pub(super) struct Nodes<const W: usize, const H: usize, B: Bitboard> {
    index: HashMap<B, u32, KeyHash>,
    nodes: Vec<Node<B>>,
    expansions: Vec<Expansion<W>>,
    /// The (node, window) pairs expanded: the positions the manager explored.
    expanded: u64,
    /// Those whose alpha lies outside [`Node::windows`]'s.
    wide: HashSet<(u32, i32)>,
}

impl<const W: usize, const H: usize, B: Bitboard> Default for Nodes<W, H, B> {
    fn default() -> Self {
        Nodes {
            index: HashMap::default(),
            nodes: Vec::new(),
            expansions: Vec::new(),
            expanded: 0,
            wide: HashSet::new(),
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Nodes<W, H, B> {
    /// Forgets every position.
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    /// The (node, window) pairs expanded so far.
    pub(super) fn expanded(&self) -> u64 {
        self.expanded
    }

    /// `pos` as a child: the node of its key if there is one (its range may have been
    /// narrowed), else settled if the rules settle it, else a new node with [`unsettled`]'s
    /// range.
    pub(super) fn child(&mut self, pos: &Position<W, H, B>) -> Child {
        let key = pos.symmetric_key();
        if let Some(&at) = self.index.get(&key) {
            return Child::Node(at);
        }
        match settled(pos) {
            Some(exact) => Child::Settled(exact),
            None => Child::Node(self.insert(key, unsettled(pos), false)),
        }
    }

    /// A new node (its key not held yet).
    fn insert(&mut self, key: B, range: (i32, i32), learned: bool) -> u32 {
        // Each node is a position the manager met: far fewer than 2^32.
        let at = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(Node {
            key,
            range,
            learned,
            best: None,
            windows: 0,
            expansion: None,
            split: Split::default(),
        });
        self.index.insert(key, at);
        at
    }

    /// The range known of `child`.
    pub(super) fn range(&self, child: Child) -> (i32, i32) {
        match child {
            Child::Settled(exact) => (exact, exact),
            Child::Node(at) => self.nodes[at as usize].range,
        }
    }

    /// The key of node `at`.
    pub(super) fn key(&self, at: u32) -> B {
        self.nodes[at as usize].key
    }

    /// The column of the move that last cut node `at` off.
    pub(super) fn best(&self, at: u32) -> Option<usize> {
        self.nodes[at as usize].best.map(usize::from)
    }

    /// Takes in that node `at`'s best move is in column `col`.
    pub(super) fn set_best(&mut self, at: u32, col: usize) {
        self.nodes[at as usize].best = Some(col as u8);
    }

    /// Narrows node `at`'s range to its overlap with `range`; `false`, changing nothing, if
    /// they do not overlap (some answer is wrong).
    pub(super) fn narrow(&mut self, at: u32, range: (i32, i32)) -> bool {
        let node = &mut self.nodes[at as usize];
        let (lo, hi) = (node.range.0.max(range.0), node.range.1.min(range.1));
        if lo > hi {
            return false;
        }
        node.range = (lo, hi);
        node.learned = true;
        true
    }

    /// [`Nodes::narrow`] for `pos` (a worker's answer), made a node with [`trivial`]'s range
    /// if it is none yet.
    pub(super) fn learn(&mut self, pos: &Position<W, H, B>, range: (i32, i32)) -> bool {
        let key = pos.symmetric_key();
        let at = match self.index.get(&key) {
            Some(&at) => at,
            None => self.insert(key, trivial(pos), false),
        };
        self.narrow(at, range)
    }

    /// Puts back a range read from the state file.
    pub(super) fn restore(&mut self, key: B, range: (i32, i32)) {
        match self.index.get(&key) {
            Some(&at) => {
                let node = &mut self.nodes[at as usize];
                node.range = range;
                node.learned = true;
            }
            None => {
                self.insert(key, range, true);
            }
        }
    }

    /// The range of `key` if something narrowed it (an answer, a search, the state file).
    pub(super) fn learned_range(&self, key: B) -> Option<(i32, i32)> {
        let node = &self.nodes[*self.index.get(&key)? as usize];
        node.learned.then_some(node.range)
    }

    /// Every range narrowed from the rules', by key (for the state file).
    pub(super) fn learned(&self) -> impl Iterator<Item = (B, (i32, i32))> + '_ {
        self.nodes
            .iter()
            .filter(|node| node.learned)
            .map(|node| (node.key, node.range))
    }

    /// Whether node `at`'s job was split.
    pub(super) fn split(&self, at: u32) -> Split {
        self.nodes[at as usize].split
    }

    /// Whether the job of the node of `key` was split while it was asked (false for a key
    /// of no node).
    pub(super) fn split_beside(&self, key: B) -> bool {
        self.index
            .get(&key)
            .is_some_and(|&at| self.nodes[at as usize].split.beside)
    }

    /// Splits the job of the node of `key`, which a step had asked for before if `asked`;
    /// whether it was not split before. A key of no node (no step met it) is left alone.
    pub(super) fn set_split(&mut self, key: B, asked: bool) -> bool {
        let Some(&at) = self.index.get(&key) else {
            return false;
        };
        let split = &mut self.nodes[at as usize].split;
        let fresh = !split.split;
        split.split = true;
        split.beside |= asked;
        fresh
    }

    /// Counts node `at` expanded for the null window above `alpha` (once each).
    pub(super) fn expand(&mut self, at: u32, alpha: i32) {
        let fresh = match u32::try_from(alpha + WINDOW_OFFSET) {
            Ok(bit) if bit < 128 => {
                let windows = &mut self.nodes[at as usize].windows;
                let fresh = *windows & (1 << bit) == 0;
                *windows |= 1 << bit;
                fresh
            }
            _ => self.wide.insert((at, alpha)),
        };
        self.expanded += u64::from(fresh);
    }

    /// The children of node `at` (whose position is `pos` or its mirror image), worked out
    /// at its first call.
    pub(super) fn expansion(&mut self, at: u32, pos: &Position<W, H, B>) -> Expansion<W> {
        let entry = match self.nodes[at as usize].expansion {
            Some(entry) => entry,
            None => {
                let expansion = match Side::of(pos) {
                    Side(false) => self.work_out(pos),
                    Side(true) => self.work_out(&pos.mirror()),
                };
                let entry = u32::try_from(self.expansions.len()).unwrap_or(u32::MAX);
                self.expansions.push(expansion);
                self.nodes[at as usize].expansion = Some(entry);
                entry
            }
        };
        self.expansions[entry as usize]
    }

    /// What the rules say of `pos`'s children: each move that does not lose at once, as a
    /// child, and their order, for `pos` and for its mirror image.
    fn work_out(&mut self, pos: &Position<W, H, B>) -> Expansion<W> {
        let mut children = [None; W];
        let mut rest = pos.non_losing_moves();
        while rest != B::ZERO {
            let square = rest.lowest();
            rest &= rest - B::ONE;
            children[Position::<W, H, B>::column_of(square)] = Some(self.child(&pos.after(square)));
        }
        let mut orders = [[0; W]; 2];
        let mut len = 0;
        for (image, order) in [*pos, pos.mirror()].iter().zip(&mut orders) {
            let mut sorter = MoveSorter::<W, H, B>::EMPTY;
            sorter.start_at(image, None);
            len = 0;
            while let Some((square, _)) = sorter.next(image) {
                order[len] = Position::<W, H, B>::column_of(square) as u8;
                len += 1;
            }
        }
        Expansion {
            children,
            orders,
            len: len as u8,
        }
    }
}

/// The square a move in column `col` of `pos` fills.
pub(super) fn square_in<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    col: usize,
) -> B {
    pos.possible() & Position::<W, H, B>::column_mask(col)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Along random games, each position expanded first from one mirror image and then
    /// read from the other gives, from either, the moves the solver's sorter gives that
    /// image (its best move first), each with the child the rules and the keys give.
    #[test]
    fn either_mirror_image_reads_its_own_moves() {
        let mut nodes = Nodes::<7, 6, u64>::default();
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut random = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut flipped, mut read) = (0, 0);
        for _ in 0..200 {
            let mut pos = Position::<7, 6, u64>::new();
            while settled(&pos).is_none() {
                let Child::Node(at) = nodes.child(&pos) else {
                    panic!("an unsettled position is a node");
                };
                let best = (random(3) == 0).then(|| random(7));
                for image in [pos, pos.mirror()] {
                    let side = Side::of(&image);
                    flipped += usize::from(side.0);
                    let expansion = nodes.expansion(at, &image);
                    let got: Vec<_> = Order::new(&expansion, side, best).collect();
                    let mut sorter = MoveSorter::<7, 6, u64>::EMPTY;
                    sorter.start_at(&image, best);
                    let mut want = Vec::new();
                    while let Some((square, _)) = sorter.next(&image) {
                        let child = image.after(square);
                        let known = match settled(&child) {
                            Some(exact) => Child::Settled(exact),
                            None => Child::Node(nodes.index[&child.symmetric_key()]),
                        };
                        want.push((Position::<7, 6, u64>::column_of(square), known));
                    }
                    assert_eq!(got, want, "{image:?} best {best:?}");
                    read += 1;
                }
                let moves = pos.non_losing_moves();
                let squares: Vec<u64> = (0..7)
                    .map(|col| moves & Position::<7, 6, u64>::column_mask(col))
                    .filter(|&square| square != 0)
                    .collect();
                pos = pos.after(squares[random(squares.len())]);
            }
        }
        assert!(flipped > 100 && read > 1000, "{flipped} flipped of {read}");
    }

    /// A node counts each window once, inside the mask or outside it; a range narrows to
    /// the overlap, and one that does not overlap is refused and changes nothing.
    #[test]
    fn windows_count_once_and_ranges_only_narrow() {
        let mut nodes = Nodes::<7, 6, u64>::default();
        let pos = Position::<7, 6, u64>::from_moves("4453").expect("a position");
        let Child::Node(at) = nodes.child(&pos) else {
            panic!("not settled");
        };
        for alpha in [0, -3, 0, 200, 200, -64, 63, -65, -3] {
            nodes.expand(at, alpha);
        }
        assert_eq!(nodes.expanded(), 6);
        assert_eq!(nodes.learned_range(pos.symmetric_key()), None);
        let start = nodes.range(Child::Node(at));
        assert_eq!(start, unsettled(&pos));
        assert!(nodes.narrow(at, (-2, 5)));
        assert_eq!(
            nodes.range(Child::Node(at)),
            (start.0.max(-2), start.1.min(5))
        );
        assert!(!nodes.narrow(at, (6, 9)));
        assert_eq!(
            nodes.learned_range(pos.symmetric_key()),
            Some((start.0.max(-2), start.1.min(5)))
        );
        assert!(nodes.learn(&pos.mirror(), (0, 0)));
        assert_eq!(
            nodes.learned().collect::<Vec<_>>(),
            [(pos.symmetric_key(), (0, 0))]
        );
    }
}
