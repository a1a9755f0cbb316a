//! `tt-bench`: what one probe costs, measured against one dependent DRAM access.
//!
//! Four measurements on one table of `--hash-mib` MiB of [`ChessEntry`], filled first:
//! 1. `probe_ns`: dependent probes, each key chosen from the previous probe's result, so no
//!    two probes overlap — the latency of a probe;
//! 2. `chase_ns`: a pointer chase through a random cycle over the cache lines of a buffer of
//!    the same size with the same huge-page advice — the latency of one DRAM access, the
//!    floor for any table that needs one cache line per probe. `ratio = probe_ns / chase_ns`.
//!    Probes and chase alternate in 7 rounds and each reports its median round;
//! 3. `prefetched_probe_ns`: independent keys known one step ahead, each prefetched one probe
//!    before it is probed, as an engine prefetches a child's bucket before it needs it
//!    (`independent_probe_ns` is the same without the prefetch);
//! 4. `mprobes_per_s`: independent probes per second from `--threads` threads at once.

use crate::failure::Failure;
use std::{hint::black_box, time::Instant};
use transpo::{Bound, ChessEntry, Table, key::mix, table::Instrumented};

/// Arguments of `tt-bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Table size in MiB (the chase buffer is as large), below 256 GiB: the chase numbers
    /// its cache lines with 32 bits.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=MOST_HASH_MIB))]
    hash_mib: u64,
    /// Threads for the throughput measurement (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Probes per latency measurement (at most a billion: the independent probes' keys are
    /// held in memory, 8 bytes each).
    #[arg(long, default_value_t = 4_000_000, value_parser = clap::value_parser!(u64).range(1000..=1_000_000_000))]
    probes: u64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The largest `--hash-mib`: its cache lines of 64 bytes, 2^14 to a MiB, must be numbered by
/// a `u32` in the chase's cycle.
const MOST_HASH_MIB: u64 = (u32::MAX as u64) >> 14;

fn entry_for(key: u64) -> ChessEntry {
    ChessEntry {
        mv: key as u16,
        score: (key >> 16) as i16,
        eval: (key >> 32) as i16,
        depth: (key >> 48) as i8,
        bound: Bound::Exact,
        pv: false,
    }
}

/// The measurements, in the order `--json` prints them.
struct Report {
    hash_mib: u64,
    entries: usize,
    probe_ns: f64,
    chase_ns: f64,
    independent_probe_ns: f64,
    prefetched_probe_ns: f64,
    threads: u32,
    mprobes_per_s: f64,
    huge_pages: String,
    /// MiB of this process's memory backed by transparent huge pages at the end of the run.
    huge_page_mib: Option<u64>,
}

/// Runs the benchmark and prints the report.
pub fn run(args: &Args) -> Result<(), Failure> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    let table = Table::<ChessEntry>::with_mib(args.hash_mib)
        .map_err(|e| Failure::of_table(format_args!("--hash-mib {}", args.hash_mib), &e))?;
    let filled = fill(&table, threads);
    // Probe and chase take turns, ROUNDS times, and each reports its median, so that a burst
    // of load on the machine moves one sample rather than one whole measurement.
    const ROUNDS: u64 = 7;
    let mut chase = Chase::new(table.shape().bytes)?;
    let (mut probe_samples, mut chase_samples) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let steps = args.probes / ROUNDS;
        probe_samples.push(dependent_probes(&table, filled, round * steps, steps));
        chase_samples.push(chase.measure(steps));
    }
    drop(chase);
    let (probe_ns, chase_ns) = (median(probe_samples), median(chase_samples));
    let keys = independent_keys(args.probes, filled)?;
    let independent_probe_ns = independent_probes(&table, &keys, false);
    let prefetched_probe_ns = independent_probes(&table, &keys, true);
    let mprobes_per_s = throughput(&table, filled, args.probes, threads);
    let huge_page_mib = huge_page_mib();
    let report = Report {
        hash_mib: args.hash_mib,
        entries: table.shape().entries,
        probe_ns,
        chase_ns,
        independent_probe_ns,
        prefetched_probe_ns,
        threads,
        mprobes_per_s,
        huge_pages: huge_page_mode(),
        huge_page_mib,
    };
    if args.json {
        println!("{}", report.json());
    } else {
        report.print();
    }
    Ok(())
}

/// Stores entries for keys `mix(0..n)`, `n` a quarter of the capacity, so that nearly every
/// key stays in the table (a bucket must receive five of them to lose one) and the probes
/// below hit: a missing key would let the CPU run ahead on a predicted branch.
fn fill(table: &Table<ChessEntry>, threads: u32) -> u64 {
    let n = (table.shape().entries as u64 / 4).max(1);
    std::thread::scope(|scope| {
        for t in 0..u64::from(threads) {
            scope.spawn(move || {
                let mut i = t;
                while i < n {
                    let key = mix(i);
                    table.store(key, entry_for(key));
                    i += u64::from(threads);
                }
            });
        }
    });
    n
}

/// The keys of the independent probes, `mix(mix(i ^ 0xabcd) % filled)` for `i` below
/// `probes`: stored keys in an order no prefetcher can guess. Memory refused for them is a
/// failure while running, not an abort.
fn independent_keys(probes: u64, filled: u64) -> Result<Vec<u64>, Failure> {
    let refused = |why: String| Failure::Run(format!("--probes {probes}: keys: {why}"));
    let count = usize::try_from(probes).map_err(|e| refused(e.to_string()))?;
    let mut keys = Vec::new();
    keys.try_reserve_exact(count)
        .map_err(|e| refused(e.to_string()))?;
    keys.extend((0..probes).map(|i| mix(mix(i ^ 0xabcd) % filled)));
    Ok(keys)
}

/// Latency of probes that depend on each other: each key is computed from the last result.
///
/// The `k`-th key is `mix(mix(k) % filled)`, a stored key, XOR-ed with the difference between
/// the move the previous probe returned and the move stored for that key, which is zero but
/// unknown until the previous probe's data arrives. (A key computed from the result alone
/// would fall into a short cycle that fits in cache.)
fn dependent_probes(table: &Table<ChessEntry>, filled: u64, first: u64, probes: u64) -> f64 {
    let mut carry = 0u64;
    let start = Instant::now();
    for k in first..first + probes {
        let key = mix(mix(k) % filled) ^ carry;
        let expected = entry_for(key).mv;
        carry = u64::from(table.probe(key).map_or(expected, |e| e.mv) ^ expected);
    }
    black_box(carry);
    start.elapsed().as_nanos() as f64 / probes as f64
}

/// A buffer whose cache lines form one random cycle, for measuring dependent DRAM reads.
struct Chase {
    buffer: Vec<u64>,
    line: usize,
}

impl Chase {
    const WORDS_PER_LINE: usize = 8;

    fn new(bytes: usize) -> Result<Self, Failure> {
        let lines = bytes / 64;
        let mut buffer = chase_buffer(lines * Self::WORDS_PER_LINE)?;
        // Sattolo's algorithm: a random permutation that is one cycle through every line.
        let mut order: Vec<u32> = (0..lines as u32).collect();
        let mut x = 42u64;
        for i in (1..lines).rev() {
            x = mix(x);
            order.swap(i, (x % i as u64) as usize);
        }
        for (line, &next) in order.iter().enumerate() {
            buffer[line * Self::WORDS_PER_LINE] = u64::from(next);
        }
        Ok(Chase { buffer, line: 0 })
    }

    /// Nanoseconds per step over `steps` dependent reads, continuing the cycle.
    fn measure(&mut self, steps: u64) -> f64 {
        let mut line = self.line;
        let start = Instant::now();
        for _ in 0..steps {
            line = self.buffer[line * Self::WORDS_PER_LINE] as usize;
        }
        let elapsed = start.elapsed();
        self.line = black_box(line);
        elapsed.as_nanos() as f64 / steps as f64
    }
}

/// The median of a few samples.
fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// A zeroed buffer of `words` words, advised for transparent huge pages like the table.
fn chase_buffer(words: usize) -> Result<Vec<u64>, Failure> {
    let mut buffer = Vec::new();
    buffer
        .try_reserve_exact(words)
        .map_err(|e| Failure::Run(format!("a chase buffer of {} MiB: {e}", (words * 8) >> 20)))?;
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buffer.as_mut_ptr() as usize;
        let end = start + words * 8;
        let aligned = start.next_multiple_of(HUGE);
        if aligned < end {
            // SAFETY: [aligned, end) lies inside the allocation just reserved, and page
            // advice only changes how the kernel backs memory, never its contents.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    end - aligned,
                    libc::MADV_HUGEPAGE,
                )
            };
        }
    }
    buffer.resize(words, 0);
    Ok(buffer)
}

/// Average time per probe over independent keys, optionally prefetching one key ahead.
fn independent_probes(table: &Table<ChessEntry>, keys: &[u64], prefetch: bool) -> f64 {
    let mut hits = 0u64;
    let start = Instant::now();
    for (i, &key) in keys.iter().enumerate() {
        if prefetch && let Some(&next) = keys.get(i + 1) {
            table.prefetch(next);
        }
        hits += u64::from(table.probe(key).is_some());
    }
    black_box(hits);
    start.elapsed().as_nanos() as f64 / keys.len() as f64
}

/// Millions of independent probes per second from `threads` threads at once.
fn throughput(table: &Table<ChessEntry>, filled: u64, probes: u64, threads: u32) -> f64 {
    let start = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..u64::from(threads) {
            scope.spawn(move || {
                let mut hits = 0u64;
                for i in 0..probes {
                    hits += u64::from(table.probe(mix(mix(i ^ (t << 40)) % filled)).is_some());
                }
                black_box(hits);
            });
        }
    });
    (probes * u64::from(threads)) as f64 / start.elapsed().as_secs_f64() / 1e6
}

/// The kernel's transparent-huge-page mode, e.g. "madvise", or "unknown".
fn huge_page_mode() -> String {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .ok()
        .and_then(|s| {
            let start = s.find('[')?;
            let end = s.find(']')?;
            Some(s[start + 1..end].to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// MiB of this process's anonymous memory in huge pages (Linux `smaps_rollup`).
fn huge_page_mib() -> Option<u64> {
    let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    let line = rollup.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib >> 10)
}

impl Report {
    fn ratio(&self) -> f64 {
        self.probe_ns / self.chase_ns
    }

    fn prefetch_ratio(&self) -> f64 {
        self.prefetched_probe_ns / self.probe_ns
    }

    fn json(&self) -> String {
        format!(
            "{{\"hash_mib\":{},\"entries\":{},\"probe_ns\":{:.2},\"chase_ns\":{:.2},\"ratio\":{:.3},\
             \"independent_probe_ns\":{:.2},\"prefetched_probe_ns\":{:.2},\"prefetch_ratio\":{:.3},\
             \"threads\":{},\"mprobes_per_s\":{:.2},\"huge_pages\":\"{}\",\"huge_page_mib\":{}}}",
            self.hash_mib,
            self.entries,
            self.probe_ns,
            self.chase_ns,
            self.ratio(),
            self.independent_probe_ns,
            self.prefetched_probe_ns,
            self.prefetch_ratio(),
            self.threads,
            self.mprobes_per_s,
            self.huge_pages,
            self.huge_page_mib
                .map_or("null".to_string(), |m| m.to_string())
        )
    }

    fn print(&self) {
        println!(
            "table                {} MiB, {} entries (ChessEntry, 4 per bucket)",
            self.hash_mib, self.entries
        );
        println!(
            "transparent huge pages: {} ({} MiB of this process in huge pages)",
            self.huge_pages,
            self.huge_page_mib
                .map_or("?".to_string(), |m| m.to_string())
        );
        println!("dependent probe      {:8.2} ns", self.probe_ns);
        println!(
            "dependent DRAM read  {:8.2} ns   (pointer chase, same size)",
            self.chase_ns
        );
        println!(
            "ratio                {:8.3}      (goal ≤ 1.10)",
            self.ratio()
        );
        println!("independent probe    {:8.2} ns", self.independent_probe_ns);
        println!(
            "prefetched probe     {:8.2} ns   ({:.3} × dependent probe; goal ≤ 0.35)",
            self.prefetched_probe_ns,
            self.prefetch_ratio()
        );
        println!(
            "throughput           {:8.2} M probes/s with {} thread(s)",
            self.mprobes_per_s, self.threads
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `tt-bench`'s arguments alone, as the binary parses them.
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn sizes_beyond_what_the_chase_can_number_or_hold_are_refused() {
        let parse = |flags: &[&str]| Cli::try_parse_from([&["tt-bench"], flags].concat());
        assert!(parse(&["--hash-mib", "262143"]).is_ok());
        assert!(parse(&["--hash-mib", "262144"]).is_err());
        assert!(parse(&["--hash-mib", "0"]).is_err());
        assert!(parse(&["--probes", "1000000000"]).is_ok());
        assert!(parse(&["--probes", "1000000001"]).is_err());
        // The last line of the largest table is still a u32.
        assert!((MOST_HASH_MIB << 20) / 64 <= u64::from(u32::MAX));
    }

    #[test]
    fn independent_keys_are_the_stored_ones() {
        let keys = independent_keys(1000, 10).expect("a thousand keys");
        assert_eq!(keys.len(), 1000);
        let stored: Vec<u64> = (0..10).map(mix).collect();
        assert!(keys.iter().all(|k| stored.contains(k)));
    }
}
