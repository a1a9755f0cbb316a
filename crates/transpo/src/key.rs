//! Key mixing: turning a game's exact position code into a well-spread table key.
//!
//! The table takes its bucket index from the *high* bits of a key and entries check its *low*
//! bits, so keys must be spread over all 64 bits. Zobrist keys already are. An exact position
//! code (a Connect Four bitboard, a perfect hash of an endgame) is not, and must be mixed
//! first — bijectively, so that distinct positions keep distinct keys, which is what makes
//! [`crate::ExactEntry`] exact. [`mix`] is the 64-bit finalizer of SplitMix64 (Steele, Lea &
//! Flood 2014), two xor-shift-multiply rounds; [`unmix`] inverts it, which proves it bijective.

const M1: u64 = 0xbf58_476d_1ce4_e5b9;
const M2: u64 = 0x94d0_49bb_1331_11eb;

/// Mixes `x` into a key whose every bit depends on every bit of `x`. A bijection on `u64`.
#[inline]
pub const fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(M1);
    x = (x ^ (x >> 27)).wrapping_mul(M2);
    x ^ (x >> 31)
}

/// The inverse of [`mix`]: `unmix(mix(x)) == x` for every `x`.
pub const fn unmix(mut x: u64) -> u64 {
    x = undo_xor_shift(x, 31);
    x = undo_xor_shift(x.wrapping_mul(inverse(M2)), 27);
    undo_xor_shift(x.wrapping_mul(inverse(M1)), 30)
}

/// Solves `y ^ (y >> shift) == x` for `y`.
const fn undo_xor_shift(x: u64, shift: u32) -> u64 {
    let mut y = x;
    let mut known = shift;
    while known < 64 {
        y = x ^ (y >> shift);
        known += shift;
    }
    x ^ (y >> shift)
}

/// The multiplicative inverse of an odd number modulo 2⁶⁴ (Newton's iteration: each step
/// doubles the number of correct low bits, starting from 3 since `m·m ≡ 1 (mod 8)`).
const fn inverse(m: u64) -> u64 {
    let mut y = m;
    let mut i = 0;
    while i < 5 {
        y = y.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(y)));
        i += 1;
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmix_inverts_mix() {
        let mut x = 1u64;
        for _ in 0..100_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            assert_eq!(unmix(mix(x)), x);
            assert_eq!(mix(unmix(x)), x);
        }
        for x in [0, 1, u64::MAX, 1 << 63, 0x0123_4567_89ab_cdef] {
            assert_eq!(unmix(mix(x)), x);
        }
        assert_eq!(M1.wrapping_mul(inverse(M1)), 1);
    }

    #[test]
    fn small_codes_spread_to_the_high_bits() {
        // Consecutive small codes must land in different top bytes most of the time.
        let tops: std::collections::HashSet<u64> = (0..256u64).map(|x| mix(x) >> 56).collect();
        assert!(tops.len() > 150, "{}", tops.len());
    }
}
