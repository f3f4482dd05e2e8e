//! Every text the turn loop says to the caller, to the client or to the model, in one place.
//!
//! A late result of a tool the caller talked over comes in a later reply (guide:
//! `docs/guide/interruptions.md`).

/// Said to the caller when the model request of a turn failed (the detail goes to the client
/// as an RTVI `error`, [`model_failed`]).
pub fn model_failed_line() -> String {
    "Sorry, I could not answer that just now. Please say it again.".to_string()
}

/// [`model_failed_line`] in the call's `language` (one language per call):
/// Spanish, French and German have their own words (the languages of the local yes/no judge),
/// others hear the English line. Chosen like every line ([`hark_tools::language::for_language`]).
pub fn model_failed_line_in(language: &str) -> String {
    in_language(
        language,
        model_failed_line(),
        &[
            (
                "es",
                "Perdone, no he podido responder a eso ahora. ¿Puede repetirlo?",
            ),
            (
                "fr",
                "Désolé, je n'ai pas pu répondre pour l'instant. Pouvez-vous répéter ?",
            ),
            (
                "de",
                "Entschuldigung, darauf konnte ich gerade nicht antworten. Bitte sagen Sie es noch einmal.",
            ),
        ],
    )
}

/// For the client (an RTVI `error`) when a line's speech could not be made: `detail` is the
/// TTS error, which names the provider. The line's text was still sent.
pub fn tts_failed(detail: &str) -> String {
    format!(
        "The bot's voice failed for a line: {detail} Its text was sent without audio; check the \
         agent file's [tts] table and that its provider is reachable."
    )
}

/// Said to the caller, once per turn, when the model request is being sent again (the provider
/// sent nothing in time, refused for now with 429/5xx, or its stream broke before anything was
/// said), so the caller does not sit in silence.
pub fn hold_line() -> String {
    "One moment.".to_string()
}

/// [`hold_line`] in the call's `language`, like [`model_failed_line_in`].
pub fn hold_line_in(language: &str) -> String {
    in_language(
        language,
        hold_line(),
        &[
            ("es", "Un momento."),
            ("fr", "Un instant."),
            ("de", "Einen Moment."),
        ],
    )
}

/// The line of `variants` for `language`, else `default`.
fn in_language(language: &str, default: String, variants: &[(&str, &str)]) -> String {
    let variants: Vec<(String, Vec<String>)> = variants
        .iter()
        .map(|(tag, line)| (tag.to_string(), vec![line.to_string()]))
        .collect();
    let default = [default];
    hark_tools::language::for_language(language, &default, &variants)[0].clone()
}

/// The RTVI `error` text (not fatal) when a model request failed: `detail` is the provider
/// error as a client may read it (`LlmError::for_client`: the provider's kind and the status,
/// no endpoint and no text the provider sent; the server's log has those).
pub fn model_failed(detail: &str) -> String {
    format!("The model request failed: {detail}")
}

/// The note added to the last request of a turn whose model kept calling tools: after
/// `rounds` rounds of tool calls the model must answer in words (the request also sets
/// `tool_choice: none`).
pub fn tool_rounds_exhausted(rounds: usize) -> String {
    format!(
        "You have called tools {rounds} times in this turn, the most allowed. Do not call \
         tools now: tell the caller in one or two sentences what you found or did, and what \
         is still open."
    )
}

/// What the caller hears when the model still calls a tool in the request after the round
/// limit (which offers no tool) and says nothing: those calls do not run, and the caller is
/// never left in silence.
pub fn tool_rounds_exhausted_line() -> String {
    "Sorry, I could not finish that just now. Could you tell me again, maybe one step at a time?"
        .to_owned()
}

/// The history note that carries the late result of a `continue` tool, once (hark-tools'
/// wording, "A tool the caller talks over", point 3).
pub fn late_result(tool: &str, result: &str) -> String {
    hark_tools::messages::late_result(tool, result)
}

/// The result the model reads for the `ask_screen` tool when the UI worker answered nothing.
pub fn screen_answer_empty() -> String {
    "The screen assistant acted and has nothing to add.".to_string()
}

/// The `ask_screen` tool's description, as the voice LLM reads it.
pub fn ask_screen_description() -> String {
    "Ask the screen assistant, who sees the page the caller sees, to answer a question about \
     it or to act on it: fill a form with values the caller gave, point at something, read \
     what is shown. When its answer comes back already spoken, do not repeat it."
        .to_string()
}

/// The `ask_screen` tool's `query` description.
pub fn ask_screen_query() -> String {
    "What the caller wants, in their words, with every value they gave.".to_string()
}

/// `{"error"}` of `ask_screen` when the worker did not answer in time.
pub fn ask_screen_timeout(worker: &str, timeout: std::time::Duration) -> String {
    format!(
        "The screen assistant {worker} did not answer within {} seconds. Tell the caller you \
         could not do it on the page, and offer to try again.",
        timeout.as_secs()
    )
}

/// `{"error"}` of `ask_screen` when the worker's job failed without an error text.
pub fn ask_screen_failed(worker: &str) -> String {
    format!(
        "The screen assistant {worker} could not do it. Tell the caller, and offer to try again."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_results_use_the_tool_layer_wording() {
        assert_eq!(
            late_result("create_booking", r#"{"id":7}"#),
            r#"create_booking finished: {"id":7}"#
        );
        assert!(tool_rounds_exhausted(8).starts_with("You have called tools 8 times"));
        assert_eq!(hold_line(), "One moment.");
    }
}
