//! Folder-tree depths: an inferred tool offering a tree's write at a depth the recording only
//! read (`rea_manifest::depths`, opt-in with sibling transfer: `PUT /v2/keys/{id}` beside the
//! recorded `PUT /v2/keys/{key_id}/{id}`) joins the learned writes of its source's tree (see
//! [`crate::tree_writes`]): what a write does does not depend on how deep its entry lies, so a
//! call of it takes the classes of the tree's tools of its method
//! ([`crate::tree_writes::TreeWrites::classes_for`]), and a call no class fits is refused as any
//! tree write's is. Its plan is its source's, served and inferred (`inferred_from`), confirmed
//! by the reads that confirmed the tree's writes; it cites no recorded call. It joins only a tree
//! whose prefix its template lies below and that learned at least one class of its method.
//!
//! **Reads at listed depths** ([`attach_reads`]): an inferred read one level below its source
//! (`rea_manifest::listed_depths`: a depth the tree's listings name but no read reached) takes its
//! source's folder entries, so a call naming an entry the listings show answers it as the source
//! answers entries (the entry in the source's base answer, for the queries its reads agreed on,
//! before any write; after writes, as the tree's reads are, see [`crate::tree_reads`]). Its view
//! is a recorded view citing nothing: any other call is refused as not modelled, never another
//! path's recording. A source with no folder entries lends nothing, and its inferred read keeps
//! no view (it is not offered).

use rea_manifest::Manifest;

use crate::entries::FolderEntries;
use crate::model::{ReadView, StateView, ViewDetail};
use crate::sibling_reads::SIBLING_READ;
use crate::tree_writes::TreeTool;

/// The reason of an inferred read's view: it answers entries only.
pub const LISTED_DEPTH: &str = "listed-depth";

/// Gives each inferred read of a listed depth its source's folder entries and a recorded view
/// (see the module docs).
fn attach_reads(
    manifest: &Manifest,
    views: &mut Vec<ReadView>,
    folder_entries: &mut Vec<FolderEntries>,
) {
    for tool in &manifest.tools {
        let Some(source) = tool.inferred_from.as_deref() else {
            continue;
        };
        let is_get = |method: &str| method.eq_ignore_ascii_case("GET");
        let source_is_get = manifest
            .tool(source)
            .is_some_and(|declared| is_get(&declared.method));
        if !is_get(&tool.method) || !source_is_get {
            continue;
        }
        // The view the derivation gave a read citing no record shows nothing; one a sibling
        // read was lent ([`crate::sibling_reads`], attached before the write plans) answers.
        views.retain(|view| view.tool != tool.name || view.reason() == Some(SIBLING_READ));
        if views.iter().any(|view| view.tool == tool.name) {
            continue;
        }
        let lent: Vec<FolderEntries> = folder_entries
            .iter()
            .filter(|entries| entries.tool == source)
            .map(|entries| FolderEntries {
                tool: tool.name.clone(),
                ..entries.clone()
            })
            .collect();
        if lent.is_empty() {
            continue;
        }
        folder_entries.extend(lent);
        views.push(ReadView {
            tool: tool.name.clone(),
            method: tool.method.clone(),
            path_template: tool.path_template.clone(),
            detail: ViewDetail::Recorded {
                reason: LISTED_DEPTH.to_owned(),
            },
        });
    }
}

/// Adds each inferred tool whose source is a tree's write tool to that tree, with a served,
/// inferred plan (see the module docs).
pub(crate) fn attach(manifest: &Manifest, state: &mut StateView) {
    attach_reads(manifest, &mut state.views, &mut state.folder_entries);
    for tool in &manifest.tools {
        let Some(source) = tool.inferred_from.as_deref() else {
            continue;
        };
        let Some(tree) = state
            .tree_writes
            .iter_mut()
            .find(|tree| tree.tool(source).is_some())
        else {
            continue;
        };
        let below = tool
            .path_template
            .starts_with(&format!("{}/", tree.prefix.trim_end_matches('/')));
        let learned = tree.classes_for(&tool.name, &tool.method).next().is_some();
        if !below || !learned || tree.tool(&tool.name).is_some() {
            continue;
        }
        tree.tools.push(TreeTool {
            tool: tool.name.clone(),
            method: tool.method.clone(),
            classes: Vec::new(),
        });
        let confirmed_by = tree.confirmed_by.clone();
        let Some(mut plan) = state.write_plan(source).cloned() else {
            continue;
        };
        plan.tool = tool.name.clone();
        plan.method = tool.method.clone();
        plan.path_template = tool.path_template.clone();
        plan.served = true;
        plan.reason = None;
        plan.hint = None;
        plan.contradicted_by = None;
        plan.record_ordinals = Vec::new();
        plan.confirmed_by = confirmed_by;
        plan.inferred_from = Some(source.to_owned());
        state.write_plans.retain(|known| known.tool != tool.name);
        state.write_plans.push(plan);
    }
}
