//! Reading text line by line with a cap on each line.
//!
//! [`std::io::BufRead::lines`] grows its buffer until it finds a newline, so one endless line
//! (`/dev/zero` on standard input) exhausts memory, and it stops at the first line that is not
//! UTF-8. [`Lines`] keeps at most `max` bytes of a line: the rest of a longer line is read and
//! dropped up to its newline, and the line is handed back as [`BadLine::TooLong`], numbered
//! like any other, so the caller reports it and goes on.

use std::{
    fmt,
    io::{self, BufRead},
};

/// The longest line accepted in a line-based data file (a Connect Four line, an EPD record, a
/// results line): 4 KiB, far above any real one.
pub const TEXT_LINE_MAX: usize = 4096;

/// A line that could not be handed back as text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BadLine {
    /// Longer than the cap (the cap is given, in bytes); its bytes were dropped.
    TooLong(usize),
    /// Not valid UTF-8.
    NotUtf8,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadLine::TooLong(max) => write!(f, "line too long (over {max} bytes)"),
            BadLine::NotUtf8 => f.write_str("not UTF-8"),
        }
    }
}

impl std::error::Error for BadLine {}

/// One line read by [`Lines`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Line {
    /// The line's number, from 1.
    pub number: usize,
    /// The line without its `\n` (or `\r\n`), or why it was dropped.
    pub text: Result<String, BadLine>,
}

/// The lines of a reader, each at most `max` bytes (not counting its `\n` or `\r\n`). A last
/// line without a newline counts. After an I/O error the iterator ends.
#[derive(Debug)]
pub struct Lines<R> {
    reader: R,
    max: usize,
    number: usize,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `reader`, each at most `max` bytes.
    pub fn new(reader: R, max: usize) -> Self {
        Lines {
            reader,
            max,
            number: 0,
            buf: Vec::new(),
            done: false,
        }
    }

    /// The number of the last line handed out (0 before the first).
    pub fn number(&self) -> usize {
        self.number
    }

    /// Reads one line into `self.buf`; `Ok(None)` at the end, `Ok(Some(too_long))` otherwise.
    fn read_line(&mut self) -> io::Result<Option<bool>> {
        self.buf.clear();
        let mut too_long = false;
        let mut any = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                return Ok(any.then_some(too_long));
            }
            any = true;
            let (take, newline) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            // One byte of slack for a '\r' before the newline, removed below.
            if !too_long && self.buf.len() + take > self.max.saturating_add(1) {
                too_long = true;
                self.buf = Vec::new();
            }
            if !too_long {
                self.buf.extend_from_slice(&chunk[..take]);
            }
            self.reader.consume(take + usize::from(newline));
            if newline {
                return Ok(Some(too_long));
            }
        }
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<io::Result<Line>> {
        if self.done {
            return None;
        }
        let too_long = match self.read_line() {
            Ok(Some(too_long)) => too_long,
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.number += 1;
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let text = if too_long || self.buf.len() > self.max {
            Err(BadLine::TooLong(self.max))
        } else {
            String::from_utf8(std::mem::take(&mut self.buf)).map_err(|_| BadLine::NotUtf8)
        };
        Some(Ok(Line {
            number: self.number,
            text,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    fn lines(input: &[u8], max: usize) -> Vec<Result<String, BadLine>> {
        // A 3-byte buffer, so lines cross the reader's chunks.
        Lines::new(BufReader::with_capacity(3, input), max)
            .map(|line| line.expect("no I/O error").text)
            .collect()
    }

    #[test]
    fn lines_match_std_on_good_text() {
        for text in [
            "",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\n",
            "héllo\nwörld\n",
        ] {
            let ours: Vec<String> = lines(text.as_bytes(), 100)
                .into_iter()
                .map(|l| l.expect("good"))
                .collect();
            let std: Vec<String> = text.lines().map(str::to_owned).collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn a_long_line_is_reported_and_the_next_is_read() {
        let got = lines(b"abcd\nabcde\nabcdef\r\nab\n", 5);
        assert_eq!(
            got,
            [
                Ok("abcd".into()),
                Ok("abcde".into()),
                Err(BadLine::TooLong(5)),
                Ok("ab".into())
            ]
        );
    }

    #[test]
    fn a_bad_line_is_reported_and_numbered() {
        let all: Vec<Line> = Lines::new(&b"L\n\xff\xfe\nL\n"[..], 10)
            .map(|l| l.expect("read"))
            .collect();
        assert_eq!(all.iter().map(|l| l.number).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(all[1].text, Err(BadLine::NotUtf8));
        assert_eq!(all[2].text, Ok("L".into()));
    }

    #[test]
    fn an_endless_line_costs_bounded_memory() {
        // 64 MiB of zeros and then a line: read with a 4 KiB cap, the buffer never grows past it.
        let zeros = io::repeat(0).take(64 << 20);
        let input = BufReader::new(zeros.chain(&b"\nlast\n"[..]));
        let mut reader = Lines::new(input, TEXT_LINE_MAX);
        let first = reader.next().expect("a line").expect("read");
        assert_eq!(first.text, Err(BadLine::TooLong(TEXT_LINE_MAX)));
        assert!(reader.buf.capacity() <= TEXT_LINE_MAX + 1);
        assert_eq!(
            reader.next().expect("a line").expect("read").text,
            Ok("last".into())
        );
        assert!(reader.next().is_none());
    }

    #[test]
    fn an_io_error_ends_the_lines() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk gone"))
            }
        }
        let mut reader = Lines::new(BufReader::new(Failing), 10);
        assert!(reader.next().expect("an item").is_err());
        assert!(reader.next().is_none());
    }
}
