//! Member writes: a `PUT` or `DELETE` of a member view's path plus a key segment sets that key of
//! the map the view shows (to the body sent) or removes it, and changes nothing else of the held
//! entity but what the rules learned it steps beside the member from the first read of the
//! entity after it (the tag set of `build.har` call 21 steps the package `_rev`, read 30:
//! `counter-token`; the tag removal, call 24, is read after by no package read, so it learns
//! none). Learned from verdaccio's dist-tag writes (`PUT`/`DELETE
//! /-/package/{name}/dist-tags/{tag}` beside the member view `/-/package/{name}/dist-tags`),
//! confirmed by the reads of that view after them. One recorded application shows such writes:
//! pouchdb-server's attachment `PUT /{db}/{doc}/{attachment}` sets a key of `_attachments` too,
//! but no member view shows that map and the value it stores is derived from the bytes sent, so
//! it is not one of them (see the report of this change).

use serde_json::{Value, json};

use crate::state_support::{Served, corpus_write_plans, path_arguments, plan_of, serve_corpus_app};

const PUT_TAG: &str = "put_package_dist_tags_by_package_id_and_id";
const DELETE_TAG: &str = "delete_package_dist_tags_by_package_id_and_id";
const TAGS: &str = "get_package_dist_tags_by_package_id";
const PACKAGE: &str = "get_root_by_name";

fn tags_of(served: &Served, package: &str) -> Value {
    let (answer, is_error) = served.call(TAGS, path_arguments(served, TAGS, &[package], None));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    answer["body"].clone()
}

fn package_of(served: &Served, package: &str) -> Value {
    let (answer, is_error) =
        served.call(PACKAGE, path_arguments(served, PACKAGE, &[package], None));
    assert!(!is_error, "{answer}");
    answer["body"].clone()
}

#[test]
fn verdaccio_dist_tag_writes_are_served_as_writes_of_one_member() {
    let plans = corpus_write_plans("verdaccio");
    for (tool, remove, read) in [(PUT_TAG, false, 22), (DELETE_TAG, true, 25)] {
        let plan = plan_of(&plans, tool);
        assert_eq!(plan["served"], true, "{plan:#}");
        assert_eq!(plan["effect"], "update", "{plan:#}");
        assert_eq!(plan["target"]["member"]["remove"], remove, "{plan:#}");
        assert_eq!(
            plan["target"]["member"]["steps"],
            json!([{"key": "dist-tags"}, {"segment": 4}]),
            "{plan:#}"
        );
        // Confirmed by the read of the member view after the call.
        assert_eq!(plan["confirmed_by"], json!([read]), "{plan:#}");
    }
    assert_eq!(
        plan_of(&plans, PUT_TAG)["target"]["member"]["types"],
        json!(["string"])
    );
}

/// The counter of a `N-<hex>` revision and its digits' count.
fn revision_parts(revision: &Value) -> (u64, usize) {
    let text = revision.as_str().expect("a revision string");
    let (counter, hex) = text.split_once('-').expect("N-hex");
    assert!(
        hex.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{text}"
    );
    (counter.parse().expect("a counter"), hex.len())
}

#[test]
fn verdaccio_a_served_tag_write_changes_that_one_member_and_steps_the_revision() {
    let served = serve_corpus_app("verdaccio");
    let before = package_of(&served, "date-helpers");
    let tags = tags_of(&served, "date-helpers");
    assert!(tags.get("beta").is_none(), "{tags}");
    // Set a tag: the recorded answer, and the map holds it, through both views.
    let (answer, is_error) = served.call(
        PUT_TAG,
        path_arguments(
            &served,
            PUT_TAG,
            &["date-helpers", "beta"],
            Some(json!("1.1.0")),
        ),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 201, "{answer}");
    assert_eq!(answer["body"], json!({"ok": "package tagged"}), "{answer}");
    let mut expected = tags.clone();
    expected["beta"] = json!("1.1.0");
    assert_eq!(tags_of(&served, "date-helpers"), expected);
    // The package shows the tag and, as the build's read after its tag write showed, its
    // revision stepped: the counter plus one, 16 fresh hex digits.
    let tagged = package_of(&served, "date-helpers");
    let (counter, digits) = revision_parts(&before["_rev"]);
    assert_eq!(
        revision_parts(&tagged["_rev"]),
        (counter + 1, digits),
        "{tagged}"
    );
    assert_ne!(tagged["_rev"], before["_rev"]);
    let mut after = before.clone();
    after["dist-tags"]["beta"] = json!("1.1.0");
    after["_rev"] = tagged["_rev"].clone();
    assert_eq!(tagged, after);
    // Remove it again: the document as it was.
    let (answer, is_error) = served.call(
        DELETE_TAG,
        path_arguments(&served, DELETE_TAG, &["date-helpers", "beta"], None),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], json!({"ok": "tag removed"}), "{answer}");
    // The removal's plan learned no step (no package read follows the build's removal): the
    // document as it was but for the revision the tag set stepped.
    let mut untagged = before.clone();
    untagged["_rev"] = tagged["_rev"].clone();
    assert_eq!(package_of(&served, "date-helpers"), untagged);
}

#[test]
fn verdaccio_a_tag_write_the_state_cannot_apply_is_refused_and_changes_nothing() {
    let served = serve_corpus_app("verdaccio");
    let before = package_of(&served, "date-helpers");
    let refusals = [
        // A body of a type no recorded call sent.
        (
            PUT_TAG,
            path_arguments(
                &served,
                PUT_TAG,
                &["date-helpers", "beta"],
                Some(json!({"v": 1})),
            ),
        ),
        // A tag the package does not hold.
        (
            DELETE_TAG,
            path_arguments(&served, DELETE_TAG, &["date-helpers", "no-such-tag"], None),
        ),
        // A package the state does not hold.
        (
            PUT_TAG,
            path_arguments(
                &served,
                PUT_TAG,
                &["no-such-package", "beta"],
                Some(json!("1.0.0")),
            ),
        ),
    ];
    for (tool, arguments) in refusals {
        let (answer, is_error) = served.call(tool, arguments.clone());
        assert!(is_error, "{tool} {arguments:?}: {answer}");
        assert_eq!(
            package_of(&served, "date-helpers"),
            before,
            "{tool} {arguments:?}"
        );
    }
}

#[test]
fn verdaccio_a_tag_write_or_a_publish_ends_only_its_own_packages_windows() {
    use rea_state::model::WriteScope;
    use rea_state::observation::Timeline;
    let served = serve_corpus_app("verdaccio");
    let state = served.state();
    // The dist-tag writes (ordinals 21 and 24) relate to the one package their path names, and so
    // do the served publishes before them (ordinals 14 and 18, `PUT /{name}`: an item write of the
    // package its path names), so the first read of left-pad-ng (ordinal 26, before any write of
    // its own) is inside its window; date-helpers' read after the tag write of it (ordinal 22, its
    // dist-tags) checks nothing the seed holds.
    let writes = [
        (21, Some("date-helpers")),
        (24, Some("@corp/ui-kit")),
        (14, Some("date-helpers")),
        (18, Some("@corp/icons")),
    ];
    for (ordinal, package) in writes {
        let related = state
            .related_writes
            .iter()
            .find(|write| write.ordinal == ordinal)
            .unwrap_or_else(|| panic!("write {ordinal} is related"));
        assert_eq!(
            related.scope,
            WriteScope::Type {
                entity_type: "/".to_owned(),
                collection: Some("/".to_owned()),
                entity: package.map(str::to_owned),
            },
            "{ordinal}"
        );
    }
    let timeline = Timeline::for_state(&served.manifest, &served.records, state);
    let checked = |ordinal: u64| {
        let observation = timeline.get(ordinal).expect("recorded");
        timeline.is_checked(observation)
    };
    assert!(
        checked(26),
        "left-pad-ng's first read follows only writes of other packages"
    );
    assert!(
        !checked(22),
        "date-helpers' dist-tags read after its tag write"
    );
    assert!(
        !checked(25),
        "@corp/ui-kit's dist-tags read after its tag removal"
    );
}
