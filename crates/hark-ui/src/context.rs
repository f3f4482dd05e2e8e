//! Context injection rules of the UI worker (as pipecat's), as pure functions over a minimal
//! message list.
//!
//! The LLM crate does not exist yet, so the context is a plain `Vec<ContextMessage>`; the rules:
//! - a UI event is appended as a `developer` message `<ui_event …>` **before** its handler runs
//!   ([`UiContext::on_ui_event`]), unless `inject_events` is off;
//! - `<ui_state>` is appended as a `developer` message right before an inference **only when the
//!   last message is the user's** ([`UiContext::before_inference`]), so a tool round does not
//!   repeat it; unless `auto_inject_ui_state` is off ([`UiContext::inject_ui_state`] is the
//!   manual way);
//! - a `respond` job clears the history first unless `keep_history` ([`UiContext::start_turn`]);
//! - the `prompt_guide` is appended to the system instruction, which is kept apart from the
//!   history and so survives every reset ([`compose_system_instruction`]).

use std::sync::{Arc, LazyLock, Mutex};

use crate::messages;

/// Who wrote a context message (the OpenAI-style roles the UI worker uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The system instruction.
    System,
    /// Programmatic context: `<ui_state>` and `<ui_event>` blocks.
    Developer,
    /// The user's turn (a `respond` job's query).
    User,
    /// The model's reply.
    Assistant,
    /// A tool result.
    Tool,
}

/// One message of the UI worker's LLM context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextMessage {
    /// Who wrote it.
    pub role: Role,
    /// The text.
    pub content: String,
}

impl ContextMessage {
    /// A message with `role` and `content`.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        ContextMessage {
            role,
            content: content.into(),
        }
    }
}

/// The worker's context options, pipecat's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiContextOptions {
    /// Append each UI event as a `<ui_event>` developer message. Default `true`.
    pub inject_events: bool,
    /// Append the latest `<ui_state>` before every inference that starts a user turn.
    /// Default `true`.
    pub auto_inject_ui_state: bool,
    /// Keep the history across `respond` jobs; `false` (default) clears it at each job.
    pub keep_history: bool,
    /// Guide appended to the system instruction; default [`messages::ui_state_prompt_guide`];
    /// `None` or `""` disables it. Shared (`Arc<str>`): every session's options and context hold
    /// the same text, not a copy (memory per idle session); set it with
    /// `Some("…".into())`.
    pub prompt_guide: Option<Arc<str>>,
}

/// The default prompt guide, allocated once per process and shared by every default options.
static DEFAULT_GUIDE: LazyLock<Arc<str>> =
    LazyLock::new(|| Arc::from(messages::ui_state_prompt_guide()));

impl Default for UiContextOptions {
    fn default() -> Self {
        UiContextOptions {
            inject_events: true,
            auto_inject_ui_state: true,
            keep_history: false,
            prompt_guide: Some(DEFAULT_GUIDE.clone()),
        }
    }
}

/// The system instruction the LLM sees: `base`, a blank line, then `prompt_guide` (pipecat's
/// `append_system_instruction` joins with `"\n\n"`). Either part may be missing or empty;
/// `None` when both are.
pub fn compose_system_instruction(
    base: Option<&str>,
    prompt_guide: Option<&str>,
) -> Option<String> {
    let base = base.filter(|s| !s.is_empty());
    let guide = prompt_guide.filter(|s| !s.is_empty());
    match (base, guide) {
        (Some(b), Some(g)) => Some(format!("{b}\n\n{g}")),
        (Some(b), None) => Some(b.to_string()),
        (None, Some(g)) => Some(g.to_string()),
        (None, None) => None,
    }
}

/// How many composed system instructions [`shared_system_instruction`] keeps (one per server
/// factory or agent in practice; the oldest goes first).
const SHARED_SYSTEMS: usize = 8;

/// Composed system instructions already built, shared by every context that asks for the same
/// text (each session used to hold its own ~2.5 KiB copy).
static SYSTEMS: Mutex<Vec<Arc<str>>> = Mutex::new(Vec::new());

/// True when `text` is what [`compose_system_instruction`] makes of the non-empty parts.
fn is_composition(text: &str, base: Option<&str>, guide: Option<&str>) -> bool {
    match (base, guide) {
        (Some(b), Some(g)) => {
            text.len() == b.len() + 2 + g.len()
                && text.starts_with(b)
                && text[b.len()..].starts_with("\n\n")
                && text.ends_with(g)
        }
        (Some(only), None) | (None, Some(only)) => text == only,
        (None, None) => false,
    }
}

/// [`compose_system_instruction`] as a shared text: with no base, the guide itself (no copy);
/// otherwise a composition built once per process and handed out to every context with the
/// same base and guide (the last [`SHARED_SYSTEMS`] distinct ones are kept). The text is
/// byte-identical to [`compose_system_instruction`]'s.
pub fn shared_system_instruction(
    base: Option<&str>,
    prompt_guide: Option<&Arc<str>>,
) -> Option<Arc<str>> {
    let base = base.filter(|s| !s.is_empty());
    let guide = prompt_guide.filter(|s| !s.is_empty());
    match (base, guide) {
        (None, None) => None,
        (None, Some(g)) => Some(g.clone()),
        (Some(b), g) => {
            let g = g.map(|g| &**g);
            let mut systems = SYSTEMS.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(found) = systems.iter().find(|t| is_composition(t, Some(b), g)) {
                return Some(found.clone());
            }
            let text: Arc<str> = Arc::from(compose_system_instruction(Some(b), g)?);
            if systems.len() >= SHARED_SYSTEMS {
                systems.remove(0);
            }
            systems.push(text.clone());
            Some(text)
        }
    }
}

/// Whether the last message is the user's: the only time `<ui_state>` is auto-injected.
pub fn is_user_turn(messages: &[ContextMessage]) -> bool {
    messages.last().is_some_and(|m| m.role == Role::User)
}

/// The message to append before an inference: `Some(developer <ui_state>)` when
/// `auto_inject_ui_state` is on, the last message is the user's and `ui_state` is non-empty.
pub fn ui_state_before_inference(
    options: &UiContextOptions,
    messages: &[ContextMessage],
    ui_state: &str,
) -> Option<ContextMessage> {
    (options.auto_inject_ui_state && is_user_turn(messages) && !ui_state.is_empty())
        .then(|| ContextMessage::new(Role::Developer, ui_state))
}

/// The message to append for a UI event: `Some(developer <ui_event>)` when `inject_events` is on
/// and the rendering is non-empty.
pub fn ui_event_message(
    options: &UiContextOptions,
    rendered_event: &str,
) -> Option<ContextMessage> {
    (options.inject_events && !rendered_event.is_empty())
        .then(|| ContextMessage::new(Role::Developer, rendered_event))
}

/// A UI worker's LLM context: a durable system instruction plus the mutable history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiContext {
    options: UiContextOptions,
    system: Option<Arc<str>>,
    messages: Vec<ContextMessage>,
}

impl UiContext {
    /// A context whose system instruction is `base_instruction` with the options' prompt guide
    /// appended. The text is shared with every context of the same base and guide
    /// ([`shared_system_instruction`]), not copied.
    pub fn new(options: UiContextOptions, base_instruction: Option<&str>) -> Self {
        let system = shared_system_instruction(base_instruction, options.prompt_guide.as_ref());
        UiContext {
            options,
            system,
            messages: Vec::new(),
        }
    }

    /// The options.
    pub fn options(&self) -> &UiContextOptions {
        &self.options
    }

    /// The system instruction (base + guide); never touched by resets.
    pub fn system_instruction(&self) -> Option<&str> {
        self.system.as_deref()
    }

    /// The history, oldest first (without the system instruction).
    pub fn messages(&self) -> &[ContextMessage] {
        &self.messages
    }

    /// Appends any message (a reply, a tool result, …).
    pub fn push(&mut self, message: ContextMessage) {
        self.messages.push(message);
    }

    /// The full request: the system instruction (as a `system` message) then the history.
    pub fn request_messages(&self) -> Vec<ContextMessage> {
        let mut out = Vec::with_capacity(self.messages.len() + 1);
        if let Some(s) = &self.system {
            out.push(ContextMessage::new(Role::System, &**s));
        }
        out.extend(self.messages.iter().cloned());
        out
    }

    /// Records a UI event **before** its handler runs: appends the developer `<ui_event>`
    /// message when `inject_events` is on. Returns whether a message was appended.
    pub fn on_ui_event(&mut self, rendered_event: &str) -> bool {
        match ui_event_message(&self.options, rendered_event) {
            Some(m) => {
                self.messages.push(m);
                true
            }
            None => false,
        }
    }

    /// Starts a `respond` turn: clears the history unless `keep_history`, then appends the query
    /// as the `user` message.
    pub fn start_turn(&mut self, query: &str) {
        if !self.options.keep_history {
            self.messages.clear();
        }
        self.messages.push(ContextMessage::new(Role::User, query));
    }

    /// Called right before each inference: appends `<ui_state>` (the caller renders it from the
    /// latest snapshot) when the rules say so. Returns whether it was appended.
    pub fn before_inference(&mut self, ui_state: &str) -> bool {
        match ui_state_before_inference(&self.options, &self.messages, ui_state) {
            Some(m) => {
                self.messages.push(m);
                true
            }
            None => false,
        }
    }

    /// Manual injection (`inject_ui_state`): appends `<ui_state>` whatever the last message;
    /// no-op for an empty rendering (no snapshot yet).
    pub fn inject_ui_state(&mut self, ui_state: &str) -> bool {
        if ui_state.is_empty() {
            return false;
        }
        self.messages
            .push(ContextMessage::new(Role::Developer, ui_state));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = "<ui_state>\n- generic [ref=e1]\n</ui_state>";
    const EVENT: &str = "<ui_event name=\"nav_click\">{\"view\": \"home\"}</ui_event>";

    #[test]
    fn ui_state_only_when_the_last_message_is_the_users() {
        let mut ctx = UiContext::new(UiContextOptions::default(), Some("Be brief."));
        assert!(!ctx.before_inference(STATE), "empty history: no user turn");
        ctx.start_turn("what is on screen?");
        assert!(ctx.before_inference(STATE));
        assert_eq!(
            ctx.messages()[1],
            ContextMessage::new(Role::Developer, STATE)
        );
        // The tool round: assistant tool call + tool result, then a second inference.
        ctx.push(ContextMessage::new(Role::Assistant, "calling a tool"));
        ctx.push(ContextMessage::new(Role::Tool, "{}"));
        assert!(
            !ctx.before_inference(STATE),
            "no second <ui_state> after a tool result"
        );
        assert_eq!(
            ctx.messages().iter().filter(|m| m.content == STATE).count(),
            1
        );
        assert!(
            !ctx.before_inference(""),
            "nothing when there is no snapshot"
        );
    }

    #[test]
    fn auto_inject_off_leaves_it_to_inject_ui_state() {
        let opts = UiContextOptions {
            auto_inject_ui_state: false,
            ..Default::default()
        };
        let mut ctx = UiContext::new(opts, None);
        ctx.start_turn("q");
        assert!(!ctx.before_inference(STATE));
        assert!(ctx.inject_ui_state(STATE));
        assert!(!ctx.inject_ui_state(""));
        assert_eq!(ctx.messages().len(), 2);
    }

    #[test]
    fn events_are_developer_messages_unless_disabled() {
        let mut ctx = UiContext::new(UiContextOptions::default(), None);
        assert!(ctx.on_ui_event(EVENT));
        assert_eq!(
            ctx.messages(),
            &[ContextMessage::new(Role::Developer, EVENT)]
        );
        let mut off = UiContext::new(
            UiContextOptions {
                inject_events: false,
                ..Default::default()
            },
            None,
        );
        assert!(!off.on_ui_event(EVENT));
        assert!(off.messages().is_empty());
    }

    #[test]
    fn history_is_cleared_per_job_unless_kept_and_the_guide_survives() {
        let guide = messages::ui_state_prompt_guide();
        let mut ctx = UiContext::new(UiContextOptions::default(), Some("Be brief."));
        let system = format!("Be brief.\n\n{guide}");
        assert_eq!(ctx.system_instruction(), Some(system.as_str()));
        ctx.start_turn("first");
        ctx.push(ContextMessage::new(Role::Assistant, "answer"));
        ctx.start_turn("second");
        assert_eq!(ctx.messages(), &[ContextMessage::new(Role::User, "second")]);
        assert_eq!(ctx.system_instruction(), Some(system.as_str()));
        assert_eq!(
            ctx.request_messages()[0],
            ContextMessage::new(Role::System, system.clone())
        );

        let mut kept = UiContext::new(
            UiContextOptions {
                keep_history: true,
                ..Default::default()
            },
            None,
        );
        kept.start_turn("first");
        kept.push(ContextMessage::new(Role::Assistant, "answer"));
        kept.start_turn("the next one");
        assert_eq!(kept.messages().len(), 3);
        assert_eq!(kept.system_instruction(), Some(guide));
    }

    #[test]
    fn the_guide_and_the_composed_instruction_are_shared_not_copied() {
        let a = UiContextOptions::default();
        let b = UiContextOptions::default();
        let (Some(ga), Some(gb)) = (&a.prompt_guide, &b.prompt_guide) else {
            panic!("the default options have a guide");
        };
        assert!(Arc::ptr_eq(ga, gb));
        assert_eq!(&**ga, messages::ui_state_prompt_guide());

        let plain = UiContext::new(a.clone(), None);
        assert!(Arc::ptr_eq(plain.system.as_ref().unwrap(), ga));

        let base = "Answer in the caller's language (shared test).";
        let one = UiContext::new(a, Some(base));
        let two = UiContext::new(b, Some(base));
        let (s1, s2) = (one.system.as_ref().unwrap(), two.system.as_ref().unwrap());
        assert!(Arc::ptr_eq(s1, s2));
        let composed =
            compose_system_instruction(Some(base), Some(messages::ui_state_prompt_guide()));
        assert_eq!(Some(&**s1), composed.as_deref());
        let other = UiContext::new(
            UiContextOptions::default(),
            Some("Another base (shared test)."),
        );
        assert_eq!(
            other.system_instruction(),
            Some(
                format!(
                    "Another base (shared test).\n\n{}",
                    messages::ui_state_prompt_guide()
                )
                .as_str()
            )
        );
    }

    #[test]
    fn is_composition_matches_only_the_exact_text() {
        assert!(is_composition("B\n\nG", Some("B"), Some("G")));
        assert!(!is_composition("B\n G", Some("B"), Some("G")));
        assert!(!is_composition("BX\n\nG", Some("B"), Some("G")));
        assert!(is_composition("B", Some("B"), None));
        assert!(!is_composition("B\n\nG", Some("B"), None));
    }

    #[test]
    fn prompt_guide_can_be_replaced_or_disabled() {
        let custom = UiContextOptions {
            prompt_guide: Some("GUIDE".into()),
            ..Default::default()
        };
        assert_eq!(
            UiContext::new(custom, Some("Base")).system_instruction(),
            Some("Base\n\nGUIDE")
        );
        let none = UiContextOptions {
            prompt_guide: None,
            ..Default::default()
        };
        assert_eq!(
            UiContext::new(none.clone(), Some("Base")).system_instruction(),
            Some("Base")
        );
        assert_eq!(UiContext::new(none, None).system_instruction(), None);
        let empty = UiContextOptions {
            prompt_guide: Some("".into()),
            ..Default::default()
        };
        assert_eq!(
            UiContext::new(empty, Some("Base")).system_instruction(),
            Some("Base")
        );
    }
}
