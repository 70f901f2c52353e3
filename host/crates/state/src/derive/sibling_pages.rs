//! Page links learned on one list offered on its sibling lists. A list whose paged lines taught
//! the links object beside it ([`CursorForm::PageLinks`] with the position and page-size
//! parameters its calls named) lends that form, with its page parameters and the envelope
//! members holding the page's offset and size, to each other list of the state holding its list
//! at the same place whose own lines never paged (drf-jsonapi's authors and members beside its
//! books, safrs's users and projects beside its tasks). Offered only where the lent form
//! reproduces the links every recorded line of the sibling showed (under the sibling's own link
//! prefix: the text before each link's query), and the size and offset members the values those
//! lines showed; the sibling's own links members then give way (the recorded values, or links
//! naming a page its calls never could).

use rea_manifest::Manifest;
use rea_plugin_api::json::Json;

use crate::model::{
    CursorForm, CursorMember, ListView, PagedMember, QueryModel, QueryRole, ReadView, ViewDetail,
};
use crate::observation::{Observation, Timeline};
use crate::page_cursor::{PageEnd, Position};

/// A paged list's page links, as lent to its siblings.
#[derive(Debug, Clone)]
struct Lender {
    /// The lending tool.
    tool: String,
    /// Where the list sits in its answers.
    list_pointer: String,
    /// The links member's pointer and form.
    member: CursorMember,
    /// The page parameters (the position, then the page size) and their roles.
    roles: Vec<(String, QueryRole)>,
    /// The envelope members holding the page's offset or size.
    counters: Vec<PagedMember>,
    /// The envelope members holding the number matched.
    totals: Vec<String>,
}

/// Offers each list view the page links a sibling list learned (see the module docs).
pub(super) fn offer(manifest: &Manifest, timeline: &Timeline, views: &mut [ReadView]) {
    let lenders: Vec<Lender> = views.iter().filter_map(lender).collect();
    if lenders.is_empty() {
        return;
    }
    for view in views.iter_mut() {
        let Some(index) = super::tool_index(manifest, &view.tool) else {
            continue;
        };
        let tool = view.tool.clone();
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let lines = recorded_lines(timeline, index, list);
        let borrowed = lenders
            .iter()
            .filter(|lender| lender.tool != tool && lender.list_pointer == list.list_pointer)
            .find_map(|lender| borrowed(lender, list, &lines));
        if let (Some(borrowed), Some(model)) = (borrowed, list.query.as_mut()) {
            *model = borrowed;
        }
    }
}

/// The page links a list view lends: a links member naming the position and page-size
/// parameters its own calls sent.
fn lender(view: &ReadView) -> Option<Lender> {
    let ViewDetail::List(list) = &view.detail else {
        return None;
    };
    let model = list.query.as_ref()?;
    let member = model.cursor_members.iter().find(|member| {
        !member.flat
            && matches!(
                &member.form,
                CursorForm::PageLinks {
                    link_only: None,
                    ..
                }
            )
    })?;
    let position = Position::of(model.parameters.iter())?;
    let size = model
        .parameters
        .iter()
        .find(|(_, role)| **role == QueryRole::PageSize)?;
    let roles = [position.name(), size.0.as_str()]
        .into_iter()
        .map(|name| Some((name.to_owned(), model.parameters.get(name)?.clone())))
        .collect::<Option<Vec<_>>>()?;
    Some(Lender {
        tool: view.tool.clone(),
        list_pointer: list.list_pointer.clone(),
        member: member.clone(),
        roles,
        counters: model
            .paged_members
            .iter()
            .filter(|member| member.offset || member.size)
            .cloned()
            .collect(),
        totals: model.totals.clone(),
    })
}

/// The successful recorded observations of a list's checked lines.
fn recorded_lines<'t>(
    timeline: &'t Timeline,
    tool: usize,
    list: &ListView,
) -> Vec<&'t Observation> {
    list.lines
        .iter()
        .filter_map(|line| timeline.get(line.record_ordinal))
        .filter(|observation| observation.tool == tool && observation.is_success())
        .collect()
}

/// The sibling's query model with the lender's page links, parameters and counters, when the
/// sibling has a model, never paged (its model names neither page parameter otherwise than
/// the lender does, and no links member of the lender's form), and every line showing the links
/// member shows what the lent form mints for it (at least one does).
fn borrowed(lender: &Lender, list: &ListView, lines: &[&Observation]) -> Option<QueryModel> {
    let model = list.query.as_ref()?;
    let pointer = &lender.member.pointer;
    let paged = model.cursor_members.iter().any(|member| {
        member.pointer == *pointer
            && matches!(
                &member.form,
                CursorForm::PageLinks {
                    link_only: None,
                    ..
                }
            )
    });
    if paged
        || lender.roles.iter().any(|(name, role)| {
            model.role(name).is_some_and(|known| known != role)
                || lines.iter().any(|line| sends(line, name))
        })
    {
        return None;
    }
    let mut borrowed = model.clone();
    for (name, role) in &lender.roles {
        if model.role(name).is_none() {
            borrowed.generalized.insert(name.clone(), role.clone());
        }
    }
    let form = with_prefix(&lender.member.form, &link_prefix(lines, pointer)?)?;
    let shown: Vec<(&Observation, &Json)> = lines
        .iter()
        .filter_map(|line| Some((*line, line.body.as_ref()?.pointer(pointer)?)))
        .collect();
    let agrees = !shown.is_empty()
        && shown.iter().all(|(line, links)| {
            matched(&borrowed, &list.list_pointer, line).is_some_and(|matched| {
                let end = PageEnd {
                    model: &borrowed,
                    expanded: line.pairs(),
                    sent: line.pairs(),
                    last: None,
                    remaining: false,
                    matched,
                };
                end.minted(&form) == Some(Some((*links).clone()))
            })
        });
    if !agrees {
        return None;
    }
    with_members(&mut borrowed, lender, (list, lines), form);
    Some(borrowed)
}

/// Sets the lent links member (in its form under the sibling's prefix) in place of the
/// sibling's own members under its pointer, with the lender's offset and size members every
/// line shows as never paged, and as totals the lender's totals the sibling counts.
fn with_members(
    borrowed: &mut QueryModel,
    lender: &Lender,
    (list, lines): (&ListView, &[&Observation]),
    form: CursorForm,
) {
    let pointer = &lender.member.pointer;
    let under = |at: &str| {
        at.strip_prefix(pointer.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    borrowed
        .cursor_members
        .retain(|member| !under(&member.pointer));
    borrowed
        .paged_members
        .retain(|member| !under(&member.pointer));
    borrowed.cursor_members.push(CursorMember {
        pointer: pointer.clone(),
        form,
        flat: false,
    });
    let counters: Vec<PagedMember> = lender
        .counters
        .iter()
        .filter(|counter| shows_counter(counter, lines))
        .cloned()
        .collect();
    borrowed.paged_members.retain(|member| {
        !counters
            .iter()
            .any(|counter| counter.pointer == member.pointer)
    });
    borrowed.paged_members.extend(counters);
    for total in &lender.totals {
        if list.counters.contains(total) && !borrowed.totals.contains(total) {
            borrowed.totals.push(total.clone());
        }
    }
}

/// Whether a line's call sent a parameter.
fn sends(line: &Observation, name: &str) -> bool {
    line.pairs().iter().any(|(sent, _)| sent == name)
}

/// How many members a line's call matched: the number its model's total member shows, else the
/// number it listed.
pub(super) fn matched(model: &QueryModel, list_pointer: &str, line: &Observation) -> Option<usize> {
    let body = line.body.as_ref()?;
    let total = model
        .totals
        .iter()
        .find_map(|pointer| match body.pointer(pointer)? {
            Json::Number(number) => number.as_str().parse::<usize>().ok(),
            _ => None,
        });
    match total {
        Some(total) => Some(total),
        None => body.pointer(list_pointer)?.as_array().map(Vec::len),
    }
}

/// Whether every line shows an offset counter as 0 (the lines never page), or a size counter as
/// its default.
fn shows_counter(counter: &PagedMember, lines: &[&Observation]) -> bool {
    let default = match counter.complete.as_slice() {
        [default] => Some(default),
        _ => None,
    };
    lines.iter().all(|line| {
        let value = line
            .body
            .as_ref()
            .and_then(|body| body.pointer(&counter.pointer));
        match value {
            Some(value) if counter.offset => crate::render::counts_canonically(value, 0),
            Some(value) => default == Some(value),
            None => false,
        }
    })
}

/// The one text before the query of every link the lines' links members show; `None` when they
/// show none or two.
fn link_prefix(lines: &[&Observation], pointer: &str) -> Option<String> {
    let mut texts = Vec::new();
    for line in lines {
        if let Some(Json::Object(links)) = line.body.as_ref().and_then(|body| body.pointer(pointer))
        {
            for (_, entry) in links.iter() {
                string_leaves(entry, &mut texts);
            }
        }
    }
    one_prefix(texts)
}

/// The one text before the query of every link text; `None` when there is none or two.
pub(super) fn one_prefix<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut prefix: Option<&str> = None;
    for text in texts {
        let before = text.split_once('?').map_or(text, |(before, _)| before);
        match prefix {
            Some(known) if known != before => return None,
            Some(_) => {}
            None => prefix = Some(before),
        }
    }
    prefix.map(str::to_owned)
}

/// The string leaves of a value.
fn string_leaves<'a>(value: &'a Json, found: &mut Vec<&'a str>) {
    match value {
        Json::String(text) => found.push(text),
        Json::Object(object) => {
            for (_, member) in object.iter() {
                string_leaves(member, found);
            }
        }
        Json::Array(items) => {
            for item in items {
                string_leaves(item, found);
            }
        }
        _ => {}
    }
}

/// A page links form under another prefix.
fn with_prefix(form: &CursorForm, prefix: &str) -> Option<CursorForm> {
    let mut form = form.clone();
    match &mut form {
        CursorForm::PageLinks { prefix: known, .. } => *known = prefix.to_owned(),
        _ => return None,
    }
    Some(form)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::derive::tests::{derive, record};

    /// A list answer: the links, the members and the page counters.
    fn page(links: Value, data: Value, (count, limit, offset): (u64, u64, u64)) -> Value {
        json!({
            "links": links,
            "data": data,
            "meta": {"count": count, "limit": limit, "offset": offset},
        })
    }

    /// Links to the first, the last whole and the next page.
    fn links(first: &str, last: &str, next: Option<&str>) -> Value {
        json!({"first": first, "last": last, "next": next})
    }

    /// The books list read whole, filtered and paged by two (the links spell the query in name
    /// order, the first page without its offset, the default size 50).
    fn books() -> Vec<rea_plugin_api::contracts::capture::CaptureRecord> {
        let books: Vec<Value> = ["A", "B", "C", "D", "E"]
            .iter()
            .enumerate()
            .map(|(index, title)| json!({"id": index + 1, "title": title}))
            .collect();
        let paged = |offset: usize, next: Option<&str>| {
            let size = "/books?page[limit]=2";
            page(
                links(size, "/books?page[limit]=2&page[offset]=4", next),
                json!(books[offset..(offset + 2).min(5)]),
                (5, 2, offset as u64),
            )
        };
        vec![
            record(
                0,
                "GET",
                "/books",
                200,
                page(
                    links("/books", "/books?page[limit]=50", None),
                    json!(books),
                    (5, 50, 0),
                ),
            ),
            record(
                1,
                "GET",
                "/books?title=B",
                200,
                page(
                    links("/books?title=B", "/books?page[limit]=50&title=B", None),
                    json!([books[1]]),
                    (1, 50, 0),
                ),
            ),
            record(
                2,
                "GET",
                "/books?page[limit]=2",
                200,
                paged(0, Some("/books?page[limit]=2&page[offset]=2")),
            ),
            record(
                3,
                "GET",
                "/books?page[limit]=2&page[offset]=2",
                200,
                paged(2, Some("/books?page[limit]=2&page[offset]=4")),
            ),
            record(
                4,
                "GET",
                "/books?page[limit]=2&page[offset]=4",
                200,
                paged(4, None),
            ),
        ]
    }

    #[test]
    fn a_sibling_whose_lines_agree_borrows_the_page_links_its_calls_never_taught() {
        let authors = json!([
            {"id": 1, "name": "Le Guin"},
            {"id": 2, "name": "Butler"},
            {"id": 3, "name": "Calvino"}
        ]);
        let members = json!([{"id": 1, "name": "Maya"}, {"id": 2, "name": "Noor"}]);
        let noor = json!([members[1]]);
        let mut records = books();
        records.extend([
            record(
                5,
                "GET",
                "/authors",
                200,
                page(
                    links("/authors", "/authors?page[limit]=50", None),
                    authors.clone(),
                    (3, 50, 0),
                ),
            ),
            record(
                6,
                "GET",
                "/authors?name=Butler",
                200,
                page(
                    links(
                        "/authors?name=Butler",
                        "/authors?name=Butler&page[limit]=50",
                        None,
                    ),
                    json!([authors[1]]),
                    (1, 50, 0),
                ),
            ),
            // Links the books' form does not mint (a `next` page past every member): not
            // borrowed.
            record(
                7,
                "GET",
                "/members",
                200,
                page(
                    links(
                        "/members",
                        "/members?page[limit]=50",
                        Some("/members?page[offset]=50"),
                    ),
                    members.clone(),
                    (2, 50, 0),
                ),
            ),
            record(
                8,
                "GET",
                "/members?name=Noor",
                200,
                page(
                    links(
                        "/members?name=Noor",
                        "/members?name=Noor&page[limit]=50",
                        Some("/members?name=Noor&page[offset]=50"),
                    ),
                    noor,
                    (1, 50, 0),
                ),
            ),
        ]);
        // Each collection's item read names its type.
        let items = [
            ("/books/1", json!({"id": 1, "title": "A"})),
            ("/authors/1", authors[0].clone()),
            ("/members/1", json!({"id": 1, "name": "Maya"})),
        ];
        for (ordinal, (path, item)) in (9..).zip(items) {
            records.push(record(ordinal, "GET", path, 200, json!({"data": item})));
        }
        let fixture = derive(records);
        let answer = fixture.call("get_authors", json!({"page[limit]": "2"}));
        assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
        assert_eq!(
            answer["body"]["data"],
            json!([{"id": 1, "name": "Le Guin"}, {"id": 2, "name": "Butler"}])
        );
        let next = "/authors?page[limit]=2&page[offset]=2";
        assert_eq!(
            answer["body"]["links"],
            links("/authors?page[limit]=2", next, Some(next))
        );
        assert_eq!(
            answer["body"]["meta"],
            json!({"count": 3, "limit": 2, "offset": 0})
        );
        let answer = fixture.call(
            "get_authors",
            json!({"page[limit]": "2", "page[offset]": "2"}),
        );
        assert_eq!(
            answer["body"]["links"],
            links(
                "/authors?page[limit]=2",
                "/authors?page[limit]=2&page[offset]=2",
                None
            ),
            "{answer:#}"
        );
        assert_eq!(
            answer["body"]["meta"],
            json!({"count": 3, "limit": 2, "offset": 2})
        );
        // The members' own links disagree with the form: their calls take no page size.
        let answer = fixture.call("get_members", json!({"name": "Maya", "page[limit]": "1"}));
        assert_eq!(answer["is_error"], true, "{answer:#}");
    }
}
