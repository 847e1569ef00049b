//! Mutations of the regular expressions a Python statement writes as raw strings, as pure
//! functions over text: the small edits that most often separate a pattern that fails to
//! match an input from one that matches it (after the mutation operators of MutRex, Arcaini
//! et al., ICST 2017, and the repairs of RFixer, Pan et al., OOPSLA 2019): a `+` that should
//! be `*`, a group that should be optional, a character a class should not exclude (or
//! should), an anchor too many. Which statements to mutate and whether a mutant fixes
//! anything is the repair loop's to say: the project's tests judge each.

/// One raw string literal of a statement that reads as a pattern: the byte range of its body
/// (between the quotes) and its quote character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pub start: usize,
    pub end: usize,
    pub quote: char,
}

/// The characters that make a raw string a pattern rather than a path or a message.
const META: &[char] = &['[', '(', '\\', '+', '*', '?', '^', '$', '|', '{'];

/// The raw string literals of `stmt` (`r'…'`, `r"…"`, one line each) holding a pattern's
/// characters; a triple-quoted one is not read.
pub fn patterns(stmt: &str) -> Vec<Pattern> {
    let b = stmt.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'#' {
            break;
        }
        if c != b'\'' && c != b'"' {
            i += 1;
            continue;
        }
        let raw = i > 0 && matches!(b[i - 1], b'r' | b'R')
            || i > 1 && matches!(b[i - 1], b'b' | b'B') && matches!(b[i - 2], b'r' | b'R');
        if b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c) {
            return out;
        }
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j] != c && b[j] != b'\n' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        let end = j.min(b.len());
        let body = &stmt[start..end];
        if raw && body.contains(META) {
            out.push(Pattern {
                start,
                end,
                quote: c as char,
            });
        }
        i = end + 1;
    }
    out
}

/// One item of a pattern: its byte range, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// An escape (`\(`, `\d`) or a plain character outside a class.
    Atom,
    /// A class, `[…]`: whether it is negated, and the range of its members.
    Class {
        negated: bool,
        members: (usize, usize),
    },
    /// `(`: a group opens (`lookaround` for `(?=`, `(?!`, `(?<=`, `(?<!`).
    Open { lookaround: bool },
    /// `)`.
    Close,
    /// `*`, `+`, `?` or `{m,n}`.
    Quantifier,
    /// `|`, `^`, `$`.
    Other,
}

/// The items of `p`, in order, with their byte ranges.
fn items(p: &str) -> Vec<(usize, usize, Item)> {
    let b = p.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (len, item) = match b[i] {
            b'\\' => (2, Item::Atom),
            b'[' => {
                let negated = b.get(i + 1) == Some(&b'^');
                let first = i + 1 + usize::from(negated);
                // A `]` right after `[` or `[^` is a member.
                let mut j = first + usize::from(b.get(first) == Some(&b']'));
                while j < b.len() && b[j] != b']' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                if j >= b.len() {
                    return out;
                }
                let item = Item::Class {
                    negated,
                    members: (first, j),
                };
                (j + 1 - i, item)
            }
            b'(' => {
                let rest = &p[i..];
                let lookaround = ["(?=", "(?!", "(?<=", "(?<!"]
                    .iter()
                    .any(|l| rest.starts_with(l));
                (1, Item::Open { lookaround })
            }
            b')' => (1, Item::Close),
            b'*' | b'+' | b'?' => (1, Item::Quantifier),
            b'{' => match p[i..].find('}') {
                Some(e)
                    if p[i + 1..i + e]
                        .bytes()
                        .all(|c| c.is_ascii_digit() || c == b',') =>
                {
                    (e + 1, Item::Quantifier)
                }
                _ => (1, Item::Atom),
            },
            b'|' | b'^' | b'$' => (1, Item::Other),
            _ => (p[i..].chars().next().map_or(1, char::len_utf8), Item::Atom),
        };
        let end = (i + len).min(b.len());
        out.push((i, end, item));
        i = end;
    }
    out
}

/// The members of a class's range `members` of `p` that stand alone (a character or an
/// escape, not part of a range such as `a-z`), with their byte ranges.
fn single_members(p: &str, (from, to): (usize, usize)) -> Vec<(usize, usize)> {
    let b = p.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        let len = if b[i] == b'\\' {
            2
        } else {
            p[i..].chars().next().map_or(1, char::len_utf8)
        };
        let ranged = b.get(i + len) == Some(&b'-') && i + len + 1 < to;
        if ranged {
            let after = i + len + 1;
            i = after
                + if b[after] == b'\\' {
                    2
                } else {
                    p[after..].chars().next().map_or(1, char::len_utf8)
                };
            continue;
        }
        out.push((i, (i + len).min(to)));
        i += len;
    }
    out
}

/// The most mutants of one pattern.
pub const MAX_MUTANTS: usize = 24;

/// The mutants of pattern `p` (a raw string's body written with `quote`), likeliest first,
/// each with what it changes: every `+` as `*`; every group made optional; every member a
/// negated class excludes left out; a leading `^` or trailing `$` dropped; each of `extra`
/// (characters the failing test's inputs hold) added to every class; every member of a
/// class that is not negated left out. At most [`MAX_MUTANTS`].
pub fn mutants(p: &str, quote: char, extra: &[char]) -> Vec<(String, String)> {
    let all = items(p);
    let splice = |from: usize, to: usize, new: &str| format!("{}{new}{}", &p[..from], &p[to..]);
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, (s, e, item)) in all.iter().enumerate() {
        let prev = k.checked_sub(1).map(|j| all[j].2);
        let follows_atom = matches!(prev, Some(Item::Atom | Item::Class { .. } | Item::Close));
        if *item == Item::Quantifier && &p[*s..*e] == "+" && follows_atom {
            out.push((splice(*s, *e, "*"), format!("`+` at {s} as `*`")));
        }
    }
    let mut opens: Vec<(usize, bool)> = Vec::new();
    for (k, (s, e, item)) in all.iter().enumerate() {
        match item {
            Item::Open { lookaround } => opens.push((*s, *lookaround)),
            Item::Close => {
                let Some((open, lookaround)) = opens.pop() else {
                    continue;
                };
                let quantified = matches!(all.get(k + 1), Some((_, _, Item::Quantifier)));
                if !lookaround && !quantified {
                    let why = format!("the group `{}` made optional", &p[open..*e]);
                    out.push((splice(*e, *e, "?"), why));
                }
            }
            _ => {}
        }
    }
    let classes: Vec<(bool, (usize, usize))> = all
        .iter()
        .filter_map(|(_, _, i)| match i {
            Item::Class { negated, members } => Some((*negated, *members)),
            _ => None,
        })
        .collect();
    let leave_out = |negated: bool, out: &mut Vec<(String, String)>| {
        for (_, members) in classes.iter().filter(|(n, _)| *n == negated) {
            let singles = single_members(p, *members);
            if singles.len() < 2 && members.1 - members.0 < 2 {
                continue;
            }
            for (ms, me) in singles {
                out.push((
                    splice(ms, me, ""),
                    format!("`{}` left out of its class", &p[ms..me]),
                ));
            }
        }
    };
    leave_out(true, &mut out);
    if let Some(rest) = p.strip_prefix('^') {
        out.push((rest.to_string(), "the leading `^` dropped".into()));
    }
    if p.ends_with('$') && !p.ends_with("\\$") {
        out.push((
            p[..p.len() - 1].to_string(),
            "the trailing `$` dropped".into(),
        ));
    }
    for c in extra.iter().filter(|c| **c != quote) {
        let written = match c {
            ']' | '\\' | '^' | '-' | '[' => format!("\\{c}"),
            c => c.to_string(),
        };
        for (_, (from, to)) in &classes {
            if p[*from..*to].contains(written.as_str()) {
                continue;
            }
            let why = format!("`{c}` added to the class at {from}");
            out.push((splice(*from, *from, &written), why));
        }
    }
    leave_out(false, &mut out);
    out.dedup_by(|a, b| a.0 == b.0);
    out.truncate(MAX_MUTANTS);
    out
}

/// The punctuation the string literals of `code` (a failing test) hold: the characters a
/// pattern's class may wrongly exclude or need, in order of first appearance, at most six.
pub fn literal_punctuation(code: &str) -> Vec<char> {
    let mut out: Vec<char> = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in code.chars() {
        match quote {
            None if c == '\'' || c == '"' => quote = Some(c),
            None => {}
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) if c.is_ascii_punctuation() && !out.contains(&c) && out.len() < 6 => {
                out.push(c)
            }
            Some(_) => {}
        }
    }
    out
}
