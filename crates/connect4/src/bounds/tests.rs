//! The bound table's unit tests.

use super::*;
use crate::Position;
use crate::coding::{Coding, REST_MIX};
use crate::position::random_games;

type BoundTable = super::BoundTable<7, 6>;

#[test]
fn every_bound_round_trips_through_a_byte() {
    for s in -MAX_SCORE..=MAX_SCORE {
        for b in [ScoreBound::Upper(s), ScoreBound::Lower(s)] {
            assert_eq!(ScoreBound::decode(b.encode()), b);
        }
    }
}

#[test]
fn mirrors_share_an_entry_and_clear_forgets() {
    let mut table = BoundTable::new(1).expect("1 MiB is enough");
    let pos = Position::from_moves("4433").expect("valid");
    let mirror = Position::from_moves("4455").expect("valid");
    table.put(&pos, ScoreBound::Lower(3), None, 1);
    assert_eq!(table.get(&mirror), Some((ScoreBound::Lower(3), None)));
    table.put(&pos, ScoreBound::Upper(-2), Some(6), 1);
    assert_eq!(table.get(&pos), Some((ScoreBound::Upper(-2), Some(6))));
    // The mirror's best column is the mirror of the column: 7th becomes 1st.
    assert_eq!(table.get(&mirror), Some((ScoreBound::Upper(-2), Some(0))));
    table.put(&mirror, ScoreBound::Lower(1), Some(1), 1);
    assert_eq!(table.get(&pos), Some((ScoreBound::Lower(1), Some(5))));
    assert_eq!(table.get(&Position::from_moves("4").expect("valid")), None);
    table.clear();
    assert_eq!(table.get(&pos), None);
}

/// Positions near the end live in the near table, the rest in the big one; both answer
/// for their own positions only, and a clear forgets both.
#[test]
fn near_and_far_positions_each_have_a_table() {
    let mut table = BoundTable::new(1).expect("1 MiB is enough");
    let far = Position::from_moves("4433").expect("valid");
    // A Middle-Easy position (Pons' Test_L2_R1) with 26 stones.
    let near = Position::from_moves("21253774536432517717274325").expect("valid");
    assert_eq!(near.moves(), 42 - NEAR_EMPTY);
    assert!(std::ptr::eq(table.view(0).table(&near), &table.near.table));
    assert!(std::ptr::eq(table.view(0).table(&far), &table.far.table));
    table.put(&far, ScoreBound::Lower(3), Some(1), 1);
    table.put(&near, ScoreBound::Upper(-4), Some(5), 1);
    assert_eq!(table.get(&far), Some((ScoreBound::Lower(3), Some(1))));
    assert_eq!(table.get(&near), Some((ScoreBound::Upper(-4), Some(5))));
    assert_eq!((table.far.stores, table.near.stores), (1, 1));
    assert_eq!(table.capacity(), (1 << 17) + NEAR_BUCKETS);
    table.clear();
    assert_eq!(table.get(&far), None);
    assert_eq!(table.get(&near), None);
}

/// Positions reached by a reproducible pseudo-random walk, restarting at game ends.
fn positions(n: usize) -> Vec<Position> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut pos = Position::new();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    while out.len() < n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let col = (state % 7) as usize;
        if !pos.can_play(col) || pos.is_winning_move(col) || pos.moves() >= 40 {
            pos = Position::new();
            continue;
        }
        pos.play_column(col);
        if seen.insert(pos.symmetric_key()) {
            out.push(pos);
        }
    }
    out
}

/// A size that is not a power of two of entries is rounded down to one, so the table
/// still grows by doubling and keeps its entries (growing from 2^18 to the 655,360
/// buckets of 5 MiB emptied it).
#[test]
fn any_size_grows_without_losing_entries() {
    let mut table = BoundTable::new(5).expect("5 MiB");
    assert_eq!(table.capacity(), (1 << 19) + NEAR_BUCKETS);
    let mut all = positions(300_000);
    all.retain(|pos| pos.moves() < 42 - NEAR_EMPTY);
    for pos in &all {
        table.put(pos, ScoreBound::Upper(0), None, 1);
    }
    assert_eq!(table.buckets_in_use(), 1 << 19);
    let found = all.iter().filter(|pos| table.get(pos).is_some()).count();
    assert!(found > all.len() / 2, "{found} of {}", all.len());
    assert!(BoundTable::new(u64::MAX).is_err());
}

/// The table grows while bounds go in, and what it answers afterwards is always what was
/// put for that very position (or nothing): growth moves entries, never mixes them up.
#[test]
fn growing_keeps_bounds_exact() {
    let mut table = BoundTable::new(16).expect("16 MiB");
    assert_eq!(table.buckets_in_use(), START_BUCKETS);
    // Positions for the big table, which is the one that grows.
    let mut all = positions(600_000);
    all.retain(|pos| pos.moves() < 42 - NEAR_EMPTY);
    assert!(all.len() > 400_000, "{}", all.len());
    let bound = |i: usize| ScoreBound::Lower((i % 43) as i32 - 21);
    for (i, pos) in all.iter().enumerate() {
        table.put(pos, bound(i), Some(i % 7), 1);
    }
    assert!(table.buckets_in_use() >= 4 * START_BUCKETS);
    let mut found = 0;
    for (i, pos) in all.iter().enumerate() {
        if let Some(got) = table.get(pos) {
            assert_eq!(got, (bound(i), Some(i % 7)), "position {i}");
            found += 1;
        }
    }
    assert!(found > all.len() / 2, "{found}");
    assert!(table.get(&all[all.len() - 1]).is_some());
    table.clear();
    assert_eq!(table.buckets_in_use(), START_BUCKETS);
    assert!(all.iter().all(|pos| table.get(pos).is_none()));
}

/// Keys are a bijection of (position, epoch) on every board: two pairs share a table key only
/// if they are the same position (or its mirror) in the same epoch; and a table whose board
/// leaves no bits for the epoch (8×7: 64 key bits) forgets everything at a clear, one with
/// one bit (9×6) at every clear too, alternating epochs, and 7×6 through its epochs.
fn keys_are_exact<const W: usize, const H: usize, B: Bitboard>() {
    let epochs = super::BoundTable::<W, H, B>::EPOCHS.min(4);
    let mut seen = std::collections::HashMap::new();
    for pos in random_games::<W, H, B>(40, (W * 100 + H) as u64) {
        for epoch in 0..epochs {
            let k = key(&pos, epoch);
            let id = (pos.symmetric_key(), epoch);
            assert_eq!(*seen.entry(k).or_insert(id), id, "{W}x{H}");
        }
    }
    let mut table = super::BoundTable::<W, H, B>::new(1).expect("1 MiB");
    let mut unique = std::collections::HashSet::new();
    let mut positions = random_games::<W, H, B>(20, (W * 100 + H) as u64);
    positions.retain(|pos| unique.insert(pos.symmetric_key()));
    for round in 0..3 {
        for pos in &positions {
            assert_eq!(
                table.get(pos),
                None,
                "{W}x{H} round {round}: found after a clear"
            );
            table.put(pos, ScoreBound::Lower(1), None, 1);
            assert_eq!(table.get(pos), Some((ScoreBound::Lower(1), None)));
        }
        table.clear();
    }
}

#[test]
fn keys_are_exact_on_every_board() {
    assert_eq!(super::BoundTable::<8, 7>::EPOCHS, 1);
    assert_eq!(super::BoundTable::<9, 6>::EPOCHS, 2);
    assert_eq!(super::BoundTable::<7, 6>::EPOCHS, 1 << 15);
    keys_are_exact::<8, 7, u64>();
    keys_are_exact::<4, 15, u64>();
    keys_are_exact::<9, 6, u64>();
    keys_are_exact::<7, 6, u64>();
    keys_are_exact::<12, 4, u64>();
    keys_are_exact::<4, 4, u64>();
    assert_eq!(super::BoundTable::<9, 9, u128>::EPOCHS, 1 << 15);
    keys_are_exact::<7, 9, u128>();
    keys_are_exact::<9, 9, u128>();
    keys_are_exact::<13, 4, u128>();
    keys_are_exact::<4, 16, u128>();
    keys_are_exact::<11, 5, u128>();
}

/// Two wide keys that share their table key (the low bits chosen so that the XOR of the
/// mixed rest cancels) are told apart by the rest the entry keeps: a probe for one never
/// answers with the other's bound, in any epoch.
#[test]
fn wide_keys_sharing_a_table_key_are_told_apart() {
    let table = Table::<WideExactEntry>::new(
        Size::Entries(WideExactEntry::MIN_BUCKETS as u64),
        Config {
            scheme: Scheme::New,
            stamping: false,
            ways: Some(1),
            counting: false,
        },
    )
    .expect("a small table");
    let bits = crate::position::Position::<9, 9, u128>::KEY_BITS;
    for (i, (low, high)) in [(0x1234u64, 1u64), (u64::MAX, 0x3ff_ffff), (7, 1 << 20)]
        .into_iter()
        .enumerate()
    {
        let a = u128::from(high) << 64 | u128::from(low);
        let other = high ^ (i as u64 + 1);
        for epoch in [0, 1, 77] {
            let (ka, ra) = u128::table_key(a, bits, epoch);
            let rest_b = ra ^ high ^ other;
            let twin_low = low ^ ra.wrapping_mul(REST_MIX) ^ rest_b.wrapping_mul(REST_MIX);
            let b = u128::from(other) << 64 | u128::from(twin_low);
            let (kb, rb) = u128::table_key(b, bits, epoch);
            assert_eq!(ka, kb, "the twins share the table key");
            assert_ne!(ra, rb);
            let value = NonZeroU8::new(5 + i as u8).expect("non-zero");
            table.store(ka, u128::pack(value, 3, ra));
            let found = table.probe(kb).expect("the bucket holds a's entry");
            assert_eq!(u128::unpack(found, rb), None, "b must not see a's bound");
            assert_eq!(u128::unpack(found, ra), Some((value, 3)));
        }
    }
}
