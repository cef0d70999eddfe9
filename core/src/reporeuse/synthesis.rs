//! RepoReuse's pipeline, step "synthesize": the authoring model's six-block answer for one turn read, checked and rendered into the turn's files.
//!
//! The paper's authoring prompt (section 3.1, Appendix B.1) asks for six blocks: the module
//! name, the goal, the functions, a solution, calls with predicted reprs, and the read
//! targets. Here they are `## MODULE`, `## GOAL` (title line, blank line, context),
//! `## FUNCTIONS` (a JSON list), `## SOLUTION` (a Python block), `## CALLS` (a JSON list of
//! `{"id", "call", "compare", "predicted"}`) and `## READS` (`{"repo": [...], "self":
//! [...]}`), in that order (docs/formats.md, "Synthesis answer").
//!
//! An answer is refused, with every problem named, when a block is missing or malformed,
//! the turn does not require exactly three functions, a call is not one plain call of a
//! required function, the read targets are not the walk's evidence, or the requirement
//! names an evidence symbol (an agent must find the repository's helpers, not be told
//! them). What is not refused here needs the repository or Python: whether the solution
//! references its targets (`dataset verify`'s static check) and what the calls return
//! (executed in the sandbox; the predicted reprs are never used as expected values).
//!
//! Example: the call `detour_route(grid(4, 5), 0, 19, closed_nodes=[6, 12])` becomes the
//! case `{"function": "detour_route", "args": "[grid(4, 5), 0, 19]", "kwargs":
//! "{'closed_nodes': [6, 12]}"}`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::hidden_tests::compare::Compare;
use crate::reporeuse::dataset::{
    ChainManifest, FUNCTIONS_PER_TURN, RequiredFunction, TurnManifest,
};
use crate::syntax::{self, Field, Kind};

/// The blocks of an answer, in order.
const BLOCKS: [&str; 6] = ["MODULE", "GOAL", "FUNCTIONS", "SOLUTION", "CALLS", "READS"];

/// How many calls an answer must propose: execution discards unstable and erroring ones,
/// and a turn keeps at least [`MIN_CASES`].
pub const MIN_CALLS: usize = 10;

/// How many cases a turn keeps at least after execution; fewer and the turn is
/// synthesized again.
pub const MIN_CASES: usize = 8;

/// How many calls an answer may propose.
pub const MAX_CALLS: usize = 40;

/// Repository targets a turn reuses: at least, at most.
pub const REPO_TARGETS: (usize, usize) = (2, 4);

/// Self targets a turn after the first reuses: at least, at most.
pub const SELF_TARGETS: (usize, usize) = (1, 3);

/// A chain as the pipeline starts it (`pipeline/answers/<chain>/chain.json`): its
/// manifest and the repository (PyPI name) it is built on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainSource {
    pub id: String,
    pub title: String,
    pub description: String,
    pub package: String,
    pub repository: String,
}

impl ChainSource {
    /// The chain's `chain.json`, naming its repository when the dataset has several
    /// (`named`), as such a dataset's chains must.
    pub fn manifest(&self, named: bool) -> ChainManifest {
        ChainManifest {
            id: self.id.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            package: self.package.clone(),
            repository: named.then(|| self.repository.clone()),
        }
    }
}

/// One turn's answer, as read from the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub module_path: String,
    pub title: String,
    pub context: String,
    pub functions: Vec<RequiredFunction>,
    /// The reference solution, ending with a newline.
    pub solution: String,
    pub calls: Vec<ProposedCall>,
    pub reads: Reads,
}

/// One proposed test call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposedCall {
    pub id: String,
    /// One call of a required function by its bare name: `f(a, b, key=value)`.
    pub call: String,
    pub compare: Compare,
    /// The repr the model expects; reported when execution disagrees, never an expected
    /// value.
    pub predicted: String,
}

/// The read targets: the repository's symbols and the earlier turns' functions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reads {
    pub repo: Vec<String>,
    #[serde(rename = "self", default)]
    pub own: Vec<String>,
}

/// A call split into the parts of a `cases.json` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitCall {
    pub function: String,
    /// A Python list expression of the positional arguments.
    pub args: String,
    /// A Python dict expression of the keyword arguments, if any.
    pub kwargs: Option<String>,
}

/// What a turn is synthesized in: its chain, number, the earlier turns and the walk's
/// evidence.
#[derive(Clone, Copy, Debug)]
pub struct TurnContext<'a> {
    pub chain: &'a ChainManifest,
    /// 1-based.
    pub turn: usize,
    /// Turns 1..turn-1, in order.
    pub earlier: &'a [TurnManifest],
    /// The repository symbols the walk selected; the answer's `repo` reads must be
    /// exactly these (any order). `None`: not checked (answers read without a walk).
    pub evidence: Option<&'a [String]>,
    /// The pinned repository, named in the requirement.
    pub repository: &'a RepositoryLine,
}

/// The repository as the requirement names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepositoryLine {
    /// The PyPI name (`networkx`).
    pub name: String,
    pub version: String,
    /// The import package (`networkx`).
    pub import: String,
}

/// The files of one synthesized turn, before execution (`expected.json` comes from
/// running the reference in the sandbox).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnFiles {
    pub manifest: TurnManifest,
    pub requirement: String,
    pub reference: String,
    /// `cases.json`: one case per line, in the answer's order.
    pub cases_json: String,
}

/// Reads an answer's six blocks; every problem named when it cannot.
pub fn parse_answer(text: &str) -> Result<Answer, Vec<String>> {
    let mut blocks: Vec<(&str, String)> = Vec::new();
    let mut problems = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("## ")
            && let Some(block) = BLOCKS.iter().find(|b| **b == name.trim_end())
        {
            blocks.push((block, String::new()));
            continue;
        }
        if let Some((_, body)) = blocks.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    let names: Vec<&str> = blocks.iter().map(|(n, _)| *n).collect();
    if names != BLOCKS {
        return Err(vec![format!(
            "the answer's blocks are [{}]; give exactly `## {}`, in that order",
            names.join(", "),
            BLOCKS.join("`, `## ")
        )]);
    }
    let body = |name: &str| {
        blocks
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| b.trim().to_owned())
            .unwrap_or_default()
    };
    let module_path = body("MODULE");
    let goal = body("GOAL");
    let (title, context) = match goal.split_once('\n') {
        Some((title, context)) => (title.trim().to_owned(), context.trim().to_owned()),
        None => (goal.trim().to_owned(), String::new()),
    };
    let mut json = |name: &str| -> Option<String> {
        match fenced(&body(name), "json") {
            Some(text) => Some(text),
            None => {
                problems.push(format!("## {name} must be one ```json fenced block"));
                None
            }
        }
    };
    let functions_text = json("FUNCTIONS");
    let calls_text = json("CALLS");
    let reads_text = json("READS");
    let solution = fenced(&body("SOLUTION"), "python");
    if solution.is_none() {
        problems.push("## SOLUTION must be one ```python fenced block".to_owned());
    }
    let functions: Option<Vec<RequiredFunction>> =
        from_json("FUNCTIONS", functions_text, &mut problems);
    let calls: Option<Vec<ProposedCall>> = from_json("CALLS", calls_text, &mut problems);
    let reads: Option<Reads> = from_json("READS", reads_text, &mut problems);
    if module_path.is_empty() || module_path.contains(char::is_whitespace) {
        problems.push("## MODULE must be one path, `<package>/<name>.py`".to_owned());
    }
    if title.is_empty() {
        problems.push("## GOAL must start with the turn's title".to_owned());
    }
    match (functions, calls, reads, solution) {
        (Some(functions), Some(calls), Some(reads), Some(solution)) if problems.is_empty() => {
            Ok(Answer {
                module_path,
                title,
                context,
                functions,
                solution: format!("{}\n", solution.trim_end()),
                calls,
                reads,
            })
        }
        _ => Err(problems),
    }
}

/// A block's JSON read as `T`; `None` with the problem noted when it is not.
fn from_json<T: serde::de::DeserializeOwned>(
    name: &str,
    text: Option<String>,
    problems: &mut Vec<String>,
) -> Option<T> {
    match serde_json::from_str(&text?) {
        Ok(value) => Some(value),
        Err(e) => {
            problems.push(format!("## {name} is not the JSON asked for: {e}"));
            None
        }
    }
}

/// The text inside one ```lang fence that is the whole block.
fn fenced(block: &str, lang: &str) -> Option<String> {
    let inner = block
        .strip_prefix("```")?
        .strip_prefix(lang)?
        .strip_prefix('\n')?;
    let inner = inner.trim_end().strip_suffix("```")?;
    (!inner.contains("\n```")).then(|| inner.to_owned())
}

/// Splits `f(a, b, key=value)` into its function and argument expressions; an error
/// saying why when the text is not one such call.
pub fn split_call(call: &str) -> Result<SplitCall, String> {
    let tree = syntax::parse(call);
    if tree.has_syntax_errors() {
        return Err("does not parse as Python".to_owned());
    }
    let root = tree.root();
    let statements: Vec<_> = tree
        .children(root)
        .filter(|&c| tree.kind(c) != Kind::Comment)
        .collect();
    let [statement] = statements[..] else {
        return Err("must be exactly one call".to_owned());
    };
    let expression = (tree.kind(statement) == Kind::ExpressionStatement)
        .then(|| tree.children(statement).next())
        .flatten()
        .filter(|&e| tree.kind(e) == Kind::Call)
        .ok_or("must be exactly one call")?;
    let function = tree
        .child(expression, Field::Function)
        .filter(|&f| tree.kind(f) == Kind::Identifier)
        .ok_or("must call a required function by its bare name")?;
    let arguments = tree
        .child(expression, Field::Arguments)
        .filter(|&a| tree.kind(a) == Kind::ArgumentList)
        .ok_or("must pass its arguments in parentheses")?;
    let mut positional = Vec::new();
    let mut keywords = Vec::new();
    for argument in tree.children(arguments) {
        match tree.kind(argument) {
            Kind::Comment => {}
            Kind::KeywordArgument => {
                let name = tree
                    .child(argument, Field::Name)
                    .map(|n| tree.text(n))
                    .unwrap_or_default();
                let value = tree
                    .child(argument, Field::Value)
                    .map(|v| tree.text(v))
                    .unwrap_or_default();
                keywords.push(format!("{name:?}: {value}"));
            }
            Kind::ListSplat | Kind::DictionarySplat => {
                return Err("must not unpack arguments with * or **".to_owned());
            }
            _ => {
                if !keywords.is_empty() {
                    return Err("has a positional argument after a keyword".to_owned());
                }
                positional.push(tree.text(argument).to_owned());
            }
        }
    }
    Ok(SplitCall {
        function: tree.text(function).to_owned(),
        args: format!("[{}]", positional.join(", ")),
        kwargs: (!keywords.is_empty()).then(|| format!("{{{}}}", keywords.join(", "))),
    })
}

/// The evidence symbols `requirement` names: each repository target whose qualified name
/// or last part appears in it as a whole identifier.
pub fn named_evidence(requirement: &str, repo_targets: &[String]) -> Vec<String> {
    repo_targets
        .iter()
        .filter(|target| {
            let last = target.rsplit('.').next().unwrap_or(target);
            contains_identifier(requirement, target) || contains_identifier(requirement, last)
        })
        .cloned()
        .collect()
}

/// `word` occurs in `text` with no identifier character on either side.
fn contains_identifier(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    !word.is_empty()
        && text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
        })
}

/// Every problem of `answer` in `context`, each saying what to change; empty when the
/// turn can be written.
pub fn check_answer(answer: &Answer, context: &TurnContext<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    let package = context.chain.package.trim_end_matches('/');
    let path = &answer.module_path;
    let under = path
        .strip_prefix(package)
        .and_then(|rest| rest.strip_prefix('/'));
    if !under.is_some_and(|name| {
        !name.contains('/') && name.ends_with(".py") && name.len() > 3 && !name.starts_with("__")
    }) {
        problems.push(format!(
            "MODULE {path:?} must be a new module directly under the chain's package, `{package}/<name>.py`"
        ));
    }
    if context.earlier.iter().any(|t| &t.module_path == path) {
        problems.push(format!(
            "MODULE {path:?} is an earlier turn's; each turn writes a new module"
        ));
    }
    let names: Vec<&str> = answer.functions.iter().map(|f| f.name.as_str()).collect();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    if names.len() != FUNCTIONS_PER_TURN || distinct.len() != names.len() {
        problems.push(format!(
            "FUNCTIONS must require exactly {FUNCTIONS_PER_TURN} distinct functions, not [{}]",
            names.join(", ")
        ));
    }
    for f in &answer.functions {
        if !f.signature.starts_with(&format!("{}(", f.name)) {
            problems.push(format!(
                "the signature of {} must start with `{}(`",
                f.name, f.name
            ));
        }
        if f.returns.trim().is_empty() {
            problems.push(format!("{} must say what it returns", f.name));
        }
    }
    check_reads(answer, context, &mut problems);
    check_calls(answer, &names, &mut problems);
    let requirement = render_requirement(
        context.chain,
        context.repository,
        &manifest_of(answer, context),
    );
    for named in named_evidence(&requirement, &answer.reads.repo) {
        problems.push(format!(
            "the requirement names the evidence symbol {named}; describe what to do, not which helper does it"
        ));
    }
    let tree = syntax::parse(&answer.solution);
    if tree.has_syntax_errors() {
        problems.push("SOLUTION does not parse as Python".to_owned());
    }
    problems
}

fn check_reads(answer: &Answer, context: &TurnContext<'_>, problems: &mut Vec<String>) {
    let reads = &answer.reads;
    let (lo, hi) = REPO_TARGETS;
    if !(lo..=hi).contains(&reads.repo.len()) {
        problems.push(format!(
            "READS names {} repository symbols; a turn reuses {lo} to {hi}",
            reads.repo.len()
        ));
    }
    if let Some(evidence) = context.evidence {
        let want: BTreeSet<&String> = evidence.iter().collect();
        let got: BTreeSet<&String> = reads.repo.iter().collect();
        if want != got {
            problems.push(format!(
                "READS repo must be the walk's evidence, [{}]",
                evidence.join(", ")
            ));
        }
    }
    let earlier: BTreeSet<String> = context
        .earlier
        .iter()
        .flat_map(|t| {
            let module = t.module_name();
            t.functions
                .iter()
                .map(move |f| format!("{module}.{}", f.name))
        })
        .collect();
    if context.turn == 1 {
        if !reads.own.is_empty() {
            problems.push("READS self must be empty in turn 1".to_owned());
        }
    } else {
        let (lo, hi) = SELF_TARGETS;
        if !(lo..=hi).contains(&reads.own.len()) {
            problems.push(format!(
                "READS self names {} earlier functions; a turn after the first reuses {lo} to {hi}",
                reads.own.len()
            ));
        }
        for own in &reads.own {
            if !earlier.contains(own) {
                problems.push(format!(
                    "READS self {own} is not a function an earlier turn of the chain required"
                ));
            }
        }
        let used: BTreeSet<&String> = context
            .earlier
            .iter()
            .flat_map(|t| &t.repo_targets)
            .collect();
        if reads.repo.iter().all(|r| used.contains(r)) {
            problems.push(
                "READS repo must hold at least one symbol no earlier turn of the chain reused"
                    .to_owned(),
            );
        }
    }
}

fn check_calls(answer: &Answer, functions: &[&str], problems: &mut Vec<String>) {
    let calls = &answer.calls;
    if !(MIN_CALLS..=MAX_CALLS).contains(&calls.len()) {
        problems.push(format!(
            "CALLS proposes {} calls; give {MIN_CALLS} to {MAX_CALLS}",
            calls.len()
        ));
    }
    let mut ids = BTreeSet::new();
    let mut per_function = vec![0usize; functions.len()];
    for call in calls {
        let id_ok = !call.id.is_empty()
            && call.id.len() <= 80
            && call
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !id_ok {
            problems.push(format!(
                "call id {:?} must be lower_snake_case, at most 80 characters",
                call.id
            ));
        }
        if !ids.insert(call.id.as_str()) {
            problems.push(format!("call id {} is used twice", call.id));
        }
        match split_call(&call.call) {
            Ok(split) => match functions.iter().position(|f| *f == split.function) {
                Some(i) => per_function[i] += 1,
                None => problems.push(format!(
                    "call {} calls {}, which is not a required function",
                    call.id, split.function
                )),
            },
            Err(why) => problems.push(format!("call {} {why}: {}", call.id, call.call)),
        }
    }
    for (f, n) in functions.iter().zip(per_function) {
        if n < 2 {
            problems.push(format!(
                "{f} is called by {n} calls; give each function at least 2"
            ));
        }
    }
}

/// The turn's manifest as the answer gives it.
fn manifest_of(answer: &Answer, context: &TurnContext<'_>) -> TurnManifest {
    let mut read_targets = answer.reads.repo.clone();
    read_targets.extend(answer.reads.own.iter().cloned());
    TurnManifest {
        turn: context.turn,
        title: answer.title.clone(),
        module_path: answer.module_path.clone(),
        context: answer.context.clone(),
        functions: answer.functions.clone(),
        repo_targets: answer.reads.repo.clone(),
        self_targets: answer.reads.own.clone(),
        read_targets,
    }
}

/// The turn's files from an answer [`check_answer`] found no problem in; `None` when a
/// call does not split (check first).
pub fn render_turn(answer: &Answer, context: &TurnContext<'_>) -> Option<TurnFiles> {
    let manifest = manifest_of(answer, context);
    let mut cases = Vec::new();
    for call in &answer.calls {
        let split = split_call(&call.call).ok()?;
        cases.push(crate::hidden_tests::cases::Case {
            id: call.id.clone(),
            function: split.function,
            args: split.args,
            kwargs: split.kwargs,
            compare: call.compare,
        });
    }
    Some(TurnFiles {
        requirement: render_requirement(context.chain, context.repository, &manifest),
        reference: answer.solution.clone(),
        cases_json: cases_json(&cases),
        manifest,
    })
}

/// `cases.json`: one case per line, in order.
pub fn cases_json(cases: &[crate::hidden_tests::cases::Case]) -> String {
    let lines: Vec<String> = cases
        .iter()
        .map(|case| format!(" {}", serde_json::to_string(case).unwrap_or_default()))
        .collect();
    format!("[\n{}\n]\n", lines.join(",\n"))
}

/// A turn's `requirement.md` (the base requirement, memory "none"): the chain's title and
/// the turn's, the repository and the module to write, the context, then each function's
/// signature, what it returns and how it behaves.
pub fn render_requirement(
    chain: &ChainManifest,
    repository: &RepositoryLine,
    turn: &TurnManifest,
) -> String {
    let mut out = format!(
        "# {}, turn {}: {}\n\nThe workspace has {} {} installed (import it as `{}`).\n\
         Write ONE new module at `{}` (create the directories if needed) that defines exactly the\n\
         three functions below. Tests import the module by this path and call the functions.\n\n{}\n\n",
        chain.title,
        turn.turn,
        turn.title,
        repository.name,
        repository.version,
        repository.import,
        turn.module_path,
        turn.context
    );
    for f in &turn.functions {
        out.push_str(&format!(
            "## `{}`\n\nReturns {}.\n\n{}\n\n",
            f.signature, f.returns, f.behaviour
        ));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
