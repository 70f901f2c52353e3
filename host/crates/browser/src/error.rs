//! What can end a recording early. Messages never hold a secret's value: whatever the browser
//! or the page said is passed through the session's redactor before it becomes one.

/// Why a recording did not complete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrowserError {
    /// The browser could not be started (launch mode).
    #[error("the browser could not be launched: {0}")]
    Launch(String),
    /// Nothing answered on the DevTools port, or the DevTools connection failed (connect mode).
    #[error("could not connect to the browser: {0}")]
    Connect(String),
    /// The browser went away during the recording (crashed or killed).
    #[error("the browser exited during the recording: {0}")]
    Exited(String),
    /// A step failed; the pointer names it.
    #[error("step `{step_id}` ({action}) failed: {message}")]
    Step {
        /// The step's id.
        step_id: String,
        /// Its action.
        action: String,
        /// The JSON pointer of the step in the scenario.
        pointer: String,
        /// What happened.
        message: String,
    },
    /// A step or the whole scenario ran past its deadline.
    #[error("{0}")]
    Deadline(String),
    /// SIGINT or SIGTERM arrived.
    #[error("{signal} received: the recording was cancelled")]
    Cancelled {
        /// `SIGINT` or `SIGTERM`.
        signal: &'static str,
    },
    /// The temporary profile could not be removed.
    #[error("{0}")]
    Cleanup(String),
    /// The DevTools protocol answered something unexpected.
    #[error("the DevTools protocol failed: {0}")]
    Protocol(String),
}

impl BrowserError {
    /// The JSON pointer into the scenario the error is about, when it is about one part.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            BrowserError::Step { pointer, .. } => Some(pointer),
            BrowserError::Launch(_) => Some("/browser/executable_path"),
            BrowserError::Connect(_) => Some("/browser/port"),
            _ => None,
        }
    }
}
