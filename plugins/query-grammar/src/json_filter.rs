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
//! of objects all of which hold. An object holding another logical group (`_or`, `_not`), an
//! operator over an object, a field with no operator under it, or the same term twice is not
//! split, and the call is not evaluated through this grammar.

use rea_plugin_api::contracts::query::{
    QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome, QueryGrammarRequest,
    QueryRole, QueryTerm,
};
use rea_plugin_api::json::{Json, parse};
use rea_plugin_api::query_fields::bracket_filter;
use rea_plugin_api::{PluginError, QueryGrammar};

/// The stage's name.
pub const JSON_FILTER: &str = "json-filter";

/// The `json-filter` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonFilter;

impl QueryGrammar for JsonFilter {
    /// It proposes no parameter names: its terms are spelled in the bracket form.
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, PluginError> {
        Ok(crate::no_proposals(request))
    }

    fn split(
        &self,
        request: &QueryExpressionRequest,
    ) -> Result<QueryExpressionOutcome, PluginError> {
        Ok(QueryExpressionOutcome::of(terms(
            &request.name,
            &request.value,
        )))
    }
}

/// The terms of a JSON filter object (see the module docs).
fn terms(name: &str, value: &str) -> Option<Vec<QueryTerm>> {
    if !value.trim_start().starts_with('{') {
        return None;
    }
    let filter = parse(value.as_bytes()).ok()?;
    let mut leaves: Vec<(String, String)> = Vec::new();
    flatten(name, &filter, &mut leaves)?;
    let mut terms: Vec<QueryTerm> = Vec::new();
    for (term, value) in leaves {
        if terms.iter().any(|known| known.name == term) {
            return None;
        }
        let roles = bracket_filter(&term)
            .map(|(field, op)| vec![QueryRole::filter(&field, &op)])
            .unwrap_or_default();
        terms.push(QueryTerm {
            name: term,
            value,
            roles,
        });
    }
    (!terms.is_empty()).then_some(terms)
}

/// Collects `(bracket name, value)` of every operator under `prefix`; `None` when a part is not
/// modelled.
fn flatten(prefix: &str, value: &Json, leaves: &mut Vec<(String, String)>) -> Option<()> {
    let Json::Object(members) = value else {
        return None;
    };
    if members.is_empty() {
        return None;
    }
    for (key, inner) in members.iter() {
        let operator = key.starts_with(['_', '$']);
        if matches!(key, "_and" | "$and") {
            let Json::Array(all) = inner else {
                return None;
            };
            for each in all {
                flatten(prefix, each, leaves)?;
            }
        } else if operator {
            if matches!(key, "_or" | "$or" | "_not" | "$not" | "_nor" | "$nor") {
                return None;
            }
            leaves.push((format!("{prefix}[{key}]"), operand(inner)?));
        } else {
            flatten(&format!("{prefix}[{key}]"), inner, leaves)?;
        }
    }
    Some(())
}

/// An operator's value as query text: a scalar as written, an array as its comma-separated items.
fn operand(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.clone()),
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
    fn what_it_does_not_model_is_not_split() {
        for value in [
            r#"{"_or": [{"a": {"_eq": 1}}, {"b": {"_eq": 2}}]}"#,
            r#"{"a": 1}"#,
            r#"{"a": {"_eq": {"b": 1}}}"#,
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
