//! The lab against CSV rows it could not have written (issue 45, item 3): a position index
//! beyond the set, a negative count, a scheme or stamping spelled otherwise, a depth out of
//! range, a move that is not UCI, and the like, in a `breuker` run's observations and an
//! `elo` run's pairs. Each is refused with exit status 2 and the file and line named, by
//! `merge`, by `--report-only` and by a resumed run alike, where the old parser took them
//! and changed the verdicts (a cell silently dropped, "0 observations on 0 positions").
//! Every run is bounded by a deadline, so a hang fails the test instead of stalling CI.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use transpo_testkit::{Run, scratch};

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-lab-rows";

/// Runs `transpo-lab args`, killed after 120 s; (exit status, stderr).
fn lab(args: &[&str]) -> (i32, String) {
    let out = Run::new(env!("CARGO_BIN_EXE_transpo-lab"))
        .args(args)
        .deadline(Duration::from_secs(120))
        .output();
    (out.code().unwrap_or(-1), out.stderr_text())
}

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// Copies `run`'s CSV `name` into a fresh directory `to` with field `field` (0-based) of
/// line `line` (1-based, the header is line 1) replaced by `value`.
fn tampered(run: &Path, name: &str, to: &Path, line: usize, field: usize, value: &str) {
    let csv = std::fs::read_to_string(run.join(name)).expect("the run's CSV");
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let mut fields: Vec<&str> = lines[line - 1].split(',').collect();
    fields[field] = value;
    lines[line - 1] = fields.join(",");
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).expect("mkdir");
    std::fs::write(to.join(name), lines.join("\n") + "\n").expect("write");
}

/// The arguments of the `breuker` run of the issue: two schemes and the baseline at 8K
/// entries, 3 ply, cleared, on the paper's 18 positions.
fn breuker_args(out: &Path) -> Vec<&str> {
    vec![
        "breuker",
        "--sizes",
        "8K",
        "--depths",
        "3",
        "--schemes",
        "deep,new",
        "--stamping",
        "cleared",
        "--out",
        text(out),
    ]
}

/// Asserts that merge, --report-only and a resume each refuse `dir`'s CSV `name` with
/// status 2, naming it, `line` and `field`; `report_only` and `resume` are the command
/// lines of the other two.
fn refused_everywhere(
    dir: &Path,
    name: &str,
    line: usize,
    field: usize,
    report_only: &[&str],
    resume: &[&str],
) {
    let merged = dir.with_extension("merged");
    let merge = ["merge", "--out", text(&merged), text(dir)];
    let place = format!("{name}: line {line}: field {}", field + 1);
    for args in [&merge[..], report_only, resume] {
        let (status, err) = lab(args);
        assert!(
            status == 2 && err.contains(&place) && err.contains(text(dir)),
            "transpo-lab {args:?}: status {status}, {err}"
        );
    }
    assert!(
        !merged.join(name).exists(),
        "a refused merge wrote {name} in {}",
        merged.display()
    );
}

#[test]
fn observations_the_writer_could_not_have_written_are_refused_with_their_line() {
    let dir = scratch(SCRATCH, "breuker");
    let run = dir.join("run");
    let (status, err) = lab(&breuker_args(&run));
    assert_eq!(status, 0, "{err}");
    // The run as written passes every reader: nothing below is refused for its own sake.
    let merged = dir.join("merged");
    let (status, err) = lab(&["merge", "--out", text(&merged), text(&run)]);
    assert!(
        status == 0 && err.contains("wrote"),
        "status {status}: {err}"
    );
    let mut report_only = breuker_args(&run);
    report_only.push("--report-only");
    let (status, err) = lab(&report_only);
    assert_eq!(status, 0, "{err}");
    // Line 3 of the CSV: the baseline's 18 rows are lines 2–19; make line 3 deep's second row.
    let csv = std::fs::read_to_string(run.join("observations.csv")).expect("CSV");
    let line = 1 + csv
        .lines()
        .position(|l| l.starts_with("deep,cleared,8192,3,1,"))
        .expect("deep's second position");
    for (field, value) in [
        (4, "999"),       // position beyond the 18 of the set (the case)
        (4, "18"),        // the first index beyond it
        (5, "KS94 w99"),  // the id of no position of the set
        (6, "-5"),        // negative nodes
        (8, "+134"),      // a number not as the writer spells it
        (9, "99999"),     // more hits than probes
        (0, "DEEP"),      // the scheme spelled otherwise
        (0, "shallow"),   // no scheme
        (1, "sideways"),  // no stamping
        (1, "unstamped"), // elo's stamping, not breuker's
        (2, "-8192"),     // negative entries
        (2, "0"),         // a table of no entries
        (3, "0"),         // depth below 1
        (3, "31"),        // depth above 30
        (14, "z9z9"),     // not a UCI move
        (15, "cp x"),     // not a score
    ] {
        let hostile = dir.join(format!("hostile-{field}-{}", value.replace(' ', "_")));
        tampered(&run, "observations.csv", &hostile, line, field, value);
        let mut report_only = breuker_args(&hostile);
        report_only.push("--report-only");
        refused_everywhere(
            &hostile,
            "observations.csv",
            line,
            field,
            &report_only,
            &breuker_args(&hostile),
        );
    }
}

#[test]
fn a_merge_refuses_a_run_with_a_cell_missing_a_position() {
    let dir = scratch(SCRATCH, "missing");
    let run = dir.join("run");
    let (status, err) = lab(&breuker_args(&run));
    assert_eq!(status, 0, "{err}");
    let csv = std::fs::read_to_string(run.join("observations.csv")).expect("CSV");
    let kept: Vec<&str> = csv
        .lines()
        .filter(|l| !l.starts_with("new,cleared,8192,3,5,"))
        .collect();
    std::fs::write(run.join("observations.csv"), kept.join("\n") + "\n").expect("write");
    let (status, err) = lab(&["merge", "--out", text(&dir.join("m")), text(&run)]);
    assert!(
        status == 2 && err.contains("new,cleared,8192,3 holds 17 of the 18 positions"),
        "status {status}: {err}"
    );
}

/// Two positions of the paper's set, from `first` on, in a file of their own.
fn two_positions(dir: &Path, first: usize) -> PathBuf {
    let fixture = include_str!("../data/breuker18.epd");
    let lines: Vec<&str> = fixture
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(first)
        .take(2)
        .collect();
    let path = dir.join(format!("two-from-{first}.epd"));
    std::fs::write(&path, lines.join("\n") + "\n").expect("write positions");
    path
}

#[test]
fn runs_of_another_position_set_of_the_same_size_are_refused() {
    let dir = scratch(SCRATCH, "sets");
    let (early, late) = (two_positions(&dir, 0), two_positions(&dir, 2));
    let run = |out: &Path, set: &Path| {
        let mut args = breuker_args(out);
        args.extend(["--positions", text(set)]);
        lab(&args)
    };
    let (a, b) = (dir.join("a"), dir.join("b"));
    for (out, set) in [(&a, &early), (&b, &late)] {
        let (status, err) = run(out, set);
        assert_eq!(status, 0, "{err}");
    }
    // Merged, the second run's first row is not the first run's position 0.
    let (status, err) = lab(&["merge", "--out", text(&dir.join("m")), text(&a), text(&b)]);
    assert!(
        status == 2
            && err.contains("b/observations.csv: line 2: field 6")
            && err.contains("is not the id of position 0"),
        "status {status}: {err}"
    );
    // Resumed with the other set, the run's rows are not its positions.
    let (status, err) = run(&a, &late);
    assert!(
        status == 2 && err.contains("a/observations.csv: line 2: field 6"),
        "status {status}: {err}"
    );
    let (status, err) = run(&a, &early);
    assert!(
        status == 0 && err.contains("3 already done"),
        "status {status}: {err}"
    );
}

/// Two openings from `8moves_v3.epd`.
const OPENINGS: &str = "\
rn1qk2r/pp3ppp/2ppbn2/8/2Pp4/1P2P1P1/P2Q1PBP/RN2K1NR w KQkq - 0 9
r2qk2r/pp1nbppp/2p1p3/3p1b2/2PPn3/1PN2NP1/P3PPBP/R1BQ1RK1 w kq - 3 9
";

/// A tiny `elo` study: one scheme, one pressure, two pairs at 1,000 nodes per move.
fn elo_args<'a>(out: &'a Path, openings: &'a Path) -> Vec<&'a str> {
    vec![
        "elo",
        "--schemes",
        "twobig1",
        "--pressures",
        "0.1",
        "--profiles",
        "full",
        "--nodes",
        "1000",
        "--pairs",
        "2",
        "--max-plies",
        "60",
        "--openings",
        text(openings),
        "--out",
        text(out),
    ]
}

#[test]
fn pairs_the_writer_could_not_have_written_are_refused_with_their_line() {
    let dir = scratch(SCRATCH, "elo");
    let openings = dir.join("openings.epd");
    std::fs::write(&openings, OPENINGS).expect("write openings");
    let run = dir.join("run");
    let (status, err) = lab(&elo_args(&run, &openings));
    assert_eq!(status, 0, "{err}");
    let merged = dir.join("merged");
    let (status, err) = lab(&["merge", "--out", text(&merged), text(&run)]);
    assert_eq!(status, 0, "{err}");
    // Line 2: the first pair. Its cell is
    // full,twobig1,stamped,depth-age-8:4,0.1,1000,100,60/1000/8.
    for (field, value) in [
        (0, "FULL"),     // the profile spelled otherwise
        (1, "DEEP"),     // the scheme spelled otherwise
        (2, "cleared"),  // breuker's stamping, not elo's
        (3, "sideways"), // no reference scheme
        (4, "-0.1"),     // a negative pressure
        (4, "0.10"),     // a pressure not as the writer spells it
        (5, "99"),       // fewer nodes than --nodes allows
        (6, "101"),      // entries that 0.1 × 1000 do not give
        (7, "60/1000"),  // rules missing one
        (7, "0/1000/8"), // a move limit of 0
        (8, "1000000"),  // a pair beyond the most --pairs allows
        (8, "-1"),       // a negative pair
        (10, "X"),       // no result
        (12, ""),        // no end
        (14, "61"),      // more plies than the move limit
        (16, "zz"),      // not a key
        (18, "-3"),      // negative wall time
    ] {
        let hostile = dir.join(format!("hostile-{field}-{}", value.replace('/', "_")));
        tampered(&run, "pairs.csv", &hostile, 2, field, value);
        let mut report_only = elo_args(&hostile, &openings);
        report_only.push("--report-only");
        refused_everywhere(
            &hostile,
            "pairs.csv",
            2,
            field,
            &report_only,
            &elo_args(&hostile, &openings),
        );
    }
}

#[test]
fn node_counts_the_writer_could_not_have_written_are_refused_with_their_line() {
    let dir = scratch(SCRATCH, "node-counts");
    let run = dir.join("run");
    let (status, err) = lab(&breuker_args(&run));
    assert_eq!(status, 0, "{err}");
    tampered(&run, "observations.csv", &dir.join("bad"), 3, 4, "999");
    let openings = dir.join("openings.epd");
    std::fs::write(&openings, OPENINGS).expect("write openings");
    let elo = dir.join("elo");
    let counts = dir.join("bad").join("observations.csv");
    let mut args = elo_args(&elo, &openings);
    args.extend(["--report-only", "--node-counts", text(&counts)]);
    let (status, err) = lab(&args);
    assert!(
        status == 2 && err.contains("observations.csv: line 3: field 5"),
        "status {status}: {err}"
    );
}
