//! The application's list query grammar, learned from the roles its lists' recorded queries
//! established (see [`super::list_query`]) and extended to the parameters no recording named.
//!
//! Evidence first: a form counts only when some list's recorded lines established it, that is
//! when evaluating them over the state reproduced what the application listed.
//! - Equality: a parameter named as a field and filtering it by equality makes every field a
//!   filter by its own name.
//! - Operator forms: a parameter spelled around its field (`views_gte`, `in_status`,
//!   `filter[state][_eq]`) filtering that field with an operator makes that spelling the operator
//!   on every field. Two operator forms established with one spelling but for the operator word
//!   (`_gte` and `_in`, `][_eq]` and `][_lte]`), one of them an order comparison, make the order
//!   comparisons (`gt`, `gte`, `lt`, `lte`) that spelling's too.
//! - Nested fields: a filter on a dotted field (`sla.hours`) extends the forms to the members of
//!   object fields.
//! - Sorts, directions, pages, page sizes, offsets and ends established by name on one list are
//!   offered by that name on the application's other lists.
//!
//! A name that two lists gave different roles, an affix two forms read as different operators,
//! a name some recorded line of the list named (its recording decides it), and a name the query
//! model reserves for another role are never generalized. The grammar is applied to the fields
//! the state holds for each list's entity type; what it adds is kept apart from the recorded roles
//! ([`QueryModel::generalized`]).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::Json;

use crate::model::{Entity, QueryModel, QueryRole, ReadView, ViewDetail};
use crate::query::candidate_roles;

/// The order comparisons a family of operator spellings completes.
const ORDER_COMPARISONS: [&str; 4] = ["gt", "gte", "lt", "lte"];

/// How a parameter name spells a field around it: the text before and the text after.
type Form = (String, String);

/// The grammar learned over an application's lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryGrammar {
    /// A field's own name filters it by equality.
    equality: bool,
    /// Dotted names reach the members of object fields.
    nested: bool,
    /// Operator forms: the spelling around the field → operator.
    forms: BTreeMap<Form, String>,
    /// Roles established by name that are not filters (sort, order, paging).
    named: BTreeMap<String, QueryRole>,
}

impl QueryGrammar {
    /// Learns the grammar from the established roles of every list view's query model.
    pub fn learn<'a>(models: impl IntoIterator<Item = &'a QueryModel>) -> Self {
        let mut grammar = QueryGrammar::default();
        let mut conflicting_forms: BTreeSet<Form> = BTreeSet::new();
        let mut conflicting_names: BTreeSet<String> = BTreeSet::new();
        for model in models {
            for (name, role) in &model.parameters {
                match role {
                    QueryRole::Filter { field, op } => {
                        grammar.nested |= field.contains('.');
                        if name == field && op == "eq" {
                            grammar.equality = true;
                        }
                        if let Some(key) = form_of(name, field) {
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
                    | QueryRole::Page { .. }
                    | QueryRole::PageSize
                    | QueryRole::Offset
                    | QueryRole::End => match grammar.named.get(name) {
                        Some(known) if known != role => {
                            conflicting_names.insert(name.clone());
                        }
                        _ => {
                            grammar.named.insert(name.clone(), role.clone());
                        }
                    },
                    QueryRole::Search | QueryRole::Inert { .. } => {}
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
        !self.equality && self.forms.is_empty() && self.named.is_empty()
    }

    /// Adds the order comparisons to every spelling two established forms share but for the
    /// operator word, one of them an order comparison.
    fn complete_families(&mut self) {
        let mut families: BTreeMap<Form, BTreeSet<&str>> = BTreeMap::new();
        for (form, op) in &self.forms {
            if let Some(template) = template_of(form, op) {
                families.entry(template).or_default().insert(op.as_str());
            }
        }
        let mut added: Vec<(Form, &str)> = Vec::new();
        for (template, ops) in families {
            if ops.len() < 2 || !ops.iter().any(|op| ORDER_COMPARISONS.contains(op)) {
                continue;
            }
            for word in ORDER_COMPARISONS {
                let form = (
                    template.0.replace(PLACEHOLDER, word),
                    template.1.replace(PLACEHOLDER, word),
                );
                added.push((form, word));
            }
        }
        for (form, op) in added {
            self.forms.entry(form).or_insert_with(|| op.to_owned());
        }
    }

    /// The parameters the grammar extends a model to, over the fields its entities hold: every
    /// name the model has no role for, no recorded line named, and no other role reserves.
    pub fn extend(
        &self,
        model: &QueryModel,
        fields: &BTreeSet<String>,
        recorded_names: &BTreeSet<String>,
    ) -> BTreeMap<String, QueryRole> {
        let mut extended: BTreeMap<String, QueryRole> = BTreeMap::new();
        let mut offer = |name: String, role: QueryRole| {
            let reserved = !candidate_roles(&name, &|_| false).is_empty()
                && !matches!(role, QueryRole::Sort | QueryRole::Order)
                && !crate::query::is_paging(&role);
            if model.parameters.contains_key(&name) || recorded_names.contains(&name) || reserved {
                return;
            }
            extended.entry(name).or_insert(role);
        };
        for (name, role) in &self.named {
            offer(name.clone(), role.clone());
        }
        for field in fields {
            if field.contains('.') && !self.nested {
                continue;
            }
            if self.equality {
                offer(field.clone(), filter(field, "eq"));
            }
            for ((before, after), op) in &self.forms {
                offer(format!("{before}{field}{after}"), filter(field, op));
            }
        }
        extended
    }
}

fn filter(field: &str, op: &str) -> QueryRole {
    QueryRole::Filter {
        field: field.to_owned(),
        op: op.to_owned(),
    }
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

/// Stands for the operator word in a form's template.
const PLACEHOLDER: &str = "\u{0}";

/// A form with its operator word (the last run of letters spelling the operator, after the
/// field, else before it) replaced by [`PLACEHOLDER`].
fn template_of(form: &Form, op: &str) -> Option<Form> {
    let replace = |affix: &str| -> Option<String> {
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
            .find(|(begin, end)| crate::query::operator_word(&affix[*begin..*end]) == Some(op))?;
        Some(format!("{}{PLACEHOLDER}{}", &affix[..begin], &affix[end..]))
    };
    match replace(&form.1) {
        Some(after) => Some((form.0.clone(), after)),
        None => replace(&form.0).map(|before| (before, form.1.clone())),
    }
}

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

/// Learns the grammar over the list views' query models and extends each list view by it: a view
/// with a model gets the parameters it extends to, a view without one a model of them alone
/// (answering no recorded line).
pub fn generalize(views: &mut [ReadView], entities: &[Entity]) {
    let grammar = QueryGrammar::learn(views.iter().filter_map(|view| match &view.detail {
        ViewDetail::List(list) => list.query.as_ref(),
        _ => None,
    }));
    if grammar.is_empty() {
        return;
    }
    for view in views.iter_mut() {
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let fields = scalar_fields(
            entities
                .iter()
                .filter(|entity| entity.entity_type == list.entity_type),
        );
        let recorded_names: BTreeSet<String> = list
            .lines
            .iter()
            .flat_map(|line| line.query.iter().flatten())
            .map(|(name, _)| name.clone())
            .collect();
        let model = list.query.get_or_insert_with(|| QueryModel {
            parameters: BTreeMap::new(),
            totals: Vec::new(),
            record_ordinals: Vec::new(),
            generalized: BTreeMap::new(),
        });
        model.generalized = grammar.extend(model, &fields, &recorded_names);
        if model.parameters.is_empty() && model.generalized.is_empty() {
            list.query = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(roles: &[(&str, QueryRole)]) -> QueryModel {
        QueryModel::of_roles(roles)
    }

    fn fields(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn equality_and_suffix_family_extend_to_other_fields() {
        let learned = model(&[
            ("status", filter("status", "eq")),
            ("priority_gte", filter("priority", "gte")),
            ("priority_lt", filter("priority", "lt")),
            ("status_ne", filter("status", "ne")),
            ("sla.hours_lte", filter("sla.hours", "lte")),
            ("_sort", QueryRole::Sort),
        ]);
        let grammar = QueryGrammar::learn([&learned]);
        let extended = grammar.extend(
            &learned,
            &fields(&["status", "agentId", "priority", "sla.hours"]),
            &BTreeSet::new(),
        );
        assert_eq!(extended.get("agentId"), Some(&filter("agentId", "eq")));
        // The family of the `_` spelling: `_gt` was never recorded; `_ne` was, on another field.
        assert_eq!(extended.get("priority_gt"), Some(&filter("priority", "gt")));
        assert_eq!(extended.get("agentId_ne"), Some(&filter("agentId", "ne")));
        assert_eq!(
            extended.get("sla.hours_gt"),
            Some(&filter("sla.hours", "gt"))
        );
        // Recorded roles stay the model's own; nothing else is invented.
        assert!(!extended.contains_key("status"));
        assert!(!extended.contains_key("_sort"));
        assert!(!extended.contains_key("priority_like"));
    }

    #[test]
    fn one_comparison_is_no_family_and_named_roles_reach_sibling_lists() {
        let tickets = model(&[
            ("views__gte", filter("views", "gte")),
            ("ordering", QueryRole::Sort),
            ("limit", QueryRole::PageSize),
        ]);
        let grammar = QueryGrammar::learn([&tickets]);
        let sibling = model(&[]);
        let extended = grammar.extend(&sibling, &fields(&["seats", "name"]), &BTreeSet::new());
        assert_eq!(extended.get("seats__gte"), Some(&filter("seats", "gte")));
        assert!(!extended.contains_key("seats__lt"));
        // No equality was established: a bare field name stays unknown.
        assert!(!extended.contains_key("seats"));
        assert!(!extended.contains_key("name"));
        assert_eq!(extended.get("ordering"), Some(&QueryRole::Sort));
        assert_eq!(extended.get("limit"), Some(&QueryRole::PageSize));
        // A name a recorded line named is left to its recording.
        let recorded = fields(&["seats__gte"]);
        assert!(
            !grammar
                .extend(&sibling, &fields(&["seats"]), &recorded)
                .contains_key("seats__gte")
        );
    }

    #[test]
    fn bracket_forms_extend_with_their_order_comparisons() {
        let tasks = model(&[
            ("filter[state][_eq]", filter("state", "eq")),
            ("filter[priority][_lte]", filter("priority", "lte")),
            ("filter[assignee][_in]", filter("assignee", "in")),
        ]);
        let grammar = QueryGrammar::learn([&tasks]);
        let projects = grammar.extend(
            &model(&[]),
            &fields(&["budget", "status"]),
            &BTreeSet::new(),
        );
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
        // Not an order comparison, never established: not offered.
        assert!(!projects.contains_key("filter[status][_neq]"));
        assert!(!projects.contains_key("budget"));
    }

    #[test]
    fn conflicting_evidence_is_not_generalized() {
        let one = model(&[("x_min", filter("x", "gte")), ("sort", QueryRole::Sort)]);
        let other = model(&[("y_min", filter("y", "gt")), ("sort", QueryRole::Order)]);
        let grammar = QueryGrammar::learn([&one, &other]);
        let extended = grammar.extend(&model(&[]), &fields(&["z"]), &BTreeSet::new());
        assert!(!extended.contains_key("z_min"));
        assert!(!extended.contains_key("sort"));
        // A field named like a paging parameter is never a filter by that name.
        let equal = model(&[("status", filter("status", "eq"))]);
        let grammar = QueryGrammar::learn([&equal]);
        let extended = grammar.extend(&equal, &fields(&["limit", "kind"]), &BTreeSet::new());
        assert!(!extended.contains_key("limit"));
        assert_eq!(extended.get("kind"), Some(&filter("kind", "eq")));
    }
}
