//! Accessibility snapshot types sent by the client in `ui-snapshot` (rtvi-ui.md §3).
//!
//! Mirrors pipecat's `A11yNode` / `A11ySelection` / `A11ySnapshot` (pydantic, `extra="allow"`)
//! and client-js `rtvi/ui.ts`. Field names are exact; unknown fields are kept in `extra` and
//! written back, so a snapshot round-trips. Serialisation omits `None` fields and empty
//! `state`/`children` (pipecat dumps snapshots with `exclude_none=True`).
//!
//! Deserialisation is as tolerant as pipecat's pydantic models: `ref` and `role` are required
//! strings, `null` reads as absent for every optional field, integers may arrive as integral
//! floats or numeric strings (pydantic's lax `int`). It is strict where the tree could hurt the
//! server: nodes deeper than [`MAX_TREE_DEPTH`] are refused with an error naming the path.
//! When the input is JSON text, `serde_json` refuses nesting deeper than 128 levels before any
//! of this runs (its default recursion limit), so a hostile 10 000-deep tree is an error, never a
//! stack overflow.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::fields::{FieldError, Obj};
use crate::messages;

/// Deepest node nesting accepted in a snapshot tree (the root is depth 1).
///
/// The client walker stops at depth 10 (`MAX_DEPTH` in client-js `a11y_walker.ts`), so real
/// trees stay far below this; the limit bounds recursion on hostile input.
pub const MAX_TREE_DEPTH: usize = 32;

/// One node of the accessibility tree (rtvi-ui.md §3, `A11yNode`).
///
/// JSON: `{"ref":"e2","role":"button","name":"Save","state":["focused"],"children":[…]}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct A11yNode {
    /// Stable element reference `e{N}`; `""` for text nodes, `"<parent>.more"` for ellipsis nodes.
    #[serde(rename = "ref")]
    pub ref_: String,
    /// ARIA role (explicit or derived from the tag); synthetic `text`, `ellipsis`, `option`.
    pub role: String,
    /// Accessible name, whitespace-collapsed, at most 100 chars.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Current value of inputs, textareas and selects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// State tags: subset of `focused`, `expanded`, `selected`, `disabled`, `checked`,
    /// `offscreen`; omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<String>,
    /// Heading level (1–6 from `h1..h6` or `aria-level`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<i64>,
    /// `aria-colcount`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colcount: Option<i64>,
    /// `aria-rowcount`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rowcount: Option<i64>,
    /// Child nodes in reading order; omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<A11yNode>,
    /// Unknown fields, kept in order and written back.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The user's current text selection (rtvi-ui.md §3, `A11ySelection`).
///
/// JSON: `{"ref":"e4","text":"Review your order","start_offset":0,"end_offset":6}`; offsets
/// only for `<input>`/`<textarea>` selections (end exclusive).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct A11ySelection {
    /// Ref of the closest ref'd element enclosing the selection.
    #[serde(rename = "ref")]
    pub ref_: String,
    /// Selected text, at most 2000 chars (1999 + `…`).
    pub text: String,
    /// Start offset inside an input's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_offset: Option<i64>,
    /// End offset (exclusive) inside an input's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_offset: Option<i64>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A full snapshot of the page (rtvi-ui.md §3, `A11ySnapshot`), the `tree` of `ui-snapshot`.
///
/// JSON: `{"root":{…},"captured_at":1767225600000,"selection":{…}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct A11ySnapshot {
    /// Root node (`role` "generic", the document body).
    pub root: A11yNode,
    /// Capture time, epoch milliseconds.
    pub captured_at: i64,
    /// Current selection, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<A11ySelection>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl A11yNode {
    /// Reads a node from a JSON value. `path` is used in errors (e.g. `data.tree.root`).
    ///
    /// Errors: a [`FieldError`] naming the path of the first problem (missing `ref`/`role`, a
    /// wrong type, or nesting deeper than [`MAX_TREE_DEPTH`]).
    pub fn from_value(value: Value, path: &str) -> Result<Self, FieldError> {
        Self::read(value, path, 1)
    }

    fn read(value: Value, path: &str, depth: usize) -> Result<Self, FieldError> {
        if depth > MAX_TREE_DEPTH {
            return Err(FieldError::with_detail(
                path.to_string(),
                messages::tree_too_deep(path, MAX_TREE_DEPTH),
            ));
        }
        let mut o = Obj::new(value, path, false)?;
        let ref_ = o.req_str("ref")?;
        let role = o.req_str("role")?;
        let name = o.opt_str("name")?;
        let value = o.opt_str("value")?;
        let state = o.str_list("state")?;
        let level = o.opt_int("level")?;
        let colcount = o.opt_int("colcount")?;
        let rowcount = o.opt_int("rowcount")?;
        let children_path = o.path_of("children");
        let children = match o.take("children") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, item)| Self::read(item, &format!("{children_path}[{i}]"), depth + 1))
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(FieldError::wrong_type(
                    children_path,
                    "an array or null",
                    &other,
                ));
            }
        };
        Ok(A11yNode {
            ref_,
            role,
            name,
            value,
            state,
            level,
            colcount,
            rowcount,
            children,
            extra: o.rest(),
        })
    }

    /// Number of nodes in this subtree, this one included.
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(A11yNode::count).sum::<usize>()
    }
}

impl A11ySelection {
    /// Reads a selection from a JSON value; errors name the path (`data.tree.selection.text`).
    pub fn from_value(value: Value, path: &str) -> Result<Self, FieldError> {
        let mut o = Obj::new(value, path, false)?;
        Ok(A11ySelection {
            ref_: o.req_str("ref")?,
            text: o.req_str("text")?,
            start_offset: o.opt_int("start_offset")?,
            end_offset: o.opt_int("end_offset")?,
            extra: o.rest(),
        })
    }
}

impl A11ySnapshot {
    /// Reads a snapshot from a JSON value; `path` prefixes error paths (`data.tree`).
    ///
    /// Errors: a [`FieldError`] such as `data.tree.root.children[0].role: missing field`.
    pub fn from_value(value: Value, path: &str) -> Result<Self, FieldError> {
        let mut o = Obj::new(value, path, false)?;
        let root_path = o.path_of("root");
        let root = match o.take_raw("root") {
            None => return Err(FieldError::missing(root_path)),
            Some(v) => A11yNode::read(v, &root_path, 1)?,
        };
        let captured_at = o.req_int("captured_at")?;
        let selection_path = o.path_of("selection");
        let selection = match o.take("selection") {
            None => None,
            Some(v) => Some(A11ySelection::from_value(v, &selection_path)?),
        };
        Ok(A11ySnapshot {
            root,
            captured_at,
            selection,
            extra: o.rest(),
        })
    }

    /// Parses snapshot JSON text (the `tree` object). Errors name the path; text nested deeper
    /// than 128 levels is refused by `serde_json` before any node is read.
    pub fn from_json(json: &str) -> Result<Self, FieldError> {
        let value: Value = serde_json::from_str(json)
            .map_err(|e| FieldError::with_detail(String::new(), e.to_string()))?;
        Self::from_value(value, "")
    }
}

fn de_error<E: serde::de::Error>(e: FieldError) -> E {
    E::custom(e.detail)
}

impl<'de> Deserialize<'de> for A11yNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        A11yNode::from_value(Value::deserialize(d)?, "").map_err(de_error)
    }
}

impl<'de> Deserialize<'de> for A11ySelection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        A11ySelection::from_value(Value::deserialize(d)?, "").map_err(de_error)
    }
}

impl<'de> Deserialize<'de> for A11ySnapshot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        A11ySnapshot::from_value(Value::deserialize(d)?, "").map_err(de_error)
    }
}
