//! Field-selection parameters learned from evidence, not from a name list
//! (`rea_state::selection_evidence`, issue 12): PiccoloCRUD's `__visible_fields=id,title`, on no
//! list, is a field selection because every recorded read naming it showed exactly the held
//! fields it named, so a probe selecting other fields of a list, of a sibling list or of one item
//! is answered from the state. The same evidence, the name list set aside, learns parse-server's
//! `keys` and Kinto's `_fields`, and never a filter, a sort or a page (each app's names learned so
//! are exactly its selection parameter).

use std::collections::BTreeSet;

use rea_manifest::body::ReplayBody;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{Json, Object};
use rea_state::model::ViewDetail;
use rea_state::observation::Timeline;
use rea_state::selection::FieldSelection;
use rea_state::selection_evidence::{SelectionNames, shown_by_evidence};
use serde_json::{Map, Value};

use crate::state_query_grammar::served_with_probes;
use crate::state_support::agreement::route;
use crate::state_support::{Served, input_schema, probe_with_line, view_detail};

/// The parameters the served capture's reads show selecting fields, the name list set aside.
fn by_evidence(served: &Served) -> BTreeSet<String> {
    let state = served.state();
    let timeline = Timeline::new(&served.manifest, &served.records);
    shown_by_evidence(&served.manifest, &timeline, &state.entities, &state.views)
}

/// The names the served capture's reads show selecting fields that no list holds.
fn learned_beyond_the_list(served: &Served) -> Vec<String> {
    let state = served.state();
    let timeline = Timeline::new(&served.manifest, &served.records);
    let names = SelectionNames::learn(&served.manifest, &timeline, &state.entities, &state.views);
    names.learned().map(str::to_owned).collect()
}

/// The selection rule a view of the served state carries.
fn selection_of(served: &Served, tool: &str) -> Option<FieldSelection> {
    match view_detail(served, tool) {
        ViewDetail::Item(item) => item.selection.clone(),
        ViewDetail::List(list) => list.selection.as_deref().cloned(),
        _ => None,
    }
}

fn names(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

#[test]
fn piccolo_visible_fields_is_learned_from_its_reads() {
    let (piccolo, probes) = served_with_probes("piccolo");
    // Recorded (build entries 40-42, 46): `id,title` and `id,title,status` (beside
    // `status=doing`) on the task list, `code,name` on the projects' (beside `__order=code`,
    // which teaches neither), `id,title,due` on one task; each showed exactly those fields.
    // `__order`, `__page`, `__readable` and the filters are no selection.
    assert_eq!(by_evidence(&piccolo), names(&["__visible_fields"]));
    assert_eq!(learned_beyond_the_list(&piccolo), ["__visible_fields"]);
    let rule = FieldSelection {
        parameter: "__visible_fields".to_owned(),
        kept: Vec::new(),
        listed: false,
        excludes: false,
    };
    for tool in [
        "get_tasks",
        "get_projects",
        "get_tasks_by_task_id",
        "get_people",
    ] {
        assert_eq!(selection_of(&piccolo, tool), Some(rule.clone()), "{tool}");
    }
    // Probe-reads 40 and 44: a list and an item selecting fields no recorded read selected.
    // Probe-reads 41: the people's list, which no recorded call selected fields of, is offered
    // the parameter (its catalog takes it; the probe's routing knows only the recorded names).
    let schema = input_schema(&piccolo, "get_people");
    assert!(
        (schema.get("properties"))
            .and_then(|properties| properties.get("__visible_fields"))
            .is_some(),
        "the people's list takes __visible_fields: {schema:?}"
    );
    let by_hand = Map::from_iter([("__visible_fields".to_owned(), Value::from("name,role"))]);
    for (line, tool) in [
        (
            "GET /api/tasks/?__visible_fields=id,priority&__order=priority",
            "get_tasks",
        ),
        (
            "GET /api/tasks/7/?__visible_fields=title,status",
            "get_tasks_by_task_id",
        ),
        ("GET /api/people/?__visible_fields=name,role", "get_people"),
    ] {
        let record = probe_with_line(&probes, line);
        let arguments = match route(&piccolo, record) {
            Some((routed, arguments)) if routed == tool => arguments,
            _ => by_hand.clone(),
        };
        let answer = answered_in_order(&piccolo, tool, arguments);
        let live = recorded_in_order(record);
        assert_eq!(answer.get("body"), Some(&live), "{line}");
        // Each row shows the fields in the order the application does: the order named, which
        // is the table's in every recorded selection and in these.
        let body = answer.get("body").expect("a body");
        assert_eq!(member_order(body), member_order(&live), "{line}");
    }
}

/// A tool's answer from the state, parsed keeping its members' order.
fn answered_in_order(served: &Served, tool: &str, arguments: Map<String, Value>) -> Object {
    let call = rea_serve::ToolBackend::call_tool(served.backend.as_ref(), tool, arguments);
    let answer = futures_util::FutureExt::now_or_never(call).expect("state answers are immediate");
    assert!(!answer.is_error, "{tool}: {}", answer.text);
    let Ok(Json::Object(answer)) = Json::parse(answer.text.as_bytes()) else {
        panic!("an object: {}", answer.text);
    };
    assert_eq!(
        answer.get("state").and_then(|state| state.get("source")),
        Some(&Json::from("state")),
        "{tool}: answered from the state"
    );
    answer
}

/// A recorded answer's JSON body, parsed keeping its members' order.
fn recorded_in_order(record: &CaptureRecord) -> Json {
    let interpreted =
        rea_manifest::body::interpret(&record.response.body, record.response.media_type.as_deref());
    let ReplayBody::Json(raw) = interpreted.body else {
        panic!("a JSON answer: {:?}", record.path);
    };
    Json::parse(raw.get().as_bytes()).expect("recorded JSON")
}

/// The member names of a body's object, or of each object of its one list, in order.
fn member_order(body: &Json) -> Vec<Vec<String>> {
    let names = |object: &Json| -> Vec<String> {
        object
            .as_object()
            .map(|object| object.keys().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let rows = body.as_object().and_then(|object| object.get("rows"));
    match rows {
        Some(Json::Array(rows)) => rows.iter().map(names).collect(),
        _ => vec![names(body)],
    }
}

#[test]
fn the_evidence_alone_names_each_apps_selection_and_nothing_else() {
    // The name list set aside, every corpus app's reads: the selection parameters whose every
    // recorded read showed the held fields it named (parse-server's `keys` and Kinto's
    // `_fields` keeping the identity and clocks, FeathersJS's `$select`, LoopBack's folded
    // `filter[fields]`, Roundup's `@fields`, PiccoloCRUD's `__visible_fields`, @nestjsx/crud's
    // `fields`), and no filter,
    // sort, page or inclusion of any app. Directus's `fields` also reaches through relations
    // (`*,project.*`) and Sails' `select` keeps other fields per type: the name list alone
    // learns those.
    let expected = [
        ("feathers", "$select"),
        ("kinto", "_fields"),
        ("loopback", "filter[fields]"),
        ("nestjs-crud", "fields"),
        ("parse-server", "keys"),
        ("piccolo", "__visible_fields"),
        ("roundup", "@fields"),
    ];
    let apps = rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots());
    assert!(apps.len() >= 20, "the corpus: {}", apps.len());
    for app in apps {
        let served = crate::state_support::serve_corpus_app(&app.name);
        let wanted: BTreeSet<String> = (expected.iter())
            .filter(|(name, _)| *name == app.name)
            .map(|(_, parameter)| (*parameter).to_owned())
            .collect();
        assert_eq!(by_evidence(&served), wanted, "{}", app.name);
        let beyond = learned_beyond_the_list(&served);
        let only_piccolo: &[&str] = match app.name.as_str() {
            "piccolo" => &["__visible_fields"],
            _ => &[],
        };
        assert_eq!(beyond, only_piccolo, "{}", app.name);
    }
}
