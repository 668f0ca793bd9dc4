//! What a request type's OpenAPI schema says of its fields, for the problem documents of input
//! that does not deserialise: each required field the body misses, and a field's rule in words
//! ("a whole number from 1 to 50", "a date, YYYY-MM-DD").
//!
//! serde stops at the first error and words it for Rust ("missing field", "expected u32",
//! "trailing input"). The schema is the contract partners read (`/openapi.json` is made of the
//! same derives), so reading the rules from it says each field's own rule without a second
//! list to keep in step with the types. It is consulted only once a request has failed, so a
//! good request pays nothing for it.

use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

/// The schema of one request type, with the named schemas it refers to.
pub struct Shape {
    root: Value,
    named: Map<String, Value>,
}

/// What a UUID looks like, in the problems of inputs that must be one.
pub const EXAMPLE_UUID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

/// How far `$ref`s and compositions are followed: far beyond any request type's depth, and a
/// bound for a recursive schema.
const MAX_HOPS: usize = 16;

impl Shape {
    /// The shape of a JSON body of type `T`.
    pub fn of_body<T: ToSchema>() -> Self {
        let mut named = Vec::new();
        T::schemas(&mut named);
        Shape {
            root: serde_json::to_value(T::schema()).unwrap_or_default(),
            named: named
                .into_iter()
                .map(|(name, schema)| (name, serde_json::to_value(schema).unwrap_or_default()))
                .collect(),
        }
    }

    /// The shape of query parameters `T`: an object with one property per parameter.
    pub fn of_query<T: IntoParams>() -> Self {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for parameter in T::into_params(|| Some(utoipa::openapi::path::ParameterIn::Query)) {
            let parameter = serde_json::to_value(parameter).unwrap_or_default();
            let Some(name) = parameter["name"].as_str() else {
                continue;
            };
            if parameter["required"] == true {
                required.push(Value::from(name));
            }
            properties.insert(name.to_owned(), parameter["schema"].clone());
        }
        Shape {
            root: serde_json::json!({ "type": "object", "properties": properties, "required": required }),
            named: Map::new(),
        }
    }

    /// `schema` with its `$ref` resolved and a nullable or composed schema reduced to the one
    /// alternative that is not null (the first, when there are several).
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        self.resolve_with(schema, |alternatives| alternatives.next())
            .unwrap_or(&Value::Null)
    }

    /// `schema` resolved for `value`: of a composition's alternatives (say a `Charge`, either
    /// `{percent}` or `{fixed}`), the first whose properties hold each of the value's members,
    /// so a body in the second form is not told it lacks the first form's fields. `None` when
    /// no alternative fits: the value is wrong as a whole, not missing a field.
    fn resolve_for<'a>(&'a self, schema: &'a Value, value: &Value) -> Option<&'a Value> {
        self.resolve_with(schema, |alternatives| {
            let alternatives: Vec<&Value> = alternatives.collect();
            match alternatives[..] {
                [only] => Some(only),
                _ => alternatives
                    .into_iter()
                    .find(|s| self.holds_members_of(s, value)),
            }
        })
    }

    /// `schema` with its `$ref`s followed and each composition reduced to the alternative
    /// `pick` chooses of those that are not null; `None` for an unknown `$ref` or when `pick`
    /// chooses none.
    fn resolve_with<'a>(
        &'a self,
        mut schema: &'a Value,
        pick: impl Fn(&mut dyn Iterator<Item = &'a Value>) -> Option<&'a Value>,
    ) -> Option<&'a Value> {
        for _ in 0..MAX_HOPS {
            if let Some(name) = schema["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                schema = self.named.get(name)?;
                continue;
            }
            let Some(alternatives) = ["oneOf", "anyOf", "allOf"]
                .iter()
                .find_map(|key| schema[*key].as_array())
            else {
                return Some(schema);
            };
            let mut not_null = alternatives
                .iter()
                .filter(|s| s["type"] != "null")
                .peekable();
            if not_null.peek().is_none() {
                return Some(schema);
            }
            schema = pick(&mut not_null)?;
        }
        Some(schema)
    }

    /// Whether `schema` names every member of `value` (true of a value that is no object).
    fn holds_members_of(&self, schema: &Value, value: &Value) -> bool {
        let Value::Object(members) = value else {
            return true;
        };
        let properties = &self.resolve(schema)["properties"];
        members.keys().all(|name| properties.get(name).is_some())
    }

    /// The schema of the field at `path` as serde_path_to_error writes it (`lines[0].quantity`).
    fn at(&self, path: &str) -> Option<&Value> {
        let mut schema = self.resolve(&self.root);
        for segment in path.split('.').filter(|s| !s.is_empty()) {
            let (name, indices) = match segment.find('[') {
                Some(i) => segment.split_at(i),
                None => (segment, ""),
            };
            if !name.is_empty() {
                schema = self.resolve(schema["properties"].get(name)?);
            }
            for _ in indices.matches('[') {
                schema = self.resolve(schema.get("items")?);
            }
        }
        (!schema.is_null()).then_some(schema)
    }

    /// The rule of the field at `path` in words, e.g. "a whole number from 1 to 50". A plain
    /// string, list or object has a rule only for a value of another JSON type
    /// (`wrong_type`): a value of the right type that a type's own parser refused (an amount, say) is
    /// better told by that parser.
    pub fn rule(&self, path: &str, wrong_type: bool) -> Option<String> {
        let (words, specific) = rule_of(self.at(path)?)?;
        (specific || wrong_type).then_some(words)
    }

    /// The path of every required field `body` lacks, in the schema's order, nested objects
    /// and the objects of lists included (`lines[1].product_id`).
    pub fn missing(&self, body: &Value) -> Vec<String> {
        let mut missing = Vec::new();
        self.missing_in(&self.root, body, "", &mut missing, 0);
        missing
    }

    fn missing_in(
        &self,
        schema: &Value,
        value: &Value,
        path: &str,
        missing: &mut Vec<String>,
        depth: usize,
    ) {
        let Some(schema) = self.resolve_for(schema, value) else {
            return;
        };
        if depth > MAX_HOPS {
            return;
        }
        let join = |name: &str| {
            if path.is_empty() {
                name.to_owned()
            } else {
                format!("{path}.{name}")
            }
        };
        match value {
            Value::Object(members) => {
                for name in schema["required"].as_array().into_iter().flatten() {
                    let Some(name) = name.as_str() else { continue };
                    if !members.contains_key(name) {
                        missing.push(join(name));
                    }
                }
                let Some(properties) = schema["properties"].as_object() else {
                    return;
                };
                for (name, inner) in members {
                    if let Some(property) = properties.get(name) {
                        self.missing_in(property, inner, &join(name), missing, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                let Some(item) = schema.get("items") else {
                    return;
                };
                for (i, inner) in items.iter().enumerate() {
                    self.missing_in(item, inner, &format!("{path}[{i}]"), missing, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// A schema's rule in words, and whether it says more than the JSON type; `None` when the
/// schema says nothing a person could act on.
fn rule_of(schema: &Value) -> Option<(String, bool)> {
    let kind = match &schema["type"] {
        Value::String(kind) => kind.as_str(),
        // OpenAPI 3.1 writes a nullable type as `["integer", "null"]`.
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")?,
        _ => return None,
    };
    if let Some(values) = schema["enum"].as_array() {
        let names: Vec<String> = values
            .iter()
            .filter_map(Value::as_str)
            .map(|v| format!("`{v}`"))
            .collect();
        if !names.is_empty() {
            return Some((format!("one of {}", names.join(", ")), true));
        }
    }
    let specific = match (kind, schema["format"].as_str()) {
        ("integer", _) => format!("a whole number{}", range(schema)),
        ("number", _) => format!("a number{}", range(schema)),
        ("boolean", _) => "true or false".to_owned(),
        ("string", Some("date")) => "a date, YYYY-MM-DD".to_owned(),
        ("string", Some("date-time")) => {
            "an RFC 3339 date-time with its offset, e.g. 2026-05-01T10:00:00+02:00".to_owned()
        }
        ("string", Some("uuid")) => format!("a UUID, e.g. {EXAMPLE_UUID}"),
        ("string", _) => return Some(("a string".to_owned(), false)),
        ("array", _) => return Some(("a list".to_owned(), false)),
        ("object", _) => return Some(("an object".to_owned(), false)),
        _ => return None,
    };
    Some((specific, true))
}

/// " from 1 to 50", " of at least 1", " of at most 100", or nothing.
fn range(schema: &Value) -> String {
    let bound = |key: &str| schema[key].as_number().map(ToString::to_string);
    match (bound("minimum"), bound("maximum")) {
        (Some(min), Some(max)) => format!(" from {min} to {max}"),
        (Some(min), None) => format!(" of at least {min}"),
        (None, Some(max)) => format!(" of at most {max}"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_read_from_the_schema_of_nested_fields() {
        let shape = Shape::of_body::<app::wire::ExpressCheckoutRequest>();
        assert_eq!(
            shape.rule("lines[3].quantity", false).unwrap(),
            "a whole number from 1 to 50"
        );
        assert!(shape
            .rule("lines[0].product_id", false)
            .unwrap()
            .starts_with("a UUID"));
        assert_eq!(shape.rule("flexible_date", false).unwrap(), "true or false");
        // A plain string's rule is only told of a value that is no string at all.
        assert_eq!(shape.rule("shipping_address.city", false), None);
        assert_eq!(
            shape.rule("shipping_address.city", true).unwrap(),
            "a string"
        );
        assert_eq!(shape.rule("no_such_field", true), None);
        let shape = Shape::of_body::<app::wire::TimeslotQuery>();
        assert_eq!(shape.rule("date", false).unwrap(), "a date, YYYY-MM-DD");
    }

    #[test]
    fn every_missing_required_field_is_found_nested_ones_too() {
        let shape = Shape::of_body::<app::wire::ExpressCheckoutRequest>();
        let body = serde_json::json!({
            "date": "2026-05-01", "flexible_date": false, "last_name": "Lovelace",
            "lines": [{ "product_id": "0f8fad5b-d9cb-469f-a165-70867728950e", "quantity": 1 },
                      { "quantity": 2 }],
            "shipping_address": { "street": "Dam" },
        });
        let missing = shape.missing(&body);
        for field in [
            "email",
            "first_name",
            "return_url",
            "lines[1].product_id",
            "shipping_address.city",
        ] {
            assert!(
                missing.contains(&field.to_owned()),
                "{field} in {missing:?}"
            );
        }
        assert!(!missing.iter().any(|f| f == "last_name" || f == "date"));
    }

    #[test]
    fn a_body_in_one_form_of_a_choice_lacks_nothing_of_the_other() {
        let shape = Shape::of_body::<crate::store::CampaignInput>();
        let fixed = serde_json::json!({ "commission": { "fixed": { "value": "1.50" } } });
        let commission = |body| -> Vec<String> {
            let missing = shape.missing(&body);
            missing
                .into_iter()
                .filter(|f| f.starts_with("commission"))
                .collect()
        };
        assert_eq!(commission(fixed), ["commission.fixed.currency"]);
        assert!(commission(serde_json::json!({ "commission": { "percent": "10" } })).is_empty());
        assert!(commission(serde_json::json!({ "commission": { "other": "1" } })).is_empty());
    }
}
