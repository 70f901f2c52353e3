//! A list's recorded refusal of a query naming a field its entities do not hold: the build called
//! a list read with one query parameter naming, in its name (`filter[colour]=red`) or in its value
//! (`sort=colour`), a word no entity of the listed type holds as a member at any depth, and the
//! application answered `400`/`422` with a JSON body spelling that word (`TaskSchema has no
//! attribute colour`, `invalid filter[colour]`). Learned where a successful read of the same tool
//! used the same form with a field the entities hold (`filter[status]=todo`, `sort=-priority`),
//! so the form is the one the list reads fields from; one refusal per tool and form.
//!
//! Served before the list's view: a call naming, in that form, a plain word (letters, digits,
//! `_`) that no entity of the type the live state holds has as a member answers that recorded
//! refusal with the recorded word renamed to the called one (`filter[weight]` answers `TaskSchema
//! has no attribute weight`). A value form's comma-separated terms lose the descending mark the
//! successful reads showed (`sort=-weight`); a term that is no plain word (`assignee.name`, an
//! operator suffix) leaves the call to the view. The catalog admits the name form as an argument
//! family (`^filter\[[A-Za-z0-9_]+\]$`), described as answering that refusal.
//!
//! A third form refuses a value, not a name (`priority__gte=high`, answered `400`
//! `{"priority__gte": ["Enter a number."]}`): the failed call's one parameter is a comparison
//! filter of the list's query model (`eq`, `ne`, `gt`, `gte`, `lt`, `lte`) over a field every
//! entity of the listed type holding it holds as a number, its value is no number, and the answer
//! names the parameter (as a member or a word) or spells neither it nor the value (tastypie's
//! `year__gte=abc`: `Invalid resource lookup data provided (mismatched type).`). Served for any
//! such filter of the tool given a value that is no number, the recorded parameter renamed to the
//! called one (members and words), where the view would otherwise compare the texts.
//!
//! A fourth form refuses one name whatever its value (`pages=300`, answered `400` `{"error":
//! "'exact' is not an allowed filter on the 'pages' field."}`): the failed call's one parameter is
//! a field the entities hold, spelled whole by the answer (its value not), which no successful read
//! named. Served, the recorded answer unchanged, for a call naming that parameter, where the view
//! would otherwise evaluate it as equality (the application's own refusal of a lookup; one app:
//! django-tastypie).
//!
//! A query parameter a query grammar splits into terms (`q=(filters:!((col:colour,opr:eq,
//! value:red)))` as `q[filters][colour][eq]=red`) is read as its terms, both where refusals are
//! learned and where they are answered: a failed read whose one term names a field in a form
//! (`q[filters][{word}][eq]`) teaches that form's refusal (one app: Flask-AppBuilder, whose
//! `400` `Filter column: colour not allowed to filter` answers every unknown column).
//!
//! Learned from the recordings only (the words a failed and a successful read named and the
//! members the state's entities hold), never from names. The refusals of an operator word or a
//! reserved control parameter the application does not allow (`title[$regex]`, `$search`,
//! `priority__operator=bigger`) are learned and answered beside these, held in the same list
//! (see [`crate::operator_refusals`]).

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;
use rea_plugin_api::query_lists::folded_list;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::answer::{StateAnswer, StateSource};
use crate::model::{Entity, ListView, QueryModel, QueryRole, ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};
use crate::rules::RuleSet;
use crate::service::StateService;

/// Where a refused query names its field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "kebab-case")]
pub enum RefusedForm {
    /// In the parameter's name, between a prefix and a suffix (`filter[` `colour` `]`).
    Name {
        /// The name's text before the field.
        prefix: String,
        /// The name's text after the field.
        suffix: String,
    },
    /// In the value of one parameter, a comma list of fields (`sort=colour`).
    Value {
        /// The parameter's name.
        parameter: String,
        /// The mark a successful read put before a field to sort descending (`-`), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        descending: Option<String>,
    },
    /// A comparison filter of a number field given a value that is no number (the refusal's
    /// `field` is the refused parameter's name).
    Typed,
    /// One name refused whatever its value: a held field's bare name no successful read named,
    /// its refusal spelling the field and not the value (`pages=300` refused: the application
    /// allows no equality on it); `field` is the refused name.
    Exact,
    /// An operator word in a parameter's name after a held field, between two affixes, that no
    /// successful read put there (`title[$regex]`; see [`crate::operator_refusals`]); `field` is
    /// the refused word.
    Operator {
        /// The name's text between the field and the word (`[$`).
        before: String,
        /// The name's text after the word (`]`).
        after: String,
        /// The words the successful reads put there, sorted: never refused.
        words: Vec<String>,
    },
    /// An operator word as the value of a held field's companion parameter that no successful
    /// read gave it (`priority__operator=bigger`; see [`crate::operator_refusals`]); `field` is
    /// the refused word.
    OperatorValue {
        /// The companion's name after the field (`__operator`).
        affix: String,
        /// The values the successful reads gave such a companion, sorted: never refused.
        words: Vec<String>,
    },
    /// A reserved control parameter, a sigil and a plain word, no successful read named
    /// (`$search`; see [`crate::operator_refusals`]); `field` is the refused word.
    Control {
        /// The sigil the successful reads' controls start with (`$`).
        sigil: String,
        /// The control words the successful reads named with it, sorted: never refused.
        words: Vec<String>,
    },
}

/// The operators comparing a field with one value.
const COMPARISONS: [&str; 6] = ["eq", "ne", "gt", "gte", "lt", "lte"];

/// The number field a parameter of a list's query model (its roles) compares with one value.
fn compared_field<'m>(model: Option<&'m QueryModel>, name: &str) -> Option<&'m str> {
    compared_by(&model?.parameters, name)
}

/// The field a parameter's role compares with one value, if any.
fn compared_by<'m>(roles: &'m BTreeMap<String, QueryRole>, name: &str) -> Option<&'m str> {
    match roles.get(name)? {
        QueryRole::Filter { field, op } if COMPARISONS.contains(&op.as_str()) => Some(field),
        _ => None,
    }
}

/// Whether the entities holding `field` (a dotted path) hold it as a number, one at least.
fn holds_numbers<'e>(entities: impl Iterator<Item = &'e Entity>, field: &str) -> bool {
    let pointer = format!("/{}", field.replace('.', "/"));
    let mut shown = false;
    for entity in entities {
        match entity.fields.pointer(&pointer) {
            None | Some(Json::Null) => {}
            Some(Json::Number(_)) => shown = true,
            Some(_) => return false,
        }
    }
    shown
}

/// Whether a query value reads as a number.
fn is_number(value: &str) -> bool {
    rea_plugin_api::json::Number::from_lexeme(value.trim()).is_some()
}

/// Whether an answer names a parameter: as a member's name, or whole in a string.
fn names_parameter(answer: &Json, name: &str) -> bool {
    spells_word(answer, name)
        || match answer {
            Json::Object(members) => members
                .iter()
                .any(|(key, value)| key == name || names_parameter(value, name)),
            Json::Array(items) => items.iter().any(|item| names_parameter(item, name)),
            _ => false,
        }
}

/// An answer with each member named `from` renamed `to`, at any depth.
fn rename_members(answer: &mut Json, from: &str, to: &str) {
    match answer {
        Json::Object(members) => {
            if let Some(value) = members.remove(from) {
                members.insert(to, value);
            }
            members
                .iter_mut()
                .for_each(|(_, value)| rename_members(value, from, to));
        }
        Json::Array(items) => items
            .iter_mut()
            .for_each(|item| rename_members(item, from, to)),
        _ => {}
    }
}

/// A list tool's recorded refusal of a query naming a field its entities do not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryRefusal {
    /// The list read tool.
    pub tool: String,
    /// The listed entity type (its collection template).
    pub entity_type: String,
    /// Where the query names the field.
    #[serde(flatten)]
    pub form: RefusedForm,
    /// The field the refused call named (renamed in its answer to the one a call names).
    pub field: String,
    /// The refused call's record.
    pub ordinal: u64,
}

/// Whether a word is plain: letters, digits and `_` only, and not empty.
pub(crate) fn plain(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Every member name an entity's fields hold, at any depth.
fn member_names(value: &Json, names: &mut BTreeSet<String>) {
    match value {
        Json::Object(members) => {
            for (name, member) in members.iter() {
                names.insert(name.to_owned());
                member_names(member, names);
            }
        }
        Json::Array(items) => items.iter().for_each(|item| member_names(item, names)),
        _ => {}
    }
}

/// The member names the entities of a type hold.
fn held_names<'e>(entities: impl Iterator<Item = &'e Entity>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entity in entities {
        member_names(&entity.fields, &mut names);
    }
    names
}

/// Whether a string of the answer (not a key) holds the word whole: the characters beside it
/// are neither letters, digits nor `_`.
pub(crate) fn spells_word(answer: &Json, word: &str) -> bool {
    match answer {
        Json::String(text) => {
            let inner = |c: char| c.is_alphanumeric() || c == '_';
            text.match_indices(word).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + word.len()..].chars().next();
                !before.is_some_and(inner) && !after.is_some_and(inner)
            })
        }
        Json::Array(items) => items.iter().any(|item| spells_word(item, word)),
        Json::Object(members) => members.iter().any(|(_, value)| spells_word(value, word)),
        _ => false,
    }
}

/// A value's fields: its comma-separated terms without the descending mark; `None` when a term
/// is no plain word.
fn value_fields(value: &str, descending: Option<&str>) -> Option<Vec<String>> {
    value
        .split(',')
        .map(|term| {
            let field = descending
                .and_then(|mark| term.strip_prefix(mark))
                .unwrap_or(term);
            plain(field).then(|| field.to_owned())
        })
        .collect()
}

/// The field a query pair names in a form: the word between the prefix and suffix of a name,
/// or the first of a value's fields the `held` names lack.
fn named_field(
    form: &RefusedForm,
    (name, value): (&str, &str),
    held: &BTreeSet<String>,
) -> Option<String> {
    match form {
        RefusedForm::Name { prefix, suffix } => {
            let field = name
                .strip_prefix(prefix.as_str())?
                .strip_suffix(suffix.as_str())?;
            (plain(field) && !held.contains(field)).then(|| field.to_owned())
        }
        RefusedForm::Value {
            parameter,
            descending,
        } => {
            if name != parameter {
                return None;
            }
            value_fields(value, descending.as_deref())?
                .into_iter()
                .find(|field| !held.contains(field))
        }
        // A value refusal names no field (see [`typed_answer`]); an exact one names its own; the
        // operator and control forms name words (see [`crate::operator_refusals`]).
        _ => None,
    }
}

/// The forms a refused pair may name its one field in: each plain word of its name between a
/// prefix and a suffix (neither empty: a bare name is no family of names), and its value's one
/// field (the mark of a descending sort is learned from the successes).
fn candidate_forms((name, value): (&str, &str)) -> Vec<(RefusedForm, String)> {
    let mut forms = Vec::new();
    let mut start = None;
    for (at, c) in name.char_indices().chain([(name.len(), ' ')]) {
        let inner = at < name.len() && (c.is_alphanumeric() || c == '_');
        match (inner, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) if from > 0 && at < name.len() => {
                let form = RefusedForm::Name {
                    prefix: name[..from].to_owned(),
                    suffix: name[at..].to_owned(),
                };
                forms.push((form, name[from..at].to_owned()));
                start = None;
            }
            (false, Some(_)) => start = None,
            _ => {}
        }
    }
    let field = value.strip_prefix('-').unwrap_or(value);
    if plain(field) {
        let form = RefusedForm::Value {
            parameter: name.to_owned(),
            descending: None,
        };
        forms.push((form, field.to_owned()));
    }
    forms
}

/// The member names the entities hold, and whether the list's query model reads a name.
type HeldAndModelled<'a> = (&'a BTreeSet<String>, &'a dyn Fn(&str) -> bool);

/// The form as the successful reads show it: one of them used it with held fields only (a
/// name form with a held field; a value form whose every term names a held field, its
/// descending mark `-` when a term carried it), and none with a plain word the entities do not
/// hold (which the application would then accept) unless the list's query model reads that
/// parameter (`modelled`: a foreign-key column filtering by the relation, `filter[project_id]`,
/// which a call naming it is answered by too).
fn shown_form(
    form: RefusedForm,
    successes: &[(String, String)],
    (held, modelled): HeldAndModelled<'_>,
) -> Option<RefusedForm> {
    let pairs = || successes.iter();
    let form = match form {
        RefusedForm::Name { .. } => form,
        RefusedForm::Value { parameter, .. } => {
            let marked = pairs()
                .filter(|(name, _)| *name == parameter)
                .any(|(_, value)| value.split(',').any(|term| term.starts_with('-')));
            RefusedForm::Value {
                parameter,
                descending: marked.then(|| "-".to_owned()),
            }
        }
        _ => return None,
    };
    let mut shown = false;
    for (name, value) in pairs() {
        let fields = match &form {
            RefusedForm::Name { .. } => {
                named_field(&form, (name, value), &BTreeSet::new()).map(|field| vec![field])
            }
            RefusedForm::Value {
                parameter,
                descending,
            } => (name == parameter)
                .then(|| value_fields(value, descending.as_deref()))
                .flatten(),
            _ => None,
        };
        match fields {
            Some(fields) if fields.iter().all(|field| held.contains(field)) => shown = true,
            Some(_) if matches!(form, RefusedForm::Name { .. }) && modelled(name) => {}
            Some(_) => return None,
            None => {}
        }
    }
    shown.then_some(form)
}

/// The refused parameter a failed pair shows in the typed form (see the module docs).
fn typed_refusal(
    list: &crate::model::ListView,
    entities: &[Entity],
    (name, value): (&str, &str),
    answer: &Json,
) -> Option<String> {
    let field = compared_field(list.query.as_ref(), name)?;
    let of_type = entities
        .iter()
        .filter(|entity| entity.entity_type == list.entity_type);
    let named = names_parameter(answer, name) || !spells_word(answer, value);
    (!is_number(value) && holds_numbers(of_type, field) && named).then(|| name.to_owned())
}

/// The name a failed pair shows refused whatever its value (see [`RefusedForm::Exact`]): a held
/// field the answer spells whole, its value not, and no success named.
fn exact_refusal(
    successes: &[(String, String)],
    held: &BTreeSet<String>,
    (name, value): (&str, &str),
    answer: &Json,
) -> bool {
    let named = successes.iter().any(|(sent, _)| sent == name);
    held.contains(name) && spells_word(answer, name) && !spells_word(answer, value) && !named
}

/// A list view's list and the member names the entities of its type hold (`None` for a view of
/// another kind).
fn list_and_held<'v>(
    view: &'v ReadView,
    entities: &[Entity],
) -> Option<(&'v ListView, BTreeSet<String>)> {
    let ViewDetail::List(list) = &view.detail else {
        return None;
    };
    let of_type = entities
        .iter()
        .filter(|entity| entity.entity_type == list.entity_type);
    Some((list, held_names(of_type)))
}

/// The refusals one list view's failed reads teach (see the module docs).
fn derive_one(
    timeline: &Timeline,
    tool: usize,
    (view, entities): (&ReadView, &[Entity]),
    rules: &RuleSet,
) -> Vec<QueryRefusal> {
    let Some((list, held)) = list_and_held(view, entities) else {
        return Vec::new();
    };
    let successes = successful_pairs(timeline, tool, rules);
    let modelled =
        |name: &str| (list.query.as_ref()).is_some_and(|model| model.parameters.contains_key(name));
    let mut learned: Vec<QueryRefusal> = Vec::new();
    for failed in timeline.all(tool) {
        let (Some(answer), Some([(name, value)])) = (&failed.body, failed.query.as_deref()) else {
            continue;
        };
        let terms = term_pairs(rules, (name, value));
        let [(name, value)] = terms.as_slice() else {
            continue;
        };
        if !matches!(failed.status, 400 | 422) || held.is_empty() {
            continue;
        }
        if let Some(typed) = typed_refusal(list, entities, (name, value), answer)
            && !learned.iter().any(|known| known.form == RefusedForm::Typed)
        {
            learned.push(QueryRefusal {
                tool: view.tool.clone(),
                entity_type: list.entity_type.clone(),
                form: RefusedForm::Typed,
                field: typed,
                ordinal: failed.ordinal,
            });
            continue;
        }
        let shown: Vec<(RefusedForm, String)> = candidate_forms((name, value))
            .into_iter()
            .filter(|(_, field)| !held.contains(field) && spells_word(answer, field))
            .filter_map(|(form, field)| {
                Some((shown_form(form, &successes, (&held, &modelled))?, field))
            })
            .collect();
        if let [(form, field)] = shown.as_slice()
            && !learned.iter().any(|known| known.form == *form)
        {
            learned.push(QueryRefusal {
                tool: view.tool.clone(),
                entity_type: list.entity_type.clone(),
                form: form.clone(),
                field: field.clone(),
                ordinal: failed.ordinal,
            });
        } else if shown.is_empty() && exact_refusal(&successes, &held, (name, value), answer) {
            learned.push(QueryRefusal {
                tool: view.tool.clone(),
                entity_type: list.entity_type.clone(),
                form: RefusedForm::Exact,
                field: name.clone(),
                ordinal: failed.ordinal,
            });
        }
    }
    learned
}

/// The query pairs (as terms) of a tool's successful reads.
fn successful_pairs(timeline: &Timeline, tool: usize, rules: &RuleSet) -> Vec<(String, String)> {
    timeline
        .all(tool)
        .filter(|seen| seen.is_success())
        .flat_map(|seen| seen.query.iter().flatten())
        .flat_map(|(name, value)| term_pairs(rules, (name, value)))
        .collect()
}

/// The refusals of a field's name or value form one list learned, lent to each other list of
/// another type whose own successful reads used that form with its held fields only, and that
/// learned no refusal of the form: where the recorded refusal spells no word of its list's type
/// (`Invalid filter field: colour`, not `TaskSchema has no attribute colour`), it is the
/// application's answer to any list's unknown field in that form (dynamic-rest's
/// `filter{colour}` and `sort[]=colour` on tasks, answering `filter{owner}` on projects and
/// `sort[]=height` on people).
fn lend_to_siblings(
    (manifest, timeline): (&Manifest, &Timeline),
    (entities, views): (&[Entity], &[ReadView]),
    rules: &RuleSet,
    learned: &mut Vec<QueryRefusal>,
) {
    let mut lent = Vec::new();
    for refusal in learned.iter() {
        if !matches!(
            refusal.form,
            RefusedForm::Name { .. } | RefusedForm::Value { .. }
        ) || spells_type(timeline, refusal)
        {
            continue;
        }
        for view in views.iter().filter(|view| view.method == "GET") {
            let Some((list, held)) = list_and_held(view, entities) else {
                continue;
            };
            let Some(tool) = crate::derive::tool_index(manifest, &view.tool) else {
                continue;
            };
            let known =
                |known: &QueryRefusal| known.tool == view.tool && known.form == refusal.form;
            if list.entity_type == refusal.entity_type
                || held.is_empty()
                || learned.iter().chain(&lent).any(known)
            {
                continue;
            }
            let modelled = |name: &str| {
                (list.query.as_ref()).is_some_and(|model| model.parameters.contains_key(name))
            };
            let successes = successful_pairs(timeline, tool, rules);
            // A value form is the sibling's whatever descending mark its own sorts showed: the
            // application's mark is the one the refusing list learned.
            let same_form = |shown: RefusedForm| match (&shown, &refusal.form) {
                (
                    RefusedForm::Value { parameter, .. },
                    RefusedForm::Value {
                        parameter: refused, ..
                    },
                ) => parameter == refused,
                _ => shown == refusal.form,
            };
            if shown_form(refusal.form.clone(), &successes, (&held, &modelled))
                .is_some_and(same_form)
            {
                lent.push(QueryRefusal {
                    tool: view.tool.clone(),
                    entity_type: list.entity_type.clone(),
                    ..refusal.clone()
                });
            }
        }
    }
    learned.extend(lent);
}

/// Whether a refusal's recorded answer spells, in any case, a word of its list's type: the
/// last segment of its collection template, or that segment without a final `s` (`TaskSchema`
/// of `/tasks`).
fn spells_type(timeline: &Timeline, refusal: &QueryRefusal) -> bool {
    let Some(segment) = (refusal.entity_type.split('/'))
        .rfind(|segment| !segment.is_empty() && !segment.starts_with('{'))
    else {
        return false;
    };
    let word = segment.to_lowercase();
    let singular = word.strip_suffix('s').unwrap_or(&word).to_owned();
    let Some(answer) = timeline
        .get(refusal.ordinal)
        .and_then(|observation| observation.body.as_ref())
    else {
        return true;
    };
    let text = answer.to_canonical_string().to_lowercase();
    text.contains(&word) || (singular.len() >= 3 && text.contains(&singular))
}

/// The refusals of operator words and control parameters one list view's failed reads teach
/// (see [`crate::operator_refusals`]).
fn derive_words(
    (timeline, records): (&Timeline, &[CaptureRecord]),
    tool: usize,
    view: &ReadView,
    entities: &[Entity],
) -> Vec<QueryRefusal> {
    let Some((list, held)) = list_and_held(view, entities) else {
        return Vec::new();
    };
    let observations: Vec<&Observation> = timeline.all(tool).collect();
    crate::operator_refusals::derive_one(
        (&observations, records),
        (&view.tool, &list.entity_type),
        &held,
    )
}

/// The query refusals the list reads' recordings teach (see the module docs and
/// [`crate::operator_refusals`]); `records` give the answers that are no JSON their text.
pub fn derive(
    manifest: &Manifest,
    (timeline, records): (&Timeline, &[CaptureRecord]),
    (entities, views): (&[Entity], &[ReadView]),
    rules: &RuleSet,
) -> Vec<QueryRefusal> {
    let mut learned: Vec<QueryRefusal> = views
        .iter()
        .filter(|view| view.method == "GET")
        .filter_map(|view| {
            let tool = crate::derive::tool_index(manifest, &view.tool)?;
            let mut learned = derive_one(timeline, tool, (view, entities), rules);
            learned.extend(derive_words((timeline, records), tool, view, entities));
            Some(learned)
        })
        .flatten()
        .collect();
    lend_to_siblings((manifest, timeline), (entities, views), rules, &mut learned);
    learned
}

/// The argument family a name form admits: its prefix, a plain word, its suffix.
pub(crate) fn family_pattern(prefix: &str, suffix: &str) -> String {
    format!(
        "^{}[A-Za-z0-9_]+{}$",
        regex::escape(prefix),
        regex::escape(suffix)
    )
}

/// Whether a tool takes a query name already: recorded, or offered by its view (no unknown field).
fn takes_name(service: &StateService, tool: &str, name: &str) -> bool {
    service
        .replay()
        .tool(tool)
        .is_some_and(|definition| definition.input_schema.argument(name).is_some())
        || service
            .derived()
            .view(tool)
            .is_some_and(|view| crate::catalog::generalized_names(view).contains(name))
}

/// Whether a tool's list query model reads a query name (a term of an expression, such as
/// `filter[objects][project_id][eq]`, included).
fn modelled(service: &StateService, tool: &str, name: &str) -> bool {
    (service.derived().view(tool))
        .and_then(|view| view.list_query())
        .is_some_and(|(_, model)| model.parameters.contains_key(name))
}

/// Whether a tool takes a query name already or its view's grammar reads it as terms (one of its
/// families): no refused operator or control.
fn explains_name(service: &StateService, tool: &str, name: &str) -> bool {
    takes_name(service, tool, name)
        || service.derived().view(tool).is_some_and(|view| {
            let families = crate::catalog::argument_families(view);
            crate::families::family_of(families, name).is_some()
        })
}

/// The refusal a read call answers when a query argument names, in a learned form, a field the
/// live entities of the listed type do not hold, or a word the application refused (see
/// [`crate::operator_refusals`]); `None` otherwise.
pub(crate) fn answer(
    service: &StateService,
    tool: &str,
    arguments: &Map<String, Value>,
) -> Option<StateAnswer> {
    let refusals: Vec<&QueryRefusal> = service
        .derived()
        .query_refusals
        .iter()
        .filter(|refusal| refusal.tool == tool)
        .collect();
    let first = refusals.first()?;
    let held = {
        let live = service.read();
        let collections = live.collections_of(&first.entity_type);
        held_names(
            collections
                .iter()
                .flat_map(|collection| live.collection(&first.entity_type, collection)),
        )
    };
    let known = |name: &str| takes_name(service, tool, name) || modelled(service, tool, name);
    let explained = |name: &str| explains_name(service, tool, name);
    for (name, value) in arguments {
        let texts = rea_manifest::replay::query_texts(value).unwrap_or_default();
        // A list name's values read as the one pair the state reads (`sort[]=height` as
        // `sort=height`), as the recorded pairs were.
        let (name, value) = match (folded_list(name, &texts), texts.as_slice()) {
            (Some(folded), _) => folded,
            (None, [value]) => (name.clone(), value.clone()),
            _ => continue,
        };
        for (name, value) in term_pairs(service.rules(), (&name, &value)) {
            if let Some(refused) = refused_pair(
                service,
                &refusals,
                (&name, &value),
                (&held, &known, &explained),
            ) {
                return Some(refused);
            }
        }
    }
    None
}

/// What a call's pairs are read against: the member names the live entities hold, whether the
/// tool takes a name already, and whether its view explains one.
type PairReading<'a> = (
    &'a BTreeSet<String>,
    &'a dyn Fn(&str) -> bool,
    &'a dyn Fn(&str) -> bool,
);

/// The refusal one query pair (or one term of an expression) answers, by the first refusal
/// that applies to it.
fn refused_pair(
    service: &StateService,
    refusals: &[&QueryRefusal],
    (name, value): (&str, &str),
    (held, known, explained): PairReading<'_>,
) -> Option<StateAnswer> {
    for refusal in refusals {
        if let Some(refused) =
            crate::operator_refusals::answer(service, refusal, (name, value), held, &explained)
        {
            return Some(refused);
        }
        if refusal.form == RefusedForm::Exact && refusal.field == name {
            return Some(crate::missing::renamed_answer(
                service.kept(refusal.ordinal)?,
                &[],
                service.replay_evidence_id(),
                false,
                StateSource::state("query-refused", None),
            ));
        }
        if refusal.form == RefusedForm::Typed {
            if let Some(refused) = typed_answer(service, refusal, (name, value)) {
                return Some(refused);
            }
            continue;
        }
        if let RefusedForm::Name { prefix, suffix } = &refusal.form
            && known(name)
            && name != format!("{prefix}{}{suffix}", refusal.field)
        {
            // A name the tool takes (but the refused one, recorded by its refusal).
            continue;
        }
        let Some(field) = named_field(&refusal.form, (name, value), held) else {
            continue;
        };
        let base = service.kept(refusal.ordinal)?;
        let renamed: Vec<(String, String)> = (field != refusal.field)
            .then(|| (refusal.field.clone(), field))
            .into_iter()
            .collect();
        return Some(crate::missing::renamed_answer(
            base,
            &renamed,
            service.replay_evidence_id(),
            false,
            StateSource::state("query-refused", None),
        ));
    }
    None
}

/// A query pair as the terms a query grammar splits its value into (`q=(filters:!((col:colour,
/// opr:eq,value:red)))` as `q[filters][colour][eq]=red`), else the pair itself: a refused field
/// named inside an expression is named in its term's name.
fn term_pairs(rules: &RuleSet, (name, value): (&str, &str)) -> Vec<(String, String)> {
    match rules.split_query_expression((name, value), &[], &[]) {
        Some(terms) => terms
            .into_iter()
            .map(|term| (term.name, term.value))
            .collect(),
        None => vec![(name.to_owned(), value.to_owned())],
    }
}

/// The typed refusal a call's pair answers: a comparison filter of the tool's query model over
/// a field the live entities of the type hold as numbers, given a value that is no number.
fn typed_answer(
    service: &StateService,
    refusal: &QueryRefusal,
    (name, value): (&str, &str),
) -> Option<StateAnswer> {
    if is_number(value) {
        return None;
    }
    let view = service.derived().view(&refusal.tool)?;
    let ViewDetail::List(list) = &view.detail else {
        return None;
    };
    let field = compared_field(list.query.as_ref(), name)?;
    let numbers = {
        let live = service.read();
        let collections = live.collections_of(&refusal.entity_type);
        holds_numbers(
            collections
                .iter()
                .flat_map(|collection| live.collection(&refusal.entity_type, collection)),
            field,
        )
    };
    if !numbers {
        return None;
    }
    let base = service.kept(refusal.ordinal)?;
    let source = StateSource::state("query-refused", None);
    match base.json() {
        Some(json) if name != refusal.field => {
            let mut body = json.clone();
            rename_members(&mut body, &refusal.field, name);
            let renamed = [(refusal.field.clone(), name.to_owned())];
            Some(crate::missing::renamed_json(
                base,
                body,
                &renamed,
                service.replay_evidence_id(),
                source,
            ))
        }
        _ => Some(crate::missing::renamed_answer(
            base,
            &[],
            service.replay_evidence_id(),
            false,
            source,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::name_set as held;

    #[test]
    fn a_name_form_names_the_plain_word_between_its_prefix_and_suffix() {
        let form = RefusedForm::Name {
            prefix: "filter[".to_owned(),
            suffix: "]".to_owned(),
        };
        let held = held(&["title", "status"]);
        assert_eq!(
            named_field(&form, ("filter[weight]", "1"), &held).as_deref(),
            Some("weight")
        );
        // A held field, an operator suffix or another family names nothing refused.
        assert_eq!(named_field(&form, ("filter[title]", "x"), &held), None);
        assert_eq!(named_field(&form, ("filter[weight.gte]", "1"), &held), None);
        assert_eq!(named_field(&form, ("page[weight]", "1"), &held), None);
    }

    #[test]
    fn a_value_form_names_its_first_unheld_term_without_the_descending_mark() {
        let form = RefusedForm::Value {
            parameter: "sort".to_owned(),
            descending: Some("-".to_owned()),
        };
        let held = held(&["title", "priority"]);
        assert_eq!(
            named_field(&form, ("sort", "-weight"), &held).as_deref(),
            Some("weight")
        );
        assert_eq!(
            named_field(&form, ("sort", "title,-weight"), &held).as_deref(),
            Some("weight")
        );
        assert_eq!(named_field(&form, ("sort", "-priority,title"), &held), None);
        // A term that is no plain word leaves the call to the view.
        assert_eq!(
            named_field(&form, ("sort", "project.name,weight"), &held),
            None
        );
        assert_eq!(named_field(&form, ("order", "weight"), &held), None);
    }

    #[test]
    fn a_form_is_shown_by_held_fields_and_not_denied_by_modelled_columns() {
        let form = || RefusedForm::Name {
            prefix: "filter[".to_owned(),
            suffix: ":eq]".to_owned(),
        };
        let held = held(&["title", "status"]);
        let pairs = |names: &[&str]| -> Vec<(String, String)> {
            (names.iter())
                .map(|name| ((*name).to_owned(), "1".to_owned()))
                .collect()
        };
        let successes = pairs(&["filter[status:eq]", "filter[project_id:eq]"]);
        let modelled = |name: &str| name == "filter[project_id:eq]";
        let nothing = |_: &str| false;
        assert_eq!(
            shown_form(form(), &successes, (&held, &modelled)),
            Some(form())
        );
        // A success naming a word the entities lack that no query model reads: the application
        // accepts such words, so the form refuses none.
        assert_eq!(shown_form(form(), &successes, (&held, &nothing)), None);
        // No success with a held field shows the form.
        let columns = pairs(&["filter[project_id:eq]"]);
        assert_eq!(shown_form(form(), &columns, (&held, &modelled)), None);
    }

    #[test]
    fn a_refused_pair_offers_each_word_of_its_name_and_its_value() {
        let forms = candidate_forms(("filter[colour]", "red"));
        let fields: Vec<&str> = forms.iter().map(|(_, field)| field.as_str()).collect();
        assert_eq!(fields, ["colour", "red"]);
        assert_eq!(
            forms[0].0,
            RefusedForm::Name {
                prefix: "filter[".to_owned(),
                suffix: "]".to_owned()
            }
        );
    }

    #[test]
    fn an_answer_spells_a_word_whole_in_its_strings() {
        let answer = Json::parse(
            br#"{"errors": [{"detail": "TaskSchema has no attribute colour", "colours": 1}]}"#,
        )
        .expect("json");
        assert!(spells_word(&answer, "colour"));
        assert!(!spells_word(&answer, "colours"));
        assert!(!spells_word(&answer, "attrib"));
    }

    #[test]
    fn a_number_compared_with_no_number_is_the_typed_form() {
        let roles: BTreeMap<String, QueryRole> = [
            ("priority__gte".into(), QueryRole::filter("priority", "gte")),
            (
                "title__icontains".into(),
                QueryRole::filter("title", "like"),
            ),
        ]
        .into();
        assert_eq!(compared_by(&roles, "priority__gte"), Some("priority"));
        assert_eq!(compared_by(&roles, "title__icontains"), None);
        assert_eq!(compared_field(None, "priority__gte"), None);
        let tasks = [
            crate::test_support::entity("/t", "1", r#"{"id": 1, "priority": 2}"#),
            crate::test_support::entity("/t", "2", r#"{"id": 2, "priority": null}"#),
        ];
        assert!(holds_numbers(tasks.iter(), "priority"));
        assert!(!holds_numbers(tasks.iter(), "title"));
        let text = [crate::test_support::entity(
            "/t",
            "3",
            r#"{"priority": "high"}"#,
        )];
        assert!(!holds_numbers(tasks.iter().chain(&text), "priority"));
        assert!(is_number("2.5") && !is_number("high"));
        let mut answer = Json::parse(br#"{"priority__gte": ["Enter a number."]}"#).expect("json");
        assert!(names_parameter(&answer, "priority__gte"));
        assert!(!names_parameter(&answer, "priority"));
        rename_members(&mut answer, "priority__gte", "priority__lt");
        assert_eq!(
            answer,
            Json::parse(br#"{"priority__lt": ["Enter a number."]}"#).expect("json")
        );
    }

    #[test]
    fn the_name_family_admits_plain_words_only() {
        let pattern = family_pattern("filter[", "]");
        assert!(crate::families::readable(&pattern));
        assert!(crate::families::matches(&pattern, "filter[weight]"));
        assert!(!crate::families::matches(&pattern, "filter[weight.gte]"));
        assert!(!crate::families::matches(&pattern, "xfilter[weight]"));
    }

    #[test]
    fn an_exact_refusal_names_a_held_field_no_success_named_and_not_its_value() {
        use crate::test_support::owned_pairs;
        let answer =
            Json::parse(br#"{"error": "'exact' is not an allowed filter on the 'pages' field."}"#)
                .expect("json");
        let held = held(&["title", "pages"]);
        let successes = owned_pairs(&[("pages__gte", "300")]);
        assert!(exact_refusal(&successes, &held, ("pages", "300"), &answer));
        // A field the entities do not hold, a refusal spelling the value, or a name a success
        // named teaches no exact refusal.
        assert!(!exact_refusal(
            &successes,
            &held,
            ("weight", "300"),
            &answer
        ));
        let valued = Json::parse(br#"{"error": "pages: 'abc' is no number"}"#).expect("json");
        assert!(!exact_refusal(&successes, &held, ("pages", "abc"), &valued));
        let named = owned_pairs(&[("pages", "312")]);
        assert!(!exact_refusal(&named, &held, ("pages", "300"), &answer));
    }
}
