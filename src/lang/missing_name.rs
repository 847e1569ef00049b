//! Bindings for a name a module reads and nothing binds (`NameError: name 'logger' is not
//! defined`), as pure functions over text: the name the failure says is missing
//! ([`undefined`]), the lines other modules bind it with at their top level — an import (`import
//! logging`, `from .utils import clean`), an assignment with the imports it reads (`logger =
//! logging.getLogger('luigi-interface')`), or a definition, imported from its module
//! ([`inserts`]) — and where in the module they go: after its imports ([`import_end`],
//! [`insert_at`]). A missing import or module-level name is among the commonest bugs of real
//! Python code, and the project's other modules say how it binds that name.

use super::traceback::exception_line;
use std::collections::BTreeMap;

/// The most bindings offered for one name.
pub const MAX_INSERTS: usize = 4;

/// The most lines searched above (or below) an insertion point for a unique anchor.
const MAX_ANCHOR_LINES: usize = 4;

/// The name the last `NameError` of `output` says is not defined (`name 'x' is not
/// defined`; Python 2's `global name 'x' is not defined`).
pub fn undefined(output: &str) -> Option<String> {
    output.lines().rev().find_map(|l| {
        let (class, message) = exception_line(l)?;
        if class.rsplit('.').next() != Some("NameError") {
            return None;
        }
        let rest = message
            .strip_prefix("global name '")
            .or_else(|| message.strip_prefix("name '"))?;
        let (name, tail) = rest.split_once('\'')?;
        (tail.trim_start().starts_with("is not defined") && identifier(name))
            .then(|| name.to_string())
    })
}

fn identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// A module's top-level statements: `(first line, last line, text)`, 0-based, a statement
/// over several lines (open brackets, a trailing `\\`, a triple-quoted string) joined by
/// newlines; indented lines, comments, blank lines and the lines inside a string are not
/// statements of their own.
fn top_statements(text: &str) -> Vec<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut before: Vec<Option<&'static str>> = Vec::with_capacity(lines.len() + 1);
    let mut state = None;
    for l in &lines {
        before.push(state);
        state = triple_after(l, state);
    }
    before.push(state);
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let top = before[i].is_none() && !l.is_empty() && !l.starts_with([' ', '\t', '#']);
        if !top {
            i += 1;
            continue;
        }
        let (start, mut depth) = (i, 0i32);
        let mut joined = String::new();
        loop {
            let l = lines[i];
            if before[i].is_none() {
                depth += bracket_depth(l);
            }
            if !joined.is_empty() {
                joined.push('\n');
            }
            joined.push_str(l);
            let open = depth > 0 || l.trim_end().ends_with('\\') || before[i + 1].is_some();
            if !open || i + 1 >= lines.len() || i - start >= MAX_STATEMENT_LINES {
                break;
            }
            i += 1;
        }
        out.push((start, i, joined));
        i += 1;
    }
    out
}

/// The most lines one top-level statement is read over.
const MAX_STATEMENT_LINES: usize = 400;

/// Whether the text after `line` is inside a triple-quoted string, and which (`state`:
/// whether `line` starts inside one).
fn triple_after(line: &str, mut state: Option<&'static str>) -> Option<&'static str> {
    let mut rest = line;
    loop {
        match state {
            Some(q) => match rest.find(q) {
                Some(p) => {
                    rest = &rest[p + 3..];
                    state = None;
                }
                None => return state,
            },
            None => {
                let code = rest.split('#').next().unwrap_or(rest);
                let found = ["\"\"\"", "'''"]
                    .into_iter()
                    .filter_map(|q| code.find(q).map(|p| (p, q)))
                    .min();
                let (p, q) = found?;
                rest = &rest[p + 3..];
                state = Some(q);
            }
        }
    }
}

/// The brackets `line` leaves open (negative: closes), strings and comments aside.
fn bracket_depth(line: &str) -> i32 {
    let mut depth = 0;
    for c in code_chars(line).chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// `line` with its strings' contents and its comment left out (a string's quotes kept).
fn code_chars(line: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                    out.push(c);
                }
            }
            None if c == '#' => break,
            None => {
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// The module a file is (`luigi/contrib/spark.py` → `luigi.contrib.spark`, a package's
/// `__init__.py` its folder, a leading `src/` left out); `None` when a part is no identifier.
pub fn module_of(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".py")?;
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    let stem = stem.strip_prefix("src/").unwrap_or(stem);
    let parts: Vec<&str> = stem.split('/').collect();
    parts.iter().all(|p| identifier(p)).then(|| parts.join("."))
}

/// `module` of a `from` import in the file at `path`, made absolute (`.utils` in
/// `pkg/sub/a.py` → `pkg.sub.utils`).
fn absolute(module: &str, path: &str) -> Option<String> {
    let dots = module.chars().take_while(|c| *c == '.').count();
    if dots == 0 {
        return Some(module.to_string());
    }
    let package = module_of(path)?;
    let mut parts: Vec<&str> = package.split('.').collect();
    if !path.ends_with("/__init__.py") {
        parts.pop();
    }
    for _ in 1..dots {
        parts.pop()?;
    }
    let rest = &module[dots..];
    if !rest.is_empty() {
        parts.push(rest);
    }
    (!parts.is_empty()).then(|| parts.join("."))
}

/// How a top-level statement binds a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Import,
    Assign,
    Define,
}

/// What one top-level statement of the file at `path` binds: `(name, how, the line that
/// binds it in another module)`; the line is `None` when it cannot be moved (a relative
/// import outside a package).
fn bound(stmt: &str, path: &str) -> Vec<(String, Kind, Option<String>)> {
    let flat: String = stmt
        .lines()
        .map(|l| code_chars(l).trim_end_matches('\\').trim().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let flat = flat.trim();
    let parts = |names: &str| -> Vec<(String, String)> {
        names
            .split(',')
            .filter_map(|part| {
                let part = part.split_whitespace().collect::<Vec<_>>().join(" ");
                let name = match part.split_once(" as ") {
                    Some((_, alias)) => alias.trim().to_string(),
                    None => part.split('.').next()?.to_string(),
                };
                identifier(&name).then_some((name, part))
            })
            .collect()
    };
    if let Some(rest) = flat.strip_prefix("import ") {
        return parts(rest)
            .into_iter()
            .map(|(name, part)| (name, Kind::Import, Some(format!("import {part}"))))
            .collect();
    }
    if let Some(rest) = flat.strip_prefix("from ") {
        let Some((module, names)) = rest.split_once(" import ") else {
            return Vec::new();
        };
        let module = absolute(module.trim(), path);
        let names = names.trim().trim_start_matches('(').trim_end_matches(')');
        return parts(names)
            .into_iter()
            .map(|(name, part)| {
                let line = module.as_ref().map(|m| format!("from {m} import {part}"));
                (name, Kind::Import, line)
            })
            .collect();
    }
    let unasync = flat
        .strip_prefix("async")
        .filter(|r| r.starts_with(char::is_whitespace))
        .map_or(flat, str::trim_start);
    let header = unasync
        .strip_prefix("def ")
        .or_else(|| unasync.strip_prefix("class "));
    if let Some(rest) = header {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let line = module_of(path).map(|m| format!("from {m} import {name}"));
        return vec![(name, Kind::Define, line)];
    }
    assigned(stmt)
        .map(|name| vec![(name, Kind::Assign, Some(stmt.to_string()))])
        .unwrap_or_default()
}

/// The name a one-line assignment `name = value` (or `name: T = value`) binds.
fn assigned(stmt: &str) -> Option<String> {
    if stmt.contains('\n') {
        return None;
    }
    let code = code_chars(stmt);
    let name: String = code
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let rest = code[name.len()..].trim_start();
    let rest = match rest.strip_prefix(':') {
        Some(typed) => typed.split_once('=').map(|(_, v)| v)?,
        None => rest.strip_prefix('=')?,
    };
    (identifier(&name) && !rest.starts_with('=')).then_some(name)
}

/// The names a one-line assignment's value reads that a module must bind: identifiers not
/// after a `.`, not a keyword argument's name, not a builtin or keyword.
fn reads(stmt: &str) -> Vec<String> {
    let code = code_chars(stmt);
    let value = code.split_once('=').map_or("", |(_, v)| v);
    let chars: Vec<char> = value.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let before = chars[..start].iter().rev().find(|c| !c.is_whitespace());
            let after: String = chars[i..].iter().collect::<String>().trim_start().into();
            let keyword_arg = after.starts_with('=') && !after.starts_with("==");
            let quoted = matches!(chars.get(i), Some('\'' | '"'));
            if before != Some(&'.')
                && !keyword_arg
                && !quoted
                && !BUILTINS.contains(&word.as_str())
                && !out.contains(&word)
            {
                out.push(word);
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Keywords and the builtins a module-level value reads most, bound in every module.
const BUILTINS: &[&str] = &[
    "None",
    "True",
    "False",
    "and",
    "or",
    "not",
    "in",
    "is",
    "if",
    "else",
    "lambda",
    "for",
    "__name__",
    "__file__",
    "object",
    "str",
    "bytes",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "set",
    "tuple",
    "frozenset",
    "type",
    "len",
    "range",
    "open",
    "print",
    "getattr",
    "setattr",
    "hasattr",
    "isinstance",
    "Exception",
    "ValueError",
    "TypeError",
    "KeyError",
    "property",
    "staticmethod",
    "classmethod",
    "super",
    "map",
    "filter",
    "zip",
    "sorted",
    "min",
    "max",
];

/// Whether `text` binds `name` at its top level (or declares it `global`).
pub fn binds(text: &str, name: &str) -> bool {
    top_statements(text)
        .iter()
        .any(|(_, _, s)| bound(s, "").iter().any(|(n, _, _)| n == name))
        || text.lines().any(|l| {
            let t = l.trim_start();
            t.strip_prefix("global ")
                .is_some_and(|rest| rest.split(',').any(|n| n.trim() == name))
        })
}

/// The lines that would bind `name` in the module `target` (its text), from how the other
/// modules bind it at their top level (`donors`: path, text, whether it is the tests' code):
/// each an import, an assignment (after the imports of the names its value reads that
/// `target` lacks, as the same module imports them), or an import of the name's definition
/// (never from the tests' code); the commonest first (imports and assignments before
/// definitions at a tie), at most [`MAX_INSERTS`].
pub fn inserts<'a>(
    name: &str,
    target: &str,
    donors: impl IntoIterator<Item = (&'a str, &'a str, bool)>,
) -> Vec<String> {
    let mut counts: BTreeMap<String, (usize, Kind, usize)> = BTreeMap::new();
    for (seen, (path, text, tests)) in donors.into_iter().enumerate() {
        let all: Vec<(String, Kind, Option<String>)> = top_statements(text)
            .iter()
            .flat_map(|(_, _, s)| bound(s, path))
            .collect();
        for (_, kind, line) in all.iter().filter(|(n, _, _)| n == name) {
            let Some(line) = line else { continue };
            if *kind == Kind::Define && tests {
                continue;
            }
            let Some(mut insert) = needed_imports(line, *kind, name, target, &all) else {
                continue;
            };
            insert.push(line.clone());
            let entry = counts.entry(insert.join("\n")).or_insert((0, *kind, seen));
            entry.0 += 1;
        }
    }
    let mut ranked: Vec<(String, (usize, Kind, usize))> = counts.into_iter().collect();
    ranked.sort_by_key(|(_, (count, kind, seen))| {
        (std::cmp::Reverse(*count), *kind == Kind::Define, *seen)
    });
    ranked
        .into_iter()
        .map(|(text, _)| text)
        .take(MAX_INSERTS)
        .collect()
}

/// The imports an assignment `line` needs in `target`: for each name its value reads that
/// `target` does not bind, the donor's import of it (`all`: what the donor binds); `None`
/// when the donor imports one of them in no way that can be moved.
fn needed_imports(
    line: &str,
    kind: Kind,
    name: &str,
    target: &str,
    all: &[(String, Kind, Option<String>)],
) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    if kind != Kind::Assign {
        return Some(out);
    }
    for needed in reads(line) {
        if needed == name || binds(target, &needed) {
            continue;
        }
        let import = all.iter().find_map(|(n, k, l)| {
            (*n == needed && *k == Kind::Import)
                .then_some(l.as_ref())
                .flatten()
        })?;
        if !out.contains(import) {
            out.push(import.clone());
        }
    }
    Some(out)
}

/// The 0-based line new top-level bindings go before in `text`: after the last import before
/// its first definition; with none, after its leading comments and docstring.
pub fn import_end(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut after_head = lines
        .iter()
        .position(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .unwrap_or(lines.len());
    let mut end = None;
    for (k, (_, last, stmt)) in top_statements(text).iter().enumerate() {
        let s = stmt.as_str();
        if s.starts_with("import ") || s.starts_with("from ") {
            end = Some(last + 1);
        } else if ["def ", "async def ", "class ", "@"]
            .iter()
            .any(|h| s.starts_with(h))
        {
            break;
        } else if k == 0
            && s.trim_start_matches(['r', 'u', 'b', 'R', 'U', 'B'])
                .starts_with(['"', '\''])
        {
            after_head = last + 1;
        }
    }
    end.unwrap_or(after_head)
}

/// A search/replace pair that puts `insert` before 0-based line `at` of `text` (two blank
/// lines between it and a definition there): the fewest lines above it (or, at the top,
/// below it) that occur once in `text`, as they are and with `insert` beside them; `None`
/// when no such run of lines is unique.
pub fn insert_at(text: &str, at: usize, insert: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let unique = |s: &str| !s.trim().is_empty() && text.matches(s).count() == 1;
    let definition = lines.get(at).is_some_and(|l| {
        ["def ", "async def ", "class ", "@"]
            .iter()
            .any(|h| l.starts_with(h))
    });
    let insert = if definition {
        format!("{insert}\n\n")
    } else {
        insert.to_string()
    };
    if at > 0 {
        (1..=MAX_ANCHOR_LINES.min(at)).find_map(|n| {
            let search = lines[at - n..at].join("\n");
            unique(&search).then(|| (search.clone(), format!("{search}\n{insert}")))
        })
    } else {
        (1..=MAX_ANCHOR_LINES.min(lines.len())).find_map(|n| {
            let search = lines[..n].join("\n");
            unique(&search).then(|| (search.clone(), format!("{insert}\n{search}")))
        })
    }
}
