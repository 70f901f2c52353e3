//! Creates below a parent: a create tool whose route is a served create's route with one more
//! parameter segment naming the parent (Jupyter Server's `POST /api/contents/{dir}` beside the
//! served `POST /api/contents`, build call 25: `{"type": "directory"}` makes `Untitled Folder`)
//! is withheld for its own calls (a file from an extension and a copy, calls 20 and 22, which no
//! rule explains), so it takes the root create's plan, inferred from it: the folder is created in
//! the directory the path names, its `path` spelled as that directory's path, `/`, and its name,
//! as every held entry of the type spells it; a directory the state does not hold is refused. One
//! recorded application shows such routes: etcd's keys below a directory are folder-tree writes,
//! and no other capture creates through a parent's route beside a root route.

use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{corpus_write_plans, plan_of, serve_corpus_app};

#[test]
fn the_create_below_a_folder_takes_the_root_creates_plan() {
    let plans = corpus_write_plans("jupyter_server");
    let below = plan_of(&plans, "post_contents_by_name");
    assert_eq!(below["served"], true, "{below:#}");
    assert_eq!(below["inferred_from"], "post_contents", "{below:#}");
    assert_eq!(
        below["fields"]["below_parent"],
        json!({"parent_at": 2, "parent_type": "/api/contents", "members": ["path"]}),
        "{below:#}"
    );
    assert_eq!(below["record_ordinals"], json!([]), "{below:#}");
}

#[test]
fn a_folder_created_below_a_held_folder_spells_its_path_and_a_missing_parent_is_refused() {
    let served = serve_corpus_app("jupyter_server");
    let create = |target: &str| {
        let (tool, mut arguments) = call_for(&served, "POST", target, None);
        assert_eq!(tool, "post_contents_by_name");
        arguments.insert("body".to_owned(), json!({"type": "directory"}));
        served.call(&tool, arguments)
    };
    let (created, is_error) = create("/api/contents/reports");
    assert!(!is_error, "{created}");
    assert_eq!(created["status"], 201, "{created}");
    assert_eq!(created["body"]["name"], "Untitled Folder", "{created}");
    assert_eq!(
        created["body"]["path"], "reports/Untitled Folder",
        "{created}"
    );
    assert_eq!(created["body"]["type"], "directory", "{created}");
    assert_eq!(created["body"]["content"], Value::Null, "{created}");
    // The folder is held where the path put it.
    let (tool, arguments) = call_for(
        &served,
        "GET",
        "/api/contents/reports/Untitled%20Folder",
        Some("/api/contents/{prefix-variance}/{sibling-variance}"),
    );
    let (read, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{read}");
    assert_eq!(read["body"]["path"], "reports/Untitled Folder", "{read}");
    // A directory the state does not hold names no parent: refused, nothing created.
    let (missing, is_error) = create("/api/contents/nowhere");
    assert!(is_error, "{missing}");
    assert!(missing.to_string().contains("not_found"), "{missing}");
}
