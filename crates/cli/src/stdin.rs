//! Which standard input a command reads: a terminal, a file, a pipe or `/dev/null`, never
//! another device. `/dev/zero` is one endless line and `/dev/urandom` endless noise; a
//! command given one would read forever. The rule `transpo-files` applies when it
//! opens a file named on the command line, stated here for the input a command is given.

use std::io;

/// Refuses a standard input that is a device other than a terminal or `/dev/null` (such as
/// `/dev/zero`, one endless line), with a message that says what to give instead. A closed
/// standard input reads as empty and is taken.
#[cfg(unix)]
pub fn check_stdin() -> Result<(), String> {
    use std::fs::File;
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let stdin = io::stdin();
    // A closed standard input reads as empty; nothing to refuse.
    let Ok(fd) = stdin.as_fd().try_clone_to_owned() else {
        return Ok(());
    };
    let Ok(metadata) = File::from(fd).metadata() else {
        return Ok(());
    };
    let kind = metadata.file_type();
    if !(kind.is_char_device() || kind.is_block_device()) || stdin.is_terminal() {
        return Ok(());
    }
    let null = std::fs::metadata("/dev/null")
        .is_ok_and(|null| null.file_type().is_char_device() && null.rdev() == metadata.rdev());
    if null {
        return Ok(());
    }
    Err("standard input is a device, not a text file or a pipe: give it lines of text".into())
}

/// Standard input can be anything but a device on Unix; elsewhere it is taken as it is.
#[cfg(not(unix))]
pub fn check_stdin() -> Result<(), String> {
    Ok(())
}
