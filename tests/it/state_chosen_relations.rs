//! Relation embedding chosen per call (`rea_state::chosen_relations`, issue 12): Sails.js's
//! tasks embed their `project` and `assignee` records, and `populate=<association>` embeds that
//! one, the other as its id. The build recorded `populate=project` and `populate=false` on the
//! task list; the probe's `populate=assignee` is answered from the state, also after a served
//! write, and a value naming no association is not modelled. json-server v1's `_embed`, whose
//! values name relations its entities hold only as ids, learns no such rule: each value alone is
//! a learned relation (`rea_state::relations`), and the repeated form the build never sent stays
//! refused.

use serde_json::{Value, json};

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::assert_state_answers;
use crate::state_support::{
    Served, assert_not_modelled, call_with_strings, probe_with_line, recorded_answer,
    request_arguments, serve_corpus_app,
};

/// The rule a served state learned for a parameter, if any.
fn rule_of<'a>(
    served: &'a Served,
    parameter: &str,
) -> Option<&'a rea_state::chosen_relations::ChosenRelation> {
    (served.state().chosen_relations.iter()).find(|rule| rule.parameter == parameter)
}

#[test]
fn a_populated_association_is_chosen_per_call() {
    let (served, probes) = served_with_probes("sails");
    let rule = rule_of(&served, "populate").expect("the populate rule");
    assert_eq!(rule.entity_type, "/task");
    let members: Vec<(&str, &str)> = (rule.members.iter())
        .map(|(member, key)| (member.as_str(), key.as_str()))
        .collect();
    assert_eq!(members, [("assignee", "id"), ("project", "id")]);
    assert_eq!(rule.recorded.iter().collect::<Vec<_>>(), ["project"]);
    // Never recorded: the assignee populated, the project as its id.
    assert_state_answers(
        &served,
        &probes,
        "get_task",
        &["GET /task?populate=assignee"],
    );
    // Recorded: answered from the state as the build's line showed it.
    let line = probe_with_line(&served.records, "GET /task?populate=project");
    let (answer, is_error) = call_with_strings(&served, "get_task", &[("populate", "project")]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer.get("body"), Some(&recorded_answer(line).1));
    // A value naming no association the state can embed.
    for value in ["title", "tasks", "owner"] {
        let (answer, is_error) = call_with_strings(&served, "get_task", &[("populate", value)]);
        assert_not_modelled(&answer, is_error);
    }
}

#[test]
fn a_chosen_association_follows_served_writes() {
    let served = serve_corpus_app("sails");
    let arguments = request_arguments(
        &served,
        "patch_task_by_id",
        (&["task", "3"], &[]),
        Some(json!({"assignee": 2, "project": 4})),
    );
    let (patched, is_error) = served.call("patch_task_by_id", arguments);
    assert!(!is_error, "{patched}");
    let (answer, is_error) = call_with_strings(&served, "get_task", &[("populate", "assignee")]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let task = (answer["body"].as_array().expect("a list").iter())
        .find(|task| task["id"] == 3)
        .expect("task 3");
    assert_eq!(task["project"], 4, "{task}");
    assert_eq!(task["assignee"]["name"], "Kofi Mensah", "{task}");
    let unassigned = (answer["body"].as_array().expect("a list").iter())
        .find(|task| task["id"] == 6)
        .expect("task 6");
    assert_eq!(
        (
            unassigned["project"].clone(),
            unassigned["assignee"].clone()
        ),
        (json!(2), Value::Null)
    );
}

#[test]
fn relations_held_only_as_ids_choose_nothing() {
    let (served, probes) = served_with_probes("json-server-v1");
    assert_eq!(rule_of(&served, "_embed"), None);
    assert!(served.state().chosen_relations.is_empty());
    // Each value alone answers from the state through its learned relation, for a ticket the
    // state holds only from lists.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tickets_by_id",
        &[("id", "105"), ("_embed", "customer")],
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(
        answer["body"]["customer"]["name"], "Cobalt Labs",
        "{answer}"
    );
    // The repeated form, never recorded, is not answered.
    let probe = probe_with_line(&probes, "GET /tickets/105?_embed=notes&_embed=customer");
    let mut arguments = crate::state_query_lists::list_arguments(probe);
    arguments.insert("id".to_owned(), Value::String("105".to_owned()));
    let (answer, is_error) = served.call("get_tickets_by_id", arguments);
    assert!(is_error, "{answer}");
}
