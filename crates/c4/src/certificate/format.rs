//! The certificate's file: what [`Certificate::to_text`] writes and [`Certificate::read`]
//! reads back, as hostile input (a size cap, one form for every field, each line's own check
//! and the file's checksum, counts that size nothing).
//!
//! ```text
//! # transpo-c4 certificate v1 board 9x4 root - solve strong depth 6 score -1 positions 81234567 nodes 57 leaves 512 checksum 0123456789abcdef
//! node - - -1 123456789 1a2b3c4d
//! node 1 1 - 5 5e6f7a8b
//! leaf 1555 -2 -1 - -1 123456 9c0d1e2f
//! ```
//!
//! `node MOVES LO HI COLUMNS CHECK`, `leaf MOVES ALPHA BETA LO HI NODES CHECK`: `-` is the
//! empty board's move sequence and a missing bound; columns are written as in a move
//! sequence; `CHECK` is the low 32 bits of FNV-1a over the line before it, and the header's
//! checksum FNV-1a over its fields and every line.

use super::{Bound, Certificate, Leaf, Node, strength_word};
use std::fmt;
use std::io::BufRead;
use std::path::Path;
use transpo_connect4::board::Board;
use transpo_connect4::book::fnv1a;
use transpo_connect4::position::{EMPTY_BOARD, column_char, column_from_char};
use transpo_connect4::score::{Strength, Window};
use transpo_files::{Line, Lines, TEXT_LINE_MAX};

/// The certificate's file in its directory.
pub const CERTIFICATE_FILE: &str = "certificate.txt";
/// The first words of a certificate's header.
const MAGIC: &str = "# transpo-c4 certificate v1";
/// The largest certificate read: 1 GiB.
pub const MAX_FILE_BYTES: u64 = 1 << 30;
/// The most nodes, and the most leaves, a certificate may hold: 2^24.
pub const MAX_RECORDS: usize = 1 << 24;

/// Why a certificate could not be read, or failed a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertError {
    /// It cannot be read or is not a certificate's text (exit status 2).
    Malformed(String),
    /// It reads, but fails a check: a checksum, a count, a step of the tree, a leaf (exit
    /// status 1). Each failure is one line.
    Failed(Vec<String>),
}

impl CertError {
    /// One failed check.
    pub fn failed(message: impl fmt::Display) -> Self {
        CertError::Failed(vec![message.to_string()])
    }
}

impl fmt::Display for CertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CertError::Malformed(m) => write!(f, "{m}"),
            CertError::Failed(all) => write!(f, "{}", all.join("\n")),
        }
    }
}

/// A move sequence as written: `-` for the empty board.
fn moves_text(moves: &str) -> &str {
    if moves.is_empty() { EMPTY_BOARD } else { moves }
}

/// A bound's side as written: the number or `-`.
fn side_text(side: Option<i32>) -> String {
    side.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// A line's check: the low 32 bits of FNV-1a over its head.
fn check_of(head: &str) -> String {
    format!("{:08x}", fnv1a(head.as_bytes()) as u32)
}

impl Node {
    /// Its line, check included.
    pub fn line(&self) -> String {
        let columns: String = self.columns.iter().map(|&c| column_char(c)).collect();
        let head = format!(
            "node {} {} {} {}",
            moves_text(&self.moves),
            side_text(self.bound.lo),
            side_text(self.bound.hi),
            if columns.is_empty() { "-" } else { &columns }
        );
        let check = check_of(&head);
        format!("{head} {check}")
    }
}

impl Leaf {
    /// Its line, check included.
    pub fn line(&self) -> String {
        let head = format!(
            "leaf {} {} {} {} {} {}",
            moves_text(&self.moves),
            self.window.alpha,
            self.window.beta,
            side_text(self.bound.lo),
            side_text(self.bound.hi),
            self.nodes
        );
        let check = check_of(&head);
        format!("{head} {check}")
    }
}

impl Certificate {
    /// The header's fields but the checksum.
    fn describe(&self) -> String {
        format!(
            "board {} root {} solve {} depth {} score {} positions {} nodes {} leaves {}",
            self.board,
            moves_text(&self.root),
            strength_word(self.strength),
            self.depth,
            self.score,
            self.positions,
            self.nodes.len(),
            self.leaves.len()
        )
    }

    /// The checksum of the whole certificate: FNV-1a over the header's fields and every line.
    pub fn checksum(&self) -> u64 {
        let mut text = self.describe();
        for line in self.body() {
            text.push('\n');
            text.push_str(&line);
        }
        fnv1a(text.as_bytes())
    }

    /// Every line after the header.
    fn body(&self) -> impl Iterator<Item = String> + '_ {
        (self.nodes.iter().map(Node::line)).chain(self.leaves.iter().map(Leaf::line))
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{MAGIC} {} checksum {:016x}\n",
            self.describe(),
            self.checksum()
        );
        for line in self.body() {
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// Writes it to `dir`/[`CERTIFICATE_FILE`], `dir` made if missing, atomically; returns
    /// the path.
    pub fn write_in(&self, dir: &Path) -> std::io::Result<std::path::PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(CERTIFICATE_FILE);
        super::write_text(&path, &self.to_text())?;
        Ok(path)
    }

    /// The certificate in `dir` (a regular file, at most [`MAX_FILE_BYTES`]).
    pub fn load(dir: &Path) -> Result<Certificate, CertError> {
        let path = dir.join(CERTIFICATE_FILE);
        let bad = |e: &dyn fmt::Display| CertError::Malformed(format!("{}: {e}", path.display()));
        let file = transpo_files::open_regular(&path).map_err(|e| bad(&e))?;
        Certificate::read(std::io::BufReader::new(file)).map_err(|e| match e {
            CertError::Malformed(m) => bad(&m),
            failed => failed,
        })
    }

    /// The board a certificate in `dir` is of, from its header alone.
    pub fn board_in(dir: &Path) -> Result<Board, CertError> {
        let path = dir.join(CERTIFICATE_FILE);
        let bad = |e: &dyn fmt::Display| CertError::Malformed(format!("{}: {e}", path.display()));
        let file = transpo_files::open_regular(&path).map_err(|e| bad(&e))?;
        let mut lines = Lines::new(std::io::BufReader::new(file), TEXT_LINE_MAX);
        let header = text_of(lines.next()).map_err(|e| bad(&e))?;
        parse_header(&header).map(|h| h.board).map_err(|e| bad(&e))
    }

    /// Parses a certificate's text ([`Certificate::read`]).
    pub fn parse(text: &str) -> Result<Certificate, CertError> {
        Certificate::read(text.as_bytes())
    }

    /// Reads a certificate written by [`Certificate::to_text`]: malformed if over
    /// [`MAX_FILE_BYTES`], a line over 4 KiB or not UTF-8, a header or line not in the one
    /// form the writer uses, a number out of the board's range, more than [`MAX_RECORDS`]
    /// nodes or leaves; failed if a line's check, the counts or the checksum do not match.
    pub fn read(input: impl BufRead) -> Result<Certificate, CertError> {
        let mut lines = Lines::new(input.take(MAX_FILE_BYTES + 1), TEXT_LINE_MAX);
        let header_line = text_of(lines.next()).map_err(CertError::Malformed)?;
        let header = parse_header(&header_line).map_err(CertError::Malformed)?;
        let mut cert = Certificate {
            board: header.board,
            root: header.root.clone(),
            strength: header.strength,
            depth: header.depth,
            score: header.score,
            positions: header.positions,
            nodes: Vec::new(),
            leaves: Vec::new(),
        };
        let mut bytes = header_line.len() as u64 + 1;
        let mut failures = Vec::new();
        for line in lines {
            let number = line.as_ref().map_or(0, |l| l.number);
            let text = text_of(Some(line)).map_err(CertError::Malformed)?;
            bytes += text.len() as u64 + 1;
            if bytes > MAX_FILE_BYTES {
                return Err(CertError::Malformed(format!(
                    "over {MAX_FILE_BYTES} bytes: no certificate is that big"
                )));
            }
            let at = |m: String| format!("line {number}: {m}");
            match parse_record(&text, header.board).map_err(|m| CertError::Malformed(at(m)))? {
                (Record::Node(node), check) => {
                    check_line(&node.line(), &text, check, &mut failures, number);
                    push_capped(&mut cert.nodes, node, "nodes").map_err(CertError::Malformed)?;
                }
                (Record::Leaf(leaf), check) => {
                    check_line(&leaf.line(), &text, check, &mut failures, number);
                    push_capped(&mut cert.leaves, leaf, "leaves").map_err(CertError::Malformed)?;
                }
            }
        }
        if (cert.nodes.len(), cert.leaves.len()) != (header.nodes, header.leaves) {
            failures.push(format!(
                "the header says {} nodes and {} leaves, the file holds {} and {}: lines were \
                 added or dropped",
                header.nodes,
                header.leaves,
                cert.nodes.len(),
                cert.leaves.len()
            ));
        } else if failures.is_empty() && format!("{:016x}", cert.checksum()) != header.checksum {
            failures.push(
                "checksum mismatch: the header or some line was changed since it was written"
                    .to_string(),
            );
        }
        if failures.is_empty() {
            Ok(cert)
        } else {
            Err(CertError::Failed(failures))
        }
    }
}

/// Appends `item`, refusing past [`MAX_RECORDS`].
fn push_capped<T>(all: &mut Vec<T>, item: T, what: &str) -> Result<(), String> {
    if all.len() >= MAX_RECORDS {
        return Err(format!(
            "more than {MAX_RECORDS} {what}: no certificate is that big"
        ));
    }
    all.push(item);
    Ok(())
}

/// Records a failure if `text` is not `written` (the line as the writer would write it):
/// the head in the writer's form but another check is a damaged line (the head was parsed
/// to the very same fields, so only the check differs).
fn check_line(written: &str, text: &str, check: &str, failures: &mut Vec<String>, number: usize) {
    if written != text {
        failures.push(format!(
            "line {number}: its check {check} does not match: the line was changed"
        ));
    }
}

/// The text of a line read by [`Lines`], or why there is none.
fn text_of(line: Option<std::io::Result<Line>>) -> Result<String, String> {
    match line {
        None => Err("empty: not a certificate".into()),
        Some(Err(e)) => Err(format!("read error: {e}")),
        Some(Ok(Line { number, text })) => text.map_err(|e| format!("line {number}: {e}")),
    }
}

/// The header's fields.
struct Header {
    board: Board,
    root: String,
    strength: Strength,
    depth: u32,
    score: i32,
    positions: u64,
    nodes: usize,
    leaves: usize,
    checksum: String,
}

/// Parses a header, in the writer's one form.
fn parse_header(line: &str) -> Result<Header, String> {
    let rest = line
        .strip_prefix(MAGIC)
        .and_then(|r| r.strip_prefix(' '))
        .ok_or("not a transpo-c4 certificate (no header)")?;
    let words: Vec<&str> = rest.split(' ').take(19).collect();
    let keys = [
        "board",
        "root",
        "solve",
        "depth",
        "score",
        "positions",
        "nodes",
        "leaves",
        "checksum",
    ];
    if words.len() != 2 * keys.len() || keys.iter().enumerate().any(|(i, k)| words[2 * i] != *k) {
        return Err(format!("a malformed header: expected {}", keys.join(" … ")));
    }
    let value = |i: usize| words[2 * i + 1];
    let number = |i: usize| -> Result<u64, String> {
        let v: u64 = value(i)
            .parse()
            .map_err(|_| format!("header: {} {:?} is no number", keys[i], value(i)))?;
        (v.to_string() == value(i)).then_some(v).ok_or_else(|| {
            format!(
                "header: {} {:?}: not in the writer's form",
                keys[i],
                value(i)
            )
        })
    };
    let board: Board = value(0).parse().map_err(|e| format!("header: {e}"))?;
    let root = parse_moves(value(1), board).map_err(|e| format!("header: root: {e}"))?;
    let strength = match value(2) {
        "strong" => Strength::Strong,
        "weak" => Strength::Weak,
        other => return Err(format!("header: solve {other:?}: strong or weak")),
    };
    let depth = u32::try_from(number(3)?)
        .ok()
        .filter(|&d| (d as usize) < board.squares())
        .ok_or("header: a depth past the board's squares")?;
    let score = parse_score(value(4), board).map_err(|e| format!("header: score: {e}"))?;
    let count = |i: usize| {
        usize::try_from(number(i)?)
            .ok()
            .filter(|&n| n <= MAX_RECORDS)
            .ok_or_else(|| format!("header: more than {MAX_RECORDS} {}", keys[i]))
    };
    let checksum = value(8);
    if checksum.len() != 16 || !checksum.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("header: the checksum is not 16 hex digits".into());
    }
    Ok(Header {
        board,
        root,
        strength,
        depth,
        score,
        positions: number(5)?,
        nodes: count(6)?,
        leaves: count(7)?,
        checksum: checksum.to_ascii_lowercase(),
    })
}

/// A move sequence as written (`-` the empty board): columns of the board, at most its
/// squares of them (whether they make a position is the tree check's to say).
fn parse_moves(text: &str, board: Board) -> Result<String, String> {
    if text == EMPTY_BOARD {
        return Ok(String::new());
    }
    if text.is_empty() || text.len() > board.squares() {
        return Err(format!("{text:?} is no move sequence of {board}"));
    }
    for ch in text.chars() {
        match column_from_char(ch) {
            Some(col) if col < board.width() && column_char(col) == ch => {}
            _ => return Err(format!("{text:?}: {ch:?} is no column of {board}")),
        }
    }
    Ok(text.to_string())
}

/// A score, in the writer's form, within the board's range (at most its squares either way,
/// so that negating it or stepping past it never overflows).
fn parse_score(text: &str, board: Board) -> Result<i32, String> {
    let most = board.squares() as i32;
    text.parse::<i32>()
        .ok()
        .filter(|v| v.to_string() == text && (-most..=most).contains(v))
        .ok_or_else(|| format!("{text:?} is no score of {board}"))
}

/// A bound's side: a score or `-`.
fn parse_side(text: &str, board: Board) -> Result<Option<i32>, String> {
    if text == "-" {
        Ok(None)
    } else {
        parse_score(text, board).map(Some)
    }
}

/// A line of the body.
enum Record {
    Node(Node),
    Leaf(Leaf),
}

/// Parses a node or leaf line's fields; returns it and its check as written (matched against
/// the line as the writer would write it by the caller).
fn parse_record(text: &str, board: Board) -> Result<(Record, &str), String> {
    let words: Vec<&str> = text.split(' ').take(9).collect();
    match words.as_slice() {
        ["node", moves, lo, hi, columns, check] => {
            let columns = if *columns == "-" {
                Vec::new()
            } else {
                parse_moves(columns, board)?
                    .chars()
                    .filter_map(column_from_char)
                    .collect()
            };
            let node = Node {
                moves: parse_moves(moves, board)?,
                bound: Bound {
                    lo: parse_side(lo, board)?,
                    hi: parse_side(hi, board)?,
                },
                columns,
            };
            Ok((Record::Node(node), check))
        }
        ["leaf", moves, alpha, beta, lo, hi, nodes, check] => {
            let window = Window {
                alpha: parse_score(alpha, board)?,
                beta: parse_score(beta, board)?,
            };
            if window.alpha >= window.beta {
                return Err(format!("the window {alpha} {beta} is empty"));
            }
            let count: u64 = nodes
                .parse()
                .ok()
                .filter(|n: &u64| n.to_string() == *nodes)
                .ok_or_else(|| format!("{nodes:?} is no count of positions"))?;
            let leaf = Leaf {
                moves: parse_moves(moves, board)?,
                window,
                bound: Bound {
                    lo: parse_side(lo, board)?,
                    hi: parse_side(hi, board)?,
                },
                nodes: count,
            };
            Ok((Record::Leaf(leaf), check))
        }
        _ => Err("not a node or leaf line of a certificate".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Certificate {
        Certificate {
            board: "5x4".parse().expect("a board"),
            root: String::new(),
            strength: Strength::Strong,
            depth: 2,
            score: 0,
            positions: 10,
            nodes: vec![Node {
                moves: String::new(),
                bound: Bound::exact(0),
                columns: vec![0, 1, 2, 3, 4],
            }],
            leaves: vec![Leaf {
                moves: "13".into(),
                window: Window { alpha: -1, beta: 0 },
                bound: Bound {
                    lo: None,
                    hi: Some(-1),
                },
                nodes: 7,
            }],
        }
    }

    #[test]
    fn a_certificate_reads_back_and_damage_is_named() {
        let cert = sample();
        let text = cert.to_text();
        assert_eq!(Certificate::parse(&text), Ok(cert));
        // A line's field changed, its check not: the line is named.
        let bad = text.replace("leaf 13 -1 0 - -1 7", "leaf 13 -1 0 - -2 7");
        let e = Certificate::parse(&bad).expect_err("changed");
        assert!(
            matches!(&e, CertError::Failed(f) if f[0].contains("line 3")),
            "{e}"
        );
        // A line dropped: the counts say so.
        let dropped: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
        let e = Certificate::parse(&dropped).expect_err("dropped");
        assert!(e.to_string().contains("dropped"), "{e}");
        // Garbage is malformed.
        for garbage in ["", "hello", "# transpo-c4 certificate v1 board 99x99"] {
            let e = Certificate::parse(garbage).expect_err("garbage");
            assert!(matches!(e, CertError::Malformed(_)), "{garbage:?}: {e}");
        }
        let huge = text.replace("leaves 1 ", "leaves 99999999999 ");
        assert!(matches!(
            Certificate::parse(&huge),
            Err(CertError::Malformed(_))
        ));
        let out_of_range = text.replace("leaf 13 -1 0", "leaf 13 -1 500");
        assert!(matches!(
            Certificate::parse(&out_of_range),
            Err(CertError::Malformed(_))
        ));
    }
}
