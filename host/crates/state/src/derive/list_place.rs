//! Where a list answer holds its list when its envelope carries several arrays of objects.
//!
//! An envelope may carry, beside its list, an array of related objects (empty when nothing is
//! related, or objects of other kinds). Such a body alone does not say which array is the list;
//! the tool's other answers do: the list is the array every answer showing objects in exactly
//! one of its arrays shows them in, when its objects share a kind the others' objects never show
//! (a scalar member holding one value in every listed object, `"type": "Task"`, that no object
//! of another array holds), and each answer holds its list there. A document holding two arrays
//! of one kind (a board's cards and its pinned cards) holds no list. An answer carrying one
//! array of objects holds its list there, as [`super::lists::list_pointer`] says.

use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use super::lists::list_pointer;

/// A place a body may hold its list: its pointer, and whether the array there shows an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub pointer: String,
    pub shows_objects: bool,
}

/// The places a body may hold its list: each top-level array of objects when it carries several,
/// else the one place [`list_pointer`] finds (none when it finds none).
pub(crate) fn list_places(body: &Json) -> Vec<Place> {
    if let Json::Object(object) = body {
        let arrays: Vec<Place> = object
            .iter()
            .filter_map(|(key, value)| {
                let items = value.as_array()?;
                items
                    .iter()
                    .all(|item| matches!(item, Json::Object(_)))
                    .then(|| Place {
                        pointer: format!("/{}", escape_pointer_segment(key)),
                        shows_objects: !items.is_empty(),
                    })
            })
            .collect();
        if arrays.len() > 1 {
            return arrays;
        }
    }
    list_pointer(body)
        .map(|pointer| {
            let shows_objects = body
                .pointer(&pointer)
                .and_then(Json::as_array)
                .is_some_and(|items| !items.is_empty());
            vec![Place {
                pointer,
                shows_objects,
            }]
        })
        .unwrap_or_default()
}

/// The place the bodies agree on: the one array every body showing objects in exactly one of
/// its places shows them in, its objects of a kind no other array's show (`None` when no body
/// shows objects so, two disagree, or the kinds do not tell the arrays apart).
pub(crate) fn agreed_place(bodies: &[&Json]) -> Option<String> {
    let voted = voted_place(bodies)?;
    distinct_kind(bodies, &voted).then_some(voted)
}

/// The one array every body showing objects in exactly one of its places shows them in.
fn voted_place(bodies: &[&Json]) -> Option<String> {
    let mut agreed: Option<String> = None;
    for body in bodies {
        let places = list_places(body);
        let showing: Vec<&Place> = places.iter().filter(|place| place.shows_objects).collect();
        let [only] = showing.as_slice() else {
            continue;
        };
        match &agreed {
            Some(pointer) if *pointer != only.pointer => return None,
            Some(_) => {}
            None => agreed = Some(only.pointer.clone()),
        }
    }
    agreed
}

/// The objects of the array at `at` of a body.
fn objects_at<'a>(body: &'a Json, at: &str) -> Vec<&'a Object> {
    body.pointer(at)
        .and_then(Json::as_array)
        .map(|items| items.iter().filter_map(Json::as_object).collect())
        .unwrap_or_default()
}

/// Whether the objects at `pointer` share a scalar member value (the same in every one of
/// them, in every body) that no object of another array of the bodies holds, or a member name
/// (every one of them holds it) that no such object holds, some body showing one (dynamic-rest's
/// sideloaded `projects` beside its `tasks`, objects naming no kind: a task's `title`).
fn distinct_kind(bodies: &[&Json], pointer: &str) -> bool {
    let listed: Vec<&Object> = bodies
        .iter()
        .flat_map(|body| objects_at(body, pointer))
        .collect();
    let Some((first, rest)) = listed.split_first() else {
        return false;
    };
    let shared: Vec<(&str, &Json)> = first
        .iter()
        .filter(|(_, value)| !matches!(value, Json::Array(_) | Json::Object(_)))
        .filter(|(key, value)| rest.iter().all(|object| object.get(key) == Some(*value)))
        .collect();
    let others: Vec<&Object> = bodies
        .iter()
        .flat_map(|body| {
            list_places(body)
                .into_iter()
                .filter(|place| place.pointer != pointer)
                .flat_map(move |place| objects_at(body, &place.pointer))
        })
        .collect();
    let by_value = shared
        .iter()
        .any(|(key, value)| others.iter().all(|object| object.get(key) != Some(*value)));
    // Told apart by a name only where some body shows another array's objects.
    let by_name = !others.is_empty()
        && first.iter().any(|(key, _)| {
            rest.iter().all(|object| object.contains_key(key))
                && others.iter().all(|object| !object.contains_key(key))
        });
    by_value || by_name
}

/// Where a body holds its list: its one place, or, among several, the agreed one.
pub(crate) fn place_in(body: &Json, agreed: Option<&str>) -> Option<String> {
    let places = list_places(body);
    match places.as_slice() {
        [only] => Some(only.pointer.clone()),
        [] => None,
        _ => {
            let agreed = agreed?;
            places
                .iter()
                .any(|place| place.pointer == agreed)
                .then(|| agreed.to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{agreed_place, list_places, place_in};

    use crate::test_support::parsed_json as body;

    #[test]
    fn an_array_of_related_objects_beside_the_list_is_not_the_list() {
        let plain = body(r#"{"data": [{"id": "1", "type": "T"}], "included": [], "meta": {}}"#);
        let related =
            body(r#"{"data": [{"id": "1", "type": "T"}], "included": [{"id": "9", "type": "P"}]}"#);
        let empty = body(r#"{"data": [], "included": []}"#);
        assert_eq!(list_places(&plain).len(), 2);
        // Alone, an answer showing objects in two arrays (or in none) says nothing.
        assert_eq!(agreed_place(&[&related]), None);
        assert_eq!(agreed_place(&[&empty]), None);
        let agreed = agreed_place(&[&related, &plain, &empty]);
        assert_eq!(agreed.as_deref(), Some("/data"));
        for answer in [&plain, &related, &empty] {
            assert_eq!(
                place_in(answer, agreed.as_deref()).as_deref(),
                Some("/data")
            );
        }
        assert_eq!(place_in(&related, None), None);
    }

    #[test]
    fn two_arrays_of_one_kind_hold_no_list() {
        // A board's cards and its pinned cards: the pinned card is a card again.
        let card = |id: u64| format!(r#"{{"card_id": {id}, "kind": "card"}}"#);
        let both = body(&format!(
            r#"{{"title": "a", "cards": [{}, {}], "pinned": [{}]}}"#,
            card(11),
            card(12),
            card(12)
        ));
        let unpinned = body(&format!(r#"{{"cards": [{}], "pinned": []}}"#, card(21)));
        assert_eq!(agreed_place(&[&both, &unpinned]), None);
        // Listed objects sharing no value at all tell nothing apart either.
        let plain = body(r#"{"a": [{"id": 1}, {"id": 2}], "b": []}"#);
        assert_eq!(agreed_place(&[&plain]), None);
    }

    #[test]
    fn sideloaded_objects_of_other_members_are_not_the_list() {
        // dynamic-rest: a tasks list, and the same list with the projects it names sideloaded;
        // no object names its kind, but every task holds `title`, which no project holds.
        let plain = body(r#"{"tasks": [{"id": 1, "title": "a", "project": 2}], "meta": {}}"#);
        let sideloaded = body(
            r#"{"projects": [{"id": 2, "code": "WEB"}], "tasks": [{"id": 1, "title": "a", "project": 2}, {"id": 4, "title": "b", "project": 2}]}"#,
        );
        let agreed = agreed_place(&[&sideloaded, &plain]);
        assert_eq!(agreed.as_deref(), Some("/tasks"));
        assert_eq!(
            place_in(&sideloaded, agreed.as_deref()).as_deref(),
            Some("/tasks")
        );
        // Objects of the same members beside them (a card's pinned copy) tell nothing apart.
        let same =
            body(r#"{"tasks": [{"id": 1, "title": "a"}], "pinned": [{"id": 1, "title": "a"}]}"#);
        assert_eq!(agreed_place(&[&same, &plain]), None);
    }

    #[test]
    fn answers_showing_objects_in_different_arrays_agree_on_none() {
        let first = body(r#"{"a": [{"id": "1"}], "b": []}"#);
        let second = body(r#"{"a": [], "b": [{"id": "1"}]}"#);
        assert_eq!(agreed_place(&[&first, &second]), None);
        // One array of objects is the list, whatever the others say.
        let single = body(r#"{"a": [{"id": "1"}], "n": 1}"#);
        assert_eq!(place_in(&single, Some("/b")).as_deref(), Some("/a"));
    }
}
