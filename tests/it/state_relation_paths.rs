//! Relation paths (`rea_state::joins`): Directus's build showed a task's `project` as the held
//! project (`fields=*,project.*`) and as a part of it (`fields=id,title,project.name`), and a
//! project's `tasks` as parts of the held tasks (`fields=*,tasks.id,tasks.title`), so its
//! probes selecting other fields through those members (`fields=code,tasks.title`,
//! `fields=*,tasks.*` on a project the build never read that way, `project.code`) and
//! filtering on another field of the joined project (`filter[project][status][_eq]`, where the
//! build filtered on `filter[project][code][_eq]`) are answered from the state with the live
//! answers; `limit=-1` lists every match. Filters on another field of a joined resource are
//! spelled as the recorded ones were: flask-rest-jsonapi-next filtered on `filter[project.code]`
//! and `filter[assignee.name]`, so `filter[project.name]` and `filter[assignee.role]` (the
//! related resources' attributes, named plainly) answer its live probes (two apps for joined
//! filters; selections through a relation: one app).

use rea_state::relations::Link;
use serde_json::{Map, Value};

use crate::state_field_selection::answer_probe;
use crate::state_query_grammar::served_with_probes;
use crate::state_support::{assert_not_modelled, list_view, probe_with_line};

const TASKS: &str = "get_items_tasks";
const PROJECTS: &str = "get_items_projects";
const PROJECT: &str = "get_items_projects_by_id";

#[test]
fn the_members_naming_related_entities_join_their_types() {
    let (directus, _) = served_with_probes("directus");
    let tasks = list_view(&directus, TASKS);
    let project = tasks
        .joins
        .iter()
        .find(|join| join.member == "project")
        .expect("tasks join their project");
    assert_eq!(
        project.link,
        Link::Parent {
            field: "project".to_owned(),
            key: None,
        }
    );
    let projects = list_view(&directus, PROJECTS);
    let children = projects
        .joins
        .iter()
        .find(|join| join.member == "tasks")
        .expect("projects join their tasks");
    assert_eq!(children.entity_type, tasks.entity_type);
    assert_eq!(
        children.link,
        Link::Children {
            field: "project".to_owned()
        }
    );
}

#[test]
fn selections_and_filters_through_a_relation_answer_the_live_probes() {
    let (directus, probes) = served_with_probes("directus");
    for (line, tool) in [
        (
            "GET /items/tasks?filter%5Bproject%5D%5Bstatus%5D%5B_eq%5D=paused&fields=id%2Ctitle%2Cproject.code",
            TASKS,
        ),
        (
            "GET /items/projects?fields=code%2Ctasks.title&sort=code",
            PROJECTS,
        ),
        ("GET /items/projects/2?fields=%2A%2Ctasks.%2A", PROJECT),
        ("GET /items/tasks?limit=-1&fields=title", TASKS),
    ] {
        let record = probe_with_line(&probes, line);
        let (answer, live) = answer_probe(&directus, record, tool);
        assert_eq!(answer.get("body"), Some(&live), "{line}");
    }
}

#[test]
fn a_path_through_a_member_joining_nothing_or_to_a_field_not_held_is_refused() {
    let (directus, _) = served_with_probes("directus");
    for fields in [
        "id,title,state.name",
        "id,project.colour",
        "id,project.code.name",
    ] {
        let mut arguments = Map::new();
        arguments.insert("fields".to_owned(), Value::from(fields));
        let (answer, is_error) = directus.call(TASKS, arguments);
        assert_not_modelled(&answer, is_error);
    }
}

#[test]
fn a_dotted_filter_through_a_relation_reaches_the_joined_resources_other_attributes() {
    let (flask, probes) = served_with_probes("flask-rest-jsonapi-next");
    let ids = |body: &Value| -> Vec<Value> {
        (body["data"].as_array().expect("a list"))
            .iter()
            .map(|resource| resource["id"].clone())
            .collect()
    };
    for line in [
        "GET /tasks?filter[project.name]=Lighthouse",
        "GET /tasks?filter[assignee.role]=engineer",
    ] {
        let record = probe_with_line(&probes, line);
        let (answer, live) = answer_probe(&flask, record, "get_tasks");
        assert!(!ids(&live).is_empty(), "{line}: {live:#}");
        assert_eq!(ids(&answer["body"]), ids(&live), "{line}: {answer:#}");
    }
}

/// The `_some` quantifier over a one-to-many member (`rea_state::quantified`): the build
/// filtered through a relation only as `filter[project][code][_eq]` and joined a project's tasks
/// through field selections, so the projects some task of which holds a filter are answered
/// from the state (the live probe, another field and operator, a value no task holds). One app:
/// no other recorded application quantifies over a relation a build shows.
#[test]
fn a_filter_quantified_over_a_members_related_entities_keeps_the_entities_one_of_which_holds_it() {
    let (directus, probes) = served_with_probes("directus");
    let line = "GET /items/projects?filter%5Btasks%5D%5B_some%5D%5Bassignee%5D%5B_eq%5D=chen&fields=id%2Ccode";
    let record = probe_with_line(&probes, line);
    let (answer, live) = answer_probe(&directus, record, PROJECTS);
    assert_eq!(answer.get("body"), Some(&live), "{line}");
    let ids = |name: &str, value: &str| {
        let mut arguments = Map::new();
        arguments.insert(name.to_owned(), Value::from(value));
        arguments.insert("fields".to_owned(), Value::from("id"));
        let (answer, is_error) = directus.call(PROJECTS, arguments);
        assert!(!is_error, "{name}={value}: {answer}");
        answer["body"]["data"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|project| project["id"].as_i64().expect("an id"))
            .collect::<Vec<_>>()
    };
    // The tasks in progress (2 and 6) are both of project 2.
    assert_eq!(ids("filter[tasks][_some][state][_eq]", "doing"), [2]);
    // Tasks of priority 5: 8 (project 4) and 9 (no project).
    assert_eq!(ids("filter[tasks][_some][priority][_gte]", "5"), [4]);
    assert!(ids("filter[tasks][_some][assignee][_eq]", "nobody").is_empty());
}
