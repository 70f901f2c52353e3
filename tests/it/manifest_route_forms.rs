//! Route forms on real recordings: the built-in `fused-affix` stage, called through the registry
//! (the one code path of built-in and loaded plugins) with the request the manifest builds from a
//! recorded build capture, proposes one parameter for ids fused with literal text.

use std::path::PathBuf;

use rea_manifest::projection::primary_origin_of;
use rea_manifest::route_forms::route_form_request;
use rea_plugin_api::StageKind;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::contracts::route::RouteFormOutcome;

use crate::state_support::capture_file;

fn corpus_build(app: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/apps")
        .join(app)
        .join("build.har")
}

/// The primary origin's records of an app's build capture and what `fused-affix` proposes for
/// them, as `(method, path, placeholder)` per change.
fn fused_changes(app: &str) -> Vec<(String, String, String)> {
    corpus_form_changes(app, "fused-affix")
}

/// What a built-in route form stage, called through the registry, proposes for the primary
/// origin's records of an app's build capture, as `(method, path, placeholder)` per change.
pub(crate) fn corpus_form_changes(app: &str, form: &str) -> Vec<(String, String, String)> {
    let evidence = capture_file(&corpus_build(app));
    let records: Vec<CaptureRecord> =
        rea_evidence::capture::capture_records(&evidence).expect("records");
    let origin = primary_origin_of(&records).expect("a primary origin");
    let on_origin: Vec<&CaptureRecord> = records
        .iter()
        .filter(|record| record.origin.as_deref() == Some(origin.as_str()))
        .filter(|record| record.path.is_some() && record.method.is_some())
        .collect();
    let paths: Vec<&str> = on_origin
        .iter()
        .map(|record| record.path.as_deref().unwrap_or_default())
        .collect();
    let request = route_form_request(&on_origin, &paths);
    let registry = rea::builtin_registry().expect("registry");
    let stage = registry
        .route_form_stage(form)
        .expect("the built-in route form");
    let outcome: RouteFormOutcome = stage.apply(&request).expect("the form answers");
    outcome
        .changes
        .iter()
        .map(|change| {
            (
                on_origin[change.route]
                    .method
                    .as_deref()
                    .unwrap_or_default()
                    .to_owned(),
                paths[change.route].to_owned(),
                change.form.placeholder(),
            )
        })
        .collect()
}

#[test]
fn the_built_in_route_form_is_a_route_form_stage() {
    let registry = rea::builtin_registry().expect("registry");
    let stages: Vec<&str> = registry
        .stages_of_kind(StageKind::RouteForm)
        .into_iter()
        .map(|(_, stage)| stage.name.as_str())
        .collect();
    assert_eq!(
        stages,
        vec!["folder-tree", "fused-affix", "listed-id", "member-key"]
    );
    assert!(
        registry.rule_stage("fused-affix").is_err(),
        "a route form is no rule stage"
    );
}

#[test]
fn row_ids_fused_with_a_suffix_are_one_parameter() {
    let changes = fused_changes("datasette");
    let rows: Vec<&(String, String, String)> = changes
        .iter()
        .filter(|(_, path, _)| path.starts_with("/tracker/tasks/") && path.ends_with(".json"))
        .collect();
    assert!(!rows.is_empty(), "{changes:#?}");
    for (_, path, placeholder) in &rows {
        assert_eq!(placeholder, "{numeric}.json", "{path}");
    }
    assert!(
        changes
            .iter()
            .all(|(_, path, _)| !path.ends_with("/tracker.json")),
        "a database name alone is no fused id: {changes:#?}"
    );
}

#[test]
fn names_and_versions_fused_in_one_segment_are_one_parameter() {
    let changes = fused_changes("verdaccio");
    assert!(!changes.is_empty());
    let tarballs: Vec<&(String, String, String)> = changes
        .iter()
        .filter(|(_, path, _)| path.ends_with(".tgz"))
        .collect();
    assert!(!tarballs.is_empty(), "{changes:#?}");
    for (_, path, placeholder) in tarballs {
        assert!(
            placeholder.ends_with(".tgz") && placeholder.contains('{'),
            "{path}: {placeholder}"
        );
    }
    let users: Vec<&str> = changes
        .iter()
        .filter(|(_, path, _)| path.starts_with("/-/user/"))
        .map(|(_, _, placeholder)| placeholder.as_str())
        .collect();
    assert!(!users.is_empty(), "{changes:#?}");
    assert!(
        users
            .iter()
            .all(|placeholder| *placeholder == "org.couchdb.user:{fused-affix}"),
        "{users:?}"
    );
}

#[test]
fn namespaced_document_ids_are_one_parameter() {
    let changes = fused_changes("pouchdb-server");
    let placeholders: std::collections::BTreeSet<&str> = changes
        .iter()
        .map(|(_, _, placeholder)| placeholder.as_str())
        .collect();
    assert!(placeholders.contains("member:{numeric}"), "{changes:#?}");
    assert!(placeholders.contains("loan:{numeric}"), "{changes:#?}");
}

/// On every corpus recording, no proposed literal part is itself shaped like an id (a revision
/// hash, a version's numbers) and no word joined by `-` or `_` alone is cut from its name.
#[test]
fn no_form_keeps_an_id_as_literal_text_on_any_corpus_recording() {
    let apps = [
        "datasette",
        "directus",
        "etcd",
        "flexget",
        "json-server-v1",
        "jupyter_server",
        "optuna_dashboard",
        "pouchdb-server",
        "verdaccio",
    ];
    let mut proposed = 0;
    for app in apps {
        for (method, path, placeholder) in fused_changes(app) {
            proposed += 1;
            let literal = placeholder.replace(['{', '}'], " ");
            for part in literal.split(|c: char| !c.is_ascii_alphanumeric()) {
                assert!(
                    rea_plugin_api::route_fields::format_rule(part).is_none(),
                    "{app}: {method} {path} -> {placeholder}"
                );
            }
            assert!(
                !placeholder.contains("}_") && !placeholder.starts_with("_"),
                "{app}: {method} {path} -> {placeholder}"
            );
        }
    }
    assert!(proposed > 0, "the corpus shows fused ids");
}

/// The tool of an app's default build whose template is `template`, with its one fused
/// parameter, served from the state (and in replay).
fn fused_tool(
    app: &str,
    template: &str,
) -> (
    crate::state_support::Served,
    String,
    rea_manifest::PathParameter,
) {
    let served = crate::state_support::serve_evidence(
        capture_file(&corpus_build(app)),
        crate::state_support::state_rules(),
        Default::default(),
    );
    assert_eq!(
        served.manifest.route_forms,
        vec!["folder-tree", "fused-affix", "listed-id", "member-key"]
    );
    let tool = served
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == "GET" && tool.path_template == template)
        .unwrap_or_else(|| {
            let templates: Vec<&str> = served
                .manifest
                .tools
                .iter()
                .map(|tool| tool.path_template.as_str())
                .collect();
            panic!("{app}: no GET {template}: {templates:#?}")
        });
    let fused: Vec<&rea_manifest::PathParameter> = tool
        .path_parameters
        .iter()
        .filter(|parameter| parameter.is_fused())
        .collect();
    assert_eq!(fused.len(), 1, "{app}: {template}");
    let (name, parameter) = (tool.name.clone(), fused[0].clone());
    (served, name, parameter)
}

/// The arguments naming `value` for the fused parameter and each other path parameter's first
/// observed value.
fn arguments_for(
    served: &crate::state_support::Served,
    tool: &str,
    value: &str,
) -> serde_json::Map<String, serde_json::Value> {
    let definition = served
        .replay
        .tools()
        .iter()
        .find(|definition| definition.name == tool)
        .expect("the tool's definition");
    let manifest_tool = served.manifest.tool(tool).expect("the tool");
    let mut arguments = serde_json::Map::new();
    for argument in &definition.input_schema.arguments {
        let rea_manifest::catalog::ArgumentTarget::Path { segment_index, .. } = &argument.target
        else {
            continue;
        };
        let parameter = manifest_tool
            .path_parameter(*segment_index)
            .expect("a path parameter");
        let given = if parameter.is_fused() {
            value.to_owned()
        } else {
            parameter.observed_values[0].to_string()
        };
        arguments.insert(argument.name.clone(), serde_json::Value::String(given));
    }
    arguments
}

/// A fused tool on a real recording: one tool for every id, whose argument is the value alone;
/// replay puts the literal text back (the recorded id matches exactly), and an id the recording
/// never read is answered from the state or refused, never as another id's recording.
fn check_fused_tool(app: &str, template: &str, prefix: &str, suffix: &str, unrecorded: &str) {
    let (served, tool, parameter) = fused_tool(app, template);
    assert_eq!(
        (parameter.prefix.as_str(), parameter.suffix.as_str()),
        (prefix, suffix)
    );
    assert!(parameter.observed_values.len() >= 2, "{parameter:?}");
    for value in &parameter.observed_values {
        assert!(
            !value.starts_with(prefix) || prefix.is_empty(),
            "observed values are the values alone: {value}"
        );
        let answer = served
            .replay
            .answer(&tool, &arguments_for(&served, &tool, value))
            .expect("replay answers");
        assert!(answer.replay.exact_match, "{app} {tool} {value}");
        assert!(
            answer
                .replay
                .recorded_path
                .contains(&parameter.segment_for(value)),
            "{}",
            answer.replay.recorded_path
        );
    }
    let (answer, is_error) = served.call(&tool, arguments_for(&served, &tool, unrecorded));
    let exact = answer
        .pointer("/replay/exact_match")
        .and_then(serde_json::Value::as_bool);
    assert!(
        is_error || exact != Some(false) || answer["state"]["source"] != "recording",
        "{app} {tool} {unrecorded}: {answer}"
    );
}

#[test]
fn a_row_id_fused_with_json_is_one_tool_on_datasette() {
    check_fused_tool(
        "datasette",
        "/tracker/{prefix-variance}/{numeric}.json",
        "",
        ".json",
        "999",
    );
}

#[test]
fn a_user_name_after_a_namespace_is_one_tool_on_verdaccio() {
    check_fused_tool(
        "verdaccio",
        "/-/user/org.couchdb.user:{fused-affix}",
        "org.couchdb.user:",
        "",
        "zed",
    );
}

#[test]
fn an_absent_route_form_list_runs_the_built_in_default_and_an_empty_one_none() {
    let mut registry = rea::builtin_registry().expect("registry");
    let forms = |text: &str, registry: &mut rea_registry::Registry| -> Vec<String> {
        let spec = rea_pipeline::parse(text, "p.toml", std::path::Path::new(".")).expect("parses");
        rea_pipeline::resolve(&spec, registry)
            .expect("resolves")
            .route_forms
            .iter()
            .map(|stage| stage.stage.clone())
            .collect()
    };
    // As `[state] query_grammars`: absent runs the built-in default, `[]` runs none.
    assert_eq!(
        forms(
            "[manifest]\ntemplate_rules = [\"after-uid-literal\"]\n",
            &mut registry
        ),
        vec!["folder-tree", "fused-affix", "listed-id", "member-key"]
    );
    assert_eq!(
        forms("", &mut registry),
        vec!["folder-tree", "fused-affix", "listed-id", "member-key"]
    );
    assert!(forms("[manifest]\nroute_forms = []\n", &mut registry).is_empty());
}
