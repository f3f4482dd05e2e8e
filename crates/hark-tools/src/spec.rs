//! `ToolSpec`: everything the model sees of one tool, built and checked once, plus its executor.
//!
//! Guide: `docs/guide/inputs-and-outputs.md`, `docs/guide/results-the-model-does-not-read.md`,
//! `docs/guide/providers-and-schema-dialects.md`.

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::BoxFuture;
use jsonschema::Validator;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use hark_speak::Template;

use crate::arguments::ArgumentShape;
use crate::context::{Arguments, ToolContext};
use crate::error::ToolError;
use crate::executor::{ToolExecutor, Validated};
use crate::messages;
use crate::output::Output;
use crate::reply::ToolReply;
use crate::schema::{model_schema, schema_of};
use crate::state::Transcript;

/// Why a tool (or a registry) could not be built: every problem at once, one line each, each
/// naming the tool and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", problems.join("\n"))]
pub struct BuildError {
    /// One line per problem.
    pub problems: Vec<String>,
}

impl BuildError {
    /// A build error with one problem.
    pub fn new(problem: impl Into<String>) -> Self {
        Self {
            problems: vec![problem.into()],
        }
    }
}

/// What the caller's speech does to a running call of the tool.
/// Guide: `docs/guide/interruptions.md` (`keeps_running`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Interruption {
    /// The framework's own rule (Pipecat cancels, LiveKit keeps running).
    #[default]
    ProviderDefault,
    /// The tool finishes; use it for a tool that changes something (a booking, a payment).
    Continue,
    /// The tool is cancelled; sinks see `tool.failed` with the error `cancelled`.
    Cancel,
}

/// What the argument check needs to know of the parameters schema, computed once per tool.
#[derive(Debug, Clone)]
pub(crate) struct ArgumentRules {
    /// Names of the root properties.
    pub properties: BTreeSet<String>,
    /// The checks before the schema check, at every level: keys the schema does not name and
    /// required values left out or blank.
    pub shape: ArgumentShape,
}

/// One tool: its name, description, parameters schema (as written and as the model reads it),
/// output, result options, and the executor that runs it.
///
/// Cloning is cheap (the description, schemas, validator and executor are shared), so a spec
/// built once can serve every session: `template.clone().with_executor(per_session)`.
#[derive(Clone)]
pub struct ToolSpec {
    name: String,
    description: Arc<str>,
    parameters: Arc<Value>,
    model_parameters: Arc<Value>,
    validator: Arc<Validator>,
    rules: Arc<ArgumentRules>,
    output: Output,
    executor: Arc<dyn ToolExecutor>,
    show_result: bool,
    hidden: Vec<String>,
    result_instructions: Option<String>,
    interruption: Interruption,
    pub(crate) locked: Vec<(String, LockedValue)>,
    pub(crate) announce: Vec<Template>,
    /// Announce lines by language (`"es"`, `"fr-CA"`), said in a call of that language.
    pub(crate) announce_in: Vec<(String, Vec<Template>)>,
    pub(crate) announce_wait: bool,
    pub(crate) ends_conversation: bool,
    pub(crate) replies: Vec<ToolReply>,
    pub(crate) precheck: Option<Precheck>,
}

/// A locked argument's value as the tool holds it.
#[derive(Debug, Clone)]
pub(crate) enum LockedValue {
    /// `{{path}}` or a text with placeholders.
    Template(Template),
    /// The last `max_messages` messages of the transcript.
    Transcript(usize),
}

/// A locked argument's value: a template like `"{{customer.id}}"`, `"{{call.session_id}}"`, or
/// [`Transcript`]. Guide: `docs/guide/locked-values-and-transcript.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locked {
    /// A template read from the call state and what the call carries.
    Template(String),
    /// The transcript's last `max_messages` messages.
    Transcript(Transcript),
}

impl From<&str> for Locked {
    fn from(text: &str) -> Self {
        Self::Template(text.to_string())
    }
}

impl From<String> for Locked {
    fn from(text: String) -> Self {
        Self::Template(text)
    }
}

impl From<Transcript> for Locked {
    fn from(transcript: Transcript) -> Self {
        Self::Transcript(transcript)
    }
}

type PrecheckFn = dyn Fn(&Arguments) -> Result<Option<Value>, ToolError> + Send + Sync;

/// A tool's precheck, type-erased: decodes its parameters from the checked arguments and returns
/// an outcome (the result) or `None`.
#[derive(Clone)]
pub(crate) struct Precheck(pub(crate) Arc<PrecheckFn>);

impl fmt::Debug for Precheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Precheck")
    }
}

/// Removes the `description`, `title`, `default` and `examples` of a property schema, so two
/// schemas of one type compare equal.
fn bare(schema: &Value, root: &Value) -> Value {
    let mut schema = crate::output::resolve(schema, root).clone();
    if let Value::Object(map) = &mut schema {
        for key in ["description", "title", "default", "examples"] {
            map.remove(key);
        }
    }
    schema
}

impl fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("model_parameters", &self.model_parameters)
            .field("output", &self.output.name())
            .field("executor", &self.executor)
            .field("show_result", &self.show_result)
            .field("hidden", &self.hidden)
            .field("result_instructions", &self.result_instructions)
            .field("interruption", &self.interruption)
            .field(
                "locked",
                &self.locked.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("announce", &self.announce.len())
            .field("announce_wait", &self.announce_wait)
            .field("ends_conversation", &self.ends_conversation)
            .field("replies", &self.replies.len())
            .field("precheck", &self.precheck.is_some())
            .finish()
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl ToolSpec {
    /// A tool fully described by a JSON Schema of its arguments, an output and an executor: the
    /// dynamic path ("Your own kind of tool"; webhooks and Python bindings use it).
    ///
    /// `parameters` is the JSON Schema of the arguments: a plain object schema, checked against
    /// "Rules for a hand-written schema". It is normalised into the schema the model reads and
    /// its validator compiled here, once. Every problem comes back at once in the
    /// [`BuildError`], each line naming the tool.
    ///
    /// A call is refused for a key the schema does not name at any level whose object schema
    /// names its properties and does not set `additionalProperties` to `true` or a schema; a
    /// schema without properties stays open ("Arguments the schema does not name", point 2).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        output: Output,
        executor: Arc<dyn ToolExecutor>,
    ) -> Result<Self, BuildError> {
        Self::build(name, description, parameters, output, executor, false)
    }

    /// [`new`](Self::new), for a schema written by hand (`typed = false`) or generated from a
    /// Rust type (`true`: an object schema without `additionalProperties` is closed even when it
    /// names no property, since a struct names all its fields).
    fn build(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        output: Output,
        executor: Arc<dyn ToolExecutor>,
        typed: bool,
    ) -> Result<Self, BuildError> {
        let name = name.into();
        let mut problems = Vec::new();
        if !valid_name(&name) {
            problems.push(messages::bad_tool_name(&name));
        }
        let model_parameters = match model_schema(&parameters) {
            Ok(schema) => schema,
            Err(errors) => {
                problems.extend(errors.iter().map(|e| messages::schema_refused(&name, e)));
                Value::Null
            }
        };
        problems.extend(
            crate::ranges::range_problems(&parameters)
                .iter()
                .map(|p| messages::schema_refused(&name, p)),
        );
        let validator = match jsonschema::options().build(&parameters) {
            Ok(v) => Some(v),
            Err(error) => {
                problems.push(messages::schema_refused(
                    &name,
                    &format!("the parameters schema is not valid JSON Schema: {error}"),
                ));
                None
            }
        };
        if let Some(error) = output.build_error() {
            problems.push(messages::schema_refused(&name, error));
        }
        let (Some(validator), true) = (validator, problems.is_empty()) else {
            return Err(BuildError { problems });
        };
        let properties: BTreeSet<String> = parameters
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let shape = ArgumentShape::compile(&parameters, typed);
        Ok(Self {
            name,
            description: Arc::from(description.into()),
            parameters: Arc::new(parameters),
            model_parameters: Arc::new(model_parameters),
            validator: Arc::new(validator),
            rules: Arc::new(ArgumentRules { properties, shape }),
            output,
            executor,
            show_result: true,
            hidden: Vec::new(),
            result_instructions: None,
            interruption: Interruption::default(),
            locked: Vec::new(),
            announce: Vec::new(),
            announce_in: Vec::new(),
            announce_wait: false,
            ends_conversation: false,
            replies: Vec::new(),
            precheck: None,
        })
    }

    /// A local tool from an async function taking one input model ("One input model"):
    /// `I: Deserialize + JsonSchema` is the arguments, `O: Serialize + JsonSchema` the output.
    ///
    /// ```
    /// # use hark_tools::{ToolSpec, ToolError};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct OrderQuery {
    ///     /// The order id the caller reads out.
    ///     order_id: String,
    /// }
    /// #[derive(serde::Serialize, schemars::JsonSchema)]
    /// struct Order { status: String }
    ///
    /// async fn lookup_order(query: OrderQuery) -> Result<Order, ToolError> {
    ///     Ok(Order { status: format!("held ({})", query.order_id.len()) })
    /// }
    /// let tool = ToolSpec::local("lookup_order", "Look up an order by its id.", lookup_order).unwrap();
    /// assert_eq!(tool.name(), "lookup_order");
    /// ```
    pub fn local<I, O, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        function: F,
    ) -> Result<Self, BuildError>
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
        O: Serialize + JsonSchema + 'static,
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        let run = runner(move |input: I, _context: &ToolContext| {
            let future = function(input);
            Box::pin(async move { to_result(future.await?) }) as BoxFuture<'_, _>
        });
        Self::typed::<I>(name, description, Output::of::<O>(), run)
    }

    /// Like [`local`](Self::local), for a function that also reads the call's
    /// [`ToolContext`] (a clone of it, so the future owns it).
    pub fn local_with_context<I, O, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        function: F,
    ) -> Result<Self, BuildError>
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
        O: Serialize + JsonSchema + 'static,
        F: Fn(I, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        let run = runner(move |input: I, context: &ToolContext| {
            let future = function(input, context.clone());
            Box::pin(async move { to_result(future.await?) }) as BoxFuture<'_, _>
        });
        Self::typed::<I>(name, description, Output::of::<O>(), run)
    }

    /// A local tool whose function returns a JSON value: it must name its output ("Outputs",
    /// point 1), which checks every result.
    pub fn local_json<I, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        output: Output,
        function: F,
    ) -> Result<Self, BuildError>
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        let run = runner(move |input: I, _context: &ToolContext| {
            Box::pin(function(input)) as BoxFuture<'_, _>
        });
        Self::typed::<I>(name, description, output, run)
    }

    /// The typed path under [`local`](Self::local) and the `#[tool]` macro: arguments are
    /// decoded into `I` (after the schema check) and handed to `run`, whose JSON result is
    /// checked against `output`. The schema is `I`'s, so every object in it that does not keep
    /// other keys (a map, a `serde_json::Value`, a `#[serde(flatten)]` map) is closed, even a
    /// struct without fields: a call with a key `I` does not name is refused.
    pub fn typed<I>(
        name: impl Into<String>,
        description: impl Into<String>,
        output: Output,
        run: Runner<I>,
    ) -> Result<Self, BuildError>
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
    {
        let mut schema = schema_of::<I>();
        // The root title schemars writes is the Rust type's name (`BookTableArgs`): noise in
        // every request, and Gemini's dialect would make it the arguments' description.
        if let Some(root) = schema.as_object_mut() {
            root.remove("title");
        }
        let executor = TypedExecutor::<I> {
            run,
            decode_early: has_string_format(&schema),
            schema: Arc::new(schema.clone()),
            _input: PhantomData,
        };
        Self::build(name, description, schema, output, Arc::new(executor), true)
    }

    /// Changes the name the model calls the tool by.
    pub fn with_name(mut self, name: impl Into<String>) -> Result<Self, BuildError> {
        let name = name.into();
        if !valid_name(&name) {
            return Err(BuildError::new(messages::bad_tool_name(&name)));
        }
        self.name = name;
        Ok(self)
    }

    /// Changes the description the model reads.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Arc::from(description.into());
        self
    }

    /// The same tool run by `executor`: everything the model sees (name, description, schemas,
    /// output, result options, locked values, announce lines, replies, precheck) is kept and
    /// shared with `self`'s clones. A spec built once (a static or a factory's template) serves
    /// each session with that session's executor for ~1 KiB instead of rebuilding its schemas
    /// and validator (memory per idle session).
    pub fn with_executor(mut self, executor: Arc<dyn ToolExecutor>) -> Self {
        self.executor = executor;
        self
    }

    /// With `false`, the model reads `{"ok": true}` for a result that succeeded; failures and
    /// refusals are always shown. Guide: `docs/guide/results-the-model-does-not-read.md`.
    pub fn show_result(mut self, show: bool) -> Self {
        self.show_result = show;
        self
    }

    /// Leaves these top-level fields out of a successful result the model reads ("hidden", point
    /// 6). A field the output does not have fails here, naming it.
    pub fn hidden<S: Into<String>>(
        mut self,
        fields: impl IntoIterator<Item = S>,
    ) -> Result<Self, BuildError> {
        let known = self.output.field_names();
        let fields: Vec<String> = fields.into_iter().map(Into::into).collect();
        let problems: Vec<String> = fields
            .iter()
            .filter(|f| !known.contains(f))
            .map(|f| messages::hidden_field_unknown(&self.name, f, self.output.name(), &known))
            .collect();
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        self.hidden = fields;
        Ok(self)
    }

    /// Instructions added to the description as `"<description>\n\nUse the result like this:
    /// <instructions>"` ("A result the model does not read", point 4).
    pub fn result_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.result_instructions = Some(instructions.into());
        self
    }

    /// Sets what the caller's speech does to a running call ("A tool the caller talks over").
    pub fn interruption(mut self, interruption: Interruption) -> Self {
        self.interruption = interruption;
        self
    }

    /// Locks arguments ("Locked arguments"): each is removed from the schema the model reads, a
    /// value the model sends is replaced, and the registry fills it before the checks from the
    /// call state (`"{{customer.id}}"`), what the call carries (`"{{call.session_id}}"`) or the
    /// transcript ([`Transcript`]). An unset value refuses the call with a hint.
    ///
    /// Fails, with every problem at once: a parameter the tool does not have, a template that
    /// does not parse (`{{@call_id}}` names its new spelling), `Transcript` on a parameter that
    /// is not an array, `{{result.…}}`, or a `{{call.name}}` a call never carries. Paths into the
    /// State are checked when a registry is built with a State type.
    pub fn locked<K: Into<String>, V: Into<Locked>>(
        mut self,
        values: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Self, BuildError> {
        let mut problems = Vec::new();
        let names: Vec<String> = self.rules.properties.iter().cloned().collect();
        let mut model = (*self.model_parameters).clone();
        for (parameter, value) in values {
            let parameter = parameter.into();
            let Some(property) = self
                .parameters
                .get("properties")
                .and_then(|p| p.get(&parameter))
            else {
                problems.push(messages::locked_unknown_parameter(
                    &self.name, &parameter, &names,
                ));
                continue;
            };
            let value = match value.into() {
                Locked::Template(text) => match Template::parse(&text) {
                    Ok(template) => {
                        for p in template.placeholders() {
                            match p.scope {
                                hark_speak::Scope::Result => problems.push(
                                    messages::result_outside_reply(&self.name, &p.to_string()),
                                ),
                                hark_speak::Scope::Call
                                    if !crate::lines::is_call_field(&p.path) =>
                                {
                                    problems.push(messages::unknown_call_value(
                                        &self.name,
                                        &p.to_string(),
                                    ))
                                }
                                _ => {}
                            }
                        }
                        LockedValue::Template(template)
                    }
                    Err(error) => {
                        problems.push(messages::template_problem(
                            &self.name,
                            &format!("locked {parameter}"),
                            &error.to_string(),
                        ));
                        continue;
                    }
                },
                Locked::Transcript(t) => {
                    let types = crate::walk::types(property, &self.parameters);
                    if !types.is_empty() && !types.contains("array") {
                        problems.push(messages::transcript_needs_list(&self.name, &parameter));
                    }
                    LockedValue::Transcript(t.max_messages)
                }
            };
            if let Some(Value::Object(props)) = model.get_mut("properties") {
                props.remove(&parameter);
            }
            if let Some(Value::Array(required)) = model.get_mut("required") {
                required.retain(|r| r != parameter.as_str());
            }
            self.locked.retain(|(k, _)| *k != parameter);
            self.locked.push((parameter, value));
        }
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        self.model_parameters = Arc::new(model);
        Ok(self)
    }

    /// Locks one argument; see [`locked`](Self::locked).
    pub fn lock(
        self,
        parameter: impl Into<String>,
        value: impl Into<Locked>,
    ) -> Result<Self, BuildError> {
        self.locked([(parameter.into(), value.into())])
    }

    /// Announce lines ("Announce lines with values"): one is said before the tool runs, never the
    /// same one twice in a row. `{{value}}` reads an argument of this call or a State value,
    /// `{{call.name}}` what the call carries. Every line is filled before one is picked: a value
    /// that is not set refuses the call and nothing is said. Fails on a line that does not parse,
    /// or one that reads `{{result.…}}`, naming the line.
    pub fn announce<S: AsRef<str>>(
        mut self,
        lines: impl IntoIterator<Item = S>,
    ) -> Result<Self, BuildError> {
        self.announce = self.announce_templates(lines)?;
        Ok(self)
    }

    /// Announce lines a call in `language` says instead of [`announce`](Self::announce)'s (its
    /// whole tag, then its primary language, picks them: `"es"` serves `es-ES`), checked alike.
    pub fn announce_in<S: AsRef<str>>(
        mut self,
        language: impl Into<String>,
        lines: impl IntoIterator<Item = S>,
    ) -> Result<Self, BuildError> {
        let templates = self.announce_templates(lines)?;
        self.announce_in.push((language.into(), templates));
        Ok(self)
    }

    /// The tool's own lines a call in `language` hears in their default words, and whether any
    /// of its lines has a variant for `language`: `"announce lines"` (announce lines without an
    /// [`announce_in`](Self::announce_in) for it) and `"reply lines"` (a reply of its own
    /// without a `say_in` for it), in that order (`hark check` warns of them in a file that
    /// speaks `language`).
    pub fn lines_without_language(&self, language: &str) -> (Vec<&'static str>, bool) {
        use crate::language::variant;
        let mut missing = Vec::new();
        let mut has = variant(language, &self.announce_in).is_some();
        if !self.announce.is_empty() && variant(language, &self.announce_in).is_none() {
            missing.push("announce lines");
        }
        let mut replies_missing = false;
        for reply in &self.replies {
            if variant(language, &reply.say_in).is_some() {
                has = true;
            } else {
                replies_missing = true;
            }
        }
        if replies_missing {
            missing.push("reply lines");
        }
        (missing, has)
    }

    /// The announce lines a call in `language` says.
    pub(crate) fn announce_for(&self, language: &str) -> &[Template] {
        crate::language::for_language(language, &self.announce, &self.announce_in)
    }

    fn announce_templates<S: AsRef<str>>(
        &self,
        lines: impl IntoIterator<Item = S>,
    ) -> Result<Vec<Template>, BuildError> {
        let mut problems = Vec::new();
        let mut templates = Vec::new();
        for line in lines {
            if line.as_ref().trim().is_empty() {
                problems.push(messages::blank_announce_line(&self.name));
                continue;
            }
            match Template::parse(line.as_ref()) {
                Ok(t) => {
                    for p in t.placeholders() {
                        match p.scope {
                            hark_speak::Scope::Result => problems
                                .push(messages::result_outside_reply(&self.name, &p.to_string())),
                            hark_speak::Scope::Call if !crate::lines::is_call_field(&p.path) => {
                                problems
                                    .push(messages::unknown_call_value(&self.name, &p.to_string()))
                            }
                            _ => {}
                        }
                    }
                    templates.push(t);
                }
                Err(e) => problems.push(messages::template_problem(
                    &self.name,
                    "announce",
                    &e.to_string(),
                )),
            }
        }
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        Ok(templates)
    }

    /// With `true`, the tool runs only after the announce line has played out ("Announce lines
    /// with values", point 4). The wait is not in the call's `ms`.
    pub fn announce_wait(mut self, wait: bool) -> Self {
        self.announce_wait = wait;
        self
    }

    /// The `ends_conversation` effect ("End the call"): a call that succeeds ends the
    /// conversation. It never fires on a refused or failed call. The tool's announce line
    /// (its goodbye) always plays out before the tool runs, as with
    /// [`announce_wait(true)`](Self::announce_wait): the caller hears it before the call ends.
    pub fn ends_conversation(mut self) -> Self {
        self.ends_conversation = true;
        self
    }

    /// True when a successful call ends the conversation.
    pub fn ends_the_call(&self) -> bool {
        self.ends_conversation
    }

    /// The tool's own replies ("Replies on the tool itself"): tried after the place's replies,
    /// in order. Each leaves `tool` out (one naming another tool fails when the registry is
    /// built, as does a reply on a tool that ends the call).
    pub fn replies(mut self, replies: impl IntoIterator<Item = ToolReply>) -> Self {
        self.replies = replies.into_iter().collect();
        self
    }

    /// A precheck ("Check a rule before the tool runs"): a plain function that takes some of the
    /// tool's parameters by name (the fields of `P`, with the same types) or the whole input,
    /// locked values filled, and returns an outcome of the tool's output type or `None` to go
    /// ahead. An outcome is the tool's result: the tool does not run, no announce plays, and the
    /// tool's replies say it.
    ///
    /// Fails when a field of `P` is not a parameter of the tool with the same schema, or when
    /// `O` is not the tool's output (by its schema name).
    pub fn precheck<P, O, F>(mut self, function: F) -> Result<Self, BuildError>
    where
        P: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + JsonSchema + 'static,
        F: Fn(P) -> Option<O> + Send + Sync + 'static,
    {
        let mut problems = Vec::new();
        let schema = schema_of::<P>();
        let tool_props = self.parameters.get("properties");
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                let same = tool_props
                    .and_then(|p| p.get(name))
                    .is_some_and(|t| bare(t, &self.parameters) == bare(sub, &schema));
                if !same {
                    problems.push(messages::precheck_parameter(&self.name, name));
                }
            }
        }
        if Output::name_of::<O>() != self.output.name() {
            problems.push(messages::precheck_outcome_does_not_fit(
                &self.name,
                self.output.name(),
            ));
        }
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        self.precheck = Some(Precheck(Arc::new(move |arguments: &Arguments| {
            let input: P = decode_with(arguments.clone(), &schema)?;
            match function(input) {
                Some(outcome) => to_result(outcome).map(Some),
                None => Ok(None),
            }
        })));
        Ok(self)
    }

    /// A precheck over the checked arguments as JSON (locked values filled), for a binding whose
    /// precheck is not a Rust type (the Python package): `function` returns the outcome as JSON,
    /// or `None` to go ahead. The binding checks which parameters its function reads; the outcome
    /// goes through the output check like any result, and the tool's replies say it.
    pub fn precheck_json<F>(mut self, function: F) -> Self
    where
        F: Fn(&Arguments) -> Result<Option<Value>, ToolError> + Send + Sync + 'static,
    {
        self.precheck = Some(Precheck(Arc::new(function)));
        self
    }

    /// True when the tool has a precheck ("Check a rule before the tool runs"): a flow's finish
    /// rule on it must leave a precheck outcome out (point 5).
    pub fn has_precheck(&self) -> bool {
        self.precheck.is_some()
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description the model reads, with the result instructions appended when set.
    pub fn description(&self) -> String {
        match &self.result_instructions {
            Some(instructions) => {
                messages::description_with_instructions(&self.description, instructions)
            }
            None => self.description.to_string(),
        }
    }

    /// The parameters schema as written (or generated), with `$defs`.
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// The schema the model reads (normalised; see [`crate::schema::model_schema`]).
    pub fn model_parameters(&self) -> &Value {
        &self.model_parameters
    }

    /// The tool's output.
    pub fn output(&self) -> &Output {
        &self.output
    }

    /// The executor that runs the tool.
    pub fn executor(&self) -> &Arc<dyn ToolExecutor> {
        &self.executor
    }

    /// `false` when the model reads `{"ok": true}` instead of a successful result.
    pub fn shows_result(&self) -> bool {
        self.show_result
    }

    /// Top-level result fields the model does not read.
    pub fn hidden_fields(&self) -> &[String] {
        &self.hidden
    }

    /// What the caller's speech does to a running call.
    pub fn interruption_rule(&self) -> Interruption {
        self.interruption
    }

    pub(crate) fn validator(&self) -> &Validator {
        &self.validator
    }

    pub(crate) fn rules(&self) -> &ArgumentRules {
        &self.rules
    }
}

/// The function behind a typed tool: decoded input and the call's context in, the result as JSON
/// out. Build one with [`runner`].
pub type Runner<I> = Arc<
    dyn for<'a> Fn(I, &'a ToolContext) -> BoxFuture<'a, Result<Value, ToolError>> + Send + Sync,
>;

/// Wraps a function or closure as a [`Runner`] (fixes the higher-ranked signature).
pub fn runner<I, F>(function: F) -> Runner<I>
where
    F: for<'a> Fn(I, &'a ToolContext) -> BoxFuture<'a, Result<Value, ToolError>>
        + Send
        + Sync
        + 'static,
{
    Arc::new(function)
}

/// Serialises a typed result; a value serde cannot write is an internal failure. Its details,
/// which go to the log, name no value: serde's own text may quote one.
pub fn to_result<O: Serialize>(output: O) -> Result<Value, ToolError> {
    serde_json::to_value(output)
        .map_err(|_| ToolError::internal("the result could not be serialised"))
}

struct TypedExecutor<I> {
    run: Runner<I>,
    /// `I`'s schema: a value the type refuses reads the words of its `format`.
    schema: Arc<Value>,
    /// The schema has a string `format` (a date, a time, a phone number…), which the schema
    /// check lets through as any string and only the type reads: the arguments are decoded
    /// before anything is said or run ([`ToolExecutor::validate_for_run`]), so a day that does
    /// not exist is refused before the announce line, the precheck, the sinks' `tool.started` or
    /// a flow's read-back, and the run takes that decode ([`ToolExecutor::run_validated`]): once
    /// per call.
    decode_early: bool,
    _input: PhantomData<fn() -> I>,
}

/// Whether `schema` has, anywhere, a `format` of a string value: one the type checks and the
/// schema check does not (the number formats, `uint8`, `int32`…, come with bounds the schema
/// check holds).
fn has_string_format(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| match (key.as_str(), value) {
            ("format", Value::String(format)) => {
                hark_schema::messages::describe_format(format).is_some()
            }
            _ => has_string_format(value),
        }),
        Value::Array(items) => items.iter().any(has_string_format),
        _ => false,
    }
}

impl<I> fmt::Debug for TypedExecutor<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypedExecutor<{}>", std::any::type_name::<I>())
    }
}

impl<I> ToolExecutor for TypedExecutor<I>
where
    I: DeserializeOwned + Send + 'static,
{
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        match decode_with::<I>(arguments, &self.schema) {
            Ok(input) => (self.run)(input, context),
            Err(error) => Box::pin(async move { Err(error) }),
        }
    }

    fn validate(&self, arguments: Arguments) -> Result<Arguments, ToolError> {
        self.validate_for_run(arguments)
            .map(|validated| validated.arguments)
    }

    fn validate_for_run(&self, arguments: Arguments) -> Result<Validated, ToolError> {
        if !self.decode_early {
            return Ok(Validated::new(arguments));
        }
        let mut value = Value::Object(arguments);
        let input = decode_value::<I>(&mut value, Some(&self.schema))?;
        let arguments = match value {
            Value::Object(arguments) => arguments,
            _ => Arguments::new(),
        };
        Ok(Validated::with_decoded(arguments, input))
    }

    fn run_validated<'a>(
        &'a self,
        mut validated: Validated,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        match validated.take_decoded::<I>() {
            // Decoded by the check: not decoded again.
            Some(input) => (self.run)(input, context),
            None => self.run(validated.arguments, context),
        }
    }
}

/// Decodes checked arguments into the input type; a value the schema let through but the type
/// refuses (a day that does not exist, a phone number that does not parse) becomes an
/// `InvalidArguments` error naming the field. Without the schema it reads the type's own words;
/// [`decode_with`] gives the words of the value's `format`.
pub fn decode<I: DeserializeOwned>(arguments: Arguments) -> Result<I, ToolError> {
    decode_in::<I>(arguments, None)
}

/// Like [`decode`], with the input's JSON Schema: a value the type refuses whose schema gives a
/// `format` hark knows reads that format's words, never a library's: the value quoted and what is
/// wrong with it (`day: "2026-02-30" is not a day on the calendar: February 2026 has days 01 to
/// 28`; see [`crate::format_refused`]). Other failures read `<path>: <the type's reason>`. Sinks and
/// logs get `<path> (format)` or `<path> (type)`, never the value.
pub fn decode_with<I: DeserializeOwned>(
    arguments: Arguments,
    schema: &Value,
) -> Result<I, ToolError> {
    decode_in::<I>(arguments, Some(schema))
}

fn decode_in<I: DeserializeOwned>(
    arguments: Arguments,
    schema: Option<&Value>,
) -> Result<I, ToolError> {
    decode_value(&mut Value::Object(arguments), schema)
}

/// [`decode_in`] on the arguments as one value; whole floats in it may be rewritten as the
/// integers they are.
fn decode_value<I: DeserializeOwned>(
    value: &mut Value,
    schema: Option<&Value>,
) -> Result<I, ToolError> {
    // The common case decodes straight from the value; only a failure pays for the path-tracking
    // decoder that names the field.
    if let Ok(input) = I::deserialize(&*value) {
        return Ok(input);
    }
    // JSON Schema counts 12.0 as an integer, and models write whole numbers that way: the
    // schema let it through, so the type gets it as the integer it is (a float field takes
    // an integer too, so only a decode that failed is retried).
    if whole_floats_as_integers(value)
        && let Ok(input) = I::deserialize(&*value)
    {
        return Ok(input);
    }
    serde_path_to_error::deserialize(&*value).map_err(|error| {
        let segments = crate::state::path_segments(error.path());
        let path = segments.join(".");
        let field = if path.is_empty() {
            "(arguments)".to_string()
        } else {
            path.clone()
        };
        let friendly = schema
            .and_then(|s| crate::walk::format_at(s, s, &segments))
            .and_then(|format| crate::format_refused(format, value_at(value, &segments)));
        match friendly {
            Some(reason) => ToolError::invalid_arguments(
                vec![messages::decode_error_line(&path, &reason)],
                format!("{field} (format)"),
            ),
            None => ToolError::invalid_arguments(
                vec![messages::decode_error_line(
                    &path,
                    &bounded_words(&error.inner().to_string(), value_at(value, &segments)),
                )],
                format!("{field} (type)"),
            ),
        }
    })
}

/// Rewrites every whole number written as a float (`12.0`, `4e0`, `-0.0`) within `i64` as an
/// integer; true when it changed one.
fn whole_floats_as_integers(value: &mut Value) -> bool {
    match value {
        Value::Number(number) if !number.is_i64() && !number.is_u64() => {
            match number.as_f64() {
                // 2^63: beyond it a float no longer says which integer it is.
                Some(x) if x.fract() == 0.0 && x.abs() < 9.223_372_036_854_776e18 => {
                    *value = Value::from(x as i64);
                    true
                }
                _ => false,
            }
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| {
            whole_floats_as_integers(item) | changed
        }),
        Value::Object(map) => map.values_mut().fold(false, |changed, item| {
            whole_floats_as_integers(item) | changed
        }),
        _ => false,
    }
}

/// The value at a decode error's path, when the arguments hold one there.
fn value_at<'v>(value: &'v Value, segments: &[String]) -> Option<&'v Value> {
    segments.iter().try_fold(value, |at, segment| match at {
        Value::Object(map) => map.get(segment),
        Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// A type's own words for a value it refused, with a long string it quotes (serde writes
/// `string "…"`) cut as [`crate::bounds::quote`] cuts it.
fn bounded_words(words: &str, value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) if text.chars().count() > crate::bounds::QUOTE_CHARS => {
            let written = format!("{text:?}");
            words.replacen(
                &written,
                &crate::bounds::quote(&Value::String(text.clone())),
                1,
            )
        }
        _ => words.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;
    use crate::registry::ToolRegistry;

    /// Records the arguments of each call it runs.
    #[derive(Debug)]
    struct Record(Arc<Mutex<Vec<Value>>>);

    impl ToolExecutor for Record {
        fn run<'a>(
            &'a self,
            arguments: Arguments,
            _context: &'a ToolContext,
        ) -> BoxFuture<'a, Result<Value, ToolError>> {
            self.0.lock().unwrap().push(Value::Object(arguments));
            Box::pin(async { Ok(json!({"done": true})) })
        }
    }

    fn template(seen: Arc<Mutex<Vec<Value>>>) -> ToolSpec {
        ToolSpec::new(
            "note",
            "Write a note.",
            json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "The note."},
                    "who": {"type": "string"}
                },
                "required": ["text", "who"]
            }),
            Output::json(
                "Done",
                json!({"type": "object", "additionalProperties": true}),
            ),
            Arc::new(Record(seen)),
        )
        .unwrap()
        .interruption(Interruption::Continue)
        .result_instructions("Say it is written.")
        .lock("who", "{{call.session_id}}")
        .unwrap()
    }

    #[test]
    fn with_executor_keeps_what_the_model_sees_and_shares_the_schemas() {
        let first = Arc::new(Mutex::new(Vec::new()));
        let built = template(first.clone());
        let second = Arc::new(Mutex::new(Vec::new()));
        let reused = built
            .clone()
            .with_executor(Arc::new(Record(second.clone())));
        assert_eq!(reused.name(), built.name());
        assert_eq!(reused.description(), built.description());
        assert_eq!(
            reused.description(),
            "Write a note.\n\nUse the result like this: Say it is written."
        );
        assert_eq!(reused.model_parameters(), built.model_parameters());
        assert_eq!(reused.interruption_rule(), Interruption::Continue);
        assert_eq!(reused.locked.len(), 1);
        assert!(Arc::ptr_eq(&reused.description, &built.description));
        assert!(Arc::ptr_eq(&reused.parameters, &built.parameters));
        assert!(Arc::ptr_eq(
            &reused.model_parameters,
            &built.model_parameters
        ));
        assert!(Arc::ptr_eq(&reused.validator, &built.validator));
        assert!(!Arc::ptr_eq(reused.executor(), built.executor()));
    }

    #[test]
    fn with_executor_runs_the_new_executor_only() {
        let first = Arc::new(Mutex::new(Vec::new()));
        let second = Arc::new(Mutex::new(Vec::new()));
        let reused = template(first.clone()).with_executor(Arc::new(Record(second.clone())));
        let registry = ToolRegistry::new(vec![reused]).unwrap();
        let mut context = ToolContext::default();
        context.call.session_id = "s-1".into();
        let outcome =
            futures::executor::block_on(registry.call("note", r#"{"text": "milk"}"#, &context));
        assert_eq!(outcome.result, json!({"done": true}));
        assert!(first.lock().unwrap().is_empty());
        assert_eq!(
            *second.lock().unwrap(),
            vec![json!({"text": "milk", "who": "s-1"})]
        );
    }
}
