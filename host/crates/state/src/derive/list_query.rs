//! A list view's query model: the roles (filter, sort, page, inert, …; see [`crate::query`]) its
//! query parameters play, learned as the roles that reproduce every recorded query line from
//! the state, and the envelope members holding the number of matches (totals).
//!
//! Lines with fewer parameters fix roles first; each line tries the combinations of its
//! parameters' candidate roles (at most 256) that keep every line answered so far reproduced. A
//! line no combination reproduces gives its parameters up (or only the one parameter that may be
//! inert and is not established), and the search starts again without them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use super::entities::{Entities, collection_key};
use super::lists::{ListPlan, listed_collection, pages_only, scalar_pointers};
use super::query_grammar::type_scalar_fields;
use crate::model::{
    CursorForm, CursorMember, ListLine, PageArithmetic, PagedMember, QueryModel, QueryRole,
};
use crate::observation::Observation;
use crate::page_cursor::{
    PageEnd, Position, ShownPage, candidate_forms, link_only_names, page_link_forms,
    page_link_forms_sized,
};
use crate::page_envelope::{PageEnvelope, PagedRead, shown_identity};
use crate::query::{Evaluated, candidate_roles, field_value, order_matches, sort_keys};
use crate::query_terms::expand;
use crate::render::counts_canonically;
use crate::rules::RuleSet;

/// The object a query's filters read: the fields with the view's values set over them (nothing
/// hidden).
fn query_object(entities: &Entities, view: &str, index: usize) -> Object {
    let entity = &entities.list[index];
    let mut object = entity.fields.as_object().cloned().unwrap_or_default();
    if let Some(Json::Object(overlay)) = entity.view_fields.get(view) {
        for (key, value) in overlay.iter() {
            object.insert(key, value.clone());
        }
    }
    object
}

/// A query line: its arguments, the collection it reads, and the members it listed.
struct QueryLine<'a> {
    observation: &'a Observation,
    arguments: Vec<(String, String)>,
    expected: Vec<usize>,
    /// The collection's key: its entities are the candidates.
    collection: String,
}

/// Evaluates query lines, remembering the ordered matches of each filter-and-sort (lines that
/// differ only in their page share them), so paged reads of a large collection cost one
/// evaluation, not one each.
struct Evaluator<'a> {
    collections: HashMap<String, (Vec<usize>, Vec<&'a Object>)>,
    memo: HashMap<String, Option<Vec<usize>>>,
    /// Whether sorts place null keys first (see [`QueryModel::nulls_first`]).
    nulls_first: bool,
    /// The page size a line naming none is cut at (see [`QueryModel::default_page_size`]).
    default_page_size: Option<u32>,
    /// The sort a line naming none lists in (see [`QueryModel::default_sort`]).
    default_sort: Option<Box<str>>,
    /// The key sorts break ties by (see [`QueryModel::tie_order`]).
    tie_order: Option<Box<str>>,
    /// The page size value asking for no bound (see [`QueryModel::unbounded_page_size`]).
    unbounded_page_size: Option<u32>,
    /// Whether sorts may repeat (see [`QueryModel::repeated_sort`]): set only to test the lines
    /// repeating one, after the roles are chosen.
    repeated_sort: bool,
}

impl<'a> Evaluator<'a> {
    /// How many entities a line's collection holds.
    fn size(&self, collection: &str) -> Option<usize> {
        self.collections
            .get(collection)
            .map(|(_, candidates)| candidates.len())
    }

    /// The query model of these roles with the evaluator's sort and page settings.
    fn model(&self, parameters: BTreeMap<String, QueryRole>) -> QueryModel {
        QueryModel {
            parameters,
            nulls_first: self.nulls_first,
            default_page_size: self.default_page_size,
            default_sort: self.default_sort.clone(),
            tie_order: self.tie_order.clone(),
            unbounded_page_size: self.unbounded_page_size,
            repeated_sort: self.repeated_sort,
            ..QueryModel::of_roles(&[])
        }
    }

    fn evaluates_to(
        &mut self,
        parameters: &BTreeMap<String, QueryRole>,
        line: &QueryLine<'_>,
    ) -> Option<Evaluated> {
        let model = self.model(parameters.clone());
        let (indexes, candidates) = self.collections.get(&line.collection)?;
        let mut selecting: Vec<(String, String)> = Vec::new();
        for (name, value) in &line.arguments {
            let role = parameters.get(name)?;
            if !crate::query::is_paging(role) {
                selecting.push((name.clone(), value.clone()));
            }
        }
        let paging_only: Vec<(String, String)> = line
            .arguments
            .iter()
            .filter(|(name, _)| parameters.get(name).is_some_and(crate::query::is_paging))
            .cloned()
            .collect();
        let selection_key = {
            let mut key = line.collection.clone();
            for (name, value) in &selecting {
                key.push_str(&format!(
                    "\u{0}{name}\u{0}{value}\u{0}{:?}",
                    parameters.get(name)
                ));
            }
            key
        };
        let matched = match self.memo.get(&selection_key) {
            Some(matched) => matched.clone(),
            None => {
                let matched =
                    order_matches(&model, &selecting, candidates).map(|(matched, _)| matched);
                self.memo.insert(selection_key, matched.clone());
                matched
            }
        }?;
        let (_, paging) = order_matches(&model, &paging_only, &[])?;
        let members = paging.apply(&matched)?;
        let listed: Vec<usize> = members.iter().map(|position| indexes[*position]).collect();
        (listed == line.expected).then_some(Evaluated {
            members,
            matched: matched.len(),
        })
    }
}

/// Learns parameter roles that reproduce the recorded query lines (see the module docs).
pub(super) fn learn_query(
    plan: &ListPlan,
    view: &str,
    passing: &[&Observation],
    counters: &[String],
    entities: &Entities,
    (rules, whole_lines, others): (&RuleSet, &[ListLine], &[&Observation]),
) -> Option<QueryModel> {
    let has_whole = passing.iter().any(|observation| {
        pages_only(observation) && listed_collection(&observation.path, &plan.entity_type).is_some()
    });
    let fields = type_scalar_fields(&entities.list, &plan.entity_type);
    let QueryLines {
        lines,
        mut objects,
        collections,
        term_roles,
    } = query_lines(
        plan,
        view,
        passing,
        entities,
        (rules, &fields, &left_out(whole_lines)),
    );
    if lines.is_empty() {
        return None;
    }
    let (links, untested) = learn_links((&lines, others), &mut objects, entities);
    crate::joins::with_linked_entities(objects.values_mut(), &entities.list);
    let mut options = role_options(&lines, &objects, has_whole, &term_roles);
    // A value naming a linked entity by its key is the stronger evidence: tried first.
    for (name, mut roles) in links {
        let others = options.remove(&name).unwrap_or_default();
        roles.extend(others);
        options.insert(name, roles);
    }
    let default_page = (
        super::default_page::learned(passing, plan, entities),
        super::default_page::learned_sort(passing, plan, entities).map(String::into_boxed_str),
        super::default_page::unbounded_size(passing, plan, entities),
    );
    // A line asking for no bound shows envelope members (the bound it applied) no argument
    // says: it teaches no role.
    let unbounded = |line: &QueryLine<'_>| {
        line.arguments.iter().any(|(name, value)| {
            crate::query::spelled_in(&crate::query::PAGE_SIZE_NAMES, name)
                && default_page
                    .2
                    .is_some_and(|size| size.to_string() == *value)
        })
    };
    let untestable: BTreeSet<usize> = (0..lines.len())
        .filter(|index| {
            sorts_unheld_keys(&lines[*index].arguments, &options, &objects)
                || unbounded(&lines[*index])
        })
        .collect();
    let identity = entities
        .entity_type(&plan.entity_type)
        .map_or("", |entity_type| entity_type.identity_field.as_str());
    let (mut evaluator, (mut chosen, answered)) = choose_with_null_placement(
        (&lines, identity),
        &options,
        &untestable,
        (&objects, &collections),
        default_page,
    )?;
    let untested = crate::link_filters::untested_roles(&chosen, &untested);
    chosen.extend(untested);
    let mut model = query_model(plan, counters, &lines, chosen, &answered, &mut evaluator)?;
    model.repeated_sort = learns_repeated_sort(plan, passing, &model, &mut evaluator);
    Some(model)
}

/// Whether the list's recorded lines repeating a sort parameter teach that its sorts repeat
/// (see [`super::repeated_sort`]), each tested as [`query_lines`] reads a line (its selection
/// left out) over the collection the other lines read.
fn learns_repeated_sort(
    plan: &ListPlan,
    passing: &[&Observation],
    model: &QueryModel,
    evaluator: &mut Evaluator<'_>,
) -> bool {
    let mut lines = Vec::new();
    for observation in passing {
        let arguments: Vec<(String, String)> = (observation.pairs().iter())
            .filter(|(name, _)| !crate::query::is_projection(name))
            .cloned()
            .collect();
        let listed = listed_collection(&observation.path, &plan.entity_type);
        let (Some(listed), Some(expected)) = (listed, plan.members.get(&observation.ordinal))
        else {
            continue;
        };
        if !super::repeated_sort::repeated_names(&arguments).is_empty() {
            lines.push((
                observation,
                arguments,
                expected,
                collection_key(&listed).to_owned(),
            ));
        }
    }
    evaluator.repeated_sort = true;
    let shown: Vec<Vec<(String, String)>> = (lines.iter())
        .map(|(_, arguments, ..)| arguments.clone())
        .collect();
    let learned = super::repeated_sort::learned(model, &shown, |index, arguments| {
        let (observation, _, expected, collection) = &lines[index];
        let line = QueryLine {
            observation,
            arguments: arguments.to_vec(),
            expected: expected.to_vec(),
            collection: collection.clone(),
        };
        evaluator.evaluates_to(&model.parameters, &line).is_some()
    });
    evaluator.repeated_sort = false;
    learned
}

/// A list's default page size, default sort and the page size value asking for no bound (see
/// [`super::default_page`]).
type DefaultPage = (Option<u32>, Option<Box<str>>, Option<u32>);

/// The roles chosen and the lines they answered (see [`choose_roles`]).
type ChosenRoles = (BTreeMap<String, QueryRole>, Vec<usize>);

/// The roles that reproduce the most lines (see [`choose_roles`]) with their evaluator: sorts
/// placing null keys last, or first where that answers more lines (see
/// [`QueryModel::nulls_first`]), and breaking ties in the state's order, or by the identity
/// (`identity`, the type's identity member) where that answers more lines (see
/// [`super::tie_order`]). The first placement answering every testable line is taken.
fn choose_with_null_placement<'o>(
    (lines, identity): (&[QueryLine<'_>], &str),
    options: &BTreeMap<String, Vec<QueryRole>>,
    untestable: &BTreeSet<usize>,
    (objects, collections): (&'o HashMap<usize, Object>, &HashMap<String, Vec<usize>>),
    (default_page_size, default_sort, unbounded_page_size): DefaultPage,
) -> Option<(Evaluator<'o>, ChosenRoles)> {
    let evaluator = |nulls_first: bool, tie_order: Option<Box<str>>| Evaluator {
        collections: collections
            .iter()
            .map(|(key, indexes)| {
                let candidates = indexes.iter().map(|index| &objects[index]).collect();
                (key.clone(), (indexes.clone(), candidates))
            })
            .collect(),
        memo: HashMap::new(),
        nulls_first,
        default_page_size,
        default_sort: default_sort.clone(),
        tie_order,
        unbounded_page_size,
        repeated_sort: false,
    };
    let testable = lines.len() - untestable.len();
    let answers =
        |found: &Option<ChosenRoles>| found.as_ref().map_or(0, |(_, answered)| answered.len());
    let mut best: Option<(Evaluator<'o>, ChosenRoles)> = None;
    for tie_order in tie_orders(lines, options, identity, &evaluator(false, None)) {
        for nulls_first in [false, true] {
            let mut trial = evaluator(nulls_first, tie_order.clone());
            let chosen = choose_roles(lines, options, untestable, &mut trial);
            let count = answers(&chosen);
            if count == testable {
                return chosen.map(|chosen| (trial, chosen));
            }
            let best_count = best.as_ref().map_or(0, |(_, (_, answered))| answered.len());
            if count > best_count {
                best = chosen.map(|chosen| (trial, chosen));
            }
        }
    }
    best
}

/// The tie orders tried, in order: the state's (`None`), then, when some line names a parameter
/// that may sort, the identity's directions that order some collection otherwise (see
/// [`super::tie_order::candidates`]).
fn tie_orders(
    lines: &[QueryLine<'_>],
    options: &BTreeMap<String, Vec<QueryRole>>,
    identity: &str,
    evaluator: &Evaluator<'_>,
) -> Vec<Option<Box<str>>> {
    let may_sort = lines.iter().any(|line| {
        line.arguments.iter().any(|(name, _)| {
            options
                .get(name)
                .is_some_and(|roles| roles.contains(&QueryRole::Sort))
        })
    });
    let mut tie_orders = vec![None];
    if may_sort {
        let collections = evaluator
            .collections
            .values()
            .map(|(_, candidates)| candidates.as_slice());
        tie_orders.extend(
            super::tie_order::candidates(identity, collections)
                .into_iter()
                .map(|tie_order| Some(tie_order.into_boxed_str())),
        );
    }
    tie_orders
}

/// The roles link parameters may play, by name, and the links learned for names only the
/// list's other recorded lines named.
type LearnedLinks = (
    BTreeMap<String, Vec<QueryRole>>,
    BTreeMap<String, Vec<crate::link_filters::LinkField>>,
);

/// The link filters the lines' parameters may be (see [`crate::link_filters`]), by name, with
/// each learned link's values set over the objects the lines read; and the links learned from
/// the values of parameters only the list's other recorded lines (`others`: lines that test no
/// role, such as those after the writes) named.
fn learn_links(
    (lines, others): (&[QueryLine<'_>], &[&Observation]),
    objects: &mut HashMap<usize, Object>,
    entities: &Entities,
) -> LearnedLinks {
    let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines {
        for (name, value) in &line.arguments {
            values.entry(name.clone()).or_default().push(value.clone());
        }
    }
    let mut other_values: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in others.iter().flat_map(|observation| observation.pairs()) {
        if !values.contains_key(name) && !crate::query::is_projection(name) {
            other_values
                .entry(name.clone())
                .or_default()
                .push(value.clone());
        }
    }
    let held: Vec<&crate::model::Entity> = entities.list.iter().collect();
    let (learned, untested) = {
        let listed: Vec<&Object> = objects.values().collect();
        (
            crate::link_filters::learn(&values, &listed, &held),
            crate::link_filters::learn(&other_values, &listed, &held),
        )
    };
    let links: BTreeSet<_> = learned
        .values()
        .chain(untested.values())
        .flatten()
        .cloned()
        .collect();
    crate::link_filters::with_links(objects.values_mut(), &links, &held);
    (crate::link_filters::roles(&learned, &values), untested)
}

/// The entities (collection key, id) a whole line of the list left out of the collection it
/// lists: what the application's plain list never shows (a system record, say), so its queries
/// are evaluated without them.
pub(crate) fn left_out(lines: &[ListLine]) -> BTreeSet<(String, String)> {
    lines
        .iter()
        .filter(|line| line.whole)
        .flat_map(|line| &line.excluded)
        .map(|member| {
            (
                collection_key(&member.collection).to_owned(),
                member.id.clone(),
            )
        })
        .collect()
}

/// The entities (indexes, in state order) of a type's collection a list's queries read: those
/// its whole lines did not leave out.
fn kept_members(
    entities: &Entities,
    (entity_type, listed): (&str, &str),
    left_out: &BTreeSet<(String, String)>,
) -> Vec<usize> {
    entities
        .collection(entity_type, listed)
        .iter()
        .copied()
        .filter(|index| {
            let entity = &entities.list[*index];
            !left_out.contains(&(
                collection_key(&entity.collection).to_owned(),
                entity.id.clone(),
            ))
        })
        .collect()
}

/// The passing lines with a query on the type's collection (each parameter named once), the
/// query object of each entity their collections hold (by index), and each collection's
/// entities.
#[derive(Default)]
struct QueryLines<'a> {
    lines: Vec<QueryLine<'a>>,
    objects: HashMap<usize, Object>,
    collections: HashMap<String, Vec<usize>>,
    /// The roles the query grammars offered the terms of split expressions (by term name).
    term_roles: BTreeMap<String, Vec<QueryRole>>,
}

/// The passing lines' query lines; each expression parameter a query grammar splits (given the
/// type's fields) becomes its terms.
fn query_lines<'a>(
    plan: &ListPlan,
    view: &str,
    passing: &[&'a Observation],
    entities: &Entities,
    (rules, fields, left_out): (&RuleSet, &[String], &BTreeSet<(String, String)>),
) -> QueryLines<'a> {
    let mut found = QueryLines::default();
    for observation in passing {
        let Some(listed) = observation
            .query
            .as_ref()
            .and_then(|_| listed_collection(&observation.path, &plan.entity_type))
        else {
            continue;
        };
        // A selection of fields changes what members show, not which: left out.
        let unselected: Vec<(String, String)> = observation
            .pairs()
            .iter()
            .filter(|(name, _)| !crate::query::is_projection(name))
            .cloned()
            .collect();
        let expanded = expand(rules, &unselected, fields);
        // A line holding a disjunction teaches no role: learning reads the terms as one
        // conjunction.
        if !expanded.groups.is_empty() {
            continue;
        }
        for (name, roles) in expanded.candidates {
            found.term_roles.entry(name).or_insert(roles);
        }
        let arguments: Vec<(String, String)> = expanded.pairs;
        let names: BTreeSet<&str> = arguments.iter().map(|(name, _)| name.as_str()).collect();
        // A line naming nothing but a selection teaches no role (as a line with no query).
        if arguments.is_empty() || names.len() != arguments.len() {
            continue;
        }
        let collection = collection_key(&listed).to_owned();
        if !found.collections.contains_key(&collection) {
            let candidates = kept_members(entities, (&plan.entity_type, &listed), left_out);
            for index in &candidates {
                found
                    .objects
                    .entry(*index)
                    .or_insert_with(|| query_object(entities, view, *index));
            }
            found.collections.insert(collection.clone(), candidates);
        }
        found.lines.push(QueryLine {
            observation,
            arguments,
            expected: plan.members[&observation.ordinal].clone(),
            collection,
        });
    }
    found
}

/// Each parameter's candidate roles; a parameter no name proposes a role for may change nothing
/// the list shows, when a whole line of the collection shows what "nothing" is.
fn role_options(
    lines: &[QueryLine<'_>],
    objects: &HashMap<usize, Object>,
    has_whole: bool,
    term_roles: &BTreeMap<String, Vec<QueryRole>>,
) -> BTreeMap<String, Vec<QueryRole>> {
    let has_field = |field: &str| {
        objects
            .values()
            .any(|object| field_value(object, field).is_some())
    };
    let mut options: BTreeMap<String, Vec<QueryRole>> = BTreeMap::new();
    for line in lines {
        for (name, _) in &line.arguments {
            options.entry(name.clone()).or_insert_with(|| {
                let mut roles = match term_roles.get(name) {
                    Some(offered) if !offered.is_empty() => return offered.clone(),
                    _ => with_cursor_keys(candidate_roles(name, &has_field), objects),
                };
                // A page-size name may also be a flag that changes nothing listed (Parse's
                // `count=1`, asking for the number matched beside the page), tried last.
                if has_whole && (roles.is_empty() || roles == [QueryRole::PageSize]) {
                    roles.push(QueryRole::Inert { values: Vec::new() });
                }
                if !roles.contains(&QueryRole::Sort)
                    && lists_sort_keys(recorded_values(lines, name), &has_field)
                {
                    roles.push(QueryRole::Sort);
                }
                roles
            });
        }
    }
    options
}

/// The values the lines give a parameter.
fn recorded_values<'a>(lines: &'a [QueryLine<'_>], name: &'a str) -> impl Iterator<Item = &'a str> {
    lines.iter().flat_map(move |line| {
        line.arguments
            .iter()
            .filter(move |(named, _)| named == name)
            .map(|(_, value)| value.as_str())
    })
}

/// Whether recorded values spell sort keys whatever the parameter is named: each a
/// comma-separated list of fields the entities hold, a key optionally `-` for descending or
/// followed by a direction word (`priority desc`, Ransack's `q[s]`), and some key so marked
/// (`-priority,title`; a plain field list may as well select fields). A
/// parameter so valued may sort, beside the roles its name proposes (`order` proposes a
/// direction, which such values are not); evaluation keeps the role that reproduces the lines.
fn lists_sort_keys<'a>(
    values: impl Iterator<Item = &'a str>,
    has_field: &dyn Fn(&str) -> bool,
) -> bool {
    let mut directed = false;
    for value in values {
        for key in value.split(',') {
            let Some((field, _)) = crate::query::sort_key(key) else {
                return false;
            };
            if field.is_empty() || !has_field(&field) {
                return false;
            }
            // A mark or a direction word beside the field (`-priority`, `priority desc`).
            directed |= key.trim() != field;
        }
    }
    directed
}

/// The roles with a keyset cursor whose key is the list's to learn given each key it may have:
/// every scalar field each entity holds with a value no other entity holds.
fn with_cursor_keys(roles: Vec<QueryRole>, objects: &HashMap<usize, Object>) -> Vec<QueryRole> {
    let mut found = Vec::new();
    for role in roles {
        match role {
            QueryRole::After { key } if key.is_empty() => found.extend(
                unique_fields(objects)
                    .into_iter()
                    .map(|key| QueryRole::After { key }),
            ),
            role => found.push(role),
        }
    }
    found
}

/// The top-level scalar fields every object holds, each object with its own value, sorted.
fn unique_fields(objects: &HashMap<usize, Object>) -> Vec<String> {
    let mut indexes: Vec<&usize> = objects.keys().collect();
    indexes.sort_unstable();
    let Some(first) = indexes.first().map(|index| &objects[*index]) else {
        return Vec::new();
    };
    let mut fields: Vec<String> = first.iter().map(|(name, _)| name.to_owned()).collect();
    fields.sort();
    fields.retain(|field| {
        let mut seen = BTreeSet::new();
        indexes.iter().all(|index| {
            objects[*index]
                .get(field)
                .and_then(crate::render::scalar_text)
                .is_some_and(|text| seen.insert(text))
        })
    });
    fields
}

/// The roles chosen (only those of parameters an answered line names) and the lines they answer
/// (indexes); `None` when no line is answered.
fn choose_roles(
    lines: &[QueryLine<'_>],
    options: &BTreeMap<String, Vec<QueryRole>>,
    untestable: &BTreeSet<usize>,
    evaluator: &mut Evaluator<'_>,
) -> Option<(BTreeMap<String, QueryRole>, Vec<usize>)> {
    let mut chosen: BTreeMap<String, QueryRole> = BTreeMap::new();
    let mut dropped: BTreeSet<String> = options
        .iter()
        .filter(|(_, roles)| roles.is_empty())
        .map(|(name, _)| name.clone())
        .collect();
    // Lines with fewer parameters first: they fix a role before combinations are tried.
    let mut order: Vec<usize> = (0..lines.len())
        .filter(|index| !untestable.contains(index))
        .collect();
    order.sort_by_key(|index| {
        (
            lines[*index].arguments.len(),
            lines[*index].observation.position,
        )
    });
    'search: loop {
        let mut answered: Vec<usize> = Vec::new();
        for &index in &order {
            let line = &lines[index];
            if line
                .arguments
                .iter()
                .any(|(name, _)| dropped.contains(name))
            {
                continue;
            }
            match roles_for(line, lines, &answered, &chosen, options, evaluator) {
                Some(trial) => {
                    chosen = trial;
                    answered.push(index);
                }
                None => {
                    give_up(line, options, &mut chosen, &mut dropped);
                    continue 'search;
                }
            }
        }
        let used: BTreeSet<String> = answered
            .iter()
            .flat_map(|index| lines[*index].arguments.iter().map(|(name, _)| name.clone()))
            .collect();
        chosen.retain(|name, _| used.contains(name));
        if answered.is_empty() {
            return None;
        }
        return Some((chosen, answered));
    }
}

/// Whether a line sorts (by a parameter whose only candidate role is a sort) by a key no entity
/// holds a scalar for (`-activity` where the state holds no activity, `priority` holding a
/// link object; keys read as [`sort_keys`] reads them, `title DESC` the key `title`), or by a
/// value that spells no sort keys: the state cannot order by it, so the line tests no role and is left
/// unanswered rather than taking the sort role from the lines that can test it.
fn sorts_unheld_keys(
    arguments: &[(String, String)],
    options: &BTreeMap<String, Vec<QueryRole>>,
    objects: &HashMap<usize, Object>,
) -> bool {
    let scalar_held = |field: &str| {
        objects.values().any(|object| {
            field_value(object, field)
                .is_some_and(|value| crate::render::scalar_text(value).is_some())
        })
    };
    arguments.iter().any(|(name, value)| {
        options.get(name).map(Vec::as_slice) == Some(&[QueryRole::Sort][..])
            && sort_keys(value).is_none_or(|keys| {
                keys.iter()
                    .any(|(key, _)| key.is_empty() || !scalar_held(key))
            })
    })
}

/// The roles (the chosen ones, and a combination of candidates for the line's other parameters)
/// that reproduce a line and every line answered before it, if any does.
fn roles_for(
    line: &QueryLine<'_>,
    lines: &[QueryLine<'_>],
    answered: &[usize],
    chosen: &BTreeMap<String, QueryRole>,
    options: &BTreeMap<String, Vec<QueryRole>>,
    evaluator: &mut Evaluator<'_>,
) -> Option<BTreeMap<String, QueryRole>> {
    let open: Vec<&String> = line
        .arguments
        .iter()
        .map(|(name, _)| name)
        .filter(|name| !chosen.contains_key(*name))
        .collect();
    let combinations: usize = open.iter().map(|name| options[*name].len()).product();
    for combination in 0..combinations.min(256) {
        let mut trial = chosen.clone();
        let mut rest = combination;
        for name in &open {
            let roles = &options[*name];
            trial.insert((*name).clone(), roles[rest % roles.len()].clone());
            rest /= roles.len();
        }
        // Earlier lines are checked again only when this line adds roles.
        let all_pass = evaluator.evaluates_to(&trial, line).is_some()
            && (open.is_empty()
                || answered
                    .iter()
                    .all(|other| evaluator.evaluates_to(&trial, &lines[*other]).is_some()));
        if all_pass {
            return Some(trial);
        }
    }
    None
}

/// A line no roles reproduce: its parameters lose their roles, except that when it names a
/// parameter that may be inert and is not established, only that one is given up, and when it
/// names established parameters beside others, only the others are (the established roles
/// reproduce the lines that fixed them; the line then stays unanswered).
fn give_up(
    line: &QueryLine<'_>,
    options: &BTreeMap<String, Vec<QueryRole>>,
    chosen: &mut BTreeMap<String, QueryRole>,
    dropped: &mut BTreeSet<String>,
) {
    let roleless = |name: &String| {
        matches!(
            options.get(name).map(Vec::as_slice),
            Some([QueryRole::Inert { .. }])
        )
    };
    let mut giving_up: Vec<&String> = line
        .arguments
        .iter()
        .map(|(name, _)| name)
        .filter(|name| roleless(name) && !chosen.contains_key(*name))
        .collect();
    if giving_up.is_empty() {
        giving_up = line
            .arguments
            .iter()
            .map(|(name, _)| name)
            .filter(|name| !chosen.contains_key(*name))
            .collect();
    }
    if giving_up.is_empty() || giving_up.len() == line.arguments.len() {
        giving_up = line.arguments.iter().map(|(name, _)| name).collect();
    }
    for name in giving_up {
        dropped.insert(name.clone());
        chosen.remove(name);
    }
}

/// The envelope members holding the number of matches: each a canonical count of it in every
/// answered line that holds the member (a member some queries ask for, such as `meta` or
/// `_extra=count`, is in the lines that asked), and held by a line where a page listed fewer
/// than matched (else a count of the members listed could be taken for it). A member only some
/// lines hold, none of which filtered the collection, may count the collection instead: it is
/// kept apart (`unfiltered_totals`). A member every line showed as its collection's size, one of
/// them apart from both the number matched and the number listed, counts the collection
/// (`collection_totals`).
#[derive(Default)]
struct Totals {
    /// Per envelope pointer, in the order first seen: what the lines holding it showed.
    seen: Vec<(String, Held)>,
}

/// What the lines holding an envelope member showed.
#[derive(Clone, Copy)]
struct Held {
    /// How many lines held it.
    lines: usize,
    /// Whether each counted the matches.
    counts: bool,
    /// Whether one listed fewer than matched.
    informative: bool,
    /// Whether one matched fewer than its collection holds.
    filtered: bool,
    /// Whether each showed its collection's size.
    sized: bool,
    /// Whether one showed a size apart from both the number matched and the number listed.
    told_apart: bool,
}

impl Totals {
    fn observe(
        &mut self,
        body: &Json,
        list_pointer: &str,
        (matched, listed, whole): (usize, usize, usize),
        counters: &[String],
    ) {
        for (pointer, _) in scalar_pointers(body, list_pointer) {
            if counters.contains(&pointer) {
                continue;
            }
            let held_value = body.pointer(&pointer);
            let counts = held_value.is_some_and(|value| counts_canonically(value, matched));
            let sized = held_value.is_some_and(|value| counts_canonically(value, whole));
            let at = match self.seen.iter().position(|(seen, _)| *seen == pointer) {
                Some(at) => at,
                None => {
                    let first = Held {
                        lines: 0,
                        counts: true,
                        informative: false,
                        filtered: false,
                        sized: true,
                        told_apart: false,
                    };
                    self.seen.push((pointer, first));
                    self.seen.len() - 1
                }
            };
            let held = &mut self.seen[at].1;
            held.lines += 1;
            held.counts &= counts;
            held.informative |= matched != listed;
            held.filtered |= matched != whole;
            held.sized &= sized;
            held.told_apart |= whole != matched && whole != listed;
        }
    }

    /// The totals, the members kept apart, the members counting complete pages only (see
    /// [`QueryModel::complete_totals`]) and the members counting the collection (see
    /// [`QueryModel::collection_totals`]), of `lines` answered lines.
    fn learned(self, lines: usize) -> LearnedTotals {
        let mut totals = Vec::new();
        let mut unfiltered = Vec::new();
        let mut complete = Vec::new();
        let mut sizes = Vec::new();
        for (pointer, held) in self.seen {
            if held.sized && held.told_apart && held.lines == lines {
                sizes.push(pointer);
                continue;
            }
            if held.counts && !held.informative && held.filtered {
                complete.push(pointer);
                continue;
            }
            if !(held.counts && held.informative) {
                continue;
            }
            if held.lines == lines || held.filtered {
                totals.push(pointer);
            } else {
                unfiltered.push(pointer);
            }
        }
        LearnedTotals {
            totals,
            unfiltered,
            complete,
            sizes,
        }
    }
}

/// The envelope members a query model learned counting something (see [`QueryModel`]).
struct LearnedTotals {
    /// The totals (the number matched).
    totals: Vec<String>,
    /// The unfiltered totals.
    unfiltered: Vec<String>,
    /// The complete-page totals.
    complete: Vec<String>,
    /// The collection totals.
    sizes: Vec<String>,
}

/// An inert parameter's accepted values: those the answered lines gave it.
fn accept_answered_values(
    chosen: &mut BTreeMap<String, QueryRole>,
    lines: &[QueryLine<'_>],
    answered: &[usize],
) {
    for (name, role) in chosen.iter_mut() {
        if let QueryRole::Inert { values } = role {
            let mut seen: Vec<String> = answered
                .iter()
                .flat_map(|index| lines[*index].arguments.iter())
                .filter(|(argument, _)| argument == name)
                .map(|(_, value)| value.clone())
                .collect();
            seen.sort();
            seen.dedup();
            *values = seen;
        }
    }
}

/// The query model of the chosen roles: the totals (members holding the number matched where a
/// page listed fewer), the lines it answers, and an inert parameter's accepted values (those the
/// answered lines gave it).
fn query_model(
    plan: &ListPlan,
    counters: &[String],
    lines: &[QueryLine<'_>],
    mut chosen: BTreeMap<String, QueryRole>,
    answered: &[usize],
    evaluator: &mut Evaluator<'_>,
) -> Option<QueryModel> {
    let (totals, pages, ends) =
        answered_pages(plan, counters, (lines, &chosen, answered), evaluator)?;
    let LearnedTotals {
        totals,
        unfiltered: unfiltered_totals,
        complete: complete_totals,
        sizes: collection_totals,
    } = totals.learned(answered.len());
    let mut offset_members = position_members(&chosen, lines, answered, &plan.list_pointer);
    let taken: Vec<String> = (offset_members.iter())
        .map(|member| member.pointer.clone())
        .chain(totals.iter().cloned())
        .collect();
    let shown = (&plan.list_pointer[..], &totals[..], &taken[..]);
    let default_size = evaluator.default_page_size;
    offset_members.extend(arithmetic_members(
        &chosen,
        lines,
        answered,
        shown,
        default_size,
    ));
    let cursor_members = cursor_members(
        &chosen,
        lines,
        (&ends, &pages),
        evaluator,
        &plan.list_pointer,
    );
    let mut paged_members = paged_members(&pages, &plan.list_pointer, |pointer| {
        counters
            .iter()
            .chain(&totals)
            .chain(&unfiltered_totals)
            .chain(&complete_totals)
            .chain(&collection_totals)
            .any(|known| known == pointer)
            || cursor_members
                .iter()
                .any(|member| crate::flat_links::covers(member, pointer))
            || offset_members
                .iter()
                .any(|member| member.pointer == pointer)
    });
    paged_members.extend(offset_members);
    let record_ordinals = answered_ordinals(lines, answered);
    accept_answered_values(&mut chosen, lines, answered);
    Some(QueryModel {
        totals,
        unfiltered_totals,
        complete_totals,
        collection_totals,
        paged_members,
        cursor_members,
        repeated_sort: false,
        record_ordinals,
        ..evaluator.model(chosen)
    })
}

/// The totals the answered lines show, their bodies (each with whether its page left matches
/// out) and where their pages end (see [`answered_pages`]).
type AnsweredPages = (Totals, Vec<(Json, bool)>, Vec<LineEnd>);

/// Each answered line evaluated with the chosen roles: the totals its body shows, its body with
/// whether its page left matches out, and where its page ends; `None` when one is not reproduced.
fn answered_pages(
    plan: &ListPlan,
    counters: &[String],
    (lines, chosen, answered): (&[QueryLine<'_>], &BTreeMap<String, QueryRole>, &[usize]),
    evaluator: &mut Evaluator<'_>,
) -> Option<AnsweredPages> {
    let mut totals = Totals::default();
    let mut pages: Vec<(Json, bool)> = Vec::new();
    let mut ends: Vec<LineEnd> = Vec::new();
    for index in answered {
        let line = &lines[*index];
        let evaluated = evaluator.evaluates_to(chosen, line)?;
        ends.push((
            *index,
            evaluated.members.last().copied(),
            evaluated.members.len() < evaluated.matched,
            evaluated.matched,
        ));
        let body = line.observation.body.clone().unwrap_or_default();
        let whole = evaluator
            .size(&line.collection)
            .unwrap_or(evaluated.matched);
        totals.observe(
            &body,
            &plan.list_pointer,
            (evaluated.matched, evaluated.members.len(), whole),
            counters,
        );
        pages.push((body, evaluated.members.len() < evaluated.matched));
    }
    Some((totals, pages, ends))
}

/// The record ordinals of the answered lines, ascending.
fn answered_ordinals(lines: &[QueryLine<'_>], answered: &[usize]) -> Vec<u64> {
    let mut ordinals: Vec<u64> = answered
        .iter()
        .map(|index| lines[*index].observation.ordinal)
        .collect();
    ordinals.sort_unstable();
    ordinals
}

/// The offset a line's page starts at: the value of its parameter playing the offset role, 0
/// without one; `None` when that value is no whole number.
fn line_offset(chosen: &BTreeMap<String, QueryRole>, line: &QueryLine<'_>) -> Option<usize> {
    role_value(chosen, line, |role| matches!(role, QueryRole::Offset))
        .map_or(Some(0), |value| value.parse().ok())
}

/// The value a line gives its parameter whose chosen role `plays`, if it gives one.
fn role_value<'l>(
    chosen: &BTreeMap<String, QueryRole>,
    line: &'l QueryLine<'_>,
    plays: impl Fn(&QueryRole) -> bool,
) -> Option<&'l str> {
    line.arguments
        .iter()
        .find(|(name, _)| chosen.get(name).is_some_and(&plays))
        .map(|(_, value)| value.as_str())
}

/// The recorded bodies of the answered lines, in order.
fn answered_bodies<'l>(lines: &'l [QueryLine<'_>], answered: &[usize]) -> Vec<Option<&'l Json>> {
    answered
        .iter()
        .map(|index| lines[*index].observation.body.as_ref())
        .collect()
}

/// The envelope members every answered line shows holding its page's offset (see
/// [`crate::model::PagedMember::offset`]): none unless some line gave an offset other than 0.
fn offset_members(
    chosen: &BTreeMap<String, QueryRole>,
    lines: &[QueryLine<'_>],
    answered: &[usize],
    list_pointer: &str,
) -> Vec<PagedMember> {
    let Some(offsets) = answered
        .iter()
        .map(|index| line_offset(chosen, &lines[*index]))
        .collect::<Option<Vec<usize>>>()
    else {
        return Vec::new();
    };
    let bodies = answered_bodies(lines, answered);
    offset_pointers(&bodies, &offsets, list_pointer)
        .into_iter()
        .map(PagedMember::offset_at)
        .collect()
}

/// The scalar envelope pointers each body (beside the list at `list_pointer`) holds its
/// line's offset at, when some offset is not 0.
fn offset_pointers(bodies: &[Option<&Json>], offsets: &[usize], list_pointer: &str) -> Vec<String> {
    if offsets.iter().all(|offset| *offset == 0) {
        return Vec::new();
    }
    let Some(Some(first)) = bodies.first() else {
        return Vec::new();
    };
    scalar_pointers(first, list_pointer)
        .into_iter()
        .map(|(pointer, _)| pointer)
        .filter(|pointer| {
            bodies.iter().zip(offsets).all(|(body, offset)| {
                body.and_then(|body| body.pointer(pointer))
                    .is_some_and(|value| counts_canonically(value, *offset))
            })
        })
        .collect()
}

/// The envelope members holding the page's offset ([`offset_members`]) and size
/// ([`size_members`]) and echoing the call ([`echo_members`]), computed per call.
fn position_members(
    chosen: &BTreeMap<String, QueryRole>,
    lines: &[QueryLine<'_>],
    answered: &[usize],
    list_pointer: &str,
) -> Vec<PagedMember> {
    let mut members = offset_members(chosen, lines, answered, list_pointer);
    members.extend(size_members(chosen, lines, answered, list_pointer));
    members.extend(echo_members(lines, answered, list_pointer));
    members
}

/// The envelope members every answered line shows holding an arithmetic of its page (see
/// [`crate::model::PagedMember::arithmetic`]): its number (the one it named, else the first
/// page's) or the number of pages its matches (its total) fill at its page size (the one it
/// named, else the default); none unless the list pages by number and some line named a page
/// after the first. `shown`: the list's pointer, the totals' and the pointers already computed.
fn arithmetic_members(
    chosen: &BTreeMap<String, QueryRole>,
    lines: &[QueryLine<'_>],
    answered: &[usize],
    (list_pointer, totals, taken): (&str, &[String], &[String]),
    default_size: Option<u32>,
) -> Vec<PagedMember> {
    let Some(first) = chosen.values().find_map(|role| match role {
        QueryRole::Page { base } => Some(*base),
        _ => None,
    }) else {
        return Vec::new();
    };
    let bodies = answered_bodies(lines, answered);
    let Some(pages) = (answered.iter().zip(&bodies))
        .map(|(index, body)| {
            let line = &lines[*index];
            let page = match role_value(chosen, line, |role| matches!(role, QueryRole::Page { .. }))
            {
                Some(value) => value.parse().ok()?,
                None => first,
            };
            let size = match line_size(chosen, line).ok()? {
                Some(size) => size as u64,
                None => u64::from(default_size?),
            };
            let total = body.and_then(|body| body.pointer(totals.first()?))?;
            let matched = u64::try_from(total.as_number()?.as_i64()?).ok()?;
            Some((page, size, matched))
        })
        .collect::<Option<Vec<(u64, u64, u64)>>>()
    else {
        return Vec::new();
    };
    let Some(Some(shown)) = bodies.first() else {
        return Vec::new();
    };
    if pages.iter().all(|(page, ..)| *page <= first) {
        return Vec::new();
    }
    let holds = |pointer: &str, arithmetic: PageArithmetic| {
        bodies
            .iter()
            .zip(&pages)
            .all(|(body, (page, size, matched))| {
                let value = body.and_then(|body| body.pointer(pointer));
                let computed = arithmetic.value((*page, first), *size, *matched);
                value.zip(computed).is_some_and(|(value, computed)| {
                    crate::render::counts_canonically(value, computed as usize)
                })
            })
    };
    scalar_pointers(shown, list_pointer)
        .into_iter()
        .filter(|(pointer, _)| !taken.contains(pointer))
        .filter_map(|(pointer, _)| {
            let arithmetic = [
                PageArithmetic::Number,
                PageArithmetic::PagesAtLeastOne,
                PageArithmetic::Pages,
            ]
            .into_iter()
            .find(|arithmetic| holds(&pointer, *arithmetic))?;
            Some(PagedMember::arithmetic_at(pointer, arithmetic))
        })
        .collect()
}

/// The envelope members echoing each answered line's call (see [`crate::query_echo`]).
fn echo_members(
    lines: &[QueryLine<'_>],
    answered: &[usize],
    list_pointer: &str,
) -> Vec<PagedMember> {
    let shown: Vec<crate::query_echo::ShownLine<'_>> = answered
        .iter()
        .map(|index| {
            let observation = lines[*index].observation;
            (observation.body.as_ref(), observation.pairs())
        })
        .collect();
    crate::query_echo::learn(&shown, list_pointer)
}

/// The page size a line gives: the value of its parameter playing the page-size role, `None`
/// without one; `Err` when that value is no whole number.
fn line_size(
    chosen: &BTreeMap<String, QueryRole>,
    line: &QueryLine<'_>,
) -> Result<Option<usize>, ()> {
    role_value(chosen, line, |role| matches!(role, QueryRole::PageSize))
        .map_or(Ok(None), |value| value.parse().map(Some).map_err(|_| ()))
}

/// The envelope members every answered line shows holding its page size (see
/// [`crate::model::PagedMember::size`]), the lines giving none one default value.
fn size_members(
    chosen: &BTreeMap<String, QueryRole>,
    lines: &[QueryLine<'_>],
    answered: &[usize],
    list_pointer: &str,
) -> Vec<PagedMember> {
    let Ok(sizes) = answered
        .iter()
        .map(|index| line_size(chosen, &lines[*index]))
        .collect::<Result<Vec<Option<usize>>, ()>>()
    else {
        return Vec::new();
    };
    let bodies = answered_bodies(lines, answered);
    size_pointers(&bodies, &sizes, list_pointer)
        .into_iter()
        .map(|(pointer, default, max)| PagedMember::size_at(pointer, default, max))
        .collect()
}

/// The scalar envelope pointers each body (beside the list at `list_pointer`) holds its line's
/// page size at, those of lines giving none one default value, when some line gave a size and
/// the bodies show two values there; with each, its largest size (see [`size_cap`]).
fn size_pointers(
    bodies: &[Option<&Json>],
    sizes: &[Option<usize>],
    list_pointer: &str,
) -> Vec<SizePointer> {
    if sizes.iter().all(Option::is_none) {
        return Vec::new();
    }
    let Some(Some(first)) = bodies.first() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (pointer, _) in scalar_pointers(first, list_pointer) {
        let mut default: Option<Json> = None;
        let mut values: Vec<&Json> = Vec::new();
        let holds = bodies.iter().zip(sizes).all(|(body, size)| {
            let Some(value) = body.and_then(|body| body.pointer(&pointer)) else {
                return false;
            };
            values.push(value);
            match size {
                Some(_) => true,
                None => match &default {
                    Some(known) => known == value,
                    None => {
                        default = Some(value.clone());
                        true
                    }
                },
            }
        });
        let sized: Vec<(usize, &Json)> = sizes
            .iter()
            .zip(&values)
            .filter_map(|(size, value)| size.map(|size| (size, *value)))
            .collect();
        if holds
            && values.iter().any(|value| *value != values[0])
            && let Some(max) = size_cap(&sized, default.as_ref())
        {
            found.push((pointer, default, max));
        }
    }
    found
}

/// A size member's pointer, the default its lines giving no size showed, and its largest size.
type SizePointer = (String, Option<Json>, Option<u64>);

/// Whether the lines giving a size (each with the value it showed) show it, or one largest size
/// `M` where they asked for more, every size shown as itself and the default the lines giving
/// none showed being at most `M`: `Some(None)` when each showed its own size, `Some(Some(M))`
/// with a cap; `None` when neither holds.
fn size_cap(sized: &[(usize, &Json)], default: Option<&Json>) -> Option<Option<u64>> {
    let mut cap: Option<u64> = None;
    let mut own: Vec<usize> = Vec::new();
    for (size, value) in sized {
        if crate::render::counts_canonically(value, *size) {
            own.push(*size);
            continue;
        }
        let capped = value
            .as_number()
            .and_then(|number| number.as_u64())
            .filter(|shown| (*shown as usize) < *size)?;
        if cap.is_some_and(|cap| cap != capped) {
            return None;
        }
        cap = Some(capped);
    }
    let default = default.and_then(|value| value.as_number().and_then(|number| number.as_u64()));
    cap.is_none_or(|max| {
        own.iter().all(|size| *size as u64 <= max) && default.is_none_or(|size| size <= max)
    })
    .then_some(cap)
}

/// An answered line's page end: the line, the candidate position of the last member it listed,
/// whether matches remained after it, and how many matched.
type LineEnd = (usize, Option<usize>, bool, usize);

/// The envelope members every answered line (`ends`: the line, the candidate position of the
/// last member it listed, whether matches remained; `pages`: its body) shows naming its page's
/// position by the list's keyset cursor (see [`crate::page_cursor`]); none without a cursor.
fn cursor_members(
    chosen: &BTreeMap<String, QueryRole>,
    lines: &[QueryLine<'_>],
    (ends, pages): (&[LineEnd], &[(Json, bool)]),
    evaluator: &Evaluator<'_>,
    list_pointer: &str,
) -> Vec<CursorMember> {
    let model = QueryModel {
        repeated_sort: false,
        ..evaluator.model(chosen.clone())
    };
    let value_of = |(index, last, remaining, matched): &LineEnd, form: &CursorForm| {
        let line = &lines[*index];
        let candidates = &evaluator.collections.get(&line.collection)?.1;
        PageEnd {
            model: &model,
            expanded: &line.arguments,
            sent: line.observation.pairs(),
            last: last.map(|position| candidates[position]),
            remaining: *remaining,
            matched: *matched,
        }
        .minted(form)
    };
    let mut found: Vec<CursorMember> = page_links(
        (chosen, evaluator.default_page_size.map(u64::from)),
        lines,
        (ends, pages),
        list_pointer,
    )
    .into_iter()
    .find(|member| {
        ends.iter().zip(pages).all(|(end, (shown, _))| {
            value_of(end, &member.form).map(|value| crate::flat_links::expected(member, value))
                == Some(crate::flat_links::shown(member, shown))
        })
    })
    .into_iter()
    .collect();
    if !chosen
        .values()
        .any(|role| matches!(role, QueryRole::After { .. }))
    {
        return found;
    }
    for (body, _) in pages {
        for (pointer, _) in scalar_pointers(body, list_pointer) {
            if found.iter().any(|member| member.pointer == pointer) {
                continue;
            }
            let held = |body: &Json| body.pointer(&pointer).cloned().unwrap_or(Json::Null);
            let form = candidate_forms(&held(body)).into_iter().find(|form| {
                ends.iter()
                    .zip(pages)
                    .all(|(end, (shown, _))| value_of(end, form) == Some(Some(held(shown))))
            });
            if let Some(form) = form {
                found.push(CursorMember {
                    pointer,
                    form,
                    flat: false,
                });
            }
        }
    }
    found
}

/// The links members beside the list (see [`CursorForm::PageLinks`]) the answered lines show,
/// each in the forms their recorded values may take (to be checked against every line): with
/// the position (page or offset) and page-size parameters the list's roles name, or, when they
/// name neither, the two its links name though no call sent them.
fn page_links(
    (chosen, default_size): (&BTreeMap<String, QueryRole>, Option<u64>),
    lines: &[QueryLine<'_>],
    (ends, pages): (&[LineEnd], &[(Json, bool)]),
    list_pointer: &str,
) -> Vec<CursorMember> {
    let position = Position::of(chosen.iter());
    let size_name = chosen
        .iter()
        .find_map(|(name, role)| (*role == QueryRole::PageSize).then_some(name.as_str()));
    let named = match (position, size_name) {
        (Some(position), Some(size_name)) => Some((position, size_name)),
        (None, _) => None,
        (Some(_), None) => return Vec::new(),
    };
    let Some((parent, _)) = list_pointer.rsplit_once('/') else {
        return Vec::new();
    };
    let sent = |name: &str| {
        chosen.contains_key(name)
            || lines
                .iter()
                .any(|line| line.arguments.iter().any(|(sent, _)| sent == name))
    };
    let forms_of = |values: &[ShownPage<'_>]| match named {
        Some((position, size_name)) => {
            page_link_forms_sized(values, (position, size_name), default_size)
        }
        None => link_only_forms(values, &sent, size_name),
    };
    let shown = shown_pages(
        lines,
        (ends, pages),
        (parent, list_pointer),
        (named, size_name),
    );
    let mut found = Vec::new();
    for (pointer, values) in shown {
        found.extend(forms_of(&values).into_iter().map(|form| CursorMember {
            pointer: pointer.clone(),
            form,
            flat: false,
        }));
    }
    let bodies: Vec<&Json> = pages.iter().map(|(body, _)| body).collect();
    for links_parent in crate::flat_links::link_parents(&bodies, (parent, list_pointer)) {
        let Some(flat) = crate::flat_links::virtual_links(&bodies, (&links_parent, list_pointer))
        else {
            continue;
        };
        let values = shown_flat_pages(lines, ends, &flat, (named, size_name));
        found.extend(forms_of(&values).into_iter().map(|form| CursorMember {
            pointer: links_parent.clone(),
            form,
            flat: true,
        }));
    }
    found
}

/// The [`CursorForm::PageLinks`] forms of a list whose calls name no position or page size:
/// every call at the first item with the default size, the parameters learned from the links.
fn link_only_forms(
    values: &[ShownPage<'_>],
    sent: &impl Fn(&str) -> bool,
    size_name: Option<&str>,
) -> Vec<CursorForm> {
    let Some((position, size)) = link_only_names(values, sent, size_name) else {
        return Vec::new();
    };
    let mut forms = page_link_forms(values, Position::Offset { name: &position }, &size);
    for form in &mut forms {
        if let CursorForm::PageLinks { link_only, .. } = form {
            *link_only = Some((position.clone(), size.clone()));
        }
    }
    forms
}

/// The position and page size an answered line's call sent (when the list's roles name them)
/// and how many members matched, as a page showing `links`; `None` when its size is no number.
fn shown_page<'a>(
    lines: &'a [QueryLine<'_>],
    (index, matched): (usize, usize),
    (named, size_name): (Option<(Position<'_>, &str)>, Option<&str>),
    links: &'a Json,
) -> Option<ShownPage<'a>> {
    let arguments = &lines[index].arguments;
    let value_of = |wanted: &str| {
        arguments
            .iter()
            .find(|(sent, _)| sent == wanted)
            .map(|(_, value)| value.as_str())
    };
    let position = named.and_then(|(position, _)| value_of(position.name()));
    let size = match size_name.and_then(value_of).map(str::parse) {
        Some(Ok(size)) => Some(size),
        Some(Err(_)) => return None,
        None => None,
    };
    Some(ShownPage {
        links,
        position,
        size,
        matched: u64::try_from(matched).ok()?,
        sent: lines[index].observation.pairs(),
    })
}

/// Per object member beside the list, the pages showing it (with the position and page size
/// their calls sent, when the list's roles name them).
fn shown_pages<'a>(
    lines: &'a [QueryLine<'_>],
    (ends, pages): (&[LineEnd], &'a [(Json, bool)]),
    (parent, list_pointer): (&str, &str),
    named: (Option<(Position<'_>, &str)>, Option<&str>),
) -> BTreeMap<String, Vec<ShownPage<'a>>> {
    let mut shown: BTreeMap<String, Vec<ShownPage<'a>>> = BTreeMap::new();
    for ((index, _, _, matched), (body, _)) in ends.iter().zip(pages) {
        let Some(envelope) = body.pointer(parent).and_then(Json::as_object) else {
            continue;
        };
        for (key, member) in envelope.iter() {
            let pointer = format!("{parent}/{}", escape_pointer_segment(key));
            if pointer != list_pointer
                && matches!(member, Json::Object(_))
                && let Some(page) = shown_page(lines, (*index, *matched), named, member)
            {
                shown.entry(pointer).or_default().push(page);
            }
        }
    }
    shown
}

/// The pages showing the envelope's own link members (see [`crate::flat_links`]), each as
/// its virtual links object (`flat`, one per page).
fn shown_flat_pages<'a>(
    lines: &'a [QueryLine<'_>],
    ends: &[LineEnd],
    flat: &'a [Json],
    named: (Option<(Position<'_>, &str)>, Option<&str>),
) -> Vec<ShownPage<'a>> {
    ends.iter()
        .zip(flat)
        .filter(|(_, links)| links.as_object().is_some())
        .filter_map(|((index, _, _, matched), links)| {
            shown_page(lines, (*index, *matched), named, links)
        })
        .collect()
}

/// The envelope members the answered lines' bodies (each with whether its page left matches
/// out) show with more than one value, besides those the state computes (`computed`): what a
/// page holds that the state cannot tell (a next-page cursor, a link to it, the last position
/// listed), each with the values the pages listing every match showed.
pub(crate) fn paged_members(
    pages: &[(Json, bool)],
    list_pointer: &str,
    computed: impl Fn(&str) -> bool,
) -> Vec<PagedMember> {
    let mut pointers: Vec<String> = Vec::new();
    for (body, _) in pages {
        for (pointer, _) in scalar_pointers(body, list_pointer) {
            if !computed(&pointer) && !pointers.contains(&pointer) {
                pointers.push(pointer);
            }
        }
    }
    let value_at =
        |body: &Json, pointer: &str| body.pointer(pointer).cloned().unwrap_or(Json::Null);
    pointers
        .into_iter()
        .filter_map(|pointer| {
            // A member some envelopes leave out (a parameter choosing the envelope's members)
            // and the others agree on is the envelope's shape, not the page's.
            let mut values = pages.iter().filter_map(|(body, _)| body.pointer(&pointer));
            let first = values.next()?;
            if values.all(|value| value == first) {
                return None;
            }
            let mut complete: Vec<Json> = Vec::new();
            for (body, _) in pages.iter().filter(|(_, partial)| !partial) {
                let value = value_at(body, &pointer);
                if !complete.contains(&value) {
                    complete.push(value);
                }
            }
            Some(PagedMember {
                pointer,
                complete,
                offset: false,
                size: false,
                max: None,
                echo: None,
                arithmetic: None,
            })
        })
        .collect()
}

/// The list's page envelope (see [`crate::page_envelope`]), learned from its checked reads
/// holding the list at `pointer`, another place than its plain reads: each read's members matched
/// by the identity they show against the entities of the collection it lists (less what whole
/// lines left out), in state order, each read's query with the expressions a query grammar
/// splits read as their terms (a read holding a disjunction teaches nothing).
pub(super) fn learn_page_envelope(
    (plan, view): (&ListPlan, &str),
    (pointer, paged): (&str, &[&Observation]),
    model: &QueryModel,
    entities: &Entities,
    (rules, whole_lines): (&RuleSet, &[ListLine]),
) -> Option<PageEnvelope> {
    let identity = entities
        .types
        .iter()
        .find(|entity_type| entity_type.collection_template == plan.entity_type)?
        .identity_field
        .clone();
    let left_out = left_out(whole_lines);
    let fields = type_scalar_fields(&entities.list, &plan.entity_type);
    let mut owned: Vec<(Vec<Object>, Vec<&str>, Vec<String>)> = Vec::new();
    let mut queries: Vec<Vec<(String, String)>> = Vec::new();
    for observation in paged {
        let expanded = expand(rules, observation.pairs(), &fields);
        if !expanded.groups.is_empty() {
            return None;
        }
        queries.push(expanded.pairs);
        let listed = listed_collection(&observation.path, &plan.entity_type)?;
        let indexes = kept_members(entities, (&plan.entity_type, &listed), &left_out);
        let shown = observation
            .body
            .as_ref()
            .and_then(|body| body.pointer(pointer))
            .and_then(Json::as_array)?
            .iter()
            .map(|member| shown_identity(member, &identity))
            .collect::<Option<Vec<String>>>()?;
        owned.push((
            indexes
                .iter()
                .map(|index| query_object(entities, view, *index))
                .collect(),
            indexes
                .iter()
                .map(|index| entities.list[*index].id.as_str())
                .collect(),
            shown,
        ));
    }
    let reads: Vec<PagedRead<'_>> = paged
        .iter()
        .zip(owned.iter().zip(&queries))
        .map(|(observation, ((objects, ids, shown), pairs))| PagedRead {
            ordinal: observation.ordinal,
            pairs,
            listed: shown.clone(),
            body: observation.body.as_ref().unwrap_or(&Json::Null),
            candidates: objects.iter().collect(),
            ids: ids.clone(),
        })
        .collect();
    crate::page_envelope::learn(model, pointer, &reads)
}

#[cfg(test)]
mod tests {
    use super::{
        Totals, lists_sort_keys, offset_pointers, paged_members, size_pointers, sorts_unheld_keys,
    };
    use crate::model::QueryRole;
    use rea_plugin_api::json::Json;
    use std::collections::{BTreeMap, HashMap};

    #[test]
    fn a_sort_by_a_key_no_entity_holds_as_a_scalar_tests_no_role() {
        let object =
            rea_plugin_api::json::parse(br#"{"id": "1", "title": "a", "status": {"id": "5"}}"#)
                .expect("json")
                .as_object()
                .cloned()
                .expect("object");
        let objects = HashMap::from([(0, object)]);
        let options = BTreeMap::from([
            ("@sort".to_owned(), vec![QueryRole::Sort]),
            ("title".to_owned(), vec![QueryRole::filter("title", "eq")]),
        ]);
        let unheld = |name: &str, value: &str| {
            sorts_unheld_keys(&[(name.to_owned(), value.to_owned())], &options, &objects)
        };
        assert!(!unheld("@sort", "-id,title"));
        assert!(unheld("@sort", "-activity"));
        assert!(unheld("@sort", "status,title"));
        assert!(!unheld("title", "zzz"));
        // A key with its direction word, or a JSON array of keys, names its field.
        assert!(!unheld("@sort", "title DESC"));
        assert!(!unheld("@sort", r#"[{"title":"DESC"},{"id":"ASC"}]"#));
        assert!(unheld("@sort", r#"[{"activity":"DESC"}]"#));
        assert!(unheld("@sort", "title sideways"));
    }

    #[test]
    fn values_listing_fields_with_a_descending_key_spell_sort_keys() {
        let has_field = |field: &str| ["priority", "title", "sla.hours"].contains(&field);
        let spell = |values: &[&str]| lists_sort_keys(values.iter().copied(), &has_field);
        assert!(spell(&["-priority,title", "title"]));
        assert!(spell(&["-sla.hours"]));
        // A direction word after a field (Ransack's `q[s]=priority desc`), either way.
        assert!(spell(&["priority asc", "title desc,priority ASC"]));
        assert!(!spell(&["priority sideways"]));
        assert!(!spell(&["colour desc"]));
        // A plain field list may select fields: no descending key, no sort proposed.
        assert!(!spell(&["title,priority"]));
        // Directions, unknown fields and empty keys are no sort keys.
        assert!(!spell(&["-priority", "desc"]));
        assert!(!spell(&["-colour"]));
        assert!(!spell(&["-priority,,title"]));
        assert!(!spell(&[]));
    }

    #[test]
    fn a_member_showing_the_collections_size_apart_from_the_matches_is_a_collection_total() {
        let observe = |lines: &[(&str, (usize, usize, usize))]| {
            let mut totals = Totals::default();
            for (text, counts) in lines {
                let body = rea_plugin_api::json::parse(text.as_bytes()).expect("json");
                totals.observe(&body, "/rows", *counts, &[]);
            }
            totals.learned(lines.len())
        };
        // A range matching 5 of 16 rows, a page of 2 of all 16: `total_rows` is the size.
        let learned = observe(&[
            (r#"{"total_rows": 16, "offset": 0, "rows": []}"#, (5, 5, 16)),
            (
                r#"{"total_rows": 16, "offset": 0, "rows": []}"#,
                (16, 2, 16),
            ),
        ]);
        assert_eq!(learned.sizes, vec!["/total_rows".to_owned()]);
        assert!(learned.totals.is_empty());
        // Only lines listing the whole collection: the size, the matches and the number listed
        // are never told apart, so it is no collection total.
        let learned = observe(&[(r#"{"total_rows": 16, "rows": []}"#, (16, 16, 16))]);
        assert!(learned.sizes.is_empty());
        // A member counting the matches where a page listed fewer is a total, not a size.
        let learned = observe(&[
            (r#"{"count": 5, "rows": []}"#, (5, 2, 16)),
            (r#"{"count": 16, "rows": []}"#, (16, 16, 16)),
        ]);
        assert_eq!(learned.totals, vec!["/count".to_owned()]);
        assert!(learned.sizes.is_empty());
    }

    #[test]
    fn a_member_holding_every_lines_offset_is_an_offset_member() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let bodies = [
            parse(r#"{"total_rows": 16, "offset": 0, "rows": []}"#),
            parse(r#"{"total_rows": 16, "offset": 3, "rows": []}"#),
        ];
        let shown: Vec<Option<&Json>> = bodies.iter().map(Some).collect();
        assert_eq!(
            offset_pointers(&shown, &[0, 3], "/rows"),
            vec!["/offset".to_owned()]
        );
        // A member showing 0 where a line started at 3 is no offset.
        assert!(offset_pointers(&shown, &[0, 6], "/rows").is_empty());
        // No line gave an offset: a constant 0 is never told from one.
        assert!(offset_pointers(&shown[..1], &[0], "/rows").is_empty());
        // A line without the member: not every line holds it.
        let bare = parse(r#"{"rows": []}"#);
        assert!(offset_pointers(&[shown[1], Some(&bare)], &[3, 0], "/rows").is_empty());
    }

    #[test]
    fn a_member_holding_every_lines_page_size_is_a_size_member_with_its_default() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let bodies = [
            parse(r#"{"meta": {"count": 9, "limit": 250}, "data": []}"#),
            parse(r#"{"meta": {"count": 9, "limit": 4}, "data": []}"#),
            parse(r#"{"meta": {"count": 4, "limit": 2}, "data": []}"#),
        ];
        let shown: Vec<Option<&Json>> = bodies.iter().map(Some).collect();
        assert_eq!(
            size_pointers(&shown, &[None, Some(4), Some(2)], "/data"),
            vec![("/meta/limit".to_owned(), Some(parse("250")), None)]
        );
        // Every line gave a size: no default.
        assert_eq!(
            size_pointers(&shown[1..], &[Some(4), Some(2)], "/data"),
            vec![("/meta/limit".to_owned(), None, None)]
        );
        // A member showing another size than the line gave is none.
        assert!(size_pointers(&shown, &[None, Some(5), Some(2)], "/data").is_empty());
        // No line gave a size, or one value only: never told from a constant.
        assert!(size_pointers(&shown, &[None, None, None], "/data").is_empty());
        assert!(size_pointers(&shown[1..2], &[Some(4)], "/data").is_empty());
    }

    #[test]
    fn a_size_member_showing_one_smaller_size_to_larger_asks_caps_them() {
        let parse = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("json");
        let bodies = [
            parse(r#"{"total": 14, "limit": 10, "data": []}"#),
            parse(r#"{"total": 14, "limit": 5, "data": []}"#),
            parse(r#"{"total": 14, "limit": 50, "data": []}"#),
        ];
        let shown: Vec<Option<&Json>> = bodies.iter().map(Some).collect();
        // Feathers' `paginate: {default: 10, max: 50}`: `$limit=100` answered `limit: 50`.
        assert_eq!(
            size_pointers(&shown, &[None, Some(5), Some(100)], "/data"),
            vec![("/limit".to_owned(), Some(parse("10")), Some(50))]
        );
        // A size above the cap shown as itself contradicts it; two caps disagree.
        assert!(size_pointers(&shown, &[None, Some(60), Some(100)], "/data").is_empty());
        let other = parse(r#"{"total": 14, "limit": 40, "data": []}"#);
        let two = [shown[0], shown[2], Some(&other)];
        assert!(size_pointers(&two, &[None, Some(100), Some(200)], "/data").is_empty());
    }

    fn page(text: &str, partial: bool) -> (Json, bool) {
        (
            rea_plugin_api::json::parse(text.as_bytes()).expect("json"),
            partial,
        )
    }

    #[test]
    fn a_member_pages_show_with_values_of_their_own_is_paged() {
        let pages = [
            page(
                r#"{"ok": true, "next": null, "total": 3, "rows": []}"#,
                false,
            ),
            page(
                r#"{"ok": true, "next": "5", "total": 12, "rows": []}"#,
                true,
            ),
            page(
                r#"{"ok": true, "next": "Renew,6", "total": 12, "rows": []}"#,
                true,
            ),
        ];
        // `total` the state computes; `ok` is the same on every page.
        let computed = |pointer: &str| pointer == "/total";
        let paged = paged_members(&pages, "/rows", computed);
        assert_eq!(paged.len(), 1);
        assert_eq!(paged[0].pointer, "/next");
        assert_eq!(paged[0].complete, vec![Json::Null]);
        // Without a complete page, no value is known for one.
        let paged = paged_members(&pages[1..], "/rows", computed);
        assert!(paged[0].complete.is_empty());
        // Alike on every page: the envelope's own.
        assert!(paged_members(&pages[..1], "/rows", computed).is_empty());
    }

    #[test]
    fn a_member_some_envelopes_leave_out_is_no_paged_member() {
        // A parameter choosing the envelope's members (`keys:!(list_columns)`) leaves `labels`
        // out of one answer; the others agree on it.
        let pages = [
            page(r#"{"labels": {"a": "A"}, "rows": []}"#, false),
            page(r#"{"rows": []}"#, true),
            page(r#"{"labels": {"a": "A"}, "rows": []}"#, true),
        ];
        assert!(paged_members(&pages, "/rows", |_| false).is_empty());
    }
}
