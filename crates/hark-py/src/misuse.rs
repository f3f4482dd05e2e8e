//! The one text of a wrong-type or wrong-shape argument to Hark's public Python API: it names
//! the call and the parameter, what it got, and what to pass with a short example, so no caller
//! reads a raw "'X' object is not iterable" or PyO3's "cannot be converted to 'PyString'".
//!
//! `ToolRegistry: tools must be a list of tools, not the tool book_table (a ToolSpec). Pass it
//! like ToolRegistry([local_tool(book_table)]).`
//!
//! The Python layer raises the same text through `hark._core.misuse` (`hark/_misuse.py`).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::tools::PyToolSpec;

/// What the caller passed, in a few words: `the tool book_table (a ToolSpec)`, `'abc' (a str)`,
/// `5 (an int)`, `None`.
pub fn described(value: &Bound<'_, PyAny>) -> String {
    if value.is_none() {
        return "None".to_string();
    }
    let kind = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string());
    if let Ok(tool) = value.cast::<PyToolSpec>() {
        return format!("the tool {} (a ToolSpec)", tool.get().inner.name());
    }
    if value.is_callable()
        && value.hasattr("__name__").unwrap_or(false)
        && !value.is_instance_of::<pyo3::types::PyType>()
    {
        let name: String = value
            .getattr("__name__")
            .and_then(|n| n.extract())
            .unwrap_or_default();
        return format!("the function {name}");
    }
    let shown = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| format!("a {kind}"));
    let shown = if shown.chars().count() > 40 {
        format!("{}…", shown.chars().take(40).collect::<String>())
    } else {
        shown
    };
    format!("{shown} ({} {kind})", article(&kind))
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}

/// The text: `{call}: {param} must be {wants}, not {got}. Pass it like {example}.`
pub fn text(
    call: &str,
    param: &str,
    value: &Bound<'_, PyAny>,
    wants: &str,
    example: &str,
) -> String {
    format!(
        "{call}: {param} must be {wants}, not {}. Pass it like {example}.",
        described(value)
    )
}

/// The `TypeError` of [`text`].
pub fn wrong(
    call: &str,
    param: &str,
    value: &Bound<'_, PyAny>,
    wants: &str,
    example: &str,
) -> PyErr {
    PyTypeError::new_err(text(call, param, value, wants, example))
}

/// `value` as a `str`, else the `TypeError` of [`text`] ("a str").
pub fn string(
    call: &str,
    param: &str,
    value: &Bound<'_, PyAny>,
    example: &str,
) -> PyResult<String> {
    if value.is_instance_of::<PyString>() {
        value.extract()
    } else {
        Err(wrong(call, param, value, "a str", example))
    }
}

/// `value` as a `str` or `None`.
pub fn optional_string(
    call: &str,
    param: &str,
    value: Option<&Bound<'_, PyAny>>,
    example: &str,
) -> PyResult<Option<String>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => string(call, param, v, example).map(Some),
    }
}

/// The items of a list or tuple (or any other iterable that is not a text, bytes or a dict),
/// else the `TypeError` of [`text`].
pub fn items<'py>(
    call: &str,
    param: &str,
    value: &Bound<'py, PyAny>,
    wants: &str,
    example: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let refused = || wrong(call, param, value, wants, example);
    if value.is_instance_of::<PyString>()
        || value.is_instance_of::<PyBytes>()
        || value.is_instance_of::<PyDict>()
    {
        return Err(refused());
    }
    let Ok(iter) = value.try_iter() else {
        return Err(refused());
    };
    iter.collect::<PyResult<Vec<_>>>()
}

/// `hark._core.misuse(call, param, value, wants, example)`: the `TypeError` the Python layer
/// raises, with the same text.
#[pyfunction]
fn misuse(call: &str, param: &str, value: &Bound<'_, PyAny>, wants: &str, example: &str) -> PyErr {
    wrong(call, param, value, wants, example)
}

/// Adds `misuse` to `hark._core`.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(misuse, module)?)
}
