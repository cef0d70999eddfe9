//! Filling the versioned prompt templates: `{name}` placeholders replaced in one pass; a prompt with the template it came from.

/// A prompt to send to a model and the template (id and version) it came from; shared by
/// every benchmark whose pipeline asks a model (the host's model command takes it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub template: &'static str,
    pub text: String,
}

/// `template` with each `{name}` of `values` replaced, in one left-to-right pass; other
/// braces are kept as they are.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (close, *v))
        });
        match value {
            Some((close, v)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_never_filled_again() {
        let out = fill("{a} and {b} {c}", &[("a", "{b}"), ("b", "x")]);
        assert_eq!(out, "{b} and x {c}");
        assert_eq!(fill("{unclosed", &[("unclosed", "x")]), "{unclosed");
    }
}
