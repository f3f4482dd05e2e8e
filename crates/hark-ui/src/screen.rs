//! Screen questions and the `screen` job: find, check, select, list and act on the latest
//! snapshot with the worker's classifier, no LLM turn.
//!
//! Guide: `docs/guide/ui-worker.md`, "The `screen` tool". The questions asked are pipecat's,
//! word for word.
//!
//! - Questions: [`UiWorker::which_element`], [`UiWorker::find_element`],
//!   [`UiWorker::check_screen`], [`UiWorker::select_elements`], [`UiWorker::should_respond`];
//!   actions: [`UiWorker::act`]; plain reading: [`UiWorker::list_elements`].
//! - The job: [`UiWorker::screen`] takes the payload `{"action", "target"?, "value"?}` and
//!   answers short data that never carries a ref (the voice LLM must not see handles).
//! - Classifiers: [`UiWorker::with_classifier`] (any [`Classifier`]) and, beyond pipecat,
//!   [`UiWorker::with_fallback_classifier`], asked when the first fails.
//!
//! Named elements ([`named_elements`]): a breadth-first walk from the root keeping nodes with a
//! non-empty ref and a non-empty name, at most [`MAX_ELEMENT_OPTIONS`] (255). Only they can be
//! chosen: an unnamed icon button is never an option, so it is never picked.
//!
//! ## Example: a `fill` job with a classifier of your own
//!
//! ```
//! use std::sync::Arc;
//! use futures::future::BoxFuture;
//! use hark_ui::classifier::{Answer, ChoiceResult, Classifier, ClassifierError, Question};
//! use hark_ui::{A11ySnapshot, ClassifyState, UiWorker};
//! use serde_json::json;
//!
//! /// Always picks the first option, surely.
//! #[derive(Debug)]
//! struct First;
//! impl Classifier for First {
//!     fn ask<'a>(&'a self, _state: &'a ClassifyState, questions: &'a [(String, Question)])
//!         -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
//!         let answers = questions.iter().map(|(name, q)| {
//!             let Question::Choice(c) = q else { return Err(ClassifierError::new("choices only")) };
//!             let first = c.options[0].0.clone();
//!             Ok((name.clone(), Answer::Choice(ChoiceResult {
//!                 choice: first.clone(), probabilities: vec![(first, 1.0)], confidence: 1.0 })))
//!         }).collect();
//!         Box::pin(async move { answers })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
//! let worker = UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(First));
//! worker.on_snapshot(A11ySnapshot::from_json(r#"{"root":{"ref":"e1","role":"form","children":[
//!     {"ref":"e2","role":"textbox","name":"Email"}]},"captured_at":1}"#)?);
//!
//! let done = worker.screen(&json!({"action": "fill", "target": "the email field",
//!                                  "value": "ana@example.com"})).await;
//! assert_eq!(done.response, Some(json!({"done": true, "label": "Email"})));
//! assert!(rx.try_recv().is_ok(), "set_input_value went to the client");
//! # Ok(()) }
//! ```

use std::sync::Arc;

use hark_rtvi::{A11yNode, UiEvent};
use serde::Serialize;
use serde_json::{Value, json};

use crate::worker::{CommandError, Screen, UiWorker};
use crate::{messages, render};
use hark_bus::JobResponse;
use hark_classify::{
    Answer, Classifier, ClassifierError, ClassifyState, ErrorKind, Question, ScreenState,
    YesNoQuestion, YesNoResult, choice_answer, yes_no_answer,
};

/// The named elements of a tree and their limit live with the classifiers that take them as
/// options (hark-classify); re-exported for the worker's users.
pub use hark_classify::elements::{MAX_ELEMENT_OPTIONS, named_elements};

/// Confidence at or above which `which_element` names an element and the `screen` job acts.
pub const DEFAULT_THRESHOLD: f64 = 0.5;

/// How many more times an action finds its element again when the command was refused because
/// a newer snapshot replaced the one the element was found on: 2, so at most 3 tries.
pub const STALE_RETRIES: usize = 2;

/// The question name of `which_element`'s choice.
const FIND: &str = "element";
/// The question name of `check_screen`'s yes/no.
const CHECK: &str = "check";
/// The question name of `should_respond`'s yes/no.
const RESPOND: &str = "respond";

/// The worker's classifier and its fallback.
#[derive(Debug, Default, Clone)]
pub(crate) struct Classifiers {
    pub(crate) primary: Option<Arc<dyn Classifier>>,
    pub(crate) fallback: Option<Arc<dyn Classifier>>,
}

fn name_of(node: &A11yNode) -> &str {
    node.name.as_deref().unwrap_or("")
}

/// Longest context a label takes from an element's item, in characters (then cut with `…`).
const MAX_CONTEXT_CHARS: usize = 40;

/// How many ancestors up [`element_labels`] looks for the item an element sits in.
const CONTEXT_LEVELS: usize = 5;

/// State tags that tell same-named elements apart in a label, each with the word for its
/// absence (words the local classifier reads as states: "the unchecked one").
const LABEL_STATES: &[(&str, &str)] = &[
    ("checked", "unchecked"),
    ("selected", "unselected"),
    ("expanded", "collapsed"),
    ("disabled", "enabled"),
];

/// Ordinal words for the last resort of [`element_labels`].
const ORDINAL_WORDS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];

/// The label each of `elements` (named elements of the tree under `root`, as
/// [`named_elements`] gives them) has in the `screen` job's answers: its name, and, when
/// another of `elements` has the same role and name ("Toggle Todo" on every row), what tells
/// them apart in parentheses: first the text of the item it sits in (the nearest ancestor
/// holding no other element of that name: `Toggle Todo (Buy milk)`); then, for those still
/// alike, the state tags that differ (`checked` / `unchecked`, `selected` / `unselected`,
/// `expanded` / `collapsed`, `disabled` / `enabled`); then their place among the rest
/// (`first`, `second`, …, in document order). A unique name is its own label.
pub fn element_labels(root: &A11yNode, elements: &[&A11yNode]) -> Vec<String> {
    let names: Vec<&str> = elements.iter().map(|n| name_of(n)).collect();
    let alike =
        |i: usize, j: usize| i != j && names[i] == names[j] && elements[i].role == elements[j].role;
    let shared: Vec<bool> = (0..elements.len())
        .map(|i| (0..elements.len()).any(|j| alike(i, j)))
        .collect();
    if !shared.contains(&true) {
        return names.iter().map(|n| n.to_string()).collect();
    }
    let flat = Flat::of(root);
    let at: Vec<Option<usize>> = elements.iter().map(|e| flat.index(e)).collect();
    // Per element: the parts in its parentheses.
    let mut parts: Vec<Vec<String>> = vec![Vec::new(); elements.len()];
    for i in 0..elements.len() {
        if !shared[i] {
            continue;
        }
        let Some(e) = at[i] else { continue };
        let peers: Vec<usize> = (0..elements.len())
            .filter(|&j| alike(i, j))
            .filter_map(|j| at[j])
            .collect();
        if let Some(text) = flat.context(e, names[i], &peers) {
            parts[i].push(text);
        }
    }
    // Still alike: the state tags that differ, then the place.
    for step in 0..2 {
        let keys: Vec<String> = (0..elements.len())
            .map(|i| {
                let role = &elements[i].role;
                format!("{role}\u{0}{}\u{0}{}", names[i], parts[i].join("\u{0}"))
            })
            .collect();
        let mut done = vec![false; elements.len()];
        for i in 0..elements.len() {
            if !shared[i] || done[i] {
                continue;
            }
            let group: Vec<usize> = (i..elements.len())
                .filter(|&j| keys[j] == keys[i])
                .collect();
            group.iter().for_each(|&j| done[j] = true);
            if group.len() < 2 {
                continue;
            }
            if step == 0 {
                let has = |j: usize, tag: &str| elements[j].state().iter().any(|t| t == tag);
                for (tag, absent) in LABEL_STATES {
                    let on = group.iter().filter(|&&j| has(j, tag)).count();
                    if on == 0 || on == group.len() {
                        continue;
                    }
                    for &j in &group {
                        let word = if has(j, tag) { *tag } else { *absent };
                        parts[j].push(word.to_string());
                    }
                }
            } else {
                let mut ordered = group.clone();
                ordered.sort_by_key(|&j| at[j].unwrap_or(usize::MAX));
                for (k, &j) in ordered.iter().enumerate() {
                    parts[j].push(match ORDINAL_WORDS.get(k) {
                        Some(w) => (*w).to_string(),
                        None => format!("number {}", k + 1),
                    });
                }
            }
        }
    }
    names
        .iter()
        .zip(parts)
        .map(|(name, parts)| {
            if parts.is_empty() {
                name.to_string()
            } else {
                format!("{name} ({})", parts.join(", "))
            }
        })
        .collect()
}

/// A tree in document order (pre-order), with each node's parent and the end of its subtree.
struct Flat<'a> {
    nodes: Vec<&'a A11yNode>,
    parent: Vec<Option<usize>>,
    /// One past the last node of each node's subtree.
    end: Vec<usize>,
}

impl<'a> Flat<'a> {
    fn of(root: &'a A11yNode) -> Self {
        let mut flat = Flat {
            nodes: Vec::new(),
            parent: Vec::new(),
            end: Vec::new(),
        };
        // (node, parent, whether its children were pushed)
        let mut stack: Vec<(&'a A11yNode, Option<usize>, Option<usize>)> = vec![(root, None, None)];
        while let Some((node, parent, me)) = stack.pop() {
            if let Some(me) = me {
                flat.end[me] = flat.nodes.len();
                continue;
            }
            let me = flat.nodes.len();
            flat.nodes.push(node);
            flat.parent.push(parent);
            flat.end.push(me + 1);
            stack.push((node, parent, Some(me)));
            stack.extend(node.children.iter().rev().map(|c| (c, Some(me), None)));
        }
        flat
    }

    fn index(&self, node: &A11yNode) -> Option<usize> {
        self.nodes.iter().position(|n| std::ptr::eq(*n, node))
    }

    fn inside(&self, node: usize, ancestor: usize) -> bool {
        ancestor <= node && node < self.end[ancestor]
    }

    /// The text of the item element `e` (named `name`) sits in: the nearest ancestor (at most
    /// [`CONTEXT_LEVELS`] up) that holds none of `peers`, and in it the first name in document
    /// order outside `e` that is not `name` (else the ancestor's own name), cut to
    /// [`MAX_CONTEXT_CHARS`].
    fn context(&self, e: usize, name: &str, peers: &[usize]) -> Option<String> {
        let mut up = self.parent[e];
        for _ in 0..CONTEXT_LEVELS {
            let a = up?;
            if peers.iter().any(|&p| self.inside(p, a)) {
                return None;
            }
            let text = (a + 1..self.end[a])
                .filter(|&d| !self.inside(d, e))
                .map(|d| self.nodes[d].name.as_deref().unwrap_or("").trim())
                .find(|t| !t.is_empty() && *t != name)
                .or_else(|| {
                    Some(self.nodes[a].name.as_deref().unwrap_or("").trim())
                        .filter(|t| !t.is_empty() && *t != name)
                });
            if let Some(text) = text {
                return Some(cut(text));
            }
            up = self.parent[a];
        }
        None
    }
}

/// `text` on one line, at most [`MAX_CONTEXT_CHARS`] characters (cut at a word, then `…`).
fn cut(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_CONTEXT_CHARS {
        return one_line;
    }
    let head: String = one_line.chars().take(MAX_CONTEXT_CHARS).collect();
    let head = match head.rfind(' ') {
        Some(space) if space > 0 => &head[..space],
        _ => head.as_str(),
    };
    format!("{}…", head.trim_end_matches([',', ';', ':', '.']))
}

/// An element chosen for a description, with what an action needs to know of it.
struct Picked {
    found: FoundElement,
    /// The element's own name (the label may add what tells it apart).
    name: String,
    role: String,
    disabled: bool,
}

/// An element `which_element` considered: its ref, its name (the label the voice LLM reads)
/// and the classifier's confidence, in `[0, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundElement {
    /// Snapshot ref (never shown to the voice LLM).
    pub ref_: String,
    /// The element's accessible name.
    pub label: String,
    /// The chosen option's probability.
    pub confidence: f64,
}

/// One element that matches `select_elements`' criteria: `{"ref", "label", "probability"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ElementMatch {
    /// Snapshot ref.
    #[serde(rename = "ref")]
    pub ref_: String,
    /// The element's accessible name.
    pub label: String,
    /// P(it matches), at least 0.5.
    pub probability: f64,
}

/// One named element as `list_elements` reads it: `{"role", "name", "state", "value"}`, no
/// ref (refs deliberately omitted).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedElement {
    /// ARIA role.
    pub role: String,
    /// Accessible name (never empty).
    pub name: String,
    /// State tags (`checked`, `disabled`, …), possibly empty.
    pub state: Vec<String>,
    /// An input's current value, else `None` (`null`).
    pub value: Option<String>,
}

/// What `act` does to the element it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenAction {
    /// `click`.
    Click,
    /// `scroll_to`.
    ScrollTo,
    /// `highlight`.
    Highlight,
    /// `select_text` (the whole element).
    SelectText,
    /// `set_input_value` (replacing the field's text); the `screen` job calls it `fill`.
    SetInputValue,
}

impl ScreenAction {
    /// The action named `name`: `click`, `scroll_to`, `highlight`, `select_text`,
    /// `set_input_value`, or `fill` (the `screen` job's name for `set_input_value`).
    ///
    /// # Errors
    /// [`ScreenError::UnknownAction`] for any other name.
    pub fn from_name(name: &str) -> Result<Self, ScreenError> {
        Ok(match name {
            "click" => Self::Click,
            "scroll_to" => Self::ScrollTo,
            "highlight" => Self::Highlight,
            "select_text" => Self::SelectText,
            "set_input_value" | "fill" => Self::SetInputValue,
            other => return Err(ScreenError::UnknownAction(other.to_string())),
        })
    }

    /// The `screen` job's name for it: as [`ScreenAction::command`], but `fill` for
    /// [`ScreenAction::SetInputValue`].
    pub fn job_name(self) -> &'static str {
        match self {
            Self::SetInputValue => "fill",
            other => other.command(),
        }
    }

    /// Whether the action writes a value, so the `screen` job's `value` (or
    /// [`UiWorker::act`]'s) is required: a missing one is refused
    /// ([`ScreenError::ValueMissing`]), never written as `""`. Only
    /// [`ScreenAction::SetInputValue`] (`fill`) today.
    pub fn needs_value(self) -> bool {
        match self {
            Self::SetInputValue => true,
            Self::Click | Self::ScrollTo | Self::Highlight | Self::SelectText => false,
        }
    }

    /// Whether the action can act on `node`: [`UiWorker::act`] and the `screen` job send it
    /// only to such an element, and refuse when the description names another: `fill` writes only
    /// into an element that takes text ([`messages::TEXT_ENTRY_ROLES`]) and is not disabled;
    /// `click` never goes to plain text ([`messages::STATIC_TEXT_ROLES`]) nor to a disabled element
    /// (the client ignores both); `scroll_to`, `highlight` and `select_text` act on any element.
    pub fn can_act_on(self, node: &A11yNode) -> bool {
        self.acts_on(&node.role, node.state().iter().any(|t| t == "disabled"))
    }

    fn acts_on(self, role: &str, disabled: bool) -> bool {
        match self {
            Self::SetInputValue => !disabled && messages::TEXT_ENTRY_ROLES.contains(&role),
            Self::Click => !disabled && !messages::STATIC_TEXT_ROLES.contains(&role),
            Self::ScrollTo | Self::Highlight | Self::SelectText => true,
        }
    }

    /// The command name it sends.
    pub fn command(self) -> &'static str {
        match self {
            Self::Click => "click",
            Self::ScrollTo => "scroll_to",
            Self::Highlight => "highlight",
            Self::SelectText => "select_text",
            Self::SetInputValue => "set_input_value",
        }
    }
}

/// Why a screen action could not be done. `Display` is the text the requester reads.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScreenError {
    /// The classifier (and its fallback) could not answer.
    #[error(transparent)]
    Classifier(#[from] ClassifierError),
    /// An action name `act` / the `screen` job does not know.
    #[error("{}", messages::unknown_screen_action(.0))]
    UnknownAction(String),
    /// The `screen` job's action needs a target and got none (beyond pipecat).
    #[error("{}", messages::screen_target_missing(.0))]
    TargetMissing(String),
    /// The `screen` job came before any snapshot of the page (kind `no_snapshot`); holds the
    /// action. Without this, "not found", "no elements" and "no matches" would read as facts
    /// about a page nobody has seen.
    #[error("{}", messages::screen_no_snapshot(.0))]
    NoSnapshot(String),
    /// The action writes a value ([`ScreenAction::needs_value`]) and got none: no `value`,
    /// `null`, or a list or object; holds the job's action name (`fill`). An explicit `""`
    /// is a value (it clears the field).
    #[error("{}", messages::screen_value_missing(.0))]
    ValueMissing(String),
    /// The command was refused (the session ended, or another refusal than a changed screen).
    #[error(transparent)]
    Command(#[from] CommandError),
    /// The screen changed between finding the element and acting on it, every time it was
    /// tried (once and [`STALE_RETRIES`] more); holds the command name. The text
    /// tells the voice model to ask the screen again, never to use refs.
    #[error("{}", messages::screen_changed(.0))]
    ScreenChanged(String),
    /// The description best names an element the action cannot act on
    /// ([`ScreenAction::can_act_on`]: a `fill` of a button or a listbox, a `click` on plain
    /// text or on a disabled button), and no element it can act on fits; nothing was sent.
    /// `text` ([`messages::screen_cannot_act`]) says what the element is and what to do.
    #[error("{text}")]
    NotActionable {
        /// The job's action name (`fill`, `click`, …).
        action: String,
        /// The element's role.
        role: String,
        /// The element's label, as the answers give it.
        label: String,
        /// The refusal the requester reads.
        text: String,
    },
}

impl ScreenError {
    /// What kind of failure this is: the classifier's [`ErrorKind`] for
    /// [`ScreenError::Classifier`], else one name per variant (and per [`CommandError`]
    /// variant for [`ScreenError::Command`]). Its [`ScreenErrorKind::as_str`] goes beside the
    /// text in the `screen` job's answer ([`ScreenError::response`]), so a requester decides by
    /// kind and never by matching the text.
    pub fn kind(&self) -> ScreenErrorKind {
        match self {
            ScreenError::Classifier(e) => ScreenErrorKind::Classifier(e.kind()),
            ScreenError::UnknownAction(_) => ScreenErrorKind::UnknownAction,
            ScreenError::TargetMissing(_) => ScreenErrorKind::TargetMissing,
            ScreenError::NoSnapshot(_) => ScreenErrorKind::NoSnapshot,
            ScreenError::ValueMissing(_) => ScreenErrorKind::ValueMissing,
            ScreenError::ScreenChanged(_) => ScreenErrorKind::ScreenChanged,
            ScreenError::NotActionable { .. } => ScreenErrorKind::NotActionable,
            ScreenError::Command(e) => match e {
                CommandError::NoSnapshot { .. } => ScreenErrorKind::NoSnapshot,
                CommandError::StaleRef { .. } => ScreenErrorKind::StaleRef,
                CommandError::UnknownRef { .. } => ScreenErrorKind::UnknownRef,
                CommandError::EmptyRef { .. } => ScreenErrorKind::EmptyRef,
                CommandError::RefNotAString { .. } => ScreenErrorKind::RefNotAString,
                CommandError::BadOffsets { .. } => ScreenErrorKind::BadOffsets,
                CommandError::HalfOffsets => ScreenErrorKind::HalfOffsets,
                CommandError::Closed { .. } => ScreenErrorKind::SessionEnded,
            },
        }
    }

    /// The `screen` job's answer for this failure: status `error`, response `{"error": text,
    /// "kind": name}` (the key is [`crate::offline::KIND_KEY`], the name
    /// [`ScreenErrorKind::as_str`] of [`ScreenError::kind`]). `text` is the `Display` text,
    /// the one the `screen` tool gives the voice model (the tool passes only the text on).
    pub fn response(&self) -> JobResponse {
        JobResponse {
            status: hark_rtvi::JobStatus::Error,
            response: Some(json!({
                "error": self.to_string(),
                crate::offline::KIND_KEY: self.kind().as_str(),
            })),
        }
    }
}

/// The kind of a [`ScreenError`] ([`ScreenError::kind`]), named on the wire by
/// [`ScreenErrorKind::as_str`]: stable `snake_case` names, carried as `{"error": text,
/// "kind": name}` in a failed `screen` job's answer. The offline screen
/// mode words a failure by it ([`crate::offline::Failure::from_screen_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreenErrorKind {
    /// The classifier (and its fallback) failed: its [`ErrorKind`], named as
    /// [`ErrorKind::as_str`] (`no_classifier`, `not_understood`, `too_many_options`,
    /// `timeout`, `unreachable`, `bad_answer`, `other`).
    Classifier(ErrorKind),
    /// `unknown_action`: an action name the `screen` job does not know.
    UnknownAction,
    /// `target_missing`: the action needs a target and got none.
    TargetMissing,
    /// `no_snapshot`: the command found no snapshot of the screen yet
    /// ([`CommandError::NoSnapshot`]; [`crate::offline::NO_SNAPSHOT_KIND`]).
    NoSnapshot,
    /// `stale_ref`: the command's ref is not in the latest snapshot ([`CommandError::StaleRef`]).
    StaleRef,
    /// `empty_ref`: the command's ref is empty ([`CommandError::EmptyRef`]).
    EmptyRef,
    /// `ref_not_a_string`: the command's ref is not a string ([`CommandError::RefNotAString`]).
    RefNotAString,
    /// `bad_offsets`: `select_text` offsets that are not a range ([`CommandError::BadOffsets`]).
    BadOffsets,
    /// `half_offsets`: `select_text` with one offset of two ([`CommandError::HalfOffsets`]).
    HalfOffsets,
    /// `session_ended`: the client session has ended, no command can reach it
    /// ([`CommandError::Closed`]).
    SessionEnded,
    /// `screen_changed`: the screen changed under every try of the action
    /// ([`ScreenError::ScreenChanged`]).
    ScreenChanged,
    /// `value_missing`: the action writes a value and got none ([`ScreenError::ValueMissing`]).
    ValueMissing,
    /// `unknown_ref`: the command's ref is in no recent snapshot, made up or malformed
    /// ([`CommandError::UnknownRef`]).
    UnknownRef,
    /// `not_actionable`: the description names an element the action cannot act on
    /// ([`ScreenError::NotActionable`]).
    NotActionable,
}

impl ScreenErrorKind {
    /// Every kind that is not a classifier's, in declaration order (the classifier's are
    /// [`ErrorKind::ALL`]).
    pub const OWN: [ScreenErrorKind; 13] = [
        ScreenErrorKind::UnknownAction,
        ScreenErrorKind::TargetMissing,
        ScreenErrorKind::NoSnapshot,
        ScreenErrorKind::StaleRef,
        ScreenErrorKind::EmptyRef,
        ScreenErrorKind::RefNotAString,
        ScreenErrorKind::BadOffsets,
        ScreenErrorKind::HalfOffsets,
        ScreenErrorKind::SessionEnded,
        ScreenErrorKind::ScreenChanged,
        ScreenErrorKind::ValueMissing,
        ScreenErrorKind::UnknownRef,
        ScreenErrorKind::NotActionable,
    ];

    /// The kind's wire name (see each variant); a classifier's kind is its
    /// [`ErrorKind::as_str`]. No two kinds share a name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScreenErrorKind::Classifier(kind) => kind.as_str(),
            ScreenErrorKind::UnknownAction => "unknown_action",
            ScreenErrorKind::TargetMissing => "target_missing",
            ScreenErrorKind::NoSnapshot => "no_snapshot",
            ScreenErrorKind::StaleRef => "stale_ref",
            ScreenErrorKind::EmptyRef => "empty_ref",
            ScreenErrorKind::RefNotAString => "ref_not_a_string",
            ScreenErrorKind::BadOffsets => "bad_offsets",
            ScreenErrorKind::HalfOffsets => "half_offsets",
            ScreenErrorKind::SessionEnded => "session_ended",
            ScreenErrorKind::ScreenChanged => "screen_changed",
            ScreenErrorKind::ValueMissing => "value_missing",
            ScreenErrorKind::UnknownRef => "unknown_ref",
            ScreenErrorKind::NotActionable => "not_actionable",
        }
    }

    /// The kind named `name` ([`ScreenErrorKind::as_str`]); `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<ScreenErrorKind> {
        ScreenErrorKind::OWN
            .into_iter()
            .find(|k| k.as_str() == name)
            .or_else(|| ErrorKind::from_name(name).map(ScreenErrorKind::Classifier))
    }
}

impl std::fmt::Display for ScreenErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl UiWorker {
    /// Gives the worker the classifier that answers its screen questions (builder style).
    /// Replaces the default [`hark_classify::LocalClassifier`]; after
    /// [`UiWorker::without_classifier`], every question fails with [`messages::no_classifier`].
    pub fn with_classifier(mut self, classifier: Arc<dyn Classifier>) -> Self {
        self.classifiers.primary = Some(classifier);
        self
    }

    /// Beyond pipecat: a classifier asked when the first fails with a [`ClassifierError`]
    /// (e.g. the local classifier first, an [`hark_classify::LlmClassifier`] behind it).
    pub fn with_fallback_classifier(mut self, classifier: Arc<dyn Classifier>) -> Self {
        self.classifiers.fallback = Some(classifier);
        self
    }

    /// The classifier screen questions go to, if any.
    pub fn classifier(&self) -> Option<&Arc<dyn Classifier>> {
        self.classifiers.primary.as_ref()
    }

    /// Asks the classifier `questions` about `state`; on failure asks the fallback, if any.
    ///
    /// # Errors
    /// [`ClassifierError`]: no classifier, or the failure (both failures when the fallback
    /// failed too).
    pub async fn ask(
        &self,
        state: &ClassifyState,
        questions: &[(String, Question)],
    ) -> Result<Vec<(String, Answer)>, ClassifierError> {
        let Some(primary) = &self.classifiers.primary else {
            return Err(ClassifierError::of_kind(
                ErrorKind::NoClassifier,
                messages::no_classifier(),
            ));
        };
        match primary.ask(state, questions).await {
            Ok(answers) => Ok(answers),
            Err(first) => {
                let Some(fallback) = &self.classifiers.fallback else {
                    return Err(first);
                };
                tracing::warn!(
                    worker = self.name(),
                    "classifier failed; asking the fallback"
                );
                // The kind is the fallback's: the last try says what finally went wrong.
                fallback.ask(state, questions).await.map_err(|second| {
                    ClassifierError::of_kind(
                        second.kind,
                        messages::both_classifiers_failed(&first.message, &second.message),
                    )
                })
            }
        }
    }

    /// The element `description` most likely means, with the classifier's confidence, even
    /// when it is low; `None` when there is no snapshot or no named element.
    ///
    /// Asks one choice question: instructions `the element on screen the user is referring
    /// to`, options `{ref: 'role "name"'}` over the named elements, state `{"utterance":
    /// description, "screen": <ui_state>}` (as pipecat asks it), the screen handed as the
    /// snapshot's tree ([`ScreenState::tree`]: rendered only for a classifier that reads text).
    ///
    /// # Errors
    /// [`ClassifierError`].
    pub async fn find_element(
        &self,
        description: &str,
    ) -> Result<Option<FoundElement>, ClassifierError> {
        Ok(self.choose_element(description).await?.map(|p| p.found))
    }

    /// [`UiWorker::find_element`], with the element's own name, role and whether it is
    /// disabled. The label is the element's [`element_labels`] label.
    async fn choose_element(&self, description: &str) -> Result<Option<Picked>, ClassifierError> {
        let Some(screen) = self.snapshot() else {
            return Ok(None);
        };
        let root = &screen.snapshot().root;
        let all = named_elements(root);
        if all.is_empty() {
            return Ok(None);
        }
        let options = all
            .iter()
            .map(|n| {
                (
                    n.ref_.to_string(),
                    Some(messages::element_option(&n.role, name_of(n))),
                )
            })
            .collect();
        let state = ClassifyState::new()
            .with_utterance(description)
            .with_screen(screen_state(&screen));
        let questions = [(
            FIND.to_string(),
            Question::choice(messages::find_instructions(), options),
        )];
        let answers = self.ask(&state, &questions).await?;
        let choice = choice_answer(&answers, FIND)?;
        let Some(k) = all.iter().position(|n| n.ref_ == choice.choice) else {
            return Err(ClassifierError::of_kind(
                ErrorKind::BadAnswer,
                messages::classifier_choice_not_an_option(FIND, &choice.choice),
            ));
        };
        let node = all[k];
        let label = element_labels(root, &all).swap_remove(k);
        Ok(Some(Picked {
            found: FoundElement {
                ref_: node.ref_.to_string(),
                label,
                confidence: choice.confidence,
            },
            name: name_of(node).to_string(),
            role: node.role.to_string(),
            disabled: node.state().iter().any(|t| t == "disabled"),
        }))
    }

    /// Which named element the user means ("the blue button"): its ref, or `None` when there
    /// is no snapshot, no named element, or no match with confidence at least `threshold`
    /// (pipecat's default 0.5, [`DEFAULT_THRESHOLD`]).
    ///
    /// # Errors
    /// [`ClassifierError`].
    pub async fn which_element(
        &self,
        description: &str,
        threshold: f64,
    ) -> Result<Option<String>, ClassifierError> {
        Ok(self
            .find_element(description)
            .await?
            .filter(|f| f.confidence >= threshold)
            .map(|f| f.ref_))
    }

    /// Whether `criteria` is true of the screen ("is anything on the list still unchecked?"):
    /// one yes/no question with instructions `criteria` on state `{"screen": <ui_state>}`.
    ///
    /// # Errors
    /// [`ClassifierError`].
    pub async fn check_screen(&self, criteria: &str) -> Result<YesNoResult, ClassifierError> {
        let screen = match self.snapshot() {
            Some(screen) => screen_state(&screen),
            None => ScreenState::text(""),
        };
        let state = ClassifyState::new().with_screen(screen);
        let questions = [(CHECK.to_string(), Question::yes_no(criteria))];
        let answers = self.ask(&state, &questions).await?;
        yes_no_answer(&answers, CHECK)
    }

    /// The named elements that match `criteria` ("dairy products"), most likely first, each
    /// with P(match) ≥ 0.5; empty when nothing matches or there is no snapshot.
    ///
    /// One yes/no question per named element, named by its ref, with instructions
    /// `{criteria}: does {role} "{name}" match?`, all in one classifier call, on state
    /// `{"criteria", "screen"}` (as pipecat asks it).
    ///
    /// # Errors
    /// [`ClassifierError`].
    pub async fn select_elements(
        &self,
        criteria: &str,
    ) -> Result<Vec<ElementMatch>, ClassifierError> {
        let Some(screen) = self.snapshot() else {
            return Ok(Vec::new());
        };
        let elements = named_elements(&screen.snapshot().root);
        if elements.is_empty() {
            return Ok(Vec::new());
        }
        let questions: Vec<(String, Question)> = elements
            .iter()
            .map(|n| {
                (
                    n.ref_.to_string(),
                    Question::yes_no(messages::select_element_question(
                        criteria,
                        &n.role,
                        name_of(n),
                    )),
                )
            })
            .collect();
        let state = ClassifyState::new()
            .with_field("criteria", Value::String(criteria.to_string()))
            .with_screen(screen_state(&screen));
        let answers = self.ask(&state, &questions).await?;
        let labels = element_labels(&screen.snapshot().root, &elements);
        let mut matches = Vec::new();
        for (node, label) in elements.iter().zip(labels) {
            let result = yes_no_answer(&answers, &node.ref_)?;
            if result.is_yes() {
                matches.push(ElementMatch {
                    ref_: node.ref_.to_string(),
                    label,
                    probability: result.probability,
                });
            }
        }
        matches.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        Ok(matches)
    }

    /// Whether a UI event calls for the assistant to say something. `criteria` defaults to
    /// `the assistant should say something about what the user just did`; the yes/no question
    /// describes yes as `the event changes what the user is doing or asks for the assistant's
    /// attention` and no as `a routine click, scroll, hover or edit that needs no comment`, on
    /// state `{"event": {"name", "payload"}, "screen"?}` (screen only once a snapshot came).
    ///
    /// # Errors
    /// [`ClassifierError`].
    pub async fn should_respond(
        &self,
        event: &UiEvent,
        criteria: Option<&str>,
    ) -> Result<bool, ClassifierError> {
        let mut state = ClassifyState::new().with_field(
            "event",
            json!({"name": event.event, "payload": event.payload}),
        );
        if let Some(screen) = self.snapshot() {
            state = state.with_screen(screen_state(&screen));
        }
        let question = Question::YesNo(YesNoQuestion {
            instructions: Value::String(
                criteria
                    .unwrap_or(messages::should_respond_criteria())
                    .to_string(),
            ),
            yes: Some(messages::should_respond_yes().to_string()),
            no: Some(messages::should_respond_no().to_string()),
        });
        let questions = [(RESPOND.to_string(), question)];
        let answers = self.ask(&state, &questions).await?;
        Ok(yes_no_answer(&answers, RESPOND)?.is_yes())
    }

    /// Finds the element `description` means with [`UiWorker::which_element`] (threshold
    /// 0.5) and acts on it; `value` is the text for [`ScreenAction::SetInputValue`]
    /// (required there: `Some("")` clears the field, `None` is refused with
    /// [`ScreenError::ValueMissing`] before anything is asked or sent; ignored by the other
    /// actions). Returns the ref acted on, or `None` when nothing matched confidently.
    ///
    /// The command goes only to an element the action can act on
    /// ([`ScreenAction::can_act_on`]): when the description names one it cannot (a `fill` of a
    /// button or a listbox, a `click` on plain text or a disabled button), the one element of
    /// the same name it can act on takes it (the field a label names), else nothing is sent
    /// and the error says what the element is and what to do.
    ///
    /// When a newer snapshot replaced the screen between finding the element and sending the
    /// command, the element is found again on the latest snapshot (at most [`STALE_RETRIES`]
    /// times) and the command goes to its ref there.
    ///
    /// # Errors
    /// [`ScreenError::ValueMissing`] for a `set_input_value` without a value;
    /// [`ScreenError::NotActionable`] when the element meant cannot take the action;
    /// [`ScreenError::Classifier`]; [`ScreenError::ScreenChanged`] when the screen changed
    /// under every try; [`ScreenError::Command`] when the command is refused otherwise (the
    /// session ended).
    pub async fn act(
        &self,
        action: ScreenAction,
        description: &str,
        value: Option<&str>,
    ) -> Result<Option<String>, ScreenError> {
        Ok(self
            .act_found(action, description, value)
            .await?
            .map(|f| f.ref_))
    }

    /// Finds the element and acts on it. When the command is refused because a newer
    /// snapshot arrived between the choice and the command (the chosen ref is gone), finds
    /// the element again on the latest snapshot and acts on that, at most
    /// [`STALE_RETRIES`] more times (the voice model never sees refs, so it cannot
    /// retry with one itself); still refused, the error is [`ScreenError::ScreenChanged`].
    async fn act_found(
        &self,
        action: ScreenAction,
        description: &str,
        value: Option<&str>,
    ) -> Result<Option<FoundElement>, ScreenError> {
        if action.needs_value() && value.is_none() {
            return Err(ScreenError::ValueMissing(action.job_name().to_string()));
        }
        let mut retries = 0;
        loop {
            let Some(picked) = self
                .choose_element(description)
                .await?
                .filter(|p| p.found.confidence >= DEFAULT_THRESHOLD)
            else {
                return Ok(None);
            };
            let found = self.target_of(action, picked, value)?;
            let r = found.ref_.as_str();
            let sent = match action {
                ScreenAction::Click => self.click(r),
                ScreenAction::ScrollTo => self.scroll_to(r),
                ScreenAction::Highlight => self.highlight(r),
                ScreenAction::SelectText => self.select_text(r, None, None),
                ScreenAction::SetInputValue => self.set_input_value(r, value.unwrap_or(""), true),
            };
            // The ref came from a snapshot, so a refusal as unknown only means that snapshot's
            // refs have left the worker's memory (many snapshots in between): stale as well.
            let gone = matches!(
                sent,
                Err(CommandError::StaleRef { .. } | CommandError::UnknownRef { .. })
            );
            match sent {
                Ok(()) => return Ok(Some(found)),
                Err(_) if gone && retries < STALE_RETRIES => {
                    retries += 1;
                    tracing::debug!(
                        worker = self.name(),
                        command = action.command(),
                        stale = r,
                        retries,
                        "the screen changed before the command; finding the element again"
                    );
                }
                Err(_) if gone => {
                    return Err(ScreenError::ScreenChanged(action.job_name().to_string()));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The element the action goes to when the description best names `p`: `p` itself when
    /// the action can act on it ([`ScreenAction::can_act_on`]); else the one element of the
    /// same name it can act on (the field a label text names); else the refusal that says
    /// what `p` is and what to do ([`ScreenError::NotActionable`]).
    fn target_of(
        &self,
        action: ScreenAction,
        p: Picked,
        value: Option<&str>,
    ) -> Result<FoundElement, ScreenError> {
        if action.acts_on(&p.role, p.disabled) {
            return Ok(p.found);
        }
        if let Some(screen) = self.snapshot() {
            let root = &screen.snapshot().root;
            let all = named_elements(root);
            let twins: Vec<usize> = (0..all.len())
                .filter(|&k| {
                    all[k].ref_ != p.found.ref_
                        && name_of(all[k]) == p.name
                        && action.can_act_on(all[k])
                })
                .collect();
            if let [k] = twins[..] {
                return Ok(FoundElement {
                    ref_: all[k].ref_.to_string(),
                    label: element_labels(root, &all).swap_remove(k),
                    confidence: p.found.confidence,
                });
            }
        }
        let name = action.job_name();
        Err(ScreenError::NotActionable {
            action: name.to_string(),
            text: messages::screen_cannot_act(name, &p.role, &p.found.label, value, p.disabled),
            role: p.role,
            label: p.found.label,
        })
    }

    /// The named elements on screen, read with plain code (no classifier): role, name, state
    /// tags and value, never the ref. `role` (e.g. `"checkbox"`) keeps only those; `None` or
    /// `""` keeps all. Empty before the first snapshot.
    pub fn list_elements(&self, role: Option<&str>) -> Vec<ListedElement> {
        let Some(screen) = self.snapshot() else {
            return Vec::new();
        };
        let role = role.filter(|r| !r.is_empty());
        named_elements(&screen.snapshot().root)
            .into_iter()
            .filter(|n| role.is_none_or(|r| n.role == r))
            .map(|n| ListedElement {
                role: n.role.to_string(),
                name: name_of(n).to_string(),
                state: n.state().to_vec(),
                value: n.value().map(str::to_string),
            })
            .collect()
    }

    /// The `screen` job. `payload` is
    /// `{"action", "target"?, "value"?}`; a missing or non-string `action`/`target` reads as
    /// `""`, a `value` that is a number or boolean as its JSON text. `fill` needs a value
    /// ([`ScreenAction::needs_value`]): `"value": ""` clears the field, while a missing or
    /// `null` value (or a list or object) is refused with [`ScreenError::ValueMissing`]
    /// (`value_missing`) before the classifier is asked, so nothing is wiped by accident.
    ///
    /// | action | answer (status completed) |
    /// | --- | --- |
    /// | `find` | `{"label": name or null, "confidence": c}`; label only when c ≥ 0.5; `{"label": null, "confidence": 0.0}` without elements |
    /// | `check` | `{"yes": p ≥ 0.5, "probability": p}` |
    /// | `select` | `{"matches": [{"label", "probability"}, …]}`, most likely first |
    /// | `list` | `{"elements": [{"role", "name", "state", "value"}, …]}`, `target` = optional role |
    /// | `selection` | `{"text": selected text or null}` |
    /// | `click` `scroll_to` `highlight` `select_text` `fill` | `{"done": bool, "label": name or null}`, acting only at confidence ≥ 0.5 |
    ///
    /// No answer carries a ref. An unknown action, a missing target or value (beyond
    /// pipecat), a job before any snapshot of the page (`no_snapshot`; every action but
    /// `selection`), a classifier failure or a refused command answer `{"error": text, "kind":
    /// name}` with status `error` ([`ScreenError::response`]; `name` is
    /// [`ScreenErrorKind::as_str`]).
    pub async fn screen(&self, payload: &Value) -> JobResponse {
        match self.screen_answer(payload).await {
            Ok(answer) => JobResponse::completed(answer),
            Err(e) => e.response(),
        }
    }

    async fn screen_answer(&self, payload: &Value) -> Result<Value, ScreenError> {
        let text = |key: &str| payload.get(key).and_then(Value::as_str).unwrap_or("");
        let action = text("action");
        let target = text("target").trim();
        let needs_screen = |action: &str| {
            if self.shared_snapshot().is_none() {
                Err(ScreenError::NoSnapshot(action.to_string()))
            } else {
                Ok(())
            }
        };
        let needs_target = |action: &str| {
            if target.is_empty() {
                Err(ScreenError::TargetMissing(action.to_string()))
            } else {
                needs_screen(action)
            }
        };
        match action {
            "find" => {
                needs_target(action)?;
                Ok(match self.find_element(target).await? {
                    None => json!({"label": null, "confidence": 0.0}),
                    Some(f) => {
                        let label = (f.confidence >= DEFAULT_THRESHOLD).then_some(f.label);
                        json!({"label": label, "confidence": f.confidence})
                    }
                })
            }
            "check" => {
                needs_target(action)?;
                let r = self.check_screen(target).await?;
                Ok(json!({"yes": r.is_yes(), "probability": r.probability}))
            }
            "select" => {
                needs_target(action)?;
                let matches: Vec<Value> = self
                    .select_elements(target)
                    .await?
                    .into_iter()
                    .map(|m| json!({"label": m.label, "probability": m.probability}))
                    .collect();
                Ok(json!({ "matches": matches }))
            }
            "list" => {
                needs_screen(action)?;
                Ok(json!({ "elements": self.list_elements(Some(target)) }))
            }
            "selection" => Ok(json!({"text": self.selection().map(|s| s.text)})),
            other => {
                let act = ScreenAction::from_name(other)?;
                if other == "set_input_value" {
                    // The job's name for it is `fill`.
                    return Err(ScreenError::UnknownAction(other.to_string()));
                }
                needs_target(other)?;
                let value = match payload.get("value") {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(v.to_string()),
                    // Missing, null, a list or an object: no text to write (refused below
                    // when the action writes one, never written as "").
                    _ => None,
                };
                let found = self.act_found(act, target, value.as_deref()).await?;
                Ok(json!({"done": found.is_some(), "label": found.map(|f| f.label)}))
            }
        }
    }
}

/// The screen for a classifier: the snapshot's tree, with the renderer for a classifier that
/// reads `<ui_state>` text.
fn screen_state(screen: &Screen) -> ScreenState {
    ScreenState::tree(screen.shared().clone(), render::render_ui_state)
}
