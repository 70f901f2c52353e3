//! Relationship identifiers read as the field they name (issue 12): a JSON:API resource holds a
//! to-one relationship as `relationships.<rel>` = `{links, data: {type, id}}` (or `data: null`),
//! and the application's filters (`filter[author]=3`, `filter[borrower.isnull]=true`) and related
//! routes (`/authors/{id}/books/`, `/members/{id}/loans/`) compare that identifier
//! (`query::relation_identifier`). drf-jsonapi is the app showing it; the related routes are
//! answered for any parent as safrs's are (`/api/projects/{id}/tasks`, a folder-tree tool whose children holding the
//! parent's id as a plain attribute), and through the same `ParentSegment`, which now also finds
//! members listed from an item path (`/books/4/`) and a list path (`/books/`) as one collection.
//! The third JSON:API app, flask-rest-jsonapi-next, names the identifier through the related
//! resource (`filter[assignee.id]`) and filters and sorts by related attributes with SQLite's
//! nulls first (`joins::linkage_joins`, `QueryModel::nulls_first`). The fourth, Fortune.js
//! (fortune-json-api), filters by the bare identifier as drf-jsonapi does (`filter[project]=1`,
//! a comma list `filter[assignee]=2,4`), its resources' `type` the collection's plural, its
//! related routes' `links.self` the called path (`path_echo.rs`).

use serde_json::{Value, json};

use crate::state_support::{call_with_strings, serve_corpus_app, with_body};

/// The ids of a JSON:API list answer's resources, in order.
fn listed_ids(answer: &Value) -> Vec<String> {
    answer["body"]["data"]
        .as_array()
        .unwrap_or_else(|| panic!("a list: {answer:#}"))
        .iter()
        .filter_map(|resource| resource["id"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_filter_on_a_relationship_compares_the_identifier_it_names() {
    let served = serve_corpus_app("drf-jsonapi");
    // build.har filtered by authors 2 and 1 (entries 5, 43); author 3 was never asked for.
    let (answer, is_error) = call_with_strings(&served, "get_books", &[("filter[author]", "3")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
    assert_eq!(listed_ids(&answer), ["7", "8"]);
    assert_eq!(answer["body"]["meta"]["pagination"]["count"], 2);
    // A null linkage is what `isnull` tests (entry 10 asked for `true` only).
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books",
        &[("filter[borrower.isnull]", "false")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["1", "4", "7", "10"]);
}

#[test]
fn a_related_route_lists_the_children_whose_linkage_names_any_parent() {
    let served = serve_corpus_app("drf-jsonapi");
    // Recorded for author 2 and member 1 only (entries 33, 34).
    let (answer, is_error) = call_with_strings(
        &served,
        "get_authors_books_by_author_id",
        &[("author_id", "3")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["7", "8"]);
    let (answer, is_error) = call_with_strings(
        &served,
        "get_members_loans_by_member_id",
        &[("member_id", "3")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["10"]);
    // A served create naming author 3 is listed under it (the state, not a recording).
    let book = json!({"data": {"type": "Book", "attributes": {"title": "Fledgling", "isbn": "978-0446696166", "status": "available", "pages": 310, "rating": 4}, "relationships": {"author": {"data": {"type": "Author", "id": "3"}}}}});
    let (created, is_error) = served.call("post_books", with_body(&served, "post_books", book));
    assert!(!is_error, "{created:#}");
    let id = created["body"]["data"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let (answer, _) = call_with_strings(
        &served,
        "get_authors_books_by_author_id",
        &[("author_id", "3")],
    );
    assert_eq!(listed_ids(&answer), ["7".to_owned(), "8".to_owned(), id]);
}

#[test]
fn safrs_related_route_answers_any_parent_through_the_same_parent_segment() {
    let served = serve_corpus_app("safrs");
    // Recorded for projects 2 and 4 (entries 27, 34, 46, 50); project 1 never.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_projects_by_project_id_and_id",
        &[("project_id", "1"), ("id", "tasks")],
    );
    assert!(!is_error, "{answer:#}");
    let ids = listed_ids(&answer);
    assert!(!ids.is_empty(), "{answer:#}");
    for task in answer["body"]["data"].as_array().expect("a list") {
        assert_eq!(task["attributes"]["project_id"], 1, "{task:#}");
    }
}

#[test]
fn a_filter_and_a_sort_through_a_relationship_read_the_linked_resource() {
    let served = serve_corpus_app("drf-jsonapi");
    // build.har filtered by Octavia E. Butler (entry 9) and sorted by `author.name,title`
    // (entry 16); the linkage `{type: Author, id}` is a part of one held author.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books",
        &[("filter[author.name]", "Italo Calvino")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["9", "10"]);
    let (answer, is_error) =
        call_with_strings(&served, "get_books", &[("sort", "-author.name,title")]);
    assert!(!is_error, "{answer:#}");
    // Authors by name descending: Ursula K. Le Guin (1), Stanisław Lem (2), Octavia E. Butler
    // (3), Italo Calvino (4); each one's books by title.
    assert_eq!(
        listed_ids(&answer),
        ["3", "2", "1", "6", "4", "5", "7", "8", "10", "9"]
    );
}

// The third JSON:API app, flask-rest-jsonapi-next (`tests/corpus/apps/flask-rest-jsonapi-next/`):
// its filters name a relationship's id through the related resource (`filter[assignee.id]=3`)
// and related attributes (`filter[project.code]=ORC`), its sorts a related attribute with
// SQLite's nulls first (`sort=assignee.name`), and every list answer's `links.self` repeats the
// call (`query_echo.rs`).

#[test]
fn a_third_app_filters_by_a_relationship_id_through_the_related_resource() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    // build.har filtered by assignees 3 and 1 and project 1 (entries 5-7); Dana (4) and
    // project 3 never.
    let (answer, is_error) =
        call_with_strings(&served, "get_tasks", &[("filter[assignee.id]", "4")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
    assert_eq!(listed_ids(&answer), ["2", "6", "11"]);
    assert_eq!(answer["body"]["meta"]["count"], 3);
    assert_eq!(
        answer["body"]["links"]["self"],
        "http://127.0.0.1:18855/tasks?filter%5Bassignee.id%5D=4"
    );
    let (answer, is_error) =
        call_with_strings(&served, "get_tasks", &[("filter[project.id]", "3")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["7", "8"]);
}

#[test]
fn a_third_app_filters_and_sorts_by_a_related_attribute_nulls_first() {
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    // build.har filtered by the code ORC (entry 8) and sorted by `project.name,title` (entry 18,
    // whose tasks without a project came first: SQLite's NULL order).
    let (answer, is_error) =
        call_with_strings(&served, "get_tasks", &[("filter[project.code]", "QRY")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["9", "10"]);
    let (answer, is_error) =
        call_with_strings(&served, "get_tasks", &[("sort", "assignee.name,title")]);
    assert!(!is_error, "{answer:#}");
    // Unassigned first (Drill test cores, Paint the railings), then Amara's, Bruno's, Chen's
    // and Dana's tasks, each by title.
    assert_eq!(
        listed_ids(&answer),
        [
            "10", "3", "9", "7", "1", "12", "4", "5", "8", "2", "11", "6"
        ]
    );
    let (answer, is_error) =
        call_with_strings(&served, "get_tasks", &[("sort", "-project.name,title")]);
    assert!(!is_error, "{answer:#}");
    // Descending, the tasks without a project last.
    assert_eq!(
        listed_ids(&answer),
        [
            "10", "9", "5", "4", "6", "8", "7", "2", "3", "1", "12", "11"
        ]
    );
}

// The fourth JSON:API app, Fortune.js with fortune-json-api (`tests/corpus/apps/fortune/`): a
// link field's bare identifier is its filter (`filter[project]=1`, `filter[assignee]=2,4`, build
// entries 5-8), compared with the linkage `{type: "projects", id}` as drf-jsonapi's
// `filter[author]`; every list answer's relative `links.self` repeats the call.

#[test]
fn a_fourth_app_filters_by_the_bare_relationship_identifier() {
    let served = serve_corpus_app("fortune");
    // build.har filtered by assignees 3, 2 and 4 together, and 1 with a status (entries 6-8);
    // Marco (4) alone and project 3 never.
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("filter[assignee]", "4")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
    assert_eq!(listed_ids(&answer), ["2", "10", "12"]);
    assert_eq!(answer["body"]["meta"]["count"], 3);
    assert_eq!(
        answer["body"]["links"]["self"],
        "/tasks?filter%5Bassignee%5D=4"
    );
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("filter[project]", "3")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["7", "8"]);
    // A comma list of identifiers is `in`; a second filter narrows.
    let (answer, is_error) =
        call_with_strings(&served, "get_tasks", &[("filter[assignee]", "1,3")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["1", "4", "7", "8", "9"]);
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks",
        &[("filter[project]", "2"), ("filter[status]", "todo")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["6"]);
    // An identifier no task's linkage names matches none (project 9 does not exist).
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("filter[project]", "9")]);
    assert!(!is_error, "{answer:#}");
    assert!(listed_ids(&answer).is_empty(), "{answer:#}");
    assert_eq!(answer["body"]["meta"]["count"], 0);
}

#[test]
fn a_fourth_app_related_route_names_the_called_parent_in_its_self_link() {
    let served = serve_corpus_app("fortune");
    // Recorded for projects 2 and 1 (entries 37, 50) and people 1 and 3 (entries 38, 60), each
    // answer's `links.self` its own path (`path_echo.rs`); project 3 and Marco (4) never.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_projects_by_project_id_and_id",
        &[("project_id", "3"), ("id", "tasks")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["7", "8"]);
    assert_eq!(answer["body"]["links"]["self"], "/projects/3/tasks");
    let (answer, is_error) = call_with_strings(
        &served,
        "get_people_by_people_id_and_id",
        &[("people_id", "4"), ("id", "tasks")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(listed_ids(&answer), ["2", "10", "12"]);
    assert_eq!(answer["body"]["links"]["self"], "/people/4/tasks");
    // A served create naming project 3 is listed under it, and by the identifier filter.
    let task = json!({"data": {"type": "tasks", "attributes": {"title": "Oil the levers"}, "relationships": {"project": {"data": {"type": "projects", "id": "3"}}, "assignee": {"data": {"type": "people", "id": "2"}}}}});
    let (created, is_error) = served.call("post_tasks", with_body(&served, "post_tasks", task));
    assert!(!is_error, "{created:#}");
    let id = created["body"]["data"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let (answer, _) = call_with_strings(
        &served,
        "get_projects_by_project_id_and_id",
        &[("project_id", "3"), ("id", "tasks")],
    );
    assert_eq!(
        listed_ids(&answer),
        ["7".to_owned(), "8".to_owned(), id.clone()]
    );
    assert_eq!(answer["body"]["links"]["self"], "/projects/3/tasks");
    let (answer, _) = call_with_strings(&served, "get_tasks", &[("filter[project]", "3")]);
    assert_eq!(listed_ids(&answer), ["7".to_owned(), "8".to_owned(), id]);
}
