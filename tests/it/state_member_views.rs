//! Member views: a read whose every recorded answer is one member of a package document the
//! state holds (learned from the build: each recorded answer equals that member of the held
//! entity) answers that member of the live entity, for any entity and key the state holds; a
//! member the entity lacks answers the tool's own recorded 404 naming the call's key, an entity
//! the state lacks the entity's item tool's recorded 404, byte for byte as the build showed them.
//! One recorded application shows such routes: verdaccio's `/{package}/{version}` (the package
//! document's `versions[version]`) and `/-/package/{package}/dist-tags` (its `dist-tags`); no
//! other corpus application's reads answer a member of another read's entity by its route.

use rea_state::model::{MemberStep, ViewDetail};
use serde_json::{Map, Value, json};

use crate::state_support::{Served, arguments_of, recorded_answer, serve_corpus_app};

const VERSION_TOOL: &str = "get_root_by_prefix_variance_and_sibling_variance";
const TAGS_TOOL: &str = "get_package_dist_tags_by_package_id";

fn member_view<'a>(served: &'a Served, tool: &str) -> &'a rea_state::model::MemberView {
    match crate::state_support::view_detail(served, tool) {
        ViewDetail::Member(member) => member,
        other => panic!("{tool} is a member view: {other:?}"),
    }
}

/// The tool's arguments naming `values` for its path parameters, in order.
fn arguments(served: &Served, tool: &str, values: &[&str]) -> Map<String, Value> {
    let definition = crate::state_support::manifest_tool(served, tool);
    assert_eq!(definition.path_parameters.len(), values.len(), "{tool}");
    definition
        .path_parameters
        .iter()
        .zip(values)
        .map(|(parameter, value)| (parameter.name.clone(), json!(value)))
        .collect()
}

/// The body of the build's first `200` read of a path.
fn first_read(served: &Served, path: &str) -> Value {
    let record = served
        .records
        .iter()
        .find(|record| {
            record.path.as_deref() == Some(path)
                && record.query.is_none()
                && record.response.status == 200
        })
        .unwrap_or_else(|| panic!("a read of {path}"));
    recorded_answer(record).1
}

#[test]
fn verdaccio_versions_and_dist_tags_are_members_of_the_package_document() {
    let served = serve_corpus_app("verdaccio");
    let version = member_view(&served, VERSION_TOOL);
    let tags = member_view(&served, TAGS_TOOL);
    assert_eq!(version.entity_type, tags.entity_type);
    // The version segment names a version, else a tag (`/{name}/latest` beside it looks the
    // version up through `dist-tags`).
    assert_eq!(
        version.steps,
        vec![
            MemberStep::Key("versions".to_owned()),
            MemberStep::Or(vec![
                MemberStep::Segment(1),
                MemberStep::Via(vec![
                    MemberStep::Key("dist-tags".to_owned()),
                    MemberStep::Segment(1)
                ])
            ])
        ]
    );
    assert_eq!(tags.steps, vec![MemberStep::Key("dist-tags".to_owned())]);
    // Every checked read is answered from the state, byte-equal to its recording.
    for (tool, member) in [(VERSION_TOOL, version), (TAGS_TOOL, tags)] {
        assert!(!member.checked_ordinals.is_empty(), "{tool}");
        for ordinal in &member.checked_ordinals {
            let record = &served.records[*ordinal as usize];
            assert_eq!(record.ordinal, *ordinal);
            let (answer, is_error) = served.call(tool, arguments_of(&served.replay, tool, record));
            assert!(!is_error, "{tool} {ordinal}: {answer}");
            let (status, body) = recorded_answer(record);
            assert_eq!(answer["state"]["source"], "state", "{answer}");
            assert_eq!(answer["status"], json!(status), "{answer}");
            assert_eq!(answer["body"], body, "{tool} {ordinal}");
        }
    }
}

#[test]
fn verdaccio_answers_every_version_the_held_package_lists() {
    let served = serve_corpus_app("verdaccio");
    let package = first_read(&served, "/date-helpers");
    let versions = package["versions"].as_object().expect("versions");
    // Versions the build never read one by one (it read 1.1.0 only before its first write).
    let version = member_view(&served, VERSION_TOOL);
    let read: Vec<&str> = version
        .checked_ordinals
        .iter()
        .filter_map(|ordinal| served.records[*ordinal as usize].path.as_deref())
        .collect();
    assert!(
        versions
            .keys()
            .any(|key| !read.contains(&format!("/date-helpers/{key}").as_str())),
        "{read:?}"
    );
    for (key, expected) in versions {
        let (answer, is_error) = served.call(
            VERSION_TOOL,
            arguments(&served, VERSION_TOOL, &["date-helpers", key]),
        );
        assert!(!is_error, "{key}: {answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        assert_eq!(&answer["body"], expected, "{key}");
    }
    let (answer, _) = served.call(TAGS_TOOL, arguments(&served, TAGS_TOOL, &["date-helpers"]));
    assert_eq!(answer["body"], package["dist-tags"], "{answer}");
}

#[test]
fn verdaccio_answers_a_missing_version_or_package_as_the_build_showed_it() {
    let served = serve_corpus_app("verdaccio");
    let version = member_view(&served, VERSION_TOOL);
    let tags = member_view(&served, TAGS_TOOL);
    // The version tool recorded a 404 for an unpublished version; the package tool one for a
    // removed package; the dist-tags tool none of its own.
    assert!(version.missing_ordinal.is_some());
    assert!(tags.missing_ordinal.is_none());
    assert!(tags.missing_entity_ordinal.is_some());
    let (answer, is_error) = served.call(
        VERSION_TOOL,
        arguments(&served, VERSION_TOOL, &["date-helpers", "9.9.9"]),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["state"]["view"], "missing", "{answer}");
    assert_eq!(
        answer["body"],
        json!({"error": "this version doesn't exist: 9.9.9"}),
        "{answer}"
    );
    let (answer, is_error) = served.call(
        TAGS_TOOL,
        arguments(&served, TAGS_TOOL, &["no-such-package"]),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(
        answer["body"],
        json!({"error": "no such package available"}),
        "{answer}"
    );
}

const LATEST_TOOL: &str = "get_latest_by_segment_0";
const PUT_TAG: &str = "put_package_dist_tags_by_package_id_and_id";

#[test]
fn verdaccio_a_dist_tag_read_answers_the_version_the_tag_names() {
    let served = serve_corpus_app("verdaccio");
    // `/{name}/latest` answered `versions[dist-tags[latest]]`: a lookup through the document.
    let latest = member_view(&served, LATEST_TOOL);
    assert_eq!(
        latest.steps,
        vec![
            MemberStep::Key("versions".to_owned()),
            MemberStep::Via(vec![
                MemberStep::Key("dist-tags".to_owned()),
                MemberStep::Key("latest".to_owned())
            ])
        ]
    );
    let package = first_read(&served, "/date-helpers");
    let (answer, is_error) = served.call(
        LATEST_TOOL,
        arguments(&served, LATEST_TOOL, &["date-helpers"]),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let tagged = package["dist-tags"]["latest"]
        .as_str()
        .expect("a latest tag");
    assert_eq!(answer["body"], package["versions"][tagged], "{answer}");
    // A served tag write moves what the tag names.
    let (written, is_error) = served.call(PUT_TAG, {
        let mut arguments = arguments(&served, PUT_TAG, &["date-helpers", "latest"]);
        arguments.insert("body".to_owned(), json!("1.0.0"));
        arguments
    });
    assert!(!is_error, "{written}");
    let (answer, is_error) = served.call(
        LATEST_TOOL,
        arguments(&served, LATEST_TOOL, &["date-helpers"]),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"], package["versions"]["1.0.0"], "{answer}");
}

#[test]
fn verdaccio_versions_are_members_not_a_type_of_their_own() {
    let served = serve_corpus_app("verdaccio");
    // The version reads echo their key, an item view of a type `/{name}` at first; as members of
    // the package document they leave no such type, so a publish `PUT /{name}` is no bulk write
    // of versions.
    let state = served.state();
    let version = member_view(&served, VERSION_TOOL);
    assert!(
        state
            .types
            .iter()
            .all(|known| known.collection_template == version.entity_type),
        "{:?}",
        state.types
    );
    assert!(
        state
            .entities
            .iter()
            .all(|entity| entity.entity_type == version.entity_type)
    );
    let plans = crate::state_support::corpus_write_plans("verdaccio");
    let publish = crate::state_support::plan_of(&plans, "put_root_by_name");
    assert_eq!(publish["bulk"], false, "{publish:#}");
    assert_eq!(
        publish["target"]["type"],
        json!(version.entity_type),
        "{publish:#}"
    );
}
