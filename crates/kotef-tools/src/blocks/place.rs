//! Putting a block's definitions in place: each replaces the file's definition of its name
//! that it was copied from, a partial class changes the methods it holds
//! ([`super::classes`]), and the imports a new definition needs are added.

use super::classes::{self, Piece};
use super::definitions::{add_imports, definitions, keep_docstring, reindent};
use crate::defs::{code_definitions, definition_end, indent_of};

/// `file` with each definition of `code` put in place of the file's definition of the same
/// name (re-indented to where it goes); `None` when no definition of `code` is in `file`. A
/// class written with only some of its methods changes those ([`classes::merged_class`]), and
/// a class the file does not have is read as the methods it holds.
pub fn replace_definitions(file: &str, code: &str) -> Option<String> {
    let code_lines: Vec<&str> = code.lines().collect();
    let mut work: std::collections::VecDeque<Piece> = definitions(&code_lines)
        .iter()
        .map(|d| classes::piece(&code_lines, d))
        .collect();
    let mut text = file.to_string();
    let mut placed = 0;
    while let Some(piece) = work.pop_front() {
        let lines: Vec<&str> = text.lines().collect();
        let written: Vec<&str> = piece.lines.iter().map(String::as_str).collect();
        let Some(at) = closest_definition(&lines, &piece.name, &written) else {
            work.extend(classes::methods(&written));
            continue;
        };
        let mut start = at;
        while start > 0 && lines[start - 1].trim_start().starts_with('@') {
            start -= 1;
        }
        let end = definition_end(&lines, at).max(at + 1);
        let to = indent_of(lines[at]);
        let mut replacement: Vec<String> = written
            .iter()
            .map(|l| reindent(l, piece.indent, to))
            .collect();
        let elsewhere = |name: &str| {
            code_definitions(&lines)
                .iter()
                .any(|(i, n)| n == name && !(at..end).contains(i))
        };
        match classes::merged_class(&lines[at..end], &replacement, elsewhere) {
            Some(merged) => {
                (start, replacement) = (at, merged.class);
                work.extend(merged.elsewhere);
            }
            None => keep_docstring(&mut replacement, &lines[start..end]),
        }
        let mut next: Vec<String> = lines[..start].iter().map(|s| s.to_string()).collect();
        next.extend(replacement);
        next.extend(lines[end..].iter().map(|s| s.to_string()));
        let mut joined = next.join("\n");
        if text.ends_with('\n') {
            joined.push('\n');
        }
        text = joined;
        placed += 1;
    }
    if placed == 0 {
        return None;
    }
    Some(add_imports(&text, code))
}

/// Where in `lines` the definition named `name` that `written` rewrites starts: of the
/// file's definitions of that name (never one inside a string, such as a docstring's
/// example), the one sharing the most lines with `written`, the first on a tie. A file has
/// many `parse` or `__init__` methods, and the one the model was shown is the one it copies.
fn closest_definition(lines: &[&str], name: &str, written: &[&str]) -> Option<usize> {
    let written: std::collections::BTreeSet<&str> = written
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let shared = |at: usize| {
        let end = definition_end(lines, at).max(at + 1);
        lines[at..end]
            .iter()
            .map(|l| l.trim())
            .filter(|l| written.contains(l))
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let mut best: Option<(usize, usize)> = None;
    for (at, _) in code_definitions(lines)
        .into_iter()
        .filter(|(_, n)| n == name)
    {
        let score = shared(at);
        if best.is_none_or(|(_, s)| score > s) {
            best = Some((at, score));
        }
    }
    best.map(|(at, _)| at)
}
