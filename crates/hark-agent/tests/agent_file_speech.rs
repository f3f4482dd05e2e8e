//! `[tts]` and `[stt]`: speech providers in an agent file, checked with errors like `[llm]`'s
//! (keys from environment variables, never the file; a key of the other provider; numbers out of
//! range; an unset key variable is a warning and the agent runs without that side of speech),
//! and built into hark-voice clients that speak to the configured server.

use futures::StreamExt;
use hark_agent::Recognizer;
use hark_agent::agent_file::{AgentFile, Host, Problem, SttProviderKind, TtsProviderKind};
use hark_voice::testing::{
    CartesiaServer, CartesiaStep, DeepgramScript, DgStep, Reply, ScriptedDeepgram,
    ScriptedSpeechServer, Step,
};
use hark_voice::{AudioChunk, Transcript};

const PROMPT: &str = "system_prompt = \"You help.\"\n";

#[path = "common/problems.rs"]
mod problems;
use problems::problems;

#[tokio::test]
async fn an_openai_compatible_tts_and_stt_reach_the_configured_server_with_the_key() {
    let server = ScriptedSpeechServer::start(vec![
        Reply::audio(vec![Step::Bytes(vec![1, 0, 2, 0])]),
        Reply::transcript("add the blue mug"),
    ])
    .await;
    let text = format!(
        "{PROMPT}[tts]\nprovider = \"openai-compatible\"\nbase_url = \"${{SPEECH_URL}}\"\n\
         model = \"tts-1\"\nvoice = \"nova\"\nspeed = 1.5\napi_key_env = \"PATH\"\n\
         [stt]\nprovider = \"openai-compatible\"\nbase_url = \"${{SPEECH_URL}}\"\nlanguage = \"en\"\nprompt = \"blue mug, cart\"\n"
    );
    let host = Host::new().with_value("SPEECH_URL", server.base_url());
    let agent = text.parse::<AgentFile>().unwrap().build(&host).unwrap();
    assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
    let tts = agent.tts.expect("[tts] built");
    assert_eq!(tts.kind, TtsProviderKind::OpenaiCompatible);
    assert_eq!(tts.tts.sample_rate(), 24_000);
    let chunk = tts.tts.synthesize("Done.").next().await.unwrap().unwrap();
    assert_eq!(chunk.samples, [1, 2]);
    let stt = agent.stt.expect("[stt] built");
    assert_eq!(stt.kind, SttProviderKind::OpenaiCompatible);
    let Recognizer::Batch(batch) = &stt.stt else {
        panic!("openai-compatible is a batch STT: {:?}", stt.stt)
    };
    let said = batch
        .transcribe(AudioChunk::new(vec![5; 160], 16_000))
        .await
        .unwrap();
    assert_eq!(said.text, "add the blue mug");

    let requests = server.requests();
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {path}").as_str())
    );
    assert_eq!(requests[0].json["model"], "tts-1");
    assert_eq!(requests[0].json["voice"], "nova");
    assert_eq!(requests[0].json["speed"], 1.5);
    assert_eq!(
        requests[1].header("authorization"),
        None,
        "[stt] names no key"
    );
    assert_eq!(
        requests[1].field("model").unwrap().text(),
        "whisper-1",
        "the default model"
    );
    assert_eq!(requests[1].field("language").unwrap().text(), "en");
    assert_eq!(
        requests[1].field("prompt").unwrap().text(),
        "blue mug, cart"
    );
}

#[test]
fn espeak_ng_is_the_local_tts_and_says_how_to_install_it_when_missing() {
    let text = format!(
        "{PROMPT}[tts]\nprovider = \"espeak-ng\"\nvoice = \"en-gb\"\nwords_per_minute = 160\n"
    );
    let agent = text
        .parse::<AgentFile>()
        .unwrap()
        .build(&Host::new())
        .unwrap();
    let installed = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("espeak-ng").is_file()));
    if installed {
        let tts = agent.tts.expect("[tts] built");
        assert_eq!(tts.kind, TtsProviderKind::EspeakNg);
        assert_eq!(tts.tts.sample_rate(), 22_050);
        assert!(agent.warnings.is_empty());
    } else {
        assert!(agent.tts.is_none());
        assert_eq!(
            agent.warnings[0].to_string(),
            "line 3: warning: [tts] espeak-ng is not installed (not found on PATH), so the agent \
             runs without speech out. Install it with `apt-get install espeak-ng` (Debian/Ubuntu)."
        );
    }
}

#[test]
fn keys_never_come_from_the_file_and_an_unset_variable_is_a_warning() {
    let text =
        format!("{PROMPT}[tts]\nprovider = \"openai-compatible\"\napi_key = \"sk-secret-123\"\n");
    let found = problems(&text);
    assert_eq!(
        found,
        [
            "line 4: error: [tts] api_key: a key never goes in the agent file. Put it in an \
          environment variable and name the variable with api_key_env = \"OPENAI_API_KEY\"."
        ]
    );
    assert!(!found[0].contains("sk-secret-123"));

    let text = format!(
        "{PROMPT}[stt]\nprovider = \"openai-compatible\"\napi_key_env = \"sk-proj-abc123def456\"\n"
    );
    assert_eq!(
        problems(&text),
        [
            "line 4: error: [stt] api_key_env must name an environment variable (like \
          OPENAI_API_KEY), not hold the key: move the key into a variable and name it here."
        ]
    );

    let text = format!(
        "{PROMPT}[tts]\nprovider = \"openai-compatible\"\napi_key_env = \"HARK_TEST_TTS_UNSET_KEY\"\n\
         [stt]\nprovider = \"openai-compatible\"\napi_key_env = \"HARK_TEST_STT_UNSET_KEY\"\n"
    );
    let agent = text
        .parse::<AgentFile>()
        .unwrap()
        .build(&Host::new())
        .expect("warnings only");
    assert!(agent.tts.is_none() && agent.stt.is_none());
    let warnings: Vec<String> = agent.warnings.iter().map(Problem::to_string).collect();
    assert_eq!(
        warnings,
        [
            "line 4: warning: [tts] the environment variable HARK_TEST_TTS_UNSET_KEY is not set, \
             so the agent runs without speech out (TTS). Put your openai-compatible key in \
             HARK_TEST_TTS_UNSET_KEY to use it.",
            "line 7: warning: [stt] the environment variable HARK_TEST_STT_UNSET_KEY is not set, \
             so the agent runs without speech in (STT). Put your openai-compatible key in \
             HARK_TEST_STT_UNSET_KEY to use it.",
        ]
    );
}

#[test]
fn a_key_of_the_other_provider_and_numbers_out_of_range_are_errors() {
    let text = format!(
        "{PROMPT}[tts]\nprovider = \"espeak-ng\"\nmodel = \"tts-1\"\nwords_per_minute = 900\n"
    );
    assert_eq!(
        problems(&text),
        [
            "line 4: error: [tts] model is for provider openai-compatible, not espeak-ng: remove \
             it, or set provider = \"openai-compatible\".",
            "line 5: error: [tts] words_per_minute = 900 is outside 80 to 450: choose a value in \
             that range.",
        ]
    );
    let text = format!("{PROMPT}[tts]\nprovider = \"openai-compatible\"\nwords_per_minute = 200\n");
    assert_eq!(
        problems(&text),
        [
            "line 4: error: [tts] words_per_minute is for provider espeak-ng, not \
          openai-compatible: remove it, or set provider = \"espeak-ng\"."
        ]
    );
    let text = format!("{PROMPT}[tts]\nprovider = \"openai-compatible\"\nspeed = 9.0\n");
    assert_eq!(
        problems(&text),
        ["line 4: error: [tts] speed = 9 is outside 0.25 to 4.0: choose a value in that range.",]
    );
    let text = format!("{PROMPT}[tts]\nprovider = \"openai-compatible\"\nvoice = \" \"\n");
    assert_eq!(
        problems(&text),
        ["line 4: error: [tts] voice is empty: give it a value, or remove it for the default."]
    );
    let text =
        format!("{PROMPT}[stt]\nprovider = \"openai-compatible\"\nbase_url = \"ftp://x/v1\"\n");
    assert_eq!(
        problems(&text),
        [
            "line 4: error: [stt] base_url ftp://x/v1 is not a URL (the scheme ftp is not http or \
          https). Write it like https://api.openai.com/v1."
        ]
    );
}

#[test]
fn an_unknown_provider_or_key_names_its_line() {
    let parse_error = |text: String| text.parse::<AgentFile>().unwrap_err().problems[0].to_string();
    assert_eq!(
        parse_error(format!("{PROMPT}[stt]\nprovider = \"espeak-ng\"\n")),
        "line 3: error: unknown variant `espeak-ng`, expected `openai-compatible` or `deepgram`. Fix this key \
         or value; every key is in docs/guide/agent-file-reference.md."
    );
    let found = parse_error(format!(
        "{PROMPT}[tts]\nprovider = \"espeak-ng\"\nvoise = \"en-us\"\n"
    ));
    assert!(
        found.starts_with("line 4: error: unknown field `voise`"),
        "{found}"
    );
}

#[tokio::test]
async fn cartesia_speaks_over_its_websocket_with_the_key_voice_and_the_agents_language() {
    let server = CartesiaServer::start(vec![vec![
        CartesiaStep::samples(&[1, 2, 3]),
        CartesiaStep::Done,
    ]])
    .await;
    let text = format!(
        "{PROMPT}language = \"es-ES\"\n[tts]\nprovider = \"cartesia\"\nbase_url = \"${{CARTESIA_URL}}\"\n\
         voice = \"a0e99841-438c-4a64-b679-ae501e7d6091\"\napi_key_env = \"PATH\"\n"
    );
    let host = Host::new().with_value("CARTESIA_URL", server.url());
    let agent = text.parse::<AgentFile>().unwrap().build(&host).unwrap();
    assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
    let tts = agent.tts.expect("[tts] built");
    assert_eq!(tts.kind, TtsProviderKind::Cartesia);
    assert_eq!(tts.tts.sample_rate(), 24_000);
    let chunk = tts.tts.synthesize("Hola.").next().await.unwrap().unwrap();
    assert_eq!(chunk.samples, [1, 2, 3]);

    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        server.connections()[0].header("x-api-key"),
        Some(path.as_str())
    );
    let request = &server.requests()[0].json;
    assert_eq!(
        request["voice"]["id"],
        "a0e99841-438c-4a64-b679-ae501e7d6091"
    );
    assert_eq!(request["model_id"], "sonic-3.5", "the default model");
    assert_eq!(request["language"], "es", "the agent's language");
    assert_eq!(request["transcript"], "Hola.");
}

#[test]
fn cartesia_needs_a_voice_and_a_websocket_url_and_refuses_the_other_providers_keys() {
    let text = format!(
        "{PROMPT}[tts]\nprovider = \"cartesia\"\nspeed = 1.2\nbase_url = \"https://api.cartesia.ai\"\n\
         language = \"english\"\napi_key_env = \"PATH\"\n"
    );
    assert_eq!(
        problems(&text),
        [
            "line 3: error: [tts] provider cartesia needs a voice: set voice = \"<voice id>\" to \
             the id of a voice from Cartesia's voice library (like \
             a0e99841-438c-4a64-b679-ae501e7d6091).",
            "line 4: error: [tts] speed is for provider openai-compatible, not cartesia: remove \
             it, or set provider = \"openai-compatible\".",
            "line 5: error: [tts] base_url https://api.cartesia.ai is not a WebSocket URL (the \
             scheme https is not ws or wss). Write it like wss://api.cartesia.ai/tts/websocket.",
            "line 6: error: [tts] language \"english\" is not a language code: write the ISO \
             639-1 code, like language = \"en\", or remove it to use the agent's language.",
        ]
    );
    let text = format!("{PROMPT}[tts]\nprovider = \"espeak-ng\"\nlanguage = \"en\"\n");
    assert_eq!(
        problems(&text),
        [
            "line 4: error: [tts] language is for provider cartesia, not espeak-ng: remove it, or \
             set provider = \"cartesia\"."
        ]
    );
    let text =
        format!("{PROMPT}[tts]\nprovider = \"cartesia\"\nvoice = \"v\"\napi_key = \"sk_car_x\"\n");
    assert_eq!(
        problems(&text),
        [
            "line 5: error: [tts] api_key: a key never goes in the agent file. Put it in an \
             environment variable and name the variable with api_key_env = \"CARTESIA_API_KEY\"."
        ]
    );
}

#[test]
fn cartesias_key_comes_from_cartesia_api_key_unless_the_file_names_another() {
    let text = format!(
        "{PROMPT}[tts]\nprovider = \"cartesia\"\nvoice = \"v\"\napi_key_env = \"HARK_TEST_CARTESIA_UNSET\"\n"
    );
    let agent = text
        .parse::<AgentFile>()
        .unwrap()
        .build(&Host::new())
        .unwrap();
    assert!(agent.tts.is_none());
    let warnings: Vec<String> = agent.warnings.iter().map(Problem::to_string).collect();
    assert_eq!(
        warnings,
        [
            "line 5: warning: [tts] the environment variable HARK_TEST_CARTESIA_UNSET is not set, \
             so the agent runs without speech out (TTS). Put your cartesia key in \
             HARK_TEST_CARTESIA_UNSET to use it."
        ]
    );
    if std::env::var_os("CARTESIA_API_KEY").is_none() {
        let text = format!("{PROMPT}[tts]\nprovider = \"cartesia\"\nvoice = \"v\"\n");
        assert_eq!(
            problems(&text),
            [
                "line 3: warning: [tts] the environment variable CARTESIA_API_KEY is not set, so \
                 the agent runs without speech out (TTS). Put your cartesia key in \
                 CARTESIA_API_KEY to use it."
            ]
        );
    }
}

#[tokio::test]
async fn deepgram_is_a_streaming_stt_with_its_defaults_and_the_agents_language() {
    let server = ScriptedDeepgram::start(vec![DeepgramScript::Steps(vec![
        DgStep::AwaitFinalize,
        DgStep::finalized("add the blue mug"),
    ])])
    .await;
    let text = format!(
        "{PROMPT}language = \"en-GB\"\n[stt]\nprovider = \"deepgram\"\nbase_url = \"${{DG_URL}}\"\n\
         api_key_env = \"PATH\"\n"
    );
    let host = Host::new().with_value("DG_URL", server.url());
    let agent = text.parse::<AgentFile>().unwrap().build(&host).unwrap();
    assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
    let stt = agent.stt.expect("[stt] built");
    assert_eq!(stt.kind, SttProviderKind::Deepgram);
    let Recognizer::Streaming(streaming) = &stt.stt else {
        panic!("deepgram streams: {:?}", stt.stt)
    };
    let mut stream = streaming.open(16_000);
    stream.push(&[5; 320]);
    stream.finish();
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        Transcript::final_text("add the blue mug")
    );
    let c = &server.connections()[0];
    assert_eq!(c.param("model"), Some("nova-3"), "the default model");
    assert_eq!(c.param("language"), Some("en-GB"), "the agent's language");
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        c.header("authorization"),
        Some(format!("Token {path}").as_str())
    );
}

#[test]
fn deepgram_reads_deepgram_api_key_by_default_and_refuses_what_is_not_its_own() {
    // The default variable, where the machine has none set.
    if std::env::var_os("DEEPGRAM_API_KEY").is_none() {
        let text = format!("{PROMPT}[stt]\nprovider = \"deepgram\"\n");
        let agent = text
            .parse::<AgentFile>()
            .unwrap()
            .build(&Host::new())
            .expect("warnings only");
        assert!(agent.stt.is_none());
        let warnings: Vec<String> = agent.warnings.iter().map(Problem::to_string).collect();
        assert_eq!(
            warnings,
            [
                "line 3: warning: [stt] the environment variable DEEPGRAM_API_KEY is not set, so \
                 the agent runs without speech in (STT). Put your deepgram key in \
                 DEEPGRAM_API_KEY to use it."
            ]
        );
    }

    let text = format!(
        "{PROMPT}[stt]\nprovider = \"deepgram\"\nprompt = \"blue mug\"\napi_key_env = \"PATH\"\n"
    );
    assert_eq!(
        problems(&text),
        [
            "line 4: error: [stt] prompt is for provider openai-compatible, not deepgram: remove it, \
          or set provider = \"openai-compatible\"."
        ]
    );
    let text = format!(
        "{PROMPT}[stt]\nprovider = \"deepgram\"\nbase_url = \"https://api.deepgram.com/v1/listen\"\n\
         api_key_env = \"PATH\"\n"
    );
    assert_eq!(
        problems(&text),
        [
            "line 4: error: [stt] base_url https://api.deepgram.com/v1/listen is not a WebSocket URL (the \
          scheme https is not ws or wss). Write it like wss://api.deepgram.com/v1/listen."
        ]
    );
}
