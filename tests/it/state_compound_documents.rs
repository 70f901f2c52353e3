//! Compound documents (issue 12, relation-list): `include=<rel>[,<rel>]` on the lists and items
//! of the two JSON:API apps of the corpus, answered from the state (`compound.rs`): the plain
//! answer plus a top-level `included` holding the related resources the shown resources'
//! `relationships.<rel>.data` name, as their own entities hold them. drf-jsonapi holds every
//! linkage on the entity; safrs fills it only for the included relationships, computed from the
//! key property (`compound_keys.rs`: `attributes.project_id` to one, the tasks naming the project
//! to many, with the `meta` counts of the filled relationship). safrs's item envelopes echo a
//! call with a query in `links.related` (`request_echo.rs`). The to-one related routes
//! (`/books/{id}/author/`, `/api/tasks/{id}/{rel}`) answer the resource the live linkage names,
//! in the route's recorded envelope (`related_routes.rs`).

use serde_json::{Value, json};

use crate::state_support::{assert_not_modelled, call_with_strings, serve_corpus_app, with_body};

/// The `(type, id)` of each resource of an array.
fn identities(resources: &Value) -> Vec<(String, String)> {
    resources
        .as_array()
        .expect("an array")
        .iter()
        .map(|resource| {
            (
                resource["type"].as_str().expect("a type").to_owned(),
                resource["id"].as_str().expect("an id").to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(kind, id)| ((*kind).to_owned(), (*id).to_owned()))
        .collect()
}

#[test]
fn drf_lists_include_the_related_resources_with_their_page_links() {
    let served = serve_corpus_app("drf-jsonapi");
    // A combination the build never sent (entries 24-25 sent `include=author[,borrower]`).
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books",
        &[
            ("include", "borrower"),
            ("sort", "title"),
            ("page[limit]", "3"),
        ],
    );
    assert!(!is_error, "{answer:#}");
    let body = &answer["body"];
    assert_eq!(
        identities(&body["data"]),
        pairs(&[("Book", "3"), ("Book", "6"), ("Book", "10")])
    );
    // Books 3 and 6 have no borrower: only book 10's member is included, as its list shows it.
    assert_eq!(identities(&body["included"]), pairs(&[("Member", "3")]));
    let (members, _) = call_with_strings(&served, "get_members", &[]);
    let member = members["body"]["data"]
        .as_array()
        .expect("members")
        .iter()
        .find(|member| member["id"] == "3")
        .expect("member 3");
    assert_eq!(body["included"][0], *member);
    // The page links spell the include parameter, in the list's learned form.
    let origin = "http://127.0.0.1:18853/books/";
    assert_eq!(
        body["links"]["next"],
        format!("{origin}?include=borrower&page%5Blimit%5D=3&page%5Boffset%5D=3&sort=title")
    );
}

#[test]
fn drf_items_take_the_offered_include_in_the_order_named() {
    let served = serve_corpus_app("drf-jsonapi");
    // The book item never took `include` in the build: the state catalog offers it.
    let tools = rea_serve::ToolBackend::tools(served.backend.as_ref());
    let item = tools
        .iter()
        .find(|tool| tool.name == "get_books_by_book_id")
        .expect("the book item tool");
    let description = item.input_schema["properties"]["include"]["description"]
        .as_str()
        .expect("an offered include");
    assert!(description.contains("author, borrower"), "{description}");
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books_by_book_id",
        &[("book_id", "7"), ("include", "borrower,author")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        identities(&answer["body"]["included"]),
        pairs(&[("Member", "1"), ("Author", "3")])
    );
    // To many: author 3's books, first-seen over the linkage.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_authors_by_author_id",
        &[("author_id", "3"), ("include", "books")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        identities(&answer["body"]["included"]),
        pairs(&[("Book", "7"), ("Book", "8")])
    );
    // A relationship the entities do not hold is refused, not answered without it.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books_by_book_id",
        &[("book_id", "7"), ("include", "publisher")],
    );
    assert_not_modelled(&answer, is_error);
}

#[test]
fn safrs_fills_the_keyed_linkage_of_the_included_relationship_only() {
    let served = serve_corpus_app("safrs");
    let (answer, is_error) = call_with_strings(
        &served,
        "get_api_tasks",
        &[("include", "project"), ("filter[project_id]", "3")],
    );
    assert!(!is_error, "{answer:#}");
    let body = &answer["body"];
    for task in body["data"].as_array().expect("tasks") {
        assert_eq!(
            task["relationships"]["project"]["data"],
            json!({"id": "3", "type": "Project"}),
            "{task:#}"
        );
        assert_eq!(task["relationships"]["assignee"]["data"], Value::Null);
    }
    assert_eq!(identities(&body["included"]), pairs(&[("Project", "3")]));
    // The included project in its plain form: its own relationships not filled.
    assert_eq!(
        body["included"][0]["relationships"]["tasks"]["data"],
        json!([])
    );
}

#[test]
fn safrs_items_include_the_live_referrers_with_their_counts_and_echo_the_call() {
    let served = serve_corpus_app("safrs");
    let include = |served| {
        let (answer, is_error) = call_with_strings(
            served,
            "get_projects_by_id",
            &[("id", "2"), ("include", "tasks")],
        );
        assert!(!is_error, "{answer:#}");
        answer["body"].clone()
    };
    let body = include(&served);
    let tasks = &body["data"]["relationships"]["tasks"];
    assert_eq!(
        identities(&tasks["data"]),
        pairs(&[("Task", "4"), ("Task", "5"), ("Task", "6")])
    );
    assert_eq!(tasks["meta"], json!({"count": 3, "limit": 250, "total": 3}));
    assert_eq!(identities(&body["included"]), identities(&tasks["data"]));
    assert_eq!(body["links"]["related"], "/api/projects/2?include=tasks");
    // A task created in project 2 is linked and included from then on.
    let task = json!({"data": {"type": "Task", "attributes": {"title": "Write the changelog", "status": "todo", "priority": 2, "estimate": 1, "project_id": 2}}});
    let (created, is_error) = served.call("post_tasks", with_body(&served, "post_tasks", task));
    assert!(!is_error, "{created:#}");
    let id = created["body"]["data"]["id"].as_str().expect("an id");
    let body = include(&served);
    let tasks = &body["data"]["relationships"]["tasks"];
    assert_eq!(tasks["data"].as_array().expect("linkage").len(), 4);
    assert_eq!(tasks["data"][3]["id"], id);
    assert_eq!(tasks["meta"]["count"], 4);
    assert_eq!(
        body["included"][3]["attributes"]["title"],
        "Write the changelog"
    );
}

#[test]
fn drf_to_one_related_routes_answer_the_linked_resource_for_any_book() {
    let served = serve_corpus_app("drf-jsonapi");
    // Entries 31-32 read `/books/4/author/` and `/books/4/borrower/` only.
    let (answer, is_error) =
        call_with_strings(&served, "get_books_author_by_book_id", &[("book_id", "9")]);
    assert!(!is_error, "{answer:#}");
    let (item, _) = call_with_strings(&served, "get_authors_by_author_id", &[("author_id", "4")]);
    assert_eq!(answer["body"], item["body"], "{answer:#}");
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books_borrower_by_book_id",
        &[("book_id", "7")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        identities(&json!([answer["body"]["data"]])),
        pairs(&[("Member", "1")])
    );
    // Book 3 has no borrower: its empty linkage answers `null` where the resource sits, as the
    // live application answered probe-reads 43 (the build never read an empty one).
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books_borrower_by_book_id",
        &[("book_id", "3")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["body"], json!({"data": null}), "{answer:#}");
    // A book the state does not hold is not answered.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books_borrower_by_book_id",
        &[("book_id", "99")],
    );
    assert_not_modelled(&answer, is_error);
}

#[test]
fn safrs_to_one_related_routes_mint_their_links_from_the_call_and_the_resource() {
    let served = serve_corpus_app("safrs");
    // The relationship is a path segment (`/api/tasks/{task_id}/{id}`): entries 25-26 read
    // task 4's project and assignee.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks_by_task_id_and_id",
        &[("task_id", "9"), ("id", "project")],
    );
    assert!(!is_error, "{answer:#}");
    let body = &answer["body"];
    assert_eq!(
        identities(&json!([body["data"]])),
        pairs(&[("Project", "3")])
    );
    assert_eq!(
        body["links"],
        json!({"related": "/api/projects/3/", "self": "http://127.0.0.1:18851/api/tasks/9/project"})
    );
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks_by_task_id_and_id",
        &[("task_id", "1"), ("id", "assignee")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        identities(&json!([answer["body"]["data"]])),
        pairs(&[("User", "3")])
    );
}
