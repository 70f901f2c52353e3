//! A list's page envelope: the second answer shape a list takes when a call pages it by page
//! number (`?_page=2&_per_page=3` answering `{"first": 1, "prev": 1, "next": 3, "last": 3,
//! "pages": 3, "items": 8, "data": […]}` where plain reads answer the array).
//!
//! Learned from the list's checked reads holding their list at another place than its plain
//! reads: the page-number and page-size parameters every such read named (their roles proposed
//! by `query_fields` and kept when the state reproduces every such read's members), and for each
//! scalar envelope member the one page arithmetic every such read showed ([`PageFormula`]: the
//! number matched, the page count, the first, last, previous and next page numbers, or one
//! constant). A call naming those parameters is evaluated over the state like any list query and
//! rendered into the envelope with each member computed; a page past the last one, or a list
//! matching nothing, is not shown by the recordings and answers not modelled.

use std::collections::BTreeMap;

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
    /// One value every page showed.
    Constant {
        /// The value.
        constant: Json,
    },
}

/// The candidate formulas, in the order a member's recorded values try them (computed ones before
/// a constant, so a value every recorded page happened to share is still computed).
const COMPUTED: [PageFormula; 6] = [
    PageFormula::Matched,
    PageFormula::Pages,
    PageFormula::FirstPage,
    PageFormula::LastPage,
    PageFormula::PrevPage,
    PageFormula::NextPage,
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
            PageFormula::Constant { constant } => constant.clone(),
        }
    }
}

/// A list's page envelope (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageEnvelope {
    /// Where the array sits in it.
    pub list_pointer: String,
    /// The page-number and page-size parameters (name → role) every paged read named.
    pub parameters: BTreeMap<String, QueryRole>,
    /// Each scalar envelope member (pointer) and how it follows from the page.
    pub members: Vec<(String, PageFormula)>,
    /// The record whose envelope, status and headers answers take.
    pub record_ordinal: u64,
    /// The paged reads it reproduces.
    pub record_ordinals: Vec<u64>,
}

impl PageEnvelope {
    /// Whether a call asks for this envelope: it names every one of its parameters.
    pub fn names_call(&self, pairs: &[(String, String)]) -> bool {
        self.parameters
            .keys()
            .all(|name| pairs.iter().any(|(sent, _)| sent == name))
    }

    /// The list's query model with the envelope's parameters added.
    pub fn extend(&self, model: &QueryModel) -> QueryModel {
        let mut extended = model.clone();
        for (name, role) in &self.parameters {
            extended.parameters.insert(name.clone(), role.clone());
        }
        extended
    }

    /// The page a call's arguments name, given the number matched.
    pub fn numbers(&self, pairs: &[(String, String)], matched: usize) -> Option<PageNumbers> {
        let mut page = None;
        let mut size = None;
        for (name, value) in pairs {
            match self.parameters.get(name) {
                Some(QueryRole::Page { base }) => page = Some((value.parse().ok()?, *base)),
                Some(QueryRole::PageSize) => size = Some(value.parse().ok()?),
                _ => {}
            }
        }
        let (page, base) = page?;
        Some(PageNumbers {
            page,
            size: size?,
            base,
            matched,
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

/// The roles the paging parameters of a read may play: each name `query_fields` proposes a page
/// number or a page size for, absent from the model.
fn paging_candidates(model: &QueryModel, pairs: &[(String, String)]) -> Vec<(String, QueryRole)> {
    pairs
        .iter()
        .filter(|(name, _)| model.role(name).is_none())
        .filter_map(|(name, _)| {
            let roles = crate::query::candidate_roles(name, &|_| false);
            roles
                .into_iter()
                .find(QueryRole::is_paging)
                .map(|role| (name.clone(), role))
        })
        .collect()
}

/// The page bases to try for the roles found: the proposed one, then the other.
fn with_base(roles: &[(String, QueryRole)], base: u64) -> BTreeMap<String, QueryRole> {
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

/// Learns a list's page envelope from its paged reads (all holding the list at `list_pointer`);
/// `None` when they name different paging parameters, a read's members are not reproduced, or a
/// member follows no one formula.
pub fn learn(
    model: &QueryModel,
    list_pointer: &str,
    reads: &[PagedRead<'_>],
) -> Option<PageEnvelope> {
    let first = reads.first()?;
    let roles = paging_candidates(model, first.pairs);
    let kinds = |roles: &[(String, QueryRole)]| {
        let pages = roles
            .iter()
            .filter(|(_, role)| matches!(role, QueryRole::Page { .. }))
            .count();
        let sizes = roles
            .iter()
            .filter(|(_, role)| *role == QueryRole::PageSize)
            .count();
        (pages, sizes)
    };
    if kinds(&roles) != (1, 1) {
        return None;
    }
    [1, 0].into_iter().find_map(|base| {
        let envelope = PageEnvelope {
            list_pointer: list_pointer.to_owned(),
            parameters: with_base(&roles, base),
            members: Vec::new(),
            record_ordinal: first.ordinal,
            record_ordinals: reads.iter().map(|read| read.ordinal).collect(),
        };
        let pages = reads
            .iter()
            .map(|read| reproduced(&envelope, model, read))
            .collect::<Option<Vec<PageNumbers>>>()?;
        let members = formulas(list_pointer, reads, &pages)?;
        Some(PageEnvelope {
            members,
            ..envelope
        })
    })
}

/// The page a read names, when evaluating it over its candidates lists exactly its members.
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
    let numbers = envelope.numbers(read.pairs, evaluated.matched)?;
    numbers.shown().then_some(numbers)
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
        PageNumbers {
            page,
            size,
            base: 1,
            matched,
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
        let last = numbers(3, 3, 8);
        assert_eq!(last.value(&PageFormula::NextPage), Json::Null);
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
        let formula = |name: &str| {
            envelope
                .members
                .iter()
                .find(|(pointer, _)| pointer == name)
                .map(|(_, formula)| formula.clone())
        };
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
