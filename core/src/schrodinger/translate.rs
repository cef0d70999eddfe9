//! The translator of a level-2 view: observations into the view, an agent's commands and patches back into the original, each with the substitutions it made.
//!
//! An agent may work in the original repository while it is shown the view: what it
//! reads (file contents, command output, paths) is translated original -> view, and what
//! it does (commands, patches) view -> original. Translation is whole-word: a name is
//! replaced only where it is a whole run of word characters, so `parse_version_info` is
//! left alone when only `parse_version` is mapped, and `packaging/version.py` and
//! `packaging.version` become the view's path and dotted module. In a command the command
//! word of each simple command and each flag are never replaced (`--version` stays; the
//! value of `--file=path` is translated). Example:
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::schrodinger::translate::Translator;
//! let t = Translator::new(BTreeMap::from([("version".to_owned(), "lantern".to_owned())]));
//! assert_eq!(t.observation("src/packaging/version.py:3: version_info").text, "src/packaging/lantern.py:3: version_info");
//! let back = t.command("lantern --version lantern.py | grep -n lantern");
//! assert_eq!(back.text, "lantern --version version.py | grep -n version");
//! assert_eq!(back.substitutions.len(), 2);
//! ```

use std::collections::BTreeMap;

use serde::Serialize;

use super::namespace::{NamespaceMapping, word_tokens};

/// One replacement: at byte `at` of the input, `from` became `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Substitution {
    pub at: usize,
    pub from: String,
    pub to: String,
}

/// A translated text and what was replaced in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Translation {
    pub text: String,
    pub substitutions: Vec<Substitution>,
}

/// Both directions of a mapping of names.
#[derive(Clone, Debug)]
pub struct Translator {
    to_view: BTreeMap<String, String>,
    to_original: BTreeMap<String, String>,
}

impl Translator {
    /// A translator of `names` (original -> view), which must be one-to-one.
    pub fn new(names: BTreeMap<String, String>) -> Self {
        let to_original = names.iter().map(|(o, v)| (v.clone(), o.clone())).collect();
        Self {
            to_view: names,
            to_original,
        }
    }

    /// The translator of a view's namespace mapping.
    pub fn of(mapping: &NamespaceMapping) -> Self {
        Self::new(mapping.names.clone())
    }

    /// What the agent is shown (a file, a command's output, a path), original -> view.
    pub fn observation(&self, text: &str) -> Translation {
        replace(text, &self.to_view, |_| true)
    }

    /// A patch or any text the agent wrote, view -> original.
    pub fn patch(&self, text: &str) -> Translation {
        replace(text, &self.to_original, |_| true)
    }

    /// A shell command the agent ran in the view, view -> original, leaving each command
    /// word and each flag as it is.
    pub fn command(&self, command: &str) -> Translation {
        let protected = protected_ranges(command);
        replace(command, &self.to_original, |at| {
            !protected.iter().any(|&(s, e)| s <= at && at < e)
        })
    }
}

fn replace(
    text: &str,
    map: &BTreeMap<String, String>,
    allowed: impl Fn(usize) -> bool,
) -> Translation {
    let mut out = String::with_capacity(text.len());
    let mut substitutions = Vec::new();
    let mut last = 0;
    for (at, token) in word_tokens(text) {
        let Some(to) = map.get(token) else {
            continue;
        };
        if !allowed(at) {
            continue;
        }
        out.push_str(&text[last..at]);
        out.push_str(to);
        last = at + token.len();
        substitutions.push(Substitution {
            at,
            from: token.to_owned(),
            to: to.clone(),
        });
    }
    out.push_str(&text[last..]);
    Translation {
        text: out,
        substitutions,
    }
}

/// Byte ranges of a command that are never translated: the command word of each simple
/// command (after leading `NAME=value` assignments) unless it is a path, and each flag
/// (`-x`, `--name`, the name part of `--name=value`). The body of a here-document
/// (`cat > f <<'EOF'` up to `EOF`) is data and is translated whole.
fn protected_ranges(command: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut expect_command = true;
    let bytes = command.as_bytes();
    // Delimiters of here-documents opened on the current line, and whether the next word
    // is one (`<< EOF`).
    let mut heredocs: Vec<(String, bool)> = Vec::new();
    let mut delimiter_next: Option<bool> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' && !heredocs.is_empty() {
            // The bodies are data, written in the agent's names: nothing in them is a
            // command word. Each ends at a line that is its delimiter.
            i += 1;
            for (delimiter, strip_tabs) in std::mem::take(&mut heredocs) {
                while i < bytes.len() {
                    let end = command[i..].find('\n').map_or(bytes.len(), |n| i + n);
                    let line = &command[i..end];
                    let line = if strip_tabs {
                        line.trim_start_matches('\t')
                    } else {
                        line
                    };
                    i = (end + 1).min(bytes.len());
                    if line == delimiter {
                        break;
                    }
                }
            }
            expect_command = true;
            continue;
        }
        if c == b'\n' || c == b';' || c == b'|' || c == b'&' || c == b'(' || c == b'`' {
            expect_command = true;
            i += 1;
            continue;
        }
        if c == b'$' && bytes.get(i + 1) == Some(&b'(') {
            expect_command = true;
            i += 2;
            continue;
        }
        if c.is_ascii_whitespace() || c == b')' {
            i += 1;
            continue;
        }
        // A word: up to unquoted whitespace or an operator.
        let start = i;
        let mut quote: Option<u8> = None;
        while i < bytes.len() {
            let b = bytes[i];
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None if b == b'\'' || b == b'"' => quote = Some(b),
                None if b.is_ascii_whitespace() || b"|&;()`".contains(&b) => break,
                // `cat<<EOF`: a here-document's operator ends the word before it (but
                // `<<<`, a here-string, is no here-document).
                None if b == b'<'
                    && i > start
                    && bytes[i - 1] != b'<'
                    && bytes.get(i + 1) == Some(&b'<') =>
                {
                    break;
                }
                None => {}
            }
            i += 1;
        }
        let word = &command[start..i];
        if let Some(strip_tabs) = delimiter_next.take() {
            heredocs.push((unquote(word), strip_tabs));
            continue;
        }
        if let Some(rest) = word.strip_prefix("<<")
            && !rest.starts_with('<')
        {
            let (strip_tabs, rest) = rest.strip_prefix('-').map_or((false, rest), |r| (true, r));
            if rest.is_empty() {
                delimiter_next = Some(strip_tabs);
            } else {
                heredocs.push((unquote(rest), strip_tabs));
            }
            continue;
        }
        let assignment = word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
        if expect_command && assignment {
            continue;
        }
        if expect_command {
            // A command given by path (`./harbor/cli.py`, `tests/run.sh`) names the
            // repository's files and is translated like any argument.
            if !word.contains('/') {
                ranges.push((start, i));
            }
            expect_command = false;
        } else if word.starts_with('-') {
            let end = word.find('=').map_or(i, |eq| start + eq);
            ranges.push((start, end));
        }
    }
    ranges
}

/// A here-document's delimiter as the shell compares it: quotes removed (`'EOF'` -> `EOF`).
fn unquote(word: &str) -> String {
    word.chars().filter(|&c| c != '\'' && c != '"').collect()
}
