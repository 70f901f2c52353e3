//! Sibling transfer of a write answering some members of the written entity (a projection,
//! Roundup's creates answering `{"data": {"id": "7", "link": ".../rest/data/issue/7"}}`), part of
//! [`super::siblings`].
//!
//! Such an answer carries over to the sibling when it shows nothing but members the rules the
//! sibling keeps generate (the id the source's rule draws, over the sibling's own ids) and its
//! body holds nothing else (each object or array on the way to the projection holds only the
//! step to it): rendered for the sibling, it names none of the source's entities.
//!
//! A kept rule spelling the source collection's path in a text (the composed `link`,
//! `…/rest/data/issue/` and the made id) spells the sibling's (`…/rest/data/user/`) instead, and
//! is kept only where the sibling's held entities show each member it explains so: every held
//! string of the member spells the sibling's path, and at least one is held. The paths are the
//! two templates' segments up to the literal in which they differ.

use rea_manifest::segments::split_path;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;

use super::model::{PlanRule, ResponseKind, ResponseModel};

/// The source collection's path and the sibling's (`/rt/rest/data/issue`, `/rt/rest/data/user`):
/// each template's segments up to the first literal in which they differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CollectionPaths {
    /// The source write's collection path.
    pub source: String,
    /// The sibling's collection path.
    pub sibling: String,
}

impl CollectionPaths {
    /// The paths of two templates that differ in one literal segment before any other
    /// difference; `None` when the first difference is a parameter or none is.
    pub(super) fn of(source_template: &str, sibling_template: &str) -> Option<Self> {
        let (source, sibling) = (split_path(source_template), split_path(sibling_template));
        let at = source
            .iter()
            .zip(&sibling)
            .position(|(left, right)| left != right)?;
        let literal = |segment: &str| !segment.is_empty() && !segment.starts_with('{');
        if !literal(source[at]) || !literal(sibling[at]) {
            return None;
        }
        let path = |segments: &[&str]| format!("/{}", segments[..=at].join("/"));
        Some(Self {
            source: path(&source),
            sibling: path(&sibling),
        })
    }
}

/// The kept rules with the source's collection path spelled as the sibling's: a rule naming the
/// source's path stays only when every member it explains is shown so by the sibling's held
/// values (`held`: the sibling type's entities' fields).
pub(super) fn rules_on_sibling_path(
    rules: Vec<PlanRule>,
    paths: &CollectionPaths,
    held: &[&Json],
) -> Vec<PlanRule> {
    rules
        .into_iter()
        .filter_map(|mut rule| {
            if !respell(&mut rule.rule, paths) {
                return Some(rule);
            }
            let shown = rule
                .explains
                .iter()
                .all(|pointer| held_spell_path(held, pointer, &paths.sibling));
            (shown && !rule.explains.is_empty()).then_some(rule)
        })
        .collect()
}

/// Respells every string of a rule holding the source's path at a segment boundary; whether one
/// did.
fn respell(value: &mut Json, paths: &CollectionPaths) -> bool {
    match value {
        Json::String(text) => match respelled(text.as_str(), paths) {
            Some(new) => {
                *value = Json::from(new);
                true
            }
            None => false,
        },
        // Every string is respelled, so no short cut once one was.
        Json::Array(items) => {
            let mut any = false;
            for item in items {
                any |= respell(item, paths);
            }
            any
        }
        Json::Object(members) => {
            let mut any = false;
            for (_, item) in members.iter_mut() {
                any |= respell(item, paths);
            }
            any
        }
        _ => false,
    }
}

/// `text` with each occurrence of the source path that ends at a segment boundary (the text's
/// end, `/`, `?` or `#` after it) spelled as the sibling's; `None` when it holds none.
fn respelled(text: &str, paths: &CollectionPaths) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find(paths.source.as_str()) {
        let after = &rest[at + paths.source.len()..];
        out.push_str(&rest[..at]);
        if ends_segment(after) {
            out.push_str(&paths.sibling);
            changed = true;
        } else {
            out.push_str(&paths.source);
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

fn ends_segment(after: &str) -> bool {
    after.is_empty() || after.starts_with(['/', '?', '#'])
}

/// Whether the held values show the member at a rule's pointer spelling the sibling's path: at
/// least one is held, and every held string of it names the path at a segment boundary.
fn held_spell_path(held: &[&Json], pointer: &str, path: &str) -> bool {
    let values: Vec<&Json> = held
        .iter()
        .filter_map(|fields| fields.pointer(pointer))
        .collect();
    !values.is_empty()
        && values.iter().all(|value| {
            value.as_str().is_some_and(|text| {
                text.match_indices(path)
                    .any(|(at, _)| ends_segment(&text[at + path.len()..]))
            })
        })
}

/// Whether a projection answer carries over: its recorded body holds nothing but the path to the
/// projected object, and every member that object shows is generated by a kept rule.
pub(super) fn projection_generated(
    response: &ResponseModel,
    kept: &[PlanRule],
    records: &[CaptureRecord],
) -> bool {
    if response.kind != ResponseKind::Projection {
        return false;
    }
    let Some(body) = records
        .iter()
        .find(|record| record.ordinal == response.ordinal)
        .and_then(|record| record.response.body.bytes())
        .and_then(|bytes| Json::parse(&bytes).ok())
    else {
        return false;
    };
    let Some(shown) =
        only_path_to(&body, response.pointer.as_deref().unwrap_or("")).and_then(Json::as_object)
    else {
        return false;
    };
    !shown.is_empty() && shown.keys().all(|member| generated(kept, member))
}

/// The value at `pointer` when every object or array on the way holds only the step to it.
fn only_path_to<'a>(body: &'a Json, pointer: &str) -> Option<&'a Json> {
    let mut at = body;
    for step in pointer.split('/').skip(1) {
        let step = rea_plugin_api::json::unescape_pointer_segment(step);
        at = match at {
            Json::Object(members) if members.len() == 1 => members.get(&step)?,
            Json::Array(items) if items.len() == 1 && step == "0" => &items[0],
            _ => return None,
        };
    }
    Some(at)
}

/// Whether a kept rule explains the member (a pointer whose first segment it is).
fn generated(kept: &[PlanRule], member: &str) -> bool {
    kept.iter().flat_map(|rule| &rule.explains).any(|pointer| {
        let first = pointer.trim_start_matches('/').split('/').next();
        first.map(rea_plugin_api::json::unescape_pointer_segment) == Some(member.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(explains: &str, text: &str) -> PlanRule {
        let rule = format!(
            r#"{{"fields":{{"{explains}":[{{"text":"{text}"}},{{"source":"made:id"}}]}}}}"#
        );
        PlanRule {
            stage: "composed".to_owned(),
            plugin: "p".to_owned(),
            explains: vec![explains.to_owned()],
            needs_clock: false,
            rule: Json::parse(rule.as_bytes()).unwrap(),
        }
    }

    fn paths() -> CollectionPaths {
        CollectionPaths::of("/api/data/issue", "/api/data/user").expect("one literal differs")
    }

    #[test]
    fn the_paths_end_at_the_first_differing_literal() {
        assert_eq!(
            paths(),
            CollectionPaths {
                source: "/api/data/issue".to_owned(),
                sibling: "/api/data/user".to_owned(),
            }
        );
        let items = CollectionPaths::of("/a/issue/{numeric}", "/a/user/{id}").unwrap();
        assert_eq!(items.sibling, "/a/user");
        assert!(CollectionPaths::of("/a/{x}/b", "/a/{y}/c").is_none());
        assert!(CollectionPaths::of("/a/b", "/a/b").is_none());
    }

    #[test]
    fn a_text_spelling_the_source_path_spells_the_siblings_at_segment_boundaries() {
        let paths = paths();
        assert_eq!(
            respelled("http://h/api/data/issue/", &paths).as_deref(),
            Some("http://h/api/data/user/")
        );
        assert_eq!(respelled("http://h/api/data/issues/", &paths), None);
        assert_eq!(respelled("no path", &paths), None);
    }

    #[test]
    fn a_respelled_rule_stays_only_where_the_siblings_values_show_its_path() {
        let users = [
            Json::parse(br#"{"id":"1","link":"http://h/api/data/user/1"}"#).unwrap(),
            Json::parse(br#"{"id":"2","link":"http://h/api/data/user/2"}"#).unwrap(),
        ];
        let held: Vec<&Json> = users.iter().collect();
        let kept = rules_on_sibling_path(
            vec![rule("/link", "http://h/api/data/issue/")],
            &paths(),
            &held,
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(
            kept[0].rule.pointer("/fields/~1link/0/text"),
            Some(&Json::from("http://h/api/data/user/"))
        );
        // A sibling holding its links elsewhere, or none, does not show the respelled path.
        let other = [Json::parse(br#"{"id":"1","link":"http://h/v2/user/1"}"#).unwrap()];
        let held: Vec<&Json> = other.iter().collect();
        let rules = vec![rule("/link", "http://h/api/data/issue/")];
        assert!(rules_on_sibling_path(rules.clone(), &paths(), &held).is_empty());
        assert!(rules_on_sibling_path(rules, &paths(), &[]).is_empty());
        // A rule naming no path is kept as it is.
        let plain = rules_on_sibling_path(vec![rule("/code", "T-")], &paths(), &[]);
        assert_eq!(plain.len(), 1);
        assert_eq!(plain[0].rule, rule("/code", "T-").rule);
    }

    #[test]
    fn only_a_body_holding_just_the_projection_carries() {
        let body = Json::parse(br#"{"data":{"id":"7","link":"l"}}"#).unwrap();
        assert!(only_path_to(&body, "/data").is_some());
        let beside = Json::parse(br#"{"data":{"id":"7"},"message":"issue 7 made"}"#).unwrap();
        assert!(only_path_to(&beside, "/data").is_none());
        let rows = Json::parse(br#"{"rows":[{"id":7}]}"#).unwrap();
        assert!(only_path_to(&rows, "/rows/0").is_some());
        let two = Json::parse(br#"{"rows":[{"id":7},{"id":8}]}"#).unwrap();
        assert!(only_path_to(&two, "/rows/0").is_none());
    }

    #[test]
    fn a_member_is_generated_when_a_kept_rule_explains_it() {
        let kept = [rule("/link", "x"), rule("/id", "")];
        assert!(generated(&kept, "link"));
        assert!(generated(&kept, "id"));
        assert!(!generated(&kept, "title"));
    }
}
