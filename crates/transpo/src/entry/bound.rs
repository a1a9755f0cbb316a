//! What a stored score says about the true value: [`Bound`], its code in the packed bits,
//! and the bound a node's result proves.

/// What a stored score says about the true value of the position.
///
/// The default is [`Bound::Upper`], the lowest in [`Bound::priority`]; any bound, the default
/// included, can be stored (the empty slot is marked by a code no `Bound` has).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The score is exact (a PV node: alpha < score < beta).
    Exact,
    /// The true value is at least the score (a cut node: score ≥ beta).
    Lower,
    /// The true value is at most the score (an all node: score ≤ alpha).
    #[default]
    Upper,
}

impl Bound {
    /// Two-bit code; 0 is kept free to mark an empty slot.
    pub(crate) const fn code(self) -> u64 {
        match self {
            Bound::Exact => 3,
            Bound::Lower => 2,
            Bound::Upper => 1,
        }
    }

    /// Inverse of [`Bound::code`]; `None` for 0, the empty slot.
    pub(crate) const fn from_code(code: u64) -> Option<Bound> {
        match code & 3 {
            3 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            1 => Some(Bound::Upper),
            _ => None,
        }
    }

    /// The bound a node's result proves, given the window `(alpha, beta)` the node was
    /// searched with (`alpha` as it was on entry, before the moves raised it): `Lower` when
    /// `score >= beta` (a cut), `Upper` when `score <= alpha` (no move raised alpha),
    /// `Exact` between. Works for any score type (`i16`, `i32`, …).
    ///
    /// ```
    /// use transpo::Bound;
    /// assert_eq!(Bound::from_window(50i16, (-10, 50)), Bound::Lower);
    /// assert_eq!(Bound::from_window(-10i32, (-10, 50)), Bound::Upper);
    /// assert_eq!(Bound::from_window(3, (-10, 50)), Bound::Exact);
    /// ```
    #[inline]
    pub fn from_window<S: PartialOrd>(score: S, (alpha, beta): (S, S)) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// How much an engine author usually values the bound: exact over lower over upper.
    pub const fn priority(self) -> u8 {
        match self {
            Bound::Exact => 2,
            Bound::Lower => 1,
            Bound::Upper => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_codes_round_trip_and_zero_is_empty() {
        for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
            assert_eq!(Bound::from_code(bound.code()), Some(bound));
        }
        assert_eq!(Bound::from_code(0), None);
        assert!(Bound::Exact.priority() > Bound::Lower.priority());
        assert!(Bound::Lower.priority() > Bound::Upper.priority());
    }
}
