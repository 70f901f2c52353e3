//! Rows sent to a collection (issue 12: upserts keyed by an id in the body, bulk inserts). A
//! `POST` to a collection plus literal segments (`/{table}/-/insert`) writes into the collection
//! its path names; a body sending rows of the collection (an array of objects, or an object's one
//! array of them beside scalar options: `{"rows": […], "return": true}`, `{"docs": […]}`) is a
//! batch, adopted as observed beside one-row creates (`{"row": {…}}`, learned and served); when
//! some of its rows named an entity the state held it is a keyed batch, learned as a bulk update
//! of those rows (each one call) whose `upsert` is the create the other rows made. Recorded on
//! datasette (`/-/insert`, `/-/upsert`: build calls 26, 29, 45, 49, 63) and pouchdb-server
//! (`_bulk_docs`: build call 54, two new documents and one update).

use serde_json::{Map, Value, json};

use crate::state_support::{corpus_write_plans, plan_of, serve_corpus_app};

fn arguments(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect()
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
        // Not served, each for a reason the capture shows (below); never applied wrongly.
        assert_eq!(upsert["served"], false, "{upsert:#}");
    }
    // WEB was held (updated, `archived` kept), DOC created with the default 0; `return: true`
    // is an option beside the rows; the answer lists the rows written in the table's order
    // (DOC before WEB), which the plan does not render.
    let projects = plan_at(&plans, "/tracker/projects/-/upsert");
    assert!(
        projects["body"]["options"]["return"].is_object(),
        "{projects:#}"
    );
    assert_eq!(projects["reason"], "body-unusable", "{projects:#}");
    // Task 40 was created with the defaults the table gave it; task 2's read back is answered by
    // another tool (`/tracker/{sibling-variance}/{numeric}.json`, with the milestone row), so
    // what the upsert did to a held row is not shown for this tool.
    let tasks = plan_at(&plans, "/tracker/{prefix-variance}/-/upsert");
    assert_eq!(
        tasks["upsert"]["fields"]["constants"]["priority"], 3,
        "{tasks:#}"
    );
    assert_eq!(tasks["reason"], "no-observation", "{tasks:#}");
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
    // The answer lists `{ok, id, rev}` per document, which the plan does not render.
    assert_eq!(bulk["served"], false, "{bulk:#}");
    assert_eq!(bulk["reason"], "body-unusable", "{bulk:#}");
}
