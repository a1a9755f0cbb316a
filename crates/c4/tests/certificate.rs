//! Certificates (`transpo-c4 certify`, `merge --certificate`, `verify`), run as a user runs
//! them: a certificate of a small board verifies, strong and weak, and gives one solve's
//! score; four shards give the verdict of one; a changed bound, a dropped leaf, an edited
//! position (each with the checksums made good again, as a forger would) and a damaged
//! byte are each caught and named, with exit status 1; garbage is exit status 2.

use std::path::Path;
use transpo_c4::certificate::{Bound, Certificate};
use transpo_connect4::position::Position;
use transpo_connect4::score::Window;
use transpo_connect4::solver::Solver;
use transpo_testkit::{Output, Run, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// The scratch directories' prefix.
const PREFIX: &str = "transpo-c4-certificate";

/// The binary run with `args`, within the testkit's deadline.
fn c4(args: &[&str]) -> Output {
    Run::new(BIN).args(args).output()
}

/// The binary's stdout, which must succeed.
fn ok(args: &[&str]) -> String {
    let out = c4(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        out.stderr_text()
    );
    out.stdout_text()
}

/// `verify` with `extra`, on two threads and a small table.
fn verify(dir: &Path, extra: &[&str]) -> Output {
    let d = dir.display().to_string();
    let mut args = vec!["verify", &d, "--threads", "2", "--hash-mib", "4"];
    args.extend_from_slice(extra);
    c4(&args)
}

/// A certificate of `board` at `depth` in a fresh directory named `name`.
fn certify(name: &str, board: &str, depth: u32, weak: bool) -> std::path::PathBuf {
    let dir = scratch(PREFIX, name);
    let d = dir.display().to_string();
    let depth = depth.to_string();
    let mut args = vec![
        "certify",
        "--board",
        board,
        "--depth",
        &depth,
        "--out",
        &d,
        "--threads",
        "2",
        "--hash-mib",
        "16",
    ];
    if weak {
        args.push("--weak");
    }
    ok(&args);
    dir
}

/// The failure `verify` must give (exit status 1), its stderr.
fn rejected(dir: &Path) -> String {
    let out = verify(dir, &[]);
    let stderr = out.stderr_text();
    assert_eq!(out.code(), Some(1), "{stderr}");
    // A verdict, or none when the file fails its checks as it is read.
    let stdout = out.stdout_text();
    assert!(
        stdout.is_empty() || stdout.starts_with("not verified"),
        "{stdout}"
    );
    stderr
}

#[test]
fn certificates_of_small_boards_verify_with_one_solves_score() {
    for (board, depth) in [("5x4", 4), ("6x4", 4)] {
        for weak in [false, true] {
            let dir = certify(&format!("{board}-{weak}"), board, depth, weak);
            let mut solve = vec!["--board", board, "--threads", "2"];
            if weak {
                solve.push("--weak");
            }
            let one = Run::new(BIN)
                .args(&solve)
                .input("-\n")
                .output()
                .stdout_text();
            let score = one.split(' ').nth(1).expect("a score").to_string();
            let out = verify(&dir, &[]);
            assert!(
                out.status.success(),
                "{board} {weak}: {}",
                out.stderr_text()
            );
            let verdict = out.stdout_text();
            assert!(
                verdict.starts_with("verified: ") && verdict.contains(&format!("score {score}:")),
                "{board} {weak}: {verdict} (one solve: {one})"
            );
        }
    }
}

#[test]
fn a_split_merged_with_certificate_verifies() {
    let dir = scratch(PREFIX, "merged");
    let (run, cert) = (dir.join("run"), dir.join("cert"));
    let (r, c) = (run.display().to_string(), cert.display().to_string());
    ok(&["split", "--board", "5x4", "--depth", "4", "--out", &r]);
    loop {
        ok(&["solve-list", &r, "--threads", "1", "--hash-mib", "4"]);
        let out = c4(&["merge", &r, "--certificate", &c]);
        match out.code() {
            Some(0) => break,
            Some(3) => continue,
            _ => panic!("merge: {}", out.stderr_text()),
        }
    }
    let out = verify(&cert, &[]);
    assert!(out.status.success(), "{}", out.stderr_text());
}

#[test]
fn four_shards_agree_with_one() {
    let dir = certify("shards", "6x4", 4, false);
    let one = verify(&dir, &[]);
    assert!(one.status.success(), "{}", one.stderr_text());
    for i in 1..=4 {
        let out = verify(&dir, &["--shard", &format!("{i}/4")]);
        assert!(out.status.success(), "shard {i}: {}", out.stderr_text());
    }
    let merged = verify(&dir, &["--merge"]);
    assert!(merged.status.success(), "{}", merged.stderr_text());
    assert_eq!(one.stdout_text(), merged.stdout_text());
    // A shard missing is named.
    std::fs::remove_file(dir.join("verify-3-of-4.txt")).expect("removed");
    let out = verify(&dir, &["--merge"]);
    assert_eq!(out.code(), Some(2));
    assert!(
        out.stderr_text().contains("shard 3/4"),
        "{}",
        out.stderr_text()
    );
    // A false leaf: one shard finds it, and the merge of four names it as one does.
    let (cert, index) = false_leaf(&dir);
    let name = format!("leaf {index} ({})", cert.leaves[index - 1].moves);
    assert!(rejected(&dir).contains(&name));
    let mut caught = 0;
    for i in 1..=4 {
        let out = verify(&dir, &["--shard", &format!("{i}/4")]);
        caught += usize::from(out.code() == Some(1) && out.stderr_text().contains(&name));
    }
    assert_eq!(caught, 1);
    let merged = verify(&dir, &["--merge"]);
    assert_eq!(merged.code(), Some(1));
    assert!(
        merged.stderr_text().contains(&name),
        "{}",
        merged.stderr_text()
    );
}

/// Rewrites the certificate in `dir` with its first leaf's bound made false (its true score
/// excluded, its window to match), checksums made good; returns it and the leaf's number.
fn false_leaf(dir: &Path) -> (Certificate, usize) {
    let mut cert = Certificate::load(dir).expect("a certificate");
    let leaf = &mut cert.leaves[0];
    let pos = Position::<6, 4>::from_moves(&leaf.moves).expect("a position");
    let truth = Solver::<6, 4>::new(4)
        .expect("4 MiB")
        .solve(&pos, transpo_connect4::Strength::Strong);
    leaf.bound = Bound::exact(truth + 1);
    leaf.window = Window {
        alpha: truth,
        beta: truth + 2,
    };
    cert.write_in(dir).expect("written");
    (cert, 1)
}

#[test]
fn tampering_is_caught_and_named() {
    let dir = certify("tampered", "6x4", 4, false);
    let good = Certificate::load(&dir).expect("a certificate");
    // A changed leaf bound: its re-solve names it.
    false_leaf(&dir);
    let stderr = rejected(&dir);
    assert!(
        stderr.contains(&format!("leaf 1 ({})", good.leaves[0].moves)),
        "{stderr}"
    );
    assert!(stderr.contains("re-solved"), "{stderr}");
    // A changed node bound: the tree check names the node.
    let mut cert = good.clone();
    let last = cert.nodes.len() - 1;
    let node = &mut cert.nodes[last];
    node.bound = match node.bound.lo {
        Some(lo) => Bound {
            lo: Some(lo + 1),
            hi: node.bound.hi.map(|h| h.max(lo + 1)),
        },
        None => Bound {
            lo: None,
            hi: node.bound.hi.map(|h| h - 1),
        },
    };
    cert.write_in(&dir).expect("written");
    let stderr = rejected(&dir);
    assert!(
        stderr.contains(&format!("node {}", good.nodes[last].moves)),
        "{stderr}"
    );
    // A dropped leaf: the node that needs it says which child lacks a proof.
    let mut cert = good.clone();
    let dropped = cert.leaves.remove(cert.leaves.len() / 2);
    cert.write_in(&dir).expect("written");
    let stderr = rejected(&dir);
    assert!(
        stderr.contains(&format!("child {} has no proof", dropped.moves))
            || stderr.contains("no listed child"),
        "{stderr}"
    );
    // An edited position: a leaf moved to a position the tree does not reach.
    let mut cert = good.clone();
    let moved = cert.leaves[0].moves.clone();
    cert.leaves[0].moves = "6666".into();
    cert.write_in(&dir).expect("written");
    let stderr = rejected(&dir);
    assert!(
        stderr.contains("(6666): not reached from the root"),
        "{stderr}"
    );
    // The node that needed the moved leaf names itself: the leaf's parent.
    let parent = &moved[..moved.len() - 1];
    assert!(stderr.contains(&format!("node {parent}")), "{stderr}");
    // A damaged byte, checksums not made good: the line is named.
    let text = good.to_text();
    let line = text.lines().nth(2).expect("a third line").to_string();
    let mut flipped = line.clone().into_bytes();
    let last_digit = flipped.len() - 1;
    flipped[last_digit] = if flipped[last_digit] == b'0' {
        b'1'
    } else {
        b'0'
    };
    let text = text.replace(&line, &String::from_utf8(flipped).expect("ascii"));
    std::fs::write(dir.join("certificate.txt"), text).expect("written");
    let stderr = rejected(&dir);
    assert!(stderr.contains("line 3"), "{stderr}");
    // Garbage, a missing certificate: exit status 2.
    std::fs::write(dir.join("certificate.txt"), "not a certificate\n").expect("written");
    assert_eq!(verify(&dir, &[]).code(), Some(2));
    std::fs::remove_file(dir.join("certificate.txt")).expect("removed");
    assert_eq!(verify(&dir, &[]).code(), Some(2));
}
