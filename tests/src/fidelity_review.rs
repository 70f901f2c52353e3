//! The reviewed miss lists of the fidelity run: every probe step the environment served from
//! the state gets wrong, classed by a person in `tests/fidelity/reviews/<app>.toml`, checked
//! against the comparison on every run and rendered as `tests/fidelity/<app>.md`.
//!
//! A review entry names one missed step (probe, the step's ordinal as `environment-compare`
//! prints it, its request line, tool and difference categories when reviewed) and classes it:
//!
//! | class | meaning | required |
//! | --- | --- | --- |
//! | `cannot-know` | no rule could infer the answer from what `build.har` shows | `reason` |
//! | `defect` | the state engine could answer it and does not | `capability` (one of [`CAPABILITIES`]), `diagnosis` |
//! | `compare-defect` | `environment-compare` mis-judges the step | `diagnosis` |
//!
//! A step is `cannot-know` when any part of the live answer is beyond what `build.har` shows
//! (a route or parameter the build never used, an error it never met, a random or server-clock
//! value the comparison takes literally): such a step can never agree, so it leaves the knowable
//! steps, and its reason names the defects it also shows (`besides: …`). A route the build
//! recorded only for other ids, filter values or sibling collections is knowable.
//!
//! `replay_agrees = "…"` on a `cannot-know` step that replay answers right says why that is a
//! coincidence (replay answering another call's recording, say), once the step was re-checked;
//! the run then stops asking for that re-check.
//!
//! `follows = N` marks a step that misses because step `N` of the same probe did (a write not
//! served, say); it is grouped under that step's capability. The review is checked here: a
//! missed step without an entry, an entry naming a step the probe does not have or with another
//! request line, and a malformed entry are errors; an entry whose step agrees now is stale (to be
//! removed), and one whose tool or categories changed is worth a second look. Knowable steps are
//! the compared steps less the missed steps classed `cannot-know`; agreement over them is what
//! the state-engine issue's targets are measured on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rea_compare::report::Step;
use serde::Deserialize;

use crate::fidelity::{AppResult, PROBES};
use crate::fidelity_review_list::{Reviewed, SUMMARY_FILE, render, render_summary};

/// The folder of the review files, under the workspace root.
pub const REVIEWS_DIR: &str = "tests/fidelity/reviews";

/// The folder of the rendered lists, under the workspace root.
pub const LISTS_DIR: &str = "tests/fidelity";

/// The engine capabilities a defect names, each with what it is (the work plan's groups).
pub const CAPABILITIES: &[(&str, &str)] = &[
    (
        "route-template",
        "path segments fusing an id with a literal, ids outside a learned format, or sibling collections template to one tool",
    ),
    (
        "query-grammar",
        "the list query language learned from recorded queries (equality on any field, operator forms, sort, search) and applied to other fields, values, combinations and sibling collections",
    ),
    (
        "paging",
        "offset, page, size, keyset cursors and the next links, totals and headers the application computes",
    ),
    (
        "relation-list",
        "nested collections and relation lists (`/parent/{id}/children`), embedded and expanded relations, answered from state for any parent",
    ),
    (
        "read-view",
        "a read answered from a state view (entity, document, projection) instead of another id's or query's recording (`path-varies`, `no-view`)",
    ),
    (
        "body-query",
        "RPC-style reads whose query is a request body (ranges, filters, selections), answered from state",
    ),
    (
        "action-route-write",
        "writes through action routes (a verb segment, `:verb`, RPC bodies naming the target)",
    ),
    (
        "sibling-transfer",
        "a write pattern confirmed on one collection offered on a sibling collection of the same route family and entity shape",
    ),
    (
        "write-learning",
        "a write the build recorded and later reads confirm, yet withheld or applied wrongly (create, replace, merge, delete)",
    ),
    (
        "upsert",
        "create-or-replace by an id or key in the path or body",
    ),
    (
        "nested-generated-ids",
        "generated ids and values inside created objects and their children",
    ),
    (
        "generated-values",
        "values the application generates on a write (ids, counters, clocks, hashes) predicted by the rule the build shows",
    ),
    (
        "documents-folders",
        "documents in folders: create by PUT, rename, delete, the folder listings that show them",
    ),
    (
        "revision-counter",
        "revision/ETag counters, `If-Match` and revision conflicts",
    ),
    (
        "consistency-after-write",
        "every list, count and relation that shows a written entity answered from state after a served write",
    ),
    (
        "withheld-write-visible",
        "a withheld write listed and answering a structured refusal, not missing from the catalog",
    ),
    (
        "error-answers",
        "the application's error answers (validation, conflict, not found, method not allowed) for inputs the build showed failing",
    ),
    (
        "input-schema",
        "tool input schemas no stricter or looser than the application: required members, formats, unknown arguments",
    ),
    (
        "entity-shape",
        "the fields an entity shows in each view (list item, single read, write answer) and their defaults",
    ),
    (
        "id-mapping",
        "ids and natural keys the environment must pair with the application's",
    ),
    (
        "soft-delete",
        "deletion by a status field: the entity stays, its status changes, lists filter it",
    ),
];

/// A review class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// The capture cannot know the answer.
    CannotKnow,
    /// Our (state engine's) defect.
    Defect,
    /// `environment-compare` mis-judges the step.
    CompareDefect,
}

impl Class {
    /// Its spelling in review files.
    pub fn name(self) -> &'static str {
        match self {
            Class::CannotKnow => "cannot-know",
            Class::Defect => "defect",
            Class::CompareDefect => "compare-defect",
        }
    }
}

/// One reviewed missed step.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// `probe-reads` or `probe-crud`.
    pub probe: String,
    /// The step's ordinal, as `environment-compare` prints it (the probe HAR entry, from 0).
    pub step: u64,
    /// Its request line as the comparison prints it.
    pub request: String,
    /// The tool it matched when reviewed.
    #[serde(default)]
    pub tool: Option<String>,
    /// Its difference categories when reviewed.
    #[serde(default)]
    pub categories: Vec<String>,
    /// Its class.
    pub class: Class,
    /// Why the capture cannot know it (`cannot-know`).
    #[serde(default)]
    pub reason: Option<String>,
    /// The engine capability that would fix it (`defect`).
    #[serde(default)]
    pub capability: Option<String>,
    /// What goes wrong (`defect`, `compare-defect`).
    #[serde(default)]
    pub diagnosis: Option<String>,
    /// The earlier step of the same probe whose miss this one follows from.
    #[serde(default)]
    pub follows: Option<u64>,
    /// For a `cannot-know` step replay answers right: why that agreement is a coincidence (the
    /// step re-checked against the recordings and the app's source), which stops the run's
    /// `review:` warning for it.
    #[serde(default)]
    pub replay_agrees: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewFile {
    #[serde(default)]
    miss: Vec<Entry>,
}

/// The review file of an app.
pub fn review_path(app: &str) -> PathBuf {
    crate::workspace_root()
        .join(REVIEWS_DIR)
        .join(format!("{app}.toml"))
}

/// Reads and validates a review file; `None` when the app has none.
pub fn read_review(path: &Path) -> Result<Option<Vec<Entry>>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("{}: {error}", path.display())),
    };
    parse_review(&text)
        .map(Some)
        .map_err(|error| format!("{}: {error}", path.display()))
}

/// Parses and validates a review's text.
pub fn parse_review(text: &str) -> Result<Vec<Entry>, String> {
    let file: ReviewFile = toml::from_str(text).map_err(|error| error.to_string())?;
    let mut seen = BTreeSet::new();
    for entry in &file.miss {
        validate(entry).map_err(|error| format!("{} step {}: {error}", entry.probe, entry.step))?;
        if !seen.insert((entry.probe.clone(), entry.step)) {
            return Err(format!(
                "{} step {}: reviewed twice",
                entry.probe, entry.step
            ));
        }
    }
    Ok(file.miss)
}

fn filled(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|text| !text.trim().is_empty())
}

fn validate(entry: &Entry) -> Result<(), String> {
    if !PROBES.contains(&entry.probe.as_str()) {
        return Err(format!("probe must be one of {PROBES:?}"));
    }
    if entry.follows.is_some_and(|step| step >= entry.step) {
        return Err("follows must name an earlier step".to_owned());
    }
    if entry.replay_agrees.is_some()
        && (entry.class != Class::CannotKnow || !filled(&entry.replay_agrees))
    {
        return Err("replay_agrees is a filled note of a \"cannot-know\" step".to_owned());
    }
    match entry.class {
        Class::CannotKnow => {
            if !filled(&entry.reason) {
                return Err("class \"cannot-know\" needs a reason".to_owned());
            }
            if entry.capability.is_some() || entry.diagnosis.is_some() {
                return Err(
                    "class \"cannot-know\" takes a reason, not a capability or diagnosis"
                        .to_owned(),
                );
            }
        }
        Class::Defect => {
            let capability = entry.capability.as_deref().unwrap_or_default();
            if !CAPABILITIES.iter().any(|(name, _)| *name == capability) {
                let names: Vec<&str> = CAPABILITIES.iter().map(|(name, _)| *name).collect();
                return Err(format!(
                    "class \"defect\" needs a capability, one of {names:?}"
                ));
            }
            if !filled(&entry.diagnosis) || entry.reason.is_some() {
                return Err("class \"defect\" takes a diagnosis, not a reason".to_owned());
            }
        }
        Class::CompareDefect => {
            if !filled(&entry.diagnosis) || entry.reason.is_some() || entry.capability.is_some() {
                return Err("class \"compare-defect\" takes a diagnosis only".to_owned());
            }
        }
    }
    Ok(())
}

/// Agreement over a set of steps: `(agreeing, compared)`.
pub type Ratio = (u64, u64);

/// What the review says of one app's comparison.
#[derive(Debug, Default)]
pub struct Checked {
    /// `(probe, mode)` → agreement over knowable steps.
    pub knowable: BTreeMap<(String, String), Ratio>,
    /// Missed steps without an entry, as the entries to add (class left to the reviewer).
    pub unreviewed: Vec<Entry>,
    /// Entries wrong for the probe (unknown step, other request line): errors.
    pub errors: Vec<String>,
    /// Entries whose step agrees now: to be removed.
    pub stale: Vec<String>,
    /// Entries whose tool or categories changed.
    pub notes: Vec<String>,
    /// Steps classed `cannot-know` that replay answers right (worth a look while reviewing: the
    /// recording may have known; often a coincidence, such as replay not applying a write).
    pub replay_agrees: Vec<String>,
}

fn categories_of(step: &Step) -> Vec<String> {
    step.categories
        .iter()
        .map(|category| category.name().to_owned())
        .collect()
}

fn steps_of<'a>(result: &'a AppResult, probe: &str, mode: &str) -> &'a [Step] {
    result
        .measures
        .get(&(probe.to_owned(), mode.to_owned()))
        .map_or(&[], |measure| measure.steps.as_slice())
}

/// Checks a review against an app's comparison (the review's missed steps are those served
/// from the state).
pub fn check(result: &AppResult, entries: &[Entry]) -> Checked {
    let mut checked = Checked::default();
    let by_key: BTreeMap<(&str, u64), &Entry> = entries
        .iter()
        .map(|entry| ((entry.probe.as_str(), entry.step), entry))
        .collect();
    for probe in PROBES {
        let state = steps_of(result, probe, "state");
        let ordinals: BTreeSet<u64> = state.iter().map(|step| step.ordinal).collect();
        for entry in entries.iter().filter(|entry| entry.probe == probe) {
            if !ordinals.contains(&entry.step) {
                checked.errors.push(format!(
                    "{}: {probe} step {} ({}) is not a compared step of the probe: re-review",
                    result.name, entry.step, entry.request
                ));
            }
        }
        let mut cannot_know = BTreeSet::new();
        let mut rechecked = BTreeSet::new();
        for step in state {
            let entry = by_key.get(&(probe, step.ordinal)).copied();
            check_step(&result.name, probe, step, entry, &mut checked);
            let cannot = entry.is_some_and(|entry| {
                entry.class == Class::CannotKnow && entry.request == step.request
            });
            if cannot && !step.agrees {
                cannot_know.insert(step.ordinal);
                if entry.is_some_and(|entry| entry.replay_agrees.is_some()) {
                    rechecked.insert(step.ordinal);
                }
            }
        }
        for mode in ["state", "replay"] {
            let mut ratio = (0, 0);
            for step in steps_of(result, probe, mode) {
                if cannot_know.contains(&step.ordinal) {
                    if mode == "replay" && step.agrees && !rechecked.contains(&step.ordinal) {
                        checked.replay_agrees.push(format!(
                            "{}: {probe} step {} ({}) is classed cannot-know but replay answers it right: re-check",
                            result.name, step.ordinal, step.request
                        ));
                    }
                    continue;
                }
                ratio.0 += u64::from(step.agrees);
                ratio.1 += 1;
            }
            checked
                .knowable
                .insert((probe.to_owned(), mode.to_owned()), ratio);
        }
    }
    checked
}

fn check_step(app: &str, probe: &str, step: &Step, entry: Option<&Entry>, checked: &mut Checked) {
    let Some(entry) = entry else {
        if !step.agrees {
            checked.unreviewed.push(Entry {
                probe: probe.to_owned(),
                step: step.ordinal,
                request: step.request.clone(),
                tool: step.tool.clone(),
                categories: categories_of(step),
                class: Class::Defect,
                reason: None,
                capability: None,
                diagnosis: None,
                follows: None,
                replay_agrees: None,
            });
        }
        return;
    };
    let name = format!("{app}: {probe} step {} ({})", step.ordinal, step.request);
    if entry.request != step.request {
        checked.errors.push(format!(
            "{name}: the review names {:?}: the probe changed, re-review the step",
            entry.request
        ));
    } else if step.agrees {
        checked
            .stale
            .push(format!("{name} agrees now: remove its review entry"));
    } else if entry.tool != step.tool || entry.categories != categories_of(step) {
        checked.notes.push(format!(
            "{name}: now {} [{}], reviewed as {} [{}]: re-check the entry",
            step.tool.as_deref().unwrap_or("no tool"),
            categories_of(step).join(", "),
            entry.tool.as_deref().unwrap_or("no tool"),
            entry.categories.join(", ")
        ));
    }
}

fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            character if character.is_control() => {
                out.push_str(&format!("\\u{:04X}", u32::from(character)));
            }
            character => out.push(character),
        }
    }
    out.push('"');
    out
}

/// The TOML of an entry (a missed step's entry to add, class and diagnosis to fill in).
pub fn entry_toml(entry: &Entry) -> String {
    let mut text = format!(
        "[[miss]]\nprobe = {}\nstep = {}\nrequest = {}\n",
        toml_string(&entry.probe),
        entry.step,
        toml_string(&entry.request)
    );
    if let Some(tool) = &entry.tool {
        text.push_str(&format!("tool = {}\n", toml_string(tool)));
    }
    let categories: Vec<String> = entry.categories.iter().map(|c| toml_string(c)).collect();
    text.push_str(&format!("categories = [{}]\n", categories.join(", ")));
    text.push_str(&format!("class = {}\n", toml_string(entry.class.name())));
    let optional = [
        ("reason", &entry.reason),
        ("capability", &entry.capability),
        ("diagnosis", &entry.diagnosis),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            text.push_str(&format!("{key} = {}\n", toml_string(value)));
        }
    }
    if let Some(step) = entry.follows {
        text.push_str(&format!("follows = {step}\n"));
    }
    text
}

/// How to review the missed steps without an entry: the entries to add to the app's review.
pub fn unreviewed_help(app: &str, unreviewed: &[Entry]) -> String {
    let mut text = format!(
        "{app}: {} missed step(s) have no review entry. Study each (`tests/fidelity/run.sh --json DIR`, then the step in DIR/{app}.<probe>.state.json, the probe's HAR entry and build.har), then add to {REVIEWS_DIR}/{app}.toml, with class = \"cannot-know\" and a reason, or class = \"defect\" with a capability and a diagnosis, or class = \"compare-defect\" with a diagnosis:\n",
        unreviewed.len()
    );
    for entry in unreviewed {
        text.push('\n');
        text.push_str(&entry_toml(entry).replace(
            "class = \"defect\"\n",
            "class = \"\" # cannot-know, defect or compare-defect\n",
        ));
    }
    text
}

/// Writes every comparison Evidence as `DIR/<app>.<probe>.<mode>.json`.
pub fn write_json(results: &[AppResult], dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    for result in results {
        for ((probe, mode), measure) in &result.measures {
            let path = dir.join(format!("{}.{probe}.{mode}.json", result.name));
            std::fs::write(&path, &measure.evidence)
                .map_err(|error| format!("{}: {error}", path.display()))?;
        }
    }
    Ok(())
}

/// What the run does with the reviews.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lists {
    /// Check them; warn when a rendered list differs from what the review renders.
    Check,
    /// Write the rendered lists and the corpus summary.
    Write,
}

/// Checks every app's review against its comparison, fills each result's agreement over
/// knowable steps, prints what the review says (errors, missed steps to review, stale entries,
/// notes), and checks or writes the rendered lists. Returns whether the reviews hold: no error
/// and no missed step without an entry.
pub fn review_all(results: &mut [AppResult], lists: Lists) -> bool {
    let mut held = true;
    let mut reviews = Vec::new();
    for result in results.iter_mut() {
        // An app missing no step needs no review file; one missing steps without it gets the
        // entries to add (`unreviewed`, below).
        let entries = match read_review(&review_path(&result.name)) {
            Ok(entries) => entries.unwrap_or_default(),
            Err(error) => {
                eprintln!("fidelity: {error}");
                held = false;
                Vec::new()
            }
        };
        let checked = check(result, &entries);
        result.knowable = checked.knowable.clone();
        reviews.push((entries, checked));
    }
    for (result, (_, checked)) in results.iter().zip(&reviews) {
        for line in checked.stale.iter().chain(&checked.notes) {
            println!("reminder: {line}");
        }
        if lists == Lists::Write {
            for line in &checked.replay_agrees {
                println!("review: {line}");
            }
        }
        for error in &checked.errors {
            eprintln!("fidelity: {error}");
            held = false;
        }
        if !checked.unreviewed.is_empty() {
            eprintln!(
                "fidelity: {}",
                unreviewed_help(&result.name, &checked.unreviewed)
            );
            held = false;
        }
    }
    let reviewed: Vec<Reviewed<'_>> = results
        .iter()
        .zip(&reviews)
        .map(|(result, (entries, checked))| Reviewed {
            result,
            entries,
            checked,
        })
        .collect();
    if let Err(error) = lists_of(&reviewed, lists) {
        eprintln!("fidelity: {error}");
        held = false;
    }
    held
}

fn lists_of(reviewed: &[Reviewed<'_>], lists: Lists) -> Result<(), String> {
    let mut files: Vec<(String, String)> = reviewed
        .iter()
        .map(|app| (format!("{LISTS_DIR}/{}.md", app.result.name), render(app)))
        .collect();
    files.push((
        format!("{LISTS_DIR}/{SUMMARY_FILE}"),
        render_summary(reviewed),
    ));
    for (name, text) in files {
        let path = crate::workspace_root().join(&name);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed == text {
            continue;
        }
        match lists {
            Lists::Write => std::fs::write(&path, text)
                .map_err(|error| format!("{}: {error}", path.display()))?,
            Lists::Check => println!(
                "reminder: {name} differs from what the reviews render: run tests/fidelity/run.sh --write-lists"
            ),
        }
    }
    Ok(())
}
