//! A create confirmed by a later list read that counts the created entity without listing it
//! (`rea_state::writes::confirm`, its `counted` step): the read's state answer with the create
//! applied agrees with the recording, and without the created entity it does not. Two recorded
//! applications: django-tastypie's loan create, whose only later read is the first page of
//! `returned_on__isnull=true` (its `meta.total_count` 5 → 6, the new loan beyond the page), and
//! Parse Server's task create, whose `count=1&limit=0` read (no row, `count` 10) counts it where
//! no list read between the create and it lists the task.

use crate::state_support::{
    Served, call_with_strings, capture_file, corpus_dir, serve_evidence, state_rules, with_body,
    write_plan,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A corpus app's `build.har` rewritten by `change` (its entries as JSON), written in `folder`.
fn changed_build(app: &str, folder: &Path, change: impl FnOnce(&mut Vec<Value>)) -> PathBuf {
    let text = std::fs::read(corpus_dir(app).join("build.har")).expect("the build capture");
    let mut har: Value = serde_json::from_slice(&text).expect("HAR JSON");
    let entries = har["log"]["entries"].as_array_mut().expect("entries");
    change(entries);
    let written = folder.join("build.har");
    std::fs::write(&written, serde_json::to_vec(&har).expect("HAR")).expect("written");
    written
}

/// Serves a corpus app's build capture changed by `change`.
fn serve_changed(app: &str, change: impl FnOnce(&mut Vec<Value>)) -> Served {
    let folder = tempfile::tempdir().expect("temp");
    let capture = capture_file(&changed_build(app, folder.path(), change));
    serve_evidence(capture, state_rules(), Default::default())
}

/// Sets a JSON answer's member (by pointer) in one entry's response text.
fn set_answered(entry: &mut Value, pointer: &str, value: Value) {
    let content = &mut entry["response"]["content"];
    let mut body: Value =
        serde_json::from_str(content["text"].as_str().expect("a text answer")).expect("JSON");
    *body.pointer_mut(pointer).expect("the member") = value;
    content["text"] = json!(body.to_string());
}

/// The URL of an entry's request.
fn url(entry: &Value) -> &str {
    entry["request"]["url"].as_str().unwrap_or_default()
}

/// A plan's served flag, reason and confirming reads.
fn verdict(served: &Served, tool: &str) -> (bool, Option<String>, Vec<u64>) {
    let plan = write_plan(served, tool);
    (plan.served, plan.reason.clone(), plan.confirmed_by.clone())
}

#[test]
fn a_create_beyond_a_filtered_page_is_confirmed_by_its_count() {
    // Build entry 88 creates loan 9 (not returned); entry 89, the first page of the loans not
    // returned, lists loans 2, 3, 5 and 7 as before and counts six of them, not five.
    let served = crate::state_support::serve_corpus_app("tastypie");
    assert_eq!(verdict(&served, "post_loan"), (true, None, vec![89]));
    // Served: the created loan is held, counted by the page and read by id.
    let body =
        json!({"book": "/api/v1/book/4/", "borrower": "Sam Idris", "loaned_on": "2026-12-05"});
    let (created, is_error) = served.call("post_loan", with_body(&served, "post_loan", body));
    assert!(!is_error, "{created}");
    assert_eq!(created["status"], 201, "{created}");
    let (page, _) = call_with_strings(&served, "get_loan", &[("returned_on__isnull", "true")]);
    assert_eq!(page["body"]["meta"]["total_count"], 6, "{page}");
    assert_eq!(page["body"]["objects"].as_array().map(Vec::len), Some(4));
    let id = created["body"]["id"].to_string();
    let (read, _) = call_with_strings(&served, "get_loan_by_loan_id", &[("loan_id", &id)]);
    assert_eq!(read["body"]["borrower"], "Sam Idris", "{read}");
}

#[test]
fn a_count_the_create_does_not_explain_confirms_nothing() {
    // The same recording, entry 89 counting five loans (the create not counted) or seven (one
    // more than it made): the state's answer with the create applied disagrees, and no other
    // read shows loan 9, so the plan is not served.
    for total in [5, 7] {
        let served = serve_changed("tastypie", |entries| {
            set_answered(&mut entries[89], "/meta/total_count", json!(total));
        });
        let (is_served, reason, confirmed) = verdict(&served, "post_loan");
        assert!(!is_served && confirmed.is_empty(), "{total}: {reason:?}");
    }
}

/// The ordinal of Parse Server's `count=1&limit=0` read of the tasks.
fn count_read(served: &Served) -> u64 {
    served
        .records
        .iter()
        .find(|record| {
            record
                .url
                .as_deref()
                .is_some_and(|url| url.ends_with("/classes/Task?count=1&limit=0"))
        })
        .expect("the count read")
        .ordinal
}

/// Sets the `count` Parse Server's `count=1&limit=0` read of the tasks answers.
fn set_count(entries: &mut [Value], count: u64) {
    let read = entries
        .iter_mut()
        .find(|entry| url(entry).ends_with("/classes/Task?count=1&limit=0"))
        .expect("the count read");
    set_answered(read, "/count", json!(count));
}

/// Removes Parse Server's `where={"status":"open"}&order=title` read of the tasks (entry 23),
/// which lists the task created at entry 21 right after its read by id.
fn without_open_tasks(entries: &mut Vec<Value>) {
    assert!(url(&entries[23]).contains("/classes/Task?where="));
    entries.remove(23);
}

#[test]
fn a_count_read_agrees_with_the_reads_that_show_a_create() {
    // Parse Server: the task created at entry 21 is read by id at entry 22 and listed by the open
    // tasks at entry 23 (the confirming replay reads its `where` criteria with the json-filter
    // grammar), which confirm it by id and listed.
    let served = crate::state_support::serve_corpus_app("parse-server");
    assert_eq!(
        verdict(&served, "post_parse_classes_task"),
        (true, None, vec![22, 23])
    );
    // Without the open tasks, the task is next listed by the whole sorted list (entry 52, now
    // 51); `count=1&limit=0` between them (entry 47, now 46: no row, `count` 10) counts it among
    // the ten tasks, so it confirms the create too.
    let served = serve_changed("parse-server", without_open_tasks);
    assert_eq!(count_read(&served), 46);
    assert_eq!(
        verdict(&served, "post_parse_classes_task"),
        (true, None, vec![22, 46, 51])
    );
    // Counting nine tasks, it does not show the create.
    let miscounted = serve_changed("parse-server", |entries| {
        without_open_tasks(entries);
        set_count(entries, 9);
    });
    let (_, _, confirmed) = verdict(&miscounted, "post_parse_classes_task");
    assert_eq!(confirmed, vec![22, 51]);
}

#[test]
fn a_count_alone_confirms_a_create_but_shows_none_of_its_members() {
    // The same recording less the read by id, the open tasks and the sorted list (entries 22,
    // 23 and 52): the count is the one read showing the created task, and confirms it; only the
    // read by id showed the members the create's answer leaves out (`updatedAt`, the sent ones as
    // stored), so the plan is withheld as incomplete, no longer as unconfirmed. Counting nine,
    // nothing confirms it.
    let without_reads = |entries: &mut Vec<Value>| {
        assert!(url(&entries[52]).ends_with("/classes/Task?order=title"));
        assert!(url(&entries[22]).ends_with("/classes/Task/IJJn3DAgEY"));
        entries.remove(52);
        without_open_tasks(entries);
        entries.remove(22);
    };
    let served = serve_changed("parse-server", without_reads);
    let read = count_read(&served);
    assert_eq!(
        verdict(&served, "post_parse_classes_task"),
        (false, Some("incomplete-entities".to_owned()), vec![read])
    );
    let miscounted = serve_changed("parse-server", |entries| {
        without_reads(entries);
        set_count(entries, 9);
    });
    let (is_served, reason, confirmed) = verdict(&miscounted, "post_parse_classes_task");
    assert!(!is_served && confirmed.is_empty(), "{reason:?}");
}
