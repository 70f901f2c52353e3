//! A write that makes a new collection under the name its path gives: a `PUT /{name}` (or
//! `POST`) sending no body, after which the document listing the collections' names (a document
//! view whose one document is an array of strings, `GET /_all_dbs`) lists the new name. The passes
//! find no entity it writes (its body is empty, and no read of the name's own item shows it), so
//! they withhold it; this step, after the replay, learns it from the names document instead.
//!
//! Learned when every successful call sent no body, the write template's last segment is a
//! parameter, and for each call the first read of the names document after it, with no other
//! write between, shows the names before it (the latest read before the call, else the held
//! document) with the call's name added and nothing else changed: appended at the end, or at its
//! place among sorted names (one placement for every call; the end when one call cannot tell them
//! apart). At least one call must be read so, none may name a listed name, and none may be read
//! otherwise. One call suffices when its read shows the pattern unambiguously (the plan's
//! `confirmed_by` says which reads showed it).
//!
//! Served, the plan adds the name its path gives to the held names document (a name the document
//! already lists is refused `conflict`: the build never showed what the application answers then)
//! and answers the recorded answer (every call gave the same one, naming no call's name); the
//! document view answers from the state from then on.

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;
use serde::{Deserialize, Serialize};

use super::model::{
    BodyModel, Effect, FieldModel, ResponseKind, ResponseModel, WritePlan, WriteTarget,
};
use crate::model::{Document, RelatedWrite, StateView, ViewDetail, WriteScope};
use crate::observation::{Observation, RequestBody, Timeline, decoded};

/// Where a name written into a names document goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NamePlacement {
    /// After every listed name.
    End,
    /// At its place among the names, sorted.
    Sorted,
}

/// The names document with `name` added where `placement` puts it; `None` when it is no array
/// of strings or already lists the name.
pub fn with_name(names: &Json, name: &str, placement: NamePlacement) -> Option<Json> {
    let mut listed = strings(names)?;
    if listed.iter().any(|held| held == name) {
        return None;
    }
    let at = match placement {
        NamePlacement::End => listed.len(),
        NamePlacement::Sorted => listed.partition_point(|held| held.as_str() < name),
    };
    listed.insert(at, name.to_owned());
    Some(Json::Array(listed.into_iter().map(Json::from).collect()))
}

/// The strings of an array holding only strings.
fn strings(value: &Json) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

/// The document views whose one document is a non-empty array of strings, read at a path
/// without parameters: `(view tool index, view name, document)`.
fn names_documents<'a>(
    manifest: &Manifest,
    state: &'a StateView,
) -> Vec<(usize, &'a str, &'a Document)> {
    state
        .views
        .iter()
        .filter(|view| matches!(view.detail, ViewDetail::Document(_)))
        .filter(|view| {
            rea_manifest::segments::split_path(&view.path_template)
                .iter()
                .all(|segment| !super::target::is_parameter(segment))
        })
        .filter_map(|view| {
            let tool = manifest
                .tools
                .iter()
                .position(|tool| tool.name == view.tool)?;
            let mut held = state.documents.iter().filter(|doc| doc.view == view.tool);
            let document = held.next()?;
            let listed = strings(&document.value)?;
            (held.next().is_none() && !listed.is_empty()).then_some((
                tool,
                view.tool.as_str(),
                document,
            ))
        })
        .collect()
}

/// The placements a names document's reads show for one call: the names it read before the
/// call, and after it; `Err` when the read after shows another change (or the name was listed).
fn placements(before: &Json, after: &Json, name: &str) -> Result<Vec<NamePlacement>, ()> {
    let fitting: Vec<NamePlacement> = [NamePlacement::End, NamePlacement::Sorted]
        .into_iter()
        .filter(|placement| with_name(before, name, *placement).as_ref() == Some(after))
        .collect();
    if fitting.is_empty() {
        Err(())
    } else {
        Ok(fitting)
    }
}

/// How one write tool's calls read against one names document.
struct Reading<'a> {
    manifest: &'a Manifest,
    timeline: &'a Timeline,
    view_tool: usize,
    held: &'a Json,
}

impl Reading<'_> {
    /// The successful reads of the names document, in record order.
    fn reads(&self) -> impl Iterator<Item = &Observation> {
        self.timeline
            .all(self.view_tool)
            .filter(|read| read.is_success() && read.body.is_some())
    }

    /// The names a call saw before it: the latest read before it, else the held document.
    fn before(&self, call: &Observation) -> Json {
        self.reads()
            .filter(|read| read.position < call.position)
            .last()
            .and_then(|read| read.body.clone())
            .unwrap_or_else(|| self.held.clone())
    }

    /// The first read after a call, when no other successful write comes between.
    fn after(&self, call: &Observation) -> Option<(u64, Json)> {
        let read = self.reads().find(|read| read.position > call.position)?;
        let between = self.timeline.ordered[call.position + 1..read.position]
            .iter()
            .filter_map(|ordinal| self.timeline.get(*ordinal))
            .any(|other| other.is_success() && self.timeline.is_write(self.manifest, other.tool));
        (!between).then(|| (read.ordinal, read.body.clone().unwrap_or(Json::Null)))
    }

    /// The placement every read call shows and the reads that showed it; `None` when a call's
    /// read shows something else, or no call was read.
    fn learn(&self, calls: &[&Observation]) -> Option<(NamePlacement, Vec<u64>)> {
        let mut left = vec![NamePlacement::End, NamePlacement::Sorted];
        let mut confirmed = Vec::new();
        for call in calls {
            let name = decoded(call.segments.last()?);
            let before = self.before(call);
            if strings(&before)?.contains(&name) {
                return None;
            }
            let Some((read, after)) = self.after(call) else {
                continue;
            };
            let fitting = placements(&before, &after, &name).ok()?;
            left.retain(|placement| fitting.contains(placement));
            confirmed.push(read);
        }
        (!confirmed.is_empty()).then_some(())?;
        left.first().map(|placement| (*placement, confirmed))
    }
}

/// The successful calls of a withheld plan's tool when each sent no body, answered the one
/// answer every call gave (naming no call's name), and its template's last segment is a
/// parameter.
fn bodyless_calls<'a>(
    manifest: &Manifest,
    timeline: &'a Timeline,
    plan: &WritePlan,
) -> Option<(usize, Vec<&'a Observation>)> {
    if plan.served
        || plan.inferred_from.is_some()
        || !matches!(plan.method.to_ascii_uppercase().as_str(), "PUT" | "POST")
    {
        return None;
    }
    let last = rea_manifest::segments::split_path(&plan.path_template)
        .last()
        .copied()?;
    if !super::target::is_parameter(last) {
        return None;
    }
    let tool = manifest
        .tools
        .iter()
        .position(|tool| tool.name == plan.tool)?;
    let calls: Vec<&Observation> = timeline
        .all(tool)
        .filter(|call| call.is_success())
        .collect();
    let bodyless = calls.iter().all(|call| {
        let name = call.segments.last().map(|segment| decoded(segment));
        call.request == RequestBody::Missing
            && name
                .is_some_and(|name| !call.body.as_ref().is_some_and(|body| mentions(body, &name)))
            && call.body == calls[0].body
    });
    (bodyless && !calls.is_empty()).then_some((tool, calls))
}

/// Whether an answer holds the text anywhere: an answer naming the call's name is not one
/// recorded answer every call gives.
fn mentions(value: &Json, text: &str) -> bool {
    match value {
        Json::String(string) => string == text,
        Json::Array(items) => items.iter().any(|item| mentions(item, text)),
        Json::Object(members) => members.iter().any(|(_, member)| mentions(member, text)),
        _ => false,
    }
}

/// Learns each withheld plan that adds a name to a names document (see the module docs), and
/// relates its calls to that document.
pub(super) fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    state: &StateView,
    records: &[CaptureRecord],
    (plans, related): (&mut [WritePlan], &mut [RelatedWrite]),
) {
    let documents = names_documents(manifest, state);
    for plan in plans.iter_mut() {
        let Some((_, calls)) = bodyless_calls(manifest, timeline, plan) else {
            continue;
        };
        let learned = documents.iter().find_map(|(view_tool, view, document)| {
            let reading = Reading {
                manifest,
                timeline,
                view_tool: *view_tool,
                held: &document.value,
            };
            reading.learn(&calls).map(|learned| (*view, learned))
        });
        let Some((view, (placement, confirmed))) = learned else {
            continue;
        };
        let Some(record) = records
            .iter()
            .find(|record| record.ordinal == calls[0].ordinal)
        else {
            continue;
        };
        serve_plan(plan, (view, placement), (&calls, confirmed), record);
        for write in related.iter_mut() {
            if calls.iter().any(|call| call.ordinal == write.ordinal) {
                write.scope = WriteScope::Document {
                    document: view.to_owned(),
                };
            }
        }
    }
}

/// Makes a plan the served names write: no body, the exemplar's query, its recorded answer.
fn serve_plan(
    plan: &mut WritePlan,
    (view, placement): (&str, NamePlacement),
    (calls, confirmed): (&[&Observation], Vec<u64>),
    record: &CaptureRecord,
) {
    plan.effect = Effect::Document;
    plan.action = None;
    plan.bulk = false;
    plan.served = true;
    plan.reason = None;
    plan.hint = None;
    plan.contradicted_by = None;
    plan.exemplar_ordinal = Some(calls[0].ordinal);
    plan.record_ordinals = calls.iter().map(|call| call.ordinal).collect();
    plan.confirmed_by = confirmed;
    plan.target = Some(WriteTarget {
        document: Some(view.to_owned()),
        ..WriteTarget::default()
    });
    plan.body = Some(BodyModel {
        query: calls[0].pairs().to_vec(),
        none: true,
        ..BodyModel::default()
    });
    plan.fields = Some(FieldModel {
        adds_name: Some(placement),
        ..FieldModel::default()
    });
    plan.rules = Vec::new();
    let kind = if record
        .response
        .body
        .bytes()
        .is_some_and(|bytes| !bytes.is_empty())
    {
        ResponseKind::Recorded
    } else {
        ResponseKind::None
    };
    plan.response = Some(ResponseModel::recorded_at(
        record,
        kind,
        String::new(),
        None,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn a_name_is_appended_or_sorted_in_and_a_listed_name_is_refused() {
        let names = json(r#"["_users", "library", "members"]"#);
        assert_eq!(
            with_name(&names, "loans", NamePlacement::End),
            Some(json(r#"["_users", "library", "members", "loans"]"#))
        );
        assert_eq!(
            with_name(&names, "loans", NamePlacement::Sorted),
            Some(json(r#"["_users", "library", "loans", "members"]"#))
        );
        assert_eq!(with_name(&names, "library", NamePlacement::End), None);
        assert_eq!(
            with_name(&json(r#"[{"name": "a"}]"#), "b", NamePlacement::End),
            None
        );
    }

    #[test]
    fn a_read_after_the_call_tells_the_placement_or_contradicts_it() {
        let before = json(r#"["a", "c"]"#);
        assert_eq!(
            placements(&before, &json(r#"["a", "c", "b"]"#), "b"),
            Ok(vec![NamePlacement::End])
        );
        assert_eq!(
            placements(&before, &json(r#"["a", "b", "c"]"#), "b"),
            Ok(vec![NamePlacement::Sorted])
        );
        // The name lands last either way: one call cannot tell the two apart.
        assert_eq!(
            placements(&before, &json(r#"["a", "c", "d"]"#), "d"),
            Ok(vec![NamePlacement::End, NamePlacement::Sorted])
        );
        // Another name changed too, or the name is missing: not this write's pattern.
        assert_eq!(placements(&before, &json(r#"["a", "b"]"#), "b"), Err(()));
        assert_eq!(placements(&before, &json(r#"["a", "c"]"#), "b"), Err(()));
    }
}
