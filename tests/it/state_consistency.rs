//! Self-consistency of the state served from every shared capture (and one corpus application,
//! pouchdb-server): each read tool, called with the arguments of each of its recorded reads before
//! the first related write, answers what the recording answered (status and body), from the state
//! where the state backs it. The share of state-backed answers per capture is printed. A read the
//! state does not render answers the recording of that very request (a query `POST` is called
//! with its recorded body).

use crate::state_support;

use std::collections::BTreeSet;

use rea_state::observation::Timeline;
use serde_json::Value;
use state_support::agreement::request_json;
use state_support::{APPS, arguments_of, recorded_answer, serve};

/// The arguments of a recorded read, its JSON body included (a query `POST`'s recording answers
/// only the call sending that body).
fn with_body(
    served: &state_support::Served,
    tool: &str,
    record: &rea_plugin_api::contracts::capture::CaptureRecord,
) -> serde_json::Map<String, Value> {
    let mut arguments = arguments_of(&served.replay, tool, record);
    let body_argument = served.replay.tool(tool).and_then(|definition| {
        definition
            .input_schema
            .arguments
            .iter()
            .find(|argument| argument.target == rea_manifest::catalog::ArgumentTarget::Body)
            .map(|argument| argument.name.clone())
    });
    if let (Some(name), Some(body)) = (body_argument, request_json(record)) {
        arguments.insert(name, body);
    }
    arguments
}

#[test]
fn every_read_before_the_first_write_answers_as_recorded() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    // The view kinds each answer source was reached with: the tags below sit on branches that
    // only some captures take, so the captures must reach each of them.
    let mut reached: BTreeSet<(&str, String)> = BTreeSet::new();
    // The shared captures, and a corpus application whose recorded views (attachments, no JSON
    // read) answer reads before the first write, as the shared captures' no longer do now that
    // their query `POST`s are body queries.
    let corpus = rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|app| app.name == "pouchdb-server")
        .expect("the corpus holds pouchdb-server");
    let builds = APPS
        .iter()
        .map(|app| (app.to_string(), serve(&format!("{app}/build.har"))))
        .chain([(
            corpus.name.clone(),
            state_support::serve_evidence(
                state_support::capture_file(&corpus.dir.join("build.har")),
                state_support::state_rules(),
                Default::default(),
            ),
        )]);
    for (app, served) in builds {
        let timeline = Timeline::for_state(&served.manifest, &served.records, served.state());
        let mut from_state = 0usize;
        let mut from_recording = 0usize;
        for view in &served.state().views {
            let Some(tool) = served.manifest.tool(&view.tool) else {
                continue;
            };
            for ordinal in &tool.record_ordinals {
                let Some(observation) = timeline.get(*ordinal) else {
                    continue;
                };
                if !timeline.is_checked(observation) {
                    continue;
                }
                let record = &served.records[*ordinal as usize];
                assert_eq!(record.ordinal, *ordinal);
                let arguments = with_body(&served, &view.tool, record);
                let (answer, is_error) = served.call(&view.tool, arguments.clone());
                let (status, body) = recorded_answer(record);
                let source = answer
                    .pointer("/state/source")
                    .and_then(Value::as_str)
                    .unwrap_or("none");
                match source {
                    "state" => from_state += 1,
                    _ => from_recording += 1,
                }
                reached.insert((view.kind(), source.to_owned()));
                // contract: STATE-083
                let shaped = answer.get("replay").is_some_and(Value::is_object)
                    && answer.get("state").is_some_and(Value::is_object);
                let agrees = shaped
                    && if source == "state" {
                        // contract: STATE-001, STATE-033, STATE-048, STATE-062
                        let as_recorded = !is_error
                            && answer.get("status").and_then(Value::as_u64)
                                == status.map(u64::from)
                            && answer.get("body") == Some(&body);
                        // contract: STATE-084
                        let names_view =
                            answer.pointer("/state/view").is_some_and(Value::is_string);
                        // contract: STATE-094
                        let whole =
                            answer.pointer("/replay/truncated") == Some(&Value::Bool(false));
                        as_recorded && names_view && whole
                    } else {
                        // A recording answers the recording of this very request (its body
                        // included), exactly as replay gives it.
                        // contract: STATE-064
                        let as_replayed = !is_error
                            && answer.get("status").and_then(Value::as_u64)
                                == status.map(u64::from)
                            && answer.get("body") == Some(&body)
                            && answer.pointer("/replay/exact_match") == Some(&Value::Bool(true));
                        // contract: STATE-085
                        let reasoned = source == "recording"
                            && answer
                                .pointer("/state/reason")
                                .is_some_and(Value::is_string);
                        as_replayed && reasoned
                    };
                if !agrees {
                    failures.push(format!(
                        "{app} {} record {ordinal} ({source}): {}",
                        view.tool,
                        serde_json::to_string(&answer)
                            .unwrap_or_default()
                            .chars()
                            .take(400)
                            .collect::<String>()
                    ));
                }
            }
        }
        let (views_state, views_recorded) = served.state().coverage();
        let total = from_state + from_recording;
        report.push(format!(
            "{app}: {from_state}/{total} recorded reads answered from the state ({:.0}%), {from_recording} from recordings; views: {views_state} state-backed, {views_recorded} recorded",
            if total == 0 { 0.0 } else { 100.0 * from_state as f64 / total as f64 }
        ));
    }
    println!("state self-consistency:\n  {}", report.join("\n  "));
    // contract: STATE-032
    for (kind, source) in [
        ("item", "state"),
        ("list", "state"),
        ("document", "state"),
        ("recorded", "recording"),
        ("body-query", "state"),
    ] {
        assert!(
            reached.contains(&(kind, source.to_owned())),
            "no {kind} view answered from the {source} in the shared captures: {reached:?}"
        );
    }
    assert!(
        failures.is_empty(),
        "answers that differ from their recordings:\n{}",
        failures.join("\n")
    );
}
