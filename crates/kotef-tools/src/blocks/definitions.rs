//! Whole definitions in a code block: where each top-level definition of a Python (or
//! brace-language) text starts and ends, the docstrings kept when one is replaced, Python
//! docstrings shown apart from the code, and the imports a new definition needs added.

/// A top-level-in-the-block definition: its name, its indent, and its lines `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Definition {
    pub(super) name: String,
    pub(super) indent: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) use crate::defs::{code_definitions, defined_name, definition_end, indent_of};

/// The outermost definitions of `lines` (decorators included).
pub(super) fn definitions(lines: &[&str]) -> Vec<Definition> {
    let mut out = Vec::new();
    let mut i = 0;
    let base = lines
        .iter()
        .filter(|l| defined_name(l).is_some())
        .map(|l| indent_of(l))
        .min();
    let Some(base) = base else {
        return out;
    };
    while i < lines.len() {
        let l = lines[i];
        match defined_name(l) {
            Some(name) if indent_of(l) == base => {
                let mut start = i;
                while start > 0 && lines[start - 1].trim_start().starts_with('@') {
                    start -= 1;
                }
                let end = definition_end(lines, i).max(i + 1);
                out.push(Definition {
                    name,
                    indent: base,
                    start,
                    end,
                });
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// A Python definition's header and docstring: the index after the header (the line that
/// ends in `:`), and the docstring's line range, if the body opens with one. `None` for a
/// definition that is not Python's (`def`, `async def`, `class`).
pub(super) fn python_header_and_doc<S: AsRef<str>>(
    lines: &[S],
) -> Option<(usize, Option<(usize, usize)>)> {
    let def_at = lines.iter().position(|l| {
        let t = l.as_ref().trim_start();
        let t = t.strip_prefix("async ").unwrap_or(t);
        t.starts_with("def ") || t.starts_with("class ")
    })?;
    let header_end =
        (def_at..lines.len()).find(|&i| lines[i].as_ref().trim_end().ends_with(':'))? + 1;
    let first = (header_end..lines.len()).find(|&i| !lines[i].as_ref().trim().is_empty());
    let doc = first.and_then(|i| {
        let t = lines[i].as_ref().trim_start();
        let t = t.trim_start_matches(['r', 'R', 'u', 'U']);
        let quote = ["\"\"\"", "'''"].into_iter().find(|q| t.starts_with(q))?;
        if t[3..].contains(quote) {
            return Some((i, i + 1));
        }
        (i + 1..lines.len())
            .find(|&j| lines[j].as_ref().contains(quote))
            .map(|j| (i, j + 1))
    });
    Some((header_end, doc))
}

/// A Python file's code with its definitions' docstrings taken out, and the docstrings by the
/// name they document (dedented, quotes kept). A small model copies what it is shown: shown
/// the code without its docstrings, it writes a corrected function of a third of the tokens,
/// and [`replace_definitions`] puts the docstring back. Text without docstrings is returned
/// as it is, with none.
pub fn split_docstrings(text: &str) -> (String, Vec<(String, String)>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut keep = vec![true; lines.len()];
    let mut docs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let python_def = {
            let t = lines[i].trim_start();
            let t = t.strip_prefix("async ").unwrap_or(t);
            t.starts_with("def ") || t.starts_with("class ")
        };
        let name = defined_name(lines[i]).filter(|_| python_def);
        if let (Some(name), Some((_, Some((from, to))))) =
            (name, python_header_and_doc(&lines[i..]))
        {
            let (from, to) = (i + from, i + to);
            let indent = indent_of(lines[from]);
            let doc: Vec<String> = lines[from..to]
                .iter()
                .map(|l| l.get(indent.min(indent_of(l))..).unwrap_or(l).to_string())
                .collect();
            docs.push((name, doc.join("\n")));
            keep[from..to].iter_mut().for_each(|k| *k = false);
            i = to;
            continue;
        }
        i += 1;
    }
    if docs.is_empty() {
        return (text.to_string(), docs);
    }
    let mut code: Vec<&str> = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(l, _)| *l)
        .collect();
    if text.ends_with('\n') {
        code.push("");
    }
    (code.join("\n"), docs)
}

/// Puts the original's docstring back into a Python replacement that has none: the model is
/// asked for the corrected function without it (fewer tokens to write, none to garble).
pub(super) fn keep_docstring(replacement: &mut Vec<String>, original: &[&str]) {
    let Some((_, Some((from, to)))) = python_header_and_doc(original) else {
        return;
    };
    let Some((header_end, None)) = python_header_and_doc(replacement) else {
        return;
    };
    let doc: Vec<String> = original[from..to].iter().map(|l| l.to_string()).collect();
    replacement.splice(header_end..header_end, doc);
}

/// `file` with the top-level imports of `code` it lacks (a fix that needs `import re`) put
/// after its own imports, or first.
pub(super) fn add_imports(file: &str, code: &str) -> String {
    let is_import = |l: &str| {
        (l.starts_with("import ") || l.starts_with("from ") && l.contains(" import "))
            && !l.contains('(')
    };
    let lines: Vec<&str> = file.lines().collect();
    let own: Vec<String> = code_definitions(&lines)
        .into_iter()
        .filter(|(i, _)| indent_of(lines[*i]) == 0)
        .map(|(_, n)| n)
        .collect();
    // `from luigi.parameter import TupleParameter` copied into `luigi/parameter.py` itself
    // would import the file from itself.
    let imports_own = |l: &str| {
        l.starts_with("from ")
            && l.split(" import ").nth(1).is_some_and(|names| {
                names.split(',').any(|n| {
                    own.iter()
                        .any(|o| o == n.split_whitespace().next().unwrap_or(""))
                })
            })
    };
    let missing: Vec<&str> = code
        .lines()
        .filter(|l| is_import(l) && !imports_own(l))
        .filter(|l| !file.lines().any(|f| f.trim_end() == l.trim_end()))
        .collect();
    if missing.is_empty() {
        return file.to_string();
    }
    let at = lines
        .iter()
        .rposition(|l| is_import(l))
        .map_or(0, |i| i + 1);
    let mut out: Vec<&str> = lines[..at].to_vec();
    out.extend(&missing);
    if at == 0 {
        out.push("");
    }
    out.extend(&lines[at..]);
    let mut joined = out.join("\n");
    if file.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

pub(super) fn reindent(line: &str, from: usize, to: usize) -> String {
    if line.trim().is_empty() {
        return String::new();
    }
    let have = indent_of(line);
    let keep = have.saturating_sub(from);
    format!("{}{}", " ".repeat(to + keep), line.trim_start())
}
