//! A problem an agent file's checks found: an error (the agent cannot run) or a warning (it runs
//! without something, like an LLM whose key is not set). Each names its line when it has one,
//! what is wrong and the fix.

use std::fmt;

/// How bad a [`Problem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The agent cannot be built; `hark check` exits with 1.
    Error,
    /// The agent runs without something; `hark check` prints it and still exits with 0.
    Warning,
}

/// One problem of an agent file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// The 1-based line in the file it is about, when one is known.
    pub line: Option<usize>,
    /// What is wrong and the fix, one sentence or two (texts in [`super::messages`]).
    pub text: String,
}

impl Problem {
    /// An error.
    pub fn error(line: Option<usize>, text: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            line,
            text: text.into(),
        }
    }

    /// A warning.
    pub fn warning(line: Option<usize>, text: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            line,
            text: text.into(),
        }
    }

    /// True for an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// `line 12: error: <text>` (or `error: <text>` without a line): the form `hark check` prints
/// after the file's path.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.line {
            Some(line) => write!(f, "line {line}: {kind}: {}", self.text),
            None => write!(f, "{kind}: {}", self.text),
        }
    }
}

/// Every problem of a file that could not be built: errors first, then warnings, each group in
/// file order (problems with no line last).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct FileProblems {
    /// At least one error, then any warnings.
    pub problems: Vec<Problem>,
}

impl FileProblems {
    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| p.is_error())
    }
}

/// The 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

impl Problem {
    /// `examples/shop.toml:12: error: <text>` (no `:line` when the line is unknown): the form
    /// `hark check` prints, which editors and terminals turn into links.
    pub fn located(&self, path: &str) -> String {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.line {
            Some(line) => format!("{path}:{line}: {kind}: {}", self.text),
            None => format!("{path}: {kind}: {}", self.text),
        }
    }
}
