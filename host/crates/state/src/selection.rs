//! Field selections generalized: the field-selection parameter (`_fields`, `fields`, …; see
//! [`crate::query::PROJECTION_NAMES`], or a name on no list the reads show selecting fields, see
//! [`crate::selection_evidence`]: PiccoloCRUD's `__visible_fields`) learned from the selections
//! the checked reads made, so a call naming other fields is answered from the state instead of
//! refused.
//!
//! A parameter is learned when every successful read of an item or list view that named it
//! alone with a plain list of fields (`title,status`: names, no `*` and no dotted path) showed
//! exactly the fields it asked for plus the same fields it did not ask for (`kept`: the
//! identity and a clock the application always adds, or none; a list shows the fields some
//! member shows; a read showing every field its type's entities hold selected nothing and
//! teaches nothing). The reads of every item and list view of the state teach one rule per
//! parameter name (an application's selection language is one), and a view whose
//! tool takes the parameter carries it ([`FieldSelection`]); so does a list view whose tool takes
//! no field-selection parameter when one rule was learned (a sibling list: the state catalog
//! offers it the parameter). A call naming the parameter with a
//! plain list of fields the state holds for the view's type answers the entity (or each listed
//! member) with those fields and the kept ones; anything else (a star, a relation path, a field
//! no entity holds, a repeated or second selection parameter) is left to the view's other
//! answers.
//!
//! A parameter whose every recorded selection showed none of the fields it named and some it
//! did not names the fields to leave out (`omit=createdAt,updatedAt`, `exclude=text,creator`;
//! [`FieldSelection::excludes`]): learned over every type at once and taken by each list view
//! beside its selection ([`crate::model::ListView::exclusion`]), a call naming fields the state
//! holds answers the list without them, showing those its plain read hides that a recorded
//! exclusion of the view named (TiddlyWiki's `text`, hidden unless another exclusion replaces
//! the default one).

use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};
use rea_plugin_api::query_lists::list_base;

use crate::model::{Entity, ReadView, ViewDetail};
use crate::observation::Timeline;
use crate::selection_evidence::SelectionNames;

/// A learned field-selection parameter: the fields a selection shows are the ones it names and
/// then `kept`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldSelection {
    /// The query parameter naming the fields.
    pub parameter: String,
    /// The fields every recorded selection showed without naming them (in the recorded order).
    pub kept: Vec<String>,
    /// Whether the application spells the parameter as a list name (`$select[]=title&$select[]=
    /// status`, see [`rea_plugin_api::query_lists`]): some tool records it so, and the state
    /// offers it so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub listed: bool,
    /// Whether the parameter names the fields to leave out instead (`omit=createdAt,updatedAt`,
    /// `exclude=text,creator`): every recorded selection showed none of the fields it named and
    /// some it did not, so a selection shows every field its entity holds but those.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub excludes: bool,
}

/// A selection a read made: its query pairs and the fields it showed.
pub type SelectionExample<'a> = (&'a [(String, String)], &'a [String]);

/// A read's query pairs and the fields it showed.
type Shown<'a> = (&'a [(String, String)], Vec<String>);

/// A selection's fields asked for, and the fields it showed.
type Asked<'a> = (Vec<String>, &'a [String]);

/// The fields a plain selection value names (`title,status`), `None` for anything else (empty
/// names, `*`, dotted relation paths, spaces).
pub fn plain_fields(value: &str) -> Option<Vec<String>> {
    let fields: Vec<String> = value.split(',').map(str::to_owned).collect();
    let plain = |field: &String| {
        !field.is_empty()
            && field
                .chars()
                .all(|character| character.is_alphanumeric() || matches!(character, '_' | '-'))
    };
    let mut seen = BTreeSet::new();
    (fields.iter().all(plain) && fields.iter().all(|field| seen.insert(field.clone())))
        .then_some(fields)
}

/// The one field-selection pair of a query, by the parameters `selects` names (`None` when it
/// names none, or more than one).
fn one_selection(
    pairs: &[(String, String)],
    selects: impl Fn(&str) -> bool,
) -> Option<(&str, &str)> {
    let mut selecting = pairs.iter().filter(|(name, _)| selects(name.as_str()));
    let (name, value) = selecting.next()?;
    selecting
        .next()
        .is_none()
        .then_some((name.as_str(), value.as_str()))
}

/// Learns one rule per parameter `names` selects by from the selections checked reads made (see
/// the module docs). A parameter whose plain selections disagree about the fields kept teaches
/// nothing.
pub fn learn(examples: &[SelectionExample<'_>], names: &SelectionNames) -> Vec<FieldSelection> {
    let mut by_parameter: BTreeMap<&str, Vec<Asked<'_>>> = BTreeMap::new();
    for (pairs, shown) in examples {
        let Some((parameter, value)) = one_selection(pairs, |name| names.selects(name)) else {
            continue;
        };
        if let Some(requested) = plain_fields(value) {
            by_parameter
                .entry(parameter)
                .or_default()
                .push((requested, shown));
        }
    }
    by_parameter
        .into_iter()
        .filter_map(|(parameter, selections)| {
            // The fields kept are those some selection showed unasked; each selection must show
            // exactly what it asked for and those.
            let mut kept: Vec<String> = Vec::new();
            for (requested, shown) in &selections {
                for field in shown.iter() {
                    if !requested.contains(field) && !kept.contains(field) {
                        kept.push(field.clone());
                    }
                }
            }
            let agree = selections.iter().all(|(requested, shown)| {
                let shown: BTreeSet<&String> = shown.iter().collect();
                let expected: BTreeSet<&String> = requested.iter().chain(&kept).collect();
                shown == expected
            });
            if agree {
                return Some(FieldSelection {
                    parameter: parameter.to_owned(),
                    kept,
                    listed: false,
                    excludes: false,
                });
            }
            leave_out(&selections).then(|| FieldSelection {
                parameter: parameter.to_owned(),
                kept: Vec::new(),
                listed: false,
                excludes: true,
            })
        })
        .collect()
}

/// Whether every selection showed none of the fields it named and some it did not: the
/// parameter names the fields to leave out.
fn leave_out(selections: &[Asked<'_>]) -> bool {
    selections.iter().all(|(requested, shown)| {
        !shown.is_empty() && shown.iter().all(|field| !requested.contains(field))
    })
}

/// Teaches every item and list view whose tool takes a learned selection parameter that rule,
/// learned from every successful read of those views that selected fields (see the module
/// docs). What a selection shows is the fields it names, whatever values they hold, so reads
/// after a write teach it as well as those in the observation window. Where the selections of
/// all types disagree about the fields kept but those of each type agree (an application that
/// keeps a type's identity and its associations, Waterline's `select=title` showing `id`,
/// `project` and `assignee` of a task but only `id` of a person), each type learns its own rule
/// and only its views take it.
pub fn generalize(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &mut [ReadView],
) {
    let names = SelectionNames::learn(manifest, timeline, entities, views);
    if names.learned().next().is_some() {
        tracing::debug!(learned = ?names.learned().collect::<Vec<_>>(), "selection parameters the reads show");
    }
    let by_type = examples_by_type(manifest, timeline, (entities, &names), views);
    let all: Vec<SelectionExample<'_>> = by_type
        .values()
        .flatten()
        .map(|(pairs, shown)| (*pairs, shown.as_slice()))
        .collect();
    let (mut exclusions, mut common): (Vec<_>, Vec<_>) = learn(&all, &names)
        .into_iter()
        .partition(|rule| rule.excludes);
    let mut learned: BTreeMap<&str, Vec<FieldSelection>> = BTreeMap::new();
    if common.is_empty() {
        for (entity_type, examples) in &by_type {
            let examples: Vec<SelectionExample<'_>> = examples
                .iter()
                .map(|(pairs, shown)| (*pairs, shown.as_slice()))
                .collect();
            let rules = learn(&examples, &names)
                .into_iter()
                .filter(|rule| !rule.excludes);
            learned.insert(entity_type.as_str(), rules.collect());
        }
    }
    for rules in learned.values_mut() {
        mark_listed(manifest, rules);
    }
    mark_listed(manifest, &mut common);
    mark_listed(manifest, &mut exclusions);
    for view in views.iter_mut() {
        let rules = if common.is_empty() {
            let entity_type = match &view.detail {
                ViewDetail::Item(item) => item.entity_type.as_str(),
                ViewDetail::List(list) => list.entity_type.as_str(),
                _ => continue,
            };
            learned.get(entity_type).map_or(&[][..], Vec::as_slice)
        } else {
            common.as_slice()
        };
        take_rule(manifest, (rules, &names), view);
        take_exclusion(manifest, &exclusions, view);
    }
}

/// Gives a list view the rule leaving fields out its tool takes, or else the one such rule
/// learned (as a selection is offered to sibling lists: what it leaves out is the fields it
/// names, whatever the type).
fn take_exclusion(manifest: &Manifest, rules: &[FieldSelection], view: &mut ReadView) {
    let Some(tool) = manifest.tools.iter().find(|tool| tool.name == view.tool) else {
        return;
    };
    let ViewDetail::List(list) = &mut view.detail else {
        return;
    };
    let takes = |rule: &&FieldSelection| {
        (tool.query_parameters.iter())
            .any(|parameter| folded_name(&parameter.name) == rule.parameter)
    };
    let only = match rules {
        [rule] => Some(rule),
        _ => None,
    };
    list.exclusion = rules.iter().find(takes).or(only).cloned().map(Box::new);
}

/// The selections the successful reads of each type's item and list views made: their query
/// pairs and the fields they showed (a read showing every field its type holds left out).
fn examples_by_type<'t>(
    manifest: &Manifest,
    timeline: &'t Timeline,
    (entities, names): (&[Entity], &SelectionNames),
    views: &[ReadView],
) -> BTreeMap<String, Vec<Shown<'t>>> {
    let held = held_fields(entities);
    let mut examples: BTreeMap<String, Vec<Shown<'t>>> = BTreeMap::new();
    for view in views {
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let Some((pointer, is_list, entity_type)) = shown_place(view) else {
            continue;
        };
        let held = held.get(entity_type.as_str());
        for observation in timeline.all(index) {
            let selects = |name: &str| names.selects(name);
            if !observation.is_success() || one_selection(observation.pairs(), selects).is_none() {
                continue;
            }
            let shown = observation
                .body
                .as_ref()
                .and_then(|body| body.pointer(pointer))
                .and_then(|shown| shown_fields(shown, is_list))
                .filter(|shown| leaves_out_some(shown, held));
            if let Some(shown) = shown {
                examples
                    .entry(entity_type.clone())
                    .or_default()
                    .push((observation.pairs(), shown));
            }
        }
    }
    examples
}

/// Marks each rule whose parameter some tool records as a list name (see
/// [`FieldSelection::listed`]).
fn mark_listed(manifest: &Manifest, rules: &mut [FieldSelection]) {
    for rule in rules {
        rule.listed = manifest.tools.iter().any(|tool| {
            (tool.query_parameters.iter())
                .any(|parameter| list_base(&parameter.name) == Some(rule.parameter.as_str()))
        });
    }
}

/// Gives a view the rule among `rules` its tool takes (or is offered, see [`offered`]).
fn take_rule(
    manifest: &Manifest,
    (rules, names): (&[FieldSelection], &SelectionNames),
    view: &mut ReadView,
) {
    if rules.is_empty() {
        return;
    }
    let Some(tool) = manifest.tools.iter().find(|tool| tool.name == view.tool) else {
        return;
    };
    let taken = rules
        .iter()
        .find(|rule| {
            tool.query_parameters
                .iter()
                .any(|parameter| folded_name(&parameter.name) == rule.parameter)
        })
        .or_else(|| offered(rules, (tool, names), &view.detail));
    match &mut view.detail {
        ViewDetail::Item(item) => item.selection = taken.cloned(),
        ViewDetail::List(list) => list.selection = taken.cloned().map(Box::new),
        _ => {}
    }
}

/// A recorded parameter's name as the state reads it: a list name's base (`$select` for
/// `$select[]`, see [`rea_plugin_api::query_lists`]), an indexed name's (`filter[fields]` for
/// `filter[fields][0]`), a selection flag's (`filter[fields]` for `filter[fields][title]`), else
/// the name.
fn folded_name(name: &str) -> &str {
    list_base(name)
        .or_else(|| rea_plugin_api::query_lists::indexed_base(name).map(|(base, _)| base))
        .or_else(|| {
            rea_plugin_api::query_lists::flag_parts(name)
                .map(|(base, _)| base)
                .filter(|base| crate::query::is_projection(base))
        })
        .unwrap_or(name)
}

/// The top-level fields the entities of each type hold.
pub(crate) fn held_fields(entities: &[impl Borrow<Entity>]) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut held: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for entity in entities.iter().map(Borrow::borrow) {
        if let Some(fields) = entity.fields.as_object() {
            held.entry(entity.entity_type.as_str())
                .or_default()
                .extend(fields.keys());
        }
    }
    held
}

/// Whether a read's answer left out some field its type's entities hold: one showing them all
/// (`include=project`, a pointer expanded in place) selected nothing, and teaches no selection.
fn leaves_out_some(shown: &[String], held: Option<&BTreeSet<&str>>) -> bool {
    held.is_some_and(|held| {
        held.iter()
            .any(|field| !shown.iter().any(|name| name == field))
    })
}

/// The one learned rule a list view whose tool takes no learned parameter is offered (as the
/// query grammar extends to sibling lists): an application's selection language is one. None
/// when more than one rule was learned, or the tool takes any field-selection parameter.
fn offered<'r>(
    learned: &'r [FieldSelection],
    (tool, names): (&rea_manifest::ManifestTool, &SelectionNames),
    detail: &ViewDetail,
) -> Option<&'r FieldSelection> {
    let [rule] = learned else {
        return None;
    };
    let selects = tool
        .query_parameters
        .iter()
        .any(|parameter| names.selects(folded_name(&parameter.name)));
    (matches!(detail, ViewDetail::List(_)) && !selects).then_some(rule)
}

/// The fields an answer shows: an entity's members, or the members some listed object shows
/// (in order of first appearance); `None` for anything else or an empty list.
pub(crate) fn shown_fields(shown: &Json, is_list: bool) -> Option<Vec<String>> {
    let objects: Vec<&Object> = if is_list {
        shown
            .as_array()?
            .iter()
            .map(Json::as_object)
            .collect::<Option<_>>()?
    } else {
        vec![shown.as_object()?]
    };
    let mut fields: Vec<String> = Vec::new();
    for object in objects {
        for key in object.keys() {
            if !fields.iter().any(|known| known == key) {
                fields.push(key.to_owned());
            }
        }
    }
    (!fields.is_empty()).then_some(fields)
}

/// One part of a selection through relation paths (see [`FieldSelection::paths_for`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selected {
    /// `*`: every field the entity shows.
    All,
    /// A field of the entity.
    Field(String),
    /// A member naming related entities (see [`crate::joins`]) shown with the fields the
    /// selection names through it (`tasks.title`), or whole (`tasks.*`: `None`).
    Related {
        /// The entity's member.
        member: String,
        /// The related entities' fields shown, `None` for all of them.
        fields: Option<Vec<String>>,
    },
}

/// The parts of a selection value naming fields through relation paths (`id,project.name`,
/// `code,tasks.title`, `*,tasks.*`): names, `*`, and one-step paths `member.field` or
/// `member.*` (the paths of one member gathered in its first place); `None` for a value naming
/// no path, a deeper path, an empty or repeated name.
pub fn path_selection(value: &str) -> Option<Vec<Selected>> {
    let plain = |name: &str| {
        !name.is_empty()
            && name
                .chars()
                .all(|character| character.is_alphanumeric() || matches!(character, '_' | '-'))
    };
    let mut parts: Vec<Selected> = Vec::new();
    let mut names = BTreeSet::new();
    for name in value.split(',') {
        if !names.insert(name) {
            return None;
        }
        let Some((member, field)) = name.split_once('.') else {
            match name {
                "*" => parts.push(Selected::All),
                _ if plain(name) => parts.push(Selected::Field(name.to_owned())),
                _ => return None,
            }
            continue;
        };
        if !plain(member) || !(field == "*" || plain(field)) {
            return None;
        }
        let known = parts.iter_mut().find_map(|part| match part {
            Selected::Related {
                member: known,
                fields,
            } if known == member => Some(fields),
            _ => None,
        });
        match (known, field) {
            (Some(fields), "*") => *fields = None,
            (Some(Some(fields)), _) => fields.push(field.to_owned()),
            (Some(None), _) => {}
            (None, "*") => parts.push(Selected::Related {
                member: member.to_owned(),
                fields: None,
            }),
            (None, _) => parts.push(Selected::Related {
                member: member.to_owned(),
                fields: Some(vec![field.to_owned()]),
            }),
        }
    }
    parts
        .iter()
        .any(|part| matches!(part, Selected::Related { .. }))
        .then_some(parts)
}

impl FieldSelection {
    /// The parts of a selection through relation paths a call's query makes under this rule
    /// (see [`path_selection`]); `None` when it makes none with this parameter, or another
    /// selection too.
    pub fn paths_for(&self, pairs: &[(String, String)]) -> Option<Vec<Selected>> {
        let (parameter, value) = one_selection(pairs, |name| self.selects(name))?;
        (parameter == self.parameter && !self.excludes)
            .then(|| path_selection(value))
            .flatten()
    }

    /// The fields a call's query asks for under this rule, those kept after them; `None` when
    /// the call makes no selection with this parameter, makes another selection too, or names a
    /// field `held` denies.
    pub fn fields_for(
        &self,
        pairs: &[(String, String)],
        held: impl Fn(&str) -> bool,
    ) -> Option<Vec<String>> {
        if self.excludes {
            return None;
        }
        let requested = self.named_by(pairs, held)?;
        let mut fields = requested;
        for field in &self.kept {
            if !fields.contains(field) {
                fields.push(field.clone());
            }
        }
        Some(fields)
    }

    /// The fields a call's query leaves out under a rule that [`FieldSelection::excludes`]; `None`
    /// as [`FieldSelection::fields_for`] (and under a rule naming the fields to show).
    pub fn excluded_for(
        &self,
        pairs: &[(String, String)],
        held: impl Fn(&str) -> bool,
    ) -> Option<Vec<String>> {
        self.excludes.then(|| self.named_by(pairs, held)).flatten()
    }

    /// Whether a parameter selects fields beside this rule's: a listed name, or the rule's own
    /// (learned from the evidence, see [`crate::selection_evidence`]).
    fn selects(&self, name: &str) -> bool {
        crate::query::is_projection(name) || name == self.parameter
    }

    /// The plain fields the call's one selection names with this parameter, each one `held`
    /// allows.
    fn named_by(
        &self,
        pairs: &[(String, String)],
        held: impl Fn(&str) -> bool,
    ) -> Option<Vec<String>> {
        let (parameter, value) = one_selection(pairs, |name| self.selects(name))?;
        if parameter != self.parameter {
            return None;
        }
        let requested = plain_fields(value)?;
        requested
            .iter()
            .all(|field| held(field))
            .then_some(requested)
    }
}

/// Where an item or list view shows its entities: the pointer, whether it lists them, and their
/// type; `None` for another view.
pub(crate) fn shown_place(view: &ReadView) -> Option<(&str, bool, &String)> {
    match &view.detail {
        ViewDetail::Item(item) => Some((item.entity_pointer.as_str(), false, &item.entity_type)),
        ViewDetail::List(list) => Some((list.list_pointer.as_str(), true, &list.entity_type)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::{owned_names as names, owned_pairs as pairs};

    #[test]
    fn plain_fields_are_names_only() {
        assert_eq!(
            plain_fields("title,status"),
            Some(names(&["title", "status"]))
        );
        assert_eq!(plain_fields("*,project.*"), None);
        assert_eq!(plain_fields("id,tasks.title"), None);
        assert_eq!(plain_fields("a,,b"), None);
        assert_eq!(plain_fields("a,a"), None);
        assert_eq!(plain_fields(""), None);
    }

    #[test]
    fn path_selections_gather_each_members_paths() {
        let related = |member: &str, fields: Option<&[&str]>| Selected::Related {
            member: member.into(),
            fields: fields.map(names),
        };
        assert_eq!(
            path_selection("id,title,project.name"),
            Some(vec![
                Selected::Field("id".into()),
                Selected::Field("title".into()),
                related("project", Some(&["name"])),
            ])
        );
        assert_eq!(
            path_selection("*,tasks.id,tasks.title"),
            Some(vec![
                Selected::All,
                related("tasks", Some(&["id", "title"]))
            ])
        );
        assert_eq!(
            path_selection("tasks.title,tasks.*"),
            Some(vec![related("tasks", None)])
        );
        assert_eq!(path_selection("id,title"), None);
        assert_eq!(path_selection("a.b.c"), None);
        assert_eq!(path_selection("a.b,a.b"), None);
        assert_eq!(path_selection("a.,b"), None);
    }

    #[test]
    fn a_selection_learns_the_fields_it_keeps_unasked() {
        let query = pairs(&[("_fields", "title,status")]);
        let shown = names(&["title", "status", "id", "last_modified"]);
        let learned = learn(&[(&query, &shown)], &SelectionNames::default());
        assert_eq!(
            learned,
            vec![FieldSelection {
                parameter: "_fields".into(),
                kept: names(&["id", "last_modified"]),
                listed: false,
                excludes: false,
            }]
        );
        let held = |field: &str| ["title", "status", "assignee", "due", "id"].contains(&field);
        let fields = learned[0]
            .fields_for(
                &pairs(&[("_fields", "assignee,due"), ("_limit", "2")]),
                held,
            )
            .unwrap();
        assert_eq!(fields, names(&["assignee", "due", "id", "last_modified"]));
        // A field no entity holds, a star, another parameter: not this rule's.
        assert_eq!(
            learned[0].fields_for(&pairs(&[("_fields", "colour")]), held),
            None
        );
        assert_eq!(
            learned[0].fields_for(&pairs(&[("_fields", "*")]), held),
            None
        );
        assert_eq!(
            learned[0].fields_for(&pairs(&[("fields", "title")]), held),
            None
        );
        assert_eq!(
            learned[0].fields_for(&pairs(&[("_fields", "title"), ("exclude", "due")]), held),
            None
        );
    }

    #[test]
    fn selections_must_agree_on_what_they_keep() {
        let exact = pairs(&[("fields", "id,code,status")]);
        let exact_shown = names(&["id", "code", "status"]);
        let other = pairs(&[("fields", "id,title,sort")]);
        let other_shown = names(&["id", "title", "sort"]);
        // Relation paths teach nothing, and do not stop the plain ones.
        let related = pairs(&[("fields", "*,project.*")]);
        let related_shown = names(&["id", "title", "project"]);
        let learned = learn(
            &[
                (&exact, &exact_shown),
                (&related, &related_shown),
                (&other, &other_shown),
            ],
            &SelectionNames::default(),
        );
        assert_eq!(
            learned,
            vec![FieldSelection {
                parameter: "fields".into(),
                kept: Vec::new(),
                listed: false,
                excludes: false,
            }]
        );
        // A selection showing a field it did not ask for where another kept none disagrees.
        let extra_shown = names(&["id", "title", "sort", "owner"]);
        assert!(
            learn(
                &[(&exact, &exact_shown), (&other, &extra_shown)],
                &SelectionNames::default()
            )
            .is_empty()
        );
        // An exclusion shows fields it did not name and not the ones it named: a rule of the
        // fields to leave out, which selects nothing to show.
        let exclude = pairs(&[("exclude", "text,creator")]);
        let exclude_shown = names(&["title", "tags"]);
        let learned = learn(&[(&exclude, &exclude_shown)], &SelectionNames::default());
        assert_eq!(
            learned,
            vec![FieldSelection {
                parameter: "exclude".into(),
                kept: Vec::new(),
                listed: false,
                excludes: true,
            }]
        );
        let held = |field: &str| ["title", "tags", "email"].contains(&field);
        let asked = pairs(&[("exclude", "email"), ("filter", "[tag[Contact]]")]);
        assert_eq!(
            learned[0].excluded_for(&asked, held),
            Some(names(&["email"]))
        );
        assert_eq!(learned[0].fields_for(&asked, held), None);
        assert_eq!(learned[0].paths_for(&asked), None);
        assert_eq!(
            learned[0].excluded_for(&pairs(&[("exclude", "colour")]), held),
            None
        );
        // One exclusion showing a field it named is no exclusion.
        let showing = pairs(&[("exclude", "title")]);
        let showing_shown = names(&["title", "tags"]);
        assert!(
            learn(
                &[(&exclude, &exclude_shown), (&showing, &showing_shown)],
                &SelectionNames::default()
            )
            .is_empty()
        );
        // A kept field one selection named itself still agrees.
        let with_id = pairs(&[("_fields", "id,title")]);
        let with_id_shown = names(&["id", "title", "last_modified"]);
        let plain = pairs(&[("_fields", "title")]);
        let plain_shown = names(&["title", "id", "last_modified"]);
        let learned = learn(
            &[(&with_id, &with_id_shown), (&plain, &plain_shown)],
            &SelectionNames::default(),
        );
        assert_eq!(learned[0].kept, names(&["last_modified", "id"]));
    }

    #[test]
    fn a_read_showing_every_held_field_selected_nothing() {
        let held: BTreeSet<&str> = ["title", "status", "project", "objectId"].into();
        let all = names(&["objectId", "title", "status", "project"]);
        assert!(!leaves_out_some(&all, Some(&held)));
        assert!(leaves_out_some(&names(&["title", "objectId"]), Some(&held)));
        // A type holding no entity shows nothing a selection left out.
        assert!(!leaves_out_some(&all, None));
    }
}
