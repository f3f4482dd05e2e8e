//! The elements a question may choose among: the named elements of a snapshot's tree.
//!
//! A breadth-first walk from the root keeping nodes with a non-empty ref and a non-empty name,
//! at most [`MAX_ELEMENT_OPTIONS`] (255). Only they can be chosen: an unnamed icon button is
//! never an option, so it is never picked.

use std::collections::VecDeque;

use hark_rtvi::A11yNode;

/// At most this many named elements are options of a question (pipecat
/// `_MAX_ELEMENT_OPTIONS`, the local classifier's choice limit).
pub const MAX_ELEMENT_OPTIONS: usize = 255;

/// The named elements of a tree: breadth-first from `root`, nodes whose `ref` and `name` are
/// both non-empty, at most [`MAX_ELEMENT_OPTIONS`].
pub fn named_elements(root: &A11yNode) -> Vec<&A11yNode> {
    let mut out = Vec::new();
    let mut queue = VecDeque::from([root]);
    while let Some(node) = queue.pop_front() {
        if !node.ref_.is_empty() && node.name.as_deref().is_some_and(|n| !n.is_empty()) {
            out.push(node);
            if out.len() == MAX_ELEMENT_OPTIONS {
                break;
            }
        }
        queue.extend(node.children.iter());
    }
    out
}
