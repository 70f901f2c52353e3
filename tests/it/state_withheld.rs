//! `[serve] withheld`: what a state environment does with the write tools whose plan is withheld,
//! on recorded corpus apps. Hidden (the default) they are no tools; refused they are listed and a
//! call of their recorded request answers a `not_served` error with the plan's reason and hint;
//! replayed they are listed and a call answers its recording, flagged `withheld-write` in
//! `state`. Neither changes the state. A bundle's README says which mode it serves.

use crate::bundle_support;
use crate::state_support;

use std::path::PathBuf;
use std::sync::Arc;

use rea_backends::fetch::FetchOptions;
use rea_serve::ToolBackend;
use rea_state::rules::{RuleSet, WithheldWrites};
use serde_json::Value;
use state_support::agreement::route;
use state_support::{Served, capture, capture_file, serve_evidence, state_rules};

/// Recorded apps with withheld writes: a shared capture and three corpus apps (json-server's
/// build serves every write it recorded).
const APPS: [&str; 4] = [
    "mlflow/build.har",
    "tests/corpus/apps/json-server-v1/build.har",
    "tests/corpus/apps/directus/build.har",
    "tests/corpus/apps/pouchdb-server/build.har",
];

fn served(app: &str, mode: WithheldWrites) -> Served {
    let rules = Arc::new(RuleSet::clone(&state_rules()).with_withheld(mode));
    let evidence = match app.strip_prefix("tests/") {
        Some(_) => capture_file(&rea_tests::workspace_root().join(app)),
        None => capture(app),
    };
    serve_evidence(evidence, rules, FetchOptions::default())
}

fn listed(served: &Served, tool: &str) -> bool {
    served
        .backend
        .tools()
        .iter()
        .any(|listed| listed.name == tool)
}

/// A withheld plan's exemplar call: `(tool, reason, hint, record index, arguments)`.
type WithheldCall = (
    String,
    String,
    String,
    usize,
    serde_json::Map<String, Value>,
);

/// Each withheld plan whose exemplar call routes to its own tool.
fn withheld_calls(served: &Served) -> Vec<WithheldCall> {
    let mut calls = Vec::new();
    for plan in served
        .state()
        .write_plans
        .iter()
        .filter(|plan| !plan.served)
    {
        let Some(ordinal) = plan
            .exemplar_ordinal
            .or(plan.record_ordinals.first().copied())
        else {
            continue;
        };
        let Some(index) = served.records.iter().position(|r| r.ordinal == ordinal) else {
            continue;
        };
        let Some((tool, arguments)) = route(served, &served.records[index]) else {
            continue;
        };
        if tool == plan.tool {
            calls.push((
                tool,
                plan.reason.clone().expect("a withheld plan says why"),
                plan.hint
                    .clone()
                    .expect("a withheld plan says what to record"),
                index,
                arguments,
            ));
        }
    }
    calls
}

#[test]
fn hidden_withheld_writes_are_no_tools() {
    let mut apps = 0;
    for app in APPS {
        let served = served(app, WithheldWrites::Hide);
        let withheld: Vec<&str> = served
            .state()
            .write_plans
            .iter()
            .filter(|plan| !plan.served)
            .map(|plan| plan.tool.as_str())
            .collect();
        assert!(!withheld.is_empty(), "{app} withholds a write");
        for tool in &withheld {
            assert!(!listed(&served, tool), "{app}: {tool} is hidden");
            let (answer, is_error) = served.call(tool, serde_json::Map::new());
            assert!(is_error, "{app}: {tool}: {answer}");
            assert_ne!(answer["error"]["code"], "not_served", "{app}: {answer}");
        }
        apps += 1;
    }
    assert_eq!(apps, APPS.len());
}

#[test]
fn refused_withheld_writes_are_listed_and_answer_not_served_changing_nothing() {
    let mut apps = 0;
    for app in APPS {
        let served = served(app, WithheldWrites::Refuse);
        let calls = withheld_calls(&served);
        for plan in served
            .state()
            .write_plans
            .iter()
            .filter(|plan| !plan.served)
        {
            assert!(
                listed(&served, &plan.tool),
                "{app}: {} is listed",
                plan.tool
            );
        }
        let before = served.backend.service().document();
        for (tool, reason, hint, _, arguments) in &calls {
            let (answer, is_error) = served.call(tool, arguments.clone());
            assert!(is_error, "{app}: {tool}: {answer}");
            assert_eq!(answer["error"]["code"], "not_served", "{app}: {answer}");
            assert_eq!(answer["error"]["data"]["tool"], tool.as_str());
            assert_eq!(answer["error"]["data"]["reason"], reason.as_str());
            assert_eq!(answer["error"]["data"]["hint"], hint.as_str());
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(reason.as_str()), "{app}: {message}");
        }
        assert_eq!(
            served.backend.service().document(),
            before,
            "{app}: refused writes change nothing"
        );
        apps += usize::from(!calls.is_empty());
    }
    assert!(apps >= 2, "refused calls on {apps} apps");
}

#[test]
fn replayed_withheld_writes_answer_their_recording_flagged_changing_nothing() {
    let mut apps = 0;
    for app in APPS {
        let served = served(app, WithheldWrites::Replay);
        let calls = withheld_calls(&served);
        let before = served.backend.service().document();
        for (tool, reason, _, index, arguments) in &calls {
            assert!(listed(&served, tool), "{app}: {tool} is listed");
            let (answer, is_error) = served.call(tool, arguments.clone());
            let (status, _) = state_support::recorded_answer(&served.records[index.to_owned()]);
            assert!(!is_error, "{app}: {tool}: {answer}");
            assert_eq!(
                answer["status"].as_u64(),
                status.map(u64::from),
                "{app}: {tool}"
            );
            assert_eq!(answer["state"]["source"], "recording", "{app}: {answer}");
            assert_eq!(
                answer["state"]["reason"], "withheld-write",
                "{app}: {answer}"
            );
            assert_eq!(
                answer["state"]["withheld"],
                reason.as_str(),
                "{app}: {answer}"
            );
            assert_eq!(answer["state"]["changed"], false, "{app}: {answer}");
        }
        assert_eq!(
            served.backend.service().document(),
            before,
            "{app}: replayed writes change nothing"
        );
        apps += usize::from(!calls.is_empty());
    }
    assert!(apps >= 2, "replayed calls on {apps} apps");
}

/// Builds `mlflow` with the default pipeline but `[serve] withheld = MODE`; the report.
fn build_with(dir: &std::path::Path, mode: &str) -> Value {
    let default = std::fs::read_to_string(
        rea_tests::workspace_root().join("host/crates/pipeline/src/default.toml"),
    )
    .expect("the default pipeline");
    let pipeline = default.replace("withheld = \"hide\"", &format!("withheld = \"{mode}\""));
    assert!(
        default.contains("withheld = \"hide\""),
        "the default pipeline names its withheld mode"
    );
    let file = dir.join(format!("{mode}.toml"));
    std::fs::write(&file, pipeline).expect("pipeline");
    let binary = bundle_support::stand_in_binary(dir).display().to_string();
    let har: PathBuf = bundle_support::har("mlflow");
    let out = dir.join(mode);
    bundle_support::report(&bundle_support::run(
        dir,
        &[
            "environment-build",
            &har.display().to_string(),
            &out.display().to_string(),
            "--binary",
            &binary,
            "--pipeline",
            &file.display().to_string(),
            "--json",
        ],
    ))
}

#[test]
fn a_bundle_says_which_withheld_mode_it_serves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hide = build_with(dir.path(), "hide");
    let refuse = build_with(dir.path(), "refuse");
    let withheld = refuse["coverage"]["writes"]["withheld"]
        .as_array()
        .map_or(0, Vec::len) as u64;
    assert!(withheld > 0, "{refuse}");
    assert_eq!(
        refuse["tool_count"].as_u64(),
        hide["tool_count"].as_u64().map(|count| count + withheld),
        "refused withheld writes are served tools"
    );
    let check = bundle_support::run(
        dir.path(),
        &[
            "pipeline",
            "check",
            &dir.path().join("refuse.toml").display().to_string(),
            "--json",
        ],
    );
    assert_eq!(check.code, Some(0), "{}", check.stderr);
    let resolved: Value = serde_json::from_str(&check.stdout).expect("JSON");
    assert_eq!(resolved["serve"]["withheld"], "refuse", "{resolved}");
    for mode in ["hide", "refuse"] {
        let readme = std::fs::read_to_string(dir.path().join(mode).join("README.md")).unwrap();
        assert!(
            readme.contains(&format!("`[serve] withheld = \"{mode}\"`")),
            "{mode}: {readme}"
        );
    }
}
