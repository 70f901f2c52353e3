//! Loading a plugin library from a path and reading any plugin's descriptor.

use std::io::Read;
use std::path::Path;

use abi_stable::library::{LibraryError, lib_header_from_path};
use rea_plugin_api::{API_VERSION, PluginDescriptor, PluginModuleRef};
use sha2::{Digest, Sha256};

use crate::{PluginSource, RegistryError};

/// Checks the file, its pinned digest, and loads its root module. Returns the module and the
/// file's SHA-256.
pub(crate) fn load_library(
    path: &Path,
    pinned_sha256: Option<&str>,
) -> Result<(PluginModuleRef, String), RegistryError> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(RegistryError::MissingFile {
                path: path.to_owned(),
            });
        }
        Err(error) => {
            return Err(RegistryError::Unreadable {
                path: path.to_owned(),
                reason: error.to_string(),
            });
        }
    };
    if !metadata.is_file() {
        return Err(RegistryError::Unreadable {
            path: path.to_owned(),
            reason: "not a regular file".to_owned(),
        });
    }
    let sha256 = sha256_of_file(path)?;
    if let Some(expected) = pinned_sha256
        && !expected.eq_ignore_ascii_case(&sha256)
    {
        return Err(RegistryError::ChecksumMismatch {
            path: path.to_owned(),
            expected: expected.to_ascii_lowercase(),
            actual: sha256,
        });
    }
    let header = lib_header_from_path(path).map_err(|error| not_a_plugin(path, &error))?;
    let module = header
        .init_root_module::<PluginModuleRef>()
        .map_err(|error| classify_init_error(path, error))?;
    Ok((module, sha256))
}

fn sha256_of_file(path: &Path) -> Result<String, RegistryError> {
    let unreadable = |error: std::io::Error| RegistryError::Unreadable {
        path: path.to_owned(),
        reason: error.to_string(),
    };
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = file.read(&mut buffer).map_err(unreadable)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn not_a_plugin(path: &Path, error: &LibraryError) -> RegistryError {
    let reason = match error {
        LibraryError::OpenError { .. } => "it is not a loadable shared library".to_owned(),
        LibraryError::GetSymbolError { .. } => {
            "it exports no abi_stable root module (#[export_root_module])".to_owned()
        }
        other => first_line(&other.to_string()),
    };
    tracing::debug!(path = %path.display(), error = %error, "library is not a plugin");
    RegistryError::NotAPlugin {
        path: path.to_owned(),
        reason,
    }
}

fn classify_init_error(path: &Path, error: LibraryError) -> RegistryError {
    tracing::debug!(path = %path.display(), error = %error, "plugin root module refused");
    match error {
        LibraryError::IncompatibleVersionNumber {
            expected_version,
            actual_version,
            ..
        } => RegistryError::IncompatibleApiVersion {
            plugin: path.display().to_string(),
            source_display: path.display().to_string(),
            plugin_api: actual_version.to_string(),
            host_api: expected_version.to_string(),
        },
        LibraryError::AbiInstability(_)
        | LibraryError::InvalidAbiHeader(_)
        | LibraryError::InvalidCAbi { .. } => RegistryError::LayoutMismatch {
            path: path.to_owned(),
            summary: "the root module's type layout differs (details in the debug log)".to_owned(),
            host_api: API_VERSION.to_owned(),
        },
        LibraryError::Many(errors) if !errors.is_empty() => {
            let first = errors
                .into_iter()
                .next()
                .unwrap_or(LibraryError::Many(Default::default()));
            classify_init_error(path, first)
        }
        other => RegistryError::NotAPlugin {
            path: path.to_owned(),
            reason: first_line(&other.to_string()),
        },
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_owned()
}

/// Reads the plugin's descriptor (the call is panic-guarded on the plugin side).
pub(crate) fn describe(
    module: PluginModuleRef,
    source: &PluginSource,
) -> Result<PluginDescriptor, RegistryError> {
    module.descriptor()()
        .into_result()
        .map_err(|error| RegistryError::DescriptorFailed {
            source_display: source.display(),
            reason: error.to_string(),
        })
}

/// Checks that a plugin built against `descriptor.api_version` can run on this host's API:
/// semver-compatible (`^plugin_api` matches the host's version).
pub(crate) fn check_api_version(
    descriptor: &PluginDescriptor,
    source: &PluginSource,
) -> Result<(), RegistryError> {
    let incompatible = || RegistryError::IncompatibleApiVersion {
        plugin: descriptor.name.to_string(),
        source_display: source.display(),
        plugin_api: descriptor.api_version.to_string(),
        host_api: API_VERSION.to_owned(),
    };
    let host = semver::Version::parse(API_VERSION).map_err(|_| incompatible())?;
    let requirement = semver::VersionReq::parse(&format!("^{}", descriptor.api_version))
        .map_err(|_| incompatible())?;
    if requirement.matches(&host) {
        Ok(())
    } else {
        Err(incompatible())
    }
}
