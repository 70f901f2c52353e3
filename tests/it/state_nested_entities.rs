//! Nested item entities (`rea_state::nesting`): an item answer whose entity object is an envelope
//! holding the id, members composed from the id, members constant per class or minted per answer,
//! and one object member holding the properties. Roundup's items answer
//! `{"data": {"id", "type", "link", "attributes": {…}, "@etag"}}` while its lists show the same
//! entities flat (`{"id", "link", "title"}`): the state learns `attributes` as the properties
//! member (the keys its lists show beside the id are its keys, not the envelope's), holds each
//! issue as id, link and properties, and renders the item answer back in the recorded envelope,
//! the `@etag` each answer's own. Directus (`{"data": {…}}`, its properties at the entity's top
//! level) and json-server learn no nesting. One app shows the nesting: Roundup.

use rea_manifest::catalog::ArgumentTarget;
use rea_state::model::{ItemView, ViewDetail};
use serde_json::{Map, Value, json};

use crate::state_support::{Served, recorded_answer, serve_corpus_app};

const ISSUE: &str = "get_rt_rest_data_issue_by_id";

fn item_view<'a>(served: &'a Served, tool: &str) -> &'a ItemView {
    served
        .state()
        .views
        .iter()
        .find_map(|view| match &view.detail {
            ViewDetail::Item(item) if view.tool == tool => Some(item),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{tool} is an item view"))
}

fn path_arguments(served: &Served, tool: &str, id: &str) -> Map<String, Value> {
    let definition = served.replay.tool(tool).expect("tool");
    definition
        .input_schema
        .arguments
        .iter()
        .filter(|argument| matches!(argument.target, ArgumentTarget::Path { .. }))
        .map(|argument| (argument.name.clone(), json!(id)))
        .collect()
}

#[test]
fn the_item_view_learns_the_properties_member_and_the_members_beside_it() {
    let served = serve_corpus_app("roundup");
    let item = item_view(&served, ISSUE);
    let nesting = item.nesting.as_ref().expect("a nesting");
    assert_eq!(nesting.properties, "attributes");
    assert_eq!(nesting.lifted, vec!["link".to_owned()]);
    assert!(
        item.per_response_members
            .contains(&"/data/@etag".to_owned()),
        "{:?}",
        item.per_response_members
    );
    assert!(
        !item.per_response_members.contains(&"/data/type".to_owned()),
        "{:?}",
        item.per_response_members
    );
}

#[test]
fn an_issue_is_held_flat_as_its_lists_show_it() {
    let served = serve_corpus_app("roundup");
    let issue = served
        .state()
        .entities
        .iter()
        .find(|entity| entity.entity_type == "/rt/rest/data/issue" && entity.id == "1")
        .expect("issue 1");
    let fields = issue.fields.as_object().expect("an object");
    for member in ["id", "link", "title", "status", "assignedto"] {
        assert!(fields.contains_key(member), "{member}: {:?}", issue.fields);
    }
    for member in ["attributes", "type", "@etag"] {
        assert!(!fields.contains_key(member), "{member}: {:?}", issue.fields);
    }
}

#[test]
fn the_item_answer_is_rendered_in_the_recorded_envelope() {
    let served = serve_corpus_app("roundup");
    let (answer, is_error) = served.call(ISSUE, path_arguments(&served, ISSUE, "1"));
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{answer:#}"
    );
    let record = served
        .records
        .iter()
        .find(|record| {
            record.method.as_deref() == Some("GET")
                && record
                    .path
                    .as_deref()
                    .is_some_and(|path| path.ends_with("/data/issue/1"))
                && record.query.is_none()
        })
        .expect("the build's read of issue 1");
    let (_, recorded) = recorded_answer(record);
    assert_eq!(answer.get("body"), Some(&recorded), "{answer:#}");
}

#[test]
fn entities_at_the_top_of_their_envelope_learn_no_nesting() {
    for app in ["directus", "json-server-v1"] {
        let served = serve_corpus_app(app);
        for view in &served.state().views {
            if let ViewDetail::Item(item) = &view.detail {
                assert!(item.nesting.is_none(), "{app} {}: {item:?}", view.tool);
            }
        }
    }
}
