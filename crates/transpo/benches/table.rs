//! Probe hit, probe miss and store on tables from 1 MiB to 1 GiB, against
//! `hashbrown::HashMap<u64, ChessEntry>` holding as many entries, plus the compact 8-byte
//! layout beside the 16-byte XOR-verified one.
//!
//! `cargo bench -p transpo --bench table` (all sizes; the 1 GiB runs need ~3 GiB of memory),
//! or `cargo bench -p transpo --bench table -- '16 MiB'` for one size.

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
    measurement::WallTime,
};
use std::hint::black_box;
use transpo::{
    Bound, ChessEntry, Table,
    entry::{CompactEntry, Entry},
    key::mix,
    table::Instrumented,
};

const SIZES_MIB: [u64; 4] = [1, 16, 256, 1024];
/// Keys cycled through by each measurement (enough to defeat caches on big tables).
const KEYS: usize = 1 << 16;

fn chess(key: u64) -> ChessEntry {
    ChessEntry {
        mv: key as u16,
        score: (key >> 16) as i16,
        eval: 0,
        depth: (key >> 56) as i8,
        bound: Bound::Exact,
        pv: false,
    }
}

fn compact(key: u64) -> CompactEntry {
    CompactEntry {
        mv: key as u16,
        score: (key >> 16) as i16,
        depth: (key >> 56) as u8,
        bound: Bound::Exact,
    }
}

/// Keys `mix(0..filled)` are stored; hits probe a random sample of them, misses fresh keys.
fn key_sets(filled: u64) -> (Vec<u64>, Vec<u64>) {
    let hits = (0..KEYS as u64)
        .map(|i| mix(mix(i ^ 0x5555) % filled))
        .collect();
    let misses = (0..KEYS as u64).map(|i| mix(filled + i)).collect();
    (hits, misses)
}

/// The three measurements on one filled container: `probe(key)` for stored and for absent
/// keys, and `store(hit key, miss key)`.
fn bench_ops<R, S>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    label: &str,
    (hits, misses): (Vec<u64>, Vec<u64>),
    mut probe: impl FnMut(u64) -> R,
    mut store: impl FnMut(u64, u64) -> S,
) {
    let mut i = 0;
    group.bench_function(BenchmarkId::new("probe hit", label), |b| {
        b.iter(|| {
            i = (i + 1) % KEYS;
            black_box(probe(hits[i]))
        })
    });
    group.bench_function(BenchmarkId::new("probe miss", label), |b| {
        b.iter(|| {
            i = (i + 1) % KEYS;
            black_box(probe(misses[i]))
        })
    });
    group.bench_function(BenchmarkId::new("store", label), |b| {
        b.iter(|| {
            i = (i + 1) % KEYS;
            black_box(store(hits[i], misses[i]))
        })
    });
}

/// A group over every size, with fewer samples for the big ones.
fn for_each_size(
    c: &mut Criterion,
    name: &str,
    mut run: impl FnMut(&mut BenchmarkGroup<'_, WallTime>, u64),
) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(1));
    for mib in SIZES_MIB {
        if mib >= 256 {
            group.sample_size(20);
        }
        run(&mut group, mib);
    }
    group.finish();
}

fn bench_table<E: Entry>(c: &mut Criterion, name: &str, make: fn(u64) -> E) {
    for_each_size(c, name, |group, mib| {
        let table = Table::<E>::with_mib(mib).expect("table fits in memory");
        let filled = table.shape().entries as u64 / 2;
        for i in 0..filled {
            table.store(mix(i), make(mix(i)));
        }
        // A store of a fresh key into a cold bucket: the worst case.
        let store = |_hit, miss| table.store(miss, make(miss));
        bench_ops(
            group,
            &format!("{mib} MiB"),
            key_sets(filled),
            |k| table.probe(k),
            store,
        );
    });
}

fn bench_hashbrown(c: &mut Criterion) {
    for_each_size(c, "hashbrown HashMap<u64, ChessEntry>", |group, mib| {
        // As many entries as the transpo table of this size holds at half load.
        let filled = (mib << 20) / 16 / 2;
        let mut map = hashbrown::HashMap::with_capacity(filled as usize);
        for i in 0..filled {
            map.insert(mix(i), chess(mix(i)));
        }
        let map = std::cell::RefCell::new(map);
        // Overwrite an existing key, so the map neither grows nor rehashes.
        let store = |hit, miss| map.borrow_mut().insert(hit, chess(miss));
        bench_ops(
            group,
            &format!("{mib} MiB"),
            key_sets(filled),
            |k| map.borrow().get(&k).copied(),
            store,
        );
    });
}

fn benches(c: &mut Criterion) {
    bench_table(c, "transpo ChessEntry (16 B, XOR-verified)", chess);
    bench_table(c, "transpo CompactEntry (8 B, 16-bit check)", compact);
    bench_hashbrown(c);
}

criterion_group! {
    name = table;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = benches
}
criterion_main!(table);
