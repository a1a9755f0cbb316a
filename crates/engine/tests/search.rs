//! The search against facts: mate distances proved here by exhaustive search, the
//! search-instability check, determinism, subtree sizes for the lab, and a WAC strength test.

use std::time::Instant;

use transpo::{
    Bound, ChessEntry, Size, Table,
    entry::ResearchEntry,
    scheme::Scheme,
    table::{Config, Instrumented},
};
use transpo_chess::{Epd, Position, STARTPOS_FEN};
use transpo_engine::search::{Limits, Profile, Score, SearchConfig, Searcher};

/// Whether the side to move can force mate within `moves` moves (exhaustive AND-OR search;
/// the fifty-move rule and repetitions cannot matter this close to mate).
fn mates_within(pos: &mut Position, moves: u32) -> bool {
    for &mv in pos.legal_moves().iter() {
        pos.play_unchecked(mv);
        let mates = if pos.is_checkmate() {
            true
        } else if moves > 1 && pos.has_legal_moves() {
            let replies = pos.legal_moves();
            replies.iter().all(|&reply| {
                pos.play_unchecked(reply);
                let ok = mates_within(pos, moves - 1);
                pos.undo();
                ok
            })
        } else {
            false
        };
        pos.undo();
        if mates {
            return true;
        }
    }
    false
}

/// Win At Chess positions (arasan-chess's revised WAC, `../shared/data/chess/suites/wac.epd`,
/// clocks set to `0 1`) whose mate distance the test proves with [`mates_within`].
const MATES: [(&str, &str, i32); 9] = [
    (
        "WAC.004",
        "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
        2,
    ),
    (
        "WAC.027",
        "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1",
        2,
    ),
    (
        "WAC.060",
        "rn1qr1k1/1p2np2/2p3p1/8/1pPb4/7Q/PB1P1PP1/2KR1B1R w - - 0 1",
        2,
    ),
    (
        "WAC.084",
        "r2q1r1k/2p1b1pp/p1n5/1p1Q1bN1/4n3/1BP1B3/PP3PPP/R4RK1 w - - 0 1",
        2,
    ),
    (
        "WAC.005",
        "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
        2,
    ),
    (
        "WAC.050",
        "k4r2/1R4pb/1pQp1n1p/3P4/5p1P/3P2P1/r1q1R2K/8 w - - 0 1",
        3,
    ),
    (
        "WAC.057",
        "r3q1kr/ppp5/3p2pQ/8/3PP1b1/5R2/PPP3P1/5RK1 w - - 0 1",
        3,
    ),
    (
        "WAC.064",
        "8/6pp/3q1p2/3n1k2/1P6/3NQ2P/5PP1/6K1 w - - 0 1",
        3,
    ),
    (
        "WAC.102",
        "2Q2n2/2R4p/1p1qpp1k/8/3P3P/3B2P1/5PK1/r7 w - - 0 1",
        3,
    ),
];

#[test]
fn mate_distances_are_facts() {
    for (id, fen, n) in MATES {
        let mut pos = Position::from_fen(fen).unwrap();
        assert!(mates_within(&mut pos, n as u32), "{id}: no mate in {n}");
        assert!(
            !mates_within(&mut pos, n as u32 - 1),
            "{id}: mate in {}",
            n - 1
        );
    }
}

#[test]
fn mates_are_reported_exactly_with_cold_and_warm_tables() {
    for profile in [Profile::Full, Profile::Paper] {
        let searcher = Searcher::new(SearchConfig::with_profile(profile));
        for (id, fen, n) in MATES {
            let table = Table::<ChessEntry>::with_mib(16).unwrap();
            let mut pos = Position::from_fen(fen).unwrap();
            let limits = Limits::depth(2 * n as u32 + 1);
            let cold = searcher.search(&mut pos, &limits, Some(&table), &mut |_| {});
            assert_eq!(cold.score, Score::Mate(n), "{id} {profile} cold");
            let warm = searcher.search(&mut pos, &limits, Some(&table), &mut |_| {});
            assert_eq!(warm.score, Score::Mate(n), "{id} {profile} warm");
            let none = searcher.search::<ChessEntry>(&mut pos, &limits, None, &mut |_| {});
            assert_eq!(none.score, Score::Mate(n), "{id} {profile} no table");
            // The reported PV really mates: play it out.
            let mut line = pos.clone();
            for mv in &warm.pv {
                line.play(*mv).unwrap();
            }
            assert!(
                warm.pv.len() < 2 * n as usize - 1 || line.is_checkmate(),
                "{id}: {:?}",
                warm.pv_uci()
            );
            // `go mate N` stops at the mate.
            let mate = Limits {
                mate: Some(n as u32),
                ..Limits::default()
            };
            let found = searcher.search(&mut pos, &mate, Some(&table), &mut |_| {});
            assert_eq!(found.score, Score::Mate(n), "{id} go mate");
        }
    }
}

/// Positions for the instability check: the bench positions with moves.
fn bench_positions() -> Vec<Position> {
    transpo_engine::bench_positions::POSITIONS
        .iter()
        .map(|fen| Position::from_fen(fen).unwrap())
        .filter(|pos| pos.has_legal_moves())
        .collect()
}

#[test]
fn exact_depth_probing_never_changes_the_root_score() {
    let config = SearchConfig {
        exact_depth_probing: true,
        ..SearchConfig::paper()
    };
    let searcher = Searcher::new(config);
    let mut checked = 0;
    let mut nodes = (0, 0);
    for mut pos in bench_positions().into_iter().take(30) {
        let table = Table::<ChessEntry>::with_mib(8).unwrap();
        let limits = Limits::depth(4);
        let with = searcher.search(&mut pos, &limits, Some(&table), &mut |_| {});
        let without = searcher.search::<ChessEntry>(&mut pos, &limits, None, &mut |_| {});
        assert_eq!(with.raw_score, without.raw_score, "{}", pos.fen());
        nodes.0 += with.nodes;
        nodes.1 += without.nodes;
        checked += 1;
    }
    assert!(checked >= 20);
    assert!(nodes.0 < nodes.1, "the table saved nothing: {nodes:?}");
}

#[test]
fn one_thread_is_deterministic_and_tt_moves_are_sound() {
    for profile in [Profile::Full, Profile::Paper] {
        let searcher = Searcher::new(SearchConfig::with_profile(profile));
        let run = |fen: &str| {
            let table = Table::<ChessEntry>::with_mib(4).unwrap();
            let mut pos = Position::from_fen(fen).unwrap();
            searcher.search(&mut pos, &Limits::depth(6), Some(&table), &mut |_| {})
        };
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        for fen in [STARTPOS_FEN, kiwipete] {
            let (a, b) = (run(fen), run(fen));
            assert_eq!((a.nodes, a.raw_score, &a.pv), (b.nodes, b.raw_score, &b.pv));
            assert_eq!(a.tt_move_failures, 0, "full keys never give a wrong move");
        }
    }
}

#[test]
fn research_entries_carry_subtree_sizes_for_the_lab() {
    let config = Config {
        scheme: Scheme::Big1,
        counting: true,
        ..Config::default()
    };
    let table = Table::<ResearchEntry>::new(Size::Entries(1 << 16), config).unwrap();
    let searcher = Searcher::new(SearchConfig::paper());
    let mut pos = Position::startpos();
    // Depth 1: the root's children go straight to quiescence, which the paper never stores,
    // so the root entry's subtree is the whole search.
    let result = searcher.search(&mut pos, &Limits::depth(1), Some(&table), &mut |_| {});
    let root = table.probe(pos.key()).unwrap();
    assert_eq!(
        (root.nodes, root.depth, root.bound),
        (result.nodes, 1, Bound::Exact)
    );
    let deeper = searcher.search(&mut pos, &Limits::depth(4), Some(&table), &mut |_| {});
    let root = table.probe(pos.key()).unwrap();
    assert!(root.nodes > 0 && root.nodes <= deeper.nodes, "{root:?}");
    assert!(table.take_stats().hits > 0);
    // Quiescence nodes can be left out of the subtree sizes.
    let table = Table::<ResearchEntry>::new(Size::Entries(1 << 16), config).unwrap();
    let interior_only = Searcher::new(SearchConfig {
        quiescence_in_subtree: false,
        ..SearchConfig::paper()
    });
    let result = interior_only.search(&mut pos, &Limits::depth(1), Some(&table), &mut |_| {});
    assert_eq!(
        table.probe(pos.key()).unwrap().nodes,
        result.nodes - result.qnodes
    );
}

#[test]
fn stalemate_and_checkmate_at_the_root() {
    // A stalemate and a checkmate at the root.
    for (fen, score) in [
        ("8/8/8/8/8/6k1/6p1/6K1 w - - 0 1", Score::Cp(0)),
        ("7k/7P/6K1/8/3B4/8/8/8 b - - 0 1", Score::Mate(0)),
    ] {
        let mut pos = Position::from_fen(fen).unwrap();
        let r = Searcher::new(SearchConfig::default()).search::<ChessEntry>(
            &mut pos,
            &Limits::depth(5),
            None,
            &mut |_| {},
        );
        assert_eq!((r.best_move, r.score), (None, score), "{fen}");
    }
}

#[test]
fn a_stop_before_the_first_iteration_still_gives_a_legal_move() {
    let searcher = Searcher::new(SearchConfig::default());
    searcher.control().stop();
    let mut pos = Position::startpos();
    let r = searcher.search::<ChessEntry>(&mut pos, &Limits::depth(20), None, &mut |_| {});
    assert!(pos.is_legal(r.best_move.unwrap()));
    let r = Searcher::new(SearchConfig::default()).search::<ChessEntry>(
        &mut pos,
        &Limits::nodes(1),
        None,
        &mut |_| {},
    );
    assert!(pos.is_legal(r.best_move.unwrap()));
    assert_eq!(r.nodes, 1);
}

/// Matches WAC's SAN best moves (`Qg6`, `Rxb2`, `exd6`, `O-O`, `e8=Q`) against a legal move.
fn matches_san(pos: &Position, mv: transpo_chess::Move, san: &str) -> bool {
    let san = san.trim_end_matches(['+', '#', '!', '?']);
    let uci = pos.move_to_uci(mv);
    let board = pos.board();
    let piece = board.piece_on(mv.from);
    if san == "O-O" || san == "O-O-O" {
        let short = san == "O-O";
        return piece == Some(transpo_chess::cozy_chess::Piece::King)
            && (uci.ends_with("g1") || uci.ends_with("g8")) == short
            && (uci.ends_with("c1") || uci.ends_with("c8")) != short
            && matches!(&uci[..2], "e1" | "e8");
    }
    let (body, promotion) = match san.split_once('=') {
        Some((b, p)) => (b, p.chars().next()),
        None => (san, None),
    };
    let mut chars: Vec<char> = body.chars().filter(|&c| c != 'x').collect();
    let kind = match chars.first() {
        Some(c @ ('N' | 'B' | 'R' | 'Q' | 'K')) => {
            let c = *c;
            chars.remove(0);
            c
        }
        _ => 'P',
    };
    if chars.len() < 2 {
        return false;
    }
    let to: String = chars[chars.len() - 2..].iter().collect();
    let hint: String = chars[..chars.len() - 2].iter().collect();
    let piece_char = piece.map(|p| char::from(p).to_ascii_uppercase());
    piece_char == Some(kind)
        && uci[2..4] == to
        && hint.chars().all(|c| uci[..2].contains(c))
        && promotion.map(|p| p.to_ascii_lowercase()) == uci.chars().nth(4)
}

/// Solves WAC positions at a fixed node budget; returns (solved, tried).
fn wac(step: usize, budget: u64) -> Option<(usize, usize)> {
    wac_with(SearchConfig::default(), step, budget)
}

fn wac_with(config: SearchConfig, step: usize, budget: u64) -> Option<(usize, usize)> {
    let path = transpo_testkit::shared_data("chess/suites/wac.epd")?;
    let text = std::fs::read_to_string(path).unwrap();
    let searcher = Searcher::new(config);
    let table = Table::<ChessEntry>::with_mib(16).unwrap();
    let (mut solved, mut tried) = (0, 0);
    let mut failed = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()).step_by(step) {
        let epd = Epd::parse(line).unwrap();
        let best: Vec<String> = epd.operation("bm").unwrap().operands.clone();
        let mut pos = epd.position.clone();
        table.clear();
        let result = searcher.search(&mut pos, &Limits::nodes(budget), Some(&table), &mut |_| {});
        let mv = result.best_move.unwrap();
        tried += 1;
        if best.iter().any(|san| matches_san(&pos, mv, san)) {
            solved += 1;
        } else {
            let id = epd.operation("id").map(|o| o.operands.join(" "));
            failed.push(format!("{id:?} {} (bm {best:?})", pos.move_to_uci(mv)));
        }
    }
    eprintln!("WAC: solved {solved}/{tried} at {budget} nodes; missed {failed:?}");
    Some((solved, tried))
}

/// The CI sample: every 5th WAC position at 500,000 nodes (the budget the README states).
#[test]
fn wac_sample_at_a_fixed_node_budget() {
    let start = Instant::now();
    if let Some((solved, tried)) = wac(5, 500_000) {
        eprintln!("took {:?}", start.elapsed());
        assert!(solved * 100 >= tried * 80, "{solved}/{tried}");
    }
}

/// All 300 (about two minutes in release at the default 500,000 nodes; `WAC_NODES=N` sets the
/// budget): `cargo test -p transpo-engine --release --test search -- --ignored wac_all`.
#[test]
#[ignore]
fn wac_all_at_a_fixed_node_budget() {
    let budget = std::env::var("WAC_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(500_000);
    if let Some((solved, tried)) = wac(1, budget) {
        // 85% is the margin the README reports at 500,000 nodes (the issue asks for 80%).
        assert!(solved * 100 >= tried * 85, "{solved}/{tried}");
    }
}

/// Each feature of the `full` profile switched off in turn: WAC sample solved at a fixed
/// node budget, and bench nodes and time at a fixed depth (printed; see the README).
#[test]
#[ignore]
fn feature_ablation() {
    use transpo_engine::search::Features;
    let full = SearchConfig::default();
    type Change = fn(&mut Features);
    let variants: [(&str, Change); 8] = [
        ("full", |_| {}),
        ("no null move", |f| f.null_move = false),
        ("no LMR", |f| f.lmr = false),
        ("no check extension", |f| f.check_extension = false),
        ("no futility", |f| f.futility = false),
        ("no killers", |f| f.killers = false),
        ("paper eval", |f| f.tapered_eval = false),
        ("no SEE/recapture-only quiescence", |f| {
            f.see_pruning = false
        }),
    ];
    for (name, change) in variants {
        let mut config = full;
        change(&mut config.features);
        let start = Instant::now();
        let table = Table::<ChessEntry>::with_mib(16).unwrap();
        let mut sink = Vec::new();
        let bench = transpo_engine::bench::run(8, config, Some(&table), &mut sink).unwrap();
        let bench_time = start.elapsed();
        let wac = wac_with(config, 5, 200_000);
        eprintln!(
            "ABLATION {name}: bench depth 8 {} nodes {:?}; WAC sample {wac:?}",
            bench.nodes, bench_time
        );
    }
}

/// Lazy SMP: two threads reach the requested depth (on whichever thread gets there first)
/// and give a legal move and a PV that is legal in sequence.
#[test]
fn two_threads_reach_the_depth_with_a_legal_move() {
    let table = Table::<ChessEntry>::with_mib(16).unwrap();
    let searcher = Searcher::new(SearchConfig {
        threads: 2,
        ..SearchConfig::default()
    });
    for mut pos in bench_positions().into_iter().take(8) {
        let mut last = 0;
        let r = searcher.search(&mut pos, &Limits::depth(7), Some(&table), &mut |info| {
            last = info.depth;
        });
        assert_eq!((r.depth, last), (7, 7), "{}", pos.fen());
        assert!(pos.is_legal(r.best_move.unwrap()));
        assert_eq!(r.pv.len(), r.pv_uci().len());
        assert!(r.nodes > 0);
    }
}

/// Issue 14: an entry whose move is not legal in the position (a key collision, a torn or a
/// crafted entry) must not be used at all; its static evaluation used to feed reverse
/// futility and null-move pruning before the move was checked. Entries with an illegal move
/// and an absurd evaluation at every position one and two plies from the root must leave
/// the search exactly as it is on an empty table.
#[test]
fn entries_with_illegal_moves_feed_nothing() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let root = Position::from_fen(fen).unwrap();
    // The other side's king stepping forward: never legal for the side to move.
    let illegal = |pos: &Position| {
        let text = if pos.side_to_move() == transpo_chess::cozy_chess::Color::White {
            "e8e7"
        } else {
            "e1e2"
        };
        let mv: transpo_chess::Move = text.parse().unwrap();
        assert!(!pos.is_legal(mv));
        transpo_chess::move16::encode(mv)
    };
    let poison = |table: &Table<ChessEntry>, pos: &Position| {
        table.store(
            pos.key(),
            ChessEntry {
                mv: illegal(pos),
                score: 0,
                eval: 25_000,
                depth: 0,
                bound: Bound::Upper,
                pv: false,
            },
        );
    };
    let searcher = Searcher::new(SearchConfig::default());
    let run = |poisoned: bool| {
        let table = Table::<ChessEntry>::with_mib(16).unwrap();
        if poisoned {
            let mut pos = root.clone();
            for &mv in pos.clone().legal_moves().iter() {
                pos.play_unchecked(mv);
                poison(&table, &pos);
                for &reply in pos.clone().legal_moves().iter() {
                    pos.play_unchecked(reply);
                    poison(&table, &pos);
                    pos.undo();
                }
                pos.undo();
            }
        }
        let mut pos = root.clone();
        searcher.search(&mut pos, &Limits::depth(6), Some(&table), &mut |_| {})
    };
    let clean = run(false);
    let poisoned = run(true);
    assert!(poisoned.tt_move_failures > 0, "the poison was not met");
    assert_eq!(
        (poisoned.score, poisoned.best_move, poisoned.nodes),
        (clean.score, clean.best_move, clean.nodes)
    );
}

/// Issue 14: a same-key store used to replace whatever was there, so quiescence (depth 0)
/// replaced an entry searched ten plies deep. On the engine's scheme (keep-deep-8) a
/// shallower result keeps the deeper entry; on DEPTH-AGE and the 1994 schemes the rule of
/// the paper holds, the same position is always replaced.
#[test]
fn a_quiescence_store_does_not_replace_a_deeper_entry() {
    // White's only capture is exd5; at depth 1 the position after it is searched by
    // quiescence with a full window, probes the entry (an upper bound that does not cut)
    // and stores its depth-0 result.
    let root = Position::from_fen("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1").unwrap();
    let mut child = root.clone();
    child.play(child.parse_uci_move("e4d5").unwrap()).unwrap();
    let reply = child.parse_uci_move("e8e7").unwrap();
    let deep = ChessEntry {
        mv: transpo_chess::move16::encode(reply),
        score: 20_000,
        eval: transpo_engine::search::entry::NO_EVAL,
        depth: 10,
        bound: Bound::Upper,
        pv: false,
    };
    for (scheme, kept) in [
        (transpo_engine::search::ENGINE_SCHEME, true),
        (Scheme::DepthAge { k: 8 }, false),
    ] {
        let table = transpo_engine::search::engine_table(1, scheme).unwrap();
        table.store(child.key(), deep);
        let mut pos = root.clone();
        let config = SearchConfig::default();
        Searcher::new(config).search(&mut pos, &Limits::depth(1), Some(&table), &mut |_| {});
        let after = table.probe(child.key()).expect("the child is in the table");
        assert_eq!(after.depth == 10, kept, "{after:?} with {scheme}");
    }
    // The 1994 schemes keep their own rule even in the `full` profile.
    let config = Config {
        scheme: Scheme::Deep,
        ..Config::default()
    };
    let table = Table::<ChessEntry>::new(Size::Entries(1 << 12), config).unwrap();
    table.store(child.key(), deep);
    let mut pos = root.clone();
    Searcher::new(SearchConfig::default()).search(
        &mut pos,
        &Limits::depth(1),
        Some(&table),
        &mut |_| {},
    );
    assert_eq!(table.probe(child.key()).map(|e| e.depth), Some(0));
}

/// Issue 14: helpers publish their node counts every 1024 nodes, so the last `info` line of
/// a short search with many threads undercounted. The last line must equal the result.
#[test]
fn the_last_info_line_has_the_exact_node_count() {
    let table = Table::<ChessEntry>::with_mib(4).unwrap();
    let config = SearchConfig {
        threads: 6,
        ..SearchConfig::default()
    };
    for depth in 1..=6 {
        table.clear();
        let mut pos = Position::startpos();
        let mut last = None;
        let result = Searcher::new(config).search(
            &mut pos,
            &Limits::depth(depth),
            Some(&table),
            &mut |info| last = Some(info.nodes),
        );
        assert_eq!(last, Some(result.nodes), "depth {depth}");
    }
}
