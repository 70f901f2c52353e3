//! A filter spelled as a JSON list of conditions, each an object naming a field, an operator word
//! and a value (`filter=[{"name": "estimate", "op": "ge", "val": 5}]`, as Flask-REST-JSONAPI and
//! other SQLAlchemy front ends spell it): every condition holds (a conjunction), and each is the
//! filter its bracket spelling names, `filter[estimate][ge]=5`, whose role the list learned for
//! that name or, for a known operator word (`rea_plugin_api::query_fields::operator_word`), plays
//! that filter wherever no recording named it; `like` is SQL's pattern (`%page%`), as the
//! SQLAlchemy front ends spelling such lists pass it on.
//!
//! The members of a condition are told apart by their names, the words such lists use
//! ([`FIELD_KEYS`], [`OPERATOR_KEYS`], [`VALUE_KEYS`]); a condition with another member, a
//! missing one, a field that is not a plain name, an operator that is no word, a value that is an
//! object, a logical group (`{"or": [...]}`), an empty list or the same field and operator twice
//! is not read, and the call is not evaluated through this language.

use rea_plugin_api::contracts::query::{QueryRole, QueryTerm};
use rea_plugin_api::json::{Json, Object, parse};
use rea_plugin_api::query_fields::bracket_filter;

use crate::json_filter::operand;

/// The member names a condition spells its field with.
pub const FIELD_KEYS: [&str; 4] = ["name", "field", "col", "column"];

/// The member names a condition spells its operator word with.
pub const OPERATOR_KEYS: [&str; 3] = ["op", "operator", "opr"];

/// The member names a condition spells its value with.
pub const VALUE_KEYS: [&str; 2] = ["val", "value"];

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
    for condition in conditions {
        let Json::Object(members) = condition else {
            return None;
        };
        let term = condition_term(base, members)?;
        if terms.iter().any(|known| known.name == term.name) {
            return None;
        }
        terms.push(term);
    }
    (!terms.is_empty()).then_some(terms)
}

/// One condition as its term: `base[field][op]` with the value's text (a list as its items
/// joined by commas), playing the filter its field and operator word name when the word is known.
fn condition_term(base: &str, members: &Object) -> Option<QueryTerm> {
    if members.len() != 3 {
        return None;
    }
    let field = text_member(members, &FIELD_KEYS)?;
    let operator = text_member(members, &OPERATOR_KEYS)?;
    let value = VALUE_KEYS.iter().find_map(|key| members.get(key))?;
    if !plain_word(field) || !plain_word(operator) {
        return None;
    }
    let roles = match operator {
        // SQLAlchemy's `like` is SQL's: a pattern (`%page%`), not a substring.
        "like" => vec![QueryRole::filter(field, "pattern")],
        _ => bracket_filter(&format!("filter[{field}][{operator}]"))
            .map(|(field, op)| vec![QueryRole::filter(&field, &op)])
            .unwrap_or_default(),
    };
    Some(QueryTerm {
        name: format!("{base}[{field}][{operator}]"),
        value: operand(value)?,
        roles,
        within: Vec::new(),
    })
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

/// A name that can stand in one bracket: not empty, no brackets, no logical group.
fn plain_word(text: &str) -> bool {
    !text.is_empty() && !text.contains(['[', ']']) && !matches!(text, "or" | "and" | "not")
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
            r#"[{"or":[{"name":"a","op":"eq","val":1}]}]"#,
            r#"[{"name":"or","op":"eq","val":1}]"#,
            r#"[{"name":"a","op":"eq","val":1},{"name":"a","op":"eq","val":2}]"#,
            r#"[{"name":"a[b]","op":"eq","val":1}]"#,
        ] {
            assert_eq!(terms("filter", value), None, "{value}");
        }
    }
}
