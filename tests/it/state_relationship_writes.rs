//! Relationship writes (issue 12, write learning), on a real recording: safrs's
//! `PATCH /api/tasks/{id}/{relationship}` with a resource identifier body is learned from
//! build.har's one call (entry 38, `assignee` with `{"type": "User", "id": "1"}`, read back by
//! entry 39 as `attributes.assignee_id` 1) as an update of the parent's member named around the
//! route's last segment (`/attributes/` + name + `_id`), and applies to another relationship
//! (`project`), answering the related resource as the recorded call did; an identifier no held
//! entity of the relationship's type matches, a relationship the parent holds no member for, or
//! a body holding anything beside the identifier's wrapping, is refused with nothing changed. The
//! second app, drf-jsonapi, writes its relationships through literal routes
//! (`/books/{id}/relationships/author`) setting a linkage object (`state_jsonapi_second_app`);
//! the third, flask-rest-jsonapi-next, through a route whose `relationships` segment every
//! recorded call fixed, answering only a message, with a `PATCH` merging a `relationships`
//! member, a delete clearing the linkages naming it and the parents' lists following (below).
//! The fourth, Fortune.js, answers its to-one and to-many relationship routes `204` without a
//! body, each recorded once (below).

use serde_json::{Map, Value, json};

use crate::state_support::serve_corpus_app;

const TOOL: &str = "patch_tasks_by_task_id_and_id";

fn call_args(task: &str, relationship: &str, body: Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("task_id".into(), Value::String(task.into()));
    arguments.insert("id".into(), Value::String(relationship.into()));
    arguments.insert("body".into(), body);
    arguments
}

fn task_attributes(served: &crate::state_support::Served, task: &str) -> Value {
    let (answer, is_error) =
        crate::state_support::call_with_strings(served, "get_tasks_by_id", &[("id", task)]);
    assert!(!is_error, "{answer:#}");
    answer["body"]["data"]["attributes"].clone()
}

#[test]
fn the_relationship_route_is_learned_from_the_assignee_write_and_read_back() {
    let served = serve_corpus_app("safrs");
    let plan = crate::state_support::write_plan(&served, TOOL);
    assert!(plan.served, "{:?}", plan.reason);
    let model = plan.relationship.as_ref().expect("a relationship model");
    assert_eq!(model.identifier, "/data");
    assert_eq!(model.id_member, "id");
    assert_eq!(
        (model.prefix.as_str(), model.suffix.as_str()),
        ("/attributes/", "_id")
    );
    assert!(model.numeric);
    // The member holds the id itself, and the answer is the related resource (drf-jsonapi's
    // routes set a linkage object and answer the identifier: `state_jsonapi_second_app`).
    assert!(!model.linkage && !model.answers_identifier);
    assert_eq!(model.named.keys().collect::<Vec<_>>(), ["assignee"]);
}

#[test]
fn another_relationship_sets_its_member_and_answers_the_related_resource() {
    let served = serve_corpus_app("safrs");
    // Task 3 is in project 1 in the seed.
    let sent = json!({"data": {"type": "Project", "id": "2"}});
    let (answer, is_error) = served.call(TOOL, call_args("3", "project", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 200, "{answer:#}");
    let body = &answer["body"];
    assert_eq!(body["data"]["type"], "Project");
    assert_eq!(body["data"]["id"], "2");
    assert_eq!(body["links"]["related"], "/api/projects/2/");
    let own = body["links"]["self"].as_str().expect("a self link");
    assert!(own.ends_with("/api/tasks/3/project"), "{own}");
    assert_eq!(task_attributes(&served, "3")["project_id"], 2);
}

#[test]
fn an_unknown_or_mistyped_identifier_an_unknown_relationship_and_a_body_beside_are_refused() {
    let served = serve_corpus_app("safrs");
    let before = task_attributes(&served, "3");
    for (relationship, sent) in [
        ("project", json!({"data": {"type": "Project", "id": "99"}})),
        ("assignee", json!({"data": {"type": "Project", "id": "1"}})),
        ("reviewer", json!({"data": {"type": "User", "id": "1"}})),
        (
            "project",
            json!({"data": {"type": "Project", "id": "2"}, "meta": {"note": "x"}}),
        ),
    ] {
        let (answer, is_error) = served.call(TOOL, call_args("3", relationship, sent));
        assert!(is_error, "{relationship}: {answer:#}");
    }
    assert_eq!(task_attributes(&served, "3"), before);
}

// The third JSON:API app, flask-rest-jsonapi-next: its relationship routes are templated
// `/tasks/{task_id}/{segment_2}/{id}` (recorded as `/tasks/13/relationships/project` and
// `/tasks/2/relationships/assignee`, answering only `meta.message`); a `PATCH` of the task sending
// `relationships.assignee.data: null` merges member by member (`writes/merged.rs`); a person's
// delete clears the `assignee` linkages naming them (`data: null`); the people's
// `relationships.tasks.data` follow the tasks' linkages (`inverse.rs`).

const ROUTE: &str = "patch_tasks_by_task_id_and_segment_2_and_id";

fn tracker_task(served: &crate::state_support::Served, id: &str) -> Value {
    let (answer, is_error) =
        crate::state_support::call_with_strings(served, "get_tasks_by_id", &[("id", id)]);
    assert!(!is_error, "{answer:#}");
    answer["body"]["data"].clone()
}

fn person_tasks(served: &crate::state_support::Served, id: &str) -> Vec<String> {
    let (answer, is_error) =
        crate::state_support::call_with_strings(served, "get_people_by_id", &[("id", id)]);
    assert!(!is_error, "{answer:#}");
    linked_task_ids(&answer)
}

/// The ids of an item answer's `relationships.tasks` linkage, in order.
pub(crate) fn linked_task_ids(answer: &Value) -> Vec<String> {
    answer["body"]["data"]["relationships"]["tasks"]["data"]
        .as_array()
        .expect("the linkage")
        .iter()
        .map(|entry| entry["id"].as_str().expect("an id").to_owned())
        .collect()
}

fn route_args(task: &str, segment: &str, name: &str, body: Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("task_id".into(), Value::String(task.into()));
    arguments.insert("segment_2".into(), Value::String(segment.into()));
    arguments.insert("id".into(), Value::String(name.into()));
    arguments.insert("body".into(), body);
    arguments
}

#[test]
fn a_third_app_relationship_route_sets_the_linkage_and_the_parents_lists_follow() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let plan = crate::state_support::write_plan(&served, ROUTE);
    assert!(plan.served, "{:?}", plan.reason);
    let model = plan.relationship.as_ref().expect("a relationship model");
    assert!(model.linkage && model.answers_as_recorded, "{model:?}");
    assert_eq!(model.fixed, [(2, "relationships".to_owned())]);
    // Task 9 (Amara's, person 1) passes to Bruno (person 2).
    let sent = json!({"data": {"type": "person", "id": "2"}});
    let (answer, is_error) = served.call(ROUTE, route_args("9", "relationships", "assignee", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer["body"]["meta"]["message"],
        "Relationship successfully updated"
    );
    let linkage = &tracker_task(&served, "9")["relationships"]["assignee"];
    assert_eq!(linkage["data"], json!({"type": "person", "id": "2"}));
    assert_eq!(linkage["links"]["self"], "/tasks/9/relationships/assignee");
    assert_eq!(person_tasks(&served, "1"), ["1", "7"]);
    assert_eq!(person_tasks(&served, "2"), ["4", "9", "12"]);
    // Another value where every recorded call sent `relationships` changes nothing.
    let sent = json!({"data": {"type": "person", "id": "3"}});
    let (answer, is_error) = served.call(ROUTE, route_args("9", "links", "assignee", sent));
    assert!(is_error, "{answer:#}");
    assert_eq!(
        tracker_task(&served, "9")["relationships"]["assignee"]["data"]["id"],
        "2"
    );
}

#[test]
fn a_third_app_patch_merges_relationships_and_a_delete_clears_the_linkages_naming_it() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    // Task 5 (Chen's, project 2): done, nobody assigned; title and project kept.
    let before = tracker_task(&served, "5");
    let sent = json!({"data": {"type": "task", "id": "5", "attributes": {"status": "done"}, "relationships": {"assignee": {"data": null}}}});
    let mut arguments = crate::state_support::with_body(&served, "patch_tasks_by_id", sent);
    arguments.insert("id".into(), json!("5"));
    let (answer, is_error) = served.call("patch_tasks_by_id", arguments);
    assert!(!is_error, "{answer:#}");
    let data = &answer["body"]["data"];
    assert_eq!(data["attributes"]["status"], "done");
    assert_eq!(data["attributes"]["title"], before["attributes"]["title"]);
    assert_eq!(data["relationships"]["assignee"]["data"], Value::Null);
    assert_eq!(
        data["relationships"]["assignee"]["links"],
        before["relationships"]["assignee"]["links"]
    );
    assert_eq!(
        data["relationships"]["project"],
        before["relationships"]["project"]
    );
    assert_eq!(person_tasks(&served, "3"), ["8"]);
    // Dana (person 4) holds tasks 2, 6 and 11 in the seed: her delete clears their assignee.
    let delete = crate::state_support::write_plan(&served, "delete_people_by_id");
    assert!(delete.served, "{:?}", delete.reason);
    let (answer, is_error) =
        crate::state_support::call_with_strings(&served, "delete_people_by_id", &[("id", "4")]);
    assert!(!is_error, "{answer:#}");
    for id in ["2", "6", "11"] {
        let assignee = &tracker_task(&served, id)["relationships"]["assignee"];
        assert_eq!(assignee["data"], Value::Null, "task {id}: {assignee:#}");
        assert!(assignee["links"]["self"].is_string(), "{assignee:#}");
    }
    assert_eq!(
        tracker_task(&served, "1")["relationships"]["assignee"]["data"],
        json!({"type": "person", "id": "1"})
    );
}

// flask-rest-jsonapi-next's project create (build entry 70) is read back (entry 73) only after
// two task creates naming the project (entries 71, 72), so the read lists tasks the create did
// not make: the later writes naming the project end the create's window (`writes/observe.rs`),
// and the create is learned from its answer (an empty `tasks` linkage), then its projects' lists
// follow the tasks' creates (`inverse.rs`). The person update of entry 61, read back (entry 65)
// after a task update naming the person (entry 63), is learned the same way.

fn create(served: &crate::state_support::Served, tool: &str, body: Value) -> Value {
    let mut arguments = Map::new();
    arguments.insert("body".into(), body);
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 201, "{answer:#}");
    answer["body"]["data"].clone()
}

#[test]
fn a_project_create_read_back_after_tasks_naming_it_is_served_and_lists_them() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    for tool in ["post_projects", "patch_people_by_id"] {
        let plan = crate::state_support::write_plan(&served, tool);
        assert!(plan.served, "{tool}: {:?}", plan.reason);
    }
    let sent = json!({"data": {"type": "project", "attributes": {"name": "Canal Locks", "code": "CNL", "budget": 75}}});
    let project = create(&served, "post_projects", sent);
    assert_eq!(project["id"], "5", "{project:#}");
    assert_eq!(project["relationships"]["tasks"]["data"], json!([]));
    assert_eq!(
        project["relationships"]["tasks"]["links"]["self"],
        "/projects/5/relationships/tasks"
    );
    let sent = json!({"data": {"type": "task", "attributes": {"title": "Seal the gates"},
        "relationships": {"project": {"data": {"type": "project", "id": "5"}}}}});
    let task = create(&served, "post_tasks", sent);
    let (answer, is_error) =
        crate::state_support::call_with_strings(&served, "get_projects_by_id", &[("id", "5")]);
    assert!(!is_error, "{answer:#}");
    let listed = linked_task_ids(&answer);
    assert_eq!(listed, [task["id"].as_str().expect("an id")]);
}

// flask-rest-jsonapi-next's to-many relationship route `POST /projects/{id}/relationships/tasks`
// (build entry 80, adding task 11 to project 4 and answering a message only, read back by entry
// 81) is learned from its one call as the named tasks' `project` linkage set to the project
// (`writes/to_many.rs`); the projects' lists follow (`inverse.rs`). Its `DELETE` sibling (entry
// 83) stays withheld: the capture holds no body of it. No other recorded app writes a to-many
// relationship route (drf-jsonapi and safrs write to-one relationships only).

const TO_MANY: &str = "post_projects_by_project_id_and_segment_2_and_id";

fn project_args(project: &str, segment: &str, name: &str, body: Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("project_id".into(), Value::String(project.into()));
    arguments.insert("segment_2".into(), Value::String(segment.into()));
    arguments.insert("id".into(), Value::String(name.into()));
    arguments.insert("body".into(), body);
    arguments
}

fn project_task_ids(served: &crate::state_support::Served, id: &str) -> Vec<String> {
    let (answer, is_error) =
        crate::state_support::call_with_strings(served, "get_projects_by_id", &[("id", id)]);
    assert!(!is_error, "{answer:#}");
    linked_task_ids(&answer)
}

#[test]
fn a_to_many_route_links_the_named_tasks_to_the_project_and_its_list_follows() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let plan = crate::state_support::write_plan(&served, TO_MANY);
    assert!(plan.served, "{:?}", plan.reason);
    let model = plan.to_many.as_ref().expect("a to-many model");
    assert_eq!(model.identifiers, "/data");
    assert!(model.adds);
    assert_eq!(model.fixed, [(2, "relationships".to_owned())]);
    let link = &model.named["tasks"];
    assert_eq!(link.linkage, "/relationships/project/data");
    let withheld = crate::state_support::write_plan(
        &served,
        "delete_projects_by_project_id_and_segment_2_and_id",
    );
    assert!(!withheld.served);
    // Task 9 (project 4) and task 12 join project 1.
    let before = project_task_ids(&served, "1");
    let sent = json!({"data": [{"type": "task", "id": "12"}, {"type": "task", "id": "9"}]});
    let (answer, is_error) =
        served.call(TO_MANY, project_args("1", "relationships", "tasks", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer["body"]["meta"]["message"],
        "Relationship successfully created"
    );
    for id in ["9", "12"] {
        let project = &tracker_task(&served, id)["relationships"]["project"];
        assert_eq!(
            project["data"],
            json!({"type": "project", "id": "1"}),
            "{project:#}"
        );
        assert_eq!(
            project["links"]["self"],
            format!("/tasks/{id}/relationships/project")
        );
    }
    let mut expected = before.clone();
    expected.extend(["9".to_owned(), "12".to_owned()]);
    assert_eq!(project_task_ids(&served, "1"), expected);
    assert!(!project_task_ids(&served, "4").contains(&"9".to_owned()));
}

#[test]
fn a_to_many_route_refuses_an_unknown_task_segment_relationship_or_a_body_beside() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let before = project_task_ids(&served, "1");
    let task = json!({"data": [{"type": "task", "id": "12"}]});
    for (segment, name, sent) in [
        // One unknown identifier refuses the whole call.
        (
            "relationships",
            "tasks",
            json!({"data": [{"type": "task", "id": "12"}, {"type": "task", "id": "99"}]}),
        ),
        (
            "relationships",
            "tasks",
            json!({"data": [{"type": "person", "id": "1"}]}),
        ),
        ("links", "tasks", task.clone()),
        ("relationships", "members", task.clone()),
        (
            "relationships",
            "tasks",
            json!({"data": [{"type": "task", "id": "12"}], "meta": {}}),
        ),
    ] {
        let (answer, is_error) = served.call(TO_MANY, project_args("1", segment, name, sent));
        assert!(is_error, "{segment}/{name}: {answer:#}");
    }
    let (answer, is_error) =
        served.call(TO_MANY, project_args("42", "relationships", "tasks", task));
    assert!(is_error, "{answer:#}");
    assert_eq!(project_task_ids(&served, "1"), before);
    assert_eq!(
        tracker_task(&served, "12")["relationships"]["project"]["data"],
        Value::Null
    );
}

// The relationship routes' reads (`linkage_routes.rs`): flask-rest-jsonapi-next's
// `/tasks/{id}/{segment_2}/{id}` and `/projects/{id}/{segment_2}/{id}`, each read once by the
// build (entries 37, 38), answer the linkage the state holds, its ids spelled as numbers as the
// reads spelled them, `links.self` the call's path and a to-many's `links.related` the entity's
// own; so they follow the served relationship writes. drf-jsonapi's literal relationship routes
// (`/books/{id}/relationships/author`, `/authors/{id}/relationships/books`, entries 35, 36) are
// learned the same way, their ids spelled as held, and follow its relationship writes too.

fn route_read(served: &crate::state_support::Served, tool: &str, args: &[(&str, &str)]) -> Value {
    let (answer, is_error) = crate::state_support::call_with_strings(served, tool, args);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    answer["body"].clone()
}

#[test]
fn the_relationship_routes_answer_the_held_linkage_and_follow_the_writes() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let task_route = |id: &str, name: &str| {
        let args = [
            ("task_id", id),
            ("segment_2", "relationships"),
            ("id", name),
        ];
        route_read(&served, "get_tasks_by_task_id_and_segment_2_and_id", &args)
    };
    let nobody = task_route("10", "assignee");
    assert_eq!(nobody["data"], Value::Null, "{nobody:#}");
    assert_eq!(nobody["links"]["self"], "/tasks/10/relationships/assignee");
    assert_eq!(
        task_route("7", "project")["data"],
        json!({"id": 3, "type": "project"})
    );
    let project_route = |id: &str| {
        let args = [
            ("project_id", id),
            ("segment_2", "relationships"),
            ("id", "tasks"),
        ];
        route_read(
            &served,
            "get_projects_by_project_id_and_segment_2_and_id",
            &args,
        )
    };
    let listed = project_route("1");
    assert_eq!(
        listed["links"]["related"], "/projects/1/tasks",
        "{listed:#}"
    );
    assert_eq!(listed["links"]["self"], "/projects/1/relationships/tasks");
    // Task 12 joins project 1 through the to-many route: both routes show it.
    let sent = json!({"data": [{"type": "task", "id": "12"}]});
    let (answer, is_error) =
        served.call(TO_MANY, project_args("1", "relationships", "tasks", sent));
    assert!(!is_error, "{answer:#}");
    let ids: Vec<Value> = project_route("1")["data"]
        .as_array()
        .expect("an array")
        .iter()
        .map(|entry| entry["id"].clone())
        .collect();
    assert_eq!(ids, [json!(1), json!(2), json!(3), json!(12)]);
    assert_eq!(
        task_route("12", "project")["data"],
        json!({"id": 1, "type": "project"})
    );
}

#[test]
fn a_second_app_relationship_read_follows_its_relationship_write() {
    let served = serve_corpus_app("drf-jsonapi");
    let books_of = |author: &str| {
        let args = [("author_id", author)];
        route_read(
            &served,
            "get_authors_relationships_books_by_author_id",
            &args,
        )["data"]
            .clone()
    };
    let before = books_of("1");
    // Book 9 credited to author 1 through the to-one route.
    let tool = "patch_books_relationships_author_by_book_id";
    let mut arguments = crate::state_support::with_body(
        &served,
        tool,
        json!({"data": {"type": "Author", "id": "1"}}),
    );
    arguments.insert("book_id".into(), json!("9"));
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{answer:#}");
    let mut expected = before.as_array().expect("an array").clone();
    expected.push(json!({"type": "Book", "id": "9"}));
    assert_eq!(books_of("1"), Value::Array(expected));
    let args = [("book_id", "9")];
    let author = route_read(&served, "get_books_relationships_author_by_book_id", &args);
    assert_eq!(author, json!({"data": {"type": "Author", "id": "1"}}));
    // Both reads are linkage routes (`linkage_routes.rs`), their ids spelled as held.
    let routes: Vec<&str> = (served.state().linkage_routes.iter())
        .map(|route| route.tool.as_str())
        .collect();
    assert_eq!(
        routes,
        [
            "get_books_relationships_author_by_book_id",
            "get_authors_relationships_books_by_author_id"
        ]
    );
}

#[test]
fn a_second_app_to_many_route_answering_no_content_links_the_named_task() {
    // Fortune.js answers its to-many relationship add `204` without a body (build entry 86).
    let served = serve_corpus_app("fortune");
    let plan = crate::state_support::write_plan(&served, TO_MANY);
    assert!(plan.served, "{:?}", plan.reason);
    let model = plan.to_many.as_ref().expect("a to-many model");
    assert_eq!(model.named["tasks"].linkage, "/relationships/project/data");
    let before = project_task_ids(&served, "1");
    assert!(!before.contains(&"12".to_owned()), "{before:?}");
    let sent = json!({"data": [{"type": "tasks", "id": "12"}]});
    let (answer, is_error) =
        served.call(TO_MANY, project_args("1", "relationships", "tasks", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 204, "{answer:#}");
    let project = &tracker_task(&served, "12")["relationships"]["project"]["data"];
    assert_eq!(*project, json!({"type": "projects", "id": "1"}));
    assert_eq!(
        project_task_ids(&served, "1").last(),
        Some(&"12".to_owned())
    );
    // An identifier naming no held task changes nothing.
    let unknown = json!({"data": [{"type": "tasks", "id": "99"}]});
    let (_, is_error) = served.call(
        TO_MANY,
        project_args("2", "relationships", "tasks", unknown),
    );
    assert!(is_error);
    assert!(!project_task_ids(&served, "2").contains(&"99".to_owned()));
}

// Fortune.js's to-one relationship routes answer `204` without a body (build entries 54, 59:
// `PATCH /tasks/{id}/relationships/project` on a created task, `…/assignee` on a seeded one),
// one tool `/tasks/{sibling-variance}/{a}/{b}` taking both id spellings, as the tasks item route
// does (`rea_manifest`'s `below_items.rs`): the parent is placed by the `tasks` collection, so
// `relationships` is kept from both calls; served as the linkage set and answered as recorded,
// the projects' lists following.

const TO_ONE: &str = "patch_tasks_by_task_id_and_segment_2_and_id";

#[test]
fn a_to_one_route_answering_no_content_moves_the_task_between_the_projects_lists() {
    let served = serve_corpus_app("fortune");
    let plan = crate::state_support::write_plan(&served, TO_ONE);
    assert!(plan.served, "{:?}", plan.reason);
    let model = plan.relationship.as_ref().expect("a relationship model");
    assert!(model.linkage && model.answers_as_recorded, "{model:?}");
    assert_eq!(model.fixed, [(2, "relationships".to_owned())]);
    // Task 9 (project 4) moves to project 2 through the route learned on `project`.
    assert!(project_task_ids(&served, "4").contains(&"9".to_owned()));
    let sent = json!({"data": {"type": "projects", "id": "2"}});
    let (answer, is_error) = served.call(TO_ONE, route_args("9", "relationships", "project", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 204, "{answer:#}");
    let project = &tracker_task(&served, "9")["relationships"]["project"];
    assert_eq!(project["data"], json!({"type": "projects", "id": "2"}));
    assert_eq!(project["links"]["self"], "/tasks/9/relationships/project");
    assert!(!project_task_ids(&served, "4").contains(&"9".to_owned()));
    assert!(project_task_ids(&served, "2").contains(&"9".to_owned()));
    // The same route sets another relationship (`assignee`, never recorded on it) of the type
    // its current linkage names.
    let sent = json!({"data": {"type": "people", "id": "2"}});
    let (answer, is_error) =
        served.call(TO_ONE, route_args("9", "relationships", "assignee", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        tracker_task(&served, "9")["relationships"]["assignee"]["data"],
        json!({"type": "people", "id": "2"})
    );
    assert!(person_tasks(&served, "2").contains(&"9".to_owned()));
}

#[test]
fn a_to_one_route_answering_no_content_refuses_an_unknown_identifier_or_segment() {
    let served = serve_corpus_app("fortune");
    let before = tracker_task(&served, "3");
    for (segment, name, sent) in [
        (
            "relationships",
            "assignee",
            json!({"data": {"type": "people", "id": "99"}}),
        ),
        (
            "relationships",
            "assignee",
            json!({"data": {"type": "projects", "id": "1"}}),
        ),
        (
            "links",
            "assignee",
            json!({"data": {"type": "people", "id": "1"}}),
        ),
        (
            "relationships",
            "reviewer",
            json!({"data": {"type": "people", "id": "1"}}),
        ),
    ] {
        let (answer, is_error) = served.call(TO_ONE, route_args("3", segment, name, sent));
        assert!(is_error, "{segment}/{name}: {answer:#}");
    }
    assert_eq!(tracker_task(&served, "3"), before);
}

// Fortune.js's task update of build entry 67 sends `relationships.assignee.data` (the created
// person) and is read back by id only after that person's delete; the filtered list of entry 68
// shows the task whole (every member the held task has), so the update is observed there
// (`writes/observe.rs`) and its `relationships` member is merged member by member as
// flask-rest-jsonapi-next's is (above); the person update of entry 65 is observed by the filtered
// list of entry 66 the same way.

#[test]
fn a_fourth_app_patch_sending_relationships_sets_the_linkage_and_the_lists_follow() {
    let served = serve_corpus_app("fortune");
    for tool in ["patch_tasks_by_id", "patch_people_by_id"] {
        let plan = crate::state_support::write_plan(&served, tool);
        assert!(plan.served, "{tool}: {:?}", plan.reason);
    }
    // Task 4 (Lena's, person 3): done, nobody assigned; its title and project kept.
    let before = tracker_task(&served, "4");
    let sent = json!({"data": {"type": "tasks", "id": "4", "attributes": {"status": "done"},
        "relationships": {"assignee": {"data": null}}}});
    let mut arguments = crate::state_support::with_body(&served, "patch_tasks_by_id", sent);
    arguments.insert("id".into(), json!("4"));
    let (answer, is_error) = served.call("patch_tasks_by_id", arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 204, "{answer:#}");
    let after = tracker_task(&served, "4");
    assert_eq!(after["attributes"]["status"], "done");
    assert_eq!(after["attributes"]["title"], before["attributes"]["title"]);
    assert_eq!(after["relationships"]["assignee"]["data"], Value::Null);
    assert_eq!(
        after["relationships"]["assignee"]["links"],
        before["relationships"]["assignee"]["links"]
    );
    assert_eq!(
        after["relationships"]["project"],
        before["relationships"]["project"]
    );
    assert_eq!(person_tasks(&served, "3"), ["7"]);
    // Assigned to Kofi (person 2) by the same member.
    let sent = json!({"data": {"type": "tasks", "id": "4",
        "relationships": {"assignee": {"data": {"type": "people", "id": "2"}}}}});
    let mut arguments = crate::state_support::with_body(&served, "patch_tasks_by_id", sent);
    arguments.insert("id".into(), json!("4"));
    let (answer, is_error) = served.call("patch_tasks_by_id", arguments);
    assert!(!is_error, "{answer:#}");
    assert!(person_tasks(&served, "2").contains(&"4".to_owned()));
}

// Fortune.js keeps each parent's array and appends a joining child (build entry 60 lists person
// 3's tasks `4, 7, 2` after task 2 joined), though every seeded array happened to list its
// children in id order (`inverse.rs`, `appended`); so the created person's delete (entry 71) is
// confirmed by the people read after it (entry 74) and served, clearing the assignee linkages
// naming the person. flask-rest-jsonapi-next's arrays stay in id order (its reads after writes
// show them so: `a_third_app_relationship_route_sets_the_linkage_and_the_parents_lists_follow`).

#[test]
fn a_fourth_app_appends_a_joining_task_and_a_person_delete_clears_their_tasks() {
    let served = serve_corpus_app("fortune");
    let appended: Vec<&str> = (served.state().appended_lists.iter())
        .map(|list| list.parent_type.as_str())
        .collect();
    assert_eq!(appended, ["/people", "/projects"]);
    let sorted = serve_corpus_app("flask-rest-jsonapi-next");
    assert!(sorted.state().appended_lists.is_empty());
    // Task 1 (Ines's, person 1) passes to Lena (person 3), whose tasks are 4 and 7: last.
    let sent = json!({"data": {"type": "people", "id": "3"}});
    let (answer, is_error) =
        served.call(TO_ONE, route_args("1", "relationships", "assignee", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(person_tasks(&served, "3"), ["4", "7", "1"]);
    // Her delete clears the assignee of the tasks naming her, and only theirs.
    let delete = crate::state_support::write_plan(&served, "delete_people_by_id");
    assert!(delete.served, "{:?}", delete.reason);
    let (answer, is_error) =
        crate::state_support::call_with_strings(&served, "delete_people_by_id", &[("id", "3")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 204, "{answer:#}");
    for id in ["1", "4", "7"] {
        let assignee = &tracker_task(&served, id)["relationships"]["assignee"];
        assert_eq!(assignee["data"], Value::Null, "task {id}: {assignee:#}");
    }
    assert_eq!(
        tracker_task(&served, "8")["relationships"]["assignee"]["data"],
        json!({"type": "people", "id": "1"})
    );
}
