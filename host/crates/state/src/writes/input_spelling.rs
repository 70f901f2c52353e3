//! A refusal's spelling of the members its call sent: a validation answer that echoes the input
//! it was given (`input_value={'priority': 3}`, a Python literal of the decoded JSON object).
//! Learned where a string of the recorded answer holds the failed call's members so spelled;
//! a served call's members are spelled so only when every value is of a JSON type the recorded
//! spelling showed (strings always, as its keys) and spelled without escapes: a text of printable
//! ASCII holding no quote or backslash, an integer written without a fraction or exponent.
//! Anything else is not spelled (the caller answers otherwise). One spelling is known, the
//! Python literal; one app shows it (PiccoloCRUD's pydantic errors).

use rea_plugin_api::json::{Json, Object};

use super::model::InputSpelling;

impl InputSpelling {
    /// The spelling of `sent` that one of the answer's `texts` holds, when one does.
    pub(super) fn of(sent: &Object, texts: &[String]) -> Option<Self> {
        let mut shown = vec!["string".to_owned()];
        let recorded = python_object(sent, &mut |kind| {
            if !shown.iter().any(|known| known == kind) {
                shown.push(kind.to_owned());
            }
            true
        })?;
        if sent.is_empty() || !texts.iter().any(|text| text.contains(&recorded)) {
            return None;
        }
        Some(Self { recorded, shown })
    }

    /// A served call's members spelled as the recorded ones were, when every value is of a shown
    /// type; `None` otherwise.
    pub(super) fn spell(&self, sent: &Object) -> Option<String> {
        python_object(sent, &mut |kind| {
            self.shown.iter().any(|known| known == kind)
        })
    }
}

/// An object as a Python literal (`{'title': 'Moor', 'priority': 3}`), each value's JSON type
/// asked of `admit` first; `None` where one is not admitted or not spelled without escapes.
fn python_object(object: &Object, admit: &mut dyn FnMut(&str) -> bool) -> Option<String> {
    let mut members = Vec::with_capacity(object.len());
    for (name, value) in object.iter() {
        members.push(format!(
            "{}: {}",
            python_text(name)?,
            python_value(value, admit)?
        ));
    }
    Some(format!("{{{}}}", members.join(", ")))
}

fn python_value(value: &Json, admit: &mut dyn FnMut(&str) -> bool) -> Option<String> {
    if !admit(value.type_name()) {
        return None;
    }
    match value {
        Json::Null => Some("None".to_owned()),
        Json::Bool(true) => Some("True".to_owned()),
        Json::Bool(false) => Some("False".to_owned()),
        Json::Number(number) => {
            let lexeme = number.as_str();
            let plain = number.is_integer_lexeme()
                && lexeme != "-0"
                && lexeme
                    .bytes()
                    .all(|byte| byte.is_ascii_digit() || byte == b'-');
            plain.then(|| lexeme.to_owned())
        }
        Json::String(text) => python_text(text),
        Json::Array(items) => {
            let spelled: Option<Vec<String>> =
                items.iter().map(|item| python_value(item, admit)).collect();
            Some(format!("[{}]", spelled?.join(", ")))
        }
        Json::Object(object) => python_object(object, admit),
    }
}

/// A text between single quotes, when it needs no escape: printable ASCII, no quote or
/// backslash.
fn python_text(text: &str) -> Option<String> {
    text.bytes()
        .all(|byte| (0x20..0x7f).contains(&byte) && byte != b'\'' && byte != b'\\' && byte != b'"')
        .then(|| format!("'{text}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_object as object;

    const RECORDED: &str = "2 validation errors for TaskIn\ntitle\n  Field required \
        [type=missing, input_value={'priority': 3}, input_type=dict]";

    #[test]
    fn a_recorded_echo_is_learned_with_the_types_it_shows() {
        let spelling = InputSpelling::of(&object(r#"{"priority": 3}"#), &[RECORDED.to_owned()])
            .expect("the answer spells the input");
        assert_eq!(spelling.recorded, "{'priority': 3}");
        assert_eq!(spelling.shown, ["string", "number"]);
        let absent = InputSpelling::of(&object(r#"{"priority": 4}"#), &[RECORDED.to_owned()]);
        assert_eq!(
            absent, None,
            "an answer not holding the input learns nothing"
        );
    }

    #[test]
    fn a_served_input_is_spelled_only_with_shown_types_and_no_escapes() {
        let spelling =
            InputSpelling::of(&object(r#"{"priority": 3}"#), &[RECORDED.to_owned()]).unwrap();
        let spelled = spelling.spell(&object(r#"{"status": "open", "priority": 12}"#));
        assert_eq!(
            spelled.as_deref(),
            Some("{'status': 'open', 'priority': 12}")
        );
        assert_eq!(
            spelling.spell(&object(r#"{"done": true}"#)),
            None,
            "never shown"
        );
        assert_eq!(
            spelling.spell(&object(r#"{"priority": 2.5}"#)),
            None,
            "a fraction"
        );
        assert_eq!(
            spelling.spell(&object(r#"{"title": "it's"}"#)),
            None,
            "a quote"
        );
        assert_eq!(
            spelling.spell(&object(r#"{"title": "café"}"#)),
            None,
            "not ASCII"
        );
    }
}
