//! The schema the model reads: checks of a hand-written schema, `$ref` inlining, and the
//! simplifications (a null default dropped, `format` and `pattern` in words, local `$ref`s
//! inlined).

use serde_json::{Map, Value};

use crate::error::{SchemaError, SchemaErrors};
use crate::keywords::{Kind, is_annotation, is_null_only, join, kind, value_type};
use crate::messages;

/// How deeply a schema may nest, in JSON containers (objects and lists), as written and once its
/// `$ref`s are inlined. One level of properties takes two (`properties` → name), so this allows
/// about 64 levels of nested values. serde_json refuses deeper documents when parsing anyway.
pub const MAX_DEPTH: usize = 128;

/// How many schemas the normalised schema may hold once `$ref`s are inlined (a guard against a
/// small schema whose references fan out into a huge one).
pub const MAX_SCHEMAS: usize = 10_000;

const TYPE_NAMES: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null",
];

/// The schema the model reads, from a tool's JSON Schema of its arguments.
///
/// Input: a JSON Schema (draft 2020-12) as schemars 1 generates it or as a user writes it.
/// Output: the schema with
/// - the root a plain object (`"type": "object"`, `properties`, `required`, and the root's
///   `description`, `title`, `additionalProperties` and `x-` keys when given);
/// - local `$ref`s inlined and `$defs`, `$schema`, `$comment` gone; a `$ref`'s sibling
///   annotations (`description`, `title`, `default`…) override the definition's;
/// - an optional property (not in `required`) whose default is null, or that has no default,
///   without its null branch (`type` list, `anyOf`/`oneOf` branch, `null` in `enum`) and without
///   `"default": null`. For serde an absent optional value and null both mean `None`, so a
///   missing default counts as a null default. A required property, or one with another
///   default, keeps null, because there null means something;
/// - `format` and `pattern` moved into the `description` in words (`format: "date"` →
///   "A date written YYYY-MM-DD."); schemars' number formats (`uint8`, `int32`, `double`…)
///   dropped, as they say nothing beyond the type and bounds;
/// - an `allOf` whose parts merge without conflict merged; an `anyOf`/`oneOf` left with one
///   branch merged; a `oneOf`/`anyOf` of `const`s (a documented enum) turned into an `enum`
///   with each documented choice in words.
///
/// Normalising twice gives the same result as normalising once.
///
/// # Errors
/// All problems at once: `definitions` and `$id`
/// anywhere, `nullable` anywhere, a root keyword outside the allowed list (e.g. `oneOf`), a root
/// `type` other than `"object"`, a schema that is not an object, a non-local or dangling `$ref`,
/// a `$ref` cycle (names the definition: a recursive type cannot be inlined), a keyword that
/// should hold a schema and does not, nesting deeper than [`MAX_DEPTH`], or more than
/// [`MAX_SCHEMAS`] schemas once inlined.
pub fn normalise(schema: &Value) -> Result<Value, SchemaErrors> {
    if crate::keywords::too_deep(schema, MAX_DEPTH) {
        return Err(one("depth", "", messages::too_deep(MAX_DEPTH)));
    }
    let Value::Object(root) = schema else {
        return Err(one("type", "", messages::root_not_object(schema)));
    };

    let mut checker = Checker {
        root: schema,
        errors: Vec::new(),
    };
    checker.check_root(root);
    checker.node(schema, "");
    if !checker.errors.is_empty() {
        return Err(SchemaErrors(checker.errors));
    }

    let mut inliner = Inliner {
        root: schema,
        schemas: 0,
        errors: Vec::new(),
        stopped: false,
    };
    let inlined = inliner.node(schema, "", &mut Vec::new(), 0);
    if !inliner.errors.is_empty() {
        return Err(SchemaErrors(inliner.errors));
    }

    let simplified = simplify(inlined, false);
    let Value::Object(mut m) = simplified else {
        // The root was an object and simplify keeps objects objects.
        return Err(one("type", "", messages::root_not_object(schema)));
    };
    // The root is always a plain object schema with its properties.
    if !m.contains_key("type") {
        m.insert("type".into(), Value::from("object"));
    }
    if !m.contains_key("properties") {
        m.insert("properties".into(), Value::Object(Map::new()));
    }
    Ok(Value::Object(order_root(m)))
}

fn one(keyword: &str, path: &str, message: String) -> SchemaErrors {
    SchemaErrors(vec![SchemaError::new(keyword, path, message)])
}

/// Puts the root's keywords in a stable, readable order: type, title, description, properties,
/// required, additionalProperties, then the rest as given.
fn order_root(mut m: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for k in [
        "type",
        "title",
        "description",
        "properties",
        "required",
        "additionalProperties",
    ] {
        if let Some(v) = m.shift_remove(k) {
            out.insert(k.into(), v);
        }
    }
    out.extend(m);
    out
}

// ---------------------------------------------------------------------------------------------
// Checks of a hand-written schema.

struct Checker<'a> {
    root: &'a Value,
    errors: Vec<SchemaError>,
}

impl Checker<'_> {
    fn err(&mut self, keyword: &str, path: &str, message: String) {
        self.errors.push(SchemaError::new(keyword, path, message));
    }

    fn check_root(&mut self, root: &Map<String, Value>) {
        for (k, v) in root {
            let path = join("", k);
            match k.as_str() {
                "$schema"
                | "$defs"
                | "properties"
                | "required"
                | "additionalProperties"
                | "description"
                | "title"
                | "$comment" => {}
                // Reported by the walk with their own rule.
                "definitions" | "$id" | "nullable" => {}
                "type" => {
                    if v != "object" {
                        self.err("type", &path, messages::root_type_not_object(v));
                    }
                }
                other if other.starts_with("x-") => {}
                other => self.err(other, &path, messages::root_keyword_refused(other)),
            }
        }
    }

    /// Walks one schema (object or boolean) at `path`.
    fn node(&mut self, node: &Value, path: &str) {
        let Value::Object(m) = node else { return };
        for (k, v) in m {
            let kp = join(path, k);
            match k.as_str() {
                "definitions" | "$id" => self.err(k, &kp, messages::definitions_refused()),
                "nullable" => {
                    let t = m.get("type").and_then(Value::as_str);
                    self.err(k, &kp, messages::nullable_refused(t));
                }
                "$ref" => self.check_ref(v, &kp),
                "$dynamicRef" | "$recursiveRef" => {
                    self.err(k, &kp, messages::dynamic_ref_refused(k));
                }
                "type" => {
                    let ok = match v {
                        Value::String(s) => TYPE_NAMES.contains(&s.as_str()),
                        Value::Array(a) => {
                            !a.is_empty()
                                && a.iter()
                                    .all(|t| t.as_str().is_some_and(|s| TYPE_NAMES.contains(&s)))
                        }
                        _ => false,
                    };
                    if !ok {
                        self.err(k, &kp, messages::bad_type(v));
                    }
                }
                "required" => {
                    let ok = v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
                    if !ok {
                        self.err(k, &kp, messages::bad_required(v));
                    }
                }
                "enum" if v.as_array().is_none_or(Vec::is_empty) => {
                    self.err(k, &kp, messages::bad_enum(v));
                }
                _ => {}
            }
            match kind(k) {
                Kind::Data => {}
                Kind::Single => self.child(k, v, &kp),
                Kind::Map => match v {
                    Value::Object(children) => {
                        for (name, child) in children {
                            self.child(k, child, &join(&kp, name));
                        }
                    }
                    _ => self.err(k, &kp, messages::not_a_schema(k, "an object of schemas")),
                },
                Kind::List => match v {
                    Value::Array(children) if !children.is_empty() => {
                        for (i, child) in children.iter().enumerate() {
                            self.child(k, child, &format!("{kp}/{i}"));
                        }
                    }
                    _ => self.err(
                        k,
                        &kp,
                        messages::not_a_schema(k, "a non-empty list of schemas"),
                    ),
                },
                Kind::Items => match v {
                    Value::Array(children) => {
                        for (i, child) in children.iter().enumerate() {
                            self.child(k, child, &format!("{kp}/{i}"));
                        }
                    }
                    _ => self.child(k, v, &kp),
                },
            }
        }
    }

    fn child(&mut self, keyword: &str, v: &Value, path: &str) {
        match v {
            Value::Object(_) => self.node(v, path),
            Value::Bool(_) => {}
            _ => self.err(
                keyword,
                path,
                messages::not_a_schema(keyword, "a schema (an object or a boolean)"),
            ),
        }
    }

    fn check_ref(&mut self, v: &Value, path: &str) {
        let Value::String(r) = v else {
            self.err("$ref", path, messages::ref_not_string(v));
            return;
        };
        match local_pointer(r) {
            None => self.err("$ref", path, messages::ref_not_local(r)),
            Some(ptr) => {
                if ptr == "/definitions" || ptr.starts_with("/definitions/") {
                    self.err("$ref", path, messages::definitions_refused());
                } else if self.root.pointer(&ptr).is_none() {
                    self.err("$ref", path, messages::ref_missing(r));
                }
            }
        }
    }
}

/// The JSON pointer of a local reference (`#` → `""`, `#/$defs/A` → `/$defs/A`), with
/// percent-escapes decoded. `None` for a reference to another document, or a plain-name
/// fragment (`#anchor`).
pub(crate) fn local_pointer(r: &str) -> Option<String> {
    let frag = r.strip_prefix('#')?;
    if !frag.is_empty() && !frag.starts_with('/') {
        return None;
    }
    percent_decode(frag)
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The name a reference points to, for messages: the last pointer segment, or `#` for the root.
fn ref_name(r: &str) -> String {
    match local_pointer(r) {
        Some(p) if !p.is_empty() => p
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~"),
        _ => r.to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// Inlining.

struct Inliner<'a> {
    root: &'a Value,
    schemas: usize,
    errors: Vec<SchemaError>,
    /// Set once the depth or size limit is hit, so each is reported once.
    stopped: bool,
}

impl Inliner<'_> {
    fn node(&mut self, node: &Value, path: &str, stack: &mut Vec<String>, depth: usize) -> Value {
        if self.stopped {
            return Value::Bool(true);
        }
        if depth > MAX_DEPTH {
            self.stopped = true;
            self.errors.push(SchemaError::new(
                "depth",
                path,
                messages::too_deep(MAX_DEPTH),
            ));
            return Value::Bool(true);
        }
        self.schemas += 1;
        if self.schemas > MAX_SCHEMAS {
            self.stopped = true;
            self.errors.push(SchemaError::new(
                "$ref",
                path,
                messages::too_big(MAX_SCHEMAS),
            ));
            return Value::Bool(true);
        }
        let Value::Object(m) = node else {
            return node.clone();
        };

        let mut out = Map::new();
        for (k, v) in m {
            if matches!(
                k.as_str(),
                "$defs" | "$schema" | "$comment" | "$anchor" | "$ref"
            ) {
                continue;
            }
            let kp = join(path, k);
            let value = match kind(k) {
                Kind::Data => v.clone(),
                Kind::Single => self.node(v, &kp, stack, depth + 1),
                Kind::Map => match v {
                    Value::Object(children) => Value::Object(
                        children
                            .iter()
                            .map(|(name, c)| {
                                (
                                    name.clone(),
                                    self.node(c, &join(&kp, name), stack, depth + 2),
                                )
                            })
                            .collect(),
                    ),
                    other => other.clone(),
                },
                Kind::List | Kind::Items => match v {
                    Value::Array(children) => Value::Array(
                        children
                            .iter()
                            .enumerate()
                            .map(|(i, c)| self.node(c, &format!("{kp}/{i}"), stack, depth + 2))
                            .collect(),
                    ),
                    other => self.node(other, &kp, stack, depth + 1),
                },
            };
            out.insert(k.clone(), value);
        }

        let Some(Value::String(r)) = m.get("$ref") else {
            return Value::Object(out);
        };
        let ref_path = join(path, "$ref");
        if let Some(first) = stack.iter().position(|s| s == r) {
            let mut chain: Vec<String> = stack[first..].iter().map(|s| ref_name(s)).collect();
            chain.push(ref_name(r));
            self.errors.push(SchemaError::new(
                "$ref",
                &ref_path,
                messages::ref_cycle(&ref_name(r), &chain),
            ));
            return Value::Bool(true);
        }
        let Some(ptr) = local_pointer(r) else {
            return Value::Object(out);
        };
        let Some(target) = self.root.pointer(&ptr) else {
            return Value::Object(out);
        };
        stack.push(r.clone());
        let target_path = ptr.clone();
        let inlined = self.node(target, &target_path, stack, depth + 1);
        stack.pop();
        merge_ref(inlined, out)
    }
}

/// A `$ref`'s target with the `$ref`'s siblings: a sibling annotation overrides the target's;
/// a sibling that restricts the value and conflicts with the target's is kept beside it in an
/// `allOf`.
fn merge_ref(target: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return target;
    }
    let mut base = match target {
        Value::Object(b) => b,
        Value::Bool(true) => return Value::Object(siblings),
        other => {
            let mut m = Map::new();
            m.insert(
                "allOf".into(),
                Value::Array(vec![other, Value::Object(siblings)]),
            );
            return Value::Object(m);
        }
    };
    let mut conflicts = Map::new();
    for (k, v) in siblings {
        match base.get(&k) {
            None => {
                base.insert(k, v);
            }
            Some(old) if *old == v => {}
            Some(_) if is_annotation(&k) => {
                base.insert(k, v);
            }
            Some(_) => {
                conflicts.insert(k, v);
            }
        }
    }
    if conflicts.is_empty() {
        return Value::Object(base);
    }
    let mut out = Map::new();
    let annotations: Vec<String> = base.keys().filter(|k| is_annotation(k)).cloned().collect();
    for k in annotations {
        if let Some(v) = base.shift_remove(&k) {
            out.insert(k, v);
        }
    }
    out.insert(
        "allOf".into(),
        Value::Array(vec![Value::Object(base), Value::Object(conflicts)]),
    );
    Value::Object(out)
}

// ---------------------------------------------------------------------------------------------
// Simplification, top-down over the inlined tree.

/// Simplifies one schema. `optional` is true for a property its object does not require.
pub(crate) fn simplify(node: Value, optional: bool) -> Value {
    let Value::Object(mut m) = node else {
        return node;
    };
    if optional {
        strip_null(&mut m);
    }
    // Structural steps can expose each other (a merged branch holding an allOf): repeat a few
    // times, each round shrinks the schema or stops.
    for _ in 0..8 {
        let changed = merge_all_of(&mut m) | merge_single_branch(&mut m) | consts_to_enum(&mut m);
        if !changed {
            break;
        }
    }
    if let Some(Value::Array(t)) = m.get("type")
        && t.len() == 1
    {
        let only = t[0].clone();
        m.insert("type".into(), only);
    }
    words_for_format_and_pattern(&mut m);
    m.shift_remove("$comment");

    let required: Vec<String> = m
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let keys: Vec<String> = m.keys().cloned().collect();
    for k in keys {
        let kd = kind(&k);
        if kd == Kind::Data {
            continue;
        }
        let Some(slot) = m.get_mut(&k) else { continue };
        let v = std::mem::take(slot);
        let v = match (kd, v) {
            (Kind::Map, Value::Object(children)) => Value::Object(
                children
                    .into_iter()
                    .map(|(name, c)| {
                        let opt = k == "properties" && !required.contains(&name);
                        let c = simplify(c, opt);
                        (name, c)
                    })
                    .collect(),
            ),
            (Kind::List | Kind::Items, Value::Array(children)) => {
                Value::Array(children.into_iter().map(|c| simplify(c, false)).collect())
            }
            (_, other) => simplify(other, false),
        };
        if let Some(slot) = m.get_mut(&k) {
            *slot = v;
        }
    }
    Value::Object(m)
}

/// Removes the null branch and `"default": null` of an optional value whose default is null
/// or absent.
fn strip_null(m: &mut Map<String, Value>) {
    match m.get("default") {
        None | Some(Value::Null) => {}
        Some(_) => return,
    }
    m.shift_remove("default");
    if let Some(Value::Array(t)) = m.get_mut("type")
        && t.len() >= 2
        && t.iter().any(|x| x == "null")
    {
        t.retain(|x| x != "null");
    }
    if let Some(Value::Array(e)) = m.get_mut("enum")
        && e.iter().any(Value::is_null)
        && e.iter().any(|x| !x.is_null())
    {
        e.retain(|x| !x.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(b)) = m.get_mut(key)
            && b.iter().any(is_null_only)
            && b.iter().any(|x| !is_null_only(x))
        {
            b.retain(|x| !is_null_only(x));
        }
    }
}

/// Merges `allOf` parts into the schema when no keyword conflicts (`properties` with distinct
/// names and `required` lists combine). Returns true when it changed something.
fn merge_all_of(m: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(parts)) = m.get("allOf") else {
        return false;
    };
    let mut merged = m.clone();
    merged.shift_remove("allOf");
    for part in parts {
        let Value::Object(p) = part else {
            if part == &Value::Bool(true) {
                continue;
            }
            return false;
        };
        for (k, v) in p {
            match merged.get_mut(k) {
                None => {
                    merged.insert(k.clone(), v.clone());
                }
                Some(old) if old == v => {}
                Some(_) if is_annotation(k) => {} // the outer schema's annotation wins
                Some(Value::Object(old)) if k == "properties" => {
                    let Value::Object(new) = v else { return false };
                    if new.keys().any(|n| old.contains_key(n)) {
                        return false;
                    }
                    old.extend(new.clone());
                }
                Some(Value::Array(old)) if k == "required" => {
                    let Value::Array(new) = v else { return false };
                    for n in new {
                        if !old.contains(n) {
                            old.push(n.clone());
                        }
                    }
                }
                Some(_) => return false,
            }
        }
    }
    *m = merged;
    true
}

/// An `anyOf`/`oneOf` with one branch becomes that branch, merged like `allOf`.
fn merge_single_branch(m: &mut Map<String, Value>) -> bool {
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(b)) = m.get(key)
            && b.len() == 1
            && !m.contains_key("allOf")
        {
            let branch = b[0].clone();
            m.shift_remove(key);
            m.insert("allOf".into(), Value::Array(vec![branch]));
            if merge_all_of(m) {
                return true;
            }
            // Could not merge: put it back as it was.
            if let Some(Value::Array(mut parts)) = m.shift_remove("allOf") {
                m.insert(key.into(), Value::Array(vec![parts.remove(0)]));
            }
        }
    }
    false
}

/// A `oneOf`/`anyOf` whose branches are each one constant (schemars' documented enum) becomes
/// an `enum`, with each documented choice in words.
fn consts_to_enum(m: &mut Map<String, Value>) -> bool {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = m.get(key) else {
            continue;
        };
        let mut values = Vec::new();
        let mut notes = Vec::new();
        let mut ok = true;
        for b in branches {
            let Value::Object(bm) = b else {
                ok = false;
                break;
            };
            let value = match (bm.get("const"), bm.get("enum")) {
                (Some(c), None) => c.clone(),
                (None, Some(Value::Array(e))) if e.len() == 1 => e[0].clone(),
                _ => {
                    ok = false;
                    break;
                }
            };
            let extra = bm.keys().any(|k| {
                !matches!(
                    k.as_str(),
                    "const" | "enum" | "type" | "description" | "title"
                )
            });
            let type_ok = match bm.get("type") {
                None => true,
                Some(Value::String(t)) => {
                    t == value_type(&value) || (t == "number" && value_type(&value) == "integer")
                }
                Some(_) => false,
            };
            if extra || !type_ok {
                ok = false;
                break;
            }
            if let Some(Value::String(d)) = bm.get("description") {
                notes.push(messages::describe_choice(&value, d));
            }
            values.push(value);
        }
        if !ok || values.is_empty() {
            continue;
        }
        let mut value_types: Vec<&str> = values.iter().map(value_type).collect();
        if value_types
            .iter()
            .all(|t| *t == "integer" || *t == "number")
            && value_types.contains(&"number")
        {
            value_types = vec!["number"];
        }
        value_types.dedup();
        let common = (value_types.len() == 1).then(|| value_types[0].to_owned());
        if let (Some(existing), Some(c)) = (m.get("type"), &common)
            && existing != c.as_str()
        {
            continue;
        }
        m.shift_remove(key);
        if let Some(c) = common {
            m.insert("type".into(), Value::String(c));
        }
        m.insert("enum".into(), Value::Array(values));
        if !notes.is_empty() {
            let d = messages::append_to_description(
                m.get("description").and_then(Value::as_str),
                &notes,
            );
            m.insert("description".into(), Value::String(d));
        }
        return true;
    }
    false
}

/// `format` and `pattern` become words in the description.
fn words_for_format_and_pattern(m: &mut Map<String, Value>) {
    let mut notes = Vec::new();
    let keys: Vec<String> = m.keys().cloned().collect();
    for k in keys {
        match k.as_str() {
            "format" => {
                if let Some(v) = m.shift_remove("format") {
                    match &v {
                        Value::String(f) => notes.extend(messages::describe_format(f)),
                        other => notes.push(messages::describe_keyword("format", other)),
                    }
                }
            }
            "pattern" => {
                if let Some(v) = m.shift_remove("pattern") {
                    match &v {
                        Value::String(p) => notes.push(messages::describe_pattern(p)),
                        other => notes.push(messages::describe_keyword("pattern", other)),
                    }
                }
            }
            _ => {}
        }
    }
    if !notes.is_empty() {
        let d =
            messages::append_to_description(m.get("description").and_then(Value::as_str), &notes);
        m.insert("description".into(), Value::String(d));
    }
}
