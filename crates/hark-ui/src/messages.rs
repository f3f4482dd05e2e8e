//! Every text of hark-ui that a model or a caller reads, as functions with named inputs.
//!
//! Tests at the bottom pin them. The `<ui_state>`/`<ui_event>` wire formats themselves live in
//! [`crate::render`] (they must match pipecat byte for byte); this module holds Hark's own words.

/// The wire-format guide appended to the UI worker LLM's system instruction (ui-worker.md
/// `prompt_guide`; rtvi-ui.md §4 lists what it must cover).
///
/// Hark's own text with the same content as pipecat's `UI_STATE_PROMPT_GUIDE`: the two kinds of
/// developer messages, the line shape, the state tags, grids and cell positions, reading order,
/// the selection block, and how refs are to be used.
pub fn ui_state_prompt_guide() -> &'static str {
    UI_STATE_PROMPT_GUIDE
}

const UI_STATE_PROMPT_GUIDE: &str = "\
## Reading the screen

Two kinds of developer messages tell you about the user's screen. You never write them yourself.

- `<ui_event name=\"...\">payload</ui_event>`: something the user just did in the app (a click, a \
tab change, a navigation, ...). The payload is the event's data as JSON.
- `<ui_state>...</ui_state>`: an accessibility snapshot of the screen as it is now, added at the \
start of each turn. It is an indented tree in the style of Playwright MCP: one element per line, \
written `- role \"name\" [state] [ref=eN]`, with an element's children indented one level below \
it. A line may also show `= \"value\"` (what an input currently holds, such as text the user \
typed) and `[level=N]` (the depth of a heading).

State tags are `[focused]`, `[selected]`, `[disabled]`, `[checked]`, `[expanded]` and \
`[offscreen]`. An `[offscreen]` element is on the page but outside what the user can see right \
now; when the user says where something is (\"the first one\", \"top right\"), count only the \
elements that are not offscreen.

A grid shows `[cols=N]`. Its cells come in reading order, left to right and then top to bottom, \
so with N columns cell K is in row ceil(K/N) and column ((K-1) mod N) + 1. For example, with \
`[cols=8]` and 16 cells, \"top right\" is cell 8 and \"bottom left\" is cell 9.

Work out positions (\"the third one\", \"the last new release\") from the latest `<ui_state>`. \
Siblings are listed in the order the user reads them: top to bottom, and left to right within a \
region.

If the user has selected text, the snapshot ends with `<selection ref=\"eN\">selected text\
</selection>` inside `<ui_state>`. That selection is what \"this\", \"that\" or \"what I selected\" \
means. Its `ref` is the nearest enclosing element that has a ref in the tree; the text is what is \
selected, cut short if it is very long. A selection inside an input or a text area is exactly the \
selected part of its value.

A ref such as `e42` is a handle for acting on an element: give the ref from the latest \
`<ui_state>` to any tool that acts on an element. An element keeps its ref across snapshots for \
as long as it stays on the page, so you can come back to it in a later turn, but always take \
refs from the latest snapshot, and scroll an `[offscreen]` element into view before acting on it.";

/// Refusal of a command whose `ref` is not in the latest snapshot (case U1).
///
/// Example: `e7 is not on the screen any more: the page changed since that ref was read. Take
/// the refs of the latest snapshot and try again.`
pub fn stale_ref(command: &str, ref_: &str) -> String {
    format!(
        "{ref_} is not on the screen any more: the page changed since that ref was read. \
         Take the refs of the latest snapshot and send {command} again."
    )
}

/// Refusal of a command with a ref before any snapshot has arrived.
pub fn no_snapshot(command: &str, ref_: &str) -> String {
    format!(
        "cannot send {command} for {ref_}: no snapshot of the screen has arrived yet. \
         Wait for the client's first snapshot, then use one of its refs."
    )
}

/// Refusal of a command whose `ref` is empty (text nodes have no ref and cannot be targeted).
pub fn empty_ref(command: &str) -> String {
    format!(
        "{command} needs the ref of an element, and the ref given is empty. \
         Take a ref such as e12 from the latest snapshot."
    )
}

/// Refusal of a command whose `payload.ref` is present but not a string.
pub fn ref_not_a_string(command: &str) -> String {
    format!("{command}: payload.ref must be a string such as \"e12\" from the latest snapshot.")
}

/// The command channel to the client is gone (the session ended).
pub fn channel_closed(command: &str) -> String {
    format!("cannot send {command}: the client session has ended, so no command can reach it.")
}

/// A `select_text` with offsets that do not make a range (`start > end` or negative).
pub fn bad_offsets(start: i64, end: i64) -> String {
    format!(
        "select_text offsets {start}..{end} do not make a range: give 0 <= start_offset <= \
         end_offset, or neither to select the whole element."
    )
}

/// A `select_text` with only one of the two offsets.
pub fn half_offsets() -> &'static str {
    "select_text needs both start_offset and end_offset, or neither to select the whole element."
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_ref_names_the_ref_and_the_fix() {
        assert_eq!(
            stale_ref("click", "e7"),
            "e7 is not on the screen any more: the page changed since that ref was read. \
             Take the refs of the latest snapshot and send click again."
        );
    }

    #[test]
    fn no_snapshot_and_empty_ref_texts() {
        assert_eq!(
            no_snapshot("highlight", "e3"),
            "cannot send highlight for e3: no snapshot of the screen has arrived yet. \
             Wait for the client's first snapshot, then use one of its refs."
        );
        assert_eq!(
            empty_ref("focus"),
            "focus needs the ref of an element, and the ref given is empty. \
             Take a ref such as e12 from the latest snapshot."
        );
        assert_eq!(
            bad_offsets(5, 2),
            "select_text offsets 5..2 do not make a range: give 0 <= start_offset <= end_offset, \
             or neither to select the whole element."
        );
    }

    /// The guide must carry every fact of pipecat's guide (rtvi-ui.md §4).
    #[test]
    fn prompt_guide_covers_the_wire_format() {
        let g = ui_state_prompt_guide();
        for needle in [
            "<ui_event name=\"...\">payload</ui_event>",
            "<ui_state>...</ui_state>",
            "Playwright MCP",
            "- role \"name\" [state] [ref=eN]",
            "= \"value\"",
            "[level=N]",
            "[focused]",
            "[selected]",
            "[disabled]",
            "[offscreen]",
            "[cols=N]",
            "ceil(K/N)",
            "((K-1) mod N) + 1",
            "\"top right\" is cell 8 and \"bottom left\" is cell 9",
            "top to bottom, and left to right",
            "<selection ref=\"eN\">",
            "\"this\", \"that\" or \"what I selected\"",
            "nearest enclosing element that has a ref",
            "latest snapshot",
            "scroll an `[offscreen]` element into view before acting",
        ] {
            assert!(g.contains(needle), "guide lacks {needle:?}");
        }
    }
}
