//! The other members of a linked type a key-only link filter's spelling reaches. A recorded
//! parameter spelling a link member, a separator and a member of the linked type
//! (`author__country=SE`, learned as a key-only [`LinkField`], see [`crate::link_filters`])
//! shows how the application names the linked entities' members through the link, so the same
//! spelling is offered for each other scalar member the held entities of that type show
//! (`author__born`, `author__name`), each naming the linked entities by that member alone
//! (django-tastypie's `ALL_WITH_RELATIONS`). Offered as generalized parameters, never over a
//! name the list established or another grammar offered.

use std::collections::BTreeMap;

use rea_plugin_api::json::Json;

use crate::link_filters::LinkField;
use crate::model::{Entity, QueryRole, ReadView};

/// Offers each list view's key-only link spellings over the linked type's other members.
pub(crate) fn generalize(entities: &[Entity], views: &mut [ReadView]) {
    for view in views.iter_mut() {
        let Some(model) = view.list_query_mut() else {
            continue;
        };
        for (name, role) in offered(&model.parameters, entities) {
            if model.parameters.contains_key(&name) || model.generalized.contains_key(&name) {
                continue;
            }
            model.generalized.insert(name, role);
        }
    }
}

/// The names a list's key-only link parameters reach (see the module docs), each with its
/// equality filter on the linked type's member.
fn offered(
    parameters: &BTreeMap<String, QueryRole>,
    entities: &[Entity],
) -> BTreeMap<String, QueryRole> {
    let mut found = BTreeMap::new();
    for (name, role) in parameters {
        let QueryRole::Filter { field, op } = role else {
            continue;
        };
        let Some(link) = LinkField::parse(field).filter(|link| link.key_only && op == "eq") else {
            continue;
        };
        let Some(spelling) = name.strip_suffix(link.key.as_str()) else {
            continue;
        };
        for member in scalar_members(entities, &link.target_type) {
            let reached = LinkField {
                key: member.clone(),
                ..link.clone()
            };
            found.insert(
                format!("{spelling}{member}"),
                QueryRole::filter(&reached.field(), "eq"),
            );
        }
    }
    found
}

/// The members every held entity of a type holds as a text or a number, in name order.
fn scalar_members(entities: &[Entity], entity_type: &str) -> Vec<String> {
    let mut of_type = entities
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
        .peekable();
    let Some(Json::Object(first)) = of_type.peek().map(|entity| &entity.fields) else {
        return Vec::new();
    };
    let mut members: Vec<String> = first.iter().map(|(name, _)| name.to_owned()).collect();
    for entity in of_type {
        members.retain(|member| {
            matches!(
                entity.fields.get(member),
                Some(Json::String(_) | Json::Number(_))
            )
        });
    }
    members.sort();
    members
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    #[test]
    fn a_key_only_spelling_reaches_the_linked_types_other_scalar_members() {
        let authors = [
            entity(
                "/author/",
                "1",
                r#"{"id": 1, "name": "Ursula", "born": 1929, "tags": []}"#,
            ),
            entity(
                "/author/",
                "2",
                r#"{"id": 2, "name": "Tomas", "born": 1951, "tags": []}"#,
            ),
        ];
        let by_name = LinkField {
            member: "author".to_owned(),
            target_type: "/author/".to_owned(),
            key: "name".to_owned(),
            key_only: true,
        };
        let parameters = BTreeMap::from([
            (
                "author__name".to_owned(),
                QueryRole::filter(&by_name.field(), "eq"),
            ),
            ("genre".to_owned(), QueryRole::filter("genre", "eq")),
        ]);
        let offered = offered(&parameters, &authors);
        let names: Vec<&str> = offered.keys().map(String::as_str).collect();
        assert_eq!(names, ["author__born", "author__id", "author__name"]);
        let Some(QueryRole::Filter { field, op }) = offered.get("author__born") else {
            panic!("{offered:?}");
        };
        let born = LinkField::parse(field).expect("a link field");
        assert_eq!(
            (born.key.as_str(), born.key_only, op.as_str()),
            ("born", true, "eq")
        );
        // A link naming its entities by id as well reaches nothing.
        let by_id = LinkField {
            key_only: false,
            ..by_name
        };
        let parameters = BTreeMap::from([(
            "author__name".to_owned(),
            QueryRole::filter(&by_id.field(), "eq"),
        )]);
        assert!(super::offered(&parameters, &authors).is_empty());
    }
}
