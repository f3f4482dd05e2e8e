//! A State described at run time by a JSON Schema, not by a Rust type: the dynamic path beside
//! [`StateModel::of`], for agent files whose State fields are declared in TOML
//! and, later, for bindings.
//!
//! Saves must fit the State, and rows are checked against it when the registry is built; a
//! value's description feeds the refusal hint. Use the model with
//! [`RegistryBuilder::state_model`](crate::RegistryBuilder::state_model).

use std::sync::Arc;

use serde_json::Value;

use crate::problems::pointer_to_path;
use crate::state::{StateModel, StateRefusal};

impl StateModel {
    /// A State model named `name` whose values are described by `schema`, a JSON Schema object
    /// like `{"type": "object", "properties": {"email": {"type": ["string", "null"],
    /// "description": "The customer's email."}}}`. Each property is one State value; its
    /// `description` becomes the refusal hint's words. Make every property accept `null`: an
    /// unset value is `null` or absent.
    ///
    /// A save must leave the State valid against `schema`; a refused save names the field and
    /// the reason, like `cart: "many" is not of types "array", "null"`.
    ///
    /// # Errors
    /// A sentence naming the problem when `schema` is not an object schema with `properties`,
    /// or is not valid JSON Schema.
    ///
    /// ```
    /// use hark_tools::StateModel;
    /// use serde_json::json;
    /// let model = StateModel::from_schema("ShopState", json!({
    ///     "type": "object",
    ///     "properties": {"email": {"type": ["string", "null"], "description": "The email."}}
    /// })).unwrap();
    /// assert_eq!(model.field_names(), ["email"]);
    /// assert_eq!(model.description("email"), Some("The email."));
    /// assert!(model.check(&json!({"email": "ana@example.com"})).is_ok());
    /// assert_eq!(model.check(&json!({"email": 7})).unwrap_err(), "email: 7 is not of types \"null\", \"string\"");
    /// ```
    pub fn from_schema(name: impl Into<String>, schema: Value) -> Result<Self, String> {
        let name = name.into();
        if !schema.get("properties").is_some_and(Value::is_object) {
            return Err(format!(
                "the State {name} must be a JSON Schema object with \"properties\", one per State value"
            ));
        }
        let validator = jsonschema::options()
            .build(&schema)
            .map_err(|e| format!("the State {name} is not valid JSON Schema: {e}"))?;
        let validator = Arc::new(validator);
        let schema = Arc::new(schema);
        let root = schema.clone();
        Ok(Self {
            name,
            schema,
            check: Arc::new(
                move |value: &Value| match validator.iter_errors(value).next() {
                    None => Ok(()),
                    Some(error) => {
                        let path = pointer_to_path(error.instance_path().as_str());
                        let detail = if path.is_empty() {
                            error.to_string()
                        } else {
                            format!("{path}: {error}")
                        };
                        let segments: Vec<String> = error
                            .instance_path()
                            .iter()
                            .map(|segment| segment.to_string())
                            .collect();
                        Err(StateRefusal::new(
                            &root,
                            &segments,
                            error.kind().keyword(),
                            detail,
                        ))
                    }
                },
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_fields_are_found_and_bad_schemas_refused() {
        let model = StateModel::from_schema(
            "S",
            json!({"type": "object", "properties": {
                "order": {"type": ["object", "null"], "properties": {"id": {"type": "string"}}}
            }}),
        )
        .unwrap();
        assert!(model.field(&["order".into(), "id".into()]).is_some());
        assert!(model.field(&["order".into(), "nope".into()]).is_none());
        assert!(
            StateModel::from_schema("S", json!({"type": "object"}))
                .unwrap_err()
                .contains("\"properties\"")
        );
        assert!(
            StateModel::from_schema("S", json!({"properties": {"a": {"type": 7}}}))
                .unwrap_err()
                .contains("not valid JSON Schema")
        );
    }
}
