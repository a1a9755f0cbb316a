//! # transpo-testkit: the scaffolding of the workspace's integration tests
//!
//! A dev-dependency only. The integration tests of every crate make scratch directories,
//! name FIFOs where files should be, run a binary that must not hang (to its end, or line by
//! line as a [`Session`]), and read the shared test data beside the repository; each of
//! those is written here once.
//!
//! Tests are allowed to panic: every function here panics, naming what failed, where the
//! machine refuses something a test needs (a directory, a child process).

#![deny(missing_docs)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
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

/// Makes a named pipe at `path`, in this process: a child (the system's `mkfifo`) would be
/// forked with a copy of every handle open in the test binary, so a lock another test drops
/// meanwhile would stay held until the child execs, and that test would see it still taken.
#[cfg(unix)]
pub fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .unwrap_or_else(|e| panic!("mkfifo {}: {e}", path.display()));
    // SAFETY: mkfifo(3) reads a valid NUL-terminated path and nothing else.
    let made = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
    assert_eq!(
        made,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
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
    stdout: Option<Stdio>,
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
            stdout: None,
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

    /// Gives the child this standard output (a file, `/dev/full`, ...) instead of a pipe; the
    /// [`Output`]'s `stdout` is then empty.
    pub fn stdout(mut self, stdout: Stdio) -> Self {
        self.stdout = Some(stdout);
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
            stdout,
            deadline,
        } = self;
        let what = format!("{command:?}");
        let (stdin, bytes) = match input {
            Input::Bytes(bytes) => (Stdio::piped(), Some(bytes)),
            Input::Stdio(stdio) => (stdio, None),
        };
        let mut child = command
            .stdin(stdin)
            .stdout(stdout.unwrap_or_else(Stdio::piped))
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

    /// Starts the child for a conversation: its standard input is a pipe for
    /// [`Session::send`], its standard output is read line by line for [`Session::until`],
    /// its standard error is discarded. The input and the standard output set on this `Run`
    /// are not used, nor is the deadline: each wait of a session names its own.
    pub fn session(self) -> Session {
        let Run { mut command, .. } = self;
        let what = format!("{command:?}");
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
        // Both are pipes, set just above.
        let stdin = child.stdin.take().expect("a piped stdin");
        let stdout = child.stdout.take().expect("a piped stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin,
            lines,
            what,
        }
    }
}

/// A child started by [`Run::spawn`].
pub struct Running {
    /// The child itself (its stderr, and its stdout unless [`Run::stdout`] gave another, are
    /// pipes for [`finish`] to drain).
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

    /// Panics, showing standard error, unless the run was refused as bad input: exit
    /// status 2 and `says` on standard error.
    #[track_caller]
    pub fn assert_refused(&self, says: &str) {
        self.assert_refused_with(&[], says);
    }

    /// [`Output::assert_refused`] for a run of `args`, which the panic names.
    #[track_caller]
    pub fn assert_refused_with(&self, args: &[&str], says: &str) {
        let err = self.stderr_text();
        assert_eq!(self.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: no {says:?} in: {err}");
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
    let status = wait_within(&mut child, deadline, &what);
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// A child talked to line by line (a UCI engine, a server on stdin): started by
/// [`Run::session`]. Every wait has a deadline, so a missing answer fails the test instead of
/// hanging it; a session dropped with the child still running kills the child.
pub struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    what: String,
}

impl Session {
    /// Writes `line` and a newline to the child's standard input, and flushes it.
    pub fn send(&mut self, line: &str) {
        let stdin = &mut self.stdin;
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("{}: cannot send {line:?}: {e}", self.what));
    }

    /// The lines of standard output up to and including the first one that `last` accepts;
    /// panics, naming `what` and the lines that came, if none comes within `limit` or the
    /// output ends first.
    pub fn until(&self, what: &str, limit: Duration, last: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = last(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("{what}: no answer within {limit:?}; got {seen:#?}")
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("{what}: the output of {} ended; got {seen:#?}", self.what)
                }
            }
        }
    }

    /// Waits up to `limit` for the child to end by itself (its standard input stays open, so
    /// only what it was sent can end it); kills it and panics past `limit`.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        wait_within(&mut self.child, limit, &self.what)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `child` until `limit`; kills it and panics, naming `what`, past it.
fn wait_within(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let end = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status,
            Ok(None) => {}
            Err(e) => panic!("{what}: cannot wait: {e}"),
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
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

    #[test]
    fn a_session_answers_line_by_line_and_ends_when_asked() {
        // `sh` reads a line, runs it and reads the next: a conversation.
        let mut session = Run::new("sh").session();
        session.send("echo one; echo two");
        let lines = session.until("echo", DEADLINE, |l| l == "two");
        assert_eq!(lines, ["one", "two"]);
        session.send("exit 3");
        assert_eq!(session.wait(DEADLINE).code(), Some(3));
    }

    #[test]
    #[should_panic(expected = "no answer within")]
    fn a_missing_answer_fails_at_the_deadline() {
        let mut session = Run::new("sh").session();
        session.send("echo one");
        session.until("never", Duration::from_millis(200), |l| l == "two");
    }

    #[test]
    #[should_panic(expected = "still running after")]
    fn a_session_that_does_not_end_fails_at_the_deadline() {
        let mut session = Run::new("cat").session();
        session.wait(Duration::from_millis(200));
    }

    #[test]
    fn standard_output_can_go_to_a_file() {
        let dir = scratch("transpo-testkit", "stdout");
        let file = std::fs::File::create(dir.join("out")).unwrap();
        let out = Run::new("echo")
            .args(["to the file"])
            .stdout(Stdio::from(file))
            .output();
        assert!(out.status.success());
        assert!(out.stdout.is_empty());
        let text = std::fs::read_to_string(dir.join("out")).unwrap();
        assert_eq!(text, "to the file\n");
    }
}
