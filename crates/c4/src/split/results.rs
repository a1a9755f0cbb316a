//! A shard's results file of one round: a header naming the board, the round, its list and
//! the shard, then one [`Solved`] line per position, read as a hostile user may hand it over.

use super::{RESULTS_MAGIC, RESULTS_MAGIC_V1, Round, Shard, header_field};
use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::ops::RangeInclusive;
use transpo_connect4::book::fnv1a;
use transpo_connect4::position::Bitboard;
use transpo_connect4::position::Position;
use transpo_connect4::score::{Strength, win_now_score};
use transpo_files::TEXT_LINE_MAX;

/// One searched position of a shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// Its move sequence.
    pub moves: String,
    /// The range its score lies in, as its window asked: one score, or a bound.
    pub range: RangeInclusive<i32>,
    /// Positions explored to solve it.
    pub nodes: u64,
    /// Time taken, in microseconds.
    pub micros: u64,
}

impl Solved {
    /// The line of a results file: `moves lo..hi nodes micros check` (the score lies in
    /// `lo..=hi`), the check the low 32 bits of FNV-1a over `moves lo..hi`.
    pub fn line(&self) -> String {
        let head = format!(
            "{} {}..{}",
            self.moves,
            self.range.start(),
            self.range.end()
        );
        let check = fnv1a(head.as_bytes()) as u32;
        format!("{head} {} {} {check:08x}", self.nodes, self.micros)
    }

    /// Reads a line written by [`Solved::line`]: each number must fit its type and be
    /// written as [`Solved::line`] writes it (no sign, no leading zeros), and the check must
    /// match. Whether the range is one the board allows is [`Results::read`]'s to check.
    fn parse(line: &str) -> Option<Solved> {
        let mut fields = line.split(' ');
        let (Some(moves), Some(range), Some(nodes), Some(micros), Some(_check), None) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return None;
        };
        let (lo, hi) = range.split_once("..")?;
        let solved = Solved {
            moves: moves.to_string(),
            range: lo.parse().ok()?..=hi.parse().ok()?,
            nodes: nodes.parse().ok()?,
            micros: micros.parse().ok()?,
        };
        // The line as it would be written, check included: this checks the check and that
        // every field is in the one form the writer uses.
        (solved.line() == line).then_some(solved)
    }
}

/// A shard's results file: a header naming the board, the round, its list and the shard,
/// then one [`Solved`] line per position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Results {
    /// The round.
    pub round: u32,
    /// The shard.
    pub shard: Shard,
    /// Whether its scores are exact or only signs.
    pub strength: Strength,
    /// The solved positions, in the order they were solved.
    pub solved: Vec<Solved>,
    /// Bytes of the text up to the end of its last complete line (a shard killed while
    /// writing leaves part of a line after it, which a restart cuts off).
    pub complete_bytes: usize,
}

impl Results {
    /// The header of `shard`'s results file for the round `list`, solved with `strength`.
    pub fn header<const W: usize, const H: usize, B: Bitboard>(
        list: &Round<W, H, B>,
        shard: Shard,
        strength: Strength,
    ) -> String {
        let strength = match strength {
            Strength::Strong => "strong",
            Strength::Weak => "weak",
        };
        format!(
            "{RESULTS_MAGIC} board {W}x{H} round {} list {:016x} shard {shard} {strength}\n",
            list.number,
            list.checksum()
        )
    }

    /// Reads a results file of `list` held in memory; see [`Results::read`]. A text without a
    /// complete header line is an error here.
    pub fn parse<const W: usize, const H: usize, B: Bitboard>(
        text: &str,
        list: &Round<W, H, B>,
    ) -> Result<Results, String> {
        Results::read(text.as_bytes(), list)?.ok_or_else(|| "no header line".to_string())
    }

    /// Reads a results file of any of a split's `rounds` (round 1 first): the round its
    /// header names, then [`Results::read`] against that round's list. `Ok(None)` without a
    /// complete header, as there.
    pub fn read_of_rounds<const W: usize, const H: usize, B: Bitboard>(
        mut input: impl BufRead,
        rounds: &[Round<W, H, B>],
    ) -> Result<Option<Results>, String> {
        let mut header = Vec::new();
        match next_line(&mut input, &mut header)? {
            End::Eof | End::Partial => return Ok(None),
            End::TooLong => {
                return Err(format!(
                    "line 1: longer than {TEXT_LINE_MAX} bytes: not a results file"
                ));
            }
            End::Newline => header.push(b'\n'),
        }
        let text = std::str::from_utf8(&header)
            .map_err(|_| "line 1: not UTF-8: not a results file".to_string())?;
        if text.starts_with(RESULTS_MAGIC_V1) {
            return Err(super::OLD_FORMAT.into());
        }
        if !text.starts_with(RESULTS_MAGIC) {
            return Err("not a transpo-c4 results file (no header)".into());
        }
        let number: usize = header_field(text, "round")
            .and_then(|r| r.parse().ok())
            .ok_or("header: no round")?;
        let round = number
            .checked_sub(1)
            .and_then(|i| rounds.get(i))
            .ok_or_else(|| format!("results of round {number}, which has no list"))?;
        Results::read(header.as_slice().chain(input), round)
    }

    /// Reads a results file of `list`: the header must name the board and the list; every
    /// line must be complete and check, but a last line without its newline, which a
    /// shard killed mid-write leaves (see [`Results::complete_bytes`]). Every field is
    /// range-checked: a range of scores within what a position of the list's stones allows
    /// on the board (a win with its next stone), counts within `u64`; each position must
    /// have the list's stones. A header of another round, or of the format before rounds, is
    /// refused as such. Errors name the line.
    ///
    /// `Ok(None)` when there is no complete header line: the input is empty, or holds a
    /// header cut short before its newline (a shard killed while it started), so nothing is
    /// solved yet.
    ///
    /// Memory stays bounded whatever the input: lines are read at most [`TEXT_LINE_MAX`]
    /// bytes at a time, a line seen before with the same score is skipped (with another
    /// score it is an error), and a file with more positions than its shard has is an error.
    pub fn read<const W: usize, const H: usize, B: Bitboard>(
        mut input: impl BufRead,
        list: &Round<W, H, B>,
    ) -> Result<Option<Results>, String> {
        let mut buf = Vec::new();
        let header = match next_line(&mut input, &mut buf)? {
            End::Eof | End::Partial => return Ok(None),
            End::TooLong => {
                return Err(format!(
                    "line 1: longer than {TEXT_LINE_MAX} bytes: not a results file"
                ));
            }
            End::Newline => std::str::from_utf8(&buf)
                .map_err(|_| "line 1: not UTF-8: not a results file".to_string())?
                .to_string(),
        };
        if header.starts_with(RESULTS_MAGIC_V1) {
            return Err(super::OLD_FORMAT.into());
        }
        if let Some(round) = header_field(&header, "round")
            && header.starts_with(RESULTS_MAGIC)
            && round != list.number.to_string()
        {
            return Err(format!(
                "results of round {round}, not of round {}: a shard of another round",
                list.number
            ));
        }
        let shard: Shard = header_field(&header, "shard")
            .ok_or("header: no shard")?
            .parse()?;
        let strength = if header.ends_with(" weak") {
            Strength::Weak
        } else {
            Strength::Strong
        };
        if format!("{header}\n") != Results::header(list, shard, strength) {
            return Err(format!(
                "header {header:?} is not for this list (board {W}x{H}, list {:016x})",
                list.checksum()
            ));
        }
        // A position with `depth` stones scores at most a win with the next stone.
        let max_score = win_now_score(W * H, list.depth);
        let most = list.of_shard(shard).len();
        let mut solved: Vec<Solved> = Vec::new();
        // Each position's index in `solved`.
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut complete_bytes = header.len() + 1;
        for number in 2.. {
            let corrupt = |why: &str| format!("line {number}: corrupt: {why}");
            match next_line(&mut input, &mut buf)? {
                End::Eof | End::Partial => break,
                End::TooLong => return Err(corrupt(&format!("over {TEXT_LINE_MAX} bytes"))),
                End::Newline => {}
            }
            let line = std::str::from_utf8(&buf).map_err(|_| corrupt("not UTF-8"))?;
            let parsed = Solved::parse(line).ok_or_else(|| corrupt(&format!("{line:?}")))?;
            let (lo, hi) = (*parsed.range.start(), *parsed.range.end());
            if lo > hi || lo < -max_score || hi > max_score {
                return Err(corrupt(&format!(
                    "scores {lo}..{hi} out of range -{max_score}..{max_score}"
                )));
            }
            let pos = Position::<W, H, B>::from_moves(&parsed.moves)
                .map_err(|e| corrupt(&format!("{:?}: {e}", parsed.moves)))?;
            if pos.moves() != list.depth {
                return Err(corrupt(&format!(
                    "{:?} has not {} stones",
                    parsed.moves, list.depth
                )));
            }
            complete_bytes += line.len() + 1;
            match seen.get(&parsed.moves) {
                Some(&i) if solved[i].range == parsed.range => continue,
                Some(&i) => {
                    return Err(format!(
                        "line {number}: {:?} scored {:?}, but {:?} before",
                        parsed.moves, parsed.range, solved[i].range
                    ));
                }
                None => {}
            }
            if solved.len() == most {
                return Err(format!(
                    "line {number}: more positions than shard {shard}'s {most}: not a results \
                     file of this list"
                ));
            }
            seen.insert(parsed.moves.clone(), solved.len());
            solved.push(parsed);
        }
        Ok(Some(Results {
            round: list.number,
            shard,
            strength,
            solved,
            complete_bytes,
        }))
    }
}

/// How [`next_line`] found a line to end.
enum End {
    /// With its newline (not kept in the buffer).
    Newline,
    /// At the end of the input, without a newline: a line cut short.
    Partial,
    /// The input ended before the line began.
    Eof,
    /// Longer than [`TEXT_LINE_MAX`] bytes; the rest of it is left unread.
    TooLong,
}

/// Reads one line of a results file into `buf`, at most [`TEXT_LINE_MAX`] bytes and its
/// newline, telling how it ended: unlike [`transpo_files::Lines`], this knows whether the last line had its
/// newline, which is how a line cut short by a kill is told from a whole one.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> Result<End, String> {
    buf.clear();
    let read = Read::take(&mut *input, TEXT_LINE_MAX as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| format!("read error: {e}"))?;
    Ok(if read == 0 {
        End::Eof
    } else if buf.last() == Some(&b'\n') {
        buf.pop();
        End::Newline
    } else if buf.len() > TEXT_LINE_MAX {
        End::TooLong
    } else {
        End::Partial
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::Split;
    use transpo_connect4::book::Tree;

    /// Round 1 of the 4×4 split of the positions with 2 stones, every leaf asked, and its
    /// strong results file's header.
    fn list() -> (Round<4, 4>, String) {
        let root = Position::<4, 4>::new();
        let tree = Tree::new(&root, "", 2).expect("a small tree");
        let list = Split::of(
            &tree,
            transpo_connect4::position::EMPTY_BOARD,
            Strength::Strong,
            true,
        )
        .full_round();
        let header = Results::header(&list, Shard { index: 1, count: 1 }, Strength::Strong);
        (list, header)
    }

    /// The results line of `moves` scored exactly `score`, with its check.
    fn line(moves: &str, score: i32, nodes: u64, micros: u64) -> String {
        let solved = Solved {
            moves: moves.into(),
            range: score..=score,
            nodes,
            micros,
        };
        format!("{}\n", solved.line())
    }

    fn read(text: &str) -> Result<Option<Results>, String> {
        let (list, _) = list();
        Results::read(text.as_bytes(), &list)
    }

    #[test]
    fn shards_count_their_units() {
        for total in 0..20 {
            for count in 1..6 {
                for index in 1..=count {
                    let shard = Shard { index, count };
                    let by_filter = (0..total).filter(|&i| shard.contains(i)).count();
                    assert_eq!(shard.units(total), by_filter, "{shard} of {total}");
                }
            }
        }
    }

    /// A file without a complete header is "nothing solved yet", never an error: empty, or
    /// any part of a header without its newline. A complete header of another solve is an
    /// error, as is a first line too long to be a header.
    #[test]
    fn no_complete_header_is_nothing_solved() {
        let (_, header) = list();
        for cut in 0..header.len() {
            assert_eq!(read(&header[..cut]), Ok(None), "{cut} bytes");
        }
        assert_eq!(read("\0\0\0\0\0\0"), Ok(None));
        let results = read(&header).expect("a header").expect("complete");
        assert!(results.solved.is_empty());
        assert_eq!(results.complete_bytes, header.len());
        let other = header.replace("board 4x4", "board 5x4");
        assert!(read(&other).is_err());
        assert!(read(&"x".repeat(TEXT_LINE_MAX + 1)).is_err());
    }

    /// Every field is range-checked: a score the board cannot have (with a valid check, as a
    /// hand-made line would have it) or written another way, a count past u64.
    #[test]
    fn out_of_range_fields_are_corrupt_lines() {
        let (list, header) = list();
        let moves = list.moves[0].as_str();
        let max = win_now_score(16, 2);
        let ok = read(&format!("{header}{}", line(moves, max, 5, 7))).expect("in range");
        assert_eq!(ok.expect("header").solved[0].range, max..=max);
        for score in [max + 1, -max - 1, i32::MIN, i32::MAX] {
            let text = format!("{header}{}", line(moves, score, 5, 7));
            let e = read(&text).expect_err("out of range");
            assert!(e.contains("line 2: corrupt: scores"), "{e}");
        }
        let good = line(moves, 1, 5, 7);
        for bad in [
            good.replacen(" 1..1 ", " +1..1 ", 1),
            good.replacen(" 1..1 ", " 1..01 ", 1),
            good.replacen(" 1..1 ", " 1 ", 1),
            good.replacen(" 5 ", " 05 ", 1),
            good.replacen(" 5 ", " 18446744073709551616 ", 1),
            good.replacen(" 5 ", " -5 ", 1),
            good.replace('\n', " \n"),
            good.replace('\n', "\r\n"),
        ] {
            let e = read(&format!("{header}{bad}")).expect_err(&bad);
            assert!(e.contains("line 2: corrupt"), "{bad}: {e}");
        }
        // A range upside down is corrupt too.
        let upside = Solved {
            moves: moves.into(),
            #[allow(clippy::reversed_empty_ranges)]
            range: 2..=1,
            nodes: 1,
            micros: 1,
        };
        let e = read(&format!("{header}{}\n", upside.line())).expect_err("2..1");
        assert!(e.contains("out of range"), "{e}");
    }

    /// A results file of another round, or of the format before rounds, is refused as such.
    #[test]
    fn another_round_or_the_old_format_is_refused() {
        let (list, header) = list();
        let other = header.replacen("round 1 ", "round 2 ", 1);
        let e = read(&other).expect_err("round 2");
        assert!(e.contains("results of round 2, not of round 1"), "{e}");
        let old = "# transpo-c4 solve-list v1 board 4x4 list 0 shard 1/1 strong\n";
        assert!(read(old).expect_err("v1").contains("before rounds"));
        // Read by the round its header names.
        let mut second = list.clone();
        second.number = 2;
        let text = format!("{header}{}", line(&list.moves[0], 0, 1, 1));
        let results = Results::read_of_rounds(text.as_bytes(), &[list, second])
            .expect("round 1")
            .expect("a header");
        assert_eq!(results.round, 1);
    }

    /// An endless input of one line repeated costs one result; a line again with another
    /// score, or more positions than the shard has, is an error.
    #[test]
    fn repeated_lines_cost_nothing_and_too_many_are_refused() {
        let (list, header) = list();
        let first = line(&list.moves[0], 0, 1, 1);
        let text = format!("{header}{}", first.repeat(100_000));
        let results = read(&text).expect("valid").expect("header");
        assert_eq!(results.solved.len(), 1);
        assert_eq!(results.complete_bytes, text.len());
        let again = format!("{header}{first}{}", line(&list.moves[0], 1, 1, 1));
        assert!(read(&again).expect_err("two scores").contains("line 3:"));
        // Every position of the list once, then one of another list of the same depth.
        let mut all = header.clone();
        for moves in &list.moves {
            all.push_str(&line(moves, 0, 1, 1));
        }
        assert_eq!(
            read(&all).expect("valid").expect("header").solved.len(),
            list.moves.len()
        );
        // The list holds one of each mirror pair: a sequence it does not hold is one more.
        let extra = ["11", "44", "12", "21", "43", "34"]
            .into_iter()
            .find(|m| !list.moves.iter().any(|l| l == m))
            .expect("a 2-stone sequence the list lacks");
        all.push_str(&line(extra, 0, 1, 1));
        let e = read(&all).expect_err("too many");
        assert!(e.contains("more positions than shard 1/1"), "{e}");
        // A line cut short at the end is left out, as a kill leaves it.
        let cut = format!("{header}{}", &first[..first.len() - 3]);
        let results = read(&cut).expect("valid").expect("header");
        assert!(results.solved.is_empty());
        assert_eq!(results.complete_bytes, header.len());
    }
}
