//! Concurrency stress: threads store and probe overlapping keys whose payload is a function
//! of the key. A hit whose payload is not that function of its key would be a torn or
//! misattributed entry, and fails the test.
//!
//! CI runs a short sample. For a long run, set `TRANSPO_STRESS_OPS` (operations per test, all
//! threads together) and `TRANSPO_STRESS_THREADS`, e.g. 10⁹ operations on two threads:
//!
//! ```sh
//! TRANSPO_STRESS_OPS=1000000000 TRANSPO_STRESS_THREADS=2 \
//!     cargo test --release -p transpo --test concurrency -- --test-threads 1 never_tear
//! ```

use std::num::NonZeroU8;
use transpo::{
    Bound, ChessEntry, Size, Table,
    entry::{
        CompactEntry, DenseChessEntry, Entry, ExactEntry, ResearchEntry, SolverEntry,
        WideExactEntry,
    },
    key::mix,
    scheme::Scheme,
    table::Config,
};

/// Threads and operations per thread: 4 × 300,000 unless the environment says otherwise
/// (see the module docs).
fn load() -> (usize, usize) {
    let var = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
    };
    let threads = var("TRANSPO_STRESS_THREADS").unwrap_or(4).max(1);
    let ops = var("TRANSPO_STRESS_OPS").map_or(300_000, |ops| ops / threads);
    (threads, ops)
}

/// Hammers a small table (many collisions) from several threads; returns the hits seen.
fn hammer<E: Entry>(config: Config, keys: &[u64], payload: impl Fn(u64) -> E + Sync) -> u64 {
    let table = Table::<E>::new(Size::Entries(64 * 16), config).expect("small table");
    let hits = std::sync::atomic::AtomicU64::new(0);
    let (threads, ops_per_thread) = load();
    std::thread::scope(|scope| {
        for thread in 0..threads {
            let (table, payload, hits) = (&table, &payload, &hits);
            scope.spawn(move || {
                let mut x = thread as u64 + 1;
                for i in 0..ops_per_thread {
                    x = mix(x);
                    let key = keys[x as usize % keys.len()];
                    if i % 2 == 0 {
                        table.store(key, payload(key));
                    } else if let Some(found) = table.probe(key) {
                        assert_eq!(
                            found,
                            payload(key),
                            "torn or foreign entry for key {key:#x}"
                        );
                        hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    if i % 50_000 == 0 {
                        table.new_search();
                    }
                }
            });
        }
    });
    hits.into_inner()
}

fn keys_with_distinct_low_bits(n: u64, low_bits: u32) -> Vec<u64> {
    (0..n)
        .map(|i| (mix(i) << low_bits) | (i & ((1 << low_bits) - 1)))
        .collect()
}

fn bound_of(x: u64) -> Bound {
    [Bound::Exact, Bound::Lower, Bound::Upper][(x % 3) as usize]
}

#[test]
fn chess_entries_never_tear() {
    let keys = keys_with_distinct_low_bits(4096, 0);
    let hits = hammer(Config::default(), &keys, |k| {
        let h = mix(k);
        ChessEntry {
            mv: h as u16,
            score: (h >> 16) as i16,
            eval: (h >> 32) as i16,
            depth: (h >> 48) as i8,
            bound: bound_of(h),
            pv: h >> 63 == 1,
        }
    });
    assert!(hits > 1000, "the test must exercise hits, saw {hits}");
}

#[test]
fn research_entries_never_tear() {
    let keys = keys_with_distinct_low_bits(4096, 0);
    let config = Config {
        scheme: Scheme::TwoBig1,
        stamping: true,
        ..Config::default()
    };
    let hits = hammer(config, &keys, |k| {
        let h = mix(k);
        ResearchEntry {
            mv: h as u16,
            score: (h >> 16) as i16,
            depth: (h >> 48) as u8,
            bound: bound_of(h),
            nodes: mix(h),
        }
    });
    assert!(hits > 1000, "saw {hits}");
}

#[test]
fn compact_entries_never_tear() {
    // Low 16 bits distinct, so the 16-bit check cannot confuse two keys of this set.
    let keys = keys_with_distinct_low_bits(4096, 16);
    let hits = hammer(Config::default(), &keys, |k| {
        let h = mix(k);
        CompactEntry {
            mv: h as u16,
            score: (h >> 16) as i16,
            depth: (h >> 48) as u8,
            bound: bound_of(h),
        }
    });
    assert!(hits > 1000, "saw {hits}");
}

/// The dense layout's two atomics a slot (word and meta): a read that mixes one key's word
/// with another key's meta must never verify. The keys' checks are `i << 8` and their metas
/// differ only in the depth byte (bits 0..8; bound, PV flag and generation fixed: no new
/// search here), so a mix's check, `check ^ meta_a ^ meta_b`, has a non-zero low byte and is
/// no key's check: every hit must be the probed key's own entry, whole. A stress test only:
/// on the project's 2-core machine such a tear is rare (with the XOR of check and meta
/// removed from `DenseCell` it caught one in 1 of 13 runs); the unit test
/// `dense_cell_torn_slot_changes_the_check_or_is_whole` in `cell.rs` checks the argument
/// deterministically and fails at once without the XOR.
#[test]
fn dense_entries_never_tear() {
    let keys: Vec<u64> = (0..256).map(|i| mix(i) << 16 | i << 8).collect();
    let payload = |k: u64| {
        let h = mix(k);
        DenseChessEntry {
            mv: h as u16,
            score: (h >> 16) as i16,
            eval: (h >> 32) as i16,
            depth: (h >> 48) as i8,
            bound: Bound::Lower,
            pv: true,
        }
    };
    // One bucket of one cell: every thread writes the same three slots.
    let one_cell = Config {
        ways: Some(3),
        ..Config::default()
    };
    let table = Table::<DenseChessEntry>::new(Size::Entries(3), one_cell).expect("one cell");
    // Ten times the usual operations (still under a second): a tear needs two threads in
    // one slot at once.
    let (threads, ops_per_thread) = load();
    let ops_per_thread = 10 * ops_per_thread;
    let hits = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| {
        for thread in 0..threads {
            let (table, payload, keys, hits) = (&table, &payload, &keys, &hits);
            scope.spawn(move || {
                let mut x = thread as u64 + 1;
                for i in 0..ops_per_thread {
                    x = mix(x);
                    let key = keys[x as usize % keys.len()];
                    if i % 2 == 0 {
                        table.store(key, payload(key));
                    } else if let Some(found) = table.probe(key) {
                        assert_eq!(found, payload(key), "torn entry for key {key:#x}");
                        hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert!(hits.into_inner() > 1000);
}

#[test]
fn solver_entries_never_tear() {
    let keys = keys_with_distinct_low_bits(4096, 24);
    let config = Config {
        scheme: Scheme::New,
        ..Config::default()
    };
    let hits = hammer(config, &keys, |k| SolverEntry {
        value: NonZeroU8::new((mix(k) % 255 + 1) as u8).expect("1..=255"),
    });
    assert!(hits > 1000, "saw {hits}");
}

#[test]
fn exact_entries_never_tear() {
    // Low 48 bits distinct: the entry keeps 48 key bits, and the table is too small for its
    // bucket index to tell apart keys that share them.
    let keys = keys_with_distinct_low_bits(4096, 48);
    let config = Config {
        scheme: Scheme::New,
        ways: Some(1),
        ..Config::default()
    };
    let hits = hammer(config, &keys, |k| {
        let h = mix(k);
        ExactEntry {
            value: NonZeroU8::new((h % 255 + 1) as u8).expect("1..=255"),
            aux: (h >> 8) as u8,
        }
    });
    assert!(hits > 1000, "saw {hits}");
}

#[test]
fn wide_exact_entries_never_tear() {
    // As for `ExactEntry`: low 48 bits distinct. Every field, the 64-bit rest included, is a
    // function of the key, so a hit that mixed two writes fails.
    let keys = keys_with_distinct_low_bits(4096, 48);
    let config = Config {
        scheme: Scheme::DepthAge { k: 0 },
        ..Config::default()
    };
    let hits = hammer(config, &keys, |k| {
        let h = mix(k);
        WideExactEntry {
            value: NonZeroU8::new((h % 255 + 1) as u8).expect("1..=255"),
            aux: (h >> 8) as u8,
            rest: k.rotate_left(7) ^ 0x5a5a_0f0f_3c3c_9696,
        }
    });
    assert!(hits > 1000, "saw {hits}");
}

#[test]
fn clear_while_others_probe_is_safe() {
    let table = Table::<ChessEntry>::with_mib(64).expect("64 MiB");
    let entry = |k: u64| ChessEntry {
        mv: k as u16,
        score: 1,
        eval: 2,
        depth: 3,
        bound: Bound::Exact,
        pv: false,
    };
    std::thread::scope(|scope| {
        let t = &table;
        scope.spawn(move || {
            for k in 0..200_000u64 {
                let key = mix(k);
                t.store(key, entry(key));
                if let Some(e) = t.probe(key) {
                    assert_eq!(e, entry(key));
                }
            }
        });
        for _ in 0..3 {
            t.clear();
        }
    });
}
