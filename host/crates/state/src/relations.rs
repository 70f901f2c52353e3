//! Related entities shown inside an item read, or in each member of a list read (`/posts/1?_embed=comments`,
//! `/comments/2?_expand=post`, `/items/tasks/2?fields=*,project.*`), learned from the reads that
//! asked for them, so the same query on another entity is answered from the state.
//!
//! A successful read of an item view whose query the plain entity does not explain shows the
//! entity with one member added or replaced. That member is explained as related entities the
//! state holds (each shown exactly as held), by one link:
//!
//! - `children`: the entities of a type whose field holds the entity's identity, in state order
//!   (`comments` of a post: those whose `postId` is its id);
//! - `parent`: the entity a field of the entity names (`post` of a comment: the post `postId`
//!   names; a member holding an id replaced by its entity, or `null` where it holds none);
//! - `ids`: the entities a member's array of ids names, in that order.
//!
//! A related entity held in the collection that encloses the entity's own (a database's
//! document beside its row in `/{db}/_all_docs`, `include_docs=true`) is `enclosing`: a call's
//! path names that collection, so one relation serves every database.
//!
//! Reads making the same query that explain it by another link teach nothing. A call making a
//! learned query answers the entity its path names with the member computed from the live state;
//! a related entity the state does not hold leaves the call to the view's other answers.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::BTreeMap;

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use rea_manifest::segments::{percent_decode, split_path};

use crate::derive::entities::collection_key;
use crate::model::{Entity, EntityType, ListView, ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};
use crate::query::field_value;
use crate::render::scalar_text;
use crate::store::LiveState;

/// How the related entities follow from the entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "link", rename_all = "kebab-case")]
pub enum Link {
    /// The entities whose `field` holds the entity's identity.
    Children {
        /// The related entities' member naming the entity.
        field: String,
    },
    /// The entity the entity's `field` names: by its id, or by the id a reference object
    /// holds in its `key` member (`{"__type": "Pointer", "objectId": "p1"}`).
    Parent {
        /// The entity's member naming the related one.
        field: String,
        /// The member of the reference object `field` holds that names the related id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// The entities the shown member's array of ids names.
    Ids,
}

/// A query showing related entities in one member of an item answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relation {
    /// The query pairs that ask for it (sorted).
    pub query: Vec<(String, String)>,
    /// The member showing the related entities.
    pub member: String,
    /// The related entities' type and collection.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// Their collection.
    pub collection: String,
    /// The entity's identity field (the value `children` look for).
    pub identity: String,
    /// Whether the related entities are those of the collection the entity's collection lies in
    /// (a database's documents beside the rows of its `/{db}/_all_docs`): `collection` then
    /// names the related type, and a call's path names the collection.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enclosing: bool,
    /// The members a related entity is shown with besides its own fields, as every read
    /// showing it had them (`{"__type": "Object", "className": "Project"}`); `None`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beside: Option<Json>,
    /// How they follow from the entity.
    #[serde(flatten)]
    pub link: Link,
}

/// Whether an application's key names a member: the member itself or the relation it holds the
/// foreign key of (see [`crate::query::foreign_key_relation`]; Rails keys a missing
/// `project_id`'s error `project`).
pub fn names_member(key: &str, member: &str) -> bool {
    key == member || crate::query::foreign_key_relation(member) == Some(key)
}

/// Teaches each item and list view the relations the reads of its entity type showed (see the
/// module docs): an item read shows its entity, a list read each member it lists (a list read
/// teaches only through parameters its query model gives no role).
pub fn generalize(
    (manifest, rules): (&Manifest, &crate::rules::RuleSet),
    timeline: &Timeline,
    (types, entities): (&[EntityType], &[Entity]),
    views: &mut [ReadView],
) {
    // Per type, each query's relations every read making it allows (in the order first found).
    let mut allowed: BTreeMap<String, Vec<(Query, Vec<Relation>)>> = BTreeMap::new();
    for view in views.iter() {
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        for (entity_type, query, candidates) in
            view_relations(view, timeline.all(index), (types, entities), rules)
        {
            let known = allowed.entry(entity_type).or_default();
            match known.iter_mut().find(|(known, _)| *known == query) {
                Some((_, relations)) => relations.retain(|relation| candidates.contains(relation)),
                None => known.push((query, candidates)),
            }
        }
    }
    // A query its reads explain by no one relation teaches nothing; one several relations
    // explain alike (two members holding the related id on every read) is the first's.
    let learned: BTreeMap<String, Vec<Relation>> = allowed
        .into_iter()
        .map(|(entity_type, queries)| {
            let relations = queries
                .into_iter()
                .filter_map(|(_, relations)| relations.into_iter().next())
                .collect();
            (entity_type, relations)
        })
        .collect();
    for view in views.iter_mut() {
        match &mut view.detail {
            ViewDetail::Item(item) => {
                item.relations = learned.get(&item.entity_type).cloned().unwrap_or_default();
            }
            ViewDetail::List(list) => {
                list.relations = learned.get(&list.entity_type).cloned().unwrap_or_default();
            }
            _ => {}
        }
    }
}

/// A relation's query pairs, sorted.
type Query = Vec<(String, String)>;

/// The relations each of one view's successful reads shows, with the entity type they are of and
/// the read's query: those every object the read shows explains alike (none when the objects
/// explain the member differently). A list read's expression a query grammar splits into terms
/// its model reads (`filter=status||$eq||doing`) chooses the members, not the relation: it is
/// left out of the relation's query.
fn view_relations<'a>(
    view: &ReadView,
    observations: impl Iterator<Item = &'a Observation>,
    (types, entities): (&[EntityType], &[Entity]),
    rules: &crate::rules::RuleSet,
) -> Vec<(String, Query, Vec<Relation>)> {
    let (entity_type, pointer, list) = match &view.detail {
        ViewDetail::Item(item) => (&item.entity_type, &item.entity_pointer, None),
        ViewDetail::List(list) => (&list.entity_type, &list.list_pointer, Some(list)),
        _ => return Vec::new(),
    };
    let Some(identity) = types
        .iter()
        .find(|known| known.collection_template == *entity_type)
        .map(|known| known.identity_field.as_str())
    else {
        return Vec::new();
    };
    let fields = crate::derive::query_grammar::type_scalar_fields(entities, entity_type);
    let mut found = Vec::new();
    for observation in observations {
        let pairs = observation.pairs();
        let modelled = |name: &String| {
            list.and_then(|list| list.query.as_ref())
                .is_some_and(|model| model.role(name).is_some())
        };
        if !observation.is_success()
            || pairs.is_empty()
            || pairs.iter().any(|(name, _)| modelled(name))
        {
            continue;
        }
        let Some(shown) = observation
            .body
            .as_ref()
            .and_then(|body| body.pointer(pointer))
        else {
            continue;
        };
        let shown: Vec<&Object> = match (shown, list) {
            (Json::Object(object), None) => vec![object],
            (Json::Array(items), Some(_)) => items.iter().filter_map(Json::as_object).collect(),
            _ => continue,
        };
        let model = list.and_then(|list| list.query.as_ref());
        let mut query: Query = pairs
            .iter()
            .filter(|pair| !model.is_some_and(|model| reads_terms(model, rules, pair, &fields)))
            .cloned()
            .collect();
        if query.is_empty() {
            continue;
        }
        query.sort();
        let explaining = (entity_type.as_str(), identity);
        if let Some(common) = common_relations(explaining, &shown, &query, entities) {
            found.push((entity_type.clone(), query, common));
        }
    }
    found
}

/// The relations every object a read shows that explains one allows (`None` when none does).
fn common_relations(
    (entity_type, identity): (&str, &str),
    shown: &[&Object],
    query: &Query,
    entities: &[Entity],
) -> Option<Vec<Relation>> {
    let mut common: Option<Vec<Relation>> = None;
    for object in shown {
        let candidates = explain((entity_type, identity), object, query.clone(), entities);
        if candidates.is_empty() {
            continue;
        }
        common = Some(match common {
            None => candidates,
            Some(known) => known
                .into_iter()
                .filter(|relation| candidates.contains(relation))
                .collect(),
        });
    }
    common
}

/// Whether a query grammar splits the pair into terms the model gives every one a role.
fn reads_terms(
    model: &crate::model::QueryModel,
    rules: &crate::rules::RuleSet,
    pair: &(String, String),
    fields: &[String],
) -> bool {
    let expanded = crate::query_terms::expand(rules, std::slice::from_ref(pair), fields);
    expanded.split_any()
        && expanded
            .pairs
            .iter()
            .all(|(name, _)| model.role(name).is_some())
}

/// The relations one shown object may show: the entity it shows as held but for one member,
/// which holds related entities by a link (several where more than one member names them).
fn explain(
    (entity_type, identity): (&str, &str),
    shown: &Object,
    query: Vec<(String, String)>,
    entities: &[Entity],
) -> Vec<Relation> {
    shown_relations((entity_type, identity), shown, query, entities).unwrap_or_default()
}

fn shown_relations(
    (entity_type, identity): (&str, &str),
    shown: &Object,
    query: Vec<(String, String)>,
    entities: &[Entity],
) -> Option<Vec<Relation>> {
    if identity.starts_with('/') {
        return None;
    }
    let id = shown.get(identity).and_then(scalar_text)?;
    let parent = entities
        .iter()
        .find(|entity| entity.entity_type == entity_type && entity.id == id)?;
    let fields = parent.fields.as_object()?;
    if fields.keys().any(|key| !shown.contains_key(key)) {
        return None;
    }
    let mut differing = shown
        .iter()
        .filter(|(key, value)| fields.get(key) != Some(*value));
    let (member, value) = differing.next()?;
    if differing.next().is_some() {
        return None;
    }
    let links =
        related_link((member, value), fields, (identity, &id), entities).unwrap_or_default();
    let relations = links.into_iter().map(|(related, link, beside)| {
        // Related entities in the collection enclosing the entity's are named by the call's path.
        let enclosing = related.collection != parent.collection
            && parent
                .collection
                .strip_prefix(related.collection.as_str())
                .is_some_and(|rest| rest.starts_with('/'));
        Relation {
            query: query.clone(),
            identity: identity.to_owned(),
            enclosing,
            beside,
            member: member.to_owned(),
            entity_type: related.entity_type.clone(),
            collection: if enclosing {
                related.entity_type.clone()
            } else {
                related.collection.clone()
            },
            link,
        }
    });
    Some(relations.collect())
}

/// The related entities a read's one differing member shows, and how they may follow from the
/// entity (`fields`, named `id` by its `identity` member): held objects of one kind, linked by
/// the ids the member held or a field holding the identity (an array), or by a field naming the
/// related entity's id (an object: each such field), with the members shown beside the related
/// entity's own.
fn related_link<'a>(
    (member, value): (&str, &Json),
    fields: &Object,
    (identity, id): (&str, &str),
    entities: &'a [Entity],
) -> Option<Vec<(&'a Entity, Link, Option<Json>)>> {
    let held = |object: &Object| {
        entities
            .iter()
            .position(|entity| entity.fields.as_object() == Some(object))
    };
    match value {
        Json::Array(items) => {
            let indexes: Vec<usize> = items
                .iter()
                .map(|item| item.as_object().and_then(held))
                .collect::<Option<_>>()?;
            let first = &entities[*indexes.first()?];
            let same_kind = |index: &usize| {
                entities[*index].entity_type == first.entity_type
                    && collection_key(&entities[*index].collection)
                        == collection_key(&first.collection)
            };
            if !indexes.iter().all(same_kind) {
                return None;
            }
            Some(vec![(
                first,
                array_link(fields.get(member), &indexes, id, entities)?,
                None,
            )])
        }
        Json::Object(object) => {
            let Some(index) = held(object) else {
                return referenced(member, object, fields.get(member)?, entities)
                    .map(|found| vec![found]);
            };
            let related = &entities[index];
            if let Some(link) = reference_link(member, fields.get(member), &related.id) {
                return Some(vec![(related, link, None)]);
            }
            let naming = fields.iter().filter(|(key, value)| {
                *key != identity && scalar_text(value).as_deref() == Some(&related.id)
            });
            let links = naming.map(|(key, _)| {
                let field = key.to_owned();
                (related, Link::Parent { field, key: None }, None)
            });
            Some(links.collect())
        }
        _ => None,
    }
}

/// The link of a member naming the related id itself, or in one member of the reference
/// object it holds.
fn reference_link(member: &str, held: Option<&Json>, related_id: &str) -> Option<Link> {
    let field = member.to_owned();
    match held? {
        Json::Object(reference) => reference
            .iter()
            .find(|(_, value)| scalar_text(value).as_deref() == Some(related_id))
            .map(|(key, _)| Link::Parent {
                field,
                key: Some(key.to_owned()),
            }),
        value => (scalar_text(value).as_deref() == Some(related_id))
            .then_some(Link::Parent { field, key: None }),
    }
}

/// The held entity a member's reference object names (by one of its members) that a shown
/// object holds with further members (those shown beside it); `None` when none fits.
fn referenced<'a>(
    member: &str,
    shown: &Object,
    held: &Json,
    entities: &'a [Entity],
) -> Option<(&'a Entity, Link, Option<Json>)> {
    let Json::Object(reference) = held else {
        return None;
    };
    reference.iter().find_map(|(key, value)| {
        let id = scalar_text(value)?;
        let related = entities.iter().find(|entity| {
            entity.id == id
                && entity.fields.as_object().is_some_and(|fields| {
                    !fields.is_empty()
                        && fields
                            .iter()
                            .all(|(name, value)| shown.get(name) == Some(value))
                })
        })?;
        let own = related.fields.as_object()?;
        let beside: Object = shown
            .iter()
            .filter(|(name, _)| !own.contains_key(name))
            .map(|(name, value)| (name.to_owned(), value.clone()))
            .collect();
        Some((
            related,
            Link::Parent {
                field: member.to_owned(),
                key: Some(key.to_owned()),
            },
            Some(Json::Object(beside)),
        ))
    })
}

/// How a list of related entities follows from the entity: the ids its member held, else the
/// entities whose field holds its identity (exactly those, in state order).
fn array_link(
    held: Option<&Json>,
    indexes: &[usize],
    id: &str,
    entities: &[Entity],
) -> Option<Link> {
    let related: Vec<&Entity> = indexes.iter().map(|index| &entities[*index]).collect();
    if let Some(Json::Array(ids)) = held {
        let texts: Vec<Option<String>> = ids.iter().map(scalar_text).collect();
        let listed: Vec<Option<String>> = related
            .iter()
            .map(|entity| Some(entity.id.clone()))
            .collect();
        if texts == listed {
            return Some(Link::Ids);
        }
    }
    let first = related.first()?;
    let fields = first.fields.as_object()?;
    let text_of = |entity: &Entity, field: &str| {
        entity
            .fields
            .as_object()
            .and_then(|object| field_value(object, field))
            .and_then(scalar_text)
    };
    // The top-level fields, then the plain names of members held nested in one object member
    // (`project_id` of `{"attributes": {"project_id": 2}}`, read as `field_value` reads them).
    let nested = crate::derive::query_grammar::plain_nested_fields(related.iter().copied());
    let candidates = fields.keys().map(str::to_owned).chain(nested);
    candidates.into_iter().find_map(|field| {
        let field = field.as_str();
        // A field holding each related entity's own identity names no other entity.
        if related
            .iter()
            .all(|entity| text_of(entity, field).as_deref() == Some(entity.id.as_str()))
        {
            return None;
        }
        (children_by(field, first, id, entities) == indexes).then(|| Link::Children {
            field: field.to_owned(),
        })
    })
}

/// The indexes of the entities of `first`'s type and collection whose `field` holds `id`, in
/// state order.
fn children_by(field: &str, first: &Entity, id: &str, entities: &[Entity]) -> Vec<usize> {
    entities
        .iter()
        .enumerate()
        .filter(|(_, entity)| {
            entity.entity_type == first.entity_type
                && collection_key(&entity.collection) == collection_key(&first.collection)
                && entity
                    .fields
                    .as_object()
                    .and_then(|object| field_value(object, field))
                    .and_then(scalar_text)
                    .as_deref()
                    == Some(id)
        })
        .map(|(index, _)| index)
        .collect()
}

/// The parent field of a list showing a link member as the linked record's id where its
/// entities hold the whole record (the shape's `linked_ids`): `project.id` of tasks holding
/// `{"project": {"id": 5, …}}` listed by `/project/5/tasks` as `"project": 5`.
fn linked_field(
    linked_ids: &BTreeMap<String, String>,
    indexes: &[usize],
    id: &str,
    entities: &[Entity],
) -> Option<String> {
    let first = &entities[*indexes.first()?];
    linked_ids
        .iter()
        .map(|(member, key)| format!("{member}.{key}"))
        .find(|field| children_by(field, first, id, entities) == indexes)
}

/// A list of the entities whose field holds the value a path segment names
/// (`/posts/{id}/comments`: the comments whose `postId` is the id), learned where every checked
/// line of the list listed exactly those, in state order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParentSegment {
    /// The path segment naming the parent.
    pub segment: usize,
    /// The listed entities' collection.
    pub collection: String,
    /// Their member holding the parent's value.
    pub field: String,
    /// The other parameter segments, each with the one value every checked line gave it (the
    /// relation's name a folder-tree segment took, `/api/users/{id}/{…}` read only as
    /// `…/tasks`): a call naming another value there is no call of this list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<(usize, String)>,
}

/// Teaches each list view whose path names a parent by one parameter segment the field its
/// members hold it in (see [`ParentSegment`]); the path's other parameter segments must each
/// hold one value on every checked line, kept as [`ParentSegment::fixed`].
pub fn generalize_lists(entities: &[Entity], views: &mut [ReadView]) {
    for view in views.iter_mut() {
        let parameters = parameter_segments(&view.path_template);
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let paths: Vec<&str> = list.lines.iter().map(|line| line.path.as_str()).collect();
        let found: Vec<ParentSegment> = parameters
            .iter()
            .filter_map(|segment| {
                let fixed = fixed_segments(&paths, &parameters, *segment)?;
                let parent = parent_segment(list, *segment, entities)?;
                Some(ParentSegment { fixed, ..parent })
            })
            .collect();
        if let [parent] = &found[..] {
            list.parent = Some(parent.clone());
            require_only_listable(list, entities);
        }
    }
}

/// The indexes of a path template's parameter segments (`{…}`), in order.
pub(crate) fn parameter_segments(template: &str) -> Vec<usize> {
    (split_path(template).iter().enumerate())
        .filter(|(_, segment)| segment.contains('{'))
        .map(|(index, _)| index)
        .collect()
}

/// Keeps of a parent list's required fields (see [`crate::model::ViewShape`]) those every held
/// entity it may list holds: each entity of its type and collection holding the parent field.
/// Its checked lines listed one parent's children each, so a field all of them happened to hold
/// (a due date) is no field the list requires of another parent's children (a task without
/// one, listed by the collection's own list or its item).
fn require_only_listable(list: &mut ListView, entities: &[Entity]) {
    let Some(parent) = &list.parent else {
        return;
    };
    let listable = entities.iter().filter(|entity| {
        entity.entity_type == list.entity_type
            && collection_key(&entity.collection) == collection_key(&parent.collection)
    });
    for entity in listable {
        let Some(object) = entity.fields.as_object() else {
            continue;
        };
        if matches!(object.get(&parent.field), None | Some(Json::Null)) {
            continue;
        }
        list.shape
            .required_fields
            .retain(|field| object.contains_key(field));
    }
}

/// The parameter segments but `parent`, each with the one value every checked line's path
/// gave it; `None` when one took two values (or a list has no line).
fn fixed_segments(
    paths: &[&str],
    parameters: &[usize],
    parent: usize,
) -> Option<Vec<(usize, String)>> {
    let mut fixed = Vec::new();
    for segment in parameters.iter().copied().filter(|index| *index != parent) {
        let mut values = paths
            .iter()
            .map(|path| split_path(path).get(segment).map(|raw| (*raw).to_owned()));
        let first = values.next()??;
        if !values.all(|value| value.as_deref() == Some(first.as_str())) {
            return None;
        }
        fixed.push((segment, first));
    }
    Some(fixed)
}

/// The field every checked line's members hold the line's parent value in (those members
/// exactly, in state order); `None` when a line lists no member, lists members of its own path's
/// collection, or no field fits them all.
fn parent_segment(list: &ListView, segment: usize, entities: &[Entity]) -> Option<ParentSegment> {
    let mut found: Option<ParentSegment> = None;
    // A line whose query filters may list some of the parent's children: the lines asking no
    // query are checked, when there are some.
    let plain = |line: &&crate::model::ListLine| line.query.as_ref().is_none_or(Vec::is_empty);
    let any_plain = list.lines.iter().any(|line| plain(&line));
    for line in list.lines.iter().filter(|line| !any_plain || plain(line)) {
        let value = split_path(&line.path)
            .get(segment)
            .and_then(|raw| percent_decode(raw))?
            .into_owned();
        let indexes: Vec<usize> = line
            .members
            .iter()
            .map(|member| {
                entities.iter().position(|entity| {
                    entity.entity_type == list.entity_type
                        && collection_key(&entity.collection) == collection_key(&member.collection)
                        && entity.id == member.id
                })
            })
            .collect::<Option<_>>()?;
        if indexes
            .iter()
            .any(|index| collection_key(&entities[*index].collection) == collection_key(&line.path))
        {
            // The members are the line's own collection (`/lists/1/movies/`'s movies): a nested
            // collection per parent, not one collection its members' field relates to parents.
            return None;
        }
        let field = match array_link(None, &indexes, &value, entities) {
            Some(Link::Children { field }) => field,
            _ => linked_field(&list.shape.linked_ids, &indexes, &value, entities)?,
        };
        let parent = ParentSegment {
            segment,
            collection: entities[indexes[0]].collection.clone(),
            field,
            fixed: Vec::new(),
        };
        if found.as_ref().is_some_and(|known| !known.same_as(&parent)) {
            return None;
        }
        found.get_or_insert(parent);
    }
    found
}

impl ParentSegment {
    /// Whether two lines' parents are one: the same segment, field and fixed segments, and the
    /// same collection however its members' reads spelled it (`/api/tasks` of an item read,
    /// `/api/tasks/` of the list).
    fn same_as(&self, other: &ParentSegment) -> bool {
        self.segment == other.segment
            && self.field == other.field
            && self.fixed == other.fixed
            && collection_key(&self.collection) == collection_key(&other.collection)
    }

    /// The entities a call's path segments name the parent of, in state order, as held.
    pub fn members<'a>(
        &self,
        segments: &[CompactString],
        entity_type: &str,
        live: &'a LiveState,
    ) -> Option<Vec<&'a Entity>> {
        let value = percent_decode(segments.get(self.segment)?)?.into_owned();
        if !self.fixed.iter().all(|(index, fixed)| {
            segments.get(*index).map(CompactString::as_str) == Some(fixed.as_str())
        }) {
            return None;
        }
        Some(
            live.collection(entity_type, &self.collection)
                .into_iter()
                .filter(|entity| {
                    entity
                        .fields
                        .as_object()
                        .and_then(|object| field_value(object, &self.field))
                        .and_then(scalar_text)
                        .as_deref()
                        == Some(value.as_str())
                })
                .collect(),
        )
    }
}

impl Relation {
    /// A related entity as the relation shows it: its fields, then the members shown beside.
    pub(crate) fn shown(&self, related: &Entity) -> Json {
        let mut fields = related.fields.clone();
        if let (Json::Object(object), Some(Json::Object(beside))) = (&mut fields, &self.beside) {
            for (name, value) in beside.iter() {
                object.insert(name, value.clone());
            }
        }
        fields
    }

    /// The collection of the related entities for a call naming `path` (the enclosing collection
    /// it lies in, for an `enclosing` relation).
    pub fn collection_for(&self, path: &str) -> Option<String> {
        if self.enclosing {
            crate::derive::lists::enclosing_fit(path, &self.entity_type)
        } else {
            Some(self.collection.clone())
        }
    }

    /// The member's value for an entity (as rendered) from the live state, its related entities
    /// in `collection` (see [`Relation::collection_for`]); `None` when a related entity the link
    /// names is not held.
    pub fn value_for(&self, entity: &Object, collection: &str, live: &LiveState) -> Option<Json> {
        let fields = |related: &Entity| self.shown(related);
        match &self.link {
            Link::Children { field } => {
                let id = entity.get(&self.identity).and_then(scalar_text)?;
                let members = live
                    .collection(&self.entity_type, collection)
                    .into_iter()
                    .filter(|related| {
                        related
                            .fields
                            .as_object()
                            .and_then(|object| field_value(object, field))
                            .and_then(scalar_text)
                            .as_deref()
                            == Some(id.as_str())
                    })
                    .map(fields)
                    .collect();
                Some(Json::Array(members))
            }
            Link::Parent { field, key } => match (field_value(entity, field), key) {
                (Some(Json::Null), _) if *field == self.member => Some(Json::Null),
                (Some(Json::Object(reference)), Some(key)) => {
                    let id = scalar_text(reference.get(key)?)?;
                    live.entity(&self.entity_type, collection, &id).map(fields)
                }
                (Some(value), None) => {
                    let id = scalar_text(value)?;
                    live.entity(&self.entity_type, collection, &id).map(fields)
                }
                _ => None,
            },
            Link::Ids => match entity.get(&self.member)? {
                Json::Array(ids) => ids
                    .iter()
                    .map(|id| {
                        let id = scalar_text(id)?;
                        live.entity(&self.entity_type, collection, &id).map(fields)
                    })
                    .collect::<Option<Vec<Json>>>()
                    .map(Json::Array),
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;
    use rea_plugin_api::json::parse;

    fn state() -> Vec<Entity> {
        vec![
            entity("/posts", "1", r#"{"id": 1, "title": "a"}"#),
            entity("/posts", "2", r#"{"id": 2, "title": "b"}"#),
            entity("/comments", "1", r#"{"id": 1, "postId": 1, "body": "x"}"#),
            entity("/comments", "2", r#"{"id": 2, "postId": 2, "body": "y"}"#),
            entity("/comments", "3", r#"{"id": 3, "postId": 1, "body": "z"}"#),
            entity("/tasks", "7", r#"{"id": 7, "project": 2, "tags": [1, 3]}"#),
        ]
    }

    fn explained(entity_type: &str, shown: &str) -> Option<Relation> {
        let shown = parse(shown.as_bytes()).expect("json");
        let query = vec![("q".to_owned(), "v".to_owned())];
        explain(
            (entity_type, "id"),
            shown.as_object().expect("object"),
            query,
            &state(),
        )
        .into_iter()
        .next()
    }

    #[test]
    fn children_parents_and_ids_are_told_apart() {
        let children = explained(
            "/posts",
            r#"{"id": 1, "title": "a", "comments": [{"id": 1, "postId": 1, "body": "x"},
                {"id": 3, "postId": 1, "body": "z"}]}"#,
        )
        .expect("children");
        assert_eq!(children.member, "comments");
        assert_eq!(children.entity_type, "/comments");
        assert_eq!(
            children.link,
            Link::Children {
                field: "postId".into()
            }
        );
        let parent = explained(
            "/comments",
            r#"{"id": 2, "postId": 2, "body": "y", "post": {"id": 2, "title": "b"}}"#,
        )
        .expect("parent");
        assert_eq!(
            parent.link,
            Link::Parent {
                field: "postId".into(),
                key: None,
            }
        );
        // A member holding an id replaced by its entity.
        let replaced = explained(
            "/tasks",
            r#"{"id": 7, "project": {"id": 2, "title": "b"}, "tags": [1, 3]}"#,
        )
        .expect("replaced");
        assert_eq!(
            replaced.link,
            Link::Parent {
                field: "project".into(),
                key: None,
            }
        );
        let ids = explained(
            "/tasks",
            r#"{"id": 7, "project": 2, "tags": [{"id": 1, "postId": 1, "body": "x"},
                {"id": 3, "postId": 1, "body": "z"}]}"#,
        )
        .expect("ids");
        assert_eq!(ids.link, Link::Ids);
    }

    #[test]
    fn every_member_naming_the_related_entity_is_a_candidate_link() {
        // Comment 4's `rank` holds its post's id too: both members may link it, in field order
        // (the reads of the query then keep the one every shown object allows).
        let mut entities = state();
        entities.push(entity(
            "/comments",
            "4",
            r#"{"id": 4, "rank": 1, "postId": 1}"#,
        ));
        let shown = parse(br#"{"id": 4, "rank": 1, "postId": 1, "post": {"id": 1, "title": "a"}}"#)
            .expect("json");
        let fields: Vec<Link> = explain(
            ("/comments", "id"),
            shown.as_object().expect("object"),
            Vec::new(),
            &entities,
        )
        .into_iter()
        .map(|relation| relation.link)
        .collect();
        let parent = |field: &str| Link::Parent {
            field: field.to_owned(),
            key: None,
        };
        assert_eq!(fields, [parent("rank"), parent("postId")]);
    }

    #[test]
    fn a_reference_object_is_replaced_by_its_entity_shown_with_members_beside() {
        let mut entities = state();
        entities.push(entity(
            "/items",
            "9",
            r#"{"id": 9, "post": {"__type": "Ref", "kind": "posts", "id": 2}}"#,
        ));
        let shown = parse(br#"{"id": 9, "post": {"id": 2, "title": "b", "__type": "Full"}}"#)
            .expect("json");
        let relation = explain(
            ("/items", "id"),
            shown.as_object().expect("object"),
            vec![("include".to_owned(), "post".to_owned())],
            &entities,
        )
        .into_iter()
        .next()
        .expect("a relation");
        assert_eq!(relation.entity_type, "/posts");
        assert_eq!(
            relation.link,
            Link::Parent {
                field: "post".into(),
                key: Some("id".into()),
            }
        );
        let beside = parse(br#"{"__type": "Full"}"#).expect("json");
        assert_eq!(relation.beside.as_ref(), Some(&beside));
        let related = relation.shown(&entities[1]);
        assert_eq!(
            related,
            parse(br#"{"id": 2, "title": "b", "__type": "Full"}"#).expect("json")
        );
        // A shown object missing a field of the entity the reference names teaches nothing.
        let partial = parse(br#"{"id": 9, "post": {"id": 2, "__type": "Full"}}"#).expect("json");
        let query = vec![("include".to_owned(), "post".to_owned())];
        assert_eq!(
            explain(
                ("/items", "id"),
                partial.as_object().expect("object"),
                query,
                &entities
            ),
            Vec::new()
        );
    }

    #[test]
    fn a_document_of_the_enclosing_collection_is_named_by_the_call() {
        let in_collection = |entity_type: &str, collection: &str, id: &str, fields: &str| Entity {
            collection: collection.to_owned(),
            ..entity(entity_type, id, fields)
        };
        let entities = vec![
            in_collection(
                "/{db}/_all_docs",
                "/a/_all_docs",
                "k",
                r#"{"id": "k", "key": "k", "value": {"rev": "1-x"}}"#,
            ),
            in_collection("/{db}", "/a", "k", r#"{"_id": "k", "_rev": "1-x"}"#),
        ];
        let shown = parse(
            br#"{"id": "k", "key": "k", "value": {"rev": "1-x"}, "doc": {"_id": "k", "_rev": "1-x"}}"#,
        )
        .expect("json");
        let relation = explain(
            ("/{db}/_all_docs", "id"),
            shown.as_object().expect("object"),
            vec![("include_docs".to_owned(), "true".to_owned())],
            &entities,
        )
        .into_iter()
        .next()
        .expect("a relation");
        assert!(relation.enclosing);
        assert_eq!(relation.collection, "/{db}");
        assert_eq!(
            relation.link,
            Link::Parent {
                field: "key".into(),
                key: None,
            }
        );
        assert_eq!(
            relation.collection_for("/b/_all_docs").as_deref(),
            Some("/b")
        );
        // A related type in a collection of its own is not named by the call.
        let parent = explained(
            "/comments",
            r#"{"id": 2, "postId": 2, "body": "y", "post": {"id": 2, "title": "b"}}"#,
        )
        .expect("parent");
        assert!(!parent.enclosing);
        assert_eq!(
            parent.collection_for("/comments").as_deref(),
            Some("/posts")
        );
    }

    #[test]
    fn what_is_not_one_member_of_held_entities_teaches_nothing() {
        // A child list missing one of the children the field names.
        assert_eq!(
            explained(
                "/posts",
                r#"{"id": 1, "title": "a", "comments": [{"id": 1, "postId": 1, "body": "x"}]}"#,
            ),
            None
        );
        // An object the state does not hold; two members changed; a member left out.
        assert_eq!(
            explained(
                "/comments",
                r#"{"id": 2, "postId": 2, "body": "y", "post": {"id": 2, "title": "?"}}"#
            ),
            None
        );
        assert_eq!(
            explained(
                "/comments",
                r#"{"id": 2, "postId": 2, "body": "w", "post": {"id": 2, "title": "b"}}"#
            ),
            None
        );
        assert_eq!(explained("/comments", r#"{"id": 2, "postId": 2}"#), None);
        // An entity the state does not hold.
        assert_eq!(explained("/posts", r#"{"id": 9, "comments": []}"#), None);
    }

    #[test]
    fn a_parent_segment_beside_a_fixed_one_and_a_nested_foreign_key() {
        // `/users/{id}/{…}` read only as `…/tasks`: the second segment is fixed.
        let paths = ["/users/2/tasks", "/users/1/tasks"];
        assert_eq!(
            fixed_segments(&paths, &[1, 2], 1),
            Some(vec![(2, "tasks".to_owned())])
        );
        // As the parent, the first would need one value on every line.
        assert_eq!(fixed_segments(&paths, &[1, 2], 2), None);
        // The children's foreign key nested in one object member.
        let entities = vec![
            entity("/tasks", "3", r#"{"id": "3", "attributes": {"owner": 2}}"#),
            entity("/tasks", "4", r#"{"id": "4", "attributes": {"owner": 1}}"#),
            entity("/tasks", "5", r#"{"id": "5", "attributes": {"owner": 2}}"#),
        ];
        assert_eq!(
            array_link(None, &[0, 2], "2", &entities),
            Some(Link::Children {
                field: "owner".to_owned()
            })
        );
        assert_eq!(array_link(None, &[0], "2", &entities), None);
    }

    #[test]
    fn a_parent_list_showing_the_embedded_parent_as_its_id_reads_the_parent_through_it() {
        // Tasks embed their project's record; `/project/{id}/tasks` shows it as the id.
        let entities = vec![
            entity(
                "/task",
                "1",
                r#"{"id": 1, "project": {"id": 1, "rank": 2}}"#,
            ),
            entity(
                "/task",
                "2",
                r#"{"id": 2, "project": {"id": 2, "rank": 1}}"#,
            ),
            entity(
                "/task",
                "3",
                r#"{"id": 3, "project": {"id": 1, "rank": 2}}"#,
            ),
            entity("/task", "4", r#"{"id": 4, "project": null}"#),
        ];
        // No top-level field names the parent: the plain rule finds none.
        assert_eq!(array_link(None, &[0, 2], "1", &entities), None);
        let linked: BTreeMap<String, String> = [("project".to_owned(), "id".to_owned())].into();
        assert_eq!(
            linked_field(&linked, &[0, 2], "1", &entities),
            Some("project.id".to_owned())
        );
        // Members that are not exactly the parent's children teach nothing.
        assert_eq!(linked_field(&linked, &[0], "1", &entities), None);
        assert_eq!(
            linked_field(&BTreeMap::new(), &[0, 2], "1", &entities),
            None
        );
    }

    #[test]
    fn a_linkage_names_the_parent_across_a_collection_spelled_with_a_trailing_slash() {
        let linked = |collection: &str, id: &str, author: &str| Entity {
            collection: collection.to_owned(),
            ..entity(
                "/books/",
                id,
                &format!(
                    r#"{{"id": "{id}", "relationships": {{"author":
                        {{"links": {{"self": "/b/{id}/a"}}, "data": {{"type": "A", "id": "{author}"}}}}}}}}"#
                ),
            )
        };
        // Book 4 was read as an item (`/books/4/`, collection `/books`), 5 and 6 only listed.
        let entities = vec![
            linked("/books", "4", "2"),
            linked("/books/", "5", "2"),
            linked("/books/", "6", "3"),
        ];
        assert_eq!(
            array_link(None, &[0, 1], "2", &entities),
            Some(Link::Children {
                field: "author".to_owned()
            })
        );
        assert_eq!(array_link(None, &[0], "2", &entities), None);
    }

    /// A list view of `/projects/{id}/tasks/` whose lines list these task ids per project.
    fn project_tasks(lines: &[(&str, &[(&str, &str)])]) -> ReadView {
        let lines: Vec<serde_json::Value> = lines
            .iter()
            .enumerate()
            .map(|(ordinal, (project, members))| {
                let members: Vec<serde_json::Value> = members
                    .iter()
                    .map(|(collection, id)| serde_json::json!({"collection": collection, "id": id}))
                    .collect();
                serde_json::json!({"record_ordinal": ordinal, "path": format!("/projects/{project}/tasks/"),
                    "query": null, "membership": "recorded", "members": members,
                    "page_size": null, "whole": true})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "tool": "get_tasks_of", "method": "GET", "path_template": "/projects/{numeric}/tasks/",
            "kind": "list", "type": "/tasks/", "list_pointer": "", "lines": lines,
            "counters": [], "query": null, "per_response_members": [],
            "projected_query_keys": {}, "shape": {"hidden_fields": [], "required_fields": [],
            "clock_formats": {}, "nested_fields": {}, "sorted_arrays": []}
        }))
        .expect("list view")
    }

    #[test]
    fn a_parent_list_is_learned_whatever_collection_spelling_its_members_were_read_in() {
        // Task 1 was also read by its item route (`/tasks/1/` holds it in `/tasks`), task 3
        // only by lists (`/tasks/`): one collection, spelled two ways.
        let task = |collection: &str, id: &str, project: u32| {
            let mut held = entity(
                "/tasks/",
                id,
                &format!(r#"{{"id": {id}, "project": {project}}}"#),
            );
            held.collection = collection.to_owned();
            held
        };
        let entities = vec![
            task("/tasks", "1", 1),
            task("/tasks/", "2", 1),
            task("/tasks/", "3", 2),
            task("/tasks/", "4", 2),
        ];
        let mut views = vec![project_tasks(&[
            ("1", &[("/tasks", "1"), ("/tasks/", "2")]),
            ("2", &[("/tasks/", "3"), ("/tasks/", "4")]),
        ])];
        generalize_lists(&entities, &mut views);
        let ViewDetail::List(list) = &views[0].detail else {
            panic!("a list view");
        };
        let parent = list.parent.as_ref().expect("the parent learned");
        assert_eq!((parent.segment, parent.field.as_str()), (1, "project"));
        assert_eq!(collection_key(&parent.collection), "/tasks");
        // Two lines naming their parents by different fields teach none.
        let mut views = vec![project_tasks(&[
            ("1", &[("/tasks", "1"), ("/tasks/", "2")]),
            ("2", &[("/tasks/", "1")]),
        ])];
        generalize_lists(&entities, &mut views);
        let ViewDetail::List(list) = &views[0].detail else {
            panic!("a list view");
        };
        assert_eq!(list.parent, None);
    }

    #[test]
    fn a_parent_list_is_learned_from_its_plain_lines_a_filtered_one_listing_some_children() {
        // rails-ransack's `/projects/2/tasks?q[status_eq]=todo` lists some of project 2's tasks:
        // the plain lines alone teach the parent; with only that line, none is learned.
        let task = |id: &str, project: u32| {
            entity(
                "/tasks/",
                id,
                &format!(r#"{{"id": {id}, "project": {project}, "status": "s{id}"}}"#),
            )
        };
        let entities = vec![task("1", 1), task("2", 1), task("3", 2), task("4", 2)];
        let filtered = |mut view: ReadView| {
            if let ViewDetail::List(list) = &mut view.detail {
                list.lines[0].query = Some(vec![("status".to_owned(), "s3".to_owned())]);
            }
            view
        };
        let learned = |view: ReadView| {
            let mut views = vec![view];
            generalize_lists(&entities, &mut views);
            let ViewDetail::List(list) = &views[0].detail else {
                panic!("a list view");
            };
            list.parent.as_ref().map(|parent| parent.field.clone())
        };
        let lines: [(&str, &[(&str, &str)]); 2] = [
            ("2", &[("/tasks/", "3")]),
            ("1", &[("/tasks/", "1"), ("/tasks/", "2")]),
        ];
        assert_eq!(
            learned(filtered(project_tasks(&lines))).as_deref(),
            Some("project")
        );
        assert_eq!(learned(project_tasks(&lines)), None);
        assert_eq!(learned(filtered(project_tasks(&lines[..1]))), None);
    }

    #[test]
    fn an_id_member_names_its_association() {
        use crate::query::foreign_key_relation;
        assert_eq!(foreign_key_relation("project_id"), Some("project"));
        assert_eq!(foreign_key_relation("assigneeId"), Some("assignee"));
        for plain in ["id", "_id", "Id", "title", "a__id"] {
            assert_eq!(foreign_key_relation(plain), None, "{plain}");
        }
        assert!(names_member("project", "project_id"));
        assert!(names_member("title", "title"));
        assert!(!names_member("projects", "project_id"));
    }
}
