//! Mutations of the conditions one Python statement holds, as pure functions over text: the
//! operators mutation-based program repair tries first (relational and logical operator
//! replacement, as in jMutRepair, Martinez & Monperrus, ISSTA 2016 demo; condition negation,
//! as in Nopol's and ACS's condition repairs): each comparison flipped (`is`/`is not`,
//! `==`/`!=`, `in`/`not in`) or its boundary moved (`<`/`<=`, `>`/`>=`), each `and`/`or`
//! swapped, and the condition of an `if`, `elif` or `while` negated as a whole. A wrong
//! condition is one of the commonest one-line bugs, and a small model that writes the right
//! line often keeps the wrong operator. Strings and comments are never mutated. Where to try
//! them, and whether one works, is the repair loop's to say (`graph::nodes::repair::conditions`):
//! the project's tests, and the failing test's neighbours, judge each.

use super::type_repair::masked;

/// The most mutants of one statement.
pub const MAX_MUTANTS: usize = 8;

/// The operators flipped, longest first where one begins another: what is found in the
/// masked statement, what replaces it, and the words that say so.
const FLIPS: [(&str, &str); 12] = [
    (" is not ", " is "),
    (" is ", " is not "),
    (" not in ", " in "),
    (" in ", " not in "),
    ("==", "!="),
    ("!=", "=="),
    ("<=", "<"),
    (">=", ">"),
    ("<", "<="),
    (">", ">="),
    (" and ", " or "),
    (" or ", " and "),
];

/// The mutants of `stmt` (see the module's doc), each with what it changed: the operators in
/// the order they are written, then the negated condition; at most [`MAX_MUTANTS`].
pub fn mutants(stmt: &str) -> Vec<(String, String)> {
    let m = masked(stmt);
    let mut out: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < m.len() {
        let Some((from, to)) = FLIPS.iter().find(|(f, _)| m[i..].starts_with(f.as_bytes())) else {
            i += 1;
            continue;
        };
        let end = i + from.len();
        if operator_here(&m, i, end, from) {
            let new = format!("{}{to}{}", &stmt[..i], &stmt[end..]);
            out.push((new, format!("`{}` as `{}`", from.trim(), to.trim())));
        }
        i = end;
    }
    out.extend(negated(stmt, &m));
    distinct(stmt, out, MAX_MUTANTS)
}

/// The first `max` of `found` that change `stmt`, each new statement once.
pub(crate) fn distinct(
    stmt: &str,
    found: Vec<(String, String)>,
    max: usize,
) -> Vec<(String, String)> {
    let mut unique: Vec<(String, String)> = Vec::new();
    for c in found {
        if c.0 != stmt && !unique.iter().any(|u| u.0 == c.0) {
            unique.push(c);
        }
    }
    unique.truncate(max);
    unique
}

/// Whether the operator `op` found at `m[i..end]` is one: not part of a longer one (`<<`,
/// `->`, `>>=`, `<=` read as `<`), not an assignment's `=`, and an `in` not a `for`'s.
fn operator_here(m: &[u8], i: usize, end: usize, op: &str) -> bool {
    let before = i.checked_sub(1).map(|p| m[p]);
    let after = m.get(end).copied();
    let punct = |c: Option<u8>| c.is_some_and(|c| b"<>=!-".contains(&c));
    match op {
        "<" | ">" => !punct(before) && !punct(after),
        "==" | "!=" | "<=" | ">=" => !punct(before) && after != Some(b'='),
        " in " => !in_a_for(&m[..i]),
        _ => true,
    }
}

/// Whether an ` in ` after `before` is a `for`'s (`for x in …`, a comprehension's `… for x
/// in …`): a `for` comes before it with no `if` between.
fn in_a_for(before: &[u8]) -> bool {
    let text = String::from_utf8_lossy(before);
    let word = |w: &str| {
        let mut at = None;
        for (p, _) in text.match_indices(w) {
            let start_ok = p == 0 || !ident(text.as_bytes()[p - 1]);
            let end_ok = text.as_bytes().get(p + w.len()).is_none_or(|c| !ident(*c));
            if start_ok && end_ok {
                at = Some(p);
            }
        }
        at
    };
    match (word("for"), word("if")) {
        (Some(f), Some(i)) => f > i,
        (Some(_), None) => true,
        _ => false,
    }
}

fn ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The statement with its `if`/`elif`/`while` condition negated: `not` dropped where it
/// begins the condition, else `not c` (`not (c)` when `c` has a space outside brackets).
fn negated(stmt: &str, m: &[u8]) -> Option<(String, String)> {
    let start = stmt.len() - stmt.trim_start().len();
    let text = String::from_utf8_lossy(m);
    let keyword = ["if ", "elif ", "while "]
        .into_iter()
        .find(|k| text[start..].starts_with(k))?;
    let from = start + keyword.len();
    let colon = text.trim_end().len().checked_sub(1)?;
    if m.get(colon) != Some(&b':') || colon <= from {
        return None;
    }
    let cond = stmt[from..colon].trim();
    let cond_m = text[from..colon].trim();
    let (new, why) = if let Some(rest) = cond_m.strip_prefix("not ") {
        let rest_at = cond.len() - rest.len();
        (cond[rest_at..].trim_start().to_string(), "`not` dropped")
    } else if spaced_outside_brackets(cond_m) {
        (format!("not ({cond})"), "the condition negated")
    } else {
        (format!("not {cond}"), "the condition negated")
    };
    let head = &stmt[..from];
    Some((format!("{head}{new}{}", &stmt[colon..]), why.to_string()))
}

/// Whether masked text has a space outside any bracket (so `not` would bind to its first part).
fn spaced_outside_brackets(m: &str) -> bool {
    let mut depth = 0i32;
    for c in m.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ' ' | '\n' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}
