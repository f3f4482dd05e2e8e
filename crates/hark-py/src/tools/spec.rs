//! `ToolSpec`: one tool as the model sees it (name, description, JSON Schema of its input,
//! output, options), run by a Python executor, or built in Rust (built-in tools, webhooks).

use std::sync::Arc;

use hark_tools::{Interruption, Output, ToolSpec};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

use super::errors::build_error;
use super::executor::PyExecutor;
use super::json::{bridge, to_py, to_value};
use super::options;
use crate::misuse;

/// One tool (`hark.ToolSpec`): `ToolSpec(name, description, parameters, output, executor,
/// **options)`. `parameters` is the JSON Schema of the arguments, `output` a pydantic model
/// class (or `Done`, `Accepted`), `executor` an object with an async `run`.
#[pyclass(name = "ToolSpec", module = "hark._core", frozen)]
#[derive(Debug)]
pub struct PyToolSpec {
    /// The Rust tool.
    pub inner: ToolSpec,
}

/// The output a Python `output` names: `(name, JSON Schema)` from `hark._bridge.output_of`;
/// `Done` and `Accepted` are the Rust API's own.
pub fn output_of(output: &Bound<'_, PyAny>) -> PyResult<Output> {
    let (name, schema): (String, Option<Bound<'_, PyAny>>) = bridge(output.py())?
        .getattr("output_of")?
        .call1((output,))?
        .extract()?;
    Ok(match (name.as_str(), schema) {
        ("Done", None) => Output::done(),
        ("Accepted", None) => Output::accepted(),
        (_, Some(schema)) => Output::json(name, to_value(&schema)?),
        (_, None) => Output::json(name, Value::Object(Default::default())),
    })
}

impl PyToolSpec {
    /// A tool built in Rust, with the Python options applied.
    pub fn from_spec(spec: ToolSpec, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(Self {
            inner: options::apply(spec, options)?,
        })
    }
}

#[pymethods]
impl PyToolSpec {
    #[new]
    #[pyo3(signature = (name, description, parameters, output, executor, **options))]
    fn new(
        name: &Bound<'_, PyAny>,
        description: &Bound<'_, PyAny>,
        parameters: &Bound<'_, PyAny>,
        output: &Bound<'_, PyAny>,
        executor: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        const CALL: &str = "ToolSpec";
        const EXAMPLE: &str = "ToolSpec(\"find_order\", \"Find an order.\", {\"type\": \"object\", \"properties\": {}}, Order, executor)";
        let name = misuse::string(CALL, "name", name, EXAMPLE)?;
        let description = misuse::string(CALL, "description", description, EXAMPLE)?;
        if !parameters.is_instance_of::<PyDict>() {
            return Err(misuse::wrong(
                CALL,
                "parameters",
                parameters,
                "a JSON Schema dict",
                EXAMPLE,
            ));
        }
        let parameters = to_value(parameters)?;
        let output = output_of(output)?;
        let executor = PyExecutor::new(&name, executor)?;
        let spec = ToolSpec::new(name, description, parameters, output, Arc::new(executor))
            .map_err(build_error)?;
        Self::from_spec(spec, options)
    }

    /// The same tool under another name and description (`name=`, `description=`).
    #[pyo3(signature = (name=None, description=None))]
    fn renamed(
        &self,
        name: Option<&Bound<'_, PyAny>>,
        description: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        const CALL: &str = "ToolSpec.renamed";
        let name =
            misuse::optional_string(CALL, "name", name, "tool.renamed(name=\"find_order\")")?;
        let description = misuse::optional_string(
            CALL,
            "description",
            description,
            "tool.renamed(description=\"Find an order.\")",
        )?;
        let mut spec = self.inner.clone();
        if let Some(name) = name {
            spec = spec.with_name(name).map_err(build_error)?;
        }
        if let Some(description) = description {
            spec = spec.with_description(description);
        }
        Ok(Self { inner: spec })
    }

    /// The same tool with more options applied (`announce=`, `interruption=`…).
    #[pyo3(signature = (**options))]
    fn with_options(&self, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Self::from_spec(self.inner.clone(), options)
    }

    /// The name the model calls the tool by.
    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The description the model reads (result instructions appended).
    #[getter]
    fn description(&self) -> String {
        self.inner.description()
    }

    /// The schema the model reads (normalised; locked arguments left out).
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.model_parameters())
    }

    /// The parameters schema as given.
    #[getter]
    fn input_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.inner.parameters())
    }

    /// The output's name (`Order`, `Done`).
    #[getter]
    fn output_name(&self) -> String {
        self.inner.output().name().to_string()
    }

    /// `"provider_default"`, `"continue"` or `"cancel"`.
    #[getter]
    fn interruption(&self) -> &'static str {
        match self.inner.interruption_rule() {
            Interruption::ProviderDefault => "provider_default",
            Interruption::Continue => "continue",
            Interruption::Cancel => "cancel",
        }
    }

    /// True when a successful call ends the conversation.
    #[getter]
    fn ends_conversation(&self) -> bool {
        self.inner.ends_the_call()
    }

    fn __repr__(&self) -> String {
        format!("ToolSpec({:?})", self.inner.name())
    }
}
