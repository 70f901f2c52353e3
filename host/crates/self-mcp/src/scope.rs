//! The tool scope: which families `rea mcp` advertises (`REA_MCP_TOOL_FAMILIES`).
//!
//! Unset means every family. The value lists family names separated by commas or whitespace.
//! Decision: a set but blank value, or a family no tool belongs to, is `configuration_invalid`
//! before anything is served, so a typo never silently hides every tool.

use std::collections::BTreeSet;

use rea_evidence::Refusal;
use serde_json::{Value, json};

/// The environment variable that limits the advertised families.
pub const TOOL_FAMILIES_ENV: &str = "REA_MCP_TOOL_FAMILIES";

/// Which families are advertised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolScope {
    /// Every family.
    All,
    /// Only these families.
    Families(BTreeSet<String>),
}

impl ToolScope {
    /// Parses a scope value against the families the catalog knows.
    pub fn parse(value: &str, known: &BTreeSet<String>, source: &str) -> Result<Self, Refusal> {
        let families: BTreeSet<String> = value
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|part| !part.is_empty())
            .map(str::to_owned)
            .collect();
        if families.is_empty() {
            return Err(Refusal::configuration_invalid(format!(
                "{source} is set but names no tool family; unset it to serve every family"
            ))
            .with_data(json!({"known_families": known})));
        }
        let unknown: Vec<&String> = families.difference(known).collect();
        if !unknown.is_empty() {
            return Err(Refusal::configuration_invalid(format!(
                "{source} names {} no tool belongs to",
                unknown
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .with_data(json!({"unknown_families": unknown, "known_families": known})));
        }
        Ok(Self::Families(families))
    }

    /// Reads `REA_MCP_TOOL_FAMILIES`.
    pub fn from_env(known: &BTreeSet<String>) -> Result<Self, Refusal> {
        match std::env::var(TOOL_FAMILIES_ENV) {
            Ok(value) => Self::parse(&value, known, TOOL_FAMILIES_ENV),
            Err(std::env::VarError::NotPresent) => Ok(Self::All),
            Err(std::env::VarError::NotUnicode(_)) => Err(Refusal::configuration_invalid(format!(
                "{TOOL_FAMILIES_ENV} is not valid Unicode"
            ))),
        }
    }

    /// Whether a family is advertised.
    pub fn admits(&self, family: &str) -> bool {
        match self {
            Self::All => true,
            Self::Families(families) => families.contains(family),
        }
    }

    /// The selected families among the known ones.
    pub fn selected(&self, known: &BTreeSet<String>) -> BTreeSet<String> {
        known
            .iter()
            .filter(|family| self.admits(family))
            .cloned()
            .collect()
    }

    /// `{"all": true}` or `{"families": [...]}`.
    pub fn describe(&self) -> Value {
        match self {
            Self::All => json!({"all": true}),
            Self::Families(families) => json!({"all": false, "families": families}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeSet<String> {
        ["capture", "guidance", "views"]
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_list_selects_its_families() {
        let scope = ToolScope::parse("guidance, views", &known(), "test").expect("scope");
        assert!(scope.admits("guidance"));
        assert!(scope.admits("views"));
        assert!(!scope.admits("capture"));
    }

    #[test]
    fn blank_and_unknown_families_are_configuration_errors() {
        let blank = ToolScope::parse(" , ", &known(), "test").expect_err("blank");
        assert_eq!(blank.code, "configuration_invalid");
        let unknown = ToolScope::parse("guidance,captures", &known(), "test").expect_err("typo");
        assert_eq!(unknown.code, "configuration_invalid");
        assert!(unknown.message.contains("`captures`"));
    }
}
