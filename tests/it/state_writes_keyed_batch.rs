//! Rows sent to a collection (issue 12: upserts keyed by an id in the body, bulk inserts). A
//! `POST` to a collection plus literal segments (`/{table}/-/insert`) writes into the collection
//! its path names; a body sending rows of the collection (an array of objects, or an object's one
//! array of them beside scalar options: `{"rows": […], "return": true}`, `{"docs": […]}`) is a
//! batch, adopted as observed beside one-row creates (`{"row": {…}}`, learned and served); when
//! some of its rows named an entity the state held it is a keyed batch, learned as a bulk update
//! of those rows (each one call) whose `upsert` is the create the other rows made, and served: an
//! answer listing one item per row is rendered as the recorded answers list them (the rows whole
//! in key order, or `{ok, id, rev}` in body order). Recorded on
//! datasette (`/-/insert`, `/-/upsert`: build calls 26, 29, 45, 49, 63) and pouchdb-server
//! (`_bulk_docs`: build call 54, two new documents and one update).

use serde_json::{Map, Value, json};

use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app};

fn arguments(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect()
}

/// The argument of `tool` holding its path's segment `index`.
fn segment_argument(served: &Served, tool: &str, index: usize) -> String {
    use rea_manifest::catalog::ArgumentTarget;
    served
        .replay
        .tool(tool)
        .expect("the tool")
        .input_schema
        .arguments
        .iter()
        .find(|argument| {
            matches!(argument.target, ArgumentTarget::Path { segment_index, .. } if segment_index == index)
        })
        .expect("a path argument")
        .name
        .clone()
}

/// The plan of the write tool whose path template is `template`.
fn plan_at<'a>(plans: &'a [Value], template: &str) -> &'a Value {
    plans
        .iter()
        .find(|plan| plan["path_template"] == template)
        .unwrap_or_else(|| panic!("a plan for {template}"))
}

#[test]
fn datasette_row_inserts_are_served_into_the_table_their_path_names() {
    let plans = corpus_write_plans("datasette");
    let insert = plan_at(&plans, "/tracker/{prefix-variance}/-/insert");
    assert_eq!(insert["served"], true, "{insert:#}");
    assert_eq!(insert["effect"], "create", "{insert:#}");
    assert_eq!(insert["body"]["envelope"], "/row", "{insert:#}");
    // Learned from the one-row call 26: the batch of call 29 (`rows`) is adopted as observed,
    // and call 63 inserts into a table an unmodelled `/-/create` made, whose rows before it are
    // unknown, so it is adopted too.
    assert_eq!(insert["record_ordinals"], json!([26]), "{insert:#}");
    let tool = insert["tool"].as_str().expect("a tool name").to_owned();
    let rows = plan_of(&plans, &tool)["target"]["item_view"]
        .as_str()
        .expect("an item view")
        .to_owned();
    let served = serve_corpus_app("datasette");
    let row = json!({"title": "Plan the retro", "status": "todo", "priority": 2,
        "project": "OPS", "assignee": "chen", "due": "2027-02-01"});
    let (answer, is_error) = served.call(
        &tool,
        arguments(&[
            ("tracker_id", json!("tasks")),
            ("body", json!({"row": row})),
        ]),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 201, "{answer}");
    // One past the largest id the table holds (the state serves the seed's twelve tasks).
    assert_eq!(answer["body"]["rows"][0]["id"], 13, "{answer}");
    assert_eq!(
        answer["body"]["rows"][0]["title"], "Plan the retro",
        "{answer}"
    );
    let (read, is_error) = served.call(
        &rows,
        arguments(&[("tracker_id", json!("tasks")), ("id", json!("13"))]),
    );
    assert!(!is_error, "{read}");
    assert_eq!(read["body"]["rows"][0]["assignee"], "chen", "{read}");
}

#[test]
fn datasette_upserts_are_keyed_batches_creating_what_the_table_lacks() {
    let plans = corpus_write_plans("datasette");
    for template in [
        "/tracker/projects/-/upsert",
        "/tracker/{prefix-variance}/-/upsert",
    ] {
        let upsert = plan_at(&plans, template);
        assert_eq!(upsert["effect"], "update", "{upsert:#}");
        assert_eq!(upsert["bulk"], true, "{upsert:#}");
        assert_eq!(
            upsert["body"]["bulk_ids"],
            json!({"pointer": "/rows", "objects": true}),
            "{upsert:#}"
        );
        assert!(upsert["upsert"].is_object(), "{upsert:#}");
    }
    // WEB was held (updated, `archived` kept), DOC created with the default 0; `return: true`
    // is an option beside the rows, and the answer lists the rows written whole, read back in
    // the table's key order (DOC before WEB, sent WEB first): served.
    let projects = plan_at(&plans, "/tracker/projects/-/upsert");
    assert!(
        projects["body"]["options"]["return"].is_object(),
        "{projects:#}"
    );
    assert_eq!(projects["served"], true, "{projects:#}");
    let answer = &projects["response"];
    assert_eq!(answer["kind"], "rows", "{projects:#}");
    assert_eq!(answer["pointer"], "/rows", "{projects:#}");
    assert_eq!(
        answer["rows"],
        json!({"order": "identity", "members": null}),
        "{projects:#}"
    );
    // Only the options the recorded call sent are answered.
    assert_eq!(
        answer["by_options"][0]["options"],
        json!({"return": true}),
        "{projects:#}"
    );
    // Task 40 was created with the defaults the table gave it; task 2's read back is answered by
    // another tool (`/tracker/{sibling-variance}/{numeric}.json`, with the milestone row), so
    // what the upsert did to a held row is not shown for this tool: not served.
    let tasks = plan_at(&plans, "/tracker/{prefix-variance}/-/upsert");
    assert_eq!(
        tasks["upsert"]["fields"]["constants"]["priority"], 3,
        "{tasks:#}"
    );
    assert_eq!(tasks["served"], false, "{tasks:#}");
    assert_eq!(tasks["reason"], "no-observation", "{tasks:#}");
}

#[test]
fn a_served_datasette_upsert_lists_its_rows_in_key_order_and_writes_them() {
    let plans = corpus_write_plans("datasette");
    let tool = plan_at(&plans, "/tracker/projects/-/upsert")["tool"]
        .as_str()
        .expect("a tool name")
        .to_owned();
    let served = serve_corpus_app("datasette");
    let upsert = |body: Value| served.call(&tool, arguments(&[("body", body)]));
    // OPS is held (archived now), QA is new: sent QA first, listed by key.
    let rows = json!([{"code": "QA", "name": "Quality", "archived": 0},
        {"code": "OPS", "name": "Operations", "archived": 1}]);
    // Without `return` (never recorded) the answer is not known: refused, nothing written; an
    // option the recorded call never sent beside the rows is refused too.
    let (refused, is_error) = upsert(json!({"rows": rows}));
    assert!(is_error, "{refused}");
    let (refused, is_error) = upsert(json!({"rows": rows, "return": true, "alter": true}));
    assert!(is_error, "{refused}");
    let (answer, is_error) = upsert(json!({"rows": rows, "return": true}));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(answer["body"]["ok"], true, "{answer}");
    assert_eq!(
        answer["body"]["rows"],
        json!([{"code": "OPS", "name": "Operations", "archived": 1},
            {"code": "QA", "name": "Quality", "archived": 0}]),
        "{answer}"
    );
    let read = plan_of(&plans, &tool)["target"]["item_view"]
        .as_str()
        .expect("an item view")
        .to_owned();
    let (qa, is_error) = served.call(&read, arguments(&[("id", json!("QA"))]));
    assert!(!is_error, "{qa}");
    assert_eq!(
        qa["body"]["rows"][0],
        json!({"code": "QA", "name": "Quality", "archived": 0}),
        "{qa}"
    );
    let (ops, is_error) = served.call(&read, arguments(&[("id", json!("OPS"))]));
    assert!(!is_error, "{ops}");
    assert_eq!(ops["body"]["rows"][0]["archived"], 1, "{ops}");
}

#[test]
fn pouchdb_bulk_docs_is_a_keyed_batch_with_revisions_per_document() {
    let plans = corpus_write_plans("pouchdb-server");
    let bulk = plan_at(&plans, "/{prefix-variance}/_bulk_docs");
    assert_eq!(bulk["effect"], "update", "{bulk:#}");
    assert_eq!(bulk["bulk"], true, "{bulk:#}");
    assert_eq!(
        bulk["body"]["bulk_ids"],
        json!({"pointer": "/docs", "objects": true}),
        "{bulk:#}"
    );
    // member:0003 was held: its new `_rev` is the digest of the document it saved, as for a
    // single PUT; the two documents without `_id` were created with generated ids.
    let explained = |rules: &Value, stage: &str| {
        rules.as_array().is_some_and(|rules| {
            rules
                .iter()
                .any(|rule| rule["stage"] == stage && rule["explains"] == json!(["/_rev"]))
        })
    };
    assert!(explained(&bulk["rules"], "digest-revision"), "{bulk:#}");
    let created = &bulk["upsert"]["rules"];
    assert!(
        created
            .as_array()
            .is_some_and(|rules| rules.iter().any(|rule| rule["explains"] == json!(["/_id"]))),
        "{bulk:#}"
    );
    // The answer lists `{ok, id, rev}` per document in body order: `ok` as recorded, `id` and
    // `rev` the document's `_id` and `_rev`.
    assert_eq!(bulk["served"], true, "{bulk:#}");
    assert_eq!(bulk["response"]["kind"], "rows", "{bulk:#}");
    assert_eq!(bulk["response"]["pointer"], "", "{bulk:#}");
    assert_eq!(
        bulk["response"]["rows"],
        json!({"order": "body", "members": [
            {"name": "ok", "value": true},
            {"name": "id", "shows": "_id"},
            {"name": "rev", "shows": "_rev"},
        ]}),
        "{bulk:#}"
    );
}

#[test]
fn a_served_bulk_docs_lists_each_document_it_saved_in_body_order() {
    let plans = corpus_write_plans("pouchdb-server");
    let bulk = plan_at(&plans, "/{prefix-variance}/_bulk_docs");
    let tool = bulk["tool"].as_str().expect("a tool name").to_owned();
    let served = serve_corpus_app("pouchdb-server");
    let database = segment_argument(&served, &tool, 0);
    let call = |docs: Value| {
        served.call(
            &tool,
            arguments(&[
                (database.as_str(), json!("members")),
                ("body", json!({"docs": docs})),
            ]),
        )
    };
    let held = json!({"type": "member", "name": "Bo Berg", "email": "bo@example.test",
        "joined": "2024-06-30", "active": false, "_id": "member:0002",
        "_rev": "1-75012763e1dc797159ae46b8b1f5b56b"});
    let new = json!({"type": "member", "name": "Gus Ito", "email": "gus@example.test",
        "joined": "2026-02-01", "active": true});
    // A stale revision is the application's conflict, per document; the recording never showed
    // one, so the whole call is refused and nothing is written.
    let mut stale = held.clone();
    stale["_rev"] = json!("1-00000000000000000000000000000000");
    let (refused, is_error) = call(json!([new, stale]));
    assert!(is_error, "{refused}");
    // Two documents whose ids the state would generate in one call are refused (it draws
    // generated values one call at a time).
    let (refused, is_error) = call(json!([new, new]));
    assert!(is_error, "{refused}");
    let (answer, is_error) = call(json!([new, held]));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 201, "{answer}");
    let items = answer["body"].as_array().expect("one item per document");
    assert_eq!(items.len(), 2, "{answer}");
    assert_eq!(items[1]["id"], "member:0002", "{answer}");
    assert!(
        items[1]["rev"]
            .as_str()
            .is_some_and(|rev| rev.starts_with("2-")),
        "{answer}"
    );
    assert_eq!(items[0]["ok"], true, "{answer}");
    let created = items[0]["id"].as_str().expect("a generated id").to_owned();
    assert_ne!(created, "", "{answer}");
    // Each document reads back as the item named it.
    let read = "get_root_by_segment_0_and_id";
    let (db, doc) = (
        segment_argument(&served, read, 0),
        segment_argument(&served, read, 1),
    );
    for (item, id) in [(&items[0], created.as_str()), (&items[1], "member:0002")] {
        let (document, is_error) = served.call(
            read,
            arguments(&[(db.as_str(), json!("members")), (doc.as_str(), json!(id))]),
        );
        assert!(!is_error, "{document}");
        assert_eq!(document["body"]["_rev"], item["rev"], "{document}");
    }
}
