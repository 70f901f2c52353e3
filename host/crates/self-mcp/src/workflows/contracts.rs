//! The six guided workflows, rendered for rea's tools: their arguments, the tools they require,
//! and their starting points, each naming the tools it suggests so a step whose tools are out of
//! scope is left out.

use crate::catalog::tool_names::{
    COMPARE_ENVIRONMENT, INSPECT_ANALYSIS_VIEW, INSPECT_WEB_NETWORK_CAPTURE, READ_GUIDANCE_SECTION,
    SEARCH_GUIDANCE,
};

/// Where completion for an argument comes from (live projections of the session ledger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionSource {
    /// Every retained Evidence id.
    Evidence,
    /// Retained capture Evidence ids (the reference's documents and process captures).
    Capture,
    /// Retained environment manifest ids.
    Manifest,
    /// Retained capture and manifest ids, and the `.har` files and bundle folders under the
    /// server's working directory as absolute paths ([`crate::paths`]).
    CaptureOrPath,
    /// The active manifest's tools: every `METHOD /path/template` and each name one tool holds
    /// (the reference's procedures).
    ManifestTool,
    /// Withheld-write tools of the latest coverage, and the active manifest's unknowns (the
    /// reference's residual unknowns).
    ResidualUnknown,
}

/// One argument of a workflow. Every value is a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgumentContract {
    /// The argument name.
    pub name: &'static str,
    /// What to pass.
    pub description: &'static str,
    /// Whether it must be given.
    pub required: bool,
    /// Completion source; only optional arguments that accept a session value have one.
    pub completion: Option<CompletionSource>,
}

/// What every argument with completion adds to its description: suggestions are what the
/// session retained, so no suggestion never means that nothing exists.
pub const COMPLETION_CAVEAT: &str = "Completion suggests identifiers this session already retained, and reads nothing new: an empty suggestion list does not mean that none exist.";

/// The caveat of an argument that takes a path: completion also lists the working directory.
pub const PATH_COMPLETION_CAVEAT: &str = "Completion suggests identifiers this session retained and the .har files and bundle folders under the server's working directory (three levels deep, as absolute paths): an empty suggestion list does not mean that none exist.";

impl ArgumentContract {
    /// The description `prompts/list` and the workflow list advertise: the description, and
    /// for an argument with completion, [`COMPLETION_CAVEAT`].
    pub fn advertised_description(&self) -> String {
        match self.completion {
            Some(CompletionSource::CaptureOrPath) => {
                format!("{} {PATH_COMPLETION_CAVEAT}", self.description)
            }
            Some(_) => format!("{} {COMPLETION_CAVEAT}", self.description),
            None => self.description.to_owned(),
        }
    }
}

/// One optional starting point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkflowStep {
    /// Every tool the text names; the step is rendered only when all are in scope.
    pub tools: &'static [&'static str],
    /// The text (markdown, one paragraph).
    pub text: &'static str,
}

/// One guided workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkflowContract {
    /// The workflow id (the MCP prompt name).
    pub id: &'static str,
    /// A short title.
    pub title: &'static str,
    /// One sentence for `prompts/list`.
    pub description: &'static str,
    /// What the agent is asked to do.
    pub goal: &'static str,
    /// Arguments, in order.
    pub arguments: &'static [ArgumentContract],
    /// Tools that must all be in scope for the workflow to be advertised.
    pub required_tools: &'static [&'static str],
    /// Starting points, in order.
    pub steps: &'static [WorkflowStep],
    /// Whether the tools of families rea does not ship (plugin families) are offered as
    /// optional routes after the steps; they never make the workflow unavailable.
    pub contributed_routes: bool,
}

const GUIDANCE: &[&str] = &[SEARCH_GUIDANCE, READ_GUIDANCE_SECTION];

/// The six workflows, in the spec's order.
pub const WORKFLOWS: &[WorkflowContract] = &[
    WorkflowContract {
        id: "investigate_feature",
        title: "Investigate a feature",
        description: "Trace a feature from a recording into the manifest tools, records and fields that carry it.",
        goal: "trace the feature named in the selection data from the recorded traffic into the tools, records and fields that carry it: which environment manifest tools serve it, which recorded records show it, and which request and response fields hold its values.",
        arguments: &[
            ArgumentContract {
                name: "feature",
                description: "The feature to trace, in the application's words (\"offline search\", \"archive a project\").",
                required: true,
                completion: None,
            },
            ArgumentContract {
                name: "document",
                description: "Optional: a retained capture Evidence id to trace the feature in (completion offers the session's captures).",
                required: false,
                completion: Some(CompletionSource::Capture),
            },
            ArgumentContract {
                name: "procedure",
                description: "Optional: a tool of the active environment manifest to start from, by name or as `METHOD /path/template` (completion offers them).",
                required: false,
                completion: Some(CompletionSource::ManifestTool),
            },
        ],
        required_tools: &[INSPECT_ANALYSIS_VIEW],
        steps: &[
            WorkflowStep {
                tools: &[INSPECT_WEB_NETWORK_CAPTURE],
                text: "If you have a HAR file but no retained capture Evidence, call `inspect_web_network_capture` with the file's absolute path; the capture Evidence it returns lists every record.",
            },
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Project the environment manifest with `inspect_analysis_view`, using the retained capture as its source (`{\"kind\": \"retained-evidence\", \"evidence_id\": …}`; the `document` value, when given, names it). The manifest has one tool per method and path template, with path parameters, query parameter names, body shapes and the ordinals of the records each tool cites.",
            },
            WorkflowStep {
                tools: &[],
                text: "Find the tools whose path templates, query parameter names or body keys relate to the feature; when `procedure` is given, start from that tool. Then read the records those tools cite in the capture Evidence for the request and response fields whose values carry the feature.",
            },
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Project the environment coverage view from the same source to see whether those tools answer from the observed state or from their recordings, and whether the feature's writes are served or withheld.",
            },
            WorkflowStep {
                tools: GUIDANCE,
                text: "When a write the feature needs is withheld, search the guidance with `search_guidance` (for example the withheld reason) and read the section with `read_guidance_section` for what to record next.",
            },
        ],
        contributed_routes: true,
    },
    WorkflowContract {
        id: "compare_application_versions",
        title: "Compare application versions",
        description: "Compare two recordings or manifests of an application: what its tool surface and observed state gained, lost or changed.",
        goal: "compare the two sides named in the selection data (two versions of the application, or the same application before and after a change): which tools the manifest gained, lost or changed, and how the observed state and the served writes differ.",
        arguments: &[
            ArgumentContract {
                name: "baseline",
                description: "The earlier side: a HAR path, or a retained capture or manifest Evidence id (completion offers both).",
                required: true,
                completion: Some(CompletionSource::CaptureOrPath),
            },
            ArgumentContract {
                name: "candidate",
                description: "The later side: a HAR path, or a retained capture or manifest Evidence id (completion offers both).",
                required: true,
                completion: Some(CompletionSource::CaptureOrPath),
            },
        ],
        required_tools: &[INSPECT_ANALYSIS_VIEW],
        steps: &[
            WorkflowStep {
                tools: &[INSPECT_WEB_NETWORK_CAPTURE],
                text: "For a side given as a HAR path, inspect it first with `inspect_web_network_capture`, then use its retained capture Evidence as the source of that side's manifest.",
            },
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Project the environment manifest of each side with `inspect_analysis_view`, giving both the same `template_rules` so their path templates are comparable.",
            },
            WorkflowStep {
                tools: &[],
                text: "Compare tool by tool, by method and path template: tools added, tools removed, and tools whose path parameters, query parameter names, body shapes, statuses or media types changed.",
            },
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Project the coverage view of each side to compare which reads answer from the observed state and which writes each environment serves or withholds.",
            },
            WorkflowStep {
                tools: &[],
                text: "A tool present on one side only may just be unrecorded on the other: say which differences come from what was recorded rather than from the application.",
            },
        ],
        contributed_routes: false,
    },
    WorkflowContract {
        id: "verify_reconstruction",
        title: "Verify a reconstruction",
        description: "Evaluate a finite reconstruction specification against an environment's coverage and retained comparison Evidence.",
        goal: "evaluate the finite reconstruction specification in the selection data against the environment: for each item, decide whether the environment reproduces it, contradicts it, or whether the Evidence cannot tell.",
        arguments: &[
            ArgumentContract {
                name: "specification",
                description: "The behaviours the environment must reproduce, as a finite list (reads, writes read back, error answers).",
                required: true,
                completion: None,
            },
            ArgumentContract {
                name: "environment",
                description: "Optional: the retained environment manifest Evidence id of the environment (completion offers the session's manifests).",
                required: false,
                completion: Some(CompletionSource::Manifest),
            },
            ArgumentContract {
                name: "comparison_evidence",
                description: "Optional: a retained Evidence id holding a comparison of the environment with the application (completion offers the session's Evidence).",
                required: false,
                completion: Some(CompletionSource::Evidence),
            },
        ],
        required_tools: &[INSPECT_ANALYSIS_VIEW],
        steps: &[
            WorkflowStep {
                tools: &[],
                text: "Split the specification into finite, checkable items: a read a tool answers, a write that is served and read back, an error answer for a missing id.",
            },
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Project the coverage view with `inspect_analysis_view` from the environment's capture (the manifest named by `environment` cites it as its parent) to see which reads answer from the state, which writes are served, and why the others are withheld.",
            },
            WorkflowStep {
                tools: &[COMPARE_ENVIRONMENT],
                text: "Without `comparison_evidence`, measure the environment with `compare_environment`: the manifest (`environment`), the capture it was projected from, and probes recorded on the live application (capture Evidence of call sequences made after a restart from the same seed). The comparison Evidence it returns, which the session retains, is the comparison Evidence for the next step.",
            },
            WorkflowStep {
                tools: &[],
                text: "Where comparison Evidence is given (`comparison_evidence`) or was just made, judge each item from the steps that exercise it: `agrees`, `categories` and `differences` (`status`, `missing-field`, `value`, `not-served`, `no-tool`, …) and the per-tool agreement; an item no probe step exercised, or whose records are listed under `unobserved_records`, is not verified. Without comparison Evidence, judge from coverage alone and mark the item as not verified against the application.",
            },
            WorkflowStep {
                tools: GUIDANCE,
                text: "Read the guidance on measuring fidelity (`search_guidance` with \"fidelity probes\", then `read_guidance_section`) for what agreement does and does not establish.",
            },
        ],
        contributed_routes: false,
    },
    WorkflowContract {
        id: "trace_crash",
        title: "Trace a crash",
        description: "Correlate a failing call or error response with the recorded calls before it.",
        goal: "correlate the failing call or error response in the selection data with the calls recorded before it: which earlier writes changed what it touched, which preconditions it lacked, and whether the environment answers it from the state or replays it.",
        arguments: &[
            ArgumentContract {
                name: "symptom",
                description: "The failing call or error response: method and path, status, error body or message.",
                required: true,
                completion: None,
            },
            ArgumentContract {
                name: "capture",
                description: "Optional: the retained capture Evidence id that recorded it (completion offers the session's captures).",
                required: false,
                completion: Some(CompletionSource::Capture),
            },
        ],
        required_tools: &[INSPECT_WEB_NETWORK_CAPTURE],
        steps: &[
            WorkflowStep {
                tools: &[INSPECT_WEB_NETWORK_CAPTURE],
                text: "Inspect the recording with `inspect_web_network_capture` unless `capture` names retained capture Evidence, and find the records matching the symptom by status, method, path and error body.",
            },
            WorkflowStep {
                tools: &[],
                text: "Walk back through the earlier records: writes that changed what the failing call touched, reads that showed the entity before, and missing preconditions such as an `If-Match` from an earlier read, a CSRF token or a sign-in.",
            },
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Project the environment manifest with `inspect_analysis_view` to name the tool of each involved record, and the coverage view to see whether the environment answers it from the state or replays it.",
            },
            WorkflowStep {
                tools: &[],
                text: "The recording shows requests and responses only, not the server's logs: keep what the records show apart from what you infer about the server's behaviour.",
            },
        ],
        contributed_routes: false,
    },
    WorkflowContract {
        id: "audit_residual_unknowns",
        title: "Audit residual unknowns",
        description: "Audit what an environment cannot establish: its manifest's unknowns and withheld writes, with what to record next.",
        goal: "audit what the environment cannot establish: the manifest's unknowns and the writes its state withholds, and for each one the evidence that would resolve it.",
        arguments: &[
            ArgumentContract {
                name: "manifest",
                description: "Optional: the retained environment manifest Evidence id to audit (completion offers the session's manifests).",
                required: false,
                completion: Some(CompletionSource::Manifest),
            },
            ArgumentContract {
                name: "unknown",
                description: "Optional: one residual unknown to focus on, such as a withheld write tool (completion offers the current ones).",
                required: false,
                completion: Some(CompletionSource::ResidualUnknown),
            },
        ],
        required_tools: &[INSPECT_ANALYSIS_VIEW],
        steps: &[
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Read the unknowns of the manifest named by `manifest` (or project it with `inspect_analysis_view`): the authorization model, response semantics and state transitions a recording cannot establish.",
            },
            WorkflowStep {
                tools: &[INSPECT_ANALYSIS_VIEW],
                text: "Project the coverage view from the same capture (`inspect_analysis_view` with `{\"kind\": \"environment-coverage\"}`): each withheld write in `writes.withheld` (`unknown`, when given, names one by its `tool`) has a `reason`, a `hint`, the `exemplar_ordinal` of the record it was modelled on and `contradicted_by`, the read that disagreed with it, if any.",
            },
            WorkflowStep {
                tools: GUIDANCE,
                text: "For each withheld reason, search the guidance with `search_guidance` (the reason, such as \"no-observation\") and read the section with `read_guidance_section` for what to record next.",
            },
            WorkflowStep {
                tools: &[],
                text: "Classify each unknown: resolvable by another recording (name the calls and their order), not modelled by design (side effects), or needing the application's own documentation. An unknown is resolved only by Evidence that shows the answer, never by an inference.",
            },
        ],
        contributed_routes: false,
    },
    WorkflowContract {
        id: "prepare_bounded_process_capture",
        title: "Prepare a bounded capture",
        description: "Design a bounded recording of an application (browser scenario or HAR session) before it is run.",
        goal: "design a bounded recording of the application in the selection data before it is run: which calls, in which order, against which instance, with which limits and credentials. The result is a plan; nothing is recorded.",
        arguments: &[
            ArgumentContract {
                name: "application",
                description: "The application to record: its name, version and base URL.",
                required: true,
                completion: None,
            },
            ArgumentContract {
                name: "goal",
                description: "Optional: the features and writes the environment must serve.",
                required: false,
                completion: None,
            },
            ArgumentContract {
                name: "capture",
                description: "Optional: a retained capture Evidence id of an earlier recording to improve on (completion offers the session's captures).",
                required: false,
                completion: Some(CompletionSource::Capture),
            },
        ],
        required_tools: &[SEARCH_GUIDANCE, READ_GUIDANCE_SECTION],
        steps: &[
            WorkflowStep {
                tools: GUIDANCE,
                text: "Read the recording guidance: `search_guidance` with \"record application environment\", then `read_guidance_section` on the match, for reads before writes, read-backs, spacing, two creates with different members, flips and credentials.",
            },
            WorkflowStep {
                tools: &[],
                text: "Bound the experiment: one origin, a seeded instance whose data may change, the collections and writes in scope, a fixed list of steps and a time budget. Say what is out of scope.",
            },
            WorkflowStep {
                tools: &[],
                text: "Write the steps in order: lists and reads by id first; query reads from the first page; per type a create with every field and one with only the required fields, each read back by id and in its list; a pause of more than a second; updates read back; each flag or action flipped both ways with reads; deletes read back; a read of a missing id.",
            },
            WorkflowStep {
                tools: &[],
                text: "Plan credentials: a throwaway account, secrets declared so the recorder redacts them, and which values (custom key headers, query tokens, tokens in bodies) will remain in the capture and must be scrubbed or rotated.",
            },
            WorkflowStep {
                tools: &[INSPECT_WEB_NETWORK_CAPTURE, INSPECT_ANALYSIS_VIEW],
                text: "After recording, inspect the capture with `inspect_web_network_capture` and project the coverage view from it with `inspect_analysis_view`; when `capture` names an earlier recording, start from its coverage and plan only the calls its withheld writes need.",
            },
        ],
        contributed_routes: false,
    },
];
