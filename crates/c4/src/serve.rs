//! `transpo-c4 serve`: a page to play and analyse Connect Four in the browser, and the JSON
//! API behind it, on axum.
//!
//! ```text
//! GET /                         the page (also /?pos=4453: that position)
//! GET /api/solve?pos=4453       {"pos":"4453","score":-2,"columns":[…7],"best":[…],
//!     [&weak=1]                  "positions":n,"micros":t,"weak":false,"book":false}
//! GET /api/health               {"status":"ok","board":"7x6","width":7,"height":6,
//!                                "strength":"strong","workers":2,…}
//! ```
//!
//! A request without `weak` is solved with the server's strength (`serve --weak`: weak),
//! which `/api/health` names; `weak=1` or `weak=0` asks for one. A parameter given twice is a
//! 400, as is one the API does not know.
//!
//! The board is the pool's ([`BoardPool`]: `transpo-c4 serve --board WxH`), named by
//! `/api/health`; `pos` is a move sequence of it (columns `1`–`9`, then `a`, `b`, …).
//! `score` is the position's score in Pons' convention (what `transpo-c4` prints for the
//! line), `columns` each column's score from the side to move's view (`null` for a full
//! column), `best` the 1-based columns that reach `score`. Bad input is a 400 with
//! `{"error": why}`; a solve that runs past the time limit, or that waits that long for a
//! free solver, a 503. The server goes on either way.
//!
//! Why this shape: every request is solved on a blocking thread through a
//! [`SolverPool`](transpo_connect4::pool::SolverPool) slot, so concurrent requests share one table
//! and each can stop: at its deadline, or as soon as its client goes away (the request's future is
//! dropped, which cancels its [`Stop`]). A semaphore with one permit per slot makes requests wait
//! for a slot without holding a thread. The connections themselves (time limits, a cap, a bounded
//! shutdown that cancels the running solves) are [`serve`]'s, in `serve/listen.rs` and the modules
//! under `serve/listen/`; the signals that stop the server and the open-file limit are
//! `serve/os.rs`'s.

mod listen;
mod os;

pub use listen::{
    DEFAULT_HEADER_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, Ended, Limits,
    serve, serve_connection,
};
pub use os::{fit_open_file_limit, stop_signal};

use axum::extract::rejection::QueryRejection;
use axum::extract::{ConnectInfo, Extension, Query, Request as HttpRequest, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use transpo_connect4::pool::{Analysis, BoardPool, PoolError, Request, Stop};
use transpo_connect4::position::EMPTY_BOARD;
use transpo_connect4::score::Strength;

/// The page, embedded: the server needs no files and the page no network.
const INDEX_HTML: &str = include_str!("serve/page/index.html");
const APP_JS: &str = include_str!("serve/page/app.js");
const STYLE_CSS: &str = include_str!("serve/page/style.css");

/// How the server answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServeOptions {
    /// A request that has not been answered after this long gets a 503.
    pub max_time: Duration,
    /// Every request solves as on an empty table ([`Request::fresh`]): for measuring real
    /// solves; the table then saves nothing between requests.
    pub fresh_table: bool,
    /// The table's size as asked, for `/api/health`.
    pub hash_mib: u64,
    /// The strength of a request that does not say (`weak=1` or `weak=0` does), named by
    /// `/api/health`.
    pub strength: Strength,
}

/// What every handler shares.
#[derive(Clone)]
struct AppState {
    pool: Arc<dyn BoardPool>,
    /// One permit per pool slot.
    slots: Arc<Semaphore>,
    options: ServeOptions,
}

/// The server's routes over `pool` (a [`transpo_connect4::pool::SolverPool`] of any board), with one log
/// line per request on stderr.
pub fn router(pool: Arc<dyn BoardPool>, options: ServeOptions) -> Router {
    let state = AppState {
        slots: Arc::new(Semaphore::new(pool.workers())),
        pool,
        options,
    };
    // Any web page may ask the API (GET only, no credentials: nothing a browser guards).
    let api = Router::new()
        .route("/api/solve", get(solve))
        .route("/api/health", get(health))
        .layer(middleware::map_response(allow_any_origin));
    Router::new()
        .route(
            "/",
            get(|| async { page("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { page("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { page("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .merge(api)
        .fallback(not_found)
        .with_state(state)
        .layer(middleware::from_fn(log))
}

/// Lets pages of any origin read an API answer (`Access-Control-Allow-Origin: *`).
async fn allow_any_origin(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        header::HeaderValue::from_static("*"),
    );
    response
}

/// A static file of the page.
fn page(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// An error answer: `status` with `{"error": why}`.
fn error(status: StatusCode, why: impl Into<String>) -> Response {
    #[derive(Serialize)]
    struct Error {
        error: String,
    }
    (status, Json(Error { error: why.into() })).into_response()
}

async fn not_found(request: HttpRequest) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("no such page: {}", request.uri().path()),
    )
}

/// One line per request on stderr: client, method, path and query, status, time; or, for a
/// request whose client went away before the answer, that it did.
async fn log(request: HttpRequest, next: Next) -> Response {
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or_else(|| "-".to_string(), |c| c.0.to_string());
    let mut line = RequestLine {
        text: format!("{client} \"{} {}\"", request.method(), request.uri()),
        started: Instant::now(),
        answered: false,
    };
    let response = next.run(request).await;
    line.answered = true;
    eprintln!(
        "{} {} {:.3} ms",
        line.text,
        response.status().as_u16(),
        line.started.elapsed().as_secs_f64() * 1e3
    );
    response
}

/// A request being answered, logged when dropped unanswered: the server drops a request's
/// future when its connection closes, which also stops its solve ([`CancelOnDrop`]).
struct RequestLine {
    text: String,
    started: Instant,
    answered: bool,
}

impl Drop for RequestLine {
    fn drop(&mut self) {
        if !self.answered {
            eprintln!(
                "{} closed by the client after {:.3} ms, solve stopped",
                self.text,
                self.started.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

/// The answer of `/api/solve`.
#[derive(Serialize)]
struct Solved {
    pos: String,
    score: i32,
    columns: Vec<Option<i32>>,
    best: Vec<usize>,
    positions: u64,
    micros: u128,
    weak: bool,
    book: bool,
}

/// A checked `/api/solve` query, its parameters in the order given: the move sequence of a
/// position of `pool`'s board (`""` for the empty board), and the strength (`default`
/// without `weak`). A parameter unknown or given twice is refused.
fn parse_query(
    pairs: &[(String, String)],
    pool: &dyn BoardPool,
    default: Strength,
) -> Result<(String, Strength), String> {
    let mut query: HashMap<&str, &str> = HashMap::new();
    for (key, value) in pairs {
        if !matches!(key.as_str(), "pos" | "weak") {
            return Err(format!(
                "unknown parameter {key:?} (the parameters are pos and weak)"
            ));
        }
        if query.insert(key, value).is_some() {
            return Err(format!("parameter {key:?} given twice: give it once"));
        }
    }
    let moves = query.get("pos").map_or("", |p| p.trim());
    let characters = moves.chars().count();
    let most = pool.board().squares();
    if characters > most {
        return Err(format!(
            "pos has {characters} characters, more than the {most} moves a game can have"
        ));
    }
    pool.check(moves).map_err(|e| format!("pos: {e}"))?;
    let strength = match query.get("weak").copied() {
        None => default,
        Some("0" | "false") => Strength::Strong,
        Some("" | "1" | "true") => Strength::Weak,
        Some(other) => return Err(format!("weak={other:?}: use weak=1 or weak=0")),
    };
    let moves = if moves == EMPTY_BOARD { "" } else { moves };
    Ok((moves.to_string(), strength))
}

/// Cancels a solve's [`Stop`] when dropped: when the request's future is dropped because its
/// client went away, the solve stops too; after an answer, the solve is over anyway. Also
/// takes the solve out of the server's [`Running`] ones.
struct CancelOnDrop {
    stop: Arc<Stop>,
    running: Option<(Arc<Running>, u64)>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some((running, id)) = &self.running {
            running.remove(*id);
        }
    }
}

/// The solves running under a server, so that its shutdown can cancel them all. [`serve`]
/// gives each request its server's (a request extension); a router served some other way
/// has none, and its solves are only cancelled by their clients.
#[derive(Default)]
pub(crate) struct Running {
    inner: Mutex<RunningInner>,
}

#[derive(Default)]
struct RunningInner {
    next: u64,
    stops: HashMap<u64, Arc<Stop>>,
    stopping: bool,
}

impl Running {
    fn lock(&self) -> MutexGuard<'_, RunningInner> {
        // Plain data, valid whatever a panicking holder left half done.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a solve's stop; once the server is stopping, cancels it instead and returns
    /// `None`.
    fn add(&self, stop: &Arc<Stop>) -> Option<u64> {
        let mut inner = self.lock();
        if inner.stopping {
            stop.cancel();
            return None;
        }
        let id = inner.next;
        inner.next += 1;
        inner.stops.insert(id, Arc::clone(stop));
        Some(id)
    }

    fn remove(&self, id: u64) {
        self.lock().stops.remove(&id);
    }

    /// Whether the server is stopping: its solves are cancelled, and any new one too.
    fn is_stopping(&self) -> bool {
        self.lock().stopping
    }

    /// Cancels every running solve, and every later one; returns how many were running.
    pub(crate) fn stop_all(&self) -> usize {
        let mut inner = self.lock();
        inner.stopping = true;
        for stop in inner.stops.values() {
            stop.cancel();
        }
        inner.stops.len()
    }
}

async fn solve(
    State(state): State<AppState>,
    running: Option<Extension<Arc<Running>>>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let running = running.map(|Extension(running)| running);
    let started = Instant::now();
    let query = match query {
        Ok(Query(query)) => query,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.body_text()),
    };
    let (moves, strength) = match parse_query(&query, state.pool.as_ref(), state.options.strength) {
        Ok(parsed) => parsed,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    let max_time = state.options.max_time;
    let stopping = || {
        error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is stopping: try again later",
        )
    };
    if running.as_ref().is_some_and(|r| r.is_stopping()) {
        return stopping();
    }
    let late = || {
        error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "no answer within {} ms (the server's --max-ms)",
                max_time.as_millis()
            ),
        )
    };
    let deadline = tokio::time::Instant::now() + max_time.saturating_sub(started.elapsed());
    let slot = match tokio::time::timeout_at(deadline, state.slots.clone().acquire_owned()).await {
        Ok(Ok(slot)) => slot,
        // The semaphore is never closed; a timeout is the one way here.
        _ => return late(),
    };
    let stop = Arc::new(Stop::after(max_time.saturating_sub(started.elapsed())));
    let _cancel = CancelOnDrop {
        running: match &running {
            Some(running) => match running.add(&stop) {
                Some(id) => Some((Arc::clone(running), id)),
                None => return stopping(),
            },
            None => None,
        },
        stop: Arc::clone(&stop),
    };
    let pool = Arc::clone(&state.pool);
    let request = Request {
        strength,
        fresh: state.options.fresh_table,
    };
    let analysed = moves.clone();
    let analysis = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        pool.analyze_moves(&analysed, request, &stop)
    })
    .await;
    match analysis {
        Ok(Ok(analysis)) => Json(answer(moves, &analysis, strength, started)).into_response(),
        // Checked by `parse_query` already.
        Ok(Err(PoolError::Moves(e))) => error(StatusCode::BAD_REQUEST, format!("pos: {e}")),
        Ok(Err(PoolError::Stopped(_))) if running.as_ref().is_some_and(|r| r.is_stopping()) => {
            stopping()
        }
        Ok(Err(PoolError::Stopped(_))) => late(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the solve failed: {e}"),
        ),
    }
}

/// The JSON answer for an analysis.
fn answer(moves: String, analysis: &Analysis, strength: Strength, started: Instant) -> Solved {
    Solved {
        pos: moves,
        score: analysis.score,
        columns: analysis.columns.clone(),
        best: analysis.best().into_iter().map(|c| c + 1).collect(),
        positions: analysis.positions,
        micros: started.elapsed().as_micros(),
        weak: strength == Strength::Weak,
        book: analysis.from_book,
    }
}

async fn health(State(state): State<AppState>) -> Response {
    #[derive(Serialize)]
    struct BookInfo {
        positions: usize,
        depth: u32,
    }
    #[derive(Serialize)]
    struct Health {
        status: &'static str,
        version: &'static str,
        board: String,
        width: usize,
        height: usize,
        strength: &'static str,
        workers: usize,
        busy: usize,
        hash_mib: u64,
        max_ms: u128,
        fresh_table: bool,
        book: Option<BookInfo>,
    }
    let pool = &state.pool;
    let board = pool.board();
    Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        board: board.to_string(),
        width: board.width(),
        height: board.height(),
        strength: match state.options.strength {
            Strength::Strong => "strong",
            Strength::Weak => "weak",
        },
        workers: pool.workers(),
        busy: pool.busy(),
        hash_mib: state.options.hash_mib,
        max_ms: state.options.max_time.as_millis(),
        fresh_table: state.options.fresh_table,
        book: pool
            .book_size()
            .map(|(positions, depth)| BookInfo { positions, depth }),
    })
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn queries_parse_or_say_why_not() {
        let pool = transpo_connect4::pool::SolverPool::<7, 6>::new(1, 1).expect("1 MiB");
        let (moves, strength) =
            parse_query(&query(&[("pos", "4453")]), &pool, Strength::Strong).expect("valid");
        assert_eq!((moves.as_str(), strength), ("4453", Strength::Strong));
        let (moves, strength) =
            parse_query(&query(&[("weak", "1")]), &pool, Strength::Strong).expect("valid");
        assert_eq!((moves.as_str(), strength), ("", Strength::Weak));
        // The server's strength without `weak`, the asked one with it.
        let weak = |pairs: &[(&str, &str)]| {
            parse_query(&query(pairs), &pool, Strength::Weak).map(|(_, strength)| strength)
        };
        assert_eq!(weak(&[("pos", "44")]), Ok(Strength::Weak));
        assert_eq!(weak(&[("pos", "44"), ("weak", "0")]), Ok(Strength::Strong));
        for (bad, why) in [
            (query(&[("pos", "48")]), "out of range"),
            (query(&[("pos", "4x")]), "not a column"),
            (query(&[("pos", "1111111")]), "full"),
            (query(&[("pos", "1212121")]), "already won"),
            (query(&[("pos", &"4".repeat(43))]), "more than the 42"),
            (query(&[("pos", &"é".repeat(43))]), "pos has 43 characters"),
            (query(&[("pos", &"é".repeat(22))]), "not a column"),
            (query(&[("pos", "44"), ("weak", "yes")]), "weak=1"),
            (query(&[("position", "44")]), "unknown parameter"),
            (
                query(&[("pos", "3434"), ("pos", "3")]),
                "\"pos\" given twice",
            ),
            (
                query(&[("weak", "1"), ("pos", "3"), ("weak", "0")]),
                "\"weak\" given twice",
            ),
        ] {
            let e = parse_query(&bad, &pool, Strength::Strong).expect_err("invalid");
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        // Another board: its own columns and length.
        let wide = transpo_connect4::pool::SolverPool::<9, 7, u128>::new(1, 1).expect("1 MiB");
        let strong = Strength::Strong;
        assert!(parse_query(&query(&[("pos", "9988")]), &wide, strong).is_ok());
        assert!(parse_query(&query(&[("pos", "9988")]), &pool, strong).is_err());
        let e = parse_query(&query(&[("pos", &"é".repeat(64))]), &wide, strong).expect_err("long");
        assert!(e.contains("more than the 63 moves"), "{e}");
    }
}
