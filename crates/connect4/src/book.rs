//! Opening books: the exact scores of every position up to some number of stones, generated
//! by the solver itself and kept in a checked file.
//!
//! Why: positions near the empty board are the expensive ones; a book answers them in one
//! binary search. Nothing depends on a book: every benchmark in the README is run without one.
//!
//! File layout (little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `TC4BOOK\n` |
//! | 4 | format version, 1 |
//! | 1, 1 | board width and height (7, 6 on the standard board) |
//! | 1 | depth: the most stones of a position in the book |
//! | 1 | reserved, 0 |
//! | 8 | `n`, the number of positions |
//! | 8·n | symmetric keys ([`Position::symmetric_key`]), strictly increasing (16·n on a wide board, whose keys are `u128`s) |
//! | n | scores, as `i8` |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! A book holds at most [`MAX_POSITIONS`] positions, so a file is at most
//! [`MAX_FILE_BYTES`] long (the 8-byte keys of a board of at most 64 bits; twice as long,
//! less the header, on a wide board). Reading checks the header (magic, version, board, `n` within the
//! maximum) before it allocates anything, then reads exactly the bytes the header promises
//! and one more to see that the input ends there: an endless or random input (`/dev/zero`,
//! `/dev/urandom`, a pipe) is rejected after its first bytes, never read until memory runs
//! out, and a regular file whose length disagrees with its header is rejected before its
//! positions are read.

use crate::position::{Bitboard, Position};
use std::fmt;
use std::io::{Read, Write};
use std::path::Path;

mod tree;

pub use tree::{MAX_TREE_POSITIONS, Tree};

const MAGIC: &[u8; 8] = b"TC4BOOK\n";
/// The file of [`Book::built_in`].
const BUILT_IN: &[u8] = include_bytes!("../books/depth8.book");
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 24;
/// Checksum bytes at the end of a file.
const CHECKSUM_BYTES: usize = 8;

/// The most positions a book may hold: 2^26, about 67 million. (Every position with up to 12
/// stones, one of each mirror pair, is about 2 million; a book that size takes days to
/// generate.)
pub const MAX_POSITIONS: u64 = 1 << 26;

/// The longest book file: a header, [`MAX_POSITIONS`] keys and scores, and a checksum
/// (576 MiB and 32 bytes).
pub const MAX_FILE_BYTES: u64 = file_bytes(MAX_POSITIONS);

/// Length of a book file of `count` positions with 8-byte keys (callers keep
/// `count ≤ MAX_POSITIONS`, so it does not overflow).
const fn file_bytes(count: u64) -> u64 {
    file_bytes_of(count, 8)
}

/// Length of a book file of `count` positions with `key_bytes`-byte keys (8 or 16).
const fn file_bytes_of(count: u64, key_bytes: usize) -> u64 {
    HEADER_BYTES as u64 + (key_bytes as u64 + 1) * count + CHECKSUM_BYTES as u64
}

/// What the header of a book file says.
struct Header {
    depth: u32,
    count: u64,
}

impl Header {
    /// Checks the magic, version, board (`width`×`height`) and position count of a header.
    fn parse(
        bytes: &[u8; HEADER_BYTES],
        (board_width, board_height): (usize, usize),
    ) -> Result<Header, BookError> {
        let bad = |why: String| Err(BookError::Format(why));
        if &bytes[..8] != MAGIC {
            return bad("missing the TC4BOOK header".into());
        }
        let version = u32::from_le_bytes(array(&bytes[8..12]));
        if version != VERSION {
            return bad(format!("format version {version}, expected {VERSION}"));
        }
        let (width, height, depth) = (bytes[12], bytes[13], u32::from(bytes[14]));
        if (width as usize, height as usize) != (board_width, board_height) {
            return bad(format!(
                "board {width}x{height}, expected {board_width}x{board_height}"
            ));
        }
        let count = u64::from_le_bytes(array(&bytes[16..24]));
        if count > MAX_POSITIONS {
            return bad(format!(
                "the header says {count} positions, a book holds at most {MAX_POSITIONS}"
            ));
        }
        Ok(Header { depth, count })
    }
}

/// Why a book file could not be read.
#[derive(Debug)]
pub enum BookError {
    /// The file could not be read or written.
    Io(std::io::Error),
    /// The file is not a book of this format.
    Format(String),
    /// The tree of a book or split would hold more than [`MAX_TREE_POSITIONS`] positions.
    TooBig {
        /// The depth asked for.
        depth: u32,
    },
    /// The depth of a book or split is below its root's stones: no position of the root's
    /// subtree has so few, so the tree would be empty.
    BelowRoot {
        /// The depth asked for.
        depth: u32,
        /// The root's stones.
        stones: u32,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(e) => write!(f, "book file: {e}"),
            BookError::Format(why) => write!(f, "not a valid opening book: {why}"),
            BookError::TooBig { depth } => write!(
                f,
                "the positions down to {depth} stones are more than {MAX_TREE_POSITIONS}: \
                 choose a smaller depth"
            ),
            BookError::BelowRoot { depth, stones } => write!(
                f,
                "depth {depth} is below the root's {stones} stones: no position below the \
                 root has so few (a depth of {stones} makes the root the one leaf)"
            ),
        }
    }
}

impl std::error::Error for BookError {}

impl From<std::io::Error> for BookError {
    fn from(e: std::io::Error) -> Self {
        BookError::Io(e)
    }
}

/// Exact scores of positions of the board of `W` columns and `H` rows (7×6 unless said
/// otherwise) by symmetric key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book<const W: usize = 7, const H: usize = 6, B: Bitboard = u64> {
    depth: u32,
    keys: Vec<B>,
    scores: Vec<i8>,
}

impl<const W: usize, const H: usize, B: Bitboard> Book<W, H, B> {
    /// The board, as a header names it.
    const BOARD: (usize, usize) = (W, H);
    /// The largest score a position can have: a win with the first stone.
    const MAX_SCORE: i8 = crate::score::win_now_score(W * H, 0) as i8;
    /// The length of a file of `count` positions of this board.
    const fn file_bytes(count: u64) -> u64 {
        file_bytes_of(count, B::BYTES)
    }
    /// The longest book file of this board.
    const MAX_FILE_BYTES: u64 = Self::file_bytes(MAX_POSITIONS);

    /// The score of `pos` if the book holds it.
    #[inline]
    pub fn get(&self, pos: &Position<W, H, B>) -> Option<i32> {
        if pos.moves() > self.depth {
            return None;
        }
        let i = self.keys.binary_search(&pos.symmetric_key()).ok()?;
        Some(i32::from(self.scores[i]))
    }

    /// The book of `scores`, exact scores by symmetric key of positions with at most `depth`
    /// stones (scores lie in −41..=41 on every board).
    pub fn of_scores(depth: u32, scores: impl IntoIterator<Item = (B, i32)>) -> Self {
        let mut entries: Vec<(B, i8)> = scores.into_iter().map(|(k, s)| (k, s as i8)).collect();
        entries.sort_unstable();
        Book {
            depth,
            keys: entries.iter().map(|e| e.0).collect(),
            scores: entries.iter().map(|e| e.1).collect(),
        }
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the book is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The most stones of a position in the book.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Scores every position reachable from `root` with at most `depth` stones whose game is
    /// not over (one of each mirror pair), reporting `(done, total)` solves as it goes.
    /// `solve` (the strong score, e.g. [`crate::Solver::solve`]) is asked only about the
    /// positions with `depth` stones (`root` itself if it has `depth` stones); every other
    /// score is the minimax of its children's ([`Tree::into_book`]), which spares the solves
    /// of the shallow positions, the costliest.
    ///
    /// # Errors
    ///
    /// [`BookError::TooBig`] if the book would hold more than [`MAX_TREE_POSITIONS`]
    /// positions; [`BookError::BelowRoot`] if `depth` is below the root's stones.
    pub fn generate(
        root: &Position<W, H, B>,
        depth: u32,
        mut solve: impl FnMut(&Position<W, H, B>) -> i32,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<Self, BookError> {
        let tree = Tree::new(root, "", depth)?;
        let leaves = tree.leaves().count();
        let mut done = 0;
        Ok(tree.into_book(|pos| {
            done += 1;
            let score = solve(pos);
            progress(done, leaves);
            score
        }))
    }

    /// The book as file bytes (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::file_bytes(self.keys.len() as u64) as usize);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        // Width, height and depth are at most 60.
        out.extend_from_slice(&[W as u8, H as u8, self.depth as u8, 0]);
        out.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for key in &self.keys {
            key.write_le(&mut out);
        }
        out.extend(self.scores.iter().map(|&s| s as u8));
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a book from file bytes, checking everything.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, BookError> {
        let bad = |why: String| Err(BookError::Format(why));
        if bytes.len() < HEADER_BYTES + CHECKSUM_BYTES || &bytes[..8] != MAGIC {
            return bad("missing the TC4BOOK header".into());
        }
        let (body, tail) = bytes.split_at(bytes.len() - CHECKSUM_BYTES);
        let stored = u64::from_le_bytes(array(tail));
        let computed = fnv1a(body);
        if stored != computed {
            return bad(format!(
                "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupt"
            ));
        }
        let Header { depth, count } = Header::parse(&array(body), Self::BOARD)?;
        if Self::file_bytes(count) != bytes.len() as u64 {
            return bad(format!(
                "{count} positions need {} bytes, the file has {}",
                Self::file_bytes(count),
                bytes.len()
            ));
        }
        // At most MAX_POSITIONS, so it fits a usize.
        let count = count as usize;
        let keys_end = HEADER_BYTES + B::BYTES * count;
        let keys: Vec<B> = body[HEADER_BYTES..keys_end]
            .chunks_exact(B::BYTES)
            .map(B::read_le)
            .collect();
        let scores: Vec<i8> = body[keys_end..].iter().map(|&b| b as i8).collect();
        if keys.windows(2).any(|w| w[0] >= w[1]) {
            return bad("keys are not strictly increasing".into());
        }
        let max = Self::MAX_SCORE;
        if let Some(s) = scores.iter().find(|s| !(-max..=max).contains(*s)) {
            return bad(format!("score {s} out of range -{max}..={max}"));
        }
        Ok(Book {
            depth,
            keys,
            scores,
        })
    }

    /// Reads a book from a stream, checking everything: the header before anything is
    /// allocated, then exactly the bytes it promises (at most [`MAX_FILE_BYTES`]), then that
    /// the stream ends there. Memory grows only as bytes arrive, so a stream that promises a
    /// big book and stops early costs what it sent.
    pub fn read(input: impl Read) -> Result<Self, BookError> {
        Book::read_sized(input, None)
    }

    /// [`Book::read`], with the input's length when it is known (a regular file): then a
    /// length the header disagrees with is rejected before the positions are read, and the
    /// memory for them is reserved at once.
    fn read_sized(mut input: impl Read, length: Option<u64>) -> Result<Self, BookError> {
        let bad = |why: String| Err(BookError::Format(why));
        let mut header = [0; HEADER_BYTES];
        let got = read_up_to(&mut input, &mut header)?;
        if got < HEADER_BYTES {
            return bad(format!(
                "missing the TC4BOOK header ({got} bytes, a book has at least {})",
                Self::file_bytes(0)
            ));
        }
        let count = Header::parse(&header, Self::BOARD)?.count;
        let total = Self::file_bytes(count);
        if let Some(length) = length
            && length != total
        {
            return bad(format!(
                "{count} positions need {total} bytes, the file has {length}"
            ));
        }
        let mut bytes = Vec::new();
        // `total ≤ MAX_FILE_BYTES`, well within a usize on the 64-bit targets we build for;
        // on a smaller one the reservation fails and the stream is read as it comes.
        let reserve = if length.is_some() { total } else { 1 << 16 };
        bytes
            .try_reserve_exact(usize::try_from(reserve).unwrap_or(0))
            .map_err(|e| BookError::Format(format!("{total} bytes do not fit in memory: {e}")))?;
        bytes.extend_from_slice(&header);
        input
            .by_ref()
            .take(total - HEADER_BYTES as u64)
            .read_to_end(&mut bytes)?;
        if (bytes.len() as u64) < total {
            return bad(format!(
                "truncated: {count} positions need {total} bytes, the input has {}",
                bytes.len()
            ));
        }
        if read_up_to(&mut input, &mut [0])? != 0 {
            return bad(format!(
                "data after the checksum: {count} positions need {total} bytes, the input has \
                 more"
            ));
        }
        Book::from_bytes(&bytes)
    }

    /// The book that comes with the crate ([`Book::built_in`]) if this is its board (it is
    /// of 7×6), or `None`.
    pub fn built_in_of_board() -> Option<Self> {
        Self::from_bytes(BUILT_IN).ok()
    }

    /// Writes the book to `path`, atomically ([`transpo_files::write_atomic`]): the file
    /// at `path` stays the old book (or absent) until the new one is complete and synced, so
    /// a process killed mid-write or a full disk never destroys it, and a link at `path` is
    /// replaced, never written through.
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        transpo_files::write_atomic(path, |file| -> Result<(), BookError> {
            let mut out = std::io::BufWriter::new(file);
            out.write_all(&self.to_bytes())?;
            out.flush()?;
            Ok(())
        })
    }

    /// Reads a book from `path` (see [`Book::read`]). Only a regular file is read: a FIFO, a
    /// directory or a device is refused at once ([`transpo_files::open_regular`]), never
    /// waited on; a file longer than [`MAX_FILE_BYTES`] or of another length than its header
    /// promises is rejected before its positions are read.
    pub fn load(path: &Path) -> Result<Self, BookError> {
        let file = transpo_files::open_regular(path)?;
        let length = file.metadata()?.len();
        if length > Self::MAX_FILE_BYTES {
            return Err(BookError::Format(format!(
                "{length} bytes, more than the largest book ({} bytes, {MAX_POSITIONS} \
                 positions)",
                Self::MAX_FILE_BYTES
            )));
        }
        Book::read_sized(std::io::BufReader::new(file), Some(length))
    }
}

impl Book<7, 6> {
    /// The book that comes with the crate: every position with at most 8 stones (129,498 of
    /// them, one of each mirror pair; 1.2 MB), made by `transpo-c4 book --depth 8 --hash-mib
    /// 4096 --out books/depth8.book` (80 minutes on two cores: `docs/connect4/book.md`). `transpo-c4 serve`
    /// uses it unless told otherwise, so that every position of a game up to 7 stones is
    /// analysed at once (an analysis needs the scores of the children).
    pub fn built_in() -> Book {
        // The file is part of the crate and checked by its tests (`built_in_book` in
        // tests/facts.rs): it always parses.
        Book::from_bytes(BUILT_IN).unwrap_or_else(|_| Book {
            depth: 0,
            keys: Vec::new(),
            scores: Vec::new(),
        })
    }
}

/// Reads until `buf` is full or the input ends; how many bytes it read.
fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The first `N` bytes of `bytes` (callers pass slices of at least `N` bytes).
fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&bytes[..N]);
    out
}

/// FNV-1a, 64-bit: a simple checksum that catches flipped and truncated bytes (of book
/// files, and of split lists and results, `transpo-c4`'s split).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Book, Position, Strength};
    use std::collections::HashSet;

    /// A book of positions after Middle-Easy's first line (its scores are not the point here).
    fn small_book() -> Book {
        let root = Position::from_moves("5554224333234511764415115").expect("valid");
        Book::generate(&root, 27, |pos| pos.moves() as i32 % 7 - 3, |_, _| {}).expect("small")
    }

    #[test]
    fn every_score_taken_by_minimax_is_the_solved_score() {
        // Middle-Easy (Test_L2_R1), line 1, and every position up to four stones later.
        let root = Position::from_moves("5554224333234511764415115").expect("valid");
        let mut solver = crate::Solver::new(16).expect("16 MiB");
        let mut solves = 0;
        let book = Book::generate(
            &root,
            root.moves() + 4,
            |pos| {
                solves += 1;
                assert_eq!(pos.moves(), root.moves() + 4, "only the deepest are solved");
                solver.solve(pos, Strength::Strong)
            },
            |_, _| {},
        )
        .expect("a small book");
        assert!(
            solves > 100 && book.len() > solves,
            "{solves} of {}",
            book.len()
        );
        assert_eq!(book.get(&root), Some(4), "Pons' score for the line");
        // Every position of the book, checked against a solve of its own.
        let mut checked = 0;
        let mut stack = vec![root];
        let mut seen = HashSet::new();
        while let Some(pos) = stack.pop() {
            if !seen.insert(pos.symmetric_key()) {
                continue;
            }
            solver.reset();
            assert_eq!(book.get(&pos), Some(solver.solve(&pos, Strength::Strong)));
            assert_eq!(book.get(&pos.mirror()), book.get(&pos));
            checked += 1;
            for col in (0..7).filter(|&c| pos.can_play(c) && !pos.is_winning_move(c)) {
                let mut next = pos;
                next.play_column(col);
                if next.moves() <= book.depth() {
                    stack.push(next);
                }
            }
        }
        assert_eq!(checked, book.len());
    }

    #[test]
    fn a_book_round_trips_through_its_bytes() {
        let book = small_book();
        assert!(book.len() > 20, "{}", book.len());
        let again = Book::from_bytes(&book.to_bytes()).expect("own bytes");
        assert_eq!(again, book);
    }

    /// A wide board's book keeps 16-byte keys: its file is 17 bytes a position, reads back
    /// the same, and is refused for a board of another size or word.
    #[test]
    fn a_wide_book_round_trips_with_its_long_keys() {
        type Wide = super::Book<7, 9, u128>;
        let root = crate::position::Position::<7, 9, u128>::from_moves(
            "4172725614622737534114342365723443664367",
        )
        .expect("valid");
        let book =
            Wide::generate(&root, 43, |pos| pos.moves() as i32 % 5 - 2, |_, _| {}).expect("small");
        assert!(book.len() > 100, "{}", book.len());
        let bytes = book.to_bytes();
        assert_eq!(bytes.len(), HEADER_BYTES + 17 * book.len() + CHECKSUM_BYTES);
        assert_eq!(Wide::from_bytes(&bytes).expect("own bytes"), book);
        assert!(
            book.keys.iter().any(|&k| k >> 64 != 0),
            "keys above 64 bits"
        );
        let other = super::Book::<6, 10, u128>::from_bytes(&bytes).expect_err("7x9's book");
        assert!(other.to_string().contains("board 7x9"), "{other}");
    }

    #[test]
    fn corrupt_files_are_clear_errors() {
        let bytes = small_book().to_bytes();
        let message = |bytes: &[u8]| match Book::from_bytes(bytes) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a corrupt book was accepted"),
        };
        let mut flipped = bytes.clone();
        flipped[HEADER_BYTES + 3] ^= 0x10;
        assert!(message(&flipped).contains("checksum mismatch"));
        assert!(message(&bytes[..bytes.len() - 1]).contains("checksum"));
        assert!(message(b"hello").contains("header"));
        assert!(message(&[]).contains("header"));
    }

    /// A header for `count` positions, as the file would start.
    fn header(count: u64) -> Vec<u8> {
        let mut bytes = Book {
            depth: 3,
            keys: Vec::new(),
            scores: Vec::new(),
        }
        .to_bytes();
        bytes.truncate(HEADER_BYTES);
        bytes[16..24].copy_from_slice(&count.to_le_bytes());
        bytes
    }

    /// Counts the bytes a reader hands out.
    struct Counted<R> {
        inner: R,
        read: u64,
    }

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n as u64;
            Ok(n)
        }
    }

    fn read_message(input: impl Read) -> String {
        match Book::read(input) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a bad book was accepted"),
        }
    }

    #[test]
    fn a_stream_reads_like_bytes() {
        let book = small_book();
        let bytes = book.to_bytes();
        assert_eq!(Book::read(bytes.as_slice()).expect("own bytes"), book);
        let empty = Book {
            depth: 0,
            keys: Vec::new(),
            scores: Vec::new(),
        };
        assert_eq!(
            Book::read(empty.to_bytes().as_slice()).expect("empty"),
            empty
        );
    }

    /// Endless zeros (`/dev/zero`) or any endless input after a valid header: the reader
    /// stops after the header, or after the bytes the header promised and one more.
    #[test]
    fn endless_input_is_read_only_as_far_as_the_header_says() {
        let mut zeros = Counted {
            inner: std::io::repeat(0),
            read: 0,
        };
        assert!(read_message(&mut zeros).contains("missing the TC4BOOK header"));
        assert_eq!(zeros.read, HEADER_BYTES as u64);

        let bytes = small_book().to_bytes();
        let mut endless = Counted {
            inner: bytes.as_slice().chain(std::io::repeat(7)),
            read: 0,
        };
        assert!(read_message(&mut endless).contains("data after the checksum"));
        assert_eq!(endless.read, bytes.len() as u64 + 1);

        // The most positions, then endless scores: read to the promised end, no further.
        let head = header(1000);
        let mut most = Counted {
            inner: head.as_slice().chain(std::io::repeat(0)),
            read: 0,
        };
        assert!(read_message(&mut most).contains("data after the checksum"));
        assert_eq!(most.read, file_bytes(1000) + 1);
    }

    #[test]
    fn a_header_promising_too_much_is_rejected_before_anything_is_read() {
        let head = header(MAX_POSITIONS + 1);
        let mut input = Counted {
            inner: head.as_slice().chain(std::io::repeat(0)),
            read: 0,
        };
        let message = read_message(&mut input);
        assert!(message.contains("at most 67108864"), "{message}");
        assert_eq!(input.read, HEADER_BYTES as u64);
        let message = read_message(header(u64::MAX).as_slice());
        assert!(message.contains("at most"), "{message}");
        // The most there may be, but the stream stops: an error, and memory for what came.
        let head = header(MAX_POSITIONS);
        let message = read_message(head.as_slice().chain(&[0u8; 100][..]));
        assert!(message.contains("truncated"), "{message}");
        assert_eq!(MAX_FILE_BYTES, 576 * (1 << 20) + 32);
    }

    #[test]
    fn files_of_the_wrong_length_and_directories_are_clear_errors() {
        let dir = std::env::temp_dir().join(format!("transpo-c4-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let message = |path: &Path| match Book::load(path) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{} was accepted", path.display()),
        };
        assert!(message(&dir).contains("directory"));
        let book = small_book();
        let bytes = book.to_bytes();
        let path = dir.join("small.book");
        for (len, words) in [
            (bytes.len() - 1, "the file has"),
            (10, "missing the TC4BOOK header"),
        ] {
            std::fs::write(&path, &bytes[..len]).expect("write");
            assert!(message(&path).contains(words), "{len}");
        }
        std::fs::write(&path, [bytes.as_slice(), b"x"].concat()).expect("write");
        assert!(message(&path).contains("the file has"));
        book.save(&path).expect("save");
        assert_eq!(Book::load(&path).expect("whole file"), book);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
