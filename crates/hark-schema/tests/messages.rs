//! The texts of `messages.rs`, pinned word for word.

#![allow(missing_docs)]

use hark_schema::messages::{self, Bounds};
use serde_json::json;

#[test]
fn spec_texts_of_the_hand_written_schema_rules() {
    // `definitions` and `$id`.
    assert_eq!(
        messages::definitions_refused(),
        "definitions and $id are refused. Use $defs and local #/$defs/... references."
    );
    // `nullable`.
    assert_eq!(
        messages::nullable_refused(None),
        "nullable is not JSON Schema, so it is refused. Write \"type\": [\"<type>\", \"null\"] instead."
    );
    // The root.
    assert_eq!(
        messages::root_keyword_refused("oneOf"),
        "oneOf is not allowed at the root. The root of the parameters is a plain object schema. \
It may hold only $schema, $defs, type (\"object\"), properties, required, additionalProperties, \
description, title, $comment and x- keys. Frameworks send only the root properties and required, \
so oneOf would be lost on one of them. Move it into a property, or wrap the choice in one property."
    );
}

#[test]
fn words_for_formats() {
    let f = |s: &str| messages::describe_format(s);
    assert_eq!(f("date").as_deref(), Some("A date written YYYY-MM-DD."));
    assert_eq!(
        f("time").as_deref(),
        Some("A time of day written HH:MM:SS, like 09:30:00.")
    );
    assert_eq!(f("email").as_deref(), Some("An email address."));
    assert_eq!(
        f("uri").as_deref(),
        Some("A full web address, like https://example.com/page.")
    );
    assert_eq!(
        f("uuid").as_deref(),
        Some("A UUID, like 123e4567-e89b-12d3-a456-426614174000.")
    );
    assert_eq!(
        f("duration").as_deref(),
        Some("A duration written in ISO 8601, like PT1H30M.")
    );
    assert_eq!(f("uint8"), None);
    assert_eq!(f("double"), None);
    assert_eq!(
        messages::describe_pattern("^a+$"),
        "It matches the regular expression ^a+$."
    );
}

#[test]
fn words_for_bounds() {
    let b = |k, lo: Option<serde_json::Value>, hi: Option<serde_json::Value>| {
        messages::describe_bounds(k, lo.as_ref(), hi.as_ref())
    };
    assert_eq!(
        b(Bounds::Number, Some(json!(1)), Some(json!(12))),
        "From 1 to 12."
    );
    assert_eq!(b(Bounds::Number, Some(json!(0)), None), "At least 0.");
    assert_eq!(b(Bounds::Number, None, Some(json!(2.5))), "At most 2.5.");
    assert_eq!(
        b(Bounds::Length, Some(json!(1)), None),
        "At least 1 character."
    );
    assert_eq!(
        b(Bounds::Length, Some(json!(6)), Some(json!(6))),
        "Exactly 6 characters."
    );
    assert_eq!(b(Bounds::Items, None, Some(json!(1))), "At most 1 item.");
    assert_eq!(
        b(Bounds::Properties, Some(json!(2)), None),
        "At least 2 entries."
    );
    assert_eq!(
        b(Bounds::Exclusive, Some(json!(0)), Some(json!(1))),
        "Greater than 0 and less than 1."
    );
    assert_eq!(
        messages::describe_multiple_of(&json!(5)),
        "A multiple of 5."
    );
    assert_eq!(
        messages::describe_unique_items(&json!(true)).as_deref(),
        Some("No item twice.")
    );
    assert_eq!(messages::describe_unique_items(&json!(false)), None);
}

#[test]
fn words_for_values() {
    assert_eq!(
        messages::describe_default(&json!("inside")),
        "Default: \"inside\"."
    );
    assert_eq!(
        messages::describe_examples(&json!([1, "a"])),
        "For example: 1, \"a\"."
    );
    assert_eq!(messages::describe_const(&json!(3)), "Always 3.");
    assert_eq!(
        messages::describe_enum(&[json!(1), json!(2)]),
        "One of 1, 2."
    );
    assert_eq!(
        messages::describe_choice(&json!("sms"), "A text message"),
        "\"sms\": A text message."
    );
    assert_eq!(
        messages::describe_keyword("contains", &json!({"type": "string"})),
        "contains: {\"type\":\"string\"}."
    );
}

#[test]
fn notes_join_the_description_as_sentences() {
    let n = |d: Option<&str>, notes: &[&str]| {
        messages::append_to_description(d, &notes.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    };
    assert_eq!(
        n(None, &["A date written YYYY-MM-DD."]),
        "A date written YYYY-MM-DD."
    );
    assert_eq!(n(Some("The day"), &["A."]), "The day. A.");
    assert_eq!(n(Some("The day? "), &["A.", "B."]), "The day? A. B.");
    assert_eq!(n(Some("Same"), &[]), "Same");
}
