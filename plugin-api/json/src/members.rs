//! An object's members: a list the object owns while it is built or changed, or one shared list
//! once the parser has read it whole. A copy of a shared list is a count, not a copy of its values:
//! a state derivation copies parsed answers into its entities, and each copy held every string of
//! the answer again (issue 17: the build's largest holding after the records). A shared list is
//! made the object's own again, at the cost of one copy of its top level, the first time it is
//! changed.

use std::sync::Arc;

use crate::Json;
use crate::key::Key;

/// One member: its key and value.
pub(crate) type Member = (Key, Json);

/// The members of an object.
#[derive(Clone)]
pub(crate) enum Members {
    /// Owned, growable (an object being built or changed).
    Owned(Vec<Member>),
    /// Shared at its size (an object the parser read whole).
    Shared(Arc<[Member]>),
}

impl Default for Members {
    fn default() -> Self {
        Members::Owned(Vec::new())
    }
}

impl Members {
    /// The members in order.
    pub(crate) fn as_slice(&self) -> &[Member] {
        match self {
            Members::Owned(members) => members,
            Members::Shared(members) => members,
        }
    }

    /// The number of members.
    pub(crate) fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// Whether both are one shared list (then equal without a look at the values).
    pub(crate) fn same(&self, other: &Members) -> bool {
        match (self, other) {
            (Members::Shared(one), Members::Shared(two)) => Arc::ptr_eq(one, two),
            _ => false,
        }
    }

    /// Whether the list is shared.
    #[cfg(test)]
    pub(crate) fn is_shared(&self) -> bool {
        matches!(self, Members::Shared(_))
    }

    /// Shares the list at its size; an empty list stays owned (it holds no allocation).
    pub(crate) fn share(&mut self) {
        if let Members::Owned(members) = self
            && !members.is_empty()
        {
            *self = Members::Shared(Arc::from(std::mem::take(members)));
        }
    }

    /// The list, owned: a shared one is taken over when no other copy holds it, copied otherwise.
    pub(crate) fn owned(&mut self) -> &mut Vec<Member> {
        if let Members::Shared(shared) = self {
            *self = Members::Owned(unshared(shared));
        }
        match self {
            Members::Owned(members) => members,
            Members::Shared(_) => unreachable!("made owned above"),
        }
    }

    /// The list as an owned `Vec`.
    pub(crate) fn into_vec(mut self) -> Vec<Member> {
        std::mem::take(self.owned())
    }
}

/// A shared list's members as an owned list: moved out when this is its only holder (keys are
/// copied, values taken), copied otherwise.
fn unshared(shared: &mut Arc<[Member]>) -> Vec<Member> {
    match Arc::get_mut(shared) {
        Some(only) => only
            .iter_mut()
            .map(|(key, value)| (key.clone(), std::mem::take(value)))
            .collect(),
        None => shared.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(key: &str, value: &str) -> Member {
        (Key::from(key), Json::String(value.into()))
    }

    fn texts(members: &[Member]) -> Vec<(&str, &Json)> {
        members
            .iter()
            .map(|(key, value)| (key.as_str(), value))
            .collect()
    }

    fn shared() -> Members {
        let mut members = Members::Owned(vec![member("a", "one"), member("b", "two")]);
        members.share();
        members
    }

    #[test]
    fn a_copy_of_shared_members_is_the_same_list_until_one_changes() {
        let first = shared();
        let mut second = first.clone();
        assert!(first.same(&second), "a copy shares the list");
        second.owned().push(member("c", "three"));
        assert!(!first.same(&second));
        assert_eq!(first.len(), 2, "the original is unchanged");
        assert_eq!(texts(&second.as_slice()[..2]), texts(first.as_slice()));
        assert_eq!(second.len(), 3);
    }

    #[test]
    fn the_only_holder_takes_the_values_over_and_empty_lists_stay_owned() {
        let mut only = shared();
        assert!(only.is_shared());
        let owned = only.owned();
        let one = Json::String("one".into());
        let two = Json::String("two".into());
        assert_eq!(texts(owned), [("a", &one), ("b", &two)]);
        let mut empty = Members::default();
        empty.share();
        assert!(!empty.is_shared(), "nothing to share");
        assert_eq!(shared().into_vec().len(), 2);
    }
}
