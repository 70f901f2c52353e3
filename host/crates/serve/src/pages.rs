//! `GET /` (the status page) and `GET /agentenv/journal` (the request journal's last calls).
//!
//! The page is server-rendered HTML with no script (`Content-Security-Policy: default-src 'none';
//! style-src 'unsafe-inline'`), refreshed by the browser every ten seconds; its journal section
//! and the journal route answer loopback callers only (a bundle in a container listens on every
//! interface, and the journal says what an agent did). Every route has passed the `Host`/`Origin`
//! guard already.

use std::sync::Arc;

use axum::extract::connect_info::ConnectInfo;
use axum::extract::{Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::backend::ToolBackend;
use crate::journal::{JOURNAL_CAPACITY, Journal};
use crate::server::PeerAddress;

/// How many calls the status page lists.
pub const PAGE_JOURNAL_LINES: usize = 20;

/// What the two routes read.
pub struct Pages {
    /// The backend (its name and status).
    pub backend: Arc<dyn ToolBackend>,
    /// The request journal.
    pub journal: Arc<Journal>,
}

/// Whether the request came from a loopback address (unknown: not loopback).
fn from_loopback(request: &Request) -> bool {
    request
        .extensions()
        .get::<ConnectInfo<PeerAddress>>()
        .is_some_and(|ConnectInfo(PeerAddress(address))| address.ip().is_loopback())
}

/// `GET /`: the status page.
pub async fn status(State(pages): State<Arc<Pages>>, request: Request) -> Response {
    let entries = from_loopback(&request).then(|| pages.journal.recent(PAGE_JOURNAL_LINES).0);
    let backend = Arc::clone(&pages.backend);
    let page = tokio::task::spawn_blocking(move || backend.status())
        .await
        .unwrap_or_default();
    let html = crate::status::render_html(pages.backend.server_name(), &page, entries.as_deref());
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'",
            ),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

/// The journal route's query: `?limit=N` (default 50, at most the journal's capacity).
#[derive(Debug, Deserialize)]
pub struct JournalQuery {
    limit: Option<usize>,
}

/// `GET /agentenv/journal`: `{"total": N, "entries": [...]}`, oldest first; `403` for a caller
/// that is not on loopback.
pub async fn journal(
    State(pages): State<Arc<Pages>>,
    Query(query): Query<JournalQuery>,
    request: Request,
) -> Response {
    if !from_loopback(&request) {
        let body = serde_json::json!({"error": {
            "code": "access_denied",
            "message": "the request journal answers loopback callers only; read it on the machine that serves the environment"
        }});
        return (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    let limit = query.limit.unwrap_or(50).min(JOURNAL_CAPACITY);
    let (entries, total) = pages.journal.recent(limit);
    let body = serde_json::json!({ "total": total, "entries": entries });
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
        .into_response()
}
