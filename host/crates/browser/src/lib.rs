//! `rea-browser`: records a browser scenario. It validates a `rea-browser-scenario/v1` scenario
//! ([`scenario`]), drives Chromium over the DevTools protocol with `chromiumoxide` (launched
//! headless with a temporary profile this command owns, or reached on a loopback DevTools port),
//! runs the steps ([`steps`]), collects the page's network events with their bodies within the
//! scenario's budgets ([`collect`], [`budget`]), replaces every secret by its marker
//! ([`redact`]), and answers the recorded session (`rea-browser-session/v1`), which the
//! `browser-scenario` capture extractor turns into capture records.
//!
//! Nothing here knows capture Evidence, the manifest or the state: the command that uses it
//! hands the session to the extractor through the registry like any capture file.

pub mod budget;
mod collect;
pub mod error;
pub mod launch;
pub mod redact;
mod run;
pub mod scenario;
mod steps;

pub use error::BrowserError;
pub use run::record;
pub use scenario::{Problem, ValidatedScenario, validate};
