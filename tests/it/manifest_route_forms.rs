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
        .route_form_stage("fused-affix")
        .expect("the built-in route form");
    let outcome: RouteFormOutcome = stage.apply(&request).expect("the form answers");
    outcome
        .changes
        .iter()
        .map(|change| {
            (
                on_origin[change.route].method.clone().unwrap_or_default(),
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
    assert_eq!(stages, vec!["fused-affix"]);
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
