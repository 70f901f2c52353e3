//! Unit tests of write plans on small hand-made captures: each withheld reason the host decides,
//! and the rules the changelog says went wrong (a soft-deleted entity read back marked deleted is
//! dropped, not adopted; a toggle needs a flip both ways).

use std::collections::BTreeMap;
use std::sync::Arc;

use rea_manifest::{Environment, TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordRequest, RecordResponse, StartTime,
};
use serde_json::{Value, json};

use crate::model::StateView;
use crate::rules::{ConfiguredRule, RuleSet};
use crate::service::StateService;

const ORIGIN: &str = "http://127.0.0.1:3000";

/// A record: `method target` sending `request` (JSON), answering `status` with `response`.
fn record(
    ordinal: u64,
    method: &str,
    target: &str,
    request: Option<Value>,
    status: u16,
    response: Value,
) -> CaptureRecord {
    let text = match &response {
        Value::Null => String::new(),
        other => other.to_string(),
    };
    CaptureRecord {
        duration_ms: Some(5.0),
        method: Some(method.to_owned()),
        ordinal,
        origin: Some(ORIGIN.to_owned()),
        path: Some(target.to_owned()),
        pointer: format!("/log/entries/{ordinal}"),
        query: None,
        request: RecordRequest {
            body: match &request {
                Some(body) => Body::Text {
                    text: body.to_string(),
                },
                None => Body::Missing,
            },
            headers: Vec::new(),
            http_version: Some("HTTP/1.1".to_owned()),
            media_type: request.as_ref().map(|_| "application/json".to_owned()),
        },
        response: RecordResponse {
            body: Body::Text { text },
            headers: Vec::new(),
            http_version: Some("HTTP/1.1".to_owned()),
            media_type: Some("application/json".to_owned()),
            status,
            status_text: None,
        },
        started: Some(StartTime {
            instant: Some(format!(
                "2026-01-01T00:{:02}:{:02}.000000000Z",
                ordinal / 60,
                ordinal % 60
            )),
            recorded: String::new(),
        }),
        url: Some(format!("{ORIGIN}{target}")),
    }
}

fn get(ordinal: u64, target: &str, status: u16, response: Value) -> CaptureRecord {
    record(ordinal, "GET", target, None, status, response)
}

/// The built-in rules, in the default pipeline's order (plain Rust, through the JSON contract).
fn rules() -> RuleSet {
    let mut rules = RuleSet::empty();
    let mut add = |stage: &str, handle: Arc<dyn crate::rules::RuleStep>| {
        rules.push(ConfiguredRule {
            stage: stage.to_owned(),
            plugin: "test".to_owned(),
            options: BTreeMap::new(),
            handle,
        });
    };
    add("clock", RuleSet::direct(rea_plugin_clock::ClockRule));
    add(
        "sequence",
        RuleSet::direct(rea_plugin_sequence::SequenceRule),
    );
    add(
        "uuid",
        RuleSet::direct(rea_plugin_uuid::GeneratedRule(rea_plugin_uuid::Kind::Uuid)),
    );
    add(
        "soft-delete",
        RuleSet::direct(rea_plugin_soft_delete::SoftDeleteRule),
    );
    add("toggle", RuleSet::direct(rea_plugin_toggle::ToggleRule));
    add("set", RuleSet::direct(rea_plugin_toggle::SetRule));
    add(
        "sort-inference",
        RuleSet::direct(rea_plugin_sort_inference::SortInference),
    );
    rules
}

struct Fixture {
    state: StateView,
    service: StateService,
}

fn derive(records: Vec<CaptureRecord>) -> Fixture {
    let manifest = project_manifest(
        "ev_capture",
        &records,
        &TemplateRules::parse(&["sibling-variance", "prefix-variance"]).unwrap(),
    )
    .unwrap();
    let rules = rules();
    let state = crate::derive::derive_state(&manifest, "ev_manifest", &records, &rules).unwrap();
    let environment = Environment::new(&manifest, "ev_capture", records.clone()).unwrap();
    let service = StateService::new(
        state.clone(),
        "ev_state".to_owned(),
        environment,
        &records,
        Arc::new(rules),
    );
    Fixture { state, service }
}

impl Fixture {
    fn plan(&self, tool: &str) -> &crate::writes::model::WritePlan {
        self.state
            .write_plan(tool)
            .unwrap_or_else(|| panic!("no plan for {tool}: {:?}", self.state.write_plans))
    }

    fn call(&self, tool: &str, arguments: Value) -> (Value, bool) {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object")
        };
        let answer = self.service.answer(tool, &arguments);
        (
            serde_json::from_str(&answer.text).unwrap_or(Value::Null),
            answer.is_error,
        )
    }
}

fn contact(id: u64, name: &str, deleted: bool) -> Value {
    json!({"id": id, "name": name, "deleted": deleted})
}

#[test]
fn a_soft_delete_keeps_the_entity_marked_and_drops_it_from_lists() {
    // contract: WRITE-050, WRITE-051, WRITE-052, WRITE-025
    let fixture = derive(vec![
        get(
            0,
            "/contacts",
            200,
            json!([
                contact(1, "Ann", false),
                contact(2, "Bo", false),
                contact(3, "Cy", false)
            ]),
        ),
        get(1, "/contacts/1", 200, contact(1, "Ann", false)),
        get(2, "/contacts/2", 200, contact(2, "Bo", false)),
        get(3, "/contacts/3", 200, contact(3, "Cy", false)),
        record(4, "DELETE", "/contacts/1", None, 200, json!({})),
        // Read back marked deleted (as EspoCRM answers), and gone from the list.
        get(5, "/contacts/1", 200, contact(1, "Ann", true)),
        get(
            6,
            "/contacts",
            200,
            json!([contact(2, "Bo", false), contact(3, "Cy", false)]),
        ),
        record(7, "DELETE", "/contacts/2", None, 200, json!({})),
        get(8, "/contacts/2", 200, contact(2, "Bo", true)),
        get(9, "/contacts", 200, json!([contact(3, "Cy", false)])),
    ]);
    let plan = fixture.plan("delete_contacts_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    // The entity read back marked deleted was dropped, not adopted: the list after it agrees.
    assert!(plan.confirmed_by.contains(&6), "{:?}", plan.confirmed_by);
    assert_eq!(
        plan.fields
            .as_ref()
            .and_then(|fields| fields.soft_delete.as_deref()),
        Some("deleted")
    );
    assert_eq!(
        fixture.state.types[0].deleted_flag.as_deref(),
        Some("deleted")
    );
    // Served: the entity stays readable by id, marked deleted, and leaves the list.
    let (deleted, error) = fixture.call("delete_contacts_by_id", json!({"id": "3"}));
    assert!(!error, "{deleted}");
    let (read, _) = fixture.call("get_contacts_by_id", json!({"id": "3"}));
    assert_eq!(read["status"], 200);
    assert_eq!(read["body"], contact(3, "Cy", true));
    let (listed, _) = fixture.call("get_contacts", json!({}));
    assert_eq!(
        listed["body"],
        json!([contact(1, "Ann", false), contact(2, "Bo", false)])
    );
    // A reset restores it.
    fixture.service.reset();
    let (restored, _) = fixture.call("get_contacts_by_id", json!({"id": "3"}));
    assert_eq!(restored["body"], contact(3, "Cy", false));
}

fn entry(id: u64, starred: bool) -> Value {
    json!({"id": id, "title": format!("entry {id}"), "starred": starred})
}

#[test]
fn a_toggle_is_served_only_after_flips_both_ways() {
    // contract: WRITE-019, WRITE-021, WRITE-022, WRITE-023, WRITE-024
    let both = derive(vec![
        get(0, "/entries/1", 200, entry(1, false)),
        get(1, "/entries/2", 200, entry(2, true)),
        record(2, "PUT", "/entries/1/bookmark", None, 204, Value::Null),
        get(3, "/entries/1", 200, entry(1, true)),
        record(4, "PUT", "/entries/1/bookmark", None, 204, Value::Null),
        get(5, "/entries/1", 200, entry(1, false)),
    ]);
    let plan = both.plan("put_entries_bookmark_by_entry_id");
    assert_eq!(plan.action.as_deref(), Some("bookmark"));
    assert!(plan.served, "{:?}", plan.reason);
    assert!(plan.rules.iter().any(|rule| rule.stage == "toggle"));
    let (_, error) = both.call("put_entries_bookmark_by_entry_id", json!({"entry_id": "2"}));
    assert!(!error);
    let (read, _) = both.call("get_entries_by_id", json!({"id": "2"}));
    assert_eq!(read["body"]["starred"], false);

    let one_way = derive(vec![
        get(0, "/entries/1", 200, entry(1, false)),
        record(1, "PUT", "/entries/1/bookmark", None, 204, Value::Null),
        get(2, "/entries/1", 200, entry(1, true)),
    ]);
    let plan = one_way.plan("put_entries_bookmark_by_entry_id");
    assert_eq!(plan.reason.as_deref(), Some("unexplained-change"));
}

fn note(id: u64, text: &str, updated: &str) -> Value {
    json!({"id": id, "text": text, "updated_at": updated})
}

#[test]
fn each_withheld_reason_the_host_decides() {
    // contract: STATE-107, WRITE-061, WRITE-062
    let base = || {
        vec![
            get(
                0,
                "/notes",
                200,
                json!([note(1, "a", "2026-01-01T00:00:00Z")]),
            ),
            get(1, "/notes/1", 200, note(1, "a", "2026-01-01T00:00:00Z")),
        ]
    };
    // unconfirmed: no read after the write.
    let mut records = base();
    records.push(record(
        2,
        "PATCH",
        "/notes/1",
        Some(json!({"text": "b"})),
        200,
        note(1, "b", "2026-01-01T00:00:00Z"),
    ));
    let fixture = derive(records);
    assert_eq!(
        fixture.plan("patch_notes_by_id").reason.as_deref(),
        Some("unconfirmed")
    );

    // no-call: every call failed.
    let mut records = base();
    records.push(record(
        2,
        "PATCH",
        "/notes/9",
        Some(json!({"text": "b"})),
        404,
        json!({}),
    ));
    let fixture = derive(records);
    assert_eq!(
        fixture.plan("patch_notes_by_id").reason.as_deref(),
        Some("no-call")
    );

    // body-unusable: a body that is not JSON.
    let mut records = base();
    let mut form = record(
        2,
        "PATCH",
        "/notes/1",
        None,
        200,
        note(1, "b", "2026-01-01T00:00:00Z"),
    );
    form.request.body = Body::Text {
        text: "text=b".to_owned(),
    };
    form.request.media_type = Some("application/x-www-form-urlencoded".to_owned());
    records.push(form);
    records.push(get(
        3,
        "/notes/1",
        200,
        note(1, "b", "2026-01-01T00:00:00Z"),
    ));
    let fixture = derive(records);
    assert_eq!(
        fixture.plan("patch_notes_by_id").reason.as_deref(),
        Some("body-unusable")
    );

    // no-observation: an update of an entity the state never held.
    let mut records = base();
    records.push(record(
        2,
        "PATCH",
        "/notes/7",
        Some(json!({"text": "b"})),
        200,
        note(7, "b", "2026-01-01T00:00:00Z"),
    ));
    records.push(get(
        3,
        "/notes/7",
        200,
        note(7, "b", "2026-01-01T00:00:00Z"),
    ));
    let fixture = derive(records);
    assert_eq!(
        fixture.plan("patch_notes_by_id").reason.as_deref(),
        Some("no-observation")
    );

    // contradicted: the read after disagrees with what the plan applies (the text the
    // application stored is not the one sent, and a later read shows the sent text gone).
    let mut records = base();
    records.push(record(
        2,
        "PATCH",
        "/notes/1",
        Some(json!({"text": "b"})),
        200,
        note(1, "b", "2026-01-01T00:00:00Z"),
    ));
    records.push(get(
        3,
        "/notes/1",
        200,
        note(1, "b", "2026-01-01T00:00:00Z"),
    ));
    records.push(record(
        4,
        "PATCH",
        "/notes/1",
        Some(json!({"text": "c"})),
        200,
        note(1, "c", "2026-01-01T00:00:00Z"),
    ));
    records.push(get(
        5,
        "/notes",
        200,
        json!([note(1, "C!", "2026-01-01T00:00:00Z")]),
    ));
    let fixture = derive(records);
    let plan = fixture.plan("patch_notes_by_id");
    assert_eq!(plan.reason.as_deref(), Some("contradicted"), "{plan:?}");
    assert_eq!(plan.contradicted_by, Some(5));

    // unknown-clock: the write stamps `updated_at` (the clock rule explains it), but one record
    // has no duration, so the capture fixes no served clock start; another confirmed plan is
    // still served.
    let mut records = base();
    records[0].duration_ms = None;
    records.push(record(
        2,
        "PATCH",
        "/notes/1",
        Some(json!({"text": "b"})),
        200,
        note(1, "b", "2026-01-01T00:00:02Z"),
    ));
    records.push(get(
        3,
        "/notes/1",
        200,
        note(1, "b", "2026-01-01T00:00:02Z"),
    ));
    records.push(record(
        4,
        "POST",
        "/notes",
        Some(json!({"text": "n", "updated_at": "2026-01-01T00:00:00Z"})),
        201,
        note(2, "n", "2026-01-01T00:00:00Z"),
    ));
    records.push(get(
        5,
        "/notes/2",
        200,
        note(2, "n", "2026-01-01T00:00:00Z"),
    ));
    let fixture = derive(records);
    assert!(fixture.state.write_clock.is_none());
    let plan = fixture.plan("patch_notes_by_id");
    assert_eq!(plan.reason.as_deref(), Some("unknown-clock"), "{plan:?}");
    assert!(plan.rules.iter().any(|rule| rule.stage == "clock"));
    assert!(
        fixture.plan("post_notes").served,
        "{:?}",
        fixture.plan("post_notes")
    );
    // And not in the catalog: the served one is.
    let (_, error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"text": "x"}}),
    );
    assert!(error || fixture.plan("patch_notes_by_id").reason.is_some());
}

#[test]
fn served_updates_stamp_the_served_clock() {
    // contract: WRITE-008, WRITE-056, WRITE-057, WRITE-063
    let fixture = derive(vec![
        get(
            0,
            "/notes",
            200,
            json!([note(1, "a", "2026-01-01T00:00:00Z")]),
        ),
        get(1, "/notes/1", 200, note(1, "a", "2026-01-01T00:00:00Z")),
        record(
            2,
            "PATCH",
            "/notes/1",
            Some(json!({"text": "b"})),
            200,
            note(1, "b", "2026-01-01T00:00:02Z"),
        ),
        get(3, "/notes/1", 200, note(1, "b", "2026-01-01T00:00:02Z")),
    ]);
    let plan = fixture.plan("patch_notes_by_id");
    assert!(plan.served, "{plan:?}");
    let clock = fixture.state.write_clock.clone().expect("a clock");
    assert_eq!(clock, "2026-01-01T00:00:04Z");
    let (first, _) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"text": "x"}}),
    );
    assert_eq!(first["body"]["updated_at"], "2026-01-01T00:00:04Z");
    let (second, _) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"text": "y"}}),
    );
    assert_eq!(second["body"]["updated_at"], "2026-01-01T00:00:05Z");
    fixture.service.reset();
    let (again, _) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"text": "x"}}),
    );
    assert_eq!(again["body"], first["body"]);
}

#[test]
fn a_member_sent_but_never_stored_is_accepted_only_with_its_value() {
    // contract: WRITE-045, WRITE-043, WRITE-044, WRITE-046, WRITE-055
    let fixture = derive(vec![
        get(0, "/notes", 200, json!([{"id": 1, "text": "a"}])),
        get(1, "/notes/1", 200, json!({"id": 1, "text": "a"})),
        record(
            2,
            "POST",
            "/notes",
            Some(json!({"text": "b", "notify": false})),
            201,
            json!({"id": 2, "text": "b"}),
        ),
        get(3, "/notes/2", 200, json!({"id": 2, "text": "b"})),
        get(
            4,
            "/notes",
            200,
            json!([{"id": 1, "text": "a"}, {"id": 2, "text": "b"}]),
        ),
    ]);
    let plan = fixture.plan("post_notes");
    assert!(plan.served, "{plan:?}");
    let notify = &plan.body.as_ref().expect("body").members["notify"];
    assert_eq!(notify.fixed, Some(rea_plugin_api::json::Json::Bool(false)));
    let before = fixture.service.document();
    let refused = |arguments: Value, needle: &str| {
        let (answer, error) = fixture.call("post_notes", arguments);
        assert!(error, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{message}");
        assert!(
            message.contains("\"notify\" (boolean, required, only false)"),
            "{message}"
        );
    };
    refused(
        json!({"body": {"text": "c", "notify": true}}),
        "only with its recorded value",
    );
    refused(json!({"body": {"text": 3}}), "is a number");
    refused(
        json!({"body": {"text": "c", "color": "red"}}),
        "never shown stored",
    );
    refused(json!({"body": ["c"]}), "must be a JSON object");
    assert_eq!(fixture.service.document(), before);
    let (created, error) = fixture.call(
        "post_notes",
        json!({"body": {"text": "c", "notify": false}}),
    );
    assert!(!error, "{created}");
    // The served state is the one the reads observed before the first write: note 2 was never
    // held, so the sequence gives 2.
    assert_eq!(created["body"], json!({"id": 2, "text": "c"}));
}
