//! Which recorded names look like credentials.
//!
//! A name looks like a credential when one of its whole segments (split at punctuation and at
//! lower-to-upper case changes, compared lower-cased) is a credential word (`token`, `secret`,
//! `password`, `authorization`, `session`, …) or two adjacent segments are (`api` `key`). The
//! bundle's credential scan reports such names; the server redacts their values in answers
//! unless told to keep them, except paging tokens ([`is_paging_token`]), which clients must send
//! back to read the next page.

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

/// Whether a name looks like a credential .
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

/// Segments that make a `token` a paging cursor rather than a credential (`next_page_token`,
/// `pageToken`, `continuation_token`, `nextToken`, `cursor_token`).
const PAGING_WORDS: [&str; 5] = ["page", "next", "continuation", "cursor", "sync"];

/// Whether a name is a paging token: a `token` segment next to a paging word.
pub fn is_paging_token(name: &str) -> bool {
    let segments = segments(name);
    segments.windows(2).any(|pair| {
        (pair[1] == "token" && PAGING_WORDS.contains(&pair[0].as_str()))
            || (pair[0] == "token" && PAGING_WORDS.contains(&pair[1].as_str()))
    })
}

/// Last segments that make a credential-named member describe the credential rather than hold
/// it (`authMode: "static"`, `token_type: "Bearer"`, `sessionTimeout: 300`).
const DESCRIPTOR_WORDS: [&str; 10] = [
    "enabled", "expires", "expiry", "kind", "length", "method", "mode", "required", "timeout",
    "type",
];

/// Whether a credential-named member describes the credential (its last segment a descriptor
/// word after a credential word: `authMode`, `token_type`) rather than holding it.
pub fn is_credential_descriptor(name: &str) -> bool {
    let segments = segments(name);
    segments.len() > 1
        && segments
            .last()
            .is_some_and(|last| DESCRIPTOR_WORDS.contains(&last.as_str()))
}

/// Whether a value held under this name is redacted when served: a credential name that is
/// neither a paging token nor a descriptor of the credential.
pub fn is_redacted_name(name: &str) -> bool {
    looks_like_credential(name) && !is_paging_token(name) && !is_credential_descriptor(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_tokens_are_not_redacted_but_credentials_are() {
        for name in [
            "next_page_token",
            "pageToken",
            "page_token",
            "nextToken",
            "continuation_token",
        ] {
            assert!(
                looks_like_credential(name) && !is_redacted_name(name),
                "{name}"
            );
        }
        for name in [
            "api_key",
            "session_token",
            "X-Api-Key",
            "access_token",
            "password",
            "_token",
        ] {
            assert!(is_redacted_name(name), "{name}");
        }
        for name in ["author", "page", "title", "keyword"] {
            assert!(!is_redacted_name(name), "{name}");
        }
    }

    #[test]
    fn a_name_describing_the_credential_is_not_redacted_but_still_looks_like_one() {
        for name in [
            "authMode",
            "token_type",
            "sessionTimeout",
            "password_required",
        ] {
            assert!(
                looks_like_credential(name) && !is_redacted_name(name),
                "{name}"
            );
        }
        // The descriptor word must follow the credential word; alone it is the credential.
        for name in [
            "auth",
            "apiKey",
            "mode_token",
            "type_password",
            "session_id",
        ] {
            assert!(is_redacted_name(name), "{name}");
        }
    }
}
