//! The fidelity run's miss reviews (`rea_tests::fidelity_review`): malformed reviews are refused
//! with the entry named, a review is checked against the comparison's steps (missed steps without
//! an entry, entries naming another request or no step, stale entries, changed categories), the
//! agreement over knowable steps leaves out exactly the steps classed cannot-know, the rendered
//! list is deterministic, and every committed review file parses.

use std::collections::BTreeMap;

use rea_compare::diff::Category;
use rea_compare::report::Step;
use rea_tests::fidelity::{AppResult, Measure};
use rea_tests::fidelity_review::{Class, check, entry_toml, parse_review};
use rea_tests::fidelity_review_list::{Reviewed, render, render_summary};

fn step(ordinal: u64, request: &str, agrees: bool, categories: &[Category]) -> Step {
    Step {
        ordinal,
        request: request.to_owned(),
        tool: Some("get_items".to_owned()),
        source: Some("state".to_owned()),
        live_status: 200,
        env_status: Some(200),
        agrees,
        agrees_ignoring_order: agrees,
        unobserved_body: false,
        categories: categories.to_vec(),
        difference_count: categories.len(),
        differences: Vec::new(),
    }
}

/// Reads: step 0 agrees, 1 misses (cannot know; replay agrees), 2 misses (defect), 3 misses
/// (no entry). Replay agrees on steps 0 and 1 only.
fn result() -> AppResult {
    let state = vec![
        step(0, "GET /items", true, &[]),
        step(1, "GET /tags", false, &[Category::NoTool]),
        step(2, "GET /items?a=1", false, &[Category::Length]),
        step(3, "GET /items/9", false, &[Category::Value]),
    ];
    let replay: Vec<Step> = state
        .iter()
        .map(|step| Step {
            agrees: step.ordinal < 2,
            ..step.clone()
        })
        .collect();
    let measure = |steps: Vec<Step>| Measure {
        agreeing: steps.iter().filter(|step| step.agrees).count() as u64,
        compared: steps.len() as u64,
        categories: BTreeMap::new(),
        steps,
        evidence: Vec::new(),
    };
    let mut measures = BTreeMap::new();
    measures.insert(
        ("probe-reads".to_owned(), "state".to_owned()),
        measure(state),
    );
    measures.insert(
        ("probe-reads".to_owned(), "replay".to_owned()),
        measure(replay),
    );
    AppResult {
        name: "toy".to_owned(),
        measures,
        knowable: BTreeMap::new(),
    }
}

const REVIEW: &str = r#"
[[miss]]
probe = "probe-reads"
step = 1
request = "GET /tags"
tool = "get_items"
categories = ["no-tool"]
class = "cannot-know"
reason = "the build never called /tags"

[[miss]]
probe = "probe-reads"
step = 2
request = "GET /items?a=1"
tool = "get_items"
categories = ["value"]
class = "defect"
capability = "query-grammar"
diagnosis = "equality on a answered another query's recording"
"#;

#[test]
fn a_review_is_checked_against_the_steps() {
    let entries = parse_review(REVIEW).expect("the review parses");
    let checked = check(&result(), &entries);
    assert_eq!(checked.unreviewed.len(), 1, "step 3 has no entry");
    assert_eq!(checked.unreviewed[0].step, 3);
    assert_eq!(checked.unreviewed[0].categories, ["value"]);
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    assert!(checked.stale.is_empty());
    let notes = checked.notes.join("\n");
    assert!(
        notes.contains("step 2") && notes.contains("re-check the entry"),
        "step 2's categories changed: {notes}"
    );
    assert_eq!(checked.notes.len(), 1, "{notes}");
    let replay = checked.replay_agrees.join("\n");
    assert!(
        replay.contains("step 1") && replay.contains("replay answers it right"),
        "cannot-know step 1 agrees in replay: {replay}"
    );
    let reads = |mode: &str| checked.knowable[&("probe-reads".to_owned(), mode.to_owned())];
    assert_eq!(reads("state"), (1, 3), "4 compared less 1 cannot-know");
    assert_eq!(reads("replay"), (1, 3), "replay's step 1 is not knowable");
}

#[test]
fn a_rechecked_replay_agreement_is_no_longer_flagged() {
    let review = REVIEW.replace(
        "reason = \"the build never called /tags\"",
        "reason = \"the build never called /tags\"\nreplay_agrees = \"replay answers another route's recording\"",
    );
    let entries = parse_review(&review).expect("the review parses");
    let checked = check(&result(), &entries);
    assert!(
        checked.replay_agrees.is_empty(),
        "step 1 was re-checked: {:?}",
        checked.replay_agrees
    );
    let reads = |mode: &str| checked.knowable[&("probe-reads".to_owned(), mode.to_owned())];
    assert_eq!(reads("state"), (1, 3), "still not knowable");
    assert_eq!(reads("replay"), (1, 3), "still not knowable in replay");
}

#[test]
fn stale_and_wrong_entries_are_reported() {
    let review = format!(
        "{REVIEW}\n[[miss]]\nprobe = \"probe-reads\"\nstep = 0\nrequest = \"GET /items\"\nclass = \"cannot-know\"\nreason = \"r\"\n\
         \n[[miss]]\nprobe = \"probe-reads\"\nstep = 3\nrequest = \"GET /items/8\"\nclass = \"cannot-know\"\nreason = \"r\"\n\
         \n[[miss]]\nprobe = \"probe-crud\"\nstep = 7\nrequest = \"DELETE /items/1\"\nclass = \"cannot-know\"\nreason = \"r\"\n"
    );
    let entries = parse_review(&review).expect("the review parses");
    let checked = check(&result(), &entries);
    assert_eq!(checked.stale.len(), 1, "{:?}", checked.stale);
    assert!(checked.stale[0].contains("step 0") && checked.stale[0].contains("remove"));
    let errors = checked.errors.join("\n");
    assert!(
        errors.contains("\"GET /items/8\"") && errors.contains("the probe changed"),
        "{errors}"
    );
    assert!(
        errors.contains("probe-crud step 7") && errors.contains("not a compared step"),
        "{errors}"
    );
    assert!(
        checked.unreviewed.is_empty(),
        "step 3 has an entry, if wrong"
    );
    assert_eq!(
        checked.knowable[&("probe-reads".to_owned(), "state".to_owned())],
        (1, 3),
        "an agreeing step classed cannot-know stays knowable"
    );
}

#[test]
fn malformed_reviews_are_refused_with_the_entry_named() {
    let entry = |fields: &str| {
        format!("[[miss]]\nprobe = \"probe-reads\"\nstep = 4\nrequest = \"GET /x\"\n{fields}\n")
    };
    let cases = [
        (entry("class = \"unknown\""), "unknown variant"),
        (entry("class = \"cannot-know\""), "needs a reason"),
        (
            entry("class = \"cannot-know\"\nreason = \" \""),
            "needs a reason",
        ),
        (
            entry("class = \"cannot-know\"\nreason = \"r\"\ncapability = \"paging\""),
            "not a capability",
        ),
        (
            entry("class = \"defect\"\ncapability = \"magic\"\ndiagnosis = \"d\""),
            "needs a capability",
        ),
        (
            entry("class = \"defect\"\ncapability = \"paging\""),
            "takes a diagnosis",
        ),
        (
            entry("class = \"compare-defect\"\ndiagnosis = \"d\"\nreason = \"r\""),
            "diagnosis only",
        ),
        (
            entry("class = \"defect\"\ncapability = \"paging\"\ndiagnosis = \"d\"\nfollows = 4"),
            "earlier step",
        ),
        (
            entry("class = \"cannot-know\"\nreason = \"r\"\nnote = \"n\""),
            "unknown field",
        ),
        (
            entry(
                "class = \"defect\"\ncapability = \"paging\"\ndiagnosis = \"d\"\nreplay_agrees = \"r\"",
            ),
            "replay_agrees is a filled note",
        ),
        (
            entry("class = \"cannot-know\"\nreason = \"r\"\nreplay_agrees = \" \""),
            "replay_agrees is a filled note",
        ),
        (
            entry("class = \"cannot-know\"\nreason = \"r\"").replace("probe-reads", "probe-x"),
            "probe must be one of",
        ),
        (
            entry("class = \"cannot-know\"\nreason = \"r\"").repeat(2),
            "reviewed twice",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_review(&text).expect_err(&text);
        assert!(error.contains(expected), "{text}\n→ {error}");
        if !error.contains("unknown") {
            assert!(error.contains("probe-"), "the entry is named: {error}");
        }
    }
}

#[test]
fn a_missed_steps_entry_round_trips_and_lists_render_deterministically() {
    let entries = parse_review(REVIEW).expect("the review parses");
    let result = result();
    let checked = check(&result, &entries);
    let mut filled = checked.unreviewed[0].clone();
    filled.class = Class::CannotKnow;
    filled.reason = Some("a \"quoted\" reason | with a bar".to_owned());
    let reparsed = parse_review(&entry_toml(&filled)).expect("the printed entry parses");
    assert_eq!(reparsed[0].reason, filled.reason);
    assert_eq!(reparsed[0].request, "GET /items/9");
    let reviewed = Reviewed {
        result: &result,
        entries: &entries,
        checked: &checked,
    };
    let list = render(&reviewed);
    assert_eq!(list, render(&reviewed), "deterministic");
    assert!(
        list.contains("| probe-reads | 4 | 1 | 3 | 1 | 1 | 0 | 1 | 1/4 (25%) | 1/3 (33%) |"),
        "{list}"
    );
    assert!(list.contains("### query-grammar (1)"), "{list}");
    assert!(list.contains("the build never called /tags"), "{list}");
    assert!(list.contains("## Not reviewed yet"), "{list}");
    let summary = render_summary(std::slice::from_ref(&reviewed));
    assert!(
        summary.contains("| toy | 3 | 1 | 1 | 0 | 1 | 1/3 (33%) | 0/0 |"),
        "{summary}"
    );
    assert!(
        summary.contains("| query-grammar | 1 | 0 | toy 1 |"),
        "{summary}"
    );
}

#[test]
fn every_committed_review_parses() {
    let dir = rea_tests::workspace_root().join(rea_tests::fidelity_review::REVIEWS_DIR);
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("the reviews folder") {
        let path = entry.expect("an entry").path();
        if path
            .extension()
            .is_some_and(|extension| extension == "toml")
        {
            let entries = rea_tests::fidelity_review::read_review(&path)
                .unwrap_or_else(|error| panic!("{error}"))
                .expect("the file exists");
            assert!(!entries.is_empty(), "{} reviews no step", path.display());
            files += 1;
        }
    }
    assert!(files > 0, "no review under {}", dir.display());
}
