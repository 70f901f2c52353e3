//! The built-in route forms of rea: which literal segments of recorded paths become path
//! parameters of the manifest's tools, and which part of a segment (stages of kind `route-form`,
//! run in the order the pipeline's `[manifest] route_forms` names them, after the host's format
//! rules and the view's template rules).
//!
//! * `fused-affix` ([`fused`]): an id fused with literal text in one segment (`7.json`,
//!   `org.couchdb.user:name`) is a parameter between that prefix and suffix.
//! * `folder-tree` ([`folder`]): the entries of a folder tree whose listings name them by path
//!   (`/config/billing`, `notes/todo.md`) are parameters, one tool per depth.

pub mod folder;
pub mod fused;
mod routes;

use rea_plugin_api::{Plugin, StageInfo};

pub use folder::{FOLDER_TREE, FolderTree};
pub use fused::{FUSED_AFFIX, FusedAffix};

rea_plugin_api::plugin_root_module! {
    /// The root module of the built-in route forms.
    pub fn root_module() = Plugin::new("rea-route-forms", env!("CARGO_PKG_VERSION"))
        .route_form(
            StageInfo::new(FUSED_AFFIX, "An id fused with literal text in one segment (7.json, org.couchdb.user:name) is a parameter between that prefix and suffix"),
            FusedAffix,
        )
        .route_form(
            StageInfo::new(FOLDER_TREE, "The entries of a folder tree whose listings name them by path (/config/billing, notes/todo.md) are parameters, one tool per depth"),
            FolderTree,
        );
}

rea_plugin_api::submit_builtin!(root_module);
