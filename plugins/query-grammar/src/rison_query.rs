//! A whole query spelled as one Rison object in one parameter (Flask-AppBuilder's
//! `q=(filters:!((col:status,opr:eq,value:todo)),order_column:title,order_direction:desc,page:0,
//! page_size:5)`), read as the terms of its bracket spelling: a clause holding a list of
//! conditions ([`crate::filter_list`]) is one filter term per condition under the clause
//! (`q[filters][status][eq]`, playing the filter its field and operator word name), any other
//! clause one term named through the parameter (`q[order_column]`, `q[page]`; a list of scalars
//! as its comma-separated items), whose role is the one the list learned for that name (a name
//! nested in a wrapper plays the inner name's, `rea_plugin_api::query_fields::unnested`).
//!
//! A value that is no Rison object, a clause holding an object, a nested list or an empty list,
//! or a list of conditions one of which is not read is not split, and the call is not evaluated
//! through this language.

use rea_plugin_api::contracts::query::QueryTerm;
use rea_plugin_api::json::Json;

use crate::filter_list::condition_terms;
use crate::json_filter::operand;
use crate::rison;

/// The terms of the parameter `name` whose value is a Rison object of clauses (see the module
/// docs); `None` when it is not one.
pub fn terms(name: &str, value: &str) -> Option<Vec<QueryTerm>> {
    if !value.starts_with('(') {
        return None;
    }
    let Json::Object(clauses) = rison::parse(value)? else {
        return None;
    };
    let mut terms: Vec<QueryTerm> = Vec::new();
    for (clause, value) in clauses.iter() {
        let spelled = format!("{name}[{clause}]");
        match value {
            Json::Object(_) => return None,
            Json::Array(items) if items.iter().any(|item| matches!(item, Json::Object(_))) => {
                terms.extend(condition_terms(&spelled, items)?);
            }
            Json::Array(items) if items.is_empty() => return None,
            scalar => terms.push(QueryTerm {
                name: spelled,
                value: operand(scalar)?,
                roles: Vec::new(),
                within: Vec::new(),
            }),
        }
    }
    (!terms.is_empty()).then_some(terms)
}

#[cfg(test)]
mod tests {
    use rea_plugin_api::contracts::query::QueryRole;

    use super::*;

    #[test]
    fn clauses_are_the_terms_of_their_bracket_spelling() {
        let terms = terms(
            "q",
            "(filters:!((col:status,opr:eq,value:todo),(col:priority,opr:gt,value:1)),order_column:title,order_direction:desc,page:0,page_size:5,columns:!(id,title))",
        )
        .expect("a Rison query");
        assert_eq!(
            crate::named_values_roles(&terms),
            vec![
                (
                    "q[filters][status][eq]",
                    "todo",
                    &[QueryRole::filter("status", "eq")][..]
                ),
                (
                    "q[filters][priority][gt]",
                    "1",
                    &[QueryRole::filter("priority", "gt")][..]
                ),
                ("q[order_column]", "title", &[][..]),
                ("q[order_direction]", "desc", &[][..]),
                ("q[page]", "0", &[][..]),
                ("q[page_size]", "5", &[][..]),
                ("q[columns]", "id,title", &[][..]),
            ]
        );
    }

    #[test]
    fn what_is_not_a_rison_query_is_not_split() {
        for value in [
            "todo",
            "(filters:!())",
            "(a:(b:1))",
            "(filters:!((col:status,opr:eq)))",
            "(columns:!(!(a)))",
            "{\"a\":1}",
            "(a:1",
        ] {
            assert_eq!(terms("q", value), None, "{value}");
        }
    }
}
