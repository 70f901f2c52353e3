//! `search-filter`: the request body of a search read in the language of search APIs that take a
//! SQL-like filter string (MLflow's `runs/search` and `experiments/search`: `{"experiment_ids":
//! ["1"], "filter": "attributes.status = 'FAILED' AND name LIKE 'x%'", "order_by": ["start_time
//! DESC"], "max_results": 10, "page_token": "…"}`) as terms the state engine evaluates.
//!
//! * `filter`: comparisons joined by `AND` (any case): an attribute (`attributes.` or none before
//!   its name), an operator (`=`, `!=`, `>`, `>=`, `<`, `<=`, `LIKE` with `%` only at the ends,
//!   `ILIKE` with `%` at both ends) and a quoted or numeric value; `metrics.<key>`,
//!   `params.<key>` and `tags.<key>` name the `value` of the entry keyed `<key>` in the type's
//!   `metrics`, `params` or `tags` list of objects (at the top level or one object down).
//! * `order_by`: `attribute [ASC|DESC]` each (a key-value entry too).
//! * `max_results`: the page size; `page_token`: base64 of `{"offset": n}`, the offset.
//! * `<name>_ids`: the `<name>_id` attribute is one of the listed values.
//! * `view_type`/`run_view_type` (`ACTIVE_ONLY` when absent, `DELETED_ONLY`, `ALL`): the
//!   `lifecycle_stage` attribute, where the listed type holds one.
//!
//! An attribute names the field the listed type holds under that name, at the top level or one
//! object down (`info.start_time`); one the type does not hold, or any other member, is not
//! modelled and the body is not split.

use rea_plugin_api::contracts::capture::base64;
use rea_plugin_api::contracts::query::{QueryBodyRequest, QueryRole, QueryTerm};
use serde_json::Value;

/// The stage's name.
pub const SEARCH_FILTER: &str = "search-filter";

/// The `search-filter` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchFilter;

impl crate::BodyLanguage for SearchFilter {
    fn terms(&self, request: &QueryBodyRequest) -> Option<Vec<QueryTerm>> {
        body_terms(&request.body, &(&request.fields, &request.object_lists))
    }
}

/// What the listed type holds: its scalar fields and its lists of objects.
type Held<'a> = (&'a Vec<String>, &'a Vec<String>);

/// The field an attribute names: the entry value of a key-value list (`metrics.auc`: the
/// `value` of the entry keyed `auc` in the type's `metrics` list), else an attribute.
fn resolve(held: &Held, attribute: &str) -> Option<String> {
    let (fields, lists) = held;
    if let Some((family, key)) = attribute.split_once('.')
        && KEYED_LISTS.contains(&family)
    {
        if key.is_empty() || key.contains(['.', '[', ']', '=', '`', '"']) {
            return None;
        }
        let suffix = format!(".{family}");
        let mut matching = lists
            .iter()
            .filter(|list| *list == family || list.ends_with(&suffix));
        let list = matching.next()?;
        return matching
            .next()
            .is_none()
            .then(|| format!("{list}[key={key}].value"));
    }
    field(fields, attribute).map(str::to_owned)
}

/// The key-value lists a filter names by `<list>.<key>`.
const KEYED_LISTS: [&str; 3] = ["metrics", "params", "tags"];

/// The field an attribute names among the fields the type holds.
fn field<'a>(fields: &'a [String], attribute: &str) -> Option<&'a str> {
    let name = attribute.strip_prefix("attributes.").unwrap_or(attribute);
    if name.is_empty() || name.contains('.') {
        return None;
    }
    if let Some(exact) = fields.iter().find(|field| *field == name) {
        return Some(exact);
    }
    let nested: Vec<&String> = fields
        .iter()
        .filter(|field| {
            field
                .split_once('.')
                .is_some_and(|(_, member)| member == name)
        })
        .collect();
    match nested.as_slice() {
        [only] => Some(only),
        _ => None,
    }
}

/// The terms of a search body (see the module docs).
fn body_terms(body: &Value, held: &Held) -> Option<Vec<QueryTerm>> {
    let fields = held.0;
    let body = body.as_object()?;
    let mut terms = Vec::new();
    let mut view_type = "ACTIVE_ONLY";
    for (member, value) in body {
        match member.as_str() {
            "filter" => filter_terms(value.as_str()?, held, &mut terms)?,
            "order_by" => terms.push(order_term(value, held)?),
            "max_results" => terms.push(QueryTerm::playing(
                "max_results",
                value.as_u64()?.to_string(),
                QueryRole::PageSize,
            )),
            "page_token" => terms.push(QueryTerm::playing(
                "page_token",
                token_offset(value.as_str()?)?.to_string(),
                QueryRole::Offset,
            )),
            "view_type" | "run_view_type" => view_type = value.as_str()?,
            plural => {
                let singular = format!("{}_id", plural.strip_suffix("_ids")?);
                let ids: Option<Vec<&str>> = value.as_array()?.iter().map(Value::as_str).collect();
                let ids = ids?;
                if ids.is_empty() || ids.iter().any(|id| id.contains(',')) {
                    return None;
                }
                let field = field(fields, &singular)?;
                terms.push(filter(plural, field, "in", ids.join(",")));
            }
        }
    }
    let stage = match view_type {
        "ACTIVE_ONLY" => Some("active"),
        "DELETED_ONLY" => Some("deleted"),
        "ALL" => None,
        _ => return None,
    };
    if let (Some(stage), Some(lifecycle)) = (stage, field(fields, "lifecycle_stage")) {
        terms.push(filter("view_type", lifecycle, "eq", stage.to_owned()));
    }
    Some(terms)
}

fn filter(name: &str, field: &str, op: &str, value: String) -> QueryTerm {
    QueryTerm::playing(
        format!("{name}:{field}:{op}"),
        value,
        QueryRole::filter(field, op),
    )
}

/// The offset a page token holds (base64 of `{"offset": n}`).
fn token_offset(token: &str) -> Option<u64> {
    let bytes = base64::decode(token).ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    let object = value.as_object()?;
    (object.len() == 1)
        .then(|| object.get("offset")?.as_u64())
        .flatten()
}

/// One sort term of `attribute [ASC|DESC]` keys.
fn order_term(value: &Value, held: &Held) -> Option<QueryTerm> {
    let mut keys = Vec::new();
    for key in value.as_array()? {
        let words: Vec<&str> = key.as_str()?.split_whitespace().collect();
        let (attribute, descending) = match words.as_slice() {
            [attribute] => (*attribute, false),
            [attribute, direction] => match direction.to_ascii_uppercase().as_str() {
                "ASC" => (*attribute, false),
                "DESC" => (*attribute, true),
                _ => return None,
            },
            _ => return None,
        };
        let field = resolve(held, attribute)?;
        keys.push(if descending {
            format!("-{field}")
        } else {
            field.to_owned()
        });
    }
    (!keys.is_empty()).then(|| QueryTerm::playing("order_by", keys.join(","), QueryRole::Sort))
}

/// The comparisons of a filter string, appended.
fn filter_terms(text: &str, held: &Held, terms: &mut Vec<QueryTerm>) -> Option<()> {
    for comparison in split_and(text)? {
        let (attribute, rest) = comparison.trim().split_once(char::is_whitespace)?;
        let (operator, value) = rest.trim_start().split_once(char::is_whitespace)?;
        let value = literal(value.trim())?;
        let field = resolve(held, attribute)?;
        let (op, value) = match operator.to_ascii_uppercase().as_str() {
            "=" => ("eq", value),
            "!=" => ("ne", value),
            ">" => ("gt", value),
            ">=" => ("gte", value),
            "<" => ("lt", value),
            "<=" => ("lte", value),
            "LIKE" => like(&value)?,
            "ILIKE" => {
                let inner = value.strip_prefix('%')?.strip_suffix('%')?;
                if inner.contains(['%', '_']) {
                    return None;
                }
                ("like", inner.to_owned())
            }
            _ => return None,
        };
        let name = format!("filter:{field}:{op}");
        if terms.iter().any(|known| known.name == name) {
            return None;
        }
        terms.push(filter("filter", &field, op, value));
    }
    Some(())
}

/// A case-sensitive `LIKE` pattern with `%` only at its ends (and no `_` wildcard).
fn like(pattern: &str) -> Option<(&'static str, String)> {
    let (op, text) = match (pattern.strip_prefix('%'), pattern.strip_suffix('%')) {
        (None, None) => ("eq", pattern),
        (None, Some(prefix)) => ("starts", prefix),
        (Some(suffix), None) => ("ends", suffix),
        (Some(_), Some(_)) => return None,
    };
    (!text.contains(['%', '_'])).then(|| (op, text.to_owned()))
}

/// The comparisons a filter joins with `AND` (outside quotes, any case).
fn split_and(text: &str) -> Option<Vec<String>> {
    let mut parts = vec![String::new()];
    let mut quote: Option<char> = None;
    let words: Vec<&str> = text.split(' ').collect();
    for word in words {
        if quote.is_none() && word.eq_ignore_ascii_case("AND") {
            parts.push(String::new());
            continue;
        }
        for character in word.chars() {
            match quote {
                Some(open) if character == open => quote = None,
                None if character == '\'' || character == '"' => quote = Some(character),
                _ => {}
            }
        }
        let part = parts.last_mut()?;
        if !part.is_empty() {
            part.push(' ');
        }
        part.push_str(word);
    }
    (quote.is_none() && parts.iter().all(|part| !part.trim().is_empty())).then_some(parts)
}

/// A quoted string or a number.
fn literal(text: &str) -> Option<String> {
    for quote in ['\'', '"'] {
        if let Some(inner) = text
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return (!inner.contains(quote)).then(|| inner.to_owned());
        }
    }
    text.parse::<f64>()
        .ok()
        .filter(|number| number.is_finite())
        .map(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields() -> Vec<String> {
        [
            "info.experiment_id",
            "info.lifecycle_stage",
            "info.run_name",
            "info.start_time",
            "info.status",
        ]
        .map(str::to_owned)
        .to_vec()
    }

    fn split(body: Value) -> Option<Vec<(String, String, Vec<QueryRole>)>> {
        let lists = vec!["data.metrics".to_owned(), "data.params".to_owned()];
        body_terms(&body, &(&fields(), &lists)).map(|terms| {
            terms
                .into_iter()
                .map(|term| (term.name, term.value, term.roles))
                .collect()
        })
    }

    #[test]
    fn a_search_body_is_split_into_filters_order_and_paging() {
        let terms = split(json!({
            "experiment_ids": ["1", "2"],
            "filter": "attributes.status = 'FAILED' and run_name LIKE 'xgb%'",
            "max_results": 2,
            "order_by": ["attributes.start_time DESC"],
            "page_token": "eyJvZmZzZXQiOiAyfQ=="
        }))
        .expect("a search body");
        let roles: Vec<(String, Vec<QueryRole>)> = terms
            .iter()
            .map(|(_, value, roles)| (value.clone(), roles.clone()))
            .collect();
        assert_eq!(
            roles,
            vec![
                (
                    "1,2".into(),
                    vec![QueryRole::filter("info.experiment_id", "in")]
                ),
                (
                    "FAILED".into(),
                    vec![QueryRole::filter("info.status", "eq")]
                ),
                (
                    "xgb".into(),
                    vec![QueryRole::filter("info.run_name", "starts")]
                ),
                ("2".into(), vec![QueryRole::PageSize]),
                ("-info.start_time".into(), vec![QueryRole::Sort]),
                ("2".into(), vec![QueryRole::Offset]),
                (
                    "active".into(),
                    vec![QueryRole::filter("info.lifecycle_stage", "eq")]
                ),
            ]
        );
    }

    #[test]
    fn key_value_lists_are_read_as_their_keyed_entries() {
        let terms = split(json!({
            "filter": "metrics.auc > 0.8 AND params.model = 'xgboost'",
            "order_by": ["metrics.auc DESC"],
            "view_type": "ALL"
        }))
        .expect("a search body");
        let roles: Vec<Vec<QueryRole>> = terms.into_iter().map(|(_, _, roles)| roles).collect();
        assert_eq!(
            roles,
            vec![
                vec![QueryRole::filter("data.metrics[key=auc].value", "gt")],
                vec![QueryRole::filter("data.params[key=model].value", "eq")],
                vec![QueryRole::Sort],
            ]
        );
    }

    #[test]
    fn the_view_type_selects_the_lifecycle_stage() {
        let deleted = split(json!({"run_view_type": "DELETED_ONLY"})).expect("a search body");
        assert_eq!(deleted[0].1, "deleted");
        assert!(
            split(json!({"view_type": "ALL"}))
                .expect("a search body")
                .is_empty()
        );
    }

    #[test]
    fn what_the_language_holds_beyond_the_model_is_not_split() {
        for body in [
            json!({"filter": "tags.team = 'growth'"}),
            json!({"filter": "metrics.`a.b` > 1"}),
            json!({"filter": "name LIKE '%x%'"}),
            json!({"filter": "name LIKE 'x_y%'"}),
            json!({"filter": "status >>> 1"}),
            json!({"filter": "status = 'a' OR status = 'b'"}),
            json!({"filter": "status = unquoted"}),
            json!({"order_by": ["tags.x ASC"]}),
            json!({"order_by": ["run_name SIDEWAYS"]}),
            json!({"page_token": "not a token"}),
            json!({"view_type": "SOME"}),
            json!({"experiment_ids": ["1,2"]}),
            json!({"unknown": 1}),
        ] {
            assert!(split(body.clone()).is_none(), "{body}");
        }
    }
}
