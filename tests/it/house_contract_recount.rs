//! The contract recount: per section of `spec/contract-checklist.md`, the ids a test names
//! (`// contract: ID` or `# contract: ID`), the ids a crate's `CONTRACT-NOTES.md` lists as not
//! applying or differing, and the ids neither covers
//! (`cargo test -p rea-tests --test it house_contract_recount:: -- --nocapture` prints the table
//! and the untested ids). `REA_RECOUNT_ROOT` recounts another checkout (a tree from `git archive`).
//!
//! It fails when a tag names an id the checklist does not have, or when an id a note lists as a
//! whole deviation is also tagged: a deviation is documented, never claimed as covered. A note's
//! bold lead naming more than ids (`**COMPARE-063 for the capture state**`) is a partial
//! deviation, and its id may be tagged for the half that holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Folders never read for tags: build output, dependencies, fetched kits.
const SKIPPED_DIRS: [&str; 5] = ["target", ".git", "node_modules", ".venv", "corpus"];

/// Files whose tags count: Rust tests and the shell and Python suites.
const TAGGED_EXTENSIONS: [&str; 3] = ["rs", "sh", "py"];

fn root() -> PathBuf {
    match std::env::var_os("REA_RECOUNT_ROOT") {
        Some(dir) => PathBuf::from(dir),
        None => rea_tests::workspace_root(),
    }
}

/// Whether `word` has the form of a checklist id (`PREFIX-NNN`).
fn is_id(word: &str) -> bool {
    let Some((prefix, number)) = word.split_once('-') else {
        return false;
    };
    !prefix.is_empty()
        && prefix.bytes().all(|byte| byte.is_ascii_uppercase())
        && number.len() == 3
        && number.bytes().all(|byte| byte.is_ascii_digit())
}

fn ids_in(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|word| is_id(word))
}

/// The checklist: each id and its section, in the checklist's order of sections.
fn checklist(shared: &Path) -> (Vec<String>, BTreeMap<String, String>) {
    let path = shared.join("spec/contract-checklist.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut sections = Vec::new();
    let mut ids = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.trim().to_owned();
        } else if let Some(item) = line.strip_prefix("- ") {
            let id = item.split_whitespace().next().unwrap_or_default();
            if is_id(id) {
                if !sections.contains(&section) {
                    sections.push(section.clone());
                }
                ids.insert(id.to_owned(), section.clone());
            }
        }
    }
    (sections, ids)
}

/// The comment text of a tag line (`// contract: …`, `# contract: …`), or of its continuation.
fn comment(line: &str) -> Option<&str> {
    let line = line.trim_start();
    line.strip_prefix("//")
        .or_else(|| line.strip_prefix('#'))
        .map(str::trim)
}

/// Every id a file's tags name, with the line of its tag (where `contract:` is). A tag line
/// ending in a comma continues on the following comment lines.
fn tags_in(text: &str) -> Vec<(String, usize)> {
    let mut tags = Vec::new();
    let mut continuing = false;
    let mut start = 0;
    for (number, line) in text.lines().enumerate() {
        let Some(body) = comment(line) else {
            continuing = false;
            continue;
        };
        let body = match body.strip_prefix("contract:") {
            Some(rest) => {
                start = number + 1;
                rest
            }
            None if continuing => body,
            None => continue,
        };
        tags.extend(ids_in(body).map(|id| (id.to_owned(), start)));
        continuing = body.trim_end().ends_with(',');
    }
    tags
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name) {
                walk(&path, files);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| TAGGED_EXTENSIONS.contains(&e))
        {
            files.push(path);
        }
    }
}

/// Every tagged id, with the places (`file:line`) that name it.
fn tagged(root: &Path) -> BTreeMap<String, Vec<String>> {
    let mut files = Vec::new();
    walk(root, &mut files);
    let mut tagged: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (id, line) in tags_in(&text) {
            tagged
                .entry(id)
                .or_default()
                .push(format!("{shown}:{line}"));
        }
    }
    tagged
}

/// Whether a notes heading opens a list of deviations (items that do not apply or differ); a
/// paragraph starting `Items covered` ends the list.
fn is_deviation_heading(heading: &str) -> bool {
    let heading = heading.to_ascii_lowercase();
    heading.contains("not apply") || heading.contains("differ") || heading.contains("deviation")
}

/// The ids the crates' notes list as deviations: `whole` (the bold lead or table cell names
/// only ids) and `partial` (the lead says which half deviates).
fn deviations(root: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut whole, mut partial) = (BTreeSet::new(), BTreeSet::new());
    let mut notes = Vec::new();
    if let Ok(crates) = std::fs::read_dir(root.join("host/crates")) {
        notes.extend(
            crates
                .filter_map(Result::ok)
                .map(|e| e.path().join("CONTRACT-NOTES.md")),
        );
    }
    for path in notes.into_iter().filter(|path| path.is_file()) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut listing = false;
        for line in text.lines() {
            if let Some(heading) = line.strip_prefix('#') {
                listing = is_deviation_heading(heading);
                continue;
            }
            if line.starts_with("Items covered") {
                listing = false;
            }
            if !listing {
                continue;
            }
            let lead = if let Some(rest) = line.strip_prefix("- **") {
                rest.split("**").next().unwrap_or_default()
            } else if let Some(rest) = line.strip_prefix("| ") {
                rest.split('|').next().unwrap_or_default()
            } else {
                continue;
            };
            let only_ids = lead
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|word| !word.is_empty())
                .all(is_id);
            let set = if only_ids { &mut whole } else { &mut partial };
            set.extend(ids_in(lead).map(str::to_owned));
        }
    }
    (whole, partial)
}

#[test]
fn every_checklist_section_is_recounted_and_no_tag_claims_a_deviation() {
    let root = root();
    let (sections, checklist) = checklist(&rea_tests::shared_dir());
    assert!(
        checklist.len() > 900,
        "the checklist has {} ids",
        checklist.len()
    );
    let tagged = tagged(&root);
    let (whole, partial) = deviations(&root);

    println!("| section | items | tagged | deviations | untested |");
    println!("|---|---|---|---|---|");
    let mut totals = [0usize; 4];
    let mut untested = Vec::new();
    for section in &sections {
        let ids: Vec<&String> = checklist
            .iter()
            .filter(|(_, s)| *s == section)
            .map(|(id, _)| id)
            .collect();
        let tags = ids.iter().filter(|id| tagged.contains_key(**id)).count();
        let noted = ids
            .iter()
            .filter(|id| !tagged.contains_key(**id))
            .filter(|id| whole.contains(**id) || partial.contains(**id))
            .count();
        let missing: Vec<&String> = ids
            .iter()
            .copied()
            .filter(|id| {
                !tagged.contains_key(*id) && !whole.contains(*id) && !partial.contains(*id)
            })
            .collect();
        println!(
            "| {section} | {} | {tags} | {noted} | {} |",
            ids.len(),
            missing.len()
        );
        for (total, count) in totals
            .iter_mut()
            .zip([ids.len(), tags, noted, missing.len()])
        {
            *total += count;
        }
        untested.extend(missing);
    }
    let [items, tags, noted, missing] = totals;
    println!("| total | {items} | {tags} | {noted} | {missing} |");
    println!("untested: {}", join(untested.iter().map(|id| id.as_str())));
    print_wide_tags(&tagged);

    let unknown: Vec<String> = tagged
        .iter()
        .filter(|(id, _)| !checklist.contains_key(*id))
        .map(|(id, places)| format!("{id} ({})", places.join(", ")))
        .collect();
    let claimed: Vec<String> = tagged
        .iter()
        .filter(|(id, _)| whole.contains(*id))
        .map(|(id, places)| format!("{id} ({})", places.join(", ")))
        .collect();
    assert!(
        unknown.is_empty(),
        "tags name ids the checklist lacks: {unknown:?}"
    );
    assert!(
        claimed.is_empty(),
        "deviations listed in CONTRACT-NOTES.md are also tagged as covered: {claimed:?}"
    );
}

/// Tags naming more than this many ids at one place are listed for review: one assertion rarely
/// checks that many promises.
const WIDE_TAG: usize = 6;

/// Prints the places whose one tag names more than [`WIDE_TAG`] ids, widest first.
fn print_wide_tags(tagged: &BTreeMap<String, Vec<String>>) {
    let mut places: BTreeMap<&str, usize> = BTreeMap::new();
    for place in tagged.values().flatten() {
        *places.entry(place.as_str()).or_default() += 1;
    }
    let mut wide: Vec<(&str, usize)> = places.into_iter().filter(|(_, n)| *n > WIDE_TAG).collect();
    wide.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    println!(
        "tags naming more than {WIDE_TAG} ids at one place: {}",
        wide.len()
    );
    for (place, count) in wide {
        println!("  {place}: {count} ids");
    }
}

fn join<'a>(ids: impl Iterator<Item = &'a str>) -> String {
    ids.collect::<Vec<_>>().join(" ")
}

#[test]
fn a_tag_continues_over_comment_lines_ending_in_a_comma() {
    let text = "// contract: BUILD-001, BUILD-002,\n//   BUILD-003\n// BUILD-004\nfn f() {}\n";
    let ids: Vec<String> = tags_in(text).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["BUILD-001", "BUILD-002", "BUILD-003"]);
    assert!(tags_in(text).iter().all(|(_, line)| *line == 1));
}
