//! The torn last line: what a writer killed in the middle of an append leaves, and the one
//! rule for it, [`split_torn`], shared by every file a run appends to and reads back to
//! resume (the lab's `observations.csv` and `pairs.csv`; `transpo-c4 solve-list` follows the
//! same rule on its results file).

/// A file's bytes split at its last newline by [`split_torn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Torn<'a> {
    /// The whole lines, each with its newline (empty if there is none).
    pub whole: &'a [u8],
    /// The bytes after the last newline: empty, or a torn line to cut off.
    pub torn: &'a [u8],
    /// The torn line's number, from 1 (the number of whole lines plus one).
    pub line: usize,
}

impl Torn<'_> {
    /// Whether there is a torn line to cut off.
    pub fn is_torn(&self) -> bool {
        !self.torn.is_empty()
    }
}

/// Splits `bytes`, the contents of a file written one whole line at a time, into its whole
/// lines and a torn last line.
///
/// A run that records its work one line at a time writes each line with its newline in one
/// write, and never rewrites what is before. A run killed during that write therefore leaves
/// at most one damaged line, at the very end, and it is the only one without its newline: a
/// *torn* line. Everything before it is whole.
///
/// **The rule**: the bytes after the last newline are a torn line. They are cut off, and the
/// one observation they held is done again; the reader says so, naming the line. A line
/// *before* the last newline that does not parse is not something a kill leaves: it is
/// corruption, and the reader refuses the file, naming that line's number. This is the rule
/// for crash recovery because it asks nothing of the torn bytes:
///
/// - keeping a torn line that happens to parse (cut just after a digit of its last field)
///   would keep a wrong number, so a torn line is cut whether it parses or not;
/// - refusing a torn line would make every killed run need a hand edit before it resumes.
///
/// The split is on bytes, so that a line cut in the middle of a UTF-8 character is cut off
/// before the whole lines are decoded.
///
/// ```
/// let split = transpo_files::split_torn(b"header\nrow 1\nrow");
/// assert_eq!(split.whole, b"header\nrow 1\n");
/// assert_eq!((split.torn, split.line), (&b"row"[..], 3));
/// assert!(!transpo_files::split_torn(b"header\nrow 1\n").is_torn());
/// ```
pub fn split_torn(bytes: &[u8]) -> Torn<'_> {
    let end = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |last| last + 1);
    let (whole, torn) = bytes.split_at(end);
    Torn {
        whole,
        torn,
        line: whole.iter().filter(|&&b| b == b'\n').count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_files_have_nothing_torn() {
        for whole in [&b""[..], b"\n", b"a\n", b"a\nb\n", b"a\n\n"] {
            let split = split_torn(whole);
            assert_eq!((split.whole, split.torn), (whole, &b""[..]), "{whole:?}");
            assert!(!split.is_torn());
        }
        assert_eq!(split_torn(b"a\nb\n").line, 3);
    }

    #[test]
    fn the_bytes_after_the_last_newline_are_torn_whatever_they_hold() {
        // Cut mid-field, cut where the line would still parse, a lone torn header, and a
        // UTF-8 character cut in half: all torn, all numbered.
        let torn = |whole: &'static [u8], torn: &'static [u8], line| Torn { whole, torn, line };
        let cases: [(&[u8], Torn); 4] = [
            (b"h\n1,2,3\n4,5", torn(b"h\n1,2,3\n", b"4,5", 3)),
            (b"h\n1,2,35\n1,2,3", torn(b"h\n1,2,35\n", b"1,2,3", 3)),
            (b"hea", torn(b"", b"hea", 1)),
            (b"h\n\xc3", torn(b"h\n", b"\xc3", 2)),
        ];
        for (bytes, expected) in cases {
            let split = split_torn(bytes);
            assert_eq!(split, expected, "{bytes:?}");
            assert!(split.is_torn());
        }
    }

    #[test]
    fn a_damaged_line_before_the_last_newline_is_whole_for_the_reader_to_refuse() {
        // Only the tail is the rule's: a bad middle line stays in `whole`, where the reader
        // finds it and refuses the file with its number.
        let split = split_torn(b"h\ngarbage\n1,2,3\n");
        assert_eq!(split.whole, b"h\ngarbage\n1,2,3\n");
        assert!(!split.is_torn());
    }
}
