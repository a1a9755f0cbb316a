//! `mpirun -np N transpo-c4 …` (feature `mpi`): one solve over many machines. Rank 0 is
//! the manager ([`transpo_c4::cluster::manager`]), every other rank a worker
//! ([`transpo_c4::cluster::worker`]).
//!
//! Why a module of its own: this is the only code that speaks MPI, and it is a pump. What
//! the manager decides, the messages' bytes ([`wire`]), the state file and the line protocol
//! are library code, tested without a cluster; here the ranks read their knobs, shake hands
//! and carry the messages.
//!
//! Three rules keep two ranks from waiting on each other for ever. A worker never blocks on
//! a send: each of its messages (an answer to the manager, bounds to another worker) goes
//! out as an immediate send, and while it is on its way the worker goes on taking in what
//! comes (a big message of bounds waits for its receiver under MPI's rendezvous protocol,
//! so two workers sending each other bounds would otherwise wait for ever); what it must
//! pass on meanwhile waits its turn. No rank leaves while another may still be sending to
//! it: at the end every rank enters a barrier without blocking and takes in what comes
//! until every rank has entered it (bounds passed on near the end of a run may still be on
//! their way along the tree). And while a job runs, a worker looks for messages
//! every [`LOOK_EVERY`]: often enough that a manager's send waits little, not so often that
//! the searching core is woken for nothing (every 200 µs cost 12% of a worker's search on
//! 9×4). OpenMPI's blocking receives spin, so both sides probe and, when nothing has come,
//! pause at the [`Pace`] of the cluster's messages: an idle rank leaves its core to the
//! searching ranks.
//!
//! [`Pace`]: transpo_c4::cluster::pace::Pace
//!
//! [`wire`]: transpo_c4::cluster::wire

use super::{Solving, table_failure};
use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use transpo_c4::cluster::dispatch::{self, Orders};
use transpo_c4::cluster::manager::{Link, Manager};
use transpo_c4::cluster::pace::Pace;
use transpo_c4::cluster::plan::Plan;
use transpo_c4::cluster::sharing::SharingTable;
use transpo_c4::cluster::wire::{TAG_HELLO, ToManager, ToWorker, check_hello};
use transpo_c4::cluster::worker::Outgoing;
use transpo_c4::cluster::worker::threads::Threaded;
use transpo_c4::cluster::{self, State, StateFile};
use transpo_c4::knobs;
use transpo_cli::{Failure, check_stdin, exit_status};
use transpo_connect4::pool::SolverPool;
use transpo_connect4::position::Bitboard;
use transpo_connect4::protocol::{self, Options};
use transpo_connect4::score::Strength;

/// How often a worker looks for the manager's messages while a job runs.
const LOOK_EVERY: Duration = Duration::from_millis(2);

/// Whether this process was started by an MPI launcher (`mpirun`, `mpiexec`, `srun`): the
/// variables OpenMPI, MPICH and Slurm's PMI set in every rank's environment.
pub(crate) fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// What every rank must be started as: the plan of the run and what the ranks compare in
/// the handshake.
struct Setup {
    plan: Plan,
    identity: Vec<(&'static str, String)>,
}

impl Setup {
    /// The setup of this rank among `ranks`: the command line's options and the knobs (a
    /// bad one is bad usage, before any rank speaks).
    fn new<const W: usize, const H: usize, B: Bitboard>(
        solving: &Solving<W, H, B>,
        book: Option<&Path>,
        analyze: bool,
        ranks: usize,
        keeping: bool,
    ) -> Result<Setup, Failure> {
        let (squares, strength) = ((W * H) as u32, solving.strength);
        let knobs = knobs::Knobs::from_env()?;
        let plan = Plan::new(squares, ranks, solving.threads, strength, keeping, &knobs);
        let exe = std::env::current_exe()
            .and_then(std::fs::metadata)
            .map_or(0, |m| m.len());
        let version = env!("CARGO_PKG_VERSION");
        let book = book.map_or_else(|| "none".into(), |p| p.display().to_string());
        let identity = vec![
            ("program", format!("transpo-c4 {version} ({exe} bytes)")),
            ("--board", format!("{W}x{H}")),
            ("--weak", (strength == Strength::Weak).to_string()),
            ("--threads", solving.threads.to_string()),
            ("--hash-mib", solving.hash_mib.to_string()),
            ("--analyze", analyze.to_string()),
            ("--book", book),
            (knobs::MPI_LEAF.name, plan.manager.leaf_empties.to_string()),
            (knobs::MPI_GROUP.name, plan.manager.group.to_string()),
            (knobs::MPI_SHARE.name, plan.shared_empties.to_string()),
            (knobs::MPI_LANES.name, plan.lanes.to_string()),
            (
                knobs::MPI_CREW.name,
                plan.crew.map_or(0, |c| c.stones).to_string(),
            ),
        ];
        Ok(Setup { plan, identity })
    }
}

/// The MPI environment of this process, started by [`main`] before anything else.
static UNIVERSE: Mutex<Option<Universe>> = Mutex::new(None);

/// Whether this rank took part in the agreement on the setup ([`agree`]).
static AGREED: AtomicBool = AtomicBool::new(false);

/// The exit status of a rank that ends quietly: the setup failed on some rank and rank 0
/// says so for all (0: none).
static QUIET_EXIT: AtomicU8 = AtomicU8::new(0);

/// The tag of the message that tells rank 0 why a rank's setup failed.
const TAG_REFUSED: i32 = 90;

/// The whole process under an MPI launcher: MPI starts first, then `body` (the command
/// line's work). Every rank takes part in one agreement on its setup ([`agree`]), even one
/// that failed before it got that far (a bad flag, knob or book on that rank only): so a
/// refusal on any subset of the ranks ends the whole job at once, rank 0 says why in one
/// line naming the rank, and every rank exits with its status. Nothing calls `MPI_Abort`
/// before the run starts: several ranks aborting at once can hang `mpirun`.
pub(crate) fn main(body: impl FnOnce() -> Result<(), Failure>) -> ExitCode {
    // Only the main thread of a rank speaks MPI; a worker's solve runs beside it.
    let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
        return exit_status(Err(Failure::run("MPI could not be initialised")));
    };
    let world = universe.world();
    *UNIVERSE.lock().unwrap_or_else(PoisonError::into_inner) = Some(universe);
    let mut result = body();
    if !AGREED.load(Ordering::Relaxed) {
        result = agree(&world, result);
    }
    let quiet = QUIET_EXIT.load(Ordering::Relaxed);
    let code = if quiet != 0 {
        ExitCode::from(quiet)
    } else {
        exit_status(result)
    };
    // MPI_Finalize, once every rank is done.
    drop(world);
    UNIVERSE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    code
}

/// The agreement on the setup, which every rank reaches once: if any rank's `local` setup
/// failed, every rank learns it, rank 0 returns the first failing rank's failure (naming
/// it) and the other ranks end quietly with its status ([`QUIET_EXIT`]); else each keeps
/// its own.
fn agree<T>(world: &SimpleCommunicator, local: Result<T, Failure>) -> Result<T, Failure> {
    AGREED.store(true, Ordering::Relaxed);
    let me = world.rank();
    let mine = if local.is_err() { me } else { i32::MAX };
    let mut first = i32::MAX;
    world.all_reduce_into(&mine, &mut first, SystemOperation::min());
    if first == i32::MAX {
        return local;
    }
    let failure = match local {
        Err(failure) if me == first => failure,
        _ => Failure::run("another rank's setup failed"),
    };
    // Every rank exits with the failing rank's status, and rank 0 learns why.
    let mut code = failure.exit_code();
    world.process_at_rank(first).broadcast_into(&mut code);
    if me == first && me != 0 {
        world
            .process_at_rank(0)
            .send_with_tag(failure.message().as_bytes(), TAG_REFUSED);
    }
    if me != 0 {
        QUIET_EXIT.store(code.max(1), Ordering::Relaxed);
        return Err(failure);
    }
    let why = if first == 0 {
        failure.message().to_string()
    } else {
        let (bytes, _) = world
            .process_at_rank(first)
            .receive_vec_with_tag::<u8>(TAG_REFUSED);
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let why = format!("rank {first}: {why}");
    Err(match code {
        2 => Failure::usage(why),
        _ => Failure::run(why),
    })
}

/// What a rank is, once its setup is done: the manager, or a worker ready to search.
enum Role<const W: usize, const H: usize, B: Bitboard> {
    Manager(Setup),
    Worker(Setup, Box<Threaded<W, H, B>>),
}

/// The run under MPI ([`main`] started it): the manager on rank 0, a worker on every
/// other. Every rank's setup (its knobs, and a worker's table) is agreed on before any
/// rank speaks ([`agree`]); a worker that cannot go on after that ends the whole job with
/// `abort`, so that no rank waits for one that stopped.
pub(crate) fn run<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    book: Option<&Path>,
    analyze: bool,
    state: Option<PathBuf>,
) -> Result<(), Failure> {
    let world = UNIVERSE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .map(Universe::world)
        .ok_or_else(|| Failure::run("MPI was not initialised (a bug)"))?;
    let (rank, ranks) = (world.rank(), world.size() as usize);
    let role = if ranks < 2 {
        Err(Failure::usage(
            "a solve under MPI needs a manager and at least one worker: start it with \
             `mpirun -np 2` or more (one process: run transpo-c4 without mpirun)",
        ))
    } else {
        Setup::new(&solving, book, analyze, ranks, state.is_some()).and_then(|setup| {
            if rank == 0 {
                // The manager keeps no table of its own.
                return Ok(Role::Manager(setup));
            }
            let worker = start_worker(solving, &setup, rank as usize - 1)?;
            Ok(Role::Worker(setup, Box::new(worker)))
        })
    };
    match agree(&world, role)? {
        // The manager keeps no table of its own; it exits as one solve would (it told the
        // workers the run is over).
        Role::Manager(setup) => {
            let managed = manage::<W, H, B>(&world, &setup, analyze, state.as_deref());
            part(&world, &mut Pace::new(setup.plan.spin));
            managed
        }
        Role::Worker(setup, worker) => match work(&world, &setup, *worker) {
            Ok(()) => Ok(()),
            Err(failure) => {
                eprintln!("error: rank {rank}: {}", failure.message());
                let _ = io::stderr().flush();
                world.abort(i32::from(failure.exit_code()))
            }
        },
    }
}

/// Worker `me`'s searches as the setup says: lanes, or one solver on its own thread.
fn start_worker<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    setup: &Setup,
    me: usize,
) -> Result<Threaded<W, H, B>, Failure> {
    let (journal_empties, route) = (setup.plan.journal_empties, setup.plan.route(me));
    if setup.plan.lanes {
        let mut pool = SolverPool::new(solving.hash_mib, solving.threads).map_err(table_failure)?;
        pool.set_helping(setup.plan.help);
        if let Some(book) = solving.book {
            pool.set_book(book);
        }
        if let Some(crew) = setup.plan.crew {
            return Ok(Threaded::start_crew(pool, journal_empties, route, crew));
        }
        return Ok(Threaded::start_lanes(pool, journal_empties, route));
    }
    let solver = solving.solver_on(|table| SharingTable::new(table, journal_empties))?;
    Ok(Threaded::start(solver, route))
}

/// The manager's rank: checks every worker's handshake, then answers the line protocol over
/// stdin with the workers; whatever the outcome, tells every worker the run is over.
fn manage<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    setup: &Setup,
    analyze: bool,
    state_path: Option<&Path>,
) -> Result<(), Failure> {
    let workers = world.size() as usize - 1;
    let mut link = Mpi(world, Pace::new(setup.plan.spin));
    let ready = (|| {
        for rank in 1..world.size() {
            let (bytes, _) = world
                .process_at_rank(rank)
                .receive_vec_with_tag::<u8>(TAG_HELLO);
            let checked = match ToManager::decode(TAG_HELLO, &bytes) {
                Ok(ToManager::Hello { identity, .. }) => check_hello(&setup.identity, &identity),
                Ok(_) => Err("no handshake".to_string()),
                Err(e) => Err(e.to_string()),
            };
            checked.map_err(|why| {
                Failure::usage(format!(
                    "rank {rank} was started otherwise than rank 0: {why} (every rank must run \
                     the same program with the same flags)"
                ))
            })?;
        }
        check_stdin().map_err(Failure::usage)?;
        let weak = setup.plan.manager.strength == Strength::Weak;
        let config = cluster::state_config(&format!("{W}x{H}"), weak, analyze);
        match state_path {
            Some(path) => StateFile::open(path, &config).map(|(f, s)| (Some(f), s)),
            None => Ok((None, State::default())),
        }
    })();
    let (file, state) = match ready {
        Ok(ready) => ready,
        Err(failure) => {
            link.post(dispatch::end(workers));
            return Err(failure);
        }
    };
    let mut manager = Manager::<_, W, H, B>::new(link, workers, &setup.plan.manager, file, state);
    let options = Options {
        strength: setup.plan.manager.strength,
        analyze,
    };
    let (stdin, stdout) = (io::stdin().lock(), io::stdout().lock());
    let summary = protocol::run(&mut manager, stdin, stdout, io::stderr(), options);
    let finished = manager.finish();
    let summary = summary.map_err(|stop| stop.0)?;
    finished?;
    summary
        .failed_check()
        .map_or(Ok(()), |e| Err(Failure::run(e)))
}

/// The manager's side of MPI: worker `w` is rank `w + 1`.
struct Mpi<'w>(&'w SimpleCommunicator, Pace);

impl Link for Mpi<'_> {
    fn post(&mut self, orders: Orders) {
        self.1.active();
        for (w, message) in orders {
            self.0
                .process_at_rank(w as i32 + 1)
                .send_with_tag(&message.payload()[..], message.tag());
        }
    }

    fn receive(&mut self, wait: bool) -> Result<Option<(usize, ToManager)>, Failure> {
        let message = if wait {
            Some(next_message(self.0, &mut self.1))
        } else {
            try_message(self.0, &mut self.1)
        };
        let Some((bytes, tag, rank)) = message else {
            return Ok(None);
        };
        let message = ToManager::decode(tag, &bytes)
            .map_err(|e| Failure::run(format!("rank {rank}: {e}")))?;
        Ok(Some((rank as usize - 1, message)))
    }

    fn now(&mut self) -> Instant {
        Instant::now()
    }
}

/// A worker's rank: says what it was started as, then carries the messages of the manager
/// and the other workers to its worker ([`Threaded`]) and the worker's messages out, in
/// turn, until the run is over; then waits for every rank to be done ([`part`]).
fn work<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    setup: &Setup,
    mut worker: Threaded<W, H, B>,
) -> Result<(), Failure> {
    let hello = ToManager::hello(&setup.identity);
    world
        .process_at_rank(0)
        .send_with_tag(&hello.encode()[..], hello.tag());
    let mut pace = Pace::new(setup.plan.spin);
    // The messages to send, in turn: a job's bounds before its answer.
    let mut queue = VecDeque::new();
    while !worker.finished() || !queue.is_empty() {
        if let Some(message) = queue.pop_front() {
            send(world, &mut worker, &message, &mut pace, &mut queue)?;
            continue;
        }
        if worker.idle() {
            if !take_waiting(world, &mut worker, &mut pace, &mut queue)? {
                pace.pause();
            }
            continue;
        }
        match worker.next_messages(LOOK_EVERY)? {
            Some(messages) => queue.extend(messages),
            None => while take_waiting(world, &mut worker, &mut pace, &mut queue)? {},
        }
    }
    part(world, &mut pace);
    Ok(())
}

/// Hands the worker the next message that has come, if one has, and queues what it passes
/// on; whether one had.
fn take_waiting<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    worker: &mut Threaded<W, H, B>,
    pace: &mut Pace,
    queue: &mut VecDeque<Outgoing>,
) -> Result<bool, Failure> {
    let Some((bytes, tag, _)) = try_message(world, pace) else {
        return Ok(false);
    };
    queue.extend(worker.take(ToWorker::decode(tag, &bytes).map_err(Failure::run)?)?);
    Ok(true)
}

/// The end of a rank's run: enters a barrier of every rank without blocking, and takes in
/// (and drops) whatever comes until every rank has entered it, so that no rank leaves
/// while another's send to it waits for its receive.
fn part(world: &SimpleCommunicator, pace: &mut Pace) {
    let mut barrier = world.immediate_barrier();
    loop {
        match barrier.test() {
            Ok(_) => return,
            Err(pending) => barrier = pending,
        }
        if try_message(world, pace).is_none() {
            pace.pause();
        }
    }
}

/// Sends `message` (to the manager or another worker) without blocking on it: hands the
/// worker what comes, queueing what it passes on, until the send is done.
fn send<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    worker: &mut Threaded<W, H, B>,
    message: &Outgoing,
    pace: &mut Pace,
    queue: &mut VecDeque<Outgoing>,
) -> Result<(), Failure> {
    let (rank, tag, bytes) = match message {
        Outgoing::Manager(m) => (0, m.tag(), std::borrow::Cow::Owned(m.encode())),
        Outgoing::Worker(w, m) => (*w as i32 + 1, m.tag(), m.payload()),
    };
    pace.active();
    mpi::request::scope(|scope| {
        let process = world.process_at_rank(rank);
        let mut request = process.immediate_send_with_tag(scope, &bytes[..], tag);
        // The first error is kept until the send is done: a request must complete before
        // its scope ends, and the manager must never wait on this worker.
        let mut failed = Ok(());
        loop {
            match request.test() {
                Ok(_) => return failed,
                Err(pending) => request = pending,
            }
            match take_waiting(world, worker, pace, queue) {
                Ok(true) => {}
                Ok(false) => pace.pause(),
                Err(failure) => failed = failed.and(Err(failure)),
            }
        }
    })
}

/// The next message to this rank, if one has come: its bytes, tag and sender.
fn try_message(world: &SimpleCommunicator, pace: &mut Pace) -> Option<(Vec<u8>, i32, i32)> {
    let probed = world.any_process().immediate_matched_probe()?;
    let (bytes, status) = probed.matched_receive_vec::<u8>();
    pace.active();
    Some((bytes, status.tag(), status.source_rank()))
}

/// Waits, probing and pausing, for the next message to this rank.
fn next_message(world: &SimpleCommunicator, pace: &mut Pace) -> (Vec<u8>, i32, i32) {
    loop {
        if let Some(message) = try_message(world, pace) {
            return message;
        }
        pace.pause();
    }
}
