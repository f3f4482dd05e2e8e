//! Accessibility snapshot types sent by the client in `ui-snapshot`.
//!
//! Mirrors pipecat's `A11yNode` / `A11ySelection` / `A11ySnapshot` (pydantic, `extra="allow"`)
//! and client-js `rtvi/ui.ts`. Field names are exact; unknown fields are kept in `extra` and
//! written back, so a snapshot round-trips. Serialisation omits `None` fields and empty
//! `state`/`children` (pipecat dumps snapshots with `exclude_none=True`).
//!
//! Deserialisation is as tolerant as pipecat's pydantic models: `ref` and `role` are required
//! strings, `null` reads as absent for every optional field, integers may arrive as integral
//! floats or numeric strings (pydantic's lax `int`). It is strict where the tree could hurt the
//! server ([`SnapshotLimits`]): nodes deeper than [`MAX_TREE_DEPTH`] node levels, and more than
//! [`MAX_SNAPSHOT_NODES`] nodes, are refused with an error naming the path, the count and the
//! limit. Errors name the JSON path of the first problem in document order.
//!
//! ## Decoding cost
//!
//! Every entry point ([`A11ySnapshot::from_json`], [`A11ySnapshot::from_value`], serde's
//! `Deserialize`, `ui-snapshot` in [`crate::parse_client_message`]) decodes straight into the
//! typed tree: no intermediate `serde_json::Value`, and a JSON path is built only for an error.
//! Measured with `examples/snapshot_rss.rs` (a 0.97 MB `ui-snapshot` message of 15,001 nodes
//! decoded 5 times with the node limit lifted, release build, `/usr/bin/time -v`; the process
//! holding only the text peaks at 5.6 MB): peak RSS 9.5 MB and 0.05 s, against 17.6 MB and
//! 0.21 s through the earlier `serde_json::Value` path with a path string per node. With the
//! default limit such a snapshot is refused after counting its nodes, keeping none.
//!
//! Held, the load generator's 200-node shop page (11,325 B of JSON) costs 28.5 KiB of live
//! heap under jemalloc (146 B per node), against 66.2 KiB (339 B per node) before the rare
//! fields moved into [`NodeRare`] (memory per idle session; measured as
//! bench/load's `session_memory` example measures its "decoded 200-node A11ySnapshot" row).
//! `ref_`, `role` and `name` are [`CompactString`]s: the text inside the node's 24 bytes up to
//! 24 bytes (refs, roles, most names), so most nodes allocate nothing for them (with
//! `String`s the page held 31.7 KiB, and its decode cost 14.5 % more instructions).
//!
//! ## Nesting
//!
//! serde_json refuses JSON text nested 128 levels deep (its recursion limit; 127 levels are
//! read). Each node level of a tree costs two JSON levels (the node object and its `children`
//! array), so the node-level limit [`MAX_TREE_DEPTH`] = 60 is checked, and its error given,
//! before the JSON limit can be reached: in a `ui-snapshot` message the `data` object is read
//! on its own, so node level 61 sits at JSON level 123 (`data`, `tree`, then two per node).

use compact_str::CompactString;
use std::collections::HashMap;
use std::sync::LazyLock;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::fields::FieldError;
use crate::snapshot_decode::{self, Ctx};
use crate::surrogates::replace_lone_surrogates;

/// Deepest node nesting accepted in a snapshot tree, in node levels (the root is level 1).
///
/// client-js's walker stops at depth 10 (`MAX_DEPTH` in `a11y_walker.ts`), so real trees stay
/// far below this. 60 node levels are 120 JSON levels, the most that fits under serde_json's
/// 128-level limit with the envelope around it, so a deep tree gets this limit's error (naming
/// node levels) rather than the JSON parser's. It also bounds recursion on hostile input: the
/// check runs before the decoder descends, so a 10,000-deep tree is an error, never a stack
/// overflow, even as a `serde_json::Value` built in code.
pub const MAX_TREE_DEPTH: usize = 60;

/// Most nodes accepted in one snapshot by default (all nodes, the root included).
///
/// client-js's walker caps a snapshot at 200 nodes (`MAX_NODES`), so 5,000 leaves room for
/// other clients while bounding what one session holds: a decoded node costs about 100 bytes
/// plus its strings (and its [`NodeRare`] if it has rare fields), so 5,000 nodes are about 1–2 MB. Change it per decode with
/// [`SnapshotLimits`].
pub const MAX_SNAPSHOT_NODES: usize = 5_000;

/// Limits applied while decoding a snapshot; [`Default`] is ([`MAX_SNAPSHOT_NODES`],
/// [`MAX_TREE_DEPTH`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotLimits {
    /// Most nodes in one snapshot; more is refused with a text naming the count and the limit.
    pub max_nodes: usize,
    /// Deepest node level (the root is 1). Values above [`MAX_TREE_DEPTH`] are read as
    /// [`MAX_TREE_DEPTH`]: the decoder recurses once per level, and deeper trees cannot pass
    /// serde_json's 128-level limit anyway.
    pub max_depth: usize,
}

impl Default for SnapshotLimits {
    fn default() -> Self {
        SnapshotLimits {
            max_nodes: MAX_SNAPSHOT_NODES,
            max_depth: MAX_TREE_DEPTH,
        }
    }
}

/// One node of the accessibility tree (pipecat's `A11yNode`).
///
/// JSON: `{"ref":"e2","role":"button","name":"Save","state":["focused"],"children":[…]}`.
///
/// The fields nearly every node has (`ref`, `role`, `name`, `children`) are inline; the rare
/// ones (`value`, `state`, `level`, `colcount`, `rowcount` and unknown keys) live in one boxed
/// [`NodeRare`], allocated only for a node that has one of them (memory per idle session:
/// the struct is 104 B instead of 264 B on 64-bit targets). Read them with
/// [`value`](Self::value), [`state`](Self::state), [`level`](Self::level),
/// [`colcount`](Self::colcount), [`rowcount`](Self::rowcount), [`extra`](Self::extra); set them
/// with the `with_*` builders or [`rare_mut`](Self::rare_mut).
///
/// Serialised as before the split, in this key order: `ref`, `role`, `name`, `value`, `state`,
/// `level`, `colcount`, `rowcount`, `children`, then the unknown keys; `None` and empty
/// `state`/`children` are omitted. Equality compares the rare fields' values, so a node whose
/// [`NodeRare`] is present but empty equals the same node without one.
#[derive(Debug, Clone, Default)]
pub struct A11yNode {
    /// Stable element reference `e{N}`; `""` for text nodes, `"<parent>.more"` for ellipsis nodes.
    pub ref_: CompactString,
    /// ARIA role (explicit or derived from the tag); synthetic `text`, `ellipsis`, `option`.
    pub role: CompactString,
    /// Accessible name, whitespace-collapsed, at most 100 chars.
    pub name: Option<CompactString>,
    /// Child nodes in reading order; omitted when empty.
    pub children: Vec<A11yNode>,
    /// The rare fields; `None` (no allocation) when the node has none of them. Prefer the
    /// accessors; [`Self::rare_mut`] creates it on first write.
    pub rare: Option<Box<NodeRare>>,
}

/// The fields of an [`A11yNode`] that most nodes lack, boxed behind
/// [`A11yNode::rare`]. [`Default`] is all absent / empty.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeRare {
    /// Current value of inputs, textareas and selects.
    pub value: Option<String>,
    /// State tags: subset of `focused`, `expanded`, `selected`, `disabled`, `checked`,
    /// `offscreen`; omitted from JSON when empty.
    pub state: Vec<String>,
    /// Heading level (1–6 from `h1..h6` or `aria-level`).
    pub level: Option<i64>,
    /// `aria-colcount`.
    pub colcount: Option<i64>,
    /// `aria-rowcount`.
    pub rowcount: Option<i64>,
    /// Unknown fields, kept in order and written back after the known ones.
    pub extra: Map<String, Value>,
    /// `level`, `colcount`, `rowcount` beyond `i64`, as the decimal text pipecat renders
    /// (`18446744073709551616`); the `i64` fields then hold `i64::MAX` / `i64::MIN`. `None`
    /// (no allocation) for every node whose integers fit. Read with [`A11yNode::wide`].
    pub wide: Option<Box<WideInts>>,
}

/// A node's integers beyond `i64` (pydantic keeps Python's exact `int`; pipecat 1.14 renders
/// it): each as its canonical decimal text, `None` when that field fits in its `i64`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WideInts {
    /// `level`.
    pub level: Option<Box<str>>,
    /// `colcount`.
    pub colcount: Option<Box<str>>,
    /// `rowcount`.
    pub rowcount: Option<Box<str>>,
}

impl NodeRare {
    fn wide_mut(&mut self) -> &mut WideInts {
        self.wide.get_or_insert_with(Box::default)
    }

    /// Sets (or clears) the text of a `level` beyond `i64`.
    pub fn set_wide_level(&mut self, text: Option<Box<str>>) {
        if text.is_some() || self.wide.is_some() {
            self.wide_mut().level = text;
        }
    }

    /// Sets (or clears) the text of a `colcount` beyond `i64`.
    pub fn set_wide_colcount(&mut self, text: Option<Box<str>>) {
        if text.is_some() || self.wide.is_some() {
            self.wide_mut().colcount = text;
        }
    }

    /// Sets (or clears) the text of a `rowcount` beyond `i64`.
    pub fn set_wide_rowcount(&mut self, text: Option<Box<str>>) {
        if text.is_some() || self.wide.is_some() {
            self.wide_mut().rowcount = text;
        }
    }
}

/// The empty map [`A11yNode::extra`] lends for a node without unknown fields.
static EMPTY_EXTRA: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

impl A11yNode {
    /// A node with this `ref` and `role` and nothing else (`A11yNode::new("e2", "button")`).
    pub fn new(ref_: impl Into<CompactString>, role: impl Into<CompactString>) -> Self {
        A11yNode {
            ref_: ref_.into(),
            role: role.into(),
            ..A11yNode::default()
        }
    }

    /// The rare fields, if this node has a [`NodeRare`] (it may be present but empty).
    pub fn rare(&self) -> Option<&NodeRare> {
        self.rare.as_deref()
    }

    /// The rare fields for writing, created empty (one allocation) on first use.
    #[inline]
    pub fn rare_mut(&mut self) -> &mut NodeRare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Current value of an input, textarea or select (`value`), if any.
    pub fn value(&self) -> Option<&str> {
        self.rare.as_ref()?.value.as_deref()
    }

    /// State tags (`state`: `focused`, `expanded`, `selected`, `disabled`, `checked`,
    /// `offscreen`); empty when none.
    pub fn state(&self) -> &[String] {
        self.rare.as_ref().map_or(&[], |r| &r.state)
    }

    /// Whether `state` holds `tag` (e.g. `"checked"`).
    pub fn has_state(&self, tag: &str) -> bool {
        self.state().iter().any(|s| s == tag)
    }

    /// Heading level (`level`, 1–6), if any.
    pub fn level(&self) -> Option<i64> {
        self.rare.as_ref()?.level
    }

    /// `aria-colcount` (`colcount`), if any.
    pub fn colcount(&self) -> Option<i64> {
        self.rare.as_ref()?.colcount
    }

    /// `aria-rowcount` (`rowcount`), if any.
    pub fn rowcount(&self) -> Option<i64> {
        self.rare.as_ref()?.rowcount
    }

    /// The node's integers beyond `i64`, as text (where [`Self::level`] and its siblings
    /// saturate); `None` for nearly every node.
    pub fn wide(&self) -> Option<&WideInts> {
        self.rare.as_ref()?.wide.as_deref()
    }

    /// Unknown fields, in the order read; empty when none.
    pub fn extra(&self) -> &Map<String, Value> {
        self.rare.as_ref().map_or(&EMPTY_EXTRA, |r| &r.extra)
    }

    /// This node with `name` set.
    pub fn with_name(mut self, name: impl Into<CompactString>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// This node with `value` set.
    pub fn with_value(mut self, value: impl Into<String>) -> Self {
        self.rare_mut().value = Some(value.into());
        self
    }

    /// This node with `state` replaced by `tags` (an empty list allocates nothing).
    pub fn with_state<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        let tags: Vec<String> = tags.into_iter().map(Into::into).collect();
        if !tags.is_empty() || self.rare.is_some() {
            self.rare_mut().state = tags;
        }
        self
    }

    /// This node with `level` set.
    pub fn with_level(mut self, level: i64) -> Self {
        let rare = self.rare_mut();
        rare.level = Some(level);
        rare.set_wide_level(None);
        self
    }

    /// This node with `colcount` set.
    pub fn with_colcount(mut self, colcount: i64) -> Self {
        let rare = self.rare_mut();
        rare.colcount = Some(colcount);
        rare.set_wide_colcount(None);
        self
    }

    /// This node with `rowcount` set.
    pub fn with_rowcount(mut self, rowcount: i64) -> Self {
        let rare = self.rare_mut();
        rare.rowcount = Some(rowcount);
        rare.set_wide_rowcount(None);
        self
    }

    /// This node with the unknown field `key` set to `value` (written after the known keys).
    pub fn with_extra(mut self, key: impl Into<String>, value: Value) -> Self {
        self.rare_mut().extra.insert(key.into(), value);
        self
    }

    /// This node with `children` replaced.
    pub fn with_children(mut self, children: Vec<A11yNode>) -> Self {
        self.children = children;
        self
    }
}

impl PartialEq for A11yNode {
    fn eq(&self, other: &Self) -> bool {
        self.ref_ == other.ref_
            && self.role == other.role
            && self.name == other.name
            && self.children == other.children
            && match (self.rare(), other.rare()) {
                (Some(a), Some(b)) => a == b,
                (Some(r), None) | (None, Some(r)) => *r == NodeRare::default(),
                (None, None) => true,
            }
    }
}

/// A wide integer's text as a JSON number (a raw value; `null` if it were not JSON).
fn wide_number(text: &str) -> Option<Box<RawValue>> {
    RawValue::from_string(text.to_owned()).ok()
}

impl Serialize for A11yNode {
    /// The pre-split shape: known keys in declaration order, `None` / empty lists omitted, then
    /// the unknown keys (as serde's `flatten` wrote them: a map of unknown length).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("ref", &self.ref_)?;
        m.serialize_entry("role", &self.role)?;
        if let Some(name) = &self.name {
            m.serialize_entry("name", name)?;
        }
        let rare = self.rare();
        if let Some(r) = rare {
            if let Some(v) = &r.value {
                m.serialize_entry("value", v)?;
            }
            if !r.state.is_empty() {
                m.serialize_entry("state", &r.state)?;
            }
            match r.wide.as_ref().and_then(|w| w.level.as_deref()) {
                // Written as the number it is (exact through serde_json's writer).
                Some(t) => m.serialize_entry("level", &wide_number(t))?,
                None => {
                    if let Some(v) = r.level {
                        m.serialize_entry("level", &v)?;
                    }
                }
            }
            match r.wide.as_ref().and_then(|w| w.colcount.as_deref()) {
                // Written as the number it is (exact through serde_json's writer).
                Some(t) => m.serialize_entry("colcount", &wide_number(t))?,
                None => {
                    if let Some(v) = r.colcount {
                        m.serialize_entry("colcount", &v)?;
                    }
                }
            }
            match r.wide.as_ref().and_then(|w| w.rowcount.as_deref()) {
                // Written as the number it is (exact through serde_json's writer).
                Some(t) => m.serialize_entry("rowcount", &wide_number(t))?,
                None => {
                    if let Some(v) = r.rowcount {
                        m.serialize_entry("rowcount", &v)?;
                    }
                }
            }
        }
        if !self.children.is_empty() {
            m.serialize_entry("children", &self.children)?;
        }
        if let Some(r) = rare {
            for (k, v) in &r.extra {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// The user's current text selection (pipecat's `A11ySelection`).
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

/// A full snapshot of the page (pipecat's `A11ySnapshot`), the `tree` of `ui-snapshot`.
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
    /// Reads a node (and its subtree) from a JSON value. `path` prefixes error paths (e.g.
    /// `data.tree.root`). Default [`SnapshotLimits`], counted within this subtree.
    ///
    /// Errors: a [`FieldError`] naming the path of the first problem (missing `ref`/`role`, a
    /// wrong type, a whole float beyond `i64` in an integer field, nesting deeper than [`MAX_TREE_DEPTH`], more than
    /// [`MAX_SNAPSHOT_NODES`] nodes).
    pub fn from_value(value: Value, path: &str) -> Result<Self, FieldError> {
        let mut ctx = Ctx::new(&SnapshotLimits::default());
        snapshot_decode::node(&mut ctx, value).map_err(|e| ctx.error(&e, path))
    }

    /// Number of nodes in this subtree, this one included.
    pub fn count(&self) -> usize {
        let mut n = 0;
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            n += 1;
            stack.extend(&node.children);
        }
        n
    }
}

impl A11ySelection {
    /// Reads a selection from a JSON value; errors name the path (`data.tree.selection.text`).
    pub fn from_value(value: Value, path: &str) -> Result<Self, FieldError> {
        let mut ctx = Ctx::new(&SnapshotLimits::default());
        snapshot_decode::selection(&mut ctx, value).map_err(|e| ctx.error(&e, path))
    }
}

impl A11ySnapshot {
    /// Reads a snapshot from a JSON value with the default [`SnapshotLimits`]; `path` prefixes
    /// error paths (`data.tree`).
    ///
    /// Errors: a [`FieldError`] such as `data.tree.root.children[0].role: missing field` (see
    /// [`Self::from_value_with`]).
    pub fn from_value(value: Value, path: &str) -> Result<Self, FieldError> {
        Self::from_value_with(value, path, &SnapshotLimits::default())
    }

    /// Reads a snapshot from a JSON value under `limits`; `path` prefixes error paths.
    ///
    /// Errors: a [`FieldError`] naming the path of the first problem: a missing or wrongly
    /// typed field, an integer outside `i64`, a tree deeper than `limits.max_depth` node levels,
    /// or more than `limits.max_nodes` nodes (`data.tree: the snapshot has 15001 nodes, more
    /// than the limit of 5000; …`, path = `path`).
    pub fn from_value_with(
        value: Value,
        path: &str,
        limits: &SnapshotLimits,
    ) -> Result<Self, FieldError> {
        let mut ctx = Ctx::new(limits);
        snapshot_decode::snapshot(&mut ctx, value).map_err(|e| ctx.error(&e, path))
    }

    /// Parses snapshot JSON text (the `tree` object) with the default [`SnapshotLimits`].
    /// Errors name the path, as [`Self::from_json_with`] says.
    pub fn from_json(json: &str) -> Result<Self, FieldError> {
        Self::from_json_with(json, &SnapshotLimits::default())
    }

    /// Parses snapshot JSON text (the `tree` object) under `limits`, straight into the typed
    /// tree. Lone surrogate escapes become U+FFFD first ([`crate::replace_lone_surrogates`]).
    ///
    /// Errors: as [`Self::from_value_with`], plus text that is not valid JSON (`not valid JSON
    /// (…)`, with the path reached) and JSON numbers beyond `f64` (`number out of range`, naming
    /// the field).
    pub fn from_json_with(json: &str, limits: &SnapshotLimits) -> Result<Self, FieldError> {
        let json = replace_lone_surrogates(json);
        let mut ctx = Ctx::new(limits);
        let mut de = serde_json::Deserializer::from_str(&json);
        snapshot_decode::snapshot(&mut ctx, &mut de)
            .and_then(|s| de.end().map(|()| s))
            .map_err(|e| ctx.error(&e, ""))
    }

    /// Decodes `ui-snapshot` data text, `{"tree": {…}}` (other keys ignored; `null` reads as
    /// `{}`), with errors under `data` (`data.tree.root.ref: missing field`).
    pub(crate) fn ui_snapshot_data(
        data_json: &str,
        limits: &SnapshotLimits,
    ) -> Result<Self, FieldError> {
        let mut ctx = Ctx::new(limits);
        let mut de = serde_json::Deserializer::from_str(data_json);
        snapshot_decode::ui_snapshot_data(&mut ctx, &mut de)
            .and_then(|s| de.end().map(|()| s))
            .map_err(|e| ctx.error(&e, "data"))
    }

    /// Refs used by more than one node, each once, in the order first met (depth first); the
    /// empty ref of text nodes is not counted.
    ///
    /// Such snapshots are accepted (pipecat accepts them too), but a command naming a
    /// duplicated ref may reach the wrong element: log them. Usually empty.
    pub fn duplicate_refs(&self) -> Vec<String> {
        let mut seen: HashMap<&str, bool> = HashMap::new();
        let mut dups = Vec::new();
        let mut stack = vec![&self.root];
        while let Some(node) = stack.pop() {
            if node.ref_.is_empty() {
                // Text nodes all carry "".
            } else if let Some(reported) = seen.get_mut(node.ref_.as_str()) {
                if !*reported {
                    *reported = true;
                    dups.push(node.ref_.to_string());
                }
            } else {
                seen.insert(node.ref_.as_str(), false);
            }
            stack.extend(node.children.iter().rev());
        }
        dups
    }
}

fn de_error<E: serde::de::Error>(e: FieldError) -> E {
    E::custom(e.detail)
}

impl<'de> Deserialize<'de> for A11yNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut ctx = Ctx::new(&SnapshotLimits::default());
        snapshot_decode::node(&mut ctx, d).map_err(|e| de_error(ctx.error(&e, "")))
    }
}

impl<'de> Deserialize<'de> for A11ySelection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut ctx = Ctx::new(&SnapshotLimits::default());
        snapshot_decode::selection(&mut ctx, d).map_err(|e| de_error(ctx.error(&e, "")))
    }
}

impl<'de> Deserialize<'de> for A11ySnapshot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut ctx = Ctx::new(&SnapshotLimits::default());
        snapshot_decode::snapshot(&mut ctx, d).map_err(|e| de_error(ctx.error(&e, "")))
    }
}
