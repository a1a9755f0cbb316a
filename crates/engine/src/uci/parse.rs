//! Reading the arguments of UCI commands: `go`, `position`, the depths of `perft` and
//! `bench`, file names. Every error names the argument and its range.

use std::time::Duration;

use transpo_chess::Position;

use crate::bench::DEFAULT_DEPTH as DEFAULT_BENCH_DEPTH;
use crate::search::{Limits, MAX_DEPTH};

/// Largest `go mate N`.
pub const MAX_GO_MATE: u32 = 50;

/// Parses the arguments of `go` into [`Limits`].
pub fn parse_go(args: &[&str]) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let mut words = args.iter();
    while let Some(&word) = words.next() {
        let mut value = || -> Result<u64, String> {
            let text = words
                .next()
                .ok_or(format!("\"go {word}\" needs a number"))?;
            // Some GUIs send negative clock times when flagging; read them as 0.
            text.parse::<i64>().map(|n| n.max(0) as u64).map_err(|_| {
                format!(
                    "\"go {word}\": {text:?} is not a whole number from {} to {}",
                    i64::MIN,
                    i64::MAX
                )
            })
        };
        let ms = |n: u64| Some(Duration::from_millis(n));
        match word {
            "wtime" => limits.wtime = ms(value()?),
            "btime" => limits.btime = ms(value()?),
            "winc" => limits.winc = ms(value()?),
            "binc" => limits.binc = ms(value()?),
            "movestogo" => limits.movestogo = Some(value()?.min(u64::from(u32::MAX)) as u32),
            "movetime" => limits.movetime = ms(value()?),
            "nodes" => {
                let nodes = value()?;
                if nodes == 0 {
                    return Err(format!("\"go nodes 0\": nodes must be 1 to {}", i64::MAX));
                }
                limits.nodes = Some(nodes);
            }
            "depth" => {
                let range = format!("depth must be 1 to {MAX_DEPTH}");
                limits.depth = Some(one_to(word, value()?, MAX_DEPTH, &range)?);
            }
            "mate" => {
                let range = format!("must be 1 to {MAX_GO_MATE} moves");
                limits.mate = Some(one_to(word, value()?, MAX_GO_MATE, &range)?);
            }
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => return Err("\"go searchmoves\" is not supported".into()),
            other => return Err(format!("unknown \"go\" parameter {other:?}")),
        }
    }
    Ok(limits)
}

/// `n` if it is 1 to `max`; otherwise the error `"go <word> <n>": <range>`.
fn one_to(word: &str, n: u64, max: u32, range: &str) -> Result<u32, String> {
    if n == 0 || n > u64::from(max) {
        return Err(format!("\"go {word} {n}\": {range}"));
    }
    Ok(n as u32)
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
