//! Fused identities: an entity named by several of its members at once (a row whose primary key
//! is compound, read at `/task_tags/5,release.json`), where no one member names it. The identity
//! field is then spelled as a template of member names in braces with the literal text the
//! application joins their values with (`{task_id},{tag}`), and the entity's id is that text
//! filled with its members' values (`5,release`).
//!
//! Learned by the item views ([`crate::derive::items`]) from reads whose path segment echoes no
//! one member of the entity: the segment is split at one separator (a character neither letter
//! nor digit) into as many parts as it holds, each the text of a distinct member of the entity,
//! in the same order on every read.

use std::borrow::Cow;

use rea_plugin_api::json::{Json, Object};

use crate::render::scalar_text;

/// The members of a fused identity in order, with the literal texts between them: `None` for an
/// identity naming one member (or a pointer).
pub fn parts(identity: &str) -> Option<(Vec<&str>, Vec<&str>)> {
    let inner = identity.strip_prefix('{')?.strip_suffix('}')?;
    let mut members = Vec::new();
    let mut separators = Vec::new();
    let mut rest = inner;
    loop {
        match rest.split_once('}') {
            None => {
                members.push(rest);
                break;
            }
            Some((member, after)) => {
                let (separator, next) = after.split_once('{')?;
                members.push(member);
                separators.push(separator);
                rest = next;
            }
        }
    }
    let named = members
        .iter()
        .all(|member| !member.is_empty() && !member.contains(['{', '}']));
    (members.len() > 1 && named && separators.iter().all(|sep| !sep.is_empty()))
        .then_some((members, separators))
}

/// The fused identity spelling of `members` joined by `separator` (`{task_id},{tag}`).
pub fn spelled(members: &[&str], separator: &str) -> String {
    members
        .iter()
        .map(|member| format!("{{{member}}}"))
        .collect::<Vec<_>>()
        .join(separator)
}

/// An object's fused identity (its members' texts joined as the identity spells), as a JSON
/// string; `None` when the identity is not fused or a member is missing or not a scalar.
pub fn value(object: &Json, identity: &str) -> Option<Cow<'static, Json>> {
    let (members, separators) = parts(identity)?;
    let object = object.as_object()?;
    let mut text = String::new();
    for (index, member) in members.iter().enumerate() {
        if index > 0 {
            text.push_str(separators[index - 1]);
        }
        text.push_str(&scalar_text(object.get(member)?)?);
    }
    Some(Cow::Owned(Json::String(text.into())))
}

/// The texts naming an entity in an envelope: its identity's text, then, for a fused identity,
/// each member's (`["5,release", "5", "release"]`); `None` when the object shows no identity.
pub fn names(object: &Json, identity: &str) -> Option<Vec<String>> {
    let mut names = vec![crate::render::identity_text(object, identity)?];
    if let Some((members, _)) = parts(identity) {
        let fields = object.as_object()?;
        for member in members {
            names.push(scalar_text(fields.get(member)?)?);
        }
    }
    Some(names)
}

/// The fused identity an entity `object` shows `id` by, if one: `id` split at one separator (a
/// character neither letter nor digit, tried in order of appearance) into parts that are, in
/// order, the texts of distinct scalar members (the first such member for each part).
pub fn candidates(object: &Object, id: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut tried: Vec<char> = Vec::new();
    for separator in id.chars().filter(|c| !c.is_alphanumeric()) {
        if tried.contains(&separator) {
            continue;
        }
        tried.push(separator);
        let pieces: Vec<&str> = id.split(separator).collect();
        if pieces.iter().any(|piece| piece.is_empty()) {
            continue;
        }
        let mut members: Vec<&str> = Vec::new();
        for piece in &pieces {
            let member = object.iter().find(|(name, value)| {
                !members.contains(name) && scalar_text(value).as_deref() == Some(piece)
            });
            match member {
                Some((name, _)) => members.push(name),
                None => break,
            }
        }
        if members.len() == pieces.len() {
            found.push(spelled(&members, &separator.to_string()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json;

    #[test]
    fn a_fused_identity_is_its_members_texts_joined() {
        let row = parsed_json(r#"{"task_id": 5, "tag": "release"}"#);
        let value = value(&row, "{task_id},{tag}").expect("fused");
        assert_eq!(*value, Json::String("5,release".into()));
        // A member missing, or an identity naming one member: no fused value.
        assert!(super::value(&parsed_json(r#"{"task_id": 5}"#), "{task_id},{tag}").is_none());
        assert!(super::value(&row, "task_id").is_none());
    }

    #[test]
    fn an_entity_is_named_by_its_identity_and_each_member_it_fuses() {
        let row = parsed_json(r#"{"task_id": 5, "tag": "release"}"#);
        let fused = names(&row, "{task_id},{tag}").expect("names");
        assert_eq!(fused, vec!["5,release", "5", "release"]);
        let plain = names(&parsed_json(r#"{"id": 7}"#), "id").expect("names");
        assert_eq!(plain, vec!["7"]);
    }

    #[test]
    fn only_braced_member_names_with_separators_between_are_fused() {
        let (members, separators) = parts("{a}::{b}~{c}").expect("fused");
        assert_eq!(members, vec!["a", "b", "c"]);
        assert_eq!(separators, vec!["::", "~"]);
        for plain in ["id", "/info/run_id", "{a}", "{a}{b}", "{}, {b}", "{a},b"] {
            assert!(parts(plain).is_none(), "{plain}");
        }
        assert_eq!(spelled(&["task_id", "tag"], ","), "{task_id},{tag}");
    }

    #[test]
    fn a_segment_naming_no_one_member_is_split_into_distinct_members() {
        let row = parsed_json(r#"{"task_id": 13, "tag": "launch", "note": "13"}"#);
        let object = row.as_object().expect("object");
        assert_eq!(candidates(object, "13,launch"), vec!["{task_id},{tag}"]);
        // Two equal parts take two distinct members.
        let pair = parsed_json(r#"{"a": "x", "b": "x"}"#);
        let pair = pair.as_object().expect("object");
        assert_eq!(candidates(pair, "x-x"), vec!["{a}-{b}"]);
        // A part no member shows, or an empty part, fuses nothing.
        assert!(candidates(object, "13,nope").is_empty());
        assert!(candidates(object, "13,,launch").is_empty());
    }
}
