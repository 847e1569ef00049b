//! Fix templates for Python's type errors ([`crate::lang::type_repair`], after PyTER) at the
//! traceback's frames in the project's code: the statement a frame stopped at given the value
//! the failure says it lacked, converted or sliced, and `None` guards at its function's top.
//! Where a deliberate `raise` stopped the deepest frame (`raise TypeError('to_bytes must
//! receive …')`), its callers come first, innermost first: the value came from there.

use super::placed::{replaced, Candidate};
use super::targets::{span_at, Target};
use crate::graph::prompt::code_view::Traceback;
use crate::lang::traceback::exception_line;
use crate::lang::type_repair::{self, Fault};

/// The most type templates in one step.
pub const MAX_CANDIDATES: usize = 12;

/// The most frames whose statements and functions are tried.
pub const MAX_FRAMES: usize = 3;

/// The most templates tried at one frame.
pub const MAX_PER_FRAME: usize = 6;

/// The most parameters of one function given a `None` guard.
pub const MAX_GUARDED: usize = 2;

/// The fault the failing run's `output` says the code made: its last raising line a
/// template knows, with that line's message.
pub fn fault_of(output: &str) -> Option<(Fault, String)> {
    output.lines().rev().find_map(|l| {
        let (class, message) = exception_line(l)?;
        Some((type_repair::fault(&class, &message)?, message))
    })
}

/// The templates for the failure in `output` at the frames of `trace` in `files` (the code
/// shown, tests not among it), likeliest first, at most [`MAX_CANDIDATES`].
pub fn candidates(output: &str, trace: &Traceback, files: &[(String, String)]) -> Vec<Candidate> {
    let Some((fault, message)) = fault_of(output) else {
        return Vec::new();
    };
    let mut frames: Vec<(&str, &str, usize)> = trace
        .repo
        .iter()
        .filter_map(|(path, line)| {
            let (_, text) = files.iter().find(|(p, _)| p == path)?;
            Some((path.as_str(), text.as_str(), *line))
        })
        .collect();
    let raised = frames.first().is_some_and(|(_, text, line)| {
        line.checked_sub(1)
            .and_then(|i| text.lines().nth(i))
            .is_some_and(|l| l.trim_start().starts_with("raise "))
    });
    if raised && frames.len() > 1 {
        frames.rotate_left(1);
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (path, text, line) in frames.into_iter().take(MAX_FRAMES) {
        let mut here = at_frame(&fault, &message, path, text, line);
        here.retain(|c| !out.contains(c));
        here.truncate(MAX_PER_FRAME);
        out.extend(here);
    }
    out.truncate(MAX_CANDIDATES);
    out
}

/// The templates at one frame: its statement rewritten, then guards at its function's top.
fn at_frame(fault: &Fault, message: &str, path: &str, text: &str, line: usize) -> Vec<Candidate> {
    let mut out = Vec::new();
    let Some((start, _)) = span_at(text, line) else {
        return out;
    };
    let Some(target) = Target::around(path, text, start + 1) else {
        return out;
    };
    for (new, why) in type_repair::statement_rewrites(fault, &target.text) {
        out.push(replaced(&target, &new, why));
    }
    if let Fault::Missing { empties, .. } = fault {
        out.extend(function_guards(empties, message, path, text, &target));
    }
    out
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// The 0-based line of the `def` enclosing the statement at 0-based `at`, if one does.
fn enclosing_def(lines: &[&str], at: usize) -> Option<usize> {
    let mut within = indent(lines.get(at)?);
    for i in (0..at).rev() {
        let l = lines[i];
        if l.trim().is_empty() || l.trim_start().starts_with('#') || indent(l) >= within {
            continue;
        }
        let t = l.trim_start();
        if t.strip_prefix("async ").unwrap_or(t).starts_with("def ") {
            return Some(i);
        }
        if t.starts_with("class ") || indent(l) == 0 {
            return None;
        }
        within = indent(l);
    }
    None
}

/// The 0-based line of the first statement of the function whose signature spans
/// `def_at..=sig_end`, after its docstring.
fn body_start(lines: &[&str], sig_end: usize) -> Option<usize> {
    let mut i = sig_end + 1;
    let mut in_doc: Option<&str> = None;
    while i < lines.len() {
        let t = lines[i].trim();
        if let Some(q) = in_doc {
            if t.contains(q) {
                in_doc = None;
            }
        } else if t.is_empty() || t.starts_with('#') {
        } else if let Some(q) = ["\"\"\"", "'''"]
            .into_iter()
            .find(|q| t.trim_start_matches(['r', 'u', 'b']).starts_with(q))
        {
            let rest = &t[t.find(q).map_or(0, |p| p + 3)..];
            if !rest.contains(q) {
                in_doc = Some(q);
            }
        } else {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The `None` guards for the parameters of the function around `t`, at its first statement:
/// the parameters `t` reads or the `message` names first.
fn function_guards(
    empties: &[&str],
    message: &str,
    path: &str,
    text: &str,
    t: &Target,
) -> Vec<Candidate> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(def_at) = enclosing_def(&lines, t.line - 1) else {
        return Vec::new();
    };
    let Some((_, signature)) = span_at(text, def_at + 1) else {
        return Vec::new();
    };
    let sig_end = def_at + signature.lines().count() - 1;
    let Some(first) = body_start(&lines, sig_end).and_then(|b| Target::around(path, text, b + 1))
    else {
        return Vec::new();
    };
    let def_indent = indent(lines[def_at]);
    let body: Vec<&str> = lines[first.line - 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > def_indent)
        .copied()
        .collect();
    let mut params = type_repair::parameters(&signature);
    let read: Vec<String> = type_repair::values(&t.text)
        .into_iter()
        .map(|v| v.text)
        .collect();
    let named = |p: &String| {
        read.contains(p)
            || message
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == p)
    };
    params.sort_by_key(|p| !named(p));
    let returned: Vec<String> = body
        .iter()
        .filter_map(|l| l.trim().strip_prefix("return "))
        .map(|r| r.trim().to_string())
        .filter(|r| params.contains(r))
        .collect();
    let pad = " ".repeat(indent(first.text.lines().next().unwrap_or("")));
    let mut out = Vec::new();
    for p in params.iter().take(MAX_GUARDED) {
        for (guard, why) in type_repair::guards(p, empties, &returned) {
            let guard: Vec<String> = guard.iter().map(|g| format!("{pad}{g}")).collect();
            let new = format!("{}\n{}", guard.join("\n"), first.text);
            out.push(replaced(&first, &new, why));
        }
    }
    out
}
