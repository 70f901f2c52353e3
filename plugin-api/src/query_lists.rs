//! List names: a query name ending in an empty bracket pair (`status[$in][]`, `$select[]`), the
//! spelling qs and PHP give an array, whose repeated values form one list. The state reads such a
//! name as the name before the empty pair holding the comma-separated list of its values
//! (`status[$in][]=a&status[$in][]=b` as `status[$in]=a,b`): the same list a comma-separated value
//! forms, so a learned `in`/`nin` filter or a field selection reads either spelling alike.
//!
//! A list holding a value with a comma cannot be told from the comma list and is left as it was
//! (a repeated name, which the state never models).

/// The name before a list name's trailing empty bracket pair (`status[$in]` for `status[$in][]`);
/// `None` for another name (no trailing `[]`, or nothing before it).
pub fn list_base(name: &str) -> Option<&str> {
    name.strip_suffix("[]").filter(|base| !base.is_empty())
}

/// One list name's values as the single pair the state reads (see the module docs): the base
/// name and the values joined by commas; `None` for another name, no value, or a value holding a
/// comma.
pub fn folded_list(name: &str, values: &[String]) -> Option<(String, String)> {
    let base = list_base(name)?;
    (!values.is_empty() && !values.iter().any(|value| value.contains(',')))
        .then(|| (base.to_owned(), values.join(",")))
}

/// Query pairs with each list name's values folded into one pair at its first place (see
/// [`folded_list`]); every other pair, and a list that cannot fold, as it was.
pub fn fold_list_names(pairs: &[(String, String)]) -> Vec<(String, String)> {
    let mut folded = Vec::with_capacity(pairs.len());
    let mut done: Vec<&str> = Vec::new();
    for (name, value) in pairs {
        if done.contains(&name.as_str()) {
            continue;
        }
        let values: Vec<String> = match list_base(name) {
            Some(_) => pairs
                .iter()
                .filter(|(other, _)| other == name)
                .map(|(_, value)| value.clone())
                .collect(),
            None => Vec::new(),
        };
        match folded_list(name, &values) {
            Some(pair) => {
                done.push(name);
                folded.push(pair);
            }
            None => folded.push((name.clone(), value.clone())),
        }
    }
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn a_repeated_list_name_folds_into_one_comma_list_at_its_first_place() {
        assert_eq!(
            fold_list_names(&pairs(&[
                ("status[$in][]", "todo"),
                ("$limit", "3"),
                ("status[$in][]", "doing"),
            ])),
            pairs(&[("status[$in]", "todo,doing"), ("$limit", "3")])
        );
        assert_eq!(
            fold_list_names(&pairs(&[("$select[]", "title")])),
            pairs(&[("$select", "title")])
        );
    }

    #[test]
    fn other_names_and_lists_holding_a_comma_stay_as_they_were() {
        let kept = pairs(&[("tag", "a"), ("tag", "b"), ("[]", "x"), ("ids[]", "1,2")]);
        assert_eq!(fold_list_names(&kept), kept);
        assert_eq!(list_base("ids[]"), Some("ids"));
        assert_eq!(list_base("ids"), None);
        assert_eq!(folded_list("ids[]", &[]), None);
    }
}
