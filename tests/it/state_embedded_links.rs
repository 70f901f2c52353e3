//! Link objects an item view shows filled from the entity each names
//! (`rea_state::embedded_links`). Flask-AppBuilder's task item (`GET /api/v1/task/{id}`) embeds
//! the task's project as `{code, id, name}` where its list embeds `{code, id}`; the build read
//! tasks 1, 4 and 6 by id before its first write and listed the others, so the state holds
//! their project without `name`, and the projects list holds every project's `name`. The item
//! answers of tasks read only in lists show the name the project holds, and follow the project
//! the state holds. No other corpus build's plain item view shows a related object with more
//! members than the state holds for it (Roundup's show them only under `@verbose=2`, a query
//! `rea_state::expansion` answers; Directus' only under `fields=*,project.*`).

use rea_state::model::ViewDetail;
use serde_json::{Value, json};

use crate::state_query_grammar::served_with_probes;
use crate::state_support::plane_calls::run;
use crate::state_support::{Served, id_arguments, live_answer, view_detail};

const APP: &str = "fab";
const TASK: &str = "get_task_by_id";

fn task_item(served: &Served, id: &str) -> Value {
    let (answer, is_error) = served.call(TASK, id_arguments(served, TASK, id));
    assert!(!is_error, "task {id}: {answer}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "task {id} answers from the state: {answer}"
    );
    answer
}

#[test]
fn a_task_only_listed_shows_its_projects_name_as_the_application_does() {
    let (served, _) = served_with_probes(APP);
    let ViewDetail::Item(item) = view_detail(&served, TASK) else {
        panic!("an item view");
    };
    let links: Vec<(&str, &str, Vec<&str>)> = item
        .embedded_links
        .iter()
        .map(|link| {
            let shown = link.shown.iter().map(String::as_str).collect();
            (link.member.as_str(), link.entity_type.as_str(), shown)
        })
        .collect();
    // The assignee's `{id, name}` is what every held task holds already: no link is needed.
    assert_eq!(
        links,
        vec![("project", "/api/v1/project/", vec!["code", "id", "name"])]
    );
    // The state holds task 12's project as the lists showed it.
    let held = served
        .state()
        .entities
        .iter()
        .find(|entity| entity.entity_type == item.entity_type && entity.id == "12")
        .expect("task 12 is held");
    let project = held.fields.get("project").and_then(|p| p.as_object());
    assert!(project.is_some_and(|project| !project.contains_key("name")));
    // Probe-reads entries 39-42 read tasks the build never read by id.
    for (id, entry) in [("2", 39), ("7", 40), ("11", 41), ("12", 42)] {
        let answer = task_item(&served, id);
        let (status, live) = live_answer(APP, "probe-reads", entry);
        assert_eq!(status, 200);
        assert_eq!(answer.get("body"), Some(&live), "task {id}");
    }
}

#[test]
fn the_filled_link_follows_the_project_the_state_holds() {
    let (served, _) = served_with_probes(APP);
    let mut document =
        run(&served, "data/get", None).expect("data/get")["parts"][0]["data"].clone();
    let entities = document["rea_state"]["entities"]
        .as_array_mut()
        .expect("entities");
    fn project(id: &'static str) -> impl Fn(&&mut Value) -> bool {
        move |entity| entity["type"] == "/api/v1/project/" && entity["id"] == id
    }
    let mobile = entities.iter_mut().find(project("4")).expect("project 4");
    mobile["fields"]["name"] = json!("Mobile relaunch");
    let ops = entities.iter_mut().find(project("3")).expect("project 3");
    ops["fields"]
        .as_object_mut()
        .expect("fields")
        .remove("name");
    document["rea_state"]
        .as_object_mut()
        .expect("state")
        .remove("state_evidence_id");
    assert_eq!(
        run(
            &served,
            "data/add",
            Some(json!({"parts": [{"kind": "data", "data": document}]}))
        )
        .expect("loaded"),
        json!({})
    );
    // Task 12 of project 4 (held as `{code, id}`) shows the name project 4 holds now.
    let answer = task_item(&served, "12");
    assert_eq!(
        answer.pointer("/body/result/project"),
        Some(&json!({"code": "MOB", "id": 4, "name": "Mobile relaunch"}))
    );
    // Task 7 of project 3, which holds no name now: none is invented.
    let answer = task_item(&served, "7");
    assert_eq!(
        answer.pointer("/body/result/project"),
        Some(&json!({"code": "OPS", "id": 3}))
    );
}
