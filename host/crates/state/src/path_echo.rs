//! Path echoes: an envelope member of a list under a parent (`/projects/{id}/tasks`) naming the
//! call's own path (Fortune.js's related routes answer `links.self: "/projects/2/tasks"`), or
//! that path after a constant origin (`http://127.0.0.1:8000/projects/2/tasks`).
//!
//! Read per answer from the list's checked lines: a text member (top-level, or one object down,
//! outside the list) that every line shows as one constant prefix followed by that line's own
//! recorded path. Such a member is minted for the call answered, the prefix then the called
//! path, so a parent no line read is answered with its own address rather than the recorded
//! parent's. One line is evidence enough: the member spells the very path whose segment names
//! the parent, which a constant member would not.

use rea_plugin_api::json::Json;

/// The members echoing their lines' paths, each with its constant prefix (see the module docs),
/// from the lines' recorded bodies and paths; none when a line lacks the member or shows it
/// otherwise.
pub fn echoing(lines: &[(&Json, &str)]) -> Vec<(String, String)> {
    let Some(((first, first_path), rest)) = lines.split_first() else {
        return Vec::new();
    };
    let Some(object) = first.as_object() else {
        return Vec::new();
    };
    crate::request_echo::string_pointers(object)
        .into_iter()
        .filter_map(|(pointer, text)| {
            let prefix = text.strip_suffix(first_path)?;
            let agrees = rest.iter().all(|(body, path)| {
                body.pointer(&pointer).and_then(Json::as_str) == Some(&format!("{prefix}{path}"))
            });
            agrees.then(|| (pointer, prefix.to_owned()))
        })
        .collect()
}

/// Sets each echoing member of `body` to its prefix and the `called` path.
pub fn mint(body: &mut Json, echoes: &[(String, String)], called: &str) {
    for (pointer, prefix) in echoes {
        crate::request_echo::apply(body, pointer, format!("{prefix}{called}"));
    }
}

#[cfg(test)]
mod tests {
    use super::{echoing, mint};
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
        assert_eq!(echoes, [("/links/self".to_owned(), String::new())]);
        let mut answer = two.clone();
        mint(&mut answer, &echoes, "/projects/3/tasks");
        assert_eq!(
            answer.pointer("/links/self").and_then(Json::as_str),
            Some("/projects/3/tasks")
        );
        // After a constant origin; the version beside it names no path.
        let absolute = body("http://h:1/people/4/tasks");
        let echoes = echoing(&[(&absolute, "/people/4/tasks")]);
        assert_eq!(
            echoes,
            [("/links/self".to_owned(), "http://h:1".to_owned())]
        );
    }

    #[test]
    fn a_member_one_line_shows_otherwise_is_no_echo() {
        // A constant member (the same text under two parents) and one naming another path.
        let (two, one) = (body("/projects/2/tasks"), body("/projects/2/tasks"));
        assert!(echoing(&[(&two, "/projects/2/tasks"), (&one, "/projects/1/tasks")]).is_empty());
        let other = body("/tasks");
        assert!(echoing(&[(&other, "/projects/2/tasks")]).is_empty());
    }
}
