//! The output tree: writing a bundle into a folder it owns, never replacing anything.
//!
//! * The destination must be absent (its parent existing) or an empty directory
//!   ([`Destination::AbsentOrEmpty`], the commands) or absent ([`Destination::Absent`], the MCP
//!   tool). A symbolic link, a file, or a directory holding anything is refused
//!   (`invalid_request`) and left as it was. [`check_destination`] runs before any other work, so a
//!   refusal leaves nothing behind; the writer checks again when it starts.
//! * Every directory is created by the writer (mode `0700`) and its identity (device and inode)
//!   recorded; before each create inside it, the path must still name that directory (not a
//!   symbolic link put in its place).
//! * Every file is created exclusively (`O_CREAT|O_EXCL`, which also refuses a symbolic link) with
//!   mode `0600` on POSIX (`0700` for an executable, the bundle's `bin/rea`, so the bundle README's
//!   command runs it as written), written, and its identity recorded.
//! * After the last file, every file is opened again and read back: same identity, same bytes
//!   (SHA-256). Then the tree is walked: an entry the writer did not create (a file dropped in by
//!   someone else) fails the write. Only then is the write reported.
//! * A bundle appears whole or not at all: the files are written into a sibling staging folder
//!   (`.NAME.partial-PID-N`, mode `0700`, beside the destination), verified there, and the staging
//!   folder is renamed onto the destination last (never over an existing entry: an absent
//!   destination is claimed with `RENAME_NOREPLACE`, an empty one is replaced only while still
//!   empty). The observer is told the staging folder ([`WriteObserver::staging`]) so a signal
//!   handler can remove it.
//! * A staging folder of this destination that a killed writer left (SIGKILL cannot be caught) is
//!   swept before the new one is made ([`crate::stale`]), and the observer told
//!   ([`WriteObserver::swept`]).
//! * Between files, and between the chunks of a copied file, the writer asks whether the caller
//!   cancelled; a cancellation is refused `cancelled` naming the folder and the files written so
//!   far.
//!
//! Any failure after the staging folder was made removes it: nothing is left at the destination
//! or beside it (a deliberate difference from the reference, which leaves an inspectable partial
//! folder; see `CONTRACT-NOTES.md`).

use std::collections::BTreeMap;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rea_evidence::Refusal;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::strip::StripPlan;

/// What the destination may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// Absent (created), or an existing empty directory.
    AbsentOrEmpty,
    /// Absent: created by the writer.
    Absent,
}

/// A file's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileContent {
    /// These bytes (shared with whoever else holds them: the bundle's largest texts, the capture
    /// Evidence and the precomputed state, are never copied to be written).
    Bytes(Arc<Vec<u8>>),
    /// A copy of a file, which must still have this size and SHA-256 when copied.
    Copy {
        /// The source.
        source: PathBuf,
        /// Its size.
        bytes: u64,
        /// Its SHA-256 (lower-case hex).
        sha256: String,
    },
    /// A derived state's file, serialized as it is written (its bytes are never held).
    State(Arc<rea_state::precomputed::PrecomputedFile>),
    /// A capture Evidence file written again from its records as it is written (its bytes are
    /// never held), which must be the file sealed at inspection.
    Capture(Arc<rea_evidence::rewrite::CaptureRewrite>),
    /// A file without its debug sections, written from `source` by `plan` ([`crate::strip`]);
    /// the result must have this SHA-256 (its size is the plan's).
    Stripped {
        /// The source.
        source: PathBuf,
        /// What to copy from it.
        plan: StripPlan,
        /// The written file's SHA-256 (lower-case hex).
        sha256: String,
    },
}

impl FileContent {
    /// The size in bytes.
    pub fn len(&self) -> u64 {
        match self {
            FileContent::Bytes(bytes) => bytes.len() as u64,
            FileContent::Copy { bytes, .. } => *bytes,
            FileContent::State(file) => file.len(),
            FileContent::Capture(file) => file.len(),
            FileContent::Stripped { plan, .. } => plan.len(),
        }
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One file of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// The path inside the bundle, `/`-separated (`envs/grafana/Dockerfile`).
    pub path: String,
    /// The content.
    pub content: FileContent,
    /// Whether the owner may execute it (mode `0700` rather than `0600`).
    pub executable: bool,
}

impl PlannedFile {
    /// The POSIX mode the file is created with: owner-only, executable or not.
    pub fn mode(&self) -> u32 {
        if self.executable { 0o700 } else { 0o600 }
    }
}

/// A file written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenFile {
    /// The path inside the bundle.
    pub path: String,
    /// Its size.
    pub bytes: u64,
}

/// What the writer reports as it goes.
pub trait WriteObserver {
    /// A file was written (`done` of `total`).
    fn written(&mut self, path: &str, done: usize, total: usize);
    /// Whether the caller cancelled.
    fn cancelled(&mut self) -> bool;
    /// The staging folder the bundle is being written into (`None` once it was renamed onto the
    /// destination or removed): whoever stops the process meanwhile removes it.
    fn staging(&mut self, _folder: Option<&Path>) {}
    /// A staging folder a killed writer left beside the destination was removed
    /// ([`crate::stale`]).
    fn swept(&mut self, _folder: &Path) {}
}

/// An observer that reports nothing and never cancels.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unobserved;

impl WriteObserver for Unobserved {
    fn written(&mut self, _: &str, _: usize, _: usize) {}
    fn cancelled(&mut self) -> bool {
        false
    }
}

fn shown(path: &Path) -> String {
    serde_json::Value::String(path.display().to_string()).to_string()
}

fn destination_refusal(message: String, directory: &Path) -> Refusal {
    Refusal::invalid_request(message)
        .with_data(json!({ "directory": directory.display().to_string() }))
}

/// Checks the destination without changing anything.
pub fn check_destination(directory: &Path, rule: Destination) -> Result<(), Refusal> {
    match std::fs::symlink_metadata(directory) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let parent = parent_of(directory);
            match std::fs::metadata(&parent) {
                Ok(metadata) if metadata.is_dir() => Ok(()),
                _ => Err(destination_refusal(
                    format!(
                        "the bundle directory {}'s parent {} is not an existing directory",
                        shown(directory),
                        shown(&parent)
                    ),
                    directory,
                )),
            }
        }
        Err(error) => Err(Refusal::new(
            "read_failed",
            "unavailable",
            format!(
                "the bundle directory {} cannot be examined: {error}",
                shown(directory)
            ),
        )),
        Ok(metadata) => {
            if rule == Destination::Absent {
                return Err(destination_refusal(
                    format!(
                        "{} already exists; the bundle is written into a new directory only, never into or over an existing one",
                        shown(directory)
                    ),
                    directory,
                ));
            }
            if !metadata.is_dir() {
                return Err(destination_refusal(
                    format!(
                        "{} exists and is not a directory (a symbolic link or a file); the bundle directory must be absent or empty",
                        shown(directory)
                    ),
                    directory,
                ));
            }
            let mut entries = std::fs::read_dir(directory).map_err(|error| {
                Refusal::new(
                    "read_failed",
                    "unavailable",
                    format!(
                        "the bundle directory {} cannot be listed: {error}",
                        shown(directory)
                    ),
                )
            })?;
            if entries.next().is_some() {
                return Err(destination_refusal(
                    format!(
                        "the bundle directory {} is not empty; a bundle never replaces a folder: choose an absent or empty directory",
                        shown(directory)
                    ),
                    directory,
                ));
            }
            Ok(())
        }
    }
}

fn parent_of(directory: &Path) -> PathBuf {
    match directory.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A device and inode (on other systems: nothing, and identities always agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity(u64, u64);

fn identity(metadata: &Metadata) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Identity(metadata.dev(), metadata.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        Identity(0, 0)
    }
}

/// The writer's state: what it created.
struct Tree<'a> {
    root: &'a Path,
    directories: BTreeMap<String, Identity>,
    files: Vec<(String, Identity, String, u64)>,
}

fn write_failed(path: &Path, error: &std::io::Error) -> Refusal {
    Refusal::new(
        "write_failed",
        "unavailable",
        format!("{} could not be written: {error}", shown(path)),
    )
}

/// A capture Evidence file that could not be written again, or was not the inspected one.
fn rewrite_failed(path: &Path, error: rea_evidence::rewrite::RewriteError) -> Refusal {
    match error {
        rea_evidence::rewrite::RewriteError::Io(error) => write_failed(path, &error),
        other => changed(format!("{}: {other}", shown(path))),
    }
}

fn changed(message: String) -> Refusal {
    Refusal::new("artifact_changed", "integrity_mismatch", message)
}

/// Why writing one file stopped.
enum WriteError {
    /// The caller cancelled between two chunks.
    Cancelled,
    /// A refusal.
    Refused(Refusal),
}

impl From<Refusal> for WriteError {
    fn from(refusal: Refusal) -> Self {
        WriteError::Refused(refusal)
    }
}

impl Tree<'_> {
    fn create_directory(&mut self, relative: &str) -> Result<(), Refusal> {
        if self.directories.contains_key(relative) {
            return Ok(());
        }
        let (parent, _) = relative.rsplit_once('/').unwrap_or(("", relative));
        self.create_directory(parent)?;
        self.check_directory(parent)?;
        let path = self.root.join(relative);
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder
            .create(&path)
            .map_err(|error| write_failed(&path, &error))?;
        let metadata =
            std::fs::symlink_metadata(&path).map_err(|error| write_failed(&path, &error))?;
        self.directories
            .insert(relative.to_owned(), identity(&metadata));
        Ok(())
    }

    fn check_directory(&self, relative: &str) -> Result<(), Refusal> {
        let path = if relative.is_empty() {
            self.root.to_path_buf()
        } else {
            self.root.join(relative)
        };
        let expected = self.directories.get(relative);
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.is_dir() && Some(&identity(&metadata)) == expected => Ok(()),
            _ => Err(changed(format!(
                "{} is no longer the directory the bundle writer created: the output tree was changed while it was written",
                shown(&path)
            ))),
        }
    }

    fn write_file(
        &mut self,
        file: &PlannedFile,
        observer: &mut dyn WriteObserver,
    ) -> Result<(), WriteError> {
        let (parent, _) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
        self.create_directory(parent)?;
        self.check_directory(parent)?;
        let path = self.root.join(&file.path);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(file.mode());
        }
        let mut handle = options
            .open(&path)
            .map_err(|error| write_failed(&path, &error))?;
        let (sha256, bytes) = match &file.content {
            FileContent::Bytes(bytes) => {
                handle
                    .write_all(bytes)
                    .map_err(|error| write_failed(&path, &error))?;
                (rea_evidence::sha256_hex(bytes), bytes.len() as u64)
            }
            FileContent::State(state) => {
                let mut hashing = rea_evidence::HashingWriter::new(&mut handle);
                state
                    .write_to(&mut hashing)
                    .map_err(|error| write_failed(&path, &error))?;
                hashing.finish()
            }
            FileContent::Capture(capture) => {
                let mut hashing = rea_evidence::HashingWriter::new(&mut handle);
                capture
                    .write_to(&mut hashing)
                    .map_err(|error| rewrite_failed(&path, error))?;
                hashing.finish()
            }
            FileContent::Copy {
                source,
                bytes,
                sha256,
            } => {
                let copied = copy_hashing(source, &mut handle, &path, observer)?;
                unchanged(source, &copied, sha256, *bytes)?;
                copied
            }
            FileContent::Stripped {
                source,
                plan,
                sha256,
            } => {
                let mut cancelled = || observer.cancelled();
                let written = strip_hashing(source, plan, &mut handle, &path, &mut cancelled)?;
                unchanged(source, &written, sha256, plan.len())?;
                written
            }
        };
        handle
            .flush()
            .map_err(|error| write_failed(&path, &error))?;
        let opened = handle
            .metadata()
            .map_err(|error| write_failed(&path, &error))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if opened.permissions().mode() & 0o7777 != file.mode() {
                // A umask can only remove bits; set exactly the mode on the handle we created.
                handle
                    .set_permissions(std::fs::Permissions::from_mode(file.mode()))
                    .map_err(|error| write_failed(&path, &error))?;
            }
        }
        self.files
            .push((file.path.clone(), identity(&opened), sha256, bytes));
        Ok(())
    }

    /// Reads every file back and walks the tree for entries the writer did not create.
    fn verify(&self) -> Result<(), Refusal> {
        for (relative, expected, sha256, bytes) in &self.files {
            let path = self.root.join(relative);
            let mut options = OpenOptions::new();
            options.read(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.custom_flags(NOFOLLOW);
            }
            let mut handle = options.open(&path).map_err(|error| {
                changed(format!(
                    "{} cannot be read back after writing: {error}",
                    shown(&path)
                ))
            })?;
            let metadata = handle
                .metadata()
                .map_err(|error| write_failed(&path, &error))?;
            let (actual, length) = hash_reader(&mut handle, &path)?;
            if identity(&metadata) != *expected || actual != *sha256 || length != *bytes {
                return Err(changed(format!(
                    "{} is not the file the bundle writer wrote: the output tree was changed while it was written",
                    shown(&path)
                )));
            }
        }
        let owned: std::collections::BTreeSet<&str> = self
            .directories
            .keys()
            .map(String::as_str)
            .chain(self.files.iter().map(|(path, ..)| path.as_str()))
            .collect();
        let mut pending = vec![String::new()];
        while let Some(relative) = pending.pop() {
            let path = if relative.is_empty() {
                self.root.to_path_buf()
            } else {
                self.root.join(&relative)
            };
            let entries = std::fs::read_dir(&path)
                .map_err(|error| changed(format!("{} cannot be listed: {error}", shown(&path))))?;
            for entry in entries {
                let entry = entry.map_err(|error| {
                    changed(format!("{} cannot be listed: {error}", shown(&path)))
                })?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let child = if relative.is_empty() {
                    name
                } else {
                    format!("{relative}/{name}")
                };
                if !owned.contains(child.as_str()) {
                    return Err(changed(format!(
                        "{} appeared in the bundle while it was written; the writer did not create it",
                        shown(&self.root.join(&child))
                    )));
                }
                if self.directories.contains_key(&child) {
                    pending.push(child);
                }
            }
        }
        Ok(())
    }
}

/// Refuses a file whose source changed since it was planned: what was written (`written`, its
/// SHA-256 and size) is not what was planned.
fn unchanged(
    source: &Path,
    written: &(String, u64),
    sha256: &str,
    bytes: u64,
) -> Result<(), WriteError> {
    if written.0 == sha256 && written.1 == bytes {
        return Ok(());
    }
    Err(WriteError::Refused(changed(format!(
        "{} changed after it was planned (SHA-256 {} of {} bytes, not {sha256} of {bytes})",
        shown(source),
        written.0,
        written.1
    ))))
}

#[cfg(unix)]
const NOFOLLOW: i32 = libc::O_NOFOLLOW;

/// A writer that hashes and counts what passes through it, remembering whether writing failed.
struct Hashing<'a> {
    out: &'a mut dyn Write,
    hasher: Sha256,
    total: u64,
    failed: bool,
}

impl Write for Hashing<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.out.write(bytes).inspect_err(|_| self.failed = true)?;
        self.hasher.update(&bytes[..written]);
        self.total += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush().inspect_err(|_| self.failed = true)
    }
}

/// Writes `source` without its debug sections to `out` by `plan`, hashing it; `cancelled` is
/// asked between chunks. Errors name the source when reading failed, `path` when writing did.
fn strip_hashing(
    source: &Path,
    plan: &StripPlan,
    out: &mut dyn Write,
    path: &Path,
    cancelled: &mut dyn FnMut() -> bool,
) -> Result<(String, u64), WriteError> {
    let unreadable = |error: &std::io::Error| {
        WriteError::Refused(Refusal::new(
            "read_failed",
            "unavailable",
            format!("{} cannot be read: {error}", shown(source)),
        ))
    };
    let mut input = File::open(source).map_err(|error| unreadable(&error))?;
    let mut sink = Hashing {
        out,
        hasher: Sha256::new(),
        total: 0,
        failed: false,
    };
    let mut stopped = false;
    let outcome = plan.write_to(&mut input, &mut sink, &mut || {
        stopped = cancelled();
        if stopped {
            Err(std::io::Error::other("cancelled"))
        } else {
            Ok(())
        }
    });
    match outcome {
        Ok(()) => Ok((hex::encode(sink.hasher.finalize()), sink.total)),
        Err(_) if stopped => Err(WriteError::Cancelled),
        Err(error) if sink.failed => Err(WriteError::Refused(write_failed(path, &error))),
        Err(error) => Err(unreadable(&error)),
    }
}

/// The SHA-256 and size of `source` without its debug sections, as `plan` writes it.
pub fn digest_stripped(source: &Path, plan: &StripPlan) -> Result<(String, u64), Refusal> {
    match strip_hashing(source, plan, &mut std::io::sink(), source, &mut || false) {
        Ok(digest) => Ok(digest),
        Err(WriteError::Refused(refusal)) => Err(refusal),
        Err(WriteError::Cancelled) => Err(Refusal::cancelled(format!(
            "reading {} was cancelled",
            shown(source)
        ))),
    }
}

/// The SHA-256 and size of what `reader` (the file at `path`) reads, through a bounded buffer.
pub(crate) fn hash_reader(reader: &mut impl Read, path: &Path) -> Result<(String, u64), Refusal> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let read = reader
            .read(&mut buffer)
            .map_err(|error| write_failed(path, &error))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        total += read as u64;
    }
    Ok((hex::encode(hasher.finalize()), total))
}

fn copy_hashing(
    source: &Path,
    out: &mut File,
    path: &Path,
    observer: &mut dyn WriteObserver,
) -> Result<(String, u64), WriteError> {
    let unreadable = |error: std::io::Error| {
        WriteError::Refused(Refusal::new(
            "read_failed",
            "unavailable",
            format!("{} cannot be read: {error}", shown(source)),
        ))
    };
    let mut input = File::open(source).map_err(unreadable)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        if observer.cancelled() {
            return Err(WriteError::Cancelled);
        }
        let read = input.read(&mut buffer).map_err(unreadable)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        out.write_all(&buffer[..read])
            .map_err(|error| write_failed(path, &error))?;
        total += read as u64;
    }
    Ok((hex::encode(hasher.finalize()), total))
}

/// The SHA-256 and size of a file, read once.
pub fn digest_file(path: &Path) -> Result<(String, u64), Refusal> {
    let mut file = File::open(path).map_err(|error| {
        Refusal::new(
            "read_failed",
            "unavailable",
            format!("{} cannot be read: {error}", shown(path)),
        )
    })?;
    hash_reader(&mut file, path)
}

/// Writes the files into the destination (see the module documentation).
pub fn write_tree(
    directory: &Path,
    rule: Destination,
    files: &[PlannedFile],
    observer: &mut dyn WriteObserver,
) -> Result<Vec<WrittenFile>, Refusal> {
    check_destination(directory, rule)?;
    for folder in crate::stale::sweep(&parent_of(directory), &destination_name(directory)) {
        observer.swept(&folder);
    }
    let staging = create_staging(directory)?;
    observer.staging(Some(&staging.0));
    let outcome = write_staged(&staging, directory, files, observer)
        .and_then(|written| claim_destination(&staging.0, directory).map(|()| written));
    let outcome = match outcome {
        Ok(written) => Ok(written),
        Err(refusal) => Err(remove_staging(&staging.0, refusal)),
    };
    observer.staging(None);
    outcome
}

/// The destination's own name, as its staging folders spell it.
fn destination_name(directory: &Path) -> String {
    directory
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle".to_owned())
}

/// The staging folder and its identity.
struct Staging(PathBuf, Metadata);

/// Creates the sibling staging folder `.NAME.partial-PID-N` (mode `0700`, never an existing one).
fn create_staging(directory: &Path) -> Result<Staging, Refusal> {
    let parent = parent_of(directory);
    let name = destination_name(directory);
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    let mut attempt = 0u32;
    loop {
        let path = parent.join(format!(".{name}.partial-{}-{attempt}", std::process::id()));
        match builder.create(&path) {
            Ok(()) => {
                let metadata = std::fs::symlink_metadata(&path)
                    .map_err(|error| write_failed(&path, &error))?;
                return Ok(Staging(path, metadata));
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 1000 => {
                attempt += 1;
            }
            Err(error) => return Err(write_failed(&path, &error)),
        }
    }
}

/// Writes and verifies every file inside the staging folder.
fn write_staged(
    staging: &Staging,
    directory: &Path,
    files: &[PlannedFile],
    observer: &mut dyn WriteObserver,
) -> Result<Vec<WrittenFile>, Refusal> {
    let mut tree = Tree {
        root: &staging.0,
        directories: BTreeMap::from([(String::new(), identity(&staging.1))]),
        files: Vec::new(),
    };
    let written_so_far = |tree: &Tree<'_>| -> Vec<String> {
        tree.files.iter().map(|(path, ..)| path.clone()).collect()
    };
    let cancelled = |tree: &Tree<'_>| {
        Refusal::cancelled(format!(
            "cancelled while writing the bundle {}: {} of {} files were written into a staging folder, which was removed; nothing was left",
            shown(directory),
            tree.files.len(),
            files.len()
        ))
        .with_data(json!({
            "directory": directory.display().to_string(),
            "written": written_so_far(tree),
            "removed": true,
        }))
    };
    for (index, file) in files.iter().enumerate() {
        if observer.cancelled() {
            return Err(cancelled(&tree));
        }
        match tree.write_file(file, observer) {
            Ok(()) => {}
            Err(WriteError::Cancelled) => return Err(cancelled(&tree)),
            Err(WriteError::Refused(refusal)) => {
                let data = json!({
                    "directory": directory.display().to_string(),
                    "written": written_so_far(&tree),
                    "removed": true,
                });
                return Err(match refusal.data {
                    None => refusal.with_data(data),
                    Some(_) => refusal,
                });
            }
        }
        observer.written(&file.path, index + 1, files.len());
    }
    if observer.cancelled() {
        return Err(cancelled(&tree));
    }
    tree.verify()?;
    Ok(tree
        .files
        .iter()
        .map(|(path, _, _, bytes)| WrittenFile {
            path: path.clone(),
            bytes: *bytes,
        })
        .collect())
}

/// Renames the staging folder onto the destination, never over anything but the empty directory
/// the caller gave.
fn claim_destination(staging: &Path, directory: &Path) -> Result<(), Refusal> {
    let occupied = |error: std::io::Error| {
        destination_refusal(
            format!(
                "{} appeared or changed while the bundle was written ({error}); a bundle never replaces a folder",
                shown(directory)
            ),
            directory,
        )
    };
    match std::fs::symlink_metadata(directory) {
        // An empty directory the caller gave: rename(2) replaces a directory only while it is
        // empty, and never a file or a symbolic link.
        Ok(metadata) if metadata.is_dir() => std::fs::rename(staging, directory).map_err(occupied),
        Ok(_) => Err(occupied(std::io::Error::from(
            std::io::ErrorKind::AlreadyExists,
        ))),
        Err(_) => rename_no_replace(staging, directory).map_err(occupied),
    }
}

/// `rename` that fails when the destination exists (`renameat2(RENAME_NOREPLACE)` on Linux).
fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let from_c = std::ffi::CString::new(from.as_os_str().as_bytes())?;
        let to_c = std::ffi::CString::new(to.as_os_str().as_bytes())?;
        // SAFETY: both paths are NUL-terminated strings that outlive the call.
        let result = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                from_c.as_ptr(),
                libc::AT_FDCWD,
                to_c.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if result == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        // A file system without RENAME_NOREPLACE: fall back to the existence check and rename.
        if !matches!(error.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
            return Err(error);
        }
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
    }
    std::fs::rename(from, to)
}

/// Removes a tree holding at most one descriptor at a time (listing a folder, then closing it
/// before going down): the fallback when `remove_dir_all`, which keeps one open per level, fails
/// because the process has run out of descriptors.
fn remove_tree_by_path(path: &Path) -> std::io::Result<()> {
    let entries: Vec<(PathBuf, bool)> = std::fs::read_dir(path)?
        .map(|entry| {
            let entry = entry?;
            let is_dir = entry.file_type()?.is_dir();
            Ok((entry.path(), is_dir))
        })
        .collect::<std::io::Result<_>>()?;
    for (entry, is_dir) in entries {
        if is_dir {
            remove_tree_by_path(&entry)?;
        } else {
            std::fs::remove_file(&entry)?;
        }
    }
    std::fs::remove_dir(path)
}

/// Removes the staging folder after a failure; the refusal says so, or that it could not be.
fn remove_staging(staging: &Path, refusal: Refusal) -> Refusal {
    let removed = std::fs::remove_dir_all(staging).or_else(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            Err(error)
        } else {
            remove_tree_by_path(staging)
        }
    });
    match removed {
        Ok(()) => refusal,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => refusal,
        Err(error) => {
            let message = format!(
                "{} (the staging folder {} could not be removed: {error})",
                refusal.message,
                shown(staging)
            );
            let data = refusal.data.clone().map(|mut data| {
                if let Some(object) = data.as_object_mut() {
                    object.insert("removed".to_owned(), json!(false));
                }
                data
            });
            Refusal {
                message,
                data,
                ..refusal
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<PlannedFile> {
        vec![
            PlannedFile {
                path: "README.md".into(),
                content: FileContent::Bytes(Arc::new(b"hello\n".to_vec())),
                executable: false,
            },
            PlannedFile {
                path: "envs/x/bin/tool".into(),
                content: FileContent::Bytes(Arc::new(vec![0, 1, 2])),
                executable: true,
            },
        ]
    }

    // contract: EXPORT-019, EXPORT-044
    #[test]
    fn writes_new_files_with_owner_only_modes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bundle");
        let written = write_tree(
            &target,
            Destination::AbsentOrEmpty,
            &files(),
            &mut Unobserved,
        )
        .unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(std::fs::read(target.join("README.md")).unwrap(), b"hello\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |path: &str| {
                std::fs::metadata(target.join(path))
                    .unwrap()
                    .permissions()
                    .mode()
                    & 0o777
            };
            assert_eq!(mode("README.md"), 0o600);
            assert_eq!(mode("envs/x/bin/tool"), 0o700);
        }
        // An existing empty directory is used; a second write into it is refused.
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        write_tree(
            &empty,
            Destination::AbsentOrEmpty,
            &files(),
            &mut Unobserved,
        )
        .unwrap();
        let refusal = write_tree(
            &empty,
            Destination::AbsentOrEmpty,
            &files(),
            &mut Unobserved,
        )
        .unwrap_err();
        assert_eq!(refusal.code, "invalid_request");
    }

    // contract: EXPORT-020, BUILD-031, BUILD-091
    #[test]
    fn occupied_or_odd_destinations_are_refused_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let occupied = dir.path().join("occupied");
        std::fs::create_dir(&occupied).unwrap();
        std::fs::write(occupied.join("keep.txt"), b"mine").unwrap();
        assert!(check_destination(&occupied, Destination::AbsentOrEmpty).is_err());
        assert!(
            write_tree(
                &occupied,
                Destination::AbsentOrEmpty,
                &files(),
                &mut Unobserved
            )
            .is_err()
        );
        assert_eq!(std::fs::read_dir(&occupied).unwrap().count(), 1);
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert!(check_destination(&empty, Destination::Absent).is_err());
        let orphan = dir.path().join("missing").join("bundle");
        assert!(check_destination(&orphan, Destination::AbsentOrEmpty).is_err());
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        assert!(check_destination(&file, Destination::AbsentOrEmpty).is_err());
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&empty, &link).unwrap();
            assert!(check_destination(&link, Destination::AbsentOrEmpty).is_err());
        }
    }

    struct Cancelling(usize);

    impl WriteObserver for Cancelling {
        fn written(&mut self, _: &str, _: usize, _: usize) {}
        fn cancelled(&mut self) -> bool {
            self.0 += 1;
            self.0 > 1
        }
    }

    /// The entries of a folder, by name.
    fn entries(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    // contract: BUILD-039, BUILD-041
    #[test]
    fn a_cancellation_names_what_was_written_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bundle");
        let refusal =
            write_tree(&target, Destination::Absent, &files(), &mut Cancelling(0)).unwrap_err();
        assert_eq!(refusal.code, "cancelled");
        let data = refusal.data.unwrap();
        assert_eq!(data["written"], json!(["README.md"]));
        assert_eq!(data["removed"], json!(true));
        assert!(!target.exists());
        assert!(entries(dir.path()).is_empty(), "no staging folder is left");
    }

    /// Writes into the staging folder the writer names, as someone else would.
    struct Intruder(Option<PathBuf>);

    impl WriteObserver for Intruder {
        fn written(&mut self, path: &str, _: usize, _: usize) {
            if let (Some(staging), "README.md") = (&self.0, path) {
                std::fs::write(staging.join("intruder"), b"x").unwrap();
            }
        }
        fn cancelled(&mut self) -> bool {
            false
        }
        fn staging(&mut self, folder: Option<&Path>) {
            if folder.is_some() {
                self.0 = folder.map(Path::to_path_buf);
            }
        }
    }

    // contract: EXPORT-040, EXPORT-041
    #[test]
    fn an_entry_the_writer_did_not_create_fails_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bundle");
        let refusal =
            write_tree(&target, Destination::Absent, &files(), &mut Intruder(None)).unwrap_err();
        assert_eq!(refusal.code, "artifact_changed");
        assert!(refusal.message.contains("intruder"), "{}", refusal.message);
        assert!(entries(dir.path()).is_empty(), "nothing is left");
    }

    /// Puts a directory of the same name in place of the writer's `a` after its first file.
    struct Swapper(Option<PathBuf>);

    impl WriteObserver for Swapper {
        fn written(&mut self, path: &str, _: usize, _: usize) {
            if let (Some(staging), "a/one") = (&self.0, path) {
                std::fs::rename(staging.join("a"), staging.join("moved")).unwrap();
                std::fs::create_dir(staging.join("a")).unwrap();
            }
        }
        fn cancelled(&mut self) -> bool {
            false
        }
        fn staging(&mut self, folder: Option<&Path>) {
            if folder.is_some() {
                self.0 = folder.map(Path::to_path_buf);
            }
        }
    }

    // contract: EXPORT-039
    #[test]
    fn a_directory_replaced_between_creates_fails_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bundle");
        let plan: Vec<PlannedFile> = ["a/one", "a/two"]
            .into_iter()
            .map(|path| PlannedFile {
                path: path.into(),
                content: FileContent::Bytes(Arc::new(path.as_bytes().to_vec())),
                executable: false,
            })
            .collect();
        let refusal =
            write_tree(&target, Destination::Absent, &plan, &mut Swapper(None)).unwrap_err();
        assert_eq!(refusal.code, "artifact_changed");
        assert!(
            refusal.message.contains("no longer the directory"),
            "{}",
            refusal.message
        );
        assert_eq!(refusal.data.unwrap()["written"], json!(["a/one"]));
        assert!(entries(dir.path()).is_empty(), "nothing is left");
    }

    #[test]
    fn the_bundle_appears_only_when_whole_and_never_over_a_new_entry() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bundle");
        /// Creates the destination while the bundle is written elsewhere.
        struct Squatter<'a>(&'a Path);
        impl WriteObserver for Squatter<'_> {
            fn written(&mut self, path: &str, _: usize, _: usize) {
                assert!(!self.0.exists(), "{path}: the destination appeared early");
                if path == "envs/x/bin/tool" {
                    std::fs::create_dir(self.0).unwrap();
                    std::fs::write(self.0.join("mine"), b"x").unwrap();
                }
            }
            fn cancelled(&mut self) -> bool {
                false
            }
        }
        let refusal = write_tree(
            &target,
            Destination::Absent,
            &files(),
            &mut Squatter(&target),
        )
        .unwrap_err();
        assert_eq!(refusal.code, "invalid_request", "{}", refusal.message);
        assert_eq!(
            entries(&target),
            ["mine"],
            "the squatter's folder is untouched"
        );
        assert_eq!(entries(dir.path()), ["bundle"], "no staging folder is left");
    }

    #[test]
    fn a_copied_file_must_still_be_what_was_planned() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("binary");
        std::fs::write(&source, b"v1").unwrap();
        let (sha256, bytes) = digest_file(&source).unwrap();
        let plan = vec![PlannedFile {
            path: "bin/rea".into(),
            content: FileContent::Copy {
                source: source.clone(),
                bytes,
                sha256,
            },
            executable: true,
        }];
        let ok = dir.path().join("ok");
        write_tree(&ok, Destination::Absent, &plan, &mut Unobserved).unwrap();
        assert_eq!(std::fs::read(ok.join("bin/rea")).unwrap(), b"v1");
        std::fs::write(&source, b"v2").unwrap();
        let refusal = write_tree(
            &dir.path().join("changed"),
            Destination::Absent,
            &plan,
            &mut Unobserved,
        )
        .unwrap_err();
        assert_eq!(refusal.code, "artifact_changed");
    }
}
