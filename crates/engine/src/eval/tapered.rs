//! The `full` profile's evaluation: middle-game and end-game terms blended by phase, each
//! term a count times a tuned weight.
//!
//! A position's phase runs from 24 (all minor and major pieces on the board) to 0 (pawns and
//! kings): each term has a middle-game and an end-game weight and the score is their blend,
//! so that e.g. the king hides in the middle game and walks to the centre in the end game, and
//! passed pawns grow in value as pieces come off.
//!
//! The evaluation is linear in its weights: [`terms`] names every term a position has, as a
//! weight index and a count (White's minus Black's), and the score is the sum of count ×
//! weight. The same function feeds the search ([`evaluate_white`]) and the tuner
//! (`tune.rs`), which fits the weights in [`super::weights`] to the results of the
//! engine's own games (Texel's method); they are compiled in.
//!
//! The terms, by [`Param`]:
//! - piece-square values, material included, on a board folded at the middle files (the
//!   values of the e-file and the d-file are the same);
//! - mobility by piece: the squares a piece attacks that hold no own piece and no enemy pawn
//!   attacks, one weight per count;
//! - pawn structure: passed pawns and connected pawns (defended by or beside an own pawn) by
//!   relative rank, doubled and isolated pawns, pawns attacking enemy pieces;
//! - passed pawns by relative rank again: blocked (a piece on the stop square), and the
//!   distance of the own and of the enemy king to the stop square;
//! - threats: minor pieces attacking rooks and queens, rooks attacking queens, pieces
//!   attacked and not defended; knights and bishops on outposts (ranks 4–6 of their side,
//!   defended by an own pawn, no enemy pawn able to attack the square);
//! - rooks on open and half-open files, the bishop pair;
//! - king safety: the own pawns shielding the king, an open file at the king, and the
//!   attacks of enemy knights, bishops, rooks and queens on the king's zone (one weight per
//!   attacked square and piece kind, and one per number of attacking pieces);
//! - the side to move (tempo).

use cozy_chess::{
    BitBoard, Board, Color, Piece, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_rook_moves,
};

use super::weights::WEIGHTS;

/// Where each kind of term starts in the weights, and how many weights it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// Piece-square values with material: piece × 32 folded squares.
    Pst,
    /// Knight mobility, 0–8 squares.
    KnightMobility,
    /// Bishop mobility, 0–13 squares.
    BishopMobility,
    /// Rook mobility, 0–14 squares.
    RookMobility,
    /// Queen mobility, 0–27 squares.
    QueenMobility,
    /// Passed pawn by relative rank.
    Passed,
    /// Connected pawn (defended, or with an own pawn beside it) by relative rank.
    Connected,
    /// A pawn with an own pawn ahead of it on its file.
    Doubled,
    /// A pawn with no own pawn on the files beside it.
    Isolated,
    /// A rook on a file with no pawns.
    RookOpen,
    /// A rook on a file with enemy pawns only.
    RookHalfOpen,
    /// Own pawns shielding the king (0–3), one weight each.
    Shield,
    /// No own pawn on the king's file.
    KingOpenFile,
    /// Squares of the enemy king's zone attacked, by knight, bishop, rook, queen.
    KingAttack,
    /// Pieces attacking the enemy king's zone, 0–7.
    KingAttackers,
    /// Two bishops or more.
    BishopPair,
    /// Enemy pieces (not pawns) attacked by own pawns.
    PawnThreat,
    /// The side to move.
    Tempo,
    /// A passed pawn whose square ahead is occupied, by relative rank.
    PassedBlocked,
    /// A passed pawn: the own king's distance to the square ahead of it, by relative rank.
    PassedOwnKing,
    /// A passed pawn: the enemy king's distance to the square ahead of it, by relative rank.
    PassedEnemyKing,
    /// Threats on enemy pieces: a rook attacked by a knight or bishop, a queen attacked by a
    /// knight or bishop, a queen attacked by a rook, a piece (not a pawn) attacked and not
    /// defended.
    Threat,
    /// A knight, then a bishop, on an outpost: ranks 4–6, defended by an own pawn, beyond
    /// the reach of enemy pawns.
    Outpost,
}

impl Param {
    /// Every kind of term, in the order of the weights.
    pub const ALL: [Param; 23] = [
        Param::Pst,
        Param::KnightMobility,
        Param::BishopMobility,
        Param::RookMobility,
        Param::QueenMobility,
        Param::Passed,
        Param::Connected,
        Param::Doubled,
        Param::Isolated,
        Param::RookOpen,
        Param::RookHalfOpen,
        Param::Shield,
        Param::KingOpenFile,
        Param::KingAttack,
        Param::KingAttackers,
        Param::BishopPair,
        Param::PawnThreat,
        Param::Tempo,
        Param::PassedBlocked,
        Param::PassedOwnKing,
        Param::PassedEnemyKing,
        Param::Threat,
        Param::Outpost,
    ];

    /// How many weights the term has.
    pub const fn count(self) -> usize {
        match self {
            Param::Pst => 6 * 32,
            Param::KnightMobility => 9,
            Param::BishopMobility => 14,
            Param::RookMobility => 15,
            Param::QueenMobility => 28,
            Param::Passed
            | Param::Connected
            | Param::KingAttackers
            | Param::PassedBlocked
            | Param::PassedOwnKing
            | Param::PassedEnemyKing => 8,
            Param::Shield | Param::KingAttack | Param::Threat => 4,
            Param::Outpost => 2,
            _ => 1,
        }
    }

    /// Index of the term's first weight (a table worked out at compile time, so the
    /// evaluation does not add up the lengths at every term).
    pub const fn start(self) -> usize {
        const STARTS: [usize; Param::ALL.len()] = {
            let mut starts = [0; Param::ALL.len()];
            let mut i = 1;
            while i < Param::ALL.len() {
                starts[i] = starts[i - 1] + Param::ALL[i - 1].count();
                i += 1;
            }
            starts
        };
        STARTS[self as usize]
    }

    /// The term's name, for the generated weights file.
    pub const fn name(self) -> &'static str {
        match self {
            Param::Pst => "piece-square (with material)",
            Param::KnightMobility => "knight mobility",
            Param::BishopMobility => "bishop mobility",
            Param::RookMobility => "rook mobility",
            Param::QueenMobility => "queen mobility",
            Param::Passed => "passed pawn by rank",
            Param::Connected => "connected pawn by rank",
            Param::Doubled => "doubled pawn",
            Param::Isolated => "isolated pawn",
            Param::RookOpen => "rook on an open file",
            Param::RookHalfOpen => "rook on a half-open file",
            Param::Shield => "king shield pawns 0-3",
            Param::KingOpenFile => "no own pawn on the king's file",
            Param::KingAttack => "king zone squares attacked by N, B, R, Q",
            Param::KingAttackers => "pieces attacking the king zone 0-7",
            Param::BishopPair => "bishop pair",
            Param::PawnThreat => "pieces attacked by pawns",
            Param::Tempo => "side to move",
            Param::PassedBlocked => "blocked passed pawn by rank",
            Param::PassedOwnKing => "own king's distance to a passed pawn's stop square, by rank",
            Param::PassedEnemyKing => {
                "enemy king's distance to a passed pawn's stop square, by rank"
            }
            Param::Threat => {
                "threats: minor on rook, minor on queen, rook on queen, undefended piece"
            }
            Param::Outpost => "knight, bishop on an outpost",
        }
    }
}

/// Number of (middle-game, end-game) weights.
pub const WEIGHT_COUNT: usize = {
    let last = Param::ALL[Param::ALL.len() - 1];
    last.start() + last.count()
};

/// Phase of a full board: minor pieces 1, rooks 2, queens 4.
pub const MAX_PHASE: i32 = 24;

/// The index of `piece` on `square` (from its own side's view) among the piece-square
/// weights: the board folded at the middle files.
#[inline]
pub const fn pst_index(piece: usize, square: usize) -> usize {
    let file = square % 8;
    let folded = if file < 4 { file } else { 7 - file };
    piece * 32 + (square / 8) * 4 + folded
}

/// Where a position's terms go: the evaluation sums them, the tuner collects them.
pub trait Terms {
    /// Adds `count` times weight `index` (White's count minus Black's).
    fn add(&mut self, index: usize, count: i32);
}

/// The weighted sum of the terms, middle game and end game.
#[derive(Clone, Copy, Debug, Default)]
struct Sum {
    mg: i32,
    eg: i32,
}

impl Terms for Sum {
    #[inline(always)]
    fn add(&mut self, index: usize, count: i32) {
        let (mg, eg) = WEIGHTS[index];
        self.mg += i32::from(mg) * count;
        self.eg += i32::from(eg) * count;
    }
}

/// The position's phase, 0 (pawns and kings) to [`MAX_PHASE`].
#[inline]
pub fn phase(board: &Board) -> i32 {
    let phase = (board.pieces(Piece::Knight).len() + board.pieces(Piece::Bishop).len()) as i32
        + 2 * board.pieces(Piece::Rook).len() as i32
        + 4 * board.pieces(Piece::Queen).len() as i32;
    phase.min(MAX_PHASE)
}

/// Score for White, in centipawns.
pub fn evaluate_white(board: &Board) -> i32 {
    let mut sum = Sum::default();
    terms(board, &mut sum);
    let phase = phase(board);
    (sum.mg * phase + sum.eg * (MAX_PHASE - phase)) / MAX_PHASE
}

/// `PASSED_MASK[color][square]`: the squares in front of a pawn on its own and the adjacent
/// files; the pawn is passed when no enemy pawn stands there.
static PASSED_MASK: [[u64; 64]; 2] = {
    let mut masks = [[0u64; 64]; 2];
    let mut square = 0;
    while square < 64 {
        let files = ADJACENT_FILES[square % 8] | FILE_MASK[square % 8];
        let rank = square / 8;
        let mut white_ahead = 0u64;
        let mut black_ahead = 0u64;
        let mut r = 0;
        while r < 8 {
            if r > rank {
                white_ahead |= 0xffu64 << (8 * r);
            }
            if r < rank {
                black_ahead |= 0xffu64 << (8 * r);
            }
            r += 1;
        }
        masks[0][square] = files & white_ahead;
        masks[1][square] = files & black_ahead;
        square += 1;
    }
    masks
};

/// `FILE_MASK[file]`: the squares of a file.
const FILE_MASK: [u64; 8] = {
    let mut m = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        m[f] = 0x0101_0101_0101_0101u64 << f;
        f += 1;
    }
    m
};

/// `NEAR_RANKS[rank]`: the squares at most two ranks away.
const NEAR_RANKS: [u64; 8] = {
    let mut m = [0u64; 8];
    let mut r = 0;
    while r < 8 {
        let mut other: usize = 0;
        while other < 8 {
            if other.abs_diff(r) <= 2 {
                m[r] |= 0xffu64 << (8 * other);
            }
            other += 1;
        }
        r += 1;
    }
    m
};

/// `ADJACENT_FILES[file]`: the squares of the files beside it.
const ADJACENT_FILES: [u64; 8] = {
    let mut m = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        if f > 0 {
            m[f] |= FILE_MASK[f - 1];
        }
        if f < 7 {
            m[f] |= FILE_MASK[f + 1];
        }
        f += 1;
    }
    m
};

/// The squares attacked by the pawns `pawns` of `color`.
#[inline]
fn pawn_attacks(pawns: BitBoard, color: Color) -> BitBoard {
    let p = pawns.0;
    let not_a = !FILE_MASK[0];
    let not_h = !FILE_MASK[7];
    BitBoard(match color {
        Color::White => ((p & not_a) << 7) | ((p & not_h) << 9),
        Color::Black => ((p & not_a) >> 9) | ((p & not_h) >> 7),
    })
}

/// The squares of the king's zone: the king's square, those around it, and the three in
/// front of those towards the enemy.
#[inline]
fn king_zone(king: Square, color: Color) -> BitBoard {
    let near = get_king_moves(king) | king.bitboard();
    let ahead = match color {
        Color::White => near.0 << 8,
        Color::Black => near.0 >> 8,
    };
    near | BitBoard(ahead)
}

/// What the piece terms of one side need to know.
struct Side {
    color: Color,
    /// +1 for White, −1 for Black.
    sign: i32,
    /// 0 for White, 56 for Black: turns a square into the side's own view.
    flip: usize,
    /// Squares that hold no own piece and no enemy pawn attacks.
    safe: BitBoard,
    /// The enemy king's zone.
    enemy_zone: BitBoard,
    /// Outpost squares: ranks 4–6, defended by an own pawn, no enemy pawn can attack them.
    outposts: BitBoard,
}

/// The placement, mobility, outpost and king-zone terms of `side`'s pieces of kind `piece`
/// (a knight, bishop, rook or queen), which attack `reach(square)`; returns how many of them
/// attack the enemy king's zone, and the squares they attack.
#[inline(always)]
fn pieces<T: Terms>(
    board: &Board,
    side: &Side,
    piece: Piece,
    out: &mut T,
    reach: impl Fn(Square) -> BitBoard,
) -> (usize, BitBoard) {
    let (mobility, attack) = match piece {
        Piece::Knight => (Param::KnightMobility, 0),
        Piece::Bishop => (Param::BishopMobility, 1),
        Piece::Rook => (Param::RookMobility, 2),
        _ => (Param::QueenMobility, 3),
    };
    let mut attackers = 0;
    let mut attacked = BitBoard::EMPTY;
    for square in board.colored_pieces(side.color, piece) {
        let relative = square as usize ^ side.flip;
        out.add(
            Param::Pst.start() + pst_index(piece as usize, relative),
            side.sign,
        );
        if matches!(piece, Piece::Knight | Piece::Bishop) && side.outposts.has(square) {
            let kind = usize::from(piece == Piece::Bishop);
            out.add(Param::Outpost.start() + kind, side.sign);
        }
        let moves = reach(square);
        attacked |= moves;
        let count = (moves & side.safe).len() as usize;
        out.add(
            mobility.start() + count.min(mobility.count() - 1),
            side.sign,
        );
        let hits = (moves & side.enemy_zone).len() as i32;
        if hits > 0 {
            out.add(Param::KingAttack.start() + attack, side.sign * hits);
            attackers += 1;
        }
    }
    (attackers, attacked)
}

/// What the terms of both sides read, worked out once per position: the pawns and kings
/// (and the occupied squares), indexed by colour (White 0, Black 1).
struct PawnsAndKings {
    occupied: BitBoard,
    pawns: [BitBoard; 2],
    /// The squares each side's pawns attack.
    pawn_attacks: [BitBoard; 2],
    kings: [Square; 2],
    /// Each king's zone (see [`king_zone`]).
    zones: [BitBoard; 2],
}

impl PawnsAndKings {
    #[inline(always)]
    fn of(board: &Board) -> Self {
        let pawns = [
            board.colored_pieces(Color::White, Piece::Pawn),
            board.colored_pieces(Color::Black, Piece::Pawn),
        ];
        let kings = [board.king(Color::White), board.king(Color::Black)];
        PawnsAndKings {
            occupied: board.occupied(),
            pawns,
            pawn_attacks: [
                pawn_attacks(pawns[0], Color::White),
                pawn_attacks(pawns[1], Color::Black),
            ],
            kings,
            zones: [
                king_zone(kings[0], Color::White),
                king_zone(kings[1], Color::Black),
            ],
        }
    }
}

/// The squares one side's pieces attack, for the threat terms.
#[derive(Clone, Copy, Default)]
struct Attacks {
    /// By every piece, pawns and king included.
    all: BitBoard,
    /// By knights and bishops.
    minor: BitBoard,
    /// By rooks.
    rook: BitBoard,
}

/// +1 for White, −1 for Black: the sign of a side's counts.
#[inline(always)]
fn sign_of(color: Color) -> i32 {
    if color == Color::White { 1 } else { -1 }
}

/// 0 for White, 56 for Black: turns a square into the side's own view.
#[inline(always)]
fn flip_of(color: Color) -> usize {
    if color == Color::White { 0 } else { 56 }
}

/// Names every term of `board` to `out` (see the module docs).
pub fn terms<T: Terms>(board: &Board, out: &mut T) {
    let facts = PawnsAndKings::of(board);
    out.add(Param::Tempo.start(), sign_of(board.side_to_move()));
    let mut attacks = [Attacks::default(); 2];
    for color in [Color::White, Color::Black] {
        pawn_terms(board, &facts, color, out);
        attacks[color as usize] = piece_terms(board, &facts, color, out);
        king_terms(&facts, color, out);
    }
    // Threats, once both sides' attacks are known.
    for color in [Color::White, Color::Black] {
        threat_terms(board, &attacks, color, out);
    }
}

/// The pawn terms of `color`: placement, passed pawns (blocked, the kings' distances to
/// the stop square), connected, doubled and isolated pawns, and pieces the pawns attack.
#[inline(always)]
fn pawn_terms<T: Terms>(board: &Board, facts: &PawnsAndKings, color: Color, out: &mut T) {
    let us = color as usize;
    let them = 1 - us;
    let (sign, flip) = (sign_of(color), flip_of(color));
    let own_pawns = facts.pawns[us];
    let defended = facts.pawn_attacks[us];
    for square in own_pawns {
        let s = square as usize;
        let relative = s ^ flip;
        let rank = relative / 8;
        out.add(Param::Pst.start() + pst_index(0, relative), sign);
        if PASSED_MASK[us][s] & facts.pawns[them].0 == 0 {
            out.add(Param::Passed.start() + rank, sign);
            // A pawn on its last rank would have promoted: the stop square exists.
            let stop = Square::index(if us == 0 { s + 8 } else { s - 8 });
            if facts.occupied.has(stop) {
                out.add(Param::PassedBlocked.start() + rank, sign);
            }
            let own_king = distance(facts.kings[us], stop);
            out.add(Param::PassedOwnKing.start() + rank, sign * own_king);
            let enemy_king = distance(facts.kings[them], stop);
            out.add(Param::PassedEnemyKing.start() + rank, sign * enemy_king);
        }
        let file = s % 8;
        let beside = BitBoard(ADJACENT_FILES[file] & (0xffu64 << (8 * (s / 8))));
        if defended.has(square) || !(beside & own_pawns).is_empty() {
            out.add(Param::Connected.start() + rank, sign);
        }
        let file_ahead = FILE_MASK[file] & PASSED_MASK[us][s];
        if file_ahead & own_pawns.0 != 0 {
            out.add(Param::Doubled.start(), sign);
        }
        if ADJACENT_FILES[file] & own_pawns.0 == 0 {
            out.add(Param::Isolated.start(), sign);
        }
    }
    let threatened = facts.pawn_attacks[us]
        & board.colors(!color)
        & !board.pieces(Piece::Pawn)
        & !board.pieces(Piece::King);
    out.add(Param::PawnThreat.start(), sign * threatened.len() as i32);
}

/// The piece terms of `color` (knights, bishops, rooks, queens): placement, outposts,
/// mobility, attacks on the enemy king's zone, rooks on open files, the bishop pair.
/// Returns the squares the side attacks.
#[inline(always)]
fn piece_terms<T: Terms>(
    board: &Board,
    facts: &PawnsAndKings,
    color: Color,
    out: &mut T,
) -> Attacks {
    let us = color as usize;
    let them = 1 - us;
    let sign = sign_of(color);
    let occupied = facts.occupied;
    let minors =
        board.colored_pieces(color, Piece::Knight) | board.colored_pieces(color, Piece::Bishop);
    let mut outposts = BitBoard::EMPTY;
    for square in minors & facts.pawn_attacks[us] & BitBoard(OUTPOST_RANKS[us]) {
        let reachable = PASSED_MASK[us][square as usize] & ADJACENT_FILES[square as usize % 8];
        if reachable & facts.pawns[them].0 == 0 {
            outposts |= square.bitboard();
        }
    }
    let side = Side {
        color,
        sign,
        flip: flip_of(color),
        safe: !board.colors(color) & !facts.pawn_attacks[them],
        enemy_zone: facts.zones[them],
        outposts,
    };
    let knights = pieces(board, &side, Piece::Knight, out, get_knight_moves);
    let bishops = pieces(board, &side, Piece::Bishop, out, |s| {
        get_bishop_moves(s, occupied)
    });
    let rooks = pieces(board, &side, Piece::Rook, out, |s| {
        get_rook_moves(s, occupied)
    });
    let queens = pieces(board, &side, Piece::Queen, out, |s| {
        get_bishop_moves(s, occupied) | get_rook_moves(s, occupied)
    });
    let attackers = knights.0 + bishops.0 + rooks.0 + queens.0;
    let minor = knights.1 | bishops.1;
    out.add(
        Param::KingAttackers.start() + attackers.min(Param::KingAttackers.count() - 1),
        sign,
    );
    let own_pawns = facts.pawns[us];
    for square in board.colored_pieces(color, Piece::Rook) {
        let file = FILE_MASK[square as usize % 8];
        if file & own_pawns.0 == 0 {
            if file & facts.pawns[them].0 == 0 {
                out.add(Param::RookOpen.start(), sign);
            } else {
                out.add(Param::RookHalfOpen.start(), sign);
            }
        }
    }
    if board.colored_pieces(color, Piece::Bishop).len() >= 2 {
        out.add(Param::BishopPair.start(), sign);
    }
    Attacks {
        all: minor | rooks.1 | queens.1 | facts.pawn_attacks[us] | get_king_moves(facts.kings[us]),
        minor,
        rook: rooks.1,
    }
}

/// The king terms of `color`: placement, the pawns shielding it, an open file.
#[inline(always)]
fn king_terms<T: Terms>(facts: &PawnsAndKings, color: Color, out: &mut T) {
    let us = color as usize;
    let sign = sign_of(color);
    let own_pawns = facts.pawns[us];
    let king = facts.kings[us];
    out.add(
        Param::Pst.start() + pst_index(Piece::King as usize, king as usize ^ flip_of(color)),
        sign,
    );
    let king_file = king.file() as usize;
    let front = PASSED_MASK[us][king as usize];
    let shield = (BitBoard(front & NEAR_RANKS[king as usize / 8]) & own_pawns).len() as usize;
    out.add(
        Param::Shield.start() + shield.min(Param::Shield.count() - 1),
        sign,
    );
    if FILE_MASK[king_file] & own_pawns.0 == 0 {
        out.add(Param::KingOpenFile.start(), sign);
    }
}

/// The threat terms of `color`, given both sides' `attacks`: minor pieces on rooks and
/// queens, rooks on queens, pieces attacked and not defended.
#[inline(always)]
fn threat_terms<T: Terms>(board: &Board, attacks: &[Attacks; 2], color: Color, out: &mut T) {
    let us = color as usize;
    let them = 1 - us;
    let sign = sign_of(color);
    let enemy = board.colors(!color);
    let rooks = enemy & board.pieces(Piece::Rook);
    let queens = enemy & board.pieces(Piece::Queen);
    let pieces = enemy & !board.pieces(Piece::Pawn) & !board.pieces(Piece::King);
    let threats = [
        attacks[us].minor & rooks,
        attacks[us].minor & queens,
        attacks[us].rook & queens,
        attacks[us].all & pieces & !attacks[them].all,
    ];
    for (kind, threat) in threats.into_iter().enumerate() {
        out.add(Param::Threat.start() + kind, sign * threat.len() as i32);
    }
}

/// The king distance between two squares: the moves a king needs from one to the other.
#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let files = (a.file() as i32 - b.file() as i32).abs();
    let ranks = (a.rank() as i32 - b.rank() as i32).abs();
    files.max(ranks)
}

/// `OUTPOST_RANKS[color]`: the side's fourth to sixth ranks.
const OUTPOST_RANKS: [u64; 2] = [0x0000_ffff_ff00_0000, 0x0000_00ff_ffff_0000];

#[cfg(test)]
mod tests {
    use super::*;

    /// Mirrors a FEN's board vertically and swaps the colours (and the side to move).
    fn mirrored(fen: &str) -> Board {
        let board: Board = fen.parse().unwrap();
        let mut out = String::new();
        for rank in (0..8).rev() {
            let mirror_rank = 7 - rank;
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::index(mirror_rank * 8 + file);
                match (board.piece_on(sq), board.color_on(sq)) {
                    (Some(p), Some(c)) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let ch = p.to_string();
                        out.push_str(&if c == Color::White {
                            ch.to_lowercase()
                        } else {
                            ch.to_uppercase()
                        });
                    }
                    _ => empty += 1,
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if rank > 0 {
                out.push('/');
            }
        }
        let side = if board.side_to_move() == Color::White {
            "b"
        } else {
            "w"
        };
        format!("{out} {side} - - 0 1").parse().unwrap()
    }

    #[test]
    fn colour_mirrored_positions_score_opposite() {
        assert_eq!(
            evaluate_white(&Board::startpos()),
            WEIGHTS[Param::Tempo.start()].0.into()
        );
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r1bq1rk1/pp2nppp/2n1p3/3pP3/1b1P4/2NB1N2/PP3PPP/R1BQK2R b - - 0 1",
            "6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 1",
        ] {
            let board: Board = fen.parse().unwrap();
            assert_eq!(
                evaluate_white(&board),
                -evaluate_white(&mirrored(fen)),
                "{fen}"
            );
        }
    }

    #[test]
    fn passed_pawns_and_material_count() {
        let passer: Board = "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1".parse().unwrap();
        let blocked: Board = "4k3/3p4/8/3P4/8/8/8/4K3 w - - 0 1".parse().unwrap();
        assert!(evaluate_white(&passer) > 50, "{}", evaluate_white(&passer));
        assert!(evaluate_white(&blocked) < evaluate_white(&passer) - 50);
        let queen_up: Board = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1".parse().unwrap();
        assert!(evaluate_white(&queen_up) > 600);
    }

    #[test]
    fn the_weights_are_laid_out_without_gaps() {
        let mut next = 0;
        for p in Param::ALL {
            assert_eq!(p.start(), next, "{p:?}");
            next += p.count();
        }
        assert_eq!(next, WEIGHT_COUNT);
        assert_eq!(WEIGHTS.len(), WEIGHT_COUNT);
        assert_eq!(pst_index(5, 63), 5 * 32 + 7 * 4);
        assert_eq!(pst_index(0, 11), pst_index(0, 12));
    }
}
