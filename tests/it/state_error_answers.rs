//! Error answers the recording showed, instead of refusing the call (issue 12): a call failing a
//! check the build's recording showed the application make answers the application's recorded
//! error with the names substituted, and the input schema admits such calls.
//!
//! - A list filter or sort naming a field the listed entities do not hold
//!   (`rea_state::query_refusals`): two apps, drf-jsonapi (`filter[colour]` and `sort=colour`
//!   answered 400 in build entries 39, 40) and flask-rest-jsonapi-next (entries 41, 42); each
//!   answer is compared with the one the live application gave the probe (`filter[weight]`,
//!   `sort=-weight`).
//! - A write member sent with a value of another JSON type (`writes::type_refusal`): one app,
//!   parse-server (build entry 50, `priority: "high"`), answered for a create's `estimate` and an
//!   update's `done` as the live application answered the probe.
//!
//! The input schema admits such calls. Beside them, an update no longer requires a member a
//! successful create of its type left out (`writes::update_required`): json-server, whose one
//! recorded `PUT /posts/5` sent every member while its `POST /posts {"title"}` stored a post with
//! the title alone (and dynamic-rest's merging `PUT`, `tests/it/state_dynamic_rest.rs`).

use serde_json::{Map, Value, json};

use crate::state_support::{
    Served, call_with_strings, id_arguments, input_schema, live_answer, serve_corpus_app, with_body,
};

/// Whether the schema the MCP server checks admits the arguments.
fn admits(schema: &Map<String, Value>, arguments: &Map<String, Value>) -> bool {
    rea_serve::arguments::check(schema, arguments).is_ok()
}

/// Asserts a served answer is the live application's: its status and body.
fn assert_live(answer: &Value, (status, body): (u64, Value)) {
    assert_eq!(answer["status"], json!(status), "{answer:#}");
    assert_eq!(answer["body"], body, "{answer:#}");
}

#[test]
fn a_filter_naming_no_held_field_answers_the_recorded_refusal_on_two_apps() {
    for (app, tool, entry) in [
        ("drf-jsonapi", "get_books", 51),
        ("flask-rest-jsonapi-next", "get_tasks", 56),
    ] {
        let served = serve_corpus_app(app);
        let schema = input_schema(&served, tool);
        let filter = |name: &str, value: Value| Map::from_iter([(name.to_owned(), value)]);
        assert!(
            admits(&schema, &filter("filter[weight]", json!("1"))),
            "{app}"
        );
        // The family admits plain words between the recorded prefix and suffix only.
        assert!(
            !admits(&schema, &filter("filters[weight]", json!("1"))),
            "{app}"
        );
        assert!(
            !admits(&schema, &filter("filter[weight", json!("1"))),
            "{app}"
        );
        let (answer, is_error) = call_with_strings(&served, tool, &[("filter[weight]", "1")]);
        assert!(!is_error, "{app}: {answer:#}");
        assert_live(&answer, live_answer(app, "probe-reads", entry));
        // A filter on a held field still answers from the state.
        let (answer, is_error) = call_with_strings(&served, tool, &[("filter[status]", "done")]);
        assert!(!is_error, "{app}: {answer:#}");
        assert_eq!(answer["status"], json!(200), "{app}: {answer:#}");
    }
    // A refusal naming its list's type (`TaskSchema has no attribute colour`) is that list's:
    // the projects' list is not lent it (dynamic-rest's, naming none, is lent to its siblings:
    // `state_dynamic_rest.rs`).
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let (answer, _) = call_with_strings(&served, "get_projects", &[("filter[weight]", "1")]);
    assert_ne!(
        answer.pointer("/state/view").and_then(Value::as_str),
        Some("query-refused"),
        "{answer:#}"
    );
    assert!(!answer.to_string().contains("TaskSchema"), "{answer:#}");
}

#[test]
fn a_filter_the_family_spans_keeps_its_recorded_type() {
    // The family's pattern spans the recorded filters too (JSON Schema checks a named argument
    // against a pattern it matches): an id filter sent as the integer its schema types is admitted.
    let served = serve_corpus_app("drf-jsonapi");
    let schema = input_schema(&served, "get_books");
    let arguments = Map::from_iter([("filter[author]".to_owned(), json!(3))]);
    assert!(admits(&schema, &arguments), "{schema:#?}");
}

#[test]
fn a_sort_naming_no_held_field_answers_the_recorded_refusal() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("sort", "-weight")]);
    assert!(!is_error, "{answer:#}");
    assert_live(
        &answer,
        live_answer("flask-rest-jsonapi-next", "probe-reads", 57),
    );
    let schema = input_schema(&served, "get_tasks");
    let described = schema["properties"]["sort"]["description"]
        .as_str()
        .expect("a description");
    assert!(
        described.contains("a field the listed entities do not hold answers"),
        "{described}"
    );
    // Held fields, and a term that is no plain word, sort as before.
    for sort in ["-priority,title", "project.name,title"] {
        let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("sort", sort)]);
        assert!(!is_error, "{sort}: {answer:#}");
        assert_eq!(answer["status"], json!(200), "{sort}: {answer:#}");
    }
}

const TASKS: &str = "get_parse_classes_task";
const CREATE_TASK: &str = "post_parse_classes_task";
const UPDATE_TASK: &str = "put_parse_classes_task_by_object_id";

/// How many tasks the served list shows.
fn task_count(served: &Served) -> usize {
    let (answer, is_error) = served.call(TASKS, Map::new());
    assert!(!is_error, "{answer:#}");
    answer["body"]["results"]
        .as_array()
        .expect("a results array")
        .len()
}

#[test]
fn a_member_of_another_type_answers_the_recorded_type_error() {
    let served = serve_corpus_app("parse-server");
    let before = task_count(&served);
    // A create sending a string where the creates sent a number, leaving out the members every
    // recorded create sent: the schema admits it, the application's 400 answers it.
    let body = json!({"title": "Bad estimate", "estimate": "lots"});
    let arguments = with_body(&served, CREATE_TASK, body);
    assert!(admits(&input_schema(&served, CREATE_TASK), &arguments));
    let (answer, is_error) = served.call(CREATE_TASK, arguments);
    assert!(!is_error, "{answer:#}");
    assert_live(&answer, live_answer("parse-server", "probe-crud", 32));
    // An update sending a number where the updates sent a boolean: the type names are renamed
    // at once (the recorded `Number` becomes `Boolean` while `String` becomes `Number`).
    let mut arguments = with_body(&served, UPDATE_TASK, json!({"done": 1}));
    arguments.insert("objectId".to_owned(), json!("tskAtl0001"));
    let (answer, is_error) = served.call(UPDATE_TASK, arguments);
    assert!(!is_error, "{answer:#}");
    assert_live(&answer, live_answer("parse-server", "probe-crud", 33));
    assert_eq!(
        task_count(&served),
        before,
        "a refused write changes nothing"
    );
}

#[test]
fn a_well_typed_body_is_checked_as_before() {
    let served = serve_corpus_app("parse-server");
    let schema = input_schema(&served, CREATE_TASK);
    let body = &schema["properties"]["body"];
    assert!(
        body["description"]
            .as_str()
            .is_some_and(|text| text.contains("answers the application's recorded type error")),
        "{body:#}"
    );
    // The members every recorded create sent are no longer required by the schema; the state
    // still refuses a body leaving one out (and sending nothing mistyped).
    let (answer, is_error) = served.call(
        CREATE_TASK,
        with_body(&served, CREATE_TASK, json!({"title": "Only a title"})),
    );
    assert!(is_error, "{answer:#}");
    let code = answer
        .pointer("/error/code")
        .or_else(|| answer.get("code"))
        .and_then(Value::as_str);
    assert_eq!(code, Some("invalid_arguments"), "{answer:#}");
}

#[test]
fn a_replacing_update_requires_only_what_the_creates_required() {
    const REPLACE_POST: &str = "put_posts_by_id";
    let served = serve_corpus_app("json-server");
    let schema = input_schema(&served, REPLACE_POST);
    assert_eq!(
        schema["properties"]["body"]["required"],
        json!(["title"]),
        "{schema:#?}"
    );
    let mut arguments = id_arguments(&served, REPLACE_POST, "3");
    arguments.extend(with_body(
        &served,
        REPLACE_POST,
        json!({"title": "Relations, rewritten"}),
    ));
    assert!(admits(&schema, &arguments));
    let (answer, is_error) = served.call(REPLACE_POST, arguments);
    assert!(!is_error, "{answer:#}");
    assert_live(&answer, live_answer("json-server", "probe-crud", 20));
    let (answer, is_error) = served.call(
        "get_posts_by_id",
        id_arguments(&served, "get_posts_by_id", "3"),
    );
    assert!(!is_error, "{answer:#}");
    assert_live(&answer, live_answer("json-server", "probe-crud", 21));
    // A member every create sent stays required.
    let mut arguments = id_arguments(&served, REPLACE_POST, "3");
    arguments.extend(with_body(&served, REPLACE_POST, json!({"author": "erin"})));
    assert!(!admits(&schema, &arguments));
}
