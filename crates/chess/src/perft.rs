//! Perft: counting the leaves of the legal move tree, the standard test of a move generator.
//!
//! Published perft counts check move generation (castling, en passant, promotions, pins), and
//! walking the tree through [`Position`] checks play/undo and exercises the incremental key.
//! [`perft`] counts the last ply in bulk (moves are generated but not played), which is how
//! node counts are usually quoted; [`divide`] gives per-move counts like Stockfish's `go
//! perft`. The `*_make_all` variants play every move, the fair way to time make-move cost.
//!
//! The recursion is as deep as the depth asked for, so callers bound it: the binary and the
//! UCI loop accept at most [`MAX_DEPTH`] (a depth of a million used to overflow the stack).
//! [`perft_until`] and [`divide_until`] ask a stop function every few thousand nodes, so a
//! UCI `stop` ends even a perft that would take years.

use cozy_chess::{Board, Move};

use crate::position::Position;

/// Deepest perft the binary and the UCI loop accept (perft 12 of the start position is
/// 6.2·10¹⁶ leaves: deeper is never useful, and the recursion stays shallow).
pub const MAX_DEPTH: u32 = 12;

/// Number of leaf nodes `depth` plies below `pos` (1 at depth 0).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_moves(pos.board()),
        _ => {
            let moves = pos.legal_moves();
            let mut nodes = 0;
            for &mv in moves.iter() {
                pos.play_unchecked(mv);
                nodes += perft(pos, depth - 1);
                pos.undo();
            }
            nodes
        }
    }
}

/// Per-move leaf counts at `depth` (at least 1), sorted by UCI text, as `(uci, nodes)`.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(String, u64)> {
    let moves = pos.legal_moves();
    let mut counts: Vec<(String, u64)> = moves
        .iter()
        .map(|&mv| {
            let uci = pos.move_to_uci(mv);
            pos.play_unchecked(mv);
            let nodes = perft(pos, depth.saturating_sub(1));
            pos.undo();
            (uci, nodes)
        })
        .collect();
    counts.sort();
    counts
}

/// [`perft`] that gives up (`None`) as soon as `stop` returns `true`; `stop` is asked at
/// every node two or more plies above the leaves.
pub fn perft_until(pos: &mut Position, depth: u32, stop: &dyn Fn() -> bool) -> Option<u64> {
    match depth {
        0 => Some(1),
        1 => Some(count_moves(pos.board())),
        _ => {
            if stop() {
                return None;
            }
            let moves = pos.legal_moves();
            let mut nodes = 0;
            for &mv in moves.iter() {
                pos.play_unchecked(mv);
                let below = perft_until(pos, depth - 1, stop);
                pos.undo();
                nodes += below?;
            }
            Some(nodes)
        }
    }
}

/// [`divide`] that gives up (`None`) as soon as `stop` returns `true`.
pub fn divide_until(
    pos: &mut Position,
    depth: u32,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<(String, u64)>> {
    let moves = pos.legal_moves();
    let mut counts = Vec::with_capacity(moves.len());
    for &mv in moves.iter() {
        let uci = pos.move_to_uci(mv);
        pos.play_unchecked(mv);
        let nodes = perft_until(pos, depth.saturating_sub(1), stop);
        pos.undo();
        counts.push((uci, nodes?));
    }
    counts.sort();
    Some(counts)
}

/// Number of legal moves of `board`, counted in bulk.
#[inline]
pub fn count_moves(board: &Board) -> u64 {
    let mut count = 0;
    board.generate_moves(|moves| {
        count += moves.len() as u64;
        false
    });
    count
}

/// Perft through [`Position`] that plays every move, including at the last ply: the cost of
/// make-move with key maintenance and history. Returns the leaf count.
pub fn perft_make_all(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    pos.board().clone().generate_moves(|moves| {
        for mv in moves {
            pos.play_unchecked(mv);
            nodes += perft_make_all(pos, depth - 1);
            pos.undo();
        }
        false
    });
    nodes
}

/// The sum of `count` over the children of `board`, made by copy-make on the bare board.
fn sum_over_children(board: &Board, mut count: impl FnMut(&Board) -> u64) -> u64 {
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += count(&child);
        }
        false
    });
    nodes
}

/// Perft on a bare cozy-chess board (copy-make, no key, no history) that plays every move:
/// the baseline [`perft_make_all`] is measured against.
pub fn perft_plain_make_all(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    sum_over_children(board, |child| perft_plain_make_all(child, depth - 1))
}

/// Copy-make perft on a bare board that reads cozy-chess's own (non-Polyglot) Zobrist hash
/// at every node, as a search using that hash would: the baseline that shows what the
/// Polyglot key costs beyond *any* key. Returns the leaf count.
pub fn perft_plain_hash_make_all(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        // Use the hash so that the optimiser cannot drop it.
        return 1 + u64::from(board.hash() == 0x0123_4567_89ab_cdef);
    }
    sum_over_children(board, |child| perft_plain_hash_make_all(child, depth - 1))
}

/// Copy-make perft on a bare board that also keeps a Polyglot key (incremental, no
/// history): isolates the cost of the key from that of the history stack.
pub fn perft_keyed_make_all(board: &Board, key: u64, depth: u32) -> u64 {
    if depth == 0 {
        // The key is live: fold it into nothing but keep the optimiser from dropping it.
        return 1 + u64::from(key == 0x0123_4567_89ab_cdef);
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            let child_key = crate::zobrist::after_move_of(key, board, moves.piece, mv, &child);
            nodes += perft_keyed_make_all(&child, child_key, depth - 1);
        }
        false
    });
    nodes
}

/// Moves of `pos` with their UCI text, sorted by text (handy for printing).
pub fn sorted_moves(pos: &Position) -> Vec<(String, Move)> {
    let mut moves: Vec<(String, Move)> = pos
        .legal_moves()
        .iter()
        .map(|&mv| (pos.move_to_uci(mv), mv))
        .collect();
    moves.sort_by(|a, b| a.0.cmp(&b.0));
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_counts() {
        // Chess Programming Wiki, "Perft Results", initial position.
        let mut pos = Position::startpos();
        assert_eq!(perft(&mut pos, 0), 1);
        assert_eq!(perft(&mut pos, 1), 20);
        assert_eq!(perft(&mut pos, 3), 8_902);
        assert_eq!(perft_make_all(&mut pos, 3), 8_902);
        assert_eq!(perft_plain_make_all(pos.board(), 3), 8_902);
        assert_eq!(perft_plain_hash_make_all(pos.board(), 3), 8_902);
        assert_eq!(perft_keyed_make_all(pos.board(), pos.key(), 3), 8_902);
        let divide = divide(&mut pos, 2);
        assert_eq!(divide.len(), 20);
        assert!(divide.iter().all(|(_, n)| *n == 20));
        assert_eq!(divide_until(&mut pos, 2, &|| false), Some(divide));
        assert_eq!(perft_until(&mut pos, 3, &|| false), Some(8_902));
    }

    #[test]
    fn a_stopped_perft_gives_up() {
        let mut pos = Position::startpos();
        assert_eq!(perft_until(&mut pos, MAX_DEPTH, &|| true), None);
        assert_eq!(divide_until(&mut pos, MAX_DEPTH, &|| true), None);
        assert_eq!(pos.ply(), 0);
    }
}
