//! `mpirun -np N transpo-c4` (feature `mpi`): the scores of a solve over MPI are one
//! machine's solve's, line for line, strong and weak, with `--analyze`, with 1, 3 and 16
//! workers, and with workers holding jobs ahead; a killed solve run again with its
//! `--state` file gives the same lines; and what a solve over MPI refuses (`-np 1`, a
//! state file of another solve, ranks started with other flags). Needs OpenMPI's `mpirun`
//! on the PATH (`.ci/run` installs it).

#![cfg(feature = "mpi")]

use std::time::Duration;
use transpo_testkit::{Output, Run, finish, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// The scratch directories' prefix.
const PREFIX: &str = "transpo-c4-mpi";

/// `mpirun` with `np` ranks of the binary with `args`, as CI runs it (as root, more ranks
/// than cores), `input` on stdin.
fn mpirun(np: usize, args: &[&str], input: &str) -> Run {
    mpirun_with(np, &[], args, input)
}

/// [`mpirun`] with `knobs` (name, value) set for every rank (`-x NAME`).
fn mpirun_with(np: usize, knobs: &[(&str, &str)], args: &[&str], input: &str) -> Run {
    let np = np.to_string();
    let mut all = vec!["--oversubscribe", "--allow-run-as-root"];
    for (name, _) in knobs {
        all.extend(["-x", name]);
    }
    all.extend(["-np", &np, BIN]);
    all.extend(args);
    let mut run = Run::new("mpirun")
        .args(all)
        .input(input.as_bytes().to_vec())
        .deadline(Duration::from_secs(120));
    for (name, value) in knobs {
        run = run.env(name, value);
    }
    run
}

/// One machine's solve of `input` with `args`.
fn one_solve(args: &[&str], input: &str) -> Output {
    Run::new(BIN)
        .args(args)
        .input(input.as_bytes().to_vec())
        .output()
}

/// Each output line without its last two fields (positions, microseconds): the moves and
/// the score or scores.
fn scores(out: &Output) -> Vec<String> {
    out.stdout_text()
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split(' ').collect();
            words[..words.len().saturating_sub(2)].join(" ")
        })
        .collect()
}

/// Some positions of `board` (the empty board among them) and a bad line.
const LINES_5X4: &str = "-\n3\n33\n2 0\n343\n12x\n1\n";
const LINES_6X4: &str = "-\n34\n4\n345\n";

/// A solve over MPI scores every line as one machine's solve does (the bad line rejected
/// with its number, exit 1 for it), with 1 and 3 workers, strong, weak and analysed.
#[test]
fn mpi_scores_are_one_solves() {
    for (board, lines) in [("5x4", LINES_5X4), ("6x4", LINES_6X4)] {
        for flags in [
            &[][..],
            &["--weak"],
            &["--analyze"],
            &["--weak", "--analyze"],
        ] {
            let mut args = vec!["--board", board, "--threads", "1", "--hash-mib", "4"];
            args.extend(flags);
            let one = one_solve(&args, lines);
            for np in [2, 4] {
                let mpi = mpirun(np, &args, lines).output();
                assert_eq!(
                    mpi.code(),
                    one.code(),
                    "{board} {flags:?} -np {np}: {}",
                    mpi.stderr_text()
                );
                assert_eq!(scores(&mpi), scores(&one), "{board} {flags:?} -np {np}");
                assert_eq!(
                    mpi.stdout_text().lines().count(),
                    one.stdout_text().lines().count()
                );
                if lines.contains("12x") {
                    assert!(
                        mpi.stderr_text().contains("line 6: "),
                        "{}",
                        mpi.stderr_text()
                    );
                }
            }
        }
    }
}

/// Workers that hold several jobs at once (`TRANSPO_C4_MPI_AHEAD`), with many small jobs and
/// many bounds passed on (`TRANSPO_C4_MPI_LEAF`, `TRANSPO_C4_MPI_SHARE`), so that jobs are
/// cancelled before they start, and workers send big messages while the manager sends them
/// theirs: the scores are still one solve's, and nothing waits for ever.
#[test]
fn workers_holding_jobs_ahead_score_as_one_solve() {
    for (board, lines, leaf) in [("6x4", LINES_6X4, "20"), ("5x4", "-\n3\n", "16")] {
        for flags in [&[][..], &["--weak"]] {
            let mut args = vec!["--board", board, "--threads", "1", "--hash-mib", "4"];
            args.extend(flags);
            let one = one_solve(&args, lines);
            for ahead in ["2", "4"] {
                let knobs = [
                    ("TRANSPO_C4_MPI_AHEAD", ahead),
                    ("TRANSPO_C4_MPI_LEAF", leaf),
                    ("TRANSPO_C4_MPI_SHARE", "4"),
                ];
                let mpi = mpirun_with(4, &knobs, &args, lines).output();
                assert_eq!(
                    mpi.code(),
                    Some(0),
                    "{board} {flags:?} ahead {ahead}: {}",
                    mpi.stderr_text()
                );
                assert_eq!(
                    scores(&mpi),
                    scores(&one),
                    "{board} {flags:?} ahead {ahead}"
                );
            }
        }
    }
}

/// Sixteen workers on tiny boards, where most have nothing to do.
#[test]
fn sixteen_workers_on_a_tiny_board() {
    for (board, lines) in [("4x4", "-\n2\n"), ("5x4", "-\n")] {
        for flags in [&[][..], &["--weak"]] {
            let mut args = vec!["--board", board, "--threads", "1", "--hash-mib", "2"];
            args.extend(flags);
            let one = one_solve(&args, lines);
            let mpi = mpirun(17, &args, lines).output();
            assert_eq!(
                mpi.code(),
                Some(0),
                "{board} {flags:?}: {}",
                mpi.stderr_text()
            );
            assert_eq!(scores(&mpi), scores(&one), "{board} {flags:?}");
        }
    }
}

/// `-np 1` (no worker), a state file of another solve, and ranks started with other flags
/// are each refused, exit 2, naming what.
#[test]
fn mpi_refuses_what_it_cannot_solve() {
    let out = mpirun(1, &["--board", "5x4"], "-\n").output();
    assert_eq!(out.code(), Some(2), "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("at least one worker"),
        "{}",
        out.stderr_text()
    );
    assert!(out.stdout.is_empty());

    let dir = scratch(PREFIX, "other-state");
    let state = dir.join("state");
    let state_arg = state.to_str().expect("a UTF-8 path");
    let out = mpirun(2, &["--board", "5x4", "--state", state_arg], "-\n").output();
    assert_eq!(out.code(), Some(0), "{}", out.stderr_text());
    for other in [&["--board", "6x4"][..], &["--board", "5x4", "--weak"]] {
        let mut args = other.to_vec();
        args.extend(["--state", state_arg]);
        let out = mpirun(2, &args, "-\n").output();
        assert_eq!(out.code(), Some(2), "{other:?}: {}", out.stderr_text());
        assert!(
            out.stderr_text().contains("the state of another solve"),
            "{}",
            out.stderr_text()
        );
    }
    let out = mpirun(2, &["--board", "5x4", "--state", state_arg], "3\n").output();
    assert_eq!(out.code(), Some(2), "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("another position"),
        "{}",
        out.stderr_text()
    );
    std::fs::write(&state, "hello\n").expect("write");
    let out = mpirun(2, &["--board", "5x4", "--state", state_arg], "-\n").output();
    assert_eq!(out.code(), Some(2), "{}", out.stderr_text());

    // Two programs (MPMD): rank 1 with another --threads.
    let out = Run::new("mpirun")
        .args([
            "--oversubscribe",
            "--allow-run-as-root",
            "-np",
            "1",
            BIN,
            "--board",
            "5x4",
            "--threads",
            "1",
            ":",
            "-np",
            "1",
            BIN,
            "--board",
            "5x4",
            "--threads",
            "2",
        ])
        .input(b"-\n".to_vec())
        .deadline(Duration::from_secs(120))
        .output();
    assert_eq!(out.code(), Some(2), "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("--threads"),
        "{}",
        out.stderr_text()
    );

    // --state without mpirun.
    let out = one_solve(&["--board", "5x4", "--state", state_arg], "-\n");
    assert_eq!(out.code(), Some(2), "{}", out.stderr_text());
}

/// A solve killed at some moment and run again with the same command and `--state` file,
/// on fewer ranks, prints the lines one machine's solve prints: three workers search jobs 8
/// stones deep, the one worker of the rerun jobs 5 stones deep.
#[test]
fn a_killed_solve_goes_on_from_its_state() {
    let lines = "-\n4\n3\n44\n";
    let args = ["--board", "6x5", "--threads", "1", "--hash-mib", "8"];
    let one = one_solve(&args, lines);
    assert_eq!(one.code(), Some(0));
    let dir = scratch(PREFIX, "killed");
    let state = dir.join("state");
    let mut with_state = args.to_vec();
    with_state.extend(["--state", state.to_str().expect("a UTF-8 path")]);
    // Kill at a moment that differs from run to run, after a state file was written.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let wait = Duration::from_millis(300 + u64::from(nanos % 700));
    let running = mpirun(4, &with_state, lines)
        .env("TRANSPO_C4_MPI_STATE_MS", "20")
        .spawn();
    let started = std::time::Instant::now();
    while started.elapsed() < wait && !state.exists() {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(wait.saturating_sub(started.elapsed()));
    // SIGTERM to mpirun, which ends every rank.
    let pid = i32::try_from(running.child.id()).expect("a pid");
    // SAFETY: a plain kill(2) of our own child.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let killed = finish(running);
    let rerun = mpirun(2, &with_state, lines).output();
    assert_eq!(rerun.code(), Some(0), "{}", rerun.stderr_text());
    assert_eq!(
        scores(&rerun),
        scores(&one),
        "killed after {wait:?}: {}",
        killed.stdout_text()
    );
}

/// Ranks that run two or three threads each score as one solve does, whether each thread
/// searches a job of its own on the rank's table (`TRANSPO_C4_MPI_LANES=1`, the default) or
/// all search one job together (`0`), or the rank splits each job over its threads with a
/// top tree of its own (`TRANSPO_C4_MPI_CREW`); with small jobs too, so that lanes answer
/// out of order and pass many bounds on.
#[test]
fn ranks_with_two_threads_score_as_one_solve() {
    let runs = [
        ("2", "1", "17", "0"),
        ("2", "0", "17", "0"),
        ("3", "1", "20", "0"),
        ("3", "1", "20", "2"),
    ];
    for (threads, lanes, leaf, crew) in runs {
        for flags in [&[][..], &["--weak"]] {
            let mut args = vec!["--board", "6x4", "--threads", threads, "--hash-mib", "4"];
            args.extend(flags);
            let one = one_solve(&args, LINES_6X4);
            let knobs = [
                ("TRANSPO_C4_MPI_LANES", lanes),
                ("TRANSPO_C4_MPI_LEAF", leaf),
                ("TRANSPO_C4_MPI_CREW", crew),
            ];
            let mpi = mpirun_with(3, &knobs, &args, LINES_6X4).output();
            let what =
                format!("{threads} threads, lanes {lanes}, leaf {leaf}, crew {crew} {flags:?}");
            assert_eq!(mpi.code(), Some(0), "{what}: {}", mpi.stderr_text());
            assert_eq!(scores(&mpi), scores(&one), "{what}");
        }
    }
}

/// The pids of `mpirun`'s ranks (its children), by rank, read from their environment.
fn ranks_of(mpirun: u32) -> Vec<(u32, u32)> {
    let mut ranks = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return ranks;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The parent's pid is the second field after the command's closing parenthesis.
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if parent != Some(mpirun) {
            continue;
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let rank = environ
            .split(|&b| b == 0)
            .filter_map(|v| v.strip_prefix(b"OMPI_COMM_WORLD_RANK="))
            .find_map(|v| std::str::from_utf8(v).ok()?.parse().ok());
        if let Some(rank) = rank {
            ranks.push((rank, pid));
        }
    }
    ranks
}

/// A worker killed in the middle of a solve ends the run, without a hang, with a message
/// that names its rank; the state file stays whole, and the solve run again from it (with
/// fewer ranks) gives one solve's lines. A second run on the same state file while the
/// first holds it is refused.
#[test]
fn a_dead_worker_ends_the_run_and_the_state_survives() {
    // Long enough (seconds on 2 cores) that the kill comes in the middle.
    let lines = "-\n4\n";
    let args = ["--board", "7x5", "--threads", "1", "--hash-mib", "8"];
    let one = one_solve(&args, lines);
    let dir = scratch(PREFIX, "dead-worker");
    let state = dir.join("state");
    let mut with_state = args.to_vec();
    with_state.extend(["--state", state.to_str().expect("a UTF-8 path")]);
    let running = mpirun(4, &with_state, lines)
        .env("TRANSPO_C4_MPI_STATE_MS", "20")
        .spawn();
    let started = std::time::Instant::now();
    while !state.exists() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = running.child.id();
    let worker = ranks_of(pid).into_iter().find(|&(rank, _)| rank == 2);
    let Some((_, worker)) = worker else {
        panic!("no rank 2 among mpirun's children: {:?}", ranks_of(pid));
    };
    // The first run holds the state file: a second is refused at once.
    let second = mpirun(2, &with_state, lines).output();
    assert_eq!(second.code(), Some(2), "{}", second.stderr_text());
    assert!(
        second.stderr_text().contains("another solve"),
        "{}",
        second.stderr_text()
    );
    // SAFETY: a plain kill(2) of a process of this test.
    unsafe {
        libc::kill(worker as i32, libc::SIGKILL);
    }
    let killed = finish(running);
    assert_ne!(killed.code(), Some(0), "{}", killed.stderr_text());
    assert!(
        killed.stderr_text().contains("rank 2"),
        "{}",
        killed.stderr_text()
    );
    let rerun = mpirun(2, &with_state, lines).output();
    assert_eq!(rerun.code(), Some(0), "{}", rerun.stderr_text());
    assert_eq!(scores(&rerun), scores(&one));
}

/// A FIFO or a device as the state file is refused at once, exit 2, and so is a bad value of
/// any of the cluster's measurement knobs.
#[test]
fn mpi_refuses_a_fifo_a_device_and_a_bad_knob() {
    let dir = scratch(PREFIX, "fifo");
    let fifo = dir.join("fifo");
    transpo_testkit::mkfifo(&fifo);
    for state in [fifo.to_str().expect("UTF-8"), "/dev/zero"] {
        let out = mpirun(3, &["--board", "5x4", "--state", state], "5\n").output();
        assert_eq!(out.code(), Some(2), "{state}: {}", out.stderr_text());
    }
    for (knob, value) in [
        ("TRANSPO_C4_MPI_STEAL", "2"),
        ("TRANSPO_C4_MPI_SERIAL", "yes"),
        ("TRANSPO_C4_MPI_STATE_MS", "-5"),
        ("TRANSPO_C4_MPI_LEAF", "129"),
        ("TRANSPO_C4_MPI_SHARE", "ten"),
        ("TRANSPO_C4_MPI_GROUP", "65"),
        ("TRANSPO_C4_MPI_ALONE", "0"),
        ("TRANSPO_C4_MPI_ALONE_ALL", "17"),
        ("TRANSPO_C4_MPI_AHEAD", "0"),
        ("TRANSPO_C4_MPI_LANES", "2"),
        ("TRANSPO_C4_MPI_HELP", " 1"),
        ("TRANSPO_C4_MPI_SPIN_US", "-1"),
        ("TRANSPO_C4_MPI_GUESS", "4097"),
        ("TRANSPO_C4_MPI_CREW", "65"),
    ] {
        let out = Run::new("mpirun")
            .args([
                "--oversubscribe",
                "--allow-run-as-root",
                "-x",
                knob,
                "-np",
                "2",
                BIN,
                "--board",
                "5x4",
            ])
            .env(knob, value)
            .input(b"-\n".to_vec())
            .deadline(Duration::from_secs(120))
            .output();
        assert_eq!(out.code(), Some(2), "{knob}={value}: {}", out.stderr_text());
        assert!(out.stderr_text().contains(knob), "{}", out.stderr_text());
        assert!(out.stdout.is_empty());
    }
}

/// A setting refused on some ranks only (a variable set without `-x` reaches only the ranks
/// `mpirun` starts on its own node; a flag wrong in one program of an MPMD line), or on
/// every rank, at 2, 3, 5 and 9 ranks, each tried several times (a hang came one time in
/// five): the job ends within seconds, exit 2, with one message that names the rank and
/// the reason, and nothing on stdout.
#[test]
fn a_refusal_on_any_ranks_ends_the_job_with_one_message() {
    let bad = ("TRANSPO_C4_MPI_GUESS", "x");
    let program = |np: usize, bad_here: bool| {
        let mut part = vec!["-np".to_string(), np.to_string()];
        if bad_here {
            part.extend(["env".into(), format!("{}={}", bad.0, bad.1)]);
        }
        part.extend([BIN.to_string(), "--board".into(), "5x4".into()]);
        part
    };
    for np in [2, 3, 5, 9] {
        // The bad rank: the manager, the first worker, the last worker, and all of them.
        let mut layouts: Vec<(Vec<String>, usize)> = vec![
            (
                [program(1, true), program(np - 1, false)].join(&":".to_string()),
                0,
            ),
            (
                [program(1, false), program(1, true), program(np - 2, false)]
                    .into_iter()
                    .filter(|p| p[1] != "0")
                    .collect::<Vec<_>>()
                    .join(&":".to_string()),
                1,
            ),
            (
                [program(np - 1, false), program(1, true)].join(&":".to_string()),
                np - 1,
            ),
            (program(np, true), 0),
        ];
        if np == 2 {
            layouts.remove(1);
        }
        for (layout, rank) in &layouts {
            for round in 0..3 {
                let mut args = vec!["--oversubscribe".to_string(), "--allow-run-as-root".into()];
                args.extend(layout.iter().cloned());
                let started = std::time::Instant::now();
                let out = Run::new("mpirun")
                    .args(&args)
                    .input(b"-\n".to_vec())
                    .deadline(Duration::from_secs(60))
                    .output();
                let took = started.elapsed();
                let err = out.stderr_text();
                let what = format!("-np {np}, {layout:?}, round {round}: {err}");
                assert_eq!(out.code(), Some(2), "{what}");
                assert!(out.stdout.is_empty(), "{what}");
                let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
                assert_eq!(errors.len(), 1, "{what}");
                assert!(
                    errors[0].contains(&format!("rank {rank}:")) && errors[0].contains(bad.0),
                    "{what}"
                );
                assert!(took < Duration::from_secs(15), "{took:?}: {what}");
            }
        }
    }
}
