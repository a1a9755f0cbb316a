//! `mpirun -np N transpo-c4 …` (feature `mpi`): one solve over many machines. Rank 0 is
//! the manager ([`manager`]), every other rank a worker ([`worker`]).
//!
//! Why a module of its own: this is the only code that speaks MPI, and it is a pump. What
//! the manager decides is [`transpo_c4::cluster`] (the top tree, [`dispatch`]), the messages'
//! bytes are [`wire`], the state file is [`transpo_c4::cluster::state`], the line protocol
//! is [`transpo_connect4::protocol`]; all of it is tested without a cluster.
//!
//! OpenMPI's blocking receives spin, so both sides probe and sleep briefly when nothing has
//! come: an idle manager or worker leaves its core to the searching ranks.
//!
//! [`dispatch`]: transpo_c4::cluster::dispatch
//! [`wire`]: transpo_c4::cluster::wire

mod manager;
mod worker;

use super::Solving;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use transpo_c4::cluster::{self, dispatch::Orders};
use transpo_c4::knobs;
use transpo_cli::Failure;
use transpo_connect4::position::Bitboard;
use transpo_connect4::score::Strength;

/// How long an idle rank sleeps between two looks for a message.
const IDLE_SLEEP: Duration = Duration::from_micros(200);

/// Whether this process was started by an MPI launcher (`mpirun`, `mpiexec`, `srun`): the
/// variables OpenMPI, MPICH and Slurm's PMI set in every rank's environment.
pub(crate) fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// What every rank must be started as, and the manager's knobs, as plain values.
struct Setup {
    strength: Strength,
    /// Empty squares of a job ([`knobs::MPI_LEAF`]).
    leaf_empties: u32,
    /// Stones above a job its placement's ancestor is ([`knobs::MPI_GROUP`]).
    group: u32,
    /// Empty squares from which bounds pass between workers ([`knobs::MPI_SHARE`]).
    shared_empties: u32,
    /// What the ranks compare in the handshake.
    identity: Vec<(&'static str, String)>,
}

/// How many stones below a job the bounds its worker proves still pass to the other
/// workers, by default. Measured in docs/connect4/mpi.md.
const SHARE_BELOW_LEAF: u32 = 10;

impl Setup {
    /// The setup of this rank: the command line's options and the knobs (a bad one is bad
    /// usage, before any rank speaks).
    fn new<const W: usize, const H: usize, B: Bitboard>(
        solving: &Solving<W, H, B>,
        book: Option<&Path>,
        analyze: bool,
    ) -> Result<Setup, Failure> {
        let leaf_empties = knobs::MPI_LEAF.read_or(cluster::leaf_empties((W * H) as u32))?;
        let group = knobs::MPI_GROUP.read_or(cluster::GROUP as u32)?;
        let shared_empties =
            knobs::MPI_SHARE.read_or(leaf_empties.saturating_sub(SHARE_BELOW_LEAF))?;
        let exe = std::env::current_exe()
            .and_then(std::fs::metadata)
            .map_or(0, |m| m.len());
        let identity = vec![
            (
                "program",
                format!("transpo-c4 {} ({exe} bytes)", env!("CARGO_PKG_VERSION")),
            ),
            ("--board", format!("{W}x{H}")),
            ("--weak", (solving.strength == Strength::Weak).to_string()),
            ("--threads", solving.threads.to_string()),
            ("--hash-mib", solving.hash_mib.to_string()),
            ("--analyze", analyze.to_string()),
            (
                "--book",
                book.map_or_else(|| "none".into(), |p| p.display().to_string()),
            ),
            (knobs::MPI_LEAF.name, leaf_empties.to_string()),
            (knobs::MPI_GROUP.name, group.to_string()),
            (knobs::MPI_SHARE.name, shared_empties.to_string()),
        ];
        Ok(Setup {
            strength: solving.strength,
            leaf_empties,
            group,
            shared_empties,
            identity,
        })
    }
}

/// The run under MPI: the manager on rank 0, a worker on every other. A worker that cannot
/// go on ends the whole job with `abort`, so that no rank waits for one that stopped.
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
    let setup = Setup::new(&solving, book, analyze);
    let outcome = match setup {
        _ if world.size() < 2 => Err(Failure::usage(
            "a solve under MPI needs a manager and at least one worker: start it with \
             `mpirun -np 2` or more (one process: run transpo-c4 without mpirun)",
        )),
        Err(failure) => Err(failure),
        Ok(setup) if world.rank() == 0 => {
            manager::manager(&world, solving, &setup, analyze, state.as_deref())
        }
        Ok(setup) => worker::worker(&world, solving, &setup),
    };
    match outcome {
        // The manager exits as one solve would (it told the workers the run is over).
        _ if world.rank() == 0 => outcome,
        Ok(()) => Ok(()),
        Err(failure) => {
            eprintln!("error: rank {}: {}", world.rank(), failure.message());
            let _ = io::stderr().flush();
            world.abort(i32::from(failure.exit_code()))
        }
    }
}

/// Sends the manager's orders, in order, to the workers (worker `w` is rank `w + 1`).
fn post(world: &SimpleCommunicator, orders: Orders) {
    for (w, message) in orders {
        world
            .process_at_rank(w as i32 + 1)
            .send_with_tag(&message.encode()[..], message.tag());
    }
}

/// The next message to this rank, if one has come: its bytes, tag and sender.
fn try_message(world: &SimpleCommunicator) -> Option<(Vec<u8>, i32, i32)> {
    let probed = world.any_process().immediate_matched_probe()?;
    let (bytes, status) = probed.matched_receive_vec::<u8>();
    Some((bytes, status.tag(), status.source_rank()))
}

/// Waits, probing and sleeping, for the next message to this rank.
fn next_message(world: &SimpleCommunicator) -> (Vec<u8>, i32, i32) {
    loop {
        if let Some(message) = try_message(world) {
            return message;
        }
        std::thread::sleep(IDLE_SLEEP);
    }
}
