//! Every text of hark-classify that a model or a caller reads, as functions with named inputs:
//! the questions a UI worker asks (the local classifier recognises them by these words), the
//! LLM classifier's prompt, and every classifier error. Tests at the bottom pin them.

/// The choice question `which_element` asks (pipecat 1.14's words, exact).
pub fn find_instructions() -> &'static str {
    "the element on screen the user is referring to"
}

/// One option of `which_element`'s choice question: `role "name"` (as pipecat 1.14).
pub fn element_option(role: &str, name: &str) -> String {
    format!("{role} \"{name}\"")
}

/// The yes/no question `select_elements` asks of one element:
/// `{criteria}: does {role} "{name}" match?` (pipecat 1.14's words, exact).
pub fn select_element_question(criteria: &str, role: &str, name: &str) -> String {
    format!("{criteria}: does {role} \"{name}\" match?")
}

/// `should_respond`'s default criteria (pipecat 1.14's words, exact).
pub fn should_respond_criteria() -> &'static str {
    "the assistant should say something about what the user just did"
}

/// What "yes" means in `should_respond`'s question (pipecat 1.14's words, exact).
pub fn should_respond_yes() -> &'static str {
    "the event changes what the user is doing or asks for the assistant's attention"
}

/// What "no" means in `should_respond`'s question (pipecat 1.14's words, exact).
pub fn should_respond_no() -> &'static str {
    "a routine click, scroll, hover or edit that needs no comment"
}

/// A screen question asked of a worker that has no classifier.
pub fn no_classifier() -> &'static str {
    "this UI worker has no classifier, so it cannot answer questions about the screen: give it \
     one with UiWorker::with_classifier (an LlmClassifier over any OpenAI-compatible endpoint, \
     or the local classifier)."
}

/// The LLM classifier's system prompt (Hark's own words for pipecat `LLMClassifier`'s prompt,
/// pipecat 1.14): ONE JSON object keyed by question name. With `answer_word`, yes/no answers
/// also carry `"answer": "yes"|"no"`, whose token log-probabilities give P(yes).
pub fn llm_classifier_system(instructions: Option<&str>, answer_word: bool) -> String {
    let yes_no = if answer_word {
        "{\"answer\": \"yes\" or \"no\", \"probability\": p}, with p the probability that the \
         answer is yes"
    } else {
        "{\"probability\": p}, with p the probability that the answer is yes"
    };
    let mut text = format!(
        "You answer questions about a state. Reply with ONE JSON object and nothing else: no \
         prose, no code fence. It has one key per question, spelled exactly as the question's \
         name, and each value is:\n\
         - for a yes_no question: {yes_no};\n\
         - for a choice question: {{\"choice\": the option you choose, written exactly as \
         given, \"probabilities\": {{option: p, ...}} with every option}};\n\
         - for a score question: {{\"probabilities\": {{\"0\": p, \"1\": p, ...}}}} with one \
         probability per level, level 0 the lowest.\n\
         Every probability is a number from 0 to 1; give honest probabilities, not only 0 and 1."
    );
    if let Some(extra) = instructions.filter(|s| !s.trim().is_empty()) {
        text.push_str("\n\n");
        text.push_str(extra);
    }
    text
}

/// The LLM classifier's user message: the state, then the questions, both as JSON text.
pub fn llm_classifier_request(state: &str, questions: &str) -> String {
    format!("State:\n{state}\n\nQuestions:\n{questions}")
}

/// The LLM classifier's request failed (HTTP error, connection, unreadable stream).
pub fn classifier_request_failed(detail: &str) -> String {
    format!("the LLM classifier's request failed: {detail}")
}

/// The LLM classifier had no answer within its time limit.
pub fn classifier_timed_out(seconds: f64) -> String {
    format!(
        "the LLM classifier had no answer within {seconds} s: the model is slow or unreachable; \
         raise the timeout with LlmClassifier::with_timeout or use a faster model."
    )
}

/// The LLM classifier's reply holds no JSON object.
pub fn classifier_no_json(excerpt: &str) -> String {
    format!("the LLM classifier's reply holds no JSON object: \"{excerpt}\"")
}

/// The LLM classifier's reply has no answer for a question.
pub fn classifier_missing_answer(name: &str) -> String {
    format!("the LLM classifier's reply has no answer for the question \"{name}\".")
}

/// The LLM classifier's answer for a question is not of the shape asked for.
pub fn classifier_bad_answer(name: &str, expected: &str) -> String {
    format!("the LLM classifier's answer for \"{name}\" is not {expected}.")
}

/// The LLM classifier chose something that is not one of the options (as pipecat: an
/// error, never a guess).
pub fn classifier_choice_not_an_option(name: &str, choice: &str) -> String {
    format!(
        "the LLM classifier chose \"{choice}\" for \"{name}\", which is not one of the options."
    )
}

/// A question that cannot be asked: no options, fewer than two levels, a repeated name.
pub fn classifier_bad_question(name: &str, problem: &str) -> String {
    format!("the question \"{name}\" cannot be asked: {problem}")
}

/// A classifier answered a question with an answer of another kind.
pub fn classifier_wrong_kind(name: &str, expected: &str) -> String {
    format!("the classifier answered \"{name}\" with something other than a {expected} answer.")
}

/// How the local classifier's texts name a fallback classifier unless told otherwise
/// ([`crate::LocalClassifier::with_fallback_hint`]): the Rust UI worker's way to add one.
pub const FALLBACK_HINT: &str = "UiWorker::with_fallback_classifier";

/// The local classifier cannot read a yes/no question (or select criteria): says what it does
/// answer and where the question should go instead (the UI worker's fallback classifier).
pub fn local_cannot_read(name: &str, question: &str) -> String {
    local_cannot_read_with(name, question, FALLBACK_HINT)
}

/// [`local_cannot_read`] naming `fallback` as the way to add a fallback classifier.
pub fn local_cannot_read_with(name: &str, question: &str, fallback: &str) -> String {
    format!(
        "the local classifier cannot read the question \"{name}\" (\"{question}\"): it answers \
         which element a description means; whether anything is checked, selected, disabled, \
         empty or expanded; whether something is on screen or shows a value; per-element \
         matches; and whether a UI event needs a reply. Give the worker an LLM classifier as \
         fallback ({fallback}) for other questions."
    )
}

/// The local classifier was asked a score question.
pub fn local_no_score(name: &str) -> String {
    local_no_score_with(name, FALLBACK_HINT)
}

/// [`local_no_score`] naming `fallback` as the way to add a fallback classifier.
pub fn local_no_score_with(name: &str, fallback: &str) -> String {
    format!(
        "the local classifier does not answer score questions (\"{name}\"): ask an LLM \
         classifier ({fallback})."
    )
}

/// A choice question with no description to match.
pub fn local_no_description(name: &str) -> String {
    format!(
        "the choice question \"{name}\" has no description to match: put it in the state's \
         \"utterance\" or in the question's instructions as text."
    )
}

/// A choice question without options.
pub fn local_no_options(name: &str) -> String {
    format!("the choice question \"{name}\" has no options to choose from.")
}

/// A choice question with more options than the local classifier takes.
pub fn local_too_many_options(name: &str, count: usize, max: usize) -> String {
    format!(
        "the choice question \"{name}\" has {count} options; the local classifier takes at \
         most {max}: narrow the options first."
    )
}

/// [`local_too_many_options`] for a caller that cannot narrow the options itself (a worker
/// that offers every named element on screen): names `fallback`, the way to have a fallback
/// classifier answer such questions.
pub fn local_too_many_options_with(name: &str, count: usize, max: usize, fallback: &str) -> String {
    format!(
        "the choice question \"{name}\" has {count} options; the local classifier takes at \
         most {max}: narrow the options first, or give it a fallback classifier for such \
         questions ({fallback})."
    )
}
