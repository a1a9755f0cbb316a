//! Cells: the atomic words one entry lives in.
//!
//! A table is an array of cells shared by every search thread through `&self`, so a cell is
//! always made of atomics and every access is a relaxed load or store. Four shapes cover
//! the users we know: a 32-bit word (a solver's partial key and one byte), a 64-bit word (a
//! compact chess entry with a 16-bit key check), a 128-bit word (an exact solver entry for
//! position codes wider than 64 bits), and a run of 64-bit words verified with Hyatt's
//! lockless XOR (a full 64-bit key and 64 or 128 bits of payload). A fifth, [`DenseCell`],
//! holds three slots of 80 bits in 32 bytes (Stockfish's density, a 16-bit key check).
//!
//! A single-word cell cannot tear: the key check and the payload are written by one store.
//! A multi-word cell can, when two threads write it at once; [`XorCell`] stores the key
//! XOR-ed with every data word, so a reader that sees words from two different writes
//! computes a key that is not the one it asked for, and the torn cell reads as a miss.
//!
//! The 128-bit word is [`portable_atomic::AtomicU128`], not an `XorCell<2>`, because the XOR
//! rejects a torn read only *almost surely*: the first word a torn read computes is the
//! key word XOR-ed with two writes' data words, which passes the key check whenever those
//! data words agree in the checked bits. For random data that is a 2⁻⁴⁸ chance with a
//! 48-bit check, but an exact entry's data is not random: two writes for the same table key
//! whose second words differ only above the checked bits (the same position in another
//! epoch, when the epoch does not change the key) would pass every time, and the reader
//! would take a value that was never stored beside the code it reads. An entry that must never be wrong needs a cell that cannot tear
//! at all, so one 16-byte atomic it is: portable-atomic loads and stores it with a single
//! instruction where the CPU has one (on x86-64, chosen at run time: `VMOVDQA` with AVX,
//! which Intel and AMD guarantee atomic when aligned, else `CMPXCHG16B`; on AArch64
//! `LDP`/`STP` with LSE2, else an exclusive pair or `CASP`), and falls back
//! to its own lock-based implementation elsewhere, which is slower but never tears either.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};

mod sealed {
    pub trait Sealed {}
}

/// The atomic storage for packed entries: one slot a cell, or [`Cell::SLOTS`] of them.
///
/// The trait is sealed: the raw memory layer relies on every cell being valid when all its
/// bytes are zero (it allocates zeroed memory and hands it out as cells), and on its bits
/// [`Cell::EMPTY`] reading back as an empty slot.
pub trait Cell: sealed::Sealed + Send + Sync + 'static {
    /// The plain value one slot holds, as the entry codec sees it.
    type Bits: Copy + Eq + std::fmt::Debug + Send + Sync + 'static;
    /// The value of a slot whose bytes are all zero: an empty slot.
    const EMPTY: Self::Bits;
    /// Size of the cell in bytes, as stored in memory and in a saved table.
    const BYTES: usize;
    /// Slots (entries) the cell holds: 1 for every cell but [`DenseCell`], which holds
    /// three. A bucket of a table is a whole number of cells.
    const SLOTS: usize = 1;
    /// Bytes one slot takes in a saved table (its cell's bytes when the cell has one slot).
    const SLOT_BYTES: usize = Self::BYTES;
    /// Reads slot `slot` (below [`Cell::SLOTS`]) of the cell (relaxed).
    fn load(&self, slot: usize) -> Self::Bits;
    /// Writes slot `slot` (below [`Cell::SLOTS`]) of the cell (relaxed).
    fn store(&self, slot: usize, bits: Self::Bits);
    /// Serialises one slot's `bits` little-endian into `out`, which is
    /// [`Cell::SLOT_BYTES`] long.
    fn write_le(bits: Self::Bits, out: &mut [u8]);
    /// Reads one slot's bits back from [`Cell::SLOT_BYTES`] little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self::Bits;
}

/// A single atomic word as a cell: one relaxed load or store, which cannot tear.
macro_rules! word_cell {
    ($(#[$doc:meta])* $atomic:ty, $word:ty) => {
        impl sealed::Sealed for $atomic {}
        $(#[$doc])*
        impl Cell for $atomic {
            type Bits = $word;
            const EMPTY: $word = 0;
            const BYTES: usize = size_of::<$word>();
            #[inline]
            fn load(&self, _slot: usize) -> $word {
                <$atomic>::load(self, Relaxed)
            }
            #[inline]
            fn store(&self, _slot: usize, bits: $word) {
                <$atomic>::store(self, bits, Relaxed)
            }
            fn write_le(bits: $word, out: &mut [u8]) {
                out.copy_from_slice(&bits.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> $word {
                let mut word = [0; size_of::<$word>()];
                word.copy_from_slice(bytes);
                <$word>::from_le_bytes(word)
            }
        }
    };
}

word_cell!(AtomicU32, u32);
word_cell!(AtomicU64, u64);
word_cell!(
    /// One 16-byte atomic, for [`WideExactEntry`](crate::entry::WideExactEntry): a relaxed
    /// load or store that cannot tear (see the [module docs](self) for why not an
    /// [`XorCell<2>`]).
    ///
    /// What the raw memory layer relies on holds: portable-atomic documents that
    /// `AtomicU128` has the same in-memory representation as `u128`, so sixteen zero bytes
    /// are a valid cell holding 0, [`Cell::EMPTY`]; its alignment, 16, divides a cache line,
    /// so a cell never straddles two. Whether the CPU does it without a lock is
    /// [`portable_atomic::AtomicU128::is_lock_free`] (on x86-64, whether it has
    /// `CMPXCHG16B`; every x86-64 CPU of the last fifteen years has).
    ///
    /// Cost: unless the build enables those instructions (`-C target-cpu=native` on such a
    /// CPU), each load and store goes through a function pointer set at the first use; and
    /// without AVX a load is a locked `CMPXCHG16B`, which writes the cache line.
    portable_atomic::AtomicU128,
    u128
);

/// `N` 64-bit words with lockless XOR verification (Hyatt & Mann 2002).
///
/// Logically the cell holds `[key, data1, …, dataN-1]`. In memory the first word is
/// `key ^ data1 ^ … ^ dataN-1`; [`Cell::load`] undoes the XOR. A load that races with a store
/// and sees words from two writes therefore returns a first word that is almost surely not
/// any key, and the entry codec rejects it as a miss. Cost: `N - 1` XORs per load and store.
///
/// `N` must be at least 1 (the key word): a cell of no bytes would give the table buckets of
/// no bytes, so `XorCell<0>` is rejected when the program is compiled, wherever it is used as
/// a cell:
///
/// ```compile_fail
/// use transpo::cell::{Cell, XorCell};
/// let _ = <XorCell<0> as Cell>::BYTES;
/// ```
///
/// The same for any entry type packed into one, at the table that would hold it:
///
/// ```compile_fail
/// use transpo::{Bound, Table, cell::XorCell, entry::{Bits, Depth, Entry, Generation}};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Nothing;
/// impl Entry for Nothing {
///     type Cell = XorCell<0>;
///     const GENERATION_BITS: u32 = 0;
///     const LAYOUT: &'static str = "nothing";
///     fn pack(&self, _: u64, _: Generation) -> Bits<Self> { [] }
///     fn unpack(_: Bits<Self>) -> Option<(Self, Generation)> { None }
///     fn verifies(_: Bits<Self>, _: u64) -> bool { false }
///     fn depth(&self) -> Depth { 0 }
///     fn bound(&self) -> Bound { Bound::Exact }
/// }
/// let _ = Table::<Nothing>::with_mib(1);
/// ```
///
/// while one word compiles and works:
///
/// ```
/// use transpo::cell::{Cell, XorCell};
/// assert_eq!(<XorCell<1> as Cell>::BYTES, 8);
/// ```
#[repr(C)]
pub struct XorCell<const N: usize>([AtomicU64; N]);

impl<const N: usize> XorCell<N> {
    /// A compile-time error for `N = 0`. Evaluated in [`Cell::BYTES`] (which every table
    /// uses to size its buckets) and in every load and store, so no program that uses an
    /// `XorCell<0>` as a cell compiles.
    const NON_EMPTY: () = assert!(
        N >= 1,
        "XorCell<N> needs N >= 1: the first word holds the key"
    );
}

impl<const N: usize> sealed::Sealed for XorCell<N> {}
impl<const N: usize> Cell for XorCell<N> {
    type Bits = [u64; N];
    const EMPTY: [u64; N] = [0; N];
    const BYTES: usize = {
        let () = Self::NON_EMPTY;
        8 * N
    };
    #[inline]
    fn load(&self, _slot: usize) -> [u64; N] {
        let () = Self::NON_EMPTY;
        let mut bits = [0; N];
        let mut check = 0;
        for (bit, word) in bits.iter_mut().zip(&self.0) {
            *bit = word.load(Relaxed);
            check ^= *bit;
        }
        // `check` is now key ^ (data XOR-ed twice) = key, if the words belong together.
        if let Some(first) = bits.first_mut() {
            *first = check;
        }
        bits
    }
    #[inline]
    fn store(&self, _slot: usize, bits: [u64; N]) {
        let () = Self::NON_EMPTY;
        let check = bits.iter().fold(0, |acc, w| acc ^ w);
        for (i, (bit, word)) in bits.iter().zip(&self.0).enumerate() {
            // The first word stores key ^ data; `check` is key ^ data already.
            word.store(if i == 0 { check } else { *bit }, Relaxed);
        }
    }
    fn write_le(bits: [u64; N], out: &mut [u8]) {
        for (bit, chunk) in bits.iter().zip(out.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&bit.to_le_bytes());
        }
    }
    fn read_le(bytes: &[u8]) -> [u64; N] {
        let mut bits = [0; N];
        for (bit, chunk) in bits.iter_mut().zip(bytes.chunks_exact(8)) {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            *bit = u64::from_le_bytes(word);
        }
        bits
    }
}

/// Three 10-byte slots in 32 bytes, Stockfish's cluster (three 10-byte entries and two bytes
/// of padding) made of atomics: six slots a cache line, for
/// [`DenseChessEntry`](crate::entry::DenseChessEntry).
///
/// A slot's logical bits are 80 bits of a `u128`: a 64-bit word (bits 0..64, its low 16
/// bits the key check) and a 16-bit meta word (bits 64..80). In memory slot `i` is
/// `words[i]`, an [`AtomicU64`], and `metas[i]`, an [`AtomicU16`] (the fourth meta is
/// padding, always 0):
///
/// ```text
/// bytes  0..24  three 64-bit words, one per slot: check ^ meta (16), then 48 bits of data
/// bytes 24..32  three 16-bit metas, one per slot, and 16 bits of padding
/// ```
///
/// **Torn reads.** A slot is two atomics, so a load that races with stores may see the word
/// of one write (A) and the meta of another (B): the initial all-zero slot counts as a write
/// of word 0 and meta 0. The word is stored with its 16-bit check XOR-ed with its own meta
/// (Hyatt's lockless XOR, on the two words of a slot), so the load computes the check
/// `check_A ^ meta_A ^ meta_B`. Either `meta_A = meta_B`, and then the slot read is
/// exactly write A's (its word, and a meta equal to its own): a consistent entry; or they
/// differ, and the computed check differs from `check_A` in at least one bit, so the mix
/// never verifies against A's key (nor B's, unless B's check happens to equal that
/// value): it reads as a miss for the position that was stored, and as a false hit for
/// another position no more often than the 16-bit check already allows (one check value
/// in 65,536), which a chess engine survives anyway by testing the move's legality. No
/// order between the two stores is needed; the argument holds for any pair of values.
/// Slots do not share a word, so storing one slot never disturbs another.
#[repr(C, align(32))]
pub struct DenseCell {
    words: [AtomicU64; 3],
    metas: [AtomicU16; 4],
}

impl DenseCell {
    /// Bits of a slot's logical value: a 64-bit word and a 16-bit meta.
    const META_SHIFT: u32 = 64;

    /// Writes `meta` alone into `slot`, as the meta store of another write landing between a
    /// load's two reads would: a torn slot, for tests.
    #[cfg(test)]
    pub(crate) fn tear(&self, slot: usize, meta: u16) {
        self.metas[slot].store(meta, Relaxed);
    }
}

impl sealed::Sealed for DenseCell {}
impl Cell for DenseCell {
    type Bits = u128;
    const EMPTY: u128 = 0;
    const BYTES: usize = size_of::<DenseCell>();
    const SLOTS: usize = 3;
    const SLOT_BYTES: usize = 10;
    #[inline]
    fn load(&self, slot: usize) -> u128 {
        let word = self.words[slot].load(Relaxed);
        let meta = self.metas[slot].load(Relaxed);
        // Undo the XOR of the check with the meta (see the type's docs).
        u128::from(word ^ u64::from(meta)) | u128::from(meta) << Self::META_SHIFT
    }
    #[inline]
    fn store(&self, slot: usize, bits: u128) {
        debug_assert!(bits >> (Self::META_SHIFT + 16) == 0, "80 bits a slot");
        let meta = (bits >> Self::META_SHIFT) as u16;
        self.words[slot].store(bits as u64 ^ u64::from(meta), Relaxed);
        self.metas[slot].store(meta, Relaxed);
    }
    fn write_le(bits: u128, out: &mut [u8]) {
        out.copy_from_slice(&bits.to_le_bytes()[..Self::SLOT_BYTES]);
    }
    fn read_le(bytes: &[u8]) -> u128 {
        let mut all = [0; 16];
        all[..Self::SLOT_BYTES].copy_from_slice(bytes);
        u128::from_le_bytes(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zeroed<C: Cell>() -> C {
        // SAFETY: every `Cell` is made of atomics, for which all-zero bytes are valid; this is
        // the invariant the raw memory layer relies on, exercised here.
        unsafe { std::mem::zeroed() }
    }

    #[test]
    fn zeroed_cells_read_empty() {
        assert_eq!(Cell::load(&zeroed::<AtomicU32>(), 0), AtomicU32::EMPTY);
        assert_eq!(Cell::load(&zeroed::<AtomicU64>(), 0), AtomicU64::EMPTY);
        assert_eq!(zeroed::<XorCell<3>>().load(0), XorCell::<3>::EMPTY);
        let wide = zeroed::<portable_atomic::AtomicU128>();
        assert_eq!(Cell::load(&wide, 0), portable_atomic::AtomicU128::EMPTY);
        Cell::store(&wide, 0, u128::MAX - 1);
        assert_eq!(Cell::load(&wide, 0), u128::MAX - 1);
    }

    /// The 128-bit cell is one 16-byte word, 16-byte aligned (so that a cache line holds
    /// whole cells: `raw.rs` checks it), and on a CPU with a 16-byte atomic instruction it takes no lock.
    #[test]
    fn wide_cell_is_sixteen_aligned_bytes_and_lock_free_where_the_cpu_can() {
        use portable_atomic::AtomicU128;
        assert_eq!(size_of::<AtomicU128>(), 16);
        assert_eq!(<AtomicU128 as Cell>::BYTES, 16);
        assert_eq!(align_of::<AtomicU128>(), 16);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("cmpxchg16b") {
            assert!(AtomicU128::is_lock_free(), "cmpxchg16b is there");
        }
        #[cfg(target_arch = "aarch64")]
        assert!(
            AtomicU128::is_lock_free(),
            "every AArch64 CPU has 16-byte atomics"
        );
    }

    #[test]
    fn xor_cell_round_trips_and_hides_key_in_memory() {
        let cell: XorCell<3> = zeroed();
        let bits = [0x0123_4567_89ab_cdef, 0xdead_beef, u64::MAX];
        cell.store(0, bits);
        assert_eq!(cell.load(0), bits);
        assert_eq!(cell.0[0].load(Relaxed), bits[0] ^ bits[1] ^ bits[2]);
    }

    #[test]
    fn xor_cell_torn_write_changes_the_key() {
        let cell: XorCell<2> = zeroed();
        cell.store(0, [7, 100]);
        // Simulate a tear: the data word of another write lands without its key word.
        cell.0[1].store(200, Relaxed);
        assert_ne!(cell.load(0)[0], 7);
    }

    #[test]
    fn dense_cell_is_three_independent_slots_in_32_bytes() {
        assert_eq!((size_of::<DenseCell>(), align_of::<DenseCell>()), (32, 32));
        let cell: DenseCell = zeroed();
        assert!((0..3).all(|slot| cell.load(slot) == DenseCell::EMPTY));
        let bits = [(1 << 80) - 1, 0x1234_5678_9abc_def0_1357, 1 << 64 | 0xffff];
        for (slot, &b) in bits.iter().enumerate() {
            cell.store(slot, b);
        }
        for (slot, &b) in bits.iter().enumerate() {
            assert_eq!(cell.load(slot), b, "slot {slot}");
        }
        assert_eq!(cell.metas[3].load(Relaxed), 0, "the padding stays zero");
        let mut buf = [0u8; 10];
        DenseCell::write_le(bits[1], &mut buf);
        assert_eq!(DenseCell::read_le(&buf), bits[1]);
    }

    /// A torn slot (the word of one write, the meta of another) changes the check, unless
    /// the two metas agree, when the slot is exactly the first write.
    #[test]
    fn dense_cell_torn_slot_changes_the_check_or_is_whole() {
        let cell: DenseCell = zeroed();
        let write_a = 0x00ab_u128 << 64 | 0xdead_beef_0000_1234;
        cell.store(1, write_a);
        for meta_b in [0u16, 1, 0x00ab, 0x8000, 0xffff] {
            cell.metas[1].store(meta_b, Relaxed);
            let read = cell.load(1);
            if meta_b == 0x00ab {
                assert_eq!(read, write_a);
            } else {
                assert_ne!(read as u16, 0x1234, "meta {meta_b:x}");
            }
        }
    }

    #[test]
    fn little_endian_round_trip() {
        let mut buf = [0u8; 24];
        XorCell::<3>::write_le([1, 2, 3], &mut buf);
        assert_eq!(XorCell::<3>::read_le(&buf), [1, 2, 3]);
        let mut buf = [0u8; 4];
        AtomicU32::write_le(0xa1b2c3d4, &mut buf);
        assert_eq!(buf, [0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(AtomicU32::read_le(&buf), 0xa1b2c3d4);
        type Wide = portable_atomic::AtomicU128;
        let bits = 0x0f0e_0d0c_0b0a_0908_0706_0504_0302_0100;
        let mut buf = [0u8; 16];
        Wide::write_le(bits, &mut buf);
        assert_eq!(buf, std::array::from_fn(|i| i as u8));
        assert_eq!(Wide::read_le(&buf), bits);
    }
}
