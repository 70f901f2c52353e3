//! `rea-pipeline`: the build and serve pipeline, described in one TOML file.
//!
//! A pipeline names the external plugin libraries to load, which capture extractor handles which
//! input kind, the manifest's template rules, the ordered state rules with their options, and the
//! serve settings. A default pipeline is embedded ([`DEFAULT_PIPELINE`]) so no file is needed.
//!
//! Like Vector's configuration, a pipeline is validated whole before anything runs: [`parse`]
//! collects every syntax and shape problem (unknown key, wrong type, bad value) and [`resolve`]
//! loads the named libraries and checks every stage reference, option name and option value
//! (the stage reads the values into its own options type) against the registry, again collecting
//! every problem. Each [`Diagnostic`] has a line and column.

mod diagnostic;
mod spec;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rea_plugin_api::StageKind;
use rea_plugin_api::contracts::rule::RawOptions;
use rea_registry::Registry;

pub use diagnostic::{Diagnostic, PipelineErrors};
pub use spec::{
    CaptureBinding, DEFAULT_QUERY_GRAMMARS, DEFAULT_ROUTE_FORMS, LibrarySpec, PipelineSpec,
    RuleSpec, ServeSpec, TEMPLATE_RULES, WithheldWrites, parse,
};

/// The pipeline used when none is given.
pub const DEFAULT_PIPELINE: &str = include_str!("default.toml");

/// The name [`Pipeline::origin`] has for the embedded default.
pub const DEFAULT_ORIGIN: &str = "<default pipeline>";

/// A validated pipeline, every reference resolved against a registry.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// The file it came from, or [`DEFAULT_ORIGIN`].
    pub origin: String,
    /// External plugin libraries, loaded into the registry, in file order.
    pub libraries: Vec<ResolvedLibrary>,
    /// Input kind → the capture stage that handles it.
    pub capture_extractors: BTreeMap<String, ResolvedStage>,
    /// Template rules for the manifest view, in the views' fixed order.
    pub template_rules: Vec<String>,
    /// Query-grammar stages the state engine runs, in pipeline order.
    pub query_grammars: Vec<ResolvedStage>,
    /// Route-form stages the manifest projection runs after the template rules, in order.
    pub route_forms: Vec<ResolvedStage>,
    /// Whether write tools are offered on sibling collections (`[manifest] sibling_transfer`).
    pub sibling_transfer: bool,
    /// State rules in pipeline order.
    pub rules: Vec<ResolvedRule>,
    /// Serve settings.
    pub serve: ServeSpec,
}

/// A plugin library the pipeline loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedLibrary {
    /// The path as resolved (relative paths are relative to the pipeline file's folder).
    pub path: PathBuf,
    /// The pinned SHA-256, if any.
    pub sha256: Option<String>,
    /// The plugin it provided.
    pub plugin: String,
}

/// A stage reference, resolved to the plugin providing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedStage {
    /// Stage name.
    pub stage: String,
    /// Plugin name.
    pub plugin: String,
    /// `builtin` or the library path.
    pub source: String,
}

/// A state rule step.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedRule {
    /// The stage.
    pub stage: ResolvedStage,
    /// Its options, as JSON.
    pub options: BTreeMap<String, serde_json::Value>,
}

impl Pipeline {
    /// The resolved chain as JSON (what `rea pipeline check` prints).
    pub fn to_json(&self) -> serde_json::Value {
        let stage = |stage: &ResolvedStage| serde_json::json!({"stage": stage.stage, "plugin": stage.plugin, "source": stage.source});
        serde_json::json!({
            "pipeline": self.origin,
            "libraries": self.libraries.iter().map(|library| serde_json::json!({
                "path": library.path.display().to_string(),
                "sha256": library.sha256,
                "plugin": library.plugin,
            })).collect::<Vec<_>>(),
            "capture": self.capture_extractors.iter().map(|(input, resolved)| {
                let mut value = stage(resolved);
                value["input"] = serde_json::Value::from(input.as_str());
                value
            }).collect::<Vec<_>>(),
            "manifest": {
                "template_rules": self.template_rules,
                "route_forms": self.route_forms.iter().map(stage).collect::<Vec<_>>(),
                "sibling_transfer": self.sibling_transfer,
            },
            "state": {"query_grammars": self.query_grammars.iter().map(stage).collect::<Vec<_>>()},
            "rules": self.rules.iter().map(|rule| {
                let mut value = stage(&rule.stage);
                value["options"] = serde_json::Value::Object(rule.options.clone().into_iter().collect());
                value
            }).collect::<Vec<_>>(),
            "serve": {
                "host": self.serve.host,
                "port": self.serve.port,
                "withheld": self.serve.withheld.name(),
            },
        })
    }
}

/// Reads, parses and resolves a pipeline file, or the default pipeline when `path` is `None`.
/// External libraries are loaded into `registry`.
pub fn load(path: Option<&Path>, registry: &mut Registry) -> Result<Pipeline, PipelineErrors> {
    match path {
        None => {
            let spec = parse(DEFAULT_PIPELINE, DEFAULT_ORIGIN, Path::new("."))?;
            resolve(&spec, registry)
        }
        Some(path) => {
            let origin = path.display().to_string();
            let text = std::fs::read_to_string(path).map_err(|error| {
                PipelineErrors::single(Diagnostic::file(
                    &origin,
                    "pipeline_unreadable",
                    format!("cannot read the pipeline file: {error}"),
                ))
            })?;
            let base = path.parent().unwrap_or_else(|| Path::new("."));
            let spec = parse(&text, &origin, base)?;
            resolve(&spec, registry)
        }
    }
}

/// Loads the spec's libraries into `registry` and checks every stage reference and option,
/// collecting every problem.
pub fn resolve(spec: &PipelineSpec, registry: &mut Registry) -> Result<Pipeline, PipelineErrors> {
    let mut problems = Vec::new();
    let libraries = resolve_libraries(spec, registry, &mut problems);
    let capture_extractors = resolve_capture(spec, registry, &mut problems);
    let route_forms = resolve_route_forms(spec, registry, &mut problems);

    let rules = resolve_rules(spec, registry, &mut problems);
    let query_grammars = resolve_query_grammars(spec, registry, &mut problems);

    if !problems.is_empty() {
        return Err(PipelineErrors(problems));
    }
    Ok(Pipeline {
        origin: spec.origin.clone(),
        libraries,
        capture_extractors,
        template_rules: spec.template_rules.clone(),
        query_grammars,
        route_forms,
        sibling_transfer: spec.sibling_transfer,
        rules,
        serve: spec.serve.clone(),
    })
}

/// The capture stage bound to each input kind; a stage that does not read its binding's input,
/// or is no capture stage, is a problem.
fn resolve_capture(
    spec: &PipelineSpec,
    registry: &Registry,
    problems: &mut Vec<Diagnostic>,
) -> BTreeMap<String, ResolvedStage> {
    let mut capture_extractors = BTreeMap::new();
    for binding in &spec.capture {
        match lookup(registry, &binding.stage, StageKind::Capture) {
            Ok((resolved, inputs)) => {
                if !inputs.iter().any(|input| input == &binding.input) {
                    problems.push(spec.at(
                        binding.position,
                        "stage_input_mismatch",
                        format!(
                            "capture stage `{}` does not read `{}` inputs (it reads: {})",
                            binding.stage,
                            binding.input,
                            list_or_none(&inputs)
                        ),
                    ));
                }
                capture_extractors.insert(binding.input.clone(), resolved);
            }
            Err((code, message)) => problems.push(spec.at(binding.position, code, message)),
        }
    }
    capture_extractors
}

/// The rule stages in listed order with their options; a stage listed twice, unknown, or given
/// an option it does not accept is a problem.
fn resolve_rules(
    spec: &PipelineSpec,
    registry: &Registry,
    problems: &mut Vec<Diagnostic>,
) -> Vec<ResolvedRule> {
    let mut rules = Vec::new();
    let mut listed = std::collections::BTreeSet::new();
    for rule in &spec.rules {
        if !listed.insert(rule.stage.as_str()) {
            problems.push(spec.at(
                rule.position,
                "duplicate_rule_stage",
                format!(
                    "rule stage `{}` is listed twice; each stage runs once, where it is first listed",
                    rule.stage
                ),
            ));
            continue;
        }
        match lookup(registry, &rule.stage, StageKind::Rule) {
            Ok((resolved, _)) => {
                let accepted = registry
                    .stage(&rule.stage)
                    .map(|(_, stage)| stage.options.clone())
                    .unwrap_or_default();
                for (name, position) in &rule.option_positions {
                    if !accepted.iter().any(|option| option == name) {
                        problems.push(spec.at(
                            *position,
                            "unknown_option",
                            format!(
                                "rule stage `{}` has no option `{name}` (it accepts: {})",
                                rule.stage,
                                list_or_none(&accepted)
                            ),
                        ));
                    }
                }
                problems.extend(check_option_values(spec, rule, &accepted, registry));
                rules.push(ResolvedRule {
                    stage: resolved,
                    options: rule.options.clone(),
                });
            }
            Err((code, message)) => problems.push(spec.at(rule.position, code, message)),
        }
    }
    rules
}

/// Loads the spec's plugin libraries into `registry` (each failure a problem at its position).
fn resolve_libraries(
    spec: &PipelineSpec,
    registry: &mut Registry,
    problems: &mut Vec<Diagnostic>,
) -> Vec<ResolvedLibrary> {
    let mut libraries = Vec::new();
    for library in &spec.libraries {
        match registry.load_library(&library.path, library.sha256.as_deref()) {
            Ok(plugin) => libraries.push(ResolvedLibrary {
                path: library.path.clone(),
                sha256: library.sha256.clone(),
                plugin: plugin.name.clone(),
            }),
            Err(error) => problems.push(spec.at(library.position, error.code(), error.to_string())),
        }
    }
    libraries
}

/// The route-form stages `[manifest] route_forms` names, in order (each unknown or other-kind
/// name a problem at its position), or the built-in default where the registry holds it when the
/// pipeline names none (as for query grammars).
fn resolve_route_forms(
    spec: &PipelineSpec,
    registry: &Registry,
    problems: &mut Vec<Diagnostic>,
) -> Vec<ResolvedStage> {
    let named = spec.route_forms.as_deref();
    resolve_stages(
        spec,
        registry,
        problems,
        (named, &DEFAULT_ROUTE_FORMS),
        StageKind::RouteForm,
    )
}

/// The query-grammar stages `[state]` names (each unknown or other-kind name a problem at its
/// position), or the built-in default where the registry holds it when the pipeline names none.
fn resolve_query_grammars(
    spec: &PipelineSpec,
    registry: &Registry,
    problems: &mut Vec<Diagnostic>,
) -> Vec<ResolvedStage> {
    let named = spec.query_grammars.as_deref();
    let defaults = (named, &DEFAULT_QUERY_GRAMMARS[..]);
    resolve_stages(spec, registry, problems, defaults, StageKind::QueryGrammar)
}

/// A stage list as the pipeline file names it (`None`: absent), and the built-in defaults it
/// stands for when absent.
type StageList<'a> = (Option<&'a [(String, usize)]>, &'a [&'a str]);

/// The stages of one kind a stage list names, in order, or its built-in defaults where the
/// registry holds them when the list is absent.
fn resolve_stages(
    spec: &PipelineSpec,
    registry: &Registry,
    problems: &mut Vec<Diagnostic>,
    (named, defaults): StageList<'_>,
    kind: StageKind,
) -> Vec<ResolvedStage> {
    let Some(named) = named else {
        return defaults
            .iter()
            .filter_map(|name| lookup(registry, name, kind).ok())
            .map(|(resolved, _)| resolved)
            .collect();
    };
    let mut resolved = Vec::new();
    for (name, position) in named {
        match lookup(registry, name, kind) {
            Ok((stage, _)) => resolved.push(stage),
            Err((code, message)) => problems.push(spec.at(*position, code, message)),
        }
    }
    resolved
}

/// Asks the rule stage whether the values of its declared options fit (a plugin built before
/// the check answers nothing: its values are checked when it learns). Each problem is placed at
/// the value it names.
fn check_option_values(
    spec: &PipelineSpec,
    rule: &RuleSpec,
    accepted: &[String],
    registry: &Registry,
) -> Vec<Diagnostic> {
    let declared: RawOptions = rule
        .options
        .iter()
        .filter(|(name, _)| accepted.contains(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    match registry.check_rule_options(&rule.stage, &declared) {
        Ok(problems) => problems
            .unwrap_or_default()
            .into_iter()
            .map(|problem| {
                let what = if problem.pointer.is_empty() {
                    "the options".to_owned()
                } else {
                    format!("option `{}`", problem.pointer)
                };
                spec.at(
                    rule.value_position(&problem.pointer),
                    "invalid_option",
                    format!(
                        "rule stage `{}`: {what} does not fit: {}",
                        rule.stage, problem.message
                    ),
                )
            })
            .collect(),
        Err(error) => vec![spec.at(
            rule.position,
            "options_check_failed",
            format!(
                "rule stage `{}` could not check its options: {error}",
                rule.stage
            ),
        )],
    }
}

fn lookup(
    registry: &Registry,
    name: &str,
    kind: StageKind,
) -> Result<(ResolvedStage, Vec<String>), (&'static str, String)> {
    let Some((plugin, stage)) = registry.stage(name) else {
        let known: Vec<String> = registry
            .stages_of_kind(kind)
            .into_iter()
            .map(|(_, stage)| stage.name.clone())
            .collect();
        return Err((
            "unknown_stage",
            format!(
                "no plugin provides a {} stage named `{name}` (known: {})",
                kind.as_str(),
                list_or_none(&known)
            ),
        ));
    };
    if stage.known_kind() != Some(kind) {
        return Err((
            "wrong_stage_kind",
            format!(
                "stage `{name}` of plugin `{}` is a {} stage, not a {} stage",
                plugin.name,
                stage.kind,
                kind.as_str()
            ),
        ));
    }
    Ok((
        ResolvedStage {
            stage: stage.name.clone(),
            plugin: plugin.name.clone(),
            source: plugin.source.display(),
        },
        stage.inputs.clone(),
    ))
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
