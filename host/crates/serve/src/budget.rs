//! The `/agentenv` response budget: one response carries at most 64 MiB of replies.
//!
//! Replies are written in order, as they are produced, straight into the response body through a
//! writer that stores bytes only while they fit and counts the rest. Before each reply, room is
//! kept for every later reply's fallback (its budget error, or its already known invalid-request
//! error) and for the batch's commas and closing bracket, so a reply that would take the response
//! past the budget is never stored whole: it is replaced by `-32000` whose `data` gives
//! `max_response_bytes` and the `reply_bytes` it would have taken. The call still ran. A reply no
//! larger than its fallback always fits, because that room was kept for it.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::backend::RpcError;

/// 64 MiB: twice the 32 MiB a loaded state document may hold.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a RpcError>,
}

/// A reply's JSON bytes (`{"jsonrpc":"2.0","id":…,"result"|"error":…}`).
pub fn reply_bytes(id: &RawValue, outcome: Result<&Value, &RpcError>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = BoundedWriter::new(&mut out, usize::MAX);
    write_reply(&mut writer, id, outcome);
    out
}

fn write_reply(writer: &mut BoundedWriter<'_>, id: &RawValue, outcome: Result<&Value, &RpcError>) {
    let (result, error) = match outcome {
        Ok(value) => (Some(value), None),
        Err(error) => (None, Some(error)),
    };
    let reply = Reply {
        jsonrpc: "2.0",
        id,
        result,
        error,
    };
    // The writer never fails, and serializing a `Value` cannot fail.
    let _ = serde_json::to_writer(writer, &reply);
}

/// The error that replaces a reply over the budget.
pub fn budget_error(max_response_bytes: usize, reply_bytes: u64) -> RpcError {
    RpcError::new(
        RpcError::SERVER_ERROR,
        "response too large: the reply would exceed the response budget; repeat the call in another request",
    )
    .with_data(serde_json::json!({
        "max_response_bytes": max_response_bytes,
        "reply_bytes": reply_bytes,
    }))
}

/// The room a reply slot whose fallback is the budget error keeps (the error with the longest
/// possible `reply_bytes`).
pub fn budget_error_room(id: &RawValue, max_response_bytes: usize) -> usize {
    reply_bytes(id, Err(&budget_error(max_response_bytes, u64::MAX))).len()
}

/// Stores bytes while they fit in `room`, counts all of them.
struct BoundedWriter<'a> {
    out: &'a mut Vec<u8>,
    room: usize,
    total: u64,
    overflow: bool,
}

impl<'a> BoundedWriter<'a> {
    fn new(out: &'a mut Vec<u8>, room: usize) -> Self {
        Self {
            out,
            room,
            total: 0,
            overflow: false,
        }
    }
}

impl Write for BoundedWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.total += buf.len() as u64;
        if !self.overflow {
            if buf.len() <= self.room {
                self.out.extend_from_slice(buf);
                self.room -= buf.len();
            } else {
                self.overflow = true;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Assembles one response: a single reply, or a batch array.
#[derive(Debug)]
pub struct Assembler {
    out: Vec<u8>,
    max: usize,
    batch: bool,
    /// The fallback room of every slot; `rest[i]` is what slots after `i` keep, commas and the
    /// closing bracket included.
    rest: Vec<usize>,
    next: usize,
}

impl Assembler {
    /// An assembler for `rooms.len()` replies (`rooms[i]`: the fallback room of reply `i`) within
    /// `max` bytes.
    pub fn new(max: usize, batch: bool, rooms: &[usize]) -> Self {
        let mut rest = vec![0; rooms.len()];
        let mut after = usize::from(batch); // the closing bracket
        for index in (0..rooms.len()).rev() {
            rest[index] = after;
            after += rooms[index] + usize::from(batch && index > 0);
        }
        let mut out = Vec::new();
        if batch {
            out.push(b'[');
        }
        Self {
            out,
            max,
            batch,
            rest,
            next: 0,
        }
    }

    /// Writes the next reply, or its budget error when it does not fit. Returns whether the reply
    /// itself was kept.
    pub fn push(&mut self, id: &RawValue, outcome: Result<&Value, &RpcError>) -> bool {
        let index = self.next;
        self.next += 1;
        if self.batch && index > 0 {
            self.out.push(b',');
        }
        let start = self.out.len();
        let reserved = self.rest.get(index).copied().unwrap_or(0);
        let room = self.max.saturating_sub(start + reserved);
        let mut writer = BoundedWriter::new(&mut self.out, room);
        write_reply(&mut writer, id, outcome);
        let (overflow, total) = (writer.overflow, writer.total);
        if !overflow {
            return true;
        }
        self.out.truncate(start);
        let error = budget_error(self.max, total);
        let mut writer = BoundedWriter::new(&mut self.out, usize::MAX);
        write_reply(&mut writer, id, Err(&error));
        false
    }

    /// The response body.
    pub fn finish(mut self) -> Vec<u8> {
        if self.batch {
            self.out.push(b']');
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    // contract: DATA-045, DATA-049, DATA-050
    #[test]
    fn a_single_reply_over_the_budget_becomes_the_budget_error() {
        let big = Value::String("x".repeat(1000));
        let small = json!({});
        let one = id("1");
        let room = budget_error_room(&one, 400);

        let mut fits = Assembler::new(2000, false, &[room]);
        assert!(fits.push(&one, Ok(&big)));
        let body: Value = serde_json::from_slice(&fits.finish()).unwrap();
        assert_eq!(body["result"], big);

        let mut over = Assembler::new(400, false, &[room]);
        assert!(!over.push(&one, Ok(&big)));
        let body: Value = serde_json::from_slice(&over.finish()).unwrap();
        let full = reply_bytes(&one, Ok(&big)).len() as u64;
        assert_eq!(body["id"], 1);
        assert_eq!(body["error"]["code"], -32000);
        assert_eq!(
            body["error"]["data"],
            json!({"max_response_bytes": 400, "reply_bytes": full})
        );

        let mut tiny = Assembler::new(400, false, &[room]);
        assert!(tiny.push(&one, Ok(&small)));
    }

    // contract: DATA-047, DATA-048, DATA-051
    #[test]
    fn batch_replies_keep_room_for_every_later_fallback() {
        let ids: Vec<Box<RawValue>> = (1..=4).map(|n| id(&n.to_string())).collect();
        let max = 1500;
        let rooms: Vec<usize> = ids.iter().map(|i| budget_error_room(i, max)).collect();
        let reserved: usize = rooms.iter().sum::<usize>() + 3 + 2;
        // Reply 1 may take everything but the later replies' room; a bigger one is refused.
        let first_room = max - 1 - (reserved - 1 - rooms[0]);
        let filler = |size: usize| {
            let empty = reply_bytes(&ids[0], Ok(&Value::String(String::new()))).len();
            Value::String("y".repeat(size - empty))
        };
        let exact = filler(first_room);
        let mut assembler = Assembler::new(max, true, &rooms);
        assert!(assembler.push(&ids[0], Ok(&exact)));
        for later in &ids[1..] {
            // Small replies (no larger than their fallback) always fit.
            assert!(assembler.push(later, Ok(&json!({}))));
        }
        let body = assembler.finish();
        assert!(body.len() <= max, "{} > {max}", body.len());
        let parsed: Vec<Value> = serde_json::from_slice(&body).unwrap();
        assert_eq!(parsed.len(), 4);

        let mut over = Assembler::new(max, true, &rooms);
        assert!(!over.push(&ids[0], Ok(&filler(first_room + 1))));
        for later in &ids[1..] {
            let big = Value::String("z".repeat(max));
            assert!(!over.push(later, Ok(&big)));
        }
        let body = over.finish();
        assert!(body.len() <= max);
        let parsed: Vec<Value> = serde_json::from_slice(&body).unwrap();
        assert!(parsed.iter().all(|reply| reply["error"]["code"] == -32000));
        assert_eq!(parsed[3]["id"], 4);
    }
}
