//! Identity lists: an envelope member of a list's answers that lists the identities of the
//! members the answer lists, in their order (`{"count": 12, "ids": [3, 4, 6], "result": [{"id":
//! 3, …}, …]}`), as an application that pages by ids shows them beside the rows.
//!
//! Learned from the recordings only, never from a name ([`learned`]): an array of scalars among
//! the envelope's members (or one object down) that, in every checked line of the list holding
//! it whose members all hold the identity field, equals those members' identity values in order,
//! and that listed two members or more in one of them (so a single id, or an empty page, never
//! makes one). A line whose members do not hold the identity (a field selection leaving it out)
//! shows nothing either way. The state computes such a member in every list answer it renders
//! from the members it lists ([`set`]), so it is neither a per-response member nor a paged one.

use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use crate::observation::Observation;
use crate::render::pointer_mut;

/// The envelope members of the lines that list their members' identities (see the module
/// docs), given where the list sits and the identity field of its type.
pub fn learned(lines: &[&Observation], list_pointer: &str, identity: &str) -> Vec<String> {
    let mut candidates: Vec<String> = Vec::new();
    for line in lines {
        if let Some(body) = &line.body {
            for pointer in scalar_arrays(body, list_pointer) {
                if !candidates.contains(&pointer) {
                    candidates.push(pointer);
                }
            }
        }
    }
    candidates.retain(|pointer| lists_identities(lines, (pointer, list_pointer), identity));
    candidates
}

/// Whether every line holding `pointer` lists there its members' identities (where they all
/// hold one), and one of them two or more.
fn lists_identities(
    lines: &[&Observation],
    (pointer, list_pointer): (&str, &str),
    identity: &str,
) -> bool {
    let mut shown = false;
    for line in lines {
        let Some(body) = &line.body else {
            continue;
        };
        let (Some(Json::Array(listed)), Some(Json::Array(members))) =
            (body.pointer(pointer), body.pointer(list_pointer))
        else {
            continue;
        };
        let Some(identities) = identities(members, identity) else {
            continue;
        };
        if *listed != identities {
            return false;
        }
        shown |= identities.len() >= 2;
    }
    shown
}

/// The members' identity values in order; `None` when one holds none (or is no object).
fn identities(members: &[Json], identity: &str) -> Option<Vec<Json>> {
    members
        .iter()
        .map(|member| member.as_object()?.get(identity).cloned())
        .collect()
}

/// The pointers of the arrays of scalars among an envelope's members and one object down,
/// the list itself left out.
fn scalar_arrays(body: &Json, list_pointer: &str) -> Vec<String> {
    let mut found = Vec::new();
    if let Some(object) = body.as_object() {
        collect(object, "", list_pointer, 2, &mut found);
    }
    found
}

fn collect(object: &Object, at: &str, list_pointer: &str, depth: usize, found: &mut Vec<String>) {
    for (key, value) in object.iter() {
        let pointer = format!("{at}/{}", escape_pointer_segment(key));
        if pointer == list_pointer {
            continue;
        }
        match value {
            Json::Array(items)
                if items
                    .iter()
                    .all(|item| matches!(item, Json::Number(_) | Json::String(_))) =>
            {
                found.push(pointer);
            }
            Json::Object(inner) if depth > 1 => {
                collect(inner, &pointer, list_pointer, depth - 1, found);
            }
            _ => {}
        }
    }
}

/// Sets each identity list an envelope holds to the identities of the members it lists (in
/// order; a member without one leaves the list as it is).
pub fn set(body: &mut Json, pointers: &[String], (members, identity): (&[Json], &str)) {
    let Some(identities) = identities(members, identity) else {
        return;
    };
    for pointer in pointers {
        if let Some(slot) = pointer_mut(body, pointer) {
            *slot = Json::Array(identities.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use rea_plugin_api::json::parse;

    use super::*;
    use crate::test_support::read_observation;

    fn line(body: &str) -> Observation {
        read_observation(0, "/tasks", &[], body)
    }

    #[test]
    fn an_array_of_the_listed_identities_is_learned() {
        let lines = [
            line(
                r#"{"count": 3, "ids": [3, 1], "tags": ["a", "b"], "result": [{"id": 3}, {"id": 1}]}"#,
            ),
            line(r#"{"count": 3, "ids": [], "tags": ["a", "b"], "result": []}"#),
            // A selection leaving the identity out shows nothing either way.
            line(r#"{"count": 3, "ids": [2], "tags": [], "result": [{"title": "x"}]}"#),
        ];
        let lines: Vec<&Observation> = lines.iter().collect();
        assert_eq!(learned(&lines, "/result", "id"), vec!["/ids".to_owned()]);
    }

    #[test]
    fn a_single_id_or_a_disagreeing_line_teaches_none() {
        let single = [line(r#"{"ids": [3], "result": [{"id": 3}]}"#)];
        let single: Vec<&Observation> = single.iter().collect();
        assert!(learned(&single, "/result", "id").is_empty());
        let disagreeing = [
            line(r#"{"ids": [3, 1], "result": [{"id": 3}, {"id": 1}]}"#),
            line(r#"{"ids": [1, 3], "result": [{"id": 3}, {"id": 1}]}"#),
        ];
        let disagreeing: Vec<&Observation> = disagreeing.iter().collect();
        assert!(learned(&disagreeing, "/result", "id").is_empty());
    }

    #[test]
    fn set_lists_the_rendered_members_identities() {
        let mut body = parse(br#"{"ids": [9], "meta": {"ids": [9]}, "result": []}"#).expect("JSON");
        let members = [
            parse(br#"{"id": 4}"#).expect("JSON"),
            parse(br#"{"id": 2}"#).expect("JSON"),
        ];
        set(
            &mut body,
            &["/ids".to_owned(), "/meta/ids".to_owned()],
            (&members, "id"),
        );
        assert_eq!(
            body,
            parse(br#"{"ids": [4, 2], "meta": {"ids": [4, 2]}, "result": []}"#).expect("JSON")
        );
    }
}
