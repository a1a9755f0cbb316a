//! The lock a run takes on what it writes (a results file, a run directory), so that a second
//! run of the same work is refused instead of interleaving its lines with the first's.
//!
//! The lock is advisory (`flock`), held until the handle is dropped or the process dies, so a
//! run killed by a scheduler never leaves a stale lock behind. Some file systems (NFS setups)
//! have no locks: the run then goes on with a note, as it would have before locks existed.

use crate::Failure;
use std::fs::{File, TryLockError};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
