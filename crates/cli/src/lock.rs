//! The lock a run takes on what it writes (a results file, a run directory, a state file), so
//! that a second run of the same work is refused instead of interleaving its lines with the
//! first's.
//!
//! The lock is advisory (`flock`), held until the handle is dropped or the process dies, so a
//! run killed by a scheduler never leaves a stale lock behind. Some file systems (NFS setups)
//! have no locks: the run then goes on with a note, as it would have before locks existed.
//!
//! The rule: what is locked is the file, never the text of the path it was named by. Every
//! name of one file (`s`, `./s`, `dir/../s`, its absolute path, a symbolic link to it, a hard
//! link) takes the same lock, so a second run given any of them is refused.
//!
//! - A file a run changes in place (a results file it appends to) or a directory is locked
//!   itself ([`lock_exclusive`] on its handle): an `flock` belongs to the file, whatever name
//!   opened it.
//! - A file a run replaces whole, by renaming a new file over it (a state file), cannot be
//!   locked that way alone: the lock would stay with the old file at the first replace, and
//!   the name would hold a file nobody locks. Its lock ([`ReplacedFileLock`]) is a companion
//!   file, `TARGET.lock`, named from the file's resolved path ([`resolve`]: symbolic links
//!   followed, `.`, `..` and the working directory taken out), which every path to the file
//!   shares. A hard link is a name of its own, so the run also locks the file it found at the
//!   target, and each file it puts there before the rename gives it the name: a run given a
//!   hard link to the file in place is refused too. (A hard link to a file the run has since
//!   replaced names a file of its own, the old contents, and is not refused.) Such a run reads
//!   and writes the resolved path, so a symbolic link is written through, never replaced by a
//!   file of the run's own.

use crate::Failure;
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// The most symbolic links [`resolve`] follows, as Linux's `open(2)` does (`ELOOP` past it).
const MAX_LINKS: usize = 40;

/// Takes the exclusive lock on `file`, which the user knows as `name`. Another holder is bad
/// usage (status 2: wait for it, or choose other work; `holder` says who that is, e.g.
/// "another solve-list"). A file system without locks gives `Ok(Some(note))`: go on, and show
/// the note.
pub fn lock_exclusive(file: &File, name: &str, holder: &str) -> Result<Option<String>, Failure> {
    match file.try_lock() {
        Ok(()) => Ok(None),
        Err(TryLockError::WouldBlock) => Err(Failure::usage(format!(
            "{name}: {holder} holds it (lock); not started"
        ))),
        Err(TryLockError::Error(e)) => Ok(Some(format!(
            "{name}: cannot lock it ({e}); going on: make sure no other run writes it"
        ))),
    }
}

/// The path of the file `path` names, as the module's rule keys a lock on it: symbolic links
/// followed to the name they end at (which need not exist yet: a new file, a dangling link's
/// target), in its directory made absolute and canonical. Two paths to one file (`s`, `./s`,
/// `dir/../s`, `/abs/s`, a link to `s`, a link to that link) resolve alike; a hard link does
/// not (it is a name of its own).
///
/// # Errors
///
/// Those of reading a link or canonicalizing the directory (a missing directory, one that
/// cannot be searched); more than 40 links in a row; a path that names no file (`.`, `..`,
/// `/`).
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&path)?;
                // A relative link is relative to the directory holding it; `join` keeps an
                // absolute one as it is.
                path = match path.parent() {
                    Some(dir) => dir.join(to),
                    None => to,
                };
            }
            Ok(_) => return in_canonical_directory(&path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return in_canonical_directory(&path);
            }
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("more than {MAX_LINKS} symbolic links in a row"),
    ))
}

/// `path`'s file name in its directory's canonical path.
fn in_canonical_directory(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    Ok(std::fs::canonicalize(dir)?.join(name))
}

/// A run's lock on a file it replaces whole by renaming a new file over it (a state file),
/// as the module's rule says: the companion `TARGET.lock`, held for as long as this lives,
/// and the lock on the file at the target now. The run reads and writes
/// [`ReplacedFileLock::target`], the resolved path, not the path it was given.
#[derive(Debug)]
pub struct ReplacedFileLock {
    /// The resolved path ([`resolve`]).
    target: PathBuf,
    /// The name the user knows the file by, for messages.
    name: String,
    /// Who another holder is, for messages.
    holder: String,
    /// `TARGET.lock`, locked.
    _companion: File,
    /// A handle holding the lock on the file at the target now (`None`: no file there yet,
    /// or the file system has no locks).
    current: Option<File>,
}

impl ReplacedFileLock {
    /// Takes the lock on the file `path` names, which the user knows as `name` (say
    /// `--state s`): resolves the path and locks the companion `TARGET.lock`, made if missing.
    /// `holder` says who another holder is, as for [`lock_exclusive`]. A file system without
    /// locks gives a note beside the lock: go on, and show it. The file itself, if there is
    /// one, is the caller's to open and hand to [`ReplacedFileLock::hold_found`].
    ///
    /// # Errors
    ///
    /// Bad usage when another run holds the lock or the target is there and not a regular
    /// file (a directory, a FIFO, a device: no lock file is made beside it then); else what
    /// [`resolve`] or making the lock file fails with ([`Failure::writing`]).
    pub fn take(
        path: &Path,
        name: &str,
        holder: &str,
    ) -> Result<(ReplacedFileLock, Option<String>), Failure> {
        let target = resolve(path).map_err(|e| Failure::writing(format!("{name}: {e}"), &e))?;
        if let Ok(meta) = std::fs::metadata(&target)
            && !meta.is_file()
        {
            return Err(Failure::usage(format!(
                "{name}: {}, not a regular file",
                what_is(&meta.file_type())
            )));
        }
        let mut lock_name = target.clone().into_os_string();
        lock_name.push(".lock");
        let lock_path = PathBuf::from(lock_name);
        let companion = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Failure::writing(format!("{name}: {}: {e}", lock_path.display()), &e))?;
        let note = lock_exclusive(&companion, name, holder)?;
        let lock = ReplacedFileLock {
            target,
            name: name.to_string(),
            holder: holder.to_string(),
            _companion: companion,
            current: None,
        };
        Ok((lock, note))
    }

    /// The resolved path: where the file is read and written.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Locks `file`, the file found at the target (opened by the caller to read it), for as
    /// long as it stays there.
    ///
    /// # Errors
    ///
    /// Bad usage when another run holds it: a run that reached it by another name, a hard
    /// link. A failure while running when the handle cannot be duplicated (no descriptors
    /// left).
    pub fn hold_found(&mut self, file: &File) -> Result<(), Failure> {
        let held = file
            .try_clone()
            .map_err(|e| Failure::run(format!("{}: {e}", self.name)))?;
        match held.try_lock() {
            Ok(()) => {
                self.current = Some(held);
                Ok(())
            }
            Err(TryLockError::WouldBlock) => Err(Failure::usage(format!(
                "{}: {} holds it under another name, a hard link (lock); not started",
                self.name, self.holder
            ))),
            // No locks on this file system: the companion's note said so.
            Err(TryLockError::Error(_)) => Ok(()),
        }
    }

    /// A handle holding the lock on `file`, a new file the run is about to rename onto the
    /// target: taken before the rename, so that the file is never at the target unlocked.
    /// Hand it to [`ReplacedFileLock::replaced`] once the rename is done.
    ///
    /// # Errors
    ///
    /// The handle cannot be duplicated (no descriptors left).
    pub fn lock_new(file: &File) -> io::Result<File> {
        let held = file.try_clone()?;
        // A file no one else has opened yet: no one holds its lock. A file system without
        // locks leaves it unlocked, as it left the companion.
        let _ = held.try_lock();
        Ok(held)
    }

    /// Takes `held` ([`ReplacedFileLock::lock_new`]) as the lock on the file now at the
    /// target, and lets the replaced file's go: that file has no name here any more (a hard
    /// link to it names a file of its own now).
    pub fn replaced(&mut self, held: File) {
        self.current = Some(held);
    }
}

/// What a file that is not a regular one is, in words.
fn what_is(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "something else"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory of its own for the test `name`.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("transpo-cli-lock-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let path = std::env::temp_dir().join(format!("transpo-cli-lock-{}", std::process::id()));
        let first = File::create(&path).expect("a scratch file");
        assert_eq!(lock_exclusive(&first, "f", "another run"), Ok(None));
        let second = File::open(&path).expect("the same file");
        let refused = lock_exclusive(&second, "f", "another run").unwrap_err();
        assert_eq!(
            refused,
            Failure::usage("f: another run holds it (lock); not started")
        );
        drop(first);
        assert_eq!(lock_exclusive(&second, "f", "another run"), Ok(None));
        let _ = std::fs::remove_file(path);
    }

    /// Every path to one file resolves alike, a link's target whether or not it exists yet;
    /// a hard link resolves to its own name; a loop of links and a path of no file are
    /// errors.
    #[cfg(unix)]
    #[test]
    fn every_path_to_a_file_resolves_alike() {
        use std::os::unix::fs::symlink;
        let dir = scratch("resolve");
        let real = std::fs::canonicalize(&dir).expect("canonical").join("s");
        std::fs::create_dir(dir.join("sub")).expect("a directory");
        symlink("s", dir.join("link")).expect("a link");
        symlink("link", dir.join("chain")).expect("a link to a link");
        symlink("../s", dir.join("sub/up")).expect("a relative link from below");
        symlink(&real, dir.join("absolute")).expect("an absolute link");
        symlink(&dir, dir.join("dirlink")).expect("a link to the directory");
        // The file does not exist yet: a new file's path, a dangling link's target.
        for path in [
            dir.join("s"),
            dir.join("./s"),
            dir.join("sub/../s"),
            dir.join("link"),
            dir.join("chain"),
            dir.join("sub/up"),
            dir.join("absolute"),
            dir.join("dirlink/s"),
            dir.join("dirlink/link"),
        ] {
            assert_eq!(
                resolve(&path).expect("resolved"),
                real,
                "{}",
                path.display()
            );
        }
        std::fs::write(&real, "x").expect("the file");
        assert_eq!(resolve(&dir.join("chain")).expect("resolved"), real);
        std::fs::hard_link(&real, dir.join("hard")).expect("a hard link");
        assert_eq!(
            resolve(&dir.join("hard")).expect("resolved"),
            real.with_file_name("hard")
        );
        symlink("loop", dir.join("loop")).expect("a loop");
        assert!(resolve(&dir.join("loop")).is_err());
        assert!(resolve(Path::new("/")).is_err());
        assert!(resolve(&dir.join("missing/s")).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }

    /// While one run holds a replaced file, a second is refused under any name of it: the
    /// path, `./`, a symbolic link, a hard link to the file found there and one to a file
    /// written since; a file at the target that is not a regular one is refused without a
    /// lock file beside it.
    #[cfg(unix)]
    #[test]
    fn a_replaced_file_is_locked_under_every_name() {
        let dir = scratch("replaced");
        let path = dir.join("s");
        std::fs::write(&path, "old").expect("the file");
        std::fs::hard_link(&path, dir.join("hard")).expect("a hard link");
        std::os::unix::fs::symlink("s", dir.join("link")).expect("a link");
        let (mut first, note) = ReplacedFileLock::take(&path, "s", "another run").expect("free");
        assert_eq!(note, None);
        assert_eq!(
            first.target(),
            std::fs::canonicalize(&path).expect("canonical")
        );
        first
            .hold_found(&File::open(first.target()).expect("open"))
            .expect("not held");
        let second = |name: &Path| {
            let (mut lock, _) = ReplacedFileLock::take(name, "t", "another run")?;
            let file = File::open(lock.target()).expect("open");
            lock.hold_found(&file).map(|()| lock)
        };
        for name in [
            path.clone(),
            dir.join("./s"),
            dir.join("link"),
            dir.join("hard"),
        ] {
            let refused = second(&name).expect_err("held");
            assert_eq!(refused.exit_code(), 2, "{}: {refused:?}", name.display());
            assert!(
                refused.message().contains("another run holds it"),
                "{refused:?}"
            );
        }
        // A new file renamed over the target, locked before it has the name.
        let new_path = dir.join("new");
        let new = File::create(&new_path).expect("a new file");
        let held = ReplacedFileLock::lock_new(&new).expect("locked");
        // The lock is the open file's, which `held` shares: it outlives this handle.
        drop(new);
        std::fs::rename(&new_path, first.target()).expect("renamed");
        first.replaced(held);
        std::fs::hard_link(&path, dir.join("hard2")).expect("a hard link to the new file");
        assert!(second(&dir.join("hard2")).is_err());
        // The first hard link names the old file now, which no run holds.
        drop(second(&dir.join("hard")).expect("a file of its own now"));
        drop(first);
        drop(second(&dir.join("link")).expect("free again"));

        let fifo = dir.join("fifo");
        transpo_testkit::mkfifo(&fifo);
        let refused = ReplacedFileLock::take(&fifo, "fifo", "another run").unwrap_err();
        assert_eq!(refused.exit_code(), 2);
        assert!(refused.message().contains("FIFO"), "{refused:?}");
        assert!(!dir.join("fifo.lock").exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
