//! Names: the environment's portable name, tool names and path parameter names.
//!
//! * Environment name: the primary origin's host (and port when it has one) in portable
//!   kebab-case: lower-case ASCII letters, digits and single hyphens, at most 63 characters (a DNS
//!   label). `http://127.0.0.1:3000` → `127-0-0-1-3000`; `https://www.grafana.example` →
//!   `grafana-example`. A Windows device name (`con`, `com1`, …) or a label that reads as an IP
//!   address (all digits, `0x…`) gets the suffix `-env`; nothing usable gives `environment`.
//! * Tool name: the lower-cased method, then the path's literal segments in snake_case with a
//!   leading `api` and version segments (`v1`, `2.0`) left out, then `by_` and the parameter names
//!   joined by `_and_`: `GET /api/users/{numeric}` → `get_users_by_id`; a path of no literal is
//!   `root`. Names use only `[a-z0-9_]`. When two tools would share a name, each of them takes its
//!   full name instead (every literal kept, parameters named by their rule); a name still shared
//!   gets `_2`, `_3`, … in manifest order after its first holder. A name over 128 characters keeps
//!   119 and appends `_` and 8 hex digits of the SHA-256 of the whole name.
//! * Path parameter names: `uid` after a literal `uid`; for the last segment, the member that the
//!   tool's 2xx JSON answers echo (`id` for `{"id": 2}`, `title` for a tiddler) else `id`; for an
//!   inner segment, the singular of the literal before it plus `_id` (`/posts/{…}/comments` →
//!   `post_id`), else `segment_<index>`. A repeated name gets `_<index>`.

use sha2::{Digest, Sha256};

use crate::segments::segment_value;

/// The longest MCP tool name.
pub const MAX_TOOL_NAME: usize = 128;
/// The longest portable environment name (a DNS label).
pub const MAX_ENVIRONMENT_NAME: usize = 63;

/// The portable kebab-case name of an origin (`scheme://host[:port]`).
pub fn environment_name(origin: &str) -> String {
    let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    let authority = authority.trim_start_matches('[').replace(']', "");
    let authority = authority.strip_prefix("www.").unwrap_or(&authority);
    let mut name = String::new();
    for character in authority.chars() {
        if character.is_ascii_alphanumeric() {
            name.push(character.to_ascii_lowercase());
        } else if !name.ends_with('-') && !name.is_empty() {
            name.push('-');
        }
    }
    let mut name = name.trim_end_matches('-').to_owned();
    if name.len() > MAX_ENVIRONMENT_NAME {
        name.truncate(MAX_ENVIRONMENT_NAME);
        name = name.trim_end_matches('-').to_owned();
    }
    if name.is_empty() {
        return "environment".to_owned();
    }
    if is_windows_device(&name) || reads_as_ip(&name) {
        if name.len() + 4 > MAX_ENVIRONMENT_NAME {
            name.truncate(MAX_ENVIRONMENT_NAME - 4);
            name = name.trim_end_matches('-').to_owned();
        }
        name.push_str("-env");
    }
    name
}

/// Whether a label is a Windows device name.
pub fn is_windows_device(label: &str) -> bool {
    let lower = label.to_ascii_lowercase();
    matches!(lower.as_str(), "con" | "prn" | "aux" | "nul")
        || ((lower.starts_with("com") || lower.starts_with("lpt"))
            && lower.len() == 4
            && lower.as_bytes()[3].is_ascii_digit()
            && lower.as_bytes()[3] != b'0')
}

/// Whether a label reads as an IP address (all digits, or a `0x` hex number).
pub fn reads_as_ip(label: &str) -> bool {
    label.bytes().all(|byte| byte.is_ascii_digit())
        || label.strip_prefix("0x").is_some_and(|rest| {
            !rest.is_empty() && rest.bytes().all(|byte| byte.is_ascii_hexdigit())
        })
}

/// A captured text as snake_case words of `[a-z0-9]` (`getUsers` → `get_users`, `get-by-name` →
/// `get_by_name`); empty when it has no letter or digit.
pub fn snake_case(text: &str) -> String {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for character in text.chars() {
        if character.is_ascii_alphanumeric() {
            let boundary = character.is_ascii_uppercase()
                && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary && !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            out.push(character.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        previous = Some(character);
    }
    out.trim_end_matches('_').to_owned()
}

/// A simple English singular for parameter names (`posts` → `post`, `entries` → `entry`).
pub fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies").filter(|stem| !stem.is_empty()) {
        return format!("{stem}y");
    }
    if word.ends_with("sses") || word.ends_with("xes") || word.ends_with("ches") {
        return word[..word.len() - 2].to_owned();
    }
    if word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && word.len() > 1 {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

fn is_version_segment(segment: &str) -> bool {
    let rest = segment
        .strip_prefix('v')
        .or_else(|| segment.strip_prefix('V'))
        .unwrap_or(segment);
    !rest.is_empty()
        && rest
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
}

/// One token of a path template, as naming reads it.
#[derive(Debug, Clone, Copy)]
pub enum NameToken<'a> {
    /// A literal segment as recorded.
    Literal(&'a str),
    /// A parameter: its name and its rule's name.
    Parameter {
        /// The parameter's name.
        name: &'a str,
        /// The rule's name.
        rule: &'a str,
    },
}

/// The readable tool name of a method and template (before collision handling).
pub fn tool_base_name(method: &str, tokens: &[NameToken<'_>]) -> String {
    compose_name(method, tokens, false)
}

/// The full tool name: every literal kept and parameters named by rule.
pub fn tool_full_name(method: &str, tokens: &[NameToken<'_>]) -> String {
    compose_name(method, tokens, true)
}

fn compose_name(method: &str, tokens: &[NameToken<'_>], full: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    let method = snake_case(method);
    parts.push(if method.is_empty() {
        "call".to_owned()
    } else {
        method
    });
    let mut leading = true;
    let mut parameters: Vec<String> = Vec::new();
    for token in tokens {
        match token {
            NameToken::Literal(segment) => {
                let value = segment_value(segment);
                if leading
                    && !full
                    && (value.eq_ignore_ascii_case("api") || is_version_segment(&value))
                {
                    continue;
                }
                leading = false;
                let word = snake_case(&value);
                if !word.is_empty() {
                    parts.push(word);
                }
            }
            NameToken::Parameter { name, rule } => {
                leading = false;
                let word = snake_case(if full { rule } else { name });
                parameters.push(if word.is_empty() {
                    "param".to_owned()
                } else {
                    word
                });
            }
        }
    }
    if parts.len() == 1 {
        parts.push("root".to_owned());
    }
    if !parameters.is_empty() {
        parts.push("by".to_owned());
        parts.push(parameters.join("_and_"));
    }
    bounded(parts.join("_"))
}

/// Bounds a name to [`MAX_TOOL_NAME`] characters, keeping it unique by a digest suffix.
pub fn bounded(name: String) -> String {
    if name.len() <= MAX_TOOL_NAME {
        return name;
    }
    let digest = Sha256::digest(name.as_bytes());
    let suffix = hex::encode(&digest[..4]);
    let mut kept = name[..MAX_TOOL_NAME - 9].to_owned();
    kept.push('_');
    kept.push_str(&suffix);
    kept
}

/// Whether a name is MCP-legal: 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub fn is_mcp_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-'))
}

/// Resolves collisions among base names (see the module docs); `full` gives each tool's full name.
pub fn resolve_collisions(base: Vec<String>, full: &[String]) -> Vec<String> {
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for name in &base {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let chosen: Vec<String> = base
        .iter()
        .zip(full)
        .map(|(name, full)| {
            if counts[name.as_str()] > 1 {
                full.clone()
            } else {
                name.clone()
            }
        })
        .collect();
    let mut taken: std::collections::BTreeSet<String> = chosen.iter().cloned().collect();
    let mut holders = std::collections::BTreeSet::new();
    let mut result = Vec::with_capacity(chosen.len());
    for name in chosen {
        if holders.insert(name.clone()) {
            result.push(name);
            continue;
        }
        let mut counter = 2usize;
        loop {
            let suffix = format!("_{counter}");
            let mut stem = name.clone();
            if stem.len() + suffix.len() > MAX_TOOL_NAME {
                stem.truncate(MAX_TOOL_NAME - suffix.len());
            }
            let candidate = format!("{stem}{suffix}");
            if taken.insert(candidate.clone()) {
                result.push(candidate);
                break;
            }
            counter += 1;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_names_are_portable_labels() {
        assert_eq!(environment_name("http://127.0.0.1:3000"), "127-0-0-1-3000");
        assert_eq!(
            environment_name("https://www.grafana.example"),
            "grafana-example"
        );
        assert_eq!(environment_name("http://[::1]:8080"), "1-8080");
        assert_eq!(environment_name("http://con"), "con-env");
        assert_eq!(environment_name("http://12345"), "12345-env");
        assert_eq!(environment_name("http://---"), "environment");
        let long = format!("https://{}.example", "a".repeat(80));
        let name = environment_name(&long);
        assert!(name.len() <= 63); // the spec's DNS label limit (BUILD-023)
    }

    #[test]
    fn tool_names_follow_the_card_example() {
        let tokens = [
            NameToken::Literal("api"),
            NameToken::Literal("users"),
            NameToken::Parameter {
                name: "id",
                rule: "numeric",
            },
        ];
        assert_eq!(tool_base_name("GET", &tokens), "get_users_by_id");
        assert_eq!(tool_full_name("GET", &tokens), "get_api_users_by_numeric");
        let mlflow = [
            NameToken::Literal("api"),
            NameToken::Literal("2.0"),
            NameToken::Literal("mlflow"),
            NameToken::Literal("experiments"),
            NameToken::Literal("get-by-name"),
        ];
        assert_eq!(
            tool_base_name("GET", &mlflow),
            "get_mlflow_experiments_get_by_name"
        );
        assert_eq!(tool_base_name("GET", &[NameToken::Literal("")]), "get_root");
        assert_eq!(
            tool_base_name("PUT", &[NameToken::Literal("tiddlers.json")]),
            "put_tiddlers_json"
        );
    }

    #[test]
    fn long_names_are_bounded_and_legal() {
        let segment = "x".repeat(300);
        let name = tool_base_name("GET", &[NameToken::Literal(&segment)]);
        assert_eq!(name.len(), MAX_TOOL_NAME);
        assert!(is_mcp_tool_name(&name));
        let other = tool_base_name("GET", &[NameToken::Literal(&format!("{segment}y"))]);
        assert_ne!(name, other);
    }

    #[test]
    fn collisions_take_full_names_then_counters() {
        let base = vec!["get_root".into(), "get_root".into(), "get_a".into()];
        let full = vec!["get_root".into(), "get_v1".into(), "get_a".into()];
        assert_eq!(
            resolve_collisions(base, &full),
            vec!["get_root", "get_v1", "get_a"]
        );
        let base = vec!["get_a_b".into(), "get_a_b".into()];
        let full = vec!["get_a_b".into(), "get_a_b".into()];
        assert_eq!(
            resolve_collisions(base, &full),
            vec!["get_a_b", "get_a_b_2"]
        );
    }

    #[test]
    fn words_convert_to_snake_case_and_singular() {
        assert_eq!(snake_case("getUserById"), "get_user_by_id");
        assert_eq!(snake_case("Alice Liddell"), "alice_liddell");
        assert_eq!(snake_case("$:"), "");
        assert_eq!(singular("posts"), "post");
        assert_eq!(singular("entries"), "entry");
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("boxes"), "box");
    }
}
