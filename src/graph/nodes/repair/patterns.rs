//! Mutations of the patterns the best-ranked statements write ([`crate::lang::regex_mutation`]):
//! the statements line attempts would be offered first (the frames', then the sweep in the
//! spectrum's order) that hold a raw-string pattern, at most [`MAX_STATEMENTS`] of them; each
//! pattern's mutants in turn, with the punctuation of the failing test's strings as the
//! characters a class may need.

use super::placed::{replaced, Candidate};
use super::targets::Targets;
use crate::lang::regex_mutation::{literal_punctuation, mutants, patterns};

/// The most statements whose patterns are mutated.
pub const MAX_STATEMENTS: usize = 3;

/// The most pattern mutants in one step.
pub const MAX_CANDIDATES: usize = 30;

/// The mutants of the patterns in the first [`MAX_STATEMENTS`] offered statements of
/// `targets` that hold one; `test` is the failing test's code (or the failure quoting it).
pub fn candidates(targets: &Targets, test: &str) -> Vec<Candidate> {
    let extra = literal_punctuation(test);
    let mut out: Vec<Candidate> = Vec::new();
    let holding = targets
        .frames
        .iter()
        .chain(&targets.sweep)
        .filter(|t| !patterns(&t.text).is_empty())
        .take(MAX_STATEMENTS);
    for t in holding {
        for p in patterns(&t.text) {
            let body = &t.text[p.start..p.end];
            for (new, why) in mutants(body, p.quote, &extra) {
                let stmt = format!("{}{new}{}", &t.text[..p.start], &t.text[p.end..]);
                let c = replaced(t, &stmt, format!("pattern `{body}`: {why}"));
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    out.truncate(MAX_CANDIDATES);
    out
}
