//! Answer members listing the names a call sent (pass 3, the answer): a write's answer may list,
//! outside the written entity, the names of the members its call sent in one object of its body
//! (`{"meta": {"updated": {"attributes": ["status", "priority"], "relationships": []}}}` answering
//! a `PATCH` whose body sent `data.attributes` `{"status": …, "priority": …}` and no
//! `data.relationships`). Where every recorded call's answer holds, at one place outside the
//! entity, an array of texts equal to the names of the object at one place of its body, in the
//! order sent (`[]` where the body holds no object there), and some call's array is not empty, the
//! place lists those names (`ResponseModel::sent_names`): a served answer lists its own call's,
//! never the recorded call's.

use std::collections::BTreeMap;

use rea_plugin_api::json::{Json, escape_pointer_segment};

use super::observe::Call;
use crate::observation::RequestBody;

/// How deep learning looks for arrays in an answer and objects in a body.
const DEPTH: usize = 4;

/// The pointers of the arrays of texts in `value` below `at` (through objects only), leaving out
/// the subtree at `skip`.
fn text_arrays(value: &Json, at: &str, skip: &str, depth: usize, found: &mut Vec<String>) {
    if at == skip || depth == 0 {
        return;
    }
    match value {
        Json::Object(object) => {
            for (name, inner) in object.iter() {
                let pointer = format!("{at}/{}", escape_pointer_segment(name));
                text_arrays(inner, &pointer, skip, depth - 1, found);
            }
        }
        Json::Array(items) if items.iter().all(|item| matches!(item, Json::String(_))) => {
            found.push(at.to_owned());
        }
        _ => {}
    }
}

/// The pointers of the objects in `value` below `at` (through objects only).
fn objects(value: &Json, at: &str, depth: usize, found: &mut Vec<String>) {
    let Json::Object(object) = value else {
        return;
    };
    if !at.is_empty() {
        found.push(at.to_owned());
    }
    if depth == 0 {
        return;
    }
    for (name, inner) in object.iter() {
        let pointer = format!("{at}/{}", escape_pointer_segment(name));
        objects(inner, &pointer, depth - 1, found);
    }
}

/// The names the object at `place` of a body holds, in the order sent; empty where the body holds
/// none there; `None` where it holds something else.
pub(super) fn sent_names(body: Option<&Json>, place: &str) -> Option<Vec<String>> {
    match body.and_then(|body| body.pointer(place)) {
        None | Some(Json::Null) => Some(Vec::new()),
        Some(Json::Object(object)) => {
            Some(object.iter().map(|(name, _)| name.to_owned()).collect())
        }
        Some(_) => None,
    }
}

/// The texts of an array (`None` for anything else).
fn texts(value: &Json) -> Option<Vec<&str>> {
    value.as_array()?.iter().map(|item| item.as_str()).collect()
}

/// The body of a recorded call, when it is JSON.
fn body_of(call: &Call) -> Option<&Json> {
    match &call.request {
        RequestBody::Json(body) => Some(body),
        _ => None,
    }
}

/// Whether a call's answer lists at `answered` the names its body sent at `place`.
fn lists(call: &Call, answered: &str, place: &str) -> bool {
    let (Some(answer), Some(names)) = (&call.response, sent_names(body_of(call), place)) else {
        return false;
    };
    answer
        .pointer(answered)
        .and_then(texts)
        .is_some_and(|listed| listed == names)
}

/// The places every recorded call's answer lists the names its body sent at one place (answer
/// pointer → body pointer, see the module docs), learned where each answer place has exactly one
/// such body place and some call sent names there; the entity (at `pointer`) is left out.
pub(super) fn learn(calls: &[&Call], pointer: &str) -> BTreeMap<String, String> {
    let mut learned = BTreeMap::new();
    let Some(first) = calls.first() else {
        return learned;
    };
    let Some(answer) = &first.response else {
        return learned;
    };
    let skip = if pointer.is_empty() { "\u{0}" } else { pointer };
    let mut answered = Vec::new();
    text_arrays(answer, "", skip, DEPTH, &mut answered);
    let mut places = Vec::new();
    for body in calls.iter().filter_map(|call| body_of(call)) {
        objects(body, "", DEPTH, &mut places);
    }
    places.sort();
    places.dedup();
    for at in answered {
        let mut fitting = places.iter().filter(|place| {
            calls.iter().all(|call| lists(call, &at, place))
                && calls.iter().any(|call| {
                    sent_names(body_of(call), place).is_some_and(|names| !names.is_empty())
                })
        });
        if let (Some(place), None) = (fitting.next(), fitting.next()) {
            learned.insert(at, place.clone());
        }
    }
    learned
}

/// The names a served call's body (`body`) sent at each learned place, by answer pointer.
pub(super) fn listed(
    learned: &BTreeMap<String, String>,
    body: Option<&Json>,
) -> Vec<(String, Json)> {
    learned
        .iter()
        .filter_map(|(answered, place)| {
            let names = sent_names(body, place)?;
            let names = names
                .into_iter()
                .map(|name| Json::String(name.into()))
                .collect();
            Some((answered.clone(), Json::Array(names)))
        })
        .collect()
}

/// A rendered answer with each place listing the served call's names (see [`listed`]); a place
/// the answer lacks is left out.
pub(super) fn render(mut answer: Json, listed: &[(String, Json)]) -> Json {
    for (answered, names) in listed {
        if answer.pointer(answered).is_some() {
            answer = crate::render::with_value_at(answer, answered, names.clone());
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn names_sent_in_one_object_are_listed_from_the_served_body() {
        let body =
            json(r#"{"data": {"id": "13", "attributes": {"status": "doing", "priority": 2}}}"#);
        let answer = json(
            r#"{"data": {"id": "13", "attributes": {"status": "doing", "priority": 2, "tags": ["a"]}},
                "meta": {"updated": {"attributes": ["status", "priority"], "relationships": []}}}"#,
        );
        let mut answered = Vec::new();
        text_arrays(&answer, "", "/data", DEPTH, &mut answered);
        // The entity's own array is left out.
        assert_eq!(
            answered,
            vec!["/meta/updated/attributes", "/meta/updated/relationships"]
        );
        let mut places = Vec::new();
        objects(&body, "", DEPTH, &mut places);
        assert_eq!(places, vec!["/data", "/data/attributes"]);
        assert_eq!(
            sent_names(Some(&body), "/data/attributes"),
            Some(vec!["status".to_owned(), "priority".to_owned()])
        );
        // A place the body leaves out lists nothing; one holding no object is no list.
        assert_eq!(
            sent_names(Some(&body), "/data/relationships"),
            Some(Vec::new())
        );
        assert_eq!(sent_names(Some(&body), "/data/id"), None);
        let learned = BTreeMap::from([(
            "/meta/updated/attributes".to_owned(),
            "/data/attributes".to_owned(),
        )]);
        let served = json(r#"{"data": {"attributes": {"title": "New", "estimate": 5}}}"#);
        let rendered = render(answer, &listed(&learned, Some(&served)));
        assert_eq!(
            rendered.pointer("/meta/updated/attributes"),
            Some(&json(r#"["title", "estimate"]"#))
        );
        assert_eq!(
            rendered.pointer("/meta/updated/relationships"),
            Some(&json("[]"))
        );
    }
}
