//! `hark check FILE`: builds an agent file as `hark serve` would run it, and prints every problem
//! with its fix. A file that uses the demo ([`crate::demo::named_by`]) is
//! built with the demo shop's host; every other file with an empty host, and the demo's order
//! service is not started.
//!
//! Output (stdout), one line per problem, then a summary:
//!
//! ```text
//! examples/shop.toml:23: warning: [llm] the environment variable OPENAI_API_KEY is not set, …
//! examples/shop.toml: ok, 7 tools, LLM none (OPENAI_API_KEY not set), UI worker on (local classifier), 1 warning
//! ```
//!
//! A file with a `[flow]` also runs the flow's build-time checks (each problem on its line,
//! `[flow] step booking: …` with its fix), and its summary names the flow: `…, UI worker on
//! (local classifier), flow of 2 steps from booking`. A file with `[tts]` or `[stt]` names what
//! the agent speaks and hears with: `…, voice espeak-ng, hearing openai-compatible`, or
//! `hearing none (deepgram not built)` when the table's provider could not be built (its warning
//! above says why).
//!
//! With an error: each problem, then `FILE: 2 errors, 1 warning`, and exit code 1.

use std::path::Path;
use std::process::ExitCode;

use hark_agent::agent_file::{AgentFile, AgentSetup, ClassifierChoice, Host, Problem, messages};

/// The summary of a clean file (after its warnings).
pub fn summary(path: &str, file: &AgentFile, setup: &AgentSetup) -> String {
    let llm = match (&setup.llm, &file.format().llm) {
        (Some(choice), _) => format!("{} {}", choice.provider.label().kind, choice.model),
        (None, Some(section)) => match &section.api_key_env {
            Some(variable) => {
                let name = variable.get_ref();
                match std::env::var_os(name) {
                    Some(value) if value.is_empty() => format!("none ({name} empty)"),
                    _ => format!("none ({name} not set)"),
                }
            }
            None => "none".to_string(),
        },
        (None, None) => "none".to_string(),
    };
    let ui = match (&setup.ui.worker, &setup.ui.classifier) {
        (false, _) => "off".to_string(),
        (true, ClassifierChoice::Local) => "on (local classifier)".to_string(),
        (true, ClassifierChoice::Llm(choice)) => format!("on (LLM classifier {})", choice.model),
    };
    let flow = setup
        .flow
        .as_ref()
        .map(|flow| messages::check_flow(flow.step_names().len(), flow.first_step()));
    messages::check_summary(
        path,
        setup.registry.names().len(),
        &llm,
        &ui,
        flow.as_deref(),
        speech(file, setup).as_deref(),
        setup.warnings.len(),
    )
}

/// What the file's `[tts]` and `[stt]` give the agent (`voice espeak-ng, hearing deepgram`), or
/// `None` for a file with neither: a table whose provider could not be built (its key unset)
/// shows as `none`, as the LLM does.
fn speech(file: &AgentFile, setup: &AgentSetup) -> Option<String> {
    let format = file.format();
    let voice = match (&setup.tts, &format.tts) {
        (Some(choice), _) => Some(choice.kind.name().to_owned()),
        (None, Some(section)) => Some(format!(
            "none ({} not built)",
            section.provider.get_ref().name()
        )),
        (None, None) => None,
    };
    let hearing = match (&setup.stt, &format.stt) {
        (Some(choice), _) => Some(choice.kind.name().to_owned()),
        (None, Some(section)) => Some(format!(
            "none ({} not built)",
            section.provider.get_ref().name()
        )),
        (None, None) => None,
    };
    let parts: Vec<String> = [("voice", voice), ("hearing", hearing)]
        .into_iter()
        .filter_map(|(what, v)| v.map(|v| format!("{what} {v}")))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The last line when the file has errors: `FILE: 2 errors, 1 warning`.
pub fn failure_line(path: &str, problems: &[Problem]) -> String {
    let errors = problems.iter().filter(|p| p.is_error()).count();
    let warnings = problems.len() - errors;
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    if warnings == 0 {
        format!("{path}: {}", plural(errors, "error"))
    } else {
        format!(
            "{path}: {}, {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        )
    }
}

/// Runs `hark check FILE`: prints to stdout and returns the exit code (1 on any error). For a
/// file that uses the demo, starts the demo's order service for the duration, so
/// `${HARK_DEMO_ORDERS_URL}` reads a real address, as under `hark serve --demo`.
pub async fn run(path: &Path) -> ExitCode {
    let shown = path.display().to_string();
    let file = match AgentFile::load(path) {
        Ok(file) => file,
        Err(found) => {
            for problem in &found.problems {
                println!("{}", problem.located(&shown));
            }
            println!("{}", failure_line(&shown, &found.problems));
            return ExitCode::FAILURE;
        }
    };
    let shop = match crate::demo::for_file(&file).await {
        Ok(shop) => shop,
        Err(error) => {
            println!("{shown}: error: the demo's order service cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let empty = Host::new();
    let host = shop.as_ref().map_or(&empty, |shop| &shop.host);
    match file.build(host) {
        Ok(setup) => {
            for warning in &setup.warnings {
                println!("{}", warning.located(&shown));
            }
            println!("{}", summary(&shown, &file, &setup));
            ExitCode::SUCCESS
        }
        Err(found) => {
            for problem in &found.problems {
                println!("{}", problem.located(&shown));
            }
            println!("{}", failure_line(&shown, &found.problems));
            ExitCode::FAILURE
        }
    }
}
