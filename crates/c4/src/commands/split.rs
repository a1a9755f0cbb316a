//! `transpo-c4 split`, `solve-list` and `merge`: one solve spread over many machines in
//! rounds ([`transpo_c4::split`]).

use super::{Solving, TreeArgs, check_dir_out, check_file_out, root_name, save_book};
use std::collections::HashMap;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use transpo_c4::split::{
    self, LIST_FILE, Outcome, Results, ResultsFile, Round, Split, parse_results_file_name,
    results_file_name,
};
use transpo_cli::{Failure, Shard, progress};
use transpo_connect4::Strength;
use transpo_connect4::position::Bitboard;
use transpo_connect4::protocol::{self, EMPTY_BOARD};

/// `split`'s own arguments.
#[derive(clap::Args)]
pub(crate) struct SplitArgs {
    #[command(flatten)]
    pub(crate) tree: TreeArgs,
    /// Solve every leaf exactly, in one round, for a book of the whole tree (instead of
    /// only what the root needs).
    #[arg(long, conflicts_with = "weak")]
    pub(crate) full_book: bool,
}

/// `solve-list`'s own arguments.
#[derive(clap::Args)]
pub(crate) struct SolveListArgs {
    /// The directory split wrote.
    pub(crate) dir: PathBuf,
    /// Which shard: I/N, 1 <= I <= N (Slurm: $SLURM_ARRAY_TASK_ID/N).
    #[arg(long, default_value = "1/1")]
    pub(crate) shard: Shard,
}

/// `merge`'s own arguments.
#[derive(clap::Args)]
pub(crate) struct MergeArgs {
    /// The directory split wrote.
    pub(crate) dir: PathBuf,
    /// Results files (default: every DIR/round-*-results-*-of-*.txt).
    pub(crate) results: Vec<PathBuf>,
    /// Where to write the book (default DIR/book.bin).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Once the root is solved, write its certificate (the top of the proof tree and its
    /// leaves) to this directory, for `transpo-c4 verify`.
    #[arg(long)]
    pub(crate) certificate: Option<PathBuf>,
}

/// `transpo-c4 split`: the leaves of the tree below `--from` down to `--depth` stones,
/// written as the split ([`Split::write_in`]), and round 1's list: what the root's plan asks
/// first ([`split::Plan`]), or with `--full-book` every leaf.
pub(crate) fn split_tree<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    args: &TreeArgs,
    full_book: bool,
) -> Result<(), Failure> {
    let out = &args.out;
    // Before the tree is built and the first round planned.
    check_dir_out(out, "--out")?;
    let tree = args.tree::<W, H, B>()?;
    let split = Split::of(
        &tree,
        root_name(args.root_moves()),
        solving.strength,
        full_book,
    );
    let tree_len = tree.len();
    let round = if full_book {
        split.full_round()
    } else {
        // Nothing known yet: the first merge's plan, from no results.
        match split::merge(&split, tree, &[], &[])?.outcome {
            Outcome::Next(round) => round,
            Outcome::Solved { .. } => split.round(1, Vec::new()),
        }
    };
    let path = split.write_in(out)?;
    let round_path = round.write_in(out)?;
    eprintln!(
        "{}: {} positions of {W}x{H} with {} stones, the leaves of a tree of {}",
        path.display(),
        split.moves.len(),
        split.depth,
        tree_len
    );
    eprintln!(
        "{}: round 1: {} positions to search",
        round_path.display(),
        round.moves.len()
    );
    Ok(())
}

/// `transpo-c4 solve-list`: the positions of `shard` of the split's current round in `dir`
/// that its results file lacks, searched and appended ([`ResultsFile`],
/// [`split::solve_shard`]).
pub(crate) fn solve_list<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    dir: &Path,
    shard: Shard,
) -> Result<(), Failure> {
    let split = Split::<W, H, B>::load(dir)?;
    refuse_weak_on_strong("solve-list", solving.strength, &split, dir)?;
    // Before anything is sized by the count or written.
    check_shard_count(shard, &split, dir)?;
    let number = split::current_round(dir)?;
    let rounds = load_rounds(dir, number, &split)?;
    if is_solved(dir, &split, &rounds) {
        eprintln!(
            "{}: solved: nothing to do (merge prints the root's score)",
            dir.display()
        );
        return Ok(());
    }
    check_round_shards(dir, number, shard)?;
    let Some(round) = rounds.last() else {
        unreachable!("current_round gives a round from 1, and load_rounds loads it")
    };
    let mut solver = solving.solver()?;
    // The table goes on from the shard's last round: the whole of it in use, to be saved.
    solver.table_mut().use_whole_table();
    let table = dir.join(split::table_file(shard));
    match split::load_table(&mut solver, &table, split.checksum()) {
        Ok(true) => eprintln!("{}: the table of an earlier round loaded", table.display()),
        Ok(false) => {}
        Err(e) => eprintln!(
            "{}: not loaded ({e}); starting on an empty table",
            table.display()
        ),
    }
    let path = dir.join(results_file_name(number, shard));
    let mut results = ResultsFile::open(&path, round, shard, split.strength)?;
    for note in results.notes() {
        eprintln!("{note}");
    }
    let bar = progress::bar(
        results.todo(round).len() as u64,
        &format!("round {number}, shard {shard}"),
    );
    let run = split::solve_shard(&mut solver, round, &mut results, || bar.inc(1))?;
    bar.finish_and_clear();
    if run.solved_now > 0
        && let Err(e) = split::save_table(&solver, &table, split.checksum())
    {
        // Only a later round's speed depends on it: the results are saved.
        eprintln!("{}: table not saved ({e})", table.display());
    }
    eprintln!(
        "{}: round {number}, shard {shard}: {} positions searched now, {} before, {:.1} s, {} \
         positions explored",
        path.display(),
        run.solved_now,
        run.solved_before,
        run.elapsed.as_secs_f64(),
        run.nodes
    );
    Ok(())
}

/// `transpo-c4 merge`: every round's results united ([`split::merge`]): the root's line on
/// stdout and the book of what the rounds proved (strong splits), or the next round's list
/// written and exit status 3 ([`Failure::NextRound`]). A shard of the current round missing
/// or unfinished is more work too ([`Failure::Unfinished`]).
pub(crate) fn merge<const W: usize, const H: usize, B: Bitboard>(
    strength: Strength,
    args: MergeArgs,
) -> Result<(), Failure> {
    let MergeArgs {
        dir,
        results,
        out,
        certificate,
    } = args;
    let dir = dir.as_path();
    if let Some(certificate) = &certificate {
        check_dir_out(certificate, "--certificate")?;
    }
    let split = Split::<W, H, B>::load(dir)?;
    refuse_weak_on_strong("merge", strength, &split, dir)?;
    let out = book_path(out, &split, dir)?;
    let current = split::current_round(dir)?;
    let rounds = load_rounds(dir, current, &split)?;
    let files = if results.is_empty() {
        split::results_files(dir)?
    } else {
        results
    };
    let shards = read_results(&files, &rounds)?;
    let tree = split.tree().map_err(Failure::usage)?;
    let merged = split::merge(&split, tree, &rounds, &shards)?;
    let (score, book) = match merged.outcome {
        Outcome::Next(round) => {
            let path = round.write_in(dir)?;
            return Err(Failure::NextRound(format!(
                "round {}: {} positions to search ({}); {} positions searched in {current} \
                 rounds so far",
                round.number,
                round.moves.len(),
                path.display(),
                merged.searched
            )));
        }
        Outcome::Solved { score, book } => (score, book),
    };
    // The outputs first, the tables last: a merge stopped in between leaves the tables a
    // later run may still need.
    if let Some(certificate) = &certificate {
        write_certificate(
            &split,
            merged.plan,
            merged.leaf_nodes,
            merged.nodes,
            score,
            current,
            certificate,
        )?;
    }
    let book = match &book {
        Some(book) => {
            save_book(book, &out)?;
            format!(
                "{}: {} positions up to {} stones",
                out.display(),
                book.len(),
                book.depth()
            )
        }
        None => "weak results: no book".to_string(),
    };
    let mut stdout = io::stdout().lock();
    writeln!(
        stdout,
        "{} {score} {} {}",
        split.root, merged.nodes, merged.micros
    )?;
    stdout.flush()?;
    if split.root == EMPTY_BOARD {
        eprintln!("{}", protocol::ending(W * H, split.strength, score));
    }
    remove_tables(dir);
    eprintln!(
        "{current} rounds, {} positions searched, {} positions explored, {:.1} s of solving in \
         all; {book}",
        merged.searched,
        merged.nodes,
        merged.micros as f64 / 1e6,
    );
    Ok(())
}

/// Where a merge of `split` (in `dir`) writes its book: `--out`, or DIR/book.bin; checked
/// before the merge so that a book that cannot be written is said at once. A weak split
/// writes no book, and refuses `--out`.
fn book_path<const W: usize, const H: usize, B: Bitboard>(
    out: Option<PathBuf>,
    split: &Split<W, H, B>,
    dir: &Path,
) -> Result<PathBuf, Failure> {
    let out = match (out, split.strength) {
        (Some(out), Strength::Weak) => {
            return Err(Failure::usage(format!(
                "--out {}: {} is a weak split, whose merge writes no book",
                out.display(),
                dir.display()
            )));
        }
        (out, _) => out.unwrap_or_else(|| dir.join("book.bin")),
    };
    if split.strength == Strength::Strong {
        check_file_out(&out, "--out")?;
    }
    Ok(out)
}

/// Writes the certificate of a solved split to `dir`: its top tree with every bound the
/// `rounds` proved (`plan`), each leaf's positions explored (`leaf_nodes`, `positions` in
/// all) and the root's `score`.
fn write_certificate<const W: usize, const H: usize, B: Bitboard>(
    split: &Split<W, H, B>,
    plan: split::Plan<W, H, B>,
    leaf_nodes: HashMap<B, u64>,
    positions: u64,
    score: i32,
    rounds: u32,
    dir: &Path,
) -> Result<(), Failure> {
    let knowledge = transpo_c4::certificate::Knowledge {
        plan,
        nodes: leaf_nodes,
        positions,
        score,
        rounds: rounds as usize,
    };
    super::certificate::write_certificate(
        &knowledge,
        transpo_connect4::board::Board::new(W, H).map_err(Failure::usage)?,
        split.root_moves(),
        split.depth,
        split.strength,
        dir,
    )
}

/// Refuses `--weak` for `command` on a strong split: its strength is the split's.
fn refuse_weak_on_strong<const W: usize, const H: usize, B: Bitboard>(
    command: &str,
    strength: Strength,
    split: &Split<W, H, B>,
    dir: &Path,
) -> Result<(), Failure> {
    if strength == Strength::Weak && split.strength == Strength::Strong {
        return Err(Failure::usage(format!(
            "{command} --weak, but {} is a strong split: its strength is set by split",
            dir.display()
        )));
    }
    Ok(())
}

/// Checks `--shard I/N` against the split before anything is sized by it: `N` at most the
/// split's positions (one position a shard; a later round with fewer positions leaves the
/// extra shards nothing to do).
fn check_shard_count<const W: usize, const H: usize, B: Bitboard>(
    shard: Shard,
    split: &Split<W, H, B>,
    dir: &Path,
) -> Result<(), Failure> {
    let most = split.most_shards();
    if shard.count > most {
        return Err(Failure::usage(format!(
            "--shard {shard}: {} shards, but the split has {} positions ({}): at most {most} \
             shards",
            shard.count,
            split.moves.len(),
            dir.join(LIST_FILE).display()
        )));
    }
    Ok(())
}

/// Refuses a shard of round `number` in another count of shards than the round's results
/// files already in `dir` have: a merge could not unite them.
fn check_round_shards(dir: &Path, number: u32, shard: Shard) -> Result<(), Failure> {
    for path in split::results_files(dir)? {
        let Some((round, other)) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_results_file_name)
        else {
            continue;
        };
        if round == number && other.count != shard.count {
            return Err(Failure::usage(format!(
                "--shard {shard}: round {number} is searched in {} shards ({}): run it with \
                 --shard I/{}, or remove that round's results files to start it over",
                other.count,
                path.display(),
                other.count
            )));
        }
    }
    Ok(())
}

/// The lists of rounds 1 to `current` of `split` in `dir`.
fn load_rounds<const W: usize, const H: usize, B: Bitboard>(
    dir: &Path,
    current: u32,
    split: &Split<W, H, B>,
) -> Result<Vec<Round<W, H, B>>, Failure> {
    Ok((1..=current)
        .map(|number| Round::load(dir, number, split))
        .collect::<Result<Vec<_>, _>>()?)
}

/// Whether the results files in `dir` already solve the split's root: what `merge` would
/// find, read the same way (a file it could not read means not solved: the shard's run
/// then says what is wrong with it).
fn is_solved<const W: usize, const H: usize, B: Bitboard>(
    dir: &Path,
    split: &Split<W, H, B>,
    rounds: &[Round<W, H, B>],
) -> bool {
    let Ok(files) = split::results_files(dir) else {
        return false;
    };
    // Only regular files: a FIFO would wait for a writer (solve-list refuses its own below).
    let regular = |path: &PathBuf| std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    if files.is_empty() || !files.iter().all(regular) {
        return false;
    }
    let Ok(shards) = read_results(&files, rounds) else {
        return false;
    };
    let Ok(tree) = split.tree() else {
        return false;
    };
    matches!(
        split::merge(split, tree, rounds, &shards),
        Ok(split::Merged {
            outcome: Outcome::Solved { .. },
            ..
        })
    )
}

/// The results files at `paths`, each read against `rounds` and named by its path. A file
/// without a complete header is unfinished work ([`Failure::Unfinished`]); one that cannot be
/// read, or is malformed or another split's, is bad input.
pub(crate) fn read_results<const W: usize, const H: usize, B: Bitboard>(
    paths: &[PathBuf],
    rounds: &[Round<W, H, B>],
) -> Result<Vec<(String, Results)>, Failure> {
    let mut shards = Vec::with_capacity(paths.len());
    for path in paths {
        let name = path.display().to_string();
        let file =
            transpo_files::open_text(path).map_err(|e| Failure::usage(format!("{name}: {e}")))?;
        let results = Results::read_of_rounds(BufReader::new(file), rounds)
            .map_err(|e| Failure::usage(format!("{name}: {e}")))?
            .ok_or_else(|| {
                Failure::unfinished(format!(
                    "{name}: no complete header: its shard stopped before it searched \
                     anything; run it again"
                ))
            })?;
        shards.push((name, results));
    }
    Ok(shards)
}

/// Removes the shards' table files of a solved split (`table-I-of-N.bin`, each as big as
/// `--hash-mib`), which only later rounds would have read; says what it removed.
fn remove_tables(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut removed = 0;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let is_table = name
            .to_str()
            .is_some_and(|n| n.starts_with("table-") && n.contains("-of-") && n.ends_with(".bin"));
        if is_table && entry.file_type().is_ok_and(|t| t.is_file()) {
            removed += usize::from(std::fs::remove_file(entry.path()).is_ok());
        }
    }
    if removed > 0 {
        eprintln!("{}: {removed} shard table files removed", dir.display());
    }
}
