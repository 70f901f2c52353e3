//! Encoded members of a write (served before the body is checked): a body query reading the
//! written type holds some fields as bytes in an encoding (etcd's `kv/range` reads `key` and
//! `value` as base64, `BodyQueryView::encoded_fields`). A call storing a string that does not
//! decode in that encoding at such a member, at the top of its body, is not modelled: no read of
//! the state could list it, and what the application answers to a value it cannot decode (a
//! `400`, most likely) no recorded call shows. The call is refused, changing nothing, rather than
//! stored as text no read could decode.

use rea_plugin_api::contracts::capture::base64;
use rea_plugin_api::contracts::query::BASE64_ENCODING;
use serde_json::Value;

use super::model::WritePlan;
use crate::answer::{StateAnswer, tool_error};
use crate::call::Call;
use crate::model::ViewDetail;
use crate::service::StateService;

/// The refusal of a call storing a value that does not decode at an encoded member of its type,
/// if it does.
pub(super) fn answer(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    let entity_type = plan.entity_type()?;
    let Some(Value::Object(body)) = call.body.as_ref() else {
        return None;
    };
    let views = service.derived().views.iter();
    let encoded = views.filter_map(|view| match &view.detail {
        ViewDetail::BodyQuery(query) if query.entity_type == entity_type => {
            Some(&query.encoded_fields)
        }
        _ => None,
    });
    for fields in encoded {
        for (field, encoding) in fields {
            let Some(Value::String(text)) = body.get(field) else {
                continue;
            };
            if !decodes(text, encoding) {
                return Some(tool_error(
                    "not_modelled",
                    format!(
                        "the state reads {field} as {encoding} bytes and the value sent does not decode; what the application does with it no recorded call shows, so nothing was changed"
                    ),
                ));
            }
        }
    }
    None
}

/// Whether a text decodes in an encoding the state knows (an unknown encoding decodes nothing).
fn decodes(text: &str, encoding: &str) -> bool {
    encoding == BASE64_ENCODING && base64::decode(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_text_decodes_and_other_text_does_not() {
        assert!(decodes("c3RhZ2luZw==", BASE64_ENCODING));
        assert!(decodes("", BASE64_ENCODING));
        assert!(!decodes("staging!", BASE64_ENCODING));
        assert!(!decodes("c3RhZ2luZw==", "hex"));
    }
}
