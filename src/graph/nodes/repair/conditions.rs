//! Mutations of the conditions the best-ranked statements hold
//! ([`crate::lang::condition_mutation`]): the statements line attempts would be offered first
//! (the frames', then the sweep in the spectrum's order) that hold a comparison, an `and`/`or`
//! or an `if`/`elif`/`while` condition, at most [`MAX_STATEMENTS`] of them; each statement's
//! mutants in turn. A flipped condition fixes the failing test easily and breaks the code
//! elsewhere as easily: a pass is judged against the failing test's neighbours too
//! ([`super::passes`]).

use super::placed::{per_statement, Candidate};
use super::targets::Targets;
use crate::lang::condition_mutation::mutants;

/// The most statements whose conditions are mutated.
pub const MAX_STATEMENTS: usize = 5;

/// The most condition mutants in one step.
pub const MAX_CANDIDATES: usize = 24;

/// The mutants of the conditions in the first [`MAX_STATEMENTS`] offered statements of
/// `targets` that hold one, each with the statement's place among the offered.
pub fn candidates(targets: &Targets) -> Vec<(usize, Candidate)> {
    per_statement(
        targets.frames.iter().chain(&targets.sweep),
        |t| mutants(&t.text),
        "condition",
        (MAX_STATEMENTS, MAX_CANDIDATES),
    )
}
