//! A member a create stores as a function of the suffix of the name it was given, learned by the
//! `name-suffix` rule stage from the entities the state held: Jupyter Server's file `PUT
//! /api/contents/{dir}/{file}` creates a file whose `mimetype` the server takes from the name's
//! extension (`mimetypes.guess_type`). The build created one file (`notes/standup.md`, call 15)
//! into a folder whose held files all were Markdown, so the host took `text/markdown` for a
//! collection constant and a served create in `data` copied `image/png` from `data/logo.png`.
//! Now a value the written collection shares while the type's other collections hold others is
//! offered to the rule stages first: `name-suffix` learns `.md` → `text/markdown`, `.png` →
//! `image/png` from the held files and refuses a suffix the build never showed. Only this
//! recorded application shows the rule with a served create: optuna-dashboard's artifacts show
//! `filename` → `mimetype` too, but its upload has no state target.

use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, corpus_write_plans, plan_of, rule_of, serve_corpus_app};

const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

fn put_file(served: &Served, target: &str) -> (Value, bool) {
    let (tool, mut arguments) = call_for(served, "PUT", target, Some(FILE_TEMPLATE));
    arguments.insert(
        "body".to_owned(),
        json!({"type": "file", "format": "text", "content": "x,y\n"}),
    );
    served.call(&tool, arguments)
}

fn read_file(served: &Served, target: &str) -> (Value, bool) {
    let (tool, arguments) = call_for(served, "GET", target, Some(FILE_TEMPLATE));
    served.call(&tool, arguments)
}

#[test]
fn a_created_files_mimetype_is_learned_by_its_names_suffix_not_as_a_collection_constant() {
    let plans = corpus_write_plans("jupyter_server");
    let put = plan_of(&plans, "put_contents_by_content_id_and_name");
    let upsert = &put["upsert"];
    let rule = rule_of(upsert, "name-suffix");
    assert_eq!(rule["explains"], json!(["/mimetype"]), "{rule:#}");
    let learned = &rule["rule"]["fields"]["/mimetype"];
    assert_eq!(learned["member"], "name", "{learned:#}");
    // The file's name is the path's second parameter.
    assert_eq!(learned["source"], "path:1", "{learned:#}");
    assert_eq!(learned["values"]["md"], "text/markdown", "{learned:#}");
    assert_eq!(learned["values"]["png"], "image/png", "{learned:#}");
    let constants = upsert["fields"]["collection_constants"]
        .as_array()
        .expect("collection constants");
    assert!(!constants.contains(&json!("mimetype")), "{upsert:#}");
    // Members every held file shares (`writable`) stay collection constants.
    assert!(constants.contains(&json!("writable")), "{upsert:#}");
}

#[test]
fn a_served_file_create_takes_the_mimetype_of_its_suffix_and_refuses_an_unseen_one() {
    let served = serve_corpus_app("jupyter_server");
    // Into `data`, whose one held file is a PNG: a Markdown file is still Markdown.
    for (target, mimetype) in [
        ("/api/contents/data/summary.md", "text/markdown"),
        ("/api/contents/notes/chart.png", "image/png"),
        // `data/sales.csv`, held from the build's read restating it (`?type=file&format=text`).
        ("/api/contents/data/budget.csv", "text/csv"),
    ] {
        let (written, is_error) = put_file(&served, target);
        assert!(!is_error, "{target}: {written}");
        assert_eq!(written["status"], 201, "{target}: {written}");
        assert_eq!(written["body"]["mimetype"], mimetype, "{target}: {written}");
        let (file, is_error) = read_file(&served, target);
        assert!(!is_error, "{target}: {file}");
        assert_eq!(file["body"]["mimetype"], mimetype, "{target}: {file}");
    }
    // `.xlsx` was never held as a file the state holds: refused, and nothing is created.
    let (refused, is_error) = put_file(&served, "/api/contents/data/budget.xlsx");
    assert!(is_error, "{refused}");
    assert!(
        refused.to_string().contains("never showed a name like"),
        "{refused}"
    );
    let (missing, _) = read_file(&served, "/api/contents/data/budget.xlsx");
    assert_ne!(missing["status"], 200, "{missing}");
}
