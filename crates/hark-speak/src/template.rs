//! `{{…}}` templates: announce lines, reply lines and locked argument values.
//!
//! The guide's pages `docs/guide/announce-lines.md`, `docs/guide/replies-and-assign.md` and
//! `docs/guide/locked-values-and-transcript.md` show them in use.
//!
//! Grammar: text with placeholders `{{path}}`. Spaces inside the braces are ignored
//! (`{{ day }}` is `{{day}}`). A path is names of ASCII letters, digits, `_` or `-`, joined by dots.
//! The first name picks the [`Scope`]: `call` reads what the call carries, `result` reads the
//! tool's result, anything else reads a State value or an argument of this call. A single `{` or
//! `}` is plain text; `}}` outside a placeholder, `{{` inside one, an unclosed `{{`, an empty
//! placeholder and `{{@name}}` are errors naming the character position (1-based, in characters).

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::messages;
use crate::speaker::{SayAs, Speaker};

/// Where a placeholder reads its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `{{name}}`, `{{name.field}}`: a State value or an argument of this call.
    Value,
    /// `{{call.name}}`: what the call carries (`session_id`, `remote_number`, `carrier_call_id`,
    /// `participant`, `call_type`, `end_reason`).
    Call,
    /// `{{result.field}}`: the tool's result (reply lines only).
    Result,
}

/// One `{{…}}` of a template.
///
/// `path` holds the names after the scope word: `{{call.session_id}}` is
/// `Placeholder { scope: Call, path: ["session_id"] }`, `{{account.amount}}` is
/// `Placeholder { scope: Value, path: ["account", "amount"] }`. For [`Scope::Value`] the path is
/// never empty; for `Call` and `Result` it is never empty either (`{{call}}` is an error).
/// Displays as the placeholder's text, like `{{result.order.id}}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Placeholder {
    /// Which kind of value the path starts from.
    pub scope: Scope,
    /// Field names walked from that value, outermost first.
    pub path: Vec<String>,
}

impl fmt::Display for Placeholder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{{")?;
        match self.scope {
            Scope::Value => {}
            Scope::Call => f.write_str("call.")?,
            Scope::Result => f.write_str("result.")?,
        }
        f.write_str(&self.path.join("."))?;
        f.write_str("}}")
    }
}

/// A template that cannot be built. Its `Display` names the position and the fix (texts in
/// [`crate::messages`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// `{{@name}}` no longer exists. `name` is without `@`.
    #[error("{}", removed_message(name, *position))]
    Removed {
        /// The name after `@`, like `call_id`.
        name: String,
        /// 1-based character position of the `{{`.
        position: usize,
    },
    /// A `{{` without a closing `}}`.
    #[error("{}", messages::unclosed(*position))]
    Unclosed {
        /// 1-based character position of the `{{`.
        position: usize,
    },
    /// A `}}` without an opening `{{`.
    #[error("{}", messages::unopened(*position))]
    Unopened {
        /// 1-based character position of the `}}`.
        position: usize,
    },
    /// A `{{` inside an open placeholder.
    #[error("{}", messages::nested_open(*position))]
    Nested {
        /// 1-based character position of the inner `{{`.
        position: usize,
    },
    /// `{{}}`.
    #[error("{}", messages::empty_placeholder(*position))]
    Empty {
        /// 1-based character position of the `{{`.
        position: usize,
    },
    /// The text between the braces is not a dotted path of names.
    #[error("{}", messages::bad_path(inner, *position))]
    BadPath {
        /// The text between the braces, trimmed.
        inner: String,
        /// 1-based character position of the `{{`.
        position: usize,
    },
    /// `{{call}}` or `{{result}}` without a field.
    #[error("{}", messages::scope_without_field(scope, *position))]
    NoField {
        /// `call` or `result`.
        scope: String,
        /// 1-based character position of the `{{`.
        position: usize,
    },
}

fn removed_message(name: &str, position: usize) -> String {
    match name {
        "call_id" => messages::removed_call_id(position),
        "phone_number" => messages::removed_phone_number(position),
        "transcript" => messages::removed_transcript(position),
        other => messages::removed_at_name(other, position),
    }
}

/// A value a line needs is not set (the resolver gave `None`, or JSON `null`). The caller refuses
/// the line: nothing is said (for a reply line, the next reply is tried).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", messages::unfilled(&placeholder.to_string()))]
pub struct Unfilled {
    /// The first placeholder, in text order, that had no value.
    pub placeholder: Placeholder,
}

/// A problem with a locked argument's template, found at build time by
/// [`Template::check_locked`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockedError {
    /// The path does not exist in the call state.
    #[error("{}", messages::unknown_locked_path(&placeholder.to_string()))]
    UnknownPath {
        /// The placeholder whose path is unknown.
        placeholder: Placeholder,
    },
    /// An object or a list inside a longer text.
    #[error("{}", messages::shape_in_text(&placeholder.to_string()))]
    ShapeInText {
        /// The placeholder that names an object or a list.
        placeholder: Placeholder,
    },
}

/// What a path holds, as far as a build-time check needs to know (input of
/// [`Template::check_locked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A string, number, boolean, or anything that reads as text.
    Scalar,
    /// An object or an array: allowed only as the whole text of a locked argument.
    Shape,
}

/// A value for one placeholder and how to say it: the answer of [`Resolve::resolve`].
#[derive(Debug, Clone, PartialEq)]
pub struct SpokenValue<'a> {
    /// The JSON value, borrowed when the resolver holds it.
    pub value: Cow<'a, Value>,
    /// How to say it, from the output field's JSON Schema (see [`SayAs::from_schema`]).
    pub say_as: SayAs,
}

impl<'a> SpokenValue<'a> {
    /// A borrowed value said as `say_as`.
    pub fn new(value: &'a Value, say_as: SayAs) -> Self {
        Self {
            value: Cow::Borrowed(value),
            say_as,
        }
    }

    /// An owned value said as `say_as` (for values the resolver computes, like call fields).
    pub fn owned(value: Value, say_as: SayAs) -> SpokenValue<'static> {
        SpokenValue {
            value: Cow::Owned(value),
            say_as,
        }
    }
}

/// Gives the value of each placeholder. Implemented by the tool layer over the call state, the
/// call's arguments, what the call carries and the tool's result.
///
/// Return `None` when the value is not set; the template then reports [`Unfilled`].
pub trait Resolve {
    /// The value `placeholder` reads, with how to say it, or `None` when it is not set.
    fn resolve(&self, placeholder: &Placeholder) -> Option<SpokenValue<'_>>;
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// Byte range of literal text in `Template::text`.
    Text(usize, usize),
    /// Index into `Template::placeholders`.
    Slot(usize),
}

/// A parsed template. Build once (at tool build time), fill per line said.
///
/// ```
/// use hark_speak::{Template, Scope};
/// let t = Template::parse("Let me check {{day}} for {{brand}}. Call {{call.session_id}}.").unwrap();
/// assert_eq!(t.placeholders().len(), 3);
/// assert_eq!(t.placeholders()[2].scope, Scope::Call);
/// assert!(!t.is_single_placeholder());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    parts: Vec<Part>,
    placeholders: Vec<Placeholder>,
}

impl Template {
    /// Parses `text`. Errors name the 1-based character position and the fix; see the module doc
    /// for the grammar.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let bytes = text.as_bytes();
        let mut parts = Vec::new();
        let mut placeholders = Vec::new();
        let mut literal_start = 0;
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'{' && bytes.get(i + 1) == Some(&b'{') {
                let open = i;
                let position = char_position(text, open);
                let body_start = open + 2;
                let mut j = body_start;
                let close = loop {
                    if j + 1 >= bytes.len() {
                        return Err(TemplateError::Unclosed { position });
                    }
                    if bytes[j] == b'}' && bytes[j + 1] == b'}' {
                        break j;
                    }
                    if bytes[j] == b'{' && bytes[j + 1] == b'{' {
                        return Err(TemplateError::Nested {
                            position: char_position(text, j),
                        });
                    }
                    j += 1;
                };
                if literal_start < open {
                    parts.push(Part::Text(literal_start, open));
                }
                let placeholder = parse_placeholder(&text[body_start..close], position)?;
                parts.push(Part::Slot(placeholders.len()));
                placeholders.push(placeholder);
                i = close + 2;
                literal_start = i;
            } else if bytes[i] == b'}' && bytes.get(i + 1) == Some(&b'}') {
                return Err(TemplateError::Unopened {
                    position: char_position(text, i),
                });
            } else {
                i += 1;
            }
        }
        if literal_start < bytes.len() {
            parts.push(Part::Text(literal_start, bytes.len()));
        }
        Ok(Template {
            text: text.to_owned(),
            parts,
            placeholders,
        })
    }

    /// The text as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The placeholders in text order (a path used twice appears twice), so callers can check
    /// each path at build time.
    pub fn placeholders(&self) -> &[Placeholder] {
        &self.placeholders
    }

    /// True when the whole text is exactly one placeholder, like `"{{customer}}"` (no text or
    /// spaces around it). Only such a template may lock a whole object or list.
    pub fn is_single_placeholder(&self) -> bool {
        matches!(self.parts.as_slice(), [Part::Slot(_)])
    }

    /// Checks a locked argument's template at build time. `kind_of` tells what each path holds
    /// in the State type, or `None` when the path does not exist. Returns every problem at once:
    /// an unknown path, and an object or list inside a longer text. Whether the value's type fits
    /// the parameter is the registry's check: when
    /// [`is_single_placeholder`](Self::is_single_placeholder) is true the parameter receives the
    /// raw value, else a string.
    pub fn check_locked(
        &self,
        kind_of: &dyn Fn(&Placeholder) -> Option<ValueKind>,
    ) -> Vec<LockedError> {
        let single = self.is_single_placeholder();
        let mut problems = Vec::new();
        for placeholder in &self.placeholders {
            match kind_of(placeholder) {
                None => problems.push(LockedError::UnknownPath {
                    placeholder: placeholder.clone(),
                }),
                Some(ValueKind::Shape) if !single => problems.push(LockedError::ShapeInText {
                    placeholder: placeholder.clone(),
                }),
                Some(_) => {}
            }
        }
        problems
    }

    /// Fills the line to be said: each value is spoken by `speaker` in the call's language and
    /// timezone (see [`Speaker::say`]). The first value that is not set (or is `null`) gives
    /// [`Unfilled`] and nothing is said.
    pub fn fill(&self, values: &dyn Resolve, speaker: &Speaker) -> Result<String, Unfilled> {
        let mut out = String::with_capacity(self.text.len() + 32);
        for part in &self.parts {
            match *part {
                Part::Text(a, b) => out.push_str(&self.text[a..b]),
                Part::Slot(k) => {
                    let placeholder = &self.placeholders[k];
                    match values.resolve(placeholder) {
                        Some(v) if !v.value.is_null() => speaker.say_into(&v, &mut out),
                        _ => {
                            return Err(Unfilled {
                                placeholder: placeholder.clone(),
                            });
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Fills a locked argument. A single-placeholder template gives the raw JSON value (an object
    /// or list is kept whole); otherwise the text is filled with values as written, not spoken:
    /// strings without quotes, numbers and booleans as JSON prints them. An object or list found
    /// inside a longer text at run time (a State value whose type is open) is written as compact
    /// JSON; [`check_locked`](Self::check_locked) refuses that shape at build time when the type
    /// is known.
    pub fn fill_json(&self, values: &dyn Resolve) -> Result<Value, Unfilled> {
        if let [Part::Slot(k)] = self.parts.as_slice() {
            let placeholder = &self.placeholders[*k];
            return match values.resolve(placeholder) {
                Some(v) if !v.value.is_null() => Ok(v.value.into_owned()),
                _ => Err(Unfilled {
                    placeholder: placeholder.clone(),
                }),
            };
        }
        let mut out = String::with_capacity(self.text.len() + 32);
        for part in &self.parts {
            match *part {
                Part::Text(a, b) => out.push_str(&self.text[a..b]),
                Part::Slot(k) => {
                    let placeholder = &self.placeholders[k];
                    match values.resolve(placeholder) {
                        Some(v) if !v.value.is_null() => match v.value.as_ref() {
                            Value::String(s) => out.push_str(s),
                            other => out.push_str(&other.to_string()),
                        },
                        _ => {
                            return Err(Unfilled {
                                placeholder: placeholder.clone(),
                            });
                        }
                    }
                }
            }
        }
        Ok(Value::String(out))
    }
}

/// 1-based character position of byte offset `byte` in `text`.
fn char_position(text: &str, byte: usize) -> usize {
    text[..byte].chars().count() + 1
}

fn parse_placeholder(body: &str, position: usize) -> Result<Placeholder, TemplateError> {
    let inner = body.trim();
    if inner.is_empty() {
        return Err(TemplateError::Empty { position });
    }
    if let Some(name) = inner.strip_prefix('@') {
        return Err(TemplateError::Removed {
            name: name.trim().to_owned(),
            position,
        });
    }
    let mut names = Vec::new();
    for name in inner.split('.') {
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(TemplateError::BadPath {
                inner: inner.to_owned(),
                position,
            });
        }
        names.push(name.to_owned());
    }
    let scope = match names[0].as_str() {
        "call" => Scope::Call,
        "result" => Scope::Result,
        _ => Scope::Value,
    };
    if scope != Scope::Value {
        let word = names.remove(0);
        if names.is_empty() {
            return Err(TemplateError::NoField {
                scope: word,
                position,
            });
        }
    }
    Ok(Placeholder { scope, path: names })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(scope: Scope, path: &[&str]) -> Placeholder {
        Placeholder {
            scope,
            path: path.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn parses_scopes_and_nested_paths() {
        let t =
            Template::parse("{{day}} {{ account.amount }} {{call.session_id}} {{result.order.id}}")
                .unwrap();
        assert_eq!(
            t.placeholders(),
            &[
                p(Scope::Value, &["day"]),
                p(Scope::Value, &["account", "amount"]),
                p(Scope::Call, &["session_id"]),
                p(Scope::Result, &["order", "id"]),
            ]
        );
        assert_eq!(t.placeholders()[3].to_string(), "{{result.order.id}}");
    }

    #[test]
    fn single_placeholder_only_when_alone() {
        assert!(
            Template::parse("{{customer}}")
                .unwrap()
                .is_single_placeholder()
        );
        assert!(
            Template::parse("{{ customer }}")
                .unwrap()
                .is_single_placeholder()
        );
        assert!(
            !Template::parse(" {{customer}}")
                .unwrap()
                .is_single_placeholder()
        );
        assert!(
            !Template::parse("Customer: {{customer}}")
                .unwrap()
                .is_single_placeholder()
        );
        assert!(
            !Template::parse("{{a}}{{b}}")
                .unwrap()
                .is_single_placeholder()
        );
        assert!(!Template::parse("plain").unwrap().is_single_placeholder());
    }

    #[test]
    fn single_braces_are_text() {
        let t = Template::parse("a {b} c").unwrap();
        assert!(t.placeholders().is_empty());
    }

    #[test]
    fn malformed_braces_name_the_position() {
        assert_eq!(
            Template::parse("Hi {{day").unwrap_err(),
            TemplateError::Unclosed { position: 4 }
        );
        assert_eq!(
            Template::parse("é day}}").unwrap_err(),
            TemplateError::Unopened { position: 6 }
        );
        assert_eq!(
            Template::parse("{{a {{b}}").unwrap_err(),
            TemplateError::Nested { position: 5 }
        );
        assert_eq!(
            Template::parse("x {{ }}").unwrap_err(),
            TemplateError::Empty { position: 3 }
        );
        let e = Template::parse("{{a b}}").unwrap_err();
        assert_eq!(
            e,
            TemplateError::BadPath {
                inner: "a b".into(),
                position: 1
            }
        );
        assert!(e.to_string().contains("at character 1 is not a path"));
        assert!(
            Template::parse("{{a..b}}").is_err(),
            "empty name between dots"
        );
        assert_eq!(
            Template::parse("{{call}}").unwrap_err(),
            TemplateError::NoField {
                scope: "call".into(),
                position: 1
            }
        );
    }

    #[test]
    fn removed_at_names_give_new_spelling() {
        let e = Template::parse("id {{@call_id}}").unwrap_err();
        assert_eq!(
            e,
            TemplateError::Removed {
                name: "call_id".into(),
                position: 4
            }
        );
        assert!(
            e.to_string()
                .contains("{{@call_id}} is now {{call.carrier_call_id}} or {{call.session_id}}.")
        );
        let e = Template::parse("{{@phone_number}}").unwrap_err();
        assert!(
            e.to_string()
                .contains("{{@phone_number}} is {{call.remote_number}}.")
        );
        let e = Template::parse("{{@transcript}}").unwrap_err();
        assert!(e.to_string().contains("Transcript { max_messages }"));
        let e = Template::parse("{{@brand}}").unwrap_err();
        assert!(
            e.to_string()
                .contains("{{@brand}} at character 1 no longer exists")
        );
        assert!(e.to_string().contains("{{call.name}}"));
    }

    #[test]
    fn any_input_gives_a_template_or_an_error_never_a_panic() {
        let tricky = "é{{ {{@}} }}}{{a.b}}{{}}{ {{call.}}{{result}}{{x-y_z.0}}ü{{";
        let chars: Vec<(usize, char)> = tricky.char_indices().collect();
        for (k, &(start, _)) in chars.iter().enumerate() {
            for &(end, c) in &chars[k..] {
                let _ = Template::parse(&tricky[start..end + c.len_utf8()]);
            }
        }
        assert!(Template::parse("{{x-y_z.0}}").is_ok());
        assert!(Template::parse("{{call.}}").is_err());
    }

    #[test]
    fn check_locked_reports_every_problem() {
        let t = Template::parse("Customer: {{customer}} {{custmer.id}} {{customer.id}}").unwrap();
        let problems = t.check_locked(&|p| match p.path.join(".").as_str() {
            "customer" => Some(ValueKind::Shape),
            "customer.id" => Some(ValueKind::Scalar),
            _ => None,
        });
        assert_eq!(
            problems,
            vec![
                LockedError::ShapeInText {
                    placeholder: p(Scope::Value, &["customer"])
                },
                LockedError::UnknownPath {
                    placeholder: p(Scope::Value, &["custmer", "id"])
                },
            ]
        );
        let whole = Template::parse("{{customer}}").unwrap();
        assert!(whole.check_locked(&|_| Some(ValueKind::Shape)).is_empty());
    }
}
