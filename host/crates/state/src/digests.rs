//! Digest queries: a query pair of an item read (`hash=1`) whose recorded answer showed, in one
//! member, the lower-case hex SHA-256 of another member's text (`hash` of `content`) and, in a
//! third, the algorithm's name (`hash_algorithm: "sha256"`). Learned from every successful item
//! read naming exactly one query pair (the digest is checked, never guessed), and given to each
//! item view whose tool takes that parameter (its own, or one a query family gave it: a folder
//! tree's document tool of another depth). A call naming the pair on such a view, which would
//! otherwise replay a recording (the parameter is one the view's reads never showed), answers the
//! entity as the view renders it without the pair, the digest computed from the live entity's
//! text and the algorithm's name set; an entity without that text keeps the old answer.

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::Json;

use crate::model::{ReadView, ViewDetail};
use crate::observation::Timeline;

/// The algorithm names a member may spell SHA-256 with (compared case-insensitively).
const SHA256_NAMES: [&str; 2] = ["sha256", "sha-256"];

/// A query pair whose answer shows a digest of a member (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DigestQuery {
    /// The query parameter.
    pub parameter: String,
    /// The value it was given.
    pub value: String,
    /// The member holding the digest.
    pub digest_member: String,
    /// The member whose text is digested.
    pub of_member: String,
    /// The member naming the algorithm, and the name it holds.
    pub algorithm: (String, String),
}

impl DigestQuery {
    /// Whether the call's query names this pair once (`query`: name → values).
    pub(crate) fn named_by(&self, query: &[(String, Vec<String>)]) -> bool {
        query
            .iter()
            .any(|(name, values)| *name == self.parameter && *values == [self.value.clone()])
    }

    /// Sets the digest and the algorithm's name on a rendered entity; `None` when the entity
    /// holds no text in the digested member.
    pub(crate) fn apply(&self, entity: &mut Json) -> Option<()> {
        let text = entity.get(&self.of_member)?.as_str()?.to_owned();
        let object = entity.as_object_mut()?;
        object.insert(
            self.digest_member.clone(),
            Json::from(rea_evidence::sha256_hex(text.as_bytes())),
        );
        object.insert(
            self.algorithm.0.clone(),
            Json::String(self.algorithm.1.clone().into()),
        );
        Some(())
    }
}

/// Learns the digest queries the item reads show and gives each item view whose tool takes the
/// parameter the ones naming it.
pub(crate) fn generalize(manifest: &Manifest, timeline: &Timeline, views: &mut [ReadView]) {
    let mut learned: Vec<DigestQuery> = Vec::new();
    for view in views.iter() {
        let ViewDetail::Item(item) = &view.detail else {
            continue;
        };
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        for observation in timeline.all(index) {
            let [(parameter, value)] = observation.pairs() else {
                continue;
            };
            if !observation.is_success() {
                continue;
            }
            let shown = observation
                .body
                .as_ref()
                .and_then(|body| body.pointer(&item.entity_pointer));
            if let Some(members) = shown.and_then(digest_members) {
                learned.push(DigestQuery {
                    parameter: parameter.clone(),
                    value: value.clone(),
                    digest_member: members.0,
                    of_member: members.1,
                    algorithm: members.2,
                });
            }
        }
    }
    learned.sort();
    learned.dedup();
    // A pair two reads showed differently teaches nothing.
    let pairs: Vec<(&str, &str)> = learned
        .iter()
        .map(|digest| (digest.parameter.as_str(), digest.value.as_str()))
        .collect();
    let single: Vec<DigestQuery> = learned
        .iter()
        .filter(|digest| {
            pairs
                .iter()
                .filter(|pair| **pair == (digest.parameter.as_str(), digest.value.as_str()))
                .count()
                == 1
        })
        .cloned()
        .collect();
    if single.is_empty() {
        return;
    }
    for view in views.iter_mut() {
        let Some(tool) = manifest.tools.iter().find(|tool| tool.name == view.tool) else {
            continue;
        };
        let ViewDetail::Item(item) = &mut view.detail else {
            continue;
        };
        item.digests = single
            .iter()
            .filter(|digest| {
                tool.query_parameters
                    .iter()
                    .any(|parameter| parameter.name == digest.parameter)
            })
            .cloned()
            .collect();
    }
}

/// The members of one answer object that show a digest: the digest member, the member whose text
/// it digests, and the member naming the algorithm with the name it holds; exactly one of each.
fn digest_members(shown: &Json) -> Option<(String, String, (String, String))> {
    let Json::Object(object) = shown else {
        return None;
    };
    let texts: Vec<(&str, &str)> = object
        .iter()
        .filter_map(|(name, value)| Some((name, value.as_str()?)))
        .collect();
    let digested: Vec<(&str, &str)> = texts
        .iter()
        .flat_map(|(digest, shown)| {
            texts.iter().filter_map(move |(of, text)| {
                (digest != of && *shown == rea_evidence::sha256_hex(text.as_bytes()))
                    .then_some((*digest, *of))
            })
        })
        .collect();
    let named: Vec<(&str, &str)> = texts
        .iter()
        .filter(|(_, text)| {
            SHA256_NAMES
                .iter()
                .any(|name| text.eq_ignore_ascii_case(name))
        })
        .copied()
        .collect();
    match (digested.as_slice(), named.as_slice()) {
        ([(digest, of)], [(member, name)]) => Some((
            (*digest).to_owned(),
            (*of).to_owned(),
            ((*member).to_owned(), (*name).to_owned()),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parse;

    #[test]
    fn an_answer_shows_a_digest_of_one_member_named_by_another() {
        let hash = rea_evidence::sha256_hex(b"# Title\n");
        let shown = parse(&format!(
            r##"{{"name":"a.md","content":"# Title\n","hash":"{hash}","hash_algorithm":"sha256"}}"##
        ));
        assert_eq!(
            digest_members(&shown),
            Some((
                "hash".to_owned(),
                "content".to_owned(),
                ("hash_algorithm".to_owned(), "sha256".to_owned())
            ))
        );
        let unnamed = parse(&format!(r##"{{"content":"# Title\n","hash":"{hash}"}}"##));
        assert_eq!(digest_members(&unnamed), None, "no algorithm named");
        let wrong = parse(r##"{"content":"# Title\n","hash":"00","hash_algorithm":"sha256"}"##);
        assert_eq!(digest_members(&wrong), None, "not the digest");
    }

    #[test]
    fn a_digest_query_sets_the_digest_of_the_live_text() {
        let digest = DigestQuery {
            parameter: "hash".to_owned(),
            value: "1".to_owned(),
            digest_member: "hash".to_owned(),
            of_member: "content".to_owned(),
            algorithm: ("hash_algorithm".to_owned(), "sha256".to_owned()),
        };
        assert!(digest.named_by(&[("hash".to_owned(), vec!["1".to_owned()])]));
        assert!(!digest.named_by(&[("hash".to_owned(), vec!["0".to_owned()])]));
        let mut entity = parse(r#"{"content":"x","hash":null,"hash_algorithm":null}"#);
        assert_eq!(digest.apply(&mut entity), Some(()));
        assert_eq!(
            entity.get("hash").and_then(Json::as_str),
            Some(rea_evidence::sha256_hex(b"x").as_str())
        );
        assert_eq!(
            entity.get("hash_algorithm").and_then(Json::as_str),
            Some("sha256")
        );
        let mut folder = parse(r#"{"content":[],"hash":null}"#);
        assert_eq!(digest.apply(&mut folder), None, "no text to digest");
    }
}
