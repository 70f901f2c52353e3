//! Write learning on recorded corpus apps: a `PATCH` update (or document merge) accepts any
//! subset of the members its recorded calls sent (the member left out keeps its value), and an update whose calls
//! also changed an entity the state never held is learned from the calls that show it.

use crate::state_support;

use serde_json::{Map, Value};
use state_support::agreement::route;
use state_support::{Served, capture, capture_file, serve_evidence, state_rules};

/// Recorded apps whose served `PATCH` updates were recorded sending several members.
const PATCH_APPS: [&str; 3] = [
    "kinto/build.har",
    "tests/corpus/apps/directus/build.har",
    "tests/corpus/apps/json-server-v1/build.har",
];

/// An app's build served from the state (`tests/…` names a corpus app's capture file).
pub(crate) fn served(app: &str) -> Served {
    let evidence = match app.strip_prefix("tests/") {
        Some(_) => capture_file(&rea_tests::workspace_root().join(app)),
        None => capture(app),
    };
    serve_evidence(evidence, state_rules(), Default::default())
}

/// The exemplar call of a plan, routed to its tool, its body narrowed to the one member `keep`
/// (under the plan's envelope); `None` when the exemplar does not route to the plan's tool.
fn narrowed_call(
    served: &Served,
    plan: &rea_state::writes::model::WritePlan,
) -> Option<(Map<String, Value>, String, Value)> {
    let ordinal = plan.exemplar_ordinal?;
    let record = served.records.iter().find(|r| r.ordinal == ordinal)?;
    let (tool, mut arguments) = route(served, record)?;
    if tool != plan.tool {
        return None;
    }
    let envelope = plan.body.as_ref()?.envelope.clone();
    let body = arguments
        .values_mut()
        .find(|value| value.pointer(&envelope).is_some_and(Value::is_object))?;
    let members = body.pointer_mut(&envelope)?.as_object_mut()?;
    let (kept, value) = members
        .iter()
        .next()
        .map(|(key, value)| (key.clone(), value.clone()))?;
    members.retain(|key, _| *key == kept);
    Some((arguments, kept, value))
}

#[test]
fn a_patch_update_accepts_one_member_of_those_recorded_and_keeps_the_rest() {
    let mut apps = 0;
    for app in PATCH_APPS {
        let served = served(app);
        let mut checked = 0;
        for plan in served.state().write_plans.iter().filter(|plan| {
            plan.served
                && plan.method.eq_ignore_ascii_case("PATCH")
                && plan
                    .body
                    .as_ref()
                    .is_some_and(|body| body.members.len() > 1)
        }) {
            let members = &plan.body.as_ref().expect("a body").members;
            assert!(
                members.values().all(|member| !member.required),
                "{app}: {}: {members:?}",
                plan.tool
            );
            let Some((arguments, kept, value)) = narrowed_call(&served, plan) else {
                continue;
            };
            let (answer, is_error) = served.call(&plan.tool, arguments);
            assert!(!is_error, "{app}: {}: {answer}", plan.tool);
            let response = plan.response.as_ref().expect("a response");
            assert_eq!(answer["status"], response.status, "{app}: {answer}");
            // Where the answer holds the written object: the answer's entity, or inside a
            // document's envelope.
            let written = format!(
                "{}{}",
                response.pointer.as_deref().unwrap_or(""),
                plan.fields
                    .as_ref()
                    .map_or("", |fields| fields.document_pointer.as_str())
            );
            let pointer = format!("/body{written}");
            let entity = answer.pointer(&pointer).expect("the written entity");
            assert_eq!(entity[kept.as_str()], value, "{app}: {answer}");
            // The members the call left out are kept: the entity has every member the
            // recorded answer showed.
            let recorded = served
                .records
                .iter()
                .find(|r| Some(r.ordinal) == plan.exemplar_ordinal)
                .map(|r| state_support::recorded_answer(r).1)
                .expect("the exemplar");
            let shown = recorded
                .pointer(&written)
                .and_then(Value::as_object)
                .expect("the recorded entity");
            for member in shown.keys() {
                assert!(
                    entity.get(member).is_some(),
                    "{app}: {member} is kept: {answer}"
                );
            }
            checked += 1;
        }
        apps += usize::from(checked > 0);
    }
    assert!(apps >= 2, "one-member merges answered on {apps} apps");
}

#[test]
fn an_update_with_calls_on_entities_never_held_is_learned_from_the_others() {
    // json-server-v1's build merged tickets the state never read before besides one it read
    // before and after: the plan is served, confirmed by that read.
    let served = served("tests/corpus/apps/json-server-v1/build.har");
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.method == "PATCH" && plan.record_ordinals.len() > 1)
        .expect("a PATCH plan of several calls");
    assert!(plan.served, "{plan:?}");
    assert!(!plan.confirmed_by.is_empty(), "{plan:?}");
}
