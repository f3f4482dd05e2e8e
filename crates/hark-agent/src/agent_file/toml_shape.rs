//! The agent file's TOML shape, as serde reads it. Every table denies unknown keys, so a typo is
//! an error naming the key and its line. The module docs of [`crate::agent_file`] show every key.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::flow::FlowSpec;

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileFormat {
    /// The agent's name, for logs and `hark check`'s summary.
    pub name: Option<String>,
    /// The system prompt the voice LLM reads.
    pub system_prompt: Spanned<String>,
    /// BCP 47 language of the call, like `en-US` (default `en-US`).
    pub language: Option<Spanned<String>>,
    /// IANA timezone, like `Europe/Madrid`.
    pub timezone: Option<Spanned<String>>,
    /// The voice LLM.
    pub llm: Option<LlmFormat>,
    /// Speech out.
    pub tts: Option<TtsFormat>,
    /// Speech in.
    pub stt: Option<SttFormat>,
    /// State values by name.
    #[serde(default)]
    pub state: BTreeMap<String, Spanned<FieldFormat>>,
    /// Built-in and local tools by name.
    #[serde(default)]
    pub tools: ToolsFormat,
    /// Webhook tools.
    #[serde(default)]
    pub webhook: Vec<WebhookFormat>,
    /// Assign rows of the registry (each names its tool).
    #[serde(default)]
    pub assign: Vec<Spanned<AssignFormat>>,
    /// Replies of the registry (each names its tool).
    #[serde(default)]
    pub reply: Vec<Spanned<ReplyFormat>>,
    /// The UI worker.
    #[serde(default)]
    pub ui: UiFormat,
    /// A flow of steps in place of the plain agent: the flow's own serde
    /// type, [`crate::flow::FlowSpec`] (`first`, `[[flow.steps]]` with `instructions`, `tools`,
    /// `closing` (tool, `finish`, `confirm`, `confirm_in`), `saves`, `replies`, `assign` and
    /// `next`). Its `instructions` stay empty: the file's `system_prompt` is what the model
    /// reads in every step.
    pub flow: Option<Spanned<FlowSpec>>,
}

/// Where each step of `[flow]` starts in the file: a second, lenient read of the text that
/// keeps only the steps' names and spans (for the lines of the flow's build problems).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct FlowLines {
    #[serde(default)]
    pub flow: Option<FlowStepLines>,
}

/// `[flow]`'s steps, each with its span.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct FlowStepLines {
    #[serde(default)]
    pub first: Option<Spanned<String>>,
    #[serde(default)]
    pub steps: Vec<Spanned<StepLine>>,
}

/// One step's name.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct StepLine {
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    #[serde(default)]
    pub closing: Option<Spanned<ClosingLines>>,
    #[serde(default)]
    pub next: Option<Spanned<toml::Value>>,
}

/// Where a step's confirm lines are: `confirm` and each `confirm_in.<language>`, each line with
/// its span (a confirm line's problem sits on the line that holds it).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ClosingLines {
    #[serde(default)]
    pub confirm: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    pub confirm_in: BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
}

/// Which LLM API the provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// OpenAI-compatible chat completions (OpenAI, Groq, vLLM, llama.cpp server, Ollama).
    OpenaiCompatible,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
}

/// `[llm] roles`: which chat roles an OpenAI-compatible server takes (`hark_llm::Roles`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RolesKind {
    /// One system message first, then user/assistant/tool turns (the default).
    Portable,
    /// OpenAI's: `developer` and mid-history `system` messages.
    Openai,
}

/// `[llm]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmFormat {
    /// The provider's API (spanned: a problem about the provider, like its missing key
    /// variable, names this line).
    pub provider: Spanned<ProviderKind>,
    /// The model name.
    pub model: String,
    /// The endpoint; `${NAME}` placeholders allowed. Defaults to the provider's public API.
    pub base_url: Option<Spanned<String>>,
    /// The environment variable that holds the key.
    pub api_key_env: Option<Spanned<String>>,
    /// Never allowed: read only so the error can say where keys go (its value is never shown).
    pub api_key: Option<Spanned<toml::Value>>,
    /// The roles the server takes (`openai-compatible` only; default `portable`).
    pub roles: Option<Spanned<RolesKind>>,
}

/// `[tts] provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TtsProviderKind {
    /// `POST {base_url}/audio/speech`.
    OpenaiCompatible,
    /// The local espeak-ng program.
    EspeakNg,
    /// Cartesia's TTS WebSocket (`wss://api.cartesia.ai/tts/websocket`).
    Cartesia,
}

impl TtsProviderKind {
    /// The name the file gives it (`espeak-ng`).
    pub fn name(self) -> &'static str {
        match self {
            TtsProviderKind::OpenaiCompatible => "openai-compatible",
            TtsProviderKind::EspeakNg => "espeak-ng",
            TtsProviderKind::Cartesia => "cartesia",
        }
    }
}

/// `[stt] provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SttProviderKind {
    /// `POST {base_url}/audio/transcriptions`.
    OpenaiCompatible,
    /// Deepgram's live WebSocket API (`wss://api.deepgram.com/v1/listen`): streaming, interim
    /// results while the caller speaks.
    Deepgram,
}

impl SttProviderKind {
    /// The name the file gives it (`deepgram`).
    pub fn name(self) -> &'static str {
        match self {
            SttProviderKind::OpenaiCompatible => "openai-compatible",
            SttProviderKind::Deepgram => "deepgram",
        }
    }
}

/// `[tts]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TtsFormat {
    /// Which synthesizer.
    pub provider: Spanned<TtsProviderKind>,
    /// The endpoint (`openai-compatible`, `cartesia`: its WebSocket URL); `${NAME}`
    /// placeholders allowed.
    pub base_url: Option<Spanned<String>>,
    /// The model (`openai-compatible`: default `gpt-4o-mini-tts`; `cartesia`: default
    /// `sonic-3.5`).
    pub model: Option<Spanned<String>>,
    /// The voice (default `alloy`, or `en-us` for espeak-ng; `cartesia`: a voice id, required).
    pub voice: Option<Spanned<String>>,
    /// The language spoken, ISO 639-1 (`cartesia`; default the agent's `language`'s).
    pub language: Option<Spanned<String>>,
    /// Speed, 0.25 to 4.0 (`openai-compatible`).
    pub speed: Option<Spanned<f64>>,
    /// Words per minute, 80 to 450 (`espeak-ng`; default 175).
    pub words_per_minute: Option<Spanned<i64>>,
    /// The environment variable that holds the key (`openai-compatible`; `cartesia`: default
    /// `CARTESIA_API_KEY`).
    pub api_key_env: Option<Spanned<String>>,
    /// Never allowed: read only so the error can say where keys go.
    pub api_key: Option<Spanned<toml::Value>>,
}

/// `[stt]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SttFormat {
    /// Which recognizer.
    pub provider: Spanned<SttProviderKind>,
    /// The endpoint; `${NAME}` placeholders allowed (default `https://api.openai.com/v1`, or
    /// `wss://api.deepgram.com/v1/listen` for `deepgram`).
    pub base_url: Option<Spanned<String>>,
    /// The model (default `whisper-1`, or `nova-3` for `deepgram`).
    pub model: Option<Spanned<String>>,
    /// The language spoken, ISO-639-1 (`en`), sent when set (`deepgram`: the agent's language
    /// when not set).
    pub language: Option<Spanned<String>>,
    /// Words the recognizer should expect (product names, the agent's own name), sent as the
    /// transcription's `prompt` when set (`openai-compatible` only).
    pub prompt: Option<Spanned<String>>,
    /// The environment variable that holds the key (`deepgram`: default `DEEPGRAM_API_KEY`).
    pub api_key_env: Option<Spanned<String>>,
    /// Never allowed: read only so the error can say where keys go.
    pub api_key: Option<Spanned<toml::Value>>,
}

/// The type of a State value, an input or an output field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FieldType {
    /// Text.
    String,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// True or false.
    Boolean,
    /// A day, `2026-10-16` (said as "tomorrow, October 16").
    Date,
    /// A time of day, `09:30`.
    Time,
    /// A date and time.
    DateTime,
    /// A phone number in international format (grouped when said).
    Phone,
    /// An object; its fields in `fields`.
    Object,
    /// A list; its item in `items`.
    Array,
}

/// One field: a State value, an input argument or an output field.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldFormat {
    /// The type.
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// What it means (the model reads it; a State value's feeds the refusal hint).
    pub description: Option<String>,
    /// The words a string may hold (an enum; said as words).
    pub values: Option<Vec<String>>,
    /// The smallest number allowed.
    pub min: Option<f64>,
    /// The largest number allowed.
    pub max: Option<f64>,
    /// Inputs and outputs: `true` when the field may be left out (default `false`).
    #[serde(default)]
    pub optional: bool,
    /// `object`: its fields.
    pub fields: Option<BTreeMap<String, FieldFormat>>,
    /// `array`: its item.
    pub items: Option<Box<FieldFormat>>,
}

/// `[tools]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsFormat {
    /// Built-in tools: `current_datetime`, `user_phone_number`, `end_call`.
    #[serde(default)]
    pub builtin: Vec<Spanned<String>>,
    /// Tools from the host program's catalogue.
    #[serde(default)]
    pub local: Vec<Spanned<String>>,
    /// `end_call`'s goodbye line (default "Goodbye!"); spanned: without `end_call` in
    /// `builtin` it is unused, and a warning names its line.
    pub goodbye: Option<Spanned<String>>,
    /// `end_call`'s goodbye by language (`goodbye_in.es = "¡Adiós!"`): a call in that
    /// language says it instead (its whole tag, then its primary language, picks it).
    #[serde(default)]
    pub goodbye_in: BTreeMap<String, Spanned<String>>,
}

/// The HTTP method of a webhook: `"GET"`, `"POST"`, … (the lower-case spellings are read too:
/// HTTP methods are written both ways).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum MethodFormat {
    /// GET: arguments in the query.
    #[serde(alias = "get")]
    Get,
    /// POST (default).
    #[serde(alias = "post")]
    Post,
    /// PUT.
    #[serde(alias = "put")]
    Put,
    /// PATCH.
    #[serde(alias = "patch")]
    Patch,
    /// DELETE.
    #[serde(alias = "delete")]
    Delete,
}

/// What the caller's speech does to a running call of the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptionFormat {
    /// The framework's rule.
    ProviderDefault,
    /// The tool finishes.
    Continue,
    /// The tool is cancelled.
    Cancel,
}

/// How a webhook authenticates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthKind {
    /// `Authorization: Bearer <value>`.
    Bearer,
    /// The value in the header named by `header`.
    ApiKey,
}

/// `[webhook.auth]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthFormat {
    /// Bearer or API key.
    pub kind: AuthKind,
    /// The environment variable holding the credential.
    pub env: Spanned<String>,
    /// `api_key`: the header (spanned: a problem about it names its line).
    pub header: Option<Spanned<String>>,
}

/// One `[[webhook]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookFormat {
    /// The tool's name.
    pub name: Spanned<String>,
    /// What the model reads.
    pub description: String,
    /// The URL; `${NAME}` placeholders allowed.
    pub url: Spanned<String>,
    /// The method (default POST).
    pub method: Option<MethodFormat>,
    /// Seconds for the whole request (default 10).
    pub timeout: Option<f64>,
    /// `true`: the model reads `{"ok": true, "accepted": true}` at once; the request runs in the
    /// call's background.
    #[serde(default)]
    pub background: bool,
    /// Accept private addresses and plain http (off; only for your own service).
    #[serde(default)]
    pub allow_private_network: bool,
    /// The credential.
    pub auth: Option<AuthFormat>,
    /// Fixed extra headers: name → value, sent with every request (`${NAME}` placeholders
    /// allowed in a value; each value spanned, for the line of its problems). Beside `auth`,
    /// never `Authorization`: auth sends it.
    #[serde(default)]
    pub headers: BTreeMap<String, Spanned<String>>,
    /// Input arguments by name.
    #[serde(default)]
    pub input: BTreeMap<String, FieldFormat>,
    /// Output fields by name (none: the output is `Done`, `{"ok": true}`).
    #[serde(default)]
    pub output: BTreeMap<String, FieldFormat>,
    /// Locked arguments: name → template (`{{value}}`, `{{call.session_id}}`), each with its
    /// span (a locked value's problem names its own line).
    #[serde(default)]
    pub locked: BTreeMap<String, Spanned<String>>,
    /// Announce lines, each with its span.
    #[serde(default)]
    pub announce: Vec<Spanned<String>>,
    /// Announce lines by language (`announce_in.es = ["Un momento."]`), each with its span.
    #[serde(default)]
    pub announce_in: BTreeMap<String, Vec<Spanned<String>>>,
    /// Wait for the announce line to play before running.
    #[serde(default)]
    pub announce_wait: bool,
    /// What the caller's speech does to a running call (default `provider_default`).
    pub interruption: Option<InterruptionFormat>,
    /// `false`: the model reads `{"ok": true}` for a success.
    pub show_result: Option<bool>,
    /// Added to the description: "Use the result like this: …".
    pub result_instructions: Option<String>,
    /// The tool's own replies (no `tool` key).
    #[serde(default)]
    pub reply: Vec<Spanned<ReplyFormat>>,
    /// The tool's assign rows (no `tool` key).
    #[serde(default)]
    pub assign: Vec<Spanned<AssignFormat>>,
}

/// One assign row.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssignFormat {
    /// The tool (top-level rows only).
    pub tool: Option<String>,
    /// The State value saved (spanned: an unknown State value names this line).
    pub state: Spanned<String>,
    /// The result field, dotted (`order.id`); empty or left out saves the whole result
    /// (spanned: an unknown field or a type that does not fit names this line).
    pub from: Option<Spanned<String>>,
}

/// One reply row.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyFormat {
    /// The tool (top-level rows only).
    pub tool: Option<String>,
    /// Result field → values that call for the line (each with its span: a condition's
    /// problem names its line).
    #[serde(default)]
    pub when: BTreeMap<String, Spanned<Vec<toml::Value>>>,
    /// State value → values that call for the line (each with its span).
    #[serde(default)]
    pub state: BTreeMap<String, Spanned<Vec<toml::Value>>>,
    /// The lines, said in turn (the list and each line with its span: a line's problem names
    /// the line that holds it).
    pub say: Spanned<Vec<Spanned<String>>>,
    /// The lines by language (`say_in.es = ["…"]`): a call in that language says them instead
    /// of `say` (its whole tag, then its primary language, picks them).
    #[serde(default)]
    pub say_in: BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
}

/// Which classifier the UI worker's `screen` job uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassifierKind {
    /// hark-ui's local classifier (no network, the default).
    #[default]
    Local,
    /// An LLM classifier over the `[llm]` provider.
    Llm,
}

/// `[ui]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiFormat {
    /// Run the UI worker beside the voice agent (default `true`).
    #[serde(default = "yes")]
    pub worker: bool,
    /// The classifier (default `local`; spanned when set, for the line of its problems).
    #[serde(default)]
    pub classifier: Option<Spanned<ClassifierKind>>,
    /// The LLM classifier's model (default: the `[llm]` model); spanned: with the local
    /// classifier it is unused, and a warning names its line.
    pub model: Option<Spanned<String>>,
    /// The UI worker's LLM instructions for its `respond` jobs (pipecat: the worker's LLM
    /// `system_instruction`); spanned for the line of a blank one.
    pub system_prompt: Option<Spanned<String>>,
    /// Keep the UI worker's history across `respond` jobs (default `false`: each job starts
    /// from a cleared context).
    #[serde(default)]
    pub keep_history: bool,
}

impl Default for UiFormat {
    fn default() -> Self {
        Self {
            worker: true,
            classifier: None,
            model: None,
            system_prompt: None,
            keep_history: false,
        }
    }
}

fn yes() -> bool {
    true
}
