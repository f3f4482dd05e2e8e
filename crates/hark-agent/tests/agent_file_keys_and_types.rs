//! Agent-file edges a tester hit: a key pasted where a variable NAME goes is an error that
//! never shows the key (every `*_env` key), and a value of the wrong type is said with its key,
//! the shape it needs and an example, on its line (not serde's `expected f64`).

use hark_agent::agent_file::{AgentFile, Host};

const PROMPT: &str = "system_prompt = \"You help.\"\n";

#[path = "common/problems.rs"]
mod problems;
use problems::problems;

/// The one parse problem of `text`, as `line N: error: text`.
fn parse_problem(text: &str) -> String {
    let err = text.parse::<AgentFile>().unwrap_err();
    assert_eq!(err.problems.len(), 1, "{err}");
    err.problems[0].to_string()
}

const KEY: &str = "sk-proj-abc123def456ghi789";

#[test]
fn a_key_pasted_as_api_key_env_is_an_error_that_never_shows_it() {
    let text = format!(
        "{PROMPT}[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\napi_key_env = \"{KEY}\"\n"
    );
    let found = problems(&text);
    assert_eq!(
        found,
        [
            "line 5: error: [llm] api_key_env must name an environment variable (like \
          OPENAI_API_KEY), not hold the key: move the key into a variable and name it here."
        ]
    );
    assert!(
        found
            .iter()
            .all(|p| !p.contains(KEY) && !p.contains("abc123"))
    );
    let built = text.parse::<AgentFile>().unwrap().build(&Host::new());
    let Err(err) = built else {
        panic!("an error, not a warning")
    };
    assert!(!err.to_string().contains(KEY));

    // Names that look like names still pass to the unset-variable warning.
    for name in ["HARK_TEST_EDGE_UNSET", "_x1", "a"] {
        let text = format!(
            "{PROMPT}[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\napi_key_env = \"{name}\"\n"
        );
        let found = problems(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("line 5: warning:"), "{found:?}");
    }
    for bad in ["", "1ABC", "MY KEY", "sk-x", "KEY=1", "ÜBER"] {
        let text = format!(
            "{PROMPT}[llm]\nprovider = \"anthropic\"\nmodel = \"m\"\napi_key_env = \"{bad}\"\n"
        );
        let found = problems(&text);
        assert_eq!(
            found,
            [
                "line 5: error: [llm] api_key_env must name an environment variable (like \
              ANTHROPIC_API_KEY), not hold the key: move the key into a variable and name it \
              here."
            ],
            "{bad:?}"
        );
    }
}

#[test]
fn a_key_pasted_as_a_webhook_auth_env_is_an_error_that_never_shows_it() {
    let text = format!(
        "{PROMPT}[[webhook]]\nname = \"notify\"\ndescription = \"Notify.\"\n\
         url = \"https://crm.example.com/hooks\"\nauth = {{ kind = \"bearer\", env = \"{KEY}\" }}\n"
    );
    let found = problems(&text);
    assert_eq!(
        found,
        [
            "line 6: error: webhook notify: auth env must name an environment variable (like \
          CRM_TOKEN), not hold the key: move the key into a variable and name it here."
        ]
    );
    assert!(!found[0].contains(KEY));
}

#[test]
fn a_wrong_type_names_its_key_the_shape_and_an_example() {
    let webhook = "[[webhook]]\nname = \"notify\"\ndescription = \"Notify.\"\n\
                   url = \"https://crm.example.com/hooks\"\n";
    assert_eq!(
        parse_problem(&format!("{PROMPT}{webhook}timeout = \"5s\"\n")),
        "line 6: error: [[webhook]] timeout must be a number of seconds, like timeout = 5 \
         (found string \"5s\")."
    );
    assert_eq!(
        parse_problem(&format!("{PROMPT}{webhook}background = \"yes\"\n")),
        "line 6: error: [[webhook]] background must be true or false, like background = true \
         (found string \"yes\")."
    );
    assert_eq!(
        parse_problem(&format!("{PROMPT}{webhook}announce = \"One moment.\"\n")),
        "line 6: error: [[webhook]] announce must be a list, like announce = [\"a\", \"b\"] \
         (found string \"One moment.\")."
    );
    assert_eq!(
        parse_problem(&format!(
            "{PROMPT}\n[state.mood]\ntype = \"string\"\nvalues = \"inside\"\n"
        )),
        "line 5: error: [state.mood] values must be a list, like values = [\"a\", \"b\"] \
         (found string \"inside\")."
    );
    assert_eq!(
        parse_problem(&format!(
            "{PROMPT}\n[state.mood]\ntype = \"string\"\nvalues = [\"in\", 2]\n"
        )),
        "line 5: error: [state.mood] each item of values must be text in quotes, like \
         values = [\"text\"] (found integer `2`)."
    );
    assert_eq!(
        parse_problem("system_prompt = 5\n"),
        "line 1: error: system_prompt must be text in quotes, like system_prompt = \"text\" \
         (found integer `5`)."
    );
}
