//! Ids below an item route: a parameter of a route below an item (`/people/{…}/tasks`) names
//! the same ids as the item route's parameter (`/people/{…}`), so it takes the spellings the item
//! route takes.
//!
//! The `sibling-variance` rule makes an item route's parameter take any segment where the
//! recording showed that collection's ids in more than one spelling (seeded numbers beside
//! generated tokens, `3` and `xxA1wMnjxuGLyVs`, or ids that are words). A route below that item
//! recorded only with ids of one of those spellings (`/people/1/tasks`, `/people/3/tasks`) kept
//! its format rule, so an id of the other spelling (a person the session created) routed to no
//! tool. Such a parameter joins the item's (`sibling-variance`) when the paths below the item
//! are otherwise equal (any method: a family), hold an id rule (a format rule or an opaque token)
//! at the item's position, and at least one of them names an id the item route's parameter took
//! there (evidence the position holds that collection's ids): `/people/{…}/tasks`, recorded for
//! `1` and `3`, joins `/people/{…}`, which took `3`. A family naming no id the item took keeps its
//! format (`/api/artifacts/{study}/{trial}` beside `/api/artifacts/{study}/{artifact}` name other
//! things).

use std::collections::{BTreeMap, BTreeSet};

use crate::template::{SegmentRule, Token, is_id_rule, tokens_before, tokens_but};

/// The values each item route's `sibling-variance` parameter took, by the tokens before it (the
/// parameter is the path's last segment).
fn item_values<'a>(
    segments: &[Vec<&'a str>],
    state: &[Vec<Option<SegmentRule>>],
) -> BTreeMap<Vec<Token<'a>>, BTreeSet<&'a str>> {
    let mut items: BTreeMap<Vec<Token<'a>>, BTreeSet<&'a str>> = BTreeMap::new();
    for (path, rules) in segments.iter().zip(state) {
        let Some(last) = path.len().checked_sub(1) else {
            continue;
        };
        if rules[last] == Some(SegmentRule::SiblingVariance) {
            items
                .entry(tokens_before(path, rules, last))
                .or_default()
                .insert(path[last]);
        }
    }
    items
}

/// A family of routes below an item: the records holding an id rule at one position, by their
/// other tokens, with the values they hold there.
#[derive(Default)]
struct BelowFamily<'a> {
    records: Vec<usize>,
    values: BTreeSet<&'a str>,
}

/// Joins the id parameters of routes below an item route to the item's `sibling-variance`
/// parameter (see the module docs); whether anything changed.
pub(crate) fn join_ids_below_items(
    segments: &[Vec<&str>],
    state: &mut [Vec<Option<SegmentRule>>],
) -> bool {
    let items = item_values(segments, state);
    if items.is_empty() {
        return false;
    }
    // (length, position, the other tokens) → the family below an item at that position.
    let mut families: BTreeMap<(usize, usize, Vec<Token<'_>>), BelowFamily<'_>> = BTreeMap::new();
    for (record, path) in segments.iter().enumerate() {
        let rules = &state[record];
        for position in 0..path.len().saturating_sub(1) {
            if !rules[position].is_some_and(is_id_rule)
                || !items.contains_key(&tokens_before(path, rules, position))
            {
                continue;
            }
            let family = families
                .entry((path.len(), position, tokens_but(path, rules, position)))
                .or_default();
            family.records.push(record);
            family.values.insert(path[position]);
        }
    }
    let mut joining = Vec::new();
    for ((_, position, _), family) in &families {
        let first = family.records[0];
        let before = tokens_before(&segments[first], &state[first], *position);
        if items[&before].intersection(&family.values).next().is_some() {
            joining.extend(family.records.iter().map(|record| (*record, *position)));
        }
    }
    for (record, position) in &joining {
        state[*record][*position] = Some(SegmentRule::SiblingVariance);
    }
    !joining.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::format_rule;

    fn templated(
        paths: &[&'static str],
    ) -> (Vec<Vec<&'static str>>, Vec<Vec<Option<SegmentRule>>>) {
        let segments: Vec<Vec<&str>> = paths
            .iter()
            .map(|path| path.trim_start_matches('/').split('/').collect())
            .collect();
        let state = segments
            .iter()
            .map(|path| path.iter().map(|segment| format_rule(segment)).collect())
            .collect();
        (segments, state)
    }

    #[test]
    fn a_route_below_a_joined_item_takes_its_parameter() {
        let (segments, mut state) = templated(&[
            "/people/3",
            "/people/xxA1",
            "/people/1/tasks",
            "/people/3/tasks",
        ]);
        state[0][1] = Some(SegmentRule::SiblingVariance);
        state[1][1] = Some(SegmentRule::SiblingVariance);
        assert!(join_ids_below_items(&segments, &mut state));
        assert_eq!(state[2][1], Some(SegmentRule::SiblingVariance));
        assert_eq!(state[3][1], Some(SegmentRule::SiblingVariance));
        assert!(!join_ids_below_items(&segments, &mut state));
    }

    #[test]
    fn a_family_naming_no_id_the_item_took_keeps_its_format() {
        let (segments, mut state) = templated(&["/people/3", "/people/xxA1", "/people/7/tasks"]);
        state[0][1] = Some(SegmentRule::SiblingVariance);
        state[1][1] = Some(SegmentRule::SiblingVariance);
        assert!(!join_ids_below_items(&segments, &mut state));
        assert_eq!(state[2][1], Some(SegmentRule::Numeric));
    }

    #[test]
    fn an_item_with_a_format_rule_widens_nothing() {
        let (segments, mut state) = templated(&["/posts/1", "/posts/2", "/posts/1/comments"]);
        assert!(!join_ids_below_items(&segments, &mut state));
        assert_eq!(state[2][1], Some(SegmentRule::Numeric));
    }

    #[test]
    fn other_collections_and_literal_segments_are_left_alone() {
        let (segments, mut state) = templated(&[
            "/people/3",
            "/people/xxA1",
            "/teams/3/tasks",
            "/people/me/tasks",
        ]);
        state[0][1] = Some(SegmentRule::SiblingVariance);
        state[1][1] = Some(SegmentRule::SiblingVariance);
        assert!(!join_ids_below_items(&segments, &mut state));
        assert_eq!(state[2][1], Some(SegmentRule::Numeric));
        assert_eq!(state[3][1], None);
    }
}
