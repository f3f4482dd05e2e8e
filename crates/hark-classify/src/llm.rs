//! [`LlmClassifier`]: answers classifier questions with one LLM request per [`Classifier::ask`].
//!
//! As pipecat's `LLMClassifier`: one request per `ask`, a system prompt
//! ([`messages::llm_classifier_system`]) asking for ONE JSON object keyed by question name, and
//! a user message holding the state ([`ClassifyState::to_value`], the screen as `<ui_state>`
//! text) and the questions as JSON. Answer shapes: yes/no `{"probability": p}`; choice `{"choice": …, "probabilities":
//! {option: p, …}}`; score `{"probabilities": {"0": p, …}}`. Unless turned off with
//! [`LlmClassifier::with_json_schema`], the request carries a strict JSON schema of exactly that
//! object (`response_format` `json_schema`: every property required, `additionalProperties:
//! false`, a choice's `enum` of options); providers that cannot take it (Anthropic, Gemini)
//! ignore it and the prompt alone asks for the shape.
//!
//! Reading the reply is tolerant: JSON inside a code fence or prose is found; a lone answer
//! that is not keyed by name is accepted when one question was asked; probabilities out of
//! `[0, 1]` are clamped. A choice outside the options is a [`ClassifierError`], as is a missing
//! answer. A choice's confidence is its probability. These probabilities are the model's own
//! words, not calibrated.
//!
//! ## Beyond pipecat: yes/no from token log-probabilities
//!
//! With [`LlmClassifier::with_logprobs`] the request asks for token log-probabilities
//! (`logprobs`, `top_logprobs`) and each yes/no answer as `{"answer": "yes"|"no",
//! "probability": p}`. P(yes) is then read at the token where the answer word starts: the
//! probability mass of the alternatives there whose text continues with `y`/`Y`, over the mass
//! of those continuing with `y`/`Y` or `n`/`N`. When only one side is among the listed
//! alternatives, the other side's mass is taken as the smaller of the least likely listed
//! alternative and the mass left unlisted (an upper bound, so the result is never a hard 0 or
//! 1 it did not see). When the provider sends no log-probabilities, the tokens do not spell the
//! reply, or the answer's token cannot be found, the stated `probability` is used.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use hark_llm::{ChatRequest, Message, Provider, ResponseFormat, TokenLogprob};
use serde_json::{Map, Value, json};

use crate::messages;
use crate::{
    Answer, ChoiceResult, Classifier, ClassifierError, ClassifyState, ErrorKind, Question,
    ScoreResult, YesNoResult,
};

/// Default time limit of one classifier request (pipecat `LLMClassifier(timeout=10.0)`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Characters of a bad reply quoted in an error.
const EXCERPT_CHARS: usize = 160;

/// A [`Classifier`] over any [`Provider`] (OpenAI-compatible, Anthropic, Gemini): one request
/// per [`Classifier::ask`], temperature 0.
///
/// Build with [`LlmClassifier::new`] and the `with_*` methods. Errors ([`ClassifierError`]):
/// the provider's error, the time limit (default [`DEFAULT_TIMEOUT`], 10 s), a reply without a
/// JSON object, a missing answer, an answer of the wrong shape, a choice outside the options.
#[derive(Debug, Clone)]
pub struct LlmClassifier {
    provider: Arc<dyn Provider>,
    model: String,
    instructions: Option<String>,
    max_tokens: Option<u32>,
    timeout: Duration,
    json_schema: bool,
    top_logprobs: Option<u8>,
}

impl LlmClassifier {
    /// A classifier asking `model` through `provider`, with the JSON schema on, no extra
    /// instructions, the provider's default token limit and a 10 s timeout.
    pub fn new(provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        Self {
            provider,
            model: model.into(),
            instructions: None,
            max_tokens: None,
            timeout: DEFAULT_TIMEOUT,
            json_schema: true,
            top_logprobs: None,
        }
    }

    /// Text appended to the system prompt (e.g. what the app is about).
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The reply's token limit (`max_tokens`).
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The time limit of one request, whole reply included (default 10 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether to send the strict JSON schema as `response_format` (default `true`). Turn it off
    /// for an OpenAI-compatible server that refuses `json_schema`.
    pub fn with_json_schema(mut self, yes: bool) -> Self {
        self.json_schema = yes;
        self
    }

    /// Asks for token log-probabilities with the `top` most likely alternatives per token
    /// (1–20; OpenAI's limit) and reads yes/no probabilities from them (see the module docs).
    /// Off by default: some servers (Groq, OpenAI's reasoning models) refuse the field.
    pub fn with_logprobs(mut self, top: u8) -> Self {
        self.top_logprobs = Some(top.clamp(1, 20));
        self
    }

    /// The request one `ask` sends: system prompt, user message with the state and the
    /// questions, temperature 0, and the JSON schema and log-probability fields as configured.
    ///
    /// # Errors
    /// [`ClassifierError`] for a question that cannot be asked (a choice without options, a
    /// score with fewer than two levels, a repeated name).
    pub fn request(
        &self,
        state: &ClassifyState,
        questions: &[(String, Question)],
    ) -> Result<ChatRequest, ClassifierError> {
        check_questions(questions)?;
        let answer_word = self.top_logprobs.is_some();
        let state_text = match state.to_value() {
            Value::String(s) => s,
            other => pretty(&other),
        };
        let asked: Map<String, Value> = questions
            .iter()
            .map(|(name, q)| (name.clone(), describe(q)))
            .collect();
        let mut request = ChatRequest::new(
            self.model.clone(),
            vec![
                Message::System(messages::llm_classifier_system(
                    self.instructions.as_deref(),
                    answer_word,
                )),
                Message::User(messages::llm_classifier_request(
                    &state_text,
                    &pretty(&Value::Object(asked)),
                )),
            ],
        );
        request.temperature = Some(0.0);
        request.max_tokens = self.max_tokens;
        request.top_logprobs = self.top_logprobs;
        if self.json_schema {
            request.response_format = Some(ResponseFormat::JsonSchema {
                name: "answers".into(),
                schema: answers_schema(questions, answer_word),
                strict: true,
            });
        }
        Ok(request)
    }

    async fn ask_once(
        &self,
        state: &ClassifyState,
        questions: &[(String, Question)],
    ) -> Result<Vec<(String, Answer)>, ClassifierError> {
        if questions.is_empty() {
            return Ok(Vec::new());
        }
        let request = self.request(state, questions)?;
        let completion =
            match tokio::time::timeout(self.timeout, self.provider.complete(&request)).await {
                Err(_) => {
                    return Err(ClassifierError::of_kind(
                        ErrorKind::Timeout,
                        messages::classifier_timed_out(self.timeout.as_secs_f64()),
                    ));
                }
                Ok(Err(e)) => {
                    return Err(ClassifierError::of_kind(
                        ErrorKind::Unreachable,
                        messages::classifier_request_failed(&e.to_string()),
                    ));
                }
                Ok(Ok(c)) => c,
            };
        parse_reply(&completion.text, &completion.logprobs, questions)
    }
}

impl Classifier for LlmClassifier {
    fn ask<'a>(
        &'a self,
        state: &'a ClassifyState,
        questions: &'a [(String, Question)],
    ) -> BoxFuture<'a, Result<Vec<(String, Answer)>, ClassifierError>> {
        Box::pin(self.ask_once(state, questions))
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn check_questions(questions: &[(String, Question)]) -> Result<(), ClassifierError> {
    let mut seen = std::collections::HashSet::new();
    for (name, q) in questions {
        if !seen.insert(name.as_str()) {
            return Err(ClassifierError::of_kind(
                ErrorKind::NotUnderstood,
                messages::classifier_bad_question(name, "another question has the same name"),
            ));
        }
        match q {
            Question::Choice(c) if c.options.is_empty() => {
                return Err(ClassifierError::of_kind(
                    ErrorKind::NotUnderstood,
                    messages::classifier_bad_question(name, "a choice needs at least one option"),
                ));
            }
            Question::Score(s) if s.levels.len() < 2 => {
                return Err(ClassifierError::of_kind(
                    ErrorKind::NotUnderstood,
                    messages::classifier_bad_question(name, "a score needs at least two levels"),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// How one question reads in the user message.
fn describe(q: &Question) -> Value {
    match q {
        Question::YesNo(y) => {
            let mut m = Map::new();
            m.insert("type".into(), json!("yes_no"));
            m.insert("question".into(), y.instructions.clone());
            if let Some(yes) = &y.yes {
                m.insert("yes".into(), json!(yes));
            }
            if let Some(no) = &y.no {
                m.insert("no".into(), json!(no));
            }
            Value::Object(m)
        }
        Question::Choice(c) => {
            let options: Map<String, Value> = c
                .options
                .iter()
                .map(|(o, d)| (o.clone(), d.as_ref().map_or(Value::Null, |d| json!(d))))
                .collect();
            json!({"type": "choice", "question": c.instructions, "options": options})
        }
        Question::Score(s) => {
            let levels: Map<String, Value> = s
                .levels
                .iter()
                .enumerate()
                .map(|(i, l)| (i.to_string(), json!(l)))
                .collect();
            json!({"type": "score", "question": s.instructions, "levels": levels})
        }
    }
}

fn strict_object(properties: Map<String, Value>) -> Value {
    let required: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
    json!({"type": "object", "properties": properties, "required": required,
           "additionalProperties": false})
}

/// The strict JSON schema of the whole answer object.
pub(crate) fn answers_schema(questions: &[(String, Question)], answer_word: bool) -> Value {
    let number = || json!({"type": "number"});
    let props: Map<String, Value> = questions
        .iter()
        .map(|(name, q)| {
            let schema = match q {
                Question::YesNo(_) => {
                    let mut p = Map::new();
                    if answer_word {
                        p.insert(
                            "answer".into(),
                            json!({"type": "string", "enum": ["yes", "no"]}),
                        );
                    }
                    p.insert("probability".into(), number());
                    strict_object(p)
                }
                Question::Choice(c) => {
                    let options: Vec<Value> = c.options.iter().map(|(o, _)| json!(o)).collect();
                    let probs = c
                        .options
                        .iter()
                        .map(|(o, _)| (o.clone(), number()))
                        .collect();
                    let mut p = Map::new();
                    p.insert("choice".into(), json!({"type": "string", "enum": options}));
                    p.insert("probabilities".into(), strict_object(probs));
                    strict_object(p)
                }
                Question::Score(s) => {
                    let probs = (0..s.levels.len())
                        .map(|i| (i.to_string(), number()))
                        .collect();
                    let mut p = Map::new();
                    p.insert("probabilities".into(), strict_object(probs));
                    strict_object(p)
                }
            };
            (name.clone(), schema)
        })
        .collect();
    strict_object(props)
}

fn excerpt(text: &str) -> String {
    let t = text.trim();
    let mut out: String = t.chars().take(EXCERPT_CHARS).collect();
    if t.chars().count() > EXCERPT_CHARS {
        out.push('…');
    }
    out
}

/// The first JSON object in `text` (inside a fence or prose), with its byte offset.
fn find_object(text: &str) -> Option<(usize, Map<String, Value>)> {
    text.char_indices()
        .filter(|(_, c)| *c == '{')
        .find_map(|(i, _)| {
            let mut it = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
            match it.next() {
                Some(Ok(Value::Object(m))) => Some((i, m)),
                _ => None,
            }
        })
}

/// Whether an object looks like one answer rather than a map of answers.
fn looks_like_answer(m: &Map<String, Value>) -> bool {
    ["probability", "choice", "probabilities", "answer", "score"]
        .iter()
        .any(|k| m.contains_key(*k))
}

fn clamp(p: f64) -> f64 {
    if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) }
}

/// A probability written as a number or a numeric string.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Reads the reply into one answer per question, in question order.
pub(crate) fn parse_reply(
    text: &str,
    logprobs: &[TokenLogprob],
    questions: &[(String, Question)],
) -> Result<Vec<(String, Answer)>, ClassifierError> {
    let Some((start, object)) = find_object(text) else {
        return Err(ClassifierError::of_kind(
            ErrorKind::BadAnswer,
            messages::classifier_no_json(&excerpt(text)),
        ));
    };
    let lone =
        questions.len() == 1 && !object.contains_key(&questions[0].0) && looks_like_answer(&object);
    let lone_value = Value::Object(object.clone());
    let offsets = answer_offsets(text, start);
    let mut out = Vec::with_capacity(questions.len());
    for (name, q) in questions {
        let value = if lone {
            &lone_value
        } else {
            object.get(name).ok_or_else(|| {
                ClassifierError::of_kind(
                    ErrorKind::BadAnswer,
                    messages::classifier_missing_answer(name),
                )
            })?
        };
        let answer = match q {
            Question::YesNo(_) => {
                let key = if lone { "" } else { name.as_str() };
                let from_tokens = offsets
                    .get(key)
                    .and_then(|off| yes_probability(text, logprobs, *off));
                Answer::YesNo(YesNoResult {
                    probability: match from_tokens {
                        Some(p) => clamp(p),
                        None => clamp(stated_yes(name, value)?),
                    },
                })
            }
            Question::Choice(c) => Answer::Choice(read_choice(name, value, &c.options)?),
            Question::Score(s) => Answer::Score(read_score(name, value, s.levels.len())?),
        };
        out.push((name.clone(), answer));
    }
    Ok(out)
}

fn stated_yes(name: &str, value: &Value) -> Result<f64, ClassifierError> {
    let bad = || {
        ClassifierError::of_kind(
            ErrorKind::BadAnswer,
            messages::classifier_bad_answer(name, "{\"probability\": p}"),
        )
    };
    if let Some(p) = number(value) {
        return Ok(p);
    }
    let m = value.as_object().ok_or_else(bad)?;
    if let Some(p) = m.get("probability").and_then(number) {
        return Ok(p);
    }
    match m.get("answer").and_then(Value::as_str).map(str::trim) {
        Some(a) if a.eq_ignore_ascii_case("yes") => Ok(1.0),
        Some(a) if a.eq_ignore_ascii_case("no") => Ok(0.0),
        _ => Err(bad()),
    }
}

fn read_choice(
    name: &str,
    value: &Value,
    options: &[(String, Option<String>)],
) -> Result<ChoiceResult, ClassifierError> {
    let bad = || {
        ClassifierError::of_kind(
            ErrorKind::BadAnswer,
            messages::classifier_bad_answer(name, "{\"choice\": …, \"probabilities\": {…}}"),
        )
    };
    let (choice, probs) = match value {
        Value::String(s) => (Some(s.clone()), None),
        Value::Object(m) => (
            m.get("choice").and_then(Value::as_str).map(str::to_string),
            m.get("probabilities").and_then(Value::as_object),
        ),
        _ => return Err(bad()),
    };
    let probabilities: Vec<(String, f64)> = options
        .iter()
        .map(|(o, _)| {
            let p = probs.and_then(|m| m.get(o)).and_then(number).unwrap_or(0.0);
            (o.clone(), clamp(p))
        })
        .collect();
    let choice = match choice {
        Some(c) => c,
        // No choice written: the most probable option, when probabilities were given.
        None if probs.is_some() => probabilities
            .iter()
            .fold(None::<&(String, f64)>, |best, cur| match best {
                Some(b) if b.1 >= cur.1 => Some(b),
                _ => Some(cur),
            })
            .map(|(o, _)| o.clone())
            .ok_or_else(bad)?,
        None => return Err(bad()),
    };
    let Some(index) = options.iter().position(|(o, _)| *o == choice) else {
        return Err(ClassifierError::of_kind(
            ErrorKind::BadAnswer,
            messages::classifier_choice_not_an_option(name, &choice),
        ));
    };
    // A choice with no probabilities at all is the model's certain pick.
    let confidence = if probs.is_none() {
        1.0
    } else {
        probabilities[index].1
    };
    let mut probabilities = probabilities;
    if probs.is_none() {
        probabilities[index].1 = 1.0;
    }
    Ok(ChoiceResult {
        choice,
        probabilities,
        confidence,
    })
}

fn read_score(name: &str, value: &Value, levels: usize) -> Result<ScoreResult, ClassifierError> {
    let bad = || {
        ClassifierError::of_kind(
            ErrorKind::BadAnswer,
            messages::classifier_bad_answer(name, "{\"probabilities\": {\"0\": p, …}}"),
        )
    };
    let m = value.as_object().ok_or_else(bad)?;
    let probabilities: Vec<f64> = match m.get("probabilities") {
        Some(Value::Object(p)) => (0..levels)
            .map(|i| clamp(p.get(&i.to_string()).and_then(number).unwrap_or(0.0)))
            .collect(),
        Some(Value::Array(a)) => (0..levels)
            .map(|i| clamp(a.get(i).and_then(number).unwrap_or(0.0)))
            .collect(),
        _ => match m.get("score").and_then(number) {
            Some(s) if s >= 0.0 && (s as usize) < levels => (0..levels)
                .map(|i| if i == s as usize { 1.0 } else { 0.0 })
                .collect(),
            _ => return Err(bad()),
        },
    };
    let (score, confidence) =
        probabilities
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, f64::MIN),
                |best, (i, p)| {
                    if p > best.1 { (i, p) } else { best }
                },
            );
    Ok(ScoreResult {
        score,
        probabilities,
        confidence: confidence.max(0.0),
    })
}

// ---- Log-probabilities: where the answer word is, and P(yes) there ----

/// Byte offsets (into `text`) of the first character of each yes/no `"answer"` string value,
/// keyed by the top-level question name, or by `""` for a lone un-keyed answer.
fn answer_offsets(text: &str, start: usize) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    let mut s = Scanner {
        b: text.as_bytes(),
        i: start,
        text,
    };
    s.object(0, None, &mut out);
    out
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    text: &'a str,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A string at `i` (on its `"`); returns (decoded, offset of its first character).
    fn string(&mut self) -> Option<(String, usize)> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let open = self.i;
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    let raw = self.text.get(open..self.i)?;
                    return serde_json::from_str::<String>(raw)
                        .ok()
                        .map(|s| (s, open + 1));
                }
                _ => self.i += 1,
            }
        }
        None
    }

    /// Skips any value; `Some(())` when it was well formed enough to go on.
    fn skip(&mut self, depth: usize) -> Option<()> {
        self.ws();
        match self.b.get(self.i)? {
            b'"' => self.string().map(|_| ()),
            b'{' => {
                let mut sink = HashMap::new();
                self.object(depth + 1, None, &mut sink)
            }
            b'[' => {
                self.i += 1;
                if self.eat(b']') {
                    return Some(());
                }
                loop {
                    if depth > 64 {
                        return None;
                    }
                    self.skip(depth + 1)?;
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b']').then_some(());
                }
            }
            _ => {
                while self.i < self.b.len() && !b",}] \t\r\n".contains(&self.b[self.i]) {
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// An object at `i`. At depth 0 each member is a question (or, for a lone answer, the
    /// answer's own fields); at depth 1 an `"answer"` string is recorded under `parent`.
    fn object(
        &mut self,
        depth: usize,
        parent: Option<&str>,
        out: &mut HashMap<String, usize>,
    ) -> Option<()> {
        if depth > 64 || !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            let (key, _) = self.string()?;
            if !self.eat(b':') {
                return None;
            }
            self.ws();
            let is_string = self.b.get(self.i) == Some(&b'"');
            let is_object = self.b.get(self.i) == Some(&b'{');
            if key == "answer" && is_string && depth <= 1 {
                let (_, at) = self.string()?;
                out.entry(parent.unwrap_or("").to_string()).or_insert(at);
            } else if depth == 0 && is_object {
                self.object(1, Some(&key), out)?;
            } else {
                self.skip(depth)?;
            }
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(());
        }
    }
}

/// P(yes) from the token log-probabilities at byte `offset` of `text` (see the module docs).
fn yes_probability(text: &str, logprobs: &[TokenLogprob], offset: usize) -> Option<f64> {
    if logprobs.is_empty() {
        return None;
    }
    let spelled: String = logprobs.iter().map(|t| t.token.as_str()).collect();
    if spelled != text {
        return None;
    }
    let mut start = 0;
    let token = logprobs.iter().find(|t| {
        let end = start + t.token.len();
        let hit = start <= offset && offset < end;
        if !hit {
            start = end;
        }
        hit
    })?;
    let prefix = token.token.get(..offset - start)?;
    let listed: Vec<(&str, f64)> = if token.top.is_empty() {
        vec![(token.token.as_str(), token.logprob)]
    } else {
        token.top.iter().map(|(t, l)| (t.as_str(), *l)).collect()
    };
    let (mut yes, mut no, mut total, mut least) = (0.0, 0.0, 0.0, f64::MAX);
    for (alt, lp) in listed {
        let p = lp.exp();
        if !p.is_finite() {
            continue;
        }
        total += p;
        least = least.min(p);
        let Some(rest) = alt.strip_prefix(prefix) else {
            continue;
        };
        match rest.chars().next() {
            Some('y' | 'Y') => yes += p,
            Some('n' | 'N') => no += p,
            _ => {}
        }
    }
    let unseen = least.min((1.0 - total).max(0.0));
    match (yes > 0.0, no > 0.0) {
        (false, false) => None,
        (true, false) => Some(yes / (yes + unseen)),
        (false, true) => Some(unseen / (no + unseen)),
        (true, true) => Some(yes / (yes + no)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_find_each_answer_word() {
        let text = r#"Sure: {"a b": {"answer": "yes", "probability": 0.9}, "c": {"x": [1, {"answer": "no"}], "answer":"no"}}"#;
        let (start, _) = find_object(text).unwrap();
        let off = answer_offsets(text, start);
        assert_eq!(&text[off["a b"]..off["a b"] + 3], "yes");
        assert_eq!(&text[off["c"]..off["c"] + 2], "no");
    }

    #[test]
    fn yes_probability_normalises_yes_over_yes_and_no() {
        let text = r#"{"q":{"answer":"yes"}}"#;
        let toks = |top: Vec<(&str, f64)>| {
            vec![
                TokenLogprob {
                    token: r#"{"q":{"answer":"#.into(),
                    logprob: 0.0,
                    top: vec![],
                },
                TokenLogprob {
                    token: r#""yes"#.into(),
                    logprob: (0.6f64).ln(),
                    top: top.into_iter().map(|(t, l)| (t.to_string(), l)).collect(),
                },
                TokenLogprob {
                    token: r#""}}"#.into(),
                    logprob: 0.0,
                    top: vec![],
                },
            ]
        };
        let off = text.find("yes").unwrap();
        let both = toks(vec![("\"yes", 0.6f64.ln()), ("\"no", 0.2f64.ln())]);
        let p = yes_probability(text, &both, off).unwrap();
        assert!((p - 0.75).abs() < 1e-9, "{p}");
        // Only "yes" listed: "no" is bounded by the unlisted mass 0.4 and the least listed 0.6.
        let one = toks(vec![("\"yes", 0.6f64.ln())]);
        let p = yes_probability(text, &one, off).unwrap();
        assert!((p - 0.6).abs() < 1e-9, "{p}");
        // Tokens that do not spell the text are not used.
        let mut wrong = both.clone();
        wrong[2].token = "}".into();
        assert_eq!(yes_probability(text, &wrong, off), None);
    }
}
