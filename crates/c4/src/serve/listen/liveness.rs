//! Seeing that a client went away while its request is answered, so that its solve stops
//! then rather than at the end. [`super::connection`] calls on it while a TCP connection is
//! busy ([`super::state`]); for runs, see `docs/connect4/serve.md`.
//!
//! hyper reads nothing from a connection while a request is in flight once it is told that
//! a client may half-close (`half_close`, so that a client that shuts its write side after
//! the request, as `nc -N` does, still gets its answer): a client that closed or reset its
//! connection would be noticed only when the answer is written, and its solve would run to
//! the end. So a busy TCP connection is looked at every [`GONE_CHECK_EVERY`] from
//! [`GONE_CHECK_AFTER`] into its request ([`Liveness`]): a reset, or an error on the socket,
//! means the client is gone. The end of its stream may mean a close or only a half-close,
//! which look the same from here; the server tells them apart by sending an interim answer
//! (`HTTP/1.1 102 Processing`, which every HTTP/1.1 client must accept before the final
//! answer): a client that only half-closed reads it, a closed socket answers it with a
//! reset, seen at the next look. An HTTP/1.0 request may get no interim answer, so the end
//! of its stream counts as gone. The connection then closes, which drops the request and
//! stops its solve.

use std::time::Duration;

/// How long into a request a busy connection is first looked at for a client gone away: a
/// quick answer is sent before, with no interim answer in front of it.
pub(super) const GONE_CHECK_AFTER: Duration = Duration::from_millis(40);
/// How often a busy connection is looked at after [`GONE_CHECK_AFTER`]. A client that goes
/// away is noticed within two looks (one to see the end of its stream and send the interim
/// answer, one to see the reset), so its solve stops at most
/// `GONE_CHECK_AFTER + 2 × GONE_CHECK_EVERY` after it went away.
pub(super) const GONE_CHECK_EVERY: Duration = Duration::from_millis(20);

/// The interim answer that tells a half-closed client from a closed one.
const INTERIM: &[u8] = b"HTTP/1.1 102 Processing\r\n\r\n";

/// A second handle on a connection's socket, to look at while hyper holds the first and
/// reads nothing (see the module's documentation).
pub(super) struct Liveness {
    socket: std::net::TcpStream,
    /// Whether the interim answer was sent on this connection.
    probed: bool,
}

impl Liveness {
    /// A handle on `stream`'s socket, if the system gives one (then the connection is only
    /// watched as before).
    pub(super) fn of(stream: &tokio::net::TcpStream) -> Option<Liveness> {
        use std::os::fd::AsFd;
        let fd = stream.as_fd().try_clone_to_owned().ok()?;
        Some(Liveness {
            socket: std::net::TcpStream::from(fd),
            probed: false,
        })
    }

    /// Whether the client is gone: its socket failed or was reset, or its stream ended and
    /// it cannot take the interim answer (`may_probe` false: an HTTP/1.0 request, or hyper
    /// still holds bytes of an earlier answer) or the interim answer cannot be written
    /// whole. The socket is non-blocking (the handle shares tokio's), so no call waits.
    pub(super) fn gone(&mut self, may_probe: bool) -> bool {
        use std::io::{ErrorKind, Write};
        if !matches!(self.socket.take_error(), Ok(None)) {
            return true;
        }
        match self.socket.peek(&mut [0u8; 1]) {
            // The end of the stream: a close or a half-close.
            Ok(0) => {}
            // A request sent after this one: the client is there.
            Ok(_) => return false,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                return false;
            }
            Err(_) => return true,
        }
        if self.probed {
            // Sent before and no reset came: the client only half-closed.
            return false;
        }
        if !may_probe {
            return true;
        }
        self.probed = true;
        match (&self.socket).write(INTERIM) {
            Ok(n) if n == INTERIM.len() => !matches!(self.socket.take_error(), Ok(None)),
            _ => true,
        }
    }
}
