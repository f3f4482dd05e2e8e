//! Templates filled for speech and for locked arguments: announce lines with values, replies that
//! speak a result, and locked argument values.

use std::collections::HashMap;
use std::sync::Arc;

use hark_speak::{
    FixedClock, Placeholder, Resolve, SayAs, Scope, Speaker, SpokenValue, Template, Unfilled,
};
use serde_json::{Value, json};

/// A call's values as JSON, with the schema format of some paths.
struct Call {
    state: Value,
    call: Value,
    result: Value,
    say_as: HashMap<&'static str, SayAs>,
}

impl Resolve for Call {
    fn resolve(&self, p: &Placeholder) -> Option<SpokenValue<'_>> {
        let root = match p.scope {
            Scope::Value => &self.state,
            Scope::Call => &self.call,
            Scope::Result => &self.result,
        };
        let value = p.path.iter().try_fold(root, |v, name| v.get(name))?;
        let key = p.to_string();
        let say_as = self.say_as.get(key.as_str()).copied().unwrap_or_default();
        Some(SpokenValue::new(value, say_as))
    }
}

fn call() -> Call {
    Call {
        state: json!({
            "day": "2026-10-16",
            "brand": "Acme",
            "name": "Ana",
            "account": {"amount_words": "forty two euros"},
            "customer": {"id": "C-9", "tags": ["vip"]},
            "unset": null
        }),
        call: json!({"session_id": "s-123", "remote_number": "+14155550123"}),
        result: json!({
            "order_id": "A-17",
            "status": "held",
            "arrives": "2026-10-16",
            "order": {"id": "A-17", "status": "inProgress"}
        }),
        say_as: HashMap::from([
            ("{{day}}", SayAs::Date),
            ("{{result.arrives}}", SayAs::Date),
            ("{{result.order.status}}", SayAs::Words),
            ("{{call.remote_number}}", SayAs::Phone),
        ]),
    }
}

fn speaker() -> Speaker {
    // 2026-10-15 12:00 in New York.
    let now = "2026-10-15T16:00:00Z".parse().unwrap();
    Speaker::with_clock("en-US", Some("America/New_York"), Arc::new(FixedClock(now))).unwrap()
}

#[test]
fn announce_line_of_the_spec() {
    let t =
        Template::parse("Let me check {{day}} for {{brand}}. Call {{call.session_id}}.").unwrap();
    assert_eq!(
        t.fill(&call(), &speaker()).unwrap(),
        "Let me check tomorrow, October 16 for Acme. Call s-123."
    );
}

#[test]
fn reply_lines_of_the_spec() {
    let s = speaker();
    let c = call();
    let fill = |text: &str| Template::parse(text).unwrap().fill(&c, &s).unwrap();
    assert_eq!(fill("{{result.order_id}} is held."), "A-17 is held.");
    assert_eq!(
        fill("{{name}}, it arrives {{result.arrives}}."),
        "Ana, it arrives tomorrow, October 16."
    );
    assert_eq!(
        fill("Your order arrives {{result.arrives}}."),
        "Your order arrives tomorrow, October 16."
    );
    assert_eq!(fill("{{account.amount_words}}"), "forty two euros");
    assert_eq!(
        fill("Order {{result.order.id}} is {{result.order.status}}."),
        "Order A-17 is in progress."
    );
    assert_eq!(
        fill("We will call {{call.remote_number}}."),
        "We will call 415 555 0123."
    );
    assert_eq!(
        fill("No values, {braces} kept."),
        "No values, {braces} kept."
    );
}

#[test]
fn a_value_not_set_refuses_the_line() {
    let s = speaker();
    let c = call();
    let err = Template::parse("Hi {{name}}, {{missing}} and {{unset}}.")
        .unwrap()
        .fill(&c, &s)
        .unwrap_err();
    assert_eq!(
        err,
        Unfilled {
            placeholder: Placeholder {
                scope: Scope::Value,
                path: vec!["missing".into()]
            }
        }
    );
    assert_eq!(
        err.to_string(),
        "{{missing}} is not set, so the line is not said."
    );
    // JSON null is not set either.
    let err = Template::parse("{{unset}}")
        .unwrap()
        .fill(&c, &s)
        .unwrap_err();
    assert_eq!(err.placeholder.to_string(), "{{unset}}");
    // A result field that is missing.
    let err = Template::parse("{{result.tracking}}")
        .unwrap()
        .fill(&c, &s)
        .unwrap_err();
    assert_eq!(err.placeholder.scope, Scope::Result);
}

#[test]
fn locked_whole_shape_is_kept() {
    let c = call();
    let t = Template::parse("{{customer}}").unwrap();
    assert_eq!(
        t.fill_json(&c).unwrap(),
        json!({"id": "C-9", "tags": ["vip"]})
    );
    let t = Template::parse("{{customer.tags}}").unwrap();
    assert_eq!(t.fill_json(&c).unwrap(), json!(["vip"]));
}

#[test]
fn locked_text_is_written_not_spoken() {
    let c = call();
    // Dates stay as written in a locked argument: it goes to code, not to the caller.
    let t = Template::parse("{{customer.id}}/{{day}}/{{call.session_id}}").unwrap();
    assert_eq!(t.fill_json(&c).unwrap(), json!("C-9/2026-10-16/s-123"));
    let t = Template::parse("{{call.session_id}}").unwrap();
    assert_eq!(t.fill_json(&c).unwrap(), json!("s-123"));
    let t = Template::parse("{{call.carrier_call_id}}").unwrap();
    assert_eq!(
        t.fill_json(&c).unwrap_err().placeholder.to_string(),
        "{{call.carrier_call_id}}"
    );
}
