//! Id maps (`rea_state::id_maps`) on PiccoloCRUD's `/ids/` routes (`tests/corpus/apps/piccolo`):
//! each answers an object mapping a row's id to its readable member, ascending. The build shows
//! the people's and projects' whole maps (entries 51, 52, every held id to its `name`) and the
//! tasks' only through `search=wall` (entry 53, the two tasks whose `title` holds `wall`); the
//! state derives each map from the held entities, after served writes too.

use serde_json::{Value, json};

use crate::state_support::{
    Served, call_with_strings, live_answer, path_parameter, serve_corpus_app, view_detail,
    with_body,
};

/// The learned id map of a tool: its type's readable member and search parameter.
fn id_map(served: &Served, tool: &str) -> (String, Option<String>) {
    let rea_state::model::ViewDetail::IdMap(map) = view_detail(served, tool) else {
        panic!("{tool}: an id map, not {:?}", view_detail(served, tool))
    };
    (map.member.clone(), map.search.clone())
}

/// Reads an id map with these query arguments, asserting it is answered from the state.
fn read_map(served: &Served, tool: &str, arguments: &[(&str, &str)]) -> Value {
    let (answer, is_error) = call_with_strings(served, tool, arguments);
    assert!(!is_error, "{tool}: {answer}");
    assert_eq!(answer["state"]["source"], "state", "{tool}: {answer}");
    answer["body"].clone()
}

#[test]
fn each_types_ids_map_to_its_readable_member() {
    let served = serve_corpus_app("piccolo");
    assert_eq!(id_map(&served, "get_people_ids"), ("name".to_owned(), None));
    assert_eq!(
        id_map(&served, "get_projects_ids"),
        ("name".to_owned(), None)
    );
    // Learned from the search answer alone.
    assert_eq!(
        id_map(&served, "get_tasks_ids"),
        ("title".to_owned(), Some("search".to_owned()))
    );
    assert_eq!(
        read_map(&served, "get_projects_ids", &[]),
        json!({"1": "Harbour Wall", "2": "Signal Box", "3": "Ferry Ramp", "4": "Glasshouse"})
    );
    // probe-reads 48, 49: every task (their order, `9` before `12`, is compared by the fidelity
    // run: these bodies are parsed unordered), and a search read case-blind
    // (`order` finds `Order granite blocks`).
    let tasks = read_map(&served, "get_tasks_ids", &[]);
    assert_eq!(tasks, live_answer("piccolo", "probe-reads", 48).1);
    let keys: Vec<&String> = tasks.as_object().expect("a map").keys().collect();
    assert_eq!(keys.len(), 14, "{tasks}");
    let searched = read_map(&served, "get_tasks_ids", &[("search", "order")]);
    assert_eq!(searched, live_answer("piccolo", "probe-reads", 49).1);
}

#[test]
fn a_parameter_the_map_was_not_read_with_is_refused() {
    // probe-reads 50: `limit` was never recorded on any `/ids/` route.
    let served = serve_corpus_app("piccolo");
    let (answer, is_error) = call_with_strings(&served, "get_projects_ids", &[("limit", "2")]);
    assert!(is_error, "{answer}");
}

#[test]
fn served_writes_change_the_map() {
    let served = serve_corpus_app("piccolo");
    // probe-crud 33: after Lena's delete the map no longer names her.
    let parameter = path_parameter(&served, "delete_people_by_people_id");
    let (answer, is_error) =
        call_with_strings(&served, "delete_people_by_people_id", &[(&parameter, "3")]);
    assert!(!is_error, "{answer}");
    let people = read_map(&served, "get_people_ids", &[]);
    assert_eq!(people, live_answer("piccolo", "probe-crud", 33).1);
    // A create adds the new row under its id, last; a search finds it.
    let task = json!({"title": "Mend the wall gate", "status": "open", "priority": 2,
        "due": null, "project": 1, "assignee": null});
    let arguments = with_body(&served, "post_tasks", task);
    let (answer, is_error) = served.call("post_tasks", arguments);
    assert!(!is_error, "{answer}");
    let searched = read_map(&served, "get_tasks_ids", &[("search", "WALL")]);
    assert_eq!(
        searched,
        json!({"9": "Glaze the east wall", "12": "Check the wall mortar", "15": "Mend the wall gate"})
    );
}
