//! Reused answers: the encoded answer of a fast-path `tools/call`, kept per tool, answer shape and
//! argument text while the backend vouches that a call would answer the same
//! ([`crate::backend::ToolBackend::answer_generation`]).
//!
//! Why: under load most calls repeat a read; answering one again costs the backend's match, the
//! credential scan and the answer's serialization (in a session about half the user-space work of
//! a call). A reused answer costs a table look-up and one copy.
//!
//! What is kept: the encoded answer after its JSON-RPC id (`,"result":{…}}`, and for an SSE event
//! the blank line closing it), taken from the answer the SDK's types wrote for the first call, so
//! the answer to a later call is the same bytes around its own id
//! ([`crate::fast_path`] checks that the first answer is spelled `{"jsonrpc":"2.0","id":<id>,`
//! before keeping it). Arguments are keyed by their text as the caller wrote it (a text decides
//! the arguments it parses to, so equal texts answer alike; other spellings of the same
//! arguments are kept apart, among them the same members in another order, which an answer
//! repeating the call as sent spells otherwise: [`crate::arguments::SentOrder`]). An entry is answered only while the backend's generation is the one
//! it was answered at, and kept only when the generation did not move while it was answered (no
//! write landed meanwhile). Bounded: an answer over [`MAX_ENTRY_BYTES`] is not kept, and the
//! table is emptied when it would pass [`MAX_TABLE_BYTES`].

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use axum::body::Bytes;

use crate::journal::AnswerSource;

/// The largest answer kept.
pub const MAX_ENTRY_BYTES: usize = 256 * 1024;
/// The most bytes the table holds (answers and argument texts) before it is emptied.
pub const MAX_TABLE_BYTES: usize = 8 * 1024 * 1024;

/// How an answer is shaped for its caller: the stateless revision's JSON, or a session's SSE
/// event at a revision before 2026-07-28 (whose results keep that revision's shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `application/json` at 2026-07-28.
    Stateless,
    /// `text/event-stream` in a session of an earlier revision.
    Legacy,
}

/// What the journal records of a call, kept to record a reused answer alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallNote {
    /// The arguments' digest ([`crate::journal::members_digest`]).
    pub digest: Arc<str>,
    /// Where the answer came from.
    pub source: AnswerSource,
    /// `ok`, or the error document's code.
    pub status: Arc<str>,
}

/// One kept answer.
#[derive(Debug)]
pub struct Reused {
    /// The backend's generation the answer was given at.
    pub generation: u64,
    /// The encoded answer after its id.
    pub tail: Bytes,
    /// What the journal recorded of the call.
    pub note: CallNote,
}

/// The kept answers of one server.
#[derive(Debug)]
pub struct AnswerCache {
    table: RwLock<Table>,
}

#[derive(Debug, Default)]
struct Table {
    /// Per tool position and shape (`position * 2 + shape`), by argument text.
    answers: Vec<HashMap<Box<str>, Arc<Reused>>>,
    bytes: usize,
}

impl AnswerCache {
    /// An empty table for a catalog of `tools` tools.
    pub fn new(tools: usize) -> Self {
        Self {
            table: RwLock::new(Table {
                answers: (0..tools * 2).map(|_| HashMap::new()).collect(),
                bytes: 0,
            }),
        }
    }

    /// The answer kept for the tool at `position`, the shape and the argument text, when it was
    /// given at `generation`.
    pub fn get(
        &self,
        position: usize,
        shape: Shape,
        arguments: &str,
        generation: u64,
    ) -> Option<Arc<Reused>> {
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        let reused = table.answers.get(slot(position, shape))?.get(arguments)?;
        (reused.generation == generation).then(|| Arc::clone(reused))
    }

    /// Keeps an answer (replacing one kept for the same call); an answer over
    /// [`MAX_ENTRY_BYTES`] is not kept, and the table is emptied first when it would pass
    /// [`MAX_TABLE_BYTES`].
    pub fn put(&self, position: usize, shape: Shape, arguments: &str, reused: Reused) {
        let size = reused.tail.len() + arguments.len() + reused.note.status.len();
        if size > MAX_ENTRY_BYTES {
            return;
        }
        let mut table = self.table.write().unwrap_or_else(PoisonError::into_inner);
        if table.bytes + size > MAX_TABLE_BYTES {
            table.answers.iter_mut().for_each(HashMap::clear);
            table.bytes = 0;
        }
        let Some(answers) = table.answers.get_mut(slot(position, shape)) else {
            return;
        };
        let replaced = answers.insert(arguments.into(), Arc::new(reused));
        let freed = replaced.map_or(0, |old| {
            old.tail.len() + arguments.len() + old.note.status.len()
        });
        table.bytes = table.bytes + size - freed;
    }

    /// How many bytes the table holds.
    pub fn bytes(&self) -> usize {
        self.table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes
    }
}

fn slot(position: usize, shape: Shape) -> usize {
    position * 2 + usize::from(shape == Shape::Legacy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reused(generation: u64, tail: &str) -> Reused {
        Reused {
            generation,
            tail: Bytes::from(tail.to_owned()),
            note: CallNote {
                digest: "0123456789ab".into(),
                source: AnswerSource::RecordingExact,
                status: "ok".into(),
            },
        }
    }

    #[test]
    fn an_answer_is_found_only_for_its_call_shape_and_generation() {
        let cache = AnswerCache::new(2);
        cache.put(
            1,
            Shape::Stateless,
            r#"{"id":"1"}"#,
            reused(7, ",\"result\":{}}"),
        );
        let hit = cache.get(1, Shape::Stateless, r#"{"id":"1"}"#, 7).unwrap();
        assert_eq!(&hit.tail[..], b",\"result\":{}}");
        assert!(cache.get(1, Shape::Stateless, r#"{"id":"1"}"#, 8).is_none());
        assert!(cache.get(1, Shape::Legacy, r#"{"id":"1"}"#, 7).is_none());
        assert!(cache.get(0, Shape::Stateless, r#"{"id":"1"}"#, 7).is_none());
        assert!(
            cache
                .get(1, Shape::Stateless, r#"{"id": "1"}"#, 7)
                .is_none()
        );
        assert!(cache.get(2, Shape::Stateless, r#"{"id":"1"}"#, 7).is_none());
    }

    #[test]
    fn a_newer_answer_replaces_the_kept_one_and_its_bytes() {
        let cache = AnswerCache::new(1);
        cache.put(0, Shape::Legacy, "", reused(1, "abcd"));
        assert_eq!(cache.bytes(), 4 + 2);
        cache.put(0, Shape::Legacy, "", reused(2, "ab"));
        assert_eq!(cache.bytes(), 2 + 2);
        assert!(cache.get(0, Shape::Legacy, "", 1).is_none());
        assert!(cache.get(0, Shape::Legacy, "", 2).is_some());
    }

    #[test]
    fn the_table_stays_within_its_bounds() {
        let cache = AnswerCache::new(1);
        cache.put(
            0,
            Shape::Stateless,
            "big",
            reused(0, &"x".repeat(MAX_ENTRY_BYTES)),
        );
        assert!(cache.get(0, Shape::Stateless, "big", 0).is_none());
        let answer = "y".repeat(MAX_ENTRY_BYTES / 2);
        for call in 0..(2 * MAX_TABLE_BYTES / answer.len()) {
            cache.put(0, Shape::Stateless, &call.to_string(), reused(0, &answer));
            assert!(cache.bytes() <= MAX_TABLE_BYTES);
            assert!(
                cache
                    .get(0, Shape::Stateless, &call.to_string(), 0)
                    .is_some()
            );
        }
    }
}
