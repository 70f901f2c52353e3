//! Malformed ids (issue 12): an item route whose recordings answered one client error for an id
//! of a form no held id of its type has, and another for an id of a held form.
//! Syncthing answers `400 "NOT-A-DEVICE": device ID invalid: incorrect length` for a text that is
//! no device id and `404` for a well-formed id of no device.
//!
//! An id's form is its length and the characters other than letters and digits it holds, each at
//! its place (`XXXXXXX-XXXXXXX-…` with its dashes; a UUID's four dashes). Learned per item view
//! from the recorded client errors reading its collection's paths ([`learn`]): every id of a form
//! some held id of the type has answered one status (the missing answer), every id of a form none
//! has another. Served: a call naming an entity the state lacks by an id of a form no live
//! entity of the collection has answers that error, renamed to the call's id as a missing answer
//! is ([`crate::missing`]); an id of a held form answers the missing answer.

use std::collections::BTreeSet;

use crate::observation::{Observation, Timeline};

/// An id's form: its length in characters and each character other than a letter or a digit,
/// with its place.
pub type IdForm = (usize, Vec<(usize, char)>);

/// The form of an id.
pub fn form(id: &str) -> IdForm {
    let mut length = 0;
    let mut separators = Vec::new();
    for (place, character) in id.chars().enumerate() {
        length = place + 1;
        if !character.is_alphanumeric() {
            separators.push((place, character));
        }
    }
    (length, separators)
}

/// The forms of ids.
pub fn forms<'a>(ids: impl Iterator<Item = &'a str>) -> BTreeSet<IdForm> {
    ids.map(form).collect()
}

/// The id an item read names: its path's last segment, percent-decoded.
fn named_id(observation: &Observation) -> Option<String> {
    let last = observation.segments.last()?;
    Some(crate::observation::decoded(last))
}

/// The recorded errors answering a missing entity by an id of a held form and by an id of no
/// held form, as `(missing, malformed)` ordinals (see the module docs), given the tool's latest
/// error answering a missing entity and the forms of the held ids of the view's type. The errors
/// are the reads of a path in that error's collection, whichever tool the manifest gave them (an
/// id of another form than the route's parameter takes is a literal route of its own:
/// `/rest/config/devices/NOT-A-DEVICE`), answering a missing entity
/// ([`crate::derive::items::shows_missing`]): those naming an id of a held form all of one
/// status, the others all of another.
pub fn learn(
    timeline: &Timeline,
    latest: Option<u64>,
    held: &BTreeSet<IdForm>,
) -> Option<(u64, u64)> {
    let latest = timeline.get(latest?)?;
    let (_, collection) = latest.segments.split_last()?;
    let errors = (timeline.by_ordinal.values())
        .filter(|read| read.method.eq_ignore_ascii_case(&latest.method))
        .filter(|read| {
            read.segments
                .split_last()
                .is_some_and(|(_, other)| other == collection)
        })
        .filter(|read| crate::derive::items::shows_missing(timeline, read));
    let (mut well_formed, mut malformed) = (Vec::new(), Vec::new());
    for error in errors {
        match named_id(error).map(|id| held.contains(&form(&id))) {
            Some(true) => well_formed.push(error),
            Some(false) => malformed.push(error),
            None => return None,
        }
    }
    let missing = one_status_latest(&well_formed)?;
    let malformed = one_status_latest(&malformed)?;
    (missing.status != malformed.status).then_some((missing.ordinal, malformed.ordinal))
}

/// The latest of errors all of one status.
fn one_status_latest<'a>(errors: &[&'a Observation]) -> Option<&'a Observation> {
    let latest = errors.iter().max_by_key(|error| error.position)?;
    errors
        .iter()
        .all(|error| error.status == latest.status)
        .then_some(*latest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_is_the_length_and_the_separators_in_place() {
        assert_eq!(form("AB1-CD"), (6, vec![(3, '-')]));
        assert_eq!(form("ab1-xy"), form("AB1-CD"));
        assert_ne!(form("AB1CD"), form("AB1-CD"));
        assert_eq!(form(""), (0, vec![]));
    }
}
