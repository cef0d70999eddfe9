//! A small shell-command splitter: words, quotes, pipelines, lists, redirections and heredocs.
//!
//! It understands what agents type into a bash tool: `;`, `&&`, `||`, `&`, newlines, `|`,
//! single and double quotes, backslashes, line continuations, `$(...)` and backticks kept
//! inside words, comments, redirections (`>`, `>>`, `<`, `2>`, `2>&1`, `&>`, `<<<`) and
//! heredocs (`<<EOF`, `<<'EOF'`, `<<-EOF`). Control structures (`for`, `while`, `if`,
//! `case`, `{ }`, subshells `( )`, functions) are reported as [`ShellError::Control`]. No
//! recursion: nesting is tracked with counters.

/// One word after quote removal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) text: String,
    /// Contains an unquoted glob character (`*`, `?`, `[`).
    pub(crate) glob: bool,
    /// Contains a parameter expansion or command substitution.
    pub(crate) expands: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RedirectOp {
    /// `>`, `>|`, `>>`, `&>`, `&>>`.
    Out,
    /// `<`.
    In,
    /// `>&N`, `<&N`.
    Dup,
    /// `<<`, `<<-`.
    HereDoc,
    /// `<<<`.
    HereString,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// The file descriptor written before the operator; `None` for the default, `Some(u32::MAX)`
    /// for `&>` (stdout and stderr).
    pub(crate) fd: Option<u32>,
    pub(crate) op: RedirectOp,
    pub(crate) target: String,
    /// Heredoc body.
    pub(crate) body: Option<String>,
}

impl Redirect {
    /// Whether this redirect sends stdout (or stdout and stderr) somewhere.
    pub(crate) fn redirects_stdout(&self) -> bool {
        self.op == RedirectOp::Out && matches!(self.fd, None | Some(1) | Some(u32::MAX))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Command {
    pub(crate) words: Vec<Word>,
    pub(crate) redirects: Vec<Redirect>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    pub(crate) commands: Vec<Command>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShellError {
    /// A control structure, subshell or function definition.
    Control,
    /// Unterminated quote or substitution.
    Unterminated,
    /// A redirection without a target, or similar.
    Syntax,
}

#[derive(Debug)]
enum Token {
    Word(Word),
    Op(&'static str),
    Redir { fd: Option<u32>, op: RedirectOp },
    HereDoc { id: usize },
}

const RESERVED: &[&str] = &[
    "for", "while", "until", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
    "select", "function", "{", "}", "[[", "]]", "!", "time", "coproc",
];

/// Splits a command into pipelines (in order; `;`, `&&`, `||`, `&` and newlines all separate).
pub(crate) fn parse(src: &str) -> Result<Vec<Pipeline>, ShellError> {
    let (tokens, bodies) = tokenise(src)?;
    let mut pipelines = Vec::new();
    let mut pipeline = Pipeline::default();
    let mut cmd = Command::default();
    let mut iter = tokens.into_iter().peekable();
    while let Some(tok) = iter.next() {
        match tok {
            Token::Word(w) => {
                if cmd.words.is_empty() && !w.expands && RESERVED.contains(&w.text.as_str()) {
                    // `time` is a keyword too, but harmless: treat it as a prefix word.
                    if w.text != "time" {
                        return Err(ShellError::Control);
                    }
                }
                if cmd.words.is_empty() && w.text.ends_with("()") {
                    return Err(ShellError::Control);
                }
                cmd.words.push(w);
            }
            Token::Redir { fd, op } => {
                let Some(Token::Word(target)) = iter.next() else {
                    return Err(ShellError::Syntax);
                };
                cmd.redirects.push(Redirect {
                    fd,
                    op,
                    target: target.text,
                    body: None,
                });
            }
            Token::HereDoc { id } => {
                let (delim, body) = bodies.get(id).cloned().unwrap_or_default();
                cmd.redirects.push(Redirect {
                    fd: None,
                    op: RedirectOp::HereDoc,
                    target: delim,
                    body: Some(body),
                });
            }
            Token::Op(op) => match op {
                "|" => {
                    if cmd.words.is_empty() && cmd.redirects.is_empty() {
                        return Err(ShellError::Syntax);
                    }
                    pipeline.commands.push(std::mem::take(&mut cmd));
                }
                "(" | ")" | ";;" => return Err(ShellError::Control),
                _ => {
                    if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
                        pipeline.commands.push(std::mem::take(&mut cmd));
                    }
                    if !pipeline.commands.is_empty() {
                        pipelines.push(std::mem::take(&mut pipeline));
                    }
                }
            },
        }
    }
    if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
        pipeline.commands.push(cmd);
    }
    if !pipeline.commands.is_empty() {
        pipelines.push(pipeline);
    }
    Ok(pipelines)
}

type Bodies = Vec<(String, String)>;

fn tokenise(src: &str) -> Result<(Vec<Token>, Bodies), ShellError> {
    let chars: Vec<char> = src.chars().collect();
    let n = chars.len();
    let mut tokens = Vec::new();
    let mut bodies: Bodies = Vec::new();
    // Heredocs whose bodies start after the next newline: (id, delimiter, strip tabs).
    let mut pending: Vec<(usize, String, bool)> = Vec::new();
    let mut word = Word::default();
    let mut in_word = false;
    let mut i = 0usize;
    macro_rules! finish {
        () => {
            if in_word {
                tokens.push(Token::Word(std::mem::take(&mut word)));
                in_word = false;
            }
        };
    }
    while i < n {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\\' if next == Some('\n') => i += 2,
            ' ' | '\t' | '\r' => {
                finish!();
                i += 1;
            }
            '\n' => {
                finish!();
                tokens.push(Token::Op(";"));
                i += 1;
                for (id, delim, strip) in pending.drain(..) {
                    let mut body = String::new();
                    loop {
                        if i >= n {
                            break;
                        }
                        let start = i;
                        while i < n && chars[i] != '\n' {
                            i += 1;
                        }
                        let line: String = chars[start..i].iter().collect();
                        i = (i + 1).min(n.max(i + 1));
                        let cmp = if strip {
                            line.trim_start_matches('\t')
                        } else {
                            line.as_str()
                        };
                        if cmp == delim {
                            break;
                        }
                        body.push_str(if strip { cmp } else { &line });
                        body.push('\n');
                    }
                    if let Some(slot) = bodies.get_mut(id) {
                        slot.1 = body;
                    }
                }
            }
            '#' if !in_word => {
                while i < n && chars[i] != '\n' {
                    i += 1;
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' => {
                // A word of digits right before `<`/`>` is a file descriptor.
                let mut fd = None;
                if (c == '<' || c == '>')
                    && in_word
                    && !word.text.is_empty()
                    && word.text.chars().all(|d| d.is_ascii_digit())
                    && !word.glob
                    && !word.expands
                {
                    fd = word.text.parse::<u32>().ok();
                    word = Word::default();
                    in_word = false;
                }
                finish!();
                let two = next;
                let three = chars.get(i + 2).copied();
                match c {
                    '|' => {
                        if two == Some('|') {
                            tokens.push(Token::Op("||"));
                            i += 2;
                        } else if two == Some('&') {
                            tokens.push(Token::Op("|"));
                            i += 2;
                        } else {
                            tokens.push(Token::Op("|"));
                            i += 1;
                        }
                    }
                    '&' => {
                        if two == Some('&') {
                            tokens.push(Token::Op("&&"));
                            i += 2;
                        } else if two == Some('>') {
                            tokens.push(Token::Redir {
                                fd: Some(u32::MAX),
                                op: RedirectOp::Out,
                            });
                            i += if three == Some('>') { 3 } else { 2 };
                        } else {
                            tokens.push(Token::Op("&"));
                            i += 1;
                        }
                    }
                    ';' => {
                        if two == Some(';') {
                            tokens.push(Token::Op(";;"));
                            i += 2;
                        } else {
                            tokens.push(Token::Op(";"));
                            i += 1;
                        }
                    }
                    '(' => {
                        tokens.push(Token::Op("("));
                        i += 1;
                    }
                    ')' => {
                        tokens.push(Token::Op(")"));
                        i += 1;
                    }
                    '<' => {
                        if two == Some('<') && three == Some('<') {
                            tokens.push(Token::Redir {
                                fd,
                                op: RedirectOp::HereString,
                            });
                            i += 3;
                        } else if two == Some('<') {
                            let strip = three == Some('-');
                            i += if strip { 3 } else { 2 };
                            while i < n && (chars[i] == ' ' || chars[i] == '\t') {
                                i += 1;
                            }
                            let (delim, end) = read_word(&chars, i)?;
                            i = end;
                            if delim.text.is_empty() {
                                return Err(ShellError::Syntax);
                            }
                            let id = bodies.len();
                            bodies.push((delim.text.clone(), String::new()));
                            pending.push((id, delim.text, strip));
                            tokens.push(Token::HereDoc { id });
                        } else if two == Some('&') {
                            tokens.push(Token::Redir {
                                fd,
                                op: RedirectOp::Dup,
                            });
                            i += 2;
                        } else {
                            tokens.push(Token::Redir {
                                fd,
                                op: RedirectOp::In,
                            });
                            i += if two == Some('>') { 2 } else { 1 };
                        }
                    }
                    _ => {
                        // '>'
                        if two == Some('&') {
                            // `>&2`, `2>&1`; `>& file` is rare and treated as a dup too.
                            tokens.push(Token::Redir {
                                fd,
                                op: RedirectOp::Dup,
                            });
                            i += 2;
                        } else {
                            tokens.push(Token::Redir {
                                fd,
                                op: RedirectOp::Out,
                            });
                            i += if two == Some('>') || two == Some('|') {
                                2
                            } else {
                                1
                            };
                        }
                    }
                }
            }
            _ => {
                let (w, end) = read_word(&chars, i)?;
                // read_word stops at the first separator; merge into the current word.
                word.text.push_str(&w.text);
                word.glob |= w.glob;
                word.expands |= w.expands;
                in_word = true;
                i = end;
            }
        }
    }
    if in_word {
        tokens.push(Token::Word(word));
    }
    // Heredocs never terminated by a newline keep an empty body.
    Ok((tokens, bodies))
}

fn is_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\r' | '\n' | '|' | '&' | ';' | '<' | '>' | '(' | ')'
    )
}

/// Reads one word starting at `i` (quotes removed); returns it and the index after it.
fn read_word(chars: &[char], mut i: usize) -> Result<(Word, usize), ShellError> {
    let n = chars.len();
    let mut w = Word::default();
    while i < n {
        let c = chars[i];
        match c {
            c if is_separator(c) => break,
            '\\' => {
                if let Some(&d) = chars.get(i + 1) {
                    if d != '\n' {
                        w.text.push(d);
                    }
                    i += 2;
                } else {
                    i += 1;
                }
            }
            '\'' => {
                i += 1;
                let start = i;
                while i < n && chars[i] != '\'' {
                    i += 1;
                }
                if i >= n {
                    return Err(ShellError::Unterminated);
                }
                w.text.extend(&chars[start..i]);
                i += 1;
            }
            '"' => {
                i += 1;
                loop {
                    let Some(&d) = chars.get(i) else {
                        return Err(ShellError::Unterminated);
                    };
                    match d {
                        '"' => {
                            i += 1;
                            break;
                        }
                        '\\' => {
                            match chars.get(i + 1) {
                                Some(&e) if matches!(e, '"' | '\\' | '$' | '`') => w.text.push(e),
                                Some('\n') => {}
                                Some(&e) => {
                                    w.text.push('\\');
                                    w.text.push(e);
                                }
                                None => return Err(ShellError::Unterminated),
                            }
                            i += 2;
                        }
                        '$' if chars.get(i + 1) == Some(&'(') => {
                            w.expands = true;
                            i = read_substitution(chars, i, &mut w.text)?;
                        }
                        '$' | '`' => {
                            w.expands = true;
                            if d == '`' {
                                i = read_backticks(chars, i, &mut w.text)?;
                            } else {
                                w.text.push(d);
                                i += 1;
                            }
                        }
                        _ => {
                            w.text.push(d);
                            i += 1;
                        }
                    }
                }
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                w.expands = true;
                i = read_substitution(chars, i, &mut w.text)?;
            }
            '$' if chars.get(i + 1) == Some(&'\'') => {
                // ANSI-C quoting: keep the text, decode nothing.
                i += 2;
                let start = i;
                while i < n && chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                if i >= n {
                    return Err(ShellError::Unterminated);
                }
                w.text.extend(&chars[start..i]);
                i += 1;
            }
            '$' => {
                w.expands = true;
                w.text.push(c);
                i += 1;
            }
            '`' => {
                w.expands = true;
                i = read_backticks(chars, i, &mut w.text)?;
            }
            '*' | '?' | '[' => {
                w.glob = true;
                w.text.push(c);
                i += 1;
            }
            _ => {
                w.text.push(c);
                i += 1;
            }
        }
    }
    Ok((w, i))
}

/// Copies `$( ... )` (balanced, quotes respected approximately) into `out`.
fn read_substitution(chars: &[char], start: usize, out: &mut String) -> Result<usize, ShellError> {
    let mut depth = 0usize;
    let mut i = start;
    let mut quote: Option<char> = None;
    while let Some(&c) = chars.get(i) {
        out.push(c);
        i += 1;
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    Err(ShellError::Unterminated)
}

fn read_backticks(chars: &[char], start: usize, out: &mut String) -> Result<usize, ShellError> {
    let mut i = start + 1;
    out.push('`');
    while let Some(&c) = chars.get(i) {
        out.push(c);
        i += 1;
        if c == '`' {
            return Ok(i);
        }
    }
    Err(ShellError::Unterminated)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(p: &Pipeline) -> Vec<Vec<String>> {
        p.commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_lists_pipelines_and_quotes() {
        let ps = parse("cd pkg && nl -ba 'a b.py' | sed -n \"10,20p\"; ls\ngrep -n x f").unwrap();
        assert_eq!(ps.len(), 4);
        assert_eq!(words(&ps[0]), vec![vec!["cd", "pkg"]]);
        assert_eq!(
            words(&ps[1]),
            vec![vec!["nl", "-ba", "a b.py"], vec!["sed", "-n", "10,20p"]]
        );
        assert_eq!(words(&ps[3]), vec![vec!["grep", "-n", "x", "f"]]);
    }

    #[test]
    fn reads_heredocs_and_redirections() {
        let ps = parse("cat <<'EOF' > f.py\nx = 1 | 2\nEOF\npython f.py 2>&1 >/dev/null").unwrap();
        assert_eq!(ps.len(), 2);
        let c = &ps[0].commands[0];
        assert_eq!(c.redirects.len(), 2);
        assert_eq!(c.redirects[0].body.as_deref(), Some("x = 1 | 2\n"));
        assert_eq!(c.redirects[1].target, "f.py");
        let r = &ps[1].commands[0].redirects;
        assert_eq!(r[0].op, RedirectOp::Dup);
        assert_eq!(
            (r[1].op, r[1].target.as_str()),
            (RedirectOp::Out, "/dev/null")
        );
    }

    #[test]
    fn control_structures_and_bad_quotes_are_errors() {
        assert_eq!(
            parse("for f in *.py; do cat $f; done"),
            Err(ShellError::Control)
        );
        assert_eq!(parse("(cd x && ls)"), Err(ShellError::Control));
        assert_eq!(parse("echo 'oops"), Err(ShellError::Unterminated));
        assert!(parse("echo $(ls (x)) `pwd`").is_ok());
    }
}
