//! Reads naming a created entity (`derive/created_mentions.rs`), on a real recording:
//! flask-rest-jsonapi-next's build reads `GET /projects/3` (entry 53) only after creating task 13
//! (entry 43) and moving it there (entry 51), and lists `{"type": "task", "id": "13"}` among the
//! project's `relationships.tasks.data`; the windows relate neither write to the project read,
//! yet the identifier of an entity created before the read shows the state after the create.
//! The read's window ends at the create, so project 3 is seeded from the pre-write list read
//! (entry 0: tasks 7 and 8), the projects-tasks inverse linkage is learned (`inverse.rs`), the
//! projects' lists follow served task writes, and the project delete the build's read 79
//! contradicted before is served. drf-jsonapi's authors list read after its book create
//! (entry 65) ends there the same way (the author create of entry 53 already closed it).

use serde_json::{Value, json};

use crate::state_support::{Served, call_with_strings, serve_corpus_app, write_plan};

fn project_tasks(served: &Served, id: &str) -> Vec<String> {
    let (answer, is_error) = call_with_strings(served, "get_projects_by_id", &[("id", id)]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    crate::state_relationship_writes::linked_task_ids(&answer)
}

#[test]
fn a_project_first_read_after_a_create_it_lists_is_seeded_from_the_pre_write_read() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    assert_eq!(project_tasks(&served, "3"), ["7", "8"]);
    assert!(write_plan(&served, "delete_projects_by_id").served);
    // A served task create naming project 3 joins its list, in id order.
    let body = json!({"data": {"type": "task", "attributes": {"title": "Paint the lamp"},
        "relationships": {"project": {"data": {"type": "project", "id": "3"}}}}});
    let mut arguments = serde_json::Map::new();
    arguments.insert("body".into(), body);
    let (answer, is_error) = served.call("post_tasks", arguments);
    assert!(!is_error, "{answer:#}");
    let id = answer["body"]["data"]["id"].clone();
    assert_eq!(id, Value::from("13"), "{answer:#}");
    assert_eq!(project_tasks(&served, "3"), ["7", "8", "13"]);
    assert_eq!(project_tasks(&served, "1"), ["1", "2", "3"]);
}
