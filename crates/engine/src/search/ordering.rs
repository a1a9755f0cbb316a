//! Move ordering: which move to try first, so that alpha-beta cuts early.
//!
//! Order (the paper's, plus killers in the `full` profile): the previous iteration's
//! principal-variation move while the search follows that line, the table's move, captures by
//! most valuable victim / least valuable attacker (in the `full` profile, captures of equal
//! victims by capture history before the attacker), promotions (queen first), killer moves
//! (quiet moves that refuted a sibling), then the rest by the history heuristic (quiet moves
//! that caused cut-offs anywhere, weighted by depth²).

use cozy_chess::{Board, Move, Piece};

use transpo_chess::position::MAX_MOVES;

/// Plies a search can go below the root (also bounds the per-ply tables).
pub const MAX_PLY: usize = 128;

const PV_SCORE: i32 = 30_000_000;
const TT_SCORE: i32 = 20_000_000;
const CAPTURE_SCORE: i32 = 10_000_000;
const PROMOTION_SCORE: i32 = 9_000_000;
const KILLER_SCORE: i32 = 8_000_000;
/// The counter move of the previous move, after the killers.
const COUNTER_SCORE: i32 = 7_000_000;
/// The largest magnitude of a history score under the gravity update.
const HISTORY_MAX: i32 = 16_384;
/// Captures that lose material by static exchange, when ordered last: below every quiet
/// move (history scores are at most 2²⁰).
const BAD_CAPTURE_SCORE: i32 = -10_000_000;

/// A capture's score per unit of its victim's [`VALUE`]: more than the reach of an
/// attacker's value and a capture-history score together, so that the victim ranks first
/// and capture history (before the attacker) orders captures of equal victims.
const VICTIM_STEP: i32 = 1 << 16;

/// Capture-history scores are divided by this in the ordering (±2¹⁴ → ±2¹²).
const CAPTURE_HISTORY_SHARE: i32 = 4;

/// Values MVV/LVA ranks pieces by, pawn … king.
const VALUE: [i32; 6] = [1, 3, 3, 5, 9, 20];

/// Pieces of both colours times squares: the rows and columns of the continuation history.
const PIECE_SQUARES: usize = 12 * 64;

/// A move as the continuation history indexes it: the piece that moves (with its colour)
/// and the square it goes to.
#[inline]
pub fn piece_square(board: &Board, mv: Move) -> Option<u16> {
    let piece = board.piece_on(mv.from)?;
    let colour = board.side_to_move() as usize;
    Some(((colour * 6 + piece as usize) * 64 + mv.to as usize) as u16)
}

/// The continuation-history rows a node's quiet moves are scored in: the opponent's last
/// move and the side's own previous move, as [`piece_square`]s (`None`: no such move, a
/// null move, or the feature off).
#[derive(Clone, Copy, Debug, Default)]
pub struct Continuation {
    /// Row of the move one ply back, then two plies back.
    pub rows: [Option<u16>; 2],
}

/// Killer moves, counter moves, the history and the continuation history of one search
/// thread.
#[derive(Clone)]
pub struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    /// `history[side][from][to]`.
    history: Vec<[[i32; 64]; 64]>,
    /// `counters[from][to]` of the previous move: the quiet move that last refuted it.
    counters: Vec<[Option<Move>; 64]>,
    /// `continuation[row * PIECE_SQUARES + column]`: how a move (column) did after a move
    /// (row), both as [`piece_square`]s.
    continuation: Vec<i16>,
    /// `captures[piece_square * 6 + victim]`: how a capture by a piece to a square (a
    /// [`piece_square`]) of a victim (a piece type) did; all 0 unless updated.
    captures: Vec<i16>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![[[0; 64]; 64]; 2],
            counters: vec![[None; 64]; 64],
            continuation: vec![0; PIECE_SQUARES * PIECE_SQUARES],
            captures: vec![0; PIECE_SQUARES * 6],
        }
    }
}

/// The gravity update: `h` moves by `delta` and towards 0 by the fraction of the way
/// `delta` is of [`HISTORY_MAX`], so it stays within ±`HISTORY_MAX`.
#[inline]
fn nudge(h: i32, delta: i32) -> i32 {
    h + delta - h * delta.abs() / HISTORY_MAX
}

impl Heuristics {
    /// The history update with gravity (the `full` profile's `history_gravity`): the quiet
    /// move `best` that caused a cut-off gains, the quiet moves `tried` before it lose, by a
    /// bonus growing with `depth`; each score moves towards ±`HISTORY_MAX` by the fraction
    /// of the way the bonus is of it, so old news fades instead of saturating.
    /// With `continuation` rows, the continuation history is updated the same way.
    pub fn update_history(
        &mut self,
        board: &Board,
        best: Move,
        tried: &[Move],
        depth: i32,
        continuation: Continuation,
    ) {
        let bonus = (depth * depth + depth).min(1_200);
        let side = board.side_to_move() as usize;
        let moves = std::iter::once((best, bonus)).chain(tried.iter().map(|&mv| (mv, -bonus)));
        for (mv, delta) in moves {
            let h = &mut self.history[side][mv.from as usize][mv.to as usize];
            *h = nudge(*h, delta);
            let Some(column) = piece_square(board, mv) else {
                continue;
            };
            for row in continuation.rows.into_iter().flatten() {
                let index = usize::from(row) * PIECE_SQUARES + usize::from(column);
                if let Some(c) = self.continuation.get_mut(index) {
                    // Within ±HISTORY_MAX (see `nudge`), which fits an i16.
                    *c = nudge(i32::from(*c), delta) as i16;
                }
            }
        }
    }

    /// The capture-history index of the capture `mv` of `board` (en passant takes a pawn).
    #[inline]
    fn capture_index(board: &Board, mv: Move) -> Option<usize> {
        let victim = board.piece_on(mv.to).unwrap_or(Piece::Pawn);
        Some(usize::from(piece_square(board, mv)?) * 6 + victim as usize)
    }

    /// The capture-history score of the capture `mv` of `board` (0 until updated).
    #[inline]
    pub fn capture_history(&self, board: &Board, mv: Move) -> i32 {
        Self::capture_index(board, mv)
            .and_then(|i| self.captures.get(i))
            .map_or(0, |&c| i32::from(c))
    }

    /// The capture-history update after a cut-off at `depth` plies: the capture `best` (if
    /// the cut-off was one) gains, the captures `tried` before it lose, with gravity as in
    /// [`Heuristics::update_history`].
    pub fn update_captures(
        &mut self,
        board: &Board,
        best: Option<Move>,
        tried: &[Move],
        depth: i32,
    ) {
        let bonus = (depth * depth + depth).min(1_200);
        let moves = best
            .map(|mv| (mv, bonus))
            .into_iter()
            .chain(tried.iter().map(|&mv| (mv, -bonus)));
        for (mv, delta) in moves {
            if let Some(c) = Self::capture_index(board, mv).and_then(|i| self.captures.get_mut(i)) {
                // Within ±HISTORY_MAX (see `nudge`), which fits an i16.
                *c = nudge(i32::from(*c), delta) as i16;
            }
        }
    }

    /// The continuation-history score of the quiet move `mv` of `board` in `continuation`'s
    /// rows (0 where there is none).
    #[inline]
    pub fn continuation(&self, board: &Board, mv: Move, continuation: Continuation) -> i32 {
        let Some(column) = piece_square(board, mv) else {
            return 0;
        };
        continuation
            .rows
            .into_iter()
            .flatten()
            .map(|row| {
                let index = usize::from(row) * PIECE_SQUARES + usize::from(column);
                self.continuation.get(index).map_or(0, |&c| i32::from(c))
            })
            .sum()
    }

    /// Makes `mv` the first killer move at `ply` (the previous first becomes the second).
    pub fn add_killer(&mut self, mv: Move, ply: usize) {
        if let Some(k) = self.killers.get_mut(ply)
            && k[0] != Some(mv)
        {
            k[1] = k[0];
            k[0] = Some(mv);
        }
    }

    /// Records `mv` as the counter move of `previous`, the move that led to the node it
    /// refuted.
    pub fn set_counter(&mut self, previous: Move, mv: Move) {
        self.counters[previous.from as usize][previous.to as usize] = Some(mv);
    }

    /// The counter move recorded for `previous` (the move that led to this node).
    pub fn counter(&self, previous: Option<Move>) -> Option<Move> {
        let prev = previous?;
        self.counters[prev.from as usize][prev.to as usize]
    }

    /// The history score of the quiet move `mv` for the side to move of `board`.
    pub fn history(&self, board: &Board, mv: Move) -> i32 {
        self.history[board.side_to_move() as usize][mv.from as usize][mv.to as usize]
    }

    /// Records a quiet move that caused a cut-off at `ply` with `depth` plies left.
    pub fn reward(&mut self, board: &Board, mv: Move, ply: usize, depth: i32, killers: bool) {
        let h = &mut self.history[board.side_to_move() as usize][mv.from as usize][mv.to as usize];
        *h = (*h + depth * depth).min(1 << 20);
        if killers {
            self.add_killer(mv, ply);
        }
    }

    /// Whether `mv` is one of the killer moves at `ply`.
    pub fn is_killer(&self, mv: Move, ply: usize) -> bool {
        self.killer_rank(mv, ply).is_some()
    }

    fn killer_rank(&self, mv: Move, ply: usize) -> Option<i32> {
        let k = self.killers.get(ply)?;
        if k[0] == Some(mv) {
            Some(1)
        } else if k[1] == Some(mv) {
            Some(0)
        } else {
            None
        }
    }
}

/// Whether `mv` captures something (en passant included; castling, king-takes-own-rook in
/// cozy-chess, does not).
#[inline]
pub fn is_capture(board: &Board, mv: Move) -> bool {
    board.colors(!board.side_to_move()).has(mv.to)
        || (board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file())
}

/// Whether `mv` is neither a capture nor a promotion.
#[inline]
pub fn is_quiet(board: &Board, mv: Move) -> bool {
    mv.promotion.is_none() && !is_capture(board, mv)
}

/// MVV/LVA and promotion score of a capture or promotion, 0 for a quiet move.
#[inline]
fn tactical_score(board: &Board, mv: Move) -> i32 {
    let mut score = 0;
    if is_capture(board, mv) {
        let victim = board.piece_on(mv.to).map_or(0, |p| VALUE[p as usize]);
        let attacker = board.piece_on(mv.from).map_or(0, |p| VALUE[p as usize]);
        score = CAPTURE_SCORE + victim * VICTIM_STEP - attacker;
    }
    if let Some(p) = mv.promotion {
        score = score.max(PROMOTION_SCORE) + VALUE[p as usize] * 8;
    }
    score
}

/// A move list with scores, handed out best first by selection.
pub struct ScoredMoves {
    moves: [(Move, i32); MAX_MOVES],
    len: usize,
    next: usize,
}

impl ScoredMoves {
    /// An empty list.
    pub fn new() -> Self {
        let filler = Move {
            from: cozy_chess::Square::A1,
            to: cozy_chess::Square::A1,
            promotion: None,
        };
        ScoredMoves {
            moves: [(filler, 0); MAX_MOVES],
            len: 0,
            next: 0,
        }
    }

    #[inline]
    fn push(&mut self, mv: Move, score: i32) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = (mv, score);
            self.len += 1;
        }
    }

    /// Number of moves in the list.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// All legal moves of `board` but `skip`, scored for the main search, into this list,
    /// reusing its storage (a search keeps one list per ply instead of initialising and
    /// moving a fresh one at every node). With `bad_captures_last`, captures that lose
    /// material by static exchange come after the quiet moves (the `full` profile); otherwise
    /// all captures come first (the paper's). A quiet `counter` move (none in the paper's
    /// profile) comes right after the killers; the other quiet moves are ordered by history
    /// plus their continuation history in `continuation`'s rows.
    #[allow(clippy::too_many_arguments)]
    pub fn fill_all(
        &mut self,
        board: &Board,
        heuristics: &Heuristics,
        ply: usize,
        pv_move: Option<Move>,
        tt_move: Option<Move>,
        skip: Option<Move>,
        bad_captures_last: bool,
        (counter, continuation): (Option<Move>, Continuation),
    ) {
        self.len = 0;
        self.next = 0;
        let side = board.side_to_move() as usize;
        board.generate_moves(|moves| {
            for mv in moves {
                if Some(mv) == skip {
                    continue;
                }
                let score = if Some(mv) == pv_move {
                    PV_SCORE
                } else if Some(mv) == tt_move {
                    TT_SCORE
                } else {
                    match tactical_score(board, mv) {
                        0 => match heuristics.killer_rank(mv, ply) {
                            Some(rank) => KILLER_SCORE + rank,
                            None if Some(mv) == counter => COUNTER_SCORE,
                            None => {
                                heuristics.history[side][mv.from as usize][mv.to as usize]
                                    + heuristics.continuation(board, mv, continuation)
                            }
                        },
                        s if bad_captures_last
                            && mv.promotion.is_none()
                            && super::see::loses_material(board, mv) =>
                        {
                            BAD_CAPTURE_SCORE + s - CAPTURE_SCORE
                        }
                        s if mv.promotion.is_none() => {
                            s + heuristics.capture_history(board, mv) / CAPTURE_HISTORY_SHARE
                        }
                        s => s,
                    }
                };
                self.push(mv, score);
            }
            false
        });
    }

    /// The captures and promotions of `board` (every legal move when in check), by MVV/LVA.
    pub fn tactical(board: &Board) -> Self {
        let mut list = Self::new();
        list.fill_tactical(board);
        list
    }

    /// [`ScoredMoves::tactical`] into this list, reusing its storage.
    pub fn fill_tactical(&mut self, board: &Board) {
        self.len = 0;
        self.next = 0;
        let in_check = !board.checkers().is_empty();
        let enemy = board.colors(!board.side_to_move());
        let ep = board
            .en_passant()
            .map_or(cozy_chess::BitBoard::EMPTY, |file| file.bitboard());
        let back_ranks = cozy_chess::Rank::First.bitboard() | cozy_chess::Rank::Eighth.bitboard();
        board.generate_moves(|mut moves| {
            if !in_check {
                let mask = if moves.piece == Piece::Pawn {
                    enemy | back_ranks | (ep & !enemy & !board.colors(board.side_to_move()))
                } else {
                    enemy
                };
                moves.to &= mask;
            }
            for mv in moves {
                if !in_check
                    && moves.piece == Piece::Pawn
                    && mv.promotion.is_none()
                    && !is_capture(board, mv)
                {
                    continue;
                }
                self.push(mv, tactical_score(board, mv));
            }
            false
        });
    }

    /// Moves `mv`, if the list holds it, ahead of every other move not handed out yet.
    pub fn promote(&mut self, mv: Move) {
        if let Some(slot) = self.moves[self.next..self.len]
            .iter_mut()
            .find(|(m, _)| *m == mv)
        {
            slot.1 = PV_SCORE;
        }
    }

    /// The best-scored move not handed out yet.
    #[inline]
    pub fn pick(&mut self) -> Option<Move> {
        if self.next >= self.len {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.len {
            if self.moves[i].1 > self.moves[best].1 {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1].0)
    }
}

impl Default for ScoredMoves {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_come_first_by_victim() {
        let board: Board = "4k3/8/3q1r2/4P3/8/8/8/4K3 w - - 0 1".parse().unwrap();
        let mut list = ScoredMoves::new();
        list.fill_all(
            &board,
            &Heuristics::default(),
            0,
            None,
            None,
            None,
            false,
            (None, Continuation::default()),
        );
        assert_eq!(list.pick().map(|m| m.to.to_string()), Some("d6".into()));
        assert_eq!(list.pick().map(|m| m.to.to_string()), Some("f6".into()));
        let mut tactical = ScoredMoves::tactical(&board);
        assert_eq!(tactical.len(), 2);
        tactical.pick();
        tactical.pick();
        assert_eq!(tactical.pick(), None);
    }

    #[test]
    fn continuation_history_learns_in_its_rows_only() {
        let board = Board::default();
        let mv = |s: &str| -> Move { s.parse().unwrap() };
        let (best, tried) = (mv("g1f3"), mv("b1c3"));
        // White's rows: a black knight on f6 (the last move), a white pawn on e4 (before).
        let black: Board = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse()
            .unwrap();
        let rows = Continuation {
            rows: [
                piece_square(&black, mv("g8f6")),
                piece_square(&board, mv("e2e4")),
            ],
        };
        let mut h = Heuristics::default();
        for _ in 0..200 {
            h.update_history(&board, best, &[tried], 10, rows);
        }
        let with = |m| h.continuation(&board, m, rows);
        // Two rows, each near +/- HISTORY_MAX after many updates, never beyond it.
        assert!(with(best) > HISTORY_MAX && with(best) <= 2 * HISTORY_MAX);
        assert!(with(tried) < -HISTORY_MAX && with(tried) >= -2 * HISTORY_MAX);
        // Another row, or no row, knows nothing.
        let other = Continuation {
            rows: [piece_square(&black, mv("b8c6")), None],
        };
        assert_eq!(h.continuation(&board, best, other), 0);
        assert_eq!(h.continuation(&board, best, Continuation::default()), 0);
        // The ordering follows it: after the killers and the counter move, best first.
        let mut list = ScoredMoves::new();
        list.fill_all(&board, &h, 0, None, None, None, true, (None, rows));
        assert_eq!(list.pick(), Some(best));
    }

    #[test]
    fn capture_history_orders_equal_victims_only() {
        // Rxa8 takes a knight; Nxd5 and Bxd5 take the same pawn with equal attackers.
        let board: Board = "n6k/8/8/3p4/4B3/2N5/8/R3K3 w - - 0 1".parse().unwrap();
        let mv = |s: &str| -> Move { s.parse().unwrap() };
        let order = |h: &Heuristics| {
            let mut list = ScoredMoves::new();
            let none = (None, Continuation::default());
            list.fill_all(&board, h, 0, None, None, None, true, none);
            [list.pick(), list.pick(), list.pick()].map(|m| m.map(|m| m.to_string()))
        };
        let mut h = Heuristics::default();
        for _ in 0..50 {
            h.update_captures(&board, Some(mv("e4d5")), &[mv("c3d5")], 10);
        }
        assert!(h.capture_history(&board, mv("e4d5")) > 0);
        assert!(h.capture_history(&board, mv("c3d5")) < 0);
        let expected = ["a1a8", "e4d5", "c3d5"].map(|m| Some(m.to_string()));
        assert_eq!(order(&h), expected);
        // Taught the other way, the pawn's takers swap; the knight's taker stays first.
        for _ in 0..200 {
            h.update_captures(&board, Some(mv("c3d5")), &[mv("e4d5"), mv("a1a8")], 10);
        }
        let expected = ["a1a8", "c3d5", "e4d5"].map(|m| Some(m.to_string()));
        assert_eq!(order(&h), expected);
        assert!(h.capture_history(&board, mv("a1a8")).abs() <= HISTORY_MAX);
    }

    #[test]
    fn quiescence_sees_promotions_and_en_passant() {
        let board: Board = "4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 2".parse().unwrap();
        let list = ScoredMoves::tactical(&board);
        // b8=N, b8=B, b8=R, b8=Q, exd6 e.p.
        assert_eq!(list.len(), 5);
    }
}
