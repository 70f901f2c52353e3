//! Capture Evidence written again from its typed records, so a build never holds its bytes.
//!
//! `environment-build` inspects a HAR into capture Evidence sealed over the extractor's canonical
//! record text ([`crate::capture::SealedCapture`]). Its derivation holds the records typed from
//! that text anyway; holding the Evidence's bytes beside them until the bundle is written would
//! hold the capture twice. So the build keeps the Evidence without its records
//! ([`crate::capture::SealedCapture::into_header`]), the typed records, and only the length and
//! SHA-256 of the bytes `--format json` writes ([`WrittenDigest`]); `evidence.json` is serialized
//! from those as it is written ([`CaptureRewrite`]).
//!
//! Two checks keep the file the inspected one: every record is typed only where its serialization
//! gives back its text byte for byte ([`gives_back`]; otherwise the build keeps the bytes), and the
//! written file must have the sealed length and SHA-256, or the write fails with
//! [`RewriteError::Changed`], never leaving a different file.

use std::cell::RefCell;
use std::io::Write;
use std::sync::Arc;

use rea_plugin_api::contracts::capture::CaptureRecord;

use crate::envelope::{Evidence, ItemWriter, RawArray, RawItems, write_document};
use crate::file::HashingWriter;

/// The length and SHA-256 of a capture Evidence file (its canonical JSON and a newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenDigest {
    /// The file's length in bytes.
    pub bytes: u64,
    /// Its SHA-256, lower-case hex.
    pub sha256: String,
}

impl WrittenDigest {
    /// The digest of what `write` writes.
    pub fn of(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<Self> {
        let mut hashing = HashingWriter::new(std::io::sink());
        write(&mut hashing)?;
        let (sha256, bytes) = hashing.finish();
        Ok(Self { bytes, sha256 })
    }
}

/// Why a capture Evidence written from its records is not the inspected file.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    /// Writing failed.
    #[error("the capture Evidence could not be written: {0}")]
    Io(#[from] std::io::Error),
    /// A record did not serialize.
    #[error("a capture record did not serialize: {0}")]
    Record(String),
    /// The bytes written are not the ones sealed at inspection.
    #[error(
        "the capture Evidence written from its records ({written_bytes} bytes, SHA-256 {written_sha256}) is not the one inspected ({expected_bytes} bytes, SHA-256 {expected_sha256})"
    )]
    Changed {
        /// The sealed length.
        expected_bytes: u64,
        /// The sealed SHA-256.
        expected_sha256: String,
        /// The written length.
        written_bytes: u64,
        /// The written SHA-256.
        written_sha256: String,
    },
}

/// A capture Evidence file to write from the Evidence without its records, the records, and the
/// digest of the bytes sealed at inspection.
#[derive(Debug)]
pub struct CaptureRewrite {
    header: Evidence,
    records: Arc<Vec<CaptureRecord>>,
    digest: WrittenDigest,
}

impl PartialEq for CaptureRewrite {
    /// The digest names the bytes: equal digests, equal files.
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}

impl Eq for CaptureRewrite {}

/// The buffer a rewritten capture Evidence is written through (records come in small pieces).
const WRITE_BUFFER_BYTES: usize = 64 * 1024;

impl CaptureRewrite {
    /// The file of `header` (a capture Evidence without its records, as
    /// [`crate::capture::SealedCapture::into_header`] gives it) holding `records`, which must be
    /// written as the file `digest` names.
    pub fn new(header: Evidence, records: Arc<Vec<CaptureRecord>>, digest: WrittenDigest) -> Self {
        Self {
            header,
            records,
            digest,
        }
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.digest.bytes
    }

    /// Whether the file is empty (never: it is a JSON object).
    pub fn is_empty(&self) -> bool {
        self.digest.bytes == 0
    }

    /// The sealed digest.
    pub fn digest(&self) -> &WrittenDigest {
        &self.digest
    }

    /// Writes the file to `out`: the canonical serialization and a newline. Fails when what was
    /// written is not the file the digest names (`out` then holds a file to discard).
    pub fn write_to(&self, out: &mut dyn Write) -> Result<(), RewriteError> {
        let hashing = HashingWriter::new(out);
        let mut buffered = std::io::BufWriter::with_capacity(WRITE_BUFFER_BYTES, hashing);
        write_with_records(&self.header, &self.records, &mut buffered)?;
        buffered.write_all(b"\n")?;
        let hashing = buffered
            .into_inner()
            .map_err(|error| RewriteError::Io(error.into_error()))?;
        let (written_sha256, written_bytes) = hashing.finish();
        if written_bytes != self.digest.bytes || written_sha256 != self.digest.sha256 {
            return Err(RewriteError::Changed {
                expected_bytes: self.digest.bytes,
                expected_sha256: self.digest.sha256.clone(),
                written_bytes,
                written_sha256,
            });
        }
        Ok(())
    }
}

/// Streams the canonical serialization of `header` with `records` as its `records` member.
pub fn write_with_records(
    header: &Evidence,
    records: &[CaptureRecord],
    out: &mut dyn Write,
) -> Result<(), RewriteError> {
    let items = RecordText {
        records,
        buffer: RefCell::new(Vec::new()),
        failure: RefCell::new(None),
    };
    let raw = RawArray {
        key: "records",
        items: RawItems::Written(records.len(), &items),
    };
    let mut failure = None;
    write_document(header.body(), Some(raw), Some(header.id()), &mut |chunk| {
        if failure.is_none()
            && let Err(error) = out.write_all(chunk)
        {
            failure = Some(error);
        }
    });
    if let Some(reason) = items.failure.into_inner() {
        return Err(RewriteError::Record(reason));
    }
    failure.map_or(Ok(()), |error| Err(RewriteError::Io(error)))
}

/// Records serialized one at a time as the extractor serializes them (`serde_json`), through one
/// buffer reused from record to record.
struct RecordText<'a> {
    records: &'a [CaptureRecord],
    buffer: RefCell<Vec<u8>>,
    failure: RefCell<Option<String>>,
}

impl ItemWriter for RecordText<'_> {
    fn write_item(&self, index: usize, flush: &mut dyn FnMut(&[u8])) {
        let mut buffer = self.buffer.borrow_mut();
        buffer.clear();
        if let Err(error) = serde_json::to_writer(&mut *buffer, &self.records[index]) {
            self.failure.borrow_mut().get_or_insert(error.to_string());
        }
        flush(&buffer);
    }
}

/// Whether `record` serializes (as [`CaptureRecord`]s are written again) to exactly `text`;
/// compared piece by piece as it is serialized, nothing buffered.
pub fn gives_back(record: &CaptureRecord, text: &[u8]) -> bool {
    let mut same = SameText { rest: text };
    serde_json::to_writer(&mut same, record).is_ok() && same.rest.is_empty()
}

/// A writer that accepts only the bytes of a text, in order.
struct SameText<'a> {
    rest: &'a [u8],
}

impl Write for SameText<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self.rest.strip_prefix(bytes) {
            Some(rest) => {
                self.rest = rest;
                Ok(bytes.len())
            }
            None => Err(std::io::Error::other("not the recorded text")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
