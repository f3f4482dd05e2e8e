//! `ToolRegistry`: the tools of a call with their State, assign and reply rows, checked when it
//! is built; definitions in a provider's dialect; starting a call.

use std::sync::{Arc, Mutex};

use hark_tools::{
    Assign, CallState, Dialect, FixedClock, LiveCall, RawArguments, SinkError, StateModel,
    ToolEvent, ToolRegistry, ToolSpec, ToolStage,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Value, json};

use super::driver;
use super::errors::build_error;
use super::hooks::{PyCallHooks, PyToolOutcome};
use super::json::{bridge, to_py, to_value};
use super::live::PyLiveCall;
use super::options::reply_rows;
use super::spec::PyToolSpec;
use super::speech::PySpeech;
use super::state::{PyCallState, call_info, values_of};
use crate::{gate, misuse};

/// The tools of one agent or call (`hark.ToolRegistry`).
#[pyclass(name = "ToolRegistry", module = "hark._core", frozen)]
pub struct PyToolRegistry {
    /// The Rust registry, shared with every call started from it.
    pub inner: Arc<ToolRegistry>,
    /// The Python sinks it holds (a Python function is one sink, however often it listens).
    sinks: Mutex<Vec<HeldSink>>,
}

type HeldSink = (Py<PyAny>, Arc<dyn hark_tools::ToolSink>);

impl std::fmt::Debug for PyToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.inner)
    }
}

impl PyToolRegistry {
    fn wrap(inner: ToolRegistry, sinks: Vec<HeldSink>) -> Self {
        Self {
            inner: Arc::new(inner),
            sinks: Mutex::new(sinks),
        }
    }

    fn held(&self, py: Python<'_>) -> Vec<HeldSink> {
        let held = self.sinks.lock().unwrap_or_else(|p| p.into_inner());
        held.iter()
            .map(|(object, sink)| (object.clone_ref(py), sink.clone()))
            .collect()
    }
}

const REGISTRY_EXAMPLE: &str = "ToolRegistry([local_tool(book_table)])";

/// The tools of `items`, each a `ToolSpec`; `call` and `example` name the call for the text.
fn specs(items: &[Bound<'_, PyAny>], call: &str, example: &str) -> PyResult<Vec<ToolSpec>> {
    let mut specs = Vec::new();
    for (i, tool) in items.iter().enumerate() {
        let spec = tool.cast::<PyToolSpec>().map_err(|_| {
            misuse::wrong(
                call,
                &format!("tools[{i}]"),
                tool,
                "a tool (from local_tool, webhook_tool, ToolSpec…)",
                example,
            )
        })?;
        specs.push(spec.get().inner.clone());
    }
    Ok(specs)
}

fn dialect(name: &str) -> PyResult<Dialect> {
    Ok(match name {
        "openai" => Dialect::OpenAi,
        "openai_strict" => Dialect::OpenAiStrict,
        "anthropic" => Dialect::Anthropic,
        "anthropic_strict" => Dialect::AnthropicStrict,
        "gemini" => Dialect::GeminiParameters,
        "gemini_json_schema" => Dialect::GeminiJsonSchema,
        other => {
            return Err(PyValueError::new_err(format!(
                "dialect is one of openai, openai_strict, anthropic, anthropic_strict, gemini, gemini_json_schema, not {other:?}"
            )));
        }
    })
}

/// A Python sink: called with `(stage, data)` through `hark._bridge.call_sink`, which logs what
/// it raises (Python's `logging`, logger `hark`): never the call's end.
struct PySink(Py<PyAny>);

impl hark_tools::ToolSink for PySink {
    fn on_event(&self, event: &ToolEvent) -> Result<(), SinkError> {
        gate::attach_py(|py| {
            let data = json!({
                "tool": event.tool,
                "source": event.source,
                "ms": event.ms,
                "error": event.error,
            });
            let data = to_py(py, &data)?;
            bridge(py)?
                .getattr(pyo3::intern!(py, "call_sink"))?
                .call1((self.0.bind(py), event.stage.as_str(), data))
                .map(drop)
        })
        .map_err(|e| Box::new(e) as SinkError)
    }
}

/// The sink every Python registry holds: writes to Python's `logging` (logger `hark`) what the
/// Rust core logs through `tracing`, which a Python program does not see: a result that does not
/// fit or is too large, and a save the State refused. Names the tool and the field, never a value.
struct LogSink;

impl hark_tools::ToolSink for LogSink {
    fn on_event(&self, event: &ToolEvent) -> Result<(), SinkError> {
        let logged = match (event.stage, event.error.as_deref()) {
            (ToolStage::Failed, Some(error)) if hark_tools::messages::is_judged_result(error) => {
                Some(error)
            }
            (ToolStage::SaveRefused, Some(error)) => Some(error),
            _ => None,
        };
        let Some(error) = logged else { return Ok(()) };
        gate::attach_py(|py| {
            bridge(py)?
                .getattr("tool_event_logged")?
                .call1((event.stage.as_str(), &event.tool, error))
                .map(drop)
        })
        .map_err(|e| Box::new(e) as SinkError)
    }
}

#[pymethods]
impl PyToolRegistry {
    /// `ToolRegistry(tools, state=State, assign={tool: [Assign(...)]}, replies=[ToolReply(...)])`.
    /// Every row and locked path is checked here; a problem raises `ValueError` naming the fix.
    #[new]
    #[pyo3(signature = (tools, *, state=None, assign=None, replies=None))]
    fn new(
        tools: &Bound<'_, PyAny>,
        state: Option<&Bound<'_, PyAny>>,
        assign: Option<&Bound<'_, PyAny>>,
        replies: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        const CALL: &str = "ToolRegistry";
        let tools = misuse::items(CALL, "tools", tools, "a list of tools", REGISTRY_EXAMPLE)?;
        let mut builder = ToolRegistry::builder(specs(&tools, CALL, REGISTRY_EXAMPLE)?);
        if let Some(state) = state.filter(|s| !s.is_none()) {
            let (name, schema): (String, Bound<'_, PyAny>) = bridge(state.py())?
                .getattr("state_model_of")?
                .call1((state,))?
                .extract()?;
            let model =
                StateModel::from_schema(name, to_value(&schema)?).map_err(PyValueError::new_err)?;
            builder = builder.state_model(model);
        }
        if let Some(assign) = assign.filter(|a| !a.is_none()) {
            const ASSIGN: &str = "ToolRegistry(assign={\"find_order\": [Assign(\"order\")]})";
            let assign = assign.cast::<PyDict>().map_err(|_| {
                misuse::wrong(
                    CALL,
                    "assign",
                    assign,
                    "a dict of tool name → list of Assign",
                    ASSIGN,
                )
            })?;
            for (tool, rows) in assign.iter() {
                let tool = misuse::string(CALL, "assign's keys", &tool, ASSIGN)?;
                let param = format!("assign[{tool:?}]");
                let mut assigns = Vec::new();
                for row in misuse::items(CALL, &param, &rows, "a list of Assign", ASSIGN)? {
                    let is_assign = row.get_type().name().is_ok_and(|n| n == "Assign")
                        && row.hasattr("variable")?
                        && row.hasattr("path")?;
                    if !is_assign {
                        return Err(misuse::wrong(
                            CALL,
                            &format!("{param}'s rows"),
                            &row,
                            "an Assign",
                            ASSIGN,
                        ));
                    }
                    let variable: String = row.getattr("variable")?.extract()?;
                    let path: Vec<String> = row.getattr("path")?.extract()?;
                    assigns.push(Assign::new(variable, path));
                }
                builder = builder.assign(tool, assigns);
            }
        }
        if let Some(replies) = replies.filter(|r| !r.is_none()) {
            builder = builder.replies(reply_rows(replies, CALL)?);
        }
        let registry = builder.build().map_err(build_error)?;
        registry.listen(Arc::new(LogSink));
        Ok(Self::wrap(registry, Vec::new()))
    }

    /// Starts a call that speaks through `speech` (the adapter's object: `say`, `wait_playout`,
    /// `reply_spoke`). `state` is a `CallState` (shared as it is), a State model instance or a
    /// dict of values; `call` what the call carries; `language` BCP 47; `timezone` IANA;
    /// `now` fixes the instant "today" is read from (RFC 3339; tests and replays).
    #[pyo3(signature = (speech, *, state=None, call=None, language=None, timezone=None, hooks=None, now=None))]
    #[allow(clippy::too_many_arguments)]
    fn start_call(
        &self,
        speech: &Bound<'_, PyAny>,
        state: Option<&Bound<'_, PyAny>>,
        call: Option<&Bound<'_, PyAny>>,
        language: Option<&Bound<'_, PyAny>>,
        timezone: Option<&Bound<'_, PyAny>>,
        hooks: Option<&Bound<'_, PyAny>>,
        now: Option<&str>,
    ) -> PyResult<PyLiveCall> {
        const CALL: &str = "start_call";
        let language = misuse::optional_string(CALL, "language", language, "language=\"en-US\"")?
            .unwrap_or_else(|| "en".to_string());
        let language = language.as_str();
        let timezone =
            misuse::optional_string(CALL, "timezone", timezone, "timezone=\"Europe/Madrid\"")?;
        let timezone = timezone.as_deref();
        hark_speak::locale::check_call(language, timezone)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let hooks = match hooks.filter(|h| !h.is_none()) {
            None => None,
            Some(h) => Some(h.cast::<PyCallHooks>().map_err(|_| {
                misuse::wrong(CALL, "hooks", h, "a CallHooks", "hooks=CallHooks()")
            })?),
        };
        let speech = PySpeech::new(speech)?;
        // `call=` may be the call's CallHooks, as the reference passes them.
        let (call, hooks) = match call {
            Some(given) if given.is_instance_of::<PyCallHooks>() => {
                (None, Some(given.cast::<PyCallHooks>()?.get().hooks()))
            }
            other => (other, hooks.map(|h| h.get().hooks())),
        };
        let state = match state {
            Some(given) if given.is_instance_of::<PyCallState>() => {
                let shared = given.cast::<PyCallState>()?.get().inner.clone();
                if let Some(call) = call.filter(|c| !c.is_none()) {
                    shared.set_call(call_info(Some(call))?);
                }
                shared
            }
            other => {
                let state = CallState::new(call_info(call)?, language, timezone);
                for (name, value) in values_of(other)? {
                    state.set(name, value);
                }
                state
            }
        };
        let live = match now {
            None => LiveCall::new(state, Arc::new(speech)),
            Some(now) => {
                let instant: jiff::Timestamp = now.parse().map_err(|_| {
                    PyValueError::new_err(format!(
                        "now is an instant in RFC 3339, like 2026-10-15T16:00:00Z, not {now:?}"
                    ))
                })?;
                LiveCall::with_clock(state, Arc::new(speech), Arc::new(FixedClock(instant)))
            }
        };
        let mut live = live.map_err(|e| PyValueError::new_err(e.to_string()))?;
        if let Some(hooks) = hooks {
            live = live.with_hooks(hooks);
        }
        Ok(PyLiveCall::new(self.inner.clone(), live))
    }

    /// Runs one call on its own, outside a call in progress (a coroutine resolving to a
    /// `ToolOutcome`): nothing is said or saved. `event` (a dict) runs it on an event: the
    /// executor's `context=` gets it and the sinks see the source `event`. `state` is a
    /// `CallState` or a dict of values.
    #[pyo3(signature = (name, arguments=None, *, state=None, event=None))]
    fn call<'py>(
        slf: &Bound<'py, Self>,
        name: String,
        arguments: Option<Bound<'py, PyAny>>,
        state: Option<Bound<'py, PyAny>>,
        event: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let none = || py.None().into_bound(py);
        let given = (
            name,
            arguments.unwrap_or_else(none),
            state.unwrap_or_else(none),
            event.unwrap_or_else(none),
        )
            .into_pyobject(py)?;
        bridge(py)?
            .getattr("deferred")?
            .call1((slf.getattr("_start_call")?, given))
    }

    /// The start of [`call`](Self::call), on the event loop's thread.
    #[pyo3(name = "_start_call")]
    fn start_call_alone<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&Bound<'py, PyAny>>,
        state: Option<&Bound<'py, PyAny>>,
        event: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let given: Option<Value> = match arguments.filter(|a| !a.is_none()) {
            None => None,
            Some(text) if text.is_instance_of::<pyo3::types::PyString>() => {
                Some(Value::String(text.extract()?))
            }
            Some(value) => Some(to_value(value)?),
        };
        let state = match state {
            Some(given) if given.is_instance_of::<PyCallState>() => {
                given.cast::<PyCallState>()?.get().inner.clone()
            }
            other => {
                let state = CallState::new(Default::default(), "en", None);
                for (name, value) in values_of(other)? {
                    state.set(name, value);
                }
                state
            }
        };
        let mut context = state.context(&Default::default());
        if let Some(event) = event.filter(|e| !e.is_none()) {
            match to_value(event)? {
                Value::Object(map) => context.event = Some(map),
                _ => {
                    return Err(PyTypeError::new_err(
                        "event is a dict of the event's context",
                    ));
                }
            }
        }
        let registry = self.inner.clone();
        driver::on_loop(py, async move {
            let outcome = match &given {
                None => registry.call(&name, RawArguments::None, &context).await,
                Some(value) => {
                    registry
                        .call(&name, RawArguments::Json(value), &context)
                        .await
                }
            };
            Ok(PyToolOutcome { inner: outcome })
        })
    }

    /// Every tool's definition in a provider dialect (`openai`, `openai_strict`, `anthropic`,
    /// `anthropic_strict`, `gemini`, `gemini_json_schema`), in the provider's request shape.
    #[pyo3(signature = (dialect=None))]
    fn definitions<'py>(
        &self,
        py: Python<'py>,
        dialect: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let dialect = misuse::optional_string(
            "ToolRegistry.definitions",
            "dialect",
            dialect,
            "registry.definitions(dialect=\"anthropic\")",
        )?
        .unwrap_or_else(|| "openai".to_string());
        let chosen = self::dialect(&dialect)?;
        let tools = self.inner.definitions(chosen);
        let list = PyList::empty(py);
        for tool in tools.tools {
            let strict = tool.strict;
            let value = match chosen {
                Dialect::OpenAi | Dialect::OpenAiStrict => {
                    let mut function = json!({
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    });
                    if strict {
                        function["strict"] = json!(true);
                    }
                    json!({"type": "function", "function": function})
                }
                Dialect::Anthropic | Dialect::AnthropicStrict => {
                    let mut value = json!({
                        "name": tool.name,
                        "description": tool.description,
                        "input_schema": tool.parameters,
                    });
                    if strict {
                        value["strict"] = json!(true);
                    }
                    value
                }
                Dialect::GeminiParameters => {
                    let mut value = json!({"name": tool.name, "description": tool.description});
                    if !hark_schema::takes_no_arguments(&tool.parameters) {
                        value["parameters"] = tool.parameters;
                    }
                    value
                }
                Dialect::GeminiJsonSchema => json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parametersJsonSchema": tool.parameters,
                }),
            };
            list.append(to_py(py, &value)?)?;
        }
        if !tools.refused.is_empty() {
            bridge(py)?
                .getattr("warn")?
                .call1((tools.refused.join("\n"),))?;
        }
        Ok(list)
    }

    /// True when the caller's speech must leave a running call of the tool alone.
    fn keeps_running(&self, name: &str) -> bool {
        self.inner.keeps_running(name)
    }

    /// What the model reads for `result` of the tool `name`, as the tool message's text.
    fn for_model(&self, name: &str, result: &Bound<'_, PyAny>) -> PyResult<String> {
        let value: Value = to_value(result)?;
        Ok(serde_json::to_string(&self.inner.for_model(name, &value)).unwrap_or_default())
    }

    /// The tools' names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.inner.names()
    }

    /// The tool of this name, or `None`.
    fn get(&self, name: &str) -> Option<PyToolSpec> {
        self.inner.get(name).map(|spec| PyToolSpec {
            inner: spec.clone(),
        })
    }

    /// A registry of only the named tools (keeping the sinks).
    #[pyo3(signature = (*names))]
    fn only(&self, py: Python<'_>, names: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<Self> {
        let mut given = Vec::new();
        for (i, name) in names.iter().enumerate() {
            given.push(misuse::string(
                "ToolRegistry.only",
                &format!("names[{i}]"),
                &name,
                "registry.only(\"book_table\", \"find_order\")",
            )?);
        }
        let names: Vec<&str> = given.iter().map(String::as_str).collect();
        Ok(Self::wrap(self.inner.only(&names), self.held(py)))
    }

    /// A registry with these tools added (keeping the sinks). A name already taken fails.
    #[pyo3(signature = (*tools))]
    fn with_tools(&self, tools: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<Self> {
        let items: Vec<_> = tools.iter().collect();
        let specs = specs(
            &items,
            "ToolRegistry.with_tools",
            "registry.with_tools(local_tool(book_table), local_tool(find_order))",
        )?;
        let added = self.inner.with_tools(specs).map_err(build_error)?;
        Ok(Self::wrap(added, self.held(tools.py())))
    }

    /// Adds a sink `sink(stage, data)`; a sink the registry already holds is not added again.
    /// Returns whether it was added.
    fn listen(&self, sink: &Bound<'_, PyAny>) -> PyResult<bool> {
        bridge(sink.py())?.getattr("check_sink")?.call1((sink,))?;
        let mut held = self.sinks.lock().unwrap_or_else(|p| p.into_inner());
        if held.iter().any(|(object, _)| object.is(sink)) {
            return Ok(false);
        }
        let rust: Arc<dyn hark_tools::ToolSink> = Arc::new(PySink(sink.clone().unbind()));
        held.push((sink.clone().unbind(), rust.clone()));
        Ok(self.inner.listen(rust))
    }

    fn __contains__(&self, name: &str) -> bool {
        self.inner.contains(name)
    }

    fn __len__(&self) -> usize {
        self.inner.tools().len()
    }

    fn __repr__(&self) -> String {
        format!("ToolRegistry({:?})", self.inner.names())
    }
}
