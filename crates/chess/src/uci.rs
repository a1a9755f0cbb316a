//! The UCI loop of the `transpo-chess` binary.
//!
//! Kept apart from `main.rs` and from I/O handles so that it can be driven by tests and
//! extended with `go`/search commands without touching the rest: [`UciSession::handle_line`]
//! takes one line and a writer. A malformed or unknown line is answered with
//! `info string error: ...` and the loop goes on, as GUIs expect.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `position startpos|fen <FEN> [moves ...]`,
//! `d` (board, `Fen:` and `Key:` lines), `perft N` (divide), `quit`.

use std::io::{self, BufRead, Write};

use crate::perft;
use crate::position::Position;

/// Deepest perft the loop accepts, so that a typo does not start a search of years.
pub const MAX_PERFT_DEPTH: u32 = 12;

/// Whether the loop should go on after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// The state of one UCI conversation: for now, the current position.
#[derive(Debug, Clone, Default)]
pub struct UciSession {
    position: Position,
}

impl UciSession {
    /// A session at the starting position.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Handles one input line, writing any answer to `out`.
    pub fn handle_line(&mut self, line: &str, out: &mut impl Write) -> io::Result<Flow> {
        let mut words = line.split_ascii_whitespace();
        let Some(command) = words.next() else {
            return Ok(Flow::Continue);
        };
        let rest: Vec<&str> = words.collect();
        let result = match command {
            "uci" => {
                writeln!(out, "id name transpo-chess {}", env!("CARGO_PKG_VERSION"))?;
                writeln!(out, "id author the transpo developers")?;
                writeln!(out, "uciok")?;
                Ok(())
            }
            "isready" => {
                writeln!(out, "readyok")?;
                Ok(())
            }
            "ucinewgame" => {
                self.position = Position::startpos();
                Ok(())
            }
            "position" => self.set_position(&rest),
            "d" => {
                writeln!(out, "{}", self.position)?;
                Ok(())
            }
            "perft" => self.perft(&rest, out)?,
            "quit" => return Ok(Flow::Quit),
            other => Err(format!("unknown command {other:?}")),
        };
        if let Err(message) = result {
            writeln!(out, "info string error: {message}")?;
        }
        out.flush()?;
        Ok(Flow::Continue)
    }

    /// `position startpos|fen <FEN> [moves ...]`; on any error the position is unchanged.
    fn set_position(&mut self, args: &[&str]) -> Result<(), String> {
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
            position.play_unchecked(mv);
        }
        self.position = position;
        Ok(())
    }

    /// `perft N`: per-move counts, a blank line, then `Nodes searched: N`.
    fn perft(&mut self, args: &[&str], out: &mut impl Write) -> io::Result<Result<(), String>> {
        let depth = match args {
            [text] => match text.parse::<u32>() {
                Ok(depth) if depth <= MAX_PERFT_DEPTH => depth,
                _ => {
                    return Ok(Err(format!(
                        "perft depth {text:?} is not a whole number from 0 to {MAX_PERFT_DEPTH}"
                    )));
                }
            },
            _ => return Ok(Err("usage: perft <depth>".to_string())),
        };
        write_divide(&mut self.position, depth, out)?;
        Ok(Ok(()))
    }
}

/// Writes Stockfish-style perft output: `move: count` lines, a blank line, `Nodes searched`.
pub fn write_divide(pos: &mut Position, depth: u32, out: &mut impl Write) -> io::Result<()> {
    let total = if depth == 0 {
        1
    } else {
        let counts = perft::divide(pos, depth);
        for (uci, nodes) in &counts {
            writeln!(out, "{uci}: {nodes}")?;
        }
        counts.iter().map(|(_, nodes)| nodes).sum()
    };
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    Ok(())
}

/// Runs the loop until `quit` or the end of input.
pub fn run(input: impl BufRead, mut out: impl Write) -> io::Result<()> {
    let mut session = UciSession::new();
    for line in input.lines() {
        let line = match line {
            Ok(line) => line,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                writeln!(out, "info string error: input line is not UTF-8")?;
                continue;
            }
            Err(e) => return Err(e),
        };
        if session.handle_line(&line, &mut out)? == Flow::Quit {
            break;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_output(lines: &[&str]) -> String {
        let mut session = UciSession::new();
        let mut out = Vec::new();
        for line in lines {
            session.handle_line(line, &mut out).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn position_moves_and_d() {
        let out = session_output(&["position startpos moves e2e4 d7d5 e4e5 f7f5", "d"]);
        assert!(out.contains("Key: 22a48b5a8e47ff78"), "{out}");
    }

    #[test]
    fn errors_keep_the_old_position() {
        let out = session_output(&[
            "position startpos moves e2e4",
            "position startpos moves e2e4 e2e4",
            "position fen 8/8/8 w - - 0 1",
            "frobnicate",
            "perft x",
            "d",
        ]);
        assert_eq!(out.matches("info string error:").count(), 4, "{out}");
        assert!(out.contains("Key: 823c9b50fd114196"), "{out}");
    }

    #[test]
    fn perft_command() {
        let out = session_output(&["perft 2"]);
        assert!(out.ends_with("\nNodes searched: 400\n"), "{out}");
        assert_eq!(out.lines().count(), 22);
    }
}
