//! Key mixing: turning a game's exact position code into a well-spread table key.
//!
//! The table takes its bucket index from the *high* bits of a key and entries check its *low*
//! bits, so keys must be spread over all 64 bits. Zobrist keys already are. An exact position
//! code (a Connect Four bitboard, a perfect hash of an endgame) is not, and must be mixed
//! first — bijectively, so that distinct positions keep distinct keys, which is what makes
//! [`ExactEntry`](crate::entry::ExactEntry) exact. [`mix`] is the 64-bit finalizer of
//! SplitMix64 (Steele, Lea & Flood 2014), two xor-shift-multiply rounds; the tests invert it,
//! which proves it bijective.
//!
//! [`SplitMix64`] is the whole generator, for reproducible pseudo-random keys and choices.

const M1: u64 = 0xbf58_476d_1ce4_e5b9;
const M2: u64 = 0x94d0_49bb_1331_11eb;
/// SplitMix64's increment: 2⁶⁴ divided by the golden ratio, rounded to odd.
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Mixes `x` into a key whose every bit depends on every bit of `x`. A bijection on `u64`.
#[inline]
pub const fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(M1);
    x = (x ^ (x >> 27)).wrapping_mul(M2);
    x ^ (x >> 31)
}

/// SplitMix64 (Steele, Lea & Flood 2014), Vigna's `splitmix64.c`: a seeded generator of 64-bit
/// values whose state only counts up by a fixed odd step, each output being [`mix`] of the
/// state. Tiny, fast and reproducible from its seed, which is what tests, benchmarks and a
/// seeded choice (an opening-book pick) need; not for cryptography.
///
/// ```
/// use transpo::key::SplitMix64;
///
/// let mut rng = SplitMix64::new(0);
/// assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
/// assert!(rng.below(6) < 6);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with the given seed (any value, 0 included).
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 pseudo-random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix(self.state)
    }

    /// A number in `0..bound` (`bound > 0`), by Lemire's multiply-shift: the high 64 bits of
    /// `next_u64() × bound`, biased by less than `bound / 2⁶⁴`.
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inverse of [`mix`]: `unmix(mix(x)) == x` for every `x`.
    const fn unmix(mut x: u64) -> u64 {
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

    /// The outputs of the reference `splitmix64.c` (Vigna), computed independently in C and
    /// in Python: seed 0 gives the published first values e220a8397b1dcdaf, 6e789e6aa1b965f4,
    /// 06c45d188009454f.
    #[test]
    fn split_mix_matches_the_reference_outputs() {
        let cases: [(u64, [u64; 5]); 2] = [
            (
                0,
                [
                    0xe220_a839_7b1d_cdaf,
                    0x6e78_9e6a_a1b9_65f4,
                    0x06c4_5d18_8009_454f,
                    0xf88b_b8a8_724c_81ec,
                    0x1b39_896a_51a8_749b,
                ],
            ),
            (
                1_234_567,
                [
                    0x599e_d017_fb08_fc85,
                    0x2c73_f084_5854_0fa5,
                    0x883e_bce5_a3f2_7c77,
                    0x3fbe_f740_e917_7b3f,
                    0xe3b8_3467_08cb_5ecd,
                ],
            ),
        ];
        for (seed, expected) in cases {
            let mut rng = SplitMix64::new(seed);
            assert_eq!(expected.map(|_| rng.next_u64()), expected, "seed {seed}");
        }
    }

    #[test]
    fn below_stays_below_and_covers_the_range() {
        let mut rng = SplitMix64::new(7);
        let mut seen = [false; 10];
        for _ in 0..1000 {
            let x = rng.below(10);
            assert!(x < 10);
            seen[x as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(SplitMix64::new(3).below(1), 0);
    }

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
