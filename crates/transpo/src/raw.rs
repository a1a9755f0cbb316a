//! Raw memory: the one layer that allocates, aligns and frees the cell array.
//!
//! Everything above this module is safe code working on `&[C]`. This module owns the only
//! pointer, and its invariants are few: the memory is zeroed (a valid, empty state for every
//! [`Cell`]), aligned to at least a cache line so a bucket that divides 64 bytes never
//! straddles two lines, and lives exactly as long as the [`RawCells`] value.
//!
//! On Linux the memory comes from an anonymous `mmap` (zeroed lazily by the kernel, so a
//! 64 GiB table costs nothing until it is touched), aligned to 2 MiB and advised for
//! transparent huge pages, which saves a TLB miss on most probes of a large table. Elsewhere
//! it comes from the global allocator. Either way, failure is an [`Error`], never an abort.

use crate::{cell::Cell, error::Error};
use std::{marker::PhantomData, ptr::NonNull};

/// Alignment of every table: one cache line.
pub(crate) const CACHE_LINE: usize = 64;

/// A zeroed, aligned, owned array of cells.
pub(crate) struct RawCells<C: Cell> {
    ptr: NonNull<C>,
    len: usize,
    mapping: Mapping,
    _cells: PhantomData<C>,
}

// SAFETY: `RawCells` owns its memory exclusively, like a `Box<[C]>`, and `C: Cell` is made of
// atomics (`Send + Sync`), so sending or sharing the array is as safe as sharing the cells.
unsafe impl<C: Cell> Send for RawCells<C> {}
// SAFETY: see `Send`: shared access only hands out `&[C]`, and cells are atomics.
unsafe impl<C: Cell> Sync for RawCells<C> {}

impl<C: Cell> RawCells<C> {
    /// Allocates `len` zeroed cells.
    pub(crate) fn zeroed(len: usize) -> Result<Self, Error> {
        // The memory is aligned to a cache line, so no cell may ask for more.
        const {
            assert!(
                CACHE_LINE.is_multiple_of(align_of::<C>()),
                "a cell's alignment must divide a cache line"
            );
        }
        if len == 0 {
            return Err(Error::InvalidSize(
                "a table needs at least one entry".into(),
            ));
        }
        let bytes = len
            .checked_mul(size_of::<C>())
            .filter(|&b| b <= isize::MAX as usize - HUGE_PAGE)
            .ok_or(Error::TooLarge {
                bytes: u64::MAX,
                limit: physical_memory(),
            })?;
        if let Some(limit) = physical_memory()
            && bytes as u64 > limit
        {
            return Err(Error::TooLarge {
                bytes: bytes as u64,
                limit: Some(limit),
            });
        }
        let (ptr, mapping) = Mapping::zeroed(bytes)?;
        Ok(Self {
            ptr: ptr.cast(),
            len,
            mapping,
            _cells: PhantomData,
        })
    }

    /// The cells.
    #[inline]
    pub(crate) fn cells(&self) -> &[C] {
        // SAFETY: `ptr` points to `len` cells we allocated, aligned to at least a cache line
        // (≥ the alignment of any cell), zero-initialised (valid for every `Cell`, which are
        // atomics), and freed only in `drop`, so the slice cannot outlive the memory. Cells
        // are only ever accessed through shared references to atomics.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// Size of the allocation in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.len * size_of::<C>()
    }
}

impl<C: Cell> Drop for RawCells<C> {
    fn drop(&mut self) {
        self.mapping.free(self.ptr.cast());
    }
}

/// Huge page size that large tables are aligned to.
const HUGE_PAGE: usize = 2 << 20;

/// Total physical memory, if the platform tells.
pub(crate) fn physical_memory() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sysconf` has no preconditions; it returns -1 for unknown names.
        let (pages, page_size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && page_size > 0 {
            return Some(pages as u64 * page_size as u64);
        }
    }
    None
}

/// How the memory was obtained, so it is returned the same way.
#[cfg(target_os = "linux")]
struct Mapping {
    /// Start and length of the whole mapping (the cells start at the aligned offset).
    base: *mut libc::c_void,
    len: usize,
}

#[cfg(target_os = "linux")]
impl Mapping {
    fn zeroed(bytes: usize) -> Result<(NonNull<u8>, Self), Error> {
        let align = if bytes >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            CACHE_LINE
        };
        let len = bytes + align;
        // SAFETY: an anonymous private mapping with no address hint touches no existing
        // memory; the result is checked for MAP_FAILED before use.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(Error::Alloc {
                bytes: bytes as u64,
                reason: std::io::Error::last_os_error().to_string(),
            });
        }
        let offset = (align - base as usize % align) % align;
        // SAFETY: `offset < align` and the mapping is `bytes + align` long, so the aligned
        // start and the `bytes` after it lie inside the mapping.
        let start = unsafe { base.cast::<u8>().add(offset) };
        if align == HUGE_PAGE {
            // Advice only: failure (e.g. THP disabled) leaves ordinary pages, which is fine.
            // SAFETY: the range lies inside our own mapping (see above).
            unsafe { libc::madvise(start.cast(), bytes, libc::MADV_HUGEPAGE) };
        }
        let start = NonNull::new(start).ok_or(Error::Alloc {
            bytes: bytes as u64,
            reason: "mmap returned a null address".into(),
        })?;
        Ok((start, Self { base, len }))
    }

    fn free(&mut self, _start: NonNull<u8>) {
        // SAFETY: `base`/`len` are exactly what `mmap` returned; the cells that pointed into
        // the mapping are gone with `&mut self`.
        unsafe { libc::munmap(self.base, self.len) };
    }
}

#[cfg(not(target_os = "linux"))]
struct Mapping {
    layout: std::alloc::Layout,
}

#[cfg(not(target_os = "linux"))]
impl Mapping {
    fn zeroed(bytes: usize) -> Result<(NonNull<u8>, Self), Error> {
        let layout =
            std::alloc::Layout::from_size_align(bytes, CACHE_LINE).map_err(|e| Error::Alloc {
                bytes: bytes as u64,
                reason: e.to_string(),
            })?;
        // SAFETY: `layout` has a non-zero size (checked by the caller).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::Alloc {
            bytes: bytes as u64,
            reason: "the allocator returned no memory".into(),
        })?;
        Ok((ptr, Self { layout }))
    }

    fn free(&mut self, start: NonNull<u8>) {
        // SAFETY: `start` was returned by `alloc_zeroed` with this very layout.
        unsafe { std::alloc::dealloc(start.as_ptr(), self.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn small_and_huge_allocations_are_zeroed_and_aligned() {
        for len in [1, 8, 1000, (4 << 20) / 8] {
            let raw = RawCells::<AtomicU64>::zeroed(len).expect("small allocation");
            assert_eq!(raw.cells().len(), len);
            assert_eq!(raw.cells().as_ptr() as usize % CACHE_LINE, 0);
            assert!(raw.cells().iter().all(|c| Cell::load(c, 0) == 0));
            Cell::store(&raw.cells()[len - 1], 0, 42);
            assert_eq!(Cell::load(&raw.cells()[len - 1], 0), 42);
            assert_eq!(raw.bytes(), len * 8);
        }
        let wide = RawCells::<portable_atomic::AtomicU128>::zeroed(8).expect("128 bytes");
        assert_eq!(wide.cells().as_ptr() as usize % CACHE_LINE, 0);
        assert_eq!(CACHE_LINE % align_of::<portable_atomic::AtomicU128>(), 0);
    }

    #[test]
    fn impossible_sizes_are_errors() {
        assert!(matches!(
            RawCells::<AtomicU64>::zeroed(usize::MAX / 4),
            Err(Error::TooLarge { .. })
        ));
        if let Some(limit) = physical_memory() {
            let too_many = (limit / 8 + 1) as usize;
            assert!(matches!(
                RawCells::<AtomicU64>::zeroed(too_many),
                Err(Error::TooLarge { .. })
            ));
        }
    }
}
