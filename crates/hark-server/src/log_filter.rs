//! The `hark` binary's log filter: `--log` / `RUST_LOG` as given, with the WebSocket library's
//! payload logging held back unless the user names it.
//!
//! At `debug` and `trace`, tungstenite (under axum's WebSocket) logs every frame it reads and
//! writes with its payload (`Received message …`, `received frame … payload: 0x…`): what the
//! caller typed and said would reach the log. Hark's own crates never log those texts at any
//! level. So when the filter enables anything above `info`, [`effective`] adds
//! `tungstenite=info,tokio_tungstenite=info` (more specific than a bare `trace`, so they win),
//! unless a directive of the user's already names one of those targets: `--log
//! trace,tungstenite=trace` turns the library's frame logs on, on purpose. (Those logs then also
//! hold the handshake request of a WebSocket speech provider, Deepgram or Cartesia, with the
//! key in its header: tungstenite traces the request as sent.)

/// Targets whose `debug`/`trace` events carry WebSocket payloads.
pub const PAYLOAD_TARGETS: [&str; 2] = ["tungstenite", "tokio_tungstenite"];

/// The filter to install for the user's `--log` text: `user` itself, plus `<target>=info` for
/// each of [`PAYLOAD_TARGETS`] the user did not name, when some directive enables `debug` or
/// `trace`.
pub fn effective(user: &str) -> String {
    let directives: Vec<&str> = user
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    if !directives.iter().any(|d| above_info(d)) {
        return user.to_owned();
    }
    let mut filter = user.trim().trim_end_matches(',').to_owned();
    for target in PAYLOAD_TARGETS {
        let named = directives
            .iter()
            .any(|d| directive_target(d) == Some(target));
        if !named {
            if !filter.is_empty() {
                filter.push(',');
            }
            filter.push_str(target);
            filter.push_str("=info");
        }
    }
    filter
}

/// The target a directive names (`tungstenite` in `tungstenite::protocol=trace` is
/// `tungstenite`: its first path segment), or `None` for a bare level (`trace`) or a span-only
/// directive (`[span]=debug`).
fn directive_target(directive: &str) -> Option<&str> {
    let end = directive.find(['[', '=']).unwrap_or(directive.len());
    let target = directive[..end].trim();
    if target.is_empty() || (end == directive.len() && is_level(target)) {
        return None;
    }
    Some(target.split("::").next().unwrap_or(target))
}

/// Whether the directive's level is `debug` or `trace` (a bare `debug`, `x=trace`, `5`).
fn above_info(directive: &str) -> bool {
    let level = match directive.rfind('=') {
        Some(i) if !directive[i..].contains(']') => &directive[i + 1..],
        // `target` alone means every level of it.
        None if !is_level(directive) => return true,
        _ => directive,
    };
    matches!(
        level.trim().to_ascii_lowercase().as_str(),
        "debug" | "trace" | "4" | "5"
    )
}

fn is_level(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "off" | "error" | "warn" | "info" | "debug" | "trace" | "0" | "1" | "2" | "3" | "4" | "5"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_trace_hold_the_websocket_payload_logs_back() {
        assert_eq!(
            effective("trace"),
            "trace,tungstenite=info,tokio_tungstenite=info"
        );
        assert_eq!(
            effective("info,hark_server=debug"),
            "info,hark_server=debug,tungstenite=info,tokio_tungstenite=info"
        );
        assert_eq!(
            effective("hyper"),
            "hyper,tungstenite=info,tokio_tungstenite=info"
        );
    }

    #[test]
    fn info_and_quieter_filters_are_left_as_they_are() {
        for f in ["info", "warn", "error,hark_server=info", "off", ""] {
            assert_eq!(effective(f), f);
        }
    }

    #[test]
    fn naming_the_library_turns_its_payload_logs_on() {
        assert_eq!(
            effective("trace,tungstenite=trace"),
            "trace,tungstenite=trace,tokio_tungstenite=info"
        );
        assert_eq!(
            effective("trace,tungstenite::protocol=trace,tokio_tungstenite=debug"),
            "trace,tungstenite::protocol=trace,tokio_tungstenite=debug"
        );
    }
}
