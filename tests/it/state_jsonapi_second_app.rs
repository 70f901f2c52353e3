//! Create rules and refusals learned on the second JSON:API app of the corpus (issue 12),
//! drf-jsonapi (Django REST framework JSON:API, `tests/corpus/apps/drf-jsonapi/`): a taken value
//! nested in the sent object is a create conflict (`writes/conflict.rs`: the member's `email`
//! under `attributes`, refused 400 as build.har's entry 73 shows), and a `type` other than the
//! collection's answers the refusal another create tool met, renamed
//! (`writes/constant_refusal.rs`: learned from the book create's 409 of entry 74, answered for
//! the member create). The author create is served with the links nested below the top level
//! (`links.self`, the relationship's `links`) composed from the generated id, and the book create
//! learns its defaults nested under `attributes` (though withheld for its relationship links).
//! safrs is the first app of these rules (`state_nested_creates`: `attributes.code`,
//! `Task != User`, the task create's links). The books list learns what no other app showed:
//! lookups after a dot in the brackets (`filter[rating.gte]`), a filter kept though a line pairs
//! it with an unexplained one, counters two levels deep (`meta.pagination`) and page links that
//! re-encode the whole query in name order (`page_cursor.rs`), which it lends the authors and
//! members lists, whose own lines never paged (`derive/sibling_pages.rs`; safrs's users borrow
//! its tasks' form, `state_jsonapi_queries`). A sparse fieldset (`fields[Book]=title,status`,
//! entry 17) leaves out the relationships it does not name (`sparse.rs`; safrs keeps them), on
//! the books list, its siblings and the items. Relationship writes: a `PATCH` sending
//! `relationships.borrower.data` merges member by member, the relationship's `links` and the
//! unsent `author` kept (`writes/merged.rs::deep_merge`); the literal routes
//! `/books/{id}/relationships/{author,borrower}` set the book's linkage object and answer the
//! identifier (`writes/relationship.rs`, safrs's parameter route the first app:
//! `state_relationship_writes`); the parents' to-many `relationships.books` / `.loans` follow the
//! linkages with their counts (`inverse.rs`); a member's delete clears the linkages naming it
//! (`data: null`, `writes/dependents.rs`; safrs clears `attributes.assignee_id`), and the delete
//! and the `PATCH` of a missing id answer the build's 404.

use serde_json::{Value, json};

use crate::state_support::{call_with_strings, serve_corpus_app, with_body, write_plan as plan};

#[test]
fn a_taken_email_nested_in_the_sent_member_is_refused_and_a_fresh_one_created() {
    let served = serve_corpus_app("drf-jsonapi");
    let create = plan(&served, "post_members");
    assert!(create.served, "{:?}", create.reason);
    let conflicts: Vec<&str> = create
        .conflicts
        .iter()
        .map(|conflict| conflict.member.as_str())
        .collect();
    assert_eq!(conflicts, ["/attributes/email"]);
    let taken = json!({"data": {"type": "Member", "attributes": {"name": "Noor Again", "email": "noor@example.test"}}});
    let (answer, _) = served.call("post_members", with_body(&served, "post_members", taken));
    assert_eq!(answer["status"], 400, "{answer:#}");
    assert_eq!(
        answer["body"]["errors"][0]["source"]["pointer"], "/data/attributes/email",
        "{answer:#}"
    );
    let fresh = json!({"data": {"type": "Member", "attributes": {"name": "Rae Kim", "email": "rae@example.test"}}});
    let (answer, is_error) = served.call("post_members", with_body(&served, "post_members", fresh));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 201, "{answer:#}");
    assert_eq!(
        answer["body"]["data"]["attributes"]["email"],
        "rae@example.test"
    );
}

#[test]
fn a_type_other_than_the_members_is_refused_naming_both() {
    let served = serve_corpus_app("drf-jsonapi");
    // Learned from the book create's refusal (entry 74, `Author` sent to `/books/`).
    let wrong = json!({"data": {"type": "Book", "attributes": {"name": "Rae"}}});
    let (answer, _) = served.call("post_members", with_body(&served, "post_members", wrong));
    assert_eq!(answer["status"], 409, "{answer:#}");
    let detail = answer["body"]["errors"][0]["detail"]
        .as_str()
        .expect("a detail");
    assert!(
        detail.starts_with("The resource object's type (Book) is not the type")
            && detail.ends_with("the endpoint (Member)."),
        "{detail}"
    );
}

#[test]
fn the_author_create_is_served_with_links_composed_from_the_id_below_the_top_level() {
    let served = serve_corpus_app("drf-jsonapi");
    let create = plan(&served, "post_authors");
    assert!(create.served, "{:?}", create.reason);
    let composed = create
        .rules
        .iter()
        .find(|rule| rule.stage == "composed")
        .expect("a composed rule");
    for member in ["/links/self", "/relationships/books/links/self"] {
        assert!(composed.explains.contains(&member.to_owned()), "{member}");
    }
    let sent = json!({"data": {"type": "Author", "attributes": {"name": "Rae Kim", "country": "KR", "born": 1980}}});
    let (answer, is_error) = served.call("post_authors", with_body(&served, "post_authors", sent));
    assert!(!is_error, "{answer:#}");
    let data = &answer["body"]["data"];
    let id = data["id"].as_str().expect("an id");
    assert_eq!(
        data["attributes"],
        json!({"name": "Rae Kim", "country": "KR", "born": 1980})
    );
    let base = "http://127.0.0.1:18853/authors";
    assert_eq!(data["links"]["self"], format!("{base}/{id}/"));
    assert_eq!(
        data["relationships"]["books"]["links"]["related"],
        format!("{base}/{id}/books/")
    );
    assert_eq!(data["relationships"]["books"]["data"], json!([]));
}

#[test]
fn the_book_create_learns_its_nested_defaults_though_withheld() {
    let served = serve_corpus_app("drf-jsonapi");
    // Entry 57 sent no status or rating; entry 41 sent both.
    let create = plan(&served, "post_books");
    let fields = create.fields.as_ref().expect("a field model");
    assert_eq!(
        fields.nested_constants.get("/attributes/status"),
        Some(&rea_plugin_api::json::Json::String("available".into()))
    );
    assert!(fields.nested_constants.contains_key("/attributes/rating"));
}

#[test]
fn the_books_list_learns_its_filters_lookups_and_page_links_in_name_order() {
    let served = serve_corpus_app("drf-jsonapi");
    // `filter[status]` is kept though entry 6 pairs it with an unexplained relationship filter;
    // `filter[rating.gte]` (entry 7) completes the dotted lookups to `filter[pages.lt]`.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books",
        &[("filter[pages.lt]", "200"), ("page[limit]", "2")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
    let body = &answer["body"];
    let ids: Vec<&str> = body["data"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|book| book["id"].as_str())
        .collect();
    assert_eq!(ids, ["3", "6"], "{body:#}");
    // Counters two levels deep, computed per call.
    assert_eq!(
        body["meta"]["pagination"],
        json!({"count": 3, "limit": 2, "offset": 0})
    );
    // The links re-encode the whole query in name order, `first` leaving the offset out and a
    // relation the page lacks `null`.
    let origin = "http://127.0.0.1:18853/books/";
    let q = "filter%5Bpages.lt%5D=200&page%5Blimit%5D=2";
    assert_eq!(
        body["links"],
        json!({
            "first": format!("{origin}?{q}"),
            "last": format!("{origin}?{q}&page%5Boffset%5D=2"),
            "next": format!("{origin}?{q}&page%5Boffset%5D=2"),
            "prev": null
        })
    );
}

#[test]
fn the_book_create_sending_a_relationship_is_served_with_the_links_beside_it() {
    let served = serve_corpus_app("drf-jsonapi");
    let create = plan(&served, "post_books");
    assert!(create.served, "{:?}", create.reason);
    let book = json!({"data": {"type": "Book", "attributes": {"title": "Kindred", "isbn": "978-0807083697x", "status": "available", "pages": 264, "rating": 5}, "relationships": {"author": {"data": {"type": "Author", "id": "3"}}}}});
    let (answer, is_error) = served.call("post_books", with_body(&served, "post_books", book));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 201, "{answer:#}");
    let data = &answer["body"]["data"];
    let id = data["id"].as_str().expect("an id");
    let origin = "http://127.0.0.1:18853/books/";
    // The sent linkage kept, its links and the unsent relationship's composed from the new id.
    assert_eq!(
        data["relationships"]["author"],
        json!({
            "links": {
                "self": format!("{origin}{id}/relationships/author"),
                "related": format!("{origin}{id}/author/")
            },
            "data": {"type": "Author", "id": "3"}
        })
    );
    assert_eq!(data["relationships"]["borrower"]["data"], Value::Null);
}

/// The book read by id from the state: its `data`.
fn book(served: &crate::state_support::Served, id: &str) -> Value {
    let (answer, is_error) = call_with_strings(served, "get_books_by_book_id", &[("book_id", id)]);
    assert!(!is_error, "{answer:#}");
    answer["body"]["data"].clone()
}

/// The author or member read by id from the state: its `relationships`' one to-many member.
fn listed(served: &crate::state_support::Served, tool: &str, argument: &str, id: &str) -> Value {
    let (answer, is_error) = call_with_strings(served, tool, &[(argument, id)]);
    assert!(!is_error, "{answer:#}");
    let relationships = &answer["body"]["data"]["relationships"];
    let (_, only) = relationships
        .as_object()
        .and_then(|members| members.iter().next())
        .expect("one relationship");
    json!({"data": only["data"], "count": only["meta"]["count"]})
}

fn books(ids: &[&str]) -> Value {
    Value::Array(
        ids.iter()
            .map(|id| json!({"type": "Book", "id": id}))
            .collect(),
    )
}

#[test]
fn a_patch_merges_its_relationships_member_by_member_keeping_the_links() {
    let served = serve_corpus_app("drf-jsonapi");
    let patch = plan(&served, "patch_books_by_book_id");
    assert!(patch.served, "{:?}", patch.reason);
    // Book 4 (Solaris) is lent to member 2 in the seed: returned, its borrower cleared.
    let before = book(&served, "4");
    let sent = json!({"data": {"type": "Book", "id": "4", "attributes": {"status": "available"}, "relationships": {"borrower": {"data": null}}}});
    let mut arguments = with_body(&served, "patch_books_by_book_id", sent);
    arguments.insert("book_id".into(), json!("4"));
    let (answer, is_error) = served.call("patch_books_by_book_id", arguments);
    assert!(!is_error, "{answer:#}");
    let data = &answer["body"]["data"];
    assert_eq!(data["attributes"]["status"], "available");
    assert_eq!(data["attributes"]["title"], before["attributes"]["title"]);
    let borrower = &data["relationships"]["borrower"];
    assert_eq!(borrower["data"], Value::Null, "{data:#}");
    assert_eq!(
        borrower["links"],
        before["relationships"]["borrower"]["links"]
    );
    assert_eq!(
        data["relationships"]["author"],
        before["relationships"]["author"]
    );
    assert_eq!(book(&served, "4"), *data);
    // The member's loans follow the linkage (the inverse side): book 4 is no longer listed.
    assert_eq!(
        listed(&served, "get_members_by_member_id", "member_id", "2"),
        json!({"data": [], "count": 0})
    );
}

#[test]
fn the_relationship_routes_set_the_linkage_and_answer_the_identifier() {
    let served = serve_corpus_app("drf-jsonapi");
    for tool in [
        "patch_books_relationships_author_by_book_id",
        "patch_books_relationships_borrower_by_book_id",
    ] {
        let route = plan(&served, tool);
        assert!(route.served, "{tool}: {:?}", route.reason);
        let model = route.relationship.as_ref().expect("a relationship model");
        assert!(model.linkage && model.answers_identifier, "{model:?}");
        assert_eq!(
            (model.prefix.as_str(), model.suffix.as_str()),
            ("/relationships/", "/data")
        );
    }
    // Book 9 (Invisible Cities, author 4) credited to author 1.
    let tool = "patch_books_relationships_author_by_book_id";
    let mut arguments = with_body(
        &served,
        tool,
        json!({"data": {"type": "Author", "id": "1"}}),
    );
    arguments.insert("book_id".into(), json!("9"));
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 200, "{answer:#}");
    assert_eq!(
        answer["body"],
        json!({"data": {"type": "Author", "id": "1"}})
    );
    let linkage = &book(&served, "9")["relationships"]["author"];
    assert_eq!(linkage["data"], json!({"type": "Author", "id": "1"}));
    assert!(
        linkage["links"]["self"]
            .as_str()
            .is_some_and(|link| link.ends_with("/books/9/relationships/author"))
    );
    // Both authors' books follow, in id order, with their counts.
    let authors = "get_authors_by_author_id";
    assert_eq!(
        listed(&served, authors, "author_id", "1"),
        json!({"data": books(&["1", "2", "3", "9"]), "count": 4})
    );
    assert_eq!(
        listed(&served, authors, "author_id", "4"),
        json!({"data": books(&["10"]), "count": 1})
    );
    // An author the state does not hold, or a member where an author goes, changes nothing.
    for sent in [
        json!({"data": {"type": "Author", "id": "99"}}),
        json!({"data": {"type": "Member", "id": "2"}}),
    ] {
        let mut arguments = with_body(&served, tool, sent);
        arguments.insert("book_id".into(), json!("9"));
        let (answer, is_error) = served.call(tool, arguments);
        assert!(is_error, "{answer:#}");
    }
    assert_eq!(
        book(&served, "9")["relationships"]["author"]["data"],
        json!({"type": "Author", "id": "1"})
    );
}

#[test]
fn a_member_delete_clears_the_borrower_linkages_and_a_missing_member_answers_404() {
    let served = serve_corpus_app("drf-jsonapi");
    let delete = plan(&served, "delete_members_by_member_id");
    assert!(delete.served, "{:?}", delete.reason);
    // Maya (member 1) holds books 1 and 7 in the seed.
    let (answer, is_error) = call_with_strings(
        &served,
        "delete_members_by_member_id",
        &[("member_id", "1")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 204, "{answer:#}");
    for id in ["1", "7"] {
        let borrower = &book(&served, id)["relationships"]["borrower"];
        assert_eq!(borrower["data"], Value::Null, "book {id}: {borrower:#}");
        assert!(borrower["links"]["related"].is_string(), "{borrower:#}");
    }
    assert_eq!(
        book(&served, "4")["relationships"]["borrower"]["data"],
        json!({"type": "Member", "id": "2"})
    );
    let (answer, _) = call_with_strings(
        &served,
        "delete_members_by_member_id",
        &[("member_id", "42")],
    );
    assert_eq!(answer["status"], 404, "{answer:#}");
    let sent = json!({"data": {"type": "Book", "id": "42", "attributes": {"status": "lost"}}});
    let mut arguments = with_body(&served, "patch_books_by_book_id", sent);
    arguments.insert("book_id".into(), json!("42"));
    let (answer, _) = served.call("patch_books_by_book_id", arguments);
    assert_eq!(answer["status"], 404, "{answer:#}");
}

/// The ids of a list answer's members.
fn ids(answer: &Value) -> Vec<&str> {
    answer["body"]["data"]
        .as_array()
        .unwrap_or_else(|| panic!("a list: {answer:#}"))
        .iter()
        .filter_map(|member| member["id"].as_str())
        .collect()
}

#[test]
fn the_sibling_lists_page_with_the_links_and_counters_the_books_list_taught() {
    let served = serve_corpus_app("drf-jsonapi");
    // The members list's lines (entries 1, 12, 72) never named a page.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_members",
        &[("sort", "name"), ("page[limit]", "2")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
    assert_eq!(ids(&answer), ["1", "2"]);
    let body = &answer["body"];
    assert_eq!(
        body["meta"]["pagination"],
        json!({"count": 3, "limit": 2, "offset": 0})
    );
    let origin = "http://127.0.0.1:18853/members/";
    let next = format!("{origin}?page%5Blimit%5D=2&page%5Boffset%5D=2&sort=name");
    assert_eq!(
        body["links"],
        json!({
            "first": format!("{origin}?page%5Blimit%5D=2&sort=name"),
            "last": next,
            "next": next,
            "prev": null
        })
    );
    // A filter the authors list never sent: the call's own query in the links, the default
    // size named by `last`.
    let (answer, is_error) =
        call_with_strings(&served, "get_authors", &[("filter[country]", "PL")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(ids(&answer), ["2"]);
    let origin = "http://127.0.0.1:18853/authors/";
    assert_eq!(
        answer["body"]["links"],
        json!({
            "first": format!("{origin}?filter%5Bcountry%5D=PL"),
            "last": format!("{origin}?filter%5Bcountry%5D=PL&page%5Blimit%5D=50"),
            "next": null,
            "prev": null
        })
    );
}

#[test]
fn a_sparse_fieldset_leaves_out_the_relationships_it_does_not_name() {
    let served = serve_corpus_app("drf-jsonapi");
    // Recorded: `fields[Book]=title,status` (entry 17). Asked: title and pages.
    let (answer, is_error) =
        call_with_strings(&served, "get_books", &[("fields[Book]", "title,pages")]);
    assert!(!is_error, "{answer:#}");
    let books = answer["body"]["data"].as_array().expect("books");
    assert_eq!(books.len(), 10, "{answer:#}");
    for book in books {
        let mut members: Vec<&str> = book
            .as_object()
            .expect("a book")
            .keys()
            .map(String::as_str)
            .collect();
        members.sort_unstable();
        assert_eq!(members, ["attributes", "id", "links", "type"], "{book:#}");
        assert_eq!(
            book["attributes"].as_object().map(|object| object.len()),
            Some(2)
        );
    }
    assert_eq!(
        answer["body"]["links"]["first"],
        "http://127.0.0.1:18853/books/?fields%5BBook%5D=title%2Cpages"
    );
    // A sibling list by its own type's name, and an item.
    let (answer, is_error) =
        call_with_strings(&served, "get_authors", &[("fields[Author]", "name")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer["body"]["data"][0],
        json!({"type": "Author", "id": "1", "attributes": {"name": "Ursula K. Le Guin"}, "links": {"self": "http://127.0.0.1:18853/authors/1/"}})
    );
    let (answer, is_error) = call_with_strings(
        &served,
        "get_books_by_book_id",
        &[("book_id", "1"), ("fields[Book]", "title,status")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer["body"],
        json!({"data": {"type": "Book", "id": "1", "attributes": {"title": "The Left Hand of Darkness", "status": "loaned"}, "links": {"self": "http://127.0.0.1:18853/books/1/"}}})
    );
    // Naming a relationship: what the selection keeps of the relationships no recording showed.
    let (answer, _) = call_with_strings(&served, "get_books", &[("fields[Book]", "title,author")]);
    assert_ne!(answer["state"]["source"], "state", "{answer:#}");
}
