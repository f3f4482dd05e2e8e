//! The turn loop of a Hark call, flows of steps with read-back, and agent files.
//!
//! - [`VoiceAgent`]: one call. Each user turn ([`VoiceAgent::user_turn`]) streams the model's
//!   reply to the client as [`AgentEvent`]s (text deltas, and sentence by sentence spoken
//!   segments), runs its tool calls through the registry
//!   ([`hark_tools::ToolRegistry::call_live`]: announce lines, checks, replies, saves,
//!   effects), and asks the model again until a reply without tool calls (at most
//!   [`AgentSettings::max_tool_rounds`] rounds). A new user turn interrupts the running one
//!   and the history stays valid for every provider (parallel calls,
//!   interruptions, discarded generations, text beside a tool call; the table in `src/turn.rs` says
//!   what an interruption keeps at each point, and [`check_tool_results`] checks a history). A tool
//!   call that ends the conversation says its goodbye, ends the session ([`AgentOutput::end`]) and
//!   lets background webhooks finish.
//! - [`Hearing`]: the caller's speech heard (Silero VAD, a batch or streaming STT: [`Recognizer`]): with
//!   [`AgentSettings::with_hearing`], microphone audio given to [`VoiceAgent::hear`] becomes
//!   speaking events, barge-in and user turns.
//! - [`Conductor`]: the conversation's policy ([`PlainAgent`], or a [`flow`] of steps).
//! - [`AgentOutput`]: where a call's [`AgentEvent`]s go (hark-server implements it over its
//!   session queue and turns each event into RTVI messages; [`ChannelOutput`] for tests);
//!   [`OutputSpeech`] is the call's [`hark_tools::Speech`] over it.
//! - [`ui`]: the `ask_screen` tool (a `respond` job to the UI worker); the `screen` tool is
//!   hark-ui's.
//! - [`mod@agent_file`]: agent files (TOML).
//!
//! # Example
//!
//! A turn with a tool call against the scripted provider:
//!
//! ```
//! use std::sync::Arc;
//! use hark_agent::{AgentEvent, AgentSettings, ChannelOutput, VoiceAgent};
//! use hark_llm::OpenAiCompatible;
//! use hark_llm::testing::{ScriptedServer, Turn};
//! use hark_tools::{CallInfo, CallState, ToolRegistry, current_datetime_tool};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let llm = ScriptedServer::start(vec![
//!     Turn::stream()
//!         .text("Let me look.")
//!         .tool_call_start(0, "call_1", "current_datetime")
//!         .tool_call_args(0, "{}")
//!         .finish("tool_calls")
//!         .done(),
//!     Turn::text_reply(&["It is late. ", "Time to rest."]),
//! ])
//! .await?;
//! let provider = Arc::new(OpenAiCompatible::new(llm.base_url(), None));
//! let tools = Arc::new(ToolRegistry::new(vec![current_datetime_tool("Europe/Madrid")?])?);
//! let settings = AgentSettings::new(provider, "gpt-4.1-mini", "You tell the time.", tools);
//! let (output, mut to_client) = ChannelOutput::new();
//! let state = CallState::new(CallInfo::default(), "en-US", Some("Europe/Madrid"));
//! let agent = VoiceAgent::new(settings, state, Arc::new(output))?;
//!
//! agent.user_turn("What time is it?").await;
//! agent.idle().await;
//!
//! let mut said = Vec::new();
//! while let Ok(event) = to_client.try_recv() {
//!     if let AgentEvent::Spoken { text, .. } = event {
//!         said.push(text);
//!     }
//! }
//! assert_eq!(said, ["Let me look.", "It is late.", "Time to rest."]);
//! // user, the reply with its call, the call's result, the answer.
//! assert_eq!(agent.history().len(), 4);
//! assert!(hark_agent::check_tool_results(&agent.history()).is_ok());
//! # Ok(()) }
//! ```

// --- agent files (owner: agent-file work) ---
pub mod agent_file;

// --- flows (owner: flows work) ---
pub mod flow;

// --- turn loop (owner: turn-loop work) ---
pub mod agent;
pub mod conductor;
pub mod event;
pub mod hearing;
pub mod history;
pub mod messages;
pub mod output;
pub mod playout;
pub mod speech;
mod turn;
pub mod ui;

pub use agent::{
    AbandonedWork, AgentSettings, BACKGROUND_ABANDONED, BackgroundDrain, DEFAULT_DRAIN_LIMIT,
    DEFAULT_MAX_TOOL_ROUNDS, ShutdownDrain, VoiceAgent,
};
pub use conductor::{Conductor, PlainAgent, PolicyContext, ToolCallPlan, UserTurn};
pub use event::AgentEvent;
pub use hearing::{Hearing, NotListening, Recognizer};
pub use history::{HistoryProblem, check_tool_results};
pub use output::{AgentOutput, ChannelOutput, OutputClosed};
pub use playout::{Speaker, Unheard};
pub use speech::{OutputSpeech, SentenceSplitter};
pub use ui::{ASK_SCREEN_TOOL, ask_screen_tool};
