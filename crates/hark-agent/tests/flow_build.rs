//! A flow is built once and checked at build time: every problem at once,
//! each naming the step and the fix.

use hark_agent::flow::{Flow, FlowSpec};
use hark_tools::{ToolError, ToolRegistry, ToolSpec};

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Status {
    Booked,
    PastDay,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Booking {
    party: u8,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Booked {
    status: Status,
    reference: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PartyOnly {
    party: u8,
}

/// The call's State.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Default)]
struct State {
    /// How many people come.
    party: Option<u8>,
    /// The booking's reference.
    booking_ref: Option<String>,
}

fn registry() -> ToolRegistry {
    let book = ToolSpec::local("book_table", "Book a table.", |b: Booking| async move {
        Ok::<_, ToolError>(Booked {
            status: Status::Booked,
            reference: format!("B-{}", b.party),
        })
    })
    .unwrap()
    .precheck(|p: PartyOnly| {
        (p.party == 0).then_some(Booked {
            status: Status::PastDay,
            reference: String::new(),
        })
    })
    .unwrap();
    let hello = ToolSpec::local("hello", "Say hello.", |_b: PartyOnly| async move {
        Ok::<_, ToolError>(Booked {
            status: Status::Booked,
            reference: String::new(),
        })
    })
    .unwrap();
    ToolRegistry::builder(vec![book, hello])
        .state::<State>()
        .build()
        .unwrap()
}

fn problems(toml_text: &str) -> Vec<String> {
    let spec: FlowSpec = toml::from_str(toml_text).expect("the TOML reads");
    Flow::build(&spec, &registry()).unwrap_err().problems
}

#[test]
fn every_problem_comes_at_once_each_naming_the_fix() {
    let found = problems(
        r#"
        first = "booking"

        [[steps]]
        name = "booking"
        tools = ["book_tabel", "hello"]
        saves = ["party", "guests", "booking_ref"]
        next = "confirm"
        closing = { tool = "book_table", finish = { status = ["bookd"] }, confirm = ["For {{party}} on {{day}}?", "{{result.reference}}"] }

        [[steps]]
        name = "orphan"
        tools = ["hello"]
        "#,
    );
    let expected = [
        "step booking: book_tabel is not a tool of the agent. Use one of: book_table, hello.",
        "step booking: its closing tool book_table is not in its tools. Add book_table to the step's tools.",
        "step booking: finish rule: book_table: when status is \"bookd\", which status never holds. It holds: \"booked\", \"past_day\".",
        "step booking: the confirm line reads {{day}}, which is neither an argument of book_table nor a State value. Use one of: party, booking_ref.",
        "step booking: the confirm line reads {{result.reference}}, but the read-back comes before book_table runs, so there is no result yet. Read an argument of book_table or a State value.",
        "step booking: saves names guests, which is not a State value. Use one of: party, booking_ref, or add the field to the State type.",
        "step booking: it saves booking_ref, but nothing in it fills booking_ref. Give the closing tool an argument named booking_ref, or add an assign row for it.",
        "step booking: next names confirm, which is not a step. Use one of: booking, orphan.",
        "step orphan: no path from booking reaches it. Name it in a step's next, or remove it.",
    ];
    for line in expected {
        assert!(
            found.contains(&line.to_string()),
            "missing: {line}\nfound:\n{}",
            found.join("\n")
        );
    }
    assert_eq!(found.len(), expected.len(), "found:\n{}", found.join("\n"));
}

#[test]
fn a_precheck_outcome_must_not_be_able_to_match_the_finish_rule() {
    let no_rule = problems(
        r#"
        first = "booking"
        [[steps]]
        name = "booking"
        tools = ["book_table"]
        closing = { tool = "book_table" }
        "#,
    );
    assert_eq!(
        no_rule,
        [
            "step booking: book_table has a precheck, so its finish rule must name the results that end the step, like finish = { status = [\"booked\"] }. Without one, a precheck outcome would end it."
        ]
    );
    let every_value = problems(
        r#"
        first = "booking"
        [[steps]]
        name = "booking"
        tools = ["book_table"]
        closing = { tool = "book_table", finish = { status = ["booked", "past_day"] } }
        "#,
    );
    assert_eq!(
        every_value,
        [
            "step booking: the finish rule takes every value status can hold (\"booked\", \"past_day\"), so a precheck outcome of book_table would end the step. Leave out the values its precheck returns."
        ]
    );
}

#[test]
fn unknown_first_step_duplicates_routes_and_a_step_that_cannot_end() {
    let found = problems(
        r#"
        first = "start"

        [[steps]]
        name = "a"
        tools = ["hello"]
        next = "b"

        [[steps]]
        name = "a"
        tools = ["hello"]

        [[steps]]
        name = "b"
        tools = ["book_table"]
        closing = { tool = "book_table", finish = { status = ["booked"] } }
        next = [{ when = { status = ["booked"] }, step = "a" }]
        "#,
    );
    for line in [
        "Two steps are named a. Give one of them another name.",
        "The flow starts in start, which is not a step. Use one of: a, a, b.",
        "step a: it has a next step but no closing tool, so it never ends. Give it a closing tool, or leave next out.",
        "step b: the last route of next has a when, so a result that matches no route has no next step. Add a last route without when.",
    ] {
        assert!(
            found.contains(&line.to_string()),
            "missing: {line}\nfound:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn a_good_flow_builds_and_its_toml_round_trips() {
    let text = r#"
        first = "booking"
        [[steps]]
        name = "booking"
        tools = ["book_table"]
        saves = ["party"]
        next = [{ when = { status = ["booked"] }, step = "done" }, { step = "done" }]
        closing = { tool = "book_table", finish = { status = ["booked"] }, confirm = ["For {{party}}?"] }
        [[steps]]
        name = "done"
        tools = ["hello"]
    "#;
    let spec: FlowSpec = toml::from_str(text).unwrap();
    let flow = Flow::build(&spec, &registry()).expect("builds");
    assert_eq!(flow.step_names(), ["booking", "done"]);
    assert_eq!(flow.first_step(), "booking");
    let again: FlowSpec = toml::from_str(&toml::to_string(&spec).unwrap()).unwrap();
    assert_eq!(again, spec);
}
