//! Link filters: a list parameter naming a member that holds ids of entities of another held
//! type (a link `status: "3"`, a link object `{"id": "3", "link": …}`, or an array of them), whose
//! value names the linked entities by id or by one text member of theirs (`status=in-progress`
//! for a status whose `name` is `in-progress`, `assignedto=alice` for a user whose `username` is
//! `alice`), several joined by `,` meaning any of them once a recorded line showed that union.
//!
//! Learned from the recorded query lines: the member, the linked type (every id the member holds
//! is an entity of it) and the text member (every recorded value names an entity of that type by
//! it or by id, one of them by the text member). The learned filter is an ordinary
//! [`QueryRole::Filter`] whose field spells the link (see [`LinkField::field`]): the objects a
//! query reads hold, under that field, the ids and key texts of the entities each links, so the
//! filter compares with any of them. A served value naming no held entity of the linked type is
//! refused (the recordings never showed what such a filter answers), and so is one over a
//! candidate the state holds without the member (it cannot tell whether it matches).
//!
//! A link object pins its type: each of its members besides the id is the linked entity's
//! (`{"id": "3", "link": "…/priority/3"}` is a part of priority 3, not of status 3). A link
//! parameter only lines that test no role named (lines after the writes) is learned from their
//! values alone and takes the operator the tested link filters chose ([`untested_roles`]).
//!
//! A bracket term naming a member before a word no operator spells (`q[filters][project][rel_o_m]
//! =2`, a relation's own operator word) is that member's link parameter ([`bracketed_member`]).
//!
//! A parameter named as the member joined to a text member of the linked type by a separator of
//! punctuation (`project__code=SGB`, `project.code=SGB`: the tasks whose project's `code` is
//! `SGB`) names the linked entities by that member alone, never by id
//! ([`LinkField::key_only`], [`joined_name`]); so does one naming the member's association (its
//! name less an id suffix) joined to the key by an underscore, an equality word after it or none
//! (Ransack's `q[project_code_eq]` over `project_id`, see [`association_name`]).
//!
//! A member holding its links as item paths of the linked type's collections
//! (`"author": "/api/v1/author/2/"`, see [`crate::item_uris`]) links the ids those paths name:
//! its filter compares the id a path names, never the path's text (`author=2` does not list
//! the books of author 12). A parameter whose recorded values all name such links by id learns
//! a link by id alone (an empty [`LinkField::key`]), and so does one whose values name by id the
//! entities a member links as link objects (`"project": {"id": 2, "code": "API"}`), which no
//! plain equality compares.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_plugin_api::json::{Json, Object};

use crate::model::{Entity, QueryRole};

/// The prefix of a link filter's field; no application's member starts with it.
pub const LINKED: &str = "\u{0}linked:";

/// A learned link: the member holding the ids, the linked entity type, and the text member of
/// the linked entities a value may name them by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LinkField {
    /// The member of the listed entities holding the linked ids.
    pub member: String,
    /// The linked entities' type (its collection template).
    pub target_type: String,
    /// The linked entities' member a value may name them by; empty when a value names them by
    /// id alone (a member holding item paths, see the module docs).
    pub key: String,
    /// Whether a value names them by `key` alone, never by id (a parameter spelling the member
    /// and the key, see [`joined_name`]).
    pub key_only: bool,
}

impl LinkField {
    /// The field a filter of this link reads (and a query's object holds the linked values
    /// under): the prefix, then the member, type and key separated by NUL.
    pub fn field(&self) -> String {
        let only = if self.key_only { KEY_ONLY } else { "" };
        format!(
            "{LINKED}{}\u{0}{}\u{0}{}{only}",
            self.member, self.target_type, self.key
        )
    }

    /// The link a filter's field spells, if it spells one.
    pub fn parse(field: &str) -> Option<LinkField> {
        let mut parts = field.strip_prefix(LINKED)?.split('\u{0}');
        let member = parts.next()?.to_owned();
        let target_type = parts.next()?.to_owned();
        let key = parts.next()?.to_owned();
        let key_only = match parts.next() {
            None => false,
            Some("key") => true,
            Some(_) => return None,
        };
        let link = LinkField {
            member,
            target_type,
            key,
            key_only,
        };
        parts.next().is_none().then_some(link)
    }
}

/// The last part of a key-only link's field (see [`LinkField::key_only`]).
const KEY_ONLY: &str = "\u{0}key";

/// The member and key a parameter name spells when it is no member of the listed objects: a
/// member they hold, then a separator of punctuation, then the key (`project__code`,
/// `project.code`); the longest such member.
pub fn joined_name<'n>(name: &'n str, objects: &[&Object]) -> Option<(&'n str, &'n str)> {
    (1..name.len())
        .rev()
        .filter(|at| name.is_char_boundary(*at))
        .find_map(|at| {
            let (member, rest) = name.split_at(at);
            let key = rest.trim_start_matches(|c: char| c.is_ascii_punctuation());
            let fits = key.len() < rest.len()
                && !key.is_empty()
                && !member.ends_with(|c: char| c.is_ascii_punctuation())
                && objects.iter().any(|object| object.contains_key(member));
            fits.then_some((member, key))
        })
}

/// The member a parameter name filters as a link, and the key its values name the linked
/// entities by when the name spells one (see [`learn`]): the name itself when the listed objects
/// hold it, a member joined to a key ([`joined_name`]), an association's name joined to a key
/// ([`association_name`]), or a bracket term's member ([`bracketed_member`]).
fn spelled_link(name: &str, objects: &[&Object]) -> Option<(String, Option<String>)> {
    if objects.iter().any(|object| object.contains_key(name)) {
        return Some((name.to_owned(), None));
    }
    if let Some((member, key)) = joined_name(name, objects) {
        return Some((member.to_owned(), Some(key.to_owned())));
    }
    if let Some((member, key)) = association_name(name, objects) {
        return Some((member, Some(key)));
    }
    bracketed_member(name, objects).map(|member| (member.to_owned(), None))
}

/// The member and key a name spells as an association (the member's name less its id suffix,
/// `project` for `project_id` or `projectId`, see [`crate::query::foreign_key_relation`]), an
/// underscore, then the key, with an operator word
/// spelling equality after it or none, in a wrapper's brackets or not (Ransack's
/// `q[project_code_eq]`, `q[assignee_role_eq]`): the longest such association the listed objects
/// hold a member of.
fn association_name(name: &str, objects: &[&Object]) -> Option<(String, String)> {
    let inner = rea_plugin_api::query_fields::unnested(name).unwrap_or_else(|| name.to_owned());
    let base = match inner.rsplit_once('_') {
        Some((base, word)) => match rea_plugin_api::query_fields::operator_word(word) {
            Some("eq") => base,
            Some(_) => return None,
            None => inner.as_str(),
        },
        None => inner.as_str(),
    };
    base.match_indices('_').rev().find_map(|(at, _)| {
        let (stem, key) = (&base[..at], &base[at + 1..]);
        if stem.is_empty() || key.is_empty() || key.contains(['[', ']']) {
            return None;
        }
        let member = objects.iter().find_map(|object| {
            object
                .iter()
                .map(|(member, _)| member)
                .filter(|member| crate::query::foreign_key_relation(member) == Some(stem))
                .min()
        })?;
        Some((member.to_owned(), key.to_owned()))
    })
}

/// Whether some object holds, under `member`, a link object (an object with an `id`): a link a
/// plain equality cannot compare, so values naming its entities by id alone teach the link.
fn holds_link_objects(objects: &[&Object], member: &str) -> bool {
    objects.iter().any(|object| {
        object
            .get(member)
            .and_then(Json::as_object)
            .is_some_and(|link| link.contains_key("id"))
    })
}

/// The member a bracket term names before a word no operator spells (`q[filters][project]
/// [rel_o_m]`: `project`, a relation's own operator), when the listed objects hold it: a term
/// whose role only its values can teach, compared as a link.
fn bracketed_member<'n>(name: &'n str, objects: &[&Object]) -> Option<&'n str> {
    let (_, rest) = name.split_once('[')?;
    let parts: Vec<&str> = rest.strip_suffix(']')?.split("][").collect();
    let [.., member, word] = parts.as_slice() else {
        return None;
    };
    (rea_plugin_api::query_fields::operator_word(word).is_none()
        && objects.iter().any(|object| object.contains_key(member)))
    .then_some(*member)
}

/// The ids a member's value links: a scalar id, an object's `id`, or an array of either; `null`
/// links none. `None` for any other value.
pub fn linked_ids(value: &Json) -> Option<Vec<String>> {
    fn one(value: &Json) -> Option<String> {
        match value {
            Json::String(text) => Some(text.to_string()),
            Json::Number(number) => Some(number.as_str().to_owned()),
            Json::Object(object) => one(object.get("id")?).filter(|_| {
                object
                    .get("id")
                    .is_some_and(|id| !matches!(id, Json::Object(_)))
            }),
            _ => None,
        }
    }
    match value {
        Json::Null => Some(Vec::new()),
        Json::Array(items) => items.iter().map(one).collect(),
        other => one(other).map(|id| vec![id]),
    }
}

/// The text an entity shows for a member: its own field, else the first view showing it
/// otherwise (a list view naming a label the item nests elsewhere).
fn shown_text<'a>(entity: &'a Entity, member: &str) -> Option<&'a str> {
    entity
        .fields
        .get(member)
        .and_then(Json::as_str)
        .or_else(|| {
            entity
                .view_fields
                .values()
                .find_map(|view| view.get(member).and_then(Json::as_str))
        })
}

/// The text a linked entity shows for a link's key: its text ([`shown_text`]), or for a link
/// naming its entities by the key alone (`author__born=1929`) the number it holds there as
/// written.
fn shown_key<'a>(entity: &'a Entity, link: &LinkField) -> Option<&'a str> {
    shown_text(entity, &link.key).or_else(|| match entity.fields.get(&link.key) {
        Some(Json::Number(number)) if link.key_only => Some(number.as_str()),
        _ => None,
    })
}

/// The linked type's entities by id, each with its key member's text, and the collections
/// holding them (whose item paths name them, see [`crate::item_uris`]).
struct Targets<'a> {
    keys: HashMap<&'a str, Option<&'a str>>,
    collections: BTreeSet<&'a str>,
}

impl Targets<'_> {
    /// The held id a member's linked text names: the id itself, or an item path of one of the
    /// type's collections naming a held id.
    fn id_of<'t>(&self, text: &'t str) -> Option<&'t str> {
        if self.keys.contains_key(text) {
            return Some(text);
        }
        self.collections
            .iter()
            .filter_map(|collection| crate::item_uris::item_id(text, collection))
            .find(|id| self.keys.contains_key(id))
    }
}

/// The entities of `target_type` among `entities`: id → the text of their `key` member, or the
/// id it names where that member is itself a link held as an item path of a held collection
/// (`book__author=1` names the books whose `author` is `/api/v1/author/1/`: a link through a
/// link compares the id, as a link filter does, see [`crate::item_uris`]).
fn targets<'a>(entities: impl Iterator<Item = &'a Entity>, link: &LinkField) -> Targets<'a> {
    let entities: Vec<&Entity> = entities.collect();
    let held_collections: BTreeSet<&str> = entities
        .iter()
        .map(|entity| entity.collection.as_str())
        .collect();
    let mut targets = Targets {
        keys: HashMap::new(),
        collections: BTreeSet::new(),
    };
    for entity in entities
        .into_iter()
        .filter(|entity| entity.entity_type == link.target_type)
    {
        let key = (!link.key.is_empty())
            .then(|| shown_key(entity, link))
            .flatten()
            .map(|key| linked_id(key, &held_collections).unwrap_or(key));
        targets.keys.insert(entity.id.as_str(), key);
        targets.collections.insert(entity.collection.as_str());
    }
    targets
}

/// The id a text names as an item path of one of `collections`.
fn linked_id<'t>(text: &'t str, collections: &BTreeSet<&str>) -> Option<&'t str> {
    collections
        .iter()
        .find_map(|collection| crate::item_uris::item_id(text, collection))
}

/// The items a filter's value names: split by `,` for `in`, the whole value for `eq`.
fn items<'a>(op: &str, argument: &'a str) -> Vec<&'a str> {
    match op {
        "in" => argument.split(',').collect(),
        _ => vec![argument],
    }
}

/// Whether a link filter's field value (the linked ids and key texts, see [`with_links`])
/// matches the argument: some item of it is one of them. `None` when the field is no link's.
pub fn matches(field: &str, value: Option<&Json>, op: &str, argument: &str) -> Option<bool> {
    LinkField::parse(field)?;
    let held: Vec<&str> = value
        .and_then(Json::as_array)
        .map(|texts| texts.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    let wanted = items(op, argument);
    Some(match op {
        "eq" | "in" => wanted.iter().any(|item| held.contains(item)),
        _ => false,
    })
}

/// The value a query's object holds under a link's field: the id and key text of each entity
/// the member links (an id no held entity has, alone).
fn link_value(object: &Object, link: &LinkField, targets: &Targets<'_>) -> Option<Json> {
    let ids = linked_ids(object.get(&link.member)?)?;
    let mut texts = Vec::new();
    for linked in ids {
        let id = targets.id_of(&linked).map_or(linked.clone(), str::to_owned);
        if let Some(Some(key)) = targets.keys.get(id.as_str()) {
            texts.push(Json::from(*key));
        }
        if !link.key_only {
            texts.push(Json::String(id.into()));
        }
    }
    Some(Json::Array(texts))
}

/// The links the model's filters read.
pub fn model_links<'a>(parameters: impl Iterator<Item = &'a QueryRole>) -> BTreeSet<LinkField> {
    parameters
        .filter_map(|role| match role {
            QueryRole::Filter { field, .. } => LinkField::parse(field),
            _ => None,
        })
        .collect()
}

/// Sets over each object the values of the links (see [`link_value`]), reading the linked
/// entities among `entities`.
pub fn with_links<'a>(
    objects: impl Iterator<Item = &'a mut Object>,
    links: &BTreeSet<LinkField>,
    entities: &[&Entity],
) {
    let targets: Vec<(&LinkField, Targets<'_>)> = links
        .iter()
        .map(|link| (link, targets(entities.iter().copied(), link)))
        .collect();
    for object in objects {
        for (link, held) in &targets {
            if let Some(value) = link_value(object, link, held) {
                object.insert(link.field(), value);
            }
        }
    }
}

/// Whether every item of a served link filter's value names a held entity of the linked type,
/// by id or key (else the recordings never showed what the filter answers).
pub fn names_held(link: &LinkField, op: &str, argument: &str, entities: &[&Entity]) -> bool {
    let held = targets(entities.iter().copied(), link);
    items(op, argument).iter().all(|item| {
        (!link.key_only && held.keys.contains_key(item))
            || held.keys.values().any(|key| *key == Some(*item))
    })
}

/// The link fields a parameter may filter by, learned from its recorded values (see the module
/// docs): per parameter name that is a member of the listed objects holding ids, the links to a
/// type holding every id the member holds, by a text member naming some recorded value.
pub fn learn(
    values: &BTreeMap<String, Vec<String>>,
    objects: &[&Object],
    entities: &[&Entity],
) -> BTreeMap<String, Vec<LinkField>> {
    let mut types: Vec<&str> = Vec::new();
    for entity in entities {
        if !types.contains(&entity.entity_type.as_str()) {
            types.push(&entity.entity_type);
        }
    }
    let mut learned = BTreeMap::new();
    for (name, sent) in values {
        let Some((member, key)) = spelled_link(name, objects) else {
            continue;
        };
        let (member, key) = (member.as_str(), key.as_deref());
        let Some(held_ids) = member_ids(objects, member) else {
            continue;
        };
        let links: Vec<LinkField> = types
            .iter()
            .flat_map(|target| {
                type_links(
                    (member, key),
                    target,
                    (&held_ids, sent),
                    (objects, entities),
                )
            })
            .collect();
        if !links.is_empty() {
            learned.insert(name.clone(), links);
        }
    }
    learned
}

/// Every id the member holds across the objects, when each object's value links ids and some
/// links one.
fn member_ids(objects: &[&Object], member: &str) -> Option<BTreeSet<String>> {
    let mut ids = BTreeSet::new();
    for object in objects {
        if let Some(value) = object.get(member) {
            ids.extend(linked_ids(value)?);
        }
    }
    (!ids.is_empty()).then_some(ids)
}

/// Whether every link object the member holds is a part of the entity of the type it names by
/// id: each of its other members as that entity shows it (`{"id": "3", "link": "…/status/3"}`
/// is a part of status 3, not of priority 3). A scalar id names nothing else: true.
fn parts_of(objects: &[&Object], member: &str, of_type: &[&Entity]) -> bool {
    let items = objects
        .iter()
        .filter_map(|object| object.get(member))
        .flat_map(|value| match value {
            Json::Array(items) => items.iter().collect(),
            other => vec![other],
        });
    items.filter_map(Json::as_object).all(|link| {
        let Some(id) = link.get("id").and_then(crate::render::scalar_text) else {
            return false;
        };
        of_type.iter().any(|entity| {
            entity.id == id
                && link.iter().all(|(key, value)| {
                    key == "id"
                        || std::iter::once(&entity.fields)
                            .chain(entity.view_fields.values())
                            .any(|shown| shown.get(key) == Some(value))
                })
        })
    })
}

/// The links of `member` to `target` (each text member of its entities by which every recorded
/// item names one of them, one item by that member; only `key`, by which every item names one,
/// when the parameter spelled it), when the type holds every id the member holds and every link
/// object it holds is a part of one of its entities.
fn type_links(
    (member, key): (&str, Option<&str>),
    target: &str,
    (held_ids, sent): (&BTreeSet<String>, &[String]),
    (objects, entities): (&[&Object], &[&Entity]),
) -> Vec<LinkField> {
    let of_type: Vec<&Entity> = entities
        .iter()
        .copied()
        .filter(|entity| entity.entity_type == target)
        .collect();
    let ids: BTreeSet<&str> = of_type.iter().map(|entity| entity.id.as_str()).collect();
    let Some(paths) = held_as_paths(held_ids, &of_type, &ids) else {
        return Vec::new();
    };
    if !parts_of(objects, member, &of_type) {
        return Vec::new();
    }
    let keys: BTreeSet<&str> = of_type
        .iter()
        .flat_map(|entity| {
            std::iter::once(&entity.fields)
                .chain(entity.view_fields.values())
                .filter_map(Json::as_object)
                .flat_map(|fields| fields.iter())
        })
        .filter(|(_, value)| matches!(value, Json::String(_)))
        .map(|(key, _)| key)
        .collect();
    let items: Vec<&str> = sent.iter().flat_map(|value| value.split(',')).collect();
    let keyed: Vec<LinkField> = keys
        .into_iter()
        .filter(|shown| key.is_none_or(|key| key == *shown))
        .filter(|shown| {
            let named = |item: &str| {
                of_type
                    .iter()
                    .any(|entity| shown_text(entity, shown) == Some(item))
            };
            let by_id = |item: &str| key.is_none() && ids.contains(item);
            items.iter().all(|item| by_id(item) || named(item))
                && items.iter().any(|item| !by_id(item) && named(item))
        })
        .map(|shown| LinkField {
            member: member.to_owned(),
            target_type: target.to_owned(),
            key: shown.to_owned(),
            key_only: key.is_some(),
        })
        .collect();
    let by_id_alone = (paths || holds_link_objects(objects, member))
        && keyed.is_empty()
        && key.is_none()
        && items.iter().all(|item| ids.contains(item));
    if !by_id_alone {
        return keyed;
    }
    vec![LinkField {
        member: member.to_owned(),
        target_type: target.to_owned(),
        key: String::new(),
        key_only: false,
    }]
}

/// Whether the member links the type by item paths: `Some(true)` when every text it holds is a
/// held id of the type or an item path of one of its collections naming one (see
/// [`crate::item_uris`]), some of them a path; `Some(false)` when every text is a held id;
/// `None` when some text names no held entity of the type.
fn held_as_paths(
    held_ids: &BTreeSet<String>,
    of_type: &[&Entity],
    ids: &BTreeSet<&str>,
) -> Option<bool> {
    let collections: BTreeSet<&str> = of_type
        .iter()
        .map(|entity| entity.collection.as_str())
        .collect();
    let mut paths = false;
    for held in held_ids {
        if ids.contains(held.as_str()) {
            continue;
        }
        let named = collections
            .iter()
            .filter_map(|collection| crate::item_uris::item_id(held, collection))
            .any(|id| ids.contains(id));
        if !named {
            return None;
        }
        paths = true;
    }
    Some(paths)
}

/// The filter roles a list's link parameters may play: `in` (any of the `,`-separated items)
/// when some recorded value of a link parameter holds a `,`, else `eq`; the recorded lines then
/// decide whether the union is what the application answered.
pub fn roles(
    learned: &BTreeMap<String, Vec<LinkField>>,
    values: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Vec<QueryRole>> {
    let joined = learned.keys().any(|name| {
        values
            .get(name)
            .is_some_and(|sent| sent.iter().any(|value| value.contains(',')))
    });
    let op = if joined { "in" } else { "eq" };
    learned
        .iter()
        .map(|(name, links)| {
            let roles = links
                .iter()
                .map(|link| QueryRole::filter(&link.field(), op))
                .collect();
            (name.clone(), roles)
        })
        .collect()
}

/// The filter roles of link parameters no line that tested roles named (a line recorded after
/// the writes, say), given the roles the tested lines chose: each such name learned a link and
/// takes the operator of the chosen link filters, when they agree on one; none when no link
/// filter was chosen (the lines never showed the application filters by links).
pub fn untested_roles(
    chosen: &BTreeMap<String, QueryRole>,
    untested: &BTreeMap<String, Vec<LinkField>>,
) -> BTreeMap<String, QueryRole> {
    let ops: BTreeSet<&str> = chosen
        .values()
        .filter_map(|role| match role {
            QueryRole::Filter { field, op } if LinkField::parse(field).is_some() => {
                Some(op.as_str())
            }
            _ => None,
        })
        .collect();
    let [op] = ops.into_iter().collect::<Vec<_>>()[..] else {
        return BTreeMap::new();
    };
    untested
        .iter()
        .filter(|(name, _)| !chosen.contains_key(*name))
        .filter_map(|(name, links)| {
            let [link] = links.as_slice() else {
                return None;
            };
            Some((name.clone(), QueryRole::filter(&link.field(), op)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    use crate::test_support::parsed_json as json;

    fn held() -> Vec<Entity> {
        vec![
            entity("/state", "1", r#"{"id": "1", "name": "open"}"#),
            entity("/state", "2", r#"{"id": "2", "name": "closed"}"#),
            entity("/person", "1", r#"{"id": "1", "login": "ann"}"#),
            entity("/person", "2", r#"{"id": "2", "login": "ben"}"#),
            entity("/person", "3", r#"{"id": "3", "login": "cy"}"#),
        ]
    }

    #[test]
    fn learns_the_linked_type_and_the_member_a_value_names() {
        let entities = held();
        let refs: Vec<&Entity> = entities.iter().collect();
        let a = json(r#"{"state": {"id": "1"}, "owner": "3", "tags": [{"id": "2"}]}"#);
        let b = json(r#"{"state": {"id": "2"}, "owner": null, "tags": []}"#);
        let objects = vec![a.as_object().unwrap(), b.as_object().unwrap()];
        let values = BTreeMap::from([
            ("state".to_owned(), vec!["closed".to_owned()]),
            ("owner".to_owned(), vec!["cy".to_owned()]),
            ("tags".to_owned(), vec!["1".to_owned()]),
        ]);
        let learned = learn(&values, &objects, &refs);
        assert_eq!(
            learned["state"],
            vec![LinkField {
                member: "state".into(),
                target_type: "/state".into(),
                key: "name".into(),
                key_only: false,
            }]
        );
        assert_eq!(learned["owner"][0].key, "login");
        // Ids alone name no key member: nothing learned.
        assert!(!learned.contains_key("tags"));
    }

    #[test]
    fn a_bracket_term_over_link_objects_names_them_by_id() {
        let entities = [
            entity("/project", "1", r#"{"id": "1", "code": "WEB"}"#),
            entity("/project", "2", r#"{"id": "2", "code": "API"}"#),
        ];
        let refs: Vec<&Entity> = entities.iter().collect();
        let a = json(r#"{"project": {"id": "1", "code": "WEB"}}"#);
        let b = json(r#"{"project": {"id": "2", "code": "API"}}"#);
        let objects = vec![a.as_object().unwrap(), b.as_object().unwrap()];
        // A relation's own operator word: the member before it, by id alone.
        let values = BTreeMap::from([
            (
                "q[filters][project][rel_o_m]".to_owned(),
                vec!["2".to_owned()],
            ),
            ("q[filters][project][eq]".to_owned(), vec!["2".to_owned()]),
        ]);
        let learned = learn(&values, &objects, &refs);
        assert_eq!(
            learned["q[filters][project][rel_o_m]"],
            vec![LinkField {
                member: "project".into(),
                target_type: "/project".into(),
                key: String::new(),
                key_only: false,
            }]
        );
        // A known operator word keeps its own filter.
        assert!(!learned.contains_key("q[filters][project][eq]"));
    }

    #[test]
    fn a_link_object_pins_the_type_it_is_a_part_of() {
        let entities = [
            entity(
                "/state",
                "1",
                r#"{"id": "1", "link": "/state/1", "name": "open"}"#,
            ),
            entity(
                "/rank",
                "1",
                r#"{"id": "1", "link": "/rank/1", "name": "high"}"#,
            ),
        ];
        let refs: Vec<&Entity> = entities.iter().collect();
        let a = json(r#"{"rank": {"id": "1", "link": "/rank/1"}}"#);
        let objects = vec![a.as_object().unwrap()];
        // Both types hold id 1 and a `name`; only ranks show the link object's `link`.
        let values = BTreeMap::from([("rank".to_owned(), vec!["high,open".to_owned()])]);
        assert!(learn(&values, &objects, &refs).is_empty());
        let values = BTreeMap::from([("rank".to_owned(), vec!["high".to_owned()])]);
        let learned = learn(&values, &objects, &refs);
        assert_eq!(learned["rank"].len(), 1);
        assert_eq!(learned["rank"][0].target_type, "/rank");
    }

    #[test]
    fn an_untested_link_takes_the_chosen_links_operator() {
        let link = |member: &str| LinkField {
            member: member.into(),
            target_type: format!("/{member}"),
            key: "name".into(),
            key_only: false,
        };
        let untested = BTreeMap::from([("rank".to_owned(), vec![link("rank")])]);
        let chosen = BTreeMap::from([(
            "state".to_owned(),
            QueryRole::filter(&link("state").field(), "in"),
        )]);
        assert_eq!(
            untested_roles(&chosen, &untested)["rank"],
            QueryRole::filter(&link("rank").field(), "in")
        );
        // No chosen link filter: the lines never showed the application filters by links.
        let plain = BTreeMap::from([("title".to_owned(), QueryRole::filter("title", "like"))]);
        assert!(untested_roles(&plain, &untested).is_empty());
    }

    #[test]
    fn the_separator_is_offered_only_when_a_recorded_value_holds_it() {
        let link = LinkField {
            member: "state".into(),
            target_type: "/state".into(),
            key: "name".into(),
            key_only: false,
        };
        let learned = BTreeMap::from([("state".to_owned(), vec![link.clone()])]);
        let single = BTreeMap::from([("state".to_owned(), vec!["open".to_owned()])]);
        let joined = BTreeMap::from([("state".to_owned(), vec!["1,2".to_owned()])]);
        assert_eq!(
            roles(&learned, &single)["state"],
            vec![QueryRole::filter(&link.field(), "eq")]
        );
        assert_eq!(
            roles(&learned, &joined)["state"],
            vec![QueryRole::filter(&link.field(), "in")]
        );
        assert_eq!(LinkField::parse(&link.field()), Some(link));
    }

    #[test]
    fn matches_by_id_or_key_and_refuses_unheld_names() {
        let entities = held();
        let refs: Vec<&Entity> = entities.iter().collect();
        let link = LinkField {
            member: "tags".into(),
            target_type: "/state".into(),
            key: "name".into(),
            key_only: false,
        };
        let mut object = json(r#"{"tags": [{"id": "1"}, {"id": "9"}]}"#)
            .as_object()
            .unwrap()
            .clone();
        with_links(
            std::iter::once(&mut object),
            &BTreeSet::from([link.clone()]),
            &refs,
        );
        let field = link.field();
        let value = object.get(&field);
        assert_eq!(matches(&field, value, "eq", "open"), Some(true));
        assert_eq!(matches(&field, value, "eq", "9"), Some(true));
        assert_eq!(matches(&field, value, "eq", "closed"), Some(false));
        assert_eq!(matches(&field, value, "in", "closed,1"), Some(true));
        assert_eq!(matches("title", value, "eq", "open"), None);
        assert!(names_held(&link, "in", "open,2", &refs));
        assert!(!names_held(&link, "eq", "archived", &refs));
    }

    #[test]
    fn a_name_joining_the_member_and_a_key_names_by_that_key_alone() {
        let entities = [
            entity("/project", "1", r#"{"id": 1, "code": "AB", "name": "2"}"#),
            entity("/project", "2", r#"{"id": 2, "code": "CD", "name": "1"}"#),
        ];
        let refs: Vec<&Entity> = entities.iter().collect();
        let a = json(r#"{"id": 7, "project": 1}"#);
        let b = json(r#"{"id": 8, "project": 2}"#);
        let objects = vec![a.as_object().unwrap(), b.as_object().unwrap()];
        assert_eq!(
            joined_name("project__code", &objects),
            Some(("project", "code"))
        );
        assert_eq!(
            joined_name("project.code", &objects),
            Some(("project", "code"))
        );
        assert_eq!(joined_name("projectcode", &objects), None);
        assert_eq!(joined_name("owner__code", &objects), None);
        let values = BTreeMap::from([("project__code".to_owned(), vec!["CD".to_owned()])]);
        let learned = learn(&values, &objects, &refs);
        let link = LinkField {
            member: "project".into(),
            target_type: "/project".into(),
            key: "code".into(),
            key_only: true,
        };
        assert_eq!(learned["project__code"], vec![link.clone()]);
        assert_eq!(LinkField::parse(&link.field()), Some(link.clone()));
        // An id names nothing by the key: `1` is no project's code.
        let mut object = a.as_object().unwrap().clone();
        with_links(
            std::iter::once(&mut object),
            &BTreeSet::from([link.clone()]),
            &refs,
        );
        let field = link.field();
        assert_eq!(matches(&field, object.get(&field), "eq", "AB"), Some(true));
        assert_eq!(matches(&field, object.get(&field), "eq", "1"), Some(false));
        assert!(names_held(&link, "eq", "CD", &refs));
        assert!(!names_held(&link, "eq", "2", &refs));
        // A recorded value naming no entity by the key teaches nothing.
        let values = BTreeMap::from([("project__code".to_owned(), vec!["2".to_owned()])]);
        assert!(learn(&values, &objects, &refs).is_empty());
    }

    #[test]
    fn an_association_joined_to_a_key_names_the_linked_entities_by_that_key() {
        // Ransack's `q[project_code_eq]`: the association `project` of the member `project_id`,
        // then the linked project's `code`, then an operator word spelling equality.
        let entities = [
            entity("/projects", "1", r#"{"id": 1, "code": "AB"}"#),
            entity("/projects", "2", r#"{"id": 2, "code": "CD"}"#),
            entity("/people", "1", r#"{"id": 1, "role": "lead"}"#),
            entity("/people", "2", r#"{"id": 2, "role": "dev"}"#),
        ];
        let refs: Vec<&Entity> = entities.iter().collect();
        let a = json(r#"{"id": 7, "project_id": 1, "ownerId": 2}"#);
        let b = json(r#"{"id": 8, "project_id": 2, "ownerId": 1}"#);
        let objects = vec![a.as_object().unwrap(), b.as_object().unwrap()];
        let spelled = |name: &str| association_name(name, &objects);
        let project = Some(("project_id".to_owned(), "code".to_owned()));
        assert_eq!(spelled("q[project_code_eq]"), project);
        assert_eq!(spelled("project_code"), project);
        assert_eq!(
            spelled("owner_role_eq"),
            Some(("ownerId".to_owned(), "role".to_owned()))
        );
        // Another operator word, no association held, no key: none.
        assert_eq!(spelled("q[project_code_cont]"), None);
        assert_eq!(spelled("q[team_code_eq]"), None);
        assert_eq!(spelled("q[project_eq]"), None);
        let values = BTreeMap::from([("q[project_code_eq]".to_owned(), vec!["CD".to_owned()])]);
        let learned = learn(&values, &objects, &refs);
        let link = LinkField {
            member: "project_id".into(),
            target_type: "/projects".into(),
            key: "code".into(),
            key_only: true,
        };
        assert_eq!(learned["q[project_code_eq]"], vec![link.clone()]);
        assert_eq!(matching(&objects, &link, &refs, "CD"), [false, true]);
    }

    /// Which of `objects`, their link values set from `held`, an `eq` filter on `link`'s field
    /// with `argument` matches.
    fn matching(
        objects: &[&Object],
        link: &LinkField,
        held: &[&Entity],
        argument: &str,
    ) -> Vec<bool> {
        let mut listed: Vec<Object> = objects.iter().map(|object| (*object).clone()).collect();
        with_links(listed.iter_mut(), &BTreeSet::from([link.clone()]), held);
        let field = link.field();
        listed
            .iter()
            .map(|object| matches(&field, object.get(&field), "eq", argument) == Some(true))
            .collect()
    }

    #[test]
    fn a_link_held_as_an_item_path_filters_by_the_whole_id() {
        let entities: Vec<Entity> = ["2", "12"]
            .iter()
            .map(|id| {
                entity(
                    "/api/author/",
                    id,
                    &format!(r#"{{"id": {id}, "name": "n{id}"}}"#),
                )
            })
            .collect();
        let refs: Vec<&Entity> = entities.iter().collect();
        let a = json(r#"{"id": 1, "author": "/api/author/2/"}"#);
        let b = json(r#"{"id": 2, "author": "/api/author/12/"}"#);
        let objects = vec![a.as_object().unwrap(), b.as_object().unwrap()];
        let values = BTreeMap::from([("author".to_owned(), vec!["2".to_owned()])]);
        let learned = learn(&values, &objects, &refs);
        let link = LinkField {
            member: "author".into(),
            target_type: "/api/author/".into(),
            key: String::new(),
            key_only: false,
        };
        assert_eq!(learned["author"], vec![link.clone()]);
        let field = link.field();
        assert_eq!(LinkField::parse(&field), Some(link.clone()));
        let matching = |argument: &str| matching(&objects, &link, &refs, argument);
        // `2` is a part of author 12's path, but names author 2 alone.
        assert_eq!(matching("2"), [true, false]);
        assert_eq!(matching("12"), [false, true]);
        assert!(names_held(&link, "eq", "12", &refs));
        assert!(!names_held(&link, "eq", "1", &refs), "no author 1 is held");
        // Bare ids name no key member: nothing learned, as before.
        let bare = json(r#"{"id": 1, "author": 2}"#);
        let learned = learn(&values, &[bare.as_object().unwrap()], &refs);
        assert!(learned.is_empty());
    }

    #[test]
    fn a_link_through_a_link_compares_the_id_its_item_path_names() {
        let entities = [
            entity("/api/author/", "1", r#"{"id": 1, "name": "Ann"}"#),
            entity("/api/author/", "2", r#"{"id": 2, "name": "Ben"}"#),
            entity(
                "/api/book/",
                "7",
                r#"{"id": 7, "author": "/api/author/1/"}"#,
            ),
            entity(
                "/api/book/",
                "8",
                r#"{"id": 8, "author": "/api/author/2/"}"#,
            ),
        ];
        let refs: Vec<&Entity> = entities.iter().collect();
        let link = LinkField {
            member: "book".into(),
            target_type: "/api/book/".into(),
            key: "author".into(),
            key_only: true,
        };
        let a = json(r#"{"id": 1, "book": "/api/book/7/"}"#);
        let b = json(r#"{"id": 2, "book": "/api/book/8/"}"#);
        let objects = [a.as_object().unwrap(), b.as_object().unwrap()];
        let matching = |argument: &str| matching(&objects, &link, &refs, argument);
        // The books' `author` is a path of a held collection: `1` names the book of author 1.
        assert_eq!(matching("1"), [true, false]);
        assert_eq!(matching("2"), [false, true]);
        assert!(names_held(&link, "eq", "2", &refs));
        assert!(
            !names_held(&link, "eq", "3", &refs),
            "no book's author is author 3"
        );
        // A key member that is no item path of a held collection is compared as written.
        let texts = [entity(
            "/api/book/",
            "9",
            r#"{"id": 9, "author": "/elsewhere/1/"}"#,
        )];
        let refs: Vec<&Entity> = texts.iter().collect();
        assert!(names_held(&link, "eq", "/elsewhere/1/", &refs));
        assert!(!names_held(&link, "eq", "1", &refs));
    }
}
