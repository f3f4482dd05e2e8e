//! The schema check's errors as the model and the log read them, for arguments and results alike.
//!
//! A validator error becomes one or more [`Problem`]s: the dotted path of the value it is about
//! (a missing field is named itself: `status`, `contact.name`, never its object or "(root)"),
//! the line the model reads, and the keyword the log gets. Validator wording that names no field
//! or speaks of schemas (`"name" is a required property`, `… is not valid under any of the
//! schemas listed in the 'anyOf' keyword`) is replaced; the other kinds keep the validator's own
//! words (`party: 40 is greater than the maximum of 12`), which the spec quotes.

use jsonschema::error::{ValidationError, ValidationErrorKind};
use serde_json::Value;

use crate::messages;

/// One problem the schema check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The dotted path of the value it is about; empty for the whole value.
    pub field: String,
    /// What the model reads (`status is missing`, `party: 40 is greater than the maximum of 12`).
    pub line: String,
    /// The keyword that failed, for the log (`required`, `enum`).
    pub keyword: String,
}

impl Problem {
    /// What the log and sinks get: the field and the keyword, never a value (`status
    /// (required)`); `whole` names the whole value (`(arguments)`, `(result)`).
    pub(crate) fn log(&self, whole: &str) -> String {
        let field = if self.field.is_empty() {
            whole
        } else {
            &self.field
        };
        format!("{field} ({})", self.keyword)
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The problems of one validator error, in order. `root` completes a line about a key the
/// whole value does not allow: `bogus is not <root>` (`an argument of lookup`, `a field of
/// Order`).
pub(crate) fn describe(error: &ValidationError<'_>, root: &str, out: &mut Vec<Problem>) {
    let path = pointer_to_path(error.instance_path().as_str());
    let keyword = error.kind().keyword().to_string();
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = match property {
                Value::String(name) => name.clone(),
                other => other.to_string(),
            };
            let field = join(&path, &name);
            out.push(Problem {
                line: messages::value_missing(&field),
                field,
                keyword,
            });
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for key in unexpected {
                let field = join(&path, key);
                out.push(Problem {
                    line: messages::not_a_field(&field, &path, root),
                    field,
                    keyword: keyword.clone(),
                });
            }
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            // The one branch whose type fits the value says what is wrong with it; with none or
            // several, the line says the value fits no choice.
            let instance = error.instance_path().as_str();
            let mut fitting = context.iter().filter(|errors| {
                !errors.iter().any(|e| {
                    matches!(e.kind(), ValidationErrorKind::Type { .. })
                        && e.instance_path().as_str() == instance
                })
            });
            match (fitting.next(), fitting.next()) {
                (Some(errors), None) if !errors.is_empty() => {
                    for e in errors {
                        describe(e, root, out);
                    }
                }
                // No branch takes the value's type: name the types, as a one-type schema's
                // error does (`5 is not of type "array"` for an optional list, whose `null`
                // the model's schema does not show).
                (None, _) if let Some(types) = branch_types(context, instance) => {
                    out.push(not_of_type(error, &types, path, keyword));
                }
                _ => out.push(Problem {
                    line: messages::argument_error_line(
                        &path,
                        &messages::fits_no_choice(error.instance()),
                    ),
                    field: path,
                    keyword,
                }),
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => out.push(Problem {
            line: messages::argument_error_line(
                &path,
                &messages::fits_several_choices(error.instance()),
            ),
            field: path,
            keyword,
        }),
        ValidationErrorKind::Type { .. }
            if let Some(types) = type_names(error).and_then(types_words) =>
        {
            out.push(not_of_type(error, &types, path, keyword));
        }
        _ => out.push(Problem {
            line: messages::argument_error_line(&path, &validator_words(error)),
            field: path,
            keyword,
        }),
    }
}

/// `path: <value> is not of type <types>` for `error`'s value (quoted and cut as
/// [`crate::bounds::quote`] cuts it).
fn not_of_type(error: &ValidationError<'_>, types: &str, path: String, keyword: String) -> Problem {
    Problem {
        line: messages::argument_error_line(&path, &messages::not_of_type(error.instance(), types)),
        field: path,
        keyword,
    }
}

/// The types the branches of an `anyOf`/`oneOf` take when each refused the value at `instance`
/// for its type alone: `"array"`, or `"string" or "integer"`; `null` is left out when another
/// type is there. `None` when a branch refused it for something else.
fn branch_types(context: &[Vec<ValidationError<'_>>], instance: &str) -> Option<String> {
    let mut types: Vec<String> = Vec::new();
    for errors in context {
        let [error] = errors.as_slice() else {
            return None;
        };
        if !matches!(error.kind(), ValidationErrorKind::Type { .. })
            || error.instance_path().as_str() != instance
        {
            return None;
        }
        for name in type_names(error)? {
            if !types.contains(&name) {
                types.push(name);
            }
        }
    }
    types_words(types)
}

/// The quoted type names of a type error (`"array"`, `"null"`), from the validator's words.
fn type_names(error: &ValidationError<'_>) -> Option<Vec<String>> {
    let words = error.to_string();
    let (_, named) = words
        .rsplit_once(" is not of types ")
        .or_else(|| words.rsplit_once(" is not of type "))?;
    Some(named.split(", ").map(str::to_string).collect())
}

/// `"array"`, or `"string" or "integer"`: `null` left out beside another type (an optional
/// value's `null` is not in the schema the model reads).
fn types_words(mut types: Vec<String>) -> Option<String> {
    if types.len() > 1 {
        types.retain(|t| t != "\"null\"");
    }
    (!types.is_empty()).then(|| types.join(" or "))
}

/// The validator's own words for an error, with the value it quotes cut as
/// [`crate::bounds::quote`] cuts it (`"yyyyyy…" is not of type "object"`).
fn validator_words(error: &ValidationError<'_>) -> String {
    let words = error.to_string();
    let instance = error.instance();
    let quoted = crate::bounds::quote(instance);
    let full = instance.to_string();
    if full.len() > quoted.len() {
        words.replacen(&full, &quoted, 1)
    } else {
        words
    }
}

/// `/extras/0/count` → `extras.0.count` (JSON Pointer escapes undone).
pub(crate) fn pointer_to_path(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|seg| seg.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}
