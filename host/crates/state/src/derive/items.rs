//! Item views: `GET …/{id}` tools whose answers echo the id in one member, and `GET …/get?key=…`
//! tools (RPC-style reads) whose answers echo a query parameter's value in one member of the
//! entity (its identity, or another field the view looks the entity up by).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;
use rea_manifest::segments::{split_path, template_value};
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use super::entities::{Entities, item_segments};
use super::{latest_lines, marked_deleted, projected_keys, recorded};
use crate::model::{EntityType, ItemKey, ItemView, Projection, ViewDetail, ViewShape};
use crate::nesting::Nesting;
use crate::observation::{Observation, Timeline, decoded};
use crate::render::{
    identity_value, project_to, render_entity, scalar_text, selects_fields, with_value_at,
};

/// An item tool, before verification.
#[derive(Debug, Clone)]
pub struct ItemPlan {
    /// The manifest tool.
    pub tool: usize,
    /// The tool's name.
    pub name: String,
    /// The entity type (collection template).
    pub entity_type: String,
    /// The identity field.
    pub identity_field: String,
    /// Where the entity sits in the envelope.
    pub entity_pointer: String,
    /// The segment index of the identity (of the last segment, for a query key).
    pub last: usize,
    /// The template's segment there (`{numeric}`, or `{numeric}.json` for an id fused with
    /// literal text, whose value is the identity).
    pub id_pattern: String,
    /// How calls name the entity.
    pub key: ItemKey,
    /// The query parameters the capture shows changing nothing of the answer (see
    /// [`neutral_names`]): a read naming only these shows the entity as a plain read does.
    pub neutral: BTreeSet<String>,
    /// How the entity object nests its properties, when it does (see [`crate::nesting`]).
    pub nesting: Option<Nesting>,
    /// The envelope members beside the entity echoing its identity (see [`listed_entity`]).
    pub identity_echoes: Vec<String>,
}

/// The preference of an identity field name (lower is better).
pub(crate) fn identity_preference(name: &str) -> u8 {
    let lower = name.to_ascii_lowercase();
    if lower == "id" {
        0
    } else if lower.ends_with("_id") || lower.ends_with("id") {
        1
    } else if lower.contains("uuid") || lower == "key" {
        2
    } else if matches!(lower.as_str(), "name" | "title" | "slug") {
        3
    } else {
        4
    }
}

/// The objects of a body an entity may sit in, with their pointers: the root, an envelope's
/// object one level down, and the one item of an envelope's array (a row page answering
/// `{"rows": [{…}]}`: `/rows/0`).
fn entity_places(body: &Json) -> Vec<(String, &Object)> {
    let Some(object) = body.as_object() else {
        return Vec::new();
    };
    let mut places = vec![(String::new(), object)];
    for (key, value) in object.iter() {
        match value {
            Json::Object(inner) => {
                places.push((format!("/{}", escape_pointer_segment(key)), inner))
            }
            Json::Array(items) => {
                if let [Json::Object(inner)] = items.as_slice() {
                    places.push((format!("/{}/0", escape_pointer_segment(key)), inner));
                }
            }
            _ => {}
        }
    }
    places
}

/// `(pointer, field)` pairs where an object echoes `id` (see [`entity_places`]). Where no member
/// echoes it, the fused identities an object shows it by ([`crate::fused_identity`]: a row page
/// of a compound key, `5,release` of `{task_id},{tag}`).
fn echo_candidates(body: &Json, id: &str) -> Vec<(String, String)> {
    let places = entity_places(body);
    let mut found = Vec::new();
    for (pointer, object) in &places {
        for (key, value) in object.iter() {
            if scalar_text(value).as_deref() == Some(id) {
                found.push((pointer.clone(), key.to_owned()));
            }
        }
    }
    if found.is_empty() {
        for (pointer, object) in &places {
            for fused in crate::fused_identity::candidates(object, id) {
                found.push((pointer.clone(), fused));
            }
        }
    }
    found
}

/// `Ok` for an item tool; `Err(None)` when the tool is not one (another kind may fit);
/// `Err(Some(reason))` when it is one the state cannot hold.
pub fn plan(
    manifest: &Manifest,
    timeline: &Timeline,
    index: usize,
    entities: &mut Entities,
) -> Result<ItemPlan, Option<&'static str>> {
    let tool = &manifest.tools[index];
    let written: Vec<&str> = split_path(&tool.path_template);
    let template = item_segments(&written);
    let last = template.len() - 1;
    let path_keyed = tool
        .path_parameters
        .iter()
        .any(|parameter| parameter.segment_index == last);
    let lines: Vec<&Observation> = timeline
        .checked(index)
        .filter(|observation| observation.is_success())
        .collect();
    if lines.is_empty()
        || lines
            .iter()
            .any(|line| !matches!(line.body, Some(Json::Object(_))))
    {
        return Err(None);
    }
    if !path_keyed {
        let last = written.len() - 1;
        return query_plan(tool, &written, last, &lines, index, entities);
    }
    let plain: Vec<&Observation> = lines
        .iter()
        .copied()
        .filter(|line| line.query.is_none())
        .collect();
    let basis = if plain.is_empty() { &lines } else { &plain };
    let collection = basis[0].segments[..last.min(basis[0].segments.len())].to_vec();
    let candidates = echoed_identity(basis, template[last], last)?;
    let named = crate::nesting::named_keys(timeline, &collection);
    let ((entity_pointer, identity_field), identity_echoes) =
        listed_entity(&named.1, basis, candidates);
    let entity_type = listed_spelling(manifest, collection_template(&written, last));
    let nesting = crate::nesting::learn(&named, &entity_pointer, &identity_field, basis);
    match entities.entity_type(&entity_type) {
        Some(existing) if existing.identity_field != identity_field => return Err(Some("no-view")),
        Some(_) => {}
        None => entities.add_type(EntityType::new(
            entity_type.clone(),
            identity_field.clone(),
            Some(tool.name.clone()),
        )),
    }
    Ok(ItemPlan {
        tool: index,
        name: tool.name.clone(),
        entity_type,
        identity_field,
        entity_pointer,
        last,
        id_pattern: template[last].to_owned(),
        key: ItemKey::Path,
        neutral: neutral_names(timeline, index),
        nesting,
        identity_echoes,
    })
}

/// Where every line of `basis` echoes its path's item id (`template` at segment `last`): the
/// entity's pointers and identity fields, the root first, then an envelope's object, then an
/// array's one item; `Err(None)` when no place echoes it on every line.
fn echoed_identity(
    basis: &[&Observation],
    template: &str,
    last: usize,
) -> Result<Vec<(String, String)>, Option<&'static str>> {
    let mut common: Option<Vec<(String, String)>> = None;
    for line in basis {
        let Some(segment) = line.segments.get(last) else {
            return Err(None);
        };
        let Some(body) = &line.body else {
            return Err(None);
        };
        let found = echo_candidates(body, &decoded(template_value(template, segment)));
        common = Some(match common {
            None => found,
            Some(previous) => previous
                .into_iter()
                .filter(|pair| found.contains(pair))
                .collect(),
        });
    }
    let mut candidates = common.unwrap_or_default();
    if candidates.is_empty() {
        return Err(None);
    }
    // The root first, then an envelope's object, then an array's one item.
    candidates.sort_by_key(|(pointer, field)| {
        (
            !pointer.is_empty(),
            pointer.ends_with("/0"),
            identity_preference(field),
        )
    });
    Ok(candidates)
}

/// The place of the entity among the places echoing the item id (in preference order, see
/// [`echoed_identity`]), and the envelope members echoing it beside the entity: the first, unless
/// that is the root and an envelope's object one level down echoes it too and holds every member
/// the collection's list answers show its entities with (`{"id": 1, "result": {"id": 1, …},
/// "label_columns": {…}}`: the entity is `/result`, the root's `id` an echo of its identity).
/// `listed`: the members the collection's list answers show ([`crate::nesting::named_keys`]).
fn listed_entity(
    listed: &BTreeSet<String>,
    basis: &[&Observation],
    mut candidates: Vec<(String, String)>,
) -> ((String, String), Vec<String>) {
    let root_first = candidates
        .first()
        .is_some_and(|(pointer, _)| pointer.is_empty());
    if root_first {
        let holds_listed = |pointer: &str| {
            !listed.is_empty()
                && listed.iter().all(|key| {
                    basis.iter().any(|line| {
                        line.body
                            .as_ref()
                            .and_then(|body| body.pointer(pointer))
                            .and_then(Json::as_object)
                            .is_some_and(|object| object.contains_key(key))
                    })
                })
        };
        if let Some(at) = candidates.iter().position(|(pointer, _)| {
            !pointer.is_empty() && !pointer.ends_with("/0") && holds_listed(pointer)
        }) {
            let echoes = candidates
                .iter()
                .filter(|(pointer, _)| pointer.is_empty())
                .map(|(_, field)| format!("/{}", escape_pointer_segment(field)))
                .collect();
            return (candidates.swap_remove(at), echoes);
        }
    }
    (candidates.swap_remove(0), Vec::new())
}

/// The collection template of an item template's first `last` segments, with the trailing slash
/// the item template is written with (`/api/series/{numeric}/` is of `/api/series/`, as its list
/// view spells it).
fn collection_template(template: &[&str], last: usize) -> String {
    let slash = if template.len() > last + 1 && template.last() == Some(&"") {
        "/"
    } else {
        ""
    };
    format!("/{}{slash}", template[..last].join("/"))
}

/// A collection template as the collection's list tool spells it: with a trailing slash where a
/// `GET` tool lists the collection so and none spells it without (`/api/v1/task/` listing the
/// items `/api/v1/task/{id}`), so the items and the list are one type.
fn listed_spelling(manifest: &Manifest, template: String) -> String {
    let listed = |path: &str| {
        manifest
            .tools
            .iter()
            .any(|tool| tool.method.eq_ignore_ascii_case("GET") && tool.path_template == path)
    };
    let slashed = format!("{template}/");
    if !template.ends_with('/') && !listed(&template) && listed(&slashed) {
        slashed
    } else {
        template
    }
}

/// Whether a query parameter's name reads like it names an entity (an id, a key, a name, a
/// title, a slug).
fn names_an_entity(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id"
        || lower.ends_with("_id")
        || lower.ends_with("id")
        || lower.contains("uuid")
        || lower.contains("key")
        || lower.contains("name")
        || lower.contains("title")
        || lower.contains("slug")
}

/// `(pointer, field)` pairs where a body holds `value` in an entity object: the entity at the
/// root or one envelope level down, the field a member of it or one level further down (a JSON
/// pointer, `/info/run_id`).
fn nested_echo_candidates(body: &Json, value: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Some(root) = body.as_object() else {
        return found;
    };
    let mut entities: Vec<(String, &Object)> = vec![(String::new(), root)];
    for (key, inner) in root.iter() {
        if let Some(object) = inner.as_object() {
            entities.push((
                format!("/{}", rea_plugin_api::json::escape_pointer_segment(key)),
                object,
            ));
        }
    }
    for (pointer, entity) in entities {
        for (name, member) in entity.iter() {
            if scalar_text(member).as_deref() == Some(value) {
                found.push((pointer.clone(), name.to_owned()));
            }
        }
        for (name, member) in entity.iter() {
            let Some(inner) = member.as_object() else {
                continue;
            };
            for (field, item) in inner.iter() {
                if scalar_text(item).as_deref() == Some(value) {
                    found.push((
                        pointer.clone(),
                        format!(
                            "/{}/{}",
                            rea_plugin_api::json::escape_pointer_segment(name),
                            rea_plugin_api::json::escape_pointer_segment(field)
                        ),
                    ));
                }
            }
        }
    }
    found
}

/// The last name of a field (a member, or a JSON pointer's last segment).
fn field_name(field: &str) -> &str {
    field.rsplit('/').next().unwrap_or(field)
}

/// The value of a query parameter a read gave once.
fn query_value<'a>(observation: &'a Observation, parameter: &str) -> Option<&'a str> {
    let mut values = observation
        .pairs()
        .iter()
        .filter(|(name, _)| name == parameter)
        .map(|(_, value)| value.as_str());
    let first = values.next()?;
    values.next().is_none().then_some(first)
}

/// An item tool whose reads name their entity by a query parameter (see [`ItemKey::Query`]).
fn query_plan(
    tool: &rea_manifest::ManifestTool,
    template: &[&str],
    last: usize,
    lines: &[&Observation],
    index: usize,
    entities: &mut Entities,
) -> Result<ItemPlan, Option<&'static str>> {
    if last == 0 || rea_manifest::segments::template_affixes(template[last]).is_some() {
        return Err(None);
    }
    let (parameter, entity_pointer, field) = echoed_parameter(lines)?;
    let entity_type = format!("/{}", template[..last].join("/"));
    let objects: Vec<&Json> = lines
        .iter()
        .filter_map(|line| line.body.as_ref()?.pointer(&entity_pointer))
        .collect();
    let everywhere = |identity: &str| {
        objects
            .iter()
            .all(|object| identity_value(object, identity).is_some())
    };
    let identity_field = match entities.entity_type(&entity_type) {
        Some(existing) if everywhere(&existing.identity_field) => existing.identity_field.clone(),
        Some(_) => return Err(Some("no-view")),
        None => {
            let identity = query_identity(&field, &objects, everywhere);
            entities.add_type(EntityType::new(
                entity_type.clone(),
                identity.clone(),
                Some(tool.name.clone()),
            ));
            identity
        }
    };
    Ok(ItemPlan {
        tool: index,
        name: tool.name.clone(),
        entity_type,
        identity_field,
        entity_pointer,
        last,
        id_pattern: String::new(),
        key: ItemKey::Query { parameter, field },
        neutral: BTreeSet::new(),
        nesting: None,
        identity_echoes: Vec::new(),
    })
}

/// The `(parameter, pointer, field)` every read echoes (its answer holds, at `pointer`, an object
/// whose `field` is the parameter's value), the best first: an entity in an envelope, a top-level
/// field, an id-like field, the field named as the parameter.
fn echoed_parameter(
    lines: &[&Observation],
) -> Result<(String, String, String), Option<&'static str>> {
    let mut common: Option<Vec<(String, String, String)>> = None;
    for line in lines {
        let body = line.body.as_ref().ok_or(None)?;
        let mut found = Vec::new();
        for (name, _) in line.pairs() {
            if !names_an_entity(name) {
                continue;
            }
            let Some(value) = query_value(line, name) else {
                continue;
            };
            for (pointer, field) in nested_echo_candidates(body, value) {
                found.push((name.clone(), pointer, field));
            }
        }
        common = Some(match common {
            None => found,
            Some(previous) => previous
                .into_iter()
                .filter(|candidate| found.contains(candidate))
                .collect(),
        });
    }
    let mut candidates = common.unwrap_or_default();
    if candidates.is_empty() {
        return Err(None);
    }
    candidates.sort_by(|a, b| {
        let rank = |(parameter, pointer, field): &(String, String, String)| {
            (
                pointer.is_empty(),
                field.starts_with('/'),
                identity_preference(field_name(field)),
                field_name(field) != parameter,
            )
        };
        rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
    });
    Ok(candidates.swap_remove(0))
}

/// The identity of a type a query key introduces: the key's field when it is id-like; a name or
/// title is looked up by, and an id-like member every read carries names the entity.
fn query_identity(field: &str, objects: &[&Json], everywhere: impl Fn(&str) -> bool) -> String {
    if identity_preference(field_name(field)) <= 2 {
        return field.to_owned();
    }
    let mut ids: Vec<String> = objects
        .first()
        .and_then(|object| object.as_object())
        .map(|object| {
            object
                .iter()
                .filter(|(name, value)| {
                    identity_preference(name) <= 1
                        && matches!(value, Json::String(_) | Json::Number(_))
                })
                .map(|(name, _)| name.to_owned())
                .collect()
        })
        .unwrap_or_default();
    ids.retain(|name| everywhere(name));
    ids.sort_by_key(|name| (identity_preference(name), name.clone()));
    ids.into_iter().next().unwrap_or_else(|| field.to_owned())
}

/// Whether a read names its entity and nothing else: no query (or only `neutral` parameters,
/// see [`neutral_names`]) for a path key, only the key
/// parameter for a query key (what seeds entities and picks the envelope).
pub(crate) fn is_plain(
    key: &ItemKey,
    neutral: &BTreeSet<String>,
    observation: &Observation,
) -> bool {
    match key {
        ItemKey::Path => observation
            .pairs()
            .iter()
            .all(|(name, _)| neutral.contains(name)),
        ItemKey::Query { parameter, .. } => {
            observation.pairs().len() == 1 && observation.pairs()[0].0 == *parameter
        }
    }
}

/// The query parameters of a path-keyed item tool that the capture shows changing nothing of
/// the answer: a read of a path naming them answered exactly as a read of that path without a
/// query did (`?write=true` beside the plain read: the same status and body, a document whose
/// revision two writes would have changed).
pub(crate) fn neutral_names(timeline: &Timeline, tool: usize) -> BTreeSet<String> {
    let reads: Vec<&Observation> = timeline
        .all(tool)
        .filter(|read| read.is_success() && read.body.is_some())
        .collect();
    // Per path, the (status, body) of its plain reads.
    let mut plain: BTreeMap<&str, Vec<(u16, &Json)>> = BTreeMap::new();
    for read in reads.iter().filter(|read| read.query.is_none()) {
        if let Some(body) = &read.body {
            plain
                .entry(read.path.as_str())
                .or_default()
                .push((read.status, body));
        }
    }
    let mut shown = BTreeSet::new();
    for read in reads.iter().filter(|read| !read.pairs().is_empty()) {
        let alike = plain.get(read.path.as_str()).is_some_and(|answers| {
            answers
                .iter()
                .any(|(status, body)| *status == read.status && read.body.as_ref() == Some(*body))
        });
        if alike {
            shown.extend(read.pairs().iter().map(|(name, _)| name.clone()));
        }
    }
    shown
}

/// The collection an item read names: its path before the identity segment.
fn collection_of(observation: &Observation, last: usize) -> String {
    format!("/{}", observation.segments[..last].join("/"))
}

/// The entity object of a read (flat, when the view nests its properties) and its id, when the
/// read shows the one it names.
fn entity_of<'a>(plan: &ItemPlan, observation: &'a Observation) -> Option<(Cow<'a, Json>, String)> {
    let shown = observation.body.as_ref()?.pointer(&plan.entity_pointer)?;
    let object = match &plan.nesting {
        Some(nesting) => Cow::Owned(nesting.flatten(&plan.identity_field, shown)?),
        None => Cow::Borrowed(shown),
    };
    let id = crate::render::identity_text(&object, &plan.identity_field)?;
    let (named, shown) = match &plan.key {
        ItemKey::Path => (
            decoded(template_value(
                &plan.id_pattern,
                observation.segments.get(plan.last)?,
            )),
            id.clone(),
        ),
        ItemKey::Query { parameter, field } => (
            query_value(observation, parameter)?.to_owned(),
            crate::render::identity_text(&object, field)?,
        ),
    };
    (named == shown).then_some((object, id))
}

/// Whether a path-keyed read's query only restates the entity it answers: every pair names a
/// top-level member of the entity holding that very value (`?type=file&format=text` answering
/// `{"type": "file", "format": "text", …}`), so the answer is the entity as a plain read shows it.
fn query_restates_entity(key: &ItemKey, pairs: &[(String, String)], object: &Json) -> bool {
    let (ItemKey::Path, Json::Object(members)) = (key, object) else {
        return false;
    };
    !pairs.is_empty()
        && pairs.iter().all(|(name, value)| {
            members
                .get(name)
                .and_then(scalar_text)
                .is_some_and(|shown| shown == *value)
        })
}

/// The query parameters the passing reads named only where their query restated the entity
/// they answered (see [`query_restates_entity`]), sorted.
fn restated_names(plan: &ItemPlan, passing: &[&Observation]) -> Vec<String> {
    let mut restated = BTreeSet::new();
    let mut otherwise = BTreeSet::new();
    for line in passing {
        let restates = entity_of(plan, line)
            .is_some_and(|(object, _)| query_restates_entity(&plan.key, line.pairs(), &object));
        let names = if restates {
            &mut restated
        } else {
            &mut otherwise
        };
        names.extend(line.pairs().iter().map(|(name, _)| name.clone()));
    }
    restated.difference(&otherwise).cloned().collect()
}

/// Seeds entities from the tool's plain reads in the observation window (latest read wins), and
/// from reads whose query only restates the entity they answer ([`query_restates_entity`]).
pub fn seed(timeline: &Timeline, plan: &ItemPlan, entities: &mut Entities) {
    for observation in timeline.checked(plan.tool) {
        if !observation.is_success() {
            continue;
        }
        let Some((object, id)) = entity_of(plan, observation) else {
            continue;
        };
        if !is_plain(&plan.key, &plan.neutral, observation)
            && !query_restates_entity(&plan.key, observation.pairs(), &object)
        {
            continue;
        }
        if marked_deleted(&object) {
            continue;
        }
        entities.observe(
            &plan.entity_type,
            &collection_of(observation, plan.last),
            &id,
            &object,
            (observation.ordinal, observation.position),
            true,
        );
    }
}

/// An item view's checked reads matched against the entities.
#[derive(Default)]
struct MatchedReads<'a> {
    passing: Vec<&'a Observation>,
    failing: Vec<&'a Observation>,
    /// The field selections the passing reads made, with the fields each showed.
    projections: Vec<Projection>,
    /// The passing reads that made a field selection, sorted.
    projected_record_ordinals: Vec<u64>,
}

/// Verifies an item view against its checked reads: each read must render from the state as
/// recorded (or show the fields a selection asked for), the envelope of a plain read holds the
/// rendered entity within the reply limit, and the fields every read carried are required.
pub fn verify(timeline: &Timeline, plan: ItemPlan, entities: &mut Entities) -> ViewDetail {
    let lines = latest_lines(timeline, plan.tool);
    let shape = ViewShape::default();
    let matched = match_reads(&plan, &lines, &shape, entities);
    if matched.passing.is_empty() {
        return recorded("item-differs");
    }
    let Some(projected_query_keys) = projected_keys(&matched.passing, &matched.failing) else {
        return recorded("item-differs");
    };
    let passing = &matched.passing;
    let envelope = passing
        .iter()
        .rev()
        .find(|line| is_plain(&plan.key, &plan.neutral, line))
        .unwrap_or(&passing[passing.len() - 1]);
    let mut per_response_members = differing_envelope_members(&plan.entity_pointer, passing);
    if let Some(nesting) = &plan.nesting {
        // Every answer of the tool, also those after writes: a member beside the properties
        // that two answers spell differently is each answer's own (an entity tag).
        let shown: Vec<&Json> = timeline
            .all(plan.tool)
            .filter(|line| line.is_success())
            .filter_map(|line| line.body.as_ref()?.pointer(&plan.entity_pointer))
            .collect();
        per_response_members.extend(nesting.minted(
            &plan.identity_field,
            &plan.entity_pointer,
            &shown,
        ));
    }
    if renders_oversize(&plan, passing, envelope) {
        return recorded("rendered-oversize");
    }
    let required = required_fields(timeline, &plan, &matched);
    let restated_query = restated_names(&plan, passing);
    let (missing_ordinal, malformed_ordinal) = error_answers(timeline, &plan, entities);
    let mut checked_ordinals: Vec<u64> = passing.iter().map(|line| line.ordinal).collect();
    checked_ordinals.sort_unstable();
    ViewDetail::Item(ItemView {
        entity_type: plan.entity_type,
        identity_field: plan.identity_field,
        key: plan.key,
        entity_pointer: plan.entity_pointer,
        envelope_ordinal: envelope.ordinal,
        missing_ordinal,
        malformed_ordinal,
        checked_ordinals,
        per_response_members,
        projected_query_keys,
        projected_record_ordinals: matched.projected_record_ordinals,
        projections: matched.projections,
        restated_query,
        neutral_query: plan.neutral.iter().cloned().collect(),
        nesting: plan.nesting,
        identity_echoes: plan.identity_echoes,
        digests: Vec::new(),
        selection: None,
        relations: Vec::new(),
        joins: Vec::new(),
        embedded_links: Vec::new(),
        parent: None,
        shape: ViewShape {
            required_fields: required.unwrap_or_default().into_iter().collect(),
            ..shape
        },
    })
}

/// The recorded errors answering an entity the state lacks: the tool's latest error answering a
/// missing entity, or, where ids of no held form were answered otherwise
/// ([`crate::id_forms`]), the latest answering an id of a held form and that other answer.
fn error_answers(
    timeline: &Timeline,
    plan: &ItemPlan,
    entities: &Entities,
) -> (Option<u64>, Option<u64>) {
    let latest_missing = timeline
        .all(plan.tool)
        .filter(|observation| shows_missing(timeline, observation))
        .max_by_key(|observation| observation.position)
        .map(|observation| observation.ordinal);
    if !matches!(plan.key, ItemKey::Path) {
        return (latest_missing, None);
    }
    let held = crate::id_forms::forms(
        (entities.list.iter())
            .filter(|entity| entity.entity_type == plan.entity_type)
            .map(|entity| entity.id.as_str()),
    );
    crate::id_forms::learn(timeline, latest_missing, &held)
        .map_or((latest_missing, None), |(missing, malformed)| {
            (Some(missing), Some(malformed))
        })
}

/// Whether a failing read shows the answer for an entity the state does not hold: a `400`, `404`
/// or `410`, or another client error (not `401`, `407` or `429`: credentials and rate) reading
/// the path a delete the capture recorded succeeding removed before it (an application that
/// answers `403` for an item that does not exist).
pub(crate) fn shows_missing(timeline: &Timeline, observation: &Observation) -> bool {
    match observation.status {
        400 | 404 | 410 => true,
        401 | 407 | 429 => false,
        402..=499 => deleted_before(timeline, observation),
        _ => false,
    }
}

/// Whether a successful `DELETE` of the observation's path comes before it.
fn deleted_before(timeline: &Timeline, observation: &Observation) -> bool {
    timeline.by_ordinal.values().any(|other| {
        other.method.eq_ignore_ascii_case("DELETE")
            && other.is_success()
            && other.position < observation.position
            && other.segments == observation.segments
    })
}

/// Each checked read passes when the entity it names renders from the state as it showed it (a
/// deleted one: the state holds none), or when a field selection showed the entity with fewer
/// fields consistently with the other reads making that selection.
fn match_reads<'a>(
    plan: &ItemPlan,
    lines: &[&'a Observation],
    shape: &ViewShape,
    entities: &Entities,
) -> MatchedReads<'a> {
    let mut matched = MatchedReads::default();
    for line in lines {
        let Some((object, id)) = entity_of(plan, line) else {
            matched.failing.push(*line);
            continue;
        };
        let held = entities.find(&plan.entity_type, &collection_of(line, plan.last), &id);
        let object = object.as_ref();
        let agrees = if marked_deleted(object) {
            held.is_none()
        } else {
            held.is_some_and(|index| {
                render_entity(shape, &plan.name, &entities.list[index]) == *object
            })
        };
        if agrees {
            matched.passing.push(*line);
            continue;
        }
        // A read asking for some fields only that showed the entity with fewer of them.
        let projected = selects_fields(line.pairs())
            .then(|| {
                let rendered = render_entity(shape, &plan.name, &entities.list[held?]);
                let fields: Vec<String> = object.as_object()?.keys().map(str::to_owned).collect();
                let fewer = rendered.as_object()?.len() > fields.len();
                (fewer && project_to(&rendered, &fields) == *object).then_some(fields)
            })
            .flatten();
        let passes = projected.is_some_and(|fields| matched.add_projection(line, fields));
        if passes {
            matched.passing.push(*line);
        } else {
            matched.failing.push(*line);
        }
    }
    matched.projected_record_ordinals.sort_unstable();
    matched
}

impl MatchedReads<'_> {
    /// Notes a read's field selection and the fields it showed, unless another read making the
    /// same selection showed other fields.
    fn add_projection(&mut self, line: &Observation, fields: Vec<String>) -> bool {
        let query: Vec<(String, String)> = line
            .pairs()
            .iter()
            .filter(|(name, _)| crate::query::is_projection(name.as_str()))
            .cloned()
            .collect();
        let consistent = self
            .projections
            .iter()
            .all(|known| known.query != query || known.fields == fields);
        if !consistent {
            return false;
        }
        if !self.projections.iter().any(|known| known.query == query) {
            self.projections.push(Projection { query, fields });
        }
        self.projected_record_ordinals.push(line.ordinal);
        true
    }
}

/// Whether some recorded answer does not fit a reply once rendered into the envelope.
fn renders_oversize(plan: &ItemPlan, passing: &[&Observation], envelope: &Observation) -> bool {
    passing.iter().any(|line| {
        let Some((object, _)) = entity_of(plan, line) else {
            return false;
        };
        let body = envelope.body.clone().unwrap_or_default();
        let object = match (&plan.nesting, body.pointer(&plan.entity_pointer)) {
            (Some(nesting), Some(shell)) => nesting.nest(&plan.identity_field, shell, &object),
            _ => object.into_owned(),
        };
        with_value_at(body, &plan.entity_pointer, object)
            .to_canonical_vec()
            .len()
            > rea_manifest::REPLY_BODY_LIMIT
    })
}

/// The fields every passing read without a field selection showed; a read after the
/// observation window that leaves a field out shows the application may leave it out (a created
/// entity without an optional field): that field is not required.
fn required_fields(
    timeline: &Timeline,
    plan: &ItemPlan,
    matched: &MatchedReads<'_>,
) -> Option<BTreeSet<String>> {
    let mut required: Option<BTreeSet<String>> = None;
    for line in &matched.passing {
        if matched.projected_record_ordinals.contains(&line.ordinal) {
            continue;
        }
        if let Some((object, _)) = entity_of(plan, line)
            && let Json::Object(object) = object.as_ref()
        {
            if marked_deleted(&Json::Object(object.clone())) {
                continue;
            }
            let keys: BTreeSet<String> = object.keys().map(str::to_owned).collect();
            required = Some(match required {
                None => keys,
                Some(previous) => previous.intersection(&keys).cloned().collect(),
            });
        }
    }
    for observation in timeline.all(plan.tool) {
        if timeline.is_checked(observation)
            || !observation.is_success()
            || !is_plain(&plan.key, &plan.neutral, observation)
        {
            continue;
        }
        if let Some((object, _)) = entity_of(plan, observation)
            && let Json::Object(object) = object.as_ref()
            && !marked_deleted(&Json::Object(object.clone()))
            && let Some(previous) = required.as_mut()
        {
            previous.retain(|key| object.contains_key(key));
        }
    }
    required
}

/// Top-level envelope members (outside the pointer's own member) whose values differ across
/// reads: values each response minted.
pub(crate) fn differing_envelope_members(pointer: &str, lines: &[&Observation]) -> Vec<String> {
    let Some(own) = pointer.strip_prefix('/') else {
        return Vec::new();
    };
    let own = own.split('/').next().unwrap_or("");
    let envelopes: Vec<&Object> = lines
        .iter()
        .filter_map(|line| line.body.as_ref().and_then(Json::as_object))
        .collect();
    let mut values: BTreeMap<&str, Vec<Option<&Json>>> = BTreeMap::new();
    for envelope in &envelopes {
        for key in envelope.keys() {
            values.entry(key).or_default();
        }
    }
    let mut differing = Vec::new();
    for (key, _) in values {
        if rea_plugin_api::json::escape_pointer_segment(key) == own {
            continue;
        }
        let first = envelopes[0].get(key);
        if envelopes.iter().any(|envelope| envelope.get(key) != first) {
            differing.push(format!(
                "/{}",
                rea_plugin_api::json::escape_pointer_segment(key)
            ));
        }
    }
    differing
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parsed;

    #[test]
    fn an_entity_is_echoed_at_the_root_in_an_envelope_or_as_an_arrays_one_item() {
        let root = parsed(r#"{"id": 7, "title": "x"}"#);
        assert_eq!(echo_candidates(&root, "7"), [(String::new(), "id".into())]);
        let envelope = parsed(r#"{"data": {"id": 7}}"#);
        assert_eq!(
            echo_candidates(&envelope, "7"),
            [("/data".into(), "id".into())]
        );
        let row_page = parsed(r#"{"ok": true, "rows": [{"id": 7, "title": "x"}]}"#);
        assert_eq!(
            echo_candidates(&row_page, "7"),
            [("/rows/0".into(), "id".into())]
        );
        // An array of several items, or of scalars, holds no one entity.
        let list = parsed(r#"{"rows": [{"id": 7}, {"id": 8}], "keys": ["7"]}"#);
        assert!(echo_candidates(&list, "7").is_empty());
        // A compound key no one member echoes: the members it fuses.
        let compound = parsed(r#"{"rows": [{"task_id": 5, "tag": "release"}], "ok": true}"#);
        assert_eq!(
            echo_candidates(&compound, "5,release"),
            [("/rows/0".into(), "{task_id},{tag}".into())]
        );
    }

    fn pairs(query: &[(&str, &str)]) -> Vec<(String, String)> {
        query
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn a_query_restates_the_entity_when_every_pair_is_a_member_holding_its_value() {
        let file = parsed(r#"{"path": "a.csv", "type": "file", "format": "text", "size": 3}"#);
        let restating = pairs(&[("type", "file"), ("format", "text")]);
        assert!(query_restates_entity(&ItemKey::Path, &restating, &file));
        // A number member restates its text.
        assert!(query_restates_entity(
            &ItemKey::Path,
            &pairs(&[("size", "3")]),
            &file
        ));
        // Another value, a parameter no member holds, or no query at all restate nothing.
        for query in [
            pairs(&[("type", "file"), ("format", "base64")]),
            pairs(&[("type", "file"), ("content", "1")]),
            Vec::new(),
        ] {
            assert!(
                !query_restates_entity(&ItemKey::Path, &query, &file),
                "{query:?}"
            );
        }
        // A query key names the entity: its pairs are no restatement.
        let key = ItemKey::Query {
            parameter: "type".into(),
            field: "type".into(),
        };
        assert!(!query_restates_entity(
            &key,
            &pairs(&[("type", "file")]),
            &file
        ));
    }
}
