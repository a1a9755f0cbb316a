//! A certificate of a solve that anyone can check: the top of the proof tree and its
//! frontier, as plain text with checksums (`transpo-c4 certify`, `merge --certificate`), and
//! its check (`transpo-c4 verify`).
//!
//! A certificate is one file, `DIR/certificate.txt` ([`CERTIFICATE_FILE`]): a header naming
//! the board, the root, the strength and the root's score, then one line a **node** of the
//! top tree (its position, the bound proven of it, the columns its proof needs) and one line
//! a **leaf** of its frontier (its position, the window to search it with, the bound the
//! tree needs of it, the positions its solve explored). [`Certificate`] is that file.
//!
//! Why this split of the proof: the top tree is small and its every step follows from the
//! rules of the game, so [`check_tree`] checks it with nothing but the rules (legal moves,
//! a win with the next stone, a full board) and shares no search, table, move ordering or
//! bound with the solver; the leaves are where the work is, so each is re-solved on its own,
//! on a fresh table, and any subset of them on any machine ([`resolve_leaves`], `verify
//! --shard I/N`). A solver bug that gave a leaf a wrong bound is found by a re-solve whose
//! search differs (another machine, another build, another solver reading the same
//! lines); a wrong step above the leaves is found by the rules alone.
//!
//! Scores are Pons' (from the side to move; a win with the stone played when `n` stones are
//! down is `⌊(squares + 1 − n) / 2⌋`; a full board a draw, 0), and negamax: a node is at
//! least `v` when one child is at most `−v`, at most `v` when every child is at least `−v`.

use std::ops::RangeInclusive;
use transpo_connect4::board::Board;
use transpo_connect4::score::{Strength, Window};

mod build;
mod check;
mod format;
mod resolve;

pub use build::{Knowledge, build, solve_in_rounds};
pub use check::check_tree;
pub use format::{CERTIFICATE_FILE, CertError, MAX_FILE_BYTES, MAX_RECORDS};
pub use resolve::{
    Found, Verdict, combine, judge, read_verdict, resolve_leaves, verdict_file_name,
};

/// Writes `text` to `path` atomically: a reader sees the old file or the whole new one.
fn write_text(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    transpo_files::write_atomic(path, |file| {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(file);
        out.write_all(text.as_bytes())?;
        out.flush()
    })
}

/// What is proven of a score: at least `lo`, at most `hi`; either may be absent (no bound on
/// that side).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bound {
    /// The score is at least this.
    pub lo: Option<i32>,
    /// The score is at most this.
    pub hi: Option<i32>,
}

impl Bound {
    /// Exactly `score`.
    pub const fn exact(score: i32) -> Bound {
        Bound {
            lo: Some(score),
            hi: Some(score),
        }
    }

    /// What a certificate of `strength` claims of its root, whose score is `score` (for a
    /// weak solve, 1, 0 or −1): the score itself, or the side of the draw it lies on.
    pub fn of_root(strength: Strength, score: i32) -> Bound {
        match (strength, score.signum()) {
            (Strength::Strong, _) | (Strength::Weak, 0) => Bound::exact(score),
            (Strength::Weak, 1) => Bound {
                lo: Some(1),
                hi: None,
            },
            _ => Bound {
                lo: None,
                hi: Some(-1),
            },
        }
    }

    /// Whether every score this bound allows, `other` allows too (this one is as tight).
    pub fn implies(&self, other: &Bound) -> bool {
        let lo = match (self.lo, other.lo) {
            (_, None) => true,
            (Some(a), Some(b)) => a >= b,
            (None, Some(_)) => false,
        };
        let hi = match (self.hi, other.hi) {
            (_, None) => true,
            (Some(a), Some(b)) => a <= b,
            (None, Some(_)) => false,
        };
        lo && hi
    }

    /// Whether every score of `range` is one this bound allows.
    pub fn holds_for(&self, range: &RangeInclusive<i32>) -> bool {
        self.lo.is_none_or(|lo| *range.start() >= lo) && self.hi.is_none_or(|hi| *range.end() <= hi)
    }

    /// Both bounds at once: the tighter side of each.
    pub fn meet(&self, other: &Bound) -> Bound {
        let pick = |a: Option<i32>, b: Option<i32>, f: fn(i32, i32) -> i32| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        Bound {
            lo: pick(self.lo, other.lo, i32::max),
            hi: pick(self.hi, other.hi, i32::min),
        }
    }

    /// The window a solve must be asked to prove this bound or find it false: `lo − 1, lo`
    /// for a lower bound, `hi, hi + 1` for an upper one, `lo − 1, hi + 1` for both (the
    /// exact score if it lies within). `None` for no bound at all.
    pub fn window(&self) -> Option<Window> {
        match (self.lo, self.hi) {
            (Some(lo), Some(hi)) => Some(Window {
                alpha: lo - 1,
                beta: hi + 1,
            }),
            (Some(lo), None) => Some(Window {
                alpha: lo - 1,
                beta: lo,
            }),
            (None, Some(hi)) => Some(Window {
                alpha: hi,
                beta: hi + 1,
            }),
            (None, None) => None,
        }
    }
}

/// A node of the top tree: a position whose bound follows from its children's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its move sequence from the empty board (empty for the empty board).
    pub moves: String,
    /// What is proven of its score.
    pub bound: Bound,
    /// The columns (0-based) of the children its proof needs: every legal move when it
    /// has an upper bound, else the one move that proves its lower bound.
    pub columns: Vec<usize>,
}

/// A leaf of the frontier: a position solved by search, with the window that decides the
/// bound the tree needs of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Its move sequence from the empty board.
    pub moves: String,
    /// The window to search it with ([`Bound::window`] of its bound).
    pub window: Window,
    /// The bound the tree needs of it, which the solve proved.
    pub bound: Bound,
    /// Positions its solves explored while the certificate was made (0: its bound came
    /// without a search of its own).
    pub nodes: u64,
}

/// A certificate: the claim, the top of the proof tree and its frontier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The board.
    pub board: Board,
    /// The root's move sequence (empty for the empty board).
    pub root: String,
    /// Whether the root's exact score or only its outcome is claimed.
    pub strength: Strength,
    /// The stones of the frontier's positions (the split's depth).
    pub depth: u32,
    /// The root's score: exact, or 1, 0, −1 for a weak certificate.
    pub score: i32,
    /// Positions the solve that made it explored, summed over its leaves' searches.
    pub positions: u64,
    /// The top tree's nodes, root first, then by stones and move sequence.
    pub nodes: Vec<Node>,
    /// The frontier, sorted by move sequence.
    pub leaves: Vec<Leaf>,
}

impl Certificate {
    /// What it claims of its root ([`Bound::of_root`]).
    pub fn claim(&self) -> Bound {
        Bound::of_root(self.strength, self.score)
    }
}

/// The root's score as a certificate writes it: a strong score, or `win`, `draw`, `loss`.
pub fn strength_word(strength: Strength) -> &'static str {
    match strength {
        Strength::Strong => "strong",
        Strength::Weak => "weak",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_imply_meet_and_give_windows() {
        let ge1 = Bound {
            lo: Some(1),
            hi: None,
        };
        let le3 = Bound {
            lo: None,
            hi: Some(3),
        };
        assert!(Bound::exact(2).implies(&ge1));
        assert!(!le3.implies(&ge1));
        assert!(
            ge1.meet(&le3)
                == Bound {
                    lo: Some(1),
                    hi: Some(3)
                }
        );
        assert_eq!(ge1.window(), Some(Window { alpha: 0, beta: 1 }));
        assert_eq!(le3.window(), Some(Window { alpha: 3, beta: 4 }));
        assert_eq!(Bound::exact(2).window(), Some(Window { alpha: 1, beta: 3 }));
        assert!(ge1.holds_for(&(1..=5)) && !ge1.holds_for(&(0..=5)));
        assert_eq!(
            Bound::of_root(Strength::Weak, -1),
            Bound {
                lo: None,
                hi: Some(-1)
            }
        );
    }
}
