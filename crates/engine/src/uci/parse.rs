//! Reading the arguments of UCI commands: `go`, `position`, the depths of `perft` and
//! `bench`, file names. Every error names the argument and its range.

use std::time::Duration;

use transpo_chess::Position;

use crate::bench::DEFAULT_DEPTH as DEFAULT_BENCH_DEPTH;
use crate::search::{Limits, MAX_DEPTH};

/// Largest `go mate N`.
pub const MAX_GO_MATE: u32 = 50;

/// The words of `go` that start a parameter (and so end a `searchmoves` list).
const GO_WORDS: [&str; 12] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "nodes",
    "depth",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

/// What a `go` line asks for, as [`parse_go`] reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoRequest {
    /// The limits of the parameters that were well formed and in range
    /// ([`Limits::searchmoves`] empty: the moves are read against the position later).
    pub limits: Limits,
    /// The words after `searchmoves`, up to the next parameter, as written (`None` without
    /// `searchmoves`).
    pub searchmoves: Option<Vec<String>>,
    /// One message per parameter that was unknown, had no number, or a number out of its
    /// range. When there is any, the line must still be answered with `bestmove`, from a
    /// short search (see [`GoRequest::limits_to_search`]).
    pub errors: Vec<String>,
}

impl GoRequest {
    /// The limits to search with: the line's, or, when it had errors, a depth-1 search
    /// (neither `infinite` nor `ponder`: answered at once, without a `stop`), so that a
    /// malformed `go` never leaves a GUI waiting and never turns into a long search.
    pub fn limits_to_search(&self) -> Limits {
        if self.errors.is_empty() {
            self.limits.clone()
        } else {
            Limits::depth(1)
        }
    }
}

/// Parses the arguments of `go`. Never fails: every problem is one message in
/// [`GoRequest::errors`] and reading goes on with the next word.
pub fn parse_go(args: &[&str]) -> GoRequest {
    let mut go = GoRequest::default();
    let limits = &mut go.limits;
    let mut words = args.iter().peekable();
    while let Some(&word) = words.next() {
        if word == "searchmoves" {
            let named = go.searchmoves.get_or_insert_with(Vec::new);
            while let Some(mv) = words.next_if(|next| !GO_WORDS.contains(next)) {
                named.push(mv.to_string());
            }
            continue;
        }
        if !GO_WORDS.contains(&word) {
            go.errors.push(format!("unknown \"go\" parameter {word:?}"));
            continue;
        }
        if word == "infinite" || word == "ponder" {
            match word {
                "infinite" => limits.infinite = true,
                _ => limits.ponder = true,
            }
            continue;
        }
        // A parameter word after a parameter is no number: it is read next.
        let text = words.next_if(|next| !GO_WORDS.contains(next)).copied();
        if let Err(e) = number_after(word, text).and_then(|n| set_limit(limits, word, n)) {
            go.errors.push(e);
        }
    }
    go
}

/// The number after the `go` parameter `word`, with the text it was read from (for the
/// error that rejects it): a whole number from −2⁶³ to 2⁶³ − 1.
fn number_after<'t>(word: &str, text: Option<&'t str>) -> Result<(i64, &'t str), String> {
    let text = text.ok_or(format!("\"go {word}\" needs a number"))?;
    text.parse::<i64>().map(|n| (n, text)).map_err(|_| {
        format!(
            "\"go {word}\": {text:?} is not a whole number from {} to {}",
            i64::MIN,
            i64::MAX
        )
    })
}

/// Sets the limit of the numeric `go` parameter `word` to `n` (read from `text`); an error
/// that quotes `text` as typed if `n` is out of its range (the limit is then left unset).
/// Negative clock times (some GUIs send them when flagging) and a negative `movestogo` are
/// read as 0.
fn set_limit(limits: &mut Limits, word: &str, (n, text): (i64, &str)) -> Result<(), String> {
    let clock = |n: i64| Some(Duration::from_millis(n.max(0).unsigned_abs()));
    match word {
        "wtime" => limits.wtime = clock(n),
        "btime" => limits.btime = clock(n),
        "winc" => limits.winc = clock(n),
        "binc" => limits.binc = clock(n),
        "movestogo" => limits.movestogo = Some(n.clamp(0, i64::from(u32::MAX)) as u32),
        "movetime" => limits.movetime = clock(n),
        "nodes" if n < 1 => {
            return Err(format!(
                "\"go nodes {text}\": nodes must be 1 to {}",
                i64::MAX
            ));
        }
        "nodes" => limits.nodes = Some(n.unsigned_abs()),
        "depth" => {
            let range = format!("depth must be 1 to {MAX_DEPTH}");
            limits.depth = Some(one_to(word, (n, text), MAX_DEPTH, &range)?);
        }
        "mate" => {
            let range = format!("must be 1 to {MAX_GO_MATE} moves");
            limits.mate = Some(one_to(word, (n, text), MAX_GO_MATE, &range)?);
        }
        other => return Err(format!("unknown \"go\" parameter {other:?}")),
    }
    Ok(())
}

/// `n` if it is 1 to `max`; otherwise the error `"go <word> <text>": <range>`, `text` as
/// the user typed it.
fn one_to(word: &str, (n, text): (i64, &str), max: u32, range: &str) -> Result<u32, String> {
    match u32::try_from(n) {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("\"go {word} {text}\": {range}")),
    }
}

/// Reads `position startpos|fen <FEN> [moves ...]` (the words after `position`).
pub(super) fn parse_position(args: &[&str]) -> Result<Position, String> {
    let moves_at = args.iter().position(|&word| word == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut position = match setup.split_first() {
        Some((&"startpos", [])) => Position::startpos(),
        Some((&"startpos", extra)) => {
            return Err(format!(
                "unexpected {:?} after \"position startpos\"",
                extra.join(" ")
            ));
        }
        Some((&"fen", fields)) => {
            Position::from_fen(&fields.join(" ")).map_err(|e| e.to_string())?
        }
        Some((other, _)) => {
            return Err(format!(
                "\"position\" needs \"startpos\" or \"fen\", got {other:?}"
            ));
        }
        None => return Err("\"position\" needs \"startpos\" or \"fen\"".to_string()),
    };
    for (index, text) in moves.iter().enumerate() {
        let mv = position
            .parse_uci_move(text)
            .map_err(|e| format!("move {} of the list: {e}", index + 1))?;
        position
            .play(mv)
            .map_err(|e| format!("move {} of the list: {e}", index + 1))?;
    }
    Ok(position)
}

/// Reads `perft <depth>` (the words after `perft`), a depth from 0 to `max`.
pub(super) fn perft_depth(args: &[&str], max: u32) -> Result<u32, String> {
    match args {
        [text] => match text.parse::<u32>() {
            Ok(depth) if depth <= max => Ok(depth),
            _ => Err(format!(
                "perft depth {text:?} is not a whole number from 0 to {max}"
            )),
        },
        _ => Err(format!("usage: perft <depth>, depth 0 to {max}")),
    }
}

/// Reads `bench [depth]` (the words after `bench`), a depth from 1 to `max`; the bench's
/// default depth (at most `max`) when none is given.
pub(super) fn bench_depth(args: &[&str], max: u32) -> Result<u32, String> {
    match args {
        [] => Ok(DEFAULT_BENCH_DEPTH.min(max)),
        [text] => match text.parse::<u32>() {
            Ok(d) if (1..=max).contains(&d) => Ok(d),
            _ => Err(format!(
                "bench depth {text:?} is not a whole number from 1 to {max}"
            )),
        },
        _ => Err(format!("usage: bench [depth], depth 1 to {max}")),
    }
}

/// The file name of `savehash` or `loadhash`: all the words after the command.
pub(super) fn file_argument(args: &[&str], command: &str) -> Result<String, String> {
    if args.is_empty() {
        Err(format!("usage: {command} <file>"))
    } else {
        Ok(args.join(" "))
    }
}
