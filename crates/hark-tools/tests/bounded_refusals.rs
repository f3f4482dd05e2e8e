//! What the model reads stays small whatever the model sent: a refusal quotes at most 60
//! characters of a value or name then `…`, names at most ten unknown arguments then
//! `and 99,990 more`, and shows at most ten lines of an argument error.

use std::collections::BTreeMap;

use hark_tools::{ToolContext, ToolError, ToolRegistry, tool};
use serde_json::Value;

/// Keep a note.
///
/// # Arguments
/// * `text` - The note.
/// * `extra` - More about it.
/// * `seating` - Where to sit.
#[tool]
async fn note(
    text: String,
    extra: Option<BTreeMap<String, String>>,
    seating: Option<Seating>,
) -> Result<(), ToolError> {
    let _ = (text, extra, seating);
    Ok(())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Seating {
    Window,
    Patio,
}

fn registry() -> ToolRegistry {
    ToolRegistry::new(vec![note_tool().unwrap()]).unwrap()
}

async fn model_text(name: &str, arguments: &str) -> String {
    registry()
        .call(name, arguments, &ToolContext::default())
        .await
        .model_text()
}

#[tokio::test]
async fn a_megabyte_value_is_quoted_as_sixty_characters() {
    let big = "y".repeat(1_000_000);
    let text = model_text("note", &format!(r#"{{"text": "a", "extra": "{big}"}}"#)).await;
    let quoted = format!("\\\"{}…", "y".repeat(59));
    assert!(
        text.contains(&format!("extra: {quoted} is not of type")),
        "{text}"
    );
    assert!(text.len() < 400, "{} chars", text.len());

    let text = model_text("note", &format!(r#"{{"text": "a", "seating": "{big}"}}"#)).await;
    assert!(text.contains(&format!("seating: {quoted}")), "{text}");
    assert!(text.len() < 400, "{} chars", text.len());
}

#[tokio::test]
async fn a_hundred_thousand_unknown_keys_name_ten() {
    let keys: Vec<String> = (0..100_000).map(|i| format!(r#""k{i}":1"#)).collect();
    let arguments = format!(r#"{{{}, "text": "a"}}"#, keys.join(","));
    let registry = registry();
    let outcome = registry
        .call("note", &arguments, &ToolContext::default())
        .await;
    assert_eq!(
        outcome.model_result,
        serde_json::json!({"refused": "k0, k1, k2, k3, k4, k5, k6, k7, k8, k9 and 99,990 more are not \
            arguments of note. Call note again without them."})
    );
}

#[tokio::test]
async fn a_megabyte_tool_name_is_cut() {
    let name = "x".repeat(1_000_000);
    let text = model_text(&name, "{}").await;
    let Value::Object(map) = serde_json::from_str::<Value>(&text).unwrap() else {
        panic!("{text}")
    };
    assert_eq!(
        map["refused"],
        format!(
            "There is no tool named {}…. The tools are: note. Call one of them instead.",
            "x".repeat(60)
        )
    );
}

#[tokio::test]
async fn many_argument_errors_show_ten_lines() {
    let entries: Vec<String> = (0..5_000).map(|i| format!(r#""e{i}": {i}"#)).collect();
    let arguments = format!(r#"{{"text": "a", "extra": {{{}}}}}"#, entries.join(","));
    let text = model_text("note", &arguments).await;
    let refused: Value = serde_json::from_str(&text).unwrap();
    let lines: Vec<&str> = refused.as_str().map_or_else(
        || {
            refused["refused"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .collect()
        },
        |s| s.lines().collect(),
    );
    assert_eq!(lines.len(), 12, "{text}");
    assert_eq!(lines[0], "extra.e0: 0 is not of type \"string\"");
    assert_eq!(lines[10], "… and 4,990 more problems");
}

#[tokio::test]
async fn unreadable_arguments_name_their_fault() {
    let deep = format!(
        r#"{{"text": "a", "extra": {}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    for (arguments, why) in [
        (
            deep.as_str(),
            "are nested too deeply to read (more than 128 levels)",
        ),
        (
            r#"{"text": "a", "n": 1e400}"#,
            "hold a number too large to read, like 1e400",
        ),
        (
            r#"{"text": "a", "n": NaN}"#,
            "hold NaN or Infinity, which is not a JSON number",
        ),
        (
            r#"{"text": "\ud800"}"#,
            "hold an invalid \\u escape, like a lone surrogate \\ud800",
        ),
    ] {
        let outcome = registry()
            .call("note", arguments, &ToolContext::default())
            .await;
        assert_eq!(
            outcome.model_result["refused"],
            format!("The arguments of note {why}. Call note again with valid JSON."),
            "{arguments}"
        );
    }
    let junk = registry()
        .call("note", "not json", &ToolContext::default())
        .await;
    assert_eq!(
        junk.model_result["refused"],
        hark_tools::messages::arguments_not_an_object("note")
    );
}
