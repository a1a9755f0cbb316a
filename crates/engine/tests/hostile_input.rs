//! Issue 29 through the `transpo-chess` binary: files, pipes and endless input named by a
//! hostile user. Every run has a deadline, so a hang fails the test instead of CI.

use std::path::Path;
use std::time::Duration;

use transpo_testkit::{Output, Run, scratch};

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-chess-hostile";

/// Runs the binary with `args` and `input` on stdin, within `limit`.
fn chess(args: &[&str], input: &[u8], limit: Duration) -> Output {
    Run::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .args(args)
        .input(input)
        .deadline(limit)
        .output()
}

/// `text` with each line cut to 200 characters, for assertion messages.
fn short(text: &str) -> String {
    text.lines()
        .map(|line| line.chars().take(200).collect::<String>() + "\n")
        .collect()
}

/// Item 3: one endless line on stdin (`transpo-chess < /dev/zero`) used to grow a `String`
/// until the allocator aborted (SIGABRT, "memory allocation of 4294967296 bytes failed").
/// Now the line is read and dropped as it comes, in bounded memory.
#[cfg(target_os = "linux")]
#[test]
fn endless_stdin_is_read_in_bounded_memory() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_transpo-chess"))
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let alive = child.try_wait().unwrap().is_none();
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let _ = child.kill();
    let exited = child.wait().unwrap();
    assert!(alive, "the UCI loop died on endless input: {exited:?}");
    let rss_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS in /proc/PID/status");
    assert!(
        rss_kib < 256 << 10,
        "{rss_kib} KiB resident after 1.5 s of /dev/zero"
    );
}

/// Item 3: a line over the 1 MiB cap and a line that is not UTF-8 are answered with an
/// error naming the line, and the loop goes on; a legal game's long `position` line (here
/// 100 KB of knight moves) is well within the cap.
#[test]
fn overlong_and_non_utf8_uci_lines_are_answered_and_the_loop_goes_on() {
    let mut input = vec![b'a'; 3 << 20];
    input.extend_from_slice(b"\nisready\n\xff\xfe\nisready\nposition startpos moves");
    for _ in 0..5000 {
        input.extend_from_slice(b" g1f3 g8f6 f3g1 f6g8");
    }
    input.extend_from_slice(b"\nd\nquit\n");
    assert!(input.len() > (3 << 20) + 100_000);
    let out = chess(&[], &input, Duration::from_secs(10));
    assert!(out.status.success(), "{:?}", out.status);
    let stdout = out.stdout_text();
    let shown = short(&stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "info string error: line 1: line too long (over 1048576 bytes)",
            "readyok",
            "info string error: line 3: not UTF-8",
            "readyok"
        ],
        "{shown}"
    );
    assert!(
        stdout.contains("Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 100"),
        "{shown}"
    );
    assert_eq!(stdout.matches("error").count(), 2, "{shown}");
}

/// Item 2: a FIFO named as `BookFile`, to `loadhash` or as `HashFile` for
/// `LoadHashfromFile` used to block the loop in `open` (no `readyok`, `quit` ignored). Each
/// is now an error naming the FIFO, and the loop answers `isready`. `savehash` to the FIFO
/// is refused too, rather than renaming a table over it.
#[cfg(unix)]
#[test]
fn fifos_named_in_the_uci_loop_are_refused_and_the_loop_goes_on() {
    let dir = scratch(SCRATCH, "fifo");
    let fifo = dir.join("f");
    transpo_testkit::mkfifo(&fifo);
    let f = fifo.display();
    let input = format!(
        "setoption name BookFile value {f}\nisready\nsetoption name Hash value 1\n\
         loadhash {f}\nisready\nsetoption name HashFile value {f}\n\
         setoption name LoadHashfromFile\nsavehash {f}\nisready\ngo depth 2\nquit\n"
    );
    let out = chess(&[], input.as_bytes(), Duration::from_secs(10));
    assert!(out.status.success(), "{out:?}");
    let stdout = out.stdout_text();
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    assert_eq!(errors.len(), 4, "{stdout}");
    let named = ["book", "loadhash", "LoadHashfromFile", "savehash"];
    for (error, what) in errors.iter().zip(named) {
        assert!(error.contains(what) && error.contains("FIFO"), "{error}");
    }
    assert_eq!(stdout.matches("readyok").count(), 3, "{stdout}");
    assert!(stdout.contains("bestmove "), "{stdout}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Items 1 and 2: `savehash` and `SaveHashtoFile` go through the atomic writer. A link
/// planted at `x.tmp` is not written through, a user's `notes.tmp` survives `notes` being
/// saved, and a save to a directory fails and leaves no temporary file.
#[cfg(unix)]
#[test]
fn table_saves_never_write_through_links_or_leave_temporary_files() {
    let dir = scratch(SCRATCH, "save");
    std::fs::write(dir.join("victim"), "precious").unwrap();
    std::os::unix::fs::symlink(dir.join("victim"), dir.join("x.tmp")).unwrap();
    std::fs::write(dir.join("notes.tmp"), "my notes").unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    let d = dir.display();
    let input = format!(
        "setoption name Hash value 1\ngo depth 3\nisready\nsavehash {d}/x\n\
         setoption name HashFile value {d}/notes\nsetoption name SaveHashtoFile\n\
         savehash {d}/sub\nsetoption name HashFile value {d}/sub/\n\
         setoption name SaveHashtoFile\nloadhash {d}/x\nisready\nquit\n"
    );
    let out = chess(&[], input.as_bytes(), Duration::from_secs(20));
    assert!(out.status.success(), "{out:?}");
    let stdout = out.stdout_text();
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    assert_eq!(errors.len(), 2, "{stdout}");
    assert!(
        errors[0].contains("savehash") && errors[0].contains("directory"),
        "{stdout}"
    );
    assert!(errors[1].contains("SaveHashtoFile"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.join("victim")).unwrap(),
        "precious"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.tmp")).unwrap(),
        "my notes"
    );
    for name in ["x", "notes"] {
        let meta = std::fs::symlink_metadata(dir.join(name)).unwrap();
        assert!(meta.is_file() && meta.len() > 1 << 20, "{name}: {meta:?}");
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["notes", "notes.tmp", "sub", "victim", "x", "x.tmp"]);
    assert_eq!(std::fs::read_dir(dir.join("sub")).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 3: `selfplay --book /dev/zero` and `tune /dev/zero` used to read until memory ran
/// out. A device is refused at open, as bad input (exit status 2).
#[test]
fn dev_zero_as_a_book_or_tuning_data_is_refused_at_once() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = scratch(SCRATCH, "zero");
    let out_path = dir.join("never.rs");
    let out_path = out_path.to_str().unwrap();
    for args in [
        vec!["selfplay", "--book", "/dev/zero", "--openings", "1"],
        vec!["datagen", out_path, "--book", "/dev/zero"],
        vec!["tune", "/dev/zero", "--out", out_path],
    ] {
        let out = chess(&args, b"", Duration::from_secs(10));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = out.stderr_text();
        assert!(
            stderr.contains("cannot read /dev/zero: a device"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!Path::new(out_path).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 3: a line longer than 4 KiB in an openings file or in tuning data is reported as
/// `FILE:N: line too long`, skipped and counted, and the run goes on with the other lines.
/// (It used to be taken whole: an endless one read until memory ran out.)
#[test]
fn overlong_lines_in_books_and_data_are_reported_and_skipped() {
    let dir = scratch(SCRATCH, "long");
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        format!(
            "{}\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
            "x".repeat(5000)
        ),
    )
    .unwrap();
    let book = book.to_str().unwrap();
    let out = chess(
        &[
            "selfplay",
            "--book",
            book,
            "--openings",
            "1",
            "--nodes",
            "50",
            "--concurrency",
            "1",
        ],
        b"",
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{out:?}");
    let stderr = out.stderr_text();
    assert!(
        stderr.contains(&format!("{book}:1: line too long (over 4096 bytes)")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{book}: 1 lines rejected")),
        "{stderr}"
    );
    assert!(out.stdout_text().contains(": 2 games"), "{out:?}");

    let data = dir.join("data.txt");
    let mut bytes = b"4k3/8/8/3P4/8/8/8/4K3 w - - 0 1;1\n".to_vec();
    bytes.extend_from_slice(format!("{};1\n", "8/".repeat(3000)).as_bytes());
    bytes.extend_from_slice(b"\xff;0\n6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 1;0\n");
    std::fs::write(&data, bytes).unwrap();
    let data = data.to_str().unwrap();
    let weights = dir.join("weights.rs");
    let out = chess(
        &[
            "tune",
            data,
            "--out",
            weights.to_str().unwrap(),
            "--steps",
            "5",
        ],
        b"",
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{out:?}");
    let stderr = out.stderr_text();
    assert!(
        stderr.contains(&format!("{data}:2: line too long (over 4096 bytes)")),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("{data}:3: not UTF-8")), "{stderr}");
    assert!(
        out.stdout_text().contains("2 positions (2 lines skipped)"),
        "{out:?}"
    );
    assert!(weights.is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 10: `tune --rate 1e308` used to overflow to NaN and write an all-zero weights file
/// with exit 0. The non-finite fit is refused and the old weights file is kept; a fit that
/// succeeds replaces the file whole (a new file renamed over it: a hard link to the old file
/// keeps the old contents, where writing in place would have changed both). A FIFO or a
/// directory as `--out` is refused before the fit. The diverged fit is a failed check (exit
/// status 1), the refused output bad usage (2).
#[test]
fn tune_refuses_a_non_finite_fit_and_replaces_the_weights_file_whole() {
    let dir = scratch(SCRATCH, "tune");
    let data = dir.join("data.txt");
    std::fs::write(
        &data,
        "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1;1\n6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 1;0\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.5\n",
    )
    .unwrap();
    let weights = dir.join("weights.rs");
    std::fs::write(&weights, "old weights").unwrap();
    let (data, out) = (data.to_str().unwrap(), weights.to_str().unwrap());
    let run = |rate: &str| {
        chess(
            &["tune", data, "--out", out, "--steps", "10", "--rate", rate],
            b"",
            Duration::from_secs(30),
        )
    };
    let refused = run("1e308");
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let stderr = refused.stderr_text();
    assert!(
        stderr.contains("non-finite") && stderr.contains("1e308"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&weights).unwrap(), "old weights");

    std::fs::hard_link(&weights, dir.join("backup.rs")).unwrap();
    let fitted = run("2");
    assert!(fitted.status.success(), "{fitted:?}");
    assert!(
        std::fs::read_to_string(&weights)
            .unwrap()
            .contains("pub static WEIGHTS")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("backup.rs")).unwrap(),
        "old weights"
    );
    // A FIFO or a directory as --out: refused before the fit (a FIFO used to block the
    // write until a reader came; a rename over it would have replaced it).
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo.rs");
        transpo_testkit::mkfifo(&fifo);
        for target in [fifo.to_str().unwrap(), dir.to_str().unwrap()] {
            let refused = chess(
                &["tune", data, "--out", target, "--steps", "5"],
                b"",
                Duration::from_secs(30),
            );
            assert_eq!(refused.status.code(), Some(2), "{refused:?}");
            assert!(
                refused.stderr_text().contains("not a regular file"),
                "{refused:?}"
            );
        }
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        std::fs::remove_file(&fifo).unwrap();
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["backup.rs", "data.txt", "weights.rs"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Beyond the list: `datagen` appends to a file whose last line a killed run cut off. That
/// line used to run into the first new one; now it is ended first, and every game's lines
/// go out whole.
#[test]
fn datagen_ends_a_cut_off_line_before_appending() {
    let dir = scratch(SCRATCH, "datagen");
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
    )
    .unwrap();
    let data = dir.join("data.txt");
    std::fs::write(&data, "8/8/8/8/8/8/8/8 w - - 0").unwrap();
    let out = chess(
        &[
            "datagen",
            data.to_str().unwrap(),
            "--book",
            book.to_str().unwrap(),
            "--openings",
            "1",
            "--nodes",
            "200",
            "--concurrency",
            "1",
        ],
        b"",
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&data).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("8/8/8/8/8/8/8/8 w - - 0"), "{text}");
    let rest: Vec<&str> = lines.collect();
    assert!(!rest.is_empty(), "{text}");
    for line in rest {
        let (fen, result) = line.rsplit_once(';').unwrap();
        assert!(["0", "0.5", "1"].contains(&result), "{line}");
        assert!(transpo_chess::Position::from_fen(fen).is_ok(), "{line}");
    }
    assert!(text.ends_with('\n'));
    std::fs::remove_dir_all(&dir).unwrap();
}
