//! `{{call.name}}` values the calls never carry: an RTVI session of `hark
//! serve` carries `call.session_id` only, so every announce line, locked value, reply, confirm
//! or goodbye line that reads another call value gives a warning on its own line, naming the
//! value and the ones `hark serve` carries. A host whose calls carry more says so
//! ([`Host::with_call_values`]). A `{{…}}` in a `url` or `headers` value, which nothing fills,
//! is a warning too.

use hark_agent::agent_file::{AgentFile, Host, Problem, SERVE_CALL_VALUES};

fn problems(text: &str, host: &Host) -> Vec<String> {
    let file: AgentFile = text.parse().unwrap_or_else(|e| panic!("parses: {e}"));
    file.check(host).iter().map(Problem::to_string).collect()
}

const FILE: &str = r#"system_prompt = "You help."

[tools]
builtin = ["end_call"]
goodbye = "Goodbye, {{call.remote_number}}!"

[[webhook]]
name = "lookup"
description = "Look up the caller."
url = "https://crm.example.com/lookup"
announce = ["Looking up {{call.carrier_call_id}}."]
locked = { phone = "{{call.remote_number}}", session = "{{call.session_id}}" }

[webhook.output.status]
type = "string"

[[webhook.reply]]
say = ["Found {{call.call_type}}."]

[[reply]]
tool = "lookup"
say = [
  "Session {{call.session_id}} is fine.",
  "Your number {{call.remote_number}} is on file.",
]
"#;

#[test]
fn serve_carries_the_session_id_only() {
    assert_eq!(SERVE_CALL_VALUES, ["session_id"]);
}

#[test]
fn every_call_value_serve_never_carries_is_a_warning_on_its_own_line() {
    let not_carried = |place: &str, name: &str| {
        format!(
            "{place} reads {{{{call.{name}}}}}, which hark serve's calls never carry (they carry \
             call.session_id only), so every call that reads it is refused. Read call.session_id \
             instead, or run the agent from a program whose calls carry call.{name}."
        )
    };
    assert_eq!(
        problems(FILE, &Host::new()),
        [
            format!(
                "line 5: warning: {}",
                not_carried("[tools] goodbye", "remote_number")
            ),
            format!(
                "line 11: warning: {}",
                not_carried("webhook lookup: announce", "carrier_call_id")
            ),
            format!(
                "line 12: warning: {}",
                not_carried("webhook lookup: locked phone", "remote_number")
            ),
            format!(
                "line 18: warning: {}",
                not_carried("webhook lookup: reply say", "call_type")
            ),
            format!(
                "line 24: warning: {}",
                not_carried("[[reply]] say", "remote_number")
            ),
        ]
    );
}

#[test]
fn a_host_whose_calls_carry_more_is_warned_of_the_rest_only() {
    let host = Host::new().with_call_values(["session_id", "remote_number", "carrier_call_id"]);
    assert_eq!(
        problems(FILE, &host),
        [
            "line 18: warning: webhook lookup: reply say reads {{call.call_type}}, which this \
          program's calls never carry (they carry call.session_id, call.remote_number, \
          call.carrier_call_id), so every call that reads it is refused. Read one of those \
          instead, or run the agent from a program whose calls carry call.call_type."
        ]
    );
}

#[test]
fn a_flow_confirm_line_is_checked_too() {
    let text = r#"system_prompt = "You help."

[tools]
builtin = ["end_call"]

[flow]
first = "bye"

[[flow.steps]]
name = "bye"
tools = ["end_call"]

[flow.steps.closing]
tool = "end_call"
confirm_in.es = ["¿Cuelgo, {{call.remote_number}}?"]
"#;
    let found = problems(text, &Host::new());
    assert!(
        found.iter().any(|p| p.starts_with(
            "line 15: warning: [flow] step bye: confirm_in es reads {{call.remote_number}}, which \
             hark serve's calls never carry"
        )),
        "{found:#?}"
    );
}

#[test]
fn a_template_in_a_url_or_header_is_said_to_be_sent_as_written() {
    let text = r#"system_prompt = "You help."

[[webhook]]
name = "lookup"
description = "Look up the caller."
url = "https://crm.example.com/lookup?session={{call.session_id}}"
headers = { X-Session = "{{call.session_id}}" }
"#;
    let said = |place: &str| {
        format!(
            "warning: webhook lookup: {place} holds {{{{…}}}}, which nothing fills there: it is \
             sent as written. Send the value as a locked argument (locked = {{ session = \
             \"{{{{call.session_id}}}}\" }}), or write ${{NAME}} for a fixed value."
        )
    };
    assert_eq!(
        problems(text, &Host::new()),
        [
            format!("line 6: {}", said("url")),
            format!("line 7: {}", said("headers X-Session")),
        ]
    );
}

#[test]
fn user_phone_number_under_serve_is_a_warning_on_its_line() {
    let text =
        "system_prompt = \"You help.\"\n\n[tools]\nbuiltin = [\n  \"user_phone_number\",\n]\n";
    assert_eq!(
        problems(text, &Host::new()),
        [
            "line 5: warning: [tools] builtin user_phone_number reads call.remote_number, which \
          hark serve's calls never carry (they carry call.session_id only), so it always answers \
          that the number is unknown. Ask the caller for their number instead, or run the agent \
          from a program whose calls carry call.remote_number."
        ]
    );
    let phone = Host::new().with_call_values(["session_id", "remote_number"]);
    assert!(problems(text, &phone).is_empty());
}

/// The guide says which call values `hark serve` carries, from the one list the check reads.
#[test]
fn the_guide_names_the_call_values_serve_carries() {
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/guide/locked-values-and-transcript.md"
    ))
    .expect("the guide page");
    let listed: Vec<String> = SERVE_CALL_VALUES
        .iter()
        .map(|v| format!("`{{{{call.{v}}}}}`"))
        .collect();
    let said = format!(
        "Under `hark serve`, every\n  call carries {} only",
        listed.join(", ")
    );
    assert!(page.contains(&said), "the guide must say: {said}");
}
