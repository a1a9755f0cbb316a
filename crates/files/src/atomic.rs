//! Replacing a file a user keeps so that it is always either the old file or the new one.
//!
//! The new contents go to a temporary file created beside the target — same directory, so
//! the rename cannot cross file systems — under a fresh name (`.NAME.PID-N.tmp`) with
//! `O_CREAT | O_EXCL`, which fails rather than follow a link or reuse a file someone left
//! there. The file is synced, renamed over the target (replacing a link at the target, never
//! writing through it), and the directory synced, so the new name survives a crash of the
//! machine. On any failure the temporary file is removed and the target is untouched.

use std::{
    ffi::OsString,
    fs::{File, OpenOptions},
    io,
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

/// Tries at fresh temporary names before giving up (another process holding each name).
const ATTEMPTS: u32 = 64;

/// The number in the next temporary name this process tries.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` by what `write` writes into the file it is given, atomically: until
/// `write` has returned `Ok` and the data is synced, `path` keeps its old contents (or stays
/// absent). `write` should buffer its own writes (wrap the `&File` in a `BufWriter`) and
/// flush before returning.
///
/// # Errors
///
/// `write`'s error, or an I/O error (converted with `From`) when the temporary file cannot be
/// created, synced or renamed, or `path` names a directory, a FIFO, a socket or a device
/// (even through a link), or has no file name. The target
/// is then untouched and no temporary file is left behind.
pub fn write_atomic<E: From<io::Error>>(
    path: impl AsRef<Path>,
    write: impl FnOnce(&File) -> Result<(), E>,
) -> Result<(), E> {
    let path = path.as_ref();
    check_replaceable(path)?;
    let (tmp, file) = create_temporary(path)?;
    let written = write(&file).and_then(|()| {
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)?;
        Ok(())
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    sync_directory(path)?;
    Ok(())
}

/// Whether [`write_atomic`] may replace `path`: a new name, a regular file, or a link to one
/// (the link is replaced, not followed). Renaming over a FIFO, socket or device (`/dev/null`)
/// would replace it, and a directory cannot be replaced; both are refused. A program that
/// works long before it writes checks this first, so it does not do the work in vain.
///
/// # Errors
///
/// [`io::ErrorKind::IsADirectory`] for a directory, [`io::ErrorKind::InvalidInput`] for a
/// FIFO, socket or device.
pub fn check_replaceable(path: impl AsRef<Path>) -> io::Result<()> {
    let Ok(metadata) = std::fs::metadata(path) else {
        return Ok(());
    };
    if metadata.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "a directory, not a regular file",
        ));
    }
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a FIFO, socket or device, not a regular file: only a regular file or a new name \
             is replaced",
        ));
    }
    Ok(())
}

/// A new file beside `path`, under a name nobody has used.
fn create_temporary(path: &Path) -> io::Result<(PathBuf, File)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let mut last = None;
    for _ in 0..ATTEMPTS {
        let mut tmp_name = OsString::from(".");
        tmp_name.push(name);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        tmp_name.push(format!(".{}-{n}.tmp", std::process::id()));
        let tmp = path.with_file_name(tmp_name);
        // create_new is O_CREAT | O_EXCL: it fails on any existing name, a dangling link
        // included, so the write can never land in someone else's file.
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Syncs the directory holding `path`, so that the rename into it is durable (Unix; elsewhere
/// the rename is left to the file system).
fn sync_directory(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "transpo-files-atomic-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn write_text(text: &'static str) -> impl FnOnce(&File) -> io::Result<()> {
        move |mut file| file.write_all(text.as_bytes())
    }

    #[test]
    fn a_new_file_is_written_and_nothing_else_is_left() {
        let dir = scratch("new");
        write_atomic(dir.join("book"), write_text("one")).expect("write");
        write_atomic(dir.join("book"), write_text("two")).expect("rewrite");
        assert_eq!(
            std::fs::read_to_string(dir.join("book")).expect("read"),
            "two"
        );
        assert_eq!(entries(&dir), ["book"]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = scratch("fail");
        std::fs::write(dir.join("book"), "good").expect("write");
        let failed: io::Result<()> = write_atomic(dir.join("book"), |mut file: &File| {
            file.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("book")).expect("read"),
            "good"
        );
        assert_eq!(entries(&dir), ["book"]);
    }

    #[test]
    fn a_directory_target_is_refused_and_leaves_nothing() {
        let dir = scratch("dir");
        std::fs::create_dir(dir.join("sub")).expect("mkdir");
        assert!(write_atomic(dir.join("sub"), write_text("x")).is_err());
        assert_eq!(entries(&dir), ["sub"]);
        assert!(write_atomic(&dir, write_text("x")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn planted_links_and_tmp_files_are_never_written_through() {
        let dir = scratch("links");
        std::fs::write(dir.join("victim"), "precious").expect("write");
        // The old scheme's name, a link to the victim, and a file the user keeps under it.
        std::os::unix::fs::symlink(dir.join("victim"), dir.join("x.tmp")).expect("symlink");
        std::fs::write(dir.join("notes.tmp"), "my notes").expect("write");
        // A link at the target itself is replaced, not followed.
        std::os::unix::fs::symlink(dir.join("victim"), dir.join("y")).expect("symlink");
        for name in ["x", "notes", "y"] {
            write_atomic(dir.join(name), write_text("table")).expect("write");
            assert_eq!(
                std::fs::read_to_string(dir.join(name)).expect("read"),
                "table"
            );
            assert!(
                !std::fs::symlink_metadata(dir.join(name))
                    .expect("stat")
                    .is_symlink()
            );
        }
        assert_eq!(
            std::fs::read_to_string(dir.join("victim")).expect("read"),
            "precious"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.tmp")).expect("read"),
            "my notes"
        );
        assert_eq!(
            entries(&dir),
            ["notes", "notes.tmp", "victim", "x", "x.tmp", "y"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_not_replaced() {
        let dir = scratch("special");
        let fifo = dir.join("fifo");
        transpo_testkit::mkfifo(&fifo);
        std::os::unix::fs::symlink("/dev/null", dir.join("null")).expect("symlink");
        for target in [fifo.as_path(), &dir.join("null"), Path::new("/dev/null")] {
            let error = write_atomic(target, write_text("x")).expect_err("refused");
            assert_eq!(
                error.kind(),
                io::ErrorKind::InvalidInput,
                "{}",
                target.display()
            );
        }
        assert_eq!(entries(&dir), ["fifo", "null"]);
        assert!(
            std::fs::symlink_metadata(&fifo)
                .expect("stat")
                .file_type()
                .is_fifo()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_the_temporary_name_is_skipped() {
        let dir = scratch("race");
        std::fs::write(dir.join("victim"), "precious").expect("write");
        // Plant links at the next few temporary names this process would try.
        let next = COUNTER.load(Ordering::Relaxed);
        for n in next..next + u64::from(ATTEMPTS / 2) {
            let name = format!(".t.{}-{n}.tmp", std::process::id());
            std::os::unix::fs::symlink(dir.join("victim"), dir.join(name)).expect("symlink");
        }
        write_atomic(dir.join("t"), write_text("table")).expect("write");
        assert_eq!(
            std::fs::read_to_string(dir.join("victim")).expect("read"),
            "precious"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("t")).expect("read"),
            "table"
        );
    }
}
