//! The reply tool: invented refs and malformed entries are skipped, the job still answered.

use std::sync::Arc;

use hark_llm::OpenAiCompatible;
use hark_llm::testing::{ScriptedServer, Turn};
use hark_rtvi::{A11ySnapshot, JobStatus, ServerMessage};
use hark_ui::bus::JobRequest;
use hark_ui::reply_tool::{self, Acted, ReplyArgs};
use hark_ui::respond::{RespondHandle, Responder};
use hark_ui::{JobResponse, UiWorker, messages};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

const SNAPSHOT: &str = r#"{"root":{"ref":"e1","role":"form","children":[
    {"ref":"e3","role":"textbox","name":"Name"},
    {"ref":"e4","role":"textbox","name":"Quantity"},
    {"ref":"e5","role":"paragraph","name":"Terms"},
    {"ref":"e9","role":"button","name":"Submit"}]},"captured_at":1767225600000}"#;

fn worker() -> (Arc<UiWorker>, UnboundedReceiver<ServerMessage>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = UiWorker::new("ui", Arc::new(tx));
    worker.on_snapshot(A11ySnapshot::from_json(SNAPSHOT).unwrap());
    (Arc::new(worker), rx)
}

/// Every command sent, as `(command, payload)`.
fn sent(rx: &mut UnboundedReceiver<ServerMessage>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while let Ok(message) = rx.try_recv() {
        if let ServerMessage::UiCommand(c) = message {
            out.push((c.command, c.payload));
        }
    }
    out
}

async fn respond_with_reply(arguments: Value) -> (JobResponse, Vec<(String, Value)>, usize) {
    let server = ScriptedServer::start(vec![
        Turn::stream()
            .tool_call_start(0, "call_1", "reply")
            .tool_call_args(0, &arguments.to_string())
            .finish("tool_calls")
            .done(),
    ])
    .await
    .unwrap();
    let (worker, mut rx) = worker();
    let provider = Arc::new(OpenAiCompatible::new(server.base_url(), None));
    let responder = Responder::builder(worker, provider, "m")
        .reply_tool(true)
        .build();
    let job = JobRequest::new("j1", "voice", "ui", "respond", json!({"query": "go"}));
    let answer = responder.respond(job).await;
    assert_eq!(server.bodies()[0]["tools"][0]["function"]["name"], "reply");
    (answer, sent(&mut rx), server.requests().len())
}

#[test]
fn the_schema_is_exactly_as_specified() {
    assert_eq!(
        reply_tool::parameters(),
        json!({
            "type": "object",
            "properties": {
                "answer": {"type": "string", "description": "The spoken reply in plain language. One short sentence. No markdown, no symbols."},
                "scroll_to": {"type": ["string", "null"], "description": "Optional snapshot ref. Scrolls the element into view before speaking."},
                "highlight": {"type": ["array", "null"], "items": {"type": "string"}, "description": "Optional list of snapshot refs. Visually pulses each element."},
                "select_text": {"type": ["string", "null"], "description": "Optional snapshot ref. Places the page\u{2019}s text selection on that element."},
                "fills": {
                    "type": ["array", "null"],
                    "items": {"type": "object", "properties": {"ref": {"type": "string"}, "value": {"type": "string"}}, "required": ["ref", "value"]},
                    "description": "Optional list of {\"ref\": \"eN\", \"value\": \"...\"} objects. Writes each value into the input at ref."
                },
                "click": {"type": ["array", "null"], "items": {"type": "string"}, "description": "Optional list of snapshot refs to click in order. Use for checkboxes, radios, submit buttons."}
            },
            "required": ["answer"]
        })
    );
    let parameters = reply_tool::parameters();
    let keys: Vec<&String> = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        keys,
        [
            "answer",
            "scroll_to",
            "highlight",
            "select_text",
            "fills",
            "click"
        ]
    );
}

#[test]
fn the_description_names_the_fixed_order() {
    let d = reply_tool::definition();
    assert_eq!(d.name, "reply");
    assert_eq!(
        d.description,
        "Reply to the user. Optionally point at content and act on inputs.\n\n\
         Call this exactly once per turn, to end it. Action fields are dispatched in a fixed order \
         before the answer is spoken: scroll_to, then highlight, then select_text, then fills, then \
         click, then the spoken answer. Leave the actions you do not need as null."
    );
    assert_eq!(d.parameters, reply_tool::parameters());
    assert_eq!(messages::reply_param_description("nope"), "");
}

/// Fixed order scroll_to → highlight → select_text → fills → click → answer, each spoken answer
/// marked `speak: true`; one inference only.
#[tokio::test]
async fn actions_run_in_the_fixed_order_then_the_answer_is_spoken() {
    let (answer, commands, requests) = respond_with_reply(json!({
        "answer": "Filled in your details.",
        "click": ["e9"],
        "fills": [{"ref": "e3", "value": "Marie Curie"}, {"ref": "e4", "value": "2"}],
        "select_text": "e5",
        "highlight": ["e4", "e3"],
        "scroll_to": "e3"
    }))
    .await;
    assert_eq!(
        answer,
        JobResponse::completed(json!({"answer": "Filled in your details.", "speak": true}))
    );
    assert_eq!(requests, 1, "the reply tool ends the turn");
    let names: Vec<(&str, &str)> = commands
        .iter()
        .map(|(c, p)| (c.as_str(), p["ref"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("scroll_to", "e3"),
            ("highlight", "e4"),
            ("highlight", "e3"),
            ("select_text", "e5"),
            ("set_input_value", "e3"),
            ("set_input_value", "e4"),
            ("click", "e9"),
        ]
    );
    assert_eq!(
        commands[4].1,
        json!({"value": "Marie Curie", "ref": "e3", "target_id": null, "replace": true})
    );
}

/// An invented ref and malformed entries are skipped, the known ref acts, and the
/// single-flight `respond` job is still answered.
#[tokio::test]
async fn u4_invented_and_malformed_refs_are_skipped_and_the_job_answered() {
    let (answer, commands, _) = respond_with_reply(json!({
        "answer": "Here it is.",
        "scroll_to": "e999",
        "highlight": ["e3", null, 7]
    }))
    .await;
    assert_eq!(
        answer,
        JobResponse::completed(json!({"answer": "Here it is.", "speak": true}))
    );
    assert_eq!(
        commands,
        [(
            "highlight".to_string(),
            json!({"ref": "e3", "target_id": null, "duration_ms": null})
        )]
    );
}

/// What the model reads: the invented ref is named as never shown (not as stale, which
/// would send the model to re-read the page), the malformed entries as skipped.
#[test]
fn u4_the_model_reads_that_an_invented_ref_was_never_shown() {
    let (worker, mut rx) = worker();
    let args = ReplyArgs::from_value(&json!({
        "answer": "Here it is.",
        "scroll_to": "e999",
        "highlight": ["e3", null, 7, "button Submit"]
    }));
    let report = reply_tool::dispatch(&worker, &args, &RespondHandle::new());
    assert_eq!(
        report.skipped,
        [
            "highlight: skipped null, which is not a ref from the latest snapshot".to_string(),
            "highlight: skipped 7, which is not a ref from the latest snapshot".to_string(),
            messages::unknown_ref("scroll_to", "e999"),
            messages::unknown_ref("highlight", "button Submit"),
        ]
    );
    assert_eq!(sent(&mut rx).len(), 1, "only e3 was highlighted");
}

/// A fill with `"value": ""` clears the field; one without a value (missing or `null`) is
/// skipped with its own text, never written as "".
#[test]
fn a_fill_without_a_value_is_skipped_and_an_empty_one_clears() {
    let (worker, mut rx) = worker();
    let args = ReplyArgs::from_value(&json!({
        "answer": "Cleared.",
        "fills": [{"ref": "e3", "value": ""}, {"ref": "e4"}, {"ref": "e4", "value": null}]
    }));
    let report = reply_tool::dispatch(&worker, &args, &RespondHandle::new());
    assert_eq!(
        sent(&mut rx),
        [(
            "set_input_value".to_string(),
            json!({"value": "", "ref": "e3", "target_id": null, "replace": true})
        )]
    );
    assert_eq!(
        report.skipped,
        [
            messages::reply_fill_without_value(&json!({"ref": "e4"})),
            messages::reply_fill_without_value(&json!({"ref": "e4", "value": null})),
        ]
    );
    assert_eq!(
        report.skipped[0],
        "fills: skipped {\"ref\":\"e4\"}, which has no value: give each fill \
         {\"ref\": \"eN\", \"value\": \"...\"}, with \"value\": \"\" to clear the field"
    );
}

/// Only e4 (value "5") is filled and e9 clicked, in order, and the turn ends with the answer.
#[tokio::test]
async fn u9_malformed_lists_are_skipped() {
    let (answer, commands, _) = respond_with_reply(json!({
        "answer": "Done.",
        "fills": ["x", null, {"ref": "e3"}, {"ref": "e4", "value": 5}],
        "click": [null, "e9"]
    }))
    .await;
    assert_eq!(
        answer,
        JobResponse::completed(json!({"answer": "Done.", "speak": true}))
    );
    assert_eq!(
        commands,
        [
            (
                "set_input_value".to_string(),
                json!({"value": "5", "ref": "e4", "target_id": null, "replace": true})
            ),
            ("click".to_string(), json!({"ref": "e9", "target_id": null})),
        ]
    );
}

#[test]
fn the_guards_record_what_they_skip() {
    let args = ReplyArgs::from_value(&json!({
        "answer": "Done.",
        "fills": ["x", null, {"ref": "e3"}, {"ref": "e4", "value": 5}, {"ref": "e5", "value": true}],
        "click": [null, "e9"],
        "scroll_to": "",
        "select_text": 3
    }));
    assert_eq!(args.answer.as_deref(), Some("Done."));
    assert_eq!(
        args.fills,
        [("e4".into(), "5".into()), ("e5".into(), "True".into())]
    );
    assert_eq!(args.click, ["e9"]);
    assert_eq!(
        args.scroll_to, None,
        "a falsy scroll_to is skipped silently"
    );
    assert_eq!(args.select_text, None);
    assert_eq!(
        args.skipped,
        [
            "select_text: skipped 3, which is not a ref from the latest snapshot",
            "click: skipped null, which is not a ref from the latest snapshot",
            "fills: skipped \"x\", which is not a ref from the latest snapshot",
            "fills: skipped null, which is not a ref from the latest snapshot",
            "fills: skipped {\"ref\":\"e3\"}, which has no value: give each fill {\"ref\": \"eN\", \"value\": \"...\"}, with \"value\": \"\" to clear the field",
        ]
    );
    // Not an object at all: nothing to do, and no answer.
    assert_eq!(
        ReplyArgs::from_value(&json!("reply!")),
        ReplyArgs::default()
    );
}

/// A ref refused by the worker is skipped, never an abort; the rest still acts. A ref of an
/// earlier snapshot reads as stale, one no snapshot had as unknown.
#[test]
fn a_ref_the_worker_refuses_is_skipped() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = UiWorker::new("ui", Arc::new(tx));
    worker.on_snapshot(
        A11ySnapshot::from_json(
            r#"{"root":{"ref":"e1","role":"form","children":[
            {"ref":"e7","role":"button","name":"Save"}]},"captured_at":1}"#,
        )
        .unwrap(),
    );
    worker.on_snapshot(A11ySnapshot::from_json(SNAPSHOT).unwrap());
    let handle = RespondHandle::new();
    let args = ReplyArgs::from_value(&json!({"answer": "Ok.", "click": ["e7", "e999", "e9"]}));
    let report = reply_tool::dispatch(&worker, &args, &handle);
    assert_eq!(
        report.acted,
        [Acted {
            command: "click",
            ref_: "e9".into()
        }]
    );
    assert_eq!(
        report.skipped,
        [
            "e7 is not on the screen any more: the page changed since that ref was read. \
          Take the refs of the latest snapshot and send click again.",
            "e999 is not a ref the page has shown: no recent snapshot had it. Use only refs \
          that appear in the latest <ui_state>, and send click again with one of them."
        ]
    );
    assert!(!report.answered, "no respond job in flight");
    assert_eq!(sent(&mut rx).len(), 1);
    assert_eq!(
        report.model_text(),
        json!({"replied": true, "skipped": report.skipped}).to_string()
    );
}

/// A missing answer still completes the job (with no answer), so the requester never waits.
#[tokio::test]
async fn a_missing_answer_still_completes_the_job() {
    let (answer, commands, _) = respond_with_reply(json!({"highlight": ["e3"]})).await;
    assert_eq!(
        answer,
        JobResponse {
            status: JobStatus::Completed,
            response: None
        }
    );
    assert_eq!(commands.len(), 1);
}
