//! The `respond` job: one screen-grounded LLM turn whose reply is the answer.
//!
//! Guide: `docs/guide/ui-worker.md`, "The `respond` job and the reply tool". As
//! pipecat-subagents commit 8208302, a cancelled job releases the single-flight lock.
//!
//! A [`Responder`] runs `respond` jobs for a [`UiWorker`]:
//!
//! 1. **One at a time, first asked first run**: a job takes its place in
//!    line when it is asked — the call of [`Responder::respond`] or [`JobHandler::handle`],
//!    not the first poll of its future — and waits until every job asked before it is
//!    answered or dropped (the crate's `single_flight` line). So jobs spawned as tasks, which the
//!    runtime may start in any order, still run in the order they were asked.
//! 2. The context is cleared unless `keep_history`; the query ([`RenderQuery`], by default
//!    `payload["query"]`) is appended as the user's message. A job without a query (missing,
//!    `null` or blank) is refused at once with status `error` (beyond pipecat), never run as a
//!    turn on an empty question.
//! 3. Inference rounds: before each, `<ui_state>` is appended only when the last message is the
//!    user's ([`UiContext::before_inference`]). The system instruction is the base instruction
//!    plus the prompt guide ([`crate::context::compose_system_instruction`]).
//! 4. A reply **without** tool calls is the answer: `{"answer": reply}` (an empty reply
//!    completes the job with no answer). A reply **with** tool calls is a preamble: the tools
//!    run in order (the [`ToolRegistry`]'s, and the reply tool when enabled,
//!    [`crate::reply_tool`]), their results go back to the model, and the next round starts,
//!    unless a tool answered the job with [`RespondHandle::respond_to_job`]. After
//!    [`RespondOptions::max_rounds`] rounds of tool calls, one last request offers no tool
//!    call (`tool_choice: none` on every provider): its text is the answer; a tool call in it
//!    does not run, and without text the job answers with an error.
//! 5. An LLM error answers the job with status `error` and `{"error": …}`. Dropping the job's
//!    future (cancellation) releases the lock and clears the in-flight job, so the next job
//!    runs.
//!
//! The context is a [`WorkerContext`], shared with the worker's UI events
//! ([`crate::events::UiEvents`]) so that `<ui_event>` messages land in the same history.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::future::BoxFuture;
use hark_llm::{ChatRequest, Message, Provider, ToolCall, ToolChoice, ToolDefinition};
use hark_rtvi::JobStatus;
use hark_tools::{Dialect, ToolContext, ToolRegistry};
use serde_json::{Value, json};

use crate::context::{ContextMessage, Role, UiContext, UiContextOptions};
use crate::messages;
use crate::reply_tool;
use crate::single_flight::Line;
use crate::worker::UiWorker;
use hark_bus::JobResponse;
use hark_bus::{JobHandler, JobReply, JobRequest, JobUpdates};

/// The key of a respond job's answer: `{"answer": "…"}`.
pub const ANSWER_KEY: &str = "answer";
/// The key that marks an answer to be spoken verbatim by the requester (the reply tool's
/// answer): `{"answer": "…", "speak": true}`.
pub const SPEAK_KEY: &str = "speak";

/// The UI worker's LLM context: the injection rules of [`UiContext`] plus the tool-call
/// structure of each round (an assistant message's tool calls, a tool result's call id), which
/// plain context messages do not carry.
///
/// Shared (`Arc`) between the [`Responder`] and the worker's UI events; each access locks it
/// briefly, never across an await.
#[derive(Debug)]
pub struct WorkerContext {
    inner: Mutex<ContextState>,
}

#[derive(Debug)]
struct ContextState {
    ctx: UiContext,
    /// Messages whose LLM form carries more than role + text, by index in `ctx.messages()`.
    structured: HashMap<usize, Message>,
}

impl WorkerContext {
    /// A context with `options` and the base system instruction (the prompt guide is appended).
    pub fn new(options: UiContextOptions, base_instruction: Option<&str>) -> Self {
        WorkerContext {
            inner: Mutex::new(ContextState {
                ctx: UiContext::new(options, base_instruction),
                structured: HashMap::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ContextState> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a UI event before its handler runs (see [`UiContext::on_ui_event`]); returns
    /// whether a `<ui_event>` message was appended.
    pub fn on_ui_event(&self, rendered_event: &str) -> bool {
        self.lock().ctx.on_ui_event(rendered_event)
    }

    /// Appends `<ui_state>` whatever the last message (pipecat `inject_ui_state`, for
    /// `auto_inject_ui_state: false`); no-op for `""`.
    pub fn inject_ui_state(&self, ui_state: &str) -> bool {
        self.lock().ctx.inject_ui_state(ui_state)
    }

    /// The history as plain messages, oldest first (without the system instruction).
    pub fn messages(&self) -> Vec<ContextMessage> {
        self.lock().ctx.messages().to_vec()
    }

    /// The system instruction (base + prompt guide).
    pub fn system_instruction(&self) -> Option<String> {
        self.lock().ctx.system_instruction().map(str::to_string)
    }

    /// The full request as LLM messages: the system instruction, then the history with each
    /// round's tool calls and tool results.
    pub fn llm_messages(&self) -> Vec<Message> {
        let state = self.lock();
        let mut out = Vec::with_capacity(state.ctx.messages().len() + 1);
        if let Some(s) = state.ctx.system_instruction() {
            out.push(Message::System(s.to_string()));
        }
        for (i, m) in state.ctx.messages().iter().enumerate() {
            out.push(match state.structured.get(&i) {
                Some(structured) => structured.clone(),
                None => plain_message(m),
            });
        }
        out
    }

    fn start_turn(&self, query: &str) {
        let mut state = self.lock();
        if !state.ctx.options().keep_history {
            state.structured.clear();
        }
        state.ctx.start_turn(query);
    }

    fn before_inference(&self, ui_state: &str) -> bool {
        self.lock().ctx.before_inference(ui_state)
    }

    fn push_structured(&self, plain: ContextMessage, structured: Message) {
        let mut state = self.lock();
        let index = state.ctx.messages().len();
        state.ctx.push(plain);
        state.structured.insert(index, structured);
    }

    fn push(&self, message: ContextMessage) {
        self.lock().ctx.push(message);
    }
}

fn plain_message(m: &ContextMessage) -> Message {
    match m.role {
        Role::System => Message::System(m.content.clone()),
        Role::Developer => Message::Developer(m.content.clone()),
        Role::User => Message::User(m.content.clone()),
        Role::Assistant => Message::Assistant {
            content: m.content.clone(),
            tool_calls: Vec::new(),
        },
        // A tool result without its call id cannot be sent as a tool message.
        Role::Tool => Message::Developer(m.content.clone()),
    }
}

/// The job in flight and its answer, shared by the [`Responder`] and its tools.
#[derive(Debug, Default)]
struct Slot {
    job: Option<JobRequest>,
    answer: Option<JobResponse>,
}

/// What a tool holds to answer the in-flight `respond` job (pipecat `respond_to_job`,
/// `current_job`). Cheap to clone; create it first, capture clones in your tools, then give it
/// to [`Responder::builder`].
#[derive(Debug, Clone, Default)]
pub struct RespondHandle {
    slot: Arc<Mutex<Slot>>,
}

impl RespondHandle {
    /// A handle with no job in flight.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The `respond` job in flight, or `None` when idle.
    pub fn current_job(&self) -> Option<JobRequest> {
        self.lock().job.clone()
    }

    /// Answers the in-flight job instead of the LLM's reply: `{"answer": answer}` with `status`;
    /// a falsy answer (`None` or `""`) completes it with no answer (the worker acted and has
    /// nothing to say). Returns `false`, doing nothing, when no job is in flight or it was
    /// already answered.
    pub fn respond_to_job(&self, answer: Option<&str>, status: JobStatus) -> bool {
        self.answer(answer, status, false)
    }

    /// As [`respond_to_job`](Self::respond_to_job) for an answer the requester must **speak
    /// verbatim** (pipecat's `tts_speak=True`, the reply tool): the response is
    /// `{"answer": answer, "speak": true}` ([`SPEAK_KEY`]). A falsy answer completes the job with
    /// no answer and nothing to say.
    pub fn respond_to_job_spoken(&self, answer: Option<&str>, status: JobStatus) -> bool {
        self.answer(answer, status, true)
    }

    fn answer(&self, answer: Option<&str>, status: JobStatus, speak: bool) -> bool {
        let mut slot = self.lock();
        if slot.job.is_none() || slot.answer.is_some() {
            return false;
        }
        let response = answer.filter(|a| !a.is_empty()).map(|a| {
            if speak {
                json!({ ANSWER_KEY: a, SPEAK_KEY: true })
            } else {
                json!({ ANSWER_KEY: a })
            }
        });
        slot.answer = Some(JobResponse { status, response });
        true
    }

    fn begin(&self, job: JobRequest) {
        let mut slot = self.lock();
        slot.job = Some(job);
        slot.answer = None;
    }

    fn take_answer(&self) -> Option<JobResponse> {
        self.lock().answer.take()
    }

    fn end(&self) {
        let mut slot = self.lock();
        slot.job = None;
        slot.answer = None;
    }
}

/// Clears the in-flight job when the job's future ends or is dropped (cancellation).
struct InFlight<'a>(&'a RespondHandle);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// Extracts the query text from a `respond` job (pipecat `render_query`). The default
/// ([`PayloadQuery`]) reads `payload["query"]`; implement it, or pass a closure
/// `Fn(&JobRequest) -> String`, to read another payload shape.
pub trait RenderQuery: Send + Sync + fmt::Debug {
    /// The text appended to the context as the user's message.
    fn render_query(&self, job: &JobRequest) -> String;
}

/// The default [`RenderQuery`]: `payload["query"]` when it is a string, its JSON text when it
/// is another value, `""` when absent.
#[derive(Debug, Clone, Copy, Default)]
pub struct PayloadQuery;

impl RenderQuery for PayloadQuery {
    fn render_query(&self, job: &JobRequest) -> String {
        match job.payload.get("query") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

/// A closure as a [`RenderQuery`].
pub struct QueryFn<F>(pub F);

impl<F> fmt::Debug for QueryFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("QueryFn")
    }
}

impl<F: Fn(&JobRequest) -> String + Send + Sync> RenderQuery for QueryFn<F> {
    fn render_query(&self, job: &JobRequest) -> String {
        (self.0)(job)
    }
}

/// Settings of the respond turn.
#[derive(Debug, Clone, PartialEq)]
pub struct RespondOptions {
    /// The model name sent to the provider.
    pub model: String,
    /// Tool dialect of the provider (for the registry's definitions). Default OpenAI.
    pub dialect: Dialect,
    /// Offer the reply tool ([`crate::reply_tool`]). Default `false`.
    pub reply_tool: bool,
    /// Most rounds of tool calls per job (default 8). After that many, one last request offers
    /// no tool call (`tool_choice: none`) with [`messages::respond_rounds_exhausted`]; its
    /// text is the answer, and a tool call in it does not run (the job then answers with
    /// [`messages::respond_too_many_rounds`]).
    pub max_rounds: usize,
    /// Sampling temperature; `None` leaves the provider's default.
    pub temperature: Option<f32>,
}

impl RespondOptions {
    /// Options for `model`: OpenAI dialect, no reply tool, 8 rounds, default temperature.
    pub fn new(model: impl Into<String>) -> Self {
        RespondOptions {
            model: model.into(),
            dialect: Dialect::OpenAi,
            reply_tool: false,
            max_rounds: 8,
            temperature: None,
        }
    }
}

/// Builds a [`Responder`].
#[derive(Debug)]
pub struct ResponderBuilder {
    worker: Arc<UiWorker>,
    provider: Arc<dyn Provider>,
    options: RespondOptions,
    instruction: Option<String>,
    context: Option<Arc<WorkerContext>>,
    tools: Option<Arc<ToolRegistry>>,
    handle: RespondHandle,
    query: Arc<dyn RenderQuery>,
}

impl ResponderBuilder {
    /// The base system instruction (the worker's prompt guide is appended to it). Ignored when
    /// [`context`](Self::context) is given (the context holds its own).
    pub fn instruction(mut self, instruction: impl Into<String>) -> Self {
        self.instruction = Some(instruction.into());
        self
    }

    /// Use this context (shared with the worker's UI events) instead of a new one.
    pub fn context(mut self, context: Arc<WorkerContext>) -> Self {
        self.context = Some(context);
        self
    }

    /// The worker's own tools.
    pub fn tools(mut self, tools: Arc<ToolRegistry>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// The handle the tools answer through (create it first so tools can capture it).
    pub fn handle(mut self, handle: RespondHandle) -> Self {
        self.handle = handle;
        self
    }

    /// Reads the query another way (pipecat `render_query` override).
    pub fn render_query(mut self, query: impl RenderQuery + 'static) -> Self {
        self.query = Arc::new(query);
        self
    }

    /// Offers the reply tool ([`crate::reply_tool`]).
    pub fn reply_tool(mut self, on: bool) -> Self {
        self.options.reply_tool = on;
        self
    }

    /// Most rounds of tool calls per job (at least 1; see [`RespondOptions::max_rounds`]).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.options.max_rounds = rounds.max(1);
        self
    }

    /// The provider's tool dialect.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.options.dialect = dialect;
        self
    }

    /// Builds the responder.
    pub fn build(self) -> Responder {
        let context = self.context.unwrap_or_else(|| {
            Arc::new(WorkerContext::new(
                self.worker.options().clone(),
                self.instruction.as_deref(),
            ))
        });
        Responder {
            worker: self.worker,
            provider: self.provider,
            options: self.options,
            context,
            tools: self.tools,
            handle: self.handle,
            query: self.query,
            single_flight: Line::default(),
        }
    }
}

/// Runs `respond` jobs for a UI worker (see the module docs). Register it on a
/// [`hark_bus::Bus`] (it is a [`JobHandler`]) or call [`respond`](Self::respond).
#[derive(Debug)]
pub struct Responder {
    worker: Arc<UiWorker>,
    provider: Arc<dyn Provider>,
    options: RespondOptions,
    context: Arc<WorkerContext>,
    tools: Option<Arc<ToolRegistry>>,
    handle: RespondHandle,
    query: Arc<dyn RenderQuery>,
    single_flight: Line,
}

impl Responder {
    /// A builder for a responder of `worker` over `provider` with `model`.
    pub fn builder(
        worker: Arc<UiWorker>,
        provider: Arc<dyn Provider>,
        model: impl Into<String>,
    ) -> ResponderBuilder {
        ResponderBuilder {
            worker,
            provider,
            options: RespondOptions::new(model),
            instruction: None,
            context: None,
            tools: None,
            handle: RespondHandle::new(),
            query: Arc::new(PayloadQuery),
        }
    }

    /// The handle tools answer through.
    pub fn respond_handle(&self) -> &RespondHandle {
        &self.handle
    }

    /// The context (shared with UI events).
    pub fn context(&self) -> &Arc<WorkerContext> {
        &self.context
    }

    /// The options.
    pub fn options(&self) -> &RespondOptions {
        &self.options
    }

    /// The `respond` job in flight, or `None` when idle (pipecat `current_job`).
    pub fn current_job(&self) -> Option<JobRequest> {
        self.handle.current_job()
    }

    /// The tool definitions sent with each inference: the registry's in the configured dialect,
    /// then the reply tool when enabled.
    pub fn tool_definitions(&self) -> Vec<ToolDefinition> {
        let mut out = Vec::new();
        if let Some(tools) = &self.tools {
            out.extend(
                tools
                    .definitions(self.options.dialect)
                    .tools
                    .into_iter()
                    .map(|t| ToolDefinition::new(t.name, t.description, t.parameters)),
            );
        }
        if self.options.reply_tool {
            out.push(reply_tool::definition());
        }
        out
    }

    /// Runs one `respond` job to its answer. Waits while a job asked before it is in flight or
    /// waiting: the job's place in line is taken by this call, not when the future is first
    /// polled, so jobs run in the order `respond` was called. Dropping the future leaves the
    /// line (the next job runs). Never fails: an LLM error or too many tool rounds answer with
    /// status `error` and `{"error": …}`.
    ///
    /// A job without a query (its [`RenderQuery`] gives `""` or only whitespace: with the
    /// default [`PayloadQuery`], `payload["query"]` missing, `null` or blank) is answered at
    /// once with status `error` and [`messages::respond_query_missing`], without waiting,
    /// touching the context or calling the LLM: a turn on an empty question would answer
    /// something nobody asked.
    pub fn respond(&self, job: JobRequest) -> impl Future<Output = JobResponse> + Send + '_ {
        let query = self.query.render_query(&job);
        let place = (!query.trim().is_empty()).then(|| self.single_flight.join());
        async move {
            let Some(place) = place else {
                tracing::debug!(
                    worker = self.worker.name(),
                    job = %job.job_id,
                    "respond job without a query: refused"
                );
                return JobResponse::error(messages::respond_query_missing());
            };
            place.turn().await;
            self.handle.begin(job);
            let _in_flight = InFlight(&self.handle);
            self.context.start_turn(&query);
            let answer = self.turn().await;
            drop(_in_flight);
            drop(place);
            answer
        }
    }

    async fn turn(&self) -> JobResponse {
        let definitions = self.tool_definitions();
        let limit = self.options.max_rounds;
        for round in 0..=limit {
            if self.worker.options().auto_inject_ui_state {
                self.context
                    .before_inference(&self.worker.render_ui_state());
            }
            let mut request = ChatRequest::new(&self.options.model, self.context.llm_messages())
                .with_tools(definitions.clone());
            request.temperature = self.options.temperature;
            // After `limit` rounds of tool calls the request offers no tool call (every
            // provider's "none" setting) and tells the model to answer in words.
            let last = round == limit;
            if last && !request.tools.is_empty() {
                request.tool_choice = ToolChoice::None;
                request
                    .messages
                    .push(Message::Developer(messages::respond_rounds_exhausted(
                        limit,
                    )));
            }
            let completion = match self.provider.complete(&request).await {
                Ok(c) => c,
                Err(error) => {
                    tracing::warn!(
                        worker = self.worker.name(),
                        "respond job: the LLM failed: {error}"
                    );
                    // The requester (a voice agent's model, which may say it aloud) reads the
                    // kind and status only; the provider's own words (a key's fragment, the
                    // endpoint) stay in the log above.
                    return JobResponse::error(messages::respond_llm_failed(&error.for_client()));
                }
            };
            if completion.tool_calls.is_empty() {
                self.context.push(ContextMessage::new(
                    Role::Assistant,
                    completion.text.clone(),
                ));
                if let Some(answer) = self.handle.take_answer() {
                    return answer;
                }
                let text = completion.text.trim();
                return JobResponse {
                    status: JobStatus::Completed,
                    response: (!text.is_empty()).then(|| json!({ ANSWER_KEY: text })),
                };
            }
            if last {
                // The model called a tool where it could not: none runs.
                tracing::warn!(
                    worker = self.worker.name(),
                    rounds = limit,
                    "respond job: the model still called tools after the most rounds; those calls do not run"
                );
                let text = completion.text.trim();
                if text.is_empty() {
                    return JobResponse::error(messages::respond_too_many_rounds(limit));
                }
                return JobResponse {
                    status: JobStatus::Completed,
                    response: Some(json!({ ANSWER_KEY: text })),
                };
            }
            // A reply with tool calls is a preamble: run the tools, feed back their results.
            self.context.push_structured(
                ContextMessage::new(Role::Assistant, completion.text.clone()),
                Message::Assistant {
                    content: completion.text.clone(),
                    tool_calls: completion.tool_calls.clone(),
                },
            );
            for call in &completion.tool_calls {
                let result = self.run_tool(call).await;
                self.context.push_structured(
                    ContextMessage::new(Role::Tool, result.clone()),
                    Message::Tool {
                        tool_call_id: call.id.clone(),
                        content: result,
                    },
                );
            }
            if let Some(answer) = self.handle.take_answer() {
                return answer;
            }
        }
        JobResponse::error(messages::respond_too_many_rounds(limit))
    }

    async fn run_tool(&self, call: &ToolCall) -> String {
        if self.options.reply_tool && call.name == reply_tool::NAME {
            // The reply tool reads its arguments leniently: a malformed call still answers.
            let arguments = call.parse_arguments().unwrap_or(Value::Null);
            let report = reply_tool::dispatch(
                &self.worker,
                &reply_tool::ReplyArgs::from_value(&arguments),
                &self.handle,
            );
            return report.model_text();
        }
        match &self.tools {
            Some(tools) => tools
                .call(&call.name, &call.arguments, &ToolContext::default())
                .await
                .model_text(),
            None => json!({ "error": messages::respond_unknown_tool(&call.name) }).to_string(),
        }
    }
}

impl JobHandler for Responder {
    fn handle(&self, job: JobRequest, _updates: JobUpdates) -> BoxFuture<'_, JobReply> {
        // The job's place in line is taken now, when the worker is handed it.
        let answer = self.respond(job);
        Box::pin(async move { JobReply::Response(answer.await) })
    }
}
