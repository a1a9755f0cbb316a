//! The table's unit tests, apart from the code so that they may reach into every part of it
//! (the cells, the store paths, the buckets in use) without any part importing another back.

use super::{Buckets, Config, Instrumented, Size, Stored, Table};
use crate::{
    cell::Cell,
    entry::{
        Bound, ChessEntry, CompactEntry, Entry, ExactEntry, ResearchEntry, SolverEntry,
        testing::exact_table,
    },
    error::Error,
    key::SplitMix64,
    scheme::{Candidate, Placement, Scheme, Slot},
    stats::Stats,
};

// The table's verbs.

fn chess(depth: u8) -> ChessEntry {
    ChessEntry {
        mv: u16::from(depth) + 1,
        score: i16::from(depth) * 10,
        eval: -3,
        depth: depth as i8,
        bound: Bound::Exact,
        pv: false,
    }
}

fn research(depth: u8) -> ResearchEntry {
    ResearchEntry {
        mv: 0,
        score: 0,
        depth,
        bound: Bound::Exact,
        nodes: 1,
    }
}

/// Keys that all land in bucket 0 of a table with `buckets` buckets.
fn keys_in_first_bucket(n: u64) -> impl Iterator<Item = u64> {
    (1..=n).map(|i| i * 0x10001)
}

/// What `resize` and `prefault` keep and what they do not.
#[test]
fn resize_keeps_the_memory_of_the_same_size_and_the_counters_always() {
    let mut t = Table::<ChessEntry>::with_mib(1usize).expect("1 MiB");
    t.set_counting(true);
    let memory = |t: &Table<ChessEntry>| t.cells.cells().as_ptr() as usize;
    let fill = |t: &Table<ChessEntry>| {
        t.new_search();
        t.store(7, chess(3));
        assert_eq!(t.probe(7), Some(chess(3)));
    };
    fill(&t);
    assert_eq!(t.use_buckets(Buckets::First(4)), 4);
    let before = memory(&t);
    // The same size: kept and emptied in place, every bucket in use, counts going on.
    t.resize(Size::mib(1u64), 2).expect("same size");
    assert_eq!(memory(&t), before, "no new memory for the same size");
    assert_eq!((t.probe(7), t.generation()), (None, 0));
    assert_eq!(t.shape().buckets_in_use, t.shape().buckets);
    assert_eq!((t.stats().probes, t.stats().stores), (2, 1));
    // Another size: a new table, prefaulted, counters carried over.
    fill(&t);
    t.resize(Size::mib(2i32), 2).expect("2 MiB");
    assert_eq!(t.shape().bytes, 2 << 20);
    assert_eq!((t.probe(7), t.generation()), (None, 0));
    assert_eq!((t.stats().probes, t.stats().stores), (4, 2));
    assert!(t.shape().config.counting, "the configuration stays");
    // A refused size changes nothing, entries included.
    fill(&t);
    assert!(t.resize(Size::mib(-1), 2).is_err());
    assert!(t.resize(Size::Mib(u64::MAX), 2).is_err());
    assert_eq!(t.probe(7), Some(chess(3)));
    // `prefault` empties in place and keeps the counters too.
    let probes = t.stats().probes;
    t.prefault(1);
    assert_eq!((t.probe(7), t.stats().probes), (None, probes + 1));
    assert!(t.shape().config.counting);
}

#[test]
fn index_uses_the_high_bits_and_covers_every_bucket() {
    let t = Table::<ChessEntry>::new(Size::Entries(4 * 3), Config::default()).expect("small");
    assert_eq!(t.bucket_index(0), 0);
    assert_eq!(t.bucket_index(u64::MAX), 2);
    assert_eq!(t.bucket_index(1 << 63), 1);
    assert_eq!(
        t.bucket_index(0xffff),
        0,
        "low bits alone do not move the index"
    );
}

#[test]
fn hashfull_counts_current_entries_in_the_first_thousand_buckets() {
    let t = Table::<CompactEntry>::new(Size::Entries(8 * 2000), Config::default())
        .expect("2000 buckets");
    assert_eq!(t.hashfull(), 0);
    // One entry in each of the first 1000 buckets: 1/8 of the sample.
    let per_bucket = u64::MAX / 2000 + 1;
    let entry = CompactEntry {
        mv: 0,
        score: 0,
        depth: 1,
        bound: Bound::Upper,
    };
    for b in 0..2000 {
        t.store(b * per_bucket + 7, entry);
    }
    assert_eq!(t.hashfull(), 125);
    t.new_search();
    assert_eq!(t.hashfull(), 0);
    t.store(7, entry);
    assert_eq!(t.hashfull(), 1000 / 8000);
    for i in 0..8 {
        t.store(i + 100, entry);
    }
    assert_eq!(t.hashfull(), 1, "8 of 8000 slots is one permille");
    // Over every slot: bucket 0 is full (its eighth store evicted key 7, the first
    // slot at equal depth and age), the other 1999 buckets keep one old entry each.
    let usage = t.usage();
    assert_eq!(
        (usage.slots, usage.used, usage.current),
        (16_000, 1999 + 8, 8)
    );
}

#[test]
fn clear_and_resize_empty_the_table() {
    let mut t = Table::<ChessEntry>::with_mib(40).expect("40 MiB");
    for key in 0..10_000u64 {
        t.store(key.wrapping_mul(0x9e37_79b9_7f4a_7c15), chess(3));
    }
    t.new_search();
    t.clear();
    assert_eq!(t.generation(), 0);
    assert!((0..10_000u64).all(|k| t.probe(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).is_none()));
    t.store(5, chess(1));
    t.resize(Size::Mib(2), 1).expect("2 MiB");
    assert_eq!((t.shape().bytes, t.probe(5)), (2 << 20, None));
    assert!(t.resize(Size::Mib(0), 1).is_err());
    assert_eq!(t.shape().bytes, 2 << 20, "a failed resize keeps the table");
}

#[test]
fn prefetch_any_key_is_harmless() {
    let t = Table::<SolverEntry>::with_mib(1).expect("1 MiB");
    for key in [0, 1, u64::MAX, 1 << 63] {
        t.prefetch(key);
    }
}

/// Pseudo-random keys, reproducible from `seed`.
fn random_keys(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

/// A one-slot table of [`ResearchEntry`] made with `config`.
fn one_slot(config: Config) -> Table<ResearchEntry> {
    Table::new(Size::Entries(1), config).expect("one slot")
}

// Storing.

#[test]
fn depth_age_fills_a_bucket_then_evicts_the_shallowest() {
    let t = Table::new(Size::Entries(4), Config::default()).expect("one bucket");
    let keys: Vec<u64> = keys_in_first_bucket(5).collect();
    for (i, &key) in keys[..4].iter().enumerate() {
        assert_eq!(t.store(key, chess(10 - i as u8)), Stored::Empty);
    }
    assert_eq!(t.store(keys[1], chess(20)), Stored::Updated);
    assert_eq!(t.store(keys[4], chess(1)), Stored::Overwrote);
    assert_eq!(t.probe(keys[3]), None, "depth 7 was the shallowest");
    for key in [keys[0], keys[1], keys[2], keys[4]] {
        assert!(t.probe(key).is_some());
    }
}

#[test]
fn push_front_moves_the_first_entry_down() {
    let config = Config {
        scheme: Scheme::TwoDeep,
        ..Config::default()
    };
    let t = Table::<ResearchEntry>::new(Size::Entries(2), config).expect("one bucket");
    t.store(1, research(3));
    t.store(2, research(5));
    let bits = t.bucket_bits(1);
    assert!(ResearchEntry::verifies(bits[0], 2) && ResearchEntry::verifies(bits[1], 1));
    t.store(3, research(4));
    let bits = t.bucket_bits(1);
    assert!(ResearchEntry::verifies(bits[0], 2) && ResearchEntry::verifies(bits[1], 3));
}

#[test]
fn generations_wrap_around_the_entry_bits() {
    let t = one_slot(Config {
        stamping: true,
        ..one_slot_old()
    });
    let entry = research(1);
    t.store(1, entry);
    // 64 searches later the 6-bit generation comes round: the entry looks current again.
    for _ in 0..64 {
        t.new_search();
    }
    assert_eq!(t.store(2, entry), Stored::Refused);
    t.new_search();
    assert_eq!(t.store(2, entry), Stored::Overwrote);
    assert_eq!(t.generation(), 65);
}

#[test]
fn counters_count_only_when_asked() {
    let quiet = Table::<ChessEntry>::with_mib(1).expect("1 MiB");
    quiet.probe(1);
    assert_eq!(quiet.take_stats(), Stats::default());
    let t = one_slot(Config {
        counting: true,
        ..one_slot_old()
    });
    let entry = research(1);
    t.probe(1);
    t.store(1, entry);
    t.probe(1);
    t.store(2, entry);
    let s = t.take_stats();
    assert_eq!(
        (s.probes, s.hits, s.stores, s.refused, s.overwrites),
        (2, 1, 1, 1, 0)
    );
    assert_eq!(
        t.take_stats(),
        Stats::default(),
        "taking zeroes the counters"
    );
    t.probe(1);
    assert_eq!(t.take_stats().probes, 1, "and they count on from zero");
}

/// A rule of one's own goes through `store_by`; placements outside the bucket are
/// refused, not a panic; and the configuration as a rule stores as `store` does.
#[test]
fn store_by_carries_out_any_rule_and_refuses_what_does_not_fit() {
    let t = Table::<ChessEntry>::new(Size::Entries(4), Config::default()).expect("one bucket");
    let e = chess(3);
    let last = |slots: &[Slot], _: &Candidate| Placement::Replace(slots.len() - 1);
    assert_eq!(t.store_by(1, e, &last), Stored::Empty);
    assert!(
        ChessEntry::verifies(t.bucket_bits(1)[3], 1),
        "went to the last slot"
    );
    assert_eq!(
        t.store_by(2, e, &|_: &[Slot], _: &Candidate| Placement::Replace(4)),
        Stored::Refused
    );
    let one = one_slot(one_slot_old());
    assert_eq!(
        one.store_by(2, research(1), &|_: &[Slot], _: &Candidate| {
            Placement::PushFront
        }),
        Stored::Refused
    );
    assert_eq!(one.probe(2), None);
    let by_config =
        Table::<ChessEntry>::new(Size::Entries(4), Config::default()).expect("one bucket");
    let plain = Table::<ChessEntry>::new(Size::Entries(4), Config::default()).expect("one bucket");
    for (i, key) in keys_in_first_bucket(9).enumerate() {
        let e = chess(i as u8 % 5);
        assert_eq!(
            by_config.store_by(key, e, &Config::default()),
            plain.store(key, e)
        );
    }
    assert_eq!(by_config.bucket_bits(1), plain.bucket_bits(1));
}

/// OLD, the scheme that refuses every collision.
fn one_slot_old() -> Config {
    Config {
        scheme: Scheme::Old,
        ..Config::default()
    }
}

/// The quicker stores (one slot written blind for NEW and DEPTH-AGE, two-level buckets
/// decided on their first slot) do exactly what the scheme's general `place` decides:
/// same outcome for every store and the same cells after each, with time stamping on and
/// off, across searches, over a pool of keys small enough that buckets fill and
/// positions come back.
#[test]
fn quicker_stores_agree_with_the_general_store() {
    let configs = [
        (Scheme::New, 1),
        (Scheme::DepthAge { k: 8 }, 1),
        (Scheme::TwoDeep, 2),
        (Scheme::TwoBig1, 2),
    ];
    for (scheme, ways) in configs {
        for stamping in [false, true] {
            let config = Config {
                scheme,
                stamping,
                ways: Some(ways),
                counting: true,
            };
            let quick = Table::<ResearchEntry>::new(Size::Entries(64), config).expect("64");
            let general = Table::<ResearchEntry>::new(Size::Entries(64), config).expect("64");
            let mut rng = SplitMix64::new(11);
            let pool: Vec<u64> = (0..200).map(|_| rng.next_u64()).collect();
            for i in 0..20_000 {
                let state = rng.next_u64();
                let key = pool[(state % 200) as usize];
                let entry = ResearchEntry {
                    depth: (state >> 8) as u8 % 12,
                    nodes: (state >> 16) % 1000,
                    ..research(0)
                };
                if i % 3000 == 2999 {
                    quick.new_search();
                    general.new_search();
                }
                let what = (scheme, stamping, i);
                assert_eq!(
                    quick.store(key, entry),
                    general.store_general(key, entry),
                    "{what:?}"
                );
                let cells = |t: &Table<ResearchEntry>| {
                    t.cells().iter().map(|c| c.load(0)).collect::<Vec<_>>()
                };
                assert_eq!(cells(&quick), cells(&general), "{what:?}");
            }
            assert_eq!(quick.take_stats(), general.take_stats(), "{scheme:?}");
        }
    }
}

// The buckets in use.

fn exact_ways(ways: usize) -> Table<ExactEntry> {
    exact_table(ExactEntry::MIN_BUCKETS * 16, ways)
}

fn exact(key: u64) -> ExactEntry {
    ExactEntry {
        value: std::num::NonZeroU8::new((key >> 56) as u8 | 1).expect("or 1"),
        aux: key as u8,
    }
}

/// Growing keeps exactly what was retrievable (a bucket only ever splits in two), and
/// every key is then found in its bucket under the new count.
#[test]
fn growing_keeps_every_retrievable_exact_entry() {
    for ways in [1, 4] {
        let mut t = exact_ways(ways);
        t.use_buckets(Buckets::First(ExactEntry::MIN_BUCKETS));
        let keys = random_keys(300_000, ways as u64);
        for &k in &keys {
            t.store(k, exact(k));
        }
        let found = |t: &Table<ExactEntry>| -> Vec<u64> {
            keys.iter()
                .copied()
                .filter(|&k| t.probe(k) == Some(exact(k)))
                .collect()
        };
        let before = found(&t);
        assert!(before.len() > 50_000, "{}", before.len());
        for doubling in 1..=4 {
            assert_eq!(
                t.use_buckets(Buckets::Doubled),
                ExactEntry::MIN_BUCKETS << doubling
            );
            assert_eq!(found(&t), before, "ways {ways}, doubling {doubling}");
        }
        // All buckets are in use now: growing again changes nothing.
        assert_eq!(t.use_buckets(Buckets::Doubled), t.shape().buckets);
        assert_eq!(found(&t), before);
        // The entries really sit where the new count sends them.
        for &k in &before {
            assert!(
                t.bucket_bits(k)
                    .iter()
                    .any(|&b| b & ((1 << 48) - 1) == k & ((1 << 48) - 1))
            );
        }
    }
}

#[test]
fn entries_without_key_bits_are_dropped_and_odd_growth_empties() {
    let mut t =
        Table::<CompactEntry>::new(Size::Entries(1 << 16), Config::default()).expect("512 KiB");
    t.use_buckets(Buckets::First(1 << 10));
    let keys = random_keys(500, 7);
    let entry = CompactEntry {
        mv: 1,
        score: 2,
        depth: 3,
        bound: Bound::Lower,
    };
    for &k in &keys {
        t.store(k, entry);
    }
    assert!(keys.iter().any(|&k| t.probe(k).is_some()));
    assert_eq!(t.use_buckets(Buckets::Doubled), 1 << 11);
    assert!(keys.iter().all(|&k| t.probe(k).is_none()));
    assert!(keys.iter().all(|&k| t.bucket_index(k) < 1 << 11));

    // 3 of 5 buckets → 5: not a doubling, so the table empties.
    let mut t = exact_ways(1);
    let five = ExactEntry::MIN_BUCKETS * 5;
    let mut small =
        Table::<ExactEntry>::new(Size::Entries(five as u64), t.shape().config).expect("small");
    small.use_buckets(Buckets::First(five * 3 / 5));
    for &k in &keys {
        small.store(k, exact(k));
    }
    assert_eq!(small.use_buckets(Buckets::Doubled), five);
    assert!(keys.iter().all(|&k| small.probe(k).is_none()));
    // First(n) empties what it keeps and takes impossible counts to the nearest possible.
    let all = t.shape().buckets;
    t.store(keys[0], exact(keys[0]));
    assert_eq!(t.use_buckets(Buckets::First(all)), all);
    assert_eq!(t.probe(keys[0]), None);
    t.store(keys[0], exact(keys[0]));
    assert_eq!(t.use_buckets(Buckets::First(all + 1)), all);
    assert_eq!(t.probe(keys[0]), None);
    assert_eq!(t.use_buckets(Buckets::First(0)), 1);
    assert_eq!(t.shape().buckets_in_use, 1);
    assert_eq!(t.use_buckets(Buckets::First(usize::MAX)), all);
}

#[test]
#[cfg(feature = "persist")]
fn a_table_using_part_of_its_buckets_is_not_saved() {
    let mut t = exact_ways(1);
    t.use_buckets(Buckets::First(ExactEntry::MIN_BUCKETS));
    let msg = t.save(Vec::new()).expect_err("part in use").to_string();
    assert!(msg.contains("grow it"), "{msg}");
    while t.use_buckets(Buckets::Doubled) < t.shape().buckets {}
    t.save(Vec::new()).expect("all in use");
}

// Sizes and configurations.

#[test]
fn sizes_in_mib_and_entries() {
    let t = Table::<ChessEntry>::with_mib(1).expect("1 MiB").shape();
    assert_eq!((t.ways, t.buckets, t.bytes), (4, 16384, 1 << 20));
    let t = Table::<SolverEntry>::with_mib(3).expect("3 MiB").shape();
    assert_eq!((t.ways, t.entries, t.bytes), (16, 3 << 18, 3 << 20));
    let t = Table::<ResearchEntry>::new(
        Size::Entries(3000),
        Config {
            scheme: Scheme::Deep,
            ..Config::default()
        },
    )
    .expect("3000 entries")
    .shape();
    assert_eq!((t.ways, t.buckets, t.buckets_in_use), (1, 3000, 3000));
}

#[test]
fn entries_for_rounds_down_to_the_buckets_new_makes() {
    type Research = Table<ResearchEntry>;
    let default = Config::default();
    assert_eq!(Research::DEFAULT_WAYS, 2);
    assert_eq!(Table::<ChessEntry>::DEFAULT_WAYS, 4);
    assert_eq!(Table::<SolverEntry>::DEFAULT_WAYS, 16);
    assert_eq!(default.ways_for::<ResearchEntry>().expect("valid"), 2);
    let deep = Config {
        scheme: Scheme::Deep,
        ..default
    };
    assert_eq!(deep.ways_for::<ResearchEntry>().expect("valid"), 1);
    for (size, config, entries) in [
        (Size::Entries(1001), default, 1000),
        (Size::Entries(1001), deep, 1001),
        (Size::Mib(1), default, (1 << 20) / 48 * 2),
        (Size::Mib(1), deep, (1 << 20) / 24),
    ] {
        let rounded = config.entries_for::<ResearchEntry>(size).expect("fits");
        assert_eq!(rounded, entries, "{size:?} {config:?}");
        let made = Research::new(Size::Entries(rounded), config).expect("whole buckets");
        assert_eq!(made.shape().entries as u64, rounded);
        if let Size::Mib(_) = size {
            let t = Research::new(size, config).expect("fits");
            assert_eq!(t.shape().entries as u64, rounded);
        }
    }
    let err = |r: Result<u64, Error>| r.expect_err("must fail").to_string();
    let entries = |config: Config, size| config.entries_for::<ResearchEntry>(size);
    assert!(err(entries(default, Size::Entries(1))).contains("one bucket"));
    assert!(err(entries(default, Size::Mib(0))).contains("1 MiB"));
    let bad = Config {
        ways: Some(3),
        ..deep
    };
    assert!(err(entries(bad, Size::Entries(9))).contains("needs 1 way"));
}

#[test]
fn bad_sizes_and_configs_are_errors_with_reasons() {
    let err = |r: Result<Table<ResearchEntry>, Error>| r.expect_err("must fail").to_string();
    assert!(err(Table::with_mib(0)).contains("at least 1 MiB"));
    assert!(err(Table::new(Size::Entries(0), Config::default())).contains("multiple"));
    let two = Config {
        scheme: Scheme::TwoDeep,
        ..Config::default()
    };
    assert!(err(Table::new(Size::Entries(7), two)).contains("multiple of 2"));
    let wrong_ways = Config {
        ways: Some(4),
        ..two
    };
    assert!(err(Table::new(Size::Entries(8), wrong_ways)).contains("needs 2 way"));
    let too_many = Config {
        ways: Some(17),
        ..Config::default()
    };
    assert!(err(Table::new(Size::Entries(17), too_many)).contains("ways must be"));
    assert!(err(Table::with_mib(u64::MAX)).contains("overflows"));
    assert!(err(Table::with_mib(1u64 << 40)).contains("does not fit"));
}
