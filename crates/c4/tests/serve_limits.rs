//! `transpo-c4 serve` under hostile clients, over real TCP on 127.0.0.1: a stalled
//! request head is closed after the header timeout, an idle kept-alive connection after the
//! idle timeout (but never one whose request is being solved), the connection cap makes room
//! by closing the connection waiting longest (or refuses a new one when all are busy), and
//! SIGINT or SIGTERM stops the real binary within 5 s with a half-sent request open and a
//! solve running. Every wait is bounded: a server that hangs fails the test, never CI.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use transpo_c4::serve::{Limits, ServeOptions, router, serve};
use transpo_connect4::pool::SolverPool;
use transpo_testkit::{Run, Running};

const BIN: &str = env!("CARGO_BIN_EXE_transpo-c4");

/// A server on a free port of 127.0.0.1, serving until the test ends.
struct Server {
    address: SocketAddr,
    _runtime: tokio::runtime::Runtime,
}

/// Starts a server with `workers` solvers (no book, so the empty board takes minutes), a
/// time limit of `max_ms` and `limits`.
fn start(workers: usize, max_ms: u64, limits: Limits) -> Server {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let pool = SolverPool::<7, 6>::new(16, workers).expect("16 MiB");
    let options = ServeOptions {
        max_time: Duration::from_millis(max_ms),
        fresh_table: false,
        hash_mib: 16,
        strength: transpo_connect4::Strength::Strong,
    };
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a free port");
    let address = listener.local_addr().expect("bound");
    runtime.spawn(serve(
        listener,
        router(Arc::new(pool), options),
        limits,
        std::future::pending(),
    ));
    Server {
        address,
        _runtime: runtime,
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Opens a connection and sends `bytes` (maybe a request cut short, maybe nothing).
fn send(address: SocketAddr, bytes: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream.write_all(bytes.as_bytes()).expect("send");
    stream
}

/// Reads one answer (headers and a `content-length` body) from `stream`, within 10 s:
/// `(status, body)`.
fn answer(stream: &mut TcpStream) -> (u16, String) {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => got.push(byte[0]),
            other => panic!(
                "no complete answer head ({other:?}): {:?}",
                String::from_utf8_lossy(&got)
            ),
        }
    }
    let head = String::from_utf8(got).expect("an ASCII head");
    let status = head[9..12].parse().expect("a status");
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().expect("a length"))
        })
        .expect("a content-length");
    let mut body = vec![0; length];
    stream.read_exact(&mut body).expect("the body");
    (status, String::from_utf8(body).expect("a UTF-8 body"))
}

/// Waits, at most `limit`, for the server to close `stream`; returns how long that took.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> Duration {
    let started = Instant::now();
    stream.set_read_timeout(Some(limit)).expect("timeout");
    let mut buf = [0u8; 256];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return started.elapsed(),
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return started.elapsed(),
            Err(e) => panic!("still open after {:?} ({e})", started.elapsed().min(limit)),
        }
    }
}

/// Whether `stream` is still open after `wait` (nothing read, no end).
fn still_open(stream: &mut TcpStream, wait: Duration) -> bool {
    stream.set_read_timeout(Some(wait)).expect("timeout");
    let mut buf = [0u8; 16];
    matches!(stream.read(&mut buf), Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut))
}

const HEALTH: &str = "GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n";

/// The interim answer a busy connection whose client half-closed gets, to tell it from one
/// closed.
const INTERIM: &str = "HTTP/1.1 102 Processing\r\n\r\n";

#[test]
fn a_request_head_not_complete_in_time_is_closed() {
    let server = start(
        1,
        60_000,
        Limits {
            header_timeout: ms(300),
            idle_timeout: ms(10_000),
            ..Limits::default()
        },
    );
    // Half a head, then nothing; and nothing at all.
    let opened = Instant::now();
    let mut half = send(server.address, "GET /api/health HTTP/1.1\r\nHost: t\r\n");
    let mut silent = send(server.address, "");
    for stream in [&mut half, &mut silent] {
        closed_within(stream, Duration::from_secs(5));
        let took = opened.elapsed();
        assert!(took >= ms(250), "closed after {took:?}, before the 300 ms");
    }
    // A kept-alive connection that starts a second head and stalls: closed 300 ms after
    // that head's first byte, not after the 10 s idle timeout.
    let mut kept = send(server.address, HEALTH);
    assert_eq!(answer(&mut kept).0, 200);
    std::thread::sleep(ms(100));
    kept.write_all(b"GET /api/health HTTP/1.1\r\n")
        .expect("send");
    let took = closed_within(&mut kept, Duration::from_secs(5));
    assert!(took >= ms(200), "closed after {took:?}");
    // A complete request is answered as ever.
    let mut fine = send(server.address, HEALTH);
    assert_eq!(answer(&mut fine).0, 200);
}

#[test]
fn an_idle_connection_is_closed_but_never_one_waiting_on_its_solve() {
    let server = start(
        1,
        1_500,
        Limits {
            header_timeout: ms(5_000),
            idle_timeout: ms(400),
            ..Limits::default()
        },
    );
    let mut idle = send(server.address, HEALTH);
    assert_eq!(answer(&mut idle).0, 200);
    // The empty board, no book: the solve runs until the 1.5 s limit, far past the idle
    // timeout, and its answer still comes.
    let mut solving = send(
        server.address,
        "GET /api/solve?pos= HTTP/1.1\r\nHost: t\r\n\r\n",
    );
    let took = closed_within(&mut idle, Duration::from_secs(5));
    assert!(
        took >= ms(300),
        "idle connection closed after {took:?}, before 400 ms"
    );
    let started = Instant::now();
    let (status, body) = answer(&mut solving);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("1500 ms"), "{body}");
    assert!(
        started.elapsed() >= ms(800),
        "the answer came after {:?}, so the solve was not long",
        started.elapsed()
    );
    // Then it is idle in turn, and closed.
    closed_within(&mut solving, Duration::from_secs(5));
}

#[test]
fn at_the_cap_a_new_connection_closes_the_one_waiting_longest() {
    let server = start(
        1,
        60_000,
        Limits {
            header_timeout: ms(20_000),
            max_connections: 3,
            ..Limits::default()
        },
    );
    let mut stalled: Vec<TcpStream> = (0..3)
        .map(|_| {
            let stream = send(server.address, "GET /api/health HTTP/1.1\r\n");
            std::thread::sleep(ms(50));
            stream
        })
        .collect();
    // The fourth connection is served: the first stalled one made room.
    let started = Instant::now();
    let mut probe = send(server.address, HEALTH);
    assert_eq!(answer(&mut probe).0, 200);
    assert!(started.elapsed() < Duration::from_secs(2));
    closed_within(&mut stalled[0], Duration::from_secs(2));
    assert!(
        still_open(&mut stalled[1], ms(200)),
        "the second stalled one"
    );
    // 200 more stalled connections: a health probe still answers at once.
    for _ in 0..200 {
        stalled.push(send(server.address, "GET /api/health HTTP/1.1\r\n"));
    }
    for _ in 0..5 {
        let started = Instant::now();
        let mut probe = send(server.address, HEALTH);
        assert_eq!(answer(&mut probe).0, 200);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
    }
}

#[test]
fn at_the_cap_with_every_connection_busy_a_new_one_is_closed_at_once() {
    let server = start(
        2,
        3_000,
        Limits {
            max_connections: 2,
            ..Limits::default()
        },
    );
    let mut busy: Vec<TcpStream> = (0..2)
        .map(|_| {
            send(
                server.address,
                "GET /api/solve?pos= HTTP/1.1\r\nHost: t\r\n\r\n",
            )
        })
        .collect();
    std::thread::sleep(ms(300));
    let mut refused = send(server.address, "");
    let took = closed_within(&mut refused, Duration::from_secs(2));
    assert!(took < ms(1_000), "{took:?}");
    // The busy ones still get their answers (503 at their time limit).
    for stream in &mut busy {
        assert_eq!(answer(stream).0, 503);
    }
}

/// `transpo-c4 serve` on a free port, killed if the test ends before it does.
struct Binary {
    running: Running,
    address: SocketAddr,
    /// Its stderr, line by line.
    lines: Receiver<String>,
}

impl Binary {
    fn start(extra: &[&str]) -> Binary {
        let mut running = Run::new(BIN)
            .args(["serve", "--port", "0", "--threads", "1", "--hash-mib", "16"])
            .args(extra)
            .spawn();
        let stderr = running.child.stderr.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut binary = Binary {
            running,
            address: SocketAddr::from(([127, 0, 0, 1], 0)),
            lines,
        };
        let line = binary.line_with("listening on http://", Duration::from_secs(20));
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .expect("an address");
        binary.address = address.parse().expect("host:port");
        binary
    }

    /// The first line of stderr that contains `text`, waiting at most `limit`.
    fn line_with(&mut self, text: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => panic!("no line with {text:?} within {limit:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("stderr ended before {text:?}"),
            }
        }
    }

    fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.running.child.id()).expect("a pid");
        // SAFETY: `kill` only sends a signal to our own child, which has not been waited
        // for yet, so its pid is still its own.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "kill");
    }

    /// Waits, at most `limit`, for the server to exit; returns its status code and how long
    /// it took.
    fn exited_within(&mut self, limit: Duration) -> (Option<i32>, Duration) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.running.child.try_wait().expect("wait") {
                return (status.code(), started.elapsed());
            }
            assert!(started.elapsed() < limit, "still running after {limit:?}");
            std::thread::sleep(ms(10));
        }
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.running.child.kill();
        let _ = self.running.child.wait();
    }
}

/// A half-sent request, an idle kept-alive connection and a running solve are open when
/// `signal` arrives; the server stops within 5 s (the default 10 s header timeout plays no
/// part), the solve is cancelled and answered 503, and the log says so.
fn stops_within_5_s(signal: libc::c_int) {
    let mut server = Binary::start(&["--no-book"]);
    let mut half = send(
        server.address,
        "GET /api/solve?pos=4 HTTP/1.1\r\nHost: t\r\n",
    );
    let mut idle = send(server.address, HEALTH);
    assert_eq!(answer(&mut idle).0, 200);
    let mut solving = send(
        server.address,
        "GET /api/solve?pos= HTTP/1.1\r\nHost: t\r\n\r\n",
    );
    std::thread::sleep(ms(300));
    server.signal(signal);
    let (status, body) = answer(&mut solving);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("stopping"), "{body}");
    let (code, took) = server.exited_within(Duration::from_secs(5));
    assert_eq!(code, Some(0));
    assert!(took < Duration::from_secs(5), "{took:?}");
    closed_within(&mut half, Duration::from_secs(1));
    closed_within(&mut idle, Duration::from_secs(1));
    server.line_with("1 running solve cancelled", Duration::from_secs(1));
    server.line_with("stopped in", Duration::from_secs(1));
}

#[test]
fn sigint_stops_the_server_within_5_s_whatever_the_clients_do() {
    stops_within_5_s(libc::SIGINT);
}

#[test]
fn sigterm_stops_the_server_within_5_s_whatever_the_clients_do() {
    stops_within_5_s(libc::SIGTERM);
}

#[test]
fn a_second_sigint_exits_at_once() {
    let mut server = Binary::start(&[]);
    let _half = send(server.address, "GET /api/health HTTP/1.1\r\n");
    server.signal(libc::SIGINT);
    server.signal(libc::SIGINT);
    let (code, took) = server.exited_within(Duration::from_secs(5));
    // Either the shutdown was already over (0) or the second signal ended it (130).
    assert!(matches!(code, Some(0 | 130)), "{code:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// `serve --weak` solves a request that names no strength weakly
/// and says so on `/api/health`; a client that half-closes after its request (as `nc -N`
/// does) still gets the answer; a parameter given twice is a 400, not the last one's answer.
#[test]
fn serve_weak_half_closed_clients_and_repeated_parameters() {
    let binary = Binary::start(&["--board", "4x4", "--weak"]);
    // The whole request, then the write side shut: the answer must still come.
    let half_closed = |target: &str| {
        let mut stream = TcpStream::connect(binary.address).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
        )
        .expect("request");
        stream
            .shutdown(std::net::Shutdown::Write)
            .expect("half-close");
        let mut text = String::new();
        let _ = stream.read_to_string(&mut text);
        // A request still running 40 ms in gets an interim answer first.
        text.trim_start_matches(INTERIM).to_string()
    };
    let health = half_closed("/api/health");
    assert!(health.starts_with("HTTP/1.1 200"), "{health:?}");
    assert!(health.contains("\"strength\":\"weak\""), "{health}");
    // Without `weak`, the server's strength; `weak=0` asks for a strong solve. On 4x4 the
    // empty board's first player draws (strong score 0), and "1" leaves a draw too.
    let weak = half_closed("/api/solve?pos=1");
    assert!(weak.starts_with("HTTP/1.1 200"), "{weak}");
    assert!(weak.contains("\"weak\":true"), "{weak}");
    let strong = half_closed("/api/solve?pos=1&weak=0");
    assert!(strong.contains("\"weak\":false"), "{strong}");
    let repeated = half_closed("/api/solve?pos=3434&pos=3");
    assert!(repeated.starts_with("HTTP/1.1 400"), "{repeated}");
    assert!(repeated.contains("given twice"), "{repeated}");
}

/// The server's slots solving now, as `/api/health` says.
fn busy(address: SocketAddr) -> u64 {
    let mut stream = send(address, HEALTH);
    let (status, body) = answer(&mut stream);
    assert_eq!(status, 200, "{body}");
    let health: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    health["busy"].as_u64().expect("a busy count")
}

/// Waits, at most `limit`, for the server to have `slots` slots solving; returns how long
/// that took, or `None` if it did not happen.
fn busy_within(address: SocketAddr, slots: u64, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if busy(address) == slots {
            return Some(started.elapsed());
        }
        std::thread::sleep(ms(2));
    }
    None
}

/// A client that closes its connection (FIN, over HTTP/1.1 or
/// HTTP/1.0) or resets it (RST) while its solve runs frees the solver at once, not when the
/// solve ends (the empty board with no book: minutes). The bound here is loose for a busy
/// machine; the time it takes is printed (docs/connect4/serve.md has the runs).
#[test]
fn a_client_that_closes_or_resets_frees_its_solver() {
    let server = start(1, 120_000, Limits::default());
    for (how, version) in [
        ("close", "HTTP/1.1"),
        ("close", "HTTP/1.0"),
        ("reset", "HTTP/1.1"),
    ] {
        let client = send(
            server.address,
            &format!("GET /api/solve?pos= {version}\r\nHost: t\r\n\r\n"),
        );
        assert!(
            busy_within(server.address, 1, Duration::from_secs(10)).is_some(),
            "the solve did not start"
        );
        if how == "reset" {
            // A zero linger time makes the close a reset.
            let _runtime = server._runtime.enter();
            client.set_nonblocking(true).expect("non-blocking");
            let client = tokio::net::TcpStream::from_std(client).expect("a tokio stream");
            client.set_zero_linger().expect("SO_LINGER");
            drop(client);
        } else {
            drop(client);
        }
        let freed = busy_within(server.address, 0, Duration::from_secs(3));
        eprintln!("{how} ({version}): solver freed after {freed:?}");
        assert!(
            freed.is_some(),
            "{how} ({version}): the solve still runs 3 s after its client left"
        );
    }
    // The server answers the next client at once: a position near the end.
    let mut next = send(
        server.address,
        "GET /api/solve?pos=2252576253462244111563365343671351441 HTTP/1.1\r\nHost: t\r\n\r\n",
    );
    let (status, body) = answer(&mut next);
    assert_eq!(status, 200, "{body}");
}

/// A position whose columns take some 0.2 s to solve on one thread (far past the server's
/// first look at a busy connection, 40 ms in) with a 16 MiB table.
const LONG: &str = "4453624";

/// A client that half-closes after its request, whose solve runs past the first look at
/// the connection, gets the interim answer and then the answer (the one-thread solver's
/// scores): it is not taken for gone.
#[test]
fn a_half_closed_client_of_a_long_solve_gets_its_answer() {
    let server = start(1, 60_000, Limits::default());
    let mut stream = send(
        server.address,
        &format!("GET /api/solve?pos={LONG} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"),
    );
    stream
        .shutdown(std::net::Shutdown::Write)
        .expect("half-close");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("the answers");
    let answer = text
        .strip_prefix(INTERIM)
        .unwrap_or_else(|| panic!("no interim answer first: {text:?}"));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let body = answer.split("\r\n\r\n").nth(1).expect("a body");
    let body: serde_json::Value = serde_json::from_str(body).expect("JSON");
    let pos = transpo_connect4::Position::from_moves(LONG).expect("legal moves");
    let mut solver = transpo_connect4::Solver::new(16).expect("16 MiB");
    let expected = solver.analyze(&pos, transpo_connect4::Strength::Strong);
    assert_eq!(body["columns"], serde_json::json!(expected), "{answer}");
}
