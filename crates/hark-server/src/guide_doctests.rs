//! The user guide (`docs/guide/`), run as doctests so no example in it can drift from the code.
//!
//! Each page is the documentation of one item below; `cargo test -p hark-server --doc` compiles
//! and runs every `rust` block of every page. `tests/guide.rs` checks that every page with a
//! `rust` block is included here.

/// docs/guide/first-tool.md
#[doc = include_str!("../../../docs/guide/first-tool.md")]
pub struct FirstTool;

/// docs/guide/inputs-and-outputs.md
#[doc = include_str!("../../../docs/guide/inputs-and-outputs.md")]
pub struct InputsAndOutputs;

/// docs/guide/results-the-model-does-not-read.md
#[doc = include_str!("../../../docs/guide/results-the-model-does-not-read.md")]
pub struct ResultsTheModelDoesNotRead;

/// docs/guide/refusals.md
#[doc = include_str!("../../../docs/guide/refusals.md")]
pub struct Refusals;

/// docs/guide/announce-lines.md
#[doc = include_str!("../../../docs/guide/announce-lines.md")]
pub struct AnnounceLines;

/// docs/guide/interruptions.md
#[doc = include_str!("../../../docs/guide/interruptions.md")]
pub struct Interruptions;

/// docs/guide/ending-the-call.md
#[doc = include_str!("../../../docs/guide/ending-the-call.md")]
pub struct EndingTheCall;

/// docs/guide/replies-and-assign.md
#[doc = include_str!("../../../docs/guide/replies-and-assign.md")]
pub struct RepliesAndAssign;

/// docs/guide/prechecks.md
#[doc = include_str!("../../../docs/guide/prechecks.md")]
pub struct Prechecks;

/// docs/guide/locked-values-and-transcript.md
#[doc = include_str!("../../../docs/guide/locked-values-and-transcript.md")]
pub struct LockedValuesAndTranscript;

/// docs/guide/webhooks.md
#[doc = include_str!("../../../docs/guide/webhooks.md")]
pub struct Webhooks;

/// docs/guide/built-in-tools.md
#[doc = include_str!("../../../docs/guide/built-in-tools.md")]
pub struct BuiltInTools;

/// docs/guide/sinks-and-hooks.md
#[doc = include_str!("../../../docs/guide/sinks-and-hooks.md")]
pub struct SinksAndHooks;

/// docs/guide/providers-and-schema-dialects.md
#[doc = include_str!("../../../docs/guide/providers-and-schema-dialects.md")]
pub struct ProvidersAndSchemaDialects;

/// docs/guide/troubleshooting/does-not-fit.md
#[doc = include_str!("../../../docs/guide/troubleshooting/does-not-fit.md")]
pub struct TroubleshootingDoesNotFit;

/// docs/guide/troubleshooting/refused-and-nothing-said.md
#[doc = include_str!("../../../docs/guide/troubleshooting/refused-and-nothing-said.md")]
pub struct TroubleshootingRefusedAndNothingSaid;

/// docs/guide/troubleshooting/could-not-authenticate.md
#[doc = include_str!("../../../docs/guide/troubleshooting/could-not-authenticate.md")]
pub struct TroubleshootingCouldNotAuthenticate;

/// docs/guide/troubleshooting/webhook-to-localhost-refused.md
#[doc = include_str!("../../../docs/guide/troubleshooting/webhook-to-localhost-refused.md")]
pub struct TroubleshootingWebhookToLocalhostRefused;

/// docs/guide/troubleshooting/schema-provider-rejects.md
#[doc = include_str!("../../../docs/guide/troubleshooting/schema-provider-rejects.md")]
pub struct TroubleshootingSchemaProviderRejects;

/// docs/guide/troubleshooting/bot-repeating-itself.md
#[doc = include_str!("../../../docs/guide/troubleshooting/bot-repeating-itself.md")]
pub struct TroubleshootingBotRepeatingItself;

/// docs/guide/troubleshooting/tool-keeps-running-after-hangup.md
#[doc = include_str!("../../../docs/guide/troubleshooting/tool-keeps-running-after-hangup.md")]
pub struct TroubleshootingToolKeepsRunningAfterHangup;

/// docs/guide/troubleshooting/ui-worker-wrong-element.md
#[doc = include_str!("../../../docs/guide/troubleshooting/ui-worker-wrong-element.md")]
pub struct TroubleshootingUiWorkerWrongElement;

/// docs/guide/agent-files.md
#[doc = include_str!("../../../docs/guide/agent-files.md")]
pub struct AgentFiles;

/// docs/guide/flows.md
#[doc = include_str!("../../../docs/guide/flows.md")]
pub struct Flows;

/// docs/guide/ui-worker.md
#[doc = include_str!("../../../docs/guide/ui-worker.md")]
pub struct UiWorker;

/// docs/guide/classifiers.md
#[doc = include_str!("../../../docs/guide/classifiers.md")]
pub struct Classifiers;

/// docs/guide/behind-a-proxy.md
#[doc = include_str!("../../../docs/guide/behind-a-proxy.md")]
pub struct BehindAProxy;

/// docs/guide/custom-client.md
#[doc = include_str!("../../../docs/guide/custom-client.md")]
pub struct CustomClient;

/// docs/guide/agent-file-reference.md
#[doc = include_str!("../../../docs/guide/agent-file-reference.md")]
pub struct AgentFileReference;
