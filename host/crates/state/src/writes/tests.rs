//! Unit tests of write plans on small hand-made captures: each withheld reason the host decides,
//! and the rules the changelog says went wrong (a soft-deleted entity read back marked deleted is
//! dropped, not adopted; a toggle needs a flip both ways).

use std::collections::BTreeMap;
use std::sync::Arc;

use rea_manifest::{Environment, TemplateRules, project_manifest};
use rea_plugin_api::contracts::capture::{Body, CaptureRecord, RecordRequest, RecordResponse};
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
    let (path, query) = match target.split_once('?') {
        Some((path, raw)) => (
            path.to_owned(),
            Some(rea_plugin_api::contracts::capture::RecordQuery {
                pairs: raw
                    .split('&')
                    .map(|pair| {
                        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                        Some((name.to_owned(), value.to_owned()))
                    })
                    .collect(),
                raw: Some(raw.into()),
            }),
        ),
        None => (target.to_owned(), None),
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
            body: match &request {
                Some(body) => Body::Text {
                    text: body.to_string().into(),
                },
                None => Body::Missing,
            },
            headers: Vec::new(),
            http_version: Some("HTTP/1.1".into()),
            media_type: request.as_ref().map(|_| "application/json".into()),
        },
        response: RecordResponse {
            body: Body::Text { text: text.into() },
            headers: Vec::new(),
            http_version: Some("HTTP/1.1".into()),
            media_type: Some("application/json".into()),
            status,
            status_text: None,
        },
        started: Some(crate::test_support::started_at(ordinal)),
        url: Some(format!("{ORIGIN}{target}").into()),
    }
}

fn get(ordinal: u64, target: &str, status: u16, response: Value) -> CaptureRecord {
    record(ordinal, "GET", target, None, status, response)
}

/// The built-in rules, in the default pipeline's order (plain Rust, through the JSON contract).
fn rules() -> RuleSet {
    rules_except(&[])
}

/// The default rule stages but those named.
fn rules_except(left_out: &[&str]) -> RuleSet {
    let mut rules = RuleSet::empty();
    let mut add = |stage: &str, handle: Arc<dyn crate::rules::RuleStep>| {
        if left_out.contains(&stage) {
            return;
        }
        rules.push(ConfiguredRule {
            stage: stage.to_owned(),
            plugin: "test".to_owned(),
            options: BTreeMap::new(),
            handle,
        });
    };
    add(
        "held-clock",
        RuleSet::direct(rea_plugin_held_clock::HeldClockRule),
    );
    add("clock", RuleSet::direct(rea_plugin_clock::ClockRule));
    add(
        "nested-clock",
        RuleSet::direct(rea_plugin_held_clock::NestedClockRule),
    );
    add(
        "sequence",
        RuleSet::direct(rea_plugin_sequence::SequenceRule),
    );
    add(
        "uuid",
        RuleSet::direct(rea_plugin_uuid::GeneratedRule(rea_plugin_uuid::Kind::Uuid)),
    );
    add("unique", RuleSet::direct(rea_plugin_unique::UniqueRule));
    add("stamp", RuleSet::direct(rea_plugin_stamp::StampRule));
    add(
        "composed",
        RuleSet::direct(rea_plugin_composed::ComposedRule),
    );
    add("slug", RuleSet::direct(rea_plugin_composed::SlugRule));
    add("derived", RuleSet::direct(rea_plugin_composed::DerivedRule));
    add(
        "byte-length",
        RuleSet::direct(rea_plugin_composed::ByteLengthRule),
    );
    add(
        "reference",
        RuleSet::direct(rea_plugin_reference::ReferenceRule),
    );
    add(
        "collected",
        RuleSet::direct(rea_plugin_reference::CollectedRule),
    );
    add(
        "soft-delete",
        RuleSet::direct(rea_plugin_soft_delete::SoftDeleteRule),
    );
    add("toggle", RuleSet::direct(rea_plugin_toggle::ToggleRule));
    add("set", RuleSet::direct(rea_plugin_toggle::SetRule));
    add(
        "revision",
        RuleSet::direct(rea_plugin_revision::RevisionRule),
    );
    add(
        "joined-list",
        RuleSet::direct(rea_plugin_joined_list::JoinedListRule),
    );
    add(
        "sort-inference",
        RuleSet::direct(rea_plugin_sort_inference::SortInference),
    );
    rules
}

struct Fixture {
    state: StateView,
    service: StateService,
    manifest: rea_manifest::Manifest,
    records: Vec<CaptureRecord>,
}

fn derive(records: Vec<CaptureRecord>) -> Fixture {
    derive_with(records, rules())
}

fn derive_with(records: Vec<CaptureRecord>, rules: RuleSet) -> Fixture {
    derive_templated(records, rules, &["sibling-variance", "prefix-variance"])
}

/// [`derive_with`] under these template rules.
fn derive_templated(records: Vec<CaptureRecord>, rules: RuleSet, templates: &[&str]) -> Fixture {
    let manifest = project_manifest(
        "ev_capture",
        &records,
        &TemplateRules::parse(templates)
            .unwrap()
            .with_sibling_transfer(rules.sibling_transfer()),
    )
    .unwrap();
    let state = crate::derive::derive_state(&manifest, "ev_manifest", &records, &rules).unwrap();
    let environment = Environment::new(&manifest, "ev_capture", records.clone()).unwrap();
    let service = StateService::new(
        state.clone(),
        "ev_state".to_owned(),
        environment,
        &records,
        Arc::new(rules),
    );
    Fixture {
        state,
        service,
        manifest,
        records,
    }
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
            serde_json::from_str(&answer.to_json_string()).unwrap_or(Value::Null),
            answer.is_error(),
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

/// Note 1 read in its list and by id.
fn notes_read() -> Vec<CaptureRecord> {
    vec![
        get(
            0,
            "/notes",
            200,
            json!([note(1, "a", "2026-01-01T00:00:00Z")]),
        ),
        get(1, "/notes/1", 200, note(1, "a", "2026-01-01T00:00:00Z")),
    ]
}

#[test]
fn each_withheld_reason_the_host_decides() {
    // contract: STATE-107, WRITE-061, WRITE-062
    let base = notes_read;
    // unconfirmed: no read after the write.
    let fixture = unconfirmed_patch(crate::rules::WithheldWrites::Hide);
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
        text: "text=b".into(),
    };
    form.request.media_type = Some("application/x-www-form-urlencoded".into());
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
    // And not served: a call of the withheld write is refused, as a tool the state lacks.
    let (refused, error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"text": "x"}}),
    );
    assert!(error, "{refused}");
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

fn experiment(id: &str, name: &str, updated: u64) -> Value {
    json!({"experiment": {"experiment_id": id, "name": name, "last_update_time": updated}})
}

fn run(id: &str, status: &str) -> Value {
    json!({"run": {"info": {"run_id": id, "status": status}, "data": {"tags": []}}})
}

#[test]
fn rpc_style_reads_and_writes_name_entities_by_query_and_body_members() {
    // MLflow-like: entities read by `GET …/get?experiment_id=…` (and looked up by name), an
    // update `POST …/update` naming its entity in the body and renaming it through `new_name`,
    // runs whose identity sits inside the entity (`/info/run_id`).
    let at = |second: u64| 1_767_225_600_000 + second * 1000;
    let fixture = derive(vec![
        get(
            0,
            "/api/exp/get?experiment_id=1",
            200,
            experiment("1", "a", at(0)),
        ),
        get(
            1,
            "/api/exp/get?experiment_id=2",
            200,
            experiment("2", "b", at(0)),
        ),
        get(
            2,
            "/api/exp/get-by-name?experiment_name=a",
            200,
            experiment("1", "a", at(0)),
        ),
        get(3, "/api/runs/get?run_id=r1", 200, run("r1", "RUNNING")),
        record(
            4,
            "POST",
            "/api/exp/update",
            Some(json!({"experiment_id": "2", "new_name": "c"})),
            200,
            json!({}),
        ),
        get(
            5,
            "/api/exp/get?experiment_id=2",
            200,
            experiment("2", "c", at(4)),
        ),
        get(
            6,
            "/api/exp/get-by-name?experiment_name=c",
            200,
            experiment("2", "c", at(4)),
        ),
    ]);
    let view = |template: &str| {
        fixture
            .state
            .views
            .iter()
            .find(|view| view.path_template == template)
            .unwrap_or_else(|| panic!("no view {template}"))
    };
    let by_id = view("/api/exp/get");
    let by_name = view("/api/exp/get-by-name");
    let runs = view("/api/runs/get");
    let crate::model::ViewDetail::Item(item) = &by_id.detail else {
        panic!("an item view: {:?}", by_id.detail)
    };
    assert_eq!(item.entity_type, "/api/exp");
    assert_eq!(item.identity_field, "experiment_id");
    assert_eq!(
        item.key,
        crate::model::ItemKey::Query {
            parameter: "experiment_id".into(),
            field: "experiment_id".into()
        }
    );
    let crate::model::ViewDetail::Item(lookup) = &by_name.detail else {
        panic!("an item view: {:?}", by_name.detail)
    };
    assert_eq!(lookup.identity_field, "experiment_id");
    assert_eq!(
        lookup.key,
        crate::model::ItemKey::Query {
            parameter: "experiment_name".into(),
            field: "name".into()
        }
    );
    let crate::model::ViewDetail::Item(run_view) = &runs.detail else {
        panic!("an item view: {:?}", runs.detail)
    };
    assert_eq!(run_view.identity_field, "/info/run_id");
    assert_eq!(run_view.entity_pointer, "/run");
    // The update names its entity in the body and is confirmed by the read after it.
    let plan = fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.path_template == "/api/exp/update")
        .expect("a plan");
    assert!(plan.served, "{:?} {:?}", plan.reason, plan);
    assert_eq!(plan.effect, crate::writes::model::Effect::Update);
    assert_eq!(
        plan.target
            .as_ref()
            .and_then(|target| target.key_member.as_deref()),
        Some("experiment_id")
    );
    assert_eq!(
        plan.fields.as_ref().map(|fields| fields.sent_as.clone()),
        Some(BTreeMap::from([(
            "new_name".to_owned(),
            "/name".to_owned()
        )]))
    );
    assert_eq!(plan.confirmed_by, vec![5]);
    // Serving: another experiment renamed, read by id and by its new name.
    let (answer, error) = fixture.call(
        &plan.tool,
        json!({"body": {"experiment_id": "1", "new_name": "z"}}),
    );
    assert!(!error, "{answer}");
    // contract: WRITE-042 (the recorded body)
    assert_eq!(answer["body"], json!({}));
    let (read, _) = fixture.call(&by_id.tool, json!({"experiment_id": "1"}));
    // contract: STATE-033, WRITE-006 (the renamed entity, in the recorded envelope)
    assert_eq!(read["body"]["experiment"]["name"], "z");
    assert_eq!(read["state"]["source"], "state");
    let (named, _) = fixture.call(&by_name.tool, json!({"experiment_name": "z"}));
    assert_eq!(named["body"]["experiment"]["experiment_id"], "1");
    // A run by its nested identity; a missing one is a tool error (no 404 was recorded).
    let (shown, _) = fixture.call(&runs.tool, json!({"run_id": "r1"}));
    assert_eq!(shown["body"], run("r1", "RUNNING"));
    let (missing, error) = fixture.call(&runs.tool, json!({"run_id": "nope"}));
    // contract: STATE-043
    assert!(error, "{missing}");
    // An update naming an entity the state does not hold changes nothing.
    let (missing, error) = fixture.call(
        &plan.tool,
        json!({"body": {"experiment_id": "9", "new_name": "q"}}),
    );
    assert!(error, "{missing}");
    // A call without the key parameter names no entity, and no request without it was
    // recorded: refused, not another request's recording.
    let (unnamed, error) = fixture.call(&by_id.tool, json!({}));
    assert!(error, "{unnamed}");
    assert_eq!(unnamed["error"]["code"], "not_modelled", "{unnamed}");
    assert_eq!(unnamed["error"]["data"]["reason"], "unrecorded-request");
}

fn note_of(id: &str, text: &str) -> Value {
    json!({"id": id, "text": text, "kind": "note"})
}

#[test]
fn a_put_upsert_and_a_literal_path_delete_are_confirmed_and_served() {
    // contract: WRITE-002, WRITE-006, WRITE-025, WRITE-041, WRITE-055
    // `PUT /notes/{id}` creates a note the state does not hold and replaces one it does;
    // `DELETE /archive/notes/beta` (a literal path under another collection) deletes the note the
    // read after it shows gone.
    let fixture = derive(vec![
        get(0, "/notes", 200, json!([note_of("alpha", "a")])),
        get(1, "/notes/alpha", 200, note_of("alpha", "a")),
        record(
            2,
            "PUT",
            "/notes/beta",
            Some(json!({"id": "beta", "text": "b"})),
            204,
            Value::Null,
        ),
        get(3, "/notes/beta", 200, note_of("beta", "b")),
        get(
            4,
            "/notes",
            200,
            json!([note_of("alpha", "a"), note_of("beta", "b")]),
        ),
        record(
            5,
            "PUT",
            "/notes/alpha",
            Some(json!({"id": "alpha", "text": "c"})),
            204,
            Value::Null,
        ),
        get(6, "/notes/alpha", 200, note_of("alpha", "c")),
        record(7, "DELETE", "/archive/notes/beta", None, 204, Value::Null),
        get(8, "/notes/beta", 404, json!({"error": "not found"})),
        get(9, "/notes", 200, json!([note_of("alpha", "c")])),
    ]);
    let put = fixture.plan("put_notes_by_id");
    assert!(put.served, "{:?}", put.reason);
    let upsert = put.upsert.as_ref().expect("an upsert");
    assert_eq!(upsert.record_ordinals, vec![2]);
    assert_eq!(put.record_ordinals, vec![2, 5]);
    let delete = fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.path_template == "/archive/notes/beta")
        .expect("the literal delete's plan");
    assert!(delete.served, "{:?}", delete.reason);
    let target = delete.target.as_ref().expect("a target");
    assert_eq!(target.entity_id.as_deref(), Some("beta"));
    assert_eq!(target.collection.as_deref(), Some("/notes"));
    // Serving: a PUT of a note the state does not hold creates it, with the collection's kind.
    let (created, error) = fixture.call(
        "put_notes_by_id",
        json!({"id": "7", "body": {"id": "7", "text": "x"}}),
    );
    assert!(!error, "{created}");
    assert_eq!(created["status"], 204);
    assert_eq!(created["state"]["view"], "create");
    let (read, _) = fixture.call("get_notes_by_id", json!({"id": "7"}));
    assert_eq!(read["body"], note_of("7", "x"));
    // A PUT of a held note replaces what it sends.
    let (_, error) = fixture.call(
        "put_notes_by_id",
        json!({"id": "7", "body": {"id": "7", "text": "y"}}),
    );
    assert!(!error);
    let (read, _) = fixture.call("get_notes_by_id", json!({"id": "7"}));
    assert_eq!(read["body"], note_of("7", "y"));
    // A create whose body names another entity than its path is refused, changing nothing.
    let (refused, error) = fixture.call(
        "put_notes_by_id",
        json!({"id": "8", "body": {"id": "9", "text": "z"}}),
    );
    assert!(error, "{refused}");
    let (absent, _) = fixture.call("get_notes_by_id", json!({"id": "8"}));
    assert_eq!(absent["status"], 404);
    // The literal delete removes the one note its path names (the state starts without it: it
    // is created through the upsert first).
    let (put_beta, error) = fixture.call(
        "put_notes_by_id",
        json!({"id": "beta", "body": {"id": "beta", "text": "b"}}),
    );
    assert!(!error, "{put_beta}");
    let (deleted, error) = fixture.call(&delete.tool, json!({}));
    assert!(!error, "{deleted}");
    assert_eq!(deleted["status"], 204);
    let (gone, _) = fixture.call("get_notes_by_id", json!({"id": "beta"}));
    assert_eq!(gone["status"], 404);
}

fn feed_entry(id: u64, status: &str) -> Value {
    json!({"id": id, "title": format!("entry {id}"), "status": status})
}

#[test]
fn bulk_updates_and_deletes_are_observed_per_entity_and_served() {
    // contract: WRITE-026, WRITE-027, WRITE-028, WRITE-029, WRITE-030, WRITE-031
    let fixture = derive(vec![
        get(
            0,
            "/entries",
            200,
            json!([
                feed_entry(1, "unread"),
                feed_entry(2, "unread"),
                feed_entry(3, "unread")
            ]),
        ),
        get(1, "/entries/1", 200, feed_entry(1, "unread")),
        get(2, "/entries/2", 200, feed_entry(2, "unread")),
        get(3, "/entries/3", 200, feed_entry(3, "unread")),
        record(
            4,
            "PUT",
            "/entries",
            Some(json!({"entry_ids": [1, 2], "status": "read"})),
            204,
            Value::Null,
        ),
        get(5, "/entries/1", 200, feed_entry(1, "read")),
        get(6, "/entries/2", 200, feed_entry(2, "read")),
        get(
            7,
            "/entries",
            200,
            json!([
                feed_entry(1, "read"),
                feed_entry(2, "read"),
                feed_entry(3, "unread")
            ]),
        ),
        record(
            8,
            "POST",
            "/entries/delete",
            Some(json!({"entry_ids": [3]})),
            204,
            Value::Null,
        ),
        get(9, "/entries/3", 404, json!({"error": "not found"})),
        get(
            10,
            "/entries",
            200,
            json!([feed_entry(1, "read"), feed_entry(2, "read")]),
        ),
    ]);
    let update = fixture.plan("put_entries");
    assert!(update.served, "{:?}", update.reason);
    assert!(update.bulk);
    assert_eq!(update.confirmed_by, vec![5, 6, 7]);
    let delete = fixture.plan("post_entries_delete");
    assert!(delete.served, "{:?}", delete.reason);
    assert!(delete.bulk);
    assert_eq!(delete.effect, crate::writes::model::Effect::Delete);
    // Served: every named entity changes, the answer names them in body order.
    let (answer, error) = fixture.call(
        "put_entries",
        json!({"body": {"entry_ids": [3, 1], "status": "unread"}}),
    );
    assert!(!error, "{answer}");
    assert_eq!(answer["state"]["ids"], json!(["3", "1"]));
    assert_eq!(answer["state"]["id"], "3");
    let (read, _) = fixture.call("get_entries_by_id", json!({"id": "3"}));
    assert_eq!(read["body"], feed_entry(3, "unread"));
    // A bulk call naming an entity the state does not hold changes nothing.
    let (refused, error) = fixture.call(
        "put_entries",
        json!({"body": {"entry_ids": [2, 99], "status": "read"}}),
    );
    assert!(error, "{refused}");
    let (read, _) = fixture.call("get_entries_by_id", json!({"id": "2"}));
    assert_eq!(read["body"]["status"], "unread");
    // An unaccepted member is refused.
    let (refused, error) = fixture.call(
        "put_entries",
        json!({"body": {"entry_ids": [2], "color": "red"}}),
    );
    assert!(error, "{refused}");
    // A bulk delete removes every named entity.
    let (_, error) = fixture.call(
        "post_entries_delete",
        json!({"body": {"entry_ids": [1, 2]}}),
    );
    assert!(!error);
    let (listed, _) = fixture.call("get_entries", json!({}));
    assert_eq!(listed["body"], json!([feed_entry(3, "unread")]));
}

fn chore(id: u64, status: &str, project: u64) -> Value {
    json!({"id": id, "title": format!("chore {id}"), "status": status, "project": project})
}

/// Chores listed whole and by filter, then written by query: a `PATCH /jobs?project=1` and a
/// `DELETE /jobs?status=done`, each answering the array of the chores it changed or removed.
fn chores_written_by_query() -> Vec<CaptureRecord> {
    let all = |jobs: Vec<Value>| Value::Array(jobs);
    let mut records = chores_read(|name| name.to_owned());
    records.extend([
        record(
            4,
            "PATCH",
            "/chores?project=1",
            Some(json!({"status": "done"})),
            200,
            all(vec![chore(1, "done", 1), chore(2, "done", 1)]),
        ),
        get(
            5,
            "/chores?project=1",
            200,
            all(vec![chore(1, "done", 1), chore(2, "done", 1)]),
        ),
        record(
            6,
            "DELETE",
            "/chores?status=done&project=2",
            None,
            200,
            all(vec![chore(4, "done", 2)]),
        ),
        get(7, "/chores/4", 404, json!({"error": "not found"})),
        get(
            8,
            "/chores",
            200,
            all(vec![
                chore(1, "done", 1),
                chore(2, "done", 1),
                chore(3, "todo", 2),
            ]),
        ),
    ]);
    records
}

/// Four chores listed whole, by status and by project (each filter's name spelled by `filter`),
/// and one read by id: records 0 to 3.
fn chores_read(filter: impl Fn(&str) -> String) -> Vec<CaptureRecord> {
    let all = |jobs: Vec<Value>| Value::Array(jobs);
    vec![
        get(
            0,
            "/chores",
            200,
            all(vec![
                chore(1, "todo", 1),
                chore(2, "todo", 1),
                chore(3, "todo", 2),
                chore(4, "done", 2),
            ]),
        ),
        get(
            1,
            &format!("/chores?{}=done", filter("status")),
            200,
            all(vec![chore(4, "done", 2)]),
        ),
        get(
            2,
            &format!("/chores?{}=2", filter("project")),
            200,
            all(vec![chore(3, "todo", 2), chore(4, "done", 2)]),
        ),
        get(3, "/chores/1", 200, chore(1, "todo", 1)),
    ]
}

#[test]
fn writes_selected_by_a_query_apply_to_every_entity_the_list_grammar_selects() {
    let fixture = derive(chores_written_by_query());
    for tool in ["patch_chores", "delete_chores"] {
        let plan = fixture.plan(tool);
        assert!(plan.served, "{tool}: {:?}", plan.reason);
        let layout = plan.body.as_ref().and_then(|body| body.bulk_ids.as_ref());
        let selected = layout.and_then(|layout| layout.selected.as_deref());
        assert_eq!(
            selected.map(|selected| selected.list_tool.as_str()),
            Some("get_chores")
        );
    }
    assert_eq!(fixture.plan("patch_chores").confirmed_by, vec![5]);
    // Served (from the state before the recorded writes): a filter the recorded write never sent
    // (`status`) beside one it did, answered as the rows written in the list's order.
    let (answer, error) = fixture.call(
        "patch_chores",
        json!({"project": "2", "status": "todo", "body": {"status": "doing"}}),
    );
    assert!(!error, "{answer}");
    assert_eq!(answer["body"], json!([chore(3, "doing", 2)]));
    let (read, _) = fixture.call("get_chores_by_id", json!({"id": "3"}));
    assert_eq!(read["body"], chore(3, "doing", 2));
    // A query selecting nothing changes nothing and answers no rows.
    let (answer, error) = fixture.call(
        "patch_chores",
        json!({"project": "9", "body": {"status": "x"}}),
    );
    assert!(!error, "{answer}");
    assert_eq!(answer["body"], json!([]));
    // No query, or a parameter the list reads as no filter, is refused: nothing changes.
    for arguments in [
        json!({"body": {"status": "todo"}}),
        json!({"project": "1", "colour": "red", "body": {"status": "todo"}}),
    ] {
        let (refused, error) = fixture.call("patch_chores", arguments);
        assert!(error, "{refused}");
        assert!(refused.to_string().contains("not_modelled"), "{refused}");
    }
    let (read, _) = fixture.call("get_chores_by_id", json!({"id": "1"}));
    assert_eq!(read["body"], chore(1, "todo", 1));
    // A delete by query removes every selected entity, answering them as they were.
    let (answer, error) = fixture.call("delete_chores", json!({"status": "done"}));
    assert!(!error, "{answer}");
    assert_eq!(answer["body"], json!([chore(4, "done", 2)]));
    let (listed, _) = fixture.call("get_chores", json!({}));
    let left = json!([
        chore(1, "todo", 1),
        chore(2, "todo", 1),
        chore(3, "doing", 2)
    ]);
    assert_eq!(listed["body"], left);
}

#[test]
fn a_selecting_write_whose_query_the_list_grammar_does_not_reproduce_is_withheld() {
    // The answer lists chore 2 as changed, but the query (`project=1`) selects chores 1 and 2 (the
    // read after shows chore 1 unchanged): the selection is not what the application did.
    let mut records = chores_written_by_query();
    records.truncate(4);
    records.push(record(
        4,
        "PATCH",
        "/chores?project=1",
        Some(json!({"status": "done"})),
        200,
        json!([chore(2, "done", 1)]),
    ));
    records.push(get(
        5,
        "/chores?project=1",
        200,
        json!([chore(1, "todo", 1), chore(2, "done", 1)]),
    ));
    let fixture = derive(records);
    let plan = fixture.plan("patch_chores");
    // Replayed, the learned grammar selects chores 1 and 2: the recorded answer (chore 2 alone)
    // does not come out, so the plan is withheld rather than served with another selection.
    assert_eq!(plan.reason.as_deref(), Some("body-unusable"));
}

/// The chores of [`chores_written_by_query`] listed through a wrapper's brackets
/// (`/chores?filter[where][status]=done`), written by `PATCH /chores?where[project]=1` (the
/// list's names unnested) answering only how many it changed: `{"count": count}`.
fn chores_counted_by_nested_query(count: u64) -> Vec<CaptureRecord> {
    let all = |jobs: Vec<Value>| Value::Array(jobs);
    let mut records = chores_read(|name| format!("filter[where][{name}]"));
    records.extend([
        record(
            4,
            "PATCH",
            "/chores?where[project]=1",
            Some(json!({"status": "done"})),
            200,
            json!({"count": count}),
        ),
        get(
            5,
            "/chores?filter[where][project]=1",
            200,
            all(vec![chore(1, "done", 1), chore(2, "done", 1)]),
        ),
    ]);
    records
}

#[test]
fn a_write_selecting_by_a_nested_query_answers_how_many_it_changed() {
    let fixture = derive(chores_counted_by_nested_query(2));
    let plan = fixture.plan("patch_chores");
    assert!(plan.served, "{:?}", plan.reason);
    let selected = plan
        .body
        .as_ref()
        .and_then(|body| body.bulk_ids.as_ref()?.selected.as_deref());
    assert_eq!(
        selected.and_then(|selected| selected.nesting.as_deref()),
        Some("filter")
    );
    assert_eq!(plan.confirmed_by, vec![5]);
    // A filter the write never sent (`where[status]`, the list's `filter[where][status]`)
    // beside one it did: the number of chores it changed, read back changed.
    let (answer, error) = fixture.call(
        "patch_chores",
        json!({"where[project]": "2", "where[status]": "todo", "body": {"status": "doing"}}),
    );
    assert!(!error, "{answer}");
    assert_eq!(answer["body"], json!({"count": 1}));
    let (read, _) = fixture.call("get_chores_by_id", json!({"id": "3"}));
    assert_eq!(read["body"], chore(3, "doing", 2));
    let (answer, error) = fixture.call(
        "patch_chores",
        json!({"where[project]": "9", "body": {"status": "x"}}),
    );
    assert!(!error, "{answer}");
    assert_eq!(answer["body"], json!({"count": 0}));
    // No query is refused, nothing changed.
    let (refused, error) = fixture.call("patch_chores", json!({"body": {"status": "x"}}));
    assert!(error, "{refused}");
    assert!(refused.to_string().contains("not_modelled"), "{refused}");
    let (read, _) = fixture.call("get_chores_by_id", json!({"id": "1"}));
    assert_eq!(read["body"], chore(1, "todo", 1));
}

#[test]
fn a_count_answer_the_query_does_not_reproduce_is_not_served() {
    // The query selects chores 1 and 2; the answer counts one: which one it changed is unknown.
    let fixture = derive(chores_counted_by_nested_query(1));
    let plan = fixture.plan("patch_chores");
    assert!(!plan.served, "{plan:?}");
}

#[test]
fn a_bulk_body_naming_ids_beside_one_data_object_sends_each_entity_that_object() {
    let fixture = derive(vec![
        get(
            0,
            "/chores",
            200,
            json!([
                chore(1, "todo", 1),
                chore(2, "todo", 1),
                chore(3, "todo", 2)
            ]),
        ),
        get(1, "/chores/1", 200, chore(1, "todo", 1)),
        record(
            2,
            "PATCH",
            "/chores",
            Some(json!({"keys": [1, 2], "data": {"status": "done"}})),
            200,
            json!({"data": [chore(1, "done", 1), chore(2, "done", 1)]}),
        ),
        get(3, "/chores/1", 200, chore(1, "done", 1)),
        get(4, "/chores/2", 200, chore(2, "done", 1)),
    ]);
    let plan = fixture.plan("patch_chores");
    assert!(plan.served, "{:?}", plan.reason);
    let layout = plan
        .body
        .as_ref()
        .and_then(|body| body.bulk_ids.clone())
        .unwrap();
    assert_eq!(layout.data.as_deref(), Some("data"));
    assert!(plan.body.as_ref().unwrap().members.contains_key("status"));
    let (answer, error) = fixture.call(
        "patch_chores",
        json!({"body": {"keys": [3], "data": {"status": "doing"}}}),
    );
    assert!(!error, "{answer}");
    let (read, _) = fixture.call("get_chores_by_id", json!({"id": "3"}));
    assert_eq!(read["body"], chore(3, "doing", 2));
}

#[test]
fn a_document_put_replaces_the_document_and_a_patch_merges() {
    // contract: WRITE-032, WRITE-033, WRITE-065
    let fixture = derive(vec![
        get(
            0,
            "/settings",
            200,
            json!({"theme": "dark", "lang": "en", "beta": true}),
        ),
        record(
            1,
            "PUT",
            "/settings",
            Some(json!({"theme": "light", "lang": "fr"})),
            200,
            json!({"theme": "light", "lang": "fr"}),
        ),
        get(2, "/settings", 200, json!({"theme": "light", "lang": "fr"})),
        record(
            3,
            "PATCH",
            "/settings",
            Some(json!({"lang": "de"})),
            200,
            json!({"theme": "light", "lang": "de"}),
        ),
        get(4, "/settings", 200, json!({"theme": "light", "lang": "de"})),
    ]);
    let put = fixture.plan("put_settings");
    assert_eq!(put.effect, crate::writes::model::Effect::Document);
    assert!(put.served, "{:?}", put.reason);
    let patch = fixture.plan("patch_settings");
    assert!(patch.served, "{:?}", patch.reason);
    // The state holds the document as read before the first write. A PATCH merges: members
    // not sent stay.
    let (merged, error) = fixture.call(
        "patch_settings",
        json!({"body": {"beta": false, "lang": "it"}}),
    );
    assert!(!error, "{merged}");
    assert_eq!(merged["state"]["view"], "document-write");
    assert_eq!(
        merged["body"],
        json!({"theme": "dark", "lang": "it", "beta": false})
    );
    // A PUT replaces: `beta`, held and not sent, is gone.
    let (replaced, error) = fixture.call(
        "put_settings",
        json!({"body": {"theme": "dark", "lang": "en"}}),
    );
    assert!(!error, "{replaced}");
    assert_eq!(replaced["state"]["source"], "state");
    assert_eq!(replaced["state"]["view"], "document-write");
    assert_eq!(replaced["body"], json!({"theme": "dark", "lang": "en"}));
    let (read, _) = fixture.call("get_settings", json!({}));
    assert_eq!(read["body"], json!({"theme": "dark", "lang": "en"}));
}

/// A settings section first read after a write the state does not model (a job started by an
/// RPC-style `POST` no read shows), then written by JSON merge patches: objects merged entry by
/// entry, `null` removing a member; and a status document no write of its own path changes. The
/// section holds `seed`'s members before the writes (and after, untouched).
fn settings_after_an_unmodelled_write(seed: &Value) -> Vec<CaptureRecord> {
    let section = |members: Value| {
        let mut whole = seed.clone();
        for (key, value) in members.as_object().expect("members") {
            whole[key] = value.clone();
        }
        whole
    };
    let first = json!({"theme": "dark", "autosave": 30, "keys": {"tab": 4}});
    let second = json!({"theme": "dark", "keys": {"tab": 4, "wrap": true}});
    vec![
        get(0, "/status", 200, json!({"jobs": 0})),
        record(
            1,
            "POST",
            "/jobs/start",
            Some(json!({"kind": "index"})),
            202,
            json!({"started": true}),
        ),
        get(2, "/status", 200, json!({"jobs": 1})),
        get(3, "/config/editor", 200, section(json!({}))),
        record(
            4,
            "PATCH",
            "/config/editor",
            Some(first.clone()),
            200,
            section(first.clone()),
        ),
        get(5, "/config/editor", 200, section(first)),
        record(
            6,
            "PATCH",
            "/config/editor",
            Some(json!({"autosave": null, "keys": {"wrap": true}})),
            200,
            section(second.clone()),
        ),
        get(7, "/config/editor", 200, section(second)),
    ]
}

#[test]
fn a_document_its_own_path_writes_is_seen_past_unmodelled_writes_and_merge_patched() {
    let fixture = derive(settings_after_an_unmodelled_write(&json!({})));
    // The settings read after the unmodelled `POST` is the seed's document: its window ends at
    // the first write of its own path only.
    let settings = fixture
        .state
        .views
        .iter()
        .find(|view| view.tool == "get_config_editor")
        .expect("the settings view");
    assert!(
        matches!(settings.detail, crate::model::ViewDetail::Document(_)),
        "{:?}",
        settings.detail
    );
    // The status document has no write of its own path: the `POST` may have changed it, so it
    // keeps only the read before that write.
    let status = fixture
        .state
        .views
        .iter()
        .find(|view| view.tool == "get_status")
        .expect("the status view");
    match &status.detail {
        crate::model::ViewDetail::Document(document) => assert_eq!(document.record_ordinal, 0),
        other => panic!("status: {other:?}"),
    }
    let patch = fixture.plan("patch_config_editor");
    assert!(patch.served, "{:?}", patch.reason);
    let fields = patch.fields.as_ref().expect("the field model");
    assert!(fields.null_removes, "{fields:?}");
    assert!(fields.merged.contains_key("keys"), "{fields:?}");
    // The section held nothing before the first write: any member is accepted, stored as sent.
    assert!(patch.body.as_ref().is_some_and(|body| body.open));
    let (first, error) = fixture.call(
        "patch_config_editor",
        json!({"body": {"theme": "light", "keys": {"tab": 2}, "ruler": 80}}),
    );
    assert!(!error, "{first}");
    assert_eq!(
        first["body"],
        json!({"theme": "light", "keys": {"tab": 2}, "ruler": 80})
    );
    let (second, error) = fixture.call(
        "patch_config_editor",
        json!({"body": {"ruler": null, "keys": {"wrap": false}}}),
    );
    assert!(!error, "{second}");
    let merged = json!({"theme": "light", "keys": {"tab": 2, "wrap": false}});
    assert_eq!(second["body"], merged);
    let (read, _) = fixture.call("get_config_editor", json!({}));
    assert_eq!(read["body"], merged);
}

#[test]
fn a_document_holding_members_before_its_writes_refuses_a_member_never_sent() {
    // The same section holding a member of its own before the first write: the application
    // showed members it holds, so a member no call sent is refused, changing nothing.
    let fixture = derive(settings_after_an_unmodelled_write(&json!({"lang": "en"})));
    let patch = fixture.plan("patch_config_editor");
    assert!(patch.served, "{:?}", patch.reason);
    assert!(patch.body.as_ref().is_some_and(|body| !body.open));
    let (refused, error) = fixture.call("patch_config_editor", json!({"body": {"ruler": 80}}));
    assert!(error, "{refused}");
    let (read, _) = fixture.call("get_config_editor", json!({}));
    assert_eq!(read["body"], json!({"lang": "en"}));
}

/// A board list naming each board by `board_id`, and board details naming their board by path
/// only, each with a versioned note.
fn boards_with_notes() -> Vec<CaptureRecord> {
    let board = |title: &str, version: u64, body: &str| json!({"title": title, "cards": [1, 2], "note": {"version": version, "body": body}});
    vec![
        get(
            0,
            "/boards",
            200,
            json!({"boards": [{"board_id": 1, "title": "a"}, {"board_id": 2, "title": "b"}]}),
        ),
        get(1, "/boards/1", 200, board("a", 1, "first")),
        get(2, "/boards/2", 200, board("b", 0, "")),
        get(3, "/boards/9", 404, json!({"reason": "Not found"})),
        record(
            4,
            "PUT",
            "/boards/1/note",
            Some(json!({"version": 2, "body": "second"})),
            204,
            Value::Null,
        ),
        get(5, "/boards/1", 200, board("a", 2, "second")),
    ]
}

#[test]
fn a_view_read_on_several_ids_holds_a_document_per_id_and_a_member_put_replaces_that_member() {
    let fixture = derive(boards_with_notes());
    let tool_of = |template: &str| {
        fixture
            .manifest
            .tools
            .iter()
            .find(|tool| {
                tool.path_template.replace(char::is_alphanumeric, "")
                    == template.replace(char::is_alphanumeric, "")
                    && tool.path_template.starts_with("/boards")
            })
            .map(|tool| tool.name.clone())
            .unwrap_or_else(|| panic!("no tool {template}"))
    };
    let (read, write) = (tool_of("/boards/{id}"), tool_of("/boards/{id}/note"));
    let Some(crate::model::ViewDetail::Document(document)) =
        fixture.state.view(&read).map(|view| &view.detail)
    else {
        panic!("{:?}", fixture.state.view(&read));
    };
    assert_eq!(
        document.lines().collect::<Vec<_>>(),
        vec![("/boards/1", 1), ("/boards/2", 2)]
    );
    let plan = fixture.plan(&write);
    assert_eq!(plan.effect, crate::writes::model::Effect::Document);
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.confirmed_by, vec![5]);
    // The state holds each board as read before the first write.
    let (first, _) = fixture.call(&read, json!({read_argument(&fixture, &read): "1"}));
    assert_eq!(
        first["body"]["note"],
        json!({"version": 1, "body": "first"})
    );
    // A PUT of board 2's note replaces that member of board 2's document only.
    let (written, error) = fixture.call(
        &write,
        json!({read_argument(&fixture, &write): "2", "body": {"version": 1, "body": "new"}}),
    );
    assert!(!error, "{written}");
    let (second, _) = fixture.call(&read, json!({read_argument(&fixture, &read): "2"}));
    assert_eq!(
        second["body"],
        json!({"title": "b", "cards": [1, 2], "note": {"version": 1, "body": "new"}})
    );
    let (first, _) = fixture.call(&read, json!({read_argument(&fixture, &read): "1"}));
    assert_eq!(
        first["body"]["note"],
        json!({"version": 1, "body": "first"})
    );
    // An id the boards' collection lacks answers the recorded missing answer.
    let (missing, _) = fixture.call(&read, json!({read_argument(&fixture, &read): "7"}));
    assert_eq!(missing["status"], 404, "{missing}");
}

/// The path parameter's argument name of a tool.
fn read_argument(fixture: &Fixture, tool: &str) -> String {
    fixture
        .manifest
        .tools
        .iter()
        .find(|known| known.name == tool)
        .and_then(|known| known.path_parameters.last())
        .map(|parameter| parameter.name.clone())
        .expect("a path parameter")
}

/// Board details holding cards, each with a versioned note, and the pinned cards again: a card
/// note PUT names its board and card by path (`/boards/1/12/note`), and the one read after it
/// shows the board's cards from the second on (`?from=1`, a slice the reads before it showed).
fn boards_with_card_notes() -> Vec<CaptureRecord> {
    let card = |id: u64, position: u64, version: u64, body: &str| json!({"card_id": id, "position": position, "note": {"version": version, "body": body}});
    let board = |title: &str, cards: Vec<Value>, pinned: Vec<Value>| json!({"title": title, "cards": cards, "pinned": pinned});
    let first = |note: (u64, &str)| {
        let pinned = card(12, 1, note.0, note.1);
        board("a", vec![card(11, 0, 0, ""), pinned.clone()], vec![pinned])
    };
    vec![
        get(
            0,
            "/boards",
            200,
            json!({"boards": [{"board_id": 1, "title": "a"}, {"board_id": 2, "title": "b"}]}),
        ),
        get(1, "/boards/1", 200, first((1, "old"))),
        get(
            2,
            "/boards/2",
            200,
            board("b", vec![card(21, 0, 0, ""), card(22, 1, 0, "")], vec![]),
        ),
        get(3, "/boards/1?from=1", 200, {
            let mut sliced = first((1, "old"));
            sliced["cards"] = json!([card(12, 1, 1, "old")]);
            sliced
        }),
        record(
            4,
            "PUT",
            "/boards/1/12/note",
            Some(json!({"version": 2, "body": "new"})),
            204,
            Value::Null,
        ),
        get(5, "/boards/1?from=1", 200, {
            let mut sliced = first((2, "new"));
            sliced["cards"] = json!([card(12, 1, 2, "new")]);
            sliced
        }),
    ]
}

#[test]
fn a_member_put_under_an_element_id_lands_on_every_element_the_id_names() {
    let fixture = derive(boards_with_card_notes());
    let named = |parameters: usize| {
        fixture
            .manifest
            .tools
            .iter()
            .find(|tool| {
                tool.path_template.starts_with("/boards/")
                    && tool.path_parameters.len() == parameters
            })
            .unwrap_or_else(|| panic!("no tool with {parameters} parameters"))
    };
    let (read, write) = (named(1), named(2));
    let plan = fixture.plan(&write.name);
    assert_eq!(plan.effect, crate::writes::model::Effect::Document);
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.confirmed_by, vec![5]);
    let fields = plan.fields.as_ref().expect("fields");
    assert_eq!(fields.document_element.as_deref(), Some("card_id"));
    assert_eq!(fields.document_pointer, "/note");
    let arguments = |board: &str, card: &str, body: Value| {
        let mut arguments = json!({"body": body});
        arguments[write.path_parameters[0].name.as_str()] = json!(board);
        arguments[write.path_parameters[1].name.as_str()] = json!(card);
        arguments
    };
    // Board 2's card 22: its note replaced, card 21 and board 1 unchanged.
    let (written, error) = fixture.call(
        &write.name,
        arguments("2", "22", json!({"version": 1, "body": "b"})),
    );
    assert!(!error, "{written}");
    let board = |id: &str| {
        let mut arguments = json!({});
        arguments[read.path_parameters[0].name.as_str()] = json!(id);
        fixture.call(&read.name, arguments).0["body"].clone()
    };
    assert_eq!(
        board("2")["cards"][1]["note"],
        json!({"version": 1, "body": "b"})
    );
    assert_eq!(
        board("2")["cards"][0]["note"],
        json!({"version": 0, "body": ""})
    );
    assert_eq!(
        board("1")["cards"][1]["note"],
        json!({"version": 1, "body": "old"})
    );
    // Board 1's card 12: the note of the card and of its pinned copy, answered sliced too.
    let (written, error) = fixture.call(
        &write.name,
        arguments("1", "12", json!({"version": 2, "body": "new"})),
    );
    assert!(!error, "{written}");
    assert_eq!(
        board("1")["pinned"][0]["note"],
        json!({"version": 2, "body": "new"})
    );
    let mut sliced = json!({"from": "1"});
    sliced[read.path_parameters[0].name.as_str()] = json!("1");
    let (answer, _) = fixture.call(&read.name, sliced);
    assert_eq!(
        answer["body"]["cards"],
        json!([{"card_id": 12, "position": 1, "note": {"version": 2, "body": "new"}}])
    );
    // A card the board does not hold: refused, nothing changed.
    let (refused, error) = fixture.call(
        &write.name,
        arguments("2", "12", json!({"version": 3, "body": "x"})),
    );
    assert!(error, "{refused}");
    assert!(refused.to_string().contains("card_id"), "{refused}");
    assert_eq!(
        board("2")["cards"][1]["note"],
        json!({"version": 1, "body": "b"})
    );
}

#[test]
fn a_document_merge_lands_inside_the_envelope_its_reads_hold_it_under() {
    let settings = |week: &str, priority: u64| json!({"data": {"id": 1, "week": week, "priority": priority}, "meta": {"v": 1}});
    let fixture = derive(vec![
        get(0, "/settings", 200, settings("monday", 3)),
        record(
            1,
            "PATCH",
            "/settings",
            Some(json!({"week": "sunday"})),
            200,
            settings("sunday", 3),
        ),
        get(2, "/settings", 200, settings("sunday", 3)),
    ]);
    let patch = fixture.plan("patch_settings");
    assert!(patch.served, "{:?}", patch.reason);
    let fields = patch.fields.as_ref().expect("fields");
    assert_eq!(fields.document_pointer, "/data");
    // A PATCH sends any member the envelope's object holds (the build sent only `week`); the
    // members land inside `data`, the rest is kept.
    let (merged, error) = fixture.call("patch_settings", json!({"body": {"priority": 5}}));
    assert!(!error, "{merged}");
    assert_eq!(merged["body"], settings("monday", 5));
    let (read, _) = fixture.call("get_settings", json!({}));
    assert_eq!(read["body"], settings("monday", 5));
}

#[test]
fn a_document_write_changing_members_beside_its_envelope_is_unexplained() {
    let fixture = derive(vec![
        get(
            0,
            "/settings",
            200,
            json!({"data": {"week": "monday"}, "rev": 1}),
        ),
        record(
            1,
            "PATCH",
            "/settings",
            Some(json!({"week": "sunday"})),
            200,
            json!({"data": {"week": "sunday"}, "rev": 2}),
        ),
        get(
            2,
            "/settings",
            200,
            json!({"data": {"week": "sunday"}, "rev": 2}),
        ),
    ]);
    let patch = fixture.plan("patch_settings");
    assert_eq!(patch.reason.as_deref(), Some("unexplained-change"));
}

#[test]
fn a_write_whose_answer_would_lack_a_recorded_member_is_a_tool_error() {
    // contract: WRITE-053, WRITE-055
    // No item view: the answers of the recorded update are the only measure of what an answer
    // carries, and every one carried `note`.
    let fixture = derive(vec![
        get(
            0,
            "/tasks",
            200,
            json!([{"id": 1, "name": "a"}, {"id": 2, "name": "b", "note": "n"}]),
        ),
        record(
            1,
            "PATCH",
            "/tasks/2",
            Some(json!({"name": "c"})),
            200,
            json!({"id": 2, "name": "c", "note": "n"}),
        ),
        get(
            2,
            "/tasks",
            200,
            json!([{"id": 1, "name": "a"}, {"id": 2, "name": "c", "note": "n"}]),
        ),
    ]);
    let plan = fixture.plan("patch_tasks_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    let response = plan.response.as_ref().expect("an answer");
    assert!(response.required_members.contains(&"note".to_owned()));
    let before = fixture.call("get_tasks", json!({})).0;
    let (refused, error) = fixture.call(
        "patch_tasks_by_id",
        json!({"id": "1", "body": {"name": "z"}}),
    );
    assert!(error, "{refused}");
    assert_eq!(refused["error"]["code"], "incomplete_entity", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("\"note\"")),
        "{refused}"
    );
    assert_eq!(fixture.call("get_tasks", json!({})).0, before);
    // Sending the member makes the answer whole.
    let (written, error) = fixture.call(
        "patch_tasks_by_id",
        json!({"id": "1", "body": {"name": "z", "note": "m"}}),
    );
    assert!(!error, "{written}");
    assert_eq!(written["body"], json!({"id": 1, "name": "z", "note": "m"}));
}

#[test]
fn a_write_after_an_unobserved_write_of_its_entity_teaches_nothing() {
    // MLflow's capture logs a batch, then updates the run, and only then reads it: the read shows
    // both writes' effects, so neither write's own effect was observed (`no-observation`, whose
    // hint asks for a read after each write), rather than a change no rule explains.
    let chained = |between: bool| {
        let mut records = vec![
            get(0, "/notes", 200, json!([{"id": 1, "text": "a"}])),
            get(1, "/notes/1", 200, json!({"id": 1, "text": "a"})),
            record(
                2,
                "PATCH",
                "/notes/1",
                Some(json!({"text": "b"})),
                204,
                Value::Null,
            ),
        ];
        if between {
            records.push(get(3, "/notes/1", 200, json!({"id": 1, "text": "b"})));
        }
        records.push(record(4, "PUT", "/notes/1/pin", None, 204, Value::Null));
        records.push(get(
            5,
            "/notes/1",
            200,
            json!({"id": 1, "text": "b", "pinned": true}),
        ));
        derive(records)
    };
    let fixture = chained(false);
    assert_eq!(
        fixture.plan("patch_notes_by_id").reason.as_deref(),
        Some("no-observation")
    );
    assert_eq!(
        fixture.plan("put_notes_pin_by_note_id").reason.as_deref(),
        Some("no-observation")
    );
    // With a read between, each write's own effect was observed.
    let fixture = chained(true);
    assert!(fixture.plan("patch_notes_by_id").served);
    assert_ne!(
        fixture.plan("put_notes_pin_by_note_id").reason.as_deref(),
        Some("no-observation")
    );
}

#[test]
fn a_delete_after_an_unobserved_write_of_its_entity_is_learned_from_its_absence() {
    // pyramid-jsonapi's person delete follows an unobserved write of the person: the read after
    // the delete shows it gone, which the unobserved write does not change; an answer showing the
    // entity's identity alone shows nothing the unobserved write left. An answer showing a member
    // the state held otherwise might, and teaches nothing.
    let chained = |answer: Value| {
        derive(vec![
            get(
                0,
                "/notes",
                200,
                json!([{"id": 1, "text": "a"}, {"id": 2, "text": "c"}]),
            ),
            get(1, "/notes/1", 200, json!({"id": 1, "text": "a"})),
            record(2, "PUT", "/notes/1/pin", None, 204, Value::Null),
            record(3, "DELETE", "/notes/1", None, 200, answer),
            get(4, "/notes/1", 404, json!({"error": "gone"})),
        ])
    };
    let fixture = chained(json!({"data": {"id": 1}}));
    let plan = fixture.plan("delete_notes_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    let (answer, error) = fixture.call("delete_notes_by_id", json!({"id": "2"}));
    assert!(!error, "{answer}");
    let listed = fixture.call("get_notes", json!({})).0;
    assert_eq!(listed["body"], json!([{"id": 1, "text": "a"}]), "{listed}");
    let fixture = chained(json!({"data": {"id": 1, "text": "b"}}));
    assert_eq!(
        fixture.plan("delete_notes_by_id").reason.as_deref(),
        Some("no-observation")
    );
}

#[test]
fn a_write_answer_spelling_its_call_path_spells_the_served_call_path() {
    // pyramid-jsonapi's delete answers the identity and `links.self`, the call's own address.
    let fixture = derive(vec![
        get(
            0,
            "/notes",
            200,
            json!([{"id": "1", "text": "a"}, {"id": "2", "text": "c"}]),
        ),
        get(1, "/notes/1", 200, json!({"id": "1", "text": "a"})),
        record(
            2,
            "DELETE",
            "/notes/1",
            None,
            200,
            json!({"data": {"id": "1"}, "links": {"self": "http://h/notes/1"}}),
        ),
        get(3, "/notes/1", 404, json!({"error": "gone"})),
        get(4, "/notes", 200, json!([{"id": "2", "text": "c"}])),
    ]);
    let plan = fixture.plan("delete_notes_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    let (answer, error) = fixture.call("delete_notes_by_id", json!({"id": "2"}));
    assert!(!error, "{answer}");
    assert_eq!(
        answer["body"],
        json!({"data": {"id": "2"}, "links": {"self": "http://h/notes/2"}})
    );
}

#[test]
fn a_held_clock_is_sent_back_as_held_and_stamped_anew() {
    // contract: WRITE-034, WRITE-035, WRITE-055, WRITE-073
    // Ghost's collision check: an edit sends `updated_at` as it read it, in the `{"posts": [{…}]}`
    // envelope, and the post takes the time of the write.
    let post =
        |title: &str, updated: &str| json!({"id": "p1", "title": title, "updated_at": updated});
    let other = json!({"id": "p2", "title": "z", "updated_at": "2025-12-30T10:00:00.000Z"});
    let fixture = derive(vec![
        get(
            0,
            "/posts",
            200,
            json!([post("a", "2025-12-31T10:00:00.000Z"), other]),
        ),
        get(1, "/posts/p1", 200, post("a", "2025-12-31T10:00:00.000Z")),
        get(2, "/posts/p2", 200, other.clone()),
        record(
            3,
            "PUT",
            "/posts/p1",
            Some(json!({"posts": [{"title": "b", "updated_at": "2025-12-31T10:00:00.000Z"}]})),
            200,
            json!({"posts": [post("b", "2026-01-01T00:00:03.003Z")]}),
        ),
        get(4, "/posts/p1", 200, post("b", "2026-01-01T00:00:03.003Z")),
        get(
            5,
            "/posts",
            200,
            json!([post("b", "2026-01-01T00:00:03.003Z"), other]),
        ),
    ]);
    let plan = fixture.plan("put_posts_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(
        plan.rules
            .iter()
            .any(|rule| rule.stage == "held-clock" && rule.explains == ["/updated_at"]),
        "{:?}",
        plan.rules
    );
    let before = fixture.service.document();
    // Sent with another value than the post holds: refused, nothing changes.
    let (stale, error) = fixture.call(
        "put_posts_by_id",
        json!({"id": "p1", "body": {"posts": [{"title": "c", "updated_at": "2025-01-01T00:00:00.000Z"}]}}),
    );
    assert!(error, "{stale}");
    assert!(
        stale["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("updated_at")),
        "{stale}"
    );
    assert_eq!(fixture.service.document(), before);
    // Sent as held: the post takes the served clock, in the recorded spelling.
    let (written, error) = fixture.call(
        "put_posts_by_id",
        json!({"id": "p1", "body": {"posts": [{"title": "c", "updated_at": "2025-12-31T10:00:00.000Z"}]}}),
    );
    assert!(!error, "{written}");
    let (read, _) = fixture.call("get_posts_by_id", json!({"id": "p1"}));
    assert_eq!(read["body"]["title"], "c");
    let stamped = read["body"]["updated_at"]
        .as_str()
        .expect("a clock")
        .to_owned();
    let clock = fixture.state.write_clock.clone().expect("a write clock");
    assert_eq!(stamped.len(), "2026-01-01T00:00:02.003Z".len());
    assert_eq!(&stamped[..19], &clock[..19], "{stamped} vs {clock}");
    // The next edit must send the new value.
    let (again, error) = fixture.call(
        "put_posts_by_id",
        json!({"id": "p1", "body": {"posts": [{"title": "d", "updated_at": "2025-12-31T10:00:00.000Z"}]}}),
    );
    assert!(error, "{again}");
    let (again, error) = fixture.call(
        "put_posts_by_id",
        json!({"id": "p1", "body": {"posts": [{"title": "d", "updated_at": stamped}]}}),
    );
    assert!(!error, "{again}");
}

#[test]
fn an_update_applies_its_modelled_stamp_and_composed_changes() {
    // contract: WRITE-012, WRITE-014, WRITE-018
    // BookStack-like: the description is rendered into `description_html`, and the editor (the
    // recording's user, who created the books) is stamped as `updated_by`.
    let book = |id: u64, description: &str, updated_by: u64| {
        json!({
            "id": id,
            "name": format!("book {id}"),
            "description": description,
            "description_html": format!("<p>{description}</p>"),
            "created_by": id + 10,
            "updated_by": updated_by,
        })
    };
    let fixture = derive(vec![
        get(
            0,
            "/books",
            200,
            json!([book(1, "old", 1), book(2, "two", 2)]),
        ),
        get(1, "/books/1", 200, book(1, "old", 1)),
        get(2, "/books/2", 200, book(2, "two", 2)),
        record(
            3,
            "PATCH",
            "/books/1",
            Some(json!({"description": "Sea charts"})),
            200,
            book(1, "Sea charts", 11),
        ),
        get(4, "/books/1", 200, book(1, "Sea charts", 11)),
        get(
            5,
            "/books",
            200,
            json!([book(1, "Sea charts", 11), book(2, "two", 2)]),
        ),
    ]);
    let plan = fixture.plan("patch_books_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    let stages: Vec<(&str, &[String])> = plan
        .rules
        .iter()
        .map(|rule| (rule.stage.as_str(), rule.explains.as_slice()))
        .collect();
    assert!(
        stages.contains(&("stamp", &["/updated_by".to_owned()][..])),
        "{stages:?}"
    );
    assert!(
        stages.contains(&("composed", &["/description_html".to_owned()][..])),
        "{stages:?}"
    );
    let (written, error) = fixture.call(
        "patch_books_by_id",
        json!({"id": "2", "body": {"description": "Tides"}}),
    );
    assert!(!error, "{written}");
    // Exactly the sent member and what the rules model changed.
    assert_eq!(written["body"], book(2, "Tides", 12));
}

#[test]
fn an_update_accepts_a_member_it_never_stored_only_with_its_recorded_value() {
    // contract: WRITE-007, WRITE-045
    // A member every recorded update sent with one value and no read showed stored (a
    // notification flag) is accepted only with that value, and changes nothing stored.
    let fixture = derive(vec![
        get(
            0,
            "/notes",
            200,
            json!([{"id": 1, "text": "a"}, {"id": 2, "text": "b"}]),
        ),
        get(1, "/notes/1", 200, json!({"id": 1, "text": "a"})),
        get(2, "/notes/2", 200, json!({"id": 2, "text": "b"})),
        record(
            3,
            "PATCH",
            "/notes/1",
            Some(json!({"text": "c", "notify": false})),
            200,
            json!({"id": 1, "text": "c"}),
        ),
        get(4, "/notes/1", 200, json!({"id": 1, "text": "c"})),
        get(
            5,
            "/notes",
            200,
            json!([{"id": 1, "text": "c"}, {"id": 2, "text": "b"}]),
        ),
    ]);
    let plan = fixture.plan("patch_notes_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(
        plan.body.as_ref().expect("a body").members["notify"].fixed,
        Some(rea_plugin_api::json::Json::Bool(false))
    );
    let before = fixture.service.document();
    let (refused, error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "2", "body": {"text": "d", "notify": true}}),
    );
    assert!(error, "{refused}");
    assert_eq!(fixture.service.document(), before);
    let (written, error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "2", "body": {"text": "d", "notify": false}}),
    );
    assert!(!error, "{written}");
    assert_eq!(written["body"], json!({"id": 2, "text": "d"}));
}

#[test]
fn an_update_applies_its_modelled_unique_change() {
    // contract: WRITE-016, WRITE-059, WRITE-060
    // Each update gives the document a fresh large revision number (an etag-like key).
    let doc = |id: u64, text: &str, rev: u64| json!({"id": id, "text": text, "rev": rev});
    let fixture = derive(vec![
        get(
            0,
            "/docs",
            200,
            json!([
                doc(1, "a", 481_516_234_200_001),
                doc(2, "b", 481_516_234_200_002)
            ]),
        ),
        get(1, "/docs/1", 200, doc(1, "a", 481_516_234_200_001)),
        get(2, "/docs/2", 200, doc(2, "b", 481_516_234_200_002)),
        record(
            3,
            "PATCH",
            "/docs/1",
            Some(json!({"text": "c"})),
            200,
            doc(1, "c", 902_113_554_871_993),
        ),
        get(4, "/docs/1", 200, doc(1, "c", 902_113_554_871_993)),
        record(
            5,
            "PATCH",
            "/docs/2",
            Some(json!({"text": "d"})),
            200,
            doc(2, "d", 377_019_448_120_654),
        ),
        get(6, "/docs/2", 200, doc(2, "d", 377_019_448_120_654)),
        get(
            7,
            "/docs",
            200,
            json!([
                doc(1, "c", 902_113_554_871_993),
                doc(2, "d", 377_019_448_120_654)
            ]),
        ),
    ]);
    let plan = fixture.plan("patch_docs_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(
        plan.rules
            .iter()
            .any(|rule| rule.stage == "unique" && rule.explains == ["/rev"]),
        "{:?}",
        plan.rules
    );
    let (first, error) = fixture.call(
        "patch_docs_by_id",
        json!({"id": "1", "body": {"text": "e"}}),
    );
    assert!(!error, "{first}");
    let rev = first["body"]["rev"].as_u64().expect("a revision");
    assert_eq!(rev.to_string().len(), 15);
    assert_ne!(rev, 481_516_234_200_001);
    assert_eq!(first["body"]["text"], "e");
    let (second, _) = fixture.call(
        "patch_docs_by_id",
        json!({"id": "1", "body": {"text": "f"}}),
    );
    assert_ne!(second["body"]["rev"], first["body"]["rev"]);
    // The same calls after a reset give the same revisions.
    fixture.service.reset();
    let (again, _) = fixture.call(
        "patch_docs_by_id",
        json!({"id": "1", "body": {"text": "e"}}),
    );
    assert_eq!(again["body"], first["body"]);
}

#[test]
fn an_update_renews_a_version_id_and_accepts_any_sent_one() {
    // contract: WRITE-017, WRITE-072
    // n8n renews a workflow's `versionId` (a UUID) on every update; the client sends the one it
    // read. The renewal is modelled (the `uuid` rule, applied to an update: a fresh value each
    // write); the check of the sent value is not, so any `versionId` is accepted (a known limit).
    let workflow =
        |id: u64, name: &str, version: &str| json!({"id": id, "name": name, "versionId": version});
    const V1: &str = "0b6c1b4e-4a1e-4c55-9d39-1f0b2b3c4d5e";
    const V2: &str = "7d1e2f3a-5b6c-4d7e-8f90-a1b2c3d4e5f6";
    const V3: &str = "c3d4e5f6-a7b8-4c9d-8e0f-112233445566";
    let fixture = derive(vec![
        get(
            0,
            "/workflows",
            200,
            json!([workflow(1, "a", V1), workflow(2, "b", V2)]),
        ),
        get(1, "/workflows/1", 200, workflow(1, "a", V1)),
        get(2, "/workflows/2", 200, workflow(2, "b", V2)),
        record(
            3,
            "PATCH",
            "/workflows/1",
            Some(json!({"name": "c", "versionId": V1})),
            200,
            workflow(1, "c", V3),
        ),
        get(4, "/workflows/1", 200, workflow(1, "c", V3)),
        get(
            5,
            "/workflows",
            200,
            json!([workflow(1, "c", V3), workflow(2, "b", V2)]),
        ),
    ]);
    let plan = fixture.plan("patch_workflows_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(
        plan.rules
            .iter()
            .any(|rule| rule.stage == "uuid" && rule.explains == ["/versionId"]),
        "{:?}",
        plan.rules
    );
    let (written, error) = fixture.call(
        "patch_workflows_by_id",
        json!({"id": "2", "body": {"name": "d", "versionId": "not-the-held-one"}}),
    );
    assert!(!error, "{written}");
    let renewed = written["body"]["versionId"].as_str().expect("a version");
    assert_eq!(renewed.len(), 36);
    assert_ne!(renewed, V2);
    assert_ne!(renewed, "not-the-held-one");
    assert_eq!(written["body"]["name"], "d");
}

#[test]
fn an_update_applies_its_modelled_reference_change() {
    // contract: WRITE-015
    // Posts name their tags by id; the post stores the tag objects.
    let tag = |id: u64, name: &str| json!({"id": id, "name": name});
    let post = |id: u64, tags: Value| json!({"id": id, "title": format!("p{id}"), "tags": tags});
    let fixture = derive(vec![
        get(
            0,
            "/posts",
            200,
            json!([post(1, json!([])), post(2, json!([tag(9, "grey")]))]),
        ),
        get(1, "/posts/1", 200, post(1, json!([]))),
        get(2, "/posts/2", 200, post(2, json!([tag(9, "grey")]))),
        record(
            3,
            "PATCH",
            "/posts/1",
            Some(json!({"tag_ids": [3, 5]})),
            200,
            post(1, json!([tag(3, "red"), tag(5, "blue")])),
        ),
        get(
            4,
            "/posts/1",
            200,
            post(1, json!([tag(3, "red"), tag(5, "blue")])),
        ),
        record(
            5,
            "PATCH",
            "/posts/2",
            Some(json!({"tag_ids": [3]})),
            200,
            post(2, json!([tag(3, "red")])),
        ),
        get(6, "/posts/2", 200, post(2, json!([tag(3, "red")]))),
        get(
            7,
            "/posts",
            200,
            json!([
                post(1, json!([tag(3, "red"), tag(5, "blue")])),
                post(2, json!([tag(3, "red")]))
            ]),
        ),
    ]);
    let plan = fixture.plan("patch_posts_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(
        plan.rules.iter().any(|rule| rule.stage == "reference"),
        "{:?}",
        plan.rules
    );
    let (written, error) = fixture.call(
        "patch_posts_by_id",
        json!({"id": "2", "body": {"tag_ids": [5, 9]}}),
    );
    assert!(!error, "{written}");
    assert_eq!(
        written["body"],
        post(2, json!([tag(5, "blue"), tag(9, "grey")]))
    );
    // An id the capture never showed as a tag is refused, and nothing changes.
    let before = fixture.service.document();
    let (refused, error) = fixture.call(
        "patch_posts_by_id",
        json!({"id": "1", "body": {"tag_ids": [42]}}),
    );
    assert!(error, "{refused}");
    assert_eq!(fixture.service.document(), before);
}

/// A note read, then changed by a `PATCH` no later read confirms (withheld `unconfirmed`), served
/// with withheld writes as `mode` says.
fn unconfirmed_patch(mode: crate::rules::WithheldWrites) -> Fixture {
    let mut records = notes_read();
    records.push(record(
        2,
        "PATCH",
        "/notes/1",
        Some(json!({"text": "b"})),
        200,
        note(1, "b", "2026-01-01T00:00:00Z"),
    ));
    derive_with(records, rules().with_withheld(mode))
}

/// The state catalog's tool names with withheld writes as `mode` says.
fn catalog_names(fixture: &Fixture, mode: crate::rules::WithheldWrites) -> Vec<String> {
    let environment =
        Environment::new(&fixture.manifest, "ev_capture", fixture.records.clone()).unwrap();
    crate::catalog::state_tools_with_views(
        &environment,
        &fixture.manifest,
        &fixture.state.write_plans,
        &fixture.state.views,
        mode,
    )
    .into_iter()
    .map(|tool| tool.name)
    .collect()
}

#[test]
fn a_hidden_withheld_write_is_no_tool() {
    use crate::rules::WithheldWrites;
    let fixture = unconfirmed_patch(WithheldWrites::Hide);
    assert!(!fixture.plan("patch_notes_by_id").served);
    let names = catalog_names(&fixture, WithheldWrites::Hide);
    assert!(names.contains(&"get_notes_by_id".to_owned()), "{names:?}");
    assert!(
        !names.contains(&"patch_notes_by_id".to_owned()),
        "{names:?}"
    );
}

/// Calls the withheld `PATCH` served as `mode` says: it is listed, and neither the state nor a
/// later read changes. Its answer and `isError`, and the plan.
fn call_withheld(
    mode: crate::rules::WithheldWrites,
    text: &str,
) -> (Value, bool, crate::writes::model::WritePlan) {
    let fixture = unconfirmed_patch(mode);
    let names = catalog_names(&fixture, mode);
    assert!(names.contains(&"patch_notes_by_id".to_owned()), "{names:?}");
    let before = fixture.service.document();
    let (answer, is_error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"text": text}}),
    );
    assert_eq!(
        fixture.service.document(),
        before,
        "{mode:?} changes nothing"
    );
    let (read, _) = fixture.call("get_notes_by_id", json!({"id": "1"}));
    assert_eq!(read["body"]["text"], "a", "{read}");
    (answer, is_error, fixture.plan("patch_notes_by_id").clone())
}

#[test]
fn a_refused_withheld_write_is_listed_and_answers_not_served_changing_nothing() {
    let (answer, is_error, plan) = call_withheld(crate::rules::WithheldWrites::Refuse, "c");
    assert!(is_error, "{answer}");
    assert_eq!(answer["error"]["code"], "not_served", "{answer}");
    let data = &answer["error"]["data"];
    assert_eq!(data["tool"], "patch_notes_by_id");
    assert_eq!(data["effect"], "update");
    assert_eq!(data["reason"], "unconfirmed");
    assert_eq!(data["hint"], Value::String(plan.hint.unwrap()));
}

#[test]
fn a_replayed_withheld_write_answers_its_recording_flagged_and_changes_nothing() {
    let (answer, is_error, _) = call_withheld(crate::rules::WithheldWrites::Replay, "b");
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(answer["body"]["text"], "b", "the recorded answer: {answer}");
    assert_eq!(
        answer["state"],
        json!({"source": "recording", "reason": "withheld-write", "withheld": "unconfirmed", "changed": false}),
        "{answer}"
    );
}

/// A note with a title.
fn titled(id: u64, title: &str, text: &str) -> Value {
    json!({"id": id, "title": title, "text": text})
}

/// Notes 1 and 2 read, a `PATCH` of note 1 sending both members, read back; then `more`.
fn titled_patch(more: Vec<CaptureRecord>) -> Fixture {
    let mut records = vec![
        get(
            0,
            "/notes",
            200,
            json!([titled(1, "a", "x"), titled(2, "b", "y")]),
        ),
        get(1, "/notes/1", 200, titled(1, "a", "x")),
        record(
            2,
            "PATCH",
            "/notes/1",
            Some(json!({"title": "c", "text": "z"})),
            200,
            titled(1, "c", "z"),
        ),
        get(3, "/notes/1", 200, titled(1, "c", "z")),
    ];
    records.extend(more);
    derive(records)
}

#[test]
fn a_patch_update_accepts_any_subset_of_the_members_it_was_seen_sending() {
    // One recorded merge sent both members: a later call may send either alone, and the
    // member it leaves out keeps its value.
    let fixture = titled_patch(Vec::new());
    let plan = fixture.plan("patch_notes_by_id");
    assert!(plan.served, "{plan:?}");
    let members = &plan.body.as_ref().expect("a body").members;
    assert_eq!(members.len(), 2, "{members:?}");
    assert!(
        members.values().all(|member| !member.required),
        "{members:?}"
    );
    let (answer, is_error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "2", "body": {"text": "w"}}),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], titled(2, "b", "w"), "{answer}");
    let (read, _) = fixture.call("get_notes_by_id", json!({"id": "2"}));
    assert_eq!(read["body"], titled(2, "b", "w"), "{read}");
}

#[test]
fn a_put_replace_still_requires_what_every_call_sent() {
    let fixture = derive(vec![
        get(0, "/notes", 200, json!([titled(1, "a", "x")])),
        get(1, "/notes/1", 200, titled(1, "a", "x")),
        record(
            2,
            "PUT",
            "/notes/1",
            Some(json!({"title": "c", "text": "z"})),
            200,
            titled(1, "c", "z"),
        ),
        get(3, "/notes/1", 200, titled(1, "c", "z")),
    ]);
    let plan = fixture.plan("put_notes_by_id");
    assert!(plan.served, "{plan:?}");
    let members = &plan.body.as_ref().expect("a body").members;
    assert!(
        members.values().all(|member| member.required),
        "{members:?}"
    );
    let (answer, is_error) =
        fixture.call("put_notes_by_id", json!({"id": "1", "body": {"text": "w"}}));
    assert!(is_error, "{answer}");
}

#[test]
fn an_update_call_on_an_entity_never_held_leaves_the_plan_to_the_calls_that_show_it() {
    // A second merge changed note 9, which no read before it showed: it teaches nothing, and
    // the plan is learned from (and confirmed by) the call on note 1.
    let fixture = titled_patch(vec![
        record(
            4,
            "PATCH",
            "/notes/9",
            Some(json!({"text": "q"})),
            200,
            titled(9, "n", "q"),
        ),
        get(5, "/notes/9", 200, titled(9, "n", "q")),
    ]);
    let plan = fixture.plan("patch_notes_by_id");
    assert!(plan.served, "{plan:?}");
    assert_eq!(plan.confirmed_by, vec![3], "{plan:?}");
    let (answer, is_error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"title": "t"}}),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], titled(1, "t", "x"), "{answer}");
}

fn series(id: u64, name: &str) -> Value {
    json!({"id": id, "name": name})
}

#[test]
fn item_paths_written_with_a_trailing_slash_name_their_entity() {
    // `/series/2/` is the item of `/series/` its list reads: the read is an item view of that
    // type, and its PUT and DELETE are the type's update and delete (the reads after them show
    // the entity replaced and gone).
    let fixture = derive(vec![
        get(
            0,
            "/series/",
            200,
            json!([series(1, "Alpha"), series(2, "Beta")]),
        ),
        get(1, "/series/1/", 200, series(1, "Alpha")),
        get(2, "/series/2/", 200, series(2, "Beta")),
        record(
            3,
            "PUT",
            "/series/2/",
            Some(json!({"name": "Gamma"})),
            200,
            series(2, "Gamma"),
        ),
        get(4, "/series/2/", 200, series(2, "Gamma")),
        record(
            5,
            "DELETE",
            "/series/1/",
            None,
            200,
            json!({"status": "ok"}),
        ),
        get(6, "/series/1/", 404, json!({"error": "not found"})),
        get(7, "/series/", 200, json!([series(2, "Gamma")])),
    ]);
    let item = fixture
        .state
        .views
        .iter()
        .find(|view| view.path_template == "/series/{numeric}/")
        .expect("the item read's view");
    let crate::model::ViewDetail::Item(detail) = &item.detail else {
        panic!("an item view: {:?}", item.detail)
    };
    assert_eq!(detail.entity_type, "/series/");
    let tool = item.tool.clone();
    let update = fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.method == "PUT")
        .expect("the PUT's plan");
    let delete = fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.method == "DELETE")
        .expect("the DELETE's plan");
    assert!(update.served, "{:?}", update.reason);
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(delete.effect, crate::writes::model::Effect::Delete);
    // Served: an id the recording never read answers from the state, as does every write.
    let (read, _) = fixture.call(&tool, json!({"sery_id": "2"}));
    assert_eq!(read["body"], series(2, "Beta"), "{read}");
    let (_, error) = fixture.call(
        &update.tool,
        json!({"sery_id": "2", "body": {"name": "Delta"}}),
    );
    assert!(!error);
    let (read, _) = fixture.call(&tool, json!({"sery_id": "2"}));
    assert_eq!(read["body"], series(2, "Delta"));
    let (deleted, error) = fixture.call(&delete.tool, json!({"sery_id": "2"}));
    assert!(!error, "{deleted}");
    let (gone, _) = fixture.call(&tool, json!({"sery_id": "2"}));
    assert_eq!(gone["status"], 404);
    let (list, _) = fixture.call("get_series", json!({}));
    assert_eq!(list["body"], json!([series(1, "Alpha")]));
}

#[test]
fn an_entity_first_shown_by_a_read_after_the_first_write_is_held_for_later_writes() {
    // `POST /import` makes note 3 in a way the state does not model (its answer names nothing);
    // the read of note 3 right after shows it whole, so the later delete of note 3 is observed
    // against it (the 404 read after it shows it gone) and learned from that one call.
    let fixture = derive(vec![
        get(
            0,
            "/notes",
            200,
            json!([note_of("1", "a"), note_of("2", "b")]),
        ),
        get(1, "/notes/1", 200, note_of("1", "a")),
        record(
            2,
            "POST",
            "/import",
            Some(json!({"text": "c"})),
            200,
            json!({"ok": true}),
        ),
        get(3, "/notes/3", 200, note_of("3", "c")),
        record(4, "DELETE", "/notes/3", None, 204, Value::Null),
        get(5, "/notes/3", 404, json!({"error": "not found"})),
        get(
            6,
            "/notes",
            200,
            json!([note_of("1", "a"), note_of("2", "b")]),
        ),
    ]);
    let delete = fixture.plan("delete_notes_by_id");
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(delete.record_ordinals, vec![4]);
    // Served on a note the state holds: it is gone from the item and the list reads.
    let (deleted, error) = fixture.call("delete_notes_by_id", json!({"id": "2"}));
    assert!(!error, "{deleted}");
    let (gone, _) = fixture.call("get_notes_by_id", json!({"id": "2"}));
    assert_eq!(gone["status"], 404);
    let (list, _) = fixture.call("get_notes", json!({}));
    assert_eq!(list["body"], json!([note_of("1", "a")]));
}

#[test]
fn a_write_call_with_another_query_or_repeated_query_values_is_refused() {
    // `POST /notes?notify=1` creates a note the read after it shows: its plan is served with the
    // exemplar's query, and a call naming another query, or repeating a value, changes nothing.
    let fixture = derive(vec![
        get(0, "/notes", 200, json!([note_of("1", "a")])),
        get(1, "/notes/1", 200, note_of("1", "a")),
        record(
            2,
            "POST",
            "/notes?notify=1",
            Some(json!({"text": "b"})),
            201,
            note_of("2", "b"),
        ),
        get(3, "/notes/2", 200, note_of("2", "b")),
        get(
            4,
            "/notes",
            200,
            json!([note_of("1", "a"), note_of("2", "b")]),
        ),
    ]);
    let tool = "post_notes";
    let plan = fixture.plan(tool);
    assert!(plan.served, "{:?}", plan.reason);
    let listed = |fixture: &Fixture| fixture.call("get_notes", json!({})).0["body"].clone();
    let before = listed(&fixture);
    let refused = |arguments: Value| {
        let (answer, error) = fixture.call(tool, arguments.clone());
        assert!(error, "{arguments} was not refused: {answer}");
        answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    // contract: WRITE-048 (another value, and no query at all)
    let message = refused(json!({"notify": "2", "body": {"text": "c"}}));
    assert!(message.contains("notify=1"), "{message}");
    refused(json!({"body": {"text": "c"}}));
    // contract: STATE-066
    let message = refused(json!({"notify": ["1", "1"], "body": {"text": "c"}}));
    assert!(message.contains("repeated"), "{message}");
    // contract: WRITE-055 (the refused calls changed nothing)
    assert_eq!(listed(&fixture), before);
    // The exemplar's query is served.
    let (created, error) = fixture.call(tool, json!({"notify": "1", "body": {"text": "c"}}));
    assert!(!error, "{created}");
    assert_ne!(listed(&fixture), before);
}

fn ticket(id: u64) -> Value {
    json!({"id": id, "subject": format!("ticket {id}")})
}

fn ticket_note(id: u64, ticket: u64) -> Value {
    json!({"id": id, "ticketId": ticket, "body": format!("note {id}")})
}

/// The built-in rules with the `dependents` stage after `soft-delete`, as the default pipeline
/// orders them.
fn rules_with_dependents() -> RuleSet {
    let mut rules = rules();
    rules.push(ConfiguredRule {
        stage: "dependents".to_owned(),
        plugin: "test".to_owned(),
        options: BTreeMap::new(),
        handle: RuleSet::direct(rea_plugin_dependents::DependentsRule),
    });
    rules
}

/// A ticket delete read back `404`, then the whole notes list after it, listing `after`.
fn ticket_delete_then_notes(after: Vec<Value>) -> Fixture {
    derive_with(
        vec![
            get(0, "/tickets", 200, json!([ticket(1), ticket(2)])),
            get(1, "/tickets/2", 200, ticket(2)),
            get(
                2,
                "/notes",
                200,
                json!([ticket_note(1, 1), ticket_note(2, 1), ticket_note(3, 2)]),
            ),
            get(3, "/notes/3", 200, ticket_note(3, 2)),
            record(4, "DELETE", "/tickets/1", None, 200, json!({})),
            get(5, "/tickets/1", 404, json!({})),
            get(6, "/notes", 200, Value::Array(after)),
        ],
        rules_with_dependents(),
    )
}

fn delete_plan(fixture: &Fixture) -> &crate::writes::model::WritePlan {
    fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.method == "DELETE")
        .expect("the delete's plan")
}

/// The effects of a plan's `dependents` rule, as JSON.
fn dependents_effects(plan: &crate::writes::model::WritePlan) -> Value {
    let rule = plan
        .rules
        .iter()
        .find(|rule| rule.stage == "dependents")
        .unwrap_or_else(|| panic!("no dependents rule: {:?}", plan.rules));
    let effects = rule.rule.get("dependents").expect("effects");
    effects.to_serde_value().expect("json")
}

#[test]
fn a_whole_list_after_a_delete_shows_its_dependents_removed() {
    // No note is read by id after the delete: the whole notes list, listing every other note the
    // state held, shows the ticket's notes gone (a cascade over `ticketId`).
    let fixture = ticket_delete_then_notes(vec![ticket_note(3, 2)]);
    let delete = delete_plan(&fixture);
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(
        dependents_effects(delete),
        json!([{"entity_type": "/notes", "field": "ticketId", "action": {"kind": "remove"}}])
    );
    // Served from the state before the build's writes, a delete of the other ticket removes its
    // note from the list and keeps ticket 1's.
    let (deleted, error) = fixture.call(&delete.tool, json!({"id": "2"}));
    assert!(!error, "{deleted}");
    let (notes, _) = fixture.call("get_notes", json!({}));
    assert_eq!(notes["state"]["source"], "state", "{notes}");
    assert_eq!(
        notes["body"],
        json!([ticket_note(1, 1), ticket_note(2, 1)]),
        "{notes}"
    );
}

#[test]
fn a_nested_create_no_read_showed_creates_where_its_tools_earlier_call_did() {
    // rails-ransack's `POST /projects/{id}/tasks`: the first call's task is read back by id
    // (`/tasks/3`), the second's only in a list. The second answers its new task: it creates in
    // `/tasks` too (numbered one past the largest held, as its answer shows, not from 1 as in a
    // collection of its own), so the plan is confirmed and served.
    let task = |id: u64, project: u64, title: &str| json!({"id": id, "title": title, "project_id": project});
    let fixture = derive(vec![
        get(0, "/tasks", 200, json!([task(1, 1, "x"), task(2, 2, "y")])),
        get(1, "/tasks/1", 200, task(1, 1, "x")),
        record(
            2,
            "POST",
            "/projects/1/tasks",
            Some(json!({"title": "a"})),
            201,
            task(3, 1, "a"),
        ),
        get(3, "/tasks/3", 200, task(3, 1, "a")),
        record(
            4,
            "POST",
            "/projects/2/tasks",
            Some(json!({"title": "b"})),
            201,
            task(4, 2, "b"),
        ),
        get(
            5,
            "/tasks",
            200,
            json!([
                task(1, 1, "x"),
                task(2, 2, "y"),
                task(3, 1, "a"),
                task(4, 2, "b")
            ]),
        ),
    ]);
    let plan = fixture.plan("post_projects_tasks_by_project_id");
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.record_ordinals, [2, 4]);
    let (created, error) = fixture.call(
        "post_projects_tasks_by_project_id",
        json!({"project_id": "2", "body": {"title": "c"}}),
    );
    assert!(!error, "{created}");
    // Served from the state the reads observed before the build's writes: one past task 2.
    assert_eq!(created["body"], task(3, 2, "c"), "{created}");
}

#[test]
fn a_create_leaves_out_what_another_create_tool_of_its_type_left_out() {
    // `POST /tasks` always sent `status`; the nested `POST /projects/1/tasks` left it out and
    // stored "todo": a task create may leave it out, storing that default.
    let task = |id: u64, title: &str, status: &str| json!({"id": id, "title": title, "status": status, "project_id": 1});
    let fixture = derive(vec![
        get(0, "/tasks", 200, json!([task(1, "x", "done")])),
        get(1, "/tasks/1", 200, task(1, "x", "done")),
        record(
            2,
            "POST",
            "/tasks",
            Some(json!({"title": "a", "status": "doing", "project_id": 1})),
            201,
            task(2, "a", "doing"),
        ),
        get(3, "/tasks/2", 200, task(2, "a", "doing")),
        record(
            4,
            "POST",
            "/projects/1/tasks",
            Some(json!({"title": "b"})),
            201,
            task(3, "b", "todo"),
        ),
        get(5, "/tasks/3", 200, task(3, "b", "todo")),
    ]);
    let plan = fixture.plan("post_tasks");
    assert!(plan.served, "{:?}", plan.reason);
    let members = &plan.body.as_ref().expect("a body").members;
    assert!(!members["status"].required);
    assert!(members["title"].required && members["project_id"].required);
    let (created, error) = fixture.call(
        "post_tasks",
        json!({"body": {"title": "c", "project_id": 1}}),
    );
    assert!(!error, "{created}");
    assert_eq!(created["body"]["status"], "todo", "{created}");
}

#[test]
fn a_delete_no_read_showed_gone_is_observed_by_a_dependent_read_back() {
    // rails-ransack's person delete: nothing reads the ticket back, but the note referring to it
    // is read back with `ticketId` null: that read shows what the delete did (it clears the
    // relation), so the delete is learned and served. Without that read nothing shows it.
    let build = |note_after: Option<Value>| {
        let mut records = vec![
            get(0, "/tickets", 200, json!([ticket(1), ticket(2)])),
            get(
                1,
                "/notes",
                200,
                json!([ticket_note(1, 1), ticket_note(2, 2)]),
            ),
            get(2, "/notes/1", 200, ticket_note(1, 1)),
            record(3, "DELETE", "/tickets/1", None, 204, Value::Null),
        ];
        if let Some(note) = note_after {
            records.push(get(4, "/notes/1", 200, note));
        }
        derive_with(records, rules_with_dependents())
    };
    let fixture = build(Some(json!({"id": 1, "ticketId": null, "body": "note 1"})));
    let delete = delete_plan(&fixture);
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(
        dependents_effects(delete),
        json!([{"entity_type": "/notes", "field": "ticketId", "action": {"kind": "clear"}}])
    );
    let (deleted, error) = fixture.call(&delete.tool, json!({"id": "2"}));
    assert!(!error, "{deleted}");
    let (note, _) = fixture.call("get_notes_by_id", json!({"id": "2"}));
    assert_eq!(
        note["body"],
        json!({"id": 2, "ticketId": null, "body": "note 2"}),
        "{note}"
    );
    let fixture = build(None);
    assert_eq!(
        delete_plan(&fixture).reason.as_deref(),
        Some("no-observation")
    );
}

#[test]
fn a_filtered_list_after_a_delete_its_model_evaluates_shows_its_dependents_removed() {
    // No note is read by id or listed whole after the delete: a list filtered by `kind` (a
    // filter the notes' query model learned from entries 3 and 4) lists note 3 alone where the
    // query selects notes 1 and 3, so the delete removed ticket 1's note 1 (a cascade over
    // `ticketId`); the filtered list is no page of many, since it lists what the query selects
    // but for the deleted ticket's notes.
    let note =
        |id: u64, ticket: u64, kind: &str| json!({"id": id, "ticketId": ticket, "kind": kind});
    let notes = json!([note(1, 1, "a"), note(2, 1, "b"), note(3, 2, "a")]);
    let fixture = derive_with(
        vec![
            get(0, "/tickets", 200, json!([ticket(1), ticket(2)])),
            get(1, "/tickets/2", 200, ticket(2)),
            get(2, "/notes", 200, notes),
            get(
                3,
                "/notes?kind=a",
                200,
                json!([note(1, 1, "a"), note(3, 2, "a")]),
            ),
            get(4, "/notes?kind=b", 200, json!([note(2, 1, "b")])),
            get(5, "/notes/3", 200, note(3, 2, "a")),
            record(6, "DELETE", "/tickets/1", None, 200, json!({})),
            get(7, "/tickets/1", 404, json!({})),
            get(8, "/notes?kind=a", 200, json!([note(3, 2, "a")])),
        ],
        rules_with_dependents(),
    );
    let delete = delete_plan(&fixture);
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(
        dependents_effects(delete),
        json!([{"entity_type": "/notes", "field": "ticketId", "action": {"kind": "remove"}}])
    );
}

#[test]
fn a_list_missing_other_entities_shows_no_dependents() {
    // The list after the delete lacks note 3 too (which holds no id of the deleted ticket): it
    // may be one page of many, so it says nothing of the ticket's notes.
    let fixture = ticket_delete_then_notes(Vec::new());
    let delete = delete_plan(&fixture);
    assert!(
        delete.rules.iter().all(|rule| rule.stage != "dependents"),
        "{:?}",
        delete.rules
    );
}

/// A ticket delete read back `404`, then the whole notes list without the ticket's notes; agents
/// only read. Each note names its ticket and agent; `extra` adds a member to every note.
fn ticket_delete_beside_agents(ids: [Value; 4], extra: Option<(&str, Value)>) -> Fixture {
    let [t1, t2, a1, a2] = ids;
    let note = |id: u64, ticket: &Value, agent: &Value| {
        let mut note = json!({"id": id, "ticketId": ticket, "agentId": agent, "body": "n"});
        if let Some((name, value)) = &extra {
            note[*name] = value.clone();
        }
        note
    };
    let agent = |id: &Value| json!({"id": id, "name": "a"});
    derive_with(
        vec![
            get(0, "/tickets", 200, json!([ticket_of(&t1), ticket_of(&t2)])),
            get(
                1,
                &format!("/tickets/{}", text_of(&t1)),
                200,
                ticket_of(&t1),
            ),
            get(
                2,
                &format!("/tickets/{}", text_of(&t2)),
                200,
                ticket_of(&t2),
            ),
            get(3, "/agents", 200, json!([agent(&a1), agent(&a2)])),
            get(4, &format!("/agents/{}", text_of(&a1)), 200, agent(&a1)),
            get(5, &format!("/agents/{}", text_of(&a2)), 200, agent(&a2)),
            get(
                6,
                "/notes",
                200,
                json!([note(1, &t1, &a2), note(2, &t2, &a2), note(3, &t2, &a1)]),
            ),
            record(
                7,
                "DELETE",
                &format!("/tickets/{}", text_of(&t1)),
                None,
                204,
                Value::Null,
            ),
            get(8, &format!("/tickets/{}", text_of(&t1)), 404, json!({})),
            get(
                9,
                "/notes",
                200,
                json!([note(2, &t2, &a2), note(3, &t2, &a1)]),
            ),
        ],
        rules_with_dependents().with_sibling_transfer(true),
    )
}

fn ticket_of(id: &Value) -> Value {
    json!({"id": id, "subject": "s"})
}

fn text_of(id: &Value) -> String {
    id.as_str().map_or_else(|| id.to_string(), str::to_owned)
}

fn inferred_agent_delete(fixture: &Fixture) -> &crate::writes::model::WritePlan {
    fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.method == "DELETE" && plan.inferred_from.is_some())
        .unwrap_or_else(|| {
            let tools: Vec<(&str, &str)> = fixture
                .manifest
                .tools
                .iter()
                .map(|tool| (tool.method.as_str(), tool.path_template.as_str()))
                .collect();
            panic!("no inferred agent delete: {tools:?}")
        })
}

#[test]
fn an_inferred_delete_carries_the_dependents_over_the_member_naming_its_ids() {
    // The ticket delete removed the notes naming the ticket (`ticketId`); the agents' inferred
    // delete removes the notes naming the agent, found by the held values (`agentId` holds
    // agent ids only), not by its name.
    let ids = [json!("t1"), json!("t2"), json!("a1"), json!("a2")];
    let fixture = ticket_delete_beside_agents(ids, None);
    let delete = inferred_agent_delete(&fixture);
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(
        dependents_effects(delete),
        json!([{"entity_type": "/notes", "field": "agentId", "action": {"kind": "remove"}}])
    );
    let (deleted, error) = fixture.call(&delete.tool, json!({"id": "a1"}));
    assert!(!error, "{deleted}");
    let (notes, _) = fixture.call("get_notes", json!({}));
    let listed: Vec<&Value> = notes["body"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|note| &note["id"])
        .collect();
    assert_eq!(listed, [&json!(1), &json!(2)], "{notes}");
}

#[test]
fn an_inferred_delete_leaves_dependents_behind_when_two_members_could_name_its_ids() {
    // Numeric ids: the notes' `rank` (1 or 2) could name an agent as well as `agentId` does.
    let ids = || [json!(1), json!(2), json!(1), json!(2)];
    let fixture = ticket_delete_beside_agents(ids(), Some(("rank", json!(2))));
    let delete = inferred_agent_delete(&fixture);
    assert!(
        delete.rules.iter().all(|rule| rule.stage != "dependents"),
        "{:?}",
        delete.rules
    );
    // Without `rank`, `agentId` is the one member besides `ticketId` holding agent ids only.
    let fixture = ticket_delete_beside_agents(ids(), None);
    let delete = inferred_agent_delete(&fixture);
    assert!(
        delete.rules.iter().any(|rule| rule.stage == "dependents"),
        "{:?}",
        delete.rules
    );
}

fn file_of(name: &str, content: Option<&str>, size: usize) -> Value {
    json!({"name": name, "content": content, "format": content.map(|_| "text"), "size": size})
}

#[test]
fn a_document_save_stamps_the_bytes_it_sent_and_answers_without_its_content() {
    // A save answers the file without its content (`content` and `format` null, though the file
    // holds them) and stores `size` as the bytes of the sent text, which only the byte-length
    // rule explains.
    let fixture = derive(vec![
        get(
            0,
            "/files",
            200,
            json!([file_of("a.md", None, 3), file_of("b.md", None, 2)]),
        ),
        get(1, "/files/a.md", 200, file_of("a.md", Some("abc"), 3)),
        get(2, "/files/b.md", 200, file_of("b.md", Some("xy"), 2)),
        record(
            3,
            "PUT",
            "/files/a.md",
            Some(json!({"content": "hello", "format": "text"})),
            200,
            file_of("a.md", None, 5),
        ),
        get(4, "/files/a.md", 200, file_of("a.md", Some("hello"), 5)),
        get(
            5,
            "/files",
            200,
            json!([file_of("a.md", None, 5), file_of("b.md", None, 2)]),
        ),
    ]);
    let plan = fixture.plan("put_files_by_name");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(
        plan.rules
            .iter()
            .any(|rule| rule.stage == "byte-length" && rule.explains == ["/size"]),
        "{:?}",
        plan.rules
    );
    let response = plan.response.as_ref().expect("an answer");
    assert_eq!(response.nulled_members, ["content", "format"]);
    // Served: the size counts UTF-8 bytes of the sent text, the answer leaves the content out.
    let (saved, error) = fixture.call(
        "put_files_by_name",
        json!({"name": "a.md", "body": {"content": "héllo wörld", "format": "text"}}),
    );
    assert!(!error, "{saved}");
    assert_eq!(saved["body"], file_of("a.md", None, 13));
    let (read, _) = fixture.call("get_files_by_name", json!({"name": "a.md"}));
    assert_eq!(read["body"], file_of("a.md", Some("héllo wörld"), 13));
    // Without the rule stage the size is unexplained and the save withheld.
    let without = derive_with(fixture.records.clone(), rules_except(&["byte-length"]));
    let plan = without.plan("put_files_by_name");
    assert_eq!(plan.reason.as_deref(), Some("unexplained-change"));
}

/// A rule stage as one built before held indexes behaves: it declares `values` and gets every
/// held value listed in its request.
#[derive(Debug)]
struct Listing(Arc<dyn crate::rules::RuleStep>);

impl crate::rules::RuleStep for Listing {
    fn learn(
        &self,
        request: &rea_plugin_api::contracts::rule::LearnRequest,
    ) -> Result<rea_plugin_api::contracts::rule::LearnOutcome, String> {
        self.0.learn(request)
    }

    fn apply(
        &self,
        request: &rea_plugin_api::contracts::rule::ApplyRequest,
    ) -> Result<rea_plugin_api::contracts::rule::ApplyOutcome, String> {
        self.0.apply(request)
    }

    fn held_indexes(&self) -> &[rea_plugin_api::contracts::rule::HeldIndexKind] {
        &[rea_plugin_api::contracts::rule::HeldIndexKind::Values]
    }

    fn apply_held(
        &self,
        request: &rea_plugin_api::contracts::rule::ApplyRequest,
        _held: rea_plugin_api::HeldIndexBox,
    ) -> Result<rea_plugin_api::contracts::rule::ApplyOutcome, String> {
        panic!("a stage declaring `values` is applied without held indexes: {request:?}")
    }
}

fn keyed(id: u64, title: &str) -> Value {
    let key = format!("{id:08x}-0000-4000-8000-{:012x}", id * 7919);
    json!({"id": id, "title": title, "key": key})
}

/// Items with a sequence id and a generated key: two creates, a delete, read back.
fn keyed_items() -> Vec<CaptureRecord> {
    vec![
        get(0, "/items", 200, json!([keyed(1, "a"), keyed(2, "b")])),
        get(1, "/items/1", 200, keyed(1, "a")),
        get(2, "/items/2", 200, keyed(2, "b")),
        record(
            3,
            "POST",
            "/items",
            Some(json!({"title": "c"})),
            201,
            keyed(3, "c"),
        ),
        get(4, "/items/3", 200, keyed(3, "c")),
        record(
            5,
            "POST",
            "/items",
            Some(json!({"title": "d"})),
            201,
            keyed(4, "d"),
        ),
        get(6, "/items/4", 200, keyed(4, "d")),
        record(
            7,
            "PATCH",
            "/items/4",
            Some(json!({"title": "e"})),
            200,
            keyed(4, "e"),
        ),
        get(8, "/items/4", 200, keyed(4, "e")),
        record(9, "DELETE", "/items/4", None, 200, json!({})),
        get(10, "/items/4", 404, json!({})),
        get(
            11,
            "/items",
            200,
            json!([keyed(1, "a"), keyed(2, "b"), keyed(3, "c")]),
        ),
    ]
}

#[test]
fn served_sequences_and_keys_answer_from_held_indexes_as_they_did_from_every_held_value() {
    let indexed = derive(keyed_items());
    let mut listing_rules = RuleSet::empty();
    for step in rules().steps() {
        listing_rules.push(ConfiguredRule {
            handle: Arc::new(Listing(Arc::clone(&step.handle))),
            ..step.clone()
        });
    }
    let listing = derive_with(keyed_items(), listing_rules);
    for tool in ["post_items", "patch_items_by_id", "delete_items_by_id"] {
        assert!(
            indexed.plan(tool).served,
            "{tool}: {:?}",
            indexed.plan(tool).reason
        );
    }
    let stages: Vec<(&str, &[String])> = indexed
        .plan("post_items")
        .rules
        .iter()
        .map(|rule| (rule.stage.as_str(), rule.explains.as_slice()))
        .collect();
    assert!(
        stages.contains(&("sequence", &["/id".to_owned()][..])),
        "{stages:?}"
    );
    assert!(
        stages.contains(&("uuid", &["/key".to_owned()][..])),
        "{stages:?}"
    );
    let create = |title: &str| ("post_items", json!({"body": {"title": title}}));
    let calls = [
        create("f"),
        create("g"),
        // The largest id goes; the sequence still continues past it.
        ("delete_items_by_id", json!({"id": "4"})),
        create("h"),
        (
            "patch_items_by_id",
            json!({"id": "5", "body": {"title": "i"}}),
        ),
        ("delete_items_by_id", json!({"id": "3"})),
        create("j"),
    ];
    let mut ids = Vec::new();
    for (tool, arguments) in &calls {
        let (answer, error) = indexed.call(tool, arguments.clone());
        assert!(!error, "{tool}: {answer}");
        assert_eq!(
            answer,
            listing.call(tool, arguments.clone()).0,
            "{tool} {arguments}"
        );
        if *tool == "post_items" {
            ids.push(answer["body"]["id"].clone());
        }
    }
    assert_eq!(ids, [json!(3), json!(4), json!(5), json!(6)]);
    // A reset starts the indexes again from the derived state.
    for fixture in [&indexed, &listing] {
        fixture.service.reset();
    }
    let (tool, arguments) = create("k");
    let (again, _) = indexed.call(tool, arguments.clone());
    assert_eq!(again["body"]["id"], json!(3));
    assert_eq!(again, listing.call(tool, arguments).0);
}

/// A job as a queue stores it: its sent name, and a nested run the create generates (a uuid
/// token, a state every create starts in, a label spelled from the sent name).
fn job(id: u64, name: &str, token: &str) -> Value {
    json!({
        "id": id,
        "name": name,
        "run": {"token": token, "state": "queued", "label": format!("run of {name}")},
    })
}

#[test]
fn a_create_generates_the_values_nested_in_its_created_object() {
    let first = "3f2a9c0d-4e5b-4a7f-8091-a2b3c4d5e6f7";
    let second = "a0b1c2d3-e4f5-4617-a839-4a5b6c7d8e9f";
    let held = "00112233-4455-4677-8899-aabbccddeeff";
    let fixture = derive(vec![
        get(0, "/jobs", 200, json!([job(1, "held", held)])),
        get(1, "/jobs/1", 200, job(1, "held", held)),
        record(
            2,
            "POST",
            "/jobs",
            Some(json!({"name": "nightly"})),
            201,
            job(2, "nightly", first),
        ),
        get(3, "/jobs/2", 200, job(2, "nightly", first)),
        record(
            4,
            "POST",
            "/jobs",
            Some(json!({"name": "weekly"})),
            201,
            job(3, "weekly", second),
        ),
        get(5, "/jobs/3", 200, job(3, "weekly", second)),
        get(
            6,
            "/jobs",
            200,
            json!([
                job(1, "held", held),
                job(2, "nightly", first),
                job(3, "weekly", second)
            ]),
        ),
    ]);
    let plan = fixture.plan("post_jobs");
    assert!(plan.served, "{:?}", plan.reason);
    let explained: BTreeMap<&str, &[String]> = plan
        .rules
        .iter()
        .map(|rule| (rule.stage.as_str(), rule.explains.as_slice()))
        .collect();
    assert_eq!(
        explained.get("uuid"),
        Some(&&["/run/token".to_owned()][..]),
        "{explained:?}"
    );
    assert_eq!(
        explained.get("composed"),
        Some(&&["/run/label".to_owned()][..]),
        "{explained:?}"
    );
    let fields = plan.fields.as_ref().expect("a field model");
    assert_eq!(
        fields.nested_constants.get("/run/state"),
        Some(&rea_plugin_api::json::Json::from_serde_value(&json!(
            "queued"
        )))
    );
    assert!(
        !fields.constants.contains_key("run"),
        "{:?}",
        fields.constants
    );
    let (written, error) = fixture.call("post_jobs", json!({"body": {"name": "hourly"}}));
    assert!(!error, "{written}");
    let run = &written["body"]["run"];
    assert_eq!(run["state"], "queued", "{written}");
    assert_eq!(run["label"], "run of hourly", "{written}");
    let token = run["token"].as_str().expect("a generated token");
    assert_eq!(token.len(), 36, "{written}");
    assert!(
        token
            .bytes()
            .all(|byte| byte.is_ascii_hexdigit() || byte == b'-'),
        "{written}"
    );
    assert!(![first, second, held].contains(&token), "{written}");
}

#[test]
fn a_delete_read_back_with_the_item_views_missing_403_is_confirmed_and_served() {
    // An application answering `403` for an item that does not exist (Directus): the read of the
    // deleted path after the delete shows it gone, as the item view takes it, so the delete is
    // observed and confirmed (it was `no-observation` while only a 404/410 showed absence).
    let task = |id: u64, title: &str| json!({"data": {"id": id, "title": title}});
    let forbidden = json!({"errors": [{"message": "You don't have permission to access this."}]});
    let fixture = derive(vec![
        get(
            0,
            "/items/tasks",
            200,
            json!({"data": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}),
        ),
        get(1, "/items/tasks/1", 200, task(1, "a")),
        get(2, "/items/tasks/2", 200, task(2, "b")),
        record(3, "DELETE", "/items/tasks/2", None, 204, Value::Null),
        get(4, "/items/tasks/2", 403, forbidden.clone()),
    ]);
    let delete = fixture.plan("delete_items_tasks_by_id");
    assert!(delete.served, "{:?}", delete.reason);
    let (deleted, error) = fixture.call("delete_items_tasks_by_id", json!({"id": "1"}));
    assert!(!error, "{deleted}");
    assert_eq!(deleted["status"], 204);
    let (gone, _) = fixture.call("get_items_tasks_by_id", json!({"id": "1"}));
    assert_eq!(gone["status"], 403, "{gone}");
    assert_eq!(gone["state"]["view"], "missing", "{gone}");
    // A 403 of a path no delete removed shows nothing: the same capture without the delete's
    // read-back leaves the delete unobserved.
    let unobserved = derive(vec![
        get(
            0,
            "/items/tasks",
            200,
            json!({"data": [{"id": 1, "title": "a"}]}),
        ),
        get(1, "/items/tasks/1", 200, task(1, "a")),
        record(2, "DELETE", "/items/tasks/1", None, 204, Value::Null),
        get(3, "/items/tasks/3", 403, forbidden),
    ]);
    let delete = unobserved.plan("delete_items_tasks_by_id");
    assert_eq!(delete.reason.as_deref(), Some("no-observation"));
}

/// A list created, then a create of the list refused with `failure` for sending `sent`.
fn refused_create(sent: Value, status: u16, failure: Value) -> Fixture {
    let list = |id: u64, name: &str| json!({"id": id, "name": name});
    derive(vec![
        get(0, "/lists", 200, json!([list(1, "alpha")])),
        get(1, "/lists/1", 200, list(1, "alpha")),
        record(
            2,
            "POST",
            "/lists",
            Some(json!({"name": "beta"})),
            201,
            list(2, "beta"),
        ),
        get(3, "/lists/2", 200, list(2, "beta")),
        record(4, "POST", "/lists", Some(sent), status, failure),
    ])
}

#[test]
fn a_create_refused_for_a_taken_name_answers_that_refusal_for_a_held_name() {
    // The build created a list, then sent the same name again and was refused with a 409 naming
    // it: a served create sending a name the collection holds answers that 409 (renamed to the
    // sent name), changing nothing; a free name creates.
    let fixture = refused_create(
        json!({"name": "beta"}),
        409,
        json!({"message": "list with name 'beta' already exists"}),
    );
    let create = fixture.plan("post_lists");
    assert!(create.served, "{:?}", create.reason);
    assert_eq!(create.conflicts.len(), 1, "{:?}", create.conflicts);
    assert_eq!(create.conflicts[0].member, "name");
    let (refused, error) = fixture.call("post_lists", json!({"body": {"name": "alpha"}}));
    assert!(!error, "{refused}");
    assert_eq!(refused["status"], 409, "{refused}");
    assert_eq!(
        refused["body"],
        json!({"message": "list with name 'alpha' already exists"})
    );
    let (listed, _) = fixture.call("get_lists", json!({}));
    assert_eq!(
        listed["body"],
        json!([{"id": 1, "name": "alpha"}]),
        "{listed}"
    );
    let (created, error) = fixture.call("post_lists", json!({"body": {"name": "gamma"}}));
    assert!(!error, "{created}");
    assert_eq!(created["status"], 201, "{created}");
    // A failure whose body repeats no held value teaches no conflict.
    let unrelated = refused_create(
        json!({"name": ""}),
        422,
        json!({"message": "name is required"}),
    );
    assert!(unrelated.plan("post_lists").conflicts.is_empty());
}

#[test]
fn an_update_to_a_value_another_entity_holds_answers_the_create_s_refusal() {
    // The build's create of a taken name was refused (409); a PATCH of a list (confirmed by its
    // read) setting another list's name answers that refusal, its own name or a free one writes.
    let list = |id: u64, name: &str| json!({"id": id, "name": name});
    let fixture = derive(vec![
        get(
            0,
            "/lists",
            200,
            json!([list(1, "alpha"), list(3, "omega")]),
        ),
        get(1, "/lists/1", 200, list(1, "alpha")),
        record(
            2,
            "POST",
            "/lists",
            Some(json!({"name": "beta"})),
            201,
            list(2, "beta"),
        ),
        get(3, "/lists/2", 200, list(2, "beta")),
        record(
            4,
            "POST",
            "/lists",
            Some(json!({"name": "beta"})),
            409,
            json!({"message": "list with name 'beta' already exists"}),
        ),
        record(
            5,
            "PATCH",
            "/lists/2",
            Some(json!({"name": "gamma"})),
            200,
            list(2, "gamma"),
        ),
        get(6, "/lists/2", 200, list(2, "gamma")),
    ]);
    let update = fixture.plan("patch_lists_by_id");
    assert!(update.served, "{:?}", update.reason);
    assert_eq!(update.conflicts.len(), 1, "{:?}", update.conflicts);
    let patch = |id: &str, name: &str| {
        fixture.call(
            "patch_lists_by_id",
            json!({"id": id, "body": {"name": name}}),
        )
    };
    // Served from the state before the build's writes: list 3 holds "omega".
    let (refused, _) = patch("1", "omega");
    assert_eq!(refused["status"], 409, "{refused}");
    assert_eq!(
        refused["body"],
        json!({"message": "list with name 'omega' already exists"})
    );
    let (own, error) = patch("1", "alpha");
    assert!(!error && own["status"] == 200, "{own}");
    let (free, error) = patch("1", "delta");
    assert!(!error && free["body"] == list(1, "delta"), "{free}");
}

/// A create refused with `failure` for sending `sent`, before the first create that worked.
fn refused_first_create(sent: Value, failure: Value) -> Fixture {
    let list = |id: u64, name: &str| json!({"id": id, "name": name, "color": "red"});
    derive(vec![
        get(0, "/lists", 200, json!([list(1, "alpha")])),
        get(1, "/lists/1", 200, list(1, "alpha")),
        record(2, "POST", "/lists", Some(sent), 400, failure),
        record(
            3,
            "POST",
            "/lists",
            Some(json!({"name": "beta", "color": "red"})),
            201,
            list(2, "beta"),
        ),
        get(4, "/lists/2", 200, list(2, "beta")),
    ])
}

#[test]
fn a_create_refused_for_a_left_out_member_answers_that_refusal_when_it_is_left_out() {
    // The build's first create left out `name` (sending a color the held list has) and was
    // refused naming it; the next create sent every member. A served create without `name`
    // answers that 400, changing nothing; the failure is no conflict over the color.
    let fixture = refused_first_create(
        json!({"color": "red"}),
        json!({"error": "NOT NULL constraint failed: lists.name"}),
    );
    let create = fixture.plan("post_lists");
    assert!(create.served, "{:?}", create.reason);
    assert_eq!(create.omitted.len(), 1, "{:?}", create.omitted);
    assert_eq!(create.omitted[0].member, "name");
    assert_eq!(create.omitted[0].ordinal, 2);
    assert!(create.conflicts.is_empty(), "{:?}", create.conflicts);
    let (refused, error) = fixture.call("post_lists", json!({"body": {"color": "blue"}}));
    assert!(!error, "{refused}");
    assert_eq!(refused["status"], 400, "{refused}");
    assert_eq!(refused["state"]["view"], "omitted", "{refused}");
    let (listed, _) = fixture.call("get_lists", json!({}));
    assert_eq!(listed["body"].as_array().map(Vec::len), Some(1), "{listed}");
    // A member the create never stored is refused as before.
    let (unknown, error) = fixture.call("post_lists", json!({"body": {"size": 3}}));
    assert!(error, "{unknown}");
    let (created, error) = fixture.call(
        "post_lists",
        json!({"body": {"name": "gamma", "color": "blue"}}),
    );
    assert!(!error, "{created}");
    assert_eq!(created["status"], 201, "{created}");
    // A failure naming no member it left out (only a key, or a part of a word) teaches nothing.
    for failure in [
        json!({"name": "invalid", "status": 400}),
        json!({"error": "bad lists.names"}),
    ] {
        let unnamed = refused_first_create(json!({"color": "green"}), failure);
        assert!(unnamed.plan("post_lists").omitted.is_empty());
    }
}

#[test]
fn a_create_refused_for_members_left_out_together_answers_when_all_are_left_out() {
    // The build's first create sent nothing and was refused naming both members it left out
    // (so no one member is the omitted refusal's). A served create leaving out both answers
    // that 400, changing nothing; one leaving out only one of them is refused by the state.
    let fixture = refused_first_create(
        json!({}),
        json!({"detail": "name: field required; color: field required"}),
    );
    let create = fixture.plan("post_lists");
    assert!(create.served, "{:?}", create.reason);
    assert!(create.omitted.is_empty(), "{:?}", create.omitted);
    assert_eq!(create.omitted_sets.len(), 1, "{:?}", create.omitted_sets);
    assert_eq!(create.omitted_sets[0].members, ["color", "name"]);
    assert_eq!(create.omitted_sets[0].ordinal, 2);
    assert_eq!(create.omitted_sets[0].spelling, None);
    let (refused, error) = fixture.call("post_lists", json!({"body": {}}));
    assert!(!error, "{refused}");
    assert_eq!(refused["status"], 400, "{refused}");
    assert_eq!(refused["state"]["view"], "omitted-set", "{refused}");
    let (one, error) = fixture.call("post_lists", json!({"body": {"name": "gamma"}}));
    assert!(error, "{one}");
    let (listed, _) = fixture.call("get_lists", json!({}));
    assert_eq!(listed["body"].as_array().map(Vec::len), Some(1), "{listed}");
    // A failure naming neither member teaches nothing.
    let unnamed = refused_first_create(json!({}), json!({"detail": "invalid"}));
    assert!(unnamed.plan("post_lists").omitted_sets.is_empty());
}

#[test]
fn a_disagreement_after_an_untargeted_write_is_charged_to_no_earlier_write() {
    // `DELETE /notes/beta` is confirmed by the 404 after it; `POST /admin/reindex` names no
    // entity the state holds, and the document read after it (`/stats`) disagrees: that is the
    // untargeted write's doing, not a side effect of the delete before it.
    let fixture = derive(vec![
        get(0, "/stats", 200, json!({"count": 2})),
        get(
            1,
            "/notes",
            200,
            json!([note_of("alpha", "a"), note_of("beta", "b")]),
        ),
        get(2, "/notes/alpha", 200, note_of("alpha", "a")),
        get(3, "/notes/beta", 200, note_of("beta", "b")),
        record(4, "DELETE", "/notes/beta", None, 204, Value::Null),
        get(5, "/notes/beta", 404, json!({"error": "not found"})),
        get(6, "/notes", 200, json!([note_of("alpha", "a")])),
        record(
            7,
            "POST",
            "/admin/reindex",
            Some(json!({"full": true})),
            200,
            json!({"ok": true}),
        ),
        get(8, "/stats", 200, json!({"count": 9})),
    ]);
    let delete = fixture.plan("delete_notes_by_id");
    assert!(
        delete.served,
        "{:?} {:?}",
        delete.reason, fixture.state.write_plans
    );
    assert_eq!(delete.confirmed_by, vec![5, 6]);
    let reindex = fixture.plan("post_admin_reindex");
    assert!(!reindex.served, "{reindex:?}");
}

/// Notes 1 and 2 listed and read by id.
fn two_notes_read() -> Vec<CaptureRecord> {
    vec![
        get(
            0,
            "/notes",
            200,
            json!([note_of("1", "a"), note_of("2", "b")]),
        ),
        get(1, "/notes/1", 200, note_of("1", "a")),
        get(2, "/notes/2", 200, note_of("2", "b")),
    ]
}

/// Two notes read, note 2 deleted and shown gone; then, when `blind` is set, a write the state
/// has no target for (`POST /jobs/run`); then a read showing note 1 changed, which no write the
/// state models did.
fn delete_then_unfollowed_change(blind: bool) -> Fixture {
    let mut records = two_notes_read();
    records.extend([
        record(3, "DELETE", "/notes/2", None, 204, Value::Null),
        get(4, "/notes/2", 404, json!({"error": "not found"})),
        get(5, "/notes", 200, json!([note_of("1", "a")])),
    ]);
    if blind {
        records.push(record(
            6,
            "POST",
            "/jobs/run",
            Some(json!({"job": "tidy"})),
            200,
            json!({"started": true}),
        ));
    }
    records.push(get(7, "/notes/1", 200, note_of("1", "tidied")));
    derive(records)
}

#[test]
fn a_change_shown_after_a_write_the_replay_cannot_follow_is_charged_to_no_plan() {
    // Without a write between, the change of note 1 is charged to the latest write, the delete.
    let fixture = delete_then_unfollowed_change(false);
    let delete = fixture.plan("delete_notes_by_id");
    assert_eq!(delete.reason.as_deref(), Some("side-effect"));
    // After a write the state has no target for, the change may be that write's: the delete,
    // confirmed by its reads, is served; the job write stays withheld.
    let fixture = delete_then_unfollowed_change(true);
    let delete = fixture.plan("delete_notes_by_id");
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(delete.confirmed_by, vec![4, 5]);
    let job = fixture.plan("post_jobs_run");
    assert!(!job.served);
    assert_eq!(job.reason.as_deref(), Some("no-state-target"));
    let (deleted, error) = fixture.call("delete_notes_by_id", json!({"id": "1"}));
    assert!(!error, "{deleted}");
    let (gone, _) = fixture.call("get_notes_by_id", json!({"id": "1"}));
    assert_eq!(gone["status"], 404);
}

fn task(id: u64, title: &str, state: &str, owner: Value) -> Value {
    json!({"id": id, "title": title, "state": state, "owner": owner})
}

#[test]
fn a_create_sent_one_object_or_a_batch_learns_from_the_objects_and_adopts_the_batch() {
    // `POST /tasks` sends one object twice (the second leaves `state` and `owner` to their
    // defaults) and an array once (a batch); a read lists the batch's tasks after it.
    let fixture = derive(vec![
        get(
            0,
            "/tasks",
            200,
            json!({"data": [task(1, "a", "todo", json!("ana"))]}),
        ),
        get(
            1,
            "/tasks/1",
            200,
            json!({"data": task(1, "a", "todo", json!("ana"))}),
        ),
        record(
            2,
            "POST",
            "/tasks",
            Some(json!({"title": "b", "state": "doing", "owner": "bo"})),
            200,
            json!({"data": task(2, "b", "doing", json!("bo"))}),
        ),
        get(
            3,
            "/tasks/2",
            200,
            json!({"data": task(2, "b", "doing", json!("bo"))}),
        ),
        record(
            4,
            "POST",
            "/tasks",
            Some(json!({"title": "c"})),
            200,
            json!({"data": task(3, "c", "todo", Value::Null)}),
        ),
        get(
            5,
            "/tasks/3",
            200,
            json!({"data": task(3, "c", "todo", Value::Null)}),
        ),
        record(
            6,
            "POST",
            "/tasks",
            Some(json!([{"title": "d"}, {"title": "e", "owner": "eve"}])),
            200,
            json!({"data": [task(4, "d", "todo", Value::Null), task(5, "e", "todo", json!("eve"))]}),
        ),
        get(
            7,
            "/tasks",
            200,
            json!({"data": [
                task(1, "a", "todo", json!("ana")),
                task(2, "b", "doing", json!("bo")),
                task(3, "c", "todo", Value::Null),
                task(4, "d", "todo", Value::Null),
                task(5, "e", "todo", json!("eve")),
            ]}),
        ),
    ]);
    let create = fixture.plan("post_tasks");
    assert!(create.served, "{:?}", create.reason);
    // The plan models the one-object calls; the defaults are what the call omitting them stored.
    assert_eq!(create.record_ordinals, vec![2, 4]);
    let fields = create.fields.as_ref().expect("fields");
    assert_eq!(
        fields.constants.get("state"),
        Some(&rea_plugin_api::json::Json::String("todo".into()))
    );
    assert_eq!(
        fields.constants.get("owner"),
        Some(&rea_plugin_api::json::Json::Null)
    );
    // Served (from the state before the build's writes): one object, its omitted members
    // defaulted; an array is refused, changing nothing.
    let (created, error) = fixture.call("post_tasks", json!({"body": {"title": "f"}}));
    assert!(!error, "{created}");
    assert_eq!(created["body"]["data"], task(2, "f", "todo", Value::Null));
    let (refused, error) = fixture.call("post_tasks", json!({"body": [{"title": "g"}]}));
    assert!(error, "{refused}");
    let (listed, _) = fixture.call("get_tasks", json!({}));
    assert_eq!(listed["body"]["data"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_delete_of_a_missing_entity_answers_missing_whatever_query_it_sends() {
    // `DELETE /notes/{id}?cascade=comments` recorded once; the build's read after it answers the
    // missing note's 404.
    let mut records = two_notes_read();
    records.extend([
        record(
            3,
            "DELETE",
            "/notes/2?cascade=comments",
            None,
            200,
            json!({}),
        ),
        get(4, "/notes/2", 404, json!({"error": "not found"})),
        get(5, "/notes", 200, json!([note_of("1", "a")])),
    ]);
    let fixture = derive(records);
    let delete = fixture.plan("delete_notes_by_id");
    assert!(delete.served, "{:?}", delete.reason);
    // A held note deleted without the recorded query is refused: what the query changes is
    // not modelled.
    let (refused, error) = fixture.call("delete_notes_by_id", json!({"id": "1"}));
    assert!(error, "{refused}");
    let (held, _) = fixture.call("get_notes_by_id", json!({"id": "1"}));
    assert_eq!(held["status"], 200);
    // A note the state does not hold answers the missing note's recorded 404 either way.
    let (missing, error) = fixture.call("delete_notes_by_id", json!({"id": "9"}));
    assert!(!error, "{missing}");
    assert_eq!(missing["status"], 404);
    assert_eq!(missing["state"]["view"], "missing");
}

fn thing(id: &str, name: &str) -> Value {
    json!({"thing": {"id": id, "name": name}})
}

#[test]
fn an_rpc_verb_whose_calls_leave_the_named_entity_gone_is_a_delete() {
    // `POST /api/things/purge {"id": …}`: no verb the host knows, but the read after each call
    // answers the missing entity, so the verb deletes what its body names; `POST
    // /api/things/polish {"id": …}` leaves its entity present and stays an action update.
    let fixture = derive(vec![
        get(0, "/api/things/get?id=1", 200, thing("1", "a")),
        get(1, "/api/things/get?id=2", 200, thing("2", "b")),
        get(2, "/api/things/get?id=3", 200, thing("3", "c")),
        get(
            3,
            "/api/things/get?id=9",
            404,
            json!({"error": "no such thing"}),
        ),
        record(
            4,
            "POST",
            "/api/things/purge",
            Some(json!({"id": "1"})),
            200,
            json!({}),
        ),
        get(
            5,
            "/api/things/get?id=1",
            404,
            json!({"error": "no such thing"}),
        ),
        record(
            6,
            "POST",
            "/api/things/purge",
            Some(json!({"id": "2"})),
            200,
            json!({}),
        ),
        get(
            7,
            "/api/things/get?id=2",
            404,
            json!({"error": "no such thing"}),
        ),
        record(
            8,
            "POST",
            "/api/things/polish",
            Some(json!({"id": "3"})),
            200,
            json!({}),
        ),
        get(9, "/api/things/get?id=3", 200, thing("3", "c")),
    ]);
    let plan = |template: &str| {
        fixture
            .state
            .write_plans
            .iter()
            .find(|plan| plan.path_template == template)
            .unwrap_or_else(|| panic!("a plan for {template}"))
    };
    let purge = plan("/api/things/purge");
    assert_eq!(
        purge.effect,
        crate::writes::model::Effect::Delete,
        "{purge:?}"
    );
    assert_eq!(purge.action, None, "{purge:?}");
    assert_eq!(
        purge
            .target
            .as_ref()
            .and_then(|target| target.key_member.as_deref()),
        Some("id")
    );
    let polish = plan("/api/things/polish");
    assert_eq!(
        polish.effect,
        crate::writes::model::Effect::Update,
        "{polish:?}"
    );
    assert_eq!(polish.action.as_deref(), Some("polish"), "{polish:?}");
}

/// A type no item view reads (its detail names it by path only), a rename copying entity 1
/// under the new id 3 (its answer shows the copy), then a delete of the copy read back by the
/// list; `listed_after_rename` gives the list read that shows the original gone.
fn renamed_then_deleted(listed_after_rename: bool) -> Fixture {
    let thing = |id: u64, name: &str| json!({"thing_id": id, "thing_name": name});
    let detail = |name: &str| json!({"name": name, "parts": []});
    let mut records = vec![
        get(
            0,
            "/things",
            200,
            json!({"things": [thing(1, "a"), thing(2, "b")]}),
        ),
        get(1, "/things/1", 200, detail("a")),
        get(2, "/things/2", 200, detail("b")),
        record(
            3,
            "POST",
            "/things/1/rename",
            Some(json!({"thing_name": "c"})),
            201,
            thing(3, "c"),
        ),
        get(4, "/things/3", 200, detail("c")),
    ];
    if listed_after_rename {
        records.push(get(
            5,
            "/things",
            200,
            json!({"things": [thing(2, "b"), thing(3, "c")]}),
        ));
    }
    let next = records.len() as u64;
    records.push(record(next, "DELETE", "/things/3", None, 204, Value::Null));
    records.push(get(
        next + 1,
        "/things",
        200,
        json!({"things": [thing(2, "b")]}),
    ));
    derive(records)
}

/// The plan of the tool recorded with `method`, served.
fn served_plan<'a>(fixture: &'a Fixture, method: &str) -> &'a crate::writes::model::WritePlan {
    let plan = fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.method == method)
        .unwrap_or_else(|| panic!("a {method} plan"));
    assert!(plan.served, "{}: {:?}", plan.tool, plan.reason);
    plan
}

/// A call of `tool` naming `id` in its one path parameter, sending `body`.
fn call_on(fixture: &Fixture, tool: &str, id: &str, body: Option<Value>) -> (Value, bool) {
    let mut arguments = serde_json::Map::new();
    arguments.insert(delete_parameter(fixture, tool), json!(id));
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    fixture.call(tool, Value::Object(arguments))
}

#[test]
fn an_update_answering_a_new_entity_and_removing_its_own_is_a_copy() {
    // The rename's answer shows entity 3 (one past the largest held) while the list after it no
    // longer lists entity 1: a copy under a generated identity, the original removed.
    let fixture = renamed_then_deleted(true);
    let rename = served_plan(&fixture, "POST");
    assert!(rename.copies, "{rename:?}");
    assert_eq!(rename.confirmed_by, vec![5], "{rename:?}");
    let explained: Vec<(&str, &[String])> = rename
        .rules
        .iter()
        .map(|rule| (rule.stage.as_str(), rule.explains.as_slice()))
        .collect();
    assert_eq!(explained, vec![("sequence", &["/thing_id".to_owned()][..])]);
    let (copied, error) = call_on(
        &fixture,
        &rename.tool,
        "2",
        Some(json!({"thing_name": "z"})),
    );
    assert!(!error, "{copied}");
    assert_eq!(copied["status"], 201, "{copied}");
    assert_eq!(copied["body"], json!({"thing_id": 3, "thing_name": "z"}));
    let (list, _) = fixture.call("get_things", json!({}));
    assert_eq!(
        list["body"],
        json!({"things": [{"thing_id": 1, "thing_name": "a"}, {"thing_id": 3, "thing_name": "z"}]})
    );
    // A copy of an entity the state lacks changes nothing.
    let (missing, _) = call_on(
        &fixture,
        &rename.tool,
        "2",
        Some(json!({"thing_name": "y"})),
    );
    assert_ne!(missing["status"], 201, "{missing}");
    let (unchanged, _) = fixture.call("get_things", json!({}));
    assert_eq!(unchanged["body"], list["body"]);
    // The delete of the copy was observed against it: served.
    let delete = served_plan(&fixture, "DELETE");
    let (deleted, error) = call_on(&fixture, &delete.tool, "3", None);
    assert!(!error, "{deleted}");
    assert_eq!(deleted["status"], 204, "{deleted}");
    let (list, _) = fixture.call("get_things", json!({}));
    assert_eq!(
        list["body"],
        json!({"things": [{"thing_id": 1, "thing_name": "a"}]})
    );
    // Without a read showing the original gone, the answer's entity is no copy: withheld, and
    // the delete of an entity the state never held with it.
    let unshown = renamed_then_deleted(false);
    let rename = unshown.plan(&rename.tool);
    assert!(!rename.served && !rename.copies, "{rename:?}");
    assert_eq!(
        unshown.plan(&delete.tool).reason.as_deref(),
        Some("no-observation")
    );
}

/// The one path parameter of a tool.
fn delete_parameter(fixture: &Fixture, tool: &str) -> String {
    let definition = fixture
        .manifest
        .tools
        .iter()
        .find(|definition| definition.name == tool)
        .expect("the tool");
    definition.path_parameters[0].name.clone()
}

/// A list create nesting two new items, the answer showing them back as `shown` (the ids the
/// items type generated, each naming the new list), read back after.
fn nested_items_create(shown: Value) -> Fixture {
    let list = |id: u64, name: &str, items: Value| json!({"id": id, "name": name, "items": items});
    let item = |id: u64, text: &str, list: u64| json!({"id": id, "text": text, "done": false, "list": list});
    derive(vec![
        get(0, "/lists", 200, json!([list(1, "alpha", json!([1]))])),
        get(1, "/lists/1", 200, list(1, "alpha", json!([1]))),
        get(2, "/items", 200, json!([item(1, "milk", 1)])),
        get(3, "/items/1", 200, item(1, "milk", 1)),
        record(
            4,
            "POST",
            "/lists",
            Some(json!({"name": "beta", "items": [{"text": "eggs"}, {"text": "tea"}]})),
            201,
            list(2, "beta", shown),
        ),
        get(5, "/lists/2", 200, list(2, "beta", json!([2, 3]))),
        get(
            6,
            "/items",
            200,
            json!([item(1, "milk", 1), item(2, "eggs", 2), item(3, "tea", 2)]),
        ),
    ])
}

#[test]
fn a_create_nesting_new_entities_of_another_type_names_them_as_children() {
    let item = |id: u64, text: &str, list: u64| json!({"id": id, "text": text, "done": false, "list": list});
    let fixture = nested_items_create(json!([item(2, "eggs", 2), item(3, "tea", 2)]));
    let create = fixture.plan("post_lists");
    let lists_type = create
        .target
        .as_ref()
        .and_then(|target| target.entity_type.clone())
        .expect("the list type");
    let [child] = create.children.as_slice() else {
        panic!("one nested member: {create:?}")
    };
    assert_eq!(
        (child.member.as_str(), child.reference.as_str()),
        ("items", "list")
    );
    assert_ne!(
        child.entity_type, lists_type,
        "the child type is not the list type"
    );
    assert!(child.entity_type.contains("items"), "{child:?}");
    // Answered items that change what was sent, or that name no new list, are no children.
    for shown in [
        json!([item(2, "EGGS", 2), item(3, "tea", 2)]),
        json!([item(2, "eggs", 1), item(3, "tea", 1)]),
        json!([item(2, "eggs", 2)]),
        json!([2, 3]),
    ] {
        let fixture = nested_items_create(shown.clone());
        assert!(fixture.plan("post_lists").children.is_empty(), "{shown}");
    }
}

#[test]
fn a_nested_create_is_served_making_its_children_with_the_next_child_ids() {
    let fixture = nested_items_create(json!([
        {"id": 2, "text": "eggs", "done": false, "list": 2},
        {"id": 3, "text": "tea", "done": false, "list": 2}
    ]));
    let create = fixture.plan("post_lists");
    assert!(create.served, "{create:?}");
    let [child] = create.children.as_slice() else {
        panic!("one nested member: {create:?}")
    };
    // `done` was shown false for every child that did not send it.
    assert_eq!(
        child.defaults.get("done"),
        Some(&rea_plugin_api::json::Json::Bool(false)),
        "{child:?}"
    );
    let (answer, is_error) = fixture.call(
        "post_lists",
        json!({"body": {"name": "gamma", "items": [{"text": "rice"}, {"text": "oil", "done": true}]}}),
    );
    assert!(!is_error, "{answer}");
    // The answer shows the children as objects, as the recorded one did; their ids follow the
    // largest the items hold (3: the items the read after the recorded create showed are held).
    assert_eq!(
        answer["body"],
        json!({"id": 2, "name": "gamma", "items": [
            {"id": 4, "text": "rice", "done": false, "list": 2},
            {"id": 5, "text": "oil", "done": true, "list": 2}
        ]}),
        "{answer}"
    );
    // A child missing the member every recorded child sent is refused.
    let (answer, is_error) = fixture.call(
        "post_lists",
        json!({"body": {"name": "delta", "items": [{"done": true}]}}),
    );
    assert!(is_error, "{answer}");
    assert!(answer.to_string().contains("text"), "{answer}");
}

/// Posts replaced by `PUT` (read back without the member not sent) and a profile document merged
/// by `PATCH`, read back when `confirmed`, with sibling transfer on.
fn replaced_posts_merged_profile(confirmed: bool) -> Fixture {
    let profile = |theme: &str| json!({"name": "n", "theme": theme, "size": 10});
    let mut records = vec![
        get(
            0,
            "/posts",
            200,
            json!([{"id": 1, "title": "a", "body": "b"}]),
        ),
        get(
            1,
            "/posts/1",
            200,
            json!({"id": 1, "title": "a", "body": "b"}),
        ),
        get(2, "/profile", 200, profile("light")),
        record(
            3,
            "PUT",
            "/posts/1",
            Some(json!({"title": "c"})),
            200,
            json!({"id": 1, "title": "c"}),
        ),
        get(4, "/posts/1", 200, json!({"id": 1, "title": "c"})),
        get(5, "/posts", 200, json!([{"id": 1, "title": "c"}])),
        record(
            6,
            "PATCH",
            "/profile",
            Some(json!({"theme": "dark"})),
            200,
            profile("dark"),
        ),
    ];
    if confirmed {
        records.push(get(7, "/profile", 200, profile("dark")));
    }
    derive_with(records, rules().with_sibling_transfer(true))
}

#[test]
fn a_confirmed_replace_is_offered_on_a_document_whose_merge_was_confirmed() {
    let fixture = replaced_posts_merged_profile(true);
    let plan = fixture.plan("put_profile");
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.inferred_from.as_deref(), Some("put_posts_by_id"));
    assert_eq!(plan.effect, crate::writes::model::Effect::Document);
    assert!(plan.record_ordinals.is_empty() && plan.confirmed_by.is_empty());
    // The sent object becomes the document: the members not sent are gone.
    let (answer, error) = fixture.call("put_profile", json!({"body": {"theme": "solar"}}));
    assert!(!error, "{answer}");
    assert_eq!(answer["body"], json!({"theme": "solar"}), "{answer}");
    let (read, _) = fixture.call("get_profile", json!({}));
    assert_eq!(read["body"], json!({"theme": "solar"}), "{read}");
    // A member the document does not hold is refused, as the body model is the document's.
    let (refused, error) = fixture.call("put_profile", json!({"body": {"colour": "red"}}));
    assert!(error, "{refused}");
    // The document's own merge keeps its members.
    let (merged, error) = fixture.call("patch_profile", json!({"body": {"size": 5}}));
    assert!(!error, "{merged}");
    assert_eq!(
        merged["body"],
        json!({"theme": "solar", "size": 5}),
        "{merged}"
    );
}

#[test]
fn no_replace_is_served_on_a_document_whose_own_write_no_read_confirmed() {
    let fixture = replaced_posts_merged_profile(false);
    assert!(
        fixture.plan("put_posts_by_id").served,
        "the source is served"
    );
    assert!(
        fixture
            .state
            .write_plans
            .iter()
            .all(|plan| plan.tool != "put_profile" || !plan.served),
        "{:?}",
        fixture.state.write_plans
    );
}

/// Tasks whose missing item answered `missing`, and projects whose item tool recorded none.
fn missing_from_one_sibling(missing: Value) -> Fixture {
    let task = |id: u64| json!({"id": id, "title": "t"});
    let project = |id: u64| json!({"id": id, "name": "p"});
    derive_with(
        vec![
            get(0, "/tasks", 200, json!([task(1)])),
            get(1, "/tasks/1", 200, task(1)),
            get(2, "/tasks/9", 404, missing),
            get(3, "/projects", 200, json!([project(1), project(2)])),
            get(4, "/projects/1", 200, project(1)),
            get(5, "/projects/2", 200, project(2)),
        ],
        rules().with_sibling_transfer(true),
    )
}

#[test]
fn one_sibling_missing_answer_naming_nothing_of_its_path_is_borrowed() {
    let project_missing = |fixture: &Fixture| {
        let parameter = delete_parameter(fixture, "get_projects_by_id");
        fixture.call("get_projects_by_id", json!({ parameter: "7" }))
    };
    let fixture = missing_from_one_sibling(json!({"error": "forbidden"}));
    let (answer, _) = project_missing(&fixture);
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["body"], json!({"error": "forbidden"}), "{answer}");
    // An answer naming its collection in a form no renaming reaches is the tasks' own: not
    // borrowed from one.
    for named in [
        json!({"error": "no task 9"}),
        json!({"error": "tasksets: none"}),
    ] {
        let fixture = missing_from_one_sibling(named.clone());
        let (answer, _) = project_missing(&fixture);
        assert_ne!(answer["status"], 404, "{named}: {answer}");
    }
}

#[test]
fn one_sibling_missing_answer_naming_its_path_segments_is_borrowed_renamed() {
    // Roundup's "no such issue 99" is a sentence over its path: the collection and the id, each a
    // whole word, renamed to the call's for a sibling collection.
    let fixture = missing_from_one_sibling(json!({"error": "no such tasks 9", "at": "/tasks/9"}));
    let parameter = delete_parameter(&fixture, "get_projects_by_id");
    let (answer, _) = fixture.call("get_projects_by_id", json!({ parameter: "7" }));
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(
        answer["body"],
        json!({"error": "no such projects 7", "at": "/projects/7"}),
        "{answer}"
    );
}

#[test]
fn a_stale_update_answering_one_member_of_its_entity_is_learned_in_that_member() {
    // MLflow's runs/update follows an unobserved log-batch of the same run, but its own answer
    // shows the run's `info` (`{"run_info": …}`) as the read after it does: the update is
    // learned in that member (status set at /info/status), the rest of the change is the
    // earlier write's. A member only an unobserved call sent (`title`, its answer followed by
    // another unobserved write) is not accepted.
    let note = |state: &str, title: &str, pinned: bool| json!({"id": 1, "info": {"state": state, "title": title}, "pinned": pinned});
    let fixture = derive(vec![
        get(0, "/notes", 200, json!([note("open", "a", false)])),
        get(1, "/notes/1", 200, note("open", "a", false)),
        record(2, "PUT", "/notes/1/pin", None, 204, Value::Null),
        record(
            3,
            "POST",
            "/notes/1",
            Some(json!({"state": "done"})),
            200,
            json!({"note_info": {"state": "done", "title": "a"}}),
        ),
        get(4, "/notes/1", 200, note("done", "a", true)),
        record(
            5,
            "POST",
            "/notes/1",
            Some(json!({"title": "b"})),
            200,
            json!({"note_info": {"state": "done", "title": "b"}}),
        ),
        record(6, "PUT", "/notes/1/pin", None, 204, Value::Null),
        get(7, "/notes/1", 200, note("done", "b", true)),
    ]);
    let update = fixture.plan("post_notes_by_id");
    assert!(update.served, "{update:?}");
    let fields = update.fields.as_ref().expect("fields");
    assert_eq!(
        fields.sent_as.get("state").map(String::as_str),
        Some("/info/state")
    );
    let response = update.response.as_ref().expect("response");
    assert_eq!(response.member.as_deref(), Some("info"));
    assert_eq!(response.pointer.as_deref(), Some("/note_info"));
    let body = update.body.as_ref().expect("body");
    assert!(!body.members.contains_key("title"), "{body:?}");
    // The pin stays withheld: its first call is observed together with the update (see
    // `writes::together`), but one flip of a flag sent nothing that explains it.
    assert!(!fixture.plan("put_notes_pin_by_note_id").served);
    // Served: the state set in the member, the answer that member, the rest kept.
    let (before, _) = fixture.call("get_notes_by_id", json!({"id": "1"}));
    let (written, error) = fixture.call(
        "post_notes_by_id",
        json!({"id": "1", "body": {"state": "held"}}),
    );
    assert!(!error, "{written}");
    let (read, _) = fixture.call("get_notes_by_id", json!({"id": "1"}));
    let mut expected = before["body"].clone();
    expected["info"]["state"] = json!("held");
    assert_eq!(read["body"], expected);
    assert_eq!(written["body"], json!({"note_info": expected["info"]}));
    // A member whose effect no observed call showed is refused, and changes nothing.
    let (refused, error) = fixture.call(
        "post_notes_by_id",
        json!({"id": "1", "body": {"title": "c"}}),
    );
    assert!(error, "{refused}");
    let (read, _) = fixture.call("get_notes_by_id", json!({"id": "1"}));
    assert_eq!(read["body"], expected);
}

/// A note with its `info` member (state, title) and a `pinned` flag.
fn pinned_note(state: &str, title: &str, pinned: bool) -> Value {
    json!({"id": 1, "info": {"state": state, "title": title}, "pinned": pinned})
}

/// A capture writing note 1 twice with no read between: an update of `pinned` (answering
/// nothing), then an update of its state whose answer is `later_answer`; the read after both.
fn two_writes_one_read(later_answer: Value) -> Fixture {
    derive(vec![
        get(0, "/notes", 200, json!([pinned_note("open", "a", false)])),
        get(1, "/notes/1", 200, pinned_note("open", "a", false)),
        record(
            2,
            "PATCH",
            "/notes/1",
            Some(json!({"pinned": true})),
            204,
            Value::Null,
        ),
        record(
            3,
            "POST",
            "/notes/1",
            Some(json!({"state": "done"})),
            200,
            later_answer,
        ),
        get(4, "/notes/1", 200, pinned_note("done", "a", true)),
    ])
}

#[test]
fn two_writes_one_read_are_confirmed_together_when_the_later_answer_shows_its_member() {
    // MLflow's unobserved runs/log-batch then runs/update answering `{"run_info": …}`: the
    // update is learned in the member its answer showed, and the rest of what the read after
    // both shows changed is the earlier write's, which that read confirms together with it.
    let fixture = two_writes_one_read(json!({"note_info": {"state": "done", "title": "a"}}));
    let pin = fixture.plan("patch_notes_by_id");
    assert!(pin.served, "{pin:?}");
    assert_eq!(pin.confirmed_by, vec![4], "{pin:?}");
    let update = fixture.plan("post_notes_by_id");
    assert!(update.served, "{update:?}");
    assert_eq!(update.confirmed_by, vec![4], "{update:?}");
    // Served from the seed: the pin sets what it sends, and nothing of `info`.
    let (written, error) = fixture.call(
        "patch_notes_by_id",
        json!({"id": "1", "body": {"pinned": true}}),
    );
    assert!(!error, "{written}");
    let (read, _) = fixture.call("get_notes_by_id", json!({"id": "1"}));
    assert_eq!(read["body"], pinned_note("open", "a", true));
}

#[test]
fn two_writes_one_read_teach_nothing_of_the_earlier_when_the_later_answer_shows_no_member() {
    // The later write answering `{}` may have changed anything: the read after both shows the
    // two effects together, and neither write is learned from it.
    let fixture = two_writes_one_read(json!({}));
    let pin = fixture.plan("patch_notes_by_id");
    assert!(!pin.served, "{pin:?}");
    assert_eq!(pin.reason.as_deref(), Some("no-observation"), "{pin:?}");
    assert!(pin.confirmed_by.is_empty(), "{pin:?}");
}

#[test]
fn a_create_leaves_out_what_a_batch_row_left_out_and_keeps_a_sent_identity() {
    // `POST /tasks` sends one object (every member) once; a batch leaves `state`, `owner` and
    // `prio` out of its rows (stored `todo`, `null` and, disagreeing, 1 and 2) and sends one
    // row's id, created under it (see `writes::defaults`).
    let fixture = derive(vec![
        get(
            0,
            "/tasks",
            200,
            json!([{"id": 1, "title": "a", "state": "doing", "owner": "ana", "prio": 3}]),
        ),
        record(
            1,
            "POST",
            "/tasks",
            Some(json!({"title": "b", "state": "doing", "owner": "bo", "prio": 2})),
            201,
            json!({"id": 2, "title": "b", "state": "doing", "owner": "bo", "prio": 2}),
        ),
        get(
            2,
            "/tasks/2",
            200,
            json!({"id": 2, "title": "b", "state": "doing", "owner": "bo", "prio": 2}),
        ),
        record(
            3,
            "POST",
            "/tasks",
            Some(json!([{"title": "c", "owner": "cy"}, {"id": 9, "title": "d", "state": "done"}])),
            201,
            json!([
                {"id": 3, "title": "c", "state": "todo", "owner": "cy", "prio": 1},
                {"id": 9, "title": "d", "state": "done", "owner": null, "prio": 2}
            ]),
        ),
        get(
            4,
            "/tasks",
            200,
            json!([
                {"id": 1, "title": "a", "state": "doing", "owner": "ana", "prio": 3},
                {"id": 2, "title": "b", "state": "doing", "owner": "bo", "prio": 2},
                {"id": 3, "title": "c", "state": "todo", "owner": "cy", "prio": 1},
                {"id": 9, "title": "d", "state": "done", "owner": null, "prio": 2}
            ]),
        ),
    ]);
    let create = fixture.plan("post_tasks");
    assert!(create.served, "{:?}", create.reason);
    let fields = create.fields.as_ref().expect("fields");
    let defaults: Vec<(&str, String)> = fields
        .defaults
        .iter()
        .map(|(name, value)| (name.as_str(), value.to_canonical_string()))
        .collect();
    // `prio` was stored 1 and 2 where left out: no default, still required.
    assert_eq!(
        defaults,
        [
            ("owner", "null".to_owned()),
            ("state", "\"todo\"".to_owned())
        ]
    );
    assert!(fields.identity_as_sent);
    let body = create.body.as_ref().expect("body");
    assert!(body.members["prio"].required);
    assert!(!body.members["id"].required);
    // Served from the state before the build's writes (task 1 held).
    let (created, error) = fixture.call("post_tasks", json!({"body": {"title": "e", "prio": 4}}));
    assert!(!error, "{created}");
    assert_eq!(
        created["body"],
        json!({"id": 2, "title": "e", "state": "todo", "owner": null, "prio": 4})
    );
    let (kept, error) = fixture.call(
        "post_tasks",
        json!({"body": {"id": 40, "title": "f", "prio": 1, "state": "done"}}),
    );
    assert!(!error, "{kept}");
    assert_eq!(kept["body"]["id"], 40, "{kept}");
    // Refused, changing nothing: a member without a default left out, and a held identity.
    let (before, _) = fixture.call("get_tasks", json!({}));
    let (refused, error) = fixture.call("post_tasks", json!({"body": {"title": "g"}}));
    assert!(error, "{refused}");
    assert!(refused.to_string().contains("prio"), "{refused}");
    let (taken, error) = fixture.call(
        "post_tasks",
        json!({"body": {"id": 1, "title": "h", "prio": 1}}),
    );
    assert!(error, "{taken}");
    let (after, _) = fixture.call("get_tasks", json!({}));
    assert_eq!(before, after, "the refusals changed nothing");
    assert_eq!(after["body"].as_array().map(Vec::len), Some(3));
}

#[test]
fn a_delete_naming_its_entity_s_revision_after_the_item_path_deletes_that_entity() {
    // contract: WRITE-025
    let doc = |id: &str, rev: &str| json!({"_id": id, "_rev": rev, "title": id.to_uppercase()});
    let missing = json!({"error": "no such document"});
    let (first, second) = ("1-30687552719df095", "3-b3efe0d46b2596fa");
    let removed = json!({"ok": "removed"});
    let records = vec![
        get(0, "/docs/a", 200, doc("a", first)),
        get(1, "/docs/b", 200, doc("b", second)),
        get(2, "/docs/c", 200, doc("c", "2-7550992019c2f234")),
        record(
            3,
            "DELETE",
            &format!("/docs/a/-rev/{first}"),
            None,
            200,
            removed.clone(),
        ),
        get(4, "/docs/a", 404, missing.clone()),
        record(
            5,
            "DELETE",
            &format!("/docs/b/-rev/{second}"),
            None,
            200,
            removed.clone(),
        ),
        get(6, "/docs/b", 404, missing.clone()),
    ];
    let templates = ["opaque-token", "sibling-variance", "prefix-variance"];
    let fixture = derive_templated(records, rules(), &templates);
    let tool = fixture
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == "DELETE")
        .expect("the delete tool");
    assert_eq!(tool.path_parameters.len(), 2, "{}", tool.path_template);
    let plan = fixture.plan(&tool.name);
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.effect, crate::writes::model::Effect::Delete);
    assert_eq!(plan.confirmed_by, vec![4, 6]);
    // Served: the entity the item segment names is deleted, whatever revision the call names
    // (the capture shows no stale one refused).
    let names: Vec<String> = tool
        .path_parameters
        .iter()
        .map(|parameter| parameter.name.clone())
        .collect();
    let (answer, error) = fixture.call(
        &tool.name,
        json!({names[0].clone(): "c", names[1].clone(): "9-0000000000000000"}),
    );
    assert!(!error, "{answer}");
    assert_eq!(answer["body"], json!({"ok": "removed"}), "{answer}");
    let read = fixture
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == "GET")
        .expect("the read tool");
    let argument = read.path_parameters[0].name.clone();
    let (answer, _) = fixture.call(&read.name, json!({argument: "c"}));
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["body"], missing, "{answer}");
}

#[test]
fn a_whole_list_disagreeing_about_another_entity_still_confirms_a_delete() {
    // The list after the delete shows note 2 otherwise than its update answered (blamed on that
    // update), and no longer lists note 3: the delete's effect shows all the same.
    let note = |id: u64, title: &str| json!({"id": id, "title": title});
    let fixture = derive(vec![
        get(
            0,
            "/notes",
            200,
            json!([note(1, "a"), note(2, "b"), note(3, "c")]),
        ),
        record(
            1,
            "PATCH",
            "/notes/2",
            Some(json!({"title": "b2"})),
            200,
            note(2, "b2"),
        ),
        record(2, "DELETE", "/notes/3", None, 200, json!({})),
        get(3, "/notes", 200, json!([note(1, "a"), note(2, "B2!")])),
    ]);
    let delete = fixture.plan("delete_notes_by_id");
    assert!(delete.served, "{:?}", delete.reason);
    assert_eq!(delete.confirmed_by, vec![3]);
    let update = fixture.plan("patch_notes_by_id");
    assert!(!update.served, "{update:?}");
    assert_eq!(update.contradicted_by, Some(3));
}

/// A note as its list and item show it: its `url` ends in its id.
fn linked_note(id: u64, text: &str) -> Value {
    json!({"id": id, "url": format!("{ORIGIN}/notes/{id}"), "text": text})
}

#[test]
fn a_created_url_spells_the_id_the_sequence_generates_in_the_same_create() {
    // Two creates answering their next id and a URL ending in it: the URL is `composed` from
    // the id the sequence generates (`made:id`), so the rule is applied after the sequence.
    let fixture = derive(vec![
        get(0, "/notes", 200, json!([linked_note(1, "a")])),
        get(1, "/notes/1", 200, linked_note(1, "a")),
        record(
            2,
            "POST",
            "/notes",
            Some(json!({"text": "b"})),
            201,
            linked_note(2, "b"),
        ),
        get(3, "/notes/2", 200, linked_note(2, "b")),
        record(
            4,
            "POST",
            "/notes",
            Some(json!({"text": "c"})),
            201,
            linked_note(3, "c"),
        ),
        get(5, "/notes/3", 200, linked_note(3, "c")),
        get(
            6,
            "/notes",
            200,
            json!([
                linked_note(1, "a"),
                linked_note(2, "b"),
                linked_note(3, "c")
            ]),
        ),
    ]);
    let plan = fixture.plan("post_notes");
    assert!(plan.served, "{plan:?}");
    let composed = plan
        .rules
        .iter()
        .find(|rule| rule.stage == "composed")
        .expect("a composed rule");
    assert_eq!(composed.explains, ["/url"]);
    let (created, error) = fixture.call("post_notes", json!({"body": {"text": "d"}}));
    assert!(!error, "{created}");
    assert_eq!(created["body"], linked_note(2, "d"));
}

fn assigned(id: u64, title: &str, assignee: Option<u64>) -> Value {
    json!({"id": id, "title": title, "assignee": assignee})
}

#[test]
fn an_update_read_back_past_an_adopted_delete_of_what_it_named_is_not_blamed() {
    // The update sets task 6's assignee to user 5, a list shows it so; then a delete of user 5
    // the replay cannot follow (the state never held user 5: adopted as observed) clears what
    // task 6 held of it, and the read of task 6 after shows `null`. That read is no `after` of
    // the update (the delete closed its window) and contradicts nothing it did.
    let records = vec![
        get(0, "/users", 200, json!([{"id": 1, "name": "ann"}])),
        get(
            1,
            "/tasks",
            200,
            json!([assigned(6, "six", None), assigned(7, "seven", Some(1))]),
        ),
        get(2, "/tasks/7", 200, assigned(7, "seven", Some(1))),
        get(3, "/users/1", 200, json!({"id": 1, "name": "ann"})),
        record(
            4,
            "PATCH",
            "/tasks/7",
            Some(json!({"title": "seven again"})),
            200,
            assigned(7, "seven again", Some(1)),
        ),
        get(5, "/tasks/7", 200, assigned(7, "seven again", Some(1))),
        record(
            6,
            "PATCH",
            "/tasks/6",
            Some(json!({"assignee": 5})),
            200,
            assigned(6, "six", Some(5)),
        ),
        get(
            7,
            "/tasks?assignee=5",
            200,
            json!([assigned(6, "six", Some(5))]),
        ),
        record(8, "DELETE", "/users/5", None, 204, Value::Null),
        get(9, "/tasks/6", 200, assigned(6, "six", None)),
    ];
    let fixture = derive(records);
    let patch = fixture.plan("patch_tasks_by_id");
    assert!(patch.served, "{patch:?}");
    assert_eq!(patch.contradicted_by, None);
}

/// A rule stage that explains nothing and notes each tool it was asked to learn for, under the
/// learn scope it declares.
struct Noting {
    scope: rea_plugin_api::contracts::rule::LearnScope,
    asked: Arc<std::sync::Mutex<Vec<String>>>,
}

impl rea_plugin_api::StateRule for Noting {
    type Options = rea_plugin_api::contracts::rule::NoOptions;
    type Rule = Value;

    fn learn(
        &self,
        request: &rea_plugin_api::contracts::rule::LearnRequest<Self::Options>,
    ) -> Result<rea_plugin_api::contracts::rule::LearnOutcome<Value>, rea_plugin_api::PluginError>
    {
        let mut asked = self.asked.lock().expect("not poisoned");
        asked.push(request.tool.name.clone());
        Ok(rea_plugin_api::contracts::rule::LearnOutcome::no_explanation("noted"))
    }

    fn apply(
        &self,
        _: &rea_plugin_api::contracts::rule::ApplyRequest<Value>,
    ) -> Result<rea_plugin_api::contracts::rule::ApplyOutcome, rea_plugin_api::PluginError> {
        Ok(rea_plugin_api::contracts::rule::ApplyOutcome::default())
    }

    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        self.scope.clone()
    }
}

#[test]
fn a_stage_is_asked_to_learn_only_within_its_declared_scope() {
    use rea_plugin_api::contracts::rule::{Effect, LearnScope};
    let item = |id: u64, title: &str| json!({"id": id, "title": title});
    let records = vec![
        get(0, "/items", 200, json!([item(1, "a")])),
        get(1, "/items/1", 200, item(1, "a")),
        record(
            2,
            "POST",
            "/items",
            Some(json!({"title": "b"})),
            201,
            item(2, "b"),
        ),
        get(3, "/items/2", 200, item(2, "b")),
        record(
            4,
            "POST",
            "/items",
            Some(json!({"title": "c"})),
            201,
            item(3, "c"),
        ),
        get(5, "/items/3", 200, item(3, "c")),
        record(6, "DELETE", "/items/1", None, 200, json!({})),
        get(7, "/items/1", 404, json!({})),
    ];
    let scopes = [
        ("first-every-tool", LearnScope::default()),
        ("first-explaining", LearnScope::default().explaining()),
        ("first-deletes", LearnScope::effects([Effect::Delete])),
        (
            "first-updates",
            LearnScope::effects([Effect::Update]).explaining(),
        ),
    ];
    let noted = |scopes: &[(&str, LearnScope)]| {
        scopes
            .iter()
            .map(|(stage, scope)| {
                let asked = Arc::default();
                let step = ConfiguredRule {
                    stage: (*stage).to_owned(),
                    plugin: "test".to_owned(),
                    options: BTreeMap::new(),
                    handle: RuleSet::direct(Noting {
                        scope: scope.clone(),
                        asked: Arc::clone(&asked),
                    }),
                };
                (step, asked)
            })
            .collect::<Vec<_>>()
    };
    let (first, last) = (
        noted(&scopes),
        noted(&[("last-explaining", LearnScope::default().explaining())]),
    );
    let mut rules = RuleSet::empty();
    first.iter().for_each(|(step, _)| rules.push(step.clone()));
    rules_except(&[])
        .steps()
        .iter()
        .for_each(|step| rules.push(step.clone()));
    last.iter().for_each(|(step, _)| rules.push(step.clone()));
    let fixture = derive_with(records, rules);
    // The plans are the default rules' (the noting stages explain nothing).
    let create = fixture.plan("post_items");
    assert!(create.served, "{create:?}");
    assert_eq!(
        create
            .rules
            .iter()
            .map(|rule| rule.stage.as_str())
            .collect::<Vec<_>>(),
        ["sequence"]
    );
    assert!(fixture.plan("delete_items_by_id").served);
    let asked = |noted: &[(ConfiguredRule, Arc<std::sync::Mutex<Vec<String>>>)], at: usize| {
        let mut tools = noted[at].1.lock().expect("not poisoned").clone();
        tools.sort();
        tools.dedup();
        tools
    };
    // Unscoped: every tool. Explaining only: the create, whose id is unexplained before
    // `sequence`, never the delete, which leaves nothing unexplained.
    assert_eq!(asked(&first, 0), ["delete_items_by_id", "post_items"]);
    assert_eq!(asked(&first, 1), ["post_items"]);
    // Effects: only its own, whatever is unexplained; none when no tool has that effect.
    assert_eq!(asked(&first, 2), ["delete_items_by_id"]);
    assert!(asked(&first, 3).is_empty());
    // After `sequence` explained the id, nothing is left for an explaining stage.
    assert!(asked(&last, 0).is_empty());
}

/// A JSON:API group listing the identifiers of the items whose `group` linkage names it.
fn group(id: &str, name: &str, items: &[&str]) -> Value {
    let items: Vec<Value> = items
        .iter()
        .map(|item| json!({"type": "item", "id": item}))
        .collect();
    json!({"type": "group", "id": id, "name": name, "items": {"data": items}})
}

fn item(id: &str, title: &str, group: &str) -> Value {
    json!({"type": "item", "id": id, "title": title, "group": {"data": {"type": "group", "id": group}}})
}

#[test]
fn a_create_read_back_after_a_child_naming_it_is_learned_from_its_answer() {
    let child =
        json!({"type": "item", "title": "c", "group": {"data": {"type": "group", "id": "3"}}});
    let fixture = derive(vec![
        get(
            0,
            "/groups",
            200,
            json!({"data": [group("1", "a", &["1"]), group("2", "b", &["2"])]}),
        ),
        get(
            1,
            "/items",
            200,
            json!({"data": [item("1", "x", "1"), item("2", "y", "2")]}),
        ),
        get(2, "/groups/1", 200, group("1", "a", &["1"])),
        get(3, "/items/2", 200, item("2", "y", "2")),
        record(
            4,
            "POST",
            "/groups",
            Some(json!({"type": "group", "name": "c"})),
            201,
            group("3", "c", &[]),
        ),
        // The item's create names group 3: the group's read after it lists the item, which the
        // group's create did not make.
        record(5, "POST", "/items", Some(child), 201, item("3", "c", "3")),
        get(6, "/groups/3", 200, group("3", "c", &["3"])),
        get(7, "/items/3", 200, item("3", "c", "3")),
    ]);
    let plan = fixture.plan("post_groups");
    assert!(plan.served, "{plan:?}");
    // The create made an empty list (its answer), not the one the read after the item's create
    // showed.
    let fields = plan.fields.as_ref().expect("fields");
    let made = fields.nested_constants.get("/items/data");
    assert_eq!(
        made.map(|items| items.to_canonical_string()).as_deref(),
        Some("[]")
    );
    let (made, error) = fixture.call(
        "post_groups",
        json!({"body": {"type": "group", "name": "d"}}),
    );
    assert!(!error, "{made:#}");
    assert_eq!(made["body"]["items"]["data"], json!([]), "{made:#}");
}

/// Groups and items (see [`group`]): item 3 joins group 1 through the groups' to-many route, then
/// item 2 leaves group 2, each read back by id.
fn groups_with_routes() -> Vec<CaptureRecord> {
    let sent = |id: &str| Some(json!({"data": [{"type": "item", "id": id}]}));
    let mut unlinked = item("3", "z", "1");
    unlinked["group"]["data"] = Value::Null;
    let mut left = item("2", "y", "2");
    left["group"]["data"] = Value::Null;
    vec![
        get(
            0,
            "/groups",
            200,
            json!({"data": [group("1", "a", &["1"]), group("2", "b", &["2"])]}),
        ),
        get(
            1,
            "/items",
            200,
            json!({"data": [item("1", "x", "1"), item("2", "y", "2"), unlinked]}),
        ),
        get(2, "/groups/1", 200, group("1", "a", &["1"])),
        get(3, "/items/2", 200, item("2", "y", "2")),
        record(
            4,
            "POST",
            "/groups/1/relationships/items",
            sent("3"),
            200,
            json!({"meta": {"message": "created"}}),
        ),
        get(5, "/items/3", 200, item("3", "z", "1")),
        record(
            6,
            "DELETE",
            "/groups/2/relationships/items",
            sent("2"),
            200,
            json!({"meta": {"message": "removed"}}),
        ),
        get(7, "/items/2", 200, left),
    ]
}

#[test]
fn a_to_many_route_adds_and_removes_linkages_learned_from_one_call_each() {
    let fixture = derive(groups_with_routes());
    let tool = |method: &str| {
        let found = fixture
            .manifest
            .tools
            .iter()
            .find(|tool| tool.method == method && tool.path_template.contains("relationships"));
        found.unwrap_or_else(|| panic!("no {method} route")).clone()
    };
    let (add, remove) = (tool("POST"), tool("DELETE"));
    for (route, adds) in [(&add, true), (&remove, false)] {
        let plan = fixture.plan(&route.name);
        assert!(plan.served, "{plan:?}");
        let model = plan.to_many.as_ref().expect("a to-many model");
        assert_eq!(model.adds, adds);
        assert_eq!(model.named["items"].linkage, "/group/data");
    }
    let arguments = |route: &rea_manifest::ManifestTool, group: &str, item: &str| {
        let mut arguments = json!({"body": {"data": [{"type": "item", "id": item}]}});
        arguments[route.path_parameters[0].name.as_str()] = json!(group);
        for parameter in &route.path_parameters[1..] {
            let value = parameter.observed_values[0].clone();
            arguments[parameter.name.as_str()] = json!(value);
        }
        arguments
    };
    let listed = |id: &str| {
        let (shown, error) = fixture.call("get_groups_by_id", json!({"id": id}));
        assert!(!error, "{shown:#}");
        shown["body"]["items"]["data"].clone()
    };
    // Item 1 leaves group 1, then joins group 2; removing it from group 1 again changes nothing.
    let (answer, error) = fixture.call(&remove.name, arguments(&remove, "1", "1"));
    assert!(!error, "{answer:#}");
    assert_eq!(answer["body"]["meta"]["message"], "removed");
    assert_eq!(listed("1"), json!([]));
    let (answer, error) = fixture.call(&add.name, arguments(&add, "2", "1"));
    assert!(!error, "{answer:#}");
    assert_eq!(
        listed("2"),
        json!([{"type": "item", "id": "1"}, {"type": "item", "id": "2"}])
    );
    let (_, error) = fixture.call(&remove.name, arguments(&remove, "1", "1"));
    assert!(!error);
    assert_eq!(listed("2").as_array().map(Vec::len), Some(2));
    // An item no group holds is refused.
    let (_, error) = fixture.call(&add.name, arguments(&add, "2", "9"));
    assert!(error);
}

fn database(name: &str, docs: u64) -> Value {
    json!({"db_name": name, "doc_count": docs})
}

/// A names document and the databases it names, read before the writes.
fn databases_read() -> Vec<CaptureRecord> {
    vec![
        get(0, "/_all_dbs", 200, json!(["_users", "library", "members"])),
        get(1, "/library", 200, database("library", 3)),
        get(2, "/members", 200, database("members", 2)),
    ]
}

#[test]
fn a_bodyless_put_of_a_new_name_adds_it_to_the_names_document() {
    // A `PUT /{db}` sending no body, each call followed by the names document listing its name
    // last, is a served document write adding the name its path gives.
    let mut records = databases_read();
    records.extend([
        record(3, "PUT", "/loans", None, 204, Value::Null),
        get(
            4,
            "/_all_dbs",
            200,
            json!(["_users", "library", "members", "loans"]),
        ),
        record(5, "PUT", "/notes", None, 204, Value::Null),
        get(
            6,
            "/_all_dbs",
            200,
            json!(["_users", "library", "members", "loans", "notes"]),
        ),
    ]);
    let fixture = derive(records);
    let plan = fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.method == "PUT")
        .expect("the PUT's plan");
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.effect, crate::writes::model::Effect::Document);
    assert_eq!(plan.confirmed_by, vec![4, 6]);
    let target = plan.target.as_ref().expect("a target");
    assert_eq!(target.document.as_deref(), Some("get_all_dbs"));
    let placement = plan.fields.as_ref().and_then(|fields| fields.adds_name);
    assert_eq!(
        placement,
        Some(crate::writes::named_collection::NamePlacement::End)
    );
    // Served: the name is added last, the document view answers it from the state, and a name
    // already listed is refused, changing nothing.
    let (created, error) = fixture.call(&plan.tool, json!({"db_name": "reviews"}));
    assert!(!error, "{created}");
    assert_eq!(created["status"], 204);
    let (read, _) = fixture.call("get_all_dbs", json!({}));
    assert_eq!(
        read["body"],
        json!(["_users", "library", "members", "reviews"])
    );
    let (again, error) = fixture.call(&plan.tool, json!({"db_name": "reviews"}));
    assert!(error, "{again}");
    let (read, _) = fixture.call("get_all_dbs", json!({}));
    assert_eq!(read["body"].as_array().map(Vec::len), Some(4));
}

#[test]
fn a_bodyless_put_the_names_document_does_not_show_stays_withheld() {
    // The read after the call lists another name besides, or no read follows: not learned.
    let mut records = databases_read();
    records.extend([
        record(3, "PUT", "/loans", None, 204, Value::Null),
        get(
            4,
            "/_all_dbs",
            200,
            json!(["_users", "library", "loans", "members", "extra"]),
        ),
        record(5, "PUT", "/notes", None, 204, Value::Null),
    ]);
    let fixture = derive(records);
    let plan = fixture
        .state
        .write_plans
        .iter()
        .find(|plan| plan.method == "PUT")
        .expect("the PUT's plan");
    assert!(!plan.served);
    assert!(
        plan.fields
            .as_ref()
            .is_none_or(|fields| fields.adds_name.is_none())
    );
    let mut records = databases_read();
    records.push(record(3, "PUT", "/loans", None, 204, Value::Null));
    records.push(record(4, "PUT", "/notes", None, 204, Value::Null));
    let fixture = derive(records);
    assert!(fixture.state.write_plans.iter().all(|plan| !plan.served));
}

#[test]
fn a_delete_shown_only_by_the_collections_count_falling_is_observed_and_confirmed() {
    // PiccoloCRUD's `/count/` after a delete that no list or item read follows: a count of the
    // whole collection one less than the entities held with the deleted one shows it gone, and
    // the state's count agreeing with it confirms the delete.
    let task = |id: u64, title: &str| json!({"id": id, "title": title});
    let capture = |after: u64| {
        derive(vec![
            get(
                0,
                "/tasks/",
                200,
                json!([task(3, "c"), task(2, "b"), task(1, "a")]),
            ),
            get(1, "/tasks/1/", 200, task(1, "a")),
            get(2, "/tasks/?title=a", 200, json!([task(1, "a")])),
            get(3, "/tasks/count/", 200, json!({"count": 3})),
            get(4, "/tasks/count/?title=a", 200, json!({"count": 1})),
            record(5, "DELETE", "/tasks/2/", None, 204, Value::Null),
            get(6, "/tasks/count/", 200, json!({"count": after})),
        ])
    };
    let fixture = capture(2);
    let delete = fixture.plan("delete_tasks_by_task_id");
    let counts = fixture.state.views.iter().any(|view| {
        view.tool == "get_tasks_count" && matches!(view.detail, crate::model::ViewDetail::Count(_))
    });
    assert!(counts, "{:?}", fixture.state.views);
    assert!(delete.served, "{delete:?}");
    assert_eq!(delete.confirmed_by, vec![6]);
    let (deleted, error) = fixture.call("delete_tasks_by_task_id", json!({"task_id": "3"}));
    assert!(!error, "{deleted}");
    let (counted, _) = fixture.call("get_tasks_count", json!({}));
    assert_eq!(counted["body"], json!({"count": 2}), "{counted}");
    // A count that did not fall shows nothing of the delete.
    let unchanged = capture(3);
    let delete = unchanged.plan("delete_tasks_by_task_id");
    assert!(!delete.served);
    assert_eq!(delete.reason.as_deref(), Some("no-observation"));
}

/// A toy expression language: `min=FIELD:N`, the entities whose FIELD is at least N.
#[derive(Debug)]
struct AtLeast;

impl crate::rules::QueryGrammarStep for AtLeast {
    fn apply(
        &self,
        request: &rea_plugin_api::contracts::query::QueryGrammarRequest,
    ) -> Result<rea_plugin_api::contracts::query::QueryGrammarOutcome, String> {
        Ok(rea_plugin_api::contracts::query::QueryGrammarOutcome {
            lists: vec![Default::default(); request.lists.len()],
            ..Default::default()
        })
    }

    fn split(
        &self,
        request: &rea_plugin_api::contracts::query::QueryExpressionRequest,
    ) -> Result<rea_plugin_api::contracts::query::QueryExpressionOutcome, String> {
        use rea_plugin_api::contracts::query::{QueryRole, QueryTerm};
        let terms = (request.name == "min")
            .then(|| request.value.split_once(':'))
            .flatten()
            .map(|(field, value)| {
                let role = QueryRole::filter(field, "gte");
                vec![QueryTerm::playing(format!("{field}[gte]"), value, role)]
            });
        Ok(rea_plugin_api::contracts::query::QueryExpressionOutcome {
            terms,
            ..Default::default()
        })
    }

    fn split_body(
        &self,
        _: &rea_plugin_api::contracts::query::QueryBodyRequest,
    ) -> Result<rea_plugin_api::contracts::query::QueryExpressionOutcome, String> {
        Ok(Default::default())
    }
}

/// Projects read whole, by id and through the toy `min` filter, then one put answering 204 with
/// no body, which only the filtered read after it (`after`) shows.
fn put_shown_by_a_filtered_list(after: Value) -> Fixture {
    let project =
        |id: u64, budget: u64| json!({"id": id, "name": format!("p{id}"), "budget": budget});
    let rules = rules().with_query_grammars(vec![crate::rules::ConfiguredQueryGrammar {
        stage: "at-least".to_owned(),
        plugin: "test".to_owned(),
        handle: Arc::new(AtLeast),
    }]);
    let records = vec![
        get(
            0,
            "/projects/",
            200,
            json!([project(1, 120), project(2, 80), project(3, 45)]),
        ),
        get(1, "/projects/3/", 200, project(3, 45)),
        get(
            2,
            "/projects/?min=budget:60",
            200,
            json!([project(1, 120), project(2, 80)]),
        ),
        record(
            3,
            "PUT",
            "/projects/3/",
            Some(json!({"name": "p3", "budget": 90})),
            204,
            Value::Null,
        ),
        get(4, "/projects/?min=budget:60", 200, after),
    ];
    derive_with(records, rules)
}

#[test]
fn an_update_shown_only_by_a_list_a_grammar_filters_is_confirmed_by_it() {
    // PiccoloCRUD's project `PUT` answered 204 and shown only by `budget=60&budget__operator=gte`:
    // the confirming replay reads with the pipeline's query grammars, so the filtered read is
    // evaluated over the replayed state and, agreeing, confirms the put.
    let project =
        |id: u64, budget: u64| json!({"id": id, "name": format!("p{id}"), "budget": budget});
    let listed = json!([project(1, 120), project(2, 80), project(3, 90)]);
    let fixture = put_shown_by_a_filtered_list(listed);
    let put = fixture.plan("put_projects_by_project_id");
    assert!(put.served, "{put:?}");
    assert_eq!(put.confirmed_by, vec![4]);
    // A read the replayed put does not reproduce (the project listed first, where every list
    // holds the collection's order) contradicts it.
    let misordered = json!([project(3, 90), project(1, 120), project(2, 80)]);
    let fixture = put_shown_by_a_filtered_list(misordered);
    let put = fixture.plan("put_projects_by_project_id");
    assert!(!put.served, "{put:?}");
    assert_eq!(put.reason.as_deref(), Some("contradicted"), "{put:?}");
}

fn person(id: u64, name: &str, email: Value, role: &str) -> Value {
    json!({"id": id, "name": name, "email": email, "role": role})
}

/// Two held people (the second without an email), a create sending every member and its read.
fn people_with_a_create() -> Vec<CaptureRecord> {
    let held = vec![
        person(1, "ana", json!("ana@x.test"), "lead"),
        person(2, "bo", Value::Null, "engineer"),
    ];
    let cy = person(3, "cy", json!("cy@x.test"), "engineer");
    vec![
        get(0, "/people", 200, json!(held)),
        get(1, "/people/1", 200, held[0].clone()),
        record(
            2,
            "POST",
            "/people",
            Some(json!({"name": "cy", "email": "cy@x.test", "role": "engineer"})),
            201,
            cy.clone(),
        ),
        get(3, "/people/3", 200, cy),
    ]
}

fn required_members(plan: &crate::writes::model::WritePlan) -> Vec<&str> {
    plan.body
        .iter()
        .flat_map(|body| body.members.iter())
        .filter(|(_, member)| member.required)
        .map(|(name, _)| name.as_str())
        .collect()
}

#[test]
fn a_create_leaves_out_a_member_a_held_entity_shows_null_and_stores_null() {
    let fixture = derive(people_with_a_create());
    let create = fixture.plan("post_people");
    assert!(create.served, "{:?}", create.reason);
    // `email` was sent by the one call, but person 2 is held without one; every held person
    // holds a name and a role.
    assert_eq!(required_members(create), ["name", "role"]);
    let defaults = &create.fields.as_ref().expect("fields").defaults;
    assert_eq!(
        defaults.get("email"),
        Some(&rea_plugin_api::json::Json::Null)
    );
    let (created, error) = fixture.call(
        "post_people",
        json!({"body": {"name": "di", "role": "designer"}}),
    );
    assert!(!error, "{created}");
    assert_eq!(
        created["body"],
        person(3, "di", Value::Null, "designer"),
        "{created}"
    );
}

#[test]
fn a_create_keeps_required_what_every_held_entity_holds_a_value_for() {
    let mut records = people_with_a_create();
    records[0] = get(
        0,
        "/people",
        200,
        json!([person(1, "ana", json!("ana@x.test"), "lead")]),
    );
    let fixture = derive(records);
    let create = fixture.plan("post_people");
    assert!(create.served, "{:?}", create.reason);
    assert_eq!(required_members(create), ["email", "name", "role"]);
    assert!(create.fields.as_ref().expect("fields").defaults.is_empty());
}

/// The build's one update of person 1, sending `role` alone; the other members kept.
fn an_update_of_one_member(ordinal: u64) -> [CaptureRecord; 2] {
    let updated = person(1, "ana", json!("ana@x.test"), "manager");
    [
        record(
            ordinal,
            "PUT",
            "/people/1",
            Some(json!({"role": "manager"})),
            200,
            updated.clone(),
        ),
        get(ordinal + 1, "/people/1", 200, updated),
    ]
}

#[test]
fn an_update_called_once_keeping_members_a_create_sent_requires_none() {
    let mut records = people_with_a_create();
    records.extend(an_update_of_one_member(4));
    let fixture = derive(records);
    let update = fixture.plan("put_people_by_id");
    assert!(update.served, "{:?}", update.reason);
    assert!(required_members(update).is_empty(), "{:?}", update.body);
    let (answer, error) = fixture.call(
        "put_people_by_id",
        json!({"id": "1", "body": {"email": "ana@y.test"}}),
    );
    assert!(!error, "{answer}");
    let (read, _) = fixture.call("get_people_by_id", json!({"id": "1"}));
    assert_eq!(
        read["body"],
        person(1, "ana", json!("ana@y.test"), "lead"),
        "{read}"
    );
}

#[test]
fn an_update_called_once_keeping_only_what_no_write_sent_keeps_its_members_required() {
    // No create: the kept `name` and `email` were never sent by a write, so the one call's
    // member says nothing of a merge.
    let mut records = people_with_a_create();
    records.truncate(2);
    records.extend(an_update_of_one_member(2));
    let fixture = derive(records);
    let update = fixture.plan("put_people_by_id");
    assert!(update.served, "{:?}", update.reason);
    assert_eq!(required_members(update), ["role"]);
}

#[test]
fn a_create_takes_the_members_it_leaves_out_from_a_defaults_document() {
    let defaults =
        |compression: &str| json!({"compression": compression, "paused": false, "max": 0});
    let device = |id: &str, compression: &str| json!({"id": id, "name": id.to_uppercase(), "compression": compression, "paused": false, "max": 0});
    let held = json!({"id": "a", "name": "A", "compression": "always", "paused": true, "max": 7});
    let fixture = derive(vec![
        get(0, "/defaults/device", 200, defaults("metadata")),
        // The held device's members differ from the defaults: no value every device shares.
        get(1, "/devices", 200, json!([held.clone()])),
        get(2, "/devices/a", 200, held),
        record(
            3,
            "POST",
            "/devices",
            Some(json!({"id": "b", "name": "B"})),
            200,
            Value::Null,
        ),
        get(4, "/devices/b", 200, device("b", "metadata")),
        record(
            5,
            "PATCH",
            "/defaults/device",
            Some(json!({"compression": "always"})),
            200,
            Value::Null,
        ),
        get(6, "/defaults/device", 200, defaults("always")),
        record(
            7,
            "POST",
            "/devices",
            Some(json!({"id": "c", "name": "C"})),
            200,
            Value::Null,
        ),
        get(8, "/devices/c", 200, device("c", "always")),
    ]);
    let plan = fixture.plan("post_devices");
    assert!(plan.served, "{:?}", plan.reason);
    let taken: Vec<&str> = (plan.fields.as_ref().unwrap().document_defaults.keys())
        .map(String::as_str)
        .collect();
    assert_eq!(taken, ["compression", "max", "paused"]);
    // Served: the document's live members, as a served write of it left them (`max`).
    let (_, error) = fixture.call("patch_defaults_device", json!({"body": {"max": 5}}));
    assert!(!error);
    let (_, error) = fixture.call("post_devices", json!({"body": {"id": "d", "name": "D"}}));
    assert!(!error);
    let (read, _) = fixture.call("get_devices_by_id", json!({"id": "d"}));
    assert_eq!(read["body"]["max"], 5, "{read}");
    // The environment starts from the state before the build's writes: `metadata`.
    assert_eq!(read["body"]["compression"], "metadata", "{read}");
}
