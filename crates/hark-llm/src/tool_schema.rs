//! The one place a tool's parameters get the dialect of the provider they are sent to:
//! every provider's request body calls [`parameters_for`] on every tool, so no caller (an
//! agent's tools, a UI worker's `reply` tool, flow tools, built-ins) can send a schema the
//! provider refuses.
//!
//! A schema that already keeps the provider's rules (`hark_schema::provider_rule_breaks`) goes
//! as it is; any other is brought into the dialect with `hark_schema::for_dialect` (type lists
//! become `nullable: true` for Gemini `parameters`, strict objects are closed, …). A schema no
//! dialect can express is left out of that request with one `warn!` naming the tool and the
//! rules it breaks (never argument values), and the other tools are still sent:
//! one bad tool never breaks the others. If the model calls the left-out tool anyway, the
//! caller's unknown-tool path answers it. No close schema is sent in its place: Gemini
//! `parameters` have no "any type" for an array's `items` and no open object, so a stand-in
//! would tell the model something the tool does not take.

use hark_schema::Dialect;
use serde_json::Value;

use crate::error::{LlmError, ProviderLabel};
use crate::messages;
use hark_schema::ToolDefinition;

/// `tool.parameters` as `dialect` takes it, or `None` (logged once with `warn!`) when the
/// dialect cannot express them: the caller leaves that tool out of the request.
pub(crate) fn parameters_for(
    tool: &ToolDefinition,
    dialect: Dialect,
    provider: &ProviderLabel,
) -> Option<Value> {
    match hark_schema::conform(&tool.parameters, dialect) {
        Ok(parameters) => Some(parameters),
        Err(errors) => {
            tracing::warn!(
                provider = %provider,
                tool = %tool.name,
                "{}",
                messages::tool_left_out(&tool.name, dialect.name(), &errors.to_string())
            );
            None
        }
    }
}

/// A strict response format's `schema` as OpenAI strict mode takes it (structured outputs).
///
/// # Errors
/// [`LlmError::InvalidRequest`] naming the format and every keyword strict mode cannot express.
pub(crate) fn response_schema_for(
    name: &str,
    schema: &Value,
    provider: &ProviderLabel,
) -> Result<Value, LlmError> {
    let dialect = Dialect::OpenAiStrict;
    hark_schema::conform(schema, dialect).map_err(|errors| LlmError::InvalidRequest {
        provider: provider.clone(),
        detail: messages::response_schema_refused(name, dialect.name(), &errors.to_string()),
    })
}
