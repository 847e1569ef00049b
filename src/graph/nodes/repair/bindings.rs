//! Bindings for a name the code reads and no module statement binds
//! ([`crate::lang::missing_name`]): when the failing run ends in `NameError: name 'x' is not
//! defined` at a frame in the project's code (outside the tests' code) whose module does not
//! bind `x`, the lines the project's other modules bind `x` with at their top level — an
//! import, an assignment with the imports it reads, an import of its definition — each
//! inserted after the module's imports. A missing import is fixed by the project's own
//! words, with no model call; the tests judge each as any template.

use super::placed::Candidate;
use crate::graph::prompt::code_view::Traceback;
use crate::lang::missing_name::{binds, import_end, insert_at, inserts, undefined};
use kotef_tools::{Change, EditBlock};

/// The bindings for the name the failure in `output` says is not defined, in the module of
/// the deepest frame of `trace` in `files` (the code shown) that reads it and is not the
/// tests' code (`tests_code`); `project` reads the project's code (only when such a frame
/// is found).
pub fn candidates(
    output: &str,
    trace: &Traceback,
    files: &[(String, String)],
    tests_code: impl Fn(&str) -> bool,
    project: impl FnOnce() -> Vec<(String, String)>,
) -> Vec<Candidate> {
    let Some(name) = undefined(output) else {
        return Vec::new();
    };
    let frame = trace.repo.iter().find_map(|(path, line)| {
        let (_, text) = files.iter().find(|(p, _)| p == path)?;
        let read = line
            .checked_sub(1)
            .and_then(|i| text.lines().nth(i))
            .is_some_and(|l| reads_word(l, &name));
        (read && !tests_code(path)).then_some((path.as_str(), text.as_str()))
    });
    let Some((path, text)) = frame else {
        return Vec::new();
    };
    if binds(text, &name) {
        return Vec::new();
    }
    let project = project();
    let donors = project
        .iter()
        .filter(|(p, _)| p != path)
        .map(|(p, t)| (p.as_str(), t.as_str(), tests_code(p)));
    let at = import_end(text);
    inserts(&name, text, donors)
        .into_iter()
        .filter_map(|insert| {
            let (search, replace) = insert_at(text, at, &insert)?;
            let first = insert.lines().last().unwrap_or_default().to_string();
            Some(Candidate {
                block: EditBlock {
                    path: Some(path.to_string()),
                    change: Change::Replace { search, replace },
                },
                why: format!("binding: `{first}` ({path}:{})", at + 1),
            })
        })
        .collect()
}

/// Whether `line` holds `name` as a whole word.
fn reads_word(line: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(name).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}
