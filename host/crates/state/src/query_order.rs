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

use serde::{Deserialize, Serialize};

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
}

impl QueryOrder {
    /// The precedences the recorded calls' query pairs (each call's pairs as sent) show; none
    /// when they contradict each other.
    pub fn learn<'a>(calls: impl IntoIterator<Item = &'a [(String, String)]>) -> Self {
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

    /// Whether no precedence was learned.
    pub fn is_empty(&self) -> bool {
        self.families.is_empty() && self.names.is_empty()
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
        if self.is_empty() {
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
        assert!(order.is_empty());
        let arrived = pairs(&["filter[a]", "sort"]);
        assert_eq!(order.arrange(&arrived), arrived);
        // A family sent on both sides of another contradicts itself.
        let split = [pairs(&["filter[a]", "sort", "filter[b]"])];
        assert!(QueryOrder::learn(split.iter().map(Vec::as_slice)).is_empty());
        // Names of one family in both orders.
        let swapped = [
            pairs(&["sort", "page[size]", "page[number]"]),
            pairs(&["page[number]", "page[size]"]),
        ];
        assert!(QueryOrder::learn(swapped.iter().map(Vec::as_slice)).is_empty());
    }
}
