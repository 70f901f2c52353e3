//! Reading a `data/add` file part: a `file://` URL of a local regular file, or an `https://` URL.
//!
//! * `file://`: the host must be empty or `localhost`, and the path must not be a UNC path
//!   (`file:////server/share/…`); both are refused before anything is opened, so a load never
//!   reaches a network share. The file must be a regular file of at most the document limit,
//!   unchanged while it is read. Failures name a category: `not-found`, `permission`,
//!   `not-regular-file`, `changed`, `read-failed`.
//! * `https://`: fetched once, without following redirects, within 30 seconds including the
//!   body. Failures: `timeout`, `http-status` (a non-2xx answer), `network` (connection, TLS or a
//!   refused redirect).
//!
//! Errors never repeat the URL or the content. Dropping the future (a cancelled call) ends a
//! download in progress.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use rea_manifest::segments::percent_decode;

/// How long a download may take, body included.
pub const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a file part could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The part is malformed or names what may not be loaded (`-32602`).
    #[error("{0}")]
    Invalid(String),
    /// The document is over the size limit (`-32602`).
    #[error("the document is larger than the {limit}-byte limit")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Reading or downloading failed (`-32000` with `data.reason`).
    #[error("{message}")]
    Failed {
        /// The category.
        reason: &'static str,
        /// One sentence without the URL.
        message: String,
    },
}

fn failed(reason: &'static str, message: impl Into<String>) -> FetchError {
    FetchError::Failed {
        reason,
        message: message.into(),
    }
}

/// How downloads are made.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The download time limit (30 seconds).
    pub timeout: Duration,
    /// Test hook: also accept `http://` URLs whose host is a loopback address, so tests can serve
    /// documents without TLS. Never set in production.
    pub allow_http_loopback: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            timeout: DOWNLOAD_TIMEOUT,
            allow_http_loopback: false,
        }
    }
}

/// The local path a `file://` URL names, or why it is refused.
pub fn file_path(uri: &str) -> Result<PathBuf, FetchError> {
    let rest = uri
        .strip_prefix("file://")
        .ok_or_else(|| FetchError::Invalid("the uri is not a file:// URL".to_owned()))?;
    let (host, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, ""),
    };
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return Err(FetchError::Invalid(
            "a file:// uri must name a local file: its host must be empty or localhost".to_owned(),
        ));
    }
    if path.starts_with("//") || path.starts_with("/\\") {
        return Err(FetchError::Invalid(
            "a file:// uri must not name a network share (UNC path)".to_owned(),
        ));
    }
    if path.is_empty() || path.contains('?') || path.contains('#') {
        return Err(FetchError::Invalid(
            "a file:// uri must name an absolute file path without query or fragment".to_owned(),
        ));
    }
    let decoded = percent_decode(path)
        .ok_or_else(|| FetchError::Invalid("the file:// uri's path is not UTF-8".to_owned()))?;
    if decoded.contains('\0') {
        return Err(FetchError::Invalid(
            "the file:// uri's path holds a NUL".to_owned(),
        ));
    }
    Ok(PathBuf::from(decoded.into_owned()))
}

fn io_failure(error: &std::io::Error) -> FetchError {
    match error.kind() {
        std::io::ErrorKind::NotFound => failed("not-found", "the file does not exist"),
        std::io::ErrorKind::PermissionDenied => failed("permission", "the file may not be read"),
        _ => failed("read-failed", "the file could not be read"),
    }
}

/// Reads a local regular file of at most `limit` bytes, refusing one that changes while read.
pub fn read_file(path: &std::path::Path, limit: usize) -> Result<Vec<u8>, FetchError> {
    let before = std::fs::metadata(path).map_err(|error| io_failure(&error))?;
    if !before.is_file() {
        return Err(failed(
            "not-regular-file",
            "the uri does not name a regular file",
        ));
    }
    if before.len() > limit as u64 {
        return Err(FetchError::TooLarge { limit });
    }
    let mut file = std::fs::File::open(path).map_err(|error| io_failure(&error))?;
    let opened = file.metadata().map_err(|error| io_failure(&error))?;
    if !opened.is_file() {
        return Err(failed(
            "not-regular-file",
            "the uri does not name a regular file",
        ));
    }
    let mut bytes = Vec::with_capacity(opened.len() as usize);
    (&mut file)
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| io_failure(&error))?;
    if bytes.len() > limit {
        return Err(FetchError::TooLarge { limit });
    }
    let after = file.metadata().map_err(|error| io_failure(&error))?;
    let same = |a: &std::fs::Metadata, b: &std::fs::Metadata| {
        a.len() == b.len() && a.modified().ok() == b.modified().ok()
    };
    if !same(&before, &opened) || !same(&opened, &after) || bytes.len() as u64 != after.len() {
        return Err(failed("changed", "the file changed while it was read"));
    }
    Ok(bytes)
}

/// The HTTP client downloads use: rustls, no redirects, the time limit on the whole exchange.
pub fn client(options: &FetchOptions) -> Result<reqwest::Client, FetchError> {
    reqwest::Client::builder()
        .use_rustls_tls()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(options.timeout)
        .https_only(!options.allow_http_loopback)
        .build()
        .map_err(|_| failed("network", "the HTTP client could not be set up"))
}

fn loopback_http(uri: &str) -> bool {
    let Some(rest) = uri.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or("");
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|byte| byte.is_ascii_digit()) => host,
        _ => authority,
    };
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

/// Whether a uri is one [`download`] fetches.
pub fn is_download(uri: &str, options: &FetchOptions) -> bool {
    uri.starts_with("https://") || (options.allow_http_loopback && loopback_http(uri))
}

/// Downloads a document of at most `limit` bytes.
pub async fn download(
    client: &reqwest::Client,
    uri: &str,
    limit: usize,
) -> Result<Vec<u8>, FetchError> {
    let classify = |error: reqwest::Error| {
        if error.is_timeout() {
            failed(
                "timeout",
                "the download did not finish within its time limit",
            )
        } else {
            failed(
                "network",
                "the download failed (connection, TLS or protocol)",
            )
        }
    };
    let url = reqwest::Url::parse(uri)
        .map_err(|_| FetchError::Invalid("the uri is not a valid URL".to_owned()))?;
    let mut response = client.get(url).send().await.map_err(classify)?;
    let status = response.status();
    if status.is_redirection() {
        return Err(failed(
            "network",
            "the download answered a redirect, which is not followed",
        ));
    }
    if !status.is_success() {
        return Err(failed(
            "http-status",
            format!("the download answered HTTP status {}", status.as_u16()),
        ));
    }
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(FetchError::TooLarge { limit });
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(classify)? {
        if bytes.len() + chunk.len() > limit {
            return Err(FetchError::TooLarge { limit });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_name_local_files_only() {
        // contract: DATA-012, DATA-017, DATA-018
        assert_eq!(
            file_path("file:///tmp/state.json").unwrap(),
            PathBuf::from("/tmp/state.json")
        );
        assert_eq!(
            file_path("file://localhost/tmp/a%20b.json").unwrap(),
            PathBuf::from("/tmp/a b.json")
        );
        for refused in [
            "file://server/share/state.json",
            "file:////server/share/state.json",
            "file://example.com/tmp/x",
            "file:///tmp/x?y",
            "file://",
            "https://example.com/x",
        ] {
            assert!(
                matches!(file_path(refused), Err(FetchError::Invalid(_))),
                "{refused}"
            );
        }
    }

    #[test]
    fn only_loopback_http_is_a_test_download() {
        let test = FetchOptions {
            allow_http_loopback: true,
            ..FetchOptions::default()
        };
        assert!(is_download(
            "https://example.com/a",
            &FetchOptions::default()
        ));
        assert!(!is_download(
            "http://127.0.0.1:8080/a",
            &FetchOptions::default()
        ));
        assert!(is_download("http://127.0.0.1:8080/a", &test));
        assert!(!is_download("http://example.com/a", &test));
        assert!(!is_download("ftp://127.0.0.1/a", &test));
    }
}
