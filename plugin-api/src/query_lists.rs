//! List names: a query name ending in an empty bracket pair (`status[$in][]`, `$select[]`), the
//! spelling qs and PHP give an array, whose repeated values form one list. The state reads such a
//! name as the name before the empty pair holding the comma-separated list of its values
//! (`status[$in][]=a&status[$in][]=b` as `status[$in]=a,b`): the same list a comma-separated value
//! forms, so a learned `in`/`nin` filter or a field selection reads either spelling alike.
//!
//! qs's other array spelling, an indexed name (`status[inq][0]=a&status[inq][1]=b`,
//! `order[0]=title`), folds the same way when its indexes run 0, 1, … in order, each once.
//!
//! A field selection spelled as flags (`filter[fields][title]=true&filter[fields][status]=true`,
//! each field a member set to `true`) folds into the selection's comma list
//! (`filter[fields]=title,status`) where the caller reads the name before the flags as a
//! selection ([`fold_flags`]).
//!
//! A repeated name ending in a set operator word (`filter{status.in}=a&filter{status.in}=b`,
//! `status__in=a&status__in=b`) folds the same way, under its own name.
//!
//! A list holding a value with a comma cannot be told from the comma list and is left as it was
//! (a repeated name, which the state never models).

/// The name before a list name's trailing empty bracket pair (`status[$in]` for `status[$in][]`);
/// `None` for another name (no trailing `[]`, or nothing before it).
pub fn list_base(name: &str) -> Option<&str> {
    name.strip_suffix("[]").filter(|base| !base.is_empty())
}

/// The name a repeated name's values fold under: a list name's base ([`list_base`]), or a name
/// ending in a set operator word (`in`, `nin`: dynamic-rest's repeated
/// `filter{status.in}=a&filter{status.in}=b`, `status__in`) itself.
fn fold_base(name: &str) -> Option<&str> {
    list_base(name).or_else(|| names_set_operator(name).then_some(name))
}

/// Whether a name's last word, after a dot, a colon, a double underscore or an opening bracket or
/// brace (a closing one after it), spells a set operator (`filter{status.in}`, `status__in`,
/// `status[$nin]`), with something before it.
fn names_set_operator(name: &str) -> bool {
    let inner = name.strip_suffix([']', '}']).unwrap_or(name);
    let at = [".", ":", "__", "[", "{"]
        .iter()
        .filter_map(|separator| inner.rfind(separator).map(|at| at + separator.len()))
        .max();
    at.is_some_and(|at| {
        at > 1
            && matches!(
                crate::query_fields::operator_word(&inner[at..]),
                Some("in" | "nin")
            )
    })
}

/// One list name's values as the single pair the state reads (see the module docs): the base
/// name and the values joined by commas; `None` for another name, no value, or a value holding a
/// comma.
pub fn folded_list(name: &str, values: &[String]) -> Option<(String, String)> {
    let base = fold_base(name)?;
    (!values.is_empty() && !values.iter().any(|value| value.contains(',')))
        .then(|| (base.to_owned(), values.join(",")))
}

/// The name before an indexed name's trailing bracketed index, and the index (`order` and 1 for
/// `order[1]`); `None` for another name (no trailing `[digits]`, or nothing before it).
pub fn indexed_base(name: &str) -> Option<(&str, usize)> {
    let (base, index) = name.strip_suffix(']')?.rsplit_once('[')?;
    let plain = !index.is_empty() && index.bytes().all(|byte| byte.is_ascii_digit());
    (plain && !base.is_empty())
        .then(|| index.parse().ok().map(|index| (base, index)))
        .flatten()
}

/// Arguments (name and values) with each indexed name's run folded into one argument at its
/// first place (see the module docs): the base name holding the comma list of the values of
/// `base[0]`, `base[1]`, … in index order, when the indexes run from 0 with none missing or twice
/// and each holds one value with no comma. Every other argument, and a run that cannot fold, as
/// it was.
pub fn fold_indexed(arguments: Vec<(String, Vec<String>)>) -> Vec<(String, Vec<String>)> {
    let mut runs: Vec<(&str, Vec<(usize, &str)>)> = Vec::new();
    let mut broken: Vec<&str> = Vec::new();
    for (name, values) in &arguments {
        let Some((base, index)) = indexed_base(name) else {
            continue;
        };
        match values.as_slice() {
            [value] if !value.contains(',') => {
                match runs.iter_mut().find(|(known, _)| *known == base) {
                    Some((_, items)) => items.push((index, value)),
                    None => runs.push((base, vec![(index, value.as_str())])),
                }
            }
            _ => broken.push(base),
        }
    }
    let lists: Vec<(&str, String)> = runs
        .into_iter()
        .filter(|(base, _)| !broken.contains(base))
        .filter_map(|(base, mut items)| {
            items.sort_by_key(|(index, _)| *index);
            let counted = items
                .iter()
                .enumerate()
                .all(|(at, (index, _))| at == *index);
            counted.then(|| {
                let values: Vec<&str> = items.iter().map(|(_, value)| *value).collect();
                (base, values.join(","))
            })
        })
        .collect();
    let mut folded: Vec<(String, Vec<String>)> = Vec::with_capacity(arguments.len());
    for (name, values) in &arguments {
        let list =
            indexed_base(name).and_then(|(base, _)| lists.iter().find(|(known, _)| *known == base));
        match list {
            Some((base, list)) if !folded.iter().any(|(known, _)| known == base) => {
                folded.push(((*base).to_owned(), vec![list.clone()]));
            }
            Some(_) => {}
            None => folded.push((name.clone(), values.clone())),
        }
    }
    folded
}

/// The name before a flag name's last bracketed word, and the word (`filter[fields]` and
/// `title` for `filter[fields][title]`); `None` for another name (no trailing bracketed word, an
/// index, or nothing before it).
pub fn flag_parts(name: &str) -> Option<(&str, &str)> {
    let (base, word) = name.strip_suffix(']')?.rsplit_once('[')?;
    let plain = !word.is_empty()
        && !word.bytes().all(|byte| byte.is_ascii_digit())
        && !word.contains(['[', ']', ',']);
    (plain && !base.is_empty()).then_some((base, word))
}

/// Arguments with each field selection spelled as flags folded into one argument at its first
/// place (see the module docs): every name `base[field]` whose base `selects` holds, each with
/// the one value `true`, becomes `base` holding the comma list of the fields. A base one of whose
/// flags holds another value is left as it was.
pub fn fold_flags(
    arguments: Vec<(String, Vec<String>)>,
    selects: impl Fn(&str) -> bool,
) -> Vec<(String, Vec<String>)> {
    fn flag<'n>(name: &'n str, selects: &dyn Fn(&str) -> bool) -> Option<(&'n str, &'n str)> {
        flag_parts(name).filter(|(base, _)| selects(base))
    }
    let selects: &dyn Fn(&str) -> bool = &selects;
    let foldable = |base: &str| {
        arguments.iter().all(|(name, values)| {
            flag(name, selects).is_none_or(|(other, _)| other != base)
                || values.as_slice() == ["true"]
        })
    };
    let mut folded: Vec<(String, Vec<String>)> = Vec::with_capacity(arguments.len());
    for (name, values) in &arguments {
        match flag(name, selects) {
            Some((base, field)) if foldable(base) => {
                match folded.iter_mut().find(|(known, _)| known == base) {
                    Some((_, list)) => {
                        list[0].push(',');
                        list[0].push_str(field);
                    }
                    None => folded.push((base.to_owned(), vec![field.to_owned()])),
                }
            }
            _ => folded.push((name.clone(), values.clone())),
        }
    }
    folded
}

/// Query pairs with each list name's values folded into one pair at its first place (see
/// [`folded_list`]), and each indexed name's run (see [`fold_indexed`]); every other pair, and a
/// list that cannot fold, as it was.
pub fn fold_list_names(pairs: &[(String, String)]) -> Vec<(String, String)> {
    let arguments = fold_repeated(pairs)
        .into_iter()
        .map(|(name, value)| (name, vec![value]))
        .collect();
    fold_indexed(arguments)
        .into_iter()
        .map(|(name, mut values)| (name, values.remove(0)))
        .collect()
}

/// Query pairs with each list name's values folded into one pair at its first place (see
/// [`folded_list`]); every other pair, and a list that cannot fold, as it was.
fn fold_repeated(pairs: &[(String, String)]) -> Vec<(String, String)> {
    let mut folded = Vec::with_capacity(pairs.len());
    let mut done: Vec<&str> = Vec::new();
    for (name, value) in pairs {
        if done.contains(&name.as_str()) {
            continue;
        }
        let values: Vec<String> = match fold_base(name) {
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
    fn an_indexed_run_folds_into_one_comma_list_when_its_indexes_count_from_zero() {
        assert_eq!(
            fold_list_names(&pairs(&[
                ("filter[where][status][inq][0]", "todo"),
                ("filter[limit]", "3"),
                ("filter[where][status][inq][1]", "doing"),
                ("filter[order][0]", "title DESC"),
            ])),
            pairs(&[
                ("filter[where][status][inq]", "todo,doing"),
                ("filter[limit]", "3"),
                ("filter[order]", "title DESC"),
            ])
        );
        // Taken in index order wherever they stand.
        assert_eq!(
            fold_list_names(&pairs(&[("a[1]", "x"), ("a[0]", "y")])),
            pairs(&[("a", "y,x")])
        );
        // Not from zero, an index twice, or holding a comma: left as they were.
        for kept in [
            pairs(&[("a[0]", "x"), ("a[0]", "y")]),
            pairs(&[("a[1]", "x")]),
            pairs(&[("a[0]", "x,y"), ("a[1]", "z")]),
            pairs(&[("$or[0][status]", "x"), ("[0]", "y")]),
        ] {
            assert_eq!(fold_list_names(&kept), kept);
        }
        assert_eq!(indexed_base("order[12]"), Some(("order", 12)));
        assert_eq!(indexed_base("order[x]"), None);
    }

    #[test]
    fn a_selection_spelled_as_flags_folds_into_its_comma_list() {
        let arguments = |list: &[(&str, &str)]| -> Vec<(String, Vec<String>)> {
            list.iter()
                .map(|(name, value)| ((*name).to_owned(), vec![(*value).to_owned()]))
                .collect()
        };
        let selects = |base: &str| base == "filter[fields]";
        assert_eq!(
            fold_flags(
                arguments(&[
                    ("filter[fields][title]", "true"),
                    ("filter[where][status]", "todo"),
                    ("filter[fields][status]", "true"),
                ]),
                selects
            ),
            arguments(&[
                ("filter[fields]", "title,status"),
                ("filter[where][status]", "todo")
            ])
        );
        // A flag set to another value, or a base that selects nothing: as they were.
        let kept = arguments(&[
            ("filter[fields][title]", "false"),
            ("filter[fields][id]", "true"),
        ]);
        assert_eq!(fold_flags(kept.clone(), selects), kept);
        let other = arguments(&[("filter[active]", "true")]);
        assert_eq!(fold_flags(other.clone(), selects), other);
        assert_eq!(flag_parts("filter[fields][0]"), None);
    }

    #[test]
    fn a_repeated_set_operator_name_folds_under_its_own_name() {
        assert_eq!(
            fold_list_names(&pairs(&[
                ("filter{status.in}", "todo"),
                ("per_page", "4"),
                ("filter{status.in}", "doing"),
            ])),
            pairs(&[("filter{status.in}", "todo,doing"), ("per_page", "4")])
        );
        for name in [
            "status__in",
            "filter[status.nin]",
            "status[$in]",
            "filter{code.in}",
        ] {
            assert_eq!(fold_base(name), Some(name), "{name}");
            // Only a list name is a list name (the catalog's repeated arguments).
            assert_eq!(list_base(name), None, "{name}");
        }
        // Another operator, a bare word or nothing before it is no set operator name.
        for name in ["status__gte", "in", "filter{status}", ".in", "tags"] {
            assert_eq!(fold_base(name), None, "{name}");
        }
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
