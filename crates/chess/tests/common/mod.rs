//! Helpers shared by the integration tests: reading perft records and playing moves.

#![allow(dead_code)]

use transpo_chess::{Epd, Position};

/// A position with its expected perft counts as `(depth, nodes)`.
pub struct PerftCase {
    pub line: usize,
    pub fen: String,
    pub position: Position,
    pub counts: Vec<(u32, u64)>,
}

/// Parses `FEN ;D1 n ;D2 n ...` lines; `#` comments and blank lines are skipped.
pub fn read_perft_cases(text: &str) -> Vec<PerftCase> {
    let mut cases = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let epd = Epd::parse(line).unwrap_or_else(|e| panic!("line {}: {e}", index + 1));
        let counts = epd
            .operations
            .iter()
            .map(|op| {
                let depth = op
                    .opcode
                    .strip_prefix('D')
                    .and_then(|d| d.parse().ok())
                    .unwrap_or_else(|| panic!("line {}: bad opcode {}", index + 1, op.opcode));
                let nodes = op
                    .operands
                    .first()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("line {}: bad count", index + 1));
                (depth, nodes)
            })
            .collect();
        cases.push(PerftCase {
            line: index + 1,
            fen: line
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string(),
            position: epd.position,
            counts,
        });
    }
    cases
}

/// The start position after a list of UCI moves (test data: a bad move is a test bug).
pub fn play(moves: &str) -> Position {
    let mut pos = Position::startpos();
    for text in moves.split_whitespace() {
        let mv = pos.parse_uci_move(text).expect("test moves are legal");
        pos.play(mv).expect("test moves are legal");
    }
    pos
}
