//! django-tastypie (`tests/corpus/apps/tastypie`), an application nobody tuned the engine for:
//! its lists page every call by a default `limit` (books 5 a page, loans 4) in `{meta: {limit,
//! next, offset, previous, total_count}, objects}`, the collection's size nested under `meta`.
//! The plain read of such a list is a default page (`rea_state::derive::default_page`), not a
//! whole list leaving the other rows out: so the filter lines reproduce over the whole
//! collection and their parameters get their roles. Its author resource answers its writes
//! without a body (`201` with a `Location`, `202`) under `Content-Type: text/html`: they are
//! tools (`rea_manifest::projection`), so the author they create is no seed row. A plain list
//! counts what it lists after the writes (`meta.total_count`).

use crate::state_support::{
    Served, call_with_strings, list_view, path_parameter, query_model, serve_corpus_app, write_plan,
};
use rea_state::model::QueryRole;
use serde_json::{Map, Value, json};

#[test]
fn a_default_page_counted_under_meta_leaves_no_row_out() {
    let served = serve_corpus_app("tastypie");
    for (tool, size) in [("get_book", 5), ("get_loan", 4)] {
        let model = query_model(&served, tool);
        assert_eq!(model.default_page_size, Some(size), "{tool}");
        let plain = list_view(&served, tool)
            .lines
            .iter()
            .find(|line| line.whole && line.query.is_none())
            .unwrap_or_else(|| panic!("{tool} has a plain line"));
        assert!(plain.excluded.is_empty(), "{tool}: {:?}", plain.excluded);
    }
}

#[test]
fn filters_over_a_default_paged_list_take_their_roles() {
    // Recorded (build entries 9-20): equality, `__gte`, `__lte`, `__icontains`, `__startswith`,
    // `__in`, `__isnull`; each reproduced over the fourteen books, not the first five.
    let model = query_model(&serve_corpus_app("tastypie"), "get_book");
    for name in [
        "genre",
        "available",
        "year__gte",
        "year__lte",
        "title__icontains",
        "title__startswith",
        "genre__in",
        "summary__isnull",
        "order_by",
    ] {
        assert!(model.role(name).is_some(), "{name} has no role");
    }
    assert_eq!(model.totals, vec!["/meta/total_count".to_owned()]);
    for ordinal in [9, 12, 13, 16, 20] {
        assert!(model.record_ordinals.contains(&ordinal), "line {ordinal}");
    }
}

#[test]
fn writes_answered_without_a_body_are_tools_and_their_rows_no_seed() {
    let served = serve_corpus_app("tastypie");
    for tool in ["post_author", "patch_author_by_author_id"] {
        assert!(served.manifest.tool(tool).is_some(), "{tool} is a tool");
        assert_eq!(write_plan(&served, tool).tool, tool);
    }
    // The plain author list (entry 6, before any write) lists the six seeded authors: author 7,
    // created at entry 75, is not a seeded row it left out.
    let plain = list_view(&served, "get_author")
        .lines
        .iter()
        .find(|line| line.whole && line.query.is_none())
        .expect("the plain author list");
    assert!(plain.excluded.is_empty(), "{:?}", plain.excluded);
    // So `country=NG` (entry 23) reproduces and equality on `country` is learned.
    assert!(query_model(&served, "get_author").role("country").is_some());
}

#[test]
fn the_plain_author_list_counts_the_authors_left_after_a_delete() {
    // Probe-crud steps 28 and 32: author 2 deleted, the plain list answers `total_count` 5.
    let served = serve_corpus_app("tastypie");
    delete_author(&served, "2");
    let (answer, _) = call_with_strings(&served, "get_author", &[]);
    assert_eq!(answer["body"]["meta"]["total_count"], 5, "{answer}");
    assert_eq!(answer["body"]["objects"].as_array().map(Vec::len), Some(5));
}

#[test]
fn a_relation_held_as_an_item_path_filters_by_the_whole_id() {
    // A loan holds its book as the book's item path (`"book": "/api/v1/book/12/"`); the build's
    // `loan?book=1` (entry 29) names book 1 by id. Learned as a text match, `book=1` would also
    // list loan 5, whose book 12's path holds a `1`: it is a link to the book by id.
    let served = serve_corpus_app("tastypie");
    for (tool, name) in [("get_loan", "book"), ("get_book", "author")] {
        let role = query_model(&served, tool).role(name).cloned();
        let Some(rea_state::model::QueryRole::Filter { field, op }) = role else {
            panic!("{tool}: `{name}` is no filter: {role:?}");
        };
        let link = rea_state::link_filters::LinkField::parse(&field)
            .unwrap_or_else(|| panic!("{tool}: `{name}` filters `{field}` {op}, not by link"));
        assert_eq!((link.member.as_str(), op.as_str()), (name, "eq"), "{tool}");
    }
}

/// A loan list call's answer and its page of loans, asserted answered and not empty.
fn listed_loans(served: &Served, pairs: &[(&str, &str)]) -> (Value, Vec<Value>) {
    let (answer, is_error) = call_with_strings(served, "get_loan", pairs);
    assert!(!is_error, "{answer}");
    let loans = answer["body"]["objects"]
        .as_array()
        .expect("a page of loans")
        .clone();
    assert!(!loans.is_empty(), "{answer}");
    (answer, loans)
}

#[test]
fn a_link_filter_lists_only_the_loans_of_the_whole_id() {
    // Served over the real recording: `loan?book=1` lists loan 1 (book 1) and never loan 5,
    // whose book 12's path `/api/v1/book/12/` holds the text `1` (a substring match would).
    let served = serve_corpus_app("tastypie");
    let (answer, loans) = listed_loans(&served, &[("book", "1")]);
    for loan in &loans {
        assert_eq!(loan["book"], "/api/v1/book/1/", "{answer}");
    }
    assert_eq!(
        answer["body"]["meta"]["total_count"],
        loans.len(),
        "{answer}"
    );
}

#[test]
fn a_link_through_a_link_compares_the_id_of_the_linked_books_author() {
    // Probe-reads 23: `loan?book__author=1` lists the loans whose book's `author` is
    // `/api/v1/author/1/` (a link held as an item path, reached through the loans' `book` link).
    let served = serve_corpus_app("tastypie");
    let (answer, loans) = listed_loans(&served, &[("book__author", "1")]);
    for loan in &loans {
        let book = loan["book"].as_str().expect("a book path");
        let id = book.trim_end_matches('/').rsplit('/').next().unwrap();
        let mut arguments = Map::new();
        arguments.insert(path_parameter(&served, "get_book_by_book_id"), json!(id));
        let (book, _) = served.call("get_book_by_book_id", arguments);
        assert_eq!(book["body"]["author"], "/api/v1/author/1/", "{answer}");
    }
    // An author no held book names is refused, not answered empty from a text comparison.
    let (refused, is_error) = call_with_strings(&served, "get_loan", &[("book__author", "99")]);
    assert!(is_error, "{refused}");
    assert_eq!(refused["error"]["code"], "not_modelled", "{refused}");
}

#[test]
fn an_authors_delete_removes_the_books_holding_its_item_path() {
    // Build entries 84-86: author 7's delete, then `book?author=7` lists none of the book entry
    // 82 created for her (tastypie's CASCADE). The books hold the author as an item path.
    let served = serve_corpus_app("tastypie");
    delete_author(&served, "2");
    let item = "get_book_by_book_id";
    for (book, gone) in [("4", true), ("2", true), ("1", false)] {
        let mut arguments = Map::new();
        arguments.insert(path_parameter(&served, item), json!(book));
        let (answer, _) = served.call(item, arguments);
        assert_eq!(answer["status"] == 404, gone, "book {book}: {answer}");
    }
}

#[test]
fn a_query_whose_page_lists_every_match_answers_the_complete_pages_links() {
    // Probe-reads step 0: two poetry books. The plain list (the envelope a query is answered
    // in) is a first default page whose `meta.next` links page 2; the build's filtered lines
    // listing every match all showed `next: null`, `previous: null`.
    let served = serve_corpus_app("tastypie");
    let (answer, is_error) = call_with_strings(&served, "get_book", &[("genre", "poetry")]);
    assert!(!is_error, "{answer}");
    let meta = &answer["body"]["meta"];
    assert_eq!(
        (meta["next"].clone(), meta["previous"].clone()),
        (json!(null), json!(null)),
        "{answer}"
    );
    assert_eq!(meta["total_count"], 2, "{answer}");
    let ids: Vec<&serde_json::Value> = answer["body"]["objects"]
        .as_array()
        .map(|objects| objects.iter().map(|object| &object["id"]).collect())
        .unwrap_or_default();
    assert_eq!(ids, [&json!(9), &json!(13)], "{answer}");
}

#[test]
fn a_name_refused_whatever_its_value_answers_its_recorded_refusal() {
    // Build entry 94: `pages=300` answered 400 (tastypie allows no `exact` on `pages`); another
    // value answers the same refusal, not an evaluated page.
    let served = serve_corpus_app("tastypie");
    let (answer, _) = call_with_strings(&served, "get_book", &[("pages", "250")]);
    assert_eq!(answer["status"], 400, "{answer}");
    assert_eq!(
        answer["body"]["error"], "'exact' is not an allowed filter on the 'pages' field.",
        "{answer}"
    );
}

#[test]
fn a_format_flag_one_list_recorded_is_taken_by_its_sibling_lists() {
    // Build entry 52: `format=json&limit=2` on the book list only, answered as the plain page
    // (inert). Probe-reads step 45: the author list with `format=json` answers its six authors.
    let served = serve_corpus_app("tastypie");
    let (answer, is_error) = call_with_strings(&served, "get_author", &[("format", "json")]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(answer["body"]["meta"]["total_count"], 6, "{answer}");
    assert_eq!(answer["body"]["meta"]["next"], json!(null), "{answer}");
    let objects = answer["body"]["objects"].as_array().map(Vec::len);
    assert_eq!(objects, Some(6), "{answer}");
    // Only with the value the recording gave it.
    let (other, _) = call_with_strings(&served, "get_author", &[("format", "xml")]);
    assert_ne!(other["status"], 200, "{other}");
}

#[test]
fn a_page_size_listing_more_than_it_says_asks_for_no_bound() {
    // Build entry 51: `limit=0` listed all fourteen books (tastypie's "no limit", its envelope
    // saying `limit: 1000`). Learned as the value asking for no bound, that line teaches no role
    // and no longer takes `limit`'s from the book list, so the `limit`/`offset` pages and
    // `format=json&limit=2` (entry 52) are reproduced and `format` is learned inert.
    let model = query_model(&serve_corpus_app("tastypie"), "get_book");
    assert_eq!(model.unbounded_page_size, Some(0));
    assert_eq!(model.parameters.get("limit"), Some(&QueryRole::PageSize));
    assert_eq!(
        model.parameters.get("format"),
        Some(&QueryRole::Inert {
            values: vec!["json".to_owned()]
        })
    );
}

/// Serves the author delete of `id` (a served write: no error).
fn delete_author(served: &Served, id: &str) {
    let tool = "delete_author_by_author_id";
    let mut arguments = Map::new();
    arguments.insert(path_parameter(served, tool), json!(id));
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{answer}");
}

#[test]
fn meta_links_beside_the_objects_are_minted_for_pages_the_build_never_read() {
    // tastypie's `meta.next`/`meta.previous` (the request path, its query kept, `limit` and
    // `offset` after it) sit in an object beside the list. Probe-reads step 3: the available
    // books, a first default page leaving matches out, link the next page.
    let served = serve_corpus_app("tastypie");
    let (answer, is_error) = call_with_strings(&served, "get_book", &[("available", "true")]);
    assert!(!is_error, "{answer}");
    let meta = &answer["body"]["meta"];
    assert_eq!(
        (meta["next"].clone(), meta["previous"].clone()),
        (
            json!("/api/v1/book/?available=true&limit=5&offset=5"),
            json!(null)
        ),
        "{answer}"
    );
    assert_eq!(meta["total_count"], 11, "{answer}");
}

#[test]
fn the_loans_previous_is_one_page_back_as_the_books_tell() {
    // The loan list's one `previous` (offset 4, pages of 4: offset 0) names the first page or
    // one page back; the book list's (offset 6, pages of 3: offset 3) tells which, and the
    // lists share it (`derive::shared_links`). Probe-reads step 44: offset 50 links offset 46.
    let served = serve_corpus_app("tastypie");
    let (answer, is_error) = call_with_strings(&served, "get_loan", &[("offset", "50")]);
    assert!(!is_error, "{answer}");
    let meta = &answer["body"]["meta"];
    assert_eq!(
        (meta["next"].clone(), meta["previous"].clone()),
        (json!(null), json!("/api/v1/loan/?limit=4&offset=46")),
        "{answer}"
    );
    assert_eq!(answer["body"]["objects"], json!([]), "{answer}");
}

#[test]
fn the_authors_take_the_books_meta_links_their_pages_never_showed() {
    // The author list's one sized page (build entry 49, `limit=2&offset=4`, the last) shows
    // `next` only as `null`: its own pages teach no links form. The book list's, under the
    // author prefix and the author list's own default (none: 20 a page, every author on it),
    // mints what every author line showed, so it is lent (`derive::shared_links`). Probe-reads
    // step 42: three authors a page link the next.
    let served = serve_corpus_app("tastypie");
    let (answer, is_error) = call_with_strings(&served, "get_author", &[("limit", "3")]);
    assert!(!is_error, "{answer}");
    let meta = &answer["body"]["meta"];
    assert_eq!(
        (meta["next"].clone(), meta["previous"].clone()),
        (json!("/api/v1/author/?limit=3&offset=3"), json!(null)),
        "{answer}"
    );
    // The plain list, every author on its page, still links none.
    let (plain, _) = call_with_strings(&served, "get_author", &[]);
    assert_eq!(plain["body"]["meta"]["next"], json!(null), "{plain}");
}

#[test]
fn a_joined_name_reaches_the_linked_types_other_members() {
    // Recorded: `author__country=SE`, `author__name=…` (build entries 21, 22), learned as
    // filters naming the books' authors by that member alone. Probe-reads step 15 asks
    // `author__born=1929` (never recorded, a number): offered through the same spelling
    // (`rea_state::link_keys`), it lists Ursula Vance's fantasy books.
    let served = serve_corpus_app("tastypie");
    let (answer, is_error) = call_with_strings(
        &served,
        "get_book",
        &[("author__born", "1929"), ("genre", "fantasy")],
    );
    assert!(!is_error, "{answer}");
    let ids: Vec<&serde_json::Value> = answer["body"]["objects"]
        .as_array()
        .map(|objects| objects.iter().map(|object| &object["id"]).collect())
        .unwrap_or_default();
    assert_eq!(ids, [&json!(1), &json!(6), &json!(14)], "{answer}");
    // A year no author was born in names no held author: refused, not an empty page.
    let (unheld, _) = call_with_strings(&served, "get_book", &[("author__born", "1930")]);
    assert_ne!(unheld["status"], 200, "{unheld}");
}
