//! A 4-byte entry for exhaustive solvers (Connect Four and the like).

use super::{
    bound::Bound,
    packing::{Bits, Depth, Entry, Generation},
};
use std::num::NonZeroU8;

/// Key check bits kept by a [`SolverEntry`].
const CHECK_BITS: u32 = 24;

/// A 4-byte entry, sixteen to a cache line: 24 low key bits and one non-zero byte, which a
/// solver uses for its own score-and-bound code (0 marks the empty slot, hence `NonZeroU8`).
///
/// Layout: bits 0..24 key check, 24..32 value. No depth and no generation: solvers search
/// to the end, so every entry is as deep as any other, and the table is cleared per problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SolverEntry {
    /// The solver's byte.
    pub value: NonZeroU8,
}

impl Entry for SolverEntry {
    type Cell = std::sync::atomic::AtomicU32;
    const GENERATION_BITS: u32 = 0;
    const LAYOUT: &'static str = "solver-u32-v1";

    #[inline]
    fn pack(&self, key: u64, _generation: Generation) -> Bits<Self> {
        (key as u32 & ((1 << CHECK_BITS) - 1)) | u32::from(self.value.get()) << CHECK_BITS
    }

    #[inline]
    fn unpack(bits: Bits<Self>) -> Option<(Self, Generation)> {
        let value = NonZeroU8::new((bits >> CHECK_BITS) as u8)?;
        Some((SolverEntry { value }, 0))
    }

    #[inline]
    fn verifies(bits: Bits<Self>, key: u64) -> bool {
        (bits ^ key as u32) & ((1 << CHECK_BITS) - 1) == 0
    }

    fn depth(&self) -> Depth {
        0
    }

    fn bound(&self) -> Bound {
        Bound::Exact
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::testing::assert_round_trips;

    #[test]
    fn every_value_round_trips() {
        for v in 1..=u8::MAX {
            assert_round_trips(SolverEntry {
                value: NonZeroU8::new(v).expect("v starts at 1"),
            });
        }
    }
}
