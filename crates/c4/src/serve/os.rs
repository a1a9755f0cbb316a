//! What the server asks of the operating system, apart from its sockets: the signals that
//! stop it (SIGINT, SIGTERM; a second one exits at once), and an open-file limit large
//! enough for its connection cap (or a cap lowered to fit the limit).
//!
//! Why apart from the accept loop ([`super::listen`]): these are process-wide settings made
//! once, before serving, with `unsafe` calls and per-platform code; the loop only receives
//! their results (the shutdown future, the cap in [`super::Limits`]).

/// Open files kept for the rest of the server (standard streams, the listener, the runtime's
/// own, a book file) when the connection cap is fitted to the open-file limit.
#[cfg(unix)]
const RESERVED_FILES: libc::rlim_t = 64;

/// Watches for SIGINT (Ctrl-C) and SIGTERM from this call on, and returns a future that
/// waits for the first and gives its name; from then on, a second one exits the process at
/// once (status 130). Call it before announcing the server, so that a signal sent as soon as
/// the announcement is seen is never missed. The future never completes where signals
/// cannot be watched.
///
/// # Panics
///
/// Outside a Tokio runtime (signals are watched through its driver).
pub fn stop_signal() -> impl Future<Output = &'static str> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let watched = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        );
        async move {
            let (Ok(mut interrupt), Ok(mut terminate)) = watched else {
                return std::future::pending().await;
            };
            let first = tokio::select! {
                _ = interrupt.recv() => "SIGINT (Ctrl-C)",
                _ = terminate.recv() => "SIGTERM",
            };
            // The same streams watch for the second: no signal is lost between the two.
            tokio::spawn(async move {
                let second = tokio::select! {
                    _ = interrupt.recv() => "SIGINT (Ctrl-C)",
                    _ = terminate.recv() => "SIGTERM",
                };
                eprintln!("{second} again: exiting at once");
                std::process::exit(130);
            });
            first
        }
    }
    #[cfg(not(unix))]
    {
        async {
            if tokio::signal::ctrl_c().await.is_err() {
                return std::future::pending().await;
            }
            tokio::spawn(async {
                if tokio::signal::ctrl_c().await.is_ok() {
                    eprintln!("Ctrl-C again: exiting at once");
                    std::process::exit(130);
                }
            });
            "Ctrl-C"
        }
    }
}

/// `max_connections` fitted to the open-file limit (`ulimit -n`): the soft limit is raised
/// up to the hard one if the connections and the server's other files need more, and the cap
/// is lowered if even that is too few. Returns the cap and, when it changed anything, a line
/// saying what.
pub fn fit_open_file_limit(max_connections: usize) -> (usize, Option<String>) {
    #[cfg(unix)]
    {
        let wanted = libc::rlim_t::try_from(max_connections)
            .unwrap_or(libc::rlim_t::MAX)
            .saturating_add(RESERVED_FILES);
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `getrlimit` writes one `rlimit` through a pointer to a live one.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return (max_connections, None);
        }
        let soft = limit.rlim_cur;
        if soft >= wanted {
            return (max_connections, None);
        }
        let raised = wanted.min(limit.rlim_max);
        let raised_limit = libc::rlimit {
            rlim_cur: raised,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: `setrlimit` reads one `rlimit` through a pointer to a live one.
        let now = if raised > soft
            && unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised_limit) } == 0
        {
            raised
        } else {
            soft
        };
        if now >= wanted {
            return (
                max_connections,
                Some(format!(
                    "open-file limit raised from {soft} to {now} for {max_connections} connections"
                )),
            );
        }
        let cap = usize::try_from(now.saturating_sub(RESERVED_FILES))
            .unwrap_or(usize::MAX)
            .max(1);
        (
            cap,
            Some(format!(
                "the open-file limit is {now}: at most {cap} connections at once, not \
                 {max_connections} (raise `ulimit -n` for more)"
            )),
        )
    }
    #[cfg(not(unix))]
    {
        (max_connections, None)
    }
}
