//! The merge of a split's rounds: every shard's results of every round checked and united
//! into the top tree's [`Plan`], which then gives the root's score or the next round.

use super::SplitError;
use super::{Next, Plan, Results, Round, Shard, Solved, Split};
use std::collections::{HashMap, HashSet};
use transpo_connect4::book::{Book, Tree};
use transpo_connect4::position::Bitboard;
use transpo_connect4::position::Position;
use transpo_connect4::score::{Strength, finish};

/// The outcome of a merge.
#[derive(Clone, Debug)]
pub struct Merged<const W: usize, const H: usize, B: Bitboard> {
    /// The root's score and book, or the next round to search.
    pub outcome: Outcome<W, H, B>,
    /// Positions explored by all shards of all rounds, summed.
    pub nodes: u64,
    /// Time the shards of all rounds took, summed, in microseconds.
    pub micros: u64,
    /// Positions searched in all rounds.
    pub searched: usize,
    /// The top tree's plan with every bound the rounds proved (what a certificate is made
    /// of: `crate::certificate::build`).
    pub plan: Plan<W, H, B>,
    /// Positions each leaf's searches explored, summed over the rounds, by symmetric key.
    pub leaf_nodes: HashMap<B, u64>,
}

/// What a merge found.
#[derive(Clone, Debug)]
pub enum Outcome<const W: usize, const H: usize, B: Bitboard> {
    /// The root is solved.
    Solved {
        /// Its score: exact, or its sign for a weak split.
        score: i32,
        /// The positions of the tree whose exact scores the rounds proved (strong splits;
        /// with `--full-book`, every position of the tree).
        book: Option<Book<W, H, B>>,
    },
    /// Another round is needed: this one.
    Next(Round<W, H, B>),
}

/// Unites the results of every shard of every round of `split` (`tree` its tree, as
/// [`Split::tree`] makes it, taken rather than made again: the caller often has it;
/// `rounds` its lists, round 1 first; `files` the results as `(name, results)`, in any order, each read by
/// [`Results::read`] against its round's list) and replays the root's search over them.
///
/// Stops with an error naming the file or shard if one names more shards than the split has
/// positions ([`Split::most_shards`]: checked before the count sizes anything), if one is
/// given twice, if files of one round
/// disagree on the number of shards or on the strength (or with the split's), if a result is
/// for a position its shard does not hold, if two results of a position contradict each
/// other, or if the counts add up past `u64`. A shard of the last round missing or
/// unfinished (and no results at all) is [`SplitError::Unfinished`]: `solve-list` gives what is
/// lacking; every other error is bad input, [`SplitError::Input`].
pub fn merge<const W: usize, const H: usize, B: Bitboard>(
    split: &Split<W, H, B>,
    tree: Tree<W, H, B>,
    rounds: &[Round<W, H, B>],
    files: &[(String, Results)],
) -> Result<Merged<W, H, B>, SplitError> {
    let root = split.root_position().map_err(SplitError::input)?;
    check_files(split, rounds, files)?;
    let mut plan = Plan::new(&root, split.depth, split.window());
    let (mut nodes, mut micros, mut searched) = (0u64, 0u64, 0usize);
    let mut leaf_nodes: HashMap<B, u64> = HashMap::new();
    for round in rounds {
        let last = round.number as usize == rounds.len();
        let of_round: Vec<&(String, Results)> = files
            .iter()
            .filter(|(_, results)| results.round == round.number)
            .collect();
        for solved in unite(round, &of_round, last)? {
            let Solved {
                moves,
                range,
                nodes: n,
                micros: m,
            } = solved;
            // The list's lines are positions of the board (checked when it was read).
            let pos = Position::<W, H, B>::from_moves(moves).map_err(SplitError::input)?;
            if !plan.learn(&pos, range.clone()) {
                return Err(SplitError::input(format!(
                    "round {}: {moves:?} scored {range:?}, which contradicts an earlier \
                     round's result: a results file is corrupt",
                    round.number
                )));
            }
            nodes = nodes.checked_add(*n).ok_or_else(|| {
                SplitError::input("the positions explored add up past 2^64: corrupt")
            })?;
            micros = micros
                .checked_add(*m)
                .ok_or_else(|| SplitError::input("the times add up past 2^64 µs: corrupt"))?;
            let leaf = leaf_nodes.entry(pos.symmetric_key()).or_insert(0);
            *leaf = leaf.saturating_add(*n);
            searched += 1;
        }
    }
    let outcome = outcome(split, &plan, tree, rounds.len())?;
    Ok(Merged {
        outcome,
        nodes,
        micros,
        searched,
        plan,
        leaf_nodes,
    })
}

/// Refuses, naming the file, results that claim more shards than the split has positions
/// ([`Split::most_shards`]: checked before the count sizes anything), that were solved at
/// another strength, or that belong to a round with no list.
fn check_files<const W: usize, const H: usize, B: Bitboard>(
    split: &Split<W, H, B>,
    rounds: &[Round<W, H, B>],
    files: &[(String, Results)],
) -> Result<(), SplitError> {
    let most = split.most_shards();
    for (name, results) in files {
        if results.shard.count > most {
            return Err(SplitError::input(format!(
                "{name}: shard {}: {} shards, but the split has {} positions: at most {most} \
                 shards",
                results.shard,
                results.shard.count,
                split.moves.len()
            )));
        }
        if results.round as usize > rounds.len() || results.round == 0 {
            return Err(SplitError::input(format!(
                "{name}: results of round {}, which has no list",
                results.round
            )));
        }
        if results.strength != split.strength {
            return Err(SplitError::input(format!(
                "{name}: solved {}, but the split is {}",
                strength_word(results.strength),
                strength_word(split.strength)
            )));
        }
    }
    Ok(())
}

/// What the plan says once every round is learnt: the root's score (with the proved book of
/// a strong split), or the next round's list of the leaves it still asks for.
fn outcome<const W: usize, const H: usize, B: Bitboard>(
    split: &Split<W, H, B>,
    plan: &Plan<W, H, B>,
    tree: Tree<W, H, B>,
    rounds: usize,
) -> Result<Outcome<W, H, B>, SplitError> {
    Ok(match plan.next() {
        Next::Solved(range) => Outcome::Solved {
            score: finish(*range.start(), split.strength),
            book: (split.strength == Strength::Strong).then(|| proved_book(plan, tree)),
        },
        Next::Search(asked) => {
            let moves: HashMap<B, &String> = tree
                .leaves()
                .map(|(pos, moves)| (pos.symmetric_key(), moves))
                .collect();
            let asked = asked
                .into_iter()
                .map(|(key, window)| {
                    // The plan asks only for leaves of the tree.
                    let moves = moves.get(&key).ok_or_else(|| {
                        SplitError::running("the plan asked for a position outside the tree")
                    })?;
                    Ok(((*moves).clone(), window))
                })
                .collect::<Result<Vec<_>, SplitError>>()?;
            Outcome::Next(split.round(rounds as u32 + 1, asked))
        }
    })
}

/// "strongly" or "weakly".
fn strength_word(strength: Strength) -> &'static str {
    match strength {
        Strength::Strong => "strongly",
        Strength::Weak => "weakly",
    }
}

/// The results of one round's shards, checked: one file a shard, every position of each
/// shard searched (else, for the `last` round, more work; for an earlier one, whose results
/// the next round's list was made from, bad input), every result a position of its shard.
/// Returns every result.
fn unite<'a, const W: usize, const H: usize, B: Bitboard>(
    round: &Round<W, H, B>,
    files: &[&'a (String, Results)],
    last: bool,
) -> Result<Vec<&'a Solved>, SplitError> {
    let number = round.number;
    let lacking = |message: String| {
        if last {
            SplitError::unfinished(message)
        } else {
            SplitError::input(format!(
                "{message}; round {number}'s results made the next round and are needed by \
                 every merge: put them back"
            ))
        }
    };
    let mut shards: HashMap<usize, (&str, &Results)> = HashMap::new();
    let mut count = None;
    for (name, results) in files {
        let shard = results.shard;
        if *count.get_or_insert(shard.count) != shard.count {
            return Err(SplitError::input(format!(
                "{name}: shard {shard} of round {number}, but another file is a shard of {}",
                count.unwrap_or_default()
            )));
        }
        if let Some((other, _)) = shards.insert(shard.index, (name, results)) {
            return Err(SplitError::input(format!(
                "{name}: shard {shard} of round {number} again (also {other})"
            )));
        }
    }
    if round.moves.is_empty() {
        return Ok(Vec::new());
    }
    let count = count.ok_or_else(|| lacking(format!("round {number}: no results files")))?;
    let mut united = Vec::with_capacity(round.moves.len());
    // Every shard of the count (at most the split's positions: see `merge`), those past the
    // round's positions with nothing to own.
    let mut shares = round.shares(count).into_iter();
    for i in 1..=count {
        let shard = Shard { index: i, count };
        let owned: HashSet<&str> = shares
            .next()
            .unwrap_or_default()
            .into_iter()
            .map(|j| round.moves[j].as_str())
            .collect();
        let (name, results) = shards.get(&i).ok_or_else(|| {
            lacking(format!(
                "round {number}, shard {shard}: no results file ({})",
                super::results_file_name(number, shard)
            ))
        })?;
        for s in &results.solved {
            if !owned.contains(s.moves.as_str()) {
                return Err(SplitError::input(format!(
                    "{name}: {:?} is not a position of round {number}'s shard {shard}",
                    s.moves
                )));
            }
            united.push(s);
        }
        let expected = owned.len();
        let solved = results
            .solved
            .iter()
            .map(|s| s.moves.as_str())
            .collect::<HashSet<_>>()
            .len();
        if solved < expected {
            return Err(lacking(format!(
                "round {number}, shard {shard} ({name}): {solved} of its {expected} positions \
                 searched: incomplete, run it again to finish"
            )));
        }
    }
    Ok(united)
}

/// The book of what the rounds proved: every position of `tree` whose score the known
/// bounds fix, by minimax.
fn proved_book<const W: usize, const H: usize, B: Bitboard>(
    plan: &Plan<W, H, B>,
    tree: Tree<W, H, B>,
) -> Book<W, H, B> {
    let ranges = plan.ranges(&tree);
    Book::of_scores(
        tree.depth(),
        ranges
            .into_iter()
            .filter(|(_, (lo, hi))| lo == hi)
            .map(|(key, (score, _))| (key, score)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 4×4 split of the positions with 2 stones, solved in full (one round).
    fn split() -> (Split<4, 4>, Round<4, 4>) {
        let tree = Tree::new(&Position::<4, 4>::new(), "", 2).expect("a small tree");
        let split = Split::of(
            &tree,
            transpo_connect4::position::EMPTY_BOARD,
            Strength::Strong,
            true,
        );
        let round = split.full_round();
        (split, round)
    }

    /// The split's tree.
    fn tree(split: &Split<4, 4>) -> Tree<4, 4> {
        split.tree().expect("a small tree")
    }

    /// Round 1's results in `count` shards, every position scored `score` with `nodes`.
    fn shards(round: &Round<4, 4>, count: usize, score: i32, nodes: u64) -> Vec<(String, Results)> {
        (1..=count)
            .map(|index| {
                let shard = Shard { index, count };
                let mut text = Results::header(round, shard, Strength::Strong);
                for i in round.of_shard(shard) {
                    let solved = Solved {
                        moves: round.moves[i].clone(),
                        range: score..=score,
                        nodes,
                        micros: 1,
                    };
                    text.push_str(&format!("{}\n", solved.line()));
                }
                let results = Results::parse(&text, round).expect("valid");
                (format!("shard {index}"), results)
            })
            .collect()
    }

    /// A merge whose counts add up past u64 is an error, not a wrapped total.
    #[test]
    fn totals_past_u64_are_errors() {
        let (split, round) = split();
        let e = merge(
            &split,
            tree(&split),
            std::slice::from_ref(&round),
            &shards(&round, 2, 0, u64::MAX),
        )
        .expect_err("nodes past u64");
        assert!(e.to_string().contains("add up past 2^64"), "{e}");
        assert!(matches!(e, SplitError::Input(_)), "{e}");
    }

    /// Results of a round that contradict an earlier round's are corrupt input; results of a
    /// round without a list are refused.
    #[test]
    fn contradicting_rounds_are_refused() {
        let (split, first) = split();
        let mut second = first.clone();
        second.number = 2;
        let mut files = shards(&first, 1, 0, 1);
        files.extend(shards(&second, 1, 1, 1));
        let e =
            merge(&split, tree(&split), &[first.clone(), second], &files).expect_err("0 then 1");
        assert!(e.to_string().contains("contradicts"), "{e}");
        assert!(matches!(e, SplitError::Input(_)), "{e}");
        let e = merge(&split, tree(&split), &[], &shards(&first, 1, 0, 1)).expect_err("no list");
        assert!(e.to_string().contains("which has no list"), "{e}");
    }
}
