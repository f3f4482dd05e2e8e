//! Every sentence this crate says to the model, the caller or the developer, in one place.
//!
//! They cover URL checks, error answers, GET query clashes, `Authorization` next to `auth`, time
//! and size limits, private addresses, and credentials that could not be read. Texts whose exact
//! words are fixed are pinned by the tests at the bottom; the rest follow the same habit: say what
//! was wrong, then what to do, and end a failed call with "Do not claim success."

/// The size cap, as the texts say it.
pub const CAP_WORDS: &str = hark_tools::bounds::RESULT_CAP_WORDS;

/// Ends every failure the model reads, so it never reports a success.
const NO_SUCCESS: &str = "Do not claim success.";

// ---------------------------------------------------------------- build-time checks (developer)

/// The URL does not parse.
pub fn url_unreadable(tool: &str, reason: &str) -> String {
    format!(
        "{tool}: the URL cannot be read ({reason}). Write a full URL like https://crm.example.com/hooks/booking."
    )
}

/// The scheme is not https (or http with `allow_private_network`).
pub fn url_scheme(tool: &str, scheme: &str) -> String {
    format!(
        "{tool}: the URL scheme is {scheme}. The scheme must be https, or http with allow_private_network."
    )
}

/// The URL has no host.
pub fn url_no_host(tool: &str) -> String {
    format!(
        "{tool}: the URL has no host. The host must be there, like https://crm.example.com/hooks/booking."
    )
}

/// The URL has a user name or password.
pub fn url_user_info(tool: &str) -> String {
    format!(
        "{tool}: the URL carries user info (a name or password before @). Remove it; use auth to send a credential."
    )
}

/// The URL has a fragment.
pub fn url_fragment(tool: &str) -> String {
    format!("{tool}: the URL has a fragment (the part after #). Remove it.")
}

/// The URL port is 0 (the URL parser already refuses ports above 65535).
pub fn url_port(tool: &str, port: u16) -> String {
    format!("{tool}: the URL port {port} is outside 1 to 65535. Use a port from 1 to 65535.")
}

/// The URL's host is an IP address the network guard refuses.
pub fn url_private_host(tool: &str, host: &str, why: &str) -> String {
    format!(
        "{tool}: the URL host {host} is {why}. Webhooks refuse private, loopback and link-local addresses; turn on allow_private_network only for your own internal service."
    )
}

/// A GET tool's input or locked argument is also a query value of the URL.
/// `place` is `"input"` or `"locked"`.
pub fn get_query_clash(tool: &str, place: &str, argument: &str) -> String {
    format!(
        "{tool}: its {place} names {argument}, which is also a query value of the URL. Rename the argument or drop the value from the URL."
    )
}

/// A fixed Authorization header next to `auth`.
pub fn authorization_with_auth(tool: &str, header: &str) -> String {
    format!(
        "{tool}: a fixed {header} header cannot be used with auth: auth sends the credential. Remove the header."
    )
}

/// A header name or value that HTTP cannot carry.
pub fn header_invalid(tool: &str, header: &str) -> String {
    format!(
        "{tool}: the header {header} is not a valid HTTP header name or value. Use letters, digits and - in the name, and no line breaks in the value."
    )
}

/// A header Hark sets itself.
pub fn header_reserved(tool: &str, header: &str) -> String {
    format!("{tool}: the header {header} is set by Hark and cannot be fixed. Remove it.")
}

/// The API key header of `WebhookAuth::api_key` is not a valid header name.
pub fn auth_header_invalid(tool: &str, header: &str) -> String {
    format!(
        "{tool}: the auth header {header} is not a valid HTTP header name. Use letters, digits and -, like X-API-Key."
    )
}

/// The timeout is zero or longer than the maximum.
pub fn timeout_out_of_range(tool: &str, max_seconds: u64) -> String {
    format!(
        "{tool}: timeout must be more than 0 and at most {max_seconds} seconds. Keep the 10 second default unless you have a reason."
    )
}

/// A waiting tool with no output named.
pub fn output_missing(tool: &str) -> String {
    format!("{tool}: name its output with .output::<T>(), .output_done() or .output_accepted().")
}

/// A tool that does not wait for its answer but names an output other than Accepted.
pub fn output_not_accepted(tool: &str) -> String {
    format!(
        "{tool} does not wait for its answer, so its output is Accepted. Use .output_accepted(), or set wait_for_response(true)."
    )
}

/// The tool was given a client whose guard disagrees with `allow_private_network`.
pub fn client_guard_mismatch(tool: &str) -> String {
    format!(
        "{tool}: allow_private_network does not match the client's network guard. Build the client with NetworkGuard::allow_private_network() when the tool allows private addresses, and with NetworkGuard::new() otherwise."
    )
}

/// The HTTP client could not be built (TLS set-up failed).
pub fn client_failed(reason: &str) -> String {
    format!(
        "the webhook HTTP client could not be built ({reason}). Check the TLS set-up of this machine."
    )
}

// ---------------------------------------------------------------- call time (the model reads)

/// A GET call's argument clashes with a query value of the URL (refusal).
pub fn call_query_clash(tool: &str, argument: &str) -> String {
    format!(
        "{argument} clashes with a query value of the URL of {tool}. Call {tool} again without {argument}."
    )
}

/// The webhook's address is refused by the network guard. `detail` names the host and range.
pub fn address_refused(tool: &str, detail: &str) -> String {
    format!("{tool} failed: the webhook address is not allowed ({detail}). {NO_SUCCESS}")
}

/// The webhook's host name did not resolve: the service could not be found (nothing refused).
pub fn host_not_found(tool: &str, host: &str) -> String {
    format!(
        "{tool} failed: the webhook's host {host} could not be found (its name did not resolve). {NO_SUCCESS}"
    )
}

/// The one deadline ran out.
pub fn timed_out(tool: &str, seconds: f64) -> String {
    format!("{tool} failed: the webhook did not answer within {seconds} seconds. {NO_SUCCESS}")
}

/// The request body is over the cap.
pub fn request_too_large(tool: &str, size: usize) -> String {
    format!(
        "{tool} failed: the request is {size} bytes, larger than the {CAP_WORDS} a webhook may send. Send shorter values. {NO_SUCCESS}"
    )
}

/// The answer is over the cap.
pub fn answer_too_large(tool: &str) -> String {
    format!(
        "{tool} failed: the webhook's answer is larger than the {CAP_WORDS} it may be. {NO_SUCCESS}"
    )
}

/// The webhook answered with an error status; `excerpt` is the short excerpt of its body.
pub fn error_status(tool: &str, status: u16, excerpt: Option<&str>) -> String {
    match excerpt {
        Some(excerpt) => {
            format!("{tool} failed: the webhook answered HTTP {status}: {excerpt}. {NO_SUCCESS}")
        }
        None => format!("{tool} failed: the webhook answered HTTP {status}. {NO_SUCCESS}"),
    }
}

/// A success status with a body that is not JSON.
pub fn answer_not_json(tool: &str, status: u16) -> String {
    format!(
        "{tool} failed: the webhook answered HTTP {status} with a body that is not JSON. {NO_SUCCESS}"
    )
}

/// The webhook could not be reached (connection refused, TLS failure, closed early).
pub fn unreachable(tool: &str) -> String {
    format!(
        "{tool} failed: the webhook could not be reached or closed the connection early. {NO_SUCCESS}"
    )
}

/// More redirects than the hop limit.
pub fn too_many_redirects(tool: &str, limit: usize) -> String {
    format!("{tool} failed: the webhook redirected more than {limit} times. {NO_SUCCESS}")
}

/// An environment variable named as a credential source is not set (or empty).
pub fn auth_env_missing(tool: &str, variable: &str) -> String {
    format!(
        "{tool} could not authenticate: the environment variable {variable} is not set. {NO_SUCCESS}"
    )
}

/// An async token source failed; `source` is its label, never its value or its error text.
pub fn auth_source_failed(tool: &str, source: &str) -> String {
    format!("{tool} could not authenticate: the token source {source} failed. {NO_SUCCESS}")
}

/// A credential that cannot be sent in a header (line break, non-visible bytes).
pub fn auth_value_invalid(tool: &str, source: &str) -> String {
    format!(
        "{tool} could not authenticate: the value of {source} cannot be sent in an HTTP header. {NO_SUCCESS}"
    )
}

/// What the model reads for a webhook that does not wait: `{"ok": true, "accepted": true}`.
pub fn accepted() -> serde_json::Value {
    serde_json::json!({"ok": true, "accepted": true})
}

/// What the model reads for an empty success answer: `{"ok": true}`.
pub fn done() -> serde_json::Value {
    serde_json::json!({"ok": true})
}

// ---------------------------------------------------------------- guard details (inside texts)

/// A host that is an IP address in a refused range: `"127.0.0.1 is loopback"`.
pub fn host_is(host: &str, why: &str) -> String {
    format!("{host} is {why}")
}

/// A name that resolved only to refused addresses.
pub fn name_resolves_private(host: &str, why: &str) -> String {
    format!("{host} resolves to {why} addresses only")
}

/// A name that did not resolve.
pub fn name_unresolved(host: &str) -> String {
    format!("{host} did not resolve")
}

/// A redirect to a scheme the tool may not use.
pub fn redirect_scheme(scheme: &str) -> String {
    format!("a redirect to {scheme} is not allowed")
}

/// A redirect to another origin, refused because the request carries credentials.
pub fn redirect_cross_origin(host: &str) -> String {
    format!("a redirect to another host ({host}) is not followed for a request with credentials")
}

// ---------------------------------------------------------------- event texts (sinks, logs)

/// The event text of an error status: the status only, never text the service sent.
pub fn event_status(status: u16) -> String {
    format!("HTTP {status}")
}

/// Event text: address refused by the guard.
pub const EVENT_ADDRESS_REFUSED: &str = "address refused";
/// Event text: the host name did not resolve.
pub const EVENT_HOST_NOT_FOUND: &str = "host not found";
/// Event text: deadline ran out.
pub const EVENT_TIMEOUT: &str = "timeout";
/// Event text: request over the cap.
pub const EVENT_REQUEST_TOO_LARGE: &str = "request too large";
/// Event text: answer over the cap.
pub const EVENT_ANSWER_TOO_LARGE: &str = "answer too large";
/// Event text: not reachable.
pub const EVENT_UNREACHABLE: &str = "unreachable";
/// Event text: hop limit.
pub const EVENT_TOO_MANY_REDIRECTS: &str = "too many redirects";
/// Event text: cross-origin redirect of a request with credentials.
pub const EVENT_CROSS_ORIGIN: &str = "cross-origin redirect refused";
/// Event text: authentication failed.
pub const EVENT_AUTH: &str = "could not authenticate";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_the_spec_words() {
        // "webhook_tool" 1: scheme, host, user info, fragment, port.
        assert!(
            url_scheme("t", "ftp")
                .contains("The scheme must be https, or http with allow_private_network.")
        );
        assert!(url_port("t", 0).contains("outside 1 to 65535"));
        // "webhook_tool" (second list) 1: GET clash fix.
        assert!(
            get_query_clash("t", "input", "q")
                .ends_with("Rename the argument or drop the value from the URL.")
        );
        // Troubleshooting: "could not authenticate", naming the variable.
        let text = auth_env_missing("lookup", "ORDERS_TOKEN");
        assert!(text.contains("could not authenticate") && text.contains("ORDERS_TOKEN"));
        // "Time and size limits" 3.
        assert_eq!(accepted().to_string(), r#"{"ok":true,"accepted":true}"#);
        assert_eq!(done().to_string(), r#"{"ok":true}"#);
        // Events carry only the status.
        assert_eq!(event_status(500), "HTTP 500");
    }

    #[test]
    fn error_status_reads_status_and_excerpt() {
        assert_eq!(
            error_status("add_order", 500, Some("error: Failed to add order")),
            "add_order failed: the webhook answered HTTP 500: error: Failed to add order. Do not claim success."
        );
        assert_eq!(
            error_status("add_order", 503, None),
            "add_order failed: the webhook answered HTTP 503. Do not claim success."
        );
    }
}
