//! The measurement knobs: environment variables `TRANSPO_C4_*` that override one of the
//! app's tuned defaults, for measuring what another value would do. They are read here and
//! only here, all the same way ([`Knob::read`]): unset, the default holds; set, the value
//! must be a number in the knob's range, else the app refuses it with a message that names
//! the variable and what it must be (exit status 2), and runs nothing. The libraries never
//! read the environment: the app passes the values in (for the solver's threads, with
//! [`SolverKnobs::apply`]).
//!
//! The crate README lists every knob; a test holds the list and [`ALL`] together.

use std::ffi::OsStr;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use transpo_connect4::bounds::BoundStore;
use transpo_connect4::position::Bitboard;
use transpo_connect4::solver::Solver;

/// One measurement knob: its environment variable, the values it takes, and what it
/// counts (for the message that refuses a bad value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knob<T> {
    /// The environment variable, `TRANSPO_C4_…`.
    pub name: &'static str,
    /// The values it takes.
    pub range: RangeInclusive<T>,
    /// What the value counts, as the message refusing a bad one says it.
    pub what: &'static str,
}

/// A knob's value that is not one it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnobError {
    /// The environment variable.
    pub name: &'static str,
    /// The value it was given (lossily, if it was not UTF-8).
    pub value: String,
    /// What it must be, such as `a number from 1 to 7 (children searched alone)`.
    pub expected: String,
}

impl fmt::Display for KnobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={:?}: not {}", self.name, self.value, self.expected)
    }
}

impl std::error::Error for KnobError {}

impl From<KnobError> for transpo_cli::Failure {
    /// A bad knob is bad usage (exit status 2).
    fn from(e: KnobError) -> Self {
        transpo_cli::Failure::usage(e)
    }
}

impl<T: Copy + PartialOrd + FromStr + fmt::Display> Knob<T> {
    /// The knob `name`, which takes the values in `range`, each counting `what`.
    pub const fn new(name: &'static str, range: RangeInclusive<T>, what: &'static str) -> Self {
        Knob { name, range, what }
    }

    /// The value `text` gives the knob (`None`: unset), or why it is refused: it must be a
    /// number in the knob's range, written in decimal without spaces.
    pub fn parse(&self, text: Option<&OsStr>) -> Result<Option<T>, KnobError> {
        let Some(text) = text else {
            return Ok(None);
        };
        let value = text
            .to_str()
            .and_then(|text| text.parse::<T>().ok())
            .filter(|value| self.range.contains(value));
        match value {
            Some(value) => Ok(Some(value)),
            None => Err(KnobError {
                name: self.name,
                value: text.to_string_lossy().into_owned(),
                expected: format!(
                    "a number from {} to {} ({})",
                    self.range.start(),
                    self.range.end(),
                    self.what
                ),
            }),
        }
    }

    /// The knob's value in this process's environment (`None`: unset), or why it is refused.
    pub fn read(&self) -> Result<Option<T>, KnobError> {
        self.parse(std::env::var_os(self.name).as_deref())
    }

    /// The knob's value in the environment, or `default` when it is unset.
    pub fn read_or(&self, default: T) -> Result<T, KnobError> {
        Ok(self.read()?.unwrap_or(default))
    }
}

/// `TRANSPO_C4_SPLIT_EMPTY`: with several threads, nodes with at least this many empty
/// squares may become split points ([`Solver::set_split_empty`]; default
/// [`transpo_connect4::parallel::SPLIT_EMPTY`]).
pub const SPLIT_EMPTY: Knob<u32> = Knob::new(
    "TRANSPO_C4_SPLIT_EMPTY",
    1..=64,
    "empty squares a split point needs",
);

/// `TRANSPO_C4_ALONE`: with several threads, children every node searches alone before it
/// may split ([`Solver::set_alone`]; by default a rule of the team's size,
/// [`transpo_connect4::parallel::alone_before_split`]).
pub const ALONE: Knob<u32> = Knob::new(
    "TRANSPO_C4_ALONE",
    1..=7,
    "children a node searches alone before it splits",
);

/// `TRANSPO_C4_MPI_LEAF`: under `mpirun`, a position with at most this many empty squares
/// is a worker's job (default [`crate::cluster::leaf_empties`]).
pub const MPI_LEAF: Knob<u32> =
    Knob::new("TRANSPO_C4_MPI_LEAF", 0..=128, "empty squares a job has");

/// `TRANSPO_C4_MPI_SHARE`: under `mpirun`, bounds of positions with at least this many empty
/// squares pass from one worker to the others (default: ten fewer than the leaf depth).
pub const MPI_SHARE: Knob<u32> = Knob::new(
    "TRANSPO_C4_MPI_SHARE",
    0..=128,
    "empty squares a shared bound's position has",
);

/// `TRANSPO_C4_MPI_GROUP`: under `mpirun`, a job is placed by its ancestor this many stones
/// above it (default [`crate::cluster::GROUP`]).
pub const MPI_GROUP: Knob<u32> = Knob::new(
    "TRANSPO_C4_MPI_GROUP",
    0..=64,
    "stones above a job its placement's ancestor is",
);

/// `TRANSPO_C4_MPI_ALONE`: under `mpirun`, children a node of the top tree has answered
/// before it releases the rest (default [`crate::cluster::alone_before_release`]).
pub const MPI_ALONE: Knob<u32> = Knob::new(
    "TRANSPO_C4_MPI_ALONE",
    1..=16,
    "children answered before the rest are released",
);

/// `TRANSPO_C4_MPI_ALONE_ALL`: under `mpirun`, children a node of the top tree an even
/// number of stones below the root (expected to need all its children) has answered before
/// it releases the rest (default `TRANSPO_C4_MPI_ALONE`'s value:
/// [`crate::cluster::TopTree::set_alone_all`]).
pub const MPI_ALONE_ALL: Knob<u32> = Knob::new(
    "TRANSPO_C4_MPI_ALONE_ALL",
    1..=16,
    "children answered before the rest are released at nodes that need all",
);

/// `TRANSPO_C4_MPI_AHEAD`: under `mpirun`, jobs a worker holds at once (default 1).
pub const MPI_AHEAD: Knob<u32> = Knob::new("TRANSPO_C4_MPI_AHEAD", 1..=64, "jobs a worker holds");

/// `TRANSPO_C4_MPI_STEAL`: under `mpirun`, 1 (default) lets an idle worker take another's
/// job, 0 never.
pub const MPI_STEAL: Knob<u8> = Knob::new("TRANSPO_C4_MPI_STEAL", 0..=1, "0 or 1");

/// `TRANSPO_C4_MPI_SERIAL`: under `mpirun`, 1 runs one job at a time (for measuring what
/// splitting the table costs apart from running jobs side by side), 0 (default) side by side.
pub const MPI_SERIAL: Knob<u8> = Knob::new("TRANSPO_C4_MPI_SERIAL", 0..=1, "0 or 1");

/// `TRANSPO_C4_MPI_LANES`: under `mpirun`, 1 (default) has a worker of `--threads T` search
/// T jobs at once on one table, one a thread; 0, one job at a time with all T threads (for
/// measuring the one against the other).
pub const MPI_LANES: Knob<u8> = Knob::new("TRANSPO_C4_MPI_LANES", 0..=1, "0 or 1");

/// `TRANSPO_C4_MPI_HELP`: under `mpirun`, 1 has a lane without a job help the jobs of the
/// worker's other lanes (split points, as the threads of one solve); 0, wait for a job of
/// its own (default: [`crate::cluster::helps`], up to 4 lanes).
pub const MPI_HELP: Knob<u8> = Knob::new("TRANSPO_C4_MPI_HELP", 0..=1, "0 or 1");

/// `TRANSPO_C4_MPI_STATE_MS`: under `mpirun` with `--state`, milliseconds between two
/// writes of the state file (default 5,000).
pub const MPI_STATE_MS: Knob<u64> = Knob::new(
    "TRANSPO_C4_MPI_STATE_MS",
    1..=86_400_000,
    "milliseconds between two writes of the state file",
);

/// `TRANSPO_C4_MPI_SPIN_US`: under `mpirun`, microseconds a rank that finds no message
/// yields its core after the last message before it sleeps between looks (default
/// [`crate::cluster::pace::Pace::SPIN`]; 0: it always sleeps, as before the pace).
pub const MPI_SPIN_US: Knob<u64> = Knob::new(
    "TRANSPO_C4_MPI_SPIN_US",
    0..=1_000_000,
    "microseconds a rank yields after a message",
);

/// `TRANSPO_C4_MPI_GUESS`: under `mpirun`, jobs the manager guesses ahead of young brothers
/// wait for workers that would otherwise wait (default [`crate::cluster::guesses`]).
pub const MPI_GUESS: Knob<u32> = Knob::new("TRANSPO_C4_MPI_GUESS", 0..=4096, "jobs guessed ahead");

/// Every knob's variable, in the order the crate README lists them.
pub const ALL: &[&str] = &[
    SPLIT_EMPTY.name,
    ALONE.name,
    MPI_LEAF.name,
    MPI_SHARE.name,
    MPI_GROUP.name,
    MPI_ALONE.name,
    MPI_ALONE_ALL.name,
    MPI_AHEAD.name,
    MPI_STEAL.name,
    MPI_SERIAL.name,
    MPI_LANES.name,
    MPI_HELP.name,
    MPI_STATE_MS.name,
    MPI_SPIN_US.name,
    MPI_GUESS.name,
];

/// The knobs of the solver's threads, read together: each `None` when unset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverKnobs {
    /// [`SPLIT_EMPTY`].
    pub split_empty: Option<u32>,
    /// [`ALONE`].
    pub alone: Option<u32>,
}

impl SolverKnobs {
    /// The knobs as the environment sets them, or the first one refused.
    pub fn from_env() -> Result<Self, KnobError> {
        Ok(SolverKnobs {
            split_empty: SPLIT_EMPTY.read()?,
            alone: ALONE.read()?,
        })
    }

    /// Gives `solver` the values set; an unset knob leaves the solver's default.
    pub fn apply<const W: usize, const H: usize, B: Bitboard, T: BoundStore<W, H, B>>(
        &self,
        solver: &mut Solver<W, H, B, T>,
    ) {
        if let Some(squares) = self.split_empty {
            solver.set_split_empty(squares);
        }
        if self.alone.is_some() {
            solver.set_alone(self.alone);
        }
    }
}

/// The knobs of a run under MPI as the environment sets them, each `None` when unset (the
/// plan's defaults hold: [`crate::cluster::plan::Plan::new`]), or the first one refused.
pub fn cluster_knobs() -> Result<crate::cluster::plan::Knobs, KnobError> {
    let flag = |knob: &Knob<u8>| Ok::<_, KnobError>(knob.read()?.map(|v| v == 1));
    Ok(crate::cluster::plan::Knobs {
        leaf: MPI_LEAF.read()?,
        share: MPI_SHARE.read()?,
        group: MPI_GROUP.read()?,
        alone: MPI_ALONE.read()?,
        alone_all: MPI_ALONE_ALL.read()?,
        ahead: MPI_AHEAD.read()?,
        steal: flag(&MPI_STEAL)?,
        serial: flag(&MPI_SERIAL)?,
        lanes: flag(&MPI_LANES)?,
        help: flag(&MPI_HELP)?,
        state_ms: MPI_STATE_MS.read()?,
        spin_us: MPI_SPIN_US.read()?,
        guess: MPI_GUESS.read()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(knob: &Knob<u32>, text: &str) -> Result<Option<u32>, KnobError> {
        knob.parse(Some(OsStr::new(text)))
    }

    /// Unset is no value; the ends of the range are taken; anything else is refused with
    /// the variable, the value and the range in the message.
    #[test]
    fn values_in_range_are_taken_and_the_rest_refused() {
        assert_eq!(ALONE.parse(None), Ok(None));
        assert_eq!(parse(&ALONE, "1"), Ok(Some(1)));
        assert_eq!(parse(&ALONE, "7"), Ok(Some(7)));
        assert_eq!(parse(&SPLIT_EMPTY, "64"), Ok(Some(64)));
        for bad in [
            "0",
            "8",
            "-1",
            "three",
            "",
            " 3",
            "3 ",
            "1e1",
            "99999999999",
        ] {
            let e = parse(&ALONE, bad).expect_err(bad);
            let message = e.to_string();
            assert!(message.starts_with("TRANSPO_C4_ALONE="), "{message}");
            assert!(message.contains("from 1 to 7"), "{message}");
            assert_eq!(e.value, bad);
        }
    }

    /// A value that is not UTF-8 is refused, not read as unset.
    #[cfg(unix)]
    #[test]
    fn a_value_not_utf8_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        let e = SPLIT_EMPTY
            .parse(Some(OsStr::from_bytes(b"2\xff")))
            .expect_err("not UTF-8");
        assert_eq!(e.name, "TRANSPO_C4_SPLIT_EMPTY");
    }

    /// Knobs of other types read the same way.
    #[test]
    fn any_number_type_reads_the_same_way() {
        let ms = Knob::<u64>::new("TRANSPO_C4_TEST_MS", 1..=60_000, "milliseconds");
        assert_eq!(ms.parse(Some(OsStr::new("250"))), Ok(Some(250)));
        assert!(ms.parse(Some(OsStr::new("0"))).is_err());
        let flag = Knob::<u8>::new("TRANSPO_C4_TEST_FLAG", 0..=1, "0 or 1");
        assert_eq!(flag.parse(Some(OsStr::new("0"))), Ok(Some(0)));
        assert!(flag.parse(Some(OsStr::new("2"))).is_err());
    }

    /// The README lists every knob.
    #[test]
    fn the_readme_lists_every_knob() {
        let readme = include_str!("../README.md");
        for name in ALL {
            assert!(
                readme.contains(&format!("`{name}`")),
                "{name} not in README"
            );
        }
    }
}
