//! Member views: a `GET` whose every checked answer is one member of a held entity, the entity
//! named by a path parameter and the member by a pointer whose steps are literal keys or the
//! values of other path parameters (`/{name}/{version}` answering `versions[version]` of the
//! entity `name`, `/-/package/{name}/dist-tags` its `dist-tags`). Learned from what the build
//! shows (each recorded answer equals that member of the entity the state holds), never from
//! names; served from the live entity, so a served write of the entity changes what it answers.

use std::collections::BTreeSet;

use rea_manifest::Manifest;
use rea_manifest::segments::{split_path, template_value};
use rea_plugin_api::json::Json;

use super::Entities;
use super::entities::item_segments;
use crate::model::{MemberStep, MemberView, ViewDetail};
use crate::observation::Timeline;

/// How deep a member may sit in its entity.
const MAX_DEPTH: usize = 3;

/// A member view candidate: entity type, entity segment, steps, collection.
type Candidate = (String, usize, Vec<MemberStep>, String);

/// The member view of a read tool, when every checked `2xx` read of it answers an object or
/// array equal to one member of an entity of another type's item view, the same member for all;
/// `None` otherwise (or when more than one member fits).
pub fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    tool: usize,
    entities: &Entities,
) -> Option<MemberView> {
    let written = split_path(&manifest.tools[tool].path_template);
    let written = item_segments(&written).to_vec();
    let parents: Vec<&str> = entities
        .types
        .iter()
        .filter(|known| {
            known
                .item_view
                .as_deref()
                .is_some_and(|view| view != manifest.tools[tool].name)
        })
        .map(|known| known.collection_template.as_str())
        .collect();
    let lines = super::latest_lines(timeline, tool);
    let mut agreed: Option<BTreeSet<Candidate>> = None;
    for line in &lines {
        let body = line
            .body
            .as_ref()
            .filter(|body| matches!(body, Json::Object(_) | Json::Array(_)))?;
        let segments = item_segments(&line.segments);
        if segments.len() != written.len() {
            return None;
        }
        let values: Vec<&str> = written
            .iter()
            .zip(segments)
            .map(|(pattern, segment)| template_value(pattern, segment))
            .collect();
        let found = candidates(&parents, entities, (&written, &values), body);
        agreed = Some(match agreed {
            None => found,
            Some(before) => before.intersection(&found).cloned().collect(),
        });
    }
    let mut agreed = agreed?.into_iter();
    let (entity_type, entity_segment, steps, collection) = agreed.next()?;
    if agreed.next().is_some() {
        return None;
    }
    let missing_entity_ordinal = entities
        .types
        .iter()
        .find(|known| known.collection_template == entity_type)
        .and_then(|known| known.item_view.as_deref())
        .and_then(|view| super::tool_index(manifest, view))
        .and_then(|parent| missing_of(timeline, parent));
    Some(MemberView {
        entity_type,
        collection,
        entity_segment,
        steps,
        envelope_ordinal: lines.last()?.ordinal,
        missing_ordinal: missing_of(timeline, tool),
        missing_entity_ordinal,
        checked_ordinals: lines.iter().map(|line| line.ordinal).collect(),
    })
}

/// A tool's latest recorded `404` or `410` with a JSON body.
pub(crate) fn missing_of(timeline: &Timeline, tool: usize) -> Option<u64> {
    timeline
        .all(tool)
        .filter(|observation| matches!(observation.status, 404 | 410) && observation.body.is_some())
        .map(|observation| observation.ordinal)
        .last()
}

/// The members of entities named by one of a line's parameter segments that equal its answer.
fn candidates(
    parents: &[&str],
    entities: &Entities,
    (written, values): (&[&str], &[&str]),
    body: &Json,
) -> BTreeSet<Candidate> {
    let mut found = BTreeSet::new();
    for (index, value) in values.iter().enumerate() {
        if !written[index].contains('{') {
            continue;
        }
        for parent in parents {
            let decoded = rea_manifest::segments::percent_decode(value);
            let Some(entity) = entities
                .find_unique(parent, value)
                .or_else(|| entities.find_unique(parent, decoded.as_deref()?))
                .map(|held| &entities.list[held])
            else {
                continue;
            };
            let mut steps = Vec::new();
            walk(
                (&entity.fields, &entity.fields),
                body,
                (written, values),
                &mut steps,
                &mut |steps| {
                    found.insert((
                        (*parent).to_owned(),
                        index,
                        steps.to_vec(),
                        entity.collection.clone(),
                    ));
                },
            );
        }
    }
    found
}

/// Visits every member of `value` (down to [`MAX_DEPTH`]) equal to `body`, with its steps: a key
/// spelled by a parameter segment is that segment's step, a key another member of the entity
/// holds under a key the path spells is that lookup ([`via_step`]), any other key a literal one.
fn walk(
    (entity, value): (&Json, &Json),
    body: &Json,
    path: (&[&str], &[&str]),
    steps: &mut Vec<MemberStep>,
    found: &mut dyn FnMut(&[MemberStep]),
) {
    if steps.len() >= MAX_DEPTH {
        return;
    }
    let Json::Object(members) = value else {
        return;
    };
    let (written, values) = path;
    for (key, member) in members.iter() {
        let step = match (0..values.len())
            .find(|&index| written[index].contains('{') && values[index] == key)
        {
            Some(index) => MemberStep::Segment(index),
            None => via_step(entity, key, path).unwrap_or_else(|| MemberStep::Key(key.to_string())),
        };
        steps.push(step);
        if member == body {
            found(steps);
        }
        walk((entity, member), body, path, steps, found);
        steps.pop();
    }
}

/// The lookup naming `key` through the entity: an object member of the entity holding `key` as
/// the string under a key one of the path's segments spells, a parameter's value or a literal
/// segment (`dist-tags[latest]` naming the version `1.1.0` of `/date-helpers/latest`). The path's
/// first match, the entity's members in order.
fn via_step(entity: &Json, key: &str, (written, values): (&[&str], &[&str])) -> Option<MemberStep> {
    let Json::Object(members) = entity else {
        return None;
    };
    members.iter().find_map(|(name, member)| {
        let Json::Object(map) = member else {
            return None;
        };
        (0..values.len()).find_map(|index| {
            let held = map.get(values[index])?;
            (held.as_str() == Some(key)).then(|| {
                let spelled = if written[index].contains('{') {
                    MemberStep::Segment(index)
                } else {
                    MemberStep::Key(values[index].to_owned())
                };
                MemberStep::Via(vec![MemberStep::Key(name.to_string()), spelled])
            })
        })
    })
}

/// The member of `fields` a view's steps name for a call's path segments.
pub fn member_of<'a>(
    fields: &'a Json,
    steps: &[MemberStep],
    segments: &[&str],
) -> Option<&'a Json> {
    steps.iter().try_fold(fields, |value, step| match step {
        MemberStep::Or(alternatives) => alternatives
            .iter()
            .find_map(|alternative| value.get(&step_key(fields, alternative, segments)?)),
        _ => value.get(&step_key(fields, step, segments)?),
    })
}

/// The key a step names in an entity's `fields` for a call's path segments.
pub(crate) fn step_key(fields: &Json, step: &MemberStep, segments: &[&str]) -> Option<String> {
    match step {
        MemberStep::Key(key) => Some(key.clone()),
        MemberStep::Segment(index) => segments.get(*index).map(|value| (*value).to_owned()),
        MemberStep::Via(steps) => member_of(fields, steps, segments)?
            .as_str()
            .map(str::to_owned),
        MemberStep::Or(alternatives) => alternatives
            .iter()
            .find_map(|alternative| step_key(fields, alternative, segments)),
    }
}

/// Widens a member view's parameter step into a lookup where a sibling member view shows it:
/// when another member view of the same entity differs from it only in one path segment, a
/// literal there (`/{name}/latest` beside `/{name}/{version}`), and answers through a lookup
/// naming that literal where this view steps by the segment (`versions[dist-tags[latest]]`
/// beside `versions[version]`), the segment may name a key of either map: the step becomes the
/// segment, else the lookup by the segment (`/{name}/next` answers `versions[dist-tags[next]]`).
pub fn widen_lookups(manifest: &Manifest, details: &mut [Option<ViewDetail>]) {
    let templates: Vec<Vec<String>> = manifest
        .tools
        .iter()
        .map(|tool| {
            item_segments(&split_path(&tool.path_template))
                .iter()
                .map(|segment| (*segment).to_owned())
                .collect()
        })
        .collect();
    let widened: Vec<(usize, usize, MemberStep)> = details
        .iter()
        .enumerate()
        .filter_map(|(index, detail)| match detail {
            Some(ViewDetail::Member(view)) => Some((index, view)),
            _ => None,
        })
        .flat_map(|(index, view)| {
            view.steps.iter().enumerate().filter_map({
                let (templates, details) = (&templates, &*details);
                move |(at, step)| {
                    let MemberStep::Segment(segment) = step else {
                        return None;
                    };
                    let lookup = sibling_lookup(details, templates, (index, view), (at, *segment))?;
                    Some((index, at, MemberStep::Or(vec![step.clone(), lookup])))
                }
            })
        })
        .collect();
    for (index, at, step) in widened {
        if let Some(Some(ViewDetail::Member(view))) = details.get_mut(index) {
            view.steps[at] = step;
        }
    }
}

/// The lookup by segment `segment` a sibling member view of `view` shows at step `at` (see
/// [`widen_lookups`]).
fn sibling_lookup(
    details: &[Option<ViewDetail>],
    templates: &[Vec<String>],
    (index, view): (usize, &MemberView),
    (at, segment): (usize, usize),
) -> Option<MemberStep> {
    let own = &templates[index];
    details.iter().enumerate().find_map(|(other, detail)| {
        let Some(ViewDetail::Member(sibling)) = detail else {
            return None;
        };
        let theirs = &templates[other];
        let literal = theirs.get(segment)?;
        let fits = other != index
            && sibling.entity_type == view.entity_type
            && sibling.entity_segment == view.entity_segment
            && theirs.len() == own.len()
            && !literal.contains('{')
            && own.get(segment).is_some_and(|mine| mine.contains('{'))
            && (0..own.len()).all(|j| j == segment || own[j] == theirs[j])
            && sibling.steps.len() == view.steps.len()
            && (0..view.steps.len()).all(|j| j == at || sibling.steps[j] == view.steps[j]);
        let MemberStep::Via(path) = sibling.steps.get(at).filter(|_| fits)? else {
            return None;
        };
        let (last, before) = path.split_last()?;
        (*last == MemberStep::Key(literal.clone())).then(|| {
            let mut widened = before.to_vec();
            widened.push(MemberStep::Segment(segment));
            MemberStep::Via(widened)
        })
    })
}

#[cfg(test)]
mod tests {
    use rea_plugin_api::contracts::capture::{Body, CaptureRecord};
    use serde_json::{Value, json};

    use crate::derive::tests::{derive, record};
    use crate::model::{MemberStep, ViewDetail};

    /// The `GET /packages/{id}/versions/{n}` tool.
    const VERSION_TOOL: &str = "get_packages_versions_by_package_id_and_n";

    fn package(id: u64, latest: &str) -> Value {
        json!({
            "id": id,
            "name": format!("p{id}"),
            "tags": {"latest": latest},
            "versions": {
                "10": {"n": "10", "size": id},
                "20": {"n": "20", "size": id + 1},
            },
        })
    }

    /// Two packages read whole, their `tags` and one version each read on their own, then a
    /// `PUT` of package 1 its later read confirms.
    fn records() -> Vec<CaptureRecord> {
        let mut put = record(6, "PUT", "/packages/1", 200, package(1, "20"));
        put.request.body = Body::Text {
            text: package(1, "20").to_string().into(),
        };
        put.request.media_type = Some("application/json".into());
        vec![
            record(0, "GET", "/packages/1", 200, package(1, "10")),
            record(1, "GET", "/packages/2", 200, package(2, "20")),
            record(2, "GET", "/packages/1/tags", 200, json!({"latest": "10"})),
            record(3, "GET", "/packages/2/tags", 200, json!({"latest": "20"})),
            record(
                4,
                "GET",
                "/packages/1/versions/10",
                200,
                package(1, "10")["versions"]["10"].clone(),
            ),
            record(
                5,
                "GET",
                "/packages/2/versions/20",
                200,
                package(2, "20")["versions"]["20"].clone(),
            ),
            put,
            record(7, "GET", "/packages/1", 200, package(1, "20")),
            record(
                8,
                "GET",
                "/packages/1/versions/30",
                404,
                json!({"error": "no version 30"}),
            ),
        ]
    }

    #[test]
    fn a_read_answering_a_member_of_a_held_entity_is_a_member_view() {
        let fixture = derive(records());
        let ViewDetail::Member(tags) = fixture.view("get_packages_tags_by_package_id") else {
            panic!(
                "tags: {:?}",
                fixture.view("get_packages_tags_by_package_id")
            )
        };
        assert_eq!(tags.entity_type, "/packages");
        assert_eq!(tags.entity_segment, 1);
        assert_eq!(tags.steps, vec![MemberStep::Key("tags".to_owned())]);
        assert_eq!(tags.missing_ordinal, None);
        // The version read echoes its key, an item view of its own type at first: a member of
        // the package it is.
        let ViewDetail::Member(version) = fixture.view(VERSION_TOOL) else {
            panic!("version: {:?}", fixture.view(VERSION_TOOL))
        };
        assert_eq!(
            version.steps,
            vec![
                MemberStep::Key("versions".to_owned()),
                MemberStep::Segment(3)
            ]
        );
        assert_eq!(version.missing_ordinal, Some(8));
    }

    #[test]
    fn a_member_view_answers_any_held_entity_and_key_and_follows_served_writes() {
        let fixture = derive(records());
        let version_tool = VERSION_TOOL;
        let arguments = |id: &str, version: &str| {
            let definition = fixture
                .manifest
                .tools
                .iter()
                .find(|tool| tool.name == version_tool)
                .unwrap();
            let names: Vec<String> = definition
                .path_parameters
                .iter()
                .map(|parameter| parameter.name.clone())
                .collect();
            json!({names[0].clone(): id, names[1].clone(): version})
        };
        // A key no read named, of a package whose versions were read with another key.
        let answer = fixture.call(version_tool, arguments("2", "10"));
        assert_eq!(answer["body"], json!({"n": "10", "size": 2}), "{answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        // A key the package lacks: the tool's own 404, naming the call's key.
        let answer = fixture.call(version_tool, arguments("2", "40"));
        assert_eq!(answer["status"], 404, "{answer}");
        assert_eq!(
            answer["body"],
            json!({"error": "no version 40"}),
            "{answer}"
        );
        // A package the state lacks, and the packages tool recorded no missing answer: refused.
        let answer = fixture.call(version_tool, arguments("9", "10"));
        assert_eq!(answer["error"]["code"], "not_found", "{answer}");
        assert_eq!(answer["is_error"], true, "{answer}");
        let answer = fixture.call(
            "get_packages_tags_by_package_id",
            json!({"package_id": "2"}),
        );
        assert_eq!(answer["body"], json!({"latest": "20"}), "{answer}");
        // After a served write of package 1, its tags answer what it holds now.
        let plan = fixture
            .state
            .write_plan("put_packages_by_id")
            .expect("plan");
        assert!(plan.served, "{plan:?}");
        let written = fixture.call(
            "put_packages_by_id",
            json!({"id": "1", "body": package(1, "20")}),
        );
        assert_ne!(written["is_error"], true, "{written}");
        let answer = fixture.call(
            "get_packages_tags_by_package_id",
            json!({"package_id": "1"}),
        );
        assert_eq!(answer["body"], json!({"latest": "20"}), "{answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
    }

    #[test]
    fn a_read_answering_the_member_another_member_names_is_a_lookup() {
        // `/packages/2/tagged/latest` answers `versions[tags[latest]]` of package 2.
        let mut records = records();
        records.insert(
            6,
            record(
                9,
                "GET",
                "/packages/2/tagged/latest",
                200,
                package(2, "20")["versions"]["20"].clone(),
            ),
        );
        let fixture = derive(renumbered(records));
        let tool = "get_packages_tagged_latest_by_package_id";
        let ViewDetail::Member(tagged) = fixture.view(tool) else {
            panic!("tagged: {:?}", fixture.view(tool))
        };
        assert_eq!(
            tagged.steps,
            vec![
                MemberStep::Key("versions".to_owned()),
                MemberStep::Via(vec![
                    MemberStep::Key("tags".to_owned()),
                    MemberStep::Key("latest".to_owned())
                ])
            ]
        );
        // Package 1's latest tag names version 10 in the state's seed.
        let answer = fixture.call(tool, json!({"package_id": "1"}));
        assert_eq!(answer["body"], json!({"n": "10", "size": 1}), "{answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
    }

    /// Records renumbered in capture order (a record's start time and pointer follow its
    /// ordinal).
    fn renumbered(records: Vec<CaptureRecord>) -> Vec<CaptureRecord> {
        records
            .into_iter()
            .enumerate()
            .map(|(ordinal, mut renumbered)| {
                let like = record(ordinal as u64, "GET", "/", 200, json!({}));
                renumbered.ordinal = like.ordinal;
                renumbered.pointer = like.pointer;
                renumbered.started = like.started;
                renumbered
            })
            .collect()
    }

    #[test]
    fn a_sibling_lookup_by_a_literal_widens_the_key_step_to_either_map() {
        // `/packages/1/versions/latest` answers `versions[tags[latest]]` beside the version
        // tool's `versions[n]`: a version tool's key may name a tag too.
        let mut records = records();
        records.insert(
            6,
            record(
                9,
                "GET",
                "/packages/1/versions/latest",
                200,
                package(1, "10")["versions"]["10"].clone(),
            ),
        );
        let fixture = derive(renumbered(records));
        let ViewDetail::Member(latest) = fixture.view("get_packages_versions_latest_by_package_id")
        else {
            panic!("latest")
        };
        assert_eq!(
            latest.steps[1],
            MemberStep::Via(vec![
                MemberStep::Key("tags".to_owned()),
                MemberStep::Key("latest".to_owned())
            ])
        );
        let ViewDetail::Member(version) = fixture.view(VERSION_TOOL) else {
            panic!("version: {:?}", fixture.view(VERSION_TOOL))
        };
        assert_eq!(
            version.steps,
            vec![
                MemberStep::Key("versions".to_owned()),
                MemberStep::Or(vec![
                    MemberStep::Segment(3),
                    MemberStep::Via(vec![
                        MemberStep::Key("tags".to_owned()),
                        MemberStep::Segment(3)
                    ])
                ])
            ]
        );
        let fields = package(2, "20");
        let fields = rea_plugin_api::json::parse(fields.to_string().as_bytes()).unwrap();
        let at = |key: &str| {
            super::member_of(&fields, &version.steps, &["packages", "2", "versions", key])
                .map(|found| String::from_utf8(found.to_canonical_vec()).unwrap())
        };
        // A version key, else a tag naming one; neither names nothing.
        assert_eq!(at("10").as_deref(), Some(r#"{"n":"10","size":2}"#));
        assert_eq!(at("latest").as_deref(), Some(r#"{"n":"20","size":3}"#));
        assert_eq!(at("beta"), None);
    }

    #[test]
    fn a_lookup_naming_no_string_names_no_member() {
        let fields = package(1, "10");
        let fields = rea_plugin_api::json::parse(fields.to_string().as_bytes()).unwrap();
        let via = |key: &str| {
            [
                MemberStep::Key("versions".to_owned()),
                MemberStep::Via(vec![
                    MemberStep::Key("tags".to_owned()),
                    MemberStep::Key(key.to_owned()),
                ]),
            ]
        };
        let found = super::member_of(&fields, &via("latest"), &["1"]).unwrap();
        assert_eq!(found.to_canonical_vec(), br#"{"n":"10","size":1}"#);
        // A tag the package lacks, or a lookup landing on an object, names nothing.
        assert!(super::member_of(&fields, &via("beta"), &["1"]).is_none());
        let object = [MemberStep::Via(vec![MemberStep::Key(
            "versions".to_owned(),
        )])];
        assert!(super::member_of(&fields, &object, &["1"]).is_none());
    }

    #[test]
    fn a_member_is_found_through_literal_and_segment_steps() {
        let fields = package(1, "10");
        let fields = rea_plugin_api::json::parse(fields.to_string().as_bytes()).unwrap();
        let steps = [
            MemberStep::Key("versions".to_owned()),
            MemberStep::Segment(1),
        ];
        let found = super::member_of(&fields, &steps, &["1", "20"]).unwrap();
        assert_eq!(found.to_canonical_vec(), br#"{"n":"20","size":2}"#);
        assert!(super::member_of(&fields, &steps, &["1", "30"]).is_none());
        assert!(super::member_of(&fields, &steps, &["1"]).is_none());
    }
}
