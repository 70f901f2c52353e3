//! Capture files and bundle folders under the server's working directory, offered by completion
//! where a workflow argument takes a path (issue 14): `.har` files and environment bundles (a
//! folder whose `envs/<name>/` holds `manifest.json` and `evidence.json`), as absolute paths, as
//! rea's tools take them. The walk is bounded in depth and in entries read, skips hidden folders
//! and build output, and sorts, so the same tree gives the same candidates.

use std::path::{Path, PathBuf};

/// Folders deeper than this below the root are not read.
pub const MAX_DEPTH: usize = 3;

/// At most this many directory entries are read per walk.
pub const MAX_ENTRIES: usize = 4096;

/// Folders never walked into (build output and package caches).
const SKIPPED: &[&str] = &["target", "node_modules", "__pycache__"];

/// The `.har` files and bundle folders under `root`, as absolute paths, sorted.
pub fn capture_and_bundle_paths(root: &Path) -> Vec<String> {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let mut found = Vec::new();
    let mut budget = MAX_ENTRIES;
    walk(&root, 0, &mut budget, &mut found);
    let mut paths: Vec<String> = found
        .into_iter()
        .filter_map(|path| path.to_str().map(str::to_owned))
        .collect();
    paths.sort();
    paths
}

fn walk(dir: &Path, depth: usize, budget: &mut usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = Vec::new();
    for entry in entries.flatten() {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        children.push(entry.path());
    }
    children.sort();
    for path in children {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if is_bundle(&path) {
                found.push(path);
            } else if depth < MAX_DEPTH && !SKIPPED.contains(&name) {
                walk(&path, depth + 1, budget, found);
            }
        } else if path
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("har"))
        {
            found.push(path);
        }
    }
}

/// Whether `dir` is an environment bundle: some `envs/<name>/` holds a manifest and Evidence.
pub fn is_bundle(dir: &Path) -> bool {
    let Ok(envs) = std::fs::read_dir(dir.join("envs")) else {
        return false;
    };
    envs.flatten().any(|env| {
        let env = env.path();
        env.join("manifest.json").is_file() && env.join("evidence.json").is_file()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn har_files_and_bundles_are_found_and_hidden_and_build_folders_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "a.har",
            "sub/b.HAR",
            "sub/notes.txt",
            ".hidden/c.har",
            "target/d.har",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}").unwrap();
        }
        let env = root.join("bundle/envs/wiki");
        std::fs::create_dir_all(&env).unwrap();
        std::fs::write(env.join("manifest.json"), "{}").unwrap();
        std::fs::write(env.join("evidence.json"), "{}").unwrap();
        let deep = root.join("1/2/3/4/deep.har");
        std::fs::create_dir_all(deep.parent().unwrap()).unwrap();
        std::fs::write(&deep, "{}").unwrap();
        let absolute = std::path::absolute(root).unwrap();
        let expected: Vec<String> = ["a.har", "bundle", "sub/b.HAR"]
            .iter()
            .map(|name| absolute.join(name).display().to_string())
            .collect();
        assert_eq!(capture_and_bundle_paths(root), expected);
    }
}
