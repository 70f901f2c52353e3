//! Display budgets for captured text in the catalog and card: each captured display sample is
//! bounded to 1 KiB of UTF-8. Lists (observed values, body keys, field names, cited records) show
//! whole items while they fit and then an omission count (`2, 3, … (12 more)`); a single long text
//! (method, path template, query name) shows a marked prefix (`/very/long… (truncated)`).
//! Complete values stay in the manifest.

/// The display budget of one captured sample, in UTF-8 bytes.
pub const DISPLAY_BUDGET: usize = 1024;

/// The mark after a cut prefix.
pub const TRUNCATION_MARK: &str = "… (truncated)";

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn utf8_prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `text` whole when it fits `budget` bytes, else a prefix and [`TRUNCATION_MARK`] within it.
pub fn marked_prefix(text: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text.to_owned();
    }
    let keep = budget.saturating_sub(TRUNCATION_MARK.len());
    format!("{}{TRUNCATION_MARK}", utf8_prefix(text, keep))
}

/// Whole items joined by `", "` while they fit `budget` bytes, then `…` and the omission count
/// (`a, b, … (3 more)`). Returns the text and how many items were omitted.
pub fn sample_list<I, S>(items: I, budget: usize) -> (String, usize)
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut text = String::new();
    let mut omitted = 0usize;
    for item in items {
        let item = item.as_ref();
        if omitted > 0 {
            omitted += 1;
            continue;
        }
        let separator = if text.is_empty() { 0 } else { 2 };
        if text.len() + separator + item.len() <= budget {
            if separator > 0 {
                text.push_str(", ");
            }
            text.push_str(item);
        } else {
            omitted = 1;
        }
    }
    if omitted > 0 {
        if !text.is_empty() {
            text.push_str(", ");
        }
        text.push_str(&format!("… ({omitted} more)"));
    }
    (text, omitted)
}

/// A captured name as a JSON string, so it cannot read as more of a description.
pub fn quoted(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_else(|_| format!("{name:?}"))
}

/// A quoted name, or, when its JSON spelling exceeds `max` bytes, a quoted prefix ending in `…`
/// whose JSON spelling fits `max`, marked ` (truncated)`.
pub fn quoted_bounded(name: &str, max: usize) -> String {
    let whole = quoted(name);
    if whole.len() <= max {
        return whole;
    }
    let mut prefix = utf8_prefix(name, max.saturating_sub(2 + '…'.len_utf8()));
    let mut shown = quoted(&format!("{prefix}…"));
    while shown.len() > max && !prefix.is_empty() {
        prefix = utf8_prefix(prefix, prefix.len() - 1);
        shown = quoted(&format!("{prefix}…"));
    }
    format!("{shown} (truncated)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_show_whole_items_and_count_the_rest() {
        // contract: MANIFEST-012, MANIFEST-013
        let (text, omitted) = sample_list(["2", "3"], 1024);
        assert_eq!((text.as_str(), omitted), ("2, 3", 0));
        let items: Vec<String> = (0..500).map(|n| format!("value-{n}")).collect();
        let (text, omitted) = sample_list(&items, 1024);
        assert!(omitted > 0);
        assert!(text.ends_with(&format!("… ({omitted} more)")));
        let shown = text
            .split(", ")
            .filter(|part| part.starts_with("value-"))
            .count();
        assert_eq!(shown + omitted, 500);
        assert!(text.len() <= 1024 + 20);
        let (text, omitted) = sample_list([&"x".repeat(2000)], 1024);
        assert_eq!((text.as_str(), omitted), ("… (1 more)", 1));
    }

    #[test]
    fn long_texts_show_a_marked_prefix_on_a_character_boundary() {
        // contract: MANIFEST-014
        let long = "é".repeat(1000);
        let shown = marked_prefix(&long, 1024);
        assert!(shown.len() <= 1024);
        assert!(shown.ends_with(TRUNCATION_MARK));
        assert_eq!(marked_prefix("/api/users", 1024), "/api/users");
        let name = quoted_bounded(&"n".repeat(300), 64);
        assert!(name.starts_with("\"nnn") && name.ends_with("…\" (truncated)"));
        assert_eq!(name.len(), 64 + " (truncated)".len());
        // Escapes count: the JSON spelling of the prefix fits.
        let escaped = quoted_bounded(&"\"".repeat(100), 64);
        assert!(
            escaped.strip_suffix(" (truncated)").unwrap().len() <= 64,
            "{escaped}"
        );
        assert_eq!(quoted_bounded("id", 64), "\"id\"");
    }
}
