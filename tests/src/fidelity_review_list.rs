//! The rendered miss lists: `tests/fidelity/<app>.md` from an app's review and its comparison,
//! and the corpus summary `tests/fidelity/misses.md` (misses per app and class, defects per
//! capability: the state engine's work plan). Deterministic: the same review and comparison give
//! the same bytes.

use std::collections::BTreeMap;

use crate::fidelity::{AppResult, PROBES};
use crate::fidelity_review::{CAPABILITIES, Checked, Class, Entry, REVIEWS_DIR, Ratio};

/// The corpus summary's file name, under [`crate::fidelity_review::LISTS_DIR`].
pub const SUMMARY_FILE: &str = "misses.md";

/// One app's review with what the run made of it.
#[derive(Debug)]
pub struct Reviewed<'a> {
    /// The comparison.
    pub result: &'a AppResult,
    /// The review's entries (none when the app has no review yet).
    pub entries: &'a [Entry],
    /// The check.
    pub checked: &'a Checked,
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn code(text: &str) -> String {
    if text.contains('`') {
        cell(text)
    } else {
        format!("`{}`", cell(text))
    }
}

fn percent(ratio: Ratio) -> String {
    if ratio.1 == 0 {
        return format!("{}/0", ratio.0);
    }
    format!(
        "{}/{} ({:.0}%)",
        ratio.0,
        ratio.1,
        ratio.0 as f64 * 100.0 / ratio.1 as f64
    )
}

fn capability_summary(name: &str) -> &'static str {
    CAPABILITIES
        .iter()
        .find(|(capability, _)| *capability == name)
        .map_or("", |(_, summary)| summary)
}

/// The entries of a class whose steps still miss (stale entries are listed apart).
fn current<'a>(reviewed: &'a Reviewed<'_>, class: Class) -> Vec<&'a Entry> {
    reviewed
        .entries
        .iter()
        .filter(|entry| entry.class == class && still_misses(reviewed.result, entry))
        .collect()
}

fn still_misses(result: &AppResult, entry: &Entry) -> bool {
    result
        .measures
        .get(&(entry.probe.clone(), "state".to_owned()))
        .is_some_and(|measure| {
            measure
                .steps
                .iter()
                .any(|step| step.ordinal == entry.step && !step.agrees)
        })
}

fn probe_row(reviewed: &Reviewed<'_>, probe: &str) -> String {
    let key = (probe.to_owned(), "state".to_owned());
    let (agreeing, compared) = reviewed
        .result
        .measures
        .get(&key)
        .map_or((0, 0), |measure| (measure.agreeing, measure.compared));
    let count = |class: Class| {
        current(reviewed, class)
            .iter()
            .filter(|entry| entry.probe == probe)
            .count()
    };
    let unreviewed = reviewed
        .checked
        .unreviewed
        .iter()
        .filter(|entry| entry.probe == probe)
        .count();
    format!(
        "| {probe} | {compared} | {agreeing} | {} | {} | {} | {} | {unreviewed} | {} | {} |\n",
        compared - agreeing,
        count(Class::CannotKnow),
        count(Class::Defect),
        count(Class::CompareDefect),
        percent((agreeing, compared)),
        percent(
            reviewed
                .checked
                .knowable
                .get(&key)
                .copied()
                .unwrap_or_default()
        ),
    )
}

fn defect_sections(reviewed: &Reviewed<'_>) -> String {
    let mut groups: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for entry in current(reviewed, Class::Defect) {
        groups
            .entry(entry.capability.as_deref().unwrap_or_default())
            .or_default()
            .push(entry);
    }
    let mut order: Vec<(&str, Vec<&Entry>)> = groups.into_iter().collect();
    order.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    let total: usize = order.iter().map(|(_, entries)| entries.len()).sum();
    let mut text = format!(
        "## Our defects ({total})\n\n| capability | steps | following another miss |\n| --- | ---: | ---: |\n"
    );
    for (capability, entries) in &order {
        let follows = entries
            .iter()
            .filter(|entry| entry.follows.is_some())
            .count();
        text.push_str(&format!(
            "| {capability} | {} | {follows} |\n",
            entries.len()
        ));
    }
    for (capability, entries) in &order {
        text.push_str(&format!(
            "\n### {capability} ({})\n\n{}\n\n| probe | step | request | tool | categories | diagnosis |\n| --- | ---: | --- | --- | --- | --- |\n",
            entries.len(),
            capability_summary(capability)
        ));
        for entry in entries {
            let follows = entry
                .follows
                .map(|step| format!("(follows step {step}) "))
                .unwrap_or_default();
            let diagnosis = entry.diagnosis.as_deref().unwrap_or_default();
            text.push_str(&entry_row(entry, &format!("{follows}{diagnosis}")));
        }
    }
    text
}

fn simple_section(title: &str, entries: &[&Entry], text_of: fn(&Entry) -> String) -> String {
    let mut text = format!(
        "\n## {title} ({})\n\n| probe | step | request | tool | categories | {} |\n| --- | ---: | --- | --- | --- | --- |\n",
        entries.len(),
        if title.starts_with("The capture") {
            "reason"
        } else {
            "diagnosis"
        }
    );
    for entry in entries {
        text.push_str(&entry_row(entry, &text_of(entry)));
    }
    text
}

/// An entry's table row: probe, step, request, tool, categories and the last column's text.
fn entry_row(entry: &Entry, last: &str) -> String {
    format!(
        "| {} | {} | {} | {} | {} | {} |\n",
        entry.probe,
        entry.step,
        code(&entry.request),
        entry.tool.as_deref().map_or("-".to_owned(), code),
        entry.categories.join(", "),
        cell(last)
    )
}

/// An app's list (`tests/fidelity/<app>.md`).
pub fn render(reviewed: &Reviewed<'_>) -> String {
    let app = &reviewed.result.name;
    let mut text = format!(
        "# {app}: reviewed misses\n\n\
         Generated by `tests/fidelity/run.sh --write-lists` from [`reviews/{app}.toml`](reviews/{app}.toml) \
         and `environment-compare` served from the state: edit the review, not this file. A step is the \
         probe record's ordinal as the comparison prints it (the probe HAR's entry, counted from 0). \
         Knowable steps are the compared steps less those the capture cannot know: a step is *cannot know* \
         when any part of the application's answer is beyond what `build.har` shows, and its reason names \
         the defects it also shows (`besides: …`).\n\n\
         | probe | compared | agreeing | missed | cannot know | defect | compare defect | not reviewed | agreement | over knowable steps |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n"
    );
    for probe in PROBES {
        text.push_str(&probe_row(reviewed, probe));
    }
    text.push('\n');
    text.push_str(&defect_sections(reviewed));
    let reason = |entry: &Entry| entry.reason.clone().unwrap_or_default();
    let diagnosis = |entry: &Entry| entry.diagnosis.clone().unwrap_or_default();
    text.push_str(&simple_section(
        "The capture cannot know",
        &current(reviewed, Class::CannotKnow),
        reason,
    ));
    text.push_str(&simple_section(
        "Compare defects",
        &current(reviewed, Class::CompareDefect),
        diagnosis,
    ));
    let stale: Vec<&Entry> = reviewed
        .entries
        .iter()
        .filter(|entry| !still_misses(reviewed.result, entry))
        .collect();
    if !stale.is_empty() {
        text.push_str(&simple_section(
            "Agreeing now (stale entries: remove them from the review)",
            &stale,
            diagnosis,
        ));
    }
    if !reviewed.checked.unreviewed.is_empty() {
        let unreviewed: Vec<&Entry> = reviewed.checked.unreviewed.iter().collect();
        text.push_str(&simple_section(
            &format!("Not reviewed yet (add them to {REVIEWS_DIR}/{app}.toml)"),
            &unreviewed,
            |_| String::new(),
        ));
    }
    text
}

/// The corpus summary (`tests/fidelity/misses.md`): per app, misses by class and agreement over
/// knowable steps; across the corpus, defects per capability.
pub fn render_summary(apps: &[Reviewed<'_>]) -> String {
    let mut text = String::from(
        "# Reviewed misses across the corpus\n\n\
         Generated by `tests/fidelity/run.sh --write-lists` from `tests/fidelity/reviews/*.toml` and \
         `environment-compare` served from the state; each app's list is `tests/fidelity/<app>.md`. \
         Steps missed served from the state, both probes:\n\n\
         | app | missed | cannot know | defect | compare defect | not reviewed | reads over knowable | CRUD over knowable |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
    );
    let mut capabilities: BTreeMap<&str, (usize, usize, BTreeMap<&str, usize>)> = BTreeMap::new();
    for reviewed in apps {
        let missed: u64 = PROBES
            .iter()
            .filter_map(|probe| {
                reviewed
                    .result
                    .measures
                    .get(&((*probe).to_owned(), "state".to_owned()))
            })
            .map(|measure| measure.compared - measure.agreeing)
            .sum();
        let knowable = |probe: &str| {
            percent(
                reviewed
                    .checked
                    .knowable
                    .get(&(probe.to_owned(), "state".to_owned()))
                    .copied()
                    .unwrap_or_default(),
            )
        };
        text.push_str(&format!(
            "| {} | {missed} | {} | {} | {} | {} | {} | {} |\n",
            reviewed.result.name,
            current(reviewed, Class::CannotKnow).len(),
            current(reviewed, Class::Defect).len(),
            current(reviewed, Class::CompareDefect).len(),
            reviewed.checked.unreviewed.len(),
            knowable("probe-reads"),
            knowable("probe-crud"),
        ));
        for entry in current(reviewed, Class::Defect) {
            let group = capabilities
                .entry(entry.capability.as_deref().unwrap_or_default())
                .or_default();
            group.0 += 1;
            group.1 += usize::from(entry.follows.is_some());
            *group.2.entry(reviewed.result.name.as_str()).or_default() += 1;
        }
    }
    let mut order: Vec<_> = capabilities.into_iter().collect();
    order.sort_by(|a, b| (b.1).0.cmp(&(a.1).0).then(a.0.cmp(b.0)));
    text.push_str(
        "\nOur defects per capability (the state engine's work plan), most steps first:\n\n\
         | capability | steps | following another miss | apps | what it is |\n| --- | ---: | ---: | --- | --- |\n",
    );
    for (capability, (steps, follows, apps)) in &order {
        let apps: Vec<String> = apps
            .iter()
            .map(|(app, count)| format!("{app} {count}"))
            .collect();
        text.push_str(&format!(
            "| {capability} | {steps} | {follows} | {} | {} |\n",
            apps.join(", "),
            cell(capability_summary(capability))
        ));
    }
    text
}
