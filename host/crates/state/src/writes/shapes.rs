//! Object shapes a write may store verbatim: a member a recorded call sent as an object whose key
//! set no held entity of the type stores there and no observed call left there (an operator
//! object such as `{"__op": "AddRelation", "objects": […]}` beside stored
//! `{"__type": "Relation", …}` values) and no rule stage explains is not a value the application
//! stores as sent: what it does with it is not shown, so the body no longer accepts the member
//! and a call sending it is refused rather than stored by guess. An object an observed call's
//! entity after holds with every sent member as sent, beside members it did not send (a create's
//! `{"code": "DOC"}` stored as `{"code": "DOC", "status": "active"}`), is part of a stored one,
//! not a shape of its own.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::{Json, Object};

use super::explain::Observed;
use super::model::BodyModel;
use super::observe::After;

/// A JSON object's key set, sorted.
pub(crate) type Shape = Vec<String>;

/// Per member, the key sets of the objects stored there.
pub(crate) type MemberShapes = BTreeMap<String, BTreeSet<Shape>>;

/// The key set of an object value, `None` for any other value.
pub(crate) fn shape_of(value: &Json) -> Option<Shape> {
    let object = value.as_object()?;
    let mut keys: Shape = object.keys().map(str::to_owned).collect();
    keys.sort();
    Some(keys)
}

/// Notes the key set of each top-level member of `object` holding an object.
pub(crate) fn note_shapes(known: &mut MemberShapes, object: &Object) {
    for (member, value) in object.iter() {
        if let Some(shape) = shape_of(value) {
            known.entry(member.to_owned()).or_default().insert(shape);
        }
    }
}

/// Removes from `body` each member some call sent (`sent`: every call's members) as an object of
/// a key set neither `stored` (the type's held entities) nor an observed call's entity after the
/// write holds there, unless a rule explains the member (`explained`: member names).
pub(super) fn drop_unshown_shapes(
    body: &mut BodyModel,
    sent: &[Object],
    observed: &[Observed<'_>],
    stored: Option<&MemberShapes>,
    explained: &BTreeSet<String>,
) {
    let mut unshown: BTreeSet<String> = BTreeSet::new();
    for members in sent {
        for (name, value) in members.iter() {
            let Some(shape) = shape_of(value) else {
                continue;
            };
            if explained.contains(name) || !body.members.contains_key(name) {
                continue;
            }
            let held = stored
                .and_then(|stored| stored.get(name))
                .is_some_and(|shapes| shapes.contains(&shape));
            let left = observed.iter().any(|seen| match &seen.call.after {
                After::Present(Json::Object(after)) => after.get(name).is_some_and(|stored| {
                    shape_of(stored).as_ref() == Some(&shape)
                        || holds_as_sent(stored, seen.sent.get(name))
                }),
                _ => false,
            });
            if !held && !left {
                unshown.insert(name.to_owned());
            }
        }
    }
    for name in &unshown {
        tracing::debug!(
            member = name.as_str(),
            "a recorded call sent an object of a shape no held entity stores: the member is refused"
        );
        body.members.remove(name);
    }
}

/// Whether a stored object holds every member a call sent in its object as sent, beside
/// members it did not send (`{"code": "DOC"}` stored as `{"code": "DOC", "status": "active"}`),
/// an object member in turn (`{"assignee": {"data": …}}` stored as
/// `{"assignee": {"data": …, "links": …}, "project": …}`): the sent object is part of the stored
/// one, not a shape of its own.
fn holds_as_sent(stored: &Json, sent: Option<&Json>) -> bool {
    let (Some(stored), Some(sent)) = (stored.as_object(), sent.and_then(Json::as_object)) else {
        return false;
    };
    !sent.is_empty()
        && sent
            .iter()
            .all(|(key, value)| match (stored.get(key), value) {
                (Some(held @ Json::Object(_)), Json::Object(_)) => holds_as_sent(held, Some(value)),
                (held, _) => held == Some(value),
            })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writes::model::MemberModel;

    fn object(text: &str) -> Object {
        Json::parse(text.as_bytes())
            .expect("JSON")
            .as_object()
            .expect("object")
            .clone()
    }

    fn body(names: &[&str]) -> BodyModel {
        let mut body = BodyModel::default();
        for name in names {
            body.members.insert(
                (*name).to_owned(),
                MemberModel {
                    types: vec!["object".to_owned()],
                    required: false,
                    fixed: None,
                },
            );
        }
        body
    }

    #[test]
    fn an_object_of_a_shape_no_entity_stores_is_refused() {
        let mut stored = MemberShapes::new();
        note_shapes(
            &mut stored,
            &object(
                r#"{"members": {"__type": "Relation", "className": "Member"},
                    "due": {"__type": "Date", "iso": "2026-01-05T09:00:00.000Z"}}"#,
            ),
        );
        let sent = vec![
            object(r#"{"members": {"__op": "AddRelation", "objects": []}}"#),
            object(r#"{"due": {"iso": "2026-02-01T00:00:00.000Z", "__type": "Date"}}"#),
        ];
        let mut model = body(&["members", "due"]);
        drop_unshown_shapes(&mut model, &sent, &[], Some(&stored), &BTreeSet::new());
        // The operator object is no stored shape; the date is (keys in any order).
        assert!(!model.members.contains_key("members"));
        assert!(model.members.contains_key("due"));
    }

    #[test]
    fn a_sent_object_stored_whole_beside_members_it_did_not_send_is_no_shape_of_its_own() {
        let stored = Json::Object(object(
            r#"{"code": "DOC", "name": "Docs", "status": "active"}"#,
        ));
        let sent = Json::Object(object(r#"{"code": "DOC", "name": "Docs"}"#));
        assert!(holds_as_sent(&stored, Some(&sent)));
        // A sent member stored otherwise, or an empty object, is not held as sent.
        // An object member is held as sent when the stored one holds its members as sent.
        let linked = Json::Object(object(
            r#"{"assignee": {"data": {"type": "people", "id": "5"}, "links": {"self": "/a"}},
                "project": {"data": null}}"#,
        ));
        let sent_link = Json::Object(object(
            r#"{"assignee": {"data": {"type": "people", "id": "5"}}}"#,
        ));
        assert!(holds_as_sent(&linked, Some(&sent_link)));
        let other_link = Json::Object(object(
            r#"{"assignee": {"data": {"type": "people", "id": "6"}}}"#,
        ));
        assert!(!holds_as_sent(&linked, Some(&other_link)));
        let renamed = Json::Object(object(r#"{"code": "DOC", "name": "Other"}"#));
        assert!(!holds_as_sent(&stored, Some(&renamed)));
        assert!(!holds_as_sent(&stored, Some(&Json::Object(object("{}")))));
    }

    #[test]
    fn a_member_a_rule_explains_keeps_its_shapes() {
        let sent = vec![object(
            r#"{"estimate": {"__op": "Increment", "amount": 3}}"#,
        )];
        let mut model = body(&["estimate"]);
        let explained: BTreeSet<String> = ["estimate".to_owned()].into();
        drop_unshown_shapes(&mut model, &sent, &[], None, &explained);
        assert!(model.members.contains_key("estimate"));
        // Unexplained and stored nowhere, the same member is refused.
        drop_unshown_shapes(&mut model, &sent, &[], None, &BTreeSet::new());
        assert!(!model.members.contains_key("estimate"));
    }
}
