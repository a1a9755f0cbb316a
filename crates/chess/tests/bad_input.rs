//! Malformed FEN, EPD and move text: every case is an error naming the right field, and
//! nothing panics, including on random input.

use proptest::prelude::*;
use transpo_chess::{Book, Epd, FenField, MoveError, Position};

/// (FEN, field the error must name, text the message must contain).
const BAD_FENS: &[(&str, FenField, &str)] = &[
    ("", FenField::Text, "empty"),
    ("   ", FenField::Text, "empty"),
    ("garbage", FenField::Text, "1 fields"),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
        FenField::Text,
        "3 fields",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
        FenField::Text,
        "5 fields",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x",
        FenField::Text,
        "7 fields",
    ),
    // Placement.
    (
        "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "7 ranks",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "9 ranks",
    ),
    (
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "'9'",
    ),
    (
        "rnbqkbnr/pppppppp/0/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "'0'",
    ),
    (
        "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "rank 7 describes more than 8",
    ),
    (
        "rnbqkbnr/pppppppp/44p/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "rank 6 describes more than 8",
    ),
    (
        "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "rank 7 describes 7 squares",
    ),
    (
        "rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "rank 6 is empty",
    ),
    (
        "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        FenField::Placement,
        "'x' on rank 7",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNé w KQkq - 0 1",
        FenField::Placement,
        "'é' on rank 1",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN♔ w KQkq - 0 1",
        FenField::Placement,
        "'♔'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - 0 1",
        FenField::Placement,
        "white has no king",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1",
        FenField::Placement,
        "white has 2 kings",
    ),
    (
        "8/8/8/8/8/8/8/8 w - - 0 1",
        FenField::Placement,
        "white has no king",
    ),
    (
        "4k3/8/8/8/8/8/8/4K2P w - - 0 1",
        FenField::Placement,
        "white pawn on h1",
    ),
    (
        "p3k3/8/8/8/8/8/8/4K3 w - - 0 1",
        FenField::Placement,
        "black pawn on a8",
    ),
    (
        "4k3/8/8/8/8/8/PPPPPPPP/1P2K3 w - - 0 1",
        FenField::Placement,
        "white pawn on b1",
    ),
    (
        "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1",
        FenField::Placement,
        "9 pawns",
    ),
    (
        "4k3/8/8/8/8/NN6/NNNNNNNN/NNNNKNNN w - - 0 1",
        FenField::Placement,
        "18 pieces",
    ),
    // Side to move.
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        FenField::SideToMove,
        "\"x\"",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1",
        FenField::SideToMove,
        "\"W\"",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR white KQkq - 0 1",
        FenField::SideToMove,
        "\"white\"",
    ),
    // Castling.
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1",
        FenField::Castling,
        "'x'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKqk - 0 1",
        FenField::Castling,
        "twice",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1",
        FenField::Castling,
        "'A'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
        FenField::Castling,
        "'K' needs the white king on e1 and a white rook on h1",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1",
        FenField::Placement,
        "white has no king",
    ),
    (
        "4k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        FenField::Castling,
        "'k' needs the black king on e8",
    ),
    // En passant.
    (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e9 0 1",
        FenField::EnPassant,
        "\"e9\"",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e 0 1",
        FenField::EnPassant,
        "\"e\"",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1",
        FenField::EnPassant,
        "with black to move it must be on rank 3",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq d3 0 1",
        FenField::EnPassant,
        "white pawn on d4",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/4P3/4P3/PPP2PPP/RNBQKBNR b KQkq e3 0 1",
        FenField::EnPassant,
        "e3 and e2 empty",
    ),
    // Clocks.
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
        FenField::HalfmoveClock,
        "\"-1\"",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
        FenField::HalfmoveClock,
        "\"x\"",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 101 1",
        FenField::HalfmoveClock,
        "101 is above 100",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999999999999 1",
        FenField::HalfmoveClock,
        "not a non-negative",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
        FenField::FullmoveNumber,
        "start at 1",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 70000",
        FenField::FullmoveNumber,
        "above 65535",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.5",
        FenField::FullmoveNumber,
        "\"1.5\"",
    ),
    // Whole-position rules.
    (
        "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
        FenField::Position,
        "black is in check but it is white to move",
    ),
    (
        "4k3/8/8/8/8/3n1n2/2n5/R3K3 w - - 0 1",
        FenField::Position,
        "white is in check from more pieces",
    ),
    // Issue 29: both kings in check, white to move. Black, not to move, in check is what
    // makes it illegal; the message used to blame white's check instead.
    (
        "4k3/8/8/1B6/8/8/8/4K2r w - -",
        FenField::Position,
        "black is in check but it is white to move",
    ),
    (
        "4k2R/8/8/8/1b6/8/8/4K3 b - -",
        FenField::Position,
        "white is in check but it is black to move",
    ),
    // What cozy-chess accepts but its move generator or the search cannot survive (issue
    // 14): kings side by side let one king capture the other (cozy-chess then panics
    // looking for it), and impossible checks or material are unreachable positions.
    (
        "8/8/8/8/8/8/8/Kk6 w - - 0 1",
        FenField::Position,
        "side by side",
    ),
    (
        "8/8/8/8/8/8/8/Kk6 b - - 0 1",
        FenField::Position,
        "side by side",
    ),
    (
        "8/8/8/3kK3/8/8/8/8 w - - 0 1",
        FenField::Position,
        "side by side",
    ),
    (
        "4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1",
        FenField::Position,
        "neither a bishop, rook or queen",
    ),
    (
        "4k3/3P4/5N2/8/8/8/8/4K3 b - - 0 1",
        FenField::Position,
        "neither a bishop, rook or queen",
    ),
    (
        "4k3/8/8/8/8/8/PPPPPPPP/NNN1K3 w - - 0 1",
        FenField::Placement,
        "1 promoted pieces but only 0 pawns missing",
    ),
    (
        "4k3/8/8/8/8/8/PPPPPPPP/B1B1K3 w - - 0 1",
        FenField::Placement,
        "promoted",
    ),
    (
        "4k3/8/8/8/8/8/PPPPPPP1/QQQ1K3 w - - 0 1",
        FenField::Placement,
        "promoted",
    ),
];

#[test]
fn malformed_fens_name_the_field() {
    let mut failures = Vec::new();
    for &(fen, field, needle) in BAD_FENS {
        match Position::from_fen(fen) {
            Ok(pos) => failures.push(format!("{fen:?} parsed as {}", pos.fen())),
            Err(e) => {
                if e.field != field || !e.to_string().contains(needle) {
                    failures.push(format!(
                        "{fen:?}: got [{:?}] {e}, expected [{field:?}] containing {needle:?}",
                        e.field
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn good_fens_parse() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        "  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w  KQkq  -  0   1  ",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "4k3/8/8/8/8/8/8/4K3 b - - 100 65535",
        // A real double check (rook and knight), and promoted pieces explained by pawns.
        "4k3/8/3N4/8/8/8/8/4RK2 b - - 0 1",
        "4k3/8/8/8/8/8/PPPPPP2/QQB1KB2 w - - 0 1",
        "4k3/8/8/8/8/8/PPPPPPP1/QQ2K3 w - - 0 1",
        "7k/8/8/8/8/8/8/1QQQQQQK b - - 0 1",
        // Two checkers on one line through the king: unreachable, but in the perft suite.
        "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1",
    ] {
        assert!(Position::from_fen(fen).is_ok(), "{fen}");
    }
}

/// A white pawn on e7 about to promote.
const PROMOTING: &str = "8/4P3/8/8/8/k7/8/K7 w - - 0 1";

/// (position, move text, whether the error must be `Malformed`, text the message contains).
const BAD_MOVES: &[(&str, &str, bool, &str)] = &[
    ("startpos", "", true, "0 characters"),
    ("startpos", "e2", true, "2 characters"),
    ("startpos", "e2e4e5", true, "6 characters"),
    ("startpos", "e2e9", true, "\"e9\" is not a square"),
    ("startpos", "i2i4", true, "\"i2\" is not a square"),
    ("startpos", "E2E4", true, "\"E2\" is not a square"),
    ("startpos", "e2-e4", true, "\"-e\" is not a square"),
    ("startpos", "e2e4 ", true, "\" \" is not a promotion piece"),
    ("startpos", "0000", true, "null move"),
    ("startpos", "é2e4", true, "non-ASCII"),
    ("startpos", "♔e1e2", true, "non-ASCII"),
    (PROMOTING, "e7e8k", true, "\"k\" is not a promotion piece"),
    (PROMOTING, "e7e8p", true, "\"p\" is not a promotion piece"),
    (PROMOTING, "e7e8Q", true, "\"Q\" is not a promotion piece"),
    (PROMOTING, "e7e8", false, "illegal"),
    ("startpos", "e2e5", false, "illegal move e2e5"),
    ("startpos", "e7e5", false, "illegal"),
    ("startpos", "e1g1", false, "illegal"),
    ("startpos", "e1h1", false, "illegal"),
    ("startpos", "e2e4q", false, "illegal"),
    ("startpos", "a1a1", false, "illegal"),
    ("startpos", "b1d2", false, "illegal"),
    ("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "e1g1", false, "illegal"),
    (
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "e8g8",
        false,
        "illegal",
    ),
    (
        "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
        "e2d3",
        false,
        "illegal",
    ),
];

#[test]
fn from_board_checks_what_cozy_chess_does_not() {
    // cozy-chess's own parser accepts kings side by side; Position must not.
    let board = transpo_chess::cozy_chess::Board::from_fen("8/8/8/8/8/8/8/Kk6 w - - 0 1", false)
        .expect("cozy-chess accepts this");
    let err = Position::from_board(board).unwrap_err();
    assert_eq!(err.field, FenField::Position, "{err}");
    let epd = Epd::parse("8/8/8/8/8/8/8/Kk6 w - - bm Kxb1;").unwrap_err();
    assert!(epd.to_string().contains("side by side"), "{epd}");
}

#[test]
fn malformed_and_illegal_moves_are_errors() {
    let mut failures = Vec::new();
    for &(fen, text, malformed, needle) in BAD_MOVES {
        let pos = if fen == "startpos" {
            Position::startpos()
        } else {
            Position::from_fen(fen).unwrap()
        };
        match pos.parse_uci_move(text) {
            Ok(mv) => failures.push(format!("{text:?} in {fen} parsed as {mv:?}")),
            Err(e) => {
                let kind_ok = matches!(e, MoveError::Malformed { .. }) == malformed;
                if !kind_ok || !e.to_string().contains(needle) {
                    failures.push(format!("{text:?} in {fen}: got {e}, wanted {needle:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn play_rejects_illegal_moves_and_keeps_the_position() {
    let mut pos = Position::startpos();
    let mv = "e2e5".parse().unwrap();
    let err = pos.play(mv).unwrap_err();
    assert!(err.to_string().contains("e2e5"), "{err}");
    assert_eq!(pos.fen(), transpo_chess::STARTPOS_FEN);
    assert_eq!(pos.ply(), 0);
}

#[test]
fn malformed_epd_is_an_error() {
    for text in [
        "",
        "8/8/8/8 w",
        r#"4k3/8/8/8/8/8/8/4K3 w - - id "unterminated"#,
        "4k3/8/8/8/8/8/8/4K3 w - - 1bm e4;",
        "4k3/8/8/8/8/8/8/4K3 w - - hmvc 200;",
        "4k3/8/8/8/8/8/8/4K3 x - - bm e4;",
    ] {
        assert!(Epd::parse(text).is_err(), "{text:?}");
    }
}

const FEN_ALPHABET: &str = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789é♔\t";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_text_never_panics(text in any::<String>()) {
        let _ = Position::from_fen(&text);
        let _ = Epd::parse(&text);
        let _ = Position::startpos().parse_uci_move(&text);
    }

    #[test]
    fn random_fen_like_text_never_panics(
        chars in proptest::collection::vec(proptest::sample::select(FEN_ALPHABET.chars().collect::<Vec<_>>()), 0..90)
    ) {
        let text: String = chars.into_iter().collect();
        if let Ok(pos) = Position::from_fen(&text) {
            // Whatever parses must print back to something that parses to the same position.
            let again = Position::from_fen(&pos.fen()).unwrap();
            prop_assert_eq!(again.key(), pos.key());
            let _ = transpo_chess::perft::perft(&mut pos.clone(), 2);
        }
    }

    #[test]
    fn mutated_valid_fens_never_panic(index in 0usize..60, byte in any::<u8>()) {
        let mut bytes = b"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".to_vec();
        let i = index % bytes.len();
        bytes[i] = byte;
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(mut pos) = Position::from_fen(&text) {
            let _ = transpo_chess::perft::perft(&mut pos, 2);
        }
    }

    #[test]
    fn random_book_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(book) = Book::from_bytes(&bytes) {
            let _ = book.moves(&Position::startpos());
        }
    }
}
