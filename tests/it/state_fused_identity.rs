//! Fused identities: a row named by several of its members at once (a compound primary key,
//! `/tracker/task_tags/5,release.json`), where no one member echoes the path's key. The row page
//! is an item view of the type its list reads, named `{task_id},{tag}`; a row the state holds
//! is answered from it (the envelope naming the row and each member it fuses), one it does not
//! answers the recorded missing-row 404, and the delete action on the key is served. Datasette
//! only: no other recorded application reads a row by a key fused from several members (the
//! corpus and the shared captures scanned for path segments splitting into several members'
//! texts). Also datasette's insert: the `return` option its batch call sent beside `rows` is
//! accepted beside `row`.

use serde_json::{Map, Value, json};

use crate::state_support;
use state_support::{Served, serve_corpus_app};

fn arguments(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), json!(value)))
        .collect()
}

fn tool_of(served: &Served, method: &str, template: &str) -> String {
    served
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == method && tool.path_template == template)
        .unwrap_or_else(|| panic!("a tool {method} {template}"))
        .name
        .clone()
}

/// A tool's item view: `(type, identity field)`.
fn item_view(served: &Served, tool: &str) -> (String, String) {
    match state_support::view_detail(served, tool) {
        rea_state::model::ViewDetail::Item(item) => {
            (item.entity_type.clone(), item.identity_field.clone())
        }
        other => panic!("{tool} is not an item view: {other:?}"),
    }
}

#[test]
fn a_compound_key_row_page_is_an_item_view_named_by_the_members_it_fuses() {
    let served = serve_corpus_app("datasette");
    let rows = tool_of(&served, "GET", "/tracker/task_tags/{fused-affix}.json");
    let (entity_type, identity) = item_view(&served, &rows);
    assert_eq!(identity, "{task_id},{tag}");
    let list = state_support::list_view(&served, "get_tracker_task_tags_json");
    assert_eq!(list.entity_type, entity_type, "one type for rows and list");
    // 6,infra was listed (tag=infra) but never read by its key: its row page renders from the
    // state, the envelope naming it (`primary_key_values`), not the row it was recorded for.
    let key = rows_key(&served, &rows);
    let (answer, is_error) = served.call(&rows, arguments(&[(&key, "6,infra")]));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(
        answer["body"]["rows"],
        json!([{"task_id": 6, "tag": "infra"}])
    );
    assert_eq!(
        answer["body"]["primary_key_values"],
        json!(["6", "infra"]),
        "{answer}"
    );
    // A key the state does not hold answers the build's missing-row 404.
    let (answer, _) = served.call(&rows, arguments(&[(&key, "1,nope")]));
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["body"]["error"], "Row not found", "{answer}");
}

/// The one path argument of a tool.
fn rows_key(served: &Served, tool: &str) -> String {
    let tool = served
        .manifest
        .tools
        .iter()
        .find(|candidate| candidate.name == tool)
        .expect("the tool");
    match tool.path_parameters.as_slice() {
        [only] => only.name.clone(),
        other => panic!("one path parameter, not {other:?}"),
    }
}

#[test]
fn the_delete_action_on_a_compound_key_is_served() {
    let served = serve_corpus_app("datasette");
    let delete = tool_of(&served, "POST", "/tracker/task_tags/{fused-affix}/-/delete");
    let plan = served.state().write_plan(&delete).cloned().expect("a plan");
    assert!(plan.served, "{:?}", plan.reason);
    let rows = tool_of(&served, "GET", "/tracker/task_tags/{fused-affix}.json");
    let (answer, is_error) = served.call(
        &delete,
        arguments(&[(&rows_key(&served, &delete), "12,infra")]),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], json!({"ok": true}), "{answer}");
    let (after, _) = served.call(&rows, arguments(&[(&rows_key(&served, &rows), "12,infra")]));
    assert_eq!(after["status"], 404, "{after}");
    // The other rows of task 12's tag and of tag infra stay.
    let (kept, _) = served.call(&rows, arguments(&[(&rows_key(&served, &rows), "2,infra")]));
    assert_eq!(kept["body"]["rows"][0]["task_id"], 2, "{kept}");
}

#[test]
fn a_batch_option_is_accepted_beside_the_one_row_envelope() {
    // The build sent `return: true` beside `rows` (one batch) and nothing beside `row`: the
    // option is the body's, so a one-row insert may send it, answered as the one-row calls were.
    let served = serve_corpus_app("datasette");
    let insert = tool_of(&served, "POST", "/tracker/{prefix-variance}/-/insert");
    let plan = served.state().write_plan(&insert).cloned().expect("a plan");
    let body = plan.body.as_ref().expect("a body model");
    assert_eq!(body.envelope, "/row");
    assert_eq!(body.options.keys().collect::<Vec<_>>(), vec!["return"]);
    let mut sent = arguments(&[("tracker_id", "tasks")]);
    sent.insert(
        "body".into(),
        json!({"row": {"title": "Plan the retro", "project": "OPS"}, "return": true}),
    );
    let (answer, is_error) = served.call(&insert, sent);
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer["body"]["rows"][0]["title"], "Plan the retro",
        "{answer}"
    );
    assert_eq!(answer["body"]["rows"][0]["status"], "todo", "{answer}");
    // An option the build never sent beside either form is still refused.
    let mut sent = arguments(&[("tracker_id", "tasks")]);
    sent.insert(
        "body".into(),
        json!({"row": {"title": "Plan the retro"}, "replace": true}),
    );
    let (answer, is_error) = served.call(&insert, sent);
    assert!(is_error, "{answer}");
}
