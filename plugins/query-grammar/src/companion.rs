//! Operator companions: a field's parameter compared by the operator word another parameter of
//! the same call holds, that companion named as the field's parameter and an affix
//! (`priority=2&priority__operator=gte`, `title=Paint&title__match=starts`; one app: PiccoloCRUD).
//! `field-affixes` splits both (`split`): the field's parameter into one filter term with the
//! companion's operator (named `priority[gte]`, so each operator is a term of its own), the
//! companion into no term; a companion naming a presence test (`due__operator=is_null`, an operator
//! taking no value) is the term itself, its value `true`.
//!
//! The affix is read from the call, never named here: a companion's name is another parameter of
//! the call (or a field the entities hold, or, for a presence test while serving, where no fields
//! are given, any name) followed by separator characters (`_`, `.`, `:`, `-`) and one word, and its
//! value an operator word of the shared vocabulary (`query_fields::operator_word`). An affix a
//! list established (a recorded companion whose term the list kept) is proposed on every field of
//! every list (`apply`), so a sibling list takes the companions its recordings never named.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::query::{ListQueries, QueryExpressionRequest, QueryRole, QueryTerm};
use rea_plugin_api::query_fields::operator_word;

/// The operators that test a field's presence and take no value.
const PRESENCE_TESTS: [&str; 2] = ["null", "nnull"];

/// The terms of one parameter of a call holding operator companions; `None` when the parameter
/// is neither a companion nor the parameter a companion compares.
pub fn terms(request: &QueryExpressionRequest) -> Option<Vec<QueryTerm>> {
    if let Some((base, op)) = companion(&request.name, &request.value, request) {
        if PRESENCE_TESTS.contains(&op) {
            return Some(vec![term(base, op, "true")]);
        }
        // The compared parameter carries the comparison: the companion is no term of its own.
        return names(request, base).then(Vec::new);
    }
    let op = request.call.iter().find_map(|(name, value)| {
        let (base, op) = companion(name, value, request)?;
        (base == request.name && !PRESENCE_TESTS.contains(&op)).then_some(op)
    })?;
    Some(vec![term(&request.name, op, &request.value)])
}

/// The companion affixes some list established (`__operator`): a recorded name that is a field
/// and an affix ([`affixed_base`]) where the list established a companion term on that field
/// (`priority[gte]`), the name less the field.
pub fn established_affixes<'a>(lists: impl Iterator<Item = &'a ListQueries>) -> BTreeSet<String> {
    let mut affixes = BTreeSet::new();
    for list in lists {
        for name in &list.recorded_names {
            let Some(base) = affixed_base(name) else {
                continue;
            };
            let companion_term = list.established.iter().any(|(term, role)| {
                matches!(role, QueryRole::Filter { field, op } if field == base && *term == format!("{field}[{op}]"))
            });
            if companion_term {
                affixes.insert(name[base.len()..].to_owned());
            }
        }
    }
    affixes
}

/// Proposes each established companion affix on every plain field of a list (`email__operator`
/// on the people once the tasks established `due__operator`): a name the call's split reads, so
/// it plays no role of its own (`inert`).
pub fn propose(
    affixes: &BTreeSet<String>,
    list: &ListQueries,
    names: &mut BTreeMap<String, QueryRole>,
) {
    for field in list.fields.iter().filter(|field| !field.contains('.')) {
        for affix in affixes {
            let name = format!("{field}{affix}");
            if !list.recorded_names.contains(&name) && !list.established.contains_key(&name) {
                names
                    .entry(name)
                    .or_insert(QueryRole::Inert { values: Vec::new() });
            }
        }
    }
}

/// The filter term comparing `field` by `op`.
fn term(field: &str, op: &str, value: &str) -> QueryTerm {
    QueryTerm::playing(
        format!("{field}[{op}]"),
        value,
        QueryRole::filter(field, op),
    )
}

/// Whether the call names a parameter `name`.
fn names(request: &QueryExpressionRequest, name: &str) -> bool {
    request.call.iter().any(|(other, _)| other == name)
}

/// The parameter a companion (`name=value`) compares and the operator its value names; `None`
/// when the value is no operator word or the name is no known parameter or field and an affix.
fn companion<'a>(
    name: &'a str,
    value: &str,
    request: &QueryExpressionRequest,
) -> Option<(&'a str, &'static str)> {
    let op = operator_word(value)?;
    let base = affixed_base(name)?;
    let known = names(request, base)
        || request.fields.iter().any(|field| field == base)
        || (request.fields.is_empty() && PRESENCE_TESTS.contains(&op));
    known.then_some((base, op))
}

/// A name less its last word and the separator characters before it (`priority` for
/// `priority__operator`); `None` when no separator precedes a last word, or nothing precedes the
/// separator.
fn affixed_base(name: &str) -> Option<&str> {
    let word_start = name
        .rfind(|character: char| !character.is_ascii_alphanumeric())
        .map(|index| index + 1)?;
    let base = name[..word_start].trim_end_matches(['_', '.', ':', '-']);
    let separated = base.len() < word_start && word_start < name.len();
    let plain = base
        .chars()
        .last()
        .is_some_and(|character| character.is_ascii_alphanumeric());
    (separated && plain).then_some(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(
        name: &str,
        value: &str,
        call: &[(&str, &str)],
        fields: &[&str],
    ) -> QueryExpressionRequest {
        QueryExpressionRequest {
            name: name.to_owned(),
            value: value.to_owned(),
            fields: fields.iter().map(|field| (*field).to_owned()).collect(),
            call: call
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
            schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        }
    }

    #[test]
    fn a_field_parameter_takes_its_companions_operator_and_the_companion_is_no_term() {
        let call = [
            ("priority", "2"),
            ("priority__operator", "gte"),
            ("status", "open"),
        ];
        let split = terms(&request("priority", "2", &call, &[])).expect("compared");
        assert_eq!(
            split,
            vec![QueryTerm::playing(
                "priority[gte]",
                "2",
                QueryRole::filter("priority", "gte")
            )]
        );
        assert_eq!(
            terms(&request("priority__operator", "gte", &call, &[])),
            Some(vec![])
        );
        assert_eq!(terms(&request("status", "open", &call, &[])), None);
        let matched = [("title", "Paint"), ("title.match", "startswith")];
        assert_eq!(
            terms(&request("title", "Paint", &matched, &[])),
            Some(vec![QueryTerm::playing(
                "title[starts]",
                "Paint",
                QueryRole::filter("title", "starts")
            )])
        );
    }

    #[test]
    fn a_presence_test_is_a_term_by_itself_where_its_field_is_known() {
        let call = [("due__operator", "isnull")];
        let expected = vec![QueryTerm::playing(
            "due[null]",
            "true",
            QueryRole::filter("due", "null"),
        )];
        assert_eq!(
            terms(&request("due__operator", "isnull", &call, &["due"])),
            Some(expected.clone())
        );
        // Serving (no fields given): the name's structure says it.
        assert_eq!(
            terms(&request("due__operator", "isnull", &call, &[])),
            Some(expected)
        );
        // Learning: a name over no held field is no companion.
        assert_eq!(
            terms(&request("due__operator", "isnull", &call, &["title"])),
            None
        );
    }

    #[test]
    fn an_established_affix_is_proposed_on_every_field_of_every_list() {
        let tasks = ListQueries {
            recorded_names: vec![
                "priority".into(),
                "priority__operator".into(),
                "title".into(),
            ],
            established: BTreeMap::from([
                (
                    "priority[gte]".to_owned(),
                    QueryRole::filter("priority", "gte"),
                ),
                ("title".to_owned(), QueryRole::filter("title", "like")),
            ]),
            ..ListQueries::default()
        };
        let affixes = established_affixes([&tasks].into_iter());
        assert_eq!(affixes, BTreeSet::from(["__operator".to_owned()]));
        let people = ListQueries {
            fields: vec!["email".into(), "meta.role".into()],
            ..ListQueries::default()
        };
        let mut names = BTreeMap::new();
        propose(&affixes, &people, &mut names);
        assert_eq!(
            names,
            BTreeMap::from([(
                "email__operator".to_owned(),
                QueryRole::Inert { values: Vec::new() }
            )])
        );
    }

    #[test]
    fn values_that_are_no_operator_and_names_without_an_affix_are_not_companions() {
        let call = [("status", "in"), ("sort", "gte"), ("priority_x", "done")];
        for (name, value) in call {
            assert_eq!(
                terms(&request(name, value, &call, &["status", "priority"])),
                None
            );
        }
        assert_eq!(affixed_base("__order"), None);
        assert_eq!(affixed_base("created_at__operator"), Some("created_at"));
        assert_eq!(affixed_base("title"), None);
        assert_eq!(affixed_base("title__"), None);
    }
}
