//! Rison, the compact spelling of JSON made for URLs (Flask-AppBuilder's `q=(filters:!(…),
//! page:0)`), read into JSON: an object is `(key:value,…)`, an array `!(value,…)`, `!t`, `!f`
//! and `!n` are `true`, `false` and `null`, a number is JSON's, a string is quoted with `'`
//! (`!'` a quote, `!!` a `!`) or, where it is an id, bare (`todo`, `in-progress`, `a.b`).
//!
//! Written here rather than taken from a crate: the format is a page of grammar, and the one
//! Rust crate for it (`serde_rison`) is young, single-maintainer and would bring a second serde
//! data model for what is a small recursive reader over text the stage already holds.

use rea_plugin_api::json::{Json, Object, parse as parse_json};

/// Characters that end a bare id (and may not start one, with the digits and `-`).
const NOT_ID: &str = " '!:(),*@$";

/// The JSON a Rison text spells; `None` when the text is not Rison (or has text after its value).
pub fn parse(text: &str) -> Option<Json> {
    let mut reader = Reader { text, at: 0 };
    let value = reader.value()?;
    (reader.at == text.len()).then_some(value)
}

/// A position in the text being read.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn eat(&mut self, prefix: &str) -> bool {
        let found = self.rest().starts_with(prefix);
        if found {
            self.at += prefix.len();
        }
        found
    }

    /// One value at the position.
    fn value(&mut self) -> Option<Json> {
        if self.eat("(") {
            return self.object();
        }
        if self.eat("!(") {
            return self.array();
        }
        for (word, value) in [
            ("!t", Json::Bool(true)),
            ("!f", Json::Bool(false)),
            ("!n", Json::Null),
        ] {
            if self.eat(word) {
                return Some(value);
            }
        }
        if self.eat("'") {
            return self.quoted().map(Json::from);
        }
        let first = self.rest().chars().next()?;
        if first == '-' || first.is_ascii_digit() {
            return self.number();
        }
        self.id().map(Json::from)
    }

    /// An object's members after its `(`, through its `)`.
    fn object(&mut self) -> Option<Json> {
        let mut members: Vec<(String, Json)> = Vec::new();
        if self.eat(")") {
            return Some(Json::Object(Object::new()));
        }
        loop {
            let key = if self.eat("'") {
                self.quoted()?
            } else {
                self.id()?
            };
            if !self.eat(":") {
                return None;
            }
            members.push((key, self.value()?));
            if self.eat(")") {
                return Some(Json::Object(members.into_iter().collect()));
            }
            if !self.eat(",") {
                return None;
            }
        }
    }

    /// An array's items after its `!(`, through its `)`.
    fn array(&mut self) -> Option<Json> {
        let mut items: Vec<Json> = Vec::new();
        if self.eat(")") {
            return Some(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            if self.eat(")") {
                return Some(Json::Array(items));
            }
            if !self.eat(",") {
                return None;
            }
        }
    }

    /// A quoted string's text after its opening `'`, through its closing one.
    fn quoted(&mut self) -> Option<String> {
        let mut text = String::new();
        let mut characters = self.rest().char_indices();
        while let Some((offset, character)) = characters.next() {
            match character {
                '\'' => {
                    self.at += offset + 1;
                    return Some(text);
                }
                '!' => match characters.next()? {
                    (_, escaped @ ('!' | '\'')) => text.push(escaped),
                    _ => return None,
                },
                other => text.push(other),
            }
        }
        None
    }

    /// A bare id: characters up to the next one of [`NOT_ID`].
    fn id(&mut self) -> Option<String> {
        let rest = self.rest();
        let end = rest
            .find(|character| NOT_ID.contains(character))
            .unwrap_or(rest.len());
        let id = rest[..end].to_owned();
        let first = id.chars().next()?;
        if first == '-' || first.is_ascii_digit() {
            return None;
        }
        self.at += end;
        Some(id)
    }

    /// A number, as JSON reads its lexeme.
    fn number(&mut self) -> Option<Json> {
        let rest = self.rest();
        let end = rest
            .find(|character: char| !(character.is_ascii_digit() || "-+.eE".contains(character)))
            .unwrap_or(rest.len());
        let number = parse_json(&rest.as_bytes()[..end]).ok()?;
        if !matches!(number, Json::Number(_)) {
            return None;
        }
        self.at += end;
        Some(number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        parse_json(text.as_bytes()).expect("JSON")
    }

    #[test]
    fn rison_reads_as_the_json_it_spells() {
        assert_eq!(
            parse(
                "(filters:!((col:status,opr:eq,value:todo)),order_column:title,page:0,page_size:5)"
            ),
            Some(json(
                r#"{"filters":[{"col":"status","opr":"eq","value":"todo"}],"order_column":"title","page":0,"page_size":5}"#
            ))
        );
        assert_eq!(
            parse("!(!t,!f,!n,-1.5e3,'it!'s','a!!b',in-progress,a.b,!())"),
            Some(json(
                r#"[true,false,null,-1.5e3,"it's","a!b","in-progress","a.b",[]]"#
            ))
        );
        assert_eq!(parse("()"), Some(json("{}")));
        assert_eq!(
            parse("('two words':'x y')"),
            Some(json(r#"{"two words":"x y"}"#))
        );
        assert_eq!(parse("todo"), Some(json(r#""todo""#)));
    }

    #[test]
    fn what_is_not_rison_is_not_read() {
        for text in [
            "", "(", "(a)", "(a:1", "(a:1,)", "!(1,2", "'open", "'bad!x'", "(a:1)x", "1-", "-a",
            "a b", "(:1)", "!x",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
