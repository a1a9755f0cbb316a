//! The manager's state file (`--state FILE`): what a long solve has done, so that a solve
//! killed at any moment and started again goes on where the last write left it, with the
//! same or another number of ranks.
//!
//! The file is taken as a hostile user may hand it over, like books and table files: read
//! only if it is a regular file (a FIFO or device is refused at once, never read), at most
//! [`STATE_MAX`] bytes, checked whole (header, checksum). A run holds a lock beside it
//! (`FILE.lock`) for as long as it runs, so a second run on the same file is refused instead
//! of losing the first one's lines. The file is replaced atomically, at most every few
//! seconds (the caller's interval) rather than after every line, so a run of many short
//! lines costs time in proportion to its length; during a line, on a thread of its own, so
//! that the solve goes on while it is written.
//!
//! Besides the top tree of the line in hand, the file keeps the far bounds its workers
//! proved ([`crate::cluster::sharing::KeptBounds`]): a killed solve's workers' tables die with it,
//! and these bounds are what spares a resumed solve most of their search again.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write as _};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use transpo_cli::Failure;

/// The most bytes a state file may have: far more than the top tree of any board the
/// manager keeps (7×6 with jobs 8 stones deep: under a million entries, about 30 bytes each).
pub const STATE_MAX: u64 = 1 << 30;

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
                state.current = Some(CurrentLine {
                    moves: moves.to_string(),
                    positions: positions.parse().map_err(|_| bad())?,
                    micros: micros.parse().map_err(|_| bad())?,
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
}

/// A state file held by this run: its path, the lock beside it, and the write under way on
/// a thread of its own ([`StateFile::write_behind`]).
#[derive(Debug)]
pub struct StateFile {
    path: PathBuf,
    /// The lock (`FILE.lock`), held until the run ends.
    _lock: File,
    behind: Option<JoinHandle<Result<(), Failure>>>,
}

impl StateFile {
    /// Takes the state file at `path` for a solve configured as `config`
    /// ([`state_config`]): locks it, and reads what an earlier run left there (nothing if
    /// there is no file yet).
    ///
    /// # Errors
    ///
    /// Bad usage: a path that is not a regular file (FIFO, device, directory), a file over
    /// [`STATE_MAX`] bytes, torn, damaged or of another solve, a lock another run holds, or
    /// a directory where the file or its lock cannot be written.
    pub fn open(path: &Path, config: &str) -> Result<(StateFile, State), Failure> {
        let name = path.display().to_string();
        let lock_path = PathBuf::from(format!("{name}.lock"));
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Failure::writing(format!("--state {}: {e}", lock_path.display()), &e))?;
        if let Some(note) =
            transpo_cli::lock::lock_exclusive(&lock, &format!("--state {name}"), "another solve")?
        {
            eprintln!("{note}");
        }
        let state = match transpo_files::open_regular(path) {
            Ok(file) => read_capped(file, STATE_MAX)
                .and_then(|text| State::parse(&text))
                .map_err(|e| Failure::usage(format!("--state {name}: {e}")))?,
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
        let state = State {
            config: config.to_string(),
            ..state
        };
        Ok((
            StateFile {
                path: path.to_path_buf(),
                _lock: lock,
                behind: None,
            },
            state,
        ))
    }

    /// The file's path.
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
        write_state(&self.path, state).and(behind)
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
        let path = self.path.clone();
        self.behind = Some(std::thread::spawn(move || write_state(&path, &state)));
        Ok(true)
    }

    /// Waits for the write under way behind, if any: its outcome.
    fn join_behind(&mut self) -> Result<(), Failure> {
        match self.behind.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(written)) => written,
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

/// Replaces the file at `path` with `state`, atomically.
fn write_state(path: &Path, state: &State) -> Result<(), Failure> {
    let text = state.to_text();
    transpo_files::write_atomic(path, |mut file: &File| file.write_all(text.as_bytes()))
        .map_err(|e| Failure::writing(format!("--state {}: {e}", path.display()), &e))
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
        let c_path = std::ffi::CString::new(fifo.to_str().expect("UTF-8")).expect("no NUL");
        // SAFETY: mkfifo(3) with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
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
