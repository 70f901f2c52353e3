//! The `sort-inference` rule: where a created entity goes in its collection's order, and how an
//! update moves it.
//!
//! **Learn** (creates and updates), only from reads that listed the whole collection in its own
//! order (`ObservedRead::whole`, never `query_sorted`: a read whose query sorts it shows the
//! query's order, not the collection's):
//!
//! * a create that every such read listed first is placed `first`;
//! * an update that every such read listed where it was before is kept in place (`keep`);
//! * a create that every such read listed last is placed `last`, unless every call sent the
//!   value of a field such reads are sorted by (a key the client chose: Syncthing's folder `id`),
//!   when the sort placed it there (the reference tool places such a create again by the sort);
//! * otherwise, a top-level field the order of every such read follows (`sorted_by`), which the
//!   written entity holds: the collection is kept sorted by it (`sorted`), so a create goes where
//!   the sort puts it and an update moves;
//! * an update that every such read listed first is moved `first`.
//!
//! No such read, or none of these fitting every read: no explanation (the host keeps an update in
//! place and adds a create last). The learned rule carries `placement`; applied, it returns it.

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, NoOptions, ObservedRead,
    Placement, ReadKind,
};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};

/// The stage name.
pub const STAGE: &str = "sort-inference";

/// The sort-inference rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct SortInference;

/// The learned rule: where the written entity goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Learned {
    /// The placement.
    pub placement: Placement,
}

impl StateRule for SortInference {
    type Options = NoOptions;
    type Rule = Learned;

    /// The effects `learn` answers for; asked whatever is unexplained (it places the entity).
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::effects([
            rea_plugin_api::contracts::rule::Effect::Create,
            rea_plugin_api::contracts::rule::Effect::Update,
            rea_plugin_api::contracts::rule::Effect::Action,
        ])
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Learned>, PluginError> {
        let create = request.effect == Effect::Create;
        if !create && request.effect != Effect::Update && request.effect != Effect::Action {
            return Ok(LearnOutcome::no_explanation(
                "only creates and updates place an entity in its list",
            ));
        }
        let reads = ordered_reads(request);
        if reads.is_empty() {
            return Ok(LearnOutcome::no_explanation(
                "no read listed the whole collection in its own order after a call",
            ));
        }
        let first = reads.iter().all(|(read, _)| read.position == Some(0));
        let last = reads.iter().all(|(read, _)| {
            let length = read.list_order.as_ref().map_or(0, Vec::len);
            read.position.is_some_and(|position| position + 1 == length)
        });
        let kept = reads
            .iter()
            .all(|(read, before)| before.is_some() && read.position == *before);
        let sort = sort_placement(request, &reads);
        let placement = if create {
            if first {
                Some(Placement::First)
            } else if last && !sort.as_ref().is_some_and(|sort| sorts_sent(request, sort)) {
                Some(Placement::Last)
            } else {
                sort
            }
        } else if kept {
            Some(Placement::Keep)
        } else if sort.is_some() {
            sort
        } else if first {
            Some(Placement::First)
        } else {
            None
        };
        match placement {
            Some(placement) => Ok(LearnOutcome::learned(Vec::new(), Learned { placement })),
            None => Ok(LearnOutcome::no_explanation(
                "the reads after the calls follow no one placement",
            )),
        }
    }

    fn apply(&self, request: &ApplyRequest<Learned>) -> Result<ApplyOutcome, PluginError> {
        Ok(ApplyOutcome {
            placement: Some(request.rule.placement.clone()),
            ..ApplyOutcome::default()
        })
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the sort-inference rule.
    pub fn root_module() = Plugin::new("rea-sort-inference", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Learns where creates go in their list and how updates move entities, from whole-list reads in the collection's own order"),
        SortInference,
    );
}

rea_plugin_api::submit_builtin!(root_module);

/// The whole-list reads in the list's own order after each call, with the position the entity had
/// before that call.
fn ordered_reads(request: &LearnRequest<NoOptions>) -> Vec<(&ObservedRead, Option<usize>)> {
    let mut reads = Vec::new();
    for call in &request.calls {
        for read in &call.reads_after {
            if read.kind == ReadKind::List
                && read.whole
                && !read.query_sorted
                && read.position.is_some()
            {
                reads.push((read, call.position_before));
            }
        }
    }
    reads
}

/// Whether every call sent the value the sort orders by (a key the client chose, Syncthing's
/// folder `id`): a create listed last then sits where the sort put it, the last place being
/// what its value gave it (a generated one, a sequence's next number, goes last either way,
/// and `last` keeps it there where text ids would sort `"10"` before `"9"`).
fn sorts_sent(request: &LearnRequest<NoOptions>, sort: &Placement) -> bool {
    let Placement::Sorted { field, .. } = sort else {
        return false;
    };
    request.calls.iter().all(|call| {
        rea_plugin_api::rule_fields::sent_members(call.request_body.as_ref())
            .is_some_and(|sent| sent.contains_key(field))
    })
}

/// The sort every read agrees on, over a field every call wrote, preferring one the calls
/// changed (a clock, a renamed title) over one they did not.
fn sort_placement(
    request: &LearnRequest<NoOptions>,
    reads: &[(&ObservedRead, Option<usize>)],
) -> Option<Placement> {
    let mut sorted: Option<Vec<String>> = None;
    for (read, _) in reads {
        let here: Vec<String> = read.sorted_by.clone();
        sorted = Some(match sorted {
            None => here,
            Some(previous) => previous
                .into_iter()
                .filter(|key| here.contains(key))
                .collect(),
        });
    }
    let written_fields = |field: &str| {
        request.calls.iter().all(|call| {
            call.entity_after
                .as_ref()
                .and_then(|after| after.get(field))
                .is_some()
        })
    };
    let changed = |field: &str| {
        request.calls.iter().any(|call| {
            let before = call
                .entity_before
                .as_ref()
                .and_then(|before| before.get(field));
            let after = call
                .entity_after
                .as_ref()
                .and_then(|after| after.get(field));
            before != after
        })
    };
    let mut sorts: Vec<String> = sorted
        .unwrap_or_default()
        .into_iter()
        .filter(|key| written_fields(key.trim_start_matches('-')))
        .collect();
    sorts.sort_by_key(|key| !changed(key.trim_start_matches('-')));
    sorts.first().map(|key| Placement::Sorted {
        field: key.trim_start_matches('-').to_owned(),
        descending: key.starts_with('-'),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{ObservedCall, ServedCall, ToolRef};
    use serde_json::json;

    fn tool() -> ToolRef {
        ToolRef {
            method: "POST".into(),
            name: "post_tasks".into(),
            path_template: "/tasks".into(),
        }
    }

    fn list(order: &[&str], id: &str, sorted_by: &[&str], query_sorted: bool) -> ObservedRead {
        ObservedRead {
            kind: ReadKind::List,
            list_order: Some(order.iter().map(|id| (*id).to_owned()).collect()),
            position: order.iter().position(|listed| *listed == id),
            sorted_by: sorted_by.iter().map(|key| (*key).to_owned()).collect(),
            query_sorted,
            whole: true,
            status: 200,
            ..ObservedRead::default()
        }
    }

    fn learn(effect: &str, calls: Vec<ObservedCall>) -> LearnOutcome<Learned> {
        SortInference
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: serde_json::from_value(serde_json::Value::from(effect)).expect("an effect"),
                identity_field: Some("id".into()),
                options: NoOptions {},
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns")
    }

    fn placement(outcome: &LearnOutcome<Learned>) -> Option<Placement> {
        match outcome {
            LearnOutcome::Learned { rule, .. } => Some(rule.placement.clone()),
            LearnOutcome::NoExplanation { .. } => None,
        }
    }

    #[test]
    fn creates_listed_first_go_first() {
        // contract: WRITE-004
        let outcome = learn(
            "create",
            vec![ObservedCall {
                entity_after: Some(json!({"id": "n", "t": 9})),
                reads_after: vec![list(&["n", "a", "b"], "n", &["-t"], false)],
                ..ObservedCall::default()
            }],
        );
        assert_eq!(placement(&outcome), Some(Placement::First));
        let applied = SortInference
            .apply(&ApplyRequest {
                call: ServedCall::default(),
                rule: match outcome {
                    LearnOutcome::Learned { rule, .. } => rule,
                    LearnOutcome::NoExplanation { .. } => unreachable!(),
                },
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        assert_eq!(applied.placement, Some(Placement::First));
    }

    #[test]
    fn a_create_listed_last_in_a_list_sorted_by_a_key_it_sent_goes_where_the_sort_puts_it() {
        // Listed last, the list sorted by the id the call sent: the sort explains it too, and a
        // later create whose id sorts first goes first.
        let created = |sent: serde_json::Value| ObservedCall {
            entity_after: Some(json!({"id": "projects"})),
            request_body: Some(sent),
            reads_after: vec![list(
                &["docs", "music", "projects"],
                "projects",
                &["id"],
                false,
            )],
            ..ObservedCall::default()
        };
        assert_eq!(
            placement(&learn("create", vec![created(json!({"id": "projects"}))])),
            Some(Placement::Sorted {
                field: "id".to_owned(),
                descending: false
            })
        );
        // An id the application generated (a sequence's next number) goes last.
        assert_eq!(
            placement(&learn("create", vec![created(json!({"label": "x"}))])),
            Some(Placement::Last)
        );
        // Listed last in a list no field sorts: last.
        let outcome = learn(
            "create",
            vec![ObservedCall {
                entity_after: Some(json!({"id": "a"})),
                reads_after: vec![list(&["m", "b", "a"], "a", &[], false)],
                ..ObservedCall::default()
            }],
        );
        assert_eq!(placement(&outcome), Some(Placement::Last));
    }

    #[test]
    fn a_sort_is_never_learned_from_a_query_sorted_read() {
        // The only list after the create was sorted by its query: it says nothing of the
        // collection's own order.
        let outcome = learn(
            "create",
            vec![ObservedCall {
                entity_after: Some(json!({"id": "n", "title": "m"})),
                reads_after: vec![list(&["a", "n", "z"], "n", &[], true)],
                ..ObservedCall::default()
            }],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn updates_move_by_the_sort_whole_lists_confirmed() {
        // The renamed entity moved from position 2 to 0 in a list sorted by title: a sort.
        let outcome = learn(
            "update",
            vec![ObservedCall {
                entity_after: Some(json!({"id": "c", "title": "Aardvark"})),
                position_before: Some(2),
                request_body: Some(json!({"title": "Aardvark"})),
                reads_after: vec![list(&["c", "a", "b"], "c", &["title"], false)],
                ..ObservedCall::default()
            }],
        );
        assert_eq!(
            placement(&outcome),
            Some(Placement::Sorted {
                field: "title".into(),
                descending: false
            })
        );
        // Listed where it was: kept in place, whatever sort the order also follows.
        let kept = learn(
            "update",
            vec![ObservedCall {
                entity_after: Some(json!({"id": "b", "title": "b2"})),
                position_before: Some(1),
                reads_after: vec![list(&["a", "b", "c"], "b", &["title", "id"], false)],
                ..ObservedCall::default()
            }],
        );
        assert_eq!(placement(&kept), Some(Placement::Keep));
        // A read that contradicts the sort: nothing learned.
        let contradicted = learn(
            "update",
            vec![ObservedCall {
                entity_after: Some(json!({"id": "c", "title": "m"})),
                position_before: Some(2),
                reads_after: vec![list(&["a", "c", "b"], "c", &[], false)],
                ..ObservedCall::default()
            }],
        );
        assert!(
            matches!(contradicted, LearnOutcome::NoExplanation { .. }),
            "{contradicted:?}"
        );
    }
}
