//! The LLM classifier against `hark_llm::testing::ScriptedServer`: the request (prompt,
//! strict JSON schema, log-probabilities), tolerant reading of the reply, and errors. The UI
//! worker's `screen` job through it is in hark-ui's `tests/screen_llm_classifier.rs`.

use std::sync::Arc;
use std::time::Duration;

use hark_classify::{
    Answer, ChoiceQuestion, ChoiceResult, Classifier, ErrorKind, LlmClassifier, Question,
    ScoreQuestion, ScoreResult, YesNoQuestion, YesNoResult, messages,
};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{HttpOptions, OpenAiCompatible, Provider, RetryPolicy};
use serde_json::{Value, json};

fn provider(server: &ScriptedServer) -> Arc<dyn Provider> {
    Arc::new(
        OpenAiCompatible::new(server.base_url(), None).with_http_options(HttpOptions {
            retry: RetryPolicy::none(),
            ..HttpOptions::default()
        }),
    )
}

fn questions() -> Vec<(String, Question)> {
    vec![
        (
            "on".into(),
            Question::YesNo(YesNoQuestion {
                instructions: json!("is gift wrap on?"),
                yes: Some("it is checked".into()),
                no: None,
            }),
        ),
        (
            "size".into(),
            Question::Choice(ChoiceQuestion {
                instructions: json!("which size"),
                options: vec![("S".into(), Some("small".into())), ("M".into(), None)],
            }),
        ),
        (
            "mood".into(),
            Question::Score(ScoreQuestion {
                instructions: json!("how happy"),
                levels: vec!["sad".into(), "ok".into(), "glad".into()],
            }),
        ),
    ]
}

fn state() -> Value {
    json!({"screen": "<ui_state>\n- checkbox \"Gift wrap\" [checked] [ref=e2]\n</ui_state>"})
}

#[tokio::test]
async fn one_request_with_the_prompt_and_a_strict_schema() {
    let reply = r#"{"on": {"probability": 0.8}, "size": {"choice": "M", "probabilities": {"S": 0.3, "M": 0.7}}, "mood": {"probabilities": {"0": 0.1, "1": 0.2, "2": 0.7}}}"#;
    let server = ScriptedServer::start(vec![Turn::text_reply(&[reply])])
        .await
        .unwrap();
    let c = LlmClassifier::new(provider(&server), "small-model")
        .with_instructions("The app sells gifts.")
        .with_max_tokens(200);
    let answers = c.ask(&state().into(), &questions()).await.unwrap();
    assert_eq!(
        answers,
        vec![
            ("on".into(), Answer::YesNo(YesNoResult { probability: 0.8 })),
            (
                "size".into(),
                Answer::Choice(ChoiceResult {
                    choice: "M".into(),
                    probabilities: vec![("S".into(), 0.3), ("M".into(), 0.7)],
                    confidence: 0.7
                })
            ),
            (
                "mood".into(),
                Answer::Score(ScoreResult {
                    score: 2,
                    probabilities: vec![0.1, 0.2, 0.7],
                    confidence: 0.7
                })
            ),
        ]
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1, "one request per ask");
    let body = &bodies[0];
    assert_eq!(body["model"], json!("small-model"));
    assert_eq!(body["temperature"], json!(0.0));
    assert_eq!(body["max_tokens"], json!(200));
    assert!(body.get("logprobs").is_none());
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert_eq!(
        system,
        messages::llm_classifier_system(Some("The app sells gifts."), false)
    );
    assert!(system.contains("Reply with ONE JSON object"));
    assert!(system.ends_with("\n\nThe app sells gifts."));
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.starts_with("State:\n{\n  \"screen\": \"<ui_state>"));
    assert!(user.contains("\"on\": {\n    \"type\": \"yes_no\",\n    \"question\": \"is gift wrap on?\",\n    \"yes\": \"it is checked\"\n  }"));
    assert!(user.contains("\"options\": {\n      \"S\": \"small\",\n      \"M\": null\n    }"));
    assert!(user.contains("\"levels\": {\n      \"0\": \"sad\""));

    let n = json!({"type": "number"});
    let strict = |props: Value, req: Value| json!({"type": "object", "properties": props, "required": req, "additionalProperties": false});
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "answers", "strict": true, "schema":
            strict(json!({
                "on": strict(json!({"probability": n}), json!(["probability"])),
                "size": strict(json!({
                    "choice": {"type": "string", "enum": ["S", "M"]},
                    "probabilities": strict(json!({"S": n, "M": n}), json!(["S", "M"]))
                }), json!(["choice", "probabilities"])),
                "mood": strict(json!({
                    "probabilities": strict(json!({"0": n, "1": n, "2": n}), json!(["0", "1", "2"]))
                }), json!(["probabilities"]))
            }), json!(["on", "size", "mood"]))
        }})
    );
}

async fn ask_one(reply: &str, question: Question) -> Result<Vec<(String, Answer)>, String> {
    let server = ScriptedServer::start(vec![Turn::text_reply(&[reply])])
        .await
        .unwrap();
    let c = LlmClassifier::new(provider(&server), "m").with_json_schema(false);
    let r = c
        .ask(&json!("state").into(), &[("q".into(), question)])
        .await
        .map_err(|e| e.to_string());
    assert!(server.bodies()[0].get("response_format").is_none());
    r
}

fn yn() -> Question {
    Question::yes_no("is it?")
}

fn prob(r: &[(String, Answer)]) -> f64 {
    match &r[0].1 {
        Answer::YesNo(y) => y.probability,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn fenced_json_prose_and_lone_answers_are_read() {
    let r = ask_one(
        "Here you go:\n```json\n{\"q\": {\"probability\": 0.25}}\n```\nDone.",
        yn(),
    )
    .await
    .unwrap();
    assert_eq!(prob(&r), 0.25);
    let r = ask_one("I think {\"probability\": 0.6} fits.", yn())
        .await
        .unwrap();
    assert_eq!(prob(&r), 0.6, "a lone un-keyed answer for one question");
    let r = ask_one("{\"q\": {\"probability\": 1.7}}", yn())
        .await
        .unwrap();
    assert_eq!(prob(&r), 1.0, "clamped");
    let r = ask_one("{\"q\": {\"probability\": -0.2}}", yn())
        .await
        .unwrap();
    assert_eq!(prob(&r), 0.0, "clamped");
    let choice = Question::choice("pick", vec![("a".into(), None), ("b".into(), None)]);
    let r = ask_one(
        "{\"choice\": \"b\", \"probabilities\": {\"a\": 0.1, \"b\": 3}}",
        choice,
    )
    .await
    .unwrap();
    assert_eq!(
        r[0].1,
        Answer::Choice(ChoiceResult {
            choice: "b".into(),
            probabilities: vec![("a".into(), 0.1), ("b".into(), 1.0)],
            confidence: 1.0
        })
    );
}

#[tokio::test]
async fn bad_replies_are_errors_that_say_what_was_wrong() {
    let choice = Question::choice("pick", vec![("a".into(), None), ("b".into(), None)]);
    assert_eq!(
        ask_one(
            "{\"q\": {\"choice\": \"c\", \"probabilities\": {\"c\": 1}}}",
            choice
        )
        .await
        .unwrap_err(),
        "the LLM classifier chose \"c\" for \"q\", which is not one of the options."
    );
    assert_eq!(
        ask_one("I cannot tell.", yn()).await.unwrap_err(),
        "the LLM classifier's reply holds no JSON object: \"I cannot tell.\""
    );
    assert_eq!(
        ask_one("{\"other\": {\"probability\": 1}, \"x\": 1}", yn())
            .await
            .unwrap_err(),
        messages::classifier_missing_answer("q")
    );
    assert_eq!(
        ask_one("{\"q\": {\"maybe\": true}}", yn())
            .await
            .unwrap_err(),
        "the LLM classifier's answer for \"q\" is not {\"probability\": p}."
    );

    // Two questions: a lone answer is not enough.
    let server = ScriptedServer::start(vec![Turn::text_reply(&["{\"probability\": 0.5}"])])
        .await
        .unwrap();
    let c = LlmClassifier::new(provider(&server), "m");
    let two = [("a".to_string(), yn()), ("b".to_string(), yn())];
    assert_eq!(
        c.ask(&json!({}).into(), &two)
            .await
            .unwrap_err()
            .to_string(),
        messages::classifier_missing_answer("a")
    );
}

#[tokio::test]
async fn provider_errors_and_the_time_limit_are_classifier_errors() {
    let server = ScriptedServer::start(vec![
        Turn::status(400, "bad model"),
        Turn::text_reply(&["{\"q\": {\"probability\": 1}}"]).delayed(Duration::from_secs(5)),
    ])
    .await
    .unwrap();
    let c = LlmClassifier::new(provider(&server), "m").with_timeout(Duration::from_millis(200));
    let q = [("q".to_string(), yn())];
    let err = c.ask(&json!({}).into(), &q).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unreachable);
    let e = err.to_string();
    assert!(
        e.starts_with(
            "the LLM classifier's request failed: openai-compatible at http://127.0.0.1:"
        ),
        "{e}"
    );
    assert!(e.contains("HTTP 400"), "{e}");
    let err = c.ask(&json!({}).into(), &q).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    let e = err.to_string();
    assert_eq!(e, messages::classifier_timed_out(0.2));
    assert!(e.starts_with("the LLM classifier had no answer within 0.2 s"));
    // A question that cannot be asked fails before any request.
    let empty = [("q".to_string(), Question::choice("pick", vec![]))];
    assert_eq!(
        c.ask(&json!({}).into(), &empty)
            .await
            .unwrap_err()
            .to_string(),
        "the question \"q\" cannot be asked: a choice needs at least one option"
    );
    assert_eq!(
        c.ask(&json!({}).into(), &empty).await.unwrap_err().kind(),
        ErrorKind::NotUnderstood
    );
    assert_eq!(server.bodies().len(), 2);
}

/// Beyond pipecat: with log-probabilities, P(yes) comes from the answer word's token.
#[tokio::test]
async fn yes_no_probabilities_come_from_token_logprobs() {
    let tok =
        |t: &str, lp: f64, top: Value| json!({"token": t, "logprob": lp, "top_logprobs": top});
    let turn = Turn::stream()
        .text_with_logprobs(
            "{\"q\": {\"answer\": ",
            json!([tok("{\"q\": {\"answer\": ", 0.0, json!([]))]),
        )
        .text_with_logprobs(
            "\"yes\", \"probability\": 1.0}}",
            json!([
                tok(
                    "\"yes",
                    -0.105,
                    json!([
                        {"token": "\"yes", "logprob": 0.8f64.ln()},
                        {"token": "\"no", "logprob": 0.15f64.ln()},
                        {"token": "\"maybe", "logprob": 0.05f64.ln()}
                    ])
                ),
                tok("\", \"probability\": 1.0}}", 0.0, json!([]))
            ]),
        )
        .finish("stop")
        .done();
    let server = ScriptedServer::start(vec![turn]).await.unwrap();
    let c = LlmClassifier::new(provider(&server), "m").with_logprobs(5);
    let r = c
        .ask(&json!({}).into(), &[("q".into(), yn())])
        .await
        .unwrap();
    let p = prob(&r);
    assert!(
        (p - 0.8 / 0.95).abs() < 1e-9,
        "P(yes) from tokens, not the stated 1.0: {p}"
    );
    let body = &server.bodies()[0];
    assert_eq!(body["logprobs"], json!(true));
    assert_eq!(body["top_logprobs"], json!(5));
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["properties"]["q"]["properties"]["answer"],
        json!({"type": "string", "enum": ["yes", "no"]})
    );
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("{\"answer\": \"yes\" or \"no\", \"probability\": p}")
    );

    // No log-probabilities sent: the stated probability holds.
    let server = ScriptedServer::start(vec![Turn::text_reply(&[
        "{\"q\": {\"answer\": \"no\", \"probability\": 0.3}}",
    ])])
    .await
    .unwrap();
    let c = LlmClassifier::new(provider(&server), "m").with_logprobs(5);
    let r = c
        .ask(&json!({}).into(), &[("q".into(), yn())])
        .await
        .unwrap();
    assert_eq!(prob(&r), 0.3);
}
