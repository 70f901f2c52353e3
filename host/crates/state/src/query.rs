//! The list query model: which role each query parameter plays, and evaluating a query over the
//! state's entities.
//!
//! Roles are proposed by name ([`candidate_roles`]: page sizes such as `limit`, `per_page`,
//! `maxSize`, `max_results`; pages, offsets, sorts and their direction, search, and filters by
//! field with an operator prefix or suffix such as `views_gte` or `in_status`) and kept only when
//! evaluating the recorded query lines over the state reproduces them (extraction does that; see
//! [`crate::derive`]). A parameter no name proposes a role for is `inert` when every line naming
//! it lists what the line without it would, and the view has a whole line of the collection (so
//! "changes nothing" was seen); it is accepted only with the values the recordings gave it.
//! Evaluation filters, searches, sorts (stable over state order) and pages;
//! the caller sets counters to the number listed and totals to the number matched.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::{Json, Object};
use regex::Regex;

use crate::model::{QueryModel, QueryRole, TermBranch};
use crate::render::scalar_text;
pub use rea_plugin_api::query_fields::{
    END_NAMES, OFFSET_NAMES, ORDER_NAMES, PAGE_NAMES, PAGE_SIZE_NAMES, SEARCH_NAMES, SORT_NAMES,
    WHOLE_POSITION_NAMES, candidate_roles, operator_word, spelled_in,
};

/// Whether a query parameter sorts or orders a list (a read with one never teaches a collection's
/// own order).
pub fn is_sort_parameter(name: &str) -> bool {
    spelled_in(&SORT_NAMES, name) || spelled_in(&ORDER_NAMES, name)
}

/// Field-selection parameter names: a call naming one asks for a `projection`; other parameters
/// that show members in another representation are a `variant`.
pub const PROJECTION_NAMES: [&str; 12] = [
    "fields",
    "_fields",
    "select",
    "$select",
    "exclude",
    "omit",
    "include",
    "only",
    "attributes",
    "columns",
    "_source",
    "keys",
];

/// Whether a parameter selects fields (a [`PROJECTION_NAMES`] name, or one less a sigil, or one
/// nested in a wrapper's brackets: `filter[fields]`, see
/// [`rea_plugin_api::query_fields::unnested`]).
pub fn is_projection(name: &str) -> bool {
    spelled_in(&PROJECTION_NAMES, name)
        || rea_plugin_api::query_fields::unnested(name)
            .is_some_and(|inner| spelled_in(&PROJECTION_NAMES, &inner))
}

/// Whether a parameter only pages a list (page size, or a position at its beginning).
pub fn only_pages(name: &str, value: &str) -> bool {
    if spelled_in(&PAGE_SIZE_NAMES, name) {
        return value.parse::<u64>().is_ok();
    }
    if spelled_in(&WHOLE_POSITION_NAMES, name) {
        return value == "0";
    }
    false
}

/// The value of a dotted field in an object. A part `member[name=value]` steps into the entry
/// of the array `member` whose `name` member is the text `value` (a keyed list, such as
/// `data.metrics[key=auc].value`).
pub fn field_value<'a>(object: &'a Object, field: &str) -> Option<&'a Json> {
    if let Some(value) = object.get(field) {
        return Some(value);
    }
    if let Some((member, rest)) = field.split_once('.')
        && !matches!(object.get(member), Some(Json::Object(_)))
        && let Some(Json::Object(joined)) = object.get(&joined_member(member))
    {
        return field_value(joined, rest);
    }
    let mut parts = field.split('.');
    let Some(mut current) = parts.next().and_then(|first| member_value(object, first)) else {
        return nested_member(object, field);
    };
    for part in parts {
        current = member_value(current.as_object()?, part)?;
    }
    Some(current)
}

/// A plain field no member of the object is named, held by exactly one of its object members
/// (the properties an envelope member nests: `status` of `{"attributes": {"status": …}}`); never
/// a joined entity's (see [`JOINED`]). A field no object member holds either, spelled as a
/// foreign-key column (see [`foreign_key_relation`]), reads the identifier of the relation it
/// names.
fn nested_member<'a>(object: &'a Object, field: &str) -> Option<&'a Json> {
    if field.contains(['.', '[']) {
        return None;
    }
    let nested = |name: &str| {
        let mut found = object
            .iter()
            .filter(|(key, _)| !key.starts_with(JOINED))
            .filter_map(|(_, member)| member.as_object()?.get(name));
        let first = found.next()?;
        found.next().is_none().then_some(first)
    };
    match nested(field) {
        Some(value) => Some(relation_identifier(value).unwrap_or(value)),
        None => relation_identifier(nested(foreign_key_relation(field)?)?),
    }
}

/// The relation a field spelled as a foreign-key column names: the field without its `_id` or
/// `Id` suffix (`project_id`, `projectId`: `project`), the spelling of the column an ORM keeps a
/// to-one relation's identifier in, which a JSON:API resource shows only as the relation's
/// linkage (`relationships.project.data.id`). Read only where no member holds the field and the
/// relation is a relation object, and a filter on it is learned only where recorded lines
/// filtering by it are reproduced.
pub(crate) fn foreign_key_relation(field: &str) -> Option<&str> {
    field
        .strip_suffix("_id")
        .or_else(|| field.strip_suffix("Id"))
        .filter(|relation| !relation.is_empty() && !relation.ends_with('_'))
}

/// The identifier a to-one relation object names, which a plain field holding one reads as
/// (see [`nested_member`]): of `{"links": {…}, "data": {"type": "Author", "id": "2"}}` the
/// `"2"`, of `{"links": {…}, "data": null}` the `null` (see [`relation_linkage`]).
pub fn relation_identifier(value: &Json) -> Option<&Json> {
    match relation_linkage(value)? {
        Json::Object(identifier) => identifier.get("id"),
        null => Some(null),
    }
}

/// The value a filter compares for a field's value: an embedded record (an object with a scalar
/// `id`, as a to-one association populated into the record that names it, Waterline's
/// `"project": {"id": 1, "name": …}`) as its id, which a filter on the association names
/// (`project=1`, `where={"project": {"in": [1, 2]}}`); any other value as it is.
pub fn embedded_identifier(value: &Json) -> &Json {
    match value {
        Json::Object(members) => match members.get("id") {
            Some(id) if !matches!(id, Json::Object(_) | Json::Array(_) | Json::Null) => id,
            _ => value,
        },
        other => other,
    }
}

/// The linkage of a to-one relation object: its one member holding a resource identifier (an
/// object with a scalar `id`, `{"type": "Author", "id": "2"}`) or `null`, when the object has no
/// `id` of its own and its other members are objects of texts (its links); `None` for any other
/// value.
pub fn relation_linkage(value: &Json) -> Option<&Json> {
    let Json::Object(members) = value else {
        return None;
    };
    if members.contains_key("id") {
        return None;
    }
    let mut found = None;
    for (_, member) in members.iter() {
        match member {
            Json::Null => {}
            Json::Object(inner) => match inner.get("id") {
                Some(id) if !matches!(id, Json::Object(_) | Json::Array(_) | Json::Null) => {}
                Some(_) => return None,
                None if inner
                    .iter()
                    .all(|(_, text)| matches!(text, Json::String(_))) =>
                {
                    continue;
                }
                None => return None,
            },
            _ => return None,
        }
        if found.replace(member).is_some() {
            return None;
        }
    }
    found
}

/// The prefix of the member under which a query's object holds the related entity one of its
/// members names (see [`crate::joins`]): a filter on `project.status` reads the `status` of the
/// entity joined for `project` where the object's own `project` holds an id, not an object.
/// No application's member starts with it, and searches read no member named with it.
pub const JOINED: &str = "\u{0}joined:";

/// The member holding the entity joined for `member` (see [`JOINED`]).
pub fn joined_member(member: &str) -> String {
    format!("{JOINED}{member}")
}

/// One part of a dotted field (see [`field_value`]).
fn member_value<'a>(object: &'a Object, part: &str) -> Option<&'a Json> {
    let Some((member, entry)) = part.strip_suffix(']').and_then(|rest| rest.split_once('[')) else {
        return object.get(part);
    };
    let (name, value) = entry.split_once('=')?;
    object.get(member)?.as_array()?.iter().find(|item| {
        item.get(name)
            .and_then(scalar_text)
            .is_some_and(|text| text == value)
    })
}

pub(crate) fn compare_text(left: &str, right: &str) -> Ordering {
    match (left.parse::<f64>(), right.parse::<f64>()) {
        (Ok(a), Ok(b)) if a.is_finite() && b.is_finite() => {
            a.partial_cmp(&b).unwrap_or(Ordering::Equal)
        }
        _ => left.cmp(right),
    }
}

/// The text a query value names JSON null with in an equality (`assigneeId=null`).
const NULL_TEXT: &str = "null";

fn filter_matches(object: &Object, (field, op, argument): Filter<'_>, bytes: bool) -> bool {
    let value = field_value(object, field);
    if let Some(linked) = crate::link_filters::matches(field, value, op, argument) {
        return linked;
    }
    let value = value.map(embedded_identifier);
    let text = value.and_then(scalar_text);
    let compare_text = |left: &str, right: &str| {
        if bytes {
            left.cmp(right)
        } else {
            compare_text(left, right)
        }
    };
    // `null` names a field holding JSON null (`assigneeId=null`), as a query string spells it.
    let equal = text.as_deref() == Some(argument)
        || (argument == NULL_TEXT && matches!(value, Some(Json::Null)));
    match op {
        "eq" => equal,
        "ne" => !equal,
        "in" => text
            .as_deref()
            .is_some_and(|text| argument.split(',').any(|item| item == text)),
        "nin" => text
            .as_deref()
            .is_some_and(|text| !argument.split(',').any(|item| item == text)),
        "like" => {
            let holds = |text: &str| text.to_lowercase().contains(&argument.to_lowercase());
            match value {
                // One item of an array of scalars (`ARRAY_ITEM_OPERATORS`).
                Some(Json::Array(items)) => items
                    .iter()
                    .any(|item| scalar_text(item).is_some_and(|text| holds(&text))),
                _ => text.as_deref().is_some_and(holds),
            }
        }
        "starts" => text
            .as_deref()
            .is_some_and(|text| text.starts_with(argument)),
        "ends" => text.as_deref().is_some_and(|text| text.ends_with(argument)),
        "token" => text
            .as_deref()
            .is_some_and(|text| word_list(text).any(|item| item == argument)),
        "all" => value.and_then(Json::as_array).is_some_and(|items| {
            argument.split(',').all(|wanted| {
                items
                    .iter()
                    .any(|item| scalar_text(item).is_some_and(|text| text == wanted))
            })
        }),
        "null" | "nnull" => {
            let is_null = matches!(value, None | Some(Json::Null));
            truth(argument).is_some_and(|wanted| wanted == (is_null == (op == "null")))
        }
        "between" => text.as_deref().is_some_and(|text| {
            argument.split_once(',').is_some_and(|(low, high)| {
                compare_text(text, low) != Ordering::Less
                    && compare_text(text, high) != Ordering::Greater
            })
        }),
        "gte" | "lte" | "gt" | "lt" => text.as_deref().is_some_and(|text| {
            let ordering = compare_text(text, argument);
            match op {
                "gte" => ordering != Ordering::Less,
                "lte" => ordering != Ordering::Greater,
                "gt" => ordering == Ordering::Greater,
                _ => ordering == Ordering::Less,
            }
        }),
        _ => false,
    }
}

/// The operators whose argument is a pattern: `pattern` (an SQL `LIKE` pattern), `glob`, `iglob`
/// (a glob in any case), and `regex` (a regular expression a text field matches anywhere, see
/// [`regex_of`]).
pub const PATTERN_OPERATORS: [&str; 4] = ["pattern", "glob", "iglob", "regex"];

/// The largest compiled size of a `regex` filter's expression (a call's own text).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A `regex` filter's argument as a regular expression, unanchored (it matches anywhere in the
/// text, as JavaScript's `RegExp.test`); `None` for an expression the `regex` crate does not
/// read (a look-around, a back-reference) or larger than [`REGEX_SIZE_LIMIT`].
fn regex_of(argument: &str) -> Option<Regex> {
    regex::RegexBuilder::new(argument)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .ok()
}

/// A pattern filter's argument as a regular expression: for `regex` the argument itself (see
/// [`regex_of`]); else anchored, everything else escaped: for `pattern`, an SQL `LIKE` pattern (`%` any run of characters, `_` one), matched
/// case-insensitively; for `glob`, a glob (`*` any run, `?` one character, `[…]` one of a set,
/// `[^…]` none of it, ranges with `-`), matched case-sensitively (`iglob`: in any case). `None`
/// for a set without its closing `]` or another operator.
pub fn pattern_regex(op: &str, argument: &str) -> Option<Regex> {
    if op == "regex" {
        return regex_of(argument);
    }
    let any_case = matches!(op, "pattern" | "iglob");
    let op = if op == "iglob" { "glob" } else { op };
    let mut expression = String::from(if any_case { "(?is)^" } else { "(?s)^" });
    let mut characters = argument.chars();
    while let Some(character) = characters.next() {
        match (op, character) {
            ("pattern", '%') | ("glob", '*') => expression.push_str(".*"),
            ("pattern", '_') | ("glob", '?') => expression.push('.'),
            ("glob", '[') => expression.push_str(&glob_set(&mut characters)?),
            ("pattern" | "glob", other) => {
                expression.push_str(&regex::escape(other.encode_utf8(&mut [0; 4])))
            }
            _ => return None,
        }
    }
    expression.push('$');
    Regex::new(&expression).ok()
}

/// The rest of a glob set after its `[` as a regular-expression class (a `]` first in the set
/// is one of its members; `-` between two members is a range); `None` without a closing `]`.
fn glob_set(characters: &mut std::str::Chars<'_>) -> Option<String> {
    let mut class = String::from("[");
    let mut first = true;
    loop {
        let character = characters.next()?;
        match character {
            '^' if first => {
                class.push('^');
                continue;
            }
            ']' if !first => break,
            '-' => class.push('-'),
            other => class.push_str(&regex::escape(other.encode_utf8(&mut [0; 4]))),
        }
        first = false;
    }
    class.push(']');
    Some(class)
}

/// The items of a space-separated word list in which `[[…]]` groups words into one item
/// (`Task [[Home and Garden]]`: `Task`, `Home and Garden`).
fn word_list(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        if let Some(grouped) = rest.strip_prefix("[[")
            && let Some(end) = grouped.find("]]")
        {
            rest = &grouped[end + 2..];
            return Some(&grouped[..end]);
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (item, after) = rest.split_at(end);
        rest = after;
        Some(item)
    })
}

/// A flag argument (`true`/`1`, `false`/`0`).
fn truth(argument: &str) -> Option<bool> {
    match argument.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

pub(crate) fn contains_text(value: &Json, needle: &str) -> bool {
    match value {
        Json::String(text) => text.to_lowercase().contains(needle),
        Json::Number(number) => number.as_str().contains(needle),
        Json::Bool(flag) => flag.to_string().contains(needle),
        Json::Array(items) => items.iter().any(|item| contains_text(item, needle)),
        Json::Object(object) => object.iter().any(|(_, item)| contains_text(item, needle)),
        Json::Null => false,
    }
}

pub(crate) fn compare_values(left: Option<&Json>, right: Option<&Json>) -> Ordering {
    let rank = |value: Option<&Json>| match value {
        None | Some(Json::Null) => 3,
        Some(Json::Number(_)) => 0,
        Some(Json::String(_)) => 1,
        Some(_) => 2,
    };
    match (left, right) {
        (Some(Json::Number(a)), Some(Json::Number(b))) => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(Ordering::Equal),
        // Text reading as numbers compares as numbers, as the filters compare it (`"10"` after
        // `"9"`: the integer ids an application's database sorts, sent as JSON text).
        (Some(Json::String(a)), Some(Json::String(b))) => compare_text(a, b),
        (Some(Json::Bool(a)), Some(Json::Bool(b))) => a.cmp(b),
        (Some(Json::Object(a)), Some(Json::Object(b))) => compare_objects(a, b),
        _ => rank(left).cmp(&rank(right)),
    }
}

/// How two objects compare: member by member in document order, each by its name and then its
/// value, a shorter object first when one holds the other's members (as MongoDB orders embedded
/// documents); so a typed value such as `{"__type": "Date", "iso": …}` sorts by what it holds.
fn compare_objects(a: &Object, b: &Object) -> Ordering {
    for ((a_name, a_value), (b_name, b_value)) in a.iter().zip(b.iter()) {
        let ordering = a_name
            .cmp(b_name)
            .then_with(|| compare_values(Some(a_value), Some(b_value)));
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    a.len().cmp(&b.len())
}

/// A filter: `(field, operator, argument)`.
type Filter<'a> = (&'a str, &'a str, &'a str);

/// The result of evaluating a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluated {
    /// Indexes (into the candidates) of the members listed, in order.
    pub members: Vec<usize>,
    /// How many candidates matched before paging.
    pub matched: usize,
}

/// How a query pages its matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Paging {
    page: Option<(u64, u64)>,
    page_size: Option<u64>,
    offset: Option<u64>,
    end: Option<u64>,
}

impl Paging {
    /// The page of an ordered match list; `None` when a page number comes without a size.
    pub fn apply(&self, matched: &[usize]) -> Option<Vec<usize>> {
        let total = matched.len();
        let mut start = self.offset.unwrap_or(0) as usize;
        if let Some((number, base)) = self.page {
            let size = self.page_size?;
            start = number.checked_sub(base)?.checked_mul(size)? as usize;
        }
        let mut stop = total;
        if let Some(end) = self.end {
            stop = stop.min(end as usize);
        }
        if let Some(size) = self.page_size {
            stop = stop.min(start.saturating_add(size as usize));
        }
        Some(if start >= stop {
            Vec::new()
        } else {
            matched[start..stop].to_vec()
        })
    }
}

/// The page size that asks for every match: `-1`, a size no list can have, read as no bound
/// (as `limit=-1` lists the whole collection where a plain list is bounded by a default size).
pub const UNBOUNDED_PAGE_SIZE: &str = "-1";

/// A page size argument: a count, or [`UNBOUNDED_PAGE_SIZE`] as the largest one; `None` for
/// anything else.
fn page_size_of(value: &str) -> Option<u64> {
    if value == UNBOUNDED_PAGE_SIZE {
        return Some(u64::MAX);
    }
    value.parse().ok()
}

/// Whether a role only pages (page, page size, offset, end).
pub fn is_paging(role: &QueryRole) -> bool {
    role.is_paging()
}

/// Evaluates a query over candidates in state order (each the object the filters read). `None`
/// when an argument has no role in the model, repeats, or has a value its role cannot read.
pub fn evaluate(
    model: &QueryModel,
    arguments: &[(String, String)],
    candidates: &[&Object],
) -> Option<Evaluated> {
    evaluate_over_bytes(model, arguments, candidates, &BTreeSet::new())
}

/// [`evaluate`], the filters of `byte_fields` comparing their text as byte strings (never as
/// numbers): fields holding decoded bytes, each byte one character (see
/// [`crate::body_query`]).
pub fn evaluate_over_bytes(
    model: &QueryModel,
    arguments: &[(String, String)],
    candidates: &[&Object],
    byte_fields: &BTreeSet<String>,
) -> Option<Evaluated> {
    let (matched, paging) = matches_over(model, arguments, candidates, byte_fields)?;
    Some(Evaluated {
        members: paging.apply(&matched)?,
        matched: matched.len(),
    })
}

/// The filtered and sorted matches of a query (indexes into the candidates), and its paging.
pub fn order_matches(
    model: &QueryModel,
    arguments: &[(String, String)],
    candidates: &[&Object],
) -> Option<(Vec<usize>, Paging)> {
    matches_over(model, arguments, candidates, &BTreeSet::new())
}

/// [`order_matches`] with the byte-string fields of [`evaluate_over_bytes`].
fn matches_over(
    model: &QueryModel,
    arguments: &[(String, String)],
    candidates: &[&Object],
    byte_fields: &BTreeSet<String>,
) -> Option<(Vec<usize>, Paging)> {
    let selection = Selection::read(model, arguments)?;
    let mut matched: Vec<usize> = (0..candidates.len())
        .filter(|index| selection.selects(candidates[*index], byte_fields))
        .collect();
    if !selection.sort_keys.is_empty() {
        let sort_keys = with_tie_order(selection.sort_keys(), model.tie_order.as_deref());
        // A sort by a field no match holds orders nothing the state knows (a sort name the
        // application maps to another field, `show_name` for `name`): not evaluated.
        let unheld = |field: &String| {
            !matched
                .iter()
                .any(|index| field_value(candidates[*index], field).is_some())
        };
        if matched.len() > 1 && sort_keys.iter().any(|(field, _)| unheld(field)) {
            return None;
        }
        matched.sort_by(|a, b| {
            sort_order(
                (&sort_keys, model.nulls_first),
                byte_fields,
                candidates[*a],
                candidates[*b],
            )
        });
    } else if !selection.orders.is_empty() {
        return None;
    }
    if let Some((key, value)) = selection.cursor {
        let cursor = Cursor::read(value, selection.sort_keys(), key)?;
        matched.retain(|index| cursor.precedes(candidates[*index]));
    }
    let paging = selection.paging;
    if paging.page.is_some() && paging.page_size.is_none() {
        return None;
    }
    Some((matched, paging))
}

/// What a call's query arguments select, by the roles the model gives them.
struct Selection<'a> {
    /// Each filter and search, with the disjunction branches it lies in (empty: every match
    /// holds it; see [`QueryModel::groups`]).
    conditions: Vec<(&'a [TermBranch], Condition<'a>)>,
    /// The sort keys, each with whether it sorts descending.
    sort_keys: Vec<(String, bool)>,
    /// The directions an order parameter gave (`true`: descending).
    orders: Vec<bool>,
    /// A keyset cursor: its key field and value.
    cursor: Option<(&'a str, &'a str)>,
    paging: Paging,
}

/// One selecting argument: a filter, a pattern filter, or a search.
enum Condition<'a> {
    /// A filter but a pattern filter.
    Filter(Filter<'a>),
    /// `(field, pattern, text only)` of a pattern filter (see [`pattern_regex`]); a `regex`
    /// filter matches text fields only (never a number's or a flag's spelling).
    Pattern(&'a str, Regex, bool),
    /// A search's text, lower-cased.
    Search(String),
}

impl Condition<'_> {
    /// Whether an object passes it (`byte_fields` compared as byte strings).
    fn holds(&self, object: &Object, byte_fields: &BTreeSet<String>) -> bool {
        if let Some(held) = self.holds_for_some(object, byte_fields) {
            return held;
        }
        match self {
            Condition::Filter(filter) => {
                filter_matches(object, *filter, byte_fields.contains(filter.0))
            }
            Condition::Pattern(field, pattern, text_only) => field_value(object, field)
                .filter(|value| !*text_only || matches!(value, Json::String(_)))
                .and_then(scalar_text)
                .is_some_and(|text| pattern.is_match(&text)),
            Condition::Search(needle) => object
                .iter()
                .any(|(key, value)| !key.starts_with(JOINED) && contains_text(value, needle)),
        }
    }
}

impl Condition<'_> {
    /// Whether a filter on a field through a member joined to many related entities holds for
    /// one of them (see [`crate::quantified`]); `None` for another condition or field.
    fn holds_for_some(&self, object: &Object, byte_fields: &BTreeSet<String>) -> Option<bool> {
        let field = match self {
            Condition::Filter((field, ..)) | Condition::Pattern(field, ..) => *field,
            Condition::Search(_) => return None,
        };
        let (items, rest) = crate::quantified::related_items(object, field)?;
        Some(items.into_iter().any(|item| {
            match self {
                Condition::Filter((_, op, argument)) => {
                    filter_matches(item, (rest, op, argument), byte_fields.contains(field))
                }
                Condition::Pattern(_, pattern, text_only) => field_value(item, rest)
                    .filter(|value| !*text_only || matches!(value, Json::String(_)))
                    .and_then(scalar_text)
                    .is_some_and(|text| pattern.is_match(&text)),
                Condition::Search(_) => false,
            }
        }))
    }
}

/// One sort key of a sort value and whether it descends: `-field` descends, `field` ascends, and
/// a field followed by a direction word (`title DESC`, `due asc`, as an SQL `ORDER BY` term
/// spells it) takes that direction; `None` for a key with another word after its field.
pub(crate) fn sort_key(key: &str) -> Option<(String, bool)> {
    let mut words = key.split_whitespace();
    let (field, direction) = (words.next()?, words.next());
    if words.next().is_some() {
        return None;
    }
    let descending = match direction.map(str::to_ascii_lowercase).as_deref() {
        None => {
            return Some(match field.strip_prefix('-') {
                Some(field) => (field.to_owned(), true),
                None => (field.to_owned(), false),
            });
        }
        Some("asc") => false,
        Some("desc") => true,
        Some(_) => return None,
    };
    Some((field.to_owned(), descending))
}

/// The sort keys a sort value spells: comma-separated keys (see [`sort_key`]), or a JSON array
/// of keys, each a key's text or a one-member object naming a field and its direction
/// (`[{"priority":"DESC"},{"title":"ASC"}]`, as Waterline's `sort` spells it; `1`/`-1` too);
/// `None` when one cannot be read.
pub fn sort_keys(value: &str) -> Option<Vec<(String, bool)>> {
    if !value.trim_start().starts_with('[') {
        return comma_sort_keys(value);
    }
    let Ok(Json::Array(items)) = Json::parse(value.as_bytes()) else {
        return None;
    };
    let keys: Option<Vec<(String, bool)>> = items.iter().map(json_sort_key).collect();
    keys.filter(|keys| !keys.is_empty())
}

/// Comma-separated sort keys (see [`sort_key`]); a part that is a direction word alone gives the
/// key before it its direction (@nestjsx/crud's `sort=priority,DESC`), when that key spelled
/// none.
fn comma_sort_keys(value: &str) -> Option<Vec<(String, bool)>> {
    let mut keys: Vec<(String, bool)> = Vec::new();
    let mut directed = true;
    for part in value.split(',').filter(|part| !part.is_empty()) {
        let word = part.trim().to_ascii_lowercase();
        if matches!(word.as_str(), "asc" | "desc") && !directed {
            keys.last_mut()?.1 = word == "desc";
            directed = true;
            continue;
        }
        keys.push(sort_key(part)?);
        directed = part.starts_with('-') || part.split_whitespace().nth(1).is_some();
    }
    Some(keys)
}

/// One item of a JSON sort array as its key (see [`sort_keys`]).
fn json_sort_key(item: &Json) -> Option<(String, bool)> {
    let Json::Object(members) = item else {
        return sort_key(item.as_str()?);
    };
    let mut members = members.iter();
    let (field, direction) = members.next()?;
    if members.next().is_some() || field.is_empty() {
        return None;
    }
    let descending = match direction {
        Json::String(word) => match word.to_ascii_lowercase().as_str() {
            "asc" => false,
            "desc" => true,
            _ => return None,
        },
        Json::Number(number) => match number.as_str() {
            "1" => false,
            "-1" => true,
            _ => return None,
        },
        _ => return None,
    };
    Some((field.to_owned(), descending))
}

impl<'a> Selection<'a> {
    /// Reads the arguments (each named once but a sort the model lets repeat, its keys in
    /// sequence: see [`QueryModel::repeated_sort`]; each with a role); `None` when one cannot be
    /// read, or one lying in a disjunction does not select (a sort, a page).
    fn read(model: &'a QueryModel, arguments: &'a [(String, String)]) -> Option<Self> {
        let mut selection = Selection {
            conditions: Vec::new(),
            sort_keys: Vec::new(),
            orders: Vec::new(),
            cursor: None,
            paging: Paging {
                page: None,
                page_size: None,
                offset: None,
                end: None,
            },
        };
        for (index, (name, value)) in arguments.iter().enumerate() {
            let role = model.role(name)?;
            if arguments[..index].iter().any(|(other, _)| other == name) && !model.repeats(role) {
                return None;
            }
            let within = model.within(name);
            // The page size value a recorded line showed asking for no bound is not read: the
            // bound the application applies instead shows in the envelope (tastypie's
            // `limit: 1000`), which no argument says.
            if matches!(role, QueryRole::PageSize)
                && model
                    .unbounded_page_size
                    .is_some_and(|size| size.to_string() == *value)
            {
                return None;
            }
            match Self::condition(role, value)? {
                Some(condition) => selection.conditions.push((within, condition)),
                None if within.is_empty() => selection.add(role, value)?,
                None => return None,
            }
        }
        // A call naming no page size (nor an end) is cut at the list's default page.
        if selection.paging.page_size.is_none() && selection.paging.end.is_none() {
            selection.paging.page_size = model.default_page_size.map(u64::from);
        }
        // A call naming no sort (nor a direction) lists in the list's default sort.
        if selection.sort_keys.is_empty()
            && selection.orders.is_empty()
            && let Some(sort) = &model.default_sort
        {
            selection.sort_keys.extend(sort_keys(sort)?);
        }
        Some(selection)
    }

    /// The condition a selecting role reads (`Some(None)` for a role that does not select);
    /// `None` when its value cannot be read.
    fn condition(role: &'a QueryRole, value: &'a str) -> Option<Option<Condition<'a>>> {
        Some(Some(match role {
            QueryRole::Filter { field, op } if PATTERN_OPERATORS.contains(&op.as_str()) => {
                Condition::Pattern(field.as_str(), pattern_regex(op, value)?, op == "regex")
            }
            QueryRole::Filter { field, op } => {
                Condition::Filter((field.as_str(), op.as_str(), value))
            }
            QueryRole::Search => Condition::Search(value.to_lowercase()),
            _ => return Some(None),
        }))
    }

    /// Adds one argument of a role that does not select; `None` when its value cannot be read.
    fn add(&mut self, role: &'a QueryRole, value: &'a str) -> Option<()> {
        match role {
            QueryRole::Filter { .. } | QueryRole::Search => return None,
            QueryRole::Sort => self.sort_keys.extend(sort_keys(value)?),
            QueryRole::Order => {
                for direction in value.split(',') {
                    match direction.to_ascii_lowercase().as_str() {
                        "asc" => self.orders.push(false),
                        "desc" => self.orders.push(true),
                        _ => return None,
                    }
                }
            }
            QueryRole::Page { base } => self.paging.page = Some((value.parse().ok()?, *base)),
            // Two page sizes in one call (`count=1&limit=0`) are not read: which one pages is
            // not known.
            QueryRole::PageSize if self.paging.page_size.is_some() => return None,
            QueryRole::PageSize => self.paging.page_size = Some(page_size_of(value)?),
            QueryRole::Offset => self.paging.offset = Some(value.parse().ok()?),
            QueryRole::End => self.paging.end = Some(value.parse().ok()?),
            QueryRole::After { key } => {
                if key.is_empty() || self.cursor.is_some() {
                    return None;
                }
                self.cursor = Some((key.as_str(), value));
            }
            // While a model is learned the values are not known yet (empty): any is tried.
            QueryRole::Inert { values } => {
                if !values.is_empty() && !values.iter().any(|known| known == value) {
                    return None;
                }
            }
        }
        Some(())
    }

    /// Whether an object passes every filter and search (the filters of `byte_fields` comparing
    /// byte strings), each disjunction holding by one of its branches.
    fn selects(&self, object: &Object, byte_fields: &BTreeSet<String>) -> bool {
        self.holds_within(&[], object, byte_fields)
    }

    /// Whether an object passes the conjunction at `prefix` (a path of disjunction branches):
    /// every condition lying there, and every group opened there by one of its branches.
    fn holds_within(
        &self,
        prefix: &[TermBranch],
        object: &Object,
        byte_fields: &BTreeSet<String>,
    ) -> bool {
        let mut groups: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
        for (within, condition) in &self.conditions {
            if !within.starts_with(prefix) {
                continue;
            }
            match within.get(prefix.len()) {
                None if !condition.holds(object, byte_fields) => return false,
                None => {}
                Some(step) => {
                    groups
                        .entry(step.group.as_str())
                        .or_default()
                        .insert(step.branch);
                }
            }
        }
        groups.into_iter().all(|(group, branches)| {
            branches.into_iter().any(|branch| {
                let mut path = prefix.to_vec();
                path.push(TermBranch::new(group, branch));
                self.holds_within(&path, object, byte_fields)
            })
        })
    }

    /// The sort keys, each direction flipped by the order parameter's direction at its position
    /// (else its last).
    fn sort_keys(&self) -> Vec<(String, bool)> {
        let mut sort_keys = self.sort_keys.clone();
        for (position, key) in sort_keys.iter_mut().enumerate() {
            if let Some(descending) = self.orders.get(position).or(self.orders.last()) {
                key.1 = key.1 != *descending;
            }
        }
        sort_keys
    }
}

/// A keyset cursor read: the sort keys with the values it names, then the key field's.
struct Cursor {
    keys: Vec<(String, bool, String)>,
}

impl Cursor {
    /// Reads a cursor value (comma-separated values, `+` for a space, one per sort key and one
    /// for the key field); `None` when it holds another number of values.
    fn read(value: &str, sort_keys: Vec<(String, bool)>, key: &str) -> Option<Self> {
        let values: Vec<String> = value
            .split(',')
            .map(|part| part.replace('+', " "))
            .collect();
        let mut fields = sort_keys;
        fields.push((key.to_owned(), false));
        (values.len() == fields.len()).then(|| Cursor {
            keys: fields
                .into_iter()
                .zip(values)
                .map(|((field, descending), value)| (field, descending, value))
                .collect(),
        })
    }

    /// Whether an object comes after the member the cursor names, in the cursor's order.
    fn precedes(&self, object: &Object) -> bool {
        for (field, descending, value) in &self.keys {
            let text = field_value(object, field).and_then(scalar_text);
            let Some(text) = text else {
                return false;
            };
            let ordering = compare_text(&text, value);
            let ordering = if *descending {
                ordering.reverse()
            } else {
                ordering
            };
            if ordering != Ordering::Equal {
                return ordering == Ordering::Greater;
            }
        }
        false
    }
}

/// The sort keys with the model's tie order after them (see [`QueryModel::tie_order`]), unless
/// a key already sorts by its field.
fn with_tie_order(mut keys: Vec<(String, bool)>, tie_order: Option<&str>) -> Vec<(String, bool)> {
    for tie in tie_order.and_then(sort_keys).unwrap_or_default() {
        if !keys.iter().any(|(field, _)| *field == tie.0) {
            keys.push(tie);
        }
    }
    keys
}

/// How two objects compare by sort keys (the text of `byte_fields` as byte strings; a missing
/// or null key the least of all when `nulls_first`, else the greatest).
fn sort_order(
    (sort_keys, nulls_first): (&[(String, bool)], bool),
    byte_fields: &BTreeSet<String>,
    a: &Object,
    b: &Object,
) -> Ordering {
    let null = |value: Option<&Json>| matches!(value, None | Some(Json::Null));
    for (field, descending) in sort_keys {
        let (left, right) = (field_value(a, field), field_value(b, field));
        let ordering = match (left, right) {
            _ if nulls_first && null(left) != null(right) => null(right).cmp(&null(left)),
            (Some(Json::String(left)), Some(Json::String(right)))
                if byte_fields.contains(field) =>
            {
                left.cmp(right)
            }
            _ => compare_values(left, right),
        };
        let ordering = if *descending {
            ordering.reverse()
        } else {
            ordering
        };
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::parse;

    fn objects(text: &str) -> Vec<Object> {
        match parse(text.as_bytes()).unwrap() {
            Json::Array(items) => items
                .into_iter()
                .map(|item| match item {
                    Json::Object(object) => object,
                    _ => unreachable!(),
                })
                .collect(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_plain_field_reads_the_one_object_member_nesting_it() {
        let object = parse(
            br#"{"id": "1", "attributes": {"status": "todo", "self": "a"},
                "links": {"self": "/t/1"}, "\u0000joined:project": {"code": "WEB"}}"#,
        )
        .expect("json");
        let object = object.as_object().expect("object");
        assert_eq!(
            field_value(object, "status").and_then(Json::as_str),
            Some("todo")
        );
        // Two object members holding it, a joined entity's member, or a dotted path: none.
        assert_eq!(field_value(object, "self"), None);
        assert_eq!(field_value(object, "code"), None);
        assert_eq!(field_value(object, "attributes.missing"), None);
        assert_eq!(field_value(object, "id").and_then(Json::as_str), Some("1"));
    }

    #[test]
    fn a_plain_field_holding_a_relation_object_reads_the_identifier_it_names() {
        let rows = objects(
            r#"[{"id": "1", "relationships": {
                    "author": {"links": {"self": "/b/1/a"}, "data": {"type": "A", "id": "2"}},
                    "borrower": {"links": {"self": "/b/1/m"}, "data": null}}},
                {"id": "2", "relationships": {
                    "author": {"links": {"self": "/b/2/a"}, "data": {"type": "A", "id": "3"}},
                    "borrower": {"links": {"self": "/b/2/m"}, "data": {"type": "M", "id": "1"}}}}]"#,
        );
        assert_eq!(
            field_value(&rows[0], "author")
                .and_then(scalar_text)
                .as_deref(),
            Some("2")
        );
        assert_eq!(field_value(&rows[0], "borrower"), Some(&Json::Null));
        let relations = model_of_filters(&[
            ("filter[author]", "author", "in"),
            ("filter[borrower.isnull]", "borrower", "null"),
        ]);
        let both = [
            ("filter[author]", "2,3"),
            ("filter[borrower.isnull]", "false"),
        ];
        assert_eq!(run(&relations, &both, &rows), Some(vec![1]));
        let null = [("filter[borrower.isnull]", "true")];
        assert_eq!(run(&relations, &null, &rows), Some(vec![0]));
    }

    #[test]
    fn a_foreign_key_column_no_member_holds_reads_its_relation_identifier() {
        let rows = objects(
            r#"[{"id": "1", "attributes": {"status": "todo", "owner_id": 9},
                 "relationships": {"project": {"data": {"type": "project", "id": "2"}},
                                   "assignee": {"data": null}}},
                {"id": "2", "attributes": {"status": "done"},
                 "relationships": {"project": {"data": {"type": "project", "id": "4"}},
                                   "assignee": {"data": {"type": "person", "id": "3"}}}}]"#,
        );
        let text = |row: &Object, field: &str| field_value(row, field).and_then(scalar_text);
        assert_eq!(text(&rows[0], "project_id").as_deref(), Some("2"));
        assert_eq!(text(&rows[1], "projectId").as_deref(), Some("4"));
        assert_eq!(field_value(&rows[0], "assignee_id"), Some(&Json::Null));
        // A member holding the column is read as it is; a plain field is no relation; a bare
        // suffix names none.
        assert_eq!(text(&rows[0], "owner_id").as_deref(), Some("9"));
        assert_eq!(field_value(&rows[0], "status_id"), None);
        assert_eq!(field_value(&rows[0], "_id"), None);
        let by_project = model_of_filters(&[("project_id", "project_id", "eq")]);
        assert_eq!(
            run(&by_project, &[("project_id", "4")], &rows),
            Some(vec![1])
        );
    }

    #[test]
    fn only_a_to_one_relation_object_names_an_identifier() {
        let named = |text: &str| {
            let value = parse(text.as_bytes()).expect("json");
            relation_identifier(&value).and_then(scalar_text)
        };
        assert_eq!(
            named(r#"{"links": {"self": "/x"}, "data": {"id": 7}}"#).as_deref(),
            Some("7")
        );
        // An object with its own id is an entity part; a to-many array, a second identifier, a
        // member that is no link text, or an object identifier: none.
        assert_eq!(named(r#"{"id": "1", "data": {"id": "2"}}"#), None);
        assert_eq!(named(r#"{"data": [{"id": "2"}]}"#), None);
        assert_eq!(named(r#"{"a": {"id": "2"}, "b": {"id": "3"}}"#), None);
        assert_eq!(
            named(r#"{"meta": {"count": 2}, "data": {"id": "2"}}"#),
            None
        );
        assert_eq!(named(r#"{"data": {"id": {"n": 2}}}"#), None);
    }

    #[test]
    fn a_keyed_part_steps_into_the_entry_of_a_list_by_a_members_value() {
        let rows = objects(
            r#"[{"data": {"metrics": [{"key": "auc", "value": 0.8}, {"key": "loss", "value": 0.3}]}},
                {"data": {"metrics": []}}]"#,
        );
        let auc = "data.metrics[key=auc].value";
        assert_eq!(
            field_value(&rows[0], auc).and_then(scalar_text).as_deref(),
            Some("0.8")
        );
        assert_eq!(field_value(&rows[1], auc), None);
        assert_eq!(field_value(&rows[0], "data.metrics[key=f1].value"), None);
        assert_eq!(field_value(&rows[0], "data.metrics[key].value"), None);
        let filtered = evaluate(
            &model(&[("auc", QueryRole::filter(auc, "gt"))]),
            &[("auc".to_owned(), "0.5".to_owned())],
            &rows.iter().collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(filtered.members, vec![0]);
    }

    fn model(roles: &[(&str, QueryRole)]) -> QueryModel {
        QueryModel::of_roles(roles)
    }

    fn model_of_filters(filters: &[(&str, &str, &str)]) -> QueryModel {
        let roles: Vec<(&str, QueryRole)> = filters
            .iter()
            .map(|(name, field, op)| (*name, QueryRole::filter(field, op)))
            .collect();
        model(&roles)
    }

    fn run(model: &QueryModel, arguments: &[(&str, &str)], data: &[Object]) -> Option<Vec<usize>> {
        let arguments: Vec<(String, String)> = arguments
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let candidates: Vec<&Object> = data.iter().collect();
        evaluate(model, &arguments, &candidates).map(|evaluated| evaluated.members)
    }

    const POSTS: &str = r#"[{"id": 1, "title": "Getting started", "author": "alice", "views": 120, "published": true},
        {"id": 2, "title": "Paging tips", "author": "bob", "views": 45, "published": false, "draft": null},
        {"id": 3, "title": "REST design", "author": "alice", "views": 45, "published": true, "draft": "no"},
        {"id": 4, "title": "Notes", "author": "carol", "views": 7, "published": false}]"#;

    /// The posts model with the author, views and published filters, its `or` terms lying in
    /// the branches given.
    fn grouped(groups: &[(&str, &[(&str, u32)])]) -> QueryModel {
        let mut model = model_of_filters(&[
            ("a0", "author", "eq"),
            ("a1", "author", "eq"),
            ("v", "views", "gte"),
            ("p", "published", "eq"),
            ("t", "title", "pattern"),
        ]);
        model.parameters.insert("s".into(), QueryRole::Sort);
        for (name, path) in groups {
            let path = path
                .iter()
                .map(|(group, branch)| TermBranch::new(*group, *branch))
                .collect();
            model
                .groups
                .get_or_insert_default()
                .insert((*name).to_owned(), path);
        }
        model
    }

    #[test]
    fn a_disjunction_holds_by_any_branch_beside_the_terms_every_match_holds() {
        let data = objects(POSTS);
        // author = bob OR author = carol
        let either = grouped(&[("a0", &[("or", 0)]), ("a1", &[("or", 1)])]);
        assert_eq!(
            run(&either, &[("a0", "bob"), ("a1", "carol")], &data),
            Some(vec![1, 3])
        );
        // … AND published = false, with a sort outside the group
        assert_eq!(
            run(
                &either,
                &[
                    ("a0", "alice"),
                    ("a1", "carol"),
                    ("p", "false"),
                    ("s", "-id")
                ],
                &data
            ),
            Some(vec![3])
        );
        // (author = alice AND views >= 100) OR (published = false AND author = bob)
        let branches = grouped(&[
            ("a0", &[("or", 0)]),
            ("v", &[("or", 0)]),
            ("p", &[("or", 1)]),
            ("a1", &[("or", 1)]),
        ]);
        assert_eq!(
            run(
                &branches,
                &[("a0", "alice"), ("v", "100"), ("p", "false"), ("a1", "bob")],
                &data
            ),
            Some(vec![0, 1])
        );
        // A group nested in a branch: author = carol OR (views >= 40 AND (title LIKE 'R%' OR
        // published = false))
        let nested = grouped(&[
            ("a0", &[("or", 0)]),
            ("v", &[("or", 1)]),
            ("t", &[("or", 1), ("or.1.or", 0)]),
            ("p", &[("or", 1), ("or.1.or", 1)]),
        ]);
        assert_eq!(
            run(
                &nested,
                &[("a0", "carol"), ("v", "40"), ("t", "R%"), ("p", "false")],
                &data
            ),
            Some(vec![1, 2, 3])
        );
        // Two groups side by side both hold.
        let two = grouped(&[
            ("a0", &[("x", 0)]),
            ("a1", &[("x", 1)]),
            ("v", &[("y", 0)]),
            ("p", &[("y", 1)]),
        ]);
        assert_eq!(
            run(
                &two,
                &[("a0", "alice"), ("a1", "bob"), ("v", "100"), ("p", "false")],
                &data
            ),
            Some(vec![0, 1])
        );
    }

    #[test]
    fn a_regex_matches_text_anywhere_and_all_holds_every_item_of_an_array() {
        let data = objects(
            r#"[{"title": "The Dispossessed", "year": 1974, "tags": ["anarchism", "physics"]},
                {"title": "Dune", "year": 1965, "tags": ["desert"]},
                {"title": "Then We Came", "year": "1974", "tags": "desert"}]"#,
        );
        let model = model_of_filters(&[
            ("title", "title", "regex"),
            ("year", "year", "regex"),
            ("tags", "tags", "all"),
        ]);
        assert_eq!(run(&model, &[("title", "^The")], &data), Some(vec![0, 2]));
        assert_eq!(run(&model, &[("title", "un")], &data), Some(vec![1]));
        // A number's spelling is no text to match.
        assert_eq!(run(&model, &[("year", "19")], &data), Some(vec![2]));
        // An expression the regex crate does not read is not evaluated.
        assert_eq!(run(&model, &[("title", "(?=The)")], &data), None);
        assert_eq!(run(&model, &[("tags", "desert")], &data), Some(vec![1]));
        assert_eq!(
            run(&model, &[("tags", "physics,anarchism")], &data),
            Some(vec![0])
        );
        assert_eq!(
            run(&model, &[("tags", "physics,desert")], &data),
            Some(vec![])
        );
    }

    #[test]
    fn a_sort_by_a_field_no_match_holds_is_not_evaluated() {
        let data = objects(r#"[{"name": "b"}, {"name": "a"}, {"name": "c"}]"#);
        let model = model(&[("sort_by", QueryRole::Sort)]);
        assert_eq!(
            run(&model, &[("sort_by", "name")], &data),
            Some(vec![1, 0, 2])
        );
        // `show_name` names no member: the order it asks for is not known.
        assert_eq!(run(&model, &[("sort_by", "show_name")], &data), None);
        // One match has one order whatever the key.
        assert_eq!(
            run(&model, &[("sort_by", "show_name")], &data[..1]),
            Some(vec![0])
        );
    }

    #[test]
    fn a_sort_key_takes_a_direction_word_after_its_field() {
        let data = objects(POSTS);
        let model = model(&[("order", QueryRole::Sort)]);
        assert_eq!(
            run(&model, &[("order", "views DESC,title ASC")], &data),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(
            run(&model, &[("order", "views asc")], &data),
            Some(vec![3, 1, 2, 0])
        );
        assert_eq!(run(&model, &[("order", "views sideways")], &data), None);
        assert_eq!(sort_key("-views"), Some(("views".to_owned(), true)));
    }

    #[test]
    fn a_json_array_of_keys_sorts_each_key_in_its_direction() {
        let data = objects(
            r#"[{"views": 2, "title": "b"}, {"views": 1, "title": "c"},
                {"views": 2, "title": "a"}, {"views": 3, "title": "d"}]"#,
        );
        let model = model(&[("sort", QueryRole::Sort)]);
        let sorted = |value: &str| run(&model, &[("sort", value)], &data);
        assert_eq!(
            sorted(r#"[{"views":"DESC"},{"title":"ASC"}]"#),
            Some(vec![3, 2, 0, 1])
        );
        assert_eq!(sorted(r#"[{"views":1},"-title"]"#), Some(vec![1, 0, 2, 3]));
        assert_eq!(sorted(r#"[{"views":"up"}]"#), None);
        assert_eq!(sorted(r#"[{"views":"ASC","title":"ASC"}]"#), None);
        assert_eq!(sorted("[]"), None);
        assert_eq!(
            sort_keys("views DESC,title"),
            Some(vec![
                ("views".to_owned(), true),
                ("title".to_owned(), false)
            ])
        );
        // A direction word alone directs the key before it (`sort=views,DESC`), once.
        let keys = |value: &str| sort_keys(value).expect("keys");
        assert_eq!(keys("views,DESC"), [("views".to_owned(), true)]);
        assert_eq!(
            keys("views,asc,title"),
            [("views".to_owned(), false), ("title".to_owned(), false)]
        );
        assert_eq!(
            keys("-views,desc"),
            [("views".to_owned(), true), ("desc".to_owned(), false)]
        );
    }

    #[test]
    fn a_filter_on_an_embedded_record_compares_its_id() {
        let data = objects(
            r#"[{"t": "a", "project": {"id": 1, "name": "Harbour"}},
                {"t": "b", "project": {"id": 3, "name": "Ferry"}},
                {"t": "c", "project": null},
                {"t": "d", "project": {"name": "no id"}}]"#,
        );
        let eq = model(&[("project", QueryRole::filter("project", "eq"))]);
        assert_eq!(run(&eq, &[("project", "3")], &data), Some(vec![1]));
        let among = model(&[("p", QueryRole::filter("project", "in"))]);
        assert_eq!(run(&among, &[("p", "1,3")], &data), Some(vec![0, 1]));
        let not = model(&[("p", QueryRole::filter("project", "ne"))]);
        assert_eq!(run(&not, &[("p", "1")], &data), Some(vec![1, 2, 3]));
        // A record without a scalar id is no identifier.
        assert_eq!(run(&eq, &[("project", "no id")], &data), Some(vec![]));
    }

    #[test]
    fn objects_sort_member_by_member_as_typed_values_hold_them() {
        let data = objects(
            r#"[{"t": "b", "due": {"__type": "Date", "iso": "2026-03-01T00:00:00.000Z"}},
                {"t": "a"},
                {"t": "c", "due": {"__type": "Date", "iso": "2026-01-15T00:00:00.000Z"}},
                {"t": "d", "due": {"__type": "Date", "iso": "2026-02-01T00:00:00.000Z"}}]"#,
        );
        let model = model(&[("order", QueryRole::Sort)]);
        assert_eq!(
            run(&model, &[("order", "due")], &data),
            Some(vec![2, 3, 0, 1])
        );
        // Descending, the members without the field first.
        assert_eq!(
            run(&model, &[("order", "-due")], &data),
            Some(vec![1, 0, 3, 2])
        );
        let pairs =
            objects(r#"[{"o": {"a": 1, "b": 2}}, {"o": {"a": 1}}, {"o": {"a": 0, "c": 9}}]"#);
        assert_eq!(run(&model, &[("order", "o")], &pairs), Some(vec![2, 1, 0]));
    }

    #[test]
    fn a_model_placing_nulls_first_sorts_them_before_ascending_and_after_descending() {
        // SQLite's NULL order (flask-rest-jsonapi-next's `sort=assignee.name` through an outer
        // join): a missing or null key the least of all.
        let data = objects(r#"[{"n": "b"}, {"n": null}, {"n": "a"}, {}]"#);
        let mut model = model(&[("sort", QueryRole::Sort)]);
        assert_eq!(run(&model, &[("sort", "n")], &data), Some(vec![2, 0, 1, 3]));
        model.nulls_first = true;
        assert_eq!(run(&model, &[("sort", "n")], &data), Some(vec![1, 3, 2, 0]));
        assert_eq!(
            run(&model, &[("sort", "-n")], &data),
            Some(vec![0, 2, 1, 3])
        );
    }

    #[test]
    fn text_reading_as_numbers_sorts_as_numbers() {
        // JSON:API-style ids: integers sent as text; other text keeps its byte order.
        let data = objects(r#"[{"id": "9"}, {"id": "10"}, {"id": "2"}, {"id": "b"}, {"id": "a"}]"#);
        let model = model(&[("sort", QueryRole::Sort)]);
        assert_eq!(
            run(&model, &[("sort", "id")], &data),
            Some(vec![2, 0, 1, 4, 3])
        );
        assert_eq!(
            run(&model, &[("sort", "-id")], &data),
            Some(vec![3, 4, 1, 0, 2])
        );
    }

    #[test]
    fn null_names_a_field_holding_null_in_an_equality() {
        // Post 2's draft is null, post 3's "no", posts 1 and 4 have none.
        let data = objects(POSTS);
        let model = model_of_filters(&[("draft", "draft", "eq"), ("draft_ne", "draft", "ne")]);
        assert_eq!(run(&model, &[("draft", "null")], &data), Some(vec![1]));
        assert_eq!(
            run(&model, &[("draft_ne", "null")], &data),
            Some(vec![0, 2, 3])
        );
        assert_eq!(run(&model, &[("draft", "no")], &data), Some(vec![2]));
    }

    #[test]
    fn a_call_naming_no_page_size_is_cut_at_the_default_page() {
        let data = objects(POSTS);
        let mut model = model(&[("limit", QueryRole::PageSize), ("skip", QueryRole::Offset)]);
        model.default_page_size = Some(2);
        assert_eq!(run(&model, &[], &data), Some(vec![0, 1]));
        assert_eq!(run(&model, &[("skip", "1")], &data), Some(vec![1, 2]));
        assert_eq!(run(&model, &[("limit", "3")], &data), Some(vec![0, 1, 2]));
        assert_eq!(run(&model, &[("limit", "0")], &data), Some(vec![]));
    }

    #[test]
    fn a_call_naming_no_sort_lists_in_the_default_sort() {
        let data = objects(POSTS);
        let mut model = model(&[
            ("sort", QueryRole::Sort),
            ("author", QueryRole::filter("author", "eq")),
        ]);
        model.default_page_size = Some(2);
        model.default_sort = Some("-id".into());
        assert_eq!(run(&model, &[], &data), Some(vec![3, 2]));
        assert_eq!(run(&model, &[("author", "alice")], &data), Some(vec![2, 0]));
        // A sort is the call's own.
        assert_eq!(run(&model, &[("sort", "views")], &data), Some(vec![3, 1]));
    }

    #[test]
    fn a_sort_breaks_its_ties_by_the_tie_order() {
        // The posts in state order newest first; posts 2 and 3 tie on their views.
        let mut data = objects(POSTS);
        data.reverse();
        let mut model = model(&[("sort", QueryRole::Sort)]);
        // Ties in state order: 3 before 2.
        assert_eq!(
            run(&model, &[("sort", "-views")], &data),
            Some(vec![3, 1, 2, 0])
        );
        // Ties by ascending id: 2 before 3, whatever the key's direction.
        model.tie_order = Some("id".into());
        assert_eq!(
            run(&model, &[("sort", "-views")], &data),
            Some(vec![3, 2, 1, 0])
        );
        assert_eq!(
            run(&model, &[("sort", "views")], &data),
            Some(vec![0, 2, 1, 3])
        );
        // A key sorting by the tie's field is the call's own.
        assert_eq!(
            run(&model, &[("sort", "-id")], &data),
            Some(vec![0, 1, 2, 3])
        );
    }

    #[test]
    fn two_page_sizes_in_one_call_are_not_read() {
        let data = objects(POSTS);
        let model = model(&[
            ("count", QueryRole::PageSize),
            ("limit", QueryRole::PageSize),
        ]);
        assert_eq!(run(&model, &[("count", "1"), ("limit", "0")], &data), None);
        assert_eq!(run(&model, &[("limit", "1")], &data), Some(vec![0]));
    }

    #[test]
    fn a_page_size_of_minus_one_lists_every_match() {
        let data = objects(POSTS);
        let model = model(&[("limit", QueryRole::PageSize), ("s", QueryRole::Sort)]);
        assert_eq!(
            run(&model, &[("limit", "-1"), ("s", "-id")], &data),
            Some(vec![3, 2, 1, 0])
        );
        assert_eq!(run(&model, &[("limit", "-2")], &data), None);
    }

    #[test]
    fn the_page_size_value_learned_as_no_bound_is_not_read() {
        let data = objects(POSTS);
        let mut model = model(&[("limit", QueryRole::PageSize)]);
        assert_eq!(run(&model, &[("limit", "0")], &data), Some(vec![]));
        model.unbounded_page_size = Some(0);
        assert_eq!(run(&model, &[("limit", "0")], &data), None);
        assert_eq!(run(&model, &[("limit", "2")], &data), Some(vec![0, 1]));
    }

    #[test]
    fn like_over_an_array_holds_when_one_item_does() {
        let data = objects(
            r#"[{"title": "Search", "tags": ["query", "Search"]},
                {"title": "Intro", "tags": ["intro", "rest"]},
                {"title": "Seaside", "tags": []},
                {"title": "Plain", "tags": "seaside"}]"#,
        );
        let model = model_of_filters(&[("tags_like", "tags", "like")]);
        assert_eq!(
            run(&model, &[("tags_like", "sea")], &data),
            Some(vec![0, 3])
        );
        assert_eq!(run(&model, &[("tags_like", "REST")], &data), Some(vec![1]));
        assert_eq!(run(&model, &[("tags_like", "zzz")], &data), Some(vec![]));
    }

    #[test]
    fn a_term_in_a_disjunction_that_does_not_select_is_not_evaluated() {
        let data = objects(POSTS);
        let sorted = grouped(&[("a0", &[("or", 0)]), ("s", &[("or", 1)])]);
        assert_eq!(run(&sorted, &[("a0", "bob"), ("s", "id")], &data), None);
        // A grouped term without a role is not evaluated either.
        let unknown = grouped(&[("z", &[("or", 0)])]);
        assert_eq!(run(&unknown, &[("z", "1")], &data), None);
    }

    #[test]
    fn filters_compare_as_text_with_their_operator() {
        // contract: STATE-052
        let data = objects(POSTS);
        let has = |field: &str| {
            data.iter()
                .any(|object| field_value(object, field).is_some())
        };
        let roles = candidate_roles("views_gte", &has);
        assert_eq!(
            roles,
            vec![QueryRole::Filter {
                field: "views".into(),
                op: "gte".into()
            }]
        );
        let model = model(&[
            (
                "author",
                QueryRole::Filter {
                    field: "author".into(),
                    op: "eq".into(),
                },
            ),
            ("views_gte", roles[0].clone()),
            (
                "in_author",
                QueryRole::Filter {
                    field: "author".into(),
                    op: "in".into(),
                },
            ),
            (
                "published",
                QueryRole::Filter {
                    field: "published".into(),
                    op: "eq".into(),
                },
            ),
            (
                "title_like",
                QueryRole::Filter {
                    field: "title".into(),
                    op: "like".into(),
                },
            ),
        ]);
        assert_eq!(run(&model, &[("author", "alice")], &data), Some(vec![0, 2]));
        assert_eq!(
            run(&model, &[("views_gte", "45")], &data),
            Some(vec![0, 1, 2])
        );
        assert_eq!(
            run(&model, &[("in_author", "bob,carol")], &data),
            Some(vec![1, 3])
        );
        assert_eq!(
            run(&model, &[("published", "true")], &data),
            Some(vec![0, 2])
        );
        assert_eq!(
            run(&model, &[("title_like", "PAGING")], &data),
            Some(vec![1])
        );
        // A parameter without a role is not evaluated.
        assert_eq!(run(&model, &[("colour", "red")], &data), None);
        let words = model_of_filters(&[
            ("title_starts", "title", "starts"),
            ("title_ends", "title", "ends"),
            ("author_nin", "author", "nin"),
            ("draft_null", "draft", "null"),
            ("draft_nnull", "draft", "nnull"),
            ("views_between", "views", "between"),
        ]);
        assert_eq!(
            run(&words, &[("title_starts", "Pag")], &data),
            Some(vec![1])
        );
        assert_eq!(run(&words, &[("title_starts", "pag")], &data), Some(vec![]));
        assert_eq!(
            run(&words, &[("title_ends", "design")], &data),
            Some(vec![2])
        );
        assert_eq!(
            run(&words, &[("author_nin", "alice,carol")], &data),
            Some(vec![1])
        );
        // Absent or null is null; `1`/`true` asks for it, `0`/`false` for the others.
        assert_eq!(
            run(&words, &[("draft_null", "1")], &data),
            Some(vec![0, 1, 3])
        );
        assert_eq!(
            run(&words, &[("draft_nnull", "true")], &data),
            Some(vec![2])
        );
        assert_eq!(
            run(&words, &[("draft_null", "false")], &data),
            Some(vec![2])
        );
        assert_eq!(run(&words, &[("draft_null", "maybe")], &data), Some(vec![]));
        assert_eq!(
            run(&words, &[("views_between", "40,120")], &data),
            Some(vec![0, 1, 2])
        );
    }

    #[test]
    fn pattern_filters_match_like_and_glob_patterns() {
        let data = objects(POSTS);
        let patterns = model_of_filters(&[
            ("title__like", "title", "pattern"),
            ("title__glob", "title", "glob"),
        ]);
        // `LIKE`: `%` any run, `_` one character, case-insensitively; anchored at both ends.
        assert_eq!(
            run(&patterns, &[("title__like", "%TIPS")], &data),
            Some(vec![1])
        );
        assert_eq!(
            run(&patterns, &[("title__like", "%t%")], &data),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(
            run(&patterns, &[("title__like", "n_tes")], &data),
            Some(vec![3])
        );
        assert_eq!(
            run(&patterns, &[("title__like", "tips")], &data),
            Some(vec![])
        );
        // Other regular-expression characters are literal.
        assert_eq!(
            run(&patterns, &[("title__like", ".*")], &data),
            Some(vec![])
        );
        // Glob: `*`, `?`, sets and ranges, case-sensitively.
        assert_eq!(
            run(&patterns, &[("title__glob", "*REST*")], &data),
            Some(vec![2])
        );
        assert_eq!(
            run(&patterns, &[("title__glob", "*rest*")], &data),
            Some(vec![])
        );
        assert_eq!(
            run(&patterns, &[("title__glob", "[GP]*")], &data),
            Some(vec![0, 1])
        );
        // `iglob`: the glob in any case.
        let any_case = model_of_filters(&[("title_ilike", "title", "iglob")]);
        assert_eq!(
            run(&any_case, &[("title_ilike", "*rest*")], &data),
            Some(vec![2])
        );
        assert_eq!(
            run(&any_case, &[("title_ilike", "[gp]*")], &data),
            Some(vec![0, 1])
        );
        assert_eq!(
            run(&patterns, &[("title__glob", "[^A-N]*")], &data),
            Some(vec![1, 2])
        );
        assert_eq!(
            run(&patterns, &[("title__glob", "Note?")], &data),
            Some(vec![3])
        );
        // A set without its closing bracket is not read.
        assert_eq!(run(&patterns, &[("title__glob", "[GP*")], &data), None);
    }

    #[test]
    fn a_token_filter_holds_one_item_of_a_word_list() {
        let data = objects(
            r#"[{"tags": "Task [[Home and Garden]]"}, {"tags": "Contact Finance"},
                {"tags": "Home"}, {"title": "untagged"}]"#,
        );
        let tagged = model_of_filters(&[("tag", "tags", "token")]);
        assert_eq!(run(&tagged, &[("tag", "Task")], &data), Some(vec![0]));
        assert_eq!(
            run(&tagged, &[("tag", "Home and Garden")], &data),
            Some(vec![0])
        );
        // An item, never a part of one.
        assert_eq!(run(&tagged, &[("tag", "Home")], &data), Some(vec![2]));
        assert_eq!(run(&tagged, &[("tag", "Fin")], &data), Some(vec![]));
        let items: Vec<&str> = word_list("  a [[b c]] [[d]]e [[unclosed").collect();
        assert_eq!(items, vec!["a", "b c", "d", "e", "[[unclosed"]);
    }

    #[test]
    fn a_keyset_cursor_keeps_the_members_after_the_one_it_names() {
        let data = objects(
            r#"[{"id": 1, "title": "b c", "p": 2}, {"id": 2, "title": "a", "p": 1},
                {"id": 3, "title": "b c", "p": 2}, {"id": 4, "title": "d", "p": 1}]"#,
        );
        let model = model(&[
            ("_sort", QueryRole::Sort),
            ("_size", QueryRole::PageSize),
            ("_next", QueryRole::After { key: "id".into() }),
        ]);
        // Without a sort: the members whose key is greater.
        assert_eq!(
            run(&model, &[("_next", "2"), ("_size", "1")], &data),
            Some(vec![2])
        );
        // With one: the sort value (`+` a space), then the key breaking its ties.
        assert_eq!(
            run(&model, &[("_sort", "title"), ("_next", "b+c,1")], &data),
            Some(vec![2, 3])
        );
        assert_eq!(
            run(&model, &[("_sort", "-p"), ("_next", "1,2")], &data),
            Some(vec![3])
        );
        // A cursor holding another number of values than the sort keys and key is unread.
        assert_eq!(
            run(&model, &[("_sort", "title"), ("_next", "2")], &data),
            None
        );
        let keyless = model_of_roles_after_without_key();
        assert_eq!(run(&keyless, &[("_next", "2")], &data), None);
    }

    fn model_of_roles_after_without_key() -> QueryModel {
        model(&[("_next", QueryRole::After { key: String::new() })])
    }

    #[test]
    fn search_sort_and_pages() {
        // contract: STATE-052
        let data = objects(POSTS);
        let model = model(&[
            ("q", QueryRole::Search),
            ("_sort", QueryRole::Sort),
            ("_order", QueryRole::Order),
            ("_page", QueryRole::Page { base: 1 }),
            ("_limit", QueryRole::PageSize),
            ("_start", QueryRole::Offset),
            ("_end", QueryRole::End),
            ("max_results", QueryRole::PageSize),
        ]);
        assert_eq!(run(&model, &[("q", "rest")], &data), Some(vec![2]));
        assert_eq!(
            run(&model, &[("_sort", "views"), ("_order", "desc")], &data),
            Some(vec![0, 1, 2, 3])
        );
        // Stable over state order for equal keys; `-field` sorts descending.
        assert_eq!(
            run(&model, &[("_sort", "-views,title")], &data),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(
            run(&model, &[("_sort", "author,views")], &data),
            Some(vec![2, 0, 1, 3])
        );
        assert_eq!(
            run(&model, &[("_page", "2"), ("_limit", "3")], &data),
            Some(vec![3])
        );
        assert_eq!(
            run(&model, &[("_start", "1"), ("_end", "3")], &data),
            Some(vec![1, 2])
        );
        assert_eq!(
            run(&model, &[("max_results", "2")], &data),
            Some(vec![0, 1])
        );
        // A page without a page size, or a direction without a sort, is not evaluated.
        assert_eq!(run(&model, &[("_page", "2")], &data), None);
        assert_eq!(run(&model, &[("_order", "desc")], &data), None);
        // Repeated names are not evaluated.
        assert_eq!(run(&model, &[("q", "a"), ("q", "b")], &data), None);
    }

    #[test]
    fn page_size_names_are_recognized() {
        // contract: STATE-102, STATE-103
        for name in ["limit", "per_page", "maxSize", "max_results", "maxResults"] {
            assert_eq!(
                candidate_roles(name, &|_| false),
                vec![QueryRole::PageSize],
                "{name}"
            );
            assert!(only_pages(name, "20"));
        }
        assert!(only_pages("offset", "0"));
        assert!(!only_pages("offset", "3"));
        assert!(!only_pages("page", "1"));
        assert!(!only_pages("_start", "x"));
    }
}
