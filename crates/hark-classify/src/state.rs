//! What a classifier is asked about: the user's words, the screen as the snapshot's tree, and
//! any other fields a question needs (a UI event, select criteria, a flow's read-back).
//!
//! A UI worker hands the tree it already holds ([`ScreenState::tree`]): the local classifier
//! reads the tree itself, nothing is rendered or parsed back. The LLM classifier needs the
//! screen as `<ui_state>` text in its prompt; the worker hands the renderer with the tree and
//! the text is rendered once, only when a classifier asks for it ([`ScreenState::ui_state`]).
//! A caller that only has the text (pipecat's own `UIWorker` hands its classifier exactly
//! that) comes in with [`ClassifyState::from_ui_state_text`] or [`ClassifyState::from_value`]:
//! the local classifier then reads the text into a tree itself.
//!
//! ```
//! use std::sync::Arc;
//! use hark_classify::{ClassifyState, ScreenState};
//! use hark_rtvi::A11ySnapshot;
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let snapshot = Arc::new(A11ySnapshot::from_json(
//!     r#"{"root":{"ref":"e1","role":"button","name":"Pay"},"captured_at":1}"#)?);
//! fn render(s: &A11ySnapshot) -> String { format!("<ui_state>\n- {} [ref={}]\n</ui_state>", s.root.role, s.root.ref_) }
//! let state = ClassifyState::new()
//!     .with_utterance("pay now")
//!     .with_screen(ScreenState::tree(snapshot, render));
//! // What an LLM classifier shows its model, the text rendered on first use.
//! assert_eq!(state.to_value(), json!({"utterance": "pay now",
//!     "screen": "<ui_state>\n- button [ref=e1]\n</ui_state>"}));
//!
//! // The text way in: the same fields from a JSON state.
//! let read = ClassifyState::from_value(json!({"utterance": "pay now", "screen": "<ui_state>\n</ui_state>"}));
//! assert_eq!(read.utterance.as_deref(), Some("pay now"));
//! assert!(read.screen.as_ref().is_some_and(|s| s.snapshot().is_none()));
//! # Ok(()) }
//! ```

use std::sync::{Arc, OnceLock};

use hark_rtvi::A11ySnapshot;
use serde_json::{Map, Value};

/// Renders a snapshot as `<ui_state>` text (the UI worker's renderer).
pub type RenderUiState = fn(&A11ySnapshot) -> String;

/// The screen a question is about: the snapshot's tree (with the renderer that makes its
/// `<ui_state>` text when a classifier needs the text), or only the text.
#[derive(Debug, Clone)]
pub struct ScreenState {
    snapshot: Option<Arc<A11ySnapshot>>,
    render: Option<RenderUiState>,
    text: OnceLock<String>,
}

impl ScreenState {
    /// The screen as the snapshot's tree; `render` makes its `<ui_state>` text, at most once
    /// and only when a classifier asks for the text.
    pub fn tree(snapshot: impl Into<Arc<A11ySnapshot>>, render: RenderUiState) -> Self {
        ScreenState {
            snapshot: Some(snapshot.into()),
            render: Some(render),
            text: OnceLock::new(),
        }
    }

    /// The screen as `<ui_state>` text only (a caller that has no tree).
    pub fn text(text: impl Into<String>) -> Self {
        ScreenState {
            snapshot: None,
            render: None,
            text: OnceLock::from(text.into()),
        }
    }

    /// The snapshot, when the screen came as a tree.
    pub fn snapshot(&self) -> Option<&Arc<A11ySnapshot>> {
        self.snapshot.as_ref()
    }

    /// The screen as `<ui_state>` text: the text given, or the tree rendered now (once).
    pub fn ui_state(&self) -> &str {
        self.text
            .get_or_init(|| match (&self.snapshot, self.render) {
                (Some(s), Some(render)) => render(s),
                _ => String::new(),
            })
    }
}

/// The state a [`crate::Classifier`] answers questions about.
///
/// As JSON ([`ClassifyState::to_value`], what an LLM classifier shows its model) it is
/// `{"utterance"?, …extra fields, "screen"?}`, the screen as `<ui_state>` text, or the extra
/// value itself when there is neither an utterance nor a screen (a flow's judge state, a plain
/// string).
#[derive(Debug, Clone, Default)]
pub struct ClassifyState {
    /// What the user said: the description a choice question matches.
    pub utterance: Option<String>,
    /// The screen, when the question is about one.
    pub screen: Option<ScreenState>,
    /// Any other fields (`{"event": …}`, `{"criteria": …}`, a flow's read-back), `null` when
    /// none. An object's fields go between the utterance and the screen in
    /// [`ClassifyState::to_value`].
    pub extra: Value,
}

impl ClassifyState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// With what the user said.
    pub fn with_utterance(mut self, utterance: impl Into<String>) -> Self {
        self.utterance = Some(utterance.into());
        self
    }

    /// With the screen.
    pub fn with_screen(mut self, screen: ScreenState) -> Self {
        self.screen = Some(screen);
        self
    }

    /// With one more field (`extra` becomes an object when it was not one).
    pub fn with_field(mut self, key: impl Into<String>, value: Value) -> Self {
        if !self.extra.is_object() {
            self.extra = Value::Object(Map::new());
        }
        if let Value::Object(map) = &mut self.extra {
            map.insert(key.into(), value);
        }
        self
    }

    /// A state whose screen is this `<ui_state>` text (pipecat's `UIWorker` hands its
    /// classifier the rendered text).
    pub fn from_ui_state_text(text: impl Into<String>) -> Self {
        Self::new().with_screen(ScreenState::text(text))
    }

    /// A state read from JSON: of an object, a string `"utterance"` is the utterance, a
    /// string `"screen"` the screen's `<ui_state>` text, and the other fields stay as they are
    /// in `extra`; any other value is `extra` itself.
    pub fn from_value(value: Value) -> Self {
        let Value::Object(mut map) = value else {
            return ClassifyState {
                extra: value,
                ..Self::default()
            };
        };
        let utterance = match map.get("utterance") {
            Some(Value::String(_)) => match map.remove("utterance") {
                Some(Value::String(u)) => Some(u),
                _ => None,
            },
            _ => None,
        };
        let screen = match map.get("screen") {
            Some(Value::String(_)) => match map.remove("screen") {
                Some(Value::String(s)) => Some(ScreenState::text(s)),
                _ => None,
            },
            _ => None,
        };
        ClassifyState {
            utterance,
            screen,
            extra: Value::Object(map),
        }
    }

    /// The extra field `key`, if `extra` is an object that has it.
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.extra.get(key)
    }

    /// The state as JSON (see the type's docs); the screen rendered as `<ui_state>` text.
    pub fn to_value(&self) -> Value {
        if self.utterance.is_none() && self.screen.is_none() {
            return self.extra.clone();
        }
        let mut map = Map::new();
        if let Some(u) = &self.utterance {
            map.insert("utterance".into(), Value::String(u.clone()));
        }
        match &self.extra {
            Value::Object(extra) => {
                for (k, v) in extra {
                    map.insert(k.clone(), v.clone());
                }
            }
            Value::Null => {}
            other => {
                map.insert("extra".into(), other.clone());
            }
        }
        if let Some(screen) = &self.screen {
            map.insert(
                "screen".into(),
                Value::String(screen.ui_state().to_string()),
            );
        }
        Value::Object(map)
    }
}

impl From<Value> for ClassifyState {
    /// [`ClassifyState::from_value`].
    fn from(value: Value) -> Self {
        Self::from_value(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_states_read_back_as_they_were() {
        for value in [
            json!({"utterance": "sign me in", "screen": "<ui_state>\n</ui_state>"}),
            json!({"criteria": "dairy", "screen": "<ui_state>\n</ui_state>"}),
            json!({"event": {"name": "nav_click", "payload": null}, "screen": "x"}),
            json!({"read_back": "two at six", "answer": "yes", "language": "en"}),
            json!({}),
            json!("state"),
        ] {
            assert_eq!(ClassifyState::from_value(value.clone()).to_value(), value);
        }
    }

    #[test]
    fn a_tree_is_rendered_once_and_only_when_asked() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static RENDERS: AtomicUsize = AtomicUsize::new(0);
        fn render(_: &A11ySnapshot) -> String {
            RENDERS.fetch_add(1, Ordering::SeqCst);
            "<ui_state>\n</ui_state>".into()
        }
        let snapshot =
            A11ySnapshot::from_json(r#"{"root":{"ref":"e1","role":"generic"},"captured_at":1}"#)
                .unwrap();
        let state = ClassifyState::new()
            .with_field("criteria", json!("dairy"))
            .with_screen(ScreenState::tree(snapshot, render));
        assert_eq!(RENDERS.load(Ordering::SeqCst), 0);
        assert_eq!(
            state.to_value(),
            json!({"criteria": "dairy", "screen": "<ui_state>\n</ui_state>"})
        );
        assert_eq!(state.to_value()["criteria"], "dairy");
        assert_eq!(RENDERS.load(Ordering::SeqCst), 1);
    }
}
