//! `kv-range`: the request body of a key-value store's range read (etcd v3's `kv/range` over
//! its JSON gateway: `{"key": …, "range_end": …, "limit": n, "sort_order": …, "sort_target": …,
//! "keys_only": true}`, keys and values base64) as terms the state engine evaluates over the
//! listed key-value pairs, whose `key` and `value` it compares as the decoded bytes.
//!
//! * `key` alone reads that one key (equality); with `range_end` the keys from `key` (included)
//!   to `range_end` (excluded); a `range_end` of the single byte `\0` every key from `key` on.
//! * `limit` (a count; `0` is no limit) is a page size.
//! * Without a sort order the pairs are listed by key, ascending (the store's order); `sort_order`
//!   `ASCEND`/`DESCEND` (or `NONE`) sorts by `sort_target` `KEY` or `VALUE` (ties by key).
//! * `keys_only` selects every field but `value`; `count_only` lists nothing but the count;
//!   `serializable` changes nothing listed.
//!
//! Anything else (a historical `revision`, the `min_`/`max_` revision filters,
//! a sort by version or revision, a key that is not canonical base64) is not modelled: the body
//! is not split, and the read is not answered from the state.

use rea_plugin_api::contracts::capture::base64;
use rea_plugin_api::contracts::query::{
    BASE64_ENCODING, BODY_COUNT_ONLY_TERM, BODY_FIELDS_TERM, QueryBodyRequest, QueryRole, QueryTerm,
};
use serde_json::Value;

/// The stage's name.
pub const KV_RANGE: &str = "kv-range";

/// The body member naming the key, and the listed pairs' member holding it.
const KEY: &str = "key";

/// The listed pairs' member holding the value.
const VALUE: &str = "value";

/// The `kv-range` query grammar stage.
#[derive(Debug, Clone, Copy, Default)]
pub struct KvRange;

impl crate::BodyLanguage for KvRange {
    fn terms(&self, request: &QueryBodyRequest) -> Option<Vec<QueryTerm>> {
        body_terms(&request.body, &request.fields)
    }

    fn encoded_fields(&self) -> (&'static [&'static str], &'static str) {
        (&[KEY, VALUE], BASE64_ENCODING)
    }
}

/// The terms of a range body (see the module docs); `fields` are the listed pairs' fields.
fn body_terms(body: &Value, fields: &[String]) -> Option<Vec<QueryTerm>> {
    let body = body.as_object()?;
    bytes(body.get(KEY)?)?;
    let mut terms = Vec::new();
    let mut sort_order = "NONE";
    let mut sort_target = "KEY";
    for (member, value) in body {
        match member.as_str() {
            "key" => {}
            "range_end" => {
                let end = bytes(value)?;
                let text = value.as_str()?.to_owned();
                terms.push(QueryTerm::playing(
                    KEY,
                    body.get(KEY)?.as_str()?,
                    QueryRole::filter(KEY, "gte"),
                ));
                if end != [0] {
                    terms.push(QueryTerm::playing(
                        "range_end",
                        text,
                        QueryRole::filter(KEY, "lt"),
                    ));
                }
            }
            "limit" => match count(value)? {
                0 => {}
                limit => terms.push(QueryTerm::playing(
                    "limit",
                    limit.to_string(),
                    QueryRole::PageSize,
                )),
            },
            "sort_order" => sort_order = value.as_str()?,
            "sort_target" => sort_target = value.as_str()?,
            "keys_only" => {
                if value.as_bool()? {
                    terms.push(keys_only_term(fields)?);
                }
            }
            "serializable" => {
                value.as_bool()?;
            }
            "count_only" => {
                if value.as_bool()? {
                    terms.push(QueryTerm {
                        name: BODY_COUNT_ONLY_TERM.to_owned(),
                        value: "true".to_owned(),
                        roles: Vec::new(),
                        within: Vec::new(),
                    });
                }
            }
            _ => return None,
        }
    }
    if !body.contains_key("range_end") {
        terms.push(QueryTerm::playing(
            KEY,
            body.get(KEY)?.as_str()?,
            QueryRole::filter(KEY, "eq"),
        ));
    }
    terms.push(QueryTerm::playing(
        "sort",
        sort_keys(sort_order, sort_target)?,
        QueryRole::Sort,
    ));
    Some(terms)
}

/// The field selection `keys_only` asks for: every listed field but the value (`None` when
/// nothing is left).
fn keys_only_term(fields: &[String]) -> Option<QueryTerm> {
    let kept: Vec<&str> = fields
        .iter()
        .map(String::as_str)
        .filter(|field| *field != VALUE)
        .collect();
    if kept.is_empty() {
        return None;
    }
    Some(QueryTerm {
        name: BODY_FIELDS_TERM.to_owned(),
        value: kept.join(","),
        roles: Vec::new(),
        within: Vec::new(),
    })
}

/// The sort term's value: by key unless an order names another target (`-` descending).
fn sort_keys(order: &str, target: &str) -> Option<String> {
    let field = match target {
        "KEY" => KEY,
        "VALUE" => VALUE,
        _ => return None,
    };
    Some(match order {
        "NONE" => KEY.to_owned(),
        "ASCEND" if field == KEY => KEY.to_owned(),
        "ASCEND" => format!("{field},{KEY}"),
        "DESCEND" if field == KEY => format!("-{KEY}"),
        "DESCEND" => format!("-{field},{KEY}"),
        _ => return None,
    })
}

/// The bytes a base64 member spells (non-empty).
fn bytes(value: &Value) -> Option<Vec<u8>> {
    let decoded = base64::decode(value.as_str()?).ok()?;
    (!decoded.is_empty()).then_some(decoded)
}

/// A count, as a JSON number or the decimal text the gateway also reads.
fn count(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => text.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::BodyLanguage;

    fn terms(body: Value) -> Option<Vec<(String, String, Option<QueryRole>)>> {
        let request = QueryBodyRequest {
            body,
            fields: ["create_revision", "key", "mod_revision", "value", "version"]
                .map(str::to_owned)
                .to_vec(),
            object_lists: Vec::new(),
            schema_version: 1,
        };
        KvRange.terms(&request).map(|terms| {
            terms
                .into_iter()
                .map(|term| (term.name, term.value, term.roles.into_iter().next()))
                .collect()
        })
    }

    fn term(
        name: &str,
        value: &str,
        role: Option<QueryRole>,
    ) -> (String, String, Option<QueryRole>) {
        (name.to_owned(), value.to_owned(), role)
    }

    #[test]
    fn one_key_is_an_equality_listed_by_key() {
        assert_eq!(
            terms(json!({"key": "YXBwL293bmVy"})).unwrap(),
            vec![
                term("key", "YXBwL293bmVy", Some(QueryRole::filter("key", "eq"))),
                term("sort", "key", Some(QueryRole::Sort)),
            ]
        );
    }

    #[test]
    fn a_range_pages_sorts_and_selects() {
        let read = terms(
            json!({"key": "YXBwLw==", "range_end": "YXBwMA==", "limit": 2,
            "sort_order": "DESCEND", "sort_target": "VALUE", "keys_only": true}),
        )
        .unwrap();
        assert_eq!(
            read,
            vec![
                term(
                    BODY_FIELDS_TERM,
                    "create_revision,key,mod_revision,version",
                    None
                ),
                term("limit", "2", Some(QueryRole::PageSize)),
                term("key", "YXBwLw==", Some(QueryRole::filter("key", "gte"))),
                term(
                    "range_end",
                    "YXBwMA==",
                    Some(QueryRole::filter("key", "lt"))
                ),
                term("sort", "-value,key", Some(QueryRole::Sort)),
            ]
        );
        // A range end of the byte 0 is every key from `key` on; a limit of 0 is none.
        assert_eq!(
            terms(json!({"key": "AA==", "range_end": "AA==", "limit": "0"})).unwrap(),
            vec![
                term("key", "AA==", Some(QueryRole::filter("key", "gte"))),
                term("sort", "key", Some(QueryRole::Sort)),
            ]
        );
    }

    #[test]
    fn what_the_language_does_not_model_is_not_split() {
        for body in [
            json!({"key": "app/env"}),
            json!({"range_end": "AA=="}),
            json!({"key": "YXBwLw==", "revision": 2}),
            json!({"key": "YXBwLw==", "sort_order": "SIDEWAYS"}),
            json!({"key": "YXBwLw==", "sort_order": "ASCEND", "sort_target": "MOD"}),
            json!({"key": "YXBwLw==", "value": "eA=="}),
        ] {
            assert_eq!(terms(body.clone()), None, "{body}");
        }
    }

    #[test]
    fn count_only_asks_for_the_count() {
        assert_eq!(
            terms(json!({"key": "AA==", "range_end": "AA==", "count_only": true})).unwrap(),
            vec![
                term(BODY_COUNT_ONLY_TERM, "true", None),
                term("key", "AA==", Some(QueryRole::filter("key", "gte"))),
                term("sort", "key", Some(QueryRole::Sort)),
            ]
        );
    }

    #[test]
    fn keys_and_values_are_declared_base64() {
        assert_eq!(KvRange.encoded_fields(), (&["key", "value"][..], "base64"));
    }
}
