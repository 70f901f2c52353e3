//! The JSON contracts that cross the plugin boundary, as serde types.
//!
//! Every request and answer carries `schema_version` ([`SCHEMA_VERSION`]). Add optional members
//! freely (readers ignore none: unknown members are refused only where a contract says so); bump
//! the version for any change an older reader would misread.

pub mod capture;
pub mod query;
pub mod route;
pub mod rule;
pub mod session;
pub mod tool;

/// The schema version of every payload this API version defines.
pub const SCHEMA_VERSION: u32 = 1;

/// A payload that names its schema version.
pub trait SchemaVersioned {
    /// The contract's name, for error messages.
    const CONTRACT: &'static str;
    /// The payload's `schema_version`.
    fn schema_version(&self) -> u32;
}

macro_rules! schema_versioned {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl $crate::contracts::SchemaVersioned for $ty {
            const CONTRACT: &'static str = $name;
            fn schema_version(&self) -> u32 {
                self.schema_version
            }
        })*
    };
}
pub(crate) use schema_versioned;

/// serde default for `schema_version`.
pub fn current_schema_version() -> u32 {
    SCHEMA_VERSION
}

/// A list read without the room it grew beyond its items: a list grown by doubling holds up to
/// twice its size (a one-header list, four). Records are kept (the build's, a server's), and a
/// route form holds the whole route-form request while it works (issue 17).
pub(crate) fn exact_list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    let mut items = <Vec<T> as serde::Deserialize>::deserialize(deserializer)?;
    items.shrink_to_fit();
    Ok(items)
}
