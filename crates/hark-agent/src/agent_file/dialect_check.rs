//! `hark check` against the file's provider: a tool whose parameters the
//! provider's schema dialect cannot express would be left out of every request, so it is an
//! error on the tool's own line, saying what to change. The rules are the ones every request
//! passes (`hark_schema::for_dialect`, then `hark_schema::provider_rule_breaks`).

use hark_schema::{Dialect, SchemaError};
use hark_tools::ToolRegistry;

use super::build::Found;
use super::messages;
use super::registry_lines::Source;
use super::toml_shape::ProviderKind;

/// The dialect `hark serve` sends the provider's tools in (as `hark_agent`'s default).
fn dialect_of(provider: ProviderKind) -> (Dialect, &'static str) {
    match provider {
        ProviderKind::Anthropic => (Dialect::Anthropic, "anthropic"),
        ProviderKind::Gemini => (Dialect::GeminiParameters, "gemini"),
        ProviderKind::OpenaiCompatible => (Dialect::OpenAi, "openai-compatible"),
    }
}

/// The problems `dialect` finds in a tool's model schema; empty when it can be sent.
pub(super) fn breaks(parameters: &serde_json::Value, dialect: Dialect) -> Vec<SchemaError> {
    let converted = match hark_schema::for_dialect(parameters, dialect) {
        Ok(converted) => converted,
        Err(errors) => return errors.0,
    };
    if hark_schema::takes_no_arguments(&converted) {
        return Vec::new();
    }
    hark_schema::provider_rule_breaks(&converted, dialect)
}

/// The input field a JSON pointer is inside (`/properties/a/properties/b/items` → `a.b`), or
/// `None` at the root.
fn field_of(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let mut names = Vec::new();
    let mut i = 0;
    while i + 1 < segments.len() {
        if segments[i] == "properties" {
            names.push(segments[i + 1].replace("~1", "/").replace("~0", "~"));
            i += 2;
        } else {
            i += 1;
        }
    }
    // A pointer ending in `properties` names the object it belongs to, already counted.
    (!names.is_empty()).then(|| names.join("."))
}

/// What to change for one break, in the file's words.
fn fix_for(error: &SchemaError) -> String {
    let field = field_of(&error.path);
    match (error.keyword.as_str(), field) {
        ("items", Some(field)) => messages::give_items(&field),
        ("properties", Some(field)) => messages::give_fields(&field),
        (_, Some(field)) => messages::change_field(&field),
        (_, None) => messages::change_input(),
    }
}

/// An error on each tool of `registry` the file's provider cannot be offered.
pub(super) fn check(
    found: &mut Found<'_>,
    registry: &ToolRegistry,
    sources: &[Source],
    provider: ProviderKind,
    flow_line: Option<usize>,
) {
    let (dialect, label) = dialect_of(provider);
    for tool in registry.tools() {
        let errors = breaks(tool.model_parameters(), dialect);
        if errors.is_empty() {
            continue;
        }
        let problems = hark_schema::SchemaErrors(errors);
        let mut fixes: Vec<String> = problems.0.iter().map(fix_for).collect();
        fixes.dedup();
        let line = sources
            .iter()
            .find(|s| s.name == tool.name())
            .map_or(flow_line, |s| s.line);
        found.error(
            line,
            messages::tool_not_offered(
                tool.name(),
                label,
                dialect.name(),
                &problems.to_string(),
                &fixes.join("; "),
            ),
        );
    }
}
