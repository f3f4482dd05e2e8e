//! `${NAME}` placeholders in a webhook `url` and `[llm] base_url`, filled from the host's values
//! and the environment when the file is built.

use super::host::Host;

/// Why a text could not be filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unfilled {
    /// `${NAME}` whose value is not set: the name.
    Unset(String),
    /// A `${` that is not a placeholder.
    Malformed,
}

/// `text` with every `${NAME}` replaced (`NAME`: capital letters, digits and `_`, not starting
/// with a digit). A `$` not followed by `{` stays as it is. Every unset name is reported.
pub(crate) fn fill(text: &str, host: &Host) -> Result<String, Vec<Unfilled>> {
    let mut out = String::with_capacity(text.len());
    let mut problems = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            problems.push(Unfilled::Malformed);
            rest = "";
            break;
        };
        let name = &after[..end];
        let well_formed = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if !well_formed {
            problems.push(Unfilled::Malformed);
        } else {
            match host.value(name) {
                Some(value) => out.push_str(&value),
                None => problems.push(Unfilled::Unset(name.to_string())),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_from_the_host_and_names_what_is_unset() {
        let host = Host::new().with_value("ORDERS_URL", "http://127.0.0.1:4100");
        assert_eq!(
            fill("${ORDERS_URL}/orders?x=$1", &host).unwrap(),
            "http://127.0.0.1:4100/orders?x=$1"
        );
        assert_eq!(
            fill("${HARK_TEST_SURELY_UNSET_ABC}/a/${lower}/${OPEN", &host).unwrap_err(),
            [
                Unfilled::Unset("HARK_TEST_SURELY_UNSET_ABC".into()),
                Unfilled::Malformed,
                Unfilled::Malformed
            ]
        );
    }
}
