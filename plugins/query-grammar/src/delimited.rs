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
//! an operator no word spells, a presence test given a value, or a comparison given none is not
//! split, and the call is not evaluated through this language.
//!
//! A parameter naming a logical group (`or=`) holds conditions that are alternatives
//! ([`terms_in_call`]): beside other conditions (`filter=status||$eq||doing&or=priority||$eq||1`)
//! the group's one condition is the second branch of a disjunction whose first is the others'
//! conjunction; alone (`or=status||$eq||done&or=projectId||$eq||3`) each of its conditions is a
//! branch. Several group conditions beside others (whose reading, one branch or many, no
//! answer tells) are not split.

use rea_plugin_api::contracts::query::{QueryTerm, TermBranch};
use rea_plugin_api::query_fields::operator_word;

use crate::filter_list::{compared_roles, is_group_word};

/// The term of the parameter `name` whose value is one delimited condition (see the module
/// docs); `None` when it is not one, or `name` names a logical group.
pub fn terms(name: &str, value: &str) -> Option<Vec<QueryTerm>> {
    if names_group(name) {
        return None;
    }
    condition(name, value).map(|term| vec![term])
}

/// Whether a parameter name is a logical group word (`or`, `$or`, `_and`).
fn names_group(name: &str) -> bool {
    is_group_word(name.trim_start_matches(['$', '_']))
}

/// The term of the parameter `name` in its call (every pair as sent): as [`terms`] where the
/// call's delimited conditions name no group, else in its branch of the group's disjunction (see
/// the module docs), the group's terms named by their branch (`or[1][priority][$eq]`).
pub fn terms_in_call(name: &str, value: &str, call: &[(String, String)]) -> Option<Vec<QueryTerm>> {
    let conditions: Vec<&(String, String)> = call
        .iter()
        .filter(|(name, value)| condition(name, value).is_some())
        .collect();
    let mut groups: Vec<&str> = conditions
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| names_group(name))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    let [group] = groups.as_slice() else {
        return if groups.is_empty() {
            terms(name, value)
        } else {
            None
        };
    };
    let grouped: Vec<&str> = conditions
        .iter()
        .filter(|(sent, _)| sent == group)
        .map(|(_, value)| value.as_str())
        .collect();
    let others = conditions.len() > grouped.len();
    let branch = match (name == *group, others) {
        (false, _) => 0,
        (true, true) if grouped.len() == 1 => 1,
        (true, true) => return None,
        (true, false) => grouped.iter().position(|sent| *sent == value)? as u32,
    };
    let spelled = if name == *group {
        format!("{name}[{branch}]")
    } else {
        name.to_owned()
    };
    let term = condition(&spelled, value)?;
    Some(vec![term.within(vec![TermBranch::new(*group, branch)])])
}

/// The term of one delimited condition, named by `name` (see the module docs).
fn condition(name: &str, value: &str) -> Option<QueryTerm> {
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
    (!roles.is_empty()).then(|| QueryTerm {
        name: format!("{name}[{field}][{word}]"),
        value,
        roles,
        within: Vec::new(),
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

    fn call(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    /// The term's name and its branch of the `or` group, the parameter read in its call.
    fn branch_of(name: &str, value: &str, pairs: &[(&str, &str)]) -> Option<(String, u32)> {
        let terms = terms_in_call(name, value, &call(pairs))?;
        let [term] = terms.as_slice() else {
            panic!("one term: {terms:?}");
        };
        let [branch] = term.within.as_slice() else {
            panic!("one branch: {term:?}");
        };
        assert_eq!(branch.group, "or");
        Some((term.name.clone(), branch.branch))
    }

    #[test]
    fn an_or_condition_is_the_alternative_to_the_others_or_to_each_other() {
        let beside = [("filter", "status||$eq||doing"), ("or", "priority||$eq||1")];
        assert_eq!(
            branch_of("filter", "status||$eq||doing", &beside),
            Some(("filter[status][$eq]".to_owned(), 0))
        );
        assert_eq!(
            branch_of("or", "priority||$eq||1", &beside),
            Some(("or[1][priority][$eq]".to_owned(), 1))
        );
        let alone = [("or", "status||$eq||done"), ("or", "projectId||$eq||3")];
        assert_eq!(
            branch_of("or", "projectId||$eq||3", &alone),
            Some(("or[1][projectId][$eq]".to_owned(), 1))
        );
        assert_eq!(
            branch_of("or", "status||$eq||done", &alone),
            Some(("or[0][status][$eq]".to_owned(), 0))
        );
        // Two alternatives beside other conditions: one branch or two, no answer tells.
        let both = [
            ("filter", "status||$eq||doing"),
            ("or", "priority||$eq||1"),
            ("or", "projectId||$eq||3"),
        ];
        assert_eq!(branch_of("or", "priority||$eq||1", &both), None);
        // Without a group the call's conditions are a conjunction, as `terms` reads them.
        let plain = call(&[("filter", "status||$eq||doing")]);
        assert_eq!(
            terms_in_call("filter", "status||$eq||doing", &plain),
            terms("filter", "status||$eq||doing")
        );
    }
}
