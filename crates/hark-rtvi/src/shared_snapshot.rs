//! [`SharedSnapshot`]: a session's latest snapshot as its holders share it, kept as the JSON the
//! client sent and decoded when someone reads it.
//!
//! A client sends several snapshots a second and a question about the screen comes once a turn,
//! so most snapshots are never read after they arrive. A decoded 200-node tree costs about
//! 28 KiB of heap; the `ui-snapshot` message's JSON about 11 KB, and when it is a slice of the
//! WebSocket frame (`bytes::Bytes`, as tungstenite hands frames over) it costs nothing beyond the
//! read buffer the socket keeps anyway. So a server session decodes each snapshot once on
//! arrival (to check it, and for the work that must see every snapshot: the refs the worker
//! remembers, the classifier's `prepare`), then lets the tree go
//! ([`SharedSnapshot::release_tree`]) and keeps only the text. The first read after that
//! decodes it again and keeps it until the snapshot is replaced (a turn reads its screen
//! several times: the `<ui_state>` for the model, the `screen` job, the command's ref check),
//! so a snapshot is decoded at most twice, and a session nobody asked about since its last
//! snapshot holds only the text. Memory per idle session: docs/PERFORMANCE.md, "Load".

use std::sync::{Arc, Mutex};

use bytes::Bytes;

use crate::message::{ClientMessage, parse_client_message_with};
use crate::snapshot::{A11yNode, A11ySnapshot, SnapshotLimits};

/// A snapshot shared by whoever holds a session's latest screen (the session registry, the UI
/// worker, event subscribers): cheap to clone, read with [`SharedSnapshot::tree`].
///
/// Built from a decoded tree ([`SharedSnapshot::new`], `From<A11ySnapshot>`,
/// `From<Arc<A11ySnapshot>>`): the tree is kept as it is. Built from a `ui-snapshot` message's
/// text ([`SharedSnapshot::from_message`]): only the text is kept and the tree is decoded when
/// read.
#[derive(Clone)]
pub struct SharedSnapshot(Arc<Held>);

enum Held {
    Tree(Arc<A11ySnapshot>),
    Text {
        /// The `ui-snapshot` message's JSON text, as the client sent it (checked UTF-8).
        json: Bytes,
        limits: SnapshotLimits,
        /// The decoded tree: from arrival until [`SharedSnapshot::release_tree`], then from
        /// the first read on.
        tree: Mutex<Option<Arc<A11ySnapshot>>>,
        captured_at: i64,
    },
}

impl std::fmt::Debug for SharedSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            Held::Tree(tree) => f.debug_tuple("SharedSnapshot").field(tree).finish(),
            Held::Text {
                json, captured_at, ..
            } => f
                .debug_struct("SharedSnapshot")
                .field("json_bytes", &json.len())
                .field("captured_at", captured_at)
                .finish_non_exhaustive(),
        }
    }
}

impl SharedSnapshot {
    /// A snapshot kept decoded (built in code, or read from a source that gives no text).
    pub fn new(tree: impl Into<Arc<A11ySnapshot>>) -> Self {
        SharedSnapshot(Arc::new(Held::Tree(tree.into())))
    }

    /// A snapshot kept as the text of the `ui-snapshot` message it came in, `json`, which
    /// [`parse_client_message_with`] already decoded with `limits` into `decoded`. `decoded` is
    /// kept, and is what [`SharedSnapshot::tree`] gives, until
    /// [`SharedSnapshot::release_tree`]; the next read decodes the tree again from `json`.
    ///
    /// When `json` is not UTF-8 (so not the text `decoded` came from), the tree is kept
    /// decoded, as by [`SharedSnapshot::new`].
    pub fn from_message(json: Bytes, limits: SnapshotLimits, decoded: Arc<A11ySnapshot>) -> Self {
        if std::str::from_utf8(&json).is_err() {
            return SharedSnapshot::new(decoded);
        }
        SharedSnapshot(Arc::new(Held::Text {
            json,
            limits,
            captured_at: decoded.captured_at,
            tree: Mutex::new(Some(decoded)),
        }))
    }

    /// The tree. A snapshot kept as text whose tree was let go is decoded here, once: the tree
    /// is then kept until the snapshot is replaced (dropped by its holders) or let go again.
    ///
    /// Never fails: the text decoded once with the same limits when it arrived. Should a decode
    /// fail all the same (it cannot, short of memory corruption), the tree read is an empty page
    /// (a `generic` root with no children) rather than a panic.
    pub fn tree(&self) -> Arc<A11ySnapshot> {
        match &*self.0 {
            Held::Tree(tree) => Arc::clone(tree),
            Held::Text {
                json,
                limits,
                tree,
                captured_at,
            } => {
                let mut kept = tree.lock().unwrap_or_else(|e| e.into_inner());
                Arc::clone(kept.get_or_insert_with(|| {
                    Arc::new(decode(json, limits).unwrap_or_else(|| A11ySnapshot {
                        root: A11yNode {
                            role: "generic".into(),
                            ..A11yNode::default()
                        },
                        captured_at: *captured_at,
                        selection: None,
                        extra: serde_json::Map::new(),
                    }))
                }))
            }
        }
    }

    /// Lets go of the decoded tree, for a snapshot kept as text (readers holding it keep
    /// theirs; the next read decodes the text again). A server session calls it once the work
    /// every snapshot gets on arrival is done. A snapshot kept decoded keeps its tree.
    pub fn release_tree(&self) {
        if let Held::Text { tree, .. } = &*self.0 {
            let kept = tree.lock().unwrap_or_else(|e| e.into_inner()).take();
            // Freed outside the lock.
            drop(kept);
        }
    }

    /// Whether this snapshot keeps its decoded tree now (a reader may hold one besides).
    pub fn is_decoded(&self) -> bool {
        match &*self.0 {
            Held::Tree(_) => true,
            Held::Text { tree, .. } => tree.lock().unwrap_or_else(|e| e.into_inner()).is_some(),
        }
    }

    /// `captured_at` of the snapshot (epoch milliseconds), without decoding it.
    pub fn captured_at(&self) -> i64 {
        match &*self.0 {
            Held::Tree(tree) => tree.captured_at,
            Held::Text { captured_at, .. } => *captured_at,
        }
    }

    /// The text this snapshot is kept as, when it is kept as text: the `ui-snapshot` message's
    /// JSON, as the client sent it.
    pub fn message_json(&self) -> Option<&str> {
        match &*self.0 {
            Held::Tree(_) => None,
            Held::Text { json, .. } => std::str::from_utf8(json).ok(),
        }
    }

    /// Whether `self` and `other` are the same snapshot (clones of one another).
    pub fn ptr_eq(&self, other: &SharedSnapshot) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Equal when the trees are equal (a snapshot kept as text is decoded to compare).
impl PartialEq for SharedSnapshot {
    fn eq(&self, other: &Self) -> bool {
        self.ptr_eq(other) || *self.tree() == *other.tree()
    }
}

fn decode(json: &Bytes, limits: &SnapshotLimits) -> Option<A11ySnapshot> {
    let text = std::str::from_utf8(json).ok()?;
    match parse_client_message_with(text, limits).ok()?.message {
        ClientMessage::UiSnapshot(tree) => Some(*tree),
        _ => None,
    }
}

impl From<A11ySnapshot> for SharedSnapshot {
    fn from(tree: A11ySnapshot) -> Self {
        SharedSnapshot::new(tree)
    }
}

impl From<Arc<A11ySnapshot>> for SharedSnapshot {
    fn from(tree: Arc<A11ySnapshot>) -> Self {
        SharedSnapshot::new(tree)
    }
}

impl From<Box<A11ySnapshot>> for SharedSnapshot {
    fn from(tree: Box<A11ySnapshot>) -> Self {
        SharedSnapshot::new(Arc::<A11ySnapshot>::from(tree))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESSAGE: &str = r#"{"label":"rtvi-ai","type":"ui-snapshot","id":"s1","data":{"tree":{"root":{"ref":"e1","role":"generic","children":[{"ref":"e2","role":"button","name":"Save"}]},"captured_at":42}}}"#;

    fn parsed(json: &str) -> Arc<A11ySnapshot> {
        match parse_client_message_with(json, &SnapshotLimits::default())
            .unwrap()
            .message
        {
            ClientMessage::UiSnapshot(tree) => Arc::from(tree),
            other => panic!("not a snapshot: {other:?}"),
        }
    }

    #[test]
    fn a_snapshot_kept_as_text_gives_the_tree_it_came_with_until_released_then_decodes_it_once() {
        let first = parsed(MESSAGE);
        let shared = SharedSnapshot::from_message(
            Bytes::from_static(MESSAGE.as_bytes()),
            SnapshotLimits::default(),
            Arc::clone(&first),
        );
        assert!(Arc::ptr_eq(&shared.tree(), &first), "held: the same tree");
        drop(first);
        assert!(shared.is_decoded(), "kept until released");
        shared.release_tree();
        assert!(!shared.is_decoded(), "released: only the text is kept");
        let again = shared.tree();
        assert!(shared.is_decoded(), "a read keeps the tree it decoded");
        assert_eq!(again.root.children[0].name.as_deref(), Some("Save"));
        assert_eq!(again.captured_at, 42);
        drop(again);
        let third = shared.tree();
        assert!(
            Arc::ptr_eq(&shared.tree(), &third),
            "later reads share that decode"
        );
        assert_eq!(shared.captured_at(), 42);
        assert_eq!(shared.message_json(), Some(MESSAGE));
    }

    #[test]
    fn with_text_that_is_not_utf8_the_tree_is_kept_decoded() {
        let tree = parsed(MESSAGE);
        let shared = SharedSnapshot::from_message(
            Bytes::from_static(b"\xff\xfe"),
            SnapshotLimits::default(),
            Arc::clone(&tree),
        );
        shared.release_tree();
        assert!(Arc::ptr_eq(&shared.tree(), &tree));
        assert_eq!(shared.message_json(), None);
    }

    #[test]
    fn a_tree_built_in_code_is_kept_as_it_is() {
        let tree = parsed(MESSAGE);
        let shared = SharedSnapshot::from(Arc::clone(&tree));
        shared.release_tree();
        assert!(Arc::ptr_eq(&shared.tree(), &tree));
        assert_eq!(shared.message_json(), None);
        assert!(shared.ptr_eq(&shared.clone()));
    }
}
