//! `mango-selector`: the request body of a read in the Mango query language (CouchDB's and
//! PouchDB's `_find`: `{"selector": {...}, "sort": [...], "limit": n, "skip": n, "fields": [...]}`)
//! as terms the state engine evaluates over the entities the read lists.
//!
//! A selector member is a field (dotted for nested members) holding either a scalar (equality)
//! or an object of operators: `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte` over a scalar, `$in`,
//! `$nin` and `$all` (an array field holding every item) over an array of scalars (none holding
//! a comma), `$regex` over a string (a regular expression a text field matches anywhere, as
//! pouchdb-selector-core's `new RegExp(value).test(field)` on a string field). `$and` holds an array of such
//! selectors, all of which hold; `$or` an array of them one of which holds (each term under it
//! lies in that branch of the group, `QueryTerm::within`; as pouchdb-selector-core's matcher,
//! which tests every document the chosen index gives against the whole selector). `sort` is an
//! array of field names or `{field: "asc"|"desc"}` objects; `limit` a page size; `skip` an
//! offset; `fields` a field selection. Anything else (`$nor`, `$not`, `$elemMatch`, `$size`, `use_index`, `bookmark`, a `null` value, an empty group) is not modelled: the
//! body is not split, and the read is not answered from the state.

use rea_plugin_api::contracts::query::{
    BODY_FIELDS_TERM, QueryBodyRequest, QueryRole, QueryTerm, TermBranch,
};
use serde_json::{Map, Value};

/// The stage's name.
pub const MANGO_SELECTOR: &str = "mango-selector";

/// The `mango-selector` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct MangoSelector;

impl crate::BodyLanguage for MangoSelector {
    fn terms(&self, request: &QueryBodyRequest) -> Option<Vec<QueryTerm>> {
        body_terms(&request.body)
    }
}

/// The terms of a Mango query body (see the module docs).
fn body_terms(body: &Value) -> Option<Vec<QueryTerm>> {
    let body = body.as_object()?;
    let mut terms = Vec::new();
    let top = At {
        path: "selector".to_owned(),
        within: Vec::new(),
    };
    selector_terms(body.get("selector")?.as_object()?, &top, &mut terms)?;
    for (member, value) in body {
        let term = match member.as_str() {
            "selector" => continue,
            "sort" => sort_term(value)?,
            "limit" => QueryTerm::playing("limit", count(value)?, QueryRole::PageSize),
            "skip" => QueryTerm::playing("skip", count(value)?, QueryRole::Offset),
            "fields" => QueryTerm {
                name: BODY_FIELDS_TERM.to_owned(),
                value: list(value)?,
                roles: Vec::new(),
                within: Vec::new(),
            },
            _ => return None,
        };
        terms.push(term);
    }
    let mut names: Vec<&str> = terms.iter().map(|term| term.name.as_str()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    (names.len() == before).then_some(terms)
}

/// Where [`selector_terms`] is in a selector: the dotted path so far (`selector`,
/// `selector.$or.1`, `selector.$and.0`) and the disjunction branches entered.
struct At {
    path: String,
    within: Vec<TermBranch>,
}

/// The filter terms of a selector object, appended: a term outside every `$or` named
/// `selector.{field}.${op}`, one inside named by its path through the groups.
fn selector_terms(
    selector: &Map<String, Value>,
    at: &At,
    terms: &mut Vec<QueryTerm>,
) -> Option<()> {
    for (field, condition) in selector {
        if field == "$and" || field == "$or" {
            let parts = condition.as_array()?;
            if parts.is_empty() {
                return None;
            }
            for (index, part) in parts.iter().enumerate() {
                let mut within = at.within.clone();
                if field == "$or" {
                    let group = format!("{}.$or", at.path);
                    within.push(TermBranch::new(group, u32::try_from(index).ok()?));
                }
                let inner = At {
                    path: format!("{}.{field}.{index}", at.path),
                    within,
                };
                selector_terms(part.as_object()?, &inner, terms)?;
            }
            continue;
        }
        if field.starts_with('$') || field.is_empty() {
            return None;
        }
        let named = |term: QueryTerm| {
            if at.within.is_empty() {
                return term;
            }
            let name = term.name.replacen("selector", &at.path, 1);
            QueryTerm { name, ..term }.within(at.within.clone())
        };
        match condition {
            Value::Object(operators) => {
                for (operator, argument) in operators {
                    terms.push(named(operator_term(field, operator, argument)?));
                }
            }
            scalar => terms.push(named(filter_term(field, "eq", scalar_text(scalar)?))),
        }
    }
    Some(())
}

fn operator_term(field: &str, operator: &str, argument: &Value) -> Option<QueryTerm> {
    let op = match operator {
        "$eq" => "eq",
        "$ne" => "ne",
        "$gt" => "gt",
        "$gte" => "gte",
        "$lt" => "lt",
        "$lte" => "lte",
        "$regex" => {
            return Some(filter_term(field, "regex", argument.as_str()?.to_owned()));
        }
        "$in" | "$nin" | "$all" => {
            let items: Option<Vec<String>> = argument.as_array()?.iter().map(scalar_text).collect();
            let items = items?;
            if items.is_empty() || items.iter().any(|item| item.contains(',')) {
                return None;
            }
            return Some(filter_term(field, &operator[1..], items.join(",")));
        }
        _ => return None,
    };
    Some(filter_term(field, op, scalar_text(argument)?))
}

fn filter_term(field: &str, op: &str, value: String) -> QueryTerm {
    QueryTerm::playing(
        format!("selector.{field}.${op}"),
        value,
        QueryRole::filter(field, op),
    )
}

/// A sort array as one sort term (`-field` descending).
fn sort_term(value: &Value) -> Option<QueryTerm> {
    let mut keys = Vec::new();
    for key in value.as_array()? {
        let key = match key {
            Value::String(field) => field.clone(),
            Value::Object(object) => {
                let [(field, direction)] = object.iter().collect::<Vec<_>>()[..] else {
                    return None;
                };
                match direction.as_str()? {
                    "asc" => field.clone(),
                    "desc" => format!("-{field}"),
                    _ => return None,
                }
            }
            _ => return None,
        };
        if key.contains(',') {
            return None;
        }
        keys.push(key);
    }
    (!keys.is_empty()).then(|| QueryTerm::playing("sort", keys.join(","), QueryRole::Sort))
}

fn count(value: &Value) -> Option<String> {
    value.as_u64().map(|count| count.to_string())
}

/// An array of field names, comma-separated.
fn list(value: &Value) -> Option<String> {
    let names: Option<Vec<&str>> = value.as_array()?.iter().map(Value::as_str).collect();
    let names = names?;
    (!names.is_empty() && names.iter().all(|name| !name.contains(','))).then(|| names.join(","))
}

/// A scalar as the text the state's filters compare (`null`, arrays and objects are not).
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn split(body: Value) -> Option<Vec<(String, String, Vec<QueryRole>)>> {
        body_terms(&body).map(|terms| {
            terms
                .into_iter()
                .map(|term| (term.name, term.value, term.roles))
                .collect()
        })
    }

    #[test]
    fn a_selector_with_operators_sort_and_paging_is_split_into_roles() {
        let terms = split(json!({
            "selector": {"type": "book", "year": {"$gt": 1970, "$lte": 1999}, "genre": {"$in": ["sf", "fantasy"]}},
            "sort": [{"year": "desc"}, "title"],
            "limit": 3,
            "skip": 6,
            "fields": ["_id", "title"]
        }))
        .expect("a Mango body");
        assert_eq!(
            terms,
            vec![
                (
                    "selector.genre.$in".into(),
                    "sf,fantasy".into(),
                    vec![QueryRole::filter("genre", "in")]
                ),
                (
                    "selector.type.$eq".into(),
                    "book".into(),
                    vec![QueryRole::filter("type", "eq")]
                ),
                (
                    "selector.year.$gt".into(),
                    "1970".into(),
                    vec![QueryRole::filter("year", "gt")]
                ),
                (
                    "selector.year.$lte".into(),
                    "1999".into(),
                    vec![QueryRole::filter("year", "lte")]
                ),
                ("fields".into(), "_id,title".into(), vec![]),
                ("limit".into(), "3".into(), vec![QueryRole::PageSize]),
                ("skip".into(), "6".into(), vec![QueryRole::Offset]),
                ("sort".into(), "-year,title".into(), vec![QueryRole::Sort]),
            ]
        );
    }

    #[test]
    fn regex_and_all_are_read() {
        let terms =
            split(json!({"selector": {"title": {"$regex": "^The"}, "tags": {"$all": ["a", "b"]}}}))
                .expect("a Mango body");
        assert_eq!(
            terms,
            vec![
                (
                    "selector.tags.$all".into(),
                    "a,b".into(),
                    vec![QueryRole::filter("tags", "all")]
                ),
                (
                    "selector.title.$regex".into(),
                    "^The".into(),
                    vec![QueryRole::filter("title", "regex")]
                ),
            ]
        );
    }

    #[test]
    fn and_groups_and_flags_are_read() {
        let terms = split(json!({"selector": {"$and": [{"active": false}, {"age": {"$ne": 3}}]}}))
            .expect("a Mango body");
        assert_eq!(terms[0].1, "false");
        assert_eq!(terms[1].2, vec![QueryRole::filter("age", "ne")]);
    }

    #[test]
    fn an_or_group_puts_each_term_in_its_branch() {
        let body = json!({"selector": {"type": "book", "$or": [{"genre": "fantasy"},
            {"status": "withdrawn", "$or": [{"year": {"$lt": 1970}}, {"pages": {"$gte": 400}}]}],
            "$and": [{"$or": [{"genre": "sf"}, {"genre": "horror"}]}]}});
        let terms = body_terms(&body).expect("a Mango body");
        let seen: Vec<(&str, &str, &[TermBranch])> = terms
            .iter()
            .map(|term| {
                (
                    term.name.as_str(),
                    term.value.as_str(),
                    term.within.as_slice(),
                )
            })
            .collect();
        let or = |group: &str, branch| TermBranch::new(group, branch);
        assert_eq!(
            seen,
            vec![
                (
                    "selector.$and.0.$or.0.genre.$eq",
                    "sf",
                    &[or("selector.$and.0.$or", 0)][..]
                ),
                (
                    "selector.$and.0.$or.1.genre.$eq",
                    "horror",
                    &[or("selector.$and.0.$or", 1)][..]
                ),
                (
                    "selector.$or.0.genre.$eq",
                    "fantasy",
                    &[or("selector.$or", 0)][..]
                ),
                (
                    "selector.$or.1.$or.0.year.$lt",
                    "1970",
                    &[or("selector.$or", 1), or("selector.$or.1.$or", 0)][..]
                ),
                (
                    "selector.$or.1.$or.1.pages.$gte",
                    "400",
                    &[or("selector.$or", 1), or("selector.$or.1.$or", 1)][..]
                ),
                (
                    "selector.$or.1.status.$eq",
                    "withdrawn",
                    &[or("selector.$or", 1)][..]
                ),
                ("selector.type.$eq", "book", &[][..]),
            ]
        );
        assert_eq!(terms[0].roles, vec![QueryRole::filter("genre", "eq")]);
        assert_eq!(terms[4].roles, vec![QueryRole::filter("pages", "gte")]);
    }

    #[test]
    fn what_the_language_holds_beyond_the_model_is_not_split() {
        for body in [
            json!({"selector": {"$nor": [{"a": 1}, {"b": 2}]}}),
            json!({"selector": {"$or": []}}),
            json!({"selector": {"$or": [{"a": 1}, {"b": {"$size": 2}}]}}),
            json!({"selector": {"title": {"$regex": 1}}}),
            json!({"selector": {"tags": {"$all": []}}}),
            json!({"selector": {"tags": {"$elemMatch": {"$eq": "x"}}}}),
            json!({"selector": {"a": null}}),
            json!({"selector": {"a": 1}, "use_index": "idx"}),
            json!({"selector": {"a": {"$in": ["x,y"]}}}),
            json!({"selector": {"$and": [{"a": 1}, {"a": 2}]}}),
            json!({"sort": ["a"]}),
            json!({"keys": ["a"]}),
            json!([1]),
        ] {
            assert!(split(body.clone()).is_none(), "{body}");
        }
    }
}
