//! Identifiers as subword tokens and back: CamelCase, snake_case, UPPER_CASE and digit runs split into words, and a name rebuilt from other words in the original's shape.
//!
//! Level 2 of SchrodingerRepo (spec 3) maps each subword of a repository's own names to
//! another word, the same subword always to the same word, and rebuilds the name in its
//! convention. [`split`] keeps everything that is not a word (underscores, digits) as it is
//! and records each word's case, so [`Subwords::rebuild`] gives back the original exactly
//! when every word maps to itself, and a name of the same shape otherwise:
//! ```
//! use wheelwright_core::schrodinger::subwords::split;
//! let name = split("_HTTPServer2_cache");
//! assert_eq!(name.words(), ["http", "server", "cache"]);
//! let rebuilt = name.rebuild(|w| match w {
//!     "http" => "tidal".into(),
//!     "server" => "lantern".into(),
//!     _ => "orchard".into(),
//! });
//! assert_eq!(rebuilt, "_TIDALLantern2_orchard");
//! assert_eq!(name.rebuild(|w| w.to_owned()), "_HTTPServer2_cache");
//! ```

use serde::Serialize;

/// How a word is written in the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Case {
    /// `cache`
    Lower,
    /// `HTTP`, and a word of one capital letter
    Upper,
    /// `Server`
    Title,
}

impl Case {
    /// `word` (lowercase) written in this case.
    fn apply(self, word: &str) -> String {
        match self {
            Self::Lower => word.to_lowercase(),
            Self::Upper => word.to_uppercase(),
            Self::Title => {
                let mut chars = word.chars();
                chars.next().map_or_else(String::new, |first| {
                    first
                        .to_uppercase()
                        .chain(chars.flat_map(char::to_lowercase))
                        .collect()
                })
            }
        }
    }
}

/// One piece of a name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Piece {
    /// A word: its text in lowercase, and how the name writes it.
    Word { text: String, case: Case },
    /// Anything kept as it is: underscores, digits, other characters.
    Kept { text: String },
}

/// A name cut into pieces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Subwords {
    pub pieces: Vec<Piece>,
}

impl Subwords {
    /// The words, in lowercase, in order (a word may appear more than once).
    pub fn words(&self) -> Vec<&str> {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Word { text, .. } => Some(text.as_str()),
                Piece::Kept { .. } => None,
            })
            .collect()
    }

    /// The name with each word replaced by `word(word)` (given and returned in lowercase),
    /// written in the original word's case, everything else kept.
    ///
    /// Two adjacent words of one case (`HTTPServer` is `HTTP` then `Server`, but `XMLHTTP`
    /// would be one word) stay apart only through their cases, so a rebuilt name splits
    /// into the same pieces unless a new word changes where one case meets the next.
    pub fn rebuild(&self, mut word: impl FnMut(&str) -> String) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Word { text, case } => out.push_str(&case.apply(&word(text))),
                Piece::Kept { text } => out.push_str(text),
            }
        }
        out
    }
}

/// What kind of character `c` is, for finding word boundaries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    Other,
}

fn class(c: char) -> Class {
    if c.is_uppercase() {
        Class::Upper
    } else if c.is_lowercase() {
        Class::Lower
    } else if c.is_ascii_digit() {
        Class::Digit
    } else {
        Class::Other
    }
}

/// `name` cut into words and kept pieces. A word is a run of letters that starts at a
/// boundary: after a non-letter, at a lowercase-to-uppercase change (`parse|Version`), or
/// before the last capital of a capital run that a lowercase letter follows
/// (`HTTP|Server`). Digits and every other character (underscores) are kept pieces.
pub fn split(name: &str) -> Subwords {
    let chars: Vec<char> = name.chars().collect();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        match class(chars[i]) {
            Class::Digit | Class::Other => {
                let kind = class(chars[i]);
                while i < chars.len() && class(chars[i]) == kind {
                    i += 1;
                }
                pieces.push(Piece::Kept {
                    text: chars[start..i].iter().collect(),
                });
            }
            Class::Upper => {
                while i < chars.len() && class(chars[i]) == Class::Upper {
                    i += 1;
                }
                let capitals = i - start;
                let lower_follows = i < chars.len() && class(chars[i]) == Class::Lower;
                if lower_follows && capitals > 1 {
                    // `HTTPServer`: the capitals but the last are a word of their own.
                    pieces.push(word(&chars[start..i - 1], Case::Upper));
                    i -= 1;
                    continue;
                }
                if lower_follows {
                    while i < chars.len() && class(chars[i]) == Class::Lower {
                        i += 1;
                    }
                    pieces.push(word(&chars[start..i], Case::Title));
                } else {
                    pieces.push(word(&chars[start..i], Case::Upper));
                }
            }
            Class::Lower => {
                while i < chars.len() && class(chars[i]) == Class::Lower {
                    i += 1;
                }
                pieces.push(word(&chars[start..i], Case::Lower));
            }
        }
    }
    Subwords { pieces }
}

fn word(chars: &[char], case: Case) -> Piece {
    Piece::Word {
        text: chars.iter().collect::<String>().to_lowercase(),
        case,
    }
}
