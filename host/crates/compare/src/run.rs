//! Running one probe against the environment: each record becomes a step (or an unobserved
//! record), answered in-process and judged.
//!
//! Per record, in call order: a record without a usable request line (`no-request-line`) or on
//! another origin (`other-origin`) is not replayed; a request no manifest tool matches is a
//! `no-tool` step, one whose tool the environment does not offer a `not-served` step (no call is
//! made); otherwise the call is made, through the served tool's input schema check. A request
//! the probe recorded no answer to is made but not compared (`no-answer`). A compared step
//! agrees when the statuses and the normalised bodies are equal; a live body the probe did not
//! record compares by status only (`unobserved_body`, unless the answer never carries one: 204,
//! 205, 304, `HEAD`).
//!
//! Ids are learned only from an answer the environment gave this call itself: from its state
//! (a read, a served write), or from the recording of this very call (the record replay chose
//! matched every argument, and its request body equals the probe's); never from another call's
//! recording and never when the probe omitted the live body.

use std::collections::BTreeMap;

use rea_manifest::body::interpret;
use rea_manifest::segments::split_path;
use rea_manifest::{Environment, Manifest, ManifestTool, ReplayBody};
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::Value;

use crate::adapter::{Answer, AnswerBody, Served, Source};
use crate::diff::{
    BodyComparison, Category, Context, Difference, Representation, compare_bodies, cut,
};
use crate::generated::Generation;
use crate::ids::{IdFields, IdMap};
use crate::probe::Probe;
use crate::report::{MAX_DIFFERENCES, ProbeReport, Step, Tally, Unobserved};
use crate::route::{Request, arguments, call_collection, decoded, match_tool};

/// What every probe's run reads.
pub struct Bench<'a> {
    /// The served environment.
    pub served: &'a Served,
    /// The manifest.
    pub manifest: &'a Manifest,
    /// The replay environment (tool definitions: argument names and targets).
    pub environment: &'a Environment,
    /// The build capture's request bodies by ordinal (to tell a recording of this very call).
    pub build_bodies: &'a BTreeMap<u64, Option<Value>>,
    /// Which members hold ids.
    pub fields: &'a IdFields,
}

/// `METHOD path?query`, cut short.
pub fn request_line(record: &CaptureRecord) -> Option<String> {
    let method = record.method.as_deref()?;
    let path = record.path.as_deref()?;
    let query = record
        .query
        .as_ref()
        .and_then(|query| query.raw.as_deref())
        .map(|raw| format!("?{raw}"))
        .unwrap_or_default();
    Some(cut(&format!("{method} {path}{query}")))
}

/// A recorded request body: JSON when it parses, a form body's pairs as an object of strings
/// (the members the tool's body schema names, as an agent sends them), else its text; `None`
/// when blank or absent.
pub fn request_body(record: &CaptureRecord) -> Option<Value> {
    let bytes = record.request.body.bytes()?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let form = record.request.media_type.as_deref().is_some_and(|media| {
        media.split(';').next().is_some_and(|essence| {
            essence
                .trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
    });
    if let (true, Ok(text)) = (form, std::str::from_utf8(&bytes)) {
        let pairs = rea_plugin_api::contracts::capture::url::decode_query(text.trim());
        let mut members = serde_json::Map::new();
        for (name, value) in pairs {
            if members.insert(name, Value::String(value)).is_some() {
                return Some(Value::String(text.to_owned()));
            }
        }
        return Some(Value::Object(members));
    }
    Some(
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned())),
    )
}

/// A recorded response body in its representation (`None`: not recorded).
fn live_body(record: &CaptureRecord) -> Option<Representation> {
    let interpreted = interpret(&record.response.body, record.response.media_type.as_deref());
    if !interpreted.recorded {
        return None;
    }
    Some(match &interpreted.body {
        ReplayBody::NotRecorded => return None,
        ReplayBody::Json(raw) => {
            Representation::Json(serde_json::from_str(raw.get()).unwrap_or(Value::Null))
        }
        ReplayBody::Text(text) => match interpreted.encoding {
            rea_manifest::BodyEncoding::Base64 => bytes_of(text),
            rea_manifest::BodyEncoding::Utf8 => Representation::Text(text.to_string()),
        },
    })
}

fn bytes_of(base64_text: &str) -> Representation {
    use base64::Engine as _;
    match base64::engine::general_purpose::STANDARD.decode(base64_text) {
        Ok(bytes) => Representation::Bytes(bytes),
        Err(_) => Representation::Text(base64_text.to_owned()),
    }
}

fn env_body(body: &AnswerBody) -> Representation {
    match body {
        AnswerBody::Json(value) => Representation::Json(value.clone()),
        AnswerBody::Base64(text) => bytes_of(text),
        AnswerBody::NotRecorded => Representation::Json(Value::Null),
    }
}

fn success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// Runs one probe (the environment already reset).
pub fn run_probe(bench: &Bench<'_>, probe: &Probe) -> ProbeReport {
    let mut run = ProbeRun {
        bench,
        ids: IdMap::default(),
        tally: Tally::default(),
        steps: Vec::new(),
        unobserved: Vec::new(),
    };
    for record in &probe.records {
        run.record(record, &probe.origin);
    }
    run.tally.id_conflicts = run.ids.conflicts() as u64;
    ProbeReport {
        evidence_id: probe.evidence_id.clone(),
        origin: probe.origin.clone(),
        order: probe.order.name(),
        tally: run.tally,
        steps: run.steps,
        unobserved: run.unobserved,
    }
}

struct ProbeRun<'b, 'a> {
    bench: &'b Bench<'a>,
    ids: IdMap,
    tally: Tally,
    steps: Vec<Step>,
    unobserved: Vec<Unobserved>,
}

impl ProbeRun<'_, '_> {
    fn unobserved(&mut self, record: &CaptureRecord, reason: &'static str) {
        self.tally.unobserved += 1;
        self.unobserved.push(Unobserved {
            ordinal: record.ordinal,
            reason,
            request: request_line(record),
        });
    }

    fn record(&mut self, record: &CaptureRecord, origin: &str) {
        let (Some(method), Some(path), Some(record_origin)) = (
            record.method.as_deref().filter(|method| !method.is_empty()),
            record.path.as_deref(),
            record.origin.as_deref(),
        ) else {
            return self.unobserved(record, "no-request-line");
        };
        if record_origin != origin {
            return self.unobserved(record, "other-origin");
        }
        let answered = record.response.status != 0;
        // Read as the projection read the build's paths: ids over two segments joined.
        let joined = rea_manifest::joined::join_path(path, &self.bench.manifest.joined_segments);
        let path = joined.as_deref().unwrap_or(path);
        let tool = match_tool(&self.bench.manifest.tools, method, path);
        let (Some(tool), true) = (
            tool,
            tool.is_some_and(|tool| self.bench.served.offers(&tool.name)),
        ) else {
            if !answered {
                return self.unobserved(record, "no-answer");
            }
            // A tool the manifest only inferred (sibling transfer) and the environment does not
            // serve is no tool at all to an agent: never recorded, never listed.
            let tool = tool.filter(|tool| tool.inferred_from.is_none());
            let category = if tool.is_some() {
                Category::NotServed
            } else {
                Category::NoTool
            };
            return self.push(unanswered_step(record, tool, category));
        };
        let Some(definition) = self.bench.environment.tool(&tool.name) else {
            return self.push(unanswered_step(record, Some(tool), Category::NotServed));
        };
        let request = Request {
            path,
            pairs: record
                .query
                .as_ref()
                .map(|query| query.pairs.iter().flatten().cloned().collect())
                .unwrap_or_default(),
            body: request_body(record),
        };
        let call = arguments(definition, &request, &self.ids, self.bench.fields);
        let sent = call
            .iter()
            .find(|(name, _)| {
                definition
                    .input_schema
                    .argument(name)
                    .is_some_and(|argument| {
                        argument.target == rea_manifest::catalog::ArgumentTarget::Body
                    })
            })
            .map(|(_, body)| body.clone());
        let env_params = env_path_params(tool, definition, &call);
        // Sent as the probe's query was: an answer repeating the call repeats that order.
        let order = crate::route::sent_order(definition, &request, &call);
        let answer = self.bench.served.call_sent(&tool.name, call, Some(order));
        if !answered {
            return self.unobserved(record, "no-answer");
        }
        let step = self.judge(record, tool, &request, answer, (sent, env_params));
        self.push(step);
    }

    fn push(&mut self, step: Step) {
        self.tally.count(&step);
        self.steps.push(step);
    }

    fn judge(
        &mut self,
        record: &CaptureRecord,
        tool: &ManifestTool,
        request: &Request<'_>,
        answer: Answer,
        env_side: (Option<Value>, Vec<String>),
    ) -> Step {
        let live_status = record.response.status;
        let mut step = pending_step(record, Some(tool));
        let (status, body, source) = match answer {
            Answer::Refused { code, message } => {
                step.source = Some("refused".to_owned());
                return finish(
                    step,
                    vec![Difference {
                        category: Category::Refused,
                        pointer: String::new(),
                        live: Some(live_status.to_string()),
                        env: Some(cut(&format!("{code}: {message}"))),
                    }],
                );
            }
            Answer::Answered {
                status,
                body,
                source,
            } => (status, body, source),
        };
        step.source = Some(source_name(&source, self.bench.served.from_state()).to_owned());
        step.env_status = status;
        let collection = call_collection(tool, request.path);
        let live = live_body(record);
        let env = env_body(&body);
        let recorded = match &source {
            Source::Recording { ordinal, .. } => self.bench.build_bodies.get(ordinal),
            _ => None,
        };
        if let Some((live, env)) = learnable_bodies(live.as_ref(), &env)
            && may_learn(&source, recorded, &request.body)
        {
            let written = written_view(&source).is_some();
            self.ids
                .learn_answers(self.bench.fields, &collection, (live, env), written);
        }
        let mut differences = Vec::new();
        if status != Some(live_status) {
            differences.push(self.status_difference(tool, request, live_status, status));
        }
        let bodiless = matches!(live_status, 204 | 205 | 304)
            || record
                .method
                .as_deref()
                .is_some_and(|method| method.eq_ignore_ascii_case("HEAD"));
        match live {
            _ if bodiless => {}
            None => step.unobserved_body = true,
            Some(live) => {
                let generation = written_view(&source).map(|view| Generation {
                    rules: self.bench.served.generation_rules(&tool.name, view),
                    path_params: (live_path_params(tool, request.path), env_side.1),
                    sent: (request.body.clone(), env_side.0),
                });
                let context = Context {
                    ids: &self.ids,
                    fields: self.bench.fields,
                    collection: Some(&collection),
                    generation: generation.as_ref(),
                };
                let BodyComparison {
                    differences: found,
                    normalised,
                } = compare_bodies(&context, &live, &env);
                self.tally.normalised.add(normalised);
                differences.extend(found);
            }
        }
        finish(step, differences)
    }

    /// `status`, or `unmapped-id` when the application succeeded, the environment did not, and
    /// a path parameter's live value was never mapped.
    fn status_difference(
        &self,
        tool: &ManifestTool,
        request: &Request<'_>,
        live: u16,
        env: Option<u16>,
    ) -> Difference {
        let unmapped = success(live)
            && !env.is_some_and(success)
            && live_path_params(tool, request.path)
                .iter()
                .any(|value| !self.ids.knows(value));
        Difference {
            category: if unmapped {
                Category::UnmappedId
            } else {
                Category::Status
            },
            pointer: String::new(),
            live: Some(live.to_string()),
            env: Some(env.map_or_else(|| "null".to_owned(), |status| status.to_string())),
        }
    }
}

/// Whether ids may be learned from an answer (the live body recorded, both JSON, is the caller's
/// part): one from the state (a read, a served write), or the recording of this very call
/// (replay matched every argument, and the recorded request body, `recorded`, equals the one
/// sent). A missing write target's answer is another call's recorded absence replayed in its
/// place: it teaches nothing.
pub fn may_learn(source: &Source, recorded: Option<&Option<Value>>, sent: &Option<Value>) -> bool {
    match source {
        Source::State | Source::Write { .. } => true,
        Source::Missing => false,
        Source::Recording { exact, .. } => *exact && recorded == Some(sent),
    }
}

/// The two JSON bodies ids may be learned from: never when the probe omitted the live body.
pub fn learnable_bodies<'a>(
    live: Option<&'a Representation>,
    env: &'a Representation,
) -> Option<(&'a Value, &'a Value)> {
    match (live?, env) {
        (Representation::Json(live), Representation::Json(env)) => Some((live, env)),
        _ => None,
    }
}

/// The write view whose generation rules apply to an answer: only a served write's own
/// answer (a missing target's absence answer, reads and recordings have none).
pub fn written_view(source: &Source) -> Option<&str> {
    match source {
        Source::Write { view } => Some(view),
        Source::State | Source::Missing | Source::Recording { .. } => None,
    }
}

/// The live path's parameter values (a fused one without its prefix and suffix), decoded, in
/// segment order.
fn live_path_params(tool: &ManifestTool, path: &str) -> Vec<String> {
    let segments = split_path(path);
    let mut parameters: Vec<_> = tool.path_parameters.iter().collect();
    parameters.sort_by_key(|parameter| parameter.segment_index);
    parameters
        .iter()
        .filter_map(|parameter| {
            segments
                .get(parameter.segment_index)
                .map(|segment| decoded(parameter.value_in(segment).unwrap_or(segment)))
        })
        .collect()
}

/// The environment call's path parameter values, decoded, in segment order.
fn env_path_params(
    tool: &ManifestTool,
    definition: &rea_manifest::ToolDefinition,
    call: &serde_json::Map<String, Value>,
) -> Vec<String> {
    let mut parameters: Vec<_> = tool.path_parameters.iter().collect();
    parameters.sort_by_key(|parameter| parameter.segment_index);
    parameters
        .iter()
        .filter_map(|parameter| {
            let argument = definition.input_schema.arguments.iter().find(|argument| {
                matches!(&argument.target, rea_manifest::catalog::ArgumentTarget::Path { segment_index, .. } if *segment_index == parameter.segment_index)
            })?;
            call.get(&argument.name)?.as_str().map(decoded)
        })
        .collect()
}

fn source_name(source: &Source, from_state: bool) -> &'static str {
    match source {
        Source::State => "state",
        Source::Write { .. } => "write",
        Source::Missing => "missing",
        Source::Recording { .. } if from_state => "recording",
        Source::Recording { .. } => "replay",
    }
}

/// A step of a record before its verdict.
fn pending_step(record: &CaptureRecord, tool: Option<&ManifestTool>) -> Step {
    Step {
        ordinal: record.ordinal,
        request: request_line(record).unwrap_or_default(),
        tool: tool.map(|tool| tool.name.clone()),
        source: None,
        live_status: record.response.status,
        env_status: None,
        agrees: false,
        agrees_ignoring_order: false,
        unobserved_body: false,
        categories: Vec::new(),
        difference_count: 0,
        differences: Vec::new(),
    }
}

/// A step the environment could not be asked (`no-tool`, `not-served`).
fn unanswered_step(
    record: &CaptureRecord,
    tool: Option<&ManifestTool>,
    category: Category,
) -> Step {
    finish(
        pending_step(record, tool),
        vec![Difference {
            category,
            pointer: String::new(),
            live: Some(record.response.status.to_string()),
            env: None,
        }],
    )
}

/// Settles a step's verdict from its differences and keeps the first [`MAX_DIFFERENCES`].
fn finish(mut step: Step, mut differences: Vec<Difference>) -> Step {
    step.agrees = differences.is_empty();
    step.agrees_ignoring_order = differences
        .iter()
        .all(|difference| difference.category == Category::Order);
    step.difference_count = differences.len();
    step.categories = differences
        .iter()
        .map(|difference| difference.category)
        .collect();
    step.categories.sort();
    step.categories.dedup();
    differences.truncate(MAX_DIFFERENCES);
    step.differences = differences;
    step
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_learned_only_from_this_call_own_answer() {
        let sent = Some(json!({"title": "a"}));
        // contract: COMPARE-018
        assert!(may_learn(&Source::State, None, &sent));
        assert!(may_learn(
            &Source::Write {
                view: "create".into()
            },
            None,
            &sent
        ));
        let exact = Source::Recording {
            ordinal: 3,
            exact: true,
            reason: None,
        };
        assert!(may_learn(&exact, Some(&sent.clone()), &sent));
        // contract: COMPARE-019
        let inexact = Source::Recording {
            ordinal: 3,
            exact: false,
            reason: None,
        };
        assert!(!may_learn(&inexact, Some(&sent.clone()), &sent));
        assert!(!may_learn(
            &exact,
            Some(&Some(json!({"title": "b"}))),
            &sent
        ));
        assert!(!may_learn(&exact, None, &sent));
        // A missing target's recorded absence is another call's recording.
        assert!(!may_learn(&Source::Missing, None, &sent));
        let env = Representation::Json(json!({"id": 1}));
        // contract: COMPARE-020
        assert!(learnable_bodies(None, &env).is_none());
        assert!(learnable_bodies(Some(&Representation::Json(json!({"id": 2}))), &env).is_some());
    }

    #[test]
    fn only_a_served_write_answer_has_generation_rules() {
        assert_eq!(
            written_view(&Source::Write {
                view: "create".into()
            }),
            Some("create")
        );
        // contract: COMPARE-041
        assert_eq!(written_view(&Source::State), None);
        assert_eq!(
            written_view(&Source::Recording {
                ordinal: 0,
                exact: true,
                reason: None
            }),
            None
        );
        // contract: COMPARE-042
        assert_eq!(written_view(&Source::Missing), None);
    }
}
