//! Errors of [`crate::normalise`] and [`crate::for_dialect`].

use std::fmt;

/// One problem found in a schema: which keyword, where, and what to do about it.
///
/// `path` is the JSON pointer (RFC 6901) of the offending keyword inside the schema that was
/// given (for [`crate::for_dialect`], inside the normalised schema), e.g.
/// `/properties/day/nullable`. It is empty only when the schema as a whole is wrong (not an
/// object, too deep). `message` is a full sentence that names the fix; callers prefix the tool
/// name, e.g. `book_table: /properties/day/nullable: nullable is not JSON Schema, …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The JSON Schema keyword at fault, e.g. `"nullable"`, `"$ref"`, `"oneOf"`, or `"depth"`
    /// for a schema nested too deeply.
    pub keyword: String,
    /// JSON pointer of the keyword, `""` for the schema as a whole.
    pub path: String,
    /// What is wrong and what to do, in words a developer reads (see `messages.rs`).
    pub message: String,
}

impl SchemaError {
    pub(crate) fn new(keyword: &str, path: &str, message: String) -> Self {
        Self {
            keyword: keyword.to_owned(),
            path: path.to_owned(),
            message,
        }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for SchemaError {}

/// Every problem found in one schema, all at once, in the order they appear in the schema.
///
/// Never empty when returned as an error. `Display` joins the problems with `"; "`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaErrors(pub Vec<SchemaError>);

impl SchemaErrors {
    /// The keywords at fault, in order (handy in tests and logs).
    pub fn keywords(&self) -> Vec<&str> {
        self.0.iter().map(|e| e.keyword.as_str()).collect()
    }
}

impl fmt::Display for SchemaErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SchemaErrors {}

impl From<Vec<SchemaError>> for SchemaErrors {
    fn from(v: Vec<SchemaError>) -> Self {
        Self(v)
    }
}
