//! The `[ui]` keys of the UI worker's own LLM: `system_prompt`, its
//! instructions for `respond` jobs (blank refused like the file's own), and `keep_history`
//! (default off: each job starts from a cleared context).

use hark_agent::agent_file::{AgentFile, Host, Problem};

const HEAD: &str = "system_prompt = \"You help.\"\n[llm]\nprovider = \"openai-compatible\"\n\
                    model = \"m\"\nbase_url = \"http://127.0.0.1:9/v1\"\n";

fn parse(text: &str) -> AgentFile {
    text.parse().unwrap_or_else(|e| panic!("parses: {e}"))
}

#[test]
fn the_ui_keys_reach_the_setup() {
    let text = format!(
        "{HEAD}[ui]\nsystem_prompt = \"Answer about the page in one sentence.\"\nkeep_history = true\n"
    );
    let setup = parse(&text).build(&Host::new()).unwrap();
    assert_eq!(
        setup.ui.system_prompt.as_deref(),
        Some("Answer about the page in one sentence.")
    );
    assert!(setup.ui.keep_history);
}

#[test]
fn without_the_keys_the_worker_has_no_prompt_and_clears_its_history() {
    let setup = parse(HEAD).build(&Host::new()).unwrap();
    assert_eq!(setup.ui.system_prompt, None);
    assert!(!setup.ui.keep_history);
}

#[test]
fn a_blank_ui_system_prompt_is_refused_with_its_line() {
    let text = format!("{HEAD}[ui]\nsystem_prompt = \"  \"\n");
    let problems: Vec<String> = parse(&text)
        .check(&Host::new())
        .iter()
        .map(Problem::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "line 7: error: [ui] system_prompt is empty. Write how the UI worker answers questions \
          about the screen, or leave the key out."
        ]
    );
}
