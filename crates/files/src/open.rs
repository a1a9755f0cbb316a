//! Opening a file a user names without letting it block or flood the program.
//!
//! On Unix the file is opened with `O_NONBLOCK`, so that opening a FIFO with no writer returns
//! at once instead of waiting for one, and the handle (not the name, which may change between
//! two calls) is `fstat`ed to learn what it is. For a file that is accepted the flag is then
//! cleared, so reads block as usual.

use std::{
    fs::{File, OpenOptions},
    io::{self, IsTerminal},
    path::Path,
};

/// Opens `path` for reading if, and only if, it is a regular file (after following links).
/// A FIFO, socket, directory or device is refused with [`io::ErrorKind::InvalidInput`] and a
/// message naming what it is, without waiting for a FIFO's writer.
///
/// # Errors
///
/// Those of `open(2)`, and the refusal above.
pub fn open_regular(path: impl AsRef<Path>) -> io::Result<File> {
    let file = open_nonblocking(path.as_ref())?;
    let kind = kind_of(&file)?;
    if kind != Kind::Regular {
        return Err(refused(kind, "a regular file"));
    }
    set_blocking(&file)?;
    Ok(file)
}

/// Opens `path` to read text from it line by line: a regular file, a pipe (a named FIFO,
/// `<(command)`, `/dev/stdin` on a pipe), a socket or a terminal. A directory or a device
/// other than a terminal (`/dev/zero`, `/dev/urandom`) is refused with
/// [`io::ErrorKind::InvalidInput`]. A named FIFO waits for its writer, as `cat` would: the
/// user named it to write into it (a writer already waiting is connected, and what it wrote
/// before leaving is read).
///
/// # Errors
///
/// Those of `open(2)`, and the refusal above.
pub fn open_text(path: impl AsRef<Path>) -> io::Result<File> {
    let path = path.as_ref();
    let file = open_nonblocking(path)?;
    match kind_of(&file)? {
        Kind::Regular | Kind::Socket => {}
        Kind::Fifo => {
            set_blocking(&file)?;
            wait_for_writer(&file)?;
            return Ok(file);
        }
        Kind::Device if file.is_terminal() => {}
        other => return Err(refused(other, "a text file or a pipe")),
    }
    set_blocking(&file)?;
    Ok(file)
}

/// What a handle refers to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Regular,
    Directory,
    Fifo,
    Socket,
    Device,
    Other,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Regular => "a regular file",
            Kind::Directory => "a directory",
            Kind::Fifo => "a FIFO (named pipe)",
            Kind::Socket => "a socket",
            Kind::Device => "a device",
            Kind::Other => "not a regular file",
        }
    }
}

fn refused(kind: Kind, wanted: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}, not {wanted}", kind.name()),
    )
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

fn kind_of(file: &File) -> io::Result<Kind> {
    let file_type = file.metadata()?.file_type();
    if file_type.is_file() {
        return Ok(Kind::Regular);
    }
    if file_type.is_dir() {
        return Ok(Kind::Directory);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Ok(Kind::Fifo);
        }
        if file_type.is_socket() {
            return Ok(Kind::Socket);
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return Ok(Kind::Device);
        }
    }
    Ok(Kind::Other)
}

/// Clears `O_NONBLOCK`, so reads from the handle wait for data as usual.
#[cfg(unix)]
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is an open descriptor owned by `file`, which outlives both calls;
    // F_GETFL and F_SETFL read and set only the descriptor's status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    if flags & libc::O_NONBLOCK != 0 {
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_blocking(_: &File) -> io::Result<()> {
    Ok(())
}

/// Waits until a FIFO opened by this reader has data or has had a writer come and go. A read
/// from a FIFO without a writer returns end of file at once, even before any writer came;
/// `poll` instead waits for the first writer (Linux reports the hang-up only once a writer
/// opened after this reader has closed again). Reopening the name to wait instead would lose
/// what a writer already waiting in `open` writes after this reader's first open connects it.
#[cfg(unix)]
fn wait_for_writer(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: `poll` points to one valid pollfd for the duration of the call, and its
        // descriptor is open (owned by `file`).
        let ready = unsafe { libc::poll(&mut poll, 1, -1) };
        if ready >= 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(not(unix))]
fn wait_for_writer(_: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::{io::Read, path::PathBuf};
    use transpo_testkit::mkfifo;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("transpo-files-open-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    }

    #[test]
    fn a_regular_file_opens_and_reads_blocking() {
        let dir = scratch("regular");
        let path = dir.join("f");
        std::fs::write(&path, "hello").expect("write");
        let mut text = String::new();
        open_regular(&path)
            .expect("opens")
            .read_to_string(&mut text)
            .expect("reads");
        assert_eq!(text, "hello");
        let mut text = String::new();
        open_text(&path)
            .expect("opens")
            .read_to_string(&mut text)
            .expect("reads");
        assert_eq!(text, "hello");
    }

    #[test]
    fn a_fifo_without_a_writer_is_refused_at_once() {
        let dir = scratch("fifo");
        let path = dir.join("f");
        mkfifo(&path);
        let error = open_regular(&path).expect_err("a FIFO is refused");
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("FIFO"), "{error}");
    }

    #[test]
    fn directories_and_devices_are_refused() {
        let dir = scratch("dir");
        for path in [dir.as_path(), Path::new("/dev/zero")] {
            assert_eq!(
                open_regular(path).expect_err("refused").kind(),
                io::ErrorKind::InvalidInput
            );
            assert_eq!(
                open_text(path).expect_err("refused").kind(),
                io::ErrorKind::InvalidInput
            );
        }
        assert!(
            open_text("/dev/zero")
                .expect_err("refused")
                .to_string()
                .contains("device")
        );
    }

    #[test]
    fn a_fifo_is_text_when_a_writer_comes() {
        let dir = scratch("fifo-text");
        let path = dir.join("f");
        mkfifo(&path);
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || std::fs::write(path, "a\nb\n").expect("write the FIFO"))
        };
        let mut text = String::new();
        open_text(&path)
            .expect("opens")
            .read_to_string(&mut text)
            .expect("reads");
        writer.join().expect("writer");
        assert_eq!(text, "a\nb\n");
    }

    #[test]
    fn a_writer_waiting_before_the_reader_loses_nothing() {
        let dir = scratch("fifo-writer-first");
        let path = dir.join("f");
        mkfifo(&path);
        let writer = {
            let path = path.clone();
            // Blocks in open until the reader comes, writes, and leaves at once.
            std::thread::spawn(move || std::fs::write(path, "a\nb\n").expect("write the FIFO"))
        };
        std::thread::sleep(std::time::Duration::from_millis(200));
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let read = open_text(&path).and_then(|mut f| f.read_to_string(&mut text));
            let _ = sender.send(read.map(|_| text));
        });
        let text = receiver
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("open_text returns once the writer is done")
            .expect("reads");
        writer.join().expect("writer");
        assert_eq!(text, "a\nb\n");
    }

    #[test]
    fn a_link_to_a_regular_file_is_followed() {
        let dir = scratch("link");
        std::fs::write(dir.join("target"), "x").expect("write");
        std::os::unix::fs::symlink(dir.join("target"), dir.join("link")).expect("symlink");
        assert!(open_regular(dir.join("link")).is_ok());
    }
}
