//! The bridge from hyper to the axum router on one connection: each request is handed what
//! the handlers need from the connection (the client's address, for the log, and the
//! server's [`Running`] solves, for a shutdown to cancel), and counts as in flight, which
//! makes the connection busy ([`super::state`]), until its answer is ready.

use super::state::Shared;
use crate::serve::Running;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::response::Response;
use hyper::body::Incoming;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use tower_service::Service;

/// The router as hyper calls it on one connection: each request gets the client's address
/// (for the log) and the server's [`Running`] solves, and counts as in flight until its
/// answer is ready.
#[derive(Clone)]
pub(super) struct ConnService {
    router: Router,
    shared: Arc<Shared>,
    running: Arc<Running>,
}

impl ConnService {
    /// `router` serving the connection of `shared`, its solves counted in `running`.
    pub(super) fn new(router: Router, shared: Arc<Shared>, running: Arc<Running>) -> ConnService {
        ConnService {
            router,
            shared,
            running,
        }
    }
}

/// A request in flight on a connection, until dropped.
struct InFlight(Arc<Shared>);

impl InFlight {
    fn new(shared: &Arc<Shared>, version: hyper::Version) -> InFlight {
        shared.request_started(version);
        InFlight(Arc::clone(shared))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

/// A request's answer, as hyper awaits it.
type Answer = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl hyper::service::Service<hyper::Request<Incoming>> for ConnService {
    type Response = Response;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Answer {
        let in_flight = InFlight::new(&self.shared, request.version());
        request
            .extensions_mut()
            .insert(ConnectInfo(self.shared.peer));
        request.extensions_mut().insert(Arc::clone(&self.running));
        // A `Router` is always ready (its `poll_ready` is `Ready` at once), so it is called
        // without asking.
        let answer = self.router.clone().call(request);
        Box::pin(async move {
            let response = answer.await;
            drop(in_flight);
            response
        })
    }
}
