//! Loading a plugin library from a path and reading any plugin's descriptor.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use abi_stable::library::{LibraryError, lib_header_from_path};
use rea_plugin_api::{API_VERSION, PluginDescriptor, PluginModuleRef};
use sha2::{Digest, Sha256};

use crate::{PluginSource, RegistryError};

/// Checks the file, its pinned digest, and loads its root module. Returns the module and the
/// file's SHA-256.
///
/// The file is read once; its digest is taken from those bytes, and exactly those bytes are
/// loaded (from a sealed in-memory copy, see [`loadable_copy`]), so the pinned bytes are the loaded
/// bytes and a bare name never reaches `dlopen`'s library search path.
pub(crate) fn load_library(
    path: &Path,
    pinned_sha256: Option<&str>,
) -> Result<(PluginModuleRef, String), RegistryError> {
    let bytes = read_regular_file(path)?;
    let sha256 = hex::encode(Sha256::digest(&bytes));
    if let Some(expected) = pinned_sha256
        && !expected.eq_ignore_ascii_case(&sha256)
    {
        return Err(RegistryError::ChecksumMismatch {
            path: path.to_owned(),
            expected: expected.to_ascii_lowercase(),
            actual: sha256,
        });
    }
    let load_path = loadable_copy(path, &bytes)?;
    let header = lib_header_from_path(&load_path).map_err(|error| not_a_plugin(path, &error))?;
    let module = header
        .init_root_module::<PluginModuleRef>()
        .map_err(|error| classify_init_error(path, error))?;
    Ok((module, sha256))
}

fn unreadable(path: &Path, error: &std::io::Error) -> RegistryError {
    RegistryError::Unreadable {
        path: path.to_owned(),
        reason: error.to_string(),
    }
}

/// Opens the library file once and reads it whole, refusing a missing file and anything but a
/// regular file.
fn read_regular_file(path: &Path) -> Result<Vec<u8>, RegistryError> {
    let not_regular = || RegistryError::Unreadable {
        path: path.to_owned(),
        reason: "not a regular file".to_owned(),
    };
    match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => return Err(not_regular()),
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(RegistryError::MissingFile {
                path: path.to_owned(),
            });
        }
        Err(error) => return Err(unreadable(path, &error)),
    }
    let mut file = File::open(path).map_err(|error| unreadable(path, &error))?;
    if !file
        .metadata()
        .map_err(|error| unreadable(path, &error))?
        .is_file()
    {
        return Err(not_regular());
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|error| unreadable(path, &error))?;
    Ok(bytes)
}

/// A path `dlopen` resolves to exactly `bytes`: on Linux a sealed memory file holding them
/// (`/proc/self/fd/N`; nobody can change it after the digest was taken); elsewhere, or where no
/// memory file can be made, the file's absolute canonical path (it contains a slash, so it is
/// never searched for).
fn loadable_copy(path: &Path, bytes: &[u8]) -> Result<PathBuf, RegistryError> {
    #[cfg(target_os = "linux")]
    match sealed_memory_file(path, bytes) {
        Ok(load_path) => return Ok(load_path),
        Err(error) => {
            tracing::debug!(path = %path.display(), error = %error, "no sealed memory file; loading by absolute path");
        }
    }
    let _ = bytes;
    std::fs::canonicalize(path).map_err(|error| unreadable(path, &error))
}

/// Copies `bytes` into a memory file, seals it against every change, and answers its
/// `/proc/self/fd/N` path. The descriptor stays open for the life of the process: the library is
/// never unloaded, and `dlopen` recognises loaded libraries by name, so `N` must never name
/// another file later.
#[cfg(target_os = "linux")]
fn sealed_memory_file(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};

    let label: String = path
        .file_name()
        .map(|name| name.to_string_lossy().replace('\0', ""))
        .unwrap_or_default()
        .chars()
        .take(200)
        .collect();
    let label =
        std::ffi::CString::new(format!("rea-plugin:{label}")).map_err(std::io::Error::other)?;
    // SAFETY: `label` is a NUL-terminated string that outlives the call; the flags are valid.
    let fd =
        unsafe { libc::memfd_create(label.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and is owned by nothing else.
    let mut file = unsafe { File::from_raw_fd(fd) };
    file.write_all(bytes)?;
    let seals = libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
    // SAFETY: `file` is an open memory file created with MFD_ALLOW_SEALING.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let load_path = PathBuf::from(format!("/proc/self/fd/{}", file.into_raw_fd()));
    if !load_path.exists() {
        return Err(std::io::Error::other("/proc/self/fd is not mounted"));
    }
    Ok(load_path)
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
