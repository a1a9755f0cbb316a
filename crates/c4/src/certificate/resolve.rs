//! The leaves re-solved: a shard's share of the frontier, each leaf on a fresh table
//! ([`resolve_leaves`]), what it found written as a verdict file (`verify-I-of-N.txt`,
//! [`Verdict`]) and the shards' verdicts united ([`combine`]).
//!
//! ```text
//! # transpo-c4 verify v1 certificate 0123456789abcdef shard 2/4 leaves 128 checksum 0123456789abcdef
//! found 2 1555 -3 -1 120345 20345 1a2b3c4d
//! ```
//!
//! `found INDEX MOVES LO HI NODES MICROS CHECK`: the leaf's number in the certificate
//! (counted from one) and its moves, the range its re-solve found, the positions and microseconds it took,
//! the line's check (the low 32 bits of FNV-1a over the line before it). Shard `I` of `N`
//! holds the leaves whose number `k` has `(k − 1) mod N = I − 1`.

use super::{CertError, Certificate};
use crate::split::Shard;
use std::io::BufRead;
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use transpo_connect4::book::fnv1a;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::solver::Solver;
use transpo_files::{Lines, TEXT_LINE_MAX};

/// The first words of a verdict file's header.
const MAGIC: &str = "# transpo-c4 verify v1";

/// One leaf re-solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Its number in the certificate, from 1.
    pub index: usize,
    /// The range its score was found to lie in (`None`: not a position, which the tree
    /// check names).
    pub range: Option<RangeInclusive<i32>>,
    /// Positions its re-solve explored.
    pub nodes: u64,
    /// Microseconds its re-solve took.
    pub micros: u64,
}

/// What one shard found: its leaves re-solved, for the certificate of this checksum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The certificate's checksum.
    pub certificate: u64,
    /// The shard.
    pub shard: Shard,
    /// Its leaves, by number.
    pub found: Vec<Found>,
}

/// The name of shard `shard`'s verdict file: `verify-I-of-N.txt`.
pub fn verdict_file_name(shard: Shard) -> String {
    format!("verify-{}-of-{}.txt", shard.index, shard.count)
}

/// Re-solves the leaves of `shard` of `cert`, each with its window on a table cleared
/// first, on as many threads as `solvers` (one each); `on_done` after each leaf. The found
/// ranges and counts do not depend on the shards or the threads (one thread a leaf, a fresh
/// table each).
pub fn resolve_leaves<const W: usize, const H: usize, B: Bitboard>(
    solvers: &mut [Solver<W, H, B>],
    cert: &Certificate,
    shard: Shard,
    on_done: impl Fn() + Sync,
) -> Vec<Found> {
    let mine: Vec<usize> = (0..cert.leaves.len())
        .filter(|&i| shard.contains(i))
        .collect();
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Vec::with_capacity(mine.len()));
    std::thread::scope(|scope| {
        for solver in solvers.iter_mut() {
            let (mine, next, found, on_done) = (&mine, &next, &found, &on_done);
            scope.spawn(move || {
                while let Some(&i) = mine.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let leaf = &cert.leaves[i];
                    let start = Instant::now();
                    solver.reset();
                    let range = Position::<W, H, B>::from_moves(&leaf.moves)
                        .ok()
                        .map(|pos| solver.solve_window(&pos, leaf.window));
                    let one = Found {
                        index: i + 1,
                        range,
                        nodes: solver.nodes(),
                        micros: start.elapsed().as_micros() as u64,
                    };
                    found
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(one);
                    on_done();
                }
            });
        }
    });
    let mut found = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    found.sort_unstable_by_key(|f| f.index);
    found
}

/// The failures of the leaves `found` against `cert`: each leaf whose re-solve did not find
/// its score within the bound claimed, named with both.
pub fn judge(cert: &Certificate, found: &[Found]) -> Vec<String> {
    let mut failures = Vec::new();
    for f in found {
        let (Some(leaf), Some(range)) = (cert.leaves.get(f.index - 1), &f.range) else {
            continue;
        };
        if !leaf.bound.holds_for(range) {
            failures.push(format!(
                "leaf {} ({}): claimed {:?} (window {} {}), re-solved {}..={}",
                f.index,
                leaf.moves,
                leaf.bound,
                leaf.window.alpha,
                leaf.window.beta,
                range.start(),
                range.end()
            ));
        }
    }
    failures
}

impl Found {
    /// Its line in a verdict file, check included.
    fn line(&self, cert: &Certificate) -> String {
        let moves = cert
            .leaves
            .get(self.index - 1)
            .map_or("?", |l| if l.moves.is_empty() { "-" } else { &l.moves });
        let (lo, hi) = self.range.as_ref().map_or(("-".into(), "-".into()), |r| {
            (r.start().to_string(), r.end().to_string())
        });
        let head = format!(
            "found {} {moves} {lo} {hi} {} {}",
            self.index, self.nodes, self.micros
        );
        format!("{head} {:08x}", fnv1a(head.as_bytes()) as u32)
    }
}

impl Verdict {
    /// The verdict file's text.
    pub fn to_text(&self, cert: &Certificate) -> String {
        let lines: Vec<String> = self.found.iter().map(|f| f.line(cert)).collect();
        let checksum = fnv1a(lines.join("\n").as_bytes());
        let mut text = format!(
            "{MAGIC} certificate {:016x} shard {} leaves {} checksum {checksum:016x}\n",
            self.certificate,
            self.shard,
            self.found.len()
        );
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// Writes it to `dir`/[`verdict_file_name`], atomically; returns the path.
    pub fn write_in(&self, dir: &Path, cert: &Certificate) -> std::io::Result<std::path::PathBuf> {
        let path = dir.join(verdict_file_name(self.shard));
        super::write_text(&path, &self.to_text(cert))?;
        Ok(path)
    }
}

/// Reads a verdict file written by [`Verdict::to_text`] for `cert`, as hostile input: one
/// form for every field, each line's check and the file's checksum, at most as many lines
/// as the certificate has leaves, each one of its shard's leaves, once. Any failure is
/// [`CertError::Malformed`]: a verdict file is made by a machine, never edited.
pub fn read_verdict(input: impl BufRead, cert: &Certificate) -> Result<Verdict, CertError> {
    let bad = |m: String| CertError::Malformed(m);
    let mut lines = Lines::new(input, TEXT_LINE_MAX);
    let text = |line: Option<std::io::Result<transpo_files::Line>>| match line {
        None => Err(bad("empty: not a verdict file".into())),
        Some(Err(e)) => Err(bad(format!("read error: {e}"))),
        Some(Ok(l)) => l.text.map_err(|e| bad(format!("line {}: {e}", l.number))),
    };
    let header = text(lines.next())?;
    let words: Vec<&str> = header
        .strip_prefix(MAGIC)
        .unwrap_or_default()
        .split(' ')
        .take(10)
        .collect();
    let [
        "",
        "certificate",
        checksum,
        "shard",
        shard,
        "leaves",
        count,
        "checksum",
        sum,
    ] = words.as_slice()
    else {
        return Err(bad("not a transpo-c4 verify file (no header)".into()));
    };
    if *checksum != format!("{:016x}", cert.checksum()) {
        return Err(bad(format!(
            "the verdict of another certificate ({checksum}, this one is {:016x})",
            cert.checksum()
        )));
    }
    let shard: Shard = shard
        .parse()
        .ok()
        .filter(|s: &Shard| s.count <= cert.leaves.len().max(1))
        .ok_or_else(|| bad(format!("shard {shard:?}: no shard of this certificate")))?;
    let mut verdict = Verdict {
        certificate: cert.checksum(),
        shard,
        found: Vec::new(),
    };
    let mut lines_read = Vec::new();
    for line in lines {
        let line = text(Some(line))?;
        if verdict.found.len() >= cert.leaves.len() {
            return Err(bad("more lines than the certificate has leaves".into()));
        }
        let found = parse_found(&line, cert, shard).ok_or_else(|| {
            bad(format!(
                "line {}: not a found line of this shard, or its check does not match",
                verdict.found.len() + 2
            ))
        })?;
        if verdict.found.last().is_some_and(|l| l.index >= found.index) {
            return Err(bad(format!("leaf {} out of order or again", found.index)));
        }
        verdict.found.push(found);
        lines_read.push(line);
    }
    let expected = format!("{:016x}", fnv1a(lines_read.join("\n").as_bytes()));
    if *count != verdict.found.len().to_string() || *sum != expected {
        return Err(bad(
            "its count or checksum does not match: changed or cut".into()
        ));
    }
    Ok(verdict)
}

/// One `found` line of shard `shard`, if it is one in the writer's form.
fn parse_found(line: &str, cert: &Certificate, shard: Shard) -> Option<Found> {
    let words: Vec<&str> = line.split(' ').take(9).collect();
    let ["found", index, _, lo, hi, nodes, micros, _] = words.as_slice() else {
        return None;
    };
    let index: usize = index.parse().ok()?;
    if index == 0 || index > cert.leaves.len() || !shard.contains(index - 1) {
        return None;
    }
    let range = match (*lo, *hi) {
        ("-", "-") => None,
        (lo, hi) => Some(lo.parse().ok()?..=hi.parse().ok()?),
    };
    let found = Found {
        index,
        range,
        nodes: nodes.parse().ok()?,
        micros: micros.parse().ok()?,
    };
    (found.line(cert) == line).then_some(found)
}

/// The shards' verdicts united: one of each shard of one count, each holding every leaf of
/// its shard. Returns every leaf found, by number; a shard missing, doubled or incomplete
/// is named ([`CertError::Malformed`]: the verdicts given are not all of one verification).
pub fn combine(
    cert: &Certificate,
    verdicts: &[(String, Verdict)],
) -> Result<Vec<Found>, CertError> {
    let bad = |m: String| CertError::Malformed(m);
    let count = verdicts
        .first()
        .map(|(_, v)| v.shard.count)
        .ok_or_else(|| {
            bad("no verdict files (verify-I-of-N.txt): run verify --shard I/N".into())
        })?;
    let mut shards: Vec<Option<&(String, Verdict)>> = vec![None; count];
    for named in verdicts {
        let (name, v) = named;
        if v.shard.count != count {
            return Err(bad(format!(
                "{name}: shard {}, but another file is a shard of {count}",
                v.shard
            )));
        }
        if let Some((other, _)) = shards[v.shard.index - 1].replace(named) {
            return Err(bad(format!(
                "{name}: shard {} again (also {other})",
                v.shard
            )));
        }
    }
    let mut all = Vec::with_capacity(cert.leaves.len());
    for (i, named) in shards.into_iter().enumerate() {
        let shard = Shard {
            index: i + 1,
            count,
        };
        let (name, v) = named.ok_or_else(|| {
            bad(format!(
                "shard {shard}: no verdict ({}): run verify --shard {shard}",
                verdict_file_name(shard)
            ))
        })?;
        let expected = shard.units(cert.leaves.len());
        if v.found.len() != expected {
            return Err(bad(format!(
                "{name}: {} of its {expected} leaves: incomplete",
                v.found.len()
            )));
        }
        all.extend(v.found.iter().cloned());
    }
    all.sort_unstable_by_key(|f| f.index);
    Ok(all)
}
