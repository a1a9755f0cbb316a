//! # transpo-testkit: the scaffolding of the workspace's integration tests
//!
//! A dev-dependency only. The integration tests of every crate make scratch directories,
//! name FIFOs where files should be, run a binary that must not hang, and read the shared
//! test data beside the repository; each of those is written here once.
//!
//! Tests are allowed to panic: every function here panics, naming what failed, where the
//! machine refuses something a test needs (a directory, a child process).

#![deny(missing_docs)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A fresh, empty directory `PREFIX-PID-NAME` under the system's temp directory: unique to
/// this test process and name, emptied if an earlier run left it.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("scratch directory {}: {e}", dir.display()));
    dir
}

/// Makes a named pipe at `path` (with the system's `mkfifo`).
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap_or_else(|e| panic!("mkfifo {}: {e}", path.display()));
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A file under `shared/data/` beside the repository, if present. When it is missing the
/// test fails under CI (`CI` set) and is skipped with a message otherwise.
pub fn shared_data(relative: &str) -> Option<PathBuf> {
    // CARGO_MANIFEST_DIR of this crate: crates/testkit; the repository is two levels up.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(relative);
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} is missing, and CI is set", path.display());
    }
    eprintln!(
        "skipping: {} is missing (set CI to make this fail)",
        path.display()
    );
    None
}

/// What a [`Run`] gives standard input.
enum Input {
    Bytes(Vec<u8>),
    Stdio(Stdio),
}

/// A binary run within a deadline: built with [`Run::new`], started by [`Run::output`] or
/// [`Run::spawn`] and [`finish`].
pub struct Run {
    command: Command,
    input: Input,
    deadline: Duration,
}

/// The default deadline: long enough for a debug build under load, short enough that a hang
/// fails the test, not CI.
pub const DEADLINE: Duration = Duration::from_secs(60);

impl Run {
    /// A run of `program`, with no arguments, `/dev/null` as standard input and the default
    /// [`DEADLINE`].
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Run {
            command: Command::new(program),
            input: Input::Stdio(Stdio::null()),
            deadline: DEADLINE,
        }
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.command.args(args);
        self
    }

    /// Sets an environment variable of the child.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    /// Runs the child in `dir`.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// Writes `bytes` to the child's standard input (from a thread, so a child that does not
    /// read cannot block the test), then closes it.
    pub fn input(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.input = Input::Bytes(bytes.into());
        self
    }

    /// Gives the child this standard input (a file, `Stdio::inherit()`, ...).
    pub fn stdin(mut self, stdin: Stdio) -> Self {
        self.input = Input::Stdio(stdin);
        self
    }

    /// Kills the child and fails the test if it runs longer than `limit`.
    pub fn deadline(mut self, limit: Duration) -> Self {
        self.deadline = limit;
        self
    }

    /// Starts the child with piped stdout and stderr; [`finish`] waits for it.
    pub fn spawn(self) -> Running {
        let Run {
            mut command,
            input,
            deadline,
        } = self;
        let what = format!("{command:?}");
        let (stdin, bytes) = match input {
            Input::Bytes(bytes) => (Stdio::piped(), Some(bytes)),
            Input::Stdio(stdio) => (stdio, None),
        };
        let mut child = command
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
        let writer = bytes.map(|bytes| {
            let mut pipe = child.stdin.take();
            std::thread::spawn(move || {
                if let Some(pipe) = pipe.as_mut() {
                    // A child that exits without reading breaks the pipe: not the test's
                    // concern here.
                    let _ = pipe.write_all(&bytes);
                }
            })
        });
        Running {
            child,
            writer,
            deadline,
            what,
        }
    }

    /// Runs the child to its end within the deadline and collects its output.
    pub fn output(self) -> Output {
        finish(self.spawn())
    }
}

/// A child started by [`Run::spawn`].
pub struct Running {
    /// The child itself (its stdout and stderr are piped, for [`finish`] to drain).
    pub child: Child,
    writer: Option<std::thread::JoinHandle<()>>,
    deadline: Duration,
    what: String,
}

/// What a finished run gave.
#[derive(Debug)]
pub struct Output {
    /// How it ended.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

impl Output {
    /// The exit code (`None` when killed by a signal).
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Standard output as text (invalid UTF-8 replaced).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Standard error as text (invalid UTF-8 replaced).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Waits for `running` until its deadline, draining stdout and stderr as they come (so a
/// child that writes much is never blocked on a full pipe); kills it and panics, naming the
/// command, past the deadline.
pub fn finish(running: Running) -> Output {
    let Running {
        mut child,
        writer,
        deadline,
        what,
    } = running;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let end = Instant::now() + deadline;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => panic!("{what}: cannot wait: {e}"),
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_gets_its_input_and_gives_its_output() {
        let out = Run::new("cat").input("a line\n").output();
        assert_eq!(out.code(), Some(0));
        assert_eq!(out.stdout_text(), "a line\n");
    }

    #[test]
    #[should_panic(expected = "still running after")]
    fn a_hang_fails_at_the_deadline() {
        Run::new("sleep")
            .args(["5"])
            .deadline(Duration::from_millis(200))
            .output();
    }

    #[test]
    fn scratch_directories_start_empty() {
        let dir = scratch("transpo-testkit", "empty");
        std::fs::write(dir.join("x"), "x").unwrap();
        let again = scratch("transpo-testkit", "empty");
        assert_eq!(std::fs::read_dir(again).unwrap().count(), 0);
    }
}
