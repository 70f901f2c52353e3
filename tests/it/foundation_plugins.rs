//! The plugin frame end to end: loading libraries by path through the registry and pipelines, and
//! every refusal with a fixture library.

use std::path::{Path, PathBuf};

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::rule::{
    ApplyRequest, Effect, LearnOutcome, LearnRequest, NoOptions, ObservedCall, ObservedRead,
    ReadKind, ServedCall, ToolRef,
};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use rea_registry::{PluginSource, Registry, RegistryError};
use rea_tests::{built_library, run_rea};

fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

fn example_plugin() -> PathBuf {
    built_library("rea_example_revision_counter")
}

fn write_pipeline(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("pipeline.toml");
    std::fs::write(&path, text).expect("pipeline written");
    path
}

fn toml_path(path: &Path) -> String {
    path.display().to_string().replace('\\', "\\\\")
}

fn tool() -> ToolRef {
    ToolRef {
        method: "PATCH".to_owned(),
        name: "patch_notes_by_id".to_owned(),
        path_template: "/notes/{id}".to_owned(),
    }
}

fn learn_request() -> LearnRequest {
    LearnRequest {
        calls: vec![ObservedCall {
            entity_before: Some(serde_json::json!({"id": 1, "title": "a", "version": 1})),
            path_params: vec!["1".to_owned()],
            reads_after: vec![ObservedRead {
                entity: Some(serde_json::json!({"id": 1, "title": "b", "version": 2})),
                list_order: None,
                query_sorted: false,
                kind: ReadKind::Item,
                record_ordinal: 3,
                status: 200,
                ..Default::default()
            }],
            record_ordinal: 2,
            request_body: Some(serde_json::json!({"title": "b"})),
            response_body: None,
            response_status: 200,
            started: None,
            ..Default::default()
        }],
        clock_anchors: Vec::new(),
        effect: Effect::Update,
        identity_field: Some("id".to_owned()),
        options: Default::default(),
        schema_version: SCHEMA_VERSION,
        tool: tool(),
    }
}

#[test]
fn the_third_party_plugin_loads_through_a_pipeline_file_and_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = example_plugin();
    let pipeline = write_pipeline(
        dir.path(),
        &format!(
            "[[plugins]]\npath = \"{}\"\n\n[capture.extractors]\nhar = \"har\"\n\n[[rules]]\nstage = \"revision-counter\"\noptions = {{ fields = [\"version\"] }}\n",
            toml_path(&library)
        ),
    );
    let mut registry = rea::builtin_registry().expect("built-ins");
    let resolved = rea_pipeline::load(Some(&pipeline), &mut registry).expect("valid pipeline");
    assert_eq!(resolved.rules.len(), 1);
    assert_eq!(resolved.rules[0].stage.plugin, "example-revision-counter");
    assert_eq!(
        resolved.rules[0].stage.source,
        library.display().to_string()
    );

    let rule = registry.rule_stage("revision-counter").expect("rule stage");
    let outcome = rule.learn(&learn_request()).expect("learns");
    let LearnOutcome::Learned {
        explains,
        rule: learned,
        ..
    } = outcome
    else {
        panic!("expected a learned rule, got {outcome:?}");
    };
    assert_eq!(explains, vec!["/version"]);
    let applied = rule
        .apply(&ApplyRequest {
            call: ServedCall {
                body: Some(serde_json::json!({"title": "c"})),
                clock: None,
                entity_before: Some(serde_json::json!({"id": 1, "version": 7})),
                earlier: Default::default(),
                held_values: Default::default(),
                held: Default::default(),
                path_params: vec!["1".to_owned()],
                state_evidence_id: "ev_test".to_owned(),
                draw_seed: String::new(),
                store_counters: Default::default(),
                write_count: 0,
                refused_before: Vec::new(),
            },
            rule: learned,
            schema_version: SCHEMA_VERSION,
            tool: tool(),
        })
        .expect("applies");
    assert_eq!(applied.set.get("/version"), Some(&serde_json::json!(8)));
}

#[test]
fn rea_plugins_lists_builtins_and_a_library_with_its_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = example_plugin();
    let run = run_rea(
        &rea(),
        dir.path(),
        &[
            "plugins",
            "--json",
            "--plugin",
            &library.display().to_string(),
        ],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let plugins: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let plugins = plugins.as_array().expect("array");
    let names: Vec<&str> = plugins.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "plugins are listed in name order");
    let har = plugins
        .iter()
        .find(|p| p["name"] == "har")
        .expect("har listed");
    assert_eq!(har["source"], "builtin");
    assert_eq!(har["api_version"], rea_plugin_api::API_VERSION);
    assert_eq!(har["stages"][0]["kind"], "capture");
    let example = plugins
        .iter()
        .find(|p| p["name"] == "example-revision-counter")
        .expect("example listed");
    assert_eq!(example["source"], library.display().to_string());
    assert_eq!(example["stages"][0]["name"], "revision-counter");
    for member in ["name", "version", "api_version", "stages", "source"] {
        assert!(example.get(member).is_some(), "member {member}");
    }
}

#[test]
fn a_missing_file_is_refused_naming_it() {
    let mut registry = Registry::empty();
    let path = PathBuf::from("/nonexistent/librea_nothing.so");
    let error = registry.load_library(&path, None).expect_err("refused");
    assert!(
        matches!(error, RegistryError::MissingFile { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("/nonexistent/librea_nothing.so"));
}

#[test]
fn a_library_that_is_not_a_plugin_is_refused() {
    let mut registry = Registry::empty();
    let path = built_library("rea_fixture_not_a_plugin");
    let error = registry.load_library(&path, None).expect_err("refused");
    assert!(
        matches!(error, RegistryError::NotAPlugin { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains(&path.display().to_string()));
    assert!(error.to_string().contains("not a rea plugin"));
}

#[test]
fn a_file_that_is_not_a_library_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("librea_text.so");
    std::fs::write(&path, "this is text, not ELF").expect("written");
    let mut registry = Registry::empty();
    let error = registry.load_library(&path, None).expect_err("refused");
    assert!(
        matches!(error, RegistryError::NotAPlugin { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("not a loadable shared library"));
}

#[test]
fn an_abi_layout_mismatch_is_refused_in_one_line() {
    let mut registry = Registry::empty();
    let path = built_library("rea_fixture_layout_mismatch");
    let error = registry.load_library(&path, None).expect_err("refused");
    assert!(
        matches!(error, RegistryError::LayoutMismatch { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()));
    assert_eq!(message.lines().count(), 1, "one line: {message}");
}

#[test]
fn an_incompatible_api_version_is_refused_naming_both_versions() {
    let mut registry = Registry::empty();
    let path = built_library("rea_fixture_incompatible_api");
    let error = registry.load_library(&path, None).expect_err("refused");
    assert!(
        matches!(error, RegistryError::IncompatibleApiVersion { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("9.0.0"), "{message}");
    assert!(message.contains(rea_plugin_api::API_VERSION), "{message}");
    assert!(message.contains(&path.display().to_string()), "{message}");
}

#[test]
fn a_panicking_stage_returns_an_error_and_the_host_still_answers() {
    let mut registry = Registry::empty();
    let path = built_library("rea_fixture_panicking_stage");
    registry.load_library(&path, None).expect("loads");
    let stage = registry.rule_stage("fixture-panics").expect("stage");
    let error = stage
        .learn(&learn_request())
        .expect_err("the panic is an error");
    let plugin_error = error.plugin_error().expect("a plugin error");
    assert_eq!(plugin_error.code.as_str(), PluginError::PANICKED);
    assert!(plugin_error.message.as_str().contains("fixture panic"));
    // The same stage, and the host, keep answering.
    let applied = stage.apply(&ApplyRequest {
        call: ServedCall {
            body: None,
            clock: None,
            entity_before: None,
            earlier: Default::default(),
            held_values: Default::default(),
            held: Default::default(),
            path_params: Vec::new(),
            state_evidence_id: "ev_test".to_owned(),
            draw_seed: String::new(),
            store_counters: Default::default(),
            write_count: 0,
            refused_before: Vec::new(),
        },
        rule: serde_json::json!({}),
        schema_version: SCHEMA_VERSION,
        tool: tool(),
    });
    assert!(applied.is_ok(), "{applied:?}");
    assert!(registry.plugin("fixture-panicking-stage").is_some());
}

#[test]
fn a_pinned_sha256_that_does_not_match_is_refused_before_loading() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = example_plugin();
    let wrong = "0".repeat(64);
    let pipeline = write_pipeline(
        dir.path(),
        &format!(
            "[[plugins]]\npath = \"{}\"\nsha256 = \"{wrong}\"\n",
            toml_path(&library)
        ),
    );
    let mut registry = Registry::empty();
    let errors = rea_pipeline::load(Some(&pipeline), &mut registry).expect_err("refused");
    assert_eq!(errors.0.len(), 1);
    assert_eq!(errors.0[0].code, "plugin_checksum_mismatch");
    assert_eq!(errors.0[0].line, Some(2));
    assert!(errors.0[0].message.contains(&wrong));
    assert!(
        registry.plugin("example-revision-counter").is_none(),
        "nothing loaded"
    );
}

#[test]
fn a_matching_sha256_pin_loads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = example_plugin();
    let mut plain = Registry::empty();
    let PluginSource::Library { sha256, .. } = plain
        .load_library(&library, None)
        .expect("loads")
        .source
        .clone()
    else {
        panic!("a library source");
    };
    let pipeline = write_pipeline(
        dir.path(),
        &format!(
            "[[plugins]]\npath = \"{}\"\nsha256 = \"{}\"\n",
            toml_path(&library),
            sha256.to_uppercase()
        ),
    );
    let mut registry = Registry::empty();
    rea_pipeline::load(Some(&pipeline), &mut registry).expect("valid");
    assert!(registry.plugin("example-revision-counter").is_some());
}

#[test]
fn the_same_plugin_twice_is_a_duplicate() {
    let mut registry = Registry::empty();
    let library = example_plugin();
    registry.load_library(&library, None).expect("loads");
    let error = registry.load_library(&library, None).expect_err("refused");
    assert!(
        matches!(error, RegistryError::DuplicatePlugin { .. }),
        "{error:?}"
    );
}

struct Inert;

impl StateRule for Inert {
    type Options = NoOptions;
    type Rule = serde_json::Value;

    fn learn(&self, _: &LearnRequest<NoOptions>) -> Result<LearnOutcome, PluginError> {
        Ok(LearnOutcome::NoExplanation {
            reason: "inert".to_owned(),
            schema_version: SCHEMA_VERSION,
        })
    }
    fn apply(
        &self,
        _: &ApplyRequest,
    ) -> Result<rea_plugin_api::contracts::rule::ApplyOutcome, PluginError> {
        Err(PluginError::new("inert", "inert"))
    }
}

rea_plugin_api::plugin_root_module! {
    fn shadowing_module() = Plugin::new("shadowing", "1.0.0")
        .rule(StageInfo::new("revision-counter", "Claims the example's stage name"), Inert);
}

#[test]
fn two_plugins_with_the_same_stage_name_are_refused() {
    let mut registry = Registry::empty();
    registry
        .load_library(example_plugin(), None)
        .expect("loads");
    let error = registry
        .admit(shadowing_module(), PluginSource::Builtin)
        .expect_err("refused");
    match error {
        RegistryError::DuplicateStage {
            stage,
            existing_plugin,
            ..
        } => {
            assert_eq!(stage, "revision-counter");
            assert_eq!(existing_plugin, "example-revision-counter");
        }
        other => panic!("expected a duplicate stage, got {other:?}"),
    }
    assert!(registry.plugin("shadowing").is_none());
}

#[test]
fn pipeline_check_reports_every_mistake_with_its_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pipeline = write_pipeline(
        dir.path(),
        "[capture.extractors]\nhar = \"no-such-extractor\"\n\n[manifest]\ntemplate_rules = [\"opaque-token\", \"opaque-token\"]\n\n[[rules]]\nstage = \"har\"\n\n[serve]\nport = 70000\ncolour = \"blue\"\n",
    );
    let run = run_rea(
        &rea(),
        dir.path(),
        &["pipeline", "check", &pipeline.display().to_string()],
    );
    assert_eq!(run.code, Some(2), "stdout: {}", run.stdout);
    assert!(run.stdout.is_empty(), "nothing on stdout");
    let lines: Vec<&str> = run.stderr.lines().collect();
    // Shape problems are found while parsing, all at once: the repeated rule, the port, the key.
    assert_eq!(lines.len(), 3, "{}", run.stderr);
    assert!(
        lines[0].contains("pipeline.toml:5:35:") && lines[0].contains("named twice"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("pipeline.toml:11:8:") && lines[1].contains("65535"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains("pipeline.toml:12:1:") && lines[2].contains("colour"),
        "{}",
        lines[2]
    );

    // Once the shape is right, every unresolved reference is reported together.
    let pipeline = write_pipeline(
        dir.path(),
        "[capture.extractors]\nhar = \"no-such-extractor\"\n\n[[rules]]\nstage = \"har\"\n\n[[rules]]\nstage = \"missing-rule\"\n",
    );
    let run = run_rea(
        &rea(),
        dir.path(),
        &[
            "pipeline",
            "check",
            &pipeline.display().to_string(),
            "--json",
        ],
    );
    assert_eq!(run.code, Some(2));
    let problems: Vec<serde_json::Value> = run
        .stderr
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line per problem"))
        .collect();
    let codes: Vec<(&str, i64)> = problems
        .iter()
        .map(|p| {
            (
                p["code"].as_str().unwrap_or(""),
                p["data"]["line"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            ("unknown_stage", 2),
            ("wrong_stage_kind", 5),
            ("unknown_stage", 8)
        ]
    );
    assert!(problems.iter().all(|p| p["category"] == "configuration"));
}

#[test]
fn pipeline_check_prints_the_resolved_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = example_plugin();
    let pipeline = write_pipeline(
        dir.path(),
        &format!(
            "[[plugins]]\npath = \"{}\"\n\n[capture.extractors]\nhar = \"har\"\n\n[manifest]\ntemplate_rules = [\"sibling-variance\", \"after-uid-literal\"]\n\n[[rules]]\nstage = \"revision-counter\"\noptions = {{ fields = [\"version\"] }}\n\n[serve]\nport = 8765\n",
            toml_path(&library)
        ),
    );
    let run = run_rea(
        &rea(),
        dir.path(),
        &[
            "pipeline",
            "check",
            &pipeline.display().to_string(),
            "--json",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let chain: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(chain["capture"][0]["stage"], "har");
    assert_eq!(chain["capture"][0]["source"], "builtin");
    assert_eq!(
        chain["manifest"]["template_rules"],
        serde_json::json!(["after-uid-literal", "sibling-variance"])
    );
    assert_eq!(chain["rules"][0]["stage"], "revision-counter");
    assert_eq!(chain["rules"][0]["plugin"], "example-revision-counter");
    assert_eq!(chain["rules"][0]["options"]["fields"][0], "version");
    assert_eq!(chain["serve"]["port"], 8765);
}

#[test]
fn an_option_the_stage_does_not_declare_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pipeline = write_pipeline(
        dir.path(),
        &format!(
            "[[plugins]]\npath = \"{}\"\n\n[[rules]]\nstage = \"revision-counter\"\noptions = {{ field = \"version\" }}\n",
            toml_path(&example_plugin())
        ),
    );
    let mut registry = Registry::empty();
    let errors = rea_pipeline::load(Some(&pipeline), &mut registry).expect_err("refused");
    assert_eq!(errors.0.len(), 1);
    assert_eq!(errors.0[0].code, "unknown_option");
    assert_eq!((errors.0[0].line, errors.0[0].column), (Some(6), Some(13)));
}

#[test]
fn an_option_value_that_does_not_fit_is_refused_at_its_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pipeline = write_pipeline(
        dir.path(),
        &format!(
            "[[plugins]]\npath = \"{}\"\n\n[[rules]]\nstage = \"revision-counter\"\noptions = {{ fields = [\"version\", 7] }}\n\n[[rules]]\nstage = \"soft-delete\"\noptions = {{ flags = \"deleted\" }}\n",
            toml_path(&example_plugin())
        ),
    );
    let mut registry = Registry::with_builtins().expect("built-ins");
    let errors = rea_pipeline::load(Some(&pipeline), &mut registry).expect_err("refused");
    let found: Vec<(&str, Option<usize>, Option<usize>)> = errors
        .0
        .iter()
        .map(|problem| (problem.code.as_str(), problem.line, problem.column))
        .collect();
    // The number inside the list, and the string where the list belongs.
    assert_eq!(
        found,
        [
            ("invalid_option", Some(6), Some(34)),
            ("invalid_option", Some(10), Some(21)),
        ],
        "{errors:?}"
    );
    assert!(
        errors.0[0].message.contains("/fields/1"),
        "{}",
        errors.0[0].message
    );
    // The same refusal from `rea pipeline check`, and a pipeline whose values fit passes.
    let run = run_rea(
        &rea(),
        dir.path(),
        &["pipeline", "check", &pipeline.display().to_string()],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("invalid_option"), "{}", run.stderr);
    let fitting = write_pipeline(
        dir.path(),
        &format!(
            "[[plugins]]\npath = \"{}\"\n\n[[rules]]\nstage = \"revision-counter\"\noptions = {{ fields = [\"version\"] }}\n",
            toml_path(&example_plugin())
        ),
    );
    let mut registry = Registry::empty();
    rea_pipeline::load(Some(&fitting), &mut registry).expect("fits");
}

#[test]
fn the_default_pipeline_is_valid() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = run_rea(&rea(), dir.path(), &["pipeline", "check"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("capture har -> har (har, builtin)"),
        "{}",
        run.stdout
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = run_rea(&rea(), dir.path(), &["plugins", "--no-such-flag"]);
    assert_eq!(run.code, Some(2));
    let run = run_rea(&rea(), dir.path(), &["--version"]);
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.starts_with("rea "), "{}", run.stdout);
}
