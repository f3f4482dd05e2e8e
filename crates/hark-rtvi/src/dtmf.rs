//! `dtmf` data (C→S, protocol 2.1.0+, pipecat `models.py::DTMFInputData`): `{buttons: [key, …]}`,
//! one or more keypad keys (`0`-`9`, `*`, `#`) in the order pressed. Read as pipecat 1.14 reads
//! it: `buttons` required, a list of at least one key, each exactly one of the twelve key
//! strings (no numbers, no spaces); other fields ignored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::fields::{FieldError, Obj, kind};
use crate::messages;

/// The twelve keypad keys, as pipecat's `KeypadEntry` values.
pub const KEYPAD_KEYS: [char; 12] = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '#', '*'];

/// `dtmf` data: the keys pressed, in order (never empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DtmfData {
    /// The keys, each one of [`KEYPAD_KEYS`].
    pub buttons: Vec<char>,
}

impl DtmfData {
    /// The keys as one text, in order (`["1","2","#"]` → `12#`).
    pub fn keys(&self) -> String {
        self.buttons.iter().collect()
    }

    /// Reads `data` (the message's `data`, `Null` when absent) at `path`.
    pub(crate) fn from_value(data: Value, path: &str) -> Result<DtmfData, FieldError> {
        let had_button = data.get("button").is_some();
        let mut o = Obj::new(data, path, false)?;
        let list_path = o.path_of("buttons");
        let list = match o.take_raw("buttons") {
            None if had_button => {
                return Err(FieldError::with_detail(
                    list_path.clone(),
                    messages::dtmf_uses_button(&list_path),
                ));
            }
            None => return Err(FieldError::missing(list_path)),
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(FieldError::wrong_type(
                    list_path,
                    "an array of keypad keys",
                    &other,
                ));
            }
        };
        if list.is_empty() {
            return Err(FieldError::with_detail(
                list_path.clone(),
                messages::dtmf_no_keys(&list_path),
            ));
        }
        let mut buttons = Vec::with_capacity(list.len());
        for (i, item) in list.into_iter().enumerate() {
            let item_path = format!("{list_path}[{i}]");
            let key = match &item {
                Value::String(s) => {
                    let mut chars = s.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) if KEYPAD_KEYS.contains(&c) => Some(c),
                        _ => None,
                    }
                }
                _ => None,
            };
            match key {
                Some(c) => buttons.push(c),
                None => {
                    let found = match &item {
                        Value::String(s) => format!("{s:?}"),
                        other => kind(other).to_string(),
                    };
                    return Err(FieldError::with_detail(
                        item_path.clone(),
                        messages::dtmf_not_a_key(&item_path, &found),
                    ));
                }
            }
        }
        Ok(DtmfData { buttons })
    }
}
