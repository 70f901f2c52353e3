//! Field diagnostics: the issue list every schema refusal carries. The issues come from rea's one
//! schema checker ([`rea_serve::schema`]), re-exported here for the tools and the params gateway.

use serde_json::{Value, json};

pub use rea_serve::schema::{FieldIssue, pointer_token, validate};

/// The `data` member of an error or refusal carrying issues: `{"issues": [...]}`.
pub fn issues_data(issues: &[FieldIssue]) -> Value {
    json!({ "issues": issues })
}
