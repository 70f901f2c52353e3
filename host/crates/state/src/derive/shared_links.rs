//! Page link relations shared across a state's lists. One application builds every list's
//! `next`/`previous` links with one paginator, so the lists holding a links member
//! ([`CursorForm::PageLinks`]) at the same place of the same envelope learn each relation
//! together: a list whose own pages leave it ambiguous (django-tastypie's loans, whose one
//! `previous`, from offset 4 with pages of 4, names offset 0: the first page, or one page back)
//! takes the relation a sibling's pages tell (its books' `previous` from offset 6 with pages of
//! 3 naming offset 3: one page back), and a list whose pages never showed a relation as a link
//! (its authors' `next`, `null` on every recorded page) takes the sibling's where it reproduces
//! those pages. Per relation key, the relation is the first of the variants of the lists' own
//! learned relations ([`relation_variants`], tried list by list in view order) that mints what
//! every recorded line of every such list showed; where none does, each list keeps its own.
//! As null placement ([`super::null_placement`]), this is the store's behaviour, not one list's.

use rea_manifest::Manifest;

use crate::model::{CursorForm, CursorMember, PageRelation, QueryModel, ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};
use crate::page_cursor::{PageEnd, Position, relation_variants};

/// One list holding a links member, as sharing sees it.
struct Holder<'t> {
    /// The view's index.
    view: usize,
    /// The links member's index in its model's cursor members.
    member: usize,
    /// Where the list sits in its answers.
    list_pointer: String,
    /// The recorded lines its model answers.
    lines: Vec<&'t Observation>,
}

/// Shares each relation of the links members lists hold at one place (see the module docs).
pub(super) fn share(manifest: &Manifest, timeline: &Timeline, views: &mut [ReadView]) {
    let holders = holders(manifest, timeline, views);
    let mut groups: Vec<Vec<&Holder<'_>>> = Vec::new();
    for holder in &holders {
        let place = |other: &Holder<'_>| {
            let (a, b) = (member_of(views, holder), member_of(views, other));
            (a.pointer == b.pointer && a.flat == b.flat)
                && holder.list_pointer == other.list_pointer
        };
        match groups.iter_mut().find(|group| place(group[0])) {
            Some(group) => group.push(holder),
            None => groups.push(vec![holder]),
        }
    }
    for group in groups.into_iter().filter(|group| group.len() > 1) {
        for key in relation_keys(views, &group) {
            if let Some(relation) = shared_relation(views, &group, &key) {
                for holder in &group {
                    let member = member_mut(views, holder);
                    set_relation(&mut member.form, relation.clone());
                }
            }
        }
    }
}

/// The list views holding a links member naming the position and page-size parameters their
/// calls send, with the lines their models answer.
fn holders<'t>(manifest: &Manifest, timeline: &'t Timeline, views: &[ReadView]) -> Vec<Holder<'t>> {
    let mut found = Vec::new();
    for (view, read) in views.iter().enumerate() {
        let ViewDetail::List(list) = &read.detail else {
            continue;
        };
        let (Some(model), Some(tool)) = (&list.query, super::tool_index(manifest, &read.tool))
        else {
            continue;
        };
        let Some(member) = model.cursor_members.iter().position(|member| {
            matches!(
                &member.form,
                CursorForm::PageLinks {
                    link_only: None,
                    ..
                }
            )
        }) else {
            continue;
        };
        let lines = (model.record_ordinals.iter())
            .filter_map(|ordinal| timeline.get(*ordinal))
            .filter(|line| line.tool == tool && line.is_success())
            .collect();
        found.push(Holder {
            view,
            member,
            list_pointer: list.list_pointer.clone(),
            lines,
        });
    }
    found
}

/// A holder's query model.
fn model_of<'v>(views: &'v [ReadView], holder: &Holder<'_>) -> &'v QueryModel {
    match &views[holder.view].detail {
        ViewDetail::List(list) => list.query.as_ref().expect("a holder's model"),
        _ => unreachable!("a holder is a list view"),
    }
}

/// A holder's links member.
fn member_of<'v>(views: &'v [ReadView], holder: &Holder<'_>) -> &'v CursorMember {
    &model_of(views, holder).cursor_members[holder.member]
}

/// A holder's links member, to change.
fn member_mut<'v>(views: &'v mut [ReadView], holder: &Holder<'_>) -> &'v mut CursorMember {
    match &mut views[holder.view].detail {
        ViewDetail::List(list) => {
            &mut list
                .query
                .as_mut()
                .expect("a holder's model")
                .cursor_members[holder.member]
        }
        _ => unreachable!("a holder is a list view"),
    }
}

/// A form's relations.
fn relations(form: &CursorForm) -> &[PageRelation] {
    match form {
        CursorForm::PageLinks { relations, .. } => relations,
        _ => &[],
    }
}

/// The keys of the relations (not echoes) some holder of the group learned, in first-learned
/// order.
fn relation_keys(views: &[ReadView], group: &[&Holder<'_>]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for holder in group {
        for relation in relations(&member_of(views, holder).form) {
            if !relation.echo && !keys.contains(&relation.key) {
                keys.push(relation.key.clone());
            }
        }
    }
    keys
}

/// The first variant of the group's relations under `key` that every holder's lines agree
/// with, set in its form; `None` when none does.
fn shared_relation(views: &[ReadView], group: &[&Holder<'_>], key: &str) -> Option<PageRelation> {
    group.iter().find_map(|holder| {
        let model = model_of(views, holder);
        let own = relations(&member_of(views, holder).form)
            .iter()
            .find(|relation| relation.key == key)?;
        let position = Position::of(model.parameters.iter())?;
        relation_variants(own, position)
            .into_iter()
            .find(|variant| group.iter().all(|other| agrees(views, other, variant)))
    })
}

/// Whether a holder's links member, with `relation` set in its form, mints what every line
/// its model answers showed (at least one line).
fn agrees(views: &[ReadView], holder: &Holder<'_>, relation: &PageRelation) -> bool {
    let model = model_of(views, holder);
    let mut member = member_of(views, holder).clone();
    set_relation(&mut member.form, relation.clone());
    !holder.lines.is_empty()
        && holder.lines.iter().all(|line| {
            let Some(body) = line.body.as_ref() else {
                return false;
            };
            let Some(matched) = super::sibling_pages::matched(model, &holder.list_pointer, line)
            else {
                return false;
            };
            let end = PageEnd {
                model,
                expanded: line.pairs(),
                sent: line.pairs(),
                last: None,
                remaining: false,
                matched,
            };
            let minted = end.minted(&member.form);
            minted.map(|value| crate::flat_links::expected(&member, value))
                == Some(crate::flat_links::shown(&member, body))
        })
}

/// Sets a relation in a links form: the page it names and when it is present in the one under
/// its key (whose entry and spelling stay the list's own), else the whole relation after the
/// others.
fn set_relation(form: &mut CursorForm, relation: PageRelation) {
    let CursorForm::PageLinks { relations, .. } = form else {
        return;
    };
    match relations.iter_mut().find(|known| known.key == relation.key) {
        Some(known) => {
            known.step = relation.step;
            known.anchor = relation.anchor;
            known.clamped = relation.clamped;
            known.present = relation.present;
        }
        None => relations.push(relation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::Json;

    fn relation(key: &str, step: i64) -> PageRelation {
        PageRelation {
            key: key.to_owned(),
            step,
            anchor: None,
            present: crate::model::PagePresence::Exists,
            clamped: false,
            template: Json::Null,
            link: String::new(),
            leaves_unsent_size: false,
            names_first: false,
            echo: false,
        }
    }

    fn form(relations: Vec<PageRelation>) -> CursorForm {
        CursorForm::PageLinks {
            prefix: "/t/".to_owned(),
            decoded: false,
            relations,
            position_last: false,
            default_size: None,
            link_only: None,
            sorted: false,
            first_unnamed: false,
            absent_null: true,
            appended: true,
            order: Default::default(),
        }
    }

    #[test]
    fn a_relation_is_set_in_place_of_its_key_else_added() {
        let mut links = form(vec![relation("previous", -1)]);
        let mut anchored = relation("previous", -1);
        anchored.anchor = Some(crate::model::PageAnchor::First);
        set_relation(&mut links, anchored.clone());
        set_relation(&mut links, relation("next", 1));
        let keys: Vec<(&str, Option<crate::model::PageAnchor>)> = relations(&links)
            .iter()
            .map(|relation| (relation.key.as_str(), relation.anchor))
            .collect();
        assert_eq!(
            keys,
            [
                ("previous", Some(crate::model::PageAnchor::First)),
                ("next", None)
            ]
        );
    }

    #[test]
    fn variants_try_the_anchored_pages_before_the_step_and_keep_the_entry() {
        let variants = relation_variants(
            &relation("previous", -1),
            Position::Offset { name: "offset" },
        );
        assert_eq!(variants[0].anchor, Some(crate::model::PageAnchor::First));
        let stepped = variants
            .iter()
            .position(|variant| variant.anchor.is_none() && !variant.clamped)
            .expect("the step");
        let clamped = variants
            .iter()
            .position(|variant| variant.clamped)
            .expect("the clamped step");
        assert!(stepped < clamped);
        assert!(variants.iter().all(|variant| variant.key == "previous"));
    }
}
