//! Query expressions: a query parameter whose value is an expression of an application's query
//! language (a filter run such as `[tag[x]!sort[y]]`, a JSON filter object) is split by the
//! pipeline's query grammars (`split`, see `rea_plugin_api::contracts::query`) into terms, each a
//! parameter of its own: the list's roles are learned over the terms of its recorded lines, and a
//! call is evaluated over its terms. A term may lie in disjunction branches (`_or`, `$or`) the
//! grammar names: the call's model carries them ([`QueryModel::groups`]) and evaluation holds a
//! group when one of its branches does. The host never reads an expression itself; a parameter no
//! grammar splits stays as sent.

use std::collections::BTreeMap;

use crate::model::{QueryModel, QueryRole, TermBranch};
use crate::rules::RuleSet;

/// A call's query pairs with every expression split into its terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The pairs: a split parameter's terms in its place, the others as sent.
    pub pairs: Vec<(String, String)>,
    /// The roles the grammar offered each term (by term name), in order of preference.
    pub candidates: BTreeMap<String, Vec<QueryRole>>,
    /// The disjunction branches a term lies in (by term name), as the grammar named them; a term
    /// in none is not named.
    pub groups: BTreeMap<String, Vec<TermBranch>>,
}

impl Expanded {
    /// Whether some parameter was split.
    pub fn split_any(&self) -> bool {
        !self.candidates.is_empty()
    }

    /// The model extended by the roles a term names alone (one candidate, not `inert`) for the
    /// terms the model gives no role: what the grammar says such a term means wherever no
    /// recording named it, and carrying the call's disjunction groups; a term in a group the
    /// grammar names no role for plays the role the model gives its name outside the groups
    /// (see [`outside_groups`]). A filter of a plain or dotted field `holds_field` denies (no
    /// held entity holds it: `assignee_id` where the entities hold the link under
    /// `relationships`; `tasks.priority` where the list joins no `tasks`) is no such role: the
    /// call is not evaluated rather than matching nothing. `None` when nothing is added.
    pub fn extend(
        &self,
        model: &QueryModel,
        holds_field: &dyn Fn(&str) -> bool,
    ) -> Option<QueryModel> {
        let mut extended: Option<QueryModel> = None;
        if !self.groups.is_empty() {
            let mut grouped = model.clone();
            grouped.groups = Some(Box::new(self.groups.clone()));
            extended = Some(grouped);
        }
        for (name, roles) in &self.candidates {
            let [role] = roles.as_slice() else {
                continue;
            };
            if matches!(role, QueryRole::Inert { .. }) || model.role(name).is_some() {
                continue;
            }
            if let QueryRole::Filter { field, .. } = role
                && !field.contains(['[', '\0'])
                && !holds_field(field)
            {
                continue;
            }
            extended
                .get_or_insert_with(|| model.clone())
                .generalized
                .insert(name.clone(), role.clone());
        }
        for (name, branches) in &self.groups {
            let named = self
                .candidates
                .get(name)
                .is_some_and(|roles| !roles.is_empty());
            if named || model.role(name).is_some() {
                continue;
            }
            if let Some(role) = outside_groups(name, branches).and_then(|plain| model.role(&plain))
            {
                extended
                    .get_or_insert_with(|| model.clone())
                    .generalized
                    .insert(name.clone(), role.clone());
            }
        }
        extended
    }
}

/// A grouped term's name outside its disjunction branches: each branch's group word and entry
/// index taken out (`filter[where][or][1][priority][gt]` in branch 1 of `filter[where][or]` is
/// `filter[where][priority][gt]`), innermost first; `None` when the name does not pass through
/// a branch as named.
pub fn outside_groups(name: &str, branches: &[TermBranch]) -> Option<String> {
    let mut plain = name.to_owned();
    for branch in branches.iter().rev() {
        let entry = format!("{}[{}]", branch.group, branch.branch);
        let rest = plain.strip_prefix(&entry)?;
        let (outer, _) = branch.group.rsplit_once('[')?;
        plain = format!("{outer}{rest}");
    }
    Some(plain)
}

/// Splits each pair a query grammar reads as an expression (given the fields the list's entity
/// type holds; empty when serving).
pub fn expand(rules: &RuleSet, pairs: &[(String, String)], fields: &[String]) -> Expanded {
    let mut expanded = Expanded::default();
    if rules.query_grammars().is_empty() {
        expanded.pairs = pairs.to_vec();
        return expanded;
    }
    for (name, value) in pairs {
        match rules.split_query_expression((name, value), fields, pairs) {
            Some(terms) => {
                for term in terms {
                    if !term.within.is_empty() {
                        expanded.groups.insert(term.name.clone(), term.within);
                    }
                    expanded
                        .candidates
                        .entry(term.name.clone())
                        .or_insert(term.roles);
                    expanded.pairs.push((term.name, term.value));
                }
            }
            None => expanded.pairs.push((name.clone(), value.clone())),
        }
    }
    expanded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_named_alone_extends_the_model_and_an_inert_or_ambiguous_one_does_not() {
        let model = QueryModel::of_roles(&[("filter:tag", QueryRole::filter("tags", "token"))]);
        let mut expanded = Expanded::default();
        expanded.candidates.insert(
            "filter:has:email".into(),
            vec![QueryRole::filter("email", "nnull")],
        );
        expanded.candidates.insert(
            "filter:is".into(),
            vec![QueryRole::Inert { values: vec![] }],
        );
        expanded.candidates.insert(
            "filter:x".into(),
            vec![
                QueryRole::filter("x", "eq"),
                QueryRole::filter("x", "token"),
            ],
        );
        expanded
            .candidates
            .insert("filter:tag".into(), vec![QueryRole::filter("tag", "eq")]);
        let extended = expanded.extend(&model, &|_| true).expect("one role added");
        assert_eq!(
            extended.role("filter:has:email"),
            Some(&QueryRole::filter("email", "nnull"))
        );
        assert_eq!(extended.role("filter:is"), None);
        assert_eq!(extended.role("filter:x"), None);
        // A learned role is never replaced.
        assert_eq!(
            extended.role("filter:tag"),
            Some(&QueryRole::filter("tags", "token"))
        );
        // A filter of a field no held entity holds is not extended, nor one through a relation
        // the list does not join.
        assert!(expanded.extend(&model, &|field| field != "email").is_none());
        let mut through = Expanded::default();
        through.candidates.insert(
            "f[tasks][any][priority][eq]".into(),
            vec![QueryRole::filter("tasks.priority", "eq")],
        );
        assert!(
            through
                .extend(&model, &|field| !field.starts_with("tasks."))
                .is_none()
        );
        assert!(through.extend(&model, &|_| true).is_some());
        expanded.candidates.remove("filter:has:email");
        assert!(expanded.extend(&model, &|_| true).is_none());
    }

    #[test]
    fn a_grouped_term_with_no_role_plays_its_name_outside_the_groups() {
        let model = QueryModel::of_roles(&[
            ("filter[where][status]", QueryRole::filter("status", "eq")),
            (
                "filter[where][priority][gt]",
                QueryRole::filter("priority", "gt"),
            ),
        ]);
        let branch = |group: &str, index| TermBranch::new(group, index);
        assert_eq!(
            outside_groups(
                "filter[where][or][1][priority][gt]",
                &[branch("filter[where][or]", 1)]
            )
            .as_deref(),
            Some("filter[where][priority][gt]")
        );
        assert_eq!(
            outside_groups(
                "f[or][0][and][1][or][1][a]",
                &[branch("f[or]", 0), branch("f[or][0][and][1][or]", 1)]
            )
            .as_deref(),
            Some("f[and][1][a]"),
            "a conjunction's entry stays in the name"
        );
        assert_eq!(
            outside_groups("f[or][0][a]", &[branch("f[_or]", 0)]),
            None,
            "a branch the name does not pass through"
        );
        let mut expanded = Expanded::default();
        for (name, index) in [
            ("filter[where][or][0][status]", 0),
            ("filter[where][or][1][priority][gt]", 1),
            ("filter[where][or][2][colour]", 2),
        ] {
            expanded.candidates.insert(name.into(), Vec::new());
            expanded
                .groups
                .insert(name.into(), vec![branch("filter[where][or]", index)]);
        }
        let extended = expanded.extend(&model, &|_| true).expect("groups carried");
        assert_eq!(
            extended.role("filter[where][or][1][priority][gt]"),
            Some(&QueryRole::filter("priority", "gt"))
        );
        assert_eq!(
            extended.role("filter[where][or][0][status]"),
            Some(&QueryRole::filter("status", "eq"))
        );
        // A field the model filters by under no name stays unknown.
        assert_eq!(extended.role("filter[where][or][2][colour]"), None);
    }

    #[test]
    fn without_grammars_nothing_is_split() {
        let pairs = vec![("filter".to_owned(), "[tag[x]]".to_owned())];
        let expanded = expand(&RuleSet::empty(), &pairs, &[]);
        assert_eq!(expanded.pairs, pairs);
        assert!(!expanded.split_any());
    }
}
