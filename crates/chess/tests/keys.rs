//! Polyglot keys: the published vectors, incremental == from-scratch at every node of perft
//! trees, and Polyglot's en passant rule.

mod common;

use common::play;
use transpo_chess::polyglot_keys::POLYGLOT_RANDOM;
use transpo_chess::{Position, zobrist};

/// ANCHORS.md §3 (python-chess `chess.polyglot` and the Polyglot book format documentation).
const VECTORS: [(&str, u64); 9] = [
    ("", 0x463b96181691fc9c),
    ("e2e4", 0x823c9b50fd114196),
    ("e2e4 d7d5", 0x0756b94461c50fb0),
    ("e2e4 d7d5 e4e5", 0x662fafb965db29d4),
    ("e2e4 d7d5 e4e5 f7f5", 0x22a48b5a8e47ff78),
    ("e2e4 d7d5 e4e5 f7f5 e1e2", 0x652a607ca3f242c1),
    ("e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", 0x00fdd303c946bdd9),
    ("a2a4 b7b5 h2h4 b5b4 c2c4", 0x3c8123ea7b067637),
    ("a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", 0x5c3f9b829b279560),
];

#[test]
fn published_vectors_incremental() {
    for (moves, key) in VECTORS {
        let pos = play(moves);
        assert_eq!(pos.key(), key, "after {moves:?}: got {:016x}", pos.key());
    }
}

#[test]
fn published_vectors_from_fen() {
    for (moves, key) in VECTORS {
        let fen = play(moves).fen();
        let pos = Position::from_fen(&fen).unwrap();
        assert_eq!(pos.key(), key, "{fen}");
    }
}

#[test]
fn constants_checksum() {
    // Wrapping sum and XOR of python-chess 1.11.2's POLYGLOT_RANDOM_ARRAY, computed from
    // that package: a guard against a constant mistyped outside what the vectors touch.
    let sum = POLYGLOT_RANDOM
        .iter()
        .fold(0u64, |acc, &v| acc.wrapping_add(v));
    let xor = POLYGLOT_RANDOM.iter().fold(0u64, |acc, &v| acc ^ v);
    assert_eq!(POLYGLOT_RANDOM.len(), 781);
    assert_eq!(sum, 0xb87537615dbe2812);
    assert_eq!(xor, 0xeaa4dc0dd06542b6);
}

/// Walks the whole tree, checking the incremental key against a from-scratch computation
/// at every node, after every undo, and after a null move wherever one is allowed.
fn check_tree(pos: &mut Position, depth: u32, nodes: &mut u64) {
    *nodes += 1;
    assert_eq!(
        pos.key(),
        zobrist::compute(pos.board()),
        "incremental key differs from scratch in {}",
        pos.fen()
    );
    if depth == 0 {
        return;
    }
    let key = pos.key();
    if pos.play_null().is_ok() {
        assert_eq!(
            pos.key(),
            zobrist::compute(pos.board()),
            "null move in {}",
            pos.fen()
        );
        pos.undo();
    }
    for &mv in pos.legal_moves().iter() {
        pos.play_unchecked(mv);
        check_tree(pos, depth - 1, nodes);
        pos.undo();
        assert_eq!(pos.key(), key);
    }
}

#[test]
fn incremental_equals_scratch_in_tricky_trees() {
    let cases = [
        // Kiwipete (castling both sides, en passant, promotions deeper down).
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            3,
        ),
        // CPW position 3: en passant, including captures that would expose the king.
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
        // CPW position 4: promotions with capture, castling rights lost by captures.
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            3,
        ),
        // CPW position 5: promotion on d8, castling.
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            3,
        ),
        // En passant available at the root, and an en passant that gives check.
        ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 4),
        (
            "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            3,
        ),
        // Promotions on both sides.
        ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1", 4),
    ];
    for (fen, depth) in cases {
        let mut pos = Position::from_fen(fen).unwrap();
        let mut nodes = 0;
        check_tree(&mut pos, depth, &mut nodes);
        assert!(nodes > 1000, "{fen}: only {nodes} nodes");
    }
}

#[test]
fn unusable_en_passant_square_does_not_change_the_key() {
    // After 1.e4 e5 nothing can take on e6: FENs with and without "e6" are one position.
    let with = Position::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")
        .unwrap();
    let without =
        Position::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").unwrap();
    assert_eq!(with.key(), without.key());
    // The same position reached by moves hashes the same too.
    assert_eq!(play("e2e4 e7e5").key(), with.key());
    // A black pawn on a5 is not beside b4... nor is one two files away.
    let far = Position::from_fen("4k3/8/8/8/p1P5/8/8/4K3 b - c3 0 1").unwrap();
    let far_none = Position::from_fen("4k3/8/8/8/p1P5/8/8/4K3 b - - 0 1").unwrap();
    assert_eq!(far.key(), far_none.key());
}

#[test]
fn usable_en_passant_square_changes_the_key() {
    let with = play("e2e4 d7d5 e4e5 f7f5");
    let without =
        Position::from_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3").unwrap();
    assert_ne!(with.key(), without.key());
    // Polyglot counts the square even when the capture is illegal (the e5 pawn is pinned).
    let pinned = Position::from_fen("4r1k1/8/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap();
    let pinned_none = Position::from_fen("4r1k1/8/8/3pP3/8/8/8/4K3 w - - 0 1").unwrap();
    assert_ne!(pinned.key(), pinned_none.key());
    assert!(
        !pinned
            .legal_moves()
            .iter()
            .any(|mv| pinned.move_to_uci(*mv) == "e5d6")
    );
}

#[test]
fn transpositions_hash_alike() {
    assert_eq!(play("g1f3 g8f6 b1c3").key(), play("b1c3 g8f6 g1f3").key());
    assert_ne!(play("g1f3").key(), play("b1c3").key());
    // Losing castling rights changes the key although the pieces are back home.
    assert_ne!(
        play("e2e4 e7e5 e1e2 e8e7 e2e1 e7e8").key(),
        play("e2e4 e7e5").key()
    );
}
