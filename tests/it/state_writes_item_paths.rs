//! Item paths written with a trailing slash (`/api/series/3/`): the read is an item view of the
//! type its list reads, and the writes of that path are the type's update and delete. On flexget
//! (recorded so) a served delete leaves the entity missing, as the build's 404 read showed; on
//! json-server recorded again with every path slash-terminated (the recording rewritten), the
//! state learns the same served plans as from the recording as made.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::state_support;
use state_support::agreement::route;
use state_support::{Served, capture, capture_file, serve_evidence, state_rules};

const FLEXGET: &str = "tests/corpus/apps/flexget/build.har";

fn serve_file(path: &std::path::Path) -> Served {
    serve_evidence(capture_file(path), state_rules(), Default::default())
}

/// Per write tool (method and template without its trailing slash): served, and the effect.
fn plans(served: &Served) -> BTreeMap<(String, String), (bool, String)> {
    served
        .state()
        .write_plans
        .iter()
        .map(|plan| {
            let template = plan.path_template.trim_end_matches('/');
            (
                (plan.method.clone(), template.to_owned()),
                (plan.served, plan.effect.name().to_owned()),
            )
        })
        .collect()
}

#[test]
fn a_served_delete_of_a_slash_terminated_item_leaves_it_missing() {
    let served = serve_file(&rea_tests::workspace_root().join(FLEXGET));
    let deletes: Vec<_> = served
        .state()
        .write_plans
        .iter()
        .filter(|plan| plan.served && plan.effect.name() == "delete")
        .filter(|plan| plan.path_template.ends_with("/"))
        .cloned()
        .collect();
    assert!(!deletes.is_empty(), "{:?}", plans(&served));
    for plan in deletes {
        let target = plan.target.as_ref().expect("a target");
        let item_view = target.item_view.clone().expect("the type's item view");
        // An entity the state holds: one a recorded read of the item view showed.
        let read = served
            .records
            .iter()
            .filter(|record| record.response.status == 200)
            .filter_map(|record| route(&served, record))
            .find(|(tool, _)| *tool == item_view)
            .map(|(_, arguments)| arguments)
            .expect("a recorded read of the item view");
        let tool = plan.tool.clone();
        let arguments = read.clone();
        let (before, _) = served.call(&item_view, read.clone());
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(!is_error, "{tool}: {answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        let (after, _) = served.call(&item_view, read);
        assert_eq!(after["status"], 404, "{item_view} after {tool}: {after}");
        assert_ne!(before["status"], 404, "{item_view} before {tool}: {before}");
    }
}

/// The HAR at `source` with every request path slash-terminated, written into `folder`.
fn slash_terminated(source: &std::path::Path, folder: &std::path::Path) -> std::path::PathBuf {
    let mut har: Value = serde_json::from_slice(&std::fs::read(source).unwrap()).unwrap();
    for entry in har["log"]["entries"].as_array_mut().expect("entries") {
        let url = entry["request"]["url"].as_str().expect("a url").to_owned();
        let (path, query) = match url.split_once('?') {
            Some((path, query)) => (path.to_owned(), format!("?{query}")),
            None => (url, String::new()),
        };
        let path = if path.ends_with('/') {
            path
        } else {
            format!("{path}/")
        };
        entry["request"]["url"] = json!(format!("{path}{query}"));
    }
    let written = folder.join("build.har");
    std::fs::write(&written, serde_json::to_vec(&har).unwrap()).unwrap();
    written
}

#[test]
fn slash_terminated_paths_learn_the_plans_the_plain_paths_do() {
    let plain = capture("json-server/build.har");
    let folder = tempfile::tempdir().unwrap();
    let slashed = slash_terminated(
        &state_support::capture_path("json-server/build.har"),
        folder.path(),
    );
    let plain = serve_evidence(plain, state_rules(), Default::default());
    let slashed = serve_file(&slashed);
    let expected = plans(&plain);
    assert!(
        expected.values().filter(|(served, _)| *served).count() >= 3,
        "{expected:?}"
    );
    assert_eq!(plans(&slashed), expected);
    // Every item view of the plain recording is an item view of the slash-terminated one.
    let items = |served: &Served| -> Vec<String> {
        served
            .state()
            .views
            .iter()
            .filter(|view| matches!(view.detail, rea_state::model::ViewDetail::Item(_)))
            .map(|view| view.path_template.trim_end_matches('/').to_owned())
            .collect()
    };
    assert!(!items(&plain).is_empty());
    assert_eq!(items(&slashed), items(&plain));
}
