//! The list query grammar: each query-grammar stage the pipeline names (`[state]
//! query_grammars`, the built-in `field-affixes` by default; see
//! `rea_plugin_api::contracts::query`) is asked, in order, which parameters the state's lists
//! accept beyond those their recordings named, given every list's established roles (learned by
//! [`super::list_query`]), the fields the state holds for its entity type and the names its
//! recorded lines used. What the stages propose is kept apart from the recorded roles
//! ([`QueryModel::generalized`]), as are the families of unbounded parameter names they read
//! as terms ([`QueryModel::families`]); the first proposal for a name wins, and a name a list
//! established or recorded is never taken from a stage (its recording decides it).

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::query::{ListQueries, QueryGrammarRequest};
use rea_plugin_api::json::Json;
use rea_plugin_api::query_fields::{bracket_path, bracketed_relation};

use crate::derive::entities::collection_key;
use crate::model::{Entity, QueryModel, ReadView, ViewDetail};
use crate::observation::Timeline;
use crate::rules::RuleSet;

/// The scalar fields the entities of a type hold, and one level of scalar members of their object
/// fields (dotted).
pub fn scalar_fields<'a>(entities: impl IntoIterator<Item = &'a Entity>) -> BTreeSet<String> {
    let scalar = |value: &Json| !matches!(value, Json::Array(_) | Json::Object(_));
    let mut fields = BTreeSet::new();
    for entity in entities {
        let Some(object) = entity.fields.as_object() else {
            continue;
        };
        for (key, value) in object.iter() {
            if scalar(value) {
                fields.insert(key.to_owned());
            } else if let Json::Object(members) = value {
                for (member, inner) in members.iter() {
                    if scalar(inner) {
                        fields.insert(format!("{key}.{member}"));
                    }
                }
            }
        }
    }
    fields
}

/// The scalar fields (see [`scalar_fields`]) the entities of one type hold, sorted.
pub fn type_scalar_fields(entities: &[Entity], entity_type: &str) -> Vec<String> {
    scalar_fields(
        entities
            .iter()
            .filter(|entity| entity.entity_type == entity_type),
    )
    .into_iter()
    .collect()
}

/// The top-level fields the entities of a type hold as arrays of scalars: some entity holds a
/// non-empty array there and every entity holding the field holds an array of scalars (or
/// null).
pub fn array_fields<'a>(entities: impl IntoIterator<Item = &'a Entity>) -> BTreeSet<String> {
    // Per field: whether some entity held a non-empty array there; `None` once one held
    // something else.
    let mut seen: BTreeMap<String, Option<bool>> = BTreeMap::new();
    for entity in entities {
        let Some(object) = entity.fields.as_object() else {
            continue;
        };
        for (key, value) in object.iter() {
            let held = match value {
                Json::Array(items) => items
                    .iter()
                    .all(|item| !matches!(item, Json::Array(_) | Json::Object(_) | Json::Null))
                    .then_some(!items.is_empty()),
                Json::Null => Some(false),
                _ => None,
            };
            let known = seen.entry(key.to_owned()).or_insert(Some(false));
            *known = match (*known, held) {
                (Some(before), Some(filled)) => Some(before || filled),
                _ => None,
            };
        }
    }
    seen.into_iter()
        .filter_map(|(field, held)| (held == Some(true)).then_some(field))
        .collect()
}

/// The plain names of the scalar members the entities of a type hold only nested in one object
/// member (`title` of `{"attributes": {"title": …}}`), a to-one relation object counting as the
/// identifier it names (`author` of `{"relationships": {"author": {"data": {"id": "2", …}}}}`,
/// see [`crate::query::relation_identifier`]): a name no entity holds at the top level
/// and each entity holding it holds under one object member only, as [`crate::query::field_value`]
/// reads a plain field.
pub fn plain_nested_fields<'a>(entities: impl IntoIterator<Item = &'a Entity>) -> BTreeSet<String> {
    let mut plain = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for entity in entities {
        let Some(object) = entity.fields.as_object() else {
            continue;
        };
        let mut holders: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, value) in object.iter() {
            if let Json::Object(members) = value {
                for (member, inner) in members.iter() {
                    let plain = !matches!(inner, Json::Array(_) | Json::Object(_))
                        || crate::query::relation_identifier(inner).is_some();
                    if plain {
                        *holders.entry(member).or_default() += 1;
                    }
                }
            }
        }
        for (member, count) in holders {
            if count == 1 && object.get(member).is_none() {
                plain.insert(member.to_owned());
            } else {
                refused.insert(member.to_owned());
            }
        }
    }
    plain.retain(|member| !refused.contains(member));
    plain
}

/// Whether some list's recorded queries filter by a plain name its entities hold only nested
/// ([`plain_nested_fields`]): the evidence that the application's filters name nested members
/// plainly (`filter[status]` over `attributes.status`).
pub fn names_nested_plainly(views: &[ReadView], entities: &[Entity]) -> bool {
    views.iter().any(|view| {
        let ViewDetail::List(list) = &view.detail else {
            return false;
        };
        let Some(model) = &list.query else {
            return false;
        };
        let plain = plain_nested_fields(
            entities
                .iter()
                .filter(|entity| entity.entity_type == list.entity_type),
        );
        model.parameters.values().any(|role| {
            matches!(role, crate::model::QueryRole::Filter { field, .. } if plain.contains(field))
        })
    })
}

/// The query evidence of one list view a grammar is given: its established roles, its entity
/// type's fields (with the plain names of its nested members, `nested_plainly`) and the names
/// its recorded lines used.
pub fn list_queries(
    list: &crate::model::ListView,
    entities: &[Entity],
    parameters: &[&str],
    nested_plainly: bool,
) -> ListQueries {
    let of_type = || {
        entities
            .iter()
            .filter(|entity| entity.entity_type == list.entity_type)
    };
    let mut fields = scalar_fields(of_type());
    if nested_plainly {
        fields.extend(plain_nested_fields(of_type()));
    }
    let recorded_names: BTreeSet<String> = list
        .lines
        .iter()
        .flat_map(|line| line.query.iter().flatten())
        .map(|(name, _)| name.clone())
        .collect();
    ListQueries {
        established: list
            .query
            .as_ref()
            .map(|model| model.parameters.clone())
            .unwrap_or_default(),
        fields: fields.into_iter().collect(),
        recorded_names: recorded_names.into_iter().collect(),
        array_fields: array_fields(
            entities
                .iter()
                .filter(|entity| entity.entity_type == list.entity_type),
        )
        .into_iter()
        .collect(),
        joined_fields: joined_fields(list, entities, (parameters, nested_plainly)),
        many_joined_fields: Vec::new(),
        refused_names: Vec::new(),
    }
}

/// The query names a tool's recorded calls named only where the application refused the call
/// (a `4xx` answer), sorted.
fn refused_names(timeline: &Timeline, tool: usize) -> Vec<String> {
    let mut refused = BTreeSet::new();
    let mut answered = BTreeSet::new();
    for observation in timeline.all(tool) {
        let names = observation.pairs().iter().map(|(name, _)| name.clone());
        if (400..500).contains(&observation.status) {
            refused.extend(names);
        } else {
            answered.extend(names);
        }
    }
    refused.difference(&answered).cloned().collect()
}

/// The query parameter names a tool of the manifest was recorded with.
pub fn tool_parameters<'m>(manifest: &'m Manifest, tool: &str) -> Vec<&'m str> {
    manifest
        .tools
        .iter()
        .find(|known| known.name == tool)
        .map(|known| {
            known
                .query_parameters
                .iter()
                .map(|parameter| parameter.name.as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// The scalar fields of the entities each many-to-one join of a list reaches (see
/// [`crate::joins`]), dotted through the member, sorted: those of a member some recorded
/// parameter of the list's tool filters through (`filter[project][code][_eq]`, see
/// [`bracket_path`], a dotted field in braces or brackets, `filter{project.code}`, see
/// [`bracketed_relation`], or an established filter of a dotted field whose name spells it
/// dotted, `filter[project.code]`), the evidence that the application's filters reach through
/// it; with
/// the plain names of their nested members where the application's filters name those plainly (`nested_plainly`, see
/// [`plain_nested_fields`]: `project.name` over the project's `attributes.name`).
fn joined_fields(
    list: &crate::model::ListView,
    entities: &[Entity],
    (parameters, nested_plainly): (&[&str], bool),
) -> Vec<String> {
    let mut through: BTreeSet<String> = parameters
        .iter()
        .filter_map(|name| bracket_path(name))
        .filter_map(|(path, _)| path.into_iter().next())
        .collect();
    // A recorded filter on a dotted field in braces or brackets (`filter{project.code}`).
    through.extend(
        parameters
            .iter()
            .filter_map(|name| bracketed_relation(name))
            .map(str::to_owned),
    );
    // A recorded filter on a dotted field through the member, spelled dotted
    // (`filter[project.code]`); not a condition on a relation's resource, whose name spells the
    // relation apart (`filter[objects][project][has][code][eq]`): no form of the list's grammar
    // spells the joined fields as it does.
    let established = list.query.iter().flat_map(|model| model.parameters.iter());
    for (name, role) in established {
        if let crate::model::QueryRole::Filter { field, .. } = role
            && let Some((member, _)) = field.split_once('.')
            && name.contains(field.as_str())
        {
            through.insert(member.to_owned());
        }
    }
    reached_fields(list, entities, nested_plainly, |join| {
        matches!(join.link, crate::relations::Link::Parent { .. }) && through.contains(&join.member)
    })
}

/// The scalar fields of the entities each one-to-many join of a list reaches (see
/// [`crate::joins`]: a member showing the entities holding the entity's identity, or those its
/// array of ids names), dotted through the member, sorted: a filter quantifies over them (see
/// `ListQueries::many_joined_fields`). The evidence is the application's, not the list's: the
/// caller asks only where some recorded parameter of any list filters through a relation as a
/// bracket path (`filter[project][code][_eq]`).
pub fn many_joined_fields(
    list: &crate::model::ListView,
    entities: &[Entity],
    nested_plainly: bool,
) -> Vec<String> {
    reached_fields(list, entities, nested_plainly, |join| {
        matches!(
            join.link,
            crate::relations::Link::Children { .. } | crate::relations::Link::Ids
        ) && !join.enclosing
    })
}

/// The undotted scalar fields (and, with `nested_plainly`, the plainly named nested members) of
/// the entities each join of a list that `keep` admits reaches, dotted through the join's
/// member, sorted.
fn reached_fields(
    list: &crate::model::ListView,
    entities: &[Entity],
    nested_plainly: bool,
    keep: impl Fn(&crate::relations::Relation) -> bool,
) -> Vec<String> {
    let mut fields = BTreeSet::new();
    for join in list.joins.iter().filter(|join| keep(join)) {
        let related = || {
            entities.iter().filter(|entity| {
                entity.entity_type == join.entity_type
                    && collection_key(&entity.collection) == collection_key(&join.collection)
            })
        };
        let mut reached = scalar_fields(related());
        if nested_plainly {
            reached.extend(plain_nested_fields(related()));
        }
        for field in reached.into_iter().filter(|field| !field.contains('.')) {
            fields.insert(format!("{}.{field}", join.member));
        }
    }
    fields.into_iter().collect()
}

/// Whether some recorded parameter of a list view's tool filters through a relation as a
/// bracket path (`filter[project][code][_eq]`, see [`bracket_path`]): the evidence that the
/// application's filters reach related entities, which [`many_joined_fields`] extends to the
/// members naming many.
fn filters_through_relations(manifest: &Manifest, views: &[ReadView]) -> bool {
    views.iter().any(|view| {
        matches!(view.detail, ViewDetail::List(_))
            && tool_parameters(manifest, &view.tool)
                .iter()
                .any(|name| bracket_path(name).is_some())
    })
}

/// The query evidence of every list view, in view order: what [`generalize`] asks the grammars
/// (see [`list_queries`]; [`many_joined_fields`] where [`filters_through_relations`]).
pub fn request_lists(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &[ReadView],
    entities: &[Entity],
) -> Vec<ListQueries> {
    let nested_plainly = names_nested_plainly(views, entities);
    let through = filters_through_relations(manifest, views);
    views
        .iter()
        .filter_map(|view| match &view.detail {
            ViewDetail::List(list) => {
                let mut queries = list_queries(
                    list,
                    entities,
                    &tool_parameters(manifest, &view.tool),
                    nested_plainly,
                );
                if through {
                    queries.many_joined_fields = many_joined_fields(list, entities, nested_plainly);
                }
                if let Some(tool) = manifest
                    .tools
                    .iter()
                    .position(|tool| tool.name == view.tool)
                {
                    queries.refused_names = refused_names(timeline, tool);
                }
                Some(queries)
            }
            _ => None,
        })
        .collect()
}

/// Asks the pipeline's query grammars about the list views and extends each by what they
/// propose: a view with a model gets the parameters proposed for it, a view without one a model
/// of them alone (answering no recorded line).
pub fn generalize(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &mut [ReadView],
    entities: &[Entity],
    rules: &RuleSet,
) {
    if rules.query_grammars().is_empty() {
        return;
    }
    let lists = request_lists(manifest, timeline, views, entities);
    if lists.is_empty() {
        return;
    }
    let request = QueryGrammarRequest {
        options: Default::default(),
        lists,
        schema_version: SCHEMA_VERSION,
    };
    let proposed = rules.propose_query_parameters(&request);
    let list_views = views.iter_mut().filter_map(|view| match &mut view.detail {
        ViewDetail::List(list) => Some(list),
        _ => None,
    });
    for ((list, asked), proposals) in list_views.zip(&request.lists).zip(proposed) {
        let mut generalized = proposals.roles;
        // A recorded name is kept where it filters a joined field, which the recorded lines
        // (learned before the joins) could not reach (see the query-grammar stage's `extend`).
        generalized.retain(|name, role| {
            let joined = matches!(role, crate::model::QueryRole::Filter { field, .. }
                if asked.joined_fields.contains(field));
            !asked.established.contains_key(name)
                && (joined || asked.recorded_names.binary_search(name).is_err())
        });
        let model = list.query.get_or_insert_with(|| QueryModel::of_roles(&[]));
        model.generalized = generalized;
        model.families = (!proposals.families.is_empty()).then(|| Box::new(proposals.families));
        if model.parameters.is_empty() && model.generalized.is_empty() && model.families.is_none() {
            list.query = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(fields: &str) -> Entity {
        Entity {
            entity_type: "/posts".to_owned(),
            collection: "/posts".to_owned(),
            id: String::new(),
            fields: rea_plugin_api::json::parse(fields.as_bytes()).expect("JSON"),
            view_fields: BTreeMap::new(),
            record_ordinals: Vec::new(),
        }
    }

    #[test]
    fn array_fields_hold_arrays_of_scalars_in_every_entity() {
        let entities = [
            entity(
                r#"{"tags": ["a", "b"], "ids": [1, 2], "links": [{"x": 1}], "mixed": [1], "empty": []}"#,
            ),
            entity(r#"{"tags": [], "ids": null, "mixed": "one", "empty": []}"#),
        ];
        let fields: Vec<String> = array_fields(&entities).into_iter().collect();
        assert_eq!(fields, vec!["ids".to_owned(), "tags".to_owned()]);
        assert!(!scalar_fields(&entities).contains("tags"));
    }

    #[test]
    fn plain_nested_fields_are_held_under_one_object_member_only() {
        let entities = [
            entity(
                r#"{"id": "1", "title": "a", "attributes": {"status": "todo", "title": "b", "tags": []}, "links": {"self": "/1", "status": "x"}}"#,
            ),
            entity(
                r#"{"id": "2", "attributes": {"status": "done", "priority": 2}, "meta": {"shown": true}}"#,
            ),
        ];
        let plain: Vec<String> = plain_nested_fields(&entities).into_iter().collect();
        // `status` is nested twice in the first entity, `title` held at the top level, `tags`
        // no scalar.
        assert_eq!(plain, ["priority", "self", "shown"]);
    }

    #[test]
    fn only_a_filter_spelling_its_dotted_field_reaches_the_joined_fields() {
        use crate::model::{QueryModel, QueryRole, ViewDetail};
        use crate::relations::{Link, Relation};
        let mut project = entity(r#"{"id": "3", "code": "OPS"}"#);
        project.entity_type = "/projects".to_owned();
        project.collection = "/projects".to_owned();
        let joined = |name: &str| {
            let model = QueryModel::of_roles(&[(name, QueryRole::filter("project.code", "eq"))]);
            let view = crate::test_support::list_read_view("/tasks", "", &[], model);
            let ViewDetail::List(mut list) = view.detail else {
                unreachable!("a list view")
            };
            list.joins = vec![Relation {
                query: Vec::new(),
                member: "project".to_owned(),
                entity_type: "/projects".to_owned(),
                collection: "/projects".to_owned(),
                identity: "id".to_owned(),
                enclosing: false,
                beside: None,
                link: Link::Parent {
                    field: "project".to_owned(),
                    key: None,
                },
            }];
            joined_fields(&list, std::slice::from_ref(&project), (&[], false))
        };
        assert_eq!(
            joined("filter[project.code][eq]"),
            ["project.code", "project.id"]
        );
        // A condition on the relation's resource spells the relation apart: no form of it.
        assert!(joined("filter[objects][project][has][code][eq]").is_empty());
    }
}
