//! Pipeline problems with their positions.

/// One problem in a pipeline, at a line and column (1-based) of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The pipeline file, or `<default pipeline>`.
    pub origin: String,
    /// 1-based line, when the problem has a position.
    pub line: Option<usize>,
    /// 1-based column (in characters), when the problem has a position.
    pub column: Option<usize>,
    /// Stable snake_case code (`unknown_key`, `wrong_type`, `unknown_stage`, …).
    pub code: String,
    /// One sentence.
    pub message: String,
}

impl Diagnostic {
    /// A problem about the whole file.
    pub fn file(origin: &str, code: &str, message: String) -> Self {
        Self {
            origin: origin.to_owned(),
            line: None,
            column: None,
            code: code.to_owned(),
            message,
        }
    }

    /// The diagnostic as JSON: `{file, line, column, code, message}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.origin,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "message": self.message,
        })
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => {
                write!(f, "{}:{line}:{column}: {}", self.origin, self.message)
            }
            _ => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

/// Every problem a pipeline has, in file order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct PipelineErrors(pub Vec<Diagnostic>);

impl PipelineErrors {
    /// One problem.
    pub fn single(diagnostic: Diagnostic) -> Self {
        Self(vec![diagnostic])
    }
}
