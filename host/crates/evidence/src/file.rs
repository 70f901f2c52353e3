//! Reading an input file within a byte budget, refusing one that changes while it is read.
//!
//! [`read_bounded`] checks the path names a regular file and that its size is within the budget
//! **before** reading anything, reads it once, and compares the file's identity and metadata
//! (device, inode, size, modification and change times) at the path before opening, on the open
//! handle, and on both again after reading. Any difference means the file was replaced or changed
//! while being read: `artifact_changed` in category `integrity_mismatch`, retryable, and nothing
//! read is returned. The file is only ever opened for reading.
//!
//! Refusals: a missing path or one that is not a regular file is `invalid_request` (`input`); a
//! permission denial is `access_denied` (`unavailable`); a file over the budget is
//! `resource_constraint` (`resource`) naming the path and the budget; other I/O failures are
//! `read_failed` (`unavailable`).

use std::fs::{File, Metadata};
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::refusal::Refusal;

/// A file read whole within its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileBytes {
    /// The path made absolute: canonical (`..` and symbolic links resolved) when it can be.
    pub path: PathBuf,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl FileBytes {
    /// The lower-case hex SHA-256 of the bytes.
    pub fn sha256(&self) -> String {
        sha256_hex(&self.bytes)
    }
}

/// The lower-case hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A writer that hashes (SHA-256) and counts what passes through it to `inner` (`std::io::sink()`
/// to only hash and count).
#[derive(Debug)]
pub struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: std::io::Write> HashingWriter<W> {
    /// Hashes what is written to `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }

    /// The lower-case hex SHA-256 of what was written, and how many bytes it was.
    pub fn finish(self) -> (String, u64) {
        (hex::encode(self.hasher.finalize()), self.bytes)
    }
}

impl<W: std::io::Write> std::io::Write for HashingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Reads a regular file of at most `max_bytes` bytes, refusing one that changes while read.
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<FileBytes, Refusal> {
    read_bounded_observed(path, max_bytes, &mut || {})
}

/// [`read_bounded`] with a hook that runs after the file is opened and before it is read (tests
/// use it to change the file at the worst moment).
#[doc(hidden)]
pub fn read_bounded_observed(
    path: &Path,
    max_bytes: u64,
    after_open: &mut dyn FnMut(),
) -> Result<FileBytes, Refusal> {
    let mut bytes = Vec::new();
    let absolute = consume_bounded(path, max_bytes, after_open, &mut |file, len| {
        bytes.reserve_exact(usize::try_from(len).unwrap_or(0));
        file.read_to_end(&mut bytes).map(|read| read as u64)
    })?;
    Ok(FileBytes {
        path: absolute,
        bytes,
    })
}

/// The lower-case hex SHA-256 of a regular file of at most `max_bytes` bytes, read once through
/// a bounded buffer (never held whole), refused as [`read_bounded`] refuses it.
pub fn sha256_bounded(path: &Path, max_bytes: u64) -> Result<String, Refusal> {
    let mut hasher = Sha256::new();
    consume_bounded(path, max_bytes, &mut || {}, &mut |file, _| {
        std::io::copy(file, &mut hasher)
    })?;
    Ok(hex::encode(hasher.finalize()))
}

/// Reads a regular file of at most `max_bytes` bytes through `read` (so a reader that types it as
/// it goes never holds its bytes whole), refused as [`read_bounded`] refuses it. What `read`
/// leaves unread is read after it, so the whole file is checked not to have changed meanwhile.
pub fn read_bounded_with<T>(
    path: &Path,
    max_bytes: u64,
    read: impl FnOnce(&mut dyn Read) -> T,
) -> Result<T, Refusal> {
    let mut read = Some(read);
    let mut value = None;
    consume_bounded(path, max_bytes, &mut || {}, &mut |file, _| {
        let mut counted = CountingReader {
            inner: file,
            bytes: 0,
        };
        if let Some(read) = read.take() {
            value = Some(read(&mut counted));
        }
        std::io::copy(&mut counted, &mut std::io::sink())?;
        Ok(counted.bytes)
    })?;
    value.ok_or_else(|| Refusal::internal("the file was not read"))
}

/// A reader that counts the bytes read through it.
struct CountingReader<'a> {
    inner: &'a mut dyn Read,
    bytes: u64,
}

impl Read for CountingReader<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.bytes += read as u64;
        Ok(read)
    }
}

/// Checks the file, lets `consume` read it (at most `max_bytes + 1` bytes, told the opened
/// file's length; it returns how many it read) and checks it did not change meanwhile; returns
/// the absolute path.
fn consume_bounded(
    path: &Path,
    max_bytes: u64,
    after_open: &mut dyn FnMut(),
    consume: &mut dyn FnMut(&mut dyn Read, u64) -> std::io::Result<u64>,
) -> Result<PathBuf, Refusal> {
    let absolute = std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf());
    let shown = absolute.display().to_string();
    let before = std::fs::metadata(path).map_err(|error| io_refusal(&shown, &error))?;
    if !before.is_file() {
        return Err(Refusal::invalid_request(format!(
            "{shown} is not a regular file"
        )));
    }
    if before.len() > max_bytes {
        return Err(Refusal::resource_constraint(format!(
            "{shown} has {} bytes, more than the budget of {max_bytes} bytes",
            before.len()
        ))
        .with_data(serde_json::json!({"bytes": before.len(), "budget": max_bytes})));
    }
    let mut file = File::open(path).map_err(|error| io_refusal(&shown, &error))?;
    let opened = file
        .metadata()
        .map_err(|error| io_refusal(&shown, &error))?;
    if Fingerprint::of(&opened) != Fingerprint::of(&before) {
        return Err(changed(&shown));
    }
    after_open();
    let read = consume(
        &mut (&mut file).take(max_bytes.saturating_add(1)),
        opened.len(),
    )
    .map_err(|error| io_refusal(&shown, &error))?;
    let after_handle = file
        .metadata()
        .map_err(|error| io_refusal(&shown, &error))?;
    let after_path = std::fs::metadata(path).map_err(|_| changed(&shown))?;
    let expected = Fingerprint::of(&opened);
    if read != opened.len()
        || Fingerprint::of(&after_handle) != expected
        || Fingerprint::of(&after_path) != expected
    {
        return Err(changed(&shown));
    }
    Ok(absolute)
}

fn changed(shown: &str) -> Refusal {
    Refusal::new(
        "artifact_changed",
        "integrity_mismatch",
        format!("{shown} was replaced or changed while it was read; nothing was decoded"),
    )
    .retryable(true)
}

fn io_refusal(shown: &str, error: &std::io::Error) -> Refusal {
    match error.kind() {
        ErrorKind::NotFound => Refusal::missing_file(shown),
        ErrorKind::PermissionDenied => Refusal::new(
            "access_denied",
            "unavailable",
            format!("{shown}: permission to read it is denied"),
        ),
        _ => Refusal::new(
            "read_failed",
            "unavailable",
            format!("{shown}: it could not be read ({error})"),
        ),
    }
}

/// What identifies a file's content without reading it.
#[derive(Debug, PartialEq, Eq)]
struct Fingerprint {
    length: u64,
    #[cfg(unix)]
    identity: (u64, u64, i64, i64, i64, i64),
    #[cfg(not(unix))]
    modified: Option<std::time::SystemTime>,
}

impl Fingerprint {
    fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Fingerprint {
                length: metadata.len(),
                identity: (
                    metadata.dev(),
                    metadata.ino(),
                    metadata.mtime(),
                    metadata.mtime_nsec(),
                    metadata.ctime(),
                    metadata.ctime_nsec(),
                ),
            }
        }
        #[cfg(not(unix))]
        {
            Fingerprint {
                length: metadata.len(),
                modified: metadata.modified().ok(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_read_in_part_is_checked_whole_and_refused_over_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, b"abcdef").unwrap();
        let first = read_bounded_with(&path, 6, |reader| {
            let mut two = [0u8; 2];
            reader.read_exact(&mut two).map(|()| two)
        })
        .unwrap()
        .unwrap();
        assert_eq!(&first, b"ab");
        let refused = read_bounded_with(&path, 5, |_| ()).unwrap_err();
        assert_eq!(refused.code, "resource_constraint");
    }

    #[test]
    fn reads_a_file_within_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, b"{}").unwrap();
        let file = read_bounded(&path, 2).unwrap();
        assert_eq!(file.bytes, b"{}");
        assert!(file.path.is_absolute());
        assert_eq!(
            file.sha256(),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        assert_eq!(sha256_bounded(&path, 2), Ok(file.sha256()));
        let over = sha256_bounded(&path, 1).unwrap_err();
        assert_eq!(over.code, "resource_constraint");
    }

    #[test]
    fn refuses_what_it_must_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let missing = read_bounded(&dir.path().join("missing"), 10).unwrap_err();
        assert_eq!(
            (missing.code.as_str(), missing.category.as_str()),
            ("invalid_request", "input")
        );
        let directory = read_bounded(dir.path(), 10).unwrap_err();
        assert_eq!(directory.code, "invalid_request");
        assert!(directory.message.contains("not a regular file"));
        let path = dir.path().join("big");
        std::fs::write(&path, b"12345").unwrap();
        let big = read_bounded(&path, 4).unwrap_err();
        assert_eq!(
            (big.code.as_str(), big.category.as_str()),
            ("resource_constraint", "resource")
        );
        assert!(big.message.contains("budget of 4 bytes"), "{}", big.message);
    }

    #[test]
    fn a_permission_denial_is_access_denied_in_category_unavailable() {
        // The mapping; a real denial (CAPTURE-019) is `tests/it/capture_refusals.rs`, run as an
        // unprivileged user.
        let denied = io_refusal("/x", &std::io::Error::from(ErrorKind::PermissionDenied));
        assert_eq!(
            (denied.code.as_str(), denied.category.as_str()),
            ("access_denied", "unavailable")
        );
    }

    // contract: CAPTURE-020
    #[test]
    fn a_file_changed_while_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.har");
        std::fs::write(&path, b"{\"log\": 1}").unwrap();
        let target = path.clone();
        let refusal = read_bounded_observed(&path, 1024, &mut || {
            std::fs::write(&target, b"{\"log\": 22}").unwrap();
        })
        .unwrap_err();
        assert_eq!(refusal.code, "artifact_changed");
        assert_eq!(refusal.category, "integrity_mismatch");
        assert_eq!(refusal.retryable, Some(true));
        // Replaced by another file (rename over it).
        let other = dir.path().join("b.har");
        std::fs::write(&other, b"{\"log\": 1}").unwrap();
        let (source, destination) = (other.clone(), path.clone());
        let refusal = read_bounded_observed(&path, 1024, &mut || {
            std::fs::rename(&source, &destination).unwrap();
        })
        .unwrap_err();
        assert_eq!(refusal.code, "artifact_changed");
    }
}
