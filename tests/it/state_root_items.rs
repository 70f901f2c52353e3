//! Item views of the root collection: an entity whose item path is one segment (`/{name}`: a
//! registry's package document, a document store's database) is held in the collection `/`, and a
//! read naming it answers it from the state, not the missing-entity answer. On two recorded
//! applications (verdaccio's packages, pouchdb-server's databases): every recorded read of such a
//! tool the state checked answers its entity, and a name the state does not hold does not. A write
//! to a path such an item view reads (a publish, `PUT /{name}`) ends the windows of that entity's
//! reads, so the state holds the document as the build read it before the write.

use rea_state::model::ViewDetail;
use serde_json::{Map, Value};

use crate::state_support::{Served, arguments_of, path_parameter, serve_corpus_app as served};

/// The item tool of one-segment paths, its identity field and the records it checked.
fn root_item(served: &Served) -> (String, String, Vec<u64>) {
    let found: Vec<(String, String, Vec<u64>)> = served
        .state()
        .views
        .iter()
        .filter_map(|view| match &view.detail {
            ViewDetail::Item(item)
                if view.path_template.matches('/').count() == 1
                    && view.path_template.starts_with("/{") =>
            {
                Some((
                    view.tool.clone(),
                    item.identity_field.clone(),
                    item.checked_ordinals.clone(),
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "one root item view: {found:?}");
    found.into_iter().next().expect("one")
}

fn check(app: &str, expected_names: &[&str]) -> Served {
    let served = served(app);
    let (tool, identity, checked) = root_item(&served);
    let mut answered = Vec::new();
    for ordinal in checked {
        let record = served
            .records
            .iter()
            .find(|record| record.ordinal == ordinal)
            .expect("a checked record");
        let path = record.path.clone().unwrap_or_default();
        let name = rea_manifest::segments::percent_decode(path.trim_start_matches('/'))
            .expect("UTF-8")
            .into_owned();
        let arguments = arguments_of(&served.replay, &tool, record);
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(!is_error, "{app} {path}: {answer}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{app} {path}: {answer}"
        );
        assert_eq!(
            answer.pointer("/state/view").and_then(Value::as_str),
            Some(path.as_str()),
            "{app} {path}: {answer}"
        );
        assert_eq!(
            answer.get("body").and_then(|body| body.get(&identity)),
            Some(&Value::String(name.clone())),
            "{app} {path} answers its entity from the state: {answer}"
        );
        answered.push(name);
    }
    answered.sort();
    answered.dedup();
    assert_eq!(answered, expected_names, "{app}");
    // A name the state does not hold is not answered with a held entity.
    let mut arguments = Map::new();
    arguments.insert(
        path_parameter(&served, &tool),
        Value::String("no-such-name".to_owned()),
    );
    let (answer, _) = served.call(&tool, arguments);
    let shown = answer
        .pointer(&format!("/body/{identity}"))
        .and_then(Value::as_str);
    assert!(
        shown.is_none_or(|shown| !expected_names.contains(&shown)),
        "{app}: {answer}"
    );
    assert_ne!(
        answer.pointer("/state/view").and_then(Value::as_str),
        Some("/no-such-name"),
        "{app}: {answer}"
    );
    served
}

#[test]
fn a_registry_package_document_is_answered_from_the_state() {
    // left-pad-ng, first read (with the neutral `?write=true`) after the publishes and tag writes
    // of other packages, is held: those writes relate only to the packages their paths name.
    let served = check(
        "verdaccio",
        &["@corp/ui-kit", "date-helpers", "left-pad-ng"],
    );
    // A publish (`PUT /date-helpers`) writes the package document its path names: the state holds
    // the document the build read before it (versions 1.0.0 and 1.1.0, not the published 1.2.0),
    // and no package the build created by a publish.
    let (tool, _, _) = root_item(&served);
    let mut arguments = Map::new();
    arguments.insert(path_parameter(&served, &tool), Value::from("date-helpers"));
    let (answer, _) = served.call(&tool, arguments);
    let versions = answer
        .pointer("/body/versions")
        .and_then(Value::as_object)
        .expect("versions");
    assert_eq!(
        versions.keys().map(String::as_str).collect::<Vec<_>>(),
        vec!["1.0.0", "1.1.0"]
    );
    let mut arguments = Map::new();
    arguments.insert(path_parameter(&served, &tool), Value::from("@corp/icons"));
    let (answer, _) = served.call(&tool, arguments);
    assert_ne!(
        answer.pointer("/body/_id").and_then(Value::as_str),
        Some("@corp/icons"),
        "{answer}"
    );
}

#[test]
fn a_document_store_database_is_answered_from_the_state() {
    let _ = check("pouchdb-server", &["library", "members"]);
}
