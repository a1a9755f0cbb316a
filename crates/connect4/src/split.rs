//! One big solve spread over many machines, in three steps that any batch scheduler can run
//! (Slurm job arrays, GNU parallel over ssh; the README shows both):
//!
//! 1. `transpo-c4 split --board WxH --depth D --out DIR` writes `DIR/positions.txt`, the
//!    leaves of the [`Tree`] of the root down to `D` stones: every position with `D` stones
//!    whose game is not over, one of each mirror pair and transposition ([`List`]).
//! 2. `transpo-c4 solve-list DIR --shard I/N` solves every `N`-th of them, from the `I`-th,
//!    and appends `moves score nodes micros check` lines to `DIR/results-I-of-N.txt`
//!    ([`Results`]), each line in one write: a shard killed at any moment and started again
//!    goes on after its last complete line (or, killed before its header was whole, starts
//!    over). A run holds an advisory lock on its results file, so a second run of the same
//!    shard is refused instead of interleaving its lines with the first's.
//! 3. `transpo-c4 merge DIR` reads the list and every shard's results and scores the whole
//!    tree by minimax ([`Tree::into_book`]): the root's score and a book of every position
//!    up to `D` stones. A shard missing, incomplete, or with a corrupt line is named, and the
//!    merge stops (exit status 3 for a shard missing or incomplete: another round of
//!    `solve-list` is needed; 2 for a corrupt or foreign file).
//!
//! The files on disk (the list read and written, the results files of a directory) are
//! `split/files.rs`'s; a shard's run, its resume policy and its lock, is [`ResultsFile`] and
//! [`solve_shard`] (`split/solve_list.rs`).
//!
//! With `--weak`, `solve-list` solves the positions weakly (1, 0, −1) and `merge` gives the
//! root's weak score, the outcome, and no book: the question of the published outcome tables,
//! answered for less (a weak solve proves one bound where a strong one proves two).
//!
//! Why files and not a network: a scheduler already knows how to run a command on many
//! machines and retry it; what it cannot do is share a table, and none is needed, since the
//! positions at depth `D` are independent problems. Each file's header names the board, the
//! list (by a checksum of its lines) and the shard, so results can never be merged into the
//! wrong solve; each result line carries a checksum of its move sequence and score.

use crate::board::Board;
use crate::book::{Book, MAX_TREE_POSITIONS, Tree, fnv1a};
use crate::exit::Failure;
use crate::position::Position;
use crate::score::{Strength, finish, win_now_score};
use std::collections::HashMap;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::str::FromStr;
use transpo_files::{Lines, TEXT_LINE_MAX};

mod files;
mod solve_list;

pub use files::{list_board, results_files};
pub use solve_list::{ResultsFile, ShardRun, solve_shard};

/// The list's file in a split directory.
pub const LIST_FILE: &str = "positions.txt";
/// The first word of a list's header.
const LIST_MAGIC: &str = "# transpo-c4 split v1";
/// The first word of a results file's header.
const RESULTS_MAGIC: &str = "# transpo-c4 solve-list v1";

/// `I/N`: the units of work (positions of a list, cells of a lab matrix) whose 0-based index
/// modulo `N` is `I − 1` (1-based, like Slurm array ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// This shard, 1 to `count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Whether unit `i` (0-based) belongs to this shard.
    pub fn contains(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }

    /// The units of this shard.
    pub fn select<T>(&self, units: Vec<T>) -> Vec<T> {
        units
            .into_iter()
            .enumerate()
            .filter(|(i, _)| self.contains(*i))
            .map(|(_, u)| u)
            .collect()
    }

    /// How many of `total` units (indices `0..total`) belong to this shard.
    pub fn units(&self, total: usize) -> usize {
        if total < self.index {
            0
        } else {
            (total - self.index) / self.count + 1
        }
    }

    /// The results file of this shard: `results-I-of-N.txt`.
    pub fn file_name(&self) -> String {
        format!("results-{}-of-{}.txt", self.index, self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("bad shard {s:?}: expected I/N with 1 ≤ I ≤ N, e.g. 3/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The text of a line read by [`Lines`], or an error naming the line (or the read error).
fn line_text(line: io::Result<transpo_files::Line>) -> Result<String, String> {
    let line = line.map_err(|e| format!("read error: {e}"))?;
    line.text.map_err(|e| format!("line {}: {e}", line.number))
}

/// The value of `key` in a header's `key value` pairs.
fn header_field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let mut words = header.split_whitespace();
    while let Some(word) = words.next() {
        if word == key {
            return words.next();
        }
    }
    None
}

/// The board a list or results file is for, from its header (its first line), so that a
/// command can pick the solver compiled for it before reading the rest.
pub fn board_of(text: &str) -> Result<Board, String> {
    let header = text.lines().next().unwrap_or_default();
    if !header.starts_with(LIST_MAGIC) && !header.starts_with(RESULTS_MAGIC) {
        return Err("not a transpo-c4 split list or results file (no header)".into());
    }
    header_field(header, "board")
        .ok_or("the header names no board")?
        .parse()
        .map_err(|e| format!("header: {e}"))
}

/// The positions of a split: the leaves of a [`Tree`], as move sequences, in the order the
/// shards number them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List<const W: usize = 7, const H: usize = 6> {
    /// The root's move sequence (`-` for the empty board).
    pub root: String,
    /// Stones of the positions.
    pub depth: u32,
    /// The positions' move sequences.
    pub moves: Vec<String>,
}

impl<const W: usize, const H: usize> List<W, H> {
    /// The leaves of `tree`, whose root `root` names (as it was given: `-` for the empty
    /// board).
    pub fn of(tree: &Tree<W, H>, root: &str) -> Self {
        let mut moves: Vec<String> = tree.leaves().map(|(_, m)| m.clone()).collect();
        moves.sort_unstable();
        List {
            root: root.to_string(),
            depth: tree.depth(),
            moves,
        }
    }

    /// The checksum of the positions, which results files name.
    pub fn checksum(&self) -> u64 {
        fnv1a(self.moves.join("\n").as_bytes())
    }

    /// The file's text: a header, then one move sequence a line.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{LIST_MAGIC} board {W}x{H} depth {} root {} positions {} checksum {:016x}\n",
            self.depth,
            self.root,
            self.moves.len(),
            self.checksum()
        );
        for m in &self.moves {
            text.push_str(m);
            text.push('\n');
        }
        text
    }

    /// Reads a list written by [`List::to_text`], checking its header, its length and its
    /// checksum, and that every line is a position of this board with `depth` stones.
    pub fn parse(text: &str) -> Result<Self, String> {
        List::read(text.as_bytes())
    }

    /// [`List::parse`] from a reader, line by line: every line is capped at
    /// [`TEXT_LINE_MAX`] bytes and checked for UTF-8, and no more lines are read than the
    /// header promises (at most [`MAX_TREE_POSITIONS`]), so an endless or garbled input costs
    /// bounded memory and is a clear error.
    pub fn read(input: impl BufRead) -> Result<Self, String> {
        let mut lines = Lines::new(input, TEXT_LINE_MAX);
        let header = match lines.next() {
            Some(line) => line_text(line)?,
            None => String::new(),
        };
        let header = header.as_str();
        if !header.starts_with(LIST_MAGIC) {
            return Err("not a transpo-c4 split list (no header)".into());
        }
        let field = |key: &str| header_field(header, key).ok_or(format!("header: no {key}"));
        if field("board")? != format!("{W}x{H}") {
            return Err(format!(
                "header: board {}, expected {W}x{H}",
                field("board")?
            ));
        }
        let number = |key: &str| {
            field(key)?
                .parse::<u64>()
                .map_err(|_| format!("header: bad {key}"))
        };
        let depth = u32::try_from(number("depth")?).map_err(|_| "header: bad depth")?;
        let count = number("positions")?;
        if count > MAX_TREE_POSITIONS as u64 {
            return Err(format!(
                "header: {count} positions, more than a split holds ({MAX_TREE_POSITIONS})"
            ));
        }
        let mut moves = Vec::new();
        for line in lines {
            let number = line.as_ref().map_or(0, |l| l.number);
            let m = line_text(line)?;
            if moves.len() as u64 == count {
                return Err(format!(
                    "the header says {count} positions, the file has more: it is corrupt"
                ));
            }
            let pos = Position::<W, H>::from_moves(&m)
                .map_err(|e| format!("line {number}: {m:?}: {e}"))?;
            if pos.moves() != depth {
                return Err(format!("line {number}: {m:?} has not {depth} stones"));
            }
            moves.push(m);
        }
        if (moves.len() as u64) < count {
            return Err(format!(
                "the header says {count} positions, the file has {}: it is incomplete",
                moves.len()
            ));
        }
        let list = List {
            root: field("root")?.to_string(),
            depth,
            moves,
        };
        if field("checksum")? != format!("{:016x}", list.checksum()) {
            return Err("checksum mismatch: the list is corrupt".into());
        }
        Ok(list)
    }

    /// The root position.
    pub fn root_position(&self) -> Result<Position<W, H>, String> {
        Position::from_moves(self.root_moves()).map_err(|e| format!("root: {e}"))
    }

    /// The root's move sequence, empty for the empty board: what every position's starts
    /// with.
    pub fn root_moves(&self) -> &str {
        if self.root == "-" { "" } else { &self.root }
    }

    /// The tree whose leaves the list holds.
    pub fn tree(&self) -> Result<Tree<W, H>, String> {
        Tree::new(&self.root_position()?, self.root_moves(), self.depth).map_err(|e| e.to_string())
    }
}

/// One solved position of a shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// Its move sequence.
    pub moves: String,
    /// Its exact score.
    pub score: i32,
    /// Positions explored to solve it.
    pub nodes: u64,
    /// Time taken, in microseconds.
    pub micros: u64,
}

impl Solved {
    /// The line of a results file: `moves score nodes micros check`, the check the low 32
    /// bits of FNV-1a over `moves score`.
    pub fn line(&self) -> String {
        let check = fnv1a(format!("{} {}", self.moves, self.score).as_bytes()) as u32;
        format!(
            "{} {} {} {} {check:08x}",
            self.moves, self.score, self.nodes, self.micros
        )
    }

    /// Reads a line written by [`Solved::line`]: each number must fit its type and be
    /// written as [`Solved::line`] writes it (no sign, no leading zeros), and the check must
    /// match. Whether the score is one the board allows is [`Results::read`]'s to check.
    fn parse(line: &str) -> Option<Solved> {
        let mut fields = line.split(' ');
        let (Some(moves), Some(score), Some(nodes), Some(micros), Some(_check), None) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return None;
        };
        let solved = Solved {
            moves: moves.to_string(),
            score: score.parse().ok()?,
            nodes: nodes.parse().ok()?,
            micros: micros.parse().ok()?,
        };
        // The line as it would be written, check included: this checks the check and that
        // every field is in the one form the writer uses.
        (solved.line() == line).then_some(solved)
    }
}

/// A shard's results file: a header naming the board, the list and the shard, then one
/// [`Solved`] line per position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Results {
    /// The shard.
    pub shard: Shard,
    /// Whether its scores are exact or only signs.
    pub strength: Strength,
    /// The solved positions, in the order they were solved.
    pub solved: Vec<Solved>,
    /// Bytes of the text up to the end of its last complete line (a shard killed while
    /// writing leaves part of a line after it, which a restart cuts off).
    pub complete_bytes: usize,
}

impl Results {
    /// The header of `shard`'s results file for `list`, solved with `strength`.
    pub fn header<const W: usize, const H: usize>(
        list: &List<W, H>,
        shard: Shard,
        strength: Strength,
    ) -> String {
        let strength = match strength {
            Strength::Strong => "strong",
            Strength::Weak => "weak",
        };
        format!(
            "{RESULTS_MAGIC} board {W}x{H} list {:016x} shard {shard} {strength}\n",
            list.checksum()
        )
    }

    /// Reads a results file of `list` held in memory; see [`Results::read`]. A text without a
    /// complete header line is an error here.
    pub fn parse<const W: usize, const H: usize>(
        text: &str,
        list: &List<W, H>,
    ) -> Result<Results, String> {
        Results::read(text.as_bytes(), list)?.ok_or_else(|| "no header line".to_string())
    }

    /// Reads a results file of `list`: the header must name the board and the list; every
    /// line must be complete and check, but a last line without its newline, which a
    /// shard killed mid-write leaves (see [`Results::complete_bytes`]). Every field is
    /// range-checked: a score within what a position of the list's stones allows on the
    /// board (a win with its next stone; −1..=1 for weak results), counts within `u64`; each
    /// position must have the list's stones. Errors name the line.
    ///
    /// `Ok(None)` when there is no complete header line: the input is empty, or holds a
    /// header cut short before its newline (a shard killed while it started), so nothing is
    /// solved yet.
    ///
    /// Memory stays bounded whatever the input: lines are read at most [`TEXT_LINE_MAX`]
    /// bytes at a time, a line seen before with the same score is skipped (with another
    /// score it is an error), and a file with more positions than its shard has is an error.
    pub fn read<const W: usize, const H: usize>(
        mut input: impl BufRead,
        list: &List<W, H>,
    ) -> Result<Option<Results>, String> {
        let mut buf = Vec::new();
        let header = match next_line(&mut input, &mut buf)? {
            End::Eof | End::Partial => return Ok(None),
            End::TooLong => {
                return Err(format!(
                    "line 1: longer than {TEXT_LINE_MAX} bytes: not a results file"
                ));
            }
            End::Newline => std::str::from_utf8(&buf)
                .map_err(|_| "line 1: not UTF-8: not a results file".to_string())?
                .to_string(),
        };
        let shard: Shard = header_field(&header, "shard")
            .ok_or("header: no shard")?
            .parse()?;
        let strength = if header.ends_with(" weak") {
            Strength::Weak
        } else {
            Strength::Strong
        };
        if format!("{header}\n") != Results::header(list, shard, strength) {
            return Err(format!(
                "header {header:?} is not for this list (board {W}x{H}, list {:016x})",
                list.checksum()
            ));
        }
        // A position with `depth` stones scores at most a win with the next stone.
        let max_score = match strength {
            Strength::Strong => win_now_score(W * H, list.depth),
            Strength::Weak => 1,
        }
        .unsigned_abs();
        let most = shard.units(list.moves.len());
        let mut solved: Vec<Solved> = Vec::new();
        // Each position's index in `solved`.
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut complete_bytes = header.len() + 1;
        for number in 2.. {
            let corrupt = |why: &str| format!("line {number}: corrupt: {why}");
            match next_line(&mut input, &mut buf)? {
                End::Eof | End::Partial => break,
                End::TooLong => return Err(corrupt(&format!("over {TEXT_LINE_MAX} bytes"))),
                End::Newline => {}
            }
            let line = std::str::from_utf8(&buf).map_err(|_| corrupt("not UTF-8"))?;
            let parsed = Solved::parse(line).ok_or_else(|| corrupt(&format!("{line:?}")))?;
            if parsed.score.unsigned_abs() > max_score {
                return Err(corrupt(&format!(
                    "score {} out of range -{max_score}..={max_score}",
                    parsed.score
                )));
            }
            let pos = Position::<W, H>::from_moves(&parsed.moves)
                .map_err(|e| corrupt(&format!("{:?}: {e}", parsed.moves)))?;
            if pos.moves() != list.depth {
                return Err(corrupt(&format!(
                    "{:?} has not {} stones",
                    parsed.moves, list.depth
                )));
            }
            complete_bytes += line.len() + 1;
            match seen.get(&parsed.moves) {
                Some(&i) if solved[i].score == parsed.score => continue,
                Some(&i) => {
                    return Err(format!(
                        "line {number}: {:?} scored {}, but {} before",
                        parsed.moves, parsed.score, solved[i].score
                    ));
                }
                None => {}
            }
            if solved.len() == most {
                return Err(format!(
                    "line {number}: more positions than shard {shard}'s {most}: not a results \
                     file of this list"
                ));
            }
            seen.insert(parsed.moves.clone(), solved.len());
            solved.push(parsed);
        }
        Ok(Some(Results {
            shard,
            strength,
            solved,
            complete_bytes,
        }))
    }
}

/// How [`next_line`] found a line to end.
enum End {
    /// With its newline (not kept in the buffer).
    Newline,
    /// At the end of the input, without a newline: a line cut short.
    Partial,
    /// The input ended before the line began.
    Eof,
    /// Longer than [`TEXT_LINE_MAX`] bytes; the rest of it is left unread.
    TooLong,
}

/// Reads one line of a results file into `buf`, at most [`TEXT_LINE_MAX`] bytes and its
/// newline, telling how it ended: unlike [`Lines`], this knows whether the last line had its
/// newline, which is how a line cut short by a kill is told from a whole one.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> Result<End, String> {
    buf.clear();
    let read = Read::take(&mut *input, TEXT_LINE_MAX as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| format!("read error: {e}"))?;
    Ok(if read == 0 {
        End::Eof
    } else if buf.last() == Some(&b'\n') {
        buf.pop();
        End::Newline
    } else if buf.len() > TEXT_LINE_MAX {
        End::TooLong
    } else {
        End::Partial
    })
}

/// The outcome of a merge: the root's score and the book of the whole tree.
#[derive(Clone, Debug)]
pub struct Merged<const W: usize, const H: usize> {
    /// The root's score: exact, or its sign if the shards solved weakly.
    pub score: i32,
    /// How the shards solved.
    pub strength: Strength,
    /// Every position up to the list's depth, scored (strong shards only).
    pub book: Option<Book<W, H>>,
    /// Positions explored by all shards, summed.
    pub nodes: u64,
    /// Time the shards took, summed, in microseconds.
    pub micros: u64,
}

/// Unites the results of every shard of `list` (given as `(name, results)` of each file, in
/// any order, each read by [`Results::read`]) and scores the tree by minimax. Stops with an
/// error naming the shard if one is missing or given twice, if a file is for another list, if
/// a shard has not solved all its positions, if a result is for a position the shard does not
/// hold or out of the board's range, or if the counts of positions explored or microseconds
/// add up past `u64`. A shard missing or unfinished (and no results at all) is
/// [`Failure::Unfinished`]: another round of `solve-list` gives what is lacking; every other
/// error is bad input, [`Failure::Usage`].
pub fn merge<const W: usize, const H: usize>(
    list: &List<W, H>,
    files: &[(String, Results)],
) -> Result<Merged<W, H>, Failure> {
    let mut shards: HashMap<usize, (&str, &Results)> = HashMap::new();
    let mut count = None;
    let mut strength = None;
    for (name, results) in files {
        let shard = results.shard;
        if *strength.get_or_insert(results.strength) != results.strength {
            return Err(Failure::usage(format!(
                "{name}: shard {shard} solved {}, another file the other way",
                if results.strength == Strength::Weak {
                    "weakly"
                } else {
                    "strongly"
                }
            )));
        }
        if *count.get_or_insert(shard.count) != shard.count {
            return Err(Failure::usage(format!(
                "{name}: shard {shard}, but another file is a shard of {}",
                count.unwrap_or_default()
            )));
        }
        if let Some((other, _)) = shards.insert(shard.index, (name, results)) {
            return Err(Failure::usage(format!(
                "{name}: shard {shard} again (also {other})"
            )));
        }
    }
    let count = count.ok_or_else(|| Failure::unfinished("no results files"))?;
    let index: HashMap<&str, usize> = list
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut scores: HashMap<u64, i32> = HashMap::with_capacity(list.moves.len());
    let (mut nodes, mut micros) = (0u64, 0u64);
    for i in 1..=count {
        let shard = Shard { index: i, count };
        let (name, results) = shards.get(&i).ok_or_else(|| {
            Failure::unfinished(format!(
                "shard {shard}: no results file ({})",
                shard.file_name()
            ))
        })?;
        let max = match results.strength {
            Strength::Strong => win_now_score(W * H, 0),
            Strength::Weak => 1,
        }
        .unsigned_abs();
        for s in &results.solved {
            let owned = index
                .get(s.moves.as_str())
                .is_some_and(|&j| shard.contains(j));
            if !owned || s.score.unsigned_abs() > max {
                return Err(Failure::usage(format!(
                    "{name}: {:?} scored {} is not a position of shard {shard}",
                    s.moves, s.score
                )));
            }
            // The list's lines are positions of the board (checked when it was read).
            let pos = Position::<W, H>::from_moves(&s.moves).map_err(Failure::usage)?;
            scores.insert(pos.symmetric_key(), s.score);
            nodes = nodes.checked_add(s.nodes).ok_or_else(|| {
                Failure::usage(format!(
                    "{name}: the positions explored add up past 2^64: corrupt"
                ))
            })?;
            micros = micros.checked_add(s.micros).ok_or_else(|| {
                Failure::usage(format!("{name}: the times add up past 2^64 µs: corrupt"))
            })?;
        }
        let expected = shard.units(list.moves.len());
        let solved = results
            .solved
            .iter()
            .map(|s| s.moves.as_str())
            .collect::<std::collections::HashSet<_>>()
            .len();
        if solved < expected {
            return Err(Failure::unfinished(format!(
                "shard {shard} ({name}): {solved} of its {expected} positions solved: \
                 incomplete, run it again to finish"
            )));
        }
    }
    let tree = list.tree().map_err(Failure::usage)?;
    if let Some((_, moves)) = tree
        .leaves()
        .find(|(pos, _)| !scores.contains_key(&pos.symmetric_key()))
    {
        return Err(Failure::usage(format!(
            "{moves:?} is a position of the tree without a result: the list is not this tree's"
        )));
    }
    let root = list.root_position().map_err(Failure::usage)?;
    // Every leaf has its score (checked above). From signs, the minimax gives the signs of
    // the true scores: the sign of a best child depends only on the children's signs.
    let book = tree.into_book(|pos| scores.get(&pos.symmetric_key()).copied().unwrap_or(0));
    let strength = strength.unwrap_or(Strength::Strong);
    let score = book
        .get(&root)
        .ok_or_else(|| Failure::usage("the root is not in the tree"))?;
    Ok(Merged {
        score: finish(score, strength),
        strength,
        book: (strength == Strength::Strong).then_some(book),
        nodes,
        micros,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 4×4 list of the positions with 2 stones, and its strong results file's header.
    fn list() -> (List<4, 4>, String) {
        let root = Position::<4, 4>::new();
        let tree = Tree::new(&root, "", 2).expect("a small tree");
        let list = List::of(&tree, "-");
        let header = Results::header(&list, Shard { index: 1, count: 1 }, Strength::Strong);
        (list, header)
    }

    /// The results line of `moves` scored `score`, with its check.
    fn line(moves: &str, score: i32, nodes: u64, micros: u64) -> String {
        let solved = Solved {
            moves: moves.into(),
            score,
            nodes,
            micros,
        };
        format!("{}\n", solved.line())
    }

    fn read(text: &str) -> Result<Option<Results>, String> {
        let (list, _) = list();
        Results::read(text.as_bytes(), &list)
    }

    #[test]
    fn shards_count_their_units() {
        for total in 0..20 {
            for count in 1..6 {
                for index in 1..=count {
                    let shard = Shard { index, count };
                    let by_filter = (0..total).filter(|&i| shard.contains(i)).count();
                    assert_eq!(shard.units(total), by_filter, "{shard} of {total}");
                }
            }
        }
    }

    /// A file without a complete header is "nothing solved yet", never an error: empty, or
    /// any part of a header without its newline. A complete header of another solve is an
    /// error, as is a first line too long to be a header.
    #[test]
    fn no_complete_header_is_nothing_solved() {
        let (_, header) = list();
        for cut in 0..header.len() {
            assert_eq!(read(&header[..cut]), Ok(None), "{cut} bytes");
        }
        assert_eq!(read("\0\0\0\0\0\0"), Ok(None));
        let results = read(&header).expect("a header").expect("complete");
        assert!(results.solved.is_empty());
        assert_eq!(results.complete_bytes, header.len());
        let other = header.replace("board 4x4", "board 5x4");
        assert!(read(&other).is_err());
        assert!(read(&"x".repeat(TEXT_LINE_MAX + 1)).is_err());
    }

    /// Every field is range-checked: a score the board cannot have (with a valid check, as a
    /// hand-made line would have it) or written another way, a count past u64.
    #[test]
    fn out_of_range_fields_are_corrupt_lines() {
        let (list, header) = list();
        let moves = list.moves[0].as_str();
        let max = win_now_score(16, 2);
        let ok = read(&format!("{header}{}", line(moves, max, 5, 7))).expect("in range");
        assert_eq!(ok.expect("header").solved[0].score, max);
        for score in [max + 1, -max - 1, i32::MIN, i32::MAX] {
            let text = format!("{header}{}", line(moves, score, 5, 7));
            let e = read(&text).expect_err("out of range");
            assert!(e.contains("line 2: corrupt: score"), "{e}");
        }
        let good = line(moves, 1, 5, 7);
        for bad in [
            good.replacen(" 1 ", " +1 ", 1),
            good.replacen(" 5 ", " 05 ", 1),
            good.replacen(" 5 ", " 18446744073709551616 ", 1),
            good.replacen(" 5 ", " -5 ", 1),
            good.replace('\n', " \n"),
            good.replace('\n', "\r\n"),
        ] {
            let e = read(&format!("{header}{bad}")).expect_err(&bad);
            assert!(e.contains("line 2: corrupt"), "{bad}: {e}");
        }
        let weak = Results::header(&list, Shard { index: 1, count: 1 }, Strength::Weak);
        let e = Results::read(format!("{weak}{}", line(moves, 2, 1, 1)).as_bytes(), &list);
        assert!(e.expect_err("weak 2").contains("out of range -1..=1"));
    }

    /// A merge whose counts add up past u64 is an error, not a wrapped total.
    #[test]
    fn totals_past_u64_are_errors() {
        let (list, _) = list();
        let shards: Vec<(String, Results)> = (1..=2)
            .map(|index| {
                let shard = Shard { index, count: 2 };
                let mut text = Results::header(&list, shard, Strength::Strong);
                for moves in shard.select(list.moves.iter().collect()) {
                    text.push_str(&line(moves, 0, u64::MAX, 1));
                }
                let results = Results::parse(&text, &list).expect("valid");
                (format!("shard {index}"), results)
            })
            .collect();
        let e = merge(&list, &shards).expect_err("nodes past u64");
        assert!(e.to_string().contains("add up past 2^64"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }

    /// An endless input of one line repeated costs one result; a line again with another
    /// score, or more positions than the shard has, is an error.
    #[test]
    fn repeated_lines_cost_nothing_and_too_many_are_refused() {
        let (list, header) = list();
        let first = line(&list.moves[0], 0, 1, 1);
        let text = format!("{header}{}", first.repeat(100_000));
        let results = read(&text).expect("valid").expect("header");
        assert_eq!(results.solved.len(), 1);
        assert_eq!(results.complete_bytes, text.len());
        let again = format!("{header}{first}{}", line(&list.moves[0], 1, 1, 1));
        assert!(read(&again).expect_err("two scores").contains("line 3:"));
        // Every position of the list once, then one of another list of the same depth.
        let mut all = header.clone();
        for moves in &list.moves {
            all.push_str(&line(moves, 0, 1, 1));
        }
        assert_eq!(
            read(&all).expect("valid").expect("header").solved.len(),
            list.moves.len()
        );
        // The list holds one of each mirror pair: a sequence it does not hold is one more.
        let extra = ["11", "44", "12", "21", "43", "34"]
            .into_iter()
            .find(|m| !list.moves.iter().any(|l| l == m))
            .expect("a 2-stone sequence the list lacks");
        all.push_str(&line(extra, 0, 1, 1));
        let e = read(&all).expect_err("too many");
        assert!(e.contains("more positions than shard 1/1"), "{e}");
        // A line cut short at the end is left out, as a kill leaves it.
        let cut = format!("{header}{}", &first[..first.len() - 3]);
        let results = read(&cut).expect("valid").expect("header");
        assert!(results.solved.is_empty());
        assert_eq!(results.complete_bytes, header.len());
    }

    /// A list is read no further than its header promises, each line capped.
    #[test]
    fn a_list_longer_than_its_header_is_refused() {
        let (list, _) = list();
        let text = list.to_text();
        assert_eq!(List::<4, 4>::parse(&text), Ok(list.clone()));
        let longer = format!("{text}{}\n", list.moves[0]);
        assert!(
            List::<4, 4>::parse(&longer)
                .expect_err("longer")
                .contains("the file has more")
        );
        let long_line = format!("{text}{}\n", "1".repeat(TEXT_LINE_MAX + 1));
        let e = List::<4, 4>::parse(&long_line).expect_err("long line");
        assert!(e.contains("line too long") || e.contains("has more"), "{e}");
        let huge = text.replacen(
            &format!("positions {}", list.moves.len()),
            "positions 99999999999",
            1,
        );
        assert!(
            List::<4, 4>::parse(&huge)
                .expect_err("huge")
                .contains("more than a split holds")
        );
    }
}
