//! The only door to tree-sitter: parses Python into core's own arena syntax tree.
//!
//! Everything else in core works on [`SyntaxTree`], never on tree-sitter types, so the grammar
//! can change version (or be replaced) in one place. The conversion walks tree-sitter's tree
//! with a cursor and an explicit stack, and the arena is walked with parent/sibling links,
//! so deeply nested input cannot overflow the call stack anywhere.
//!
//! Only named nodes are kept: anonymous tokens (`(`, `def`, `,`) carry no facts the analyses
//! need, and dropping them halves the arena.
//!
//! What one file may cost is bounded: tree-sitter is stopped past
//! [`crate::budget::MAX_PARSE_STEPS`], and the conversion past
//! [`crate::budget::MAX_FILE_NODES`]. A file over the budget is not analysed at all: its
//! tree is the empty module, with a diagnostic saying why ([`SyntaxTree::over_budget`]).
//! Both steps also stop soon after the host raises its [`Cancel`].

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::OnceLock;

use serde::Serialize;

use crate::budget::{self, Cancel, Cancelled};

/// The grammar that produced every tree; recorded in results so numbers can be traced.
/// A test checks it against `Cargo.lock`.
pub const GRAMMAR_VERSION: &str = "tree-sitter-python 0.25.0";

/// Index of a node in its [`SyntaxTree`].
pub type NodeId = u32;

/// The link of a node that has no parent, child or next sibling. Links are plain `u32`s
/// rather than `Option<u32>` (8 bytes each): a node is 32 bytes, not 44.
const NONE: NodeId = NodeId::MAX;

fn link(id: NodeId) -> Option<NodeId> {
    (id != NONE).then_some(id)
}

/// Where a node sits in the source: byte offsets (half-open) and 1-based inclusive lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start_line: u32,
    pub end_line: u32,
}

/// A problem found while parsing; the tree is still usable around it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Diagnostic {
    /// 1-based line of the problem.
    pub line: u32,
    pub message: String,
}

macro_rules! name_enum {
    ($(#[$meta:meta])* $enum:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($variant,)*
            /// A grammar name the analyses do not look at.
            Other,
        }

        impl $enum {
            fn from_grammar(name: &str) -> Self {
                match name {
                    $($name => Self::$variant,)*
                    _ => Self::Other,
                }
            }

            /// The grammar's own name for this variant.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                    Self::Other => "other",
                }
            }
        }
    };
}

name_enum! {
    /// The kinds of Python syntax the analyses distinguish.
    Kind {
        Module = "module",
        FunctionDefinition = "function_definition",
        ClassDefinition = "class_definition",
        DecoratedDefinition = "decorated_definition",
        Decorator = "decorator",
        Block = "block",
        Parameters = "parameters",
        LambdaParameters = "lambda_parameters",
        DefaultParameter = "default_parameter",
        TypedParameter = "typed_parameter",
        TypedDefaultParameter = "typed_default_parameter",
        ListSplatPattern = "list_splat_pattern",
        DictionarySplatPattern = "dictionary_splat_pattern",
        Identifier = "identifier",
        Attribute = "attribute",
        Call = "call",
        ArgumentList = "argument_list",
        KeywordArgument = "keyword_argument",
        ImportStatement = "import_statement",
        ImportFromStatement = "import_from_statement",
        FutureImportStatement = "future_import_statement",
        AliasedImport = "aliased_import",
        DottedName = "dotted_name",
        RelativeImport = "relative_import",
        ImportPrefix = "import_prefix",
        WildcardImport = "wildcard_import",
        ExpressionStatement = "expression_statement",
        Assignment = "assignment",
        AugmentedAssignment = "augmented_assignment",
        NamedExpression = "named_expression",
        Lambda = "lambda",
        ListComprehension = "list_comprehension",
        SetComprehension = "set_comprehension",
        DictionaryComprehension = "dictionary_comprehension",
        GeneratorExpression = "generator_expression",
        ForInClause = "for_in_clause",
        GlobalStatement = "global_statement",
        NonlocalStatement = "nonlocal_statement",
        String = "string",
        ConcatenatedString = "concatenated_string",
        Interpolation = "interpolation",
        Comment = "comment",
        ForStatement = "for_statement",
        WithStatement = "with_statement",
        WithItem = "with_item",
        AsPattern = "as_pattern",
        AsPatternTarget = "as_pattern_target",
        ExceptClause = "except_clause",
        IfStatement = "if_statement",
        WhileStatement = "while_statement",
        MatchStatement = "match_statement",
        ElseClause = "else_clause",
        ListSplat = "list_splat",
        DictionarySplat = "dictionary_splat",
        KeywordSeparator = "keyword_separator",
        PositionalSeparator = "positional_separator",
        DeleteStatement = "delete_statement",
        PatternList = "pattern_list",
        TuplePattern = "tuple_pattern",
        ListPattern = "list_pattern",
        Tuple = "tuple",
        List = "list",
        Subscript = "subscript",
        Type = "type",
        ParenthesizedExpression = "parenthesized_expression",
        CasePattern = "case_pattern",
        TypeAliasStatement = "type_alias_statement",
        Error = "ERROR",
        ClassPattern = "class_pattern",
        KeywordPattern = "keyword_pattern",
        AssertStatement = "assert_statement",
        ReturnStatement = "return_statement",
        NotOperator = "not_operator",
        ComparisonOperator = "comparison_operator",
        Integer = "integer",
        Float = "float",
        StringStart = "string_start",
        StringContent = "string_content",
        EscapeSequence = "escape_sequence",
    }
}

name_enum! {
    /// The grammar's field names: the role a node plays in its parent.
    Field {
        Name = "name",
        Body = "body",
        Parameters = "parameters",
        ReturnType = "return_type",
        Function = "function",
        Arguments = "arguments",
        Object = "object",
        Attribute = "attribute",
        Left = "left",
        Right = "right",
        Type = "type",
        Value = "value",
        ModuleName = "module_name",
        Alias = "alias",
        Superclasses = "superclasses",
        Definition = "definition",
        Subscript = "subscript",
        Alternative = "alternative",
        Condition = "condition",
        Consequence = "consequence",
        Subject = "subject",
        Operator = "operator",
        Argument = "argument",
        TypeParameters = "type_parameters",
    }
}

/// One named node of the tree. Links are arena indices so walks need no recursion.
#[derive(Clone, Debug)]
pub struct Node {
    pub kind: Kind,
    /// The field this node fills in its parent, if any.
    pub field: Option<Field>,
    pub span: Span,
    parent: NodeId,
    first_child: NodeId,
    next_sibling: NodeId,
}

/// A parsed Python file in core's own types, borrowing the source it was parsed from.
///
/// Nodes are stored in pre-order: a node's parent always has a smaller id than the node,
/// so one pass over the ids in order sees every parent before its children.
#[derive(Debug)]
pub struct SyntaxTree<'s> {
    source: &'s str,
    nodes: Vec<Node>,
    diagnostics: Vec<Diagnostic>,
    /// The 1-based column (in bytes) of each diagnostic, for tools that point at it; kept
    /// beside them so the wire form of a [`Diagnostic`] stays its line.
    columns: Vec<u32>,
    syntax_errors: bool,
    over_budget: bool,
}

struct Tables {
    kinds: Vec<Kind>,
    fields: Vec<Option<Field>>,
}

fn language() -> tree_sitter::Language {
    tree_sitter_python::LANGUAGE.into()
}

/// Kind and field lookups by grammar id, built once: a `match` on strings per node would
/// dominate parsing time on large repositories.
fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let language = language();
        let kinds = (0..language.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| language.node_kind_for_id(id))
                    .map_or(Kind::Other, Kind::from_grammar)
            })
            .collect();
        let fields = (0..=language.field_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| language.field_name_for_id(id))
                    .map(Field::from_grammar)
            })
            .collect();
        Tables { kinds, fields }
    })
}

fn to_u32(value: usize) -> u32 {
    // Sources above 4 GiB are rejected long before parsing; saturate rather than wrap.
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// Parses Python source. Never fails: a file with syntax errors yields the tree that
/// tree-sitter recovered, and [`SyntaxTree::diagnostics`] says where the errors are; a file
/// over the budget yields the empty module (see the module documentation).
pub fn parse(source: &str) -> SyntaxTree<'_> {
    match parse_with(source, &Cancel::never()) {
        Ok(tree) => tree,
        Err(Cancelled) => unreachable!("a Cancel::never() is never raised"),
    }
}

/// [`parse`] that stops with [`Cancelled`] soon after `cancel` is raised: tree-sitter is
/// asked every hundred of its steps, the conversion every few thousand nodes.
pub fn parse_with<'s>(source: &'s str, cancel: &Cancel) -> Result<SyntaxTree<'s>, Cancelled> {
    parse_within(source, cancel, ParseBudget::BUDGET)
}

/// Parses `source` with tree-sitter and walks the tree once with a cursor, counting its
/// nodes (named or not), and nothing else: the floor any tree-sitter based scorer pays for
/// a file, which the paper-scale benchmark compares scoring with
/// (`core/examples/parse_floor.rs`). Within the same per-file budget as [`parse`]; 0 for a
/// file over it (or when the parser cannot run).
pub fn parse_floor(source: &str) -> usize {
    let Parsed::Tree(tree) = parse_tree(source, &Cancel::never(), ParseBudget::BUDGET) else {
        return 0;
    };
    let mut cursor = tree.walk();
    let mut nodes = 1;
    loop {
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            nodes += 1;
            continue;
        }
        // Up until a parent has a next sibling; done at the root.
        loop {
            if !cursor.goto_parent() {
                return nodes;
            }
            if cursor.goto_next_sibling() {
                nodes += 1;
                break;
            }
        }
    }
}

/// A run of source that tree-sitter-python's own highlights query names: byte offsets
/// (half-open) and the query's capture name (`keyword`, `string`, `function.builtin`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Highlight {
    pub start: u32,
    pub end: u32,
    pub class: &'static str,
}

/// The highlights query, compiled once.
fn highlights_query() -> Option<&'static tree_sitter::Query> {
    static QUERY: OnceLock<Option<tree_sitter::Query>> = OnceLock::new();
    QUERY
        .get_or_init(|| {
            tree_sitter::Query::new(&language(), tree_sitter_python::HIGHLIGHTS_QUERY).ok()
        })
        .as_ref()
}

/// Most query matches tree-sitter keeps in progress at once while highlighting a file: it
/// bounds the cursor's memory (the grammar's own query needs far fewer).
const HIGHLIGHT_MATCHES: u32 = 64;

/// How `source` is highlighted, as tree-sitter-python's own query
/// (`queries/highlights.scm`) says: runs in source order, never overlapping. Where two
/// captures cover the same node the later pattern wins (the query lists `(identifier)
/// @variable` before its special cases), and a node inside another (an escape in a string)
/// takes its own class over its parent's. Example: `x = len(y)` has `len` as
/// `function.builtin`. Never fails: a file over the parse budget, or one the query cannot
/// run on, has no highlights.
pub fn highlights(source: &str) -> Vec<Highlight> {
    use tree_sitter::StreamingIterator;
    let (Some(query), Parsed::Tree(tree)) = (
        highlights_query(),
        parse_tree(source, &Cancel::never(), ParseBudget::BUDGET),
    ) else {
        return Vec::new();
    };
    let names = query.capture_names();
    // (start, end, pattern, capture): the last pattern of a node wins.
    let mut found: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut cursor = tree_sitter::QueryCursor::new();
    cursor.set_match_limit(HIGHLIGHT_MATCHES);
    let mut captures = cursor.captures(query, tree.root_node(), source.as_bytes());
    while let Some((found_match, index)) = captures.next() {
        let Some(capture) = found_match.captures().get(*index) else {
            continue;
        };
        let node = capture.node;
        found.push((
            node.start_byte(),
            node.end_byte(),
            found_match.pattern_index,
            capture.index as usize,
        ));
    }
    // Outer runs first, so inner ones paint over them; for one node, patterns in order.
    found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    // One byte per source byte: the capture's index plus one (0: not highlighted). The
    // grammar's query has a few dozen capture names, far below 255.
    let mut painted = vec![0u8; source.len()];
    for (start, end, _, index) in found {
        if let (Some(bytes), Ok(paint)) = (painted.get_mut(start..end), u8::try_from(index + 1)) {
            bytes.fill(paint);
        }
    }
    let mut runs: Vec<Highlight> = Vec::new();
    for (at, paint) in painted.into_iter().enumerate() {
        let Some(class) = usize::from(paint).checked_sub(1).and_then(|i| names.get(i)) else {
            continue;
        };
        match runs.last_mut() {
            Some(last) if last.end as usize == at && last.class == *class => last.end += 1,
            _ => runs.push(Highlight {
                start: to_u32(at),
                end: to_u32(at + 1),
                class,
            }),
        }
    }
    runs
}

/// The budget of one parse (a type of its own so tests can use small ones).
#[derive(Clone, Copy, Debug)]
struct ParseBudget {
    /// Progress calls of tree-sitter (one per hundred steps).
    progress: usize,
    /// Nodes converted.
    nodes: usize,
}

impl ParseBudget {
    const BUDGET: ParseBudget = ParseBudget {
        progress: budget::MAX_PARSE_STEPS / 100,
        nodes: budget::MAX_FILE_NODES,
    };
}

fn parse_within<'s>(
    source: &'s str,
    cancel: &Cancel,
    limits: ParseBudget,
) -> Result<SyntaxTree<'s>, Cancelled> {
    cancel.check()?;
    match parse_tree(source, cancel, limits) {
        Parsed::Tree(tree) => convert(source, &tree, cancel, limits),
        Parsed::Cancelled => Err(Cancelled),
        Parsed::OverBudget => Ok(empty(source, budget_diagnostic(), false, true)),
        Parsed::Failed => Ok(empty(
            source,
            Diagnostic {
                line: 1,
                message: "the Python parser could not run on this input".to_owned(),
            },
            true,
            false,
        )),
    }
}

/// The module without children, with one diagnostic (a file that was not analysed).
fn empty(
    source: &str,
    diagnostic: Diagnostic,
    syntax_errors: bool,
    over_budget: bool,
) -> SyntaxTree<'_> {
    SyntaxTree {
        source,
        nodes: vec![Node {
            kind: Kind::Module,
            field: None,
            span: Span {
                start_byte: 0,
                end_byte: to_u32(source.len()),
                start_line: 1,
                end_line: 1,
            },
            parent: NONE,
            first_child: NONE,
            next_sibling: NONE,
        }],
        diagnostics: vec![diagnostic],
        columns: vec![1],
        syntax_errors,
        over_budget,
    }
}

fn budget_diagnostic() -> Diagnostic {
    Diagnostic {
        line: 1,
        message: format!(
            "the file is too large to analyse (parsing it takes more than {} steps, the limit per file), so nothing in it was analysed; split it into smaller modules",
            budget::MAX_PARSE_STEPS
        ),
    }
}

thread_local! {
    /// One parser per thread, reused: scoring parses thousands of small files, and a new
    /// parser (its stack, lexer and language set-up) for each cost as much as a short parse.
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

fn new_parser() -> Option<tree_sitter::Parser> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language()).ok()?;
    Some(parser)
}

enum Parsed {
    Tree(tree_sitter::Tree),
    Cancelled,
    OverBudget,
    /// No tree for another reason (a grammar/runtime version mismatch).
    Failed,
}

fn parse_tree(source: &str, cancel: &Cancel, limits: ParseBudget) -> Parsed {
    PARSER.with(|cell| {
        // Parsing never re-enters itself; should the parser be in use anyway, use another.
        match cell.try_borrow_mut() {
            Ok(mut slot) => {
                if slot.is_none() {
                    *slot = new_parser();
                }
                match slot.as_mut() {
                    Some(parser) => run_parser(parser, source, cancel, limits),
                    None => Parsed::Failed,
                }
            }
            Err(_) => match new_parser() {
                Some(mut parser) => run_parser(&mut parser, source, cancel, limits),
                None => Parsed::Failed,
            },
        }
    })
}

/// Runs tree-sitter with a progress callback that stops it when `cancel` is raised or its
/// work passes the budget (tree-sitter calls back every 100 steps).
fn run_parser(
    parser: &mut tree_sitter::Parser,
    source: &str,
    cancel: &Cancel,
    limits: ParseBudget,
) -> Parsed {
    let bytes = source.as_bytes();
    let mut progress = 0usize;
    let mut over = false;
    let mut callback = |_: &tree_sitter::ParseState| {
        progress += 1;
        over = progress > limits.progress;
        if over || cancel.is_cancelled() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut callback);
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        None,
        Some(options),
    );
    match tree {
        Some(tree) => Parsed::Tree(tree),
        None => {
            // A parse that did not finish would otherwise be resumed by the next one.
            parser.reset();
            if cancel.is_cancelled() {
                Parsed::Cancelled
            } else if over {
                Parsed::OverBudget
            } else {
                Parsed::Failed
            }
        }
    }
}

/// Nodes converted between two looks at the cancel flag.
const CANCEL_EVERY: usize = 4096;

fn convert<'s>(
    source: &'s str,
    tree: &tree_sitter::Tree,
    cancel: &Cancel,
    limits: ParseBudget,
) -> Result<SyntaxTree<'s>, Cancelled> {
    let tables = tables();
    let mut nodes: Vec<Node> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut columns = Vec::new();
    let mut syntax_errors = false;
    // The kept nodes whose children are being visited, each with its last kept child so
    // far (for sibling links); and for each cursor depth whether entering it pushed one.
    // Both are as deep as the tree, not as large: O(1) per node.
    let mut open: Vec<(NodeId, NodeId)> = Vec::new();
    let mut entered: Vec<bool> = Vec::new();
    let mut cursor = tree.walk();
    let mut visited = 0usize;
    loop {
        visited += 1;
        if visited.is_multiple_of(CANCEL_EVERY) {
            cancel.check()?;
        }
        if visited > limits.nodes {
            return Ok(empty(source, budget_diagnostic(), false, true));
        }
        let node = cursor.node();
        if node.is_missing() {
            syntax_errors = true;
            diagnostics.push(Diagnostic {
                line: to_u32(node.start_position().row + 1),
                message: format!("missing `{}`", node.kind()),
            });
            columns.push(to_u32(node.start_position().column + 1));
        } else if node.is_error() {
            syntax_errors = true;
            diagnostics.push(Diagnostic {
                line: to_u32(node.start_position().row + 1),
                message: "syntax error".to_owned(),
            });
            columns.push(to_u32(node.start_position().column + 1));
        }
        let kept = node.is_named() && !node.is_missing();
        let id = to_u32(nodes.len());
        if kept {
            let field = cursor
                .field_id()
                .and_then(|f| tables.fields.get(usize::from(f.get())).copied().flatten());
            nodes.push(Node {
                kind: tables
                    .kinds
                    .get(usize::from(node.kind_id()))
                    .copied()
                    .unwrap_or(Kind::Other),
                field,
                span: Span {
                    start_byte: to_u32(node.start_byte()),
                    end_byte: to_u32(node.end_byte()),
                    start_line: to_u32(node.start_position().row + 1),
                    end_line: to_u32(node.end_position().row + 1),
                },
                parent: open.last().map_or(NONE, |&(p, _)| p),
                first_child: NONE,
                next_sibling: NONE,
            });
            if let Some((parent, last)) = open.last_mut() {
                match *last {
                    NONE => nodes[*parent as usize].first_child = id,
                    previous => nodes[previous as usize].next_sibling = id,
                }
                *last = id;
            }
        }
        if cursor.goto_first_child() {
            if kept {
                open.push((id, NONE));
            }
            entered.push(kept);
            continue;
        }
        // Leaf: move to the next sibling, climbing as needed.
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(SyntaxTree {
                    source,
                    nodes,
                    diagnostics,
                    columns,
                    syntax_errors,
                    over_budget: false,
                });
            }
            if entered.pop() == Some(true) {
                open.pop();
            }
        }
    }
}

impl<'s> SyntaxTree<'s> {
    /// The source this tree was parsed from.
    pub fn source(&self) -> &'s str {
        self.source
    }

    /// The module node; always present.
    pub fn root(&self) -> NodeId {
        0
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    pub fn kind(&self, id: NodeId) -> Kind {
        self.node(id).kind
    }

    /// The source text of a node.
    pub fn text(&self, id: NodeId) -> &'s str {
        let span = self.node(id).span;
        self.source
            .get(span.start_byte as usize..span.end_byte as usize)
            .unwrap_or("")
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        link(self.node(id).parent)
    }

    /// The named children of a node, in source order.
    pub fn children(&self, id: NodeId) -> Children<'_, 's> {
        Children {
            tree: self,
            next: link(self.node(id).first_child),
        }
    }

    /// The first child filling `field`.
    pub fn child(&self, id: NodeId, field: Field) -> Option<NodeId> {
        self.children(id)
            .find(|&c| self.node(c).field == Some(field))
    }

    /// All nodes of the subtree rooted at `id` (itself first), in source order.
    pub fn descendants(&self, id: NodeId) -> Walk<'_, 's> {
        Walk {
            tree: self,
            root: id,
            next: Some(id),
        }
    }

    /// Whether the parser had to recover from errors anywhere in the file.
    pub fn has_syntax_errors(&self) -> bool {
        self.syntax_errors
    }

    /// Whether the file was over the per-file budget ([`crate::budget::MAX_PARSE_STEPS`],
    /// [`crate::budget::MAX_FILE_NODES`]) and so not analysed (its tree is the empty module; a diagnostic says so).
    pub fn over_budget(&self) -> bool {
        self.over_budget
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Each diagnostic with its 1-based column in bytes (`x = (1,` gives `missing ")"`
    /// where the parenthesis is missing).
    pub(crate) fn diagnostics_at(&self) -> impl Iterator<Item = (&Diagnostic, u32)> {
        self.diagnostics
            .iter()
            .zip(self.columns.iter().copied().chain(std::iter::repeat(1)))
    }
}

/// Iterator over a node's named children.
pub struct Children<'t, 's> {
    tree: &'t SyntaxTree<'s>,
    next: Option<NodeId>,
}

impl Iterator for Children<'_, '_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = link(self.tree.node(id).next_sibling);
        Some(id)
    }
}

/// Pre-order walk of a subtree that can skip the children of the node it just returned.
pub struct Walk<'t, 's> {
    tree: &'t SyntaxTree<'s>,
    root: NodeId,
    next: Option<NodeId>,
}

impl Walk<'_, '_> {
    /// Do not descend into the node most recently returned.
    pub fn skip_children(&mut self, of: NodeId) {
        self.next = self.after(of);
    }

    /// The next node in pre-order that is not inside `id`, staying within the root.
    fn after(&self, mut id: NodeId) -> Option<NodeId> {
        loop {
            if id == self.root {
                return None;
            }
            let node = self.tree.node(id);
            if let Some(sibling) = link(node.next_sibling) {
                return Some(sibling);
            }
            id = link(node.parent)?;
        }
    }
}

impl Iterator for Walk<'_, '_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = match link(self.tree.node(id).first_child) {
            Some(child) => Some(child),
            None => self.after(id),
        };
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(tree: &SyntaxTree<'_>) -> Vec<&'static str> {
        tree.descendants(tree.root())
            .map(|id| tree.kind(id).as_str())
            .collect()
    }

    #[test]
    fn the_parse_floor_counts_every_node_once() {
        // module > expression_statement > assignment > identifier, "=", integer.
        assert_eq!(parse_floor("x = 1\n"), 6);
        assert_eq!(parse_floor(""), 1);
        // Deep nesting is walked without recursion.
        let deep = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
        assert!(parse_floor(&deep) > 10_000);
    }

    #[test]
    fn keeps_named_nodes_in_source_order_with_fields() {
        let tree = parse("def f(x):\n    return g(x)\n");
        assert_eq!(
            kinds(&tree),
            [
                "module",
                "function_definition",
                "identifier",
                "parameters",
                "identifier",
                "block",
                "return_statement",
                "call",
                "identifier",
                "argument_list",
                "identifier",
            ]
        );
        let def = tree.children(tree.root()).next().unwrap();
        let name = tree.child(def, Field::Name).unwrap();
        assert_eq!(tree.text(name), "f");
        assert_eq!(tree.node(def).span.start_line, 1);
        assert_eq!(tree.node(def).span.end_line, 2);
        assert!(!tree.has_syntax_errors());
    }

    #[test]
    fn recovers_from_syntax_errors_and_reports_them() {
        let tree = parse("def ok():\n    pass\n\ndef broken(:\n    pass\n");
        assert!(tree.has_syntax_errors());
        assert!(tree.diagnostics().iter().any(|d| d.line == 4));
        let defs = tree
            .descendants(tree.root())
            .filter(|&id| tree.kind(id) == Kind::FunctionDefinition)
            .count();
        assert!(defs >= 1);
    }

    #[test]
    fn deeply_nested_input_does_not_overflow_the_stack() {
        // As deep as the budget lets a file be (test threads have small stacks).
        let depth = 20_000;
        let source = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
        let tree = parse(&source);
        assert!(!tree.over_budget());
        assert_eq!(tree.descendants(tree.root()).count(), depth + 5);
    }

    #[test]
    fn a_parse_past_its_steps_is_stopped_and_flagged() {
        let source = "a=1;".repeat(2_000);
        let tight = ParseBudget {
            progress: 10,
            nodes: usize::MAX,
        };
        let tree = parse_within(&source, &Cancel::never(), tight).unwrap();
        assert!(tree.over_budget() && tree.is_empty() && !tree.has_syntax_errors());
        assert!(
            tree.diagnostics()[0]
                .message
                .contains("too large to analyse")
        );
        // The same parser parses the next file from the start.
        let next = parse("def f():\n    pass\n");
        assert!(!next.over_budget());
        assert_eq!(kinds(&next)[1], "function_definition");
    }

    #[test]
    fn a_conversion_past_its_nodes_is_stopped_and_flagged() {
        let source = "a=1;".repeat(2_000);
        let limits = |nodes| ParseBudget {
            progress: usize::MAX,
            nodes,
        };
        let tree = parse_within(&source, &Cancel::never(), limits(1_000)).unwrap();
        assert!(tree.over_budget() && tree.is_empty());
        // 2,000 statements of six nodes, and the module: exactly at its limit it is whole.
        let tree = parse_within(&source, &Cancel::never(), limits(12_001)).unwrap();
        assert!(!tree.over_budget());
        assert_eq!(
            tree.len(),
            8_001,
            "module, 2,000 x (statement, assignment, name, value)"
        );
        assert!(
            parse_within(&source, &Cancel::never(), limits(12_000))
                .unwrap()
                .over_budget()
        );
    }

    #[test]
    fn cancelling_stops_tree_sitter_and_the_conversion() {
        let source = "a=1;".repeat(2_000);
        let cancel = Cancel::new();
        cancel.cancel();
        // Inside tree-sitter: its progress callback sees the flag.
        assert!(matches!(
            parse_tree(&source, &cancel, ParseBudget::BUDGET),
            Parsed::Cancelled
        ));
        // Inside the conversion of a finished tree.
        let Parsed::Tree(tree) = parse_tree(&source, &Cancel::never(), ParseBudget::BUDGET) else {
            panic!("the source parses");
        };
        assert_eq!(
            convert(&source, &tree, &cancel, ParseBudget::BUDGET).unwrap_err(),
            Cancelled
        );
    }

    /// The classes of `source`'s highlighted runs, as (text, class).
    fn classes(source: &str) -> Vec<(&str, &'static str)> {
        highlights(source)
            .into_iter()
            .map(|h| (&source[h.start as usize..h.end as usize], h.class))
            .collect()
    }

    #[test]
    fn highlights_follow_the_grammars_own_query() {
        assert_eq!(
            classes("def f(x):\n    return len(x)  # n\n"),
            [
                ("def", "keyword"),
                ("f", "function"),
                ("x", "variable"),
                ("return", "keyword"),
                ("len", "function.builtin"),
                ("x", "variable"),
                ("# n", "comment"),
            ]
        );
        // An escape inside a string keeps its own class; the string's quotes stay strings.
        assert_eq!(
            classes("s = 'a\\nb'\n"),
            [
                ("s", "variable"),
                ("=", "operator"),
                ("'a", "string"),
                ("\\n", "escape"),
                ("b'", "string"),
            ]
        );
        // The later pattern wins: a capitalised name is a constructor, an upper-case one a
        // constant, and a call of either a function.
        assert_eq!(
            classes("G = Graph\nGraph()\n"),
            [
                ("G", "constant"),
                ("=", "operator"),
                ("Graph", "constructor"),
                ("Graph", "function"),
            ]
        );
        // Broken code is highlighted around the error; nothing is no highlight.
        assert!(classes("def (:\n").iter().any(|(_, c)| *c == "keyword"));
        assert!(highlights("").is_empty());
    }

    #[test]
    fn empty_source_is_a_module_without_children() {
        let tree = parse("");
        assert!(tree.is_empty());
        assert_eq!(tree.kind(tree.root()), Kind::Module);
        assert!(!tree.has_syntax_errors());
    }

    #[test]
    fn grammar_version_matches_the_lock_file() {
        let lock = include_str!("../../Cargo.lock");
        let version = lock
            .split("[[package]]")
            .find(|p| p.contains("name = \"tree-sitter-python\""))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
            .map(|v| v.trim_matches('"'))
            .expect("tree-sitter-python in Cargo.lock");
        assert_eq!(GRAMMAR_VERSION, format!("tree-sitter-python {version}"));
    }
}
