//! A create's recorded refusal of a taken value, learned from the build and served: the build
//! created an entity, then sent a create repeating its name and was refused; a served create
//! sending a name the live collection holds answers that refusal (its body naming the sent value),
//! changing nothing, and a create sending a free name still creates. On two recorded applications:
//! optuna-dashboard (`400 {"reason": "Study name already exists."}` for a study name) and flexget
//! (`409 … list with name 'weekend' already exists` for an entry list name).

use std::collections::BTreeSet;

use rea_state::writes::model::WritePlan;
use serde_json::{Map, Value, json};

use crate::state_support::{Served, serve_corpus_app};

fn object(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("an object")
    };
    map
}

/// Creates with a held value, then with a free one, through `tool`; returns both answers and the
/// list `list` answered before and after the refused create.
fn assert_conflict(app: &str, tool: &str, list: &str, taken: Value, free: Value) -> Value {
    let served = serve_corpus_app(app);
    let plan = served
        .state()
        .write_plan(tool)
        .unwrap_or_else(|| panic!("{app}: a plan for {tool}"));
    assert!(plan.served, "{app} {tool}: {:?}", plan.reason);
    assert!(
        !plan.conflicts.is_empty(),
        "{app} {tool}: a conflict learned"
    );
    let (before, _) = served.call(list, Map::new());
    let (refused, is_error) = served.call(tool, object(json!({"body": taken})));
    assert!(!is_error, "{app}: {refused}");
    assert_eq!(refused["state"]["view"], "conflict", "{app}: {refused}");
    assert_conflict_values_kept(&served, plan);
    let (after, _) = served.call(list, Map::new());
    assert_eq!(
        before["body"], after["body"],
        "{app}: the refusal changed nothing"
    );
    let (created, is_error) = served.call(tool, object(json!({"body": free})));
    assert!(!is_error, "{app}: {created}");
    assert_eq!(created["state"]["view"], "create", "{app}: {created}");
    refused
}

/// A refused create, though it changes nothing, left the live state keeping the values its
/// conflicts check (issue 17 item 3: the refusals after it, on a state no create wrote since it
/// was loaded, ask them instead of scanning the collection).
fn assert_conflict_values_kept(served: &Served, plan: &WritePlan) {
    let entity_type = plan.entity_type().expect("a create names its type");
    let live = served.backend.service().read();
    let collections: BTreeSet<&str> = live
        .entities()
        .filter(|entity| entity.entity_type == entity_type)
        .map(|entity| entity.collection.as_str())
        .collect();
    assert!(!collections.is_empty(), "{entity_type}: entities held");
    for conflict in &plan.conflicts {
        assert!(
            collections.iter().any(|collection| live.keeps_shared_index(
                entity_type,
                collection,
                &conflict.member
            )),
            "{entity_type}: the values of {} kept",
            conflict.member
        );
    }
}

#[test]
fn a_study_name_taken_answers_the_recorded_400() {
    let refused = assert_conflict(
        "optuna_dashboard",
        "post_studies",
        "get_studies",
        json!({"study_name": "churn-lgbm", "directions": ["minimize"]}),
        json!({"study_name": "fresh-study", "directions": ["minimize"]}),
    );
    assert_eq!(refused["status"], 400, "{refused}");
    assert_eq!(
        refused["body"],
        json!({"reason": "Study name already exists."})
    );
}

#[test]
fn an_entry_list_name_taken_answers_the_recorded_409_naming_it() {
    let refused = assert_conflict(
        "flexget",
        "post_entry_list",
        "get_entry_list",
        json!({"name": "watchlist"}),
        json!({"name": "fresh-list"}),
    );
    assert_eq!(refused["status"], 409, "{refused}");
    assert_eq!(
        refused["body"]["message"], "list with name 'watchlist' already exists",
        "{refused}"
    );
}

#[test]
fn an_entry_title_taken_answers_the_409_its_answer_names() {
    // The refused create sent a title and an original_url some entry held both; the answer
    // spells the title, so the title is the conflict's member.
    let served = serve_corpus_app("flexget");
    let tool = "post_entry_list_entries_by_entry_list_id";
    let plan = served.state().write_plan(tool).expect("the entry create");
    let conflicts: Vec<(&str, u64)> = plan
        .conflicts
        .iter()
        .map(|conflict| (conflict.member.as_str(), conflict.ordinal))
        .collect();
    assert_eq!(conflicts, [("title", 30)]);
    let heat = "http://example.test/heat-1995-1080p.torrent";
    let (refused, is_error) = served.call(
        tool,
        object(
            json!({"entry_list_id": "1", "body": {"title": "Heat 1995 1080p",
            "url": heat, "original_url": heat}}),
        ),
    );
    assert!(!is_error, "{refused}");
    assert_eq!(refused["state"]["view"], "conflict", "{refused}");
    assert_eq!(refused["status"], 409, "{refused}");
    assert_eq!(
        refused["body"]["message"], "entry with title 'Heat 1995 1080p' already exists",
        "{refused}"
    );
}
