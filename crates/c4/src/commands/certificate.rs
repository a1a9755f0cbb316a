//! `transpo-c4 certify` and `verify`: a solve's certificate written, and checked
//! ([`transpo_c4::certificate`]); `merge --certificate` writes one from a split's rounds.

use super::{Solving, TreeArgs, check_dir_out};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use transpo_c4::certificate::{
    self, CERTIFICATE_FILE, CertError, Certificate, Found, Knowledge, Verdict,
};
use transpo_c4::split::Shard;
use transpo_cli::{Failure, progress};
use transpo_connect4::board::Board;
use transpo_connect4::position::Bitboard;
use transpo_connect4::score::Strength;

/// `verify`'s own arguments.
#[derive(clap::Args)]
pub(crate) struct VerifyArgs {
    /// The certificate's directory (certify's --out).
    pub(crate) dir: PathBuf,
    /// Re-solve only the I-th of N shares of the leaves (leaf k when (k - 1) mod N = I - 1)
    /// and write DIR/verify-I-of-N.txt; `verify DIR --merge` unites the shards.
    #[arg(long, conflicts_with = "merge")]
    pub(crate) shard: Option<Shard>,
    /// Unite the shards' verdicts (DIR/verify-*-of-N.txt) instead of re-solving.
    #[arg(long)]
    pub(crate) merge: bool,
}

/// A certificate's error as the exit convention has it: malformed input is bad usage (2), a
/// failed check a failure (1), each failure on its own line.
fn failure(dir: &Path, e: CertError) -> Failure {
    let path = dir.join(CERTIFICATE_FILE);
    match e {
        CertError::Malformed(m) => Failure::usage(m),
        CertError::Failed(all) => Failure::run(format!(
            "{}: not verified:\n  {}",
            path.display(),
            all.join("\n  ")
        )),
    }
}

/// `transpo-c4 certify`: the tree below `--from` down to `--depth` stones solved in rounds
/// in this process, and its certificate written to `--out`.
pub(crate) fn certify<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    args: &TreeArgs,
) -> Result<(), Failure> {
    check_dir_out(&args.out, "--out")?;
    let tree = args.tree::<W, H, B>()?;
    let root = transpo_connect4::position::Position::<W, H, B>::from_moves(args.root_moves())
        .map_err(|e| Failure::usage(format!("--from: {e}")))?;
    let strength = solving.strength;
    let mut solver = solving.solver()?;
    let start = std::time::Instant::now();
    let knowledge = certificate::solve_in_rounds(&mut solver, &root, &tree, strength, |r, n| {
        eprintln!("round {r}: {n} leaves to search");
    })
    .map_err(Failure::run)?;
    let seconds = start.elapsed().as_secs_f64();
    let board = Board::new(W, H).map_err(Failure::usage)?;
    write_certificate(
        &knowledge,
        board,
        args.root_moves(),
        tree.depth(),
        strength,
        &args.out,
    )?;
    let root_name = super::root_name(args.root_moves());
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "{root_name} {} {} {}",
        knowledge.score,
        knowledge.positions,
        (seconds * 1e6) as u64
    )?;
    stdout.flush()?;
    eprintln!(
        "{} rounds, {} positions explored, {seconds:.1} s",
        knowledge.rounds, knowledge.positions
    );
    Ok(())
}

/// Builds the certificate of `knowledge` and writes it in `dir`; says its size on stderr.
pub(crate) fn write_certificate<const W: usize, const H: usize, B: Bitboard>(
    knowledge: &Knowledge<W, H, B>,
    board: Board,
    root_moves: &str,
    depth: u32,
    strength: Strength,
    dir: &Path,
) -> Result<(), Failure> {
    let cert = certificate::build(knowledge, board, root_moves, depth, strength)
        .map_err(|e| Failure::run(format!("the certificate: {e}")))?;
    let path = cert
        .write_in(dir)
        .map_err(|e| Failure::writing(format!("{}: {e}", dir.display()), &e))?;
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    eprintln!(
        "{}: {} nodes, {} leaves, {bytes} bytes",
        path.display(),
        cert.nodes.len(),
        cert.leaves.len()
    );
    Ok(())
}

/// `transpo-c4 verify`: the certificate in `dir` read, its tree checked by the rules, and
/// its leaves re-solved (all, or `--shard`'s, whose verdict file is written) or the shards'
/// verdicts united (`--merge`). Exit status 1 names every failure.
pub(crate) fn verify<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    args: &VerifyArgs,
) -> Result<(), Failure> {
    let dir = &args.dir;
    let cert = Certificate::load(dir).map_err(|e| failure(dir, e))?;
    let mut failures = certificate::check_tree::<W, H, B>(&cert);
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    if shard.count > cert.leaves.len().max(1) {
        return Err(Failure::usage(format!(
            "--shard {shard}: the certificate has {} leaves: at most that many shards",
            cert.leaves.len()
        )));
    }
    let found = if args.merge {
        let verdicts = read_verdicts(dir, &cert)?;
        certificate::combine(&cert, &verdicts).map_err(|e| failure(dir, e))?
    } else {
        let mut solvers = solving.one_thread_solvers()?;
        let bar = progress::bar(
            shard.units(cert.leaves.len()) as u64,
            &format!("leaves of shard {shard}"),
        );
        let found = certificate::resolve_leaves(&mut solvers, &cert, shard, || bar.inc(1));
        bar.finish_and_clear();
        found
    };
    if let Some(shard) = args.shard {
        let verdict = Verdict {
            certificate: cert.checksum(),
            shard,
            found: found.clone(),
        };
        let path = verdict
            .write_in(dir, &cert)
            .map_err(|e| Failure::writing(format!("{}: {e}", dir.display()), &e))?;
        eprintln!("{}: shard {shard}'s verdict", path.display());
    }
    failures.extend(certificate::judge(&cert, &found));
    report(&cert, &found, args.shard, failures).map_err(|e| failure(dir, e))
}

/// Prints the verdict on stdout (the same line whether the leaves were re-solved here in one
/// shard or united from many) and the cost on stderr; the failures as an error.
fn report(
    cert: &Certificate,
    found: &[Found],
    shard: Option<Shard>,
    failures: Vec<String>,
) -> Result<(), CertError> {
    let nodes: u64 = found.iter().map(|f| f.nodes).fold(0, u64::saturating_add);
    let micros: u64 = found.iter().map(|f| f.micros).fold(0, u64::saturating_add);
    eprintln!(
        "{} leaves re-solved: {nodes} positions, {:.1} s of solving (the certificate's solve: \
         {} positions)",
        found.len(),
        micros as f64 / 1e6,
        cert.positions
    );
    let what = format!(
        "{} {} {} score {}",
        cert.board,
        if cert.root.is_empty() {
            "-"
        } else {
            &cert.root
        },
        certificate::strength_word(cert.strength),
        cert.score
    );
    let mut stdout = std::io::stdout().lock();
    let line = if !failures.is_empty() {
        format!("not verified: {what}: {} failures", failures.len())
    } else if let Some(shard) = shard.filter(|s| s.count > 1) {
        format!(
            "shard {shard} verified: {what}: the tree holds by the rules, {} of {} leaves \
             re-solved within their bounds (verify DIR --merge unites the shards)",
            found.len(),
            cert.leaves.len()
        )
    } else {
        format!(
            "verified: {what}: {} nodes follow by the rules from {} leaves, each re-solved \
             within its bound",
            cert.nodes.len(),
            cert.leaves.len()
        )
    };
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(CertError::Failed(failures))
    }
}

/// Every verdict file in `dir` (`verify-I-of-N.txt`), read against `cert`.
fn read_verdicts(dir: &Path, cert: &Certificate) -> Result<Vec<(String, Verdict)>, Failure> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| Failure::usage(format!("{}: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("verify-") && n.ends_with(".txt"))
        })
        .collect();
    paths.sort();
    let mut verdicts = Vec::with_capacity(paths.len());
    for path in paths {
        let name = path.display().to_string();
        let file = transpo_files::open_regular(&path)
            .map_err(|e| Failure::usage(format!("{name}: {e}")))?;
        let verdict = certificate::read_verdict(BufReader::new(file), cert)
            .map_err(|e| Failure::usage(format!("{name}: {e}")))?;
        verdicts.push((name, verdict));
    }
    Ok(verdicts)
}
