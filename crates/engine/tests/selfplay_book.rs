//! Issue 45, item 8, through the `transpo-chess` binary: `selfplay` and `datagen` report
//! every opening they cannot play, by line, and the games they announce are the games they
//! play. Before, a book of four lines, two of them no position or a game already over,
//! announced 8 games, played 6 (two of them "games" of no move, counted as results) and
//! said nothing on stderr.

use transpo_testkit::{Output, Run, scratch};

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-chess-selfplay-book";

/// Runs the binary with `args`; panics if it has not ended within a minute.
fn chess(args: &[&str]) -> Output {
    Run::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .args(args)
        .deadline(std::time::Duration::from_secs(60))
        .output()
}

/// A book of five lines: two openings to play, a line that is no position, a checkmate and
/// a stalemate.
const BOOK: &str = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c0 \"start\";
not a position at all
R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1
7k/5Q2/6K1/8/8/8/8/8 b - -
";

#[test]
fn selfplay_reports_each_bad_opening_and_counts_the_games_it_plays() {
    let dir = scratch(SCRATCH, "selfplay");
    let book = dir.join("book.epd");
    std::fs::write(&book, BOOK).unwrap();
    let name = book.to_str().unwrap();
    let out = chess(&[
        "selfplay",
        "--openings",
        "5",
        "--book",
        name,
        "--nodes",
        "200",
        "--concurrency",
        "1",
        "--hash",
        "1",
        "--verbose",
    ]);
    let stdout = out.stdout_text();
    let stderr = out.stderr_text();
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stderr.contains(&format!("{name}:3: ")), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{name}:4: the game is already over (checkmate); skipped"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{name}:5: the game is already over (stalemate); skipped"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{name}: 3 lines rejected")),
        "{stderr}"
    );
    // Announced, played and counted: the same 4 games.
    assert!(
        stdout.lines().next().unwrap().contains(": 4 games,"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().filter(|l| l.starts_with("game ")).count(), 4);
    assert!(stdout.contains("(4 games)"), "{stdout}");
    assert!(!stdout.contains("after 0 plies"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_book_with_no_playable_opening_is_bad_input() {
    let dir = scratch(SCRATCH, "none");
    let book = dir.join("book.epd");
    std::fs::write(&book, "not a position\nR5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1\n").unwrap();
    let name = book.to_str().unwrap();
    for command in ["selfplay", "datagen"] {
        let mut args = vec![command, "--book", name, "--nodes", "100"];
        if command == "datagen" {
            args.push("/nonexistent/never-written.txt");
        }
        let out = chess(&args);
        let stderr = out.stderr_text();
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains("no playable opening"),
            "{command}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_refuses_tables_the_match_could_not_hold() {
    // 2 × 32768 MiB × 2 games at once: twice the cap, refused before the book is read.
    let out = chess(&[
        "selfplay",
        "--hash",
        "32768",
        "--concurrency",
        "2",
        "--book",
        "/nonexistent/book.epd",
    ]);
    let stderr = out.stderr_text();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("at most 65536"), "{stderr}");
    // A table of 0 MiB was taken as 1 MiB without a word: now refused.
    let out = chess(&["selfplay", "--hash", "0"]);
    assert_eq!(out.status.code(), Some(2));
}
