//! Names that look like credentials: a header, query parameter or body member name whose whole
//! segments name one (`token`, `secret`, `password`, `api_key`, `authorization`, `session`, …).
//!
//! A name's segments split at characters that are not ASCII letters or digits and where a
//! lower-case letter or digit is followed by an upper-case letter (`apiKey` → `api`, `key`).
//! Names do not establish sensitivity; the bundle's credential scan warns on them, and the
//! catalog never shows a value recorded under such a name.

/// Whole name segments that name a credential.
const CREDENTIAL_WORDS: [&str; 15] = [
    "apikey",
    "auth",
    "authorization",
    "csrftoken",
    "jwt",
    "passphrase",
    "passwd",
    "password",
    "passwords",
    "secret",
    "secrets",
    "session",
    "sessionid",
    "token",
    "tokens",
];

/// Adjacent segment pairs that name a credential.
const CREDENTIAL_PAIRS: [(&str, &str); 4] = [
    ("access", "key"),
    ("api", "key"),
    ("private", "key"),
    ("secret", "key"),
];

/// Whether a name looks like a credential (see the module documentation).
pub fn looks_like_credential(name: &str) -> bool {
    let segments = segments(name);
    segments
        .iter()
        .any(|segment| CREDENTIAL_WORDS.contains(&segment.as_str()))
        || segments.windows(2).any(|pair| {
            CREDENTIAL_PAIRS
                .iter()
                .any(|(first, second)| pair[0] == *first && pair[1] == *second)
        })
}

/// A name's segments: split at characters that are not ASCII letters or digits and where a
/// lower-case letter or digit is followed by an upper-case letter; lower-cased.
fn segments(name: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for character in name.chars() {
        if character.is_ascii_alphanumeric() {
            let boundary = character.is_ascii_uppercase()
                && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary && !current.is_empty() {
                segments.push(std::mem::take(&mut current));
            }
            current.push(character.to_ascii_lowercase());
        } else if !current.is_empty() {
            segments.push(std::mem::take(&mut current));
        }
        previous = Some(character);
    }
    if !current.is_empty() {
        segments.push(current);
    }
    segments
}
