//! The environment card (`GET /.well-known/agent-env.json`) and the discovery reservation.
//!
//! A replay card reads, members in this order:
//!
//! ```json
//! {"name": "…", "protocolVersion": "1.0", "url": "/agentenv", "preferredTransport": "JSONRPC",
//!  "additionalInterfaces": [{"url": "/mcp", "transport": "mcp"}],
//!  "capabilities": {"extensions": null, "tools": [{"name", "description", "inputSchema"}], "operations": []},
//!  "children_environments": null}
//! ```
//!
//! The discovery reservation admits a catalog only when its charge is at most 1 MiB. The charge
//! walks the MCP `tools/list` result (every tool with its annotations: a superset of the card's
//! tools, which are not charged twice) and the card's other members: each JSON
//! string (keys included) costs six bytes per UTF-16 code unit plus its quotes, other scalars
//! their spelling, containers their brackets and separators; schema overhead adds 256 bytes per
//! tool and 32 per argument. So a catalog can be refused while its compact JSON is smaller.

use serde::Serialize;
use serde_json::Value;

use rea_evidence::Refusal;

use crate::catalog::{InputSchema, ToolDefinition};

/// The discovery reservation, in bytes.
pub const DISCOVERY_RESERVATION: u64 = 1024 * 1024;
/// Reserved schema overhead per tool.
pub const TOOL_OVERHEAD: u64 = 256;
/// Reserved schema overhead per argument.
pub const ARGUMENT_OVERHEAD: u64 = 32;

/// The environment card.
#[derive(Debug, Clone, Serialize)]
pub struct EnvironmentCard {
    /// The served environment name.
    pub name: String,
    /// Always `1.0`.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: &'static str,
    /// The data plane: `/agentenv`.
    pub url: &'static str,
    /// Always `JSONRPC`.
    #[serde(rename = "preferredTransport")]
    pub preferred_transport: &'static str,
    /// `[{"url": "/mcp", "transport": "mcp"}]`.
    #[serde(rename = "additionalInterfaces")]
    pub additional_interfaces: Vec<CardInterface>,
    /// Extensions, tools and data-plane operations.
    pub capabilities: CardCapabilities,
    /// Always `null` (no children).
    pub children_environments: Option<Value>,
}

/// An interface the card advertises besides the data plane.
#[derive(Debug, Clone, Serialize)]
pub struct CardInterface {
    /// The route.
    pub url: &'static str,
    /// The transport.
    pub transport: &'static str,
}

/// The card's capabilities.
#[derive(Debug, Clone, Serialize)]
pub struct CardCapabilities {
    /// `null` in replay.
    pub extensions: Option<Value>,
    /// The tools, as MCP lists them but without annotations.
    pub tools: Vec<CardTool>,
    /// `[]` in replay.
    pub operations: Vec<String>,
}

/// A card tool: the echo example's shape (`name`, `description`, `inputSchema`).
#[derive(Debug, Clone, Serialize)]
pub struct CardTool {
    /// The tool name.
    pub name: String,
    /// The description (with the catalog warning).
    pub description: String,
    /// The input schema.
    #[serde(rename = "inputSchema")]
    pub input_schema: InputSchema,
}

impl EnvironmentCard {
    /// The replay card of a catalog under a served name.
    pub fn replay(name: &str, tools: &[ToolDefinition]) -> Self {
        Self {
            name: name.to_owned(),
            protocol_version: "1.0",
            url: "/agentenv",
            preferred_transport: "JSONRPC",
            additional_interfaces: vec![CardInterface {
                url: "/mcp",
                transport: "mcp",
            }],
            capabilities: CardCapabilities {
                extensions: None,
                tools: tools
                    .iter()
                    .map(|tool| CardTool {
                        name: tool.name.clone(),
                        description: tool.description.clone(),
                        input_schema: tool.input_schema.clone(),
                    })
                    .collect(),
                operations: Vec::new(),
            },
            children_environments: None,
        }
    }

    /// The card as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// What the discovery reservation charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiscoveryCharge {
    /// The charge, in bytes.
    pub charged_bytes: u64,
    /// The reservation, in bytes.
    pub limit_bytes: u64,
}

/// Charges a catalog and its card against the reservation; over it is `resource_constraint`.
pub fn check_discovery_reservation(
    tools: &[ToolDefinition],
    card: &EnvironmentCard,
) -> Result<DiscoveryCharge, Refusal> {
    let charged_bytes = discovery_charge(tools, card);
    let charge = DiscoveryCharge {
        charged_bytes,
        limit_bytes: DISCOVERY_RESERVATION,
    };
    if charged_bytes > DISCOVERY_RESERVATION {
        return Err(Refusal::resource_constraint(format!(
            "the tool catalog ({} tools) is charged {charged_bytes} bytes against the {DISCOVERY_RESERVATION}-byte discovery reservation; project a smaller capture or manifest",
            tools.len()
        ))
        .with_data(serde_json::json!({
            "charged_bytes": charged_bytes,
            "limit_bytes": DISCOVERY_RESERVATION,
            "tools": tools.len(),
        })));
    }
    Ok(charge)
}

/// The reservation charge of a catalog and its card (see the module docs).
pub fn discovery_charge(tools: &[ToolDefinition], card: &EnvironmentCard) -> u64 {
    let listed = serde_json::to_value(tools).unwrap_or(Value::Null);
    let arguments: u64 = tools
        .iter()
        .map(|tool| tool.input_schema.arguments.len() as u64)
        .sum();
    let mut header = card.clone();
    header.capabilities.tools.clear();
    value_charge(&listed)
        + value_charge(&header.to_json())
        + TOOL_OVERHEAD * tools.len() as u64
        + ARGUMENT_OVERHEAD * arguments
}

fn string_charge(text: &str) -> u64 {
    6 * text.encode_utf16().count() as u64 + 2
}

fn value_charge(value: &Value) -> u64 {
    match value {
        Value::Null => 4,
        Value::Bool(flag) => {
            if *flag {
                4
            } else {
                5
            }
        }
        Value::Number(number) => number.to_string().len() as u64,
        Value::String(text) => string_charge(text),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) as u64 + items.iter().map(value_charge).sum::<u64>()
        }
        Value::Object(members) => {
            2 + members.len().saturating_sub(1) as u64
                + members
                    .iter()
                    .map(|(name, member)| string_charge(name) + 1 + value_charge(member))
                    .sum::<u64>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{ManifestTool, QueryParameter};

    fn tool_with_queries(count: usize, name_length: usize) -> ManifestTool {
        ManifestTool {
            method: "GET".into(),
            name: "get_search".into(),
            path_parameters: Vec::new(),
            path_template: "/search".into(),
            query_parameters: (0..count)
                .map(|n| QueryParameter {
                    name: format!("{n:0>width$}", width = name_length),
                    records: 1,
                    repeated: false,
                })
                .collect(),
            record_ordinals: vec![0],
            request_body: None,
            request_media_types: Vec::new(),
            response_body: None,
            response_media_types: Vec::new(),
            statuses: vec![200],
            inferred_from: None,
            trailing_slash_optional: false,
        }
    }

    #[test]
    fn the_card_has_the_replay_shape() {
        let tool = crate::catalog::build_tool(
            &tool_with_queries(1, 4),
            "ev_x",
            std::iter::empty(),
            &Default::default(),
        );
        let card = EnvironmentCard::replay("grafana-example", &[tool]);
        let text = serde_json::to_string(&card).unwrap();
        // The members in the reference's order, and nothing after the card's own.
        assert!(text.starts_with(
            r#"{"name":"grafana-example","protocolVersion":"1.0","url":"/agentenv","preferredTransport":"JSONRPC","additionalInterfaces":[{"url":"/mcp","transport":"mcp"}],"capabilities":{"extensions":null,"tools":[{"name":"get_search","description":"#
        ));
        assert!(text.ends_with(
            r#""additionalProperties":false}}],"operations":[]},"children_environments":null}"#
        ));
        let json = card.to_json();
        // contract: CARD-002
        assert_eq!(json["name"], "grafana-example");
        // contract: CARD-003
        assert_eq!(json["protocolVersion"], "1.0");
        // contract: CARD-004
        assert_eq!(json["url"], "/agentenv");
        // contract: CARD-005
        assert_eq!(json["preferredTransport"], "JSONRPC");
        // contract: CARD-006
        assert_eq!(
            json["additionalInterfaces"],
            serde_json::json!([{"url": "/mcp", "transport": "mcp"}])
        );
        let capabilities = json["capabilities"].as_object().unwrap();
        let members: Vec<&str> = capabilities.keys().map(String::as_str).collect();
        // contract: CARD-007
        assert_eq!(members, ["extensions", "operations", "tools"]);
        // contract: CARD-008
        assert!(
            json.as_object()
                .unwrap()
                .contains_key("children_environments")
        );
        // contract: CARD-009
        assert!(capabilities["extensions"].is_null());
        // contract: CARD-010
        assert_eq!(capabilities["operations"], serde_json::json!([]));
        // contract: CARD-011
        assert!(json["children_environments"].is_null());
        let tool = &json["capabilities"]["tools"][0];
        let keys: Vec<&str> = tool
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        // contract: CARD-012
        assert!(
            ["name", "description", "inputSchema"]
                .iter()
                .all(|key| keys.contains(key))
        );
        // contract: CARD-014
        assert_eq!(keys.len(), 3);
        // contract: CARD-014
        assert!(tool.get("annotations").is_none());
    }

    #[test]
    fn the_reservation_charges_six_bytes_per_code_unit() {
        // contract: MANIFEST-018, MANIFEST-019, MANIFEST-021, MANIFEST-022
        let tool = crate::catalog::build_tool(
            &tool_with_queries(1500, 12),
            "ev_x",
            std::iter::empty(),
            &Default::default(),
        );
        let tools = vec![tool];
        let card = EnvironmentCard::replay("calibration", &tools);
        // The calibration case (1500 query fields) is admitted, at several times its compact size.
        let charge = check_discovery_reservation(&tools, &card).unwrap();
        let compact = serde_json::to_string(&tools).unwrap().len() as u64;
        assert!(
            charge.charged_bytes > 3 * compact,
            "{charge:?} vs {compact}"
        );
        // A catalog whose compact JSON is under 1 MiB is still refused when its charge is over.
        let big = crate::catalog::build_tool(
            &tool_with_queries(2500, 40),
            "ev_x",
            std::iter::empty(),
            &Default::default(),
        );
        let tools = vec![big];
        let card = EnvironmentCard::replay("calibration", &tools);
        let compact = serde_json::to_string(&tools).unwrap().len() as u64;
        assert!(compact < 1024 * 1024); // the spec's 1 MiB reservation (MANIFEST-018)
        let refusal = check_discovery_reservation(&tools, &card).unwrap_err();
        assert_eq!(refusal.code, "resource_constraint");
        assert_eq!(refusal.data.unwrap()["tools"], 1);
    }
}
