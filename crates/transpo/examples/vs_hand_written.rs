//! The comparison an engine author makes before adopting a table crate: `transpo` against
//! **a hand-written Stockfish-style table** ([`hand_written::HandTable`], below; not part of
//! the crate), with the same entries a cache line (four 16-byte entries, full 64-bit keys,
//! XOR-verified), the same index (high half of `key × lines`), the same replacement
//! (depth-and-age, k = 8) and the same packing of the data word as [`ChessEntry`].
//!
//! For each size both tables are filled to half their entries with the same keys; then, in
//! `ROUNDS` rounds that alternate the two tables (so that a busy machine slows both alike),
//! each measures a probe of stored keys (hit), of absent keys (miss) and a store of an absent
//! key into a cold bucket, `OPS` operations each. Medians of the rounds, in ns per operation.
//!
//! `cargo run --release --example vs_hand_written -p transpo -- [MIB...]`
//! (default sizes, small so that CI runs it quickly: 1 16; the README's figures used
//! `1 16 256 1024`). It checks that both tables keep the same stored keys and find no absent
//! one (the timings are only printed).

use std::{hint::black_box, time::Instant};

use transpo::{Bound, ChessEntry, Table, key::mix, table::Instrumented};

const ROUNDS: usize = 7;
const OPS: u64 = 1 << 21;

/// A transposition table as an engine writes it by hand, for one entry type and one scheme.
mod hand_written {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    /// One cache line: four entries of `[key ^ data, data]`.
    #[repr(C, align(64))]
    #[derive(Default)]
    struct Line([AtomicU64; 8]);

    /// Data word as `ChessEntry` packs it: move 16, score 16, eval 16, depth 8, bound 2
    /// (0 = empty), PV 1, generation 5.
    pub struct HandTable {
        lines: Vec<Line>,
        generation: u64,
    }

    impl HandTable {
        pub fn with_mib(mib: u64) -> Self {
            let n = (mib << 20) as usize / 64;
            HandTable {
                lines: (0..n).map(|_| Line::default()).collect(),
                generation: 0,
            }
        }

        #[inline]
        fn line(&self, key: u64) -> &Line {
            &self.lines[((u128::from(key) * self.lines.len() as u128) >> 64) as usize]
        }

        /// The data word stored for `key`, if any.
        #[inline]
        pub fn probe(&self, key: u64) -> Option<u64> {
            let line = self.line(key);
            for slot in 0..4 {
                let data = line.0[2 * slot + 1].load(Relaxed);
                if line.0[2 * slot].load(Relaxed) ^ data == key && data >> 56 & 3 != 0 {
                    return Some(data);
                }
            }
            None
        }

        /// Depth-and-age (k = 8): the same key's slot, else an empty one, else the lowest
        /// `depth − 8·age`.
        #[inline]
        pub fn store(&self, key: u64, data: u64) {
            let line = self.line(key);
            let mut victim = 0;
            let mut worst = i32::MAX;
            for slot in 0..4 {
                let old = line.0[2 * slot + 1].load(Relaxed);
                if old >> 56 & 3 == 0 || line.0[2 * slot].load(Relaxed) ^ old == key {
                    victim = slot;
                    break;
                }
                let age = (self.generation.wrapping_sub(old >> 59) & 31) as i32;
                let worth = i32::from((old >> 48) as u8 as i8).max(0) - 8 * age;
                if worth < worst {
                    (victim, worst) = (slot, worth);
                }
            }
            let data = data & !(31 << 59) | (self.generation & 31) << 59;
            line.0[2 * victim].store(key ^ data, Relaxed);
            line.0[2 * victim + 1].store(data, Relaxed);
        }
    }
}

fn entry(key: u64) -> ChessEntry {
    ChessEntry {
        mv: key as u16,
        score: (key >> 16) as i16,
        depth: (key >> 56) as i8,
        bound: Bound::Exact,
        ..ChessEntry::default()
    }
}

/// The data word `ChessEntry` packs for `entry(key)` (bound exact: code 3).
fn data(key: u64) -> u64 {
    let e = entry(key);
    u64::from(e.mv) | u64::from(e.score as u16) << 16 | u64::from(e.depth as u8) << 48 | 3 << 56
}

/// Nanoseconds per call of `op` over `OPS` keys `key(i)`.
fn time(mut op: impl FnMut(u64), key: impl Fn(u64) -> u64) -> f64 {
    let start = Instant::now();
    for i in 0..OPS {
        op(key(i));
    }
    start.elapsed().as_secs_f64() * 1e9 / OPS as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let sizes: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() { vec![1, 16] } else { sizes };
    println!("ns per operation, median of {ROUNDS} alternating rounds of {OPS} operations");
    println!("size      | transpo hit / miss / store   | hand-written hit / miss / store");
    for mib in sizes {
        let ours = Table::<ChessEntry>::with_mib(mib).expect("a table that fits");
        ours.prefault(1);
        let hand = hand_written::HandTable::with_mib(mib);
        let filled = ours.shape().entries as u64 / 2;
        for i in 0..filled {
            ours.store(mix(i), entry(mix(i)));
            hand.store(mix(i), data(mix(i)));
        }
        let hit = |i: u64| mix(mix(i ^ 0x5555) % filled);
        // Both answer alike before timing: same buckets, same victims, so the same stored
        // keys survive the fill (a bucket that drew more than four keys kept the deepest), and
        // neither finds an absent key.
        let mut found = 0;
        for i in 0..10_000 {
            let (a, b) = (ours.probe(hit(i)), hand.probe(hit(i)));
            assert_eq!(a.map(|e| e.mv), b.map(|d| d as u16), "key {i}");
            found += u32::from(a.is_some());
            let absent = mix(u64::MAX - i);
            assert!(ours.probe(absent).is_none() && hand.probe(absent).is_none());
        }
        assert!(found > 9_000, "{found} of 10,000 stored keys found");
        let mut fresh = filled;
        let mut ours_t = [vec![], vec![], vec![]];
        let mut hand_t = [vec![], vec![], vec![]];
        for _ in 0..ROUNDS {
            let miss = |i: u64| mix(u64::MAX - i);
            ours_t[0].push(time(
                |k| {
                    black_box(ours.probe(k));
                },
                hit,
            ));
            hand_t[0].push(time(
                |k| {
                    black_box(hand.probe(k));
                },
                hit,
            ));
            ours_t[1].push(time(
                |k| {
                    black_box(ours.probe(k));
                },
                miss,
            ));
            hand_t[1].push(time(
                |k| {
                    black_box(hand.probe(k));
                },
                miss,
            ));
            let base = fresh;
            ours_t[2].push(time(
                |k| {
                    black_box(ours.store(k, entry(k)));
                },
                |i| mix(base + i),
            ));
            hand_t[2].push(time(|k| hand.store(k, data(k)), |i| mix(base + i)));
            fresh += OPS;
        }
        let [a, b, c] = ours_t.map(median);
        let [d, e, f] = hand_t.map(median);
        println!(
            "{:>5} MiB | {a:6.1} / {b:6.1} / {c:6.1}       | {d:6.1} / {e:6.1} / {f:6.1}",
            mib
        );
    }
}
