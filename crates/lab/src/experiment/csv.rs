//! A study's CSV: a fixed header, then one row per observation (a searched position, a
//! played pair, a solve), appended as the work finishes and read back to resume an
//! interrupted run or to merge shards.
//!
//! Every study writes and reads its rows here, so that the file's rules are stated once:
//!
//! - a row is appended with its newline in one write, so a run killed while writing leaves
//!   at most one torn line, at the end;
//! - reading follows [`transpo_files::split_torn`]: a torn last line is left out (a resumed
//!   run does that observation again and rewrites the file without it), a line before it
//!   that does not parse is corruption and the file is refused with that line's number;
//! - a whole file (a CSV rewritten on resume, a merged one) is replaced atomically.
//!
//! A study says what its row is with [`CsvRow`] (and [`ParseRow`] if it reads rows back).
//! A row is read back only as the writer writes it: every field spelled as the writer spells
//! it and within the range the writer can produce ([`Fields`] reads them so), and the same
//! parser serves a resumed run, `--report-only` and `merge`, so that no reader takes a row
//! another refuses.

use super::files;
use std::{
    io::{self, Write},
    path::{Path, PathBuf},
};
use transpo_files::split_torn;

/// A row of a study's CSV, as it is written.
pub trait CsvRow {
    /// The header, fixed: reading checks it and reads columns by position.
    const HEADER: &'static str;

    /// The row as a CSV line (no newline).
    fn to_csv(&self) -> String;
}

/// A row that is read back (to resume a run, to merge shards, to write a report).
pub trait ParseRow: CsvRow + Sized {
    /// What the file holds, for messages: `observations`, `pairs`.
    const KIND: &'static str;

    /// What a row is checked against beyond its own fields (the size of the position set
    /// its indices point into); `()` where a row stands alone.
    type Bounds;

    /// Parses a line written by [`CsvRow::to_csv`], refusing a field the writer could not
    /// have written; the error says which field and why, and the reader adds the file and
    /// line number.
    fn from_csv(line: &str, bounds: &Self::Bounds) -> Result<Self, String>;
}

/// Reads a study's CSV; a missing file is an empty one. A torn last line is left out, with a
/// note on standard error naming it; a wrong header or a line before the last that does not
/// parse is an error naming the file and the line (see the [module](self)).
pub fn read<R: ParseRow>(path: &Path, bounds: &R::Bounds) -> Result<Vec<R>, String> {
    read_rows(path, bounds, false)
}

/// Reads a shard's CSV for `merge`, as [`read`] does, except that a torn last line is an
/// error: the shard was killed while writing, so it is unfinished (run it again to resume
/// it), and a merge must not report it as whole.
pub fn read_finished<R: ParseRow>(path: &Path, bounds: &R::Bounds) -> Result<Vec<R>, String> {
    read_rows(path, bounds, true)
}

fn read_rows<R: ParseRow>(
    path: &Path,
    bounds: &R::Bounds,
    refuse_torn: bool,
) -> Result<Vec<R>, String> {
    let name = path.display();
    let Some(bytes) = files::read_run_file(path)? else {
        return Ok(Vec::new());
    };
    let split = split_torn(&bytes);
    if split.is_torn() && refuse_torn {
        return Err(format!(
            "{name}: line {}: a torn last line (a run killed while writing it): run that \
             shard again to finish it before merging",
            split.line
        ));
    }
    if split.is_torn() {
        eprintln!(
            "{name}: line {}: a torn last line (a run killed while writing it): left out",
            split.line
        );
    }
    let text = std::str::from_utf8(split.whole)
        .map_err(|e| format!("{name}: not UTF-8 (byte {})", e.valid_up_to()))?;
    let mut lines = text.lines().enumerate();
    match lines.next() {
        None => return Ok(Vec::new()),
        Some((_, header)) if header.trim_end() == R::HEADER => {}
        Some(_) => {
            return Err(format!(
                "{name}: line 1 is not the header of a CSV of {}",
                R::KIND
            ));
        }
    }
    lines
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            R::from_csv(line, bounds).map_err(|e| format!("{name}: line {}: {e}", i + 1))
        })
        .collect()
}

/// The fields of one line, read by position as the writer wrote them; every error names
/// the field (1-based) and its text.
pub struct Fields<'a> {
    fields: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    /// Splits `line` at commas; exactly `count` fields or an error.
    pub fn split(line: &'a str, count: usize) -> Result<Self, String> {
        let fields: Vec<&str> = line.trim_end().split(',').collect();
        if fields.len() == count {
            Ok(Fields { fields })
        } else {
            Err(format!("{} fields, expected {count}", fields.len()))
        }
    }

    /// Field `i` (0-based) as it is.
    pub fn text(&self, i: usize) -> &'a str {
        self.fields[i]
    }

    /// Fields `range` joined by commas, as they are.
    pub fn joined(&self, range: std::ops::Range<usize>) -> String {
        self.fields[range].join(",")
    }

    /// An error about field `i`: `field N ("TEXT") WHY`.
    pub fn bad(&self, i: usize, why: impl std::fmt::Display) -> String {
        format!("field {} ({:?}) {why}", i + 1, self.fields[i])
    }

    /// Field `i` as a value `parse` accepts and writes back the same (`spelled` is what
    /// the writer writes, for the message), e.g. a scheme as `twobig1`, not `TwoBig1`.
    pub fn word<T>(
        &self,
        i: usize,
        spelled: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, String> {
        parse(self.fields[i]).ok_or_else(|| self.bad(i, format_args!("is not {spelled}")))
    }

    /// Field `i` as a table scheme spelled exactly as the lab writes it (`twobig1`,
    /// `depth-age-8:4`; not `DEEP`): the one rule for every CSV that names a scheme.
    pub fn scheme(&self, i: usize) -> Result<super::schemes::SchemeSpec, String> {
        self.word(
            i,
            "a scheme as the lab writes it (e.g. twobig1, depth-age-8:4)",
            |s| {
                s.parse::<super::schemes::SchemeSpec>()
                    .ok()
                    .filter(|spec| spec.to_string() == s)
            },
        )
    }

    /// Field `i` as a whole number in `range`, in the writer's decimal spelling (no sign,
    /// no leading zeros, no blanks).
    pub fn number(&self, i: usize, range: std::ops::RangeInclusive<u64>) -> Result<u64, String> {
        let text = self.fields[i];
        let n: u64 = text
            .parse()
            .ok()
            .filter(|n: &u64| n.to_string() == text)
            .ok_or_else(|| self.bad(i, "is not a whole number"))?;
        if range.contains(&n) {
            Ok(n)
        } else {
            Err(self.bad(
                i,
                format_args!("is out of range ({} to {})", range.start(), range.end()),
            ))
        }
    }

    /// Field `i` as a count: any whole number.
    pub fn count(&self, i: usize) -> Result<u64, String> {
        self.number(i, 0..=u64::MAX)
    }

    /// Field `i` as an index below `len` (a position of a set, a pair of a cell).
    pub fn index(&self, i: usize, len: usize) -> Result<usize, String> {
        if len == 0 {
            return Err(self.bad(i, "points into an empty set"));
        }
        let last = u64::try_from(len - 1).unwrap_or(u64::MAX);
        let n = self.number(i, 0..=last)?;
        // In range: n <= len - 1, a usize.
        Ok(n as usize)
    }
}

/// The CSV of a run: `name` in `input` if it is a directory, else `input` itself, which must
/// exist.
pub fn of_run(input: &Path, name: &str) -> Result<PathBuf, String> {
    let path = if input.is_dir() {
        input.join(name)
    } else {
        input.to_path_buf()
    };
    if path.exists() {
        Ok(path)
    } else {
        Err(format!("{}: no such file", path.display()))
    }
}

/// Whether `path` is a regular file whose first line is the header of `R`'s CSV.
pub fn holds<R: CsvRow>(path: &Path) -> bool {
    files::read_run_file(path)
        .ok()
        .flatten()
        .is_some_and(|bytes| {
            bytes
                .split(|&b| b == b'\n')
                .next()
                .is_some_and(|first| first.trim_ascii_end() == R::HEADER.as_bytes())
        })
}

/// The rows as lines, each with its newline.
fn lines<'a, R: CsvRow + 'a>(text: &mut String, rows: impl IntoIterator<Item = &'a R>) {
    for row in rows {
        text.push_str(&row.to_csv());
        text.push('\n');
    }
}

/// Writes the header and `rows` as a fresh CSV, atomically ([`files::write_whole`]).
pub fn write_all<'a, R: CsvRow + 'a>(
    path: &Path,
    rows: impl IntoIterator<Item = &'a R>,
) -> Result<(), String> {
    let mut text = format!("{}\n", R::HEADER);
    lines(&mut text, rows);
    files::write_whole(path, &text)
}

/// Appends finished rows to an open CSV in one write, so that a kill leaves at most one torn
/// line, at the end.
pub fn append<R: CsvRow>(out: &mut impl Write, rows: &[R]) -> io::Result<()> {
    let mut text = String::new();
    lines(&mut text, rows);
    out.write_all(text.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A row of two numbers.
    #[derive(Debug, PartialEq)]
    struct Pair(u64, u64);

    impl CsvRow for Pair {
        const HEADER: &'static str = "a,b";
        fn to_csv(&self) -> String {
            format!("{},{}", self.0, self.1)
        }
    }

    impl ParseRow for Pair {
        const KIND: &'static str = "pairs of numbers";
        type Bounds = ();
        fn from_csv(line: &str, _: &()) -> Result<Self, String> {
            let (a, b) = line.split_once(',').ok_or("no comma")?;
            let number = |s: &str| s.parse().map_err(|_| format!("{s:?} is not a number"));
            Ok(Pair(number(a)?, number(b)?))
        }
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("lab-csv-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("scratch directory");
        dir.join("rows.csv")
    }

    #[test]
    fn rows_written_and_appended_read_back() {
        let path = scratch("round");
        write_all(&path, &[Pair(1, 2)]).expect("write");
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        append(&mut file, &[Pair(3, 4), Pair(5, 6)]).expect("append");
        assert_eq!(
            fs::read_to_string(&path).expect("read"),
            "a,b\n1,2\n3,4\n5,6\n"
        );
        assert_eq!(
            read(&path, &()),
            Ok(vec![Pair(1, 2), Pair(3, 4), Pair(5, 6)])
        );
        assert!(holds::<Pair>(&path));
        assert_eq!(
            read::<Pair>(&path.with_file_name("none.csv"), &()),
            Ok(vec![])
        );
    }

    #[test]
    fn a_torn_last_line_is_left_out_whether_it_parses_or_not() {
        let path = scratch("torn");
        // Cut mid-field; cut where it still parses (from "5,67"), wrongly; cut inside a
        // UTF-8 character.
        for torn in [&b"a,b\n1,2\n5,"[..], b"a,b\n1,2\n5,6", b"a,b\n1,2\n5,\xc3"] {
            fs::write(&path, torn).expect("write");
            assert_eq!(read(&path, &()), Ok(vec![Pair(1, 2)]), "{torn:?}");
        }
        // A header torn by a kill as the run started: an empty run.
        fs::write(&path, "a,").expect("write");
        assert_eq!(read::<Pair>(&path, &()), Ok(vec![]));
    }

    #[test]
    fn a_bad_line_before_the_last_or_a_wrong_header_is_refused_with_its_number() {
        let path = scratch("bad");
        fs::write(&path, "a,b\n1,2\ngarbage\n3,4\n").expect("write");
        let err = read::<Pair>(&path, &()).expect_err("corrupt");
        assert!(err.contains("rows.csv: line 3: no comma"), "{err}");
        fs::write(&path, "a,b\n1,2\nx,4\n").expect("write");
        assert!(
            read::<Pair>(&path, &())
                .expect_err("corrupt")
                .contains("line 3")
        );
        fs::write(&path, "scheme,nodes\n1,2\n").expect("write");
        let err = read::<Pair>(&path, &()).expect_err("not ours");
        assert!(err.contains("line 1 is not the header"), "{err}");
        assert!(!holds::<Pair>(&path));
        fs::write(&path, b"a,b\n\xff,2\n").expect("write");
        assert!(
            read::<Pair>(&path, &())
                .expect_err("bytes")
                .contains("not UTF-8")
        );
    }
}
