//! The Polyglot book reader: the shared performance.bin lookups (ANCHORS.md §3) and books
//! written and read back by the test itself.

mod common;

use common::play;
use transpo_chess::book::ENTRY_SIZE;
use transpo_chess::move16;
use transpo_chess::{Book, BookEntry, BookError, Position, SplitMix64};
use transpo_testkit::{scratch, shared_data};

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-chess-book";

/// The book's moves for `pos`, as (UCI text, weight), are `expected` in order.
fn assert_moves(book: &Book, pos: &Position, expected: &[(&str, u16)]) {
    let moves: Vec<(String, u16)> = book
        .moves(pos)
        .into_iter()
        .map(|m| (m.uci, m.weight))
        .collect();
    let expected: Vec<(String, u16)> = expected.iter().map(|&(m, w)| (m.into(), w)).collect();
    assert_eq!(moves, expected);
}

#[test]
fn performance_book_lookups() {
    let Some(path) = shared_data("chess/performance.bin") else {
        return;
    };
    let book = Book::open(&path).unwrap();
    assert_eq!(book.len(), 92_954);

    let start = book.moves(&Position::startpos());
    assert_eq!(start.len(), 3, "{start:?}");

    let pos = play("e2e4 c7c5");
    assert_eq!(pos.key(), 0x644d4afe02564aeb);
    assert_moves(&book, &pos, &[("g1f3", 306), ("b1c3", 12), ("c2c3", 10)]);

    // A seeded pick is reproducible and follows the weights.
    let mut rng = SplitMix64::new(7);
    let picks: Vec<String> = (0..200)
        .map(|_| book.pick(&pos, &mut rng).unwrap().uci)
        .collect();
    let mut again = SplitMix64::new(7);
    let picks_again: Vec<String> = (0..200)
        .map(|_| book.pick(&pos, &mut again).unwrap().uci)
        .collect();
    assert_eq!(picks, picks_again);
    let g1f3 = picks.iter().filter(|m| *m == "g1f3").count();
    assert!(g1f3 > 170, "g1f3 has 306 of 328 weight, got {g1f3}/200");
}

#[test]
fn written_book_reads_back_with_castling() {
    let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let start = Position::startpos();
    let entry = |pos: &Position, uci: &str, weight: u16| BookEntry {
        key: pos.key(),
        raw_move: move16::encode(pos.parse_uci_move(uci).unwrap()),
        weight,
        learn: 0,
    };
    let mut entries = vec![
        entry(&castle, "e1g1", 5),
        entry(&castle, "e1c1", 3),
        entry(&castle, "a1a8", 0),
        entry(&start, "e2e4", 10),
        entry(&start, "d2d4", 1),
    ];
    // A key collision: a move that is illegal in the start position is skipped.
    entries.push(BookEntry {
        key: start.key(),
        raw_move: (4 << 6) | 60, // e1e8
        weight: 100,
        learn: 0,
    });
    let book = Book::from_entries(entries);
    let dir = scratch(SCRATCH, "written");
    let path = dir.join("written.bin");
    std::fs::write(&path, book.to_bytes()).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        (6 * ENTRY_SIZE) as u64
    );

    let read = Book::open(&path).unwrap();
    assert_eq!(read.len(), 6);
    // Castling is stored king-takes-rook, as Polyglot does.
    let raw: Vec<u16> = read
        .entries_for_key(castle.key())
        .iter()
        .map(|e| e.raw_move)
        .collect();
    assert!(raw.contains(&((4 << 6) | 7)), "e1h1 expected in {raw:?}");
    assert!(raw.contains(&(4 << 6)), "e1a1 expected in {raw:?}");

    assert_moves(&read, &castle, &[("e1g1", 5), ("e1c1", 3), ("a1a8", 0)]);
    let start_moves: Vec<String> = read.moves(&start).into_iter().map(|m| m.uci).collect();
    assert_eq!(start_moves, ["e2e4", "d2d4"]);

    // Zero weight is never picked; the book move plays as castling.
    let mut rng = SplitMix64::new(1);
    for _ in 0..100 {
        let pick = read.pick(&castle, &mut rng).unwrap();
        assert_ne!(pick.uci, "a1a8");
        let mut after = castle.clone();
        after.play(pick.mv).unwrap();
        assert!(
            after.fen().starts_with("r3k2r/8/8/8/8/8/8/"),
            "{}",
            after.fen()
        );
        assert!(after.fen().contains(" b kq - "), "{}", after.fen());
    }
    // No entries: nothing to pick.
    assert!(read.pick(&play("a2a3"), &mut rng).is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_book_files_are_errors() {
    // Truncated: not a multiple of 16 bytes; the message names the size.
    let dir = scratch(SCRATCH, "bad");
    let path = dir.join("truncated.bin");
    std::fs::write(&path, [0u8; 17]).unwrap();
    let err = Book::open(&path).unwrap_err();
    assert!(matches!(err, BookError::Size { len: 17 }), "{err:?}");
    assert!(err.to_string().contains("17 bytes"), "{err}");
    std::fs::remove_file(&path).unwrap();

    // Missing file.
    let err = Book::open(dir.join("does-not-exist.bin")).unwrap_err();
    assert!(matches!(err, BookError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("does-not-exist.bin"), "{err}");

    // Unsorted keys.
    let a = BookEntry {
        key: 2,
        raw_move: 796,
        weight: 1,
        learn: 0,
    }
    .to_bytes();
    let b = BookEntry {
        key: 1,
        raw_move: 796,
        weight: 1,
        learn: 0,
    }
    .to_bytes();
    let err = Book::from_bytes(&[a, b].concat()).unwrap_err();
    assert!(matches!(err, BookError::Unsorted { index: 1 }), "{err:?}");

    // Promotion code 7.
    let c = BookEntry {
        key: 1,
        raw_move: 0x7000 | 796,
        weight: 1,
        learn: 0,
    }
    .to_bytes();
    let err = Book::from_bytes(&c).unwrap_err();
    assert!(
        matches!(err, BookError::BadMove { index: 0, .. }),
        "{err:?}"
    );

    // Empty is a valid, empty book.
    assert!(Book::from_bytes(&[]).unwrap().is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 14: `BookFile /dev/zero` read until memory ran out. Devices, pipes and directories
/// are refused before reading, and so is a file beyond the stated maximum.
#[test]
fn book_reads_are_bounded() {
    if std::path::Path::new("/dev/zero").exists() {
        let err = Book::open("/dev/zero").unwrap_err();
        assert!(matches!(err, BookError::NotAFile { .. }), "{err:?}");
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
    let err = Book::open(std::env::temp_dir()).unwrap_err();
    assert!(matches!(err, BookError::NotAFile { .. }), "{err:?}");

    // A sparse file one entry beyond the limit: refused from its size, nothing read.
    let dir = scratch(SCRATCH, "huge");
    let path = dir.join("huge.bin");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(transpo_chess::book::MAX_BOOK_BYTES + 16)
        .unwrap();
    drop(file);
    let err = Book::open(&path).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(err, BookError::TooLarge { .. }), "{err:?}");
    assert!(err.to_string().contains("more than"), "{err}");
}

/// Issue 29, item 2: `Book::open` of a FIFO used to block in `open` until a writer came (a
/// `BookFile` naming one hung the UCI loop). It is refused at once, naming what it is.
#[cfg(unix)]
#[test]
fn a_fifo_book_is_refused_at_once() {
    let dir = scratch(SCRATCH, "fifo");
    let path = dir.join("fifo.bin");
    transpo_testkit::mkfifo(&path);
    let (sender, receiver) = std::sync::mpsc::channel();
    let fifo = path.clone();
    std::thread::spawn(move || {
        let _ = sender.send(Book::open(&fifo).map(|book| book.len()));
    });
    let result = receiver
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("Book::open of a FIFO must return at once, not wait for a writer");
    std::fs::remove_dir_all(&dir).unwrap();
    let err = result.unwrap_err();
    assert!(matches!(err, BookError::NotAFile { .. }), "{err:?}");
    assert!(err.to_string().contains("FIFO"), "{err}");
}
