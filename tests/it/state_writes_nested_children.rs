//! Nested child creations learned from a recorded create: a body member holding an array of
//! objects that the recorded answer shows back as new entities of another held type, each with
//! the id its own type generated and the new parent's id in its reference member. On directus:
//! the project create (`POST /items/projects?fields=*,tasks.*`) nested two tasks, answered with
//! task ids 12 and 13 and `project: 5`, so the plan names `tasks` as children of the tasks type
//! referencing their project through `project`; the task create, which nests nothing, names none.

use rea_state::writes::model::NestedChildren;

use crate::state_support::serve_corpus_app;

#[test]
fn a_project_create_names_its_nested_tasks_as_children_of_the_tasks_type() {
    let served = serve_corpus_app("directus");
    let create = served
        .state()
        .write_plan("post_items_projects")
        .expect("the project create's plan");
    let tasks_type = served
        .state()
        .write_plan("post_items_tasks")
        .and_then(|plan| plan.target.as_ref())
        .and_then(|target| target.entity_type.clone())
        .expect("the task create's type");
    let [children] = create.children.as_slice() else {
        panic!("one nested member: {create:?}");
    };
    let NestedChildren {
        member,
        entity_type,
        reference,
        identity,
        members,
        defaults,
    } = children;
    assert_eq!(
        (
            member.as_str(),
            entity_type,
            reference.as_str(),
            identity.as_str()
        ),
        ("tasks", &tasks_type, "project", "id")
    );
    // The members an answered task shows, and the values unsent tasks showed: assignee and
    // tags were each left unsent by one task (null), priority and title sent by both.
    assert_eq!(members.len(), 10, "{members:?}");
    let learned: Vec<&str> = defaults.keys().map(String::as_str).collect();
    assert_eq!(
        learned,
        ["assignee", "due", "estimate_h", "sort", "state", "tags"],
        "{defaults:?}"
    );
    // The project create's nested member is never required: a project is made with no tasks.
    let body = create.body.as_ref().expect("a body model");
    assert!(!body.members["tasks"].required, "{body:?}");
    let tasks = served
        .state()
        .write_plan("post_items_tasks")
        .expect("the task create's plan");
    assert!(tasks.children.is_empty(), "{:?}", tasks.children);
}
