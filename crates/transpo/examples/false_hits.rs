//! False hits (type-2 errors: a probe for a position never stored answers with another
//! position's entry), measured for the chess layouts at several loads.
//!
//! A table of each layout is filled with `load × entries` random keys, then probed with
//! `PROBES` fresh random keys that were never stored: every hit is a false one. A full-key
//! [`ChessEntry`] can have none; a 16-bit check ([`CompactEntry`], [`DenseChessEntry`])
//! about `occupied ways / 65536` per probe.
//!
//! `cargo run --release --example false_hits -p transpo -- [MIB] [PROBES]`
//! (defaults: 16 MiB, 1,000,000 probes; the notebook's figures used 4,000,000). It checks
//! that the full-key layout has none and that the 16-bit one stays within three times the
//! expected count (plus 20).

use transpo::{
    Bound, ChessEntry, Table,
    entry::{CompactEntry, DenseChessEntry, Entry},
    key::SplitMix64,
    table::Instrumented,
};

/// Fills a fresh `mib` MiB table with `load × entries` random keys and counts the hits of
/// `probes` keys never stored. Returns (ways, false hits).
fn false_hits<E: Entry>(mib: u64, load: f64, probes: u64, entry: E) -> (usize, u64) {
    let table = Table::<E>::with_mib(mib).expect("a small table");
    let stored = (table.shape().entries as f64 * load) as u64;
    let mut keys = SplitMix64::new(1);
    for _ in 0..stored {
        table.store(keys.next_u64(), entry);
    }
    // A different stream: these keys were never stored (a 2^-64 chance each otherwise).
    let mut fresh = SplitMix64::new(2);
    let hits = (0..probes)
        .filter(|_| table.probe(fresh.next_u64()).is_some())
        .count() as u64;
    (table.shape().ways, hits)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mib: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(16);
    let probes: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    println!("{mib} MiB tables, {probes} probes of keys never stored, depth-age-8:");
    println!("layout        ways  load  false hits  per probe    expected (used ways / 65536)");
    for load in [0.25, 0.5, 1.0, 2.0] {
        let chess = ChessEntry {
            depth: 5,
            bound: Bound::Exact,
            ..ChessEntry::default()
        };
        let compact = CompactEntry {
            mv: 0,
            score: 0,
            depth: 5,
            bound: Bound::Exact,
        };
        for (name, (ways, hits)) in [
            ("ChessEntry", false_hits(mib, load, probes, chess)),
            ("CompactEntry", false_hits(mib, load, probes, compact)),
            (
                "DenseChess",
                false_hits(mib, load, probes, DenseChessEntry::from(chess)),
            ),
        ] {
            // Random keys into buckets: the mean occupied ways at this load (Poisson).
            let expected = if name == "ChessEntry" {
                0.0
            } else {
                occupied(ways, load) / 65536.0
            };
            println!(
                "{name:<13} {ways:>4}  {load:>4}  {hits:>10}  {:>9.2e}    {expected:.2e}",
                hits as f64 / probes as f64
            );
            assert!(
                (hits as f64) <= 3.0 * expected * probes as f64 + 20.0,
                "{name} at load {load}: {hits} false hits"
            );
        }
    }
}

/// Expected occupied slots of a `ways`-way bucket after `load × ways` random keys per
/// bucket on average (Poisson arrivals, a full bucket stays full).
fn occupied(ways: usize, load: f64) -> f64 {
    let lambda = load * ways as f64;
    let mut p = (-lambda).exp();
    let mut mean = 0.0;
    let mut below = 0.0;
    for k in 0..ways {
        mean += k as f64 * p;
        below += p;
        p *= lambda / (k + 1) as f64;
    }
    mean + ways as f64 * (1.0 - below)
}
