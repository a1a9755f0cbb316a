//! The manager of a solve over many workers: it answers the line protocol's lines
//! ([`transpo_connect4::protocol::run`]) as one solve does, each by the top tree
//! ([`TopTree`]) and the workers, through a [`Link`] (MPI in the binary, channels in the
//! tests); it reprints the lines a state file says are done, goes on from the line in hand,
//! writes the file at intervals, and says how a long line goes.

use super::dispatch::{Dispatch, Policy};
use super::wire::{ToManager, ToWorker};
use super::{CurrentLine, State, StateFile, Step, TopTree};
use crate::cluster::sharing::KeptBounds;
use std::io;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};
use transpo_cli::Failure;
use transpo_connect4::estimate::{self, Plan};
use transpo_connect4::position::{Bitboard, EMPTY_BOARD, Position, column_char};
use transpo_connect4::protocol::{Answer, Answered, Options, Problem, Scores};
use transpo_connect4::score::{Strength, Window, column_scores, finish};
use transpo_connect4::solver::Solver;

/// When the manager first says how a long line goes, and then how often.
const PROGRESS_FIRST: Duration = Duration::from_secs(5);
/// See [`PROGRESS_FIRST`].
const PROGRESS_EVERY: Duration = Duration::from_secs(60);
/// The most time between two writes of the state file, by default ([`Setup::state_every`]).
pub const STATE_EVERY: Duration = Duration::from_secs(5);
/// The share of the run's time that may pass between two writes of the state file: a kill
/// loses at most about that share of the work.
const SAVE_SHARE: f64 = 0.04;
/// The least time between two writes of the state file (unless `state_every` is less).
const SAVE_LEAST: Duration = Duration::from_millis(100);
/// The least time between two writes of the state file, in times the last snapshot of it
/// took ([`Manager::save_due`]).
const SAVE_COST: u32 = 20;
/// How long a line must have run before its estimate is sampled: a shorter one never pays.
const ESTIMATE_AFTER: Duration = Duration::from_secs(60);
/// The time a long line's estimate may take to sample ([`estimate::estimate`]), on one
/// thread of the manager's beside its work.
const ESTIMATE_BUDGET: Duration = Duration::from_secs(20);

/// How the manager reaches its workers (numbered from 0).
pub trait Link {
    /// Sends the messages, in order.
    fn post(&mut self, orders: super::dispatch::Orders);

    /// The next message from a worker and the worker's number: waits for one if `wait`,
    /// else `None` if none has come.
    ///
    /// # Errors
    ///
    /// A message that does not decode (naming the worker's rank), or a worker gone.
    fn receive(&mut self, wait: bool) -> Result<Option<(usize, ToManager)>, Failure>;

    /// The time now: the manager never reads a clock of its own, so a simulation can run
    /// it in virtual time.
    fn now(&mut self) -> Instant;
}

/// How a manager runs: its tree, its policy and its state file's cadence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// One solve's strength.
    pub strength: Strength,
    /// Empty squares of a job ([`TopTree::new`]).
    pub leaf_empties: u32,
    /// Stones above a job its placement's ancestor is ([`TopTree::new`]).
    pub group: usize,
    /// Children answered before a node releases the rest ([`TopTree::set_alone`]).
    pub alone: u32,
    /// The same at nodes expected to need all their children ([`TopTree::set_alone_all`]).
    pub alone_all: u32,
    /// Stones deeper the main line's jobs are ([`TopTree::set_main_line`]).
    pub main_line: u32,
    /// Jobs guessed ahead for workers that would wait ([`TopTree::set_guesses`]).
    pub guesses: usize,
    /// Stones past the leaf depth a new job may be split to while the step needs fewer
    /// jobs than `searches` ([`TopTree::set_deepen`]).
    pub deepen: u32,
    /// Searches the workers run at once (each worker's lanes counted).
    pub searches: usize,
    /// The dispatch's knobs.
    pub policy: Policy,
    /// The most time between two writes of the state file (a write is due sooner, once 4% of
    /// the run's time has passed since the last, but not sooner than 0.1 s).
    pub state_every: Duration,
}

/// What stops the manager's run: its own failure, or standard input or output's.
pub struct Stop(pub Failure);

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop(Failure::run(format!("standard input or output: {e}")))
    }
}

impl From<Failure> for Stop {
    fn from(failure: Failure) -> Self {
        Stop(failure)
    }
}

/// The manager: the top tree, the dispatch of its jobs over the workers that `link` reaches,
/// and the state file; it answers the line protocol's lines ([`Answer`]).
pub struct Manager<L: Link, const W: usize, const H: usize, B: Bitboard> {
    link: L,
    top: TopTree<W, H, B>,
    dispatch: Dispatch<W, H, B>,
    strength: Strength,
    file: Option<StateFile>,
    state: State,
    /// Good input lines answered (or reprinted from the state file) so far.
    lines: usize,
    last_saved: Instant,
    state_every: Duration,
    /// When the run started.
    started: Instant,
    last_progress: Option<Instant>,
    /// Positions and microseconds of the line in hand spent before this run (state file).
    base: (u64, u64),
    /// The line's expected positions: being sampled, or known.
    expected: Expected,
    /// The far bounds the workers proved on the line in hand, for the state file.
    kept: KeptBounds<B>,
    /// How long the last snapshot of the state took (its write goes on behind).
    save_took: Duration,
}

/// A long line's expected positions ([`Manager::progress`]).
enum Expected {
    /// Not asked for (the line is not long yet).
    None,
    /// Being sampled on a thread of its own.
    Sampling(Receiver<Option<f64>>),
    /// The sample's answer (`None`: the sample could not say).
    Known(Option<f64>),
}

impl<L: Link, const W: usize, const H: usize, B: Bitboard> Answer<W, H, B> for Manager<L, W, H, B> {
    type Error = Stop;

    /// A line solved before (the state file) is reprinted; any other is solved by the
    /// workers, from what the state file kept of it if it was the line in hand.
    fn answer(
        &mut self,
        problem: &Problem<'_, W, H, B>,
        options: Options,
    ) -> Result<Answered<W>, Stop> {
        let (index, moves) = (self.lines, problem.moves);
        self.lines += 1;
        if let Some(done) = self.state.done.get(index) {
            return reprint::<W>(done, moves, options.analyze)
                .ok_or_else(|| Stop(self.other_line(index, done, moves)));
        }
        self.start_line(index, moves)?;
        let started = self.link.now();
        let (pos, root) = (problem.position, root_moves(moves));
        let scores = if options.analyze {
            let (strength, mut failed) = (self.strength, None);
            let scores = column_scores(&pos, strength, |next| {
                let column = (0..W).find(|&c| {
                    let mut child = pos;
                    pos.can_play(c) && {
                        child.play_column(c);
                        child == *next
                    }
                })?;
                let path = format!("{root}{}", column_char(column));
                self.solve(moves, next, &path, started)
                    .map_err(|e| failed = Some(e))
                    .ok()
            });
            match (failed, scores) {
                (Some(failure), _) => return Err(Stop(failure)),
                (None, scores) => Scores::Columns(scores.unwrap_or([None; W])),
            }
        } else {
            Scores::One(self.solve(moves, &pos, root, started)?)
        };
        let answered = Answered {
            scores,
            positions: self.line_positions(),
            micros: u128::from(self.base.1) + (self.link.now() - started).as_micros(),
        };
        let (positions, micros) = (answered.positions, answered.micros);
        let line = format!("{moves} {} {positions} {micros}", answered.scores);
        self.state.done.push(line);
        self.state.current = None;
        if self.save_due() {
            self.save()?;
        }
        Ok(answered)
    }
}

impl<L: Link, const W: usize, const H: usize, B: Bitboard> Manager<L, W, H, B> {
    /// A manager of `workers` workers reached by `link`, going on from `state` (read from
    /// `file`, which it writes; `None`: no state file).
    pub fn new(
        mut link: L,
        workers: usize,
        setup: &Setup,
        file: Option<StateFile>,
        state: State,
    ) -> Self {
        let now = link.now();
        let mut top = TopTree::new(setup.leaf_empties, setup.group);
        top.set_alone(setup.alone);
        top.set_alone_all(setup.alone_all);
        top.set_main_line(setup.main_line);
        top.set_guesses(setup.guesses);
        top.set_deepen(setup.deepen, setup.searches);
        Manager {
            link,
            top,
            dispatch: Dispatch::new(workers, setup.policy),
            strength: setup.strength,
            file,
            state,
            lines: 0,
            last_saved: now,
            state_every: setup.state_every,
            started: now,
            last_progress: None,
            base: (0, 0),
            expected: Expected::None,
            kept: KeptBounds::default(),
            save_took: Duration::ZERO,
        }
    }

    /// The end of the run: writes the state file a last time and tells every worker the
    /// run is over.
    ///
    /// # Errors
    ///
    /// Writing the state file failed.
    pub fn finish(mut self) -> Result<(), Failure> {
        let saved = self.save();
        self.link
            .post(super::dispatch::end(self.dispatch.workers()));
        saved
    }
    /// A new line for the top tree and the workers, from the state file's line in hand if
    /// it is this one.
    fn start_line(&mut self, index: usize, moves: &str) -> Result<(), Failure> {
        self.top.clear();
        self.link.post(self.dispatch.new_line());
        self.base = (0, 0);
        self.last_progress = None;
        self.expected = Expected::None;
        self.kept.clear();
        match self.state.current.take() {
            Some(current) if current.moves == moves => {
                for (key, range) in &current.table {
                    self.top.restore(B::from_u128(*key), *range);
                }
                self.base = (current.positions, current.micros);
                // The killed workers' far bounds, for every worker before its first job.
                self.kept
                    .keep::<W, H>(&current.bounds)
                    .map_err(|e| Failure::usage(format!("--state {}: {e}", self.path())))?;
                if !self.kept.is_empty() {
                    let records: std::sync::Arc<[u8]> = self.kept.records().into();
                    let workers = self.dispatch.workers();
                    self.link.post(
                        (0..workers)
                            .map(|w| (w, ToWorker::Bounds(records.clone())))
                            .collect(),
                    );
                }
                Ok(())
            }
            Some(current) => Err(self.other_line(index, &current.moves, moves)),
            None => Ok(()),
        }
    }

    /// The error of a state file whose line `index` (counting good lines) is not this one.
    fn other_line(&self, index: usize, was: &str, now: &str) -> Failure {
        let was = was.split(' ').next().unwrap_or_default();
        Failure::usage(format!(
            "--state {}: line {} of its input was {was:?}, this input's is {now:?}: the \
             state of another position",
            self.path(),
            index + 1
        ))
    }

    /// The state file's path as given (empty without one).
    fn path(&self) -> String {
        self.file
            .as_ref()
            .map_or_else(String::new, |f| f.path().display().to_string())
    }

    /// The score of `pos` (reached by `path` from the empty board) as one solve of the
    /// strength gives it, by the workers; `line` is the input line's moves.
    fn solve(
        &mut self,
        line: &str,
        pos: &Position<W, H, B>,
        path: &str,
        started: Instant,
    ) -> Result<i32, Failure> {
        let window = Window::of(self.strength);
        loop {
            match self.top.step(pos, path, window, self.line_positions()) {
                Step::Solved(range) => {
                    // The jobs still running are stopped and waited for: their positions
                    // count, and a worker must be free before the next line resets its table.
                    self.link.post(self.dispatch.cancel_all());
                    while self.dispatch.busy() {
                        self.collect()?;
                    }
                    self.progress(line, pos, started, true);
                    return Ok(finish(*range.start(), self.strength));
                }
                Step::Jobs(jobs) => {
                    let orders = self.dispatch.plan_with_guesses(jobs, self.top.guesses());
                    self.link.post(orders);
                    if !self.dispatch.busy() {
                        return Err(Failure::run("the top tree asked for nothing to search"));
                    }
                    self.collect()?;
                }
            }
            self.progress(line, pos, started, false);
            if self.file.is_some() && self.save_due() {
                let snapshot = self.link.now();
                self.state.current = Some(CurrentLine {
                    moves: line.to_string(),
                    positions: self.line_positions(),
                    micros: self.base.1 + (snapshot - started).as_micros() as u64,
                    table: self.top.entries().map(|(k, r)| (k.to_u128(), r)).collect(),
                    bounds: self.kept.records(),
                });
                if let Some(file) = self.file.as_mut() {
                    // Written behind: the line goes on while a big file is written.
                    if file.write_behind(self.state.clone())? {
                        self.last_saved = self.link.now();
                        self.save_took = self.last_saved - snapshot;
                    }
                }
            }
        }
    }

    /// Waits for at least one answer and takes in every message that has come: answers,
    /// and the bounds a worker sends for the state file (the workers pass their bounds to
    /// each other themselves, [`super::relay`]).
    fn collect(&mut self) -> Result<(), Failure> {
        let mut wait = true;
        while let Some((w, message)) = self.link.receive(wait)? {
            let trouble = |e: String| Failure::run(format!("rank {}: {e}", w + 1));
            match message {
                ToManager::Bounds(bounds) => {
                    if self.file.is_some() {
                        self.kept.keep::<W, H>(&bounds).map_err(trouble)?;
                    }
                }
                ToManager::Answer(answer) => {
                    wait = false;
                    self.dispatch
                        .answer(w, answer, &mut self.top)
                        .map_err(trouble)?;
                }
                ToManager::Hello { .. } => return Err(trouble("a second handshake".into())),
            }
        }
        Ok(())
    }

    /// Says on stderr how a long line goes, after [`PROGRESS_FIRST`] and then every
    /// [`PROGRESS_EVERY`], and how it went when it is `solved` (if it took that long); from
    /// the first report on, it estimates the line's positions ([`Manager::estimate`]).
    fn progress(&mut self, line: &str, pos: &Position<W, H, B>, started: Instant, solved: bool) {
        let due = self
            .last_progress
            .map_or(started + PROGRESS_FIRST, |last| last + PROGRESS_EVERY);
        let now = self.link.now();
        if now < due && !(solved && self.last_progress.is_some()) {
            return;
        }
        self.last_progress = Some(now);
        let elapsed = now - started;
        let window = self.top.asking().map_or_else(String::new, |(lo, hi, med)| {
            format!(", window {med:+} of {lo}..={hi}")
        });
        let positions = self.line_positions();
        let estimate = if solved {
            String::new()
        } else {
            self.estimate(pos, positions, elapsed)
        };
        let count = self.dispatch.count();
        eprintln!(
            "  {line}: {:.1} s, {positions} positions, {} jobs answered, {} stopped, {} \
             running{window}, {:.1} jobs searching at once on average{estimate}",
            elapsed.as_secs_f64(),
            count.answered,
            count.stopped,
            self.dispatch.running(),
            self.dispatch.searching_at_once(elapsed),
        );
    }

    /// The estimate in a progress line: what a solve of a position with as many empty
    /// squares as `pos` explores (`transpo_connect4::estimate`: one-thread solves of random
    /// positions nearer the end, the growth extended; its error on the boards whose solves
    /// are known is in `docs/connect4/estimate.md`), the share of it done, and the time left
    /// at the rate so far. The first call after [`ESTIMATE_AFTER`] starts the sample on a
    /// thread of its own ([`ESTIMATE_BUDGET`]); until it answers, nothing.
    fn estimate(&mut self, pos: &Position<W, H, B>, positions: u64, elapsed: Duration) -> String {
        let empty = (W * H) as u32 - pos.moves();
        let (strength, seed) = (self.strength, positions);
        match &self.expected {
            Expected::None if elapsed < ESTIMATE_AFTER => {}
            Expected::None => {
                let (answer, sampled) = channel();
                std::thread::spawn(move || {
                    let plan = Plan {
                        samples: 16,
                        seed,
                        max_empty: empty,
                        budget: ESTIMATE_BUDGET,
                    };
                    let expected = Solver::<W, H, B>::new(16).ok().and_then(|mut solver| {
                        let sample = estimate::estimate(&mut solver, strength, &plan, |_| {});
                        sample.fit.map(|fit| fit.at(empty))
                    });
                    // A line that ended before the sample no longer listens.
                    let _ = answer.send(expected);
                });
                self.expected = Expected::Sampling(sampled);
            }
            Expected::Sampling(sampled) => {
                if let Ok(expected) = sampled.try_recv() {
                    self.expected = Expected::Known(expected);
                }
            }
            Expected::Known(_) => {}
        }
        let Expected::Known(Some(expected)) = self.expected else {
            return String::new();
        };
        if positions as f64 >= expected {
            // The sample's line falls short further out (estimate.md): a floor, passed.
            return format!("; estimate {expected:.3e} positions (sampled, a floor), passed");
        }
        let done = positions as f64 / expected.max(1.0);
        let rate = positions as f64 / elapsed.as_secs_f64().max(1e-3);
        let left = (expected - positions as f64).max(0.0) / rate.max(1.0) / 3600.0;
        format!(
            "; estimate {expected:.3e} positions (sampled, a floor), {:.0}% done, {left:.2} h left \
             at this rate",
            100.0 * done
        )
    }

    /// Positions the line in hand has cost so far: before a restart, by the workers, and by
    /// the manager.
    fn line_positions(&self) -> u64 {
        self.base.0 + self.dispatch.positions() + self.top.positions()
    }

    /// Whether the state file is due: [`SAVE_SHARE`] of the run's time since the last write,
    /// so that a kill loses at most that share of the work done, but at most every
    /// [`SAVE_LEAST`] and at least every `state_every`; and never before [`SAVE_COST`] times
    /// the last snapshot's time has passed, so that taking them costs at most 1/`SAVE_COST`
    /// of the manager's time however many bounds the file holds.
    fn save_due(&mut self) -> bool {
        let now = self.link.now();
        let since = now - self.last_saved;
        let share = (now - self.started).mul_f64(SAVE_SHARE);
        since >= self.state_every.min(share.max(SAVE_LEAST)) && since >= self.save_took * SAVE_COST
    }

    /// Writes the state file (if `--state` was given) and waits for it.
    fn save(&mut self) -> Result<(), Failure> {
        let saved = self
            .file
            .as_mut()
            .map_or(Ok(()), |file| file.write(&self.state));
        self.last_saved = self.link.now();
        saved
    }
}

/// The moves of a line's root as the top tree takes them: empty for the empty board.
fn root_moves(moves: &str) -> &str {
    if moves == EMPTY_BOARD { "" } else { moves }
}

/// The answer a state file's `done` line (`moves scores positions micros`) holds for the
/// line `moves`; `None` if it is another line's or does not parse.
fn reprint<const W: usize>(done: &str, moves: &str, analyze: bool) -> Option<Answered<W>> {
    let words: Vec<&str> = done.split(' ').collect();
    let [was, scores @ .., positions, micros] = &words[..] else {
        return None;
    };
    let parsed: Vec<Option<i32>> = scores
        .iter()
        .map(|s| match *s {
            "-" => Some(None),
            s => s.parse().ok().map(Some),
        })
        .collect::<Option<_>>()?;
    let scores = match (analyze, &parsed[..]) {
        (false, [Some(score)]) => Scores::One(*score),
        (true, _) => Scores::Columns(parsed.try_into().ok()?),
        _ => return None,
    };
    (*was == moves).then_some(())?;
    Some(Answered {
        scores,
        positions: positions.parse().ok()?,
        micros: micros.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::wire::ToWorker;
    use super::super::worker::threads::Threaded;
    use super::super::worker::{Outgoing, Route};
    use super::super::{LEAF_STONES, state_config};
    use super::*;
    use crate::cluster::sharing::SharingTable;
    use std::sync::mpsc::{Receiver, Sender, channel};
    use transpo_connect4::bounds::BoundTable;
    use transpo_connect4::pool::SolverPool;
    use transpo_connect4::protocol::{self, Summary};
    use transpo_connect4::solver::Solver;

    /// Workers on threads of this process, reached by channels.
    struct Local {
        to: Vec<Sender<ToWorker>>,
        from: Receiver<(usize, ToManager)>,
    }

    impl Link for Local {
        fn post(&mut self, orders: super::super::dispatch::Orders) {
            for (w, message) in orders {
                // A worker that ended has nothing more to hear.
                let _ = self.to[w].send(message);
            }
        }

        fn receive(&mut self, wait: bool) -> Result<Option<(usize, ToManager)>, Failure> {
            if wait {
                let message = self.from.recv().map_err(|_| Failure::run("workers gone"))?;
                Ok(Some(message))
            } else {
                Ok(self.from.try_recv().ok())
            }
        }

        fn now(&mut self) -> Instant {
            Instant::now()
        }
    }

    /// The pump of worker `w` as the binary's is, over channels: the same worker
    /// ([`Threaded`]) on the same threads, its bounds going by `route` to the other workers
    /// (`peers`) and the manager (`out`).
    fn pump<const W: usize, const H: usize>(
        route: Route,
        lanes: usize,
        inbox: &Receiver<ToWorker>,
        peers: &[Sender<ToWorker>],
        out: &Sender<(usize, ToManager)>,
    ) {
        let mut worker = if lanes > 1 {
            let mut pool = SolverPool::<W, H, u64>::new(2, lanes).expect("2 MiB");
            // As the binary's workers: a lane without a job helps the others.
            pool.set_helping(true);
            Threaded::start_lanes(pool, 4, route)
        } else {
            let table = BoundTable::<W, H, u64>::new(2).expect("2 MiB");
            Threaded::start(Solver::with_table(SharingTable::new(table, 4)), route)
        };
        let send = |messages: Vec<Outgoing>| {
            for message in messages {
                // A worker or manager that ended has nothing more to hear.
                let _ = match message {
                    Outgoing::Manager(m) => out.send((route.me, m)).map_err(drop),
                    Outgoing::Worker(to, m) => peers[to].send(m).map_err(drop),
                };
            }
        };
        while !worker.finished() {
            if worker.idle() {
                let Ok(message) = inbox.recv() else { return };
                send(worker.take(message).expect("a good message"));
                continue;
            }
            while let Ok(message) = inbox.try_recv() {
                send(worker.take(message).expect("a good message"));
            }
            let answered = worker.next_messages(Duration::from_millis(1));
            send(answered.expect("a search").unwrap_or_default());
        }
    }

    /// Runs the line protocol over `input` with a manager of `workers` local workers;
    /// returns stdout, stderr and the summary (or the failure).
    fn run<const W: usize, const H: usize>(
        input: &str,
        workers: usize,
        options: Options,
        file: Option<(StateFile, State)>,
    ) -> Result<(String, String, Summary), Failure> {
        run_lanes::<W, H>(input, workers, 1, options, file)
    }

    /// [`run`] with workers of `lanes` lanes each ([`Threaded::start_lanes`]), each held as
    /// many jobs.
    fn run_lanes<const W: usize, const H: usize>(
        input: &str,
        workers: usize,
        lanes: usize,
        options: Options,
        file: Option<(StateFile, State)>,
    ) -> Result<(String, String, Summary), Failure> {
        let (to_manager, from) = channel();
        let (to, inboxes): (Vec<_>, Vec<_>) = (0..workers).map(|_| channel()).unzip();
        // With a state file the manager keeps the workers' bounds; all of them pass on.
        let keep = file.as_ref().map(|_| 0);
        std::thread::scope(|scope| {
            for (me, inbox) in inboxes.into_iter().enumerate() {
                let out = to_manager.clone();
                let peers = to.clone();
                let route = Route { me, workers, keep };
                scope.spawn(move || pump::<W, H>(route, lanes, &inbox, &peers, &out));
            }
            drop(to_manager);
            let setup = Setup {
                strength: options.strength,
                leaf_empties: ((W * H) as u32).saturating_sub(LEAF_STONES).max(6),
                group: 2,
                alone: 1,
                alone_all: 1,
                main_line: crate::cluster::main_line_stones(workers * lanes),
                guesses: 0,
                deepen: 0,
                searches: workers * lanes,
                policy: Policy {
                    ahead: lanes,
                    ..Policy::default()
                },
                state_every: Duration::ZERO,
            };
            let (file, state) = file.map_or((None, State::default()), |(f, s)| (Some(f), s));
            let mut manager =
                Manager::<_, W, H, u64>::new(Local { to, from }, workers, &setup, file, state);
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let summary =
                protocol::run(&mut manager, input.as_bytes(), &mut out, &mut err, options);
            let finished = manager.finish();
            let summary = summary.map_err(|stop| stop.0)?;
            finished?;
            let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
            Ok((text(out), text(err), summary))
        })
    }

    /// One machine's protocol run.
    fn one<const W: usize, const H: usize>(input: &str, options: Options) -> (String, String) {
        let mut solver = Solver::<W, H>::new(4).expect("4 MiB");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        protocol::run(&mut solver, input.as_bytes(), &mut out, &mut err, options).expect("memory");
        (
            String::from_utf8(out).expect("UTF-8"),
            String::from_utf8(err).expect("UTF-8"),
        )
    }

    /// The output lines without their positions and microseconds.
    fn scores(out: &str) -> Vec<String> {
        out.lines()
            .map(|l| {
                let words: Vec<&str> = l.split(' ').collect();
                words[..words.len() - 2].join(" ")
            })
            .collect()
    }

    /// The manager with 1, 2 and 5 local workers, and with 1 and 2 workers of several
    /// lanes, prints one solve's scores, strong, weak and analysed, reports the bad line as one solve does, and says who wins on the
    /// empty board.
    #[test]
    fn the_manager_answers_as_one_solve() {
        let input = "-\n3\n33\n2 0\n343\n12x\n1\n444\n";
        for strength in [Strength::Strong, Strength::Weak] {
            for analyze in [false, true] {
                let options = Options { strength, analyze };
                let (out, err) = one::<5, 4>(input, options);
                for (workers, lanes) in [(1, 1), (2, 1), (5, 1), (1, 4), (2, 3)] {
                    let (got, got_err, summary) =
                        run_lanes::<5, 4>(input, workers, lanes, options, None).expect("a run");
                    assert_eq!(
                        scores(&got),
                        scores(&out),
                        "{workers} workers x {lanes} lanes {options:?}"
                    );
                    assert_eq!(got_err, err);
                    assert_eq!((summary.solved, summary.rejected), (7, 1));
                }
            }
        }
    }

    /// The far bounds a state file keeps of the line in hand reach every worker before its
    /// first job: the line is solved as one solve does, with far fewer positions than
    /// without them; bounds that are none of this board are refused as bad usage. One
    /// worker, so that the counts compared do not hang on how threads take turns (two
    /// workers pass each other bounds as they come, and how many positions that spares
    /// depends on the machine's load).
    #[test]
    fn a_state_file_s_bounds_spare_the_search() {
        let dir = std::env::temp_dir().join(format!("transpo-c4-kept-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join("state");
        let options = Options {
            strength: Strength::Strong,
            analyze: false,
        };
        let config = state_config("5x4", false, false);
        // The far bounds of a whole solve of the empty board, as its workers would pass them.
        let table = BoundTable::<5, 4, u64>::new(2).expect("2 MiB");
        let mut solver = Solver::with_table(SharingTable::new(table, 4));
        solver.solve(&Position::new(), Strength::Strong);
        let bounds = solver.table_mut().take_journal();
        assert!(!bounds.is_empty());
        let positions = |out: &str| -> u64 {
            out.split(' ')
                .nth(2)
                .and_then(|p| p.parse().ok())
                .expect("a count")
        };
        let fresh = run::<5, 4>("-\n", 1, options, None).expect("a run").0;
        let with = |bounds: Vec<u8>| {
            let _ = std::fs::remove_file(&path);
            let (mut file, _) = StateFile::open(&path, &config).expect("new");
            let current = CurrentLine {
                moves: "-".into(),
                bounds,
                ..CurrentLine::default()
            };
            file.write(&State {
                config: config.clone(),
                done: Vec::new(),
                current: Some(current),
            })
            .expect("written");
            drop(file);
            let file = StateFile::open(&path, &config).expect("kept");
            run::<5, 4>("-\n", 1, options, Some(file))
        };
        let resumed = with(bounds.clone()).expect("a run").0;
        assert_eq!(scores(&resumed), scores(&one::<5, 4>("-\n", options).0));
        assert!(
            positions(&resumed) * 2 < positions(&fresh),
            "{resumed} against {fresh}"
        );
        let mut junk = bounds;
        junk[..8].copy_from_slice(&0u64.to_le_bytes());
        let refused = with(junk).expect_err("no bound of this board");
        assert_eq!(refused.exit_code(), 2);
        assert!(
            refused.message().contains("--state"),
            "{}",
            refused.message()
        );
        std::fs::remove_dir_all(&dir).expect("cleaned up");
    }

    /// A run with a state file, run again, reprints every line from it (the same positions
    /// and times), with another number of workers too; the state of another input is
    /// refused.
    #[test]
    fn a_state_file_reprints_what_was_done() {
        let dir = std::env::temp_dir().join(format!("transpo-c4-manager-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join("state");
        let options = Options {
            strength: Strength::Strong,
            analyze: false,
        };
        let config = state_config("5x4", false, false);
        let input = "-\n3\n44\n";
        let first = run::<5, 4>(
            input,
            3,
            options,
            Some(StateFile::open(&path, &config).expect("new")),
        )
        .expect("a run");
        let again = run::<5, 4>(
            input,
            1,
            options,
            Some(StateFile::open(&path, &config).expect("kept")),
        )
        .expect("a run");
        assert_eq!(again.0, first.0);
        let longer = run::<5, 4>(
            "-\n3\n44\n2\n",
            2,
            options,
            Some(StateFile::open(&path, &config).expect("kept")),
        )
        .expect("a run");
        assert!(longer.0.starts_with(&first.0));
        assert_eq!(
            scores(&longer.0),
            scores(&one::<5, 4>("-\n3\n44\n2\n", options).0)
        );
        let other = run::<5, 4>(
            "-\n4\n",
            2,
            options,
            Some(StateFile::open(&path, &config).expect("kept")),
        )
        .map(|_| ())
        .unwrap_err();
        assert!(other.message().contains("another position"), "{other:?}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
