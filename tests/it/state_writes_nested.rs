//! Generated values nested in a created object, on recorded apps: a create whose answer holds an
//! unsent object (a run's `info`, an entry's `entry`) offers each member nested in it to the
//! rule stages by its own pointer, so a generated id nested in the object (`/info/run_id`) is a
//! token the create generates and a string nested in it (`/entry/title`) composes from what the
//! call sent, rather than the whole object being left unexplained.

use crate::state_writes_learning::served;

/// Recorded apps whose creates answer an unsent object nesting generated or sent values: the
/// app, the create's method and path template, the stage and the nested pointers it explains.
const NESTED: [(&str, &str, &str, &[&str]); 2] = [
    (
        "mlflow/build.har",
        "/api/2.0/mlflow/runs/create",
        "token",
        &["/info/run_id", "/info/run_uuid"],
    ),
    (
        "tests/corpus/apps/flexget/build.har",
        "/api/entry_list/{numeric}/entries/",
        "composed",
        &[
            "/entry/original_title",
            "/entry/original_url",
            "/entry/title",
        ],
    ),
];

#[test]
fn a_create_offers_the_rules_each_value_nested_in_its_created_object() {
    for (app, template, stage, pointers) in NESTED {
        let served = served(app);
        let state = served.state();
        let plan = state
            .write_plans
            .iter()
            .find(|plan| plan.method.eq_ignore_ascii_case("POST") && plan.path_template == template)
            .unwrap_or_else(|| panic!("{app}: no create {template}"));
        let explained: Vec<&str> = plan
            .rules
            .iter()
            .filter(|rule| rule.stage == stage)
            .flat_map(|rule| rule.explains.iter().map(String::as_str))
            .collect();
        for pointer in pointers {
            assert!(
                explained.contains(pointer),
                "{app}: {template}: {stage} explains {explained:?}, not {pointer}"
            );
        }
        // No rule and no constant stands for a whole created object nesting generated values.
        let owners: Vec<String> = pointers
            .iter()
            .filter_map(|pointer| {
                pointer[1..]
                    .split('/')
                    .next()
                    .map(|owner| format!("/{owner}"))
            })
            .collect();
        for rule in &plan.rules {
            assert!(
                rule.explains
                    .iter()
                    .all(|pointer| !owners.contains(pointer)),
                "{app}: {template}: {rule:?}"
            );
        }
        let fields = plan.fields.as_ref().expect("a field model");
        for owner in &owners {
            assert!(
                !fields.constants.contains_key(&owner[1..]),
                "{app}: {fields:?}"
            );
        }
    }
}
