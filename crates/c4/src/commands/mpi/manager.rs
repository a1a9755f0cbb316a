//! The manager rank: checks every worker's handshake, then answers the line protocol
//! ([`protocol::run`]) over stdin as one solve does, each line by the top tree and the
//! workers; writes the state file at intervals and says how a long line goes.

use super::{Setup, next_message, post, try_message};
use crate::commands::Solving;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};
use transpo_c4::cluster::dispatch::{Dispatch, Policy};
use transpo_c4::cluster::wire::{TAG_HELLO, ToManager, check_hello};
use transpo_c4::cluster::{self, CurrentLine, State, StateFile, Step, TopTree};
use transpo_c4::knobs;
use transpo_cli::{Failure, check_stdin};
use transpo_connect4::position::{Bitboard, EMPTY_BOARD, Position, column_char};
use transpo_connect4::protocol::{self, Answer, Answered, Options, Problem, Scores};
use transpo_connect4::score::{Strength, Window, column_scores, finish};

/// When the manager first says how a long line goes, and then how often.
const PROGRESS_FIRST: Duration = Duration::from_secs(5);
/// See [`PROGRESS_FIRST`].
const PROGRESS_EVERY: Duration = Duration::from_secs(60);

/// The manager ([`manage`]), which then tells every worker that the run is over, whatever
/// its outcome: no worker is left waiting.
pub(super) fn manager<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    solving: Solving<W, H, B>,
    setup: &Setup,
    analyze: bool,
    state_path: Option<&Path>,
) -> Result<(), Failure> {
    let workers = world.size() as usize - 1;
    let result = manage(world, solving, setup, analyze, state_path);
    post(
        world,
        Dispatch::<W, H, B>::new(workers, Policy::default()).end(),
    );
    result
}

/// The manager's work: the handshake, the state file, then the line protocol.
fn manage<const W: usize, const H: usize, B: Bitboard>(
    world: &SimpleCommunicator,
    solving: Solving<W, H, B>,
    setup: &Setup,
    analyze: bool,
    state_path: Option<&Path>,
) -> Result<(), Failure> {
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
                "rank {rank} was started otherwise than rank 0: {why} (every rank must run the \
                 same program with the same flags)"
            ))
        })?;
    }
    // The manager keeps no table of its own.
    drop(solving);
    check_stdin().map_err(Failure::usage)?;
    let weak = setup.strength == Strength::Weak;
    let config = cluster::state_config(&format!("{W}x{H}"), weak, analyze, setup.leaf_empties);
    let (file, state) = match state_path {
        Some(path) => StateFile::open(path, &config).map(|(f, s)| (Some(f), s))?,
        None => (None, State::default()),
    };
    let workers = world.size() as usize - 1;
    let mut top = TopTree::<W, H, B>::new(setup.leaf_empties, setup.group as usize);
    top.set_alone(knobs::MPI_ALONE.read_or(cluster::alone_before_release(workers) as u32)?);
    let policy = Policy {
        ahead: knobs::MPI_AHEAD.read_or(1)? as usize,
        steal: knobs::MPI_STEAL.read_or(1)? == 1,
        serial: knobs::MPI_SERIAL.read_or(0)? == 1,
        ..Policy::default()
    };
    let mut manager = Manager {
        world,
        top,
        dispatch: Dispatch::new(workers, policy),
        strength: setup.strength,
        file,
        state,
        lines: 0,
        last_saved: Instant::now(),
        state_every: Duration::from_millis(knobs::MPI_STATE_MS.read_or(5000)?),
        last_progress: None,
        base: (0, 0),
    };
    let options = Options {
        strength: setup.strength,
        analyze,
    };
    let (stdin, stdout) = (io::stdin().lock(), io::stdout().lock());
    let summary = protocol::run(&mut manager, stdin, stdout, io::stderr(), options);
    // What was done is kept, whatever stopped the run.
    let saved = manager.save();
    let summary = summary.map_err(|stop| stop.0)?;
    saved?;
    summary
        .failed_check()
        .map_or(Ok(()), |e| Err(Failure::run(e)))
}

/// What stops the manager's run: its own failure, or standard input or output's.
struct Stop(Failure);

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

/// The manager's run over the input lines.
struct Manager<'w, const W: usize, const H: usize, B: Bitboard> {
    world: &'w SimpleCommunicator,
    top: TopTree<W, H, B>,
    dispatch: Dispatch<W, H, B>,
    strength: Strength,
    file: Option<StateFile>,
    state: State,
    /// Good input lines answered (or reprinted from the state file) so far.
    lines: usize,
    last_saved: Instant,
    state_every: Duration,
    last_progress: Option<Instant>,
    /// Positions and microseconds of the line in hand spent before this run (state file).
    base: (u64, u64),
}

impl<const W: usize, const H: usize, B: Bitboard> Answer<W, H, B> for Manager<'_, W, H, B> {
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
        let started = Instant::now();
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
            micros: u128::from(self.base.1) + started.elapsed().as_micros(),
        };
        let (positions, micros) = (answered.positions, answered.micros);
        let line = format!("{moves} {} {positions} {micros}", answered.scores);
        self.state.done.push(line);
        self.state.current = None;
        if self.last_saved.elapsed() >= self.state_every {
            self.save()?;
        }
        Ok(answered)
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Manager<'_, W, H, B> {
    /// A new line for the top tree and the workers, from the state file's line in hand if
    /// it is this one.
    fn start_line(&mut self, index: usize, moves: &str) -> Result<(), Failure> {
        self.top.clear();
        post(self.world, self.dispatch.new_line());
        self.base = (0, 0);
        self.last_progress = None;
        match self.state.current.take() {
            Some(current) if current.moves == moves => {
                for (key, range) in &current.table {
                    self.top.restore(B::from_u128(*key), *range);
                }
                self.base = (current.positions, current.micros);
                Ok(())
            }
            Some(current) => Err(self.other_line(index, &current.moves, moves)),
            None => Ok(()),
        }
    }

    /// The error of a state file whose line `index` (counting good lines) is not this one.
    fn other_line(&self, index: usize, was: &str, now: &str) -> Failure {
        let was = was.split(' ').next().unwrap_or_default();
        let path = self
            .file
            .as_ref()
            .map_or_else(String::new, |f| f.path().display().to_string());
        Failure::usage(format!(
            "--state {path}: line {} of its input was {was:?}, this input's is {now:?}: the \
             state of another position",
            index + 1
        ))
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
                    post(self.world, self.dispatch.cancel_all());
                    while self.dispatch.busy() {
                        self.collect()?;
                    }
                    self.progress(line, started, true);
                    return Ok(finish(*range.start(), self.strength));
                }
                Step::Jobs(jobs) => {
                    post(self.world, self.dispatch.plan(jobs));
                    if !self.dispatch.busy() {
                        return Err(Failure::run("the top tree asked for nothing to search"));
                    }
                    self.collect()?;
                }
            }
            self.progress(line, started, false);
            if self.last_saved.elapsed() >= self.state_every {
                self.state.current = Some(CurrentLine {
                    moves: line.to_string(),
                    positions: self.line_positions(),
                    micros: self.base.1 + started.elapsed().as_micros() as u64,
                    table: self.top.entries().map(|(k, r)| (k.to_u128(), r)).collect(),
                });
                self.save()?;
            }
        }
    }

    /// Waits for at least one answer and takes in every message that has come.
    fn collect(&mut self) -> Result<(), Failure> {
        let mut first = true;
        loop {
            let message = if first {
                Some(next_message(self.world))
            } else {
                try_message(self.world)
            };
            let Some((bytes, tag, rank)) = message else {
                return Ok(());
            };
            let (w, trouble) = (rank as usize - 1, |e: String| {
                Failure::run(format!("rank {rank}: {e}"))
            });
            match ToManager::decode(tag, &bytes).map_err(|e| trouble(e.to_string()))? {
                ToManager::Bounds(bounds) => self.dispatch.bounds(w, &bounds),
                ToManager::Answer(answer) => {
                    first = false;
                    self.dispatch
                        .answer(w, answer, &mut self.top)
                        .map_err(trouble)?;
                }
                ToManager::Hello { .. } => return Err(trouble("a second handshake".into())),
            }
        }
    }

    /// Says on stderr how a long line goes, after [`PROGRESS_FIRST`] and then every
    /// [`PROGRESS_EVERY`], and how it went when it is `solved` (if it took that long).
    fn progress(&mut self, line: &str, started: Instant, solved: bool) {
        let due = self
            .last_progress
            .map_or(started + PROGRESS_FIRST, |last| last + PROGRESS_EVERY);
        if Instant::now() < due && !(solved && self.last_progress.is_some()) {
            return;
        }
        self.last_progress = Some(Instant::now());
        let (count, elapsed) = (self.dispatch.count(), started.elapsed());
        let window = self.top.asking().map_or_else(String::new, |(lo, hi, med)| {
            format!(", window {med:+} of {lo}..={hi}")
        });
        eprintln!(
            "  {line}: {:.1} s, {} positions, {} jobs answered, {} stopped, {} running{window}, \
             workers searching {:.0}% of the time, {:.1} MB of bounds passed on ({:.1} MB \
             dropped)",
            elapsed.as_secs_f64(),
            self.line_positions(),
            count.answered,
            count.stopped,
            self.dispatch.running(),
            100.0 * self.dispatch.busy_share(elapsed),
            count.bounds.0 as f64 / 1e6,
            count.bounds.1 as f64 / 1e6,
        );
    }

    /// Positions the line in hand has cost so far: before a restart, by the workers, and by
    /// the manager.
    fn line_positions(&self) -> u64 {
        self.base.0 + self.dispatch.positions() + self.top.positions()
    }

    /// Writes the state file (if `--state` was given).
    fn save(&mut self) -> Result<(), Failure> {
        self.last_saved = Instant::now();
        self.file
            .as_ref()
            .map_or(Ok(()), |file| file.write(&self.state))
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
