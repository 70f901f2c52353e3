//! Path echoes: an envelope member of a list under a parent (`/projects/{id}/tasks`) naming the
//! call's own path (Fortune.js's related routes answer `links.self: "/projects/2/tasks"`), or
//! that path after a constant origin (`http://127.0.0.1:8000/projects/2/tasks`), or before a
//! constant query (Flask-Restless's `links.first`,
//! `http://127.0.0.1:8000/api/person/3/tasks?page[size]=10&page[number]=1`).
//!
//! Read per answer from the list's checked lines: a text member (top-level, or one object down,
//! outside the list) that every line shows as one constant prefix, that line's own recorded
//! path, then nothing or one constant query (`?…`). Such a member is minted for the call
//! answered, the prefix, the called path and the query, so a parent no line read is answered
//! with its own address rather than the recorded parent's. One line is evidence enough: the
//! member spells the very path whose segment names the parent, which a constant member would
//! not.

use rea_plugin_api::json::Json;

/// A member echoing its line's path: its pointer, the constant text before the path and the
/// constant text after it (empty, or a query from its `?`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PathEcho {
    /// The member's pointer.
    pub pointer: String,
    /// The text before the path (an origin, or nothing).
    pub prefix: String,
    /// The text after the path (a query, or nothing).
    pub suffix: String,
}

/// The members echoing their lines' paths (see the module docs), from the lines' recorded
/// bodies and paths; none when a line lacks the member or shows it otherwise.
pub fn echoing(lines: &[(&Json, &str)]) -> Vec<PathEcho> {
    let Some(((first, first_path), rest)) = lines.split_first() else {
        return Vec::new();
    };
    let Some(object) = first.as_object() else {
        return Vec::new();
    };
    crate::request_echo::string_pointers(object)
        .into_iter()
        .filter_map(|(pointer, text)| {
            let (prefix, suffix) = around_path(text, first_path)?;
            let agrees = rest.iter().all(|(body, path)| {
                body.pointer(&pointer).and_then(Json::as_str)
                    == Some(&format!("{prefix}{path}{suffix}"))
            });
            agrees.then(|| PathEcho {
                pointer,
                prefix: prefix.to_owned(),
                suffix: suffix.to_owned(),
            })
        })
        .collect()
}

/// The text before and after `path` in `text`, when `path` ends it or a query follows it (the
/// query from its `?`).
pub(crate) fn around_path<'a>(text: &'a str, path: &str) -> Option<(&'a str, &'a str)> {
    let (prefix, rest) = match text.split_once('?') {
        Some((before, _)) => (before.strip_suffix(path)?, &text[before.len()..]),
        None => (text.strip_suffix(path)?, ""),
    };
    Some((prefix, rest))
}

/// Sets each echoing member of `body` to its prefix, the `called` path and its suffix.
pub fn mint(body: &mut Json, echoes: &[PathEcho], called: &str) {
    for echo in echoes {
        let text = format!("{}{called}{}", echo.prefix, echo.suffix);
        crate::request_echo::apply(body, &echo.pointer, text);
    }
}

#[cfg(test)]
mod tests {
    use super::{PathEcho, echoing, mint};

    fn echo(pointer: &str, prefix: &str, suffix: &str) -> PathEcho {
        PathEcho {
            pointer: pointer.to_owned(),
            prefix: prefix.to_owned(),
            suffix: suffix.to_owned(),
        }
    }
    use rea_plugin_api::json::{Json, parse};

    fn body(link: &str) -> Json {
        parse(
            format!(
                r#"{{"jsonapi": {{"version": "1.0"}}, "links": {{"self": "{link}"}}, "data": []}}"#
            )
            .as_bytes(),
        )
        .expect("json")
    }

    #[test]
    fn a_member_spelling_its_lines_path_is_minted_for_the_called_parent() {
        let (two, one) = (body("/projects/2/tasks"), body("/projects/1/tasks"));
        let echoes = echoing(&[(&two, "/projects/2/tasks"), (&one, "/projects/1/tasks")]);
        assert_eq!(echoes, [echo("/links/self", "", "")]);
        let mut answer = two.clone();
        mint(&mut answer, &echoes, "/projects/3/tasks");
        assert_eq!(
            answer.pointer("/links/self").and_then(Json::as_str),
            Some("/projects/3/tasks")
        );
        // After a constant origin; the version beside it names no path.
        let absolute = body("http://h:1/people/4/tasks");
        let echoes = echoing(&[(&absolute, "/people/4/tasks")]);
        assert_eq!(echoes, [echo("/links/self", "http://h:1", "")]);
        // Before a constant query: the first page's link.
        let paged = body("http://h:1/people/4/tasks?page[size]=10&page[number]=1");
        let echoes = echoing(&[(&paged, "/people/4/tasks")]);
        let first = echo("/links/self", "http://h:1", "?page[size]=10&page[number]=1");
        assert_eq!(echoes, [first]);
        let mut answer = paged.clone();
        mint(&mut answer, &echoes, "/people/6/tasks");
        assert_eq!(
            answer.pointer("/links/self").and_then(Json::as_str),
            Some("http://h:1/people/6/tasks?page[size]=10&page[number]=1")
        );
    }

    #[test]
    fn a_member_one_line_shows_otherwise_is_no_echo() {
        // A constant member (the same text under two parents) and one naming another path.
        let (two, one) = (body("/projects/2/tasks"), body("/projects/2/tasks"));
        assert!(echoing(&[(&two, "/projects/2/tasks"), (&one, "/projects/1/tasks")]).is_empty());
        let other = body("/tasks");
        assert!(echoing(&[(&other, "/projects/2/tasks")]).is_empty());
        // A path the recorded one only begins, or a query that differs between lines.
        let longer = body("/projects/2/tasks2");
        assert!(echoing(&[(&longer, "/projects/2/tasks")]).is_empty());
        let (a, b) = (
            body("/projects/2/tasks?page=1"),
            body("/projects/1/tasks?page=2"),
        );
        assert!(echoing(&[(&a, "/projects/2/tasks"), (&b, "/projects/1/tasks")]).is_empty());
    }
}
