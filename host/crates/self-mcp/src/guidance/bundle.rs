//! The guidance bundle: where it comes from, its admission limits, and its section tree.
//!
//! A bundle is a `bundle.json` manifest (`{"name", "version", "files": [...]}`) and the markdown
//! files it lists, in that order. The bundle `rea` ships is embedded in the binary; setting
//! `REA_GUIDANCE_DIR` installs another one from a folder (tests use fixture bundles this way).
//!
//! Admission happens before any section text is materialized: at most [`MAX_FILE_BYTES`] per
//! file, [`MAX_BUNDLE_BYTES`] per bundle (manifest included), [`MAX_SECTIONS`] sections and
//! [`MAX_EXPANDED_UTF16`] expanded UTF-16 code units (the sum of every section's complete length,
//! so nesting is charged once per level). Anything unreadable or over a limit makes the whole
//! bundle unavailable (`bundle_unavailable`): there is no partial index.
//!
//! Sections are ATX headings (`#` to `######`, outside fenced code). A section runs from its
//! heading to the next heading of the same or a higher level; its own text is its heading and the
//! body before its first subsection. Text before a file's first heading belongs to no section.
//! Setext headings (underlined) are not sections.

use std::io::Read;
use std::path::{Path, PathBuf};

use rea_evidence::Refusal;
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::text::utf16_len;

/// At most this many bytes per bundle file.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// At most this many bytes per bundle (manifest and files).
pub const MAX_BUNDLE_BYTES: u64 = 4 * 1024 * 1024;
/// At most this many sections per bundle.
pub const MAX_SECTIONS: usize = 4096;
/// At most this many expanded UTF-16 code units (the sum of every section's complete length).
pub const MAX_EXPANDED_UTF16: u64 = 25_165_824;
/// The environment variable naming an installed bundle folder.
pub const GUIDANCE_DIR_ENV: &str = "REA_GUIDANCE_DIR";
/// The manifest file of a bundle folder.
pub const MANIFEST_FILE: &str = "bundle.json";

/// Admission limits. [`Limits::SPEC`] are the limits the spec states; smaller limits exist so
/// tests can reach every refusal cheaply.
///
/// Note: a UTF-16 code unit never takes fewer than one UTF-8 byte and headings nest at most six
/// deep, so under the spec's limits the expanded size stays within 6 × 4 MiB = 25,165,824 units;
/// the check still runs, before any section text is materialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes per file.
    pub max_file_bytes: u64,
    /// Bytes per bundle, manifest included.
    pub max_bundle_bytes: u64,
    /// Sections per bundle.
    pub max_sections: usize,
    /// Expanded UTF-16 code units per bundle.
    pub max_expanded_utf16: u64,
}

impl Limits {
    /// The spec's limits.
    pub const SPEC: Self = Self {
        max_file_bytes: MAX_FILE_BYTES,
        max_bundle_bytes: MAX_BUNDLE_BYTES,
        max_sections: MAX_SECTIONS,
        max_expanded_utf16: MAX_EXPANDED_UTF16,
    };
}

const EMBEDDED_MANIFEST: &str = include_str!("../../guidance/bundle.json");
const EMBEDDED_FILES: &[(&str, &str)] = &[
    ("recording.md", include_str!("../../guidance/recording.md")),
    ("coverage.md", include_str!("../../guidance/coverage.md")),
    ("fidelity.md", include_str!("../../guidance/fidelity.md")),
    ("agents.md", include_str!("../../guidance/agents.md")),
];

/// Where the guidance bundle is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BundleSource {
    /// The bundle embedded in the binary.
    Embedded,
    /// A bundle folder holding `bundle.json` and the files it lists.
    Directory(PathBuf),
}

impl BundleSource {
    /// `REA_GUIDANCE_DIR` when set and not blank, else the embedded bundle.
    pub fn from_env() -> Self {
        match std::env::var_os(GUIDANCE_DIR_ENV) {
            Some(dir) if !dir.is_empty() => Self::Directory(PathBuf::from(dir)),
            _ => Self::Embedded,
        }
    }

    /// Reads and admits the bundle. Every call reads it again: nothing is cached, so a changed
    /// bundle is seen by the next search or read.
    pub fn load(&self) -> Result<GuidanceBundle, Refusal> {
        self.load_with(&Limits::SPEC)
    }

    /// Reads and admits the bundle under other limits.
    pub fn load_with(&self, limits: &Limits) -> Result<GuidanceBundle, Refusal> {
        let mut budget = Budget {
            used: 0,
            limits: *limits,
        };
        let (manifest_bytes, files) = match self {
            Self::Embedded => {
                let manifest = EMBEDDED_MANIFEST.as_bytes().to_vec();
                budget.charge(MANIFEST_FILE, manifest.len() as u64)?;
                let parsed = parse_manifest(&manifest)?;
                let mut files = Vec::new();
                for path in &parsed.files {
                    let text = EMBEDDED_FILES
                        .iter()
                        .find(|(name, _)| name == path)
                        .map(|(_, text)| *text)
                        .ok_or_else(|| {
                            unavailable("missing_file", format!("`{path}` is not in the bundle"))
                        })?;
                    budget.charge(path, text.len() as u64)?;
                    files.push(BundleFile {
                        path: path.clone(),
                        text: text.to_owned(),
                    });
                }
                (manifest, files)
            }
            Self::Directory(dir) => {
                let manifest = read_bounded(&dir.join(MANIFEST_FILE), MANIFEST_FILE, &mut budget)?;
                let parsed = parse_manifest(&manifest)?;
                let mut files = Vec::new();
                for path in &parsed.files {
                    let bytes = read_bounded(&dir.join(path), path, &mut budget)?;
                    let text = String::from_utf8(bytes).map_err(|_| {
                        unavailable("not_utf8", format!("`{path}` is not UTF-8 text"))
                    })?;
                    files.push(BundleFile {
                        path: path.clone(),
                        text,
                    });
                }
                (manifest, files)
            }
        };
        let manifest = parse_manifest(&manifest_bytes)?;
        GuidanceBundle::assemble(manifest, &manifest_bytes, files, limits)
    }
}

/// One file of a bundle.
#[derive(Debug, Clone)]
pub struct BundleFile {
    /// Its path in the bundle, as the manifest lists it.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// One section of a bundle file.
#[derive(Debug, Clone)]
pub struct Section {
    /// Index of its file in [`GuidanceBundle::files`].
    pub file: usize,
    /// Heading level, 1 to 6.
    pub level: u8,
    /// Heading text, without the `#` marks.
    pub heading: String,
    /// Byte offset of the heading line in the file.
    pub start: usize,
    /// Byte offset where its own text ends (its first subsection, or its end).
    pub own_end: usize,
    /// Byte offset where the complete section ends.
    pub end: usize,
    /// Its parent section, if any.
    pub parent: Option<usize>,
    /// Its direct subsections, in document order.
    pub children: Vec<usize>,
    /// The fixed-size hash of the complete section (file, position and text).
    pub hash: [u8; 16],
    /// UTF-16 code units of the complete section: what a read returns.
    pub content_length: usize,
}

/// An admitted guidance bundle.
#[derive(Debug, Clone)]
pub struct GuidanceBundle {
    /// The bundle name from its manifest.
    pub name: String,
    /// The bundle version from its manifest.
    pub version: u64,
    /// SHA-256 of the manifest and every file, in manifest order.
    pub digest: [u8; 32],
    /// The files, in manifest order.
    pub files: Vec<BundleFile>,
    /// Every section, in document order (file order, then position).
    pub sections: Vec<Section>,
}

impl GuidanceBundle {
    /// The fixed-size part of the digest a locator carries.
    pub fn locator_hash(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out.copy_from_slice(&self.digest[..16]);
        out
    }

    /// The bundle digest as `sha256:<hex>`.
    pub fn digest_text(&self) -> String {
        format!("sha256:{}", hex::encode(self.digest))
    }

    /// The identity members every answer carries: `{name, version, digest}`.
    pub fn identity(&self) -> serde_json::Value {
        json!({"name": self.name, "version": self.version, "digest": self.digest_text()})
    }

    /// A section's own text: heading and body before its first subsection.
    pub fn own_text(&self, section: &Section) -> &str {
        &self.files[section.file].text[section.start..section.own_end]
    }

    /// A section's complete text, subsections included: what a read returns.
    pub fn full_text(&self, section: &Section) -> &str {
        &self.files[section.file].text[section.start..section.end]
    }

    /// The headings from the file's top section down to this one.
    pub fn heading_path(&self, index: usize) -> Vec<String> {
        let mut path = Vec::new();
        let mut current = Some(index);
        while let Some(at) = current {
            path.push(self.sections[at].heading.clone());
            current = self.sections[at].parent;
        }
        path.reverse();
        path
    }

    /// Every section below this one (all depths), in document order.
    pub fn descendants(&self, index: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.sections[index]
            .children
            .iter()
            .rev()
            .copied()
            .collect();
        while let Some(at) = stack.pop() {
            out.push(at);
            stack.extend(self.sections[at].children.iter().rev().copied());
        }
        out
    }

    /// The section whose hash is this one.
    pub fn find(&self, hash: &[u8; 16]) -> Option<usize> {
        self.sections
            .iter()
            .position(|section| &section.hash == hash)
    }

    fn assemble(
        manifest: Manifest,
        manifest_bytes: &[u8],
        files: Vec<BundleFile>,
        limits: &Limits,
    ) -> Result<Self, Refusal> {
        // Admission: headings and sizes first, from offsets only.
        let mut outlines = Vec::with_capacity(files.len());
        let mut section_count = 0usize;
        let mut expanded: u64 = 0;
        for file in &files {
            let headings = scan_headings(&file.text);
            section_count += headings.len();
            if section_count > limits.max_sections {
                let limit = limits.max_sections;
                return Err(unavailable(
                    "too_many_sections",
                    format!("the bundle has more than {limit} sections"),
                )
                .with_data(json!({"reason": "too_many_sections", "limit": limit})));
            }
            let ranges = section_ranges(&headings, file.text.len());
            let units = utf16_offsets(&file.text, &headings);
            for (index, range) in ranges.iter().enumerate() {
                let end_units = units[range.end_heading.unwrap_or(headings.len())];
                expanded += (end_units - units[index]) as u64;
            }
            if expanded > limits.max_expanded_utf16 {
                let limit = limits.max_expanded_utf16;
                return Err(unavailable(
                    "expanded_too_large",
                    format!("the bundle's sections expand to more than {limit} UTF-16 code units"),
                )
                .with_data(json!({"reason": "expanded_too_large", "limit": limit})));
            }
            outlines.push((headings, ranges));
        }

        let digest = bundle_digest(manifest_bytes, &files);
        let mut sections = Vec::with_capacity(section_count);
        for (file_index, (headings, ranges)) in outlines.into_iter().enumerate() {
            let text = &files[file_index].text;
            let base = sections.len();
            for (ordinal, (heading, range)) in headings.iter().zip(&ranges).enumerate() {
                let end = range.end;
                let own_end = if ordinal + 1 < headings.len() && headings[ordinal + 1].start < end {
                    headings[ordinal + 1].start
                } else {
                    end
                };
                let full = &text[heading.start..end];
                sections.push(Section {
                    file: file_index,
                    level: heading.level,
                    heading: heading.text.clone(),
                    start: heading.start,
                    own_end,
                    end,
                    parent: range.parent.map(|parent| base + parent),
                    children: Vec::new(),
                    hash: section_hash(&files[file_index].path, ordinal, full),
                    content_length: utf16_len(full),
                });
            }
        }
        for index in 0..sections.len() {
            if let Some(parent) = sections[index].parent {
                sections[parent].children.push(index);
            }
        }
        Ok(Self {
            name: manifest.name,
            version: manifest.version,
            digest,
            files,
            sections,
        })
    }
}

/// The structured refusal for an unreadable or inadmissible bundle.
pub fn unavailable(reason: &str, message: impl Into<String>) -> Refusal {
    Refusal::new(
        "bundle_unavailable",
        "unavailable",
        format!(
            "the guidance bundle is unavailable: {}; no guidance can be searched or read",
            message.into()
        ),
    )
    .with_data(json!({"reason": reason}))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    name: String,
    version: u64,
    files: Vec<String>,
}

fn parse_manifest(bytes: &[u8]) -> Result<Manifest, Refusal> {
    let manifest: Manifest = serde_json::from_slice(bytes).map_err(|error| {
        unavailable(
            "invalid_manifest",
            format!("`{MANIFEST_FILE}` is not a valid bundle manifest ({error})"),
        )
    })?;
    if manifest.name.trim().is_empty() || manifest.version == 0 {
        return Err(unavailable(
            "invalid_manifest",
            format!("`{MANIFEST_FILE}` needs a name and a version of at least 1"),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for path in &manifest.files {
        let portable = !path.is_empty()
            && path.ends_with(".md")
            && !path.starts_with('/')
            && !path.contains('\\')
            && path
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..");
        if !portable {
            return Err(unavailable(
                "invalid_manifest",
                format!("`{path}` is not a relative `.md` path inside the bundle"),
            ));
        }
        if !seen.insert(path.as_str()) {
            return Err(unavailable(
                "invalid_manifest",
                format!("`{path}` is listed twice"),
            ));
        }
    }
    Ok(manifest)
}

#[derive(Debug)]
struct Budget {
    used: u64,
    limits: Limits,
}

impl Budget {
    fn check(&self, path: &str, bytes: u64) -> Result<(), Refusal> {
        let file_limit = self.limits.max_file_bytes;
        if bytes > file_limit {
            return Err(unavailable(
                "file_too_large",
                format!("`{path}` is larger than {file_limit} bytes"),
            )
            .with_data(json!({"reason": "file_too_large", "path": path, "limit": file_limit})));
        }
        let bundle_limit = self.limits.max_bundle_bytes;
        if self.used + bytes > bundle_limit {
            return Err(unavailable(
                "bundle_too_large",
                format!("the bundle is larger than {bundle_limit} bytes"),
            )
            .with_data(json!({"reason": "bundle_too_large", "limit": bundle_limit})));
        }
        Ok(())
    }

    fn charge(&mut self, path: &str, bytes: u64) -> Result<(), Refusal> {
        self.check(path, bytes)?;
        self.used += bytes;
        Ok(())
    }
}

/// Reads a file within the per-file and bundle budgets, never reading more than one byte past
/// the file limit even when the file grows while it is read.
fn read_bounded(path: &Path, name: &str, budget: &mut Budget) -> Result<Vec<u8>, Refusal> {
    let unreadable = |error: std::io::Error| {
        unavailable("unreadable", format!("`{name}` cannot be read ({error})"))
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let metadata = file.metadata().map_err(unreadable)?;
    if !metadata.is_file() {
        return Err(unavailable(
            "unreadable",
            format!("`{name}` is not a regular file"),
        ));
    }
    budget.check(name, metadata.len())?;
    let mut bytes = Vec::new();
    file.take(budget.limits.max_file_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    budget.charge(name, bytes.len() as u64)?;
    Ok(bytes)
}

#[derive(Debug, Clone)]
struct Heading {
    start: usize,
    level: u8,
    text: String,
}

#[derive(Debug, Clone)]
struct SectionRange {
    end: usize,
    end_heading: Option<usize>,
    parent: Option<usize>,
}

/// ATX headings outside fenced code blocks, with their byte offsets.
fn scan_headings(text: &str) -> Vec<Heading> {
    let mut headings = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let indent = content.len() - content.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        let trimmed = &content[indent..];
        if let Some((marker, length)) = fence_marker(trimmed) {
            match fence {
                None => fence = Some((marker, length)),
                Some((open, open_length))
                    if open == marker
                        && length >= open_length
                        && trimmed.trim_start_matches(marker).trim().is_empty() =>
                {
                    fence = None;
                }
                Some(_) => {}
            }
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let hashes = trimmed.len() - trimmed.trim_start_matches('#').len();
        if !(1..=6).contains(&hashes) {
            continue;
        }
        let rest = &trimmed[hashes..];
        if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
            continue;
        }
        headings.push(Heading {
            start,
            level: hashes as u8,
            text: heading_text(rest),
        });
    }
    headings
}

fn fence_marker(line: &str) -> Option<(char, usize)> {
    let marker = line.chars().next()?;
    if marker != '`' && marker != '~' {
        return None;
    }
    let length = line.len() - line.trim_start_matches(marker).len();
    if length < 3 {
        return None;
    }
    if marker == '`' && line[length..].contains('`') {
        return None;
    }
    Some((marker, length))
}

/// The heading text: trimmed, with an optional closing `#` sequence removed.
fn heading_text(rest: &str) -> String {
    let trimmed = rest.trim();
    let without_closing = trimmed.trim_end_matches('#');
    if without_closing.len() == trimmed.len() {
        return trimmed.to_owned();
    }
    if without_closing.is_empty() {
        return String::new();
    }
    if without_closing.ends_with(' ') || without_closing.ends_with('\t') {
        without_closing.trim_end().to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// For each heading: where its section ends and which heading is its parent.
fn section_ranges(headings: &[Heading], file_len: usize) -> Vec<SectionRange> {
    let mut ranges = Vec::with_capacity(headings.len());
    let mut stack: Vec<usize> = Vec::new();
    for (index, heading) in headings.iter().enumerate() {
        while let Some(&top) = stack.last() {
            if headings[top].level >= heading.level {
                stack.pop();
            } else {
                break;
            }
        }
        ranges.push(SectionRange {
            end: file_len,
            end_heading: None,
            parent: stack.last().copied(),
        });
        stack.push(index);
    }
    for index in 0..headings.len() {
        if let Some(next) =
            (index + 1..headings.len()).find(|&next| headings[next].level <= headings[index].level)
        {
            ranges[index].end = headings[next].start;
            ranges[index].end_heading = Some(next);
        }
    }
    ranges
}

/// UTF-16 offsets of every heading start, then of the file end (one pass over the text).
fn utf16_offsets(text: &str, headings: &[Heading]) -> Vec<usize> {
    let mut out = Vec::with_capacity(headings.len() + 1);
    let mut units = 0;
    let mut position = 0;
    for heading in headings {
        units += utf16_len(&text[position..heading.start]);
        position = heading.start;
        out.push(units);
    }
    units += utf16_len(&text[position..]);
    out.push(units);
    out
}

fn section_hash(path: &str, ordinal: usize, full: &str) -> [u8; 16] {
    let mut hasher = Sha256::new();
    hasher.update(b"rea-guidance-section\0");
    hasher.update(path.as_bytes());
    hasher.update(b"\0");
    hasher.update(ordinal.to_string().as_bytes());
    hasher.update(b"\0");
    hasher.update(full.as_bytes());
    let digest = hasher.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

fn bundle_digest(manifest: &[u8], files: &[BundleFile]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"rea-guidance-bundle\0");
    hasher.update((manifest.len() as u64).to_be_bytes());
    hasher.update(manifest);
    for file in files {
        hasher.update((file.path.len() as u64).to_be_bytes());
        hasher.update(file.path.as_bytes());
        hasher.update((file.text.len() as u64).to_be_bytes());
        hasher.update(file.text.as_bytes());
    }
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle_of(text: &str) -> GuidanceBundle {
        let manifest = br#"{"name":"t","version":1,"files":["a.md"]}"#;
        GuidanceBundle::assemble(
            parse_manifest(manifest).expect("manifest"),
            manifest,
            vec![BundleFile {
                path: "a.md".into(),
                text: text.into(),
            }],
            &Limits::SPEC,
        )
        .expect("bundle")
    }

    #[test]
    fn sections_nest_by_level_and_own_text_stops_at_the_first_subsection() {
        let bundle = bundle_of("intro\n# A\nalpha\n## B\nbeta\n### C\ngamma\n## D\ndelta\n# E\n");
        let headings: Vec<&str> = bundle.sections.iter().map(|s| s.heading.as_str()).collect();
        assert_eq!(headings, ["A", "B", "C", "D", "E"]);
        assert_eq!(bundle.own_text(&bundle.sections[0]), "# A\nalpha\n");
        assert_eq!(
            bundle.full_text(&bundle.sections[1]),
            "## B\nbeta\n### C\ngamma\n"
        );
        assert_eq!(bundle.sections[0].children, [1, 3]);
        assert_eq!(bundle.sections[2].parent, Some(1));
        assert_eq!(bundle.descendants(0), [1, 2, 3]);
        assert_eq!(bundle.heading_path(2), ["A", "B", "C"]);
    }

    #[test]
    fn headings_inside_fences_and_without_a_space_are_not_sections() {
        let bundle =
            bundle_of("# A\n```sh\n# not a heading\n```\n#nope\n~~~\n## hidden\n~~~\n## B ##\n");
        let headings: Vec<&str> = bundle.sections.iter().map(|s| s.heading.as_str()).collect();
        assert_eq!(headings, ["A", "B"]);
    }

    #[test]
    fn content_length_counts_utf16_code_units_of_the_complete_section() {
        let bundle = bundle_of("# A 😀\nx\n## B\ny\n");
        assert_eq!(
            bundle.sections[0].content_length,
            utf16_len("# A 😀\nx\n## B\ny\n")
        );
        assert_eq!(bundle.sections[0].content_length, 16);
    }

    #[test]
    fn the_embedded_bundle_is_admitted_and_has_sections() {
        let bundle = BundleSource::Embedded.load().expect("embedded bundle");
        assert_eq!(bundle.name, "rea-guidance");
        assert!(bundle.sections.len() > 20);
        let hashes: std::collections::BTreeSet<_> =
            bundle.sections.iter().map(|s| s.hash).collect();
        assert_eq!(
            hashes.len(),
            bundle.sections.len(),
            "section hashes are unique"
        );
    }
}
