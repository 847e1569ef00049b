//! Mutations of the names one Python statement reads, as pure functions over text: the
//! wrong-reference operators template-based program repair tries (TBar's "mutate variable"
//! and "mutate method invocation", Liu et al., ISSTA 2019; SimFix's donor names, Jiang et
//! al., ISSTA 2018): an attribute read in place of another the project reads after the same
//! name (`response.body` → `response.text`, the commonest first), a member's method called
//! where the class has its own (`self.fs.mkdir(d)` → `self.mkdir(d)`), and a local variable
//! read in place of another bound before it in the function (the nearest first). The names
//! come from the code itself, never from the tests' expected values. Strings and comments are
//! never mutated. Where to try them, and whether one works, is the repair loop's to say
//! (`graph::nodes::repair::names`): the project's tests, and the failing test's neighbours,
//! judge each.

use super::condition_mutation::distinct;
use super::type_repair::{masked, parameters};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// The most mutants of one statement.
pub const MAX_MUTANTS: usize = 8;
/// The most other attributes tried for one attribute read.
pub const MAX_ATTRIBUTES: usize = 6;
/// The most other variables tried for one variable read.
pub const MAX_VARIABLES: usize = 3;

/// The words that are Python's, never a variable or a receiver.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// The attributes a project reads after each receiver name (the last name before the dot:
/// `fs` in `self.fs.mkdir`), called or not, counted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Uses {
    counts: BTreeMap<String, BTreeMap<(String, bool), usize>>,
}

impl Uses {
    /// Counts the attributes `text` reads after any of `receivers`.
    pub fn count(&mut self, text: &str, receivers: &BTreeSet<String>) {
        let w = words(text.as_bytes());
        for p in w.windows(2) {
            let (r, a) = (&p[0], &p[1]);
            let receiver = &text[r.start..r.end];
            if !a.dotted || r.end + 1 != a.start || !receivers.contains(receiver) {
                continue;
            }
            let key = (text[a.start..a.end].to_string(), a.called);
            *self
                .counts
                .entry(receiver.to_string())
                .or_default()
                .entry(key)
                .or_insert(0) += 1;
        }
    }

    /// The attributes read after `receiver`, called or not as `called`, commonest first (by
    /// name among equals), without `except`.
    fn after(&self, receiver: &str, called: bool, except: &str) -> Vec<String> {
        let Some(found) = self.counts.get(receiver) else {
            return Vec::new();
        };
        let mut out: Vec<(&String, usize)> = found
            .iter()
            .filter(|((a, c), _)| *c == called && a != except && !a.starts_with("__"))
            .map(|((a, _), n)| (a, *n))
            .collect();
        out.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
        out.into_iter().map(|(a, _)| a.clone()).collect()
    }
}

/// What a statement's place in its file offers: the variables bound before it in its function
/// (the nearest first, then the parameters) and the methods the file's classes define.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Scope {
    pub locals: Vec<String>,
    pub methods: BTreeSet<String>,
}

/// One name in a masked statement: its byte range, whether a `.` comes right before it and
/// whether it is called right after.
#[derive(Debug, Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
    dotted: bool,
    called: bool,
}

fn words(m: &[u8]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < m.len() {
        if !ident(m[i]) {
            i += 1;
            continue;
        }
        if m[i].is_ascii_digit() {
            while i < m.len() && ident(m[i]) {
                i += 1;
            }
            continue;
        }
        let start = i;
        while i < m.len() && ident(m[i]) {
            i += 1;
        }
        let next = m[i..].iter().find(|c| **c != b' ').copied();
        out.push(Word {
            start,
            end: i,
            dotted: start > 0 && m[start - 1] == b'.',
            called: next == Some(b'('),
        });
    }
    out
}

/// The receivers `stmt` reads attributes of (`response` in `f(response.body)`), for
/// [`Uses::count`].
pub fn receivers(stmt: &str) -> BTreeSet<String> {
    let m = masked(stmt);
    let w = words(&m);
    w.windows(2)
        .filter(|p| p[1].dotted && p[0].end + 1 == p[1].start)
        .map(|p| stmt[p[0].start..p[0].end].to_string())
        .filter(|r| !KEYWORDS.contains(&r.as_str()))
        .collect()
}

/// The scope of the statement at 0-based `line` of `text` (see [`Scope`]).
pub fn scope_at(text: &str, line: usize) -> Scope {
    let lines: Vec<&str> = text.lines().collect();
    let methods = lines
        .iter()
        .filter_map(|l| method_name(l))
        .map(str::to_string)
        .collect();
    let Some(here) = lines.get(line) else {
        return Scope {
            locals: Vec::new(),
            methods,
        };
    };
    let indent = indent_of(here);
    let def = (0..line).rev().find(|&i| {
        let t = lines[i].trim_start();
        indent_of(lines[i]) < indent && after_def(t).is_some()
    });
    let Some(def) = def else {
        return Scope {
            locals: Vec::new(),
            methods,
        };
    };
    let signature: String = lines[def..line.min(def + 10)].join("\n");
    let mut locals: Vec<String> = Vec::new();
    for l in lines[def + 1..line].iter().rev() {
        for n in bound_names(l) {
            if !locals.contains(&n) {
                locals.push(n);
            }
        }
    }
    for p in parameters(&signature) {
        if !locals.contains(&p) {
            locals.push(p);
        }
    }
    Scope { locals, methods }
}

fn indent_of(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// What follows a line's `def` (a coroutine's too), when it defines a function.
fn after_def(t: &str) -> Option<&str> {
    let t = t.strip_prefix("async ").map_or(t, str::trim_start);
    t.strip_prefix("def ")
}

/// The name of a method a class line defines (`    def mkdir(self, …` → `mkdir`).
fn method_name(l: &str) -> Option<&str> {
    if indent_of(l) == 0 {
        return None;
    }
    let t = l.trim_start();
    let rest = after_def(t)?;
    let open = rest.find('(')?;
    let args = rest[open + 1..].trim_start();
    (args.starts_with("self")).then(|| rest[..open].trim())
}

/// The names one line binds: an assignment's targets (`a, b = …`, `x += …`), a `for`'s
/// and a `with`/`except`'s `as`.
fn bound_names(l: &str) -> Vec<String> {
    static RE: OnceLock<[regex::Regex; 3]> = OnceLock::new();
    let [assign, for_in, as_name] = RE.get_or_init(|| {
        let re = |p: &str| regex::Regex::new(p).expect("a fixed pattern compiles");
        [
            re(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?:[-+*/|&]?=)[^=]"),
            re(r"\bfor\s+\(?([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\)?\s+in\b"),
            re(r"\bas\s+([A-Za-z_]\w*)\s*:"),
        ]
    });
    let mut out = Vec::new();
    for re in [assign, for_in, as_name] {
        for c in re.captures_iter(l) {
            for n in c[1].split(',') {
                let n = n.trim().to_string();
                if !n.is_empty() && !KEYWORDS.contains(&n.as_str()) && n != "self" && n != "cls" {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// The mutants of `stmt` (see the module's doc), each with what it changed: the methods of
/// the class called in place of a member's, then the attributes swapped (at most
/// [`MAX_ATTRIBUTES`] a read), then the variables (at most [`MAX_VARIABLES`] a read); at
/// most [`MAX_MUTANTS`].
pub fn mutants(stmt: &str, uses: &Uses, scope: &Scope) -> Vec<(String, String)> {
    let m = masked(stmt);
    let w = words(&m);
    let text = |x: &Word| &stmt[x.start..x.end];
    let swap = |x: &Word, new: &str| format!("{}{new}{}", &stmt[..x.start], &stmt[x.end..]);
    let mut out: Vec<(String, String)> = Vec::new();
    for t in w.windows(3) {
        let (r, member, method) = (&t[0], &t[1], &t[2]);
        let chained = member.dotted && method.dotted && r.end + 1 == member.start;
        if chained
            && text(r) == "self"
            && method.called
            && member.end + 1 == method.start
            && scope.methods.contains(text(method))
        {
            let new = format!("{}{}", &stmt[..member.start], &stmt[method.start..]);
            let why = format!(
                "`self.{}.{}` as `self.{}`",
                text(member),
                text(method),
                text(method)
            );
            out.push((new, why));
        }
    }
    for p in w.windows(2) {
        let (r, a) = (&p[0], &p[1]);
        if !a.dotted || r.end + 1 != a.start || KEYWORDS.contains(&text(r)) {
            continue;
        }
        for other in uses
            .after(text(r), a.called, text(a))
            .iter()
            .take(MAX_ATTRIBUTES)
        {
            let why = format!("`{}.{}` as `{}.{other}`", text(r), text(a), text(r));
            out.push((swap(a, other), why));
        }
    }
    for (i, x) in w.iter().enumerate() {
        let name = text(x);
        let keyword_arg = m.get(x.end) == Some(&b'=') && m.get(x.end + 1) != Some(&b'=');
        let read_as_kwarg = keyword_arg && depth_at(&m, x.start) > 0;
        let follows_def = i > 0 && matches!(text(&w[i - 1]), "def" | "class" | "as");
        if x.dotted
            || x.called
            || read_as_kwarg
            || follows_def
            || !scope.locals.iter().any(|l| l == name)
        {
            continue;
        }
        for other in scope
            .locals
            .iter()
            .filter(|l| *l != name)
            .take(MAX_VARIABLES)
        {
            out.push((swap(x, other), format!("`{name}` as `{other}`")));
        }
    }
    distinct(stmt, out, MAX_MUTANTS)
}

/// The bracket depth at byte `at` of a masked statement.
fn depth_at(m: &[u8], at: usize) -> i32 {
    m[..at].iter().fold(0, |d, c| match c {
        b'(' | b'[' | b'{' => d + 1,
        b')' | b']' | b'}' => d - 1,
        _ => d,
    })
}

fn ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}
