//! The lab against hostile files (issue 29): a device or FIFO where a file is expected, a
//! planted link at the old temporary name, a second run into a directory in use, and lines
//! that are too long or not UTF-8. Every run is bounded by a deadline, so a hang fails the
//! test instead of stalling CI. A file the lab refuses is bad input: exit status 2.

use std::{
    fs::File,
    path::{Path, PathBuf},
    time::Duration,
};

use transpo_testkit::{Run, mkfifo, scratch};

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-lab-hostile";

/// Runs `transpo-lab args`, killed after 60 s; (exit status, stderr).
fn lab(args: &[&str]) -> (i32, String) {
    let out = Run::new(env!("CARGO_BIN_EXE_transpo-lab"))
        .args(args)
        .deadline(Duration::from_secs(60))
        .output();
    (out.code().unwrap_or(-1), out.stderr_text())
}

/// The first two positions of the paper's set.
fn positions(dir: &Path) -> PathBuf {
    let fixture = include_str!("../data/breuker18.epd");
    let lines: Vec<&str> = fixture
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(2)
        .collect();
    let path = dir.join("two.epd");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write positions");
    path
}

fn breuker(dir: &Path, positions: &Path) -> (i32, String) {
    lab(&[
        "breuker",
        "--depths",
        "2",
        "--schemes",
        "deep",
        "--sizes",
        "8K",
        "--stamping",
        "cleared",
        "--positions",
        positions.to_str().expect("utf-8 path"),
        "--out",
        dir.to_str().expect("utf-8 path"),
    ])
}

#[test]
fn a_device_for_positions_is_refused() {
    let dir = scratch(SCRATCH, "device");
    let (status, err) = breuker(&dir.join("run"), Path::new("/dev/zero"));
    assert!(
        status == 2 && err.contains("/dev/zero") && err.contains("device"),
        "{err}"
    );
}

#[test]
fn a_fifo_at_the_runs_csv_is_refused_not_waited_on() {
    let dir = scratch(SCRATCH, "fifo");
    let run = dir.join("run");
    std::fs::create_dir_all(&run).expect("mkdir");
    mkfifo(&run.join("observations.csv"));
    let (status, err) = breuker(&run, &positions(&dir));
    assert!(status == 2 && err.contains("FIFO"), "{err}");
}

#[test]
fn a_planted_link_at_the_old_temporary_name_is_not_written_through() {
    let dir = scratch(SCRATCH, "link");
    let run = dir.join("run");
    std::fs::create_dir_all(&run).expect("mkdir");
    std::fs::write(dir.join("victim"), "precious").expect("write");
    std::os::unix::fs::symlink(dir.join("victim"), run.join("observations.csv.tmp"))
        .expect("symlink");
    let (status, err) = breuker(&run, &positions(&dir));
    assert_eq!(status, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("victim")).expect("read"),
        "precious"
    );
    let csv = std::fs::read_to_string(run.join("observations.csv")).expect("the CSV");
    assert_eq!(csv.lines().count(), 5, "{csv}\n{err}");
}

#[test]
fn a_second_run_into_a_directory_in_use_is_refused() {
    let dir = scratch(SCRATCH, "lock");
    let run = dir.join("run");
    std::fs::create_dir_all(&run).expect("mkdir");
    // The first run, as far as the lock can tell: this test holds the directory's lock.
    let held = File::open(&run).expect("open the directory");
    held.lock().expect("lock");
    // Bad usage, as transpo-c4 solve-list says of a held results file: status 2.
    let (status, err) = breuker(&run, &positions(&dir));
    assert!(status == 2 && err.contains("another run"), "{err}");
    assert!(!run.join("observations.csv").exists());
    drop(held);
    let (status, err) = breuker(&run, &positions(&dir));
    assert_eq!(status, 0, "{err}");
}

#[test]
fn long_and_non_utf8_lines_are_reported_and_skipped() {
    let dir = scratch(SCRATCH, "lines");
    let mut bytes = std::fs::read(positions(&dir)).expect("positions");
    bytes.extend(b"\xff\xfe\n");
    bytes.extend(std::iter::repeat_n(b'8', 5000));
    bytes.push(b'\n');
    let path = dir.join("hostile.epd");
    std::fs::write(&path, bytes).expect("write");
    let (status, err) = breuker(&dir.join("run"), &path);
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("hostile.epd:3: not UTF-8; skipped"), "{err}");
    assert!(err.contains("hostile.epd:4: line too long"), "{err}");
}
