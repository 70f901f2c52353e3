//! The service each accepted connection runs: a `POST /mcp` goes straight to the MCP route's
//! handler ([`crate::fast_path::handle`]) after the same front checks the router runs first (the
//! request counts as activity, then the `Host`/`Origin` guard), and every other request goes
//! through the router, as before.
//!
//! Why: under load nearly every request is a `POST /mcp`, and the router cost each one about a
//! sixth of its user-space instructions (callgrind, 48k per session call): the path match, three
//! boxed service clones, a boxed middleware future, the handler's boxed future, and the
//! connection's two extensions (a hash map and two boxes per request, and their drop). The answer
//! is the route handler's own, so which answers are given does not change; the router still
//! serves `/mcp` for in-process callers and for a server built without the lane
//! ([`App::from`] a bare [`Router`]).
//!
//! The answer is given the `Content-Length` header the router's routes add when its size is
//! known (hyper writes the headers of the map in order, so without it a `Connection: close`
//! answer's headers came in another order). What a `POST /mcp` answered here does not carry that
//! the router's would: the `ConnectInfo<PeerAddress>` and [`Connection`] extensions (nothing under
//! `/mcp` reads them; the connection is tied to the activity count here instead) and axum's
//! `MatchedPath`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, HttpBody};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::response::Response;
use hyper::body::Incoming;
use tower::ServiceExt;

use crate::fast_path::McpRoute;
use crate::guard::{self, HostAllowlist};
use crate::memory::{self, Activity, Connection};
use crate::server::PeerAddress;

/// What the front of every route reads: the request counts as activity, then passes the guard.
#[derive(Debug)]
pub struct Front {
    /// The `Host`/`Origin` allowlist.
    pub allowed: Arc<HostAllowlist>,
    /// The server's activity count.
    pub activity: Activity,
}

impl Front {
    /// Counts the request (tying its connection, when known, to the activity count) and passes
    /// it through the guard ([`guard::admit`]): `Err` is the refusal to send.
    pub fn admit(
        &self,
        connection: Option<&Connection>,
        request: &Request,
    ) -> Result<(), Response> {
        memory::count_on(&self.activity, connection);
        guard::admit(&self.allowed, request)
    }
}

/// The MCP route a connection calls without the router.
#[derive(Clone)]
pub struct McpLane {
    /// The front checks.
    pub front: Arc<Front>,
    /// The `/mcp` route's state.
    pub route: Arc<McpRoute>,
}

/// A served environment: its router, and the MCP lane beside it (`None`: every request goes
/// through the router).
#[derive(Clone)]
pub struct App {
    /// Every route.
    pub router: Router,
    /// `POST /mcp` without the router.
    pub mcp: Option<McpLane>,
}

impl From<Router> for App {
    fn from(router: Router) -> Self {
        Self { router, mcp: None }
    }
}

/// The service of one accepted connection.
#[derive(Clone)]
pub struct ConnectionService {
    app: App,
    peer: PeerAddress,
    life: Connection,
}

impl ConnectionService {
    /// The service of a connection from `peer`, whose close counts as activity through `life`.
    pub fn new(app: App, peer: PeerAddress, life: Connection) -> Self {
        Self { app, peer, life }
    }
}

/// A boxed answer future.
type Answer = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl hyper::service::Service<hyper::Request<Incoming>> for ConnectionService {
    type Response = Response;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        let request = request.map(Body::new);
        if let Some(lane) = &self.app.mcp
            && request.method() == Method::POST
            && request.uri().path() == "/mcp"
        {
            if let Err(refusal) = lane.front.admit(Some(&self.life), &request) {
                return Box::pin(std::future::ready(Ok(with_content_length(refusal))));
            }
            let route = Arc::clone(&lane.route);
            return Box::pin(async move {
                let response = crate::fast_path::handle(State(route), request).await;
                Ok(with_content_length(response))
            });
        }
        let mut request = request;
        let extensions = request.extensions_mut();
        // The peer address reaches the handlers (`/agentenv/journal` answers loopback callers
        // only); the connection is tied to the activity count by the router's front.
        extensions.insert(ConnectInfo(self.peer));
        extensions.insert(self.life.clone());
        let router = self.app.router.clone();
        Box::pin(router.oneshot(request))
    }
}

/// The response with a `Content-Length` header when its body's size is known and it has none,
/// as the router's routes answer: hyper writes a header of the map where it stands among the
/// others, so the same answer is the same bytes whichever way it was served.
fn with_content_length(mut response: Response) -> Response {
    if !response.headers().contains_key(header::CONTENT_LENGTH)
        && let Some(size) = response.body().size_hint().exact()
    {
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    }
    response
}
