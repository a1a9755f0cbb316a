//! One big solve spread over many machines, in three steps that any batch scheduler can run
//! (Slurm job arrays, GNU parallel over ssh; the README shows both):
//!
//! 1. `transpo-c4 split --board WxH --depth D --out DIR` writes `DIR/positions.txt`, the
//!    leaves of the [`Tree`] of the root down to `D` stones: every position with `D` stones
//!    whose game is not over, one of each mirror pair and transposition ([`List`]).
//! 2. `transpo-c4 solve-list DIR --shard I/N` solves every `N`-th of them, from the `I`-th,
//!    and appends `moves score nodes micros check` lines to `DIR/results-I-of-N.txt`
//!    ([`Results`]), flushed one by one: a shard killed at any moment and started again goes
//!    on after its last complete line.
//! 3. `transpo-c4 merge DIR` reads the list and every shard's results and scores the whole
//!    tree by minimax ([`Tree::into_book`]): the root's score and a book of every position
//!    up to `D` stones. A shard missing, incomplete, or with a corrupt line is named, and the
//!    merge stops.
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
use crate::book::{Book, Tree, fnv1a};
use crate::position::Position;
use crate::search::Strength;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

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
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
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
        let moves: Vec<String> = lines.map(str::to_string).collect();
        if moves.len() as u64 != count {
            return Err(format!(
                "the header says {count} positions, the file has {}: it is incomplete",
                moves.len()
            ));
        }
        for (i, m) in moves.iter().enumerate() {
            let pos = Position::<W, H>::from_moves(m)
                .map_err(|e| format!("line {}: {m:?}: {e}", i + 2))?;
            if pos.moves() != depth {
                return Err(format!("line {}: {m:?} has not {depth} stones", i + 2));
            }
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

    /// Reads a line written by [`Solved::line`], checking its check.
    fn parse(line: &str) -> Option<Solved> {
        let fields: Vec<&str> = line.split(' ').collect();
        let [moves, score, nodes, micros, check] = fields[..] else {
            return None;
        };
        let solved = Solved {
            moves: moves.to_string(),
            score: score.parse().ok()?,
            nodes: nodes.parse().ok()?,
            micros: micros.parse().ok()?,
        };
        (solved.line().rsplit(' ').next() == Some(check)).then_some(solved)
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

    /// Reads a results file of `list`: the header must name the board and the list; every
    /// line must be complete and check, but a last line without its newline, which a
    /// shard killed mid-write leaves (see [`Results::complete_bytes`]). Errors name the line.
    pub fn parse<const W: usize, const H: usize>(
        text: &str,
        list: &List<W, H>,
    ) -> Result<Results, String> {
        let header_end = text.find('\n').ok_or("no header line")?;
        let header = &text[..header_end];
        let shard: Shard = header_field(header, "shard")
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
        let mut solved = Vec::new();
        let mut complete_bytes = header_end + 1;
        let body = &text[complete_bytes..];
        for (i, line) in body.split_inclusive('\n').enumerate() {
            let Some(line) = line.strip_suffix('\n') else {
                break;
            };
            let parsed =
                Solved::parse(line).ok_or_else(|| format!("line {}: corrupt: {line:?}", i + 2))?;
            solved.push(parsed);
            complete_bytes += line.len() + 1;
        }
        Ok(Results {
            shard,
            strength,
            solved,
            complete_bytes,
        })
    }
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

/// Unites the results of every shard of `list` (given as `(name, text)` of each file, in any
/// order) and scores the tree by minimax. Stops with an error naming the shard if one is
/// missing or given twice, if a file is for another list or corrupt, if a shard has not
/// solved all its positions, or if a result is for a position the shard does not hold.
pub fn merge<const W: usize, const H: usize>(
    list: &List<W, H>,
    files: &[(String, String)],
) -> Result<Merged<W, H>, String> {
    let mut shards: HashMap<usize, (String, Results)> = HashMap::new();
    let mut count = None;
    let mut strength = None;
    for (name, text) in files {
        let results = Results::parse(text, list).map_err(|e| format!("{name}: {e}"))?;
        let shard = results.shard;
        if *strength.get_or_insert(results.strength) != results.strength {
            return Err(format!(
                "{name}: shard {shard} solved {}, another file the other way",
                if results.strength == Strength::Weak {
                    "weakly"
                } else {
                    "strongly"
                }
            ));
        }
        if *count.get_or_insert(shard.count) != shard.count {
            return Err(format!(
                "{name}: shard {shard}, but another file is a shard of {}",
                count.unwrap_or_default()
            ));
        }
        if let Some((other, _)) = shards.insert(shard.index, (name.clone(), results)) {
            return Err(format!("{name}: shard {shard} again (also {other})"));
        }
    }
    let count = count.ok_or("no results files")?;
    let index: HashMap<&str, usize> = list
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut scores: HashMap<u64, i32> = HashMap::with_capacity(list.moves.len());
    let (mut nodes, mut micros) = (0, 0);
    for i in 1..=count {
        let shard = Shard { index: i, count };
        let (name, results) = shards.get(&i).ok_or(format!(
            "shard {shard}: no results file ({})",
            shard.file_name()
        ))?;
        let max = match results.strength {
            Strength::Strong => crate::search::win_now_score(W * H, 0),
            Strength::Weak => 1,
        };
        for s in &results.solved {
            let owned = index
                .get(s.moves.as_str())
                .is_some_and(|&j| shard.contains(j));
            if !owned || s.score.abs() > max {
                return Err(format!(
                    "{name}: {:?} scored {} is not a position of shard {shard}",
                    s.moves, s.score
                ));
            }
            // The list's lines are positions of the board (checked when it was read).
            let pos = Position::<W, H>::from_moves(&s.moves).map_err(|e| e.to_string())?;
            scores.insert(pos.symmetric_key(), s.score);
            nodes += s.nodes;
            micros += s.micros;
        }
        let expected = (0..list.moves.len()).filter(|&j| shard.contains(j)).count();
        let solved = results
            .solved
            .iter()
            .map(|s| s.moves.as_str())
            .collect::<std::collections::HashSet<_>>()
            .len();
        if solved < expected {
            return Err(format!(
                "shard {shard} ({name}): {solved} of its {expected} positions solved: \
                 incomplete, run it again to finish"
            ));
        }
    }
    let tree = list.tree()?;
    if let Some((_, moves)) = tree
        .leaves()
        .find(|(pos, _)| !scores.contains_key(&pos.symmetric_key()))
    {
        return Err(format!(
            "{moves:?} is a position of the tree without a result: the list is not this tree's"
        ));
    }
    let root = list.root_position()?;
    // Every leaf has its score (checked above). From signs, the minimax gives the signs of
    // the true scores: the sign of a best child depends only on the children's signs.
    let book = tree.into_book(|pos| scores.get(&pos.symmetric_key()).copied().unwrap_or(0));
    let strength = strength.unwrap_or(Strength::Strong);
    let score = book.get(&root).ok_or("the root is not in the tree")?;
    Ok(Merged {
        score: crate::search::finish(score, strength),
        strength,
        book: (strength == Strength::Strong).then_some(book),
        nodes,
        micros,
    })
}
