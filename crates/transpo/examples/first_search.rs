//! First-search latency: what a fresh table's lazily mapped memory costs the first search,
//! and what [`Table::prefault`] does about it.
//!
//! A search-like load (a probe and a store at each of `NODES` pseudo-random keys, the access
//! pattern of a search on a table much larger than the cache) runs on three tables of the
//! same size:
//! - **lazy**: just made; the search's own stores fault the pages in;
//! - **prefaulted**: just made, then `prefault(threads)` (its time is reported apart);
//! - **warm**: the prefaulted table again, cleared (the memory is mapped already).
//!
//! Each is measured `ROUNDS` times on fresh tables; the medians are printed.
//!
//! `cargo run --release --example first_search -p transpo -- [MIB] [NODES] [THREADS]`
//! (defaults, small so that CI runs it quickly: 64 MiB, 200,000 nodes, all cores; the
//! notebook's figures used `1024 500000 2`). It checks that the three searches found the
//! same entries (the timings are only printed).

use std::time::{Duration, Instant};

use transpo::{Bound, ChessEntry, Table, key::SplitMix64};

const ROUNDS: usize = 5;

/// The search-like load: probe then store at `nodes` keys from a fixed seed. Returns its
/// time and its hits.
fn search(table: &Table<ChessEntry>, nodes: u64) -> (Duration, u64) {
    let mut keys = SplitMix64::new(0x5eed);
    let start = Instant::now();
    let mut hits = 0u64;
    for i in 0..nodes {
        let key = keys.next_u64();
        hits += u64::from(table.probe(key).is_some());
        let entry = ChessEntry {
            mv: i as u16,
            score: (key >> 20) as i16,
            depth: (i % 16) as i8,
            bound: Bound::Exact,
            ..ChessEntry::default()
        };
        table.store(key, entry);
    }
    (start.elapsed(), std::hint::black_box(hits))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut arg = |default: u64| -> Result<u64, Box<dyn std::error::Error>> {
        Ok(args
            .next()
            .map(|a| a.parse())
            .transpose()?
            .unwrap_or(default))
    };
    let mib = arg(64)?;
    let nodes = arg(200_000)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let threads = arg(cores)? as usize;
    let (mut lazy, mut prefault, mut prefaulted, mut warm) = (vec![], vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        let table = Table::<ChessEntry>::with_mib(mib)?;
        let (time, lazy_hits) = search(&table, nodes);
        lazy.push(time);
        drop(table);
        let table = Table::<ChessEntry>::with_mib(mib)?;
        let start = Instant::now();
        table.prefault(threads);
        prefault.push(start.elapsed());
        let (time, prefaulted_hits) = search(&table, nodes);
        prefaulted.push(time);
        table.clear();
        let (time, warm_hits) = search(&table, nodes);
        warm.push(time);
        // Same keys, same fresh table: the same entries found, whatever the memory's state.
        assert_eq!((prefaulted_hits, warm_hits), (lazy_hits, lazy_hits));
    }
    let (lazy, prefault, prefaulted, warm) = (
        median(lazy),
        median(prefault),
        median(prefaulted),
        median(warm),
    );
    println!(
        "{mib} MiB table, {nodes} probe+store nodes, prefault on {threads} thread(s), median of {ROUNDS}:"
    );
    println!("  lazy (fresh table)     {:8.1} ms", ms(lazy));
    println!(
        "  prefault({threads})          {:8.1} ms (once, before the clock runs)",
        ms(prefault)
    );
    println!("  after prefault         {:8.1} ms", ms(prefaulted));
    println!("  warm table             {:8.1} ms", ms(warm));
    println!(
        "  after prefault / warm  {:8.3}; lazy / warm {:.3}",
        prefaulted.as_secs_f64() / warm.as_secs_f64(),
        lazy.as_secs_f64() / warm.as_secs_f64()
    );
    Ok(())
}
