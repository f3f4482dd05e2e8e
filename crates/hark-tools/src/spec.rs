//! `ToolSpec`: everything the model sees of one tool, built and checked once, plus its executor.
//!
//! Spec: `tools-reference.md`, "Inputs and outputs", "Outputs", "One input model", "A result the
//! model does not read", "Rules for a hand-written schema", "Your own kind of tool".

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

use crate::error::ToolError;
use crate::executor::{Arguments, ToolContext, ToolExecutor};
use crate::messages;
use crate::output::{Output, resolve};
use crate::schema::{model_schema, schema_of};

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
/// Spec: "A tool the caller talks over", "Ask the registry" (`keeps_running`).
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
    /// Required root properties, in schema order, with whether `null` is a value for them.
    pub required: Vec<(String, bool)>,
    /// `false` when arguments the schema does not name are refused.
    pub open: bool,
}

/// One tool: its name, description, parameters schema (as written and as the model reads it),
/// output, result options, and the executor that runs it.
///
/// Cloning is cheap (the schemas, validator and executor are shared).
#[derive(Clone)]
pub struct ToolSpec {
    name: String,
    description: String,
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
            .finish()
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn allows_null(schema: &Value, root: &Value) -> bool {
    let schema = resolve(schema, root);
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|bs| bs.iter().any(|b| allows_null(b, root)))
        }),
    }
}

impl ToolSpec {
    /// A tool fully described by a JSON Schema of its arguments, an output and an executor: the
    /// dynamic path ("Your own kind of tool"; webhooks and Python bindings use it).
    ///
    /// `parameters` is the JSON Schema of the arguments: a plain object schema, checked against
    /// "Rules for a hand-written schema". It is normalised into the schema the model reads and
    /// its validator compiled here, once. Every problem comes back at once in the
    /// [`BuildError`], each line naming the tool.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        output: Output,
        executor: Arc<dyn ToolExecutor>,
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
        let props = parameters.get("properties").and_then(Value::as_object);
        let properties: BTreeSet<String> = props
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let required = parameters
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|n| {
                        let nullable = props
                            .and_then(|p| p.get(n))
                            .is_some_and(|s| allows_null(s, &parameters));
                        (n.to_string(), nullable)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let open = match parameters.get("additionalProperties") {
            Some(Value::Bool(b)) => *b,
            Some(Value::Object(_)) => true,
            _ => properties.is_empty(),
        };
        Ok(Self {
            name,
            description: description.into(),
            parameters: Arc::new(parameters),
            model_parameters: Arc::new(model_parameters),
            validator: Arc::new(validator),
            rules: Arc::new(ArgumentRules {
                properties,
                required,
                open,
            }),
            output,
            executor,
            show_result: true,
            hidden: Vec::new(),
            result_instructions: None,
            interruption: Interruption::default(),
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
    /// checked against `output`.
    pub fn typed<I>(
        name: impl Into<String>,
        description: impl Into<String>,
        output: Output,
        run: Runner<I>,
    ) -> Result<Self, BuildError>
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
    {
        let executor = TypedExecutor::<I> {
            run,
            _input: PhantomData,
        };
        Self::new(
            name,
            description,
            schema_of::<I>(),
            output,
            Arc::new(executor),
        )
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
        self.description = description.into();
        self
    }

    /// With `false`, the model reads `{"ok": true}` for a result that succeeded; failures and
    /// refusals are always shown. Spec: "A result the model does not read", point 1.
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
            .map(|f| messages::hidden_field_unknown(&self.name, f, self.output.name()))
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
            None => self.description.clone(),
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

/// Serialises a typed result; a value serde cannot write is an internal failure.
pub fn to_result<O: Serialize>(output: O) -> Result<Value, ToolError> {
    serde_json::to_value(output)
        .map_err(|e| ToolError::internal(format!("the result could not be serialised: {e}")))
}

struct TypedExecutor<I> {
    run: Runner<I>,
    _input: PhantomData<fn() -> I>,
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
        match decode::<I>(arguments) {
            Ok(input) => (self.run)(input, context),
            Err(error) => Box::pin(async move { Err(error) }),
        }
    }
}

/// Decodes checked arguments into the input type; a value the schema let through but the type
/// refuses (a day that does not exist, a phone number that does not parse) becomes an
/// `InvalidArguments` error naming the field.
pub fn decode<I: DeserializeOwned>(arguments: Arguments) -> Result<I, ToolError> {
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|error| {
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let reason = error.inner().to_string();
        let field = if path.is_empty() {
            "(arguments)".to_string()
        } else {
            path.clone()
        };
        ToolError::invalid_arguments(
            vec![messages::decode_error_line(&path, &reason)],
            format!("{field} (type)"),
        )
    })
}
