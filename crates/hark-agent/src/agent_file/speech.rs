//! `[tts]` and `[stt]`: the speech providers of an agent file, checked and built into
//! hark-voice clients. Keys come from environment variables, as `[llm]`'s do: an unset one is a
//! warning and the agent runs without that side of speech.

use std::sync::Arc;

use hark_voice::{
    CARTESIA_URL, CartesiaConfig, CartesiaTts, DEEPGRAM_LISTEN_URL, DeepgramConfig, DeepgramStt,
    EspeakConfig, EspeakTts, HttpOptions, OpenAiStt, OpenAiSttConfig, OpenAiTts, OpenAiTtsConfig,
    Tts,
};
use toml::Spanned;

use super::build::{Found, is_env_name};
use super::host::Host;
use super::messages;
use super::toml_shape::{SttFormat, SttProviderKind, TtsFormat, TtsProviderKind};
use crate::hearing::Recognizer;

/// Speech out, built from `[tts]`.
#[derive(Clone)]
pub struct TtsChoice {
    /// The synthesizer.
    pub tts: Arc<dyn Tts>,
    /// Which provider the file names.
    pub kind: TtsProviderKind,
}

impl std::fmt::Debug for TtsChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TtsChoice")
            .field("kind", &self.kind)
            .field("sample_rate", &self.tts.sample_rate())
            .finish()
    }
}

/// Speech in, built from `[stt]`.
#[derive(Clone)]
pub struct SttChoice {
    /// The recognizer: batch (`openai-compatible`) or streaming (`deepgram`).
    pub stt: Recognizer,
    /// Which provider the file names.
    pub kind: SttProviderKind,
}

impl std::fmt::Debug for SttChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SttChoice")
            .field("kind", &self.kind)
            .finish()
    }
}

const OPENAI_BASE: &str = "https://api.openai.com/v1";

/// `[tts] api_key_env` when a `cartesia` table names none.
const CARTESIA_KEY_ENV: &str = "CARTESIA_API_KEY";
/// `[stt] api_key_env` when a `deepgram` table names none.
const DEEPGRAM_KEY_ENV: &str = "DEEPGRAM_API_KEY";

/// Where a provider is reached: its default `base_url` and the URL schemes it speaks.
struct Endpoint {
    default: &'static str,
    schemes: [&'static str; 2],
}

const HTTP: Endpoint = Endpoint {
    default: OPENAI_BASE,
    schemes: ["http", "https"],
};
const DEEPGRAM: Endpoint = Endpoint {
    default: DEEPGRAM_LISTEN_URL,
    schemes: ["ws", "wss"],
};
const CARTESIA: Endpoint = Endpoint {
    default: CARTESIA_URL,
    schemes: ["ws", "wss"],
};

/// The `[tts]` synthesizer, or `None` (with the problems recorded). `language` is the agent's
/// (BCP 47), the default of a provider that takes one.
pub(super) fn tts_choice(
    section: &TtsFormat,
    language: &str,
    host: &Host,
    found: &mut Found<'_>,
) -> Option<TtsChoice> {
    let kind = *section.provider.get_ref();
    if let Some(key) = &section.api_key {
        let line = found.line(key);
        let example = match kind {
            TtsProviderKind::Cartesia => CARTESIA_KEY_ENV,
            _ => "OPENAI_API_KEY",
        };
        found.error(line, messages::speech_key_in_file("[tts]", example));
        return None;
    }
    if kind != TtsProviderKind::Cartesia
        && let Some(value) = &section.language
    {
        let line = found.line(value);
        let provider = match kind {
            TtsProviderKind::EspeakNg => "espeak-ng",
            _ => "openai-compatible",
        };
        found.error(
            line,
            messages::tts_key_not_for("language", provider, "cartesia"),
        );
        return None;
    }
    match kind {
        TtsProviderKind::Cartesia => cartesia(section, language, host, found),
        TtsProviderKind::EspeakNg => {
            let mut ok = true;
            for (key, line) in [
                ("base_url", section.base_url.as_ref().map(|v| found.line(v))),
                ("model", section.model.as_ref().map(|v| found.line(v))),
                ("speed", section.speed.as_ref().map(|v| found.line(v))),
                (
                    "api_key_env",
                    section.api_key_env.as_ref().map(|v| found.line(v)),
                ),
            ] {
                if let Some(line) = line {
                    found.error(
                        line,
                        messages::tts_key_not_for(key, "espeak-ng", "openai-compatible"),
                    );
                    ok = false;
                }
            }
            let mut config = EspeakConfig::default();
            if let Some(voice) = &section.voice {
                match text(found, Some(voice), "[tts] voice") {
                    Some(v) => config.voice = v,
                    None => ok = false,
                }
            }
            if let Some(wpm) = &section.words_per_minute {
                match u32::try_from(*wpm.get_ref()) {
                    Ok(v) if (80..=450).contains(&v) => config.words_per_minute = v,
                    _ => {
                        let line = found.line(wpm);
                        let value = wpm.get_ref().to_string();
                        found.error(
                            line,
                            messages::speech_out_of_range(
                                "[tts] words_per_minute",
                                &value,
                                "80",
                                "450",
                            ),
                        );
                        ok = false;
                    }
                }
            }
            if !ok {
                return None;
            }
            if !on_path("espeak-ng") {
                let line = found.line(&section.provider);
                found.warning(line, messages::espeak_not_installed());
                return None;
            }
            Some(TtsChoice {
                tts: Arc::new(EspeakTts::new(config)),
                kind,
            })
        }
        TtsProviderKind::OpenaiCompatible => {
            if let Some(wpm) = &section.words_per_minute {
                let line = found.line(wpm);
                found.error(
                    line,
                    messages::tts_key_not_for("words_per_minute", "openai-compatible", "espeak-ng"),
                );
                return None;
            }
            let speed = match &section.speed {
                Some(s) if !(0.25..=4.0).contains(s.get_ref()) => {
                    let line = found.line(s);
                    let value = s.get_ref().to_string();
                    found.error(
                        line,
                        messages::speech_out_of_range("[tts] speed", &value, "0.25", "4.0"),
                    );
                    return None;
                }
                Some(s) => Some(*s.get_ref() as f32),
                None => None,
            };
            let base_url = base_url(found, section.base_url.as_ref(), "[tts]", host, &HTTP)?;
            let model = text(found, section.model.as_ref(), "[tts] model");
            let voice = text(found, section.voice.as_ref(), "[tts] voice");
            let key = key(
                found,
                section.api_key_env.as_ref(),
                None,
                None,
                "[tts]",
                "speech out (TTS)",
                "openai-compatible",
            )?;
            if [&section.model, &section.voice]
                .iter()
                .any(|v| v.as_ref().is_some_and(|v| v.get_ref().trim().is_empty()))
            {
                return None;
            }
            let mut config = OpenAiTtsConfig::new(
                base_url,
                model.unwrap_or_else(|| "gpt-4o-mini-tts".to_owned()),
                voice.unwrap_or_else(|| "alloy".to_owned()),
            );
            config.api_key = key;
            config.speed = speed;
            config.options = HttpOptions::default();
            Some(TtsChoice {
                tts: Arc::new(OpenAiTts::new(config)),
                kind,
            })
        }
    }
}

/// The `[stt]` recognizer, or `None` (with the problems recorded). `language` is the agent's
/// (the default of `deepgram`'s `language`).
pub(super) fn stt_choice(
    section: &SttFormat,
    host: &Host,
    language: &str,
    found: &mut Found<'_>,
) -> Option<SttChoice> {
    let kind = *section.provider.get_ref();
    if let Some(key) = &section.api_key {
        let line = found.line(key);
        let example = match kind {
            SttProviderKind::Deepgram => DEEPGRAM_KEY_ENV,
            SttProviderKind::OpenaiCompatible => "OPENAI_API_KEY",
        };
        found.error(line, messages::speech_key_in_file("[stt]", example));
        return None;
    }
    if kind == SttProviderKind::Deepgram
        && let Some(prompt) = &section.prompt
    {
        let line = found.line(prompt);
        found.error(
            line,
            messages::stt_key_not_for("prompt", "deepgram", "openai-compatible"),
        );
        return None;
    }
    let endpoint = match kind {
        SttProviderKind::OpenaiCompatible => &HTTP,
        SttProviderKind::Deepgram => &DEEPGRAM,
    };
    let base_url = base_url(found, section.base_url.as_ref(), "[stt]", host, endpoint)?;
    let model = text(found, section.model.as_ref(), "[stt] model");
    let spoken = text(found, section.language.as_ref(), "[stt] language");
    let prompt = text(found, section.prompt.as_ref(), "[stt] prompt");
    let (default_key, provider) = match kind {
        SttProviderKind::OpenaiCompatible => (None, "openai-compatible"),
        SttProviderKind::Deepgram => (Some(DEEPGRAM_KEY_ENV), "deepgram"),
    };
    let provider_line = found.line(&section.provider);
    let key = key(
        found,
        section.api_key_env.as_ref(),
        default_key,
        provider_line,
        "[stt]",
        "speech in (STT)",
        provider,
    )?;
    if [&section.model, &section.language, &section.prompt]
        .iter()
        .any(|v| v.as_ref().is_some_and(|v| v.get_ref().trim().is_empty()))
    {
        return None;
    }
    let stt = match kind {
        SttProviderKind::OpenaiCompatible => {
            let mut config =
                OpenAiSttConfig::new(base_url, model.unwrap_or_else(|| "whisper-1".to_owned()));
            config.api_key = key;
            config.language = spoken;
            config.prompt = prompt;
            Recognizer::Batch(Arc::new(OpenAiStt::new(config)))
        }
        SttProviderKind::Deepgram => {
            let mut config = DeepgramConfig::new(model.unwrap_or_else(|| "nova-3".to_owned()));
            config.base_url = base_url;
            config.api_key = key;
            config.language = Some(spoken.unwrap_or_else(|| language.to_owned()));
            Recognizer::Streaming(Arc::new(DeepgramStt::new(config)))
        }
    };
    Some(SttChoice { stt, kind })
}

/// A text value, `None` when absent; an empty one is an error (and `None`).
fn text(found: &mut Found<'_>, value: Option<&Spanned<String>>, place: &str) -> Option<String> {
    let value = value?;
    if value.get_ref().trim().is_empty() {
        let line = found.line(value);
        found.error(line, messages::speech_empty(place));
        return None;
    }
    Some(value.get_ref().trim().to_owned())
}

/// `base_url` filled and checked against the provider's schemes, or its default when absent.
fn base_url(
    found: &mut Found<'_>,
    value: Option<&Spanned<String>>,
    table: &str,
    host: &Host,
    endpoint: &Endpoint,
) -> Option<String> {
    let Some(text) = value else {
        return Some(endpoint.default.to_owned());
    };
    let filled = found.fill(text, &format!("{table} base_url"), host)?;
    let line = found.line(text);
    let [a, b] = endpoint.schemes;
    let why = match url::Url::parse(&filled) {
        Ok(url) if endpoint.schemes.contains(&url.scheme()) => return Some(filled),
        Ok(url) => format!("the scheme {} is not {a} or {b}", url.scheme()),
        Err(error) => error.to_string(),
    };
    let text = if a == "ws" {
        messages::speech_bad_ws_url(table, &filled, &why, endpoint.default)
    } else {
        messages::speech_bad_base_url(table, &filled, &why, endpoint.default)
    };
    found.error(line, text);
    None
}

/// The key of a speech table: from the variable `api_key_env` names, else from the provider's
/// own variable `default` (`DEEPGRAM_API_KEY`, `CARTESIA_API_KEY`; a problem with it points at
/// `provider_line`). `Some(None)`: no variable named and none by default (an
/// `openai-compatible` server may need no key). `None`: the variable is misnamed (an error),
/// unset or empty (a warning: the agent runs without that side of speech).
fn key(
    found: &mut Found<'_>,
    variable: Option<&Spanned<String>>,
    default: Option<&str>,
    provider_line: Option<usize>,
    table: &str,
    what: &str,
    provider: &str,
) -> Option<Option<String>> {
    let (name, line) = match (variable, default) {
        (Some(variable), _) => (variable.get_ref().as_str(), found.line(variable)),
        (None, Some(name)) => (name, provider_line),
        (None, None) => return Some(None),
    };
    if !is_env_name(name) {
        found.error(
            line,
            messages::env_name_invalid(
                &format!("{table} api_key_env"),
                default.unwrap_or("OPENAI_API_KEY"),
            ),
        );
        return None;
    }
    let state = match std::env::var(name) {
        Ok(key) if !key.is_empty() => return Some(Some(key)),
        Ok(_) => "set but empty",
        Err(_) => "not set",
    };
    found.warning(
        line,
        messages::speech_key_env_unusable(table, name, state, what, provider),
    );
    None
}

/// `[tts] provider = "cartesia"`: Cartesia's TTS WebSocket, its key from `api_key_env`
/// (default `CARTESIA_API_KEY`), a voice id required, the language the agent's by default.
fn cartesia(
    section: &TtsFormat,
    language: &str,
    host: &Host,
    found: &mut Found<'_>,
) -> Option<TtsChoice> {
    let mut ok = true;
    for (key, belongs_to, line) in [
        (
            "speed",
            "openai-compatible",
            section.speed.as_ref().map(|v| found.line(v)),
        ),
        (
            "words_per_minute",
            "espeak-ng",
            section.words_per_minute.as_ref().map(|v| found.line(v)),
        ),
    ] {
        if let Some(line) = line {
            found.error(line, messages::tts_key_not_for(key, "cartesia", belongs_to));
            ok = false;
        }
    }
    let base_url = base_url(found, section.base_url.as_ref(), "[tts]", host, &CARTESIA);
    let model = text(found, section.model.as_ref(), "[tts] model");
    let voice = text(found, section.voice.as_ref(), "[tts] voice");
    if section.voice.is_none() {
        let line = found.line(&section.provider);
        found.error(line, messages::cartesia_voice_missing());
        ok = false;
    }
    let language = match &section.language {
        Some(value) => {
            let code = text(found, Some(value), "[tts] language");
            match code {
                Some(code) if is_language_code(&code) => Some(code.to_ascii_lowercase()),
                Some(code) => {
                    let line = found.line(value);
                    found.error(line, messages::tts_language_invalid(&code));
                    None
                }
                None => None,
            }
        }
        // The primary subtag of the agent's BCP 47 language: `en` of `en-US`.
        None => language
            .split('-')
            .next()
            .filter(|code| is_language_code(code))
            .map(str::to_ascii_lowercase),
    };
    if [&section.model, &section.voice, &section.language]
        .iter()
        .any(|v| v.as_ref().is_some_and(|v| v.get_ref().trim().is_empty()))
        || section.language.is_some() && language.is_none()
    {
        ok = false;
    }
    let provider_line = found.line(&section.provider);
    let key = key(
        found,
        section.api_key_env.as_ref(),
        Some(CARTESIA_KEY_ENV),
        provider_line,
        "[tts]",
        "speech out (TTS)",
        "cartesia",
    );
    let (base_url, voice, key) = match (base_url, voice, key) {
        (Some(b), Some(v), Some(k)) if ok => (b, v, k),
        _ => return None,
    };
    let mut config = CartesiaConfig::new(voice);
    config.base_url = base_url;
    config.api_key = key;
    config.key_env = Some(
        section
            .api_key_env
            .as_ref()
            .map_or(CARTESIA_KEY_ENV, |v| v.get_ref().as_str())
            .to_owned(),
    );
    if let Some(model) = model {
        config.model = model;
    }
    config.language = language;
    Some(TtsChoice {
        tts: Arc::new(CartesiaTts::new(config)),
        kind: TtsProviderKind::Cartesia,
    })
}

/// A two- or three-letter ISO 639 code.
fn is_language_code(code: &str) -> bool {
    (2..=3).contains(&code.len()) && code.chars().all(|c| c.is_ascii_alphabetic())
}

/// Whether `program` is a file in a directory of `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}
