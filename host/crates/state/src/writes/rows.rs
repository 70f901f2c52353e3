//! A batch's answer listing one item per row it wrote (`{"ok": true, "rows": […]}` of the rows
//! read back, `[{"ok": true, "id": …, "rev": …}, …]`): learned from the recorded answers as the
//! array holding the items, the order they follow (the body's, or the written entities'
//! identities ascending) and what each item shows of its row's entity (the entity whole, or
//! members: an entity member under its own name, a text member under another name, or a value
//! every recorded item showed), and rendered from the entities a served call wrote.
//!
//! Only what every recorded answer shows is learned: an answer listing an item the model does
//! not fit (an item-level error such as a per-row conflict) teaches no model, and the plan is
//! withheld rather than answering it otherwise.

use rea_plugin_api::json::{Json, Object};

use super::model::{RowMember, RowOrder, RowsModel};
use super::observe::{After, Call};
use crate::model::Entity;
use crate::render::identity_value;
use crate::store::compare_values;

/// The array of an answer that lists one item per row sent: the answer itself (`""`), or its one
/// member holding an array (`/rows`); `None` when the listing holds another number of items.
pub(super) fn listing_pointer(response: &Json, rows: usize) -> Option<String> {
    let (pointer, items) = match response {
        Json::Array(items) => (String::new(), items),
        Json::Object(object) => {
            let mut arrays = object
                .iter()
                .filter_map(|(key, value)| Some((key, value.as_array()?)));
            let (key, items) = arrays.next()?;
            if arrays.next().is_some() {
                return None;
            }
            (super::explain::pointer_of(key), items)
        }
        _ => return None,
    };
    (items.len() == rows).then_some(pointer)
}

/// One recorded batch answer: the answer, and each row the call sent (in body order) with its
/// identity value and its entity after the call, where observed.
struct Listed<'c> {
    response: &'c Json,
    rows: Vec<(Json, Option<&'c Object>)>,
}

/// The rows model every call's answer agrees with (`calls` sent rows observed one by one, see
/// [`Call::bulk`]), with the pointer of the listing; `None` when the answers list no rows at one
/// pointer or no model fits every item.
pub(super) fn learn_rows(calls: &[&Call], identity: &str) -> Option<(String, RowsModel)> {
    learn_shown_rows(calls, identity, false)
}

/// [`learn_rows`], a row the call removed (`removed`: a delete's answer listing the records it
/// removed) shown as its entity before the call.
pub(super) fn learn_shown_rows(
    calls: &[&Call],
    identity: &str,
    removed: bool,
) -> Option<(String, RowsModel)> {
    let listed = calls
        .iter()
        .map(|call| {
            let rows = call
                .bulk
                .iter()
                .map(|target| {
                    let after = match (&target.after, &target.before) {
                        (After::Present(Json::Object(after)), _) if !removed => Some(after),
                        (After::Absent, Some(before)) if removed => before.fields.as_object(),
                        _ => None,
                    };
                    let key = after
                        .and_then(|after| identity_value_of(after, identity))
                        .unwrap_or_else(|| Json::String(target.id.clone().into()));
                    (key, after)
                })
                .collect();
            Some(Listed {
                response: call.response.as_ref()?,
                rows,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    learn_listed(&listed)
}

/// An object's identity value (a member, or a JSON pointer).
fn identity_value_of(object: &Object, identity: &str) -> Option<Json> {
    identity_value(&Json::Object(object.clone()), identity).map(std::borrow::Cow::into_owned)
}

/// [`learn_rows`] over the recorded answers: the first order (the body's, else the
/// identities') in which one item model fits every item.
fn learn_listed(listed: &[Listed<'_>]) -> Option<(String, RowsModel)> {
    let mut pointer: Option<String> = None;
    for call in listed {
        let found = listing_pointer(call.response, call.rows.len())?;
        if pointer.get_or_insert_with(|| found.clone()) != &found {
            return None;
        }
    }
    let pointer = pointer?;
    [RowOrder::Body, RowOrder::Identity]
        .into_iter()
        .find_map(|order| {
            let pairs = paired(listed, &pointer, order)?;
            let members = item_members(&pairs)?;
            Some(RowsModel { order, members })
        })
        .map(|model| (pointer, model))
}

/// Each listed item with its row's entity after the call, the items matched to the rows in
/// `order`; `None` when an item's row was not observed, or none was.
fn paired<'c>(
    listed: &[Listed<'c>],
    pointer: &str,
    order: RowOrder,
) -> Option<Vec<(&'c Object, &'c Object)>> {
    let mut pairs = Vec::new();
    for call in listed {
        let items = call.response.pointer(pointer)?.as_array()?;
        let mut rows = call.rows.clone();
        if order == RowOrder::Identity {
            rows.sort_by(|(left, _), (right, _)| compare_values(Some(left), Some(right)));
        }
        for (item, (_, after)) in items.iter().zip(rows) {
            pairs.push((item.as_object()?, after?));
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

/// What the items show of their entities: `Some(None)` each entity whole, `Some(Some(members))`
/// the members every pair agrees on, `None` when an item shows something no member explains.
fn item_members(pairs: &[(&Object, &Object)]) -> Option<Option<Vec<RowMember>>> {
    if pairs.iter().all(|(item, after)| item == after) {
        return Some(None);
    }
    let (first, _) = pairs[0];
    let same_keys = pairs.iter().all(|(item, _)| {
        item.len() == first.len() && item.keys().zip(first.keys()).all(|(a, b)| a == b)
    });
    if !same_keys {
        return None;
    }
    first
        .keys()
        .map(|name| item_member(pairs, name))
        .collect::<Option<Vec<_>>>()
        .map(Some)
}

/// One member of the items: the entity member of its name, else the one text member holding its
/// text in every pair, else the value every item shows.
fn item_member(pairs: &[(&Object, &Object)], name: &str) -> Option<RowMember> {
    let shown = |member: &str| {
        pairs
            .iter()
            .all(|(item, after)| item.get(name).is_some() && item.get(name) == after.get(member))
    };
    let member = |shows: Option<String>, value: Option<Json>| RowMember {
        name: name.to_owned(),
        shows,
        value,
    };
    if shown(name) {
        return Some(member(Some(name.to_owned()), None));
    }
    let (item, after) = pairs[0];
    if let Some(Json::String(text)) = item.get(name)
        && let Some(holder) = super::learn::sole_text_holder(after, text)
        && shown(holder)
    {
        return Some(member(Some(holder.to_owned()), None));
    }
    let value = item.get(name)?;
    pairs
        .iter()
        .all(|(item, _)| item.get(name) == Some(value))
        .then(|| member(None, Some(value.clone())))
}

/// The items a served call's answer lists for the entities it wrote (in body order), as the
/// model says; `None` when an item would lack a member it shows.
pub(crate) fn render_rows(model: &RowsModel, identity: &str, written: &[&Entity]) -> Option<Json> {
    let mut written: Vec<&Entity> = written.to_vec();
    if model.order == RowOrder::Identity {
        written.sort_by(|left, right| {
            compare_values(
                identity_value(&left.fields, identity).as_deref(),
                identity_value(&right.fields, identity).as_deref(),
            )
        });
    }
    let items = written
        .into_iter()
        .map(|entity| match &model.members {
            None => Some(entity.fields.clone()),
            Some(members) => {
                let mut item = Object::with_capacity(members.len());
                for member in members {
                    let value = match (&member.shows, &member.value) {
                        (Some(shows), _) => entity.fields.get(shows)?.clone(),
                        (None, value) => value.clone()?,
                    };
                    item.insert(member.name.clone(), value);
                }
                Some(Json::Object(item))
            }
        })
        .collect::<Option<Vec<Json>>>()?;
    Some(Json::Array(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    fn object(text: &str) -> Object {
        json(text).as_object().expect("an object").clone()
    }

    fn entity(fields: &str) -> Entity {
        Entity {
            entity_type: "/t".to_owned(),
            collection: "/t".to_owned(),
            id: String::new(),
            fields: json(fields),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
        }
    }

    #[test]
    fn the_listing_is_the_answer_or_its_one_array_of_as_many_items_as_rows() {
        assert_eq!(listing_pointer(&json("[{}, {}]"), 2).as_deref(), Some(""));
        let rows = json(r#"{"ok": true, "rows": [{}, {}]}"#);
        assert_eq!(listing_pointer(&rows, 2).as_deref(), Some("/rows"));
        assert_eq!(listing_pointer(&rows, 3), None);
        assert_eq!(listing_pointer(&json(r#"{"a": [], "b": []}"#), 0), None);
        assert_eq!(listing_pointer(&json(r#"{"ok": true}"#), 1), None);
    }

    #[test]
    fn rows_read_back_whole_in_key_order_are_learned_and_rendered_so() {
        // Sent WEB then DOC, listed DOC then WEB: the body's order does not fit, the keys' does.
        let (web, doc) = (
            object(r#"{"code": "WEB", "name": "Web", "archived": 0}"#),
            object(r#"{"code": "DOC", "name": "Docs", "archived": 0}"#),
        );
        let answer = json(
            r#"{"ok": true, "rows": [{"code": "DOC", "name": "Docs", "archived": 0},
                {"code": "WEB", "name": "Web", "archived": 0}]}"#,
        );
        let listed = [Listed {
            response: &answer,
            rows: vec![
                (Json::String("WEB".into()), Some(&web)),
                (Json::String("DOC".into()), Some(&doc)),
            ],
        }];
        let (pointer, model) = learn_listed(&listed).expect("a model");
        assert_eq!(pointer, "/rows");
        assert_eq!(
            model,
            RowsModel {
                order: RowOrder::Identity,
                members: None
            }
        );
        let (ops, qa) = (
            entity(r#"{"code": "OPS", "name": "Ops", "archived": 1}"#),
            entity(r#"{"code": "MOB", "name": "Mobile", "archived": 0}"#),
        );
        assert_eq!(
            render_rows(&model, "code", &[&ops, &qa]),
            Some(json(
                r#"[{"code": "MOB", "name": "Mobile", "archived": 0},
                    {"code": "OPS", "name": "Ops", "archived": 1}]"#
            ))
        );
    }

    #[test]
    fn items_naming_members_under_other_names_are_learned_with_their_constants() {
        let (first, second) = (
            object(r#"{"_id": "a1", "_rev": "1-x", "active": true}"#),
            object(r#"{"_id": "m3", "_rev": "2-y", "active": true}"#),
        );
        let answer = json(
            r#"[{"ok": true, "id": "a1", "rev": "1-x"}, {"ok": true, "id": "m3", "rev": "2-y"}]"#,
        );
        let listed = [Listed {
            response: &answer,
            rows: vec![
                (Json::String("a1".into()), Some(&first)),
                (Json::String("m3".into()), Some(&second)),
            ],
        }];
        let (pointer, model) = learn_listed(&listed).expect("a model");
        assert_eq!(pointer, "");
        assert_eq!(model.order, RowOrder::Body);
        let members = model.members.clone().expect("members");
        let shown: Vec<(&str, Option<&str>, Option<&Json>)> = members
            .iter()
            .map(|member| {
                (
                    member.name.as_str(),
                    member.shows.as_deref(),
                    member.value.as_ref(),
                )
            })
            .collect();
        // `ok` is a boolean every item showed (not `active`, which only happens to agree).
        assert_eq!(
            shown,
            [
                ("ok", None, Some(&Json::Bool(true))),
                ("id", Some("_id"), None),
                ("rev", Some("_rev"), None),
            ]
        );
        // Rendered in body order from the entities written; an entity lacking a shown member
        // renders nothing.
        let (z, b) = (
            entity(r#"{"_id": "z", "_rev": "3-c"}"#),
            entity(r#"{"_id": "b", "_rev": "1-d"}"#),
        );
        assert_eq!(
            render_rows(&model, "_id", &[&z, &b]),
            Some(json(
                r#"[{"ok": true, "id": "z", "rev": "3-c"}, {"ok": true, "id": "b", "rev": "1-d"}]"#
            ))
        );
        assert_eq!(
            render_rows(&model, "_id", &[&entity(r#"{"_id": "q"}"#)]),
            None
        );
    }

    #[test]
    fn an_item_level_error_or_an_unobserved_row_teaches_no_model() {
        let held = object(r#"{"_id": "a1", "_rev": "1-x"}"#);
        let conflict =
            json(r#"[{"ok": true, "id": "a1", "rev": "1-x"}, {"id": "b", "error": "conflict"}]"#);
        let other = object(r#"{"_id": "b", "_rev": "1-z"}"#);
        let listed = [Listed {
            response: &conflict,
            rows: vec![
                (Json::String("a1".into()), Some(&held)),
                (Json::String("b".into()), Some(&other)),
            ],
        }];
        assert_eq!(learn_listed(&listed), None);
        let answer = json(r#"[{"ok": true, "id": "a1", "rev": "1-x"}, {"ok": true, "id": "b"}]"#);
        let unobserved = [Listed {
            response: &answer,
            rows: vec![
                (Json::String("a1".into()), Some(&held)),
                (Json::String("b".into()), None),
            ],
        }];
        assert_eq!(learn_listed(&unobserved), None);
    }
}
