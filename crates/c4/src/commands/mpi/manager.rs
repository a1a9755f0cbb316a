//! The manager rank: reads the lines of stdin, keeps the top of each line's tree
//! ([`TopTree`]), hands its jobs to the workers, passes each worker's shared bounds to the
//! others, and prints what one solve prints.

use super::{
    OUTBOX_MAX, PROGRESS_EVERY, PROGRESS_FIRST, Setup, TAG_BOUNDS, TAG_CANCEL, TAG_END, TAG_HELLO,
    TAG_JOB, TAG_LINE, TAG_RESULT, field, next_message, receive, state_every,
};
use crate::commands::Solving;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, Instant};
use transpo_c4::cluster::{self, CurrentLine, Job, State, Step, TopTree, owner};
use transpo_cli::{Failure, check_stdin};
use transpo_connect4::position::{Bitboard, Position, column_char};
use transpo_connect4::protocol::{ending, parse_line};
use transpo_connect4::score::{Strength, Window, finish, win_now_score};
use transpo_files::{Line, Lines, TEXT_LINE_MAX};

/// Jobs a worker holds at once by default ([`Workers::ahead`]): the one it searches. Two
/// (the next waiting at the worker) gained no time with two workers on 8×5 strong and cost
/// 8% more positions, a job held ahead being more often one a brother's answer makes
/// needless (docs/connect4/mpi.md); not yet measured with many workers.
const JOBS_AHEAD: usize = 1;

/// A job sent to a worker and not yet answered.
struct Sent<const W: usize, const H: usize, B: Bitboard> {
    id: u64,
    job: Job<W, H, B>,
    /// Whether the worker was told to stop it (or not to start it).
    cancelled: bool,
}

impl<const W: usize, const H: usize, B: Bitboard> Sent<W, H, B> {
    /// Whether this job's answer, once it comes, also answers `job`: the same position, and
    /// a window that holds `job`'s.
    fn answers(&self, job: &Job<W, H, B>) -> bool {
        self.job.key() == job.key() && self.job.covers(job.window)
    }
}

/// The manager's side of the workers: what each was sent and has not answered, the jobs
/// waiting for each, and each worker's positions on the current line.
struct Workers<'w, const W: usize, const H: usize, B: Bitboard> {
    world: &'w SimpleCommunicator,
    /// The jobs each worker was sent and has not answered, in the order it searches them:
    /// the first runs, the others wait there ([`Workers::ahead`]).
    sent: Vec<VecDeque<Sent<W, H, B>>>,
    /// Jobs a worker holds at once: one running and the rest waiting at the worker, so that
    /// it starts the next as soon as one ends instead of waiting for the manager's round
    /// trip ([`JOBS_AHEAD`], `TRANSPO_C4_MPI_AHEAD` for measuring).
    ahead: usize,
    /// Jobs cancelled before they were answered.
    stopped: u64,
    queues: Vec<VecDeque<Job<W, H, B>>>,
    /// The bounds proved by the other workers, for each worker's next job.
    outbox: Vec<Vec<u8>>,
    /// Bytes of bounds passed on, and dropped for a full outbox.
    bounds: (u64, u64),
    positions: Vec<u64>,
    /// Microseconds each worker searched on this line.
    searched: Vec<u64>,
    next_id: u64,
    answered: u64,
    /// Whether an idle worker takes another's job (`TRANSPO_C4_MPI_STEAL=0`: never, for
    /// measuring what taking costs in positions).
    steal: bool,
    /// Whether only one job runs at a time (`TRANSPO_C4_MPI_SERIAL=1`, for measuring what
    /// splitting the table costs apart from running jobs side by side).
    serial: bool,
}

impl<'w, const W: usize, const H: usize, B: Bitboard> Workers<'w, W, H, B> {
    fn new(world: &'w SimpleCommunicator, ahead: usize) -> Self {
        let n = world.size() as usize - 1;
        Workers {
            world,
            sent: (0..n).map(|_| VecDeque::new()).collect(),
            ahead: ahead.max(1),
            stopped: 0,
            queues: vec![VecDeque::new(); n],
            outbox: vec![Vec::new(); n],
            bounds: (0, 0),
            positions: vec![0; n],
            searched: vec![0; n],
            next_id: 0,
            answered: 0,
            steal: std::env::var("TRANSPO_C4_MPI_STEAL").map_or(true, |v| v != "0"),
            serial: std::env::var("TRANSPO_C4_MPI_SERIAL").is_ok_and(|v| v == "1"),
        }
    }

    /// Tells every worker that a new line starts: tables and counts from zero.
    fn new_line(&mut self) {
        self.outbox.iter_mut().for_each(Vec::clear);
        (self.answered, self.stopped, self.bounds) = (0, 0, (0, 0));
        self.searched.iter_mut().for_each(|s| *s = 0);
        for (w, positions) in self.positions.iter_mut().enumerate() {
            *positions = 0;
            self.world
                .process_at_rank(w as i32 + 1)
                .send_with_tag(&[0u8][..], TAG_LINE);
        }
    }

    /// Positions of every worker on this line.
    fn positions(&self) -> u64 {
        self.positions.iter().sum()
    }

    /// Makes `needed` (one step's jobs, in the search's order) the work to do: a job sent
    /// before answers it if it covers its window, a sent job no longer needed is cancelled,
    /// a queued one dropped. Each job waits for the worker that owns its group
    /// ([`Job::group`]), in the search's order (ordering by [`Job::rank`] explored more);
    /// then each worker is sent jobs until it holds [`Workers::ahead`]: its own next ones,
    /// or, if it holds none, another's (the front of the longest queue).
    fn plan(&mut self, needed: Vec<Job<W, H, B>>) {
        let n = self.sent.len();
        for w in 0..n {
            for i in 0..self.sent[w].len() {
                let sent = &self.sent[w][i];
                if !sent.cancelled && !needed.iter().any(|job| sent.answers(job)) {
                    self.cancel(w, i);
                }
            }
        }
        self.queues.iter_mut().for_each(VecDeque::clear);
        let first = needed.first().cloned();
        for job in needed {
            let covered = self
                .sent
                .iter()
                .flatten()
                .any(|sent| !sent.cancelled && sent.answers(&job));
            if !covered {
                self.queues[owner(job.group, n)].push_back(job);
            }
        }
        if self.serial {
            // One job at a time, the search's first, at its owner.
            if let (false, Some(job)) = (self.busy(), first) {
                self.send(owner(job.group, n), job);
            }
            return;
        }
        for w in 0..n {
            while self.held(w) < self.ahead {
                let from = if self.queues[w].is_empty() && self.steal && self.held(w) == 0 {
                    (0..n).max_by_key(|&q| self.queues[q].len()).unwrap_or(w)
                } else {
                    w
                };
                let Some(job) = self.queues[from].pop_front() else {
                    break;
                };
                self.send(w, job);
            }
        }
    }

    /// Jobs worker `w` holds that still matter.
    fn held(&self, w: usize) -> usize {
        self.sent[w].iter().filter(|sent| !sent.cancelled).count()
    }

    /// Tells worker `w` to stop (or not to start) the `i`th job it holds.
    fn cancel(&mut self, w: usize, i: usize) {
        let sent = &mut self.sent[w][i];
        self.world
            .process_at_rank(w as i32 + 1)
            .send_with_tag(&sent.id.to_le_bytes()[..], TAG_CANCEL);
        sent.cancelled = true;
    }

    /// Stops every job sent: the root is solved.
    fn cancel_all(&mut self) {
        for w in 0..self.sent.len() {
            for i in 0..self.sent[w].len() {
                if !self.sent[w][i].cancelled {
                    self.cancel(w, i);
                }
            }
        }
    }

    /// Sends `job` to worker `w`, after the bounds the others proved since its last job.
    fn send(&mut self, w: usize, job: Job<W, H, B>) {
        let bounds = std::mem::take(&mut self.outbox[w]);
        if !bounds.is_empty() {
            self.world
                .process_at_rank(w as i32 + 1)
                .send_with_tag(&bounds[..], TAG_BOUNDS);
        }
        let mut bytes = self.next_id.to_le_bytes().to_vec();
        bytes.extend(job.window.alpha.to_le_bytes());
        bytes.extend(job.window.beta.to_le_bytes());
        bytes.extend(job.moves.as_bytes());
        self.world
            .process_at_rank(w as i32 + 1)
            .send_with_tag(&bytes[..], TAG_JOB);
        self.sent[w].push_back(Sent {
            id: self.next_id,
            job,
            cancelled: false,
        });
        self.next_id += 1;
    }

    /// Whether a worker holds a job not yet answered.
    fn busy(&self) -> bool {
        self.sent.iter().any(|held| !held.is_empty())
    }

    /// Jobs the workers hold that still matter.
    fn running(&self) -> usize {
        (0..self.sent.len()).map(|w| self.held(w)).sum()
    }

    /// The share of the line's time `elapsed` the workers spent searching.
    fn busy_share(&self, elapsed: Duration) -> f64 {
        let total = elapsed.as_micros() as f64 * self.sent.len() as f64;
        self.searched.iter().sum::<u64>() as f64 / total.max(1.0)
    }

    /// Keeps the bounds worker `w` proved for every other worker's next job.
    fn pass_on(&mut self, w: usize, bounds: &[u8]) {
        for (other, outbox) in self.outbox.iter_mut().enumerate() {
            if other == w {
                continue;
            }
            if outbox.len() + bounds.len() <= OUTBOX_MAX {
                outbox.extend_from_slice(bounds);
                self.bounds.0 += bounds.len() as u64;
            } else {
                self.bounds.1 += bounds.len() as u64;
            }
        }
    }

    /// Waits for at least one answer and takes in every answer that has come, teaching
    /// `top` each, and the bounds that came with them. An answer that contradicts what is
    /// known is an error.
    fn collect(&mut self, top: &mut TopTree<W, H, B>) -> Result<(), Failure> {
        let mut first = true;
        loop {
            let message = if first {
                Some(next_message(self.world))
            } else {
                self.world
                    .any_process()
                    .immediate_matched_probe()
                    .map(receive)
            };
            let Some((bytes, status)) = message else {
                return Ok(());
            };
            let w = status.source_rank() as usize - 1;
            if status.tag() == TAG_BOUNDS {
                self.pass_on(w, &bytes);
                continue;
            }
            first = false;
            if status.tag() != TAG_RESULT {
                return Err(Failure::run(format!(
                    "rank {}: an unexpected message (tag {})",
                    w + 1,
                    status.tag()
                )));
            }
            let parsed = (
                field::<8>(&bytes, 0),
                field::<4>(&bytes, 8),
                field::<4>(&bytes, 12),
                field::<8>(&bytes, 16),
                bytes.get(24),
                field::<8>(&bytes, 25),
            );
            let (Some(id), Some(lo), Some(hi), Some(positions), Some(&answered), Some(micros)) =
                parsed
            else {
                return Err(Failure::run(format!("rank {}: an answer too short", w + 1)));
            };
            // Jobs are answered in the order they were sent.
            let Some(Sent { id: sent, job, .. }) = self.sent[w].pop_front() else {
                return Err(Failure::run(format!("rank {}: an answer to no job", w + 1)));
            };
            self.positions[w] = u64::from_le_bytes(positions);
            self.searched[w] += u64::from_le_bytes(micros);
            if sent != u64::from_le_bytes(id) {
                return Err(Failure::run(format!(
                    "rank {}: an answer to another job",
                    w + 1
                )));
            }
            if answered == 0 {
                self.stopped += 1;
                continue;
            }
            let (lo, hi) = (i32::from_le_bytes(lo), i32::from_le_bytes(hi));
            if lo > hi || !job.window.decided(lo, hi) || !top.learn(&job.position, lo..=hi) {
                return Err(Failure::run(format!(
                    "rank {}: the answer {lo}..={hi} to {} in {:?} contradicts what is known",
                    w + 1,
                    job.moves,
                    job.window
                )));
            }
            self.answered += 1;
        }
    }
}

/// The manager ([`manage`]), which then tells every worker that the run is over, whatever
/// its outcome: no worker is left waiting.
pub(super) fn manager<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    solving: Solving<W, H, B>,
    me: &[(&'static str, String)],
    setup: &Setup,
    analyze: bool,
    state_path: Option<&Path>,
) -> Result<(), Failure> {
    let result = manage(world, solving, me, setup, analyze, state_path);
    for rank in 1..world.size() {
        world
            .process_at_rank(rank)
            .send_with_tag(&[0u8][..], TAG_END);
    }
    result
}

/// The manager's work: checks that every worker was started as it was, then runs the line
/// protocol over stdin as one solve does, each line solved by the workers.
fn manage<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    solving: Solving<W, H, B>,
    me: &[(&'static str, String)],
    setup: &Setup,
    analyze: bool,
    state_path: Option<&Path>,
) -> Result<(), Failure> {
    for rank in 1..world.size() {
        let (bytes, _) = world
            .process_at_rank(rank)
            .receive_vec_with_tag::<u8>(TAG_HELLO);
        let text = String::from_utf8_lossy(&bytes);
        for ((name, mine), theirs) in me.iter().zip(text.split('\n')) {
            let theirs = theirs.split_once('=').map_or("", |(_, v)| v);
            if mine != theirs {
                return Err(Failure::usage(format!(
                    "rank {rank} was started otherwise than rank 0: {name} {theirs} there, \
                     {mine} here (every rank must run the same program with the same flags)"
                )));
            }
        }
    }
    drop(solving);
    check_stdin().map_err(Failure::usage)?;
    let config = cluster::state_config(
        &format!("{W}x{H}"),
        setup.strength == Strength::Weak,
        analyze,
        setup.leaf_empties,
    );
    let mut saved = match state_path {
        Some(path) => load_state(path, &config)?,
        None => State::default(),
    };
    saved.config = config;
    let mut top = TopTree::new(setup.leaf_empties, setup.group);
    top.set_alone(super::env_number(
        "TRANSPO_C4_MPI_ALONE",
        cluster::alone_before_release(world.size() as usize - 1),
        "a number of children",
    )?);
    let mut run = Manager {
        workers: Workers::<W, H, B>::new(
            world,
            super::env_number("TRANSPO_C4_MPI_AHEAD", JOBS_AHEAD, "a number of jobs")?,
        ),
        top,
        strength: setup.strength,
        state_path,
        state: saved,
        solved: 0,
        last_saved: Instant::now(),
        state_every: state_every(),
        last_progress: None,
        base: (0, 0),
    };
    run.lines(analyze)
}

/// Reads the state file at `path` if there is one: one of another configuration, torn or
/// damaged is bad input.
fn load_state(path: &Path, config: &str) -> Result<State, Failure> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            crate::commands::check_file_out(path, "--state")?;
            return Ok(State::default());
        }
        Err(e) => return Err(Failure::usage(format!("--state {}: {e}", path.display()))),
    };
    let state = State::parse(&text)
        .map_err(|e| Failure::usage(format!("--state {}: {e}", path.display())))?;
    if state.config != config {
        return Err(Failure::usage(format!(
            "--state {} is the state of another solve ({}), not of this one ({config})",
            path.display(),
            state.config
        )));
    }
    Ok(state)
}

/// The manager's run over the input lines.
struct Manager<'w, 'p, const W: usize, const H: usize, B: Bitboard> {
    workers: Workers<'w, W, H, B>,
    top: TopTree<W, H, B>,
    strength: Strength,
    state_path: Option<&'p Path>,
    state: State,
    /// Input lines solved (or reprinted from the state file) so far.
    solved: usize,
    last_saved: Instant,
    state_every: Duration,
    last_progress: Option<Instant>,
    /// Positions and microseconds of the line in hand spent before this run (state file).
    base: (u64, u64),
}

impl<const W: usize, const H: usize, B: Bitboard> Manager<'_, '_, W, H, B> {
    /// The line protocol of one solve (`transpo_connect4::protocol::run`) over stdin.
    fn lines(&mut self, analyze: bool) -> Result<(), Failure> {
        let (mut rejected, mut wrong, mut total) = (0usize, 0usize, 0usize);
        let stdout = io::stdout();
        let mut out = stdout.lock();
        let io_failure = |e: io::Error| Failure::run(format!("standard input or output: {e}"));
        for line in Lines::new(io::stdin().lock(), TEXT_LINE_MAX) {
            let Line { number, text } = line.map_err(io_failure)?;
            total += 1;
            let problem = match text.map_err(|e| e.to_string()).and_then(|t| {
                parse_line::<W, H, B>(&t)
                    .map(|p| (p.moves.to_string(), p.position, p.expected))
                    .map_err(|e| e.to_string())
            }) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("line {number}: {e}");
                    rejected += 1;
                    continue;
                }
            };
            let (moves, position, expected) = problem;
            let (text, score) = self.solve_line(&moves, &position, analyze)?;
            writeln!(out, "{text}").map_err(io_failure)?;
            out.flush().map_err(io_failure)?;
            if let (0, Some(score)) = (position.moves(), score) {
                eprintln!("{}", ending(W * H, self.strength, score));
            }
            if let (Some(expected), Some(score)) = (expected, score) {
                let expected = finish(expected, self.strength);
                if expected != score {
                    eprintln!("line {number}: expected {expected}, solved {score}");
                    wrong += 1;
                }
            }
        }
        if rejected > 0 || wrong > 0 {
            return Err(Failure::run(format!(
                "{rejected} of {total} lines rejected, {wrong} scored other than expected"
            )));
        }
        Ok(())
    }

    /// One line: its output line and its score (the best column's with `--analyze`), from
    /// the state file if it was solved before.
    fn solve_line(
        &mut self,
        moves: &str,
        position: &Position<W, H, B>,
        analyze: bool,
    ) -> Result<(String, Option<i32>), Failure> {
        let index = self.solved;
        self.solved += 1;
        if let Some(done) = self.state.done.get(index) {
            return if done.split(' ').next() == Some(moves) {
                // The score (or with --analyze the best column's) is in the line as printed.
                let score = done
                    .split(' ')
                    .skip(1)
                    .take(if analyze { W } else { 1 })
                    .filter_map(|s| s.parse().ok())
                    .max();
                Ok((done.clone(), score))
            } else {
                Err(self.other_line(index, done.split(' ').next().unwrap_or_default(), moves))
            };
        }
        self.top.clear();
        self.workers.new_line();
        self.base = (0, 0);
        match self.state.current.take() {
            Some(current) if current.moves == moves => {
                for (key, range) in &current.table {
                    self.top.restore(B::from_u128(*key), *range);
                }
                self.base = (current.positions, current.micros);
            }
            Some(current) => return Err(self.other_line(index, &current.moves, moves)),
            None => {}
        }
        let started = Instant::now();
        self.last_progress = None;
        let root_moves = if moves == transpo_connect4::position::EMPTY_BOARD {
            ""
        } else {
            moves
        };
        let (text, score) = if analyze {
            let mut scores = [None; W];
            for (col, score) in scores.iter_mut().enumerate() {
                if !position.can_play(col) {
                    continue;
                }
                *score = Some(if position.is_winning_move(col) {
                    finish(win_now_score(W * H, position.moves()), self.strength)
                } else {
                    let mut next = *position;
                    next.play_column(col);
                    if next.moves() as usize == W * H {
                        0
                    } else {
                        let child_moves = format!("{root_moves}{}", column_char(col));
                        -self.solve(moves, &next, &child_moves, started)?
                    }
                });
            }
            let text: Vec<String> = scores
                .iter()
                .map(|s| s.map_or_else(|| "-".to_string(), |s| s.to_string()))
                .collect();
            (text.join(" "), scores.iter().flatten().max().copied())
        } else {
            let score = self.solve(moves, position, root_moves, started)?;
            (score.to_string(), Some(score))
        };
        let positions = self.line_positions();
        let micros = self.base.1 + started.elapsed().as_micros() as u64;
        let line = format!("{moves} {text} {positions} {micros}");
        self.state.done.push(line.clone());
        self.state.current = None;
        self.save(true)?;
        Ok((line, score))
    }

    /// The error of a state file whose line `index` (counting good lines) is not this one.
    fn other_line(&self, index: usize, was: &str, now: &str) -> Failure {
        Failure::usage(format!(
            "--state {}: line {} of its input was {was:?}, this input's is {now:?}: the state \
             of another position",
            self.state_path
                .map_or_else(String::new, |p| p.display().to_string()),
            index + 1
        ))
    }

    /// The score of `pos` (reached by `path` from the empty board) as one solve of the
    /// strength gives it, by the workers; `line` is the input line's moves (for the state
    /// file).
    fn solve(
        &mut self,
        line: &str,
        pos: &Position<W, H, B>,
        path: &str,
        started: Instant,
    ) -> Result<i32, Failure> {
        let window = Window::of(self.strength);
        loop {
            let explored = self.line_positions();
            match self.top.step(pos, path, window, explored) {
                Step::Solved(range) => {
                    // The jobs still running are stopped and waited for: their positions
                    // count, and a worker must be free before the next line resets its table.
                    self.workers.cancel_all();
                    while self.workers.busy() {
                        self.workers.collect(&mut self.top)?;
                    }
                    self.progress(line, started, true);
                    return Ok(finish(*range.start(), self.strength));
                }
                Step::Jobs(jobs) => {
                    self.workers.plan(jobs);
                    if !self.workers.busy() {
                        return Err(Failure::run("the top tree asked for nothing to search"));
                    }
                    self.workers.collect(&mut self.top)?;
                }
            }
            self.progress(line, started, false);
            if self.last_saved.elapsed() >= self.state_every {
                self.keep_current(line, started);
                self.save(false)?;
            }
        }
    }

    /// Says on stderr how a long line goes, after [`PROGRESS_FIRST`] and then every
    /// [`PROGRESS_EVERY`], and how it went when it is `solved`.
    fn progress(&mut self, line: &str, started: Instant, solved: bool) {
        let due = match self.last_progress {
            None => started + PROGRESS_FIRST,
            Some(last) => last + PROGRESS_EVERY,
        };
        if solved || Instant::now() >= due {
            self.last_progress = Some(Instant::now());
            let running = self.workers.running();
            let elapsed = started.elapsed();
            eprintln!(
                "  {line}: {} jobs answered, {} stopped, {running} running, {:.1} s, {} positions, \
                 {:.1} MB of bounds passed on ({:.1} MB dropped), workers searching {:.0}% of the time",
                self.workers.answered,
                self.workers.stopped,
                elapsed.as_secs_f64(),
                self.line_positions(),
                self.workers.bounds.0 as f64 / 1e6,
                self.workers.bounds.1 as f64 / 1e6,
                100.0 * self.workers.busy_share(elapsed),
            );
        }
    }

    /// Positions the line in hand has cost so far: before a restart, by the workers, and by
    /// the manager.
    fn line_positions(&self) -> u64 {
        self.base.0 + self.workers.positions() + self.top.positions()
    }

    /// Puts the line in hand into the state to write.
    fn keep_current(&mut self, line: &str, started: Instant) {
        self.state.current = Some(CurrentLine {
            moves: line.to_string(),
            positions: self.line_positions(),
            micros: self.base.1 + started.elapsed().as_micros() as u64,
            table: self.top.entries().map(|(k, r)| (k.to_u128(), r)).collect(),
        });
    }

    /// Writes the state file (if `--state` was given) atomically.
    fn save(&mut self, _line_done: bool) -> Result<(), Failure> {
        self.last_saved = Instant::now();
        let Some(path) = self.state_path else {
            return Ok(());
        };
        let text = self.state.to_text();
        transpo_files::write_atomic(path, |mut file: &std::fs::File| {
            file.write_all(text.as_bytes())
        })
        .map_err(|e| Failure::writing(format!("--state {}: {e}", path.display()), &e))
    }
}
