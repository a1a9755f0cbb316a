//! The two lists of a split directory: the split itself ([`Split`], `positions.txt`: the
//! root, the depth, the strength and every leaf of the tree) and each round's positions to
//! search with their windows ([`Round`], `round-K.txt`). Both are a header naming what they
//! are and a checksum of their lines, then one line a position, read within bounds
//! ([`read_listing`]).

use super::{
    OLD_FORMAT, OLD_ROUND, ROUND_MAGIC, ROUND_MAGIC_V2, SPLIT_MAGIC, SPLIT_MAGIC_V1, header_field,
    line_text,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::BufRead;
use std::marker::PhantomData;
use transpo_connect4::book::{MAX_TREE_POSITIONS, Tree, fnv1a};
use transpo_connect4::position::{Bitboard, EMPTY_BOARD, Position};
use transpo_connect4::score::{Strength, Window, win_now_score};
use transpo_files::{Lines, TEXT_LINE_MAX};

/// A split: the tree of a root down to some stones, its leaves in the order the rounds refer
/// to them, and what the rounds must find out of the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// The root's move sequence (`-` for the empty board).
    pub root: String,
    /// Stones of the leaves.
    pub depth: u32,
    /// Whether the root's exact score or only its outcome is sought.
    pub strength: Strength,
    /// Whether every leaf is solved exactly in one round, for a book of the whole tree
    /// (`split --full-book`), rather than only what the root needs.
    pub full_book: bool,
    /// The leaves' move sequences, sorted.
    pub moves: Vec<String>,
    /// The board's word, which the positions are played on.
    pub word: PhantomData<B>,
}

/// One round's positions to search: a subset of a split's leaves, each with its window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    /// The round's number, from 1.
    pub number: u32,
    /// The checksum of the split it belongs to ([`Split::checksum`]).
    pub split: u64,
    /// Stones of its positions (the split's depth).
    pub depth: u32,
    /// The positions' move sequences, in the order the shards number them.
    pub moves: Vec<String>,
    /// The window each position is searched with.
    pub windows: Vec<Window>,
    /// The board's word, which the positions are played on.
    pub word: PhantomData<B>,
}

impl<const W: usize, const H: usize, B: Bitboard> Split<W, H, B> {
    /// The split of `tree`, whose root `root` names (as given: `-` for the empty board).
    pub fn of(tree: &Tree<W, H, B>, root: &str, strength: Strength, full_book: bool) -> Self {
        let mut moves: Vec<String> = tree.leaves().map(|(_, m)| m.clone()).collect();
        moves.sort_unstable();
        Split {
            root: root.to_string(),
            depth: tree.depth(),
            strength,
            full_book,
            moves,
            word: PhantomData,
        }
    }

    /// The checksum of the split: its header's fields and its positions, which its rounds
    /// name.
    pub fn checksum(&self) -> u64 {
        fnv1a(format!("{}\n{}", self.describe(), self.moves.join("\n")).as_bytes())
    }

    /// The header's fields but the count and the checksum.
    fn describe(&self) -> String {
        let strength = match (self.strength, self.full_book) {
            (Strength::Weak, _) => "weak",
            (Strength::Strong, false) => "strong",
            (Strength::Strong, true) => "full-book",
        };
        format!(
            "board {W}x{H} depth {} root {} solve {strength}",
            self.depth, self.root
        )
    }

    /// The file's text: a header, then one move sequence a line.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{SPLIT_MAGIC} {} positions {} checksum {:016x}\n",
            self.describe(),
            self.moves.len(),
            self.checksum()
        );
        for m in &self.moves {
            text.push_str(m);
            text.push('\n');
        }
        text
    }

    /// Reads a split written by [`Split::to_text`]: its header, its length and its checksum,
    /// and that every line is a position of this board with `depth` stones.
    pub fn parse(text: &str) -> Result<Self, String> {
        Split::read(text.as_bytes())
    }

    /// [`Split::parse`] from a reader, line by line: each line is capped at [`TEXT_LINE_MAX`]
    /// bytes and checked for UTF-8, and no more lines are read than the header promises (at
    /// most [`MAX_TREE_POSITIONS`]), so an endless or garbled input costs bounded memory.
    pub fn read(input: impl BufRead) -> Result<Self, String> {
        let (header, lines) = read_listing::<W, H>(input, SPLIT_MAGIC)?;
        let field = |key: &str| header_field(&header, key).ok_or(format!("header: no {key}"));
        let depth = number(&header, "depth")?;
        let (strength, full_book) = match field("solve")? {
            "strong" => (Strength::Strong, false),
            "weak" => (Strength::Weak, false),
            "full-book" => (Strength::Strong, true),
            other => return Err(format!("header: unknown solve {other:?}")),
        };
        let mut moves = Vec::with_capacity(lines.len());
        for (number, line) in lines {
            leaf::<W, H, B>(&line, depth).map_err(|e| format!("line {number}: {e}"))?;
            moves.push(line);
        }
        let split = Split {
            root: field("root")?.to_string(),
            depth,
            strength,
            full_book,
            moves,
            word: PhantomData,
        };
        if field("checksum")? != format!("{:016x}", split.checksum()) {
            return Err("checksum mismatch: the split is corrupt".into());
        }
        Ok(split)
    }

    /// The most shards a round of this split may be dealt to: one a position (at least
    /// one). A later round with fewer positions leaves the extra shards nothing; a count
    /// past this one is refused before it sizes anything.
    pub fn most_shards(&self) -> usize {
        self.moves.len().max(1)
    }

    /// The root position.
    pub fn root_position(&self) -> Result<Position<W, H, B>, String> {
        Position::from_moves(self.root_moves()).map_err(|e| format!("root: {e}"))
    }

    /// The root's move sequence, empty for the empty board: what every position's starts
    /// with.
    pub fn root_moves(&self) -> &str {
        if self.root == EMPTY_BOARD {
            ""
        } else {
            &self.root
        }
    }

    /// The tree whose leaves the split holds.
    pub fn tree(&self) -> Result<Tree<W, H, B>, String> {
        Tree::new(&self.root_position()?, self.root_moves(), self.depth).map_err(|e| e.to_string())
    }

    /// The window the root's solve must decide: [`Window::of`] the strength.
    pub fn window(&self) -> Window {
        Window::of(self.strength)
    }

    /// Round `number`'s list of this split: `asked`, the positions the plan asks for and
    /// their windows.
    pub fn round(&self, number: u32, asked: Vec<(String, Window)>) -> Round<W, H, B> {
        let (moves, windows) = asked.into_iter().unzip();
        Round {
            number,
            split: self.checksum(),
            depth: self.depth,
            moves,
            windows,
            word: PhantomData,
        }
    }

    /// Round 1 of `split --full-book`: every leaf, each with a window wider than any score it
    /// can have, so that every one is solved exactly.
    pub fn full_round(&self) -> Round<W, H, B> {
        let most = win_now_score(W * H, self.depth);
        let exact = Window {
            alpha: -most - 1,
            beta: most + 1,
        };
        self.round(1, self.moves.iter().map(|m| (m.clone(), exact)).collect())
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Round<W, H, B> {
    /// The indices of the positions of `shard`, in the list's order ([`Round::owners`]).
    /// Memory is bounded by the round's positions whatever `shard.count`.
    pub fn of_shard(&self, shard: super::Shard) -> Vec<usize> {
        let mine = shard.index.wrapping_sub(1);
        self.owners(shard.count)
            .into_iter()
            .enumerate()
            .filter(|&(_, owner)| owner == mine)
            .map(|(i, _)| i)
            .collect()
    }

    /// The indices of each shard's positions, in the list's order, when the round is dealt
    /// to `count` shards ([`Round::owners`]): one list a shard that holds a position, at most
    /// one a position whatever `count` (shards past the last listed hold none).
    pub fn shares(&self, count: usize) -> Vec<Vec<usize>> {
        let mut shares = vec![Vec::new(); count.clamp(1, self.moves.len().max(1))];
        for (i, owner) in self.owners(count).into_iter().enumerate() {
            shares[owner].push(i);
        }
        shares
    }

    /// The shard (0-based) of each position when the round is dealt to `count` shards.
    /// Neighbours go together: the positions are grouped by their moves without the last
    /// few, as many dropped as still leave a group for every shard (or one a position, if
    /// there are fewer positions than shards) and no shard more than twice its share of the
    /// positions, and the groups are dealt largest first, each to the shard holding the
    /// fewest positions so far (the lowest on a tie). One position a group always passes.
    ///
    /// Why: positions that differ only in their last moves share most of their subtrees, so
    /// the shard that searches them together finds each shared position in its table; and a
    /// position asked again in a later round mostly finds its group, and its shard's table
    /// file, where it was. Grouped, two shards searched fewer positions than with every
    /// position dealt by its own hash (measured: docs/connect4/rounds.md, 2026-11-26,
    /// “neighbours dealt together”).
    ///
    /// More shards than positions deal one position to each of the first shards, as many
    /// shards as positions would: the count is cut to the positions before it sizes
    /// anything, so memory is bounded by the round's positions whatever `count`.
    pub fn owners(&self, count: usize) -> Vec<usize> {
        let n = self.moves.len();
        // With `count` ≥ `n` only one position a group leaves a group for every shard, and
        // the deal gives the groups to the first `n` shards in turn: the same as `n` shards.
        let count = count.clamp(1, n.max(1));
        // The positions sorted by their moves: a group's positions lie side by side.
        let mut sorted: Vec<usize> = (0..n).collect();
        sorted.sort_by(|&a, &b| self.moves[a].cmp(&self.moves[b]));
        let prefix = |i: usize, drop: usize| {
            let m = self.moves[i].as_bytes();
            &m[..m.len().saturating_sub(drop)]
        };
        let groups_after = |drop: usize| -> Vec<&[usize]> {
            sorted
                .chunk_by(|&a, &b| prefix(a, drop) == prefix(b, drop))
                .collect()
        };
        // The coarsest grouping that passes; one position a group (drop 0) always does.
        let longest = self.moves.iter().map(String::len).max().unwrap_or(0);
        let most = (n * 2).div_ceil(count).max(1);
        for drop in (1..=longest).rev() {
            let groups = groups_after(drop);
            if groups.len() < count.min(n) {
                continue;
            }
            let (owner, load) = deal(groups, n, count);
            if load.iter().all(|&held| held <= most) {
                return owner;
            }
        }
        deal(groups_after(0), n, count).0
    }

    /// The checksum of the round's positions and windows, which its results files name.
    pub fn checksum(&self) -> u64 {
        fnv1a(self.lines().collect::<Vec<_>>().join("\n").as_bytes())
    }

    /// The lines: `moves alpha beta`.
    fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.moves
            .iter()
            .zip(&self.windows)
            .map(|(m, w)| format!("{m} {} {}", w.alpha, w.beta))
    }

    /// The file's text: a header, then one `moves alpha beta` line a position.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{ROUND_MAGIC} board {W}x{H} split {:016x} round {} depth {} positions {} \
             checksum {:016x}\n",
            self.split,
            self.number,
            self.depth,
            self.moves.len(),
            self.checksum()
        );
        for line in self.lines() {
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// Reads a round written by [`Round::to_text`], checking its header, its length, its
    /// checksum, and that every line is a position of this board with the round's stones and
    /// a window within the scores it can have.
    pub fn parse(text: &str) -> Result<Self, String> {
        Round::read(text.as_bytes())
    }

    /// [`Round::parse`] from a reader, within the same bounds as [`Split::read`].
    pub fn read(input: impl BufRead) -> Result<Self, String> {
        let (header, lines) = read_listing::<W, H>(input, ROUND_MAGIC)?;
        let field = |key: &str| header_field(&header, key).ok_or(format!("header: no {key}"));
        let depth = number(&header, "depth")?;
        let split = u64::from_str_radix(field("split")?, 16).map_err(|_| "header: bad split")?;
        let round_number = number(&header, "round")?;
        if round_number == 0 {
            return Err("header: round 0".into());
        }
        let most = win_now_score(W * H, depth);
        let (mut moves, mut windows) = (Vec::new(), Vec::new());
        for (number, line) in lines {
            let bad = |why: &str| format!("line {number}: {line:?}: {why}");
            let mut fields = line.split(' ');
            let (Some(m), Some(alpha), Some(beta), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(bad("not `moves alpha beta`"));
            };
            leaf::<W, H, B>(m, depth).map_err(|e| bad(&e))?;
            let bound = |text: &str| {
                text.parse::<i32>()
                    .ok()
                    .filter(|v| v.unsigned_abs() <= most.unsigned_abs() + 1)
                    .ok_or_else(|| bad("a window bound out of range"))
            };
            let window = Window {
                alpha: bound(alpha)?,
                beta: bound(beta)?,
            };
            if window.alpha >= window.beta {
                return Err(bad("an empty window"));
            }
            moves.push(m.to_string());
            windows.push(window);
        }
        let round = Round {
            number: round_number,
            split,
            depth,
            moves,
            windows,
            word: PhantomData,
        };
        if field("checksum")? != format!("{:016x}", round.checksum()) {
            return Err("checksum mismatch: the round's list is corrupt".into());
        }
        Ok(round)
    }
}

/// Deals `groups` of the `n` positions of a round to `count` shards, largest first, each to
/// the shard holding the fewest positions so far (the lowest on a tie): each position's
/// shard, and how many positions each shard holds.
fn deal(mut groups: Vec<&[usize]>, n: usize, count: usize) -> (Vec<usize>, Vec<usize>) {
    // Largest first; among equals, in the order of their moves (a stable sort).
    groups.sort_by_key(|g| Reverse(g.len()));
    let mut load = vec![0usize; count];
    let mut owner = vec![0usize; n];
    // The shards by the positions they hold, fewest (then lowest) first.
    let mut emptiest: BinaryHeap<Reverse<(usize, usize)>> =
        (0..count).map(|shard| Reverse((0, shard))).collect();
    for group in groups {
        let Some(Reverse((held, shard))) = emptiest.pop() else {
            break; // No shard: `count` is at least 1 (see `owners`).
        };
        load[shard] = held + group.len();
        emptiest.push(Reverse((load[shard], shard)));
        for &i in group {
            owner[i] = shard;
        }
    }
    (owner, load)
}

/// A header's number `key`, which must fit a `u32`.
fn number(header: &str, key: &str) -> Result<u32, String> {
    header_field(header, key)
        .ok_or(format!("header: no {key}"))?
        .parse::<u32>()
        .map_err(|_| format!("header: bad {key}"))
}

/// Checks that `moves` is a position of the board with `depth` stones.
fn leaf<const W: usize, const H: usize, B: Bitboard>(
    moves: &str,
    depth: u32,
) -> Result<(), String> {
    let pos = Position::<W, H, B>::from_moves(moves).map_err(|e| format!("{moves:?}: {e}"))?;
    if pos.moves() != depth {
        return Err(format!("{moves:?} has not {depth} stones"));
    }
    Ok(())
}

/// Reads a listing: a header starting with `magic`, for this board, naming how many lines
/// follow (`positions`, at most [`MAX_TREE_POSITIONS`]), then exactly that many lines, each
/// capped at [`TEXT_LINE_MAX`] bytes and checked for UTF-8, so an endless or garbled input
/// costs bounded memory and is a clear error. Returns the header and the numbered lines.
fn read_listing<const W: usize, const H: usize>(
    input: impl BufRead,
    magic: &str,
) -> Result<(String, Vec<(usize, String)>), String> {
    let mut lines = Lines::new(input, TEXT_LINE_MAX);
    let header = match lines.next() {
        Some(line) => line_text(line)?,
        None => String::new(),
    };
    if header.starts_with(SPLIT_MAGIC_V1) {
        return Err(OLD_FORMAT.into());
    }
    if header.starts_with(ROUND_MAGIC_V2) {
        return Err(OLD_ROUND.into());
    }
    if !header.starts_with(magic) {
        return Err(format!("no header {magic:?}: not this kind of file"));
    }
    let board = header_field(&header, "board").ok_or("header: no board")?;
    if board != format!("{W}x{H}") {
        return Err(format!("header: board {board}, expected {W}x{H}"));
    }
    let count = header_field(&header, "positions")
        .ok_or("header: no positions")?
        .parse::<u64>()
        .map_err(|_| "header: bad positions")?;
    if count > MAX_TREE_POSITIONS as u64 {
        return Err(format!(
            "header: {count} positions, more than a split holds ({MAX_TREE_POSITIONS})"
        ));
    }
    let mut read = Vec::new();
    for line in lines {
        let number = line.as_ref().map_or(0, |l| l.number);
        let text = line_text(line)?;
        if read.len() as u64 == count {
            return Err(format!(
                "the header says {count} positions, the file has more: it is corrupt"
            ));
        }
        read.push((number, text));
    }
    if (read.len() as u64) < count {
        return Err(format!(
            "the header says {count} positions, the file has {}: it is incomplete",
            read.len()
        ));
    }
    Ok((header, read))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 4×4 split of the positions with 2 stones (strong).
    fn split() -> Split<4, 4> {
        let tree = Tree::new(&Position::<4, 4>::new(), "", 2).expect("a small tree");
        Split::of(&tree, EMPTY_BOARD, Strength::Strong, false)
    }

    /// A split and a round read back as they were written; the split names its strength and
    /// the round its split, so that a round of another split (or strength) is not taken.
    #[test]
    fn splits_and_rounds_read_back() {
        let split = split();
        assert_eq!(Split::<4, 4>::parse(&split.to_text()), Ok(split.clone()));
        let weak = Split {
            strength: Strength::Weak,
            ..split.clone()
        };
        assert_ne!(weak.checksum(), split.checksum());
        assert_eq!(Split::<4, 4>::parse(&weak.to_text()), Ok(weak));
        let round = split.round(
            3,
            vec![(split.moves[1].clone(), Window { alpha: -1, beta: 0 })],
        );
        assert_eq!(Round::<4, 4>::parse(&round.to_text()), Ok(round.clone()));
        assert_eq!(round.split, split.checksum());
        // A window changed by hand fails the checksum; an empty one is refused.
        let text = round.to_text();
        let changed = text.replacen(" -1 0\n", " -2 0\n", 1);
        assert!(
            Round::<4, 4>::parse(&changed)
                .expect_err("changed")
                .contains("checksum")
        );
        let empty = text.replacen(" -1 0\n", " 0 0\n", 1);
        assert!(
            Round::<4, 4>::parse(&empty)
                .expect_err("empty")
                .contains("empty window")
        );
        // The format before rounds is named as such, and so is a round's list of v2, whose
        // positions were dealt to shards otherwise.
        let old = "# transpo-c4 split v1 board 4x4 depth 2 root - positions 0 checksum 0\n";
        assert!(
            Split::<4, 4>::parse(old)
                .expect_err("v1")
                .contains("before rounds")
        );
        let v2 = text.replacen("round-list v3", "round-list v2", 1);
        let e = Round::<4, 4>::parse(&v2).expect_err("v2");
        assert!(e.contains("earlier version (v2)"), "{e}");
        assert_eq!(crate::split::board_of(&v2), Err(e));
    }

    /// A round of `moves`, each with the same window (the deal looks at the moves alone).
    fn round_of(moves: &[&str]) -> Round<4, 4> {
        Round {
            number: 1,
            split: 0,
            depth: 4,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            windows: vec![Window { alpha: -1, beta: 0 }; moves.len()],
            word: PhantomData,
        }
    }

    /// The shards of a round: a partition of its positions, in the list's order, whatever
    /// their number; positions that differ in their last moves only go together while that
    /// leaves every shard a group; the groups are dealt largest first to the emptiest shard.
    #[test]
    fn a_round_is_dealt_to_shards_in_groups_of_neighbours() {
        let moves = [
            "3121", "1234", "2121", "1233", "3122", "1243", "2122", "3211",
        ];
        let round = round_of(&moves);
        for count in 1..=10 {
            let owners = round.owners(count);
            let mut all: Vec<usize> = (1..=count)
                .flat_map(|index| round.of_shard(crate::split::Shard { index, count }))
                .collect();
            for index in 1..=count {
                let mine = round.of_shard(crate::split::Shard { index, count });
                assert!(mine.windows(2).all(|w| w[0] < w[1]), "list order");
                assert!(mine.iter().all(|&i| owners[i] == index - 1));
            }
            all.sort_unstable();
            assert_eq!(all, (0..moves.len()).collect::<Vec<_>>(), "{count} shards");
        }
        let shard_of = |count: usize, m: &str| {
            round.owners(count)[moves.iter().position(|x| *x == m).expect("in the list")]
        };
        // Two shards, three groups by the first move: 1… (3 positions) to shard 0, then 3…
        // (3) to shard 1, then 2… (2) to shard 0, the emptier on a tie broken by number.
        for m in ["1234", "1233", "1243", "2121", "2122"] {
            assert_eq!(shard_of(2, m), 0, "{m}");
        }
        for m in ["3121", "3122", "3211"] {
            assert_eq!(shard_of(2, m), 1, "{m}");
        }
        // Four shards: the first moves leave three groups, too few; the first two moves leave
        // five (12: 3, 21: 2, 31: 2, 32: 1), dealt 3, 2, 2, 1.
        let four = round.owners(4);
        let mut loads = [0; 4];
        for &o in &four {
            loads[o] += 1;
        }
        assert_eq!(loads, [3, 2, 2, 1]);
        assert_eq!(shard_of(4, "1234"), shard_of(4, "1243"));
        assert_eq!(shard_of(4, "3121"), shard_of(4, "3122"));
        assert_ne!(shard_of(4, "3121"), shard_of(4, "3211"));
        // As many shards as positions or more: one position a shard.
        for count in [8, 10] {
            let mut owners = round.owners(count);
            owners.sort_unstable();
            owners.dedup();
            assert_eq!(owners.len(), moves.len(), "{count} shards");
        }
        assert!(round_of(&[]).owners(3).is_empty());
        // No shard gets more than twice its share while a finer grouping is left: eight
        // positions under one first move and one under each of two others, on three shards,
        // are grouped by two moves.
        let lopsided = [
            "1111", "1112", "1121", "1122", "1211", "1212", "1221", "1222", "2111", "3111",
        ];
        let owners = round_of(&lopsided).owners(3);
        assert_eq!(owners, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
    }

    /// A list is read no further than its header promises, each line capped.
    #[test]
    fn a_list_longer_than_its_header_is_refused() {
        let list = split().full_round();
        let text = list.to_text();
        assert_eq!(Round::<4, 4>::parse(&text), Ok(list.clone()));
        let longer = format!("{text}{} -9 9\n", list.moves[0]);
        assert!(
            Round::<4, 4>::parse(&longer)
                .expect_err("longer")
                .contains("the file has more")
        );
        let long_line = format!("{text}{}\n", "1".repeat(TEXT_LINE_MAX + 1));
        let e = Round::<4, 4>::parse(&long_line).expect_err("long line");
        assert!(e.contains("line too long") || e.contains("has more"), "{e}");
        let huge = text.replacen(
            &format!("positions {}", list.moves.len()),
            "positions 99999999999",
            1,
        );
        assert!(
            Round::<4, 4>::parse(&huge)
                .expect_err("huge")
                .contains("more than a split holds")
        );
    }
}
