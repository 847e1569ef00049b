//! One fix template placed at one statement ([`super::templates`]): the edit block that
//! replaces the statement (with the lines before it that make it unique), and what it does.

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
