//! The positions of an experiment, with the game history that leads from one to the next.
//!
//! The paper searched the 18 positions of one game in game order. When consecutive records
//! of an EPD file are two plies apart (White's move and Black's reply, as in a game), the
//! later position is reached by *playing* those moves from the earlier one, so its key
//! history holds the game and repetitions are seen. Records that do not follow each other
//! start afresh from their FEN. History before the first record does not matter for the
//! Kasparov–Short set: the last capture before it (14…Bxd4) makes earlier positions
//! unrepeatable, and the half-move clock comes from the record.

use std::path::Path;
use transpo_chess::{Epd, Position};

/// The default position set, kept in the repository.
pub const BREUKER18: &str = include_str!("../../data/breuker18.epd");

/// A position to search, with its history.
#[derive(Clone, Debug)]
pub struct GamePosition {
    /// The EPD `id`, or the line number.
    pub id: String,
    /// The position, reached through its game history when there is one.
    pub position: Position,
}

/// Reads an EPD file (`#` lines are comments).
pub fn load(path: Option<&Path>) -> Result<Vec<GamePosition>, String> {
    let text = match path {
        Some(p) => crate::experiment::files::read_input(p)?,
        None => BREUKER18.to_string(),
    };
    let name = path.map_or("breuker18.epd".to_string(), |p| p.display().to_string());
    parse(&text, &name)
}

/// Parses EPD text into positions linked by game history where possible.
pub fn parse(text: &str, name: &str) -> Result<Vec<GamePosition>, String> {
    let mut out: Vec<GamePosition> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let epd = Epd::parse(line).map_err(|e| format!("{name}: line {}: {e}", i + 1))?;
        let id = epd
            .operation("id")
            .and_then(|op| op.operands.first().cloned())
            .unwrap_or_else(|| format!("line {}", i + 1));
        let position = out
            .last()
            .and_then(|prev| two_plies_to(&prev.position, &epd.position))
            .unwrap_or(epd.position);
        out.push(GamePosition { id, position });
    }
    if out.is_empty() {
        return Err(format!("{name}: no positions"));
    }
    Ok(out)
}

/// `from` with two moves played that reach `target`'s position, if there are such moves.
fn two_plies_to(from: &Position, target: &Position) -> Option<Position> {
    for first in from.legal_moves().iter() {
        let mut after_first = from.clone();
        after_first.play(*first).ok()?;
        for second in after_first.legal_moves().iter() {
            let mut after_second = after_first.clone();
            after_second.play(*second).ok()?;
            if after_second.key() == target.key()
                && after_second.board().same_position(target.board())
            {
                return Some(after_second);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eighteen_positions_are_linked_by_the_game() {
        let positions = load(None).expect("the fixture parses");
        assert_eq!(positions.len(), 18);
        assert_eq!(positions[0].id, "KS94 w15");
        assert_eq!(positions[17].id, "KS94 w32");
        // Every position after the first was reached by play: two plies of history each.
        let history = positions[17].position.key_history().count();
        assert!(history >= 34, "history {history}");
        // Position w19 is in check with 3 legal moves (ANCHORS §1).
        let w19 = &positions[4].position;
        assert!(w19.is_check());
        assert_eq!(w19.legal_moves().len(), 3);
    }

    #[test]
    fn unrelated_positions_start_afresh_and_bad_lines_say_where() {
        let text =
            "8/8/8/8/8/8/8/K1k5 w - - 0 1\n# comment\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 id \"two\";\n";
        let positions = parse(text, "t.epd").expect("parses");
        assert_eq!(positions[1].id, "two");
        assert_eq!(
            positions[1].position.key_history().count(),
            positions[0].position.key_history().count()
        );
        assert!(parse("nonsense\n", "t.epd").unwrap_err().contains("line 1"));
        assert!(
            parse("# only a comment\n", "t.epd")
                .unwrap_err()
                .contains("no positions")
        );
    }
}
