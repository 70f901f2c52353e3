//! `json-filter`: a query parameter holding a filter as a JSON object (`filter={"estimate_h":
//! {"_gt": 5}}`, `{"_and": [{"state": {"_neq": "done"}}, …]}`) is the same filter spelled as nested
//! brackets, one term per operator: `filter[estimate_h][_gt]=5`, `filter[state][_neq]=done`. The
//! terms take the roles the bracket spelling has in the list's grammar (learned from the recorded
//! lines, or extended to other fields and operators by `field-affixes`); a term of one field and a
//! known operator word (`rea_plugin_api::query_fields::bracket_filter`) plays that filter wherever
//! no recording named it.
//!
//! Members are fields, except a member named with a leading `_` or `$`: an operator, whose value
//! (a scalar, or an array as its comma-separated items) is the term's; or `_and`/`$and`, an array
//! of objects all of which hold; or `_or`/`$or`, an array of objects one of which holds: each
//! term under it lies in that branch of the group (`QueryTerm::within`), named in the bracket
//! spelling through the group (`filter[_or][0][state][_eq]`) and playing the role its spelling
//! outside the group has. A query pair already spelled in brackets through such groups
//! (`filter[_or][1][priority][_eq]=5`, how a query string encodes the same object) is split into
//! that one term. A group may also open the query itself, with no filter base (qs's spelling of
//! FeathersJS's `$or`: `$or[0][status]=doing&$or[1][estimate][$gte]=8`): each branch's term is
//! named as outside the group, a field's own name its equality; a recorded name of such a group
//! implies the family of them.
//!
//! In the `$` dialect (a filter spelling no operator with `_`, as MongoDB's and Parse's `where=`)
//! a field's bare value is its equality (`{"status": "open"}`: `where[status][$eq]`, `null`: its
//! absence). The same dialect may spell its operators and groups with no sigil (Waterline's
//! `where={"priority": {">": 2}, "title": {"startsWith": "Order"}, "or": [...]}`): under a field
//! an operator word or a comparison symbol (`>`, `>=`, `<`, `<=`, `!=`) is that operator, and
//! `or`/`and` where no field is so named that group, each spelled as its `$` form
//! (`where[priority][$gt]`, `where[$or][0][status][$eq]`). A typed value (an object with `__type`) is compared by what it names: a pointer
//! (`{"__type": "Pointer", "className": …, "objectId": …}`) by the object id the held pointer
//! holds (`project.objectId`), a date (`{"__type": "Date", "iso": …}`) by its ISO text, against
//! the held typed date's `iso` where the entities hold one (else the field's own text). `$regex`
//! is a regular expression the text matches anywhere, made case-insensitive by `$options: "i"`
//! (another option is not modelled); `$exists` is the field's presence; `$all` an array field
//! holding every item. A quantifier over a relation's entities under a field (`{"tasks": {"_some":
//! {"assignee": {"_eq": "chen"}}}}`) is a step of the term's bracket path
//! (`filter[tasks][_some][assignee][_eq]`), whose role the list's grammar gives. A negation
//! (`_not`, `_nor`), the complement quantifier (`_none`), a quantifier at the top, an operator over an object, a field with no operator under it, an empty group, or the same
//! term twice is not split, and the call is not evaluated through this grammar.

use std::collections::BTreeMap;

use rea_plugin_api::contracts::query::{
    QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome, QueryGrammarRequest,
    QueryRole, QueryTerm, TermBranch,
};
use rea_plugin_api::json::{Json, Object, parse};
use rea_plugin_api::query_fields::{QUANTIFIER_WORDS, bracket_filter, operator_word};
use rea_plugin_api::{PluginError, QueryGrammar};

/// The stage's name.
pub const JSON_FILTER: &str = "json-filter";

/// The `json-filter` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonFilter;

impl QueryGrammar for JsonFilter {
    /// It proposes no parameter name (its terms are spelled in the bracket form), but for a list
    /// whose recorded or established names hold a filter in the bracket form, the family of
    /// names through its logical groups (see [`group_family`]).
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, PluginError> {
        let mut outcome = crate::no_proposals(request);
        outcome.families = request
            .lists
            .iter()
            .map(|list| {
                let mut families: BTreeMap<String, String> = list
                    .established
                    .keys()
                    .chain(&list.recorded_names)
                    .filter_map(|name| group_family(name))
                    .collect();
                families.extend(
                    list.recorded_names
                        .iter()
                        .filter_map(|name| recorded_group_family(name)),
                );
                families
            })
            .collect();
        if outcome.families.iter().all(BTreeMap::is_empty) {
            outcome.families.clear();
        }
        Ok(outcome)
    }

    fn split(
        &self,
        request: &QueryExpressionRequest,
    ) -> Result<QueryExpressionOutcome, PluginError> {
        Ok(QueryExpressionOutcome::of(terms(
            (&request.name, &request.value),
            &request.fields,
            &request.call,
        )))
    }
}

/// The terms of a JSON filter object, or of one bracket term through logical groups (see the
/// module docs), given the fields the list's entity type holds.
fn terms(
    (name, value): (&str, &str),
    fields: &[String],
    call: &[(String, String)],
) -> Option<Vec<QueryTerm>> {
    if let Some(terms) = crate::filter_list::terms(name, value) {
        return Some(terms);
    }
    if let Some(terms) = crate::rison_query::terms(name, value) {
        return Some(terms);
    }
    if let Some(terms) = crate::delimited::terms_in_call(name, value, call) {
        return Some(terms);
    }
    if !value.trim_start().starts_with('{') {
        return bracket_term(name, value).map(|term| vec![term]);
    }
    let filter = parse(value.as_bytes()).ok()?;
    if let Some(terms) = clause_terms(name, &filter, fields) {
        return Some(terms);
    }
    let mut leaves: Vec<Leaf> = Vec::new();
    let at = Place {
        spelled: name.to_owned(),
        plain: name.to_owned(),
        within: Vec::new(),
        field: Vec::new(),
    };
    let reading = Reading {
        fields,
        shorthand: !holds_underscore_operator(&filter),
    };
    flatten(&at, &filter, &mut leaves, &reading)?;
    let mut terms: Vec<QueryTerm> = Vec::new();
    for leaf in leaves {
        let term = term(leaf);
        if terms.iter().any(|known| known.name == term.name) {
            return None;
        }
        terms.push(term);
    }
    (!terms.is_empty()).then_some(terms)
}

/// The clause holding the conditions of a whole filter spelled as JSON.
const WHERE: &str = "where";

/// A whole filter spelled as JSON, its clauses beside the conditions (LoopBack's
/// `filter={"where": {"projectId": 2}, "order": "estimate DESC", "limit": 4}`), as the terms its
/// bracket spelling holds: each scalar clause the name nested in the filter's (`filter[order]`,
/// `filter[limit]`, whose role is the one the list learned for that name), and each condition of
/// `where` the filter of its field and operator, named through the clause
/// (`filter[where][projectId][$eq]`, `filter[where][status][$inq]`). `None` for a filter without
/// a `where` object, one naming a field the entities hold at its top, or one whose clauses are
/// not all scalars or whose conditions do not all read as one field's (a group, a path).
fn clause_terms(name: &str, filter: &Json, fields: &[String]) -> Option<Vec<QueryTerm>> {
    let Json::Object(clauses) = filter else {
        return None;
    };
    let conditions = clauses.get(WHERE)?;
    if clauses
        .keys()
        .any(|clause| fields.iter().any(|field| field == clause))
    {
        return None;
    }
    let reading = Reading {
        fields,
        shorthand: !holds_underscore_operator(conditions),
    };
    let top = Place {
        spelled: String::new(),
        plain: String::new(),
        within: Vec::new(),
        field: Vec::new(),
    };
    let mut leaves: Vec<Leaf> = Vec::new();
    flatten(&top, conditions, &mut leaves, &reading)?;
    let mut terms: Vec<QueryTerm> = Vec::new();
    for leaf in leaves {
        let term = term(leaf);
        if !term.within.is_empty() || term.roles.is_empty() {
            return None;
        }
        terms.push(QueryTerm {
            name: format!("{name}[{WHERE}][{}", term.name.replacen('[', "][", 1)),
            ..term
        });
    }
    for (clause, value) in clauses.iter().filter(|(clause, _)| *clause != WHERE) {
        if matches!(value, Json::Array(_) | Json::Object(_) | Json::Null) {
            return None;
        }
        terms.push(QueryTerm {
            name: format!("{name}[{clause}]"),
            value: operand(value)?,
            roles: Vec::new(),
            within: Vec::new(),
        });
    }
    (!terms.is_empty()).then_some(terms)
}

/// How a filter is read: the fields the list's type holds (a typed date compared by its `iso`
/// member where the entities hold one), and whether a field's bare value is its equality (the
/// `$` dialect's shorthand: no operator of the filter is spelled with `_`).
struct Reading<'a> {
    fields: &'a [String],
    shorthand: bool,
}

/// Whether a filter spells an operator or a logical group with `_` (`_eq`, `_or`): the
/// dialect without the equality shorthand. A typed value's `__type` is no operator.
fn holds_underscore_operator(value: &Json) -> bool {
    match value {
        Json::Object(members) => members.iter().any(|(key, inner)| {
            (key.starts_with('_')
                && !key.starts_with("__")
                && (is_and(key) || is_or(key) || operator_word(key).is_some()))
                || holds_underscore_operator(inner)
        }),
        Json::Array(items) => items.iter().any(holds_underscore_operator),
        _ => false,
    }
}

/// One operator of a filter: its term's name (the bracket spelling through its groups), the
/// name outside any group (whose role it plays), its value, its disjunction branches, and the
/// role the grammar gives it (else the role of its plain spelling).
struct Leaf {
    name: String,
    plain: String,
    value: String,
    within: Vec<TermBranch>,
    role: Option<QueryRole>,
}

/// Where [`flatten`] is in a filter: the bracket spelling so far, the same without logical
/// groups, the disjunction branches entered, and the field path (empty at the top).
#[derive(Clone)]
struct Place {
    spelled: String,
    plain: String,
    within: Vec<TermBranch>,
    field: Vec<String>,
}

impl Place {
    /// One member further down (an operator, or a typed value's member).
    fn member(&self, key: &str) -> Place {
        Place {
            spelled: nested(&self.spelled, key),
            plain: nested(&self.plain, key),
            within: self.within.clone(),
            field: self.field.clone(),
        }
    }

    /// Into the field `key`.
    fn field(&self, key: &str) -> Place {
        let mut place = self.member(key);
        place.field.push(key.to_owned());
        place
    }

    /// The one field this place names (a top-level member of the filter); `None` at the top or
    /// down a relational path, whose meaning is the list's to learn.
    fn direct_field(&self) -> Option<&str> {
        match self.field.as_slice() {
            [field] => Some(field),
            _ => None,
        }
    }

    /// The leaf of the operator `key` here, with its value and the role the grammar gives it.
    fn leaf(&self, key: &str, value: String, role: Option<QueryRole>) -> Leaf {
        let place = self.member(key);
        Leaf {
            name: place.spelled,
            plain: place.plain,
            value,
            within: place.within,
            role,
        }
    }

    /// Into entry `index` of the conjunction `key` (spelled, not a branch).
    fn all_of(&self, key: &str, index: usize) -> Place {
        Place {
            spelled: format!("{}[{index}]", nested(&self.spelled, key)),
            plain: self.plain.clone(),
            within: self.within.clone(),
            field: self.field.clone(),
        }
    }

    /// Into branch `index` of the disjunction `key`.
    fn any_of(&self, key: &str, index: usize) -> Option<Place> {
        let group = nested(&self.spelled, key);
        let mut within = self.within.clone();
        within.push(TermBranch::new(group.clone(), u32::try_from(index).ok()?));
        Some(Place {
            spelled: format!("{group}[{index}]"),
            plain: self.plain.clone(),
            within,
            field: self.field.clone(),
        })
    }
}

/// A name one key further down: `outer[key]`, or the key itself at the top of a query (a
/// logical group spelled with no filter base, `$or[0][status]`).
fn nested(outer: &str, key: &str) -> String {
    if outer.is_empty() {
        key.to_owned()
    } else {
        format!("{outer}[{key}]")
    }
}

/// A leaf as its term: the role the grammar gave it, else the role of its plain spelling (a
/// field and a known operator word) when it has one, else the roles the list learned for its
/// name.
fn term(leaf: Leaf) -> QueryTerm {
    let roles = match leaf.role {
        Some(role) => vec![role],
        // A field's own name in a group at the top of the query (`$or[0][status]=doing`): its
        // equality, as a field's bare value is in the `$` dialect.
        None if !leaf.within.is_empty() && !leaf.plain.contains(['[', ']']) => {
            vec![QueryRole::filter(&leaf.plain, "eq")]
        }
        None => bracket_filter(&leaf.plain)
            .map(|(field, op)| vec![QueryRole::filter(&field, &op)])
            .unwrap_or_default(),
    };
    let name = if leaf.within.is_empty() {
        leaf.plain
    } else {
        leaf.name
    };
    QueryTerm {
        name,
        value: leaf.value,
        roles,
        within: leaf.within,
    }
}

/// A bracket name's part naming a logical group, `Some(true)` for a disjunction and
/// `Some(false)` for a conjunction: `_or`/`$or`, `_and`/`$and`, or, where an entry's index
/// follows it (`entry`: the group is an indexed list of condition objects, `where[or][0][status]`),
/// the word with no sigil.
fn group_word(part: &str, entry: bool) -> Option<bool> {
    let word = match part.strip_prefix(['_', '$']) {
        Some(word) => word,
        None if entry => part,
        None => return None,
    };
    match word {
        "or" => Some(true),
        "and" => Some(false),
        _ => None,
    }
}

/// Whether a member names a disjunction (`_or`, `$or`) or a conjunction (`_and`, `$and`).
fn is_or(key: &str) -> bool {
    matches!(key, "_or" | "$or")
}

fn is_and(key: &str) -> bool {
    matches!(key, "_and" | "$and")
}

/// Whether a field's value is a condition of its own rather than operators or a relational
/// path: a scalar, `null`, or a typed value (an object with `__type`).
fn is_bare(value: &Json) -> bool {
    match value {
        Json::Object(members) => members.get(TYPE_MEMBER).is_some(),
        Json::Array(_) => false,
        _ => true,
    }
}

/// Collects the leaf of every operator under `at`; `None` when a part is not modelled.
fn flatten(at: &Place, value: &Json, leaves: &mut Vec<Leaf>, reading: &Reading) -> Option<()> {
    if !at.field.is_empty() && is_bare(value) {
        leaves.push(bare_condition(at, value, reading)?);
        return Some(());
    }
    let Json::Object(members) = value else {
        return None;
    };
    if members.is_empty() {
        return None;
    }
    for (key, inner) in members.iter() {
        let key = sigiled(at, key, reading);
        let key = key.as_str();
        if is_and(key) || is_or(key) {
            let Json::Array(entries) = inner else {
                return None;
            };
            if entries.is_empty() {
                return None;
            }
            for (index, entry) in entries.iter().enumerate() {
                let place = if is_or(key) {
                    at.any_of(key, index)?
                } else {
                    at.all_of(key, index)
                };
                flatten(&place, entry, leaves, reading)?;
            }
        } else if is_quantifier(key) {
            if at.field.is_empty() {
                return None;
            }
            flatten(&at.member(key), inner, leaves, reading)?;
        } else if key.starts_with(['_', '$']) {
            if LOGICAL.contains(&key.trim_start_matches(['_', '$'])) {
                return None;
            }
            if let Some(leaf) = operator_leaf(at, (key, inner), members, reading)? {
                leaves.push(leaf);
            }
        } else {
            flatten(&at.field(key), inner, leaves, reading)?;
        }
    }
    Some(())
}

/// The comparison symbols Waterline's criteria spell (`{"priority": {">": 2}}`), as the operator
/// words they mean.
const SYMBOLS: [(&str, &str); 5] = [
    (">", "gt"),
    (">=", "gte"),
    ("<", "lt"),
    ("<=", "lte"),
    ("!=", "ne"),
];

/// A member as the `$` dialect spells it, where the filter spells operators and groups with no
/// sigil at all (Waterline's `where={"priority": {">": 2}, "or": [...]}`, LoopBack's
/// `{"priority": {"gte": 3}}`): in the shorthand dialect, under a field an unsigiled operator
/// word (`in`, `startsWith`) or comparison symbol ([`SYMBOLS`]) is that operator (`$in`,
/// `$startsWith`, `$gt`), and outside one an unsigiled `or`/`and` the entities hold no field of
/// is that group. Any other member is kept as written.
fn sigiled(at: &Place, key: &str, reading: &Reading) -> String {
    if !reading.shorthand || key.starts_with(['_', '$']) {
        return key.to_owned();
    }
    if at.field.is_empty() {
        let group = matches!(key, "or" | "and") && !reading.fields.iter().any(|f| f == key);
        return if group {
            format!("${key}")
        } else {
            key.to_owned()
        };
    }
    if let Some((_, word)) = SYMBOLS.iter().find(|(symbol, _)| *symbol == key) {
        return format!("${word}");
    }
    let operator = operator_word(key).is_some()
        && !LOGICAL.contains(&key)
        && key.chars().all(|character| character.is_ascii_alphabetic());
    if operator {
        format!("${key}")
    } else {
        key.to_owned()
    }
}

/// A field's bare value as its condition: a scalar its equality (the `$` dialect's shorthand),
/// `null` its absence, a typed value equality with what it names (see [`typed`]).
fn bare_condition(at: &Place, value: &Json, reading: &Reading) -> Option<Leaf> {
    let field = at.direct_field()?;
    if let Some((member, compared, text)) = typed(field, value, reading.fields) {
        let place = member.map_or_else(|| at.clone(), |member| at.member(member));
        return Some(place.leaf("$eq", text, Some(QueryRole::filter(&compared, "eq"))));
    }
    if !reading.shorthand {
        return None;
    }
    match value {
        Json::Null => Some(at.leaf("$null", "true".to_owned(), None)),
        scalar => Some(at.leaf("$eq", operand(scalar)?, None)),
    }
}

/// The member naming a typed value's kind (`{"__type": "Date", "iso": …}`).
const TYPE_MEMBER: &str = "__type";

/// A typed value (`{"__type": "Date", "iso": …}`, `{"__type": "Pointer", "className": …,
/// "objectId": …}`) as what a condition on `field` compares: a pointer by the object id the
/// held pointer holds (`field.objectId`), a date by its ISO text, held as a typed date
/// (`field.iso`) where the fields hold one, else as the field's own text (a date-time stamp).
/// Returns the member stepped into (if any), the compared field and the value's text; `None`
/// for a value that is not typed or of another kind.
fn typed(
    field: &str,
    value: &Json,
    fields: &[String],
) -> Option<(Option<&'static str>, String, String)> {
    let Json::Object(members) = value else {
        return None;
    };
    let text = |member: &str| {
        members
            .get(member)
            .and_then(Json::as_str)
            .map(str::to_owned)
    };
    match members.get(TYPE_MEMBER)?.as_str()? {
        "Pointer" => {
            let id = text("objectId")?;
            Some((Some("objectId"), format!("{field}.objectId"), id))
        }
        "Date" => {
            let iso = text("iso")?;
            let dotted = format!("{field}.iso");
            if fields.contains(&dotted) {
                Some((Some("iso"), dotted, iso))
            } else {
                Some((None, field.to_owned(), iso))
            }
        }
        _ => None,
    }
}

/// The leaf of one operator member of a field's condition (`Some(None)` for a member another
/// one reads: `$options` beside `$regex`); `None` when it is not modelled.
fn operator_leaf(
    at: &Place,
    (key, inner): (&str, &Json),
    siblings: &Object,
    reading: &Reading,
) -> Option<Option<Leaf>> {
    let sigil = &key[..1];
    let word = &key[1..];
    let Some(field) = at.direct_field() else {
        return Some(Some(at.leaf(key, operand(inner)?, None)));
    };
    let role = |op: &str| Some(QueryRole::filter(field, op));
    let leaf = match word {
        "options" => {
            return siblings.get(&format!("{sigil}regex")).map(|_| None);
        }
        "regex" => {
            let options = siblings.get(&format!("{sigil}options"));
            at.leaf(key, pattern(inner, options)?, role("regex"))
        }
        "exists" => {
            let Json::Bool(exists) = inner else {
                return None;
            };
            let op = if *exists { "nnull" } else { "null" };
            at.leaf(key, "true".to_owned(), role(op))
        }
        "all" => at.leaf(key, items(inner)?, role("all")),
        _ => match typed_operand(field, inner, reading.fields) {
            Some((member, compared, text)) => {
                let place = member.map_or_else(|| at.clone(), |member| at.member(member));
                let op = operator_word(key)?;
                place.leaf(key, text, Some(QueryRole::filter(&compared, op)))
            }
            None => at.leaf(key, operand(inner)?, None),
        },
    };
    Some(Some(leaf))
}

/// An operator's typed operand (one typed value, or an array of typed values of one kind) as
/// [`typed`] reads it, the array's texts comma-separated; `None` for an operand holding none.
fn typed_operand(
    field: &str,
    operand: &Json,
    fields: &[String],
) -> Option<(Option<&'static str>, String, String)> {
    match operand {
        Json::Array(items) if !items.is_empty() => {
            let read: Option<Vec<_>> = items
                .iter()
                .map(|item| typed(field, item, fields))
                .collect();
            let read = read?;
            let (member, compared, _) = read[0].clone();
            if read
                .iter()
                .any(|(m, c, text)| *m != member || *c != compared || text.contains(','))
            {
                return None;
            }
            let texts: Vec<String> = read.into_iter().map(|(_, _, text)| text).collect();
            Some((member, compared, texts.join(",")))
        }
        value => typed(field, value, fields),
    }
}

/// A `$regex` operand and its `$options` as one regular expression: the options may only make
/// it case-insensitive (`i`), which the expression then says (`(?i)…`); `None` for another
/// option or an operand that is not text.
fn pattern(regex: &Json, options: Option<&Json>) -> Option<String> {
    let regex = regex.as_str()?;
    let options = match options {
        None => "",
        Some(options) => options.as_str()?,
    };
    if !options.chars().all(|option| option == 'i') {
        return None;
    }
    Some(if options.is_empty() {
        regex.to_owned()
    } else {
        format!("(?i){regex}")
    })
}

/// An array of scalars (none holding a comma) as its items comma-separated; `None` for an
/// empty array or one holding anything else.
fn items(value: &Json) -> Option<String> {
    let Json::Array(items) = value else {
        return None;
    };
    let texts: Option<Vec<String>> = items
        .iter()
        .map(|item| match item {
            Json::Array(_) | Json::Object(_) | Json::Null => None,
            scalar => operand(scalar).filter(|text| !text.contains(',')),
        })
        .collect();
    texts
        .filter(|texts| !texts.is_empty())
        .map(|texts| texts.join(","))
}

/// The logical and relational words (without `_` or `$`) this grammar does not model: a
/// negation, and the complement quantifier over a relation's list (`_none`; `_some` is a step of
/// the term's path, see [`QUANTIFIER_WORDS`]).
const LOGICAL: [&str; 3] = ["not", "nor", "none"];

/// Whether a member is a quantifier over the related entities of the field it lies under
/// (`_some`, see [`QUANTIFIER_WORDS`]): a step of the term's spelled path, whose role the list's
/// grammar gives (`filter[tasks][_some][assignee][_eq]`).
fn is_quantifier(key: &str) -> bool {
    key.starts_with(['_', '$']) && QUANTIFIER_WORDS.contains(&key.trim_start_matches(['_', '$']))
}

/// One query pair in the bracket spelling through logical groups (`filter[_or][0][state][_eq]`,
/// `filter[_and][1][_or][0][priority][_gte]`) as its term; `None` when its name passes through
/// no group, or a group's entry is not an index, or it names a word not modelled.
fn bracket_term(name: &str, value: &str) -> Option<QueryTerm> {
    let (base, rest) = name.split_once('[')?;
    let mut parts: Vec<&str> = rest.strip_suffix(']')?.split("][").collect();
    // A group at the top of the query (`$or[0][status]`): its terms are the query's own names.
    let top = is_or(base) || is_and(base);
    if top {
        parts.insert(0, base);
    }
    let base = if top { "" } else { base };
    let mut at = Place {
        spelled: base.to_owned(),
        plain: base.to_owned(),
        within: Vec::new(),
        field: Vec::new(),
    };
    let mut grouped = false;
    let mut parts = parts.into_iter().peekable();
    while let Some(part) = parts.next() {
        let entry = parts.peek().and_then(|next| next.parse::<usize>().ok());
        if let Some(disjunction) = group_word(part, entry.is_some()) {
            let index: usize = parts.next()?.parse().ok()?;
            grouped = true;
            at = if disjunction {
                at.any_of(part, index)?
            } else {
                at.all_of(part, index)
            };
        } else if part.is_empty()
            || part.contains(['[', ']'])
            || LOGICAL.contains(&part.trim_start_matches(['_', '$']))
        {
            return None;
        } else {
            at = at.member(part);
        }
    }
    grouped.then(|| {
        term(Leaf {
            name: at.spelled,
            plain: at.plain,
            value: value.to_owned(),
            within: at.within,
            role: None,
        })
    })
}

/// The family of bracket names through logical groups a bracket filter name implies
/// (`filter[state][_eq]` → `filter[_or][0][state][_eq]`, `filter[_and][1][_or][0][a][_gte]`, with
/// the sigil its operator word has), as the anchored pattern and what a name of it does; `None`
/// for a name not of the form `base[field][op]`.
fn group_family(name: &str) -> Option<(String, String)> {
    top_group_family(name).or_else(|| filter_group_family(name))
}

/// The family of names through logical groups at the top of a query a recorded name of one
/// implies (`$or[0][status]` → `$or[1][estimate][$gte]`, `$and[0][$or][1][title]`), with its
/// sigil; `None` for a name not starting with such a group and its entry's index.
fn top_group_family(name: &str) -> Option<(String, String)> {
    let (base, rest) = name.split_once('[')?;
    let (index, _) = rest.split_once(']')?;
    if !(is_or(base) || is_and(base)) || index.parse::<u32>().is_err() {
        return None;
    }
    let sigil = escaped(&base[..1]);
    let pattern =
        format!(r"^{sigil}(and|or)(\[[0-9]+\]\[{sigil}(and|or)\])*\[[0-9]+\](\[[^\[\]]+\])+$");
    let s = &base[..1];
    let description = format!(
        "a query term inside {s}or/{s}and groups at the top of the query, each group and its \
         entry's index in brackets before the term's own name ({s}or[0][field], \
         {s}or[1][field][{s}gte]), keeping the members one branch of each {s}or group holds"
    );
    Some((pattern, description))
}

/// The family of bracket names through logical groups a bracket filter name implies (see
/// [`group_family`]).
fn filter_group_family(name: &str) -> Option<(String, String)> {
    bracket_filter(name)?;
    let (base, rest) = name.split_once('[')?;
    let parts: Vec<&str> = rest.strip_suffix(']')?.split("][").collect();
    let [_, word] = parts.as_slice() else {
        return None;
    };
    let sigil = word.chars().next().filter(|c| matches!(c, '_' | '$'))?;
    let pattern = format!(
        r"^{base}(\[{s}(and|or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$",
        base = escaped(base),
        s = escaped(&sigil.to_string())
    );
    let description = format!(
        "a filter term inside {sigil}or/{sigil}and groups, each group and its entry's index in \
         brackets before the field and operator ({base}[{sigil}or][0][field][{sigil}eq]), \
         keeping the members one branch of each {sigil}or group holds"
    );
    Some((pattern, description))
}

/// The family of bracket names through logical groups a recorded name through one implies
/// (`filter[where][or][0][status]` → `filter[where][or][1][priority][gt]`,
/// `filter[where][and][0][or][1][a]`): the name's base and members before its first group word
/// followed by an entry's index (see [`group_word`]), then groups spelled with that word's sigil
/// (or none), then the term's own members; `None` for a name through no such group, or one whose
/// group opens the query (see [`top_group_family`]).
fn recorded_group_family(name: &str) -> Option<(String, String)> {
    let (base, rest) = name.split_once('[')?;
    let parts: Vec<&str> = rest.strip_suffix(']')?.split("][").collect();
    let at = (0..parts.len().saturating_sub(1)).find(|at| {
        parts[at + 1].parse::<u32>().is_ok() && group_word(parts[*at], true).is_some()
    })?;
    if base.is_empty() || group_word(base, false).is_some() {
        return None;
    }
    let word = parts[at];
    let sigil = &word[..word.len() - word.trim_start_matches(['_', '$']).len()];
    let prefix: String = parts[..at].iter().map(|part| format!("[{part}]")).collect();
    let spelled = format!("{base}{prefix}");
    let pattern = format!(
        r"^{}(\[{s}(and|or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$",
        escaped(&spelled),
        s = escaped(sigil)
    );
    let description = format!(
        "a filter term inside {sigil}or/{sigil}and groups, each group and its entry's index in \
         brackets after {spelled} ({spelled}[{sigil}or][0][field], as a recorded query spelled \
         one), keeping the members one branch of each {sigil}or group holds"
    );
    Some((pattern, description))
}

/// Text as a pattern matching it literally (the characters special in a regular expression
/// escaped).
fn escaped(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An operator's value as query text: a scalar as written, an array as its comma-separated items.
pub(crate) fn operand(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.to_string()),
        Json::Number(number) => Some(number.as_str().to_owned()),
        Json::Bool(flag) => Some(flag.to_string()),
        Json::Null => Some("null".to_owned()),
        Json::Array(items) => {
            let items: Option<Vec<String>> = items
                .iter()
                .map(|item| match item {
                    Json::Array(_) | Json::Object(_) => None,
                    scalar => operand(scalar),
                })
                .collect();
            Some(items?.join(","))
        }
        Json::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use rea_plugin_api::contracts::SCHEMA_VERSION;

    use super::*;

    fn split(value: &str) -> Option<Vec<(String, String, Vec<QueryRole>)>> {
        let request = QueryExpressionRequest {
            name: "filter".into(),
            value: value.into(),
            fields: Vec::new(),
            call: Vec::new(),
            schema_version: SCHEMA_VERSION,
        };
        JsonFilter.split(&request).unwrap().terms.map(|terms| {
            terms
                .into_iter()
                .map(|term| (term.name, term.value, term.roles))
                .collect()
        })
    }

    #[test]
    fn an_object_filter_is_its_bracket_spelling() {
        assert_eq!(
            split(r#"{"estimate_h": {"_gt": 5}}"#),
            Some(vec![(
                "filter[estimate_h][_gt]".into(),
                "5".into(),
                vec![QueryRole::filter("estimate_h", "gt")]
            )])
        );
        let both = split(
            r#"{"_and": [{"state": {"_neq": "done"}}, {"estimate_h": {"_lte": 6}},
                {"assignee": {"_in": ["ana", "bo"]}}]}"#,
        )
        .expect("an and group");
        let names: Vec<(&str, &str)> = both
            .iter()
            .map(|(name, value, _)| (name.as_str(), value.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("filter[state][_neq]", "done"),
                ("filter[estimate_h][_lte]", "6"),
                ("filter[assignee][_in]", "ana,bo"),
            ]
        );
        assert_eq!(both[0].2, vec![QueryRole::filter("state", "ne")]);
        // A relational path is spelled in full; its role is left to what the list learned.
        assert_eq!(
            split(r#"{"project": {"code": {"$eq": "MOB"}}}"#),
            Some(vec![(
                "filter[project][code][$eq]".into(),
                "MOB".into(),
                vec![]
            )])
        );
    }

    #[test]
    fn a_quantifier_under_a_field_is_a_step_of_the_terms_path() {
        // Directus's `_some` over a project's tasks: the role is the list's grammar's.
        assert_eq!(
            split(r#"{"tasks": {"_some": {"assignee": {"_eq": "chen"}}}}"#),
            Some(vec![(
                "filter[tasks][_some][assignee][_eq]".into(),
                "chen".into(),
                vec![]
            )])
        );
        let [term] = &split_named("filter[_or][0][tasks][_some][a][_eq]", "1").expect("a term")[..]
        else {
            panic!("one term")
        };
        assert_eq!(term.within, vec![TermBranch::new("filter[_or]", 0)]);
        assert!(term.roles.is_empty());
    }

    fn split_named(name: &str, value: &str) -> Option<Vec<QueryTerm>> {
        let request = QueryExpressionRequest {
            name: name.into(),
            value: value.into(),
            fields: Vec::new(),
            call: Vec::new(),
            schema_version: SCHEMA_VERSION,
        };
        JsonFilter.split(&request).unwrap().terms
    }

    #[test]
    fn an_or_group_puts_each_term_in_its_branch() {
        let terms = split_named(
            "filter",
            r#"{"project": {"_eq": 2}, "_or": [{"state": {"_eq": "doing"}},
                {"_and": [{"priority": {"_gte": 4}}, {"_or": [{"assignee": {"_null": true}},
                {"project": {"code": {"_eq": "MOB"}}}]}]}]}"#,
        )
        .expect("an or group");
        let or = |group: &str, branch| TermBranch::new(group, branch);
        let seen: Vec<(&str, &str, &[QueryRole], &[TermBranch])> = terms
            .iter()
            .map(|term| {
                (
                    term.name.as_str(),
                    term.value.as_str(),
                    term.roles.as_slice(),
                    term.within.as_slice(),
                )
            })
            .collect();
        let inner = "filter[_or][1][_and][1][_or]";
        assert_eq!(
            seen,
            vec![
                (
                    "filter[project][_eq]",
                    "2",
                    &[QueryRole::filter("project", "eq")][..],
                    &[][..]
                ),
                (
                    "filter[_or][0][state][_eq]",
                    "doing",
                    &[QueryRole::filter("state", "eq")][..],
                    &[or("filter[_or]", 0)][..]
                ),
                (
                    "filter[_or][1][_and][0][priority][_gte]",
                    "4",
                    &[QueryRole::filter("priority", "gte")][..],
                    &[or("filter[_or]", 1)][..]
                ),
                (
                    "filter[_or][1][_and][1][_or][0][assignee][_null]",
                    "true",
                    &[QueryRole::filter("assignee", "null")][..],
                    &[or("filter[_or]", 1), or(inner, 0)][..]
                ),
                // A relational path's role is left to what the list learned for the name.
                (
                    "filter[_or][1][_and][1][_or][1][project][code][_eq]",
                    "MOB",
                    &[][..],
                    &[or("filter[_or]", 1), or(inner, 1)][..]
                ),
            ]
        );
    }

    #[test]
    fn unsigiled_operators_and_groups_are_their_dollar_spelling() {
        let terms = split_named(
            "where",
            r#"{"priority": {">": 2}, "title": {"startsWith": "Order"},
                "project": {"nin": [1, 2]}, "status": "todo"}"#,
        )
        .expect("operators without a sigil");
        let read = crate::named_values_roles(&terms);
        assert_eq!(
            read,
            vec![
                (
                    "where[priority][$gt]",
                    "2",
                    &[QueryRole::filter("priority", "gt")][..]
                ),
                (
                    "where[title][$startsWith]",
                    "Order",
                    &[QueryRole::filter("title", "starts")][..]
                ),
                (
                    "where[project][$nin]",
                    "1,2",
                    &[QueryRole::filter("project", "nin")][..]
                ),
                (
                    "where[status][$eq]",
                    "todo",
                    &[QueryRole::filter("status", "eq")][..]
                ),
            ]
        );
        let symbols = ["<=", "<", ">=", "!="].map(|symbol| {
            split_named("where", &format!(r#"{{"priority": {{"{symbol}": 3}}}}"#))
                .expect("a comparison symbol")
                .remove(0)
                .roles
        });
        let ops = ["lte", "lt", "gte", "ne"].map(|op| vec![QueryRole::filter("priority", op)]);
        assert_eq!(symbols, ops);
        let any = split_named("where", r#"{"or": [{"status": "doing"}, {"priority": 1}]}"#)
            .expect("an or group without a sigil");
        let names: Vec<&str> = any.iter().map(|term| term.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["where[$or][0][status][$eq]", "where[$or][1][priority][$eq]"]
        );
        assert_eq!(any[1].within, vec![TermBranch::new("where[$or]", 1)]);
        // A word that is no operator under a field is a relational path, as before.
        let path = split_named("where", r#"{"project": {"code": {"in": ["A"]}}}"#).unwrap();
        assert_eq!(path[0].name, "where[project][code][$in]");
        // A field named `or` is a field; the `_` dialect keeps unsigiled words as fields.
        let request = QueryExpressionRequest {
            name: "where".into(),
            value: r#"{"or": "x"}"#.into(),
            fields: vec!["or".into()],
            call: Vec::new(),
            schema_version: SCHEMA_VERSION,
        };
        let field = JsonFilter.split(&request).unwrap().terms.unwrap();
        assert_eq!(field[0].name, "where[or][$eq]");
        assert_eq!(
            split_named("filter", r#"{"state": {"in": ["a"]}, "n": {"_eq": 1}}"#),
            None
        );
    }

    #[test]
    fn a_whole_filter_is_its_clauses_and_the_conditions_of_its_where() {
        let terms = split_named(
            "filter",
            r#"{"where": {"projectId": 2, "status": {"inq": ["todo", "doing"]}},
                "order": "estimate DESC", "limit": 4}"#,
        )
        .expect("a whole filter");
        let read = crate::named_values_roles(&terms);
        assert_eq!(
            read,
            vec![
                (
                    "filter[where][projectId][$eq]",
                    "2",
                    &[QueryRole::filter("projectId", "eq")][..]
                ),
                (
                    "filter[where][status][$inq]",
                    "todo,doing",
                    &[QueryRole::filter("status", "in")][..]
                ),
                ("filter[order]", "estimate DESC", &[][..]),
                ("filter[limit]", "4", &[][..]),
            ]
        );
        // A clause that is no scalar, or a condition in a group, is not split.
        assert_eq!(
            split_named(
                "filter",
                r#"{"where": {"a": 1}, "fields": {"title": true}}"#
            ),
            None
        );
        assert_eq!(
            split_named("filter", r#"{"where": {"or": [{"a": 1}, {"b": 2}]}}"#),
            None
        );
        // A field named `where` makes the object a filter of fields.
        let request = QueryExpressionRequest {
            name: "q".into(),
            value: r#"{"where": "harbour"}"#.into(),
            fields: vec!["where".into()],
            call: Vec::new(),
            schema_version: SCHEMA_VERSION,
        };
        let field = JsonFilter.split(&request).unwrap().terms.unwrap();
        assert_eq!(field[0].name, "q[where][$eq]");
    }

    #[test]
    fn a_bracket_pair_through_groups_is_its_one_term() {
        let [term] =
            &split_named("filter[_or][1][priority][_eq]", "5").expect("a grouped pair")[..]
        else {
            panic!("one term")
        };
        assert_eq!(term.name, "filter[_or][1][priority][_eq]");
        assert_eq!(term.value, "5");
        assert_eq!(term.roles, vec![QueryRole::filter("priority", "eq")]);
        assert_eq!(term.within, vec![TermBranch::new("filter[_or]", 1)]);
        let [and] = &split_named("filter[_and][0][state][_neq]", "done").expect("an and pair")[..]
        else {
            panic!("one term")
        };
        assert_eq!(and.name, "filter[state][_neq]");
        assert!(and.within.is_empty());
        for name in [
            "filter[state][_eq]",
            "filter[_or][x][state][_eq]",
            "filter[_or][state][_eq]",
            "filter[_or][0][tasks][_none][a][_eq]",
            "filter[_not][0][a][_eq]",
            "filter[_or][0][]",
            "filter",
        ] {
            assert!(split_named(name, "1").is_none(), "{name}");
        }
    }

    #[test]
    fn a_list_filtering_in_brackets_accepts_the_names_through_its_groups() {
        use rea_plugin_api::contracts::query::{ListQueries, QueryGrammarRequest};
        let list = |established: &[&str], recorded: &[&str]| ListQueries {
            established: established
                .iter()
                .map(|name| ((*name).to_owned(), QueryRole::filter("f", "eq")))
                .collect(),
            fields: vec!["state".into()],
            recorded_names: recorded.iter().map(|name| (*name).to_owned()).collect(),
            array_fields: Vec::new(),
            joined_fields: Vec::new(),
            many_joined_fields: Vec::new(),
            refused_names: Vec::new(),
        };
        let request = QueryGrammarRequest {
            options: Default::default(),
            lists: vec![
                list(&["filter[state][_eq]"], &["filter[state][_eq]", "sort"]),
                list(&[], &["filters[title][$contains]"]),
                list(&["state"], &["state", "views[gte]"]),
            ],
            schema_version: SCHEMA_VERSION,
        };
        let outcome = JsonFilter.apply(&request).unwrap();
        assert!(outcome.lists.iter().all(BTreeMap::is_empty));
        let patterns: Vec<Vec<&str>> = outcome
            .families
            .iter()
            .map(|families| families.keys().map(String::as_str).collect())
            .collect();
        assert_eq!(
            patterns,
            vec![
                vec![r"^filter(\[_(and|or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$"],
                vec![r"^filters(\[\$(and|or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$"],
                vec![],
            ]
        );
        // A request no list of which filters in brackets names no family at all.
        let plain = QueryGrammarRequest {
            lists: vec![list(&["state"], &["state"])],
            ..request
        };
        assert!(JsonFilter.apply(&plain).unwrap().families.is_empty());
    }

    #[test]
    fn what_it_does_not_model_is_not_split() {
        for value in [
            r#"{"_not": {"a": {"_eq": 1}}}"#,
            r#"{"_or": []}"#,
            r#"{"_or": {"a": {"_eq": 1}}}"#,
            r#"{"_or": [{"a": {"_eq": 1}}, {"tasks": {"_none": {"b": {"_eq": 2}}}}]}"#,
            r#"{"_some": {"b": {"_eq": 2}}}"#,
            r#"{"a": 1, "b": {"_eq": 2}}"#,
            r#"{"a": {"_eq": {"b": 1}}}"#,
            r#"{"a": {"$regex": "x", "$options": "m"}}"#,
            r#"{"a": {"$options": "i"}}"#,
            r#"{"a": {"$exists": 1}}"#,
            r#"{"a": {"$all": []}}"#,
            r#"{"a": {"$eq": {"__type": "GeoPoint", "latitude": 1}}}"#,
            r#"{"a": {"__type": "Pointer", "className": "P"}}"#,
            r#"{"$relatedTo": {"object": {"__type": "Pointer"}, "key": "members"}}"#,
            r#"{"_and": [{"a": {"_eq": 1}}, {"a": {"_eq": 2}}]}"#,
            r#"{"_and": {"a": {"_eq": 1}}}"#,
            "{}",
            "{state:",
            "[1]",
            "done",
        ] {
            assert_eq!(split(value), None, "{value}");
        }
    }
}

#[cfg(test)]
mod top_groups {
    use super::*;

    #[test]
    fn a_group_at_the_top_of_the_query_splits_into_its_terms_own_names() {
        let term = bracket_term("$or[1][estimate][$gte]", "8").expect("a term");
        assert_eq!(term.name, "$or[1][estimate][$gte]");
        assert_eq!(term.roles, vec![QueryRole::filter("estimate", "gte")]);
        assert_eq!(term.within, vec![TermBranch::new("$or", 1)]);
        let plain = bracket_term("$or[0][projectId]", "3").expect("a term");
        assert_eq!(plain.roles, vec![QueryRole::filter("projectId", "eq")]);
        assert_eq!(plain.within, vec![TermBranch::new("$or", 0)]);
        let (pattern, _) = group_family("$or[0][status]").expect("a family");
        assert_eq!(
            pattern,
            r"^\$(and|or)(\[[0-9]+\]\[\$(and|or)\])*\[[0-9]+\](\[[^\[\]]+\])+$"
        );
        assert!(bracket_term("$or[x][status]", "1").is_none());
        assert!(group_family("$sort[title]").is_none());
    }
}

#[cfg(test)]
mod plain_groups {
    use super::*;

    #[test]
    fn a_group_word_with_no_sigil_before_an_entry_index_is_a_group() {
        // LoopBack's `filter[where][or][1][priority][gt]=2`: the branch's term keeps its
        // spelling; its role is left to what the list learned for the name outside the group.
        let term = bracket_term("filter[where][or][1][priority][gt]", "2").expect("a term");
        assert_eq!(term.name, "filter[where][or][1][priority][gt]");
        assert!(term.roles.is_empty());
        assert_eq!(term.within, vec![TermBranch::new("filter[where][or]", 1)]);
        let and = bracket_term("filter[where][and][0][status]", "todo").expect("a term");
        assert_eq!(and.name, "filter[where][status]");
        assert!(and.within.is_empty());
        // The plain word is a group only before an index: otherwise a member like any other.
        for name in [
            "filter[where][or][status]",
            "filter[where][or][x][status]",
            "filter[where][order][0][status]",
            "filter[where][status]",
        ] {
            assert!(bracket_term(name, "1").is_none(), "{name}");
        }
    }

    #[test]
    fn a_recorded_name_through_a_plain_group_implies_the_family_of_them() {
        let (pattern, _) = recorded_group_family("filter[where][or][0][status]").expect("a family");
        assert_eq!(
            pattern,
            r"^filter\[where\](\[(and|or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$"
        );
        // A sigil the recorded group spelled is kept.
        let (sigiled, _) = recorded_group_family("filter[_or][0][state][_eq]").expect("a family");
        assert_eq!(
            sigiled,
            r"^filter(\[_(and|or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$"
        );
        for name in [
            "filter[where][status]",
            "$or[0][status]",
            "filter[order][0]",
        ] {
            assert!(recorded_group_family(name).is_none(), "{name}");
        }
    }
}
