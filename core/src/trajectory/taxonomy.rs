//! The taxonomy of actions: what an action did (kind) and its purpose (category), in one order.
//!
//! Each enum is declared strongest first, so its derived `Ord` is the order: an action made
//! of several parts (a pipeline, an `&&` chain) takes its strongest part's kind and category,
//! and summaries list them strongest first.

use serde::{Deserialize, Serialize};

/// What an action did, strongest first (the declaration order is the one order): edit > run > search > read > list > other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Edit,
    Run,
    Search,
    Read,
    List,
    Other,
}

impl ActionKind {
    /// The stronger of two kinds: the first in declaration order, which is also the
    /// derived `Ord` (`Edit < Run < ... < Other`); `self` when they are equal.
    pub fn stronger(self, other: Self) -> Self {
        Ord::min(self, other)
    }
}

/// The purpose of an action (D11), strongest first (the declaration order is the one order): edit > test > probe > search > read >
/// navigate > other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Edit,
    Test,
    Probe,
    Search,
    Read,
    Navigate,
    Other,
}

impl Category {
    /// Its name as JSON, tables and pages write it (`navigate`).
    pub fn name(self) -> &'static str {
        match self {
            Category::Edit => "edit",
            Category::Test => "test",
            Category::Probe => "probe",
            Category::Search => "search",
            Category::Read => "read",
            Category::Navigate => "navigate",
            Category::Other => "other",
        }
    }

    /// The stronger of two categories: the first in declaration order, which is also the
    /// derived `Ord` (`Edit < Test < ... < Other`); `self` when they are equal.
    pub fn stronger(self, other: Self) -> Self {
        Ord::min(self, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stronger_is_the_earlier_in_the_one_order() {
        use ActionKind::*;
        let kinds = [Edit, Run, Search, Read, List, Other];
        for (i, &a) in kinds.iter().enumerate() {
            for &b in &kinds[i..] {
                assert_eq!(a.stronger(b), a, "{a:?} vs {b:?}");
                assert_eq!(b.stronger(a), a, "{b:?} vs {a:?}");
            }
        }
        use Category as C;
        let categories = [
            C::Edit,
            C::Test,
            C::Probe,
            C::Search,
            C::Read,
            C::Navigate,
            C::Other,
        ];
        for c in categories {
            assert_eq!(serde_json::to_value(c).unwrap(), c.name(), "{c:?}");
        }
        for (i, &a) in categories.iter().enumerate() {
            for &b in &categories[i..] {
                assert_eq!(a.stronger(b), a, "{a:?} vs {b:?}");
                assert_eq!(b.stronger(a), a, "{b:?} vs {a:?}");
            }
        }
    }
}
