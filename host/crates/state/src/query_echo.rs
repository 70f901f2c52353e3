//! Query echoes: an envelope member a list answer shows naming the call itself, the list's own
//! address then `?` and the call's query pairs in the order sent, form-encoded or as decoded
//! (`links.self: "http://127.0.0.1:18855/tasks?filter%5Bstatus%5D=todo"`, the address alone for
//! a call without a query).
//!
//! Learned per list query model from its answered lines (each read with a query): a scalar
//! envelope member every line shows as one prefix, `?` and that line's pairs as sent, in one
//! spelling (a line with a query showing its own query there is the evidence). Such a member is computed for every call
//! the state evaluates from the pairs the call sent ([`PagedMember::echo`]), so a query no line
//! made is answered with its own address rather than refused or given another query's. Where
//! some line repeats an order neither name order nor the other lines give it, the echo is
//! marked as repeating calls as sent ([`QueryEcho::as_sent`]): a call whose order its caller
//! named is then repeated in it ([`crate::query_order::repeated`]).

use rea_plugin_api::json::Json;

use crate::derive::lists::scalar_pointers;
use crate::model::{PagedMember, QueryEcho};
use crate::page_cursor::spell_query;

/// One answered line as echo learning sees it: its body and the query pairs it sent.
pub type ShownLine<'a> = (Option<&'a Json>, &'a [(String, String)]);

/// The address of a call: the prefix, then `?` and its pairs spelled as the echo learned (the
/// prefix alone without pairs).
pub fn render(echo: &QueryEcho, sent: &[(String, String)]) -> String {
    if sent.is_empty() {
        return echo.prefix.clone();
    }
    format!("{}?{}", echo.prefix, spell_query(sent, echo.decoded))
}

/// The envelope members of the answered lines (each its body and the pairs it sent) that echo
/// their calls (see the module docs).
pub fn learn(lines: &[ShownLine<'_>], list_pointer: &str) -> Vec<PagedMember> {
    let Some((Some(first), _)) = lines.first() else {
        return Vec::new();
    };
    let mut members = Vec::new();
    for (pointer, _) in scalar_pointers(first, list_pointer) {
        let echo = [false, true]
            .into_iter()
            .find_map(|decoded| echoed(lines, &pointer, decoded));
        if let Some(echo) = echo {
            members.push(PagedMember {
                pointer,
                complete: Vec::new(),
                offset: false,
                size: false,
                max: None,
                echo: Some(echo),
                arithmetic: None,
            });
        }
    }
    members
}

/// The echo every line shows at `pointer` in one spelling, if they do and some line sent a query.
fn echoed(lines: &[ShownLine<'_>], pointer: &str, decoded: bool) -> Option<QueryEcho> {
    let text = |body: Option<&Json>| body?.pointer(pointer)?.as_str().map(str::to_owned);
    let (first_body, first_sent) = lines.first()?;
    let shown = text(*first_body)?;
    let prefix = if first_sent.is_empty() {
        shown.clone()
    } else {
        let query = format!("?{}", spell_query(first_sent, decoded));
        shown.strip_suffix(query.as_str())?.to_owned()
    };
    if prefix.is_empty() || prefix.contains('?') {
        return None;
    }
    let mut echo = QueryEcho {
        prefix,
        decoded,
        as_sent: false,
    };
    for (body, sent) in lines {
        if text(*body)? != render(&echo, sent) {
            return None;
        }
    }
    let sent: Vec<&[(String, String)]> = lines.iter().map(|(_, sent)| *sent).collect();
    echo.as_sent = crate::query_order::shows_sent_order(&sent);
    sent.iter().any(|sent| !sent.is_empty()).then_some(echo)
}

#[cfg(test)]
mod tests {
    use super::{learn, render};
    use crate::test_support::pairs;
    use rea_plugin_api::json::Json;

    fn body(link: &str) -> Json {
        serde_json::from_str(&format!(
            r#"{{"data": [], "links": {{"self": "{link}"}}, "meta": {{"count": 3}}}}"#
        ))
        .expect("json")
    }

    #[test]
    fn a_self_link_spelling_each_call_is_learned_and_rendered_for_another_call() {
        let (a, b) = (
            pairs(&[("filter[status]", "done,doing")]),
            pairs(&[("filter[assignee.name]", "Dana Ruiz"), ("sort", "-title")]),
        );
        let bodies = [
            body("http://h:1/tasks?filter%5Bstatus%5D=done%2Cdoing"),
            body("http://h:1/tasks?filter%5Bassignee.name%5D=Dana+Ruiz&sort=-title"),
        ];
        let lines = [
            (Some(&bodies[0]), a.as_slice()),
            (Some(&bodies[1]), b.as_slice()),
        ];
        let members = learn(&lines, "/data");
        let [member] = members.as_slice() else {
            panic!("one echo: {members:?}")
        };
        assert_eq!(member.pointer, "/links/self");
        let echo = member.echo.as_ref().expect("an echo");
        assert_eq!(echo.prefix, "http://h:1/tasks");
        assert!(!echo.decoded);
        assert_eq!(
            render(
                echo,
                &pairs(&[("filter[project.code]", "QRY"), ("page[size]", "2")])
            ),
            "http://h:1/tasks?filter%5Bproject.code%5D=QRY&page%5Bsize%5D=2"
        );
        assert_eq!(render(echo, &[]), "http://h:1/tasks");
    }

    #[test]
    fn a_member_one_line_contradicts_or_naming_no_query_is_no_echo() {
        let a = pairs(&[("filter[status]", "todo")]);
        let b = pairs(&[("filter[status]", "done")]);
        let bodies = [
            body("http://h:1/tasks?filter%5Bstatus%5D=todo"),
            body("http://h:1/tasks?filter%5Bstatus%5D=todo"),
        ];
        let lines = [
            (Some(&bodies[0]), a.as_slice()),
            (Some(&bodies[1]), b.as_slice()),
        ];
        assert!(learn(&lines, "/data").is_empty());
        let one = [(Some(&bodies[0]), a.as_slice())];
        assert_eq!(learn(&one, "/data").len(), 1);
        let plain = [(Some(&bodies[0]), &[][..])];
        assert!(learn(&plain, "/data").is_empty());
    }
}
