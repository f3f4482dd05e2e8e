//! Every sentence this crate writes for a developer, the model or the caller, in one place.
//!
//! Each text is a function with named inputs, so a reviewer reads all of them here and tests pin
//! them to their exact words (the removed `{{@…}}` spellings, a locked object inside a longer
//! text, the yes/no words).

/// `{{@call_id}}` was used: names the new spelling.
pub fn removed_call_id(position: usize) -> String {
    format!(
        "{{{{@call_id}}}} at character {position} no longer exists. \
         {{{{@call_id}}}} is now {{{{call.carrier_call_id}}}} or {{{{call.session_id}}}}."
    )
}

/// `{{@phone_number}}` was used: names the new spelling.
pub fn removed_phone_number(position: usize) -> String {
    format!(
        "{{{{@phone_number}}}} at character {position} no longer exists. \
         {{{{@phone_number}}}} is {{{{call.remote_number}}}}."
    )
}

/// `{{@transcript}}` was used: names the new spelling (the argument locked to
/// `Transcript { max_messages }` in place of a text).
pub fn removed_transcript(position: usize) -> String {
    format!(
        "{{{{@transcript}}}} at character {position} no longer exists. \
         {{{{@transcript}}}} is Transcript {{ max_messages }}: lock the argument to it instead of a text."
    )
}

/// Any other `{{@name}}` was used.
pub fn removed_at_name(name: &str, position: usize) -> String {
    format!(
        "{{{{@{name}}}}} at character {position} no longer exists: {{{{@…}}}} names were removed. \
         Read a State value as {{{{name}}}} or what the call carries as {{{{call.name}}}}, \
         like {{{{call.session_id}}}}."
    )
}

/// A `{{` with no `}}` after it.
pub fn unclosed(position: usize) -> String {
    format!(
        "the {{{{ at character {position} is never closed. Close it with }}}}, like {{{{day}}}}."
    )
}

/// A `}}` with no `{{` before it.
pub fn unopened(position: usize) -> String {
    format!(
        "the }}}} at character {position} closes nothing. Open the value with {{{{, like {{{{day}}}}, \
         or remove the braces."
    )
}

/// A `{{` inside a value that is still open.
pub fn nested_open(position: usize) -> String {
    format!(
        "the {{{{ at character {position} opens a value inside another value. \
         Close the first one with }}}} before it."
    )
}

/// `{{}}` or `{{   }}`.
pub fn empty_placeholder(position: usize) -> String {
    format!(
        "the value at character {position} is empty. Name what to read, like {{{{day}}}}, \
         {{{{result.order_id}}}} or {{{{call.session_id}}}}."
    )
}

/// A placeholder whose text is not a dotted path of names.
pub fn bad_path(inner: &str, position: usize) -> String {
    format!(
        "{{{{{inner}}}}} at character {position} is not a path. Use names of letters, digits, _ or - \
         joined by dots, like {{{{account.amount}}}}."
    )
}

/// `{{call}}` or `{{result}}` alone.
pub fn scope_without_field(scope: &str, position: usize) -> String {
    format!(
        "{{{{{scope}}}}} at character {position} names no field. Name one, like {{{{{scope}.{example}}}}}.",
        example = if scope == "call" {
            "session_id"
        } else {
            "order_id"
        }
    )
}

/// A value locked inside a longer text is an object or a list.
pub fn shape_in_text(placeholder: &str) -> String {
    format!(
        "{placeholder} is an object or a list and cannot sit inside a longer text. \
         Lock it as the only text (\"{placeholder}\") to a parameter that is an object, an array or has no type, \
         or name one of its fields."
    )
}

/// A locked path the call state does not have.
pub fn unknown_locked_path(placeholder: &str) -> String {
    format!(
        "{placeholder} names a value the call state does not have. \
         Fix the path, or add the field to the State type."
    )
}

/// A value a line needs is not set: the line is refused and nothing is said. This is the
/// developer-facing text of [`crate::Unfilled`]; the model-facing refusal hint is written by the
/// tool registry.
pub fn unfilled(placeholder: &str) -> String {
    format!("{placeholder} is not set, so the line is not said.")
}

/// A timezone that is not a name of the tz database; `suggestion` the nearest name, if any.
///
/// Example: `timezone "Europe/Pariss" is not a timezone of the tz database; did you mean
/// "Europe/Paris"? Write an IANA name like "Europe/Madrid" or "America/New_York".`
pub fn unknown_time_zone(name: &str, suggestion: Option<&str>) -> String {
    format!(
        "timezone \"{name}\" is not a timezone of the tz database{} \
         Write an IANA name like \"Europe/Madrid\" or \"America/New_York\".",
        did_you_mean(suggestion)
    )
}

/// A language tag that is not BCP 47, or names a language without CLDR date data: Hark could
/// not say dates, times or numbers in it. `suggestion` the nearest code, if any.
///
/// Example: `language "english" is not a language Hark can speak values in; did you mean "en"?
/// Write a BCP 47 tag like "en-US", "es", "fr" or "de" (en_US is read as en-US).`
pub fn unknown_language(tag: &str, suggestion: Option<&str>) -> String {
    format!(
        "language \"{tag}\" is not a language Hark can speak values in{} \
         Write a BCP 47 tag like \"en-US\", \"es\", \"fr\" or \"de\" (en_US is read as en-US).",
        did_you_mean(suggestion)
    )
}

fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or(".".to_string(), |s| format!("; did you mean \"{s}\"?"))
}

/// How a boolean is said, by language (other values without a format are said as they are; a
/// caller hears "yes"/"no" rather than "true"/"false"). Languages
/// outside this table say the English words, like every other fallback here.
pub fn yes_no(language: &str, value: bool) -> &'static str {
    match (language, value) {
        ("es", true) => "sí",
        ("es", false) => "no",
        ("fr", true) => "oui",
        ("fr", false) => "non",
        ("de", true) => "ja",
        ("de", false) => "nein",
        (_, true) => "yes",
        (_, false) => "no",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_names_give_the_spec_spelling() {
        // The removed spellings and their new forms: "{{@call_id}} is now {{call.carrier_call_id}}
        // or {{call.session_id}}. {{@phone_number}} is {{call.remote_number}}. {{@transcript}} is
        // Transcript()."
        assert!(
            removed_call_id(1)
                .contains("{{@call_id}} is now {{call.carrier_call_id}} or {{call.session_id}}.")
        );
        assert!(removed_phone_number(1).contains("{{@phone_number}} is {{call.remote_number}}."));
        assert!(removed_transcript(1).contains("{{@transcript}} is Transcript { max_messages }"));
        assert!(
            removed_at_name("brand", 7).starts_with("{{@brand}} at character 7 no longer exists")
        );
    }

    #[test]
    fn shape_message_names_the_fix() {
        let m = shape_in_text("{{customer}}");
        assert!(m.contains("Lock it as the only text (\"{{customer}}\")"));
        assert!(m.contains("an object, an array or has no type"));
    }

    #[test]
    fn yes_no_words() {
        assert_eq!(yes_no("en", true), "yes");
        assert_eq!(yes_no("es", true), "sí");
        assert_eq!(yes_no("fr", false), "non");
        assert_eq!(yes_no("de", false), "nein");
        assert_eq!(yes_no("pt", true), "yes");
    }
}
