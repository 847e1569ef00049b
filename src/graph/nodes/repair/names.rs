//! Mutations of the names the best-ranked statements read
//! ([`crate::lang::name_mutation`]): the statements line attempts would be offered first (the
//! frames', then the sweep in the spectrum's order) that read an attribute the project reads
//! others after, call a member's method the class defines too, or read a variable where
//! others are bound; at most [`MAX_STATEMENTS`] of them. The attributes are counted over the
//! project's code ([`kotef_tools::locate::code_files`]: source and tests, bounded in files
//! and bytes), once a step and only when a statement reads one. A swapped name fixes the
//! failing test as easily as it breaks others: a pass is judged against the failing test's
//! neighbours too ([`super::passes`]).

use super::placed::{per_statement, Candidate};
use super::targets::{Target, Targets};
use crate::lang::name_mutation::{mutants, receivers, scope_at, Uses};
use std::collections::BTreeSet;

/// The most statements whose names are mutated.
pub const MAX_STATEMENTS: usize = 5;

/// The most name mutants in one step.
pub const MAX_CANDIDATES: usize = 24;

/// The name mutants of the first [`MAX_STATEMENTS`] offered statements of `targets` that have
/// some, each with the statement's place among them; `files` are the code shown (the
/// statements' files), `project` reads the project's code when a statement reads an
/// attribute.
pub fn candidates(
    targets: &Targets,
    files: &[(String, String)],
    project: impl FnOnce() -> Vec<(String, String)>,
) -> Vec<(usize, Candidate)> {
    let offered: Vec<&Target> = targets.frames.iter().chain(&targets.sweep).collect();
    let read: BTreeSet<String> = offered.iter().flat_map(|t| receivers(&t.text)).collect();
    let mut uses = Uses::default();
    if !read.is_empty() {
        for (_, text) in project() {
            uses.count(&text, &read);
        }
    }
    let scope_of = |t: &Target| {
        let text = files.iter().find(|(p, _)| *p == t.path).map(|(_, x)| x);
        text.map(|x| scope_at(x, t.line.saturating_sub(1)))
            .unwrap_or_default()
    };
    per_statement(
        offered,
        |t| mutants(&t.text, &uses, &scope_of(t)),
        "name",
        (MAX_STATEMENTS, MAX_CANDIDATES),
    )
}
