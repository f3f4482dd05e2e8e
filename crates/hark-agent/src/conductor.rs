//! The seam between the turn loop and the conversation's policy.
//!
//! The turn loop ([`crate::VoiceAgent`]) owns the mechanics of a call: the history,
//! the provider stream, speaking, running tool calls through the registry, interruptions. A
//! [`Conductor`] owns the *policy*: what the model is told and offered, and where the
//! conversation takes a turn of its own without the model.
//!
//! The plain agent ([`PlainAgent`]) is one policy: one system prompt, one set of tools, every
//! user turn goes to the model, every tool call runs. A flow of steps is another: each step
//! gives its own instructions and tools, a pending read-back is answered from the caller's
//! "yes"/"no" without asking the model, a closing tool with confirm lines is held back until the
//! caller confirmed, and a finish rule moves the flow on when a tool call succeeded.
//!
//! # When the loop asks the conductor
//!
//! ```text
//! user text ──► on_user_turn ──► Ask ─────────────► (history += user)      ─┐
//!                            ├─► Answer{say} ─────► say lines; (history += user, assistant) ── turn ends
//!                            └─► Call{say, call} ─► say lines; run `call` ─┤ (as below, after the run)
//!                                                                          ▼
//!   ┌──────────────────────── round ◄──────────────────────────────────────┘
//!   │ instructions() + tools() ──► model request ──► text (spoken) + tool calls
//!   │ for each tool call, in call order:
//!   │     before_tool_call ──► Run ─────► registry.call_live ──► after_tool_call
//!   │                      └─► Answer{say, result, ask_model_reply} (the tool does not run)
//!   └── next round while some result asks for a model reply
//! ```
//!
//! Every method gets a [`PolicyContext`]: the live call (its State, its voice) and the history
//! as the model will read it. The loop calls the conductor from one task at a time (one turn
//! runs at a time), but the conductor is shared (`Arc`), so a conductor with state keeps it
//! behind a lock of its own.
//!
//! # Rules the loop keeps for every conductor
//!
//! - The history stays valid for every provider: every tool call in it has exactly one result,
//!   in call order. An intercepted call ([`ToolCallPlan::Answer`]) gets the
//!   conductor's `result` as its result.
//! - Lines a conductor asks to say are said through the call's [`hark_tools::Speech`] (the
//!   client sees them as `bot-output` and `bot-tts-text`), in order, before anything else of
//!   that step happens.
//! - A call the conductor makes itself ([`UserTurn::Call`]) is not shown to
//!   [`Conductor::before_tool_call`] (the conductor already decided to run it); its result is
//!   shown to [`Conductor::after_tool_call`] like any other.
//! - Tool calls run on the registry the conductor gave for that round ([`Conductor::tools`]);
//!   the results of `continue` tools cut off by an interruption come later from the agent's
//!   own registry ([`crate::AgentSettings::registry`]), so every tool a conductor offers must
//!   also be in that registry (a flow step's tools are a subset: [`ToolRegistry::only`]).
//!
//! # Example: a policy that answers "help" itself
//!
//! ```
//! use std::sync::Arc;
//! use futures::future::BoxFuture;
//! use hark_agent::{Conductor, PlainAgent, PolicyContext, UserTurn};
//! use hark_tools::ToolRegistry;
//!
//! #[derive(Debug)]
//! struct Helpful(PlainAgent);
//!
//! impl Conductor for Helpful {
//!     fn instructions(&self, cx: &PolicyContext<'_>) -> String {
//!         self.0.instructions(cx)
//!     }
//!     fn tools(&self, cx: &PolicyContext<'_>) -> Arc<ToolRegistry> {
//!         self.0.tools(cx)
//!     }
//!     fn on_user_turn<'a>(&'a self, text: &'a str, _cx: &'a PolicyContext<'a>) -> BoxFuture<'a, UserTurn> {
//!         Box::pin(async move {
//!             if text.trim().eq_ignore_ascii_case("help") {
//!                 UserTurn::Answer { say: vec!["Ask me about your order.".into()] }
//!             } else {
//!                 UserTurn::Ask
//!             }
//!         })
//!     }
//! }
//!
//! let plain = PlainAgent::new("You help with orders.", Arc::new(ToolRegistry::new(vec![]).unwrap()));
//! let _policy: Arc<dyn Conductor> = Arc::new(Helpful(plain));
//! ```

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use hark_llm::{Message, ToolCall};
use hark_tools::{CallResult, LiveCall, ToolRegistry};
use serde_json::Value;

/// What a conductor sees when the loop asks it something: the live call and the history.
///
/// `history` is the conversation as the next model request carries it, oldest first, without
/// the system message (that comes from [`Conductor::instructions`] on every request). During
/// [`Conductor::on_user_turn`] it does not hold the new user text yet; during
/// [`Conductor::before_tool_call`] and [`Conductor::after_tool_call`] it holds everything before
/// the model reply whose calls are running.
#[derive(Debug, Clone, Copy)]
pub struct PolicyContext<'a> {
    /// The call in progress: its State (`live.state`), its voice (`live.speech`), its hooks.
    pub live: &'a LiveCall,
    /// The history, oldest first.
    pub history: &'a [Message],
}

/// How a user turn goes, as the conductor decides ([`Conductor::on_user_turn`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum UserTurn {
    /// The model answers: the user's text goes into the history and a model request runs.
    Ask,
    /// The conductor answered: `say` is said in order, the user's text and the lines (joined
    /// by a space) go into the history as a user message and an assistant message, and no
    /// model request runs this turn. An empty `say` answers silently (the user text is still
    /// recorded).
    Answer {
        /// The lines to say, in order.
        say: Vec<String>,
    },
    /// The conductor answered with a tool call (a read-back the caller confirmed: run the
    /// closing tool now). `say` is said first; then `call` runs through the registry exactly as
    /// a model's call would (announce line, checks, replies, effects) and goes into the history
    /// as an assistant message with that one call, followed by its result. A model request
    /// follows when the result asks for one ([`CallResult::ask_model_reply`]).
    ///
    /// `call.id` must be unique in the call's history (e.g. `"hark_flow_1"`); build it with
    /// [`ToolCall::from_value`](hark_llm::ToolCall::from_value) from the arguments object.
    Call {
        /// Lines said before the call runs.
        say: Vec<String>,
        /// The call to run.
        call: ToolCall,
    },
}

/// What happens to one tool call of the model before the registry sees it
/// ([`Conductor::before_tool_call`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolCallPlan {
    /// The registry runs the call ([`ToolRegistry::call_live`]).
    Run,
    /// The tool does not run: `say` is said (e.g. a read-back of the values), and `result` is
    /// what the model reads for this call. With `ask_model_reply == false` no model request
    /// follows for it (the read-back asked the caller a question; the caller answers next).
    Answer {
        /// Lines said in place of running the tool, in order.
        say: Vec<String>,
        /// The result the model reads (usually a JSON object).
        result: Value,
        /// Whether a model request follows for this call.
        ask_model_reply: bool,
    },
}

/// A conversation's policy, asked by the turn loop at fixed points (see the module docs).
///
/// Only [`instructions`](Self::instructions) and [`tools`](Self::tools) are required; the
/// other methods default to the plain agent's behaviour (the model answers every user turn,
/// every tool call runs, results change nothing).
pub trait Conductor: Send + Sync + fmt::Debug {
    /// The system prompt of the next model request. Asked before every request, so a policy
    /// may change it between rounds (a flow's step).
    fn instructions(&self, cx: &PolicyContext<'_>) -> String;

    /// The tools offered in the next model request, as a registry: the loop sends its
    /// definitions in the provider's dialect and runs the round's calls on it. Asked before
    /// every request.
    fn tools(&self, cx: &PolicyContext<'_>) -> Arc<ToolRegistry>;

    /// A user turn arrived (`text` is what the user said or typed). Default: [`UserTurn::Ask`].
    fn on_user_turn<'a>(
        &'a self,
        text: &'a str,
        cx: &'a PolicyContext<'a>,
    ) -> BoxFuture<'a, UserTurn> {
        let _ = (text, cx);
        Box::pin(async { UserTurn::Ask })
    }

    /// The model made `call`; decide before the registry runs it. Default: [`ToolCallPlan::Run`].
    /// Calls of one model reply are asked in call order, all before any of them runs.
    fn before_tool_call<'a>(
        &'a self,
        call: &'a ToolCall,
        cx: &'a PolicyContext<'a>,
    ) -> BoxFuture<'a, ToolCallPlan> {
        let _ = (call, cx);
        Box::pin(async { ToolCallPlan::Run })
    }

    /// The registry ran `call` and this is everything it did (its outcome, the lines said,
    /// the values saved, its effects). Called in call order once every call of the reply has
    /// a result, before the next model request (a flow's finish rule moves to the next step
    /// here). Not called for intercepted calls nor for calls of a discarded generation.
    /// Default: nothing.
    fn after_tool_call<'a>(
        &'a self,
        call: &'a ToolCall,
        result: &'a CallResult,
        cx: &'a PolicyContext<'a>,
    ) -> BoxFuture<'a, ()> {
        let _ = (call, result, cx);
        Box::pin(async {})
    }
}

/// The plain agent's policy: one system prompt and one tool registry for the whole call; the
/// model answers every user turn and every tool call runs.
#[derive(Clone)]
pub struct PlainAgent {
    instructions: String,
    tools: Arc<ToolRegistry>,
}

impl fmt::Debug for PlainAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlainAgent")
            .field("instructions", &self.instructions)
            .field("tools", &self.tools.names())
            .finish()
    }
}

impl PlainAgent {
    /// A plain agent told `instructions` (the system prompt) and offered every tool of `tools`.
    pub fn new(instructions: impl Into<String>, tools: Arc<ToolRegistry>) -> Self {
        PlainAgent {
            instructions: instructions.into(),
            tools,
        }
    }
}

impl Conductor for PlainAgent {
    fn instructions(&self, _cx: &PolicyContext<'_>) -> String {
        self.instructions.clone()
    }

    fn tools(&self, _cx: &PolicyContext<'_>) -> Arc<ToolRegistry> {
        self.tools.clone()
    }
}
