//! EPD records: a FEN's first four fields followed by `opcode operands;` operations, such as
//! `bm Kd5; id "WAC.001";`. The common variant that keeps the two clock fields before the
//! operations (as the perft suite does) is accepted too; the position fields are read and
//! checked as in [`crate::fen`], and errors are [`FenError`]s naming the field.

use std::fmt;

use crate::fen::{FenError, FenField, parse_fields};
use crate::position::Position;

/// One EPD operation: an opcode and its operands (quotes removed from string operands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdOperation {
    /// The opcode, such as `bm`, `id` or `D5`.
    pub opcode: String,
    /// The operands, in order.
    pub operands: Vec<String>,
}

/// An EPD record: a position and its operations.
#[derive(Debug, Clone)]
pub struct Epd {
    /// The position (clocks from the record's clock fields or `hmvc`/`fmvn`, else `0 1`).
    pub position: Position,
    /// The operations, in order.
    pub operations: Vec<EpdOperation>,
}

impl Epd {
    /// Parses an EPD line: four FEN fields, optionally the two clock fields, then operations
    /// separated by `;`.
    pub fn parse(text: &str) -> Result<Epd, FenError> {
        let (fields, rest) = split_fields(text, 4);
        if fields.is_empty() {
            return Err(FenError::new(FenField::Text, "empty text"));
        }
        if fields.len() < 4 {
            return Err(FenError::new(
                FenField::Text,
                format!(
                    "{} fields, an EPD record starts with 4 (placement, side to move, \
                     castling, en passant)",
                    fields.len()
                ),
            ));
        }
        // The perft-suite style keeps the FEN clocks before the first operation.
        let (clocks, after_clocks) = split_fields(rest, 2);
        let (mut halfmove, mut fullmove, ops_text) =
            if clocks.len() == 2 && clocks.iter().all(|f| f.bytes().all(|b| b.is_ascii_digit())) {
                (clocks[0].to_string(), clocks[1].to_string(), after_clocks)
            } else {
                ("0".to_string(), "1".to_string(), rest)
            };
        let operations = parse_operations(ops_text)?;
        for op in &operations {
            match (op.opcode.as_str(), op.operands.first()) {
                ("hmvc", Some(value)) => halfmove = value.clone(),
                ("fmvn", Some(value)) => fullmove = value.clone(),
                _ => {}
            }
        }
        let board = parse_fields(&fields, &halfmove, &fullmove)?;
        Ok(Epd {
            position: Position::from_checked_board(board),
            operations,
        })
    }

    /// The first operation with this opcode.
    pub fn operation(&self, opcode: &str) -> Option<&EpdOperation> {
        self.operations.iter().find(|op| op.opcode == opcode)
    }
}

impl fmt::Display for Epd {
    /// The four position fields followed by ` opcode operands;` for each operation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fen = self.position.fen();
        let four: Vec<&str> = fen.split(' ').take(4).collect();
        f.write_str(&four.join(" "))?;
        for op in &self.operations {
            write!(f, " {}", op.opcode)?;
            for operand in &op.operands {
                if operand.is_empty() || operand.contains([' ', ';', '"']) {
                    write!(f, " \"{}\"", operand.replace('"', "'"))?;
                } else {
                    write!(f, " {operand}")?;
                }
            }
            f.write_str(";")?;
        }
        Ok(())
    }
}

/// Splits off up to `n` whitespace-separated fields; returns them and the rest of the text.
fn split_fields(text: &str, n: usize) -> (Vec<&str>, &str) {
    let mut fields = Vec::with_capacity(n);
    let mut rest = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    while fields.len() < n && !rest.is_empty() {
        let end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        fields.push(&rest[..end]);
        rest = rest[end..].trim_start_matches(|c: char| c.is_ascii_whitespace());
    }
    (fields, rest)
}

/// Parses `opcode operand ...;` operations; operands may be double-quoted strings.
fn parse_operations(text: &str) -> Result<Vec<EpdOperation>, FenError> {
    let err = |message: String| FenError::new(FenField::Operations, message);
    let mut operations = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut finish = |tokens: &mut Vec<String>| -> Result<(), FenError> {
        if tokens.is_empty() {
            return Ok(());
        }
        let opcode = tokens.remove(0);
        let valid = opcode
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && opcode
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(err(format!(
                "{opcode:?} is not an opcode (a letter, then letters, digits or '_')"
            )));
        }
        operations.push(EpdOperation {
            opcode,
            operands: std::mem::take(tokens),
        });
        Ok(())
    };
    while let Some(c) = chars.next() {
        match c {
            ';' => finish(&mut tokens)?,
            '"' => {
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some(c) => s.push(c),
                        None => return Err(err("unterminated string operand".to_string())),
                    }
                }
                tokens.push(s);
            }
            c if c.is_whitespace() => {}
            c => {
                let mut s = String::from(c);
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || next == ';' || next == '"' {
                        break;
                    }
                    s.push(next);
                    chars.next();
                }
                tokens.push(s);
            }
        }
    }
    if !tokens.is_empty() {
        // A last operation without its ';' is common enough to accept.
        finish(&mut tokens)?;
    }
    Ok(operations)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epd_with_clocks_and_operations() {
        let epd =
            Epd::parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400")
                .unwrap();
        assert_eq!(epd.operations.len(), 2);
        assert_eq!(epd.operation("D2").unwrap().operands, ["400"]);
        let epd = Epd::parse(r#"8/8/4k3/8/8/4K3/8/8 b - - bm Kd5; id "a b"; hmvc 7;"#).unwrap();
        assert_eq!(epd.position.halfmove_clock(), 7);
        assert_eq!(epd.operation("id").unwrap().operands, ["a b"]);
        assert_eq!(
            epd.to_string(),
            r#"8/8/4k3/8/8/4K3/8/8 b - - bm Kd5; id "a b"; hmvc 7;"#
        );
    }
}
