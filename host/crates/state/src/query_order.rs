//! The order an application's calls send their query parameters in, learned from the recorded
//! calls, for the answers that repeat a call's query (the page links of
//! [`crate::page_cursor`]): a tool call's arguments arrive as a JSON object, which keeps no
//! order, so a link repeating "the query as sent" is spelled in the order the recorded calls
//! sent their parameters instead.
//!
//! Learned at two levels: the parameter families (a name up to its first `[`: `include`,
//! `filter`, `sort`, `page`), so a filter no call named still takes the filters' place, and
//! the names within a family (`page[size]` before `page[number]`): `a` precedes `b` where a
//! recorded call sent `a` before `b`, or through a chain of such calls. A call's pairs are
//! repeated in the one order closest to the order they came in that keeps every such
//! precedence; pairs no recorded call ordered keep the order they came in. Recorded calls that
//! contradict each other teach no order, and a call is then repeated as it came.
//!
//! Where the caller's own order is known (the names of its arguments as it sent them, beside
//! the argument object: see [`in_sent_order`]) and the build shows the application repeating a
//! call as it was sent ([`shows_sent_order`]: a recorded call whose echo repeats an order that
//! neither name order nor the order the other recorded calls teach gives it), a call is repeated
//! in its own order; where it is not known, or the build shows no such call, by the rule above.

use serde::{Deserialize, Serialize};

use rea_plugin_api::contracts::capture::url::decode_query;
use rea_plugin_api::json::{Json, escape_pointer_segment};

use crate::model::{CursorForm, QueryModel, QueryRole};
use crate::observation::Observation;

/// Which parameters precede which in the recorded calls (see the module docs); empty when none
/// was learned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryOrder {
    /// Families a recorded call sent one before the other (before, after).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<(String, String)>,
    /// Names of one family a recorded call sent one before the other (before, after).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<(String, String)>,
    /// Whether the recorded calls show the application repeating a call's query as it was sent
    /// ([`shows_sent_order`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub as_sent: bool,
}

impl QueryOrder {
    /// The precedences the recorded calls' query pairs (each call's pairs as sent) show; none
    /// when they contradict each other.
    pub fn learn<'a>(calls: impl IntoIterator<Item = &'a [(String, String)]>) -> Self {
        let calls: Vec<&[(String, String)]> = calls.into_iter().collect();
        let as_sent = shows_sent_order(&calls);
        QueryOrder {
            as_sent,
            ..Self::precedences(calls)
        }
    }

    /// The precedences alone (see [`QueryOrder::learn`]).
    fn precedences<'a>(calls: impl IntoIterator<Item = &'a [(String, String)]>) -> Self {
        let mut order = QueryOrder::default();
        for pairs in calls {
            for (at, (before, _)) in pairs.iter().enumerate() {
                for (after, _) in &pairs[at + 1..] {
                    let edges = if family(before) == family(after) {
                        (&mut order.names, before.as_str(), after.as_str())
                    } else {
                        (&mut order.families, family(before), family(after))
                    };
                    let (edges, before, after) = edges;
                    let edge = (before.to_owned(), after.to_owned());
                    if before != after && !edges.contains(&edge) {
                        edges.push(edge);
                    }
                }
            }
        }
        if cyclic(&order.families) || cyclic(&order.names) {
            return QueryOrder::default();
        }
        order
    }

    /// Whether nothing was learned (no precedence, no evidence of repeating calls as sent).
    pub fn is_empty(&self) -> bool {
        self.families.is_empty() && self.names.is_empty() && !self.as_sent
    }

    /// A call's pairs as its links repeat them: as they come where the application repeats
    /// calls as sent (the caller's order was applied before, [`repeated`]), else arranged.
    pub fn repeat(&self, pairs: &[(String, String)]) -> Vec<(String, String)> {
        if self.as_sent {
            return pairs.to_vec();
        }
        self.arrange(pairs)
    }

    /// Whether a parameter named `a` must precede one named `b`.
    fn precedes(&self, a: &str, b: &str) -> bool {
        if family(a) == family(b) {
            a != b && reaches(&self.names, a, b)
        } else {
            reaches(&self.families, family(a), family(b))
        }
    }

    /// A call's pairs in the learned order (see the module docs): repeatedly the pair that
    /// came first among those whose predecessors are placed, a pair that must precede an
    /// earlier one taking that one's turn.
    pub fn arrange(&self, pairs: &[(String, String)]) -> Vec<(String, String)> {
        if self.families.is_empty() && self.names.is_empty() {
            return pairs.to_vec();
        }
        let count = pairs.len();
        let before = |i: usize, j: usize| self.precedes(&pairs[i].0, &pairs[j].0);
        let turn: Vec<usize> = (0..count)
            .map(|i| {
                (0..count)
                    .filter(|j| *j == i || before(i, *j))
                    .min()
                    .unwrap_or(i)
            })
            .collect();
        let mut placed: Vec<usize> = Vec::new();
        while placed.len() < count {
            let next = (0..count)
                .filter(|i| !placed.contains(i))
                .filter(|i| (0..count).all(|j| !before(j, *i) || placed.contains(&j)))
                .min_by_key(|i| (turn[*i], *i));
            let Some(next) = next else {
                return pairs.to_vec();
            };
            placed.push(next);
        }
        placed.into_iter().map(|i| pairs[i].clone()).collect()
    }
}

/// Whether the recorded calls (each call's pairs as sent, every one echoed as the learner
/// checked) show the application repeating a call's query as it was sent: some call sent its
/// names in an order that neither name order nor the order the calls sending other names teach
/// gives it. Calls sending the same names in the same order count once (they teach each other
/// nothing new), which also bounds the work by the distinct orders, not the calls.
pub fn shows_sent_order(calls: &[&[(String, String)]]) -> bool {
    let mut distinct: Vec<&[(String, String)]> = Vec::new();
    for call in calls {
        if !distinct.iter().any(|seen| same_names(seen, call)) {
            distinct.push(call);
        }
    }
    distinct.iter().enumerate().any(|(at, call)| {
        let named = name_ordered(call);
        if same_names(&named, call) {
            return false;
        }
        let others = (distinct.iter().enumerate())
            .filter(|(other, _)| *other != at)
            .map(|(_, other)| *other);
        !same_names(&QueryOrder::precedences(others).arrange(&named), call)
    })
}

/// Whether two calls send the same names in the same order.
fn same_names(a: &[(String, String)], b: &[(String, String)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.0 == b.0)
}

/// A call's pairs in name order (as its arguments arrive where their order is not known).
fn name_ordered(pairs: &[(String, String)]) -> Vec<(String, String)> {
    let mut named = pairs.to_vec();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named
}

/// A call's pairs in the order its caller sent them: `sent` names each pair's parameter (or, for
/// a list folded under its base name, the base followed by `[`) in sent order; a pair `sent`
/// does not name keeps its place after those it names.
pub fn in_sent_order(pairs: &[(String, String)], sent: &[String]) -> Vec<(String, String)> {
    let rank = |name: &str| {
        sent.iter()
            .position(|sent| {
                sent == name
                    || sent
                        .strip_prefix(name)
                        .is_some_and(|rest| rest.starts_with('['))
            })
            .unwrap_or(usize::MAX)
    };
    let mut ordered = pairs.to_vec();
    ordered.sort_by_key(|(name, _)| rank(name));
    ordered
}

/// The pairs a list answer's echoes repeat (the query echo of [`crate::query_echo`] and the
/// links of [`crate::page_cursor`]), in the order they are handed on: the caller's order where
/// it is known and `model` shows the application repeating calls as sent; where it shows that
/// but the caller's order is not known, the order the recorded calls sent theirs; else as they
/// came (each echo keeping its own rule).
pub fn repeated(
    model: Option<&QueryModel>,
    pairs: Vec<(String, String)>,
    sent: Option<&[String]>,
) -> Vec<(String, String)> {
    let Some(model) = model else {
        return pairs;
    };
    let link_order = model
        .cursor_members
        .iter()
        .find_map(|member| match &member.form {
            CursorForm::PageLinks { order, .. } if order.as_sent => Some(order),
            _ => None,
        });
    let echo_as_sent = (model.paged_members.iter())
        .any(|member| member.echo.as_ref().is_some_and(|echo| echo.as_sent));
    match (sent, link_order) {
        (Some(sent), _) if echo_as_sent || link_order.is_some() => in_sent_order(&pairs, sent),
        (None, Some(order)) => order.arrange(&pairs),
        _ => pairs,
    }
}

/// Marks `model`'s echoes (its query echoes and page links) as repeating calls as sent where
/// the view's recorded answers (`observations`, each with its body) show it beyond the lines the
/// model learned from (a call its query model leaves to another answer, an inclusion, still
/// echoes its query): every answer echoes its call's query, at each echo the model learned, in
/// the order the call sent it (the position and page-size parameters aside, which a links
/// spelling places itself), and those calls show the order as sent ([`shows_sent_order`]).
pub fn mark_echoed(model: &mut QueryModel, observations: &[&Observation]) {
    let sites = echo_sites(model);
    if sites.is_empty() {
        return;
    }
    let placed = placed_names(model);
    let mut calls: Vec<Vec<(String, String)>> = Vec::new();
    for observation in observations {
        let sent: Vec<(String, String)> = (observation.pairs().iter())
            .filter(|(name, _)| !placed.contains(name))
            .cloned()
            .collect();
        let Some(body) = observation.body.as_ref().filter(|_| !sent.is_empty()) else {
            continue;
        };
        for pointer in &sites {
            let Some((_, query)) = (body.pointer(pointer).and_then(Json::as_str))
                .and_then(|text| text.split_once('?'))
            else {
                continue;
            };
            let mut echoed: Vec<(String, String)> = decode_query(query);
            echoed.retain(|(name, _)| sent.iter().any(|(sent, _)| sent == name));
            echoed.dedup_by(|a, b| a.0 == b.0);
            if !same_names(&echoed, &sent) {
                return;
            }
            calls.push(sent.clone());
        }
    }
    let calls: Vec<&[(String, String)]> = calls.iter().map(Vec::as_slice).collect();
    if !shows_sent_order(&calls) {
        return;
    }
    for member in &mut model.paged_members {
        if let Some(echo) = &mut member.echo {
            echo.as_sent = true;
        }
    }
    for member in &mut model.cursor_members {
        if let CursorForm::PageLinks { order, .. } = &mut member.form {
            order.as_sent = true;
        }
    }
}

/// The pointers of a model's echoes: its query echo members and each relation of its page links.
fn echo_sites(model: &QueryModel) -> Vec<String> {
    let echoes = (model.paged_members.iter())
        .filter(|member| member.echo.is_some())
        .map(|member| member.pointer.clone());
    let links = model.cursor_members.iter().flat_map(|member| {
        let relations = match &member.form {
            CursorForm::PageLinks { relations, .. } => relations.as_slice(),
            _ => &[],
        };
        relations.iter().map(|relation| {
            format!(
                "{}/{}",
                member.pointer,
                escape_pointer_segment(&relation.key)
            )
        })
    });
    echoes.chain(links).collect()
}

/// The position and page-size parameters of a model, which a links spelling places itself.
fn placed_names(model: &QueryModel) -> Vec<String> {
    let roles = (model.parameters.iter()).chain(&model.generalized);
    let mut placed: Vec<String> = roles
        .filter(|(_, role)| {
            matches!(
                role,
                QueryRole::Page { .. } | QueryRole::Offset | QueryRole::PageSize
            )
        })
        .map(|(name, _)| name.clone())
        .collect();
    for member in &model.cursor_members {
        if let CursorForm::PageLinks {
            link_only: Some((position, size)),
            ..
        } = &member.form
        {
            placed.extend([position.clone(), size.clone()]);
        }
    }
    placed
}

/// A parameter's family: its name up to its first `[`.
fn family(name: &str) -> &str {
    name.split_once('[').map_or(name, |(base, _)| base)
}

/// Whether `to` is reachable from `from` along the edges (one edge or more).
fn reaches(edges: &[(String, String)], from: &str, to: &str) -> bool {
    let mut seen: Vec<&str> = vec![from];
    let mut at = 0;
    while let Some(node) = seen.get(at).copied() {
        for (before, after) in edges {
            if before == node {
                if after == to {
                    return true;
                }
                if !seen.contains(&after.as_str()) {
                    seen.push(after);
                }
            }
        }
        at += 1;
    }
    false
}

/// Whether the edges close a cycle.
fn cyclic(edges: &[(String, String)]) -> bool {
    edges
        .iter()
        .any(|(before, _)| reaches(edges, before, before))
}

#[cfg(test)]
mod tests {
    use super::QueryOrder;

    fn pairs(names: &[&str]) -> Vec<(String, String)> {
        names
            .iter()
            .map(|name| ((*name).to_owned(), "v".to_owned()))
            .collect()
    }

    fn names(pairs: &[(String, String)]) -> Vec<&str> {
        pairs.iter().map(|(name, _)| name.as_str()).collect()
    }

    #[test]
    fn calls_are_repeated_in_the_order_the_recorded_calls_sent() {
        let calls = [
            pairs(&["filter[project.id]", "sort"]),
            pairs(&["fields[task]"]),
            pairs(&["sort", "page[size]"]),
            pairs(&["sort", "page[size]", "page[number]"]),
            pairs(&["include", "filter[status]"]),
            pairs(&["filter[assignee.id]", "filter[status]"]),
        ];
        let order = QueryOrder::learn(calls.iter().map(Vec::as_slice));
        // A call arriving in name order: `filter` before `sort`, `sort` before `page`, the
        // page size before the page number, `include` before `filter`; a filter no call named
        // takes the filters' place; what no call ordered (`fields`, `q`, two filters never sent
        // together) keeps its place.
        let arrived = pairs(&[
            "fields[task]",
            "filter[priority]",
            "filter[project.id]",
            "include",
            "page[number]",
            "page[size]",
            "q",
            "sort",
        ]);
        assert_eq!(
            names(&order.arrange(&arrived)),
            [
                "fields[task]",
                "include",
                "filter[priority]",
                "filter[project.id]",
                "sort",
                "page[size]",
                "page[number]",
                "q"
            ]
        );
        // A recorded call is repeated as it was sent.
        for call in &calls {
            assert_eq!(order.arrange(call), *call);
        }
    }

    #[test]
    fn contradicting_calls_teach_no_order() {
        let calls = [pairs(&["sort", "filter[a]"]), pairs(&["filter[b]", "sort"])];
        let order = QueryOrder::learn(calls.iter().map(Vec::as_slice));
        assert!(order.families.is_empty() && order.names.is_empty());
        // (Each call echoed in its own order shows the application repeating calls as sent.)
        assert!(order.as_sent);
        let arrived = pairs(&["filter[a]", "sort"]);
        assert_eq!(order.arrange(&arrived), arrived);
        // A family sent on both sides of another contradicts itself.
        let unordered = |order: QueryOrder| order.families.is_empty() && order.names.is_empty();
        let split = [pairs(&["filter[a]", "sort", "filter[b]"])];
        assert!(unordered(QueryOrder::learn(
            split.iter().map(Vec::as_slice)
        )));
        // Names of one family in both orders.
        let swapped = [
            pairs(&["sort", "page[size]", "page[number]"]),
            pairs(&["page[number]", "page[size]"]),
        ];
        assert!(unordered(QueryOrder::learn(
            swapped.iter().map(Vec::as_slice)
        )));
    }

    #[test]
    fn an_order_neither_name_order_nor_the_other_calls_give_shows_calls_echoed_as_sent() {
        // `include` before `filter`: not name order, and no other call orders the two.
        let calls = [
            pairs(&["include", "filter[status]"]),
            pairs(&["sort", "page[size]"]),
        ];
        let slices: Vec<&[(String, String)]> = calls.iter().map(Vec::as_slice).collect();
        assert!(super::shows_sent_order(&slices));
        assert!(QueryOrder::learn(slices.iter().copied()).as_sent);
        // Name order, or an order another call teaches, shows nothing: a canonical order of
        // the application's would repeat them alike.
        let named = [pairs(&["filter[status]", "sort"]), pairs(&["include"])];
        let slices: Vec<&[(String, String)]> = named.iter().map(Vec::as_slice).collect();
        assert!(!super::shows_sent_order(&slices));
        let taught = [
            pairs(&["sort", "page[size]"]),
            pairs(&["sort", "page[size]", "page[number]"]),
            pairs(&["page[size]", "page[number]"]),
        ];
        let slices: Vec<&[(String, String)]> = taught.iter().map(Vec::as_slice).collect();
        assert!(!super::shows_sent_order(&slices));
        // The same order sent twice teaches itself nothing.
        let twice = [
            pairs(&["sort", "page[size]"]),
            pairs(&["sort", "page[size]"]),
        ];
        let slices: Vec<&[(String, String)]> = twice.iter().map(Vec::as_slice).collect();
        assert!(super::shows_sent_order(&slices));
        // Calls in both orders (which teach no precedence) show it too.
        let both = [pairs(&["sort", "filter[a]"]), pairs(&["filter[a]", "sort"])];
        let slices: Vec<&[(String, String)]> = both.iter().map(Vec::as_slice).collect();
        assert!(super::shows_sent_order(&slices));
    }

    #[test]
    fn a_call_is_repeated_in_its_callers_order_where_known_else_arranged() {
        let arrived = pairs(&["filter[b]", "include", "page[number]", "page[size]"]);
        let sent = ["page[size]", "include", "filter"].map(str::to_owned);
        // A pair its caller named keeps the caller's place (a folded list by its base); one it
        // did not keeps its own after them.
        assert_eq!(
            names(&super::in_sent_order(&arrived, &sent)),
            ["page[size]", "include", "filter[b]", "page[number]"]
        );
        let calls = [
            pairs(&["page[size]", "page[number]", "sort"]),
            pairs(&["page[size]", "page[number]"]),
        ];
        let mut order = QueryOrder::learn(calls.iter().map(Vec::as_slice));
        assert!(!order.as_sent);
        assert_eq!(
            names(&order.repeat(&arrived)),
            ["filter[b]", "include", "page[size]", "page[number]"]
        );
        order.as_sent = true;
        assert_eq!(order.repeat(&arrived), arrived);
    }

    #[test]
    fn answers_outside_the_model_evidence_the_echo_as_sent() {
        use crate::model::{PagedMember, QueryEcho, QueryModel};
        use crate::test_support::read_observation;
        let mut model = QueryModel::of_roles(&[]);
        model.paged_members.push(PagedMember {
            pointer: "/links/self".to_owned(),
            complete: Vec::new(),
            offset: false,
            size: false,
            max: None,
            echo: Some(QueryEcho {
                prefix: "/t".to_owned(),
                decoded: true,
                as_sent: false,
            }),
            arithmetic: None,
        });
        let body = |link: &str| format!(r#"{{"data": [], "links": {{"self": "{link}"}}}}"#);
        let included = read_observation(
            1,
            "/t",
            &[("include", "p"), ("filter[s]", "a")],
            &body("/t?include=p&filter[s]=a&page[limit]=9"),
        );
        let plain = read_observation(2, "/t", &[("filter[s]", "a")], &body("/t?filter[s]=a"));
        let echo_of = |model: &QueryModel| model.paged_members[0].echo.clone().expect("echo");
        let mut sorted_only = model.clone();
        super::mark_echoed(&mut sorted_only, &[&plain]);
        assert!(!echo_of(&sorted_only).as_sent);
        // An answer echoing its call in another order than sent: no evidence at all.
        let resorted = read_observation(
            3,
            "/t",
            &[("include", "p"), ("filter[s]", "a")],
            &body("/t?filter[s]=a&include=p"),
        );
        let mut contradicted = model.clone();
        super::mark_echoed(&mut contradicted, &[&plain, &included, &resorted]);
        assert!(!echo_of(&contradicted).as_sent);
        super::mark_echoed(&mut model, &[&plain, &included]);
        assert!(echo_of(&model).as_sent);
    }
}
