//! The Polyglot book reader: `Book::from_bytes` on any bytes; a book it accepts is probed
//! with a few positions (`moves`, `pick`, `entries_for_key`), and must write back the bytes
//! it read when they were sorted.

#![no_main]

use libfuzzer_sys::fuzz_target;
use transpo_chess::{Book, Position, SplitMix64};

/// Positions to probe: the start, after 1. e4, and a middlegame.
const PROBES: [&str; 3] = [
    transpo_chess::STARTPOS_FEN,
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
];

fuzz_target!(|data: &[u8]| {
    let Ok(book) = Book::from_bytes(data) else {
        return;
    };
    assert_eq!(
        book.to_bytes(),
        data,
        "an accepted book writes back what it read"
    );
    let mut rng = SplitMix64::new(data.len() as u64);
    for fen in PROBES {
        let pos = Position::from_fen(fen).expect("a valid probe");
        for book_move in book.moves(&pos) {
            assert!(
                pos.is_legal(book_move.mv),
                "book move {book_move:?} in {fen}"
            );
        }
        if let Some(pick) = book.pick(&pos, &mut rng) {
            assert!(pos.is_legal(pick.mv), "picked {pick:?} in {fen}");
        }
        let _ = book.entries_for_key(pos.key());
    }
    // Every key the book holds, probed by key.
    for entry in book.entries().iter().take(64) {
        assert!(!book.entries_for_key(entry.key).is_empty());
    }
});
