//! Unit tests of extraction and serving on small hand-made captures: one per view kind, query
//! role and rule the reference names.

use rea_manifest::{Environment, TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordQuery, RecordRequest, RecordResponse,
};
use serde_json::{Map, Value, json};

use crate::model::{Membership, QueryRole, StateView, ViewDetail};
use crate::service::StateService;

const ORIGIN: &str = "http://127.0.0.1:3000";

/// A record: `GET /path?query` answering `status` with a JSON `body`.
pub(crate) fn record(
    ordinal: u64,
    method: &str,
    target: &str,
    status: u16,
    body: Value,
) -> CaptureRecord {
    let (path, query) = match target.split_once('?') {
        Some((path, raw)) => (
            path.to_owned(),
            Some(RecordQuery {
                pairs: raw
                    .split('&')
                    .map(|pair| {
                        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                        Some((name.to_owned(), value.replace("%2C", ",")))
                    })
                    .collect(),
                raw: Some(raw.into()),
            }),
        ),
        None => (target.to_owned(), None),
    };
    let (text, media_type) = match &body {
        Value::String(text) if text.starts_with('<') => (text.clone(), "text/html"),
        Value::Null => (String::new(), "application/json"),
        other => (other.to_string(), "application/json"),
    };
    CaptureRecord {
        duration_ms: Some(5.0),
        method: Some(method.into()),
        ordinal,
        origin: Some(ORIGIN.into()),
        path: Some(path.into()),
        pointer: format!("/log/entries/{ordinal}").into(),
        query,
        request: RecordRequest {
            body: Body::Missing,
            headers: Vec::new(),
            http_version: Some("HTTP/1.1".into()),
            media_type: None,
        },
        response: RecordResponse {
            body: Body::Text { text: text.into() },
            headers: Vec::new(),
            http_version: Some("HTTP/1.1".into()),
            media_type: Some(media_type.into()),
            status,
            status_text: None,
        },
        started: Some(crate::test_support::started_at(ordinal)),
        url: Some(format!("{ORIGIN}{target}").into()),
    }
}

pub(crate) struct Fixture {
    pub(crate) state: StateView,
    pub(crate) service: StateService,
    pub(crate) manifest: rea_manifest::Manifest,
}

pub(crate) fn derive(records: Vec<CaptureRecord>) -> Fixture {
    derive_with(
        records,
        TemplateRules::parse(&["sibling-variance", "prefix-variance"]).unwrap(),
    )
}

/// [`derive`] with the built-in route form `fused-affix` run after the template rules.
fn derive_fused(records: Vec<CaptureRecord>) -> Fixture {
    use rea_plugin_route_forms as _;
    let registry = rea_registry::Registry::with_builtins().unwrap();
    let form = registry.route_form_stage("fused-affix").unwrap();
    derive_with(
        records,
        TemplateRules::parse(&["sibling-variance", "prefix-variance"])
            .unwrap()
            .with_route_forms(vec![std::sync::Arc::new(form)]),
    )
}

fn derive_with(records: Vec<CaptureRecord>, rules: TemplateRules) -> Fixture {
    derive_with_rules(records, rules, crate::rules::RuleSet::empty())
}

/// [`derive`] with these state rules (query grammars, rule stages).
pub(crate) fn derive_with_state_rules(
    records: Vec<CaptureRecord>,
    state_rules: crate::rules::RuleSet,
) -> Fixture {
    derive_with_rules(
        records,
        TemplateRules::parse(&["sibling-variance", "prefix-variance"]).unwrap(),
        state_rules,
    )
}

fn derive_with_rules(
    records: Vec<CaptureRecord>,
    rules: TemplateRules,
    state_rules: crate::rules::RuleSet,
) -> Fixture {
    let manifest = project_manifest("ev_capture", &records, &rules).unwrap();
    let state =
        crate::derive::derive_state(&manifest, "ev_manifest", &records, &state_rules).unwrap();
    let environment = Environment::new(&manifest, "ev_capture", records.clone()).unwrap();
    let service = StateService::new(
        state.clone(),
        "ev_state".to_owned(),
        environment,
        &records,
        std::sync::Arc::new(state_rules),
    );
    Fixture {
        state,
        service,
        manifest,
    }
}

impl Fixture {
    /// The tool of a method and template, and its path parameter's argument name.
    pub(crate) fn tool(&self, template: &str) -> (String, String) {
        let tool = self
            .manifest
            .tools
            .iter()
            .find(|tool| tool.path_template == template)
            .unwrap_or_else(|| {
                panic!(
                    "no tool {template}: {:?}",
                    self.manifest
                        .tools
                        .iter()
                        .map(|tool| &tool.path_template)
                        .collect::<Vec<_>>()
                )
            });
        let argument = tool
            .path_parameters
            .last()
            .map(|parameter| parameter.name.clone())
            .unwrap_or_default();
        (tool.name.clone(), argument)
    }

    pub(crate) fn view(&self, tool: &str) -> &ViewDetail {
        &self
            .state
            .view(tool)
            .unwrap_or_else(|| panic!("no view {tool}"))
            .detail
    }

    pub(crate) fn call(&self, tool: &str, arguments: Value) -> Value {
        let Value::Object(arguments) = arguments else {
            panic!("arguments")
        };
        let answer = self.service.answer(tool, &arguments);
        let mut value: Value = serde_json::from_str(&answer.to_json_string()).unwrap();
        if answer.is_error() {
            value["is_error"] = json!(true);
        }
        value
    }
}

/// What stood in for a read the state did not render: the recording's reason
/// (`{"recording": reason}`), or a `not_modelled` refusal's reason and why no recording answered
/// (`{"not_modelled": reason, "recording": why}`).
pub(crate) fn stand_in(answer: &Value) -> Value {
    if answer["error"]["code"] == "not_modelled" {
        assert_eq!(answer["is_error"], true, "{answer}");
        json!({
            "not_modelled": answer["error"]["data"]["reason"],
            "recording": answer["error"]["data"]["recording"],
        })
    } else {
        assert_eq!(answer["state"]["source"], "recording", "{answer}");
        json!({"recording": answer["state"]["reason"]})
    }
}

pub(crate) fn posts() -> Value {
    json!([
        {"id": 1, "title": "Alpha", "author": "alice", "views": 10},
        {"id": 2, "title": "Beta", "author": "bob", "views": 30},
        {"id": 3, "title": "Gamma", "author": "alice", "views": 20}
    ])
}

pub(crate) fn post(id: u64) -> Value {
    posts()[(id - 1) as usize].clone()
}

#[test]
fn item_views_name_a_type_by_the_echoed_identity() {
    // contract: STATE-004, STATE-005, STATE-033, STATE-036, STATE-042, STATE-043
    let fixture = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "GET", "/posts/2", 200, post(2)),
        record(2, "GET", "/posts/9", 404, json!({"error": "not found"})),
        record(
            3,
            "GET",
            "/users/u1",
            200,
            json!({"handle": "u1", "name": "Ann"}),
        ),
        record(
            4,
            "GET",
            "/users/u2",
            200,
            json!({"handle": "u2", "name": "Bo"}),
        ),
    ]);
    assert_eq!(fixture.state.types[0].collection_template, "/posts");
    assert_eq!(fixture.state.types[0].identity_field, "id");
    let ViewDetail::Item(item) = fixture.view("get_posts_by_id") else {
        panic!("item view")
    };
    assert_eq!(item.missing_ordinal, Some(2));
    assert_eq!(fixture.state.entities.len(), 4);
    let answer = fixture.call("get_posts_by_id", json!({"id": "2"}));
    assert_eq!(answer["body"], post(2));
    assert_eq!(
        answer["state"],
        json!({"source": "state", "view": "/posts/2"})
    );
    assert_eq!(answer["replay"]["truncated"], false);
    let missing = fixture.call("get_posts_by_id", json!({"id": "7"}));
    assert_eq!(missing["status"], 404);
    assert_eq!(missing["state"]["view"], "missing");
    // No 400/404/410 was recorded for users: a missing user is a tool error, never an invented body.
    let (users_tool, argument) = fixture.tool("/users/{sibling-variance}");
    let ViewDetail::Item(users) = fixture.view(&users_tool) else {
        panic!("users")
    };
    assert_eq!(users.identity_field, "handle");
    let error = fixture.call(&users_tool, json!({ argument: "u9" }));
    assert_eq!(error["is_error"], true, "{error}");
    assert!(error.get("body").is_none());
}

#[test]
fn a_client_error_reading_a_deleted_path_answers_a_missing_entity() {
    let forbidden = json!({"errors": [{"message": "You don't have permission to access this."}]});
    let fixture = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "GET", "/posts/2", 200, post(2)),
        record(2, "GET", "/posts/3", 403, forbidden.clone()),
        record(3, "DELETE", "/posts/2", 204, Value::Null),
        record(4, "GET", "/posts/2", 403, forbidden.clone()),
        record(5, "GET", "/posts/1", 401, json!({"error": "log in"})),
    ]);
    let ViewDetail::Item(item) = fixture.view("get_posts_by_id") else {
        panic!("item view")
    };
    assert_eq!(
        item.missing_ordinal,
        Some(4),
        "a 403 before any delete and a 401 say nothing of what exists"
    );
    let missing = fixture.call("get_posts_by_id", json!({"id": "7"}));
    assert_eq!(missing["status"], 403, "{missing}");
    assert_eq!(missing["body"], forbidden);
    assert_eq!(missing["state"]["view"], "missing");
}

#[test]
fn ids_fused_with_literal_text_name_entities_by_the_value_alone() {
    let fixture = derive_fused(vec![
        record(0, "GET", "/posts/1.json", 200, post(1)),
        record(1, "GET", "/posts/2.json", 200, post(2)),
        record(
            2,
            "GET",
            "/posts/9.json",
            404,
            json!({"error": "not found"}),
        ),
        record(3, "GET", "/db/post:1", 200, post(1)),
        record(4, "GET", "/db/post:3", 200, post(3)),
    ]);
    let (rows, argument) = fixture.tool("/posts/{numeric}.json");
    let ViewDetail::Item(item) = fixture.view(&rows) else {
        panic!("item view")
    };
    assert_eq!(item.identity_field, "id");
    assert_eq!(item.missing_ordinal, Some(2));
    let answer = fixture.call(&rows, json!({ &argument: 2 }));
    assert_eq!(answer["body"], post(2));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let missing = fixture.call(&rows, json!({ &argument: "7" }));
    assert_eq!(missing["status"], 404, "{missing}");
    assert_eq!(missing["state"]["view"], "missing");
    let (documents, argument) = fixture.tool("/db/post:{numeric}");
    let answer = fixture.call(&documents, json!({ &argument: "3" }));
    assert_eq!(answer["body"], post(3), "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
}

#[test]
fn an_envelope_member_holds_the_entity_and_per_response_members_keep_their_value() {
    // contract: STATE-033, STATE-034, STATE-078, STATE-113
    let fixture = derive(vec![
        record(
            0,
            "GET",
            "/records/1",
            200,
            json!({"data": {"id": "1", "v": 1}, "request_id": "a"}),
        ),
        record(
            1,
            "GET",
            "/records/2",
            200,
            json!({"data": {"id": "2", "v": 2}, "request_id": "b"}),
        ),
    ]);
    let ViewDetail::Item(item) = fixture.view("get_records_by_id") else {
        panic!("item")
    };
    assert_eq!(item.entity_pointer, "/data");
    assert_eq!(item.per_response_members, vec!["/request_id".to_owned()]);
    let answer = fixture.call("get_records_by_id", json!({"id": "1"}));
    assert_eq!(
        answer["body"],
        json!({"data": {"id": "1", "v": 1}, "request_id": "b"})
    );
}

#[test]
fn objects_marked_deleted_never_seed_entities() {
    // contract: STATE-005
    let fixture = derive(vec![
        record(
            0,
            "GET",
            "/notes/1",
            200,
            json!({"id": 1, "text": "a", "deleted": false}),
        ),
        record(
            1,
            "GET",
            "/notes/2",
            200,
            json!({"id": 2, "text": "b", "deleted": true}),
        ),
    ]);
    assert_eq!(fixture.state.entities.len(), 1);
    assert!(matches!(
        fixture.view("get_notes_by_id"),
        ViewDetail::Item(_)
    ));
}

#[test]
fn reads_after_the_first_write_do_not_seed_the_state() {
    // contract: STATE-003, STATE-046
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, json!([post(1)])),
        record(1, "POST", "/posts", 201, post(2)),
        record(2, "GET", "/posts", 200, json!([post(1), post(2)])),
        record(3, "GET", "/posts/2", 200, post(2)),
    ]);
    assert_eq!(fixture.state.first_write_ordinal, Some(1));
    assert_eq!(fixture.state.entities.len(), 1);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    assert_eq!(list.lines.len(), 1);
    assert_eq!(list.lines[0].record_ordinal, 0);
    // The item tool was read only after the write: it has no view.
    assert!(
        matches!(fixture.view("get_posts_by_id"), ViewDetail::Recorded { reason } if reason == "no-view")
    );
}

#[test]
fn a_write_ends_only_the_windows_of_what_it_relates_to() {
    // contract: STATE-003, STATE-046
    let user = |id: u64, name: &str| json!({"id": id, "name": name});
    let records = vec![
        record(0, "GET", "/users", 200, json!([user(1, "ana")])),
        record(1, "GET", "/users/1", 200, user(1, "ana")),
        record(2, "GET", "/posts", 200, json!([post(1)])),
        record(3, "POST", "/posts", 201, post(2)),
        // After a write of posts, reads of users still show what the state starts from.
        record(4, "GET", "/users/2", 200, user(2, "bo")),
        record(
            5,
            "GET",
            "/users",
            200,
            json!([user(1, "ana"), user(2, "bo")]),
        ),
        record(6, "GET", "/posts", 200, json!([post(1), post(2)])),
        record(7, "PATCH", "/users/1", 200, user(1, "ann")),
        record(8, "GET", "/users/1", 200, user(1, "ann")),
    ];
    let fixture = derive(records.clone());
    let state = &fixture.state;
    assert_eq!(state.first_write_ordinal, Some(3));
    let scopes: Vec<(u64, &crate::model::WriteScope)> = state
        .related_writes
        .iter()
        .map(|write| (write.ordinal, &write.scope))
        .collect();
    assert_eq!(
        scopes,
        vec![
            (
                3,
                &crate::model::WriteScope::Type {
                    entity_type: "/posts".to_owned(),
                    collection: Some("/posts".to_owned()),
                    entity: None,
                }
            ),
            (
                7,
                &crate::model::WriteScope::Type {
                    entity_type: "/users".to_owned(),
                    collection: Some("/users".to_owned()),
                    entity: Some("1".to_owned()),
                }
            ),
        ]
    );
    // User 2, read only after the posts write, is held; the users list checks its later line;
    // user 1 keeps the name it had before the users write.
    let names: Vec<(&str, &str)> = state
        .entities
        .iter()
        .map(|entity| {
            (
                entity.entity_type.as_str(),
                entity
                    .fields
                    .get("name")
                    .and_then(|name| name.as_str())
                    .unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![("/users", "ana"), ("/users", "bo"), ("/posts", "")]
    );
    let ViewDetail::List(users) = fixture.view("get_users") else {
        panic!("list")
    };
    assert_eq!(
        users
            .lines
            .iter()
            .map(|line| line.record_ordinal)
            .collect::<Vec<_>>(),
        vec![5]
    );
    assert_eq!(users.lines[0].membership, Membership::All);
    let ViewDetail::List(posts) = fixture.view("get_posts") else {
        panic!("list")
    };
    assert_eq!(posts.lines[0].record_ordinal, 2);
    // The timeline of the state says the same.
    let timeline =
        crate::observation::Timeline::for_state(&fixture.manifest, &records, &fixture.state);
    let checked: Vec<u64> = [4, 5, 6, 8]
        .into_iter()
        .filter(|ordinal| timeline.is_checked(timeline.get(*ordinal).unwrap()))
        .collect();
    assert_eq!(checked, vec![4, 5]);
}

#[test]
fn an_item_write_ends_only_the_windows_of_the_entity_its_path_names() {
    // contract: STATE-003
    let user = |id: u64, name: &str| json!({"id": id, "name": name});
    let patch = sending_record(
        (1, "PATCH", "/users/1"),
        json!({"name": "ann"}),
        200,
        user(1, "ann"),
    );
    let records = vec![
        record(0, "GET", "/users/1", 200, user(1, "ana")),
        patch,
        record(2, "GET", "/users/1", 200, user(1, "ann")),
        // First read after the write of user 1: user 2 is what the state starts from.
        record(3, "GET", "/users/2", 200, user(2, "bo")),
        // A read of the whole collection shows the write.
        record(
            4,
            "GET",
            "/users",
            200,
            json!([user(1, "ann"), user(2, "bo")]),
        ),
    ];
    let fixture = derive(records.clone());
    let plan = fixture.state.write_plan("patch_users_by_id").expect("plan");
    assert!(plan.served, "{plan:?}");
    assert_eq!(
        fixture.state.related_writes[0].scope,
        crate::model::WriteScope::Type {
            entity_type: "/users".to_owned(),
            collection: Some("/users".to_owned()),
            entity: Some("1".to_owned()),
        }
    );
    let names: Vec<&str> = fixture
        .state
        .entities
        .iter()
        .filter_map(|entity| entity.fields.get("name").and_then(|name| name.as_str()))
        .collect();
    assert_eq!(names, vec!["ana", "bo"]);
    let timeline =
        crate::observation::Timeline::for_state(&fixture.manifest, &records, &fixture.state);
    let checked: Vec<u64> = [2, 3, 4]
        .into_iter()
        .filter(|ordinal| timeline.is_checked(timeline.get(*ordinal).unwrap()))
        .collect();
    assert_eq!(checked, vec![3]);
}

#[test]
fn setting_a_passes_windows_and_then_the_base_windows_restores_the_timeline() {
    let user = |id: u64, name: &str| json!({"id": id, "name": name});
    let patch = sending_record(
        (1, "PATCH", "/users/1"),
        json!({"name": "ann"}),
        200,
        user(1, "ann"),
    );
    let records = vec![
        record(0, "GET", "/users/1", 200, user(1, "ana")),
        patch,
        record(2, "GET", "/users/2", 200, user(2, "bo")),
    ];
    let fixture = derive(records.clone());
    let mut timeline = crate::observation::Timeline::new(&fixture.manifest, &records);
    let base = timeline.window_ends();
    let checked = |timeline: &crate::observation::Timeline| -> Vec<u64> {
        [0, 2]
            .into_iter()
            .filter(|ordinal| timeline.is_checked(timeline.get(*ordinal).unwrap()))
            .collect()
    };
    // The first write ends every window at first; a pass's windows (here: the write of user 1
    // leaves user 2's read checked) are set on the same timeline, and the base set back.
    assert_eq!(checked(&timeline), vec![0]);
    let pass: std::collections::BTreeMap<u64, usize> = [(2, usize::MAX)].into_iter().collect();
    timeline.set_windows(&pass);
    assert_eq!(checked(&timeline), vec![0, 2]);
    assert_eq!(timeline.window_ends()[&0], base[&0]);
    timeline.set_windows(&base);
    assert_eq!(timeline.window_ends(), base);
    assert_eq!(checked(&timeline), vec![0]);
}

#[test]
fn a_query_answering_as_the_plain_read_of_its_path_seeds_the_entity() {
    // contract: STATE-003
    let user = |id: u64, name: &str| json!({"id": id, "name": name});
    let fixture = derive(vec![
        record(0, "GET", "/users/1", 200, user(1, "ana")),
        record(
            1,
            "GET",
            "/users/1?expand=posts",
            200,
            json!({"id": 1, "name": "ana", "posts": []}),
        ),
        // The only read of user 2 before the write names `write=true`, which a read of user 1
        // shows changing nothing.
        record(2, "GET", "/users/2?write=true", 200, user(2, "bo")),
        record(3, "GET", "/users/1?write=true", 200, user(1, "ana")),
        record(4, "POST", "/rpc/rename", 200, json!({"ok": true})),
        record(5, "GET", "/users/2", 200, user(2, "bob")),
    ]);
    let ViewDetail::Item(item) = fixture.view("get_users_by_id") else {
        panic!("item: {:?}", fixture.view("get_users_by_id"))
    };
    // `expand` answered otherwise than the plain read: not neutral, a variant.
    assert_eq!(item.neutral_query, vec!["write".to_owned()]);
    assert_eq!(
        item.projected_query_keys.get("expand").map(String::as_str),
        Some("variant")
    );
    let names: Vec<&str> = fixture
        .state
        .entities
        .iter()
        .filter_map(|entity| entity.fields.get("name").and_then(|name| name.as_str()))
        .collect();
    assert_eq!(names, vec!["ana", "bo"]);
    let answer = fixture.call("get_users_by_id", json!({"id": "2", "write": "true"}));
    assert_eq!(answer["body"], user(2, "bo"), "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
}

#[test]
fn a_write_the_state_cannot_link_ends_every_window() {
    // contract: STATE-003
    let user = |id: u64, name: &str| json!({"id": id, "name": name});
    let fixture = derive(vec![
        record(0, "GET", "/users/1", 200, user(1, "ana")),
        record(1, "POST", "/rpc/rename", 200, json!({"ok": true})),
        record(2, "GET", "/users/2", 200, user(2, "bo")),
    ]);
    assert_eq!(fixture.state.entities.len(), 1);
    assert_eq!(
        fixture.state.related_writes[0].scope,
        crate::model::WriteScope::All
    );
}

#[test]
fn record_order_follows_start_instants_unless_one_is_unusable() {
    // contract: STATE-003
    let mut write = record(0, "POST", "/posts", 201, post(2));
    let mut read = record(1, "GET", "/posts", 200, json!([post(1)]));
    // The write started after the read.
    write.started.as_mut().unwrap().instant = Some("2026-01-01T00:00:09.000000000Z".into());
    read.started.as_mut().unwrap().instant = Some("2026-01-01T00:00:01.000000000Z".into());
    let fixture = derive(vec![write.clone(), read.clone()]);
    assert_eq!(
        fixture.state.record_order,
        crate::observation::RecordOrder::StartInstant
    );
    assert_eq!(
        fixture.state.entities.len(),
        1,
        "the read came first in time"
    );
    read.started.as_mut().unwrap().instant = None;
    let fixture = derive(vec![write, read]);
    assert_eq!(
        fixture.state.record_order,
        crate::observation::RecordOrder::RecordOrder
    );
    assert_eq!(
        fixture.state.entities.len(),
        0,
        "in record order the write came first"
    );
}

#[test]
fn a_log_in_before_every_read_ends_no_window() {
    // The log-in's effect is not modelled (it writes everything, as far as the state knows),
    // but every read observed the state it left.
    let login = record(0, "POST", "/session", 200, json!({"token": "t0"}));
    let read = record(1, "GET", "/posts", 200, json!([post(1)]));
    let fixture = derive(vec![login, read]);
    assert_eq!(fixture.state.entities.len(), 1);
    // After a read, the same write ends every window.
    let early = record(0, "GET", "/info", 200, json!({"name": "blog"}));
    let login = record(1, "POST", "/session", 200, json!({"token": "t0"}));
    let read = record(2, "GET", "/posts", 200, json!([post(1)]));
    let fixture = derive(vec![early, login, read]);
    assert_eq!(fixture.state.entities.len(), 0);
}

#[test]
fn whole_lines_list_every_entity_in_state_order() {
    // contract: STATE-046, STATE-048, STATE-049, STATE-050, STATE-102, STATE-103
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "GET", "/posts?offset=0&limit=10", 200, posts()),
        record(
            2,
            "GET",
            "/posts?offset=1&limit=10",
            200,
            json!([post(2), post(3)]),
        ),
        record(
            3,
            "GET",
            "/posts?author=alice",
            200,
            json!([post(1), post(3)]),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    let memberships: Vec<Membership> = list.lines.iter().map(|line| line.membership).collect();
    assert_eq!(
        memberships,
        vec![
            Membership::All,
            Membership::All,
            Membership::Recorded,
            Membership::Recorded
        ]
    );
    assert_eq!(list.lines[1].page_size, Some(10));
    assert!(
        !list.lines[2].whole,
        "a positive offset does not establish whole membership"
    );
    let answer = fixture.call("get_posts", json!({}));
    assert_eq!(answer["body"], posts());
    assert_eq!(answer["state"]["membership"], "all");
    assert_eq!(answer["replay"]["exact_match"], true);
}

#[test]
fn a_list_selecting_fields_only_settles_state_order() {
    // Post 3 is read by its item first, then the only list selects fields: the list's order
    // (1, 2, 3) is the state's, not the order of discovery (3, 1, 2).
    let titles = json!([
        {"id": 1, "title": "Alpha"},
        {"id": 2, "title": "Beta"},
        {"id": 3, "title": "Gamma"}
    ]);
    let fixture = derive(vec![
        record(0, "GET", "/posts/3", 200, post(3)),
        record(1, "GET", "/posts?fields=id,title", 200, titles),
    ]);
    let ids: Vec<&str> = fixture
        .state
        .entities
        .iter()
        .map(|entity| entity.id.as_str())
        .collect();
    assert_eq!(ids, ["1", "2", "3"]);
}

#[test]
fn a_sigil_name_playing_no_query_role_lists_the_whole_collection() {
    // `@verbose=2` names no member the posts hold and no reserved role: it chooses how members
    // are shown; `@author=alice` (a held member) filters, and a plain unknown name is not
    // taken for a presentation name.
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "GET", "/posts?@verbose=2", 200, posts()),
        record(
            2,
            "GET",
            "/posts?@author=alice",
            200,
            json!([post(1), post(3)]),
        ),
        record(3, "GET", "/posts?verbose=2", 200, posts()),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    let membership = |ordinal: u64| {
        list.lines
            .iter()
            .find(|line| line.record_ordinal == ordinal)
            .map(|line| line.membership)
    };
    assert_eq!(membership(1), Some(Membership::All));
    assert_ne!(membership(2), Some(Membership::All));
    assert_ne!(membership(3), Some(Membership::All));
}

#[test]
fn a_whole_page_the_collection_outgrew_replays_as_page_exceeded() {
    // contract: STATE-088, STATE-104
    let fixture = derive(vec![
        record(0, "GET", "/posts?limit=3", 200, posts()),
        record(1, "GET", "/posts/1", 200, post(1)),
    ]);
    let mut document = fixture.service.document();
    let entities = document.pointer("/rea_state/entities").cloned().unwrap();
    let mut list = entities.as_array().unwrap().clone();
    let mut extra = list[0].clone();
    if let rea_plugin_api::json::Json::Object(object) = &mut extra {
        object.insert("id", "4");
        if let Some(rea_plugin_api::json::Json::Object(fields)) = object.get_mut("fields") {
            fields.insert("id", 4u64);
        }
        object.insert(
            "record_ordinals",
            rea_plugin_api::json::Json::Array(Vec::new()),
        );
    }
    list.push(extra);
    if let rea_plugin_api::json::Json::Object(root) = &mut document
        && let Some(rea_plugin_api::json::Json::Object(state)) = root.get_mut("rea_state")
    {
        state.insert("entities", rea_plugin_api::json::Json::Array(list));
    }
    let context = crate::intake::IntakeContext {
        state_evidence_id: "ev_state",
        derived: fixture.service.derived(),
        initial: fixture.service.initial(),
    };
    let loaded = crate::intake::read_document(&document, &context).unwrap();
    fixture.service.replace(loaded);
    // The page itself is a query the model answers: the first three.
    let answer = fixture.call("get_posts", json!({"limit": "3"}));
    assert_eq!(answer["state"]["membership"], "query");
    assert_eq!(answer["body"].as_array().map(Vec::len), Some(3));
    // Without arguments the paging line stands for the whole list, which outgrew it.
    let answer = fixture.call("get_posts", json!({}));
    assert_eq!(
        stand_in(&answer),
        json!({"not_modelled": "page-exceeded", "recording": "not-recorded"})
    );
}

#[test]
fn a_line_naming_an_unexplained_parameter_beside_an_established_one_keeps_that_role() {
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(
            1,
            "GET",
            "/posts?author=alice",
            200,
            json!([post(1), post(3)]),
        ),
        // `author_ne` would filter, but this line disagrees with it: the line is left
        // unanswered and only `author_ne` given up; `author` stays a filter.
        record(
            2,
            "GET",
            "/posts?author=alice&author_ne=bob",
            200,
            json!([post(3)]),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    let model = list.query.as_ref().expect("a query model");
    assert_eq!(
        model.parameters.get("author"),
        Some(&QueryRole::filter("author", "eq"))
    );
    assert!(!model.parameters.contains_key("author_ne"));
    assert_eq!(model.record_ordinals, vec![1]);
}

#[test]
fn query_roles_are_learned_only_when_they_reproduce_the_recordings() {
    // contract: STATE-052, STATE-053, STATE-054, STATE-055, STATE-056, STATE-058
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(
            1,
            "GET",
            "/posts?author=alice",
            200,
            json!([post(1), post(3)]),
        ),
        record(2, "GET", "/posts?q=mm", 200, json!([post(3)])),
        record(
            3,
            "GET",
            "/posts?_sort=views&_order=desc",
            200,
            json!([post(2), post(3), post(1)]),
        ),
        record(4, "GET", "/posts?_page=2&_limit=2", 200, json!([post(3)])),
        record(5, "GET", "/posts?max_results=1", 200, json!([post(1)])),
        // `colour` has no role; `author_ne` would filter, but the recording disagrees with it.
        record(6, "GET", "/posts?colour=red", 200, json!([post(2)])),
        record(7, "GET", "/posts?author_ne=alice", 200, json!([post(1)])),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    let model = list.query.as_ref().expect("a query model");
    assert_eq!(
        model.parameters.get("author"),
        Some(&QueryRole::Filter {
            field: "author".into(),
            op: "eq".into()
        })
    );
    assert_eq!(model.parameters.get("q"), Some(&QueryRole::Search));
    assert_eq!(model.parameters.get("_sort"), Some(&QueryRole::Sort));
    assert_eq!(
        model.parameters.get("_page"),
        Some(&QueryRole::Page { base: 1 })
    );
    assert_eq!(
        model.parameters.get("max_results"),
        Some(&QueryRole::PageSize)
    );
    assert!(!model.parameters.contains_key("colour"));
    assert!(!model.parameters.contains_key("author_ne"));
    // An unrecorded combination is evaluated over the state.
    let answer = fixture.call(
        "get_posts",
        json!({"author": "alice", "_sort": "views", "_order": "desc"}),
    );
    assert_eq!(answer["body"], json!([post(3), post(1)]));
    assert_eq!(answer["state"]["membership"], "query");
    assert_eq!(answer["replay"]["exact_match"], false);
    // A parameter without a role is refused with a value no request recorded.
    let answer = fixture.call("get_posts", json!({"colour": "blue"}));
    assert_eq!(
        stand_in(&answer),
        json!({"not_modelled": "unrecorded-request", "recording": "not-recorded"})
    );
    // A repeated value replays too.
    let answer = fixture.call("get_posts", json!({"author": ["alice", "bob"]}));
    assert_eq!(
        stand_in(&answer),
        json!({"not_modelled": "repeated-query", "recording": "not-recorded"})
    );
}

#[test]
fn a_page_size_name_beside_another_page_size_is_learned_as_a_flag() {
    // `count=1&limit=0` lists nothing: `limit` pages, and `count` (a page-size name) changes
    // nothing listed, which a whole line of the collection shows.
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(
            1,
            "GET",
            "/posts?author=alice&count=1&limit=0",
            200,
            json!([]),
        ),
        record(2, "GET", "/posts?limit=1", 200, json!([post(1)])),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    let model = list.query.as_ref().expect("a query model");
    assert_eq!(
        model.parameters.get("count"),
        Some(&QueryRole::Inert {
            values: vec!["1".into()]
        })
    );
    assert_eq!(model.parameters.get("limit"), Some(&QueryRole::PageSize));
    // With the flag and without `limit=0` every match is listed.
    let answer = fixture.call("get_posts", json!({"author": "bob", "count": "1"}));
    assert_eq!(answer["state"]["membership"], "query", "{answer}");
    assert_eq!(answer["body"], json!([post(2)]));
}

#[test]
fn an_inert_parameter_is_accepted_only_with_its_recorded_values() {
    // contract: STATE-057
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        // A cache buster: the list is the same with it.
        record(1, "GET", "/posts?_=111", 200, posts()),
        record(
            2,
            "GET",
            "/posts?author=alice&_=222",
            200,
            json!([post(1), post(3)]),
        ),
        // A parameter without a role whose line lists something else stays without a role.
        record(3, "GET", "/posts?colour=red", 200, json!([post(2)])),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    let model = list.query.as_ref().expect("a query model");
    assert_eq!(
        model.parameters.get("_"),
        Some(&QueryRole::Inert {
            values: vec!["111".into(), "222".into()]
        })
    );
    assert!(!model.parameters.contains_key("colour"));
    // A recorded value is accepted and changes nothing: the query is evaluated.
    let answer = fixture.call("get_posts", json!({"author": "bob", "_": "111"}));
    assert_eq!(answer["state"]["membership"], "query", "{answer}");
    assert_eq!(answer["body"], json!([post(2)]));
    // A value it never recorded is refused: no recording of that very request.
    let answer = fixture.call("get_posts", json!({"author": "bob", "_": "999"}));
    assert_eq!(
        stand_in(&answer),
        json!({"not_modelled": "unrecorded-request", "recording": "not-recorded"}),
        "{answer}"
    );
    // Without a whole line of the collection nothing shows a parameter changes nothing.
    let without_whole = derive(vec![
        record(
            0,
            "GET",
            "/posts?author=alice",
            200,
            json!([post(1), post(3)]),
        ),
        record(1, "GET", "/posts?author=bob&_=1", 200, json!([post(2)])),
        record(2, "GET", "/posts/1", 200, post(1)),
        record(3, "GET", "/posts/2", 200, post(2)),
        record(4, "GET", "/posts/3", 200, post(3)),
    ]);
    let ViewDetail::List(list) = without_whole.view("get_posts") else {
        panic!("list")
    };
    assert!(
        list.query
            .as_ref()
            .is_none_or(|model| !model.parameters.contains_key("_")),
        "{:?}",
        list.query
    );
}

#[test]
fn field_selections_the_checked_reads_made_render_from_the_state() {
    // contract: STATE-041, STATE-060, STATE-089, STATE-093
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "GET", "/posts/1", 200, post(1)),
        record(2, "GET", "/posts/2", 200, post(2)),
        record(3, "GET", "/posts/3", 200, post(3)),
        record(
            4,
            "GET",
            "/posts?_fields=id,title",
            200,
            json!([
                {"id": 1, "title": "Alpha"},
                {"id": 2, "title": "Beta"},
                {"id": 3, "title": "Gamma"}
            ]),
        ),
        record(
            5,
            "GET",
            "/posts/1?fields=title,id",
            200,
            json!({"title": "Alpha", "id": 1}),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    assert_eq!(list.projected_record_ordinals, vec![4]);
    let line = list
        .lines
        .iter()
        .find(|line| line.record_ordinal == 4)
        .expect("the projected line");
    assert_eq!(line.projection, Some(vec!["id".into(), "title".into()]));
    assert_eq!(line.membership, Membership::All);
    let (item_tool, argument) = fixture.tool("/posts/{numeric}");
    let ViewDetail::Item(item) = fixture.view(&item_tool) else {
        panic!("item")
    };
    assert_eq!(item.projected_record_ordinals, vec![5]);
    assert_eq!(item.projections[0].fields, vec!["id", "title"]);
    // The recorded selection renders from the state, for every entity.
    let answer = fixture.call("get_posts", json!({"_fields": "id,title"}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"][1], json!({"id": 2, "title": "Beta"}));
    let answer = fixture.call(
        &item_tool,
        json!({argument.clone(): "3", "fields": "title,id"}),
    );
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"], json!({"title": "Gamma", "id": 3}));
    // Another plain selection shows the fields it names (`rea_state::selection`: the recorded
    // ones showed exactly what they named); one naming a field no entity holds is refused.
    let answer = fixture.call("get_posts", json!({"_fields": "author"}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"][1], json!({"author": "bob"}));
    let answer = fixture.call(
        &item_tool,
        json!({argument.clone(): "3", "fields": "author"}),
    );
    assert_eq!(answer["body"], json!({"author": "alice"}), "{answer}");
    let answer = fixture.call("get_posts", json!({"_fields": "colour"}));
    assert_eq!(
        stand_in(&answer),
        json!({"not_modelled": "projection", "recording": "not-recorded"})
    );
    let answer = fixture.call(&item_tool, json!({argument: "3", "fields": "colour"}));
    assert_eq!(
        stand_in(&answer),
        json!({"not_modelled": "projection", "recording": "not-recorded"})
    );
}

#[test]
fn counters_and_totals_follow_the_state() {
    let page = |members: Value, count: &str, total: u64| json!({"items": members, "count": count, "pageInfo": {"totalRows": total, "isLastPage": false}});
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, page(posts(), "003", 3)),
        record(
            1,
            "GET",
            "/posts?limit=1&author=alice",
            200,
            page(json!([post(1)]), "001", 2),
        ),
        record(
            2,
            "GET",
            "/posts?limit=2&author=bob",
            200,
            page(json!([post(2)]), "001", 1),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    assert_eq!(list.list_pointer, "/items");
    // contract: STATE-079 (a top-level counter, a total one level down in a paging object)
    assert_eq!(list.counters, vec!["/count".to_owned()]);
    assert_eq!(
        list.query.as_ref().unwrap().totals,
        vec!["/pageInfo/totalRows".to_owned()]
    );
    let answer = fixture.call("get_posts", json!({"author": "alice", "limit": "5"}));
    // contract: STATE-067, STATE-068 (a digit string, three digits wide as recorded)
    assert_eq!(answer["body"]["count"], "002");
    // contract: STATE-081 (`isLastPage` stays as recorded)
    assert_eq!(
        answer["body"]["pageInfo"],
        json!({"totalRows": 2, "isLastPage": false})
    );
    // One listed of two matched: the counter counts what is listed, the total what matched.
    let answer = fixture.call("get_posts", json!({"author": "alice", "limit": "1"}));
    // contract: STATE-053, STATE-080 (the counter, top level)
    assert_eq!(answer["body"]["count"], "001");
    // contract: STATE-054, STATE-080 (the total, in the paging object)
    assert_eq!(answer["body"]["pageInfo"]["totalRows"], 2);
}

#[test]
fn list_views_show_fields_otherwise_with_view_values_and_spellings() {
    // contract: STATE-058, STATE-071, STATE-073, STATE-076
    let item = |id: u64, tags: Value| json!({"id": id, "text": "long", "tags": tags, "at": format!("2026-01-0{id}T10:00:00.000Z"), "owner": {"id": 7, "name": "ann"}});
    let listed = |id: u64, tags: Value| json!({"id": id, "tags": tags, "at": format!("2026-01-0{id}T10:00:00+00:00"), "owner": {"id": 7}, "flag": id == 1});
    let fixture = derive(vec![
        record(0, "GET", "/notes/1", 200, item(1, json!(["b", "a"]))),
        record(1, "GET", "/notes/2", 200, item(2, json!(["c"]))),
        record(
            2,
            "GET",
            "/notes",
            200,
            json!([listed(1, json!(["a", "b"])), listed(2, json!(["c"]))]),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_notes") else {
        panic!("list")
    };
    assert_eq!(list.shape.hidden_fields, vec!["text".to_owned()]);
    assert_eq!(
        list.shape.clock_formats.get("at").map(String::as_str),
        Some("T.0+00:00")
    );
    assert_eq!(
        list.shape.nested_fields.get("owner"),
        Some(&vec!["id".to_owned()])
    );
    assert_eq!(list.shape.sorted_arrays, vec!["tags".to_owned()]);
    // What the spellings do not explain is the entity's view value.
    let first = &fixture.state.entities[0];
    assert_eq!(
        first.view_fields["get_notes"].to_canonical_string(),
        r#"{"flag":true}"#
    );
    let answer = fixture.call("get_notes", json!({}));
    assert_eq!(answer["body"][0], listed(1, json!(["a", "b"])));
    // The state keeps the order the item read showed.
    assert_eq!(
        fixture.call("get_notes_by_id", json!({"id": "1"}))["body"]["tags"],
        json!(["b", "a"])
    );
}

#[test]
fn representation_parameters_become_projected_keys() {
    // contract: STATE-040, STATE-059, STATE-089, STATE-091, STATE-093
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(
            1,
            "GET",
            "/posts?_fields=title",
            200,
            json!([{"title": "Alpha"}, {"title": "Beta"}, {"title": "Gamma"}]),
        ),
        record(2, "GET", "/posts/1", 200, post(1)),
        record(
            3,
            "GET",
            "/posts/1?_embed=comments",
            200,
            json!({"id": 1, "title": "Alpha", "author": "alice", "views": 10, "comments": []}),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    assert_eq!(
        list.projected_query_keys.get("_fields").map(String::as_str),
        Some("projection")
    );
    let ViewDetail::Item(item) = fixture.view("get_posts_by_id") else {
        panic!("item")
    };
    assert_eq!(
        item.projected_query_keys.get("_embed").map(String::as_str),
        Some("variant")
    );
    assert_eq!(
        stand_in(&fixture.call("get_posts", json!({"_fields": "colour"}))),
        json!({"not_modelled": "projection", "recording": "not-recorded"})
    );
    assert_eq!(
        fixture.call("get_posts_by_id", json!({"id": "1", "_embed": "comments"}))["state"]["reason"],
        "variant"
    );
}

#[test]
fn a_list_whose_plain_lines_disagree_is_recorded() {
    // contract: STATE-007
    let fixture = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(
            1,
            "GET",
            "/feed",
            200,
            json!([{"id": 1, "title": "Alpha", "author": "alice", "views": 10, "rank": 1}]),
        ),
        record(
            2,
            "GET",
            "/feed/",
            200,
            json!([{"id": 1, "title": "Alpha", "author": "alice", "views": 10, "rank": 2}]),
        ),
    ]);
    assert!(matches!(
        fixture.view("get_feed"),
        ViewDetail::List(_) | ViewDetail::Recorded { .. }
    ));
    let answer = fixture.call("get_feed", json!({}));
    assert!(answer["state"]["source"].is_string());
}

#[test]
fn documents_answer_their_checked_line() {
    // contract: STATE-006, STATE-062
    let mut profile = record(0, "GET", "/profile", 200, Value::Null);
    profile.response.body = Body::Text {
        text: r#"{"theme": "light", "n": 1.50}"#.into(),
    };
    let fixture = derive(vec![
        profile,
        record(1, "GET", "/settings?scope=a", 200, json!({"x": 1})),
        record(2, "GET", "/settings?scope=b", 200, json!({"x": 2})),
    ]);
    assert!(matches!(
        fixture.view("get_profile"),
        ViewDetail::Document(_)
    ));
    assert!(
        matches!(fixture.view("get_settings"), ViewDetail::Recorded { reason } if reason == "query-varies")
    );
    let answer = fixture.call("get_profile", json!({}));
    assert_eq!(
        answer["state"],
        json!({"source": "state", "view": "/profile"})
    );
    // The number keeps its recorded spelling.
    let text = fixture
        .service
        .answer("get_profile", &Map::new())
        .to_json_string();
    assert!(text.contains("\"n\":1.50"), "{text}");
}

#[test]
fn a_view_read_on_several_paths_holds_a_document_per_path_which_data_add_names_once_each() {
    // contract: DATA-063
    // The boards' list names each board; their details name it by path only.
    let fixture = derive(vec![
        record(
            0,
            "GET",
            "/boards",
            200,
            json!([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]),
        ),
        record(1, "GET", "/boards/1", 200, json!({"title": "a"})),
        record(2, "GET", "/boards/2", 200, json!({"title": "b"})),
        record(
            3,
            "GET",
            "/boards/1?view=wide",
            200,
            json!({"title": "a", "wide": true}),
        ),
    ]);
    let (tool, argument) = fixture.tool("/boards/{numeric}");
    let ViewDetail::Document(document) = fixture.view(&tool) else {
        panic!("{:?}", fixture.view(&tool));
    };
    assert_eq!(
        document.lines().collect::<Vec<_>>(),
        vec![("/boards/1", 1), ("/boards/2", 2)]
    );
    // Each path answers its own document; a line read with a query answers its recording.
    let second = fixture.call(&tool, json!({ argument.clone(): "2" }));
    assert_eq!(
        second["state"],
        json!({"source": "state", "view": "/boards/2"})
    );
    assert_eq!(second["body"], json!({"title": "b"}));
    let wide = fixture.call(&tool, json!({ argument.clone(): "1", "view": "wide" }));
    assert_eq!(wide["state"]["source"], "recording", "{wide}");
    // The state's own document loads again: the view named once per path.
    let context = crate::intake::IntakeContext {
        state_evidence_id: "ev_state",
        derived: fixture.service.derived(),
        initial: fixture.service.initial(),
    };
    let document = fixture.service.document();
    let documents = document.pointer("/rea_state/documents").cloned().unwrap();
    assert_eq!(documents.as_array().map(Vec::len), Some(2));
    crate::intake::read_document(&document, &context).unwrap();
    // The same path twice, or a path no checked line read, is refused.
    let with_documents = |documents: Vec<rea_plugin_api::json::Json>| {
        let mut changed = document.clone();
        if let rea_plugin_api::json::Json::Object(root) = &mut changed
            && let Some(rea_plugin_api::json::Json::Object(state)) = root.get_mut("rea_state")
        {
            state.insert("documents", rea_plugin_api::json::Json::Array(documents));
        }
        changed
    };
    let list = documents.as_array().unwrap().clone();
    let twice = with_documents(vec![list[0].clone(), list[0].clone()]);
    let refused = crate::intake::read_document(&twice, &context).unwrap_err();
    assert_eq!(refused.pointer, "/rea_state/documents/1/view");
    let mut elsewhere = list[1].clone();
    if let rea_plugin_api::json::Json::Object(object) = &mut elsewhere {
        object.insert("path", "/boards/3");
    }
    let refused =
        crate::intake::read_document(&with_documents(vec![elsewhere]), &context).unwrap_err();
    assert_eq!(refused.pointer, "/rea_state/documents/0/path");
}

#[test]
fn an_oversized_document_stays_recorded() {
    // contract: STATE-096
    let fixture = derive(vec![record(
        0,
        "GET",
        "/dump",
        200,
        json!({"blob": "x".repeat(300 * 1024)}),
    )]);
    assert!(
        matches!(fixture.view("get_dump"), ViewDetail::Recorded { reason } if reason == "rendered-oversize")
    );
}

#[test]
fn head_and_query_posts_replay_with_their_reason() {
    // contract: STATE-097, STATE-099, STATE-100
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "HEAD", "/posts", 200, Value::Null),
        record(2, "POST", "/posts/search", 200, json!([post(1)])),
        record(3, "GET", "/", 200, json!("<html></html>")),
        record(4, "GET", "/api/page", 200, json!("<html>page</html>")),
    ]);
    assert!(
        matches!(fixture.view("head_posts"), ViewDetail::Recorded { reason } if reason == "method-replay")
    );
    assert!(
        matches!(fixture.view("post_posts_search"), ViewDetail::Recorded { reason } if reason == "query-body")
    );
    assert_eq!(
        fixture.call("head_posts", json!({}))["state"],
        json!({"source": "recording", "reason": "method-replay"})
    );
    assert!(
        fixture.state.first_write_ordinal.is_none(),
        "a query POST is not a write"
    );
}

#[test]
fn an_entity_lacking_a_required_field_is_a_tool_error() {
    // contract: STATE-044, STATE-061
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "GET", "/posts/1", 200, post(1)),
    ]);
    let document = fixture.service.document();
    let text = document
        .to_canonical_string()
        .replacen(r#""title":"Alpha","#, "", 1);
    let document = rea_plugin_api::json::parse(text.as_bytes()).unwrap();
    let context = crate::intake::IntakeContext {
        state_evidence_id: "ev_state",
        derived: fixture.service.derived(),
        initial: fixture.service.initial(),
    };
    fixture
        .service
        .replace(crate::intake::read_document(&document, &context).unwrap());
    assert_eq!(
        fixture.call("get_posts_by_id", json!({"id": "1"}))["is_error"],
        true
    );
    assert_eq!(fixture.call("get_posts", json!({}))["is_error"], true);
    assert!(fixture.call("get_posts_by_id", json!({"id": "2"}))["is_error"].is_null());
}

#[test]
fn item_arguments_match_collections_as_written_or_decoded() {
    // contract: STATE-035, STATE-036, STATE-037, STATE-070
    let fixture = derive(vec![
        record(
            0,
            "GET",
            "/pages/Hello%20World",
            200,
            json!({"title": "Hello World", "body": "a"}),
        ),
        record(
            1,
            "GET",
            "/pages/a%2Fb",
            200,
            json!({"title": "a/b", "body": "b"}),
        ),
        record(
            2,
            "GET",
            "/pages/Plain",
            200,
            json!({"title": "Plain", "body": "c"}),
        ),
    ]);
    let (tool, argument) = fixture.tool("/pages/{sibling-variance}");
    assert!(
        matches!(fixture.view(&tool), ViewDetail::Item(_)),
        "{:?}",
        fixture.state.views
    );
    assert_eq!(
        fixture.call(&tool, json!({ argument.clone(): "Hello%20World" }))["body"]["body"],
        "a"
    );
    assert_eq!(
        fixture.call(&tool, json!({ argument.clone(): "Hello World" }))["body"]["body"],
        "a"
    );
    // The identity is never re-split on `/`.
    assert_eq!(
        fixture.call(&tool, json!({ argument.clone(): "a/b" }))["body"]["body"],
        "b"
    );
    assert_eq!(
        fixture.call(&tool, json!({ argument: "a%2Fb" }))["body"]["body"],
        "b"
    );
}

#[test]
fn a_state_answer_over_256_kib_is_a_resource_constraint_error() {
    // contract: STATE-095
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "GET", "/posts/1", 200, post(1)),
    ]);
    let text = fixture.service.document().to_canonical_string().replacen(
        r#""title":"Alpha""#,
        &format!(r#""title":"{}""#, "x".repeat(300 * 1024)),
        1,
    );
    let document = rea_plugin_api::json::parse(text.as_bytes()).unwrap();
    let context = crate::intake::IntakeContext {
        state_evidence_id: "ev_state",
        derived: fixture.service.derived(),
        initial: fixture.service.initial(),
    };
    fixture
        .service
        .replace(crate::intake::read_document(&document, &context).unwrap());
    let answer = fixture.call("get_posts_by_id", json!({"id": "1"}));
    assert_eq!(answer["is_error"], true);
    assert_eq!(answer["error"]["code"], "resource_constraint");
    assert_eq!(
        fixture.call("get_posts", json!({}))["error"]["code"],
        "resource_constraint"
    );
}

#[test]
fn a_state_catalog_over_the_reservation_serves_replay_without_deriving() {
    // contract: STATE-010, STATE-023, STATE-024, STATE-031
    let query: Vec<String> = (0..2500).map(|index| format!("{index:0>40}=1")).collect();
    let records = vec![record(
        0,
        "GET",
        &format!("/search?{}", query.join("&")),
        200,
        json!([]),
    )];
    let manifest = project_manifest("ev_capture", &records, &TemplateRules::none()).unwrap();
    let environment = Environment::new(&manifest, "ev_capture", records).unwrap();
    // Not capture Evidence at all: the catalog check refuses before anything is derived from it.
    let capture =
        rea_evidence::Evidence::seal("not_a_capture", rea_plugin_api::json::Object::new());
    match crate::startup::decide(
        environment,
        &manifest,
        &capture,
        "big",
        std::sync::Arc::new(crate::rules::RuleSet::empty()),
    ) {
        crate::Decision::Replay {
            refusal, report, ..
        } => {
            assert_eq!(refusal.code, "resource_constraint");
            assert_eq!(report["reason"], "unavailable");
            assert_eq!(report["code"], "resource_constraint");
        }
        crate::Decision::State(_) => panic!("the catalog is over the reservation"),
    }
}

/// Loads the fixture's state document after an edit, as `data/add` does.
fn load_edited(fixture: &Fixture, edit: impl FnOnce(&mut Value)) {
    let mut document: Value =
        serde_json::from_str(&fixture.service.document().to_canonical_string()).unwrap();
    edit(&mut document);
    let document = rea_plugin_api::json::parse(document.to_string().as_bytes()).unwrap();
    let context = crate::intake::IntakeContext {
        state_evidence_id: "ev_state",
        derived: fixture.service.derived(),
        initial: fixture.service.initial(),
    };
    fixture
        .service
        .replace(crate::intake::read_document(&document, &context).unwrap());
}

/// The position of the entity `(type, id)` in a state document.
fn entity_position(document: &Value, entity_type: &str, id: &str) -> usize {
    document["rea_state"]["entities"]
        .as_array()
        .unwrap()
        .iter()
        .position(|entity| entity["type"] == entity_type && entity["id"] == id)
        .unwrap_or_else(|| panic!("no entity {entity_type} {id}"))
}

#[test]
fn item_query_arguments_decide_only_the_exact_match() {
    // contract: STATE-039
    let fixture = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "GET", "/posts/2", 200, post(2)),
        record(2, "GET", "/posts/3", 200, post(3)),
        record(3, "GET", "/posts/2?lang=none", 200, post(2)),
    ]);
    assert!(matches!(
        fixture.view("get_posts_by_id"),
        ViewDetail::Item(_)
    ));
    for (arguments, exact) in [
        (json!({"id": "2", "lang": "none"}), true),
        (json!({"id": "2"}), true),
        (json!({"id": "1", "lang": "none"}), false),
        (json!({"id": "1", "lang": "other"}), false),
    ] {
        let id: u64 = arguments["id"].as_str().unwrap().parse().unwrap();
        let answer = fixture.call("get_posts_by_id", arguments.clone());
        assert_eq!(answer["state"]["source"], "state", "{arguments}: {answer}");
        // The entity the path names, whatever the query says.
        assert_eq!(answer["body"], post(id), "{arguments}");
        assert_eq!(answer["replay"]["exact_match"], exact, "{arguments}");
    }
}

#[test]
fn no_read_answer_invents_a_body() {
    // contract: STATE-045, STATE-063
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "GET", "/posts/1", 200, post(1)),
        record(2, "GET", "/profile", 200, json!({"theme": "light"})),
    ]);
    assert!(matches!(
        fixture.view("get_profile"),
        ViewDetail::Document(_)
    ));
    // The state stops holding the document and post 1.
    load_edited(&fixture, |document| {
        document["rea_state"]["documents"] = json!([]);
        let position = entity_position(document, "/posts", "1");
        document["rea_state"]["entities"]
            .as_array_mut()
            .unwrap()
            .remove(position);
    });
    let recorded: Vec<Value> = vec![posts(), post(1), json!({"theme": "light"})];
    for (tool, arguments) in [
        ("get_profile", json!({})),
        ("get_posts_by_id", json!({"id": "1"})),
        ("get_posts", json!({"_page": "2"})),
        ("get_posts", json!({})),
    ] {
        let answer = fixture.call(tool, arguments.clone());
        match answer.get("body") {
            // A state answer renders held entities only; a recording answers as recorded.
            Some(body) if answer["state"]["source"] == "recording" => {
                assert!(recorded.contains(body), "{tool} {arguments}: {answer}")
            }
            Some(body) => assert!(
                !body.to_string().contains("Alpha"),
                "{tool} {arguments} shows a post the state no longer holds: {answer}"
            ),
            None => assert_eq!(answer["is_error"], true, "{tool} {arguments}: {answer}"),
        }
    }
    // The document the state does not hold is a tool error, not the recorded value.
    let answer = fixture.call("get_profile", json!({}));
    assert_eq!(answer["is_error"], true, "{answer}");
    assert_eq!(answer["error"]["code"], "not_found", "{answer}");
    // A missing entity with no recorded 404 is a tool error too.
    let answer = fixture.call("get_posts_by_id", json!({"id": "1"}));
    assert_eq!(answer["is_error"], true, "{answer}");
    assert!(answer.get("body").is_none());
}

#[test]
fn a_list_call_names_a_checked_line_only_with_every_recorded_value() {
    // contract: STATE-047
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        // Parameters that no field explains: the line is checked, but no query role is learned.
        record(1, "GET", "/posts?shelf=x&shape=y", 200, json!([post(2)])),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    assert!(
        list.query
            .as_ref()
            .is_none_or(|model| !model.parameters.contains_key("shelf")),
        "{:?}",
        list.query
    );
    let exact = fixture.call("get_posts", json!({"shelf": "x", "shape": "y"}));
    assert_eq!(
        exact["state"],
        json!({"source": "state", "view": "/posts", "membership": "recorded"}),
        "{exact}"
    );
    assert_eq!(exact["body"], json!([post(2)]));
    // Leaving out a recorded parameter, or giving another value, names no checked line.
    for arguments in [
        json!({"shelf": "x"}),
        json!({"shape": "y"}),
        json!({"shelf": "x", "shape": "z"}),
    ] {
        let answer = fixture.call("get_posts", arguments.clone());
        assert_eq!(
            stand_in(&answer),
            json!({"not_modelled": "unrecorded-request", "recording": "not-recorded"}),
            "{arguments}: {answer}"
        );
    }
}

#[test]
fn an_argument_less_list_call_answers_from_a_paging_line() {
    // contract: STATE-051
    let fixture = derive(vec![
        record(0, "GET", "/posts?limit=10&offset=0", 200, posts()),
        record(1, "GET", "/posts/1", 200, post(1)),
    ]);
    let answer = fixture.call("get_posts", json!({}));
    assert_eq!(
        answer["state"],
        json!({"source": "state", "view": "/posts", "membership": "all"}),
        "{answer}"
    );
    assert_eq!(answer["body"], posts());
    assert_eq!(answer["replay"]["exact_match"], false);
    // The line named exactly is an exact match.
    let answer = fixture.call("get_posts", json!({"limit": "10", "offset": "0"}));
    assert_eq!(answer["replay"]["exact_match"], true, "{answer}");
    // A line that filters does not stand for the whole list.
    let filtered = derive(vec![
        record(
            0,
            "GET",
            "/posts?author=alice",
            200,
            json!([post(1), post(3)]),
        ),
        record(1, "GET", "/posts/2", 200, post(2)),
    ]);
    assert_eq!(
        stand_in(&filtered.call("get_posts", json!({}))),
        json!({"not_modelled": "unrecorded-request", "recording": "not-recorded"})
    );
}

#[test]
fn repeated_query_values_replay_for_every_view_kind() {
    // contract: STATE-065
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(
            1,
            "GET",
            "/posts?author=alice",
            200,
            json!([post(1), post(3)]),
        ),
        record(2, "GET", "/posts/1?lang=none", 200, post(1)),
        record(3, "GET", "/posts/2", 200, post(2)),
        record(
            4,
            "GET",
            "/profile?scope=me",
            200,
            json!({"theme": "light"}),
        ),
    ]);
    for (tool, arguments) in [
        ("get_posts", json!({"author": ["alice", "bob"]})),
        ("get_posts", json!({"author": ["alice", "alice"]})),
        (
            "get_posts_by_id",
            json!({"id": "1", "lang": ["none", "none"]}),
        ),
        ("get_profile", json!({"scope": ["me", "me"]})),
    ] {
        let answer = fixture.call(tool, arguments.clone());
        assert_eq!(
            stand_in(&answer),
            json!({"not_modelled": "repeated-query", "recording": "not-recorded"}),
            "{tool} {arguments}: {answer}"
        );
    }
    // One value each answers from the state.
    assert_eq!(
        fixture.call("get_posts", json!({"author": "alice"}))["state"]["source"],
        "state"
    );
}

#[test]
fn query_totals_are_inferred_only_from_canonical_decimal_counts() {
    // contract: STATE-069
    let page = |members: Value, total: Value| json!({"items": members, "total": total});
    let lines = |total: fn(u64) -> Value| {
        vec![
            record(0, "GET", "/posts", 200, page(posts(), total(3))),
            record(
                1,
                "GET",
                "/posts?author=alice&limit=1",
                200,
                page(json!([post(1)]), total(2)),
            ),
            record(
                2,
                "GET",
                "/posts?author=bob&limit=1",
                200,
                page(json!([post(2)]), total(1)),
            ),
        ]
    };
    let totals = |fixture: &Fixture| -> Vec<String> {
        let ViewDetail::List(list) = fixture.view("get_posts") else {
            panic!("list")
        };
        list.query.as_ref().expect("a query model").totals.clone()
    };
    assert_eq!(totals(&derive(lines(|n| json!(n)))), vec!["/total"]);
    assert_eq!(
        totals(&derive(lines(|n| json!(n.to_string())))),
        vec!["/total"]
    );
    // Zero-padded, fractional or exponent spellings are not counts a total is inferred from.
    assert!(totals(&derive(lines(|n| json!(format!("0{n}"))))).is_empty());
    let fractional = derive(lines(|n| serde_json::from_str(&format!("{n}.0")).unwrap()));
    assert!(totals(&fractional).is_empty());
}

#[test]
fn a_read_tool_without_a_checked_json_read_has_no_view() {
    // contract: STATE-086
    let fixture = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "POST", "/posts", 201, post(2)),
        record(2, "GET", "/users", 200, json!([{"id": 1, "name": "ann"}])),
        record(3, "GET", "/posts", 200, json!([post(1), post(2)])),
    ]);
    // The posts list was read only after the write to posts.
    assert!(
        matches!(fixture.view("get_posts"), ViewDetail::Recorded { reason } if reason == "no-view"),
        "{:?}",
        fixture.view("get_posts")
    );
    let answer = fixture.call("get_posts", json!({}));
    assert_eq!(
        answer["state"],
        json!({"source": "recording", "reason": "no-view"})
    );
    assert_eq!(answer["body"], json!([post(1), post(2)]));
}

#[test]
fn item_calls_answer_any_entity_the_live_state_holds() {
    // contract: STATE-112
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "GET", "/posts/1", 200, post(1)),
    ]);
    // Post 3 was only listed, never read by id: the item view answers it from the state.
    let answer = fixture.call("get_posts_by_id", json!({"id": "3"}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"], post(3));
    // So is an entity a load adds.
    load_edited(&fixture, |document| {
        let mut added = document["rea_state"]["entities"][0].clone();
        added["id"] = json!("42");
        added["fields"] = json!({"id": 42, "title": "Added", "author": "zoe", "views": 0});
        added["record_ordinals"] = json!([]);
        document["rea_state"]["entities"]
            .as_array_mut()
            .unwrap()
            .push(added);
    });
    let answer = fixture.call("get_posts_by_id", json!({"id": "42"}));
    assert_eq!(
        answer["body"],
        json!({"id": 42, "title": "Added", "author": "zoe", "views": 0})
    );
    assert_eq!(
        answer["state"],
        json!({"source": "state", "view": "/posts/42"})
    );
}

#[test]
fn copies_derived_values_and_other_counters_stay_as_recorded() {
    // contract: STATE-114, STATE-115, STATE-116
    let with_comments = |id: u64, comments: u64| {
        let mut value = post(id);
        value["comment_count"] = json!(comments);
        value
    };
    let listed = json!({
        "items": [with_comments(1, 2), with_comments(2, 0), with_comments(3, 1)],
        "count": 3,
        "users_total": 5,
        "newest_title": "Gamma"
    });
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, listed),
        record(
            1,
            "GET",
            "/posts/1",
            200,
            json!({"data": with_comments(1, 2), "site": {"name": "Blog", "posts": 3}}),
        ),
        record(
            2,
            "GET",
            "/posts/2",
            200,
            json!({"data": with_comments(2, 0), "site": {"name": "Blog", "posts": 3}}),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    assert_eq!(list.counters, vec!["/count".to_owned()]);
    // Post 3 goes, post 1 is renamed.
    load_edited(&fixture, |document| {
        let position = entity_position(document, "/posts", "3");
        document["rea_state"]["entities"]
            .as_array_mut()
            .unwrap()
            .remove(position);
        let position = entity_position(document, "/posts", "1");
        document["rea_state"]["entities"][position]["fields"]["title"] = json!("Renamed");
    });
    let answer = fixture.call("get_posts", json!({}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let body = &answer["body"];
    assert_eq!(body["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(body["items"][0]["title"], "Renamed");
    // The list counter follows the state ...
    assert_eq!(body["count"], 2);
    // ... while another counter and a value copied from an entity stay as recorded.
    assert_eq!(body["users_total"], 5);
    assert_eq!(body["newest_title"], "Gamma");
    // A derived value (a post's comment count) stays as the entity holds it.
    assert_eq!(body["items"][0]["comment_count"], 2);
    let answer = fixture.call("get_posts_by_id", json!({"id": "1"}));
    assert_eq!(answer["body"]["data"]["title"], "Renamed");
    assert_eq!(answer["body"]["site"], json!({"name": "Blog", "posts": 3}));
}

#[test]
fn leaving_out_a_selection_every_checked_read_made_replays_as_projection() {
    // contract: STATE-090
    let short = |id: u64| json!({"id": id, "title": post(id)["title"]});
    let listed = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "GET", "/posts/2", 200, post(2)),
        record(2, "GET", "/posts/3", 200, post(3)),
        record(
            3,
            "GET",
            "/posts?_fields=id,title",
            200,
            json!([short(1), short(2), short(3)]),
        ),
    ]);
    let ViewDetail::List(list) = listed.view("get_posts") else {
        panic!("list: {:?}", listed.view("get_posts"))
    };
    assert_eq!(list.projected_record_ordinals, vec![3]);
    assert_eq!(
        listed.call("get_posts", json!({"_fields": "id,title"}))["state"]["source"],
        "state"
    );
    assert_eq!(
        stand_in(&listed.call("get_posts", json!({}))),
        json!({"not_modelled": "projection", "recording": "not-recorded"})
    );
    let item = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(
            1,
            "GET",
            "/posts/1?fields=title,id",
            200,
            json!({"title": "Alpha", "id": 1}),
        ),
    ]);
    let (tool, argument) = item.tool("/posts/{numeric}");
    let ViewDetail::Item(view) = item.view(&tool) else {
        panic!("item: {:?}", item.view(&tool))
    };
    assert_eq!(view.projected_record_ordinals, vec![1]);
    let answer = item.call(&tool, json!({argument.clone(): "2", "fields": "title,id"}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"], json!({"title": "Beta", "id": 2}));
    assert_eq!(
        stand_in(&item.call(&tool, json!({ argument: "2" }))),
        json!({"not_modelled": "projection", "recording": "not-recorded"})
    );
}

#[test]
fn leaving_out_a_parameter_every_other_line_named_replays_as_variant() {
    // contract: STATE-092, STATE-091
    let short = |id: u64| json!({"id": id, "title": post(id)["title"]});
    let fixture = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "GET", "/posts/2", 200, post(2)),
        record(2, "GET", "/posts/3", 200, post(3)),
        record(3, "GET", "/posts?expand=1", 200, posts()),
        record(
            4,
            "GET",
            "/posts?expand=1&author=alice",
            200,
            json!([post(1), post(3)]),
        ),
        // Without `expand` the application shows the posts in short.
        record(
            5,
            "GET",
            "/posts?author=alice",
            200,
            json!([short(1), short(3)]),
        ),
    ]);
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list: {:?}", fixture.view("get_posts"))
    };
    assert_eq!(
        list.projected_query_keys,
        [("!expand".to_owned(), "variant".to_owned())]
            .into_iter()
            .collect()
    );
    // The recorded request answers its recording; another is refused.
    for (arguments, expected) in [
        (json!({"author": "alice"}), json!({"recording": "variant"})),
        (
            json!({}),
            json!({"not_modelled": "variant", "recording": "not-recorded"}),
        ),
    ] {
        assert_eq!(
            stand_in(&fixture.call("get_posts", arguments.clone())),
            expected,
            "{arguments}"
        );
    }
    let answer = fixture.call("get_posts", json!({"expand": "1", "author": "alice"}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"], json!([post(1), post(3)]));
    // A value only a line showing another representation gave is a variant key too.
    let values = derive(vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "GET", "/posts/2", 200, post(2)),
        record(2, "GET", "/posts/3", 200, post(3)),
        record(3, "GET", "/posts", 200, posts()),
        record(4, "GET", "/posts?format=full", 200, posts()),
        record(
            5,
            "GET",
            "/posts?format=short",
            200,
            json!([short(1), short(2), short(3)]),
        ),
    ]);
    let ViewDetail::List(list) = values.view("get_posts") else {
        panic!("list: {:?}", values.view("get_posts"))
    };
    assert_eq!(
        list.projected_query_keys,
        [("format=short".to_owned(), "variant".to_owned())]
            .into_iter()
            .collect()
    );
    assert_eq!(
        stand_in(&values.call("get_posts", json!({"format": "short"}))),
        json!({"recording": "variant"})
    );
    assert_eq!(
        values.call("get_posts", json!({"format": "full"}))["state"]["source"],
        "state"
    );
}

/// A `POST` record sending a JSON request body.
fn post_record(
    ordinal: u64,
    target: &str,
    request: Value,
    status: u16,
    body: Value,
) -> CaptureRecord {
    sending_record((ordinal, "POST", target), request, status, body)
}

/// A record of `method` sending a JSON request body.
fn sending_record(
    (ordinal, method, target): (u64, &str, &str),
    request: Value,
    status: u16,
    body: Value,
) -> CaptureRecord {
    let mut record = record(ordinal, method, target, status, body);
    record.request.body = Body::Text {
        text: request.to_string().into(),
    };
    record.request.media_type = Some("application/json".into());
    record
}

#[test]
fn posts_the_capture_shows_only_reading_are_read_tools() {
    // contract: STATE-098
    let user = |id: u64| json!({"id": id, "name": format!("user {id}")});
    let fixture = derive(vec![
        record(0, "GET", "/users/1", 200, user(1)),
        // A lookup answering as the GET did.
        post_record(1, "/users/resolve", json!({"id": 1}), 200, user(1)),
        // An RPC tunnel naming a read operation.
        post_record(
            2,
            "/rpc",
            json!({"method": "getUser", "id": 2}),
            200,
            user(2),
        ),
        // A session renewal.
        post_record(
            3,
            "/auth/token/refresh",
            json!({}),
            200,
            json!({"token": "t2"}),
        ),
        // Reads after them still show the state the capture started from.
        record(4, "GET", "/users/2", 200, user(2)),
        // A create answers what a later read shows: it is no lookup.
        post_record(5, "/users", json!({"name": "user 3"}), 201, user(3)),
        record(6, "GET", "/users/3", 200, user(3)),
        // An operation that writes.
        post_record(7, "/rpc2", json!({"method": "createUser"}), 200, user(4)),
        // An acknowledgment a GET also answered is no lookup.
        record(8, "GET", "/health", 200, json!({"ok": true})),
        post_record(9, "/logout", json!({}), 200, json!({"ok": true})),
    ]);
    let tool_of = |method: &str, template: &str| -> String {
        fixture
            .manifest
            .tools
            .iter()
            .find(|tool| tool.method == method && tool.path_template == template)
            .unwrap_or_else(|| panic!("no tool {method} {template}"))
            .name
            .clone()
    };
    for (template, body) in [
        ("/users/resolve", json!({"id": 1})),
        ("/rpc", json!({"method": "getUser", "id": 2})),
        ("/auth/token/refresh", json!({})),
    ] {
        let tool = tool_of("POST", template);
        assert!(
            matches!(fixture.view(&tool), ViewDetail::Recorded { reason } if reason == "query-body"),
            "{tool}: {:?}",
            fixture.view(&tool)
        );
        assert!(
            fixture.state.write_plan(&tool).is_none(),
            "{tool} is no write"
        );
        // The recorded body answers its recording; another body, or none, is refused.
        let answer = fixture.call(&tool, json!({ "body": body }));
        assert_eq!(
            answer["state"],
            json!({"source": "recording", "reason": "query-body"}),
            "{tool}: {answer}"
        );
        for other in [json!({"body": {"id": 9}}), json!({})] {
            let answer = fixture.call(&tool, other);
            assert_eq!(
                stand_in(&answer),
                json!({"not_modelled": "query-body", "recording": "not-recorded"}),
                "{tool}: {answer}"
            );
        }
    }
    // The first write is the create: the reads after the reading POSTs seeded the state.
    assert_eq!(fixture.state.first_write_ordinal, Some(5));
    let held: Vec<&str> = fixture
        .state
        .entities
        .iter()
        .map(|entity| entity.id.as_str())
        .collect();
    assert_eq!(held, vec!["1", "2"]);
    for template in ["/users", "/rpc2", "/logout"] {
        let tool = tool_of("POST", template);
        assert!(fixture.state.view(&tool).is_none(), "{tool} is a write");
        assert!(
            fixture.state.write_plan(&tool).is_some(),
            "{tool} has a plan"
        );
    }
}

#[test]
fn a_later_read_contradicting_a_sorted_array_keeps_the_list_recorded() {
    // contract: STATE-075
    let note = |id: u64, tags: Value| json!({"id": id, "tags": tags});
    let capture = |later: Value| {
        vec![
            record(0, "GET", "/notes/1", 200, note(1, json!(["b", "a"]))),
            record(1, "GET", "/notes/2", 200, note(2, json!(["d", "c"]))),
            record(
                2,
                "GET",
                "/notes",
                200,
                json!([note(1, json!(["a", "b"])), note(2, json!(["c", "d"]))]),
            ),
            post_record(
                3,
                "/notes",
                json!({"tags": ["z", "y"]}),
                201,
                note(3, json!(["z", "y"])),
            ),
            record(4, "GET", "/notes/3", 200, note(3, json!(["z", "y"]))),
            record(
                5,
                "GET",
                "/notes",
                200,
                json!([
                    note(1, json!(["a", "b"])),
                    note(2, json!(["c", "d"])),
                    later
                ]),
            ),
        ]
    };
    let confirmed = |fixture: &Fixture| -> Vec<u64> {
        fixture
            .state
            .write_plan("post_notes")
            .map(|plan| plan.confirmed_by.clone())
            .unwrap_or_default()
    };
    // The later list shows the created note's tags sorted: the ordering holds.
    let agreeing = derive(capture(note(3, json!(["y", "z"]))));
    let ViewDetail::List(list) = agreeing.view("get_notes") else {
        panic!("list: {:?}", agreeing.view("get_notes"))
    };
    assert_eq!(list.shape.sorted_arrays, vec!["tags".to_owned()]);
    assert!(
        confirmed(&agreeing).contains(&5),
        "{:?}",
        agreeing.state.write_plans
    );
    // It lists them as written: the view stays recorded, and that read confirms nothing.
    let contradicting = derive(capture(note(3, json!(["z", "y"]))));
    assert!(
        matches!(contradicting.view("get_notes"), ViewDetail::Recorded { reason } if reason == "list-differs"),
        "{:?}",
        contradicting.view("get_notes")
    );
    assert!(!confirmed(&contradicting).contains(&5));
    assert_eq!(
        contradicting.call("get_notes", json!({}))["state"]["source"],
        "recording"
    );
}

#[test]
fn head_options_and_trace_tools_count_as_recorded_reads() {
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, posts()),
        record(1, "HEAD", "/posts", 200, Value::Null),
        record(2, "OPTIONS", "/posts", 204, Value::Null),
        record(3, "TRACE", "/posts", 200, Value::Null),
    ]);
    let summary = crate::coverage::summary(&fixture.state);
    // contract: STATE-101
    assert_eq!(
        summary["reads"],
        json!({"state": 1, "recorded": 3, "recorded_reasons": {"method-replay": 3}}),
        "{summary}"
    );
}

#[test]
fn a_plain_list_counts_what_it_lists_after_the_writes() {
    // The plain list's `total` counts the collection (the paged lines tell it apart from the
    // page): after a delete the plain list, rendered from the state, counts what it lists, so
    // the read after the recorded delete confirms it rather than contradicting it.
    let counted = |members: Value, total: u64| json!({"items": members, "total": total});
    let fixture = derive(vec![
        record(0, "GET", "/posts", 200, counted(posts(), 3)),
        record(
            1,
            "GET",
            "/posts?limit=1&page=1",
            200,
            counted(json!([post(1)]), 3),
        ),
        record(
            2,
            "GET",
            "/posts?limit=1&page=2",
            200,
            counted(json!([post(2)]), 3),
        ),
        record(3, "GET", "/posts/2", 200, post(2)),
        record(4, "GET", "/posts/3", 200, post(3)),
        record(5, "DELETE", "/posts/3", 204, Value::Null),
        record(6, "GET", "/posts/3", 404, json!({"error": "not found"})),
        record(
            7,
            "GET",
            "/posts",
            200,
            counted(json!([post(1), post(2)]), 2),
        ),
    ]);
    // Served from the seed (posts 1-3): deleting post 2 leaves two, counted 2, not the 3 the
    // plain line recorded.
    let deleted = fixture.call("delete_posts_by_id", json!({"id": "2"}));
    assert_eq!(deleted["status"], 204, "{deleted}");
    let answer = fixture.call("get_posts", json!({}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"], counted(json!([post(1), post(3)]), 2));
}

/// A list whose page lines alone ask for `meta` (and one filtered line too, when `filtered`).
fn meta_lines(filtered: bool) -> Fixture {
    let page = |members: Value| json!({"items": members});
    let counted = |members: Value, total: u64| json!({"items": members, "meta": {"total": total}});
    let mut records = vec![
        record(0, "GET", "/posts", 200, page(posts())),
        record(
            1,
            "GET",
            "/posts?limit=1&page=1&meta=total",
            200,
            counted(json!([post(1)]), 3),
        ),
        record(
            2,
            "GET",
            "/posts?limit=1&page=2&meta=total",
            200,
            counted(json!([post(2)]), 3),
        ),
        record(
            3,
            "GET",
            "/posts?author=alice",
            200,
            page(json!([post(1), post(3)])),
        ),
        // A member only one query showed, where the page listed every match: not a total.
        record(
            4,
            "GET",
            "/posts?author=bob&extra=count",
            200,
            json!({"items": [post(2)], "count": 1}),
        ),
    ];
    if filtered {
        records.push(record(
            5,
            "GET",
            "/posts?author=alice&limit=1&page=1&meta=total",
            200,
            counted(json!([post(1)]), 2),
        ));
    }
    derive(records)
}

fn query_model_of(fixture: &Fixture) -> crate::model::QueryModel {
    let ViewDetail::List(list) = fixture.view("get_posts") else {
        panic!("list")
    };
    list.query.clone().expect("a query model")
}

#[test]
fn a_total_some_queries_ask_for_is_computed_and_never_another_querys_value() {
    let fixture = meta_lines(false);
    // Held only by the lines that asked for it, counting the matches where a page listed fewer,
    // but never on a filtered line: the number matched or the collection's size.
    let model = query_model_of(&fixture);
    assert!(model.totals.is_empty());
    assert_eq!(model.unfiltered_totals, vec!["/meta/total"]);
    // Another page asking for it: the envelope the asking lines show, counted.
    let answer = fixture.call("get_posts", json!({"limit": 2, "page": 2, "meta": "total"}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(
        answer["body"],
        json!({"items": [post(3)], "meta": {"total": 3}})
    );
    // A filter asking for it: which count the member is, the recordings do not tell.
    let answer = fixture.call(
        "get_posts",
        json!({"author": "alice", "limit": 1, "page": 2, "meta": "total"}),
    );
    assert_ne!(answer["state"]["source"], "state", "{answer}");
    // Without it: the plain envelope.
    let answer = fixture.call("get_posts", json!({"author": "alice", "limit": 1}));
    assert_eq!(answer["body"], json!({"items": [post(1)]}));
    // The member the state does not compute is never shown with another query's value.
    let answer = fixture.call("get_posts", json!({"author": "alice", "extra": "count"}));
    assert_ne!(answer["body"]["count"], json!(1), "{answer}");
}

#[test]
fn a_count_only_complete_pages_showed_is_computed_for_complete_pages() {
    let fixture = meta_lines(false);
    // `count` was shown once, on a filtered line listing every match: the number matched or
    // listed, never told apart.
    let model = query_model_of(&fixture);
    assert_eq!(model.complete_totals, vec!["/count"]);
    let answer = fixture.call("get_posts", json!({"author": "alice", "extra": "count"}));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(
        answer["body"],
        json!({"items": [post(1), post(3)], "count": 2})
    );
    // A page leaving matches out: which number the member is, the recordings do not tell.
    let answer = fixture.call(
        "get_posts",
        json!({"author": "alice", "extra": "count", "limit": 1}),
    );
    assert_ne!(answer["state"]["source"], "state", "{answer}");
    assert_ne!(answer["body"]["count"], json!(1), "{answer}");
}

#[test]
fn a_total_a_filtered_query_showed_counts_the_matches() {
    let fixture = meta_lines(true);
    let model = query_model_of(&fixture);
    assert_eq!(model.totals, vec!["/meta/total"]);
    assert!(model.unfiltered_totals.is_empty());
    let answer = fixture.call(
        "get_posts",
        json!({"author": "alice", "limit": 1, "page": 2, "meta": "total"}),
    );
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(
        answer["body"],
        json!({"items": [post(3)], "meta": {"total": 2}})
    );
}

/// A type of `template` identified by `id`.
fn entity_type(template: &str) -> crate::model::EntityType {
    crate::model::EntityType::new(template.to_owned(), "id".to_owned(), None)
}

/// A write plan of `tool` writing the type `template`, served or withheld.
fn plan_writing(tool: &str, template: &str, served: bool) -> crate::writes::model::WritePlan {
    serde_json::from_value(json!({
        "tool": tool, "method": "PUT", "path_template": format!("{template}/{{id}}"),
        "effect": "update", "bulk": false, "served": served,
        "record_ordinals": [], "confirmed_by": [], "rules": [],
        "target": {"type": template, "identity_field": "id", "collection_segments": 1}
    }))
    .expect("plan")
}

#[test]
fn types_inside_a_served_collection_that_no_write_tool_writes_are_unmodelled_after_writes() {
    let types = [
        "/{db}",
        "/{db}/_changes",
        "/{db}/_design/catalog/_view/by_genre",
        "/{db}/attachments",
        "/{other}/_all_docs",
        "/users",
        "/",
    ]
    .map(entity_type);
    let plans = [
        plan_writing("put_doc", "/{db}", true),
        // Written by a tool of its own (withheld): not an index of the documents.
        plan_writing("put_attachment", "/{db}/attachments", false),
        // Withheld: it writes nothing, so nothing inside it goes stale.
        plan_writing("put_user", "/users", false),
    ];
    let nested = super::nested_in_written(&types, &plans);
    // `/{other}/_all_docs` lies inside `/{db}` too: a parameter segment names any collection.
    assert_eq!(
        nested.into_iter().collect::<Vec<_>>(),
        [
            "/{db}/_changes",
            "/{db}/_design/catalog/_view/by_genre",
            "/{other}/_all_docs"
        ]
    );
    // A written collection at the root holds every path: it names no nested type.
    let root = [plan_writing("put_item", "/", true)];
    assert!(super::nested_in_written(&types, &root).is_empty());
}

#[test]
fn the_draw_seed_seals_the_state_without_its_parents_ids() {
    let records = vec![
        record(0, "GET", "/posts/1", 200, post(1)),
        record(1, "GET", "/posts/2", 200, post(2)),
    ];
    let mut state = derive(records.clone()).state;
    let seed = crate::evidence::draw_seed(&mut state).unwrap();
    assert!(seed.starts_with("ev_"));
    // The ids are kept, and the seed is not the state Evidence id.
    assert_eq!(state.parent_evidence_id, "ev_capture");
    assert_eq!(state.manifest_evidence_id, "ev_manifest");
    assert_ne!(seed, crate::evidence::sealed_state_id(&state).unwrap());
    // Another capture file (its path in the capture Evidence) gives other parents, the same seed.
    state.parent_evidence_id = "ev_moved_capture".to_owned();
    state.manifest_evidence_id = "ev_moved_manifest".to_owned();
    state.draw_seed = seed.clone();
    assert_eq!(crate::evidence::draw_seed(&mut state).unwrap(), seed);
    assert_eq!(state.draw_seed, seed, "the member is restored");
    // Other content, another seed.
    let mut other = derive(vec![record(0, "GET", "/posts/3", 200, post(3))]).state;
    assert_ne!(crate::evidence::draw_seed(&mut other).unwrap(), seed);
}

#[test]
fn the_shared_entities_list_holds_room_for_its_entities_only() {
    let mut entities = Vec::new();
    for id in 1..=5 {
        entities.push(crate::model::Entity {
            entity_type: "/posts".to_owned(),
            collection: "/posts".to_owned(),
            id: id.to_string(),
            fields: rea_plugin_api::json::Json::parse(format!(r#"{{"id": {id}}}"#).as_bytes())
                .unwrap(),
            view_fields: std::collections::BTreeMap::new(),
            record_ordinals: vec![id],
        });
    }
    assert!(entities.capacity() > entities.len());
    let shared = super::shared_entities(entities);
    assert_eq!(shared.len(), 5);
    assert_eq!(shared.capacity(), 5);
    assert_eq!(shared[4].id, "5");
}

#[test]
fn a_list_below_a_parent_lists_the_entities_an_item_route_below_it_mirrors() {
    let task =
        |id: u64, project: u64| json!({"id": id, "project": project, "title": format!("t{id}")});
    let fixture = derive(vec![
        record(
            0,
            "GET",
            "/tasks",
            200,
            json!([task(1, 1), task(2, 1), task(3, 2), task(4, 3)]),
        ),
        record(1, "GET", "/projects/1/tasks/2", 200, task(2, 1)),
        record(2, "GET", "/projects/2/tasks/3", 200, task(3, 2)),
        record(
            3,
            "GET",
            "/projects/1/tasks",
            200,
            json!([task(1, 1), task(2, 1)]),
        ),
        record(4, "GET", "/projects/2/tasks", 200, json!([task(3, 2)])),
    ]);
    let (list_tool, _) = fixture.tool("/projects/{numeric}/tasks");
    let ViewDetail::List(list) = fixture.view(&list_tool) else {
        panic!("a list view")
    };
    // The tasks listed under a project are the tasks, not a collection of their own.
    assert_eq!(list.entity_type, "/tasks");
}

#[test]
fn an_object_sharing_an_entity_by_its_id_and_empty_values_is_not_that_entity() {
    let device = |id: &str, name: &str| json!({"deviceID": id, "name": name, "introducedBy": "", "paused": false});
    let share = |id: &str| json!({"deviceID": id, "introducedBy": "", "encryptionPassword": ""});
    let fixture = derive(vec![
        record(
            0,
            "GET",
            "/devices",
            200,
            json!([device("A", "nas"), device("B", "phone")]),
        ),
        record(1, "GET", "/devices/A", 200, device("A", "nas")),
        record(2, "GET", "/devices/B", 200, device("B", "phone")),
        record(
            3,
            "GET",
            "/defaults/folder",
            200,
            json!({"id": "", "label": "", "devices": [share("A")]}),
        ),
    ]);
    let (defaults, _) = fixture.tool("/defaults/folder");
    // The share agrees with device A on its id and an empty text only: not a device.
    let ViewDetail::List(list) = fixture.view(&defaults) else {
        panic!("the shares' list")
    };
    assert_eq!(list.entity_type, "/defaults/folder");
}

#[test]
fn an_id_of_no_held_form_answers_the_error_recorded_for_one() {
    let device = |id: &str| json!({"deviceID": id, "name": format!("d{id}")});
    let fixture = derive(vec![
        record(0, "GET", "/devices/AAA-111", 200, device("AAA-111")),
        record(1, "GET", "/devices/BBB-222", 200, device("BBB-222")),
        record(2, "GET", "/devices/CCC-333", 404, json!("no such device")),
        record(
            3,
            "GET",
            "/devices/NOPE",
            400,
            json!("\"NOPE\": device ID invalid"),
        ),
    ]);
    let (tool, argument) = fixture.tool("/devices/{sibling-variance}");
    let ViewDetail::Item(item) = fixture.view(&tool) else {
        panic!("an item view")
    };
    assert_eq!(
        (item.missing_ordinal, item.malformed_ordinal),
        (Some(2), Some(3))
    );
    // Another id of a held form is missing; one of another form is malformed, named as called.
    let missing = fixture.call(&tool, json!({ argument.clone(): "DDD-444" }));
    assert_eq!(
        (missing["status"].clone(), missing["body"].clone()),
        (json!(404), json!("no such device"))
    );
    let malformed = fixture.call(&tool, json!({ argument: "XY" }));
    assert_eq!(malformed["status"], 400, "{malformed}");
    assert_eq!(malformed["body"], json!("\"XY\": device ID invalid"));
}
