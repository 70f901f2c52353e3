//! A filter spelled as a JSON list of conditions, each an object naming a field, an operator word
//! and a value (`filter=[{"name": "estimate", "op": "ge", "val": 5}]`, as Flask-REST-JSONAPI,
//! Flask-Restless-NG and other SQLAlchemy front ends spell it): every condition holds (a
//! conjunction), and each is the filter its bracket spelling names, `filter[estimate][ge]=5`,
//! whose role the list learned for that name or, for a known operator word
//! (`rea_plugin_api::query_fields::operator_word`: SQLAlchemy's `not_in` among them), plays that
//! filter wherever no recording named it; `like` is SQL's pattern (`%page%`), as the SQLAlchemy
//! front ends spelling such lists pass it on.
//!
//! The same language also spells (one app so far: Flask-Restless-NG, whose recording shows each):
//! - a presence test, a condition of two members naming no value (`{"name": "estimate", "op":
//!   "is_null"}`), read only for an operator word spelling a presence test (`is_null`), as the
//!   term `filter[estimate][is_null]=true`;
//! - a disjunction `{"or": [condition, …]}`: each condition a branch of the group
//!   (`QueryTerm::within`), named through it (`filter[or][1][estimate][gt]`), at most one group
//!   at each level;
//! - a condition on a relation's resources, `has` (to-one) or `any` (to-many), whose value is the
//!   condition the related resource meets (`{"name": "project", "op": "has", "val": {"name":
//!   "status", "op": "eq", "val": "archived"}}`): the inner condition's filter on the field
//!   dotted through the relation (`project.status`), named `filter[project][has][status][eq]`;
//!   the state evaluates it over the entity the relation links, and refuses the call where the
//!   list joins no such relation (`any` over a to-many linkage no join holds);
//!
//! The members of a condition are told apart by their names, the words such lists use
//! ([`FIELD_KEYS`], [`OPERATOR_KEYS`], [`VALUE_KEYS`]); a condition with another member, a
//! missing one, a field that is not a plain name, an operator that is no word, a value that is an
//! object (but a relation's condition), another logical group (`and`, `not`), a relation's
//! condition inside another, an empty list or group, or the same field and operator twice is not
//! read, and the call is not evaluated through this language.

use rea_plugin_api::contracts::query::{QueryRole, QueryTerm, TermBranch};
use rea_plugin_api::json::{Json, Object, parse};
use rea_plugin_api::query_fields::{bracket_filter, operator_word};

use crate::json_filter::operand;

/// The member names a condition spells its field with.
pub const FIELD_KEYS: [&str; 4] = ["name", "field", "col", "column"];

/// The member names a condition spells its operator word with.
pub const OPERATOR_KEYS: [&str; 3] = ["op", "operator", "opr"];

/// The member names a condition spells its value with.
pub const VALUE_KEYS: [&str; 2] = ["val", "value"];

/// The operator words of a condition on a relation's resources: `has` (a to-one relation's
/// resource meets the inner condition) and `any` (some resource of a to-many relation does).
pub const RELATION_WORDS: [&str; 2] = ["has", "any"];

/// The member naming a disjunction of conditions (`{"or": [...]}`).
pub const DISJUNCTION_KEY: &str = "or";

/// The terms of the parameter `name` whose value is a list of conditions (see the module docs);
/// `None` when the value is not such a list.
pub fn terms(name: &str, value: &str) -> Option<Vec<QueryTerm>> {
    if !value.trim_start().starts_with('[') {
        return None;
    }
    let Json::Array(conditions) = parse(value.as_bytes()).ok()? else {
        return None;
    };
    condition_terms(name, &conditions)
}

/// The terms of a list of conditions, each named in the bracket spelling under `base`
/// (`base[field][op]`); `None` when an item is no condition, the list is empty or names one
/// field and operator twice.
pub fn condition_terms(base: &str, conditions: &[Json]) -> Option<Vec<QueryTerm>> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    read_conditions(base, conditions, &[], &mut terms)?;
    (!terms.is_empty()).then_some(terms)
}

/// Reads a conjunction of conditions under `base`, lying in the disjunction branches `within`,
/// into `terms`; `None` when one is not read, two name one term, or two groups share a level.
fn read_conditions(
    base: &str,
    conditions: &[Json],
    within: &[TermBranch],
    terms: &mut Vec<QueryTerm>,
) -> Option<()> {
    let mut grouped = false;
    for condition in conditions {
        let Json::Object(members) = condition else {
            return None;
        };
        if let Some(branches) = disjunction(members)? {
            if std::mem::replace(&mut grouped, true) {
                return None;
            }
            read_group(base, branches, within, terms)?;
            continue;
        }
        let term = condition_term(base, members)?.within(within.to_vec());
        if terms.iter().any(|known| known.name == term.name) {
            return None;
        }
        terms.push(term);
    }
    Some(())
}

/// The branches of a disjunction (`{"or": [...]}`): `Some(None)` for an object that is no
/// logical group, `None` for another group word (`and`, `not`) or a group that is no list of
/// conditions.
fn disjunction(members: &Object) -> Option<Option<&[Json]>> {
    let mut keys = members.iter();
    let (Some((key, value)), None) = (keys.next(), keys.next()) else {
        return Some(None);
    };
    if !is_group_word(key) {
        return Some(None);
    }
    match value {
        Json::Array(branches) if key == DISJUNCTION_KEY && !branches.is_empty() => {
            Some(Some(branches.as_slice()))
        }
        _ => None,
    }
}

/// Reads each condition of a disjunction as a branch of the group `base[or]`, its terms named
/// through the branch (`base[or][1][field][op]`).
fn read_group(
    base: &str,
    branches: &[Json],
    within: &[TermBranch],
    terms: &mut Vec<QueryTerm>,
) -> Option<()> {
    let group = format!("{base}[{DISJUNCTION_KEY}]");
    for (index, branch) in branches.iter().enumerate() {
        let mut inner = within.to_vec();
        inner.push(TermBranch::new(group.clone(), u32::try_from(index).ok()?));
        read_conditions(
            &format!("{group}[{index}]"),
            std::slice::from_ref(branch),
            &inner,
            terms,
        )?;
    }
    Some(())
}

/// One condition read: its field, operator word, value's text and the roles it plays.
struct Condition<'a> {
    field: &'a str,
    operator: &'a str,
    value: String,
    roles: Vec<QueryRole>,
}

/// One condition as its term: `base[field][op]` with the value's text (a list as its items
/// joined by commas), playing the filter its field and operator word name when the word is known;
/// a relation's condition as `base[relation][word][field][op]` filtering the dotted field.
fn condition_term(base: &str, members: &Object) -> Option<QueryTerm> {
    if let Some((relation, word, inner)) = relation_condition(members) {
        return related_term(base, (relation, word), inner);
    }
    let read = condition(members)?;
    Some(QueryTerm {
        name: format!("{base}[{}][{}]", read.field, read.operator),
        value: read.value,
        roles: read.roles,
        within: Vec::new(),
    })
}

/// A condition on a relation's resources: the relation, the word (`has`, `any`) and the inner
/// condition; `None` for another object.
fn relation_condition(members: &Object) -> Option<(&str, &str, &Object)> {
    let relation = text_member(members, &FIELD_KEYS)?;
    let word = text_member(members, &OPERATOR_KEYS)?;
    let Some(Json::Object(inner)) = VALUE_KEYS.iter().find_map(|key| members.get(key)) else {
        return None;
    };
    (members.len() == 3 && plain_word(relation) && RELATION_WORDS.contains(&word))
        .then_some((relation, word, inner))
}

/// Whether a term's name is a condition on a relation's resources (`base[relation][has][field]
/// [op]`, see [`RELATION_WORDS`]): its filter reaches a related resource, not a nested member.
pub fn names_relation_condition(name: &str) -> bool {
    let parts: Vec<&str> = name.split('[').collect();
    parts.len() >= 5
        && RELATION_WORDS
            .iter()
            .any(|word| parts[parts.len() - 3] == format!("{word}]"))
}

/// A condition on a relation's resources as its term: the inner condition's filter on the field
/// dotted through the relation (`project.status`), named `base[project][has][status][eq]`.
fn related_term(base: &str, (relation, word): (&str, &str), inner: &Object) -> Option<QueryTerm> {
    let read = condition(inner)?;
    let roles = read
        .roles
        .into_iter()
        .map(|role| match role {
            QueryRole::Filter { field, op } => {
                QueryRole::filter(&format!("{relation}.{field}"), &op)
            }
            other => other,
        })
        .collect();
    Some(QueryTerm {
        name: format!(
            "{base}[{relation}][{word}][{}][{}]",
            read.field, read.operator
        ),
        value: read.value,
        roles,
        within: Vec::new(),
    })
}

/// A condition comparing a field (three members) or testing its presence (two members, an
/// operator word spelling `null` or `nnull`, read with the value `true`); `None` for any other
/// object.
fn condition(members: &Object) -> Option<Condition<'_>> {
    let field = text_member(members, &FIELD_KEYS)?;
    let operator = text_member(members, &OPERATOR_KEYS)?;
    if !plain_word(field) || !plain_word(operator) {
        return None;
    }
    let value = VALUE_KEYS.iter().find_map(|key| members.get(key));
    let (value, roles) = match (members.len(), value) {
        (3, Some(value)) => (operand(value)?, compared_roles(field, operator)),
        (2, None) => {
            let presence = operator_word(operator).filter(|op| matches!(*op, "null" | "nnull"))?;
            ("true".to_owned(), vec![QueryRole::filter(field, presence)])
        }
        _ => return None,
    };
    Some(Condition {
        field,
        operator,
        value,
        roles,
    })
}

/// The roles of a field compared by an operator word: its bracket filter's, none for a word no
/// operator spells.
pub(crate) fn compared_roles(field: &str, operator: &str) -> Vec<QueryRole> {
    match operator {
        // SQLAlchemy's `like` is SQL's: a pattern (`%page%`), not a substring.
        "like" => vec![QueryRole::filter(field, "pattern")],
        _ => bracket_filter(&format!("filter[{field}][{operator}]"))
            .map(|(field, op)| vec![QueryRole::filter(&field, &op)])
            .unwrap_or_default(),
    }
}

/// The text of the one member named by one of `keys`; `None` when none or several are, or it is
/// not a string.
fn text_member<'a>(members: &'a Object, keys: &[&str]) -> Option<&'a str> {
    let mut named = keys.iter().filter_map(|key| members.get(key));
    let (Some(Json::String(text)), None) = (named.next(), named.next()) else {
        return None;
    };
    Some(text.as_str())
}

/// A word naming a logical group.
pub(crate) fn is_group_word(text: &str) -> bool {
    matches!(text, "or" | "and" | "not")
}

/// A name that can stand in one bracket: not empty, no brackets, no logical group.
fn plain_word(text: &str) -> bool {
    !text.is_empty() && !text.contains(['[', ']']) && !is_group_word(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_is_a_sql_pattern() {
        let terms = terms("filter", r#"[{"name":"title","op":"like","val":"%page%"}]"#)
            .expect("a list of conditions");
        assert_eq!(
            crate::named_values_roles(&terms),
            vec![(
                "filter[title][like]",
                "%page%",
                &[QueryRole::filter("title", "pattern")][..]
            )]
        );
    }

    #[test]
    fn each_condition_is_its_bracket_filter() {
        let terms = terms(
            "filter",
            r#"[{"name":"estimate","op":"ge","val":5},{"name":"title","op":"ilike","val":"%the%"}]"#,
        )
        .expect("a list of conditions");
        assert_eq!(
            crate::named_values_roles(&terms),
            vec![
                (
                    "filter[estimate][ge]",
                    "5",
                    &[QueryRole::filter("estimate", "gte")][..]
                ),
                (
                    "filter[title][ilike]",
                    "%the%",
                    &[QueryRole::filter("title", "pattern")][..]
                ),
            ]
        );
    }

    #[test]
    fn other_member_names_and_list_values_are_read() {
        let terms = terms(
            "q",
            r#"[{"col":"status","opr":"in","value":["todo","doing"]}]"#,
        )
        .expect("a list of conditions");
        assert_eq!(
            crate::named_values_roles(&terms),
            vec![(
                "q[status][in]",
                "todo,doing",
                &[QueryRole::filter("status", "in")][..]
            )]
        );
    }

    #[test]
    fn an_unknown_operator_word_leaves_the_role_to_the_list() {
        let terms = terms("filter", r#"[{"name":"title","op":"match","val":"x"}]"#)
            .expect("a list of conditions");
        assert!(terms[0].roles.is_empty());
    }

    #[test]
    fn what_is_not_a_list_of_conditions_is_not_read() {
        for value in [
            "todo",
            "[]",
            r#"{"name":"a","op":"eq","val":1}"#,
            r#"[{"title":"DESC"}]"#,
            r#"[{"name":"a","op":"eq"}]"#,
            r#"[{"name":"a","op":"eq","val":1,"extra":2}]"#,
            r#"[{"name":"a","field":"b","val":1}]"#,
            r#"[{"name":"a","op":"eq","val":{"x":1}}]"#,
            r#"[{"and":[{"name":"a","op":"eq","val":1}]}]"#,
            r#"[{"not":{"name":"a","op":"eq","val":1}}]"#,
            r#"[{"or":[]}]"#,
            r#"[{"or":{"name":"a","op":"eq","val":1}}]"#,
            r#"[{"or":[{"name":"a","op":"eq","val":1}]},{"or":[{"name":"b","op":"eq","val":1}]}]"#,
            r#"[{"name":"a","op":"is_not_null"}]"#,
            r#"[{"name":"a","op":"is_null","extra":1}]"#,
            r#"[{"name":"p","op":"has","val":{"name":"q","op":"has","val":{"name":"a","op":"eq","val":1}}}]"#,
            r#"[{"name":"p","op":"has","val":{"title":"x"}}]"#,
            r#"[{"name":"p","op":"eq","val":{"name":"a","op":"eq","val":1}}]"#,
            r#"[{"name":"or","op":"eq","val":1}]"#,
            r#"[{"name":"a","op":"eq","val":1},{"name":"a","op":"eq","val":2}]"#,
            r#"[{"name":"a[b]","op":"eq","val":1}]"#,
        ] {
            assert_eq!(terms("filter", value), None, "{value}");
        }
    }

    #[test]
    fn not_in_is_none_of_the_list() {
        let terms = terms(
            "filter[objects]",
            r#"[{"name":"status","op":"not_in","val":["todo","doing"]}]"#,
        )
        .expect("a list of conditions");
        assert_eq!(
            crate::named_values_roles(&terms),
            vec![(
                "filter[objects][status][not_in]",
                "todo,doing",
                &[QueryRole::filter("status", "nin")][..]
            )]
        );
    }

    #[test]
    fn a_presence_test_names_no_value() {
        let terms = terms(
            "filter[objects]",
            r#"[{"name":"estimate","op":"is_null"},{"name":"title","op":"eq","val":"x"}]"#,
        )
        .expect("a list of conditions");
        assert_eq!(
            crate::named_values_roles(&terms),
            vec![
                (
                    "filter[objects][estimate][is_null]",
                    "true",
                    &[QueryRole::filter("estimate", "null")][..]
                ),
                (
                    "filter[objects][title][eq]",
                    "x",
                    &[QueryRole::filter("title", "eq")][..]
                ),
            ]
        );
    }

    #[test]
    fn an_or_group_puts_each_condition_in_its_branch() {
        let terms = terms(
            "filter[objects]",
            r#"[{"name":"priority","op":"neq","val":2},{"or":[{"name":"status","op":"eq","val":"todo"},{"name":"estimate","op":"gt","val":5}]}]"#,
        )
        .expect("a list of conditions");
        let group = |branch| vec![TermBranch::new("filter[objects][or]", branch)];
        let seen: Vec<(&str, &str, &[QueryRole], Vec<TermBranch>)> = terms
            .iter()
            .map(|term| {
                (
                    term.name.as_str(),
                    term.value.as_str(),
                    term.roles.as_slice(),
                    term.within.clone(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (
                    "filter[objects][priority][neq]",
                    "2",
                    &[QueryRole::filter("priority", "ne")][..],
                    Vec::new()
                ),
                (
                    "filter[objects][or][0][status][eq]",
                    "todo",
                    &[QueryRole::filter("status", "eq")][..],
                    group(0)
                ),
                (
                    "filter[objects][or][1][estimate][gt]",
                    "5",
                    &[QueryRole::filter("estimate", "gt")][..],
                    group(1)
                ),
            ]
        );
    }

    #[test]
    fn a_group_inside_a_branch_is_named_through_it() {
        let terms = terms(
            "f",
            r#"[{"or":[{"name":"a","op":"eq","val":1},{"or":[{"name":"b","op":"eq","val":2},{"name":"c","op":"is_null"}]}]}]"#,
        )
        .expect("a list of conditions");
        let last = terms.last().expect("three terms");
        assert_eq!(last.name, "f[or][1][or][1][c][is_null]");
        assert_eq!(
            last.within,
            vec![
                TermBranch::new("f[or]", 1),
                TermBranch::new("f[or][1][or]", 1)
            ]
        );
    }

    #[test]
    fn a_relations_condition_filters_the_field_through_it() {
        let terms = terms(
            "filter[objects]",
            r#"[{"name":"project","op":"has","val":{"name":"status","op":"eq","val":"archived"}},{"name":"tasks","op":"any","val":{"name":"title","op":"like","val":"%x%"}}]"#,
        )
        .expect("a list of conditions");
        assert_eq!(
            crate::named_values_roles(&terms),
            vec![
                (
                    "filter[objects][project][has][status][eq]",
                    "archived",
                    &[QueryRole::filter("project.status", "eq")][..]
                ),
                (
                    "filter[objects][tasks][any][title][like]",
                    "%x%",
                    &[QueryRole::filter("tasks.title", "pattern")][..]
                ),
            ]
        );
        assert!(
            terms
                .iter()
                .all(|term| names_relation_condition(&term.name))
        );
        assert!(!names_relation_condition("filter[objects][status][eq]"));
        assert!(!names_relation_condition("filter[has][status][eq]"));
    }
}
