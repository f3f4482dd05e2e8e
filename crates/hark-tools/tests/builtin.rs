//! Built-in tools ("Built-in tools"): `current_datetime`, `user_phone_number`; and the
//! build-time checks of lines and rows not covered in `live.rs`.

use std::sync::Arc;

use hark_tools::builtin::current_datetime_tool_with_clock;
use hark_tools::{
    Assign, CallInfo, CallType, FixedClock, ToolContext, ToolError, ToolRegistry, ToolReply,
    ToolSpec, current_datetime_tool, user_phone_number_tool,
};
use serde_json::json;

fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn current_datetime_reads_the_zone_and_its_offset_across_dst() {
    // 2026-10-16 07:00 UTC is 09:00 in Madrid (summer time, +02:00).
    let clock = Arc::new(FixedClock("2026-10-16T07:00:00Z".parse().unwrap()));
    let tool = current_datetime_tool_with_clock("Europe/Madrid", clock).unwrap();
    assert_eq!(tool.name(), "current_datetime");
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let outcome = block(registry.call("current_datetime", "{}", &ToolContext::default()));
    assert_eq!(
        outcome.model_result,
        json!({
            "datetime": "2026-10-16T09:00:00+02:00",
            "date": "2026-10-16",
            "time": "09:00",
            "weekday": "Friday",
            "timezone": "Europe/Madrid"
        })
    );
    // After the change back (25 October), the offset is +01:00.
    let clock = Arc::new(FixedClock("2026-10-26T08:00:00Z".parse().unwrap()));
    let registry = ToolRegistry::new(vec![
        current_datetime_tool_with_clock("Europe/Madrid", clock).unwrap(),
    ])
    .unwrap();
    let outcome = block(registry.call("current_datetime", "{}", &ToolContext::default()));
    assert_eq!(
        outcome.model_result["datetime"],
        "2026-10-26T09:00:00+01:00"
    );
    assert_eq!(outcome.model_result["weekday"], "Monday");
}

#[test]
fn current_datetime_refuses_a_name_that_is_not_iana() {
    for zone in ["CET+1", "+02:00", "Mars/Olympus_Mons"] {
        assert_eq!(
            current_datetime_tool(zone).unwrap_err().problems,
            vec![format!(
                "current_datetime_tool: timezone \"{zone}\" is not a timezone of the tz database. \
                 Write an IANA name like \"Europe/Madrid\" or \"America/New_York\"."
            )]
        );
    }
    assert_eq!(
        current_datetime_tool("Madrid").unwrap_err().problems,
        vec![
            "current_datetime_tool: timezone \"Madrid\" is not a timezone of the tz database; \
             did you mean \"Europe/Madrid\"? Write an IANA name like \"Europe/Madrid\" or \
             \"America/New_York\"."
        ]
    );
}

#[test]
fn built_ins_take_name_and_description_overrides() {
    let tool = current_datetime_tool("Europe/Madrid")
        .unwrap()
        .with_name("now")
        .unwrap()
        .with_description("What time is it?");
    assert_eq!(tool.name(), "now");
    assert_eq!(tool.description(), "What time is it?");
    let tool = user_phone_number_tool().unwrap();
    assert_eq!(tool.name(), "user_phone_number");
}

#[test]
fn user_phone_number_reads_the_call() {
    let registry = ToolRegistry::new(vec![user_phone_number_tool().unwrap()]).unwrap();
    let context = ToolContext {
        call: CallInfo {
            session_id: "s".into(),
            remote_number: Some("+14155550123".into()),
            call_type: CallType::Outbound,
            ..CallInfo::default()
        },
        ..ToolContext::default()
    };
    let outcome = block(registry.call("user_phone_number", "{}", &context));
    assert_eq!(
        outcome.model_result,
        json!({"available": true, "phone_number": "+14155550123", "call_type": "outbound"})
    );
    let context = ToolContext {
        call: CallInfo {
            remote_number: Some("+14155550123".into()),
            call_type: CallType::None,
            ..CallInfo::default()
        },
        ..ToolContext::default()
    };
    let outcome = block(registry.call("user_phone_number", "{}", &context));
    assert_eq!(outcome.model_result["call_type"], json!(null));
    let outcome = block(registry.call("user_phone_number", "{}", &ToolContext::default()));
    assert_eq!(
        outcome.model_result,
        json!({
            "available": false,
            "phone_number": null,
            "call_type": null,
            "reason": "This call has no phone number. Ask the caller for it if you need it."
        })
    );
}

// ------------------------------------------------------------------- build-time line checks

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Q {
    order_id: String,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default)]
struct St {
    /// The caller's first name.
    name: Option<String>,
}

fn tool() -> ToolSpec {
    ToolSpec::local("find", "Find.", |_: Q| async {
        Ok::<_, ToolError>(json!({"ok": true}))
    })
    .unwrap()
}

#[test]
fn announce_lines_are_checked_at_build() {
    assert_eq!(
        tool()
            .announce(["Looking up {{result.order_id}}.", "For {{call.phone}}."])
            .unwrap_err()
            .problems,
        vec![
            "find: {{result.order_id}} reads the result, which only reply lines can read. Read a State value or {{call.name}} instead.",
            "find: {{call.phone}} is not something a call carries. Use call.session_id, call.remote_number, call.carrier_call_id, call.participant, call.call_type or call.end_reason.",
        ]
    );
    let announced = tool().announce(["Checking {{nme}}."]).unwrap();
    let problems = ToolRegistry::builder(vec![announced])
        .state::<St>()
        .build()
        .unwrap_err()
        .problems;
    assert_eq!(
        problems,
        vec![
            "find: {{nme}} is neither an argument of find nor a State value. Use one of: order_id, name."
        ]
    );
    // Without a State type, a name that is no argument fails the build too: every call would
    // otherwise be refused. An argument and a call value still build.
    let problems = ToolRegistry::new(vec![tool().announce(["Checking {{nme}}."]).unwrap()])
        .unwrap_err()
        .problems;
    assert_eq!(
        problems,
        vec![
            "find: {{nme}} is not an argument of find, and the registry has no State type to read it from. \
             Use one of: order_id, or call.session_id, call.remote_number, call.carrier_call_id, call.participant, \
             call.call_type, call.end_reason; for a State value, build the registry with its State type (state= in Python)."
        ]
    );
    assert!(
        ToolRegistry::new(vec![
            tool()
                .announce(["Checking {{order_id}} for {{call.remote_number}}."])
                .unwrap()
        ])
        .is_ok()
    );
}

#[test]
fn rows_that_need_a_state_say_so_and_empty_replies_are_refused() {
    let problems =
        ToolRegistry::builder(vec![tool().replies([ToolReply::say(Vec::<String>::new())])])
            .assign("find", [Assign::new("name", ["ok"])])
            .replies([ToolReply::say(["x"]).tool("find").state("name", ["Ana"])])
            .build()
            .unwrap_err()
            .problems;
    assert_eq!(
        problems,
        vec![
            "find: a reply's state condition needs the State type. Build the registry with .state::<State>().",
            "find: a reply has no line to say. Give it at least one line in say.",
            "find: an assign row needs the State type. Build the registry with .state::<State>().",
        ]
    );
}

#[test]
fn a_precheck_must_return_the_tools_output() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Other {
        x: u8,
    }
    let problems = tool().precheck(|_: Q| None::<Other>).unwrap_err().problems;
    assert_eq!(
        problems,
        vec![
            "find: the precheck returned an outcome that does not fit AnyValue. Return the tool's output type."
        ]
    );
}

// ------------------------------------------------------------------- call.participant

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Who {
    who: String,
}

/// `{{call.participant}}` is a call value like the others: a locked value reads who the call's
/// platform says the agent talks with, and a call that does not carry one is refused in the
/// spec's words.
#[test]
fn call_participant_is_read_by_a_locked_value_and_refused_when_not_carried() {
    let tool = ToolSpec::local("note", "Note who called.", |w: Who| async move {
        Ok::<_, ToolError>(json!({"who": w.who}))
    })
    .unwrap()
    .lock("who", "{{call.participant}}")
    .unwrap();
    let registry = ToolRegistry::new(vec![tool]).unwrap();
    let context = ToolContext {
        call: CallInfo {
            session_id: "room-7".into(),
            participant: Some("sip_+14155550123".into()),
            ..CallInfo::default()
        },
        ..ToolContext::default()
    };
    let outcome = block(registry.call("note", "{}", &context));
    assert_eq!(outcome.model_result, json!({"who": "sip_+14155550123"}));
    let outcome = block(registry.call("note", "{}", &ToolContext::default()));
    assert_eq!(
        outcome.model_result,
        json!({"refused": "This tool reads call.participant, which this call does not carry."})
    );
    assert!(hark_tools::CALL_VALUES.contains(&"participant"));
}
