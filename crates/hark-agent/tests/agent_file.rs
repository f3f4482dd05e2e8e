//! Agent files: a full file loads and builds; each kind of problem produces its
//! message, all at once, each naming its line and fix; a key's variable that is unset is a
//! warning; a webhook from a file reaches a loopback service only when the host allows exactly
//! its address; the LLM of a file talks to a (scripted) provider.

use std::sync::Arc;

use axum::{Json, Router, routing::post};
use hark_agent::agent_file::{AgentFile, ClassifierChoice, Host, Problem, ProviderKind, Severity};
use hark_llm::testing::{ScriptedServer, Turn};
use hark_llm::{ChatRequest, Message};
use hark_tools::{CallInfo, CallState, ToolContext, ToolError, ToolSpec};
use serde_json::{Value, json};

fn parse(text: &str) -> AgentFile {
    text.parse().unwrap_or_else(|e| panic!("parses: {e}"))
}

/// Every problem `build` finds for `text` with `host`, as `line N: kind: text`.
fn problems(text: &str, host: &Host) -> Vec<String> {
    parse(text)
        .check(host)
        .iter()
        .map(Problem::to_string)
        .collect()
}

const PROMPT: &str = "system_prompt = \"You help.\"\n";

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    /// Words to look for.
    query: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Hits {
    count: u32,
}

fn lookup_tool() -> ToolSpec {
    ToolSpec::local("lookup", "Look things up.", |q: Query| async move {
        Ok::<_, ToolError>(Hits {
            count: q.query.len() as u32,
        })
    })
    .unwrap()
}

#[test]
fn a_full_file_builds_into_the_parts_of_a_call() {
    let text = r#"
name = "desk"
system_prompt = "You run the help desk."
language = "es-ES"
timezone = "Europe/Madrid"

[llm]
provider = "anthropic"
model = "claude-sonnet-4-5"
api_key_env = "PATH"

[state.ticket]
type = "string"
description = "The ticket's id."

[state.hits]
type = "integer"

[tools]
builtin = ["current_datetime", "user_phone_number", "end_call"]
local = ["lookup"]
goodbye = "Bye!"

[[assign]]
tool = "lookup"
state = "hits"
from = "count"

[[webhook]]
name = "open_ticket"
description = "Open a ticket."
url = "https://tickets.example.com/open"
locked = { session = "{{call.session_id}}" }
interruption = "continue"
announce = ["Opening a ticket."]

[webhook.input.summary]
type = "string"

[webhook.output.id]
type = "string"

[[webhook.assign]]
state = "ticket"
from = "id"

[[webhook.reply]]
say = ["Your ticket is {{result.id}}."]

[ui]
classifier = "llm"
model = "claude-haiku-4-5"
"#;
    // A program whose calls carry the caller's number (user_phone_number reads it).
    let host = Host::new()
        .with_local_tool(lookup_tool())
        .with_call_values(["session_id", "remote_number"]);
    let agent = parse(text).build(&host).expect("builds");
    assert_eq!(agent.name, "desk");
    assert_eq!(agent.system_prompt, "You run the help desk.");
    assert_eq!(agent.language, "es-ES");
    assert_eq!(agent.timezone.as_deref(), Some("Europe/Madrid"));
    assert_eq!(
        agent.registry.names(),
        [
            "current_datetime",
            "user_phone_number",
            "end_call",
            "lookup",
            "open_ticket"
        ]
    );
    assert!(agent.registry.keeps_running("open_ticket"));
    assert!(agent.registry.get("end_call").unwrap().ends_the_call());
    // The model never sees the locked argument.
    let open = agent.registry.get("open_ticket").unwrap();
    assert!(
        open.model_parameters()["properties"]
            .get("session")
            .is_none()
    );
    assert_eq!(agent.state.field_names(), ["hits", "ticket"]);
    assert_eq!(agent.state.description("ticket"), Some("The ticket's id."));
    let llm = agent.llm.as_ref().expect("PATH is set, so the key is");
    assert_eq!(
        (llm.kind, llm.model.as_str()),
        (ProviderKind::Anthropic, "claude-sonnet-4-5")
    );
    assert_eq!(llm.provider.label().kind, "anthropic");
    assert!(agent.ui.worker);
    let ClassifierChoice::Llm(classifier) = &agent.ui.classifier else {
        panic!("llm classifier");
    };
    assert_eq!(classifier.model, "claude-haiku-4-5");
    assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
}

#[tokio::test]
async fn assign_rows_of_a_file_save_into_its_state() {
    let text = format!(
        "{PROMPT}[state.hits]\ntype = \"integer\"\n[tools]\nlocal = [\"lookup\"]\n\
         [[assign]]\ntool = \"lookup\"\nstate = \"hits\"\nfrom = \"count\"\n"
    );
    let agent = parse(&text)
        .build(&Host::new().with_local_tool(lookup_tool()))
        .unwrap();
    let state = CallState::new(CallInfo::default(), &agent.language, None);
    let live = hark_tools::LiveCall::new(state, Arc::new(hark_tools::InMemorySpeech::new()))
        .expect("live call");
    let generation = live.generation();
    let done = agent
        .registry
        .call_live("lookup", r#"{"query": "abc"}"#, &live, &generation)
        .await
        .expect("not discarded");
    assert!(done.outcome.succeeded(), "{:?}", done.outcome);
    assert_eq!(live.state.get("hits"), Some(json!(3)));
}

#[test]
fn a_typo_names_the_key_and_its_line() {
    let err = "system_prompt = \"x\"\n\n[llm]\nprovider = \"openai-compatible\"\nmodle = \"m\"\n"
        .parse::<AgentFile>()
        .unwrap_err();
    assert_eq!(err.problems.len(), 1);
    assert_eq!(
        err.problems[0].to_string(),
        "line 5: error: unknown field `modle`, expected one of `provider`, `model`, `base_url`, \
         `api_key_env`, `roles`. Fix this key or value; every key is in \
         docs/guide/agent-file-reference.md."
    );
    let err = "system_prompt = \"x\"\n[llm]\nprovider = \"openai\"\nmodel = \"m\"\n"
        .parse::<AgentFile>()
        .unwrap_err();
    assert_eq!(err.problems[0].line, Some(3));
    assert!(
        err.problems[0]
            .text
            .starts_with("unknown variant `openai`, expected one of `openai-compatible`"),
        "{}",
        err.problems[0].text
    );
}

#[test]
fn a_file_that_cannot_be_read_says_so() {
    let err = AgentFile::load("/nonexistent/h2/agent.toml").unwrap_err();
    assert!(
        err.problems[0]
            .text
            .starts_with("cannot read /nonexistent/h2/agent.toml: "),
        "{}",
        err.problems[0].text
    );
    assert!(err.problems[0].text.ends_with(". Check the path."));
}

#[test]
fn keys_never_come_from_the_file_and_an_unset_variable_is_a_warning() {
    let text = format!(
        "{PROMPT}[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\napi_key = \"sk-secret-123\"\n"
    );
    let found = problems(&text, &Host::new());
    assert_eq!(
        found,
        [
            "line 5: error: [llm] api_key: a key never goes in the agent file. Put it in an \
          environment variable and name the variable with api_key_env = \"OPENAI_API_KEY\"."
        ]
    );
    assert!(!found[0].contains("sk-secret-123"));

    let text = format!(
        "{PROMPT}[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\n\
         api_key_env = \"HARK_TEST_H2_UNSET_KEY\"\n"
    );
    let agent = parse(&text).build(&Host::new()).expect("a warning only");
    assert!(agent.llm.is_none());
    assert_eq!(agent.warnings.len(), 1);
    assert_eq!(agent.warnings[0].severity, Severity::Warning);
    assert_eq!(
        agent.warnings[0].to_string(),
        "line 5: warning: [llm] the environment variable HARK_TEST_H2_UNSET_KEY is not set, so \
         the agent runs without an LLM (the offline screen mode). Set HARK_TEST_H2_UNSET_KEY to \
         your openai-compatible key to use the LLM."
    );

    let text = format!("{PROMPT}[llm]\nprovider = \"gemini\"\nmodel = \"m\"\n");
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 3: error: [llm] provider gemini needs a key: name the environment variable that holds it \
          with api_key_env = \"GEMINI_API_KEY\"."
        ]
    );
}

#[test]
fn the_call_settings_are_checked() {
    let text = "system_prompt = \" \"\nlanguage = \"english please\"\ntimezone = \"Madrid\"\n\
                [llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\nbase_url = \"api.example.com\"\n";
    assert_eq!(
        problems(text, &Host::new()),
        [
            "line 1: error: system_prompt is empty. Write what the agent is for and how it speaks.",
            "line 2: error: language \"english please\" is not a language Hark can speak values in; did you mean \"en\"? Write a BCP 47 tag like \"en-US\", \"es\", \"fr\" or \"de\" (en_US is read as en-US).",
            "line 3: error: timezone \"Madrid\" is not a timezone of the tz database; did you mean \"Europe/Madrid\"? Write an IANA name like \"Europe/Madrid\" or \"America/New_York\".",
            "line 7: error: [llm] base_url api.example.com is not a URL (relative URL without a \
             base). Write it like https://api.openai.com/v1.",
        ]
    );
}

#[test]
fn unknown_builtin_and_local_tools_name_the_ones_there_are() {
    let text = format!(
        "{PROMPT}[tools]\nbuiltin = [\"current_datetime\", \"weather\"]\nlocal = [\"lookup\", \"refund\"]\n"
    );
    assert_eq!(
        problems(&text, &Host::new().with_local_tool(lookup_tool())),
        [
            "line 3: error: [tools] builtin current_datetime needs the agent's timezone. Set \
             timezone = \"Europe/Madrid\" (your business's zone) at the top of the file.",
            "line 3: error: [tools] builtin weather is not a built-in tool. The built-in tools \
             are: current_datetime, end_call, user_phone_number.",
            "line 4: error: [tools] local refund is not a tool of this program. Its local tools \
             are: lookup.",
        ]
    );
    let text = format!("{PROMPT}[tools]\nlocal = [\"lookup\"]\n");
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 3: error: [tools] local lookup is not a tool of this program: it provides no \
          local tools. Remove lookup, or run the file with the program that provides it."
        ]
    );
}

/// Every problem of every webhook at once, each on the line of its key: an unset `${NAME}` or a
/// bad auth does not hide the URL's problems, and a webhook with a problem still has its locked
/// paths, announce lines and rows checked.
#[test]
fn webhook_problems_are_all_reported_with_their_fix() {
    let text = format!(
        r#"{PROMPT}
[state.customer]
type = "string"

[[webhook]]
name = "notify"
description = "Tell the CRM."
url = "${{HARK_TEST_H2_UNSET_URL}}/hook"
auth = {{ kind = "api_key", env = "HARK_TEST_H2_UNSET_TOKEN" }}

[[webhook]]
name = "lookup_order"
description = "Look up an order."
url = "http://orders.example.com/find"
timeout = 0
locked = {{ customer_id = "{{{{customer.id}}}}", who = "{{{{custmer}}}}" }}
announce = ["Checking {{{{order_ref}}}}."]

[webhook.input.order_id]
type = "boolean"
values = ["a"]

[webhook.output.status]
type = "string"
values = ["held", "shipped"]

[[webhook.reply]]
when = {{ status = ["shiped"] }}
say = ["It is {{{{result.state}}}}."]

[[webhook.assign]]
state = "order_status"
from = "status"
"#
    );
    let found = problems(&text, &Host::new());
    assert_eq!(
        found,
        [
            "line 9: error: webhook notify: url names ${HARK_TEST_H2_UNSET_URL}, which is not \
             set. Set the environment variable HARK_TEST_H2_UNSET_URL, or run the file with a \
             program that passes it.",
            "line 10: error: webhook notify: auth kind = \"api_key\" needs header = \"X-API-Key\" \
             (the header that carries the key).",
            "line 10: warning: webhook notify: the environment variable HARK_TEST_H2_UNSET_TOKEN \
             is not set, so every call fails with \"could not authenticate\" until it is. Set \
             HARK_TEST_H2_UNSET_TOKEN.",
            "line 13: error: webhook lookup_order: input.order_id: values belongs to type \
             string. Change the type, or remove values.",
            "line 13: error: webhook lookup_order: timeout = 0 is not a number of seconds above \
             0. Write e.g. timeout = 5.",
            "line 13: error: webhook lookup_order: the URL scheme is http. The scheme must be \
             https, or http with allow_private_network.",
            "line 17: error: lookup_order: {{customer.id}} is not in the State: customer has no \
             fields. Lock {{customer}} itself, or make customer an object with a field id.",
            "line 17: error: lookup_order: {{custmer}} is not in the State: it has no value \
             custmer. Use one of: customer, or add a [state.<name>] table for it.",
            "line 18: error: lookup_order: {{order_ref}} is neither an argument of lookup_order \
             nor a State value. Use one of: order_id, customer_id, who, customer.",
            "line 29: error: lookup_order: when status is \"shiped\", which status never holds. It \
             holds: \"held\", \"shipped\".",
            "line 30: error: lookup_order: the result field state is not in LookupOrder. Use one \
             of: status.",
            "line 33: error: lookup_order: order_status is not a State value. Use one of: \
             customer, or add a [state.<name>] table for it.",
        ]
    );

    // With those fixed, the tool is built and the registry's checks speak.
    let text = text
        .replace("${HARK_TEST_H2_UNSET_URL}", "https://crm.example.com")
        .replace(
            "kind = \"api_key\"",
            "kind = \"api_key\", header = \"X-Key\"",
        )
        .replace("timeout = 0", "timeout = 5")
        .replace("http://orders", "https://orders")
        .replace("type = \"boolean\"\nvalues = [\"a\"]", "type = \"string\"");
    let found = problems(&text, &Host::new());
    assert_eq!(
        found,
        [
            "line 10: warning: webhook notify: the environment variable HARK_TEST_H2_UNSET_TOKEN \
             is not set, so every call fails with \"could not authenticate\" until it is. Set \
             HARK_TEST_H2_UNSET_TOKEN.",
            "line 17: error: lookup_order: {{customer.id}} is not in the State: customer has no \
             fields. Lock {{customer}} itself, or make customer an object with a field id.",
            "line 17: error: lookup_order: {{custmer}} is not in the State: it has no value \
             custmer. Use one of: customer, or add a [state.<name>] table for it.",
            "line 18: error: lookup_order: {{order_ref}} is neither an argument of lookup_order nor a \
             State value. Use one of: order_id, customer_id, who, customer.",
            "line 28: error: lookup_order: when status is \"shiped\", which status never holds. It holds: \
             \"held\", \"shipped\".",
            "line 29: error: lookup_order: the result field state is not in LookupOrder. Use one of: \
             status.",
            "line 32: error: lookup_order: order_status is not a State value. Use one of: customer, or add a [state.<name>] table for it.",
        ]
    );
}

#[test]
fn rows_without_their_tool_are_refused() {
    let text = format!(
        "{PROMPT}[state.x]\ntype = \"string\"\n[[assign]]\nstate = \"x\"\n[[reply]]\nsay = [\"Hi\"]\n\
         [[assign]]\ntool = \"nothing\"\nstate = \"x\"\n"
    );
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 4: error: an [[assign]] row for the State value x names no tool. Add tool = \
             \"<the tool whose result it saves>\".",
            "line 6: error: a [[reply]] row names no tool. Add tool = \"<the tool whose result it \
             says>\", or move it under its [[webhook]].",
            "line 8: error: [[assign]] names the tool nothing, but the file has no tools. Add \
             nothing under [tools] or as a [[webhook]], or remove the row.",
        ]
    );
}

/// A `[[reply]]` row on `end_call` is an error on the row's line, saying where the goodbye goes.
#[test]
fn a_reply_on_end_call_is_on_its_line() {
    let text = format!(
        "{PROMPT}[tools]\nbuiltin = [\"end_call\"]\nlocal = [\"transfer\"]\n[[reply]]\ntool = \"end_call\"\n\
         say = [\"Bye!\"]\n[[reply]]\ntool = \"transfer\"\nsay = [\"Putting you through.\"]\n"
    );
    let transfer = ToolSpec::local("transfer", "Transfer the call.", |_: Query| async move {
        Ok::<_, ToolError>(())
    })
    .unwrap()
    .ends_conversation();
    assert_eq!(
        problems(&text, &Host::new().with_local_tool(transfer)),
        [
            "line 5: error: [[reply]] on end_call: end_call ends the call, so a reply on it is \
             refused: the call is over before the line could play. Remove the row; end_call says \
             [tools] goodbye before it hangs up.",
            "line 8: error: [[reply]] on transfer: transfer ends the call, so a reply on it is \
             refused: the call is over before the line could play. Remove the row; say the \
             goodbye in the tool's own announce line, with announce_wait.",
        ]
    );
}

/// A top-level `[[assign]]` or `[[reply]]` row naming a tool the file does not have is an
/// error on the row's line, naming the tools it has (a tool that failed to build counts as
/// one of them, so its rows add no second error).
#[test]
fn rows_naming_an_unknown_tool_are_on_their_line() {
    let text = format!(
        "{PROMPT}[state.x]\ntype = \"string\"\n[tools]\nbuiltin = [\"end_call\", \"current_datetime\"]\n\
         [[assign]]\ntool = \"end_cal\"\nstate = \"x\"\n\
         [[reply]]\ntool = \"endcall\"\nsay = [\"Bye.\"]\n\
         [[reply]]\ntool = \"current_datetime\"\nsay = [\"It is late.\"]\n"
    );
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 5: error: [tools] builtin current_datetime needs the agent's timezone. Set \
             timezone = \"Europe/Madrid\" (your business's zone) at the top of the file.",
            "line 6: error: [[assign]] names the tool end_cal, which the file does not have. Use \
             one of: end_call, current_datetime.",
            "line 9: error: [[reply]] names the tool endcall, which the file does not have. Use \
             one of: end_call, current_datetime.",
        ]
    );
}

#[test]
fn a_loopback_webhook_needs_the_host_to_allow_exactly_its_address() {
    let text = format!(
        "{PROMPT}[[webhook]]\nname = \"ping\"\ndescription = \"Ping.\"\nurl = \"${{SVC}}/ping\"\n"
    );
    let host = Host::new().with_value("SVC", "http://127.0.0.1:4100");
    assert_eq!(
        problems(&text, &host),
        [
            "line 3: error: webhook ping: the URL scheme is http. The scheme must be https, or \
             http with allow_private_network.",
            "line 3: error: webhook ping: the URL host 127.0.0.1 is loopback. Webhooks refuse \
             private, loopback and link-local addresses; turn on allow_private_network only for \
             your own internal service.",
        ]
    );
    // Another port of the same host is not the allowed address.
    let other = host
        .clone()
        .allow_address("127.0.0.1:4101".parse().unwrap());
    assert_eq!(problems(&text, &other).len(), 2);
    let allowed = host.allow_address("127.0.0.1:4100".parse().unwrap());
    assert_eq!(problems(&text, &allowed), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_from_a_file_calls_a_real_loopback_service() {
    let app = Router::new().route(
        "/orders/status",
        post(|Json(args): Json<Value>| async move {
            Json(json!({"order_id": args["order_id"], "status": "shipped"}))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let text = format!(
        r#"{PROMPT}
[state.order_id]
type = "string"

[[webhook]]
name = "order_status"
description = "The order's status."
url = "${{ORDERS}}/orders/status"
locked = {{ order_id = "{{{{order_id}}}}" }}

[webhook.input.order_id]
type = "string"

[webhook.output.order_id]
type = "string"

[webhook.output.status]
type = "string"
values = ["received", "shipped"]
"#
    );
    let host = Host::new()
        .with_value("ORDERS", format!("http://{addr}"))
        .allow_address(addr);
    let agent = parse(&text).build(&host).expect("builds");
    let context = ToolContext {
        state: json!({"order_id": "HK-1001"}),
        ..ToolContext::default()
    };
    let outcome = agent.registry.call("order_status", "{}", &context).await;
    assert_eq!(
        outcome.model_text(),
        r#"{"order_id":"HK-1001","status":"shipped"}"#
    );
    // Unset, the locked value refuses the call with a hint; nothing is sent.
    let outcome = agent
        .registry
        .call("order_status", "{}", &ToolContext::default())
        .await;
    assert!(
        outcome.model_text().contains("order_id not set yet"),
        "{}",
        outcome.model_text()
    );
    server.abort();
}

#[tokio::test]
async fn the_llm_of_a_file_talks_to_its_provider() {
    let server = ScriptedServer::start(vec![Turn::text_reply(&["Hello", " there."])])
        .await
        .unwrap();
    let text = format!(
        "{PROMPT}[llm]\nprovider = \"openai-compatible\"\nbase_url = \"${{LLM_URL}}\"\nmodel = \"small\"\n"
    );
    let host = Host::new().with_value("LLM_URL", server.base_url());
    let agent = parse(&text).build(&host).unwrap();
    let llm = agent.llm.expect("no key needed for a local server");
    let request = ChatRequest::new(llm.model.clone(), vec![Message::User("Hi".into())]);
    let done = llm.provider.complete(&request).await.unwrap();
    assert_eq!(done.text, "Hello there.");
    assert_eq!(server.bodies()[0]["model"], "small");
    assert!(server.requests()[0].header("authorization").is_none());
}

#[test]
fn the_ui_settings_and_their_problems() {
    let text = format!("{PROMPT}[ui]\nworker = false\n");
    let agent = parse(&text).build(&Host::new()).unwrap();
    assert!(!agent.ui.worker);
    assert!(matches!(agent.ui.classifier, ClassifierChoice::Local));

    let text = format!("{PROMPT}[ui]\nclassifier = \"llm\"\n");
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 3: error: [ui] classifier = \"llm\" needs an [llm] section for its provider. Add one, or \
          use classifier = \"local\"."
        ]
    );
    let text = format!(
        "{PROMPT}[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\napi_key_env = \"HARK_TEST_H2_UNSET_KEY\"\n\
         [ui]\nclassifier = \"llm\"\n"
    );
    let agent = parse(&text).build(&Host::new()).unwrap();
    assert!(matches!(agent.ui.classifier, ClassifierChoice::Local));
    assert_eq!(agent.warnings[1].line, Some(7), "on the classifier's line");
    assert_eq!(
        agent.warnings[1].text,
        "[ui] classifier = \"llm\" uses the local classifier while HARK_TEST_H2_UNSET_KEY is not \
         set. Set HARK_TEST_H2_UNSET_KEY to use the LLM classifier."
    );
}

#[test]
fn background_webhooks_get_accepted_and_auth_and_placeholder_mistakes_are_named() {
    let text = format!(
        r#"{PROMPT}
[[webhook]]
name = "notify_crm"
description = "Tell the CRM."
url = "https://crm.example.com/hook"
method = "PUT"
background = true
"#
    );
    let agent = parse(&text).build(&Host::new()).expect("builds");
    let tool = agent.registry.get("notify_crm").unwrap();
    assert_eq!(tool.output().name(), "Accepted");

    let text = format!(
        r#"{PROMPT}
[[webhook]]
name = "notify_crm"
description = "Tell the CRM."
url = "https://crm.example.com/${{lower}}"
background = true
auth = {{ kind = "bearer", env = "PATH", header = "X-Key" }}

[webhook.output.id]
type = "string"
min = 3
max = 1
"#
    );
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 4: error: webhook notify_crm: output.id: min belongs to type integer or number. \
             Change the type, or remove min.",
            "line 4: error: webhook notify_crm: output.id: max belongs to type integer or number. \
             Change the type, or remove max.",
            "line 4: error: webhook notify_crm: output.id: min is above max. Swap them.",
            "line 6: error: webhook notify_crm: url has a ${ that is not a placeholder. Write \
             ${NAME} with capital letters, digits and _, or remove the $.",
            "line 8: error: webhook notify_crm: auth kind = \"bearer\" always sends Authorization. \
             Remove header, or use kind = \"api_key\".",
        ]
    );

    // A background webhook that also names outputs: the webhook layer's own words.
    let text = format!(
        "{PROMPT}[[webhook]]\nname = \"n\"\ndescription = \"d\"\nurl = \"https://a.example.com\"\n\
         background = true\n[webhook.output.id]\ntype = \"string\"\n"
    );
    let found = problems(&text, &Host::new());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("line 3: error: webhook n: "),
        "{found:?}"
    );
}

/// Registry problems name the line of the key they are about; a locked value in its old
/// spelling is on its own line and hides neither the other locked values' problems nor the
/// URL's; a GET webhook's locked name that clashes with the URL's query is on its line.
#[test]
fn each_registry_problem_is_on_the_line_of_its_key() {
    let text = format!(
        r#"{PROMPT}
[state.vip]
type = "boolean"

[state.name]
type = "string"

[[webhook]]
name = "find_order"
description = "Find an order."
url = "http://orders.example.com/find?session=1"
method = "GET"

[webhook.locked]
id = "{{{{@call_id}}}}"
who = "{{{{nme}}}}"
session = "{{{{call.session_id}}}}"

[webhook.input.order_id]
type = "string"

[webhook.output.order_id]
type = "string"

[webhook.output.status]
type = "string"
values = ["held", "shipped"]

[[webhook.reply]]
tool = "other_tool"
say = ["Found it."]

[[assign]]
tool = "find_order"
state = "vip"
from = "order_id"

[[assign]]
tool = "find_order"
state = "vipp"
from = "status"

[[assign]]
tool = "find_order"
state = "name"
from = "eta"

[[reply]]
tool = "find_order"
when = {{ status = ["shiped"] }}
say = [
  "It is {{{{result.status}}}}.",
  "It comes {{{{result.eta}}}}.",
]

[[webhook]]
name = "find_order"
description = "Again."
url = "https://orders.example.com/again"
"#
    );
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 10: error: webhook find_order: the URL scheme is http. The scheme must be https, \
             or http with allow_private_network.",
            "line 16: error: webhook find_order: locked id: {{@call_id}} at character 1 no longer \
             exists. {{@call_id}} is now {{call.carrier_call_id}} or {{call.session_id}}.",
            "line 17: error: find_order: {{nme}} is not in the State: it has no value nme. Use one \
             of: name, vip, or add a [state.<name>] table for it.",
            "line 18: error: webhook find_order: its locked names session, which is also a query \
             value of the URL. Rename the argument or drop the value from the URL.",
            "line 30: error: find_order: its own reply names the tool other_tool. Leave tool out, \
             or make it a top-level [[reply]] row that names its tool.",
            "line 37: error: find_order: assign saves order_id (string) into vip, which takes \
             boolean. Save a field of that type, or change the State value's type.",
            "line 41: error: find_order: vipp is not a State value. Use one of: name, vip, or add a [state.<name>] table for it.",
            "line 47: error: find_order: the result field eta is not in FindOrder. Use one of: \
             order_id, status.",
            "line 51: error: find_order: when status is \"shiped\", which status never holds. It \
             holds: \"held\", \"shipped\".",
            "line 54: error: find_order: the result field eta is not in FindOrder. Use one of: \
             order_id, status.",
            "line 58: error: Two tools are named find_order. Give one of them another name.",
        ]
    );
}

/// An `[llm]` typo's list of keys does not offer `api_key` (a key never goes in the file), and
/// a parse error points at the page that lists every key.
#[test]
fn a_parse_error_offers_only_keys_the_file_takes() {
    let err =
        "system_prompt = \"x\"\n[llm]\nprovider = \"anthropic\"\nmodel = \"m\"\napi-key = \"k\"\n"
            .parse::<AgentFile>()
            .unwrap_err();
    assert_eq!(
        err.problems[0].to_string(),
        "line 5: error: unknown field `api-key`, expected one of `provider`, `model`, `base_url`, \
         `api_key_env`, `roles`. Fix this key or value; every key is in docs/guide/agent-file-reference.md."
    );
    assert!(!err.problems[0].text.contains("`api_key`"));
    assert_eq!(
        hark_agent::agent_file::messages::parse_error("expected `=`, found newline"),
        "expected `=`, found newline. Fix this key or value; every key is in \
         docs/guide/agent-file-reference.md."
    );
}

/// A webhook input typed `date`, `time`, `date-time` or `phone` is checked when the model calls
/// the tool, the way a Rust-typed tool's arguments are: a value that is not of its type is
/// refused with a line the model can act on and nothing is sent; a good one reaches the
/// service, a phone number in E.164.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_inputs_of_a_typed_format_are_checked_when_called() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let sink = seen.clone();
    let app = Router::new().route(
        "/book",
        post(move |Json(args): Json<Value>| {
            let sink = sink.clone();
            async move {
                sink.lock().unwrap().push(args);
                Json(json!({"status": "booked"}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let text = format!(
        r#"{PROMPT}
[[webhook]]
name = "book_table"
description = "Book a table."
url = "${{BOOKINGS}}/book"

[webhook.input.day]
type = "date"

[webhook.input.at]
type = "time"

[webhook.input.phone]
type = "phone"

[webhook.input.guests]
type = "array"
items = {{ type = "object", fields = {{ born = {{ type = "date" }} }} }}
optional = true

[webhook.output.status]
type = "string"
"#
    );
    let host = Host::new()
        .with_value("BOOKINGS", format!("http://{addr}"))
        .allow_address(addr);
    let agent = parse(&text).build(&host).expect("builds");
    let context = ToolContext::default();

    let bad = json!({
        "day": "next Friday",
        "at": "half past nine",
        "phone": "555",
        "guests": [{"born": "1990-02-30"}],
    });
    let outcome = agent
        .registry
        .call("book_table", &bad.to_string(), &context)
        .await;
    let refused: Value = serde_json::from_str(&outcome.model_text()).unwrap();
    assert_eq!(
        refused,
        json!({"refused": "at: \"half past nine\" is not written hours:minutes:seconds: give it on a 24-hour clock, like 09:30:00\n\
         day: \"next Friday\" is not written year-month-day: give the day like 2026-10-16\n\
         guests.0.born: \"1990-02-30\" is not a day on the calendar: February 1990 has days 01 to 28\n\
         phone: \"555\" has no country code: give it starting with + and the country code, like +14155550123\n\
         Fix these arguments, asking the caller if needed, then call book_table again."})
    );
    assert!(seen.lock().unwrap().is_empty(), "nothing is sent");

    let good = json!({"day": "2026-10-16", "at": "09:30", "phone": "+1 415 555 0123"});
    let outcome = agent
        .registry
        .call("book_table", &good.to_string(), &context)
        .await;
    assert_eq!(outcome.model_text(), r#"{"status":"booked"}"#);
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [json!({"day": "2026-10-16", "at": "09:30", "phone": "+14155550123"})]
    );
    server.abort();
}

/// A reply condition's value that JSON cannot hold (a TOML date) is an error on the line of that
/// condition, not of the row's header.
#[test]
fn a_condition_value_that_is_not_json_is_on_its_line() {
    let text = format!(
        r#"{PROMPT}
[[webhook]]
name = "check_day"
description = "Check a day."
url = "https://bookings.example.com/day"

[webhook.output.day]
type = "date"

[[webhook.reply]]
say = ["That day is free."]

[webhook.reply.when]
day = [2026-10-16]
"#
    );
    assert_eq!(
        problems(&text, &Host::new()),
        [
            "line 15: error: webhook check_day: a value for day is not text, a number or \
             true/false. Write it as text, like \"2026-10-16\"."
        ]
    );
}
