//! The writer the loop and the search thread share.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// A writer shared between the loop and the search thread; each line goes out whole.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

/// Writes through [`Output::write_all`]; wrap it in an [`io::LineWriter`] so that lines
/// written piecemeal (`writeln!`) still go out whole.
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.put(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Output {
    /// Wraps a writer.
    pub fn new(out: impl Write + Send + 'static) -> Self {
        Output(Arc::new(Mutex::new(Box::new(out))))
    }

    /// Standard output.
    pub fn stdout() -> Self {
        Self::new(io::stdout())
    }

    /// Writes `bytes` in one piece and flushes. A poisoned lock (a panic while writing,
    /// which our code never does) is used anyway: output matters more than the poison.
    pub fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        self.put(bytes)
    }

    fn put(&self, bytes: &[u8]) -> io::Result<()> {
        let mut out = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        out.write_all(bytes)?;
        out.flush()
    }

    /// Writes one line. Errors are dropped: a GUI that went away cannot be told.
    pub fn line(&self, text: &str) {
        let _ = self.write_all(format!("{text}\n").as_bytes());
    }
}
