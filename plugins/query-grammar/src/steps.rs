//! `filter-steps`: a query parameter holding one filter run of operator steps,
//! `[op[argument]op[argument]…]` (`[tag[Task]field:status[open]!sort[modified]limit[2]]`), split
//! into one term per step, each a parameter whose role the state engine learns from the recorded
//! lines (the candidates below) or, for a step that says what it means, plays wherever no
//! recording named it.
//!
//! A step is `op[argument]`, optionally negated (`!op`), the operator optionally with a suffix
//! (`field:status`). Its term is named `NAME:op` (`filter:tag`, `filter:!is`) and its candidate
//! roles are, in order:
//! - `sort` / `!sort`: one term `NAME:sort` sorting ascending by the argument, or descending
//!   (`-argument`);
//! - `limit`: the page size; `search`: a text search;
//! - `field:F`: equality on `F` (`NAME:field:F`), not equal when negated;
//! - `has[F]`: `F` is present and not null (`NAME:has:F`, value `true`), absent or null when
//!   negated;
//! - any other operator: equality on the field of its name, then an item of that field's word
//!   list (`tag` on `tags`: the field named as the operator or its plural), else a step that
//!   changes nothing the list shows (`inert`: accepted only with the arguments recorded).
//!
//! A value that is not exactly one run of such steps (several runs, a title literal `[[…]]`,
//! variable or indirect arguments `<…>` `{…}`, a negated `limit`, `search` or `sort` suffix) is
//! not split, and the call is not evaluated through this grammar.

use rea_plugin_api::contracts::query::{
    QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome, QueryGrammarRequest,
    QueryRole, QueryTerm,
};
use rea_plugin_api::{PluginError, QueryGrammar};

/// The stage's name.
pub const FILTER_STEPS: &str = "filter-steps";

/// The `filter-steps` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct FilterSteps;

impl QueryGrammar for FilterSteps {
    /// It proposes no parameter names: its terms are learned where recorded lines split.
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, PluginError> {
        Ok(crate::no_proposals(request))
    }

    fn split(
        &self,
        request: &QueryExpressionRequest,
    ) -> Result<QueryExpressionOutcome, PluginError> {
        let terms = steps(&request.value).and_then(|steps| {
            let terms: Option<Vec<QueryTerm>> = steps
                .iter()
                .map(|step| term(&request.name, step, &request.fields))
                .collect();
            terms.filter(|terms| !terms.is_empty())
        });
        Ok(QueryExpressionOutcome::of(terms))
    }
}

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step<'a> {
    negated: bool,
    operator: &'a str,
    argument: &'a str,
}

/// The steps of a value that is exactly one run `[step step …]`.
fn steps(value: &str) -> Option<Vec<Step<'_>>> {
    let mut rest = value.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        let (negated, after) = match rest.strip_prefix('!') {
            Some(after) => (true, after),
            None => (false, rest),
        };
        let open = after.find('[')?;
        let operator = &after[..open];
        let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_');
        if operator.is_empty() || !operator.chars().all(valid) {
            return None;
        }
        let close = after[open + 1..].find(']')? + open + 1;
        let argument = &after[open + 1..close];
        if argument.contains('[') {
            return None;
        }
        steps.push(Step {
            negated,
            operator,
            argument,
        });
        rest = &after[close + 1..];
    }
    Some(steps)
}

/// A step's term (see the module docs); `None` for a step the grammar does not model.
fn term(name: &str, step: &Step<'_>, fields: &[String]) -> Option<QueryTerm> {
    let bang = if step.negated { "!" } else { "" };
    let made = |term: String, value: String, roles: Vec<QueryRole>| {
        Some(QueryTerm {
            name: format!("{name}:{term}"),
            value,
            roles,
            within: Vec::new(),
        })
    };
    match (step.operator, step.negated) {
        ("sort", negated) => {
            let value = if negated {
                format!("-{}", step.argument)
            } else {
                step.argument.to_owned()
            };
            made("sort".into(), value, vec![QueryRole::Sort])
        }
        ("limit", false) => made(
            "limit".into(),
            step.argument.into(),
            vec![QueryRole::PageSize],
        ),
        ("search", false) => made(
            "search".into(),
            step.argument.into(),
            vec![QueryRole::Search],
        ),
        ("limit" | "search", true) => None,
        ("has", negated) => {
            let op = if negated { "null" } else { "nnull" };
            made(
                format!("{bang}has:{}", step.argument),
                "true".into(),
                held_roles(step.argument, fields, &[op]),
            )
        }
        (operator, negated) => {
            if let Some(field) = operator.strip_prefix("field:") {
                let op = if negated { "ne" } else { "eq" };
                return made(
                    format!("{bang}{operator}"),
                    step.argument.into(),
                    held_roles(field, fields, &[op]),
                );
            }
            if operator.contains(':') {
                return None;
            }
            made(
                format!("{bang}{operator}"),
                step.argument.into(),
                field_roles(operator, negated, fields),
            )
        }
    }
}

/// The fields held under a name: the field itself or a member of an object field (`status`,
/// `fields.status`).
fn held<'a>(name: &'a str, fields: &'a [String]) -> impl Iterator<Item = &'a String> {
    fields.iter().filter(move |held| {
        held.as_str() == name
            || held
                .strip_suffix(name)
                .is_some_and(|parent| parent.ends_with('.'))
    })
}

/// A filter of each held field of that name by each operator; of the name itself when the state
/// holds none.
fn held_roles(name: &str, fields: &[String], ops: &[&str]) -> Vec<QueryRole> {
    let mut roles: Vec<QueryRole> = held(name, fields)
        .flat_map(|field| ops.iter().map(|op| QueryRole::filter(field, op)))
        .collect();
    if roles.is_empty() {
        roles = ops.iter().map(|op| QueryRole::filter(name, op)).collect();
    }
    roles
}

/// The roles of an operator step by a field's name: equality (or inequality when negated) on the
/// field held under the operator's name or its plural, or an item of its word list; else inert.
fn field_roles(operator: &str, negated: bool, fields: &[String]) -> Vec<QueryRole> {
    let plural = format!("{operator}s");
    let ops: &[&str] = if negated { &["ne"] } else { &["eq", "token"] };
    let roles: Vec<QueryRole> = held(operator, fields)
        .chain(held(&plural, fields))
        .flat_map(|field| ops.iter().map(|op| QueryRole::filter(field, op)))
        .collect();
    if roles.is_empty() {
        return vec![QueryRole::Inert { values: Vec::new() }];
    }
    roles
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rea_plugin_api::contracts::SCHEMA_VERSION;

    use super::*;

    fn split(value: &str, fields: &[&str]) -> Option<Vec<(String, String, Vec<QueryRole>)>> {
        let request = QueryExpressionRequest {
            name: "filter".into(),
            value: value.into(),
            fields: fields.iter().map(|field| (*field).to_owned()).collect(),
            call: Vec::new(),
            schema_version: SCHEMA_VERSION,
        };
        FilterSteps.split(&request).unwrap().terms.map(|terms| {
            terms
                .into_iter()
                .map(|term| (term.name, term.value, term.roles))
                .collect()
        })
    }

    #[test]
    fn a_run_splits_into_one_term_per_step() {
        let terms = split(
            "[tag[Task]field:status[open]!is[system]!sort[modified]limit[2]]",
            &["status", "tags", "title"],
        )
        .expect("one run");
        assert_eq!(
            terms,
            vec![
                (
                    "filter:tag".into(),
                    "Task".into(),
                    vec![
                        QueryRole::filter("tags", "eq"),
                        QueryRole::filter("tags", "token")
                    ]
                ),
                (
                    "filter:field:status".into(),
                    "open".into(),
                    vec![QueryRole::filter("status", "eq")]
                ),
                (
                    "filter:!is".into(),
                    "system".into(),
                    vec![QueryRole::Inert { values: vec![] }]
                ),
                (
                    "filter:sort".into(),
                    "-modified".into(),
                    vec![QueryRole::Sort]
                ),
                ("filter:limit".into(), "2".into(), vec![QueryRole::PageSize]),
            ]
        );
        let has = split("[has[email]search[panels]]", &[]).expect("one run");
        assert_eq!(
            has,
            vec![
                (
                    "filter:has:email".into(),
                    "true".into(),
                    vec![QueryRole::filter("email", "nnull")]
                ),
                (
                    "filter:search".into(),
                    "panels".into(),
                    vec![QueryRole::Search]
                ),
            ]
        );
        // A field held as a member of an object field is filtered there.
        let nested = split(
            "[field:status[done]has[email]]",
            &["fields.email", "fields.status"],
        );
        let roles: Vec<Vec<QueryRole>> = nested.unwrap().into_iter().map(|t| t.2).collect();
        assert_eq!(
            roles,
            vec![
                vec![QueryRole::filter("fields.status", "eq")],
                vec![QueryRole::filter("fields.email", "nnull")]
            ]
        );
        // Arguments keep their spaces.
        let spaced = split("[tag[Home and Garden]]", &["tags"]).unwrap();
        assert_eq!(spaced[0].1, "Home and Garden");
    }

    #[test]
    fn what_is_not_one_run_of_steps_is_not_split() {
        for value in [
            "[[Buy milk]] [[Bob Marley]]",
            "[tag[a]] [tag[b]]",
            "[tag<currentTiddler>]",
            "[tag{!!title}]",
            "[!limit[2]]",
            "[]",
            "tag[a]",
            "Task",
            "[tag[a]",
            "[x:y:z[a]]",
        ] {
            assert_eq!(split(value, &["tags"]), None, "{value}");
        }
    }

    #[test]
    fn it_proposes_no_names() {
        let request = QueryGrammarRequest {
            options: Default::default(),
            lists: vec![Default::default(), Default::default()],
            schema_version: SCHEMA_VERSION,
        };
        let outcome = FilterSteps.apply(&request).unwrap();
        assert_eq!(outcome.lists.len(), 2);
        assert!(outcome.lists.iter().all(BTreeMap::is_empty));
    }
}
