//! The offline screen mode: with no LLM, each user text becomes `screen` jobs and the bot
//! answers in one short sentence made from the jobs' answers.
//!
//! Guide: `docs/guide/ui-worker.md`, "The offline screen mode". One turn ([`OfflineScreen::turn`]):
//!
//! 1. [`parse()`] reads the text: the verb picks the action, the rest is the target
//!    description (and, for fill, the value, kept as written);
//! 2. the intent runs as `screen` jobs through [`ScreenJobs`] — the same path the voice LLM's
//!    `screen` tool takes, so the worker's classifier (the local one in `hark serve --demo`)
//!    picks the element:
//!
//!    | intent | `screen` jobs |
//!    | --- | --- |
//!    | [`Intent::Click`] | `list`, then `click` (a checkbox's is said "ticked"/"unticked") |
//!    | [`Intent::Turn`] (tick/untick/turn on/off/no/toggle …) | `find`, `list`, then `click` only when the box is not in the wanted state ("Gift wrap is already ticked.") |
//!    | [`Intent::Show`] | `scroll_to`, then `highlight` when it was found |
//!    | [`Intent::Fill`] | `fill` with the value, then `list` to say "selected" for a dropdown |
//!    | [`Intent::Check`] | `check` with the question |
//!    | [`Intent::List`] | `list` with the role (or none) |
//!    | [`Intent::Read`] | `find`, then `list` to read the found element's value; about the cart: `list` (the page's cart text, else the count on "Cart (N)") |
//!    | [`Intent::Act`] (no command verb) | `find`, then `list` for its role, then its own action: `click` (button, link, tab, option), `click` (checkbox, switch: "ticked"/"unticked"), `select_text` (a text field: focused, and the user is asked what to type), else `scroll_to` + `highlight`; nothing found: the help |
//!    | [`Intent::Help`], unreadable | `list`, for the help's examples from the page in hand |
//!
//! 3. the answer becomes one sentence from [`crate::messages`] (`offline_*`): "I clicked "Add
//!    to cart".", "I typed "ana@example.com" into "Email".", "Yes, I think so (91% sure).", …
//!    A text no rule reads and that names nothing on the page gets [`messages::offline_help`],
//!    its examples taken from the page in hand. "Not found" names a few
//!    elements on screen (one more `list` job). A failed job is a user sentence by its
//!    [`Failure`] kind; the developer's error text goes to the log and [`ScreenCall::answer`].
//!    The kind is never read from the error text when it is known otherwise: a timeout or an
//!    unreachable worker is seen here, and a failed job's answer carries it as
//!    `{"error": text, "kind": name}` ([`crate::ScreenError::response`]: a
//!    [`ScreenErrorKind::as_str`], which is the classifier's [`ErrorKind::as_str`] for a
//!    classifier failure; [`Failure::from_screen_kind`] words it). Every failure
//!    [`crate::UiWorker::screen`] answers carries one. Only a worker that sends no `kind` (or
//!    one this version does not know) falls back to [`Failure::of`] on the text.
//!
//! The mode says so: [`mode_message`] is the `server-message` a server sends once the client
//! is ready (the demo page shows its `text` in a notice line), and [`messages::offline_mode_notice`]
//! is the log line.
//!
//! ## Example: a turn against a worker with the local classifier
//!
//! ```
//! use std::sync::Arc;
//! use hark_ui::classifier::LocalClassifier;
//! use hark_ui::offline::OfflineScreen;
//! use hark_ui::{A11ySnapshot, UiWorker};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
//! let worker = UiWorker::new("ui", Arc::new(tx)).with_classifier(Arc::new(LocalClassifier::new()));
//! worker.on_snapshot(A11ySnapshot::from_json(r#"{"root":{"ref":"e1","role":"form","children":[
//!     {"ref":"e2","role":"textbox","name":"Name"},
//!     {"ref":"e3","role":"textbox","name":"Email"}]},"captured_at":1}"#)?);
//!
//! let offline = OfflineScreen::new(Arc::new(worker));
//! let turn = offline.turn("type ana@example.com into the email field").await;
//! assert_eq!(turn.sentence, "I typed \"ana@example.com\" into \"Email\".");
//! assert!(rx.try_recv().is_ok(), "set_input_value went to the client");
//! # Ok(()) }
//! ```

pub mod parse;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use hark_rtvi::JobStatus;
use serde_json::{Value, json};

use crate::messages;
use crate::screen::ScreenErrorKind;
use crate::screen_tool::{DEFAULT_SCREEN_TIMEOUT, ScreenJobs};
use hark_bus::JobResponse;
use hark_classify::ErrorKind;

pub use parse::{Intent, parse};

/// The mode's name in [`mode_message`].
pub const MODE: &str = "offline-screen";

/// The `kind` of the [`mode_message`] payload.
pub const MODE_MESSAGE_KIND: &str = "hark-mode";

/// At most this many elements are named in a `list` answer; the rest are counted.
pub const MAX_LISTED: usize = 8;

/// Roles whose content is a value the user typed or picked (read as "holds …").
const INPUT_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "combobox",
    "spinbutton",
    "slider",
    "textarea",
];

/// The `server-message` payload that tells the client this session runs in the offline screen
/// mode: `{"kind": "hark-mode", "mode": "offline-screen", "text": <notice>}`, where `text` is
/// [`messages::offline_mode_notice`]. The demo page shows `text` in its notice line.
pub fn mode_message() -> Value {
    json!({
        "kind": MODE_MESSAGE_KIND,
        "mode": MODE,
        "text": messages::offline_mode_notice(),
    })
}

/// The key of a failed job's answer that names its kind of failure: `{"error": text, "kind":
/// name}`, the name a [`ScreenErrorKind::as_str`] (a classifier failure's is its
/// [`ErrorKind::as_str`]).
pub const KIND_KEY: &str = "kind";

/// The `kind` of a failed job whose command found no snapshot of the screen yet
/// ([`ScreenErrorKind::NoSnapshot`]).
pub const NO_SNAPSHOT_KIND: &str = "no_snapshot";

/// What kind of failure a failed `screen` job was, for the shopper's sentence
/// ([`messages::offline_failed`]); the developer's error text stays in [`ScreenCall::answer`]
/// and the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The job did not answer within the turn's timeout.
    Timeout,
    /// The worker (or its bus) could not be reached.
    Unreachable,
    /// No snapshot of the page has arrived yet.
    NoScreen,
    /// The classifier cannot read the question.
    NotUnderstood,
    /// The worker has no classifier.
    NoClassifier,
    /// Anything else.
    Other,
}

impl Failure {
    /// The shopper-facing kind of a classifier failure.
    pub fn from_kind(kind: ErrorKind) -> Failure {
        match kind {
            ErrorKind::NoClassifier => Failure::NoClassifier,
            ErrorKind::NotUnderstood | ErrorKind::TooManyOptions => Failure::NotUnderstood,
            ErrorKind::Timeout => Failure::Timeout,
            ErrorKind::Unreachable => Failure::Unreachable,
            ErrorKind::BadAnswer | ErrorKind::Other => Failure::Other,
        }
    }

    /// The shopper-facing kind of a failed `screen` job's [`ScreenErrorKind`]: a classifier
    /// failure as [`Failure::from_kind`]; no snapshot yet is [`Failure::NoScreen`]; an ended
    /// session is [`Failure::Unreachable`]; every other kind (an unknown action, a missing
    /// target, a refused ref, a screen that kept changing) is [`Failure::Other`].
    pub fn from_screen_kind(kind: ScreenErrorKind) -> Failure {
        match kind {
            ScreenErrorKind::Classifier(kind) => Failure::from_kind(kind),
            ScreenErrorKind::NoSnapshot => Failure::NoScreen,
            ScreenErrorKind::SessionEnded => Failure::Unreachable,
            ScreenErrorKind::UnknownAction
            | ScreenErrorKind::TargetMissing
            | ScreenErrorKind::StaleRef
            | ScreenErrorKind::EmptyRef
            | ScreenErrorKind::RefNotAString
            | ScreenErrorKind::BadOffsets
            | ScreenErrorKind::HalfOffsets
            | ScreenErrorKind::ScreenChanged
            | ScreenErrorKind::ValueMissing
            | ScreenErrorKind::UnknownRef
            | ScreenErrorKind::NotActionable => Failure::Other,
        }
    }

    /// The kind named by a failed job's [`KIND_KEY`]: a [`ScreenErrorKind`] name (an
    /// [`ErrorKind`] name, [`NO_SNAPSHOT_KIND`], …), worded by [`Failure::from_screen_kind`];
    /// `None` for a name it does not know.
    pub fn from_name(name: &str) -> Option<Failure> {
        ScreenErrorKind::from_name(name).map(Failure::from_screen_kind)
    }

    /// The kind of a failed job's answer (`{"error", "kind"?}`): its [`KIND_KEY`] when it
    /// names a known kind, else read from the error text ([`Failure::of`], for workers that
    /// send no kind).
    pub fn of_response(response: Option<&Value>, error: &str) -> Failure {
        response
            .and_then(|r| r.get(KIND_KEY))
            .and_then(Value::as_str)
            .and_then(Failure::from_name)
            .unwrap_or_else(|| Failure::of(error))
    }

    /// The kind of a failed job's error text (`error` is the worker's or the tool's text):
    /// the fallback for a job answer without a [`KIND_KEY`].
    pub fn of(error: &str) -> Failure {
        let lower = error.to_lowercase();
        if lower.contains("(timeout)") || lower.contains("timed out") {
            Failure::Timeout
        } else if lower.contains("cannot be reached") {
            Failure::Unreachable
        } else if lower.contains("no snapshot") {
            Failure::NoScreen
        } else if lower.contains("cannot read the question") {
            Failure::NotUnderstood
        } else if lower.contains(&messages::no_classifier().to_lowercase()) {
            Failure::NoClassifier
        } else {
            Failure::Other
        }
    }
}

/// A failed job as a turn sees it: the error text and its kind.
#[derive(Debug, Clone, PartialEq)]
struct JobFailure {
    text: String,
    kind: Failure,
}

/// The shopper's sentence for a failed job; the developer text goes to the log.
fn failed(error: &JobFailure) -> String {
    tracing::info!(kind = ?error.kind, error = %error.text, "offline screen job failed");
    messages::offline_failed(error.kind).to_string()
}

/// Roles whose value is picked from a list (answered "I selected …").
const PICK_ROLES: &[&str] = &["combobox", "listbox", "select"];

/// One `screen` job of a turn: the payload sent and the answer (`Err`: the error text of a
/// failed, timed-out or unreachable job).
#[derive(Debug, Clone, PartialEq)]
pub struct ScreenCall {
    /// `{"action", "target"?, "value"?}`.
    pub payload: Value,
    /// The job's answer when it completed, else its error text.
    pub answer: Result<Value, String>,
    /// The kind of failure when the job failed (`None` when it completed).
    pub failure: Option<Failure>,
}

/// What one offline turn did: the intent read (`None`: unreadable), the `screen` jobs in
/// order, and the sentence for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct OfflineTurn {
    /// The parsed intent, `None` when the text could not be read.
    pub intent: Option<Intent>,
    /// The `screen` jobs run, in order.
    pub calls: Vec<ScreenCall>,
    /// The bot's answer: one short sentence.
    pub sentence: String,
}

/// Runs offline turns against a UI worker's `screen` job (in process or over a bus).
#[derive(Clone)]
pub struct OfflineScreen {
    jobs: Arc<dyn ScreenJobs>,
    timeout: Duration,
}

impl fmt::Debug for OfflineScreen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OfflineScreen")
            .field("worker", &self.jobs.worker_name())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl OfflineScreen {
    /// Turns that send their `screen` jobs to `jobs`, waiting at most
    /// [`DEFAULT_SCREEN_TIMEOUT`] (30 s) for each answer.
    pub fn new(jobs: Arc<dyn ScreenJobs>) -> Self {
        OfflineScreen {
            jobs,
            timeout: DEFAULT_SCREEN_TIMEOUT,
        }
    }

    /// The longest wait for one job's answer (builder style).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// One turn: parses `text`, runs its `screen` jobs, and words the answer (see the module
    /// docs). Never fails: every failure is a sentence ([`messages::offline_failed`]) and
    /// never carries the developer's error text.
    pub async fn turn(&self, text: &str) -> OfflineTurn {
        // A text no rule reads names an element: "log me out".
        let intent = parse(text).or_else(|| parse::named(text));
        let mut calls = Vec::new();
        let sentence = match &intent {
            None => self.help(&mut calls).await,
            Some(intent) => self.run(intent, &mut calls).await,
        };
        tracing::debug!(?intent, jobs = calls.len(), %sentence, "offline screen turn");
        OfflineTurn {
            intent,
            calls,
            sentence,
        }
    }

    async fn run(&self, intent: &Intent, calls: &mut Vec<ScreenCall>) -> String {
        match intent {
            Intent::Click { target } => self.click(target, calls).await,
            Intent::Turn { target, on } => self.turn_box(target, *on, calls).await,
            Intent::Show { target } => {
                let payload = json!({"action": "scroll_to", "target": target});
                let shown = |label: &str| label.to_string();
                let found = self.act(payload, target, calls, shown).await;
                let label = calls.last().and_then(|c| done(&c.answer));
                match label {
                    Some(label) => {
                        let payload = json!({"action": "highlight", "target": target});
                        // The element is in view already; a failed flash changes nothing.
                        let _ = self.job(payload, calls).await;
                        messages::offline_shown(&label)
                    }
                    None => found,
                }
            }
            Intent::Fill { target, value } => {
                let payload = json!({"action": "fill", "target": target, "value": value});
                let typed = self
                    .act(payload, target, calls, |label| {
                        messages::offline_filled(value, label)
                    })
                    .await;
                let Some(label) = calls.last().and_then(|c| done(&c.answer)) else {
                    return typed;
                };
                // A dropdown is "selected", not "typed" (a read-only `list`, no command).
                let listed = self
                    .job(json!({"action": "list", "target": ""}), calls)
                    .await;
                let picked = listed.ok().is_some_and(|a| {
                    a["elements"].as_array().into_iter().flatten().any(|e| {
                        e["name"].as_str() == Some(label.as_str())
                            && PICK_ROLES.contains(&e["role"].as_str().unwrap_or(""))
                    })
                });
                if picked {
                    messages::offline_selected(value, &label)
                } else {
                    typed
                }
            }
            Intent::Check { question } => {
                let payload = json!({"action": "check", "target": question});
                match self.job(payload, calls).await {
                    Err(e) => failed(&e),
                    Ok(answer) => {
                        let p = answer["probability"]
                            .as_f64()
                            .unwrap_or(0.0)
                            .clamp(0.0, 1.0);
                        let yes = answer["yes"].as_bool().unwrap_or(p >= 0.5);
                        let sure = if yes { p } else { 1.0 - p };
                        messages::offline_checked(yes, (sure * 100.0).round() as u32)
                    }
                }
            }
            Intent::List { role, one, many } => {
                let payload = json!({"action": "list", "target": role.as_deref().unwrap_or("")});
                match self.job(payload, calls).await {
                    Err(e) => failed(&e),
                    Ok(answer) => {
                        let elements = answer["elements"].as_array().cloned().unwrap_or_default();
                        let shown: Vec<String> =
                            elements.iter().take(MAX_LISTED).map(describe).collect();
                        let more = elements.len() - shown.len();
                        messages::offline_listed(elements.len(), one, many, &shown, more)
                    }
                }
            }
            Intent::Read { target } => self.read(target, calls).await,
            Intent::Act { target } => self.act_named(target, calls).await,
            Intent::Help => self.help(calls).await,
        }
    }

    /// The help text, its examples taken from the page in hand (a read-only `list` job): the
    /// demo shop's items only on the demo shop.
    async fn help(&self, calls: &mut Vec<ScreenCall>) -> String {
        let listed = self
            .job(json!({"action": "list", "target": ""}), calls)
            .await;
        let elements = listed
            .ok()
            .and_then(|a| a["elements"].as_array().cloned())
            .unwrap_or_default();
        messages::offline_help(&help_examples(&elements))
    }

    /// No command verb: `find` the element the text names, then act with its own action by
    /// its role — click a button or link, toggle a checkbox, focus a text field and ask what to
    /// type, show anything else. Nothing found: the help text.
    async fn act_named(&self, target: &str, calls: &mut Vec<ScreenCall>) -> String {
        let found = match self
            .job(json!({"action": "find", "target": target}), calls)
            .await
        {
            Err(e) => return failed(&e),
            Ok(answer) => answer["label"].as_str().map(str::to_string),
        };
        let Some(label) = found else {
            return self.help(calls).await;
        };
        let listed = match self
            .job(json!({"action": "list", "target": ""}), calls)
            .await
        {
            Err(e) => return failed(&e),
            Ok(answer) => answer["elements"].as_array().cloned().unwrap_or_default(),
        };
        let element = element_of(&listed, &label);
        let role = element
            .and_then(|e| e["role"].as_str())
            .unwrap_or("")
            .to_string();
        let role = role.as_str();
        if TOGGLE_ROLES.contains(&role) {
            // "I want email offers": a box wanted ticked; a bare name toggles it.
            let wanted = parse::is_wish(target).then_some(true);
            let was_on = box_state(&listed, &label);
            return self.set_box(target, &label, was_on, wanted, calls).await;
        }
        if messages::TEXT_ENTRY_ROLES.contains(&role) && !PICK_ROLES.contains(&role) {
            // `select_text` focuses a field and selects what it holds: typing replaces it.
            let payload = json!({"action": "select_text", "target": target});
            return self
                .act(payload, target, calls, messages::offline_focused)
                .await;
        }
        if CLICK_ROLES.contains(&role) {
            let payload = json!({"action": "click", "target": target});
            return self
                .act(payload, target, calls, messages::offline_clicked)
                .await;
        }
        // A dropdown, a product row, a heading, a section: bring it into view and flash it.
        let payload = json!({"action": "scroll_to", "target": target});
        let shown = self.act(payload, target, calls, str::to_string).await;
        let Some(label) = calls.last().and_then(|c| done(&c.answer)) else {
            return shown;
        };
        let _ = self
            .job(json!({"action": "highlight", "target": target}), calls)
            .await;
        if PICK_ROLES.contains(&role) {
            messages::offline_shown_pick(&label)
        } else {
            messages::offline_shown(&label)
        }
    }

    /// A `click` request: a read-only `list` first, so a checkbox's click is said "ticked" or
    /// "unticked" by its state before the click (never "clicked").
    async fn click(&self, target: &str, calls: &mut Vec<ScreenCall>) -> String {
        let listed = self
            .job(json!({"action": "list", "target": ""}), calls)
            .await
            .ok()
            .and_then(|a| a["elements"].as_array().cloned())
            .unwrap_or_default();
        let payload = json!({"action": "click", "target": target});
        self.act(payload, target, calls, |label| {
            let role = element_of(&listed, label).and_then(|e| e["role"].as_str());
            if role.is_some_and(|r| TOGGLE_ROLES.contains(&r)) {
                let was_on = box_state(&listed, label);
                messages::offline_toggled(label, was_on.map(|on| !on))
            } else {
                messages::offline_clicked(label)
            }
        })
        .await
    }

    /// A request that says the state a checkbox should be in (`on`; `None`: toggle): `find`,
    /// `list` for its state, then `click` only when it is not in that state already.
    async fn turn_box(
        &self,
        target: &str,
        on: Option<bool>,
        calls: &mut Vec<ScreenCall>,
    ) -> String {
        let found = match self
            .job(json!({"action": "find", "target": target}), calls)
            .await
        {
            Err(e) => return failed(&e),
            Ok(answer) => answer["label"].as_str().map(str::to_string),
        };
        let Some(label) = found else {
            return self.not_found(target, calls).await;
        };
        let listed = match self
            .job(json!({"action": "list", "target": ""}), calls)
            .await
        {
            Err(e) => return failed(&e),
            Ok(answer) => answer["elements"].as_array().cloned().unwrap_or_default(),
        };
        let role = element_of(&listed, &label).and_then(|e| e["role"].as_str());
        if !role.is_some_and(|r| TOGGLE_ROLES.contains(&r)) {
            // "enable notifications" on a button: a click, said as one.
            let payload = json!({"action": "click", "target": target});
            return self
                .act(payload, target, calls, messages::offline_clicked)
                .await;
        }
        let was_on = box_state(&listed, &label);
        self.set_box(target, &label, was_on, on, calls).await
    }

    /// Clicks the box `target` names (labelled `label`, `was_on` its state when known) unless
    /// it is in the `wanted` state already; the answer in ticked/unticked words.
    async fn set_box(
        &self,
        target: &str,
        label: &str,
        was_on: Option<bool>,
        wanted: Option<bool>,
        calls: &mut Vec<ScreenCall>,
    ) -> String {
        if let (Some(was), Some(want)) = (was_on, wanted)
            && was == want
        {
            return messages::offline_already(label, was);
        }
        let payload = json!({"action": "click", "target": target});
        self.act(payload, target, calls, |clicked| {
            // The state after the click: the known one turned over.
            let now = was_on.filter(|_| clicked == label).map(|on| !on);
            messages::offline_toggled(clicked, now)
        })
        .await
    }

    /// An acting job (`click`, `scroll_to`, `fill`): `say(label)` when done, else "not found".
    async fn act(
        &self,
        payload: Value,
        target: &str,
        calls: &mut Vec<ScreenCall>,
        say: impl FnOnce(&str) -> String,
    ) -> String {
        match self.job(payload, calls).await {
            Err(e) => failed(&e),
            Ok(answer) => match done(&Ok(answer)) {
                Some(label) => say(&label),
                None => self.not_found(target, calls).await,
            },
        }
    }

    /// "Not found", naming a few elements that are on screen (a read-only `list` job).
    async fn not_found(&self, target: &str, calls: &mut Vec<ScreenCall>) -> String {
        let listed = self
            .job(json!({"action": "list", "target": ""}), calls)
            .await;
        let elements = listed
            .ok()
            .and_then(|a| a["elements"].as_array().cloned())
            .unwrap_or_default();
        let mut names: Vec<String> = Vec::new();
        for e in &elements {
            let role = e["role"].as_str().unwrap_or("");
            let name = e["name"].as_str().unwrap_or("").trim();
            let offscreen = e["state"]
                .as_array()
                .is_some_and(|s| s.iter().any(|x| x == "offscreen"));
            let acts = [
                "button",
                "link",
                "textbox",
                "searchbox",
                "combobox",
                "checkbox",
            ];
            if acts.contains(&role) && !offscreen && !name.is_empty() {
                let named = format!("\"{name}\"");
                if !names.contains(&named) {
                    names.push(named);
                }
            }
        }
        names.truncate(5);
        messages::offline_not_found(target, &names)
    }

    /// A question about the cart: the page's cart text ("In your cart: …", "Your cart is
    /// empty.") when the tree shows one, else the count on the cart link ("Cart (2)").
    async fn read_cart(&self, calls: &mut Vec<ScreenCall>) -> Option<String> {
        let listed = self
            .job(json!({"action": "list", "target": ""}), calls)
            .await;
        let elements = listed.ok()?["elements"].as_array().cloned()?;
        let names: Vec<&str> = elements.iter().filter_map(|e| e["name"].as_str()).collect();
        if let Some(text) = names.iter().find(|n| {
            let l = n.to_lowercase();
            l.contains("in your cart") || l.contains("your cart is")
        }) {
            return Some(messages::offline_cart_text(text));
        }
        names.iter().find_map(|n| {
            let l = n.trim().to_lowercase();
            let inner = l.strip_prefix("cart (")?.strip_suffix(')')?;
            inner
                .trim()
                .parse::<u64>()
                .ok()
                .map(messages::offline_cart_count)
        })
    }

    /// `find` the element, then `list` to read its value (inputs) or its text (the label).
    async fn read(&self, target: &str, calls: &mut Vec<ScreenCall>) -> String {
        let lower = target.to_lowercase();
        if lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "cart" || w == "basket")
            && let Some(sentence) = self.read_cart(calls).await
        {
            return sentence;
        }
        let found = match self
            .job(json!({"action": "find", "target": target}), calls)
            .await
        {
            Err(e) => return failed(&e),
            Ok(answer) => answer["label"].as_str().map(str::to_string),
        };
        let Some(label) = found else {
            return self.not_found(target, calls).await;
        };
        let listed = match self
            .job(json!({"action": "list", "target": ""}), calls)
            .await
        {
            Err(e) => return failed(&e),
            Ok(answer) => answer["elements"].as_array().cloned().unwrap_or_default(),
        };
        let element = listed
            .iter()
            .find(|e| e["name"].as_str() == Some(label.as_str()));
        match element {
            Some(e) if INPUT_ROLES.contains(&e["role"].as_str().unwrap_or("")) => {
                let value = e["value"].as_str().filter(|v| !v.is_empty());
                messages::offline_holds(&label, value)
            }
            _ => messages::offline_says(&label),
        }
    }

    /// Runs one `screen` job and records it: the answer of a completed job, else the error
    /// text (the same texts the `screen` tool gives the voice LLM) and its kind.
    async fn job(&self, payload: Value, calls: &mut Vec<ScreenCall>) -> Result<Value, JobFailure> {
        let name = self.jobs.worker_name().to_string();
        let fail = |text: String, kind: Failure| JobFailure { text, kind };
        let answer =
            match tokio::time::timeout(self.timeout, self.jobs.screen_job(payload.clone())).await {
                Err(_) => Err(fail(
                    messages::screen_timeout(&name, self.timeout.as_secs_f64()),
                    Failure::Timeout,
                )),
                Ok(Err(detail)) => Err(fail(
                    messages::screen_worker_unreachable(&name, &detail),
                    Failure::Unreachable,
                )),
                Ok(Ok(JobResponse {
                    status: JobStatus::Completed,
                    response,
                })) => Ok(response.unwrap_or_else(|| json!({}))),
                Ok(Ok(JobResponse { status, response })) => {
                    let text = response
                        .as_ref()
                        .and_then(|r| r.get("error"))
                        .and_then(Value::as_str)
                        .filter(|t| !t.trim().is_empty())
                        .map(str::to_string)
                        .unwrap_or_else(|| {
                            let status = serde_json::to_value(status)
                                .ok()
                                .and_then(|v| v.as_str().map(str::to_string))
                                .unwrap_or_default();
                            messages::screen_job_failed(&name, &status)
                        });
                    let kind = Failure::of_response(response.as_ref(), &text);
                    Err(fail(text, kind))
                }
            };
        calls.push(ScreenCall {
            payload,
            answer: answer.clone().map_err(|e| e.text),
            failure: answer.as_ref().err().map(|e| e.kind),
        });
        answer
    }
}

/// Roles whose own action is a click (a link is followed, a button pressed, a tab opened).
const CLICK_ROLES: &[&str] = &["button", "link", "tab", "menuitem", "option", "treeitem"];

/// Roles whose own action is a click that turns them on or off.
const TOGGLE_ROLES: &[&str] = &[
    "checkbox",
    "switch",
    "radio",
    "menuitemcheckbox",
    "menuitemradio",
];

/// The listed element a label names: its name, or its name with the words that tell it apart
/// (`Add to cart (Blue mug)` is an `Add to cart`). Of elements of one name and several roles
/// (a `Sign In` heading and a `Sign In` button), the one that acts: a text field, a checkbox,
/// a button or link, as the `screen` job's actions choose.
fn element_of<'a>(listed: &'a [Value], label: &str) -> Option<&'a Value> {
    let name = |e: &Value| e["name"].as_str().unwrap_or("").to_string();
    let exact: Vec<&Value> = listed.iter().filter(|e| name(e) == label).collect();
    let named = if exact.is_empty() {
        listed
            .iter()
            .filter(|e| {
                let n = name(e);
                !n.is_empty() && label.starts_with(&format!("{n} ("))
            })
            .collect()
    } else {
        exact
    };
    let rank = |e: &&Value| {
        let role = e["role"].as_str().unwrap_or("");
        if messages::TEXT_ENTRY_ROLES.contains(&role) {
            0
        } else if TOGGLE_ROLES.contains(&role) {
            1
        } else if CLICK_ROLES.contains(&role) {
            2
        } else {
            3
        }
    };
    named.into_iter().min_by_key(rank)
}

/// Whether the one listed box of this name is on (`checked` or `pressed`); `None` when no
/// element or several have the name.
fn box_state(listed: &[Value], label: &str) -> Option<bool> {
    element_of(listed, label)
        .filter(|_| unique(listed, label))
        .map(|e| {
            e["state"]
                .as_array()
                .is_some_and(|s| s.iter().any(|t| t == "checked" || t == "pressed"))
        })
}

/// Whether only one listed element has this exact name.
fn unique(listed: &[Value], label: &str) -> bool {
    listed
        .iter()
        .filter(|e| e["name"].as_str() == Some(label))
        .count()
        == 1
}

/// The help text's examples from the elements on the page: a button to click, a link to find,
/// a field to type into, a checkbox to ask about (each the first on screen with a name no
/// other element of its kind has), then `list the buttons`. Every example works on that page.
fn help_examples(elements: &[Value]) -> Vec<String> {
    let name = |e: &Value| e["name"].as_str().unwrap_or("").trim().to_string();
    let has_role = |e: &Value, roles: &[&str]| roles.contains(&e["role"].as_str().unwrap_or(""));
    // Unique among the elements the example's action acts on.
    let count = |n: &str, roles: &[&str]| {
        elements
            .iter()
            .filter(|e| has_role(e, roles) && name(e) == n)
            .count()
    };
    let offscreen = |e: &Value| {
        e["state"]
            .as_array()
            .is_some_and(|s| s.iter().any(|x| x == "offscreen" || x == "disabled"))
    };
    let first = |roles: &[&str], visible: bool| {
        elements
            .iter()
            .filter(|e| has_role(e, roles))
            .filter(|e| !visible || !offscreen(e))
            .map(name)
            .find(|n| !n.is_empty() && !n.contains('"') && count(n, roles) == 1)
    };
    let mut out = Vec::new();
    if let Some(button) = first(&["button"], true) {
        out.push(messages::offline_help_click(&button));
    }
    if let Some(link) = first(&["link"], true) {
        out.push(messages::offline_help_where(&link));
    }
    if let Some(field) = first(&["textbox", "searchbox", "textarea"], true) {
        out.push(messages::offline_help_type(&field));
    }
    if let Some(checkbox) = first(&["checkbox", "switch"], false) {
        out.push(messages::offline_help_check(&checkbox));
    }
    if elements.iter().any(|e| e["role"] == "button") {
        out.push(messages::offline_help_list().to_string());
    }
    out
}

/// The label of an acting job's answer `{"done": true, "label"}`; `None` when not done.
fn done(answer: &Result<Value, String>) -> Option<String> {
    let a = answer.as_ref().ok()?;
    if a["done"].as_bool() != Some(true) {
        return None;
    }
    Some(a["label"].as_str().unwrap_or_default().to_string())
}

/// One listed element for a sentence: its name, then its state tags (not `offscreen`) and its
/// value in parentheses: `Gift wrap (checked)`, `Email ("ana@example.com")`.
fn describe(element: &Value) -> String {
    let name = element["name"].as_str().unwrap_or_default();
    let mut notes: Vec<String> = element["state"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|s| *s != "offscreen")
        .map(str::to_string)
        .collect();
    if let Some(v) = element["value"].as_str().filter(|v| !v.is_empty()) {
        notes.push(format!("\"{v}\""));
    }
    if notes.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", notes.join(", "))
    }
}
