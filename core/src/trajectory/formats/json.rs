//! The few questions a format asks of a JSON value, for `serde_json`'s owned values and for borrowed ones alike.
//!
//! A trajectory file is read into [`Borrowed`] (`serde_json_borrow`): strings without escapes
//! point into the text and objects are lists, where `serde_json::Value` copies every string
//! and builds a map per object. Most of a real trajectory is never looked at (each assistant
//! message carries its whole API response in `extra.response`), so copying it cost most of
//! the reading time. A trajectory already held as a `serde_json::Value` (embedded in a JSON
//! Lines bundle) is read as it is: the parsers are written once, over [`Json`].

/// A JSON value read from a trajectory's text without copying its strings.
pub(crate) type Borrowed<'a> = serde_json_borrow::Value<'a>;

/// What the format parsers ask of a JSON value; answers are `serde_json::Value`'s.
pub(crate) trait Json: Sized {
    /// The member `key` of an object (the last one, when a key repeats, as
    /// `serde_json::Value` keeps it); `None` for anything else.
    fn field(&self, key: &str) -> Option<&Self>;
    fn as_str(&self) -> Option<&str>;
    fn items(&self) -> Option<&[Self]>;
    /// An integer that fits in an `i64`.
    fn as_i64(&self) -> Option<i64>;
    /// Any number, as an `f64`.
    fn as_f64(&self) -> Option<f64>;
    fn is_null(&self) -> bool;
    /// The value as a `serde_json::Value`, for the formats read from one.
    fn to_value(&self) -> serde_json::Value;
}

impl Json for serde_json::Value {
    fn field(&self, key: &str) -> Option<&Self> {
        self.as_object()?.get(key)
    }
    fn as_str(&self) -> Option<&str> {
        serde_json::Value::as_str(self)
    }
    fn items(&self) -> Option<&[Self]> {
        self.as_array().map(Vec::as_slice)
    }
    fn as_i64(&self) -> Option<i64> {
        serde_json::Value::as_i64(self)
    }
    fn as_f64(&self) -> Option<f64> {
        serde_json::Value::as_f64(self)
    }
    fn is_null(&self) -> bool {
        serde_json::Value::is_null(self)
    }
    fn to_value(&self) -> serde_json::Value {
        self.clone()
    }
}

impl Json for Borrowed<'_> {
    fn field(&self, key: &str) -> Option<&Self> {
        self.as_object()?
            .as_vec()
            .iter()
            .rev()
            .find_map(|(k, v)| (*k == key).then_some(v))
    }
    fn as_str(&self) -> Option<&str> {
        Borrowed::as_str(self)
    }
    fn items(&self) -> Option<&[Self]> {
        self.as_array()
    }
    fn as_i64(&self) -> Option<i64> {
        Borrowed::as_i64(self)
    }
    fn as_f64(&self) -> Option<f64> {
        Borrowed::as_f64(self)
    }
    fn is_null(&self) -> bool {
        Borrowed::is_null(self)
    }
    fn to_value(&self) -> serde_json::Value {
        // Cannot fail: every key is a string. A repeated key keeps its last value, as
        // reading the text into a `serde_json::Value` does.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// A trajectory's messages: the value itself when it is a list, else its `messages` list.
pub(crate) fn messages_of<J: Json>(value: &J) -> Option<&[J]> {
    value
        .items()
        .or_else(|| value.field("messages").and_then(J::items))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every question, asked of both kinds of value read from the same text.
    fn answers<J: Json>(v: &J) -> Vec<String> {
        let mut out = Vec::new();
        for key in ["a", "b", "n", "big", "f", "neg", "missing"] {
            let f = v.field(key);
            out.push(format!(
                "{key}: present {} str {:?} items {:?} i64 {:?} null {:?}",
                f.is_some(),
                f.and_then(Json::as_str),
                f.and_then(Json::items).map(<[J]>::len),
                f.and_then(Json::as_i64),
                f.map(Json::is_null),
            ));
        }
        out
    }

    #[test]
    fn borrowed_values_answer_as_serde_json_values_do() {
        for text in [
            r#"{"a": "x", "a": "y", "b": [1, 2, "z"], "n": null, "big": 18446744073709551615, "f": 1.5, "neg": -3}"#,
            r#"{"a": "esc\"aped\n", "b": {"a": 1}, "n": 9223372036854775807}"#,
            r#"[{"a": 1}]"#,
            r#""just a string""#,
        ] {
            let owned: serde_json::Value = serde_json::from_str(text).unwrap();
            let borrowed: Borrowed<'_> = serde_json::from_str(text).unwrap();
            assert_eq!(answers(&owned), answers(&borrowed), "{text}");
            assert_eq!(owned.as_str(), Json::as_str(&borrowed), "{text}");
            assert_eq!(owned, borrowed.to_value(), "{text}");
        }
    }
}
