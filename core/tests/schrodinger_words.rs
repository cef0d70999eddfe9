//! SchrodingerRepo's replacement words are fit for a public site: no shipped word and no name a mapping builds is on the deny list, none is a roman numeral, and the list is long enough for large repositories.
//!
//! The deny list (`fixtures/schrodinger/words/deny.txt`) is read here and by
//! `scripts/schrodinger-words` only; no crate compiles it in. Its rule: a plain entry denies
//! that whole word (`anal`, not `analysis`); a `*entry*` denies any word or name that
//! contains it, for the worst terms.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use wheelwright_core::schrodinger::namespace::{Mode, NamespaceMapping};
use wheelwright_core::schrodinger::subwords::split;
use wheelwright_core::schrodinger::words::shipped;

/// The deny list: whole words and substrings.
fn deny_list() -> (BTreeSet<String>, Vec<String>) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schrodinger/words/deny.txt");
    let text = std::fs::read_to_string(&path).expect("the deny list");
    let mut whole = BTreeSet::new();
    let mut parts = Vec::new();
    for entry in text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(str::split_whitespace)
    {
        match entry.strip_prefix('*').and_then(|e| e.strip_suffix('*')) {
            Some(part) => parts.push(part.to_owned()),
            None => {
                whole.insert(entry.to_owned());
            }
        }
    }
    assert!(
        whole.len() > 300 && parts.len() > 10,
        "the deny list is cut short"
    );
    (whole, parts)
}

/// Whether `word` is a roman numeral in canonical form (`xiv`, `clxvi`, `mix`).
fn is_roman_numeral(word: &str) -> bool {
    let value = |c| match c {
        'i' => Some(1),
        'v' => Some(5),
        'x' => Some(10),
        'l' => Some(50),
        'c' => Some(100),
        'd' => Some(500),
        'm' => Some(1000),
        _ => None,
    };
    let Some(values) = word.chars().map(value).collect::<Option<Vec<u32>>>() else {
        return false;
    };
    let mut total = 0i64;
    for (i, v) in values.iter().enumerate() {
        if values.get(i + 1).is_some_and(|next| next > v) {
            total -= i64::from(*v);
        } else {
            total += i64::from(*v);
        }
    }
    // Canonical: writing the value back gives the same letters.
    let mut n = total;
    let mut canonical = String::new();
    for (v, s) in [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ] {
        while n >= v {
            canonical.push_str(s);
            n -= v;
        }
    }
    total > 0 && canonical == word
}

/// Why `word` (lowercase) may not be shown, if it may not.
fn denied(word: &str, whole: &BTreeSet<String>, parts: &[String]) -> Option<String> {
    if whole.contains(word) {
        return Some(format!("{word} is on the deny list"));
    }
    if let Some(part) = parts.iter().find(|p| word.contains(p.as_str())) {
        return Some(format!("{word} contains the denied {part}"));
    }
    is_roman_numeral(word).then(|| format!("{word} is a roman numeral"))
}

#[test]
fn roman_numerals_are_told_from_words() {
    for numeral in ["xiv", "clxvi", "mix", "civ", "mcmxcix", "dill"] {
        assert_eq!(is_roman_numeral(numeral), numeral != "dill", "{numeral}");
    }
    for word in ["mild", "civil", "ledger", "vivid"] {
        assert!(!is_roman_numeral(word), "{word}");
    }
}

#[test]
fn no_shipped_word_is_denied_and_the_list_is_long_enough() {
    let (whole, parts) = deny_list();
    let words: Vec<&str> = shipped().collect();
    assert!(words.len() > 3000, "only {} words", words.len());
    let problems: Vec<String> = words
        .iter()
        .filter_map(|w| denied(w, &whole, &parts))
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    let checked = ["anal", "clxvi", "ledger"].map(|w| denied(w, &whole, &parts).is_some());
    assert_eq!(checked, [true, true, false], "the rule itself");
}

#[test]
fn no_name_a_mapping_builds_is_or_contains_a_denied_word() {
    let (whole, parts) = deny_list();
    let files = common::real::stdlib_packages(&["json", "email", "logging", "http", "urllib"]);
    for seed in [0, 1, 7, 0x5eed, u64::MAX] {
        let mapping = NamespaceMapping::build_in(Mode::Virtual, &files, seed, &BTreeSet::new());
        assert!(mapping.names.len() > 500, "{}", mapping.names.len());
        let mut problems = Vec::new();
        for view in mapping.names.values() {
            let name = view.to_lowercase();
            let words = split(view);
            for w in words.words() {
                problems.extend(denied(w, &whole, &parts).map(|p| format!("{view}: {p}")));
            }
            if let Some(part) = parts.iter().find(|p| name.contains(p.as_str())) {
                problems.push(format!("{view} contains the denied {part}"));
            }
        }
        assert!(problems.is_empty(), "seed {seed}: {problems:?}");
    }
}
