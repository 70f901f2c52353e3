//! Page tokens learned on one body query lent to its sibling body queries. A body-query view
//! whose recorded pages taught how its page token is minted ([`PageToken`]) lends that token,
//! at the same place of the answer, to each body-query view of a sibling route (the same path
//! but for one segment, `…/runs/search` beside `…/experiments/search`) that never learned one.
//! The evidence it needs: the sibling's recorded bodies named the same page-size member as the
//! lender's (and named no page position, or the lender's), its envelope holds no member of the
//! token's name, and none of its recorded pages left matches out (a page that did, showing no
//! token, says its pages carry none). The sibling then answers a page leaving matches out with
//! the lent token, where it was refused as not modelled (`body-page`).

use std::collections::BTreeSet;

use crate::model::{BodyEnvelopeMember, BodyQueryView, EnvelopePresence, PageToken, ViewDetail};
use crate::observation::{Observation, RequestBody, Timeline};
use crate::rules::RuleSet;

use super::entities::Entities;
use crate::model::QueryRole;

/// What a body-query view's recordings show of its paging.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Paging {
    /// The tool's index.
    tool: usize,
    /// The segments of its recorded path.
    segments: Vec<String>,
    /// The body members its recorded bodies sent as the page size.
    sizes: BTreeSet<String>,
    /// The body members its recorded bodies sent as the page position.
    positions: BTreeSet<String>,
}

/// A body query's learned page token, as lent to its siblings.
#[derive(Debug, Clone)]
struct Lender {
    paging: Paging,
    token: PageToken,
    /// The token member's envelope entry.
    member: BodyEnvelopeMember,
    /// Its place after the list member (0: right after it).
    after_list: usize,
}

/// Offers each body-query view without a page token the token a sibling learned (see the
/// module docs).
pub(super) fn offer(
    timeline: &Timeline,
    entities: &Entities,
    details: &mut [Option<ViewDetail>],
    rules: &RuleSet,
) {
    let pagings: Vec<(usize, Paging)> = details
        .iter()
        .enumerate()
        .filter_map(|(tool, detail)| match detail {
            Some(ViewDetail::BodyQuery(view)) => {
                Some((tool, paging(timeline, entities, (tool, view), rules)?))
            }
            _ => None,
        })
        .collect();
    let lenders: Vec<Lender> = pagings
        .iter()
        .filter_map(|(tool, paging)| match &details[*tool] {
            Some(ViewDetail::BodyQuery(view)) => lender(view, paging),
            _ => None,
        })
        .collect();
    for (tool, paging) in &pagings {
        let Some(ViewDetail::BodyQuery(view)) = &mut details[*tool] else {
            continue;
        };
        if let Some(lender) = lenders.iter().find(|lender| lends_to(lender, view, paging)) {
            borrow(view, lender);
        }
    }
}

/// What a body-query view's recorded calls show of its paging; `None` when their paths differ
/// in length or a body is no longer read.
fn paging(
    timeline: &Timeline,
    entities: &Entities,
    (tool, view): (usize, &BodyQueryView),
    rules: &RuleSet,
) -> Option<Paging> {
    let calls: Vec<&Observation> = view
        .record_ordinals
        .iter()
        .filter_map(|ordinal| timeline.by_ordinal.get(ordinal))
        .collect();
    let segments: Vec<String> = calls.first()?.path.split('/').map(str::to_owned).collect();
    let mut read = Paging {
        tool,
        segments,
        sizes: BTreeSet::new(),
        positions: BTreeSet::new(),
    };
    for call in calls {
        let RequestBody::Json(body) = &call.request else {
            return None;
        };
        if call.path.split('/').count() != read.segments.len() {
            return None;
        }
        let pool = super::body_queries::pool(entities, &view.entity_type, &call.path);
        let terms = crate::body_query::read_body(rules, body, &pool)?;
        for (name, _) in &terms.pairs {
            match terms.model.role(name) {
                Some(QueryRole::PageSize) => read.sizes.insert(name.clone()),
                Some(QueryRole::Offset) => read.positions.insert(name.clone()),
                _ => false,
            };
        }
    }
    Some(read)
}

/// The page token a view lends: one it learned, its member among the envelope's members after
/// the list, whose recorded bodies named the page size and the page position.
fn lender(view: &BodyQueryView, paging: &Paging) -> Option<Lender> {
    let token = view.page_token.clone()?;
    let index = view
        .envelope
        .iter()
        .position(|member| member.member == token.member)?;
    let member = view.envelope[index].clone();
    let after_list = index.checked_sub(view.list_position)?;
    (member.presence == EnvelopePresence::Paged
        && !paging.sizes.is_empty()
        && !paging.positions.is_empty())
    .then(|| Lender {
        paging: paging.clone(),
        token,
        member,
        after_list,
    })
}

/// Whether a view may borrow a lender's token (see the module docs).
fn lends_to(lender: &Lender, view: &BodyQueryView, paging: &Paging) -> bool {
    let differing = lender
        .paging
        .segments
        .iter()
        .zip(&paging.segments)
        .filter(|(lent, own)| lent != own)
        .count();
    lender.paging.tool != paging.tool
        && lender.paging.segments.len() == paging.segments.len()
        && differing == 1
        && lender.paging.segments.last() == paging.segments.last()
        && view.page_token.is_none()
        && !view.partial_pages
        && !view
            .envelope
            .iter()
            .any(|member| member.member == lender.token.member)
        && !paging.sizes.is_empty()
        && paging.sizes.is_subset(&lender.paging.sizes)
        && paging.positions.is_subset(&lender.paging.positions)
        && view.list_position + lender.after_list <= view.envelope.len()
}

/// Gives the view the lender's token, its member at the lender's place after the list.
fn borrow(view: &mut BodyQueryView, lender: &Lender) {
    view.envelope.insert(
        view.list_position + lender.after_list,
        lender.member.clone(),
    );
    view.page_token = Some(lender.token.clone());
    view.partial_pages = true;
}

#[cfg(test)]
mod tests {
    use rea_plugin_api::json::Json;

    use super::*;
    use crate::model::DefaultOrder;

    fn view(list_member: &str, envelope: Vec<BodyEnvelopeMember>) -> BodyQueryView {
        BodyQueryView {
            entity_type: format!("/{list_member}"),
            list_member: list_member.to_owned(),
            list_position: 0,
            default_order: DefaultOrder::State,
            envelope,
            partial_pages: false,
            page_token: None,
            record_ordinal: 0,
            record_ordinals: vec![0],
            omit_empty_list: false,
            whole_members: Vec::new(),
            encoded_fields: Default::default(),
        }
    }

    fn token_member() -> BodyEnvelopeMember {
        BodyEnvelopeMember {
            member: "next".to_owned(),
            value: Json::String("eyJvZmZzZXQiOiAyfQ==".into()),
            presence: EnvelopePresence::Paged,
        }
    }

    fn token() -> PageToken {
        PageToken {
            member: "next".to_owned(),
            prefix: "{\"offset\": ".to_owned(),
            suffix: "}".to_owned(),
        }
    }

    fn paging(tool: usize, path: &str, sizes: &[&str], positions: &[&str]) -> Paging {
        let names = |names: &[&str]| names.iter().map(|name| (*name).to_owned()).collect();
        Paging {
            tool,
            segments: path.split('/').map(str::to_owned).collect(),
            sizes: names(sizes),
            positions: names(positions),
        }
    }

    fn lending() -> Lender {
        let mut runs = view("runs", vec![token_member()]);
        runs.page_token = Some(token());
        runs.partial_pages = true;
        lender(&runs, &paging(0, "/api/runs/search", &["size"], &["token"])).expect("a lender")
    }

    #[test]
    fn a_learned_token_lends_itself_to_a_sibling_route_with_the_same_page_size() {
        let lender = lending();
        let mut experiments = view("experiments", Vec::new());
        let own = paging(1, "/api/experiments/search", &["size"], &[]);
        assert!(lends_to(&lender, &experiments, &own));
        borrow(&mut experiments, &lender);
        assert_eq!(experiments.page_token, Some(token()));
        assert!(experiments.partial_pages);
        assert_eq!(experiments.envelope, vec![token_member()]);
        // Listing past the page now mints the token at the next page's offset.
        let terms = crate::body_query::BodyTerms {
            pairs: Vec::new(),
            model: crate::model::QueryModel::of_roles(&[]),
            selection: None,
            named: BTreeSet::new(),
            sorts: false,
            encodings: Default::default(),
            count_only: false,
        };
        let listed = crate::body_query::Listed {
            members: vec![Json::Null],
            left_out: true,
            next_offset: 1,
            matched: 3,
        };
        let body = crate::body_query::answer_body(&experiments, &terms, listed).unwrap();
        assert_eq!(body.get("next"), Some(&Json::from("eyJvZmZzZXQiOiAxfQ==")));
    }

    #[test]
    fn a_sibling_whose_recordings_disagree_borrows_nothing() {
        let lender = lending();
        let experiments = view("experiments", Vec::new());
        let own = |path: &str, sizes: &[&str], positions: &[&str]| {
            lends_to(&lender, &experiments, &paging(1, path, sizes, positions))
        };
        // Another page-size member, none, or another position member.
        assert!(!own("/api/experiments/search", &["limit"], &[]));
        assert!(!own("/api/experiments/search", &[], &[]));
        assert!(!own("/api/experiments/search", &["size"], &["cursor"]));
        // Not a sibling route: another last segment, two segments apart, another length.
        assert!(!own("/api/experiments/list", &["size"], &[]));
        assert!(!own("/v2/experiments/search", &["size"], &[]));
        assert!(!own("/api/x/experiments/search", &["size"], &[]));
        // A recorded page that left matches out without a token, or a member of its name.
        let mut partial = experiments.clone();
        partial.partial_pages = true;
        let sibling = paging(1, "/api/experiments/search", &["size"], &[]);
        assert!(!lends_to(&lender, &partial, &sibling));
        let mut named = experiments.clone();
        named.envelope.push(BodyEnvelopeMember {
            presence: EnvelopePresence::Always,
            ..token_member()
        });
        assert!(!lends_to(&lender, &named, &sibling));
        // Nor does a view lend to itself.
        assert!(!lends_to(
            &lender,
            &experiments,
            &paging(0, "/api/experiments/search", &["size"], &[])
        ));
    }

    #[test]
    fn a_token_no_recorded_body_asked_for_is_not_lent() {
        let mut runs = view("runs", vec![token_member()]);
        runs.page_token = Some(token());
        assert!(lender(&runs, &paging(0, "/api/runs/search", &["size"], &[])).is_none());
        runs.page_token = None;
        assert!(lender(&runs, &paging(0, "/api/runs/search", &["size"], &["token"])).is_none());
    }
}
