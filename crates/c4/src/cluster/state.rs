//! The manager's state file (`--state FILE`): what a long solve has done, so that a solve
//! killed at any moment and started again goes on where the last write left it, with the
//! same or another number of ranks.
//!
//! The file is taken as a hostile user may hand it over, like books and table files: read
//! only if it is a regular file (a FIFO or device is refused at once, never read), at most
//! [`STATE_MAX`] bytes, checked whole (header, checksum), every score and bound in it within
//! the board's range ([`State::check`]). The checksum finds damage (a torn or truncated
//! file, flipped bits), not edits: anyone can recompute it, so the bounds a file holds are
//! trusted as they are, and a file from an untrusted source can make a solve print a wrong
//! score within the board's range, never one outside it.
//!
//! A run holds the file's lock for as long as it runs
//! ([`transpo_cli::lock::ReplacedFileLock`]): the companion `TARGET.lock` beside the file
//! the path resolves to, and the file itself. A second run on the same file is refused
//! whatever name it is given (`./FILE`, a symbolic or hard link) instead of losing the first
//! one's lines, and the file is read and written where the path resolves to, so a symbolic
//! link is written through, never replaced. The file is replaced atomically, at most every few
//! seconds (the caller's interval) rather than after every line, so a run of many short
//! lines costs time in proportion to its length; during a line, on a thread of its own, so
//! that the solve goes on while it is written.
//!
//! Besides the top tree of the line in hand, the file keeps the far bounds its workers
//! proved ([`crate::cluster::sharing::KeptBounds`]): a killed solve's workers' tables die with it,
//! and these bounds are what spares a resumed solve most of their search again.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read, Write as _};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use transpo_cli::Failure;
use transpo_cli::lock::ReplacedFileLock;
use transpo_connect4::score::win_now_score;

/// The most bytes a state file may have: far more than the top tree of any board the
/// manager keeps (7×6 with jobs 8 stones deep: under a million entries, about 30 bytes each).
pub const STATE_MAX: u64 = 1 << 30;

/// The most positions or microseconds a state file may count for a line: far more than any
/// solve explores (7×6 strong: about 10^13 positions) or any run lasts (2^60 µs: 36,000
/// years), and far enough below `u64::MAX` that adding a run's own counts never overflows.
pub const COUNT_MAX: u64 = 1 << 60;

/// The first words of a state file.
const STATE_MAGIC: &str = "# transpo-c4 mpi-state v1";

/// The manager's state file (`--state FILE`): what it is for (board, strength, analysis,
/// leaf depth), the output lines of the input lines already solved, and the line in hand
/// with the table of its top tree and the positions counted so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// What the file is for: `board 8x5 strength strong analyze no`; a rerun must
    /// give the same.
    pub config: String,
    /// The output lines of the solved input lines, in order: line `i` of the input is
    /// `done[i]`'s (printed again, not solved again, on a rerun).
    pub done: Vec<String>,
    /// The line in hand: its move sequence, the positions and microseconds spent on it so
    /// far, and its table (key as a number, range).
    pub current: Option<CurrentLine>,
}

/// The line a [`State`] was solving.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CurrentLine {
    /// Its move sequence as written.
    pub moves: String,
    /// Positions explored on it by all ranks before this state was written.
    pub positions: u64,
    /// Microseconds spent on it before this state was written.
    pub micros: u64,
    /// The table of its top tree.
    pub table: Vec<(u128, (i32, i32))>,
    /// The far bounds the workers proved on it ([`crate::cluster::sharing::KeptBounds`]'s records).
    pub bounds: Vec<u8>,
}

/// Bytes of bounds on one line of the file (written in hex).
const BOUND_BYTES_A_LINE: usize = 1024;

/// FNV-1a over `text`: the state file's checksum, against a torn or edited file.
fn checksum(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// What configures a solve as far as its state file is concerned: the board, the strength
/// and whether it analyzes. Not the leaf depth: the file keeps ranges of scores and bounds,
/// facts about positions whatever the depth of the jobs, and the default depth follows the
/// number of searches at once ([`super::leaf_stones`]), which a resume may change.
pub fn state_config(board: &str, weak: bool, analyze: bool) -> String {
    format!(
        "board {board} strength {} analyze {}",
        if weak { "weak" } else { "strong" },
        if analyze { "yes" } else { "no" }
    )
}

/// The number of squares of the board a `config` ([`state_config`]) names (`board 9x4 …`:
/// 36), if it names one.
fn board_squares(config: &str) -> Option<usize> {
    let board = config.strip_prefix("board ")?.split(' ').next()?;
    let (width, height) = board.split_once('x')?;
    width
        .parse::<usize>()
        .ok()?
        .checked_mul(height.parse().ok()?)
}

/// Whether a file's `config` is `wanted` ([`state_config`]), or was before files left the
/// leaf depth out (`… leaf 28`).
fn same_solve(config: &str, wanted: &str) -> bool {
    let without_leaf = config
        .rsplit_once(" leaf ")
        .filter(|(_, leaf)| leaf.parse::<u32>().is_ok())
        .map_or(config, |(before, _)| before);
    without_leaf == wanted
}

impl State {
    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut body = String::new();
        for line in &self.done {
            let _ = writeln!(body, "done {line}");
        }
        if let Some(current) = &self.current {
            let _ = writeln!(
                body,
                "line {} positions {} micros {}",
                current.moves, current.positions, current.micros
            );
            for (key, (lo, hi)) in &current.table {
                let _ = writeln!(body, "k {key:x} {lo} {hi}");
            }
            const HEX: &[u8; 16] = b"0123456789abcdef";
            for chunk in current.bounds.chunks(BOUND_BYTES_A_LINE) {
                body.push_str("b ");
                for &byte in chunk {
                    body.push(char::from(HEX[usize::from(byte >> 4)]));
                    body.push(char::from(HEX[usize::from(byte & 15)]));
                }
                body.push('\n');
            }
        }
        let head = format!("{STATE_MAGIC} {}\n", self.config);
        let sum = checksum(&(head.clone() + &body));
        format!("{head}{body}end {sum:016x}\n")
    }

    /// Reads a state file's text, checking its header and checksum.
    ///
    /// # Errors
    ///
    /// What is wrong with it: no state file, torn, damaged, a line that does not parse.
    pub fn parse(text: &str) -> Result<State, String> {
        let Some(rest) = text.strip_prefix(STATE_MAGIC) else {
            return Err("not a transpo-c4 MPI state file (no header)".into());
        };
        let (body, end) = text
            .trim_end_matches('\n')
            .rsplit_once('\n')
            .ok_or("torn: no end line")?;
        let sum = end
            .strip_prefix("end ")
            .and_then(|s| u64::from_str_radix(s, 16).ok())
            .ok_or("torn: no end line")?;
        if checksum(&format!("{body}\n")) != sum {
            return Err("damaged: its checksum does not match".into());
        }
        let mut lines = body.lines();
        let config = rest.lines().next().unwrap_or_default().trim().to_string();
        lines.next();
        let mut state = State {
            config,
            ..State::default()
        };
        for (number, line) in lines.enumerate() {
            let bad = || format!("line {}: {line:?} does not parse", number + 2);
            if let Some(done) = line.strip_prefix("done ") {
                state.done.push(done.to_string());
            } else if let Some(current) = line.strip_prefix("line ") {
                let words: Vec<&str> = current.split(' ').collect();
                let [moves, "positions", positions, "micros", micros] = words[..] else {
                    return Err(bad());
                };
                let count = |word: &str| {
                    word.parse::<u64>()
                        .ok()
                        .filter(|&n| n <= COUNT_MAX)
                        .ok_or_else(bad)
                };
                state.current = Some(CurrentLine {
                    moves: moves.to_string(),
                    positions: count(positions)?,
                    micros: count(micros)?,
                    table: Vec::new(),
                    bounds: Vec::new(),
                });
            } else if let Some(entry) = line.strip_prefix("k ") {
                let words: Vec<&str> = entry.split(' ').collect();
                let (Some(current), [key, lo, hi]) = (state.current.as_mut(), &words[..]) else {
                    return Err(bad());
                };
                let key = u128::from_str_radix(key, 16).map_err(|_| bad())?;
                let (lo, hi): (i32, i32) = (
                    lo.parse().map_err(|_| bad())?,
                    hi.parse().map_err(|_| bad())?,
                );
                if lo > hi {
                    return Err(bad());
                }
                current.table.push((key, (lo, hi)));
            } else if let Some(hex) = line.strip_prefix("b ") {
                let Some(current) = state.current.as_mut() else {
                    return Err(bad());
                };
                if hex.is_empty() || hex.len() % 2 != 0 || hex.len() > 2 * BOUND_BYTES_A_LINE {
                    return Err(bad());
                }
                let digit = |c: u8| char::from(c).to_digit(16).ok_or_else(bad);
                for pair in hex.as_bytes().chunks_exact(2) {
                    // Two hex digits make a byte.
                    current
                        .bounds
                        .push((digit(pair[0])? * 16 + digit(pair[1])?) as u8);
                }
            } else {
                return Err(bad());
            }
        }
        Ok(state)
    }

    /// Checks what [`State::parse`] cannot without the board, for a board of `squares`
    /// squares: every score of a `done` line and every bound of a `k` line lies within the
    /// board's range, `-win_now_score(squares, 0)..=win_now_score(squares, 0)`, as the `b`
    /// records' scores must; a `done` line has its moves, at least one score (a number, or
    /// `-` for a full column) and its counts, each at most [`COUNT_MAX`]. (The bounds of a
    /// `k` line are also a range, low at most high: the parse checks that.)
    ///
    /// # Errors
    ///
    /// The first line that breaks a rule, counted as [`State::parse`] counts them.
    pub fn check(&self, squares: usize) -> Result<(), String> {
        let max = win_now_score(squares, 0);
        let in_range = |score: i32| (-max..=max).contains(&score);
        for (index, done) in self.done.iter().enumerate() {
            let bad = |why: &str| format!("line {}: {done:?}: {why}", index + 2);
            let words: Vec<&str> = done.split(' ').collect();
            let [_, scores @ .., positions, micros] = &words[..] else {
                return Err(bad("does not parse"));
            };
            if scores.is_empty() {
                return Err(bad("does not parse"));
            }
            for score in scores {
                match score.parse::<i32>() {
                    Ok(score) if in_range(score) => {}
                    Ok(_) => {
                        return Err(bad(&format!(
                            "a score outside the board's range {}..={max}",
                            -max
                        )));
                    }
                    Err(_) if *score == "-" => {}
                    Err(_) => return Err(bad("does not parse")),
                }
            }
            for count in [positions, micros] {
                if !count.parse::<u64>().is_ok_and(|n| n <= COUNT_MAX) {
                    return Err(bad("does not parse"));
                }
            }
        }
        if let Some(current) = &self.current {
            // Its `k` lines follow the `done` lines and the `line` line.
            let first = self.done.len() + 3;
            for (index, (key, (lo, hi))) in current.table.iter().enumerate() {
                if !(in_range(*lo) && in_range(*hi)) {
                    return Err(format!(
                        "line {}: \"k {key:x} {lo} {hi}\": a bound outside the board's range \
                         {}..={max}",
                        first + index,
                        -max
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A state file held by this run: its path, its lock, and the write under way on a thread
/// of its own ([`StateFile::write_behind`]).
#[derive(Debug)]
pub struct StateFile {
    /// The path as given, for messages.
    path: PathBuf,
    /// The lock, held until the run ends; its target, the path resolved, is where the file
    /// is read and written.
    lock: ReplacedFileLock,
    /// The write under way behind: the lock on the file it put at the target, once done.
    behind: Option<JoinHandle<Result<File, Failure>>>,
}

impl StateFile {
    /// Takes the state file at `path` for a solve configured as `config`
    /// ([`state_config`], which names the board): locks it, and reads what an earlier run
    /// left there (nothing if there is no file yet), checked against the board
    /// ([`State::check`]).
    ///
    /// # Errors
    ///
    /// Bad usage: a path that is not a regular file (FIFO, device, directory), a file over
    /// [`STATE_MAX`] bytes, torn, damaged, of another solve or with a score outside the
    /// board's range, a lock another run holds (under this name or another), or a directory
    /// where the file or its lock cannot be written. A failure while running if `config`
    /// names no board (a bug).
    pub fn open(path: &Path, config: &str) -> Result<(StateFile, State), Failure> {
        let name = path.display().to_string();
        let squares = board_squares(config).ok_or_else(|| {
            Failure::run(format!("--state {name}: {config:?} names no board (a bug)"))
        })?;
        let (mut lock, note) =
            ReplacedFileLock::take(path, &format!("--state {name}"), "another solve")?;
        if let Some(note) = note {
            eprintln!("{note}");
        }
        let state = match transpo_files::open_regular(lock.target()) {
            Ok(file) => {
                lock.hold_found(&file)?;
                read_capped(&file, STATE_MAX)
                    .and_then(|text| State::parse(&text))
                    .map_err(|e| Failure::usage(format!("--state {name}: {e}")))?
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => State {
                config: config.to_string(),
                ..State::default()
            },
            Err(e) => return Err(Failure::usage(format!("--state {name}: {e}"))),
        };
        if !same_solve(&state.config, config) {
            return Err(Failure::usage(format!(
                "--state {name} is the state of another solve ({}), not of this one ({config})",
                state.config
            )));
        }
        state
            .check(squares)
            .map_err(|e| Failure::usage(format!("--state {name}: {e}")))?;
        let state = State {
            config: config.to_string(),
            ..state
        };
        Ok((
            StateFile {
                path: path.to_path_buf(),
                lock,
                behind: None,
            },
            state,
        ))
    }

    /// The file's path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file with `state`, atomically: a kill at any moment leaves the last
    /// whole file. A write under way behind ([`StateFile::write_behind`]) ends first.
    ///
    /// # Errors
    ///
    /// Writing it failed, now or behind (a full disk, a path that went away).
    pub fn write(&mut self, state: &State) -> Result<(), Failure> {
        let behind = self.join_behind();
        let written = write_state(self.lock.target(), &self.path, state)?;
        self.lock.replaced(written);
        behind
    }

    /// Replaces the file with `state` as [`StateFile::write`] does, but on a thread of its
    /// own, so that the run goes on while a big file is written; nothing if the last such
    /// write is still under way (the next one will carry what this one would have). Whether
    /// it started one.
    ///
    /// # Errors
    ///
    /// The last write behind failed.
    pub fn write_behind(&mut self, state: State) -> Result<bool, Failure> {
        if self.behind.as_ref().is_some_and(|t| !t.is_finished()) {
            return Ok(false);
        }
        self.join_behind()?;
        let (target, path) = (self.lock.target().to_path_buf(), self.path.clone());
        self.behind = Some(std::thread::spawn(move || {
            write_state(&target, &path, &state)
        }));
        Ok(true)
    }

    /// Waits for the write under way behind, if any: its outcome. The file it wrote is the
    /// one the lock holds from then on.
    fn join_behind(&mut self) -> Result<(), Failure> {
        match self.behind.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(written)) => {
                self.lock.replaced(written?);
                Ok(())
            }
            Some(Err(_)) => Err(Failure::run(format!(
                "--state {}: the thread writing it panicked (a bug)",
                self.path.display()
            ))),
        }
    }
}

impl Drop for StateFile {
    /// Lets a write under way behind end before the lock goes.
    fn drop(&mut self) {
        let _ = self.join_behind();
    }
}

/// Replaces the file at `target` (the resolved path of `path`, which names it in messages)
/// with `state`, atomically: a handle holding the lock on the new file, taken before it was
/// renamed onto the target ([`ReplacedFileLock::lock_new`]).
fn write_state(target: &Path, path: &Path, state: &State) -> Result<File, Failure> {
    let text = state.to_text();
    let mut held = None;
    transpo_files::write_atomic(target, |mut file: &File| {
        file.write_all(text.as_bytes())?;
        held = Some(ReplacedFileLock::lock_new(file)?);
        Ok::<(), io::Error>(())
    })
    .map_err(|e| Failure::writing(format!("--state {}: {e}", path.display()), &e))?;
    // write_atomic returns Ok only once the closure has returned Ok, which set it.
    held.ok_or_else(|| Failure::run(format!("--state {}: no lock (a bug)", path.display())))
}

/// The text of a state file, refused past `cap` bytes (having read at most one more) or if
/// not UTF-8.
fn read_capped(file: impl Read, cap: u64) -> Result<String, String> {
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(format!("over {cap} bytes: not a state file"));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8: not a state file".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state file reads back as written, and a torn or damaged one is refused.
    #[test]
    fn the_state_file_round_trips() {
        let state = State {
            config: state_config("5x4", false, false),
            done: vec!["- 0 1234 56".into()],
            current: Some(CurrentLine {
                moves: "33".into(),
                positions: 99,
                micros: 7,
                table: vec![(0xabc, (-2, 3)), (7, (0, 0))],
                // Three lines of bounds, the last one short.
                bounds: (0..2500u32).map(|i| (i * 7 % 251) as u8).collect(),
            }),
        };
        let text = state.to_text();
        assert_eq!(text.lines().filter(|l| l.starts_with("b ")).count(), 3);
        assert_eq!(State::parse(&text), Ok(state.clone()));
        assert!(State::parse(&text[..text.len() - 5]).is_err());
        assert!(State::parse(&text.replace("-2 3", "-1 3")).is_err());
        assert!(State::parse("hello\n").is_err());
        // Bounds that are no hex bytes, even with a checksum that matches.
        let resummed = |body: &str| {
            let head = format!("{STATE_MAGIC} {}\n", state.config);
            let sum = checksum(&format!("{head}{body}"));
            format!("{head}{body}end {sum:016x}\n")
        };
        assert!(State::parse(&resummed("line 33 positions 1 micros 1\nb 0a\n")).is_ok());
        for bad in [
            "b 0a\n",
            "line 33 positions 1 micros 1\nb 0\n",
            "line 33 positions 1 micros 1\nb zz\n",
            "line 33 positions 1 micros 1\nb +1\n",
            "line 33 positions 1 micros 1\nb \n",
        ] {
            assert!(State::parse(&resummed(bad)).is_err(), "{bad:?}");
        }
    }

    /// A scratch directory of its own for the test `name`.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("transpo-c4-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    /// `text` (a state file's) with its lines changed by `edit` and its checksum computed
    /// again, as a person editing the file would.
    fn edited(text: &str, edit: impl Fn(&str) -> String) -> String {
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines.pop();
        let body: String = lines.iter().map(|l| edit(l) + "\n").collect();
        format!("{body}end {:016x}\n", checksum(&body))
    }

    /// A state file of a 9×4 solve killed in its second line: a line done, the top tree of
    /// the line in hand and bounds, as a run writes it.
    fn killed_9x4() -> State {
        State {
            config: state_config("9x4", false, false),
            done: vec!["- -2 1824663 95201".into()],
            current: Some(CurrentLine {
                moves: "5".into(),
                positions: 5_270_112,
                micros: 402_118,
                table: vec![
                    (0x1_0000_0010_0000, (-17, 2)),
                    (0x3_0000_0030_0040, (-2, -2)),
                    (0x1_0020_0010_0040, (-16, 17)),
                ],
                bounds: vec![0x5a; 36],
            }),
        }
    }

    /// A file whose bounds or scores were edited past the board's range, its checksum made
    /// to match, is refused where it is read; so is a range whose low end is above its high
    /// end, and counts that would overflow. Scores at the ends of the range are taken.
    #[test]
    fn scores_outside_the_board_are_refused() {
        let dir = scratch("range");
        let path = dir.join("state");
        let config = state_config("9x4", false, false);
        let text = killed_9x4().to_text();
        std::fs::write(&path, &text).expect("written");
        let (held, read) = StateFile::open(&path, &config).expect("a state as written");
        assert_eq!(read, killed_9x4());
        drop(held);
        let open = |text: &str| {
            std::fs::write(&path, text).expect("written");
            StateFile::open(&path, &config).map(|(_, state)| state)
        };
        // 9×4 scores lie in -18..=18.
        for (from, to) in [
            ("k 1000000100000 -17 2", "k 1000000100000 40 40"),
            ("k 1000000100000 -17 2", "k 1000000100000 -19 2"),
            ("k 1000000100000 -17 2", "k 1000000100000 -17 19"),
            ("k 1000000100000 -17 2", "k 1000000100000 -2147483648 2"),
            ("k 1000000100000 -17 2", "k 1000000100000 3 2"),
            ("- -2 1824663 95201", "- 40 1824663 95201"),
            ("- -2 1824663 95201", "- -19 1824663 95201"),
            ("- -2 1824663 95201", "- x 1824663 95201"),
            ("- -2 1824663 95201", "- 1824663 95201"),
            ("- -2 1824663 95201", "- -2 18446744073709551615 95201"),
            (
                "line 5 positions 5270112",
                "line 5 positions 18446744073709551615",
            ),
            ("micros 402118", "micros 18446744073709551615"),
        ] {
            let bad = edited(&text, |l| l.replace(from, to));
            assert_ne!(bad, text, "{to:?} edits nothing");
            let refused = open(&bad).expect_err(to);
            assert_eq!(refused.exit_code(), 2, "{to}: {refused:?}");
            assert!(refused.message().starts_with("--state "), "{refused:?}");
        }
        let refused = open(&edited(&text, |l| l.replace("-17 2", "40 40"))).unwrap_err();
        assert!(
            refused.message().contains(
                "line 4: \"k 1000000100000 40 40\": a bound outside the board's range -18..=18"
            ),
            "{refused:?}"
        );
        let refused = open(&edited(&text, |l| l.replace("- -2 ", "- 40 "))).unwrap_err();
        assert!(
            refused
                .message()
                .contains("a score outside the board's range -18..=18"),
            "{refused:?}"
        );
        // The ends of the range, and a full column's `-`, are scores a solve can give.
        let edge = edited(&text, |l| {
            l.replace("-17 2", "-18 18").replace("- -2 ", "- 18 ")
        });
        assert!(open(&edge).is_ok());
        let mut analyzed = killed_9x4();
        analyzed.config = state_config("9x4", false, true);
        analyzed.done = vec!["- -18 - 0 3 -1 0 18 - -2 1824663 95201".into()];
        std::fs::write(&path, analyzed.to_text()).expect("written");
        assert!(StateFile::open(&path, &analyzed.config).is_ok());
        // A smaller board has a smaller range: 5×4's is -10..=10.
        let small = state_config("5x4", false, false);
        let mut five = killed_9x4();
        five.config = small.clone();
        five.current = None;
        for (score, taken) in [(-10, true), (10, true), (11, false), (-11, false)] {
            five.done = vec![format!("- {score} 1 1")];
            std::fs::write(&path, five.to_text()).expect("written");
            assert_eq!(StateFile::open(&path, &small).is_ok(), taken, "{score}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    /// While a run holds its state file, a second run is refused under every name of it (a
    /// symbolic link, `./`, another path through `..`, a hard link); a run given a symbolic
    /// link reads and writes the file it points to and leaves the link a link, a dangling one
    /// included.
    #[test]
    fn the_file_is_held_under_every_name_and_a_link_is_written_through() {
        let dir = scratch("names");
        std::fs::create_dir(dir.join("sub")).expect("a directory");
        let config = state_config("5x4", false, false);
        let path = dir.join("state");
        let (mut held, state) = StateFile::open(&path, &config).expect("a new state");
        let first = State {
            done: vec!["- 0 1 2".into()],
            ..state
        };
        held.write(&first).expect("written");
        std::os::unix::fs::symlink("state", dir.join("link")).expect("a link");
        std::os::unix::fs::symlink("../link", dir.join("sub/link")).expect("a link to it");
        std::fs::hard_link(&path, dir.join("hard")).expect("a hard link");
        for name in [
            dir.join("link"),
            dir.join("sub/link"),
            dir.join("./state"),
            dir.join("sub/../state"),
            dir.join("hard"),
        ] {
            let refused = StateFile::open(&name, &config).expect_err("held");
            assert_eq!(refused.exit_code(), 2, "{}: {refused:?}", name.display());
            assert!(
                refused.message().contains("another solve holds it"),
                "{}: {refused:?}",
                name.display()
            );
        }
        drop(held);
        std::fs::remove_file(dir.join("hard")).expect("removed");

        let (mut through, state) =
            StateFile::open(&dir.join("sub/link"), &config).expect("free again");
        assert_eq!(state.done, first.done);
        let second = State {
            done: vec!["- 0 1 2".into(), "4 1 3 4".into()],
            ..state
        };
        through.write(&second).expect("written through");
        through
            .write_behind(second.clone())
            .expect("written behind");
        drop(through);
        for link in ["link", "sub/link"] {
            let meta = std::fs::symlink_metadata(dir.join(link)).expect("there");
            assert!(meta.file_type().is_symlink(), "{link} is a link still");
        }
        assert_eq!(
            State::parse(&std::fs::read_to_string(&path).expect("the file")),
            Ok(second)
        );
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("listed")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        // The refused run on the hard link left its companion, as every run leaves one.
        assert_eq!(names, ["hard.lock", "link", "state", "state.lock", "sub"]);

        // A dangling link: the file is made where it points.
        std::os::unix::fs::symlink("fresh", dir.join("new")).expect("a dangling link");
        let (mut made, _) = StateFile::open(&dir.join("new"), &config).expect("new");
        made.write(&first).expect("written");
        assert!(
            std::fs::symlink_metadata(dir.join("new"))
                .expect("there")
                .file_type()
                .is_symlink()
        );
        assert!(dir.join("fresh").is_file());
        assert!(StateFile::open(&dir.join("fresh"), &config).is_err());
        drop(made);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A FIFO is refused without waiting for a writer, a second run on the same file is
    /// refused while the first holds it, and a state of another configuration is refused.
    #[test]
    fn the_file_is_checked_and_held() {
        let dir = std::env::temp_dir().join(format!("transpo-c4-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let config = state_config("5x4", false, false);
        let path = dir.join("state");
        let (mut held, state) = StateFile::open(&path, &config).expect("a new state");
        assert_eq!(state.config, config);
        assert!(state.done.is_empty());
        held.write(&State {
            done: vec!["- 0 1 2".into()],
            ..state
        })
        .expect("written");
        let second = StateFile::open(&path, &config).unwrap_err();
        assert!(second.message().contains("another solve"), "{second:?}");
        drop(held);
        let (_, state) = StateFile::open(&path, &config).expect("the file again");
        assert_eq!(state.done, vec!["- 0 1 2".to_string()]);
        let other = StateFile::open(&path, &state_config("5x4", true, false)).unwrap_err();
        assert!(other.message().contains("another solve"), "{other:?}");

        let fifo = dir.join("fifo");
        transpo_testkit::mkfifo(&fifo);
        let refused = StateFile::open(&fifo, &config).unwrap_err();
        assert_eq!(refused.exit_code(), 2, "{refused:?}");
        let _ = std::fs::remove_dir_all(dir);
    }

    /// The leaf depth is no part of what a file is for: a file written before it was left
    /// out (`… leaf 12`) goes on, rewritten without it, while another board, strength or
    /// analysis is still refused.
    #[test]
    fn a_file_of_another_leaf_depth_goes_on() {
        let config = state_config("5x4", false, false);
        assert!(same_solve(&config, &config));
        assert!(same_solve(&format!("{config} leaf 12"), &config));
        assert!(same_solve(&format!("{config} leaf 15"), &config));
        assert!(!same_solve(&format!("{config} leaf x"), &config));
        assert!(!same_solve(
            &format!("{config} leaf 12"),
            &state_config("6x4", false, false)
        ));
        assert!(!same_solve(&config, &state_config("5x4", true, false)));
        assert!(!same_solve(&config, &state_config("5x4", false, true)));

        let dir =
            std::env::temp_dir().join(format!("transpo-c4-state-leaf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join("state");
        let old = State {
            config: format!("{config} leaf 12"),
            done: vec!["- 0 1 2".into()],
            current: None,
        };
        std::fs::write(&path, old.to_text()).expect("written");
        let (_, state) = StateFile::open(&path, &config).expect("an old file goes on");
        assert_eq!(state.config, config);
        assert_eq!(state.done, old.done);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// An endless or overlong file is refused at the cap, and a device is never read.
    #[test]
    fn an_endless_file_is_refused_at_the_cap() {
        assert!(read_capped(io::repeat(b'k'), 1000).is_err());
        assert_eq!(read_capped(&b"abc"[..], 3), Ok("abc".to_string()));
        assert!(read_capped(&b"abcd"[..], 3).is_err());
        assert!(read_capped(&[0xffu8][..], 3).is_err());
        let config = state_config("5x4", false, false);
        if Path::new("/dev/zero").exists() {
            let dir = std::env::temp_dir().join(format!("transpo-c4-zero-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("a scratch directory");
            let zero = dir.join("zero");
            std::os::unix::fs::symlink("/dev/zero", &zero).expect("a link");
            assert_eq!(
                StateFile::open(&zero, &config)
                    .map(|_| ())
                    .unwrap_err()
                    .exit_code(),
                2
            );
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
