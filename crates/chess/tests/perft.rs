//! Perft against published counts: the in-repo fixture (tests/data/perft.epd) and the full
//! shared perft suite.

mod common;

use std::time::Instant;

use common::read_perft_cases;
use transpo_chess::perft::{divide, perft, perft_make_all};
use transpo_testkit::shared_data;

#[test]
fn fixture_counts_match() {
    let text = include_str!("data/perft.epd");
    let cases = read_perft_cases(text);
    assert!(
        cases.len() >= 30,
        "fixture has only {} positions",
        cases.len()
    );
    let mut failures = Vec::new();
    for mut case in cases {
        let fen_before = case.position.fen();
        for &(depth, expected) in &case.counts {
            let nodes = perft(&mut case.position, depth);
            if nodes != expected {
                failures.push(format!(
                    "line {}: {} depth {depth}: got {nodes}, expected {expected}",
                    case.line, case.fen
                ));
            }
        }
        assert_eq!(
            case.position.fen(),
            fen_before,
            "perft must undo every move"
        );
        assert_eq!(case.position.ply(), 0);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixture_fens_round_trip() {
    for case in read_perft_cases(include_str!("data/perft.epd")) {
        assert_eq!(case.position.fen(), case.fen, "line {}", case.line);
    }
}

#[test]
fn make_all_and_divide_agree_with_bulk_counting() {
    // Kiwipete, depth 3 (CPW: 97862).
    let mut pos = transpo_chess::Position::from_fen(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    )
    .unwrap();
    assert_eq!(perft_make_all(&mut pos, 3), 97_862);
    let parts = divide(&mut pos, 3);
    assert_eq!(parts.len(), 48);
    assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), 97_862);
    assert!(parts.iter().any(|(uci, _)| uci == "e1g1"));
    assert!(parts.iter().any(|(uci, _)| uci == "e1c1"));
}

/// The whole shared suite, at depth 5 in optimised builds (about 395 million leaves) and
/// depth 4 in debug builds, so that `cargo test --release` stays well inside CI's budget.
#[test]
fn shared_perft_suite() {
    let Some(path) = shared_data("chess/perftsuite.epd") else {
        return;
    };
    let max_depth = if cfg!(debug_assertions) { 4 } else { 5 };
    let text = std::fs::read_to_string(&path).unwrap();
    let cases = read_perft_cases(&text);
    assert!(
        cases.len() >= 126,
        "{} has {} positions",
        path.display(),
        cases.len()
    );
    let start = Instant::now();
    let mut total = 0;
    let mut failures = Vec::new();
    for mut case in cases.into_iter() {
        for &(depth, expected) in case.counts.iter().filter(|(d, _)| *d <= max_depth) {
            let nodes = perft(&mut case.position, depth);
            total += nodes;
            if nodes != expected {
                failures.push(format!(
                    "line {}: {} depth {depth}: got {nodes}, expected {expected}",
                    case.line, case.fen
                ));
            }
        }
    }
    eprintln!(
        "perft suite to depth {max_depth}: {total} leaves in {:.1?}",
        start.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
