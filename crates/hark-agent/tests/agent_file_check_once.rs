//! `hark check` says each mistake once, where it is, with a fix that names what exists: a tool
//! that failed is not suggested and causes no second problem; names the UI worker takes are
//! refused; small slips (an empty `values`, a lower-case method, an empty key variable) get
//! their own words (found by a new-user trial of the guide). The empty key variable is
//! tested through the binary, in hark-server's tests/check.rs.

use hark_agent::agent_file::AgentFile;

#[path = "common/problems.rs"]
mod problems;
use problems::problems;

const PROMPT: &str = "system_prompt = \"You help.\"\n";

const WEBHOOK: &str = "[[webhook]]\nname = \"NAME\"\ndescription = \"Look it up.\"\n\
                       url = \"https://hooks.example.com/x\"\n";

fn webhook(name: &str) -> String {
    WEBHOOK.replace("NAME", name)
}

#[test]
fn a_tool_named_like_a_screen_tool_is_refused_while_the_ui_worker_is_on() {
    let text = format!("{PROMPT}{}{}", webhook("screen"), webhook("ask_screen"));
    assert_eq!(
        problems(&text),
        [
            "line 3: error: the tool name screen is the UI worker's own tool, which every \
             session adds. Give your tool another name, or set [ui] worker = false.",
            "line 7: error: the tool name ask_screen is the UI worker's own tool, which every \
             session adds. Give your tool another name, or set [ui] worker = false.",
        ]
    );
    let without_worker = format!("{text}[ui]\nworker = false\n");
    assert_eq!(problems(&without_worker), Vec::<String>::new());
}

#[test]
fn a_row_on_a_missing_tool_suggests_only_tools_that_were_built() {
    let text = format!(
        "{PROMPT}[tools]\nlocal = [\"search_wine\"]\n{}[[reply]]\ntool = \"search_menus\"\n\
         say = [\"Here.\"]\n",
        webhook("search_menu")
    );
    assert_eq!(
        problems(&text),
        [
            "line 3: error: [tools] local search_wine is not a tool of this program: it \
             provides no local tools. Remove search_wine, or run the file with the program that \
             provides it.",
            "line 8: error: [[reply]] names the tool search_menus, which the file does not \
             have. Use one of: search_menu.",
        ]
    );
}

#[test]
fn a_bad_timezone_is_one_problem_even_when_a_flow_offers_current_datetime() {
    let text = format!(
        "{PROMPT}timezone = \"Madrid\"\n[tools]\nbuiltin = [\"current_datetime\"]\n[flow]\n\
         first = \"only\"\n[[flow.steps]]\nname = \"only\"\ntools = [\"current_datetime\"]\n"
    );
    assert_eq!(
        problems(&text),
        [
            "line 2: error: timezone \"Madrid\" is not a timezone of the tz database; did you mean \"Europe/Madrid\"? Write an IANA name like \"Europe/Madrid\" or \"America/New_York\"."
        ]
    );
}

#[test]
fn a_step_reply_for_a_tool_the_step_does_not_offer_is_said_in_the_steps_words() {
    let text = format!(
        "{PROMPT}{}{}[flow]\nfirst = \"only\"\n[[flow.steps]]\nname = \"only\"\n\
         tools = [\"lookup\"]\n[[flow.steps.replies]]\ntool = \"book\"\nsay = [\"Booked.\"]\n",
        webhook("lookup"),
        webhook("book")
    );
    assert_eq!(
        problems(&text),
        [
            "line 13: error: [flow] step only: a reply row is for book, which is not in its \
             tools. Add book to the step's tools."
        ]
    );
}

#[test]
fn an_empty_values_list_says_so_and_a_lower_case_method_is_read() {
    let text = format!(
        "{PROMPT}{}method = \"get\"\n[webhook.input.seating]\ntype = \"string\"\nvalues = []\n",
        webhook("lookup")
    );
    let found = problems(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].ends_with(
            "webhook lookup: input.seating: values is empty, so no value fits. List the values \
             (values = [\"inside\", \"outside\"]), or remove values."
        ),
        "{found:#?}"
    );
}

#[test]
fn a_ui_model_with_the_local_classifier_is_warned_of_and_a_language_word_refused() {
    let text = format!("{PROMPT}language = \"english\"\n[ui]\nmodel = \"gpt-4.1-mini\"\n");
    assert_eq!(
        problems(&text),
        [
            "line 2: error: language \"english\" is not a language Hark can speak values in; \
             did you mean \"en\"? Write a BCP 47 tag like \"en-US\", \"es\", \"fr\" or \"de\" \
             (en_US is read as en-US).",
            "line 4: warning: [ui] model gpt-4.1-mini is unused: the UI worker's classifier is \
             the local one. Set classifier = \"llm\" to answer screen questions with that model, \
             or remove model.",
        ]
    );
    let fine = format!("{PROMPT}language = \"es-419\"\n");
    assert_eq!(problems(&fine), Vec::<String>::new());
    let posix = format!("{PROMPT}language = \"en_US\"\ntimezone = \"Europe/Paris\"\n");
    assert_eq!(problems(&posix), Vec::<String>::new());
}

#[test]
fn a_word_key_given_a_boolean_and_a_goodbye_without_end_call_are_named() {
    let text = format!("{PROMPT}{}interruption = true\n", webhook("lookup"));
    let error = text.parse::<AgentFile>().unwrap_err();
    assert_eq!(
        error.problems[0].to_string(),
        "line 6: error: [[webhook]] interruption must be one of the words \"provider_default\", \
         \"continue\" or \"cancel\", in quotes, like interruption = \"provider_default\" (found \
         true)."
    );
    let text = format!("{PROMPT}[tools]\nbuiltin = []\ngoodbye = \"Bye!\"\n");
    assert_eq!(
        problems(&text),
        [
            "line 4: warning: [tools] goodbye is unused: only the built-in end_call says it. Add \
             \"end_call\" to [tools] builtin, or remove goodbye."
        ]
    );
}

#[test]
fn the_tool_layers_rust_words_are_said_in_the_files_terms() {
    let text = format!(
        "{PROMPT}[state.customer]\ntype = \"string\"\n{}[[assign]]\ntool = \"lookup\"\n\
         state = \"order_status\"\n",
        webhook("lookup")
    );
    let found = problems(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].ends_with("or add a [state.<name>] table for it."),
        "{found:#?}"
    );
    assert!(!found[0].contains("State type"), "{found:#?}");
}
