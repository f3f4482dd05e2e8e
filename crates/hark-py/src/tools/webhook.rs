//! `webhook_tool`: a tool whose executor is `hark-webhook`'s guarded webhook (URL checks, the
//! network guard, one deadline, size caps, auth), built from Python arguments.

use std::time::Duration;

use hark_tools::{Locked, Transcript};
use hark_webhook::{BodyShape, Method, TokenSource, WebhookAuth};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::bridge;
use super::errors::build_error;
use super::json::{bridge as helpers, to_value};
use super::spec::{PyToolSpec, output_of};
use crate::gate;

/// A token source: an environment variable's name, or an async function returning the token.
fn token_source(token: &Bound<'_, PyAny>) -> PyResult<TokenSource> {
    if let Ok(name) = token.cast::<PyString>() {
        return Ok(TokenSource::env(name.to_string()));
    }
    if !token.is_callable() {
        return Err(PyTypeError::new_err(
            "a token is an environment variable's name or an async function returning the token",
        ));
    }
    let label: String = token
        .getattr("__qualname__")
        .and_then(|n| n.extract())
        .unwrap_or_else(|_| "token function".to_string());
    let function = token.clone().unbind();
    Ok(TokenSource::function(label, move || {
        let awaiting = gate::attach_py(|py| {
            let coroutine = function.bind(py).call0()?;
            bridge::awaiting(py, &coroutine)
        });
        async move {
            let value = awaiting?.result().await?;
            gate::attach_py(|py| value.bind(py).extract::<String>())
        }
    }))
}

/// `WebhookAuth.api_key(...)` / `WebhookAuth.bearer(...)` as the Rust auth (read from the
/// Python object's `kind`, `source` and `header`).
fn auth_of(auth: &Bound<'_, PyAny>) -> PyResult<WebhookAuth> {
    let kind: String = auth.getattr("kind")?.extract()?;
    let source = token_source(&auth.getattr("source")?)?;
    match kind.as_str() {
        "api_key" => Ok(WebhookAuth::api_key(
            source,
            auth.getattr("header")?.extract::<String>()?,
        )),
        "bearer" => Ok(WebhookAuth::bearer(source)),
        other => Err(PyValueError::new_err(format!(
            "auth is WebhookAuth.api_key(...) or WebhookAuth.bearer(...), not {other:?}"
        ))),
    }
}

fn method_of(method: &str) -> PyResult<Method> {
    Ok(match method.to_ascii_uppercase().as_str() {
        "GET" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "PATCH" => Method::Patch,
        "DELETE" => Method::Delete,
        other => {
            return Err(PyValueError::new_err(format!(
                "method is GET, POST, PUT, PATCH or DELETE, not {other:?}"
            )));
        }
    })
}

/// A webhook tool: `webhook_tool(name, description, url, input=Model, output=Model, ...)`.
/// Every build problem raises `ValueError` at once, each line naming the fix.
#[pyfunction]
#[pyo3(signature = (
    name, description, url, *, input=None, output=None, method="POST", locked=None, auth=None,
    body="plain", timeout=None, wait_for_response=None, allow_private_network=None, headers=None,
    **options
))]
#[allow(clippy::too_many_arguments)]
fn webhook_tool(
    name: String,
    description: String,
    url: String,
    input: Option<&Bound<'_, PyAny>>,
    output: Option<&Bound<'_, PyAny>>,
    method: &str,
    locked: Option<&Bound<'_, PyDict>>,
    auth: Option<&Bound<'_, PyAny>>,
    body: &str,
    timeout: Option<f64>,
    wait_for_response: Option<bool>,
    allow_private_network: Option<bool>,
    headers: Option<&Bound<'_, PyDict>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyToolSpec> {
    let tool = name.clone();
    let mut builder = hark_webhook::webhook_tool(name, description, url).method(method_of(method)?);
    if let Some(input) = input.filter(|i| !i.is_none()) {
        let schema = helpers(input.py())?
            .getattr("input_schema_of")?
            .call1((input,))?;
        builder = builder.parameters(to_value(&schema)?);
    }
    if let Some(output) = output.filter(|o| !o.is_none()) {
        let chosen = output_of(output)?;
        builder = match chosen.name() {
            "Done" => builder.output_done(),
            "Accepted" => builder.output_accepted(),
            _ => builder.output_json(chosen),
        };
    }
    if let Some(locked) = locked {
        for (parameter, value) in locked.iter() {
            let parameter: String = parameter.extract()?;
            let value = if let Ok(text) = value.cast::<PyString>() {
                Locked::Template(text.to_string())
            } else if let Ok(max) = value.getattr("max_messages").and_then(|m| m.extract()) {
                Locked::Transcript(Transcript { max_messages: max })
            } else {
                return Err(PyTypeError::new_err(format!(
                    "{tool}: locked {parameter} must be a \"{{{{template}}}}\" text or Transcript(max_messages=...)"
                )));
            };
            builder = builder.locked(parameter, value);
        }
    }
    if let Some(auth) = auth.filter(|a| !a.is_none()) {
        builder = builder.auth(auth_of(auth)?);
    }
    builder = builder.body(match body {
        "plain" => BodyShape::Plain,
        "envelope" => BodyShape::Envelope,
        other => {
            return Err(PyValueError::new_err(format!(
                "{tool}: body is \"plain\" or \"envelope\", not {other:?}"
            )));
        }
    });
    if let Some(seconds) = timeout {
        if !(seconds.is_finite() && seconds > 0.0) {
            return Err(PyValueError::new_err(format!(
                "{tool}: timeout is a number of seconds above 0, like timeout=5, not {seconds}"
            )));
        }
        builder = builder.timeout(Duration::from_secs_f64(seconds.min(1e6)));
    }
    if let Some(wait) = wait_for_response {
        builder = builder.wait_for_response(wait);
    }
    if let Some(allow) = allow_private_network {
        builder = builder.allow_private_network(allow);
    }
    if let Some(headers) = headers {
        for (header, value) in headers.iter() {
            builder = builder.header(header.extract::<String>()?, value.extract::<String>()?);
        }
    }
    let spec = builder.build().map_err(build_error)?;
    PyToolSpec::from_spec(spec, options)
}

/// Adds the function to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(webhook_tool, module)?)?;
    Ok(())
}
