//! Variant relief: a list view's `variant` marks (`projected_query_keys`) taken back where its
//! query grammar reads the parameter.
//!
//! A failing line (a checked read the view does not reproduce) marks every parameter no passing
//! line names ([`super::projected_keys`]), so a parameter the grammar models is marked when the
//! build named it only beside another that reshapes the members (directus's
//! `filter[status][_neq]` beside `deep[tasks][_filter][state][_neq]` and `fields`, which show each
//! project's tasks as filtered objects). Once the grammars generalized the view, a line's
//! `variant` mark of a parameter the model reads is taken back when the line keeps another mark
//! the model does not read: that one explains the failure, and a call naming only the read
//! parameter is the grammar's. The relief applies only when the marks recomputed line by line
//! are exactly the view's own (those of the shared query family aside), so a mark of another
//! origin is never taken back.

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;

use crate::model::{ListView, QueryModel, ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};

/// The reason of a mark this relief may take back.
const VARIANT: &str = "variant";

/// Takes back, on every list view, the `variant` marks its query model reads (see the module
/// docs).
pub(crate) fn relieve(manifest: &Manifest, timeline: &Timeline, views: &mut [ReadView]) {
    for view in views.iter_mut() {
        let Some(tool) = manifest
            .tools
            .iter()
            .position(|tool| tool.name == view.tool)
        else {
            continue;
        };
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let Some(model) = &list.query else {
            continue;
        };
        let taken = taken_back(timeline, tool, list, model);
        if !taken.is_empty() {
            tracing::debug!(tool = %view.tool, ?taken, "variant marks the query grammar reads");
        }
        for key in taken {
            list.projected_query_keys.remove(&key);
        }
    }
}

/// The `variant` marks of a list view a failing line set beside another mark the model does not
/// read, where the model reads them; none when the marks recomputed per failing line are not the
/// view's own.
fn taken_back(
    timeline: &Timeline,
    tool: usize,
    list: &ListView,
    model: &QueryModel,
) -> Vec<String> {
    let listed: BTreeSet<u64> = list.lines.iter().map(|line| line.record_ordinal).collect();
    let (passing, failing): (Vec<&Observation>, Vec<&Observation>) = timeline
        .checked(tool)
        .filter(|observation| observation.is_success())
        .filter(|observation| {
            !list
                .projected_record_ordinals
                .contains(&observation.ordinal)
        })
        .partition(|observation| listed.contains(&observation.ordinal));
    if failing.is_empty() || passing.is_empty() {
        return Vec::new();
    }
    let mut union: BTreeMap<String, String> = BTreeMap::new();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for line in failing {
        let Some(keys) = super::projected_keys(&passing, &[line]) else {
            return Vec::new();
        };
        taken.extend(read_beside_unread(&keys, model));
        union.extend(keys);
    }
    let own: BTreeMap<&String, &String> = list
        .projected_query_keys
        .iter()
        .filter(|(_, reason)| reason.as_str() != super::SHARED_QUERY)
        .collect();
    let recomputed: BTreeMap<&String, &String> = union.iter().collect();
    if recomputed != own {
        return Vec::new();
    }
    taken.into_iter().collect()
}

/// The `variant` keys of one line's marks the model reads, when the line keeps a mark it does
/// not read (a `!name` or `name=value` mark is never taken back, and counts as unread).
fn read_beside_unread(keys: &BTreeMap<String, String>, model: &QueryModel) -> Vec<String> {
    let read = |key: &str| !key.starts_with('!') && !key.contains('=') && model.role(key).is_some();
    if keys.keys().all(|key| read(key)) {
        return Vec::new();
    }
    keys.iter()
        .filter(|(key, reason)| reason.as_str() == VARIANT && read(key))
        .map(|(key, _)| key.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::QueryRole;

    fn marks(keys: &[(&str, &str)]) -> BTreeMap<String, String> {
        keys.iter()
            .map(|(key, reason)| ((*key).to_owned(), (*reason).to_owned()))
            .collect()
    }

    #[test]
    fn a_read_variant_beside_an_unread_mark_is_taken_back() {
        let model =
            QueryModel::of_roles(&[("filter[status][_neq]", QueryRole::filter("status", "neq"))]);
        let line = marks(&[
            ("deep[tasks][_filter][state][_neq]", VARIANT),
            ("fields", "projection"),
            ("filter[status][_neq]", VARIANT),
        ]);
        assert_eq!(read_beside_unread(&line, &model), ["filter[status][_neq]"]);
        // Alone, the read mark is the line's only reason: it stays.
        let alone = marks(&[("filter[status][_neq]", VARIANT)]);
        assert!(read_beside_unread(&alone, &model).is_empty());
        // A `!name` or `name=value` mark is never taken back, and an unread one stays.
        let spelled = marks(&[
            ("!filter[status][_neq]", VARIANT),
            ("filter[status][_neq]=archived", VARIANT),
            ("deep[tasks][_filter][state][_neq]", VARIANT),
        ]);
        assert!(read_beside_unread(&spelled, &model).is_empty());
    }
}
