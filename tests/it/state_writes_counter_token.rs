//! The `counter-token` and `mirrored-keys` rules on a recorded application: Verdaccio's package
//! writes at `/{name}/-rev/{rev}` (`build.har` calls 27 and 31) move the package's `_rev` to the
//! held counter plus one and 16 fresh hex digits, and the unpublish of a version (the package
//! sent without `versions["1.0.0"]`) drops `time["1.0.0"]` too, while the deprecation stamps
//! `time.modified` (the `clock` rule, on the one leaf of the sent `time` map stored otherwise).
//! Both rules are shown on this one recorded application: PouchDB Server's `_rev` is a digest
//! (`digest-revision`), and no other capture holds a map keyed like another member. The reads
//! after both calls agree with the replayed plan, and the plan is served: the package read 30
//! shows the `_rev` the tag write 21 moved, which the tag write's plan models now (a member write
//! learns the rules of what the first read of its entity after it shows stepped beside the
//! member: `counter-token` on `_rev`), so that read no longer disagrees with the replay.

use crate::state_support::corpus_write_plans;
use serde_json::{Value, json};

fn rev_put() -> Value {
    corpus_write_plans("verdaccio")
        .into_iter()
        .find(|plan| {
            plan["method"] == "PUT"
                && plan["path_template"]
                    .as_str()
                    .is_some_and(|t| t.contains("/-rev/"))
        })
        .expect("a PUT at /-rev/")
}

fn explained_by(plan: &Value, stage: &str) -> Value {
    plan["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|rule| rule["stage"] == stage)
        .map(|rule| rule["explains"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn package_writes_at_a_revision_learn_their_revision_and_time_rules() {
    let plan = rev_put();
    assert_eq!(plan["confirmed_by"], json!([29, 32]), "{plan:#}");
    assert_eq!(
        explained_by(&plan, "counter-token"),
        json!(["/_rev"]),
        "{plan:#}"
    );
    assert_eq!(
        explained_by(&plan, "mirrored-keys"),
        json!(["/time/1.0.0"]),
        "{plan:#}"
    );
    assert_eq!(
        explained_by(&plan, "clock"),
        json!(["/time/modified"]),
        "{plan:#}"
    );
    assert_eq!(
        plan["rules"]
            .as_array()
            .and_then(|rules| rules.iter().find(|rule| rule["stage"] == "mirrored-keys"))
            .map(|rule| rule["rule"].clone()),
        Some(json!({"follows": {"time": "versions"}})),
        "{plan:#}"
    );
}

#[test]
fn a_tag_write_learns_the_package_revision_it_steps_so_the_revision_writes_are_served() {
    let plans = corpus_write_plans("verdaccio");
    let tag = plans
        .iter()
        .find(|plan| {
            plan["method"] == "PUT" && plan["target"]["member"]["steps"][0]["key"] == "dist-tags"
        })
        .expect("the tag write");
    assert_eq!(tag["served"], true, "{tag:#}");
    assert_eq!(
        explained_by(tag, "counter-token"),
        json!(["/_rev"]),
        "{tag:#}"
    );
    let plan = rev_put();
    assert_eq!(plan["served"], true, "{plan:#}");
    assert_eq!(plan["reason"], Value::Null, "{plan:#}");
}
