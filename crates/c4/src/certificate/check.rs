//! The check of a certificate's top tree from the rules of the game alone.
//!
//! Nothing here searches: it plays the columns each node lists (`Position::can_play`,
//! `play_column`), knows a position whose side to move wins with its next stone
//! (`can_win_next`) and a full board, and compares bounds. It uses none of the solver's
//! search, table, move ordering or bounds, so that a bug there cannot hide a wrong step
//! here: what it accepts follows from the leaves' bounds by negamax.

use super::{Bound, Certificate};
use std::collections::{HashMap, HashSet};
use transpo_connect4::position::{Bitboard, Position};

/// The most failures listed; the rest are counted.
const MOST_LISTED: usize = 20;

/// The score a position has by the rules alone, without a search: a full board is a draw;
/// a side to move that wins with its next stone (the `n + 1`-th on the board, `n` stones
/// down) scores `⌊(squares + 1 − n) / 2⌋` (Pons' convention). `None` for any other.
pub(super) fn by_rules<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
) -> Option<i32> {
    let squares = (W * H) as i32;
    let moves = pos.moves() as i32;
    if moves == squares {
        Some(0)
    } else if pos.can_win_next() {
        Some((squares + 1 - moves) / 2)
    } else {
        None
    }
}

/// A record of the certificate, by position (one of each mirror pair).
struct Claimed {
    bound: Bound,
    /// How a failure names it: `node 4455` or `leaf 17 (445566)`.
    name: String,
}

/// Checks that the certificate's top tree follows from its leaves by the rules: every
/// node's bound from its children's (a lower bound `v` from one listed child proven at most
/// `−v`; an upper bound `v` from every legal move, listed in full, each child proven at least
/// `−v`; a child that wins at once or fills the board scored by the rules), the root proven
/// what the header claims, every position a legal one listed once, and every record reached
/// from the root. Returns every failure, each naming its node or leaf (an empty list: the
/// tree holds, if its leaves' bounds do).
pub fn check_tree<const W: usize, const H: usize, B: Bitboard>(cert: &Certificate) -> Vec<String> {
    let mut failures = Vec::new();
    let mut claimed: HashMap<B, Claimed> = HashMap::new();
    let mut nodes: Vec<(Position<W, H, B>, usize)> = Vec::new();
    let mut add = |moves: &str, bound: Bound, name: String, failures: &mut Vec<String>| {
        let pos = match Position::<W, H, B>::from_moves(moves) {
            Ok(pos) => pos,
            Err(e) => {
                failures.push(format!("{name}: not a position of {W}x{H}: {e}"));
                return None;
            }
        };
        if let Some(score) = by_rules(&pos) {
            failures.push(format!(
                "{name}: the rules score it {score} at once: it is no node or leaf"
            ));
            return None;
        }
        if matches!((bound.lo, bound.hi), (Some(lo), Some(hi)) if lo > hi) {
            failures.push(format!("{name}: an empty bound {bound:?}"));
        }
        if let Some(other) = claimed.insert(pos.symmetric_key(), Claimed { bound, name }) {
            let name = &claimed[&pos.symmetric_key()].name;
            failures.push(format!("{name}: the position of {} again", other.name));
        }
        Some(pos)
    };
    for (i, node) in cert.nodes.iter().enumerate() {
        let name = format!("node {}", shown(&node.moves));
        if let Some(pos) = add(&node.moves, node.bound, name, &mut failures) {
            nodes.push((pos, i));
        }
    }
    for (i, leaf) in cert.leaves.iter().enumerate() {
        let name = format!("leaf {} ({})", i + 1, shown(&leaf.moves));
        add(&leaf.moves, leaf.bound, name, &mut failures);
    }
    for (pos, i) in &nodes {
        check_node(pos, &cert.nodes[*i], &claimed, &mut failures);
    }
    check_root::<W, H, B>(cert, &claimed, &mut failures);
    check_reached(cert, &nodes, &claimed, &mut failures);
    if failures.len() > MOST_LISTED {
        let more = failures.len() - MOST_LISTED;
        failures.truncate(MOST_LISTED);
        failures.push(format!("and {more} more failures"));
    }
    failures
}

/// A move sequence as a message shows it: `-` for the empty board.
fn shown(moves: &str) -> &str {
    if moves.is_empty() { "-" } else { moves }
}

/// What is proven of `pos`: its score by the rules, or its record's bound.
fn proven<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    claimed: &HashMap<B, Claimed>,
) -> Option<Bound> {
    by_rules(pos)
        .map(Bound::exact)
        .or_else(|| claimed.get(&pos.symmetric_key()).map(|c| c.bound))
}

/// Checks one node's bound against its children's.
fn check_node<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    node: &super::Node,
    claimed: &HashMap<B, Claimed>,
    failures: &mut Vec<String>,
) {
    let name = format!("node {}", shown(&node.moves));
    let legal: Vec<usize> = (0..W).filter(|&c| pos.can_play(c)).collect();
    let bound = node.bound;
    let columns = &node.columns;
    match (bound.lo, bound.hi) {
        (None, None) => {
            failures.push(format!("{name}: proves no bound"));
            return;
        }
        (_, Some(_)) if *columns != legal => {
            failures.push(format!(
                "{name}: an upper bound needs every legal move, {}, listed; it lists {}",
                columns_text(&legal),
                columns_text(columns)
            ));
            return;
        }
        (Some(_), None) if columns.len() != 1 || !legal.contains(&columns[0]) => {
            failures.push(format!(
                "{name}: a lower bound alone needs one legal move listed; it lists {}",
                columns_text(columns)
            ));
            return;
        }
        _ => {}
    }
    let child = |col: usize| {
        let mut child = *pos;
        child.play_column(col);
        child
    };
    if let Some(lo) = bound.lo {
        let proves = columns.iter().any(|&col| {
            proven(&child(col), claimed).is_some_and(|c| c.hi.is_some_and(|hi| hi <= -lo))
        });
        if !proves {
            failures.push(format!(
                "{name}: proven at least {lo}, but no listed child is proven at most {}",
                -lo
            ));
        }
    }
    if let Some(hi) = bound.hi {
        for &col in columns {
            let after = format!(
                "{}{}",
                node.moves,
                transpo_connect4::position::column_char(col)
            );
            match proven(&child(col), claimed) {
                None => failures.push(format!(
                    "{name}: its child {after} has no proof (no node or leaf holds it)"
                )),
                Some(c) if c.lo.is_none_or(|lo| lo < -hi) => failures.push(format!(
                    "{name}: proven at most {hi}, but its child {after} is not proven at least \
                     {} ({c:?})",
                    -hi
                )),
                Some(_) => {}
            }
        }
    }
}

/// Checks that the root is proven what the header claims.
fn check_root<const W: usize, const H: usize, B: Bitboard>(
    cert: &Certificate,
    claimed: &HashMap<B, Claimed>,
    failures: &mut Vec<String>,
) {
    let claim = cert.claim();
    let Ok(root) = Position::<W, H, B>::from_moves(&cert.root) else {
        failures.push(format!(
            "the root {} is not a position of {W}x{H}",
            shown(&cert.root)
        ));
        return;
    };
    match proven(&root, claimed) {
        Some(bound) if bound.implies(&claim) => {}
        Some(bound) => failures.push(format!(
            "the root is proven {bound:?}, not the claimed score {} ({claim:?})",
            cert.score
        )),
        None => failures.push("the root has no proof (no node or leaf holds it)".to_string()),
    }
}

/// Checks that every node and leaf is reached from the root through the columns the nodes
/// list (a record reached from nowhere proves nothing: it was added, or its parent changed).
fn check_reached<const W: usize, const H: usize, B: Bitboard>(
    cert: &Certificate,
    nodes: &[(Position<W, H, B>, usize)],
    claimed: &HashMap<B, Claimed>,
    failures: &mut Vec<String>,
) {
    let Ok(root) = Position::<W, H, B>::from_moves(&cert.root) else {
        return;
    };
    let by_key: HashMap<B, &[usize]> = nodes
        .iter()
        .map(|(pos, i)| (pos.symmetric_key(), cert.nodes[*i].columns.as_slice()))
        .collect();
    let positions: HashMap<B, &Position<W, H, B>> = nodes
        .iter()
        .map(|(pos, _)| (pos.symmetric_key(), pos))
        .collect();
    let mut reached: HashSet<B> = HashSet::new();
    let mut todo = vec![root.symmetric_key()];
    while let Some(key) = todo.pop() {
        if !claimed.contains_key(&key) || !reached.insert(key) {
            continue;
        }
        let (Some(columns), Some(pos)) = (by_key.get(&key), positions.get(&key)) else {
            continue;
        };
        for &col in *columns {
            if pos.can_play(col) {
                let mut child = **pos;
                child.play_column(col);
                todo.push(child.symmetric_key());
            }
        }
    }
    let mut unreached: Vec<&str> = claimed
        .iter()
        .filter(|(key, _)| !reached.contains(*key))
        .map(|(_, c)| c.name.as_str())
        .collect();
    unreached.sort_unstable();
    for name in unreached {
        failures.push(format!("{name}: not reached from the root"));
    }
}

/// Columns as a move sequence writes them, `none` for none.
fn columns_text(columns: &[usize]) -> String {
    if columns.is_empty() {
        return "none".into();
    }
    columns
        .iter()
        .map(|&c| transpo_connect4::position::column_char(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use transpo_connect4::book::Tree;
    use transpo_connect4::score::{Strength, win_now_score};
    use transpo_connect4::solver::Solver;

    /// The rules' score of a win at once is the score module's.
    #[test]
    fn the_rules_score_as_the_score_module() {
        let pos = Position::<5, 4>::from_moves("112233").expect("a position");
        assert_eq!(by_rules(&pos), Some(win_now_score(20, 6)));
        assert_eq!(by_rules(&Position::<5, 4>::new()), None);
    }

    /// The certificate of `moves` on 5×4 down to `depth` stones, solved in rounds.
    fn made(moves: &str, depth: u32, strength: Strength) -> Certificate {
        let root = Position::<5, 4>::from_moves(moves).expect("a position");
        let tree = Tree::new(&root, moves, depth).expect("a small tree");
        let mut solver = Solver::<5, 4>::new(4).expect("4 MiB");
        let knowledge =
            super::super::solve_in_rounds(&mut solver, &root, &tree, strength, |_, _| {})
                .expect("solved");
        let board = "5x4".parse().expect("a board");
        super::super::build(&knowledge, board, moves, depth, strength).expect("built")
    }

    /// Whether some failure contains `what`.
    fn named(failures: &[String], what: &str) -> bool {
        failures.iter().any(|f| f.contains(what))
    }

    /// Certificates made of true leaves check, strong and weak; each kind of damage to the
    /// tree is named: a node's bound, its columns, a dropped or added record, an edited
    /// position, the root's claim.
    #[test]
    fn the_tree_check_accepts_true_trees_and_names_damage() {
        for strength in [Strength::Strong, Strength::Weak] {
            for (moves, depth) in [("", 3), ("3", 4), ("", 0)] {
                let cert = made(moves, depth, strength);
                let failures = check_tree::<5, 4, u64>(&cert);
                assert!(failures.is_empty(), "{moves:?} {depth}: {failures:?}");
            }
        }
        let cert = made("", 3, Strength::Strong);
        assert!(cert.nodes.len() > 1 && cert.leaves.len() > 1);
        // The root claims one more.
        let mut bad = cert.clone();
        bad.score += 1;
        assert!(named(&check_tree::<5, 4, u64>(&bad), "the root is proven"));
        // A node's bound moved up by one: its own step fails, or its parent's.
        let mut bad = cert.clone();
        let node = &mut bad.nodes[1];
        node.bound = match node.bound {
            Bound { lo: Some(lo), hi } => Bound {
                lo: Some(lo + 1),
                hi: hi.map(|h| h.max(lo + 1)),
            },
            Bound { lo: None, hi } => Bound {
                lo: None,
                hi: hi.map(|h| h - 1),
            },
        };
        let failures = check_tree::<5, 4, u64>(&bad);
        assert!(named(&failures, "node "), "{failures:?}");
        // A leaf dropped: the node that needs it says so.
        let mut bad = cert.clone();
        let dropped = bad.leaves.remove(0);
        let failures = check_tree::<5, 4, u64>(&bad);
        assert!(
            named(&failures, "has no proof") || named(&failures, "no listed child"),
            "{failures:?}"
        );
        let _ = dropped;
        // A column taken from a node that needs them all.
        let mut bad = cert.clone();
        bad.nodes[0].columns.pop();
        assert!(named(&check_tree::<5, 4, u64>(&bad), "every legal move"));
        // A leaf's position edited to a position the tree does not reach.
        let mut bad = cert.clone();
        bad.leaves[0].moves = "555".into();
        let failures = check_tree::<5, 4, u64>(&bad);
        assert!(
            named(&failures, "(555): not reached from the root"),
            "{failures:?}"
        );
        // A leaf listed twice, and one that is no position.
        let mut bad = cert.clone();
        bad.leaves.push(bad.leaves[0].clone());
        assert!(named(&check_tree::<5, 4, u64>(&bad), "again"));
        let mut bad = cert;
        bad.leaves[0].moves = "111111".into();
        assert!(named(&check_tree::<5, 4, u64>(&bad), "not a position"));
    }
}
