//! A Polyglot opening-book reader.
//!
//! A Polyglot book is a file of 16-byte big-endian entries sorted by key:
//!
//! | bytes | field | meaning |
//! |---|---|---|
//! | 0..8 | key | Polyglot Zobrist key of the position ([`crate::zobrist`]) |
//! | 8..10 | move | [`crate::move16`]: bits 0–5 to-square, 6–11 from-square (`8 * rank + file`), 12–14 promotion (0 none, 1 knight, 2 bishop, 3 rook, 4 queen) |
//! | 10..12 | weight | relative frequency with which to play the move |
//! | 12..16 | learn | learning data, unused here |
//!
//! Castling is stored as the king taking its own rook (`e1h1`), which happens to be
//! cozy-chess's own encoding; moves come out of [`Book::moves`] as legal cozy-chess moves with
//! their UCI text (`e1g1`). A whole book is read into memory (the usual books are a few MB)
//! and checked on opening, so that a truncated or foreign file fails with a reason instead of
//! giving wrong moves later.
//!
//! Opening reads at most [`MAX_BOOK_BYTES`] (the largest published books are a few hundred
//! MB) and only from a regular file ([`transpo_files::open_regular`]): a `BookFile` naming
//! `/dev/zero`, a directory, a FIFO (named pipe) or a huge file is an error at once, not a
//! read that runs until memory runs out or an open that waits for a FIFO's writer. The size
//! is checked before reading and the read itself is limited too, since a file can grow
//! meanwhile.

use std::fmt;
use std::path::{Path, PathBuf};

use cozy_chess::{Move, Piece};

use crate::move16;
use crate::position::Position;
use crate::uci_move;

/// The seeded generator a book pick draws from: the transpo crate's, re-exported so that
/// `transpo_chess::SplitMix64` and `book::SplitMix64` keep working.
pub use transpo::key::SplitMix64;

/// Size of one book entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// Largest book [`Book::open`] reads, in bytes (1 GiB: 67 million entries).
pub const MAX_BOOK_BYTES: u64 = 1 << 30;

/// One raw 16-byte book entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BookEntry {
    /// Polyglot key of the position.
    pub key: u64,
    /// The move in Polyglot's 16-bit encoding ([`crate::move16`]).
    pub raw_move: u16,
    /// Relative weight.
    pub weight: u16,
    /// Learning data.
    pub learn: u32,
}

impl BookEntry {
    /// Decodes an entry from its 16 big-endian bytes.
    pub fn from_bytes(bytes: [u8; ENTRY_SIZE]) -> Self {
        let [
            k0,
            k1,
            k2,
            k3,
            k4,
            k5,
            k6,
            k7,
            m0,
            m1,
            w0,
            w1,
            l0,
            l1,
            l2,
            l3,
        ] = bytes;
        BookEntry {
            key: u64::from_be_bytes([k0, k1, k2, k3, k4, k5, k6, k7]),
            raw_move: u16::from_be_bytes([m0, m1]),
            weight: u16::from_be_bytes([w0, w1]),
            learn: u32::from_be_bytes([l0, l1, l2, l3]),
        }
    }

    /// Encodes the entry as 16 big-endian bytes.
    pub fn to_bytes(&self) -> [u8; ENTRY_SIZE] {
        let mut out = [0; ENTRY_SIZE];
        out[0..8].copy_from_slice(&self.key.to_be_bytes());
        out[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        out[10..12].copy_from_slice(&self.weight.to_be_bytes());
        out[12..16].copy_from_slice(&self.learn.to_be_bytes());
        out
    }
}

/// A book move that is legal in the position asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookMove {
    /// The move (castling as king-takes-rook, ready for [`Position::play`]).
    pub mv: Move,
    /// The move as UCI text (castling as `e1g1`).
    pub uci: String,
    /// Relative weight.
    pub weight: u16,
    /// Learning data.
    pub learn: u32,
}

/// Why a book could not be read.
#[derive(Debug)]
pub enum BookError {
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The error from the operating system.
        source: std::io::Error,
    },
    /// The size is not a whole number of 16-byte entries.
    Size {
        /// The size in bytes.
        len: u64,
    },
    /// The path is not a regular file (a directory, a device such as `/dev/zero`, a FIFO).
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead (e.g. "a FIFO (named pipe), not a regular file").
        reason: String,
    },
    /// The file is larger than [`MAX_BOOK_BYTES`].
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size in bytes (at least this much: reading stops past the limit).
        len: u64,
    },
    /// The entries are not sorted by key, so the file is not a Polyglot book (or is damaged).
    Unsorted {
        /// Index of the first entry whose key is smaller than its predecessor's.
        index: usize,
    },
    /// An entry's move field has a promotion code above 4 or bit 15 set.
    BadMove {
        /// Index of the entry.
        index: usize,
        /// The raw move field.
        raw_move: u16,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io { path, source } => {
                write!(f, "cannot read book {}: {source}", path.display())
            }
            BookError::Size { len } => write!(
                f,
                "book is {len} bytes, not a multiple of {ENTRY_SIZE}: truncated or not a \
                 Polyglot book"
            ),
            BookError::NotAFile { path, reason } => {
                write!(f, "cannot read book {}: {reason}", path.display())
            }
            BookError::TooLarge { path, len } => write!(
                f,
                "book {} is {len} bytes, more than the {MAX_BOOK_BYTES} a book may have",
                path.display()
            ),
            BookError::Unsorted { index } => write!(
                f,
                "book entry {index} has a smaller key than entry {}: Polyglot books are \
                 sorted by key",
                index - 1
            ),
            BookError::BadMove { index, raw_move } => write!(
                f,
                "book entry {index} has move field {raw_move:#06x}, whose promotion code {} \
                 is not 0-4",
                raw_move >> 12
            ),
        }
    }
}

impl std::error::Error for BookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BookError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A Polyglot opening book held in memory.
#[derive(Debug, Clone, Default)]
pub struct Book {
    entries: Vec<BookEntry>,
}

impl Book {
    /// Reads and checks a `.bin` book: a regular file of at most [`MAX_BOOK_BYTES`]. A
    /// directory, device or FIFO is refused at once ([`BookError::NotAFile`]), without
    /// waiting for a FIFO's writer.
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        use std::io::Read;
        let path = path.as_ref();
        let io_error = |source| BookError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = transpo_files::open_regular(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidInput {
                // open_regular's refusal of anything but a regular file.
                BookError::NotAFile {
                    path: path.to_path_buf(),
                    reason: e.to_string(),
                }
            } else {
                io_error(e)
            }
        })?;
        let metadata = file.metadata().map_err(io_error)?;
        let too_large = |len| BookError::TooLarge {
            path: path.to_path_buf(),
            len,
        };
        if metadata.len() > MAX_BOOK_BYTES {
            return Err(too_large(metadata.len()));
        }
        // The file may have grown since: read one byte past the limit to notice.
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        file.take(MAX_BOOK_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io_error)?;
        if bytes.len() as u64 > MAX_BOOK_BYTES {
            return Err(too_large(bytes.len() as u64));
        }
        Book::from_bytes(&bytes)
    }

    /// Parses and checks a book from its bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if !bytes.len().is_multiple_of(ENTRY_SIZE) {
            return Err(BookError::Size {
                len: bytes.len() as u64,
            });
        }
        let mut entries = Vec::with_capacity(bytes.len() / ENTRY_SIZE);
        for (index, chunk) in bytes.chunks_exact(ENTRY_SIZE).enumerate() {
            let mut raw = [0; ENTRY_SIZE];
            raw.copy_from_slice(chunk);
            let entry = BookEntry::from_bytes(raw);
            if entries
                .last()
                .is_some_and(|prev: &BookEntry| prev.key > entry.key)
            {
                return Err(BookError::Unsorted { index });
            }
            if !move16::has_valid_promotion(entry.raw_move) {
                return Err(BookError::BadMove {
                    index,
                    raw_move: entry.raw_move,
                });
            }
            entries.push(entry);
        }
        Ok(Book { entries })
    }

    /// A book from entries in any order (they are sorted by key, stably).
    pub fn from_entries(mut entries: Vec<BookEntry>) -> Book {
        entries.sort_by_key(|entry| entry.key);
        Book { entries }
    }

    /// The book as file bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.entries.iter().flat_map(BookEntry::to_bytes).collect()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries, sorted by key.
    pub fn entries(&self) -> &[BookEntry] {
        &self.entries
    }

    /// The entries stored under `key`, in file order.
    pub fn entries_for_key(&self, key: u64) -> &[BookEntry] {
        let start = self.entries.partition_point(|entry| entry.key < key);
        let len = self.entries[start..].partition_point(|entry| entry.key == key);
        &self.entries[start..start + len]
    }

    /// The book's moves for `pos` that are legal there, in file order (usually by weight,
    /// heaviest first). Entries whose move is illegal (a key collision) are left out.
    pub fn moves(&self, pos: &Position) -> Vec<BookMove> {
        self.entries_for_key(pos.key())
            .iter()
            .filter_map(|entry| {
                let mv = legal_book_move(pos, entry.raw_move)?;
                Some(BookMove {
                    mv,
                    uci: pos.move_to_uci(mv),
                    weight: entry.weight,
                    learn: entry.learn,
                })
            })
            .collect()
    }

    /// Picks one of the book's moves for `pos` with probability proportional to its weight;
    /// `None` if the book has no move of positive weight there.
    pub fn pick(&self, pos: &Position, rng: &mut SplitMix64) -> Option<BookMove> {
        let moves = self.moves(pos);
        let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
        if total == 0 {
            return None;
        }
        let mut point = rng.below(total);
        for book_move in moves {
            let weight = u64::from(book_move.weight);
            if point < weight {
                return Some(book_move);
            }
            point -= weight;
        }
        None
    }
}

/// The legal move a raw book move stands for in `pos`, if any. Castling is normally stored
/// king-takes-rook; the `e1g1` form some tools write is accepted too.
fn legal_book_move(pos: &Position, raw: u16) -> Option<Move> {
    let mv = move16::decode(raw)?;
    if pos.is_legal(mv) {
        return Some(mv);
    }
    let text = format!("{}{}", mv.from, mv.to);
    uci_move::parse(pos.board(), &text)
        .ok()
        .filter(|_| pos.board().piece_on(mv.from) == Some(Piece::King))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_bytes_round_trip() {
        let entry = BookEntry {
            key: 0x463b96181691fc9c,
            raw_move: 796,
            weight: 7,
            learn: 0xdeadbeef,
        };
        assert_eq!(BookEntry::from_bytes(entry.to_bytes()), entry);
        assert_eq!(entry.to_bytes()[0], 0x46);
    }

    #[test]
    fn rng_is_deterministic() {
        let mut a = SplitMix64::new(42);
        let mut b = SplitMix64::new(42);
        assert_eq!(a.next_u64(), b.next_u64());
        assert!((0..1000).all(|_| a.below(3) < 3));
    }
}
