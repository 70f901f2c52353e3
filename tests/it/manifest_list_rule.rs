//! The card's returns summary names the list the environment state serves: the manifest's list
//! rule (`rea_manifest::outline::Outline::list`) finds the same list as the state's
//! (`rea_state::derive::lists::list_pointer`) in every JSON response of every shared capture and
//! in hand-made edge cases.

use crate::capture_support;

use capture_support::{all_captures, captures_dir, inspect_all};
use rea_json::{Json, escape_pointer_segment};
use rea_manifest::outline::{ListAt, Outline};
use rea_plugin_api::contracts::capture::Body;

/// The manifest rule's list as a JSON pointer (`""`: the root; `/member`).
fn manifest_list(text: &str) -> Option<Option<String>> {
    let outline = Outline::of(text)?;
    Some(outline.list().map(|list| match list {
        ListAt::Root(_) => String::new(),
        ListAt::Member(name, _) => format!("/{}", escape_pointer_segment(name)),
    }))
}

/// The state rule's list, when the text is JSON the state reads.
fn state_list(text: &str) -> Option<Option<String>> {
    let json = Json::parse(text.as_bytes()).ok()?;
    Some(rea_state::derive::lists::list_pointer(&json))
}

// contract: CARD-021
#[test]
fn the_summary_list_is_the_state_list_in_every_recorded_response() {
    let edge_cases = [
        "[]",
        "[{}]",
        r#"[{"a": 1}, 2]"#,
        r#"{"items": []}"#,
        r#"{"items": [], "other": []}"#,
        r#"{"items": [{"id": 1}], "errors": []}"#,
        r#"{"items": [{"id": 1}], "tags": ["a"], "page": {"rows": [{"x": 1}]}}"#,
        r#"{"a/b~c": [{"id": 1}]}"#,
        r#"{"items": [[{"id": 1}]]}"#,
        r#"{"items": null}"#,
        "{}",
        "3",
        r#""text""#,
    ];
    let mut compared = 0;
    for text in edge_cases {
        assert_eq!(manifest_list(text), state_list(text), "{text}");
        compared += 1;
    }
    let root = captures_dir();
    for relative in all_captures() {
        let Ok(capture) = inspect_all(&root.join(&relative)) else {
            continue;
        };
        for record in rea_evidence::capture::capture_records(&capture).expect("records") {
            let Body::Text { text } = &record.response.body else {
                continue;
            };
            // Both rules read JSON; a text either reader refuses has no list.
            let (Some(manifest), Some(state)) = (manifest_list(text), state_list(text)) else {
                continue;
            };
            assert_eq!(
                manifest,
                state,
                "{} record {}",
                relative.display(),
                record.ordinal
            );
            compared += 1;
        }
    }
    assert!(compared > 200, "only {compared} bodies compared");
}
