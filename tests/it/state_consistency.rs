//! Self-consistency of the state served from every shared capture: each read tool, called with
//! the arguments of each of its recorded reads before the first related write, answers what the
//! recording answered (status and body), from the state where the state backs it. The share of
//! state-backed answers per capture is printed.

use crate::state_support;

use rea_state::observation::Timeline;
use serde_json::Value;
use state_support::{APPS, arguments_of, recorded_answer, serve};

#[test]
fn every_read_before_the_first_write_answers_as_recorded() {
    // contract: STATE-001, STATE-003, STATE-007, STATE-032, STATE-033, STATE-046, STATE-048, STATE-049, STATE-050, STATE-062, STATE-064, STATE-083, STATE-084, STATE-085, STATE-094, STATE-110
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for app in APPS {
        let served = serve(&format!("{app}/build.har"));
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
                let arguments = arguments_of(&served.replay, &view.tool, record);
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
                let agrees = if source == "state" {
                    !is_error
                        && answer.get("status").and_then(Value::as_u64) == status.map(u64::from)
                        && answer.get("body") == Some(&body)
                } else {
                    // A recording answers exactly as replay does (replay selects by the
                    // arguments, which cannot tell a query POST's bodies apart).
                    let replayed = served
                        .replay
                        .answer(&view.tool, &arguments)
                        .expect("replay")
                        .to_value();
                    !is_error
                        && answer.get("body") == replayed.get("body")
                        && answer.get("replay") == replayed.get("replay")
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
    assert!(
        failures.is_empty(),
        "answers that differ from their recordings:\n{}",
        failures.join("\n")
    );
}
