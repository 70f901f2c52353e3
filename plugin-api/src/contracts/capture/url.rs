//! Splitting a recorded URL without normalizing it: origin, path, raw query, userinfo removed.
//! Every capture extractor splits URLs this way, so records of one request compare equal whatever
//! recorded it.
//!
//! The spelling is kept as recorded (percent-encoding, case of the path, empty query), except the
//! origin, which is `scheme://host[:port]` with scheme and host lower-cased and the scheme's
//! default port omitted, so records of one server compare equal.

use percent_encoding::percent_decode_str;

/// The parts of a recorded URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    /// The URL as recorded with any userinfo (`user:password@`) removed.
    pub url: String,
    /// Whether userinfo was removed.
    pub had_userinfo: bool,
    /// `scheme://host[:port]`, or `None` when the URL has no authority.
    pub origin: Option<String>,
    /// The path as recorded; `/` when an authority is followed by no path.
    pub path: String,
    /// The text after `?` and before `#`, when there is a `?`.
    pub query: Option<String>,
}

/// Splits a recorded URL.
pub fn split_url(recorded: &str) -> UrlParts {
    let scheme_end = recorded.find(':').filter(|&end| {
        let scheme = &recorded[..end];
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    let (origin, url, had_userinfo, rest) = match scheme_end {
        Some(end) if recorded[end + 1..].starts_with("//") => {
            let scheme = &recorded[..end];
            let after = &recorded[end + 3..];
            let authority_end = after.find(['/', '?', '#']).unwrap_or(after.len());
            let authority = &after[..authority_end];
            let (host_port, had_userinfo) = match authority.rfind('@') {
                Some(at) => (&authority[at + 1..], true),
                None => (authority, false),
            };
            let rest = &after[authority_end..];
            let url = if had_userinfo {
                format!("{}//{host_port}{rest}", &recorded[..=end])
            } else {
                recorded.to_owned()
            };
            (Some(origin_of(scheme, host_port)), url, had_userinfo, rest)
        }
        Some(end) => (None, recorded.to_owned(), false, &recorded[end + 1..]),
        None => (None, recorded.to_owned(), false, recorded),
    };
    let before_fragment = rest.split('#').next().unwrap_or_default();
    let (path, query) = match before_fragment.split_once('?') {
        Some((path, query)) => (path, Some(query.to_owned())),
        None => (before_fragment, None),
    };
    let path = if path.is_empty() && origin.is_some() {
        "/".to_owned()
    } else {
        path.to_owned()
    };
    UrlParts {
        url,
        had_userinfo,
        origin,
        path,
        query,
    }
}

fn origin_of(scheme: &str, host_port: &str) -> String {
    let scheme = scheme.to_ascii_lowercase();
    // The port is after the last `:` that is not inside an IPv6 literal's brackets.
    let port_at = match host_port.rfind(']') {
        Some(bracket) => host_port[bracket..].find(':').map(|at| bracket + at),
        None => host_port.rfind(':'),
    };
    let (host, port) = match port_at {
        Some(at) => (&host_port[..at], &host_port[at + 1..]),
        None => (host_port, ""),
    };
    let default_port = match scheme.as_str() {
        "http" | "ws" => "80",
        "https" | "wss" => "443",
        "ftp" => "21",
        _ => "",
    };
    let mut origin = format!("{scheme}://{}", host.to_ascii_lowercase());
    if !port.is_empty() && port != default_port {
        origin.push(':');
        origin.push_str(port);
    }
    origin
}

/// Decodes a query as `application/x-www-form-urlencoded`: `&`-separated pairs (empty ones
/// skipped), split at the first `=`, `+` as space, percent-escapes decoded (a malformed escape
/// stays as written, bytes that are not UTF-8 become U+FFFD).
pub fn decode_query(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (form_decode(name), form_decode(value))
        })
        .collect()
}

fn form_decode(text: &str) -> String {
    if !text.contains(['+', '%']) {
        return text.to_owned();
    }
    percent_decode(&text.replace('+', " "))
}

/// Percent-decodes a text (malformed escapes stay as written; non-UTF-8 bytes become U+FFFD).
pub fn percent_decode(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_urls_as_recorded() {
        let parts = split_url("HTTPS://User:Secret@Example.COM:443/A%20b/?x=1&y=a+b%21#frag");
        assert_eq!(
            parts.url,
            "HTTPS://Example.COM:443/A%20b/?x=1&y=a+b%21#frag"
        );
        assert!(parts.had_userinfo);
        assert_eq!(parts.origin.as_deref(), Some("https://example.com"));
        assert_eq!(parts.path, "/A%20b/");
        assert_eq!(parts.query.as_deref(), Some("x=1&y=a+b%21"));
        assert_eq!(
            decode_query(parts.query.as_deref().unwrap()),
            [("x".into(), "1".into()), ("y".into(), "a b!".into())]
        );
        let bare = split_url("http://127.0.0.1:3000");
        assert_eq!(bare.origin.as_deref(), Some("http://127.0.0.1:3000"));
        assert_eq!(bare.path, "/");
        assert_eq!(bare.query, None);
        let empty = split_url("https://mitmproxy.org/?=");
        assert_eq!(empty.query.as_deref(), Some("="));
        assert_eq!(decode_query("="), [(String::new(), String::new())]);
        assert_eq!(
            decode_query("a&&b=%zz&c=%FF"),
            [
                ("a".into(), "".into()),
                ("b".into(), "%zz".into()),
                ("c".into(), "\u{fffd}".into())
            ]
        );
        let v6 = split_url("http://[::1]:8080/x");
        assert_eq!(v6.origin.as_deref(), Some("http://[::1]:8080"));
        let v6_default = split_url("http://[::1]/x");
        assert_eq!(v6_default.origin.as_deref(), Some("http://[::1]"));
        let data = split_url("data:text/plain,hi");
        assert_eq!(data.origin, None);
        assert_eq!(data.path, "text/plain,hi");
    }
}
