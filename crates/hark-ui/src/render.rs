//! `<ui_state>` and `<ui_event>` rendering, byte-identical to pipecat-ai 1.14.0
//! (`pipecat/workers/ui/ui_worker.py`: `render_ui_state`, `_render_node`, `_render_selection`,
//! `render_ui_event`). Proven by the goldens under `tests/golden/`.
//!
//! One line per node: `"  " * depth`, then space-joined parts `- {role}`, `"{name}"` (non-empty
//! string), `= "{value}"` (non-empty string), `[level=N]`, `[cols=N]`, `[rows=N]` (integers),
//! `[{tag}]` for each non-empty string in `state`, `[ref={ref}]` (non-empty); a trailing `:`
//! when the node has children. No escaping of quotes or newlines inside names (as pipecat).
//! The block is `<ui_state>`, the lines, an optional `<selection ref="…">` / text /
//! `</selection>`, and `</ui_state>`, joined with `\n`, no trailing newline.
//!
//! Two entry points render the same text:
//! - [`render_ui_state`] over a typed [`A11ySnapshot`] (decoded at the edge, as pipecat's
//!   pydantic models do before `model_dump(exclude_none=True)`);
//! - [`render_ui_state_value`] over any JSON value, exactly as pipecat renders the plain dict it
//!   stores: tolerant of missing roles, non-string state entries, odd types.
//!
//! Both walk the tree with an explicit stack: a 100 000-deep chain renders without recursion.

use crate::pyjson;
use hark_rtvi::{A11yNode, A11ySnapshot, Payload};
use serde_json::{Map, Value};

/// Renders a snapshot as the `<ui_state>` block (see the module docs for the exact format).
///
/// Output for pipecat's example page starts `<ui_state>\n- generic [ref=e1]:\n  - main
/// [ref=e2]:` and ends `</ui_state>`. Never fails; time and memory are linear in the tree.
pub fn render_ui_state(snapshot: &A11ySnapshot) -> String {
    let mut out = String::with_capacity(64 + estimate(&snapshot.root));
    out.push_str("<ui_state>");
    let mut stack: Vec<(&A11yNode, usize)> = vec![(&snapshot.root, 0)];
    while let Some((node, depth)) = stack.pop() {
        out.push('\n');
        push_indent(&mut out, depth);
        out.push_str("- ");
        out.push_str(&node.role);
        if let Some(name) = node.name.as_deref().filter(|s| !s.is_empty()) {
            push_quoted(&mut out, " \"", name);
        }
        // The rare fields, all between the name and the ref (most nodes have none).
        if let Some(rare) = node.rare() {
            if let Some(value) = rare.value.as_deref().filter(|s| !s.is_empty()) {
                push_quoted(&mut out, " = \"", value);
            }
            let wide = rare.wide.as_deref();
            let w = |f: fn(&hark_rtvi::WideInts) -> &Option<Box<str>>| {
                wide.and_then(|w| f(w).as_deref())
            };
            push_int_tag(&mut out, "level", rare.level, w(|w| &w.level));
            push_int_tag(&mut out, "cols", rare.colcount, w(|w| &w.colcount));
            push_int_tag(&mut out, "rows", rare.rowcount, w(|w| &w.rowcount));
            for tag in rare.state.iter().filter(|s| !s.is_empty()) {
                out.push_str(" [");
                out.push_str(tag);
                out.push(']');
            }
        }
        if !node.ref_.is_empty() {
            out.push_str(" [ref=");
            out.push_str(&node.ref_);
            out.push(']');
        }
        if !node.children.is_empty() {
            out.push(':');
            stack.extend(node.children.iter().rev().map(|c| (c, depth + 1)));
        }
    }
    if let Some(sel) = &snapshot.selection {
        push_selection(&mut out, &sel.ref_, &sel.text);
    }
    out.push_str("\n</ui_state>");
    out
}

/// Renders any JSON value as pipecat renders the snapshot dict it stores (`render_ui_state`).
///
/// Returns `""` when `snapshot` is not a non-empty object or its `root` is not an object (as
/// pipecat). Per node: a missing `role` reads `generic`; a non-string role prints as Python's
/// `str()` of it (`None`, `True`, `5`, `['a']`); `name`/`value`/`ref` only when non-empty
/// strings; `level`/`colcount`/`rowcount` only when integers (a boolean is a Python int and
/// prints `True`/`False`); `state` entries only when non-empty strings; `:` when `children` is
/// truthy in Python's sense, and only object children are rendered.
pub fn render_ui_state_value(snapshot: &Value) -> String {
    let Some(obj) = snapshot.as_object().filter(|o| !o.is_empty()) else {
        return String::new();
    };
    let Some(root) = obj.get("root").and_then(Value::as_object) else {
        return String::new();
    };
    let mut out = String::from("<ui_state>");
    let mut stack: Vec<(&Map<String, Value>, usize)> = vec![(root, 0)];
    while let Some((node, depth)) = stack.pop() {
        out.push('\n');
        push_indent(&mut out, depth);
        out.push_str("- ");
        match node.get("role") {
            None => out.push_str("generic"),
            Some(role) => pyjson::py_str(role, &mut out),
        }
        if let Some(name) = non_empty_str(node.get("name")) {
            push_quoted(&mut out, " \"", name);
        }
        if let Some(value) = non_empty_str(node.get("value")) {
            push_quoted(&mut out, " = \"", value);
        }
        push_py_int_tag(&mut out, "level", node.get("level"));
        push_py_int_tag(&mut out, "cols", node.get("colcount"));
        push_py_int_tag(&mut out, "rows", node.get("rowcount"));
        if let Some(Value::Array(state)) = node.get("state") {
            for tag in state.iter().filter_map(|s| non_empty_str(Some(s))) {
                out.push_str(" [");
                out.push_str(tag);
                out.push(']');
            }
        }
        if let Some(r) = non_empty_str(node.get("ref")) {
            out.push_str(" [ref=");
            out.push_str(r);
            out.push(']');
        }
        let children = node.get("children");
        if children.is_some_and(py_truthy) {
            out.push(':');
        }
        if let Some(Value::Array(items)) = children {
            stack.extend(
                items
                    .iter()
                    .rev()
                    .filter_map(Value::as_object)
                    .map(|c| (c, depth + 1)),
            );
        }
    }
    if let Some(Value::Object(sel)) = obj.get("selection")
        && let (Some(r), Some(text)) = (
            non_empty_str(sel.get("ref")),
            non_empty_str(sel.get("text")),
        )
    {
        push_selection(&mut out, r, text);
    }
    out.push_str("\n</ui_state>");
    out
}

/// Renders a UI event as pipecat does: `<ui_event name="{name}">{json.dumps(payload)}</ui_event>`.
///
/// `name` goes in raw (no escaping, as pipecat). `payload` `None` (the client sent none) renders
/// `null`; the JSON is Python's `json.dumps` text (see [`crate::pyjson`]), e.g.
/// `<ui_event name="nav_click">{"view": "home"}</ui_event>`. A payload sent with an integer
/// beyond 64 bits is rendered from its text, every digit kept, as pipecat's Python does.
pub fn render_ui_event_payload(name: &str, payload: Option<&Payload>) -> String {
    match payload.and_then(Payload::exact_text) {
        Some(text) => {
            let mut out = String::with_capacity(name.len() + text.len() + 32);
            out.push_str("<ui_event name=\"");
            out.push_str(name);
            out.push_str("\">");
            if pyjson::dumps_text_into(text, &mut out).is_err() {
                // The text was read as JSON when the message came in; never reached.
                return render_ui_event(name, payload.map(Payload::value));
            }
            out.push_str("</ui_event>");
            out
        }
        None => render_ui_event(name, payload.map(Payload::value)),
    }
}

/// [`render_ui_event_payload`] for a payload held as a `Value` (an integer beyond 64 bits in it
/// is already a float).
pub fn render_ui_event(name: &str, payload: Option<&Value>) -> String {
    let mut out = String::with_capacity(name.len() + 40);
    out.push_str("<ui_event name=\"");
    out.push_str(name);
    out.push_str("\">");
    match payload {
        Some(v) => pyjson::dumps_into(v, &mut out),
        None => out.push_str("null"),
    }
    out.push_str("</ui_event>");
    out
}

fn estimate(root: &A11yNode) -> usize {
    // A cheap capacity guess: the root's direct children times a typical line length.
    48 * (1 + root.children.len())
}

/// Two spaces per level for the first levels, pushed as one slice.
const INDENT: &str = "                                                                                                                                ";

fn push_indent(out: &mut String, depth: usize) {
    let mut width = 2 * depth;
    while width > INDENT.len() {
        out.push_str(INDENT);
        width -= INDENT.len();
    }
    out.push_str(&INDENT[..width]);
}

/// ` [label=N]` with `N` written by hand (no formatter; the common small positive integers).
fn push_i64_tag(out: &mut String, label: &str, v: i64) {
    out.push_str(" [");
    out.push_str(label);
    out.push('=');
    if v < 0 {
        out.push('-');
    }
    let mut n = v.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // `n % 10` is below 10: the cast keeps it exactly.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits only.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
    out.push(']');
}

fn push_quoted(out: &mut String, open: &str, text: &str) {
    out.push_str(open);
    out.push_str(text);
    out.push('"');
}

/// ` [label=N]`; `wide`, the exact text of a value beyond `i64` (which `value` saturates), is
/// written instead when present, as pipecat renders Python's exact `int`.
fn push_int_tag(out: &mut String, label: &str, value: Option<i64>, wide: Option<&str>) {
    match (wide, value) {
        (Some(t), _) => {
            out.push_str(" [");
            out.push_str(label);
            out.push('=');
            out.push_str(t);
            out.push(']');
        }
        (None, Some(v)) => push_i64_tag(out, label, v),
        (None, None) => {}
    }
}

fn push_py_int_tag(out: &mut String, label: &str, value: Option<&Value>) {
    use std::fmt::Write as _;
    match value {
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {
            let _ = write!(out, " [{label}={n}]");
        }
        Some(Value::Bool(b)) => {
            let _ = write!(out, " [{label}={}]", if *b { "True" } else { "False" });
        }
        _ => {}
    }
}

fn push_selection(out: &mut String, r: &str, text: &str) {
    if r.is_empty() || text.is_empty() {
        return;
    }
    out.push_str("\n<selection ref=\"");
    out.push_str(r);
    out.push_str("\">\n");
    out.push_str(text);
    out.push_str("\n</selection>");
}

fn non_empty_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Python truthiness of the value `json.loads` makes.
fn py_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec_example() -> Value {
        json!({"root":{"ref":"e1","role":"generic","children":[{"ref":"e2","role":"main","children":[
            {"ref":"e3","role":"heading","name":"Checkout","level":1},
            {"ref":"e4","role":"paragraph","name":"Review your order before paying."},
            {"ref":"e5","role":"textbox","name":"Email","value":"ana@example.com","state":["focused"]},
            {"ref":"e6","role":"checkbox","name":"Gift wrap","state":["checked"]},
            {"ref":"e7","role":"combobox","name":"Country","value":"Spain","children":[
              {"ref":"e8","role":"option","name":"France"},
              {"ref":"e9","role":"option","name":"Spain","state":["selected"]}]},
            {"ref":"","role":"text","name":"Total: 42 EUR"},
            {"ref":"e10","role":"button","name":"Pay now","state":["disabled","offscreen"]}]}]},
         "captured_at":1767225600000_i64,"selection":{"ref":"e4","text":"Review your order"}})
    }

    const SPEC_RENDERED: &str = "<ui_state>
- generic [ref=e1]:
  - main [ref=e2]:
    - heading \"Checkout\" [level=1] [ref=e3]
    - paragraph \"Review your order before paying.\" [ref=e4]
    - textbox \"Email\" = \"ana@example.com\" [focused] [ref=e5]
    - checkbox \"Gift wrap\" [checked] [ref=e6]
    - combobox \"Country\" = \"Spain\" [ref=e7]:
      - option \"France\" [ref=e8]
      - option \"Spain\" [selected] [ref=e9]
    - text \"Total: 42 EUR\"
    - button \"Pay now\" [disabled] [offscreen] [ref=e10]
<selection ref=\"e4\">
Review your order
</selection>
</ui_state>";

    #[test]
    fn renders_the_spec_example_both_ways() {
        let v = spec_example();
        assert_eq!(render_ui_state_value(&v), SPEC_RENDERED);
        let typed = A11ySnapshot::from_value(v, "").expect("spec example decodes");
        assert_eq!(render_ui_state(&typed), SPEC_RENDERED);
    }

    #[test]
    fn pins_the_pipecat_test_strings() {
        let v = json!({"root":{"ref":"e2","role":"grid","name":"Trending artists","colcount":8,"rowcount":2},
                       "captured_at":1});
        assert_eq!(
            render_ui_state_value(&v),
            "<ui_state>\n- grid \"Trending artists\" [cols=8] [rows=2] [ref=e2]\n</ui_state>"
        );
    }

    #[test]
    fn dict_path_is_tolerant_like_pipecat() {
        let v = json!({"root":{"children":[
            {"ref":"e2","role":"checkbox","name":"C","state":[1,null,"","checked",["x"]],"level":true},
            {"role":null,"children":{"a":1}},
            {"ref":5,"role":["a"],"children":[1,"x"]}]}});
        assert_eq!(
            render_ui_state_value(&v),
            "<ui_state>\n- generic:\n  - checkbox \"C\" [level=True] [checked] [ref=e2]\n  - None:\n  - ['a']:\n</ui_state>"
        );
        assert_eq!(render_ui_state_value(&json!({})), "");
        assert_eq!(render_ui_state_value(&json!({"root": []})), "");
        assert_eq!(render_ui_state_value(&json!([1])), "");
    }

    fn chain(depth: usize) -> A11ySnapshot {
        let mut node = A11yNode {
            ref_: format!("e{depth}").into(),
            role: "button".into(),
            ..Default::default()
        };
        for i in (1..depth).rev() {
            node = A11yNode {
                ref_: format!("e{i}").into(),
                role: "group".into(),
                children: vec![node],
                ..Default::default()
            };
        }
        A11ySnapshot {
            root: node,
            captured_at: 0,
            ..Default::default()
        }
    }

    /// Drop glue of nested `Vec`s recurses: take a chain apart iteratively.
    fn dismantle(mut node: A11yNode) {
        while let Some(child) = node.children.pop() {
            node = child;
        }
    }

    /// Runs `f` on a thread with a 256 KiB stack, where one stack frame per level of a
    /// 5 000-deep chain could not fit.
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(f)
            .expect("thread starts")
            .join()
            .expect("no stack overflow")
    }

    /// The output of a chain is quadratic in its depth (the indent), so the no-recursion proof
    /// is a 5 000-deep chain on a small stack.
    #[test]
    fn deep_chain_renders_on_a_small_stack() {
        let snap = chain(5_000);
        let (out, snap) = on_small_stack(move || (render_ui_state(&snap), snap));
        dismantle(snap.root);
        assert_eq!(out.lines().count(), 5_002);
        let last = format!("{}- button [ref=e5000]\n</ui_state>", "  ".repeat(4_999));
        assert!(out.ends_with(&last));

        // Built by hand: `json!` would serialise (deep-copy, recursively) each nested value.
        let mut node = json!({"ref": "e5000", "role": "button"});
        for i in (1..5_000).rev() {
            let mut m = Map::new();
            m.insert("ref".into(), Value::String(format!("e{i}")));
            m.insert("role".into(), Value::String("group".into()));
            m.insert("children".into(), Value::Array(vec![node]));
            node = Value::Object(m);
        }
        let mut root = Map::new();
        root.insert("root".into(), node);
        let wrapper = Value::Object(root);
        let (out_value, mut wrapper) =
            on_small_stack(move || (render_ui_state_value(&wrapper), wrapper));
        assert_eq!(out, out_value);
        // serde_json's Value drop recurses too: unlink the levels one by one.
        let mut cur = wrapper["root"].take();
        while let Some(Value::Array(mut kids)) = cur.get_mut("children").map(Value::take) {
            cur = kids.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn ui_event_renders_like_json_dumps() {
        assert_eq!(
            render_ui_event("nav_click", Some(&json!({"view": "home"}))),
            "<ui_event name=\"nav_click\">{\"view\": \"home\"}</ui_event>"
        );
        assert_eq!(
            render_ui_event("x", None),
            "<ui_event name=\"x\">null</ui_event>"
        );
    }
}
