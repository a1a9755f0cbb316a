//! A worker rank: one solver whose table lasts the whole line, searching the jobs the
//! manager sends, on a search thread that lives as long as the worker.
//!
//! Why this shape: the main thread only speaks MPI, and while a job runs it waits on the
//! search thread's answer, looking for a cancel every [`CANCEL_LOOK_EVERY`]. Polling every
//! 200 µs instead woke a thread on the searching cores 5,000 times a second: one worker
//! searched 9×4's jobs in 15.2 s instead of 13.6 s (docs/connect4/mpi.md). One search thread
//! for the worker's life (the first version started one a job) carries out the orders in the
//! manager's order, bounds before the job they came with.

use super::{
    TAG_BOUNDS, TAG_CANCEL, TAG_END, TAG_HELLO, TAG_JOB, TAG_LINE, TAG_RESULT, field, next_message,
    receive,
};
use crate::commands::Solving;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;
use transpo_c4::sharing::SharingTable;
use transpo_cli::Failure;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Window;
use transpo_connect4::solver::Solver;

/// What the main thread asks of the search thread, in the order the manager sent it.
enum Order<const W: usize, const H: usize, B: Bitboard> {
    /// Search this job.
    Job(Position<W, H, B>, Window),
    /// Take in the other workers' bounds.
    Bounds(Vec<u8>),
    /// A new line: forget the table and the count.
    NewLine,
}

/// How often a worker whose job runs looks for the manager's cancel of it. Each look wakes
/// a thread on the searching cores, so not too often; a cancel waits at most this long.
const CANCEL_LOOK_EVERY: Duration = Duration::from_millis(5);

/// A job's outcome, from the search thread.
struct Done {
    /// The range found, `None` if the job was stopped first.
    range: Option<RangeInclusive<i32>>,
    /// The worker's positions on this line.
    nodes: u64,
    /// The bounds to pass on ([`SharingTable::take_journal`]).
    bounds: Vec<u8>,
}

/// A worker: says what it was started as, then searches every job it is sent until told the
/// run is over. Bounds of positions with at least `shared_empties` empty squares go to the
/// manager after each job, for the other workers.
pub(super) fn worker<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    solving: Solving<W, H, B>,
    me: &[(&'static str, String)],
    shared_empties: u32,
) -> Result<(), Failure> {
    let manager = world.process_at_rank(0);
    let hello: Vec<String> = me.iter().map(|(k, v)| format!("{k}={v}")).collect();
    manager.send_with_tag(hello.join("\n").as_bytes(), TAG_HELLO);
    let solver = solving.solver_on(|table| SharingTable::new(table, shared_empties))?;
    let stop = AtomicBool::new(false);
    let (orders, ordered) = channel();
    let (report, reports) = channel();
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || search(solver, &ordered, &report, stop));
        let outcome = serve(world, &orders, &reports, stop);
        // Closing the orders ends the search thread; the scope waits for it.
        drop(orders);
        outcome
    })
}

/// The main thread's loop: turns the manager's messages into orders and each job's outcome
/// into the answer. The stop flag is raised only while the job it stops runs, and lowered by
/// this thread before the next job is ordered.
fn serve<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    orders: &Sender<Order<W, H, B>>,
    reports: &Receiver<Result<Done, String>>,
    stop: &AtomicBool,
) -> Result<(), Failure> {
    let manager = world.process_at_rank(0);
    let gone = || Failure::run("the search thread ended (a bug: see its message above)");
    loop {
        let (bytes, status) = next_message(world);
        let order = match status.tag() {
            TAG_JOB => {
                let (id, pos, window) = parse_job::<W, H, B>(&bytes)?;
                stop.store(false, Ordering::Relaxed);
                orders.send(Order::Job(pos, window)).map_err(|_| gone())?;
                let done = wait(world, reports, stop, id).ok_or_else(gone)?;
                let done = done.map_err(Failure::run)?;
                if !done.bounds.is_empty() {
                    manager.send_with_tag(&done.bounds[..], TAG_BOUNDS);
                }
                let mut answer = id.to_le_bytes().to_vec();
                let (lo, hi) = done
                    .range
                    .as_ref()
                    .map_or((0, 0), |r| (*r.start(), *r.end()));
                answer.extend(lo.to_le_bytes());
                answer.extend(hi.to_le_bytes());
                answer.extend(done.nodes.to_le_bytes());
                answer.push(u8::from(done.range.is_some()));
                manager.send_with_tag(&answer[..], TAG_RESULT);
                continue;
            }
            // A cancel that crossed the job's answer on the way: nothing runs to stop.
            TAG_CANCEL => continue,
            TAG_BOUNDS => Order::Bounds(bytes),
            TAG_LINE => Order::NewLine,
            TAG_END => return Ok(()),
            tag => {
                return Err(Failure::run(format!(
                    "a message with the unknown tag {tag}"
                )));
            }
        };
        orders.send(order).map_err(|_| gone())?;
    }
}

/// A job message's id, position and window.
fn parse_job<const W: usize, const H: usize, B: Bitboard>(
    bytes: &[u8],
) -> Result<(u64, Position<W, H, B>, Window), Failure> {
    let parsed = (
        field::<8>(bytes, 0),
        field::<4>(bytes, 8),
        field::<4>(bytes, 12),
    );
    let (Some(id), Some(alpha), Some(beta)) = parsed else {
        return Err(Failure::run("a job message too short"));
    };
    let moves = std::str::from_utf8(&bytes[16..])
        .map_err(|_| Failure::run("a job's moves are not text"))?;
    let pos = Position::<W, H, B>::from_moves(moves)
        .map_err(|e| Failure::run(format!("job {moves:?}: {e}")))?;
    let window = Window {
        alpha: i32::from_le_bytes(alpha),
        beta: i32::from_le_bytes(beta),
    };
    Ok((u64::from_le_bytes(id), pos, window))
}

/// Waits for job `id`'s outcome, raising `stop` when the manager cancels the job. `None` if
/// the search thread is gone.
fn wait(
    world: &SimpleCommunicator,
    reports: &Receiver<Result<Done, String>>,
    stop: &AtomicBool,
    id: u64,
) -> Option<Result<Done, String>> {
    loop {
        match reports.recv_timeout(CANCEL_LOOK_EVERY) {
            Ok(done) => return Some(done),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {}
        }
        while let Some(probed) = world
            .any_process()
            .immediate_matched_probe_with_tag(TAG_CANCEL)
        {
            let (bytes, _) = receive(probed);
            if field::<8>(&bytes, 0).map(u64::from_le_bytes) == Some(id) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// The search thread: carries out the orders until they end. A job's outcome, or the first
/// bad bounds' error (answered at the next job), goes back on `report`.
fn search<const W: usize, const H: usize, B: Bitboard>(
    mut solver: Solver<W, H, B, SharingTable<W, H, B>>,
    orders: &Receiver<Order<W, H, B>>,
    report: &Sender<Result<Done, String>>,
    stop: &AtomicBool,
) {
    let mut failed = None;
    for order in orders {
        match order {
            Order::Job(pos, window) => {
                let done = match failed.take() {
                    Some(error) => Err(error),
                    None => {
                        let range = solver.solve_window_until(&pos, window, stop);
                        Ok(Done {
                            range,
                            nodes: solver.nodes(),
                            bounds: solver.table_mut().take_journal(),
                        })
                    }
                };
                if report.send(done).is_err() {
                    return;
                }
            }
            Order::Bounds(bytes) => {
                if let Err(error) = solver.table_mut().take_in(&bytes) {
                    failed.get_or_insert(format!("bounds from the manager: {error}"));
                }
            }
            Order::NewLine => solver.reset(),
        }
    }
}
