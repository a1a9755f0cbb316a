//! The Connect Four opening-book loader: `Book::from_bytes` and the streaming `Book::read` on
//! any bytes. They must agree on what they accept; an accepted book must write back the
//! bytes it read and answer lookups (the empty board, every position of a short line of
//! play from the input, and their mirrors) with scores in range.

#![no_main]

use libfuzzer_sys::fuzz_target;
use transpo_connect4::{Book, Position};

const WIDTH: usize = Position::WIDTH;

fuzz_target!(|data: &[u8]| {
    let from_bytes = Book::from_bytes(data);
    let read = Book::read(data);
    match (&from_bytes, &read) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => {
            let _ = (a.to_string(), b.to_string());
        }
        _ => panic!("from_bytes {from_bytes:?} but read {read:?}"),
    }
    let Ok(book) = from_bytes else {
        return;
    };
    assert_eq!(
        book.to_bytes(),
        data,
        "an accepted book writes back what it read"
    );
    let mut pos = Position::new();
    for &byte in data.iter().take(16) {
        for p in [pos, pos.mirror()] {
            if let Some(score) = book.get(&p) {
                assert!((-21..=21).contains(&score), "score {score}");
            }
        }
        let col = usize::from(byte) % WIDTH;
        if !pos.can_play(col) || pos.is_winning_move(col) {
            break;
        }
        pos.play_column(col);
    }
});
