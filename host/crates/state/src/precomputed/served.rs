//! The part of a kept record a server reads: its ordinal, its request line (path and query), its
//! request body and that body's media type, and its response status, media type and body. The
//! replay environment ([`rea_manifest::Environment`]: the request inputs its catalog describes and
//! the answers it replays), the recorded request lines a state call is matched against
//! ([`crate::recorded`]) and the records a state answer quotes ([`crate::answer::KeptRecord`]) read
//! nothing else. A server reading a precomputed state types its records in this form
//! ([`super::read_served_from`]): the members no server reads (the URL, origin, pointer, method,
//! start time, duration, headers, HTTP versions and status text) are skipped where they are read,
//! never allocated; on the synthetic 32 MiB capture they were some 280,000 small strings held
//! beside the kept bodies until the state service was built, and the holes they left stayed
//! resident (issue 17).

use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, CompactString, RecordQuery, RecordRequest, RecordResponse,
};
use serde::Deserialize;

/// A kept record as a server reads it (see the module documentation); the members it skips are
/// not checked either: the body they are read from is the one its header names (its SHA-256),
/// written by a build that typed them.
#[derive(Debug, Deserialize)]
pub(crate) struct ServedRecord {
    ordinal: u64,
    path: Option<CompactString>,
    query: Option<RecordQuery>,
    request: ServedRequest,
    response: ServedResponse,
}

#[derive(Debug, Deserialize)]
struct ServedRequest {
    body: Body,
    media_type: Option<CompactString>,
}

#[derive(Debug, Deserialize)]
struct ServedResponse {
    body: Body,
    media_type: Option<CompactString>,
    status: u16,
}

impl From<ServedRecord> for CaptureRecord {
    /// The capture record of the served part, every member a server does not read empty (none
    /// of them allocates).
    fn from(served: ServedRecord) -> Self {
        CaptureRecord {
            duration_ms: None,
            method: None,
            ordinal: served.ordinal,
            origin: None,
            path: served.path,
            pointer: CompactString::default(),
            query: served.query,
            request: RecordRequest {
                body: served.request.body,
                headers: Vec::new(),
                http_version: None,
                media_type: served.request.media_type,
            },
            response: RecordResponse {
                body: served.response.body,
                headers: Vec::new(),
                http_version: None,
                media_type: served.response.media_type,
                status: served.response.status,
                status_text: None,
            },
            started: None,
            url: None,
        }
    }
}

/// The served part of a whole record (what [`super::read_served_from`] reads of it).
pub fn served_part(record: &CaptureRecord) -> CaptureRecord {
    CaptureRecord::from(ServedRecord {
        ordinal: record.ordinal,
        path: record.path.clone(),
        query: record.query.clone(),
        request: ServedRequest {
            body: record.request.body.clone(),
            media_type: record.request.media_type.clone(),
        },
        response: ServedResponse {
            body: record.response.body.clone(),
            media_type: record.response.media_type.clone(),
            status: record.response.status,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = r#"{"duration_ms":3.5,"method":"POST","ordinal":7,"origin":"http://h","path":"/items","pointer":"/log/entries/7","query":{"pairs":[["a","1"]],"raw":"a=1"},"request":{"body":{"kind":"text","text":"{\"x\":1}"},"headers":[{"excluded":null,"name":"Accept","value":"*/*"}],"http_version":"HTTP/1.1","media_type":"application/json"},"response":{"body":{"kind":"text","text":"{\"id\":1}"},"headers":[{"excluded":null,"name":"Content-Type","value":"application/json"}],"http_version":"HTTP/1.1","media_type":"application/json","status":201,"status_text":"Created"},"started":{"instant":"2024-01-01T00:00:00Z","recorded":"2024-01-01T00:00:00Z"},"url":"http://h/items?a=1"}"#;

    #[test]
    fn a_served_record_keeps_what_a_server_reads_and_nothing_else() {
        let whole: CaptureRecord = serde_json::from_str(RECORD).unwrap();
        let served: ServedRecord = rea_plugin_api::json::from_slice_exact(RECORD.as_bytes())
            .expect("a served record reads a whole record's text");
        let served = CaptureRecord::from(served);
        assert_eq!(served, served_part(&whole));
        assert_eq!(served.ordinal, 7);
        assert_eq!(served.path.as_deref(), Some("/items"));
        assert_eq!(served.query, whole.query);
        assert_eq!(served.request.body, whole.request.body);
        assert_eq!(served.request.media_type, whole.request.media_type);
        assert_eq!(served.response.body, whole.response.body);
        assert_eq!(served.response.media_type, whole.response.media_type);
        assert_eq!(served.response.status, 201);
        // What no server reads is not kept.
        assert_eq!(served.url, None);
        assert_eq!(served.method, None);
        assert_eq!(served.origin, None);
        assert_eq!(served.started, None);
        assert_eq!(served.duration_ms, None);
        assert!(served.pointer.is_empty());
        assert!(served.request.headers.is_empty() && served.response.headers.is_empty());
        assert_eq!(served.response.status_text, None);
        assert_ne!(served, whole);
    }
}
