//! A list's page envelope: the second answer shape a list takes when a call pages it by page
//! number (`?_page=2&_per_page=3` answering `{"first": 1, "prev": 1, "next": 3, "last": 3,
//! "pages": 3, "items": 8, "data": […]}` where plain reads answer the array).
//!
//! Learned from the list's checked reads holding their list at another place than its plain
//! reads: the page position (a page number or an offset) and page-size parameters each such read
//! named, in each spelling the reads used (`limit` or `per_page` beside `page`, `offset` beside
//! `limit`; their roles proposed by `query_fields`, or the model's own for a size plain reads
//! send, and kept when the state reproduces every such read's members), and for each scalar
//! envelope member the one page arithmetic every such read showed ([`PageFormula`]: the number
//! matched, the page count, the first, last, previous, next and own page numbers, the number
//! listed, or one constant; an offset names the page holding it). A call naming the parameters
//! of one spelling is evaluated over the state like any list query and rendered into the
//! envelope with each member computed; a page past the last one, or of a list matching nothing,
//! answers only where a read showed such a page, else not modelled.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::{Json, Object, escape_pointer_segment};
use serde::{Deserialize, Serialize};

use crate::model::{QueryModel, QueryRole};
use crate::query::evaluate;
use crate::render::{scalar_text, with_value_at};

/// How an envelope member follows from a page: the page's number, the page size and the number
/// matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "value", rename_all = "kebab-case")]
pub enum PageFormula {
    /// The number of matches.
    Matched,
    /// The number of pages (the matches over the page size, rounded up).
    Pages,
    /// The first page's number (the page base).
    FirstPage,
    /// The last page's number.
    LastPage,
    /// The previous page's number, null on the first page.
    PrevPage,
    /// The next page's number, null on the last page.
    NextPage,
    /// The page's own number (an offset's page where an offset names it).
    Number,
    /// The number of members on the page.
    Listed,
    /// One value every page showed.
    Constant {
        /// The value.
        constant: Json,
    },
}

/// The candidate formulas, in the order a member's recorded values try them (computed ones before
/// a constant, so a value every recorded page happened to share is still computed).
const COMPUTED: [PageFormula; 8] = [
    PageFormula::Matched,
    PageFormula::Pages,
    PageFormula::FirstPage,
    PageFormula::LastPage,
    PageFormula::PrevPage,
    PageFormula::NextPage,
    PageFormula::Number,
    PageFormula::Listed,
];

/// A page of a list: its number, the page size, the base numbering the first page, the matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageNumbers {
    /// The page's number as sent.
    pub page: u64,
    /// The page size.
    pub size: u64,
    /// The first page's number (0 or 1).
    pub base: u64,
    /// How many members matched before paging.
    pub matched: usize,
    /// How many members the page lists.
    pub listed: usize,
}

impl PageNumbers {
    /// The number of pages.
    fn pages(&self) -> u64 {
        (self.matched as u64).div_ceil(self.size)
    }

    /// Whether the page lies among the matches (the recordings show no other page).
    pub fn shown(&self) -> bool {
        self.size > 0
            && self.matched > 0
            && self.page >= self.base
            && self.page - self.base < self.pages()
    }

    /// Whether the page lies after the last one (a page of nothing past the first included).
    pub fn past_the_last(&self) -> bool {
        self.size > 0 && self.page >= self.base && !self.shown()
    }

    /// A formula's value on this page.
    pub fn value(&self, formula: &PageFormula) -> Json {
        let number = |value: u64| Json::from(value);
        let last = self.base + self.pages().saturating_sub(1);
        match formula {
            PageFormula::Matched => number(self.matched as u64),
            PageFormula::Pages => number(self.pages()),
            PageFormula::FirstPage => number(self.base),
            PageFormula::LastPage => number(last),
            PageFormula::PrevPage if self.page > self.base => number(self.page - 1),
            PageFormula::NextPage if self.page < last => number(self.page + 1),
            PageFormula::PrevPage | PageFormula::NextPage => Json::Null,
            PageFormula::Number => number(self.page),
            PageFormula::Listed => number(self.listed as u64),
            PageFormula::Constant { constant } => constant.clone(),
        }
    }
}

/// A list's page envelope (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageEnvelope {
    /// Where the array sits in it.
    pub list_pointer: String,
    /// The page-number, offset and page-size parameters (name → role) the paged reads named.
    pub parameters: BTreeMap<String, QueryRole>,
    /// The sets of those parameters the paged reads named, each sorted (`limit` with `page`,
    /// `offset` with `limit`): a call asks for the envelope when the ones it names are one of
    /// them. Empty in a state stored before they were learned: every parameter then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spellings: Vec<Vec<String>>,
    /// The number of the page an offset names when it is the page size's multiple (the page
    /// base the envelope's numbers showed).
    #[serde(default = "first_page_number")]
    pub first_page: u64,
    /// Whether a paged read showed a page past the last one (listing nothing) in the envelope.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub past_end: bool,
    /// Each scalar envelope member (pointer) and how it follows from the page.
    pub members: Vec<(String, PageFormula)>,
    /// The record whose envelope, status and headers answers take.
    pub record_ordinal: u64,
    /// The paged reads it reproduces.
    pub record_ordinals: Vec<u64>,
}

/// The page base of a state stored before the envelope kept one (pages counted from 1).
fn first_page_number() -> u64 {
    1
}

/// Where a call's page starts: a page number (with its base) or an offset.
enum PagePosition {
    Number(u64, u64),
    Offset(u64),
}

impl PageEnvelope {
    /// Whether a call asks for this envelope: the parameters of it the call names are one of
    /// its spellings (every parameter, in a state stored without them).
    pub fn names_call(&self, pairs: &[(String, String)]) -> bool {
        let named: BTreeSet<&str> = pairs
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| self.parameters.contains_key(*name))
            .collect();
        if self.spellings.is_empty() {
            return named.len() == self.parameters.len();
        }
        self.spellings.iter().any(|spelling| {
            spelling.len() == named.len()
                && spelling.iter().all(|name| named.contains(name.as_str()))
        })
    }

    /// Whether the envelope answers a page: one among the matches, or one past the last where a
    /// recorded read showed such a page.
    pub fn serves(&self, numbers: &PageNumbers) -> bool {
        numbers.shown() || (self.past_end && numbers.past_the_last())
    }

    /// The list's query model with the envelope's parameters added.
    pub fn extend(&self, model: &QueryModel) -> QueryModel {
        let mut extended = model.clone();
        for (name, role) in &self.parameters {
            extended.parameters.insert(name.clone(), role.clone());
        }
        extended
    }

    /// The page a call's arguments name, given the number matched and the number listed; an
    /// offset names the page holding it.
    pub fn numbers(
        &self,
        pairs: &[(String, String)],
        (matched, listed): (usize, usize),
    ) -> Option<PageNumbers> {
        let mut position = None;
        let mut size: Option<u64> = None;
        for (name, value) in pairs {
            match self.parameters.get(name) {
                Some(QueryRole::Page { base }) => {
                    position = Some(PagePosition::Number(value.parse().ok()?, *base));
                }
                Some(QueryRole::Offset) => {
                    position = Some(PagePosition::Offset(value.parse().ok()?))
                }
                Some(QueryRole::PageSize) => size = Some(value.parse().ok()?),
                _ => {}
            }
        }
        let size = size?;
        let (page, base) = match position? {
            PagePosition::Number(page, base) => (page, base),
            PagePosition::Offset(offset) => {
                (offset.checked_div(size)? + self.first_page, self.first_page)
            }
        };
        Some(PageNumbers {
            page,
            size,
            base,
            matched,
            listed,
        })
    }

    /// The envelope of `base` (a recorded paged answer) holding these members and this page.
    pub fn render(&self, base: Json, members: Vec<Json>, numbers: &PageNumbers) -> Json {
        let mut body = with_value_at(base, &self.list_pointer, Json::Array(members));
        for (pointer, formula) in &self.members {
            body = with_value_at(body, pointer, numbers.value(formula));
        }
        body
    }
}

/// One paged read as the learning sees it: its arguments, the identities it listed, its
/// envelope, and the candidates of its collection (each the object the filters read and its
/// identity).
pub struct PagedRead<'a> {
    /// The record.
    pub ordinal: u64,
    /// Its decoded query pairs.
    pub pairs: &'a [(String, String)],
    /// The identities of the members it listed, in order.
    pub listed: Vec<String>,
    /// Its body.
    pub body: &'a Json,
    /// The candidates' objects, in state order.
    pub candidates: Vec<&'a Object>,
    /// The candidates' identities, in the same order.
    pub ids: Vec<&'a str>,
}

/// The roles the paging parameters of a read may play: the model's paging role of a name (a
/// page size plain reads also send), else the paging role `query_fields` proposes for a name
/// absent from the model.
fn paging_candidates(model: &QueryModel, pairs: &[(String, String)]) -> Vec<(String, QueryRole)> {
    pairs
        .iter()
        .filter_map(|(name, _)| {
            let role = match model.role(name) {
                Some(role) => Some(role.clone()).filter(QueryRole::is_paging),
                None => crate::query::candidate_roles(name, &|_| false)
                    .into_iter()
                    .find(QueryRole::is_paging),
            };
            role.map(|role| (name.clone(), role))
        })
        .collect()
}

/// The page bases to try for the roles found: the proposed one, then the other.
fn with_base(roles: &BTreeMap<String, QueryRole>, base: u64) -> BTreeMap<String, QueryRole> {
    roles
        .iter()
        .map(|(name, role)| {
            let role = match role {
                QueryRole::Page { .. } => QueryRole::Page { base },
                other => other.clone(),
            };
            (name.clone(), role)
        })
        .collect()
}

/// The paging parameters one read names, sorted.
type Spelling = Vec<String>;

/// The paging parameters of every read (name → role) and each read's spelling (the names it
/// sent, sorted), when every read names one page position (a page number or an offset) and one
/// page size.
fn paging_spellings(
    model: &QueryModel,
    reads: &[PagedRead<'_>],
) -> Option<(BTreeMap<String, QueryRole>, Vec<Spelling>)> {
    let mut roles: BTreeMap<String, QueryRole> = BTreeMap::new();
    let mut spellings: Vec<Spelling> = Vec::new();
    for read in reads {
        let named = paging_candidates(model, read.pairs);
        let positions = named
            .iter()
            .filter(|(_, role)| matches!(role, QueryRole::Page { .. } | QueryRole::Offset))
            .count();
        let sizes = named
            .iter()
            .filter(|(_, role)| *role == QueryRole::PageSize)
            .count();
        if (positions, sizes) != (1, 1) || named.len() != 2 {
            return None;
        }
        let mut spelling: Vec<String> = named.iter().map(|(name, _)| name.clone()).collect();
        spelling.sort();
        if !spellings.contains(&spelling) {
            spellings.push(spelling);
        }
        roles.extend(named);
    }
    spellings.sort();
    Some((roles, spellings))
}

/// Learns a list's page envelope from its paged reads (all holding the list at `list_pointer`);
/// `None` when a read names no one page position and size, a read's members are not reproduced,
/// or a member follows no one formula.
pub fn learn(
    model: &QueryModel,
    list_pointer: &str,
    reads: &[PagedRead<'_>],
) -> Option<PageEnvelope> {
    let first = reads.first()?;
    let (roles, spellings) = paging_spellings(model, reads)?;
    [1, 0].into_iter().find_map(|base| {
        let envelope = PageEnvelope {
            list_pointer: list_pointer.to_owned(),
            parameters: with_base(&roles, base),
            spellings: spellings.clone(),
            first_page: base,
            past_end: false,
            members: Vec::new(),
            record_ordinal: first.ordinal,
            record_ordinals: reads.iter().map(|read| read.ordinal).collect(),
        };
        let pages = reads
            .iter()
            .map(|read| reproduced(&envelope, model, read))
            .collect::<Option<Vec<PageNumbers>>>()?;
        let members = formulas(list_pointer, reads, &pages)?;
        let past_end = pages.iter().any(|numbers| !numbers.shown());
        Some(PageEnvelope {
            members,
            past_end,
            ..envelope
        })
    })
}

/// The page a read names, when evaluating it over its candidates lists exactly its members: one
/// among the matches, or one past the last listing nothing.
fn reproduced(
    envelope: &PageEnvelope,
    model: &QueryModel,
    read: &PagedRead<'_>,
) -> Option<PageNumbers> {
    if !envelope.names_call(read.pairs) {
        return None;
    }
    let extended = envelope.extend(model);
    let evaluated = evaluate(&extended, read.pairs, &read.candidates)?;
    let listed: Vec<&str> = evaluated
        .members
        .iter()
        .map(|index| read.ids[*index])
        .collect();
    if listed != read.listed.iter().map(String::as_str).collect::<Vec<_>>() {
        return None;
    }
    let numbers = envelope.numbers(read.pairs, (evaluated.matched, listed.len()))?;
    (numbers.shown() || numbers.past_the_last()).then_some(numbers)
}

/// The one formula per scalar envelope member that every read shows.
fn formulas(
    list_pointer: &str,
    reads: &[PagedRead<'_>],
    pages: &[PageNumbers],
) -> Option<Vec<(String, PageFormula)>> {
    let pointers = envelope_scalars(reads[0].body, list_pointer);
    let mut members = Vec::new();
    for pointer in pointers {
        let shown: Vec<Option<&Json>> = reads
            .iter()
            .map(|read| read.body.pointer(&pointer))
            .collect();
        if shown.iter().any(Option::is_none) {
            return None;
        }
        let holds = |formula: &PageFormula| {
            shown
                .iter()
                .zip(pages)
                .all(|(value, numbers)| *value == Some(&numbers.value(formula)))
        };
        let formula = COMPUTED
            .iter()
            .find(|formula| holds(formula))
            .cloned()
            .or_else(|| {
                let constant = shown[0]?.clone();
                let formula = PageFormula::Constant { constant };
                holds(&formula).then_some(formula)
            })?;
        members.push((pointer, formula));
    }
    Some(members)
}

/// The top-level members of an envelope besides its list holding a scalar or null (`prev` is
/// null on the first page).
fn envelope_scalars(body: &Json, list_pointer: &str) -> Vec<String> {
    let Some(object) = body.as_object() else {
        return Vec::new();
    };
    object
        .iter()
        .map(|(key, value)| (format!("/{}", escape_pointer_segment(key)), value))
        .filter(|(pointer, value)| {
            pointer != list_pointer && !matches!(value, Json::Array(_) | Json::Object(_))
        })
        .map(|(pointer, _)| pointer)
        .collect()
}

/// The identity a listed member shows in a field (its text).
pub fn shown_identity(member: &Json, identity_field: &str) -> Option<String> {
    let object = member.as_object()?;
    let value = if identity_field.starts_with('/') {
        member.pointer(identity_field)?
    } else {
        object.get(identity_field)?
    };
    scalar_text(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    fn numbers(page: u64, size: u64, matched: usize) -> PageNumbers {
        let before = (page.saturating_sub(1) * size) as usize;
        PageNumbers {
            page,
            size,
            base: 1,
            matched,
            listed: matched.saturating_sub(before).min(size as usize),
        }
    }

    #[test]
    fn formulas_follow_the_page_arithmetic() {
        let middle = numbers(2, 3, 8);
        assert_eq!(middle.value(&PageFormula::Pages), Json::from(3u64));
        assert_eq!(middle.value(&PageFormula::LastPage), Json::from(3u64));
        assert_eq!(middle.value(&PageFormula::PrevPage), Json::from(1u64));
        assert_eq!(middle.value(&PageFormula::NextPage), Json::from(3u64));
        assert_eq!(middle.value(&PageFormula::Matched), Json::from(8u64));
        assert_eq!(middle.value(&PageFormula::Number), Json::from(2u64));
        assert_eq!(middle.value(&PageFormula::Listed), Json::from(3u64));
        let last = numbers(3, 3, 8);
        assert_eq!(last.value(&PageFormula::NextPage), Json::Null);
        assert_eq!(last.value(&PageFormula::Listed), Json::from(2u64));
        assert_eq!(numbers(1, 3, 8).value(&PageFormula::PrevPage), Json::Null);
    }

    #[test]
    fn a_page_past_the_last_or_of_nothing_is_not_shown() {
        assert!(numbers(3, 3, 8).shown());
        assert!(!numbers(4, 3, 8).shown());
        assert!(!numbers(1, 3, 0).shown());
        assert!(!numbers(0, 3, 8).shown());
        assert!(!numbers(1, 0, 8).shown());
    }

    fn read<'a>(
        pairs: &'a [(String, String)],
        body: &'a Json,
        candidates: &[&'a Object],
        ids: &[&'a str],
    ) -> PagedRead<'a> {
        let listed = body
            .get("data")
            .and_then(Json::as_array)
            .unwrap()
            .iter()
            .map(|member| shown_identity(member, "id").unwrap())
            .collect();
        PagedRead {
            ordinal: 0,
            pairs,
            listed,
            body,
            candidates: candidates.to_vec(),
            ids: ids.to_vec(),
        }
    }

    fn objects(ids: &[&str]) -> Vec<Object> {
        ids.iter()
            .map(|id| {
                json(&format!(r#"{{"id": "{id}"}}"#))
                    .as_object()
                    .unwrap()
                    .clone()
            })
            .collect()
    }

    fn pairs(page: &str, size: &str) -> Vec<(String, String)> {
        vec![
            ("_page".to_owned(), page.to_owned()),
            ("_per_page".to_owned(), size.to_owned()),
        ]
    }

    #[test]
    fn members_are_learned_as_the_formula_every_page_shows() {
        let objects = objects(&["a", "b", "c", "d", "e"]);
        let candidates: Vec<&Object> = objects.iter().collect();
        let ids = ["a", "b", "c", "d", "e"];
        let first = json(
            r#"{"first": 1, "prev": null, "next": 2, "last": 3, "items": 5,
            "data": [{"id": "a"}, {"id": "b"}]}"#,
        );
        let second = json(
            r#"{"first": 1, "prev": 1, "next": 3, "last": 3, "items": 5,
            "data": [{"id": "c"}, {"id": "d"}]}"#,
        );
        let (one, two) = (pairs("1", "2"), pairs("2", "2"));
        let reads = [
            read(&one, &first, &candidates, &ids),
            read(&two, &second, &candidates, &ids),
        ];
        let model = QueryModel::of_roles(&[]);
        let envelope = learn(&model, "/data", &reads).expect("learned");
        let formula = |name: &str| formula_at(&envelope, name);
        assert_eq!(formula("/first"), Some(PageFormula::FirstPage));
        assert_eq!(formula("/prev"), Some(PageFormula::PrevPage));
        assert_eq!(formula("/next"), Some(PageFormula::NextPage));
        assert_eq!(formula("/last"), Some(PageFormula::Pages));
        assert_eq!(formula("/items"), Some(PageFormula::Matched));
        let third = envelope.render(
            first.clone(),
            vec![json(r#"{"id": "e"}"#)],
            &numbers(3, 2, 5),
        );
        assert_eq!(third.get("prev"), Some(&Json::from(2u64)));
        assert_eq!(third.get("next"), Some(&Json::Null));
        assert_eq!(third.get("data"), Some(&json(r#"[{"id": "e"}]"#)));
    }

    /// The formula an envelope learned for the member at `pointer`.
    fn formula_at(envelope: &PageEnvelope, pointer: &str) -> Option<PageFormula> {
        envelope
            .members
            .iter()
            .find(|(at, _)| at == pointer)
            .map(|(_, formula)| formula.clone())
    }

    fn named(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    /// Pages named in three spellings (`limit` or `per_page` with `page`, `offset` with
    /// `limit`), one past the last: the envelope counts the page's members and names its number.
    #[test]
    fn pages_named_in_several_spellings_teach_one_envelope() {
        let ids = ["1", "2", "3", "4", "5", "6", "7"];
        let objects = objects(&ids);
        let candidates: Vec<&Object> = objects.iter().collect();
        let body = |members: &[&str], page: u64, pages: u64| {
            let data: Vec<String> = members
                .iter()
                .map(|id| format!(r#"{{"id": "{id}"}}"#))
                .collect();
            json(&format!(
                r#"{{"data": [{}], "count": {}, "total": 7, "page": {page}, "pageCount": {pages}}}"#,
                data.join(", "),
                members.len()
            ))
        };
        let (first, second, third) = (
            named(&[("limit", "3"), ("page", "1")]),
            named(&[("per_page", "2"), ("page", "2")]),
            named(&[("offset", "4"), ("limit", "2")]),
        );
        let past = named(&[("limit", "3"), ("page", "5")]);
        let bodies = [
            body(&["1", "2", "3"], 1, 3),
            body(&["3", "4"], 2, 4),
            body(&["5", "6"], 3, 4),
            body(&[], 5, 3),
        ];
        let queries = [&first, &second, &third, &past];
        let reads: Vec<PagedRead<'_>> = queries
            .iter()
            .zip(&bodies)
            .map(|(pairs, body)| read(pairs, body, &candidates, &ids))
            .collect();
        let envelope = learn(&QueryModel::of_roles(&[]), "/data", &reads).expect("learned");
        assert!(envelope.past_end);
        let spellings: Vec<Vec<&str>> = envelope
            .spellings
            .iter()
            .map(|spelling| spelling.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            spellings,
            [
                vec!["limit", "offset"],
                vec!["limit", "page"],
                vec!["page", "per_page"]
            ]
        );
        let formula = |name: &str| formula_at(&envelope, name);
        assert_eq!(formula("/count"), Some(PageFormula::Listed));
        assert_eq!(formula("/total"), Some(PageFormula::Matched));
        assert_eq!(formula("/page"), Some(PageFormula::Number));
        assert_eq!(formula("/pageCount"), Some(PageFormula::Pages));
        // An offset names the page holding it; a spelling no read used asks no envelope.
        let offset = named(&[("offset", "5"), ("limit", "2")]);
        assert!(envelope.names_call(&offset));
        assert_eq!(envelope.numbers(&offset, (7, 2)).map(|n| n.page), Some(3));
        assert!(!envelope.names_call(&named(&[("limit", "2")])));
        assert!(!envelope.names_call(&named(&[("offset", "5"), ("per_page", "2")])));
        let beyond = envelope.numbers(&named(&[("limit", "3"), ("page", "9")]), (7, 0));
        assert!(beyond.is_some_and(|numbers| envelope.serves(&numbers)));
    }

    #[test]
    fn a_page_past_the_last_is_served_only_where_a_read_showed_one() {
        let envelope = PageEnvelope {
            list_pointer: "/data".to_owned(),
            parameters: BTreeMap::new(),
            spellings: Vec::new(),
            first_page: 1,
            past_end: false,
            members: Vec::new(),
            record_ordinal: 0,
            record_ordinals: Vec::new(),
        };
        assert!(!envelope.serves(&numbers(4, 3, 8)));
        assert!(envelope.serves(&numbers(3, 3, 8)));
        let shown = PageEnvelope {
            past_end: true,
            ..envelope
        };
        assert!(shown.serves(&numbers(4, 3, 8)));
        assert!(!shown.serves(&numbers(0, 3, 8)));
    }

    #[test]
    fn a_read_whose_members_differ_teaches_no_envelope() {
        let objects = objects(&["a", "b", "c"]);
        let candidates: Vec<&Object> = objects.iter().collect();
        let ids = ["a", "b", "c"];
        let body = json(r#"{"items": 3, "data": [{"id": "b"}, {"id": "c"}]}"#);
        let one = pairs("1", "2");
        let reads = [read(&one, &body, &candidates, &ids)];
        assert!(learn(&QueryModel::of_roles(&[]), "/data", &reads).is_none());
    }
}
