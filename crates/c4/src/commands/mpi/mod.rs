//! `mpirun -np N transpo-c4 …` (feature `mpi`): one solve over many machines. Rank 0 is
//! the manager: it reads the lines of stdin, keeps the top of each line's tree
//! ([`transpo_c4::cluster::TopTree`]) and prints what one solve prints; every other rank is
//! a worker with one solver and its table for the whole run, searching the jobs it is sent.
//!
//! Why a module of its own: this is the only code that speaks MPI; what the manager decides
//! is in the library, where unit tests reach it without a cluster. The messages are plain
//! bytes (tags below), so no MPI datatype beyond bytes is needed.
//!
//! OpenMPI's blocking receives spin, so both sides probe and sleep briefly when nothing has
//! come: an idle manager or worker leaves its core to the searching ranks.

mod manager;
mod worker;

use super::Solving;
use mpi::point_to_point::{Message, Status};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use transpo_c4::cluster::{GROUP, leaf_empties as default_leaf_empties};
use transpo_cli::Failure;
use transpo_connect4::position::Bitboard;
use transpo_connect4::score::Strength;

/// Manager to worker: search a job (`id`, `alpha`, `beta`, the move sequence).
const TAG_JOB: i32 = 1;
/// Manager to worker: stop the running job `id`, its answer no longer matters.
const TAG_CANCEL: i32 = 2;
/// Manager to worker: a new input line; forget the table and the count.
const TAG_LINE: i32 = 3;
/// Manager to worker: the run is over.
const TAG_END: i32 = 4;
/// Worker to manager, once at the start: what the worker was started as.
const TAG_HELLO: i32 = 10;
/// Worker to manager, just before a job's answer: the bounds it proved of positions with
/// many empty squares ([`transpo_c4::sharing`]). Manager to worker, just before a job: the
/// bounds the other workers proved since its last job.
const TAG_BOUNDS: i32 = 12;
/// Worker to manager: a job's answer (`id`, `lo`, `hi`, the worker's positions this line,
/// and 1 if answered, 0 if cancelled before its window was decided).
const TAG_RESULT: i32 = 11;

/// The most bytes of bounds the manager keeps for one worker until its next job; bounds
/// beyond them are not passed on (the worker that proved them still has them).
const OUTBOX_MAX: usize = 1 << 24;
/// How long an idle rank sleeps between two looks for a message.
const IDLE_SLEEP: Duration = Duration::from_micros(200);
/// How often the manager writes its state file (`--state`), unless
/// `TRANSPO_C4_MPI_STATE_MS` says otherwise (the tests kill a solve between two writes).
const STATE_EVERY: Duration = Duration::from_secs(5);

/// How often the manager writes its state file: [`STATE_EVERY`] or
/// `TRANSPO_C4_MPI_STATE_MS`.
fn state_every() -> Duration {
    std::env::var("TRANSPO_C4_MPI_STATE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(STATE_EVERY, Duration::from_millis)
}
/// When the manager first says how a long line goes, and then how often.
const PROGRESS_FIRST: Duration = Duration::from_secs(2);
/// See [`PROGRESS_FIRST`].
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Whether this process was started by an MPI launcher (`mpirun`, `mpiexec`, `srun`): the
/// variables OpenMPI, MPICH and Slurm's PMI set in every rank's environment.
pub(crate) fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// The leaf depth on a board of `squares` squares, in empty squares:
/// [`transpo_c4::cluster::leaf_empties`], or `TRANSPO_C4_MPI_LEAF` (for measuring; every
/// rank checks that it reads the manager's).
fn leaf_empties(squares: u32) -> Result<u32, Failure> {
    env_number(
        "TRANSPO_C4_MPI_LEAF",
        default_leaf_empties(squares),
        "a number of empty squares",
    )
}

/// Bounds of positions with at least this many empty squares pass between workers:
/// `TRANSPO_C4_MPI_SHARE`, or else [`SHARE_BELOW_LEAF`] fewer than the leaf depth.
fn shared_empties(leaf_empties: u32) -> Result<u32, Failure> {
    env_number(
        "TRANSPO_C4_MPI_SHARE",
        leaf_empties.saturating_sub(SHARE_BELOW_LEAF),
        "a number of empty squares",
    )
}

/// How many stones below a job the bounds its worker proves still pass to the other
/// workers, by default. Measured in docs/connect4/mpi.md.
const SHARE_BELOW_LEAF: u32 = 10;

/// How many stones above a job its placement's ancestor is: [`GROUP`], or
/// `TRANSPO_C4_MPI_GROUP` (for measuring).
fn group() -> Result<usize, Failure> {
    env_number("TRANSPO_C4_MPI_GROUP", GROUP, "a number of stones")
}

/// The number the environment variable `name` holds, or `default` when it is not set; a
/// value that is not `what` is bad usage.
fn env_number<T: std::str::FromStr>(name: &str, default: T, what: &str) -> Result<T, Failure> {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .map_err(|_| Failure::usage(format!("{name}={v:?}: not {what}"))),
        Err(_) => Ok(default),
    }
}

/// What a rank was started as, which every rank must share: the program and its version,
/// the board, strength, threads, table, analysis and leaf depth.
fn identity(board: &str, solving: &Setup, analyze: bool) -> Vec<(&'static str, String)> {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map_or(0, |m| m.len());
    vec![
        (
            "program",
            format!("transpo-c4 {} ({exe} bytes)", env!("CARGO_PKG_VERSION")),
        ),
        ("--board", board.to_string()),
        ("--weak", (solving.strength == Strength::Weak).to_string()),
        ("--threads", solving.threads.to_string()),
        ("--hash-mib", solving.hash_mib.to_string()),
        ("--analyze", analyze.to_string()),
        ("--book", solving.book.clone()),
        ("TRANSPO_C4_MPI_LEAF", solving.leaf_empties.to_string()),
        ("TRANSPO_C4_MPI_GROUP", solving.group.to_string()),
        ("TRANSPO_C4_MPI_SHARE", solving.shared_empties.to_string()),
    ]
}

/// The options every rank shares, as plain values.
struct Setup {
    strength: Strength,
    threads: usize,
    hash_mib: u64,
    book: String,
    leaf_empties: u32,
    group: usize,
    shared_empties: u32,
}

/// The run under MPI: the manager on rank 0, a worker on every other. Ends the whole job
/// with `abort` on an error, so that no rank waits for one that stopped.
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    book: Option<&Path>,
    analyze: bool,
    state: Option<PathBuf>,
) -> Result<(), Failure> {
    // Only the main thread of a rank speaks MPI; a worker's solve runs beside it.
    let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
        return Err(Failure::run("MPI could not be initialised"));
    };
    let world = universe.world();
    let board = format!("{W}x{H}");
    let setup = Setup {
        strength: solving.strength,
        threads: solving.threads,
        hash_mib: solving.hash_mib,
        book: book.map_or_else(|| "none".into(), |p| p.display().to_string()),
        leaf_empties: leaf_empties((W * H) as u32)?,
        group: group()?,
        shared_empties: 0,
    };
    let setup = Setup {
        shared_empties: shared_empties(setup.leaf_empties)?,
        ..setup
    };
    let me = identity(&board, &setup, analyze);
    let outcome = if world.size() < 2 {
        Err(Failure::usage(
            "a solve under MPI needs a manager and at least one worker: start it with \
             `mpirun -np 2` or more (one process: run transpo-c4 without mpirun)",
        ))
    } else if world.rank() == 0 {
        manager::manager(&world, solving, &me, &setup, analyze, state.as_deref())
    } else {
        worker::worker(&world, solving, &me, setup.shared_empties)
    };
    match outcome {
        // The manager tells every worker that the run is over, whatever its outcome, and
        // exits as one solve would.
        _ if world.rank() == 0 => outcome,
        Ok(()) => Ok(()),
        // A worker that cannot go on ends the whole job (MPI's rule): no rank waits for it.
        Err(failure) => {
            eprintln!("error: rank {}: {}", world.rank(), failure.message());
            let _ = io::stderr().flush();
            world.abort(i32::from(failure.exit_code()))
        }
    }
}

/// Waits, probing and sleeping, for the next message to this rank.
fn next_message(world: &SimpleCommunicator) -> (Vec<u8>, Status) {
    loop {
        if let Some(probed) = world.any_process().immediate_matched_probe() {
            return receive(probed);
        }
        std::thread::sleep(IDLE_SLEEP);
    }
}

/// The bytes of a probed message.
fn receive(probed: (Message, Status)) -> (Vec<u8>, Status) {
    probed.matched_receive_vec::<u8>()
}

/// A little-endian field of a message: `N` bytes from `at`.
fn field<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at + N)?.try_into().ok()
}
