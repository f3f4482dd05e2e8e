//! Call state: the call's typed State, what the call carries, its language, timezone and
//! transcript. Tools are built per call and read it.
//!
//! Saves are applied in one batch and a save never confirms a value. Guide:
//! `docs/guide/replies-and-assign.md`, `docs/guide/locked-values-and-transcript.md`.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::call::CallInfo;
use crate::context::{ToolContext, TranscriptMessage};
use crate::hooks::CallHooks;
use crate::schema::schema_of;
use crate::walk;

/// A State type: a serde + schemars struct of optional values, each with a doc comment (its
/// description feeds the refusal hint `"Get it from the caller (<description>)"`).
///
/// Implemented for every type that is `Serialize + DeserializeOwned + JsonSchema`.
pub trait State: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static {}

impl<T> State for T where T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static {}

pub(crate) type Check = dyn Fn(&Value) -> Result<(), StateRefusal> + Send + Sync;

/// Why the State refused a save, with the parts that never hold a value kept apart from the
/// checker's own text, which may ("Save a result and speak it", point 2: the log and the sinks
/// get the field and the kind of error, never the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateRefusal {
    /// The dotted path of the refused State value, as far as the State type names it (`tier`,
    /// `customer.tier`); empty for the whole State. Never a value: a map key or a list index
    /// below a named field is left out.
    pub field: String,
    /// The kind of error, never a value: serde's (`invalid type`, `invalid value`, `unknown
    /// variant`, `missing field`, `custom`…) or the JSON Schema keyword (`type`, `enum`…).
    pub kind: String,
    /// The checker's own text, `field: reason`. It may quote the value (``unknown variant
    /// `platinum` ``): for the author's own use, never for a log or a sink.
    pub detail: String,
}

impl StateRefusal {
    /// A refusal of the value at `segments` (outermost first) under the State `schema`: the
    /// field keeps only the names the schema has.
    pub(crate) fn new(schema: &Value, segments: &[String], kind: &str, detail: String) -> Self {
        let mut known = 0;
        while known < segments.len()
            && walk::field_at(schema, schema, &segments[..=known]).is_some()
        {
            known += 1;
        }
        Self {
            field: segments[..known].join("."),
            kind: kind.to_string(),
            detail,
        }
    }

    /// What the log and the sinks get: `the State refused tier` (never the value).
    pub fn event_text(&self) -> String {
        if self.field.is_empty() {
            "the State refused the save".to_string()
        } else {
            format!("the State refused {}", self.field)
        }
    }
}

impl fmt::Display for StateRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

/// The kind of a serde decode error, from the start of its text (serde's own wording), never
/// the value it may quote.
pub(crate) fn serde_kind(message: &str) -> &'static str {
    const KINDS: [&str; 7] = [
        "invalid type",
        "invalid value",
        "invalid length",
        "unknown variant",
        "unknown field",
        "missing field",
        "duplicate field",
    ];
    KINDS
        .into_iter()
        .find(|k| message.starts_with(k))
        .unwrap_or("custom")
}

/// The segments of a serde path (`tier`, `guests`, `0`, `born`), outermost first.
pub(crate) fn path_segments(path: &serde_path_to_error::Path) -> Vec<String> {
    use serde_path_to_error::Segment;
    path.iter()
        .map(|segment| match segment {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } => key.clone(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => "?".to_string(),
        })
        .collect()
}

/// The State type as the registry knows it: its name, JSON Schema, and the check a save must pass
/// (the new State must decode into the type). Built with [`StateModel::of`].
#[derive(Clone)]
pub struct StateModel {
    pub(crate) name: String,
    pub(crate) schema: Arc<Value>,
    pub(crate) check: Arc<Check>,
}

impl fmt::Debug for StateModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateModel")
            .field("name", &self.name)
            .finish()
    }
}

impl StateModel {
    /// The model of the State type `S`.
    pub fn of<S: State>() -> Self {
        let schema = Arc::new(schema_of::<S>());
        let root = schema.clone();
        Self {
            name: S::schema_name().into_owned(),
            schema,
            check: Arc::new(move |value: &Value| {
                serde_path_to_error::deserialize::<_, S>(value.clone())
                    .map(|_| ())
                    .map_err(|e| {
                        let reason = e.inner().to_string();
                        let detail = format!("{}: {reason}", e.path());
                        StateRefusal::new(
                            &root,
                            &path_segments(e.path()),
                            serde_kind(&reason),
                            detail,
                        )
                    })
            }),
        }
    }

    /// The State type's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The State type's JSON Schema.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The schema of the value at `path` (`["customer", "id"]`), or `None` when it does not exist.
    pub fn field(&self, path: &[String]) -> Option<&Value> {
        if path.is_empty() {
            return None;
        }
        walk::field_at(&self.schema, &self.schema, path)
    }

    /// The State's top-level value names.
    pub fn field_names(&self) -> Vec<String> {
        walk::property_names(&self.schema, &self.schema)
    }

    /// The description of a top-level State value, from its doc comment.
    pub fn description(&self, name: &str) -> Option<&str> {
        let property = self.schema.get("properties")?.get(name)?;
        walk::description(property, &self.schema)
    }

    /// Checks a whole State (a JSON object) against the type: `Err` names the field and reason
    /// (the reason may quote the value: never log it; see [`refusal`](Self::refusal)).
    pub fn check(&self, state: &Value) -> Result<(), String> {
        (self.check)(state).map_err(|refusal| refusal.detail)
    }

    /// Like [`check`](Self::check), with the refusal's field and kind apart from its text.
    pub fn refusal(&self, state: &Value) -> Result<(), StateRefusal> {
        (self.check)(state)
    }
}

/// The transcript as a locked value: its last `max_messages` messages ("Send the transcript":
/// `Transcript(max_messages=50)`). Locks a parameter that is an array or has no type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transcript {
    /// At most this many messages, the latest ones.
    pub max_messages: usize,
}

#[derive(Debug)]
struct Inner {
    call: CallInfo,
    language: String,
    timezone: Option<String>,
    values: Map<String, Value>,
    confirmed: BTreeSet<String>,
    transcript: Vec<TranscriptMessage>,
}

/// The state of one call, shared by every tool call of it (cheap to clone; clones share it).
///
/// Holds the State values as a JSON object (unset values are absent or `null`), what the call
/// carries ([`CallInfo`]), the call's language (BCP 47, like `"en-US"`) and IANA timezone, the
/// values confirmed with the caller, and the transcript.
#[derive(Clone)]
pub struct CallState {
    inner: Arc<Mutex<Inner>>,
}

impl fmt::Debug for CallState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.lock();
        f.debug_struct("CallState")
            .field("session_id", &inner.call.session_id)
            .field("language", &inner.language)
            .field("timezone", &inner.timezone)
            .field("values", &inner.values.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl CallState {
    /// A call's state with no State value set. `language` is a BCP 47 tag; `timezone` an IANA
    /// name (checked when the call's [`LiveCall`](crate::LiveCall) is built).
    pub fn new(call: CallInfo, language: impl Into<String>, timezone: Option<&str>) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                call,
                language: language.into(),
                timezone: timezone.map(String::from),
                values: Map::new(),
                confirmed: BTreeSet::new(),
                transcript: Vec::new(),
            })),
        }
    }

    /// Sets every State value from a typed State (fields that serialise to `null` are unset).
    /// Fails when the value does not serialise to a JSON object.
    pub fn with_values<S: Serialize>(self, values: &S) -> Result<Self, serde_json::Error> {
        let Value::Object(map) = serde_json::to_value(values)? else {
            return Err(serde::ser::Error::custom(
                "the State must serialise to a JSON object",
            ));
        };
        self.lock().values = map;
        Ok(self)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A poisoned lock only means a panic elsewhere; the data is still whole JSON.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the call carries.
    pub fn call(&self) -> CallInfo {
        self.lock().call.clone()
    }

    /// Replaces what the call carries (the transport learns the carrier id, the call ends…).
    pub fn set_call(&self, call: CallInfo) {
        self.lock().call = call;
    }

    /// The call's language (BCP 47).
    pub fn language(&self) -> String {
        self.lock().language.clone()
    }

    /// The call's IANA timezone, if set.
    pub fn timezone(&self) -> Option<String> {
        self.lock().timezone.clone()
    }

    /// A State value, or `None` when it is unset (absent or `null`).
    pub fn get(&self, name: &str) -> Option<Value> {
        self.lock()
            .values
            .get(name)
            .filter(|v| !v.is_null())
            .cloned()
    }

    /// Every State value as a JSON object.
    pub fn values(&self) -> Value {
        Value::Object(self.lock().values.clone())
    }

    /// The State decoded into its type.
    pub fn typed<S: DeserializeOwned>(&self) -> Result<S, serde_json::Error> {
        serde_json::from_value(self.values())
    }

    /// Sets one State value (unchecked; the agent's own writes). Use `Value::Null` to unset it.
    pub fn set(&self, name: impl Into<String>, value: Value) {
        self.lock().values.insert(name.into(), value);
    }

    /// Marks a value as confirmed with the caller (a step's read-back). A tool's save never does.
    pub fn confirm(&self, name: impl Into<String>) {
        self.lock().confirmed.insert(name.into());
    }

    /// True when the value was confirmed with the caller.
    pub fn is_confirmed(&self, name: &str) -> bool {
        self.lock().confirmed.contains(name)
    }

    /// Adds a message to the transcript.
    pub fn push_message(&self, role: impl Into<String>, text: impl Into<String>) {
        self.lock().transcript.push(TranscriptMessage {
            role: role.into(),
            text: text.into(),
        });
    }

    /// The last `max_messages` messages of the transcript, oldest first.
    pub fn transcript(&self, max_messages: usize) -> Vec<TranscriptMessage> {
        let inner = self.lock();
        let start = inner.transcript.len().saturating_sub(max_messages);
        inner.transcript[start..].to_vec()
    }

    /// Saves the values of one result in one batch, or none of them: the new State must pass
    /// `model`'s check. `Err` names the field and reason; nothing was saved. A save never
    /// confirms a value ("Save a result and speak it", point 2).
    pub fn save_batch(
        &self,
        saves: Vec<(String, Value)>,
        model: Option<&StateModel>,
    ) -> Result<(), String> {
        self.save_all(saves, model)
            .map_err(|refusal| refusal.detail)
    }

    /// Like [`save_batch`](Self::save_batch), with the refusal's field and kind apart from its
    /// text (which may quote the value): what a log or a sink may get.
    pub fn save_all(
        &self,
        saves: Vec<(String, Value)>,
        model: Option<&StateModel>,
    ) -> Result<(), StateRefusal> {
        let mut inner = self.lock();
        let mut next = inner.values.clone();
        for (name, value) in saves {
            next.insert(name, value);
        }
        if let Some(model) = model {
            let whole = Value::Object(next);
            model.refusal(&whole)?;
            let Value::Object(map) = whole else {
                return Ok(());
            };
            inner.values = map;
        } else {
            inner.values = next;
        }
        Ok(())
    }

    /// A [`ToolContext`] for one call of a tool: a snapshot of this state.
    pub fn context(&self, hooks: &CallHooks) -> ToolContext {
        let inner = self.lock();
        ToolContext {
            call: inner.call.clone(),
            state: Value::Object(inner.values.clone()),
            language: inner.language.clone(),
            timezone: inner.timezone.clone(),
            event: None,
            hooks: hooks.clone(),
            transcript: inner.transcript.clone(),
        }
    }
}
