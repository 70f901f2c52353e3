//! `rea-evidence`: what every stage of `rea` shares about Evidence.
//!
//! * [`refusal`]: the structured error every command and tool answers with
//!   (`{code, category, message, pointer?}`).
//! * [`envelope`]: the Evidence envelope: sealing any JSON object under an operation name
//!   (`evidence_id` = `ev_` + SHA-256 of the canonical serialization of everything else) and
//!   authenticating an Evidence document read back.
//! * [`file`]: bounded, change-detecting reading of an input file.
//! * [`capture`]: capture Evidence (`inspect_web_network_capture`): building it from an
//!   extractor's answer, and reading its records back as typed values.
//! * [`rewrite`]: capture Evidence written again from its typed records, checked against the
//!   digest of the bytes sealed at inspection.
//! * [`credential_names`]: which recorded names look like credentials.
//! * [`test_hooks`]: the variables only tests set, compiled only with the `test-hooks` feature.

// `Refusal` is the one error shape of every stage (about 160 bytes); refusals end an operation, so
// their size never matters on a hot path and boxing them would only complicate every caller.
#![allow(clippy::result_large_err)]

pub mod capture;
pub mod credential_names;
pub mod envelope;
pub mod file;
pub mod refusal;
pub mod rewrite;
pub mod streamed;
pub mod test_hooks;

pub use envelope::{EVIDENCE_ID_PREFIX, Evidence, evidence_id_of};
pub use file::{
    FileBytes, HashingWriter, read_bounded, read_bounded_with, sha256_bounded, sha256_hex,
};
pub use refusal::Refusal;
