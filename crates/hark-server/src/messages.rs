//! Every sentence the server says to a client, a browser or an operator, in one place.
//!
//! Texts that travel in RTVI messages (`error`, `error-response`, `bot-output`), WebSocket close
//! reasons, the fallback HTML pages and the startup log lines. Each is a function with named
//! inputs; the tests at the bottom pin the words. The wording of `Unsupported type <t>` and
//! `Invalid message: …` belongs to `hark_rtvi` (its `ParseError` Display) and is not repeated here.

use std::path::Path;
use std::time::Duration;

/// The build command for the demo page, as printed in the fallback page and the startup log.
pub const DEMO_BUILD_COMMAND: &str = "npm --prefix web ci && npm --prefix web run build";

/// The plain line a text turn gets while no agent is configured (it says
/// only what is true of this build: no agent, the screen still streams).
///
/// Sent as the text of `bot-llm-text` and `bot-output`.
pub fn no_agent_reply() -> String {
    "This server runs without an agent (none is available in this build), so I cannot answer, \
     but your screen still streams to it."
        .to_owned()
}

/// `d` for people: whole seconds as `30 s`, anything else in milliseconds (`250 ms`).
pub fn duration(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// The close reason (code 1008) when no `client-ready` arrived within `limit` of the upgrade.
pub fn client_ready_timeout(limit: Duration) -> String {
    format!("client-ready not received within {}", duration(limit))
}

/// The close reason (code 1011) when no pong answered a keep-alive ping within `limit`.
pub fn pong_timeout(limit: Duration) -> String {
    format!(
        "No pong within {} of a keep-alive ping: connection presumed dead",
        duration(limit)
    )
}

/// The close reason (code 1011) when one write moved no byte to the client for `after` (the
/// stalled-write window, `--ping-interval` + `--pong-timeout`): the client stopped reading.
pub fn client_not_reading(after: Duration) -> String {
    format!(
        "No byte reached the client for {}: it does not read what the server sends",
        duration(after)
    )
}

/// The close reason (code 1000) after the client's `disconnect-bot`.
pub fn client_disconnected() -> String {
    "Client asked to disconnect".to_owned()
}

/// The close reason when the bot ended the call (a tool call that ends the conversation).
pub fn call_ended() -> String {
    "The call ended".to_owned()
}

/// The `error-response` text for a `ui-cancel-job-group` naming no running job group.
pub fn cancel_unknown_group(job_id: &str) -> String {
    format!(
        "Cannot cancel job group \"{job_id}\": no job group with this id is running \
         (it is unknown or has already finished)."
    )
}

/// The `error-response` text for a `ui-cancel-job-group` naming a group started as not
/// cancellable.
pub fn cancel_not_cancellable(job_id: &str) -> String {
    format!(
        "Cannot cancel job group \"{job_id}\": it was started as not cancellable, so it runs to the end."
    )
}

/// The 403 body for a `/ws` upgrade from an origin that is neither this server's nor allowed.
///
/// `origin` is client input: cut to 200 bytes.
pub fn origin_refused(origin: &str) -> String {
    let mut shown: String = origin.chars().take(200).collect();
    if shown.len() < origin.len() {
        shown.push('…');
    }
    format!(
        "Origin {shown} may not open /ws on this server: only pages served by this server (and \
         clients sending no Origin header) may. To allow it, start hark with \
         --allow-origin {shown} (or HARK_ALLOW_ORIGINS={shown}).\n"
    )
}

/// The `error` text for a WebSocket text frame: RTVI travels in binary protobuf frames.
pub fn text_frame_refused() -> String {
    "Text frames are not supported: send binary frames holding a protobuf pipecat.Frame \
     whose MessageFrame carries the RTVI JSON (as @pipecat-ai/websocket-transport does)."
        .to_owned()
}

/// The close reason for a frame over the size limit (close code 1009).
///
/// A close reason must fit in 123 bytes; this one does for any `limit_bytes` value.
pub fn frame_too_large(limit_bytes: usize) -> String {
    format!("Frame too large: the limit is {limit_bytes} bytes")
}

/// The close reason sent to every open session on SIGINT/SIGTERM (close code 1001).
pub fn shutting_down() -> String {
    "Server shutting down".to_owned()
}

/// The `error-response` text for a `client-message` no handler answers.
pub fn unhandled_client_message(t: &str) -> String {
    format!(
        "No handler answers client-message \"{t}\" on this server. The built-in handler answers \"ping\" only."
    )
}

/// The user turn a `dtmf` message becomes: pipecat's `DTMFAggregator` words (`DTMF: 12#`), so
/// an agent written for a Pipecat phone bot reads keypad input the same way. One message is one
/// entry (client-js sends a typed sequence as one `dtmf`).
pub fn dtmf_user_text(keys: &str) -> String {
    format!("DTMF: {keys}")
}

/// The `error-response` text for an `llm-function-call-result`: Hark runs every tool on the
/// server and never sends `llm-function-call`, so there is no call for the client to answer.
/// Starts with pipecat's `Unsupported type <t>`.
pub fn function_call_result_unsupported() -> String {
    "Unsupported type llm-function-call-result: this server runs every tool itself and never \
     asks the client to run one (it sends no llm-function-call), so there is no call to answer."
        .to_owned()
}

/// The `error-response` text for `raw-audio` / `raw-audio-batch`: Hark takes microphone audio
/// only as binary audio frames. Starts with pipecat's `Unsupported type <t>`.
pub fn audio_unsupported(message_type: &str) -> String {
    format!(
        "Unsupported type {message_type}: send microphone audio as binary pipecat.Frame audio \
         frames (AudioRawFrame, PCM16 mono), as @pipecat-ai/websocket-transport does, to a \
         session whose bot-ready says capabilities.audio_in is true; or send the user's words \
         with send-text."
    )
}

/// The `error` text for a microphone audio frame that cannot be used (sent at most once per
/// repeat window): what was wrong, and that it was dropped.
pub fn audio_frame_dropped(error: &hark_rtvi::audio::AudioFrameError) -> String {
    format!("Audio frame dropped: {error}")
}

/// The `error` text for audio sent to a session that does not hear (no `[stt]` in its agent
/// file, or no agent): said once per repeat window.
pub fn audio_not_heard() -> String {
    "Audio frame dropped: this session does not hear audio (bot-ready says \
     capabilities.audio_in is false; give the agent file an [stt] table for speech in); send \
     the user's words with send-text."
        .to_owned()
}

/// The startup log line when the web directory has no `index.html`.
pub fn web_dir_missing_log(dir: &Path) -> String {
    format!(
        "The demo page is not built: {} has no index.html. Build it with `{DEMO_BUILD_COMMAND}`, \
         or point --web-dir / HARK_WEB_DIR at a built page.",
        dir.display()
    )
}

/// The HTML page `/` answers when the web directory has no `index.html`.
pub fn web_dir_missing_page(dir: &Path) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>hark: demo page not built</title></head>\n\
         <body><h1>The demo page is not built</h1>\n\
         <p>hark looked for <code>index.html</code> in <code>{}</code> and found none.</p>\n\
         <p>Build it from the repository root with:</p>\n<pre>{DEMO_BUILD_COMMAND}</pre>\n\
         <p>then reload this page, or start hark with <code>--web-dir</code> pointing at a built page.\n\
         RTVI is served at <code>/ws</code> either way.</p></body></html>\n",
        html_escape(&dir.display().to_string())
    )
}

/// The HTML page `/` answers when the server runs without `--demo`.
pub fn no_demo_page() -> String {
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>hark</title></head>\n\
     <body><h1>hark</h1><p>This server speaks RTVI over WebSocket at <code>/ws</code> \
     (binary protobuf frames, as @pipecat-ai/websocket-transport sends them).</p>\n\
     <p>Start it with <code>hark serve --demo</code> to serve the demo page here.</p></body></html>\n"
        .to_owned()
}

/// The `error` a session gets (once per episode) when it sends over the message rate:
/// messages over it are dropped.
pub fn message_rate_exceeded(per_sec: u32, burst: u32) -> String {
    format!(
        "Too many messages: this server takes at most {per_sec} a second per session (bursts of \
         {burst}); messages over it are dropped. Send snapshots debounced and wait for answers \
         before sending more."
    )
}

/// The close reason (code 1008) for a client that kept sending over `factor` × the rate for
/// `after`. Fits a close frame (≤ 123 bytes).
pub fn message_flood(per_sec: u32, factor: u32, after: Duration) -> String {
    format!(
        "Message flood: over {} a second for {}; reconnect and send less",
        u64::from(per_sec) * u64::from(factor),
        duration(after)
    )
}

/// The `error-response` text for a `ui-snapshot` message over the byte limit; its tree is not
/// decoded.
pub fn snapshot_too_large(bytes: usize, limit: usize) -> String {
    format!(
        "Snapshot too large: {bytes} bytes, the limit is {limit} bytes. Send a smaller snapshot \
         (fewer nodes, shorter names); @pipecat-ai/client-js caps one at 200 nodes."
    )
}

/// The `error` text for a `ui-event` refused because `limit` event handlers of this session are
/// still running.
pub fn too_many_ui_events(limit: usize) -> String {
    format!(
        "Too many ui-events being handled (limit {limit}); this one was dropped. Wait for the \
         page to settle before sending more."
    )
}

/// The error a model (or requester) reads when a session already has `limit` `job` jobs
/// (`screen`, `respond`) waiting or running.
pub fn too_many_jobs(job: &str, limit: usize) -> String {
    format!("Too many {job} jobs waiting (limit {limit}); wait for one to finish, then ask again.")
}

/// The error a model (or requester) reads when a session's job could not be asked of its
/// worker on the session's Redis channel (`hark serve --bus`): `why` says what was wrong.
pub fn remote_worker_unreachable(worker: &str, job: &str, channel: &str, why: &str) -> String {
    format!(
        "The screen could not be asked: the {job} job found no worker {worker} on Redis channel \
         {channel} ({why}). Check that Redis runs and that a {worker} worker (hark worker, or \
         Pipecat's UIWorker) listens on that channel."
    )
}

/// `hark serve --bus` without a session handler that has a UI side.
pub const BUS_NEEDS_AGENT: &str =
    "--bus needs --agent FILE or --demo: only sessions with a UI worker send jobs over the bus";

/// The HTTP 503 body for a `/ws` upgrade when `limit` sessions are already open.
pub fn server_full(limit: usize, retry_after_secs: u64) -> String {
    format!(
        "This server is full: {limit} sessions are open, the most it takes. Retry in \
         {retry_after_secs} s (see Retry-After); the operator can raise --max-connections \
         (HARK_MAX_CONNECTIONS).\n"
    )
}

/// Escapes `&`, `<`, `>` and `"` for HTML text.
fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            other => out.push(other),
        }
    }
    out
}

/// The warning when another runner on a `hark worker`'s channel hosts a worker of the same name
/// (Pipecat warns `Worker 'ui' registered on both …` on its side).
pub fn bus_worker_twin(name: &str, other: &str, channel: &str) -> String {
    format!(
        "another runner ({other}) hosts a worker named {name} on channel {channel}: both answer \
         every job sent to {name}, so each click and each fill happens twice. Run one {name} per \
         channel, or give each worker its own --name."
    )
}

/// `hark worker --respond-model` started without `OPENAI_API_KEY`: said at start, not at the
/// first `respond` job's HTTP 401.
pub fn respond_model_without_key(model: &str, base_url: &str) -> String {
    format!(
        "--respond-model {model}: OPENAI_API_KEY is not set, so respond jobs go to {base_url} \
         without a key, which OpenAI refuses (HTTP 401). Set OPENAI_API_KEY, or point \
         --llm-base-url at a server that needs none."
    )
}

/// A `respond` job sent to a `hark worker` started without `--respond-model`.
pub fn respond_without_model() -> String {
    "this worker answers respond jobs only when started with --respond-model MODEL (an \
     OpenAI-compatible model; key from OPENAI_API_KEY); it serves screen jobs."
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_hark_does_not_act_on_are_answered_in_pipecats_words() {
        assert_eq!(dtmf_user_text("12#"), "DTMF: 12#");
        assert_eq!(
            function_call_result_unsupported(),
            "Unsupported type llm-function-call-result: this server runs every tool itself and \
             never asks the client to run one (it sends no llm-function-call), so there is no \
             call to answer."
        );
        assert_eq!(
            audio_unsupported("raw-audio"),
            "Unsupported type raw-audio: send microphone audio as binary pipecat.Frame audio \
             frames (AudioRawFrame, PCM16 mono), as @pipecat-ai/websocket-transport does, to a \
             session whose bot-ready says capabilities.audio_in is true; or send the user's \
             words with send-text."
        );
        assert_eq!(
            audio_not_heard(),
            "Audio frame dropped: this session does not hear audio (bot-ready says \
             capabilities.audio_in is false; give the agent file an [stt] table for speech in); \
             send the user's words with send-text."
        );
    }

    #[test]
    fn build_command_is_the_one_the_issue_names() {
        assert_eq!(
            DEMO_BUILD_COMMAND,
            "npm --prefix web ci && npm --prefix web run build"
        );
        let page = web_dir_missing_page(Path::new("/x/<web>/dist"));
        assert!(page.contains("<pre>npm --prefix web ci && npm --prefix web run build</pre>"));
        assert!(page.contains("/x/&lt;web&gt;/dist"), "{page}");
        let log = web_dir_missing_log(Path::new("/x/web/dist"));
        assert!(log.contains("/x/web/dist has no index.html"));
        assert!(log.contains("npm --prefix web ci && npm --prefix web run build"));
    }

    #[test]
    fn no_agent_line_says_what_is_true() {
        assert_eq!(
            no_agent_reply(),
            "This server runs without an agent (none is available in this build), so I cannot \
             answer, but your screen still streams to it."
        );
        // No advice to use an option that does not exist.
        assert!(!no_agent_reply().contains("Start hark"));
    }

    #[test]
    fn deadline_and_disconnect_reasons() {
        assert_eq!(
            client_ready_timeout(Duration::from_secs(30)),
            "client-ready not received within 30 s"
        );
        assert_eq!(
            client_ready_timeout(Duration::from_millis(250)),
            "client-ready not received within 250 ms"
        );
        assert_eq!(
            pong_timeout(Duration::from_secs(20)),
            "No pong within 20 s of a keep-alive ping: connection presumed dead"
        );
        assert_eq!(
            client_not_reading(Duration::from_secs(31)),
            "No byte reached the client for 31 s: it does not read what the server sends"
        );
        assert_eq!(client_disconnected(), "Client asked to disconnect");
        for reason in [
            client_ready_timeout(Duration::MAX),
            pong_timeout(Duration::MAX),
            client_not_reading(Duration::MAX),
            client_disconnected(),
            call_ended(),
        ] {
            assert!(reason.len() <= 123, "{reason}");
        }
    }

    #[test]
    fn cancel_refusals_name_the_group_and_why() {
        assert_eq!(
            cancel_unknown_group("J9"),
            "Cannot cancel job group \"J9\": no job group with this id is running (it is unknown or has already finished)."
        );
        assert_eq!(
            cancel_not_cancellable("J2"),
            "Cannot cancel job group \"J2\": it was started as not cancellable, so it runs to the end."
        );
    }

    #[test]
    fn origin_refusal_names_the_origin_and_the_flag() {
        let body = origin_refused("http://evil.example");
        assert!(
            body.starts_with("Origin http://evil.example may not open /ws"),
            "{body}"
        );
        assert!(
            body.contains("--allow-origin http://evil.example"),
            "{body}"
        );
        assert!(body.contains("HARK_ALLOW_ORIGINS"), "{body}");
        let long = origin_refused(&"x".repeat(10_000));
        assert!(long.len() < 1000);
    }

    #[test]
    fn close_reasons_fit_a_close_frame() {
        // RFC 6455 §5.5: control frame payload ≤ 125 bytes, 2 of them for the code.
        assert_eq!(
            frame_too_large(1_048_576),
            "Frame too large: the limit is 1048576 bytes"
        );
        assert!(frame_too_large(usize::MAX).len() <= 123);
        assert!(shutting_down().len() <= 123);
    }

    #[test]
    fn limit_texts_name_the_limit_and_what_to_do() {
        assert_eq!(
            message_rate_exceeded(200, 400),
            "Too many messages: this server takes at most 200 a second per session (bursts of \
             400); messages over it are dropped. Send snapshots debounced and wait for answers \
             before sending more."
        );
        assert_eq!(
            message_flood(200, 10, Duration::from_secs(5)),
            "Message flood: over 2000 a second for 5 s; reconnect and send less"
        );
        assert!(message_flood(u32::MAX, u32::MAX, Duration::MAX).len() <= 123);
        assert_eq!(
            snapshot_too_large(600_000, 524_288),
            "Snapshot too large: 600000 bytes, the limit is 524288 bytes. Send a smaller snapshot \
             (fewer nodes, shorter names); @pipecat-ai/client-js caps one at 200 nodes."
        );
        assert_eq!(
            too_many_ui_events(32),
            "Too many ui-events being handled (limit 32); this one was dropped. Wait for the page \
             to settle before sending more."
        );
        assert_eq!(
            too_many_jobs("screen", 8),
            "Too many screen jobs waiting (limit 8); wait for one to finish, then ask again."
        );
        assert_eq!(
            server_full(4096, 5),
            "This server is full: 4096 sessions are open, the most it takes. Retry in 5 s (see \
             Retry-After); the operator can raise --max-connections (HARK_MAX_CONNECTIONS).\n"
        );
    }

    #[test]
    fn frame_errors_say_what_to_send() {
        assert!(text_frame_refused().starts_with("Text frames are not supported"));
        assert!(unhandled_client_message("foo").contains("\"foo\""));
    }
}
