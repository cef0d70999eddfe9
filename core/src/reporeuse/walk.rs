//! RepoReuse's pipeline, step 2 "walk": a model-guided walk over the callable map, hop by hop, that chooses the repository symbols (the evidence) one turn is built on.
//!
//! The paper (section 3.1, Appendix B.1) does not let the authoring model pick a turn's
//! repository targets from memory: it walks the repository's call graph from a starting
//! symbol, and at each hop the model sees the symbol in focus (its evidence pack: name,
//! signature, docstring line, source, callers and callees) and a numbered menu of its
//! neighbours, and answers with one JSON object: open a menu entry, keep the focus as
//! evidence, or finish with a goal. What it keeps (2 to 4 symbols) is the evidence the
//! next step, [`crate::reporeuse::synthesis`], must build the turn around. So the targets
//! are real, connected and read in the source, not guessed.
//!
//! Where a walk starts:
//! - turn 1: the given start symbol, else a candidate of the map (an internal callable
//!   that public code calls) drawn by the seed;
//! - turn 2 on: the previous turn's first repository target (the previous turn's
//!   artefact; a given start overrides it), and one nearby repository symbol no earlier
//!   turn used is injected: the evidence must hold it, and it stays on the menu until it
//!   is kept. It is drawn by the seed among the callables at call-graph distance 1 from
//!   the previous turn's targets (callees and callers), else distance 2, else in the same
//!   modules, candidates first within each ring.
//!
//! A draw is reproducible everywhere: the index is the first 8 bytes (little-endian) of
//! SHA-256 of `"<what>\n<seed>\n<chain id>\n<turn>"` (`what` is `start` or `inject`),
//! modulo the number of choices, which are sorted by qualified name.
//!
//! The walk is pure: the model is a function from a prompt to an answer. An answer that
//! breaks the protocol is refused with the reason; the model is asked once more with the
//! reason appended, then the walk fails. The record ([`WalkRecord`]) keeps every answer, so
//! [`replay`] walks again without a model and says the record is stale when the map or the
//! earlier turns changed under it (docs/formats.md, "Walk").
//!
//! Example (the fixture repository of `callable_map`'s tests):
//!
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::python::index::IndexOptions;
//! use wheelwright_core::reporeuse::callable_map::CallableMap;
//! use wheelwright_core::reporeuse::dataset::ChainManifest;
//! use wheelwright_core::reporeuse::walk::{WalkError, WalkInput, walk};
//!
//! let files = BTreeMap::from([(
//!     "pkg/__init__.py".to_owned(),
//!     "def _norm(x):\n    return x / 2\n\ndef _twice(x):\n    return 2 * _norm(x)\n\ndef area(x):\n    return _twice(x) ** 2\n".to_owned(),
//! )]);
//! let map = CallableMap::build(files.iter().map(|(p, t)| (p.as_str(), t.as_str())), &IndexOptions::default());
//! let chain = ChainManifest {
//!     id: "c".into(), title: "Areas".into(), description: "Sizes of things.".into(),
//!     package: "solutions/areas".into(), repository: None,
//! };
//! let input = WalkInput { map: &map, files: &files, chain: &chain, turn: 1, earlier: &[],
//!                         seed: 0, start: Some("pkg._twice") };
//! let mut answers = [
//!     r#"{"action": "keep"}"#,
//!     r#"{"action": "open", "symbol": "pkg._norm"}"#,
//!     r#"{"action": "keep"}"#,
//!     r#"{"action": "done", "goal": "Scale sizes before squaring them."}"#,
//! ].into_iter();
//! let record = walk(&input, "scripted", None, |_prompt| {
//!     Ok::<_, WalkError>(answers.next().unwrap().to_owned())
//! }).unwrap();
//! assert_eq!(record.evidence, ["pkg._twice", "pkg._norm"]);
//! assert_eq!(record.hops[0].menu, ["pkg._norm", "pkg.area"]);
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::reporeuse::callable_map::{Callable, CallableMap};
use crate::reporeuse::dataset::{ChainManifest, TurnManifest};
use crate::reporeuse::synthesis::REPO_TARGETS;
use crate::template::{Prompt, fill};
use crate::workspace::why_removed;

/// The prompt template's id and version (`prompts/walk-1.md`).
pub const WALK_TEMPLATE: &str = "reporeuse-walk-1";

/// The hop prompt, then (after the marker line) what a refused answer's second ask adds.
const TEMPLATE: &str = include_str!("prompts/walk-1.md");
const REFUSED_MARKER: &str = "<!-- refused -->\n";

/// The version of the walk record's JSON format (docs/formats.md, "Walk").
pub const WALK_FORMAT: u32 = 1;

/// The most prompts a walk answers (a refused answer's second ask is the same hop).
pub const MAX_HOPS: usize = 8;

/// The most entries a menu offers.
pub const MENU_SIZE: usize = 12;

/// The most lines of the focus's source an evidence pack shows.
pub const SOURCE_LINES: usize = 120;

/// The most callers or callees an evidence pack names.
const NEIGHBOURS_SHOWN: usize = 20;

/// What a walk is over.
#[derive(Clone, Copy, Debug)]
pub struct WalkInput<'a> {
    pub map: &'a CallableMap,
    /// The repository's files (path, text), to cut each symbol's source by its lines.
    pub files: &'a BTreeMap<String, String>,
    pub chain: &'a ChainManifest,
    /// 1-based.
    pub turn: usize,
    /// Turns 1..turn-1, in order: their `repo_targets` are the symbols already used.
    pub earlier: &'a [TurnManifest],
    pub seed: u64,
    /// The symbol the walk starts at; `None`: drawn (turn 1) or the previous turn's first
    /// repository target (turn 2 on).
    pub start: Option<&'a str>,
}

/// A walk: where it started, every hop with the model's raw answers, and what it chose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalkRecord {
    /// [`WALK_FORMAT`].
    pub format: u32,
    /// [`WALK_TEMPLATE`] when it was walked.
    pub template: String,
    /// The model command's name (its first word, not its arguments).
    pub model: String,
    /// The chain's id.
    pub chain: String,
    pub turn: usize,
    pub seed: u64,
    /// The first focus.
    pub start: String,
    /// The symbol injected from turn 2 on (the evidence holds it); `None` on turn 1.
    pub injected: Option<String>,
    pub hops: Vec<Hop>,
    /// The kept symbols' qualified names, in the order kept (2 to 4).
    pub evidence: Vec<String>,
    /// What the turn's functions could do with the evidence, in one sentence.
    pub goal: String,
}

/// One prompt of the walk and its answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hop {
    /// The symbol in focus.
    pub focus: String,
    /// The menu's entries, in the numbered order shown.
    pub menu: Vec<String>,
    /// A first answer that was refused, and why (the model was asked again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<Refused>,
    /// The accepted answer, as the model wrote it.
    pub answer: String,
}

/// An answer refused by the protocol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Refused {
    pub answer: String,
    pub reason: String,
}

/// Why a walk cannot start or finish.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// The inputs do not allow a walk (the message says what to give instead).
    #[error("{0}")]
    Input(String),
    #[error("the model's answer at hop {hop} was refused twice; the second time because {reason}")]
    Refused { hop: usize, reason: String },
    #[error(
        "the walk did not finish within {MAX_HOPS} hops (evidence kept: [{kept}]); ask a model that keeps 2 to 4 symbols and answers done"
    )]
    TooLong { kept: String },
    #[error(
        "the walk record is stale: {why}; the map, the earlier turns or the inputs changed since it was walked, so remove it and walk again with --model"
    )]
    Stale { why: String },
}

/// One answer of the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
    Open(String),
    Keep,
    Done(String),
}

/// Walks the map for `input`'s turn, asking `ask` at each hop; with `recorded`, its answers
/// are replayed instead and `ask` is never called (`model` is then the record's).
pub fn walk<E: From<WalkError>>(
    input: &WalkInput<'_>,
    model: &str,
    recorded: Option<&WalkRecord>,
    mut ask: impl FnMut(&Prompt) -> Result<String, E>,
) -> Result<WalkRecord, E> {
    let mut walker = Walker::new(input)?;
    if let Some(r) = recorded {
        walker.check_header(r)?;
    }
    let (prompt_template, refused_template) = TEMPLATE
        .split_once(REFUSED_MARKER)
        .expect("the walk template has its refused part");
    let mut hops = Vec::new();
    for hop in 1..=MAX_HOPS {
        let menu = walker.menu();
        let menu_names: Vec<String> = menu.iter().map(|c| c.qualified_name.clone()).collect();
        let recorded_hop = match recorded {
            Some(r) => Some(recorded_hop(r, hop, &walker.focus, &menu_names)?),
            None => None,
        };
        let prompt = Prompt {
            template: WALK_TEMPLATE,
            text: walker.prompt(prompt_template, hop, &menu),
        };
        let first = match recorded_hop {
            Some(h) => h.refused.as_ref().map_or(&h.answer, |r| &r.answer).clone(),
            None => ask(&prompt)?,
        };
        let (answer, action, refused) = match walker.judge(&first, &menu_names) {
            Ok(action) => {
                if recorded_hop.is_some_and(|h| h.refused.is_some()) {
                    return Err(stale(format!(
                        "its refused answer at hop {hop} is now accepted"
                    )));
                }
                (first, action, None)
            }
            Err(reason) => {
                if recorded_hop.is_some_and(|h| h.refused.is_none()) {
                    return Err(stale(format!(
                        "its answer at hop {hop} is now refused: {reason}"
                    )));
                }
                let again = Prompt {
                    template: WALK_TEMPLATE,
                    text: format!(
                        "{}{}",
                        prompt.text,
                        fill(refused_template, &[("answer", &first), ("reason", &reason)])
                    ),
                };
                let second = match recorded_hop {
                    Some(h) => h.answer.clone(),
                    None => ask(&again)?,
                };
                match walker.judge(&second, &menu_names) {
                    Ok(action) => (
                        second,
                        action,
                        Some(Refused {
                            answer: first,
                            reason,
                        }),
                    ),
                    Err(reason) if recorded_hop.is_some() => {
                        return Err(stale(format!(
                            "its answer at hop {hop} is now refused: {reason}"
                        )));
                    }
                    Err(reason) => return Err(WalkError::Refused { hop, reason }.into()),
                }
            }
        };
        hops.push(Hop {
            focus: walker.focus.clone(),
            menu: menu_names,
            refused,
            answer,
        });
        match action {
            Action::Open(symbol) => walker.focus = symbol,
            Action::Keep => walker.evidence.push(walker.focus.clone()),
            Action::Done(goal) => {
                if let Some(r) = recorded
                    && r.hops.len() != hops.len()
                {
                    return Err(stale(format!(
                        "it has {} hops, the walk now finishes after {}",
                        r.hops.len(),
                        hops.len()
                    )));
                }
                return Ok(WalkRecord {
                    format: WALK_FORMAT,
                    template: WALK_TEMPLATE.to_owned(),
                    model: recorded.map_or(model, |r| r.model.as_str()).to_owned(),
                    chain: input.chain.id.clone(),
                    turn: input.turn,
                    seed: input.seed,
                    start: walker.start.clone(),
                    injected: walker.injected.clone(),
                    hops,
                    evidence: walker.evidence,
                    goal,
                });
            }
        }
    }
    Err(WalkError::TooLong {
        kept: walker.evidence.join(", "),
    }
    .into())
}

/// `record` walked again from its answers, without a model: the same record, or an error
/// saying it is stale.
pub fn replay(input: &WalkInput<'_>, record: &WalkRecord) -> Result<WalkRecord, WalkError> {
    walk(input, &record.model, Some(record), |_| {
        Err(WalkError::Stale {
            why: "a replay asked the model".to_owned(),
        })
    })
}

/// Hop `hop` (1-based) of `record`, which must show the `focus` and `menu` the walk shows
/// now.
fn recorded_hop<'r>(
    record: &'r WalkRecord,
    hop: usize,
    focus: &str,
    menu: &[String],
) -> Result<&'r Hop, WalkError> {
    let Some(h) = record.hops.get(hop - 1) else {
        return Err(WalkError::Stale {
            why: format!(
                "it ends after hop {} before the walk finished",
                record.hops.len()
            ),
        });
    };
    if h.focus != focus || h.menu != menu {
        return Err(WalkError::Stale {
            why: format!(
                "at hop {hop} it shows the focus `{}` and {} menu entries, the walk now `{focus}` and {}",
                h.focus,
                h.menu.len(),
                menu.len()
            ),
        });
    }
    Ok(h)
}

fn stale<E: From<WalkError>>(why: String) -> E {
    WalkError::Stale { why }.into()
}

/// The walk in progress.
struct Walker<'a> {
    input: &'a WalkInput<'a>,
    /// Who calls each callable (the map keeps callees only), sorted.
    callers: HashMap<&'a str, Vec<&'a str>>,
    /// Each symbol an earlier turn reused, with the first turn that did.
    used: BTreeMap<&'a str, usize>,
    start: String,
    injected: Option<String>,
    focus: String,
    evidence: Vec<String>,
}

impl<'a> Walker<'a> {
    fn new(input: &'a WalkInput<'a>) -> Result<Self, WalkError> {
        let map = input.map;
        let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
        for c in &map.callables {
            for callee in &c.callees {
                callers
                    .entry(callee.as_str())
                    .or_default()
                    .push(&c.qualified_name);
            }
        }
        // Sorted already: the map lists callables by name.
        let mut used = BTreeMap::new();
        for t in input.earlier {
            for target in &t.repo_targets {
                used.entry(target.as_str()).or_insert(t.turn);
            }
        }
        let mut walker = Walker {
            input,
            callers,
            used,
            start: String::new(),
            injected: None,
            focus: String::new(),
            evidence: Vec::new(),
        };
        walker.start = walker.choose_start()?;
        walker.focus = walker.start.clone();
        Ok(walker)
    }

    /// The first focus and, from turn 2 on, the injected symbol.
    fn choose_start(&mut self) -> Result<String, WalkError> {
        let input = self.input;
        if input.turn == 0 {
            return Err(WalkError::Input(
                "turns count from 1; give --turn 1 or more".into(),
            ));
        }
        let turns: Vec<usize> = input.earlier.iter().map(|t| t.turn).collect();
        if turns != (1..input.turn).collect::<Vec<_>>() {
            let needed = match input.turn - 1 {
                1 => "turn 1".to_owned(),
                last => format!("turns 1 to {last}"),
            };
            return Err(WalkError::Input(format!(
                "walking turn {} needs the turn.json of {needed}, in order, but the earlier turns given are {turns:?}; give each earlier turn's manifest",
                input.turn
            )));
        }
        let given = match input.start {
            Some(start) => match input.map.get(start) {
                Some(c) if eligible(c) => Some(start.to_owned()),
                _ => {
                    return Err(WalkError::Input(format!(
                        "the start symbol `{start}` is not a callable of the map outside test files (nor a local function); give a qualified name the map lists"
                    )));
                }
            },
            None => None,
        };
        let Some(previous) = input.earlier.last() else {
            if let Some(start) = given {
                return Ok(start);
            }
            let candidates: Vec<&Callable> = input
                .map
                .callables
                .iter()
                .filter(|c| c.candidate && eligible(c))
                .collect();
            if candidates.is_empty() {
                return Err(WalkError::Input(
                    "the map has no candidate (an internal callable public code calls) to start from; give --start SYMBOL".into(),
                ));
            }
            let i = draw(input, "start", candidates.len());
            return Ok(candidates[i].qualified_name.clone());
        };
        let targets: Vec<&str> = previous
            .repo_targets
            .iter()
            .map(String::as_str)
            .filter(|t| input.map.get(t).is_some())
            .collect();
        let Some(first) = targets.first() else {
            return Err(WalkError::Input(format!(
                "none of turn {}'s repository targets {:?} is in the map; give the map of the repository the chain is built on",
                previous.turn, previous.repo_targets
            )));
        };
        self.injected = Some(self.inject(&targets)?);
        Ok(given.unwrap_or_else(|| (*first).to_owned()))
    }

    /// One unused symbol near `targets`, drawn by the seed (see the module's documentation).
    fn inject(&self, targets: &[&str]) -> Result<String, WalkError> {
        let map = self.input.map;
        // Distances over the undirected call graph, from every target at once.
        let mut distance: BTreeMap<&str, usize> = targets.iter().map(|t| (*t, 0)).collect();
        let mut frontier: Vec<&str> = targets.to_vec();
        for d in 1..=2 {
            let mut next = Vec::new();
            for name in frontier {
                for n in self.neighbours(name) {
                    if !distance.contains_key(n) {
                        distance.insert(n, d);
                        next.push(n);
                    }
                }
            }
            frontier = next;
        }
        let paths: BTreeSet<&str> = targets
            .iter()
            .filter_map(|t| map.get(t))
            .map(|c| c.path.as_str())
            .collect();
        let open = |c: &&Callable| {
            eligible(c)
                && !self.used.contains_key(c.qualified_name.as_str())
                && !targets.contains(&c.qualified_name.as_str())
        };
        let rings: [Vec<&Callable>; 3] = [
            ring(map, |c| distance.get(c.qualified_name.as_str()) == Some(&1)),
            ring(map, |c| distance.get(c.qualified_name.as_str()) == Some(&2)),
            ring(map, |c| paths.contains(c.path.as_str())),
        ];
        for ring in rings {
            let open: Vec<&Callable> = ring.into_iter().filter(open).collect();
            let candidates: Vec<&Callable> = open.iter().copied().filter(|c| c.candidate).collect();
            let choices = if candidates.is_empty() {
                open
            } else {
                candidates
            };
            if !choices.is_empty() {
                let i = draw(self.input, "inject", choices.len());
                return Ok(choices[i].qualified_name.clone());
            }
        }
        Err(WalkError::Input(format!(
            "no callable within call-graph distance 2 of turn {}'s repository targets, nor in their modules, is left unused by the earlier turns; start a new chain",
            self.input.turn - 1
        )))
    }

    /// Callees then callers of `name`.
    fn neighbours(&self, name: &str) -> impl Iterator<Item = &'a str> + use<'a, '_> {
        let callees = self
            .input
            .map
            .get(name)
            .into_iter()
            .flat_map(|c| c.callees.iter().map(String::as_str));
        let callers = self.callers.get(name).into_iter().flatten().copied();
        callees.chain(callers)
    }

    /// Checks that `record` is a walk of these inputs.
    fn check_header(&self, record: &WalkRecord) -> Result<(), WalkError> {
        let input = self.input;
        let why = if record.format != WALK_FORMAT {
            format!("its format is {}, not {WALK_FORMAT}", record.format)
        } else if record.template != WALK_TEMPLATE {
            format!(
                "it was walked with the template {}, not {WALK_TEMPLATE}",
                record.template
            )
        } else if record.chain != input.chain.id || record.turn != input.turn {
            format!(
                "it is the walk of chain {} turn {}, not of chain {} turn {}",
                record.chain, record.turn, input.chain.id, input.turn
            )
        } else if record.seed != input.seed {
            format!(
                "it was walked with seed {}, not {}",
                record.seed, input.seed
            )
        } else if record.start != self.start || record.injected != self.injected {
            format!(
                "it starts at `{}` (injected: {:?}), the walk now at `{}` (injected: {:?})",
                record.start, record.injected, self.start, self.injected
            )
        } else {
            return Ok(());
        };
        Err(WalkError::Stale { why })
    }

    /// The focus's menu: the injected symbol until kept, then callees, callers and
    /// same-module siblings (candidates first, then by line), at most [`MENU_SIZE`].
    fn menu(&self) -> Vec<&'a Callable> {
        let map = self.input.map;
        let Some(focus) = map.get(&self.focus) else {
            return Vec::new();
        };
        let mut names: Vec<&str> = Vec::new();
        if let Some(injected) = &self.injected
            && !self.evidence.contains(injected)
        {
            names.push(injected);
        }
        names.extend(focus.callees.iter().map(String::as_str));
        names.extend(
            self.callers
                .get(focus.qualified_name.as_str())
                .into_iter()
                .flatten()
                .copied(),
        );
        let mut siblings: Vec<&Callable> = map
            .callables
            .iter()
            .filter(|c| c.path == focus.path)
            .collect();
        siblings.sort_by_key(|c| (!c.candidate, c.start_line, c.qualified_name.as_str()));
        names.extend(siblings.iter().map(|c| c.qualified_name.as_str()));
        let mut seen = BTreeSet::from([focus.qualified_name.as_str()]);
        let mut menu = Vec::new();
        for name in names {
            if menu.len() == MENU_SIZE {
                break;
            }
            if let Some(c) = map.get(name)
                && eligible(c)
                && seen.insert(c.qualified_name.as_str())
            {
                menu.push(c);
            }
        }
        menu
    }

    /// The hop's prompt.
    fn prompt(&self, template: &str, hop: usize, menu: &[&Callable]) -> String {
        let input = self.input;
        let earlier = if input.earlier.is_empty() {
            String::new()
        } else {
            let mut text =
                String::from("\nThe earlier turns (this turn may call their functions too):\n\n");
            for t in input.earlier {
                text.push_str(&format!("- Turn {}: {}. Functions:", t.turn, t.title));
                for f in &t.functions {
                    text.push_str(&format!(" `{}`", f.signature));
                }
                text.push_str(&format!(
                    "; repository symbols reused: {}.\n",
                    t.repo_targets
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            text
        };
        let evidence = if self.evidence.is_empty() {
            "(none yet)".to_owned()
        } else {
            self.evidence
                .iter()
                .map(|e| format!("- `{e}`"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let injected = match &self.injected {
            Some(i) => format!(
                "\nThis turn must also reuse `{i}`, a repository symbol near turn {}'s that no earlier turn used: it stays first on the menu until you keep it.\n",
                input.turn - 1
            ),
            None => String::new(),
        };
        let menu_text = if menu.is_empty() {
            "(empty: keep the focus or answer done)".to_owned()
        } else {
            menu.iter()
                .enumerate()
                .map(|(i, c)| format!("{}. {}", i + 1, self.entry(c)))
                .collect::<Vec<_>>()
                .join("\n")
        };
        fill(
            template,
            &[
                ("chain_title", &input.chain.title),
                ("chain_description", &input.chain.description),
                ("turn", &input.turn.to_string()),
                ("earlier", &earlier),
                ("evidence", &evidence),
                ("injected", &injected),
                ("pack", &self.pack()),
                ("menu", &menu_text),
                ("hop", &hop.to_string()),
                ("max_hops", &MAX_HOPS.to_string()),
                ("min_evidence", &REPO_TARGETS.0.to_string()),
                ("max_evidence", &REPO_TARGETS.1.to_string()),
            ],
        )
    }

    /// A menu line: name, one-line signature, doc line, and what the walk knows of it.
    fn entry(&self, c: &Callable) -> String {
        let mut line = format!("`{}`: `{}`", c.qualified_name, one_line(&c.signature));
        if let Some(doc) = &c.doc {
            line.push_str(&format!(" ({doc})"));
        }
        line.push_str(&self.marks(&c.qualified_name));
        line
    }

    /// ` [kept]`, ` [must keep]`, ` [reused by turn t]`, as they apply.
    fn marks(&self, name: &str) -> String {
        let mut marks = String::new();
        if self.evidence.iter().any(|e| e == name) {
            marks.push_str(" [kept]");
        } else if self.injected.as_deref() == Some(name) {
            marks.push_str(" [must keep]");
        }
        if let Some(t) = self.used.get(name) {
            marks.push_str(&format!(" [reused by turn {t}]"));
        }
        marks
    }

    /// The focus's evidence pack.
    fn pack(&self) -> String {
        let Some(c) = self.input.map.get(&self.focus) else {
            return format!("`{}` (not in the map)", self.focus);
        };
        let mut text = format!(
            "`{}`{} in `{}`, lines {} to {}\n\n",
            c.qualified_name,
            self.marks(&c.qualified_name),
            c.path,
            c.start_line,
            c.end_line
        );
        text.push_str(&format!(
            "Docstring: {}\n\n",
            c.doc.as_deref().unwrap_or("(none)")
        ));
        text.push_str("```python\n");
        text.push_str(&self.source(c));
        text.push_str("```\n\n");
        let callers: Vec<&str> = self
            .callers
            .get(c.qualified_name.as_str())
            .map_or(&[][..], Vec::as_slice)
            .to_vec();
        let callees: Vec<&str> = c.callees.iter().map(String::as_str).collect();
        text.push_str(&format!("Called by: {}\n", names_line(&callers)));
        text.push_str(&format!("Calls: {}", names_line(&callees)));
        text
    }

    /// The callable's lines of its file, at most [`SOURCE_LINES`], each ending in a newline.
    fn source(&self, c: &Callable) -> String {
        let Some(file) = self.input.files.get(&c.path) else {
            return format!("# (the repository's files hold no {})\n", c.path);
        };
        let first = (c.start_line as usize).saturating_sub(1);
        let count = (c.end_line as usize + 1).saturating_sub(c.start_line as usize);
        let mut text = String::new();
        for line in file.lines().skip(first).take(count.min(SOURCE_LINES)) {
            text.push_str(line);
            text.push('\n');
        }
        if count > SOURCE_LINES {
            text.push_str(&format!("# ... {} more lines\n", count - SOURCE_LINES));
        }
        text
    }

    /// The action `answer` asks for, or why it is refused.
    fn judge(&self, answer: &str, menu: &[String]) -> Result<Action, String> {
        let action = parse_action(answer)?;
        let (min, max) = REPO_TARGETS;
        let missing = self
            .injected
            .as_ref()
            .filter(|i| !self.evidence.contains(i));
        match &action {
            Action::Open(symbol) if !menu.contains(symbol) => Err(format!(
                "`{symbol}` is not on the menu; open one of its entries by its qualified name"
            )),
            Action::Open(_) => Ok(action),
            Action::Keep if self.evidence.len() >= max => Err(format!(
                "the evidence already holds {max} symbols, the most a turn reuses; answer done"
            )),
            Action::Keep if self.evidence.contains(&self.focus) => Err(format!(
                "`{}` is already kept; open another symbol from the menu",
                self.focus
            )),
            Action::Keep
                if self.evidence.len() + 1 == max
                    && missing.is_some_and(|i| *i != self.focus) =>
            {
                let i = missing.map_or("", String::as_str);
                Err(format!(
                    "keeping `{}` would fill the evidence ({max} symbols) without `{i}`, which this turn must reuse; open `{i}` from the menu and keep it",
                    self.focus
                ))
            }
            Action::Keep => Ok(action),
            Action::Done(_) if self.evidence.len() < min => Err(format!(
                "done after keeping {} of the at least {min} symbols a turn reuses; keep more first",
                self.evidence.len()
            )),
            Action::Done(_) if missing.is_some() => Err(format!(
                "the evidence lacks `{}`, which this turn must reuse; open it from the menu and keep it before done",
                missing.map_or("", String::as_str)
            )),
            Action::Done(goal) if goal.trim().is_empty() => Err(
                "done needs a \"goal\": one sentence saying what the turn's functions could do with the evidence".to_owned(),
            ),
            Action::Done(goal) => Ok(Action::Done(goal.trim().to_owned())),
        }
    }
}

/// An answer read as one protocol object (a ```json fence around it is allowed).
fn parse_action(answer: &str) -> Result<Action, String> {
    let text = answer.trim();
    let text = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.trim_end().strip_suffix("```"))
        .unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| {
        format!("the answer is not one JSON object ({e}); answer with an object such as {{\"action\": \"keep\"}}")
    })?;
    let Some(object) = value.as_object() else {
        return Err("the answer is JSON but not an object; answer with an object such as {\"action\": \"keep\"}".to_owned());
    };
    let action = object.get("action").and_then(Value::as_str);
    let (allowed, parsed): (&[&str], _) = match action {
        Some("open") => (
            &["action", "symbol"],
            object
                .get("symbol")
                .and_then(Value::as_str)
                .map(|s| Action::Open(s.trim().to_owned()))
                .ok_or("\"open\" needs a \"symbol\": a menu entry's qualified name"),
        ),
        Some("keep") => (&["action"], Ok(Action::Keep)),
        Some("done") => (
            &["action", "goal"],
            object
                .get("goal")
                .and_then(Value::as_str)
                .map(|g| Action::Done(g.to_owned()))
                .ok_or("done needs a \"goal\": one sentence saying what the turn's functions could do with the evidence"),
        ),
        _ => {
            return Err(format!(
                "the answer's \"action\" is {}; it must be \"open\", \"keep\" or \"done\"",
                object.get("action").map_or("missing".to_owned(), Value::to_string)
            ));
        }
    };
    if let Some(key) = object.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "the answer has the key \"{key}\", which \"{}\" does not take",
            action.unwrap_or_default()
        ));
    }
    parsed.map_err(str::to_owned)
}

/// Callables of `map` outside test files and not local to a function: what a turn can
/// import and reuse.
fn eligible(c: &Callable) -> bool {
    !c.qualified_name.contains("<locals>") && why_removed(&c.path).is_none()
}

/// The map's callables `pick` selects, in the map's (name) order.
fn ring(map: &CallableMap, pick: impl Fn(&Callable) -> bool) -> Vec<&Callable> {
    map.callables.iter().filter(|c| pick(c)).collect()
}

/// The seeded draw of an index below `n` (`n > 0`), documented in the module's docs.
fn draw(input: &WalkInput<'_>, what: &str, n: usize) -> usize {
    let key = format!("{what}\n{}\n{}\n{}", input.seed, input.chain.id, input.turn);
    let digest = Sha256::digest(key.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    (u64::from_le_bytes(bytes) % n as u64) as usize
}

/// A header written over several lines, on one.
fn one_line(signature: &str) -> String {
    signature.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Names as a list for the evidence pack, at most [`NEIGHBOURS_SHOWN`].
fn names_line(names: &[&str]) -> String {
    if names.is_empty() {
        return "(nothing in the repository)".to_owned();
    }
    let mut shown: Vec<String> = names
        .iter()
        .take(NEIGHBOURS_SHOWN)
        .map(|n| format!("`{n}`"))
        .collect();
    if names.len() > NEIGHBOURS_SHOWN {
        shown.push(format!("and {} more", names.len() - NEIGHBOURS_SHOWN));
    }
    shown.join(", ")
}
