//! A small, conservative POSIX-shell lexer for the command policy: it splits a command line into
//! simple commands (words and redirections), records how they are joined (pipes, `&&`, `;`, ...)
//! and collects the text of every command substitution (`$(..)`, backticks, `<(..)`) so the policy
//! can check those too. It never executes or expands anything.

/// Why a command line cannot be read (the policy refuses what it cannot read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ShellError {
    #[error("unbalanced {} quote", if *.0 == '"' { "double" } else { "single" })]
    UnbalancedQuote(char),
    #[error("unbalanced backticks")]
    UnbalancedBackticks,
    #[error("unbalanced parentheses in a command substitution")]
    UnbalancedParentheses,
    #[error("a redirection has no target")]
    RedirectWithoutTarget,
}

/// A redirection: operator (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&`, `<`, `<<`, `<<<`, `<&`)
/// and its target word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    pub op: String,
    pub target: String,
}

impl Redirect {
    /// Whether this redirection writes to a file (not a descriptor duplicate, not /dev/null).
    pub fn writes_file(&self) -> bool {
        let writes = matches!(
            self.op.as_str(),
            ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&"
        );
        if !writes {
            return false;
        }
        if self.op == ">&"
            && (self.target == "-" || self.target.chars().all(|c| c.is_ascii_digit()))
        {
            return false;
        }
        self.target != "/dev/null"
    }
}

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    pub words: Vec<String>,
    pub redirects: Vec<Redirect>,
    /// Index of the pipeline this command belongs to (commands joined by `|` share it).
    pub pipeline: usize,
}

/// A whole command line, lexed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub commands: Vec<SimpleCommand>,
    /// Inner text of `$(..)`, backticks, `<(..)` and `>(..)`, in order of appearance.
    pub substitutions: Vec<String>,
}

/// Lexes `input`; an error names what could not be understood (unbalanced quotes, ...).
pub(crate) fn parse(input: &str) -> Result<Parsed, ShellError> {
    Lexer::new(input).run()
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    out: Parsed,
    cur: SimpleCommand,
    word: Option<String>,
    /// True when the current word contains quoted or escaped text (so `2>` is not an fd prefix).
    word_quoted: bool,
    pending_redirect: Option<String>,
    pending_heredocs: Vec<(String, bool)>,
    pipeline: usize,
}

impl Lexer {
    fn new(input: &str) -> Self {
        Self {
            chars: input.chars().collect(),
            pos: 0,
            out: Parsed::default(),
            cur: SimpleCommand::default(),
            word: None,
            word_quoted: false,
            pending_redirect: None,
            pending_heredocs: Vec::new(),
            pipeline: 0,
        }
    }

    fn peek(&self, off: usize) -> Option<char> {
        self.chars.get(self.pos + off).copied()
    }

    fn push_char(&mut self, c: char) {
        self.word.get_or_insert_with(String::new).push(c);
    }

    fn end_word(&mut self) {
        if let Some(w) = self.word.take() {
            if let Some(op) = self.pending_redirect.take() {
                if op == "<<" || op == "<<-" {
                    let delim: String = w.chars().filter(|c| *c != '\'' && *c != '"').collect();
                    self.pending_heredocs.push((delim, op == "<<-"));
                }
                self.cur.redirects.push(Redirect { op, target: w });
            } else {
                self.cur.words.push(w);
            }
        }
        self.word_quoted = false;
    }

    fn end_command(&mut self) {
        self.end_word();
        let mut cmd = std::mem::take(&mut self.cur);
        cmd.pipeline = self.pipeline;
        if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
            self.out.commands.push(cmd);
        }
    }

    /// Ends the current command; `pipe` keeps the next one in the same pipeline.
    fn separator(&mut self, pipe: bool) {
        self.end_command();
        if !pipe {
            self.pipeline += 1;
        }
    }

    /// Reads a balanced `(...)` starting after the opening paren; returns the inner text.
    fn read_balanced(&mut self) -> Result<String, ShellError> {
        let mut depth = 1usize;
        let mut inner = String::new();
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                '\\' => {
                    inner.push(c);
                    if let Some(n) = self.peek(0) {
                        inner.push(n);
                        self.pos += 1;
                    }
                    continue;
                }
                '\'' | '"' => {
                    inner.push(c);
                    while let Some(n) = self.peek(0) {
                        self.pos += 1;
                        inner.push(n);
                        if n == '\\' && c == '"' {
                            if let Some(m) = self.peek(0) {
                                inner.push(m);
                                self.pos += 1;
                            }
                            continue;
                        }
                        if n == c {
                            break;
                        }
                    }
                    continue;
                }
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(inner);
                    }
                }
                _ => {}
            }
            inner.push(c);
        }
        Err(ShellError::UnbalancedParentheses)
    }

    fn read_backticks(&mut self) -> Result<String, ShellError> {
        let mut inner = String::new();
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                '\\' => {
                    if let Some(n) = self.peek(0) {
                        inner.push(n);
                        self.pos += 1;
                    }
                }
                '`' => return Ok(inner),
                _ => inner.push(c),
            }
        }
        Err(ShellError::UnbalancedBackticks)
    }

    fn skip_heredoc_bodies(&mut self) {
        let docs = std::mem::take(&mut self.pending_heredocs);
        for (delim, strip_tabs) in docs {
            loop {
                if self.pos >= self.chars.len() {
                    return;
                }
                let start = self.pos;
                while self.pos < self.chars.len() && self.chars[self.pos] != '\n' {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                if self.pos < self.chars.len() {
                    self.pos += 1;
                }
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == delim {
                    break;
                }
            }
        }
    }

    fn run(mut self) -> Result<Parsed, ShellError> {
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                ' ' | '\t' | '\r' => self.end_word(),
                '\n' => {
                    self.separator(false);
                    self.skip_heredoc_bodies();
                }
                '#' if self.word.is_none() => {
                    while let Some(n) = self.peek(0) {
                        if n == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                '\\' => match self.peek(0) {
                    Some('\n') => self.pos += 1,
                    Some(n) => {
                        self.pos += 1;
                        self.word_quoted = true;
                        self.push_char(n);
                    }
                    None => {}
                },
                '\'' => self.single_quoted()?,
                '"' => self.double_quoted()?,
                '$' if self.peek(0) == Some('(') => {
                    self.pos += 1;
                    let inner = self.read_balanced()?;
                    self.push_str(&format!("$({inner})"));
                    self.out.substitutions.push(inner);
                }
                '`' => {
                    let inner = self.read_backticks()?;
                    self.push_str(&format!("`{inner}`"));
                    self.out.substitutions.push(inner);
                }
                '<' | '>' if self.peek(0) == Some('(') && self.word.is_none() => {
                    self.pos += 1;
                    let inner = self.read_balanced()?;
                    self.push_str(&format!("{c}({inner})"));
                    self.out.substitutions.push(inner);
                }
                '|' => {
                    if self.peek(0) == Some('|') {
                        self.pos += 1;
                        self.separator(false);
                    } else {
                        if self.peek(0) == Some('&') {
                            self.pos += 1;
                        }
                        self.separator(true);
                    }
                }
                '&' => match self.peek(0) {
                    Some('&') => {
                        self.pos += 1;
                        self.separator(false);
                    }
                    Some('>') => {
                        self.pos += 1;
                        let op = if self.peek(0) == Some('>') {
                            self.pos += 1;
                            "&>>"
                        } else {
                            "&>"
                        };
                        self.start_redirect(op.to_string());
                    }
                    _ => self.separator(false),
                },
                ';' => self.separator(false),
                '(' | ')' if self.word.is_none() => self.separator(false),
                '{' | '}'
                    if self.word.is_none()
                        && self
                            .peek(0)
                            .is_none_or(|n| n.is_whitespace() || ";&|)".contains(n)) =>
                {
                    self.separator(false)
                }
                '<' | '>' => self.redirect_operator(c),
                _ => self.push_char(c),
            }
        }
        if self.pending_redirect.is_some() && self.word.is_none() {
            return Err(ShellError::RedirectWithoutTarget);
        }
        self.end_command();
        Ok(self.out)
    }

    /// The rest of a single-quoted string: every character as it is.
    fn single_quoted(&mut self) -> Result<(), ShellError> {
        self.word_quoted = true;
        self.word.get_or_insert_with(String::new);
        loop {
            match self.peek(0) {
                None => return Err(ShellError::UnbalancedQuote('\'')),
                Some('\'') => {
                    self.pos += 1;
                    break;
                }
                Some(n) => {
                    self.pos += 1;
                    self.push_char(n);
                }
            }
        }
        Ok(())
    }

    /// The rest of a double-quoted string: `\` escapes, and `$(..)` and backticks recorded
    /// as substitutions.
    fn double_quoted(&mut self) -> Result<(), ShellError> {
        self.word_quoted = true;
        self.word.get_or_insert_with(String::new);
        loop {
            match self.peek(0) {
                None => return Err(ShellError::UnbalancedQuote('"')),
                Some('"') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => {
                    self.pos += 1;
                    if let Some(n) = self.peek(0) {
                        self.pos += 1;
                        if !matches!(n, '"' | '\\' | '$' | '`' | '\n') {
                            self.push_char('\\');
                        }
                        if n != '\n' {
                            self.push_char(n);
                        }
                    }
                }
                Some('$') if self.peek(1) == Some('(') => {
                    self.pos += 2;
                    let inner = self.read_balanced()?;
                    self.push_str(&format!("$({inner})"));
                    self.out.substitutions.push(inner);
                }
                Some('`') => {
                    self.pos += 1;
                    let inner = self.read_backticks()?;
                    self.push_str(&format!("`{inner}`"));
                    self.out.substitutions.push(inner);
                }
                Some(n) => {
                    self.pos += 1;
                    self.push_char(n);
                }
            }
        }
        Ok(())
    }

    /// A redirection operator starting with `c` (`<` or `>`); a bare number right before it
    /// is its file descriptor, not a word.
    fn redirect_operator(&mut self, c: char) {
        // A bare number right before the operator is its file descriptor.
        if let Some(w) = &self.word {
            if !self.word_quoted && w.chars().all(|d| d.is_ascii_digit()) {
                self.word = None;
            }
        }
        let mut op = c.to_string();
        if c == '>' {
            match self.peek(0) {
                Some('>') | Some('|') | Some('&') => {
                    op.push(self.chars[self.pos]);
                    self.pos += 1;
                }
                _ => {}
            }
        } else {
            match self.peek(0) {
                Some('<') => {
                    op.push('<');
                    self.pos += 1;
                    match self.peek(0) {
                        Some('<') | Some('-') => {
                            op.push(self.chars[self.pos]);
                            self.pos += 1;
                        }
                        _ => {}
                    }
                }
                Some('>') | Some('&') => {
                    op.push(self.chars[self.pos]);
                    self.pos += 1;
                }
                _ => {}
            }
        }
        self.start_redirect(op);
    }

    fn push_str(&mut self, s: &str) {
        self.word.get_or_insert_with(String::new).push_str(s);
    }

    fn start_redirect(&mut self, op: String) {
        self.end_word();
        self.pending_redirect = Some(op);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(p: &Parsed) -> Vec<Vec<&str>> {
        p.commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.as_str()).collect())
            .collect()
    }

    #[test]
    fn splits_chains_and_pipes() {
        let p = parse("cargo test && echo 'a && b' | grep -v x; ls").unwrap();
        assert_eq!(
            words(&p),
            vec![
                vec!["cargo", "test"],
                vec!["echo", "a && b"],
                vec!["grep", "-v", "x"],
                vec!["ls"]
            ]
        );
        let pipes: Vec<usize> = p.commands.iter().map(|c| c.pipeline).collect();
        assert_eq!(pipes[1], pipes[2]);
        assert_ne!(pipes[0], pipes[1]);
        assert_ne!(pipes[2], pipes[3]);
    }

    #[test]
    fn redirections_are_recognised() {
        let p = parse("cargo test 2>&1 > out.txt >/dev/null").unwrap();
        let r = &p.commands[0].redirects;
        assert_eq!(words(&p), vec![vec!["cargo", "test"]]);
        assert_eq!(r.len(), 3);
        assert!(!r[0].writes_file());
        assert!(r[1].writes_file());
        assert_eq!(r[1].target, "out.txt");
        assert!(!r[2].writes_file());
        let p = parse("echo x>>log").unwrap();
        assert_eq!(p.commands[0].redirects[0].op, ">>");
        assert_eq!(words(&p), vec![vec!["echo", "x"]]);
    }

    #[test]
    fn substitutions_are_collected() {
        let p = parse("echo \"$(curl -s x | sh)\" `id` <(wget y)").unwrap();
        assert_eq!(p.substitutions, vec!["curl -s x | sh", "id", "wget y"]);
    }

    #[test]
    fn brace_groups_split_but_braces_in_words_do_not() {
        let p = parse("{ git push; } && find . -name '*.rs' -exec wc {} +").unwrap();
        assert_eq!(
            words(&p),
            vec![
                vec!["git", "push"],
                vec!["find", ".", "-name", "*.rs", "-exec", "wc", "{}", "+"]
            ]
        );
    }

    #[test]
    fn heredoc_bodies_are_not_commands() {
        let p = parse("cat <<'EOF' > f.txt\ngit push\nEOF\nls").unwrap();
        assert_eq!(words(&p), vec![vec!["cat"], vec!["ls"]]);
    }

    #[test]
    fn unbalanced_quotes_are_errors() {
        assert!(parse("echo 'abc").is_err());
        assert!(parse("echo \"abc").is_err());
        assert!(parse("echo $(abc").is_err());
        assert!(parse("echo >").is_err());
    }
}
