//! A condition spelled in one parameter value as a field, an operator word and a value between a
//! repeated delimiter (@nestjsx/crud's `filter=status||$eq||todo`, `filter=priority||$in||1,3`,
//! `filter=due||$isnull`): read as the term of its bracket spelling, `filter[status][$eq]`
//! holding the value (a presence test, with no value, `true`), playing the filter its field and
//! operator word name. Each repeated parameter is one condition, so the conditions of a call hold
//! together (a conjunction), as the bracket terms of one query do.
//!
//! The delimiter is a run of two or more of one punctuation character (`||`, `::`) after a field
//! that is a plain name (letters, digits, `_`, `-`, a dotted path); the operator is a word
//! [`operator_word`] knows, its sigil kept in the term's name. A value without such a delimiter,
//! an operator no word spells, a presence test given a value, a comparison given none, or a
//! parameter naming a logical group (`or=`, whose conditions hold as alternatives to the
//! others') is not split, and the call is not evaluated through this language.

use rea_plugin_api::contracts::query::QueryTerm;
use rea_plugin_api::query_fields::operator_word;

use crate::filter_list::{compared_roles, is_group_word};

/// The term of the parameter `name` whose value is one delimited condition (see the module
/// docs); `None` when it is not one.
pub fn terms(name: &str, value: &str) -> Option<Vec<QueryTerm>> {
    if is_group_word(name.trim_start_matches(['$', '_'])) {
        return None;
    }
    let delimiter = delimiter(value)?;
    let mut parts = value.splitn(3, delimiter.as_str());
    let (field, word) = (parts.next()?, parts.next()?);
    let operand = parts.next();
    if !plain_field(field) {
        return None;
    }
    let op = operator_word(word)?;
    let presence = matches!(op, "null" | "nnull");
    let value = match (operand, presence) {
        (None, true) => "true".to_owned(),
        (Some(operand), false) => operand.to_owned(),
        _ => return None,
    };
    let roles = compared_roles(field, word);
    (!roles.is_empty()).then(|| {
        vec![QueryTerm {
            name: format!("{name}[{field}][{word}]"),
            value,
            roles,
            within: Vec::new(),
        }]
    })
}

/// The first run of two or more of one ASCII punctuation character in the value.
fn delimiter(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let start = bytes
        .windows(2)
        .position(|pair| pair[0] == pair[1] && pair[0].is_ascii_punctuation())?;
    let run = bytes[start..]
        .iter()
        .take_while(|byte| **byte == bytes[start])
        .count();
    Some(value[start..start + run].to_owned())
}

/// Whether a field is a plain name or a dotted path of them.
fn plain_field(field: &str) -> bool {
    !field.is_empty()
        && field.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|character| character.is_alphanumeric() || matches!(character, '_' | '-'))
        })
}

#[cfg(test)]
mod tests {
    use rea_plugin_api::contracts::query::QueryRole;

    use super::*;

    #[test]
    fn a_delimited_condition_is_the_term_of_its_bracket_spelling() {
        let read = |value: &str| {
            let terms = terms("filter", value).expect("a delimited condition");
            let [term] = terms.as_slice() else {
                panic!("one term: {terms:?}");
            };
            (term.name.clone(), term.value.clone(), term.roles.clone())
        };
        assert_eq!(
            read("status||$eq||todo"),
            (
                "filter[status][$eq]".to_owned(),
                "todo".to_owned(),
                vec![QueryRole::filter("status", "eq")]
            )
        );
        assert_eq!(
            read("priority||$in||1,3").2,
            [QueryRole::filter("priority", "in")]
        );
        assert_eq!(
            read("title||$cont||the || end").1,
            "the || end",
            "the value keeps what follows"
        );
        let (name, value, roles) = read("due||$isnull");
        assert_eq!(
            (name.as_str(), value.as_str()),
            ("filter[due][$isnull]", "true")
        );
        assert_eq!(roles, [QueryRole::filter("due", "null")]);
        assert_eq!(
            read("project.code::eq::OPS").2,
            [QueryRole::filter("project.code", "eq")]
        );
    }

    #[test]
    fn what_is_not_one_delimited_condition_is_not_split() {
        for value in [
            "todo",
            "status|$eq|todo",
            "status||$sometimes||todo",
            "status||$eq",
            "due||$isnull||true",
            "a b||$eq||1",
            "||$eq||1",
        ] {
            assert_eq!(terms("filter", value), None, "{value}");
        }
        assert_eq!(terms("or", "status||$eq||todo"), None, "a logical group");
    }
}
