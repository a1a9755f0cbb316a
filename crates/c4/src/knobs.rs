//! The measurement knobs: environment variables `TRANSPO_C4_*` that override one of the
//! app's tuned defaults, for measuring what another value would do. They are read here and
//! only here, all the same way ([`Knob::read`]): unset, the default holds; set, the value
//! must be a number in the knob's range, else the app refuses it with a message that names
//! the variable and what it must be (exit status 2), and runs nothing. The libraries never
//! read the environment: the app passes the values in (for the solver's threads, with
//! [`Knobs::apply`]).
//!
//! Each knob is declared once, in one line of the `knobs!` table: its constant, its field
//! of [`Knobs`], the reading and the README's table all come from it.

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

/// Declares the knobs, one line each: the constant, the field of [`Knobs`] it fills, its
/// type, variable, range, what it counts, its default and its doc. From that one line come
/// the constant, the field, the reading ([`Knobs::from_env`]), [`ALL`] and the README's
/// table ([`readme_table`]).
macro_rules! knobs {
    ($(
        $konst:ident $field:ident: $ty:ty = $name:literal in $range:expr,
            $what:literal, default $default:literal, $doc:literal;
    )*) => {
        $(
            #[doc = concat!("`", $name, "`: ", $doc, " Default: ", $default, ".")]
            pub const $konst: Knob<$ty> = Knob::new($name, $range, $what);
        )*

        /// Every knob as the environment sets it, each `None` when unset (the defaults
        /// hold: [`crate::cluster::plan::Plan::new`], [`Knobs::apply`]).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Knobs {
            $(
                #[doc = concat!("[`", stringify!($konst), "`]: ", $doc)]
                pub $field: Option<$ty>,
            )*
        }

        impl Knobs {
            /// The knobs as the environment sets them, or the first one refused.
            pub fn from_env() -> Result<Self, KnobError> {
                Ok(Knobs { $($field: $konst.read()?,)* })
            }
        }

        /// Every knob's variable, in the order the README's table lists them.
        pub const ALL: &[&str] = &[$($name,)*];

        /// The README's table of the knobs, one row each: the variable, its values, its
        /// default and what it does.
        pub fn readme_table() -> String {
            let mut table = String::from("| variable | values | default | what it does |\n|---|---|---|---|\n");
            $(
                table.push_str(&format!(
                    "| `{}` | {}–{} | {} | {} |\n",
                    $name,
                    $konst.range.start(),
                    $konst.range.end(),
                    $default,
                    $doc
                ));
            )*
            table
        }
    };
}

knobs! {
    SPLIT_EMPTY split_empty: u32 = "TRANSPO_C4_SPLIT_EMPTY" in 1..=64,
        "empty squares a split point needs", default "20",
        "With several threads, nodes with at least this many empty squares may become split points.";
    ALONE split_alone: u32 = "TRANSPO_C4_ALONE" in 1..=7,
        "children a node searches alone before it splits",
        default "2 up to 2 threads, 3 up to 5, then 1; 1 at the top 4 stones",
        "With several threads, children every node searches alone before it may split.";
    MPI_LEAF leaf: u32 = "TRANSPO_C4_MPI_LEAF" in 0..=128,
        "empty squares a job has",
        default "W·H − 8, or − 5 up to 2 searches; the main line's 2 fewer; with a crew W·H − 6, or − 5 up to 2 workers",
        "Under `mpirun`, a position with at most this many empty squares is a worker's job.";
    MPI_SHARE share: u32 = "TRANSPO_C4_MPI_SHARE" in 0..=128,
        "empty squares a shared bound's position has", default "ten fewer than the leaf's",
        "Under `mpirun`, bounds of positions with at least this many empty squares pass from one worker to the others.";
    MPI_GROUP group: u32 = "TRANSPO_C4_MPI_GROUP" in 0..=64,
        "stones above a job its placement's ancestor is", default "2",
        "Under `mpirun`, a job is placed by its ancestor this many stones above it.";
    MPI_ALONE alone: u32 = "TRANSPO_C4_MPI_ALONE" in 1..=16,
        "children answered before the rest are released",
        default "2 up to 2 searches, 3 up to 7, then 1",
        "Under `mpirun`, children a node of the top tree has answered before it releases the rest.";
    MPI_ALONE_ALL alone_all: u32 = "TRANSPO_C4_MPI_ALONE_ALL" in 1..=16,
        "children answered before the rest are released at nodes that need all",
        default "`TRANSPO_C4_MPI_ALONE`'s",
        "Under `mpirun`, the same at the nodes an even number of stones below the root (expected to need all their children).";
    MPI_AHEAD ahead: u32 = "TRANSPO_C4_MPI_AHEAD" in 1..=64,
        "jobs a worker holds", default "the worker's lanes (2 with a crew)",
        "Under `mpirun`, jobs a worker holds at once. With a crew, its lanes go to the oldest job first: a younger job takes only the lanes the older ones' trees leave idle.";
    MPI_STEAL steal: u8 = "TRANSPO_C4_MPI_STEAL" in 0..=1, "0 or 1", default "1",
        "Under `mpirun`, 1 lets an idle worker take another's job, 0 never.";
    MPI_SERIAL serial: u8 = "TRANSPO_C4_MPI_SERIAL" in 0..=1, "0 or 1", default "0",
        "Under `mpirun`, 1 runs one job at a time (what splitting the table costs apart from running jobs side by side), 0 side by side.";
    MPI_LANES lanes: u8 = "TRANSPO_C4_MPI_LANES" in 0..=1, "0 or 1", default "1",
        "Under `mpirun`, 1 has a worker of `--threads T` search T jobs at once on one table, one a thread; 0, one job at a time with all T threads.";
    MPI_HELP help: u8 = "TRANSPO_C4_MPI_HELP" in 0..=1, "0 or 1", default "1 up to 4 lanes, then 0",
        "Under `mpirun`, 1 has a lane without a job help the jobs of the worker's other lanes; 0, wait for a job of its own.";
    MPI_STATE_MS state_ms: u64 = "TRANSPO_C4_MPI_STATE_MS" in 1..=86_400_000,
        "milliseconds between two writes of the state file", default "5000",
        "Under `mpirun` with `--state`, the most milliseconds between two writes of the state file.";
    MPI_SPIN_US spin_us: u64 = "TRANSPO_C4_MPI_SPIN_US" in 0..=1_000_000,
        "microseconds a rank yields after a message", default "1000",
        "Under `mpirun`, microseconds a rank that finds no message yields its core after the last message before it sleeps between looks (0: it always sleeps).";
    MPI_CREW crew: u32 = "TRANSPO_C4_MPI_CREW" in 0..=64,
        "stones below the manager's job a worker splits it to", default "0: no split",
        "Under `mpirun`, a worker of lanes splits each job the manager sends over its lanes with a top tree of its own, into jobs this many stones deeper (the manager then holds it one job, as one search), one more a lane waiting in the lanes' queue; a lane job it splits while it runs gives way to its children's; 0, each lane takes the manager's jobs.";
    MPI_GUESS guess: u32 = "TRANSPO_C4_MPI_GUESS" in 0..=4096,
        "jobs guessed ahead", default "1 a worker up to 2 one-thread workers or with a crew, else 0",
        "Under `mpirun`, jobs the manager guesses ahead of young brothers wait for workers that would otherwise wait.";
}

impl Knobs {
    /// Whether the flag `value` (a 0-or-1 knob's) is set to 1; `None` when unset.
    pub fn flag(value: Option<u8>) -> Option<bool> {
        value.map(|v| v == 1)
    }

    /// Gives `solver` the values of the solver's knobs that are set ([`SPLIT_EMPTY`],
    /// [`ALONE`]); an unset knob leaves the solver's default.
    pub fn apply<const W: usize, const H: usize, B: Bitboard, T: BoundStore<W, H, B>>(
        &self,
        solver: &mut Solver<W, H, B, T>,
    ) {
        if let Some(squares) = self.split_empty {
            solver.set_split_empty(squares);
        }
        if self.split_alone.is_some() {
            solver.set_alone(self.split_alone);
        }
    }
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

    /// The README's table of the knobs is the one the declarations give (to mend it, paste
    /// [`readme_table`]'s text between the README's `knobs:begin` and `knobs:end` lines).
    #[test]
    fn the_readme_lists_every_knob() {
        let readme = include_str!("../README.md");
        let (Some(begin), Some(end)) = (
            readme.find("<!-- knobs:begin -->\n"),
            readme.find("<!-- knobs:end -->"),
        ) else {
            panic!("the README has no knobs:begin / knobs:end lines");
        };
        let listed = &readme[begin + "<!-- knobs:begin -->\n".len()..end];
        assert_eq!(
            listed,
            readme_table(),
            "the README's knobs, against the declarations"
        );
        assert_eq!(ALL.len(), listed.lines().count() - 2);
    }
}
