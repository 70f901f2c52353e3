//! Sliced members of a recorded read: a query parameter of a `GET` tool answering from its
//! recordings whose every checked read equals the checked read of the same line without it, but
//! for one member array, which holds that read's items from the parameter's value on (a study's
//! detail read `?after=6` answers its `trials` from the seventh). A call giving the parameter
//! with a whole number answers the recording of its line without it, that member sliced so. A
//! document view holding one document per id (see [`crate::derive::documents`]) learns the same
//! for its lines read with a query.
//!
//! Learned from the recordings only (each parameterized read compared with its unparameterized
//! line, the same member sliced for all, some read leaving items out), never from names. The
//! bases are checked reads (before the first write related to them), and a call after a served
//! write answers as the recording would (not modelled), so a slice never shows stale items; a
//! keyed document view's call answers its live document sliced instead (`read.rs`), before and
//! after writes.

use std::collections::BTreeMap;

use rea_manifest::Manifest;
use rea_plugin_api::json::Json;
use serde::{Deserialize, Serialize};

use crate::model::{ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};

/// A recorded read tool's query parameter that slices one member array of its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlicedMember {
    /// The read tool.
    pub tool: String,
    /// The query parameter giving the index the member starts from.
    pub parameter: String,
    /// The top-level member holding the sliced array.
    pub member: String,
    /// The checked reads of the tool's lines without the parameter (the answers calls slice).
    pub bases: Vec<SliceBase>,
    /// The checked reads giving the parameter that showed the slice.
    pub checked_ordinals: Vec<u64>,
}

/// A checked read a call giving the parameter slices: its line without the parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SliceBase {
    /// The record.
    pub ordinal: u64,
    /// Its path as recorded.
    pub path: String,
    /// Its decoded query pairs.
    pub query: Vec<(String, String)>,
}

/// The sliced members of the recorded read tools (see the module docs).
pub fn derive(manifest: &Manifest, timeline: &Timeline, views: &[ReadView]) -> Vec<SlicedMember> {
    let mut found = Vec::new();
    for view in views {
        let keyed = matches!(&view.detail, ViewDetail::Document(document) if document.is_keyed());
        if view.method != "GET" || !(keyed || matches!(view.detail, ViewDetail::Recorded { .. })) {
            continue;
        }
        let Some(tool) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let lines = crate::derive::latest_lines(timeline, tool);
        let names: std::collections::BTreeSet<&str> = lines
            .iter()
            .flat_map(|line| line.pairs().iter().map(|(name, _)| name.as_str()))
            .collect();
        found.extend(
            names
                .into_iter()
                .filter_map(|name| learn(&view.tool, name, &lines)),
        );
    }
    found
}

/// A request line: its path and decoded query pairs.
type LineKey = (String, Vec<(String, String)>);

/// The slice one parameter makes on a tool's lines, when every line giving it shows one.
fn learn(tool: &str, parameter: &str, lines: &[&Observation]) -> Option<SlicedMember> {
    let bases: BTreeMap<LineKey, &Observation> = lines
        .iter()
        .filter(|line| !line.pairs().iter().any(|(name, _)| name == parameter))
        .map(|line| (line.line_key(), *line))
        .collect();
    // Each line giving the parameter, its start and the base it slices.
    let mut sliced = Vec::new();
    for line in lines {
        if !line.pairs().iter().any(|(name, _)| name == parameter) {
            continue;
        }
        let start = start_of(line.pairs(), parameter)?;
        let base = bases.get(&(line.path.to_string(), without(line.pairs(), parameter)))?;
        sliced.push((*line, start, *base));
    }
    // The member: the one top-level member a line shows otherwise than its base.
    let member = sliced
        .iter()
        .find_map(|(line, _, base)| differing_member(base.body.as_ref()?, line.body.as_ref()?))?;
    for (line, start, base) in &sliced {
        if slice(base.body.as_ref()?, &member, *start).as_ref() != line.body.as_ref() {
            return None;
        }
    }
    Some(SlicedMember {
        tool: tool.to_owned(),
        parameter: parameter.to_owned(),
        member,
        bases: bases
            .values()
            .map(|base| SliceBase {
                ordinal: base.ordinal,
                path: base.path.to_string(),
                query: base.pairs().to_vec(),
            })
            .collect(),
        checked_ordinals: sliced.iter().map(|(line, ..)| line.ordinal).collect(),
    })
}

/// The whole number a line's parameter gives, when it gives exactly one.
pub(crate) fn start_of(pairs: &[(String, String)], parameter: &str) -> Option<usize> {
    let mut values = pairs.iter().filter(|(name, _)| name == parameter);
    let (_, value) = values.next()?;
    if values.next().is_some() || value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

/// The pairs without a parameter.
pub(crate) fn without(pairs: &[(String, String)], parameter: &str) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter(|(name, _)| name != parameter)
        .cloned()
        .collect()
}

/// The one top-level member two objects with the same members hold otherwise, when it is an
/// array in both.
fn differing_member(base: &Json, other: &Json) -> Option<String> {
    let (Json::Object(base), Json::Object(other)) = (base, other) else {
        return None;
    };
    if base.len() != other.len() {
        return None;
    }
    let mut differing = base
        .iter()
        .filter(|(name, value)| other.get(name) != Some(*value));
    let (name, value) = differing.next()?;
    let arrays = matches!(value, Json::Array(_)) && matches!(other.get(name), Some(Json::Array(_)));
    (differing.next().is_none() && arrays).then(|| name.to_owned())
}

/// The base answer with its member sliced from `start` (empty past its end); `None` when the
/// base holds no such array.
pub(crate) fn slice(base: &Json, member: &str, start: usize) -> Option<Json> {
    let Json::Object(object) = base else {
        return None;
    };
    let mut object = object.clone();
    let Some(Json::Array(items)) = object.get_mut(member) else {
        return None;
    };
    let kept = items.split_off(start.min(items.len()));
    *items = kept;
    Some(Json::Object(object))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::derive::tests::{derive, record};

    fn studies() -> serde_json::Value {
        json!({"study_summaries": [{"study_id": 1, "study_name": "churn"}]})
    }

    fn detail(trials: &[u64]) -> serde_json::Value {
        json!({"name": "churn", "directions": ["minimize"], "trials": trials})
    }

    #[test]
    fn a_parameter_slicing_a_member_array_answers_any_start_from_its_base() {
        let fixture = derive(vec![
            record(0, "GET", "/api/studies", 200, studies()),
            record(1, "GET", "/api/studies/1", 200, detail(&[0, 1, 2, 3, 4])),
            record(
                2,
                "GET",
                "/api/studies/2",
                200,
                json!({"name": "x", "directions": [], "trials": [7, 8]}),
            ),
            record(3, "GET", "/api/studies/1?after=3", 200, detail(&[3, 4])),
        ]);
        assert_eq!(
            fixture.state.sliced_members.len(),
            1,
            "{:?}",
            fixture.state.sliced_members
        );
        let sliced = &fixture.state.sliced_members[0];
        assert_eq!(
            (sliced.parameter.as_str(), sliced.member.as_str()),
            ("after", "trials")
        );
        assert_eq!(sliced.checked_ordinals, vec![3]);
        assert_eq!(sliced.bases.len(), 2);
        let (tool, argument) = fixture.tool("/api/studies/{numeric}");
        let answer = fixture.call(&tool, json!({ argument.clone(): 1, "after": 1 }));
        assert_eq!(answer["body"], detail(&[1, 2, 3, 4]), "{answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        let answer = fixture.call(&tool, json!({ argument.clone(): 2, "after": 1 }));
        assert_eq!(
            answer["body"],
            json!({"name": "x", "directions": [], "trials": [8]})
        );
        let answer = fixture.call(&tool, json!({ argument.clone(): 1, "after": 20 }));
        assert_eq!(answer["body"], detail(&[]), "{answer}");
        // Not a whole number, or a line the build never read without it: not modelled.
        let refused = fixture.call(&tool, json!({ argument.clone(): 1, "after": "-1" }));
        assert_eq!(refused["is_error"], true, "{refused}");
        let refused = fixture.call(&tool, json!({ argument: 3, "after": 1 }));
        assert_eq!(refused["is_error"], true, "{refused}");
    }

    #[test]
    fn a_parameter_is_no_slice_when_a_read_shows_otherwise() {
        // The parameterized read changed another member too: no slice.
        let fixture = derive(vec![
            record(0, "GET", "/api/studies/1", 200, detail(&[0, 1, 2])),
            record(1, "GET", "/api/studies/2", 200, detail(&[5])),
            record(
                2,
                "GET",
                "/api/studies/1?after=1",
                200,
                json!({"name": "other", "directions": ["minimize"], "trials": [1, 2]}),
            ),
        ]);
        assert!(fixture.state.sliced_members.is_empty());
        // The array holds other items than the base's from that start: no slice.
        let fixture = derive(vec![
            record(0, "GET", "/api/studies/1", 200, detail(&[0, 1, 2])),
            record(1, "GET", "/api/studies/2", 200, detail(&[5])),
            record(2, "GET", "/api/studies/1?after=1", 200, detail(&[0, 1])),
        ]);
        assert!(fixture.state.sliced_members.is_empty());
    }
}
