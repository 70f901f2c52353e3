//! Answer members that name the written entity outside it (pass 3, the answer): an entity answer
//! may repeat, beside the entity, a text member of the entity that names it by its id (a
//! top-level `{"links": {"self": "/items/10/"}}` beside `{"data": {"id": "10", "links":
//! {"self": "/items/10/"}}}`). Where every recorded answer showing the written entity holds, at
//! one place outside the entity, the text one member of its entity holds, and that text holds
//! the written entity's id, the place echoes that member: a served answer shows the served
//! entity's value there, never the recorded call's (`ResponseModel::echoed`).

use std::collections::BTreeMap;

use rea_plugin_api::json::{Json, escape_pointer_segment};

use super::observe::Call;

/// The string leaves of `value` below `at` (objects only; arrays are lists, not names), as
/// (pointer, text), leaving out the subtree at `skip`.
fn text_leaves<'v>(value: &'v Json, at: &str, skip: &str, found: &mut Vec<(String, &'v str)>) {
    if at == skip {
        return;
    }
    match value {
        Json::Object(object) => {
            for (name, inner) in object.iter() {
                let pointer = format!("{at}/{}", escape_pointer_segment(name));
                text_leaves(inner, &pointer, skip, found);
            }
        }
        Json::String(text) => found.push((at.to_owned(), text.as_str())),
        _ => {}
    }
}

/// The places outside the entity (at `pointer`) of one recorded answer holding the text of
/// exactly one text member of the entity that holds the written entity's id `id`: answer
/// pointer → entity pointer.
fn echoes_of(answer: &Json, pointer: &str, id: &str) -> BTreeMap<String, String> {
    let Some(entity) = answer.pointer(pointer) else {
        return BTreeMap::new();
    };
    let mut inside = Vec::new();
    text_leaves(entity, "", "\u{0}", &mut inside);
    let mut outside = Vec::new();
    text_leaves(answer, "", pointer, &mut outside);
    let mut echoes = BTreeMap::new();
    for (place, text) in outside {
        if !text.contains(id) {
            continue;
        }
        let mut holders = inside.iter().filter(|(_, held)| *held == text);
        if let (Some((member, _)), None) = (holders.next(), holders.next()) {
            echoes.insert(place, member.clone());
        }
    }
    echoes
}

/// The echoed members every recorded call's answer shows (see the module docs), learned for an
/// entity answer at a non-empty `pointer`; empty when a call answering the entity shows none.
pub(super) fn learn(calls: &[&Call], pointer: &str) -> BTreeMap<String, String> {
    if pointer.is_empty() {
        return BTreeMap::new();
    }
    let mut common: Option<BTreeMap<String, String>> = None;
    for call in calls {
        let (Some(answer), Some((_, _, id))) = (&call.response, &call.key) else {
            continue;
        };
        let echoes = echoes_of(answer, pointer, id);
        common = Some(match common {
            None => echoes,
            Some(previous) => previous
                .into_iter()
                .filter(|(place, member)| echoes.get(place) == Some(member))
                .collect(),
        });
    }
    common.unwrap_or_default()
}

/// A rendered answer with each echoed place showing the rendered entity's member (see the module
/// docs); a place or member the answer lacks is left as it is.
pub(super) fn render(mut answer: Json, pointer: &str, echoed: &BTreeMap<String, String>) -> Json {
    for (place, member) in echoed {
        let Some(value) = answer
            .pointer(&format!("{pointer}{member}"))
            .filter(|value| matches!(value, Json::String(_)))
            .cloned()
        else {
            continue;
        };
        if answer.pointer(place).is_some() {
            answer = crate::render::with_value_at(answer, place, value);
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn a_place_outside_the_entity_repeating_a_member_naming_it_echoes_that_member() {
        let answer = json(
            r#"{"data": {"id": "10", "links": {"self": "/items/10/"}, "title": "Ten"},
                "links": {"self": "/items/10/", "related": "/items?"},
                "meta": {"version": "1.0"}}"#,
        );
        let echoes = echoes_of(&answer, "/data", "10");
        assert_eq!(
            echoes,
            BTreeMap::from([("/links/self".to_owned(), "/links/self".to_owned())])
        );
        // Rendered for another entity, the place shows its member.
        let served = json(
            r#"{"data": {"id": "3", "links": {"self": "/items/3/"}, "title": "Three"},
                "links": {"self": "/items/10/", "related": "/items?"}}"#,
        );
        let rendered = render(served, "/data", &echoes);
        assert_eq!(
            rendered.pointer("/links/self"),
            Some(&Json::String("/items/3/".into()))
        );
    }

    #[test]
    fn a_text_without_the_id_or_held_twice_is_no_echo() {
        // `Ten` does not hold the id; `/items/10/` is held by two entity members.
        let answer = json(
            r#"{"data": {"id": "10", "a": "/items/10/", "b": "/items/10/", "title": "Ten"},
                "title": "Ten", "self": "/items/10/"}"#,
        );
        assert!(echoes_of(&answer, "/data", "10").is_empty());
    }
}
