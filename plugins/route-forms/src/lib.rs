//! The built-in route forms of rea: which literal segments of recorded paths become path
//! parameters of the manifest's tools, and which part of a segment (stages of kind `route-form`,
//! run in the order the pipeline's `[manifest] route_forms` names them, after the host's format
//! rules and the view's template rules).
//!
//! * `fused-affix` ([`fused`]): an id fused with literal text in one segment (`7.json`,
//!   `org.couchdb.user:name`) is a parameter between that prefix and suffix.
//! * `folder-tree` ([`folder`]): the entries of a folder tree whose listings name them by path
//!   (`/config/billing`, `notes/todo.md`) are parameters, one tool per depth.
//! * `listed-id` ([`listed`]): an item segment in no known format (`a2`, `Call the plumber`) is a
//!   parameter when its collection's listing names it, or a sibling route's parameter took it, or
//!   an item route's parameter took it before an action on that item (`6,infra/-/delete`), or
//!   every value its sibling routes hold there is an id an item route took
//!   (`/-/package/{name}/dist-tags`), or a listing names it beside its siblings' values (`PUT
//!   /loans` beside `GET /{db}`, `_all_dbs` listing all three), or the route is one more call of
//!   a family whose parameters took its values (`/@corp%2Fui-kit/2.0.0-beta.1` beside
//!   `/{name}/{version}`); it also says which write routes act on the entity such a parameter
//!   names ([`action`]: `/{table}/{pk}/-/update`).
//! * `member-key` ([`keyed`]): a last segment its parent route's answer names as a key of a map
//!   (`versions/1.0.0`, `_attachments/cover.txt`) is a parameter once two such parts are recorded.

pub mod action;
mod beside;
mod family;
pub mod folder;
pub mod fused;
pub mod keyed;
pub mod listed;
mod multi_index;
mod routes;

use rea_plugin_api::{Plugin, StageInfo};

pub use folder::{FOLDER_TREE, FolderTree};
pub use fused::{FUSED_AFFIX, FusedAffix};
pub use keyed::{MEMBER_KEY, MemberKey};
pub use listed::{LISTED_ID, ListedId};

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
        )
        .route_form(
            StageInfo::new(LISTED_ID, "An item segment in no known format (a2, Call the plumber) is a parameter when its collection's listing names it, a sibling route's parameter took that value, or an item route's parameter took it before an action on that item (6,infra/-/delete)"),
            ListedId,
        )
        .route_form(
            StageInfo::new(MEMBER_KEY, "A last segment its parent route's answer names as a key of a map (versions/1.0.0, _attachments/cover.txt) is a parameter once two such parts are recorded"),
            MemberKey,
        );
}

rea_plugin_api::submit_builtin!(root_module);
