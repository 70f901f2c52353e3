//! `field-affixes`: the application's list query grammar, learned from the roles its lists'
//! recorded queries established and extended to the parameters no recording named.
//!
//! Evidence first: a form counts only when some list's recorded lines established it, that is
//! when evaluating them over the state reproduced what the application listed.
//! - Equality: a parameter named as a field and filtering it by equality makes every field a
//!   filter by its own name.
//! - Operator forms: a parameter spelled around its field (`views_gte`, `in_status`,
//!   `filter[state][_eq]`) filtering that field with an operator makes that spelling the operator
//!   on every field. Two operator forms established with one spelling but for the operator word
//!   (`_gte` and `_lt`, `][_eq]` and `][_lte]`), one of them an order comparison, make the order
//!   comparisons (`gt`, `gte`, `lt`, `lte`) that spelling's too; when the family also holds a
//!   list operator (`in`, `nin`: `__lte` and `__in`, `][_lte]` and `][_in]`; not a `_like` with
//!   `_gte`, a fixed set), the spelling is an operator slot and takes every operator word
//!   of the shared vocabulary (`rea_plugin_api::query_fields::OPERATORS`: `__startswith`,
//!   `][_null]`, `__notin`, the patterns `__like` and `__glob` …), in each spelling the
//!   vocabulary knows for an operator the family did not establish, and only in the established
//!   one for an operator it did, besides that word's case-insensitive `i` spelling where the
//!   vocabulary has one (`][_icontains]` beside an established `][_contains]`). A recorded name
//!   spelled so with another word that established no role (FeathersJS's `title[$regex]`,
//!   refused `400 Invalid query parameter $regex`) shows the slot is not open: the family keeps
//!   the words its lines established and the order comparisons (`title[$like]` is not offered).
//! - Nested fields: a filter on a dotted field (`sla.hours`) extends the forms to the members of
//!   object fields. The fields of the entities a many-to-one member joins (`ListQueries::
//!   joined_fields`) take the forms spelled as a recorded joined field was: dotted inside the
//!   form (`filter[project.name]` beside a recorded `filter[project.code]`), else as a bracket
//!   path (`filter[project][name][_eq]`). Through a member naming many related entities
//!   (`ListQueries::many_joined_fields`) the bracket path carries the quantifier word
//!   (`filter[tasks][_some][assignee][_eq]`), filtering the dotted field: some related entity
//!   holds it.
//! - Sorts, directions, searches, pages, page sizes, offsets and ends established by name on one
//!   list are offered by that name on the application's other lists, and so is a parameter
//!   established as changing nothing a list shows (`inert`, a format flag: `format=json`), with
//!   the values its recorded lines gave it (lists that gave it other values conflict); a sort
//!   name holding its field in brackets (`$sort[title]`, see [`bracket_sort`]) is a spelling instead, offered
//!   around every field of each list's entities (`$sort[email]` on a list that sorted by
//!   `$sort[name]` only).
//! - A field's parameter compared by the operator word a companion parameter holds
//!   (`priority=2&priority__operator=gte`) is split (`split`) into one filter term with that
//!   operator (see [`crate::companion`]).
//! - A sort name with a descending suffix (`_sort_desc=due`, `sortDesc=due`) is split
//!   (`split`) into one sort term descending by each field it names (`-due`), which the recorded
//!   lines then teach like any sort.
//!
//! A name that two lists gave different roles, an affix two forms read as different operators,
//! a name some recorded line of the list named (its recording decides it), and a name the query
//! vocabulary reserves for another role are never generalized. The grammar is applied to the
//! fields the state holds for each list's entity type.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::PluginError;
use rea_plugin_api::QueryGrammar;
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::query::{
    ListQueries, QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome,
    QueryGrammarRequest, QueryRole, QueryTerm,
};
use rea_plugin_api::query_fields::{
    ARRAY_ITEM_OPERATORS, OPERATORS, ORDER_COMPARISONS, QUANTIFIER_WORDS, SET_OPERATORS,
    SORT_NAMES, is_role_name, operator_word, spelled_in,
};

/// The stage's name.
pub const FIELD_AFFIXES: &str = "field-affixes";

/// The `field-affixes` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct FieldAffixes;

impl QueryGrammar for FieldAffixes {
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, PluginError> {
        let grammar = Grammar::learn_lists(&request.lists);
        let companions = crate::companion::established_affixes(request.lists.iter());
        Ok(QueryGrammarOutcome {
            lists: request
                .lists
                .iter()
                .map(|list| {
                    let mut names = if grammar.is_empty() {
                        BTreeMap::new()
                    } else {
                        grammar.extend(list)
                    };
                    crate::companion::propose(&companions, list, &mut names);
                    names
                })
                .collect(),
            families: Vec::new(),
            schema_version: SCHEMA_VERSION,
        })
    }

    fn split(
        &self,
        request: &QueryExpressionRequest,
    ) -> Result<QueryExpressionOutcome, PluginError> {
        Ok(QueryExpressionOutcome::of(
            descending_sort(&request.name, &request.value)
                .or_else(|| bracket_sort(&request.name, &request.value))
                .map(|term| vec![term])
                .or_else(|| crate::companion::terms(request)),
        ))
    }
}

/// The suffixes that make a sort name sort descending (`_sort_desc`, `sortDesc`).
pub const DESCENDING_SUFFIXES: [&str; 4] = ["_desc", "Desc", "_descending", "Descending"];

/// A descending sort parameter (a sort name with a descending suffix) as one sort term: each
/// field it names, comma-separated, prefixed `-`. `None` for another name, an empty value or a
/// field already spelled descending.
pub fn descending_sort(name: &str, value: &str) -> Option<QueryTerm> {
    let base = DESCENDING_SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))?;
    if !SORT_NAMES.contains(&base) {
        return None;
    }
    let fields: Vec<&str> = value.split(',').collect();
    if fields
        .iter()
        .any(|field| field.is_empty() || field.starts_with('-'))
    {
        return None;
    }
    let descending: Vec<String> = fields.iter().map(|field| format!("-{field}")).collect();
    Some(QueryTerm::playing(
        name,
        descending.join(","),
        QueryRole::Sort,
    ))
}

/// A sort by the one field a sort name holds in brackets, the value its direction (`1` or `asc`
/// ascending, `-1` or `desc` descending: Feathers' `$sort[title]=-1`), as one sort term (`-title`
/// descending); several such parameters sort by each in turn. `None` for another name or value.
pub fn bracket_sort(name: &str, value: &str) -> Option<QueryTerm> {
    let (base, rest) = name.split_once('[')?;
    let field = rest.strip_suffix(']')?;
    if field.is_empty() || field.contains(['[', ']']) || !spelled_in(&SORT_NAMES, base) {
        return None;
    }
    let key = match value.to_ascii_lowercase().as_str() {
        "1" | "asc" => field.to_owned(),
        "-1" | "desc" => format!("-{field}"),
        _ => return None,
    };
    Some(QueryTerm::playing(name, key, QueryRole::Sort))
}

/// The spelling around the field of a sort name holding it in brackets (`$sort[` and `]` for
/// `$sort[title]`, see [`bracket_sort`]); `None` for another name.
fn sort_form(name: &str) -> Option<Form> {
    let term = bracket_sort(name, "1")?;
    form_of(name, &term.value)
}

/// How a parameter name spells a field around it: the text before and the text after.
type Form = (String, String);

/// The grammar learned over an application's lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grammar {
    /// A field's own name filters it by equality.
    equality: bool,
    /// Dotted names reach the members of object fields.
    nested: bool,
    /// A dotted field was spelled whole inside a form (`filter[project.code]`): a joined
    /// entity's field is spelled so, not as a bracket path.
    dotted: bool,
    /// Operator forms: the spelling around the field → operator.
    forms: BTreeMap<Form, String>,
    /// Roles established by name that are not filters (sort, order, search, paging, and inert
    /// with the values its recorded lines gave it).
    named: BTreeMap<String, QueryRole>,
    /// Sort names holding their field in brackets (`$sort[title]`, see [`bracket_sort`]): the
    /// spelling around the field, which sorts by any field so spelled.
    sort_forms: BTreeSet<Form>,
    /// The spellings around a field of the names recorded lines named that established no role
    /// (`title[$regex]`, refused): a family whose template such a spelling fits with another
    /// word is no open operator slot.
    unestablished: BTreeSet<Form>,
}

/// A bracket form (`filter[`, `][_eq]`): a field between `[` and `]`.
fn is_bracket_form((before, after): &Form) -> bool {
    before.ends_with('[') && after.starts_with(']')
}

impl Grammar {
    /// Learns the grammar from the established roles of every list.
    pub fn learn<'a>(lists: impl IntoIterator<Item = &'a BTreeMap<String, QueryRole>>) -> Self {
        Self::learn_closing(lists, BTreeSet::new())
    }

    /// Learns the grammar from a request's lists: the roles their recorded lines established,
    /// and the spellings of the names they named that established none (see
    /// [`Grammar::unestablished`]).
    pub fn learn_lists(lists: &[ListQueries]) -> Self {
        let unestablished = lists.iter().flat_map(unestablished_forms).collect();
        let mut grammar =
            Self::learn_closing(lists.iter().map(|list| &list.established), unestablished);
        grammar.dotted |= lists.iter().any(|list| grammar.spells_joined_dotted(list));
        grammar
    }

    /// Whether a recorded name of a list spells one of its joined fields dotted inside a form
    /// (dynamic-rest's `filter{project.code}` beside an established `filter{status}`), though
    /// no line established it (the build's values named no held relation's).
    fn spells_joined_dotted(&self, list: &ListQueries) -> bool {
        list.recorded_names.iter().any(|name| {
            list.joined_fields.iter().any(|field| {
                self.forms
                    .keys()
                    .any(|(before, after)| *name == format!("{before}{field}{after}"))
            })
        })
    }

    fn learn_closing<'a>(
        lists: impl IntoIterator<Item = &'a BTreeMap<String, QueryRole>>,
        unestablished: BTreeSet<Form>,
    ) -> Self {
        let mut grammar = Grammar {
            unestablished,
            ..Grammar::default()
        };
        let mut conflicting_forms: BTreeSet<Form> = BTreeSet::new();
        let mut conflicting_names: BTreeSet<String> = BTreeSet::new();
        for established in lists {
            for (name, role) in established {
                match role {
                    QueryRole::Filter { field, op } => {
                        // A relation's condition (`filter[project][has][status][eq]`) reaches a
                        // related resource, not a nested member.
                        grammar.nested |= field.contains('.')
                            && !crate::filter_list::names_relation_condition(name);
                        if name == field && op == "eq" {
                            grammar.equality = true;
                        }
                        if let Some(key) = form_of(name, field) {
                            grammar.dotted |= field.contains('.');
                            match grammar.forms.get(&key) {
                                Some(known) if known != op => {
                                    conflicting_forms.insert(key);
                                }
                                _ => {
                                    grammar.forms.insert(key, op.clone());
                                }
                            }
                        }
                    }
                    QueryRole::Sort
                    | QueryRole::Order
                    | QueryRole::Search
                    | QueryRole::Page { .. }
                    | QueryRole::PageSize
                    | QueryRole::Offset
                    | QueryRole::End
                    | QueryRole::Inert { .. } => match grammar.named.get(name) {
                        _ if *role == QueryRole::Sort && sort_form(name).is_some() => {
                            grammar.sort_forms.extend(sort_form(name));
                        }
                        Some(known) if known != role => {
                            conflicting_names.insert(name.clone());
                        }
                        _ => {
                            grammar.named.insert(name.clone(), role.clone());
                        }
                    },
                    QueryRole::After { .. } => {}
                }
            }
        }
        grammar
            .forms
            .retain(|key, _| !conflicting_forms.contains(key));
        grammar
            .named
            .retain(|name, _| !conflicting_names.contains(name));
        grammar.complete_families();
        grammar
    }

    /// Whether the grammar extends anything.
    pub fn is_empty(&self) -> bool {
        !self.equality
            && self.forms.is_empty()
            && self.named.is_empty()
            && self.sort_forms.is_empty()
    }

    /// Completes every family of spellings (see the module docs): the order comparisons, or
    /// every operator word when the family also holds a list operator (for an operator the
    /// family established, only the case-insensitive `i` spelling of its established word:
    /// `_icontains` beside `_contains`, which the substring operator reads case-insensitively).
    fn complete_families(&mut self) {
        let mut families: BTreeMap<Form, BTreeMap<&str, BTreeSet<String>>> = BTreeMap::new();
        for (form, op) in &self.forms {
            if let Some((template, word)) = template_of(form, op) {
                families
                    .entry(template)
                    .or_default()
                    .entry(op.as_str())
                    .or_default()
                    .insert(word);
            }
        }
        let mut added: Vec<(Form, &str)> = Vec::new();
        for (template, established) in families {
            let ops: BTreeSet<&str> = established.keys().copied().collect();
            if ops.len() < 2 || !ops.iter().any(|op| ORDER_COMPARISONS.contains(op)) {
                continue;
            }
            let slot = ops.iter().any(|op| SET_OPERATORS.contains(op))
                && !self
                    .unestablished
                    .iter()
                    .any(|form| fits_template(&template, form));
            for (op, words) in OPERATORS {
                for word in words.iter() {
                    let insensitive = || {
                        established.get(op).is_some_and(|spelled| {
                            spelled.iter().any(|known| format!("i{known}") == *word)
                        })
                    };
                    let completes = ORDER_COMPARISONS.contains(&op)
                        || (slot && (!ops.contains(op) || insensitive()));
                    if !completes {
                        continue;
                    }
                    let form = (
                        template.0.replace(PLACEHOLDER, word),
                        template.1.replace(PLACEHOLDER, word),
                    );
                    added.push((form, op));
                }
            }
        }
        for (form, op) in added {
            self.forms.entry(form).or_insert_with(|| op.to_owned());
        }
    }

    /// The parameters the grammar extends a list to, over the fields its entities hold: every
    /// name the list has no role for, no recorded line named, and no other role reserves.
    ///
    /// A recorded name spelling a joined field (`filter{project.code}`) is offered too: the
    /// lines it was recorded on were learned before the joins, over entities holding the
    /// member's bare id, so no role could reach the joined field.
    pub fn extend(&self, list: &ListQueries) -> BTreeMap<String, QueryRole> {
        let mut extended: BTreeMap<String, QueryRole> = BTreeMap::new();
        let mut offer = |name: String, role: QueryRole| {
            let reserved = is_role_name(&name)
                && !matches!(role, QueryRole::Sort | QueryRole::Order | QueryRole::Search)
                && !role.is_paging();
            let joined = matches!(&role, QueryRole::Filter { field, .. }
                if list.joined_fields.contains(field));
            if list.established.contains_key(&name)
                || (list.recorded_names.contains(&name) && !joined)
                || reserved
            {
                return;
            }
            extended.entry(name).or_insert(role);
        };
        for (name, role) in &self.named {
            offer(name.clone(), role.clone());
        }
        for field in &list.fields {
            if field.contains('.') && !self.nested {
                continue;
            }
            if self.equality {
                offer(field.clone(), filter(field, "eq"));
            }
            for ((before, after), op) in &self.forms {
                offer(format!("{before}{field}{after}"), filter(field, op));
            }
            for (before, after) in &self.sort_forms {
                offer(format!("{before}{field}{after}"), QueryRole::Sort);
            }
        }
        // A joined entity's field, spelled dotted inside the forms where a recorded dotted field
        // was (`filter[project.name]`), else through the bracket forms as a path of names.
        for field in &list.joined_fields {
            for (form, op) in self.forms.iter() {
                if self.dotted {
                    offer(format!("{}{field}{}", form.0, form.1), filter(field, op));
                } else if is_bracket_form(form) {
                    let path = field.replace('.', "][");
                    offer(format!("{}{path}{}", form.0, form.1), filter(field, op));
                }
            }
        }
        for (name, role) in self.quantified(list) {
            offer(name, role);
        }
        // A field holding an array of scalars takes the forms of the operators that read it
        // item by item.
        for field in &list.array_fields {
            for ((before, after), op) in &self.forms {
                if ARRAY_ITEM_OPERATORS.contains(&op.as_str()) {
                    offer(format!("{before}{field}{after}"), filter(field, op));
                }
            }
        }
        extended
    }
}

impl Grammar {
    /// The bracket paths quantified over a member naming many related entities (`ListQueries::
    /// many_joined_fields`): each bracket form spelled through the member, the quantifier word
    /// with the operator word's sigil, then the related entity's field
    /// (`filter[tasks][_some][assignee][_eq]` beside a recorded `filter[state][_eq]`), filtering
    /// the dotted field (`tasks.assignee`), which holds when some related entity holds it.
    fn quantified(&self, list: &ListQueries) -> Vec<(String, QueryRole)> {
        let mut offered = Vec::new();
        if self.dotted {
            return offered;
        }
        for field in &list.many_joined_fields {
            let Some((member, rest)) = field.split_once('.') else {
                continue;
            };
            let path = rest.replace('.', "][");
            // A form with its operator word after the field (`][_eq]`, not `]` alone).
            let operator_forms = self
                .forms
                .iter()
                .filter(|(form, _)| is_bracket_form(form) && form.1.len() > 1);
            for (form, op) in operator_forms {
                let sigil: String = form.1[1..]
                    .trim_start_matches('[')
                    .chars()
                    .take_while(|character| matches!(character, '_' | '$'))
                    .collect();
                for word in QUANTIFIER_WORDS {
                    let name = format!("{}{member}][{sigil}{word}][{path}{}", form.0, form.1);
                    offered.push((name, filter(field, op)));
                }
            }
        }
        offered
    }
}

fn filter(field: &str, op: &str) -> QueryRole {
    QueryRole::filter(field, op)
}

/// The spelling a parameter name puts around its field (text before, text after); `None` when
/// the name is the field or does not hold it.
fn form_of(name: &str, field: &str) -> Option<Form> {
    if name == field {
        return None;
    }
    let at = name.find(field)?;
    Some((name[..at].to_owned(), name[at + field.len()..].to_owned()))
}

/// The spellings around each of the list's fields of the names its recorded lines named that
/// established no role, or only its tool's refused calls named.
fn unestablished_forms(list: &ListQueries) -> impl Iterator<Item = Form> + '_ {
    list.recorded_names
        .iter()
        .chain(&list.refused_names)
        .filter(|name| !list.established.contains_key(*name))
        .flat_map(|name| list.fields.iter().filter_map(|field| form_of(name, field)))
}

/// Whether the form is the template spelled with some word (a run of ASCII letters) for its
/// operator word.
fn fits_template(template: &Form, form: &Form) -> bool {
    let fits = |pattern: &str, text: &str| {
        let Some((before, after)) = pattern.split_once(PLACEHOLDER) else {
            return pattern == text;
        };
        text.len() > before.len() + after.len()
            && text.starts_with(before)
            && text.ends_with(after)
            && text[before.len()..text.len() - after.len()]
                .chars()
                .all(|character| character.is_ascii_alphabetic())
    };
    fits(&template.0, &form.0) && fits(&template.1, &form.1)
}

/// Stands for the operator word in a form's template.
const PLACEHOLDER: &str = "\u{0}";

/// A form with its operator word (the last run of letters spelling the operator, after the
/// field, else before it) replaced by [`PLACEHOLDER`], and that word (lower case).
fn template_of(form: &Form, op: &str) -> Option<(Form, String)> {
    let replace = |affix: &str| -> Option<(String, String)> {
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut start: Option<usize> = None;
        for (index, character) in affix.char_indices().chain([(affix.len(), ' ')]) {
            match (character.is_ascii_alphabetic(), start) {
                (true, None) => start = Some(index),
                (false, Some(begin)) => {
                    runs.push((begin, index));
                    start = None;
                }
                _ => {}
            }
        }
        let (begin, end) = runs
            .into_iter()
            .rev()
            .find(|(begin, end)| operator_word(&affix[*begin..*end]) == Some(op))?;
        Some((
            format!("{}{PLACEHOLDER}{}", &affix[..begin], &affix[end..]),
            affix[begin..end].to_ascii_lowercase(),
        ))
    };
    match replace(&form.1) {
        Some((after, word)) => Some(((form.0.clone(), after), word)),
        None => replace(&form.0).map(|(before, word)| ((before, form.1.clone()), word)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(pairs: &[(&str, QueryRole)]) -> BTreeMap<String, QueryRole> {
        pairs
            .iter()
            .map(|(name, role)| ((*name).to_owned(), role.clone()))
            .collect()
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    fn list(
        established: &BTreeMap<String, QueryRole>,
        fields: &[&str],
        recorded: &[&str],
    ) -> ListQueries {
        ListQueries {
            established: established.clone(),
            fields: names(fields),
            recorded_names: names(recorded),
            array_fields: Vec::new(),
            joined_fields: Vec::new(),
            many_joined_fields: Vec::new(),
            refused_names: Vec::new(),
        }
    }

    #[test]
    fn an_inert_name_is_offered_on_the_other_lists_with_its_recorded_values() {
        let json = QueryRole::Inert {
            values: names(&["json"]),
        };
        let books = roles(&[("format", json.clone()), ("genre", filter("genre", "eq"))]);
        let none = BTreeMap::new();
        let request = |lists| QueryGrammarRequest {
            options: Default::default(),
            lists,
            schema_version: SCHEMA_VERSION,
        };
        let outcome = FieldAffixes
            .apply(&request(vec![
                list(&books, &["genre"], &["format", "genre"]),
                list(&none, &["name"], &[]),
            ]))
            .unwrap();
        assert_eq!(outcome.lists[1].get("format"), Some(&json));
        assert!(!outcome.lists[0].contains_key("format"));
        // Two lists giving it different values: offered on neither third list.
        let xml = roles(&[(
            "format",
            QueryRole::Inert {
                values: names(&["xml"]),
            },
        )]);
        let outcome = FieldAffixes
            .apply(&request(vec![
                list(&books, &["genre"], &["format"]),
                list(&xml, &["name"], &["format"]),
                list(&none, &["name"], &[]),
            ]))
            .unwrap();
        assert!(!outcome.lists[2].contains_key("format"));
    }

    #[test]
    fn the_bracket_forms_reach_the_joined_fields_as_paths() {
        let learned = roles(&[
            ("filter[state][_eq]", filter("state", "eq")),
            ("filter[priority][_lte]", filter("priority", "lte")),
            ("title_like", filter("title", "like")),
        ]);
        let mut tasks = list(
            &learned,
            &["state", "priority", "title"],
            &["filter[project][code][_eq]"],
        );
        tasks.joined_fields = names(&["project.status"]);
        let outcome = FieldAffixes
            .apply(&QueryGrammarRequest {
                options: Default::default(),
                lists: vec![tasks],
                schema_version: SCHEMA_VERSION,
            })
            .unwrap();
        let extended = &outcome.lists[0];
        assert_eq!(
            extended.get("filter[project][status][_eq]"),
            Some(&filter("project.status", "eq"))
        );
        assert_eq!(
            extended.get("filter[project][status][_gt]"),
            Some(&filter("project.status", "gt"))
        );
        // Not through a form that is no bracket form.
        assert!(!extended.keys().any(|name| name.starts_with("project")));
    }

    #[test]
    fn a_field_joined_through_a_member_naming_many_is_quantified_in_the_bracket_path() {
        // directus: `filter[state][_eq]` and `filter[priority][_lte]` recorded on the tasks; the
        // projects join their tasks (`tasks.assignee`).
        let learned = roles(&[
            ("filter[state][_eq]", filter("state", "eq")),
            ("filter[priority][_lte]", filter("priority", "lte")),
            ("filter[assignee][_in]", filter("assignee", "in")),
        ]);
        let grammar = Grammar::learn([&learned]);
        let mut projects = list(&BTreeMap::new(), &["code", "status"], &[]);
        projects.many_joined_fields = names(&["tasks.assignee"]);
        let extended = grammar.extend(&projects);
        assert_eq!(
            extended.get("filter[tasks][_some][assignee][_eq]"),
            Some(&filter("tasks.assignee", "eq"))
        );
        assert_eq!(
            extended.get("filter[tasks][_some][assignee][_in]"),
            Some(&filter("tasks.assignee", "in"))
        );
        // Never unquantified, nor through the complement the host does not model.
        assert!(!extended.contains_key("filter[tasks][assignee][_eq]"));
        assert!(!extended.keys().any(|name| name.contains("_none")));
        // A grammar spelling joined fields dotted inside its forms quantifies none.
        let dotted = Grammar::learn([&roles(&[(
            "filter[project.code]",
            filter("project.code", "in"),
        )])]);
        assert!(
            !dotted
                .extend(&projects)
                .keys()
                .any(|name| name.contains("some"))
        );
    }

    #[test]
    fn a_dotted_joined_field_is_spelled_as_the_recorded_dotted_fields_were() {
        // flask-rest-jsonapi-next: `filter[project.code]` recorded, the project's `name` joined.
        let learned = roles(&[
            ("filter[status]", filter("status", "in")),
            ("filter[project.code]", filter("project.code", "in")),
        ]);
        let grammar = Grammar::learn([&learned]);
        let mut tasks = list(&learned, &["status", "title"], &[]);
        tasks.joined_fields = names(&["project.code", "project.name"]);
        let extended = grammar.extend(&tasks);
        assert_eq!(
            extended.get("filter[project.name]"),
            Some(&filter("project.name", "in"))
        );
        assert!(!extended.contains_key("filter[project][name]"));
        assert!(
            !extended.contains_key("filter[project.code]"),
            "established"
        );
    }

    #[test]
    fn a_recorded_name_spelling_a_joined_field_dotted_is_offered_with_its_siblings() {
        // dynamic-rest: `filter{status}` established, `filter{project.code}` recorded but
        // established by no line (learned before the join), the project's fields joined.
        let learned = roles(&[
            ("filter{status}", filter("status", "in")),
            ("filter{priority.gte}", filter("priority", "gte")),
        ]);
        let mut tasks = list(&learned, &["status", "priority"], &["filter{project.code}"]);
        tasks.joined_fields = names(&["project.active", "project.code"]);
        let grammar = Grammar::learn_lists(std::slice::from_ref(&tasks));
        let extended = grammar.extend(&tasks);
        for (name, field, op) in [
            ("filter{project.code}", "project.code", "in"),
            ("filter{project.active}", "project.active", "in"),
            ("filter{project.code.gte}", "project.code", "gte"),
        ] {
            assert_eq!(extended.get(name), Some(&filter(field, op)), "{name}");
        }
        // Without a recorded dotted spelling the joined fields take no form: braces are no
        // bracket path.
        let plain = list(&learned, &["status", "priority"], &[]);
        let mut unrecorded = plain.clone();
        unrecorded.joined_fields = names(&["project.code"]);
        let grammar = Grammar::learn_lists(std::slice::from_ref(&unrecorded));
        assert!(
            !grammar
                .extend(&unrecorded)
                .keys()
                .any(|name| name.contains("project.code")),
        );
    }

    #[test]
    fn an_array_field_takes_only_the_forms_reading_items() {
        // `title_like` and `views_gte` recorded; `tags` holds arrays of words.
        let learned = roles(&[
            ("title_like", filter("title", "like")),
            ("views_gte", filter("views", "gte")),
            ("author", filter("author", "eq")),
        ]);
        let grammar = Grammar::learn([&learned]);
        let mut posts = list(&learned, &["author", "title", "views"], &["title_like"]);
        posts.array_fields = names(&["tags"]);
        let extended = grammar.extend(&posts);
        assert_eq!(extended.get("tags_like"), Some(&filter("tags", "like")));
        for name in ["tags", "tags_gte"] {
            assert!(!extended.contains_key(name), "{name}");
        }
    }

    #[test]
    fn equality_and_suffix_family_extend_to_other_fields() {
        let learned = roles(&[
            ("status", filter("status", "eq")),
            ("priority_gte", filter("priority", "gte")),
            ("priority_lt", filter("priority", "lt")),
            ("status_ne", filter("status", "ne")),
            ("sla.hours_lte", filter("sla.hours", "lte")),
            ("_sort", QueryRole::Sort),
        ]);
        let grammar = Grammar::learn([&learned]);
        let extended = grammar.extend(&list(
            &learned,
            &["status", "agentId", "priority", "sla.hours"],
            &[],
        ));
        assert_eq!(extended.get("agentId"), Some(&filter("agentId", "eq")));
        // The family of the `_` spelling: `_gt` was never recorded; `_ne` was, on another field.
        assert_eq!(extended.get("priority_gt"), Some(&filter("priority", "gt")));
        assert_eq!(extended.get("agentId_ne"), Some(&filter("agentId", "ne")));
        assert_eq!(
            extended.get("sla.hours_gt"),
            Some(&filter("sla.hours", "gt"))
        );
        // Recorded roles stay the list's own; nothing else is invented.
        assert!(!extended.contains_key("status"));
        assert!(!extended.contains_key("_sort"));
        assert!(!extended.contains_key("priority_like"));
    }

    #[test]
    fn one_comparison_is_no_family_and_named_roles_reach_sibling_lists() {
        let tickets = roles(&[
            ("views__gte", filter("views", "gte")),
            ("ordering", QueryRole::Sort),
            ("limit", QueryRole::PageSize),
            ("q", QueryRole::Search),
        ]);
        let grammar = Grammar::learn([&tickets]);
        let sibling = BTreeMap::new();
        let extended = grammar.extend(&list(&sibling, &["seats", "name"], &[]));
        assert_eq!(extended.get("seats__gte"), Some(&filter("seats", "gte")));
        assert!(!extended.contains_key("seats__lt"));
        // No equality was established: a bare field name stays unknown.
        assert!(!extended.contains_key("seats"));
        assert!(!extended.contains_key("name"));
        assert_eq!(extended.get("ordering"), Some(&QueryRole::Sort));
        assert_eq!(extended.get("limit"), Some(&QueryRole::PageSize));
        assert_eq!(extended.get("q"), Some(&QueryRole::Search));
        // A name a recorded line named is left to its recording.
        assert!(
            !grammar
                .extend(&list(&sibling, &["seats"], &["seats__gte"]))
                .contains_key("seats__gte")
        );
    }

    #[test]
    fn a_sort_name_holding_a_field_in_brackets_splits_into_a_sort_term_by_its_direction() {
        let term = bracket_sort("$sort[title]", "-1").expect("a sort term");
        assert_eq!(term.name, "$sort[title]");
        assert_eq!(term.value, "-title");
        assert_eq!(term.roles, vec![QueryRole::Sort]);
        assert_eq!(
            bracket_sort("sort[due]", "asc").map(|term| term.value),
            Some("due".to_owned())
        );
        assert_eq!(
            bracket_sort("$sort[priority]", "1").map(|term| term.value),
            Some("priority".to_owned())
        );
        // Not a sort name, another direction, no field, or a deeper path.
        assert!(bracket_sort("filter[title]", "1").is_none());
        assert!(bracket_sort("$sort[title]", "2").is_none());
        assert!(bracket_sort("$sort[]", "1").is_none());
        assert!(bracket_sort("$sort[a][b]", "1").is_none());
    }

    #[test]
    fn a_bracketed_sort_name_sorts_by_any_field_of_each_list() {
        // Learned on tasks (`$sort[title]`, `$sort[priority]`) and on people (`$sort[name]`);
        // `sort` is a plain sort name, lent by name.
        let tasks = roles(&[
            ("$sort[title]", QueryRole::Sort),
            ("$sort[priority]", QueryRole::Sort),
            ("sort", QueryRole::Sort),
        ]);
        let people = roles(&[("$sort[name]", QueryRole::Sort)]);
        let grammar = Grammar::learn([&tasks, &people]);
        let extended = grammar.extend(&list(&people, &["name", "email"], &["$sort[name]"]));
        assert_eq!(extended.get("$sort[email]"), Some(&QueryRole::Sort));
        assert_eq!(extended.get("sort"), Some(&QueryRole::Sort));
        // Only the list's own fields: no sort by a task's field on people.
        assert!(!extended.contains_key("$sort[title]"));
        assert!(!extended.contains_key("$sort[name]"));
    }

    #[test]
    fn a_descending_sort_name_splits_into_a_descending_sort_term() {
        let term = descending_sort("_sort_desc", "due").expect("a sort term");
        assert_eq!(term.name, "_sort_desc");
        assert_eq!(term.value, "-due");
        assert_eq!(term.roles, vec![QueryRole::Sort]);
        assert_eq!(
            descending_sort("sortDesc", "priority,id").map(|term| term.value),
            Some("-priority,-id".to_owned())
        );
        // Not a sort name, no suffix, nothing named, or a field already descending.
        assert!(descending_sort("title_desc", "due").is_none());
        assert!(descending_sort("_sort", "due").is_none());
        assert!(descending_sort("_sort_desc", "").is_none());
        assert!(descending_sort("_sort_desc", "-due").is_none());
        let outcome = FieldAffixes
            .split(&QueryExpressionRequest {
                name: "_sort".into(),
                value: "due".into(),
                fields: Vec::new(),
                call: Vec::new(),
                schema_version: SCHEMA_VERSION,
            })
            .expect("an answer");
        assert!(outcome.terms.is_none());
    }

    #[test]
    fn bracket_forms_extend_with_their_operator_slot() {
        let tasks = roles(&[
            ("filter[state][_eq]", filter("state", "eq")),
            ("filter[priority][_lte]", filter("priority", "lte")),
            ("filter[assignee][_in]", filter("assignee", "in")),
        ]);
        let grammar = Grammar::learn([&tasks]);
        let projects = grammar.extend(&list(&BTreeMap::new(), &["budget", "status"], &[]));
        assert_eq!(
            projects.get("filter[budget][_gt]"),
            Some(&filter("budget", "gt"))
        );
        assert_eq!(
            projects.get("filter[status][_eq]"),
            Some(&filter("status", "eq"))
        );
        assert_eq!(
            projects.get("filter[status][_in]"),
            Some(&filter("status", "in"))
        );
        // `_in` makes the spelling an operator slot: the vocabulary's other words complete it.
        assert_eq!(
            projects.get("filter[status][_neq]"),
            Some(&filter("status", "ne"))
        );
        assert_eq!(
            projects.get("filter[status][_starts_with]"),
            Some(&filter("status", "starts"))
        );
        assert_eq!(
            projects.get("filter[budget][_null]"),
            Some(&filter("budget", "null"))
        );
        // No word the vocabulary lacks, and no bare field without established equality.
        assert!(!projects.contains_key("filter[status][_regex]"));
        assert!(!projects.contains_key("budget"));
    }

    #[test]
    fn a_family_with_a_list_operator_takes_every_operator_word() {
        let tasks = roles(&[
            ("priority__lte", filter("priority", "lte")),
            ("assignee__in", filter("assignee", "in")),
            ("due__notnull", filter("due", "nnull")),
        ]);
        let grammar = Grammar::learn([&tasks]);
        let extended = grammar.extend(&list(&tasks, &["title", "due"], &[]));
        for (name, op) in [
            ("title__startswith", "starts"),
            ("title__starts_with", "starts"),
            ("title__endswith", "ends"),
            ("title__not", "ne"),
            ("title__notin", "nin"),
            ("due__isnull", "null"),
            ("title__contains", "like"),
            ("due__gt", "gt"),
        ] {
            let field = name.split("__").next().unwrap_or_default();
            assert_eq!(extended.get(name), Some(&filter(field, op)), "{name}");
        }
        // The family established `notnull`: no other spelling of it is offered.
        assert!(!extended.contains_key("title__nnull"));
        assert_eq!(
            extended.get("title__notnull"),
            Some(&filter("title", "nnull"))
        );
        // The patterns complete the slot; the established word's `i` spelling does too.
        assert_eq!(
            extended.get("title__like"),
            Some(&filter("title", "pattern"))
        );
        assert_eq!(extended.get("title__glob"), Some(&filter("title", "glob")));
        let tasks = roles(&[
            ("filter[priority][_lte]", filter("priority", "lte")),
            ("filter[assignee][_in]", filter("assignee", "in")),
            ("filter[title][_contains]", filter("title", "like")),
        ]);
        let grammar = Grammar::learn([&tasks]);
        let extended = grammar.extend(&list(&tasks, &["title", "state"], &[]));
        assert_eq!(
            extended.get("filter[state][_icontains]"),
            Some(&filter("state", "like"))
        );
        assert_eq!(
            extended.get("filter[title][_icontains]"),
            Some(&filter("title", "like"))
        );
        // Order comparisons with a `like` are no operator slot.
        let tickets = roles(&[
            ("priority_gte", filter("priority", "gte")),
            ("priority_lt", filter("priority", "lt")),
            ("title_like", filter("title", "like")),
        ]);
        let grammar = Grammar::learn([&tickets]);
        let extended = grammar.extend(&list(&tickets, &["title"], &[]));
        assert_eq!(extended.get("title_gt"), Some(&filter("title", "gt")));
        assert!(!extended.contains_key("title_startswith"));
        assert!(!extended.contains_key("title_in"));
    }

    #[test]
    fn a_recorded_word_that_established_nothing_closes_the_operator_slot() {
        let tasks = roles(&[
            ("priority[$lte]", filter("priority", "lte")),
            ("status[$in]", filter("status", "in")),
            ("status[$ne]", filter("status", "ne")),
        ]);
        let open = Grammar::learn_lists(&[list(&tasks, &["title", "status"], &[])]);
        let opened = open.extend(&list(&tasks, &["title", "status"], &[]));
        assert_eq!(
            opened.get("title[$like]"),
            Some(&filter("title", "pattern"))
        );
        // `title[$regex]` was named by a refused call: the slot takes only the established words
        // and the order comparisons.
        let refused = ListQueries {
            refused_names: names(&["title[$regex]"]),
            ..list(&tasks, &["title", "status"], &[])
        };
        let closed = Grammar::learn_lists(std::slice::from_ref(&refused)).extend(&refused);
        assert!(!closed.contains_key("title[$like]"), "{closed:?}");
        assert!(!closed.contains_key("title[$nin]"), "{closed:?}");
        assert_eq!(closed.get("title[$ne]"), Some(&filter("title", "ne")));
        assert_eq!(closed.get("title[$gt]"), Some(&filter("title", "gt")));
        // A recorded name another spelling holds says nothing of the slot.
        let other = list(&tasks, &["title", "status"], &["$search"]);
        let still_open = Grammar::learn_lists(std::slice::from_ref(&other)).extend(&other);
        assert!(still_open.contains_key("title[$like]"));
    }

    #[test]
    fn conflicting_evidence_is_not_generalized() {
        let one = roles(&[("x_min", filter("x", "gte")), ("sort", QueryRole::Sort)]);
        let other = roles(&[("y_min", filter("y", "gt")), ("sort", QueryRole::Order)]);
        let grammar = Grammar::learn([&one, &other]);
        let extended = grammar.extend(&list(&BTreeMap::new(), &["z"], &[]));
        assert!(!extended.contains_key("z_min"));
        assert!(!extended.contains_key("sort"));
        // A field named like a paging parameter is never a filter by that name.
        let equal = roles(&[("status", filter("status", "eq"))]);
        let grammar = Grammar::learn([&equal]);
        let extended = grammar.extend(&list(&equal, &["limit", "kind"], &[]));
        assert!(!extended.contains_key("limit"));
        assert_eq!(extended.get("kind"), Some(&filter("kind", "eq")));
    }

    #[test]
    fn the_stage_answers_one_map_per_list_through_the_abi() {
        use rea_plugin_api::abi_stable::std_types::RStr;
        let plugin = crate::root_module();
        let construct = plugin
            .query_grammar_stage()
            .expect("a query grammar module");
        let stage = construct(RStr::from_str(FIELD_AFFIXES))
            .into_result()
            .expect("constructed");
        let request = serde_json::json!({"schema_version": 1, "lists": [
            {"established": {"status": {"role": "filter", "field": "status", "op": "eq"},
                             "_page": {"role": "page", "base": 1}},
             "fields": ["status", "title"], "recorded_names": ["status", "_page"]},
            {"established": {}, "fields": ["name"], "recorded_names": []},
            {"established": {}, "fields": [], "recorded_names": ["_page"]}]})
        .to_string();
        let answer = stage.apply(RStr::from_str(&request)).into_result();
        let outcome: QueryGrammarOutcome =
            serde_json::from_str(answer.expect("answered").as_str()).expect("an outcome");
        assert_eq!(outcome.lists.len(), 3);
        assert_eq!(
            outcome.lists[0].keys().collect::<Vec<_>>(),
            vec!["title"],
            "the first list's own names stay its recording's"
        );
        assert_eq!(outcome.lists[1].get("name"), Some(&filter("name", "eq")));
        assert_eq!(
            outcome.lists[1].get("_page"),
            Some(&QueryRole::Page { base: 1 })
        );
        assert!(outcome.lists[2].is_empty());
    }
}
