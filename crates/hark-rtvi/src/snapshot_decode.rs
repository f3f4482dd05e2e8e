//! The snapshot decoder: any serde `Deserializer` (JSON text, a `serde_json::Value`) straight
//! into [`A11ySnapshot`], with pydantic-like tolerance, the [`SnapshotLimits`], and errors that
//! name the JSON path of the first problem.
//!
//! No intermediate `Value` and no per-node path strings: the path is built only when something
//! is refused, from the segments each level adds while the error unwinds ([`Ctx::unwind`]).
//! serde's own error type carries only text, so the structured problem travels beside it in
//! [`Ctx::problem`].

use compact_str::CompactString;
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize as _;
use serde::de::{
    self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::fields::FieldError;
use crate::lax_int::LaxInt;
use crate::messages;
use crate::snapshot::{A11yNode, A11ySelection, A11ySnapshot, MAX_TREE_DEPTH, SnapshotLimits};

/// One step of a JSON path.
enum Seg {
    Key(String),
    Index(usize),
}

/// What was wrong, once known; the path comes from [`Ctx::unwind`].
#[derive(Clone, Copy)]
enum Problem {
    Missing,
    WrongType {
        expected: &'static str,
        found: &'static str,
    },
    IntOutOfRange,
    TooDeep,
}

/// Room for this many pending nodes on [`Ctx::stack`] from the start: the siblings of every
/// level on the way down (a 200-node client-js page needs fewer than 64).
const STACK_CAPACITY: usize = 64;

/// A stack that grew past this many nodes (a huge hostile snapshot) is freed, not kept.
const SPARE_STACK_MAX: usize = 1024;

thread_local! {
    /// The empty [`Ctx::stack`] of this thread's last decode, kept for the next one: a server
    /// thread decodes snapshot after snapshot, and this saves allocating (and freeing) the
    /// stack's 6.6 KB each time. At most [`SPARE_STACK_MAX`] nodes' room per thread.
    static SPARE_STACK: Cell<Vec<A11yNode>> = const { Cell::new(Vec::new()) };
}

/// This thread's spare stack, or a new one.
fn take_spare_stack() -> Vec<A11yNode> {
    let mut stack = SPARE_STACK.take();
    if stack.capacity() == 0 {
        stack.reserve_exact(STACK_CAPACITY);
    }
    stack
}

impl Drop for Ctx {
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.stack);
        if stack.capacity() <= SPARE_STACK_MAX {
            stack.clear();
            SPARE_STACK.set(stack);
        }
    }
}

/// Decoding state shared by every level of one decode.
pub(crate) struct Ctx {
    max_nodes: usize,
    max_depth: usize,
    /// Nodes met so far (all of them, also while counting past the limit).
    nodes: usize,
    /// Past `max_nodes`: nodes are only counted (for the error text), not kept or checked.
    counting: bool,
    problem: Option<Problem>,
    /// Path segments of the failing value, innermost first.
    unwind: Vec<Seg>,
    /// The snapshot is the `tree` of `ui-snapshot` data (its path is `<prefix>.tree`).
    in_data: bool,
    /// Decoded nodes whose parent is still being read, in document order: each `children`
    /// array pushes its nodes here and takes them back as one exactly sized `Vec`.
    stack: Vec<A11yNode>,
    /// The same for the strings of a `state` list.
    strs: Vec<String>,
}

impl Ctx {
    pub(crate) fn new(limits: &SnapshotLimits) -> Ctx {
        Ctx {
            max_nodes: limits.max_nodes,
            max_depth: limits.max_depth.min(MAX_TREE_DEPTH),
            nodes: 0,
            counting: false,
            problem: None,
            unwind: Vec::new(),
            in_data: false,
            stack: take_spare_stack(),
            strs: Vec::new(),
        }
    }

    /// The node a [`NodeSeed`] just pushed (a default one while only counting: the decode is
    /// refused then anyway).
    fn take_node(&mut self) -> A11yNode {
        self.stack.pop().unwrap_or_default()
    }

    fn fail<E: de::Error>(&mut self, problem: Problem) -> E {
        self.problem = Some(problem);
        E::custom("refused")
    }

    fn wrong_type<E: de::Error>(&mut self, expected: &'static str, found: &'static str) -> E {
        self.fail(Problem::WrongType { expected, found })
    }

    /// Adds `seg` to the path when `r` is an error (called by the level that asked for the value).
    /// On success it is one branch: `seg` is a closure, called only on the error path (always
    /// inlined: as a call it was 4 % of a decode).
    #[inline(always)]
    fn at<T, E>(&mut self, r: Result<T, E>, seg: impl FnOnce() -> Seg) -> Result<T, E> {
        if r.is_err() {
            self.unwind.push(seg());
        }
        r
    }

    /// Refuses a decode that went past the node limit (checked once the text is read).
    fn check_count<E: de::Error>(&mut self) -> Result<(), E> {
        if self.nodes > self.max_nodes {
            Err(E::custom("too many nodes"))
        } else {
            Ok(())
        }
    }

    /// The client-readable error for a failed decode: `prefix` (e.g. `data.tree`) joined with the
    /// unwound segments, and the detail for the problem (or for serde's own error `e`).
    pub(crate) fn error(self, e: &dyn fmt::Display, prefix: &str) -> FieldError {
        let mut path = prefix.to_string();
        for seg in self.unwind.iter().rev() {
            match seg {
                Seg::Key(k) if path.is_empty() => path.push_str(k),
                Seg::Key(k) => {
                    path.push('.');
                    path.push_str(k);
                }
                Seg::Index(i) => path.push_str(&format!("[{i}]")),
            }
        }
        if self.nodes > self.max_nodes && self.problem.is_none() && self.counting {
            // Named at the snapshot itself, wherever the text stopped.
            let at = match (self.in_data, prefix) {
                (false, _) => prefix.to_string(),
                (true, "") => "tree".to_string(),
                (true, p) => format!("{p}.tree"),
            };
            let detail = messages::too_many_nodes(&at, self.nodes, self.max_nodes);
            return FieldError::with_detail(at, detail);
        }
        let detail = match self.problem {
            Some(Problem::Missing) => messages::missing_field(&path),
            Some(Problem::WrongType { expected, found }) => {
                messages::wrong_type(&path, expected, found)
            }
            Some(Problem::IntOutOfRange) => messages::integer_out_of_range(&path),
            Some(Problem::TooDeep) => messages::tree_too_deep(&path, self.max_depth),
            None => messages::json_error_detail(&path, &e.to_string()),
        };
        FieldError::with_detail(path, detail)
    }
}

/// Decodes a snapshot object (the `tree` of `ui-snapshot`) from any deserializer.
pub(crate) fn snapshot<'de, D: Deserializer<'de>>(
    ctx: &mut Ctx,
    d: D,
) -> Result<A11ySnapshot, D::Error> {
    let snap = d.deserialize_any(SnapshotV { ctx })?;
    ctx.check_count()?;
    Ok(snap)
}

/// Decodes one node (and its subtree) from any deserializer.
pub(crate) fn node<'de, D: Deserializer<'de>>(ctx: &mut Ctx, d: D) -> Result<A11yNode, D::Error> {
    NodeSeed {
        ctx: &mut *ctx,
        depth: 1,
    }
    .deserialize(d)?;
    ctx.check_count()?;
    Ok(ctx.take_node())
}

/// Decodes a selection from any deserializer (`null` is refused: the caller handles absence).
pub(crate) fn selection<'de, D: Deserializer<'de>>(
    ctx: &mut Ctx,
    d: D,
) -> Result<A11ySelection, D::Error> {
    d.deserialize_any(SelectionV {
        ctx,
        null_ok: false,
    })
    .map(|s| s.unwrap_or_default())
}

/// Decodes `ui-snapshot` data, `{"tree": {…}}`; other keys are ignored, `null` reads as `{}`.
pub(crate) fn ui_snapshot_data<'de, D: Deserializer<'de>>(
    ctx: &mut Ctx,
    d: D,
) -> Result<A11ySnapshot, D::Error> {
    ctx.in_data = true;
    let snap = d.deserialize_any(DataV { ctx })?;
    ctx.check_count()?;
    Ok(snap)
}

/// `ui-snapshot` data read in the stream of the whole message (see `message::read_envelope`):
/// [`ui_snapshot_data`] under `limits`, with any refusal reduced to serde's error — the caller
/// then reads the message again the two-step way, which names the problem.
pub(crate) struct UiSnapshotDataSeed<'l> {
    /// Limits the snapshot is held to.
    pub(crate) limits: &'l SnapshotLimits,
}

impl<'de> DeserializeSeed<'de> for UiSnapshotDataSeed<'_> {
    type Value = A11ySnapshot;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<A11ySnapshot, D::Error> {
        ui_snapshot_data(&mut Ctx::new(self.limits), d)
    }
}

// ---- keys ------------------------------------------------------------------------------------

/// The keys one kind of object knows, matched from the borrowed key text (no allocation).
trait Keys: Sized {
    /// The known key spelled `s`, if it is one.
    fn known(s: &str) -> Option<Self>;
}

/// A map key: one of the object's known keys `K`, or another key, borrowed from the JSON text
/// when it has no escapes (owned only then, and kept only when it goes into `extra`).
enum Key<'de, K> {
    Known(K),
    Other(Cow<'de, str>),
}

/// Reads a key as `Key<K>`.
struct KeySeed<K>(PhantomData<K>);

/// Reads the next key of `map` as one of `K` or another key.
fn next_key<'de, K: Keys, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Key<'de, K>>, A::Error> {
    map.next_key_seed(KeySeed(PhantomData))
}

impl<'de, K: Keys> DeserializeSeed<'de> for KeySeed<K> {
    type Value = Key<'de, K>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key<'de, K>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, K: Keys> Visitor<'de> for KeySeed<K> {
    type Value = Key<'de, K>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de, K>, E> {
        Ok(K::known(s).map_or(Key::Other(Cow::Borrowed(s)), Key::Known))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de, K>, E> {
        Ok(K::known(s).map_or_else(|| Key::Other(Cow::Owned(s.to_owned())), Key::Known))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de, K>, E> {
        Ok(K::known(&s).map_or(Key::Other(Cow::Owned(s)), Key::Known))
    }
}

/// Defines a key enum for one kind of object: `keys!(Name { Variant = "text", … })`.
macro_rules! keys {
    ($name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        #[derive(Clone, Copy)]
        enum $name {
            $($variant),*
        }
        impl Keys for $name {
            fn known(s: &str) -> Option<Self> {
                match s {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

keys!(DataKey { Tree = "tree" });
keys!(SnapshotKey {
    Root = "root",
    CapturedAt = "captured_at",
    Selection = "selection",
});
keys!(NodeKey {
    Ref = "ref",
    Role = "role",
    Name = "name",
    Value = "value",
    State = "state",
    Level = "level",
    Colcount = "colcount",
    Rowcount = "rowcount",
    Children = "children",
});
keys!(SelectionKey {
    Ref = "ref",
    Text = "text",
    StartOffset = "start_offset",
    EndOffset = "end_offset",
});

/// Reads the value of an unknown key into `extra` (path segment added on error).
fn extra<'de, A: MapAccess<'de>>(
    ctx: &mut Ctx,
    map: &mut A,
    key: Cow<'de, str>,
    extra: &mut Map<String, Value>,
) -> Result<(), A::Error> {
    let v = map.next_value::<Value>();
    let v = ctx.at(v, || Seg::Key(key.to_string()))?;
    extra.insert(key.into_owned(), v);
    Ok(())
}

fn key_seg(k: &'static str) -> impl FnOnce() -> Seg {
    move || Seg::Key(k.to_string())
}

// ---- leaf values -----------------------------------------------------------------------------

/// Implements the `visit_*` methods for values of the wrong kind: each records
/// `WrongType { expected: $expected, found }` and fails. `$skip` lists the kinds handled by hand.
macro_rules! refuse_other_kinds {
    (@bool $e:expr; bool $($rest:ident)*) => {};
    (@bool $e:expr; $first:ident $($rest:ident)*) => { refuse_other_kinds!(@bool $e; $($rest)*); };
    (@bool $e:expr;) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(self.ctx.wrong_type($e, "a boolean"))
        }
    };
    (@num $e:expr; num $($rest:ident)*) => {};
    (@num $e:expr; $first:ident $($rest:ident)*) => { refuse_other_kinds!(@num $e; $($rest)*); };
    (@num $e:expr;) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(self.ctx.wrong_type($e, "a number"))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(self.ctx.wrong_type($e, "a number"))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(self.ctx.wrong_type($e, "a number"))
        }
    };
    (@str $e:expr; str $($rest:ident)*) => {};
    (@str $e:expr; $first:ident $($rest:ident)*) => { refuse_other_kinds!(@str $e; $($rest)*); };
    (@str $e:expr;) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(self.ctx.wrong_type($e, "a string"))
        }
    };
    (@unit $e:expr; unit $($rest:ident)*) => {};
    (@unit $e:expr; $first:ident $($rest:ident)*) => { refuse_other_kinds!(@unit $e; $($rest)*); };
    (@unit $e:expr;) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.ctx.wrong_type($e, "null"))
        }
    };
    (@seq $e:expr; seq $($rest:ident)*) => {};
    (@seq $e:expr; $first:ident $($rest:ident)*) => { refuse_other_kinds!(@seq $e; $($rest)*); };
    (@seq $e:expr;) => {
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.ctx.wrong_type($e, "an array"))
        }
    };
    (@map $e:expr; map $($rest:ident)*) => {};
    (@map $e:expr; $first:ident $($rest:ident)*) => { refuse_other_kinds!(@map $e; $($rest)*); };
    (@map $e:expr;) => {
        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.ctx.wrong_type($e, "an object"))
        }
    };
    ($expected:expr; $($skip:ident)*) => {
        refuse_other_kinds!(@bool $expected; $($skip)*);
        refuse_other_kinds!(@num $expected; $($skip)*);
        refuse_other_kinds!(@str $expected; $($skip)*);
        refuse_other_kinds!(@unit $expected; $($skip)*);
        refuse_other_kinds!(@seq $expected; $($skip)*);
        refuse_other_kinds!(@map $expected; $($skip)*);
    };
}

/// A string; `null` is absent when `null_ok` (else refused as "got null").
struct StrV<'c> {
    ctx: &'c mut Ctx,
    expected: &'static str,
    null_ok: bool,
}

impl<'de> DeserializeSeed<'de> for StrV<'_> {
    type Value = Option<CompactString>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<CompactString>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrV<'_> {
    type Value = Option<CompactString>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expected)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<CompactString>, E> {
        Ok(Some(CompactString::new(s)))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Option<CompactString>, E> {
        Ok(Some(CompactString::from(s)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<CompactString>, E> {
        if self.null_ok {
            Ok(None)
        } else {
            Err(self.ctx.wrong_type(self.expected, "null"))
        }
    }
    fn visit_none<E: de::Error>(self) -> Result<Option<CompactString>, E> {
        self.visit_unit()
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<CompactString>, E> {
        Err(self.ctx.wrong_type(self.expected, "a boolean"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<CompactString>, E> {
        Err(self.ctx.wrong_type(self.expected, "a number"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<CompactString>, E> {
        Err(self.ctx.wrong_type(self.expected, "a number"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<CompactString>, E> {
        Err(self.ctx.wrong_type(self.expected, "a number"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Option<CompactString>, A::Error> {
        Err(self.ctx.wrong_type(self.expected, "an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Option<CompactString>, A::Error> {
        Err(self.ctx.wrong_type(self.expected, "an object"))
    }
}

/// A required string field.
fn req_str<'de, A: MapAccess<'de>>(
    ctx: &mut Ctx,
    map: &mut A,
    key: &'static str,
) -> Result<CompactString, A::Error> {
    let r = map.next_value_seed(StrV {
        ctx: &mut *ctx,
        expected: "a string",
        null_ok: false,
    });
    ctx.at(r, key_seg(key)).map(Option::unwrap_or_default)
}

/// An optional string field (`null` is absent).
fn opt_str<'de, A: MapAccess<'de>>(
    ctx: &mut Ctx,
    map: &mut A,
    key: &'static str,
) -> Result<Option<CompactString>, A::Error> {
    let r = map.next_value_seed(StrV {
        ctx: &mut *ctx,
        expected: "a string or null",
        null_ok: true,
    });
    ctx.at(r, key_seg(key))
}

/// `state`: a list of strings; `null` is empty.
struct StrListV<'c> {
    ctx: &'c mut Ctx,
}

impl<'de> DeserializeSeed<'de> for StrListV<'_> {
    type Value = Vec<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrListV<'_> {
    type Value = Vec<String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of strings or null")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_none<E: de::Error>(self) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        let ctx = self.ctx;
        ctx.strs.clear();
        loop {
            let i = ctx.strs.len();
            let item = seq.next_element_seed(StrV {
                ctx: &mut *ctx,
                expected: "a string",
                null_ok: false,
            });
            match ctx.at(item, || Seg::Index(i))? {
                Some(Some(s)) => ctx.strs.push(s.into_string()),
                Some(None) => {}
                // Exactly sized (one `String` for the usual single state), nothing when empty.
                None => return Ok(ctx.strs.drain(..).collect()),
            }
        }
    }
    refuse_other_kinds!("an array of strings or null"; unit seq);
}

/// An integer read like pydantic's lax `int`: a JSON integer (any width), a float with no
/// fractional part within `i64`, a boolean (0 or 1), or a string holding an integer
/// ([`crate::lax_int`]: `" 2 "`, `"2.0"`, `"1_0"`); `None` for `null`. An integer beyond `i64`
/// is kept as its decimal text ([`LaxInt::Wide`]), as pydantic keeps Python's exact `int`; a
/// float beyond it is refused, as pydantic refuses it.
///
/// The value is read as raw JSON text first: serde_json (without `arbitrary_precision`) hands a
/// visitor an integer literal beyond `u64` as a rounded float, the same call as for `1e19`
/// (which pydantic refuses). Only integer fields go this way (at most a few per node, on the
/// rare nodes that have one), so the common node's decode is unchanged.
struct LaxIntV<'c> {
    ctx: &'c mut Ctx,
}

impl<'de> DeserializeSeed<'de> for LaxIntV<'_> {
    type Value = Option<LaxInt>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<LaxInt>, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        let text = raw.get();
        let integer_literal = matches!(text.as_bytes().first(), Some(b'-' | b'0'..=b'9'))
            && !text.contains(['.', 'e', 'E']);
        if integer_literal {
            return Ok(Some(match text.parse::<i64>() {
                Ok(v) => LaxInt::Fit(v),
                // JSON has no `+` or leading zeros: the literal is Python's own text.
                Err(_) => LaxInt::Wide(text.into()),
            }));
        }
        let mut inner = serde_json::Deserializer::from_str(text);
        inner
            .deserialize_any(LaxIntKindV { ctx: self.ctx })
            .map_err(|e| {
                // serde_json's own "number out of range" (`1e400`) keeps its words for opt_int.
                D::Error::custom(e)
            })
    }
}

/// [`LaxIntV`] for a value that is not an integer literal.
struct LaxIntKindV<'c> {
    ctx: &'c mut Ctx,
}

/// 2^63 as f64: the first float above `i64::MAX`.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

impl<'de> Visitor<'de> for LaxIntKindV<'_> {
    type Value = Option<LaxInt>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<LaxInt>, E> {
        Ok(None)
    }
    fn visit_none<E: de::Error>(self) -> Result<Option<LaxInt>, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<LaxInt>, E> {
        Ok(Some(LaxInt::Fit(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<LaxInt>, E> {
        Ok(Some(match i64::try_from(v) {
            Ok(v) => LaxInt::Fit(v),
            Err(_) => LaxInt::Wide(v.to_string().into()),
        }))
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Option<LaxInt>, E> {
        if f.fract() != 0.0 || !f.is_finite() {
            Err(self.ctx.wrong_type("an integer", "a number"))
        } else if (-TWO_POW_63..TWO_POW_63).contains(&f) {
            Ok(Some(LaxInt::Fit(f as i64)))
        } else {
            Err(self.ctx.fail(Problem::IntOutOfRange))
        }
    }
    /// pydantic's lax `int` reads `true` as 1 and `false` as 0.
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Option<LaxInt>, E> {
        Ok(Some(LaxInt::Fit(i64::from(b))))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<LaxInt>, E> {
        match crate::lax_int::parse_any(s) {
            Ok(v) => Ok(Some(v)),
            Err(_) => Err(self.ctx.wrong_type("an integer", "a string")),
        }
    }
    refuse_other_kinds!("an integer"; unit num str bool);
}

/// An optional integer field; serde_json's own "number out of range" (`1e400`) is reported as
/// this field's integer being out of range.
fn opt_int<'de, A: MapAccess<'de>>(
    ctx: &mut Ctx,
    map: &mut A,
    key: &'static str,
) -> Result<Option<LaxInt>, A::Error> {
    let r = map.next_value_seed(LaxIntV { ctx: &mut *ctx });
    if let Err(e) = &r
        && ctx.problem.is_none()
        && e.to_string().starts_with("number out of range")
    {
        ctx.problem = Some(Problem::IntOutOfRange);
    }
    ctx.at(r, key_seg(key))
}

// ---- snapshot --------------------------------------------------------------------------------

struct DataV<'c> {
    ctx: &'c mut Ctx,
}

impl<'de> Visitor<'de> for DataV<'_> {
    type Value = A11ySnapshot;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_unit<E: de::Error>(self) -> Result<A11ySnapshot, E> {
        self.ctx.unwind.push(Seg::Key("tree".into()));
        Err(self.ctx.fail(Problem::Missing))
    }
    fn visit_none<E: de::Error>(self) -> Result<A11ySnapshot, E> {
        self.visit_unit()
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<A11ySnapshot, A::Error> {
        let ctx = self.ctx;
        let mut tree = None;
        while let Some(key) = next_key::<DataKey, _>(&mut map)? {
            match key {
                Key::Known(DataKey::Tree) => {
                    let r = map.next_value_seed(SnapshotSeed { ctx: &mut *ctx });
                    tree = Some(ctx.at(r, key_seg("tree"))?);
                }
                Key::Other(_) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match tree {
            Some(t) => Ok(t),
            None => {
                ctx.unwind.push(Seg::Key("tree".into()));
                Err(ctx.fail(Problem::Missing))
            }
        }
    }
    refuse_other_kinds!("an object"; unit map);
}

struct SnapshotSeed<'c> {
    ctx: &'c mut Ctx,
}

impl<'de> DeserializeSeed<'de> for SnapshotSeed<'_> {
    type Value = A11ySnapshot;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<A11ySnapshot, D::Error> {
        d.deserialize_any(SnapshotV { ctx: self.ctx })
    }
}

struct SnapshotV<'c> {
    ctx: &'c mut Ctx,
}

impl<'de> Visitor<'de> for SnapshotV<'_> {
    type Value = A11ySnapshot;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<A11ySnapshot, A::Error> {
        let ctx = self.ctx;
        let mut root = None;
        let mut captured_at = None;
        let mut selection = None;
        let mut rest = Map::new();
        while let Some(key) = next_key::<SnapshotKey, _>(&mut map)? {
            match key {
                Key::Known(SnapshotKey::Root) => {
                    let r = map.next_value_seed(NodeSeed {
                        ctx: &mut *ctx,
                        depth: 1,
                    });
                    ctx.at(r, key_seg("root"))?;
                    root = Some(ctx.take_node());
                }
                Key::Known(SnapshotKey::CapturedAt) => {
                    captured_at = Some(opt_int(ctx, &mut map, "captured_at")?);
                }
                Key::Known(SnapshotKey::Selection) => {
                    let r = map.next_value_seed(SelectionV {
                        ctx: &mut *ctx,
                        null_ok: true,
                    });
                    selection = ctx.at(r, key_seg("selection"))?;
                }
                Key::Other(k) => extra(ctx, &mut map, k, &mut rest)?,
            }
        }
        let Some(root) = root else {
            ctx.unwind.push(Seg::Key("root".into()));
            return Err(ctx.fail(Problem::Missing));
        };
        let captured_at = match captured_at {
            // Saturated beyond `i64` (pipecat does not render it; Hark compares ages with it).
            Some(Some(t)) => t.saturated(),
            Some(None) => {
                ctx.unwind.push(Seg::Key("captured_at".into()));
                return Err(ctx.wrong_type("an integer", "null"));
            }
            None => {
                ctx.unwind.push(Seg::Key("captured_at".into()));
                return Err(ctx.fail(Problem::Missing));
            }
        };
        Ok(A11ySnapshot {
            root,
            captured_at,
            selection,
            extra: rest,
        })
    }
    refuse_other_kinds!("an object"; map);
}

// ---- nodes ---------------------------------------------------------------------------------

/// Decodes one node (and its subtree) and pushes it on [`Ctx::stack`] (nothing while only
/// counting). The value itself is `()`: a node is built once, in place, and moved only into its
/// parent's exactly sized `children` (see [`ChildrenSeed`]).
struct NodeSeed<'c> {
    ctx: &'c mut Ctx,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let ctx = self.ctx;
        // Checked before descending, so a hostile tree stops here, well inside serde_json's
        // 128-level limit (each node level is two JSON levels: the node and its children array).
        if self.depth > ctx.max_depth {
            return Err(ctx.fail(Problem::TooDeep));
        }
        ctx.nodes += 1;
        if ctx.nodes > ctx.max_nodes {
            ctx.counting = true;
        }
        d.deserialize_any(NodeV {
            ctx,
            depth: self.depth,
        })
    }
}

struct NodeV<'c> {
    ctx: &'c mut Ctx,
    depth: usize,
}

impl<'de> Visitor<'de> for NodeV<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ctx = self.ctx;
        if ctx.counting {
            // Past the node limit: only count the nodes below, keep nothing.
            while let Some(key) = next_key::<NodeKey, _>(&mut map)? {
                if let Key::Known(NodeKey::Children) = key {
                    map.next_value_seed(ChildrenSeed {
                        ctx: &mut *ctx,
                        depth: self.depth + 1,
                    })?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            return Ok(());
        }
        let mut node = A11yNode::default();
        let (mut has_ref, mut has_role) = (false, false);
        while let Some(key) = next_key::<NodeKey, _>(&mut map)? {
            let key = match key {
                Key::Known(key) => key,
                Key::Other(k) => {
                    extra(ctx, &mut map, k, &mut node.rare_mut().extra)?;
                    continue;
                }
            };
            match key {
                NodeKey::Ref => {
                    node.ref_ = req_str(ctx, &mut map, "ref")?;
                    has_ref = true;
                }
                NodeKey::Role => {
                    node.role = req_str(ctx, &mut map, "role")?;
                    has_role = true;
                }
                NodeKey::Name => node.name = opt_str(ctx, &mut map, "name")?,
                // The rare fields: a `NodeRare` is allocated only for a present value (or to
                // clear one a repeated key set earlier: the last key wins, as before).
                NodeKey::Value => {
                    let v = opt_str(ctx, &mut map, "value")?;
                    if v.is_some() || node.rare.is_some() {
                        node.rare_mut().value = v.map(CompactString::into_string);
                    }
                }
                NodeKey::State => {
                    let r = map.next_value_seed(StrListV { ctx: &mut *ctx });
                    let v = ctx.at(r, key_seg("state"))?;
                    if !v.is_empty() || node.rare.is_some() {
                        node.rare_mut().state = v;
                    }
                }
                NodeKey::Level => {
                    let v = opt_int(ctx, &mut map, "level")?;
                    if v.is_some() || node.rare.is_some() {
                        let rare = node.rare_mut();
                        rare.level = v.as_ref().map(LaxInt::saturated);
                        rare.set_wide_level(v.and_then(LaxInt::into_wide));
                    }
                }
                NodeKey::Colcount => {
                    let v = opt_int(ctx, &mut map, "colcount")?;
                    if v.is_some() || node.rare.is_some() {
                        let rare = node.rare_mut();
                        rare.colcount = v.as_ref().map(LaxInt::saturated);
                        rare.set_wide_colcount(v.and_then(LaxInt::into_wide));
                    }
                }
                NodeKey::Rowcount => {
                    let v = opt_int(ctx, &mut map, "rowcount")?;
                    if v.is_some() || node.rare.is_some() {
                        let rare = node.rare_mut();
                        rare.rowcount = v.as_ref().map(LaxInt::saturated);
                        rare.set_wide_rowcount(v.and_then(LaxInt::into_wide));
                    }
                }
                NodeKey::Children => {
                    let r = map.next_value_seed(ChildrenSeed {
                        ctx: &mut *ctx,
                        depth: self.depth + 1,
                    });
                    node.children = ctx.at(r, key_seg("children"))?;
                }
            }
        }
        for (present, key) in [(has_ref, "ref"), (has_role, "role")] {
            if !present {
                ctx.unwind.push(Seg::Key(key.into()));
                return Err(ctx.fail(Problem::Missing));
            }
        }
        if !ctx.counting {
            ctx.stack.push(node);
        }
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.other("a boolean")
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.other("a number")
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.other("a number")
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.other("a number")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.other("a string")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.other("null")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.other("null")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.ctx.counting {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
        }
        self.other("an array")
    }
}

impl NodeV<'_> {
    /// A node that is not an object: refused, or skipped while only counting.
    fn other<E: de::Error>(self, found: &'static str) -> Result<(), E> {
        if self.ctx.counting {
            Ok(())
        } else {
            Err(self.ctx.wrong_type("an object", found))
        }
    }
}

/// `children`: an array of nodes; `null` is empty. The nodes gather on [`Ctx::stack`] and
/// leave it as one exactly sized `Vec` (one allocation per parent, no spare capacity held).
struct ChildrenSeed<'c> {
    ctx: &'c mut Ctx,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ChildrenSeed<'_> {
    type Value = Vec<A11yNode>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<A11yNode>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ChildrenSeed<'_> {
    type Value = Vec<A11yNode>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array or null")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<A11yNode>, E> {
        Ok(Vec::new())
    }
    fn visit_none<E: de::Error>(self) -> Result<Vec<A11yNode>, E> {
        Ok(Vec::new())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<A11yNode>, A::Error> {
        let ctx = self.ctx;
        let start = ctx.stack.len();
        let mut i = 0;
        loop {
            let r = seq.next_element_seed(NodeSeed {
                ctx: &mut *ctx,
                depth: self.depth,
            });
            if ctx.at(r, || Seg::Index(i))?.is_none() {
                // `drain(..).collect()` allocates exactly `len` (and nothing for no children).
                return Ok(ctx.stack.drain(start..).collect());
            }
            i += 1;
        }
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Vec<A11yNode>, E> {
        self.other("a boolean")
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Vec<A11yNode>, E> {
        self.other("a number")
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Vec<A11yNode>, E> {
        self.other("a number")
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Vec<A11yNode>, E> {
        self.other("a number")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Vec<A11yNode>, E> {
        self.other("a string")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<A11yNode>, A::Error> {
        if self.ctx.counting {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        }
        self.other("an object")
    }
}

impl ChildrenSeed<'_> {
    fn other<E: de::Error>(self, found: &'static str) -> Result<Vec<A11yNode>, E> {
        if self.ctx.counting {
            Ok(Vec::new())
        } else {
            Err(self.ctx.wrong_type("an array or null", found))
        }
    }
}

// ---- selection -------------------------------------------------------------------------------

/// A selection object; `null` is `None` when `null_ok`.
struct SelectionV<'c> {
    ctx: &'c mut Ctx,
    null_ok: bool,
}

impl<'de> DeserializeSeed<'de> for SelectionV<'_> {
    type Value = Option<A11ySelection>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SelectionV<'_> {
    type Value = Option<A11ySelection>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        if self.null_ok {
            Ok(None)
        } else {
            Err(self.ctx.wrong_type("an object", "null"))
        }
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let mut sel = A11ySelection::default();
        let (mut has_ref, mut has_text) = (false, false);
        while let Some(key) = next_key::<SelectionKey, _>(&mut map)? {
            match key {
                Key::Known(SelectionKey::Ref) => {
                    sel.ref_ = req_str(ctx, &mut map, "ref")?.into_string();
                    has_ref = true;
                }
                Key::Known(SelectionKey::Text) => {
                    sel.text = req_str(ctx, &mut map, "text")?.into_string();
                    has_text = true;
                }
                Key::Known(SelectionKey::StartOffset) => {
                    // Saturated beyond `i64` (pipecat does not render offsets).
                    sel.start_offset = opt_int(ctx, &mut map, "start_offset")?
                        .as_ref()
                        .map(LaxInt::saturated);
                }
                Key::Known(SelectionKey::EndOffset) => {
                    // Saturated beyond `i64` (pipecat does not render offsets).
                    sel.end_offset = opt_int(ctx, &mut map, "end_offset")?
                        .as_ref()
                        .map(LaxInt::saturated);
                }
                Key::Other(k) => extra(ctx, &mut map, k, &mut sel.extra)?,
            }
        }
        for (present, key) in [(has_ref, "ref"), (has_text, "text")] {
            if !present {
                ctx.unwind.push(Seg::Key(key.into()));
                return Err(ctx.fail(Problem::Missing));
            }
        }
        Ok(Some(sel))
    }
    refuse_other_kinds!("an object"; unit map);
}
