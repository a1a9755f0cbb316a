//! `transpo-c4 serve`'s HTTP server on any bytes: the input is what a client sends on one
//! connection, into hyper's HTTP/1 server with the real router (page, `/api/solve`,
//! `/api/health`) and the server's own connection handling
//! (`transpo_c4::serve::serve_connection`: header and idle timeouts), over an
//! in-memory `tokio::io::duplex` pipe. The solver is bounded: a 1 MiB table, one worker, the
//! built-in book, every request solved as on an empty table, 5 ms per request.
//!
//! Time is tokio's paused clock: once the input is sent and answered, the clock jumps to the
//! next timeout and the connection closes, so every run ends (a run that hangs is a
//! finding). Beyond "no panic, no hang": whatever comes back starts with a well-formed HTTP/1
//! status line.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use transpo_connect4::Book;
use transpo_connect4::pool::SolverPool;
use transpo_c4::serve::{Limits, ServeOptions, router, serve_connection};

/// The longest input used: well within the pipe's buffer, so sending never waits on the
/// server.
const MAX_INPUT: usize = 64 * 1024;

struct Fixture {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    limits: Limits,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("a runtime");
        let mut pool = SolverPool::new(1, 1).expect("a 1 MiB table");
        pool.set_book(Book::built_in());
        let options = ServeOptions {
            max_time: Duration::from_millis(5),
            fresh_table: true,
            hash_mib: 1,
        };
        Fixture {
            runtime,
            router: router(Arc::new(pool), options),
            limits: Limits {
                header_timeout: Duration::from_secs(1),
                idle_timeout: Duration::from_secs(2),
                max_connections: 1,
                shutdown_grace: Duration::from_secs(1),
            },
        }
    })
}

/// Whether `out` starts with an HTTP/1 status line: `HTTP/1.1 NNN ` (or `HTTP/1.0`, the
/// answer to an HTTP/1.0 request).
fn status_line_ok(out: &[u8]) -> bool {
    out.len() >= 13
        && (out.starts_with(b"HTTP/1.1 ") || out.starts_with(b"HTTP/1.0 "))
        && out[9..12].iter().all(u8::is_ascii_digit)
        && out[12] == b' '
}

fuzz_target!(|data: &[u8]| {
    let data = &data[..data.len().min(MAX_INPUT)];
    let fixture = fixture();
    let out = fixture.runtime.block_on(async {
        let (client, server) = tokio::io::duplex(2 * MAX_INPUT);
        let peer = "127.0.0.1:9".parse().expect("an address");
        let connection = serve_connection(server, peer, fixture.router.clone(), fixture.limits);
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let client = async {
            // The server may close before it has read everything; that is its right.
            let _ = to_server.write_all(data).await;
            let mut out = Vec::new();
            let _ = from_server.read_to_end(&mut out).await;
            // The client's half stays open until the server has closed: the server's
            // timeouts, not the client, end the connection.
            drop(to_server);
            out
        };
        let (_ended, out) = tokio::join!(connection, client);
        out
    });
    assert!(
        out.is_empty() || status_line_ok(&out),
        "not an HTTP/1 answer: {:?}",
        String::from_utf8_lossy(&out[..out.len().min(200)])
    );
});
