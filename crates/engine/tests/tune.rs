//! `transpo-chess datagen` and `tune` through the binary: self-play positions labelled by
//! their games' results, and weights fitted to them, written as the source the engine
//! compiles in; bad input is an error, not a panic.

mod common;

use cozy_chess::Board;
use transpo_engine::eval::tapered::WEIGHT_COUNT;
use transpo_testkit::{Output, Run, scratch, shared_data};

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-tune";

fn chess(args: &[&str]) -> Output {
    Run::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .args(args)
        .output()
}

#[test]
fn datagen_labels_quiet_positions_and_tune_writes_compilable_weights() {
    let Some(book) = shared_data("chess/openings/8moves_v3.epd") else {
        return;
    };
    let dir = scratch(SCRATCH, "datagen");
    let data = dir.join("data.txt");
    let book = book.to_str().unwrap();
    let data_path = data.to_str().unwrap();
    let out = common::chess_stdout([
        "datagen",
        data_path,
        "--openings",
        "2",
        "--nodes",
        "400",
        "--book",
        book,
    ]);
    assert!(out.contains("from 4 games appended"), "{out}");
    let text = std::fs::read_to_string(&data).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 20, "{} positions", lines.len());
    for line in &lines {
        let (fen, result) = line.rsplit_once(';').unwrap();
        assert!(["0", "0.5", "1"].contains(&result), "{line}");
        let board = Board::from_fen(fen, false).unwrap();
        assert!(board.checkers().is_empty(), "in check: {line}");
    }
    // One game's positions all carry that game's result, and a second run appends.
    common::chess_stdout([
        "datagen",
        data_path,
        "--openings",
        "1",
        "--nodes",
        "300",
        "--book",
        book,
    ]);
    let more = std::fs::read_to_string(&data).unwrap();
    assert!(more.starts_with(&text) && more.len() > text.len());

    let weights = dir.join("weights.rs");
    let out = common::chess_stdout([
        "tune",
        data_path,
        "--out",
        weights.to_str().unwrap(),
        "--steps",
        "50",
    ]);
    assert!(out.contains("weights written"), "{out}");
    let source = std::fs::read_to_string(&weights).unwrap();
    assert!(source.contains(&format!("pub static WEIGHTS: [(i16, i16); {WEIGHT_COUNT}]")));
    let numbers = source
        .lines()
        .filter(|l| l.trim_start().starts_with('('))
        .flat_map(|l| l.split("),"))
        .filter(|pair| pair.contains(','))
        .count();
    assert_eq!(numbers, WEIGHT_COUNT);
}

/// Bad input is exit status 2 (bad usage or bad input), with a message saying what is wrong;
/// nothing is written.
#[test]
fn tune_refuses_bad_input_with_a_message() {
    let dir = scratch(SCRATCH, "refuse");
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "not a position;1\n8/8/8/8/8/8/8/8 w - - 0 1;0.3\n").unwrap();
    let out_path = dir.join("never.rs");
    let out_path = out_path.to_str().unwrap();
    let junk_path = junk.to_str().unwrap();
    for (args, message) in [
        (
            vec!["tune", junk_path, "--out", out_path],
            "holds no `FEN;R` line",
        ),
        (
            vec!["tune", "/nonexistent/data", "--out", out_path],
            "cannot read",
        ),
        (
            vec!["tune", junk_path, "--out", out_path, "--rate=-1"],
            "rate must be a positive number",
        ),
        (
            vec!["tune", junk_path, "--out", out_path, "--prior", "NaN"],
            "prior must be",
        ),
    ] {
        let out = chess(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = out.stderr_text();
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let out = chess(&["datagen", out_path, "--book", "/nonexistent/book.epd"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!std::path::Path::new(out_path).exists());
}
