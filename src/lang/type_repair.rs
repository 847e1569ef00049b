//! Fix templates for Python's type errors, as pure functions over text (after PyTER, Oh & Oh,
//! "PyTER: Effective Program Repair for Python Type Errors", ESEC/FSE 2022: most failures
//! of real Python projects that raise are a value of the wrong type, and a few templates fix
//! many of them). What the failure says of the wrong value ([`fault`]: a `None` where a
//! value was wanted, a value to convert, an index past a sequence's end), and the rewrites of
//! one statement ([`statement_rewrites`]) and the guards at a function's top ([`guards`])
//! that give the code what it wanted. Where to try them, and whether they work, is the
//! repair loop's to say (`graph::nodes::repair::typed`): the project's tests judge each.

/// What a failure says of the value that made it raise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// A `None` where a value was wanted: the empty values that would do, likeliest first,
    /// and the attribute it was asked for (`'NoneType' object has no attribute 'lower'`).
    Missing {
        empties: Vec<&'static str>,
        attribute: Option<String>,
    },
    /// A value of another type than wanted: the conversions to try (`str`, `int`, `list`).
    Cast(Vec<&'static str>),
    /// An index past the end of a sequence (an empty one, most often).
    Index,
}

/// Words of a message and the empty value of the type each names.
const TYPE_WORDS: &[(&[&str], &str)] = &[
    (&["dict", "mapping"], "{}"),
    (
        &["list", "tuple", "iterable", "sequence", "subscriptable"],
        "[]",
    ),
    (&["str", "string", "unicode"], "''"),
    (&["bytes"], "b''"),
    (&["int", "float", "number", "operand"], "0"),
];

/// Methods and the empty value of the type that has them.
const METHOD_TYPES: &[(&[&str], &str)] = &[
    (
        &[
            "lower",
            "upper",
            "strip",
            "lstrip",
            "rstrip",
            "split",
            "startswith",
            "endswith",
            "replace",
            "encode",
            "format",
            "join",
            "find",
        ],
        "''",
    ),
    (&["decode"], "b''"),
    (
        &["items", "keys", "values", "get", "update", "setdefault"],
        "{}",
    ),
    (
        &["append", "extend", "pop", "sort", "index", "insert"],
        "[]",
    ),
];

/// Messages of a `TypeError` and the conversion each asks for.
const CASTS: &[(&str, &str)] = &[
    ("expected string", "str"),
    ("expected str", "str"),
    ("must be str", "str"),
    ("must be a string", "str"),
    ("can only concatenate str", "str"),
    ("integer is required", "int"),
    ("must be int", "int"),
    ("must be integer", "int"),
    ("interpreted as an integer", "int"),
    ("not subscriptable", "list"),
    ("not reversible", "list"),
];

/// The most empty values one `None` is given.
pub const MAX_EMPTIES: usize = 2;

/// What the exception `class` (its last dotted part) with `message` says of the wrong value;
/// `None` when it says nothing a template can use.
pub fn fault(class: &str, message: &str) -> Option<Fault> {
    let class = class.rsplit('.').next().unwrap_or(class);
    if matches!(class, "TypeError" | "AttributeError" | "ValueError")
        && message.contains("NoneType")
    {
        let attribute = (class == "AttributeError")
            .then(|| quoted_after(message, "has no attribute"))
            .flatten();
        let mut empties = match &attribute {
            Some(a) => METHOD_TYPES
                .iter()
                .filter(|(names, _)| names.contains(&a.as_str()))
                .map(|(_, e)| *e)
                .collect(),
            None => named_empties(message),
        };
        empties.truncate(MAX_EMPTIES);
        return Some(Fault::Missing { empties, attribute });
    }
    match class {
        "TypeError" => {
            let m = message.to_lowercase();
            let mut casts: Vec<&'static str> = Vec::new();
            for (said, cast) in CASTS {
                if m.contains(said) && !casts.contains(cast) {
                    casts.push(cast);
                }
            }
            (!casts.is_empty()).then_some(Fault::Cast(casts))
        }
        "IndexError" if message.contains("out of range") => Some(Fault::Index),
        _ => None,
    }
}

/// The empty values of the types `message` names, in the order it names them.
fn named_empties(message: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for word in message
        .to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
    {
        for (words, empty) in TYPE_WORDS {
            if words.contains(&word) && !out.contains(empty) {
                out.push(empty);
            }
        }
    }
    out
}

/// The first quoted word after `after` in `message` (`has no attribute 'lower'` → `lower`).
fn quoted_after(message: &str, after: &str) -> Option<String> {
    let rest = &message[message.find(after)? + after.len()..];
    let rest = rest.trim_start().strip_prefix(['\'', '"'])?;
    let end = rest.find(['\'', '"'])?;
    Some(rest[..end].to_string())
}

/// The words that are Python's, never a value.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "self", "cls",
];

/// One value read in a statement: a name or an attribute chain (`parsed.hostname`), its
/// byte range, and whether it is called or indexed right after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub text: String,
    pub start: usize,
    pub end: usize,
    pub called: bool,
}

/// `stmt` with every string literal's bytes (quotes and prefix included) made `"` and its
/// comment cut to spaces, so names are found outside strings only (same length as `stmt`).
pub(crate) fn masked(stmt: &str) -> Vec<u8> {
    let b = stmt.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            q @ (b'\'' | b'"') => {
                let mut p = i;
                while p > 0 && b[p - 1].is_ascii_alphabetic() && p + 2 > i {
                    p -= 1;
                    out[p] = b'"';
                }
                out[i] = b'"';
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        out[i] = b'"';
                        i += 1;
                    }
                    out[i] = b'"';
                    i += 1;
                }
                if i < b.len() {
                    out[i] = b'"';
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether byte `c` may begin a name (Python's names may hold any letter: a byte of a
/// character beyond ASCII counts as one).
fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Where the values a statement reads begin: after its assignment (`x = …`, `x += …`), after
/// `in` of a `for`, else at its start. What comes before is written, not read.
fn reads_from(m: &[u8]) -> usize {
    let text = String::from_utf8_lossy(m);
    let t = text.trim_start();
    if t.starts_with("for ") {
        return text.find(" in ").map_or(0, |i| i + 4);
    }
    let mut depth = 0i32;
    for i in 0..m.len() {
        match m[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let next = m.get(i + 1).copied();
                let prev = i.checked_sub(1).map(|p| m[p]);
                let shift = i >= 2 && matches!(&m[i - 2..i], b"<<" | b">>");
                if next == Some(b'=') || (matches!(prev, Some(b'!' | b'<' | b'>' | b'=')) && !shift)
                {
                    continue;
                }
                return i + 1;
            }
            _ => {}
        }
    }
    0
}

/// The values `stmt` reads: names and attribute chains outside strings, after what it
/// assigns, not keywords, not a keyword argument's name, not what `as` names.
pub fn values(stmt: &str) -> Vec<Value> {
    let m = masked(stmt);
    let from = reads_from(&m);
    let mut out = Vec::new();
    let mut i = from;
    while i < m.len() {
        if !ident_start(m[i]) || (i > 0 && (ident(m[i - 1]) || m[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let start = i;
        loop {
            while i < m.len() && ident(m[i]) {
                i += 1;
            }
            if i + 1 < m.len() && m[i] == b'.' && ident_start(m[i + 1]) {
                i += 1;
                continue;
            }
            break;
        }
        let text = &stmt[start..i];
        let after = m[i..].iter().find(|c| **c != b' ').copied();
        let before = String::from_utf8_lossy(&m[..start]);
        let before = before.trim_end();
        let keyword_arg = after == Some(b'=') && m.get(i + 1) != Some(&b'=');
        if KEYWORDS.contains(&text)
            || keyword_arg
            || before.ends_with(" as")
            || before.ends_with("def")
            || before.ends_with("lambda")
        {
            continue;
        }
        out.push(Value {
            text: text.to_string(),
            start,
            end: i,
            called: matches!(after, Some(b'(')),
        });
    }
    out
}

/// The most values of one statement rewritten.
pub const MAX_VALUES: usize = 3;

/// The rewrites of `stmt` (one statement, as its file has it) that give the code the value
/// `fault` says it lacked, likeliest first, each with what it does: a `None` read where a
/// value was wanted given an empty one (`(parsed.hostname or '')`), or its statement skipped
/// (`if v is None: return`) where an attribute was asked of it; a value converted (`str(x)`);
/// an index past the end taken as a slice (`s[-1]` → `s[-1:]`). None for a `raise`: what
/// it raises is not the fault.
pub fn statement_rewrites(fault: &Fault, stmt: &str) -> Vec<(String, String)> {
    if stmt.trim_start().starts_with("raise ") {
        return Vec::new();
    }
    let read = values(stmt);
    let splice = |v: &Value, new: &str| format!("{}{new}{}", &stmt[..v.start], &stmt[v.end..]);
    let mut out = Vec::new();
    match fault {
        Fault::Missing {
            empties,
            attribute: Some(attr),
        } => {
            let suffix = format!(".{attr}");
            let indent = &stmt[..stmt.len() - stmt.trim_start().len()];
            for v in read.iter().filter(|v| v.text.ends_with(&suffix)) {
                let receiver = &v.text[..v.text.len() - suffix.len()];
                for e in empties {
                    let new = format!("({receiver} or {e}){suffix}");
                    let why = format!("`{receiver}` may be None: `{e}` in its place");
                    out.push((splice(v, &new), why));
                }
                if !stmt.trim_start().starts_with("return ") {
                    let new = format!("{indent}if {receiver} is None:\n{indent}    return\n{stmt}");
                    out.push((new, format!("`{receiver}` may be None: return before it")));
                }
            }
        }
        Fault::Missing { empties, .. } => {
            for v in read.iter().filter(|v| !v.called).take(MAX_VALUES) {
                for e in empties {
                    let why = format!("`{}` may be None: `{e}` in its place", v.text);
                    let or = if whole_argument(stmt, v) {
                        format!("{} or {e}", v.text)
                    } else {
                        format!("({} or {e})", v.text)
                    };
                    out.push((splice(v, &or), why));
                }
            }
        }
        Fault::Cast(casts) => {
            for v in read.iter().filter(|v| !v.called).take(MAX_VALUES) {
                for c in casts {
                    let why = format!("`{}` converted with `{c}`", v.text);
                    out.push((splice(v, &format!("{c}({})", v.text)), why));
                }
            }
        }
        Fault::Index => out.extend(slices(stmt)),
    }
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// Whether `v` is a whole argument of a call in `stmt` (`f(x)`, `f(a, x, b)`): `x or e`
/// needs no brackets there.
fn whole_argument(stmt: &str, v: &Value) -> bool {
    let before = stmt[..v.start].trim_end().chars().last();
    let after = stmt[v.end..].trim_start().chars().next();
    matches!(before, Some('(' | ',')) && matches!(after, Some(')' | ','))
}

/// `stmt` with one constant index (`x[-1]`, `x[0]`) taken as a one-item slice, which is
/// empty instead of raising on an empty sequence; one rewrite per such index.
fn slices(stmt: &str) -> Vec<(String, String)> {
    let m = masked(stmt);
    let mut out = Vec::new();
    for (open, _) in m.iter().enumerate().filter(|(_, c)| **c == b'[') {
        if open == 0 || !(ident(m[open - 1]) || m[open - 1] == b')' || m[open - 1] == b']') {
            continue;
        }
        let Some(close) = m[open..].iter().position(|c| *c == b']').map(|p| open + p) else {
            continue;
        };
        let inner = stmt[open + 1..close].trim();
        let Ok(n) = inner.parse::<i64>() else {
            continue;
        };
        let slice = match n {
            -1 => "-1:".to_string(),
            n if n < 0 => format!("{n}:{}", n + 1),
            n => format!("{n}:{}", n + 1),
        };
        let new = format!("{}[{slice}]{}", &stmt[..open], &stmt[close + 1..]);
        out.push((new, format!("`[{inner}]` taken as the slice `[{slice}]`")));
    }
    out
}

/// The parameters a signature (`def f(self, url, args=None, *rest, **kw):`, over one or more
/// lines) names, without `self`/`cls`, the starred ones, annotations and defaults.
pub fn parameters(signature: &str) -> Vec<String> {
    let Some(open) = signature.find('(') else {
        return Vec::new();
    };
    let m = masked(signature);
    let mut depth = 0i32;
    let mut parts = Vec::new();
    let mut from = open + 1;
    for (i, c) in m.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    parts.push(&signature[from..i]);
                    break;
                }
            }
            b',' if depth == 1 => {
                parts.push(&signature[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts
        .iter()
        .map(|p| {
            let p = p.trim();
            let end = p.find([':', '=']).unwrap_or(p.len());
            p[..end].trim().to_string()
        })
        .filter(|p| {
            !p.is_empty()
                && !p.starts_with('*')
                && p != "/"
                && p != "self"
                && p != "cls"
                && p.bytes().all(ident)
        })
        .collect()
}

/// The guards to put at a function's top for a `None` parameter `param`, likeliest first:
/// `if param is None:` then the parameter given an empty value, or the function returning at
/// once one of `returned` (the other parameters its `return` statements give back), or
/// `None`. Each guard's lines without indent.
pub fn guards(param: &str, empties: &[&str], returned: &[String]) -> Vec<(Vec<String>, String)> {
    let test = format!("if {param} is None:");
    let mut out: Vec<(Vec<String>, String)> = empties
        .iter()
        .map(|e| {
            (
                vec![test.clone(), format!("    {param} = {e}")],
                format!("`{param}` may be None: `{e}` in its place"),
            )
        })
        .collect();
    for r in returned.iter().filter(|r| *r != param) {
        out.push((
            vec![test.clone(), format!("    return {r}")],
            format!("`{param}` may be None: return `{r}`"),
        ));
    }
    out.push((
        vec![test, "    return None".to_string()],
        format!("`{param}` may be None: return None"),
    ));
    out
}
