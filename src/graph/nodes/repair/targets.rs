//! Which statements line attempts offer (`super::lines`): the statements at the traceback's
//! frames in the project's code, outermost first; the other statements of the definitions the
//! attempts are shown (the frames' functions from the frame's line outward; those the failure
//! only named from their returns outward, where a wrong value left them); then where the
//! attributes they read are set, with the signature whose parameter such a statement takes.
//! Each statement whole (brackets spanning lines), with the lines before it that make it
//! unique in its file.

use crate::graph::prompt::code_view::{self, Traceback};

/// The most lines one statement may span to be offered whole.
pub const MAX_STATEMENT_LINES: usize = 8;

/// The most frames' statements offered.
pub const MAX_TARGETS: usize = 4;

/// The most other statements of the shown definitions offered after the frames'.
pub const MAX_SWEEP: usize = 20;

/// The most statements one definition gives to the sweep.
pub const MAX_PER_DEFINITION: usize = 12;

/// The most statements of the shown definitions past the sweep's bounds offered last
/// ([`Targets::farther`]). A first offer costs one short reply (about a second where the
/// held-out runs measured 96 prompt / 23 generation tokens/s): in held-out run 29 the sweep
/// was full in 9 of 12 tasks, and in those where the fixed line was shown but never offered
/// the budget went to the branches of the statements that were.
pub const MAX_FARTHER: usize = 30;

/// The most statements offered where an attribute the offered statements read is set.
pub const MAX_SOURCES: usize = 6;

pub use crate::graph::memory::line_offers::Target;

impl Target {
    /// The statement `stmt` of `text` (the file at `path`) at 0-based line `start`, with the
    /// lead that makes it unique; `None` when no lead does ([`unique_lead`]).
    fn at(path: &str, text: &str, start: usize, stmt: String) -> Option<Target> {
        let lead = unique_lead(text, start, &stmt)?;
        Some(Target {
            path: path.to_string(),
            text: stmt,
            lead,
            line: start + 1,
        })
    }

    /// The statement at 1-based `line` of `text` as a target, when it is one a line attempt
    /// may change ([`statement_at`]; not a signature, nor a line inside a string).
    pub(super) fn around(path: &str, text: &str, line: usize) -> Option<Target> {
        let inside = kotef_tools::outline::in_string(&text.lines().collect::<Vec<_>>());
        if inside.get(line.checked_sub(1)?).copied().unwrap_or(true) {
            return None;
        }
        let (start, stmt) = statement_at(text, line)?;
        if stmt.contains("\"\"\"") || stmt.contains("'''") {
            return None;
        }
        Target::at(path, text, start, stmt)
    }

    /// `stmt` (this statement, or what replaces it) after the lines that make it unique.
    pub fn with_lead(&self, stmt: &str) -> String {
        if self.lead.is_empty() {
            stmt.to_string()
        } else {
            format!("{}\n{stmt}", self.lead)
        }
    }

    /// Its last line in the file (1-based).
    pub fn last_line(&self) -> usize {
        self.line + self.text.lines().count().max(1) - 1
    }
}

/// The statements to offer: the frames', then the sweep of their definitions; last, the
/// statements of those definitions past the sweep's bounds (line attempts only: the
/// templates keep to the frames and the sweep).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Targets {
    pub frames: Vec<Target>,
    pub sweep: Vec<Target>,
    pub farther: Vec<Target>,
}

/// The most lines before a statement taken to make it unique in its file.
pub const MAX_LEAD_LINES: usize = 3;

/// The statements to offer of `files` (the code shown): the frames' ([`frame_targets`]), then
/// the other statements of the definitions shown for the frames and the failure's `names`
/// ([`code_view::focus`]), file by file, a frame's definition from its line outward, any
/// other from its returns outward ([`returns`]; from its top when it has none), its
/// signature last; each statement once, at most [`MAX_PER_DEFINITION`] of one
/// definition and [`MAX_SWEEP`] in all; then where the attributes they read are set
/// ([`sources`]); the statements past those bounds, in the same order, are
/// [`Targets::farther`] (at most [`MAX_FARTHER`]).
pub fn targets(trace: &Traceback, files: &[(String, String)], names: &[String]) -> Targets {
    let mut found = swept(trace, files, names);
    let sources = sources(files, found.frames.iter().chain(&found.sweep));
    found.farther.retain(|t| !sources.contains(t));
    found.sweep.extend(sources);
    found
}

/// [`targets`] without the sources: the frames' statements, the sweep and what lies past it.
fn swept(trace: &Traceback, files: &[(String, String)], names: &[String]) -> Targets {
    let frames = frame_targets(trace, files);
    let (mut sweep, mut farther): (Vec<Target>, Vec<Target>) = (Vec::new(), Vec::new());
    for (path, text) in files {
        // The frames' lines, not the focus's: the spectrum adds its own statements.
        let lines: Vec<usize> = trace
            .repo
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, l)| *l)
            .collect();
        for (first, last) in code_view::focus(text, &lines, names) {
            let raised = lines.iter().find(|l| (first..=last).contains(*l)).copied();
            let mut found = statements_in(text, first, last);
            // Nearest the line that raised; in a definition the failure passed through
            // without raising (the test got a wrong value back), the body nearest its
            // returns, then the signature.
            let back = returns(&found);
            found.sort_by_key(|(start, stmt)| match raised {
                Some(r) => (false, (start + 1).abs_diff(r)),
                None => (
                    stmt.trim_start().starts_with("def "),
                    back.iter()
                        .map(|a| (start + 1).abs_diff(*a))
                        .min()
                        .unwrap_or(0),
                ),
            });
            for (i, (start, stmt)) in found.into_iter().enumerate() {
                let Some(t) = Target::at(path, text, start, stmt) else {
                    continue;
                };
                if frames.contains(&t) || sweep.contains(&t) || farther.contains(&t) {
                    continue;
                }
                if i < MAX_PER_DEFINITION && sweep.len() < MAX_SWEEP {
                    sweep.push(t);
                } else if farther.len() < MAX_FARTHER {
                    farther.push(t);
                }
            }
        }
    }
    Targets {
        frames,
        sweep,
        farther,
    }
}

/// The 1-based lines of the `return` statements among `found` ([`statements_in`]): where a
/// value the test found wrong left the definition, set by the statements just before.
fn returns(found: &[(usize, String)]) -> Vec<usize> {
    let is_return = |s: &str| {
        let s = s.trim_start();
        s == "return" || s.starts_with("return ") || s.starts_with("return(")
    };
    found
        .iter()
        .filter(|(_, s)| is_return(s))
        .map(|(start, _)| start + 1)
        .collect()
}

/// Where the values the `offered` statements read come from: for each attribute of `self`
/// they read (`self.file.write(...)`), in the order first read, the statements of the same
/// file that set it (`self.file = open(path, 'w')`), each once and not already offered, at
/// most [`MAX_SOURCES`], each followed by its function's signature when it sets the
/// attribute to a parameter ([`parameter_signature`]). A value that is wrong where it is used
/// was most often made wrong where it was set, in another method (the constructor) than the
/// one the failure passes through.
fn sources<'a>(
    files: &[(String, String)],
    offered: impl Iterator<Item = &'a Target> + Clone,
) -> Vec<Target> {
    let mut read: Vec<(&str, String)> = Vec::new();
    for t in offered.clone() {
        for attr in self_attributes(&t.text) {
            if !read.iter().any(|(p, a)| *p == t.path && *a == attr) {
                read.push((t.path.as_str(), attr));
            }
        }
    }
    let mut out: Vec<Target> = Vec::new();
    for (path, attr) in read {
        let Some((_, text)) = files.iter().find(|(p, _)| p == path) else {
            continue;
        };
        let set = format!("self.{attr} =");
        let at = text.lines().enumerate();
        for (i, _) in at.filter(|(_, l)| l.trim_start().starts_with(&set)) {
            let Some(t) =
                statement_at(text, i + 1).and_then(|(start, st)| Target::at(path, text, start, st))
            else {
                continue;
            };
            let default = parameter_signature(path, text, i + 1, &t.text);
            for t in std::iter::once(t).chain(default) {
                if !offered.clone().any(|o| *o == t) && !out.contains(&t) {
                    out.push(t);
                }
                if out.len() == MAX_SOURCES {
                    return out;
                }
            }
        }
    }
    out
}

/// The signature of the function around 1-based `line` when `stmt` sets an attribute to one
/// of its parameters (`self.last_active = last_active`): the value came from the caller (a
/// frame, offered already) or from the parameter's default, written in the signature.
fn parameter_signature(path: &str, text: &str, line: usize, stmt: &str) -> Option<Target> {
    let (_, right) = stmt.split_once(" = ")?;
    let value = right.split('#').next().unwrap_or_default().trim();
    let ident = |w: &str| {
        w.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && w.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    if !ident(value) || value == "self" {
        return None;
    }
    let d = kotef_tools::outline::enclosing(text, line)?;
    let lines: Vec<&str> = text.lines().collect();
    let def = (d.first..=d.last.min(line)).find(|&l| {
        lines
            .get(l - 1)
            .is_some_and(|s| s.trim_start().starts_with("def "))
    })?;
    let (start, sig) = span_at(text, def)?;
    let params = &sig[sig.find('(')? + 1..sig.rfind(')')?];
    let name = |p: &str| {
        let p = p.trim().trim_start_matches('*');
        p.split(['=', ':'])
            .next()
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let named = params.split(',').any(|p| name(p) == value);
    named.then(|| Target::at(path, text, start, sig)).flatten()
}

/// The attributes of `self` a statement reads (`self.x` not followed by `=` that sets it),
/// each once, in order.
fn self_attributes(stmt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, _) in stmt.match_indices("self.") {
        if stmt[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let rest = &stmt[i + "self.".len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[end..].trim_start();
        let sets = after.starts_with('=') && !after.starts_with("==");
        if end > 0 && !sets && !out.iter().any(|a| a == &rest[..end]) {
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// The statements of lines `first..=last` (1-based) of `text`, each whole ([`span_at`]),
/// with the 0-based index of its first line: a function's `def` line (its parameters and
/// their defaults) and its body's statements; not class headers, decorators, comments, blank
/// lines, `else:`-like lines, docstrings or lines inside a string. The signatures come last.
fn statements_in(text: &str, first: usize, last: usize) -> Vec<(usize, String)> {
    const BARE: &[&str] = &["else:", "try:", "finally:", "except:"];
    let lines: Vec<&str> = text.lines().collect();
    let (mut out, mut signatures) = (Vec::new(), Vec::new());
    let mut at = first.max(1);
    let mut in_string = false;
    while at <= last.min(lines.len()) {
        let l = lines[at - 1].trim();
        let quotes = triple_quotes(l);
        if in_string || quotes > 0 {
            // A docstring, or a statement holding a triple-quoted string: not offered.
            in_string ^= quotes % 2 == 1;
            at += 1;
            continue;
        }
        if l.is_empty() || l.starts_with('#') || BARE.contains(&l) {
            at += 1;
            continue;
        }
        let Some((start, stmt)) = span_at(text, at) else {
            at += 1;
            continue;
        };
        at = start + stmt.lines().count() + 1;
        if header(&stmt) || start + 1 < first {
            continue;
        }
        if stmt.trim_start().starts_with("def ") {
            signatures.push((start, stmt));
        } else {
            out.push((start, stmt));
        }
    }
    // A body's statements before the signatures: a fix is likelier in what a function does.
    out.extend(signatures);
    out
}

/// The statements at the traceback's frames in `files` (the code shown; tests are not among
/// them): the lines a look-up found the failure's names at first, the best place first
/// ([`Traceback::located`]), then the frames, outermost first, the deepest last; each
/// statement once, at most [`MAX_TARGETS`]. A frame whose line is a `def` or `class` header
/// (a decorator's frame) offers nothing, nor a found line inside a triple-quoted string (a
/// docstring naming a function is where a look-up finds its name, not a statement).
fn frame_targets(trace: &Traceback, files: &[(String, String)]) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    let frames = trace
        .repo
        .iter()
        .rev()
        .filter(|f| !trace.located.contains(f));
    for (path, line) in trace.located.iter().chain(frames) {
        let Some((_, text)) = files.iter().find(|(p, _)| p == path) else {
            continue;
        };
        if trace.located.contains(&(path.clone(), *line)) && in_string(text, *line) {
            continue;
        }
        let Some(t) =
            statement_at(text, *line).and_then(|(start, stmt)| Target::at(path, text, start, stmt))
        else {
            continue;
        };
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out.truncate(MAX_TARGETS);
    out
}

/// How many triple quotes (`"""` or `'''`) a line holds.
fn triple_quotes(l: &str) -> usize {
    l.matches("\"\"\"").count() + l.matches("'''").count()
}

/// Whether 1-based `line` of `text` lies inside a triple-quoted string, or opens or closes one
/// (the quotes counted from the top, as [`statements_in`] counts them).
fn in_string(text: &str, line: usize) -> bool {
    let mut open = false;
    for (i, l) in text.lines().enumerate().take(line) {
        let quotes = triple_quotes(l);
        if i + 1 == line {
            return open || quotes > 0;
        }
        open ^= quotes % 2 == 1;
    }
    false
}

/// The lines before the statement at 0-based `start` that make `lead` + statement occur once
/// in `text` (none when it already does); `None` when [`MAX_LEAD_LINES`] do not.
fn unique_lead(text: &str, start: usize, stmt: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    (0..=MAX_LEAD_LINES.min(start)).find_map(|n| {
        let lead = lines[start - n..start].join("\n");
        let whole = if n == 0 {
            stmt.to_string()
        } else {
            format!("{lead}\n{stmt}")
        };
        (text.matches(whole.as_str()).count() == 1).then_some(lead)
    })
}

/// The whole statement at 1-based `line` of `text` ([`span_at`]); `None` for a blank line,
/// a definition's header or a decorator (a frame there is a decorator's or the header's own
/// default values: the line to change is not one statement).
fn statement_at(text: &str, line: usize) -> Option<(usize, String)> {
    span_at(text, line).filter(|(_, s)| !header(s) && !s.trim_start().starts_with("def "))
}

/// Whether a statement is a class's header, a decorator or an `async def`'s header (a
/// function's `def` header is a statement the sweep offers: its defaults and parameters).
fn header(stmt: &str) -> bool {
    let t = stmt.trim_start();
    ["class ", "@", "async def "]
        .iter()
        .any(|h| t.starts_with(h))
}

/// The lines at 1-based `line` of `text` its brackets span: the line, with the lines before
/// or after it (a call written over several lines is reported at its first or its last line,
/// depending on the Python), at most [`MAX_STATEMENT_LINES`]. With the 0-based index of its
/// first line; `None` for a blank line, or brackets that do not close in reach.
pub(super) fn span_at(text: &str, line: usize) -> Option<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let at = line.checked_sub(1)?;
    let first = lines.get(at)?;
    if first.trim().is_empty() {
        return None;
    }
    let (mut start, mut end) = (at, at);
    let mut depth = depth_of(first);
    while depth > 0 {
        end += 1;
        if end - start >= MAX_STATEMENT_LINES {
            return None;
        }
        depth += depth_of(lines.get(end)?);
    }
    while depth < 0 {
        start = start.checked_sub(1)?;
        if end - start >= MAX_STATEMENT_LINES {
            return None;
        }
        depth += depth_of(lines.get(start)?);
    }
    Some((start, lines[start..=end].join("\n")))
}

/// Opening minus closing brackets on a line, outside its strings and comment (roughly: a
/// quote toggles, a backslash escapes).
fn depth_of(line: &str) -> i32 {
    let (mut depth, mut quote, mut escaped) = (0, None::<char>, false);
    for c in line.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') => break,
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    depth
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    const SPIDER: &str = "class SitemapSpider:\n    def _parse_sitemap(self, response):\n        if response.url.endswith('/robots.txt'):\n            for url in sitemap_urls_from_robots(response.body):\n                yield Request(url)\n";
    const UTILS: &str = "def sitemap_urls_from_robots(robots_text):\n    for line in robots_text.splitlines():\n        if line.lstrip().startswith('Sitemap:'):\n            yield line\n";

    pub(in crate::graph::nodes::repair) fn trace() -> Traceback {
        Traceback {
            // Deepest first, as the traceback reader keeps them.
            repo: vec![
                ("utils.py".into(), 3),
                ("spider.py".into(), 4),
                ("tests/test_spider.py".into(), 9),
            ],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        }
    }

    pub(in crate::graph::nodes::repair) fn files() -> Vec<(String, String)> {
        vec![
            ("utils.py".into(), UTILS.into()),
            ("spider.py".into(), SPIDER.into()),
        ]
    }

    #[test]
    fn the_call_the_test_made_is_offered_before_the_line_that_raised() {
        let t = frame_targets(&trace(), &files());
        let texts: Vec<&str> = t.iter().map(|t| t.text.trim()).collect();
        assert_eq!(
            texts,
            [
                "for url in sitemap_urls_from_robots(response.body):",
                "if line.lstrip().startswith('Sitemap:'):"
            ]
        );
    }

    /// A look-up's lines in `files()`: `spider.py`'s (the best place) before `utils.py`'s,
    /// behind the test's own frame, as the look-up lays them out.
    fn located() -> Traceback {
        let found = vec![("spider.py".to_string(), 4), ("utils.py".to_string(), 3)];
        let mut repo = found.clone();
        repo.push(("tests/test_spider.py".into(), 9));
        Traceback {
            repo,
            located: found,
            ..Traceback::default()
        }
    }

    #[test]
    fn the_lines_a_look_up_found_are_offered_best_place_first() {
        let t = frame_targets(&located(), &files());
        let paths: Vec<&str> = t.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(paths, ["spider.py", "utils.py"]);
    }

    #[test]
    fn a_found_line_inside_a_docstring_offers_nothing() {
        let utils =
            format!("\"\"\"Helpers.\n\nsitemap_urls_from_robots reads robots.txt\n\"\"\"\n{UTILS}");
        let files = vec![("utils.py".to_string(), utils)];
        let trace = Traceback {
            repo: vec![("utils.py".into(), 3), ("utils.py".into(), 7)],
            located: vec![("utils.py".into(), 3), ("utils.py".into(), 7)],
            ..Traceback::default()
        };
        let t = frame_targets(&trace, &files);
        let texts: Vec<&str> = t.iter().map(|t| t.text.trim()).collect();
        assert_eq!(texts, ["if line.lstrip().startswith('Sitemap:'):"]);
    }

    #[test]
    fn a_call_written_over_several_lines_is_offered_whole_from_either_end() {
        let code = "x = 1\nresult = call(\n    a,\n    b)\ny = 2\n";
        let whole = "result = call(\n    a,\n    b)";
        assert_eq!(
            statement_at(code, 2).map(|(_, s)| s).as_deref(),
            Some(whole)
        );
        assert_eq!(
            statement_at(code, 4).map(|(_, s)| s).as_deref(),
            Some(whole)
        );
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        assert_eq!(
            statement_at("s = ')' + f(x)  # (\n", 1)
                .map(|(_, s)| s)
                .as_deref(),
            Some("s = ')' + f(x)  # (")
        );
    }

    #[test]
    fn a_header_line_offers_nothing() {
        assert_eq!(statement_at(SPIDER, 2), None);
    }

    const DATES: &str = "def parse_day(text):\n    \"\"\"The day of a date\n    written 2020-01-31.\"\"\"\n    # Year, month, day.\n    parts = text.split(\n        '-')\n    day = parts[1]\n    if not day:\n        return None\n    else:\n        return int(day)\n\n\ndef other():\n    return 1\n";

    fn texts(t: &[Target]) -> Vec<&str> {
        t.iter().map(|t| t.text.trim()).collect()
    }

    #[test]
    fn a_named_definition_offers_its_statements_nearest_its_returns_first() {
        let files = [("dates.py".to_string(), DATES.to_string())];
        let none = Traceback {
            repo: Vec::new(),
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        };
        let t = targets(&none, &files, &["parse_day".to_string()]);
        assert_eq!(t.frames, []);
        assert_eq!(
            texts(&t.sweep),
            [
                "return None",
                "return int(day)",
                "if not day:",
                "day = parts[1]",
                "parts = text.split(\n        '-')",
                "def parse_day(text):"
            ]
        );
    }

    #[test]
    fn a_named_definition_without_returns_offers_its_statements_from_its_top() {
        let code = "def log(a):\n    b = a + 1\n    c = b * 2\n    print(c)\n";
        let files = [("log.py".to_string(), code.to_string())];
        let none = Traceback::default();
        let t = targets(&none, &files, &["log".to_string()]);
        assert_eq!(
            texts(&t.sweep),
            ["b = a + 1", "c = b * 2", "print(c)", "def log(a):"]
        );
    }

    #[test]
    fn statements_past_a_definitions_share_of_the_sweep_are_offered_farther_in_order() {
        let body: String = (0..MAX_PER_DEFINITION + 3)
            .map(|i| format!("    v{i} = {i}\n"))
            .collect();
        let files = [("long.py".to_string(), format!("def long():\n{body}"))];
        let t = targets(&Traceback::default(), &files, &["long".to_string()]);
        assert_eq!(t.sweep.len(), MAX_PER_DEFINITION);
        assert_eq!(
            texts(&t.farther),
            ["v12 = 12", "v13 = 13", "v14 = 14", "def long():"]
        );
    }

    #[test]
    fn a_short_definition_leaves_nothing_farther() {
        let files = [("dates.py".to_string(), DATES.to_string())];
        let t = targets(&Traceback::default(), &files, &["parse_day".to_string()]);
        assert_eq!(t.farther, []);
    }

    const WORKER: &str = "import time\n\n\nclass Worker:\n    def __init__(self, worker_id, last_active=None):\n        self.id = worker_id\n        self.last_active = last_active  # seconds\n\n    def prune(self, delay):\n        if self.last_active + delay < time.time():\n            return True\n";

    #[test]
    fn an_attribute_set_from_a_parameter_offers_the_signature_that_gives_its_default() {
        let files = [("worker.py".to_string(), WORKER.to_string())];
        let trace = Traceback {
            repo: vec![("worker.py".into(), 10)],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        };
        let t = targets(&trace, &files, &[]);
        assert_eq!(
            texts(&t.sweep)[t.sweep.len() - 2..],
            [
                "self.last_active = last_active  # seconds",
                "def __init__(self, worker_id, last_active=None):"
            ]
        );
    }

    #[test]
    fn an_attribute_set_to_a_default_value_offers_no_signature() {
        let sig = parameter_signature("seen.py", SEEN, 6, "        self.file = None");
        assert_eq!(sig, None);
    }

    const SEEN: &str = "import os\n\n\nclass Seen:\n    def __init__(self, path=None):\n        self.file = None\n        if path:\n            self.file = open(os.path.join(path, 'seen'), 'r')\n\n    def add(self, fp):\n        if self.file:\n            self.file.write(fp)\n";

    #[test]
    fn where_an_attribute_the_failing_line_reads_is_set_is_offered_after_the_sweep() {
        let files = [("seen.py".to_string(), SEEN.to_string())];
        let trace = Traceback {
            repo: vec![("seen.py".into(), 12)],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        };
        let t = targets(&trace, &files, &[]);
        assert_eq!(
            texts(&t.sweep)[1..],
            [
                "def add(self, fp):",
                "self.file = None",
                "self.file = open(os.path.join(path, 'seen'), 'r')"
            ]
        );
    }

    #[test]
    fn an_attribute_a_statement_sets_is_not_one_it_reads() {
        assert_eq!(
            self_attributes("self.total = self.count + other.self.x == self.limit"),
            ["count", "limit"]
        );
    }

    #[test]
    fn a_frames_definition_offers_its_other_statements_nearest_the_frame_first() {
        let files = [("dates.py".to_string(), DATES.to_string())];
        let trace = Traceback {
            repo: vec![("dates.py".into(), 11)],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        };
        let t = targets(&trace, &files, &[]);
        assert_eq!(texts(&t.frames), ["return int(day)"]);
        assert_eq!(
            texts(&t.sweep),
            [
                "return None",
                "if not day:",
                "day = parts[1]",
                "parts = text.split(\n        '-')",
                "def parse_day(text):"
            ]
        );
    }

    #[test]
    fn a_frame_inside_a_signature_written_over_several_lines_offers_nothing() {
        let code = "def make(url, callback=None,\n         flags=None):\n    return url\n";
        assert_eq!(statement_at(code, 2), None);
    }
}
