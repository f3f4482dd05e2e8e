//! `hark check FILE` through the real binary, and the demo shop (`examples/shop.toml`, its local
//! tools and its order service on loopback) end to end through the tool layer.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use hark_agent::agent_file::AgentSetup;
use hark_tools::{CallInfo, CallState, InMemorySpeech, LiveCall};
use serde_json::{Value, json};

const HARK: &str = env!("CARGO_BIN_EXE_hark");

/// The repository's root (tests run in the crate's directory).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `hark check <file>` in the repository root with `env` set (and `OPENAI_API_KEY` unset
/// unless `env` sets it): exit code and stdout.
fn check(file: &str, env: &[(&str, &str)]) -> (i32, String) {
    let mut command = Command::new(HARK);
    command
        .args(["check", file])
        .current_dir(root())
        .env_remove("OPENAI_API_KEY")
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("run hark check");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hark-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_summary_names_what_the_agent_speaks_and_hears_with() {
    let path = temp_file(
        "speech.toml",
        "system_prompt = \"You help.\"\n\n[tts]\nprovider = \"openai-compatible\"\n\
         base_url = \"https://tts.example.com/v1\"\napi_key_env = \"HARK_CHECK_TTS_KEY\"\n\n\
         [stt]\nprovider = \"deepgram\"\napi_key_env = \"HARK_CHECK_DEEPGRAM_UNSET\"\n",
    );
    let shown = path.display().to_string();
    let (code, out) = check(&shown, &[("HARK_CHECK_TTS_KEY", "sk-test")]);
    assert_eq!(code, 0, "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!(
            "{shown}: ok, 0 tools, LLM none, UI worker on (local classifier), voice \
             openai-compatible, hearing none (deepgram not built), 1 warning"
        ),
        "{out}"
    );
    assert!(
        out.contains("HARK_CHECK_DEEPGRAM_UNSET is not set"),
        "the warning says why: {out}"
    );
}

#[test]
fn the_demo_agent_file_passes_hark_check() {
    let (code, out) = check("examples/shop.toml", &[]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "examples/shop.toml:23: warning: [llm] the environment variable OPENAI_API_KEY is not \
             set, so the agent runs without an LLM (the offline screen mode). Set OPENAI_API_KEY \
             to your openai-compatible key to use the LLM.",
            "examples/shop.toml: ok, 7 tools, LLM none (OPENAI_API_KEY not set), UI worker on \
             (local classifier), 1 warning",
        ]
    );
    // Set but empty is said as such.
    let (code, out) = check("examples/shop.toml", &[("OPENAI_API_KEY", "")]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "examples/shop.toml:23: warning: [llm] the environment variable OPENAI_API_KEY is set \
             but empty, so the agent runs without an LLM (the offline screen mode). Put your \
             openai-compatible key in OPENAI_API_KEY to use the LLM.",
            "examples/shop.toml: ok, 7 tools, LLM none (OPENAI_API_KEY empty), UI worker on \
             (local classifier), 1 warning",
        ]
    );
    let (code, out) = check(
        "examples/shop.toml",
        &[("OPENAI_API_KEY", "sk-test-not-real")],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "examples/shop.toml: ok, 7 tools, LLM openai-compatible gpt-4.1-mini, UI worker on \
         (local classifier)\n"
    );
    assert!(!out.contains("sk-test-not-real"));
}

#[test]
fn hark_check_prints_every_problem_with_its_fix_and_exits_with_1() {
    let text = r#"system_prompt = "You sell coffee gear."
timezone = "Madrid"

[tools]
builtin = ["current_datetime"]
local = ["search_products", "refund"]

[[webhook]]
name = "order_status"
description = "Status."
url = "http://127.0.0.1:9/orders/status"
locked = { order_id = "{{last_order}}" }

[webhook.output.status]
type = "string"
"#;
    let path = temp_file("broken.toml", text);
    let shown = path.display().to_string();
    let (code, out) = check(&shown, &[]);
    assert_eq!(code, 1, "{out}");
    let expected = [
        format!(
            "{shown}:2: error: timezone \"Madrid\" is not a timezone of the tz database; did you mean \"Europe/Madrid\"? Write an IANA name like \"Europe/Madrid\" or \"America/New_York\"."
        ),
        format!(
            "{shown}:6: error: [tools] local refund is not a tool of this program. Its local tools \
             are: add_to_cart, book_table, cart_total, place_order, search_products."
        ),
        format!(
            "{shown}:9: error: webhook order_status: the URL scheme is http. The scheme must be \
             https, or http with allow_private_network."
        ),
        format!(
            "{shown}:9: error: webhook order_status: the URL host 127.0.0.1 is loopback. Webhooks \
             refuse private, loopback and link-local addresses; turn on allow_private_network \
             only for your own internal service."
        ),
        // The URL's problems hide no other problem of the webhook: its locked path is checked
        // against the State in the same pass, on the locked value's own line.
        format!(
            "{shown}:12: error: order_status: {{{{last_order}}}} is not in the State, which has \
             no values. Fix the path, or add a [state.<name>] table for it."
        ),
        format!("{shown}: 5 errors"),
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);

    let (code, out) = check("no/such/agent.toml", &[]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("no/such/agent.toml: error: cannot read no/such/agent.toml: "),
        "{out}"
    );
    assert!(out.ends_with("no/such/agent.toml: 1 error\n"), "{out}");

    let path = temp_file("typo.toml", "system_prompt = \"x\"\n[ui]\nworkr = true\n");
    let shown = path.display().to_string();
    let (code, out) = check(&shown, &[]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with(&format!("{shown}:3: error: unknown field `workr`")),
        "{out}"
    );
}

#[test]
fn hark_help_lists_check() {
    let out = Command::new(HARK).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("check"), "{text}");
    let out = Command::new(HARK)
        .args(["check", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("<FILE>"), "{text}");
}

fn live(agent: &AgentSetup) -> (LiveCall, Arc<InMemorySpeech>) {
    let state = CallState::new(
        CallInfo::default(),
        &agent.language,
        agent.timezone.as_deref(),
    );
    let speech = Arc::new(InMemorySpeech::new());
    (LiveCall::new(state, speech.clone()).unwrap(), speech)
}

async fn call(agent: &AgentSetup, live: &LiveCall, tool: &str, args: Value) -> Value {
    let generation = live.generation();
    let done = agent
        .registry
        .call_live(tool, &args.to_string(), live, &generation)
        .await
        .expect("not discarded");
    done.outcome.model_result
}

/// The demo agent shops end to end: local tools keep the cart in the State, `place_order`
/// reads the order back and then places it, and `order_status` — a webhook from the file —
/// asks the real order service on loopback, whose exact address alone the guard allows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_shop_places_an_order_and_its_webhook_reaches_the_order_service() {
    let shop = hark_server::demo::start().await.unwrap();
    let agent = hark_server::demo::agent_file()
        .unwrap()
        .build(&shop.host)
        .unwrap();
    let (live, speech) = live(&agent);

    // An empty cart totals €0.00, never a negative zero.
    let empty = call(&agent, &live, "cart_total", json!({})).await;
    assert_eq!(empty["total"], "€0.00", "{empty}");
    assert_eq!(empty["items"], 0, "{empty}");

    // Before an order, the locked order id refuses the webhook with a hint; nothing is sent.
    let refused = call(&agent, &live, "order_status", json!({})).await;
    assert_eq!(
        refused["refused"],
        "last_order_id not set yet. Run first: it saves last_order_id (place_order), then call \
         this tool again."
    );

    call(
        &agent,
        &live,
        "add_to_cart",
        json!({"product": "travel mug", "quantity": 2}),
    )
    .await;
    call(
        &agent,
        &live,
        "add_to_cart",
        json!({"product": "Tea infuser"}),
    )
    .await;
    let total = call(&agent, &live, "cart_total", json!({})).await;
    assert_eq!(
        (total["items"].clone(), total["total"].clone()),
        (json!(3), json!("€46.00"))
    );
    let missing = call(
        &agent,
        &live,
        "add_to_cart",
        json!({"product": "red backpack"}),
    )
    .await;
    assert!(
        missing["error"].as_str().unwrap().starts_with(
            "The shop has no product called \"red backpack\". It sells: Espresso cup,"
        ),
        "{missing}"
    );

    let read_back = call(
        &agent,
        &live,
        "place_order",
        json!({"customer_name": "Ana", "email": "ana@example.com", "confirmed": false}),
    )
    .await;
    assert_eq!(read_back["status"], "needs_confirmation");
    assert!(shop.book.is_empty());
    let placed = call(
        &agent,
        &live,
        "place_order",
        json!({"customer_name": "Ana", "email": "ana@example.com", "confirmed": true}),
    )
    .await;
    assert_eq!(placed["order_id"], "HK-1001");
    assert_eq!(live.state.get("last_order_id"), Some(json!("HK-1001")));
    assert_eq!(live.state.get("cart"), Some(json!([])));
    assert_eq!(shop.book.len(), 1);

    let status = call(&agent, &live, "order_status", json!({})).await;
    assert_eq!(status["order_id"], "HK-1001");
    assert_eq!(status["status"], "received");
    assert_eq!(status["items"], 3);

    let lines = speech.lines();
    assert_eq!(
        lines[..5],
        [
            "Added 2 × Travel mug. You have 2 items, €38.00 in all.",
            "Added 1 × Tea infuser. You have 3 items, €46.00 in all.",
            "That's 2 × Travel mug and 1 × Tea infuser, €46.00 in all. Shall I place the order?",
            "Your order HK-1001 is placed: 2 × Travel mug and 1 × Tea infuser, €46.00.",
            "Let me check your order.",
        ]
    );
    assert!(
        lines[5].starts_with("Order HK-1001 is received. It arrives "),
        "{lines:?}"
    );
}

/// The demo host allows the order service's address only: a file pointing at another loopback
/// port is refused when it is built.
#[tokio::test]
async fn the_demo_host_allows_only_the_order_service() {
    let shop = hark_server::demo::start().await.unwrap();
    let port = shop.orders.addr().port();
    let other = if port == 65535 { port - 1 } else { port + 1 };
    let text = hark_server::demo::AGENT_FILE.replace(
        "${HARK_DEMO_ORDERS_URL}",
        &format!("http://127.0.0.1:{other}"),
    );
    let file: hark_agent::agent_file::AgentFile = text.parse().unwrap();
    let problems: Vec<String> = file
        .check(&shop.host)
        .iter()
        .filter(|p| p.is_error())
        .map(|p| p.text.clone())
        .collect();
    assert_eq!(
        problems,
        [
            "webhook order_status: the URL scheme is http. The scheme must be https, or http with \
             allow_private_network.",
            "webhook order_status: the URL host 127.0.0.1 is loopback. Webhooks refuse private, \
             loopback and link-local addresses; turn on allow_private_network only for your own \
             internal service.",
        ]
    );
}

/// `examples/booking.toml` (the demo's table booking flow) passes `hark check`, and its summary
/// names the flow.
#[test]
fn the_booking_flow_passes_hark_check() {
    let (code, out) = check("examples/booking.toml", &[("OPENAI_API_KEY", "sk-test")]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "examples/booking.toml: ok, 3 tools, LLM openai-compatible gpt-4.1-mini, UI worker off, \
         flow of 2 steps from booking\n"
    );
}

/// `hark check` runs the flow's build-time checks: each problem on the line it is about, with
/// its fix.
#[test]
fn hark_check_prints_the_flows_problems_with_their_lines_and_fixes() {
    let text = r#"system_prompt = "You take table bookings."
timezone = "Europe/Madrid"

[state.party]
type = "integer"

[tools]
builtin = ["end_call"]
local = ["book_table"]

[flow]
first = "booking"

[[flow.steps]]
name = "booking"
tools = ["book_tabel"]
saves = ["party", "guests"]
next = "goodbye"

[flow.steps.closing]
tool = "book_table"
finish = { status = ["booked", "past_day", "full"] }
confirm = ["A table for {{party}} on {{when}}. Shall I book it?"]

[[flow.steps]]
name = "wrap_up"
tools = ["end_call"]
"#;
    let path = temp_file("flow.toml", text);
    let shown = path.display().to_string();
    let (code, out) = check(&shown, &[]);
    assert_eq!(code, 1, "{out}");
    let expected = [
        format!(
            "{shown}:15: error: [flow] step booking: book_tabel is not a tool of the agent. Use \
             one of: end_call, book_table."
        ),
        format!(
            "{shown}:15: error: [flow] step booking: saves names guests, which is not a State \
             value (the file declares party). Declare it with a [state.guests] table, or remove \
             it from saves."
        ),
        format!(
            "{shown}:18: error: [flow] step booking: next names goodbye, which is not a step. Use \
             one of: booking, wrap_up."
        ),
        format!(
            "{shown}:20: error: [flow] step booking: its closing tool book_table is not in its \
             tools. Add book_table to the step's tools."
        ),
        format!(
            "{shown}:20: error: [flow] step booking: the finish rule takes every value status \
             can hold (\"booked\", \"past_day\", \"full\"), so a precheck outcome of book_table \
             would end the step. Leave out the values its precheck returns."
        ),
        format!(
            "{shown}:23: error: [flow] step booking: the confirm line reads {{{{when}}}}, which is \
             neither an argument of book_table nor a State value. Use one of: party, day, seating."
        ),
        format!(
            "{shown}:26: error: [flow] step wrap_up: no path from booking reaches it. Name it in \
             a step's next, or remove it."
        ),
        format!("{shown}: 7 errors"),
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);

    // A closing tool with a precheck and no finish rule; a first step that is not a step.
    let text = r#"system_prompt = "You take table bookings."

[tools]
local = ["book_table"]

[flow]
first = "start"

[[flow.steps]]
name = "booking"
tools = ["book_table"]
closing = { tool = "book_table" }
"#;
    let path = temp_file("flow-finish.toml", text);
    let shown = path.display().to_string();
    let (code, out) = check(&shown, &[]);
    assert_eq!(code, 1, "{out}");
    let expected = [
        format!(
            "{shown}:7: error: [flow] The flow starts in start, which is not a step. Use one of: \
             booking."
        ),
        format!(
            "{shown}:12: error: [flow] step booking: book_table has a precheck, so its finish \
             rule must name the results that end the step, like finish = {{ status = \
             [\"booked\"] }}. Without one, a precheck outcome would end it."
        ),
        format!("{shown}: 2 errors"),
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);
}

/// Tester's findings: a loopback host NAME (`localhost`, RFC 6761) is refused like
/// 127.0.0.1; a key pasted as `api_key_env` is an error that never prints the key; a wrong
/// type names its key, shape and example on its line.
#[test]
fn hark_check_refuses_loopback_names_pasted_keys_and_wrong_types() {
    let fix = "Webhooks refuse private, loopback and link-local addresses; turn on \
               allow_private_network only for your own internal service.";
    let text = r#"system_prompt = "You sell coffee gear."

[llm]
provider = "openai-compatible"
model = "m"
api_key_env = "sk-proj-abc123def456ghi789"

[[webhook]]
name = "order_status"
description = "Status."
url = "https://localhost:8443/orders/status"

[[webhook]]
name = "other"
description = "Other."
url = "http://sub.localhost:8080/x"
"#;
    let path = temp_file("loopback-names.toml", text);
    let shown = path.display().to_string();
    let (code, out) = check(&shown, &[]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            format!(
                "{shown}:6: error: [llm] api_key_env must name an environment variable (like \
                 OPENAI_API_KEY), not hold the key: move the key into a variable and name it here."
            ),
            format!(
                "{shown}:9: error: webhook order_status: the URL host localhost is loopback. {fix}"
            ),
            format!(
                "{shown}:14: error: webhook other: the URL scheme is http. The scheme must be \
                 https, or http with allow_private_network."
            ),
            format!(
                "{shown}:14: error: webhook other: the URL host sub.localhost is loopback. {fix}"
            ),
            format!("{shown}: 4 errors"),
        ]
    );
    assert!(!out.contains("abc123"), "{out}");

    let path = temp_file(
        "wrong-type.toml",
        "system_prompt = \"x\"\n\n[[webhook]]\nname = \"w\"\ndescription = \"W.\"\n\
         url = \"https://crm.example.com/x\"\ntimeout = \"5s\"\n",
    );
    let shown = path.display().to_string();
    let (code, out) = check(&shown, &[]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            format!(
                "{shown}:7: error: [[webhook]] timeout must be a number of seconds, like \
                 timeout = 5 (found string \"5s\")."
            ),
            format!("{shown}: 1 error"),
        ]
    );
}

/// `hark serve --demo --demo-stt-url URL`: the demo shop's agent with espeak-ng's voice and the
/// STT at URL, told the shop's words; a URL that is not one is a problem that names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_with_a_voice_speaks_with_espeak_and_hears_through_the_given_stt() {
    let shop = hark_server::demo::start().await.unwrap();
    let agent = hark_server::demo::agent_file_with_voice("http://127.0.0.1:8178/v1")
        .unwrap()
        .build(&shop.host)
        .unwrap();
    let tts = agent.tts.as_ref().expect("a voice");
    assert_eq!(tts.kind, hark_agent::agent_file::TtsProviderKind::EspeakNg);
    assert!(agent.stt.is_some(), "ears");
    assert!(
        agent.registry.contains("place_order"),
        "the shop's own tools"
    );
    let problems = hark_server::demo::agent_file_with_voice("not a url")
        .and_then(|file| file.build(&shop.host).map(|_| ()))
        .unwrap_err()
        .problems;
    assert!(
        problems.iter().any(|p| p.to_string().contains("not a url")),
        "{problems:?}"
    );
}
