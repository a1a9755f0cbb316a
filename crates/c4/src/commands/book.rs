//! `transpo-c4 book`: an opening book, every position down to some depth solved; stopped,
//! the same command goes on from its work directory.

use super::split::read_results;
use super::{Solving, TreeArgs, check_file_out, root_name, save_book};
use std::path::{Path, PathBuf};
use transpo_c4::split::{self, Outcome, ResultsFile, Split, results_file_name};
use transpo_cli::{Failure, Shard, progress};
use transpo_connect4::Strength;
use transpo_connect4::position::Bitboard;

/// `transpo-c4 book`: every position below `--from` down to `--depth` stones, solved,
/// written to `--out`. The deepest positions are solved as the one round of a `split
/// --full-book` in the directory `OUT.work` ([`work_dir`]), by `--threads` solvers at once,
/// each on one thread and a table of `--hash-mib` of its own, taking the positions in runs
/// of neighbours ([`split::solve_shard_with`]). A `book` stopped at any moment and run again
/// goes on from what that directory holds; once the book is written, the directory is
/// removed.
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    args: &TreeArgs,
) -> Result<(), Failure> {
    if solving.strength == Strength::Weak {
        return Err(Failure::usage(
            "a book holds exact scores: book takes no --weak",
        ));
    }
    let out = &args.out;
    // Before the work directory is made and anything is solved.
    check_file_out(out, "--out")?;
    let tree = args.tree::<W, H, B>()?;
    let split = Split::of(&tree, root_name(args.root_moves()), Strength::Strong, true);
    let work = work_dir(out);
    let round = split.full_round();
    let files = [split.write_in(&work)?, round.write_in(&work)?];
    let shard = Shard::WHOLE;
    let path = work.join(results_file_name(round.number, shard));
    let mut results = ResultsFile::open(&path, &round, shard, Strength::Strong)?;
    for note in results.notes() {
        eprintln!("{note}");
    }
    let mut solvers = solving.one_thread_solvers()?;
    let bar = progress::bar(results.todo(&round).len() as u64, "book");
    let run = split::solve_shard_with(&mut solvers, &round, &mut results, BOOK_RUN, || bar.inc(1))?;
    bar.finish_and_clear();
    drop(results);
    let rounds = [round];
    let shards = read_results(std::slice::from_ref(&path), &rounds)?;
    let merged = split::merge(&split, tree, &rounds, &shards)?;
    let Outcome::Solved {
        book: Some(book), ..
    } = merged.outcome
    else {
        return Err(Failure::run(format!(
            "{}: the positions are solved but give no book",
            work.display()
        )));
    };
    save_book(&book, out)?;
    for file in files.iter().chain([&path]) {
        let _ = std::fs::remove_file(file);
    }
    // Only if empty: a directory that held something else is left as it is.
    let _ = std::fs::remove_dir(&work);
    eprintln!(
        "{}: {} positions up to {} stones; {} positions with {} stones solved, {} by this \
         run in {:.1} s ({} thread{}), {:.1} s of solving in all",
        out.display(),
        book.len(),
        book.depth(),
        split.moves.len(),
        split.depth,
        run.solved_now,
        run.elapsed.as_secs_f64(),
        solvers.len(),
        if solvers.len() == 1 { "" } else { "s" },
        merged.micros as f64 / 1e6,
    );
    Ok(())
}

/// Positions a solver of `book` takes at a time: neighbours in the list's order, which share
/// most of their subtrees; few enough that the solvers' last runs end close together
/// (docs/connect4/book.md, 2026-11-26, “the depth-8 book”).
const BOOK_RUN: usize = 32;

/// Where `book --out OUT` keeps its work: the directory `OUT.work`.
fn work_dir(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".work");
    PathBuf::from(name)
}
