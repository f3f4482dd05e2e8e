//! What a flow is made of, as plain data: steps, closing tools, confirm lines, finish rules and
//! where the flow goes next. Every type here is serde, so an agent file (TOML) can describe a
//! flow; [`super::Flow::build`] checks it once.
//!
//! In TOML:
//!
//! ```toml
//! first = "booking"
//! instructions = "You take table bookings for Chez Hark."
//!
//! [[steps]]
//! name = "booking"
//! instructions = "Ask for the day, how many people and inside or terrace, then book."
//! tools = ["book_table"]
//! saves = ["day", "party", "seating"]
//! next = "goodbye"
//!
//! [steps.closing]
//! tool = "book_table"
//! finish = { status = ["booked"] }
//! confirm = ["A table for {{party}} on {{day}}, {{seating}}. Shall I book it?"]
//! confirm_in.es = ["Una mesa para {{party}} el {{day}}, {{seating}}. ¿La reservo?"]
//!
//! [[steps]]
//! name = "goodbye"
//! instructions = "Say goodbye."
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A flow: its steps and the step it starts in. Built and checked once with
/// [`Flow::build`](super::Flow::build).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// The name of the step the flow starts in.
    pub first: String,
    /// What the model reads in every step, before the step's own instructions (the agent's
    /// system prompt). May be empty.
    #[serde(default)]
    pub instructions: String,
    /// The steps, in order (the order hints follow: the first step that saves a value is named).
    pub steps: Vec<StepSpec>,
}

/// One step of a flow (pipecat-flows' node, LiveKit Agents' task).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// The step's name: unique in the flow, named by hints ("Run first: it confirms with the
    /// caller (`<step>`)") and by `next`.
    pub name: String,
    /// What the model is told in this step, after the flow's instructions.
    #[serde(default)]
    pub instructions: String,
    /// The tools the model is offered in this step (names in the agent's registry). The closing
    /// tool must be one of them.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The tool whose result ends the step, with its finish rule and confirm lines. A step
    /// without one is a last step: it never ends.
    #[serde(default)]
    pub closing: Option<ClosingSpec>,
    /// The State values this step saves. A value of the same name as an argument of the closing
    /// tool is saved from it: with confirm lines, when the caller says yes (and marked confirmed);
    /// without, when the step ends. Others come from assign rows.
    #[serde(default)]
    pub saves: Vec<String>,
    /// The step's own replies, tried before the registry's and each tool's own. Each names its
    /// tool.
    #[serde(default)]
    pub replies: Vec<ReplyRow>,
    /// The step's own assign rows: they save when the step ends, from the last successful
    /// result of each tool in the step.
    #[serde(default)]
    pub assign: Vec<AssignRow>,
    /// Where the flow goes when the step ends. `None`: the flow is finished when it ends.
    #[serde(default)]
    pub next: Option<NextSpec>,
}

/// A step's closing tool: its result ends the step when it matches the finish rule.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosingSpec {
    /// The tool's name; it must be in the step's `tools`.
    pub tool: String,
    /// The finish rule: result field (dotted for nested) → the values that end the step, like a
    /// reply's `when`. Empty: every successful result ends it. A precheck outcome never does,
    /// so a tool with a precheck needs a rule that leaves its outcomes out.
    #[serde(default)]
    pub finish: BTreeMap<String, Vec<Value>>,
    /// Confirm lines (the read-back), alternatives said in turn: before the tool runs the caller
    /// hears its arguments read back (`{{party}}` reads an argument, else a State value; values
    /// said by their format in the call's language) and answers yes or no. Empty: no read-back.
    #[serde(default)]
    pub confirm: Vec<String>,
    /// Confirm lines by language (`"es"`, `"fr-CA"`): the call's language tag, then its primary
    /// language, picks them; else `confirm`.
    #[serde(default)]
    pub confirm_in: BTreeMap<String, Vec<String>>,
}

/// Where the flow goes when a step ends: a fixed step, or routes chosen from the closing
/// tool's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NextSpec {
    /// Always this step: `next = "goodbye"`.
    Step(String),
    /// The first route whose `when` matches the closing tool's result; the last route has no
    /// `when` (every result has a next step): `next = [{ when = { seating = ["terrace"] }, step
    /// = "terrace" }, { step = "goodbye" }]`.
    Routes(Vec<Route>),
}

/// One route of [`NextSpec::Routes`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// Result field → values, like a reply's `when`; empty matches every result.
    #[serde(default)]
    pub when: BTreeMap<String, Vec<Value>>,
    /// The step to go to.
    pub step: String,
}

/// A step's reply row: like the registry's `ToolReply`, naming its tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyRow {
    /// The tool whose result this reply says.
    pub tool: String,
    /// Result field → values that call for the line.
    #[serde(default)]
    pub when: BTreeMap<String, Vec<Value>>,
    /// State value → values that call for the line.
    #[serde(default)]
    pub state: BTreeMap<String, Vec<Value>>,
    /// The lines, alternatives said in turn.
    pub say: Vec<String>,
    /// The lines by language (`"es"`, `"fr-CA"`): a call in that language says them instead of
    /// `say` (its whole tag, then its primary language, picks them).
    #[serde(default)]
    pub say_in: BTreeMap<String, Vec<String>>,
}

/// A step's assign row: save the value at `path` of `tool`'s result into the State value
/// `variable` when the step ends.
///
/// Read from `{ tool, variable, path }` (the flow's own spelling: `path` a list of field names) or
/// from `{ tool, state, from }`, the spelling of an agent file's top-level `[[assign]]` (`from`
/// a dotted path, `"order.id"`; `""` or left out: the whole result). `state` and `variable`
/// together, or `from` and `path` together, are refused with a message naming both keys.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "AssignRowKeys")]
pub struct AssignRow {
    /// The tool whose result is read.
    pub tool: String,
    /// The State value saved.
    pub variable: String,
    /// Field names walked from the result; empty saves the whole result.
    #[serde(default)]
    pub path: Vec<String>,
}

/// The keys an [`AssignRow`] is read from, in either spelling.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AssignRowKeys {
    tool: String,
    variable: Option<String>,
    state: Option<String>,
    path: Option<Vec<String>>,
    from: Option<String>,
}

impl TryFrom<AssignRowKeys> for AssignRow {
    type Error = String;

    fn try_from(keys: AssignRowKeys) -> Result<Self, String> {
        let variable = match (keys.variable, keys.state) {
            (Some(_), Some(_)) => {
                return Err(
                    "an assign row names its State value once: `state` or `variable`, not both"
                        .to_string(),
                );
            }
            (Some(name), None) | (None, Some(name)) => name,
            (None, None) => {
                return Err("an assign row needs `state`, the State value it saves".to_string());
            }
        };
        let path = match (keys.path, keys.from) {
            (Some(_), Some(_)) => {
                return Err(
                    "an assign row names the result field once: `from = \"order.id\"` \
                     or `path = [\"order\", \"id\"]`, not both"
                        .to_string(),
                );
            }
            (Some(path), None) => path,
            (None, Some(from)) if from.is_empty() => Vec::new(),
            (None, Some(from)) => from.split('.').map(String::from).collect(),
            (None, None) => Vec::new(),
        };
        Ok(AssignRow {
            tool: keys.tool,
            variable,
            path,
        })
    }
}

impl ReplyRow {
    /// The row as the tool layer's [`hark_tools::ToolReply`].
    pub fn to_tool_reply(&self) -> hark_tools::ToolReply {
        hark_tools::ToolReply {
            tool: Some(self.tool.clone()),
            when: self
                .when
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            state: self
                .state
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            say: self.say.clone(),
            say_in: self
                .say_in
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }
}
