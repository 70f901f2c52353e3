//! Serving configuration from flags and the environment, resolved before anything binds.
//!
//! - Host: `--host`, else `MCP_HOST`, else `127.0.0.1`. Port: `--port`, else `MCP_PORT`, else `0`
//!   (an ephemeral port). An empty `MCP_HOST`/`MCP_PORT` counts as unset; a `MCP_PORT` that is
//!   not a port number is `configuration_invalid`. `rea mcp --http` resolves them with this same
//!   function, so both commands agree.
//! - `MCP_ALLOWED_HOSTS`: the operator's `Host` allowlist ([`crate::guard::HostAllowlist`]);
//!   without it the allowlist is the loopback names, and binding outside loopback is refused
//!   ([`crate::server::bind`]).
//! - `ENVIRONMENT_NAME`: renames the served environment; set but blank is `configuration_invalid`
//!   rather than a silent fall back to the manifest's name.
//! - `REA_LOG_LEVEL`: `error`, `warn`, `info` (default), `debug`, `trace` or `off`.
//! - `REA_HEADER_TIMEOUT_SECONDS` (default 10) and `REA_BODY_TIMEOUT_SECONDS` (default 30): how
//!   long a client may take to send a request head (the connection is closed) and a body (`408`).
//! - `REA_MAX_SESSIONS` (default 256) and `REA_SESSION_IDLE_SECONDS` (default 300): the cap and
//!   idle lifetime of MCP sessions ([`crate::sessions`]); each must be a positive whole number.

use std::collections::BTreeMap;

use tracing_subscriber::filter::LevelFilter;

use crate::error::ServeError;
use crate::guard::HostAllowlist;
use crate::sessions::SessionLimits;

/// Where environment variables come from (the process, or a map in tests).
pub trait EnvSource {
    /// The variable's value, when set (a value that is not Unicode is read lossily).
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl EnvSource for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|value| value.to_string_lossy().into_owned())
    }
}

impl EnvSource for BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

/// The default host.
pub const DEFAULT_HOST: &str = "127.0.0.1";

/// Where to listen and which `Host` headers to accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenConfig {
    /// The host to bind (a name or an IP literal).
    pub host: String,
    /// The port (0: ephemeral).
    pub port: u16,
    /// The `Host`/`Origin` allowlist.
    pub allowed_hosts: HostAllowlist,
    /// Whether the operator declared the allowlist (`MCP_ALLOWED_HOSTS`); binding outside
    /// loopback requires it.
    pub allowlist_declared: bool,
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

impl ListenConfig {
    /// Resolves the listening address from the flags and the environment.
    pub fn resolve(
        host: Option<&str>,
        port: Option<u16>,
        env: &dyn EnvSource,
    ) -> Result<Self, ServeError> {
        let host = match host {
            Some(host) if host.trim().is_empty() => {
                return Err(ServeError::configuration(
                    "--host",
                    "--host must not be blank",
                ));
            }
            Some(host) => host.trim().to_owned(),
            None => non_empty(env.var("MCP_HOST"))
                .map(|h| h.trim().to_owned())
                .unwrap_or_else(|| DEFAULT_HOST.to_owned()),
        };
        let port = match port {
            Some(port) => port,
            None => match non_empty(env.var("MCP_PORT")) {
                Some(text) => text.trim().parse::<u16>().map_err(|_| {
                    ServeError::configuration(
                        "MCP_PORT",
                        "MCP_PORT must be a port number from 0 to 65535",
                    )
                })?,
                None => 0,
            },
        };
        let (allowed_hosts, allowlist_declared) = match non_empty(env.var("MCP_ALLOWED_HOSTS")) {
            Some(list) => {
                let parsed = HostAllowlist::parse(&list).map_err(|entry| {
                    ServeError::configuration(
                        "MCP_ALLOWED_HOSTS",
                        format!(
                            "MCP_ALLOWED_HOSTS must list hosts or host:port entries separated by commas; {} is not one",
                            serde_json::Value::String(entry)
                        ),
                    )
                })?;
                (parsed, true)
            }
            None => (HostAllowlist::loopback(), false),
        };
        Ok(Self {
            host,
            port,
            allowed_hosts,
            allowlist_declared,
        })
    }
}

/// The served environment name: `ENVIRONMENT_NAME` when set, else `default` (the manifest's
/// `name`). Set but blank is refused.
pub fn environment_name(default: &str, env: &dyn EnvSource) -> Result<String, ServeError> {
    match env.var("ENVIRONMENT_NAME") {
        Some(name) if name.trim().is_empty() => Err(ServeError::configuration(
            "ENVIRONMENT_NAME",
            "ENVIRONMENT_NAME is set but blank; unset it to serve under the manifest's name",
        )),
        Some(name) => Ok(name.trim().to_owned()),
        None => Ok(default.to_owned()),
    }
}

/// The MCP session limits: `REA_MAX_SESSIONS` and `REA_SESSION_IDLE_SECONDS`, else the defaults.
/// A value that is not a positive whole number (at most 1,000,000) is `configuration_invalid`.
pub fn session_limits(env: &dyn EnvSource) -> Result<SessionLimits, ServeError> {
    let positive = |name: &str| -> Result<Option<u64>, ServeError> {
        match non_empty(env.var(name)) {
            None => Ok(None),
            Some(text) => match text.trim().parse::<u64>() {
                Ok(value) if (1..=1_000_000).contains(&value) => Ok(Some(value)),
                _ => Err(ServeError::configuration(
                    name,
                    format!(
                        "{name} must be a whole number from 1 to 1000000, not {}",
                        serde_json::Value::String(text)
                    ),
                )),
            },
        }
    };
    let defaults = SessionLimits::default();
    Ok(SessionLimits {
        max_sessions: positive("REA_MAX_SESSIONS")?
            .map_or(defaults.max_sessions, |value| value as usize),
        idle: positive("REA_SESSION_IDLE_SECONDS")?
            .map_or(defaults.idle, std::time::Duration::from_secs),
    })
}

/// How long a client may take to send its request: the head, then the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestTimeouts {
    /// The request head (`REA_HEADER_TIMEOUT_SECONDS`, default 10 s): the connection is closed.
    pub header: std::time::Duration,
    /// The body (`REA_BODY_TIMEOUT_SECONDS`, default 30 s): answered `408`.
    pub body: std::time::Duration,
}

impl Default for RequestTimeouts {
    fn default() -> Self {
        Self {
            header: std::time::Duration::from_secs(10),
            body: crate::agentenv::DEFAULT_BODY_TIMEOUT,
        }
    }
}

/// The request timeouts from `REA_HEADER_TIMEOUT_SECONDS` and `REA_BODY_TIMEOUT_SECONDS`, each a
/// whole number of seconds from 1 to 3600.
pub fn request_timeouts(env: &dyn EnvSource) -> Result<RequestTimeouts, ServeError> {
    let seconds = |name: &str, default: std::time::Duration| match non_empty(env.var(name)) {
        None => Ok(default),
        Some(text) => match text.trim().parse::<u64>() {
            Ok(value) if (1..=3600).contains(&value) => Ok(std::time::Duration::from_secs(value)),
            _ => Err(ServeError::configuration(
                name,
                format!(
                    "{name} must be a whole number of seconds from 1 to 3600, not {}",
                    serde_json::Value::String(text)
                ),
            )),
        },
    };
    let defaults = RequestTimeouts::default();
    Ok(RequestTimeouts {
        header: seconds("REA_HEADER_TIMEOUT_SECONDS", defaults.header)?,
        body: seconds("REA_BODY_TIMEOUT_SECONDS", defaults.body)?,
    })
}

/// The log level: `REA_LOG_LEVEL`, else `info`.
pub fn log_level(env: &dyn EnvSource) -> Result<LevelFilter, ServeError> {
    match non_empty(env.var("REA_LOG_LEVEL")) {
        None => Ok(LevelFilter::INFO),
        Some(text) => match text.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(LevelFilter::OFF),
            "error" => Ok(LevelFilter::ERROR),
            "warn" | "warning" => Ok(LevelFilter::WARN),
            "info" => Ok(LevelFilter::INFO),
            "debug" => Ok(LevelFilter::DEBUG),
            "trace" => Ok(LevelFilter::TRACE),
            _ => Err(ServeError::configuration(
                "REA_LOG_LEVEL",
                "REA_LOG_LEVEL must be one of off, error, warn, info, debug, trace",
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    // contract: SERVE-004, SERVE-005
    #[test]
    fn flags_win_then_the_environment_then_the_defaults() {
        let none = env(&[]);
        let defaults = ListenConfig::resolve(None, None, &none).unwrap();
        assert_eq!((defaults.host.as_str(), defaults.port), ("127.0.0.1", 0));
        assert!(!defaults.allowlist_declared);

        let set = env(&[("MCP_HOST", "localhost"), ("MCP_PORT", "18765")]);
        let from_env = ListenConfig::resolve(None, None, &set).unwrap();
        assert_eq!(
            (from_env.host.as_str(), from_env.port),
            ("localhost", 18765)
        );

        let flags = ListenConfig::resolve(Some("::1"), Some(9), &set).unwrap();
        assert_eq!((flags.host.as_str(), flags.port), ("::1", 9));

        let blank = env(&[("MCP_HOST", " "), ("MCP_PORT", "")]);
        let blank = ListenConfig::resolve(None, None, &blank).unwrap();
        assert_eq!((blank.host.as_str(), blank.port), ("127.0.0.1", 0));
    }

    #[test]
    fn bad_ports_and_allowlists_are_configuration_errors() {
        for port in ["x", "65536", "-1"] {
            let error = ListenConfig::resolve(None, None, &env(&[("MCP_PORT", port)])).unwrap_err();
            assert_eq!(error.refusal().code, "configuration_invalid", "{port}");
        }
        let error =
            ListenConfig::resolve(None, None, &env(&[("MCP_ALLOWED_HOSTS", "a b")])).unwrap_err();
        assert_eq!(error.refusal().code, "configuration_invalid");
        let declared =
            ListenConfig::resolve(None, None, &env(&[("MCP_ALLOWED_HOSTS", "svc,127.0.0.1")]))
                .unwrap();
        assert!(declared.allowlist_declared);
        assert!(declared.allowed_hosts.allows_authority("svc:18765"));
        assert!(ListenConfig::resolve(Some(""), None, &env(&[])).is_err());
    }

    // contract: SERVE-009, SERVE-010, SERVE-011
    #[test]
    fn environment_name_renames_and_refuses_blank() {
        assert_eq!(environment_name("grafana", &env(&[])).unwrap(), "grafana");
        assert_eq!(
            environment_name("grafana", &env(&[("ENVIRONMENT_NAME", "mine")])).unwrap(),
            "mine"
        );
        let refusal = environment_name("grafana", &env(&[("ENVIRONMENT_NAME", "  ")]))
            .unwrap_err()
            .refusal();
        assert_eq!(refusal.code, "configuration_invalid");
    }

    #[test]
    fn session_limits_are_positive_whole_numbers() {
        let defaults = session_limits(&env(&[])).unwrap();
        assert_eq!(defaults.max_sessions, 256);
        assert_eq!(defaults.idle, std::time::Duration::from_secs(300));
        let set = session_limits(&env(&[
            ("REA_MAX_SESSIONS", "3"),
            ("REA_SESSION_IDLE_SECONDS", "2"),
        ]))
        .unwrap();
        assert_eq!(
            (set.max_sessions, set.idle),
            (3, std::time::Duration::from_secs(2))
        );
        for bad in ["0", "-1", "x", "1000001"] {
            let error = session_limits(&env(&[("REA_MAX_SESSIONS", bad)])).unwrap_err();
            assert_eq!(error.refusal().code, "configuration_invalid", "{bad}");
        }
    }

    // contract: SERVE-008
    #[test]
    fn log_levels() {
        assert_eq!(log_level(&env(&[])).unwrap(), LevelFilter::INFO);
        assert_eq!(
            log_level(&env(&[("REA_LOG_LEVEL", "WARN")])).unwrap(),
            LevelFilter::WARN
        );
        assert!(log_level(&env(&[("REA_LOG_LEVEL", "loud")])).is_err());
    }
}
