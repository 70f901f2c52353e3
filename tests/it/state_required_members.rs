//! The members a write requires bind the collections its recorded calls named: Kinto's records
//! tool serves every collection of the bucket (`/collections/{collection_id}/records`), and its
//! recorded creates all wrote tasks, each sending `title`; a project create (the probe's, which
//! sends `name` and `code`) is served, a task create without `title` still refused
//! (`writes/required_in.rs`).

use serde_json::{Value, json};

use crate::state_support::{id_and_body, serve_corpus_app, write_plan};

const TOOL: &str = "post_buckets_workspace_collections_records_by_collection_id";

#[test]
fn a_create_in_a_collection_no_recorded_call_wrote_requires_none_of_the_members() {
    let served = serve_corpus_app("kinto");
    let plan = write_plan(&served, TOOL);
    assert!(plan.served, "{plan:?}");
    let body = plan.body.as_ref().expect("a body model");
    assert!(body.members["title"].required);
    assert_eq!(body.required_in.len(), 1, "{:?}", body.required_in);
    assert!(
        body.required_in[0].ends_with("/tasks/records"),
        "{:?}",
        body.required_in
    );
    let project = json!({"data": {"name": "Data warehouse", "code": "DWH"}});
    let (answer, is_error) = served.call(TOOL, id_and_body(&served, TOOL, "projects", project));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer.get("status").and_then(Value::as_u64), Some(201));
    assert_eq!(answer.pointer("/body/data/code"), Some(&json!("DWH")));
    let task = json!({"data": {"status": "todo"}});
    let (answer, is_error) = served.call(TOOL, id_and_body(&served, TOOL, "tasks", task));
    assert!(is_error, "{answer:#}");
    assert!(answer.to_string().contains("title"), "{answer:#}");
}
