//! Saving a table to a file and loading it back.
//!
//! File format, all integers little-endian:
//!
//! ```text
//! magic        8 bytes   b"TRANSPO\0"
//! version      u32       FORMAT_VERSION (2)
//! layout len   u32       ≤ 256
//! layout       bytes     Entry::LAYOUT, UTF-8
//! scheme len   u32       ≤ 64
//! scheme       bytes     the replacement scheme's name (Scheme's Display), UTF-8
//! stamping     u8        1 with time stamping, 0 without
//! cell bytes   u32
//! ways         u32
//! buckets      u64
//! generation   u32
//! cells        buckets × ways × cell bytes, each cell as its logical words
//! checksum     u64       over every byte above
//! ```
//!
//! Everything that gives the cells their meaning is in the header: the entry layout, the
//! replacement scheme (a TWODEEP table keeps its deeper entry in the first slot of a bucket,
//! a depth-and-age one anywhere), time stamping (which reads the generations) and the shape.
//! A file only loads into a table that agrees on all of it; only
//! [`Config::counting`](crate::table::Config::counting), which changes no cell, may differ.
//! Version 1 files, which did not record the scheme, are rejected with a message saying so.
//!
//! Loading reads the header, checks it against the table (and, for a file, the file's length
//! against the header), and only then allocates fresh memory for exactly the table's cells
//! and reads them; it never reads more than the header promised plus one byte, so an endless
//! or corrupt input (`/dev/zero`, `/dev/urandom`, a pipe) cannot make it read or allocate
//! without bound. The new cells are swapped in only when everything checked out, so a
//! truncated, corrupted or mismatched file leaves the table as it was.

use crate::{
    cell::Cell,
    entry::Entry,
    error::Error,
    raw::RawCells,
    scheme::Scheme,
    table::{Instrumented, Table},
};
use std::{
    fs::File,
    io::{BufReader, BufWriter, ErrorKind, Read, Write},
    path::Path,
};

const MAGIC: &[u8; 8] = b"TRANSPO\0";
/// Version of the file format this build writes and reads.
pub const FORMAT_VERSION: u32 = 2;
/// Longest entry layout name a file may hold.
const MAX_LAYOUT_BYTES: usize = 256;
/// Longest scheme name a file may hold.
const MAX_SCHEME_BYTES: usize = 64;
/// Cells per I/O chunk (fewer for a smaller table). The chunks bypass the 8 KiB buffers of
/// the reader and writer, which only gather the header's small fields, so saving or loading
/// a small table allocates little.
const CHUNK_CELLS: usize = 1 << 16;

/// A table file at a path, for [`Table::save`] and [`Table::load`].
///
/// Saved atomically ([`transpo_files::write_atomic`]): the table goes to a new temporary
/// file beside the path (created with `O_CREAT | O_EXCL` under a fresh name, so a link or a
/// file someone left there is never written through or consumed), which is synced and
/// renamed over the path, and the directory synced, so that once the save returns the new
/// file survives a crash of the machine under its name. On any failure (a full disk, the
/// path a directory, or a FIFO, socket or device, which renaming would replace) the
/// temporary file is removed and the path keeps its old contents.
///
/// Loaded only from a regular file ([`transpo_files::open_regular`]): a FIFO, directory or
/// device is refused at once, without waiting for a FIFO's writer, and a file whose length
/// is not the one its header promises is rejected before its entries are read.
///
/// ```no_run
/// use transpo::{ChessEntry, Table, persist::TableFile};
///
/// let mut table = Table::<ChessEntry>::with_mib(16)?;
/// table.save(TableFile("engine.tt"))?;
/// table.load(TableFile("engine.tt"))?;
/// # Ok::<(), transpo::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableFile<P: AsRef<Path>>(pub P);

/// Where [`Table::save`] writes: any [`Write`] (a `&mut Vec<u8>`, a socket, an open file),
/// or a [`TableFile`]. Sealed: this crate's two kinds are all there is.
pub trait SaveTo: sealed::SaveTo {}

/// Where [`Table::load`] reads from: any [`Read`] (a `&[u8]`, a socket, an open file), or a
/// [`TableFile`]. Sealed: this crate's two kinds are all there is.
pub trait LoadFrom: sealed::LoadFrom {}

/// The methods behind [`SaveTo`] and [`LoadFrom`], out of users' reach.
mod sealed {
    use crate::{entry::Entry, error::Error, table::Table};

    pub trait SaveTo {
        /// Saves `table` here.
        fn save<E: Entry>(self, table: &Table<E>) -> Result<(), Error>;
    }

    pub trait LoadFrom {
        /// Loads `table` from here.
        fn load<E: Entry>(self, table: &mut Table<E>) -> Result<(), Error>;
    }
}

impl<W: Write> SaveTo for W {}
impl<P: AsRef<Path>> SaveTo for TableFile<P> {}
impl<R: Read> LoadFrom for R {}
impl<P: AsRef<Path>> LoadFrom for TableFile<P> {}

impl<W: Write> sealed::SaveTo for W {
    fn save<E: Entry>(self, table: &Table<E>) -> Result<(), Error> {
        table.write_to(self)
    }
}

impl<P: AsRef<Path>> sealed::SaveTo for TableFile<P> {
    fn save<E: Entry>(self, table: &Table<E>) -> Result<(), Error> {
        transpo_files::write_atomic(self.0, |file: &File| table.write_to(file))
    }
}

impl<R: Read> sealed::LoadFrom for R {
    fn load<E: Entry>(self, table: &mut Table<E>) -> Result<(), Error> {
        table.read_from(self, None)
    }
}

impl<P: AsRef<Path>> sealed::LoadFrom for TableFile<P> {
    fn load<E: Entry>(self, table: &mut Table<E>) -> Result<(), Error> {
        let file = transpo_files::open_regular(self.0).map_err(|e| match e.kind() {
            // The refusal of a FIFO, directory or device: the message says which it is.
            ErrorKind::InvalidInput => Error::Corrupt(e.to_string()),
            _ => Error::Io(e),
        })?;
        let length = file.metadata()?.len();
        table.read_from(file, Some(length))
    }
}

impl<E: Entry> Table<E> {
    /// Writes the table to `to`: a [`Write`], or a [`TableFile`], which is replaced
    /// atomically. Concurrent stores during a save are allowed; the file then holds each
    /// cell as it was at some moment during the save.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the output cannot be written, or a [`TableFile`]'s path is (or
    /// links to) a FIFO, socket or device: renaming a table over `/dev/null` or a named pipe
    /// would replace it, so [`transpo_files::write_atomic`] refuses that and nothing is
    /// written. [`Error::Config`] when the table uses only part of its buckets
    /// ([`Instrumented::use_buckets`]).
    pub fn save(&self, to: impl SaveTo) -> Result<(), Error> {
        sealed::SaveTo::save(to, self)
    }

    /// Replaces the table's contents by a saved table of the same layout, configuration
    /// (scheme and time stamping) and size, read from `from`: a [`Read`], or a [`TableFile`],
    /// which must be a regular file of the length its header promises. On any error the
    /// table is left untouched.
    ///
    /// Reads at most the length the header promises plus one byte (to see that the input
    /// ends there), and allocates only after the header matched the table.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for input that is not a whole, intact table file (or a path that
    /// is not a regular file), [`Error::Mismatch`] for a table file of another format
    /// version, layout, scheme, time stamping or size, [`Error::Io`] (a file that cannot be
    /// opened, too) and the allocation errors otherwise.
    pub fn load(&mut self, from: impl LoadFrom) -> Result<(), Error> {
        sealed::LoadFrom::load(from, self)
    }

    /// [`Table::save`] to a writer.
    fn write_to(&self, out: impl Write) -> Result<(), Error> {
        let shape = self.shape();
        if shape.buckets_in_use != shape.buckets {
            return Err(Error::Config(format!(
                "the table uses {} of its {} buckets; grow it to all of them before saving",
                shape.buckets_in_use, shape.buckets
            )));
        }
        let scheme = shape.config.scheme.to_string();
        let mut out = ChecksumWriter::new(BufWriter::new(out));
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        out.write_all(&(E::LAYOUT.len() as u32).to_le_bytes())?;
        out.write_all(E::LAYOUT.as_bytes())?;
        out.write_all(&(scheme.len() as u32).to_le_bytes())?;
        out.write_all(scheme.as_bytes())?;
        out.write_all(&[u8::from(shape.config.stamping)])?;
        out.write_all(&(<E::Cell as Cell>::BYTES as u32).to_le_bytes())?;
        out.write_all(&(shape.ways as u32).to_le_bytes())?;
        out.write_all(&(shape.buckets as u64).to_le_bytes())?;
        out.write_all(&self.generation().to_le_bytes())?;
        let size = <E::Cell as Cell>::BYTES;
        let mut buf = vec![0; CHUNK_CELLS.min(self.cells().len()) * size];
        for cells in self.cells().chunks(CHUNK_CELLS) {
            for (cell, bytes) in cells.iter().zip(buf.chunks_exact_mut(size)) {
                // Slot after slot; a cell's padding after its slots stays zero.
                let slots = bytes.chunks_exact_mut(<E::Cell as Cell>::SLOT_BYTES);
                for (slot, out) in slots.take(<E::Cell as Cell>::SLOTS).enumerate() {
                    <E::Cell as Cell>::write_le(cell.load(slot), out);
                }
            }
            out.write_all(&buf[..cells.len() * size])?;
        }
        let (mut inner, checksum) = out.finish();
        inner.write_all(&checksum.to_le_bytes())?;
        inner.flush()?;
        Ok(())
    }

    /// [`Table::load`] from a reader, with the input's total length when it is known: the
    /// header, checked against the table step by step, then the cells into fresh memory,
    /// the checksum, and only then the swap.
    fn read_from(&mut self, input: impl Read, length: Option<u64>) -> Result<(), Error> {
        let mut input = ChecksumReader::new(BufReader::new(input));
        read_version(&mut input)?;
        self.read_configuration(&mut input)?;
        let generation = self.read_shape(&mut input)?;
        // The header matched, so the entries are exactly this table's bytes: the length is
        // bounded by the memory the table already has.
        let expected = input.position() + self.shape().bytes as u64 + 8;
        check_length(length, expected)?;
        let cells = self.read_cells(&mut input)?;
        read_checksum(input)?;
        self.adopt(cells, generation);
        Ok(())
    }

    /// Reads the entry layout, the replacement scheme and the time stamping flag, and checks
    /// them against this table's.
    fn read_configuration<R: Read>(&self, input: &mut ChecksumReader<R>) -> Result<(), Error> {
        let layout = input.text(MAX_LAYOUT_BYTES, "layout")?;
        if layout != E::LAYOUT.as_bytes() {
            return Err(Error::Mismatch(format!(
                "entry layout {:?}, this table holds {:?}",
                String::from_utf8_lossy(&layout),
                E::LAYOUT
            )));
        }
        let scheme = read_scheme(input)?;
        let stamping = match input.array::<1>("time stamping")? {
            [0] => false,
            [1] => true,
            [other] => {
                return Err(Error::Corrupt(format!(
                    "time stamping flag {other}, expected 0 or 1"
                )));
            }
        };
        let config = self.shape().config;
        if scheme != config.scheme || stamping != config.stamping {
            let with = |stamping| if stamping { "with" } else { "without" };
            return Err(Error::Mismatch(format!(
                "the file was saved by a table with scheme {scheme} {} time stamping, this \
                 table has scheme {} {} time stamping; make the table with the file's \
                 configuration first",
                with(stamping),
                config.scheme,
                with(config.stamping)
            )));
        }
        Ok(())
    }

    /// Reads the cell size, ways and bucket count, checks them against this table's, and
    /// returns the saved generation.
    fn read_shape<R: Read>(&self, input: &mut ChecksumReader<R>) -> Result<u32, Error> {
        let shape = self.shape();
        let cell_bytes = u32::from_le_bytes(input.array("cell size")?) as usize;
        let ways = u32::from_le_bytes(input.array("ways")?) as usize;
        let buckets = u64::from_le_bytes(input.array("bucket count")?);
        let generation = u32::from_le_bytes(input.array("generation")?);
        if cell_bytes != <E::Cell as Cell>::BYTES
            || ways != shape.ways
            || buckets != shape.buckets as u64
        {
            return Err(Error::Mismatch(format!(
                "the file holds {buckets} buckets of {ways} × {cell_bytes}-byte entries, this \
                 table {} buckets of {} × {}; resize the table to the file's size first",
                shape.buckets,
                shape.ways,
                <E::Cell as Cell>::BYTES
            )));
        }
        Ok(generation)
    }

    /// Reads this table's number of cells into fresh memory, a chunk at a time.
    fn read_cells<R: Read>(
        &self,
        input: &mut ChecksumReader<R>,
    ) -> Result<RawCells<E::Cell>, Error> {
        let count = self.cells().len();
        let cell_bytes = <E::Cell as Cell>::BYTES;
        let cells = RawCells::<E::Cell>::zeroed(count)?;
        let mut buf = vec![0; CHUNK_CELLS.min(count) * cell_bytes];
        for chunk in cells.cells().chunks(CHUNK_CELLS) {
            let bytes = &mut buf[..chunk.len() * cell_bytes];
            input.exact(bytes, "entries")?;
            for (cell, bytes) in chunk.iter().zip(bytes.chunks_exact(cell_bytes)) {
                let slots = bytes.chunks_exact(<E::Cell as Cell>::SLOT_BYTES);
                for (slot, slot_bytes) in slots.take(<E::Cell as Cell>::SLOTS).enumerate() {
                    cell.store(slot, <E::Cell as Cell>::read_le(slot_bytes));
                }
            }
        }
        Ok(cells)
    }
}

/// Reads the magic and the format version: a table file of the version this build reads.
fn read_version<R: Read>(input: &mut ChecksumReader<R>) -> Result<(), Error> {
    let magic: [u8; 8] = input.array("magic")?;
    if &magic != MAGIC {
        return Err(Error::Corrupt(
            "not a transpo table file (bad magic)".into(),
        ));
    }
    let version = u32::from_le_bytes(input.array("version")?);
    if version == 1 {
        return Err(Error::Mismatch(format!(
            "format version 1, which does not record the replacement scheme; this build \
             reads version {FORMAT_VERSION} only: save the table again"
        )));
    }
    if version != FORMAT_VERSION {
        return Err(Error::Mismatch(format!(
            "format version {version}, this build reads version {FORMAT_VERSION}"
        )));
    }
    Ok(())
}

/// Reads the replacement scheme's name: only the exact name the scheme prints (parsing
/// alone would also take "DEEP ").
fn read_scheme<R: Read>(input: &mut ChecksumReader<R>) -> Result<Scheme, Error> {
    let scheme = input.text(MAX_SCHEME_BYTES, "scheme")?;
    std::str::from_utf8(&scheme)
        .ok()
        .and_then(|name| name.parse().ok().filter(|s: &Scheme| s.to_string() == name))
        .ok_or_else(|| {
            Error::Corrupt(format!(
                "unknown replacement scheme {:?}",
                String::from_utf8_lossy(&scheme)
            ))
        })
}

/// Checks a file's length, when it is known, against the `expected` length its header
/// gives, before any entry is read.
fn check_length(length: Option<u64>, expected: u64) -> Result<(), Error> {
    match length {
        Some(length) if length < expected => Err(Error::Corrupt(format!(
            "truncated file: {length} bytes, its header needs {expected}"
        ))),
        Some(length) if length > expected => Err(Error::Corrupt(format!(
            "{} bytes of data after the checksum ({length} bytes, its header needs \
             {expected})",
            length - expected
        ))),
        _ => Ok(()),
    }
}

/// Reads the stored checksum and compares it with the one computed over everything read,
/// then checks that nothing follows it.
fn read_checksum<R: Read>(input: ChecksumReader<R>) -> Result<(), Error> {
    let (mut inner, computed) = input.finish();
    let mut stored = [0; 8];
    read_exact_or_truncated(&mut inner, &mut stored, "checksum")?;
    if u64::from_le_bytes(stored) != computed {
        return Err(Error::Corrupt("checksum mismatch".into()));
    }
    if inner.read(&mut [0])? != 0 {
        return Err(Error::Corrupt("data after the checksum".into()));
    }
    Ok(())
}

fn read_exact_or_truncated(input: &mut impl Read, buf: &mut [u8], what: &str) -> Result<(), Error> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        ErrorKind::UnexpectedEof => {
            Error::Corrupt(format!("truncated file: it ends in the {what}"))
        }
        _ => Error::Io(e),
    })
}

/// A 64-bit checksum over a byte stream: each 8-byte word goes through a bijective mix, so
/// any single changed word (hence any flipped bit) changes the result.
#[derive(Default)]
struct Checksum {
    state: u64,
    tail: Vec<u8>,
    length: u64,
}

impl Checksum {
    fn mix(&mut self, word: u64) {
        self.state = (self.state ^ word)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }

    fn update(&mut self, mut bytes: &[u8]) {
        self.length += bytes.len() as u64;
        if !self.tail.is_empty() {
            let take = (8 - self.tail.len()).min(bytes.len());
            self.tail.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.tail.len() == 8 {
                let word = u64::from_le_bytes(std::array::from_fn(|i| self.tail[i]));
                self.mix(word);
                self.tail.clear();
            }
        }
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.mix(u64::from_le_bytes(std::array::from_fn(|i| word[i])));
        }
        self.tail.extend_from_slice(words.remainder());
    }

    fn finish(mut self) -> u64 {
        let mut last = [0; 8];
        last[..self.tail.len()].copy_from_slice(&self.tail);
        self.mix(u64::from_le_bytes(last));
        let length = self.length;
        self.mix(length);
        self.state
    }
}

struct ChecksumWriter<W> {
    inner: W,
    sum: Checksum,
}

impl<W: Write> ChecksumWriter<W> {
    fn new(inner: W) -> Self {
        Self {
            inner,
            sum: Checksum::default(),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sum.update(bytes);
        self.inner.write_all(bytes)
    }

    fn finish(self) -> (W, u64) {
        (self.inner, self.sum.finish())
    }
}

struct ChecksumReader<R> {
    inner: R,
    sum: Checksum,
}

impl<R: Read> ChecksumReader<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            sum: Checksum::default(),
        }
    }

    fn exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), Error> {
        read_exact_or_truncated(&mut self.inner, buf, what)?;
        self.sum.update(buf);
        Ok(())
    }

    /// A length-prefixed (u32) byte string of at most `max` bytes.
    fn text(&mut self, max: usize, what: &str) -> Result<Vec<u8>, Error> {
        let len = u32::from_le_bytes(self.array(what)?) as usize;
        if len > max {
            return Err(Error::Corrupt(format!(
                "{what} name of {len} bytes, the most is {max}"
            )));
        }
        let mut text = vec![0; len];
        self.exact(&mut text, what)?;
        Ok(text)
    }

    /// Bytes read so far.
    fn position(&self) -> u64 {
        self.sum.length
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Error> {
        let mut buf = [0; N];
        self.exact(&mut buf, what)?;
        Ok(buf)
    }

    fn finish(self) -> (R, u64) {
        (self.inner, self.sum.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_does_not_depend_on_chunking() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut whole = Checksum::default();
        whole.update(&data);
        let mut pieces = Checksum::default();
        for piece in data.chunks(13) {
            pieces.update(piece);
        }
        assert_eq!(whole.finish(), pieces.finish());
    }

    #[test]
    fn checksum_sees_every_bit_and_the_length() {
        let data = vec![0u8; 64];
        let sum = |d: &[u8]| {
            let mut c = Checksum::default();
            c.update(d);
            c.finish()
        };
        let base = sum(&data);
        for bit in 0..data.len() * 8 {
            let mut flipped = data.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert_ne!(sum(&flipped), base, "bit {bit}");
        }
        assert_ne!(sum(&data[..63]), base);
    }
}
