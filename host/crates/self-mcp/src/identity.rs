//! The served identity: the scoped contracts (tools and workflows in scope), their digest, and
//! the `rea mcp doctor` report. The server, the doctor and rendering all derive from the same
//! [`ScopedContracts`], so guidance never names a tool the scope leaves out.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::catalog::ToolCatalog;
use crate::guidance::BundleSource;
use crate::scope::ToolScope;
use crate::workflows::ScopedWorkflows;

/// The server name `rea mcp` reports.
pub const SERVER_NAME: &str = "rea";
/// The server version (the crate version).
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The contracts a scope advertises.
#[derive(Debug, Clone)]
pub struct ScopedContracts {
    /// The scope.
    pub scope: ToolScope,
    /// Every family the catalog knows.
    pub known_families: BTreeSet<String>,
    /// Names of the tools in scope.
    pub tools: BTreeSet<String>,
    /// The workflows the tools in scope advertise.
    pub workflows: Arc<ScopedWorkflows>,
    /// `sha256:<hex>` of the canonical contracts document.
    pub digest: String,
    /// The contracts document the digest covers.
    pub document: Value,
}

impl ScopedContracts {
    /// Scopes a catalog.
    pub fn new(catalog: &ToolCatalog, scope: &ToolScope) -> Self {
        let tools = catalog.names_in_scope(scope);
        let workflows = Arc::new(ScopedWorkflows::with_contributed(
            tools.clone(),
            catalog.contributed_in_scope(scope),
        ));
        let known_families = catalog.families();
        let document = json!({
            "server": {"name": SERVER_NAME, "version": SERVER_VERSION},
            "families": scope.selected(&known_families),
            "tools": catalog.in_scope(scope).map(|entry| {
                let mut tool = entry.spec.to_mcp();
                tool["family"] = json!(entry.spec.family);
                tool
            }).collect::<Vec<_>>(),
            "prompts": workflows.contracts_report(),
        });
        let digest = format!(
            "sha256:{}",
            hex::encode(Sha256::digest(canonical_json(&document).as_bytes()))
        );
        Self {
            scope: scope.clone(),
            known_families,
            tools,
            workflows,
            digest,
            document,
        }
    }

    /// The advertised prompt names.
    pub fn prompt_names(&self) -> Vec<&'static str> {
        self.workflows
            .advertised()
            .iter()
            .map(|contract| contract.id)
            .collect()
    }
}

/// The `rea mcp doctor` report: served identity, scope, tools, workflows, guidance bundle.
pub fn doctor_report(
    catalog: &ToolCatalog,
    contracts: &ScopedContracts,
    scope_source: &str,
    guidance: &BundleSource,
) -> Value {
    let guidance_status = match guidance.load() {
        Ok(bundle) => json!({
            "status": "available",
            "source": source_name(guidance),
            "bundle": bundle.identity(),
            "files": bundle.files.len(),
            "sections": bundle.sections.len(),
        }),
        Err(refusal) => json!({
            "status": "unavailable",
            "source": source_name(guidance),
            "refusal": refusal,
        }),
    };
    json!({
        "server": {"name": SERVER_NAME, "version": SERVER_VERSION},
        "identity_digest": contracts.digest,
        "scope": {
            "source": scope_source,
            "selected": contracts.scope.describe(),
            "families": contracts.scope.selected(&contracts.known_families),
            "known_families": contracts.known_families,
        },
        "tools": catalog.entries().map(|entry| json!({
            "name": entry.spec.name,
            "family": entry.spec.family,
            "in_scope": contracts.tools.contains(&entry.spec.name),
        })).collect::<Vec<_>>(),
        "prompts": contracts.workflows.advertised().iter().map(|contract| json!({
            "name": contract.id,
            "required_tools": contract.required_tools,
            "contributed_routes": contracts.workflows.contributed_routes(contract),
            "arguments": contract.arguments.iter().map(|argument| json!({
                "name": argument.name,
                "required": argument.required,
                "completion": argument.completion.is_some(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "omitted_prompts": contracts.workflows.omitted().iter().map(|(contract, missing)| json!({
            "name": contract.id,
            "missing_tools": missing,
        })).collect::<Vec<_>>(),
        "capabilities": {
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "completions": true,
        },
        "guidance": guidance_status,
    })
}

fn source_name(source: &BundleSource) -> Value {
    match source {
        BundleSource::Embedded => json!("embedded"),
        BundleSource::Directory(path) => json!(path.display().to_string()),
    }
}

/// JSON with object keys sorted at every level and no insignificant whitespace, whatever the
/// map implementation serde_json was built with.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (index, key) in keys.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push(':');
                write_canonical(&map[*key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
