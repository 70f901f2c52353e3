//! The `guidance` family: `guided_workflows` (list or render a workflow), `search_guidance` and
//! `read_guidance_section`. All three are target-free: they read no capture, start no analysis
//! and change no session state.

use std::sync::Arc;

use rea_evidence::Refusal;
use serde_json::{Map, Value, json};

use super::object;
use crate::catalog::tool_names::{GUIDED_WORKFLOWS, READ_GUIDANCE_SECTION, SEARCH_GUIDANCE};
use crate::catalog::{
    FAMILY_GUIDANCE, ToolCatalog, ToolContext, ToolOutcome, ToolSpec, read_only_annotations,
};
use crate::error::SelfMcpError;
use crate::guidance::search::{SearchRequest, locator_argument};
use crate::schema::{FieldIssue, issues_data};
use crate::workflows::{ScopedWorkflows, WorkflowRefusal};

/// Registers the three guidance tools.
pub fn register_guidance_tools(catalog: &mut ToolCatalog) -> Result<(), SelfMcpError> {
    catalog.register(guided_workflows_spec(), Arc::new(guided_workflows))?;
    catalog.register(search_guidance_spec(), Arc::new(search_guidance))?;
    catalog.register(
        read_guidance_section_spec(),
        Arc::new(read_guidance_section),
    )?;
    Ok(())
}

fn guided_workflows_spec() -> ToolSpec {
    ToolSpec {
        name: GUIDED_WORKFLOWS.into(),
        family: FAMILY_GUIDANCE.into(),
        title: "Guided workflows".into(),
        description: "Lists rea's guided investigation workflows (`action: \"list\"`) or renders one (`action: \"render\"` with `workflow_id` and string `arguments`). Rendering returns guidance text only: it inspects no target, starts no analysis and changes no session state. The same workflows are offered as MCP prompts.".into(),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "render"], "description": "`list` the workflows, or `render` one."},
                "workflow_id": {"type": "string", "description": "The workflow to render (render only)."},
                "arguments": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "The workflow's arguments, all strings (render only)."
                }
            },
            "required": ["action"],
            "additionalProperties": false
        })),
        annotations: read_only_annotations(),
    }
}

fn search_guidance_spec() -> ToolSpec {
    ToolSpec {
        name: SEARCH_GUIDANCE.into(),
        family: FAMILY_GUIDANCE.into(),
        title: "Search guidance".into(),
        description: "Searches the installed guidance bundle (how to record an application, read coverage and withheld-write hints, measure fidelity, drive rea over MCP) by question. Every non-generic word must occur in a section or its subsections. Returns at most 20 matches per page, each with a locator for read_guidance_section, its match_scope and content_length. Results are documentation; a no-match result says nothing about what rea can analyse.".into(),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The question, in words."},
                "page": {"type": "integer", "minimum": 1, "description": "The 1-based page (default 1)."}
            },
            "required": ["query"],
            "additionalProperties": false
        })),
        annotations: read_only_annotations(),
    }
}

fn read_guidance_section_spec() -> ToolSpec {
    ToolSpec {
        name: READ_GUIDANCE_SECTION.into(),
        family: FAMILY_GUIDANCE.into(),
        title: "Read a guidance section".into(),
        description: "Reads the complete guidance section a search_guidance locator names, subsections included. A locator from another bundle version is reported stale without content: search again.".into(),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "locator": {"type": "string", "description": "A locator search_guidance returned."}
            },
            "required": ["locator"],
            "additionalProperties": false
        })),
        annotations: read_only_annotations(),
    }
}

fn search_guidance(arguments: &Map<String, Value>, context: &ToolContext) -> ToolOutcome {
    SearchRequest::from_arguments(arguments)
        .and_then(|request| crate::guidance::search(&context.guidance, &request))
        .into()
}

fn read_guidance_section(arguments: &Map<String, Value>, context: &ToolContext) -> ToolOutcome {
    locator_argument(arguments)
        .and_then(|locator| crate::guidance::read(&context.guidance, &locator))
        .into()
}

fn guided_workflows(arguments: &Map<String, Value>, context: &ToolContext) -> ToolOutcome {
    run_guided_workflows(&context.workflows, arguments).into()
}

/// The `guided_workflows` contract, shared by the tool and `rea guided-workflows`:
/// `{"action": "list"}` or `{"action": "render", "workflow_id", "arguments"?}`.
pub fn run_guided_workflows(
    workflows: &ScopedWorkflows,
    arguments: &Map<String, Value>,
) -> Result<Value, Refusal> {
    let action = arguments
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("list");
    match action {
        "list" => list_workflows(workflows, arguments),
        "render" => render_workflow(workflows, arguments),
        other => Err(issues_refusal(vec![FieldIssue::new(
            "/action",
            "not_allowed",
            format!("`action` must be `list` or `render`, not `{other}`"),
        )])),
    }
}

/// `{"action": "list"}`: the workflows in scope; `workflow_id` and `arguments` are refused.
fn list_workflows(
    workflows: &ScopedWorkflows,
    arguments: &Map<String, Value>,
) -> Result<Value, Refusal> {
    let mut issues = Vec::new();
    for key in ["workflow_id", "arguments"] {
        if arguments.contains_key(key) {
            issues.push(FieldIssue::new(
                format!("/{key}"),
                "not_allowed",
                format!("`action: \"list\"` takes no `{key}`"),
            ));
        }
    }
    if !issues.is_empty() {
        return Err(issues_refusal(issues));
    }
    Ok(workflows.list())
}

/// `{"action": "render", "workflow_id", "arguments"?}`: one workflow rendered with the values.
fn render_workflow(
    workflows: &ScopedWorkflows,
    arguments: &Map<String, Value>,
) -> Result<Value, Refusal> {
    let id = match arguments.get("workflow_id") {
        Some(Value::String(id)) => id,
        Some(_) => {
            return Err(issues_refusal(vec![FieldIssue::new(
                "/workflow_id",
                "wrong_type",
                "`workflow_id` must be a string",
            )]));
        }
        None => {
            return Err(issues_refusal(vec![FieldIssue::new(
                "/workflow_id",
                "required",
                "`action: \"render\"` needs a `workflow_id`",
            )]));
        }
    };
    let empty = Map::new();
    let values = match arguments.get("arguments") {
        None => &empty,
        Some(Value::Object(values)) => values,
        Some(_) => {
            return Err(issues_refusal(vec![FieldIssue::new(
                "/arguments",
                "wrong_type",
                "`arguments` must be an object of strings",
            )]));
        }
    };
    match workflows.render(id, values, "/arguments") {
        Ok(rendered) => Ok(json!({
            "kind": "guided-workflow",
            "workflow_id": rendered.id,
            "description": rendered.description,
            "text": rendered.text,
        })),
        Err(WorkflowRefusal::NotFound(id)) => Err(Refusal::new(
            "workflow_not_found",
            "input",
            format!("no guided workflow `{id}` is available with the tools in scope"),
        )
        .at("/workflow_id")
        .with_data(issues_data(&[FieldIssue::new(
            "/workflow_id",
            "not_found",
            format!("`{id}` is not an available workflow"),
        )]))),
        Err(WorkflowRefusal::InvalidArguments(issues)) => Err(issues_refusal(issues)),
    }
}

/// An `invalid_request` refusal at the first issue's pointer, carrying every issue.
pub fn issues_refusal(issues: Vec<FieldIssue>) -> Refusal {
    let first = issues.first().cloned();
    let message = issues
        .iter()
        .map(|issue| format!("{}: {}", issue.path, issue.message))
        .collect::<Vec<_>>()
        .join("; ");
    let mut refusal = Refusal::invalid_request(message).with_data(issues_data(&issues));
    if let Some(first) = first {
        refusal = refusal.at(first.path);
    }
    refusal
}
