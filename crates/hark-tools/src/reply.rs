//! Assign rows and reply rows as a registry is given them: what a result saves into the State,
//! and the lines code says for it. Checked against the tools by the registry's rows
//! (`rows.rs`).
//!
//! Guide: `docs/guide/replies-and-assign.md`.

use serde_json::Value;

/// A line code says for a result, instead of asking the model for a reply.
///
/// `when` maps a result field (dotted for nested: `"order.status"`) to the values that call for
/// the line; `state` maps a State value to its values the same way; a reply with neither is the
/// fixed reply. `say` holds alternatives, said in turn. On a registry a reply names its `tool`;
/// on the tool itself it leaves `tool` out.
///
/// ```
/// use hark_tools::ToolReply;
/// use serde_json::json;
/// let reply = ToolReply::say(["{{result.order_id}} is held."])
///     .tool("find_order")
///     .when("status", [json!("held")]);
/// assert_eq!(reply.tool.as_deref(), Some("find_order"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolReply {
    /// The tool whose result this reply says (`None` on the tool itself).
    pub tool: Option<String>,
    /// Result field → the values that call for the line.
    pub when: Vec<(String, Vec<Value>)>,
    /// State value → the values that call for the line.
    pub state: Vec<(String, Vec<Value>)>,
    /// The lines, alternatives said in turn (templates: `{{result.…}}`, `{{value}}`,
    /// `{{call.name}}`).
    pub say: Vec<String>,
    /// The lines by language (`"es"`, `"fr-CA"`): a call in that language says them instead of
    /// `say` ([`crate::language::for_language`]).
    pub say_in: Vec<(String, Vec<String>)>,
}

impl ToolReply {
    /// A reply saying these lines (alternatives, said in turn).
    pub fn say<S: Into<String>>(lines: impl IntoIterator<Item = S>) -> Self {
        Self {
            say: lines.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// The lines a call in `language` says instead of `say` (its whole tag, then its primary
    /// language, picks them: `"es"` serves `es-ES` and `es-MX`).
    pub fn say_in<S: Into<String>>(
        mut self,
        language: impl Into<String>,
        lines: impl IntoIterator<Item = S>,
    ) -> Self {
        self.say_in
            .push((language.into(), lines.into_iter().map(Into::into).collect()));
        self
    }

    /// Names the tool (a reply on a registry must).
    pub fn tool(mut self, tool: impl Into<String>) -> Self {
        self.tool = Some(tool.into());
        self
    }

    /// Adds a `when` condition: the result field `field` holds one of `values`.
    pub fn when<V: Into<Value>>(
        mut self,
        field: impl Into<String>,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        self.when
            .push((field.into(), values.into_iter().map(Into::into).collect()));
        self
    }

    /// Adds a `state` condition: the State value `name` holds one of `values`.
    pub fn state<V: Into<Value>>(
        mut self,
        name: impl Into<String>,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        self.state
            .push((name.into(), values.into_iter().map(Into::into).collect()));
        self
    }
}

/// One assign row: save the result value at `path` (field names; empty = the whole result) into
/// the State value `variable`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assign {
    /// The State value saved.
    pub variable: String,
    /// Field names walked from the result; empty saves the whole result.
    pub path: Vec<String>,
}

impl Assign {
    /// `Assign::new("order_number", ["order_id"])`; `Assign::new("order", [] as [&str; 0])` saves
    /// the whole result.
    pub fn new<S: Into<String>>(
        variable: impl Into<String>,
        path: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            variable: variable.into(),
            path: path.into_iter().map(Into::into).collect(),
        }
    }
}
