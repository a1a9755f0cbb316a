//! The files of a study: the inputs a user names (position sets, test sets, openings), the
//! run's own CSVs (their rows are the `csv` module's, which reads them through here), the
//! whole files it writes (CSVs rewritten, reports), and the lock that keeps two runs out of
//! one output directory.
//!
//! The rules themselves are `transpo_files`'s; this module only turns them into the lab's
//! messages (`FILE:N: why`).

use crate::failure::Failure;
use std::{
    fs::File,
    io::{self, BufReader, BufWriter, Read, Write},
    path::Path,
};
use transpo_files::{Lines, TEXT_LINE_MAX, open_regular, open_text, write_atomic};

/// The most text read whole from one input or CSV: 256 MiB, far above any position set or
/// run, and a bound on what an endless pipe can make the lab hold.
pub const TEXT_MAX: usize = 256 << 20;

/// Reads a text input the user names (a regular file or a pipe; a device or directory is
/// refused). A line longer than [`TEXT_LINE_MAX`] or not UTF-8 is reported on standard error
/// as `FILE:N: why; skipped` and read as an empty line, so that line numbers stay those of
/// the file; more than [`TEXT_MAX`] bytes is an error.
pub fn read_input(path: &Path) -> Result<String, String> {
    let name = path.display();
    let file = open_text(path).map_err(|e| format!("{name}: {e}"))?;
    let mut text = String::new();
    for line in Lines::new(BufReader::new(file), TEXT_LINE_MAX) {
        let line = line.map_err(|e| format!("{name}: {e}"))?;
        match line.text {
            Ok(good) => text.push_str(&good),
            Err(bad) => eprintln!("{name}:{}: {bad}; skipped", line.number),
        }
        text.push('\n');
        if text.len() > TEXT_MAX {
            return Err(format!("{name}: more than {} MiB of text", TEXT_MAX >> 20));
        }
    }
    Ok(text)
}

/// Reads one of a run's own files (a CSV), `None` when it does not exist. Only a regular
/// file is read (a FIFO or device at its name is refused, not waited on), and at most
/// [`TEXT_MAX`] bytes of it. The bytes are handed back as they are: the CSV reader cuts a
/// torn last line off before it decodes the rest as UTF-8.
pub fn read_run_file(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let name = path.display();
    let file = match open_regular(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{name}: {e}")),
    };
    let mut bytes = Vec::new();
    file.take(TEXT_MAX as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    if bytes.len() > TEXT_MAX {
        return Err(format!("{name}: more than {} MiB", TEXT_MAX >> 20));
    }
    Ok(Some(bytes))
}

/// Replaces `path` by `text` atomically (`transpo_files::write_atomic`): a run killed while
/// writing, or a full disk, leaves the previous file whole.
pub fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    write_atomic(path, |file: &File| {
        let mut out = BufWriter::new(file);
        out.write_all(text.as_bytes())?;
        out.flush()
    })
    .map_err(|e: io::Error| format!("{}: {e}", path.display()))
}

/// Creates a run directory if it is missing and takes its lock
/// ([`transpo_cli::lock::lock_exclusive`] on the directory itself, released when the returned
/// handle is dropped or the process dies), so that a second run into the same directory —
/// which would rewrite the CSV under the first — stops with a message: bad usage (status 2:
/// wait for it, or use another `--out`). A directory that cannot be made or opened is a
/// failure while running; on a file system without locks the run goes on with a note.
pub fn lock_run(dir: &Path) -> Result<File, Failure> {
    let name = dir.display().to_string();
    std::fs::create_dir_all(dir).map_err(|e| Failure::Run(format!("{name}: {e}")))?;
    let handle = File::open(dir).map_err(|e| Failure::Run(format!("{name}: {e}")))?;
    let holder = "another run (wait for it, or use another --out)";
    if let Some(note) = transpo_cli::lock::lock_exclusive(&handle, &name, holder)? {
        eprintln!("{note}");
    }
    Ok(handle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("transpo-lab-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    }

    #[test]
    fn bad_lines_are_skipped_and_numbers_kept() {
        let dir = scratch("input");
        let path = dir.join("set.txt");
        let mut bytes = b"a\n\xff\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'4', TEXT_LINE_MAX + 1));
        bytes.extend(b"\nb\n");
        std::fs::write(&path, bytes).expect("write");
        assert_eq!(read_input(&path).expect("read"), "a\n\n\nb\n");
    }

    #[test]
    fn devices_and_fifos_are_refused() {
        assert!(
            read_input(Path::new("/dev/zero"))
                .expect_err("a device")
                .contains("device")
        );
        let dir = scratch("fifo");
        let fifo = dir.join("observations.csv");
        transpo_testkit::mkfifo(&fifo);
        assert!(read_run_file(&fifo).expect_err("a FIFO").contains("FIFO"));
        assert_eq!(read_run_file(&dir.join("missing.csv")), Ok(None));
    }

    #[test]
    fn a_second_lock_on_a_run_is_refused_until_the_first_is_dropped() {
        let dir = scratch("lock");
        let first = lock_run(&dir).expect("the first run locks");
        assert!(
            lock_run(&dir)
                .expect_err("the second is refused")
                .to_string()
                .contains("another run")
        );
        drop(first);
        assert!(lock_run(&dir).is_ok());
    }

    #[test]
    fn a_whole_file_replaces_a_link_and_spares_its_target() {
        let dir = scratch("whole");
        std::fs::write(dir.join("victim"), "precious").expect("write");
        std::os::unix::fs::symlink(dir.join("victim"), dir.join("report.md.tmp")).expect("link");
        write_whole(&dir.join("report.md"), "# report\n").expect("write");
        assert_eq!(
            std::fs::read_to_string(dir.join("report.md")).expect("read"),
            "# report\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("victim")).expect("read"),
            "precious"
        );
    }
}
