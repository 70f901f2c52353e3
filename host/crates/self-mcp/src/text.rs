//! Text helpers shared by guidance search and completion: Unicode normalization for matching,
//! UTF-16 code-unit measures (the unit the guidance limits are stated in) and word splitting.

use unicode_normalization::UnicodeNormalization;

/// The matching form of a text: NFKC, lowercased, NFKC again (lowercasing can leave a sequence
/// that is not in NFKC, such as `İ` → `i̇`).
///
/// Decision: the spec says "Unicode-normalized" without a form; NFKC folds compatibility
/// variants (full-width letters, ligatures such as `ﬁ`) a person would type as the same word.
pub fn match_form(text: &str) -> String {
    let composed: String = text.nfkc().collect();
    composed.to_lowercase().nfkc().collect()
}

/// The number of UTF-16 code units of a text.
pub fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The longest prefix of `text` that is at most `max_units` UTF-16 code units, never splitting a
/// character (so never a surrogate pair).
pub fn utf16_prefix(text: &str, max_units: usize) -> &str {
    let mut units = 0;
    for (index, character) in text.char_indices() {
        units += character.len_utf16();
        if units > max_units {
            return &text[..index];
        }
    }
    text
}

/// The words of a text in matching form: maximal runs of alphanumeric characters, with their
/// byte offsets in the original text.
pub fn words(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (index, character) in text.char_indices() {
        if character.is_alphanumeric() {
            if start.is_none() {
                start = Some(index);
            }
        } else if let Some(begin) = start.take() {
            out.push((begin, match_form(&text[begin..index])));
        }
    }
    if let Some(begin) = start {
        out.push((begin, match_form(&text[begin..])));
    }
    out
}

/// Whether a text word matches a query term: equal, or one is the other plus a plural `s`/`es`.
///
/// Decision: guidance is searched by whole words, so `write` finds `writes` and `write` but not
/// `rewrite`; no further stemming, so results stay predictable.
pub fn word_matches(word: &str, term: &str) -> bool {
    if word == term {
        return true;
    }
    let plural_of = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest == "s" || rest == "es")
    };
    plural_of(word, term) || plural_of(term, word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_form_folds_case_and_compatibility_variants() {
        assert_eq!(match_form("ＣＡＰＴＵＲＥ"), "capture");
        assert_eq!(match_form("ﬁle"), "file");
        assert_eq!(match_form("Évidence"), match_form("E\u{301}vidence"));
    }

    #[test]
    fn utf16_prefix_never_splits_a_surrogate_pair() {
        let text = "ab😀c";
        assert_eq!(utf16_len(text), 5);
        assert_eq!(utf16_prefix(text, 3), "ab");
        assert_eq!(utf16_prefix(text, 4), "ab😀");
        assert_eq!(utf16_prefix(text, 10), text);
    }

    #[test]
    fn words_split_on_non_alphanumerics_and_keep_offsets() {
        let found = words("no-state-target, Read_back");
        let forms: Vec<&str> = found.iter().map(|(_, word)| word.as_str()).collect();
        assert_eq!(forms, ["no", "state", "target", "read", "back"]);
        assert_eq!(found[3].0, 17);
    }

    #[test]
    fn plural_forms_match_both_ways_but_not_other_words() {
        assert!(word_matches("writes", "write"));
        assert!(word_matches("write", "writes"));
        assert!(word_matches("boxes", "box"));
        assert!(!word_matches("rewrite", "write"));
        assert!(!word_matches("writer", "write"));
    }
}
