//! `hark check` messages that say what to do: a locked path with a typo
//! names the part that is wrong and the fields there are; `api_key` auth in `Authorization`
//! says to use `kind = "bearer"`; `headers` beside `auth` are sent (and `Authorization` among
//! them is refused on its own line, saying why).

#[path = "common/problems.rs"]
mod problems;
use problems::problems;

const CUSTOMER: &str = r#"system_prompt = "You help."

[state.customer]
type = "object"
fields = { id = { type = "string" }, name = { type = "string" } }
"#;

#[test]
fn a_locked_path_typo_names_the_wrong_part_and_the_fields_there_are() {
    let text = format!(
        r#"{CUSTOMER}
[[webhook]]
name = "crm"
description = "Tell the CRM."
url = "https://crm.example.com/hook"
locked = {{ customer_id = "{{{{customer.idd}}}}" }}

[[webhook]]
name = "crm2"
description = "Tell the other CRM."
url = "https://crm.example.com/hook2"
locked = {{ customer_id = "{{{{custmer.id}}}}" }}
"#
    );
    assert_eq!(
        problems(&text),
        [
            "line 11: error: crm: {{customer.idd}} is not in the State: customer has no field \
             idd. Use one of: id, name.",
            "line 17: error: crm2: {{custmer.id}} is not in the State: it has no value custmer. \
             Use one of: customer, or add a [state.<name>] table for it.",
        ]
    );
}

#[test]
fn api_key_auth_in_the_authorization_header_says_to_use_bearer() {
    let text = r#"system_prompt = "You help."

[[webhook]]
name = "crm"
description = "Tell the CRM."
url = "https://crm.example.com/hook"

[webhook.auth]
kind = "api_key"
env = "HARK_TEST_ITEM15_TOKEN"
header = "Authorization"
"#;
    let found = problems(text);
    assert!(
        found.contains(
            &"line 11: warning: webhook crm: auth kind = \"api_key\" with header = \
              \"Authorization\" sends the bare key (Authorization: <key>), without \"Bearer \". \
              For Authorization: Bearer <key>, write kind = \"bearer\" and remove header; keep \
              api_key only if your service takes the bare key."
                .to_string()
        ),
        "{found:#?}"
    );
    // Another header is what api_key is for: no such warning.
    let other = text.replace("\"Authorization\"", "\"X-API-Key\"");
    assert!(
        problems(&other).iter().all(|p| !p.contains("bare key")),
        "{:?}",
        problems(&other)
    );
}

#[test]
fn headers_beside_auth_are_sent_and_authorization_among_them_is_refused_on_its_line() {
    let text = r#"system_prompt = "You help."

[[webhook]]
name = "crm"
description = "Tell the CRM."
url = "https://crm.example.com/hook"
auth = { kind = "bearer", env = "HARK_TEST_ITEM15_TOKEN" }

[webhook.headers]
X-Tenant = "bistro"
Authorization = "Bearer abc"
"#;
    assert_eq!(
        problems(text),
        [
            "line 7: warning: webhook crm: the environment variable HARK_TEST_ITEM15_TOKEN is not \
             set, so every call fails with \"could not authenticate\" until it is. Set \
             HARK_TEST_ITEM15_TOKEN.",
            "line 11: error: webhook crm: a fixed Authorization header cannot be used with auth: \
             auth sends the credential. Remove the header.",
        ]
    );
    // Without the Authorization header the file is clean but for the unset token.
    let clean = text.replace("Authorization = \"Bearer abc\"\n", "");
    let found = problems(&clean);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("line 7: warning:"), "{found:?}");
}

/// The same words for a field typo in an announce or reply line.
#[test]
fn a_field_typo_in_an_announce_or_reply_line_names_the_fields_there_are() {
    let text = format!(
        r#"{CUSTOMER}
[[webhook]]
name = "crm"
description = "Tell the CRM."
url = "https://crm.example.com/hook"
announce = ["Checking {{{{customer.nme}}}}."]

[[webhook.reply]]
say = ["Done for {{{{customer.idd}}}}."]
"#
    );
    assert_eq!(
        problems(&text),
        [
            "line 11: error: crm: {{customer.nme}} is not in the State: customer has no field \
             nme. Use one of: id, name.",
            "line 14: error: crm: {{customer.idd}} is not in the State: customer has no field \
             idd. Use one of: id, name.",
        ]
    );
}

/// A credential in a fixed header (the guide says a credential goes in `auth`) is a warning on the
/// header's line saying which `auth` to write; a plain header is not.
#[test]
fn a_credential_in_headers_says_to_put_it_in_auth() {
    let text = r#"system_prompt = "You help."

[[webhook]]
name = "crm"
description = "Tell the CRM."
url = "https://crm.example.com/hook"

[webhook.headers]
X-Tenant = "bistro"
Authorization = "Bearer abc"
X-Api-Key = "abc"
"#;
    assert_eq!(
        problems(text),
        [
            "line 10: warning: webhook crm: headers Authorization carries a credential. Put it \
             in auth instead: auth = { kind = \"bearer\", env = \"NAME\" } for Authorization: \
             Bearer <token>, with NAME the environment variable that holds it, so that a missing \
             key is reported as \"could not authenticate\".",
            "line 11: warning: webhook crm: headers X-Api-Key carries a credential. Put it in \
             auth instead: auth = { kind = \"api_key\", header = \"X-Api-Key\", env = \"NAME\" }, \
             with NAME the environment variable that holds it, so that a missing key is reported \
             as \"could not authenticate\".",
        ]
    );
}
