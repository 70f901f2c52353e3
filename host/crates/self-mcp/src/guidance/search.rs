//! Guidance search and read, as the spec states them.
//!
//! * A query's words are split and normalized like the text ([`crate::text`]); generic words
//!   (function words, question words, one-character words) are dropped. Every remaining term must
//!   occur in a section or its subsections; a generic-only query matches nothing.
//! * A `section` match holds every term in its own text (heading and body before its first
//!   subsection). A `subsections` match holds them only spread across subsections, no single one
//!   holding them all: it lists its `own_text_terms`, up to [`MAX_LISTED_SUBSECTIONS`] subsection
//!   locators chosen greedily (most remaining terms first, document order on ties) whose own text
//!   holds the rest, and `omitted_subsections` for any more that were needed. A parent is not
//!   listed when one subsection holds every term, unless its own text holds them all too.
//! * `section` matches rank before `subsections` matches; within each, document order.
//! * Pages of [`PAGE_SIZE`] matches; excerpts of at most [`EXCERPT_UNITS`] UTF-16 code units of
//!   the section's own text around the first term; `content_length` is the UTF-16 length of what
//!   read returns (the complete section, subsections included).
//! * Read takes a locator and returns the complete section when the locator's bundle hash is the
//!   installed bundle's; otherwise it reports the locator stale and returns no content.

use rea_evidence::Refusal;
use serde_json::{Map, Value, json};

use super::bundle::{BundleSource, GuidanceBundle};
use super::locator::GuidanceLocator;
use crate::text::{utf16_len, utf16_prefix, word_matches, words};

/// Matches per page.
pub const PAGE_SIZE: usize = 20;
/// Maximum UTF-16 code units of an excerpt.
pub const EXCERPT_UNITS: usize = 500;
/// Subsection locators listed per `subsections` match.
pub const MAX_LISTED_SUBSECTIONS: usize = 8;
/// Maximum non-generic terms in a query.
pub const MAX_QUERY_TERMS: usize = 32;
/// Maximum UTF-16 code units of a query.
pub const MAX_QUERY_UNITS: usize = 2048;
/// UTF-16 code units of context kept before the first term in an excerpt.
const EXCERPT_LEAD_UNITS: usize = 120;

/// Words that carry no meaning of their own in a question.
const GENERIC_WORDS: &[&str] = &[
    "a", "about", "after", "am", "an", "and", "any", "are", "as", "at", "be", "been", "being",
    "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has", "have",
    "he", "her", "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me",
    "might", "must", "my", "of", "on", "onto", "or", "our", "please", "she", "should", "so",
    "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
    "whose", "why", "will", "with", "would", "you", "your",
];

/// A search request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The analyst question.
    pub query: String,
    /// The 1-based page.
    pub page: usize,
}

impl SearchRequest {
    /// Reads `{"query": string, "page"?: integer ≥ 1}`; refusals point at the offending member.
    pub fn from_arguments(arguments: &Map<String, Value>) -> Result<Self, Refusal> {
        for key in arguments.keys() {
            if key != "query" && key != "page" {
                return Err(Refusal::invalid_request(format!(
                    "unknown argument `{key}`; search_guidance takes `query` and `page`"
                ))
                .at(format!("/{key}")));
            }
        }
        let query = match arguments.get("query") {
            Some(Value::String(query)) => query.clone(),
            Some(_) => {
                return Err(Refusal::invalid_request("`query` must be a string").at("/query"));
            }
            None => return Err(Refusal::invalid_request("`query` is required").at("/query")),
        };
        let page = match arguments.get("page") {
            None => 1,
            Some(value) => value
                .as_u64()
                .filter(|page| *page >= 1)
                .and_then(|page| usize::try_from(page).ok())
                .ok_or_else(|| {
                    Refusal::invalid_request("`page` must be an integer of at least 1").at("/page")
                })?,
        };
        Ok(Self { query, page })
    }
}

/// The terms of a query, and the generic words it dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerms {
    /// Distinct non-generic terms, in query order, in matching form.
    pub terms: Vec<String>,
    /// Distinct dropped generic words, in query order.
    pub ignored: Vec<String>,
}

/// Splits a query into its terms.
pub fn query_terms(query: &str) -> QueryTerms {
    let mut terms: Vec<String> = Vec::new();
    let mut ignored: Vec<String> = Vec::new();
    for (_, word) in words(query) {
        let generic = word.chars().count() < 2 || GENERIC_WORDS.contains(&word.as_str());
        let list = if generic { &mut ignored } else { &mut terms };
        if !list.contains(&word) {
            list.push(word);
        }
    }
    QueryTerms { terms, ignored }
}

/// Loads the bundle and searches it.
pub fn search(source: &BundleSource, request: &SearchRequest) -> Result<Value, Refusal> {
    let bundle = source.load()?;
    search_bundle(&bundle, request)
}

/// Loads the bundle and reads one section.
pub fn read(source: &BundleSource, locator: &str) -> Result<Value, Refusal> {
    let locator = GuidanceLocator::parse(locator, "/locator")?;
    let bundle = source.load()?;
    read_bundle(&bundle, &locator)
}

/// Reads `{"locator": string}`; refusals point at the offending member.
pub fn locator_argument(arguments: &Map<String, Value>) -> Result<String, Refusal> {
    for key in arguments.keys() {
        if key != "locator" {
            return Err(Refusal::invalid_request(format!(
                "unknown argument `{key}`; read_guidance_section takes `locator`"
            ))
            .at(format!("/{key}")));
        }
    }
    match arguments.get("locator") {
        Some(Value::String(locator)) => Ok(locator.clone()),
        Some(_) => Err(Refusal::invalid_request("`locator` must be a string").at("/locator")),
        None => Err(Refusal::invalid_request("`locator` is required").at("/locator")),
    }
}

/// Searches an admitted bundle.
pub fn search_bundle(bundle: &GuidanceBundle, request: &SearchRequest) -> Result<Value, Refusal> {
    if utf16_len(&request.query) > MAX_QUERY_UNITS {
        return Err(Refusal::invalid_request(format!(
            "the query is longer than {MAX_QUERY_UNITS} UTF-16 code units"
        ))
        .at("/query"));
    }
    let QueryTerms { terms, ignored } = query_terms(&request.query);
    if terms.len() > MAX_QUERY_TERMS {
        return Err(Refusal::invalid_request(format!(
            "the query has more than {MAX_QUERY_TERMS} non-generic words"
        ))
        .at("/query"));
    }
    let matches = if terms.is_empty() {
        Vec::new()
    } else {
        find_matches(bundle, &terms)
    };
    let total = matches.len();
    let page_count = total.div_ceil(PAGE_SIZE).max(1);
    if request.page > page_count {
        return Err(Refusal::invalid_request(format!(
            "page {} is past the last page ({page_count})",
            request.page
        ))
        .at("/page"));
    }
    let page: Vec<Value> = matches
        .iter()
        .skip((request.page - 1) * PAGE_SIZE)
        .take(PAGE_SIZE)
        .map(|found| match_entry(bundle, found, &terms))
        .collect();
    let mut result = json!({
        "kind": "guidance-search",
        "content": "documentation",
        "bundle": bundle.identity(),
        "query": request.query,
        "terms": terms,
        "ignored_words": ignored,
        "page": request.page,
        "page_size": PAGE_SIZE,
        "page_count": page_count,
        "total_matches": total,
        "next_page": if request.page < page_count { json!(request.page + 1) } else { Value::Null },
        "matches": page,
    });
    if total == 0 {
        let note = if terms.is_empty() {
            "The query has only generic words, so nothing can match; name what you are looking for. A no-match result says nothing about what rea can analyse."
        } else {
            "No guidance section holds every non-generic word of the query. A no-match result says nothing about what rea can analyse."
        };
        result
            .as_object_mut()
            .expect("an object")
            .insert("note".into(), json!(note));
    }
    Ok(result)
}

/// The locator of a bundle's section, by index.
fn section_locator(bundle: &GuidanceBundle, index: usize) -> String {
    GuidanceLocator {
        bundle: bundle.locator_hash(),
        section: bundle.sections[index].hash,
    }
    .render()
}

/// One match of a result page: the section, its excerpt and, for a match its subsections
/// cover, the terms of its own text and the subsections listed.
fn match_entry(bundle: &GuidanceBundle, found: &Found, terms: &[String]) -> Value {
    let section = &bundle.sections[found.section];
    let (excerpt, cut_before, cut_after) = excerpt(bundle.own_text(section), terms);
    let mut entry = json!({
        "locator": section_locator(bundle, found.section),
        "file": bundle.files[section.file].path,
        "heading": section.heading,
        "heading_path": bundle.heading_path(found.section),
        "level": section.level,
        "match_scope": if found.cover.is_none() { "section" } else { "subsections" },
        "content_length": section.content_length,
        "excerpt": excerpt,
        "excerpt_cut_before": cut_before,
        "excerpt_cut_after": cut_after,
    });
    if let Some(cover) = &found.cover {
        let object = entry.as_object_mut().expect("an object");
        object.insert(
            "own_text_terms".into(),
            json!(terms_of(found.own_mask, terms)),
        );
        let listed: Vec<Value> = cover
            .iter()
            .take(MAX_LISTED_SUBSECTIONS)
            .map(|(index, mask)| {
                json!({
                    "locator": section_locator(bundle, *index),
                    "heading": bundle.sections[*index].heading,
                    "terms": terms_of(*mask, terms),
                })
            })
            .collect();
        object.insert("subsections".into(), Value::Array(listed));
        object.insert(
            "omitted_subsections".into(),
            json!(cover.len().saturating_sub(MAX_LISTED_SUBSECTIONS)),
        );
    }
    entry
}

/// Reads one section of an admitted bundle.
pub fn read_bundle(bundle: &GuidanceBundle, locator: &GuidanceLocator) -> Result<Value, Refusal> {
    if locator.bundle != bundle.locator_hash() {
        return Err(Refusal::new(
            "guidance_stale",
            "integrity_mismatch",
            "the locator was issued for another guidance bundle than the one installed now; search again for a current locator",
        )
        .at("/locator")
        .retryable(false)
        .with_data(json!({"reason": "stale_locator", "bundle": bundle.identity()})));
    }
    let index = bundle.find(&locator.section).ok_or_else(|| {
        Refusal::invalid_request(
            "the installed guidance bundle has no section with this locator's hash",
        )
        .at("/locator")
        .with_data(json!({"reason": "unknown_section"}))
    })?;
    let section = &bundle.sections[index];
    let subsections: Vec<Value> = section
        .children
        .iter()
        .map(|child| {
            json!({
                "locator": GuidanceLocator { bundle: bundle.locator_hash(), section: bundle.sections[*child].hash }.render(),
                "heading": bundle.sections[*child].heading,
                "content_length": bundle.sections[*child].content_length,
            })
        })
        .collect();
    Ok(json!({
        "kind": "guidance-section",
        "content": "documentation",
        "bundle": bundle.identity(),
        "locator": locator.render(),
        "file": bundle.files[section.file].path,
        "heading": section.heading,
        "heading_path": bundle.heading_path(index),
        "level": section.level,
        "content_length": section.content_length,
        "text": bundle.full_text(section),
        "subsections": subsections,
    }))
}

#[derive(Debug)]
struct Found {
    section: usize,
    own_mask: u64,
    /// `None` for a `section` match; the greedy cover for a `subsections` match.
    cover: Option<Vec<(usize, u64)>>,
}

fn find_matches(bundle: &GuidanceBundle, terms: &[String]) -> Vec<Found> {
    let all: u64 = if terms.len() == 64 {
        u64::MAX
    } else {
        (1u64 << terms.len()) - 1
    };
    let own: Vec<u64> = bundle
        .sections
        .iter()
        .map(|section| term_mask(bundle.own_text(section), terms))
        .collect();
    // Subtree masks, children after parents in document order: fold from the end.
    let mut subtree = own.clone();
    for index in (0..bundle.sections.len()).rev() {
        if let Some(parent) = bundle.sections[index].parent {
            subtree[parent] |= subtree[index];
        }
    }
    let mut sections = Vec::new();
    let mut spread = Vec::new();
    for (index, section) in bundle.sections.iter().enumerate() {
        if subtree[index] != all {
            continue;
        }
        if own[index] == all {
            sections.push(Found {
                section: index,
                own_mask: own[index],
                cover: None,
            });
            continue;
        }
        if section.children.iter().any(|child| subtree[*child] == all) {
            continue;
        }
        let mut remaining = all & !own[index];
        let descendants = bundle.descendants(index);
        let mut cover = Vec::new();
        while remaining != 0 {
            let best = descendants
                .iter()
                .map(|at| (*at, own[*at] & remaining))
                .filter(|(_, gain)| *gain != 0)
                .max_by(|(left_at, left), (right_at, right)| {
                    left.count_ones()
                        .cmp(&right.count_ones())
                        .then(right_at.cmp(left_at))
                });
            let Some((at, gain)) = best else { break };
            cover.push((at, gain));
            remaining &= !gain;
        }
        spread.push(Found {
            section: index,
            own_mask: own[index],
            cover: Some(cover),
        });
    }
    sections.extend(spread);
    sections
}

fn term_mask(text: &str, terms: &[String]) -> u64 {
    let mut mask = 0u64;
    for (_, word) in words(text) {
        for (bit, term) in terms.iter().enumerate() {
            if word_matches(&word, term) {
                mask |= 1 << bit;
            }
        }
    }
    mask
}

fn terms_of(mask: u64, terms: &[String]) -> Vec<String> {
    terms
        .iter()
        .enumerate()
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, term)| term.clone())
        .collect()
}

/// At most [`EXCERPT_UNITS`] code units of `text`, starting a little before the first term.
fn excerpt(text: &str, terms: &[String]) -> (String, bool, bool) {
    let first = words(text)
        .into_iter()
        .find(|(_, word)| terms.iter().any(|term| word_matches(word, term)))
        .map(|(offset, _)| offset)
        .unwrap_or(0);
    let mut start = first;
    let mut lead = 0;
    for (index, character) in text[..first].char_indices().rev() {
        lead += character.len_utf16();
        if lead > EXCERPT_LEAD_UNITS {
            break;
        }
        start = index;
    }
    let rest = &text[start..];
    let kept = utf16_prefix(rest, EXCERPT_UNITS);
    (kept.to_owned(), start > 0, kept.len() < rest.len())
}
