//! Guidance search semantics on a fixture bundle (`tests/data/self-mcp/guidance-bundle`).

use std::path::{Path, PathBuf};

use rea_self_mcp::guidance::bundle::{BundleSource, Limits};
use rea_self_mcp::guidance::locator::GuidanceLocator;
use rea_self_mcp::guidance::search::{self, SearchRequest, read_bundle, search_bundle};
use rea_self_mcp::text::utf16_len;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/self-mcp/guidance-bundle")
}

fn run(query: &str, page: usize) -> Value {
    let bundle = BundleSource::Directory(fixture())
        .load()
        .expect("fixture bundle");
    search_bundle(
        &bundle,
        &SearchRequest {
            query: query.into(),
            page,
        },
    )
    .expect("search")
}

fn headings(result: &Value) -> Vec<(String, String)> {
    result["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|found| {
            (
                found["heading"].as_str().expect("heading").to_owned(),
                found["match_scope"].as_str().expect("scope").to_owned(),
            )
        })
        .collect()
}

fn pair(heading: &str, scope: &str) -> (String, String) {
    (heading.to_owned(), scope.to_owned())
}

// contract: GUIDANCE-010, GUIDANCE-016, GUIDANCE-018
#[test]
fn every_non_generic_word_must_occur_and_a_section_match_holds_all_in_its_own_text() {
    let result = run("How do I space the creates? spacing creates", 1);
    assert_eq!(
        result["terms"],
        serde_json::json!(["space", "creates", "spacing"])
    );
    // "space" occurs nowhere as a word, so nothing matches.
    assert_eq!(result["total_matches"], 0);
    let result = run("how should I do spacing of creates", 1);
    assert_eq!(headings(&result), [pair("Spacing creates", "section")]);
    assert_eq!(result["content"], "documentation");
}

// contract: GUIDANCE-011, GUIDANCE-015
#[test]
fn a_generic_only_query_matches_nothing_and_says_so() {
    let result = run("what is it and how do I do that?", 1);
    assert_eq!(result["terms"], serde_json::json!([]));
    assert_eq!(result["total_matches"], 0);
    assert!(
        result["note"]
            .as_str()
            .expect("note")
            .contains("says nothing about what rea can analyse")
    );
}

// contract: GUIDANCE-017
#[test]
fn text_before_the_first_heading_and_inside_fences_is_not_a_heading() {
    assert_eq!(run("preambleonly", 1)["total_matches"], 0);
    // The fenced line is body text of "Specific child", not a section of its own.
    assert_eq!(
        headings(&run("papaya guava", 1)),
        [pair("Specific child", "section")]
    );
}

// contract: GUIDANCE-019, GUIDANCE-020, GUIDANCE-021, GUIDANCE-023
#[test]
fn spread_terms_give_a_subsections_match_after_section_matches() {
    let result = run("hint reasons", 1);
    assert_eq!(
        headings(&result),
        [
            pair("Hint reasons glossary", "section"),
            pair("Withheld writes", "subsections"),
        ]
    );
    let spread = &result["matches"][1];
    assert_eq!(spread["own_text_terms"], serde_json::json!(["hint"]));
    let listed = spread["subsections"].as_array().expect("subsections");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["heading"], "Reasons overview");
    assert_eq!(spread["omitted_subsections"], 0);
}

// contract: GUIDANCE-021
#[test]
fn subsections_are_chosen_greedily_then_in_document_order() {
    let result = run("beta term04 term05 term06 term07", 1);
    assert_eq!(headings(&result), [pair("Greedy spread", "subsections")]);
    let listed: Vec<&str> = result["matches"][0]["subsections"]
        .as_array()
        .expect("subsections")
        .iter()
        .map(|entry| entry["heading"].as_str().expect("heading"))
        .collect();
    assert_eq!(listed, ["Combo", "Lone 07"]);
}

// contract: GUIDANCE-022
#[test]
fn more_than_eight_needed_subsections_are_counted_as_omitted() {
    let query = "alpha term01 term02 term03 term04 term05 term06 term07 term08 term09 term10";
    let result = run(query, 1);
    let spread = result["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .find(|found| found["heading"] == "Wide spread")
        .expect("wide spread matches");
    assert_eq!(spread["match_scope"], "subsections");
    assert_eq!(spread["subsections"].as_array().map(Vec::len), Some(8));
    assert_eq!(spread["omitted_subsections"], 2);
}

// contract: GUIDANCE-024
#[test]
fn a_parent_is_listed_only_when_no_subsection_holds_every_term_or_its_own_text_does() {
    assert_eq!(
        headings(&run("kiwi mango", 1)),
        [
            pair("Parent holds all", "section"),
            pair("Child also holds all", "section")
        ]
    );
    let only_child = headings(&run("papaya guava", 1));
    assert!(!only_child.contains(&pair("Only child holds all", "subsections")));
}

// contract: GUIDANCE-009, GUIDANCE-026
#[test]
fn matches_come_twenty_to_a_page_deterministically() {
    let first = run("zebra", 1);
    assert_eq!(first["total_matches"], 25);
    assert_eq!(first["page_count"], 2);
    assert_eq!(first["matches"].as_array().map(Vec::len), Some(20));
    assert_eq!(first["next_page"], 2);
    let second = run("zebra", 2);
    assert_eq!(second["matches"].as_array().map(Vec::len), Some(5));
    assert_eq!(second["next_page"], Value::Null);
    assert_eq!(second["matches"][0]["heading"], "Page item 21");
    assert_eq!(run("zebra", 1), first, "same query, same bundle, same page");
    let bundle = BundleSource::Directory(fixture()).load().expect("bundle");
    let past = search_bundle(
        &bundle,
        &SearchRequest {
            query: "zebra".into(),
            page: 3,
        },
    )
    .expect_err("past the last page");
    assert_eq!(past.pointer.as_deref(), Some("/page"));
}

// contract: GUIDANCE-027
#[test]
fn excerpts_are_at_most_500_code_units_around_the_first_term() {
    let result = run("needle", 1);
    let found = &result["matches"][0];
    let excerpt = found["excerpt"].as_str().expect("excerpt");
    assert!(utf16_len(excerpt) <= 500, "{} units", utf16_len(excerpt));
    assert!(utf16_len(excerpt) > 480, "the window is used");
    assert!(excerpt.contains("needle"));
    assert_eq!(found["excerpt_cut_before"], true);
    assert_eq!(found["excerpt_cut_after"], true);
}

// contract: GUIDANCE-002, GUIDANCE-003, GUIDANCE-025, GUIDANCE-028
#[test]
fn read_returns_the_complete_section_whose_length_search_reported() {
    let result = run("hint reasons", 1);
    let spread = &result["matches"][1];
    let bundle = BundleSource::Directory(fixture()).load().expect("bundle");
    let locator = GuidanceLocator::parse(spread["locator"].as_str().expect("locator"), "/locator")
        .expect("locator parses");
    let section = read_bundle(&bundle, &locator).expect("read");
    let text = section["text"].as_str().expect("text");
    assert!(text.starts_with("# Withheld writes"));
    assert!(text.contains("## Reasons overview") && text.contains("## Reading back"));
    assert!(!text.contains("# Hint reasons glossary"));
    assert_eq!(section["content_length"], spread["content_length"]);
    assert_eq!(
        Some(utf16_len(text) as u64),
        spread["content_length"].as_u64()
    );
    assert_eq!(section["subsections"].as_array().map(Vec::len), Some(2));
}

// contract: GUIDANCE-013, GUIDANCE-014, GUIDANCE-037
#[test]
fn a_locator_is_reported_stale_once_the_bundle_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(fixture()).expect("fixture") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
    }
    let source = BundleSource::Directory(dir.path().to_path_buf());
    let found = search::search(
        &source,
        &SearchRequest {
            query: "spacing creates".into(),
            page: 1,
        },
    )
    .expect("search");
    let locator = found["matches"][0]["locator"]
        .as_str()
        .expect("locator")
        .to_owned();
    assert!(search::read(&source, &locator).is_ok());
    // An edit anywhere in the bundle changes its hash, even in another section.
    let paging = dir.path().join("paging.md");
    let mut text = std::fs::read_to_string(&paging).expect("read");
    text.push_str("\nOne more line.\n");
    std::fs::write(&paging, text).expect("write");
    let stale = search::read(&source, &locator).expect_err("stale");
    assert_eq!(stale.code, "guidance_stale");
    assert_eq!(stale.data.as_ref().and_then(|d| d.get("text")), None);
    let refreshed = search::search(
        &source,
        &SearchRequest {
            query: "spacing creates".into(),
            page: 1,
        },
    )
    .expect("search");
    assert_ne!(
        refreshed["matches"][0]["locator"],
        found["matches"][0]["locator"]
    );
}

// contract: GUIDANCE-038
#[test]
fn a_long_heading_has_a_locator_of_the_usual_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    let heading = "Very long heading ".repeat(2000);
    std::fs::write(
        dir.path().join("bundle.json"),
        r#"{"name":"long","version":1,"files":["a.md"]}"#,
    )
    .expect("manifest");
    std::fs::write(dir.path().join("a.md"), format!("# {heading}\n\nquokka\n")).expect("file");
    let source = BundleSource::Directory(dir.path().to_path_buf());
    let found = search::search(
        &source,
        &SearchRequest {
            query: "quokka".into(),
            page: 1,
        },
    )
    .expect("search");
    let locator = found["matches"][0]["locator"].as_str().expect("locator");
    assert_eq!(locator.len(), 69);
    let section = search::read(&source, locator).expect("read");
    assert!(section["heading"].as_str().expect("heading").len() > 30_000);
}

fn bundle_dir(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    std::fs::write(
        dir.path().join("bundle.json"),
        serde_json::json!({"name": "t", "version": 1, "files": names}).to_string(),
    )
    .expect("manifest");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("file");
    }
    dir
}

fn unavailable_reason(dir: &tempfile::TempDir, limits: &Limits) -> String {
    let refusal = BundleSource::Directory(dir.path().to_path_buf())
        .load_with(limits)
        .expect_err("unavailable");
    assert_eq!(refusal.code, "bundle_unavailable");
    assert_eq!(refusal.category, "unavailable");
    refusal.data.expect("data")["reason"]
        .as_str()
        .expect("reason")
        .to_owned()
}

// contract: GUIDANCE-029, GUIDANCE-034, GUIDANCE-035
#[test]
fn a_file_over_one_mebibyte_makes_the_bundle_unavailable() {
    let dir = bundle_dir(&[
        ("a.md", "# fine\n".into()),
        ("b.md", format!("# big\n{}", "x".repeat(1024 * 1024))),
    ]);
    assert_eq!(unavailable_reason(&dir, &Limits::SPEC), "file_too_large");
    // No partial index: the admissible file is not searchable either.
    let source = BundleSource::Directory(dir.path().to_path_buf());
    let refusal = search::search(
        &source,
        &SearchRequest {
            query: "fine".into(),
            page: 1,
        },
    )
    .expect_err("unavailable");
    assert_eq!(refusal.code, "bundle_unavailable");
}

// contract: GUIDANCE-030
#[test]
fn a_bundle_over_four_mebibytes_is_unavailable() {
    let chunk = format!("# part\n{}", "y".repeat(900 * 1024));
    let files: Vec<(&str, String)> = ["a.md", "b.md", "c.md", "d.md", "e.md"]
        .into_iter()
        .map(|name| (name, chunk.clone()))
        .collect();
    let dir = bundle_dir(&files);
    assert_eq!(unavailable_reason(&dir, &Limits::SPEC), "bundle_too_large");
}

// contract: GUIDANCE-031
#[test]
fn more_than_4096_sections_make_the_bundle_unavailable() {
    let dir = bundle_dir(&[("a.md", "# s\n".repeat(4097))]);
    assert_eq!(unavailable_reason(&dir, &Limits::SPEC), "too_many_sections");
    let fits = bundle_dir(&[("a.md", "# s\n".repeat(4096))]);
    assert!(
        BundleSource::Directory(fits.path().to_path_buf())
            .load()
            .is_ok()
    );
}

// contract: GUIDANCE-032
#[test]
fn the_expanded_size_is_checked_before_sections_are_built() {
    // Six nested levels charge the body six times.
    let text = format!(
        "# a\n## b\n### c\n#### d\n##### e\n###### f\n{}",
        "z".repeat(1000)
    );
    let dir = bundle_dir(&[("a.md", text)]);
    let limits = Limits {
        max_expanded_utf16: 5_000,
        ..Limits::SPEC
    };
    assert_eq!(unavailable_reason(&dir, &limits), "expanded_too_large");
    assert!(
        BundleSource::Directory(dir.path().to_path_buf())
            .load_with(&Limits {
                max_expanded_utf16: 7_000,
                ..Limits::SPEC
            })
            .is_ok()
    );
}

// contract: GUIDANCE-033
#[test]
fn a_missing_or_unreadable_bundle_is_unavailable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = BundleSource::Directory(dir.path().join("nowhere"))
        .load()
        .expect_err("missing");
    assert_eq!(missing.code, "bundle_unavailable");
    let listed_missing = bundle_dir(&[]);
    std::fs::write(
        listed_missing.path().join("bundle.json"),
        r#"{"name":"t","version":1,"files":["gone.md"]}"#,
    )
    .expect("manifest");
    assert_eq!(
        unavailable_reason(&listed_missing, &Limits::SPEC),
        "unreadable"
    );
    let escaping = bundle_dir(&[]);
    std::fs::write(
        escaping.path().join("bundle.json"),
        r#"{"name":"t","version":1,"files":["../x.md"]}"#,
    )
    .expect("manifest");
    assert_eq!(
        unavailable_reason(&escaping, &Limits::SPEC),
        "invalid_manifest"
    );
}

// contract: GUIDANCE-007, GUIDANCE-008
#[test]
fn the_shipped_bundle_answers_the_questions_it_is_for() {
    let source = BundleSource::Embedded;
    for (query, heading) in [
        ("read before write", "Read before you write"),
        (
            "spacing creates",
            "Space creates and edits by more than a second",
        ),
        (
            "two creates different members",
            "Two creates with different members",
        ),
        ("flip actions twice", "Run every action twice on one object"),
        ("credentials scrubbing", "Credentials and scrubbing"),
        ("no-observation", "no-observation"),
        ("environment-compare probes", "Run the comparison"),
    ] {
        let found = search::search(
            &source,
            &SearchRequest {
                query: query.into(),
                page: 1,
            },
        )
        .expect("search");
        let headings: Vec<&str> = found["matches"]
            .as_array()
            .expect("matches")
            .iter()
            .map(|m| m["heading"].as_str().expect("heading"))
            .collect();
        assert!(headings.contains(&heading), "{query:?} found {headings:?}");
    }
}

// contract: GUIDANCE-006
// Adapted: the reference searches its packaged managed skill files; rea's packaged files are
// the ones the bundle manifest (`bundle.json`) lists. Another file in the folder is not searched.
#[test]
fn search_reads_only_the_files_the_bundle_lists() {
    let dir = bundle_dir(&[("listed.md", "# Listed\n\nWombats live here.\n".to_owned())]);
    std::fs::write(
        dir.path().join("stray.md"),
        "# Stray\n\nNumbats live here, and wombats too.\n",
    )
    .expect("stray file");
    let source = BundleSource::Directory(dir.path().to_path_buf());
    let query = |words: &str| {
        search::search(
            &source,
            &SearchRequest {
                query: words.into(),
                page: 1,
            },
        )
        .expect("search")
    };
    assert_eq!(query("numbats")["total_matches"], 0);
    let wombats = query("wombats");
    assert_eq!(wombats["total_matches"], 1);
    assert_eq!(wombats["matches"][0]["heading"], "Listed");
    // Once the manifest lists the file, it is searched.
    std::fs::write(
        dir.path().join("bundle.json"),
        r#"{"name":"t","version":1,"files":["listed.md","stray.md"]}"#,
    )
    .expect("manifest");
    assert_eq!(query("numbats")["total_matches"], 1);
}

// contract: GUIDANCE-012
#[test]
fn search_and_read_results_are_marked_as_documentation() {
    let source = BundleSource::Directory(fixture());
    let found = search::search(
        &source,
        &SearchRequest {
            query: "spacing creates".into(),
            page: 1,
        },
    )
    .expect("search");
    assert_eq!(found["kind"], "guidance-search");
    assert_eq!(found["content"], "documentation");
    let nothing = search::search(
        &source,
        &SearchRequest {
            query: "zzyzx".into(),
            page: 1,
        },
    )
    .expect("search");
    assert_eq!(nothing["content"], "documentation");
    let locator = found["matches"][0]["locator"].as_str().expect("locator");
    let section = search::read(&source, locator).expect("read");
    assert_eq!(section["kind"], "guidance-section");
    assert_eq!(section["content"], "documentation");
}
