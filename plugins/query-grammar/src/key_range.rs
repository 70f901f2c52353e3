//! `key-range`: a list read over an index ordered by its rows' `key` member, asked with
//! JSON-encoded keys (`key="author:lem"`, `startkey="book:"&endkey="book:\ufff0"`, `startkey=1970`)
//! and a direction flag (`descending=true`), as a CouchDB-style view or `_all_docs` is. Each
//! parameter becomes one term whose filter reads the decoded key:
//!
//! | parameter | term | role |
//! | --- | --- | --- |
//! | `key` | `range:eq` | `key` equal to the key |
//! | `startkey`, `start_key` | `range:gte` (`range:lte` descending) | the range's first key |
//! | `endkey`, `end_key` | `range:lte` (`range:gte` descending; `lt`/`gt` with `inclusive_end=false`) | its last |
//! | `descending` | `descending` | sort by `key`, `-key` when `true` |
//! | `inclusive_end` | none | read by `endkey` |
//!
//! A term's direction depends on the call's `descending` and `inclusive_end`
//! ([`QueryExpressionRequest::call`]). The filter terms' names hold no field name, so no affix
//! grammar reads them as a spelling to extend to other fields. Where some list's recorded lines
//! established a term, the grammar offers the language's parameter names (`key`, `startkey`,
//! `endkey`, `descending`, `inclusive_end`) on every list whose rows hold a `key` (`apply`), so
//! a call may name them where no recording did. A key that is not a JSON scalar (a
//! compound key, an array or object), a flag that is not `true`/`false`, or (where the fields of
//! the list are known) a list whose rows hold no `key` is not split, so the call is not evaluated
//! through this grammar. Keys compare as numbers when both are, else by code point (CouchDB
//! collates strings by Unicode collation, which agrees for the lower-case ASCII keys recorded).

use std::collections::BTreeMap;

use rea_plugin_api::contracts::query::{
    QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome, QueryGrammarRequest,
    QueryRole, QueryTerm,
};
use rea_plugin_api::json::{Json, parse};
use rea_plugin_api::{PluginError, QueryGrammar};

/// The stage's name.
pub const KEY_RANGE: &str = "key-range";

/// The member of a row holding its key.
const KEY_FIELD: &str = "key";

/// The `key-range` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyRange;

impl QueryGrammar for KeyRange {
    /// The language's parameter names on every list whose rows hold a `key`, once some list's
    /// recorded lines established one of its terms.
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, PluginError> {
        let mut outcome = crate::no_proposals(request);
        let established = request.lists.iter().any(|list| {
            list.established.iter().any(|(name, role)| match role {
                QueryRole::Filter { field, .. } => {
                    name.starts_with(TERM_PREFIX) && field == KEY_FIELD
                }
                _ => false,
            })
        });
        if !established {
            return Ok(outcome);
        }
        for (list, proposed) in request.lists.iter().zip(&mut outcome.lists) {
            if list.fields.iter().any(|field| field == KEY_FIELD) {
                *proposed = parameters();
            }
        }
        Ok(outcome)
    }

    fn split(
        &self,
        request: &QueryExpressionRequest,
    ) -> Result<QueryExpressionOutcome, PluginError> {
        Ok(QueryExpressionOutcome::of(terms(request)))
    }
}

/// The prefix of the filter terms' names.
const TERM_PREFIX: &str = "range:";

/// The language's parameters, each with the role it plays in an ascending read (what the tool's
/// description says of it; a call's parameters are split into terms before any role is read).
fn parameters() -> BTreeMap<String, QueryRole> {
    let flags = || QueryRole::Inert {
        values: vec!["false".to_owned(), "true".to_owned()],
    };
    BTreeMap::from([
        ("key".to_owned(), QueryRole::filter(KEY_FIELD, "eq")),
        ("startkey".to_owned(), QueryRole::filter(KEY_FIELD, "gte")),
        ("endkey".to_owned(), QueryRole::filter(KEY_FIELD, "lte")),
        ("descending".to_owned(), QueryRole::Sort),
        ("inclusive_end".to_owned(), flags()),
    ])
}

/// What a parameter of the language is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Key,
    Start,
    End,
    Descending,
    InclusiveEnd,
}

fn part(name: &str) -> Option<Part> {
    Some(match name {
        "key" => Part::Key,
        "startkey" | "start_key" => Part::Start,
        "endkey" | "end_key" => Part::End,
        "descending" => Part::Descending,
        "inclusive_end" => Part::InclusiveEnd,
        _ => return None,
    })
}

/// The terms of one parameter (see the module docs); `None` when it is not of the language.
fn terms(request: &QueryExpressionRequest) -> Option<Vec<QueryTerm>> {
    let part = part(&request.name)?;
    if !request.fields.is_empty() && !request.fields.iter().any(|field| field == KEY_FIELD) {
        return None;
    }
    let flag = |name: &str| {
        request
            .call
            .iter()
            .find(|(other, _)| other == name)
            .and_then(|(_, value)| truth(value))
    };
    let descending = flag("descending").unwrap_or(false);
    let inclusive_end = flag("inclusive_end").unwrap_or(true);
    let filter = |name: &str, op: &str| -> Option<Vec<QueryTerm>> {
        let key = key_text(&request.value, part == Part::Key && !ranged(request))?;
        Some(vec![QueryTerm::playing(
            name,
            key,
            QueryRole::filter(KEY_FIELD, op),
        )])
    };
    match part {
        Part::Key => filter(&format!("{TERM_PREFIX}eq"), "eq"),
        Part::Start if descending => filter(&format!("{TERM_PREFIX}lte"), "lte"),
        Part::Start => filter(&format!("{TERM_PREFIX}gte"), "gte"),
        Part::End => {
            let op = match (descending, inclusive_end) {
                (false, true) => "lte",
                (false, false) => "lt",
                (true, true) => "gte",
                (true, false) => "gt",
            };
            filter(&format!("{TERM_PREFIX}{op}"), op)
        }
        Part::Descending => {
            let descending = truth(&request.value)?;
            let sort = if descending { "-key" } else { KEY_FIELD };
            Some(vec![QueryTerm::playing(
                "descending",
                sort,
                QueryRole::Sort,
            )])
        }
        Part::InclusiveEnd => truth(&request.value).map(|_| Vec::new()),
    }
}

/// Whether the call names another parameter of the language besides `key` (so a bare number or
/// flag under `key` is a key of this language too).
fn ranged(request: &QueryExpressionRequest) -> bool {
    request
        .call
        .iter()
        .any(|(name, _)| part(name).is_some_and(|part| part != Part::Key))
}

/// A JSON-encoded scalar key as the text the filters compare: a string's text, a number's
/// lexeme; `None` for anything else, and for a number when `quoted_only`.
fn key_text(value: &str, quoted_only: bool) -> Option<String> {
    match parse(value.as_bytes()).ok()? {
        Json::String(text) => Some(String::from(text)),
        Json::Number(number) if !quoted_only => Some(number.as_str().to_owned()),
        _ => None,
    }
}

/// A flag's value (`true`/`false`).
fn truth(value: &str) -> Option<bool> {
    match value {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::SCHEMA_VERSION;

    fn split(name: &str, call: &[(&str, &str)], fields: &[&str]) -> Option<Vec<QueryTerm>> {
        let value = call
            .iter()
            .find(|(other, _)| *other == name)
            .map(|(_, value)| (*value).to_owned())
            .expect("the parameter is in the call");
        let request = QueryExpressionRequest {
            name: name.into(),
            value,
            fields: fields.iter().map(|field| (*field).to_owned()).collect(),
            call: call
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
            schema_version: SCHEMA_VERSION,
        };
        KeyRange.split(&request).unwrap().terms
    }

    fn term(name: &str, value: &str, op: &str) -> QueryTerm {
        QueryTerm::playing(name, value, QueryRole::filter("key", op))
    }

    #[test]
    fn a_range_is_read_in_the_direction_the_call_gives() {
        let ascending = [("startkey", "\"book:\""), ("endkey", "\"book:\u{fff0}\"")];
        assert_eq!(
            split("startkey", &ascending, &[]),
            Some(vec![term("range:gte", "book:", "gte")])
        );
        assert_eq!(
            split("endkey", &ascending, &["id", "key", "value"]),
            Some(vec![term("range:lte", "book:\u{fff0}", "lte")])
        );
        let descending = [
            ("descending", "true"),
            ("start_key", "\"book:k\""),
            ("end_key", "\"book:c\""),
            ("inclusive_end", "false"),
        ];
        assert_eq!(
            split("start_key", &descending, &[]),
            Some(vec![term("range:lte", "book:k", "lte")])
        );
        assert_eq!(
            split("end_key", &descending, &[]),
            Some(vec![term("range:gt", "book:c", "gt")])
        );
        assert_eq!(
            split("descending", &descending, &[]),
            Some(vec![QueryTerm::playing(
                "descending",
                "-key",
                QueryRole::Sort
            )])
        );
        // `inclusive_end` is read by the end key and is no term of its own.
        assert_eq!(split("inclusive_end", &descending, &[]), Some(vec![]));
        let exclusive = [("endkey", "\"author:lem\""), ("inclusive_end", "false")];
        assert_eq!(
            split("endkey", &exclusive, &[]),
            Some(vec![term("range:lt", "author:lem", "lt")])
        );
        // Numbers are keys too.
        assert_eq!(
            split("startkey", &[("startkey", "1970")], &[]),
            Some(vec![term("range:gte", "1970", "gte")])
        );
    }

    #[test]
    fn a_key_is_an_equality_on_the_rows_key() {
        assert_eq!(
            split("key", &[("key", "\"author:butler\"")], &[]),
            Some(vec![term("range:eq", "author:butler", "eq")])
        );
        // A bare number under `key` alone is not taken for this language; beside a range part it is.
        assert_eq!(split("key", &[("key", "1970")], &[]), None);
        assert_eq!(
            split("key", &[("key", "1970"), ("descending", "true")], &[]),
            Some(vec![term("range:eq", "1970", "eq")])
        );
    }

    #[test]
    fn its_names_are_offered_where_rows_hold_a_key_once_a_term_was_established() {
        use rea_plugin_api::contracts::query::ListQueries;
        let list = |established: &[(&str, QueryRole)], fields: &[&str]| ListQueries {
            established: established
                .iter()
                .map(|(name, role)| ((*name).to_owned(), role.clone()))
                .collect(),
            fields: fields.iter().map(|field| (*field).to_owned()).collect(),
            recorded_names: Vec::new(),
            array_fields: Vec::new(),
            joined_fields: Vec::new(),
            many_joined_fields: Vec::new(),
            refused_names: Vec::new(),
        };
        let request = |lists: Vec<ListQueries>| QueryGrammarRequest {
            options: Default::default(),
            lists,
            schema_version: SCHEMA_VERSION,
        };
        let ranged = list(
            &[("range:gte", QueryRole::filter("key", "gte"))],
            &["id", "key", "value"],
        );
        let sibling = list(&[], &["key", "value"]);
        let keyless = list(&[], &["id", "title"]);
        let outcome = KeyRange
            .apply(&request(vec![ranged, sibling.clone(), keyless.clone()]))
            .unwrap();
        assert_eq!(outcome.lists[0], parameters());
        assert_eq!(outcome.lists[1], parameters());
        assert!(outcome.lists[2].is_empty());
        // A filter on `key` by another name establishes nothing of this language.
        let other = list(&[("key", QueryRole::filter("key", "eq"))], &["key"]);
        let outcome = KeyRange.apply(&request(vec![other, sibling])).unwrap();
        assert!(outcome.lists.iter().all(BTreeMap::is_empty));
    }

    #[test]
    fn what_the_language_does_not_model_is_not_split() {
        // A compound key, a key that is not JSON, a flag that is not a flag.
        assert_eq!(split("key", &[("key", "[\"a\",1]")], &[]), None);
        assert_eq!(split("startkey", &[("startkey", "book:")], &[]), None);
        assert_eq!(split("descending", &[("descending", "yes")], &[]), None);
        assert_eq!(split("inclusive_end", &[("inclusive_end", "0")], &[]), None);
        // Rows without a key member, and other names.
        assert_eq!(
            split("descending", &[("descending", "true")], &["id", "title"]),
            None
        );
        assert_eq!(split("sort", &[("sort", "\"x\"")], &[]), None);
    }
}
