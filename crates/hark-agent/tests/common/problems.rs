//! What `check` says of an agent file's text, for the agent-file tests (included with
//! `#[path = "common/problems.rs"] mod problems;`: these tests need none of `common/mod.rs`).

use hark_agent::agent_file::{AgentFile, Host, Problem};

/// Every problem `check` finds in `text`, as `line N: kind: text`; panics when `text` does not
/// parse.
pub fn problems(text: &str) -> Vec<String> {
    let file: AgentFile = text.parse().unwrap_or_else(|e| panic!("parses: {e}"));
    file.check(&Host::new())
        .iter()
        .map(Problem::to_string)
        .collect()
}
