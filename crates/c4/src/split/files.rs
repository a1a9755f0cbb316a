//! The split's files on disk, taken as a hostile user may hand them over: the split and the
//! rounds' lists, read only from a regular file (a FIFO or device is refused at once) and
//! written atomically, never over another split's or another round's; a shard's results
//! file, only a regular file of its own (no link, FIFO or device); and the rounds and
//! results files of a directory.

use super::SplitError;
use super::{LIST_FILE, Round, Split, board_of, parse_results_file_name};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use transpo_connect4::board::Board;
use transpo_connect4::position::Bitboard;
use transpo_files::{Line, Lines, TEXT_LINE_MAX};

/// The board of the split list at `path`, as its header names it (the commands that read a
/// split solve its board). Bad input if the file cannot be read or its header names none.
pub fn list_board(path: &Path) -> Result<Board, SplitError> {
    let named = |e: &dyn std::fmt::Display| SplitError::input(format!("{}: {e}", path.display()));
    let file = transpo_files::open_regular(path).map_err(|e| named(&e))?;
    let header = match Lines::new(BufReader::new(file), TEXT_LINE_MAX).next() {
        None => String::new(),
        Some(Err(e)) => return Err(named(&e)),
        Some(Ok(Line { text: Ok(text), .. })) => text,
        Some(Ok(Line {
            number,
            text: Err(bad),
        })) => {
            return Err(SplitError::input(format!(
                "{}:{number}: {bad}",
                path.display()
            )));
        }
    };
    board_of(&header).map_err(|e| named(&e))
}

impl<const W: usize, const H: usize, B: Bitboard> Split<W, H, B> {
    /// The split in `dir` ([`LIST_FILE`], a regular file), for the board `W`×`H`. Bad input
    /// if it cannot be read or is not a split of this board.
    pub fn load(dir: &Path) -> Result<Self, SplitError> {
        load(&dir.join(LIST_FILE), Split::read)
    }

    /// Writes the split to `dir`/[`LIST_FILE`], `dir` made if missing, atomically (a link at
    /// the name is replaced, not written through); returns the file's path. The same split
    /// there already is left as it is (the same split run again); another split's is
    /// refused, as bad usage.
    pub fn write_in(&self, dir: &Path) -> Result<PathBuf, SplitError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| SplitError::writing(format!("{}: {e}", dir.display()), &e))?;
        let path = dir.join(LIST_FILE);
        write_once(
            &path,
            &self.to_text(),
            "holds another split: remove it or choose another --out",
        )?;
        Ok(path)
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Round<W, H, B> {
    /// The file of round `number` in a split directory: `round-K.txt`.
    pub fn file_name(number: u32) -> String {
        format!("round-{number}.txt")
    }

    /// Round `number`'s list in `dir`, which must belong to `split`. Bad input if it cannot
    /// be read, is not a round of this board, or belongs to another split.
    pub fn load(dir: &Path, number: u32, split: &Split<W, H, B>) -> Result<Self, SplitError> {
        let path = dir.join(Round::<W, H, B>::file_name(number));
        let round = load(&path, Round::read)?;
        if round.number != number || round.split != split.checksum() {
            return Err(SplitError::input(format!(
                "{}: round {} of split {:016x}, not round {number} of this split ({:016x})",
                path.display(),
                round.number,
                round.split,
                split.checksum()
            )));
        }
        Ok(round)
    }

    /// Writes the round's list into `dir` atomically; returns its path. The same list there
    /// already is left as it is (a merge run again); another is refused, as bad usage.
    pub fn write_in(&self, dir: &Path) -> Result<PathBuf, SplitError> {
        let path = dir.join(Round::<W, H, B>::file_name(self.number));
        write_once(
            &path,
            &self.to_text(),
            "holds another list of this round: the directory was changed by hand",
        )?;
        Ok(path)
    }
}

/// Reads the listing at `path` (a regular file) with `read`; bad input if it cannot.
fn load<T>(
    path: &Path,
    read: impl FnOnce(BufReader<File>) -> Result<T, String>,
) -> Result<T, SplitError> {
    let named = |e: &dyn std::fmt::Display| SplitError::input(format!("{}: {e}", path.display()));
    let file = transpo_files::open_regular(path).map_err(|e| named(&e))?;
    read(BufReader::new(file)).map_err(|e| named(&e))
}

/// Writes `text` to `path` atomically unless the file there holds it already; a file there
/// with other contents is refused (bad usage) with `other`.
fn write_once(path: &Path, text: &str, other: &str) -> Result<(), SplitError> {
    let named = |e: io::Error| SplitError::input(format!("{}: {e}", path.display()));
    match transpo_files::open_regular(path) {
        Ok(file) if holds(&file, text.as_bytes()).map_err(named)? => Ok(()),
        Ok(_) => Err(SplitError::input(format!("{} {other}", path.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            transpo_files::write_atomic(path, |file| {
                let mut writer = io::BufWriter::new(file);
                writer.write_all(text.as_bytes())?;
                writer.flush()
            })
            .map_err(|e| SplitError::writing(format!("{}: {e}", path.display()), &e))
        }
        Err(e) => Err(named(e)),
    }
}

/// The number of the last round whose list is in `dir` (`round-K.txt`, every round from 1 to
/// K there), or bad input if there is none or one is missing.
pub fn current_round(dir: &Path) -> Result<u32, SplitError> {
    let mut numbers: Vec<u32> = std::fs::read_dir(dir)
        .map_err(|e| SplitError::input(format!("{}: {e}", dir.display())))?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str()?;
            name.strip_prefix("round-")?
                .strip_suffix(".txt")?
                .parse()
                .ok()
        })
        .collect();
    numbers.sort_unstable();
    if numbers.is_empty() {
        return Err(SplitError::input(format!(
            "{}: no round-1.txt: not a split directory, or split stopped before it wrote round 1",
            dir.display()
        )));
    }
    for (i, &n) in numbers.iter().enumerate() {
        if n as usize != i + 1 {
            return Err(SplitError::input(format!(
                "{}: round-{}.txt is missing (round {n} is there)",
                dir.display(),
                i + 1
            )));
        }
    }
    Ok(numbers.len() as u32)
}

/// Whether `file` (a regular file) holds exactly `bytes`: it is read only when its length is
/// theirs, and no further.
fn holds(file: &File, bytes: &[u8]) -> io::Result<bool> {
    if file.metadata()?.len() != bytes.len() as u64 {
        return Ok(false);
    }
    let mut text = Vec::with_capacity(bytes.len());
    file.take(bytes.len() as u64 + 1).read_to_end(&mut text)?;
    Ok(text == bytes)
}

/// Every `round-*-results-*-of-*.txt` in `dir`, sorted: the files `merge` unites when given
/// none.
pub fn results_files(dir: &Path) -> Result<Vec<PathBuf>, SplitError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| SplitError::input(format!("{}: {e}", dir.display())))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| parse_results_file_name(n).is_some())
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Opens a shard's results file `path` to read it and append to it, made if missing. Only a
/// regular file is accepted: a symbolic link at `path` is refused (so that results, and the
/// cut a restart may make, never land in another file), and so is a FIFO or device, at once
/// (all with [`io::ErrorKind::InvalidInput`]).
pub(super) fn open_results(path: &Path) -> io::Result<File> {
    use std::io::{Error, ErrorKind};
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO is not waited on (it is refused below); it changes nothing for
        // a regular file.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return Error::new(
                ErrorKind::InvalidInput,
                "a symbolic link: solve-list writes results only into a file of its own",
            );
        }
        e
    })?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        #[cfg(unix)]
        let what = {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_fifo() {
                "a FIFO (named pipe)"
            } else if kind.is_char_device() || kind.is_block_device() {
                "a device"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "not a regular file"
            }
        };
        #[cfg(not(unix))]
        let what = "not a regular file";
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{what}: a results file must be a regular file"),
        ));
    }
    Ok(file)
}
