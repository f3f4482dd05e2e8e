//! The `reply` tool: one turn-ending call with a required spoken answer and optional UI actions.
//!
//! Guide: `docs/guide/ui-worker.md`, "The `respond` job and the reply tool". As
//! pipecat-subagents commit `e820c2b`: malformed list entries (an invented ref, an entry of the
//! wrong shape) are skipped, never raised, so the single-flight `respond` job is always
//! answered.
//!
//! - [`definition`]: the tool as the model sees it ([`NAME`] `reply`; [`parameters`]: `answer`
//!   required; `scroll_to`, `highlight`, `select_text`, `fills`, `click` optional, each
//!   nullable).
//! - [`ReplyArgs::from_value`] reads the model's arguments leniently: anything malformed is
//!   skipped and recorded, never an error.
//! - [`dispatch`] acts in the fixed order `scroll_to` → each `highlight` → `select_text` → each
//!   fill (`set_input_value(ref, str(value))`, replacing) → each `click` → the answer, through
//!   the [`UiWorker`]'s checked commands: a ref the worker refuses (not in the latest snapshot,
//!   or never shown) is skipped and the rest goes on.
//! - **The answer is spoken**: pipecat's `respond_to_job(answer, tts_speak=True)` is modelled as
//!   the job response `{"answer": answer, "speak": true}`
//!   ([`RespondHandle::respond_to_job_spoken`]): the requester says `answer` verbatim instead of
//!   having its LLM phrase it. A missing or empty answer completes the job with no answer.

use hark_llm::ToolDefinition;
use hark_rtvi::JobStatus;
use serde_json::{Value, json};

use crate::messages;
use crate::pyjson;
use crate::respond::RespondHandle;
use crate::worker::UiWorker;

/// The tool's name.
pub const NAME: &str = "reply";

/// The parameters schema (JSON Schema, draft 2020-12 subset every provider reads):
///
/// ```json
/// {"type": "object",
///  "properties": {
///    "answer": {"type": "string", "description": …},
///    "scroll_to": {"type": ["string", "null"], "description": …},
///    "highlight": {"type": ["array", "null"], "items": {"type": "string"}, "description": …},
///    "select_text": {"type": ["string", "null"], "description": …},
///    "fills": {"type": ["array", "null"], "items": {"type": "object", "properties":
///              {"ref": {"type": "string"}, "value": {"type": "string"}},
///              "required": ["ref", "value"]}, "description": …},
///    "click": {"type": ["array", "null"], "items": {"type": "string"}, "description": …}},
///  "required": ["answer"]}
/// ```
///
/// The descriptions are pipecat-subagents', word for word
/// ([`messages::reply_param_description`]).
pub fn parameters() -> Value {
    let d = messages::reply_param_description;
    json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string", "description": d("answer")},
            "scroll_to": {"type": ["string", "null"], "description": d("scroll_to")},
            "highlight": {
                "type": ["array", "null"],
                "items": {"type": "string"},
                "description": d("highlight"),
            },
            "select_text": {"type": ["string", "null"], "description": d("select_text")},
            "fills": {
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {
                        "ref": {"type": "string"},
                        "value": {"type": "string"},
                    },
                    "required": ["ref", "value"],
                },
                "description": d("fills"),
            },
            "click": {
                "type": ["array", "null"],
                "items": {"type": "string"},
                "description": d("click"),
            },
        },
        "required": ["answer"],
    })
}

/// The tool for a provider request: [`NAME`], [`messages::reply_tool_description`],
/// [`parameters`].
pub fn definition() -> ToolDefinition {
    ToolDefinition::new(NAME, messages::reply_tool_description(), parameters())
}

/// The reply tool's arguments after the defensive guards: only well-formed entries remain, in
/// the model's order; everything dropped is listed in `skipped`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplyArgs {
    /// The answer to speak; `None` when missing, `null` or empty (the job then completes with
    /// no answer). A non-string scalar is taken as Python's `str()` of it.
    pub answer: Option<String>,
    /// Ref to scroll into view (a falsy or non-string value is skipped).
    pub scroll_to: Option<String>,
    /// Refs to highlight, in order (non-string and empty entries skipped).
    pub highlight: Vec<String>,
    /// Ref whose text to select (a falsy or non-string value is skipped).
    pub select_text: Option<String>,
    /// `(ref, value)` pairs to write, in order; `value` is Python's `str()` of the model's value
    /// (`5` → `"5"`). An entry is skipped unless it is an object with a non-empty string `ref`
    /// and a non-null `value`; `"value": ""` is kept (it clears the field), while a missing or
    /// `null` value is skipped with [`messages::reply_fill_without_value`], never written as
    /// `""`.
    pub fills: Vec<(String, String)>,
    /// Refs to click, in order (non-string and empty entries skipped).
    pub click: Vec<String>,
    /// One line per entry dropped, naming the field and the entry (for logs and the model).
    pub skipped: Vec<String>,
}

impl ReplyArgs {
    /// Reads the model's arguments. Never fails: a non-object reads as no arguments at all.
    pub fn from_value(arguments: &Value) -> ReplyArgs {
        let mut args = ReplyArgs::default();
        let empty = serde_json::Map::new();
        let obj = arguments.as_object().unwrap_or(&empty);
        args.answer = match obj.get("answer") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(py_str(other)),
        }
        .filter(|a| !a.is_empty());
        args.scroll_to = single_ref(obj.get("scroll_to"), "scroll_to", &mut args.skipped);
        args.select_text = single_ref(obj.get("select_text"), "select_text", &mut args.skipped);
        args.highlight = ref_list(obj.get("highlight"), "highlight", &mut args.skipped);
        args.click = ref_list(obj.get("click"), "click", &mut args.skipped);
        match obj.get("fills") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    match (item.get("ref").and_then(Value::as_str), item.get("value")) {
                        (Some(r), Some(v)) if !r.is_empty() && !v.is_null() && item.is_object() => {
                            let value = match v {
                                Value::String(s) => s.clone(),
                                other => py_str(other),
                            };
                            args.fills.push((r.to_string(), value));
                        }
                        // A ref and no value: say so, never write "" (a wipe).
                        (Some(r), None | Some(Value::Null))
                            if !r.is_empty() && item.is_object() =>
                        {
                            args.skipped.push(messages::reply_fill_without_value(item));
                        }
                        _ => args.skipped.push(messages::reply_skipped("fills", item)),
                    }
                }
            }
            Some(other) => args.skipped.push(messages::reply_skipped("fills", other)),
        }
        args
    }
}

fn py_str(value: &Value) -> String {
    let mut out = String::new();
    pyjson::py_str(value, &mut out);
    out
}

fn single_ref(value: Option<&Value>, field: &str, skipped: &mut Vec<String>) -> Option<String> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            skipped.push(messages::reply_skipped(field, other));
            None
        }
    }
}

fn ref_list(value: Option<&Value>, field: &str, skipped: &mut Vec<String>) -> Vec<String> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                other => {
                    skipped.push(messages::reply_skipped(field, other));
                    None
                }
            })
            .collect(),
        // A lone ref where a list was asked for is taken as a list of one.
        Some(Value::String(s)) if !s.is_empty() => vec![s.clone()],
        Some(other) => {
            skipped.push(messages::reply_skipped(field, other));
            Vec::new()
        }
    }
}

/// One UI command the reply tool sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acted {
    /// Command name (`scroll_to`, `highlight`, `select_text`, `set_input_value`, `click`).
    pub command: &'static str,
    /// The ref acted on.
    pub ref_: String,
}

/// What a reply call did: the commands sent in order, the entries skipped (malformed, or
/// refused by the worker), and whether it answered the job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplyReport {
    /// Commands sent, in dispatch order.
    pub acted: Vec<Acted>,
    /// One line per entry skipped (malformed argument, or a ref the worker refused).
    pub skipped: Vec<String>,
    /// Whether the in-flight job was answered by this call (`false` when none was in flight or
    /// it was already answered).
    pub answered: bool,
}

impl ReplyReport {
    /// The tool result the model reads: `{"replied": true}`, plus `"skipped": [...]` when
    /// something was skipped.
    pub fn model_text(&self) -> String {
        if self.skipped.is_empty() {
            json!({ "replied": true }).to_string()
        } else {
            json!({ "replied": true, "skipped": self.skipped }).to_string()
        }
    }
}

/// Runs one reply call: the actions in the fixed order, then the spoken answer to the in-flight
/// job through `handle`. Never fails and never stops early: a command the worker refuses is
/// recorded in [`ReplyReport::skipped`].
pub fn dispatch(worker: &UiWorker, args: &ReplyArgs, handle: &RespondHandle) -> ReplyReport {
    let mut report = ReplyReport {
        skipped: args.skipped.clone(),
        ..ReplyReport::default()
    };
    let mut run =
        |command: &'static str, ref_: &str, result: Result<(), crate::CommandError>| match result {
            Ok(()) => report.acted.push(Acted {
                command,
                ref_: ref_.to_string(),
            }),
            Err(error) => {
                tracing::debug!(command, "reply tool: command skipped: {error}");
                report.skipped.push(error.to_string());
            }
        };
    if let Some(r) = &args.scroll_to {
        run("scroll_to", r, worker.scroll_to(r));
    }
    for r in &args.highlight {
        run("highlight", r, worker.highlight(r));
    }
    if let Some(r) = &args.select_text {
        run("select_text", r, worker.select_text(r, None, None));
    }
    for (r, value) in &args.fills {
        run("set_input_value", r, worker.set_input_value(r, value, true));
    }
    for r in &args.click {
        run("click", r, worker.click(r));
    }
    report.answered = handle.respond_to_job_spoken(args.answer.as_deref(), JobStatus::Completed);
    report
}
