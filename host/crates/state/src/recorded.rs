//! Which recording may stand in for a read the state does not render: only the recording of that
//! very request, and only while no served write changed what the read shows.
//!
//! A read tool's call the state cannot render (a `recorded` view, a query its grammar does not
//! explain, a representation no checked read showed, …) answers the recording of a request equal
//! to the call: the same path (each segment as written or percent-decoded), the same query
//! (every name with the same values in the same order, no name more or less) and, for a read
//! whose query is its body, the same body. When the capture recorded no such request, or when a
//! served write since the reset changed what the read shows (its type and collection, its
//! document, or anything for a read no view explains), the call is refused with
//! [`NotModelled`] (`not_modelled`; `data.reason` says why the state did not render it,
//! `data.recording` why no recording answers): another request's recording, or a recording from
//! before the write, would answer for data it does not show.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, HashMap};

use rea_manifest::Environment;
use rea_manifest::segments::percent_decode;
use rea_plugin_api::contracts::capture::{Body, CaptureRecord};
use serde_json::{Value, json};

use crate::answer::{StateAnswer, ToolError};
use crate::call::Call;
use crate::derive::entities::{collection_key, item_segments};
use crate::derive::lists::listed_collection;
use crate::model::{ReadView, StateView, ViewDetail, WriteScope};

/// The code of a refused read the state does not model.
pub const NOT_MODELLED: &str = "not_modelled";

/// Why no recording stands in for a read the state does not render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordingUnusable {
    /// The capture recorded no request equal to the call.
    NotRecorded,
    /// A served write since the reset or load changed what the read shows, so its recordings
    /// show data from before the write.
    StaleAfterWrite,
    /// The capture recorded the request only after its own writes, for a view whose state is
    /// what the capture observed before them (a body query): that recording shows other data.
    RecordedAfterWrites,
}

impl RecordingUnusable {
    /// The name `data.recording` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::NotRecorded => "not-recorded",
            Self::StaleAfterWrite => "stale-after-write",
            Self::RecordedAfterWrites => "recorded-after-writes",
        }
    }
}

/// A read the state does not model, refused: `reason` is why the state did not render it (a
/// view's reason, `unrecorded-request`, `projection`, …), `recording` why no recording answers
/// instead. A transport carries it as the tool error [`NotModelled::to_tool_error`] spells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotModelled {
    /// Why the state did not render the read.
    pub reason: String,
    /// Why no recording answers for it.
    pub recording: RecordingUnusable,
}

impl NotModelled {
    /// The tool error: code `not_modelled`, `data: {reason, recording, hint}`.
    pub fn to_tool_error(&self) -> ToolError {
        let (message, hint) = match self.recording {
            RecordingUnusable::NotRecorded => (
                format!(
                    "the state does not model this read ({}), and the capture recorded no answer to this very request; another request's recording does not answer for it",
                    self.reason
                ),
                "call with arguments the state's query model explains, or with those of a recorded request",
            ),
            RecordingUnusable::StaleAfterWrite => (
                format!(
                    "the state does not model this read ({}), and a served write changed what it shows, so its recording shows the data from before the write",
                    self.reason
                ),
                "read what the write changed through a read the state renders, or reset the state (data/reset) to read the recording again",
            ),
            RecordingUnusable::RecordedAfterWrites => (
                format!(
                    "the state does not model this read ({}), and the capture recorded this very request only after its own writes, so that recording shows other data than the state holds",
                    self.reason
                ),
                "call with arguments the state's query model explains",
            ),
        };
        ToolError {
            data: Some(json!({
                "reason": self.reason,
                "recording": self.recording.name(),
                "hint": hint,
            })),
            ..ToolError::new(NOT_MODELLED, message)
        }
    }
}

impl From<NotModelled> for StateAnswer {
    fn from(refusal: NotModelled) -> Self {
        StateAnswer::NotModelled(refusal)
    }
}

/// A recorded request body, as a call's body argument is compared with it.
#[derive(Debug, Clone, PartialEq)]
enum RecordedBody {
    /// No body (or a reported null or empty one).
    None,
    /// A JSON body.
    Json(Value),
    /// A text body that is not JSON.
    Text(String),
    /// A body no call argument can equal (bytes, or excluded as sensitive).
    Opaque,
}

/// One recorded request of a read tool.
#[derive(Debug, Clone)]
struct RecordedLine {
    ordinal: u64,
    /// The recorded path without its leading `/`: its segments are its `/`-separated parts
    /// ([`rea_manifest::segments::split_path`]), split where they are compared (one text per line, not one per segment:
    /// a server holds a line per recorded read).
    path: String,
    /// Query name → values in recorded order; `None` when a pair was excluded as sensitive.
    query: Option<BTreeMap<String, Vec<String>>>,
    body: RecordedBody,
}

/// The recorded requests of every read tool, by tool, in manifest order.
#[derive(Debug, Clone, Default)]
pub struct RecordedLines {
    by_tool: HashMap<String, Vec<RecordedLine>>,
}

fn recorded_body(body: &Body) -> RecordedBody {
    match body {
        Body::Missing | Body::ReportedNull => RecordedBody::None,
        Body::Text { text } if text.trim().is_empty() => RecordedBody::None,
        Body::Text { text } => match serde_json::from_str::<Value>(text) {
            Ok(value) => RecordedBody::Json(value),
            Err(_) => RecordedBody::Text(text.to_string()),
        },
        Body::Base64 { .. } | Body::Excluded { .. } => RecordedBody::Opaque,
    }
}

fn recorded_line(record: &CaptureRecord) -> Option<RecordedLine> {
    let path = record.path.as_deref()?;
    let query = match &record.query {
        None => Some(BTreeMap::new()),
        Some(query) => query
            .pairs
            .iter()
            .try_fold(BTreeMap::new(), |mut names, pair| {
                let (name, value) = pair.as_ref()?;
                names
                    .entry(name.clone())
                    .or_insert_with(Vec::new)
                    .push(value.clone());
                Some(names)
            }),
    };
    Some(RecordedLine {
        ordinal: record.ordinal,
        path: path.strip_prefix('/').unwrap_or(path).to_owned(),
        query,
        body: recorded_body(&record.request.body),
    })
}

impl RecordedLines {
    /// The recorded requests of the state's read tools (those with a view).
    pub fn new(state: &StateView, replay: &Environment, records: &[CaptureRecord]) -> Self {
        let by_ordinal: HashMap<u64, &CaptureRecord> = records
            .iter()
            .map(|record| (record.ordinal, record))
            .collect();
        let by_tool = state
            .views
            .iter()
            .map(|view| {
                let cited = replay.cited_ordinals(&view.tool);
                // At most one line per cited record: collected through the filters, a tool's
                // lines grew by doubling and kept up to twice their room (issue 17).
                let mut lines = Vec::with_capacity(cited.len());
                lines.extend(
                    cited
                        .into_iter()
                        .filter_map(|ordinal| by_ordinal.get(&ordinal))
                        .filter_map(|record| recorded_line(record)),
                );
                lines.shrink_to_fit();
                (view.tool.clone(), lines)
            })
            .collect();
        Self { by_tool }
    }

    /// The first recorded request of a tool equal to a call (see the module docs).
    pub(crate) fn exact(&self, tool: &str, template: &str, call: &Call) -> Option<u64> {
        let segments = call.segments(template);
        let mut query: BTreeMap<&str, &[String]> = BTreeMap::new();
        for (name, values) in &call.query {
            if query.insert(name.as_str(), values.as_slice()).is_some() {
                return None;
            }
        }
        self.by_tool.get(tool)?.iter().find_map(|line| {
            let same = same_segments(&line.path, &segments)
                && line.query.as_ref().is_some_and(|recorded| {
                    recorded.len() == query.len()
                        && recorded
                            .iter()
                            .all(|(name, values)| query.get(name.as_str()) == Some(&&values[..]))
                })
                && same_body(&line.body, call.body.as_ref());
            same.then_some(line.ordinal)
        })
    }
}

impl RecordedLines {
    /// The ordinals of a read tool's recorded requests, in recorded order, when they name at
    /// least two different paths and none names a query or a body; `None` otherwise.
    pub(crate) fn plain_paths(&self, tool: &str) -> Option<Vec<u64>> {
        let lines = self.by_tool.get(tool)?;
        let plain = lines.iter().all(|line| {
            line.query.as_ref().is_some_and(BTreeMap::is_empty) && line.body == RecordedBody::None
        });
        let paths: std::collections::BTreeSet<&str> =
            lines.iter().map(|line| line.path.as_str()).collect();
        (plain && paths.len() >= 2).then(|| lines.iter().map(|line| line.ordinal).collect())
    }
}

/// Whether a recorded path (without its leading `/`) has the call's segments, each as written or
/// percent-decoded.
fn same_segments(recorded: &str, call: &[CompactString]) -> bool {
    let mut segments = recorded.split('/');
    call.iter().all(|value| {
        segments.next().is_some_and(|segment| {
            segment == value || percent_decode(segment).is_some_and(|decoded| decoded == *value)
        })
    }) && segments.next().is_none()
}

fn same_body(recorded: &RecordedBody, sent: Option<&Value>) -> bool {
    match (recorded, sent) {
        (RecordedBody::None, None) => true,
        (RecordedBody::Json(recorded), Some(sent)) => recorded == sent,
        (RecordedBody::Text(recorded), Some(Value::String(sent))) => recorded == sent,
        _ => false,
    }
}

/// What a read tool's call shows: its item's type and collection, its list's type (and the
/// collection its path names, when it fits the type's template), its document, or everything.
pub(crate) fn call_scope(view: &ReadView, segments: &[CompactString]) -> WriteScope {
    let path = format!("/{}", segments.join("/"));
    match &view.detail {
        ViewDetail::Item(item) => match item_segments(segments).split_last() {
            Some((_, collection)) => WriteScope::Type {
                entity_type: item.entity_type.clone(),
                collection: Some(collection_key(&format!("/{}", collection.join("/"))).to_owned()),
                entity: None,
            },
            None => WriteScope::All,
        },
        ViewDetail::List(list) => WriteScope::Type {
            entity_type: list.entity_type.clone(),
            collection: listed_collection(&path, &list.entity_type)
                .map(|listed| collection_key(&listed).to_owned()),
            entity: None,
        },
        // A view holding one document per id shows what the id names, which any write may
        // change (a create reusing an id, a delete, an action on it): every write relates.
        ViewDetail::Document(document) if document.is_keyed() => WriteScope::All,
        ViewDetail::Document(_) => WriteScope::Document {
            document: view.tool.clone(),
        },
        ViewDetail::Member(member) => member.scope(),
        ViewDetail::Count(count) => count.scope(segments),
        ViewDetail::IdMap(map) => map.scope(segments),
        ViewDetail::BodyQuery(_) | ViewDetail::Recorded { .. } => WriteScope::All,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::derive::tests::{derive, post, posts, record, stand_in};
    use crate::model::ViewDetail;

    #[test]
    fn a_recorded_path_has_a_calls_segments_as_written_or_decoded_and_no_more() {
        let call = |segments: &[&str]| -> Vec<rea_plugin_api::contracts::capture::CompactString> {
            segments.iter().map(|segment| (*segment).into()).collect()
        };
        assert!(super::same_segments("items/7", &call(&["items", "7"])));
        assert!(super::same_segments(
            "files/a%20b",
            &call(&["files", "a b"])
        ));
        assert!(super::same_segments("", &call(&[""])));
        assert!(!super::same_segments("items/7", &call(&["items", "8"])));
        assert!(!super::same_segments("items/7", &call(&["items"])));
        assert!(!super::same_segments("items", &call(&["items", "7"])));
        assert!(!super::same_segments("items/7/", &call(&["items", "7"])));
    }

    #[test]
    fn a_read_the_state_cannot_render_answers_only_the_recording_of_that_request() {
        let fixture = derive(vec![
            record(0, "GET", "/settings?scope=a", 200, json!({"x": 1})),
            record(1, "GET", "/settings?scope=b", 200, json!({"x": 2})),
            record(2, "GET", "/settings?scope=b&lang=en", 200, json!({"x": 3})),
        ]);
        assert!(matches!(
            fixture.view("get_settings"),
            ViewDetail::Recorded { .. }
        ));
        // Each recorded request answers its own recording, not the tool's first.
        for (arguments, ordinal, body) in [
            (json!({"scope": "a"}), 0, json!({"x": 1})),
            (json!({"scope": "b"}), 1, json!({"x": 2})),
            (json!({"lang": "en", "scope": "b"}), 2, json!({"x": 3})),
        ] {
            let answer = fixture.call("get_settings", arguments.clone());
            assert_eq!(answer["replay"]["record_ordinal"], ordinal, "{arguments}");
            assert_eq!(answer["replay"]["exact_match"], true, "{arguments}");
            assert_eq!(answer["body"], body, "{arguments}");
            assert_eq!(answer["state"]["source"], "recording", "{answer}");
        }
        // Another value, a parameter more or less: refused, structured.
        for arguments in [
            json!({"scope": "c"}),
            json!({}),
            json!({"lang": "en", "scope": "a"}),
            json!({"lang": "en"}),
            json!({"scope": ["b", "b"]}),
        ] {
            let answer = fixture.call("get_settings", arguments.clone());
            assert_eq!(answer["error"]["code"], "not_modelled", "{arguments}");
            assert_eq!(
                answer["error"]["data"]["recording"], "not-recorded",
                "{arguments}"
            );
            assert!(
                answer["error"]["data"]["hint"].is_string(),
                "{arguments}: {answer}"
            );
        }
    }

    #[test]
    fn a_query_post_answers_the_recording_of_its_very_body() {
        let mut lookup = record(1, "POST", "/lookup", 200, json!({"found": "a"}));
        lookup.request.body = rea_plugin_api::contracts::capture::Body::Text {
            text: r#"{"name": "a"}"#.into(),
        };
        let fixture = derive(vec![record(0, "GET", "/posts", 200, posts()), lookup]);
        let answer = fixture.call("post_lookup", json!({"body": {"name": "a"}}));
        assert_eq!(answer["body"], json!({"found": "a"}), "{answer}");
        let answer = fixture.call("post_lookup", json!({"body": {"name": "b"}}));
        assert_eq!(
            stand_in(&answer),
            json!({"not_modelled": "query-body", "recording": "not-recorded"})
        );
    }

    #[test]
    fn a_served_write_makes_the_recordings_of_what_it_changed_refuse_until_a_reset() {
        let fixture = derive(vec![
            record(0, "GET", "/posts", 200, posts()),
            record(1, "GET", "/posts/1", 200, post(1)),
            record(2, "GET", "/posts/2", 200, post(2)),
            record(3, "GET", "/posts/3", 200, post(3)),
            // A read the state does not render (a repeated value), and another type's.
            record(4, "GET", "/posts?author=alice&author=bob", 200, posts()),
            record(5, "GET", "/tags?kind=a&kind=b", 200, json!([{"id": "t"}])),
            record(6, "DELETE", "/posts/3", 200, json!({})),
            record(7, "GET", "/posts/3", 404, json!({})),
            record(8, "GET", "/posts", 200, json!([post(1), post(2)])),
        ]);
        let plan = fixture
            .state
            .write_plan("delete_posts_by_id")
            .expect("a delete plan");
        assert!(plan.served, "{:?}", plan.reason);
        let repeated = json!({"author": ["alice", "bob"]});
        let tags = json!({"kind": ["a", "b"]});
        assert_eq!(
            stand_in(&fixture.call("get_posts", repeated.clone())),
            json!({"recording": "repeated-query"})
        );
        let deleted = fixture.call("delete_posts_by_id", json!({"id": "2"}));
        assert_eq!(deleted["state"]["source"], "state", "{deleted}");
        // The posts' recording shows post 2: refused. The tags' recording still stands.
        assert_eq!(
            stand_in(&fixture.call("get_posts", repeated.clone())),
            json!({"not_modelled": "repeated-query", "recording": "stale-after-write"})
        );
        assert_eq!(
            stand_in(&fixture.call("get_tags", tags.clone())),
            json!({"recording": "repeated-query"})
        );
        // What the state renders answers from the state.
        let listed = fixture.call("get_posts", json!({}));
        assert_eq!(listed["body"], json!([post(1), post(3)]), "{listed}");
        fixture.service.reset();
        assert_eq!(
            stand_in(&fixture.call("get_posts", repeated)),
            json!({"recording": "repeated-query"})
        );
    }

    #[test]
    fn a_line_recorded_after_a_write_answers_as_an_unrecorded_request() {
        let fixture = derive(vec![
            record(0, "GET", "/posts", 200, posts()),
            record(1, "GET", "/posts/1", 200, post(1)),
            record(2, "DELETE", "/posts/3", 200, json!({})),
            record(3, "GET", "/posts/3", 404, json!({})),
            record(4, "GET", "/posts", 200, json!([post(1), post(2)])),
            record(5, "GET", "/posts?colour=red", 200, json!([post(2)])),
        ]);
        let answer = fixture.call("get_posts", json!({"colour": "red"}));
        // contract: STATE-087
        assert_eq!(
            stand_in(&answer),
            json!({"recording": "unrecorded-request"})
        );
        assert_eq!(answer["replay"]["record_ordinal"], 5);
        let answer = fixture.call("get_posts", json!({"colour": "blue"}));
        assert_eq!(
            stand_in(&answer),
            json!({"not_modelled": "unrecorded-request", "recording": "not-recorded"})
        );
    }
}
