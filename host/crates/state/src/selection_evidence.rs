//! Field-selection parameters learned from evidence, whatever their names (issue 12: a query
//! language is learned, not listed). The names of [`crate::query::PROJECTION_NAMES`] stay a
//! prior: a listed name selects fields as before, with no more evidence. Another name selects
//! fields when the successful recorded reads of the state's item and list views show it doing so
//! (PiccoloCRUD's `__visible_fields=id,title`):
//!
//! - every such read naming it names it once, with a plain list of fields (`id,title`: names, no
//!   `*`, no dotted path, none repeated) that the entities of the view's type hold;
//! - every such read naming it alone among the parameters whose value is such a list (and beside
//!   no listed selection parameter) showed only fields its type's entities hold, exactly the ones
//!   it named and the same fields unasked (`kept`, one set for every type);
//! - at least one of them showed fewer fields than its type's entities hold.
//!
//! A read naming two parameters whose values are lists of held fields cannot tell which one
//! selected (`__visible_fields=code,name&__order=code`): it teaches neither, though its values
//! must still be such lists. A read whose answer shows no object (an empty list) teaches nothing.
//! A filter is never taken for a selection: its values name no fields, or its reads show fields
//! it did not name.

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;

use crate::model::{Entity, ReadView};
use crate::observation::{Observation, Timeline};
use crate::selection::{plain_fields, shown_fields};

/// The parameters that select fields: the listed names, and those the evidence showed selecting
/// fields (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectionNames {
    /// The names the evidence showed selecting fields that no list holds.
    learned: BTreeSet<String>,
}

impl SelectionNames {
    /// The listed names, and the others the state's reads show selecting fields.
    pub fn learn(
        manifest: &Manifest,
        timeline: &Timeline,
        entities: &[impl Borrow<Entity>],
        views: &[ReadView],
    ) -> Self {
        let learned = shown_by_evidence(manifest, timeline, entities, views)
            .into_iter()
            .filter(|name| !crate::query::is_projection(name))
            .collect();
        Self { learned }
    }

    /// Whether a parameter selects fields: a listed name or one the evidence showed.
    pub fn selects(&self, name: &str) -> bool {
        crate::query::is_projection(name) || self.learned.contains(name)
    }

    /// The names the evidence showed selecting fields that no list holds, in name order.
    pub fn learned(&self) -> impl Iterator<Item = &str> {
        self.learned.iter().map(String::as_str)
    }
}

/// What one read naming a parameter shows of it.
enum Verdict {
    /// The fields it named, those the read showed, and whether the read left out a field its
    /// type's entities hold.
    Example(Vec<String>, Vec<String>, bool),
    /// Another parameter may have selected the fields shown: the read teaches nothing of it.
    Ambiguous,
    /// The read shows the parameter is no field selection.
    Against,
}

/// The parameters the state's reads show selecting fields (see the module docs), every name
/// judged by the evidence alone, listed or not.
pub fn shown_by_evidence(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[impl Borrow<Entity>],
    views: &[ReadView],
) -> BTreeSet<String> {
    let held = crate::selection::held_fields(entities);
    let mut verdicts: BTreeMap<String, Vec<Verdict>> = BTreeMap::new();
    for (observation, entity_type, shown) in shown_reads(manifest, timeline, views) {
        let Some(held) = held.get(entity_type) else {
            continue;
        };
        for (name, verdict) in judge_read(observation.pairs(), &shown, held) {
            verdicts.entry(name).or_default().push(verdict);
        }
    }
    verdicts
        .into_iter()
        .filter(|(_, verdicts)| selects_fields(verdicts))
        .map(|(name, _)| name)
        .collect()
}

/// The successful reads naming a query parameter of every item and list view, with the type
/// they show and the fields their answer shows (none for an answer showing no object).
fn shown_reads<'t>(
    manifest: &Manifest,
    timeline: &'t Timeline,
    views: &'t [ReadView],
) -> Vec<(&'t Observation, &'t str, Vec<String>)> {
    let mut reads = Vec::new();
    for view in views {
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let Some((pointer, is_list, entity_type)) = crate::selection::shown_place(view) else {
            continue;
        };
        for observation in timeline.all(index) {
            let shown = (observation.body.as_ref())
                .filter(|_| observation.is_success() && !observation.pairs().is_empty())
                .and_then(|body| body.pointer(pointer))
                .and_then(|shown| shown_fields(shown, is_list));
            if let Some(shown) = shown {
                reads.push((observation, entity_type.as_str(), shown));
            }
        }
    }
    reads
}

/// What one read shows of each parameter it names (see the module docs).
fn judge_read(
    pairs: &[(String, String)],
    shown: &[String],
    held: &BTreeSet<&str>,
) -> Vec<(String, Verdict)> {
    let fields_held = |value: &str| {
        plain_fields(value)
            .filter(|fields| fields.iter().all(|field| held.contains(field.as_str())))
    };
    let count = |name: &str| pairs.iter().filter(|(other, _)| other == name).count();
    let lists: BTreeSet<&str> = pairs
        .iter()
        .filter(|(_, value)| fields_held(value).is_some())
        .map(|(name, _)| name.as_str())
        .collect();
    let shows_held = shown.iter().all(|field| held.contains(field.as_str()));
    let leaves_out = held
        .iter()
        .any(|field| !shown.iter().any(|name| name == field));
    let mut verdicts = Vec::new();
    for (name, value) in pairs {
        if verdicts.iter().any(|(known, _)| known == name) {
            continue;
        }
        let asked = fields_held(value).filter(|_| count(name) == 1);
        let selected_elsewhere = pairs.iter().any(|(other, _)| {
            other != name && (lists.contains(other.as_str()) || crate::query::is_projection(other))
        });
        let verdict = match asked {
            None => Verdict::Against,
            Some(_) if selected_elsewhere => Verdict::Ambiguous,
            Some(_) if !shows_held => Verdict::Against,
            Some(asked) => Verdict::Example(asked, shown.to_vec(), leaves_out),
        };
        verdicts.push((name.clone(), verdict));
    }
    verdicts
}

/// Whether a parameter's verdicts show it selecting fields: none against, at least one example,
/// every example showing the fields it named and the same ones kept, and one leaving out a field
/// its type holds.
fn selects_fields(verdicts: &[Verdict]) -> bool {
    let examples: Vec<(&Vec<String>, &Vec<String>)> = verdicts
        .iter()
        .filter_map(|verdict| match verdict {
            Verdict::Example(asked, shown, _) => Some((asked, shown)),
            _ => None,
        })
        .collect();
    let leaves_out =
        (verdicts.iter()).any(|verdict| matches!(verdict, Verdict::Example(_, _, true)));
    if examples.is_empty() || verdicts.iter().any(|v| matches!(v, Verdict::Against)) {
        return false;
    }
    let kept: BTreeSet<&String> = examples
        .iter()
        .flat_map(|(asked, shown)| shown.iter().filter(|field| !asked.contains(field)))
        .collect();
    let agree = examples.iter().all(|(asked, shown)| {
        let shown: BTreeSet<&String> = shown.iter().collect();
        let expected: BTreeSet<&String> = asked.iter().chain(kept.iter().copied()).collect();
        shown == expected
    });
    agree && leaves_out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::{owned_names as names, owned_pairs as pairs};

    /// A toy read: its query pairs and the fields it showed.
    type Read<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str]);

    const HELD: [&str; 5] = ["id", "title", "status", "priority", "project"];

    /// Whether the reads (query, fields shown) show each parameter selecting fields.
    fn learned(reads: &[Read<'_>]) -> Vec<String> {
        let held: BTreeSet<&str> = HELD.into();
        let mut verdicts: BTreeMap<String, Vec<Verdict>> = BTreeMap::new();
        for (query, shown) in reads {
            for (name, verdict) in judge_read(&pairs(query), &names(shown), &held) {
                verdicts.entry(name).or_default().push(verdict);
            }
        }
        (verdicts.into_iter())
            .filter(|(_, verdicts)| selects_fields(verdicts))
            .map(|(name, _)| name)
            .collect()
    }

    #[test]
    fn a_parameter_showing_the_fields_it_names_selects_them() {
        let all: &[&str] = &HELD;
        let reads: [Read<'_>; 4] = [
            (&[("__visible", "id,title")], &["id", "title"]),
            (
                &[("__visible", "title,status"), ("status", "open")],
                &["title", "status"],
            ),
            // Two lists of held fields: the read teaches neither.
            (
                &[("__visible", "title,priority"), ("__order", "title")],
                &["title", "priority"],
            ),
            (&[("__order", "priority")], all),
        ];
        assert_eq!(learned(&reads), ["__visible"]);
        // The same fields kept unasked on every read.
        let kept: [Read<'_>; 2] = [
            (&[("only", "title")], &["title", "id"]),
            (
                &[("only", "status,priority")],
                &["id", "status", "priority"],
            ),
        ];
        assert_eq!(learned(&kept), ["only"]);
    }

    #[test]
    fn a_filter_sort_or_disagreeing_read_is_no_selection() {
        let all: &[&str] = &HELD;
        // A value naming no held field, or not a plain list.
        let filters: [Read<'_>; 2] = [
            (&[("status", "open")], all),
            (&[("sort", "-priority,title")], all),
        ];
        assert!(learned(&filters).is_empty());
        // Fields named but every field shown: a sort, never a selection.
        let sort: [Read<'_>; 1] = [(&[("sort", "title")], all)];
        assert!(learned(&sort).is_empty());
        // Reads keeping different fields unasked disagree.
        let disagree: [Read<'_>; 2] = [
            (&[("pick", "title")], &["title", "id"]),
            (&[("pick", "status")], &["status", "project"]),
        ];
        assert!(learned(&disagree).is_empty());
        // One read against (a value naming no held field) outweighs the agreeing ones.
        let against: [Read<'_>; 2] = [
            (&[("pick", "title")], &["title"]),
            (&[("pick", "colour")], all),
        ];
        assert!(learned(&against).is_empty());
        // A read showing a field the entities do not hold is no selection of held fields.
        let unheld: [Read<'_>; 1] = [(&[("with", "title")], &["title", "title_readable"])];
        assert!(learned(&unheld).is_empty());
        // A read naming a listed selection parameter beside another teaches nothing of either.
        let beside: [Read<'_>; 1] = [(&[("fields", "title"), ("pick", "title")], &["title"])];
        assert!(learned(&beside).is_empty());
    }
}
