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
//! A list whose own pages teach no links member is lent one ([`lend`]) where it mints what
//! every line it answers showed.

use rea_manifest::Manifest;
use rea_plugin_api::json::Json;

use crate::model::{
    CursorForm, CursorMember, PageRelation, QueryModel, QueryRole, ReadView, ViewDetail,
};
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
    for group in groups.iter().filter(|group| group.len() > 1) {
        for key in relation_keys(views, group) {
            if let Some(relation) = shared_relation(views, group, &key) {
                for holder in group {
                    let member = member_mut(views, holder);
                    set_relation(&mut member.form, relation.clone());
                }
            }
        }
    }
    let lenders: Vec<(String, CursorMember)> = groups
        .iter()
        .map(|group| {
            (
                group[0].list_pointer.clone(),
                member_of(views, group[0]).clone(),
            )
        })
        .collect();
    lend(manifest, timeline, views, &lenders);
}

/// Gives each list view holding no links member the first lent one (a list's pointer and
/// member) at its list's place that mints what every line its model answers showed, under the
/// list's own link prefix and default page size (tastypie's authors, whose one sized page shows
/// `next` only as `null`, take the books' `meta` links); the paged members it covers give way.
fn lend(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &mut [ReadView],
    lenders: &[(String, CursorMember)],
) {
    for view in views.iter_mut() {
        let Some(tool) = super::tool_index(manifest, &view.tool) else {
            continue;
        };
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let Some(model) = list.query.as_mut() else {
            continue;
        };
        if model
            .cursor_members
            .iter()
            .any(|member| matches!(&member.form, CursorForm::PageLinks { .. }))
        {
            continue;
        }
        let lines = answered_lines(timeline, tool, model);
        let borrowed = (lenders.iter())
            .filter(|(list_pointer, _)| *list_pointer == list.list_pointer)
            .find_map(|(list_pointer, member)| borrowed(member, (model, list_pointer), &lines));
        if let Some(member) = borrowed {
            model
                .paged_members
                .retain(|paged| !crate::flat_links::covers(&member, &paged.pointer));
            model.cursor_members.push(member);
        }
    }
}

/// A lent links member under the borrowing list's link prefix and default page size, when it
/// mints what every one of its `lines` showed; where it learned no default size and that mints
/// them not, the lender's default size, when a line of its named no size (each shorter than a
/// page, none showed the size but its links: Flask-Restless's people beside its paged tasks).
fn borrowed(
    lent: &CursorMember,
    (model, list_pointer): (&QueryModel, &str),
    lines: &[&Observation],
) -> Option<CursorMember> {
    let prefix = link_prefix(lent, lines)?;
    let CursorForm::PageLinks { default_size, .. } = &lent.form else {
        return None;
    };
    let lent_size = *default_size;
    let own_size = model.default_page_size.map(u64::from);
    let unsized_line = lines.iter().any(|line| {
        !line
            .pairs()
            .iter()
            .any(|(name, _)| matches!(model.role(name), Some(QueryRole::PageSize)))
    });
    let fallback = (own_size.is_none() && unsized_line)
        .then_some(lent_size)
        .flatten();
    [Some(own_size), fallback.map(Some)]
        .into_iter()
        .flatten()
        .find_map(|size| {
            let mut member = lent.clone();
            if let CursorForm::PageLinks {
                prefix: known,
                default_size,
                ..
            } = &mut member.form
            {
                *known = prefix.clone();
                *default_size = size;
            }
            mints_every_line(model, list_pointer, &member, lines).then_some(member)
        })
}

/// The one text before the query of every link a links member shows on the lines (a relation
/// echoing the call's path alone, `PageRelation::echo_bare`, left out: it spells no origin);
/// `None` when they show none or two.
fn link_prefix(member: &CursorMember, lines: &[&Observation]) -> Option<String> {
    let bare: Vec<&str> = match &member.form {
        CursorForm::PageLinks { relations, .. } => relations
            .iter()
            .filter(|relation| relation.echo_bare)
            .map(|relation| relation.key.as_str())
            .collect(),
        _ => Vec::new(),
    };
    let shown: Vec<Json> = lines
        .iter()
        .filter_map(|line| crate::flat_links::shown(member, line.body.as_ref()?))
        .collect();
    let texts = shown
        .iter()
        .filter_map(|links| match links {
            Json::Object(links) => Some(
                links
                    .iter()
                    .filter(|(key, _)| !bare.contains(key))
                    .filter_map(|(_, entry)| entry.as_str()),
            ),
            _ => None,
        })
        .flatten();
    super::sibling_pages::one_prefix(texts)
}

/// The successful recorded lines of a tool its model answers.
pub(super) fn answered_lines<'t>(
    timeline: &'t Timeline,
    tool: usize,
    model: &QueryModel,
) -> Vec<&'t Observation> {
    (model.record_ordinals.iter())
        .filter_map(|ordinal| timeline.get(*ordinal))
        .filter(|line| line.tool == tool && line.is_success())
        .collect()
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
        let lines = answered_lines(timeline, tool, model);
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
    views[holder.view].list_query().expect("a holder's model").1
}

/// A holder's links member.
fn member_of<'v>(views: &'v [ReadView], holder: &Holder<'_>) -> &'v CursorMember {
    &model_of(views, holder).cursor_members[holder.member]
}

/// A holder's links member, to change.
fn member_mut<'v>(views: &'v mut [ReadView], holder: &Holder<'_>) -> &'v mut CursorMember {
    let model = views[holder.view].list_query_mut();
    &mut model.expect("a holder's model").cursor_members[holder.member]
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
    mints_every_line(model, &holder.list_pointer, &member, &holder.lines)
}

/// Whether a links member mints, with a list's model, what every one of its recorded lines
/// showed there (at least one line).
fn mints_every_line(
    model: &QueryModel,
    list_pointer: &str,
    member: &CursorMember,
    lines: &[&Observation],
) -> bool {
    !lines.is_empty()
        && lines.iter().all(|line| {
            let Some(body) = line.body.as_ref() else {
                return false;
            };
            let Some(matched) = super::sibling_pages::matched(model, list_pointer, line) else {
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
            minted.map(|value| crate::flat_links::expected(member, value))
                == Some(crate::flat_links::shown(member, body))
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
            echo_bare: false,
            echo_decoded: None,
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
            strict: false,
            restated: None,
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
    fn a_lent_member_takes_the_one_prefix_the_borrowers_links_show() {
        let member = CursorMember {
            pointer: "/meta".to_owned(),
            form: form(vec![relation("next", 1), relation("previous", -1)]),
            flat: true,
        };
        let line = |body: &str| crate::test_support::read_observation(0, "/a/", &[], body);
        let lines = [
            line(r#"{"meta": {"limit": 20, "next": null, "previous": null}, "objects": []}"#),
            line(r#"{"meta": {"limit": 2, "next": null, "previous": "/a/?limit=2&offset=2"}}"#),
        ];
        let lines: Vec<&Observation> = lines.iter().collect();
        assert_eq!(link_prefix(&member, &lines).as_deref(), Some("/a/"));
        let other = line(r#"{"meta": {"next": "/b/?offset=2", "previous": null}}"#);
        let two: Vec<&Observation> = vec![lines[1], &other];
        assert_eq!(link_prefix(&member, &two), None);
        assert_eq!(link_prefix(&member, &lines[..1]), None);
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
