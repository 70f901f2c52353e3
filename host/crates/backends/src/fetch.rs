//! Reading a `data/add` file part: a `file://` URL of a local regular file, or an `https://` URL.
//!
//! * `file://`: the host must be empty or `localhost`, and the path must not be a UNC path
//!   (`file:////server/share/…`); both are refused before anything is opened, so a load never
//!   reaches a network share. The file must be a regular file of at most the document limit,
//!   unchanged while it is read. A file that is missing, not a regular file or not readable is
//!   one failure, `unreadable`, with one message, so a caller cannot probe which files exist
//!   (issue 15; the reference names `not-found`, `permission`, `not-regular-file` apart); other
//!   failures: `changed`, `read-failed`.
//! * `https://`: fetched once, without following redirects, within 30 seconds including the
//!   body, and ended as `timeout` when connecting or any wait for the next bytes takes longer
//!   than 5 seconds (a server that never answers holds the data plane, whose calls run in
//!   arrival order, for 5 s, not 30). A host that resolves to a loopback, private, link-local or
//!   otherwise non-public address is refused before connecting, and the download connects to the
//!   address that was checked. Failures: `timeout`, `http-status` (a non-2xx answer), `network`
//!   (connection, TLS or a refused redirect).
//! * `REA_DATA_ADD_ALLOW` ([`SourceAllowList`]): comma-separated absolute folders (`file:/srv/x`
//!   or `/srv/x`) and `https://host[:port]` origins. With folders, a `file://` load must name a
//!   file inside one (symbolic links resolved); with origins, a download must name one of them,
//!   and a listed origin may resolve to a private address. A refused source is `-32602` naming
//!   the setting.
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

/// How long connecting, or waiting for a download's next bytes, may take.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(5);

/// How downloads are made.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The download time limit (30 seconds).
    pub timeout: Duration,
    /// The limit on connecting and on each wait for more bytes (5 seconds).
    pub stall_timeout: Duration,
    /// The sources `data/add` may read (`REA_DATA_ADD_ALLOW`; empty: any file, public hosts).
    pub allow: SourceAllowList,
    /// Test hook: also accept `http://` URLs whose host is a loopback address, so tests can serve
    /// documents without TLS. Never set in production.
    pub allow_http_loopback: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            timeout: DOWNLOAD_TIMEOUT,
            stall_timeout: STALL_TIMEOUT,
            allow: SourceAllowList::default(),
            allow_http_loopback: false,
        }
    }
}

/// The folders and origins `data/add` may read from (`REA_DATA_ADD_ALLOW`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceAllowList {
    /// Absolute folders a `file://` load must lie inside (none: any file).
    pub folders: Vec<PathBuf>,
    /// `https://host[:port]` origins, lower-cased, default port omitted (none: any public host).
    pub origins: Vec<String>,
}

/// The name of the allow-list setting.
pub const ALLOW_SETTING: &str = "REA_DATA_ADD_ALLOW";

impl SourceAllowList {
    /// Parses `REA_DATA_ADD_ALLOW`: comma-separated `file:/folder`, `/folder` or
    /// `https://host[:port]`; `Err` names the first entry that is none of them.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut list = Self::default();
        for entry in text
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
        {
            if let Some(origin) = entry.strip_prefix("https://") {
                let origin = origin.trim_end_matches('/').to_ascii_lowercase();
                let origin = origin.strip_suffix(":443").unwrap_or(&origin).to_owned();
                if origin.is_empty() || origin.contains(['/', '?', '#', '@']) {
                    return Err(entry.to_owned());
                }
                list.origins.push(format!("https://{origin}"));
                continue;
            }
            let folder = entry.strip_prefix("file:").unwrap_or(entry);
            let folder = PathBuf::from(folder);
            if !folder.is_absolute()
                || folder
                    .components()
                    .any(|part| matches!(part, std::path::Component::ParentDir))
            {
                return Err(entry.to_owned());
            }
            list.folders.push(folder);
        }
        Ok(list)
    }

    /// Refuses a file outside the allowed folders (checked on the path as given, then on the
    /// path with its symbolic links resolved, which must exist).
    pub fn check_file(&self, path: &std::path::Path) -> Result<(), FetchError> {
        if self.folders.is_empty() {
            return Ok(());
        }
        let outside = || {
            FetchError::Invalid(format!(
                "the file is outside the folders {ALLOW_SETTING} allows data/add to read"
            ))
        };
        let lexical_ok = !path
            .components()
            .any(|part| matches!(part, std::path::Component::ParentDir))
            && self.folders.iter().any(|folder| path.starts_with(folder));
        if !lexical_ok {
            return Err(outside());
        }
        let resolved = std::fs::canonicalize(path).map_err(|_| unreadable())?;
        let inside = self.folders.iter().any(|folder| {
            std::fs::canonicalize(folder).is_ok_and(|folder| resolved.starts_with(folder))
        });
        if inside { Ok(()) } else { Err(outside()) }
    }

    /// Whether an origin (`https://host[:port]`, as [`Self::parse`] spells it) is listed.
    fn lists(&self, origin: &str) -> bool {
        self.origins.iter().any(|listed| listed == origin)
    }
}

/// Whether an address is one a download may reach without being allowed by name: not loopback,
/// private, link-local, shared (CGNAT), unspecified, broadcast, multicast, documentation or
/// reserved.
pub fn is_public(address: std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match address {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || (first == 0x64 && v6.segments()[1] == 0xff9b)
                || first == 0x2001 && v6.segments()[1] == 0x0db8)
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

/// The one failure of a file that is missing, not a regular file, or not readable.
fn unreadable() -> FetchError {
    failed(
        "unreadable",
        "the file cannot be read (it is missing, not a regular file, or not readable)",
    )
}

fn io_failure(error: &std::io::Error) -> FetchError {
    match error.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => unreadable(),
        _ => failed("read-failed", "the file could not be read"),
    }
}

/// Reads a local regular file of at most `limit` bytes, refusing one that changes while read.
pub fn read_file(path: &std::path::Path, limit: usize) -> Result<Vec<u8>, FetchError> {
    let before = std::fs::metadata(path).map_err(|error| io_failure(&error))?;
    if !before.is_file() {
        return Err(unreadable());
    }
    if before.len() > limit as u64 {
        return Err(FetchError::TooLarge { limit });
    }
    let mut file = std::fs::File::open(path).map_err(|error| io_failure(&error))?;
    let opened = file.metadata().map_err(|error| io_failure(&error))?;
    if !opened.is_file() {
        return Err(unreadable());
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

/// The HTTP client downloads use: rustls, no redirects, the time limit on the whole exchange and
/// the stall limit on connecting and on each read.
pub fn client(options: &FetchOptions) -> Result<reqwest::Client, FetchError> {
    builder(options)
        .build()
        .map_err(|_| failed("network", "the HTTP client could not be set up"))
}

fn builder(options: &FetchOptions) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .use_rustls_tls()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(options.timeout)
        .connect_timeout(options.stall_timeout)
        .read_timeout(options.stall_timeout)
        .https_only(!options.allow_http_loopback)
}

/// Checks an `https://` download's origin and addresses against the options (see the module
/// documentation) and answers a client that connects only to the addresses checked.
pub async fn checked_client(
    uri: &str,
    options: &FetchOptions,
) -> Result<reqwest::Client, FetchError> {
    let url = reqwest::Url::parse(uri)
        .map_err(|_| FetchError::Invalid("the uri is not a valid URL".to_owned()))?;
    if options.allow_http_loopback && url.scheme() == "http" {
        return client(options);
    }
    let host = url
        .host_str()
        .ok_or_else(|| FetchError::Invalid("the uri names no host".to_owned()))?
        .to_ascii_lowercase();
    let port = url.port_or_known_default().unwrap_or(443);
    let origin = match url.port() {
        Some(port) if port != 443 => format!("https://{host}:{port}"),
        _ => format!("https://{host}"),
    };
    let listed = options.allow.lists(&origin);
    if !options.allow.origins.is_empty() && !listed {
        return Err(FetchError::Invalid(format!(
            "the download's origin is not one {ALLOW_SETTING} allows data/add to read"
        )));
    }
    let bare = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let addresses: Vec<std::net::SocketAddr> = tokio::net::lookup_host((bare.as_str(), port))
        .await
        .map_err(|_| failed("network", "the download's host could not be resolved"))?
        .collect();
    if addresses.is_empty() {
        return Err(failed(
            "network",
            "the download's host could not be resolved",
        ));
    }
    if !listed && addresses.iter().any(|address| !is_public(address.ip())) {
        return Err(FetchError::Invalid(format!(
            "the download's host resolves to a loopback, private or otherwise non-public address; list its origin in {ALLOW_SETTING} to load from it"
        )));
    }
    builder(options)
        .resolve_to_addrs(&bare, &addresses)
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

    #[test]
    fn only_public_addresses_are_reached_unless_allowed() {
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fc00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "224.0.0.1",
        ] {
            assert!(!is_public(address.parse().unwrap()), "{address}");
        }
        for address in ["93.184.216.34", "2606:2800:220:1::1", "8.8.8.8"] {
            assert!(is_public(address.parse().unwrap()), "{address}");
        }
    }

    #[test]
    fn the_allow_list_names_folders_and_https_origins() {
        let list = SourceAllowList::parse(
            "file:/srv/states, /data ,https://States.Example:443,https://h:8443",
        )
        .unwrap();
        assert_eq!(
            list.folders,
            [PathBuf::from("/srv/states"), PathBuf::from("/data")]
        );
        assert_eq!(list.origins, ["https://states.example", "https://h:8443"]);
        for bad in ["relative/x", "/a/../b", "https://h/path", "ftp://h"] {
            assert!(SourceAllowList::parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            list.check_file(std::path::Path::new("/etc/passwd")),
            Err(FetchError::Invalid(_))
        ));
        assert!(matches!(
            list.check_file(std::path::Path::new("/srv/states/../../etc/passwd")),
            Err(FetchError::Invalid(_))
        ));
    }
}
