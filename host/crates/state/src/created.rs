//! Reads of what the capture itself created: a `GET` tool answering from its recordings (no read
//! before a related write showed its entities, so the state holds no type for them) whose every
//! successful recording shows only entities a write of the capture created before it.
//!
//! An entity is *created* by a successful write when the write's answer holds an object whose
//! identity member has the value, and no record before that write named the value (a path
//! segment, a query value, a scalar of a request or response body): it came into being with the
//! write. The identity member is the one an item read's answer echoes its path's last segment in.
//! The state before the capture's first write held none of them, so:
//!
//! - an **item** tool (`/{collection}/{id}`, the last segment a whole parameter) whose every
//!   successful read named a created entity, and that recorded a missing answer (`404`/`410`
//!   with a JSON body), answers that missing answer naming the call's values for every id;
//! - a **list** tool reading the collection of such an item tool (its path is the item template
//!   less its last segment, no query), whose recordings are root arrays of objects, answers the
//!   list its recordings agree on once the created entities are taken out of each (the session
//!   list a create filled and a delete emptied: `[]`).
//!
//! Both answer only calls without a query, and only before a served write that may have created
//! what they answer: a write whose plan's recorded calls include a write that created one of the
//! entities the tool's reads showed (`CreatedRead::creators`); any served write, when none is
//! known. A served write of other tools was never seen creating them (the sessions a file save
//! leaves as they were). Learned from the recordings' values only, never from names.

use rea_manifest::Manifest;
use rea_manifest::segments::{split_path, template_affixes};
use rea_plugin_api::json::Json;
use serde::{Deserialize, Serialize};

use crate::derive::entities::item_segments;
use crate::model::{ReadView, ViewDetail};
use crate::observation::{Observation, RequestBody, Timeline, decoded};

/// A recorded read tool answering the state before the capture's creates (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreatedRead {
    /// The read tool.
    pub tool: String,
    /// What it answers.
    pub answer: CreatedAnswer,
    /// The writes (ordinals) that created the entities its reads showed: once none of them is
    /// a served write's record, no served write was seen creating what it answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub creators: Vec<u64>,
}

impl CreatedRead {
    /// Whether a served write may have created what the read answers: one of the plans served
    /// (`served`: each served plan's record ordinals) recorded a creating write, or no creating
    /// write is known.
    pub fn created_by_served<'a>(&self, mut served: impl Iterator<Item = &'a [u64]>) -> bool {
        self.creators.is_empty()
            || served.any(|records| {
                records
                    .iter()
                    .any(|ordinal| self.creators.contains(ordinal))
            })
    }
}

/// What a [`CreatedRead`] answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CreatedAnswer {
    /// An item tool: the recorded missing answer, naming the call's values.
    Item {
        /// The tool's latest recorded `404`/`410` with a JSON body.
        missing_ordinal: u64,
        /// Each successful read and the write that created the entity it named.
        created_by: Vec<(u64, u64)>,
    },
    /// A list tool: its recordings less the created entities.
    List {
        /// The latest recording, whose status and media type the answer keeps.
        base_ordinal: u64,
        /// The list its recordings agree on without the created entities.
        seed: Json,
    },
}

/// The created reads of the recorded read tools (see the module docs).
pub fn derive(manifest: &Manifest, timeline: &Timeline, views: &[ReadView]) -> Vec<CreatedRead> {
    let recorded: Vec<(&ReadView, usize)> = views
        .iter()
        .filter(|view| view.method == "GET")
        .filter(|view| matches!(&view.detail, ViewDetail::Recorded { reason } if reason != "method-replay"))
        .filter_map(|view| Some((view, crate::derive::tool_index(manifest, &view.tool)?)))
        .collect();
    let mut found = Vec::new();
    for &(view, tool) in &recorded {
        let Some((answer, member)) = item_read(manifest, timeline, tool, view) else {
            continue;
        };
        let creators = item_creators(&answer);
        found.push(CreatedRead {
            tool: view.tool.clone(),
            answer,
            creators: creators.clone(),
        });
        let written = split_path(&view.path_template);
        let collection = item_segments(&written);
        let collection = &collection[..collection.len() - 1];
        for &(list, list_tool) in &recorded {
            if split_path(&list.path_template) == collection
                && let Some((answer, mut listed)) =
                    list_read(manifest, timeline, list_tool, &member)
            {
                listed.extend(&creators);
                listed.sort_unstable();
                listed.dedup();
                found.push(CreatedRead {
                    tool: list.tool.clone(),
                    answer,
                    creators: listed,
                });
            }
        }
    }
    found.sort_by(|a, b| a.tool.cmp(&b.tool));
    found
}

/// The writes that created what an item tool's reads named, in order, each once.
fn item_creators(answer: &CreatedAnswer) -> Vec<u64> {
    let mut creators: Vec<u64> = match answer {
        CreatedAnswer::Item { created_by, .. } => {
            created_by.iter().map(|(_, write)| *write).collect()
        }
        CreatedAnswer::List { .. } => Vec::new(),
    };
    creators.sort_unstable();
    creators.dedup();
    creators
}

/// An item tool's answer (its missing answer, the writes that created what its reads named) and
/// the identity member its answers echo the id in.
fn item_read(
    manifest: &Manifest,
    timeline: &Timeline,
    tool: usize,
    view: &ReadView,
) -> Option<(CreatedAnswer, String)> {
    let written = split_path(&view.path_template);
    let (last, parent) = item_segments(&written).split_last()?;
    if template_affixes(last)? != ("", "") || parent.is_empty() {
        return None;
    }
    // Checked first: most recorded tools recorded no missing answer, and the walk is not needed.
    let missing = crate::derive::members::missing_of(timeline, tool)?;
    let mut member: Option<String> = None;
    let mut created_by = Vec::new();
    for observation in timeline.all(tool).filter(|read| read.is_success()) {
        let segments = item_segments(&observation.segments);
        if segments.len() != item_segments(&written).len() || !observation.pairs().is_empty() {
            return None;
        }
        let id = decoded(segments.last()?);
        let echoed = echoing_member(observation.body.as_ref()?, &id)?;
        if member.get_or_insert_with(|| echoed.clone()) != &echoed {
            return None;
        }
        let write = creating_write(manifest, timeline, (&echoed, &id), observation.position)?;
        created_by.push((observation.ordinal, write));
    }
    if created_by.is_empty() {
        return None;
    }
    let answer = CreatedAnswer::Item {
        missing_ordinal: missing,
        created_by,
    };
    Some((answer, member?))
}

/// The one top-level member of an object answer holding the id (a string, or a number spelled
/// as it).
fn echoing_member(body: &Json, id: &str) -> Option<String> {
    let mut members = body
        .as_object()?
        .iter()
        .filter(|(_, value)| scalar_text(value).as_deref() == Some(id));
    let (name, _) = members.next()?;
    members.next().is_none().then(|| name.to_owned())
}

/// A string's text or a number's lexeme.
fn scalar_text(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.to_string()),
        Json::Number(number) => Some(number.as_str().to_owned()),
        _ => None,
    }
}

/// The ordinal of the successful write before `before` that created the entity whose `member`
/// is `id`: its answer holds such an object, and no record before it named the value.
fn creating_write(
    manifest: &Manifest,
    timeline: &Timeline,
    (member, id): (&str, &str),
    before: usize,
) -> Option<u64> {
    let earlier = timeline
        .ordered
        .iter()
        .take(before)
        .filter_map(|ordinal| timeline.get(*ordinal));
    let mut named = false;
    for observation in earlier {
        let writes = timeline.is_write(manifest, observation.tool) && observation.is_success();
        if writes
            && !named
            && observation
                .body
                .as_ref()
                .is_some_and(|body| holds_object(body, member, id))
        {
            return Some(observation.ordinal);
        }
        named = named || names(observation, id);
    }
    None
}

/// Whether a JSON value holds (at any depth) an object whose `member` is `id`.
fn holds_object(value: &Json, member: &str, id: &str) -> bool {
    match value {
        Json::Object(object) => {
            object
                .get(member)
                .and_then(scalar_text)
                .is_some_and(|text| text == id)
                || object
                    .iter()
                    .any(|(_, child)| holds_object(child, member, id))
        }
        Json::Array(items) => items.iter().any(|child| holds_object(child, member, id)),
        _ => false,
    }
}

/// Whether a record names a value: a path segment, a query value, a key or scalar of its bodies.
fn names(observation: &Observation, id: &str) -> bool {
    let request = match &observation.request {
        RequestBody::Json(body) => Some(body),
        _ => None,
    };
    observation
        .segments
        .iter()
        .any(|segment| decoded(segment) == id)
        || observation.pairs().iter().any(|(_, value)| value == id)
        || observation
            .body
            .iter()
            .chain(request)
            .any(|body| mentions(body, id))
}

/// Whether a JSON value holds the text as a key or a scalar (a number by its lexeme).
fn mentions(value: &Json, id: &str) -> bool {
    match value {
        Json::Object(object) => object
            .iter()
            .any(|(key, child)| key == id || mentions(child, id)),
        Json::Array(items) => items.iter().any(|child| mentions(child, id)),
        Json::String(text) => text == id,
        Json::Number(number) => number.as_str() == id,
        _ => false,
    }
}

/// A list tool's seed: every successful recording a root array of objects, which agree once
/// the entities created before each are taken out.
fn list_read(
    manifest: &Manifest,
    timeline: &Timeline,
    tool: usize,
    member: &str,
) -> Option<(CreatedAnswer, Vec<u64>)> {
    let mut seed: Option<Json> = None;
    let mut base_ordinal = None;
    let mut creators = Vec::new();
    for observation in timeline.all(tool).filter(|read| read.is_success()) {
        if !observation.pairs().is_empty() || observation.query_withheld {
            return None;
        }
        let items = observation.body.as_ref()?.as_array()?;
        let mut kept = Vec::new();
        for item in items {
            let id = scalar_text(item.as_object()?.get(member)?)?;
            match creating_write(manifest, timeline, (member, &id), observation.position) {
                Some(write) => creators.push(write),
                None => kept.push(item.clone()),
            }
        }
        let reduced = Json::Array(kept);
        if seed.get_or_insert_with(|| reduced.clone()) != &reduced {
            return None;
        }
        base_ordinal = Some(observation.ordinal);
    }
    let answer = CreatedAnswer::List {
        base_ordinal: base_ordinal?,
        seed: seed?,
    };
    Some((answer, creators))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::derive::tests::{Fixture, derive, record};

    const RUN: &str = "6f1c2a9e-0b7d-4e25-9a51-3c8f0e7d2b14";
    const OTHER: &str = "d3b07384-d9a0-4c1f-8e3b-7a6f5c4d2e10";

    fn run(id: &str, state: &str) -> Value {
        json!({"id": id, "state": state, "worker": {"id": "w-1f3", "busy": false}})
    }

    /// A run created, read, listed, deleted, then read missing and listed empty: no read saw a
    /// run before its create.
    fn created_then_deleted() -> Vec<rea_plugin_api::contracts::capture::CaptureRecord> {
        vec![
            record(0, "GET", "/api/health", 200, json!({"ok": true})),
            record(1, "POST", "/api/runs", 201, run(RUN, "starting")),
            record(2, "GET", &format!("/api/runs/{RUN}"), 200, run(RUN, "idle")),
            record(3, "GET", "/api/runs", 200, json!([run(RUN, "idle")])),
            record(4, "DELETE", &format!("/api/runs/{RUN}"), 204, Value::Null),
            record(
                5,
                "GET",
                &format!("/api/runs/{RUN}"),
                404,
                json!({"message": format!("Run not found: run_id='{RUN}'")}),
            ),
            record(6, "GET", "/api/runs", 200, json!([])),
        ]
    }

    /// The capture of [`created_then_deleted`] with one record replaced by a `GET` of `path`
    /// answering `body`, derived.
    fn replaced(ordinal: u64, path: &str, body: Value) -> Fixture {
        let mut records = created_then_deleted();
        records[ordinal as usize] = record(ordinal, "GET", path, 200, body);
        derive(records)
    }

    /// The `GET /api/runs` tool.
    fn list_tool(fixture: &Fixture) -> String {
        fixture
            .manifest
            .tools
            .iter()
            .find(|tool| tool.method == "GET" && tool.path_template == "/api/runs")
            .map(|tool| tool.name.clone())
            .expect("the list tool")
    }

    #[test]
    fn an_item_read_of_created_entities_answers_its_missing_answer_before_any_write() {
        let fixture = derive(created_then_deleted());
        let (tool, argument) = fixture.tool("/api/runs/{uuid}");
        let missing = fixture.call(&tool, json!({ argument.clone(): OTHER }));
        assert_eq!(missing["status"], 404, "{missing}");
        assert_eq!(missing["state"]["view"], "missing", "{missing}");
        assert_eq!(
            missing["body"],
            json!({"message": format!("Run not found: run_id='{OTHER}'")})
        );
        // The run the capture created did not exist before it either.
        let created = fixture.call(&tool, json!({ argument: RUN }));
        assert_eq!(created["status"], 404, "{created}");
        let reads = &fixture.state.created_reads;
        assert_eq!(reads.len(), 2, "{reads:?}");
    }

    #[test]
    fn a_list_of_created_entities_answers_its_recordings_less_them() {
        let fixture = derive(created_then_deleted());
        let tool = list_tool(&fixture);
        let listed = fixture.call(&tool, json!({}));
        assert_eq!(listed["status"], 200, "{listed}");
        assert_eq!(listed["body"], json!([]), "{listed}");
        assert_eq!(listed["state"]["source"], "state", "{listed}");
    }

    #[test]
    fn a_created_read_names_the_writes_that_created_what_it_showed() {
        let fixture = derive(created_then_deleted());
        for read in &fixture.state.created_reads {
            assert_eq!(read.creators, vec![1], "{read:?}");
        }
    }

    #[test]
    fn only_a_served_write_that_created_in_the_capture_stales_a_created_read() {
        let fixture = derive(created_then_deleted());
        let read = &fixture.state.created_reads[0];
        let other: [&[u64]; 2] = [&[3], &[0, 6]];
        assert!(!read.created_by_served(other.into_iter()));
        let creating: [&[u64]; 2] = [&[3], &[1, 4]];
        assert!(read.created_by_served(creating.into_iter()));
        let unknown = super::CreatedRead {
            creators: Vec::new(),
            ..read.clone()
        };
        assert!(unknown.created_by_served(other.into_iter()));
    }

    #[test]
    fn nothing_is_learned_when_a_read_named_an_entity_the_capture_did_not_create() {
        // A read named the run before the write answering it: it existed already.
        let fixture = replaced(0, "/api/health", json!({"ok": true, "last": RUN}));
        assert!(
            fixture.state.created_reads.is_empty(),
            "{:?}",
            fixture.state.created_reads
        );
        let (tool, argument) = fixture.tool("/api/runs/{uuid}");
        let answer = fixture.call(&tool, json!({ argument: OTHER }));
        assert_ne!(answer["state"]["view"], "missing", "{answer}");
    }

    #[test]
    fn a_list_whose_recordings_disagree_without_the_created_entities_is_not_learned() {
        // The second listing lacks a run that existed before the capture's writes: removed by
        // something the created entities do not explain.
        let listed = json!([run(RUN, "idle"), {"id": "seeded", "state": "idle"}]);
        let fixture = replaced(3, "/api/runs", listed);
        let list = list_tool(&fixture);
        assert!(
            fixture
                .state
                .created_reads
                .iter()
                .all(|read| read.tool != list),
            "{:?}",
            fixture.state.created_reads
        );
        let answer = fixture.call(&list, json!({}));
        assert_eq!(answer["state"]["source"], "recording", "{answer}");
    }
}
