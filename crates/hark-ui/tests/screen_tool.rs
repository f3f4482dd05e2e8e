//! `screen_tools`: the `screen` tool for a voice LLM: schema, description, interruption rule,
//! payload, answers, failures and timeout.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use hark_rtvi::JobStatus;
use hark_tools::{Interruption, ToolContext, ToolRegistry};
use hark_ui::screen_tool::{SCREEN_TOOL, screen_parameters, screen_tool};
use hark_ui::{DEFAULT_SCREEN_TIMEOUT, JobResponse, ScreenJobs, UiWorker, messages, screen_tools};
use serde_json::{Value, json};

/// A worker stand-in that records payloads and answers as told.
#[derive(Debug)]
struct Fake {
    answer: Option<Result<JobResponse, String>>,
    payloads: Mutex<Vec<Value>>,
}

impl Fake {
    fn new(answer: Option<Result<JobResponse, String>>) -> Arc<Self> {
        Arc::new(Self {
            answer,
            payloads: Mutex::new(Vec::new()),
        })
    }
}

impl ScreenJobs for Fake {
    fn worker_name(&self) -> &str {
        "ui"
    }

    fn screen_job(&self, payload: Value) -> BoxFuture<'_, Result<JobResponse, String>> {
        self.payloads.lock().unwrap().push(payload);
        match self.answer.clone() {
            Some(a) => Box::pin(async move { a }),
            None => Box::pin(futures::future::pending()),
        }
    }
}

async fn call(jobs: Arc<dyn ScreenJobs>, timeout: Duration, args: Value) -> Value {
    let registry = ToolRegistry::new(screen_tools(jobs, timeout).unwrap()).unwrap();
    let out = registry
        .call(
            SCREEN_TOOL,
            args.to_string().as_str(),
            &ToolContext::default(),
        )
        .await;
    out.model_result
}

#[test]
fn the_tool_has_the_schema_description_and_interruption_rule() {
    let tool = screen_tool(Fake::new(None), DEFAULT_SCREEN_TIMEOUT).unwrap();
    assert_eq!(tool.name(), "screen");
    assert_eq!(DEFAULT_SCREEN_TIMEOUT, Duration::from_secs(30));
    assert_eq!(tool.interruption_rule(), Interruption::Continue);
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "description": "One of \"find\", \"check\", \"select\", \"list\", \"selection\", \"click\", \"scroll_to\", \"highlight\", \"select_text\" or \"fill\"."},
                "target": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "The description, criteria or role the action needs; none for \"selection\"."},
                "value": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "The text to write, only for \"fill\", and required there: \"\" clears the field."}
            },
            "required": ["action"]
        })
    );
    assert_eq!(tool.parameters(), &screen_parameters());
    let d = messages::screen_tool_description();
    assert!(d.starts_with("Ask about what is on the user's screen right now, or act on it."));
    for needle in [
        "- find:",
        "- check:",
        "- select:",
        "- list:",
        "- selection:",
        "\"this\"",
        "click, scroll_to, highlight, select_text, fill:",
        "fill needs a value",
        "value \"\" clears the field",
        "a fill without a value is refused, never a clear",
        "label",
        "confidence",
        "probability",
        "role such as \"checkbox\"",
        "never contains element ids",
    ] {
        assert!(d.contains(needle), "description lacks {needle:?}");
    }
}

#[tokio::test]
async fn the_payload_carries_only_given_fields_and_the_answer_is_returned_as_data() {
    let fake = Fake::new(Some(Ok(JobResponse::completed(
        json!({"label": "Pay now", "confidence": 0.9}),
    ))));
    let r = call(
        fake.clone(),
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "find", "target": "the pay button", "value": null}),
    )
    .await;
    assert_eq!(r, json!({"label": "Pay now", "confidence": 0.9}));
    call(
        fake.clone(),
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "fill", "target": "email", "value": "a@b.c"}),
    )
    .await;
    call(
        fake.clone(),
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "selection"}),
    )
    .await;
    assert_eq!(
        *fake.payloads.lock().unwrap(),
        vec![
            json!({"action": "find", "target": "the pay button"}),
            json!({"action": "fill", "target": "email", "value": "a@b.c"}),
            json!({"action": "selection"}),
        ]
    );
}

#[tokio::test]
async fn failed_jobs_timeouts_and_unreachable_workers_read_error() {
    let failed = Fake::new(Some(Ok(JobResponse::error("model unreachable"))));
    let r = call(
        failed,
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "check", "target": "x"}),
    )
    .await;
    assert_eq!(r, json!({"error": "model unreachable"}));

    let bare = Fake::new(Some(Ok(JobResponse {
        status: JobStatus::Failed,
        response: None,
    })));
    let r = call(
        bare,
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "check", "target": "x"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"error": "the UI worker \"ui\" ended the screen job with status failed."})
    );

    let gone = Fake::new(Some(Err("the bus is closed".into())));
    let r = call(gone, DEFAULT_SCREEN_TIMEOUT, json!({"action": "list"})).await;
    assert_eq!(
        r,
        json!({"error": "the UI worker \"ui\" cannot be reached: the bus is closed"})
    );

    let silent = Fake::new(None);
    let r = call(silent, Duration::from_millis(50), json!({"action": "list"})).await;
    assert_eq!(r, json!({"error": messages::screen_timeout("ui", 0.05)}));
    assert_eq!(
        messages::screen_timeout("ui", 30.0),
        "the UI worker \"ui\" did not answer the screen job within 30 s (timeout): tell the user \
         you could not see the screen just now."
    );
}

#[tokio::test]
async fn an_in_process_worker_answers_the_tool() {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = Arc::new(UiWorker::new("ui", Arc::new(tx)).without_classifier());
    worker.on_snapshot(
        hark_rtvi::A11ySnapshot::from_json(
            r#"{"root":{"ref":"e1","role":"form","children":[
            {"ref":"e2","role":"checkbox","name":"Gift wrap","state":["checked"]},
            {"ref":"e3","role":"button","name":"Pay"}]},"captured_at":1}"#,
        )
        .unwrap(),
    );
    let r = call(
        worker.clone(),
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "list", "target": "checkbox"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"elements": [{"role": "checkbox", "name": "Gift wrap", "state": ["checked"], "value": null}]})
    );
    // No classifier: a clear error, as data.
    let r = call(
        worker,
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "find", "target": "pay"}),
    )
    .await;
    assert_eq!(r, json!({"error": messages::no_classifier()}));
}

/// The tool through a bus: the worker serves `screen` through `JobRoutes`, and a worker missing
/// from the bus answers the bus's error as data.
#[tokio::test]
async fn a_worker_on_the_bus_answers_the_tool() {
    use hark_ui::{Bus, BusScreenJobs, JobRoutes, ScreenJobHandler};

    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let worker = Arc::new(UiWorker::new("ui", Arc::new(tx)));
    worker.on_snapshot(
        hark_rtvi::A11ySnapshot::from_json(
            r#"{"root":{"ref":"e1","role":"form","children":[
            {"ref":"e2","role":"checkbox","name":"Gift wrap"},
            {"ref":"e3","role":"button","name":"Pay"}]},"captured_at":1}"#,
        )
        .unwrap(),
    );
    let bus = Arc::new(Bus::new());
    let routes = JobRoutes::new("ui")
        .route("screen", Arc::new(ScreenJobHandler::new(worker.clone())))
        .unwrap();
    bus.register("ui", Arc::new(routes)).unwrap();

    let jobs = Arc::new(BusScreenJobs::new(bus.clone(), "voice", "ui"));
    assert_eq!(jobs.worker_name(), "ui");
    let r = call(
        jobs.clone(),
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "list", "target": "checkbox"}),
    )
    .await;
    assert_eq!(
        r,
        json!({"elements": [{"role": "checkbox", "name": "Gift wrap", "state": [], "value": null}]})
    );

    let missing = Arc::new(BusScreenJobs::new(bus, "voice", "nobody"));
    let r = call(missing, DEFAULT_SCREEN_TIMEOUT, json!({"action": "list"})).await;
    assert_eq!(
        r,
        json!({"error": "no worker named nobody is on the bus: register it first, or check the name"})
    );
}

/// The trial's fault, end to end: `fill` with no value on a search box holding "mugs" answers an
/// error naming the action and what to send, and sends the page nothing; `"value": ""` is the
/// way to clear it (and `"value": null` reads as no value).
#[tokio::test]
async fn fill_without_a_value_is_refused_and_an_empty_value_clears() {
    use hark_rtvi::ServerMessage;
    use hark_ui::classifier::LocalClassifier;

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ServerMessage>();
    let worker = Arc::new(
        UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::lexical())),
    );
    worker.on_snapshot(
        hark_rtvi::A11ySnapshot::from_json(
            r#"{"root":{"ref":"e1","role":"main","children":[
            {"ref":"e2","role":"searchbox","name":"Search","value":"mugs"},
            {"ref":"e3","role":"button","name":"Log in"}]},"captured_at":1}"#,
        )
        .unwrap(),
    );
    for args in [
        json!({"action": "fill", "target": "the search field"}),
        json!({"action": "fill", "target": "the search field", "value": null}),
    ] {
        let r = call(worker.clone(), DEFAULT_SCREEN_TIMEOUT, args.clone()).await;
        assert_eq!(
            r,
            json!({"error": "the screen action \"fill\" needs a value: send the text to write as \"value\", e.g. \"ana@example.com\", or \"value\": \"\" to clear the field."}),
            "{args}"
        );
    }
    assert!(rx.try_recv().is_err(), "the field was not wiped");
    let r = call(
        worker,
        DEFAULT_SCREEN_TIMEOUT,
        json!({"action": "fill", "target": "the search field", "value": ""}),
    )
    .await;
    assert_eq!(r, json!({"done": true, "label": "Search"}));
    let Ok(ServerMessage::UiCommand(command)) = rx.try_recv() else {
        panic!("set_input_value sent")
    };
    assert_eq!(command.command, "set_input_value");
    assert_eq!(
        command.payload,
        json!({"value": "", "ref": "e2", "target_id": null, "replace": true})
    );
}
