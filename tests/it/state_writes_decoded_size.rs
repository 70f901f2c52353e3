//! A byte length counting a text's decoded bytes, learned by the `byte-length` rule stage from
//! the entities the state held: Jupyter Server's file `PUT /api/contents/{dir}/{file}` stores
//! `size` as the bytes of the sent `content`, and for `format: "base64"` as the bytes it decodes
//! to. The build saved only text files (`notes/standup.md`), but it read `data/logo.png` as
//! base64 (`size` 71, its content 98 characters on wrapped lines): the rule learns that a call
//! sending `format: "base64"` is measured by the decoded bytes, where the build's calls sent
//! `"text"`. One recorded application shows it (the other base64 bodies of the corpus,
//! verdaccio's and pouchdb-server's attachments, send their length).
//!
//! The held `logo.png` also shows how the application spells the bytes it stores: re-encoded on
//! lines of 76 characters, each ending in a line break. The rule learns that spelling and stores
//! a base64 save re-spelled (`respells`), so the probe's `pixel.png` reads back as
//! `iVBORw0KGgo=\n`, as the live application answered it. One recorded application shows it.

use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, corpus_write_plans, plan_of, rule_of, serve_corpus_app};

const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

fn put_file(served: &Served, target: &str, body: Value) -> (Value, bool) {
    let (tool, mut arguments) = call_for(served, "PUT", target, Some(FILE_TEMPLATE));
    arguments.insert("body".to_owned(), body);
    served.call(&tool, arguments)
}

fn get_file(served: &Served, target: &str) -> (Value, bool) {
    let (tool, arguments) = call_for(served, "GET", target, Some(FILE_TEMPLATE));
    served.call(&tool, arguments)
}

#[test]
fn the_file_create_learns_the_base64_form_from_the_held_png() {
    let plans = corpus_write_plans("jupyter_server");
    let put = plan_of(&plans, "put_contents_by_content_id_and_name");
    let upsert = &put["upsert"];
    let rule = rule_of(upsert, "byte-length");
    assert_eq!(rule["explains"], json!(["/size"]), "{rule:#}");
    assert_eq!(
        rule["rule"]["fields"]["/size"],
        json!({"member": "content", "form": {"member": "format", "value": "base64",
            "wrap": {"line": 76, "final_break": true}}}),
        "{rule:#}"
    );
    assert_eq!(rule["rule"]["respells"], json!(["/content"]), "{rule:#}");
}

#[test]
fn a_served_base64_file_counts_its_decoded_bytes_and_a_text_file_its_text() {
    let served = serve_corpus_app("jupyter_server");
    // The probe's 8-byte PNG header, 12 characters of base64.
    let pixel = json!({"type": "file", "format": "base64", "content": "iVBORw0KGgo="});
    let (written, is_error) = put_file(&served, "/api/contents/data/pixel.png", pixel);
    assert!(!is_error, "{written}");
    assert_eq!(written["status"], 201, "{written}");
    assert_eq!(written["body"]["size"], 8, "{written}");
    // It reads back re-spelled as the held PNG is (a final line break), its size its bytes.
    let (read, is_error) = get_file(&served, "/api/contents/data/pixel.png");
    assert!(!is_error, "{read}");
    assert_eq!(read["body"]["content"], "iVBORw0KGgo=\n", "{read}");
    assert_eq!(read["body"]["format"], "base64", "{read}");
    assert_eq!(read["body"]["size"], 8, "{read}");
    let text = json!({"type": "file", "format": "text", "content": "iVBORw0KGgo="});
    let (written, is_error) = put_file(&served, "/api/contents/notes/pixel.md", text);
    assert!(!is_error, "{written}");
    assert_eq!(written["body"]["size"], 12, "{written}");
    // A text file is stored as sent.
    let (read, is_error) = get_file(&served, "/api/contents/notes/pixel.md");
    assert!(!is_error, "{read}");
    assert_eq!(read["body"]["content"], "iVBORw0KGgo=", "{read}");
    // Not base64 while naming that form: refused, nothing created.
    let broken = json!({"type": "file", "format": "base64", "content": "not base64!"});
    let (refused, is_error) = put_file(&served, "/api/contents/data/broken.png", broken);
    assert!(is_error, "{refused}");
    assert!(refused.to_string().contains("not base64"), "{refused}");
}
