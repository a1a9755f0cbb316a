//! Iterative deepening with aspiration windows, on one thread or several (Lazy SMP).
//!
//! Lazy SMP: every thread runs its own iterative deepening on its own copy of the position,
//! sharing only the table (through `&Table`) and a few atomics (stop flag, node total,
//! deepest finished iteration). The helpers' entries make the main thread's search cheaper;
//! helpers skip some depths (Stockfish's former skip tables) so that the threads spread over
//! depths and one is often an iteration ahead. Whichever thread first finishes the
//! depth-limit iteration ends the search for all, and its result counts. Otherwise the main
//! thread alone reports, watches the clock and stops the helpers when it finishes; a helper
//! that finished a deeper iteration than the main thread then gives the result. Each thread
//! counts nodes in its own `Worker` and adds them to the shared total every 1024 nodes, so
//! `info` lines during the search lag by up to 1024 nodes per helper; once the helpers are
//! joined their exact counts are added, and if that changes the total the last `info` line
//! is repeated with it, so the final line always equals [`SearchResult::nodes`]. At one
//! thread no other thread exists and the node count depends only on the position, the
//! limits and the table.

use std::time::{Duration, Instant};

use cozy_chess::Move;
use transpo::Table;

use super::config::SearchConfig;
use super::entry::SearchEntry;
use super::limits::{Control, Limits};
use super::score::{INFINITY, Info, MATE, MATE_BOUND, MAX_DEPTH, Score, SearchResult};
use super::shared::Shared;
use super::worker::Worker;
use crate::eval::Evaluator;
use transpo_chess::Position;

/// Stack for helper threads: a search frame holds a move list, and plies go deep.
const STACK_BYTES: usize = 32 << 20;

/// What one thread's iterative deepening produced.
struct Outcome {
    score: i32,
    depth: u32,
    pv: Vec<Move>,
}

pub(super) fn search<E: SearchEntry>(
    config: &SearchConfig,
    control: &Control,
    pos: &mut Position,
    limits: &Limits,
    table: Option<&Table<E>>,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    // The clock runs from the `go` when the caller says when that was (see
    // `Limits::clock_start`), else from now.
    let start = limits.clock_start.unwrap_or_else(Instant::now);
    if let Some(table) = table {
        table.new_search();
    }
    let evaluator = if config.features.tapered_eval {
        Evaluator::Tapered
    } else {
        Evaluator::paper(pos.board())
    };
    let clocked = !limits.infinite;
    let white = pos.side_to_move() == cozy_chess::Color::White;
    let budget = if clocked {
        limits.time_budget_keeping(white, config.move_overhead, config.clock_reserve)
    } else {
        None
    };
    // The moves the root may play: those of `searchmoves` that are legal, or every legal
    // move when it names none.
    let legal = pos.legal_moves();
    let named: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|mv| limits.searchmoves.contains(mv))
        .collect();
    let root_moves: Vec<Move> = if named.is_empty() {
        legal.iter().copied().collect()
    } else {
        named.clone()
    };
    let shared = Shared::new(control, start, budget, limits.nodes, named);
    let threads = config.threads.max(1);
    let mut main = Worker::new(pos.clone(), table, config, &evaluator, &shared, true);
    let mut helper_stats = (0u64, 0u64, 0u64);
    let outcome = if root_moves.is_empty() || shared.halted() {
        None
    } else if threads == 1 {
        iterate(&mut main, limits, 0, &mut Some(on_info))
    } else {
        let helpers = Helpers {
            count: threads - 1,
            pos,
            config,
            evaluator: &evaluator,
        };
        search_parallel(&mut main, &helpers, limits, on_info, &mut helper_stats)
    };

    // The move to play: the last finished iteration's, else the partial iteration's, else
    // the table's or the first legal move. Each of those is legal here.
    let (raw_score, depth, mut pv) = match outcome {
        Some(o) => (o.score, o.depth, o.pv),
        None => (0, 0, main.root_pv()),
    };
    let first_legal = pv
        .first()
        .is_some_and(|&mv| pos.is_legal(mv) && root_moves.contains(&mv));
    if !first_legal {
        pv = root_moves.first().map(|&mv| vec![mv]).unwrap_or_default();
    }
    let uci = pv_text(pos, &pv);
    pv.truncate(uci.len());
    let raw_score = if root_moves.is_empty() {
        if pos.is_check() { -MATE } else { 0 }
    } else {
        raw_score
    };
    SearchResult {
        best_move: pv.first().copied(),
        pv,
        raw_score,
        score: Score::from_internal(raw_score),
        depth,
        seldepth: main.seldepth as u32,
        nodes: main.nodes + helper_stats.0,
        qnodes: main.qnodes + helper_stats.1,
        tt_move_failures: main.tt_failures + helper_stats.2,
        time: start.elapsed(),
        uci,
    }
}

/// The threads besides the main one, and what each needs to start.
struct Helpers<'a> {
    /// How many (threads − 1).
    count: usize,
    pos: &'a Position,
    config: &'a SearchConfig,
    evaluator: &'a Evaluator,
}

/// Lazy SMP: the helpers' iterative deepening on their own threads, the main thread's on
/// this one, the helpers stopped and joined when it ends, their node, quiescence-node and
/// failure counts added to `stats`. A helper that finished a deeper iteration than the main
/// thread gives the outcome; otherwise the main thread's last `info` line is repeated with
/// the exact node total if that changed.
fn search_parallel<'a, E: SearchEntry>(
    main: &mut Worker<'a, E>,
    helpers: &Helpers<'_>,
    limits: &Limits,
    on_info: &mut dyn FnMut(&Info),
    stats: &mut (u64, u64, u64),
) -> Option<Outcome> {
    let shared = main.shared();
    let table = main.table();
    let start = shared.start;
    // The deepest iteration a helper finished, when deeper than the main thread's.
    let mut helper_best: Option<(Outcome, u32)> = None;
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for id in 1..=helpers.count {
            let mut helper = Worker::new(
                helpers.pos.clone(),
                table,
                helpers.config,
                helpers.evaluator,
                shared,
                false,
            );
            let spawned = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let outcome = iterate(&mut helper, limits, id, &mut None);
                    let stats = (helper.nodes, helper.qnodes, helper.tt_failures);
                    (stats, outcome, helper.seldepth as u32)
                });
            // A thread the system refuses is a thread fewer, not an error.
            if let Ok(handle) = spawned {
                handles.push(handle);
            }
        }
        let outcome = iterate(main, limits, 0, &mut Some(&mut *on_info));
        shared.halt();
        for handle in handles {
            if let Ok(((n, q, f), helper_outcome, seldepth)) = handle.join() {
                stats.0 += n;
                stats.1 += q;
                stats.2 += f;
                let deepest = helper_best
                    .as_ref()
                    .map_or(outcome.as_ref().map_or(0, |o| o.depth), |(o, _)| o.depth);
                if let Some(h) = helper_outcome
                    && h.depth > deepest
                {
                    helper_best = Some((h, seldepth));
                }
            }
        }
        // A helper that finished a deeper iteration than the main thread (e.g. the
        // last one of a depth-limited search, which then ended the search) decides.
        match helper_best.take() {
            Some((h, seldepth)) => {
                main.seldepth = main.seldepth.max(seldepth as usize);
                let nodes = main.nodes + stats.0;
                let time = start.elapsed();
                on_info(&Info {
                    depth: h.depth,
                    seldepth: main.seldepth as u32,
                    score: Score::from_internal(h.score),
                    nodes,
                    nps: nps(nodes, time),
                    hashfull: table.map_or(0, Table::hashfull),
                    time,
                    pv: pv_text(helpers.pos, &h.pv),
                });
                Some(h)
            }
            None => {
                // The main thread's last line counted the helpers' nodes only as far as
                // they had published them: repeat it with the exact total.
                let nodes = main.nodes + stats.0;
                if let Some(mut info) = main.last_info.take()
                    && info.nodes != nodes
                {
                    info.time = start.elapsed();
                    info.nodes = nodes;
                    info.nps = nps(nodes, info.time);
                    info.hashfull = table.map_or(0, Table::hashfull);
                    on_info(&info);
                }
                outcome
            }
        }
    })
}

/// The UCI text of the moves of `pv` from `pos`, as far as they are legal in sequence.
fn pv_text(pos: &Position, pv: &[Move]) -> Vec<String> {
    let mut walk = pos.clone();
    let mut text = Vec::with_capacity(pv.len());
    for &mv in pv {
        if !walk.is_legal(mv) {
            break;
        }
        text.push(walk.move_to_uci(mv));
        walk.play_unchecked(mv);
    }
    text
}

/// Which depths helper `id` skips (Stockfish's former Lazy SMP tables): helper `id` searches
/// `depth` unless `((depth + phase) / size)` is odd, so that helpers spread over depths and
/// one of them is often an iteration ahead of the main thread.
const SKIP_SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// Whether thread `id` (0 = main) skips iteration `depth`.
fn skips(id: usize, depth: u32) -> bool {
    if id == 0 {
        return false;
    }
    let i = (id - 1) % SKIP_SIZE.len();
    ((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 == 1
}

/// Iterative deepening with aspiration windows on thread `id` (0 = the main thread, which
/// searches every depth; helpers skip some). The iteration reaching the depth limit, on any
/// thread, ends the search for all. `None` if not even one iteration finished.
fn iterate<E: SearchEntry>(
    worker: &mut Worker<'_, E>,
    limits: &Limits,
    id: usize,
    on_info: &mut Option<&mut dyn FnMut(&Info)>,
) -> Option<Outcome> {
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut best: Option<Outcome> = None;
    // Iterations in a row that kept the best move (for `stable_time`).
    let mut stable = 0;
    for depth in 1..=max_depth {
        // Helpers skip depths; at one thread nothing here changes the search.
        if depth < max_depth && depth > 1 && skips(id, depth) {
            continue;
        }
        let Some(score) = aspirate(worker, depth, best.as_ref()) else {
            break;
        };
        let pv = worker.root_pv();
        // A `movetime` is the time to spend, all of it: the stability only moves a clock's
        // soft limit.
        if worker.features.stable_time
            && limits.movetime.is_none()
            && let Some(prev) = &best
        {
            stable = if prev.pv.first() == pv.first() {
                stable + 1
            } else {
                0
            };
            worker.soft_scale = soft_scale(stable, prev.score - score);
        }
        worker.prev_pv = pv.clone();
        if let Some(report) = on_info {
            report_iteration(worker, depth, score, &pv, *report);
        }
        best = Some(Outcome { score, depth, pv });
        worker.shared().completed(depth);
        if ends_deepening(worker, limits, depth, max_depth, score) {
            break;
        }
    }
    best
}

/// The score of `worker`'s iteration of `depth`, searched with aspiration windows around
/// the score of the iteration before (`previous`); `None` if the search was stopped.
///
/// The paper's aspiration: ±1 pawn around the previous score; on a fail low search
/// (-inf, score], on a fail high [score, +inf); should that fail too, the full window.
/// Narrow aspiration: ±`delta`, widened on the failing side by `delta`, which grows by half
/// at each failure, until the score is inside.
fn aspirate<E: SearchEntry>(
    worker: &mut Worker<'_, E>,
    depth: u32,
    previous: Option<&Outcome>,
) -> Option<i32> {
    let d = depth as i32;
    let narrow = worker.features.narrow_aspiration;
    let mut delta = if narrow { 25 } else { 100 };
    let mut window = match previous {
        Some(prev) if depth >= 2 && prev.score.abs() < MATE_BOUND => {
            (prev.score - delta, prev.score + delta)
        }
        _ => (-INFINITY, INFINITY),
    };
    let mut retries = 0;
    loop {
        let (alpha, beta) = window;
        let score = worker.negamax(d, 0, alpha, beta, true, true);
        if worker.stopped {
            return None;
        }
        let failed_low = score <= alpha && alpha > -INFINITY;
        let failed_high = score >= beta && beta < INFINITY;
        if !failed_low && !failed_high {
            return Some(score);
        }
        retries += 1;
        window = if narrow {
            delta += delta / 2;
            let open = delta > 1_000;
            if failed_low {
                let alpha = if open { -INFINITY } else { score - delta };
                (alpha.max(-INFINITY), beta)
            } else {
                let beta = if open { INFINITY } else { score + delta };
                (alpha, beta.min(INFINITY))
            }
        } else {
            match (retries, failed_low) {
                (1, true) => (-INFINITY, score + 1),
                (1, false) => (score - 1, INFINITY),
                _ => (-INFINITY, INFINITY),
            }
        };
    }
}

/// Reports the finished iteration of `depth` (its `score` and principal variation `pv`)
/// through `report` as an `info` line, which `worker` keeps as its last.
fn report_iteration<E: SearchEntry>(
    worker: &mut Worker<'_, E>,
    depth: u32,
    score: i32,
    pv: &[Move],
    report: &mut dyn FnMut(&Info),
) {
    worker.flush_nodes();
    let nodes = worker.total_nodes();
    let time = worker_elapsed(worker);
    let uci = pv_text(&worker.pos, pv);
    let info = Info {
        depth,
        seldepth: worker.seldepth as u32,
        score: Score::from_internal(score),
        nodes,
        nps: nps(nodes, time),
        hashfull: worker_hashfull(worker),
        time,
        pv: uci,
    };
    report(&info);
    worker.last_info = Some(info);
}

/// Whether the finished iteration of `depth` (of `max_depth`), which scored `score`, is
/// `worker`'s last: the depth limit or the mate `limits` ask for was reached (which ends
/// the search of every thread), the time is up, or the search was stopped.
fn ends_deepening<E: SearchEntry>(
    worker: &mut Worker<'_, E>,
    limits: &Limits,
    depth: u32,
    max_depth: u32,
    score: i32,
) -> bool {
    if depth >= max_depth {
        worker.shared().halt();
        return true;
    }
    if let Some(mate) = limits.mate
        && score >= MATE - (2 * mate as i32 - 1)
    {
        worker.shared().halt();
        return true;
    }
    worker.out_of_time(false) || worker.stopped
}

/// The soft time limit's factor after `stable` iterations that kept the best move and a
/// score that fell by `drop` cp from the iteration before: from 1.8 when the best move just
/// changed down to 0.7 after four that kept it, and up to half again as much when the score
/// fell by a pawn or more.
fn soft_scale(stable: usize, drop: i32) -> f64 {
    const BY_STABILITY: [f64; 5] = [1.8, 1.3, 1.0, 0.85, 0.7];
    let by_stability = BY_STABILITY[stable.min(BY_STABILITY.len() - 1)];
    let by_drop = 1.0 + f64::from(drop.clamp(0, 100)) / 200.0;
    by_stability * by_drop
}

fn worker_elapsed<E: SearchEntry>(worker: &Worker<'_, E>) -> Duration {
    worker.started().elapsed()
}

fn worker_hashfull<E: SearchEntry>(worker: &Worker<'_, E>) -> u16 {
    worker.table().map_or(0, Table::hashfull)
}

/// Nodes per second (time is rounded up to a microsecond).
pub fn nps(nodes: u64, time: Duration) -> u64 {
    let micros = time.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}

#[cfg(test)]
mod tests {
    use super::soft_scale;

    #[test]
    fn soft_scale_spends_more_where_the_search_is_unsettled() {
        // A settled search stops early, a changed best move or a falling score late.
        assert!(soft_scale(4, 0) < soft_scale(2, 0));
        assert!(soft_scale(2, 0) < soft_scale(0, 0));
        assert!(soft_scale(1, 60) > soft_scale(1, 0));
        // A rising score is no reason to think longer; drops count up to a pawn.
        assert_eq!(soft_scale(1, -300), soft_scale(1, 0));
        assert_eq!(soft_scale(0, 100), soft_scale(0, 30_000));
        // Bounded: the hard limit (3 × the plan, against a soft limit of 0.6 ×) still rules.
        for stable in 0..10 {
            for drop in [-1000, 0, 50, 1000] {
                let s = soft_scale(stable, drop);
                assert!((0.7..=2.7).contains(&s), "{stable} {drop}: {s}");
            }
        }
    }
}
