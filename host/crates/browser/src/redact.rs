//! Secrets replaced by markers wherever they are seen.
//!
//! A secret is looked for as written and in the spellings a request carries it in: percent-
//! encoded (a URL component), form-encoded (`+` for a space) and JSON-escaped (inside a JSON
//! string). Each is replaced by the secret's marker (`[redacted:ID]`). Bytes that are not text
//! cannot be rewritten: [`Redactor::holds_secret`] tells the caller to empty such a body.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use rea_plugin_api::contracts::session::{SessionSecret, secret_marker};

/// One secret and the spellings it is looked for in, longest first.
#[derive(Clone)]
struct Secret {
    id: String,
    marker: String,
    spellings: Vec<String>,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the value.
        f.debug_struct("Secret").field("id", &self.id).finish()
    }
}

/// The secrets of a session.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<Secret>,
}

impl Redactor {
    /// The declared secrets, `(secret_id, value)`.
    pub fn new(secrets: &[(String, String)]) -> Self {
        let mut redactor = Self::default();
        for (id, value) in secrets {
            redactor.add(id, value);
        }
        redactor
    }

    /// Adds a secret (a value a step saved with `secret: true`).
    pub fn add(&mut self, id: &str, value: &str) {
        if value.is_empty() {
            return;
        }
        let json = serde_json::to_string(value).unwrap_or_default();
        let mut spellings = vec![
            value.to_owned(),
            utf8_percent_encode(value, NON_ALPHANUMERIC).to_string(),
            url::form_urlencoded::byte_serialize(value.as_bytes()).collect(),
            json.get(1..json.len().saturating_sub(1))
                .unwrap_or_default()
                .to_owned(),
        ];
        spellings.retain(|spelling| !spelling.is_empty());
        spellings.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        spellings.dedup();
        self.secrets.push(Secret {
            id: id.to_owned(),
            marker: secret_marker(id),
            spellings,
        });
    }

    /// Whether there are secrets at all.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The text with every spelling of every secret replaced by its marker.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            for spelling in &secret.spellings {
                if out.contains(spelling.as_str()) {
                    out = out.replace(spelling.as_str(), &secret.marker);
                }
            }
        }
        out
    }

    /// Whether bytes hold a secret in any spelling.
    pub fn holds_secret(&self, bytes: &[u8]) -> bool {
        self.secrets.iter().any(|secret| {
            secret.spellings.iter().any(|spelling| {
                bytes
                    .windows(spelling.len().max(1))
                    .any(|window| window == spelling.as_bytes())
            })
        })
    }

    /// The declared secrets' ids and markers, for the session.
    pub fn markers(&self) -> Vec<SessionSecret> {
        self.secrets
            .iter()
            .map(|secret| SessionSecret {
                marker: secret.marker.clone(),
                secret_id: secret.id.clone(),
            })
            .collect()
    }

    /// The length in characters of each secret as written.
    pub fn lengths(&self) -> Vec<usize> {
        self.secrets
            .iter()
            .map(|secret| {
                secret
                    .spellings
                    .iter()
                    .map(|spelling| spelling.chars().count())
                    .min()
                    .unwrap_or(1)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_becomes_the_marker() {
        let redactor = Redactor::new(&[("pw".to_owned(), "p@ss word\"1".to_owned())]);
        assert_eq!(redactor.text("a p@ss word\"1 b"), "a [redacted:pw] b");
        assert_eq!(
            redactor.text("password=p%40ss+word%221&x=1"),
            "password=[redacted:pw]&x=1"
        );
        assert_eq!(redactor.text("q=p%40ss%20word%221"), "q=[redacted:pw]");
        assert_eq!(
            redactor.text(r#"{"password":"p@ss word\"1"}"#),
            r#"{"password":"[redacted:pw]"}"#
        );
        assert!(redactor.holds_secret(b"\x00\xffp@ss word\"1"));
        assert!(!redactor.holds_secret(b"\x00\xffp@ss"));
        assert!(!format!("{redactor:?}").contains("p@ss"));
    }
}
