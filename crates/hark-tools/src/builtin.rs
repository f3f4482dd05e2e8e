//! Built-in tools: the current date and time, the caller's phone number, and ending the call.
//!
//! Guide: `docs/guide/built-in-tools.md` and `docs/guide/ending-the-call.md`. Each returns a
//! [`ToolSpec`]; change what the model reads with [`ToolSpec::with_name`] and
//! [`ToolSpec::with_description`] (the `name=` and `description=` of the guide).

use std::sync::Arc;

use futures::future::BoxFuture;
use hark_speak::{Clock, SystemClock};
use jiff::tz::TimeZone;
use serde_json::{Value, json};

use crate::call::CallType;
use crate::context::{Arguments, ToolContext};
use crate::error::ToolError;
use crate::executor::ToolExecutor;
use crate::messages;
use crate::output::Output;
use crate::spec::{BuildError, ToolSpec};

fn no_parameters() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

/// The default name of [`current_datetime_tool`].
pub const CURRENT_DATETIME: &str = "current_datetime";
/// The default name of [`user_phone_number_tool`].
pub const USER_PHONE_NUMBER: &str = "user_phone_number";

#[derive(Debug)]
struct CurrentDateTime {
    zone: TimeZone,
    name: String,
    clock: Arc<dyn Clock>,
}

impl ToolExecutor for CurrentDateTime {
    fn run<'a>(
        &'a self,
        _arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        let now = self.clock.now().to_zoned_datetime(self.zone.clone());
        let result = json!({
            "datetime": now.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
            "date": now.strftime("%Y-%m-%d").to_string(),
            "time": now.strftime("%H:%M").to_string(),
            "weekday": now.strftime("%A").to_string(),
            "timezone": self.name,
        });
        Box::pin(async move { Ok(result) })
    }
}

/// The output of [`current_datetime_tool`], named `CurrentDateTime`:
/// `{"datetime": "2026-10-16T09:00:00+02:00", "date": "2026-10-16", "time": "09:00",
/// "weekday": "Friday", "timezone": "Europe/Madrid"}`. `datetime` is RFC 3339 with the zone's
/// offset at that instant; `time` is 24-hour `HH:MM`; `weekday` is the English name.
pub fn current_datetime_output() -> Output {
    Output::json(
        "CurrentDateTime",
        json!({
            "type": "object",
            "properties": {
                "datetime": {"type": "string", "format": "date-time", "description": "Now, RFC 3339 with the offset."},
                "date": {"type": "string", "format": "date", "description": "Today, YYYY-MM-DD."},
                "time": {"type": "string", "format": "time", "description": "Now, HH:MM (24-hour)."},
                "weekday": {"type": "string", "description": "Today's weekday in English, like Friday."},
                "timezone": {"type": "string", "description": "The IANA timezone."}
            },
            "required": ["datetime", "date", "time", "weekday", "timezone"]
        }),
    )
}

/// `current_datetime`: the date and time now in `zone`, an IANA timezone like `"Europe/Madrid"`.
/// Output: see [`current_datetime_output`]. A name that is not an IANA zone fails ("Built-in
/// tools", point 1), naming it.
pub fn current_datetime_tool(zone: &str) -> Result<ToolSpec, BuildError> {
    current_datetime_tool_with_clock(zone, Arc::new(SystemClock))
}

/// [`current_datetime_tool`] with a clock (tests, replays).
pub fn current_datetime_tool_with_clock(
    zone: &str,
    clock: Arc<dyn Clock>,
) -> Result<ToolSpec, BuildError> {
    let tz = hark_speak::locale::time_zone(zone)
        .map_err(|e| BuildError::new(messages::not_an_iana_zone(&e.to_string())))?;
    ToolSpec::new(
        CURRENT_DATETIME,
        "Get the current date, time and weekday.",
        no_parameters(),
        current_datetime_output(),
        Arc::new(CurrentDateTime {
            zone: tz,
            name: zone.to_string(),
            clock,
        }),
    )
}

#[derive(Debug)]
struct UserPhoneNumber;

impl ToolExecutor for UserPhoneNumber {
    fn run<'a>(
        &'a self,
        _arguments: Arguments,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        let call_type = match context.call.call_type {
            CallType::Inbound => json!("inbound"),
            CallType::Outbound => json!("outbound"),
            CallType::None => Value::Null,
        };
        let number = context
            .call
            .remote_number
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty());
        let result = match number {
            Some(number) => json!({
                "available": true,
                "phone_number": number,
                "call_type": call_type,
            }),
            None => json!({
                "available": false,
                "phone_number": null,
                "call_type": null,
                "reason": messages::no_phone_number(),
            }),
        };
        Box::pin(async move { Ok(result) })
    }
}

/// The output of [`user_phone_number_tool`], named `UserPhoneNumber`:
/// `{"available": true, "phone_number": "+14155550123", "call_type": "inbound" | "outbound" |
/// null}`, or `{"available": false, "phone_number": null, "call_type": null, "reason": "…"}`.
pub fn user_phone_number_output() -> Output {
    Output::json(
        "UserPhoneNumber",
        json!({
            "type": "object",
            "properties": {
                "available": {"type": "boolean"},
                "phone_number": {"type": ["string", "null"], "format": "phone"},
                "call_type": {"enum": ["inbound", "outbound", null]},
                "reason": {"type": "string"}
            },
            "required": ["available", "phone_number", "call_type"]
        }),
    )
}

/// `user_phone_number`: the caller's number from `state.call` ("Built-in tools", points 2–5).
pub fn user_phone_number_tool() -> Result<ToolSpec, BuildError> {
    ToolSpec::new(
        USER_PHONE_NUMBER,
        "Get the phone number the caller is calling from, and whether the call is inbound or outbound.",
        no_parameters(),
        user_phone_number_output(),
        Arc::new(UserPhoneNumber),
    )
}

#[derive(Debug)]
struct EndCall;

impl ToolExecutor for EndCall {
    fn run<'a>(
        &'a self,
        _arguments: Arguments,
        _context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async { Ok(json!({"ok": true})) })
    }
}

/// `end_call` ("End the call"): a tool with no arguments whose success ends the conversation.
/// `goodbye` is its announce line, said with `announce_wait` so it plays before the call ends.
/// Output: `Done` (`{"ok": true}`). Fails when `goodbye` is empty (or only spaces) or not a
/// valid line.
pub fn end_call_tool(description: &str, goodbye: &str) -> Result<ToolSpec, BuildError> {
    if goodbye.trim().is_empty() {
        return Err(BuildError::new(messages::blank_goodbye()));
    }
    Ok(ToolSpec::new(
        messages::END_CALL,
        description,
        no_parameters(),
        Output::done(),
        Arc::new(EndCall),
    )?
    .announce([goodbye])?
    .announce_wait(true)
    .ends_conversation())
}
