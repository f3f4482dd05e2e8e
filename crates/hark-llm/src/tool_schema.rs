//! The one place a tool's parameters get the dialect of the provider they are sent to
//! (issue 23, item 1): every provider's request body calls [`parameters_for`] on every tool,
//! so no caller (an agent's tools, a UI worker's `reply` tool, flow tools, built-ins) can send
//! a schema the provider refuses.
//!
//! A schema that already keeps the provider's rules (`hark_schema::provider_rule_breaks`) goes
//! as it is; any other is brought into the dialect with `hark_schema::for_dialect` (type lists
//! become `nullable: true` for Gemini `parameters`, strict objects are closed, …). A schema no
//! dialect can express is an [`LlmError::InvalidRequest`] naming the tool.

use hark_schema::Dialect;
use serde_json::Value;

use crate::error::{LlmError, ProviderLabel};
use crate::messages;
use crate::types::ToolDefinition;

/// `tool.parameters` as `dialect` takes it.
///
/// # Errors
/// [`LlmError::InvalidRequest`] naming the tool and every keyword the dialect cannot express.
pub(crate) fn parameters_for(
    tool: &ToolDefinition,
    dialect: Dialect,
    provider: &ProviderLabel,
) -> Result<Value, LlmError> {
    hark_schema::conform(&tool.parameters, dialect).map_err(|errors| LlmError::InvalidRequest {
        provider: provider.clone(),
        detail: messages::tool_schema_refused(&tool.name, dialect.name(), &errors.to_string()),
    })
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
