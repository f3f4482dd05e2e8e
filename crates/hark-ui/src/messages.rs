//! Every text of hark-ui that a model or a caller reads, as functions with named inputs.
//!
//! Tests at the bottom pin them. The `<ui_state>`/`<ui_event>` wire formats themselves live in
//! [`crate::render`] (they must match pipecat byte for byte); this module holds Hark's own words.

/// The bus's texts (workers, jobs, job groups) live in hark-bus; re-exported so callers keep one
/// path for every text the UI worker says.
pub use hark_bus::messages::{
    duplicate_worker, empty_worker_name, group_without_workers, group_worker_twice, route_taken,
    too_many_job_groups, unknown_job, unknown_worker, worker_panicked,
};

/// The classifiers' texts (the questions the worker asks, the LLM classifier's prompt, every
/// classifier error) live in hark-classify; re-exported here for the same reason.
pub use hark_classify::messages::{
    classifier_bad_answer, classifier_bad_question, classifier_choice_not_an_option,
    classifier_missing_answer, classifier_no_json, classifier_request_failed, classifier_timed_out,
    classifier_wrong_kind, element_option, find_instructions, llm_classifier_request,
    llm_classifier_system, local_cannot_read, local_no_description, local_no_options,
    local_no_score, local_too_many_options, no_classifier, select_element_question,
    should_respond_criteria, should_respond_no, should_respond_yes,
};

/// The wire-format guide appended to the UI worker LLM's system instruction (the
/// `prompt_guide` option).
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

/// Refusal of a command whose `ref` is not in the latest snapshot: the page re-rendered and
/// the element has a new ref.
///
/// Example: `e7 is not on the screen any more: the page changed since that ref was read. Take
/// the refs of the latest snapshot and try again.`
pub fn stale_ref(command: &str, ref_: &str) -> String {
    format!(
        "{ref_} is not on the screen any more: the page changed since that ref was read. \
         Take the refs of the latest snapshot and send {command} again."
    )
}

/// Refusal of a command whose `ref` is in no recent snapshot of the session: a ref the model
/// made up or mistyped (`e999`), or one that is not shaped like a ref at all. Unlike
/// [`stale_ref`] it does not send the model to re-read the page for a ref that never existed.
///
/// Example: `e999 is not a ref the page has shown: no recent snapshot had it. Use only refs
/// that appear in the latest <ui_state>, and send click again with one of them.`
pub fn unknown_ref(command: &str, ref_: &str) -> String {
    format!(
        "{ref_} is not a ref the page has shown: no recent snapshot had it. \
         Use only refs that appear in the latest <ui_state>, and send {command} again with one \
         of them."
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

// ---- Screen questions, the `screen` job and tool, the LLM classifier. Pinned in tests/screen*.rs
// and tests/classifier*.rs.

/// The `screen` job's error when a newer snapshot replaced the screen between finding the
/// element and acting on it, on every try. Read by the voice model, which never sees
/// refs, so it names no ref: it says to ask again. `action` is the job's action name (`click`,
/// `fill`, …).
///
/// Example: `The screen changed before the click; ask the screen again.`
pub fn screen_changed(action: &str) -> String {
    format!("The screen changed before the {action}; ask the screen again.")
}

/// Both the classifier and its fallback failed.
pub fn both_classifiers_failed(primary: &str, fallback: &str) -> String {
    format!("the classifier failed ({primary}) and so did its fallback ({fallback}).")
}

/// A `screen` job or `act` with an action it does not know (pipecat: "unknown screen
/// action …").
pub fn unknown_screen_action(action: &str) -> String {
    format!(
        "unknown screen action \"{action}\": use one of find, check, select, list, selection, \
         click, scroll_to, highlight, select_text or fill."
    )
}

/// A `screen` job asked before any snapshot of the page arrived (a worker started after the
/// page's last snapshot, or restarted): nothing can be seen, so no answer would be true.
pub fn screen_no_snapshot(action: &str) -> String {
    format!(
        "cannot {action} on the screen: no snapshot of the page has arrived yet, so nothing on it \
         can be seen. The page sends one when it connects and whenever it changes; ask again once \
         it has."
    )
}

/// A `screen` job whose action needs a target and got none.
pub fn screen_target_missing(action: &str) -> String {
    format!(
        "the screen action \"{action}\" needs a target: describe the element or the question in \
         words, e.g. \"the checkout button\"."
    )
}

/// A `screen` job (or [`crate::UiWorker::act`]) whose action writes a value and got none: no
/// `value`, `null`, or one that is not text (a list, an object). Never treated as `""`, which
/// would wipe the field; an explicit `"value": ""` is the way to clear it.
///
/// Example: `the screen action "fill" needs a value: send the text to write as "value", e.g.
/// "ana@example.com", or "value": "" to clear the field.`
pub fn screen_value_missing(action: &str) -> String {
    format!(
        "the screen action \"{action}\" needs a value: send the text to write as \"value\", \
         e.g. \"ana@example.com\", or \"value\": \"\" to clear the field."
    )
}

/// Roles whose element holds text of its own: `set_input_value` (the `screen` job's `fill`)
/// writes only into these (a native `<select>` is a `combobox`, which takes its option's text).
/// The client refuses the command on any other element, so the job never sends it there.
pub const TEXT_ENTRY_ROLES: &[&str] =
    &["textbox", "searchbox", "combobox", "spinbutton", "textarea"];

/// Roles of plain text: a `click` on one does nothing a user asked for, so the `screen` job's
/// click never chooses one.
pub const STATIC_TEXT_ROLES: &[&str] = &[
    "text",
    "StaticText",
    "paragraph",
    "strong",
    "emphasis",
    "LabelText",
];

/// Roles of a list to choose from, or of one of its options (a `fill` of one is refused with
/// [`screen_cannot_act`]'s "click the option" advice).
const CHOICE_ROLES: &[&str] = &["listbox", "menu", "menubar", "radiogroup", "tree", "grid"];
/// Roles of a choice in such a list.
const OPTION_ROLES: &[&str] = &["option", "menuitem", "menuitemradio", "treeitem", "tab"];
/// Roles a click turns on or off.
const TOGGLE_ROLES: &[&str] = &["checkbox", "radio", "switch", "menuitemcheckbox"];

/// Refusal of a `screen` action (or [`crate::UiWorker::act`]) whose description best names an
/// element the action cannot act on: says what the element is and what to do instead. Read by
/// the voice model, which never sees refs, so it names the element by role and label. `action`
/// is the job's action name (`fill`, `click`); `value` is the text a `fill` was to write;
/// `disabled` when the element is disabled (a click or fill on it does nothing).
///
/// Examples:
/// - `button "Size: Small" does not take text, so fill cannot write "Medium" into it. If it
///   opens a list (a dropdown), click it to open the list, then click the option "Medium";
///   otherwise click it.`
/// - `listbox "Size" is a list of options, not a text field, so fill cannot write "Medium"
///   into it: click the option "Medium" in it instead.`
/// - `paragraph "Free returns" is plain text, not a control, so a click on it does nothing:
///   click the button or link the user means, or use find or highlight to point at the text.`
pub fn screen_cannot_act(
    action: &str,
    role: &str,
    label: &str,
    value: Option<&str>,
    disabled: bool,
) -> String {
    if disabled {
        return format!(
            "{role} \"{label}\" is disabled, so {action} would do nothing: tell the user what it \
             waits for (a field still to fill, an option to choose), or act on another element."
        );
    }
    if action == "fill" {
        let value = value.unwrap_or("");
        return if role == "button" {
            format!(
                "{role} \"{label}\" does not take text, so fill cannot write \"{value}\" into \
                 it. If it opens a list (a dropdown), click it to open the list, then click the \
                 option \"{value}\"; otherwise click it."
            )
        } else if CHOICE_ROLES.contains(&role) {
            format!(
                "{role} \"{label}\" is a list of options, not a text field, so fill cannot \
                 write \"{value}\" into it: click the option \"{value}\" in it instead."
            )
        } else if OPTION_ROLES.contains(&role) {
            format!(
                "{role} \"{label}\" is a choice, not a text field, so fill cannot write into \
                 it: click it to choose it."
            )
        } else if TOGGLE_ROLES.contains(&role) {
            format!(
                "{role} \"{label}\" is turned on or off by a click, not filled: click it to \
                 change it."
            )
        } else {
            format!(
                "{role} \"{label}\" does not take text, so fill cannot write into it: \
                 describe the text field to fill (a textbox, search box, combobox or number \
                 field)."
            )
        };
    }
    if STATIC_TEXT_ROLES.contains(&role) {
        return format!(
            "{role} \"{label}\" is plain text, not a control, so a {action} on it does nothing: \
             click the button or link the user means, or use find or highlight to point at the \
             text."
        );
    }
    format!("{role} \"{label}\" cannot take {action}: describe another element.")
}

/// The `screen` tool's description for the voice LLM (Hark's own words, the content of
/// pipecat's `screen` tool docstring).
pub fn screen_tool_description() -> &'static str {
    "Ask about what is on the user's screen right now, or act on it. The answer is short data, \
     never the page, and never contains element ids: describe elements in words.\n\
     - find: which element the target describes; answers its label and a confidence (no label \
     when nothing fits well).\n\
     - check: whether the target, a yes/no question about the screen, is true; answers yes and \
     a probability.\n\
     - select: which elements match the target, e.g. \"dairy products\"; answers their labels, \
     most likely first.\n\
     - list: the named elements on screen with their state and values; the target, if given, \
     is a role such as \"checkbox\" to list only those.\n\
     - selection: the text the user has selected; call it when the user says \"this\" or \
     \"that\". No target.\n\
     - click, scroll_to, highlight, select_text, fill: find the element the target describes \
     and act on it; answers whether it was done and the element's label. fill needs a value: \
     it replaces what the field holds with value, and value \"\" clears the field; a fill \
     without a value is refused, never a clear."
}

/// The `screen` tool's `action` parameter description.
pub fn screen_tool_action() -> &'static str {
    "One of \"find\", \"check\", \"select\", \"list\", \"selection\", \"click\", \"scroll_to\", \
     \"highlight\", \"select_text\" or \"fill\"."
}

/// The `screen` tool's `target` parameter description.
pub fn screen_tool_target() -> &'static str {
    "The description, criteria or role the action needs; none for \"selection\"."
}

/// The `screen` tool's `value` parameter description.
pub fn screen_tool_value() -> &'static str {
    "The text to write, only for \"fill\", and required there: \"\" clears the field."
}

/// The `screen` job did not answer within the tool's timeout.
pub fn screen_timeout(worker: &str, seconds: f64) -> String {
    format!(
        "the UI worker \"{worker}\" did not answer the screen job within {seconds} s (timeout): \
         tell the user you could not see the screen just now."
    )
}

/// The `screen` job ended with a status other than completed and no `error` text.
pub fn screen_job_failed(worker: &str, status: &str) -> String {
    format!("the UI worker \"{worker}\" ended the screen job with status {status}.")
}

/// The `screen` job could not reach its worker (the worker or its bus is gone).
pub fn screen_worker_unreachable(worker: &str, detail: &str) -> String {
    format!("the UI worker \"{worker}\" cannot be reached: {detail}")
}

// ---- Jobs, the bus, job groups, UI events and the reply tool (respond.rs, bus.rs,
// ---- job_group.rs, events.rs, reply_tool.rs). Pinned in tests/{respond,job_group,events,reply_tool}.rs.

/// The reply tool's description (pipecat-subagents' `ReplyToolMixin` docstring: the fixed
/// order, once per turn).
pub fn reply_tool_description() -> &'static str {
    "Reply to the user. Optionally point at content and act on inputs.\n\n\
     Call this exactly once per turn, to end it. Action fields are dispatched in a fixed order \
     before the answer is spoken: scroll_to, then highlight, then select_text, then fills, then \
     click, then the spoken answer. Leave the actions you do not need as null."
}

/// The description of one reply tool parameter (pipecat-subagents' parameter descriptions, word for
/// word); `""` for an unknown field.
pub fn reply_param_description(field: &str) -> &'static str {
    match field {
        "answer" => {
            "The spoken reply in plain language. One short sentence. No markdown, no symbols."
        }
        "scroll_to" => "Optional snapshot ref. Scrolls the element into view before speaking.",
        "highlight" => "Optional list of snapshot refs. Visually pulses each element.",
        "select_text" => {
            "Optional snapshot ref. Places the page\u{2019}s text selection on that element."
        }
        "fills" => {
            "Optional list of {\"ref\": \"eN\", \"value\": \"...\"} objects. Writes each value into the input at ref."
        }
        "click" => {
            "Optional list of snapshot refs to click in order. Use for checkboxes, radios, submit buttons."
        }
        _ => "",
    }
}

/// A malformed reply tool entry that was skipped (an invented ref, an entry of the wrong
/// shape).
pub fn reply_skipped(field: &str, entry: &serde_json::Value) -> String {
    format!(
        "{field}: skipped {}, which is not a ref from the latest snapshot",
        excerpt(entry)
    )
}

/// A reply tool entry as JSON text, cut at 80 bytes (on a char boundary) with `...`.
fn excerpt(entry: &serde_json::Value) -> String {
    let mut text = entry.to_string();
    if text.len() > 80 {
        let mut cut = 80;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("...");
    }
    text
}

/// A `fills` entry of the reply tool that names a ref but has no value (missing or `null`):
/// skipped, never written as `""` (a wipe nobody asked for). `"value": ""` clears a field.
///
/// Example: `fills: skipped {"ref":"e7"}, which has no value: give each fill {"ref": "eN",
/// "value": "..."}, with "value": "" to clear the field`
pub fn reply_fill_without_value(entry: &serde_json::Value) -> String {
    format!(
        "fills: skipped {}, which has no value: give each fill {{\"ref\": \"eN\", \"value\": \
         \"...\"}}, with \"value\": \"\" to clear the field",
        excerpt(entry)
    )
}

/// A `respond` job without a query (payload `{"query"}` missing, `null` or blank, read by the
/// default [`crate::respond::PayloadQuery`]): answered with status `error` and no LLM turn,
/// never a turn on an empty question.
pub fn respond_query_missing() -> &'static str {
    "the respond job needs a query: send {\"query\": \"...\"} with the user's question or \
     request in words, e.g. {\"query\": \"is gift wrap on?\"}."
}

/// The `respond` job's LLM call failed; the job answers `{"error": …}` with status `error`.
pub fn respond_llm_failed(detail: &str) -> String {
    format!("the UI worker could not answer: its LLM call failed ({detail})")
}

/// The note of the last request of a `respond` job whose model kept calling tools: after
/// `rounds` rounds it must answer in words (the request also offers no tool call).
pub fn respond_rounds_exhausted(rounds: usize) -> String {
    format!(
        "You have called tools {rounds} times for this request, the most allowed. Do not call \
         tools now: answer the user in words with what you found on the screen."
    )
}

/// The `respond` job's model kept calling tools past the round limit.
pub fn respond_too_many_rounds(rounds: usize) -> String {
    format!(
        "the UI worker could not answer: its model was still calling tools after {rounds} \
         rounds. Ask a simpler question, or raise max_rounds."
    )
}

/// The model called a tool the UI worker does not have.
pub fn respond_unknown_tool(name: &str) -> String {
    format!("there is no tool named {name}. Use only the tools you were given.")
}

/// Two UI event handlers for one event name.
pub fn event_handler_twice(event: &str) -> String {
    format!("the UI event {event} has two handlers: keep one handler per event name")
}

/// A UI event handler for a reserved name.
pub fn event_name_reserved(event: &str) -> String {
    format!(
        "the UI event name {event} is reserved for the bus (snapshots and job group cancels) \
         and never reaches a handler: choose another name"
    )
}

/// A UI event handler with an empty name.
pub fn event_name_empty() -> &'static str {
    "a UI event handler needs an event name: the empty name never arrives"
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
    fn screen_changed_names_the_action_and_no_ref() {
        assert_eq!(
            screen_changed("click"),
            "The screen changed before the click; ask the screen again."
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

    /// The guide must carry every fact of pipecat's guide.
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

// =============================================================================================
// Offline screen mode (`crate::offline`). Owned by the offline module: the
// notice the page and the log show, and the one-sentence answers of an offline turn.
// =============================================================================================

/// The notice of the offline screen mode: shown on the demo page (in the `server-message` of
/// [`crate::offline::mode_message`]) and written to the server log once per session.
pub fn offline_mode_notice() -> &'static str {
    "Offline screen mode: no LLM is configured, so each message is read as a screen command \
     (click, show, type … into, is …?, list) and the local classifier picks the element."
}

/// The answer to "help", or to a text that names nothing on the page: what the mode can do,
/// with `examples` (already quoted, e.g. [`offline_help_click`]) taken from the page in hand
/// (the demo shop's items only on the demo shop). No examples (no page yet,
/// or nothing on it to act on): the kinds of command, with none of a page's names.
pub fn offline_help(examples: &[String]) -> String {
    let kinds = "I am in offline screen mode with no LLM, so I understand screen commands only";
    match examples {
        [] => format!(
            "{kinds}: click, show, type into, check and list what is on the page, or name what \
             you want on it. I see nothing on this page to act on yet."
        ),
        [one] => format!("{kinds}, like {one}, or the name of what you want on the page."),
        [init @ .., last] => format!(
            "{kinds}, like {} or {last}, or the name of what you want on the page.",
            init.join(", ")
        ),
    }
}

/// A help example: click the button named `name`.
pub fn offline_help_click(name: &str) -> String {
    format!("\"click {name}\"")
}

/// A help example: show the element named `name`.
pub fn offline_help_where(name: &str) -> String {
    format!("\"where is {name}\"")
}

/// A help example: type into the field named `name`.
pub fn offline_help_type(name: &str) -> String {
    let value = if name.to_lowercase().contains("mail") {
        "ana@example.com"
    } else {
        "hello"
    };
    format!("\"type {value} into {name}\"")
}

/// A help example: ask whether the checkbox named `name` is checked.
pub fn offline_help_check(name: &str) -> String {
    format!("\"is {name} checked?\"")
}

/// A help example: list the buttons.
pub fn offline_help_list() -> &'static str {
    "\"list the buttons\""
}

/// A checkbox (switch, radio) that was clicked: `now_on` is its state after the click when it
/// was known (one element of that name), else "toggled": never "clicked" for a box.
pub fn offline_toggled(label: &str, now_on: Option<bool>) -> String {
    match now_on {
        Some(true) => format!("I ticked \"{label}\"."),
        Some(false) => format!("I unticked \"{label}\"."),
        None => format!("I toggled \"{label}\"."),
    }
}

/// A checkbox (switch, radio) the user wanted in the state it is in already: nothing clicked.
/// "Gift wrap is already ticked."
pub fn offline_already(label: &str, on: bool) -> String {
    let state = if on { "ticked" } else { "unticked" };
    format!("{label} is already {state}.")
}

/// A text field the user named without a command: focused (its text selected), and the user is
/// asked what to type.
pub fn offline_focused(label: &str) -> String {
    format!("I put the cursor in \"{label}\". What should I type there?")
}

/// A dropdown the user named without a command: shown, and the user is asked what to pick.
pub fn offline_shown_pick(label: &str) -> String {
    format!(
        "Here it is: \"{label}\", scrolled into view and highlighted. Which option should I pick?"
    )
}

/// A `click` that was done on the element labelled `label`.
pub fn offline_clicked(label: &str) -> String {
    format!("I clicked \"{label}\".")
}

/// A `scroll_to` + `highlight` that was done on the element labelled `label`.
pub fn offline_shown(label: &str) -> String {
    format!("Here it is: \"{label}\", scrolled into view and highlighted.")
}

/// A `fill` of `value` into the element labelled `label`.
pub fn offline_filled(value: &str, label: &str) -> String {
    format!("I typed \"{value}\" into \"{label}\".")
}

/// No element fitted `target` confidently (the job answered `done: false` or no label);
/// `on_screen` names a few elements that are on screen (already formatted, may be empty).
pub fn offline_not_found(target: &str, on_screen: &[String]) -> String {
    if on_screen.is_empty() {
        format!("I could not find \"{target}\" on the screen.")
    } else {
        format!(
            "I could not find \"{target}\"; on screen I see {}.",
            on_screen.join(", ")
        )
    }
}

/// A `fill` of a dropdown (combobox, listbox, select): `value` picked in `label`.
pub fn offline_selected(value: &str, label: &str) -> String {
    format!("I selected \"{value}\" in \"{label}\".")
}

/// A cart question answered by the page's own cart text (e.g. "In your cart: 1 × Coffee
/// grinder. Total €59.00.").
pub fn offline_cart_text(text: &str) -> String {
    let t = text.trim();
    if t.ends_with(['.', '!', '?']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

/// A cart question answered by the count on the cart's link or button ("Cart (2)").
pub fn offline_cart_count(count: u64) -> String {
    match count {
        0 => "Your cart is empty.".to_string(),
        1 => "Your cart has 1 item.".to_string(),
        n => format!("Your cart has {n} items."),
    }
}

/// A `check` answer: `yes` and how sure, in whole percent (`0..=100`) of the answer given.
pub fn offline_checked(yes: bool, percent: u32) -> String {
    if yes {
        format!("Yes, I think so ({percent}% sure).")
    } else {
        format!("No, I don't think so ({percent}% sure).")
    }
}

/// A `list` answer: `count` elements, `shown` of them named (already formatted), `more` not
/// named; `one` / `many` are the nouns ("checkbox" / "checkboxes").
pub fn offline_listed(
    count: usize,
    one: &str,
    many: &str,
    shown: &[String],
    more: usize,
) -> String {
    let noun = if count == 1 { one } else { many };
    match (count, more) {
        (0, _) => format!("I see no {many} on the screen."),
        (_, 0) => format!("I see {count} {noun}: {}.", shown.join(", ")),
        _ => format!(
            "I see {count} {noun}: {}, and {more} more.",
            shown.join(", ")
        ),
    }
}

/// A `read` answer: the element labelled `label` holds `value` (an input's text), or is
/// empty (`None`).
pub fn offline_holds(label: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("\"{label}\" holds \"{v}\"."),
        None => format!("\"{label}\" is empty."),
    }
}

/// A `read` answer for an element that is not an input: its text is its label.
pub fn offline_says(label: &str) -> String {
    format!("It says \"{label}\".")
}

/// A `screen` job that failed, in words for the shopper: never the developer's error text
/// (that goes to the log). `kind` is what went wrong ([`crate::offline::Failure`]).
pub fn offline_failed(kind: crate::offline::Failure) -> &'static str {
    use crate::offline::Failure;
    match kind {
        Failure::Timeout => "The page did not answer in time; please try again.",
        Failure::Unreachable => "I cannot reach the page right now; please try again in a moment.",
        Failure::NoScreen => "I cannot see the page yet; please wait a moment and try again.",
        Failure::NotUnderstood => {
            "I cannot answer that question offline; ask about something on the page, or say \
             \"help\"."
        }
        Failure::NoClassifier => "I cannot look at the page offline right now.",
        Failure::Other => {
            "Sorry, I could not do that on the page; say \"help\" to hear what I can do."
        }
    }
}

#[cfg(test)]
mod offline_tests {
    use super::*;

    #[test]
    fn offline_texts() {
        assert!(offline_mode_notice().starts_with("Offline screen mode: no LLM is configured"));
        assert_eq!(
            offline_help(&[
                offline_help_click("Log out"),
                offline_help_list().to_string()
            ]),
            "I am in offline screen mode with no LLM, so I understand screen commands only, like \
             \"click Log out\" or \"list the buttons\", or the name of what you want on the page."
        );
        assert!(!offline_help(&[]).contains("mug"));
        assert_eq!(
            offline_toggled("Gift wrap", Some(true)),
            "I ticked \"Gift wrap\"."
        );
        assert_eq!(
            offline_focused("Email"),
            "I put the cursor in \"Email\". What should I type there?"
        );
        assert_eq!(offline_clicked("Add to cart"), "I clicked \"Add to cart\".");
        assert_eq!(
            offline_filled("ana@example.com", "Email"),
            "I typed \"ana@example.com\" into \"Email\"."
        );
        assert_eq!(offline_checked(true, 91), "Yes, I think so (91% sure).");
        assert_eq!(
            offline_checked(false, 70),
            "No, I don't think so (70% sure)."
        );
        let shown = ["Gift wrap (checked)".to_string()];
        assert_eq!(
            offline_listed(1, "checkbox", "checkboxes", &shown, 0),
            "I see 1 checkbox: Gift wrap (checked)."
        );
        let shown = ["A".to_string(), "B".to_string()];
        assert_eq!(
            offline_listed(5, "button", "buttons", &shown, 3),
            "I see 5 buttons: A, B, and 3 more."
        );
        assert_eq!(
            offline_listed(0, "tab", "tabs", &[], 0),
            "I see no tabs on the screen."
        );
        assert_eq!(offline_holds("Email", None), "\"Email\" is empty.");
        assert_eq!(
            offline_selected("Spain", "Country"),
            "I selected \"Spain\" in \"Country\"."
        );
        assert_eq!(offline_cart_count(2), "Your cart has 2 items.");
        assert_eq!(offline_cart_count(0), "Your cart is empty.");
        assert_eq!(
            offline_not_found("x", &["Send".to_string()]),
            "I could not find \"x\"; on screen I see Send."
        );
    }
}
