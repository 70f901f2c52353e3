//! The pipeline a bundle carries: `pipeline.toml` and every external plugin library it loads, so
//! the bundle's server runs the stages the bundle was built with.
//!
//! Each `[[plugins]]` library is copied into `plugins/` under its file name (a second library of
//! the same file name gets an index prefix, `2-libx.so`) and its `path` in the bundle's
//! `pipeline.toml` is rewritten to that relative path (library paths are relative to the pipeline
//! file's folder). Everything else in the file, comments and layout included, is kept. A library
//! whose bytes do not match its `sha256` pin is refused (`artifact_changed`): the bundle would not
//! load it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rea_evidence::{Refusal, sha256_hex};
use toml_edit::{DocumentMut, Item, Value};

/// The folder (inside the env folder) the plugin libraries go to.
pub const PLUGINS_FOLDER: &str = "plugins";

/// A plugin library the pipeline loads, as the pipeline resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineLibrary {
    /// Where it was loaded from.
    pub path: PathBuf,
    /// Its pinned SHA-256, if any.
    pub sha256: Option<String>,
}

/// The pipeline as the bundle holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundlePipeline {
    /// `pipeline.toml`.
    pub text: Vec<u8>,
    /// The libraries: path inside the env folder (`plugins/libx.so`) and bytes, in file order.
    pub plugins: Vec<(String, Vec<u8>)>,
}

/// The largest plugin library copied (256 MiB).
pub const MAX_LIBRARY_BYTES: u64 = 256 * 1024 * 1024;

impl BundlePipeline {
    /// The pipeline file `text` whose `[[plugins]]` entries resolved, in order, to `libraries`;
    /// reads each library.
    pub fn new(text: &str, libraries: &[PipelineLibrary]) -> Result<Self, Refusal> {
        let mut document: DocumentMut = text.parse().map_err(|error| {
            Refusal::configuration_invalid(format!("the pipeline file is not TOML: {error}"))
        })?;
        let mut taken = BTreeSet::new();
        let mut plugins = Vec::with_capacity(libraries.len());
        for (index, library) in libraries.iter().enumerate() {
            let file = library
                .path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("plugin-{}", index + 1));
            let mut relative = format!("{PLUGINS_FOLDER}/{file}");
            if !taken.insert(relative.clone()) {
                relative = format!("{PLUGINS_FOLDER}/{}-{file}", index + 1);
                taken.insert(relative.clone());
            }
            let bytes = read_library(&library.path)?;
            if let Some(pin) = &library.sha256 {
                let actual = sha256_hex(&bytes);
                if !actual.eq_ignore_ascii_case(pin) {
                    return Err(Refusal::new(
                        "artifact_changed",
                        "integrity_mismatch",
                        format!(
                            "the plugin library {} has SHA-256 {actual}, not the pinned {pin}: it changed after the pipeline loaded it",
                            library.path.display()
                        ),
                    )
                    .retryable(true));
                }
            }
            plugins.push((relative, bytes));
        }
        rewrite_paths(&mut document, &plugins)?;
        Ok(Self {
            text: document.to_string().into_bytes(),
            plugins,
        })
    }
}

fn read_library(path: &Path) -> Result<Vec<u8>, Refusal> {
    rea_evidence::read_bounded(path, MAX_LIBRARY_BYTES).map(|file| file.bytes)
}

/// Sets the `path` of the n-th `[[plugins]]` entry to the n-th bundle path.
fn rewrite_paths(document: &mut DocumentMut, plugins: &[(String, Vec<u8>)]) -> Result<(), Refusal> {
    let mismatch = |found: usize| {
        Refusal::internal(format!(
            "the pipeline file lists {found} plugin libraries but {} were loaded",
            plugins.len()
        ))
    };
    let Some(item) = document.get_mut("plugins") else {
        return if plugins.is_empty() {
            Ok(())
        } else {
            Err(mismatch(0))
        };
    };
    match item {
        Item::ArrayOfTables(tables) => {
            if tables.len() != plugins.len() {
                return Err(mismatch(tables.len()));
            }
            for (table, (relative, _)) in tables.iter_mut().zip(plugins) {
                table["path"] = toml_edit::value(relative.as_str());
            }
        }
        Item::Value(Value::Array(array)) => {
            if array.len() != plugins.len() {
                return Err(mismatch(array.len()));
            }
            for (entry, (relative, _)) in array.iter_mut().zip(plugins) {
                let Value::InlineTable(table) = entry else {
                    return Err(Refusal::internal(
                        "a `plugins` entry of the pipeline file is not a table",
                    ));
                };
                table.insert("path", Value::from(relative.as_str()));
            }
        }
        _ => return Err(mismatch(0)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_paths_are_rewritten_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let one = dir.path().join("a").join("libx.so");
        let two = dir.path().join("b").join("libx.so");
        std::fs::create_dir_all(one.parent().unwrap()).unwrap();
        std::fs::create_dir_all(two.parent().unwrap()).unwrap();
        std::fs::write(&one, b"one").unwrap();
        std::fs::write(&two, b"two").unwrap();
        let text = "# my pipeline\n[[plugins]]\npath = \"a/libx.so\" # first\n\n[[plugins]]\npath = \"b/libx.so\"\nsha256 = \"3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3\"\n\n[capture.extractors]\nhar = \"har\"\n";
        let libraries = [
            PipelineLibrary {
                path: one,
                sha256: None,
            },
            PipelineLibrary {
                path: two,
                sha256: Some(sha256_hex(b"two")),
            },
        ];
        let bundled = BundlePipeline::new(text, &libraries).unwrap();
        let written = String::from_utf8(bundled.text).unwrap();
        assert!(written.starts_with("# my pipeline\n"), "{written}");
        assert!(written.contains("path = \"plugins/libx.so\""), "{written}");
        assert!(
            written.contains("path = \"plugins/2-libx.so\""),
            "{written}"
        );
        assert!(
            written.contains("[capture.extractors]\nhar = \"har\""),
            "{written}"
        );
        assert_eq!(
            bundled.plugins,
            vec![
                ("plugins/libx.so".to_owned(), b"one".to_vec()),
                ("plugins/2-libx.so".to_owned(), b"two".to_vec())
            ]
        );
    }

    #[test]
    fn a_library_that_no_longer_matches_its_pin_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("liby.so");
        std::fs::write(&path, b"changed").unwrap();
        let libraries = [PipelineLibrary {
            path,
            sha256: Some(sha256_hex(b"original")),
        }];
        let refusal =
            BundlePipeline::new("[[plugins]]\npath = \"liby.so\"\n", &libraries).unwrap_err();
        assert_eq!(refusal.code, "artifact_changed");
    }

    #[test]
    fn a_pipeline_without_libraries_is_copied_as_is() {
        let text = rea_default();
        let bundled = BundlePipeline::new(text, &[]).unwrap();
        assert_eq!(bundled.text, text.as_bytes());
        assert!(bundled.plugins.is_empty());
    }

    fn rea_default() -> &'static str {
        "[capture.extractors]\nhar = \"har\"\n\n[manifest]\ntemplate_rules = [\"after-uid-literal\"]\n"
    }
}
