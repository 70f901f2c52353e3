//! Map-merge writes (`writes::merged`): a write whose sent object members the entity after holds
//! as the held objects with the sent entries set key-wise. Learned from verdaccio's publish
//! (`PUT /{name}`: `versions` and `dist-tags` merged into the held package document, each new
//! version gaining `contributors: []`, `time` stamped at the new version's key, `_attachments`
//! and `description` not stored; the first publish of a package creates it), confirmed by the
//! reads of the package after each call. One recorded application shows it (Jupyter Server's
//! config `PATCH` merges a section alike, but its document has no state view).

use serde_json::{Value, json};

use crate::state_support::{
    Served, corpus_write_plans, path_arguments, plan_of, rule_of, serve_corpus_app,
};

const PUBLISH: &str = "put_root_by_name";
const PACKAGE: &str = "get_root_by_name";
const TAGS: &str = "get_package_dist_tags_by_package_id";

fn read(served: &Served, tool: &str, package: &str) -> (Value, bool) {
    let (answer, is_error) = served.call(tool, path_arguments(served, tool, &[package], None));
    (answer["body"].clone(), is_error || answer["status"] != 200)
}

/// A publish body of one version of `package`, tagged `tag`.
fn publish_body(package: &str, version: &str, tag: &str) -> Value {
    let tarball = format!("{package}-{version}.tgz");
    json!({
        "_id": package,
        "name": package,
        "description": "A package published by the test",
        "dist-tags": {tag: version},
        "versions": {version: {
            "name": package,
            "version": version,
            "description": "A package published by the test",
            "main": "index.js",
            "license": "MIT",
            "keywords": ["test"],
            "dependencies": {},
            "_id": format!("{package}@{version}"),
            "_nodeVersion": "20.20.2",
            "_npmVersion": "10.8.2",
            "dist": {"integrity": "sha512-AAAA", "shasum": "00", "tarball": tarball},
        }},
        "access": null,
        "_attachments": {tarball: {
            "content_type": "application/octet-stream",
            "data": "H4sIAAAAAAAAA",
            "length": 13,
        }},
    })
}

#[test]
fn verdaccio_publish_is_learned_as_a_map_merge_upsert() {
    let plans = corpus_write_plans("verdaccio");
    let plan = plan_of(&plans, PUBLISH);
    assert_eq!(plan["served"], true, "{plan:#}");
    assert_eq!(plan["effect"], "update", "{plan:#}");
    // The update of date-helpers (ordinal 14), confirmed by the read of its new version.
    assert_eq!(plan["record_ordinals"], json!([14, 18]), "{plan:#}");
    let merged = json!({"dist-tags": {}, "versions": {"contributors": []}});
    assert_eq!(plan["fields"]["merged"], merged, "{plan:#}");
    assert_eq!(
        plan["fields"]["unstored"],
        json!(["_attachments", "description"]),
        "{plan:#}"
    );
    // The time stamped at each version a publish adds, one rule for every version.
    let clock = rule_of(plan, "clock");
    assert_eq!(
        clock["explains"],
        json!(["/time/modified", "/time/{versions}"])
    );
    // The creating half (@corp/icons, ordinal 18): the same merge, the empty attachments stored.
    let upsert = &plan["upsert"];
    assert_eq!(upsert["record_ordinals"], json!([18]), "{plan:#}");
    assert_eq!(upsert["fields"]["merged"], merged, "{plan:#}");
    assert_eq!(upsert["fields"]["constants"]["_attachments"], json!({}));
}

#[test]
fn verdaccio_a_served_publish_merges_the_version_and_tag_into_the_held_package() {
    let served = serve_corpus_app("verdaccio");
    let (before, missing) = read(&served, PACKAGE, "date-helpers");
    assert!(!missing, "{before}");
    let body = publish_body("date-helpers", "1.3.0", "next");
    let (answer, is_error) = served.call(
        PUBLISH,
        path_arguments(&served, PUBLISH, &["date-helpers"], Some(body.clone())),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 201, "{answer}");
    let (after, _) = read(&served, PACKAGE, "date-helpers");
    // The held versions kept, the new one added with what every published version gains.
    let mut version = body["versions"]["1.3.0"].clone();
    version["contributors"] = json!([]);
    let mut versions = before["versions"].clone();
    versions["1.3.0"] = version;
    assert_eq!(after["versions"], versions);
    // The tag merged beside the held latest.
    let mut tags = before["dist-tags"].clone();
    tags["next"] = json!("1.3.0");
    assert_eq!(after["dist-tags"], tags);
    assert_eq!(read(&served, TAGS, "date-helpers").0, tags);
    // Stamped at the new version's key; the held stamps kept but modified.
    assert!(after["time"]["1.3.0"].is_string(), "{after:#}");
    assert_eq!(after["time"]["created"], before["time"]["created"]);
    // Neither the attachment nor the description is stored.
    assert_eq!(after["_attachments"], before["_attachments"]);
    assert!(after.get("description").is_none(), "{after:#}");
}

#[test]
fn verdaccio_the_first_publish_of_a_package_creates_it() {
    let served = serve_corpus_app("verdaccio");
    let (_, missing) = read(&served, PACKAGE, "csv-lite");
    assert!(missing, "csv-lite is not held before its publish");
    let body = publish_body("csv-lite", "0.3.0", "latest");
    let (answer, is_error) = served.call(
        PUBLISH,
        path_arguments(&served, PUBLISH, &["csv-lite"], Some(body.clone())),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["ok"], "created new package", "{answer}");
    let (created, missing) = read(&served, PACKAGE, "csv-lite");
    assert!(!missing, "{created}");
    let mut version = body["versions"]["0.3.0"].clone();
    version["contributors"] = json!([]);
    assert_eq!(created["versions"], json!({"0.3.0": version}));
    assert_eq!(created["dist-tags"], json!({"latest": "0.3.0"}));
    assert_eq!(created["_attachments"], json!({}));
    assert_eq!(created["readme"], "");
    assert!(created["time"]["0.3.0"].is_string(), "{created:#}");
    assert!(created.get("access").is_none(), "{created:#}");
}

#[test]
fn verdaccio_a_publish_the_plan_cannot_apply_is_refused_and_changes_nothing() {
    let served = serve_corpus_app("verdaccio");
    let (before, _) = read(&served, PACKAGE, "date-helpers");
    let mut versions_as_text = publish_body("date-helpers", "1.3.0", "next");
    versions_as_text["versions"] = json!("1.3.0");
    let mut unknown_member = publish_body("date-helpers", "1.3.0", "next");
    unknown_member["maintainers"] = json!(7);
    for body in [versions_as_text, unknown_member] {
        let (answer, is_error) = served.call(
            PUBLISH,
            path_arguments(&served, PUBLISH, &["date-helpers"], Some(body.clone())),
        );
        assert!(is_error, "{body}: {answer}");
        assert_eq!(read(&served, PACKAGE, "date-helpers").0, before, "{body}");
    }
}
