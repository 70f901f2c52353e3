//! Relations held as an item's path: a text member spelling the path of an item of a held
//! entity's collection (`"author": "/api/v1/author/2/"` beside the collection `/api/v1/author/`)
//! names that entity by the path's last segment, as the collection's item route reads it (one
//! trailing `/` or none, as [`crate::derive::entities::item_segments`] reads item paths).
//!
//! Link filters compare such a reference by the id it names, never as text
//! ([`crate::link_filters`]: `author=2` lists the books holding author 2's path, not author 12's),
//! and a delete's dependents are the entities holding the deleted entity's id or its item path
//! ([`crate::writes::dependents`]).

use crate::derive::entities::collection_key;

/// The id `text` names as the path of an item of `collection`: the collection's path (without
/// its trailing `/`), one more segment, and at most a trailing `/`. `None` for any other text,
/// and for the root collection (every one-segment path would be its item).
pub fn item_id<'t>(text: &'t str, collection: &str) -> Option<&'t str> {
    let base = collection_key(collection);
    if !base.starts_with('/') || base == "/" {
        return None;
    }
    let rest = text.strip_prefix(base)?.strip_prefix('/')?;
    let id = rest.strip_suffix('/').unwrap_or(rest);
    (!id.is_empty() && !id.contains(['/', '?', '#'])).then_some(id)
}

/// Whether `text` names the entity `id` of `collection`: its id, or its item path.
pub fn names(text: &str, collection: &str, id: &str) -> bool {
    text == id || item_id(text, collection) == Some(id)
}

/// The texts a member referring to the entity `id` of `collection` may hold: the id, and its
/// item path without and with a trailing `/` (none for the root collection).
pub fn spellings(collection: &str, id: &str) -> Vec<String> {
    let base = collection_key(collection);
    let mut texts = vec![id.to_owned()];
    if base.starts_with('/') && base != "/" {
        texts.push(format!("{base}/{id}"));
        texts.push(format!("{base}/{id}/"));
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_path_of_the_collection_names_its_last_segment() {
        assert_eq!(item_id("/api/v1/author/2/", "/api/v1/author/"), Some("2"));
        assert_eq!(item_id("/api/v1/author/12", "/api/v1/author"), Some("12"));
        assert_eq!(item_id("/api/v1/author/2/books/", "/api/v1/author/"), None);
        assert_eq!(item_id("/api/v1/authors/2/", "/api/v1/author/"), None);
        assert_eq!(item_id("/api/v1/author/", "/api/v1/author/"), None);
        assert_eq!(item_id("2", "/api/v1/author/"), None);
        assert_eq!(
            item_id("/2", "/"),
            None,
            "the root collection names no item path"
        );
    }

    #[test]
    fn a_reference_names_by_the_whole_id_never_a_part_of_it() {
        assert!(names("/api/v1/author/2/", "/api/v1/author/", "2"));
        assert!(names("2", "/api/v1/author/", "2"));
        assert!(!names("/api/v1/author/12/", "/api/v1/author/", "2"));
        assert!(!names("/api/v1/author/2/", "/api/v1/book/", "2"));
    }

    #[test]
    fn the_spellings_of_a_reference_are_the_id_and_the_item_path() {
        assert_eq!(
            spellings("/api/v1/author/", "7"),
            ["7", "/api/v1/author/7", "/api/v1/author/7/"]
        );
        assert_eq!(spellings("/", "7"), ["7"]);
    }
}
