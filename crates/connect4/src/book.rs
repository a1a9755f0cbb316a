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
//! | 1, 1 | board width 7, height 6 |
//! | 1 | depth: the most stones of a position in the book |
//! | 1 | reserved, 0 |
//! | 8 | `n`, the number of positions |
//! | 8·n | symmetric keys ([`Position::symmetric_key`]), strictly increasing |
//! | n | scores, as `i8` |
//! | 8 | FNV-1a 64 checksum of every byte before it |

use crate::position::{HEIGHT, Position, SQUARES, WIDTH};
use crate::solver::{Solver, Strength};
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

const MAGIC: &[u8; 8] = b"TC4BOOK\n";
const VERSION: u32 = 1;
const HEADER_BYTES: usize = 24;

/// Why a book file could not be read.
#[derive(Debug)]
pub enum BookError {
    /// The file could not be read or written.
    Io(std::io::Error),
    /// The file is not a book of this format.
    Format(String),
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(e) => write!(f, "book file: {e}"),
            BookError::Format(why) => write!(f, "not a valid opening book: {why}"),
        }
    }
}

impl std::error::Error for BookError {}

impl From<std::io::Error> for BookError {
    fn from(e: std::io::Error) -> Self {
        BookError::Io(e)
    }
}

/// Exact scores of positions by symmetric key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    depth: u32,
    keys: Vec<u64>,
    scores: Vec<i8>,
}

impl Book {
    /// The score of `pos` if the book holds it.
    #[inline]
    pub fn get(&self, pos: &Position) -> Option<i32> {
        if pos.moves() > self.depth {
            return None;
        }
        let i = self.keys.binary_search(&pos.symmetric_key()).ok()?;
        Some(i32::from(self.scores[i]))
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

    /// Solves every position reachable from `root` with at most `depth` stones whose game is
    /// not over (one of each mirror pair), reporting `(done, total)` as it goes.
    pub fn generate(
        root: &Position,
        depth: u32,
        solver: &mut Solver,
        mut progress: impl FnMut(usize, usize),
    ) -> Book {
        let depth = depth.min(SQUARES as u32 - 1);
        let mut seen = HashSet::new();
        let mut positions = Vec::new();
        let mut stack = vec![*root];
        if root.moves() <= depth {
            seen.insert(root.symmetric_key());
            positions.push(*root);
        }
        while let Some(pos) = stack.pop() {
            if pos.moves() >= depth {
                continue;
            }
            for col in 0..WIDTH {
                if !pos.can_play(col) || pos.is_winning_move(col) {
                    continue;
                }
                let mut next = pos;
                next.play_column(col);
                if (next.moves() as usize) < SQUARES && seen.insert(next.symmetric_key()) {
                    positions.push(next);
                    stack.push(next);
                }
            }
        }
        positions.sort_by_key(Position::symmetric_key);
        let total = positions.len();
        let mut scores = Vec::with_capacity(total);
        for (done, pos) in positions.iter().enumerate() {
            // Scores lie in −21..=21.
            scores.push(solver.solve(pos, Strength::Strong) as i8);
            progress(done + 1, total);
        }
        Book {
            depth,
            keys: positions.iter().map(Position::symmetric_key).collect(),
            scores,
        }
    }

    /// The book as file bytes (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_BYTES + 9 * self.keys.len() + 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        // Width, height and depth are at most 42.
        out.extend_from_slice(&[WIDTH as u8, HEIGHT as u8, self.depth as u8, 0]);
        out.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for key in &self.keys {
            out.extend_from_slice(&key.to_le_bytes());
        }
        out.extend(self.scores.iter().map(|&s| s as u8));
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a book from file bytes, checking everything.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        let bad = |why: String| Err(BookError::Format(why));
        if bytes.len() < HEADER_BYTES + 8 || &bytes[..8] != MAGIC {
            return bad("missing the TC4BOOK header".into());
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let stored = u64::from_le_bytes(array(tail));
        let computed = fnv1a(body);
        if stored != computed {
            return bad(format!(
                "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupt"
            ));
        }
        let version = u32::from_le_bytes(array(&body[8..12]));
        if version != VERSION {
            return bad(format!("format version {version}, expected {VERSION}"));
        }
        let (width, height, depth) = (body[12], body[13], u32::from(body[14]));
        if (width as usize, height as usize) != (WIDTH, HEIGHT) {
            return bad(format!("board {width}x{height}, expected {WIDTH}x{HEIGHT}"));
        }
        let count = u64::from_le_bytes(array(&body[16..24]));
        let expected = usize::try_from(count)
            .ok()
            .and_then(|n| n.checked_mul(9))
            .and_then(|n| n.checked_add(HEADER_BYTES));
        if expected != Some(body.len()) {
            return bad(format!(
                "{count} positions need {expected:?} bytes, the file has {}",
                body.len()
            ));
        }
        let count = count as usize;
        let keys_end = HEADER_BYTES + 8 * count;
        let keys: Vec<u64> = body[HEADER_BYTES..keys_end]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(array(c)))
            .collect();
        let scores: Vec<i8> = body[keys_end..].iter().map(|&b| b as i8).collect();
        if keys.windows(2).any(|w| w[0] >= w[1]) {
            return bad("keys are not strictly increasing".into());
        }
        if let Some(s) = scores.iter().find(|s| !(-21..=21).contains(*s)) {
            return bad(format!("score {s} out of range -21..=21"));
        }
        Ok(Book {
            depth,
            keys,
            scores,
        })
    }

    /// Writes the book to `path`.
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        std::fs::write(path, self.to_bytes())?;
        Ok(())
    }

    /// Reads a book from `path`.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        Book::from_bytes(&std::fs::read(path)?)
    }
}

/// The first `N` bytes of `bytes` (callers pass slices of at least `N` bytes).
fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&bytes[..N]);
    out
}

/// FNV-1a, 64-bit: a simple checksum that catches flipped and truncated bytes.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_book() -> (Book, Position) {
        // Middle-Easy (Test_L2_R1), line 1, score 4.
        let root = Position::from_moves("5554224333234511764415115").expect("valid");
        let mut solver = Solver::new(1).expect("1 MiB");
        (Book::generate(&root, 27, &mut solver, |_, _| {}), root)
    }

    #[test]
    fn generated_book_round_trips_and_agrees_with_the_solver() {
        let (book, root) = small_book();
        assert!(book.len() > 20, "{}", book.len());
        let again = Book::from_bytes(&book.to_bytes()).expect("own bytes");
        assert_eq!(again, book);
        assert_eq!(book.get(&root), Some(4));
        // A solver with the book agrees with one without, on a child in and out of the book.
        let mut plain = Solver::new(1).expect("1 MiB");
        let mut booked = Solver::new(1).expect("1 MiB");
        booked.set_book(book.clone());
        for seq in ["55542243332345117644151151", "5554224333234511764415115"] {
            let pos = Position::from_moves(seq).expect("valid");
            let score = plain.solve(&pos, Strength::Strong);
            assert_eq!(booked.solve(&pos, Strength::Strong), score, "{seq}");
        }
    }

    #[test]
    fn corrupt_files_are_clear_errors() {
        let (book, _) = small_book();
        let bytes = book.to_bytes();
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
}
