//! Bad input never panics: each malformed line is rejected with its line number and reason,
//! and the lines after it are still solved.

use transpo_connect4::{
    Solver, Strength,
    protocol::{Options, run},
};
use transpo_testkit::{Run, scratch};

/// `(line, words the error must contain)`.
const BAD: &[(&str, &str)] = &[
    ("", "empty line"),
    ("   ", "empty line"),
    ("44a4", "move 3: column 10 is out of range 1-7"),
    ("4-4", "move 2: '-' is not a column (1-9, a-d)"),
    ("--", "move 1: '-' is not a column (1-9, a-d)"),
    ("4é", "move 2: 'é' is not a column (1-9, a-d)"),
    ("408", "move 2: column 0 is out of range"),
    ("48", "move 2: column 8 is out of range"),
    ("9", "move 1: column 9 is out of range"),
    ("4444444", "move 7: column 4 is full"),
    (
        "1212121",
        "move 7: column 1 completes four in a row, the game is already won",
    ),
    ("12121213", "move 7: column 1 completes four in a row"),
    (
        "121212343434565656212121434343656565777777",
        "the board is full, the game is over",
    ),
    ("44 x", "expected score \"x\" is not an integer"),
    ("44 1 2", "unexpected text \"2\" after the score"),
];

fn run_text(text: &str) -> (String, String, transpo_connect4::protocol::Summary) {
    let mut solver = Solver::new(4).expect("4 MiB");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let options = Options {
        strength: Strength::Strong,
        analyze: false,
    };
    let summary =
        run(&mut solver, text.as_bytes(), &mut out, &mut err, options).expect("memory I/O");
    let text = |v: Vec<u8>| String::from_utf8(v).expect("utf-8");
    (text(out), text(err), summary)
}

#[test]
fn every_bad_line_is_rejected_with_its_number_and_reason() {
    let good = "2252576253462244111563365343671351441 -1";
    let mut input = String::new();
    for (line, _) in BAD {
        input.push_str(line);
        input.push('\n');
        input.push_str(good);
        input.push('\n');
    }
    let (out, err, summary) = run_text(&input);
    assert_eq!(summary.rejected, BAD.len());
    assert_eq!(summary.solved, BAD.len());
    assert_eq!(summary.wrong, 0);
    let errors: Vec<&str> = err.lines().collect();
    assert_eq!(errors.len(), BAD.len(), "{err}");
    for (i, ((line, reason), error)) in BAD.iter().zip(&errors).enumerate() {
        let prefix = format!("line {}: ", 2 * i + 1);
        assert!(error.starts_with(&prefix), "{line:?}: {error}");
        assert!(error.contains(reason), "{line:?}: {error}");
    }
    for line in out.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields.len(), 4, "{line}");
        assert_eq!(fields[..2], ["2252576253462244111563365343671351441", "-1"]);
    }
}

#[test]
fn a_wrong_expected_score_is_reported() {
    let (out, err, summary) = run_text("2252576253462244111563365343671351441 3\n");
    assert_eq!((summary.solved, summary.wrong), (1, 1));
    assert!(out.starts_with("2252576253462244111563365343671351441 -1 "));
    assert_eq!(err.trim(), "line 1: expected 3, solved -1");
}

#[test]
fn the_binary_survives_bad_input_and_fails_with_status_1() {
    let output = Run::new(env!("CARGO_BIN_EXE_transpo-c4"))
        .args(["--hash-mib", "4", "--analyze"])
        .input(b"x\n\n2252576253462244111563365343671351441\n".as_slice())
        .output();
    assert_eq!(output.status.code(), Some(1));
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.starts_with("2252576253462244111563365343671351441 - - - - - -1 -2 "),
        "{out}"
    );
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("line 1: move 1: 'x'") && err.contains("line 2: empty line"),
        "{err}"
    );
    assert!(
        err.ends_with("error: 2 of 3 lines rejected, 0 scored other than expected\n"),
        "{err}"
    );
}

#[test]
fn a_corrupt_book_is_a_clear_error() {
    // A valid header for one position, its key and score, and a wrong checksum.
    let mut bad_sum = b"TC4BOOK\n".to_vec();
    bad_sum.extend_from_slice(&1u32.to_le_bytes());
    bad_sum.extend_from_slice(&[7, 6, 0, 0]);
    bad_sum.extend_from_slice(&1u64.to_le_bytes());
    bad_sum.extend_from_slice(&[0; 9 + 8]);
    let cases: [(&[u8], &str); 2] = [
        (
            b"TC4BOOK\nthis is not a book at all, really",
            "not a valid opening book: format version",
        ),
        (&bad_sum, "not a valid opening book: checksum mismatch"),
    ];
    for (i, (bytes, words)) in cases.into_iter().enumerate() {
        let dir = scratch("transpo-c4-bad-book", &i.to_string());
        let path = dir.join("bad.book");
        std::fs::write(&path, bytes).expect("temp file");
        let output = Run::new(env!("CARGO_BIN_EXE_transpo-c4"))
            .args(["--hash-mib", "4", "--book"])
            .args([&path])
            .output();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(output.status.code(), Some(2));
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.contains(words), "{err}");
    }
}

/// `--book` on an endless device is rejected at once, with status 2, as not a regular file;
/// it used to read until memory ran out. The binary is killed if it runs longer than 20
/// seconds.
#[test]
fn an_endless_book_device_is_a_clear_error_at_once() {
    for device in ["/dev/zero", "/dev/urandom"] {
        if !std::path::Path::new(device).exists() {
            continue;
        }
        let output = Run::new(env!("CARGO_BIN_EXE_transpo-c4"))
            .args(["--hash-mib", "4", "--book", device])
            .deadline(std::time::Duration::from_secs(20))
            .output();
        assert_eq!(output.status.code(), Some(2), "{device}");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains(device) && err.contains("a device, not a regular file"),
            "{device}: {err}"
        );
    }
}
