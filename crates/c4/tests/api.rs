//! `transpo-c4 serve`'s JSON API over real HTTP on 127.0.0.1 (a free port the system picks):
//! the scores of known positions (`fixtures/facts.txt`), each column's score against the
//! one-thread [`Solver`], every error case, a solve past the time limit, and 50 requests at
//! once, all answered correctly.

use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use transpo_c4::serve::{Limits, ServeOptions, router, serve};
use transpo_connect4::pool::{BoardPool, SolverPool};
use transpo_connect4::{Position, Solver, Strength};

const FACTS: &str = include_str!("../../connect4/tests/fixtures/facts.txt");

/// `(moves, score)` of every fact.
fn facts() -> Vec<(&'static str, i32)> {
    FACTS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            let moves = f.next().expect("moves");
            (moves, f.next().expect("score").parse().expect("integer"))
        })
        .collect()
}

/// A server on a free port of 127.0.0.1, serving until the test ends.
struct Server {
    base: String,
    _runtime: tokio::runtime::Runtime,
}

/// Starts a server with `workers` solvers and a time limit of `max_ms`.
fn start(workers: usize, max_ms: u64) -> Server {
    let pool = SolverPool::<7, 6>::new(16, workers).expect("16 MiB");
    start_pool(Arc::new(pool), max_ms)
}

/// Starts a server on `pool` (of any board) with a time limit of `max_ms`.
fn start_pool(pool: Arc<dyn BoardPool>, max_ms: u64) -> Server {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let options = ServeOptions {
        max_time: Duration::from_millis(max_ms),
        fresh_table: false,
        hash_mib: 16,
        strength: transpo_connect4::Strength::Strong,
    };
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a free port");
    let base = format!("http://{}", listener.local_addr().expect("bound"));
    runtime.spawn(serve(
        listener,
        router(pool, options),
        Limits::default(),
        std::future::pending(),
    ));
    Server {
        base,
        _runtime: runtime,
    }
}

/// GETs `path` and returns the status and the JSON body.
fn get(server: &Server, path: &str) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into();
    let mut response = agent
        .get(format!("{}{path}", server.base))
        .call()
        .expect("an HTTP answer");
    let status = response.status().as_u16();
    if path.starts_with("/api/") && status != 404 {
        let origin = response.headers().get("access-control-allow-origin");
        assert_eq!(origin.and_then(|v| v.to_str().ok()), Some("*"), "{path}");
    }
    let body = response
        .body_mut()
        .read_json::<Value>()
        .expect("a JSON body");
    (status, body)
}

/// The columns of a `/api/solve` answer.
fn columns(body: &Value) -> Vec<Option<i32>> {
    body["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c.as_i64().map(|c| c as i32))
        .collect()
}

#[test]
fn known_positions_score_as_the_facts_and_the_solver_say() {
    let server = start(2, 60_000);
    let mut solver = Solver::new(16).expect("16 MiB");
    for (moves, score) in facts() {
        let (status, body) = get(&server, &format!("/api/solve?pos={moves}"));
        assert_eq!(status, 200, "{moves}: {body}");
        assert_eq!(body["pos"], moves);
        assert_eq!(body["score"], score, "{moves}");
        let pos = Position::from_moves(moves).expect("a fact is a position");
        solver.reset();
        let expected = solver.analyze(&pos, Strength::Strong).to_vec();
        assert_eq!(columns(&body), expected, "{moves}");
        let best: Vec<usize> = (0..7)
            .filter(|&c| expected[c] == Some(score))
            .map(|c| c + 1)
            .collect();
        assert_eq!(body["best"], serde_json::json!(best), "{moves}");
        assert!(body["positions"].is_u64() && body["micros"].is_u64());
        assert_eq!(
            (body["weak"].clone(), body["book"].clone()),
            (false.into(), false.into())
        );

        let (status, body) = get(&server, &format!("/api/solve?pos={moves}&weak=1"));
        assert_eq!(status, 200, "{moves}: {body}");
        assert_eq!(body["score"], score.signum(), "{moves} weak");
        let signs: Vec<Option<i32>> = expected.iter().map(|s| s.map(i32::signum)).collect();
        assert_eq!(columns(&body), signs, "{moves} weak");
    }
}

#[test]
fn a_full_column_scores_null_and_a_win_now_scores_the_win() {
    let server = start(1, 60_000);
    // Column 1 holds six stones.
    let moves = "1111112323";
    let (status, body) = get(&server, &format!("/api/solve?pos={moves}"));
    assert_eq!(status, 200, "{body}");
    let cols = columns(&body);
    assert_eq!(cols[0], None, "column 1 is full");
    let pos = Position::from_moves(moves).expect("legal");
    let mut solver = Solver::new(16).expect("16 MiB");
    assert_eq!(cols, solver.analyze(&pos, Strength::Strong).to_vec());
    // A position where the side to move has three in a row open: the win scores 22 - k.
    let (status, body) = get(&server, "/api/solve?pos=112233");
    assert_eq!(status, 200, "{body}");
    // The first player's fourth stone, in column 4, wins: 22 - 4 = 18.
    assert_eq!(columns(&body)[3], Some(18));
    assert_eq!(body["score"], 18);
    assert_eq!(body["best"], serde_json::json!([4]));
}

#[test]
fn bad_requests_get_a_reason_and_the_server_goes_on() {
    let server = start(1, 60_000);
    let long = "4".repeat(43);
    for (query, why) in [
        ("pos=48", "out of range"),
        ("pos=40", "out of range"),
        ("pos=4x", "not a column"),
        ("pos=%FF", "not a column"),
        ("pos=1111111", "is full"),
        ("pos=1212121", "already won"),
        (&format!("pos={long}"), "more than the 42"),
        // Characters, not bytes: 22 é (each 2 bytes in UTF-8, and each shown as U+FFFD, 3
        // bytes, when sent as Latin-1 %E9) are 22 characters, within the 42.
        (&format!("pos={}", "%C3%A9".repeat(22)), "not a column"),
        (&format!("pos={}", "%E9".repeat(22)), "not a column"),
        (
            &format!("pos={}", "%C3%A9".repeat(43)),
            "pos has 43 characters",
        ),
        ("pos=44&weak=maybe", "weak=1"),
        ("position=44", "unknown parameter"),
    ] {
        let (status, body) = get(&server, &format!("/api/solve?{query}"));
        assert_eq!(status, 400, "{query}: {body}");
        let error = body["error"].as_str().expect("an error message");
        assert!(error.contains(why), "{query}: {error}");
    }
    let (status, body) = get(&server, "/api/nothing");
    assert_eq!(status, 404, "{body}");
    assert!(body["error"].is_string());
    // Still serving.
    let (status, body) = get(&server, "/api/health");
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));
    let (status, body) = get(
        &server,
        "/api/solve?pos=2252576253462244111563365343671351441",
    );
    assert_eq!((status, body["score"].as_i64()), (200, Some(-1)));
}

#[test]
fn a_solve_past_the_limit_is_a_503_and_frees_its_solver() {
    // One solver, 200 ms: the empty board's seven children take far longer.
    let server = start(1, 200);
    let (status, body) = get(&server, "/api/solve?pos=");
    assert_eq!(status, 503, "{body}");
    assert!(body["error"].as_str().expect("error").contains("200 ms"));
    // The one solver is free again: a quick position is answered.
    let (status, body) = get(
        &server,
        "/api/solve?pos=2252576253462244111563365343671351441",
    );
    assert_eq!((status, body["score"].as_i64()), (200, Some(-1)), "{body}");
    let (_, health) = get(&server, "/api/health");
    assert_eq!(health["busy"], 0);
}

#[test]
fn fifty_concurrent_requests_are_all_answered_correctly() {
    let server = Arc::new(start(2, 120_000));
    let facts = facts();
    let threads: Vec<_> = (0..50)
        .map(|i| {
            let (moves, score) = facts[i % facts.len()];
            let server = Arc::clone(&server);
            std::thread::spawn(move || {
                let (status, body) = get(&server, &format!("/api/solve?pos={moves}"));
                (moves, score, status, body)
            })
        })
        .collect();
    for thread in threads {
        let (moves, score, status, body) = thread.join().expect("a client thread");
        assert_eq!(status, 200, "{moves}: {body}");
        assert_eq!(body["score"], score, "{moves}");
    }
}

/// Another board (`serve --board`): 6×7 and the wide 7×9. Health names the board, positions
/// are its move sequences, and each column's score is the one-thread solver's of that board.
#[test]
fn other_boards_are_served_with_their_own_scores() {
    use transpo_connect4::position::{Bitboard, Position as AnyPosition};
    use transpo_connect4::solver::Solver as AnySolver;
    fn check<const W: usize, const H: usize, B: Bitboard>(positions: &[&str]) {
        let server = start_pool(
            Arc::new(SolverPool::<W, H, B>::new(16, 2).expect("16 MiB")),
            60_000,
        );
        let (status, health) = get(&server, "/api/health");
        assert_eq!(status, 200);
        assert_eq!(health["board"], format!("{W}x{H}"));
        assert_eq!(
            (health["width"].as_u64(), health["height"].as_u64()),
            (Some(W as u64), Some(H as u64))
        );
        let mut solver = AnySolver::<W, H, B>::new(16).expect("16 MiB");
        for moves in positions {
            let (status, body) = get(&server, &format!("/api/solve?pos={moves}"));
            assert_eq!(status, 200, "{W}x{H} {moves}: {body}");
            let pos = AnyPosition::<W, H, B>::from_moves(moves).expect("valid");
            let expected: Vec<Option<i32>> = solver.analyze(&pos, Strength::Strong).to_vec();
            assert_eq!(columns(&body), expected, "{W}x{H} {moves}");
            assert_eq!(body["columns"].as_array().map(Vec::len), Some(W));
        }
        // A column the board does not have, and one it has that 7×6 has not.
        let (status, body) = get(&server, &format!("/api/solve?pos={}", W + 1));
        assert_eq!(status, 400, "{body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("out of range")),
            "{body}"
        );
    }
    check::<6, 7, u64>(&["565425131411644246", "122664662531224635"]);
    check::<7, 9, u128>(&["4172725614622737534114342365723443664367"]);
}

/// The built-in book answers the analysis of every position up to 7 stones without a search
/// (its children, with up to 8 stones, are all in it), and as the solver scores them.
#[test]
fn the_built_in_book_answers_a_game_to_7_stones_at_once() {
    let mut pool = SolverPool::<7, 6>::new(16, 1).expect("16 MiB");
    pool.set_book(transpo_connect4::Book::built_in());
    let server = start_pool(Arc::new(pool), 60_000);
    let mut solver = Solver::new(64).expect("64 MiB");
    for moves in [
        "-", "4", "44", "4453", "12345", "444455", "7654321", "4444333",
    ] {
        let (status, body) = get(&server, &format!("/api/solve?pos={moves}"));
        assert_eq!(status, 200, "{moves}: {body}");
        assert_eq!(body["book"], true, "{moves}: {body}");
        // The solver's own analysis takes a few seconds at 7 stones, more before.
        if moves.len() == 7 {
            let pos = Position::from_moves(moves).expect("a position");
            solver.reset();
            let expected = solver.analyze(&pos, Strength::Strong).to_vec();
            assert_eq!(columns(&body), expected, "{moves}");
        }
    }
    // 8 stones: the children are past the book, so the answer is a search.
    let (status, body) = get(&server, "/api/solve?pos=44443333");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["book"], false, "{body}");
}
