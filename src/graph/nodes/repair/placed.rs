//! One fix template placed at one statement ([`super::templates`]): the edit block that
//! replaces the statement (with the lines before it that make it unique), and what it does;
//! and the mutants of the first statements offered that have some ([`per_statement`]).

use super::targets::Target;
use kotef_tools::{Change, EditBlock};

/// One template at one place: the change, and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub block: EditBlock,
    pub why: String,
}

/// `t`'s statement replaced by `new` (the lines before it that make it unique kept).
pub(super) fn replaced(t: &Target, new: &str, why: String) -> Candidate {
    Candidate {
        block: EditBlock {
            path: Some(t.path.clone()),
            change: Change::Replace {
                search: t.with_lead(&t.text),
                replace: t.with_lead(new),
            },
        },
        why: format!("{why} ({}:{})", t.path, t.line),
    }
}

/// The mutants `mutate` makes of the first `max_statements` statements of `offered` (in the
/// order line attempts would be offered them) that it mutates at all, statement by
/// statement, each with the statement's place among the offered; `kind` names them
/// (`condition`, `name`); no change twice, at most `max`.
pub(super) fn per_statement<'a>(
    offered: impl IntoIterator<Item = &'a Target>,
    mutate: impl Fn(&Target) -> Vec<(String, String)>,
    kind: &str,
    (max_statements, max): (usize, usize),
) -> Vec<(usize, Candidate)> {
    let mut out: Vec<(usize, Candidate)> = Vec::new();
    let holding = offered
        .into_iter()
        .enumerate()
        .map(|(i, t)| (i, t, mutate(t)))
        .filter(|(_, _, m)| !m.is_empty())
        .take(max_statements);
    for (i, t, found) in holding {
        for (new, why) in found {
            let c = replaced(t, &new, format!("{kind}: {why}"));
            if !out.iter().any(|(_, o)| *o == c) {
                out.push((i, c));
            }
        }
    }
    out.truncate(max);
    out
}
