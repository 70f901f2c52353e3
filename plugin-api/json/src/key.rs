//! Object member keys, stored compactly: a key of up to 22 bytes (nearly every key a recorded API
//! answers: `id`, `title`, `created_at`) lives inside the member itself, without an allocation of
//! its own; a longer one is one boxed text. Parsed answers are the largest holding of a state
//! derivation and of a server (issue 17): an allocation per key cost each member at least 32 bytes
//! of heap beside its value.

/// A member key (always UTF-8; compared, ordered and shown as its text).
#[derive(Clone)]
pub(crate) struct Key(Repr);

#[derive(Clone)]
enum Repr {
    Inline { length: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

/// The longest key kept inline: the size of a `String` less the length byte and the tag.
const INLINE: usize = 22;

impl Key {
    /// The key's text.
    pub(crate) fn as_str(&self) -> &str {
        match &self.0 {
            // Inline bytes are a whole `&str`'s (cut at its end, never inside a character).
            Repr::Inline { length, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*length)]).unwrap_or_default()
            }
            Repr::Heap(text) => text,
        }
    }

    /// The key's bytes (comparisons need no UTF-8 check).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { length, bytes } => &bytes[..usize::from(*length)],
            Repr::Heap(text) => text.as_bytes(),
        }
    }

    /// The key as an owned `String`.
    pub(crate) fn into_string(self) -> String {
        match self.0 {
            Repr::Inline { .. } => self.as_str().to_owned(),
            Repr::Heap(text) => text.into_string(),
        }
    }

    /// An inline key, when the text fits.
    fn inline(text: &str) -> Option<Key> {
        (text.len() <= INLINE).then(|| {
            let mut bytes = [0u8; INLINE];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            Key(Repr::Inline {
                length: text.len() as u8,
                bytes,
            })
        })
    }
}

impl From<&str> for Key {
    fn from(text: &str) -> Key {
        Key::inline(text).unwrap_or_else(|| Key(Repr::Heap(text.into())))
    }
}

impl From<String> for Key {
    fn from(text: String) -> Key {
        Key::inline(&text).unwrap_or_else(|| Key(Repr::Heap(text.into_boxed_str())))
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::Key;

    #[test]
    fn short_keys_are_inline_and_long_ones_boxed_with_the_same_text() {
        for text in [
            "",
            "id",
            "created_at",
            "ключ",
            "a_key_of_22_bytes_long",
            "a_key_of_23_bytes_long!",
        ] {
            let key = Key::from(text);
            assert_eq!(key.as_str(), text);
            assert_eq!(key.as_bytes(), text.as_bytes());
            assert!(key == *text);
            assert_eq!(Key::from(text.to_owned()).into_string(), text);
            assert_eq!(format!("{key:?}"), format!("{text:?}"));
        }
        assert!(matches!(
            Key::from("a_key_of_22_bytes_long").0,
            super::Repr::Inline { .. }
        ));
        assert!(matches!(
            Key::from("a_key_of_23_bytes_long!").0,
            super::Repr::Heap(_)
        ));
        let id = Key::from("id");
        assert!(id != *"ids");
    }

    #[test]
    fn a_key_is_no_larger_than_a_string() {
        assert_eq!(std::mem::size_of::<Key>(), std::mem::size_of::<String>());
    }
}
