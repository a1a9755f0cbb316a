//! Making a certificate: the top tree's rounds solved in this process
//! ([`solve_in_rounds`], for `transpo-c4 certify`) or by shards (`merge --certificate`), then
//! the proof read off what they proved ([`build`]).
//!
//! The proof is read layer by layer from the root, each position with the bound its parents
//! need of it (met across transpositions and mirror images): an upper bound `v` needs every
//! legal move, each child at least `−v`; a lower bound `v` one child at most `−v`, picked
//! among those the leaves' ranges prove so (a child the rules settle first, then one the
//! proof needs already, then the lowest column). What the leaves' ranges prove of each
//! position is negamax over intervals, by the rules, down to the leaves.

use super::check::by_rules;
use super::{Bound, Certificate, Leaf, Node};
use crate::split::{Next, Plan};
use std::collections::HashMap;
use transpo_connect4::board::Board;
use transpo_connect4::book::Tree;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::{Strength, Window, finish};
use transpo_connect4::solver::Solver;

/// The most rounds [`solve_in_rounds`] runs before it gives up (each round proves at least
/// one new bound, so a solve ends long before).
const MOST_ROUNDS: usize = 100_000;

/// What the rounds of a solve proved: the plan of the top tree with every leaf's known
/// range, the positions each leaf's searches explored, and the root's score.
#[derive(Clone, Debug)]
pub struct Knowledge<const W: usize, const H: usize, B: Bitboard> {
    /// The top tree's plan, with what the leaves' searches proved.
    pub plan: Plan<W, H, B>,
    /// Positions explored by each leaf's searches, by symmetric key.
    pub nodes: HashMap<B, u64>,
    /// Positions explored by all searches.
    pub positions: u64,
    /// The root's score: exact, or 1, 0, −1 for a weak solve.
    pub score: i32,
    /// Rounds it took.
    pub rounds: usize,
}

/// Solves the root of `tree` in rounds of the split's plan ([`Plan`]) with `solver`, every
/// leaf the plan asks for searched with its window in this process; `on_round` hears each
/// round's number and leaves before they are searched.
pub fn solve_in_rounds<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver<W, H, B>,
    root: &Position<W, H, B>,
    tree: &Tree<W, H, B>,
    strength: Strength,
    mut on_round: impl FnMut(usize, usize),
) -> Result<Knowledge<W, H, B>, String> {
    let leaves: HashMap<B, Position<W, H, B>> = tree
        .leaves()
        .map(|(pos, _)| (pos.symmetric_key(), *pos))
        .collect();
    let mut plan = Plan::new(root, tree.depth(), Window::of(strength));
    let (mut nodes, mut positions) = (HashMap::new(), 0u64);
    for round in 0..MOST_ROUNDS {
        let asked = match plan.next() {
            Next::Solved(range) => {
                return Ok(Knowledge {
                    plan,
                    nodes,
                    positions,
                    score: finish(*range.start(), strength),
                    rounds: round,
                });
            }
            Next::Search(asked) => asked,
        };
        on_round(round + 1, asked.len());
        for (key, window) in asked {
            let leaf = leaves
                .get(&key)
                .ok_or("the plan asked for a position outside the tree")?;
            let before = solver.nodes();
            let range = solver.solve_window(leaf, window);
            let explored = solver.nodes().saturating_sub(before);
            *nodes.entry(key).or_insert(0u64) += explored;
            positions = positions.saturating_add(explored);
            if !plan.learn(leaf, range) {
                return Err("a leaf's search contradicted an earlier one".into());
            }
        }
    }
    Err(format!("not solved in {MOST_ROUNDS} rounds"))
}

/// The certificate of what `knowledge` proved of the root `root_moves` of a split of
/// `strength` down to `depth` stones, on `board` (the board `W`×`H`). An error only if the
/// knowledge does not prove the root's score (a bug: the rounds said it did).
pub fn build<const W: usize, const H: usize, B: Bitboard>(
    knowledge: &Knowledge<W, H, B>,
    board: Board,
    root_moves: &str,
    depth: u32,
    strength: Strength,
) -> Result<Certificate, String> {
    let root = Position::<W, H, B>::from_moves(root_moves).map_err(|e| e.to_string())?;
    let claim = Bound::of_root(strength, knowledge.score);
    let mut ranges = Ranges {
        plan: &knowledge.plan,
        depth,
        memo: HashMap::new(),
    };
    let (lo, hi) = ranges.of(&root);
    if !claim.holds_for(&(lo..=hi)) {
        return Err(format!(
            "the leaves prove the root {lo}..={hi}, not its score {}",
            knowledge.score
        ));
    }
    let mut cert = Certificate {
        board,
        root: root_moves.to_string(),
        strength,
        depth,
        score: knowledge.score,
        positions: knowledge.positions,
        nodes: Vec::new(),
        leaves: Vec::new(),
    };
    let mut layer: HashMap<B, Needed<W, H, B>> = HashMap::new();
    if by_rules(&root).is_none() {
        layer.insert(root.symmetric_key(), (root, root_moves.to_string(), claim));
    }
    while !layer.is_empty() {
        let mut entries: Vec<Needed<W, H, B>> = layer.into_values().collect();
        entries.sort_unstable_by(|a, b| a.1.cmp(&b.1));
        let mut next = HashMap::new();
        for (pos, moves, need) in entries {
            if pos.moves() >= depth {
                cert.leaves
                    .push(leaf(knowledge, &mut ranges, &pos, moves, need)?);
            } else {
                cert.nodes
                    .push(node(&mut ranges, &pos, moves, need, &mut next)?);
            }
        }
        layer = next;
    }
    cert.leaves.sort_unstable_by(|a, b| a.moves.cmp(&b.moves));
    Ok(cert)
}

/// A position the proof needs, its move sequence and the bound needed of it.
type Needed<const W: usize, const H: usize, B> = (Position<W, H, B>, String, Bound);

/// The leaf `pos` with the bound `need`, which its known range must prove.
fn leaf<const W: usize, const H: usize, B: Bitboard>(
    knowledge: &Knowledge<W, H, B>,
    ranges: &mut Ranges<'_, W, H, B>,
    pos: &Position<W, H, B>,
    moves: String,
    need: Bound,
) -> Result<Leaf, String> {
    let (lo, hi) = ranges.of(pos);
    let window = need.window().ok_or("a leaf needed for nothing")?;
    if !need.holds_for(&(lo..=hi)) {
        return Err(format!("leaf {moves}: known {lo}..={hi}, needed {need:?}"));
    }
    Ok(Leaf {
        nodes: knowledge
            .nodes
            .get(&pos.symmetric_key())
            .copied()
            .unwrap_or(0),
        moves,
        window,
        bound: need,
    })
}

/// The node `pos` with the bound `need`: its columns, and what it needs of its children
/// added to `next`.
fn node<const W: usize, const H: usize, B: Bitboard>(
    ranges: &mut Ranges<'_, W, H, B>,
    pos: &Position<W, H, B>,
    moves: String,
    need: Bound,
    next: &mut HashMap<B, Needed<W, H, B>>,
) -> Result<Node, String> {
    let legal: Vec<usize> = (0..W).filter(|&c| pos.can_play(c)).collect();
    let child = |col: usize| {
        let mut child = *pos;
        child.play_column(col);
        child
    };
    let ask = |col: usize, bound: Bound, next: &mut HashMap<B, Needed<W, H, B>>| {
        let child = child(col);
        if by_rules(&child).is_none() {
            let moves = format!("{moves}{}", transpo_connect4::position::column_char(col));
            let entry =
                next.entry(child.symmetric_key())
                    .or_insert((child, moves, Bound::default()));
            entry.2 = entry.2.meet(&bound);
        }
    };
    if let Some(hi) = need.hi {
        for &col in &legal {
            ask(
                col,
                Bound {
                    lo: Some(-hi),
                    hi: None,
                },
                next,
            );
        }
    }
    let mut columns = legal.clone();
    if let Some(lo) = need.lo {
        let proves: Vec<usize> = legal
            .iter()
            .copied()
            .filter(|&col| ranges.of(&child(col)).1 <= -lo)
            .collect();
        let rank = |&col: &usize| {
            let child = child(col);
            if by_rules(&child).is_some() {
                0
            } else if next.contains_key(&child.symmetric_key()) {
                1
            } else {
                2
            }
        };
        let best = proves
            .iter()
            .min_by_key(|col| rank(col))
            .copied()
            .ok_or_else(|| format!("node {moves}: no child proves it at least {lo}"))?;
        ask(
            best,
            Bound {
                lo: None,
                hi: Some(-lo),
            },
            next,
        );
        if need.hi.is_none() {
            columns = vec![best];
        }
    }
    Ok(Node {
        moves,
        bound: need,
        columns,
    })
}

/// What the leaves' known ranges prove of the positions of the top tree, by negamax over
/// intervals and the rules.
struct Ranges<'p, const W: usize, const H: usize, B: Bitboard> {
    plan: &'p Plan<W, H, B>,
    depth: u32,
    memo: HashMap<B, (i32, i32)>,
}

impl<const W: usize, const H: usize, B: Bitboard> Ranges<'_, W, H, B> {
    /// The range proven of `pos`.
    fn of(&mut self, pos: &Position<W, H, B>) -> (i32, i32) {
        if let Some(score) = by_rules(pos) {
            return (score, score);
        }
        if pos.moves() >= self.depth {
            let known = self.plan.known(pos);
            return (*known.start(), *known.end());
        }
        let key = pos.symmetric_key();
        if let Some(&range) = self.memo.get(&key) {
            return range;
        }
        let (mut lo, mut hi) = (i32::MIN, i32::MIN);
        for col in 0..W {
            if pos.can_play(col) {
                let mut child = *pos;
                child.play_column(col);
                let (clo, chi) = self.of(&child);
                lo = lo.max(-chi);
                hi = hi.max(-clo);
            }
        }
        self.memo.insert(key, (lo, hi));
        (lo, hi)
    }
}
