//! `transpo-c4 serve`: the web page and JSON API ([`transpo_c4::serve`]) until a signal
//! stops it.

use super::Solving;
use std::sync::Arc;
use std::time::Duration;
use transpo_c4::serve::{
    Limits, ServeOptions, fit_open_file_limit, router, serve as serve_on, stop_signal,
};
use transpo_cli::Failure;
use transpo_connect4::Strength;
use transpo_connect4::book::Book;
use transpo_connect4::pool::{BoardPool, SolverPool};
use transpo_connect4::position::Bitboard;

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// The TCP port (0: any free port; the address is printed on stderr).
    #[arg(long, default_value_t = 8080)]
    pub(crate) port: u16,
    /// The address to listen on (0.0.0.0 for every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub(crate) bind: std::net::IpAddr,
    /// Answer 503 to a request not solved within this many milliseconds.
    #[arg(long, default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_ms: u64,
    /// Solve every request as on an empty table, for measuring real solves (slower: the
    /// table then saves nothing between requests).
    #[arg(long)]
    pub(crate) fresh_table: bool,
    /// Without --book, serve with no book at all rather than the built-in one (every position
    /// up to 8 stones): early positions then take seconds to minutes.
    #[arg(long, conflicts_with = "book")]
    pub(crate) no_book: bool,
    /// Close a connection whose request head (request line and headers) is not complete
    /// this many milliseconds after it opened, or after the head's first byte on a kept-alive
    /// connection.
    #[arg(long, default_value_t = transpo_c4::serve::DEFAULT_HEADER_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) header_timeout_ms: u64,
    /// Close a kept-alive connection after this many milliseconds with no request in flight
    /// (a request being solved is never cut: --max-ms bounds it).
    #[arg(long, default_value_t = transpo_c4::serve::DEFAULT_IDLE_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) idle_timeout_ms: u64,
    /// The most connections open at once (lowered to fit `ulimit -n` if need be). At the
    /// cap, a new connection closes the one waiting longest with no request in flight, or is
    /// closed at once if every one has a request in flight.
    #[arg(long, default_value_t = transpo_c4::serve::DEFAULT_MAX_CONNECTIONS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_connections: u64,
}

/// The pool `transpo-c4 serve` answers from, on the board `W`×`H`: `--book`, or the built-in
/// book on 7×6 unless `--no-book`.
pub(crate) fn pool<const W: usize, const H: usize, B: Bitboard>(
    solving: Solving<W, H, B>,
    args: &ServeArgs,
) -> Result<Arc<dyn BoardPool>, Failure> {
    let mut pool = SolverPool::<W, H, B>::new(solving.hash_mib, solving.threads)
        .map_err(super::table_failure)?;
    let book = solving.book;
    if let Some(book) = book.or_else(|| (!args.no_book).then(Book::built_in_of_board).flatten()) {
        pool.set_book(book);
    }
    Ok(Arc::new(pool))
}

/// `transpo-c4 serve` on `pool` (a table of `hash_mib` MiB), solving a request that names no
/// strength with `strength` (`--weak`): serves until SIGINT (Ctrl-C) or
/// SIGTERM, then stops within a few seconds (a second signal: at once). An address that
/// cannot be listened on is bad usage.
pub(crate) fn run(
    args: &ServeArgs,
    hash_mib: u64,
    strength: Strength,
    pool: Arc<dyn BoardPool>,
) -> Result<(), Failure> {
    let board = pool.board();
    let threads = pool.workers();
    let options = ServeOptions {
        max_time: Duration::from_millis(args.max_ms),
        fresh_table: args.fresh_table,
        hash_mib,
        strength,
    };
    let (max_connections, fitted) =
        fit_open_file_limit(usize::try_from(args.max_connections).unwrap_or(usize::MAX));
    if let Some(fitted) = fitted {
        eprintln!("{fitted}");
    }
    let limits = Limits {
        header_timeout: Duration::from_millis(args.header_timeout_ms),
        idle_timeout: Duration::from_millis(args.idle_timeout_ms),
        max_connections,
        ..Limits::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::run(format!("cannot start the server: {e}")))?;
    let served = runtime.block_on(async {
        let address = std::net::SocketAddr::new(args.bind, args.port);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| Failure::usage(format!("cannot listen on {address}: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| Failure::run(format!("the server's address: {e}")))?;
        // Watched before the announcement: a signal sent on seeing it is never missed.
        let stop = stop_signal();
        eprintln!(
            "listening on http://{local}/ ({board}, {}, {threads} solver{}, {} MiB table{}; \
             Ctrl-C stops)",
            match strength {
                Strength::Strong => "strong solves",
                Strength::Weak => "weak solves unless asked weak=0",
            },
            if threads == 1 { "" } else { "s" },
            hash_mib,
            pool.book_size().map_or_else(
                || ", no book".to_string(),
                |(positions, _)| format!(", book of {positions} positions")
            )
        );
        let shutdown = async {
            let signal = stop.await;
            eprintln!("{signal}: stopping (a second one exits at once)");
        };
        serve_on(listener, router(pool, options), limits, shutdown)
            .await
            .map_err(|e| Failure::run(format!("serving: {e}")))
    });
    // Cancelled solves end within a fraction of a millisecond; never wait on one for long.
    runtime.shutdown_timeout(Duration::from_millis(500));
    served
}
