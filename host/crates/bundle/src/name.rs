//! Environment names: which names a bundle may take, and where a name comes from.
//!
//! A bundle name is the env folder (`envs/NAME`), the env id, the `environment_name` and the
//! compose service name the framework's gateway reaches the server by, so it must be a portable
//! DNS label: kebab-case (lower-case ASCII letters and digits in runs joined by single hyphens), at
//! most 63 characters, not a Windows device name (`con`, `com1`, …), not a label read as an IP
//! address (all digits, `0x…`), and not one of the names the framework's gateway deploy gives its
//! own containers (`gateway`, `servicedb`, `pgweb`, `db-mcp`, `website-browser`; measured on
//! agentenv-framework 0.9.1364, where such an `environment_name` is refused).
//!
//! Without an explicit name the manifest's name is used, unless the capture's primary origin is a
//! loopback name (`localhost`, `*.localhost`) or an IP literal: such a name says nothing about the
//! application, so the capture file names the environment instead (`grafana.har` and
//! `grafana.capture.json` both give `grafana`) and a `name-from-file` warning says so. A generic
//! file stem (`build.har`, `session.har`: [`GENERIC_STEMS`]) gives way to the folder holding the
//! file (`json-server/build.har` → `json-server`), so bundles of different applications recorded
//! under one file name do not share a name; when the folder cannot name it either, the generic
//! name is kept with a `generic-name` warning. Retained Evidence has no file, so there a name is
//! required.

use std::net::IpAddr;
use std::path::Path;

use rea_evidence::Refusal;
use rea_manifest::naming::{MAX_ENVIRONMENT_NAME, is_windows_device, reads_as_ip};

/// Names the framework's gateway deploy gives its own containers (agentenv-framework 0.9.1364,
/// `providers/env_providers/constants.py`); an env of that name is refused by the framework.
pub const RESERVED_NAMES: [&str; 5] =
    ["db-mcp", "gateway", "pgweb", "servicedb", "website-browser"];

/// Why a name cannot name a bundle, or `None` when it can.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if name.len() > MAX_ENVIRONMENT_NAME {
        return Some(format!(
            "it has {} characters, more than the {MAX_ENVIRONMENT_NAME} of a DNS service label",
            name.chars().count()
        ));
    }
    let kebab = name.split('-').all(|run| {
        !run.is_empty()
            && run
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    if !kebab {
        return Some(
            "it is not kebab-case (lower-case ASCII letters and digits joined by single hyphens)"
                .to_owned(),
        );
    }
    if is_windows_device(name) {
        return Some("it is a Windows device name".to_owned());
    }
    if reads_as_ip(name) {
        return Some("it is a label that reads as an IP address".to_owned());
    }
    if RESERVED_NAMES.contains(&name) {
        return Some(
            "the agentenv framework's gateway deploy names one of its own containers so".to_owned(),
        );
    }
    None
}

/// Refuses a name that cannot name a bundle (`invalid_request`, pointer `/name`).
pub fn check_name(name: &str) -> Result<(), Refusal> {
    match name_problem(name) {
        None => Ok(()),
        Some(problem) => Err(Refusal::invalid_request(format!(
            "the environment name {} cannot name a bundle: {problem}",
            serde_json::Value::String(name.to_owned())
        ))
        .at("/name")
        .with_data(serde_json::json!({ "name": name }))),
    }
}

/// Whether an origin (`scheme://host[:port]`) names a loopback host or an IP literal.
pub fn is_local_origin(origin: &str) -> bool {
    let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    let authority = authority.split('/').next().unwrap_or_default();
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        authority.split(':').next().unwrap_or_default()
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost") || host.parse::<IpAddr>().is_ok()
}

/// File stems that say nothing about the application (`build.har`, `session.har`,
/// `capture.json`): the folder holding such a file names the environment instead.
pub const GENERIC_STEMS: [&str; 24] = [
    "app",
    "archive",
    "build",
    "capture",
    "captures",
    "data",
    "download",
    "dump",
    "export",
    "file",
    "har",
    "log",
    "network",
    "new",
    "out",
    "output",
    "record",
    "recording",
    "requests",
    "session",
    "temp",
    "test",
    "tmp",
    "traffic",
];

/// Whether a name is one of [`GENERIC_STEMS`].
pub fn is_generic(name: &str) -> bool {
    GENERIC_STEMS.contains(&name)
}

/// The stem of a capture file name: without `.har`, or without `.json` and then `.capture`.
fn file_stem(file: &str) -> &str {
    if let Some(stem) = file.strip_suffix(".har") {
        stem
    } else if let Some(stem) = file.strip_suffix(".json") {
        stem.strip_suffix(".capture").unwrap_or(stem)
    } else {
        file
    }
}

/// The name a capture file gives: its file name without `.har`, or without `.json` and then
/// `.capture` (`grafana.har`, `grafana.capture.json` → `grafana`); for a generic stem
/// ([`GENERIC_STEMS`]: `json-server/build.har`) the folder holding the file, when that folder's
/// name can name a bundle and is not generic itself. A name that cannot name a bundle is refused
/// with a hint to pass `--name`. The second value says whether the folder named it.
pub fn name_from_file(path: &Path) -> Result<(String, bool), Refusal> {
    let file = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = file_stem(&file);
    if is_generic(stem) {
        let folder = std::path::absolute(path).ok().and_then(|path| {
            path.parent()
                .and_then(Path::file_name)
                .map(|name| name.to_string_lossy().into_owned())
        });
        if let Some(folder) =
            folder.filter(|folder| name_problem(folder).is_none() && !is_generic(folder))
        {
            return Ok((folder, true));
        }
    }
    match name_problem(stem) {
        None => Ok((stem.to_owned(), false)),
        Some(problem) => Err(Refusal::invalid_request(format!(
            "the capture's origin is a loopback name or an IP literal, so the capture file names the environment, but {} gives {}, which cannot name a bundle: {problem}; pass --name",
            serde_json::Value::String(file.clone()),
            serde_json::Value::String(stem.to_owned()),
        ))
        .at("/name")
        .with_data(serde_json::json!({ "file": file, "name": stem }))),
    }
}

/// What names the environment when no name is given and the origin is local.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalOriginName {
    /// The manifest's name all the same (`environment-export`).
    Manifest,
    /// The capture file (`environment-build`, and the MCP tool given an Evidence file).
    File(std::path::PathBuf),
    /// Nothing: a name is required (the MCP tool given retained Evidence).
    Required,
}

/// A chosen name and the warnings its choice carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChosenName {
    /// The name.
    pub name: String,
    /// The `name-from-file` warning message, when the capture file (or its folder) named it.
    pub from_file: Option<String>,
    /// The `generic-name` warning message, when the name is a generic file stem
    /// ([`GENERIC_STEMS`]) nothing better replaced.
    pub generic: Option<String>,
}

/// Chooses the bundle name: the explicit one, else the manifest's, else (for a local origin) as
/// `local` says. Every choice is checked with [`check_name`].
pub fn choose_name(
    explicit: Option<&str>,
    manifest_name: &str,
    primary_origin: &str,
    local: &LocalOriginName,
) -> Result<ChosenName, Refusal> {
    if let Some(name) = explicit {
        check_name(name)?;
        return Ok(ChosenName {
            name: name.to_owned(),
            from_file: None,
            generic: None,
        });
    }
    if is_local_origin(primary_origin) {
        match local {
            LocalOriginName::Manifest => {}
            LocalOriginName::File(path) => {
                let (name, from_folder) = name_from_file(path)?;
                let after = if from_folder {
                    "the folder holding the capture file"
                } else {
                    "the capture file"
                };
                let message = format!(
                    "the capture's origin {primary_origin} is a loopback name or an IP literal, so the environment is named {name} after {after}, not {manifest_name}; pass --name to choose another"
                );
                let generic = is_generic(&name).then(|| {
                    format!(
                        "the environment is named {name}, a generic file name that says nothing about the application: pass --name (for example --name my-app) so bundles of different applications do not share it"
                    )
                });
                return Ok(ChosenName {
                    name,
                    from_file: Some(message),
                    generic,
                });
            }
            LocalOriginName::Required => {
                return Err(Refusal::invalid_request(format!(
                    "the capture's origin {primary_origin} is a loopback name or an IP literal and retained Evidence has no file to name the environment after: pass `name`"
                ))
                .at("/name"));
            }
        }
    }
    check_name(manifest_name)?;
    Ok(ChosenName {
        name: manifest_name.to_owned(),
        from_file: None,
        generic: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `name` is refused as a bundle name, with the refusal's code and pointer.
    fn refused(name: &str) -> bool {
        let refusal = check_name(name).unwrap_err();
        assert_eq!(refusal.code, "invalid_request");
        assert_eq!(refusal.pointer.as_deref(), Some("/name"));
        name_problem(name).is_some()
    }

    #[test]
    fn portable_names_only() {
        for good in ["grafana", "json-server", "a", "app2", "x-1-y"] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in [
            "", "Grafana", "my_app", "-app", "app-", "a--b", "my.app", "gateway",
        ] {
            assert!(refused(bad), "{bad:?} must be refused");
        }
        // contract: EXPORT-029
        assert!(refused(&"a".repeat(64)));
        assert!(name_problem(&"a".repeat(63)).is_none());
        for device in ["con", "com1", "lpt9"] {
            // contract: EXPORT-030
            assert!(refused(device), "{device:?} must be refused");
        }
        for address in ["1234", "0x1f"] {
            // contract: EXPORT-031
            assert!(refused(address), "{address:?} must be refused");
        }
    }

    #[test]
    fn loopback_and_ip_origins_are_local() {
        for local in [
            "http://127.0.0.1:3000",
            "http://localhost:8080",
            "https://app.localhost",
            "http://[::1]:8765",
            "http://10.0.0.7",
            "http://user@192.168.1.2:80",
        ] {
            assert!(is_local_origin(local), "{local}");
        }
        for remote in ["https://grafana.example", "http://localhost.example.com"] {
            assert!(!is_local_origin(remote), "{remote}");
        }
    }

    // contract: BUILD-020, BUILD-021, BUILD-022
    #[test]
    fn the_capture_file_names_a_local_origin() {
        let file = LocalOriginName::File("/x/grafana.har".into());
        let chosen = choose_name(None, "127-0-0-1-3000", "http://127.0.0.1:3000", &file).unwrap();
        assert_eq!(chosen.name, "grafana");
        assert!(chosen.from_file.is_some());
        let file = LocalOriginName::File("/x/grafana.capture.json".into());
        let chosen = choose_name(None, "localhost-3000", "http://localhost:3000", &file).unwrap();
        assert_eq!(chosen.name, "grafana");
        // A remote origin keeps the manifest's name.
        let chosen =
            choose_name(None, "grafana-example", "https://grafana.example", &file).unwrap();
        assert_eq!(
            (chosen.name.as_str(), chosen.from_file),
            ("grafana-example", None)
        );
        // An explicit name wins and is checked.
        let chosen = choose_name(Some("mine"), "x", "http://127.0.0.1", &file).unwrap();
        assert_eq!(chosen.name, "mine");
        assert!(choose_name(Some("Mine"), "x", "http://127.0.0.1", &file).is_err());
        // A file name that is no portable label is refused with the hint.
        let bad = LocalOriginName::File("/x/My Capture.har".into());
        let refusal = choose_name(None, "x", "http://127.0.0.1", &bad).unwrap_err();
        assert!(
            refusal.message.contains("pass --name"),
            "{}",
            refusal.message
        );
        let device = LocalOriginName::File("/x/con.har".into());
        assert!(choose_name(None, "x", "http://127.0.0.1", &device).is_err());
        // The export keeps the manifest's name; retained Evidence needs one.
        let chosen = choose_name(
            None,
            "127-0-0-1-3000",
            "http://127.0.0.1:3000",
            &LocalOriginName::Manifest,
        )
        .unwrap();
        assert_eq!(chosen.name, "127-0-0-1-3000");
        assert!(choose_name(None, "x", "http://127.0.0.1", &LocalOriginName::Required).is_err());
    }

    #[test]
    fn a_generic_file_stem_gives_way_to_its_folder() {
        let local = "http://127.0.0.1:3000";
        let file = LocalOriginName::File("/captures/json-server/build.har".into());
        let chosen = choose_name(None, "127-0-0-1-3000", local, &file).unwrap();
        assert_eq!(chosen.name, "json-server");
        assert!(
            chosen
                .from_file
                .unwrap()
                .contains("the folder holding the capture file")
        );
        assert_eq!(chosen.generic, None);
        // Three applications recorded as build.har get three names.
        let names: Vec<String> = ["kinto", "mlflow", "tiddlywiki"]
            .iter()
            .map(|app| {
                let file = LocalOriginName::File(format!("/c/{app}/build.har").into());
                choose_name(None, "x", local, &file).unwrap().name
            })
            .collect();
        assert_eq!(names, ["kinto", "mlflow", "tiddlywiki"]);
        // A folder that cannot name a bundle, or is generic too: the stem, with a warning.
        for path in ["/c/My Captures/build.har", "/c/captures/session.har"] {
            let file = LocalOriginName::File(path.into());
            let chosen = choose_name(None, "x", local, &file).unwrap();
            assert!(is_generic(&chosen.name), "{path}: {}", chosen.name);
            let warning = chosen.generic.expect("generic-name warning");
            assert!(warning.contains("pass --name"), "{warning}");
        }
        // A telling stem is kept whatever the folder.
        let file = LocalOriginName::File("/c/json-server/wiki.har".into());
        assert_eq!(choose_name(None, "x", local, &file).unwrap().name, "wiki");
        // A remote origin and an explicit name never carry the warning.
        let chosen = choose_name(Some("build"), "x", local, &file).unwrap();
        assert_eq!((chosen.name.as_str(), chosen.generic), ("build", None));
    }
}
