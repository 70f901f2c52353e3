//! A write the state has no target for, whose path extends a held item's path (a sub-resource of
//! that item), explains the item's change a later read shows: the item's own write is not blamed
//! for it as a side effect, and the sub-resource write stays withheld. Two recorded applications:
//! PouchDB Server's attachment `PUT /{db}/{doc}/{attachment}` changes the document's `_rev` and
//! `_attachments` (`build.har`: the document `PUT`s stay served), Jupyter Server's checkpoint
//! restore `POST /api/contents/{dir}/{file}/checkpoints/{id}` puts the file's saved content back
//! (the contents `DELETE` stays served).

use crate::state_support::{corpus_write_plans, plan_of as plan};

#[test]
fn an_attachment_put_explains_its_document_change_and_stays_withheld() {
    let plans = corpus_write_plans("pouchdb-server");
    // The attachment `PUT` (build call 50) changes `book:kindred`'s `_rev` and `_attachments`
    // (read 52); before this rule that change was charged to the document `PUT` as a side effect.
    let document = plan(&plans, "put_root_by_segment_0_and_id");
    assert_eq!(document["served"], true, "{document:#}");
    assert!(
        !document["confirmed_by"]
            .as_array()
            .expect("confirmed_by")
            .is_empty(),
        "{document:#}"
    );
    let attachment = plan(&plans, "put_root_by_segment_0_and_segment_1_and_id");
    assert_eq!(attachment["served"], false, "{attachment:#}");
    assert_eq!(attachment["reason"], "no-state-target", "{attachment:#}");
}

#[test]
fn a_checkpoint_restore_explains_its_file_change_and_stays_withheld() {
    let plans = corpus_write_plans("jupyter_server");
    // The restore (build call 40) puts `notes/standup.md` back to its checkpoint; before this rule
    // the file's change was charged to the later contents `DELETE` as a side effect.
    let delete = plan(&plans, "delete_contents_by_content_id_and_name");
    assert_eq!(delete["served"], true, "{delete:#}");
    let restore = plan(
        &plans,
        "post_contents_checkpoints_by_content_id_and_segment_3_and_id",
    );
    assert_eq!(restore["served"], false, "{restore:#}");
    assert_eq!(restore["reason"], "no-state-target", "{restore:#}");
}
