//! Replacement schemes: which slot of a bucket a new entry takes, if any.
//!
//! This is the policy layer, plain safe code with no memory or atomics in sight: the table
//! describes each slot of the bucket as a [`Slot`], describes the newcomer as a
//! [`Candidate`], and [`Scheme::place`] answers with a [`Placement`]. Every scheme is a short
//! function that can be read beside its definition in Breuker, Uiterwijk & van den Herik,
//! "Replacement Schemes for Transposition Tables" (ICCA Journal 17(4), 1994).
//!
//! Rules common to all schemes, applied before the scheme's own rule:
//! 1. a slot that already holds the same position is updated in place (a re-search knows
//!    more), except that a two-level scheme may promote it to the first slot;
//! 2. an empty slot is used before anything is overwritten; with *time stamping* on, a
//!    slot written in an earlier search counts as empty (the paper's rule: "an old entry is
//!    overwritten unconditionally on a collision but still used for lookups").
//!
//! This module is the only statement of each rule: the table's quicker stores for one-slot
//! and two-level buckets, which skip describing the whole bucket, ask the same functions
//! that [`Scheme::place`] asks and choose their path by the same test (rules 1 and 2 are
//! [`Slot::holds_same`] and [`Slot::is_free`]).

use crate::entry::{Bound, Depth};
use std::fmt;

/// A replacement scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// One-level: keep the entry with the deeper subtree (the newcomer wins ties).
    Deep,
    /// One-level: always replace.
    New,
    /// One-level: never replace.
    Old,
    /// One-level: keep the entry with more subtree nodes, counting a position taken from the
    /// table as one node (the newcomer wins ties).
    Big1,
    /// One-level: as [`Scheme::Big1`], but a position taken from the table counts as the
    /// node count stored with it.
    BigAll,
    /// Two-level: if the newcomer is at least as deep as the first slot, it goes first and
    /// the first moves to the second slot; otherwise it goes second.
    TwoDeep,
    /// Two-level: [`Scheme::TwoDeep`] with BIG1 node counts instead of depth.
    TwoBig1,
    /// Any number of ways: the victim is the slot with the lowest `depth − k·age`, always
    /// replaced (Stockfish uses `k = 8`, Ethereal `k = 4`).
    DepthAge {
        /// Weight of one generation of age, in plies.
        k: u8,
    },
    /// Any number of ways: an entry of an earlier search is always replaceable; among the
    /// rest, exact beats lower beats upper, and the deeper wins between equal bounds. The
    /// newcomer replaces the least valuable slot unless that slot is worth more than it.
    Priority,
    /// Any number of ways: [`Scheme::DepthAge`], except that a newcomer for a position the
    /// bucket already holds does not always replace it. The stored entry stays when it is
    /// deeper than the newcomer, or as deep and exact where the newcomer is only a bound: a
    /// quiescence or shallow re-search result must not wipe out what a deeper search of the
    /// same position learned, in this search or an earlier one (a position's value does not
    /// age; other positions' entries do, through the victim rule). The chess engine's `full`
    /// profile uses it with `k = 8`.
    KeepDeep {
        /// Weight of one generation of age, in plies, when choosing a victim.
        k: u8,
    },
}

impl Scheme {
    /// The seven schemes of Breuker et al. (1994), in the paper's order.
    pub const PAPER: [Scheme; 7] = [
        Scheme::Deep,
        Scheme::New,
        Scheme::Old,
        Scheme::Big1,
        Scheme::BigAll,
        Scheme::TwoDeep,
        Scheme::TwoBig1,
    ];

    /// The number of ways a bucket must have for this scheme, or `None` if any number works.
    pub const fn required_ways(self) -> Option<usize> {
        match self {
            Scheme::Deep | Scheme::New | Scheme::Old | Scheme::Big1 | Scheme::BigAll => Some(1),
            Scheme::TwoDeep | Scheme::TwoBig1 => Some(2),
            Scheme::DepthAge { .. } | Scheme::Priority | Scheme::KeepDeep { .. } => None,
        }
    }

    /// How many nodes a search should count for a position whose score came from the table,
    /// when it adds up subtree sizes for the BIG schemes: BIGALL counts what the entry stored,
    /// every other scheme counts the one node that was looked up.
    pub const fn nodes_for_hit(self, stored_nodes: u64) -> u64 {
        match self {
            Scheme::BigAll => stored_nodes,
            _ => 1,
        }
    }

    /// How much of a bucket of `ways` slots the scheme reads to place a newcomer, which is
    /// how the table stores it:
    /// - [`Reads::Nothing`]: one slot, and a scheme that never refuses (NEW always replaces,
    ///   DEPTH-AGE replaces its only candidate victim): rules 1 and 2 and the scheme's own
    ///   rule all pick that slot, whatever it holds;
    /// - [`Reads::FirstSlot`]: the two-level schemes ([`Scheme::place_two_level`]);
    /// - [`Reads::AllSlots`]: every other case.
    #[inline]
    pub(crate) const fn reads(self, ways: usize) -> Reads {
        match self {
            Scheme::TwoDeep | Scheme::TwoBig1 => Reads::FirstSlot,
            Scheme::New | Scheme::DepthAge { .. } if ways == 1 => Reads::Nothing,
            _ => Reads::AllSlots,
        }
    }

    /// Where a newcomer goes in a bucket described by `slots`.
    ///
    /// `stamping`: whether slots from an earlier search count as empty (the paper's time
    /// stamping). `slots` must be non-empty and as long as [`Scheme::required_ways`] says.
    pub fn place(self, slots: &[Slot], new: &Candidate, stamping: bool) -> Placement {
        match self.reads(slots.len()) {
            Reads::Nothing => Placement::Replace(0),
            Reads::FirstSlot => self.place_two_level(&slots[0], new, stamping),
            Reads::AllSlots => self.place_one_level(slots, new, stamping),
        }
    }

    /// Rules 1 and 2, then the scheme's own rule, for every scheme but the two-level ones.
    fn place_one_level(self, slots: &[Slot], new: &Candidate, stamping: bool) -> Placement {
        if let Some(i) = slots.iter().position(Slot::holds_same) {
            return if self.keeps_same(&slots[i], new) {
                Placement::Refuse
            } else {
                Placement::Replace(i)
            };
        }
        if let Some(i) = slots.iter().position(|s| s.is_free(stamping)) {
            return Placement::Replace(i);
        }
        // Every slot holds another current position: the scheme's own rule.
        let first = &slots[0];
        let keep_if = |keep: bool| {
            if keep {
                Placement::Refuse
            } else {
                Placement::Replace(0)
            }
        };
        match self {
            Scheme::Deep => keep_if(new.depth < first.depth),
            Scheme::New => Placement::Replace(0),
            Scheme::Old => Placement::Refuse,
            Scheme::Big1 | Scheme::BigAll => keep_if(new.nodes < first.nodes),
            Scheme::DepthAge { k } | Scheme::KeepDeep { k } => {
                let worth = |s: &Slot| i32::from(s.depth) - i32::from(k) * i32::from(s.age);
                Placement::Replace(index_of_min(slots, worth))
            }
            Scheme::Priority => {
                let worth = |s: &Slot| (s.age == 0, s.bound.priority(), s.depth);
                let victim = index_of_min(slots, worth);
                let newcomer = (true, new.bound.priority(), new.depth);
                if worth(&slots[victim]) > newcomer {
                    Placement::Refuse
                } else {
                    Placement::Replace(victim)
                }
            }
            // Cannot happen: `reads` sends two-level schemes to `place_two_level`.
            Scheme::TwoDeep | Scheme::TwoBig1 => unreachable!("two-level schemes go elsewhere"),
        }
    }

    /// Whether the entry in `slot`, for the same position as the newcomer, stays (rule 1 of
    /// every scheme but [`Scheme::KeepDeep`] always replaces it).
    #[inline]
    const fn keeps_same(self, slot: &Slot, new: &Candidate) -> bool {
        matches!(self, Scheme::KeepDeep { .. })
            && (slot.depth > new.depth
                || slot.depth == new.depth
                    && matches!(slot.bound, Bound::Exact)
                    && !matches!(new.bound, Bound::Exact))
    }

    /// TWODEEP and TWOBIG1, which decide on the `first` slot of the bucket alone: the
    /// newcomer takes that slot if it holds the same position or is free (rules 1 and 2);
    /// otherwise it goes first, pushing the first entry down to the second slot, if it is at
    /// least as deep (TWODEEP) or as big (TWOBIG1), and goes second if not. Either way a copy
    /// of the same position in the second slot is dropped or overwritten. Never refuses.
    #[inline]
    pub(crate) fn place_two_level(
        self,
        first: &Slot,
        new: &Candidate,
        stamping: bool,
    ) -> Placement {
        if first.holds_same() || first.is_free(stamping) {
            return Placement::Replace(0);
        }
        let goes_first = match self {
            Scheme::TwoBig1 => new.nodes >= first.nodes,
            _ => new.depth >= first.depth,
        };
        if goes_first {
            Placement::PushFront
        } else {
            Placement::Replace(1)
        }
    }
}

/// A replacement rule: where a newcomer goes in a bucket, given what each slot holds.
///
/// Implement it (or pass a closure `Fn(&[Slot], &Candidate) -> Placement`) to store with
/// your own rule through [`Instrumented::store_by`](crate::table::Instrumented::store_by). The
/// built-in schemes are rules too: [`Config`](crate::table::Config) implements `Replace` as its
/// [`Scheme::place`] with its time stamping, and [`Table::store`](crate::Table::store) is
/// `store_by(key, entry, &config)` (with quicker paths for one- and two-slot buckets that a
/// test checks against it).
///
/// The table calls `place` with the bucket's slots in order (each [`Slot`] says whether it is
/// occupied, by the same position, how deep, how old) and carries the answer out. Rules 1
/// and 2 of the [module docs](self) are the built-ins' convention, not the table's: a rule
/// that ignores [`Slot::holds_same`] may leave two entries of one position in a bucket
/// (a probe finds the first). A [`Placement::Replace`] beyond the bucket, or a
/// [`Placement::PushFront`] in a one-slot bucket, is refused (the newcomer is dropped).
///
/// ```
/// use transpo::{Bound, ChessEntry, Table};
/// use transpo::scheme::{Candidate, Placement, Slot};
/// use transpo::table::{Instrumented, Stored};
///
/// /// Never lets an exact entry go; otherwise replaces the shallowest slot.
/// fn keep_exact(slots: &[Slot], new: &Candidate) -> Placement {
///     if let Some(i) = slots.iter().position(|s| s.holds_same() || !s.occupied) {
///         return Placement::Replace(i);
///     }
///     let victim = (0..slots.len())
///         .filter(|&i| slots[i].bound != Bound::Exact)
///         .min_by_key(|&i| slots[i].depth);
///     victim.map_or(Placement::Refuse, Placement::Replace)
/// }
///
/// let t = Table::<ChessEntry>::with_mib(1)?;
/// let e = ChessEntry { depth: 4, ..ChessEntry::default() };
/// assert_eq!(t.store_by(9, e, &keep_exact), Stored::Empty);
/// assert_eq!(t.probe(9), Some(e));
/// # Ok::<(), transpo::Error>(())
/// ```
pub trait Replace {
    /// Where `new` goes in the bucket described by `slots` (never empty).
    fn place(&self, slots: &[Slot], new: &Candidate) -> Placement;
}

impl<F: Fn(&[Slot], &Candidate) -> Placement> Replace for F {
    #[inline]
    fn place(&self, slots: &[Slot], new: &Candidate) -> Placement {
        self(slots, new)
    }
}

/// How much of a bucket a scheme reads (see [`Scheme::reads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reads {
    /// Nothing: the newcomer goes into the only slot.
    Nothing,
    /// The first slot.
    FirstSlot,
    /// Every slot.
    AllSlots,
}

/// Index of the first slot with the smallest `worth`.
fn index_of_min<T: Ord>(slots: &[Slot], worth: impl Fn(&Slot) -> T) -> usize {
    let mut best = (0, worth(&slots[0]));
    for (i, slot) in slots.iter().enumerate().skip(1) {
        let w = worth(slot);
        if w < best.1 {
            best = (i, w);
        }
    }
    best.0
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scheme::Deep => f.write_str("deep"),
            Scheme::New => f.write_str("new"),
            Scheme::Old => f.write_str("old"),
            Scheme::Big1 => f.write_str("big1"),
            Scheme::BigAll => f.write_str("bigall"),
            Scheme::TwoDeep => f.write_str("twodeep"),
            Scheme::TwoBig1 => f.write_str("twobig1"),
            Scheme::DepthAge { k } => write!(f, "depth-age-{k}"),
            Scheme::Priority => f.write_str("priority"),
            Scheme::KeepDeep { k } => write!(f, "keep-deep-{k}"),
        }
    }
}

/// The error of parsing a scheme name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownScheme(pub String);

impl fmt::Display for UnknownScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown replacement scheme {:?} (expected deep, new, old, big1, bigall, twodeep, \
             twobig1, priority, depth-age, depth-age-K, keep-deep or keep-deep-K)",
            self.0
        )
    }
}

impl std::error::Error for UnknownScheme {}

impl std::str::FromStr for Scheme {
    type Err = UnknownScheme;

    /// Parses the names [`Scheme`]'s `Display` prints, case-insensitively; `depth-age` and
    /// `keep-deep` alone mean `k = 8`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim().to_ascii_lowercase();
        Ok(match name.as_str() {
            "deep" => Scheme::Deep,
            "new" => Scheme::New,
            "old" => Scheme::Old,
            "big1" => Scheme::Big1,
            "bigall" => Scheme::BigAll,
            "twodeep" => Scheme::TwoDeep,
            "twobig1" => Scheme::TwoBig1,
            "priority" => Scheme::Priority,
            "depth-age" => Scheme::DepthAge { k: 8 },
            "keep-deep" => Scheme::KeepDeep { k: 8 },
            other => {
                if let Some(Ok(k)) = other.strip_prefix("depth-age-").map(str::parse) {
                    Scheme::DepthAge { k }
                } else if let Some(Ok(k)) = other.strip_prefix("keep-deep-").map(str::parse) {
                    Scheme::KeepDeep { k }
                } else {
                    return Err(UnknownScheme(s.to_string()));
                }
            }
        })
    }
}

/// What a scheme sees of one slot of the bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Whether the slot holds an entry.
    pub occupied: bool,
    /// Whether that entry is for the position being stored.
    pub same_key: bool,
    /// The entry's depth.
    pub depth: Depth,
    /// The entry's subtree node count.
    pub nodes: u64,
    /// The entry's bound.
    pub bound: Bound,
    /// Searches since the entry was written (modulo the entry's generation bits).
    pub age: u8,
}

impl Slot {
    /// An empty slot.
    pub const EMPTY: Slot = Slot {
        occupied: false,
        same_key: false,
        depth: 0,
        nodes: 0,
        bound: Bound::Upper,
        age: 0,
    };

    /// Rule 1: the slot holds the position being stored.
    #[inline]
    pub const fn holds_same(&self) -> bool {
        self.occupied && self.same_key
    }

    /// Rule 2: the slot counts as empty, because it is, or because with time stamping on
    /// (`stamping`) its entry was written in an earlier search.
    #[inline]
    pub const fn is_free(&self, stamping: bool) -> bool {
        !self.occupied || (stamping && self.age > 0)
    }
}

/// What a scheme sees of the entry being stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its depth.
    pub depth: Depth,
    /// Its subtree node count.
    pub nodes: u64,
    /// Its bound.
    pub bound: Bound,
}

/// A scheme's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Keep the bucket as it is; the newcomer is not stored.
    Refuse,
    /// Write the newcomer into slot `i`.
    Replace(usize),
    /// Move the first slot's entry to the second slot, then write the newcomer first.
    PushFront,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(depth: Depth, nodes: u64) -> Slot {
        Slot {
            occupied: true,
            same_key: false,
            depth,
            nodes,
            bound: Bound::Exact,
            age: 0,
        }
    }

    fn new(depth: Depth, nodes: u64) -> Candidate {
        Candidate {
            depth,
            nodes,
            bound: Bound::Exact,
        }
    }

    #[test]
    fn one_level_schemes_on_a_collision() {
        let full = [slot(5, 100)];
        let cases = [
            (Scheme::Deep, new(4, 1000), Placement::Refuse),
            (Scheme::Deep, new(5, 1), Placement::Replace(0)),
            (Scheme::New, new(0, 0), Placement::Replace(0)),
            (Scheme::Old, new(9, 9999), Placement::Refuse),
            (Scheme::Big1, new(9, 99), Placement::Refuse),
            (Scheme::Big1, new(0, 100), Placement::Replace(0)),
            (Scheme::BigAll, new(0, 101), Placement::Replace(0)),
        ];
        for (scheme, candidate, expected) in cases {
            assert_eq!(scheme.place(&full, &candidate, false), expected, "{scheme}");
        }
    }

    #[test]
    fn same_position_and_empty_slots_come_first() {
        let same = [Slot {
            same_key: true,
            ..slot(9, 9)
        }];
        for scheme in [Scheme::Old, Scheme::Deep, Scheme::Big1] {
            assert_eq!(
                scheme.place(&same, &new(0, 0), false),
                Placement::Replace(0)
            );
            assert_eq!(
                scheme.place(&[Slot::EMPTY], &new(0, 0), false),
                Placement::Replace(0)
            );
        }
    }

    #[test]
    fn keep_deep_keeps_a_deeper_entry_of_the_same_position_from_this_search() {
        let scheme = Scheme::KeepDeep { k: 8 };
        let same = |depth, age| Slot {
            same_key: true,
            age,
            bound: Bound::Lower,
            ..slot(depth, 0)
        };
        let exact_same = Slot {
            bound: Bound::Exact,
            ..same(9, 0)
        };
        let bound = |depth| Candidate {
            bound: Bound::Upper,
            ..new(depth, 0)
        };
        let other = slot(1, 0);
        let cases = [
            // Deeper: kept, whatever the newcomer's bound or the entry's age.
            ([other, same(9, 0)], bound(0), Placement::Refuse),
            ([other, same(9, 0)], bound(8), Placement::Refuse),
            ([other, same(9, 0)], new(3, 0), Placement::Refuse),
            // As deep, or deeper: replaced in place...
            ([other, same(9, 0)], bound(9), Placement::Replace(1)),
            ([other, same(9, 0)], bound(12), Placement::Replace(1)),
            ([other, exact_same], new(9, 0), Placement::Replace(1)),
            // ... but an exact entry stays against a bound as deep.
            ([other, exact_same], bound(9), Placement::Refuse),
            ([other, same(9, 3)], bound(0), Placement::Refuse),
            // Another position's entries: DEPTH-AGE's victim, the lowest depth − k·age.
            ([slot(9, 0), slot(2, 0)], bound(0), Placement::Replace(1)),
            (
                [
                    slot(9, 0),
                    Slot {
                        age: 1,
                        ..slot(9, 0)
                    },
                ],
                bound(0),
                Placement::Replace(1),
            ),
        ];
        for (i, (bucket, candidate, expected)) in cases.into_iter().enumerate() {
            assert_eq!(
                scheme.place(&bucket, &candidate, false),
                expected,
                "case {i}"
            );
            // Every other scheme replaces a same-position entry in place (rule 1).
            if bucket[1].same_key {
                let depth_age = Scheme::DepthAge { k: 8 };
                assert_eq!(
                    depth_age.place(&bucket, &candidate, false),
                    Placement::Replace(1)
                );
            }
        }
        assert_eq!("keep-deep".parse::<Scheme>(), Ok(scheme));
        assert_eq!(
            "Keep-Deep-4".parse::<Scheme>(),
            Ok(Scheme::KeepDeep { k: 4 })
        );
        assert_eq!(scheme.to_string(), "keep-deep-8");
        assert!("keep-deep-x".parse::<Scheme>().is_err());
    }

    #[test]
    fn stamping_frees_old_entries_only_when_on() {
        let old = [Slot {
            age: 1,
            ..slot(9, 9)
        }];
        let two = [
            Slot {
                age: 3,
                ..slot(9, 9)
            },
            slot(9, 9),
        ];
        let cases: [(Scheme, &[Slot], bool, Placement); 3] = [
            (Scheme::Old, &old, true, Placement::Replace(0)),
            (Scheme::Old, &old, false, Placement::Refuse),
            (Scheme::TwoDeep, &two, true, Placement::Replace(0)),
        ];
        for (scheme, bucket, stamping, expected) in cases {
            let placement = scheme.place(bucket, &new(1, 1), stamping);
            assert_eq!(placement, expected, "{scheme}, stamping {stamping}");
        }
    }

    #[test]
    fn two_level_schemes() {
        let bucket = [slot(5, 50), slot(7, 70)];
        let second_same = [
            slot(5, 50),
            Slot {
                same_key: true,
                ..slot(1, 1)
            },
        ];
        let empty_second = [slot(5, 50), Slot::EMPTY];
        let cases = [
            (Scheme::TwoDeep, &bucket, new(5, 0), Placement::PushFront),
            (
                Scheme::TwoDeep,
                &bucket,
                new(4, 1000),
                Placement::Replace(1),
            ),
            (Scheme::TwoBig1, &bucket, new(0, 50), Placement::PushFront),
            (Scheme::TwoBig1, &bucket, new(9, 49), Placement::Replace(1)),
            (
                Scheme::TwoDeep,
                &second_same,
                new(2, 2),
                Placement::Replace(1),
            ),
            (
                Scheme::TwoDeep,
                &empty_second,
                new(2, 2),
                Placement::Replace(1),
            ),
        ];
        for (i, (scheme, bucket, candidate, expected)) in cases.into_iter().enumerate() {
            let placement = scheme.place(bucket, &candidate, false);
            assert_eq!(placement, expected, "case {i}: {scheme}");
        }
    }

    #[test]
    fn depth_age_picks_lowest_depth_minus_k_age() {
        let bucket = [
            slot(10, 0),
            Slot {
                age: 1,
                ..slot(12, 0)
            },
            slot(6, 0),
            Slot {
                age: 2,
                ..slot(20, 0)
            },
        ];
        // worths with k = 8: 10, 4, 6, 4 -> first minimum is slot 1
        assert_eq!(
            Scheme::DepthAge { k: 8 }.place(&bucket, &new(0, 0), false),
            Placement::Replace(1)
        );
        // with k = 0: 10, 12, 6, 20 -> slot 2
        assert_eq!(
            Scheme::DepthAge { k: 0 }.place(&bucket, &new(0, 0), false),
            Placement::Replace(2)
        );
    }

    #[test]
    fn priority_prefers_exact_then_depth_and_frees_old_entries() {
        let upper = Slot {
            bound: Bound::Upper,
            ..slot(10, 0)
        };
        let bucket = [slot(3, 0), upper];
        let lower_shallow = Candidate {
            bound: Bound::Lower,
            ..new(1, 0)
        };
        assert_eq!(
            Scheme::Priority.place(&bucket, &lower_shallow, false),
            Placement::Replace(1)
        );
        let upper_shallow = Candidate {
            bound: Bound::Upper,
            ..new(9, 0)
        };
        assert_eq!(
            Scheme::Priority.place(&bucket, &upper_shallow, false),
            Placement::Refuse
        );
        let stale = [
            slot(3, 0),
            Slot {
                age: 1,
                ..slot(50, 0)
            },
        ];
        assert_eq!(
            Scheme::Priority.place(&stale, &upper_shallow, false),
            Placement::Replace(1)
        );
    }

    /// The seam of `reads`: in a one-slot bucket, the schemes that read nothing pick the
    /// slot under rules 1 and 2 and under their own rule, whatever the slot holds, so
    /// skipping the description of the bucket changes nothing.
    #[test]
    fn reading_nothing_agrees_with_the_one_level_rules() {
        let mut slots = vec![Slot::EMPTY];
        for occupied in [false, true] {
            for same_key in [false, true] {
                for age in [0, 1, 63] {
                    for (depth, nodes) in [(0, 0), (5, 50), (255, u64::MAX)] {
                        for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                            slots.push(Slot {
                                occupied,
                                same_key,
                                depth,
                                nodes,
                                bound,
                                age,
                            });
                        }
                    }
                }
            }
        }
        let mut all = Scheme::PAPER.to_vec();
        all.extend([
            Scheme::Priority,
            Scheme::DepthAge { k: 0 },
            Scheme::DepthAge { k: 8 },
        ]);
        let mut blind = Vec::new();
        for scheme in all {
            let two_level = scheme.required_ways() == Some(2);
            let shape = if two_level {
                Reads::FirstSlot
            } else {
                Reads::AllSlots
            };
            assert_eq!(scheme.reads(2), shape, "{scheme}");
            if scheme.reads(1) != Reads::Nothing {
                assert_eq!(scheme.reads(1), shape, "{scheme}");
                continue;
            }
            blind.push(scheme);
            for slot in &slots {
                for newcomer in [new(0, 0), new(4, 1000), new(255, u64::MAX)] {
                    for stamping in [false, true] {
                        assert_eq!(
                            scheme.place_one_level(&[*slot], &newcomer, stamping),
                            Placement::Replace(0),
                            "{scheme} {slot:?} {newcomer:?} {stamping}"
                        );
                    }
                }
            }
        }
        assert_eq!(blind.len(), 3, "{blind:?}");
    }

    #[test]
    fn names_round_trip() {
        let mut all = Scheme::PAPER.to_vec();
        all.extend([Scheme::Priority, Scheme::DepthAge { k: 4 }]);
        for scheme in all {
            assert_eq!(scheme.to_string().parse::<Scheme>(), Ok(scheme));
        }
        assert_eq!("DEPTH-AGE".parse(), Ok(Scheme::DepthAge { k: 8 }));
        assert!("twodep".parse::<Scheme>().is_err());
        assert!("depth-age-999".parse::<Scheme>().is_err());
    }

    #[test]
    fn only_bigall_counts_stored_nodes_for_a_hit() {
        assert_eq!(Scheme::BigAll.nodes_for_hit(500), 500);
        assert_eq!(Scheme::Big1.nodes_for_hit(500), 1);
        assert_eq!(Scheme::TwoBig1.nodes_for_hit(500), 1);
    }
}
