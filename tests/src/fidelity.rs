//! The fidelity run (`tests/fidelity/run.sh`): every corpus application measured against its
//! probes, state and replay, with a ratchet of committed floors.
//!
//! An application is a folder holding `build.har`, `probe-reads.har` and `probe-crud.har`, under
//! the shared captures (`../shared/captures/*`) or the repository's corpus
//! (`tests/corpus/apps/*`); new folders are picked up as they appear. For each, the build
//! capture is inspected, its manifest projected with every template rule, and
//! `environment-compare` run on each probe twice: served from the state and `--replay-only`.
//! The run prints the agreement table and the miss count per difference category, then checks
//! `tests/fidelity/floors.toml`: an app agreeing on fewer steps than its floor fails the run; one
//! agreeing on more is reported so the floor can be raised (never lowered silently).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rea::commands::inspect_capture::{InspectRequest, inspect_with_builtins};
use rea_compare::adapter::{Mode, Rules};
use rea_compare::diff::Category;
use rea_compare::report::Step;
use rea_compare::{CompareInputs, Comparison};
use rea_evidence::Evidence;
use rea_manifest::TemplateRules;

/// The probes every app records, in table order.
pub const PROBES: [&str; 2] = ["probe-reads", "probe-crud"];

/// The template rules the manifests are projected with (every opt-in rule).
pub const TEMPLATE_RULES: [&str; 4] = [
    "after-uid-literal",
    "opaque-token",
    "sibling-variance",
    "prefix-variance",
];

/// One corpus application.
#[derive(Debug, Clone)]
pub struct App {
    /// Its folder name.
    pub name: String,
    /// Its folder.
    pub dir: PathBuf,
}

/// The applications under these roots, by name (a folder needs all three recordings).
pub fn discover(roots: &[PathBuf]) -> Vec<App> {
    let mut apps = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(root) else {
            continue;
        };
        for entry in entries.flatten() {
            let dir = entry.path();
            let complete = ["build", "probe-reads", "probe-crud"]
                .iter()
                .all(|name| dir.join(format!("{name}.har")).is_file());
            if complete {
                apps.push(App {
                    name: entry.file_name().to_string_lossy().into_owned(),
                    dir,
                });
            }
        }
    }
    apps.sort_by(|a, b| a.name.cmp(&b.name).then(a.dir.cmp(&b.dir)));
    apps
}

/// The default roots: the shared captures and the repository's corpus.
pub fn default_roots() -> Vec<PathBuf> {
    vec![
        crate::shared_dir().join("captures"),
        crate::workspace_root()
            .join("tests")
            .join("corpus")
            .join("apps"),
    ]
}

/// One probe in one mode: steps agreeing, steps compared, steps per difference category.
#[derive(Debug, Clone, Default)]
pub struct Measure {
    /// Agreeing steps.
    pub agreeing: u64,
    /// Compared steps.
    pub compared: u64,
    /// Steps showing each category.
    pub categories: BTreeMap<String, u64>,
    /// The compared steps, in call order (the miss review matches them).
    pub steps: Vec<Step>,
    /// The comparison Evidence, canonical JSON (what `environment-compare --json` prints).
    pub evidence: Vec<u8>,
}

/// An app's four measures: `(probe, mode)` → measure.
#[derive(Debug, Clone)]
pub struct AppResult {
    /// The app.
    pub name: String,
    /// `("probe-reads" | "probe-crud", "state" | "replay")` → measure.
    pub measures: BTreeMap<(String, String), Measure>,
    /// The same keys → agreement over the steps the miss review classes knowable
    /// (`crate::fidelity_review`; empty until the review is checked).
    pub knowable: BTreeMap<(String, String), (u64, u64)>,
}

/// Inspects a HAR with the built-in extractor.
pub fn inspect(path: &Path) -> Result<Evidence, String> {
    inspect_with_builtins(&InspectRequest {
        capture: path,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    })
    .map_err(|refusal| format!("{}: {}", path.display(), refusal.to_text_line()))
}

/// The built-in rule stages of the default pipeline.
pub fn default_rules() -> Result<Rules, String> {
    let mut registry = rea::builtin_registry().map_err(|error| error.to_string())?;
    rea_compare::adapter::load_rules(None, &mut registry).map_err(|refusal| refusal.to_text_line())
}

/// What the fidelity run measures: the default pipeline's rule stages with the opt-in sibling
/// transfer on (`[manifest] sibling_transfer = true`), what a user who turns it on gets. Sibling
/// transfer is a user's choice; the run measures it on and says so in its heading.
pub fn fidelity_rules() -> Result<Rules, String> {
    let rules = default_rules()?;
    Ok(std::sync::Arc::new(
        (*rules).clone().with_sibling_transfer(true),
    ))
}

/// An app's build: its capture and manifest Evidence (the default pipeline's template rules and
/// route forms, as `environment-build` projects it).
pub fn build(app: &App, state_rules: &Rules) -> Result<(Evidence, Evidence), String> {
    let capture = inspect(&app.dir.join("build.har"))?;
    let rules = TemplateRules::parse(&TEMPLATE_RULES).map_err(|error| error.to_string())?;
    let rules = state_rules.templating(&rules);
    let (_, manifest) = rea_manifest::project_manifest_evidence(&capture, &rules)
        .map_err(|refusal| refusal.to_text_line())?;
    Ok((capture, manifest))
}

/// Compares one app's environment with one probe in one mode.
pub fn compare(
    capture: &Evidence,
    manifest: &Evidence,
    probe: &Evidence,
    mode: Mode,
    rules: &Rules,
) -> Result<Comparison, String> {
    rea_compare::compare(&CompareInputs {
        manifest,
        capture,
        probes: std::slice::from_ref(probe),
        mode,
        rules: rules.clone(),
    })
    .map_err(|refusal| refusal.to_text_line())
}

/// Measures one app on both probes in both modes.
pub fn measure(app: &App, rules: &Rules) -> Result<AppResult, String> {
    let (capture, manifest) = build(app, rules)?;
    let mut measures = BTreeMap::new();
    for probe_name in PROBES {
        let probe = inspect(&app.dir.join(format!("{probe_name}.har")))?;
        for (mode_name, mode) in [("state", Mode::State), ("replay", Mode::ReplayOnly)] {
            let comparison = compare(&capture, &manifest, &probe, mode, rules)
                .map_err(|error| format!("{}: {error}", app.name))?;
            let summary = &comparison.report.summary.tally;
            measures.insert(
                (probe_name.to_owned(), mode_name.to_owned()),
                Measure {
                    agreeing: summary.counts.agreeing,
                    compared: summary.counts.compared,
                    categories: summary
                        .categories
                        .iter()
                        .map(|(category, steps)| ((*category).to_owned(), *steps))
                        .collect(),
                    steps: comparison
                        .report
                        .probes
                        .iter()
                        .flat_map(|probe| probe.steps.iter().cloned())
                        .collect(),
                    evidence: comparison.evidence.to_canonical_vec(),
                },
            );
        }
    }
    Ok(AppResult {
        name: app.name.clone(),
        measures,
        knowable: BTreeMap::new(),
    })
}

fn cell(measure: Option<&Measure>) -> String {
    match measure {
        Some(measure) if measure.compared > 0 => format!(
            "{}/{} ({:.0}%)",
            measure.agreeing,
            measure.compared,
            measure.agreeing as f64 * 100.0 / measure.compared as f64
        ),
        Some(measure) => format!("{}/0", measure.agreeing),
        None => "-".to_owned(),
    }
}

/// The Markdown tables: agreement per app, probe and mode, each beside its agreement over the
/// knowable steps (`-` before the app's miss review); misses per category (state / replay, both
/// probes).
pub fn table(results: &[AppResult]) -> String {
    let key = |probe: &str, mode: &str| (probe.to_owned(), mode.to_owned());
    let mut text = String::from(
        "| app | reads, state | knowable | reads, replay | knowable | CRUD, state | knowable | CRUD, replay | knowable |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for result in results {
        text.push_str(&format!("| {} |", result.name));
        for probe in PROBES {
            for mode in ["state", "replay"] {
                let knowable =
                    result
                        .knowable
                        .get(&key(probe, mode))
                        .map(|(agreeing, compared)| Measure {
                            agreeing: *agreeing,
                            compared: *compared,
                            ..Measure::default()
                        });
                text.push_str(&format!(
                    " {} | {} |",
                    cell(result.measures.get(&key(probe, mode))),
                    cell(knowable.as_ref())
                ));
            }
        }
        text.push('\n');
    }
    text.push_str(
        "\nSteps missed per difference category (state / replay, both probes):\n\n| app |",
    );
    for category in Category::ALL {
        text.push_str(&format!(" {} |", category.name()));
    }
    text.push_str("\n| --- |");
    for _ in Category::ALL {
        text.push_str(" --- |");
    }
    text.push('\n');
    for result in results {
        text.push_str(&format!("| {} |", result.name));
        for category in Category::ALL {
            let count = |mode: &str| -> u64 {
                PROBES
                    .iter()
                    .filter_map(|probe| result.measures.get(&key(probe, mode)))
                    .filter_map(|measure| measure.categories.get(category.name()))
                    .sum()
            };
            text.push_str(&format!(" {} / {} |", count("state"), count("replay")));
        }
        text.push('\n');
    }
    text
}

/// The committed floors: app → `"<probe>.<mode>"` → agreeing steps.
pub type Floors = BTreeMap<String, BTreeMap<String, u64>>;

/// Reads the floors file.
pub fn read_floors(path: &Path) -> Result<Floors, String> {
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
    toml::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// The floors every result reaches now, as the floors file spells them.
pub fn floors_of(results: &[AppResult]) -> String {
    let mut text = String::new();
    for result in results {
        text.push_str(&format!("[{}]\n", toml_key(&result.name)));
        for ((probe, mode), measure) in &result.measures {
            text.push_str(&format!("\"{probe}.{mode}\" = {}\n", measure.agreeing));
        }
        text.push('\n');
    }
    text
}

fn toml_key(name: &str) -> String {
    if name
        .chars()
        .all(|character| character.is_ascii_alphanumeric() || character == '-' || character == '_')
    {
        name.to_owned()
    } else {
        format!("{name:?}")
    }
}

/// What the floors say of the results: the drops (failures) and the gains (floors to raise,
/// and apps without a floor yet).
pub fn check_floors(results: &[AppResult], floors: &Floors) -> (Vec<String>, Vec<String>) {
    let (mut drops, mut gains) = (Vec::new(), Vec::new());
    for result in results {
        let Some(app_floors) = floors.get(&result.name) else {
            gains.push(format!(
                "{}: no floor yet; add it to tests/fidelity/floors.toml",
                result.name
            ));
            continue;
        };
        for ((probe, mode), measure) in &result.measures {
            let name = format!("{probe}.{mode}");
            match app_floors.get(&name) {
                Some(floor) if measure.agreeing < *floor => drops.push(format!(
                    "{}: {name} agrees on {} steps, below its floor of {floor}",
                    result.name, measure.agreeing
                )),
                Some(floor) if measure.agreeing > *floor => gains.push(format!(
                    "{}: {name} agrees on {} steps, above its floor of {floor}: raise the floor",
                    result.name, measure.agreeing
                )),
                Some(_) => {}
                None => gains.push(format!("{}: {name} has no floor yet", result.name)),
            }
        }
    }
    for app in floors.keys() {
        if !results.iter().any(|result| result.name == *app) {
            drops.push(format!(
                "{app}: has a floor but was not found (its recordings are missing)"
            ));
        }
    }
    (drops, gains)
}
