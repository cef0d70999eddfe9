//! Line selections: what part of a file a command asks for (`Sel`) before the output is seen.

/// A range requested of a file the workspace does not have (so nothing clips it, D13)
/// counts at most this many lines past its first: `sed -n '1,4294967295p' new.py` or a
/// read with `limit: 4294967295` would otherwise make one action count four billion lines.
/// No real file comes near it; files the workspace has are clipped to their line count.
pub const MAX_UNSEEN_RANGE: u32 = 100_000;

/// The last line counted of a requested range `start..=end` of a file not in the workspace.
pub(super) fn unseen_end(start: u32, end: u32) -> u32 {
    end.min(start.saturating_add(MAX_UNSEEN_RANGE))
}

/// Which lines of a file a stream carries, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Sel {
    /// Ranges of lines (`None` end: to the end of the file).
    Ranges(Vec<(u32, Option<u32>)>),
    /// The last N lines.
    Tail(u32),
    /// Not known statically: find the printed lines in the file's text.
    Locate,
    /// Nothing is shown (e.g. piped into `wc`).
    Nothing,
}

impl Sel {
    /// What working on this selection costs, in steps: one per range.
    pub(super) fn weight(&self) -> u64 {
        match self {
            Sel::Ranges(r) => 1 + u64::try_from(r.len()).unwrap_or(u64::MAX),
            _ => 1,
        }
    }

    pub(super) fn whole() -> Self {
        Sel::Ranges(vec![(1, None)])
    }

    pub(super) fn is_whole(&self) -> bool {
        matches!(self, Sel::Ranges(r) if r.as_slice() == [(1, None)])
    }

    /// Keeps positions `a..=b` (1-based) of this stream.
    pub(super) fn slice(&self, a: u32, b: Option<u32>) -> Sel {
        match self {
            Sel::Ranges(ranges) => {
                let mut out = Vec::new();
                let mut pos: u64 = 1; // position of the first line of the current range
                let a64 = u64::from(a.max(1));
                let b64 = b.map(u64::from);
                for &(s, e) in ranges {
                    let len = e.map(|e| u64::from(e.saturating_sub(s)) + 1);
                    let first = pos;
                    let last = len.map(|l| first + l - 1);
                    let lo = a64.max(first);
                    let hi = match (b64, last) {
                        (Some(b), Some(l)) => Some(b.min(l)),
                        (Some(b), None) => Some(b),
                        (None, l) => l,
                    };
                    if hi.is_none_or(|h| lo <= h) {
                        let to_line =
                            |p: u64| u32::try_from(u64::from(s) + p - first).unwrap_or(u32::MAX);
                        out.push((to_line(lo), hi.map(to_line)));
                    }
                    match len {
                        Some(l) => pos += l,
                        None => break,
                    }
                }
                if out.is_empty() {
                    Sel::Nothing
                } else {
                    Sel::Ranges(out)
                }
            }
            Sel::Nothing => Sel::Nothing,
            _ => Sel::Locate,
        }
    }

    pub(super) fn tail(&self, n: u32) -> Sel {
        match self {
            s if s.is_whole() => Sel::Tail(n),
            Sel::Ranges(r) if r.len() == 1 => match r[0] {
                (s, Some(e)) => Sel::Ranges(vec![(s.max(e.saturating_sub(n) + 1), Some(e))]),
                _ => Sel::Locate,
            },
            Sel::Nothing => Sel::Nothing,
            _ => Sel::Locate,
        }
    }

    /// Lines with a known line count.
    pub(super) fn lines(&self, count: u32) -> Vec<(u32, u32)> {
        match self {
            Sel::Ranges(r) => r
                .iter()
                .filter_map(|&(s, e)| {
                    let e = e.unwrap_or(count).min(count);
                    (s.max(1) <= e).then_some((s.max(1), e))
                })
                .collect(),
            Sel::Tail(n) => {
                if count == 0 || *n == 0 {
                    Vec::new()
                } else {
                    vec![(count.saturating_sub(*n) + 1, count)]
                }
            }
            _ => Vec::new(),
        }
    }

    /// The first `k` positions, when the start is known.
    pub(super) fn first_k(&self, k: u32) -> Vec<(u32, u32)> {
        if k == 0 {
            return Vec::new();
        }
        match self.slice(1, Some(k)) {
            Sel::Ranges(r) => r
                .into_iter()
                .filter_map(|(s, e)| e.map(|e| (s, e)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The requested lines when every range is bounded.
    pub(super) fn requested(&self) -> Vec<(u32, u32)> {
        match self {
            Sel::Ranges(r) if r.iter().all(|(_, e)| e.is_some()) => {
                r.iter().filter_map(|&(s, e)| e.map(|e| (s, e))).collect()
            }
            _ => Vec::new(),
        }
    }
}
