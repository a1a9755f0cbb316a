//! FEN and EPD text: `parse_fen`, `Position::from_fen` and `Epd::parse` on any text; every
//! position they accept is exercised (legal moves, a move made and undone, a null move, the
//! key against a from-scratch computation, FEN out and back in), so a position that is
//! accepted but breaks the move generator or the keys shows up as a crash.

#![no_main]

use libfuzzer_sys::fuzz_target;
use transpo_chess::{Epd, Position, fen::parse_fen, perft, zobrist};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // A board the parser accepts must make a position (the same checks) ...
    if let Ok(board) = parse_fen(&text) {
        let pos = Position::from_board(board).expect("parse_fen accepted the board");
        exercise(pos, data);
    }
    if let Ok(pos) = Position::from_fen(&text) {
        exercise(pos, data);
    }
    if let Ok(epd) = Epd::parse(&text) {
        let _ = epd.to_string();
        exercise(epd.position, data);
    }
});

/// Moves, keys and text of an accepted position; `data` picks the moves.
fn exercise(mut pos: Position, data: &[u8]) {
    assert_eq!(
        pos.key(),
        zobrist::compute(pos.board()),
        "key of {}",
        pos.fen()
    );
    // ... and write a FEN that reads back as the same position.
    let fen = pos.fen();
    let again =
        Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen:?} does not read back: {e}"));
    assert_eq!(again.key(), pos.key(), "{fen}");
    assert_eq!(again.fen(), fen);
    let _ = (
        pos.is_check(),
        pos.is_checkmate(),
        pos.is_stalemate(),
        pos.is_draw(),
    );
    let _ = perft::perft(&mut pos, 1);
    // A short walk: each byte of the input picks one of the legal moves.
    let mut played = 0;
    for &byte in data.iter().take(8) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[usize::from(byte) % moves.len()];
        let uci = pos.move_to_uci(mv);
        assert_eq!(
            pos.parse_uci_move(&uci).ok(),
            Some(mv),
            "{uci} in {}",
            pos.fen()
        );
        pos.play(mv).expect("a legal move plays");
        assert_eq!(
            pos.key(),
            zobrist::compute(pos.board()),
            "after {uci}: {}",
            pos.fen()
        );
        played += 1;
    }
    if pos.play_null().is_ok() {
        assert_eq!(
            pos.key(),
            zobrist::compute(pos.board()),
            "after a null move"
        );
        pos.undo();
    }
    for _ in 0..played {
        pos.undo().expect("a move to undo");
    }
    assert_eq!(pos.fen(), fen, "undo restores the position");
}
