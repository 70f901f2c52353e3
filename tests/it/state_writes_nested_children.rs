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
    let expected = NestedChildren {
        member: "tasks".to_owned(),
        entity_type: tasks_type,
        reference: "project".to_owned(),
    };
    assert_eq!(create.children, vec![expected], "{create:?}");
    let tasks = served
        .state()
        .write_plan("post_items_tasks")
        .expect("the task create's plan");
    assert!(tasks.children.is_empty(), "{:?}", tasks.children);
}
