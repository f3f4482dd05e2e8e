//! Sinks: who watches tool calls. They get names and timing, never argument values.
//!
//! Guide: `docs/guide/sinks-and-hooks.md`.

use std::fmt;

use serde::Serialize;

/// Where a call came from: the model, or an event (a tool run on an event rather than by the
/// model). Serialises as `"model"` / `"event"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The model called the tool.
    Model,
    /// An event ran the tool.
    Event,
}

/// The stage of a call a [`ToolEvent`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ToolStage {
    /// `tool.started`: the arguments passed their checks and the tool is about to run.
    #[serde(rename = "tool.started")]
    Started,
    /// `tool.succeeded`: the tool returned a result that fits its output.
    #[serde(rename = "tool.succeeded")]
    Succeeded,
    /// `tool.failed`: the tool ran and failed (or was cancelled, or its result did not fit).
    #[serde(rename = "tool.failed")]
    Failed,
    /// `tool.refused`: the tool did not run (unknown tool, bad or missing arguments, a refusal).
    #[serde(rename = "tool.refused")]
    Refused,
    /// `tool.save_refused`: the State refused the values a result saves; none was saved, the
    /// model still reads the result ("Save a result and speak it", point 2). `error` names the
    /// field, never the value.
    #[serde(rename = "tool.save_refused")]
    SaveRefused,
    /// `tool.replied`: code said a reply line, so no model reply is asked ("Save a result and
    /// speak it", point 11). The line itself is not in the event.
    #[serde(rename = "tool.replied")]
    Replied,
}

impl ToolStage {
    /// The stage's name: `tool.started`, `tool.succeeded`, `tool.failed`, `tool.refused`,
    /// `tool.save_refused`, `tool.replied`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Started => "tool.started",
            Self::Succeeded => "tool.succeeded",
            Self::Failed => "tool.failed",
            Self::Refused => "tool.refused",
            Self::SaveRefused => "tool.save_refused",
            Self::Replied => "tool.replied",
        }
    }
}

/// One event a sink gets. It holds no argument value and no result value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolEvent {
    /// Which stage of the call.
    pub stage: ToolStage,
    /// The tool's name (for an unknown tool, the name the model sent).
    pub tool: String,
    /// `model` or `event`.
    pub source: Source,
    /// Milliseconds the tool ran; `None` on `tool.started` and on a refusal before it ran.
    pub ms: Option<u64>,
    /// For a failure or refusal: its event text (field names and keywords for argument
    /// errors, the status for a webhook, `cancelled` for a cancelled call), never a value.
    pub error: Option<String>,
}

/// The error a sink may return; it is logged and never breaks the call.
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// Watches tool calls. Implemented for every `Fn(&ToolEvent) -> Result<(), SinkError>`.
///
/// A sink that returns an error or panics is logged and never breaks the call. The registry
/// holds each sink (compared by `Arc` pointer) once.
pub trait ToolSink: Send + Sync {
    /// Receives one event.
    fn on_event(&self, event: &ToolEvent) -> Result<(), SinkError>;
}

impl<F> ToolSink for F
where
    F: Fn(&ToolEvent) -> Result<(), SinkError> + Send + Sync,
{
    fn on_event(&self, event: &ToolEvent) -> Result<(), SinkError> {
        self(event)
    }
}

impl fmt::Debug for dyn ToolSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolSink")
    }
}
