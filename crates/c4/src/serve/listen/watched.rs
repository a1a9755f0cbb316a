//! A connection's byte stream, wrapped so that its reads and writes move its phase
//! ([`super::state`]): the first byte of a head ends an idle wait, and an answer still being
//! written keeps an idle connection from timing out. hyper reads and writes through it;
//! the requests themselves are watched by [`super::service`].

use super::state::Shared;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The I/O of a connection, telling its [`Shared`] when bytes come and go.
pub(super) struct Watched<I> {
    inner: I,
    shared: Arc<Shared>,
}

impl<I> Watched<I> {
    /// `inner`, reporting to `shared`.
    pub(super) fn new(inner: I, shared: Arc<Shared>) -> Watched<I> {
        Watched { inner, shared }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Watched<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.shared.on_read();
        }
        polled
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Watched<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            this.shared.on_write();
        }
        this.shared
            .on_write_result(!matches!(polled, Poll::Ready(Ok(n)) if n == buf.len()));
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            this.shared.on_write();
        }
        let whole: usize = bufs.iter().map(|b| b.len()).sum();
        this.shared
            .on_write_result(!matches!(polled, Poll::Ready(Ok(n)) if n == whole));
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
