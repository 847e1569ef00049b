//! Which lines of a file a prompt shows as excerpts: the definitions around the traceback's
//! lines and those the failure names, the functions short wrappers hand their work to, and
//! where a named attribute is set ([`focus`]).

use super::{words_at, EXCERPTS, WRAPPER_LINES};
use kotef_tools::outline::{defined, enclosing};

/// The lines of `text` a prompt shows as excerpts, first to last line (1-based), the frames'
/// definitions first: the definitions around `lines` (a window around a line outside any),
/// those named in `names`, the functions short wrappers hand their work to, and where a
/// named attribute is set. What the attempts look at; the repair's line attempts offer their
/// statements (`repair::lines`).
pub fn focus(text: &str, lines: &[usize], names: &[String]) -> Vec<(usize, usize)> {
    let all: Vec<&str> = text.lines().collect();
    picks(text, &all, lines, names)
        .into_iter()
        .map(|(f, l, _)| (f, l))
        .collect()
}

/// [`focus`] with each excerpt's name.
pub(super) fn picks(text: &str, all: &[&str], lines: &[usize], names: &[String]) -> Vec<Picked> {
    let mut picked: Vec<Picked> = Vec::new();
    for &line in lines {
        match enclosing(text, line) {
            Some(d) => pick(&mut picked, d.first, d.last, Some(d.name)),
            None => pick(
                &mut picked,
                line.saturating_sub(10).max(1),
                (line + 10).min(all.len()),
                None,
            ),
        }
    }
    for n in names {
        if let Some(d) = defined(text, n).into_iter().find(|d| !d.is_class()) {
            pick(&mut picked, d.first, d.last, Some(d.name));
        }
    }
    follow_wrappers(text, all, &mut picked);
    // An attribute the failure names (`self.last_active + 1` on None) is shown where it is
    // set: the function that assigns it first.
    for n in names {
        let set = format!("self.{n} =");
        if let Some(at) = all.iter().position(|l| l.trim_start().starts_with(&set)) {
            if let Some(d) = enclosing(text, at + 1) {
                pick(&mut picked, d.first, d.last, Some(d.name));
            }
        }
    }
    picked
}

/// An excerpt's first and last line, and the definition it shows (`None`: the lines around
/// a frame outside any function).
pub(super) type Picked = (usize, usize, Option<String>);

/// Adds the excerpt `first..=last` unless [`EXCERPTS`] are picked or one holds it.
fn pick(picked: &mut Vec<Picked>, first: usize, last: usize, name: Option<String>) {
    if picked.len() < EXCERPTS && !picked.iter().any(|(f, l, _)| *f <= first && last <= *l) {
        picked.push((first, last, name));
    }
}

/// A picked function of at most [`WRAPPER_LINES`] lines hands its work on: the functions of
/// this file it calls are picked too (`get_element_by_attribute` calls
/// `get_elements_by_attribute`, where the bug is).
fn follow_wrappers(text: &str, all: &[&str], picked: &mut Vec<Picked>) {
    let wrappers: Vec<(usize, usize)> = picked
        .iter()
        .filter(|(f, l, _)| l + 1 - f <= WRAPPER_LINES)
        .map(|(f, l, _)| (*f, *l))
        .collect();
    for (first, last) in wrappers {
        let Some(body) = all.get(first.saturating_sub(1)..last.min(all.len())) else {
            continue;
        };
        let body = body.join("\n");
        for (at, word) in words_at(&body) {
            if !body[at + word.len()..].starts_with('(') {
                continue;
            }
            if let Some(d) = defined(text, word)
                .into_iter()
                .find(|d| !d.is_class() && d.first != first)
            {
                pick(picked, d.first, d.last, Some(d.name));
            }
        }
    }
}
