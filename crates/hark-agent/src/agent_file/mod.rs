//! Agent files (TOML): one file describes a voice agent — its prompt, language, timezone, State,
//! LLM, tools and UI worker — and `hark serve --agent FILE` runs it; `hark check FILE` runs every
//! build-time check and prints each problem with its fix.
//!
//! What each tool key does: `docs/guide/agent-file-reference.md`, `docs/guide/webhooks.md`,
//! `docs/guide/locked-values-and-transcript.md`, `docs/guide/announce-lines.md`,
//! `docs/guide/replies-and-assign.md`, `docs/guide/built-in-tools.md`.
//!
//! - [`AgentFile::load`] / [`AgentFile::from_str`](std::str::FromStr::from_str) parse the file.
//!   Every table denies unknown keys, so a typo is an error naming the key and its line.
//! - [`AgentFile::build`] takes the program's [`Host`] (its local tools, `${NAME}` values and
//!   the loopback addresses of its own services) and returns an [`AgentSetup`]: the system
//!   prompt, language, timezone, an `Arc<ToolRegistry>` (webhook, built-in and local tools, with
//!   the file's assign rows and replies), the State, the LLM (`None` while its key is unset) and
//!   the UI worker's settings. Every problem comes back at once ([`FileProblems`]), each naming
//!   its line when known and the fix; an unset environment variable is a warning, not an error.
//! - [`AgentFile::check`] is `build` for `hark check`: the list of problems, warnings included.
//!
//! Build once per agent and share the registry: it holds no call's data (a call's values live
//! in its [`hark_tools::CallState`], made from [`AgentSetup::language`] and
//! [`AgentSetup::timezone`]).
//!
//! Keys are never in the file: `[llm] api_key_env` and `[webhook.auth] env` name environment
//! variables. `${NAME}` in a webhook `url` or `[llm] base_url` reads the host's value
//! ([`Host::with_value`]) or else the environment variable `NAME`. Placeholders are for
//! addresses, not secrets (a URL shows in logs): send credentials with `[webhook.auth]`.
//!
//! # Every key
//!
//! ```
//! use hark_agent::agent_file::{AgentFile, ClassifierChoice, Host};
//!
//! let text = r#"
//! name = "bistro"                      # for logs and `hark check`
//! system_prompt = """
//! You take table bookings for Bistro Lumen. Keep answers short.
//! """
//! language = "en-US"                   # BCP 47 (default en-US)
//! timezone = "Europe/Madrid"           # IANA; dates are said in it
//!
//! [llm]
//! provider = "openai-compatible"       # or "anthropic", "gemini"
//! base_url = "https://api.openai.com/v1"   # default: the provider's public API
//! model = "gpt-4.1-mini"
//! api_key_env = "HARK_DOC_EXAMPLE_KEY" # the key's environment variable; never the key
//! roles = "portable"                   # openai-compatible only: or "openai" (developer, mid-history system)
//!
//! [state.booking_ref]                  # one table per State value
//! type = "string"                      # string integer number boolean date time date-time phone object array
//! description = "The booking's reference."
//!
//! [state.party]
//! type = "integer"
//! description = "How many people are coming."
//!
//! [tools]
//! builtin = ["current_datetime", "end_call"]   # and "user_phone_number"
//! local = []                           # names from the program's catalogue
//! goodbye = "Thanks for calling. Goodbye!"     # end_call's line
//!
//! [[webhook]]
//! name = "book_table"
//! description = "Book a table."
//! url = "https://bookings.example.com/book"    # ${NAME} placeholders allowed
//! method = "POST"                      # GET POST PUT PATCH DELETE
//! timeout = 5                          # seconds for the whole request (default 10)
//! background = false                   # true: do not wait; the model reads accepted
//! allow_private_network = false        # only for your own service
//! announce = ["Let me book that for {{party}} people."]
//! announce_wait = false
//! interruption = "continue"            # provider_default continue cancel
//! show_result = true
//! result_instructions = "Read the day back."
//! locked = { party = "{{party}}", session = "{{call.session_id}}" }
//! auth = { kind = "bearer", env = "HARK_DOC_EXAMPLE_TOKEN" }   # or kind = "api_key", header = "X-API-Key"
//!
//! [webhook.input.day]
//! type = "date"
//! description = "The day the caller wants."
//!
//! [webhook.input.party]
//! type = "integer"
//! min = 1
//! max = 12
//!
//! [webhook.output.reference]
//! type = "string"
//!
//! [webhook.output.status]
//! type = "string"
//! values = ["booked", "full"]
//!
//! [webhook.output.day]
//! type = "date"
//! optional = true
//!
//! [[webhook.reply]]                    # the tool's own replies, tried in order
//! when = { status = ["full"] }
//! say = ["That day is full. Which other day would suit you?"]
//!
//! [[webhook.assign]]                   # saves into the State
//! state = "booking_ref"
//! from = "reference"                   # dotted path; empty saves the whole result
//!
//! [[reply]]                            # replies of the registry name their tool
//! tool = "book_table"
//! when = { status = ["booked"] }
//! say = ["You're booked for {{result.day}}. Your reference is {{result.reference}}."]
//!
//! [tts]                                # speech out: hark serve plays each line's audio
//! provider = "espeak-ng"               # or "openai-compatible" (base_url, model, voice, speed, api_key_env), "cartesia" (voice id, model, language)
//! voice = "en-us"                      # default en-us (espeak-ng), alloy (openai-compatible)
//! words_per_minute = 175               # espeak-ng only, 80 to 450
//!
//! [stt]                                # speech in: hark serve hears the microphone (Silero VAD, then this STT)
//! provider = "openai-compatible"       # POST {base_url}/audio/transcriptions; "deepgram": live, streaming
//! base_url = "https://api.openai.com/v1"
//! model = "whisper-1"                  # the default
//! language = "en"                      # ISO-639-1, sent when set
//! prompt = "Hark Coffee Gear, blue mug, cart" # words to expect, sent when set
//! api_key_env = "HARK_DOC_EXAMPLE_KEY"
//!
//! [ui]
//! worker = true                        # the UI worker beside the voice agent
//! classifier = "local"                 # or "llm" (the [llm] provider)
//! "#;
//!
//! let file: AgentFile = text.parse()?;
//! let agent = file.build(&Host::new())?;
//! assert_eq!(agent.name, "bistro");
//! assert_eq!(agent.timezone.as_deref(), Some("Europe/Madrid"));
//! assert_eq!(agent.registry.names(), ["current_datetime", "end_call", "book_table"]);
//! assert!(agent.llm.is_none()); // HARK_DOC_EXAMPLE_KEY is not set: a warning says so
//! assert!(agent.warnings[0].text.contains("HARK_DOC_EXAMPLE_KEY is not set"));
//! assert!(matches!(agent.ui.classifier, ClassifierChoice::Local));
//!
//! // A typo is an error naming the key and its line.
//! let typo = "system_promt = \"Hi\"".parse::<AgentFile>().unwrap_err();
//! assert!(typo.problems[0].to_string().starts_with("line 1: error: unknown field `system_promt`"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Flows
//!
//! `[flow]` runs the conversation as a flow of steps in place of the plain agent: its keys are the
//! flow's own [`FlowSpec`](crate::flow::FlowSpec) — `first`, and per `[[flow.steps]]` its `name`,
//! `instructions`, `tools`, `closing` (the closing tool with its `finish` rule and `confirm` lines,
//! by language in `confirm_in`), `saves`, `replies`, `assign` and `next` (a step, or routes chosen
//! from the closing tool's result). The model reads `system_prompt` in every step, then the step's
//! instructions. The flow is built and checked with the file ([`crate::flow::Flow::build`]):
//! unknown steps, tools and State values, a step no path reaches, a closing tool missing from its
//! step, a precheck outcome its finish rule would take — each problem on its line, with its fix.
//! [`AgentSetup::flow`] holds the built flow; [`AgentSetup::conductor`] gives each call its own run
//! of it.
//!
//! ```
//! use hark_agent::agent_file::{AgentFile, Host};
//! use hark_tools::{ToolError, ToolSpec};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Booking {
//!     /// How many people come.
//!     party: u8,
//! }
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Booked {
//!     reference: String,
//! }
//! let book = ToolSpec::local("book_table", "Book a table.", |b: Booking| async move {
//!     Ok::<_, ToolError>(Booked { reference: format!("B-{}", b.party) })
//! })?;
//! let host = Host::new().with_local_tool(book);
//!
//! let text = r#"
//! system_prompt = "You take table bookings for Bistro Lumen."
//!
//! [state.party]
//! type = "integer"
//!
//! [tools]
//! builtin = ["end_call"]
//! local = ["book_table"]
//!
//! [flow]
//! first = "booking"
//!
//! [[flow.steps]]
//! name = "booking"
//! instructions = "Ask how many people come, then call book_table."
//! tools = ["book_table"]
//! saves = ["party"]                    # saved from book_table's party on the caller's yes
//! next = "goodbye"
//!
//! [flow.steps.closing]
//! tool = "book_table"
//! confirm = ["A table for {{party}}. Shall I book it?"]
//! confirm_in.es = ["Una mesa para {{party}}. ¿La reservo?"]
//! finish = {}                          # result field → values that end it; {}: any success
//!
//! [[flow.steps]]
//! name = "goodbye"
//! instructions = "Say goodbye, then call end_call."
//! tools = ["end_call"]
//! "#;
//! let agent = text.parse::<AgentFile>()?.build(&host)?;
//! let flow = agent.flow.as_ref().expect("a flow");
//! assert_eq!(flow.step_names(), ["booking", "goodbye"]);
//! let _policy = agent.conductor().expect("one run of the flow per call");
//!
//! // A closing tool its step does not offer: the problem names its line and the fix.
//! let broken = text.replace("tools = [\"book_table\"]", "tools = []");
//! let problems = broken.parse::<AgentFile>()?.check(&host);
//! assert_eq!(
//!     problems[0].to_string(),
//!     "line 21: error: [flow] step booking: its closing tool book_table is not in its tools. \
//!      Add book_table to the step's tools."
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod build;
mod call_values;
mod dialect_check;
mod fields;
mod flow;
mod host;
mod languages;
pub mod messages;
mod placeholders;
mod problem;
mod registry_lines;
mod speech;
pub mod toml_shape;
mod typed_inputs;
mod webhook;
mod wrong_type;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use hark_llm::Provider;
use hark_tools::{StateModel, ToolRegistry};

use crate::Conductor;
use crate::flow::{ClassifierJudge, FallbackJudge, Flow};

pub use call_values::SERVE_CALL_VALUES;
pub use host::Host;
pub use problem::{FileProblems, Problem, Severity};
pub use speech::{SttChoice, TtsChoice};
pub use toml_shape::{FileFormat, ProviderKind, SttProviderKind, TtsProviderKind};

/// A parsed agent file: its TOML read into [`FileFormat`], and the text (for line numbers).
#[derive(Debug, Clone)]
pub struct AgentFile {
    path: Option<PathBuf>,
    text: String,
    format: FileFormat,
}

impl AgentFile {
    /// Reads and parses the file at `path`.
    ///
    /// # Errors
    /// One problem: the file cannot be read, or its TOML does not parse or has a key, a type or
    /// a value the format does not have (naming it and its line).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, FileProblems> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| FileProblems {
            problems: vec![Problem::error(
                None,
                messages::unreadable(&path.display().to_string(), &e.to_string()),
            )],
        })?;
        let mut file = Self::parse(text)?;
        file.path = Some(path.to_path_buf());
        Ok(file)
    }

    fn parse(text: String) -> Result<Self, FileProblems> {
        match toml::from_str::<FileFormat>(&text) {
            Ok(format) => Ok(Self {
                path: None,
                text,
                format,
            }),
            Err(error) => {
                let start = error.span().map(|span| span.start);
                let line = start.map(|start| problem::line_of(&text, start));
                let said = start
                    .and_then(|start| wrong_type::rewrite(&text, error.message(), start))
                    .unwrap_or_else(|| messages::parse_error(error.message()));
                Err(FileProblems {
                    problems: vec![Problem::error(line, said)],
                })
            }
        }
    }

    /// The file as parsed.
    pub fn format(&self) -> &FileFormat {
        &self.format
    }

    /// The path it was loaded from.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The 1-based line of a byte offset of the text.
    pub fn line_at(&self, offset: usize) -> usize {
        problem::line_of(&self.text, offset)
    }

    /// The name when the file sets none: its file stem, else `agent`.
    fn default_name(&self) -> String {
        self.path
            .as_deref()
            .and_then(Path::file_stem)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "agent".to_string())
    }

    /// Builds the agent with the program's `host`: every tool, the registry and its checks, the
    /// State, the LLM and the UI worker's settings. Warnings (an unset key or credential
    /// variable) are in [`AgentSetup::warnings`].
    ///
    /// # Errors
    /// Every problem at once, errors first then warnings (each in file order), naming its line when known and
    /// the fix: the file's own checks (language, timezone, unknown built-in or local tool,
    /// `${NAME}` unset, bad base URL, a key written in the file, field keys of another type)
    /// and the tool layer's (webhook URLs and auth, locked values, announce and reply templates,
    /// assign rows and reply conditions naming unknown tools, result fields or State values).
    /// Each is on the line of the key it is about: a reply's `when` or `state` value on its
    /// condition's line, a `{{result.x}}` on the `say` line holding it, an assign row's State
    /// value on `state` and its result field or type on `from`, a locked value or announce line
    /// on its own line. No problem of a webhook hides another: its URL, auth, locked values,
    /// lines and rows are all checked in one pass.
    pub fn build(&self, host: &Host) -> Result<AgentSetup, FileProblems> {
        build::build(self, host)
    }

    /// Every problem `build` finds, warnings included; empty when the file is clean.
    pub fn check(&self, host: &Host) -> Vec<Problem> {
        match self.build(host) {
            Ok(setup) => setup.warnings,
            Err(found) => found.problems,
        }
    }
}

impl FromStr for AgentFile {
    type Err = FileProblems;

    /// Parses an agent file's text (see [`AgentFile::load`] for the errors).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text.to_string())
    }
}

/// An agent built from a file: what the turn loop of each call needs.
#[derive(Debug, Clone)]
pub struct AgentSetup {
    /// The agent's name (`name`, else the file's stem).
    pub name: String,
    /// The system prompt the voice LLM reads.
    pub system_prompt: String,
    /// The call's BCP 47 language, like `en-US`.
    pub language: String,
    /// The call's IANA timezone, when the file sets one.
    pub timezone: Option<String>,
    /// Every tool (built-in, then local, then webhooks, in file order) with the file's assign
    /// rows and replies, checked against the State. Share it across calls.
    pub registry: Arc<ToolRegistry>,
    /// The State the file declares (empty when it declares none); a call's saves must fit it.
    pub state: StateModel,
    /// The voice LLM, or `None` when the file has no `[llm]` or its key's variable is unset
    /// (then a warning says so, and `hark serve` runs the offline screen mode).
    pub llm: Option<LlmChoice>,
    /// Speech out (`[tts]`), or `None` when the file has none, its key's variable is unset or
    /// espeak-ng is not installed (a warning says so). `hark serve` plays every line with it.
    pub tts: Option<TtsChoice>,
    /// Speech in (`[stt]`), or `None` as for `tts`. `hark serve` hears each session's microphone with it.
    pub stt: Option<SttChoice>,
    /// The UI worker's settings.
    pub ui: UiSettings,
    /// The flow of steps `[flow]` describes, built and checked; `None`: the
    /// plain agent. With a flow, [`AgentSetup::registry`] is the flow's registry (every tool,
    /// with refusal hints that name the steps that confirm or save a value), and each call
    /// runs the flow with its own [`AgentSetup::conductor`].
    pub flow: Option<Arc<Flow>>,
    /// Warnings: the agent runs, without what each names.
    pub warnings: Vec<Problem>,
}

impl AgentSetup {
    /// The conversation's policy for one new call: a fresh run of the file's flow in its first
    /// step ([`Flow::conductor`]), or `None` for the plain agent (then the turn loop's
    /// [`crate::PlainAgent`] over [`AgentSetup::system_prompt`] and [`AgentSetup::registry`]).
    ///
    /// The caller's answers to read-backs are judged by the local yes/no judge; with
    /// `[ui] classifier = "llm"` an answer it is unsure of goes to that LLM classifier
    /// ([`crate::flow::FallbackJudge::with_fallback`]).
    ///
    /// Call it once per call (a run holds where its call is in the flow) and give it to the
    /// call's settings: `AgentSettings::new(…).with_conductor(conductor)`. The steps offer only
    /// the tools they name, so per-session tools added to the registry (the screen tools) are
    /// not offered inside a flow.
    pub fn conductor(&self) -> Option<Arc<dyn Conductor>> {
        let flow = self.flow.as_ref()?;
        let mut run = flow.conductor();
        if let ClassifierChoice::Llm(choice) = &self.ui.classifier {
            let classifier = Arc::new(hark_classify::LlmClassifier::new(
                choice.provider.clone(),
                choice.model.clone(),
            ));
            run = run.with_judge(FallbackJudge::with_fallback(Arc::new(
                ClassifierJudge::new(classifier),
            )));
        }
        Some(Arc::new(run))
    }
}

/// A provider and the model to ask.
#[derive(Debug, Clone)]
pub struct LlmChoice {
    /// The client (its key read from the environment when the file was built).
    pub provider: Arc<dyn Provider>,
    /// The model name.
    pub model: String,
    /// Which API the provider speaks (for its tool schema dialect).
    pub kind: ProviderKind,
}

/// The UI worker's settings (`[ui]`).
#[derive(Debug, Clone)]
pub struct UiSettings {
    /// Run a UI worker beside the voice agent (default `true`).
    pub worker: bool,
    /// The classifier its `screen` job uses.
    pub classifier: ClassifierChoice,
    /// `[ui] system_prompt`: the instructions of the worker's LLM in its `respond` jobs (the
    /// prompt guide is appended); `None`: none of the file's own.
    pub system_prompt: Option<String>,
    /// `[ui] keep_history`: the worker's context accumulates across `respond` jobs; `false`
    /// (the default) clears it at the start of every job.
    pub keep_history: bool,
}

/// The classifier of the UI worker's `screen` job.
#[derive(Debug, Clone)]
pub enum ClassifierChoice {
    /// The local classifier (hark-classify's, no network).
    Local,
    /// An LLM classifier over this provider and model.
    Llm(LlmChoice),
}
