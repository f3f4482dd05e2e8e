//! Context injection rules of the UI worker (ui-worker.md "Configuration"; rtvi-ui.md §4
//! "Injection rules"), as pure functions over a minimal message list.
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

/// The worker's context options (ui-worker.md "Configuration"), pipecat's defaults.
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
    /// `None` or `""` disables it.
    pub prompt_guide: Option<String>,
}

impl Default for UiContextOptions {
    fn default() -> Self {
        UiContextOptions {
            inject_events: true,
            auto_inject_ui_state: true,
            keep_history: false,
            prompt_guide: Some(messages::ui_state_prompt_guide().to_string()),
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
    system: Option<String>,
    messages: Vec<ContextMessage>,
}

impl UiContext {
    /// A context whose system instruction is `base_instruction` with the options' prompt guide
    /// appended.
    pub fn new(options: UiContextOptions, base_instruction: Option<&str>) -> Self {
        let system = compose_system_instruction(base_instruction, options.prompt_guide.as_deref());
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
            out.push(ContextMessage::new(Role::System, s.clone()));
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
            prompt_guide: Some(String::new()),
            ..Default::default()
        };
        assert_eq!(
            UiContext::new(empty, Some("Base")).system_instruction(),
            Some("Base")
        );
    }
}
