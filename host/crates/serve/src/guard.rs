//! DNS-rebinding protection: the `Host` and `Origin` checks every route runs first.
//!
//! A request whose `Host` header names a host the allowlist does not hold is refused `403`, so a
//! web page that rebinds its own domain to a loopback address cannot reach the server. A request
//! carrying an `Origin` header must name an `http` or `https` origin whose host the allowlist
//! holds (`Origin: null` and malformed origins are refused), so a page of another site cannot
//! drive the server from a browser either. Requests without `Origin` (every non-browser client)
//! pass that second check.
//!
//! The allowlist is `localhost`, `127.0.0.1` and `::1` by default, or exactly the entries of
//! `MCP_ALLOWED_HOSTS` (comma-separated, each a host or `host:port`) when the operator declares
//! them. An entry without a port matches any port; IPv6 entries may be bracketed or bare.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// One allowed host.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedHost {
    /// Lowercase, without brackets or a trailing dot.
    host: String,
    /// When present, the `Host` header must carry exactly this port.
    port: Option<u16>,
}

/// The hosts requests may name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostAllowlist {
    entries: Vec<AllowedHost>,
}

impl HostAllowlist {
    /// `localhost`, `127.0.0.1` and `::1`, on any port.
    pub fn loopback() -> Self {
        Self {
            entries: ["localhost", "127.0.0.1", "::1"]
                .into_iter()
                .map(|host| AllowedHost {
                    host: host.to_owned(),
                    port: None,
                })
                .collect(),
        }
    }

    /// Parses `MCP_ALLOWED_HOSTS`: comma-separated hosts or `host:port` entries; blank entries are
    /// skipped. `Err` names the first entry that is not a host.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut entries = Vec::new();
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (host, port) = split_authority(entry).ok_or_else(|| entry.to_owned())?;
            if host.is_empty()
                || !host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
            {
                return Err(entry.to_owned());
            }
            entries.push(AllowedHost {
                host: host.to_ascii_lowercase(),
                port,
            });
        }
        Ok(Self { entries })
    }

    /// Whether the allowlist holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a `Host` header value (`127.0.0.1:8765`, `[::1]:80`, `localhost`) is allowed.
    pub fn allows_authority(&self, authority: &str) -> bool {
        match split_authority(authority.trim()) {
            Some((host, port)) => self.entries.iter().any(|allowed| {
                allowed.host.eq_ignore_ascii_case(host)
                    && allowed.port.is_none_or(|p| Some(p) == port)
            }),
            None => false,
        }
    }

    /// Whether an `Origin` header value is allowed: an `http`/`https` origin whose host (any
    /// port: the page's port is not the server's) is in the list.
    pub fn allows_origin(&self, origin: &str) -> bool {
        let origin = origin.trim();
        let Some((scheme, rest)) = origin.split_once("://") else {
            return false;
        };
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return false;
        }
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.contains(['/', '?', '#', '@']) {
            return false;
        }
        match split_authority(authority) {
            Some((host, _)) => self
                .entries
                .iter()
                .any(|allowed| allowed.host.eq_ignore_ascii_case(host)),
            None => false,
        }
    }
}

/// Splits `host[:port]` (IPv6 bracketed, or bare when it has several colons) into its host,
/// without a trailing dot (compared without regard to ASCII case: every request's `Host` is
/// checked, so it is not copied to lowercase), and port.
fn split_authority(text: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?.parse::<u16>().ok()?),
        };
        (host, port)
    } else if text.bytes().filter(|&byte| byte == b':').count() > 1 {
        (text, None)
    } else if let Some((host, port)) = text.split_once(':') {
        (host, Some(port.parse::<u16>().ok()?))
    } else {
        (text, None)
    };
    let host = host.trim_end_matches('.');
    if host.is_empty() {
        return None;
    }
    Some((host, port))
}

/// Why a request was refused (`403`).
fn forbidden(message: &str) -> Response {
    refused(StatusCode::FORBIDDEN, message)
}

/// A refusal with this status and a JSON-RPC `-32000` error.
fn refused(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32000, "message": message },
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Checks the headers; `Err` is the refusal to send.
pub fn check(
    allowlist: &HostAllowlist,
    headers: &HeaderMap,
    uri_authority: Option<&str>,
) -> Result<(), &'static str> {
    let host = match headers.get(header::HOST) {
        Some(value) => value
            .to_str()
            .map_err(|_| "forbidden: the Host header is not allowed")?,
        None => uri_authority.ok_or("forbidden: a Host header is required")?,
    };
    if !allowlist.allows_authority(host) {
        return Err("forbidden: the Host header is not allowed");
    }
    for origin in headers.get_all(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|origin| allowlist.allows_origin(origin));
        if !allowed {
            return Err("forbidden: the Origin header is not allowed");
        }
    }
    Ok(())
}

/// The middleware: refuses a request with more than one `Host` header `400` (which one a proxy
/// or the allowlist reads is ambiguous), and any other `403` unless [`check`] passes.
pub async fn protect(
    State(allowlist): State<Arc<HostAllowlist>>,
    request: Request,
    next: Next,
) -> Response {
    match admit(&allowlist, &request) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal,
    }
}

/// [`protect`]'s decision on a request: `Ok` to serve it, else the refusal to send (logged).
pub fn admit(allowlist: &HostAllowlist, request: &Request) -> Result<(), Response> {
    if request
        .headers()
        .get_all(header::HOST)
        .iter()
        .nth(1)
        .is_some()
    {
        tracing::warn!(
            path = request.uri().path(),
            "refused a request with more than one Host header"
        );
        return Err(refused(
            StatusCode::BAD_REQUEST,
            "bad request: more than one Host header",
        ));
    }
    let authority = request.uri().authority().map(|a| a.as_str());
    check(allowlist, request.headers(), authority).map_err(|message| {
        tracing::warn!(
            path = request.uri().path(),
            "refused a request: {message} (possible DNS rebinding or cross-origin request)"
        );
        forbidden(message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_on_any_port_are_allowed_by_default() {
        let list = HostAllowlist::loopback();
        for host in [
            "127.0.0.1:8765",
            "localhost",
            "LOCALHOST:1",
            "[::1]:80",
            "[::1]",
            "localhost.",
        ] {
            assert!(list.allows_authority(host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8765",
            "127.0.0.2:1",
            "0.0.0.0:1",
            "",
            "[::1",
            "localhost:x",
        ] {
            assert!(!list.allows_authority(host), "{host}");
        }
    }

    #[test]
    fn declared_hosts_replace_the_default_and_may_pin_a_port() {
        let list = HostAllowlist::parse("127.0.0.1, grafana-example:18765 ,[::1],::2,").unwrap();
        assert!(list.allows_authority("grafana-example:18765"));
        assert!(!list.allows_authority("grafana-example:18766"));
        assert!(!list.allows_authority("grafana-example"));
        assert!(list.allows_authority("127.0.0.1:5"));
        assert!(list.allows_authority("[::1]:5"));
        assert!(list.allows_authority("[::2]"));
        assert!(!list.allows_authority("localhost:5"));
        assert!(HostAllowlist::parse("a b").is_err());
        assert!(HostAllowlist::parse("host:99999").is_err());
        assert!(HostAllowlist::parse(" , ").unwrap().is_empty());
    }

    #[test]
    fn origins_must_name_an_allowed_host_over_http() {
        let list = HostAllowlist::loopback();
        for origin in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:9/",
        ] {
            assert!(list.allows_origin(origin), "{origin}");
        }
        for origin in [
            "null",
            "http://evil.example",
            "file://localhost",
            "localhost",
            "http://localhost/x",
            "http://user@localhost",
        ] {
            assert!(!list.allows_origin(origin), "{origin}");
        }
    }
}
