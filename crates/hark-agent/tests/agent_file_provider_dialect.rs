//! `hark check` knows the file's provider: a tool whose input the provider's
//! schema dialect cannot express is an error on the tool's own line saying what to change,
//! and the same input is fine for a provider that takes it.

use hark_agent::agent_file::{AgentFile, Host, Problem};

fn file(provider: &str) -> String {
    format!(
        r#"system_prompt = "You help."

[llm]
provider = "{provider}"
model = "m"
api_key_env = "HARK_TEST_DIALECT_KEY"

[[webhook]]
name = "odd"
description = "Takes odd things."
url = "https://odd.example.com/"

[webhook.input.list]
type = "array"
optional = true

[webhook.input.meta]
type = "object"
optional = true

[[webhook]]
name = "good"
description = "Takes a word."
url = "https://good.example.com/"

[webhook.input.word]
type = "string"
"#
    )
}

fn errors(text: &str) -> Vec<String> {
    let file: AgentFile = text.parse().unwrap();
    file.check(&Host::new().with_value("HARK_TEST_DIALECT_KEY", "k"))
        .iter()
        .filter(|p| p.to_string().contains(": error: "))
        .map(Problem::to_string)
        .collect()
}

#[test]
fn a_tool_gemini_cannot_be_offered_is_an_error_on_its_line() {
    assert_eq!(
        errors(&file("gemini")),
        [
            "line 9: error: tool odd cannot be offered to gemini: its input cannot be written in the \
          Gemini parameters dialect (/properties/list/items: Gemini parameters: an array needs \
          items, one schema.; /properties/meta/properties: Gemini parameters: properties should \
          be non-empty for OBJECT type (a tool without arguments is declared without \
          parameters).). To fix: give list an items type; give meta fields. As it is, hark serve \
          leaves odd out of every request."
        ]
    );
}

#[test]
fn the_same_tools_are_fine_for_a_provider_that_takes_them() {
    assert_eq!(errors(&file("anthropic")), Vec::<String>::new());
    assert_eq!(errors(&file("openai-compatible")), Vec::<String>::new());
}
