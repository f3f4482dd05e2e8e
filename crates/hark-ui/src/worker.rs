//! [`UiWorker`]: the latest snapshot, its refs, rendering, and UI commands to the client
//! (guide: `docs/guide/ui-worker.md`, "Snapshots, `<ui_state>` and UI commands").
//!
//! The worker stores the latest [`A11ySnapshot`] (decoded at the edge by hark-rtvi), shared
//! behind an `Arc` with the session that received it. Commands go out as [`ServerMessage::UiCommand`] through a [`CommandSink`]
//! (a tokio channel in a server session). Beyond pipecat: a command aimed at a ref
//! that is not in the latest snapshot is refused with a [`CommandError`], never sent: as
//! stale ([`CommandError::StaleRef`]) when an earlier snapshot had it, as unknown
//! ([`CommandError::UnknownRef`]) when none of the latest did ([`UiWorker::has_seen_ref`]).
//!
//! Later slices (respond/screen jobs, classifiers, job groups, the reply tool) build on this
//! type: they read [`UiWorker::snapshot`] and act through the same command helpers.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};

use hark_rtvi::ServerMessage;
use hark_rtvi::ui::{
    Click, Focus, Highlight, Navigate, ScrollTo, SelectText, SetInputValue, Toast, UiCommand,
    UiEvent,
};
use hark_rtvi::{A11yNode, A11ySnapshot, SharedSnapshot};
use serde_json::{Map, Value};

use crate::context::UiContextOptions;
use crate::{messages, render};

pub use hark_bus::{CommandSink, SinkClosed};

/// Why a UI command was not sent. `Display` is the text a model or caller reads
/// (from [`crate::messages`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The ref is not in the latest snapshot: the page changed.
    #[error("{}", messages::stale_ref(command, ref_))]
    StaleRef {
        /// Command name.
        command: String,
        /// The refused ref.
        ref_: String,
    },
    /// The ref is in no recent snapshot of the session either: made up, mistyped or not a ref
    /// at all (`e999`). A ref that was on an earlier snapshot is
    /// [`CommandError::StaleRef`] instead ([`UiWorker::has_seen_ref`]).
    #[error("{}", messages::unknown_ref(command, ref_))]
    UnknownRef {
        /// Command name.
        command: String,
        /// The refused ref.
        ref_: String,
    },
    /// No snapshot has arrived yet, so no ref can be valid.
    #[error("{}", messages::no_snapshot(command, ref_))]
    NoSnapshot {
        /// Command name.
        command: String,
        /// The refused ref.
        ref_: String,
    },
    /// The ref is the empty string (text nodes have no ref).
    #[error("{}", messages::empty_ref(command))]
    EmptyRef {
        /// Command name.
        command: String,
    },
    /// `payload.ref` is present but not a string.
    #[error("{}", messages::ref_not_a_string(command))]
    RefNotAString {
        /// Command name.
        command: String,
    },
    /// `select_text` offsets that are not a range (`start > end`, or negative).
    #[error("{}", messages::bad_offsets(*start, *end))]
    BadOffsets {
        /// Start offset given.
        start: i64,
        /// End offset given.
        end: i64,
    },
    /// `select_text` with only one of the two offsets.
    #[error("{}", messages::half_offsets())]
    HalfOffsets,
    /// The client session has ended.
    #[error("{}", messages::channel_closed(command))]
    Closed {
        /// Command name.
        command: String,
    },
}

/// The latest snapshot's tree, as a piece of work reads it ([`UiWorker::snapshot`]), shared
/// with whoever else holds it (no copy is made). A snapshot kept as its JSON
/// ([`hark_rtvi::SharedSnapshot`]) is decoded by the first read after its arrival and kept
/// decoded until the next snapshot replaces it.
///
/// Refs are looked up by walking the tree (iteratively, any depth; at most
/// [`hark_rtvi::snapshot::MAX_SNAPSHOT_NODES`] nodes): commands are rare next to snapshots, so
/// no index is built per snapshot (one copy of each snapshot, no set of owned refs).
#[derive(Debug)]
pub struct Screen {
    snapshot: Arc<A11ySnapshot>,
}

impl Screen {
    /// The screen of `snapshot` (an owned snapshot or a shared `Arc`; no copy of the tree is
    /// made).
    pub fn new(snapshot: impl Into<Arc<A11ySnapshot>>) -> Self {
        Screen {
            snapshot: snapshot.into(),
        }
    }

    /// The snapshot as the client sent it.
    pub fn snapshot(&self) -> &A11ySnapshot {
        &self.snapshot
    }

    /// The shared snapshot itself.
    pub fn shared(&self) -> &Arc<A11ySnapshot> {
        &self.snapshot
    }

    /// Whether `ref_` names an element of this snapshot (`""` never does).
    pub fn has_ref(&self, ref_: &str) -> bool {
        !ref_.is_empty() && self.nodes().any(|n| n.ref_ == ref_)
    }

    /// Number of distinct non-empty refs in the snapshot (counted on each call).
    pub fn ref_count(&self) -> usize {
        self.nodes()
            .filter(|n| !n.ref_.is_empty())
            .map(|n| n.ref_.as_str())
            .collect::<HashSet<_>>()
            .len()
    }

    /// Every node, depth first, without recursion.
    fn nodes(&self) -> impl Iterator<Item = &A11yNode> {
        let mut stack: Vec<&A11yNode> = vec![&self.snapshot.root];
        std::iter::from_fn(move || {
            let node = stack.pop()?;
            stack.extend(node.children.iter().rev());
            Some(node)
        })
    }
}

/// How many distinct refs one generation of [`RefMemory`] takes before the memory turns over:
/// the worker remembers at least this many of the latest refs it was shown (the current
/// snapshot's and those before it), at most twice as many. 1,024 is five snapshots of a
/// 200-node page whose every ref changes, and any number of snapshots of a page whose refs
/// stay.
pub const REMEMBERED_REFS: usize = 1024;

/// Bits of one generation's filter: 8 per remembered ref, so with [`REF_HASHES`] hashes a
/// ref never shown reads as seen about 3 % of the time at the fullest (then it gets the
/// stale-ref text, as before this memory existed).
const REF_BITS: usize = REMEMBERED_REFS * 8;
/// Bit positions per ref.
const REF_HASHES: u32 = 3;
const REF_WORDS: usize = REF_BITS / 64;
/// Levels [`RefMemory::add_tree`] recurses before it walks with a heap stack.
const REF_WALK_DEPTH: usize = 128;

/// The refs of the latest snapshots, remembered so a refused ref can be told apart: one that
/// was on an earlier snapshot (stale) from one no snapshot had (made up).
///
/// Two generations of a Bloom filter, fixed size (2 × 1 KiB, allocated once per worker):
/// every snapshot's refs go into the current one; when it holds [`REMEMBERED_REFS`] distinct
/// refs, it becomes the previous one and a cleared filter the current. Adding a snapshot hashes
/// each ref (FxHash) and sets a few bits, allocating nothing; only a refused command reads it.
/// Never a false "unknown": a ref of the last [`REMEMBERED_REFS`] is always found.
struct RefMemory {
    /// `[current, previous]`.
    bits: Box<[[u64; REF_WORDS]; 2]>,
    /// Distinct refs added to the current generation.
    current: usize,
}

impl std::fmt::Debug for RefMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefMemory")
            .field("current", &self.current)
            .finish_non_exhaustive()
    }
}

impl Default for RefMemory {
    fn default() -> Self {
        RefMemory {
            bits: Box::new([[0; REF_WORDS]; 2]),
            current: 0,
        }
    }
}

impl RefMemory {
    fn positions(ref_: &str) -> impl Iterator<Item = usize> {
        let mut hasher = rustc_hash::FxHasher::default();
        std::hash::Hasher::write(&mut hasher, ref_.as_bytes());
        let h = std::hash::Hasher::finish(&hasher);
        // Double hashing from one 64-bit hash; FxHash's high bits are its best mixed.
        let (h1, h2) = ((h >> 32) as usize, (h.rotate_left(17) as usize) | 1);
        (0..REF_HASHES as usize).map(move |k| h1.wrapping_add(k.wrapping_mul(h2)) % REF_BITS)
    }

    fn in_generation(&self, generation: usize, ref_: &str) -> bool {
        let bits = &self.bits[generation];
        Self::positions(ref_).all(|p| bits[p / 64] & (1 << (p % 64)) != 0)
    }

    fn add(&mut self, ref_: &str) {
        if ref_.is_empty() || self.in_generation(0, ref_) {
            return;
        }
        if self.current == REMEMBERED_REFS {
            let [current, previous] = &mut *self.bits;
            *previous = *current;
            *current = [0; REF_WORDS];
            self.current = 0;
        }
        let bits = &mut self.bits[0];
        for p in Self::positions(ref_) {
            bits[p / 64] |= 1 << (p % 64);
        }
        self.current += 1;
    }

    /// Adds every ref of the tree. Recursive to [`REF_WALK_DEPTH`] levels, so a snapshot
    /// allocates nothing (client-js trees are at most 10 deep, decoded ones at most
    /// [`hark_rtvi::snapshot::MAX_TREE_DEPTH`]); a deeper subtree (a tree built in code) is
    /// walked with a stack on the heap.
    fn add_tree(&mut self, root: &A11yNode) {
        self.add_within(root, 0);
    }

    fn add_within(&mut self, node: &A11yNode, depth: usize) {
        if depth >= REF_WALK_DEPTH {
            let mut stack = vec![node];
            while let Some(n) = stack.pop() {
                self.add(&n.ref_);
                stack.extend(n.children.iter());
            }
            return;
        }
        self.add(&node.ref_);
        for child in &node.children {
            self.add_within(child, depth + 1);
        }
    }

    fn seen(&self, ref_: &str) -> bool {
        !ref_.is_empty() && (self.in_generation(0, ref_) || self.in_generation(1, ref_))
    }
}

/// The user's selected text (pipecat's `selection`): the ref of the element the selection is
/// in and the text, trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiSelection {
    /// Snapshot ref of the element holding the selection.
    pub ref_: String,
    /// Selected text, surrounding whitespace removed; never empty.
    pub text: String,
}

/// The screen side of a voice/UI split: holds the latest snapshot and drives the client.
///
/// Thread-safe: share it in an `Arc`; snapshots arrive from the session task while jobs and
/// event handlers read it and send commands.
#[derive(Debug)]
pub struct UiWorker {
    name: String,
    options: UiContextOptions,
    /// The latest snapshot, kept as the session keeps it (as its JSON, for a server session).
    screen: RwLock<Option<SharedSnapshot>>,
    /// The refs of the latest snapshots (stale vs made-up refs; [`RefMemory`]).
    seen_refs: Mutex<RefMemory>,
    sink: Arc<dyn CommandSink>,
    /// The classifier and its fallback for screen questions (`crate::screen`).
    pub(crate) classifiers: crate::screen::Classifiers,
}

impl UiWorker {
    /// A worker named `name` (the name requesters address jobs to) sending commands to `sink`,
    /// with pipecat's default context options. Its classifier is the in-process
    /// [`hark_classify::LocalClassifier`] (replace it with
    /// [`UiWorker::with_classifier`], put an LLM classifier behind it with
    /// [`UiWorker::with_fallback_classifier`], or remove it with
    /// [`UiWorker::without_classifier`]).
    pub fn new(name: impl Into<String>, sink: Arc<dyn CommandSink>) -> Self {
        Self::with_options(name, sink, UiContextOptions::default())
    }

    /// As [`UiWorker::new`] with explicit context options.
    pub fn with_options(
        name: impl Into<String>,
        sink: Arc<dyn CommandSink>,
        options: UiContextOptions,
    ) -> Self {
        UiWorker {
            name: name.into(),
            options,
            screen: RwLock::new(None),
            seen_refs: Mutex::default(),
            sink,
            classifiers: crate::screen::Classifiers {
                primary: Some(Arc::new(hark_classify::LocalClassifier::new())),
                fallback: None,
            },
        }
    }

    /// Removes the classifier (builder style): screen questions then fail with
    /// [`crate::messages::no_classifier`]; plain reads (`list`) still work.
    pub fn without_classifier(mut self) -> Self {
        self.classifiers.primary = None;
        self
    }

    /// The worker's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The context options (`inject_events`, `auto_inject_ui_state`, `keep_history`,
    /// `prompt_guide`).
    pub fn options(&self) -> &UiContextOptions {
        &self.options
    }

    /// Stores a snapshot from the client (`ui-snapshot`); it replaces the previous one, and from
    /// now on only its refs are accepted.
    ///
    /// Takes an owned [`A11ySnapshot`], an `Arc<A11ySnapshot>`, or the [`SharedSnapshot`] a
    /// server session already holds (no copy of the tree is made; a snapshot kept as JSON is
    /// read through its tree held since arrival). Then calls the classifiers'
    /// [`Classifier::prepare`](hark_classify::Classifier::prepare) hook on it, which must
    /// return at once (the local classifier starts its embedding work in the background).
    pub fn on_snapshot(&self, snapshot: impl Into<SharedSnapshot>) {
        let snapshot = snapshot.into();
        let tree = snapshot.tree();
        // Remembered before it is published, so every ref a question can read from the
        // latest snapshot is known to have been shown (unknown vs stale).
        self.seen_refs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add_tree(&tree.root);
        let previous = {
            let mut slot = self.screen.write().unwrap_or_else(|e| e.into_inner());
            slot.replace(snapshot)
        };
        // The old snapshot is freed here, outside the lock, when this was its last holder.
        drop(previous);
        for classifier in [&self.classifiers.primary, &self.classifiers.fallback]
            .into_iter()
            .flatten()
        {
            classifier.prepare(&tree);
        }
    }

    /// Forgets the page: the latest snapshot and the refs it remembers, as before the first
    /// snapshot (a `screen` job answers `no_snapshot`, a command [`CommandError::NoSnapshot`]).
    /// For a worker whose page's sender was replaced (a new call on the same bus channel): the
    /// old page is another caller's.
    pub fn forget_screen(&self) {
        *self.seen_refs.lock().unwrap_or_else(|e| e.into_inner()) = RefMemory::default();
        let previous = self
            .screen
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        drop(previous);
    }

    /// Whether `ref_` was on one of the latest snapshots this worker accepted (the current
    /// one included): at least the last [`REMEMBERED_REFS`] distinct refs are remembered, so a
    /// session of any length keeps a bounded memory. A ref refused by a command is
    /// [`CommandError::StaleRef`] when seen, [`CommandError::UnknownRef`] when not. May
    /// rarely answer `true` for a ref never shown (a 2 × 1 KiB Bloom filter), never `false`
    /// for one of the latest.
    pub fn has_seen_ref(&self, ref_: &str) -> bool {
        self.seen_refs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .seen(ref_)
    }

    /// The latest snapshot and its refs, or `None` before the first one arrives. A snapshot
    /// kept as JSON is decoded here by the first read after its arrival (and kept decoded
    /// until it is replaced).
    pub fn snapshot(&self) -> Option<Arc<Screen>> {
        let snapshot = self
            .screen
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()?;
        Some(Arc::new(Screen::new(snapshot.tree())))
    }

    /// The latest snapshot as it is kept (as JSON for a server session), without decoding it.
    pub fn shared_snapshot(&self) -> Option<SharedSnapshot> {
        self.screen
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The user's selected text, or `None` when nothing is selected (no selection, an empty ref,
    /// or only whitespace selected), as pipecat's `selection`.
    pub fn selection(&self) -> Option<UiSelection> {
        let screen = self.snapshot()?;
        let sel = screen.snapshot.selection.as_ref()?;
        let text = sel.text.trim();
        (!sel.ref_.is_empty() && !text.is_empty()).then(|| UiSelection {
            ref_: sel.ref_.to_string(),
            text: text.to_string(),
        })
    }

    /// The `<ui_state>` block of the latest snapshot, `""` before the first
    /// (see [`render::render_ui_state`]).
    pub fn render_ui_state(&self) -> String {
        self.snapshot()
            .map(|s| render::render_ui_state(&s.snapshot))
            .unwrap_or_default()
    }

    /// The `<ui_event>` text of a client event (see [`render::render_ui_event_payload`]).
    pub fn render_ui_event(&self, event: &UiEvent) -> String {
        render::render_ui_event_payload(&event.event, event.payload.as_ref())
    }

    /// Sends a named command with a free-form payload (`Value::Null` is sent as `{}`).
    ///
    /// Any name is allowed. When the payload is an object with a `ref` that is not `null`, the
    /// ref must be a non-empty string of the latest snapshot, else the command is refused
    /// (beyond pipecat). Errors: [`CommandError`].
    pub fn send_command(&self, name: &str, payload: Value) -> Result<(), CommandError> {
        let payload = if payload.is_null() {
            Value::Object(Map::new())
        } else {
            payload
        };
        match payload.get("ref") {
            None | Some(Value::Null) => {}
            Some(Value::String(r)) => self.check_ref(name, r)?,
            Some(_) => {
                return Err(CommandError::RefNotAString {
                    command: name.to_string(),
                });
            }
        }
        self.dispatch(UiCommand::new(name, payload))
    }

    /// `scroll_to`: bring `ref_` into view; payload `{"ref","target_id":null,"behavior":null}`.
    pub fn scroll_to(&self, ref_: &str) -> Result<(), CommandError> {
        self.checked(
            ref_,
            &ScrollTo {
                ref_: Some(ref_.into()),
                ..Default::default()
            },
        )
    }

    /// `highlight`: flash `ref_`; payload `{"ref","target_id":null,"duration_ms":null}`.
    pub fn highlight(&self, ref_: &str) -> Result<(), CommandError> {
        self.checked(
            ref_,
            &Highlight {
                ref_: Some(ref_.into()),
                ..Default::default()
            },
        )
    }

    /// `focus`: focus `ref_`; payload `{"ref","target_id":null}`.
    pub fn focus(&self, ref_: &str) -> Result<(), CommandError> {
        self.checked(
            ref_,
            &Focus {
                ref_: Some(ref_.into()),
                ..Default::default()
            },
        )
    }

    /// `click`: click `ref_` (the client no-ops on disabled targets); payload
    /// `{"ref","target_id":null}`.
    pub fn click(&self, ref_: &str) -> Result<(), CommandError> {
        self.checked(
            ref_,
            &Click {
                ref_: Some(ref_.into()),
                ..Default::default()
            },
        )
    }

    /// `set_input_value`: write `value` into `ref_`, replacing (`replace = true`, pipecat's
    /// default) or appending; payload `{"value","ref","target_id":null,"replace"}`.
    pub fn set_input_value(
        &self,
        ref_: &str,
        value: &str,
        replace: bool,
    ) -> Result<(), CommandError> {
        let payload = SetInputValue {
            value: value.into(),
            ref_: Some(ref_.into()),
            target_id: None,
            replace,
        };
        self.checked(ref_, &payload)
    }

    /// `select_text`: select `ref_`'s whole text, or the character range
    /// `start_offset..end_offset` (end exclusive) when both are given; payload
    /// `{"ref","target_id":null,"start_offset","end_offset"}`.
    ///
    /// Errors beyond the ref checks: [`CommandError::HalfOffsets`] when only one offset is
    /// given, [`CommandError::BadOffsets`] when `start < 0` or `start > end`.
    pub fn select_text(
        &self,
        ref_: &str,
        start_offset: Option<i64>,
        end_offset: Option<i64>,
    ) -> Result<(), CommandError> {
        match (start_offset, end_offset) {
            (Some(start), Some(end)) if start < 0 || start > end => {
                return Err(CommandError::BadOffsets { start, end });
            }
            (Some(_), None) | (None, Some(_)) => return Err(CommandError::HalfOffsets),
            _ => {}
        }
        let payload = SelectText {
            ref_: Some(ref_.into()),
            target_id: None,
            start_offset,
            end_offset,
        };
        self.checked(ref_, &payload)
    }

    /// `toast`: a notification; no ref involved. Payload: every [`Toast`] field, nulls
    /// kept.
    pub fn toast(&self, toast: &Toast) -> Result<(), CommandError> {
        self.dispatch(UiCommand::from_payload(toast))
    }

    /// `navigate`: switch the app to `view` with optional `params`; payload
    /// `{"view","params"}`.
    pub fn navigate(
        &self,
        view: &str,
        params: Option<Map<String, Value>>,
    ) -> Result<(), CommandError> {
        self.dispatch(UiCommand::from_payload(&Navigate {
            view: view.into(),
            params,
        }))
    }

    fn checked<P: hark_rtvi::ui::CommandPayload>(
        &self,
        ref_: &str,
        payload: &P,
    ) -> Result<(), CommandError> {
        self.check_ref(P::COMMAND, ref_)?;
        self.dispatch(UiCommand::from_payload(payload))
    }

    fn check_ref(&self, command: &str, ref_: &str) -> Result<(), CommandError> {
        if ref_.is_empty() {
            return Err(CommandError::EmptyRef {
                command: command.to_string(),
            });
        }
        match self.snapshot() {
            None => Err(CommandError::NoSnapshot {
                command: command.to_string(),
                ref_: ref_.to_string(),
            }),
            Some(screen) if !screen.has_ref(ref_) => {
                let command = command.to_string();
                let ref_ = ref_.to_string();
                Err(if self.has_seen_ref(&ref_) {
                    CommandError::StaleRef { command, ref_ }
                } else {
                    CommandError::UnknownRef { command, ref_ }
                })
            }
            Some(_) => Ok(()),
        }
    }

    fn dispatch(&self, command: UiCommand) -> Result<(), CommandError> {
        let name = command.command.clone();
        self.sink
            .send(ServerMessage::UiCommand(command))
            .map_err(|SinkClosed| CommandError::Closed { command: name })
    }
}
