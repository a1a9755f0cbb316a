//! The engine's UCI options: the limits a session keeps to, the options' values, the `uci`
//! answer that declares them, and `setoption` lines read and checked against the limits
//! (the session applies them: [`OptionChange`]).

use std::io::{self, Write};

use transpo::scheme::Scheme;
use transpo_chess::perft;

use crate::search::{MAX_DEPTH, Profile, UnknownProfile};

/// Deepest perft the loop accepts (the same as the binary's `perft`): the recursion stays
/// shallow, and anything deeper would take years anyway (it can still be stopped).
pub const MAX_PERFT_DEPTH: u32 = perft::MAX_DEPTH;
/// Largest `Move Overhead`, milliseconds.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;
/// Default table size in MiB.
pub const DEFAULT_HASH_MIB: u64 = 16;
/// Largest table size accepted, in MiB (64 GiB; the machine may still refuse it).
pub const MAX_HASH_MIB: u64 = 65_536;
/// Most search threads accepted.
pub const MAX_THREADS: usize = 256;

/// What a session may use at most: the engine's own limits by default, much less for a fuzz
/// target ([`SessionLimits::fuzz`]) or a shared server. A value beyond a limit is rejected
/// like any out-of-range value (`info string error: ...`), except `go` node counts, which
/// are capped silently so that any `go` ends after at most [`SessionLimits::max_nodes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionLimits {
    /// Largest `Hash`, MiB (also the default table's size cap).
    pub max_hash_mib: u64,
    /// Most `Threads`.
    pub max_threads: usize,
    /// Most nodes one `go` searches (`None`: no cap).
    pub max_nodes: Option<u64>,
    /// Deepest `perft` / `go perft`.
    pub max_perft_depth: u32,
    /// Deepest `bench`.
    pub max_bench_depth: u32,
    /// Whether `BookFile`, `HashFile`, `savehash` and `loadhash` may touch files.
    pub files: bool,
}

impl Default for SessionLimits {
    /// The engine's own limits: everything the UCI front accepts.
    fn default() -> Self {
        SessionLimits {
            max_hash_mib: MAX_HASH_MIB,
            max_threads: MAX_THREADS,
            max_nodes: None,
            max_perft_depth: MAX_PERFT_DEPTH,
            max_bench_depth: MAX_DEPTH,
            files: true,
        }
    }
}

impl SessionLimits {
    /// Tiny limits for fuzzing: 1 MiB table, 2 threads, 2,000 nodes per search, perft depth
    /// 3, bench depth 1, no files. Every command then ends within milliseconds.
    pub fn fuzz() -> Self {
        SessionLimits {
            max_hash_mib: 1,
            max_threads: 2,
            max_nodes: Some(2_000),
            max_perft_depth: 3,
            max_bench_depth: 1,
            files: false,
        }
    }
}

/// The engine's options, as `setoption` sets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `Hash`, MiB; 0 = no table.
    pub hash_mib: u64,
    /// `Threads`.
    pub threads: usize,
    /// `Replacement`: the table's scheme.
    pub scheme: Scheme,
    /// `Profile`.
    pub profile: Profile,
    /// `Move Overhead`, milliseconds.
    pub move_overhead_ms: u64,
    /// `OwnBook`.
    pub own_book: bool,
    /// `BookFile` (empty: none).
    pub book_file: String,
    /// `NeverClearHash`: `ucinewgame` keeps the table.
    pub never_clear_hash: bool,
    /// `HashFile`: where `SaveHashtoFile` and `LoadHashfromFile` save and load the table
    /// (empty: none set).
    pub hash_file: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: DEFAULT_HASH_MIB,
            threads: 1,
            scheme: crate::search::ENGINE_SCHEME,
            profile: Profile::Full,
            move_overhead_ms: 10,
            own_book: false,
            book_file: String::new(),
            never_clear_hash: false,
            hash_file: String::new(),
        }
    }
}

/// The schemes the `Replacement` option offers.
const SCHEMES: [&str; 12] = [
    "keep-deep-8",
    "depth-age-8",
    "depth-age-4",
    "priority",
    "deep",
    "new",
    "old",
    "big1",
    "bigall",
    "twodeep",
    "twobig1",
    "depth-age-2",
];

/// The `uci` command's answer: the engine's name and its options within `limits`.
pub(super) fn write_uci_answer(out: &mut impl Write, limits: &SessionLimits) -> io::Result<()> {
    writeln!(out, "id name transpo-chess {}", env!("CARGO_PKG_VERSION"))?;
    writeln!(out, "id author the transpo developers")?;
    writeln!(
        out,
        "option name Hash type spin default {} min 0 max {}",
        DEFAULT_HASH_MIB.min(limits.max_hash_mib),
        limits.max_hash_mib
    )?;
    writeln!(
        out,
        "option name Threads type spin default 1 min 1 max {}",
        limits.max_threads
    )?;
    writeln!(out, "option name Clear Hash type button")?;
    let vars: String = SCHEMES.iter().map(|s| format!(" var {s}")).collect();
    writeln!(
        out,
        "option name Replacement type combo default {}{vars}",
        Options::default().scheme
    )?;
    writeln!(
        out,
        "option name Profile type combo default full var full var paper"
    )?;
    writeln!(
        out,
        "option name Move Overhead type spin default 10 min 0 max {MAX_MOVE_OVERHEAD_MS}"
    )?;
    writeln!(out, "option name Ponder type check default false")?;
    writeln!(out, "option name OwnBook type check default false")?;
    writeln!(out, "option name BookFile type string default <empty>")?;
    writeln!(out, "option name NeverClearHash type check default false")?;
    writeln!(out, "option name HashFile type string default <empty>")?;
    writeln!(out, "option name SaveHashtoFile type button")?;
    writeln!(out, "option name LoadHashfromFile type button")?;
    writeln!(out, "uciok")
}

/// One `setoption` line, read and checked against the session's limits: what is left to do
/// is the session's (stopping the search, making a table, opening a book).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum OptionChange {
    /// `Hash`, MiB (0: no table).
    Hash(u64),
    /// `Threads`.
    Threads(usize),
    /// `Clear Hash`.
    ClearHash,
    /// `Replacement`.
    Replacement(Scheme),
    /// `Profile`.
    Profile(Profile),
    /// `Move Overhead`, milliseconds.
    MoveOverhead(u64),
    /// `OwnBook`.
    OwnBook(bool),
    /// `BookFile`: a path, or empty or `<empty>` for none (files are allowed when a path is
    /// given).
    BookFile(String),
    /// `Ponder`: well formed, and nothing to do (pondering is driven by `go ponder`).
    Ponder,
    /// `NeverClearHash`.
    NeverClearHash(bool),
    /// `HashFile`: a path, or empty or `<empty>` for none (files are allowed when a path is
    /// given).
    HashFile(String),
    /// `SaveHashtoFile`: save the table to `HashFile`.
    SaveHashToFile,
    /// `LoadHashfromFile`: load the table from `HashFile`.
    LoadHashFromFile,
}

impl OptionChange {
    /// Reads `setoption name <NAME> [value <VALUE>]` (the words after `setoption`).
    pub(super) fn parse(args: &[&str], limits: &SessionLimits) -> Result<Self, String> {
        let usage = "usage: setoption name <NAME> [value <VALUE>]";
        let (name, value) = match args.split_first() {
            Some((&"name", rest)) => match rest.iter().position(|&w| w == "value") {
                Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
                None => (rest.join(" "), None),
            },
            _ => return Err(usage.to_string()),
        };
        if name.is_empty() {
            return Err(usage.to_string());
        }
        let value_of = |what: &str| {
            value
                .clone()
                .filter(|v| !v.is_empty() || what == "BookFile" || what == "HashFile")
                .ok_or(format!("option {what} needs a value"))
        };
        let number = |what: &str, min: u64, max: u64| -> Result<u64, String> {
            let text = value_of(what)?;
            text.parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or(format!(
                    "option {what}: {text:?} is not a whole number from {min} to {max}"
                ))
        };
        let check = |what: &str| -> Result<bool, String> {
            match value_of(what)?.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(format!("option {what}: {other:?} is not true or false")),
            }
        };
        let file_value = |what: &str| -> Result<String, String> {
            let path = value_of(what)?;
            if !is_no_file(&path) && !limits.files {
                return Err(format!("option {what}: files are disabled in this session"));
            }
            Ok(path)
        };
        Ok(match name.to_ascii_lowercase().as_str() {
            "hash" => OptionChange::Hash(number("Hash", 0, limits.max_hash_mib)?),
            "threads" => {
                OptionChange::Threads(number("Threads", 1, limits.max_threads as u64)? as usize)
            }
            "clear hash" => OptionChange::ClearHash,
            "replacement" => OptionChange::Replacement(
                value_of("Replacement")?
                    .parse()
                    .map_err(|e: transpo::scheme::UnknownScheme| e.to_string())?,
            ),
            "profile" => OptionChange::Profile(
                value_of("Profile")?
                    .parse()
                    .map_err(|e: UnknownProfile| e.to_string())?,
            ),
            "move overhead" => {
                OptionChange::MoveOverhead(number("Move Overhead", 0, MAX_MOVE_OVERHEAD_MS)?)
            }
            "ownbook" => OptionChange::OwnBook(check("OwnBook")?),
            "bookfile" => OptionChange::BookFile(file_value("BookFile")?),
            "neverclearhash" => OptionChange::NeverClearHash(check("NeverClearHash")?),
            "hashfile" => OptionChange::HashFile(file_value("HashFile")?),
            "savehashtofile" => OptionChange::SaveHashToFile,
            "loadhashfromfile" => OptionChange::LoadHashFromFile,
            "ponder" => {
                check("Ponder")?;
                OptionChange::Ponder
            }
            _ => return Err(format!("unknown option {name:?}")),
        })
    }
}

/// Whether a `BookFile` or `HashFile` value names no file: empty or `<empty>`.
pub(super) fn is_no_file(path: &str) -> bool {
    path.is_empty() || path == "<empty>"
}
