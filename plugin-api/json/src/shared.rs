//! Objects parsed once and shared by every document that spells them the same way: the answers of
//! a capture repeat objects (a list shows the items their own reads answered, an envelope repeats
//! an author), and each repetition held every string again (issue 17). [`SharedObjects`] is the
//! table a run of parses shares; an object whose text was read before is the earlier object's
//! members (see the `members` module), once the two parses are found identical (keys in order,
//! values alike, numbers by lexeme), so a shared object serializes exactly as its own would.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use crate::Json;
use crate::members::{Member, Members};

/// Objects whose text is shorter than this are not looked up: their members cost about what an
/// entry of the table would.
const SHARED_TEXT_BYTES: usize = 48;

/// The objects a run of parses read, by their text (see the module docs).
#[derive(Default)]
pub struct SharedObjects {
    by_text: HashMap<u64, Arc<[Member]>>,
    hasher: std::collections::hash_map::RandomState,
}

impl std::fmt::Debug for SharedObjects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedObjects")
            .field("objects", &self.by_text.len())
            .finish()
    }
}

impl SharedObjects {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The members of an object just parsed from `text`: an earlier object's when one was read
    /// from the same text and parsed identically; else these, remembered for the next.
    pub(crate) fn share(&mut self, text: &[u8], members: &mut Members) {
        if text.len() < SHARED_TEXT_BYTES {
            return;
        }
        let Members::Shared(parsed) = members else {
            return;
        };
        let hash = self.hasher.hash_one(text);
        match self.by_text.get(&hash) {
            Some(earlier) if identical_members(earlier, parsed) => {
                *members = Members::Shared(Arc::clone(earlier));
            }
            Some(_) => {}
            None => {
                self.by_text.insert(hash, Arc::clone(parsed));
            }
        }
    }
}

/// Whether two member lists are the same text's: keys in order, values identical.
fn identical_members(one: &[Member], two: &[Member]) -> bool {
    one.len() == two.len()
        && one
            .iter()
            .zip(two)
            .all(|((key, value), (other_key, other))| {
                key.as_bytes() == other_key.as_bytes() && identical(value, other)
            })
}

/// Whether two values serialize alike: [`Json`]'s equality, but members in order.
fn identical(one: &Json, two: &Json) -> bool {
    match (one, two) {
        (Json::Object(one), Json::Object(two)) => identical_members(one.members(), two.members()),
        (Json::Array(one), Json::Array(two)) => {
            one.len() == two.len() && one.iter().zip(two).all(|(a, b)| identical(a, b))
        }
        _ => one == two,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_sharing;

    const ITEM: &[u8] = br#"{"id": 1, "title": "a title long enough", "tags": ["x", "y"]}"#;

    fn members_of(value: &Json) -> &Members {
        &value.as_object().expect("object").members
    }

    #[test]
    fn an_object_read_again_from_the_same_text_is_the_earlier_one() {
        let mut objects = SharedObjects::new();
        let item = parse_sharing(ITEM, &mut objects).expect("item");
        let mut list = b"[".to_vec();
        list.extend_from_slice(ITEM);
        list.extend_from_slice(b"]");
        let list = parse_sharing(&list, &mut objects).expect("list");
        let listed = &list.as_array().expect("array")[0];
        assert!(members_of(&item).same(members_of(listed)));
        assert_eq!(&item, listed);
    }

    #[test]
    fn objects_of_other_text_or_member_order_are_their_own() {
        let mut objects = SharedObjects::new();
        let item = parse_sharing(ITEM, &mut objects).expect("item");
        let reordered = br#"{"title": "a title long enough", "id": 1, "tags": ["x", "y"]}"#;
        let other = parse_sharing(reordered, &mut objects).expect("reordered");
        assert!(!members_of(&item).same(members_of(&other)));
        assert_eq!(item, other, "equal as JSON, yet written in their own order");
        let keys: Vec<&str> = other.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["title", "id", "tags"]);
        let small = parse_sharing(br#"{"id": 1}"#, &mut objects).expect("small");
        let again = parse_sharing(br#"{"id": 1}"#, &mut objects).expect("small");
        assert!(
            !members_of(&small).same(members_of(&again)),
            "short objects are not looked up"
        );
    }

    #[test]
    fn identity_reads_members_in_order_and_numbers_by_lexeme() {
        let one = crate::parse(br#"{"a": 1, "b": [1.0]}"#).expect("one");
        let two = crate::parse(br#"{"a": 1, "b": [1.00]}"#).expect("two");
        let three = crate::parse(br#"{"b": [1.0], "a": 1}"#).expect("three");
        assert!(identical(&one, &one.clone()));
        assert!(!identical(&one, &two));
        assert!(!identical(&one, &three));
        assert_eq!(one, three);
    }
}
