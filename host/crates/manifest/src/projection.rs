//! The projection: capture records → [`Manifest`].
//!
//! 1. The primary origin is the origin with the most JSON-like responses (ties: the most records,
//!    then the earliest record).
//! 2. Each origin's paths are templated (see [`crate::template`]), then the pipeline's route-form
//!    stages run on what is still literal (see [`crate::route_forms`]): a form may make a segment
//!    or only the part of it between a literal prefix and suffix a parameter (`{numeric}.json`),
//!    and may name the argument. Records group by method and template, in order of their first
//!    record.
//! 3. A primary-origin group becomes a tool unless every response it recorded is a page or a static
//!    asset, or its path names a static file and no response was JSON-like (`page-or-asset`); a
//!    write's answers without a body (`201` with a `Location`, `204`) show no page whatever
//!    media type they name, so a write answering only those is a tool (a form's `302` to a page
//!    is still a page).
//!    Groups on other origins are excluded as `other-origin`.
//! 4. Parameters, tool names (see [`crate::naming`]), query names, body shapes, statuses and media
//!    types are collected per tool; the unknowns replay cannot establish are listed. The tools of
//!    one method whose records a route form put in one query family take each other's query names
//!    (recorded on none of their own records).
//! 5. The id of an item route whose missing-entity answer the recording shows, and beside which
//!    no literal route could be shadowed, takes any one segment (see [`crate::missing_ids`]); an
//!    item route of a collection answered with and without a trailing slash takes both
//!    spellings (see [`crate::slash_spellings`]).
//!
//! A capture that yields no tool is refused as `unsupported_target`.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use rea_evidence::Refusal;
use rea_plugin_api::contracts::capture::{Body, CaptureRecord, CompactString};
use rea_plugin_api::contracts::route::SegmentForm;

use crate::manifest::{
    ExcludedGroup, MANIFEST_VIEW_KIND, Manifest, ManifestTool, PathParameter, QueryParameter,
    RecordCounts, Unknown,
};
use crate::media;
use crate::naming::{self, NameToken};
use crate::responses::{ParsedResponses, echo_members};
use crate::route_forms::{apply_route_forms, is_argument_name};
use crate::segments::{segment_value, split_path};
use crate::shape::ShapeBuilder;
use crate::template::{SegmentRule, TemplateRules, template_records};

/// The built-in format rules, in the order they are tried.
pub const FORMAT_RULES: [&str; 4] = ["numeric", "uuid", "ulid", "hex"];

/// The stage name refusals of the projection carry.
pub const STAGE: &str = "inspect_analysis_view";

/// Projects capture records into an environment manifest.
pub fn project_manifest(
    parent_evidence_id: &str,
    records: &[CaptureRecord],
    rules: &TemplateRules,
) -> Result<Manifest, Refusal> {
    let lines: Vec<Line<'_>> = records.iter().filter_map(Line::of).collect();
    let Some(primary_origin) = primary_origin(&lines) else {
        return Err(Refusal::unsupported_target(
            "the capture has no record with a usable request line (method, origin and path), so no tool can be projected",
        )
        .in_stage(STAGE));
    };
    let groups = template_groups(&lines, rules).map_err(|refusal| refusal.in_stage(STAGE))?;
    let (tool_groups, excluded_groups) = partition_groups(&groups, primary_origin, records);
    if tool_groups.is_empty() {
        return Err(Refusal::unsupported_target(format!(
            "no record on the primary origin {primary_origin} answered like an API (every response was a page or a static asset), so no tool can be projected"
        ))
        .in_stage(STAGE));
    }
    let mut tools = named_tools(&tool_groups);
    let counts = record_counts(&tools, &excluded_groups, records.len());
    if rules.sibling_transfer() {
        let inferred = crate::siblings::inferred_tools(&tools);
        tools.extend(inferred);
        let families: Vec<Option<usize>> =
            tool_groups.iter().map(|group| group.query_family).collect();
        let deeper = crate::depths::inferred_depth_tools(&tools, &families);
        tools.extend(deeper);
        let listed = crate::listed_depths::inferred_listed_reads(&tools, &families, records);
        tools.extend(listed);
        let suffixes = crate::suffix_depths::inferred_suffix_tools(&tools, records);
        tools.extend(suffixes);
        let below = crate::sibling_reads::inferred_sibling_reads(&tools);
        tools.extend(below);
    }
    crate::slash_spellings::mark_trailing_slash_optional(&mut tools);
    crate::missing_ids::mark_any_segment_ids(
        &mut tools,
        &excluded_groups,
        rules.sibling_transfer(),
    );
    Ok(Manifest {
        excluded_groups,
        format_rules: FORMAT_RULES.map(str::to_owned).to_vec(),
        joined_segments: Vec::new(),
        name: naming::environment_name(primary_origin),
        parent_evidence_id: parent_evidence_id.to_owned(),
        primary_origin: primary_origin.to_owned(),
        records: counts,
        route_forms: rules.route_form_names(),
        template_rules: rules.names(),
        tools,
        unknowns: unknowns(records),
        view: MANIFEST_VIEW_KIND.to_owned(),
    })
}

/// Groups the request lines per origin by method, form per segment and literal segments, in the
/// order each group's first record was captured.
fn template_groups<'a>(
    lines: &[Line<'a>],
    rules: &TemplateRules,
) -> Result<Vec<Group<'a>>, Refusal> {
    // The lines of each origin by reference: a copy of every line held beside them took a
    // line's size per record while the route forms run (issue 17).
    let mut by_origin: BTreeMap<&str, Vec<&Line<'a>>> = BTreeMap::new();
    for line in lines {
        by_origin.entry(line.origin).or_default().push(line);
    }
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut families_before = 0;
    for (origin, origin_lines) in &by_origin {
        let origin_records: Vec<&CaptureRecord> =
            origin_lines.iter().map(|line| line.record).collect();
        let paths: Vec<&str> = origin_lines.iter().map(|line| line.path).collect();
        let responses = ParsedResponses::new(&origin_records);
        let templated = template_records(&paths, &responses, rules)
            .into_iter()
            .map(|path| {
                path.into_iter()
                    .map(|rule| rule.map(|rule| SegmentForm::whole(rule.name())))
                    .collect()
            })
            .collect();
        let applied = apply_route_forms(&responses, &paths, templated, rules.route_forms())?;
        let family_of: BTreeMap<usize, usize> = applied
            .query_families
            .iter()
            .enumerate()
            .flat_map(|(family, members)| {
                members
                    .iter()
                    .map(move |line| (*line, families_before + family))
            })
            .collect();
        families_before += applied.query_families.len();
        // (method, form per segment, literal segments) → group.
        type GroupKey<'k> = (&'k str, Vec<Option<SegmentForm>>, Vec<&'k str>);
        let mut index: BTreeMap<GroupKey<'_>, usize> = BTreeMap::new();
        for (position, (line, rules)) in origin_lines.iter().zip(applied.forms).enumerate() {
            let segments = split_path(line.path);
            let literals: Vec<&str> = segments
                .iter()
                .zip(&rules)
                .map(|(segment, rule)| if rule.is_some() { "" } else { *segment })
                .collect();
            let key = (line.method, rules.clone(), literals);
            let slot = *index.entry(key).or_insert_with(|| {
                groups.push(Group {
                    origin,
                    method: line.method,
                    rules: rules.clone(),
                    template_segments: segments.clone(),
                    members: Vec::new(),
                    query_family: None,
                });
                groups.len() - 1
            });
            groups[slot].members.push(**line);
            let group = &mut groups[slot];
            group.query_family = group.query_family.or(family_of.get(&position).copied());
        }
    }
    groups.sort_by_key(|group| group.members[0].record.ordinal);
    Ok(groups)
}

/// Splits the groups into those that become tools and those excluded (another origin, pages
/// and assets), adding one excluded group per record without a usable request line.
fn partition_groups<'g, 'a>(
    groups: &'g [Group<'a>],
    primary_origin: &str,
    records: &[CaptureRecord],
) -> (Vec<&'g Group<'a>>, Vec<ExcludedGroup>) {
    let mut tool_groups: Vec<&Group<'_>> = Vec::new();
    let mut excluded_groups: Vec<ExcludedGroup> = Vec::new();
    for group in groups {
        let reason = if group.origin != primary_origin {
            Some("other-origin")
        } else if is_page_or_asset_group(group) {
            Some("page-or-asset")
        } else {
            None
        };
        match reason {
            Some(reason) => excluded_groups.push(ExcludedGroup {
                method: Some(group.method.to_owned()),
                origin: Some(group.origin.to_owned()),
                path_template: Some(group.path_template()),
                reason: reason.to_owned(),
                record_ordinals: group
                    .members
                    .iter()
                    .map(|line| line.record.ordinal)
                    .collect(),
            }),
            None => tool_groups.push(group),
        }
    }
    for record in records.iter().filter(|record| Line::of(record).is_none()) {
        excluded_groups.push(ExcludedGroup {
            method: record.method.as_deref().map(str::to_owned),
            origin: record.origin.as_deref().map(str::to_owned),
            path_template: None,
            reason: "no-request-line".to_owned(),
            record_ordinals: vec![record.ordinal],
        });
    }
    excluded_groups.sort_by_key(|group| group.record_ordinals[0]);
    (tool_groups, excluded_groups)
}

/// Builds one tool per group and names them, resolving name collisions.
fn named_tools(tool_groups: &[&Group<'_>]) -> Vec<ManifestTool> {
    let parameter_names = parameter_names(tool_groups);
    let mut tools: Vec<ManifestTool> = tool_groups
        .iter()
        .map(|group| build_tool(group, &parameter_names[&group.template_key()]))
        .collect();
    let (base, full): (Vec<String>, Vec<String>) = tool_groups
        .iter()
        .zip(&tools)
        .map(|(group, tool)| {
            let tokens = name_tokens(group, &tool.path_parameters);
            (
                naming::tool_base_name(group.method, &tokens),
                naming::tool_full_name(group.method, &tokens),
            )
        })
        .unzip();
    for (tool, name) in tools
        .iter_mut()
        .zip(naming::resolve_collisions(base, &full))
    {
        tool.name = name;
    }
    share_query_names(tool_groups, &mut tools);
    tools
}

/// The methods whose query names a query family shares: a read's among the reads of its method,
/// a write's among every write of the family (a compare such as `prevValue`, recorded on a `PUT`,
/// is a query name of the tree's `DELETE` too; whether the state serves it is the state's
/// learning, never the schema's).
fn sharing_method(method: &str) -> &str {
    if ["GET", "HEAD", "OPTIONS"]
        .iter()
        .any(|read| method.eq_ignore_ascii_case(read))
    {
        method
    } else {
        "write"
    }
}

/// Gives each tool of a query family the query names the family's other tools of its method
/// (of any write method, for a write: see [`sharing_method`]) recorded, after its own, in the
/// order the family's tools first recorded them (recorded on none of its records: `records` 0,
/// not repeated).
fn share_query_names(tool_groups: &[&Group<'_>], tools: &mut [ManifestTool]) {
    let mut names: BTreeMap<(usize, &str), Vec<String>> = BTreeMap::new();
    for (group, tool) in tool_groups.iter().zip(tools.iter()) {
        let Some(family) = group.query_family else {
            continue;
        };
        let shared = names
            .entry((family, sharing_method(group.method)))
            .or_default();
        for parameter in &tool.query_parameters {
            if !shared.contains(&parameter.name) {
                shared.push(parameter.name.clone());
            }
        }
    }
    for (group, tool) in tool_groups.iter().zip(tools.iter_mut()) {
        let Some(shared) = group
            .query_family
            .and_then(|family| names.get(&(family, sharing_method(group.method))))
        else {
            continue;
        };
        for name in shared {
            if !tool
                .query_parameters
                .iter()
                .any(|known| &known.name == name)
            {
                tool.query_parameters.push(QueryParameter {
                    name: name.clone(),
                    records: 0,
                    repeated: false,
                });
            }
        }
    }
}

/// The manifest's record counts: cited by a tool, excluded, and in the capture.
fn record_counts(
    tools: &[ManifestTool],
    excluded_groups: &[ExcludedGroup],
    total: usize,
) -> RecordCounts {
    let cited: u64 = tools
        .iter()
        .map(|tool| tool.record_ordinals.len() as u64)
        .sum();
    let excluded: u64 = excluded_groups
        .iter()
        .map(|group| group.record_ordinals.len() as u64)
        .sum();
    RecordCounts {
        cited,
        excluded,
        total: total as u64,
    }
}

/// A record's request line, when the capture kept all of it.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    record: &'a CaptureRecord,
    method: &'a str,
    origin: &'a str,
    path: &'a str,
}

impl<'a> Line<'a> {
    fn of(record: &'a CaptureRecord) -> Option<Self> {
        Some(Self {
            record,
            method: record
                .method
                .as_deref()
                .filter(|method| !method.is_empty())?,
            origin: record.origin.as_deref()?,
            path: record.path.as_deref()?,
        })
    }
}

/// The origin a set of records is mostly about, chosen as a manifest chooses its primary origin:
/// the most JSON-like responses, then the most records, then the earliest (records without a
/// usable request line are not counted). `environment-compare` names a probe's application so.
pub fn primary_origin_of(records: &[CaptureRecord]) -> Option<String> {
    let lines: Vec<Line<'_>> = records.iter().filter_map(Line::of).collect();
    primary_origin(&lines).map(str::to_owned)
}

/// The origin with the most JSON-like responses; ties go to the most records, then the earliest.
fn primary_origin<'a>(lines: &[Line<'a>]) -> Option<&'a str> {
    let mut tally: BTreeMap<&str, (usize, usize, std::cmp::Reverse<usize>)> = BTreeMap::new();
    for (position, line) in lines.iter().enumerate() {
        let entry = tally
            .entry(line.origin)
            .or_insert((0, 0, std::cmp::Reverse(position)));
        if media::is_json_like(line.record.response.media_type.as_deref()) {
            entry.0 += 1;
        }
        entry.1 += 1;
    }
    tally
        .into_iter()
        .max_by_key(|(_, score)| *score)
        .map(|(origin, _)| origin)
}

struct Group<'a> {
    origin: &'a str,
    method: &'a str,
    /// The form of each segment (`None`: literal).
    rules: Vec<Option<SegmentForm>>,
    /// The first record's segments (literal positions are the same in every member).
    template_segments: Vec<&'a str>,
    members: Vec<Line<'a>>,
    /// The query family of its records (numbered across origins), when a route form learned one.
    query_family: Option<usize>,
}

impl Group<'_> {
    fn path_template(&self) -> String {
        let mut template = String::from("/");
        for (index, (segment, rule)) in self.template_segments.iter().zip(&self.rules).enumerate() {
            if index > 0 {
                template.push('/');
            }
            match rule {
                Some(form) => template.push_str(&form.placeholder()),
                None => template.push_str(segment),
            }
        }
        template
    }

    /// The template ignoring the method: tools sharing it share parameter names.
    fn template_key(&self) -> String {
        self.path_template()
    }
}

fn is_page_or_asset_group(group: &Group<'_>) -> bool {
    // A write's answer without a body (`201` with a `Location`, `204`), unless a redirect, shows
    // no page whatever media type its headers name: only its other answers say what it is.
    let shown: Vec<&Line<'_>> = if is_read(group.method) {
        group.members.iter().collect()
    } else {
        group
            .members
            .iter()
            .filter(|line| !answered_without_body(line.record))
            .collect()
    };
    if shown.is_empty() {
        return false;
    }
    let all_pages = shown
        .iter()
        .all(|line| media::is_page_or_asset(line.record.response.media_type.as_deref()));
    let any_json = group
        .members
        .iter()
        .any(|line| media::is_json_like(line.record.response.media_type.as_deref()));
    all_pages || (!any_json && media::has_static_extension(group.members[0].path))
}

/// Whether a method only reads (`GET`, `HEAD`, `OPTIONS`).
fn is_read(method: &str) -> bool {
    ["GET", "HEAD", "OPTIONS"]
        .iter()
        .any(|read| method.eq_ignore_ascii_case(read))
}

/// Whether a record's response carries no body and is no redirect: a redirect (a form's `302`
/// to a page) keeps its media type's verdict.
fn answered_without_body(record: &CaptureRecord) -> bool {
    let empty = match &record.response.body {
        Body::Text { text } => text.is_empty(),
        Body::Base64 { bytes, .. } => *bytes == 0,
        Body::Excluded { .. } => false,
        Body::Missing | Body::ReportedNull => true,
    };
    empty && !(300..400).contains(&record.response.status)
}

/// Parameter names per template (shared by every method of it), by segment index.
fn parameter_names(groups: &[&Group<'_>]) -> BTreeMap<String, BTreeMap<usize, String>> {
    let mut by_template: BTreeMap<String, Vec<&Group<'_>>> = BTreeMap::new();
    for group in groups {
        by_template
            .entry(group.template_key())
            .or_default()
            .push(group);
    }
    let mut names = BTreeMap::new();
    for (template, groups) in by_template {
        let first = groups[0];
        let positions: Vec<usize> = first
            .rules
            .iter()
            .enumerate()
            .filter_map(|(index, rule)| rule.as_ref().map(|_| index))
            .collect();
        let last_segment = first.rules.len() - 1;
        let mut chosen: BTreeMap<usize, String> = BTreeMap::new();
        let mut used: BTreeSet<String> = BTreeSet::new();
        for position in positions {
            let form = first.rules[position].as_ref();
            let proposed = form.and_then(|form| form.name.clone());
            let mut name = if let Some(proposed) = proposed {
                proposed
            } else if form.is_some_and(|form| form.rule == SegmentRule::AfterUidLiteral.name()) {
                "uid".to_owned()
            } else if position == last_segment {
                echo_name(&groups, position).unwrap_or_else(|| "id".to_owned())
            } else {
                match position
                    .checked_sub(1)
                    .filter(|before| first.rules[*before].is_none())
                    .map(|before| {
                        naming::snake_case(&segment_value(first.template_segments[before]))
                    })
                    .filter(|word| !word.is_empty())
                {
                    Some(word) => format!("{}_id", naming::singular(&word)),
                    None => format!("segment_{position}"),
                }
            };
            if !used.insert(name.clone()) {
                name = format!("{name}_{position}");
                used.insert(name.clone());
            }
            chosen.insert(position, name);
        }
        names.insert(template, chosen);
    }
    names
}

/// The member the template's 2xx JSON answers echo for the segment at `position`: the one echoed
/// by the most records; ties prefer `id`, `uid`, `name`, then the alphabetically first. Only
/// names of `[A-Za-z_][A-Za-z0-9_]*` up to 64 characters qualify.
fn echo_name(groups: &[&Group<'_>], position: usize) -> Option<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for group in groups {
        let records: Vec<&CaptureRecord> = group.members.iter().map(|line| line.record).collect();
        let responses = ParsedResponses::new(&records);
        for (index, line) in group.members.iter().enumerate() {
            let Some(body) = responses.success_json(index) else {
                continue;
            };
            let segment = split_path(line.path)[position];
            let value = group.rules[position]
                .as_ref()
                .and_then(|form| form.value_in(segment))
                .unwrap_or(segment);
            let decoded = segment_value(value);
            for name in echo_members(body, &decoded) {
                if is_argument_name(&name) {
                    *counts.entry(name).or_default() += 1;
                }
            }
        }
    }
    let preference = |name: &str| match name {
        "id" => 0,
        "uid" => 1,
        "name" => 2,
        _ => 3,
    };
    counts
        .into_iter()
        .min_by(|(a_name, a_count), (b_name, b_count)| {
            b_count
                .cmp(a_count)
                .then(preference(a_name).cmp(&preference(b_name)))
                .then(a_name.cmp(b_name))
        })
        .map(|(name, _)| name)
}

fn name_tokens<'a>(group: &'a Group<'_>, parameters: &'a [PathParameter]) -> Vec<NameToken<'a>> {
    group
        .template_segments
        .iter()
        .zip(&group.rules)
        .enumerate()
        .map(|(index, (segment, rule))| match rule {
            None => NameToken::Literal(segment),
            Some(form) => NameToken::Parameter {
                name: parameters
                    .iter()
                    .find(|parameter| parameter.segment_index == index)
                    .map_or("param", |parameter| parameter.name.as_str()),
                rule: form.rule.as_str(),
            },
        })
        .collect()
}

/// The query parameters a tool's lines name, in first-seen order: how many lines name each, and
/// whether some line repeats it.
#[derive(Default)]
struct QueryTally {
    parameters: Vec<QueryParameter>,
    index: BTreeMap<String, usize>,
}

impl QueryTally {
    /// Counts one line's query.
    fn add(&mut self, record_query: &rea_plugin_api::contracts::capture::RecordQuery) {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (name, _) in record_query.pairs.iter().flatten() {
            *counts.entry(name).or_default() += 1;
        }
        let mut seen_here = BTreeSet::new();
        for (name, _) in record_query.pairs.iter().flatten() {
            if !seen_here.insert(name.as_str()) {
                continue;
            }
            let slot = *self.index.entry(name.clone()).or_insert_with(|| {
                self.parameters.push(QueryParameter {
                    name: name.clone(),
                    records: 0,
                    repeated: false,
                });
                self.parameters.len() - 1
            });
            self.parameters[slot].records += 1;
            self.parameters[slot].repeated |= counts[name.as_str()] > 1;
        }
    }
}

fn build_tool(group: &Group<'_>, names: &BTreeMap<usize, String>) -> ManifestTool {
    let mut path_parameters: Vec<PathParameter> = names
        .iter()
        .map(|(index, name)| {
            let form = group.rules[*index].as_ref();
            PathParameter {
                any_segment: false,
                name: name.clone(),
                observed_values: Vec::new(),
                prefix: form.map(|form| form.prefix.clone()).unwrap_or_default(),
                rule: form.map(|form| form.rule.clone()).unwrap_or_default(),
                segment_index: *index,
                suffix: form.map(|form| form.suffix.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let mut query = QueryTally::default();
    let mut statuses = BTreeSet::new();
    let mut request_media_types = BTreeSet::new();
    let mut response_media_types = BTreeSet::new();
    let mut request_body = ShapeBuilder::default();
    let mut response_body = ShapeBuilder::default();
    // Per parameter, the values observed so far: each is checked once, not against every earlier
    // one (16k item ids made the list's scan quadratic).
    let mut observed: Vec<HashSet<&str>> = vec![HashSet::new(); path_parameters.len()];
    for line in &group.members {
        let record = line.record;
        let segments = split_path(line.path);
        for (parameter, seen) in path_parameters.iter_mut().zip(&mut observed) {
            let segment = segments[parameter.segment_index];
            let value = parameter.value_in(segment).unwrap_or(segment);
            if seen.insert(value) {
                parameter.observed_values.push(CompactString::from(value));
            }
        }
        if let Some(record_query) = &record.query {
            query.add(record_query);
        }
        if record.response.status != 0 {
            statuses.insert(record.response.status);
        }
        if let Some(media_type) = record
            .request
            .media_type
            .as_deref()
            .filter(|m| !m.is_empty())
        {
            request_media_types.insert(media_type.to_owned());
        }
        if let Some(media_type) = record
            .response
            .media_type
            .as_deref()
            .filter(|m| !m.is_empty())
        {
            response_media_types.insert(media_type.to_owned());
        }
        request_body.add(&record.request.body, record.request.media_type.as_deref());
        response_body.add(&record.response.body, record.response.media_type.as_deref());
    }
    ManifestTool {
        method: group.method.to_owned(),
        name: String::new(),
        path_parameters,
        path_template: group.path_template(),
        query_parameters: query.parameters,
        record_ordinals: group
            .members
            .iter()
            .map(|line| line.record.ordinal)
            .collect(),
        request_body: request_body.finish(),
        request_media_types: request_media_types.into_iter().collect(),
        response_body: response_body.finish(),
        response_media_types: response_media_types.into_iter().collect(),
        statuses: statuses.into_iter().collect(),
        inferred_from: None,
        trailing_slash_optional: false,
    }
}

fn unknowns(records: &[CaptureRecord]) -> Vec<Unknown> {
    let authenticated = records
        .iter()
        .filter(|record| {
            record
                .request
                .headers
                .iter()
                .any(|header| header.excluded.as_deref() == Some("authentication"))
        })
        .count();
    let authorization = if authenticated == 0 {
        "Replay does not establish who may call which tool: the capture shows only the calls its own session made, and no record carried a standard authentication header.".to_owned()
    } else {
        format!(
            "Replay does not establish who may call which tool: the capture shows only the calls its own session made, and {authenticated} of its {} records carried authentication headers whose values were excluded.",
            records.len()
        )
    };
    vec![
        Unknown {
            statement: authorization,
            subject: "authorization-model".to_owned(),
        },
        Unknown {
            statement: "Replay returns recorded responses: it does not establish what other arguments would return, which fields the application computes, defaults or validates, or what its errors mean.".to_owned(),
            subject: "response-semantics".to_owned(),
        },
        Unknown {
            statement: "Replay changes nothing: it does not establish how writes change later answers; each call answers from one recording, whichever moment of the capture made it.".to_owned(),
            subject: "state-transitions".to_owned(),
        },
    ]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::template::TemplateRule;
    use crate::testing::record;

    fn project(records: &[CaptureRecord], rules: &[&str]) -> Manifest {
        project_manifest("ev_parent", records, &TemplateRules::parse(rules).unwrap()).unwrap()
    }

    fn tool<'a>(manifest: &'a Manifest, name: &str) -> &'a ManifestTool {
        manifest.tool(name).unwrap_or_else(|| {
            panic!(
                "no tool {name}; tools: {:?}",
                manifest
                    .tools
                    .iter()
                    .map(|tool| &tool.name)
                    .collect::<Vec<_>>()
            )
        })
    }

    #[test]
    fn the_card_example_projects_one_tool_per_method_and_template() {
        // contract: MANIFEST-007, MANIFEST-008, MANIFEST-010
        let records = vec![
            record(0, "GET", "https://grafana.example/")
                .answer(200, "text/html", "<html>")
                .build(),
            record(1, "GET", "https://grafana.example/public/app.js")
                .answer(200, "application/javascript", "x")
                .build(),
            record(2, "GET", "https://cdn.example/lib.json")
                .json(200, "{}")
                .build(),
            record(5, "GET", "https://grafana.example/api/users/2")
                .json(200, r#"{"id":2,"uid":"u2","login":"probe","email":"p@x"}"#)
                .build(),
            record(6, "GET", "https://grafana.example/api/users/3")
                .json(200, r#"{"id":3,"uid":"u3","login":"admin","email":"a@x"}"#)
                .build(),
            record(
                7,
                "GET",
                "https://grafana.example/api/users?perpage=10&page=1&page=2",
            )
            .json(200, "[]")
            .build(),
            record(8, "POST", "https://grafana.example/api/users")
                .send("application/json", r#"{"login":"secret-login","age":3}"#)
                .json(201, r#"{"id":4}"#)
                .build(),
            record(9, "DELETE", "https://grafana.example/api/users/4")
                .json(404, r#"{"message":"not found"}"#)
                .build(),
        ];
        let manifest = project(&records, &[]);
        assert_eq!(manifest.parent_evidence_id, "ev_parent");
        assert_eq!(manifest.primary_origin, "https://grafana.example");
        assert_eq!(manifest.name, "grafana-example");
        assert_eq!(manifest.view, "environment-manifest");
        let names: Vec<&str> = manifest
            .tools
            .iter()
            .map(|tool| tool.name.as_str())
            .collect();
        assert_eq!(
            names,
            vec![
                "get_users_by_id",
                "get_users",
                "post_users",
                "delete_users_by_id"
            ]
        );
        let get = tool(&manifest, "get_users_by_id");
        assert_eq!(get.path_template, "/api/users/{numeric}");
        assert_eq!(get.record_ordinals, vec![5, 6]);
        assert_eq!(get.path_parameters.len(), 1);
        let parameter = &get.path_parameters[0];
        assert_eq!(
            (
                parameter.name.as_str(),
                parameter.segment_index,
                parameter.rule.as_str()
            ),
            ("id", 2, "numeric")
        );
        assert_eq!(parameter.observed_values, vec!["2", "3"]);
        assert_eq!(get.statuses, vec![200]);
        assert_eq!(get.response_media_types, vec!["application/json"]);
        let list = tool(&manifest, "get_users");
        let query: Vec<(&str, u64, bool)> = list
            .query_parameters
            .iter()
            .map(|q| (q.name.as_str(), q.records, q.repeated))
            .collect();
        assert_eq!(query, vec![("perpage", 1, false), ("page", 1, true)]);
        let post = tool(&manifest, "post_users");
        let body = post.request_body.as_ref().unwrap();
        assert_eq!(body.members["login"], vec!["string"]);
        assert_eq!(body.members["age"], vec!["number"]);
        // contract: MANIFEST-009
        let json = serde_json::to_string(&manifest).unwrap();
        for value in ["secret-login", "probe", "p@x", "<html>"] {
            assert!(!json.contains(value), "{value} leaked into the manifest");
        }
        let reasons: Vec<(&str, Vec<u64>)> = manifest
            .excluded_groups
            .iter()
            .map(|group| (group.reason.as_str(), group.record_ordinals.clone()))
            .collect();
        assert_eq!(
            reasons,
            vec![
                ("page-or-asset", vec![0]),
                ("page-or-asset", vec![1]),
                ("other-origin", vec![2])
            ]
        );
        assert_eq!(
            manifest.records,
            RecordCounts {
                cited: 5,
                excluded: 3,
                total: 8
            }
        );
    }

    #[test]
    fn a_write_answered_without_a_body_is_a_tool_whatever_its_media_type() {
        // tastypie's `HttpCreated`: 201, `Content-Type: text/html`, no body, a `Location`.
        let records = vec![
            record(0, "GET", "http://app/api/authors/")
                .json(200, "[]")
                .build(),
            record(1, "POST", "http://app/api/authors/")
                .answer(201, "text/html; charset=utf-8", "")
                .build(),
            record(2, "PATCH", "http://app/api/authors/7/")
                .answer(202, "text/html; charset=utf-8", "")
                .build(),
            record(3, "POST", "http://app/login")
                .answer(200, "text/html", "<html>")
                .build(),
            record(4, "GET", "http://app/empty")
                .answer(200, "text/html", "")
                .build(),
            // A form's redirect to a page (no body) is still a page.
            record(5, "POST", "http://app/session")
                .answer(302, "text/html; charset=utf-8", "")
                .build(),
        ];
        let manifest = project(&records, &[]);
        tool(&manifest, "post_authors");
        tool(&manifest, "patch_authors_by_author_id");
        let excluded: Vec<(&str, Vec<u64>)> = manifest
            .excluded_groups
            .iter()
            .map(|group| (group.reason.as_str(), group.record_ordinals.clone()))
            .collect();
        // A write answering a page, and a read, keep their media type's verdict.
        assert_eq!(
            excluded,
            vec![
                ("page-or-asset", vec![3]),
                ("page-or-asset", vec![4]),
                ("page-or-asset", vec![5])
            ]
        );
    }

    #[test]
    fn unknowns_name_what_replay_cannot_establish() {
        // contract: REPLAY-037
        let records = vec![
            record(0, "GET", "http://app/a")
                .json(200, "{}")
                .authenticated()
                .build(),
            record(1, "GET", "http://app/b").json(200, "{}").build(),
        ];
        let manifest = project(&records, &[]);
        let subjects: Vec<&str> = manifest
            .unknowns
            .iter()
            .map(|u| u.subject.as_str())
            .collect();
        assert_eq!(
            subjects,
            vec![
                "authorization-model",
                "response-semantics",
                "state-transitions"
            ]
        );
        assert!(
            manifest.unknowns[0]
                .statement
                .contains("1 of its 2 records")
        );
    }

    #[test]
    fn the_primary_origin_has_the_most_json_like_records() {
        let records = vec![
            record(0, "GET", "http://pages.example/a")
                .answer(200, "text/html", "x")
                .build(),
            record(1, "GET", "http://pages.example/b")
                .answer(200, "text/html", "x")
                .build(),
            record(2, "GET", "http://api.example/a")
                .json(200, "{}")
                .build(),
        ];
        let manifest = project(&records, &[]);
        assert_eq!(manifest.primary_origin, "http://api.example");
        assert_eq!(manifest.tools.len(), 1);
    }

    #[test]
    fn records_without_a_request_line_are_excluded() {
        let mut no_origin = record(1, "GET", "http://app/x").build();
        no_origin.origin = None;
        let records = vec![
            record(0, "GET", "http://app/a").json(200, "{}").build(),
            no_origin,
        ];
        let manifest = project(&records, &[]);
        assert_eq!(manifest.excluded_groups.len(), 1);
        assert_eq!(manifest.excluded_groups[0].reason, "no-request-line");
        assert_eq!(manifest.excluded_groups[0].path_template, None);
    }

    #[test]
    fn a_capture_without_api_records_is_refused() {
        let records = vec![
            record(0, "GET", "http://app/")
                .answer(200, "text/html", "x")
                .build(),
        ];
        let refusal = project_manifest("ev", &records, &TemplateRules::none()).unwrap_err();
        assert_eq!(refusal.code, "unsupported_target");
        assert_eq!(refusal.stage.as_deref(), Some("inspect_analysis_view"));
        assert_eq!(
            project_manifest("ev", &[], &TemplateRules::none())
                .unwrap_err()
                .code,
            "unsupported_target"
        );
    }

    fn tiddlers() -> Vec<CaptureRecord> {
        vec![
            record(
                0,
                "GET",
                "http://wiki/recipes/default/tiddlers/Alice%20Liddell",
            )
            .json(200, r#"{"title":"Alice Liddell","text":"x"}"#)
            .build(),
            record(1, "GET", "http://wiki/recipes/default/tiddlers/Welcome")
                .json(200, r#"{"title":"Welcome","text":"y"}"#)
                .build(),
            record(
                2,
                "PUT",
                "http://wiki/recipes/default/tiddlers/Renew%20passport",
            )
            .send("application/json", r#"{"title":"Renew passport"}"#)
            .answer(204, "text/plain", "")
            .build(),
            record(3, "GET", "http://wiki/recipes/default/tiddlers/status")
                .json(200, r#"{"ok":true}"#)
                .build(),
            record(4, "GET", "http://wiki/status")
                .json(200, r#"{"username":"GUEST"}"#)
                .build(),
            record(5, "GET", "http://wiki/recipes/default/tiddlers.json")
                .json(200, r#"[{"title":"Welcome"}]"#)
                .build(),
        ]
    }

    #[test]
    fn sibling_variance_templates_values_the_answers_echo() {
        // contract: MANIFEST-004
        let without = project(&tiddlers(), &[]);
        assert_eq!(without.tools.len(), 6);
        let with = project(&tiddlers(), &["sibling-variance"]);
        let get = tool(&with, "get_recipes_default_tiddlers_by_title");
        assert_eq!(
            get.path_template,
            "/recipes/default/tiddlers/{sibling-variance}"
        );
        assert_eq!(get.record_ordinals, vec![0, 1]);
        assert_eq!(
            get.path_parameters[0].observed_values,
            vec!["Alice%20Liddell", "Welcome"]
        );
        // The silent PUT (204) joins; the literal `status` whose answer does not echo stays.
        let put = tool(&with, "put_recipes_default_tiddlers_by_title");
        assert_eq!(put.record_ordinals, vec![2]);
        assert!(with.tool("get_recipes_default_tiddlers_status").is_some());
        assert_eq!(with.template_rules, vec!["sibling-variance"]);
    }

    #[test]
    fn seeded_numbers_beside_generated_tokens_are_one_sibling_variance_parameter() {
        // Seeded numeric ids beside the random tokens the application generated for creates.
        let records = vec![
            record(0, "GET", "http://h/tasks/1")
                .json(200, r#"{"data":{"id":"1"}}"#)
                .build(),
            record(1, "GET", "http://h/tasks/s2UkrBg-nlFk2kx")
                .json(200, r#"{"data":{"id":"s2UkrBg-nlFk2kx"}}"#)
                .build(),
            record(2, "PATCH", "http://h/tasks/s2UkrBg-nlFk2kx")
                .answer(204, "text/plain", "")
                .build(),
            record(3, "PATCH", "http://h/tasks/10")
                .answer(204, "text/plain", "")
                .build(),
            record(4, "GET", "http://h/people/3")
                .json(200, r#"{"data":{"id":"3"}}"#)
                .build(),
        ];
        let with = project(&records, &["opaque-token", "sibling-variance"]);
        let templates: Vec<(&str, &str)> = with
            .tools
            .iter()
            .map(|tool| (tool.method.as_str(), tool.path_template.as_str()))
            .collect();
        assert!(
            templates.contains(&("GET", "/tasks/{sibling-variance}")),
            "{templates:?}"
        );
        assert!(
            templates.contains(&("PATCH", "/tasks/{sibling-variance}")),
            "{templates:?}"
        );
        // A family holding one shape keeps its rule.
        assert!(
            templates.contains(&("GET", "/people/{numeric}")),
            "{templates:?}"
        );
        // Without sibling variance the shapes stay apart.
        let without = project(&records, &["opaque-token"]);
        let apart: Vec<&str> = without
            .tools
            .iter()
            .filter(|tool| tool.method == "GET")
            .map(|tool| tool.path_template.as_str())
            .collect();
        assert!(apart.contains(&"/tasks/{numeric}"), "{apart:?}");
        assert!(apart.contains(&"/tasks/{opaque-token}"), "{apart:?}");
    }

    #[test]
    fn ids_of_one_collection_in_two_shapes_are_one_sibling_variance_parameter() {
        let records = vec![
            record(0, "GET", "http://h/tickets/101")
                .json(200, r#"{"id":"101"}"#)
                .build(),
            record(1, "GET", "http://h/tickets/728c")
                .json(200, r#"{"id":"728c"}"#)
                .build(),
            record(2, "GET", "http://h/tickets/866e")
                .json(200, r#"{"id":"866e"}"#)
                .build(),
            record(3, "DELETE", "http://h/tickets/105")
                .answer(204, "text/plain", "")
                .build(),
            record(4, "GET", "http://h/tickets/7")
                .json(200, r#"{"id":"other"}"#)
                .build(),
            record(5, "GET", "http://h/users/1")
                .json(200, r#"{"id":"1"}"#)
                .build(),
        ];
        let with = project(&records, &["sibling-variance"]);
        let get = with
            .tools
            .iter()
            .find(|tool| {
                tool.method == "GET" && tool.path_template == "/tickets/{sibling-variance}"
            })
            .expect("one GET tool for both shapes");
        assert_eq!(get.record_ordinals, vec![0, 1, 2]);
        let delete = tool(&with, "delete_tickets_by_id");
        assert_eq!(delete.path_template, "/tickets/{sibling-variance}");
        // A numeric id whose answer does not echo it, and another family, keep their format.
        let templates: Vec<&str> = with
            .tools
            .iter()
            .map(|tool| tool.path_template.as_str())
            .collect();
        assert!(templates.contains(&"/tickets/{numeric}"), "{templates:?}");
        assert!(templates.contains(&"/users/{numeric}"), "{templates:?}");
        let without = project(&records, &[]);
        assert!(
            without
                .tools
                .iter()
                .all(|tool| !tool.path_template.contains("sibling-variance"))
        );
    }

    #[test]
    fn prefix_variance_carries_a_parameter_into_longer_paths() {
        let records = vec![
            record(0, "GET", "http://kinto/v1/buckets/w/collections/projects").json(200, r#"{"data":{"id":"projects"}}"#).build(),
            record(1, "GET", "http://kinto/v1/buckets/w/collections/tasks").json(200, r#"{"data":{"id":"tasks"}}"#).build(),
            record(2, "GET", "http://kinto/v1/buckets/w/collections/tasks/records").json(200, r#"{"data":[]}"#).build(),
            record(3, "GET", "http://kinto/v1/buckets/w/collections/projects/records/5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11").json(200, r#"{"data":{"id":"5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11"}}"#).build(),
        ];
        let sibling_only = project(&records, &["sibling-variance"]);
        assert!(
            sibling_only
                .tool("get_buckets_w_collections_tasks_records")
                .is_some()
        );
        let both = project(&records, &["prefix-variance", "sibling-variance"]);
        assert_eq!(
            both.template_rules,
            vec!["sibling-variance", "prefix-variance"]
        );
        let list = tool(&both, "get_buckets_w_collections_records_by_collection_id");
        assert_eq!(
            list.path_template,
            "/v1/buckets/w/collections/{prefix-variance}/records"
        );
        let item = tool(
            &both,
            "get_buckets_w_collections_records_by_collection_id_and_id",
        );
        assert_eq!(
            item.path_template,
            "/v1/buckets/w/collections/{prefix-variance}/records/{uuid}"
        );
        assert_eq!(item.path_parameters[1].name, "id");
        let collection = tool(&both, "get_buckets_w_collections_by_id");
        assert_eq!(collection.record_ordinals, vec![0, 1]);
    }

    #[test]
    fn uid_literals_and_opaque_tokens_are_opt_in() {
        let records = vec![
            record(0, "GET", "http://g/api/dashboards/uid/abc")
                .json(200, r#"{"dashboard":{"uid":"abc"}}"#)
                .build(),
            record(1, "GET", "http://g/api/folders/nErXDvCkzz")
                .json(200, r#"{"uid":"nErXDvCkzz","title":"F"}"#)
                .build(),
            record(2, "DELETE", "http://g/api/folders/nErXDvCkzz")
                .json(200, r#"{"message":"deleted"}"#)
                .build(),
        ];
        let plain = project(&records, &[]);
        assert!(plain.tool("get_dashboards_uid_abc").is_some());
        assert!(plain.tool("delete_folders_n_er_xdv_ckzz").is_some());
        let ruled = project(&records, &["opaque-token", "after-uid-literal"]);
        let dashboard = tool(&ruled, "get_dashboards_uid_by_uid");
        assert_eq!(
            dashboard.path_template,
            "/api/dashboards/uid/{after-uid-literal}"
        );
        let delete = tool(&ruled, "delete_folders_by_uid");
        assert_eq!(delete.path_template, "/api/folders/{opaque-token}");
        assert!(ruled.tool("get_folders_by_uid").is_some());
        assert_eq!(
            ruled.template_rules,
            TemplateRule::ALL[..2]
                .iter()
                .map(|rule| rule.name().to_owned())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn inner_parameters_are_named_after_their_collection_and_names_stay_unique() {
        let records = vec![
            record(0, "GET", "http://app/posts/1/comments")
                .json(200, "[]")
                .build(),
            record(1, "GET", "http://app/v1/").json(200, "{}").build(),
            record(2, "GET", "http://app/").json(200, "{}").build(),
            record(3, "GET", "http://app/a-b").json(200, "{}").build(),
            record(4, "GET", "http://app/a_b").json(200, "{}").build(),
        ];
        let manifest = project(&records, &[]);
        let names: Vec<&str> = manifest
            .tools
            .iter()
            .map(|tool| tool.name.as_str())
            .collect();
        assert_eq!(
            names,
            vec![
                "get_posts_comments_by_post_id",
                "get_v1",
                "get_root",
                "get_a_b",
                "get_a_b_2"
            ]
        );
        assert!(
            names
                .iter()
                .all(|name| crate::naming::is_mcp_tool_name(name))
        );
    }

    pub(crate) fn rows() -> Vec<CaptureRecord> {
        vec![
            record(0, "GET", "http://db/tracker/tasks/1.json")
                .json(200, r#"{"rows":[{"id":1}]}"#)
                .build(),
            record(1, "GET", "http://db/tracker/tasks/14.json")
                .json(200, r#"{"rows":[{"id":14}]}"#)
                .build(),
            record(2, "GET", "http://db/tracker/tasks/2.json")
                .json(404, r#"{"ok":false}"#)
                .build(),
            record(3, "GET", "http://db/-/user/org.couchdb.user:ana")
                .json(200, r#"{"name":"ana"}"#)
                .build(),
            record(4, "GET", "http://db/-/user/org.couchdb.user:bea")
                .json(200, r#"{"name":"bea"}"#)
                .build(),
            record(5, "GET", "http://db/list/ana")
                .json(200, "[]")
                .build(),
            record(6, "GET", "http://db/list/bea")
                .json(200, "[]")
                .build(),
        ]
    }

    #[test]
    fn route_forms_make_an_id_fused_with_literal_text_one_parameter() {
        let plain = project(&rows(), &[]);
        assert!(plain.tool("get_tracker_tasks_1_json").is_some());
        assert!(plain.route_forms.is_empty());
        let manifest =
            project_manifest("ev", &rows(), &crate::testing::with_fused_affix(&[])).unwrap();
        assert_eq!(manifest.route_forms, vec!["fused-affix"]);
        let row = tool(&manifest, "get_tracker_tasks_by_id");
        assert_eq!(row.path_template, "/tracker/tasks/{numeric}.json");
        assert_eq!(row.record_ordinals, vec![0, 1, 2]);
        let parameter = &row.path_parameters[0];
        assert_eq!(
            (parameter.prefix.as_str(), parameter.suffix.as_str()),
            ("", ".json")
        );
        assert_eq!(parameter.observed_values, vec!["1", "14", "2"]);
        assert_eq!(parameter.segment_for("9"), "9.json");
        let user = tool(&manifest, "get_user_by_name");
        assert_eq!(user.path_template, "/-/user/org.couchdb.user:{fused-affix}");
        assert_eq!(user.path_parameters[0].observed_values, vec!["ana", "bea"]);
        assert_eq!(user.path_parameters[0].prefix, "org.couchdb.user:");
        let json = serde_json::to_value(&manifest).unwrap();
        assert_eq!(json["route_forms"], serde_json::json!(["fused-affix"]));
        assert_eq!(
            json["tools"][0]["path_parameters"][0]["suffix"],
            serde_json::json!(".json")
        );
        let without = serde_json::to_value(&plain).unwrap();
        assert!(
            without.get("route_forms").is_none(),
            "no form ran: no member"
        );
    }

    #[test]
    fn the_same_records_project_the_same_bytes() {
        // contract: MANIFEST-015
        let first = serde_json::to_string(&project(&tiddlers(), &["sibling-variance"])).unwrap();
        let second = serde_json::to_string(&project(&tiddlers(), &["sibling-variance"])).unwrap();
        assert_eq!(first, second);
    }
}
